//! `sheetstream.Error` and its subclasses, each carrying the error's
//! location as the attributes `file` (set by the readers of many files),
//! `part`, `sheet`, `row`, `column` and `offset` (`None` where unknown).
//! The message is the error's `Display`, the line the CLI prints after
//! `sheetstream: `.
//!
//! The classes follow what happened ([`sheetstream::ErrorClass`]): under
//! `ReadError` (the workbook could not be read; raised itself when the
//! operating system failed to read it) are `NotAWorkbookError` (its old
//! name `NotXlsxError` is the same class), `UnsupportedFormatError`,
//! `EncryptedWorkbookError` (old name `EncryptionError`; with
//! `PasswordRequiredError`, `PasswordIncorrectError`,
//! `UnsupportedEncryptionError` and `IntegrityError` under it), `DamagedWorkbookError` (with `ZipError`, `PackageError`,
//! `XmlError` and `DamagedCellError` under it), `LimitError` and
//! `NothingReadError`; a file that is not there, a directory, a denied
//! object, a failed connection and a timeout are each also the built-in
//! `OSError` of that name. What was asked does not fit the workbook:
//! `SheetNotFoundError`, `TableNotFoundError`, `ColumnError`, `CellError`
//! (`ConversionError`), `NoDataError`, directly under `Error`.

use pyo3::IntoPyObjectExt;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyUserWarning};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use sheetstream::{ErrorClass, ErrorKind};

create_exception!(
    sheetstream,
    Error,
    PyException,
    "Any error from opening or reading a workbook. Attributes `file` (read_excel), `part`, `sheet`, `row`, `column` (1-based) and `offset` (a byte in the inflated part) say where, or are None."
);
create_exception!(
    sheetstream,
    ReadError,
    Error,
    "The workbook could not be read. Raised itself when the operating system failed to read the file; its subclasses say what else happened (NotAWorkbookError, UnsupportedFormatError, EncryptedWorkbookError, DamagedWorkbookError, LimitError, NothingReadError; FileNotFoundError, IsADirectoryError, PermissionError, ConnectionError and TimeoutError are also the built-ins of their names)."
);
create_exception!(
    sheetstream,
    SkippedWarning,
    PyUserWarning,
    "read_excel or scan_excel (skip_unreadable=True) skipped files or sheets it could not read; the warning's `skipped` lists them (SkippedSheet: file, sheet, error)."
);
create_exception!(
    sheetstream,
    NotAWorkbookError,
    ReadError,
    "The input is no workbook: empty, a text or HTML file, another kind of document (a .docx, a .doc), a ZIP or OLE2 file holding no workbook. The message says what it looks like. NotXlsxError is another name for this class."
);
create_exception!(
    sheetstream,
    UnsupportedFormatError,
    ReadError,
    "A spreadsheet of a format or version this reader does not read (an Excel 2.x-4.0 file, BIFF2-4; an Excel 2003 XML spreadsheet), or a feature of its format it does not offer (formula text of BIFF5). The message names what was found."
);
create_exception!(
    sheetstream,
    EncryptedWorkbookError,
    ReadError,
    "The workbook is encrypted (password-protected) and could not be decrypted. The message names the format and the encryption."
);
create_exception!(
    sheetstream,
    DamagedWorkbookError,
    ReadError,
    "The workbook is damaged: its ZIP or OLE2 container, a part, a record or a cell cannot be read as written. ZipError, PackageError, XmlError and DamagedCellError say where."
);
create_exception!(
    sheetstream,
    ZipError,
    DamagedWorkbookError,
    "The ZIP container is damaged or uses a feature that cannot be read."
);
create_exception!(
    sheetstream,
    PackageError,
    DamagedWorkbookError,
    "A part the workbook needs is missing, or the package is not usable."
);
create_exception!(
    sheetstream,
    XmlError,
    DamagedWorkbookError,
    "A part's XML is malformed or not valid UTF-8, or an .xlsb part's records are (a damaged .xls, which holds no XML, is a DamagedWorkbookError)."
);
create_exception!(
    sheetstream,
    CellError,
    Error,
    "A cell's value or reference cannot be read as written (a DamagedCellError, which is also a DamagedWorkbookError), or, reading with strict=True, does not fit its column's type (ConversionError)."
);
create_exception!(
    sheetstream,
    ConversionError,
    CellError,
    "Reading with strict=True: a value does not fit its column's type, or is an error cell."
);
create_exception!(
    sheetstream,
    ColumnError,
    Error,
    "A column selection names a column the header does not have, or cannot be parsed."
);
create_exception!(
    sheetstream,
    LimitError,
    ReadError,
    "A size limit was exceeded."
);
create_exception!(
    sheetstream,
    NothingReadError,
    ReadError,
    "skip_unreadable=True skipped every file and sheet given: nothing was read. The error's `skipped` lists them (SkippedSheet: file, sheet, error)."
);
create_exception!(
    sheetstream,
    NoDataError,
    Error,
    "raise_if_empty=True (polars' read_excel option) and a sheet holds no data: no cell at all."
);
create_exception!(
    sheetstream,
    SheetNotFoundError,
    Error,
    "The workbook has no such sheet."
);
create_exception!(
    sheetstream,
    TableNotFoundError,
    Error,
    "The workbook has no Excel table of that name (the message lists those it has)."
);
create_exception!(
    sheetstream,
    PasswordRequiredError,
    EncryptedWorkbookError,
    "The workbook is encrypted, no password was given, and Excel's default password (tried for Office formats; .ods has none) does not open it: pass password=."
);
create_exception!(
    sheetstream,
    PasswordIncorrectError,
    EncryptedWorkbookError,
    "The workbook is encrypted, and neither the passwords given nor Excel's default one open it."
);
create_exception!(
    sheetstream,
    UnsupportedEncryptionError,
    EncryptedWorkbookError,
    "The workbook is encrypted with a scheme sheetstream does not decrypt (the message names it: Extensible encryption, IRM/DRM, Agile with DES or RC2, ...)."
);
create_exception!(
    sheetstream,
    IntegrityError,
    EncryptedWorkbookError,
    "The password opened the workbook, but its integrity check (Agile encryption's HMAC) failed: the file was changed after it was encrypted."
);

