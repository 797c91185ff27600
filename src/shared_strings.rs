//! The shared strings table: stored as one contiguous string plus end
//! offsets, handed out by reference. Each format reads its own part into
//! it through a [`SharedStringsBuilder`] (`xlsx::shared_strings`, the
//! binary formats' readers), which keeps the limits.

use crate::error::{Error, Result};
use crate::limits::Limits;

/// All shared strings of a workbook.
#[derive(Debug, Default, Clone)]
pub struct SharedStrings {
    text: String,
    ends: Vec<usize>,
}

impl SharedStrings {
    pub(crate) const fn empty() -> SharedStrings {
        SharedStrings {
            text: String::new(),
            ends: Vec::new(),
        }
    }

    /// The number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The string at `index`, if there is one.
    pub fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)?;
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        self.text.get(start..end)
    }

    /// Total bytes of text.
    pub fn text_bytes(&self) -> usize {
        self.text.len()
    }
}

/// Gathers a table's strings item by item within the limits: the text as
/// bytes (each item valid UTF-8 before it is pushed, so the one check at
/// the end cannot fail), growing by doubling only up to the limit.
pub(crate) struct SharedStringsBuilder {
    text: Vec<u8>,
    ends: Vec<usize>,
    max_text: u64,
    max_count: u64,
}

impl SharedStringsBuilder {
    pub(crate) fn new(limits: &Limits) -> SharedStringsBuilder {
        SharedStringsBuilder {
            text: Vec::new(),
            ends: Vec::new(),
            max_text: limits.max_shared_string_bytes,
            max_count: limits.max_shared_strings,
        }
    }

    /// Appends to the item being gathered (valid UTF-8 only).
    #[inline]
    pub(crate) fn append(&mut self, item: &[u8]) -> Result<()> {
        append_within(&mut self.text, item, self.max_text)
    }

    /// Ends the item being gathered.
    #[inline]
    pub(crate) fn end_item(&mut self) -> Result<()> {
        let ends = &mut self.ends;
        if ends.len() as u64 >= self.max_count {
            return Err(Error::limit("shared string count", self.max_count));
        }
        if ends.len() == ends.capacity() {
            let ceiling = usize::try_from(self.max_count).unwrap_or(usize::MAX);
            let wanted = ends.len().saturating_mul(2).clamp(16, ceiling.max(16));
            ends.try_reserve_exact(wanted - ends.len())
                .map_err(|_| Error::limit("shared string count", self.max_count))?;
        }
        ends.push(self.text.len());
        Ok(())
    }

    pub(crate) fn finish(mut self) -> Result<SharedStrings> {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
        // Every item was checked (or is ASCII) before it was appended: this
        // cannot fail, and has no part offset to report if it did.
        let text = String::from_utf8(self.text)
            .map_err(|_| Error::new(crate::error::ErrorKind::InvalidUtf8))?;
        Ok(SharedStrings {
            text,
            ends: self.ends,
        })
    }
}

/// Appends an item's text to the shared strings' text, checking the limit
/// before the text grows, and growing it by doubling only up to the limit
/// (a text of just over 1 GiB must not ask for 2 GiB), without aborting
/// the process when memory runs out.
/// Inlined for the common case, an item that fits the capacity; growing
/// is out of line.
#[inline]
fn append_within(text: &mut Vec<u8>, item: &[u8], max: u64) -> Result<()> {
    let needed = text.len().saturating_add(item.len());
    if needed > text.capacity() || needed as u64 > max {
        grow_within(text, needed, max)?;
    }
    text.extend_from_slice(item);
    Ok(())
}

/// [`append_within`]'s growth: the limit checked first, then doubling up
/// to it.
#[cold]
#[inline(never)]
fn grow_within(text: &mut Vec<u8>, needed: usize, max: u64) -> Result<()> {
    if needed as u64 > max {
        return Err(Error::limit("shared string bytes", max));
    }
    if needed > text.capacity() {
        let ceiling = usize::try_from(max).unwrap_or(usize::MAX);
        let wanted = text
            .capacity()
            .saturating_mul(2)
            .max(4096)
            .min(ceiling)
            .max(needed);
        text.try_reserve_exact(wanted - text.len())
            .map_err(|_| Error::limit("shared string bytes", max))?;
    }
    Ok(())
}
