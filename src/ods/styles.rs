//! Cell styles and data styles: what a cell's `table:style-name` says
//! about how its value is shown.
//!
//! An `.ods` cell names a cell style (`style:style style:family=
//! "table-cell"`, automatic in `content.xml` or common in `styles.xml`),
//! which names a data style (`number:number-style`, `number:date-style`,
//! `number:time-style`, `number:percentage-style`, `number:currency-style`,
//! `number:text-style`, `number:boolean-style`) directly or through its
//! parent styles. A data style is a sequence of parts (a number with so
//! many digits, a literal, a year, a month ...) and conditions mapping
//! values to other data styles. Each data style is turned here into the
//! Excel number format code that shows values the same way
//! ([`format_code`]), so that the neutral number formats (`src/format`)
//! render `.ods` cells as they render any other cell; [`build_styles`]
//! numbers the cell styles (0 is "no style", General) and hands the codes
//! to the neutral [`StylesBuilder`] under synthetic format ids.
//!
//! The value of an `.ods` cell never depends on its style (FORMAT-binary
//! section 6: a float with a date style is a number): the reader asks the
//! styles only how a date or time cell is shown.

use std::collections::HashMap;

use crate::date::DateSystem;
use crate::styles::{Styles, StylesBuilder};
use crate::xml;

/// The first format id given to the codes made from data styles: past the
/// built-in ids and the custom ids of `.xlsx` (164 on), so that no code
/// made here is mistaken for a built-in one.
const FIRST_FORMAT_ID: u32 = 100_000;

/// How deep a cell style's parents or a data style's conditions are
/// followed (a cycle ends there).
const MAX_STYLE_CHAIN: usize = 16;

/// A cell style as read: its name, parent and data style.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CellStyle {
    pub name: String,
    pub parent: Option<String>,
    pub data_style: Option<String>,
}

/// What kind of data style an element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum DataKind {
    #[default]
    Number,
    Percentage,
    Currency,
    Date,
    Time,
    Boolean,
    Text,
}

/// One part of a data style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// `number:number`.
    Number {
        decimals: Option<u32>,
        min_decimals: Option<u32>,
        min_integers: u32,
        grouping: bool,
        /// `number:display-factor`: 1000 shows thousands.
        factor_thousands: u32,
    },
    /// `number:scientific-number`.
    Scientific {
        decimals: u32,
        min_integers: u32,
        min_exponent: u32,
    },
    /// `number:fraction`.
    Fraction {
        min_integers: u32,
        min_numerator: u32,
        min_denominator: u32,
        denominator: Option<u32>,
    },
    /// `number:text` (and the text of `number:currency-symbol`).
    Text(String),
    /// `number:text-content`: the cell's text.
    TextContent,
    Year {
        long: bool,
    },
    Month {
        long: bool,
        textual: bool,
    },
    Day {
        long: bool,
    },
    DayOfWeek {
        long: bool,
    },
    Hours {
        long: bool,
    },
    Minutes {
        long: bool,
    },
    Seconds {
        long: bool,
        decimals: u32,
    },
    AmPm,
}

/// A data style as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DataStyle {
    pub name: String,
    pub kind: DataKind,
    pub parts: Vec<Part>,
    /// `style:map`: a condition (`value()>=0`) and the data style it
    /// applies.
    pub maps: Vec<(String, String)>,
    /// `number:truncate-on-overflow="false"` on a time style: hours
    /// counted past 24 (a duration).
    pub elapsed: bool,
    /// `style:text-properties fo:color`, when red.
    pub red: bool,
}

/// A literal in a format code: quoted, a `"` in it escaped.
fn push_literal(text: &str, out: &mut String) {
    if text.is_empty() {
        return;
    }
    if text.contains('"') {
        for ch in text.chars() {
            out.push('\\');
            out.push(ch);
        }
    } else {
        out.push('"');
        out.push_str(text);
        out.push('"');
    }
}

/// The integer digits of a number: `min` zeros, with `#,##` before them
/// when grouped (at least four places, so that the separator shows).
fn push_integer_digits(min: u32, grouping: bool, out: &mut String) {
    let min = min.min(64) as usize;
    if !grouping {
        if min == 0 {
            out.push('#');
        } else {
            out.extend(std::iter::repeat_n('0', min));
        }
        return;
    }
    let places = min.max(4);
    for place in (0..places).rev() {
        out.push(if place < min { '0' } else { '#' });
        if place == 3 {
            out.push(',');
        }
    }
}

