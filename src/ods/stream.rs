//! Tokens of a streamed part, for the readers that walk a document's
//! structure rather than its rows: the sheet list and styles at open
//! (`catalog.rs`), a sheet's metadata (`metadata.rs`).
//!
//! [`TokenStream`] pulls the part through a [`ChunkBuffer`] and hands out
//! one token at a time, refilling the window when a token is cut off by
//! its end; a table that is only passed over is skimmed (`skim.rs`), its
//! cells never tokenized. Spans in a token index [`TokenStream::input`]
//! until the next call. Errors carry their offset in the part.

use super::names::Names;
use super::skim::{Skim, SkimStep};
use crate::chunk::ChunkBuffer;
use crate::contract::PartSource;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::xml::{self, Step, Token, XmlError};

/// Where a skim of a table stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkimEnd {
    /// After the table's end tag.
    Ended,
    /// At the table's own `table:named-expressions` start tag, the next
    /// token.
    NamedExpressions,
}

/// The error of a tokenizer error at `base` + its offset.
pub(crate) fn located(err: XmlError, base: u64) -> Error {
    let message = if err.message.starts_with("a document type declaration") {
        "a document type declaration (DTD) is not allowed: entities are never expanded"
    } else {
        err.message
    };
    Error::xml(message).with_offset(base + err.offset as u64)
}

/// A part's tokens, one at a time.
pub(crate) struct TokenStream<'a> {
    source: PartSource<'a>,
    buffer: ChunkBuffer,
    /// Where the next token starts in the window.
    pos: usize,
}

impl<'a> TokenStream<'a> {
    pub(crate) fn new(source: PartSource<'a>, limits: &Limits) -> TokenStream<'a> {
        TokenStream {
            buffer: source.chunk_buffer(limits),
            source,
            pos: 0,
        }
    }

    /// Replaces the window with one of `chunk_size` bytes (for tests:
    /// small windows cut tokens and tables).
    #[cfg(test)]
    pub(crate) fn with_chunk_size(mut self, chunk_size: usize, limits: &Limits) -> Self {
        self.buffer = ChunkBuffer::with_chunk_size(chunk_size, limits.max_row_bytes);
        self
    }

    /// The window the last token's spans index.
    pub(crate) fn input(&self) -> &[u8] {
        self.buffer.window()
    }

    /// The part offset of the window's first byte (the last token's start).
    pub(crate) fn offset(&self) -> u64 {
        self.buffer.window_offset()
    }

    /// The next token, or None at the end of the part.
    pub(crate) fn next_token(&mut self) -> Result<Option<Token>> {
        self.buffer.consume(self.pos);
        self.pos = 0;
        loop {
            let complete = self.buffer.is_eof();
            match xml::next_token(self.buffer.window(), 0, complete) {
                Ok(Step::Token(token, next)) => {
                    self.pos = next;
                    return Ok(Some(token));
                }
                Ok(Step::End) => return Ok(None),
                Ok(Step::Incomplete) => self.source.fill_for_rescan(&mut self.buffer)?,
                Err(err) => return Err(located(err, self.buffer.window_offset())),
            }
        }
    }

    /// Passes over the rest of a table whose start tag was the last
    /// token, up to its end or, with `stop_at_names`, its own named
    /// expressions (the next token then). `skim` carries the state over
    /// from a skim that stopped there.
    pub(crate) fn skim_table(
        &mut self,
        skim: &mut Skim,
        names: &Names,
        stop_at_names: bool,
    ) -> Result<SkimEnd> {
        self.buffer.consume(self.pos);
        self.pos = 0;
        loop {
            let complete = self.buffer.is_eof();
            let base = self.buffer.window_offset();
            match skim
                .run(self.buffer.window(), 0, complete, names, stop_at_names)
                .map_err(|err| located(err, base))?
            {
                SkimStep::Ended(next) => {
                    self.pos = next;
                    return Ok(SkimEnd::Ended);
                }
                SkimStep::NamedExpressions(at) => {
                    self.buffer.consume(at);
                    return Ok(SkimEnd::NamedExpressions);
                }
                SkimStep::More(at) => {
                    self.buffer.consume(at);
                    self.source.fill_for_rescan(&mut self.buffer)?;
                }
            }
        }
    }

    /// Reads the rest of the part, so that the archive's CRC check runs.
    pub(crate) fn drain(&mut self) -> Result<()> {
        self.source.drain()
    }
}