/// Adds the exception classes to the module.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("Error", py.get_type::<Error>())?;
    module.add("ReadError", py.get_type::<ReadError>())?;
    module.add("NotAWorkbookError", py.get_type::<NotAWorkbookError>())?;
    // The class's name before the classes by what happened.
    module.add("NotXlsxError", py.get_type::<NotAWorkbookError>())?;
    module.add(
        "UnsupportedFormatError",
        py.get_type::<UnsupportedFormatError>(),
    )?;
    module.add(
        "EncryptedWorkbookError",
        py.get_type::<EncryptedWorkbookError>(),
    )?;
    module.add(
        "DamagedWorkbookError",
        py.get_type::<DamagedWorkbookError>(),
    )?;
    module.add("ZipError", py.get_type::<ZipError>())?;
    module.add("PackageError", py.get_type::<PackageError>())?;
    module.add("XmlError", py.get_type::<XmlError>())?;
    module.add("CellError", py.get_type::<CellError>())?;
    module.add("ConversionError", py.get_type::<ConversionError>())?;
    module.add("ColumnError", py.get_type::<ColumnError>())?;
    module.add("LimitError", py.get_type::<LimitError>())?;
    module.add("NothingReadError", py.get_type::<NothingReadError>())?;
    module.add("NoDataError", py.get_type::<NoDataError>())?;
    module.add("SheetNotFoundError", py.get_type::<SheetNotFoundError>())?;
    module.add("TableNotFoundError", py.get_type::<TableNotFoundError>())?;
    // The class's name before the classes by what happened.
    module.add("EncryptionError", py.get_type::<EncryptedWorkbookError>())?;
    module.add(
        "PasswordRequiredError",
        py.get_type::<PasswordRequiredError>(),
    )?;
    module.add(
        "PasswordIncorrectError",
        py.get_type::<PasswordIncorrectError>(),
    )?;
    module.add(
        "UnsupportedEncryptionError",
        py.get_type::<UnsupportedEncryptionError>(),
    )?;
    module.add("IntegrityError", py.get_type::<IntegrityError>())?;
    module.add("SkippedWarning", py.get_type::<SkippedWarning>())?;
    for class in TwoBases::ALL {
        module.add(class.name(), two_bases_class(py, class)?)?;
    }
    // Class-level defaults, so that an `Error` raised from Python code has
    // the attributes too.
    let base = py.get_type::<Error>();
    for name in ["file", "part", "sheet", "row", "column", "offset"] {
        base.setattr(name, py.None())?;
    }
    Ok(())
}

/// The classes with two bases: a `ReadError` that is also the built-in
/// `OSError` subclass Python code catches for the same failure, and the
/// damaged cell (a `CellError` and a `DamagedWorkbookError`).
#[derive(Clone, Copy)]
pub(crate) enum TwoBases {
    NotFound,
    IsADirectory,
    Permission,
    Connection,
    Timeout,
    DamagedCell,
}

