//! The Excel tables (ListObjects) of an `.xlsb` workbook: each table part
//! (`xl/tables/tableN.bin`, found through the sheet's relationships by
//! [`crate::xlsx::tables::read_tables`], as for `.xlsx`) is a small record
//! stream read whole: BrtBeginList (range, header and totals row counts,
//! name, display name), then a BrtBeginListCol per column (its name).
//! The same [`Table`] as `.xlsx` gives.

use super::metadata::range_of;
use super::records::{Fields, Records, utf16_string};
use crate::error::{Error, Result};
use crate::metadata::SheetInfo;
use crate::metadata::Table;

const BEGIN_LIST: u16 = 0x0157;
const BEGIN_LIST_COL: u16 = 0x015B;

/// One table part: its first BrtBeginList and the BrtBeginListCols after
/// it. Damage (a record cut short, a range outside the sheet, a column
/// before the table) is an error naming the part and the record offset.
pub(crate) fn parse_table(bytes: &[u8], part: &str, sheet: &SheetInfo) -> Result<Table> {
    let mut table: Option<Table> = None;
    for record in Records::new(bytes) {
        let (kind, offset, body) = record.map_err(|err| err.with_part(part))?;
        let located = |err: Error| err.with_part(part).with_offset(offset as u64);
        match kind {
            BEGIN_LIST if table.is_none() => {
                table = Some(begin_list(Fields::new(kind, body), sheet).map_err(located)?);
            }
            BEGIN_LIST_COL => {
                let Some(table) = table.as_mut() else {
                    return Err(located(Error::record(
                        "a table column (BrtBeginListCol) before its table (BrtBeginList)",
                    )));
                };
                table
                    .columns
                    .push(column_name(Fields::new(kind, body)).map_err(located)?);
            }
            _ => {}
        }
    }
    table.ok_or_else(|| Error::record("no table record (BrtBeginList)").with_part(part))
}

/// BrtBeginList: rfxList, lt, idList, crwHeader, crwTotals, flags, seven
/// style and connection fields, then stName (nullable), stDisplayName.
fn begin_list(mut fields: Fields<'_>, sheet: &SheetInfo) -> Result<Table> {
    let range = range_of(fields.range("the table's range")?)
        .ok_or_else(|| Error::record("a table whose range lies outside the sheet"))?;
    fields.skip(8, "the table's kind and id")?;
    let header_row_count = fields.u32("the table's header row count")?;
    let totals_row_count = fields.u32("the table's totals row count")?;
    fields.skip(4 + 7 * 4, "the table's flags and styles")?;
    let name = fields
        .nullable_wide_string("the table's name")?
        .map(utf16_string)
        .unwrap_or_default();
    let display_name = utf16_string(fields.wide_string("the table's display name")?);
    Ok(Table {
        name: if name.is_empty() {
            display_name.clone()
        } else {
            name
        },
        display_name,
        sheet: sheet.position(),
        sheet_name: sheet.name().to_owned(),
        range,
        header_row_count,
        totals_row_count,
        columns: Vec::new(),
    })
}

