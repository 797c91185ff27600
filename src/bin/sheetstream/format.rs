//! How values are written as text: JSON strings and values, CSV fields,
//! numbers in their shortest round-trip form, dates in ISO 8601 or a
//! user's strftime-style pattern.

use std::fmt::Write as _;

use sheetstream::{Cell, CivilDateTime, DateTime, DateTimeKind, NumberFormats, Value};

/// Appends `text` as a JSON string literal.
pub fn json_string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut copied = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        let escape: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[copied..at]);
        if escape.is_empty() {
            out.extend_from_slice(format!("\\u{byte:04x}").as_bytes());
        } else {
            out.extend_from_slice(escape);
        }
        copied = at + 1;
    }
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
}

/// Appends a number in its shortest form that reads back as the same
/// double: plain digits for everyday magnitudes, an exponent otherwise.
pub fn number(out: &mut String, value: f64) {
    let magnitude = value.abs();
    // Whole numbers (most cells): their digits, as `{}` writes them, without
    // going through the shortest-float search.
    if value.fract() == 0.0 && magnitude < 1e15 {
        if value.is_sign_negative() {
            out.push('-');
        }
        push_digits(out, magnitude as u64, 1);
        return;
    }
    if magnitude == 0.0 || (1e-5..1e16).contains(&magnitude) {
        let _ = write!(out, "{value}");
    } else {
        let _ = write!(out, "{value:e}");
    }
}

/// Appends `value` in decimal, with leading zeros up to `width` digits.
fn push_digits(out: &mut String, mut value: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for &digit in &digits[start.min(digits.len() - width)..] {
        out.push(char::from(digit));
    }
}

/// How date cells are written.
#[derive(Debug, Clone, Default)]
pub enum DateStyle {
    /// ISO 8601: `2024-03-01` for a date at midnight, else
    /// `2024-03-01T12:30:00` (with `.mmm` when there are milliseconds).
    #[default]
    Iso,
    /// A strftime-style pattern: `%Y %m %d %H %M %S %f` (milliseconds) and `%%`.
    Pattern(String),
}

impl DateStyle {
    /// Checks a pattern for unknown directives.
    pub fn pattern(pattern: &str) -> Result<DateStyle, String> {
        if pattern.is_empty() {
            return Err("an empty pattern would write every date as nothing".into());
        }
        let mut chars = pattern.chars();
        while let Some(ch) = chars.next() {
            if ch == '%' {
                match chars.next() {
                    Some('Y' | 'm' | 'd' | 'H' | 'M' | 'S' | 'f' | '%') => {}
                    Some(other) => {
                        return Err(format!(
                            "unknown date directive `%{other}` (known: %Y %m %d %H %M %S %f %%)"
                        ));
                    }
                    None => return Err("a date pattern ends with a lone `%`".into()),
                }
            }
        }
        Ok(DateStyle::Pattern(pattern.to_owned()))
    }

