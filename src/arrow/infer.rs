//! Column type inference from sampled cells, and the promotion of two
//! inferred types into one (for unions across sheets and files).

use super::convert::MAX_EXACT_INTEGER;
use super::options::ColumnType;
use crate::cell::Value;
use crate::number_format::FormatKind;

/// What the sampled cells of one column held.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ColumnSample {
    booleans: usize,
    /// Whole numbers within 2^53 in a format that shows no fraction.
    whole_numbers: usize,
    /// Every other number.
    fractional_numbers: usize,
    texts: usize,
    dates: usize,
    date_times: usize,
    times: usize,
    durations: usize,
}

impl ColumnSample {
    /// Counts one sampled value; `format` is its style's number format
    /// kind. Error cells and nulls say nothing about the type.
    pub(crate) fn add(&mut self, value: Value<'_>, format: FormatKind) {
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
            Value::DateTime(date) => match format {
                FormatKind::Date => self.dates += 1,
                FormatKind::Time => self.times += 1,
                FormatKind::Duration => self.durations += 1,
                FormatKind::DateTime => self.date_times += 1,
                // An ISO 8601 cell (`t="d"`) in a style that is not a date
                // format: a date when it has no time of day.
                FormatKind::General | FormatKind::Fractional => {
                    if date.serial().fract() == 0.0 {
                        self.dates += 1;
                    } else {
                        self.date_times += 1;
                    }
                }
            },
        }
    }

    /// The column's type, None when the sample held no value (an all-empty
    /// column, which becomes Null unless a union gives it another type).
    pub(crate) fn infer(&self) -> Option<ColumnType> {
        let numbers = self.whole_numbers + self.fractional_numbers;
        let date_family = self.dates + self.date_times + self.times + self.durations;
        let families = [self.booleans, numbers, self.texts, date_family]
            .iter()
            .filter(|&&count| count > 0)
            .count();
        if families == 0 {
            return None;
        }
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
        let only = |count: usize| count == date_family;
        Some(if only(self.dates) {
            ColumnType::Date32
        } else if only(self.times) {
            ColumnType::Time
        } else if only(self.durations) || only(self.durations + self.times) {
            ColumnType::Duration
        } else {
            ColumnType::Timestamp
        })
    }
}

/// One type for two columns matched by name: the same type stays, Int64
/// and Float64 make Float64, dates and times make the type a sample of
/// both would have made, and anything else makes Utf8. None (all empty)
/// takes the other side's type.
pub(crate) fn promote(a: Option<ColumnType>, b: Option<ColumnType>) -> Option<ColumnType> {
    use ColumnType::*;
    let (a, b) = match (a, b) {
        (None, other) | (other, None) => return other,
        (Some(a), Some(b)) => (a, b),
    };
    Some(match (a, b) {
        _ if a == b => a,
        (Int64, Float64) | (Float64, Int64) => Float64,
        (Time, Duration) | (Duration, Time) => Duration,
        (Date32 | Timestamp | Time | Duration, Date32 | Timestamp | Time | Duration) => Timestamp,
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
    fn dates_times_and_durations_follow_their_formats() {
        use FormatKind::*;
        assert_eq!(infer(&[(date(45_000.0), Date)]), Some(ColumnType::Date32));
        assert_eq!(
            infer(&[(date(45_000.25), DateTime)]),
            Some(ColumnType::Timestamp)
        );
        assert_eq!(
            infer(&[(date(45_000.0), Date), (date(45_000.5), DateTime)]),
            Some(ColumnType::Timestamp)
        );
        assert_eq!(infer(&[(date(0.5), Time)]), Some(ColumnType::Time));
        assert_eq!(infer(&[(date(1.5), Duration)]), Some(ColumnType::Duration));
        assert_eq!(
            infer(&[(date(0.5), Time), (date(1.5), Duration)]),
            Some(ColumnType::Duration)
        );
        assert_eq!(
            infer(&[(date(0.5), Time), (date(45_000.0), Date)]),
            Some(ColumnType::Timestamp)
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
        assert_eq!(promote(Some(Boolean), Some(Int64)), Some(Utf8));
        assert_eq!(promote(Some(Utf8), Some(Utf8)), Some(Utf8));
        assert_eq!(promote(None, None), None);
    }
}
