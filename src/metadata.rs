//! What a workbook says besides its cells, as the same types for every
//! format: the sheet list ([`SheetInfo`]), defined names, a sheet's
//! dimension, hidden columns and rows, merged ranges, hyperlinks and
//! comments ([`SheetMetadata`]), and Excel tables ([`Table`]). Each format
//! reads them from its own parts (`xlsx::metadata`, `xlsb::metadata`,
//! `xls::metadata`); `Workbook`'s methods (`workbook::metadata`) ask the
//! workbook's format for them.

use std::ops::RangeInclusive;

use crate::cell::CellRef;
use crate::range::{CellRange, SheetRange};

/// Whether a sheet is shown in Excel's tab bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SheetState {
    /// Shown.
    Visible,
    /// Hidden; the user can unhide it.
    Hidden,
    /// Hidden; only a macro can unhide it.
    VeryHidden,
}

/// What a sheet holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SheetKind {
    /// A grid of cells.
    Worksheet,
    /// A sheet that holds only a chart.
    Chartsheet,
    /// An Excel 5 dialog sheet.
    Dialogsheet,
    /// An Excel 4 macro sheet (XLM).
    Macrosheet,
}

/// A sheet as the workbook lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetInfo {
    pub(crate) position: usize,
    pub(crate) name: String,
    pub(crate) state: SheetState,
    pub(crate) kind: SheetKind,
    pub(crate) part: String,
}

impl SheetInfo {
    /// The sheet's position in [`Workbook::sheets`](crate::Workbook::sheets).
    pub fn position(&self) -> usize {
        self.position
    }

    /// The sheet's name as shown on its tab.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Visible, hidden or very hidden.
    pub fn state(&self) -> SheetState {
        self.state
    }

    /// Worksheet, chart sheet, dialog sheet or macro sheet.
    pub fn kind(&self) -> SheetKind {
        self.kind
    }

    /// The name of the package part holding the sheet's XML.
    pub fn part(&self) -> &str {
        &self.part
    }
}

/// A defined name (a named range, constant or formula) from the workbook.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DefinedName {
    /// The name, e.g. `Totals` or `_xlnm.Print_Area`.
    pub name: String,
    /// What it refers to, as written: a formula such as `Data!$B$2:$B$4`.
    pub refers_to: String,
    /// The sheet the name is local to (its position in
    /// [`Workbook::sheets`](crate::Workbook::sheets)), or `None` for a workbook-wide name.
    pub sheet: Option<usize>,
    /// Whether the name is hidden from the user.
    pub hidden: bool,
}

/// A hyperlink anchored on a cell or range.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hyperlink {
    /// The cells the link is on.
    pub range: CellRange,
    /// The target of the link's relationship: a URL, a file path, or for
    /// a target inside the package, its part name. `None` for links that
    /// only have a `location`.
    pub target: Option<String>,
    /// A place in the workbook (`Sheet2!A1`, a defined name), or the
    /// fragment of an external target.
    pub location: Option<String>,
    /// The text shown, when the link says.
    pub display: Option<String>,
    /// The tooltip.
    pub tooltip: Option<String>,
}

/// A cell comment (a note, in today's Excel).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Comment {
    /// The cell it is attached to.
    pub cell: CellRef,
    /// The author, from the comments part's list of authors.
    pub author: Option<String>,
    /// The text, rich text runs joined.
    pub text: String,
}

/// What a sheet says about itself besides its cells. Read by
/// [`Workbook::sheet_metadata`](crate::Workbook::sheet_metadata) without reading the cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SheetMetadata {
    /// The used range as the file states it (`<dimension ref>`), which may
    /// be missing or wrong; [`Sheet::used_range`](crate::Sheet::used_range)
    /// computes it from the cells.
    pub dimension: Option<CellRange>,
    /// Hidden columns (0-based, inclusive ranges), in file order.
    pub hidden_columns: Vec<RangeInclusive<u32>>,
    /// Whether rows are hidden unless the sheet writes them
    /// (`<sheetFormatPr zeroHeight="1">`, how Excel hides every unused row):
    /// then [`Workbook::hidden_rows`](crate::Workbook::hidden_rows) lists the written rows marked hidden,
    /// and every row the sheet does not write is hidden too.
    pub rows_hidden_by_default: bool,
    /// Merged ranges, in file order.
    pub merged: Vec<CellRange>,
    /// Hyperlinks, in file order.
    pub hyperlinks: Vec<Hyperlink>,
    /// Comments (notes), in file order.
    pub comments: Vec<Comment>,
}

