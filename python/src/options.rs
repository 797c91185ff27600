//! The keyword options of `Workbook.sheet` and `read_excel`, into the
//! Arrow layer's [`ArrowOptions`]: the same options, named as there.
//!
//! `whole_table_batch_rows`: bigger batches for a read of a wide sheet into
//! one table, since consumers keep a chunk per batch and column.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};
use sheetstream::arrow::{ALL_ROWS, ArrowOptions, ColumnType, Header, OnErrorValue, OnMismatch};

use crate::args::{SheetRef, columns, non_negative};
use crate::errors::IntoPyResult;

/// The option names `options_from_kwargs` takes (polars' names for the
/// same options are [`POLARS_ALIASES`]).
pub(crate) const SHEET_OPTIONS: [&str; 23] = [
    "header_row",
    "skip_rows",
    "n_rows",
    "columns",
    "schema_sample_rows",
    "infer_schema_length",
    "dtypes",
    "on_mismatch",
    "strict",
    "on_error_value",
    "null_values",
    "batch_size",
    "issues_per_batch",
    "keep_rows_before_error",
    // Hand-made sheets (issue 26).
    "fill_merged",
    "skip_hidden_rows",
    "skip_hidden_columns",
    "drop_empty_rows",
    "drop_empty_cols",
    "stop_at_empty_row",
    // Tables and ranges.
    "range",
    "table",
    "include_totals_row",
];

/// polars' `read_excel` names taken for the same options, with the
/// option each stands for: `has_header=False` is `header_row=None`,
/// `schema_overrides` is `dtypes` (also with polars' data types),
/// `table_name` is `table`. (`infer_schema_length`, `columns`,
/// `drop_empty_rows` and `drop_empty_cols` are names of both.)
pub(crate) const POLARS_ALIASES: [(&str, &str); 3] = [
    ("has_header", "header_row"),
    ("schema_overrides", "dtypes"),
    ("table_name", "table"),
];

/// The keywords of the functions that take these options (`read_excel`,
/// `scan_excel`, `read_excel_sheets`, `Workbook.sheet`), for the nearest
/// name an unknown one is told of.
const ENTRY_KEYWORDS: [&str; 16] = [
    "sheet",
    "to",
    "union_by_name",
    "file_column",
    "sheet_column",
    "threads",
    "skip_unreadable",
    "storage_options",
    "recursive",
    "on_report",
    // polars' names for read_excel's own keywords.
    "sheet_name",
    "sheet_id",
    "include_file_paths",
    "raise_if_empty",
    "has_header",
    "schema_overrides",
];

/// Options of pandas' and polars' `read_excel` that sheetstream takes
/// under another name or not at all, and what to give instead.
const THEIR_OPTIONS: [(&str, &str); 21] = [
    (
        "header",
        "pandas' header is header_row here (0-based, or None), or has_header=False",
    ),
    (
        "usecols",
        "pandas' usecols is columns here (\"A:C,F\", or a list of names and 0-based positions)",
    ),
    ("nrows", "pandas' nrows is n_rows here"),
    ("skiprows", "pandas' skiprows (a count) is skip_rows here"),
    (
        "dtype",
        "pandas' dtype is dtypes here (a dict of column name to type)",
    ),
    ("na_values", "pandas' na_values is null_values here"),
    (
        "engine",
        "sheetstream reads the workbook itself: leave engine out",
    ),
    (
        "engine_options",
        "sheetstream reads the workbook itself: give its options directly (header_row=..., dtypes=...)",
    ),
    (
        "read_options",
        "sheetstream reads the workbook itself: give its options directly (header_row=..., dtypes=...)",
    ),
    (
        "engine_kwargs",
        "sheetstream reads the workbook itself: give its options directly",
    ),
    (
        "index_col",
        "pandas' index_col is not taken: set the index on the frame after reading",
    ),
    (
        "names",
        "pandas' names is not taken: rename the frame's columns after reading",
    ),
    (
        "converters",
        "pandas' converters is not taken: convert the columns after reading",
    ),
    (
        "parse_dates",
        "dates are read as dates already (by their number format): parse_dates is not needed",
    ),
    (
        "date_format",
        "dates are read as dates already (by their number format): date_format is not needed",
    ),
    (
        "true_values",
        "pandas' true_values is not taken: booleans are read as booleans",
    ),
    (
        "false_values",
        "pandas' false_values is not taken: booleans are read as booleans",
    ),
    (
        "thousands",
        "numbers are read as numbers already: thousands is not needed",
    ),
    (
        "skipfooter",
        "pandas' skipfooter is not taken: stop_at_empty_row or n_rows end a table",
    ),
    (
        "keep_default_na",
        "pandas' keep_default_na is not taken: only null_values become null",
    ),
    (
        "dtype_backend",
        "the frame's types are Arrow's already: dtype_backend is not needed",
    ),
];

