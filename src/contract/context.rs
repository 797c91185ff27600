//! [`SheetContext`]: what a sheet's values are resolved against (shared
//! strings, styles, the date system, what formulas refer to), read once at
//! open and shared read-only by every row reader of every format.

use crate::cell::Value;
use crate::date::{DateSystem, DateTime};
use crate::error::{Error, ErrorKind, Result};
use crate::formula::Links;
use crate::shared_strings::SharedStrings;
use crate::styles::Styles;

/// What a sheet's values are resolved against: read once at open, shared
/// read-only by every reader.
#[derive(Clone, Copy)]
pub(crate) struct SheetContext<'a> {
    pub shared_strings: Option<&'a SharedStrings>,
    pub styles: &'a Styles,
    pub date_system: DateSystem,
    /// What formulas refer to by index (`.xlsb`, `.xls`).
    pub links: &'a Links,
}

#[cold]
#[inline(never)]
fn no_shared_strings() -> Error {
    Error::new(ErrorKind::MissingPart(
        "the shared strings part, which a cell refers to".into(),
    ))
}

#[cold]
#[inline(never)]
fn bad_shared_string(index: u64, count: usize) -> Error {
    Error::new(ErrorKind::SharedStringIndex { index, count })
}

impl<'a> SheetContext<'a> {
    /// A number cell's value: a date when its style says so.
    #[inline]
    pub(crate) fn number_value(self, number: f64, style: u32) -> Value<'static> {
        if let Some(kind) = self.styles.date_kind(style) {
            Value::DateTime(DateTime::from_serial(number, self.date_system).with_kind(kind))
        } else {
            Value::Number(number)
        }
    }

    /// Looks up a shared string (inlined into the row readers: called
    /// apart, measured, it cost a plain read 1.5% more instructions).
    #[inline(always)]
    pub(crate) fn shared_string(self, index: u64) -> Result<&'a str> {
        let Some(strings) = self.shared_strings else {
            return Err(no_shared_strings());
        };
        match strings.get_read(index) {
            Some(text) => Ok(text),
            None => unread_shared_string(strings, index),
        }
    }
}

/// [`SheetContext::shared_string`] of a string not read yet (its block
/// is parsed now), or past the table's end.
#[cold]
#[inline(never)]
fn unread_shared_string(strings: &SharedStrings, index: u64) -> Result<&str> {
    let Ok(position) = usize::try_from(index) else {
        return Err(bad_shared_string(index, strings.len()));
    };
    match strings.lookup(position) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(bad_shared_string(index, strings.len())),
        Err(err) => Err(err),
    }
}
