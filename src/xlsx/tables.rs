//! An `.xlsx` table part (`xl/tables/tableN.xml`, found through the
//! sheet's relationships by `opc::read_tables`) into a
//! [`crate::metadata::Table`], read whole (they are small) through
//! [`xml::walk`]. No sheet part is read.

use super::metadata::{attribute_text, number_attribute, xml_error};
use crate::error::{Error, Result};
use crate::metadata::{SheetInfo, Table};
use crate::range::CellRange;
use crate::xml::{self, Namespace, Token};

/// One table part.
pub(crate) fn parse_table(bytes: &[u8], part: &str, sheet: &SheetInfo) -> Result<Table> {
    let mut table: Option<Table> = None;
    let mut in_columns = false;
    let mut depth = 0usize;
    xml::walk(bytes, Namespace::SpreadsheetMl, |token, _| {
        match token {
            Token::Start {
                name,
                attributes,
                self_closing,
            } => {
                let local = xml::local_name(name.of(bytes));
                if depth == 0 && local == b"table" {
                    let name = attribute_text(bytes, attributes, b"name")?.unwrap_or_default();
                    let display_name =
                        attribute_text(bytes, attributes, b"displayName")?.unwrap_or_default();
                    let reference = attribute_text(bytes, attributes, b"ref")?;
                    let range = reference
                        .as_deref()
                        .and_then(|text| text.parse::<CellRange>().ok());
                    let Some(range) = range else {
                        return Err(xml::XmlError {
                            message: "a table without a readable `ref` (its cell range)",
                            offset: attributes.start,
                        });
                    };
                    table = Some(Table {
                        name: if name.is_empty() {
                            display_name.clone()
                        } else {
                            name
                        },
                        display_name,
                        sheet: sheet.position(),
                        sheet_name: sheet.name().to_owned(),
                        range,
                        header_row_count: number_attribute(bytes, attributes, b"headerRowCount")?
                            .unwrap_or(1),
                        totals_row_count: number_attribute(bytes, attributes, b"totalsRowCount")?
                            .unwrap_or(0),
                        columns: Vec::new(),
                    });
                } else if depth == 1 && local == b"tableColumns" {
                    in_columns = !self_closing;
                } else if depth == 2
                    && in_columns
                    && local == b"tableColumn"
                    && let Some(table) = table.as_mut()
                {
                    // Excel writes a line break in a column name as `_x000a_`.
                    let name = xml::attribute(bytes, attributes, b"name")?
                        .map(|raw| xml::decode_owned(raw, true))
                        .transpose()?;
                    table.columns.push(name.unwrap_or_default());
                }
                if !self_closing {
                    depth += 1;
                }
            }
            Token::End { name } => {
                depth = depth.saturating_sub(1);
                if xml::local_name(name.of(bytes)) == b"tableColumns" {
                    in_columns = false;
                }
            }
            _ => {}
        }
        Ok(())
    })
    .map_err(xml_error(part))?;
    table.ok_or_else(|| Error::xml("no <table> element").with_part(part))
}
