//! Cell text as Excel shows it: number format codes parsed once, rendered
//! into a caller's buffer.
//!
//! The format language is ECMA-376 Part 1, 18.8.31, as Excel implements it:
//!
//! - up to four sections, `positive;negative;zero;text`, or conditions
//!   (`[<=9999999]###-####;(###) ###-####`);
//! - digit placeholders `0 # ?`, the decimal point, thousands grouping
//!   (`#,##0`) and scaling by trailing commas (`0.0,,` shows millions),
//!   percent, scientific (`0.00E+00`, engineering `##0.0E+0`), fractions
//!   (`# ?/?`, `# ??/16`);
//! - literal text: quotes, `\x`, `_x` (a space as wide as `x`, here one
//!   space), `*x` (a fill, here `x` once), `[$€-407]` (the symbol shows;
//!   the locale id changes nothing), colors and other modifiers dropped;
//! - `@`, the text section;
//! - dates and times: `y yy yyyy`, `m mm mmm mmmm mmmmm` (a month, or
//!   minutes after an hour or before a second), `d dd ddd dddd`, `h hh`,
//!   `s ss`, `.0`-`.000` fractional seconds, `AM/PM`, `A/P`, elapsed `[h]
//!   [mm] [ss]`;
//! - locales: every text is en-US. Month and day names are English and
//!   the digits, decimal point and thousands separator are `0-9 . ,`
//!   whatever locale a code names (`[$-407]d. mmmm yyyy` shows
//!   `1. March 2024`, `[$€-407]` shows the `€` only); the system formats
//!   show as Excel's en-US ones: `[$-F800]` (system long date, also
//!   `[$-x-sysdate]`) as `dddd, mmmm d, yyyy` (`Friday, March 1, 2024`),
//!   `[$-F400]` (system time, also `[$-x-systime]`) as `h:mm:ss AM/PM`,
//!   whatever follows them; calendar and numeral modifiers (`B2`,
//!   `[DBNum1]`, `[$-ja-JP-x-gannen]`) change nothing;
//! - `General` (see [`general`]) and the built-in format ids as Excel
//!   shows them in the en-US locale (ids 27-36 and 50-58, the East Asian
//!   date formats, show as `m/d/yyyy`).
//!
//! Where Excel shows `####` (a date before 1900 or after 9999, a negative
//! time) the number shows as General instead, so the value is not lost.
//! Format codes come from the file: parsing never fails and never panics,
//! and a rendered text is bounded by the code's length (codes past 1024
//! bytes read as General).
//!
//! The files: `parse.rs` reads a code into at most four sections of tokens
//! (never fails; codes past 1,024 bytes are General); `decimal.rs` a number's
//! 15 significant digits on the stack, rounded half away from zero;
//! `numbers.rs` digit placeholders, grouping, scaling, scientific and
//! fractions; `dates.rs` dates, times and elapsed time; `general.rs` General
//! in 11 characters. Rendering appends to the caller's `String` and allocates
//! nothing else; the reader does not render, so the plain path is unchanged.

mod dates;
mod decimal;
mod general;
mod numbers;
mod parse;

use std::sync::Arc;

use crate::cell::{Cell, Value};
use crate::date::DateSystem;

pub(crate) use parse::MAX_CODE_BYTES;
use parse::{Parsed, Section, SectionKind, Token};

/// One number format, parsed: renders a value as Excel shows it.
///
/// ```
/// use sheetstream::NumberFormat;
///
/// let mut text = String::new();
/// NumberFormat::parse("00000").write_number(501.0, &mut text);
/// assert_eq!(text, "00501");
/// text.clear();
/// NumberFormat::parse("$#,##0.00").write_number(1234.5, &mut text);
/// assert_eq!(text, "$1,234.50");
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NumberFormat {
    code: String,
    parsed: Parsed,
}

impl NumberFormat {
    /// General, Excel's default format.
    pub const GENERAL: NumberFormat = NumberFormat {
        code: String::new(),
        parsed: Parsed {
            sections: Vec::new(),
            literals: String::new(),
        },
    };

    /// Parses a format code (XML entities already decoded). Never fails:
    /// anything a code holds is read as something, as Excel reads it or
    /// as literal text.
    pub fn parse(code: &str) -> NumberFormat {
        NumberFormat {
            code: code.to_owned(),
            parsed: parse::parse(system_format(code).unwrap_or(code)),
        }
    }

    /// The format of a built-in id (`numFmtId` below 164 with no
    /// `numFmt` of its own), as Excel shows it in the en-US locale; ids
    /// with no format are General.
    pub fn builtin(id: u32) -> NumberFormat {
        NumberFormat::parse(builtin_code(id))
    }

    /// The format code as written (empty for General).
    pub fn code(&self) -> &str {
        &self.code
    }

    /// Appends `number` as this format shows it, in the 1900 date system.
    pub fn write_number(&self, number: f64, out: &mut String) {
        self.write_number_in(number, DateSystem::V1900, out);
    }