    /// Appends a civil date and time.
    pub fn write(&self, out: &mut String, civil: CivilDateTime) {
        match self {
            DateStyle::Iso => {
                let midnight = civil.hour() == 0
                    && civil.minute() == 0
                    && civil.second() == 0
                    && civil.millisecond() == 0;
                match u32::try_from(civil.year()) {
                    // What `{:04}-{:02}-{:02}` and `{civil}` write, digit by digit.
                    Ok(year) if year <= 9999 => {
                        push_digits(out, u64::from(year), 4);
                        out.push('-');
                        push_digits(out, u64::from(civil.month()), 2);
                        out.push('-');
                        push_digits(out, u64::from(civil.day()), 2);
                        if !midnight {
                            out.push('T');
                            push_digits(out, u64::from(civil.hour()), 2);
                            out.push(':');
                            push_digits(out, u64::from(civil.minute()), 2);
                            out.push(':');
                            push_digits(out, u64::from(civil.second()), 2);
                            if civil.millisecond() != 0 {
                                out.push('.');
                                push_digits(out, u64::from(civil.millisecond()), 3);
                            }
                        }
                    }
                    _ if midnight => {
                        let _ = write!(
                            out,
                            "{:04}-{:02}-{:02}",
                            civil.year(),
                            civil.month(),
                            civil.day()
                        );
                    }
                    _ => {
                        let _ = write!(out, "{civil}");
                    }
                }
            }
            DateStyle::Pattern(pattern) => {
                let mut chars = pattern.chars();
                while let Some(ch) = chars.next() {
                    if ch != '%' {
                        out.push(ch);
                        continue;
                    }
                    let _ = match chars.next() {
                        Some('Y') => write!(out, "{:04}", civil.year()),
                        Some('m') => write!(out, "{:02}", civil.month()),
                        Some('d') => write!(out, "{:02}", civil.day()),
                        Some('H') => write!(out, "{:02}", civil.hour()),
                        Some('M') => write!(out, "{:02}", civil.minute()),
                        Some('S') => write!(out, "{:02}", civil.second()),
                        Some('f') => write!(out, "{:03}", civil.millisecond()),
                        Some(other) => {
                            out.push(other);
                            Ok(())
                        }
                        None => Ok(()),
                    };
                }
            }
        }
    }
}

