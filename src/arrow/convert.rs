//! One cell value into one Arrow column: the column builders and the
//! conversions of the inference table.
//!
//! What fits each type is kept in step with inference, so that a column
//! inferred from any values takes them all, and what fits a type fits every
//! wider one: one read again per widened sheet suffices.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Date32Builder, DurationMillisecondBuilder, Float64Builder,
    Int64Builder, StringBuilder, Time32MillisecondBuilder, TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, NullArray};

use super::options::ColumnType;
use crate::cell::Value;
use crate::date::{CivilDateTime, DateSystem, DateTime, DateTimeKind, duration_ms};
use crate::text::write_number;

const MS_PER_DAY: i64 = 86_400_000;

/// Whole numbers up to this magnitude are exact in an `f64`; inference
/// makes a column `Int64` only when every sampled number is within it.
pub(crate) const MAX_EXACT_INTEGER: f64 = 9_007_199_254_740_992.0;

/// The builder of one output column.
pub(crate) enum ColumnBuilder {
    /// An all-empty column: nothing per row; its array is made at
    /// [`ColumnBuilder::finish`] from the batch's row count.
    Null,
    Boolean(BooleanBuilder),
    Int64(Int64Builder),
    Float64(Float64Builder),
    Utf8(StringBuilder),
    Date32(Date32Builder),
    Timestamp(TimestampMillisecondBuilder),
    Time(Time32MillisecondBuilder),
    Duration(DurationMillisecondBuilder),
}

/// Why a value did not go into its column (nothing was appended for it).
pub(crate) enum Refusal {
    /// An error cell (`#N/A`).
    ErrorValue,
    /// The value does not fit the column's type.
    DoesNotFit,
}

impl ColumnBuilder {
    pub(crate) fn new(column_type: ColumnType, capacity: usize) -> ColumnBuilder {
        match column_type {
            ColumnType::Null => ColumnBuilder::Null,
            ColumnType::Boolean => ColumnBuilder::Boolean(BooleanBuilder::with_capacity(capacity)),
            ColumnType::Int64 => ColumnBuilder::Int64(Int64Builder::with_capacity(capacity)),
            ColumnType::Float64 => ColumnBuilder::Float64(Float64Builder::with_capacity(capacity)),
            ColumnType::Utf8 => {
                ColumnBuilder::Utf8(StringBuilder::with_capacity(capacity, capacity * 8))
            }
            ColumnType::Date32 => ColumnBuilder::Date32(Date32Builder::with_capacity(capacity)),
            ColumnType::Timestamp => {
                ColumnBuilder::Timestamp(TimestampMillisecondBuilder::with_capacity(capacity))
            }
            ColumnType::Time => {
                ColumnBuilder::Time(Time32MillisecondBuilder::with_capacity(capacity))
            }
            ColumnType::Duration => {
                ColumnBuilder::Duration(DurationMillisecondBuilder::with_capacity(capacity))
            }
        }
    }

    pub(crate) fn append_null(&mut self) {
        match self {
            ColumnBuilder::Null => {}
            ColumnBuilder::Boolean(b) => b.append_null(),
            ColumnBuilder::Int64(b) => b.append_null(),
            ColumnBuilder::Float64(b) => b.append_null(),
            ColumnBuilder::Utf8(b) => b.append_null(),
            ColumnBuilder::Date32(b) => b.append_null(),
            ColumnBuilder::Timestamp(b) => b.append_null(),
            ColumnBuilder::Time(b) => b.append_null(),
            ColumnBuilder::Duration(b) => b.append_null(),
        }
    }

    /// The values and nulls appended so far (0 for a Null column).
    pub(crate) fn len(&self) -> usize {
        match self {
            ColumnBuilder::Null => 0,
            ColumnBuilder::Boolean(b) => b.len(),
            ColumnBuilder::Int64(b) => b.len(),
            ColumnBuilder::Float64(b) => b.len(),
            ColumnBuilder::Utf8(b) => b.len(),
            ColumnBuilder::Date32(b) => b.len(),
            ColumnBuilder::Timestamp(b) => b.len(),
            ColumnBuilder::Time(b) => b.len(),
            ColumnBuilder::Duration(b) => b.len(),
        }
    }

