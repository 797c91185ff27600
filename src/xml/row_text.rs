//! [`RowText`]: the text of one scanned row, validated as UTF-8 once, so
//! that a row reader (`.xlsx`, `.ods`) borrows each value's text from it
//! by the span the scanner recorded, without checking it again.

use super::Span;
use crate::error::{Error, ErrorKind, Result};

/// A row's text: the window it was scanned in (spans count from its
/// start) and the row's own bytes, validated as UTF-8 once.
#[derive(Clone, Copy)]
pub(crate) struct RowText<'r> {
    pub(crate) window: &'r [u8],
    text: &'r str,
    /// Where `text` starts in the window.
    base: usize,
}

impl<'r> RowText<'r> {
    /// Validates the row's bytes, `window[start..end]`; invalid UTF-8 is
    /// an error at the offset of its first bad byte.
    pub(crate) fn new(window: &'r [u8], start: usize, end: usize) -> Result<RowText<'r>> {
        let bytes = &window[start..end];
        let text = simdutf8::basic::from_utf8(bytes).map_err(|_| {
            let valid = std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |_| 0);
            Error::new(ErrorKind::InvalidUtf8).with_offset((start + valid) as u64)
        })?;
        Ok(RowText {
            window,
            text,
            base: start,
        })
    }

    /// The text of `span` (window positions, inside the row).
    #[inline]
    pub(crate) fn span(&self, span: Span) -> &'r str {
        &self.text[span.start - self.base..span.end - self.base]
    }
}
