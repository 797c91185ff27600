//! Metadata of `.xls` workbooks, read from the records the cell reader
//! skips: a sheet's DIMENSIONS (the dimension), ROW (hidden rows), COLINFO
//! (hidden columns), DEFAULTROWHEIGHT (rows hidden by default) and
//! MERGEDCELLS (merged ranges); the globals' NAME records (defined names,
//! with the text of a formula that is one 3-D reference or range, as
//! `Sheet1!$A$1:$B$2`; other formulas give an empty `refers_to`), and
//! HLINK with HLINKTOOLTIP (hyperlinks: URL and file targets, locations,
//! display text, tooltips), and comments: in BIFF8 a NOTE record (cell,
//! object id, author) whose text lies in its drawing object, the OBJ
//! record naming the object (a note: `ot` 0x19) and the TXO record after
//! it, whose text is in the CONTINUE records following it (each starting
//! with its own compressed/UTF-16 flag; then the formatting runs, not
//! read); in BIFF5 the NOTE records hold the text themselves.

use std::io::{Read, Seek};

use crate::cell::CellRef;
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Comment, DefinedName, Hyperlink, SheetInfo, SheetMetadata};
use crate::range::CellRange;

use super::XlsBook;
use super::records::{
    BOF, Biff, COLINFO, CONTINUE, Chars, DIMENSIONS, EOF, MERGEDCELLS, NAME, OLD_BOFS, ROW,
    Records, TextCodec, read_string, u16_at, u32_at,
};

const DEFAULTROWHEIGHT: u16 = 0x0225;
const HLINK: u16 = 0x01B8;
const HLINKTOOLTIP: u16 = 0x0800;
const EXTERNSHEET: u16 = 0x0017;
const NOTE: u16 = 0x001C;
const OBJ: u16 = 0x005D;
const TXO: u16 = 0x01B6;

impl<R: Read + Seek> XlsBook<R> {
    /// Calls `f` with each record of a sheet's own substream (not those of
    /// embedded charts) until it returns false.
    fn walk_sheet(
        &mut self,
        info: &SheetInfo,
        mut f: impl FnMut(u16, &[u8], Biff) -> Result<bool>,
    ) -> Result<()> {
        let position = info.position();
        let located = |err: Error| err.with_sheet(info.name()).with_part(info.part());
        if info.kind() != crate::SheetKind::Worksheet {
            return Ok(());
        }
        let layout = std::sync::Arc::clone(&self.layout);
        let compound = &mut self.compound;
        let &(start, end) =
            layout.offsets.spans.get(position).ok_or_else(|| {
                located(Error::new(ErrorKind::Xls("the sheet has no offset".into())))
            })?;
        if start < layout.globals_end || end <= start {
            return Err(located(
                Error::new(ErrorKind::Xls(format!(
                    "the sheet's offset {start} lies inside the globals or another sheet"
                )))
                .with_offset(start),
            ));
        }
        let source = compound.open_at(start).map_err(located)?;
        let mut records = Records::new(Box::new(source), start, end).decrypting(layout.decryptor());
        let mut depth = 0u32;
        while let Some((header, data)) = records.next().map_err(located)? {
            if header.kind == BOF || OLD_BOFS.contains(&header.kind) {
                depth += 1;
            } else if header.kind == EOF {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            } else if depth == 1
                && !f(header.kind, data, layout.codec.biff)
                    .map_err(|err| located(err.with_offset(header.offset)))?
            {
                break;
            }
        }
        Ok(())
    }

    pub(super) fn read_sheet_dimension(&mut self, info: &SheetInfo) -> Result<Option<CellRange>> {
        let mut dimension = None;
        // DIMENSIONS comes before the rows: a sheet whose first ROW or
        // cell record comes first has none, and is not read further.
        self.walk_sheet(info, |kind, data, biff| {
            if kind == DIMENSIONS {
                dimension = read_dimension(data, biff)?;
                return Ok(false);
            }
            Ok(!ROW_OR_CELL.contains(&kind))
        })?;
        Ok(dimension)
    }