/// The code of one data style's own parts (no conditions).
fn section_code(style: &DataStyle) -> String {
    let mut out = String::new();
    if style.red {
        out.push_str("[Red]");
    }
    // A time style counting past 24 hours brackets its first unit.
    let mut bracket_next_unit = style.kind == DataKind::Time && style.elapsed;
    for part in &style.parts {
        match part {
            Part::Number {
                decimals,
                min_decimals,
                min_integers,
                grouping,
                factor_thousands,
            } => {
                let Some(decimals) = decimals else {
                    out.push_str("General");
                    continue;
                };
                push_integer_digits(*min_integers, *grouping, &mut out);
                let decimals = (*decimals).min(30);
                if decimals > 0 {
                    out.push('.');
                    let zeros = min_decimals.unwrap_or(decimals).min(decimals);
                    out.extend(std::iter::repeat_n('0', zeros as usize));
                    out.extend(std::iter::repeat_n('#', (decimals - zeros) as usize));
                }
                out.extend(std::iter::repeat_n(
                    ',',
                    (*factor_thousands).min(4) as usize,
                ));
            }
            Part::Scientific {
                decimals,
                min_integers,
                min_exponent,
            } => {
                out.extend(std::iter::repeat_n(
                    '0',
                    (*min_integers).clamp(1, 30) as usize,
                ));
                if *decimals > 0 {
                    out.push('.');
                    out.extend(std::iter::repeat_n('0', (*decimals).min(30) as usize));
                }
                out.push_str("E+");
                out.extend(std::iter::repeat_n(
                    '0',
                    (*min_exponent).clamp(1, 4) as usize,
                ));
            }
            Part::Fraction {
                min_integers,
                min_numerator,
                min_denominator,
                denominator,
            } => {
                // The whole part: `#` (shown when not zero) or that many
                // zeros.
                if *min_integers == 0 {
                    out.push('#');
                } else {
                    out.extend(std::iter::repeat_n('0', (*min_integers).min(30) as usize));
                }
                out.push(' ');
                out.extend(std::iter::repeat_n(
                    '?',
                    (*min_numerator).clamp(1, 8) as usize,
                ));
                out.push('/');
                match denominator {
                    Some(denominator) => out.push_str(&denominator.to_string()),
                    None => out.extend(std::iter::repeat_n(
                        '?',
                        (*min_denominator).clamp(1, 8) as usize,
                    )),
                }
            }
            Part::Text(text) => {
                if style.kind == DataKind::Percentage && text.contains('%') {
                    // The percent sign scales the value: it is the
                    // format's operator, not a literal.
                    for (i, piece) in text.split('%').enumerate() {
                        if i > 0 {
                            out.push('%');
                        }
                        push_literal(piece, &mut out);
                    }
                } else {
                    push_literal(text, &mut out);
                }
            }
            Part::TextContent => out.push('@'),
            Part::Year { long } => out.push_str(if *long { "yyyy" } else { "yy" }),
            Part::Month { long, textual } => out.push_str(match (textual, long) {
                (true, true) => "mmmm",
                (true, false) => "mmm",
                (false, true) => "mm",
                (false, false) => "m",
            }),
            Part::Day { long } => out.push_str(if *long { "dd" } else { "d" }),
            Part::DayOfWeek { long } => out.push_str(if *long { "dddd" } else { "ddd" }),
            Part::Hours { long } | Part::Minutes { long } | Part::Seconds { long, .. } => {
                let unit = match part {
                    Part::Hours { .. } => "h",
                    Part::Minutes { .. } => "m",
                    _ => "s",
                };
                let token = if *long {
                    unit.repeat(2)
                } else {
                    unit.to_owned()
                };
                if bracket_next_unit {
                    out.push('[');
                    out.push_str(&token);
                    out.push(']');
                    bracket_next_unit = false;
                } else {
                    out.push_str(&token);
                }
                if let Part::Seconds { decimals, .. } = part
                    && *decimals > 0
                {
                    out.push('.');
                    out.extend(std::iter::repeat_n('0', (*decimals).min(3) as usize));
                }
            }
            Part::AmPm => out.push_str("AM/PM"),
        }
    }
    out
}

/// The Excel condition of a `style:map` condition (`value()>=0`).
fn condition(text: &str) -> Option<String> {
    let rest = text.trim().strip_prefix("value()")?.trim();
    let (operator, number) = ["<=", ">=", "!=", "<", ">", "="]
        .iter()
        .find_map(|op| rest.strip_prefix(op).map(|number| (*op, number.trim())))?;
    number.parse::<f64>().ok()?;
    let operator = if operator == "!=" { "<>" } else { operator };
    Some(format!("{operator}{number}"))
}

