//! A number's decimal digits as Excel sees them: 15 significant digits,
//! rounded half away from zero at whatever place a format shows.
//!
//! Everything lives on the stack; nothing here allocates or panics.

use std::fmt::Write;

/// The significant digits Excel keeps of a number.
pub(crate) const SIGNIFICANT_DIGITS: usize = 15;
/// The most digits a `Decimal` holds: an `f64`'s shortest form has 17.
const MAX_DIGITS: usize = 17;

/// A non-negative decimal `0.d1 d2 .. dlen × 10^point`; no digits is zero.
/// Trailing zeros are never stored; a number from an `f64` has at most 15
/// digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decimal {
    digits: [u8; MAX_DIGITS],
    len: usize,
    point: i32,
}

/// A small `fmt::Write` into a stack buffer, for the standard library's
/// exact float formatting without a heap allocation.
struct StackText {
    buf: [u8; 40],
    len: usize,
}

impl Write for StackText {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        let end = self.len + text.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl Decimal {
    pub(crate) const ZERO: Decimal = Decimal {
        digits: [0; MAX_DIGITS],
        len: 0,
        point: 0,
    };

    /// The absolute value of a finite number to 15 significant digits (a
    /// non-finite number is zero).
    pub(crate) fn from_f64(number: f64) -> Decimal {
        let number = number.abs();
        if !number.is_finite() || number == 0.0 {
            return Decimal::ZERO;
        }
        if number < 1e15 && number.fract() == 0.0 {
            // A whole number of at most 15 digits: its digits, exactly.
            return Decimal::from_whole(number as u64);
        }
        let mut text = StackText {
            buf: [0; 40],
            len: 0,
        };
        // The shortest digits that read back as `number` (at most 17),
        // `d.ddde<exp>`, then rounded to 15 significant digits.
        if write!(text, "{number:e}").is_err() {
            return Decimal::ZERO;
        }
        let text = &text.buf[..text.len];
        let Some(e_at) = text.iter().position(|&b| b == b'e') else {
            return Decimal::ZERO;
        };
        let exponent: i32 = std::str::from_utf8(&text[e_at + 1..])
            .ok()
            .and_then(|e| e.parse().ok())
            .unwrap_or(0);
        let mut decimal = Decimal::ZERO;
        for &byte in text[..e_at].iter().filter(|b| b.is_ascii_digit()) {
            if decimal.len < MAX_DIGITS {
                decimal.digits[decimal.len] = byte - b'0';
                decimal.len += 1;
            }
        }
        decimal.point = exponent + 1;
        decimal.trim();
        decimal.round_to_significant(SIGNIFICANT_DIGITS);
        decimal
    }

    /// A whole number below 10^17, exactly.
    fn from_whole(mut number: u64) -> Decimal {
        let mut reversed = [0u8; MAX_DIGITS];
        let mut count = 0;
        while number > 0 && count < MAX_DIGITS {
            reversed[count] = (number % 10) as u8;
            number /= 10;
            count += 1;
        }
        let mut decimal = Decimal::ZERO;
        for index in 0..count {
            decimal.digits[index] = reversed[count - 1 - index];
        }
        decimal.len = count;
        decimal.point = count as i32;
        decimal.trim();
        decimal
    }

    /// A whole number.
    pub(crate) fn from_u64(number: u64) -> Decimal {
        Decimal::from_f64(number as f64)
    }

    fn trim(&mut self) {
        while self.len > 0 && self.digits[self.len - 1] == 0 {
            self.len -= 1;
        }
        if self.len == 0 {
            self.point = 0;
        }
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.len == 0
    }

    /// Multiplies by `10^by`.
    pub(crate) fn shift(&mut self, by: i32) {
        if !self.is_zero() {
            self.point = self.point.saturating_add(by);
        }
    }

    /// The power of ten of the first digit (`floor(log10(x))`); 0 for zero.
    pub(crate) fn exponent(&self) -> i32 {
        if self.is_zero() { 0 } else { self.point - 1 }
    }

    /// Rounds to `places` decimal places (negative: to tens, hundreds...),
    /// halves away from zero.
    pub(crate) fn round_to_places(&mut self, places: i32) {
        let keep = i64::from(self.point) + i64::from(places);
        self.round_keeping(keep);
    }

