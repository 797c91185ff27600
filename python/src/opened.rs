//! Where a workbook's bytes come from ([`Source`]: a path, bytes, a URL or
//! file object read by ranges) and the workbook opened from them
//! ([`OpenedWorkbook`], shared with the readers of its sheets). The
//! bottom of the package: the classes and functions above take an
//! `OpenedWorkbook`.

use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};
use sheetstream::{OpenOptions, SharedFile};

use crate::remote::{RangeReader, RemoteObject, WHOLE_BELOW};

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

    /// Opens the workbook (without the GIL held by the caller) with
    /// `options` (the passwords of an encrypted one).
    pub(crate) fn open(&self, options: &OpenOptions) -> Result<Opened, sheetstream::Error> {
        Ok(match self {
            Source::Remote(object) if object.len() < WHOLE_BELOW => {
                let bytes: Arc<[u8]> = object.fetch_all()?.into();
                Source::Bytes(bytes).open(options)?
            }
            Source::Remote(object) => {
                let mut workbook = options.from_shared_reader(RangeReader::new(object.clone()))?;
                Opened {
                    defined_names: workbook.defined_names(),
                    workbook: OpenedWorkbook::Remote(Arc::new(workbook)),
                }
            }
            Source::Path(path) => {
                let mut workbook = options.open(path)?;
                Opened {
                    defined_names: workbook.defined_names(),
                    workbook: OpenedWorkbook::File(Arc::new(workbook)),
                }
            }
            Source::Bytes(bytes) => {
                let mut workbook = options.from_shared_reader(Cursor::new(bytes.clone()))?;
                Opened {
                    defined_names: workbook.defined_names(),
                    workbook: OpenedWorkbook::Bytes(Arc::new(workbook)),
                }
            }
        })
    }

    /// Opens the workbook over an [`AnyReader`], so that workbooks from
    /// files and from memory can be read together (`read_excel`), with
    /// `options`.
    pub(crate) fn open_any(
        &self,
        options: &OpenOptions,
    ) -> Result<sheetstream::Workbook<AnyReader>, sheetstream::Error> {
        let reader = match self {
            Source::Path(path) => AnyReader::File(SharedFile::open(path)?),
            Source::Bytes(bytes) => AnyReader::Bytes(Cursor::new(bytes.clone())),
            Source::Remote(object) if object.len() < WHOLE_BELOW => {
                AnyReader::Bytes(Cursor::new(object.fetch_all()?.into()))
            }
            Source::Remote(object) => AnyReader::Remote(RangeReader::new(object.clone())),
        };
        options.from_shared_reader(reader)
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

    /// What is known of an encrypted workbook's integrity, in words
    /// (`not encrypted`, `not recorded`, `not verified`, `verified`).
    pub(crate) fn integrity(&self) -> &'static str {
        with_workbook!(self, workbook => workbook.integrity().as_str())
    }
}

/// What opening reads: the workbook, and its defined names (read at once,
/// as the shared workbook cannot read them later; an error reading them
/// is raised when they are asked for).
pub(crate) struct Opened {
    pub(crate) workbook: OpenedWorkbook,
    pub(crate) defined_names: Result<Vec<sheetstream::DefinedName>, sheetstream::Error>,
}
