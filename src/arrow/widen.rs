//! A value that does not fit its column: reading on through the sheet for
//! the types every row needs ([`WidenedSheet`], what a read again uses),
//! and the error that names the cell, the value and the options that
//! would take it.

use super::options::{ArrowOptions, ColumnType, OnMismatch};
use super::prelude::{ColumnsDropped, Samples, SheetColumns, columns_from};
use crate::cell::column_name;
use crate::contract::SheetRows;
use crate::error::{Error, Result};
use crate::number_format::FormatKind;

/// The value a batch builder stopped on.
pub(crate) struct Misfit {
    /// Its output column; None when the schema has none for it.
    pub slot: Option<usize>,
    /// Its sheet row and column (0-based).
    pub row: u32,
    pub column: u32,
    /// The value as text, cut for messages.
    pub value: String,
    /// Table rows before its row.
    pub position: u64,
}

/// One sheet's columns as a read through it found them: the columns a
/// read again of that sheet uses instead of its sample's.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WidenedSheet {
    /// The file, for readers over many files.
    pub file: Option<String>,
    pub sheet: String,
    pub columns: SheetColumns,
}

/// What a sheet's reader keeps to widen its columns after a misfit.
pub(crate) struct Widening {
    /// The header row's text by sheet column.
    pub header: Vec<(u32, String)>,
    /// The sample's values by sheet column; a misfit adds its row's and
    /// every later row's.
    pub samples: Samples,
    /// The sheet's own columns (from its sample, or known before).
    pub columns: SheetColumns,
    /// The sheet column of each output column (None: the sheet has none
    /// of that name in a union).
    pub sources: Vec<Option<u32>>,
    /// Whether the schema is a union of many sheets'.
    pub united: bool,
    /// Whether the columns were known before the sample (every row
    /// inferred, or widened by a read before).
    pub known: bool,
    pub options: ArrowOptions,
    /// The columns left out (issue 26: empty, hidden).
    pub dropped: ColumnsDropped,
}

/// The output column a misfit is in, as the builder has it.
pub(crate) struct MisfitColumn<'a> {
    pub name: &'a str,
    pub column_type: ColumnType,
    /// Whether inference gave the type (not an override).
    pub widenable: bool,
}

impl Widening {
    /// The error for a misfit whose row's cells are already in the
    /// samples. Under [`OnMismatch::Widen`] in a column inference typed
    /// (or outside the schema without a selection), the rest of the sheet
    /// is read first, and the error carries the columns every row needs.
    pub fn error(
        &mut self,
        misfit: &Misfit,
        column: Option<MisfitColumn<'_>>,
        rows: &mut SheetRows<'_>,
        formats: &[FormatKind],
        file: Option<&str>,
        sheet: &str,
    ) -> Error {
        let widenable = column.as_ref().is_none_or(|column| column.widenable);
        let widen = widenable && self.options.on_mismatch == OnMismatch::Widen;
        let widened = if widen {
            match self.read_on(misfit, rows, formats, sheet) {
                Ok(columns) => Some(columns),
                // The sheet cannot be read to its end: that is the error.
                Err(err) => return err,
            }
        } else {
            None
        };
        // The type that takes the value: what every row needs, or what
        // this value and the column's type make.
        let needs = match (&widened, misfit.slot) {
            (Some(columns), _) => (columns.sources.iter().position(|&s| s == misfit.column))
                .and_then(|at| columns.inferred[at]),
            (None, Some(slot)) => {
                let sheet_column = self.sources[slot].unwrap_or(misfit.column);
                let alone = self.samples.infer(sheet_column);
                super::infer::promote(column.as_ref().map(|c| c.column_type), alone)
            }
            (None, None) => None,
        }
        .unwrap_or(ColumnType::Utf8);
        let detail = self.detail(column.as_ref(), needs, widen);
        let name = match &column {
            Some(column) => column.name.to_owned(),
            None => column_name(misfit.column, &mut [0; 3]).to_owned(),
        };
        let err = Error::mismatch(misfit.value.clone(), name, detail)
            .with_sheet(sheet)
            .with_row(misfit.row + 1)
            .with_column(misfit.column + 1);
        match widened {
            Some(columns) => err.with_attachment(WidenedSheet {
                file: file.map(str::to_owned),
                sheet: sheet.to_owned(),
                columns,
            }),
            None => err,
        }
    }

