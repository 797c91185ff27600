//! Number sections: digit placeholders, grouping and scaling, percent,
//! scientific notation and fractions.
//!
//! A section is rendered for a magnitude (the sign is the caller's: Excel
//! writes a minus sign before the whole section, or none for a negative
//! section). Digits come from a [`Decimal`] on the stack, so nothing here
//! allocates beyond the caller's `String`, and the text is bounded by the
//! section's tokens plus the digits of an `f64` (at most 309 integer
//! digits, 15 of them significant).

use super::decimal::Decimal;
use super::general::write_general;
use super::parse::{Placeholder, Role, Section, SectionKind, Token};

/// Writes `magnitude` (not negative) through a number, scientific or
/// fraction section.
pub(crate) fn write_number(section: &Section, literals: &str, magnitude: f64, out: &mut String) {
    let shift = 2 * i32::from(section.percent) - 3 * i32::from(section.thousands_scale);
    match section.kind {
        SectionKind::Fraction => write_fraction(section, literals, magnitude, shift, out),
        SectionKind::Scientific => write_scientific(section, literals, magnitude, shift, out),
        SectionKind::Number | SectionKind::Date => {
            let mut decimal = Decimal::from_f64(magnitude);
            decimal.shift(shift);
            decimal.round_to_places(i32::from(section.decimal_digits));
            write_tokens(section, literals, magnitude, &decimal, 0, out);
        }
    }
}

fn write_scientific(
    section: &Section,
    literals: &str,
    magnitude: f64,
    shift: i32,
    out: &mut String,
) {
    let mut decimal = Decimal::from_f64(magnitude);
    decimal.shift(shift);
    let integer_places = i32::from(section.integer_digits);
    // `##0.0E+0`: the exponent is a multiple of the integer placeholders
    // (engineering notation); `00.0E+0`: the mantissa fills them.
    let engineering = section.integer_has_optional && integer_places > 1;
    let exponent_for = |power: i32| {
        if engineering {
            power.div_euclid(integer_places) * integer_places
        } else {
            power - integer_places + 1
        }
    };
    let mut exponent = if decimal.is_zero() {
        0
    } else {
        exponent_for(decimal.exponent())
    };
    let mut mantissa = decimal;
    mantissa.shift(-exponent);
    mantissa.round_to_places(i32::from(section.decimal_digits));
    if !mantissa.is_zero() {
        // Rounding up may have added a digit (9.99 to 10.0).
        let again = exponent_for(mantissa.exponent() + exponent);
        if again != exponent {
            mantissa.shift(exponent - again);
            exponent = again;
        }
    }
    write_tokens(section, literals, magnitude, &mantissa, exponent, out);
}

/// Writes a number or scientific section's tokens, the digits from
/// `decimal` and the exponent's from `exponent`.
fn write_tokens(
    section: &Section,
    literals: &str,
    magnitude: f64,
    decimal: &Decimal,
    exponent: i32,
    out: &mut String,
) {
    let exponent_digits = Decimal::from_u64(u64::from(exponent.unsigned_abs()));
    let integer_len = decimal.integer_len();
    for token in &section.tokens {
        match *token {
            Token::Literal { start, end } => out.push_str(literal(literals, start, end)),
            Token::Digit {
                placeholder,
                role: Role::Integer,
                position,
            } => {
                let position = usize::from(position);
                if position + 1 == usize::from(section.integer_digits) {
                    // The leftmost placeholder takes every digit beyond.
                    for overflow in (position + 1..integer_len).rev() {
                        write_integer_digit(
                            section,
                            decimal.integer_digit(overflow),
                            overflow,
                            out,
                        );
                    }
                }
                if position < integer_len {
                    write_integer_digit(section, decimal.integer_digit(position), position, out);
                } else {
                    match placeholder {
                        Placeholder::Zero => write_integer_digit(section, 0, position, out),
                        Placeholder::Space => out.push(' '),
                        Placeholder::Hash => {}
                    }
                }
            }
            Token::Point => {
                if section.integer_digits == 0 {
                    for position in (0..integer_len).rev() {
                        write_integer_digit(
                            section,
                            decimal.integer_digit(position),
                            position,
                            out,
                        );
                    }
                }
                out.push('.');
            }
            Token::Digit {
                placeholder,
                role: Role::Decimal,
                position,
            } => {
                let place = usize::from(position);
                if place <= decimal.decimal_len() {
                    out.push(digit_char(decimal.decimal_digit(place)));
                } else {
                    write_padding(placeholder, out);
                }
            }
            Token::Exponent { plus } => {
                out.push('E');
                if exponent < 0 {
                    out.push('-');
                } else if plus {
                    out.push('+');
                }
            }
            Token::Digit {
                placeholder,
                role: Role::Exponent,
                position,
            } => write_right_aligned(&exponent_digits, placeholder, position, out),
            Token::General => write_general(magnitude, out),
            _ => {}
        }
    }
}