    /// Appends `number` as this format shows it; a date counts its serial
    /// in `system`.
    pub fn write_number_in(&self, number: f64, system: DateSystem, out: &mut String) {
        let sections = &self.parsed.sections;
        if !number.is_finite() {
            out.push_str("#NUM!");
            return;
        }
        let Some((section, negative_sign)) = self.section_for(number) else {
            general::write_general(number, out);
            return;
        };
        let literals = self.parsed.literals.as_str();
        if section.kind == SectionKind::Date {
            // A negative number in a date section has no date to show.
            let serial = if negative_sign { -1.0 } else { number.abs() };
            let mark = out.len();
            if !dates::write_date(section, literals, serial, system, out) {
                out.truncate(mark);
                general::write_general(number, out);
            }
            return;
        }
        if sections.len() == 1 && section.has_text && !section.has_digits() {
            // `@` alone: numbers show as General.
            general::write_general(number, out);
            return;
        }
        if negative_sign {
            out.push('-');
        }
        numbers::write_number(section, literals, number.abs(), out);
    }

    /// The section a number shows through, and whether a minus sign goes
    /// before it. None: General (no sections, or no condition holds).
    fn section_for(&self, number: f64) -> Option<(&Section, bool)> {
        let sections = &self.parsed.sections;
        // The text section (the fourth) never shows numbers.
        let count = sections.len().min(3);
        let first = sections.first()?;
        let conditional = sections[..count].iter().any(|s| s.condition.is_some());
        if conditional {
            // `[c1]a;[c2]b;c`: the first section whose condition holds,
            // the third otherwise; a section without a condition holds
            // for what the one before it did not take.
            for (index, section) in sections[..count].iter().enumerate() {
                let holds = section.condition.is_none_or(|c| c.holds(number));
                if holds {
                    // A section chosen by its own condition shows no sign
                    // (`[<-100]"small"`); the one taking the rest does.
                    let sign = number < 0.0 && section.condition.is_none() && index == 2;
                    return Some((section, sign));
                }
            }
            return None;
        }
        Some(match count {
            1 => (first, number < 0.0),
            2 if number < 0.0 => (&sections[1], false),
            2 => (first, false),
            _ if number > 0.0 => (first, false),
            _ if number < 0.0 => (&sections[1], false),
            _ => (&sections[2], false),
        })
    }

    /// Appends text as this format's text section shows it (the fourth
    /// section, or a lone section with `@`); as it is when there is none.
    pub fn write_text(&self, text: &str, out: &mut String) {
        let sections = &self.parsed.sections;
        let section = match sections.len() {
            4 => Some(&sections[3]),
            1 if sections[0].has_text => Some(&sections[0]),
            _ => None,
        };
        let Some(section) = section else {
            out.push_str(text);
            return;
        };
        for token in &section.tokens {
            match *token {
                Token::Literal { start, end } => {
                    out.push_str(numbers::literal(&self.parsed.literals, start, end))
                }
                Token::Text => out.push_str(text),
                _ => {}
            }
        }
    }

    /// Appends a cell value as this format shows it: numbers and dates
    /// through the number sections, text through the text section,
    /// booleans as `TRUE`/`FALSE`, errors as their code.
    pub fn write_value(&self, value: Value<'_>, system: DateSystem, out: &mut String) {
        match value {
            Value::Number(number) => self.write_number_in(number, system, out),
            Value::DateTime(date) => self.write_number_in(date.serial(), date.system(), out),
            Value::Text(text) => self.write_text(text, out),
            Value::Bool(true) => out.push_str("TRUE"),
            Value::Bool(false) => out.push_str("FALSE"),
            Value::Error(code) => out.push_str(code),
        }
    }
}

static GENERAL: NumberFormat = NumberFormat::GENERAL;

/// The number formats of a workbook's cell styles, parsed once at open.
///
/// Cheap to clone (the table is shared), so a row closure can hold one
/// while the workbook reads. Get it from
/// [`Workbook::number_formats`](crate::Workbook::number_formats).
///
/// ```
/// # fn main() -> Result<(), sheetstream::Error> {
/// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// let formats = workbook.number_formats().clone();
/// let mut text = String::new();
/// workbook.for_each_row("Data", |row| {
///     for cell in row.cells() {
///         text.clear();
///         cell.formatted_into(&formats, &mut text);
///     }
/// })?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct NumberFormats {
    table: Arc<FormatTable>,
}

#[derive(Debug, Default)]
struct FormatTable {
    /// Distinct formats; index 0 is General.
    formats: Vec<NumberFormat>,
    /// For each cell style, its format's index in `formats`.
    style_formats: Vec<u32>,
    date_system: DateSystem,
}

