//! Format codes parsed into sections of tokens, once per format at open.
//!
//! A code is split into at most four `;`-separated sections (a `;` inside
//! quotes, after a backslash or inside brackets does not split). Each section
//! is a date section when it holds a date or time token
//! ([`is_date_format_code`]), a number section otherwise; the two read some
//! characters differently (`0`, `.`, `/`, `,`, `e` and the letters).
//!
//! Parsing never fails: whatever a code holds is read as something (an
//! unknown character is literal text, an unterminated quote runs to the end,
//! an unterminated bracket is dropped), and it runs in one pass over the
//! code. A code longer than [`MAX_CODE_BYTES`] is read as General; Excel
//! itself refuses codes past 255 characters, and the bound keeps the text a
//! cell can render bounded by the code's length.

use crate::number_format::is_date_format_code;

/// The longest format code read; longer codes render as General.
pub(crate) const MAX_CODE_BYTES: usize = 1024;

/// A digit placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placeholder {
    /// `0`: a digit, or a zero where there is none.
    Zero,
    /// `#`: a digit, or nothing.
    Hash,
    /// `?`: a digit, or a space.
    Space,
}

/// What a digit placeholder stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Before the decimal point (or the mantissa's integer part, or a
    /// fraction's whole part).
    Integer,
    /// After the decimal point.
    Decimal,
    /// The exponent of a scientific format.
    Exponent,
    /// A fraction's numerator.
    Numerator,
    /// A fraction's denominator.
    Denominator,
}

/// Which unit an elapsed-time token (`[h]`, `[mm]`, `[ss]`) counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ElapsedUnit {
    Hours,
    Minutes,
    Seconds,
}

/// One token of a section.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Token {
    /// Literal text: a byte range of the format's literal buffer.
    Literal { start: u32, end: u32 },
    /// A digit placeholder; `position` counts from the right for the
    /// right-aligned roles (integer, exponent, numerator; 0 is the last) and
    /// from the left for the others (decimal places from 1, the
    /// denominator's digits from 0).
    Digit {
        placeholder: Placeholder,
        role: Role,
        position: u16,
    },
    /// The decimal point.
    Point,
    /// `E+` (`plus`: the exponent's sign is always shown) or `E-`.
    Exponent { plus: bool },
    /// A fraction's bar.
    Slash,
    /// A fraction's fixed denominator (`# ?/16`).
    FixedDenominator(u32),
    /// `@`: the cell's text.
    Text,
    /// `General` inside a section: the number as General shows it.
    General,
    /// `y` (`len` 1 or 2: two digits) or `yyyy` (3 or more: four), `e`.
    Year { len: u8 },
    /// `m`, `mm`, `mmm` (Jan), `mmmm` (January), `mmmmm` (J).
    Month { len: u8 },
    /// `m`, `mm` after an hour or before a second.
    Minute { len: u8 },
    /// `d`, `dd`, `ddd` (Sun), `dddd` (Sunday).
    Day { len: u8 },
    /// `h`, `hh`.
    Hour { len: u8 },
    /// `s`, `ss`.
    Second { len: u8 },
    /// `.0`, `.00`, `.000` after seconds: the point and `digits` digits.
    SubSecond { digits: u8 },
    /// `AM/PM` in any case: shows `AM` or `PM`.
    AmPm,
    /// `A/P`: shows `A`/`a` or `P`/`p`, the case as written.
    AOrP { upper_a: bool, upper_p: bool },
    /// `[h]`, `[mm]`, `[ss]`: time elapsed in one unit, at least `len` digits.
    Elapsed { unit: ElapsedUnit, len: u8 },
}

/// A comparison in a section's condition (`[<=9999999]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Comparison {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    Equal,
    NotEqual,
}

/// A section's condition: `[op value]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Condition {
    pub comparison: Comparison,
    pub value: f64,
}