/// The Excel number format code that shows values as `style` does, its
/// conditions (`style:map`) as sections; None for a style that shows
/// numbers as General does (a boolean style, or none at all).
pub(crate) fn format_code(style: &DataStyle, all: &HashMap<&str, &DataStyle>) -> Option<String> {
    code_of(style, all, 0)
}

fn code_of(style: &DataStyle, all: &HashMap<&str, &DataStyle>, depth: usize) -> Option<String> {
    if style.kind == DataKind::Boolean || depth > MAX_STYLE_CHAIN {
        return None;
    }
    let own = section_code(style);
    if style.maps.is_empty() {
        return (!own.is_empty() && own != "General").then_some(own);
    }
    let mapped: Vec<(String, String)> = style
        .maps
        .iter()
        .filter_map(|(test, name)| {
            let target = all.get(name.as_str())?;
            let code = code_of(target, all, depth + 1).unwrap_or_else(|| "General".to_owned());
            Some((condition(test)?, code))
        })
        .collect();
    let own = if own.is_empty() {
        "General".to_owned()
    } else {
        own
    };
    let code = match mapped.as_slice() {
        [] => own,
        // LibreOffice's own pairs: `>=0` (or `>0`) then the negative
        // section, and `>0`, `<0`, then zero.
        [(first, positive)] if first == ">=0" || first == ">0" => format!("{positive};{own}"),
        [(first, positive), (second, negative)] if first == ">0" && second == "<0" => {
            format!("{positive};{negative};{own}")
        }
        sections => {
            let mut code = String::new();
            for (test, section) in sections.iter().take(2) {
                code.push_str(&format!("[{test}]{section};"));
            }
            code.push_str(&own);
            code
        }
    };
    Some(code)
}

/// Cell style names to style indexes, for the scanner: index 0 is no
/// style; each cell style read has the index of its place plus one.
#[derive(Debug, Clone, Default)]
pub(crate) struct StyleNames {
    indexes: HashMap<Box<[u8]>, u32>,
    /// The style of a cell that names none and whose row and column name
    /// no default: the `Default` style, when there is one.
    default: u32,
}

impl StyleNames {
    /// The index of the style named `raw` (an attribute's raw value);
    /// 0 for a name no style has.
    #[inline]
    pub(crate) fn index(&self, raw: &[u8]) -> u32 {
        if let Some(&index) = self.indexes.get(raw) {
            return index;
        }
        if raw.contains(&b'&') {
            return xml::decode_owned(raw, false)
                .ok()
                .and_then(|name| self.indexes.get(name.as_bytes()).copied())
                .unwrap_or(0);
        }
        0
    }

    /// The style of cells that name none.
    #[inline]
    pub(crate) fn default_index(&self) -> u32 {
        self.default
    }
}

/// Numbers the cell styles and builds the neutral styles from their data
/// styles: the one place `.ods` styles become number formats.
pub(crate) fn build_styles(
    cell_styles: &[CellStyle],
    data_styles: &[DataStyle],
    date_system: DateSystem,
) -> (Styles, StyleNames) {
    let data: HashMap<&str, &DataStyle> = data_styles
        .iter()
        .map(|style| (style.name.as_str(), style))
        .collect();
    let by_name: HashMap<&str, &CellStyle> = cell_styles
        .iter()
        .map(|style| (style.name.as_str(), style))
        .collect();
    let mut builder = StylesBuilder::new();
    // Index 0: no style.
    builder.cell_style(0);
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut names = StyleNames::default();
    for (position, style) in cell_styles.iter().enumerate() {
        let index = position as u32 + 1;
        // The first definition of a name wins (automatic styles are read
        // before common ones).
        names
            .indexes
            .entry(style.name.as_bytes().into())
            .or_insert(index);
        let code = data_style_of(style, &by_name)
            .and_then(|name| data.get(name))
            .and_then(|data_style| format_code(data_style, &data));
        match code {
            None => builder.cell_style(0),
            Some(code) => {
                let next = FIRST_FORMAT_ID + ids.len() as u32;
                let id = *ids.entry(code.clone()).or_insert_with(|| {
                    builder.custom_format(next, code);
                    next
                });
                builder.cell_style(id);
            }
        }
    }
    names.default = names.index(b"Default");
    (builder.finish(date_system), names)
}

