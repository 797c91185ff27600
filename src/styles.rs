//! Cell styles, reduced at open to what the reader needs per cell: whether
//! a style's number format shows a date or time, what kind of number it
//! shows (for the typed layers' inference), and each style's number format
//! parsed for rendering (see `format`).

use std::collections::HashMap;

use crate::date::{DateSystem, DateTimeKind};
use crate::error::Result;
use crate::format::{NumberFormat, NumberFormats};
use crate::number_format::{
    FormatKind, builtin_format_kind, format_code_kind, is_builtin_date_format, is_date_format_code,
};
use crate::xml::{self, Token};

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

    /// Reads the styles part. Each distinct number format is parsed once.
    pub(crate) fn parse(bytes: &[u8], date_system: DateSystem) -> Result<Styles> {
        let mut custom_formats: HashMap<u32, String> = HashMap::new();
        let mut date_styles = Vec::new();
        let mut format_kinds = Vec::new();
        // Distinct formats in use, General first, and the index of each id.
        let mut formats = vec![NumberFormat::GENERAL];
        let mut format_index: HashMap<u32, u32> = HashMap::new();
        let mut style_formats = Vec::new();
        let mut in_cell_xfs = false;
        xml::walk(bytes, xml::Namespace::SpreadsheetMl, |token, _| {
            match token {
                Token::Start {
                    name,
                    attributes,
                    self_closing,
                } => match xml::local_name(name.of(bytes)) {
                    b"numFmt" => {
                        let id = number_attribute(bytes, attributes, b"numFmtId")?;
                        let code = xml::attribute(bytes, attributes, b"formatCode")?;
                        if let (Some(id), Some(code)) = (id, code) {
                            let code = xml::decode_owned(code, false)?;
                            custom_formats.insert(id, code);
                        }
                    }
                    b"cellXfs" if !self_closing => in_cell_xfs = true,
                    b"xf" if in_cell_xfs => {
                        let id = number_attribute(bytes, attributes, b"numFmtId")?.unwrap_or(0);
                        let custom = custom_formats.get(&id);
                        let (is_date, kind) = match custom {
                            Some(code) => (is_date_format_code(code), format_code_kind(code)),
                            None => (is_builtin_date_format(id), builtin_format_kind(id)),
                        };
                        date_styles.push(is_date.then(|| date_time_kind(kind)));
                        format_kinds.push(kind);
                        let index = *format_index.entry(id).or_insert_with(|| {
                            formats.push(match custom {
                                Some(code) => NumberFormat::parse(code),
                                None => NumberFormat::builtin(id),
                            });
                            (formats.len() - 1) as u32
                        });
                        style_formats.push(index);
                    }
                    _ => {}
                },
                Token::End { name } if xml::local_name(name.of(bytes)) == b"cellXfs" => {
                    in_cell_xfs = false
                }
                _ => {}
            }
            Ok(())
        })
        .map_err(xml::XmlError::into_error)?;
        Ok(Styles {
            date_styles,
            format_kinds,
            number_formats: NumberFormats::new(formats, style_formats, date_system),
        })
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

/// A number attribute, its references decoded (`numFmtId="&#49;4"` is 14).
fn number_attribute(
    bytes: &[u8],
    attributes: xml::Span,
    wanted: &[u8],
) -> Result<Option<u32>, xml::XmlError> {
    Ok(xml::attribute_decoded(bytes, attributes, wanted)?.and_then(|raw| parse_u32(&raw)))
}

fn parse_u32(text: &[u8]) -> Option<u32> {
    std::str::from_utf8(text).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_builtin_and_custom_formats_per_cell_style() {
        let styles = Styles::parse(
            br#"<styleSheet><numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd"/>
            <numFmt numFmtId="165" formatCode="&quot;yy&quot;0.00"/><numFmt numFmtId="14" formatCode="0.0"/></numFmts>
            <cellStyleXfs><xf numFmtId="22"/></cellStyleXfs>
            <cellXfs count="5"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="22">
            <alignment/></xf><xf numFmtId="14"/></cellXfs></styleSheet>"#,
            DateSystem::V1900,
        )
        .unwrap();
        let got: Vec<bool> = (0..6).map(|i| styles.date_kind(i).is_some()).collect();
        // A custom format given a built-in id replaces the built-in meaning.
        assert_eq!(got, [false, true, false, true, false, false]);
        let kinds: Vec<FormatKind> = (0..6).map(|i| styles.format_kind(i)).collect();
        assert_eq!(
            kinds,
            [
                FormatKind::General,
                FormatKind::Date,
                FormatKind::Fractional,
                FormatKind::DateTime,
                FormatKind::Fractional,
                FormatKind::General
            ]
        );
    }

    #[test]
    fn references_in_number_attributes_are_decoded() {
        let styles = Styles::parse(
            br#"<styleSheet><numFmts><numFmt numFmtId="&#49;64" formatCode="yyyy"/></numFmts>
            <cellXfs><xf numFmtId="&#49;4"/><xf numFmtId="1&#54;4"/><xf numFmtId="&#x31;"/></cellXfs></styleSheet>"#,
            DateSystem::V1900,
        )
        .unwrap();
        let got: Vec<bool> = (0..3).map(|i| styles.date_kind(i).is_some()).collect();
        assert_eq!(got, [true, true, false]);
    }
}