/// The error for an option name that is none: the nearest valid name (or
/// what to give for a name of pandas' or polars'), then every option.
fn unknown_option(name: &str) -> PyErr {
    if let Some((_, advice)) = THEIR_OPTIONS.iter().find(|(their, _)| *their == name) {
        return PyTypeError::new_err(format!(
            "unexpected option {name:?}: {advice} (sheetstream.pandas.read_excel takes pandas' names)"
        ));
    }
    if ENTRY_KEYWORDS.contains(&name) {
        return PyTypeError::new_err(format!(
            "unexpected option {name:?}: it is a keyword of read_excel (or of another entry \
             that takes it), not of this one; the options are {}",
            SHEET_OPTIONS.join(", ")
        ));
    }
    let aliases = POLARS_ALIASES.iter().map(|(alias, _)| alias);
    let known = SHEET_OPTIONS
        .iter()
        .chain(ENTRY_KEYWORDS.iter())
        .chain(aliases);
    let nearest = known
        .map(|known| (edit_distance(name, known), *known))
        .min()
        .filter(|(distance, known)| *distance <= (known.len() / 3).max(2));
    let hint = nearest.map_or(String::new(), |(_, known)| {
        format!(" (did you mean {known:?}?)")
    });
    PyTypeError::new_err(format!(
        "unexpected option {name:?}{hint}; the options are {}",
        SHEET_OPTIONS.join(", ")
    ))
}

/// The edit distance (insertions, deletions, substitutions) between two
/// names, case-insensitive.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, left) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, right) in b.iter().enumerate() {
            let cost = usize::from(left != right);
            current.push(
                (previous[j] + cost)
                    .min(previous[j + 1] + 1)
                    .min(current[j] + 1),
            );
        }
        previous = current;
    }
    previous[b.len()]
}