    /// Rounds to `count` significant digits, halves away from zero.
    pub(crate) fn round_to_significant(&mut self, count: usize) {
        self.round_keeping(count as i64);
    }

    fn round_keeping(&mut self, keep: i64) {
        if self.is_zero() || keep >= self.len as i64 {
            return;
        }
        if keep < 0 {
            *self = Decimal::ZERO;
            return;
        }
        let keep = keep as usize;
        let round_up = self.digits[keep] >= 5;
        self.len = keep;
        if round_up {
            let mut index = keep;
            loop {
                if index == 0 {
                    // Every kept digit was 9 (or none was kept): 10^point.
                    self.digits[0] = 1;
                    self.len = 1;
                    self.point += 1;
                    break;
                }
                index -= 1;
                if self.digits[index] == 9 {
                    self.digits[index] = 0;
                } else {
                    self.digits[index] += 1;
                    break;
                }
            }
        }
        self.trim();
    }

    /// How many digits the integer part has (none for a number below 1).
    pub(crate) fn integer_len(&self) -> usize {
        if self.is_zero() {
            0
        } else {
            self.point.max(0) as usize
        }
    }

    /// The integer digit `position` places left of the point (0 is units).
    pub(crate) fn integer_digit(&self, position: usize) -> u8 {
        let index = i64::from(self.point) - 1 - position as i64;
        self.digit_at(index)
    }

    /// The decimal digit at `place` (1 is tenths).
    pub(crate) fn decimal_digit(&self, place: usize) -> u8 {
        let index = i64::from(self.point) + place as i64 - 1;
        self.digit_at(index)
    }

    /// The number of decimal places up to the last non-zero digit.
    pub(crate) fn decimal_len(&self) -> usize {
        (self.len as i64 - i64::from(self.point)).max(0) as usize
    }

    fn digit_at(&self, index: i64) -> u8 {
        if (0..self.len as i64).contains(&index) {
            self.digits[index as usize]
        } else {
            0
        }
    }

    /// Writes the number in plain decimal notation, all its digits.
    pub(crate) fn write_plain(&self, out: &mut String) {
        let integer_len = self.integer_len();
        if integer_len == 0 {
            out.push('0');
        }
        for position in (0..integer_len).rev() {
            out.push(char::from(b'0' + self.integer_digit(position)));
        }
        let decimals = self.decimal_len();
        if decimals > 0 {
            out.push('.');
            for place in 1..=decimals {
                out.push(char::from(b'0' + self.decimal_digit(place)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(decimal: Decimal) -> String {
        let mut out = String::new();
        decimal.write_plain(&mut out);
        out
    }

    #[test]
    fn fifteen_significant_digits() {
        assert_eq!(plain(Decimal::from_f64(0.1 + 0.2)), "0.3");
        assert_eq!(plain(Decimal::from_f64(-1234.5)), "1234.5");
        assert_eq!(
            plain(Decimal::from_f64(123_456_789_012_345_678.0)),
            "123456789012346000"
        );
        assert_eq!(plain(Decimal::from_f64(0.000_012_5)), "0.0000125");
        assert_eq!(plain(Decimal::from_f64(0.0)), "0");
        assert_eq!(plain(Decimal::from_f64(f64::NAN)), "0");
    }

    #[test]
    fn rounds_halves_away_from_zero_on_the_decimal_digits() {
        let round = |number: f64, places: i32| {
            let mut decimal = Decimal::from_f64(number);
            decimal.round_to_places(places);
            plain(decimal)
        };
        assert_eq!(round(0.125, 2), "0.13");
        // 2.675 is 2.67499999... in binary; Excel rounds its 15 digits.
        assert_eq!(round(2.675, 2), "2.68");
        assert_eq!(round(9.995, 2), "10");
        assert_eq!(round(0.5, 0), "1");
        assert_eq!(round(0.4, 0), "0");
        assert_eq!(round(0.004, 2), "0");
        assert_eq!(round(1250.0, -2), "1300");
        assert_eq!(round(999.9, 0), "1000");
    }
}
