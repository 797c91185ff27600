//! The shared and array formulas of an `.xlsb` sheet, for formula text: a
//! cell of a shared formula holds only PtgExp (the row of the cell that
//! holds the shared tokens); the tokens come in the BrtShrFmla record
//! right after that cell's record, with the range of cells sharing them
//! (an array formula's in BrtArrFmla). They are kept (in one buffer,
//! bounded) until the sheet ends, and each cell of a shared range gets
//! them decompiled against its own position; an array formula's text goes
//! to its first cell only (as `.xlsx` writes it).

use std::collections::HashMap;

use crate::error::{Error, Result};

use super::records::Fields;

/// A shared formula's range and where its tokens lie in the buffer.
#[derive(Clone, Copy)]
struct Entry {
    first_row: u32,
    last_row: u32,
    first_column: u32,
    last_column: u32,
    array: bool,
    start: usize,
    end: usize,
}

impl Entry {
    fn contains(&self, row: u32, column: u32) -> bool {
        (self.first_row..=self.last_row).contains(&row)
            && (self.first_column..=self.last_column).contains(&column)
    }
}

/// A cell whose PtgExp names its own row and no shared formula read so
/// far: its BrtShrFmla comes next.
#[derive(Clone, Copy)]
pub(super) struct Pending {
    /// The cell's index in the row's cells.
    pub index: usize,
    pub row: u32,
    pub column: u32,
}

#[derive(Default)]
pub(super) struct SharedFormulas {
    tokens: Vec<u8>,
    /// Entries by the row PtgExp names (the range's first row, and the row
    /// of the cell the record follows).
    by_row: HashMap<u32, Vec<Entry>>,
    pub pending: Option<Pending>,
    /// The last formula cell read, which a BrtShrFmla after it belongs to.
    pub last: Option<(u32, u32)>,
    /// How many formulas are kept.
    entries: usize,
}

impl SharedFormulas {
    /// The tokens of the shared formula PtgExp's `row` names for the cell
    /// at `row`, `column` (empty for a cell of an array formula: its text
    /// is on the first cell); None when none is known yet.
    pub(super) fn tokens(&self, named_row: u32, row: u32, column: u32) -> Option<&[u8]> {
        let entries = self.by_row.get(&named_row)?;
        let entry = entries.iter().rev().find(|e| e.contains(row, column))?;
        Some(if entry.array {
            &[]
        } else {
            &self.tokens[entry.start..entry.end]
        })
    }

    /// A BrtShrFmla record: its range and tokens kept; returns the tokens
    /// and the cell waiting for them, if it lies in the range.
    pub(super) fn record(
        &mut self,
        kind: u16,
        body: &[u8],
        max_bytes: u64,
    ) -> Result<Option<(Pending, &[u8])>> {
        let array = kind == super::records::ARR_FMLA;
        let mut fields = Fields::new(kind, body);
        let first_row = fields.u32("a shared formula's first row")?;
        let last_row = fields.u32("a shared formula's last row")?;
        let first_column = fields.u32("a shared formula's first column")?;
        let last_column = fields.u32("a shared formula's last column")?;
        if array {
            fields.skip(1, "an array formula's flags")?;
        }
        let size = fields.u32("a shared formula's size")?;
        let rgce = fields.bytes(size as usize, "a shared formula's tokens")?;
        // Each kept formula counts its tokens and its entries (an empty
        // token list still costs them).
        self.entries += 1;
        if (self.tokens.len() + rgce.len() + 64 * self.entries) as u64 > max_bytes {
            return Err(Error::limit(
                "tokens of a sheet's shared formulas",
                max_bytes,
            ));
        }
        let start = self.tokens.len();
        self.tokens.extend_from_slice(rgce);
        let entry = Entry {
            first_row,
            last_row,
            first_column,
            last_column,
            array,
            start,
            end: self.tokens.len(),
        };
        self.by_row.entry(first_row).or_default().push(entry);
        if let Some((row, _)) = self.last
            && row != first_row
        {
            self.by_row.entry(row).or_default().push(entry);
        }
        let pending = self.pending.take_if(|p| entry.contains(p.row, p.column));
        Ok(pending.map(|p| (p, &self.tokens[entry.start..entry.end])))
    }
}
