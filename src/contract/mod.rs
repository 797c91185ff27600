//! The format seam: what every file format implements, and all that the
//! layers above it (the workbook, the parallel engine, `Sheet`, serde,
//! Arrow) may know of a format.
//!
//! Read this first. A format is a folder (`xlsx/`, `xlsb/`, `xls/`) that
//! implements two traits:
//!
//! - [`FormatBook`], its opened workbook: what opening gave
//!   ([`Opened`]: the sheet list, styles, shared strings, date system),
//!   then, on demand, a sheet's rows (on this thread, or pipelined over
//!   threads of a scope), its metadata, the defined names, the tables and
//!   the size the parallel engine sorts sheets by;
//! - [`RowSource`], its row reader, which [`SheetRows`] hands each call
//!   to.
//!
//! What a format's readers take in is below this module too:
//! [`SheetContext`] (what values are resolved against) and
//! [`PartSource`] (where a streamed part's bytes come from). Nothing here
//! names a format; the workbook layer holds one [`FormatBook`] per
//! opened workbook (`workbook::book`, one arm per format).

mod context;
mod part_source;
mod rows;

use std::io::{Read, Seek};
use std::thread::Scope;

pub(crate) use context::SheetContext;
pub(crate) use part_source::PartSource;
pub use rows::SheetRows;
pub(crate) use rows::{AtEnd, RowSource};

use crate::date::DateSystem;
use crate::error::Result;
use crate::formula::Links;
use crate::metadata::{DefinedName, SheetInfo, SheetMetadata, Table};
use crate::range::CellRange;
use crate::shared_strings::SharedStrings;
use crate::styles::Styles;

/// What opening a workbook gives, in every format: the format's book and
/// the format-neutral pieces every sheet's values are resolved against.
pub(crate) struct Opened<B> {
    pub book: B,
    pub sheets: Vec<SheetInfo>,
    pub styles: Styles,
    pub shared_strings: Option<SharedStrings>,
    pub date_system: DateSystem,
    /// What formulas refer to by index (`.xlsb`, `.xls`; empty otherwise).
    pub links: Links,
}

impl<B> Opened<B> {
    /// The same, its book wrapped (in the workbook's one arm per format).
    pub(crate) fn map_book<C>(self, wrap: impl FnOnce(B) -> C) -> Opened<C> {
        Opened {
            book: wrap(self.book),
            sheets: self.sheets,
            styles: self.styles,
            shared_strings: self.shared_strings,
            date_system: self.date_system,
            links: self.links,
        }
    }
}

/// An opened workbook of one format: its container (cloned once per
/// parallel worker, so a clone must be cheap and share what was read at
/// open) and what the format needs to find a sheet in it. The limits it
/// was opened with apply to everything it reads.
///
/// Sheets are named by their [`SheetInfo`] from [`Opened::sheets`]; where
/// a sheet lies is the format's own business (a part, an offset in a
/// stream).
pub(crate) trait FormatBook<R: Read + Seek> {
    /// A pull reader over a sheet's rows, read on this thread.
    fn sheet_rows<'a>(
        &'a mut self,
        sheet: &'a SheetInfo,
        context: SheetContext<'a>,
    ) -> Result<SheetRows<'a>>;

    /// The same, with up to `threads` threads of `scope` helping (a
    /// part inflated on one while this one scans, or a sheet read block
    /// by block); a format without such a way reads on this thread.
    fn pipelined_sheet_rows<'scope, 'env, 'a>(
        &'a mut self,
        scope: &'scope Scope<'scope, 'env>,
        sheet: &'env SheetInfo,
        context: SheetContext<'env>,
        threads: usize,
    ) -> Result<SheetRows<'a>>
    where
        R: Clone + Send + 'env,
        'env: 'a;

    /// The stored size of a sheet's data: the parallel readers start with
    /// the biggest.
    fn sheet_size(&self, sheet: &SheetInfo) -> u64;

    /// The workbook's defined names, in file order; `sheets` to name the
    /// sheets they are local to.
    fn defined_names(&mut self, sheets: &[SheetInfo]) -> Result<Vec<DefinedName>>;

    /// A sheet's metadata, read without its cells.
    fn sheet_metadata(&mut self, sheet: &SheetInfo) -> Result<SheetMetadata>;

    /// What a sheet says before its cells (dimension, hidden columns,
    /// rows hidden by default), where that costs less than
    /// [`sheet_metadata`](FormatBook::sheet_metadata); otherwise the same.
    fn sheet_head(&mut self, sheet: &SheetInfo) -> Result<SheetMetadata> {
        self.sheet_metadata(sheet)
    }

    /// The dimension a sheet declares, read from its start only.
    fn sheet_dimension(&mut self, sheet: &SheetInfo) -> Result<Option<CellRange>>;

    /// A sheet's hidden rows (0-based), in file order.
    fn hidden_rows(&mut self, sheet: &SheetInfo) -> Result<Vec<u32>>;

    /// The workbook's Excel tables, in sheet order (none where the format
    /// has none).
    fn tables(&mut self, sheets: &[SheetInfo]) -> Result<Vec<Table>>;
}
