//! Conversions from [`CivilDateTime`] to chrono's and jiff's civil types
//! (features `chrono` and `jiff`, off by default).

use crate::date::CivilDateTime;

impl CivilDateTime {
    /// The date and time as a `chrono::NaiveDateTime`; `None` for Excel's
    /// fictitious 1900-02-29.
    ///
    /// ```
    /// use sheetstream::{DateSystem, DateTime};
    ///
    /// let civil = DateTime::from_serial(45_352.5, DateSystem::V1900).to_civil().unwrap();
    /// let chrono = civil.to_chrono().unwrap();
    /// assert_eq!(chrono.to_string(), "2024-03-01 12:00:00");
    /// ```
    #[cfg(feature = "chrono")]
    pub fn to_chrono(&self) -> Option<chrono::NaiveDateTime> {
        chrono::NaiveDate::from_ymd_opt(self.year(), self.month().into(), self.day().into())?
            .and_hms_milli_opt(
                self.hour().into(),
                self.minute().into(),
                self.second().into(),
                self.millisecond().into(),
            )
    }

    /// The date and time as a `jiff::civil::DateTime`; `None` for Excel's
    /// fictitious 1900-02-29.
    ///
    /// ```
    /// use sheetstream::{DateSystem, DateTime};
    ///
    /// let civil = DateTime::from_serial(45_352.5, DateSystem::V1900).to_civil().unwrap();
    /// let jiff = civil.to_jiff().unwrap();
    /// assert_eq!(jiff.to_string(), "2024-03-01T12:00:00");
    /// ```
    #[cfg(feature = "jiff")]
    pub fn to_jiff(&self) -> Option<jiff::civil::DateTime> {
        let year = i16::try_from(self.year()).ok()?;
        let date = jiff::civil::Date::new(year, self.month() as i8, self.day() as i8).ok()?;
        let time = jiff::civil::Time::new(
            self.hour() as i8,
            self.minute() as i8,
            self.second() as i8,
            i32::from(self.millisecond()) * 1_000_000,
        )
        .ok()?;
        Some(date.to_datetime(time))
    }
}