    pub(super) fn read_hidden_rows(&mut self, info: &SheetInfo) -> Result<Vec<u32>> {
        let mut rows = Vec::new();
        self.walk_sheet(info, |kind, data, _| {
            if kind == ROW && u16_at(data, 12)? & 0x20 != 0 {
                rows.push(u32::from(u16_at(data, 0)?));
            }
            Ok(true)
        })?;
        Ok(rows)
    }

    pub(super) fn read_sheet_metadata(&mut self, info: &SheetInfo) -> Result<SheetMetadata> {
        let mut metadata = SheetMetadata::default();
        let codec = self.layout.codec;
        let mut notes = Notes::default();
        self.walk_sheet(info, |kind, data, biff| {
            if notes.text(kind, data)? {
                return Ok(true);
            }
            match kind {
                OBJ if biff == Biff::V8 => notes.object(data),
                TXO if biff == Biff::V8 => notes.begin_text(data)?,
                NOTE => notes.note(data, &codec, &mut metadata.comments)?,
                DIMENSIONS => metadata.dimension = read_dimension(data, biff)?,
                DEFAULTROWHEIGHT => {
                    metadata.rows_hidden_by_default = u16_at(data, 0)? & 0x02 != 0;
                }
                COLINFO if u16_at(data, 8)? & 1 != 0 => {
                    let first = u32::from(u16_at(data, 0)?);
                    let last = u32::from(u16_at(data, 2)?).min(crate::cell::MAX_COLUMN);
                    if first <= last {
                        metadata.hidden_columns.push(first..=last);
                    }
                }
                HLINK if biff == Biff::V8 => {
                    if let Some(link) = read_hyperlink(data) {
                        metadata.hyperlinks.push(link);
                    }
                }
                HLINKTOOLTIP => {
                    // Its own range, then the tooltip; it follows its HLINK.
                    if let Some(link) = metadata.hyperlinks.last_mut() {
                        let mut tooltip = String::new();
                        let units = data.get(10..).unwrap_or(&[]);
                        super::records::decode_utf16(units, &mut None, &mut tooltip);
                        link.tooltip = Some(tooltip.trim_end_matches('\0').to_owned());
                    }
                }
                MERGEDCELLS => {
                    let count = usize::from(u16_at(data, 0)?);
                    for range in data.get(2..).unwrap_or(&[]).chunks_exact(8).take(count) {
                        let word =
                            |at: usize| u32::from(u16::from_le_bytes([range[at], range[at + 1]]));
                        let first = CellRef {
                            row: word(0),
                            column: word(4).min(crate::cell::MAX_COLUMN),
                        };
                        let last = CellRef {
                            row: word(2),
                            column: word(6).min(crate::cell::MAX_COLUMN),
                        };
                        metadata.merged.push(CellRange::new(first, last));
                    }
                }
                _ => {}
            }
            Ok(true)
        })?;
        notes
            .end_text()
            .map_err(|err| err.with_sheet(info.name()).with_part(info.part()))?;
        Ok(metadata)
    }

    pub(super) fn read_defined_names(&mut self, sheets: &[SheetInfo]) -> Result<Vec<DefinedName>> {
        let sheet_names: Vec<String> = sheets.iter().map(|s| s.name().to_owned()).collect();
        let part = self.compound.stream;
        let codec = self.layout.codec;
        let end = self.layout.globals_end;
        let decryptor = self.layout.decryptor();
        let compound = &mut self.compound;
        let source = compound.open_at(0).map_err(|err| err.with_part(part))?;
        let mut records = Records::new(Box::new(source), 0, end).decrypting(decryptor);
        // EXTERNSHEET's sheet of each XTI (BIFF8), or None for another book.
        let mut externs: Vec<Option<usize>> = Vec::new();
        let mut names = Vec::new();
        while let Some((header, data)) = records.next().map_err(|err| err.with_part(part))? {
            let located = |err: Error| err.with_part(part).with_offset(header.offset);
            match header.kind {
                EXTERNSHEET if codec.biff == Biff::V8 => {
                    let count = usize::from(u16_at(data, 0).map_err(located)?);
                    externs = data
                        .get(2..)
                        .unwrap_or(&[])
                        .chunks_exact(6)
                        .take(count)
                        .map(|xti| {
                            let first = u16::from_le_bytes([xti[2], xti[3]]);
                            Some(usize::from(first)).filter(|&s| s < sheet_names.len())
                        })
                        .collect();
                }
                NAME => {
                    if let Some(name) = read_name(data, &codec, &sheet_names, &externs) {
                        names.push(name);
                    }
                }
                EOF => break,
                _ => {}
            }
        }
        Ok(names)
    }
}