    /// Appends `n` nulls at once (the rows a sheet skips, the rows a
    /// column had no value in).
    pub(crate) fn append_nulls(&mut self, n: usize) {
        match self {
            ColumnBuilder::Null => {}
            ColumnBuilder::Boolean(b) => b.append_nulls(n),
            ColumnBuilder::Int64(b) => b.append_nulls(n),
            ColumnBuilder::Float64(b) => b.append_nulls(n),
            ColumnBuilder::Utf8(b) => b.append_nulls(n),
            ColumnBuilder::Date32(b) => b.append_nulls(n),
            ColumnBuilder::Timestamp(b) => b.append_nulls(n),
            ColumnBuilder::Time(b) => b.append_nulls(n),
            ColumnBuilder::Duration(b) => b.append_nulls(n),
        }
    }

    /// Appends `value`, or appends nothing and says why it did not fit.
    /// `scratch` is reused for text written from numbers and dates.
    /// Inlined into the row loop: the values that fit are appended in
    /// place; text written from other values and refusals are out of line.
    ///
    /// What fits follows what inference makes of the values, so that a
    /// column inferred from any values takes them all: dates (of kind
    /// `Date`) fit `Timestamp`, and `Date32` when they have no time of
    /// day; times of day fit `Time` and `Duration`; durations `Duration`.
    #[inline(always)]
    pub(crate) fn append(&mut self, value: Value<'_>, scratch: &mut String) -> Result<(), Refusal> {
        let fits = match (&mut *self, value) {
            (_, Value::Error(_)) => return Err(Refusal::ErrorValue),
            (ColumnBuilder::Utf8(b), Value::Text(text)) => {
                b.append_value(text);
                true
            }
            (ColumnBuilder::Utf8(b), value) => {
                append_written(b, value, scratch);
                true
            }
            (ColumnBuilder::Boolean(b), Value::Bool(flag)) => {
                b.append_value(flag);
                true
            }
            (ColumnBuilder::Float64(b), Value::Number(number)) => {
                b.append_value(number);
                true
            }
            (ColumnBuilder::Int64(b), Value::Number(number)) => match whole_number(number) {
                Some(whole) => {
                    b.append_value(whole);
                    true
                }
                None => false,
            },
            (ColumnBuilder::Date32(b), Value::DateTime(date))
                if date.kind() == DateTimeKind::Date && is_whole(date.serial()) =>
            {
                match epoch_ms(date) {
                    Some(ms) => {
                        b.append_value(ms.div_euclid(MS_PER_DAY) as i32);
                        true
                    }
                    None => false,
                }
            }
            (ColumnBuilder::Timestamp(b), Value::DateTime(date))
                if date.kind() == DateTimeKind::Date =>
            {
                match epoch_ms(date) {
                    Some(ms) => {
                        b.append_value(ms);
                        true
                    }
                    None => false,
                }
            }
            (ColumnBuilder::Time(b), Value::DateTime(date))
                if date.kind() == DateTimeKind::Time =>
            {
                match epoch_ms(date) {
                    Some(ms) => {
                        b.append_value(ms.rem_euclid(MS_PER_DAY) as i32);
                        true
                    }
                    None => false,
                }
            }
            (ColumnBuilder::Duration(b), Value::DateTime(date))
                if date.kind() != DateTimeKind::Date =>
            {
                match duration_ms(date.serial()) {
                    Some(ms) => {
                        b.append_value(ms);
                        true
                    }
                    None => false,
                }
            }
            _ => false,
        };
        if fits {
            Ok(())
        } else {
            Err(Refusal::DoesNotFit)
        }
    }

