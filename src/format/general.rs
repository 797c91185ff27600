//! The General format as Excel shows it in a column of the standard width.
//!
//! General shows a number in at most 11 characters, not counting a minus
//! sign: whole numbers of up to 11 digits as they are, other numbers rounded
//! to as many decimals as fit (trailing zeros dropped), and numbers of 12
//! or more integer digits, or below 0.0001, in scientific notation with up
//! to 6 significant digits (`1.23457E+11`, `1E-05`; the exponent has a sign
//! and at least two digits). Excel widens or narrows this with the column;
//! sheetstream always uses the standard width.

use super::decimal::Decimal;

/// The characters General fills.
const WIDTH: i32 = 11;

/// Writes `number` as General shows it.
pub(crate) fn write_general(number: f64, out: &mut String) {
    if !number.is_finite() {
        out.push_str("#NUM!");
        return;
    }
    if number < 0.0 {
        out.push('-');
    }
    let decimal = Decimal::from_f64(number);
    if decimal.is_zero() {
        out.push('0');
        return;
    }
    let exponent = decimal.exponent();
    if (-4..WIDTH).contains(&exponent) {
        let mut rounded = decimal;
        // Integer digits, the point, decimals: 11 characters. Below 1 the
        // integer part is the one `0`.
        let integer_len = (exponent + 1).max(1);
        let places = (WIDTH - 1 - integer_len).max(0);
        rounded.round_to_places(places);
        if rounded.integer_len() as i32 <= WIDTH && !rounded.is_zero() {
            rounded.write_plain(out);
            return;
        }
    }
    write_scientific(decimal, out);
}

fn write_scientific(decimal: Decimal, out: &mut String) {
    let mut mantissa = decimal;
    let exponent_digits = if decimal.exponent().abs() >= 100 {
        3
    } else {
        2
    };
    // `d.ddddd` then `E+dd`: 11 characters.
    mantissa.round_to_significant((WIDTH - 3 - exponent_digits) as usize);
    let exponent = mantissa.exponent();
    mantissa.shift(-exponent);
    mantissa.write_plain(out);
    out.push('E');
    out.push(if exponent < 0 { '-' } else { '+' });
    let magnitude = exponent.unsigned_abs();
    if magnitude < 10 {
        out.push('0');
    }
    out.push_str(itoa_buf(u64::from(magnitude)).as_str());
}

/// A `u64` in decimal on the stack.
pub(crate) struct SmallNumber {
    buf: [u8; 20],
    len: usize,
}

impl SmallNumber {
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[20 - self.len..]).unwrap_or("")
    }
}

pub(crate) fn itoa_buf(mut number: u64) -> SmallNumber {
    let mut small = SmallNumber {
        buf: [0; 20],
        len: 0,
    };
    loop {
        small.len += 1;
        small.buf[20 - small.len] = b'0' + (number % 10) as u8;
        number /= 10;
        if number == 0 {
            break;
        }
    }
    small
}

#[cfg(test)]
mod tests {
    use super::write_general;

    fn general(number: f64) -> String {
        let mut out = String::new();
        write_general(number, &mut out);
        out
    }

    // Expectations from Excel's documented General behaviour: up to 11
    // characters, scientific for 12+ digit integers and tiny numbers.
    #[test]
    fn whole_numbers_up_to_eleven_digits() {
        assert_eq!(general(0.0), "0");
        assert_eq!(general(501.0), "501");
        assert_eq!(general(-42.0), "-42");
        assert_eq!(general(12_345_678_901.0), "12345678901");
        assert_eq!(general(123_456_789_012.0), "1.23457E+11");
        assert_eq!(general(100_000_000_000.0), "1E+11");
        assert_eq!(general(1e100), "1E+100");
    }

    #[test]
    fn decimals_fill_eleven_characters() {
        assert_eq!(general(0.125), "0.125");
        assert_eq!(general(1234.5), "1234.5");
        assert_eq!(general(0.1 + 0.2), "0.3");
        assert_eq!(general(1.0 / 3.0), "0.333333333");
        assert_eq!(general(2.0 / 3.0), "0.666666667");
        assert_eq!(general(123_456.789_012_345), "123456.789");
        assert_eq!(general(0.0001), "0.0001");
        assert_eq!(general(0.000_123_456_789), "0.000123457");
        assert_eq!(general(-0.5), "-0.5");
    }

    #[test]
    fn small_and_large_in_scientific_notation() {
        assert_eq!(general(0.00001), "1E-05");
        assert_eq!(general(0.000_012_34), "1.234E-05");
        assert_eq!(general(1.5e-200), "1.5E-200");
        assert_eq!(general(99_999_999_999.6), "1E+11");
        assert_eq!(general(f64::INFINITY), "#NUM!");
    }
}
