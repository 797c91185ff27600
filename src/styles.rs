//! Cell styles, reduced at open to what the reader needs per cell: whether
//! a style's number format shows a date or time, what kind of number it
//! shows (for the typed layers' inference), and each style's number format
//! parsed for rendering (see `format`).
//!
//! `StylesBuilder` takes custom formats by id, then each cell style's format
//! id, from any format's reader; `Styles` is read-only once built.

use std::collections::HashMap;

use crate::date::{DateSystem, DateTimeKind};
use crate::format::{NumberFormat, NumberFormats};
use crate::number_format::{
    FormatKind, builtin_format_kind, format_code_kind, is_builtin_date_format, is_date_format_code,
};

/// For each cell style (`cellXfs` entry), whether numbers in it are dates,
/// and its number format.
#[derive(Debug, Default, Clone)]
pub(crate) struct Styles {
    /// For each style, how its numbers are shown when they are dates (None
    /// when they are not): what the row reader checks per cell.
    date_styles: Vec<Option<DateTimeKind>>,
    /// The kind of each style's number format, beside `date_styles`.
    format_kinds: Vec<FormatKind>,
    number_formats: NumberFormats,
}

impl Styles {
    /// Whether numbers in style `index` are dates, and then whether they
    /// show as dates, times of day or durations; styles out of range are
    /// General.
    #[inline]
    pub(crate) fn date_kind(&self, index: u32) -> Option<DateTimeKind> {
        self.date_styles.get(index as usize).copied().flatten()
    }

    /// The kind of style `index`'s number format; styles out of range are General.
    pub(crate) fn format_kind(&self, index: u32) -> FormatKind {
        self.format_kinds
            .get(index as usize)
            .copied()
            .unwrap_or_default()
    }

    /// The kind of every style's number format.
    pub(crate) fn format_kinds(&self) -> &[FormatKind] {
        &self.format_kinds
    }

    /// Each style's number format.
    pub(crate) fn number_formats(&self) -> &NumberFormats {
        &self.number_formats
    }

    /// No styles: every cell is General, in `date_system`.
    pub(crate) fn general(date_system: DateSystem) -> Styles {
        Styles {
            date_styles: Vec::new(),
            format_kinds: Vec::new(),
            number_formats: NumberFormats::new(Vec::new(), Vec::new(), date_system),
        }
    }
}

/// Builds [`Styles`] as a format's reader meets them: custom number formats
/// by id, then each cell style's format id in style order. Each distinct
/// number format is parsed once.
#[derive(Default)]
pub(crate) struct StylesBuilder {
    custom_formats: HashMap<u32, String>,
    date_styles: Vec<Option<DateTimeKind>>,
    format_kinds: Vec<FormatKind>,
    /// Distinct formats in use, General first, and the index of each id.
    formats: Vec<NumberFormat>,
    format_index: HashMap<u32, u32>,
    style_formats: Vec<u32>,
}

impl StylesBuilder {
    pub(crate) fn new() -> StylesBuilder {
        StylesBuilder {
            formats: vec![NumberFormat::GENERAL],
            ..StylesBuilder::default()
        }
    }

    /// A custom number format (an id of 164 or more, or one redefining a
    /// built-in id); a later definition of an id replaces an earlier one.
    pub(crate) fn custom_format(&mut self, id: u32, code: String) {
        self.custom_formats.insert(id, code);
    }

    /// The next cell style, showing numbers in format `id`.
    pub(crate) fn cell_style(&mut self, id: u32) {
        let custom = self.custom_formats.get(&id);
        let (is_date, kind) = match custom {
            Some(code) => (is_date_format_code(code), format_code_kind(code)),
            None => (is_builtin_date_format(id), builtin_format_kind(id)),
        };
        self.date_styles.push(is_date.then(|| date_time_kind(kind)));
        self.format_kinds.push(kind);
        let formats = &mut self.formats;
        let index = *self.format_index.entry(id).or_insert_with(|| {
            formats.push(match custom {
                Some(code) => NumberFormat::parse(code),
                None => NumberFormat::builtin(id),
            });
            (formats.len() - 1) as u32
        });
        self.style_formats.push(index);
    }

    pub(crate) fn finish(self, date_system: DateSystem) -> Styles {
        Styles {
            date_styles: self.date_styles,
            format_kinds: self.format_kinds,
            number_formats: NumberFormats::new(self.formats, self.style_formats, date_system),
        }
    }
}

/// How a date format's numbers are shown: a time of day, a duration, or a
/// date (with its time when it has one).
fn date_time_kind(kind: FormatKind) -> DateTimeKind {
    match kind {
        FormatKind::Time => DateTimeKind::Time,
        FormatKind::Duration => DateTimeKind::Duration,
        _ => DateTimeKind::Date,
    }
}
