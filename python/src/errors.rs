//! `sheetstream.Error` and its subclasses: one Python exception class per
//! kind of [`sheetstream::ErrorKind`], each carrying the error's location
//! as the attributes `file` (set by the readers of many files), `part`,
//! `sheet`, `row`, `column` and `offset` (`None` where unknown). The message is the error's `Display`, the line the CLI
//! prints after `sheetstream: `.

use pyo3::IntoPyObjectExt;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyUserWarning};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use sheetstream::ErrorKind;

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
    "The operating system failed to read the file."
);
create_exception!(
    sheetstream,
    SkippedWarning,
    PyUserWarning,
    "read_excel or scan_excel (skip_unreadable=True) skipped files or sheets it could not read; the warning's `skipped` lists them (SkippedSheet: file, sheet, error)."
);
create_exception!(
    sheetstream,
    NotXlsxError,
    Error,
    "The input is not a ZIP archive (an encrypted workbook or a legacy .xls is an OLE2 file)."
);
create_exception!(
    sheetstream,
    ZipError,
    Error,
    "The ZIP container is damaged or uses a feature that cannot be read."
);
create_exception!(
    sheetstream,
    PackageError,
    Error,
    "Not a usable spreadsheet package, or a part it needs is missing."
);
create_exception!(
    sheetstream,
    XmlError,
    Error,
    "A part's XML (or an .xlsb part's binary records) is malformed, or not valid UTF-8."
);
create_exception!(
    sheetstream,
    CellError,
    Error,
    "A cell's value or reference cannot be read as written (or, reading with strict=True, does not fit its column's type)."
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
create_exception!(sheetstream, LimitError, Error, "A size limit was exceeded.");
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
    EncryptionError,
    Error,
    "The workbook is encrypted (password-protected) and cannot be decrypted: its encryption structures are damaged (the subclasses say the other reasons)."
);
create_exception!(
    sheetstream,
    PasswordRequiredError,
    EncryptionError,
    "The workbook is encrypted, no password was given, and Excel's default password does not open it: pass password=."
);
create_exception!(
    sheetstream,
    PasswordIncorrectError,
    EncryptionError,
    "The workbook is encrypted, and neither the passwords given nor Excel's default one open it."
);
create_exception!(
    sheetstream,
    UnsupportedEncryptionError,
    EncryptionError,
    "The workbook is encrypted with a scheme sheetstream does not decrypt (the message names it: Extensible encryption, IRM/DRM, Agile with DES or RC2, ...)."
);
create_exception!(
    sheetstream,
    IntegrityError,
    EncryptionError,
    "The password opened the workbook, but its integrity check (Agile encryption's HMAC) failed: the file was changed after it was encrypted."
);

/// Adds the exception classes to the module.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("Error", py.get_type::<Error>())?;
    module.add("ReadError", py.get_type::<ReadError>())?;
    module.add("NotXlsxError", py.get_type::<NotXlsxError>())?;
    module.add("ZipError", py.get_type::<ZipError>())?;
    module.add("PackageError", py.get_type::<PackageError>())?;
    module.add("XmlError", py.get_type::<XmlError>())?;
    module.add("CellError", py.get_type::<CellError>())?;
    module.add("ConversionError", py.get_type::<ConversionError>())?;
    module.add("ColumnError", py.get_type::<ColumnError>())?;
    module.add("LimitError", py.get_type::<LimitError>())?;
    module.add("SheetNotFoundError", py.get_type::<SheetNotFoundError>())?;
    module.add("TableNotFoundError", py.get_type::<TableNotFoundError>())?;
    module.add("EncryptionError", py.get_type::<EncryptionError>())?;
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
    module.add(
        "FileNotFoundError",
        os_error_class(py, OsErrorClass::NotFound)?,
    )?;
    module.add(
        "IsADirectoryError",
        os_error_class(py, OsErrorClass::IsADirectory)?,
    )?;
    // Class-level defaults, so that an `Error` raised from Python code has
    // the attributes too.
    let base = py.get_type::<Error>();
    for name in ["part", "sheet", "row", "column", "offset"] {
        base.setattr(name, py.None())?;
    }
    Ok(())
}

