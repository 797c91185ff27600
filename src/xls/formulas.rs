//! Formula text of a `.xls` sheet (BIFF8), for
//! [`SheetRows::with_formulas`](crate::SheetRows::with_formulas): each
//! FORMULA record's tokens through the format-neutral decompiler
//! (`crate::formula`), the text in the row's arena.
//!
//! A cell of a shared formula holds only PtgExp, naming the cell whose
//! FORMULA record the range's SHRFMLA record follows (the tokens of an
//! array formula in ARRAY): not always the range's first cell (a range
//! may start left of the first cell that uses it, as in files Excel
//! wrote), so a SHRFMLA is keyed by the FORMULA before it.
//! The sheet's shared and array formulas are kept (tokens in one buffer,
//! bounded) from their record to the sheet's end, so each cell of a shared
//! formula gets the shared tokens decompiled against its own position, as
//! Excel shows it; an array formula's text is given to its first cell only
//! (as `.xlsx` writes it). A PtgExp whose record never comes, or that
//! names no shared formula read before it, is an error.

use std::collections::HashMap;

use bumpalo::Bump;

use crate::error::{Error, ErrorKind, Result};
use crate::formula::{Decompiled, Decompiler, Dialect, Links, Origin};

use super::records::{Biff, u16_at};

pub(super) const SHRFMLA: u16 = 0x04BC;
pub(super) const ARRAY: u16 = 0x0221;

/// Where a formula cell's text goes: the cell pushed at this index of the
/// row's cells, or the string the STRING record after it holds.
#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    Pushed(usize),
    StringResult,
}

/// A shared or array formula's tokens in the buffer.
struct Stored {
    array: bool,
    start: usize,
    end: usize,
}

/// A cell whose PtgExp names itself: its SHRFMLA or ARRAY comes next.
struct Pending {
    origin: Origin,
    target: Target,
}

/// The formula state of one sheet, kept from row to row.
#[derive(Default)]
pub(super) struct Formulas {
    decompiler: Decompiler,
    text: String,
    stored: HashMap<(u32, u32), Stored>,
    tokens: Vec<u8>,
    pending: Option<Pending>,
    /// The cell of the last FORMULA record, which a SHRFMLA or ARRAY
    /// after it belongs to.
    last: Option<(u32, u32)>,
}

impl Formulas {
    /// Notes a FORMULA record's cell, read or not.
    pub(super) fn seen(&mut self, origin: Origin) {
        self.last = Some((origin.row, origin.column));
    }

    /// The text of FORMULA record `data` (the cell at `row`, `column`),
    /// written into `arena`; None when its shared or array formula's record
    /// is still to come (noted for [`Formulas::shared_record`]) or it is
    /// an array formula's cell other than the first.
    pub(super) fn cell<'r>(
        &mut self,
        data: &[u8],
        origin: Origin,
        target: Target,
        links: &Links,
        arena: &'r Bump,
        biff: Biff,
    ) -> Result<Option<&'r str>> {
        if biff != Biff::V8 {
            return Err(Error::new(ErrorKind::Unsupported(
                "formula text of a BIFF5 (Excel 5/95) workbook is not decoded; read without \
                 formulas for the cached values"
                    .into(),
            )));
        }
        let size = usize::from(u16_at(data, 20)?);
        let rgce = data
            .get(22..22 + size)
            .ok_or_else(|| Error::record("a FORMULA record's tokens run past the record"))?;
        self.text.clear();
        match self
            .decompiler
            .decompile(Dialect::Biff8, rgce, origin, links, &mut self.text)?
        {
            Decompiled::Text => Ok(Some(arena.alloc_str(&self.text))),
            Decompiled::Shared { row, column } => {
                let anchor = (row, column.unwrap_or(0));
                match self.stored.get(&anchor) {
                    Some(stored) if stored.array => Ok(None),
                    Some(stored) => {
                        let rgce = &self.tokens[stored.start..stored.end];
                        decompile(
                            &mut self.decompiler,
                            &mut self.text,
                            rgce,
                            origin,
                            links,
                            arena,
                        )
                        .map(Some)
                    }
                    None if anchor == (origin.row, origin.column) => {
                        self.pending = Some(Pending { origin, target });
                        Ok(None)
                    }
                    None => Err(Error::record(format!(
                        "a shared formula's cell (PtgExp) names the formula of row {} column {}, \
                         which no SHRFMLA or ARRAY record before it holds",
                        anchor.0 + 1,
                        anchor.1 + 1
                    ))),
                }
            }
        }
    }

    /// A SHRFMLA or ARRAY record: its tokens kept for the cells that name
    /// it, and the text of the cell waiting for it (with where it goes).
    pub(super) fn shared_record<'r>(
        &mut self,
        kind: u16,
        data: &[u8],
        links: &Links,
        arena: &'r Bump,
        max_bytes: u64,
    ) -> Result<Option<(Target, &'r str)>> {
        let first = (
            u32::from(u16_at(data, 0)?),
            u32::from(*data.get(4).ok_or_else(short)?),
        );
        let (array, at) = match kind {
            SHRFMLA => (false, 8),
            _ => (true, 12),
        };
        let size = usize::from(u16_at(data, at)?);
        let rgce = data
            .get(at + 2..at + 2 + size)
            .ok_or_else(|| Error::record("a shared formula's tokens run past its record"))?;
        // Each kept formula counts its tokens and its entry (an empty
        // token list still costs a map entry).
        if (self.tokens.len() + rgce.len() + 32 * (self.stored.len() + 1)) as u64 > max_bytes {
            return Err(Error::limit(
                "tokens of a sheet's shared formulas",
                max_bytes,
            ));
        }
        let start = self.tokens.len();
        self.tokens.extend_from_slice(rgce);
        let anchor = self.last.unwrap_or(first);
        self.stored.insert(
            anchor,
            Stored {
                array,
                start,
                end: self.tokens.len(),
            },
        );
        let Some(pending) = self
            .pending
            .take_if(|p| (p.origin.row, p.origin.column) == anchor)
        else {
            return Ok(None);
        };
        let text = decompile(
            &mut self.decompiler,
            &mut self.text,
            rgce,
            pending.origin,
            links,
            arena,
        )?;
        Ok(Some((pending.target, text)))
    }

    /// Fails when a cell still waits for its shared formula's record (the
    /// records after it moved on to another cell).
    pub(super) fn settled(&mut self) -> Result<()> {
        match self.pending.take() {
            None => Ok(()),
            Some(pending) => Err(Error::record(
                "a shared formula's cell (PtgExp naming itself) has no SHRFMLA or ARRAY record \
                 after it",
            )
            .with_row(pending.origin.row + 1)
            .with_column(pending.origin.column + 1)),
        }
    }
}

/// A shared or array formula's tokens as a cell's text in `arena`.
fn decompile<'r>(
    decompiler: &mut Decompiler,
    text: &mut String,
    rgce: &[u8],
    origin: Origin,
    links: &Links,
    arena: &'r Bump,
) -> Result<&'r str> {
    text.clear();
    match decompiler.decompile(Dialect::Biff8, rgce, origin, links, text)? {
        Decompiled::Text => Ok(arena.alloc_str(text)),
        Decompiled::Shared { .. } => Err(Error::record(
            "a shared or array formula's tokens are themselves a PtgExp",
        )),
    }
}

fn short() -> Error {
    Error::record("a shared formula record is cut short")
}
