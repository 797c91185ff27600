//! `BatchReport` and `CellIssue`: what the Arrow layer's per-batch report
//! says about the cells that did not arrive as values (error cells, values
//! that did not fit their column, cells left out), as Python objects; and
//! [`ReportingReader`], which keeps a sheet's running total while a
//! consumer reads it.

use std::sync::{Arc, Mutex};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use sheetstream::arrow::{
    BatchReport, CellIssue, IssueKind, MAX_ISSUES_PER_BATCH, SheetBatchReader,
};

/// One cell that did not arrive as a value.
#[pyclass(module = "sheetstream", name = "CellIssue", frozen, get_all)]
#[derive(Clone)]
pub(crate) struct PyCellIssue {
    /// The sheet row, 1-based as in Excel (and `Error.row`).
    row: u32,
    /// The sheet column, 1-based (A is 1).
    column: u32,
    /// The output column's name ("" when the schema has no such column).
    column_name: String,
    /// "error_value", "does_not_fit", "repeated" or "outside_schema".
    kind: &'static str,
    /// The error code (`#N/A`) or the value as text.
    value: String,
    /// The column's type name for "does_not_fit" (`int64`, `date`, ...).
    column_type: Option<&'static str>,
}

impl From<&CellIssue> for PyCellIssue {
    fn from(issue: &CellIssue) -> PyCellIssue {
        let (kind, value, column_type) = match &issue.kind {
            IssueKind::ErrorValue(code) => ("error_value", code.clone(), None),
            IssueKind::DoesNotFit { value, column_type } => {
                ("does_not_fit", value.clone(), Some(column_type.name()))
            }
            IssueKind::Repeated { value } => ("repeated", value.clone(), None),
            IssueKind::OutsideSchema { value } => ("outside_schema", value.clone(), None),
            other => ("other", format!("{other:?}"), None),
        };
        PyCellIssue {
            row: issue.row + 1,
            column: issue.column + 1,
            column_name: issue.column_name.clone(),
            kind,
            value,
            column_type,
        }
    }
}

#[pymethods]
impl PyCellIssue {
    fn __repr__(&self) -> String {
        format!(
            "<sheetstream.CellIssue {} at row {}, column {} ({:?}): {:?}>",
            self.kind, self.row, self.column, self.column_name, self.value
        )
    }
}

/// What happened to the cells of one batch (or, as `Sheet.report`, of
/// every batch read so far) that did not arrive as values.
#[pyclass(module = "sheetstream", name = "BatchReport", frozen, get_all)]
pub(crate) struct PyBatchReport {
    /// The sheet's name.
    sheet: String,
    /// The file, for readers over many files.
    file: Option<String>,
    /// The sheet row of the first row, 1-based as in Excel; None before
    /// any row was read.
    first_row: Option<u32>,
    /// Rows read.
    rows: usize,
    /// Cells read into the batch (only the selected columns' under a
    /// column selection: the others are never read into values).
    cells: usize,
    /// Error cells (`#N/A`, `#DIV/0!`, ...), which became null.
    error_cells: usize,
    /// Values that did not fit their column's type, which became null.
    coerced_cells: usize,
    /// Cells left out: in a column the schema does not have, or a second
    /// cell for one column in one row.
    dropped_cells: usize,
    /// The first issues, described (up to `issues_per_batch` a batch).
    issues: Vec<PyCellIssue>,
    // Hand-made sheets (issue 26).
    /// Hidden rows left out (`skip_hidden_rows`).
    hidden_rows_skipped: usize,
    /// The 0-based sheet row the header was taken from (the last of a
    /// header of several rows); None without a header row.
    header_row: Option<u32>,
    /// `Sheet.report` only: what is known of the workbook's integrity
    /// (`Workbook.integrity`: "not encrypted", "not recorded", "not
    /// verified", "verified"); None in a batch's own report.
    integrity: Option<&'static str>,
}

impl PyBatchReport {
    /// The same, saying what is known of the workbook's integrity.
    pub(crate) fn with_integrity(self, integrity: &'static str) -> PyBatchReport {
        PyBatchReport {
            integrity: Some(integrity),
            ..self
        }
    }
}

impl From<&BatchReport> for PyBatchReport {
    fn from(report: &BatchReport) -> PyBatchReport {
        PyBatchReport {
            sheet: report.sheet.clone(),
            file: report.file.clone(),
            first_row: (report.rows > 0).then_some(report.first_row + 1),
            rows: report.rows,
            cells: report.cells,
            error_cells: report.error_cells,
            coerced_cells: report.coerced_cells,
            dropped_cells: report.dropped_cells,
            issues: report.issues.iter().map(PyCellIssue::from).collect(),
            hidden_rows_skipped: report.hidden_rows_skipped,
            header_row: report.header_row,
            integrity: None,
        }
    }
}

#[pymethods]
impl PyBatchReport {
    /// Whether every cell arrived as a value.
    #[getter]
    fn is_clean(&self) -> bool {
        self.error_cells == 0 && self.coerced_cells == 0 && self.dropped_cells == 0
    }