impl Condition {
    pub(crate) fn holds(&self, number: f64) -> bool {
        match self.comparison {
            Comparison::Less => number < self.value,
            Comparison::LessOrEqual => number <= self.value,
            Comparison::Greater => number > self.value,
            Comparison::GreaterOrEqual => number >= self.value,
            Comparison::Equal => number == self.value,
            Comparison::NotEqual => number != self.value,
        }
    }
}

/// How a section shows a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SectionKind {
    /// Digits, literal text or both (also a section of literal text only).
    Number,
    /// A fraction (`# ?/?`).
    Fraction,
    /// Scientific (`0.00E+00`).
    Scientific,
    /// A date or time.
    Date,
}

/// One `;`-separated section of a format code.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Section {
    pub tokens: Vec<Token>,
    pub kind: SectionKind,
    pub condition: Option<Condition>,
    /// Number of `%` signs: each multiplies by 100.
    pub percent: u8,
    /// Number of scaling commas after the last digit: each divides by 1000.
    pub thousands_scale: u8,
    /// A comma between integer placeholders: digits grouped by thousands.
    pub grouping: bool,
    /// Digit placeholders by role.
    pub integer_digits: u16,
    pub decimal_digits: u16,
    pub numerator_digits: u16,
    pub denominator_digits: u16,
    /// The integer placeholders hold a `#` or `?` (engineering notation in
    /// a scientific section).
    pub integer_has_optional: bool,
    /// A date section shows hours on the 12-hour clock (it has AM/PM).
    pub twelve_hour: bool,
    /// The most fractional-second digits of a date section.
    pub subsecond_digits: u8,
    /// The section holds `@`.
    pub has_text: bool,
}

impl Section {
    fn new(kind: SectionKind) -> Section {
        Section {
            tokens: Vec::new(),
            kind,
            condition: None,
            percent: 0,
            thousands_scale: 0,
            grouping: false,
            integer_digits: 0,
            decimal_digits: 0,
            numerator_digits: 0,
            denominator_digits: 0,
            integer_has_optional: false,
            twelve_hour: false,
            subsecond_digits: 0,
            has_text: false,
        }
    }

    /// Whether the section shows any digit of the value.
    pub(crate) fn has_digits(&self) -> bool {
        self.tokens.iter().any(|token| {
            matches!(
                token,
                Token::Digit { .. } | Token::General | Token::FixedDenominator(_)
            )
        })
    }
}

/// A parsed code: its sections and the literal text their tokens point into.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Parsed {
    pub sections: Vec<Section>,
    pub literals: String,
}

/// Parses a format code. `General` (in any case) and an empty or over-long
/// code give no sections, which renders as General.
pub(crate) fn parse(code: &str) -> Parsed {
    let mut parsed = Parsed::default();
    if code.len() > MAX_CODE_BYTES || code.trim().eq_ignore_ascii_case("general") {
        return parsed;
    }
    if code.is_empty() {
        return parsed;
    }
    for section_code in split_sections(code) {
        let kind = if is_date_format_code(section_code) || has_am_pm(section_code) {
            SectionKind::Date
        } else {
            SectionKind::Number
        };
        let mut section = Section::new(kind);
        let mut parser = SectionParser {
            rest: section_code,
            section: &mut section,
            literals: &mut parsed.literals,
        };
        parser.run();
        finish_section(&mut section);
        parsed.sections.push(section);
    }
    parsed
}

