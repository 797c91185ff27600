//! A minimal BIFF8 / BIFF5 writer for the tests: `.xls` workbooks built
//! record by record (LibreOffice is not available to write them), in an
//! OLE2 compound file written by the `cfb` crate. Shared by the
//! integration tests (`tests/common`) and the allocation test (`#[path]`).
#![allow(dead_code)]

use std::io::{Cursor, Write};

pub const BOF: u16 = 0x0809;
pub const EOF: u16 = 0x000A;
pub const CONTINUE: u16 = 0x003C;
pub const CODEPAGE: u16 = 0x0042;
pub const DATEMODE: u16 = 0x0022;
pub const FILEPASS: u16 = 0x002F;
pub const FORMAT: u16 = 0x041E;
pub const XF: u16 = 0x00E0;
pub const BOUNDSHEET: u16 = 0x0085;
pub const SST: u16 = 0x00FC;
pub const NUMBER: u16 = 0x0203;
pub const RK: u16 = 0x027E;
pub const MULRK: u16 = 0x00BD;
pub const LABELSST: u16 = 0x00FD;
pub const LABEL: u16 = 0x0204;
pub const BOOLERR: u16 = 0x0205;
pub const FORMULA: u16 = 0x0006;
pub const STRING: u16 = 0x0207;
pub const BLANK: u16 = 0x0201;
pub const ROW: u16 = 0x0208;
pub const DIMENSIONS: u16 = 0x0200;
pub const COLINFO: u16 = 0x007D;
pub const MERGEDCELLS: u16 = 0x00E5;
pub const NAME: u16 = 0x0018;
pub const EXTERNSHEET: u16 = 0x0017;

/// One record: type, length, data.
pub fn record(kind: u16, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + data.len());
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&(data.len() as u16).to_le_bytes());
    out.extend_from_slice(data);
    out
}

/// A cell record's first six bytes: row, column, XF.
fn cell_head(row: u16, column: u16, xf: u16) -> Vec<u8> {
    let mut data = Vec::new();
    data.extend_from_slice(&row.to_le_bytes());
    data.extend_from_slice(&column.to_le_bytes());
    data.extend_from_slice(&xf.to_le_bytes());
    data
}

pub fn number(row: u16, column: u16, xf: u16, value: f64) -> Vec<u8> {
    let mut data = cell_head(row, column, xf);
    data.extend_from_slice(&value.to_le_bytes());
    record(NUMBER, &data)
}

pub fn rk(row: u16, column: u16, xf: u16, rk: u32) -> Vec<u8> {
    let mut data = cell_head(row, column, xf);
    data.extend_from_slice(&rk.to_le_bytes());
    record(RK, &data)
}

/// An RK value holding an integer (`times100`: the value is it / 100).
pub fn rk_int(value: i32, times100: bool) -> u32 {
    ((value << 2) as u32) | 2 | u32::from(times100)
}

pub fn mulrk(row: u16, first: u16, cells: &[(u16, u32)]) -> Vec<u8> {
    let mut data = Vec::new();
    data.extend_from_slice(&row.to_le_bytes());
    data.extend_from_slice(&first.to_le_bytes());
    for (xf, value) in cells {
        data.extend_from_slice(&xf.to_le_bytes());
        data.extend_from_slice(&value.to_le_bytes());
    }
    data.extend_from_slice(&(first + cells.len() as u16 - 1).to_le_bytes());
    record(MULRK, &data)
}

pub fn label_sst(row: u16, column: u16, xf: u16, index: u32) -> Vec<u8> {
    let mut data = cell_head(row, column, xf);
    data.extend_from_slice(&index.to_le_bytes());
    record(LABELSST, &data)
}

/// A BIFF8 XLUnicodeString: Latin-1 when every character fits, else UTF-16.
pub fn unicode_string(text: &str) -> Vec<u8> {
    let mut data = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    if chars.iter().all(|&c| (c as u32) < 256) {
        data.extend_from_slice(&(chars.len() as u16).to_le_bytes());
        data.push(0);
        data.extend(chars.iter().map(|&c| c as u8));
    } else {
        let units: Vec<u16> = text.encode_utf16().collect();
        data.extend_from_slice(&(units.len() as u16).to_le_bytes());
        data.push(1);
        for unit in units {
            data.extend_from_slice(&unit.to_le_bytes());
        }
    }
    data
}