    fn __repr__(&self) -> String {
        format!(
            "<sheetstream.BatchReport {:?}: {} rows, {} error cells, {} coerced, {} dropped>",
            self.sheet, self.rows, self.error_cells, self.coerced_cells, self.dropped_cells
        )
    }
}

pyo3::create_exception!(
    sheetstream,
    CoercionWarning,
    PyUserWarning,
    "A read nulled values that did not fit their column's type (on_mismatch=\"null\")."
);

/// Warns with a `CoercionWarning` when a read nulled values that did not
/// fit (or left out cells): how many, and the first cells. Error cells,
/// null by default and counted in the report, do not warn. `stacklevel`
/// as `warnings.warn` takes it: 1 is the Python code that called the
/// native method.
pub(crate) fn warn_if_coerced(
    py: Python<'_>,
    report: &BatchReport,
    stacklevel: i32,
) -> PyResult<()> {
    let lost = report.coerced_cells + report.dropped_cells;
    if lost == 0 {
        return Ok(());
    }
    let first: Vec<String> = report
        .issues
        .iter()
        .filter(|issue| !matches!(issue.kind, IssueKind::ErrorValue(_)))
        .take(3)
        .map(ToString::to_string)
        .collect();
    let mut message = format!(
        "{} value{} that did not fit {} column's type became null",
        report.coerced_cells,
        if report.coerced_cells == 1 { "" } else { "s" },
        if report.coerced_cells == 1 {
            "its"
        } else {
            "their"
        },
    );
    if report.dropped_cells > 0 {
        message.push_str(&format!(
            ", {} cell{} outside the columns (or repeated) left out",
            report.dropped_cells,
            if report.dropped_cells == 1 {
                " was"
            } else {
                "s were"
            },
        ));
    }
    let sheet = match &report.file {
        Some(file) => format!("sheet {:?} of {file}", report.sheet),
        None => format!("sheet {:?}", report.sheet),
    };
    if !first.is_empty() {
        message.push_str(&format!(" (first in {sheet}: {})", first.join("; ")));
    }
    message
        .push_str("; on_mismatch=\"widen\" (the default) keeps them in a read of the whole table");
    let category = py.get_type::<CoercionWarning>();
    let message = std::ffi::CString::new(message.replace('\0', " "))
        .map_err(|err| pyo3::exceptions::PyValueError::new_err(err.to_string()))?;
    PyErr::warn(py, &category, &message, stacklevel)
}

/// Adds one batch's report to a running total. The total describes the
/// first [`MAX_ISSUES_PER_BATCH`] issues only, so it stays small however
/// long the sheet.
pub(crate) fn add_report(total: &mut BatchReport, batch: &BatchReport) {
    if total.rows == 0 {
        total.first_row = batch.first_row;
    }
    total.rows += batch.rows;
    total.cells += batch.cells;
    total.error_cells += batch.error_cells;
    total.coerced_cells += batch.coerced_cells;
    total.dropped_cells += batch.dropped_cells;
    total.hidden_rows_skipped += batch.hidden_rows_skipped;
    total.header_row = total.header_row.or(batch.header_row);
    let room = MAX_ISSUES_PER_BATCH.saturating_sub(total.issues.len());
    total.issues.extend(batch.issues.iter().take(room).cloned());
}

/// A sheet's reader that adds each batch's report to a total shared with
/// the `Sheet` (its `report`), for every consumer: the batch and row
/// iterators and the Arrow C stream.
pub(crate) struct ReportingReader {
    reader: SheetBatchReader,
    total: Arc<Mutex<BatchReport>>,
}

impl ReportingReader {
    /// Starts a new read: the total is reset to this sheet, no rows.
    pub(crate) fn new(
        reader: SheetBatchReader,
        total: Arc<Mutex<BatchReport>>,
        sheet: &str,
    ) -> ReportingReader {
        *total.lock().unwrap_or_else(|p| p.into_inner()) = BatchReport {
            sheet: sheet.to_owned(),
            ..BatchReport::default()
        };
        ReportingReader { reader, total }
    }

    pub(crate) fn schema(&self) -> SchemaRef {
        self.reader.schema()
    }

    /// The reports of the batches read so far, added up.
    pub(crate) fn total(&self) -> BatchReport {
        self.total.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The next batch and its own report (call without the GIL).
    pub(crate) fn next_batch(
        &mut self,
    ) -> Result<Option<(RecordBatch, BatchReport)>, sheetstream::Error> {
        let Some(batch) = self.reader.next_batch()? else {
            return Ok(None);
        };
        let report = self.reader.report().clone();
        add_report(
            &mut self.total.lock().unwrap_or_else(|p| p.into_inner()),
            &report,
        );
        Ok(Some((batch, report)))
    }
}

impl Iterator for ReportingReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch()
            .map(|next| next.map(|(batch, _)| batch))
            .map_err(|err| ArrowError::ExternalError(Box::new(err)))
            .transpose()
    }
}

impl RecordBatchReader for ReportingReader {
    fn schema(&self) -> SchemaRef {
        ReportingReader::schema(self)
    }
}