/// Whether a section holds `AM/PM` or `A/P` outside quotes, escapes and
/// brackets: a time section even with no other date token (the reader's
/// date classification does not count it, see `number_format`).
fn has_am_pm(section: &str) -> bool {
    let bytes = section.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += 1;
                }
            }
            b'\\' | b'_' | b'*' => i += 1,
            b'[' => {
                while i < bytes.len() && bytes[i] != b']' {
                    i += 1;
                }
            }
            b'a' | b'A' => {
                let rest = &bytes[i + 1..];
                if rest.len() >= 4 && rest[..4].eq_ignore_ascii_case(b"m/pm")
                    || rest.len() >= 2 && rest[0] == b'/' && rest[1].eq_ignore_ascii_case(&b'p')
                {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Splits a code at its top-level `;`, at most four sections (Excel reads
/// no more; the rest is dropped).
fn split_sections(code: &str) -> impl Iterator<Item = &str> {
    let bytes = code.as_bytes();
    let mut bounds: [usize; 5] = [0; 5];
    let mut count = 1;
    let mut i = 0;
    let mut end = bytes.len();
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += 1;
                }
            }
            b'\\' | b'_' | b'*' => i += 1,
            b'[' => {
                while i < bytes.len() && bytes[i] != b']' {
                    i += 1;
                }
            }
            b';' => {
                if count == 4 {
                    end = i;
                    break;
                }
                bounds[count] = i + 1;
                count += 1;
            }
            _ => {}
        }
        i += 1;
    }
    // Every bound is just past a `;` (ASCII) or 0, and `end` is at a `;` or
    // the end, so all are character boundaries; a skipped "next byte" is
    // never one of them because the bytes of a multi-byte character are not
    // ASCII.
    (0..count).map(move |n| {
        let start = bounds[n].min(end);
        let stop = if n + 1 < count {
            bounds[n + 1] - 1
        } else {
            end
        };
        code.get(start..stop.max(start)).unwrap_or("")
    })
}

struct SectionParser<'c, 's> {
    rest: &'c str,
    section: &'s mut Section,
    literals: &'s mut String,
}

impl SectionParser<'_, '_> {
    fn run(&mut self) {
        let date = self.section.kind == SectionKind::Date;
        while let Some(c) = self.next_char() {
            match c {
                '"' => {
                    let (quoted, rest) = match self.rest.find('"') {
                        Some(at) => (&self.rest[..at], &self.rest[at + 1..]),
                        None => (self.rest, ""),
                    };
                    self.rest = rest;
                    self.literal(quoted);
                }
                '\\' | '*' => {
                    if let Some(next) = self.next_char() {
                        self.literal_char(next);
                    }
                }
                '_' => {
                    if self.next_char().is_some() {
                        self.literal_char(' ');
                    }
                }
                '[' => self.bracket(),
                '@' => {
                    self.section.has_text = true;
                    self.push(Token::Text);
                }
                _ if date => self.date_char(c),
                _ => self.number_char(c),
            }
        }
    }

    fn next_char(&mut self) -> Option<char> {
        let mut chars = self.rest.chars();
        let c = chars.next()?;
        self.rest = chars.as_str();
        Some(c)
    }

    fn peek(&self) -> Option<char> {
        self.rest.chars().next()
    }

    fn push(&mut self, token: Token) {
        self.section.tokens.push(token);
    }

    fn literal(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let start = self.literals.len() as u32;
        self.literals.push_str(text);
        let end = self.literals.len() as u32;
        // Literals next to each other become one token.
        if let Some(Token::Literal { end: last_end, .. }) = self.section.tokens.last_mut()
            && *last_end == start
        {
            *last_end = end;
            return;
        }
        self.push(Token::Literal { start, end });
    }

