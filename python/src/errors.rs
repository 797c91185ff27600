//! `sheetstream.Error` and its subclasses: one Python exception class per
//! kind of [`sheetstream::ErrorKind`], each carrying the error's location
//! as the attributes `file` (set by the readers of many files), `part`,
//! `sheet`, `row`, `column` and `offset` (`None` where unknown). The message is the error's `Display`, the line the CLI
//! prints after `sheetstream: `.

use pyo3::IntoPyObjectExt;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
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
    "A part's XML is malformed or not valid UTF-8."
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
    // Class-level defaults, so that an `Error` raised from Python code has
    // the attributes too.
    let base = py.get_type::<Error>();
    for name in ["part", "sheet", "row", "column", "offset"] {
        base.setattr(name, py.None())?;
    }
    Ok(())
}

/// The Python exception for a sheetstream error, with its location set as
/// attributes.
pub(crate) fn to_py_err(py: Python<'_>, err: &sheetstream::Error) -> PyErr {
    let message = err.to_string();
    let py_err = match err.kind() {
        ErrorKind::Io(_) => ReadError::new_err(message),
        ErrorKind::NotZip { .. } => NotXlsxError::new_err(message),
        ErrorKind::Zip(_) => ZipError::new_err(message),
        ErrorKind::Package(_) | ErrorKind::MissingPart(_) => PackageError::new_err(message),
        ErrorKind::Xml(_) | ErrorKind::InvalidUtf8 => XmlError::new_err(message),
        ErrorKind::SharedStringIndex { .. }
        | ErrorKind::InvalidValue(_)
        | ErrorKind::CellReference(_) => CellError::new_err(message),
        ErrorKind::LimitExceeded { .. } => LimitError::new_err(message),
        ErrorKind::SheetNotFound(_) => SheetNotFoundError::new_err(message),
        ErrorKind::Conversion(_) | ErrorKind::Mismatch { .. } => ConversionError::new_err(message),
        ErrorKind::ColumnSelection(_) => ColumnError::new_err(message),
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
