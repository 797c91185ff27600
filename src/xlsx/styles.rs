//! The styles part (`styles.xml`): custom number formats and the cell
//! styles (`cellXfs`), read into [`Styles`].

use crate::date::DateSystem;
use crate::error::Result;
use crate::styles::{Styles, StylesBuilder};

use crate::xml::{self, Token};

/// Reads the styles part.
pub(crate) fn read_styles(bytes: &[u8], date_system: DateSystem) -> Result<Styles> {
    let mut styles = StylesBuilder::new();
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
                        styles.custom_format(id, xml::decode_owned(code, false)?);
                    }
                }
                b"cellXfs" if !self_closing => in_cell_xfs = true,
                b"xf" if in_cell_xfs => {
                    styles
                        .cell_style(number_attribute(bytes, attributes, b"numFmtId")?.unwrap_or(0));
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
    Ok(styles.finish(date_system))
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
    use crate::number_format::FormatKind;

    #[test]
    fn resolves_builtin_and_custom_formats_per_cell_style() {
        let styles = read_styles(
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
        let styles = read_styles(
            br#"<styleSheet><numFmts><numFmt numFmtId="&#49;64" formatCode="yyyy"/></numFmts>
            <cellXfs><xf numFmtId="&#49;4"/><xf numFmtId="1&#54;4"/><xf numFmtId="&#x31;"/></cellXfs></styleSheet>"#,
            DateSystem::V1900,
        )
        .unwrap();
        let got: Vec<bool> = (0..3).map(|i| styles.date_kind(i).is_some()).collect();
        assert_eq!(got, [true, true, false]);
    }
}
