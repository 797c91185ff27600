//! Parsing the numbers of `<v>` elements from borrowed bytes.
//!
//! Most numbers in a sheet are short decimals (`42`, `-17.5`,
//! `40000.00069444445`). Those with at most 15 significant digits and 22
//! fraction digits are exact as `mantissa / 10^fraction_digits`: both
//! operands are exactly representable doubles and IEEE division rounds once,
//! correctly. Everything else (exponents, long mantissas) goes to the
//! standard library's correctly rounded parser.

/// Exact powers of ten as doubles (10^0 to 10^22 are all exact).
const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Parses a number as Excel writes it (`-1.5`, `1E+300`, `.5`), refusing
/// the `inf` and `NaN` spellings Rust's parser would accept, and values
/// that overflow to infinity.
pub(crate) fn parse_number(text: &[u8]) -> Option<f64> {
    if let Some(number) = parse_short_decimal(text) {
        return Some(number);
    }
    let digits = match text.first() {
        Some(b'-' | b'+') => &text[1..],
        _ => text,
    };
    if !digits
        .first()
        .is_some_and(|b| b.is_ascii_digit() || *b == b'.')
    {
        return None;
    }
    let number: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
    number.is_finite().then_some(number)
}

/// The fast path: `-?digits(.digits)?` whose digits, read as one integer,
/// stay within 2^53 (so the integer is exact) with at most 22 of them
/// after the point (so the power of ten is exact).
#[inline]
pub(crate) fn parse_short_decimal(text: &[u8]) -> Option<f64> {
    let (negative, body) = match text {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, text),
    };
    if body.is_empty() || body.len() > 20 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut bytes = body.iter();
    let mut fraction_digits = 0;
    let mut digits = 0;
    // The integer digits, up to the point.
    for &byte in bytes.by_ref() {
        let digit = byte.wrapping_sub(b'0');
        if digit >= 10 {
            if byte != b'.' {
                return None;
            }
            // The fraction digits.
            for &byte in bytes.by_ref() {
                let digit = byte.wrapping_sub(b'0');
                if digit >= 10 {
                    return None;
                }
                mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(digit));
                fraction_digits += 1;
            }
            break;
        }
        mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(digit));
        digits += 1;
    }
    digits += fraction_digits;
    // Up to 19 digits cannot overflow a u64; more may have wrapped.
    if digits == 0 || digits > 19 || mantissa > (1 << 53) {
        return None;
    }
    let magnitude = mantissa as f64 / POWERS_OF_TEN[fraction_digits];
    Some(if negative { -magnitude } else { magnitude })
}

/// Parses a shared string index: decimal digits only.
#[inline]
pub(crate) fn parse_index(text: &[u8]) -> Option<u64> {
    if text.is_empty() || text.len() > 19 {
        return None;
    }
    let mut index: u64 = 0;
    for &byte in text {
        if !byte.is_ascii_digit() {
            return None;
        }
        index = index * 10 + u64::from(byte - b'0');
    }
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn std_parse(text: &str) -> f64 {
        text.parse().unwrap()
    }

    #[test]
    fn agrees_with_the_standard_parser() {
        let fixed = [
            "0",
            "-0",
            "1",
            "-17.5",
            "40000.00069444445",
            "0.1",
            "0.30000000000000004",
            "123456789012345",
            "1234567890123456",
            "12345678901234567890",
            "9007199254740993",
            "1E+300",
            "1e-7",
            "-2.5E-3",
            ".5",
            "5.",
            "000123.4500",
            "0.000000000000000000001",
            "4.9406564584124654E-324",
            "1.7976931348623157E+308",
        ];
        for text in fixed {
            assert_eq!(
                parse_number(text.as_bytes()).map(f64::to_bits),
                Some(std_parse(text).to_bits()),
                "{text}"
            );
        }
        // A deterministic walk over many magnitudes and digit counts.
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let value = f64::from_bits(state);
            if !value.is_finite() {
                continue;
            }
            for text in [
                value.to_string(),
                format!("{value:e}"),
                format!("{:.3}", value % 1e6),
                format!("{}", (state % 100_000_000) as f64 / 1000.0),
            ] {
                assert_eq!(
                    parse_number(text.as_bytes()).map(f64::to_bits),
                    Some(std_parse(&text).to_bits()),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn refuses_what_is_not_a_number() {
        for text in [
            "", "-", ".", "inf", "-inf", "NaN", "infinity", "1.2.3", "1,5", "0x10", "1e400", "--1",
            "+",
        ] {
            assert_eq!(parse_number(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn parses_indices() {
        assert_eq!(parse_index(b"0"), Some(0));
        assert_eq!(
            parse_index(b"18446744073709551"),
            Some(18_446_744_073_709_551)
        );
        assert_eq!(parse_index(b""), None);
        assert_eq!(parse_index(b"1.0"), None);
        assert_eq!(parse_index(b"-1"), None);
    }
}
