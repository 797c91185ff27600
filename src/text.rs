//! Numbers as text, the one way every writer of values shares: the CSV,
//! `Display` of values and dates, Arrow's text columns.

use std::fmt;

/// A number in its shortest form that reads back as the same double:
/// plain digits for everyday magnitudes (a whole number below 1e15 as its
/// digits, `-0` for -0.0), an exponent otherwise (`1e20`, `1.5e-7`).
pub(crate) fn write_number(out: &mut impl fmt::Write, number: f64) -> fmt::Result {
    let magnitude = number.abs();
    if number.fract() == 0.0 && magnitude < 1e15 {
        // Integer formatting: exact below 1e15, and cheaper than a float's.
        if number.is_sign_negative() {
            out.write_char('-')?;
        }
        return write!(out, "{}", magnitude as u64);
    }
    if magnitude == 0.0 || (1e-5..1e16).contains(&magnitude) {
        write!(out, "{number}")
    } else {
        write!(out, "{number:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::write_number;

    fn text(number: f64) -> String {
        let mut out = String::new();
        write_number(&mut out, number).unwrap();
        out
    }

    #[test]
    fn numbers_are_written_shortest_and_read_back() {
        assert_eq!(text(3.0), "3");
        assert_eq!(text(-0.0), "-0");
        assert_eq!(text(-42.0), "-42");
        assert_eq!(text(0.1), "0.1");
        assert_eq!(text(999_999_999_999_999.0), "999999999999999");
        assert_eq!(text(1e15), "1000000000000000");
        assert_eq!(text(1e20), "1e20");
        assert_eq!(text(1.5e-7), "1.5e-7");
        for number in [0.1 + 0.2, 1e300, -2.5e-300, 123_456.789] {
            assert_eq!(text(number).parse::<f64>().unwrap(), number);
        }
    }
}