impl NumberFormats {
    /// A table from each style's format (`style_formats[style]` indexes
    /// `formats`).
    pub(crate) fn new(
        formats: Vec<NumberFormat>,
        style_formats: Vec<u32>,
        date_system: DateSystem,
    ) -> NumberFormats {
        NumberFormats {
            table: Arc::new(FormatTable {
                formats,
                style_formats,
                date_system,
            }),
        }
    }

    /// The format of cell style `style`; General for a style out of range.
    pub fn for_style(&self, style: u32) -> &NumberFormat {
        self.table
            .style_formats
            .get(style as usize)
            .and_then(|&index| self.table.formats.get(index as usize))
            .unwrap_or(&GENERAL)
    }

    /// Appends `value` as style `style` shows it.
    #[inline]
    pub fn write_value(&self, style: u32, value: Value<'_>, out: &mut String) {
        self.for_style(style)
            .write_value(value, self.table.date_system, out);
    }
}

impl Cell<'_> {
    /// Appends the cell's text as Excel shows it through its style's number
    /// format (`501` in `00000` is `00501`) to `out`. Nothing is allocated
    /// but what `out` needs to grow.
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let formats = workbook.number_formats().clone();
    /// let mut rows = workbook.rows("Data")?;
    /// let header = rows.next_row()?.expect("a header row");
    /// let mut text = String::new();
    /// header.cells()[0].formatted_into(&formats, &mut text);
    /// assert_eq!(text, "Item");
    /// # Ok(())
    /// # }
    /// ```
    #[inline]
    pub fn formatted_into(&self, formats: &NumberFormats, out: &mut String) {
        formats.write_value(self.style, self.value, out);
    }

    /// The cell's text as Excel shows it, in a new `String` (see
    /// [`formatted_into`](Self::formatted_into) to reuse one).
    pub fn formatted(&self, formats: &NumberFormats) -> String {
        let mut out = String::new();
        self.formatted_into(formats, &mut out);
        out
    }
}

/// The en-US code a system format stands for: `[$-F800]` (or
/// `[$-x-sysdate]`) anywhere in a code makes it the system's long date,
/// `[$-F400]` (`[$-x-systime]`) its time, whatever the rest of the code
/// says (Excel writes the en-US code after them, but shows the reader's
/// system format).
fn system_format(code: &str) -> Option<&'static str> {
    if code.len() > MAX_CODE_BYTES || !code.contains("[$-") {
        return None;
    }
    let has = |tag: &str| {
        code.as_bytes()
            .windows(tag.len())
            .any(|window| window.eq_ignore_ascii_case(tag.as_bytes()))
    };
    if has("[$-F800]") || has("[$-x-sysdate]") {
        Some("dddd, mmmm d, yyyy")
    } else if has("[$-F400]") || has("[$-x-systime]") {
        Some("h:mm:ss AM/PM")
    } else {
        None
    }
}

/// The format code of a built-in id in the en-US locale; "General" when the
/// id has none.
pub(crate) fn builtin_code(id: u32) -> &'static str {
    match id {
        1 => "0",
        2 => "0.00",
        3 => "#,##0",
        4 => "#,##0.00",
        5 => "\"$\"#,##0_);\\(\"$\"#,##0\\)",
        6 => "\"$\"#,##0_);[Red]\\(\"$\"#,##0\\)",
        7 => "\"$\"#,##0.00_);\\(\"$\"#,##0.00\\)",
        8 => "\"$\"#,##0.00_);[Red]\\(\"$\"#,##0.00\\)",
        9 => "0%",
        10 => "0.00%",
        11 => "0.00E+00",
        12 => "# ?/?",
        13 => "# ??/??",
        14 | 27..=36 | 50..=58 => "m/d/yyyy",
        15 => "d-mmm-yy",
        16 => "d-mmm",
        17 => "mmm-yy",
        18 => "h:mm AM/PM",
        19 => "h:mm:ss AM/PM",
        20 => "h:mm",
        21 => "h:mm:ss",
        22 => "m/d/yyyy h:mm",
        37 => "#,##0 ;(#,##0)",
        38 => "#,##0 ;[Red](#,##0)",
        39 => "#,##0.00;(#,##0.00)",
        40 => "#,##0.00;[Red](#,##0.00)",
        41 => "_(* #,##0_);_(* \\(#,##0\\);_(* \"-\"_);_(@_)",
        42 => "_(\"$\"* #,##0_);_(\"$\"* \\(#,##0\\);_(\"$\"* \"-\"_);_(@_)",
        43 => "_(* #,##0.00_);_(* \\(#,##0.00\\);_(* \"-\"??_);_(@_)",
        44 => "_(\"$\"* #,##0.00_);_(\"$\"* \\(#,##0.00\\);_(\"$\"* \"-\"??_);_(@_)",
        45 => "mm:ss",
        46 => "[h]:mm:ss",
        47 => "mmss.0",
        48 => "##0.0E+0",
        49 => "@",
        _ => "General",
    }
}

#[cfg(test)]
mod tests;
