//! Excel dates and times: serial day numbers, the calendar dates they stand
//! for, and the ISO 8601 text of `t="d"` cells.
//!
//! Excel stores a date or time as a serial number of days (the fraction is the
//! time of day) counted in one of two date systems. [`DateTime::to_civil`]
//! turns a serial into a calendar date and time to the millisecond, and the
//! [`Display`](std::fmt::Display) form of [`CivilDateTime`] is the ISO string
//! `YYYY-MM-DDTHH:MM:SS[.mmm]`.
//!
//! Nothing here allocates or panics, whatever the input: these functions run
//! per cell.

use std::fmt;

/// Milliseconds in a day.
const MS_PER_DAY: i64 = 86_400_000;

/// Day number of 1899-12-31, which 1900-system serials below 60 count from.
const DAY_1899_12_31: i64 = day_number(1899, 12, 31);
/// Day number of 1899-12-30, which 1900-system serials above 60 count from.
const DAY_1899_12_30: i64 = day_number(1899, 12, 30);
/// Day number of 1900-03-01, the first day counted from 1899-12-30.
const DAY_1900_03_01: i64 = day_number(1900, 3, 1);
/// Day number of 1904-01-01, which 1904-system serials count from.
const DAY_1904_01_01: i64 = day_number(1904, 1, 1);
/// Day number of 9999-12-31, the last day a serial can stand for.
const DAY_9999_12_31: i64 = day_number(9999, 12, 31);
/// The 1900-system serial of 9999-12-31.
const MAX_SERIAL_DAYS_1900: i64 = DAY_9999_12_31 - DAY_1899_12_30;
/// The serial of 0001-01-01 in the 1900 system's early count (from
/// 1899-12-31): the earliest date ISO text can name.
const MIN_TEXT_SERIAL_DAYS: i64 = day_number(1, 1, 1) - DAY_1899_12_31;
/// Excel's fictitious 1900-02-29 in the 1900 system.
const FICTITIOUS_LEAP_DAY: i64 = 60;

/// Which epoch a workbook's serial dates count from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DateSystem {
    /// The 1900 date system, Excel's default: serial 1 is 1900-01-01, serial
    /// 60 is the fictitious 1900-02-29 and serial 61 is 1900-03-01.
    #[default]
    V1900,
    /// The 1904 date system (`date1904` in the workbook properties): serial 0
    /// is 1904-01-01.
    V1904,
}

/// What a [`DateTime`] stands for, from its cell's number format: how it is
/// written as text ([`DateTime`]'s `Display`, the CSV, `String` fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DateTimeKind {
    /// A calendar date, with its time of day when it has one (`yyyy-mm-dd`,
    /// `m/d/yyyy h:mm`): `2024-03-01`, `2024-03-01T12:30:00`.
    #[default]
    Date,
    /// A time of day without a date (`h:mm`, `h:mm:ss AM/PM`): `13:45:00`.
    /// Only a value within the date system's first day is one: a value with
    /// whole days under a time-only format (an `=NOW()` shown as a clock)
    /// keeps its date and is a [`Date`](DateTimeKind::Date)
    /// ([`DateTime::with_kind`]), so that no layer drops the date.
    Time,
    /// Elapsed time (`[h]:mm:ss`, `[mm]:ss`): hours counted past 24,
    /// `255:10:10`, and negative durations with a sign, `-01:30:00`.
    Duration,
}

/// A date, time or duration as Excel stores it: a serial day number in a date
/// system, and whether its format shows it as a date, a time of day or a
/// duration ([`DateTimeKind`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DateTime {
    serial: f64,
    system: DateSystem,
    /// Parsed from ISO text (`t="d"`): dates before the epoch are real
    /// dates then, not the negative serials Excel cannot show.
    from_text: bool,
    kind: DateTimeKind,
}

impl DateTime {
    /// A date and time from its serial day number in `system`; the fraction is
    /// the time of day. Any value is accepted; [`to_civil`](Self::to_civil)
    /// says whether it stands for a printable date.
    #[inline]
    pub fn from_serial(serial: f64, system: DateSystem) -> Self {
        Self {
            serial,
            system,
            from_text: false,
            kind: DateTimeKind::Date,
        }
    }

    /// The same value shown as `kind` (a date, a time of day or a
    /// duration). The reader sets it from the cell's number format;
    /// [`from_serial`](Self::from_serial) makes a
    /// [`Date`](DateTimeKind::Date).
    ///
    /// A time of day is a value within the date system's first day (its
    /// millisecond, rounded, from 0 up to 24:00): a value with whole days
    /// (or before the epoch) asked to be a [`Time`](DateTimeKind::Time)
    /// stays a [`Date`](DateTimeKind::Date), so that its date is kept
    /// wherever it goes (text, Arrow, serde). Excel's cell shows such a
    /// value as its clock alone; the date is still the cell's value.
    ///
    /// ```
    /// use sheetstream::{DateSystem, DateTime, DateTimeKind};
    /// let serial = 10.0 + (15.0 * 3600.0 + 10.0 * 60.0 + 10.0) / 86_400.0;
    /// let elapsed = DateTime::from_serial(serial, DateSystem::V1900).with_kind(DateTimeKind::Duration);
    /// assert_eq!(elapsed.to_string(), "255:10:10");
    /// let time = DateTime::from_serial(0.5729166666666666, DateSystem::V1900).with_kind(DateTimeKind::Time);
    /// assert_eq!(time.to_string(), "13:45:00");
    /// // 2024-06-06 23:02:08.410 under `h:mm`: the date is not dropped.
    /// let now = DateTime::from_serial(45449.95981956018, DateSystem::V1900).with_kind(DateTimeKind::Time);
    /// assert_eq!(now.kind(), DateTimeKind::Date);
    /// assert_eq!(now.to_string(), "2024-06-06T23:02:08.410");
    /// ```
    #[inline]
    pub fn with_kind(self, kind: DateTimeKind) -> Self {
        let kind = match kind {
            DateTimeKind::Time if !self.is_time_of_day() => DateTimeKind::Date,
            kind => kind,
        };
        Self { kind, ..self }
    }

