//! The metadata of an `.xlsb` workbook ([`crate::metadata`]): defined
//! names, the sheet dimension, hidden columns and rows, merged ranges,
//! hyperlinks and comments (notes).
//!
//! Read this first: a sheet part is streamed through the same
//! [`RecordStream`] the row reader uses, wanting only the records asked
//! for, so the cells are skipped record by record without being decoded
//! or held. The dimension (BrtWsDim) comes before the cells, so reading
//! it stops at BrtBeginSheetData. Comments live in their own part, found
//! through the sheet's relationships; defined names in the workbook part,
//! where their formulas are stored parsed: the names whose formula is one
//! or more references (unions of cell and range references, whole rows
//! and columns) or one constant are decoded, any other is an
//! [`ErrorKind::Unsupported`] error naming it.

use std::io::{Read, Seek};

use super::XlsbBook;
use super::records::{
    BEGIN_COMMENT, BEGIN_SHEET_DATA, COL_INFO, COMMENT_AUTHOR, COMMENT_TEXT, END_SHEET,
    EXTERN_SHEET, Fields, HLINK, MERGE_CELL, NAME, ROW_HDR, RecordStream, Records, SUP_ADDIN,
    SUP_BOOK_SRC, SUP_SAME, SUP_SELF, WS_DIM, WS_FMT_INFO, check_part_end, utf16_string,
};
use super::rows::error_text;
use crate::cell::{CellRef, MAX_COLUMN, MAX_ROW};
use crate::contract::PartSource;
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Comment, DefinedName, Hyperlink, SheetInfo, SheetMetadata};
use crate::opc::{read_relationships, type_suffix};
use crate::range::CellRange;

/// A range from an `RfX` (first row, last row, first column, last
/// column); None when it lies outside the sheet.
pub(crate) fn range_of(
    [first_row, last_row, first_column, last_column]: [u32; 4],
) -> Option<CellRange> {
    (first_row <= MAX_ROW
        && last_row <= MAX_ROW
        && first_column <= MAX_COLUMN
        && last_column <= MAX_COLUMN)
        .then(|| {
            CellRange::new(
                CellRef {
                    row: first_row,
                    column: first_column,
                },
                CellRef {
                    row: last_row,
                    column: last_column,
                },
            )
        })
}

/// Text of a wide string; None when empty.
fn text_or_none(bytes: &[u8]) -> Option<String> {
    (!bytes.is_empty()).then(|| utf16_string(bytes))
}