    fn literal_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.literal(c.encode_utf8(&mut buf));
    }

    /// A `[...]` token, the `[` consumed: a currency and locale, a
    /// condition, elapsed time, or a color and other modifiers (dropped).
    fn bracket(&mut self) {
        let Some(close) = self.rest.find(']') else {
            self.rest = "";
            return;
        };
        let content = &self.rest[..close];
        self.rest = &self.rest[close + 1..];
        if let Some(currency) = content.strip_prefix('$') {
            // `[$€-407]`: the symbol is shown; the locale id after `-` is not.
            let symbol = currency.split('-').next().unwrap_or("");
            self.literal(symbol);
            return;
        }
        if let Some(condition) = parse_condition(content) {
            self.section.condition = Some(condition);
            return;
        }
        if let Some(unit) = elapsed_unit(content) {
            let len = content.len().min(u8::MAX as usize) as u8;
            if self.section.kind == SectionKind::Date {
                self.push(Token::Elapsed { unit, len });
            }
        }
        // Colors (`[Red]`, `[Color10]`), `[DBNum1]` and the like change
        // nothing in the text.
    }

    fn date_char(&mut self, c: char) {
        match c.to_ascii_lowercase() {
            'y' | 'e' => {
                let len = 1 + self.take_run(c);
                self.push(Token::Year { len });
            }
            'm' => {
                let len = 1 + self.take_run(c);
                self.push(Token::Month { len });
            }
            'd' => {
                let len = 1 + self.take_run(c);
                self.push(Token::Day { len });
            }
            'h' => {
                let len = 1 + self.take_run(c);
                self.push(Token::Hour { len });
            }
            's' => {
                let len = 1 + self.take_run(c);
                self.push(Token::Second { len });
            }
            'a' => {
                let bytes = self.rest.as_bytes();
                if bytes.len() >= 4 && bytes[..4].eq_ignore_ascii_case(b"m/pm") {
                    self.rest = &self.rest[4..];
                    self.section.twelve_hour = true;
                    self.push(Token::AmPm);
                } else if bytes.len() >= 2
                    && bytes[0] == b'/'
                    && bytes[1].eq_ignore_ascii_case(&b'p')
                {
                    let upper_p = bytes[1] == b'P';
                    self.rest = &self.rest[2..];
                    self.section.twelve_hour = true;
                    self.push(Token::AOrP {
                        upper_a: c == 'A',
                        upper_p,
                    });
                } else {
                    self.literal_char(c);
                }
            }
            '.' if self.peek() == Some('0') => {
                let digits = self.take_run('0').min(3);
                // More than three zeros: the rest are dropped, as Excel
                // shows milliseconds at most.
                self.section.subsecond_digits = self.section.subsecond_digits.max(digits);
                self.push(Token::SubSecond { digits });
            }
            _ => self.literal_char(c),
        }
    }

    /// Consumes the run of `c` (either case) that follows and returns its
    /// length, at most 255.
    fn take_run(&mut self, c: char) -> u8 {
        let lower = c.to_ascii_lowercase() as u8;
        let run = self
            .rest
            .bytes()
            .take_while(|byte| byte.to_ascii_lowercase() == lower)
            .count();
        self.rest = &self.rest[run..];
        run.min(u8::MAX as usize - 1) as u8
    }

    fn number_char(&mut self, c: char) {
        match c {
            '0' | '#' | '?' => {
                let placeholder = match c {
                    '0' => Placeholder::Zero,
                    '#' => Placeholder::Hash,
                    _ => Placeholder::Space,
                };
                // Roles and positions are assigned once the section is read.
                self.push(Token::Digit {
                    placeholder,
                    role: Role::Integer,
                    position: 0,
                });
            }
            '.' if !self.section.tokens.contains(&Token::Point) => self.push(Token::Point),
            ',' => {
                let commas = 1 + self.rest.bytes().take_while(|&b| b == b',').count();
                self.rest = &self.rest[commas - 1..];
                let after_digit = matches!(self.section.tokens.last(), Some(Token::Digit { .. }));
                let before_digit = matches!(self.peek(), Some('0' | '#' | '?'));
                if after_digit && before_digit {
                    self.section.grouping = true;
                } else if after_digit {
                    self.section.thousands_scale = self
                        .section
                        .thousands_scale
                        .saturating_add(commas.min(255) as u8);
                } else {
                    for _ in 0..commas {
                        self.literal_char(',');
                    }
                }
            }
            '%' => {
                self.section.percent = self.section.percent.saturating_add(1);
                self.literal_char('%');
            }
            'E' | 'e' if matches!(self.peek(), Some('+' | '-')) => {
                let plus = self.next_char() == Some('+');
                if self.section.kind == SectionKind::Number {
                    self.section.kind = SectionKind::Scientific;
                    self.push(Token::Exponent { plus });
                } else {
                    self.literal_char(c);
                    self.literal_char(if plus { '+' } else { '-' });
                }
            }
            '/' if self.section.kind == SectionKind::Number
                && matches!(self.section.tokens.last(), Some(Token::Digit { .. })) =>
            {
                let digits = self.rest.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 {
                    let denominator: u32 = self.rest[..digits.min(9)].parse().unwrap_or(0);
                    self.rest = &self.rest[digits..];
                    if denominator > 0 {
                        self.section.kind = SectionKind::Fraction;
                        self.push(Token::Slash);
                        self.push(Token::FixedDenominator(denominator));
                    } else {
                        self.literal("/0");
                    }
                } else if matches!(self.peek(), Some('0' | '#' | '?')) {
                    self.section.kind = SectionKind::Fraction;
                    self.push(Token::Slash);
                } else {
                    self.literal_char('/');
                }
            }
            'G' | 'g' => {
                let bytes = self.rest.as_bytes();
                if bytes.len() >= 6 && bytes[..6].eq_ignore_ascii_case(b"eneral") {
                    self.rest = &self.rest[6..];
                    self.push(Token::General);
                } else {
                    self.literal_char(c);
                }
            }
            _ => self.literal_char(c),
        }
    }
}

