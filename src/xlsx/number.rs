//! Parsing the numbers of `<v>` elements from borrowed bytes.
//!
//! Most numbers in a sheet are decimals without an exponent (`42`,
//! `-17.5`, `40000.001388888886`). Those with at most 19 digits are read
//! as one integer mantissa `m` and a count `k` of fraction digits (four
//! or eight digits at a time, in one word, where there are that many), and
//! `m / 10^k` is rounded once, correctly:
//!
//! - when `m` fits in 53 bits (and `k <= 22`), both operands are exact
//!   doubles and IEEE division rounds the quotient correctly;
//! - otherwise (`k <= 19`), the quotient is computed in 128-bit integers
//!   with at least 63 significant bits, a sticky bit for a non-zero
//!   remainder, and rounded to a double by the integer conversion, which
//!   rounds to nearest, ties to even; the power-of-two scale is exact.
//!
//! Everything else (exponents, longer mantissas) goes to the standard
//! library's correctly rounded parser.
//!
//! Parsing numbers was about a fifth of scanning the 1M x 10 sheet
//! (benches/results/read.md).

/// Exact powers of ten as doubles (10^0 to 10^22 are all exact).
const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Powers of ten as integers, 10^0 to 10^19 (the largest below 2^64).
const INTEGER_POWERS_OF_TEN: [u64; 20] = {
    let mut powers = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        powers[i] = powers[i - 1] * 10;
        i += 1;
    }
    powers
};

/// Parses a number as Excel writes it (`-1.5`, `1E+300`, `.5`), refusing
/// the `inf` and `NaN` spellings Rust's parser would accept, and values
/// that overflow to infinity.
#[inline]
pub(crate) fn parse_number(text: &[u8]) -> Option<f64> {
    match parse_decimal(text) {
        Some(number) => Some(number),
        None => parse_other_number(text),
    }
}

