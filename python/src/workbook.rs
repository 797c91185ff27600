//! `sheetstream.open` and the `Workbook` class: the sheet list and the
//! defined names of an opened workbook.

use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyMemoryView, PyString};
use sheetstream::{SharedFile, SheetKind, SheetState};

use crate::remote::{RangeReader, RemoteObject, WHOLE_BELOW};
use crate::sheet::{PySheet, SheetRef};

/// Where a workbook's bytes come from.
#[derive(Clone)]
pub(crate) enum Source {
    /// A file, read with positioned reads as the sheets are streamed.
    Path(PathBuf),
    /// Bytes held in memory (a `bytes` object, or what a file object's
    /// `read()` returned), shared by every reader of the workbook.
    Bytes(Arc<[u8]>),
    /// An object read by byte ranges through Python: a URL through fsspec,
    /// or a seekable binary file object (`sheetstream/_remote.py`).
    Remote(Arc<RemoteObject>),
}

impl Source {
    /// What `open(source)` was given: a path (`str` or `os.PathLike`),
    /// `bytes`/`bytearray`/`memoryview`, or a binary file object.
    pub(crate) fn extract(source: &Bound<'_, PyAny>) -> PyResult<Source> {
        Source::extract_with(source, None)
    }

    /// As [`Source::extract`], with a URL (`s3://`, `https://`, any
    /// protocol fsspec knows) opened through fsspec with
    /// `storage_options`.
    pub(crate) fn extract_with(
        source: &Bound<'_, PyAny>,
        storage_options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Source> {
        if let Ok(text) = source.cast::<PyString>()
            && text.to_cow()?.contains("://")
        {
            let remote = source
                .py()
                .import("sheetstream._remote")?
                .call_method1("open_url", (source, storage_options))?;
            if !remote.is_none() {
                return Source::remote(&remote);
            }
        }
        if let Ok(bytes) = source.cast::<PyBytes>() {
            return Ok(Source::Bytes(Arc::from(bytes.as_bytes())));
        }
        if let Ok(bytes) = source.cast::<PyByteArray>() {
            return Ok(Source::Bytes(Arc::from(bytes.to_vec())));
        }
        if source.is_instance_of::<PyMemoryView>() {
            let bytes = source.call_method0("tobytes")?;
            return Source::extract(&bytes);
        }
        if source.is_instance_of::<PyString>() || source.hasattr("__fspath__")? {
            // `~` and `~user` expanded, as polars and pandas do.
            let expanded = source
                .py()
                .import("os.path")?
                .call_method1("expanduser", (source,))?;
            return Ok(Source::Path(expanded.extract::<PathBuf>()?));
        }
        if source.hasattr("read_range")? {
            // A URL opened by `sheetstream._remote.open_url`.
            return Source::remote(source);
        }
        if source.hasattr("read")? {
            // A seekable file object is read by ranges, another one whole.
            let ranges = source
                .py()
                .import("sheetstream._remote")?
                .call_method1("file_ranges", (source,))?;
            if !ranges.is_none() {
                return Source::remote(&ranges);
            }
            let data = source.call_method0("read")?;
            if data.is_instance_of::<PyString>() {
                return Err(PyTypeError::new_err(
                    "the file object returned str: open it in binary mode ('rb')",
                ));
            }
            return match Source::extract(&data)? {
                Source::Bytes(bytes) => Ok(Source::Bytes(bytes)),
                Source::Path(_) | Source::Remote(_) => Err(PyTypeError::new_err(
                    "the file object's read() did not return bytes",
                )),
            };
        }
        Err(PyTypeError::new_err(format!(
            "expected a path, bytes or a binary file object, not {}",
            source.get_type().name()?
        )))
    }

    /// A range object from `sheetstream._remote` (`url`, `size`,
    /// `read_range`).
    fn remote(ranges: &Bound<'_, PyAny>) -> PyResult<Source> {
        let label: String = ranges.getattr("url")?.extract()?;
        let len: u64 = ranges.getattr("size")?.extract()?;
        Ok(Source::Remote(Arc::new(RemoteObject::new(
            label,
            len,
            ranges.clone().unbind(),
        ))))
    }

    /// Opens the workbook (without the GIL held by the caller).
    fn open(&self) -> Result<Opened, sheetstream::Error> {
        Ok(match self {
            Source::Remote(object) if object.len() < WHOLE_BELOW => {
                let bytes: Arc<[u8]> = object.fetch_all()?.into();
                Source::Bytes(bytes).open()?
            }
            Source::Remote(object) => {
                let mut workbook =
                    sheetstream::Workbook::from_reader(RangeReader::new(object.clone()))?;
                Opened {
                    defined_names: workbook.defined_names(),
                    workbook: OpenedWorkbook::Remote(Arc::new(workbook)),
                }
            }
            Source::Path(path) => {
                let mut workbook = sheetstream::Workbook::open(path)?;
                Opened {
                    defined_names: workbook.defined_names(),
                    workbook: OpenedWorkbook::File(Arc::new(workbook)),
                }
            }
            Source::Bytes(bytes) => {
                let mut workbook = sheetstream::Workbook::from_bytes(bytes.clone())?;
                Opened {
                    defined_names: workbook.defined_names(),
                    workbook: OpenedWorkbook::Bytes(Arc::new(workbook)),
                }
            }
        })
    }

    /// Opens the workbook over an [`AnyReader`], so that workbooks from
    /// files and from memory can be read together (`read_excel`).
    pub(crate) fn open_any(&self) -> Result<sheetstream::Workbook<AnyReader>, sheetstream::Error> {
        let reader = match self {
            Source::Path(path) => AnyReader::File(SharedFile::open(path)?),
            Source::Bytes(bytes) => AnyReader::Bytes(Cursor::new(bytes.clone())),
            Source::Remote(object) if object.len() < WHOLE_BELOW => {
                AnyReader::Bytes(Cursor::new(object.fetch_all()?.into()))
            }
            Source::Remote(object) => AnyReader::Remote(RangeReader::new(object.clone())),
        };
        sheetstream::Workbook::from_reader(reader)
    }

    /// The path, as errors opening the file name it (None for bytes).
    pub(crate) fn path_label(&self) -> Option<String> {
        match self {
            Source::Path(path) => Some(path.display().to_string()),
            Source::Bytes(_) => None,
            Source::Remote(object) => Some(object.label().to_owned()),
        }
    }

    /// The bytes fetched so far from a remote object (None for a file or
    /// bytes).
    pub(crate) fn bytes_fetched(&self) -> Option<u64> {
        match self {
            Source::Remote(object) => Some(object.bytes_fetched()),
            Source::Path(_) | Source::Bytes(_) => None,
        }
    }

    /// How the workbook is named in reprs and in the `file` column.
    pub(crate) fn label(&self) -> String {
        match self {
            Source::Path(path) => path.display().to_string(),
            Source::Bytes(bytes) => format!("<{} bytes>", bytes.len()),
            Source::Remote(object) => object.label().to_owned(),
        }
    }
}

/// A file or bytes in memory, as one reader type.
#[derive(Clone)]
pub(crate) enum AnyReader {
    File(SharedFile),
    Bytes(Cursor<Arc<[u8]>>),
    Remote(RangeReader),
}

impl Read for AnyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            AnyReader::File(file) => file.read(buf),
            AnyReader::Bytes(bytes) => bytes.read(buf),
            AnyReader::Remote(remote) => remote.read(buf),
        }
    }
}

