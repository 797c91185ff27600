//! Date and time sections: a serial day number shown through `yyyy mmmm
//! dddd h:mm:ss.000 AM/PM` tokens and the elapsed `[h] [mm] [ss]`.
//!
//! The time is rounded once, to the finest unit the section shows (whole
//! seconds, or the fractional seconds of `ss.000`), before it is split into
//! days, hours, minutes and seconds, so `23:59:59.6` shown as `h:mm:ss`
//! becomes the next day's `0:00:00`. Month and day names are English;
//! the locale of a `[$-407]` bracket does not change them.

use super::numbers::literal;
use super::parse::{ElapsedUnit, Section, Token};
use crate::date::{DateSystem, DateTime};

/// The largest serial Excel shows as a date: 9999-12-31 23:59:59.999.
const MAX_SERIAL: f64 = 2_958_466.0;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Writes `serial` through a date section; false (nothing written) when
/// the serial is negative or past 9999-12-31, which Excel shows as `####`.
pub(crate) fn write_date(
    section: &Section,
    literals: &str,
    serial: f64,
    system: DateSystem,
    out: &mut String,
) -> bool {
    if !(0.0..MAX_SERIAL).contains(&serial) {
        return false;
    }
    let digits = u32::from(section.subsecond_digits.min(3));
    let units_per_second = 10i64.pow(digits);
    let units_per_day = 86_400 * units_per_second;
    // Exact enough: below 2.6e14 units, well inside an f64's 2^53.
    let units = (serial * units_per_day as f64).round() as i64;
    let days = units / units_per_day;
    let time = units % units_per_day;
    let seconds_of_day = time / units_per_second;
    let subsecond = time % units_per_second;
    let (year, month, day) = civil_day(days, system);
    let weekday = weekday(days, system);
    let hour = seconds_of_day / 3600;
    let minute = seconds_of_day / 60 % 60;
    let second = seconds_of_day % 60;
    let total_seconds = units / units_per_second;
    for token in &section.tokens {
        match *token {
            Token::Literal { start, end } => out.push_str(literal(literals, start, end)),
            Token::Year { len } => {
                if len <= 2 {
                    write_padded(year.rem_euclid(100) as u64, 2, out);
                } else {
                    write_padded(year as u64, 4, out);
                }
            }
            Token::Month { len } => {
                let name = MONTHS[usize::from(month.clamp(1, 12)) - 1];
                match len {
                    1 | 2 => write_padded(u64::from(month), usize::from(len), out),
                    3 => out.push_str(&name[..3]),
                    5 => out.push_str(&name[..1]),
                    _ => out.push_str(name),
                }
            }
            Token::Day { len } => match len {
                1 | 2 => write_padded(u64::from(day), usize::from(len), out),
                3 => out.push_str(&WEEKDAYS[weekday][..3]),
                _ => out.push_str(WEEKDAYS[weekday]),
            },
            Token::Hour { len } => {
                let shown = if section.twelve_hour {
                    match hour % 12 {
                        0 => 12,
                        other => other,
                    }
                } else {
                    hour
                };
                write_padded(shown as u64, usize::from(len.min(2)), out);
            }
            Token::Minute { len } => write_padded(minute as u64, usize::from(len.min(2)), out),
            Token::Second { len } => write_padded(second as u64, usize::from(len.min(2)), out),
            Token::SubSecond { digits: shown } => {
                out.push('.');
                // The first `shown` of the section's rounded digits.
                let mut divisor = units_per_second;
                for _ in 0..shown.min(section.subsecond_digits) {
                    divisor /= 10;
                    out.push(char::from(b'0' + (subsecond / divisor % 10) as u8));
                }
            }
            Token::AmPm => out.push_str(if hour < 12 { "AM" } else { "PM" }),
            Token::AOrP { upper_a, upper_p } => out.push(match (hour < 12, upper_a, upper_p) {
                (true, true, _) => 'A',
                (true, false, _) => 'a',
                (false, _, true) => 'P',
                (false, _, false) => 'p',
            }),
            Token::Elapsed { unit, len } => {
                let total = match unit {
                    ElapsedUnit::Hours => total_seconds / 3600,
                    ElapsedUnit::Minutes => total_seconds / 60,
                    ElapsedUnit::Seconds => total_seconds,
                };
                write_padded(total as u64, usize::from(len).min(20), out);
            }
            _ => {}
        }
    }
    true
}

/// The calendar day of whole day `days`; day 0 of the 1900 system is
/// Excel's 1900-01-00.
fn civil_day(days: i64, system: DateSystem) -> (i32, u8, u8) {
    if system == DateSystem::V1900 && days == 0 {
        return (1900, 1, 0);
    }
    match DateTime::from_serial(days as f64, system).to_civil() {
        Some(civil) => (civil.year(), civil.month(), civil.day()),
        None => (9999, 12, 31),
    }
}

/// 0 is Sunday. Excel counts 1900-01-01 (serial 1) as a Sunday, through
/// its fictitious 1900-02-29; 1904-01-01 (serial 0 of 1904) was a Friday.
fn weekday(days: i64, system: DateSystem) -> usize {
    let offset = match system {
        DateSystem::V1900 => 6,
        DateSystem::V1904 => 5,
    };
    (days + offset).rem_euclid(7) as usize
}

/// Writes `number` with at least `width` digits (leading zeros), digit by
/// digit: most are one or two digits.
fn write_padded(number: u64, width: usize, out: &mut String) {
    let digit = |d: u64| char::from(b'0' + (d % 10) as u8);
    if number < 100 && width <= 2 {
        if number >= 10 || width == 2 {
            out.push(digit(number / 10));
        }
        out.push(digit(number));
        return;
    }
    let mut reversed = [0u8; 20];
    let mut rest = number;
    let mut len = 0;
    loop {
        reversed[len] = (rest % 10) as u8;
        rest /= 10;
        len += 1;
        if rest == 0 {
            break;
        }
    }
    for _ in len..width {
        out.push('0');
    }
    for &d in reversed[..len].iter().rev() {
        out.push(digit(u64::from(d)));
    }
}
