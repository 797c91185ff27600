//! Tables and ranges: where on a sheet the table to read lies. A range
//! ([`ArrowOptions::range`]) or an Excel table
//! ([`ArrowOptions::table`], resolved per workbook from
//! [`Workbook::tables`](crate::Workbook::tables)) becomes, for the sheet it
//! is on, options the prelude already knows: the rows above it skipped,
//! its header row (or the table's column names, given), its columns
//! selected (a pushdown: other columns' cells are never resolved), and the
//! row reader stopped after its last row
//! ([`SheetRows::stop_after_row`](crate::SheetRows::stop_after_row)).
//!
//! The window's columns become the row readers' column window: only values
//! inside it make a row exist.

use std::borrow::Cow;

use super::batches::SheetSource;
use super::options::{ArrowOptions, Header};
use crate::cell::{CellRef, MAX_COLUMN};
use crate::columns::{ColumnSet, ColumnSpec};
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::SheetInfo;
use crate::metadata::{Table, find_table};

/// A table of the options ([`ArrowOptions::table`]) as one workbook
/// defines it; `file`: that workbook's label in a read of many.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedTable {
    pub file: Option<String>,
    pub table: Table,
}

/// The header a table's definition gives: the first data row and the
/// names by sheet column.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GivenHeader {
    pub data_row: u32,
    pub names: Vec<(u32, String)>,
}

impl ArrowOptions {
    /// The position of the sheet holding the table these options name,
    /// in a workbook whose tables are `tables`; these options, knowing
    /// that table for `file`. `wanted`: the sheet a caller chose, which
    /// must be the table's.
    pub(crate) fn with_table(
        &self,
        file: Option<&str>,
        tables: Result<Vec<Table>>,
        sheets: &[SheetInfo],
        wanted: Option<usize>,
    ) -> Result<(ArrowOptions, usize)> {
        let Some(name) = &self.table else {
            return Ok((self.clone(), wanted.unwrap_or(0)));
        };
        let tables = tables?;
        let table = find_table(&tables, name)?.clone();
        if let Some(wanted) = wanted
            && wanted != table.sheet
        {
            let chosen = sheets.get(wanted).map_or("?", SheetInfo::name);
            return Err(Error::new(ErrorKind::TableNotFound(format!(
                "named '{name}' on sheet '{chosen}' (the table is on sheet '{}')",
                table.sheet_name
            ))));
        }
        let position = table.sheet;
        let mut options = self.clone();
        let mut known: Vec<ResolvedTable> = (self.tables.iter())
            .filter(|known| known.file.as_deref() != file)
            .cloned()
            .collect();
        known.push(ResolvedTable {
            file: file.map(str::to_owned),
            table,
        });
        options.tables = std::sync::Arc::new(known);
        Ok((options, position))
    }

    /// The options to read one sheet with: a range or a table made into
    /// skipped rows, a header and a column selection; the row reader told
    /// where to stop and which columns to resolve.
    pub(crate) fn for_sheet<'o>(
        &'o self,
        source: &mut SheetSource<'_>,
    ) -> Result<Cow<'o, ArrowOptions>> {
        let (range, given) = match (&self.table, &self.range) {
            (Some(name), _) => {
                let file = source.file.as_deref();
                let Some(known) = (self.tables.iter()).find(|known| {
                    known.file.as_deref() == file && known.table.sheet_name == source.sheet
                }) else {
                    return Err(Error::new(ErrorKind::TableNotFound(format!(
                        "named '{name}' on sheet '{}'",
                        source.sheet
                    )))
                    .with_sheet(&source.sheet));
                };
                let table = &known.table;
                let range = table.data_window(self.include_totals_row);
                let given = GivenHeader {
                    data_row: range.first_row,
                    names: table.header(),
                };
                (range, Some(given))
            }
            (None, Some(range)) => {
                if let Some(sheet) = &range.sheet
                    && sheet != &source.sheet
                {
                    return Err(Error::new(ErrorKind::SheetNotFound(format!(
                        "'{}' for the range {range}: the sheet read is '{}'",
                        sheet, source.sheet
                    ))));
                }
                (range.clone(), None)
            }
            (None, None) => return Ok(Cow::Borrowed(self)),
        };
        let mut options = self.clone();
        source.rows.stop_after_row(range.last_row);
        // Rows skipped count from the sheet's row 1: the header is the
        // first row of the range not skipped.
        options.skip_rows = options.skip_rows.max(range.first_row);
        match given {
            Some(given) => {
                options.header = Header::None;
                options.given_header = Some(given);
            }
            None => {
                if options.header == Header::FirstNonEmpty {
                    options.header = Header::Row(options.skip_rows);
                }
            }
        }
        let last_column = range.last_column.unwrap_or(MAX_COLUMN);
        let inside: ColumnSet = (range.first_column..=last_column).collect();
        match &self.columns {
            Some(spec) => options.columns = Some(spec.clone()),
            None if range.last_column.is_some() => {
                options.columns = Some(ColumnSpec::from_selectors([
                    crate::columns::ColumnSelector::Range(range.first_column, last_column),
                ]));
            }
            None => {}
        }
        options.window_columns = Some((range.first_column, last_column));
        source.rows.select_columns(Some(inside));
        source
            .rows
            .set_column_window(range.first_column, last_column);
        Ok(Cow::Owned(options))
    }

    /// A column selection's columns must lie in the range or table.
    pub(crate) fn check_in_window(&self, columns: &[u32], sheet: &str) -> Result<()> {
        let Some((first, last)) = self.window_columns else {
            return Ok(());
        };
        match columns.iter().find(|&&c| c < first || c > last) {
            None => Ok(()),
            Some(&outside) => {
                let cell = |column| {
                    CellRef { row: 0, column }
                        .to_string()
                        .trim_end_matches('1')
                        .to_owned()
                };
                Err(Error::new(ErrorKind::ColumnSelection(format!(
                    "column {} is outside the {} read (columns {} to {})",
                    cell(outside),
                    if self.table.is_some() {
                        "table"
                    } else {
                        "range"
                    },
                    cell(first),
                    cell(last)
                )))
                .with_sheet(sheet))
            }
        }
    }
}