/// Each [`TwoBases`] class, made once (by its discriminant).
static TWO_BASES: [PyOnceLock<Py<PyType>>; 6] = [
    PyOnceLock::new(),
    PyOnceLock::new(),
    PyOnceLock::new(),
    PyOnceLock::new(),
    PyOnceLock::new(),
    PyOnceLock::new(),
];

impl TwoBases {
    const ALL: [TwoBases; 6] = [
        TwoBases::NotFound,
        TwoBases::IsADirectory,
        TwoBases::Permission,
        TwoBases::Connection,
        TwoBases::Timeout,
        TwoBases::DamagedCell,
    ];

    fn name(self) -> &'static str {
        match self {
            TwoBases::NotFound => "FileNotFoundError",
            TwoBases::IsADirectory => "IsADirectoryError",
            TwoBases::Permission => "PermissionError",
            TwoBases::Connection => "ConnectionError",
            TwoBases::Timeout => "TimeoutError",
            TwoBases::DamagedCell => "DamagedCellError",
        }
    }

    fn doc(self) -> &'static str {
        match self {
            TwoBases::NotFound => {
                "The file, object or URL (an HTTP 404) does not exist: a sheetstream.ReadError that is also a built-in FileNotFoundError."
            }
            TwoBases::IsADirectory => {
                "The path is a directory (or a bucket prefix) where one workbook was expected: a sheetstream.ReadError that is also a built-in IsADirectoryError."
            }
            TwoBases::Permission => {
                "Reading was denied (an HTTP 401 or 403, a bucket's access denied, a file's permissions): a sheetstream.ReadError that is also a built-in PermissionError."
            }
            TwoBases::Connection => {
                "The server could not be reached (connection refused or reset, no such host): a sheetstream.ReadError that is also a built-in ConnectionError."
            }
            TwoBases::Timeout => {
                "The server did not answer in time: a sheetstream.ReadError that is also a built-in TimeoutError."
            }
            TwoBases::DamagedCell => {
                "A cell's value or reference cannot be read as written (a shared string index past the table, a malformed number or reference): a CellError that is also a DamagedWorkbookError."
            }
        }
    }

    fn bases(self, py: Python<'_>) -> PyResult<[Bound<'_, PyAny>; 2]> {
        Ok(match self {
            TwoBases::DamagedCell => [
                py.get_type::<CellError>().into_any(),
                py.get_type::<DamagedWorkbookError>().into_any(),
            ],
            other => [
                py.get_type::<ReadError>().into_any(),
                py.import("builtins")?.getattr(other.name())?,
            ],
        })
    }
}