    /// Whether the serial, rounded to the millisecond, lies within the
    /// first day of its date system: a time of day and nothing more.
    #[inline]
    fn is_time_of_day(&self) -> bool {
        duration_ms(self.serial).is_some_and(|ms| (0..MS_PER_DAY).contains(&ms))
    }

    /// Whether the value is shown as a date, a time of day or a duration.
    #[inline]
    pub fn kind(&self) -> DateTimeKind {
        self.kind
    }

    /// Whether the value was read from ISO 8601 text (a `t="d"` cell), and
    /// the same value rebuilt from its parts (for the materialised sheet).
    pub(crate) fn is_from_text(&self) -> bool {
        self.from_text
    }

    pub(crate) fn from_parts(
        serial: f64,
        system: DateSystem,
        from_text: bool,
        kind: DateTimeKind,
    ) -> Self {
        Self {
            serial,
            system,
            from_text,
            kind,
        }
    }

    /// The serial day number.
    #[inline]
    pub fn serial(&self) -> f64 {
        self.serial
    }

    /// The date system the serial counts in.
    #[inline]
    pub fn system(&self) -> DateSystem {
        self.system
    }

    /// The calendar date and time of day this serial stands for.
    ///
    /// The whole days are `floor(serial)`, and the time of day is the fraction
    /// rounded to the nearest millisecond, halves away from zero; a time that
    /// rounds up to 24:00 carries into the next day. In the 1900 system, days
    /// below 60 count from 1899-12-31, day 60 is Excel's fictitious
    /// 1900-02-29, and days above 60 count from 1899-12-30. In the 1904 system
    /// days count from 1904-01-01.
    ///
    /// Returns `None` when the serial is not finite, past 9999-12-31 after
    /// rounding, or negative (Excel cannot show a negative date serial; a
    /// date read from ISO text before 1899-12-31 is still converted, back to
    /// 0001-01-01).
    pub fn to_civil(&self) -> Option<CivilDateTime> {
        let serial = self.serial;
        // Rejects NaN and infinities too. The upper bound is past 9999-12-31
        // in both systems and keeps the conversions below exact.
        let earliest = if self.from_text {
            MIN_TEXT_SERIAL_DAYS as f64
        } else {
            0.0
        };
        if !(earliest..4_000_000.0).contains(&serial) {
            return None;
        }
        let whole = serial.floor();
        // Both conversions are exact: `whole` is a small whole number and the
        // rounded milliseconds lie in 0..=MS_PER_DAY.
        let mut days = whole as i64;
        let mut ms = ((serial - whole) * MS_PER_DAY as f64).round() as i64;
        if ms >= MS_PER_DAY {
            days += 1;
            ms -= MS_PER_DAY;
        }
        let (year, month, day) = match self.system {
            DateSystem::V1900 if days == FICTITIOUS_LEAP_DAY => (1900, 2, 29),
            DateSystem::V1900 if days < FICTITIOUS_LEAP_DAY => civil_date(DAY_1899_12_31 + days),
            DateSystem::V1900 => civil_date(DAY_1899_12_30 + days),
            DateSystem::V1904 => civil_date(DAY_1904_01_01 + days),
        };
        if year > 9999 {
            return None;
        }
        Some(CivilDateTime {
            year: i32::try_from(year).ok()?,
            month: u8::try_from(month).ok()?,
            day: u8::try_from(day).ok()?,
            hour: u8::try_from(ms / 3_600_000).ok()?,
            minute: u8::try_from(ms / 60_000 % 60).ok()?,
            second: u8::try_from(ms / 1000 % 60).ok()?,
            millisecond: u16::try_from(ms % 1000).ok()?,
        })
    }
}

impl fmt::Display for DateTime {
    /// As the `sheetstream csv` command writes it by default, by
    /// [`kind`](DateTime::kind):
    ///
    /// - a date in ISO 8601, `2024-03-01` at midnight, `2024-03-01T12:30:00`
    ///   otherwise;
    /// - a time of day as `13:45:00` (a value with a date part is never a
    ///   time of day: [`DateTime::with_kind`]);
    /// - a duration as hours, minutes and seconds, the hours counted past
    ///   24 and at least two digits: `255:10:10`, `00:05:00`, and
    ///   `-01:30:00` for a negative one;
    ///
    /// each with `.mmm` when the millisecond (rounded to the nearest) is not
    /// zero. A serial Excel cannot show as a date or time
    /// ([`DateTime::to_civil`] is None: negative, past 9999, not finite), or
    /// a duration past about 292 million years, is written as its number.
    ///
    /// ```
    /// use sheetstream::{DateSystem, DateTime, DateTimeKind};
    /// assert_eq!(DateTime::from_serial(45352.0, DateSystem::V1900).to_string(), "2024-03-01");
    /// assert_eq!(DateTime::from_serial(45352.5, DateSystem::V1900).to_string(), "2024-03-01T12:00:00");
    /// assert_eq!(DateTime::from_serial(-1.0, DateSystem::V1900).to_string(), "-1");
    /// let time = DateTime::from_serial(0.75, DateSystem::V1900).with_kind(DateTimeKind::Time);
    /// assert_eq!(time.to_string(), "18:00:00");
    /// let late = DateTime::from_serial(-0.0625, DateSystem::V1900).with_kind(DateTimeKind::Duration);
    /// assert_eq!(late.to_string(), "-01:30:00");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            DateTimeKind::Duration => match duration_ms(self.serial) {
                Some(ms) => {
                    if ms < 0 {
                        f.write_str("-")?;
                    }
                    write_clock(f, ms.unsigned_abs())
                }
                None => crate::text::write_number(f, self.serial),
            },
            DateTimeKind::Time => match self.to_civil() {
                Some(civil) => write_clock(f, civil.millisecond_of_day()),
                None => crate::text::write_number(f, self.serial),
            },
            DateTimeKind::Date => match self.to_civil() {
                Some(civil) if civil.is_midnight() => {
                    write!(f, "{:04}-{:02}-{:02}", civil.year, civil.month, civil.day)
                }
                Some(civil) => fmt::Display::fmt(&civil, f),
                None => crate::text::write_number(f, self.serial),
            },
        }
    }
}

