//! `sheetstream.open` and the `Workbook` class: the sheet list and the
//! defined names of an opened workbook.
//!
//! `open`, the sources it takes, the sheet list and the defined names.

use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sheetstream::{SheetKind, SheetState};

use crate::args::SheetRef;
use crate::opened::{Opened, OpenedWorkbook, Source, with_workbook};
use crate::sheet::PySheet;

/// A sheet as the workbook lists it.
#[pyclass(module = "sheetstream", name = "SheetInfo", frozen, get_all)]
pub(crate) struct PySheetInfo {
    /// The sheet's position in `Workbook.sheets` (0-based).
    position: usize,
    /// The name on the sheet's tab.
    name: String,
    /// "visible", "hidden" or "veryHidden" (the file's spelling, which
    /// `sheetstream sheets` prints too).
    state: &'static str,
    /// "worksheet", "chartsheet", "dialogsheet" or "macrosheet".
    kind: &'static str,
}

#[pymethods]
impl PySheetInfo {
    fn __repr__(&self) -> String {
        format!(
            "SheetInfo(position={}, name={:?}, state={:?}, kind={:?})",
            self.position, self.name, self.state, self.kind
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PySheetInfo>().is_ok_and(|other| {
            let other = other.get();
            (other.position, &other.name, other.state, other.kind)
                == (self.position, &self.name, self.state, self.kind)
        })
    }
}

impl PySheetInfo {
    fn new(info: &sheetstream::SheetInfo) -> PySheetInfo {
        PySheetInfo {
            position: info.position(),
            name: info.name().to_owned(),
            state: match info.state() {
                SheetState::Visible => "visible",
                SheetState::Hidden => "hidden",
                SheetState::VeryHidden => "veryHidden",
                _ => "other",
            },
            kind: match info.kind() {
                SheetKind::Worksheet => "worksheet",
                SheetKind::Chartsheet => "chartsheet",
                SheetKind::Dialogsheet => "dialogsheet",
                SheetKind::Macrosheet => "macrosheet",
                _ => "other",
            },
        }
    }
}

/// A defined name: a named range, constant or formula.
#[pyclass(module = "sheetstream", name = "DefinedName", frozen, get_all)]
pub(crate) struct PyDefinedName {
    /// The name, e.g. "Totals" or "_xlnm.Print_Area".
    name: String,
    /// What it refers to, as written, e.g. "Data!$B$2:$B$4".
    refers_to: String,
    /// The position of the sheet the name is local to, or None for a
    /// workbook-wide name.
    sheet: Option<usize>,
    /// The name of that sheet, or None for a workbook-wide name.
    sheet_name: Option<String>,
    /// Whether the name is hidden from the user.
    hidden: bool,
}

#[pymethods]
impl PyDefinedName {
    fn __repr__(&self) -> String {
        let sheet = self
            .sheet
            .map_or("None".to_owned(), |sheet| sheet.to_string());
        format!(
            "DefinedName(name={:?}, refers_to={:?}, sheet={sheet}, sheet_name={:?}, hidden={})",
            self.name,
            self.refers_to,
            self.sheet_name,
            if self.hidden { "True" } else { "False" }
        )
    }
}

/// An opened workbook: `sheetstream.open(source)`.
#[pyclass(module = "sheetstream", name = "Workbook", frozen)]
pub(crate) struct PyWorkbook {
    pub(crate) source: Source,
    opened: Mutex<Option<Opened>>,
}

impl PyWorkbook {
    pub(crate) fn open_source(
        py: Python<'_>,
        source: Source,
        options: &sheetstream::OpenOptions,
    ) -> PyResult<PyWorkbook> {
        let opened = py
            .detach(|| source.open(options))
            .map_err(|err| crate::errors::open_error(py, err, source.path_label().as_deref()))?;
        Ok(PyWorkbook {
            source,
            opened: Mutex::new(Some(opened)),
        })
    }

    fn lock(&self) -> PyResult<MutexGuard<'_, Option<Opened>>> {
        let guard = self
            .opened
            .lock()
            .map_err(|_| PyValueError::new_err("the workbook was poisoned by a panic"))?;
        if guard.is_none() {
            return Err(PyValueError::new_err("the workbook is closed"));
        }
        Ok(guard)
    }

    /// The shared workbook, or an error once closed.
    pub(crate) fn workbook(&self) -> PyResult<OpenedWorkbook> {
        let guard = self.lock()?;
        Ok(guard.as_ref().expect("checked by lock").workbook.clone())
    }
}

