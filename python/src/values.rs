//! Arrow columns as Python values, for `iter_rows`: float, int, str, bool,
//! `datetime.date`, `datetime.datetime`, `datetime.timedelta`,
//! `datetime.time`, None.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType, DurationSecondType,
    Float64Type, Int64Type, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDate, PyDateTime, PyDelta, PyTime, PyTuple};

/// The rows of a batch as tuples, in order.
pub(crate) fn batch_rows(py: Python<'_>, batch: &RecordBatch) -> PyResult<Vec<Py<PyTuple>>> {
    let columns = batch
        .columns()
        .iter()
        .map(|column| column_values(py, column))
        .collect::<PyResult<Vec<_>>>()?;
    let mut columns: Vec<_> = columns.into_iter().map(Vec::into_iter).collect();
    (0..batch.num_rows())
        .map(|_| {
            let row = columns
                .iter_mut()
                .map(|column| column.next().expect("every column has num_rows values"));
            Ok(PyTuple::new(py, row)?.unbind())
        })
        .collect()
}

/// A timestamp or duration column of any unit as its i64 values (the
/// same buffers), given its array types for seconds, milli-, micro- and
/// nanoseconds.
macro_rules! as_int64 {
    ($column:expr, $unit:expr, $second:ty, $milli:ty, $micro:ty, $nano:ty) => {{
        let column = $column;
        match $unit {
            TimeUnit::Second => column
                .as_primitive::<$second>()
                .reinterpret_cast::<Int64Type>(),
            TimeUnit::Millisecond => column
                .as_primitive::<$milli>()
                .reinterpret_cast::<Int64Type>(),
            TimeUnit::Microsecond => column
                .as_primitive::<$micro>()
                .reinterpret_cast::<Int64Type>(),
            TimeUnit::Nanosecond => column
                .as_primitive::<$nano>()
                .reinterpret_cast::<Int64Type>(),
        }
    }};
}

/// One column's values as Python objects.
fn column_values(py: Python<'_>, column: &ArrayRef) -> PyResult<Vec<Py<PyAny>>> {
    let length = column.len();
    let none = || py.None();
    // Each arm maps the valid slots with `$convert` and the null ones to None.
    macro_rules! map {
        ($array:expr, |$value:ident| $convert:expr) => {{
            let array = $array;
            (0..length)
                .map(|index| {
                    if array.is_null(index) {
                        Ok(none())
                    } else {
                        let $value = array.value(index);
                        $convert
                    }
                })
                .collect::<PyResult<Vec<_>>>()
        }};
    }
    match column.data_type() {
        DataType::Null => Ok((0..length).map(|_| none()).collect()),
        DataType::Float64 => map!(column.as_primitive::<Float64Type>(), |v| v.into_py_any(py)),
        DataType::Int64 => map!(column.as_primitive::<Int64Type>(), |v| v.into_py_any(py)),
        DataType::Boolean => map!(column.as_boolean(), |v| v.into_py_any(py)),
        DataType::Utf8 => map!(column.as_string::<i32>(), |v| v.into_py_any(py)),
        DataType::LargeUtf8 => map!(column.as_string::<i64>(), |v| v.into_py_any(py)),
        DataType::Utf8View => map!(column.as_string_view(), |v| v.into_py_any(py)),
        DataType::Date32 => map!(
            column.as_primitive::<arrow_array::types::Date32Type>(),
            |days| date(py, i64::from(days))
        ),
        DataType::Timestamp(unit, None) => {
            let per_second = units_per_second(unit);
            let values = as_int64!(
                column,
                unit,
                TimestampSecondType,
                TimestampMillisecondType,
                TimestampMicrosecondType,
                TimestampNanosecondType
            );
            map!(values, |v| datetime(py, v, per_second))
        }
        DataType::Duration(unit) => {
            let per_second = units_per_second(unit);
            let values = as_int64!(
                column,
                unit,
                DurationSecondType,
                DurationMillisecondType,
                DurationMicrosecondType,
                DurationNanosecondType
            );
            map!(values, |v| duration(py, v, per_second))
        }
        DataType::Time32(TimeUnit::Second) => {
            map!(column.as_primitive::<Time32SecondType>(), |v| time(
                py,
                i64::from(v),
                1
            ))
        }
        DataType::Time32(TimeUnit::Millisecond) => {
            map!(column.as_primitive::<Time32MillisecondType>(), |v| time(
                py,
                i64::from(v),
                1_000
            ))
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            map!(column.as_primitive::<Time64MicrosecondType>(), |v| time(
                py, v, 1_000_000
            ))
        }
        DataType::Time64(TimeUnit::Nanosecond) => {
            map!(column.as_primitive::<Time64NanosecondType>(), |v| time(
                py,
                v,
                1_000_000_000
            ))
        }
        other => Err(PyValueError::new_err(format!(
            "iter_rows cannot convert Arrow type {other} to Python values"
        ))),
    }
}

fn units_per_second(unit: &TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// Days since 1970-01-01 as (year, month, day), proleptic Gregorian
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u8;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    } as u8;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn out_of_range(what: &str, value: i64) -> PyErr {
    PyValueError::new_err(format!("{what} {value} is out of Python's range"))
}

fn date(py: Python<'_>, days: i64) -> PyResult<Py<PyAny>> {
    let (year, month, day) = civil_from_days(days);
    let year = i32::try_from(year).map_err(|_| out_of_range("date", days))?;
    Ok(PyDate::new(py, year, month, day)?.into_any().unbind())
}

fn datetime(py: Python<'_>, value: i64, per_second: i64) -> PyResult<Py<PyAny>> {
    let seconds = value.div_euclid(per_second);
    let fraction = value.rem_euclid(per_second);
    let micros = (i128::from(fraction) * 1_000_000 / i128::from(per_second)) as u32;
    let days = seconds.div_euclid(86_400);
    let second_of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let year = i32::try_from(year).map_err(|_| out_of_range("timestamp", value))?;
    Ok(PyDateTime::new(
        py,
        year,
        month,
        day,
        (second_of_day / 3_600) as u8,
        (second_of_day / 60 % 60) as u8,
        (second_of_day % 60) as u8,
        micros,
        None,
    )?
    .into_any()
    .unbind())
}

fn duration(py: Python<'_>, value: i64, per_second: i64) -> PyResult<Py<PyAny>> {
    let seconds = value.div_euclid(per_second);
    let micros =
        (i128::from(value.rem_euclid(per_second)) * 1_000_000 / i128::from(per_second)) as i32;
    let days =
        i32::try_from(seconds.div_euclid(86_400)).map_err(|_| out_of_range("duration", value))?;
    let seconds = seconds.rem_euclid(86_400) as i32;
    Ok(PyDelta::new(py, days, seconds, micros, true)?
        .into_any()
        .unbind())
}

fn time(py: Python<'_>, value: i64, per_second: i64) -> PyResult<Py<PyAny>> {
    let seconds = value.div_euclid(per_second);
    let micros =
        (i128::from(value.rem_euclid(per_second)) * 1_000_000 / i128::from(per_second)) as u32;
    let second_of_day = seconds.rem_euclid(86_400);
    Ok(PyTime::new(
        py,
        (second_of_day / 3_600) as u8,
        (second_of_day / 60 % 60) as u8,
        (second_of_day % 60) as u8,
        micros,
        None,
    )?
    .into_any()
    .unbind())
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-25_569), (1900, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(2_932_896), (9999, 12, 31));
    }
}
