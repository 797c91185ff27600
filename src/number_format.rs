//! Number format classification: which number formats show a date or a time.
//!
//! A cell's style points at a number format, either a built-in one by id or a
//! custom format code declared in `styles.xml`. A numeric cell whose format
//! shows a date or a time holds a serial day number, which the reader reports
//! as a date (see the `date` module).
//!
//! Both functions here are allocation-free and never panic: they run once per
//! format when styles are read, and may run per cell.
//!
//! `FormatKind` (date, date-time, time, duration, fractional) is what the
//! Arrow layer's inference reads from a cell's style
//! (`Workbook::format_kind`); the reader stamps a `DateTimeKind` on each
//! `DateTime`. Each style's number format is parsed once per distinct format
//! at open.

/// Whether built-in number format `id` shows a date or time (ids 14-22, 27-36,
/// 45-47, 50-58).
///
/// Ids 27-36 and 50-58 are the East Asian locale date formats; every other id,
/// including the unassigned ones, is not a date format.
pub(crate) fn is_builtin_date_format(id: u32) -> bool {
    matches!(id, 14..=22 | 27..=36 | 45..=47 | 50..=58)
}

/// Whether a custom number format code shows a date or time.
///
/// `code` is the `formatCode` attribute with XML entities already decoded. A
/// code shows a date or time when any of its `;`-separated sections holds a
/// date/time token outside quoted text, escapes and brackets. Since a token in
/// any section counts, the code is scanned as a whole. The rules:
///
/// - `"..."` quoted text is skipped (an unterminated quote runs to the end);
/// - `\x`, `_x` and `*x` skip the character `x`;
/// - `[...]` is a token only when its content is a run of one letter among
///   `h`, `m`, `s` in either case: `[h]`, `[hh]`, `[mm]`, `[ss]` and also
///   longer runs such as `[hhh]`, which Excel accepts as elapsed time too.
///   Any other bracketed text (`[Red]`, `[$-409]`, `[>=100]`, `[DBNum1]`) and
///   an unterminated `[` are not tokens;
/// - `AM/PM` (in any case) is skipped, so its `M` is not a month token; `A/P`
///   and a lone `a` contain no date letter and need no special handling;
/// - any other `y`, `m`, `d`, `h` or `s`, in either case, is a token.
///
/// Other letters, including `e`/`E` (scientific notation, or the East Asian
/// era year), `g` and the `B1`/`B2` calendar prefixes, are not tokens.
pub(crate) fn is_date_format_code(code: &str) -> bool {
    // Every character with a meaning here is ASCII, and no byte of a
    // multi-byte UTF-8 character is ASCII, so scanning bytes is exact. Skipping
    // "the next character" skips one byte; the rest of a multi-byte character
    // that follows is then ignored as ordinary non-ASCII text.
    let mut rest = code.as_bytes().iter();
    while let Some(&byte) = rest.next() {
        let is_token = match byte {
            b'"' => {
                for &quoted in rest.by_ref() {
                    if quoted == b'"' {
                        break;
                    }
                }
                false
            }
            b'\\' | b'_' | b'*' => {
                rest.next();
                false
            }
            b'[' => bracket_is_elapsed_time(&mut rest),
            b'a' | b'A' => {
                let is_am_pm = rest
                    .as_slice()
                    .get(..4)
                    .is_some_and(|tail| tail.eq_ignore_ascii_case(b"m/pm"));
                if is_am_pm {
                    // Skip "M/PM".
                    rest.nth(3);
                }
                false
            }
            b'y' | b'Y' | b'm' | b'M' | b'd' | b'D' | b'h' | b'H' | b's' | b'S' => true,
            _ => false,
        };
        if is_token {
            return true;
        }
    }
    false
}

/// Consumes a bracketed section up to and including its `]` (the `[` already
/// consumed) and says whether it is an elapsed-time token: a non-empty run of
/// a single letter among `h`, `m`, `s`, in either case.
fn bracket_is_elapsed_time(rest: &mut std::slice::Iter<'_, u8>) -> bool {
    let mut letter: Option<u8> = None;
    let mut uniform = true;
    for &byte in rest.by_ref() {
        if byte == b']' {
            return uniform && matches!(letter, Some(b'h' | b'm' | b's'));
        }
        let byte = byte.to_ascii_lowercase();
        match letter {
            None => letter = Some(byte),
            Some(first) if first != byte => uniform = false,
            Some(_) => {}
        }
    }
    // Unterminated bracket: not a token.
    false
}

/// What a cell style's number format shows a number as: the kinds the
/// typed layers (feature `arrow`) infer column types from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FormatKind {
    /// General, text (`@`), or a format that shows whole numbers (`0`, `#,##0`).
    #[default]
    General,
    /// A format that shows a fraction: decimals (`0.00`), percent, scientific
    /// notation or a fraction (`# ?/?`).
    Fractional,
    /// A date without a time of day (`yyyy-mm-dd`, built-in 14-17).
    Date,
    /// A date and a time of day (`m/d/yyyy h:mm`, built-in 22).
    DateTime,
    /// A time of day without a date (`h:mm:ss`, built-in 18-21, 45, 47).
    Time,
    /// Elapsed time (`[h]:mm:ss`, built-in 46): a duration, not a time of day.
    Duration,
}