    /// Appends `value` when it is one of the common fits, which take no
    /// conversion beyond a check: text into `Utf8` (when `text` says no
    /// text is read as null), numbers into `Float64`, whole numbers into
    /// `Int64`, booleans into `Boolean`, dates of the common range
    /// ([`common_epoch_ms`]) into `Date32` (whole days) and `Timestamp`.
    /// Otherwise appends nothing and returns false, and the value takes
    /// [`ColumnBuilder::append`]'s way: what is appended is the same
    /// either way.
    #[inline(always)]
    pub(crate) fn append_common(&mut self, value: Value<'_>, text: bool) -> bool {
        match (self, value) {
            (ColumnBuilder::Utf8(b), Value::Text(value)) if text => b.append_value(value),
            (ColumnBuilder::Float64(b), Value::Number(number)) => b.append_value(number),
            (ColumnBuilder::Int64(b), Value::Number(number)) => match whole_number(number) {
                Some(whole) => b.append_value(whole),
                None => return false,
            },
            (ColumnBuilder::Boolean(b), Value::Bool(flag)) => b.append_value(flag),
            (ColumnBuilder::Date32(b), Value::DateTime(date))
                if date.kind() == DateTimeKind::Date =>
            {
                match common_epoch_day(date) {
                    Some(day) => b.append_value(day),
                    None => return false,
                }
            }
            (ColumnBuilder::Timestamp(b), Value::DateTime(date))
                if date.kind() == DateTimeKind::Date =>
            {
                match common_epoch_ms(date) {
                    Some(ms) => b.append_value(ms),
                    None => return false,
                }
            }
            _ => return false,
        }
        true
    }

    /// An error cell's code into a text column (which keeps it).
    pub(crate) fn append_code(&mut self, value: Value<'_>) -> bool {
        match (self, value) {
            (ColumnBuilder::Utf8(b), Value::Error(code)) => {
                b.append_value(code);
                true
            }
            _ => false,
        }
    }

    /// A new, empty builder of the same type with room for `rows` rows
    /// (and, for text, `text_bytes` bytes). An arrow builder that
    /// finished a batch starts the next from no capacity at all and grows
    /// by doubling, copying as it goes: about 13 reallocations per column
    /// per batch of 65,536 rows, 2,441 in the 1M x 10 sheet, whose copies
    /// were 1% of the Arrow path's instructions in callgrind.
    pub(crate) fn renewed(&self, rows: usize, text_bytes: usize) -> ColumnBuilder {
        match self {
            ColumnBuilder::Null => ColumnBuilder::Null,
            ColumnBuilder::Boolean(_) => ColumnBuilder::new(ColumnType::Boolean, rows),
            ColumnBuilder::Int64(_) => ColumnBuilder::new(ColumnType::Int64, rows),
            ColumnBuilder::Float64(_) => ColumnBuilder::new(ColumnType::Float64, rows),
            ColumnBuilder::Utf8(_) => {
                ColumnBuilder::Utf8(StringBuilder::with_capacity(rows, text_bytes))
            }
            ColumnBuilder::Date32(_) => ColumnBuilder::new(ColumnType::Date32, rows),
            ColumnBuilder::Timestamp(_) => ColumnBuilder::new(ColumnType::Timestamp, rows),
            ColumnBuilder::Time(_) => ColumnBuilder::new(ColumnType::Time, rows),
            ColumnBuilder::Duration(_) => ColumnBuilder::new(ColumnType::Duration, rows),
        }
    }

    /// Bytes of text appended so far (Utf8 columns; 0 for the others): a
    /// batch is cut before the 32-bit offsets of a string array could overflow.
    pub(crate) fn text_bytes(&self) -> usize {
        match self {
            ColumnBuilder::Utf8(b) => b.values_slice().len(),
            _ => 0,
        }
    }

    /// The column of the batch so far; `rows` is the batch's row count
    /// (the length of a Null column, which counts nothing itself).
    pub(crate) fn finish(&mut self, rows: usize) -> ArrayRef {
        match self {
            ColumnBuilder::Null => Arc::new(NullArray::new(rows)),
            ColumnBuilder::Boolean(b) => Arc::new(b.finish()),
            ColumnBuilder::Int64(b) => Arc::new(b.finish()),
            ColumnBuilder::Float64(b) => Arc::new(b.finish()),
            ColumnBuilder::Utf8(b) => Arc::new(b.finish()),
            ColumnBuilder::Date32(b) => Arc::new(b.finish()),
            ColumnBuilder::Timestamp(b) => Arc::new(b.finish()),
            ColumnBuilder::Time(b) => Arc::new(b.finish()),
            ColumnBuilder::Duration(b) => Arc::new(b.finish()),
        }
    }
}