/// The records that begin a sheet's rows: ROW and the cell records
/// (FORMULA, MULRK, MULBLANK, RSTRING, LABELSST, BLANK, NUMBER, LABEL,
/// BOOLERR, RK), and DBCELL.
const ROW_OR_CELL: [u16; 12] = [
    ROW, 0x0006, 0x00BD, 0x00BE, 0x00D6, 0x00D7, 0x00FD, 0x0201, 0x0203, 0x0204, 0x0205, 0x027E,
];

/// The comments of a sheet substream, gathered as its records pass.
#[derive(Default)]
struct Notes {
    /// BIFF8: the object id of the last OBJ record when it is a note.
    object: Option<u16>,
    /// The CONTINUE records after a TXO record, gathered until the next
    /// record of another type.
    text: Option<NoteText>,
    /// Each note object's text, by object id, for its NOTE record.
    texts: Vec<(u16, String)>,
}

struct NoteText {
    /// The note object it belongs to.
    object: u16,
    /// Characters the TXO record says.
    count: usize,
    /// Bytes of formatting runs the TXO record says (in the last
    /// CONTINUE records, after the text).
    runs: usize,
    /// The CONTINUE records' data, one after the other, and where each
    /// starts.
    bytes: Vec<u8>,
    starts: Vec<usize>,
}

impl NoteText {
    #[cold]
    fn cut_short(&self, found: usize) -> Error {
        Error::new(ErrorKind::Xls(format!(
            "a comment's text (TXO record) says {} characters, but the CONTINUE records \
             after it hold {found}",
            self.count
        )))
    }

    /// The text: the CONTINUE records before those holding the runs, each
    /// starting with its flags byte (bit 0: UTF-16, else Latin-1).
    fn finish(self) -> Result<String> {
        let mut end = self.bytes.len();
        let mut text_records = self.starts.len();
        while text_records > 0 && self.bytes.len() - end < self.runs {
            text_records -= 1;
            end = self.starts[text_records];
        }
        let mut chars = Chars {
            left: self.count,
            wide: false,
            pending: None,
        };
        let mut text = String::new();
        for (index, &start) in self.starts[..text_records].iter().enumerate() {
            let stop = self.starts.get(index + 1).copied().unwrap_or(end).min(end);
            let data = &self.bytes[start..stop];
            if let Some(&flags) = data.first() {
                chars.wide = flags & 1 != 0;
                let mut at = 1;
                chars.take(data, &mut at, &mut text);
            }
        }
        chars.finish(&mut text);
        if chars.left > 0 {
            return Err(self.cut_short(self.count - chars.left));
        }
        Ok(text)
    }
}

