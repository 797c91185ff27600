//! Argument checks in Python's words: a negative count or position is a
//! `ValueError` saying what is allowed (not pyo3's `OverflowError`), and
//! the choices that would read nothing (a `header_row` past the sheet's
//! last row, a column position past its last column, a chart sheet) are
//! errors rather than empty frames.

use arrow_schema::{DataType, Schema};
use pyo3::exceptions::{PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};
use sheetstream::{ColumnSelector, ColumnSpec, SheetKind, SheetSelector};

use crate::errors::{ColumnError, IntoPyResult, SheetNotFoundError};
use crate::opened::OpenedWorkbook;

/// A sheet as Python names it: a position (`int`, 0-based) or a name
/// (`str`, which follows the library's rule for text: the sheet of that
/// name, or the sheet at that position when no sheet has that name and
/// the text is a whole number). A negative position is a `ValueError`
/// ([`sheet_ref`]).
#[derive(Clone, Debug)]
pub(crate) enum SheetRef {
    Position(usize),
    Name(String),
    /// The sheet of this name, never a position (polars' and pandas'
    /// `sheet_name`).
    ExactName(String),
}

impl<'a, 'py> FromPyObject<'a, 'py> for SheetRef {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<SheetRef> {
        sheet_ref(&value)
    }
}

impl SheetRef {
    /// The library's name for the same sheet.
    pub(crate) fn into_library(self) -> sheetstream::SheetRef {
        match self {
            SheetRef::Position(position) => sheetstream::SheetRef::Position(position),
            SheetRef::Name(name) => sheetstream::SheetRef::Text(name),
            SheetRef::ExactName(name) => sheetstream::SheetRef::Name(name),
        }
    }
}

/// The position of a sheet in the workbook; a `UserWarning` when a name
/// could have meant another sheet (`"2"`, the name of one sheet and the
/// position of another: the name wins).
pub(crate) fn sheet_position(
    py: Python<'_>,
    workbook: &OpenedWorkbook,
    sheet: &SheetRef,
) -> PyResult<usize> {
    let wanted = sheet.clone().into_library();
    let sheets = workbook.sheets();
    let position = wanted.position(sheets).or_raise(py)?;
    if let Some(note) = wanted.ambiguity(sheets) {
        PyErr::warn(
            py,
            &py.get_type::<PyUserWarning>(),
            &std::ffi::CString::new(note)?,
            1,
        )?;
    }
    Ok(position)
}

/// `columns`: a spec string (`"A:C,F,Amount"`), or a list of header names
/// (`str`) and 0-based positions (`int`).
pub(crate) fn columns(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<ColumnSpec> {
    if let Ok(spec) = value.extract::<String>() {
        return ColumnSpec::parse(&spec).or_raise(py);
    }
    let mut selectors = Vec::new();
    for item in value.try_iter().map_err(|_| {
        PyTypeError::new_err(
            "columns must be a string such as \"A:C,F\" or a list of names and positions",
        )
    })? {
        let item = item?;
        if let Ok(name) = item.extract::<String>() {
            selectors.push(ColumnSelector::Name(name));
        } else {
            let position: u32 = item.extract().map_err(|_| {
                PyTypeError::new_err("columns lists header names (str) and 0-based positions (int)")
            })?;
            if position >= sheetstream::MAX_COLUMN {
                return Err(PyValueError::new_err(format!(
                    "column position {position} is past the last column (XFD is {})",
                    sheetstream::MAX_COLUMN - 1
                )));
            }
            selectors.push(ColumnSelector::Index(position));
        }
    }
    Ok(ColumnSpec::from_selectors(selectors))
}

/// A count or position: an `int` of 0 or more (`what` names the argument,
/// `allowed` says what else it may be, e.g. `", or None"`).
pub(crate) fn non_negative<'a, 'py, T>(
    value: &'a Bound<'py, PyAny>,
    what: &str,
    allowed: &str,
) -> PyResult<T>
where
    T: FromPyObject<'a, 'py>,
{
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int (0 or more{allowed}), not {}",
            value.get_type().name()?
        )));
    }
    if value.lt(0)? {
        return Err(PyValueError::new_err(format!(
            "{what} must be 0 or more{allowed}, not {}",
            value.repr()?
        )));
    }
    value.extract::<T>().map_err(|_| {
        PyValueError::new_err(format!(
            "{what} is too large: {}",
            value
                .repr()
                .map_or_else(|_| "?".into(), |repr| repr.to_string())
        ))
    })
}

/// `threads`: 0 (one per core) or more.
pub(crate) fn thread_count(threads: i64) -> PyResult<usize> {
    usize::try_from(threads).map_err(|_| {
        PyValueError::new_err(format!(
            "threads must be 0 or more (0: one per core), not {threads}"
        ))
    })
}

