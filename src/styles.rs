//! Cell styles, reduced at open to the one thing the reader needs per cell:
//! whether a style's number format shows a date or time.

use std::collections::HashMap;

use crate::error::Result;
use crate::number_format::{is_builtin_date_format, is_date_format_code};
use crate::xml::{self, Token};

/// For each cell style (`cellXfs` entry), whether numbers in it are dates.
#[derive(Debug, Default, Clone)]
pub(crate) struct Styles {
    date_styles: Vec<bool>,
}

impl Styles {
    /// Whether numbers in style `index` are dates; styles out of range are General.
    pub(crate) fn is_date(&self, index: u32) -> bool {
        self.date_styles
            .get(index as usize)
            .copied()
            .unwrap_or(false)
    }

    /// Reads the styles part.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Styles> {
        let mut custom_formats: HashMap<u32, bool> = HashMap::new();
        let mut date_styles = Vec::new();
        let mut in_cell_xfs = false;
        xml::walk(bytes, |token| {
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
                            custom_formats.insert(id, is_date_format_code(&code));
                        }
                    }
                    b"cellXfs" if !self_closing => in_cell_xfs = true,
                    b"xf" if in_cell_xfs => {
                        let id = number_attribute(bytes, attributes, b"numFmtId")?.unwrap_or(0);
                        let is_date = custom_formats
                            .get(&id)
                            .copied()
                            .unwrap_or_else(|| is_builtin_date_format(id));
                        date_styles.push(is_date);
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
        Ok(Styles { date_styles })
    }
}

/// A number attribute, its references decoded (`numFmtId="&#49;4"` is 14).
fn number_attribute(
    bytes: &[u8],
    attributes: xml::Span,
    wanted: &[u8],
) -> Result<Option<u32>, xml::XmlError> {
    let Some(raw) = xml::attribute(bytes, attributes, wanted)? else {
        return Ok(None);
    };
    if !raw.contains(&b'&') {
        return Ok(parse_u32(raw));
    }
    Ok(parse_u32(xml::decode_owned(raw, false)?.as_bytes()))
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
    }

    #[test]
    fn references_in_number_attributes_are_decoded() {
        let styles = Styles::parse(
            br#"<styleSheet><numFmts><numFmt numFmtId="&#49;64" formatCode="yyyy"/></numFmts>
            <cellXfs><xf numFmtId="&#49;4"/><xf numFmtId="1&#54;4"/><xf numFmtId="&#x31;"/></cellXfs></styleSheet>"#,
        )
        .unwrap();
        let got: Vec<bool> = (0..3).map(|i| styles.is_date(i)).collect();
        assert_eq!(got, [true, true, false]);
    }
}