impl Notes {
    /// An OBJ record: its first subrecord (ftCmo) gives the object's kind
    /// and id.
    fn object(&mut self, data: &[u8]) {
        let word = |at: usize| {
            data.get(at..at + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
        };
        self.object = match (word(0), word(4), word(6)) {
            (Some(0x15), Some(0x19), Some(id)) => Some(id),
            _ => None,
        };
    }

    /// A TXO record: the text of the last object follows in CONTINUE
    /// records, gathered when that object is a note (those of text boxes
    /// and other objects are skipped as any record is).
    fn begin_text(&mut self, data: &[u8]) -> Result<()> {
        let Some(object) = self.object.take() else {
            return Ok(());
        };
        let count = usize::from(u16_at(data, 10)?);
        let runs = usize::from(u16_at(data, 12)?);
        self.text = Some(NoteText {
            object,
            count,
            runs,
            bytes: Vec::new(),
            starts: Vec::new(),
        });
        Ok(())
    }

    /// A record while a TXO's CONTINUE records are gathered: a CONTINUE
    /// is kept (up to what the TXO says, with a record's worth of flags
    /// bytes: its length cannot grow memory past that), any other record
    /// ends the text. Returns whether the record was taken.
    fn text(&mut self, kind: u16, data: &[u8]) -> Result<bool> {
        let Some(reading) = self.text.as_mut() else {
            return Ok(false);
        };
        if kind == CONTINUE {
            if reading.bytes.len() + data.len() > 2 * reading.count + reading.runs + 8224 {
                return Err(Error::new(ErrorKind::Xls(format!(
                    "the CONTINUE records after a comment's text (TXO record) hold more than \
                     its {} characters and {} bytes of formatting runs",
                    reading.count, reading.runs
                ))));
            }
            reading.starts.push(reading.bytes.len());
            reading.bytes.extend_from_slice(data);
            return Ok(true);
        }
        self.end_text()?;
        Ok(false)
    }

    /// Ends the text being gathered, if any.
    fn end_text(&mut self) -> Result<()> {
        if let Some(reading) = self.text.take() {
            let object = reading.object;
            let text = reading.finish()?;
            self.texts.push((object, text));
        }
        Ok(())
    }

    /// A NOTE record: BIFF8 cell, object id and author, its text from
    /// its object; BIFF5 cell and text (a NOTE of row 0xFFFF continues
    /// the one before).
    fn note(&mut self, data: &[u8], codec: &TextCodec, comments: &mut Vec<Comment>) -> Result<()> {
        let row = u16_at(data, 0)?;
        let column = u32::from(u16_at(data, 2)?);
        if column > crate::cell::MAX_COLUMN {
            return Err(Error::new(ErrorKind::Xls(format!(
                "a comment (NOTE record) on column {}, past the last column",
                column + 1
            ))));
        }
        let cell = CellRef {
            row: u32::from(row),
            column,
        };
        match codec.biff {
            Biff::V8 => {
                let object = u16_at(data, 6)?;
                let mut author = String::new();
                read_string(data, 8, false, codec, &mut author)?;
                let text = match self.texts.iter().position(|(id, _)| *id == object) {
                    Some(at) => self.texts.swap_remove(at).1,
                    None => String::new(),
                };
                comments.push(Comment {
                    cell,
                    author: (!author.is_empty()).then_some(author),
                    text,
                });
            }
            Biff::V5 => {
                let count = usize::from(u16_at(data, 4)?);
                let bytes = data.get(6..).unwrap_or(&[]);
                let bytes = &bytes[..count.min(bytes.len())];
                let mut text = String::new();
                codec.decode_8bit(bytes, &mut text);
                if row == u16::MAX {
                    if let Some(last) = comments.last_mut() {
                        last.text.push_str(&text);
                    }
                } else {
                    comments.push(Comment {
                        cell,
                        author: None,
                        text,
                    });
                }
            }
        }
        Ok(())
    }
}

/// A DIMENSIONS record's range; None for an empty sheet.
fn read_dimension(data: &[u8], biff: Biff) -> Result<Option<CellRange>> {
    let (first_row, last_row, columns) = match biff {
        Biff::V8 => (u32_at(data, 0)?, u32_at(data, 4)?, 8),
        Biff::V5 => (u32::from(u16_at(data, 0)?), u32::from(u16_at(data, 2)?), 4),
    };
    let first_column = u32::from(u16_at(data, columns)?);
    let last_column = u32::from(u16_at(data, columns + 2)?);
    if last_row <= first_row || last_column <= first_column {
        return Ok(None);
    }
    let clamp_row = |row: u32| row.min(crate::cell::MAX_ROW);
    let clamp_column = |column: u32| column.min(crate::cell::MAX_COLUMN);
    Ok(Some(CellRange::new(
        CellRef {
            row: clamp_row(first_row),
            column: clamp_column(first_column),
        },
        CellRef {
            row: clamp_row(last_row - 1),
            column: clamp_column(last_column - 1),
        },
    )))
}

/// The names Excel gives its built-in names (`_xlnm.` prefixed).
const BUILTIN_NAMES: [&str; 14] = [
    "Consolidate_Area",
    "Auto_Open",
    "Auto_Close",
    "Extract",
    "Database",
    "Criteria",
    "Print_Area",
    "Print_Titles",
    "Recorder",
    "Data_Form",
    "Auto_Activate",
    "Auto_Deactivate",
    "Sheet_Title",
    "_FilterDatabase",
];

/// A NAME record; None when it is too short to hold its name.
pub(crate) fn read_name(
    data: &[u8],
    codec: &TextCodec,
    sheets: &[String],
    externs: &[Option<usize>],
) -> Option<DefinedName> {
    let flags = u16::from_le_bytes([*data.first()?, *data.get(1)?]);
    let cch = usize::from(*data.get(3)?);
    let cce = usize::from(u16::from_le_bytes([*data.get(4)?, *data.get(5)?]));
    let itab = usize::from(u16::from_le_bytes([*data.get(8)?, *data.get(9)?]));
    let mut name = String::new();
    let mut at = 14;
    match codec.biff {
        Biff::V8 => {
            let wide = *data.get(at)? & 1 != 0;
            at += 1;
            let bytes = if wide { cch * 2 } else { cch };
            let text = data.get(at..at + bytes)?;
            if wide {
                super::records::decode_utf16(text, &mut None, &mut name);
            } else {
                super::records::decode_latin1(text, &mut name);
            }
            at += bytes;
        }
        Biff::V5 => {
            codec.decode_8bit(data.get(at..at + cch)?, &mut name);
            at += cch;
        }
    }
    if flags & 0x20 != 0 {
        let code = name.chars().next().map_or(u32::MAX, u32::from);
        name = match BUILTIN_NAMES.get(code as usize) {
            Some(builtin) => format!("_xlnm.{builtin}"),
            None => format!("_xlnm.{name}"),
        };
    }
    let formula = data.get(at..at + cce).unwrap_or(&[]);
    let refers_to = if codec.biff == Biff::V8 {
        reference_text(formula, sheets, externs).unwrap_or_default()
    } else {
        String::new()
    };
    Some(DefinedName {
        name,
        refers_to,
        sheet: (itab > 0 && itab <= sheets.len()).then(|| itab - 1),
        hidden: flags & 1 != 0,
    })
}

/// The text of a BIFF8 formula that is one 3-D reference or range.
fn reference_text(formula: &[u8], sheets: &[String], externs: &[Option<usize>]) -> Option<String> {
    let (&ptg, rest) = formula.split_first()?;
    let word = |at: usize| {
        rest.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let sheet = |ixti: u16| -> Option<String> {
        let name = &sheets[(*externs.get(usize::from(ixti))?)?];
        Some(if name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            name.clone()
        } else {
            format!("'{}'", name.replace('\'', "''"))
        })
    };
    let cell = |row: u16, column: u16| {
        let mut letters = [0u8; 3];
        let name = crate::cell::column_name(u32::from(column & 0x3FFF), &mut letters).to_owned();
        format!(
            "{}{}{}{}",
            if column & 0x4000 != 0 { "" } else { "$" },
            name,
            if column & 0x8000 != 0 { "" } else { "$" },
            u32::from(row) + 1
        )
    };
    match ptg {
        0x3A | 0x5A | 0x7A if formula.len() == 7 => {
            let sheet = sheet(word(0)?)?;
            Some(format!("{sheet}!{}", cell(word(2)?, word(4)?)))
        }
        0x3B | 0x5B | 0x7B if formula.len() == 11 => {
            let sheet = sheet(word(0)?)?;
            Some(format!(
                "{sheet}!{}:{}",
                cell(word(2)?, word(6)?),
                cell(word(4)?, word(8)?)
            ))
        }
        _ => None,
    }
}

/// An HLINK record ([MS-XLS] 2.4.140, [MS-OSHARED] 2.3.7.1): its range,
/// then the hyperlink object. None when it is too short or of another
/// stream version.
fn read_hyperlink(data: &[u8]) -> Option<Hyperlink> {
    let word = |at: usize| -> Option<u32> {
        data.get(at..at + 2)
            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let dword = |at: usize| -> Option<u32> {
        data.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let column = |at: usize| word(at).map(|c| c.min(crate::cell::MAX_COLUMN));
    let range = CellRange::new(
        CellRef {
            row: word(0)?,
            column: column(4)?,
        },
        CellRef {
            row: word(2)?,
            column: column(6)?,
        },
    );
    // The range (8), the CLSID (16), then the object.
    let mut at = 24;
    if dword(at)? != 2 {
        return None;
    }
    let flags = dword(at + 4)?;
    at += 8;
    // A HyperlinkString: a count of UTF-16 units (with the NUL), the units.
    let string = |at: &mut usize| -> Option<String> {
        let count = dword(*at)? as usize;
        let bytes = data.get(*at + 4..(*at + 4).checked_add(count.checked_mul(2)?)?)?;
        *at += 4 + bytes.len();
        let mut text = String::new();
        super::records::decode_utf16(bytes, &mut None, &mut text);
        Some(text.trim_end_matches('\0').to_owned())
    };
    let display = if flags & 0x10 != 0 {
        Some(string(&mut at)?)
    } else {
        None
    };
    if flags & 0x80 != 0 {
        string(&mut at)?;
    }
    let mut target = None;
    if flags & 0x01 != 0 {
        if flags & 0x100 != 0 {
            target = Some(string(&mut at)?);
        } else {
            const URL: [u8; 16] = [
                0xE0, 0xC9, 0xEA, 0x79, 0xF9, 0xBA, 0xCE, 0x11, 0x8C, 0x82, 0x00, 0xAA, 0x00, 0x4B,
                0xA9, 0x0B,
            ];
            const FILE: [u8; 16] = [0x03, 0x03, 0, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0x46];
            let clsid = data.get(at..at + 16)?;
            at += 16;
            if clsid == URL {
                let length = dword(at)? as usize;
                let bytes = data.get(at + 4..(at + 4).checked_add(length)?)?;
                at += 4 + length;
                let mut url = String::new();
                super::records::decode_utf16(bytes, &mut None, &mut url);
                // The URL ends at its NUL; what follows is optional data.
                let end = url.find('\0').unwrap_or(url.len());
                url.truncate(end);
                target = Some(url);
            } else if clsid == FILE {
                let up_levels = word(at)? as usize;
                let ansi_length = dword(at + 2)? as usize;
                let ansi = data.get(at + 6..(at + 6).checked_add(ansi_length)?)?;
                at += 6 + ansi_length + 2 + 2 + 20;
                let unicode_size = dword(at)? as usize;
                at += 4;
                let mut path = "../".repeat(up_levels.min(64));
                if unicode_size > 0 {
                    let bytes = dword(at)? as usize;
                    let units = data.get(at + 6..(at + 6).checked_add(bytes)?)?;
                    super::records::decode_utf16(units, &mut None, &mut path);
                    at += unicode_size;
                } else {
                    let ansi = ansi.split(|&b| b == 0).next().unwrap_or(&[]);
                    super::records::decode_latin1(ansi, &mut path);
                }
                target = Some(path);
            } else {
                // Another moniker: its target is not read, nor what follows.
                return Some(Hyperlink {
                    range,
                    target: None,
                    location: None,
                    display,
                    tooltip: None,
                });
            }
        }
    }
    let location = if flags & 0x08 != 0 {
        Some(string(&mut at)?)
    } else {
        None
    };
    Some(Hyperlink {
        range,
        target,
        location,
        display,
        tooltip: None,
    })
}