/// A BIFF8 LABEL.
pub fn label(row: u16, column: u16, xf: u16, text: &str) -> Vec<u8> {
    let mut data = cell_head(row, column, xf);
    data.extend(unicode_string(text));
    record(LABEL, &data)
}

/// A BIFF5 LABEL: 8-bit bytes in the code page.
pub fn label_bytes(row: u16, column: u16, xf: u16, bytes: &[u8]) -> Vec<u8> {
    let mut data = cell_head(row, column, xf);
    data.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
    data.extend_from_slice(bytes);
    record(LABEL, &data)
}

pub fn boolerr(row: u16, column: u16, xf: u16, value: u8, error: bool) -> Vec<u8> {
    let mut data = cell_head(row, column, xf);
    data.push(value);
    data.push(u8::from(error));
    record(BOOLERR, &data)
}

pub fn blank(row: u16, column: u16, xf: u16) -> Vec<u8> {
    record(BLANK, &cell_head(row, column, xf))
}

/// A FORMULA record with an 8-byte cached result and the tokens `rgce`.
pub fn formula_tokens(row: u16, column: u16, result: [u8; 8], rgce: &[u8]) -> Vec<u8> {
    let mut data = cell_head(row, column, 0);
    data.extend_from_slice(&result);
    data.extend_from_slice(&0u16.to_le_bytes());
    data.extend_from_slice(&0u32.to_le_bytes());
    data.extend_from_slice(&(rgce.len() as u16).to_le_bytes());
    data.extend_from_slice(rgce);
    record(FORMULA, &data)
}

/// A SHRFMLA record: the shared formula of rows `rows`, columns `columns`.
pub fn shrfmla(rows: (u16, u16), columns: (u8, u8), rgce: &[u8]) -> Vec<u8> {
    let mut data = Vec::new();
    data.extend_from_slice(&rows.0.to_le_bytes());
    data.extend_from_slice(&rows.1.to_le_bytes());
    data.extend_from_slice(&[columns.0, columns.1, 0, 1]);
    data.extend_from_slice(&(rgce.len() as u16).to_le_bytes());
    data.extend_from_slice(rgce);
    record(0x04BC, &data)
}

/// The globals' records for 3-D references and names: SUPBOOK (this
/// workbook, `sheets` sheets), EXTERNSHEET (each entry's first and last
/// sheet) and a NAME per name (a constant 1).
pub fn links(sheets: u16, externs: &[(i16, i16)], names: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut supbook = sheets.to_le_bytes().to_vec();
    supbook.extend_from_slice(&0x0401u16.to_le_bytes());
    out.extend(record(0x01AE, &supbook));
    let mut externsheet = (externs.len() as u16).to_le_bytes().to_vec();
    for &(first, last) in externs {
        externsheet.extend_from_slice(&0u16.to_le_bytes());
        externsheet.extend_from_slice(&first.to_le_bytes());
        externsheet.extend_from_slice(&last.to_le_bytes());
    }
    out.extend(record(EXTERNSHEET, &externsheet));
    for name in names {
        let rgce = [0x1E, 1, 0];
        let mut data = vec![0, 0, 0, name.len() as u8];
        data.extend_from_slice(&(rgce.len() as u16).to_le_bytes());
        data.extend_from_slice(&[0; 8]);
        data.push(0);
        data.extend_from_slice(name.as_bytes());
        data.extend_from_slice(&rgce);
        out.extend(record(NAME, &data));
    }
    out
}

/// A FORMULA record with an 8-byte cached result and a one-token formula.
fn formula(row: u16, column: u16, xf: u16, result: [u8; 8]) -> Vec<u8> {
    let mut data = cell_head(row, column, xf);
    data.extend_from_slice(&result);
    data.extend_from_slice(&0u16.to_le_bytes());
    data.extend_from_slice(&0u32.to_le_bytes());
    data.extend_from_slice(&3u16.to_le_bytes());
    data.extend_from_slice(&[0x1E, 0x01, 0x00]);
    record(FORMULA, &data)
}

pub fn formula_number(row: u16, column: u16, xf: u16, value: f64) -> Vec<u8> {
    formula(row, column, xf, value.to_le_bytes())
}