/// `**options` into [`ArrowOptions`], starting from `options`; a name that
/// is not an option is a `TypeError`, as for any Python function.
pub(crate) fn options_from_kwargs(
    py: Python<'_>,
    mut options: ArrowOptions,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<ArrowOptions> {
    let Some(kwargs) = kwargs else {
        return Ok(options);
    };
    for pair in [
        ["schema_sample_rows", "infer_schema_length"],
        ["on_mismatch", "strict"],
        ["header_row", "has_header"],
        ["dtypes", "schema_overrides"],
        ["table", "table_name"],
    ] {
        if kwargs.contains(pair[0])? && kwargs.contains(pair[1])? {
            return Err(PyTypeError::new_err(format!(
                "give {} or {}, not both (the second is another name for the first)",
                pair[0], pair[1]
            )));
        }
    }
    for (key, value) in kwargs.iter() {
        let key: String = key.extract()?;
        options = match key.as_str() {
            "header_row" => options.header(header(&value)?),
            // polars' has_header: False is header_row=None; True the
            // default header (the first row with a value).
            "has_header" => {
                if flag(&key, &value)? {
                    options
                } else {
                    options.header(Header::None)
                }
            }
            "skip_rows" => options.skip_rows(non_negative(&value, "skip_rows", "")?),
            "n_rows" => options.n_rows(if value.is_none() {
                None
            } else {
                Some(non_negative(&value, "n_rows", ", or None")?)
            }),
            "columns" => {
                if value.is_none() {
                    options
                } else {
                    options.columns(columns(py, &value)?)
                }
            }
            "schema_sample_rows" | "infer_schema_length" => {
                options.schema_sample_rows(sample_rows(&key, &value)?)
            }
            "dtypes" | "schema_overrides" => {
                if value.is_none() {
                    options
                } else {
                    let dtypes = value.cast::<PyDict>().map_err(|_| {
                        PyTypeError::new_err(format!("{key} must be a dict of column name to type"))
                    })?;
                    let mut pairs = Vec::with_capacity(dtypes.len());
                    for (name, column_type) in dtypes.iter() {
                        pairs.push((name.extract::<String>()?, dtype(&column_type)?));
                    }
                    options.dtypes(pairs)
                }
            }
            "strict" => options.strict(value.extract()?),
            "on_mismatch" => options.on_mismatch(
                value
                    .extract::<String>()
                    .ok()
                    .and_then(|name| OnMismatch::parse(&name))
                    .ok_or_else(|| {
                        choice_error("on_mismatch", "\"widen\", \"strict\" or \"null\"", &value)
                    })?,
            ),
            "on_error_value" => options.on_error_value(
                value
                    .extract::<String>()
                    .ok()
                    .and_then(|name| OnErrorValue::parse(&name))
                    .ok_or_else(|| {
                        choice_error("on_error_value", "\"null\" or \"strict\"", &value)
                    })?,
            ),
            "null_values" => {
                if value.is_none() {
                    options
                } else if value.is_instance_of::<PyString>() {
                    options.null_values([value.extract::<String>()?])
                } else {
                    options.null_values(value.extract::<Vec<String>>()?)
                }
            }
            "batch_size" => {
                let rows = non_negative(&value, "batch_size", "")?;
                if rows == 0 {
                    return Err(PyValueError::new_err("batch_size must be at least 1"));
                }
                options.batch_size(rows)
            }
            "issues_per_batch" => {
                options.issues_per_batch(non_negative(&value, "issues_per_batch", "")?)
            }
            "keep_rows_before_error" => options.keep_rows_before_error(value.extract()?),
            // Hand-made sheets (issue 26).
            "fill_merged" => options.fill_merged(flag(&key, &value)?),
            "skip_hidden_rows" => options.skip_hidden_rows(flag(&key, &value)?),
            "skip_hidden_columns" => options.skip_hidden_columns(flag(&key, &value)?),
            "drop_empty_rows" => options.drop_empty_rows(flag(&key, &value)?),
            "drop_empty_cols" => options.drop_empty_cols(flag(&key, &value)?),
            "stop_at_empty_row" => options.stop_at_empty_row(flag(&key, &value)?),
            // Tables and ranges.
            "range" => {
                if value.is_none() {
                    options.range(None)
                } else {
                    let text: String = value.extract().map_err(|_| {
                        PyTypeError::new_err(
                            "range must be a string such as \"B3:F100\" or \"Sheet1!B3:F100\"",
                        )
                    })?;
                    let range = text
                        .parse::<sheetstream::SheetRange>()
                        .map_err(|err| PyValueError::new_err(err.to_string()))?;
                    options.range(Some(range))
                }
            }
            "table" | "table_name" => {
                let name: Option<String> = value.extract().map_err(|_| {
                    PyTypeError::new_err(format!("{key} must be a table's name (str), or None"))
                })?;
                options.table(name)
            }
            "include_totals_row" => options.include_totals_row(value.extract()?),
            other => return Err(unknown_option(other)),
        };
    }
    if options.get_table().is_some() && options.get_range().is_some() {
        return Err(PyTypeError::new_err(
            "give table or range, not both (a table is read where it lies)",
        ));
    }
    Ok(options)
}

/// `schema_sample_rows` (or polars' `infer_schema_length`): a number of
/// rows (at least 1), or None for every row.
fn sample_rows(key: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    if value.is_none() {
        return Ok(ALL_ROWS);
    }
    let rows: usize = value.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{key} must be a number of rows, or None for every row"
        ))
    })?;
    if rows == 0 {
        return Err(PyValueError::new_err(format!(
            "{key} must be at least 1 (None infers the types from every row)"
        )));
    }
    Ok(rows)
}

