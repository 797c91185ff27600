//! What a workbook says besides its cells, as typed Python objects: its
//! Excel tables (`Workbook.tables`), a sheet's merged ranges, hidden rows
//! and columns, hyperlinks and comments (`Workbook.sheet_metadata`,
//! `Workbook.hidden_rows`). Read through a metadata handle on the shared
//! workbook (`Workbook::metadata_handle`), without the GIL; no cell is read.

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::args::{SheetRef, sheet_position};
use crate::errors::IntoPyResult;
use crate::opened::{OpenedWorkbook, with_workbook};

/// A rectangle of cells, 0-based and inclusive; `str()` is its A1 form.
#[pyclass(module = "sheetstream", name = "CellRange", frozen, get_all)]
#[derive(Clone)]
pub(crate) struct PyCellRange {
    /// The first row (0-based: row 1 is 0).
    first_row: u32,
    /// The first column (0-based: A is 0).
    first_column: u32,
    /// The last row (0-based, included).
    last_row: u32,
    /// The last column (0-based, included).
    last_column: u32,
}

impl PyCellRange {
    pub(crate) fn new(range: sheetstream::CellRange) -> PyCellRange {
        PyCellRange {
            first_row: range.first.row,
            first_column: range.first.column,
            last_row: range.last.row,
            last_column: range.last.column,
        }
    }

    fn range(&self) -> sheetstream::CellRange {
        let cell = |row, column| sheetstream::CellRef { row, column };
        sheetstream::CellRange {
            first: cell(self.first_row, self.first_column),
            last: cell(self.last_row, self.last_column),
        }
    }
}

#[pymethods]
impl PyCellRange {
    fn __str__(&self) -> String {
        self.range().to_string()
    }

    fn __repr__(&self) -> String {
        format!("CellRange('{}')", self.range())
    }

    /// Equal to another range of the same cells, or to its A1 text
    /// (`"B2:C3"`).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        if let Ok(other) = other.cast::<PyCellRange>() {
            return other.get().range() == self.range();
        }
        if other.is_instance_of::<PyString>()
            && let Ok(text) = other.extract::<String>()
        {
            return text.parse::<sheetstream::CellRange>().ok() == Some(self.range());
        }
        false
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.range().to_string().hash(&mut hasher);
        hasher.finish()
    }

    /// Whether a cell (0-based row and column) is inside.
    fn __contains__(&self, cell: (u32, u32)) -> bool {
        self.range().contains(sheetstream::CellRef {
            row: cell.0,
            column: cell.1,
        })
    }
}

/// An Excel table (a ListObject: Insert > Table).
#[pyclass(module = "sheetstream", name = "Table", frozen, get_all)]
pub(crate) struct PyTable {
    /// The table's name, as formulas refer to it.
    name: String,
    /// The name Excel shows (the same as `name` in files Excel writes).
    display_name: String,
    /// The name of the sheet holding it.
    sheet: String,
    /// That sheet's position in `Workbook.sheets`.
    sheet_position: usize,
    /// The whole table: header row, data rows and totals row.
    range: PyCellRange,
    /// Header rows at the top (1, or 0 when the header row is hidden).
    header_row_count: u32,
    /// Totals rows at the bottom (0 or 1).
    totals_row_count: u32,
    /// The column names, left to right, as the table defines them.
    columns: Vec<String>,
}

#[pymethods]
impl PyTable {
    fn __repr__(&self) -> String {
        format!(
            "Table(name={:?}, sheet={:?}, range='{}', header_row_count={}, totals_row_count={}, columns={:?})",
            self.name,
            self.sheet,
            self.range.range(),
            self.header_row_count,
            self.totals_row_count,
            self.columns
        )
    }
}

impl PyTable {
    fn new(table: sheetstream::Table) -> PyTable {
        PyTable {
            range: PyCellRange::new(table.range),
            name: table.name,
            display_name: table.display_name,
            sheet: table.sheet_name,
            sheet_position: table.sheet,
            header_row_count: table.header_row_count,
            totals_row_count: table.totals_row_count,
            columns: table.columns,
        }
    }
}

/// A hyperlink on a cell or range.
#[pyclass(module = "sheetstream", name = "Hyperlink", frozen, get_all)]
pub(crate) struct PyHyperlink {
    /// The cells the link is on.
    range: PyCellRange,
    /// A URL, a file path, or a part of the package; None for a link
    /// with only a `location`.
    target: Option<String>,
    /// A place in the workbook (`Sheet2!A1`, a defined name), or the
    /// fragment of an external target.
    location: Option<String>,
    /// The text shown, when the link says.
    display: Option<String>,
    /// The tooltip.
    tooltip: Option<String>,
}

#[pymethods]
impl PyHyperlink {
    fn __repr__(&self) -> String {
        format!(
            "Hyperlink(range='{}', target={:?}, location={:?})",
            self.range.range(),
            self.target,
            self.location
        )
    }
}