/// A FORMULA with a string result and its STRING record.
pub fn formula_string(row: u16, column: u16, xf: u16, text: &str) -> Vec<u8> {
    let mut out = formula(row, column, xf, [0, 0, 0, 0, 0, 0, 0xFF, 0xFF]);
    out.extend(record(STRING, &unicode_string(text)));
    out
}

pub fn formula_bool(row: u16, column: u16, xf: u16, value: bool) -> Vec<u8> {
    formula(
        row,
        column,
        xf,
        [1, 0, u8::from(value), 0, 0, 0, 0xFF, 0xFF],
    )
}

pub fn formula_error(row: u16, column: u16, xf: u16, code: u8) -> Vec<u8> {
    formula(row, column, xf, [2, 0, code, 0, 0, 0, 0xFF, 0xFF])
}

pub fn formula_empty(row: u16, column: u16, xf: u16) -> Vec<u8> {
    formula(row, column, xf, [3, 0, 0, 0, 0, 0, 0xFF, 0xFF])
}

/// The SST record and its CONTINUE records, each holding at most `limit`
/// bytes of data (Excel: 8,224), strings split where they reach it. With
/// `switch`, the characters after a split are written as UTF-16 (the flags
/// byte at the start of each CONTINUE says so), so a string changes from
/// one byte per character to two mid-way. `count` is what the SST says it
/// holds.
pub fn sst(strings: &[&str], count: u32, limit: usize, switch: bool) -> Vec<u8> {
    let mut records: Vec<Vec<u8>> = vec![Vec::new()];
    records[0].extend_from_slice(&count.to_le_bytes());
    records[0].extend_from_slice(&count.to_le_bytes());
    for text in strings {
        let chars: Vec<char> = text.chars().collect();
        let mut wide = !chars.iter().all(|&c| (c as u32) < 256);
        // The header is never split.
        if records.last().unwrap().len() + 3 > limit {
            records.push(Vec::new());
        }
        let current = records.last_mut().unwrap();
        let units: Vec<u16> = text.encode_utf16().collect();
        let count = if wide { units.len() } else { chars.len() };
        current.extend_from_slice(&(count as u16).to_le_bytes());
        current.push(u8::from(wide));
        let mut index = 0;
        while index < count {
            let current = records.last_mut().unwrap();
            let size = if wide { 2 } else { 1 };
            if current.len() + size > limit {
                if switch {
                    wide = true;
                }
                records.push(vec![u8::from(wide)]);
                continue;
            }
            if wide {
                let unit = if units.len() == count {
                    units[index]
                } else {
                    chars[index] as u16
                };
                current.extend_from_slice(&unit.to_le_bytes());
            } else {
                current.push(chars[index] as u8);
            }
            index += 1;
        }
    }
    let mut out = Vec::new();
    for (i, data) in records.iter().enumerate() {
        out.extend(record(if i == 0 { SST } else { CONTINUE }, data));
    }
    out
}

/// A workbook being written: its globals' records and its sheets.
pub struct Book {
    pub biff5: bool,
    /// Records of the globals between BOF and the BOUNDSHEETs (CODEPAGE,
    /// DATEMODE, FORMAT, XF, ...).
    pub globals: Vec<u8>,
    /// Records after the BOUNDSHEETs (SST, ...).
    pub tail: Vec<u8>,
    /// (name, BOUNDSHEET type, the sheet's records between BOF and EOF).
    pub sheets: Vec<(String, u8, Vec<u8>)>,
    /// Added to every BOUNDSHEET offset (hostile tests).
    pub offset_shift: i64,
}

impl Book {
    /// A BIFF8 workbook whose XF 0 is General, XF 1 a date (id 14), XF 2
    /// a time (id 21) and XF 3 custom format 164 (`0.0%`).
    pub fn new() -> Book {
        let mut book = Book {
            biff5: false,
            globals: Vec::new(),
            tail: Vec::new(),
            sheets: Vec::new(),
            offset_shift: 0,
        };
        book.format(164, "0.0%");
        for format in [0u16, 14, 21, 164] {
            book.xf(format);
        }
        book
    }