impl Seek for AnyReader {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match self {
            AnyReader::File(file) => file.seek(pos),
            AnyReader::Bytes(bytes) => bytes.seek(pos),
            AnyReader::Remote(remote) => remote.seek(pos),
        }
    }
}

/// A workbook opened from a file or from memory, shared with the readers
/// of its sheets (each reads on a worker thread of its own).
#[derive(Clone)]
pub(crate) enum OpenedWorkbook {
    File(Arc<sheetstream::Workbook<SharedFile>>),
    Bytes(Arc<sheetstream::Workbook<Cursor<Arc<[u8]>>>>),
    Remote(Arc<sheetstream::Workbook<RangeReader>>),
}

/// Calls `$body` with `$workbook` bound to the workbook of either source.
macro_rules! with_workbook {
    ($opened:expr, $workbook:ident => $body:expr) => {
        match $opened {
            OpenedWorkbook::File($workbook) => $body,
            OpenedWorkbook::Bytes($workbook) => $body,
            OpenedWorkbook::Remote($workbook) => $body,
        }
    };
}
pub(crate) use with_workbook;

impl OpenedWorkbook {
    pub(crate) fn sheets(&self) -> &[sheetstream::SheetInfo] {
        with_workbook!(self, workbook => workbook.sheets())
    }
}

/// What opening reads: the workbook, and its defined names (read at once,
/// as the shared workbook cannot read them later; an error reading them
/// is raised when they are asked for).
struct Opened {
    workbook: OpenedWorkbook,
    defined_names: Result<Vec<sheetstream::DefinedName>, sheetstream::Error>,
}

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
            },
            kind: match info.kind() {
                SheetKind::Worksheet => "worksheet",
                SheetKind::Chartsheet => "chartsheet",
                SheetKind::Dialogsheet => "dialogsheet",
                SheetKind::Macrosheet => "macrosheet",
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
    pub(crate) fn open_source(py: Python<'_>, source: Source) -> PyResult<PyWorkbook> {
        let opened = py
            .detach(|| source.open())
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
        crate::sheet::open_sheet(py, self, sheet, threads, options)
    }

    /// The workbook's Excel tables (Insert > Table), in sheet order, read
    /// from their own parts without reading any cell. An .xls workbook
    /// has none; an .xlsb workbook's are not read (an error says so).
    fn tables(&self, py: Python<'_>) -> PyResult<Vec<crate::metadata::PyTable>> {
        crate::metadata::tables(py, self)
    }

    /// The table of this name (case-insensitive); an unknown name is a
    /// `TableNotFoundError` listing the tables there are.
    fn table(&self, py: Python<'_>, name: &str) -> PyResult<crate::metadata::PyTable> {
        crate::metadata::table(py, self, name)
    }

    /// A sheet's dimension, hidden columns, merged ranges, hyperlinks and
    /// comments, read without its cells.
    #[pyo3(signature = (sheet = SheetRef::Position(0)), text_signature = "(self, /, sheet=0)")]
    fn sheet_metadata(
        &self,
        py: Python<'_>,
        sheet: SheetRef,
    ) -> PyResult<crate::metadata::PySheetMetadata> {
        crate::metadata::sheet_metadata(py, self, sheet)
    }

    /// A sheet's hidden rows (0-based), read from its row tags only.
    #[pyo3(signature = (sheet = SheetRef::Position(0)), text_signature = "(self, /, sheet=0)")]
    fn hidden_rows(&self, py: Python<'_>, sheet: SheetRef) -> PyResult<Vec<u32>> {
        crate::metadata::hidden_rows(py, self, sheet)
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
#[pyfunction]
#[pyo3(signature = (source, *, storage_options = None))]
pub(crate) fn open(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    storage_options: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyWorkbook> {
    let source = Source::extract_with(source, storage_options)?;
    PyWorkbook::open_source(py, source)
}