/// BrtBeginListCol: idField, ilta, three style fields, idqsif, stName
/// (the XML mapping's name, nullable), then stCaption: the column's name
/// as the header and formulas show it.
fn column_name(mut fields: Fields<'_>) -> Result<String> {
    fields.skip(6 * 4, "the table column's id and styles")?;
    fields.nullable_wide_string("the table column's unique name")?;
    Ok(fields
        .nullable_wide_string("the table column's name")?
        .map(utf16_string)
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::metadata::{SheetKind, SheetState};

    fn sheet() -> SheetInfo {
        SheetInfo {
            position: 1,
            name: "Data".into(),
            state: SheetState::Visible,
            kind: SheetKind::Worksheet,
            part: "xl/worksheets/sheet2.bin".into(),
        }
    }

    fn record(kind: u16, body: &[u8]) -> Vec<u8> {
        let mut out = if kind < 0x80 {
            vec![kind as u8]
        } else {
            vec![(kind & 0x7F) as u8 | 0x80, (kind >> 7) as u8]
        };
        let mut size = body.len();
        loop {
            let byte = (size & 0x7F) as u8;
            size >>= 7;
            if size == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
        out.extend_from_slice(body);
        out
    }

    fn wide(text: &str) -> Vec<u8> {
        let units: Vec<u16> = text.encode_utf16().collect();
        let mut out = (units.len() as u32).to_le_bytes().to_vec();
        for unit in units {
            out.extend_from_slice(&unit.to_le_bytes());
        }
        out
    }

    fn u32s(values: &[u32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// BrtBeginList for rows 3..=7, columns B..=C (B4:C8), header 1,
    /// totals `totals`.
    fn begin_list(totals: u32, name: Option<&str>, display: &str) -> Vec<u8> {
        let mut body = u32s(&[3, 7, 1, 2, 0, 9, 1, totals, 0]);
        body.extend(u32s(&[u32::MAX; 6]));
        body.extend(u32s(&[0]));
        match name {
            Some(name) => body.extend(wide(name)),
            None => body.extend(u32s(&[u32::MAX])),
        }
        body.extend(wide(display));
        body.extend(u32s(&[u32::MAX; 4]));
        record(BEGIN_LIST, &body)
    }

    fn column(caption: &str) -> Vec<u8> {
        let mut body = u32s(&[1, 0, u32::MAX, u32::MAX, u32::MAX, 0, u32::MAX]);
        body.extend(wide(caption));
        body.extend(u32s(&[u32::MAX; 4]));
        record(BEGIN_LIST_COL, &body)
    }

    #[test]
    fn reads_the_list_and_its_column_captions() {
        let mut part = begin_list(1, None, "Sales");
        part.extend(record(0x0159, &u32s(&[2])));
        part.extend(column("Région"));
        part.extend(record(0x015C, &[]));
        part.extend(column("Units"));
        part.extend(record(0x0158, &[]));
        let table = parse_table(&part, "xl/tables/table1.bin", &sheet()).unwrap();
        assert_eq!(table.name, "Sales");
        assert_eq!(table.display_name, "Sales");
        assert_eq!((table.sheet, table.sheet_name.as_str()), (1, "Data"));
        assert_eq!(table.range.to_string(), "B4:C8");
        assert_eq!((table.header_row_count, table.totals_row_count), (1, 1));
        assert_eq!(table.columns, ["Région", "Units"]);
    }

    #[test]
    fn every_cut_and_flipped_byte_is_a_table_or_an_error() {
        let mut part = begin_list(1, Some("Sales"), "Sales");
        part.extend(column("Région"));
        part.extend(column("Units"));
        for end in 0..part.len() {
            let _ = parse_table(&part[..end], "t", &sheet());
        }
        for at in 0..part.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut damaged = part.clone();
                damaged[at] ^= flip;
                if let Err(err) = parse_table(&damaged, "t", &sheet()) {
                    assert_eq!(err.location().part.as_deref(), Some("t"), "{err}");
                }
            }
        }
    }

    #[test]
    fn damage_is_a_record_error_with_part_and_offset() {
        let part_name = "xl/tables/table1.bin";
        // A record cut short: its size says more than the part holds.
        let mut cut = begin_list(0, Some("T"), "T");
        cut.truncate(cut.len() - 3);
        let err = parse_table(&cut, part_name, &sheet()).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
        assert_eq!(err.location().part.as_deref(), Some(part_name));
        assert_eq!(err.location().offset, Some(0));
        // A name whose length lies (4 billion units).
        let mut lying = begin_list(0, Some("T"), "T");
        // Header (3 bytes), the range and twelve u32 fields.
        let at = 3 + 16 + 12 * 4;
        lying[at..at + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let err = parse_table(&lying, part_name, &sheet()).unwrap_err();
        assert!(err.to_string().contains("the table's name"), "{err}");
        // A column before its table.
        let mut early = column("A");
        early.extend(begin_list(0, Some("T"), "T"));
        // After an 8-byte BrtFRTBegin.
        early.splice(0..0, record(0x0025, &[1, 0, 0, 0x10, 0, 0x80]));
        let err = parse_table(&early, part_name, &sheet()).unwrap_err();
        assert!(err.to_string().contains("before its table"), "{err}");
        assert_eq!(err.location().offset, Some(8));
        // A range past the sheet's last row.
        let mut outside = begin_list(0, Some("T"), "T");
        outside[3 + 4..3 + 8].copy_from_slice(&2_000_000u32.to_le_bytes());
        let err = parse_table(&outside, part_name, &sheet()).unwrap_err();
        assert!(err.to_string().contains("outside the sheet"), "{err}");
        // No table record at all.
        let err = parse_table(&record(0x0158, &[]), part_name, &sheet()).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
    }
}