/// An integer digit at `position` (0 is units), then the thousands
/// separator after it when the section groups digits.
fn write_integer_digit(section: &Section, digit: u8, position: usize, out: &mut String) {
    out.push(digit_char(digit));
    if section.grouping && position > 0 && position.is_multiple_of(3) {
        out.push(',');
    }
}

/// One placeholder of a right-aligned run (exponent, numerator) showing a
/// whole number, the leftmost one taking the digits beyond.
fn write_right_aligned(
    number: &Decimal,
    placeholder: Placeholder,
    position: u16,
    out: &mut String,
) {
    write_right_aligned_run(number, placeholder, position, None, out);
}

fn write_right_aligned_run(
    number: &Decimal,
    placeholder: Placeholder,
    position: u16,
    run_len: Option<u16>,
    out: &mut String,
) {
    let position = usize::from(position);
    let len = number.integer_len();
    let leftmost = run_len.is_some_and(|run| position + 1 == usize::from(run));
    if leftmost {
        for overflow in (position + 1..len).rev() {
            out.push(digit_char(number.integer_digit(overflow)));
        }
    }
    if position < len {
        out.push(digit_char(number.integer_digit(position)));
    } else {
        write_padding(placeholder, out);
    }
}

fn write_padding(placeholder: Placeholder, out: &mut String) {
    match placeholder {
        Placeholder::Zero => out.push('0'),
        Placeholder::Space => out.push(' '),
        Placeholder::Hash => {}
    }
}

fn write_fraction(section: &Section, literals: &str, magnitude: f64, shift: i32, out: &mut String) {
    let value = magnitude * 10f64.powi(shift);
    let value = if value.is_finite() { value } else { 0.0 };
    let mut whole = value.floor();
    let part = value - whole;
    let fixed = section.tokens.iter().find_map(|token| match token {
        Token::FixedDenominator(denominator) => Some(u64::from(*denominator)),
        _ => None,
    });
    let (mut numerator, mut denominator) = match fixed {
        Some(denominator) => ((part * denominator as f64).round() as u64, denominator),
        None => {
            let digits = u32::from(section.denominator_digits.clamp(1, 7));
            best_fraction(part, 10u64.pow(digits) - 1)
        }
    };
    if numerator >= denominator {
        whole += 1.0;
        numerator = 0;
        if fixed.is_none() {
            denominator = 1;
        }
    }
    let has_whole = section.integer_digits > 0;
    // Without a whole part the fraction is improper: 5/4, not 1 1/4.
    let numerator_value = if has_whole {
        numerator as f64
    } else {
        whole * denominator as f64 + numerator as f64
    };
    let whole = if has_whole { whole } else { 0.0 };
    // A whole number shows no fraction: its placeholders turn to spaces.
    let blank = has_whole && numerator == 0;
    let whole_digits = Decimal::from_f64(whole);
    let numerator_digits = Decimal::from_f64(numerator_value);
    let denominator_digits = Decimal::from_u64(denominator);
    let denominator_len = denominator_digits.integer_len();
    for token in &section.tokens {
        match *token {
            Token::Literal { start, end } => out.push_str(literal(literals, start, end)),
            Token::Digit {
                placeholder,
                role: Role::Integer,
                position,
            } => {
                if whole_digits.is_zero() && blank && position == 0 {
                    // Zero shows as 0 even through `#`.
                    out.push('0');
                } else {
                    write_right_aligned_run(
                        &whole_digits,
                        placeholder,
                        position,
                        Some(section.integer_digits),
                        out,
                    );
                }
            }
            Token::Digit {
                placeholder,
                role: Role::Numerator,
                position,
            } => {
                if blank {
                    out.push(' ');
                } else if numerator_digits.is_zero() && position == 0 {
                    // A zero with no whole part: `0/1`.
                    out.push('0');
                } else {
                    write_right_aligned_run(
                        &numerator_digits,
                        placeholder,
                        position,
                        Some(section.numerator_digits),
                        out,
                    );
                }
            }
            Token::Slash => out.push(if blank { ' ' } else { '/' }),
            Token::Digit {
                placeholder,
                role: Role::Denominator,
                position,
            } => {
                let position = usize::from(position);
                if blank {
                    out.push(' ');
                } else if position < denominator_len {
                    // Left-aligned: the first placeholder shows the first digit.
                    let digit = denominator_digits.integer_digit(denominator_len - 1 - position);
                    out.push(digit_char(digit));
                } else if placeholder == Placeholder::Space {
                    out.push(' ');
                }
            }
            Token::FixedDenominator(_) => {
                for position in (0..denominator_len).rev() {
                    let digit = denominator_digits.integer_digit(position);
                    out.push(if blank { ' ' } else { digit_char(digit) });
                }
            }
            Token::Point => out.push('.'),
            Token::General => write_general(magnitude, out),
            _ => {}
        }
    }
}