/// The data style a cell style shows values with: its own, or its
/// nearest parent's.
fn data_style_of<'s>(
    style: &'s CellStyle,
    by_name: &HashMap<&str, &'s CellStyle>,
) -> Option<&'s str> {
    let mut current = style;
    for _ in 0..MAX_STYLE_CHAIN {
        if let Some(name) = &current.data_style {
            return Some(name);
        }
        current = by_name.get(current.parent.as_deref()?)?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(decimals: u32, grouping: bool) -> Part {
        Part::Number {
            decimals: Some(decimals),
            min_decimals: None,
            min_integers: 1,
            grouping,
            factor_thousands: 0,
        }
    }

    fn style(name: &str, kind: DataKind, parts: Vec<Part>) -> DataStyle {
        DataStyle {
            name: name.into(),
            kind,
            parts,
            ..DataStyle::default()
        }
    }

    fn code(style: &DataStyle, others: &[DataStyle]) -> Option<String> {
        let all: HashMap<&str, &DataStyle> = others
            .iter()
            .chain([style])
            .map(|s| (s.name.as_str(), s))
            .collect();
        format_code(style, &all)
    }

    #[test]
    fn data_styles_become_the_format_codes_that_show_the_same() {
        let fixed = style("N1", DataKind::Number, vec![number(2, true)]);
        assert_eq!(code(&fixed, &[]).as_deref(), Some("#,##0.00"));
        let percent = style(
            "N2",
            DataKind::Percentage,
            vec![number(1, false), Part::Text("%".into())],
        );
        assert_eq!(code(&percent, &[]).as_deref(), Some("0.0%"));
        let date = style(
            "N3",
            DataKind::Date,
            vec![
                Part::Year { long: true },
                Part::Text("-".into()),
                Part::Month {
                    long: true,
                    textual: false,
                },
                Part::Text("-".into()),
                Part::Day { long: true },
            ],
        );
        assert_eq!(code(&date, &[]).as_deref(), Some(r#"yyyy"-"mm"-"dd"#));
        let mut elapsed = style(
            "N4",
            DataKind::Time,
            vec![
                Part::Hours { long: false },
                Part::Text(":".into()),
                Part::Minutes { long: true },
            ],
        );
        elapsed.elapsed = true;
        assert_eq!(code(&elapsed, &[]).as_deref(), Some(r#"[h]":"mm"#));
        let currency = style(
            "N5",
            DataKind::Currency,
            vec![
                number(2, true),
                Part::Text(" ".into()),
                Part::Text("€".into()),
            ],
        );
        assert_eq!(code(&currency, &[]).as_deref(), Some(r#"#,##0.00" ""€""#));
        let general = style(
            "N0",
            DataKind::Number,
            vec![Part::Number {
                decimals: None,
                min_decimals: None,
                min_integers: 1,
                grouping: false,
                factor_thousands: 0,
            }],
        );
        assert_eq!(code(&general, &[]), None);
        let fraction = style(
            "N8",
            DataKind::Number,
            vec![Part::Fraction {
                min_integers: 0,
                min_numerator: 1,
                min_denominator: 2,
                denominator: None,
            }],
        );
        assert_eq!(code(&fraction, &[]).as_deref(), Some("# ?/??"));
        let boolean = style("N6", DataKind::Boolean, vec![]);
        assert_eq!(code(&boolean, &[]), None);
    }

    #[test]
    fn a_negative_style_mapped_from_a_positive_one_is_two_sections() {
        let positive = style("N7P0", DataKind::Number, vec![number(2, false)]);
        let mut negative = style(
            "N7",
            DataKind::Number,
            vec![Part::Text("-".into()), number(2, false)],
        );
        negative.red = true;
        negative.maps.push(("value()>=0".into(), "N7P0".into()));
        assert_eq!(
            code(&negative, &[positive]).as_deref(),
            Some(r#"0.00;[Red]"-"0.00"#)
        );
    }

    #[test]
    fn cell_styles_are_numbered_and_inherit_their_parents_data_style() {
        let cell_styles = vec![
            CellStyle {
                name: "Default".into(),
                ..CellStyle::default()
            },
            CellStyle {
                name: "Dated".into(),
                parent: Some("Default".into()),
                data_style: Some("N3".into()),
            },
            CellStyle {
                name: "ce1".into(),
                parent: Some("Dated".into()),
                data_style: None,
            },
        ];
        let data_styles = vec![style(
            "N3",
            DataKind::Date,
            vec![
                Part::Year { long: true },
                Part::Month {
                    long: true,
                    textual: false,
                },
            ],
        )];
        let (styles, names) = build_styles(&cell_styles, &data_styles, DateSystem::V1900);
        assert_eq!(names.index(b"Default"), 1);
        assert_eq!(names.index(b"ce1"), 3);
        assert_eq!(names.index(b"nope"), 0);
        assert_eq!(names.default_index(), 1);
        assert!(styles.date_kind(1).is_none());
        assert!(styles.date_kind(2).is_some());
        assert!(styles.date_kind(3).is_some());
        assert_eq!(styles.number_formats().for_style(3).code(), "yyyymm");
    }
}