    /// A BIFF5 workbook in `code_page`, XFs as [`Book::new`].
    pub fn biff5(code_page: Option<u16>) -> Book {
        let mut book = Book {
            biff5: true,
            globals: Vec::new(),
            tail: Vec::new(),
            sheets: Vec::new(),
            offset_shift: 0,
        };
        if let Some(page) = code_page {
            book.globals.extend(record(CODEPAGE, &page.to_le_bytes()));
        }
        book.format(164, "0.0%");
        for format in [0u16, 14, 21, 164] {
            book.xf(format);
        }
        book
    }

    pub fn format(&mut self, id: u16, code: &str) {
        let mut data = id.to_le_bytes().to_vec();
        if self.biff5 {
            data.push(code.len() as u8);
            data.extend_from_slice(code.as_bytes());
        } else {
            data.extend(unicode_string(code));
        }
        self.globals.extend(record(FORMAT, &data));
    }

    pub fn xf(&mut self, format: u16) {
        let mut data = vec![0u8; 20];
        data[2..4].copy_from_slice(&format.to_le_bytes());
        self.globals.extend(record(XF, &data));
    }

    pub fn date1904(&mut self) {
        self.globals.extend(record(DATEMODE, &1u16.to_le_bytes()));
    }

    pub fn sheet(&mut self, name: &str, records: Vec<u8>) {
        self.sheets.push((name.to_owned(), 0, records));
    }

    fn boundsheet(&self, offset: u32, name: &str, kind: u8) -> Vec<u8> {
        let mut data = offset.to_le_bytes().to_vec();
        data.push(0);
        data.push(kind);
        if self.biff5 {
            data.push(name.chars().count() as u8);
            data.extend(name.chars().map(|c| c as u8));
        } else {
            let string = unicode_string(name);
            // The short form: an 8-bit count.
            data.push(string[0]);
            data.extend_from_slice(&string[2..]);
        }
        record(BOUNDSHEET, &data)
    }

    fn bof(&self, kind: u16) -> Vec<u8> {
        let mut data = vec![0u8; if self.biff5 { 8 } else { 16 }];
        let version: u16 = if self.biff5 { 0x0500 } else { 0x0600 };
        data[0..2].copy_from_slice(&version.to_le_bytes());
        data[2..4].copy_from_slice(&kind.to_le_bytes());
        record(BOF, &data)
    }

    /// The workbook stream.
    pub fn stream(&self) -> Vec<u8> {
        let boundsheets_len: usize = self
            .sheets
            .iter()
            .map(|(name, kind, _)| self.boundsheet(0, name, *kind).len())
            .sum();
        let globals_len = self.bof(5).len()
            + self.globals.len()
            + boundsheets_len
            + self.tail.len()
            + record(EOF, &[]).len();
        let mut offset = globals_len;
        let mut out = self.bof(5);
        out.extend_from_slice(&self.globals);
        let mut bodies = Vec::new();
        for (name, kind, records) in &self.sheets {
            let shifted = (offset as i64 + self.offset_shift) as u32;
            out.extend(self.boundsheet(shifted, name, *kind));
            let mut body = self.bof(0x10);
            let mut records = records.clone();
            if records.starts_with(&INDEX.to_le_bytes()) {
                // indexed_records' DBCELL offsets are from the records'
                // start: made stream offsets here.
                let len = u16::from_le_bytes([records[2], records[3]]) as usize;
                let base = (offset + body.len()) as u32;
                for at in (4 + 16..4 + len).step_by(4) {
                    let relative = u32::from_le_bytes(records[at..at + 4].try_into().unwrap());
                    records[at..at + 4].copy_from_slice(&(relative + base).to_le_bytes());
                }
            }
            body.extend_from_slice(&records);
            body.extend(record(EOF, &[]));
            offset += body.len();
            bodies.push(body);
        }
        out.extend_from_slice(&self.tail);
        out.extend(record(EOF, &[]));
        for body in bodies {
            out.extend(body);
        }
        out
    }

    /// The `.xls` file: the stream in a compound file.
    pub fn bytes(&self) -> Vec<u8> {
        let name = if self.biff5 { "Book" } else { "Workbook" };
        compound(&[(name, &self.stream())])
    }
}

impl Default for Book {
    fn default() -> Book {
        Book::new()
    }
}

