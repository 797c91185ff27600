//! Number format classification: which number formats show a date or a time.
//!
//! A cell's style points at a number format, either a built-in one by id or a
//! custom format code declared in `styles.xml`. A numeric cell whose format
//! shows a date or a time holds a serial day number, which the reader reports
//! as a date (see the `date` module).
//!
//! Both functions here are allocation-free and never panic: they run once per
//! format when styles are read, and may run per cell.

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

#[cfg(test)]
mod tests {
    use super::{is_builtin_date_format, is_date_format_code};

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