/// A `ValueError` for a choice option given something else.
fn choice_error(key: &str, choices: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let given = value
        .repr()
        .map_or_else(|_| "that".to_owned(), |repr| repr.to_string());
    PyValueError::new_err(format!("{key} must be {choices}, not {given}"))
}

/// A boolean option (a `bool`, not any truthy value).
fn flag(key: &str, value: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{key} must be True or False, not {}",
            value.repr()?
        )));
    }
    value.extract()
}

/// `header_row`: "auto" (the header found past title rows), None (no
/// header), a 0-based row index, or a list of consecutive ones (a header
/// of several rows).
fn header(value: &Bound<'_, PyAny>) -> PyResult<Header> {
    if value.is_none() {
        return Ok(Header::None);
    }
    if let Ok(text) = value.extract::<String>() {
        if text == "auto" {
            return Ok(Header::Auto);
        }
        return Err(PyValueError::new_err(format!(
            "header_row must be \"auto\", None, a 0-based row index or a list of them, not {text:?}"
        )));
    }
    if let Ok(list) = value.cast::<pyo3::types::PyList>() {
        let mut rows = Vec::with_capacity(list.len());
        for item in list.iter() {
            rows.push(non_negative::<u32>(
                &item,
                "header_row",
                " (a list of 0-based row indices)",
            )?);
        }
        return match rows.as_slice() {
            [] => Err(PyValueError::new_err("header_row=[] names no row")),
            [row] => Ok(Header::Row(*row)),
            [first, .., last] if rows.windows(2).all(|pair| pair[1] == pair[0] + 1) => {
                Ok(Header::Rows {
                    first: *first,
                    last: *last,
                })
            }
            _ => Err(PyValueError::new_err(format!(
                "header_row={rows:?}: the header rows must be consecutive, as [2, 3]"
            ))),
        };
    }
    Ok(Header::Row(non_negative(
        value,
        "header_row",
        ", \"auto\" or None",
    )?))
}

/// A column type: a name (`"int64"`, `"float64"`, `"utf8"`, `"bool"`,
/// `"date"`, `"timestamp"`, `"time"`, `"duration"` and the aliases of
/// `ColumnType::parse`) or a Python type (`int`, `float`, `str`, `bool`,
/// `datetime.date`, `datetime.datetime`, `datetime.time`,
/// `datetime.timedelta`).
fn dtype(value: &Bound<'_, PyAny>) -> PyResult<ColumnType> {
    if let Ok(name) = value.extract::<String>() {
        return ColumnType::parse(&name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown column type {name:?}; the types are bool, int64, float64, utf8, date, timestamp, time, duration, null"
            ))
        });
    }
    if let Ok(class) = value.cast::<PyType>() {
        let module: String = class.getattr("__module__")?.extract()?;
        let name: String = class.getattr("__qualname__")?.extract()?;
        let column_type = match (module.as_str(), name.as_str()) {
            ("builtins", "bool") => Some(ColumnType::Boolean),
            ("builtins", "int") => Some(ColumnType::Int64),
            ("builtins", "float") => Some(ColumnType::Float64),
            ("builtins", "str") => Some(ColumnType::Utf8),
            ("datetime", "date") => Some(ColumnType::Date32),
            ("datetime", "datetime") => Some(ColumnType::Timestamp),
            ("datetime", "time") => Some(ColumnType::Time),
            ("datetime", "timedelta") => Some(ColumnType::Duration),
            _ => None,
        };
        if let Some(column_type) = column_type {
            return Ok(column_type);
        }
    }
    if let Some(column_type) = polars_dtype(value)? {
        return Ok(column_type);
    }
    Err(PyTypeError::new_err(format!(
        "a column type is a name such as \"int64\" or one of int, float, str, bool, date, datetime, time, timedelta; not {}",
        value.repr()?
    )))
}