/// A serial as whole milliseconds, rounded to the nearest (halves away from
/// zero); None when it is not finite or too large for an `i64`.
pub(crate) fn duration_ms(serial: f64) -> Option<i64> {
    let ms = (serial * MS_PER_DAY as f64).round();
    (ms.is_finite() && ms.abs() < 9.0e18).then_some(ms as i64)
}

/// Writes milliseconds as `HH:MM:SS[.mmm]`, the hours at least two digits
/// and counted past 24.
fn write_clock(f: &mut impl fmt::Write, ms: u64) -> fmt::Result {
    write!(
        f,
        "{:02}:{:02}:{:02}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60
    )?;
    if !ms.is_multiple_of(1000) {
        write!(f, ".{:03}", ms % 1000)?;
    }
    Ok(())
}

/// A calendar date and time of day to the millisecond.
///
/// Dates are proleptic Gregorian, except that 1900-02-29 is possible: it is
/// Excel's fictitious leap day, serial 60 in the 1900 date system. Values
/// order chronologically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CivilDateTime {
    year: i32,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
    millisecond: u16,
}

impl CivilDateTime {
    /// The year, 1899 to 9999.
    pub fn year(&self) -> i32 {
        self.year
    }

    /// The month, 1 to 12.
    pub fn month(&self) -> u8 {
        self.month
    }

    /// The day of the month, 1 to 31.
    pub fn day(&self) -> u8 {
        self.day
    }

    /// The hour, 0 to 23.
    pub fn hour(&self) -> u8 {
        self.hour
    }

    /// The minute, 0 to 59.
    pub fn minute(&self) -> u8 {
        self.minute
    }

    /// The second, 0 to 59.
    pub fn second(&self) -> u8 {
        self.second
    }

    /// The millisecond, 0 to 999.
    pub fn millisecond(&self) -> u16 {
        self.millisecond
    }

    /// Milliseconds since midnight.
    fn millisecond_of_day(&self) -> u64 {
        ((u64::from(self.hour) * 60 + u64::from(self.minute)) * 60 + u64::from(self.second)) * 1000
            + u64::from(self.millisecond)
    }

    /// Whether the time of day is 00:00:00.000.
    pub fn is_midnight(&self) -> bool {
        self.hour == 0 && self.minute == 0 && self.second == 0 && self.millisecond == 0
    }
}

impl fmt::Display for CivilDateTime {
    /// Writes the ISO 8601 form `YYYY-MM-DDTHH:MM:SS`, followed by `.mmm` only
    /// when the millisecond is not zero.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )?;
        if self.millisecond != 0 {
            write!(f, ".{:03}", self.millisecond)?;
        }
        Ok(())
    }
}

/// Parses the ISO 8601 text of a `t="d"` cell into a [`DateTime`] in the 1900
/// system, such that [`DateTime::to_civil`] gives back the written date and
/// time, rounded to the millisecond.
///
/// Surrounding whitespace is ignored. The accepted forms:
///
/// - a date `YYYY-MM-DD`, optionally followed by `THH:MM` or `THH:MM:SS`;
/// - a time alone, `HH:MM` or `HH:MM:SS`, optionally prefixed with `T`;
/// - seconds may carry a fraction of any length after a `.`;
/// - a date with a time, or a time alone, may end with `Z` or an offset
///   `+HH:MM`, `-HH:MM`, `+HHMM` or `+HH`, which is ignored: the time is kept
///   as written;
/// - a duration `PnDTnHnMn.nS`: `P`, then optionally whole days `nD`, then
///   optionally `T` followed by any of whole hours `nH`, whole minutes `nM`
///   and seconds `nS` (with an optional fraction) in that order. Components
///   may exceed their usual range (`PT90M`); at least one must be present.
///
/// Dates are proleptic Gregorian, with Excel's fictitious 1900-02-29 also
/// accepted. A date's serial counts from 1899-12-30 for dates on or after
/// 1900-03-01 and from 1899-12-31 before that; a time alone or a duration
/// counts from 1899-12-31, so its serial is its length in days (`PT30H` is
/// 1.25, shown as 1900-01-01T06:00:00). More than three fractional digits are
/// rounded half away from zero to the millisecond, carrying into seconds,
/// minutes, hours and days; a date's carry follows the real calendar, so
/// 1900-02-28T23:59:59.9999 becomes 1900-03-01.
///
/// Returns `None` when the text is none of these forms (rejected among others:
/// hours past 23 including `24:00`, leap seconds, basic-format text without
/// separators, a space or lowercase `t` in place of `T`, a comma as the
/// decimal sign, negative durations, and week, year or month duration
/// components, whose length in days is ambiguous), or when the value lies
/// outside 0001-01-01 to 9999-12-31 (after rounding). Dates before
/// 1899-12-31 get negative serials, counted back from 1899-12-31.
pub(crate) fn parse_iso_datetime(text: &str) -> Option<DateTime> {
    let mut cursor = Cursor::new(text.trim().as_bytes());
    let (days, ms, kind) = if cursor.eat(b'P') {
        let (days, ms) = split_days(iso_duration_ms(&mut cursor)?);
        (days, ms, DateTimeKind::Duration)
    } else if cursor.eat(b'T') || cursor.rest.get(2) == Some(&b':') {
        let ms = time_of_day_ms(&mut cursor)?;
        utc_offset(&mut cursor)?;
        let (days, ms) = split_days(ms);
        (days, ms, DateTimeKind::Time)
    } else {
        let (days, ms) = date_serial(&mut cursor)?;
        (days, ms, DateTimeKind::Date)
    };
    if !cursor.rest.is_empty() || !(MIN_TEXT_SERIAL_DAYS..=MAX_SERIAL_DAYS_1900).contains(&days) {
        return None;
    }
    // The numerator is a whole number below 2^53, so it is exact, and the
    // division rounds once: the serial is the double nearest the exact value,
    // which `to_civil` rounds back to the same millisecond.
    let serial = (days * MS_PER_DAY + ms) as f64 / MS_PER_DAY as f64;
    Some(DateTime {
        serial,
        system: DateSystem::V1900,
        from_text: true,
        kind,
    })
}