/// The two classes that are both a `ReadError` and the built-in `OSError`
/// subclass that Python code catches for the same failure.
#[derive(Clone, Copy)]
enum OsErrorClass {
    NotFound,
    IsADirectory,
}

static FILE_NOT_FOUND: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static IS_A_DIRECTORY: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `sheetstream.FileNotFoundError` (a `ReadError` and a built-in
/// `FileNotFoundError`) or `sheetstream.IsADirectoryError` (likewise),
/// made once with `type(name, bases, namespace)`: a class with two bases
/// cannot be declared with `create_exception!`.
fn os_error_class(py: Python<'_>, class: OsErrorClass) -> PyResult<Bound<'_, PyType>> {
    let (cell, name, builtin, doc) = match class {
        OsErrorClass::NotFound => (
            &FILE_NOT_FOUND,
            "FileNotFoundError",
            "FileNotFoundError",
            "The file does not exist: a sheetstream.ReadError that is also a built-in FileNotFoundError.",
        ),
        OsErrorClass::IsADirectory => (
            &IS_A_DIRECTORY,
            "IsADirectoryError",
            "IsADirectoryError",
            "The path is a directory: a sheetstream.ReadError that is also a built-in IsADirectoryError.",
        ),
    };
    let class = cell.get_or_try_init(py, || {
        let builtins = py.import("builtins")?;
        let bases = PyTuple::new(
            py,
            [
                py.get_type::<ReadError>().into_any(),
                builtins.getattr(builtin)?,
            ],
        )?;
        let namespace = PyDict::new(py);
        namespace.set_item("__module__", "sheetstream")?;
        namespace.set_item("__doc__", doc)?;
        builtins
            .getattr("type")?
            .call1((name, bases, namespace))?
            .cast_into::<PyType>()
            .map(Bound::unbind)
            .map_err(PyErr::from)
    })?;
    Ok(class.bind(py).clone())
}

/// An instance of one of the two classes above, with `errno` set (not
/// `strerror` or `filename`, which would change its `str` from the
/// message).
fn os_error(py: Python<'_>, class: OsErrorClass, message: String, errno: Option<i32>) -> PyErr {
    let made = os_error_class(py, class).and_then(|class| {
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
        ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
            os_error(py, OsErrorClass::NotFound, message, io.raw_os_error())
        }
        ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::IsADirectory => {
            os_error(py, OsErrorClass::IsADirectory, message, io.raw_os_error())
        }
        ErrorKind::Io(_) => ReadError::new_err(message),
        ErrorKind::NotZip { .. } => NotXlsxError::new_err(message),
        ErrorKind::Zip(_) => ZipError::new_err(message),
        ErrorKind::Package(_) | ErrorKind::MissingPart(_) => PackageError::new_err(message),
        ErrorKind::Xml(_) | ErrorKind::Record(_) | ErrorKind::Xls(_) | ErrorKind::InvalidUtf8 => {
            XmlError::new_err(message)
        }
        ErrorKind::SharedStringIndex { .. }
        | ErrorKind::InvalidValue(_)
        | ErrorKind::CellReference(_) => CellError::new_err(message),
        ErrorKind::LimitExceeded { .. } => LimitError::new_err(message),
        ErrorKind::SheetNotFound(_) => SheetNotFoundError::new_err(message),
        ErrorKind::TableNotFound(_) => TableNotFoundError::new_err(message),
        ErrorKind::Conversion(_) | ErrorKind::Mismatch { .. } => ConversionError::new_err(message),
        ErrorKind::ColumnSelection(_) => ColumnError::new_err(message),
        ErrorKind::Encrypted(_) => EncryptionError::new_err(message),
        ErrorKind::PasswordRequired(_) => PasswordRequiredError::new_err(message),
        ErrorKind::PasswordIncorrect(_) => PasswordIncorrectError::new_err(message),
        ErrorKind::UnsupportedEncryption(_) => UnsupportedEncryptionError::new_err(message),
        ErrorKind::IntegrityFailure(_) => IntegrityError::new_err(message),
        _ => Error::new_err(message),
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