/// A cell comment (a note, in today's Excel).
#[pyclass(module = "sheetstream", name = "Comment", frozen, get_all)]
pub(crate) struct PyComment {
    /// The cell, in A1 form (`"B3"`).
    cell: String,
    /// Its row (0-based).
    row: u32,
    /// Its column (0-based).
    column: u32,
    /// The author, from the comments part's list of authors.
    author: Option<String>,
    /// The text, rich text runs joined.
    text: String,
}

#[pymethods]
impl PyComment {
    fn __repr__(&self) -> String {
        format!(
            "Comment(cell={:?}, author={:?}, text={:?})",
            self.cell, self.author, self.text
        )
    }
}

/// What a sheet says about itself besides its cells.
#[pyclass(module = "sheetstream", name = "SheetMetadata", frozen, get_all)]
pub(crate) struct PySheetMetadata {
    /// The used range as the file states it; None when it does not.
    dimension: Option<PyCellRange>,
    /// Hidden columns, as (first, last) 0-based inclusive pairs.
    hidden_columns: Vec<(u32, u32)>,
    /// Whether rows the sheet does not write are hidden (Excel's way of
    /// hiding every unused row).
    rows_hidden_by_default: bool,
    /// Merged ranges, in file order.
    merged: Vec<PyCellRange>,
    /// Hyperlinks, in file order.
    hyperlinks: Vec<Py<PyHyperlink>>,
    /// Comments (notes), in file order.
    comments: Vec<Py<PyComment>>,
}

#[pymethods]
impl PySheetMetadata {
    fn __repr__(&self) -> String {
        format!(
            "SheetMetadata(dimension={}, hidden_columns={:?}, merged=[{}], hyperlinks={}, comments={})",
            self.dimension
                .as_ref()
                .map_or("None".to_owned(), |range| format!("'{}'", range.range())),
            self.hidden_columns,
            self.merged
                .iter()
                .map(|range| format!("'{}'", range.range()))
                .collect::<Vec<_>>()
                .join(", "),
            self.hyperlinks.len(),
            self.comments.len()
        )
    }
}

impl PySheetMetadata {
    fn new(py: Python<'_>, metadata: sheetstream::SheetMetadata) -> PyResult<PySheetMetadata> {
        Ok(PySheetMetadata {
            dimension: metadata.dimension.map(PyCellRange::new),
            hidden_columns: (metadata.hidden_columns.iter())
                .map(|range| (*range.start(), *range.end()))
                .collect(),
            rows_hidden_by_default: metadata.rows_hidden_by_default,
            merged: metadata.merged.into_iter().map(PyCellRange::new).collect(),
            hyperlinks: (metadata.hyperlinks.into_iter())
                .map(|link| {
                    Py::new(
                        py,
                        PyHyperlink {
                            range: PyCellRange::new(link.range),
                            target: link.target,
                            location: link.location,
                            display: link.display,
                            tooltip: link.tooltip,
                        },
                    )
                })
                .collect::<PyResult<_>>()?,
            comments: (metadata.comments.into_iter())
                .map(|comment| {
                    Py::new(
                        py,
                        PyComment {
                            cell: comment.cell.to_string(),
                            row: comment.cell.row,
                            column: comment.cell.column,
                            author: comment.author,
                            text: comment.text,
                        },
                    )
                })
                .collect::<PyResult<_>>()?,
        })
    }
}

/// `Workbook.tables()`.
pub(crate) fn tables(py: Python<'_>, workbook: &OpenedWorkbook) -> PyResult<Vec<PyTable>> {
    let tables =
        with_workbook!(workbook, shared => py.detach(|| shared.tables_shared())).or_raise(py)?;
    Ok(tables.into_iter().map(PyTable::new).collect())
}

/// `Workbook.table(name)`.
pub(crate) fn table(py: Python<'_>, workbook: &OpenedWorkbook, name: &str) -> PyResult<PyTable> {
    let tables =
        with_workbook!(workbook, shared => py.detach(|| shared.tables_shared())).or_raise(py)?;
    let table = sheetstream::Table::find(&tables, name).or_raise(py)?;
    Ok(PyTable::new(table.clone()))
}

/// `Workbook.sheet_metadata(sheet)`.
pub(crate) fn sheet_metadata(
    py: Python<'_>,
    workbook: &OpenedWorkbook,
    sheet: SheetRef,
) -> PyResult<PySheetMetadata> {
    let position = sheet_position(py, workbook, &sheet)?;
    let metadata = with_workbook!(workbook, shared => py.detach(|| {
        shared.metadata_handle().sheet_metadata(position)
    }))
    .or_raise(py)?;
    PySheetMetadata::new(py, metadata)
}

/// `Workbook.hidden_rows(sheet)`.
pub(crate) fn hidden_rows(
    py: Python<'_>,
    workbook: &OpenedWorkbook,
    sheet: SheetRef,
) -> PyResult<Vec<u32>> {
    let position = sheet_position(py, workbook, &sheet)?;
    with_workbook!(workbook, shared => py.detach(|| shared.metadata_handle().hidden_rows(position)))
        .or_raise(py)
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PyCellRange>()?;
    module.add_class::<PyTable>()?;
    module.add_class::<PyHyperlink>()?;
    module.add_class::<PyComment>()?;
    module.add_class::<PySheetMetadata>()?;
    Ok(())
}