impl FormatKind {
    /// Whether numbers in this format are dates or times (every kind but
    /// `General` and `Fractional`).
    pub fn is_date(self) -> bool {
        !matches!(self, FormatKind::General | FormatKind::Fractional)
    }
}

/// The kind of built-in number format `id`. Of the East Asian ids, 32-35
/// are times of day and the others dates.
pub(crate) fn builtin_format_kind(id: u32) -> FormatKind {
    match id {
        14..=17 | 27..=31 | 36 | 50..=58 => FormatKind::Date,
        18..=21 | 32..=35 | 45 | 47 => FormatKind::Time,
        22 => FormatKind::DateTime,
        46 => FormatKind::Duration,
        2 | 4 | 7..=13 | 39 | 40 | 43 | 44 | 48 => FormatKind::Fractional,
        _ => FormatKind::General,
    }
}

/// The kind of a custom number format code. A code is a date kind exactly
/// when [`is_date_format_code`] says it shows a date or time; then an
/// elapsed-time bracket makes it a duration, and otherwise its tokens decide:
/// `y` and `d` are date parts, `h` and `s` time parts, and `m` is a minute
/// when the token before it is an `h` or the token after it an `s`, a month
/// otherwise. Other codes are fractional when a `.` is followed by a digit
/// placeholder (`0`, `#`, `?`) or they hold `%`, `E+`/`E-` or `/`, all
/// outside quotes, escapes and brackets.
pub(crate) fn format_code_kind(code: &str) -> FormatKind {
    let is_date = is_date_format_code(code);
    let mut tokens: Vec<u8> = Vec::new();
    let mut elapsed = false;
    let mut fractional = false;
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        at += 1;
        match byte {
            b'"' => {
                while at < bytes.len() && bytes[at] != b'"' {
                    at += 1;
                }
                at += 1;
            }
            b'\\' | b'_' | b'*' => at += 1,
            b'[' => {
                let start = at;
                while at < bytes.len() && bytes[at] != b']' {
                    at += 1;
                }
                let closed = at < bytes.len();
                let inner = &bytes[start..at.min(bytes.len())];
                at += 1;
                let first = inner.first().map(u8::to_ascii_lowercase);
                if closed
                    && matches!(first, Some(b'h' | b'm' | b's'))
                    && inner.iter().all(|b| Some(b.to_ascii_lowercase()) == first)
                {
                    elapsed = true;
                }
            }
            // AM/PM: a time of day.
            b'a' | b'A'
                if bytes
                    .get(at..at + 4)
                    .is_some_and(|tail| tail.eq_ignore_ascii_case(b"m/pm")) =>
            {
                at += 4;
                tokens.push(b'h');
            }
            b'y' | b'Y' | b'm' | b'M' | b'd' | b'D' | b'h' | b'H' | b's' | b'S' => {
                let letter = byte.to_ascii_lowercase();
                // A run of one letter is one token.
                let continues_run = at >= 2 && bytes[at - 2].eq_ignore_ascii_case(&byte);
                if !continues_run || tokens.is_empty() {
                    tokens.push(letter);
                }
            }
            b'.' if matches!(bytes.get(at), Some(b'0' | b'#' | b'?')) => fractional = true,
            b'%' | b'/' => fractional = true,
            b'e' | b'E' if matches!(bytes.get(at), Some(b'+' | b'-')) => fractional = true,
            _ => {}
        }
    }
    if !is_date {
        return if fractional {
            FormatKind::Fractional
        } else {
            FormatKind::General
        };
    }
    if elapsed {
        return FormatKind::Duration;
    }
    let mut has_date = false;
    let mut has_time = false;
    for (index, &token) in tokens.iter().enumerate() {
        match token {
            b'y' | b'd' => has_date = true,
            b'h' | b's' => has_time = true,
            _ => {
                let after_hour = index > 0 && tokens[index - 1] == b'h';
                let before_second = tokens.get(index + 1) == Some(&b's');
                if after_hour || before_second {
                    has_time = true;
                } else {
                    has_date = true;
                }
            }
        }
    }
    match (has_date, has_time) {
        (true, false) => FormatKind::Date,
        (false, true) => FormatKind::Time,
        _ => FormatKind::DateTime,
    }
}

#[cfg(test)]
mod tests {
    use super::{is_builtin_date_format, is_date_format_code};