    /// Reads the rest of the sheet (up to `n_rows`) into the samples and
    /// returns the columns every row read makes.
    fn read_on(
        &mut self,
        misfit: &Misfit,
        rows: &mut SheetRows<'_>,
        formats: &[FormatKind],
        sheet: &str,
    ) -> Result<SheetColumns> {
        let mut left = (self.options.n_rows).map(|n| n.saturating_sub(misfit.position + 1));
        let mut last = misfit.row;
        while let Some(row) = rows.next_row()? {
            if !row.holds_values() {
                continue;
            }
            if let Some(left) = &mut left {
                let step = u64::from(row.index().saturating_sub(last).max(1));
                if step > *left {
                    break;
                }
                *left -= step;
            }
            last = row.index();
            self.samples.add_row(row.cells(), formats);
        }
        // The sheet's columns stay (a union names them), widened; others
        // with values are added.
        columns_from(
            self.options.columns.as_ref(),
            &self.header,
            &self.samples,
            &self.columns.sources,
            sheet,
            &self.dropped,
        )
        .map(|mut columns| {
            // Columns known before keep what they knew: their types were
            // inferred from rows this read did not sample.
            if self.known {
                for (at, source) in columns.sources.iter().enumerate() {
                    if let Some(before) = self.columns.sources.iter().position(|s| s == source) {
                        columns.inferred[at] = super::infer::promote(
                            self.columns.inferred[before],
                            columns.inferred[at],
                        );
                    }
                }
            }
            columns
        })
    }

    /// The column's type and where it came from, and the options that
    /// would take the value.
    fn detail(&self, column: Option<&MisfitColumn<'_>>, needs: ColumnType, widen: bool) -> String {
        let sample = match self.options.schema_sample_rows {
            super::ALL_ROWS => "every row".to_owned(),
            rows => format!("the first {rows} rows with values"),
        };
        let Some(column) = column else {
            return format!(
                "(the schema has no such column: the header and {sample} use none there); \
                 {}",
                self.advice(None, needs, widen)
            );
        };
        let origin = if !column.widenable {
            "as dtypes gives it".to_owned()
        } else if self.united {
            format!("as {sample} of the sheets read together made it")
        } else if self.known {
            "as a read of the sheet before made it".to_owned()
        } else {
            format!("as {sample} made it")
        };
        let every_row = if widen {
            format!("; every row together needs {needs}")
        } else {
            String::new()
        };
        format!(
            "({}, {origin}{every_row}); {}",
            column.column_type,
            self.advice(Some(column), needs, widen)
        )
    }

    /// What would take the value, in every interface's words.
    fn advice(&self, column: Option<&MisfitColumn<'_>>, needs: ColumnType, widen: bool) -> String {
        let null = "on_mismatch=\"null\" (CLI --on-mismatch null) nulls such values, counted";
        let Some(column) = column.filter(|column| column.widenable) else {
            return match column {
                Some(column) => {
                    let name = shorten(column.name);
                    format!(
                        "give it a type that takes the value: dtypes={{\"{name}\": \"{needs}\"}} \
                         (CLI --dtype '{name}={needs}'), or {null}"
                    )
                }
                None if widen => format!(
                    "a read of the whole table (read_excel, to_arrow, sheetstream parquet -o \
                     FILE) adds the column; a stream's schema is already out: {null}"
                ),
                None => format!(
                    "on_mismatch=\"widen\" (the default) adds the column in a read of the whole \
                     table, or {null}"
                ),
            };
        };
        let name = shorten(column.name);
        let widen_it = if widen {
            "a read of the whole table (read_excel, to_arrow, sheetstream parquet -o FILE) \
             widens the column; a stream's schema is already out, so read it"
        } else {
            "on_mismatch=\"widen\" (the default) widens the column in a read of the whole \
             table; or read it"
        };
        format!(
            "{widen_it} with the types of every row: schema_sample_rows=None (CLI \
             --schema-sample-rows all), with its type: dtypes={{\"{name}\": \"{needs}\"}} (CLI \
             --dtype '{name}={needs}'), or {null}"
        )
    }
}

/// A column name as advice quotes it: at most 60 characters, control
/// characters dropped (the name is shown in full before).
fn shorten(name: &str) -> String {
    let mut short: String = name.chars().filter(|c| !c.is_control()).take(60).collect();
    if short.len() < name.len() && name.chars().count() > 60 {
        short.push('…');
    }
    short
}