/// Splits a non-negative count of milliseconds into whole days and the
/// milliseconds left over.
fn split_days(ms: i64) -> (i64, i64) {
    (ms.div_euclid(MS_PER_DAY), ms.rem_euclid(MS_PER_DAY))
}

/// Parses `YYYY-MM-DD[THH:MM[:SS[.f]][offset]]` into 1900-system serial days
/// and milliseconds of the day.
fn date_serial(cursor: &mut Cursor<'_>) -> Option<(i64, i64)> {
    let year = cursor.fixed_digits(4)?;
    cursor.require(b'-')?;
    let month = cursor.fixed_digits(2)?;
    cursor.require(b'-')?;
    let day = cursor.fixed_digits(2)?;
    let fictitious = year == 1900 && month == 2 && day == 29;
    // `days_in_month` is 0 for a month outside 1 to 12, rejecting it too.
    if !fictitious && !(1..=days_in_month(year, month)).contains(&day) {
        return None;
    }
    let ms = if cursor.eat(b'T') {
        let ms = time_of_day_ms(cursor)?;
        utc_offset(cursor)?;
        ms
    } else {
        0
    };
    let (carry, ms) = split_days(ms);
    let days = if fictitious {
        FICTITIOUS_LEAP_DAY + carry
    } else {
        let day_number = day_number(year, month, day) + carry;
        if day_number >= DAY_1900_03_01 {
            day_number - DAY_1899_12_30
        } else {
            day_number - DAY_1899_12_31
        }
    };
    Some((days, ms))
}

/// Parses `HH:MM[:SS[.f]]` into milliseconds since midnight, rounded to the
/// millisecond; the result may be a whole day when the fraction rounds up.
fn time_of_day_ms(cursor: &mut Cursor<'_>) -> Option<i64> {
    let hour = cursor.fixed_digits(2)?;
    cursor.require(b':')?;
    let minute = cursor.fixed_digits(2)?;
    let (second, ms) = if cursor.eat(b':') {
        let second = cursor.fixed_digits(2)?;
        let ms = if cursor.eat(b'.') {
            fraction_ms(cursor.digits())?
        } else {
            0
        };
        (second, ms)
    } else {
        (0, 0)
    };
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    Some(((hour * 60 + minute) * 60 + second) * 1000 + ms)
}

/// Consumes an optional `Z`, `+HH:MM`, `-HH:MM`, `+HHMM` or `+HH` offset,
/// failing on a malformed one.
fn utc_offset(cursor: &mut Cursor<'_>) -> Option<()> {
    if cursor.eat(b'Z') {
        return Some(());
    }
    if !cursor.eat(b'+') && !cursor.eat(b'-') {
        return Some(());
    }
    let hours = cursor.fixed_digits(2)?;
    let minutes = if cursor.eat(b':') {
        cursor.fixed_digits(2)?
    } else if cursor.rest.is_empty() {
        0
    } else {
        cursor.fixed_digits(2)?
    };
    (hours <= 23 && minutes <= 59).then_some(())
}

/// Parses the part of a duration after its `P` into milliseconds.
fn iso_duration_ms(cursor: &mut Cursor<'_>) -> Option<i64> {
    let mut total: i64 = 0;
    let mut any_component = false;
    if cursor.peek() != Some(b'T') {
        let days = cursor.whole_number()?;
        cursor.require(b'D')?;
        total = days.checked_mul(MS_PER_DAY)?;
        any_component = true;
    }
    if cursor.eat(b'T') {
        // Units still allowed, in order, with their lengths in milliseconds.
        let mut units: &[(u8, i64)] = &[(b'H', 3_600_000), (b'M', 60_000), (b'S', 1000)];
        let mut any_time_component = false;
        while !cursor.rest.is_empty() {
            let count = cursor.whole_number()?;
            let fraction = if cursor.eat(b'.') {
                Some(fraction_ms(cursor.digits())?)
            } else {
                None
            };
            let designator = cursor.take()?;
            let position = units.iter().position(|&(unit, _)| unit == designator)?;
            let (&(unit, unit_ms), later) = units.get(position..)?.split_first()?;
            // Only seconds may carry a fraction.
            let fraction_ms = match fraction {
                Some(ms) if unit == b'S' => ms,
                Some(_) => return None,
                None => 0,
            };
            total = count
                .checked_mul(unit_ms)?
                .checked_add(fraction_ms)?
                .checked_add(total)?;
            units = later;
            any_time_component = true;
        }
        if !any_time_component {
            return None;
        }
        any_component = true;
    }
    any_component.then_some(total)
}

/// Milliseconds from the digits of a decimal fraction of a second: the first
/// three digits, rounded half away from zero on the fourth (0 to 1000).
/// Fails when there are no digits or a byte is not a digit.
fn fraction_ms(digits: &[u8]) -> Option<i64> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut ms = 0;
    for place in 0..3 {
        ms = ms * 10
            + digits
                .get(place)
                .map_or(0, |&digit| i64::from(digit - b'0'));
    }
    // The value is positive, so it rounds up exactly when the rest of the
    // digits are at least one half: when the fourth digit is 5 or more.
    if digits.get(3).is_some_and(|&digit| digit >= b'5') {
        ms += 1;
    }
    Some(ms)
}

/// A forward-only reader over ASCII text.
struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn new(text: &'a [u8]) -> Self {
        Self { rest: text }
    }

    fn peek(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    /// Consumes the next byte.
    fn take(&mut self) -> Option<u8> {
        let (&byte, rest) = self.rest.split_first()?;
        self.rest = rest;
        Some(byte)
    }

    /// Consumes `byte` if it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.rest = self.rest.get(1..).unwrap_or_default();
            true
        } else {
            false
        }
    }

    /// Consumes `byte`, failing if something else comes next.
    fn require(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    /// Consumes the run of ASCII digits that comes next, possibly empty.
    fn digits(&mut self) -> &'a [u8] {
        let len = self
            .rest
            .iter()
            .position(|byte| !byte.is_ascii_digit())
            .unwrap_or(self.rest.len());
        let (digits, rest) = self.rest.split_at_checked(len).unwrap_or((self.rest, &[]));
        self.rest = rest;
        digits
    }

    /// Consumes exactly `count` digits (at most 18) and returns their value.
    fn fixed_digits(&mut self, count: usize) -> Option<i64> {
        let (digits, rest) = self.rest.split_at_checked(count)?;
        let value = decimal_value(digits)?;
        self.rest = rest;
        Some(value)
    }

    /// Consumes one or more digits and returns their value, failing on
    /// overflow.
    fn whole_number(&mut self) -> Option<i64> {
        let digits = self.digits();
        if digits.is_empty() {
            return None;
        }
        decimal_value(digits)
    }
}