#[pymethods]
impl PyWorkbook {
    /// The sheets in workbook order, hidden ones and chart sheets included.
    #[getter]
    fn sheets(&self) -> PyResult<Vec<PySheetInfo>> {
        let workbook = self.workbook()?;
        Ok(workbook.sheets().iter().map(PySheetInfo::new).collect())
    }

    /// The scheme an encrypted (password-protected) workbook was decrypted
    /// with (`"Agile AES-256/SHA-512"`, `"xls RC4 CryptoAPI 128-bit"`);
    /// None when it is not encrypted.
    #[getter]
    fn encryption(&self) -> PyResult<Option<String>> {
        let workbook = self.workbook()?;
        Ok(with_workbook!(&workbook, shared => shared.encryption_scheme().map(str::to_owned)))
    }

    /// What is known of an encrypted workbook's integrity (Agile
    /// encryption's HMAC over the whole file): "not encrypted", "not
    /// recorded" (the scheme has none), "not verified" (yet) or
    /// "verified". Reading every worksheet checks it once the last one is
    /// read (an `IntegrityError` if it fails); so do `verify_integrity()`
    /// and `open(..., verify_integrity=True)`.
    #[getter]
    fn integrity(&self) -> PyResult<&'static str> {
        Ok(self.workbook()?.integrity())
    }

    /// Checks an encrypted workbook's integrity now (one pass over the
    /// file), unless it was checked before; returns `integrity`.
    ///
    /// Raises `IntegrityError` when the file was changed after it was
    /// encrypted.
    fn verify_integrity(&self, py: Python<'_>) -> PyResult<&'static str> {
        let workbook = self.workbook()?;
        py.detach(|| with_workbook!(&workbook, shared => shared.verify_integrity()))
            .map_err(|err| {
                let err = match self.source.path_label() {
                    Some(label) => err.with_file(&label),
                    None => err,
                };
                crate::errors::to_py_err(py, &err)
            })
            .map(|integrity| integrity.as_str())
    }

    /// The bytes fetched so far from a URL or a seekable file object, by
    /// opening and by every sheet read (None for a path or bytes).
    #[getter]
    fn bytes_fetched(&self) -> Option<u64> {
        self.source.bytes_fetched()
    }

    /// The names of the sheets in workbook order.
    #[getter]
    fn sheet_names(&self) -> PyResult<Vec<String>> {
        let workbook = self.workbook()?;
        Ok(workbook
            .sheets()
            .iter()
            .map(|info| info.name().to_owned())
            .collect())
    }

    /// The 0-based position of a sheet named as `sheet` names one: an
    /// `int` is a position, a `str` a name, or, when no sheet has that
    /// name and it is a whole number, a position (a name wins: a
    /// `UserWarning` says so when the text could have meant another
    /// sheet). For planners that read the sheet list only (the Spark
    /// source's `sheet` option).
    fn sheet_position(&self, py: Python<'_>, sheet: SheetRef) -> PyResult<usize> {
        crate::args::sheet_position(py, &self.workbook()?, &sheet)
    }

    /// The workbook's defined names.
    #[getter]
    fn defined_names(&self, py: Python<'_>) -> PyResult<Vec<PyDefinedName>> {
        let guard = self.lock()?;
        let opened = guard.as_ref().expect("checked by lock");
        let names = opened
            .defined_names
            .as_ref()
            .map_err(|err| crate::errors::to_py_err(py, err))?;
        let sheets = opened.workbook.sheets();
        Ok(names
            .iter()
            .map(|name| PyDefinedName {
                name: name.name.clone(),
                refers_to: name.refers_to.clone(),
                sheet: name.sheet,
                sheet_name: (name.sheet)
                    .and_then(|at| sheets.get(at))
                    .map(|info| info.name().to_owned()),
                hidden: name.hidden,
            })
            .collect())
    }

    /// One sheet, by position or name, as typed Arrow record batches
    /// (options: see the stubs). Reads the header and the sample rows.
    /// `sheet`: a 0-based position, or a name (a whole number no sheet is
    /// named is a position; a name wins, with a UserWarning). Rows and
    /// column positions count from 0 (`header_row=0` is Excel's row 1); a
    /// `columns` string is in Excel's terms (`"A:C"`, positions from 1).
    /// `threads`: 0 (one per core) reads a sheet on two threads where
    /// there are two cores, 1 on one.
    #[pyo3(signature = (sheet = SheetRef::Position(0), *, threads = 0, **options), text_signature = "(self, /, sheet=0, *, threads=0, **options)")]
    fn sheet(
        &self,
        py: Python<'_>,
        sheet: SheetRef,
        threads: i64,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PySheet> {
        let threads = crate::args::thread_count(threads)?;
        crate::sheet::open_sheet(py, &self.workbook()?, sheet, threads, options)
    }

    /// The workbook's Excel tables (Insert > Table), in sheet order, read
    /// from their own parts without reading any cell. An .xls workbook
    /// has none; an .xlsb workbook's are not read (an error says so).
    fn tables(&self, py: Python<'_>) -> PyResult<Vec<crate::metadata::PyTable>> {
        crate::metadata::tables(py, &self.workbook()?)
    }

    /// The table of this name (case-insensitive); an unknown name is a
    /// `TableNotFoundError` listing the tables there are.
    fn table(&self, py: Python<'_>, name: &str) -> PyResult<crate::metadata::PyTable> {
        crate::metadata::table(py, &self.workbook()?, name)
    }

    /// A sheet's dimension, hidden columns, merged ranges, hyperlinks and
    /// comments, read without its cells.
    #[pyo3(signature = (sheet = SheetRef::Position(0)), text_signature = "(self, /, sheet=0)")]
    fn sheet_metadata(
        &self,
        py: Python<'_>,
        sheet: SheetRef,
    ) -> PyResult<crate::metadata::PySheetMetadata> {
        crate::metadata::sheet_metadata(py, &self.workbook()?, sheet)
    }

    /// A sheet's hidden rows (0-based), read from its row tags only.
    #[pyo3(signature = (sheet = SheetRef::Position(0)), text_signature = "(self, /, sheet=0)")]
    fn hidden_rows(&self, py: Python<'_>, sheet: SheetRef) -> PyResult<Vec<u32>> {
        crate::metadata::hidden_rows(py, &self.workbook()?, sheet)
    }

    /// Releases the file; the workbook cannot be used afterwards. Sheets
    /// already opened keep reading.
    fn close(&self) {
        if let Ok(mut guard) = self.opened.lock() {
            guard.take();
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &self,
        _exc_type: &Bound<'_, PyAny>,
        _exc_value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) {
        self.close();
    }

    fn __repr__(&self) -> String {
        format!("<sheetstream.Workbook {}>", self.source.label())
    }
}

/// Opens a workbook: a path (`str` or `os.PathLike`), a URL (`s3://`,
/// `gs://`, `az://`, `https://`, any fsspec protocol; with
/// `storage_options`), `bytes`, or a binary file object (read by ranges
/// when it is seekable, else whole).
///
/// An encrypted (password-protected) workbook opens with Excel's default
/// password unasked, else with `password`: a `str`, a list of them (tried
/// in order), or a callable given the file's path (None for bytes) that
/// returns one. `verify_integrity=True` checks an encrypted workbook's
/// integrity at once (one pass over the file); reading every worksheet
/// checks it anyway.
#[pyfunction]
#[pyo3(signature = (source, *, storage_options = None, password = None, verify_integrity = false))]
pub(crate) fn open(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    storage_options: Option<&Bound<'_, PyAny>>,
    password: Option<&Bound<'_, PyAny>>,
    verify_integrity: bool,
) -> PyResult<PyWorkbook> {
    let source = Source::extract_with(source, storage_options)?;
    let options =
        crate::args::open_options(password, verify_integrity, source.path_label().as_deref())?;
    PyWorkbook::open_source(py, source, &options)
}

/// The workbooks in a folder, sorted by path, as every interface lists a
/// folder given as a source (`sheetstream::workbooks_in`): files ending
/// in a workbook's extension, not hidden nor Excel's lock files; with
/// `recursive`, those of its subfolders too.
#[pyfunction]
#[pyo3(name = "_workbooks_in", signature = (folder, recursive = false))]
pub(crate) fn workbooks_in(folder: std::path::PathBuf, recursive: bool) -> PyResult<Vec<String>> {
    let found = sheetstream::workbooks_in(&folder, recursive).map_err(|err| {
        pyo3::exceptions::PyOSError::new_err(format!(
            "{}: cannot list the folder: {err}",
            folder.display()
        ))
    })?;
    Ok(found
        .into_iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect())
}
