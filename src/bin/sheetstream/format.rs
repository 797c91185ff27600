//! How values are written as text: JSON strings and values, CSV fields,
//! numbers in their shortest round-trip form, dates in ISO 8601 or a
//! user's strftime-style pattern.

use std::fmt::Write as _;

use sheetstream::{CivilDateTime, Value};

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
    if magnitude == 0.0 || (1e-5..1e16).contains(&magnitude) {
        let _ = write!(out, "{value}");
    } else {
        let _ = write!(out, "{value:e}");
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
                if midnight {
                    let _ = write!(
                        out,
                        "{:04}-{:02}-{:02}",
                        civil.year(),
                        civil.month(),
                        civil.day()
                    );
                } else {
                    let _ = write!(out, "{civil}");
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
        Value::DateTime(date) => match date.to_civil() {
            Some(civil) => dates.write(out, civil),
            None => number(out, date.serial()),
        },
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
            match date.to_civil() {
                Some(civil) => {
                    dates.write(scratch, civil);
                    json_string(out, scratch);
                }
                None => {
                    number(scratch, date.serial());
                    out.extend_from_slice(scratch.as_bytes());
                }
            }
        }
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
    }
}