/// A value other than text into a text column, written as the CSV writes it.
#[inline(never)]
fn append_written(builder: &mut StringBuilder, value: Value<'_>, scratch: &mut String) {
    scratch.clear();
    write_text(scratch, value);
    builder.append_value(scratch.as_str());
}

/// A whole number that an `i64` holds exactly, as an `i64`.
pub(crate) fn whole_number(number: f64) -> Option<i64> {
    // 2^63 is exact in an f64; every whole f64 below it in magnitude fits,
    // and converts exactly: it is whole when converting it back gives it.
    let whole = number as i64;
    (number.abs() < 9_223_372_036_854_775_808.0 && whole as f64 == number).then_some(whole)
}

/// Whether `number` is a whole number (`fract() == 0.0`, which without
/// SSE4.1 is a call of libm's `trunc` per cell): below 2^52 in magnitude
/// it is when converting it to an integer and back gives it; from 2^52 on
/// every finite double is.
#[inline(always)]
pub(crate) fn is_whole(number: f64) -> bool {
    if number.abs() < 4_503_599_627_370_496.0 {
        (number as i64) as f64 == number
    } else {
        number.is_finite()
    }
}

/// Milliseconds since 1970-01-01T00:00 of the calendar date and time a
/// date cell stands for ([`DateTime::to_civil`]); None when it stands for
/// none (negative serials, past 9999-12-31), nor for Excel's fictitious
/// 1900-02-29 (serial 60 of the 1900 system), a day no calendar type holds:
/// such a value does not fit a date column and keeps its text
/// (`1900-02-29`, as the CSV and `cells` write it). The common case is
/// inlined into the row loop; the calendar is out of line.
#[inline]
pub(crate) fn epoch_ms(date: DateTime) -> Option<i64> {
    match common_epoch_ms(date) {
        Some(ms) => Some(ms),
        None => calendar_epoch_ms(date),
    }
}

/// [`epoch_ms`] of the common case, without the calendar: a 1900-system
/// serial from 1900-03-01 on (counted from 1899-12-30, as the Unix
/// epoch's 25569 is) or any 1904-system serial, before 9999-12-31; the
/// same days and rounding as `to_civil`. None for the others (which the
/// calendar answers).
#[inline(always)]
fn common_epoch_ms(date: DateTime) -> Option<i64> {
    let serial = date.serial();
    let (first_day, epoch_day) = common_range(date.system());
    if !(first_day..2_950_000.0).contains(&serial) {
        return None;
    }
    // Positive and far below 2^52: truncation is `floor`, and a positive
    // number less its truncation is exact, so truncating and adding one
    // from a half up is `round` (without SSE4.1, `floor` and `round` are
    // libm calls; see the test against them).
    let whole = serial as i64;
    let fraction_ms = (serial - whole as f64) * MS_PER_DAY as f64;
    let truncated = fraction_ms as i64;
    let ms = truncated + i64::from(fraction_ms - truncated as f64 >= 0.5);
    Some((whole - epoch_day) * MS_PER_DAY + ms)
}

/// The days since 1970-01-01 of a whole serial in [`common_epoch_ms`]'s
/// range (what `epoch_ms(date).div_euclid(MS_PER_DAY)` gives for it, no
/// time of day to round); None for any other serial.
#[inline(always)]
fn common_epoch_day(date: DateTime) -> Option<i32> {
    let serial = date.serial();
    let (first_day, epoch_day) = common_range(date.system());
    let whole = serial as i64;
    // In the range a whole serial converts to itself; NaN is not in it.
    ((first_day..2_950_000.0).contains(&serial) && whole as f64 == serial)
        .then_some((whole - epoch_day) as i32)
}

/// The first serial of [`common_epoch_ms`]'s range, and the serial of
/// 1970-01-01, in a date system.
#[inline(always)]
fn common_range(system: DateSystem) -> (f64, i64) {
    match system {
        DateSystem::V1900 => (61.0, 25_569),
        DateSystem::V1904 => (0.0, 25_569 - 1_462),
    }
}

/// [`epoch_ms`] through the calendar: negative serials, 1900-01-01 to
/// 1900-02-28, and the serials past the fast path's range.
#[inline(never)]
fn calendar_epoch_ms(date: DateTime) -> Option<i64> {
    let civil = date.to_civil()?;
    if (civil.year(), civil.month(), civil.day()) == (1900, 2, 29) {
        return None;
    }
    Some(civil_epoch_ms(civil))
}