/// `sheet`: a 0-based position or a name.
pub(crate) fn sheet_ref(value: &Bound<'_, PyAny>) -> PyResult<SheetRef> {
    if value.is_instance_of::<PyString>() {
        return Ok(SheetRef::Name(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>() {
        if value.lt(0)? {
            return Err(PyValueError::new_err(format!(
                "sheet must be a 0-based position (0 or more) or a sheet name, not {}",
                value.repr()?
            )));
        }
        return Ok(SheetRef::Position(value.extract()?));
    }
    Err(PyTypeError::new_err(format!(
        "sheet must be a 0-based position (int) or a sheet name (str), not {}",
        value.get_type().name()?
    )))
}

/// Refuses a chart sheet, which has no cells to read.
pub(crate) fn readable_sheet(
    py: Python<'_>,
    info: &sheetstream::SheetInfo,
    file: Option<&str>,
) -> PyResult<()> {
    if info.kind() != SheetKind::Chartsheet {
        return Ok(());
    }
    let place = file.map_or(String::new(), |file| format!(" of {file}"));
    let err = SheetNotFoundError::new_err(format!(
        "sheet {} ('{}'){place} is a chart sheet, which has no cells to read",
        info.position(),
        info.name()
    ));
    let value = err.value(py);
    value.setattr("sheet", info.name())?;
    value.setattr("file", file)?;
    Err(err)
}

/// Whether the schema's column at `slot` read nothing: no header text
/// (its name is the generated `column_N`) and no value in the sample.
fn read_nothing(schema: &Schema, slot: usize) -> bool {
    let field = schema.field(slot);
    *field.data_type() == DataType::Null && *field.name() == format!("column_{}", slot + 1)
}

/// After a sheet's header and sample were read into `schema` (its first
/// `leading` columns being the file and sheet columns of `read_excel`):
/// a `header_row` at or past which the sheet has no cells, and a column
/// position (`columns=[99]`, `"CV"`) the header and sample never reached,
/// are errors.
pub(crate) fn check_schema(
    schema: &Schema,
    leading: usize,
    kwargs: Option<&Bound<'_, PyDict>>,
    sheets: &str,
) -> PyResult<()> {
    let Some(kwargs) = kwargs else {
        return Ok(());
    };
    let width = schema.fields().len().saturating_sub(leading);
    let slot_empty = |slot: usize| read_nothing(schema, leading + slot);
    if let Some(header) = kwargs.get_item("header_row")?
        && header.is_instance_of::<PyInt>()
        && (0..width).all(slot_empty)
    {
        let row: usize = header.extract()?;
        return Err(PyValueError::new_err(format!(
            "header_row={row} is past the last row of {sheets}: no cells in or after row {} \
             (header_row is 0-based)",
            row + 1
        )));
    }
    let Some(columns) = kwargs.get_item("columns")? else {
        return Ok(());
    };
    if columns.is_none() {
        return Ok(());
    }
    let spec = self::columns(kwargs.py(), &columns)?;
    let mut slot = 0;
    for selector in spec.selectors() {
        match selector {
            ColumnSelector::Index(column) => {
                if slot < width && slot_empty(slot) {
                    let letters = column_letters(*column);
                    return Err(ColumnError::new_err(format!(
                        "column {column} ({letters}) is past the last column of {sheets}: \
                         no cell in its header or sample rows (positions are 0-based; \
                         give dtypes={{\"column_{}\": ...}} if its values come later)",
                        slot + 1
                    )));
                }
                slot += 1;
            }
            ColumnSelector::Range(first, last) => {
                let (first, last) = (
                    (*first).min(sheetstream::MAX_COLUMN),
                    (*last).min(sheetstream::MAX_COLUMN),
                );
                slot += first.abs_diff(last) as usize + 1;
            }
            _ => slot += 1,
        }
    }
    Ok(())
}

/// A 0-based column's letters (0 is A, 26 is AA).
fn column_letters(column: u32) -> String {
    let mut letters = Vec::new();
    let mut rest = u64::from(column) + 1;
    while rest > 0 {
        let digit = (rest - 1) % 26;
        letters.push(b'A' + digit as u8);
        rest = (rest - 1) / 26;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

/// The options a workbook is opened with: the passwords `password=` gives
/// for the workbook `label` (its path or URL; None for bytes and file
/// objects), and `verify_integrity=`. `password` is None, a `str`, a list
/// or tuple of them (tried in order, after Excel's default password), or
/// a callable given `label` that returns one of those (for a glob of
/// files with different passwords).
pub(crate) fn open_options(
    password: Option<&Bound<'_, PyAny>>,
    verify_integrity: bool,
    label: Option<&str>,
) -> PyResult<sheetstream::OpenOptions> {
    let options = sheetstream::OpenOptions::new().verify_integrity(verify_integrity);
    let Some(password) = password.filter(|password| !password.is_none()) else {
        return Ok(options);
    };
    let given = if password.is_callable()
        && !password.is_instance_of::<PyString>()
        && !password.is_instance_of::<PyList>()
        && !password.is_instance_of::<PyTuple>()
    {
        password.call1((label,))?
    } else {
        password.clone()
    };
    Ok(options.passwords(password_list(&given)?))
}

/// A password (`str`), a list or tuple of them, or None (none).
fn password_list(given: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if given.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(text) = given.cast::<PyString>() {
        return Ok(vec![text.to_cow()?.into_owned()]);
    }
    if given.is_instance_of::<PyList>() || given.is_instance_of::<PyTuple>() {
        return given
            .try_iter()?
            .map(|item| {
                let item = item?;
                item.cast::<PyString>()
                    .map_err(|_| {
                        PyTypeError::new_err(format!(
                            "password: a list of passwords holds str, not {}",
                            type_name(&item)
                        ))
                    })?
                    .to_cow()
                    .map(|text| text.into_owned())
            })
            .collect();
    }
    Err(PyTypeError::new_err(format!(
        "password must be a str, a list of str (tried in order), or a callable given the \
         file's path that returns one (or None), not {}",
        type_name(given)
    )))
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "an object".into())
}