/// A compound file holding these streams (version 3, 512-byte sectors).
pub fn compound(streams: &[(&str, &[u8])]) -> Vec<u8> {
    let mut file =
        cfb::CompoundFile::create_with_version(cfb::Version::V3, Cursor::new(Vec::new())).unwrap();
    for (name, data) in streams {
        let mut stream = file.create_stream(format!("/{name}")).unwrap();
        stream.write_all(data).unwrap();
    }
    file.flush().unwrap();
    file.into_inner().into_inner()
}

pub const INDEX: u16 = 0x020B;
pub const DBCELL: u16 = 0x00D7;

/// A ROW record: `row`, hidden or not.
pub fn row_record(row: u16, hidden: bool) -> Vec<u8> {
    let mut data = vec![0u8; 16];
    data[0..2].copy_from_slice(&row.to_le_bytes());
    data[6..8].copy_from_slice(&255u16.to_le_bytes());
    let flags: u16 = if hidden { 0x0120 } else { 0x0100 };
    data[12..14].copy_from_slice(&flags.to_le_bytes());
    record(ROW, &data)
}

/// A sheet's records as Excel lays out its cell table: INDEX, then each
/// block (its ROW records, its cell records) followed by a DBCELL giving
/// the distance back to the block's first record; then `after`. Offsets
/// in INDEX are from the records' start (`Book::stream` makes them
/// stream offsets). `shift` is added to every DBCELL offset in INDEX
/// (0 for a consistent file).
pub fn indexed_records(blocks: &[(Vec<u8>, Vec<u8>)], after: &[u8], shift: i64) -> Vec<u8> {
    let index_len = 4 + 16 + 4 * blocks.len();
    let mut body = Vec::new();
    let mut offsets = Vec::new();
    for (rows, cells) in blocks {
        let start = index_len + body.len();
        body.extend_from_slice(rows);
        body.extend_from_slice(cells);
        let at = index_len + body.len();
        let mut data = ((at - start) as u32).to_le_bytes().to_vec();
        data.extend_from_slice(&[0, 0]);
        body.extend(record(DBCELL, &data));
        offsets.push((at as i64 + shift) as u32);
    }
    let mut index = vec![0u8; 16];
    for offset in offsets {
        index.extend_from_slice(&offset.to_le_bytes());
    }
    let mut out = record(INDEX, &index);
    out.extend(body);
    out.extend_from_slice(after);
    out
}

pub const NOTE: u16 = 0x001C;
pub const OBJ: u16 = 0x005D;
pub const TXO: u16 = 0x01B6;

/// A BIFF8 comment's drawing object: OBJ (ftCmo of a note, object `id`),
/// TXO saying `count` characters, then a CONTINUE per piece of `pieces`
/// (each with its own flags byte: Latin-1, or UTF-16 when a character
/// does not fit), then a CONTINUE of formatting runs.
pub fn note_object(id: u16, count: u16, pieces: &[&str]) -> Vec<u8> {
    let mut obj = Vec::new();
    for word in [0x15u16, 0x12, 0x19, id, 0x4011, 0, 0, 0, 0, 0, 0] {
        obj.extend_from_slice(&word.to_le_bytes());
    }
    obj.extend_from_slice(&[0, 0, 0, 0]); // ftEnd
    let mut out = record(OBJ, &obj);
    let mut txo = vec![0u8; 18];
    txo[0..2].copy_from_slice(&0x0212u16.to_le_bytes());
    txo[10..12].copy_from_slice(&count.to_le_bytes());
    txo[12..14].copy_from_slice(&16u16.to_le_bytes());
    out.extend(record(TXO, &txo));
    for piece in pieces {
        // A string's characters without its count.
        let string = unicode_string(piece);
        out.extend(record(CONTINUE, &string[2..]));
    }
    out.extend(record(CONTINUE, &[0u8; 16]));
    out
}

/// A BIFF8 NOTE: cell, object id, author.
pub fn note(row: u16, column: u16, id: u16, author: &str) -> Vec<u8> {
    let mut data = Vec::new();
    for word in [row, column, 0, id] {
        data.extend_from_slice(&word.to_le_bytes());
    }
    data.extend(unicode_string(author));
    data.push(0);
    record(NOTE, &data)
}