pub(crate) fn civil_epoch_ms(civil: CivilDateTime) -> i64 {
    let days = days_from_civil(
        i64::from(civil.year()),
        i64::from(civil.month()),
        i64::from(civil.day()),
    );
    days * MS_PER_DAY
        + i64::from(civil.hour()) * 3_600_000
        + i64::from(civil.minute()) * 60_000
        + i64::from(civil.second()) * 1_000
        + i64::from(civil.millisecond())
}

/// Days since 1970-01-01 of a proleptic Gregorian date (the days-from-civil
/// algorithm: years counted from March so that the leap day comes last).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Writes a value as the CSV writer (`sheetstream csv`) writes it: numbers
/// in their shortest round-trip form, `TRUE`/`FALSE`, error codes, dates,
/// times and durations as [`DateTime`]'s `Display` writes them, text as it is.
pub(crate) fn write_text(out: &mut String, value: Value<'_>) {
    match value {
        Value::Number(number) => {
            let _ = write_number(out, number);
        }
        Value::Text(text) | Value::Error(text) => out.push_str(text),
        Value::Bool(flag) => out.push_str(if flag { "TRUE" } else { "FALSE" }),
        // Dates, times of day and durations as their `Display` writes them.
        Value::DateTime(date) => {
            let _ = write!(out, "{date}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_date_path_agrees_with_the_calendar() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for system in [DateSystem::V1900, DateSystem::V1904] {
            for step in 0..200_000u64 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let serial = match step % 5 {
                    0 => (state % 2_958_466) as f64,
                    1 => (state % 3_000_000_000) as f64 / 1_000.0,
                    2 => 61.0 + (state % 1_000_000) as f64 / 1e6 - 0.5,
                    // Half a millisecond past a millisecond: where rounding
                    // by hand and `round` could part.
                    3 => {
                        (state % 100_000) as f64
                            + (((state >> 24) % 86_400_000) as f64 + 0.5) / MS_PER_DAY as f64
                    }
                    _ => (state % 100_000) as f64 + 0.999_999_99,
                };
                let date = DateTime::from_serial(serial, system);
                let slow = date
                    .to_civil()
                    .filter(|civil| (civil.year(), civil.month(), civil.day()) != (1900, 2, 29))
                    .map(civil_epoch_ms);
                assert_eq!(epoch_ms(date), slow, "{serial} {system:?}");
            }
        }
    }

    /// Every value through `append_common` (and, where it declines,
    /// `append`) gives the same column as every value through `append`:
    /// the common fits are a shortcut, never a different answer.
    #[test]
    fn the_common_fits_append_what_append_does() {
        let mut values = vec![
            Value::Text("north"),
            Value::Text(""),
            Value::Error("#N/A"),
            Value::Bool(true),
            Value::Bool(false),
        ];
        for number in [
            0.0,
            -0.0,
            3.0,
            -17.5,
            0.1,
            1e19,
            -9_007_199_254_740_993.0,
            f64::NAN,
            f64::INFINITY,
        ] {
            values.push(Value::Number(number));
        }
        let serials = [
            -1.0,
            0.0,
            0.5,
            1.0,
            59.0,
            60.0,
            60.5,
            61.0,
            61.25,
            25_569.0,
            45_352.0,
            45_352.5,
            45_352.999_999_99,
            2_949_999.0,
            2_950_000.0,
            2_958_465.0,
            2_958_466.0,
            1e300,
            f64::NAN,
            f64::INFINITY,
        ];
        for system in [DateSystem::V1900, DateSystem::V1904] {
            for kind in [
                DateTimeKind::Date,
                DateTimeKind::Time,
                DateTimeKind::Duration,
            ] {
                for serial in serials {
                    let date = DateTime::from_serial(serial, system).with_kind(kind);
                    values.push(Value::DateTime(date));
                }
            }
        }
        let types = [
            ColumnType::Boolean,
            ColumnType::Int64,
            ColumnType::Float64,
            ColumnType::Utf8,
            ColumnType::Date32,
            ColumnType::Timestamp,
            ColumnType::Time,
            ColumnType::Duration,
        ];
        let mut scratch = String::new();
        for ty in types {
            for text in [true, false] {
                let mut general = ColumnBuilder::new(ty, 0);
                let mut common = ColumnBuilder::new(ty, 0);
                let mut shortcuts = 0;
                for &value in &values {
                    let fits = general.append(value, &mut scratch).is_ok();
                    if common.append_common(value, text) {
                        assert!(fits, "{ty} took {value:?} only by the shortcut");
                        shortcuts += 1;
                    } else {
                        assert_eq!(common.append(value, &mut scratch).is_ok(), fits);
                    }
                    if !fits {
                        general.append_null();
                        common.append_null();
                    }
                }
                let rows = values.len();
                assert_eq!(
                    general.finish(rows).as_ref(),
                    common.finish(rows).as_ref(),
                    "{ty}"
                );
                // Each type but the two left to `append` has common fits.
                let expected = !matches!(ty, ColumnType::Time | ColumnType::Duration)
                    && (text || ty != ColumnType::Utf8);
                assert_eq!(shortcuts > 0, expected, "{ty} {text}");
            }
        }
    }

    #[test]
    fn dates_count_from_the_unix_epoch() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(days_from_civil(1900, 1, 1), -25_567);
        let date = |serial| DateTime::from_serial(serial, DateSystem::V1900);
        // Serial 25569 is 1970-01-01; .5 is noon.
        assert_eq!(epoch_ms(date(25_569.5)), Some(43_200_000));
        assert_eq!(
            epoch_ms(date(45_352.0)),
            Some(days_from_civil(2024, 3, 1) * MS_PER_DAY)
        );
        assert_eq!(epoch_ms(date(-1.0)), None);
        let date_1904 = DateTime::from_serial(0.0, DateSystem::V1904);
        assert_eq!(
            epoch_ms(date_1904),
            Some(days_from_civil(1904, 1, 1) * MS_PER_DAY)
        );
        assert_eq!(duration_ms(1.5), Some(129_600_000));
        assert_eq!(duration_ms(f64::NAN), None);
    }

    #[test]
    fn text_is_written_as_the_csv_writer_writes_it() {
        let text = |value| {
            let mut out = String::new();
            write_text(&mut out, value);
            out
        };
        assert_eq!(text(Value::Number(3.0)), "3");
        assert_eq!(text(Value::Number(-0.0)), "-0");
        assert_eq!(text(Value::Number(0.1)), "0.1");
        assert_eq!(text(Value::Number(1e20)), "1e20");
        assert_eq!(text(Value::Number(1.5e-7)), "1.5e-7");
        assert_eq!(text(Value::Bool(true)), "TRUE");
        let date = DateTime::from_serial(45_352.0, DateSystem::V1900);
        assert_eq!(text(Value::DateTime(date)), "2024-03-01");
        let noon = DateTime::from_serial(45_352.5, DateSystem::V1900);
        assert_eq!(text(Value::DateTime(noon)), "2024-03-01T12:00:00");
    }

    #[test]
    fn whole_numbers_are_told_as_fract_tells_them() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut numbers = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            -4_503_599_627_370_497.0,
            9_223_372_036_854_775_808.0,
            -9_223_372_036_854_775_808.0,
            1e300,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for _ in 0..10_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            numbers.push(f64::from_bits(state));
            numbers.push((state % 100_000) as f64 / 8.0);
        }
        for number in numbers {
            assert_eq!(is_whole(number), number.fract() == 0.0, "{number:e}");
            let fract_way = (number.fract() == 0.0 && number.abs() < 9_223_372_036_854_775_808.0)
                .then_some(number as i64);
            assert_eq!(whole_number(number), fract_way, "{number:e}");
        }
    }

    #[test]
    fn whole_numbers_fit_int64_exactly() {
        assert_eq!(whole_number(3.0), Some(3));
        assert_eq!(
            whole_number(-9_007_199_254_740_993.0),
            Some(-9_007_199_254_740_992)
        );
        assert_eq!(whole_number(0.5), None);
        assert_eq!(whole_number(1e19), None);
        assert_eq!(whole_number(f64::NAN), None);
    }
}