/// Gives each digit placeholder its role and position, counts them, and
/// tells month from minute in a date section.
fn finish_section(section: &mut Section) {
    match section.kind {
        SectionKind::Date => resolve_minutes(&mut section.tokens),
        SectionKind::Fraction => assign_fraction_roles(section),
        SectionKind::Number | SectionKind::Scientific => assign_number_roles(section),
    }
}

fn assign_number_roles(section: &mut Section) {
    let mut role = Role::Integer;
    let mut counts = [0u16; 3];
    for token in &mut section.tokens {
        match token {
            Token::Point if role == Role::Integer => role = Role::Decimal,
            Token::Exponent { .. } => role = Role::Exponent,
            Token::Digit {
                role: digit_role,
                position,
                placeholder,
            } => {
                *digit_role = role;
                let slot = match role {
                    Role::Integer => 0,
                    Role::Decimal => 1,
                    _ => 2,
                };
                if role == Role::Integer && *placeholder != Placeholder::Zero {
                    section.integer_has_optional = true;
                }
                counts[slot] = counts[slot].saturating_add(1);
                // Decimal places count from 1, left to right.
                *position = counts[slot];
            }
            _ => {}
        }
    }
    section.integer_digits = counts[0];
    section.decimal_digits = counts[1];
    // Integer and exponent positions count from the right, from 0.
    for token in &mut section.tokens {
        if let Token::Digit { role, position, .. } = token {
            match role {
                Role::Integer => *position = counts[0] - *position,
                Role::Exponent => *position = counts[2] - *position,
                _ => {}
            }
        }
    }
}

fn assign_fraction_roles(section: &mut Section) {
    let Some(slash) = section.tokens.iter().position(|t| *t == Token::Slash) else {
        return;
    };
    // The numerator is the run of placeholders just before the bar; the
    // whole part is any placeholder before that.
    let mut numerator_start = slash;
    while numerator_start > 0 && matches!(section.tokens[numerator_start - 1], Token::Digit { .. })
    {
        numerator_start -= 1;
    }
    let mut counts = [0u16; 3];
    for (index, token) in section.tokens.iter_mut().enumerate() {
        if let Token::Digit { role, position, .. } = token {
            let slot = if index < numerator_start {
                *role = Role::Integer;
                0
            } else if index < slash {
                *role = Role::Numerator;
                1
            } else {
                *role = Role::Denominator;
                2
            };
            *position = counts[slot];
            counts[slot] = counts[slot].saturating_add(1);
        }
    }
    section.integer_digits = counts[0];
    section.numerator_digits = counts[1];
    section.denominator_digits = counts[2];
    for token in &mut section.tokens {
        if let Token::Digit { role, position, .. } = token {
            match role {
                Role::Integer => *position = counts[0] - 1 - *position,
                Role::Numerator => *position = counts[1] - 1 - *position,
                _ => {}
            }
        }
    }
}