    #[test]
    fn format_kinds_agree_with_the_date_check() {
        use super::{FormatKind, builtin_format_kind, format_code_kind};
        for id in 0..200 {
            assert_eq!(
                builtin_format_kind(id).is_date(),
                is_builtin_date_format(id),
                "{id}"
            );
        }
        for (code, kind) in [
            ("General", FormatKind::General),
            ("0", FormatKind::General),
            ("#,##0", FormatKind::General),
            ("@", FormatKind::General),
            ("0.00", FormatKind::Fractional),
            ("0%", FormatKind::Fractional),
            ("0.00E+00", FormatKind::Fractional),
            ("# ?/?", FormatKind::Fractional),
            ("\"x.0\"0", FormatKind::General),
            ("yyyy-mm-dd", FormatKind::Date),
            ("d-mmm-yy", FormatKind::Date),
            ("mmm yyyy", FormatKind::Date),
            ("yyyy-mm-dd hh:mm:ss", FormatKind::DateTime),
            ("m/d/yyyy h:mm AM/PM", FormatKind::DateTime),
            ("hh:mm", FormatKind::Time),
            ("h:mm AM/PM", FormatKind::Time),
            ("mm:ss", FormatKind::Time),
            ("[h]:mm:ss", FormatKind::Duration),
            ("[mm]:ss", FormatKind::Duration),
            ("[Red][h]:mm", FormatKind::Duration),
            ("[$-409]yyyy", FormatKind::Date),
            ("[Red]0.00", FormatKind::Fractional),
        ] {
            assert_eq!(format_code_kind(code), kind, "{code}");
            assert_eq!(kind.is_date(), is_date_format_code(code), "{code}");
        }
    }

    #[test]
    fn builtin_date_ids() {
        let dates: Vec<u32> = (0..200).filter(|&id| is_builtin_date_format(id)).collect();
        let expected: Vec<u32> = (14..=22)
            .chain(27..=36)
            .chain(45..=47)
            .chain(50..=58)
            .collect();
        assert_eq!(dates, expected);
        assert!(!is_builtin_date_format(u32::MAX));
        assert!(!is_builtin_date_format(0));
        assert!(!is_builtin_date_format(49));
    }

    fn check(codes: &[&str], expected: bool) {
        for code in codes {
            assert_eq!(is_date_format_code(code), expected, "format code {code:?}");
        }
    }

    #[test]
    fn plain_date_and_time_codes() {
        check(
            &[
                "yyyy-mm-dd",
                "m/d/yy h:mm",
                "d-mmm-yy",
                "mmm-yy",
                "h:mm:ss",
                "mm:ss.0",
                "YYYY-MM-DD",
                "D/M/Y",
                "HH:MM",
                "ss",
                "S",
                "dddd",
                "h AM/PM",
                "h:mm A/P",
                "am/pm h",
                "0;0;yyyy",
                "#,##0;[Red]-#,##0;d",
                "dd\"text\"",
                "\"a\"d",
                "[$-F800]dddd\\,\\ mmmm\\ dd\\,\\ yyyy",
                "[DBNum1][$-804]yyyy\"年\"m\"月\"d\"日\"",
                "[$-411]ge.m.d",
                "yyyy\"年\"m\"月\"",
                "[Red]yyyy",
                "\\dd",
                "_)m",
                "**d",
                "\"unterminated\" then h",
                "0.00E+00 s",
                "AM/PMh",
                "A/Pm",
            ],
            true,
        );
    }

    #[test]
    fn elapsed_time_codes() {
        check(
            &[
                "[h]:mm:ss",
                "[hh]",
                "[m]",
                "[mm]:ss",
                "[s]",
                "[ss].00",
                "[H]",
                "[HH]",
                "[Mm]",
                "[SS]",
                "[hhh]",
                "[Red][h]",
                "0;[h]",
            ],
            true,
        );
    }

    #[test]
    fn non_date_codes() {
        check(
            &[
                "",
                "General",
                "general",
                "@",
                "0",
                "0.00",
                "#,##0",
                "#,##0.00_);(#,##0.00)",
                "[Red]0.00",
                "[$-409]#,##0",
                "[$€-2] #,##0.00",
                "\"yy\"0",
                "\"hms dmy\"",
                "0.00\\h",
                "\\y\\m\\d",
                "_m0",
                "*d0",
                "_M_D_H_S_Y",
                "#,##0;[Red]-#,##0",
                "0;0;0;@",
                "[>=100]0",
                "[<=-5]0;[>5]0",
                "AM/PM 0",
                "am/pm",
                "A/P",
                "a/p",
                "a",
                "0.00E+00",
                "0.00e-00",
                "##0.0E+0",
                "[DBNum1]0",
                "[hm]",
                "[hs]",
                "[]",
                "[d]",
                "[y]",
                "[h",
                "[mm:ss",
                "\"unterminated d",
                "\\",
                "_",
                "*",
                "0 ¥ € ₩ 年",
                "B10.0",
                "[Color10]0",
            ],
            false,
        );
    }

    #[test]
    fn escapes_before_multibyte_characters() {
        check(&["\\年0", "_€0", "*é0", "\\年"], false);
        check(&["\\年d", "*éh"], true);
    }

    #[test]
    fn arbitrary_input_does_not_panic() {
        let alphabet: &[&str] = &[
            "\"", "\\", "_", "*", "[", "]", ";", "a", "A", "m", "/", "p", "P", "M", "h", "s", "0",
            "é", "年", "E", "+",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            let mut code = String::new();
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (state >> 59) as usize;
            for _ in 0..len {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let pick = (state >> 33) as usize % alphabet.len();
                code.push_str(alphabet[pick]);
            }
            let _ = is_date_format_code(&code);
        }
    }
}