/// The value of a string of ASCII digits; `None` if any byte is not a digit or
/// the value overflows.
fn decimal_value(digits: &[u8]) -> Option<i64> {
    digits.iter().try_fold(0_i64, |value, &byte| {
        if byte.is_ascii_digit() {
            value.checked_mul(10)?.checked_add(i64::from(byte - b'0'))
        } else {
            None
        }
    })
}

/// Whether `year` is a leap year in the proleptic Gregorian calendar.
const fn is_leap_year(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The number of days in `month` (1 to 12) of `year`; 0 for other months.
const fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days in a 400-year Gregorian cycle.
const DAYS_PER_400_YEARS: i64 = 146_097;

/// Days from March 1 to the first of the month `march_based_month` months
/// later (0 = March, ..., 11 = February) in a year that starts in March. The month lengths
/// from March on repeat 31, 30, 31, 30, 31 every five months, which
/// `(153 * m + 2) / 5` counts exactly.
const fn days_before_month(march_based_month: i64) -> i64 {
    (153 * march_based_month + 2) / 5
}

/// The day number (days since 0000-03-01 in the proleptic Gregorian calendar)
/// of a date, for months 1 to 12 and any day.
///
/// Years are counted from March so that the leap day falls at the end of the
/// year.
const fn day_number(year: i64, month: i64, day: i64) -> i64 {
    let (march_year, march_month) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let cycle = march_year.div_euclid(400);
    let year_of_cycle = march_year.rem_euclid(400);
    let days_before_year =
        year_of_cycle * 365 + year_of_cycle / 4 - year_of_cycle / 100 + year_of_cycle / 400;
    cycle * DAYS_PER_400_YEARS + days_before_year + days_before_month(march_month) + day - 1
}

/// The date `(year, month, day)` of a day number, the inverse of
/// [`day_number`].
const fn civil_date(day_number: i64) -> (i64, i64, i64) {
    let cycle = day_number.div_euclid(DAYS_PER_400_YEARS);
    let day_of_cycle = day_number.rem_euclid(DAYS_PER_400_YEARS);
    // Within a cycle, March-based year `y` starts on day `365y + y/4 - y/100`.
    // Taking out one day per 1460 (four years less their leap day), adding
    // one back per 36524 (a century, which lacks one leap day) and taking out
    // one more on the cycle's last day (its 400th-year leap day) leaves a
    // count in which every year is 365 days long.
    let year_of_cycle = (day_of_cycle - day_of_cycle / 1460 + day_of_cycle / 36_524
        - day_of_cycle / (DAYS_PER_400_YEARS - 1))
        / 365;
    let day_of_year =
        day_of_cycle - (year_of_cycle * 365 + year_of_cycle / 4 - year_of_cycle / 100);
    let march_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - days_before_month(march_month) + 1;
    let march_year = cycle * 400 + year_of_cycle;
    if march_month < 10 {
        (march_year, march_month + 3, day)
    } else {
        (march_year + 1, march_month - 9, day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn civil(serial: f64, system: DateSystem) -> Option<String> {
        DateTime::from_serial(serial, system)
            .to_civil()
            .map(|civil| civil.to_string())
    }

    fn v1900(serial: f64) -> Option<String> {
        civil(serial, DateSystem::V1900)
    }

    fn parsed(text: &str) -> Option<String> {
        parse_iso_datetime(text).and_then(|date| date.to_civil().map(|civil| civil.to_string()))
    }

    fn serial_of(text: &str) -> Option<f64> {
        parse_iso_datetime(text).map(|date| date.serial())
    }

    #[test]
    fn a_time_of_day_is_a_value_within_the_first_day() {
        let shown_as_time = |serial: f64, system| {
            DateTime::from_serial(serial, system)
                .with_kind(DateTimeKind::Time)
                .kind()
        };
        for system in [DateSystem::V1900, DateSystem::V1904] {
            assert_eq!(shown_as_time(0.0, system), DateTimeKind::Time);
            assert_eq!(shown_as_time(0.5, system), DateTimeKind::Time);
            // 23:59:59.999 still; less than half a millisecond short of a
            // day rounds to 24:00, the next day.
            assert_eq!(shown_as_time(0.999_999_988, system), DateTimeKind::Time);
            assert_eq!(
                shown_as_time(1.0 - 0.6 / 86_400_000.0, system),
                DateTimeKind::Time
            );
            assert_eq!(
                shown_as_time(1.0 - 0.4 / 86_400_000.0, system),
                DateTimeKind::Date
            );
            assert_eq!(shown_as_time(1.0, system), DateTimeKind::Date);
            assert_eq!(
                shown_as_time(45_449.959_819_560_18, system),
                DateTimeKind::Date
            );
            assert_eq!(shown_as_time(-0.25, system), DateTimeKind::Date);
            assert_eq!(shown_as_time(f64::NAN, system), DateTimeKind::Date);
        }
        // Durations keep their days.
        let elapsed =
            DateTime::from_serial(1.5, DateSystem::V1900).with_kind(DateTimeKind::Duration);
        assert_eq!(elapsed.kind(), DateTimeKind::Duration);
        // The date is written where the clock alone would drop it.
        let now = DateTime::from_serial(45_449.959_819_560_18, DateSystem::V1900)
            .with_kind(DateTimeKind::Time);
        assert_eq!(now.to_string(), "2024-06-06T23:02:08.410");
        // A time of day read from ISO text (`t="d"`) under a time format.
        let text = parse_iso_datetime("2024-06-06T23:02:08.410").unwrap();
        assert_eq!(
            text.with_kind(DateTimeKind::Time).to_string(),
            "2024-06-06T23:02:08.410"
        );
        let clock = parse_iso_datetime("23:02:08.410").unwrap();
        assert_eq!(
            clock.with_kind(DateTimeKind::Time).to_string(),
            "23:02:08.410"
        );
    }

    /// The next day in the real Gregorian calendar, stepped naively.
    fn next_day((year, month, day): (i64, i64, i64)) -> (i64, i64, i64) {
        if day < days_in_month(year, month) {
            (year, month, day + 1)
        } else if month < 12 {
            (year, month + 1, 1)
        } else {
            (year + 1, 1, 1)
        }
    }

    #[test]
    fn day_numbers_match_a_naive_calendar() {
        let mut date = (1, 1, 1);
        let mut number = day_number(1, 1, 1);
        assert_eq!(number, 306);
        while date.0 <= 10_000 {
            assert_eq!(day_number(date.0, date.1, date.2), number, "{date:?}");
            assert_eq!(civil_date(number), date, "day {number}");
            date = next_day(date);
            number += 1;
        }
        assert_eq!(civil_date(0), (0, 3, 1));
        assert_eq!(civil_date(-1), (0, 2, 29));
        assert_eq!(day_number(1970, 1, 1) - day_number(1899, 12, 30), 25_569);
    }

    #[test]
    #[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
    fn every_1900_serial_matches_excel_calendar() {
        // Excel's 1900 calendar: the real one with an extra 1900-02-29.
        let mut date = (1900, 1, 1);
        for serial in 1..=MAX_SERIAL_DAYS_1900 {
            let (year, month, day) = if serial == 60 { (1900, 2, 29) } else { date };
            let expected = format!("{year:04}-{month:02}-{day:02}T00:00:00");
            assert_eq!(v1900(serial as f64).as_deref(), Some(&*expected));
            if serial != 60 {
                date = next_day(date);
            }
        }
        assert_eq!(date, (10_000, 1, 1));
    }

    #[test]
    fn serials_in_the_1900_system() {
        assert_eq!(v1900(1.0).as_deref(), Some("1900-01-01T00:00:00"));
        assert_eq!(v1900(59.0).as_deref(), Some("1900-02-28T00:00:00"));
        assert_eq!(v1900(60.0).as_deref(), Some("1900-02-29T00:00:00"));
        assert_eq!(v1900(60.75).as_deref(), Some("1900-02-29T18:00:00"));
        assert_eq!(v1900(61.0).as_deref(), Some("1900-03-01T00:00:00"));
        assert_eq!(v1900(0.0).as_deref(), Some("1899-12-31T00:00:00"));
        assert_eq!(v1900(-0.0).as_deref(), Some("1899-12-31T00:00:00"));
        assert_eq!(v1900(0.5).as_deref(), Some("1899-12-31T12:00:00"));
        assert_eq!(v1900(43831.5).as_deref(), Some("2020-01-01T12:00:00"));
        assert_eq!(v1900(25569.0).as_deref(), Some("1970-01-01T00:00:00"));
        assert_eq!(v1900(2_958_465.0).as_deref(), Some("9999-12-31T00:00:00"));
        assert_eq!(
            v1900(2_958_465.999_999_988_4).as_deref(),
            Some("9999-12-31T23:59:59.999")
        );
        assert_eq!(v1900(2_958_466.0), None);
    }

    #[test]
    fn serials_in_the_1904_system() {
        let v1904 = |serial| civil(serial, DateSystem::V1904);
        assert_eq!(v1904(0.0).as_deref(), Some("1904-01-01T00:00:00"));
        assert_eq!(v1904(0.25).as_deref(), Some("1904-01-01T06:00:00"));
        assert_eq!(v1904(59.0).as_deref(), Some("1904-02-29T00:00:00"));
        assert_eq!(v1904(60.0).as_deref(), Some("1904-03-01T00:00:00"));
        assert_eq!(v1904(42369.0).as_deref(), Some("2020-01-01T00:00:00"));
        assert_eq!(v1904(2_957_003.0).as_deref(), Some("9999-12-31T00:00:00"));
        assert_eq!(v1904(2_957_004.0), None);
        assert_eq!(v1904(-0.5), None);
    }

    #[test]
    fn rejected_serials() {
        for serial in [
            -1.0,
            -1e-12,
            -f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            1e300,
            4e6,
            3_000_000.0,
            2_958_465.999_999_999,
        ] {
            assert_eq!(v1900(serial), None, "{serial}");
            assert_eq!(civil(serial, DateSystem::V1904), None, "{serial}");
        }
    }

    #[test]
    fn tiny_positive_serials() {
        assert_eq!(
            v1900(f64::MIN_POSITIVE).as_deref(),
            Some("1899-12-31T00:00:00")
        );
        assert_eq!(v1900(5e-324).as_deref(), Some("1899-12-31T00:00:00"));
    }

    #[test]
    fn milliseconds_round_half_away_from_zero_and_carry() {
        assert_eq!(
            v1900(1.000_000_005_787_037).as_deref(),
            Some("1900-01-01T00:00:00.001")
        );
        assert_eq!(
            v1900(1.000_000_005_7).as_deref(),
            Some("1900-01-01T00:00:00")
        );
        assert_eq!(
            v1900(1.999_999_999_9).as_deref(),
            Some("1900-01-02T00:00:00")
        );
        assert_eq!(
            v1900(59.999_999_999).as_deref(),
            Some("1900-02-29T00:00:00")
        );
        assert_eq!(
            v1900(60.999_999_999).as_deref(),
            Some("1900-03-01T00:00:00")
        );
        // Fewer nines stay within the day under the millisecond rule.
        assert_eq!(
            v1900(59.999_999_99).as_deref(),
            Some("1900-02-28T23:59:59.999")
        );
        assert_eq!(
            v1900(60.999_999_9).as_deref(),
            Some("1900-02-29T23:59:59.991")
        );
        assert_eq!(
            v1900(44_000.999_999_999_99).as_deref(),
            Some("2020-06-19T00:00:00")
        );
        assert_eq!(v1900(0.999_999_999).as_deref(), Some("1900-01-01T00:00:00"));
        assert_eq!(
            civil(0.999_999_999, DateSystem::V1904).as_deref(),
            Some("1904-01-02T00:00:00")
        );
        assert_eq!(v1900(2_958_465.999_999_995), None, "rounds past 9999-12-31");
    }

    #[test]
    fn civil_fields_and_display() {
        let value = DateTime::from_serial(43_831.5 + 1.5 / 86_400.0, DateSystem::V1900)
            .to_civil()
            .unwrap();
        assert_eq!(
            (
                value.year(),
                value.month(),
                value.day(),
                value.hour(),
                value.minute(),
                value.second(),
                value.millisecond()
            ),
            (2020, 1, 1, 12, 0, 1, 500)
        );
        assert_eq!(value.to_string(), "2020-01-01T12:00:01.500");
        let date = DateTime::from_serial(2.0, DateSystem::V1904);
        assert_eq!(date.serial(), 2.0);
        assert_eq!(date.system(), DateSystem::V1904);
        assert_eq!(DateSystem::default(), DateSystem::V1900);
        let earlier = DateTime::from_serial(1.5, DateSystem::V1900).to_civil();
        let later = DateTime::from_serial(1.75, DateSystem::V1900).to_civil();
        assert!(earlier < later);
    }

    #[test]
    fn parses_dates_and_times() {
        let cases = [
            ("2020-01-01", "2020-01-01T00:00:00"),
            ("2020-01-01T12:30", "2020-01-01T12:30:00"),
            ("2020-01-01T12:30:15", "2020-01-01T12:30:15"),
            ("2020-01-01T12:30:15.5", "2020-01-01T12:30:15.500"),
            ("2020-01-01T12:30:15.123456789", "2020-01-01T12:30:15.123"),
            ("2020-01-01T12:30:15.1235", "2020-01-01T12:30:15.124"),
            ("2020-01-01T12:30:15.12349999", "2020-01-01T12:30:15.123"),
            ("2020-01-01T12:30:15.000", "2020-01-01T12:30:15"),
            ("2020-01-01T12:30:15Z", "2020-01-01T12:30:15"),
            ("2020-01-01T12:30:15.25+05:30", "2020-01-01T12:30:15.250"),
            ("2020-01-01T12:30-08:00", "2020-01-01T12:30:00"),
            ("2020-01-01T12:30:15+0530", "2020-01-01T12:30:15"),
            ("2020-01-01T12:30:15-08", "2020-01-01T12:30:15"),
            ("  2020-02-29T00:00:00 \n", "2020-02-29T00:00:00"),
            ("2020-01-01T23:59:59.9995", "2020-01-02T00:00:00"),
            ("2020-12-31T23:59:59.9999999", "2021-01-01T00:00:00"),
            ("2020-01-01T10:59:59.9995", "2020-01-01T11:00:00"),
            ("2020-01-01T10:00:59.9995", "2020-01-01T10:01:00"),
            ("1899-12-31", "1899-12-31T00:00:00"),
            ("1899-12-31T18:00", "1899-12-31T18:00:00"),
            ("1900-01-01", "1900-01-01T00:00:00"),
            ("1900-02-28T23:59:59.9999", "1900-03-01T00:00:00"),
            ("1900-02-29", "1900-02-29T00:00:00"),
            ("1900-02-29T23:59:59.9995", "1900-03-01T00:00:00"),
            ("1900-03-01", "1900-03-01T00:00:00"),
            ("9999-12-31T23:59:59.999", "9999-12-31T23:59:59.999"),
            ("9999-12-31T23:59:59.9994", "9999-12-31T23:59:59.999"),
            ("12:00", "1899-12-31T12:00:00"),
            ("12:00:30.25", "1899-12-31T12:00:30.250"),
            ("T06:00:00", "1899-12-31T06:00:00"),
            ("06:00:00Z", "1899-12-31T06:00:00"),
            ("23:59:59.9995", "1900-01-01T00:00:00"),
        ];
        for (text, expected) in cases {
            assert_eq!(parsed(text).as_deref(), Some(expected), "{text:?}");
        }
    }

    #[test]
    fn parsed_serials() {
        assert_eq!(serial_of("1899-12-31"), Some(0.0));
        assert_eq!(serial_of("1900-01-01"), Some(1.0));
        assert_eq!(serial_of("1900-02-28"), Some(59.0));
        assert_eq!(serial_of("1900-02-29T12:00"), Some(60.5));
        assert_eq!(serial_of("1900-03-01"), Some(61.0));
        assert_eq!(serial_of("2020-01-01T12:00:00"), Some(43_831.5));
        assert_eq!(serial_of("9999-12-31"), Some(2_958_465.0));
        assert_eq!(serial_of("12:00"), Some(0.5));
        assert_eq!(serial_of("PT0H11M0.000S"), Some(11.0 / 1440.0));
        assert_eq!(serial_of("PT30H"), Some(1.25));
        assert_eq!(serial_of("P1DT12H"), Some(1.5));
        assert_eq!(serial_of("P2D"), Some(2.0));
        assert_eq!(serial_of("PT90M"), Some(0.0625));
        assert_eq!(serial_of("PT0S"), Some(0.0));
        assert_eq!(serial_of("PT1.5S"), Some(1.5 / 86_400.0));
        assert_eq!(serial_of("PT86399.9995S"), Some(1.0));
        assert_eq!(
            parse_iso_datetime("2020-01-01").map(|date| date.system()),
            Some(DateSystem::V1900)
        );
    }

    #[test]
    fn parses_durations() {
        let cases = [
            ("PT0H11M0.000S", "1899-12-31T00:11:00"),
            ("PT30H", "1900-01-01T06:00:00"),
            ("PT1H2M3.456789S", "1899-12-31T01:02:03.457"),
            ("PT2M", "1899-12-31T00:02:00"),
            ("PT5S", "1899-12-31T00:00:05"),
            ("PT0.0005S", "1899-12-31T00:00:00.001"),
            ("P1D", "1900-01-01T00:00:00"),
            ("P1DT1S", "1900-01-01T00:00:01"),
            ("P0DT0H0M0S", "1899-12-31T00:00:00"),
            ("P2958465D", "9999-12-31T00:00:00"),
        ];
        for (text, expected) in cases {
            assert_eq!(parsed(text).as_deref(), Some(expected), "{text:?}");
        }
    }

    #[test]
    fn rejects_malformed_text() {
        let cases = [
            "",
            "   ",
            "T",
            "P",
            "PT",
            "P1DT",
            "PD",
            "PTH",
            "PT1",
            "PT1.5H",
            "PT1.5M",
            "PT1.S",
            "PT.5S",
            "PT1M1H",
            "PT1H1H",
            "PT1S1M",
            "P1Y",
            "P1M",
            "P1W",
            "P1DT1D",
            "-PT1H",
            "P-1D",
            "PT1h",
            "PT99999999999999999999S",
            "PT9223372036854775807H",
            "P9223372036854775807D",
            "P2958466D",
            "2020-01-01T",
            "2020-01-01T12",
            "2020-01-01T1:00",
            "2020-01-01T12:0",
            "2020-01-01T12:00:0",
            "2020-01-01T12:00:00.",
            "2020-01-01T12:00:00.5x",
            "2020-01-01T24:00",
            "2020-01-01T23:60",
            "2020-01-01T23:59:60",
            "2020-01-01T12:00+",
            "2020-01-01T12:00+5",
            "2020-01-01T12:00+05:",
            "2020-01-01T12:00+24:00",
            "2020-01-01T12:00+05:60",
            "2020-01-01T12:00ZZ",
            "2020-01-01Z",
            "2020-01-01 12:00",
            "2020-1-01",
            "2020-01-1",
            "20200101",
            "2020/01/01",
            "+2020-01-01",
            "02020-01-01",
            "2020-00-01",
            "2020-13-01",
            "2020-01-00",
            "2020-01-32",
            "2020-02-30",
            "2021-02-29",
            "1900-02-30",
            "2000-02-30",
            "0000-01-01",
            "9999-12-31T23:59:59.9995",
            "1:00",
            "12:00:00.",
            "T12",
            "T1200",
            "12:00 x",
            "date",
            "２０２０-01-01",
            "2020-01-01T12:00:00.５",
        ];
        for text in cases {
            assert_eq!(parse_iso_datetime(text), None, "{text:?}");
        }
    }

    #[test]
    fn text_dates_before_the_epoch_keep_their_date() {
        assert_eq!(parsed("1899-12-30").as_deref(), Some("1899-12-30T00:00:00"));
        assert_eq!(
            parsed("1800-07-04T06:30:00").as_deref(),
            Some("1800-07-04T06:30:00")
        );
        assert_eq!(parsed("0001-01-01").as_deref(), Some("0001-01-01T00:00:00"));
        // A number cell with a negative serial is still no date.
        assert_eq!(
            DateTime::from_serial(-1.0, DateSystem::V1900).to_civil(),
            None
        );
    }

    #[test]
    fn leap_years() {
        assert_eq!(parsed("2000-02-29").as_deref(), Some("2000-02-29T00:00:00"));
        assert_eq!(parsed("2400-02-29").as_deref(), Some("2400-02-29T00:00:00"));
        assert_eq!(parse_iso_datetime("2100-02-29"), None);
        assert_eq!(parse_iso_datetime("1904-02-30"), None);
        assert_eq!(parsed("1904-02-29").as_deref(), Some("1904-02-29T00:00:00"));
    }

    #[test]
    #[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
    fn round_trips_through_serials() {
        let times = [
            ("00:00:00", "00:00:00"),
            ("00:00:00.001", "00:00:00.001"),
            ("06:07:08.5", "06:07:08.500"),
            ("12:34:56.789", "12:34:56.789"),
            ("12:34:56.7894", "12:34:56.789"),
            ("12:34:56.7895", "12:34:56.790"),
            ("13:00:00.999", "13:00:00.999"),
            ("23:59:59.999", "23:59:59.999"),
            ("23:59:59.9994999", "23:59:59.999"),
        ];
        let mut date = (1899, 12, 31);
        let mut checked = 0;
        while date.0 <= 9999 {
            let (year, month, day) = date;
            let day_text = format!("{year:04}-{month:02}-{day:02}");
            for (time, expected) in times {
                let text = format!("{day_text}T{time}");
                let expected = format!("{day_text}T{expected}");
                let expected = expected.trim_end_matches(".000");
                assert_eq!(parsed(&text).as_deref(), Some(expected), "{text}");
                checked += 1;
            }
            for _ in 0..37 {
                date = next_day(date);
            }
        }
        assert!(checked > 700_000);
    }

    #[test]
    #[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
    fn every_millisecond_pattern_round_trips_on_extreme_days() {
        // The largest serials have the least room for the time of day.
        for day_text in [
            "9999-12-31",
            "9999-12-30",
            "1900-02-28",
            "1900-02-29",
            "1900-03-01",
            "1899-12-31",
        ] {
            for ms in (0..MS_PER_DAY).step_by(997) {
                let time = format!(
                    "{:02}:{:02}:{:02}.{:03}",
                    ms / 3_600_000,
                    ms / 60_000 % 60,
                    ms / 1000 % 60,
                    ms % 1000
                );
                let expected = format!("{day_text}T{time}");
                let expected = expected.trim_end_matches(".000");
                assert_eq!(
                    parsed(&format!("{day_text}T{time}")).as_deref(),
                    Some(expected)
                );
            }
        }
    }

    #[test]
    fn arbitrary_input_does_not_panic() {
        let alphabet: &[&str] = &[
            "P",
            "T",
            "D",
            "H",
            "M",
            "S",
            ".",
            ":",
            "-",
            "+",
            "Z",
            "0",
            "1",
            "2",
            "5",
            "9",
            " ",
            "é",
            "9999",
            "23:59:59.9999",
        ];
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..50_000 {
            let mut text = String::new();
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (state >> 60) as usize;
            for _ in 0..len {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                text.push_str(alphabet[(state >> 33) as usize % alphabet.len()]);
            }
            if let Some(date) = parse_iso_datetime(&text) {
                assert!(date.to_civil().is_some(), "{text:?}");
            }
            let serial = f64::from_bits(state);
            let _ = DateTime::from_serial(serial, DateSystem::V1900).to_civil();
            let _ = DateTime::from_serial(serial, DateSystem::V1904).to_civil();
        }
    }
}