/// A polars data type (the class, `pl.Int64`, or an instance,
/// `pl.Datetime("ms")`) as the column type of the same meaning: `Int64`,
/// `Float64`, `String` (`Utf8`), `Boolean`, `Date`, `Datetime`, `Time`,
/// `Duration`, `Null`. Another polars type (`Int32`, `Categorical`, ...)
/// is a `ValueError` saying to cast after reading; None for what is no
/// polars type.
fn polars_dtype(value: &Bound<'_, PyAny>) -> PyResult<Option<ColumnType>> {
    let class = match value.cast::<PyType>() {
        Ok(class) => class.clone(),
        Err(_) => value.get_type(),
    };
    let module: String = class.getattr("__module__")?.extract()?;
    if !module.starts_with("polars.") {
        return Ok(None);
    }
    let name: String = class.getattr("__qualname__")?.extract()?;
    let column_type = match name.as_str() {
        "Int64" => ColumnType::Int64,
        "Float64" => ColumnType::Float64,
        "String" | "Utf8" => ColumnType::Utf8,
        "Boolean" => ColumnType::Boolean,
        "Date" => ColumnType::Date32,
        "Datetime" => ColumnType::Timestamp,
        "Time" => ColumnType::Time,
        "Duration" => ColumnType::Duration,
        "Null" => ColumnType::Null,
        other => {
            return Err(PyValueError::new_err(format!(
                "polars' {other} has no column type of its own here: read the column as \
                 pl.Int64, pl.Float64 or pl.String and cast it (frame.with_columns(pl.col(..).cast(pl.{other})))"
            )));
        }
    };
    Ok(Some(column_type))
}

/// Whether the caller chose `batch_size`.
pub(crate) fn batch_size_given(options: Option<&Bound<'_, PyDict>>) -> PyResult<bool> {
    match options {
        Some(options) => options.contains("batch_size"),
        None => Ok(false),
    }
}

/// Columns up to which a read that ends in one table keeps the Arrow
/// layer's batch size.
const WIDE_SHEET_COLUMNS: usize = 64;

/// Rows per batch for a read that ends in one table (`to_arrow`,
/// `to_polars`, `to_pandas`, `read_excel`) of a table `columns` wide, when
/// the caller gave no `batch_size`; None keeps the Arrow layer's default.
///
/// Such a read holds the whole table anyway, so a batch's size bounds
/// nothing; but consumers keep one chunk per batch and column. A sheet of
/// 16,384 columns (cells at A1 and XFD1048576) in batches of 65,536 rows
/// made 16 x 16,384 chunks: 0.74 s and 190 MB in `polars.DataFrame` for a
/// table of nulls, against 0.14 s and 48 MB in one batch. So a sheet wider
/// than 64 columns gets 65,536 rows per batch for every 64 columns; a
/// narrower one keeps 65,536 rows, which lets the reader fill the next
/// batch while the consumer takes the last.
pub(crate) fn whole_table_batch_rows(columns: usize) -> Option<usize> {
    (columns > WIDE_SHEET_COLUMNS).then(|| {
        ArrowOptions::new()
            .get_batch_size()
            .saturating_mul(columns.div_ceil(WIDE_SHEET_COLUMNS))
    })
}

/// The sheet to read when a table or a range with a sheet is asked for:
/// `sheet` 0 (the default) is the table's or the range's sheet; any other
/// is read as given (and must be that sheet: the Arrow layer checks).
pub(crate) fn window_sheet<R>(
    py: Python<'_>,
    workbook: &sheetstream::Workbook<R>,
    sheet: SheetRef,
    options: &ArrowOptions,
) -> PyResult<SheetRef>
where
    R: std::io::Read + std::io::Seek + Clone + Send + Sync,
{
    if !matches!(sheet, SheetRef::Position(0)) {
        return Ok(sheet);
    }
    if let Some(name) = options.get_table() {
        let tables = py.detach(|| workbook.tables_shared()).or_raise(py)?;
        let table = sheetstream::Table::find(&tables, name).or_raise(py)?;
        return Ok(SheetRef::Position(table.sheet));
    }
    if let Some(sheet) = options.get_range().and_then(|range| range.sheet.clone()) {
        return Ok(SheetRef::Name(sheet));
    }
    Ok(sheet)
}
