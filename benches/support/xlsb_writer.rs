//! A small `.xlsb` writer: enough of MS-XLSB to write test and benchmark
//! workbooks (numbers as RK where they fit, as Excel does; shared or
//! inline strings; booleans, errors, formula results; dates by style;
//! hidden rows and columns, merged cells, the dimension).
//!
//! Shared by the tests (through `#[path]`) and the benchmarks. Cells go
//! into the last sheet added, rows in the order they are written.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{Cursor, Write};

use zip::write::{SimpleFileOptions, ZipWriter};

/// The cell styles `styles.bin` defines: 0 General, 1 `yyyy-mm-dd`
/// (custom format 164), 2 `yyyy-mm-dd hh:mm:ss` (custom 165), 3 the
/// built-in date format 14, 4 the built-in `0.00` (2).
pub const STYLE_GENERAL: u32 = 0;
pub const STYLE_DATE: u32 = 1;
pub const STYLE_DATE_TIME: u32 = 2;
pub const STYLE_BUILTIN_DATE: u32 = 3;
pub const STYLE_FIXED: u32 = 4;

/// A cell's value, as a record of its own kind.
#[derive(Debug, Clone, Copy)]
pub enum XlsbCell<'a> {
    /// BrtCellRk when the number fits an RK, else BrtCellReal.
    Number(f64),
    /// Always BrtCellReal.
    Real(f64),
    /// A shared string (BrtCellIsst), or BrtCellSt when the writer writes
    /// strings inline.
    Text(&'a str),
    /// BrtCellRString (without runs).
    RichText(&'a str),
    Bool(bool),
    /// An error code (0x07 is `#DIV/0!`).
    Error(u8),
    /// BrtCellBlank: formatting only.
    Blank,
    /// Formula results: BrtFmlaNum, BrtFmlaString, BrtFmlaBool, BrtFmlaError
    /// (with an empty parsed formula).
    FormulaNumber(f64),
    FormulaText(&'a str),
    FormulaBool(bool),
    FormulaError(u8),
}

struct SheetData {
    name: String,
    state: u32,
    data: Vec<u8>,
    /// First row, last row, first column, last column.
    used: Option<[u32; 4]>,
    merged: Vec<[u32; 4]>,
    hidden_columns: Vec<(u32, u32)>,
    rows_hidden_by_default: bool,
}

/// Writes one workbook.
pub struct XlsbWriter {
    sheets: Vec<SheetData>,
    strings: Vec<String>,
    string_index: HashMap<String, u32>,
    inline: bool,
    date1904: bool,
    row: Option<u32>,
}

impl Default for XlsbWriter {
    fn default() -> Self {
        XlsbWriter::new()
    }
}

/// Appends one record: type and size as 7-bit varints, then the body.
pub fn record(out: &mut Vec<u8>, kind: u16, body: &[u8]) {
    if kind < 0x80 {
        out.push(kind as u8);
    } else {
        out.push((kind & 0x7F) as u8 | 0x80);
        out.push((kind >> 7) as u8);
    }
    let mut size = body.len() as u32;
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
}

/// An `XLWideString`: a count of UTF-16 units, then the units.
pub fn wide(out: &mut Vec<u8>, text: &str) {
    let units: Vec<u16> = text.encode_utf16().collect();
    out.extend_from_slice(&(units.len() as u32).to_le_bytes());
    for unit in units {
        out.extend_from_slice(&unit.to_le_bytes());
    }
}

/// The RK form of a number, when it has one: a 30-bit integer, a 30-bit
/// integer divided by 100, or a double whose low 34 bits are zero (also
/// divided by 100).
pub fn rk(number: f64) -> Option<u32> {
    let integer = |n: f64| {
        // (Not -0.0, which the integer form would make 0.)
        (n.fract() == 0.0
            && !(n == 0.0 && n.is_sign_negative())
            && (-(1i64 << 29) as f64..(1i64 << 29) as f64).contains(&n))
        .then_some(((n as i32) << 2) as u32 | 2)
    };
    let double = |n: f64| {
        let bits = n.to_bits();
        (bits & 0x3_FFFF_FFFF == 0).then_some((bits >> 32) as u32)
    };
    if let Some(rk) = integer(number).or_else(|| double(number)) {
        return Some(rk);
    }
    let scaled = number * 100.0;
    if let Some(rk) = integer(scaled)
        && (scaled.round() as i32) as f64 / 100.0 == number
    {
        return Some(rk | 1);
    }
    if let Some(rk) =
        double(scaled).filter(|&rk| f64::from_bits(u64::from(rk) << 32) / 100.0 == number)
    {
        return Some(rk | 1);
    }
    None
}

impl XlsbWriter {
    pub fn new() -> XlsbWriter {
        XlsbWriter {
            sheets: Vec::new(),
            strings: Vec::new(),
            string_index: HashMap::new(),
            inline: false,
            date1904: false,
            row: None,
        }
    }

    /// Writes text cells as BrtCellSt instead of shared strings.
    pub fn inline_strings(mut self) -> XlsbWriter {
        self.inline = true;
        self
    }

    /// The 1904 date system.
    pub fn date1904(mut self) -> XlsbWriter {
        self.date1904 = true;
        self
    }

    /// Starts a sheet (0 visible, 1 hidden, 2 very hidden).
    pub fn add_sheet(&mut self, name: &str, state: u32) {
        self.sheets.push(SheetData {
            name: name.to_owned(),
            state,
            data: Vec::new(),
            used: None,
            merged: Vec::new(),
            hidden_columns: Vec::new(),
            rows_hidden_by_default: false,
        });
        self.row = None;
    }

    fn sheet(&mut self) -> &mut SheetData {
        self.sheets.last_mut().expect("add a sheet first")
    }

    /// Starts a row (BrtRowHdr), hidden or not.
    pub fn row_with(&mut self, index: u32, hidden: bool) {
        let mut body = Vec::with_capacity(17);
        body.extend_from_slice(&index.to_le_bytes());
        body.extend_from_slice(&0u32.to_le_bytes()); // ixfe
        body.extend_from_slice(&300u16.to_le_bytes()); // miyRw: 15pt
        body.push(0);
        body.push(if hidden { 0x10 } else { 0 }); // fDyZero
        body.push(0);
        body.extend_from_slice(&0u32.to_le_bytes()); // no column spans
        record(&mut self.sheet().data, 0x0000, &body);
        self.row = Some(index);
    }

    pub fn row(&mut self, index: u32) {
        self.row_with(index, false);
    }

    /// A cell of the current row.
    pub fn cell(&mut self, column: u32, style: u32, value: XlsbCell<'_>) {
        let row = self.row.expect("start a row first");
        let mut body = Vec::with_capacity(24);
        body.extend_from_slice(&column.to_le_bytes());
        body.extend_from_slice(&(style & 0x00FF_FFFF).to_le_bytes());
        // The formula of a formula cell is its value as a constant
        // (PtgNum, PtgStr, PtgBool, PtgErr), so that a reader that reads
        // or recalculates formulas (LibreOffice drops a formula cell whose
        // formula is empty) gets the cached value again.
        let formula_tail = |body: &mut Vec<u8>, rgce: &[u8]| {
            body.extend_from_slice(&0u16.to_le_bytes()); // grbitFlags
            body.extend_from_slice(&(rgce.len() as u32).to_le_bytes()); // cce
            body.extend_from_slice(rgce);
            body.extend_from_slice(&0u32.to_le_bytes()); // cb
        };
        let kind = match value {
            XlsbCell::Number(number) => match rk(number) {
                Some(rk) => {
                    body.extend_from_slice(&rk.to_le_bytes());
                    0x0002
                }
                None => {
                    body.extend_from_slice(&number.to_le_bytes());
                    0x0005
                }
            },
            XlsbCell::Real(number) => {
                body.extend_from_slice(&number.to_le_bytes());
                0x0005
            }
            XlsbCell::Text(text) if self.inline => {
                wide(&mut body, text);
                0x0006
            }
            XlsbCell::Text(text) => {
                let next = self.strings.len() as u32;
                let index = *self.string_index.entry(text.to_owned()).or_insert(next);
                if index == next {
                    self.strings.push(text.to_owned());
                }
                body.extend_from_slice(&index.to_le_bytes());
                0x0007
            }
            XlsbCell::RichText(text) => {
                body.push(0);
                wide(&mut body, text);
                0x003E
            }
            XlsbCell::Bool(flag) => {
                body.push(u8::from(flag));
                0x0004
            }
            XlsbCell::Error(code) => {
                body.push(code);
                0x0003
            }
            XlsbCell::Blank => 0x0001,
            XlsbCell::FormulaNumber(number) => {
                body.extend_from_slice(&number.to_le_bytes());
                let mut rgce = vec![0x1F]; // PtgNum
                rgce.extend_from_slice(&number.to_le_bytes());
                formula_tail(&mut body, &rgce);
                0x0009
            }
            XlsbCell::FormulaText(text) => {
                wide(&mut body, text);
                // PtgStr: at most 255 UTF-16 units, a count of 2 bytes.
                let units: Vec<u16> = text.encode_utf16().take(255).collect();
                let mut rgce = vec![0x17];
                rgce.extend_from_slice(&(units.len() as u16).to_le_bytes());
                for unit in units {
                    rgce.extend_from_slice(&unit.to_le_bytes());
                }
                formula_tail(&mut body, &rgce);
                0x0008
            }
            XlsbCell::FormulaBool(flag) => {
                body.push(u8::from(flag));
                formula_tail(&mut body, &[0x1D, u8::from(flag)]); // PtgBool
                0x000A
            }
            XlsbCell::FormulaError(code) => {
                body.push(code);
                formula_tail(&mut body, &[0x1C, code]); // PtgErr
                0x000B
            }
        };
        let sheet = self.sheet();
        record(&mut sheet.data, kind, &body);
        let used = sheet.used.get_or_insert([row, row, column, column]);
        used[0] = used[0].min(row);
        used[1] = used[1].max(row);
        used[2] = used[2].min(column);
        used[3] = used[3].max(column);
    }

    /// A merged range (first row, last row, first column, last column).
    pub fn merge(&mut self, range: [u32; 4]) {
        self.sheet().merged.push(range);
    }

    /// Hides columns `first..=last`.
    pub fn hide_columns(&mut self, first: u32, last: u32) {
        self.sheet().hidden_columns.push((first, last));
    }

    /// Hides every row the sheet does not write (BrtWsFmtInfo's fDyZero).
    pub fn rows_hidden_by_default(&mut self) {
        self.sheet().rows_hidden_by_default = true;
    }

    fn sheet_part(sheet: &SheetData) -> Vec<u8> {
        let mut out = Vec::with_capacity(sheet.data.len() + 256);
        record(&mut out, 0x0081, &[]); // BrtBeginSheet
        let mut dimension = Vec::new();
        for value in sheet.used.unwrap_or([0; 4]) {
            dimension.extend_from_slice(&value.to_le_bytes());
        }
        record(&mut out, 0x0094, &dimension); // BrtWsDim
        let mut format = Vec::new();
        format.extend_from_slice(&u32::MAX.to_le_bytes()); // dxGCol
        format.extend_from_slice(&8u16.to_le_bytes()); // cchDefColWidth
        format.extend_from_slice(&300u16.to_le_bytes()); // miyDefRwHeight
        let flags: u16 = if sheet.rows_hidden_by_default {
            0x0002
        } else {
            0
        };
        format.extend_from_slice(&flags.to_le_bytes());
        format.extend_from_slice(&[0, 0]);
        record(&mut out, 0x01E5, &format); // BrtWsFmtInfo
        if !sheet.hidden_columns.is_empty() {
            record(&mut out, 0x0186, &[]); // BrtBeginColInfos
            for &(first, last) in &sheet.hidden_columns {
                let mut body = Vec::new();
                body.extend_from_slice(&first.to_le_bytes());
                body.extend_from_slice(&last.to_le_bytes());
                body.extend_from_slice(&2304u32.to_le_bytes()); // coldx
                body.extend_from_slice(&0u32.to_le_bytes()); // ixfe
                body.extend_from_slice(&0x0003u16.to_le_bytes()); // fHidden, fUserSet
                record(&mut out, 0x003C, &body);
            }
            record(&mut out, 0x0187, &[]); // BrtEndColInfos
        }
        record(&mut out, 0x0091, &[]); // BrtBeginSheetData
        out.extend_from_slice(&sheet.data);
        record(&mut out, 0x0092, &[]); // BrtEndSheetData
        if !sheet.merged.is_empty() {
            record(&mut out, 0x00B1, &(sheet.merged.len() as u32).to_le_bytes());
            for range in &sheet.merged {
                let mut body = Vec::new();
                for value in range {
                    body.extend_from_slice(&value.to_le_bytes());
                }
                record(&mut out, 0x00B0, &body);
            }
            record(&mut out, 0x00B2, &[]);
        }
        record(&mut out, 0x0082, &[]); // BrtEndSheet
        out
    }

    fn workbook_part(&self) -> Vec<u8> {
        let mut out = Vec::new();
        record(&mut out, 0x0083, &[]); // BrtBeginBook
        let mut properties = Vec::new();
        properties.extend_from_slice(&u32::from(self.date1904).to_le_bytes());
        properties.extend_from_slice(&0u32.to_le_bytes()); // dwThemeVersion
        wide(&mut properties, ""); // strName
        record(&mut out, 0x0099, &properties); // BrtWbProp
        record(&mut out, 0x008F, &[]); // BrtBeginBundleShs
        for (index, sheet) in self.sheets.iter().enumerate() {
            let mut body = Vec::new();
            body.extend_from_slice(&sheet.state.to_le_bytes());
            body.extend_from_slice(&(index as u32 + 1).to_le_bytes());
            wide(&mut body, &format!("rId{}", index + 1));
            wide(&mut body, &sheet.name);
            record(&mut out, 0x009C, &body);
        }
        record(&mut out, 0x0090, &[]); // BrtEndBundleShs
        record(&mut out, 0x0084, &[]); // BrtEndBook
        out
    }

    fn styles_part() -> Vec<u8> {
        let mut out = Vec::new();
        record(&mut out, 0x0116, &[]); // BrtBeginStyleSheet
        record(&mut out, 0x0267, &2u32.to_le_bytes()); // BrtBeginFmts
        for (id, code) in [(164u16, "yyyy-mm-dd"), (165, "yyyy-mm-dd hh:mm:ss")] {
            let mut body = id.to_le_bytes().to_vec();
            wide(&mut body, code);
            record(&mut out, 0x002C, &body);
        }
        record(&mut out, 0x0268, &[]); // BrtEndFmts
        // xfGrbitAtr (byte 14): in a cell XF, fAtrNum set says its own
        // number format applies (LibreOffice takes the style's otherwise;
        // Excel sets it); in a style XF the bit means the reverse.
        let xf = |format: u16, parent: u16, attributes: u8| {
            let mut body = Vec::new();
            body.extend_from_slice(&parent.to_le_bytes()); // ixfeParent
            body.extend_from_slice(&format.to_le_bytes());
            body.extend_from_slice(&[0; 12]);
            body[14] = attributes;
            body
        };
        // The style XFs (their formats must not count as cell formats).
        record(&mut out, 0x0272, &1u32.to_le_bytes()); // BrtBeginCellStyleXFs
        record(&mut out, 0x002F, &xf(14, 0xFFFF, 0));
        record(&mut out, 0x0273, &[]);
        record(&mut out, 0x0269, &5u32.to_le_bytes()); // BrtBeginCellXFs
        for format in [0u16, 164, 165, 14, 2] {
            record(&mut out, 0x002F, &xf(format, 0, 0x01));
        }
        record(&mut out, 0x026A, &[]); // BrtEndCellXFs
        record(&mut out, 0x0117, &[]); // BrtEndStyleSheet
        out
    }

    fn shared_strings_part(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let count = (self.strings.len() as u32).to_le_bytes();
        record(&mut out, 0x009F, &[count, count].concat()); // BrtBeginSst
        for text in &self.strings {
            let mut body = vec![0u8];
            wide(&mut body, text);
            record(&mut out, 0x0013, &body);
        }
        record(&mut out, 0x00A0, &[]); // BrtEndSst
        out
    }

    /// The workbook's bytes: a ZIP package of deflated parts.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
        let options =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        let mut put = |name: &str, bytes: &[u8]| {
            zip.start_file(name, options).unwrap();
            zip.write_all(bytes).unwrap();
        };
        let mut types = String::from(
            r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>"#,
        );
        for index in 1..=self.sheets.len() {
            types.push_str(&format!(r#"<Override PartName="/xl/worksheets/sheet{index}.bin" ContentType="application/vnd.ms-excel.worksheet"/>"#));
        }
        types.push_str(r#"<Override PartName="/xl/styles.bin" ContentType="application/vnd.ms-excel.styles"/><Override PartName="/xl/sharedStrings.bin" ContentType="application/vnd.ms-excel.sharedStrings"/></Types>"#);
        put("[Content_Types].xml", types.as_bytes());
        put(
            "_rels/.rels",
            br#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.bin"/></Relationships>"#,
        );
        let mut rels = String::from(
            r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
        );
        let sheets = self.sheets.len();
        for index in 1..=sheets {
            rels.push_str(&format!(r#"<Relationship Id="rId{index}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{index}.bin"/>"#));
        }
        rels.push_str(&format!(r#"<Relationship Id="rId{}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.bin"/><Relationship Id="rId{}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.bin"/></Relationships>"#, sheets + 1, sheets + 2));
        put("xl/_rels/workbook.bin.rels", rels.as_bytes());
        put("xl/workbook.bin", &self.workbook_part());
        put("xl/styles.bin", &Self::styles_part());
        put("xl/sharedStrings.bin", &self.shared_strings_part());
        for (index, sheet) in self.sheets.iter().enumerate() {
            put(
                &format!("xl/worksheets/sheet{}.bin", index + 1),
                &Self::sheet_part(sheet),
            );
        }
        zip.finish().unwrap().into_inner()
    }

    /// Writes the workbook to `path`.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }
}