/// One of the [`TwoBases`] classes, made once with `type(name, bases,
/// namespace)`: a class with two bases cannot be declared with
/// `create_exception!`.
pub(crate) fn two_bases_class(py: Python<'_>, class: TwoBases) -> PyResult<Bound<'_, PyType>> {
    let made = TWO_BASES[class as usize].get_or_try_init(py, || {
        let bases = PyTuple::new(py, class.bases(py)?)?;
        let namespace = PyDict::new(py);
        namespace.set_item("__module__", "sheetstream")?;
        namespace.set_item("__doc__", class.doc())?;
        py.import("builtins")?
            .getattr("type")?
            .call1((class.name(), bases, namespace))?
            .cast_into::<PyType>()
            .map(Bound::unbind)
            .map_err(PyErr::from)
    })?;
    Ok(made.bind(py).clone())
}

/// An instance of one of the [`TwoBases`] classes, with `errno` set (not
/// `strerror` or `filename`, which would change its `str` from the
/// message); a plain `ReadError` should the class not be made.
fn two_bases_error(py: Python<'_>, class: TwoBases, message: String, errno: Option<i32>) -> PyErr {
    let made = two_bases_class(py, class).and_then(|class| {
        let value = class.call1((message.clone(),))?;
        if let Some(errno) = errno {
            value.setattr("errno", errno)?;
        }
        Ok(value)
    });
    match made {
        Ok(value) => PyErr::from_value(value),
        Err(_) => ReadError::new_err(message),
    }
}

/// The Python exception for an error opening the file `file` (a path, or
/// None for bytes): the file is named in `err.file` and in the message.
pub(crate) fn open_error(py: Python<'_>, err: sheetstream::Error, file: Option<&str>) -> PyErr {
    let err = match file {
        Some(file) => err.with_file(file),
        None => err,
    };
    to_py_err(py, &err)
}

/// The Python exception for a sheetstream error, with its location set as
/// attributes.
pub(crate) fn to_py_err(py: Python<'_>, err: &sheetstream::Error) -> PyErr {
    to_py_err_hinted(py, err, None)
}

/// As [`to_py_err`], with `hint` after what went wrong (before where).
pub(crate) fn to_py_err_hinted(
    py: Python<'_>,
    err: &sheetstream::Error,
    hint: Option<&str>,
) -> PyErr {
    let message = match hint {
        None => err.to_string(),
        Some(hint) if *err.location() == sheetstream::Location::default() => {
            format!("{}{hint}", err.kind())
        }
        Some(hint) => format!("{}{hint} (at {})", err.kind(), err.location()),
    };
    let py_err = match err.kind() {
        ErrorKind::Io(io) => {
            let class = match io.kind() {
                std::io::ErrorKind::NotFound => Some(TwoBases::NotFound),
                std::io::ErrorKind::IsADirectory => Some(TwoBases::IsADirectory),
                std::io::ErrorKind::PermissionDenied => Some(TwoBases::Permission),
                std::io::ErrorKind::TimedOut => Some(TwoBases::Timeout),
                std::io::ErrorKind::ConnectionRefused
                | std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted => Some(TwoBases::Connection),
                _ => None,
            };
            match class {
                Some(class) => two_bases_error(py, class, message, io.raw_os_error()),
                None => ReadError::new_err(message),
            }
        }
        ErrorKind::Zip(_) => ZipError::new_err(message),
        ErrorKind::Package(_) | ErrorKind::MissingPart(_) => PackageError::new_err(message),
        ErrorKind::Xml(_) | ErrorKind::Record(_) | ErrorKind::InvalidUtf8 => {
            XmlError::new_err(message)
        }
        ErrorKind::SharedStringIndex { .. }
        | ErrorKind::InvalidValue(_)
        | ErrorKind::CellReference(_) => two_bases_error(py, TwoBases::DamagedCell, message, None),
        ErrorKind::SheetNotFound(_) => SheetNotFoundError::new_err(message),
        ErrorKind::TableNotFound(_) => TableNotFoundError::new_err(message),
        ErrorKind::Conversion(_) | ErrorKind::Mismatch { .. } => ConversionError::new_err(message),
        ErrorKind::ColumnSelection(_) => ColumnError::new_err(message),
        ErrorKind::PasswordRequired(_) => PasswordRequiredError::new_err(message),
        ErrorKind::PasswordIncorrect(_) => PasswordIncorrectError::new_err(message),
        ErrorKind::UnsupportedEncryption(_) => UnsupportedEncryptionError::new_err(message),
        ErrorKind::IntegrityFailure(_) => IntegrityError::new_err(message),
        ErrorKind::NothingRead(_) => NothingReadError::new_err(message),
        // The rest by what happened: the kinds of encrypted workbooks are
        // EncryptedWorkbookErrors, and so on.
        _ => match err.class() {
            ErrorClass::NotAWorkbook => NotAWorkbookError::new_err(message),
            ErrorClass::Unsupported => UnsupportedFormatError::new_err(message),
            ErrorClass::Encrypted => EncryptedWorkbookError::new_err(message),
            ErrorClass::Damaged => DamagedWorkbookError::new_err(message),
            ErrorClass::Limit => LimitError::new_err(message),
            ErrorClass::Io => ReadError::new_err(message),
            _ => Error::new_err(message),
        },
    };
    let location = err.location();
    let value = py_err.value(py);
    let attributes: [(&str, Py<PyAny>); 6] = [
        ("file", into_object(py, location.file.as_deref())),
        ("part", into_object(py, location.part.as_deref())),
        ("sheet", into_object(py, location.sheet.as_deref())),
        ("row", into_object(py, location.row)),
        ("column", into_object(py, location.column)),
        ("offset", into_object(py, location.offset)),
    ];
    for (name, attribute) in attributes {
        if let Err(setattr_err) = value.setattr(name, attribute) {
            return setattr_err;
        }
    }
    py_err
}

fn into_object<'py, T: IntoPyObject<'py>>(py: Python<'py>, value: Option<T>) -> Py<PyAny> {
    match value {
        Some(value) => value.into_py_any(py).unwrap_or_else(|_| py.None()),
        None => py.None(),
    }
}

/// `Result<T, sheetstream::Error>` into a `PyResult<T>`.
pub(crate) trait IntoPyResult<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, sheetstream::Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|err| to_py_err(py, &err))
    }
}