/// An `m` or `mm` right after an hour (or elapsed hours), or right before
/// a second (or elapsed seconds), with only literals between, is minutes.
fn resolve_minutes(tokens: &mut [Token]) {
    let mut previous_is_hour = false;
    for index in 0..tokens.len() {
        match tokens[index] {
            Token::Month { len } if len <= 2 => {
                let next_is_second = tokens[index + 1..]
                    .iter()
                    .find(|t| !matches!(t, Token::Literal { .. }))
                    .is_some_and(|t| {
                        matches!(
                            t,
                            Token::Second { .. }
                                | Token::Elapsed {
                                    unit: ElapsedUnit::Seconds,
                                    ..
                                }
                        )
                    });
                if previous_is_hour || next_is_second {
                    tokens[index] = Token::Minute { len };
                }
                previous_is_hour = false;
            }
            Token::Hour { .. }
            | Token::Elapsed {
                unit: ElapsedUnit::Hours,
                ..
            } => previous_is_hour = true,
            Token::Literal { .. } => {}
            _ => previous_is_hour = false,
        }
    }
}

fn parse_condition(content: &str) -> Option<Condition> {
    let (comparison, number) = if let Some(rest) = content.strip_prefix("<=") {
        (Comparison::LessOrEqual, rest)
    } else if let Some(rest) = content.strip_prefix(">=") {
        (Comparison::GreaterOrEqual, rest)
    } else if let Some(rest) = content.strip_prefix("<>") {
        (Comparison::NotEqual, rest)
    } else if let Some(rest) = content.strip_prefix('<') {
        (Comparison::Less, rest)
    } else if let Some(rest) = content.strip_prefix('>') {
        (Comparison::Greater, rest)
    } else if let Some(rest) = content.strip_prefix('=') {
        (Comparison::Equal, rest)
    } else {
        return None;
    };
    let value: f64 = number.trim().parse().ok()?;
    value.is_finite().then_some(Condition { comparison, value })
}

fn elapsed_unit(content: &str) -> Option<ElapsedUnit> {
    let first = content.bytes().next()?.to_ascii_lowercase();
    if !content.bytes().all(|b| b.to_ascii_lowercase() == first) {
        return None;
    }
    match first {
        b'h' => Some(ElapsedUnit::Hours),
        b'm' => Some(ElapsedUnit::Minutes),
        b's' => Some(ElapsedUnit::Seconds),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_sections_outside_quotes_and_brackets() {
        let sections: Vec<&str> = split_sections(r#"0;"a;b"0;[<;]0;@;dropped"#).collect();
        assert_eq!(sections, ["0", r#""a;b"0"#, "[<;]0", "@"]);
        let sections: Vec<&str> = split_sections("0;").collect();
        assert_eq!(sections, ["0", ""]);
        assert_eq!(parse("General").sections.len(), 0);
        assert_eq!(parse("").sections.len(), 0);
    }

    #[test]
    fn roles_and_positions() {
        let parsed = parse("#,##0.00");
        let section = &parsed.sections[0];
        assert!(section.grouping);
        assert_eq!((section.integer_digits, section.decimal_digits), (4, 2));
        let parsed = parse("# ??/16");
        let section = &parsed.sections[0];
        assert_eq!(section.kind, SectionKind::Fraction);
        assert_eq!((section.integer_digits, section.numerator_digits), (1, 2));
        assert!(section.tokens.contains(&Token::FixedDenominator(16)));
        let parsed = parse("0.0,,");
        assert_eq!(parsed.sections[0].thousands_scale, 2);
    }

    #[test]
    fn minutes_after_hours_and_before_seconds() {
        let parsed = parse("m/d h:mm mm:ss [h]:m");
        let kinds: Vec<&Token> = parsed.sections[0]
            .tokens
            .iter()
            .filter(|t| !matches!(t, Token::Literal { .. }))
            .collect();
        assert!(matches!(kinds[0], Token::Month { len: 1 }));
        assert!(matches!(kinds[3], Token::Minute { len: 2 }));
        assert!(matches!(kinds[4], Token::Minute { len: 2 }));
        assert!(matches!(kinds[7], Token::Minute { len: 1 }));
    }
}
