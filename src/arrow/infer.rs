//! Column type inference from sampled cells, and the promotion of two
//! inferred types into one (for unions across sheets and files).

use super::convert::{MAX_EXACT_INTEGER, epoch_ms};
use super::options::ColumnType;
use crate::cell::Value;
use crate::date::{DateTimeKind, duration_ms};
use crate::number_format::FormatKind;

/// What the sampled cells of one column held.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ColumnSample {
    /// Cells seen, values or not (error cells and null values too): a
    /// column with any is one of the sheet's columns.
    cells: usize,
    booleans: usize,
    /// Whole numbers within 2^53 in a format that shows no fraction.
    whole_numbers: usize,
    /// Every other number.
    fractional_numbers: usize,
    texts: usize,
    /// Dates without a time of day (a whole serial in a format that is not
    /// a date-time one).
    dates: usize,
    date_times: usize,
    times: usize,
    durations: usize,
}

impl ColumnSample {
    /// Counts one cell that holds no typed value (an error cell, or a
    /// text among the null values): it makes the column one of the
    /// sheet's, and says nothing about the type.
    pub(crate) fn add_untyped(&mut self) {
        self.cells += 1;
    }

    /// Counts one sampled value; `format` is its style's number format
    /// kind. Error cells say nothing about the type.
    pub(crate) fn add(&mut self, value: Value<'_>, format: FormatKind) {
        self.cells += 1;
        match value {
            Value::Bool(_) => self.booleans += 1,
            Value::Number(number) => {
                if number.fract() == 0.0
                    && number.abs() <= MAX_EXACT_INTEGER
                    && format != FormatKind::Fractional
                {
                    self.whole_numbers += 1;
                } else {
                    self.fractional_numbers += 1;
                }
            }
            Value::Text(_) => self.texts += 1,
            Value::Error(_) => {}
            // By the kind the reader gave the value (the one the column
            // builders take it by), and for a date by whether it has a
            // time of day or a format that shows one.
            Value::DateTime(date) => match date.kind() {
                // A serial that stands for no date or time (negative, past
                // 9999) fits no date column: its text does.
                DateTimeKind::Date | DateTimeKind::Time if epoch_ms(date).is_none() => {
                    self.texts += 1
                }
                DateTimeKind::Duration if duration_ms(date.serial()).is_none() => self.texts += 1,
                DateTimeKind::Time => self.times += 1,
                DateTimeKind::Duration => self.durations += 1,
                DateTimeKind::Date => {
                    if date.serial().fract() == 0.0 && format != FormatKind::DateTime {
                        self.dates += 1;
                    } else {
                        self.date_times += 1;
                    }
                }
            },
        }
    }

    /// Whether the column had any cell in the sample.
    pub(crate) fn seen(&self) -> bool {
        self.cells > 0
    }

    /// The column's type, None when the sample held no value (an all-empty
    /// column, which becomes Null unless a union gives it another type).
    pub(crate) fn infer(&self) -> Option<ColumnType> {
        let numbers = self.whole_numbers + self.fractional_numbers;
        let calendar = self.dates + self.date_times;
        let clock = self.times + self.durations;
        let families = [self.booleans, numbers, self.texts, calendar, clock]
            .iter()
            .filter(|&&count| count > 0)
            .count();
        if families == 0 {
            return None;
        }
        // Values of more than one family (dates with times of day or
        // durations among them) have one type in common: their text.
        if families > 1 || self.texts > 0 {
            return Some(ColumnType::Utf8);
        }
        if self.booleans > 0 {
            return Some(ColumnType::Boolean);
        }
        if numbers > 0 {
            return Some(if self.fractional_numbers == 0 {
                ColumnType::Int64
            } else {
                ColumnType::Float64
            });
        }
        Some(if calendar > 0 {
            if self.date_times == 0 {
                ColumnType::Date32
            } else {
                ColumnType::Timestamp
            }
        } else if self.durations == 0 {
            ColumnType::Time
        } else {
            ColumnType::Duration
        })
    }
}

