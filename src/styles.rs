//! Cell styles, reduced at open to the one thing the reader needs per cell:
//! whether a style's number format shows a date or time, and what kind of
//! number it shows (for the typed layers' inference).

use std::collections::HashMap;

use crate::error::Result;
use crate::number_format::{
    FormatKind, builtin_format_kind, format_code_kind, is_builtin_date_format, is_date_format_code,
};
use crate::xml::{self, Token};

/// For each cell style (`cellXfs` entry), whether numbers in it are dates.
#[derive(Debug, Default, Clone)]
pub(crate) struct Styles {
    date_styles: Vec<bool>,
    /// The kind of each style's number format, beside `date_styles` (which
    /// the row reader checks per cell).
    format_kinds: Vec<FormatKind>,
}

impl Styles {
    /// Whether numbers in style `index` are dates; styles out of range are General.
    pub(crate) fn is_date(&self, index: u32) -> bool {
        self.date_styles
            .get(index as usize)
            .copied()
            .unwrap_or(false)
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

    /// Reads the styles part.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Styles> {
        let mut custom_formats: HashMap<u32, (bool, FormatKind)> = HashMap::new();
        let mut date_styles = Vec::new();
        let mut format_kinds = Vec::new();
        let mut in_cell_xfs = false;
        xml::walk(bytes, |token| {
            match token {
                Token::Start {
                    name,
                    attributes,
                    self_closing,
                } => match xml::local_name(name.of(bytes)) {
                    b"numFmt" => {
                        let id =
                            xml::attribute(bytes, attributes, b"numFmtId")?.and_then(parse_u32);
                        let code = xml::attribute(bytes, attributes, b"formatCode")?;
                        if let (Some(id), Some(code)) = (id, code) {
                            let code = xml::decode_owned(code, false)?;
                            custom_formats
                                .insert(id, (is_date_format_code(&code), format_code_kind(&code)));
                        }
                    }
                    b"cellXfs" if !self_closing => in_cell_xfs = true,
                    b"xf" if in_cell_xfs => {
                        let id = xml::attribute(bytes, attributes, b"numFmtId")?
                            .and_then(parse_u32)
                            .unwrap_or(0);
                        let (is_date, kind) =
                            custom_formats.get(&id).copied().unwrap_or_else(|| {
                                (is_builtin_date_format(id), builtin_format_kind(id))
                            });
                        date_styles.push(is_date);
                        format_kinds.push(kind);
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
        })
    }
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
        )
        .unwrap();
        let got: Vec<bool> = (0..6).map(|i| styles.is_date(i)).collect();
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
}