impl SheetMetadata {
    /// Whether a column (0-based) is hidden.
    pub fn is_column_hidden(&self, column: u32) -> bool {
        self.hidden_columns
            .iter()
            .any(|range| range.contains(&column))
    }

    /// The merged range a cell belongs to, if any.
    pub fn merged_range_of(&self, cell: CellRef) -> Option<CellRange> {
        self.merged
            .iter()
            .copied()
            .find(|range| range.contains(cell))
    }
}

/// An Excel table (a ListObject: Insert > Table in Excel), read by
/// [`Workbook::tables`](crate::Workbook::tables) from its own part without reading any cell.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Table {
    /// The table's name (`Table1`, `Sales`), as formulas refer to it.
    pub name: String,
    /// The name Excel shows (the same as `name` in files Excel writes).
    pub display_name: String,
    /// The sheet holding it: its position in [`Workbook::sheets`](crate::Workbook::sheets).
    pub sheet: usize,
    /// That sheet's name.
    pub sheet_name: String,
    /// The whole table: header row, data rows and totals row.
    pub range: CellRange,
    /// Header rows at the top of the range (1, or 0 for a table whose
    /// header row is hidden).
    pub header_row_count: u32,
    /// Totals rows at the bottom of the range (0 or 1).
    pub totals_row_count: u32,
    /// The column names, left to right, as the table defines them.
    pub columns: Vec<String>,
}

impl Table {
    /// The rows and columns of its data: the range without the header
    /// row, and without the totals row unless `include_totals_row`. None
    /// for a table without data rows.
    pub fn data_range(&self, include_totals_row: bool) -> Option<CellRange> {
        let first = self.range.first.row + self.header_row_count;
        let totals = if include_totals_row {
            0
        } else {
            self.totals_row_count
        };
        let last = self.range.last.row.checked_sub(totals)?;
        (first <= last).then_some(CellRange {
            first: CellRef {
                row: first,
                column: self.range.first.column,
            },
            last: CellRef {
                row: last,
                column: self.range.last.column,
            },
        })
    }

    /// What a reader of the table reads, as a range on its sheet: its data
    /// rows (the header row left out, the totals row too unless
    /// `include_totals_row`) and its columns. A table without data rows
    /// ends at its header row: the range then holds no row. What the CLI's
    /// `--table` and the Arrow layer's `table` option read.
    pub fn data_window(&self, include_totals_row: bool) -> SheetRange {
        let data_row = self.range.first.row + self.header_row_count;
        let last_row = self
            .data_range(include_totals_row)
            .map_or(data_row.saturating_sub(1), |data| data.last.row);
        SheetRange {
            sheet: Some(self.sheet_name.clone()),
            first_row: data_row,
            last_row: Some(last_row),
            first_column: self.range.first.column,
            last_column: Some(self.range.last.column),
        }
    }

    /// The header the table's definition gives: each column's name by its
    /// sheet column (0-based), left to right.
    pub fn header(&self) -> Vec<(u32, String)> {
        (self.range.first.column..=self.range.last.column)
            .zip(self.columns.iter().cloned())
            .collect()
    }

    /// Whether `name` names this table: Excel's table names are
    /// case-insensitive, and either its name or its display name counts.
    pub fn is_named(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        self.name.to_lowercase() == name || self.display_name.to_lowercase() == name
    }
}

/// The table of this name among `tables`, or an error listing those
/// there are.
pub(crate) fn find_table<'t>(tables: &'t [Table], name: &str) -> crate::Result<&'t Table> {
    Table::find(tables, name)
}

impl Table {
    /// The table of this name (case-insensitive) among `tables`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TableNotFound`](crate::ErrorKind::TableNotFound),
    /// listing the tables there are.
    pub fn find<'t>(tables: &'t [Table], name: &str) -> crate::Result<&'t Table> {
        tables
            .iter()
            .find(|table| table.is_named(name))
            .ok_or_else(|| {
                let known: Vec<&str> = tables.iter().map(|table| table.name.as_str()).collect();
                let known = if known.is_empty() {
                    "the workbook has no tables".to_owned()
                } else {
                    format!("the workbook's tables: {}", known.join(", "))
                };
                crate::Error::new(crate::ErrorKind::TableNotFound(format!(
                    "named '{name}' ({known})"
                )))
            })
    }
}
