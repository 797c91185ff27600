//! The Excel tables (ListObjects) of an `.xlsx` workbook
//! ([`crate::metadata::Table`]): each worksheet's relationships of type
//! `table` name its table parts (`xl/tables/tableN.xml`), read whole (they
//! are small) through [`xml::walk`]. No sheet part is read.

use std::io::{Read, Seek};

use super::metadata::{attribute_text, number_attribute, xml_error};
use crate::xml::{self, Namespace, Token};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::metadata::Table;
use crate::archive::Archive;
use crate::opc::{SheetInfo, SheetKind, read_relationships, type_suffix};
use crate::range::CellRange;

/// Every table of every worksheet, in sheet order, then in the order of
/// each sheet's relationships part. `binary`: the table parts are
/// `.xlsb` record streams (`xl/tables/tableN.bin`, read by
/// [`crate::xlsb::tables`]), found through the relationships the same way.
pub(crate) fn read_tables<R: Read + Seek>(
    archive: &mut Archive<R>,
    sheets: &[SheetInfo],
    limits: &Limits,
    binary: bool,
) -> Result<Vec<Table>> {
    let mut tables = Vec::new();
    for sheet in sheets.iter().filter(|s| s.kind() == SheetKind::Worksheet) {
        let located = |err: Error| err.with_sheet(sheet.name());
        let relationships = read_relationships(archive, sheet.part(), limits).map_err(located)?;
        for relationship in relationships
            .iter()
            .filter(|r| !r.external && type_suffix(&r.kind).eq_ignore_ascii_case("table"))
        {
            let part = &relationship.target;
            if !archive.contains(part) {
                return Err(located(Error::new(ErrorKind::MissingPart(format!(
                    "the table part {part}, which the sheet's relationships name"
                )))));
            }
            let table = if binary {
                let bytes = archive.read_binary_part(part, limits).map_err(located)?;
                crate::xlsb::tables::parse_table(&bytes, part, sheet)
            } else {
                let bytes = archive.read_part(part, limits).map_err(located)?;
                parse_table(&bytes, part, sheet)
            };
            tables.push(
                table
                    .and_then(|t| check_counts(t, part, binary))
                    .map_err(located)?,
            );
        }
    }
    Ok(tables)
}

/// One table part.
fn parse_table(bytes: &[u8], part: &str, sheet: &SheetInfo) -> Result<Table> {
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

/// A table's header and totals row counts, checked against its range
/// (the same for every format's table parts).
fn check_counts(table: Table, part: &str, binary: bool) -> Result<Table> {
    let damaged: fn(String) -> Error = if binary { Error::record } else { Error::xml };
    if table.header_row_count > 1 || table.totals_row_count > 1 {
        return Err(damaged(format!(
            "table {} says {} header rows and {} totals rows (at most 1 each)",
            table.name, table.header_row_count, table.totals_row_count
        ))
        .with_part(part));
    }
    if table.header_row_count + table.totals_row_count > table.range.height() {
        return Err(damaged(format!(
            "table {} has more header and totals rows than its range {} holds",
            table.name, table.range
        ))
        .with_part(part));
    }
    Ok(table)
}