impl<R: Read + Seek> XlsbBook<R> {
    /// Streams the records of a sheet's part that `wanted` accepts to
    /// `visit`, until it returns false; errors name the sheet and part.
    fn sheet_records(
        &mut self,
        info: &SheetInfo,
        wanted: impl Fn(u16) -> bool,
        mut visit: impl FnMut(u16, Fields<'_>) -> Result<bool>,
    ) -> Result<()> {
        let limits = self.limits;
        let (name, part) = (info.name().to_owned(), info.part().to_owned());
        let locate = |err: Error| err.with_sheet(&name).with_part(&part);
        let reader = self
            .package()?
            .open_binary_part(&part, limits.max_part_bytes, &limits)
            .map_err(locate)?;
        let mut records = RecordStream::new(PartSource::Reader(reader), &limits);
        while let Some(record) = records.next(&wanted).map_err(locate)? {
            let offset = record.offset;
            if !visit(record.kind, record.fields())
                .map_err(|err| locate(err.with_offset(offset)))?
            {
                return Ok(());
            }
        }
        // Read to the end: a part cut short loses what it held after the
        // cut (merged ranges, hyperlinks), refused as the row reader
        // refuses it.
        check_part_end(
            records.last_kind(),
            END_SHEET,
            "BrtEndSheet",
            records.offset(),
        )
        .map_err(locate)
    }

    pub(super) fn read_sheet_dimension(&mut self, info: &SheetInfo) -> Result<Option<CellRange>> {
        let mut dimension = None;
        self.sheet_records(
            info,
            |kind| kind == WS_DIM || kind == BEGIN_SHEET_DATA,
            |kind, mut fields| {
                if kind == WS_DIM {
                    dimension = range_of(fields.range("the dimension")?);
                }
                Ok(false)
            },
        )?;
        Ok(dimension)
    }

    pub(super) fn read_hidden_rows(&mut self, info: &SheetInfo) -> Result<Vec<u32>> {
        let mut hidden = Vec::new();
        self.sheet_records(
            info,
            |kind| kind == ROW_HDR,
            |_, mut fields| {
                let row = fields.u32("a row header's row")?;
                fields.skip(7, "a row header's height and flags")?;
                let flags = fields.u8("a row header's flags")?;
                // fDyZero: the row is hidden.
                if flags & 0x10 != 0 && row <= MAX_ROW {
                    hidden.push(row);
                }
                Ok(true)
            },
        )?;
        Ok(hidden)
    }

    pub(super) fn read_sheet_metadata(&mut self, info: &SheetInfo) -> Result<SheetMetadata> {
        let limits = self.limits;
        let (name, part) = (info.name().to_owned(), info.part().to_owned());
        let relationships = read_relationships(self.package()?, &part, &limits)
            .map_err(|err| err.with_sheet(&name).with_part(&part))?;
        let mut metadata = SheetMetadata::default();
        self.sheet_records(
            info,
            |kind| matches!(kind, WS_DIM | WS_FMT_INFO | COL_INFO | MERGE_CELL | HLINK),
            |kind, mut fields| {
                match kind {
                    WS_DIM => metadata.dimension = range_of(fields.range("the dimension")?),
                    WS_FMT_INFO => {
                        fields.skip(8, "the default column width and row height")?;
                        // fDyZero: rows are hidden unless written.
                        metadata.rows_hidden_by_default =
                            fields.u16("the sheet format's flags")? & 0x0002 != 0;
                    }
                    COL_INFO => {
                        let first = fields.u32("a column range's first column")?;
                        let last = fields.u32("a column range's last column")?;
                        fields.skip(8, "a column range's width and style")?;
                        let flags = fields.u16("a column range's flags")?;
                        if flags & 1 != 0 && first <= last && first <= MAX_COLUMN {
                            metadata.hidden_columns.push(first..=last.min(MAX_COLUMN));
                        }
                    }
                    MERGE_CELL => {
                        metadata
                            .merged
                            .extend(range_of(fields.range("a merged range")?));
                    }
                    _ => {
                        let Some(range) = range_of(fields.range("a hyperlink's cells")?) else {
                            return Ok(true);
                        };
                        let id = fields
                            .nullable_wide_string("a hyperlink's relationship id")?
                            .map(utf16_string);
                        let location = text_or_none(fields.wide_string("a hyperlink's location")?);
                        let tooltip = text_or_none(fields.wide_string("a hyperlink's tooltip")?);
                        let display = text_or_none(fields.wide_string("a hyperlink's text")?);
                        let target = id.and_then(|id| {
                            relationships
                                .iter()
                                .find(|r| r.id == id)
                                .map(|r| r.target.clone())
                        });
                        metadata.hyperlinks.push(Hyperlink {
                            range,
                            target,
                            location,
                            display,
                            tooltip,
                        });
                    }
                }
                Ok(true)
            },
        )?;
        let comments_part = relationships
            .iter()
            .find(|r| {
                type_suffix(&r.kind) == "comments"
                    && self
                        .package()
                        .is_ok_and(|package| package.contains(&r.target))
            })
            .map(|r| r.target.clone());
        if let Some(comments_part) = comments_part {
            let bytes = self
                .package()?
                .read_binary_part(&comments_part, &limits)
                .map_err(|err| err.with_sheet(&name))?;
            metadata.comments = parse_comments(&bytes)
                .map_err(|err| err.with_part(&comments_part).with_sheet(&name))?;
        }
        Ok(metadata)
    }

    pub(super) fn read_defined_names(&mut self, sheets: &[SheetInfo]) -> Result<Vec<DefinedName>> {
        let limits = self.limits;
        let part = self.workbook_part.clone();
        let bytes = self.package()?.read_binary_part(&part, &limits)?;
        let sheet_names: Vec<&str> = sheets.iter().map(|sheet| sheet.name()).collect();
        read_defined_names(&bytes, &sheet_names).map_err(|err| err.with_part(&part))
    }
}

/// The comments of a comments part: authors, then each comment's cell,
/// author and text (rich text runs and phonetic data are not text).
fn parse_comments(bytes: &[u8]) -> Result<Vec<Comment>> {
    let mut authors = Vec::new();
    let mut comments = Vec::new();
    // The comment being read: its cell and author.
    let mut current: Option<(CellRef, Option<String>)> = None;
    for record in Records::new(bytes) {
        let (kind, offset, body) = record?;
        let located = |err: Error| err.with_offset(offset as u64);
        let mut fields = Fields::new(kind, body);
        match kind {
            COMMENT_AUTHOR => {
                authors.push(utf16_string(
                    fields.wide_string("a comment author").map_err(located)?,
                ));
            }
            BEGIN_COMMENT => {
                let author = fields.u32("a comment's author").map_err(located)?;
                let range = fields.range("a comment's cell").map_err(located)?;
                current = range_of(range).map(|range| {
                    let author = usize::try_from(author)
                        .ok()
                        .and_then(|index| authors.get(index))
                        .cloned();
                    (range.first, author)
                });
            }
            COMMENT_TEXT => {
                fields.u8("a comment's text flags").map_err(located)?;
                let text = utf16_string(fields.wide_string("a comment's text").map_err(located)?);
                if let Some((cell, author)) = current.take() {
                    comments.push(Comment { cell, author, text });
                }
            }
            _ => {}
        }
    }
    Ok(comments)
}

/// A column/row reference as written in a formula: `$A`, `A`.
fn push_column(out: &mut String, column: u16) {
    if column & 0x4000 == 0 {
        out.push('$');
    }
    let mut letters = [0u8; 3];
    out.push_str(crate::cell::column_name(
        u32::from(column & 0x3FFF).min(MAX_COLUMN),
        &mut letters,
    ));
}

fn push_row(out: &mut String, row: u32, column: u16) {
    if column & 0x8000 == 0 {
        out.push('$');
    }
    out.push_str(&(u64::from(row) + 1).to_string());
}

/// A sheet name as a formula writes it: quoted (`'My sheet'`, quotes
/// doubled) unless it is letters, digits, `_` and `.` not starting with a
/// digit.
fn push_sheet_name(out: &mut String, name: &str) {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    if plain {
        out.push_str(name);
    } else {
        out.push('\'');
        out.push_str(&name.replace('\'', "''"));
        out.push('\'');
    }
}

/// The defined names of a workbook part (BrtName), their formulas
/// decoded where they are references or a constant.
fn read_defined_names(bytes: &[u8], sheet_names: &[&str]) -> Result<Vec<DefinedName>> {
    // Which supporting links are this workbook (BrtSupSelf, BrtSupSame),
    // in order, and the BrtExternSheet entries (link, first, last sheet).
    let mut links: Vec<bool> = Vec::new();
    let mut extern_sheets: Vec<(u32, i32, i32)> = Vec::new();
    let mut names = Vec::new();
    for record in Records::new(bytes) {
        let (kind, offset, body) = record?;
        let located = |err: Error| err.with_offset(offset as u64);
        let mut fields = Fields::new(kind, body);
        match kind {
            SUP_SELF | SUP_SAME => links.push(true),
            SUP_BOOK_SRC | SUP_ADDIN => links.push(false),
            EXTERN_SHEET => {
                let count = fields.u32("the external sheet count").map_err(located)?;
                for _ in 0..count {
                    let link = fields.u32("an external sheet's link").map_err(located)?;
                    let first = fields
                        .u32("an external sheet's first sheet")
                        .map_err(located)?;
                    let last = fields
                        .u32("an external sheet's last sheet")
                        .map_err(located)?;
                    extern_sheets.push((link, first as i32, last as i32));
                }
            }
            NAME => {
                let flags = fields.u32("a name's flags").map_err(located)?;
                fields.skip(1, "a name's shortcut key").map_err(located)?;
                let sheet = fields.u32("a name's sheet").map_err(located)?;
                let mut name = utf16_string(fields.wide_string("a name").map_err(located)?);
                // fBuiltin: `Print_Area` is written `_xlnm.Print_Area` in
                // .xlsx, as users know it.
                if flags & 0x20 != 0 {
                    name.insert_str(0, "_xlnm.");
                }
                let size = fields.u32("a name's formula size").map_err(located)?;
                let rgce = fields
                    .bytes(size as usize, "a name's formula")
                    .map_err(located)?;
                let refers_to = decode_formula(rgce, &links, &extern_sheets, sheet_names)
                    .ok_or_else(|| {
                        located(Error::new(ErrorKind::Unsupported(format!(
                            "the formula of defined name `{name}` in an .xlsb workbook: only references and constants are decoded"
                        ))))
                    })?;
                names.push(DefinedName {
                    name,
                    refers_to,
                    sheet: usize::try_from(sheet)
                        .ok()
                        .filter(|&index| sheet != u32::MAX && index < sheet_names.len()),
                    hidden: flags & 1 != 0,
                });
            }
            _ => {}
        }
    }
    Ok(names)
}

/// A name's parsed formula as text, when it is a union of references or
/// one constant; None otherwise.
fn decode_formula(
    rgce: &[u8],
    links: &[bool],
    extern_sheets: &[(u32, i32, i32)],
    sheet_names: &[&str],
) -> Option<String> {
    let mut fields = Fields::new(NAME, rgce);
    let mut out = String::new();
    let sheet_prefix = |out: &mut String, ixti: u16| -> Option<()> {
        let &(link, first, last) = extern_sheets.get(usize::from(ixti))?;
        if !*links.get(link as usize)? {
            return None;
        }
        let name = |index: i32| sheet_names.get(usize::try_from(index).ok()?).copied();
        let mut prefix = String::new();
        match (name(first), name(last)) {
            (Some(first), Some(last)) if first == last => push_sheet_name(&mut prefix, first),
            (Some(first), Some(last)) => {
                push_sheet_name(&mut prefix, &format!("{first}:{last}"));
            }
            _ => return None,
        }
        out.push_str(&prefix);
        out.push('!');
        Some(())
    };
    let mut operands = 0;
    while !fields.rest().is_empty() {
        let ptg = fields.u8("a token").ok()?;
        match ptg {
            // PtgRef3d
            0x3A | 0x5A | 0x7A => {
                let ixti = fields.u16("").ok()?;
                let row = fields.u32("").ok()?;
                let column = fields.u16("").ok()?;
                sheet_prefix(&mut out, ixti)?;
                push_column(&mut out, column);
                push_row(&mut out, row, column);
                operands += 1;
            }
            // PtgArea3d
            0x3B | 0x5B | 0x7B => {
                let ixti = fields.u16("").ok()?;
                let (first_row, last_row) = (fields.u32("").ok()?, fields.u32("").ok()?);
                let (first_column, last_column) = (fields.u16("").ok()?, fields.u16("").ok()?);
                sheet_prefix(&mut out, ixti)?;
                let whole_columns = first_row == 0 && last_row == MAX_ROW;
                let whole_rows = first_column & 0x3FFF == 0 && last_column & 0x3FFF == 0x3FFF;
                if whole_columns {
                    push_column(&mut out, first_column);
                    out.push(':');
                    push_column(&mut out, last_column);
                } else if whole_rows {
                    push_row(&mut out, first_row, first_column);
                    out.push(':');
                    push_row(&mut out, last_row, last_column);
                } else {
                    push_column(&mut out, first_column);
                    push_row(&mut out, first_row, first_column);
                    out.push(':');
                    push_column(&mut out, last_column);
                    push_row(&mut out, last_row, last_column);
                }
                operands += 1;
            }
            // PtgRefErr3d, PtgAreaErr3d: a reference to deleted cells.
            0x3C | 0x5C | 0x7C | 0x3D | 0x5D | 0x7D => {
                let size = if ptg & 0x0F == 0x0C { 8 } else { 14 };
                fields.skip(size, "").ok()?;
                out.push_str("#REF!");
                operands += 1;
            }
            // PtgUnion: the references before it, joined.
            0x10 if operands >= 2 => {
                operands -= 1;
            }
            // PtgParen around a union.
            0x15 => {}
            // Constants, alone.
            0x1E if out.is_empty() => out.push_str(&fields.u16("").ok()?.to_string()),
            0x1F if out.is_empty() => {
                let number = fields.f64("").ok()?;
                out.push_str(&number.to_string());
            }
            0x1D if out.is_empty() => out.push_str(if fields.u8("").ok()? != 0 {
                "TRUE"
            } else {
                "FALSE"
            }),
            0x1C if out.is_empty() => out.push_str(error_text(fields.u8("").ok()?).ok()?),
            0x17 if out.is_empty() => {
                let units = fields.u16("").ok()?;
                let text = fields.bytes(usize::from(units) * 2, "").ok()?;
                out.push('"');
                out.push_str(&utf16_string(text).replace('"', "\"\""));
                out.push('"');
            }
            _ => return None,
        }
        if matches!(ptg & 0x1F, 0x1A..=0x1D) && ptg & 0x60 != 0 {
            // References are joined by the unions after them: write the
            // separator now and drop a trailing one at the end.
            out.push(',');
        }
    }
    if out.ends_with(',') {
        out.pop();
    }
    (!out.is_empty() && operands <= 1).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_reference_names() {
        let links = [true];
        let externs = [(0, 0, 0), (0, 1, 1)];
        let sheets = ["Data", "My sheet"];
        // Data!$B$2:$B$4
        let mut area = vec![0x3B, 0, 0];
        area.extend_from_slice(&1u32.to_le_bytes());
        area.extend_from_slice(&3u32.to_le_bytes());
        area.extend_from_slice(&1u16.to_le_bytes());
        area.extend_from_slice(&1u16.to_le_bytes());
        assert_eq!(
            decode_formula(&area, &links, &externs, &sheets).as_deref(),
            Some("Data!$B$2:$B$4")
        );
        // 'My sheet'!$A:$A,'My sheet'!$1:$1 (print titles).
        let mut titles = vec![0x3B, 1, 0];
        titles.extend_from_slice(&0u32.to_le_bytes());
        titles.extend_from_slice(&MAX_ROW.to_le_bytes());
        titles.extend_from_slice(&[0, 0, 0, 0]);
        titles.extend_from_slice(&[0x3B, 1, 0]);
        titles.extend_from_slice(&0u32.to_le_bytes());
        titles.extend_from_slice(&0u32.to_le_bytes());
        titles.extend_from_slice(&0u16.to_le_bytes());
        titles.extend_from_slice(&0x3FFFu16.to_le_bytes());
        titles.push(0x10);
        assert_eq!(
            decode_formula(&titles, &links, &externs, &sheets).as_deref(),
            Some("'My sheet'!$A:$A,'My sheet'!$1:$1")
        );
        // A relative single cell.
        let mut cell = vec![0x3A, 0, 0];
        cell.extend_from_slice(&4u32.to_le_bytes());
        cell.extend_from_slice(&0xC002u16.to_le_bytes());
        assert_eq!(
            decode_formula(&cell, &links, &externs, &sheets).as_deref(),
            Some("Data!C5")
        );
        // A deleted reference.
        assert_eq!(
            decode_formula(&[0x3C, 0, 0, 0, 0, 0, 0, 0, 0], &links, &externs, &sheets).as_deref(),
            Some("#REF!")
        );
        // A constant; a function call is not decoded.
        assert_eq!(
            decode_formula(&[0x1E, 42, 0], &links, &externs, &sheets).as_deref(),
            Some("42")
        );
        assert_eq!(
            decode_formula(&[0x1E, 1, 0, 0x1E, 2, 0, 0x03], &links, &externs, &sheets),
            None
        );
        assert_eq!(
            decode_formula(&[0x21, 0, 0], &links, &externs, &sheets),
            None
        );
        // An external workbook's sheet is not decoded.
        assert_eq!(decode_formula(&area, &[false], &externs, &sheets), None);
    }
}