/// The fraction nearest `part` (in 0..1) with a denominator of at most
/// `max_denominator`: the continued fraction's convergents, and the best
/// semiconvergent where the next convergent's denominator is too large.
pub(crate) fn best_fraction(part: f64, max_denominator: u64) -> (u64, u64) {
    if part.is_nan() || part <= 0.0 {
        return (0, 1);
    }
    let max_denominator = max_denominator.max(1);
    // h/k: the previous two convergents, starting from 0/1 and 1/0.
    let (mut h0, mut h1, mut k0, mut k1) = (0u64, 1u64, 1u64, 0u64);
    let mut rest = part;
    for _ in 0..64 {
        let whole = rest.floor();
        if whole > 1e12 {
            break;
        }
        let a = whole as u64;
        let k2 = a.saturating_mul(k1).saturating_add(k0);
        if k2 > max_denominator {
            let t = (max_denominator - k0) / k1.max(1);
            let (hs, ks) = (t * h1 + h0, t * k1 + k0);
            let error = |h: u64, k: u64| (h as f64 / k as f64 - part).abs();
            if ks > 0 && error(hs, ks) < error(h1, k1) {
                return (hs, ks);
            }
            break;
        }
        let h2 = a * h1 + h0;
        (h0, h1, k0, k1) = (h1, h2, k1, k2);
        let fraction = rest - whole;
        if fraction < 1e-12 {
            break;
        }
        rest = 1.0 / fraction;
    }
    if k1 == 0 { (0, 1) } else { (h1, k1) }
}

fn digit_char(digit: u8) -> char {
    char::from(b'0' + digit.min(9))
}

pub(crate) fn literal(literals: &str, start: u32, end: u32) -> &str {
    literals.get(start as usize..end as usize).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::best_fraction;

    #[test]
    fn nearest_fractions() {
        assert_eq!(best_fraction(0.5, 9), (1, 2));
        assert_eq!(best_fraction(0.333_333, 9), (1, 3));
        assert_eq!(best_fraction(0.3, 9), (2, 7));
        assert_eq!(best_fraction(0.3, 99), (3, 10));
        assert_eq!(best_fraction(std::f64::consts::PI - 3.0, 9), (1, 7));
        assert_eq!(best_fraction(std::f64::consts::PI - 3.0, 99), (14, 99));
        assert_eq!(best_fraction(std::f64::consts::PI - 3.0, 999), (16, 113));
        assert_eq!(best_fraction(0.0, 9), (0, 1));
        assert_eq!(best_fraction(0.999_9, 9), (1, 1));
    }
}