/// Appends a value as plain text (a CSV field): numbers in shortest form,
/// booleans as `TRUE`/`FALSE` as Excel writes them, errors as their code,
/// dates per `dates` (a date serial Excel could not show stays a number).
pub fn text(out: &mut String, value: Value<'_>, dates: &DateStyle) {
    match value {
        Value::Number(value) => number(out, value),
        Value::Text(text) | Value::Error(text) => out.push_str(text),
        Value::Bool(flag) => out.push_str(if flag { "TRUE" } else { "FALSE" }),
        Value::DateTime(date) => {
            date_text(out, date, dates);
        }
        // A kind of value this CLI does not know yet: as the library writes it.
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// Appends a date per `dates`, a time of day or a duration as its
/// `Display` writes it (`13:45:00`, `255:10:10`: `--date-format` is for
/// dates), a serial Excel could not show as its number. Says whether it
/// wrote a date or time (false: the number).
fn date_text(out: &mut String, date: DateTime, dates: &DateStyle) -> bool {
    match date.kind() {
        DateTimeKind::Date => match date.to_civil() {
            Some(civil) => {
                dates.write(out, civil);
                true
            }
            None => {
                number(out, date.serial());
                false
            }
        },
        DateTimeKind::Time | DateTimeKind::Duration => {
            let start = out.len();
            let _ = write!(out, "{date}");
            // `Display` writes the number, which has no `:`, when there is
            // no time to show.
            out[start..].contains(':')
        }
    }
}

/// Appends a cell as a CSV field: its value as [`text`] writes it, or with
/// `--formatted` (`formats`) its text as Excel shows it.
pub fn cell_text(
    out: &mut String,
    cell: &Cell<'_>,
    dates: &DateStyle,
    formats: Option<&NumberFormats>,
) {
    match formats {
        Some(formats) => cell.formatted_into(formats, out),
        None => text(out, cell.value(), dates),
    }
}

/// Appends a cell as a JSON value: as [`json_value`] writes it, or with
/// `--formatted` (`formats`) its text as Excel shows it, as a string.
pub fn cell_json(
    out: &mut Vec<u8>,
    cell: &Cell<'_>,
    dates: &DateStyle,
    formats: Option<&NumberFormats>,
    scratch: &mut String,
) {
    match formats {
        Some(formats) => {
            scratch.clear();
            cell.formatted_into(formats, scratch);
            json_string(out, scratch);
        }
        None => json_value(out, cell.value(), dates, scratch),
    }
}

/// Appends a value as JSON: numbers and booleans as themselves, text,
/// errors and dates as strings.
pub fn json_value(out: &mut Vec<u8>, value: Value<'_>, dates: &DateStyle, scratch: &mut String) {
    match value {
        Value::Number(value) => {
            scratch.clear();
            number(scratch, value);
            out.extend_from_slice(scratch.as_bytes());
        }
        Value::Bool(flag) => out.extend_from_slice(if flag { b"true" } else { b"false" }),
        Value::Text(text) | Value::Error(text) => json_string(out, text),
        Value::DateTime(date) => {
            scratch.clear();
            if date_text(scratch, date, dates) {
                json_string(out, scratch);
            } else {
                // A serial with no date or time to show: its number.
                out.extend_from_slice(scratch.as_bytes());
            }
        }
        other => json_string(out, &other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_shortest_and_round_trip() {
        for (value, expected) in [
            (1.0, "1"),
            (-17.5, "-17.5"),
            (0.1, "0.1"),
            (1e300, "1e300"),
            (1.5e-7, "1.5e-7"),
            (0.0, "0"),
        ] {
            let mut out = String::new();
            number(&mut out, value);
            assert_eq!(out, expected);
            assert_eq!(out.parse::<f64>().unwrap(), value);
        }
    }

    #[test]
    fn whole_numbers_and_dates_as_the_formatter_writes_them() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let value = match state % 4 {
                0 => (state % 2_000_001) as f64 - 1_000_000.0,
                1 => ((state >> 8) % 1_000_000_000_000_000) as f64,
                2 => -(((state >> 8) % 1_000_000) as f64) / 8.0,
                _ => f64::from_bits(state >> 2),
            };
            if !value.is_finite() {
                continue;
            }
            let mut out = String::new();
            number(&mut out, value);
            let magnitude = value.abs();
            let expected = if magnitude == 0.0 || (1e-5..1e16).contains(&magnitude) {
                format!("{value}")
            } else {
                format!("{value:e}")
            };
            assert_eq!(out, expected, "{value:?}");
            // The library's Display writes what the CSV writes.
            assert_eq!(out, Value::Number(value).to_string(), "{value:?}");
        }
        for (value, expected) in [
            (-0.0, "-0"),
            (1e15 - 1.0, "999999999999999"),
            (1e15, "1000000000000000"),
        ] {
            let mut out = String::new();
            number(&mut out, value);
            assert_eq!(out, expected);
        }
        for serial in [
            0.5,
            1.0,
            60.0,
            61.25,
            36526.0,
            40000.00069444445,
            2958465.999988426,
        ] {
            let civil = sheetstream::DateTime::from_serial(serial, sheetstream::DateSystem::V1900)
                .to_civil()
                .unwrap();
            let mut out = String::new();
            DateStyle::Iso.write(&mut out, civil);
            let midnight = civil.hour() == 0
                && civil.minute() == 0
                && civil.second() == 0
                && civil.millisecond() == 0;
            let expected = if midnight {
                format!(
                    "{:04}-{:02}-{:02}",
                    civil.year(),
                    civil.month(),
                    civil.day()
                )
            } else {
                format!("{civil}")
            };
            assert_eq!(out, expected, "{serial}");
            let date = sheetstream::DateTime::from_serial(serial, sheetstream::DateSystem::V1900);
            assert_eq!(out, Value::DateTime(date).to_string(), "{serial}");
        }
    }

    #[test]
    fn json_strings_escape_what_json_requires() {
        let mut out = Vec::new();
        json_string(&mut out, "a\"b\\c\nd\u{1}é");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"a\\\"b\\\\c\\nd\\u0001é\""
        );
    }

    #[test]
    fn date_patterns_are_checked() {
        assert!(DateStyle::pattern("%d/%m/%Y %H:%M").is_ok());
        assert!(DateStyle::pattern("%q").is_err());
        assert!(DateStyle::pattern("100%").is_err());
        assert!(DateStyle::pattern("").is_err());
    }
}