/// One type for two columns matched by name: the same type stays, Int64
/// and Float64 make Float64, Date32 and Timestamp make Timestamp, Time and
/// Duration make Duration, and anything else makes Utf8 (a calendar date
/// with a time of day or a duration too). None (all empty) takes the other
/// side's type. The type a sample of both columns' values would give.
pub(crate) fn promote(a: Option<ColumnType>, b: Option<ColumnType>) -> Option<ColumnType> {
    use ColumnType::*;
    let (a, b) = match (a, b) {
        (None, other) | (other, None) => return other,
        (Some(a), Some(b)) => (a, b),
    };
    Some(match (a, b) {
        _ if a == b => a,
        (Null, other) | (other, Null) => other,
        (Int64, Float64) | (Float64, Int64) => Float64,
        (Time, Duration) | (Duration, Time) => Duration,
        (Date32, Timestamp) | (Timestamp, Date32) => Timestamp,
        _ => Utf8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::date::{DateSystem, DateTime};

    fn infer(values: &[(Value<'_>, FormatKind)]) -> Option<ColumnType> {
        let mut sample = ColumnSample::default();
        for &(value, format) in values {
            sample.add(value, format);
        }
        sample.infer()
    }

    fn date(serial: f64) -> Value<'static> {
        Value::DateTime(DateTime::from_serial(serial, DateSystem::V1900))
    }

    fn clock(serial: f64, kind: DateTimeKind) -> Value<'static> {
        Value::DateTime(DateTime::from_serial(serial, DateSystem::V1900).with_kind(kind))
    }

    #[test]
    fn numbers_are_int64_only_when_whole_within_2_pow_53_and_not_formatted_with_a_fraction() {
        use FormatKind::*;
        assert_eq!(
            infer(&[
                (Value::Number(1.0), General),
                (Value::Number(-7.0), General)
            ]),
            Some(ColumnType::Int64)
        );
        assert_eq!(
            infer(&[(Value::Number(1.0), General), (Value::Number(1.5), General)]),
            Some(ColumnType::Float64)
        );
        assert_eq!(
            infer(&[(Value::Number(2.0), Fractional)]),
            Some(ColumnType::Float64)
        );
        assert_eq!(
            infer(&[(Value::Number(MAX_EXACT_INTEGER), General)]),
            Some(ColumnType::Int64)
        );
        assert_eq!(
            infer(&[(Value::Number(MAX_EXACT_INTEGER * 2.0), General)]),
            Some(ColumnType::Float64)
        );
    }

    #[test]
    fn mixed_families_are_utf8_and_errors_say_nothing() {
        use FormatKind::*;
        assert_eq!(
            infer(&[(Value::Number(1.0), General), (Value::Text("x"), General)]),
            Some(ColumnType::Utf8)
        );
        assert_eq!(
            infer(&[(Value::Bool(true), General), (Value::Number(1.0), General)]),
            Some(ColumnType::Utf8)
        );
        assert_eq!(
            infer(&[
                (Value::Error("#N/A"), General),
                (Value::Bool(false), General)
            ]),
            Some(ColumnType::Boolean)
        );
        assert_eq!(infer(&[(Value::Error("#N/A"), General)]), None);
        assert_eq!(infer(&[]), None);
        assert_eq!(
            infer(&[(date(45_000.0), Date), (Value::Number(3.0), General)]),
            Some(ColumnType::Utf8)
        );
    }

    #[test]
    fn dates_times_and_durations_follow_their_kinds_and_formats() {
        use DateTimeKind as K;
        use FormatKind::*;
        assert_eq!(infer(&[(date(45_000.0), Date)]), Some(ColumnType::Date32));
        assert_eq!(
            infer(&[(date(45_000.25), DateTime)]),
            Some(ColumnType::Timestamp)
        );
        // A whole serial in a date-time format is a date-time.
        assert_eq!(
            infer(&[(date(45_000.0), DateTime)]),
            Some(ColumnType::Timestamp)
        );
        // A time of day hidden by a date-only format is kept: Timestamp.
        assert_eq!(
            infer(&[(date(45_000.5), Date)]),
            Some(ColumnType::Timestamp)
        );
        assert_eq!(
            infer(&[(date(45_000.0), Date), (date(45_000.5), DateTime)]),
            Some(ColumnType::Timestamp)
        );
        assert_eq!(
            infer(&[(clock(0.5, K::Time), Time)]),
            Some(ColumnType::Time)
        );
        // A date-time under a time-only format (an `=NOW()` shown as
        // `h:mm`) keeps its date: a Timestamp, never a Time.
        assert_eq!(
            infer(&[
                (clock(45_449.959_819_560_18, K::Time), Time),
                (clock(45_450.25, K::Time), Time)
            ]),
            Some(ColumnType::Timestamp)
        );
        // Excel's fictitious 1900-02-29 fits no date column: its text.
        assert_eq!(
            infer(&[(date(60.0), Date), (date(61.0), Date)]),
            Some(ColumnType::Utf8)
        );
        assert_eq!(
            infer(&[(clock(1.5, K::Duration), Duration)]),
            Some(ColumnType::Duration)
        );
        assert_eq!(
            infer(&[
                (clock(0.5, K::Time), Time),
                (clock(1.5, K::Duration), Duration)
            ]),
            Some(ColumnType::Duration)
        );
        // Calendar dates with times of day or durations: no instant type
        // holds both; their text does.
        assert_eq!(
            infer(&[(clock(0.5, K::Time), Time), (date(45_000.0), Date)]),
            Some(ColumnType::Utf8)
        );
        assert_eq!(
            infer(&[
                (date(45_000.0), Date),
                (clock(10.63, K::Duration), Duration)
            ]),
            Some(ColumnType::Utf8)
        );
        // ISO 8601 cells in a General style: by whether they have a time of day.
        assert_eq!(
            infer(&[(date(45_000.0), General)]),
            Some(ColumnType::Date32)
        );
        assert_eq!(
            infer(&[(date(45_000.5), General)]),
            Some(ColumnType::Timestamp)
        );
    }

    #[test]
    fn promotion_follows_the_same_rules() {
        use ColumnType::*;
        assert_eq!(promote(Some(Int64), Some(Float64)), Some(Float64));
        assert_eq!(promote(None, Some(Date32)), Some(Date32));
        assert_eq!(promote(Some(Date32), Some(Timestamp)), Some(Timestamp));
        assert_eq!(promote(Some(Time), Some(Duration)), Some(Duration));
        assert_eq!(promote(Some(Date32), Some(Duration)), Some(Utf8));
        assert_eq!(promote(Some(Timestamp), Some(Time)), Some(Utf8));
        assert_eq!(promote(Some(Null), Some(Int64)), Some(Int64));
        assert_eq!(promote(Some(Boolean), Some(Int64)), Some(Utf8));
        assert_eq!(promote(Some(Utf8), Some(Utf8)), Some(Utf8));
        assert_eq!(promote(None, None), None);
    }
}