/// The numbers [`parse_decimal`] leaves: exponents, a leading `+` or `.`,
/// more than 19 digits; and anything that is not a number.
#[cold]
#[inline(never)]
fn parse_other_number(text: &[u8]) -> Option<f64> {
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

/// The fast path: `-?digits(.digits)?` with at most 19 digits in all (so
/// the mantissa fits in a `u64`), read exactly (see the module docs).
#[inline(always)]
pub(crate) fn parse_decimal(text: &[u8]) -> Option<f64> {
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
    // Four integer digits in one word when there are (years of serial
    // dates, most counts and identifiers).
    if let Some(four) = body.first_chunk::<4>().and_then(|four| four_digits(*four)) {
        mantissa = u64::from(four);
        digits = 4;
        bytes = body[4..].iter();
    }
    // The integer digits, up to the point.
    for &byte in bytes.by_ref() {
        let digit = byte.wrapping_sub(b'0');
        if digit >= 10 {
            if byte != b'.' {
                return None;
            }
            // The fraction digits: eight at a time while eight are left
            // (long fractions, as in computed values like
            // 0.42857142857142855, are common), then one at a time.
            let mut rest = bytes.as_slice();
            while let Some((eight, after)) = rest.split_first_chunk::<8>() {
                mantissa = mantissa
                    .wrapping_mul(100_000_000)
                    .wrapping_add(eight_digits(*eight)?);
                fraction_digits += 8;
                rest = after;
            }
            if let Some((four, after)) = rest.split_first_chunk::<4>()
                && let Some(value) = four_digits(*four)
            {
                mantissa = mantissa.wrapping_mul(10_000).wrapping_add(u64::from(value));
                fraction_digits += 4;
                rest = after;
            }
            for &byte in rest {
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
    if digits == 0 || digits > 19 {
        return None;
    }
    let magnitude = if mantissa <= 1 << 53 {
        // An integer needs no division (dividing by 1 gives the same
        // double), and a division holds up what waits for the value.
        if fraction_digits == 0 {
            mantissa as f64
        } else {
            mantissa as f64 / POWERS_OF_TEN[fraction_digits]
        }
    } else {
        divide_exactly(mantissa, fraction_digits)
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The value of eight ASCII decimal digits, the first the most
/// significant; None when any byte is not a digit.
#[inline(always)]
fn eight_digits(bytes: [u8; 8]) -> Option<u64> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // Digit values; a byte below `0` wraps (and borrows from the next).
    let values = u64::from_le_bytes(bytes).wrapping_sub(ONES * u64::from(b'0'));
    // Adding 0x76 sets the high bit of values from 10 up; values from 0x80
    // up (wrapped, or bytes above 0x7f) have it already. The first byte
    // that is not a digit is flagged whatever the bytes after it do, and
    // without one there is no borrow or carry at all.
    if (values | values.wrapping_add(ONES * 0x76)) & (ONES * 0x80) != 0 {
        return None;
    }
    // Each byte becomes ten times itself plus the next: the even bytes now
    // hold the four two-digit pairs, most significant first.
    let pairs = values.wrapping_mul(10).wrapping_add(values >> 8);
    // Pairs 0 and 2 times 10^6 and 10^2, pairs 1 and 3 times 10^4 and 1,
    // each product landing in the upper half, where the two add up.
    const PAIR_MASK: u64 = 0x0000_00FF_0000_00FF;
    let outer = (pairs & PAIR_MASK).wrapping_mul(100 + (1_000_000 << 32));
    let inner = ((pairs >> 16) & PAIR_MASK).wrapping_mul(1 + (10_000 << 32));
    Some(outer.wrapping_add(inner) >> 32)
}

/// The value of four ASCII decimal digits, as [`eight_digits`] reads
/// eight.
#[inline(always)]
fn four_digits(bytes: [u8; 4]) -> Option<u32> {
    const ONES: u32 = 0x0101_0101;
    let values = u32::from_le_bytes(bytes).wrapping_sub(ONES * u32::from(b'0'));
    if (values | values.wrapping_add(ONES * 0x76)) & (ONES * 0x80) != 0 {
        return None;
    }
    let pairs = values.wrapping_mul(10).wrapping_add(values >> 8);
    Some((pairs & 0xFF) * 100 + ((pairs >> 16) & 0xFF))
}

/// `mantissa / 10^fraction_digits` rounded once to the nearest double, for
/// `fraction_digits <= 19` (the caller's digit count guarantees it).
#[inline]
fn divide_exactly(mantissa: u64, fraction_digits: usize) -> f64 {
    if fraction_digits == 0 {
        // The integer conversion rounds to nearest, ties to even.
        return mantissa as f64;
    }
    // Shift the mantissa up so its top bit is bit 126: the quotient by a
    // divisor below 2^64 then has at least 63 significant bits, ten more
    // than a double keeps, so folding the remainder into bit 0 as a sticky
    // bit decides the rounding exactly as the infinite quotient would.
    let shift = mantissa.leading_zeros() + 63;
    let divisor = u128::from(INTEGER_POWERS_OF_TEN[fraction_digits]);
    let numerator = u128::from(mantissa) << shift;
    let quotient = numerator / divisor;
    // One division: the remainder is what the quotient leaves.
    let sticky = u128::from(quotient * divisor != numerator);
    let rounded = (quotient | sticky) as f64;
    // 2^-shift, a normal double (shift <= 126); scaling by it is exact.
    let scale = f64::from_bits(u64::from(1023 - shift) << 52);
    rounded * scale
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

    /// The next state of a xorshift generator: a deterministic walk.
    fn xorshift(mut state: u64) -> u64 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }

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
            "40000.001388888886",
            "0.42857142857142855",
            "9999999999999999999",
            "999999999.9999999999",
            "0.9999999999999999999",
            "0.0000000000000000001",
            "18446744073709551615",
            "9007199254740993.5",
            "-12345678901234567.89",
            "4.9406564584124654E-324",
            // Integer parts read four digits at a time first, fractions
            // eight, then four, then one at a time.
            "1234",
            "-1234",
            "12345.6789",
            "1234.5",
            "123.4567",
            "0.12345678901",
            "0.123456789012",
            "12345678.123456789",
            "0.12345678",
            "0.12345678e5",
            "1.123456789012345678",
            "1.1234567890123456789",
            "-0.0000000000000001",
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
            state = xorshift(state);
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
    fn long_mantissas_round_like_the_standard_parser() {
        // 16 to 19 digits with the point anywhere: the 128-bit division path.
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..300_000 {
            state = xorshift(state);
            let digits = 16 + (state % 4) as usize;
            let mut text: String =
                format!("{:019}", state % 10_000_000_000_000_000_000)[19 - digits..].to_string();
            let point = ((state >> 8) % digits as u64) as usize;
            if point > 0 {
                text.insert(point, '.');
            }
            if state & (1 << 40) != 0 {
                text.insert(0, '-');
            }
            assert_eq!(
                parse_number(text.as_bytes()).map(f64::to_bits),
                Some(std_parse(&text).to_bits()),
                "{text}"
            );
        }
        // Exactly halfway between neighbouring doubles (ties go to the even
        // one), and a hair either side of halfway.
        for text in [
            "4503599627370497.5",
            "4503599627370498.5",
            "9007199254740993",
            "9007199254740995",
            "9007199254740993.01",
            "9007199254740992.99",
            "1.0000000000000001110",
            "1.000000000000000111",
            "1.000000000000000112",
            "1.000000000000000110",
        ] {
            assert_eq!(
                parse_number(text.as_bytes()).map(f64::to_bits),
                Some(std_parse(text).to_bits()),
                "{text}"
            );
        }
    }

    #[test]
    fn refuses_what_is_not_a_number() {
        for text in [
            "",
            "-",
            ".",
            "inf",
            "-inf",
            "NaN",
            "infinity",
            "1.2.3",
            "1,5",
            "0x10",
            "1e400",
            "--1",
            "+",
            "0.1234567x9",
            "12a4",
            "1234a",
            "1.234x",
            "0.12345678123x",
            "0.12345678/",
            "1.1234567.89",
            "0.1234:678",
            "0.12345\u{e9}",
        ] {
            assert_eq!(parse_number(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn reads_eight_digits_at_once() {
        let mut state: u64 = 0x1234_5678_9ABC_DEF1;
        for _ in 0..100_000 {
            state = xorshift(state);
            let value = state % 100_000_000;
            let text = format!("{value:08}");
            let bytes = *text.as_bytes().first_chunk::<8>().unwrap();
            assert_eq!(eight_digits(bytes), Some(value), "{text}");
            // Any byte that is not a digit, anywhere, among digits of any
            // value: refused.
            let place = (state >> 40) as usize % 8;
            for bad in [0, b'/', b':', b'.', b' ', 0x7f, 0x80, 0xb0, 0xff] {
                let mut damaged = bytes;
                damaged[place] = bad;
                assert_eq!(eight_digits(damaged), None, "{damaged:?}");
            }
        }
        assert_eq!(eight_digits(*b"00000000"), Some(0));
        assert_eq!(eight_digits(*b"99999999"), Some(99_999_999));
    }

    #[test]
    fn reads_four_digits_at_once() {
        for value in 0..10_000u32 {
            let text = format!("{value:04}");
            let bytes = *text.as_bytes().first_chunk::<4>().unwrap();
            assert_eq!(four_digits(bytes), Some(value), "{text}");
            for place in 0..4 {
                for bad in [0, b'/', b':', b'.', b'-', 0x7f, 0x80, 0xff] {
                    let mut damaged = bytes;
                    damaged[place] = bad;
                    assert_eq!(four_digits(damaged), None, "{damaged:?}");
                }
            }
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
