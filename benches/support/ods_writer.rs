//! A small OpenDocument spreadsheet (`.ods`) writer: enough of ODF 1.2 to
//! write the benchmark's sheets as LibreOffice writes them (every cell
//! with its `office:value-type`, its value attribute and the paragraph
//! LibreOffice shows; runs of empty cells and rows as repeats; a date and
//! a date-time data style), and the hostile "17 billion cells" file.
//!
//! Shared by the benchmarks and `examples/write_ods_sample.rs` (which
//! checks a small file against LibreOffice reading it back). Cells go into
//! the last sheet added, rows in the order they are written.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::io::{self, Seek, Write};

use zip::write::{SimpleFileOptions, ZipWriter};

pub const MIMETYPE: &str = "application/vnd.oasis.opendocument.spreadsheet";

pub const NAMESPACES: &str = concat!(
    r#"xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" "#,
    r#"xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" "#,
    r#"xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" "#,
    r#"xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" "#,
    r#"xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" "#,
    r#"xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" "#,
    r#"xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" "#,
    r#"xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0""#
);

/// A cell's value as the writer writes it.
#[derive(Debug, Clone, Copy)]
pub enum OdsCell<'a> {
    /// `float`, shown as written.
    Number(f64),
    /// `date` with the date style (`office:date-value`, a date).
    Date(&'a str),
    /// `date` with the date-time style (`office:date-value`, date and time).
    DateTime(&'a str),
    /// `time` (`office:time-value`, an ISO 8601 duration).
    Duration(&'a str),
    Bool(bool),
    /// `string`: the text as the cell's paragraph (line feeds become
    /// `text:line-break`).
    Text(&'a str),
    /// No value.
    Empty,
}

/// Writes the workbook's parts around the sheets' content, which is
/// streamed: `begin_sheet`, then rows, then `finish`.
pub struct OdsWriter<W: Write + Seek> {
    zip: ZipWriter<W>,
    /// The row being written (its cells, runs of empties merged).
    row: String,
    /// Empty cells not written yet (written only when a value follows).
    pending_empty: u32,
    /// Empty rows not written yet.
    pending_rows: u32,
    in_sheet: bool,
    scratch: String,
}

fn escape(text: &str, out: &mut String) {
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(ch),
        }
    }
}

/// A number as the shortest text that reads back as the same double.
fn number_text(number: f64) -> String {
    if number.fract() == 0.0 && number.abs() < 1e15 {
        format!("{number}")
    } else {
        format!("{number:?}")
    }
}

impl<W: Write + Seek> OdsWriter<W> {
    /// Starts the package: `mimetype` first and stored, the manifest,
    /// `styles.xml` and `meta.xml`, then the start of `content.xml` with
    /// its automatic styles (`ce1` a date, `ce2` a date-time).
    pub fn new(out: W) -> io::Result<OdsWriter<W>> {
        let mut zip = ZipWriter::new(out);
        let stored =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        let deflated =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("mimetype", stored)?;
        zip.write_all(MIMETYPE.as_bytes())?;
        zip.start_file("META-INF/manifest.xml", deflated)?;
        write!(
            zip,
            r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="{MIMETYPE}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>"#
        )?;
        zip.start_file("styles.xml", deflated)?;
        write!(
            zip,
            r#"<?xml version="1.0" encoding="UTF-8"?><office:document-styles {NAMESPACES} office:version="1.2"><office:styles><style:style style:name="Default" style:family="table-cell"/></office:styles></office:document-styles>"#
        )?;
        zip.start_file("meta.xml", deflated)?;
        write!(
            zip,
            r#"<?xml version="1.0" encoding="UTF-8"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.2"><office:meta><meta:generator>sheetstream bench writer</meta:generator></office:meta></office:document-meta>"#
        )?;
        zip.start_file("content.xml", deflated)?;
        write!(
            zip,
            concat!(
                r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content {} office:version="1.2">"#,
                r#"<office:automatic-styles>"#,
                r#"<number:date-style style:name="N1"><number:year number:style="long"/><number:text>-</number:text><number:month number:style="long"/><number:text>-</number:text><number:day number:style="long"/></number:date-style>"#,
                r#"<number:date-style style:name="N2"><number:year number:style="long"/><number:text>-</number:text><number:month number:style="long"/><number:text>-</number:text><number:day number:style="long"/><number:text> </number:text><number:hours number:style="long"/><number:text>:</number:text><number:minutes number:style="long"/><number:text>:</number:text><number:seconds number:style="long"/></number:date-style>"#,
                r#"<number:time-style style:name="N3" number:truncate-on-overflow="false"><number:hours/><number:text>:</number:text><number:minutes number:style="long"/><number:text>:</number:text><number:seconds number:style="long"/></number:time-style>"#,
                r#"<style:style style:name="ta1" style:family="table"><style:table-properties table:display="true"/></style:style>"#,
                r#"<style:style style:name="ce1" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N1"/>"#,
                r#"<style:style style:name="ce2" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N2"/>"#,
                r#"<style:style style:name="ce3" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N3"/>"#,
                r#"</office:automatic-styles><office:body><office:spreadsheet>"#,
                r#"<table:calculation-settings table:automatic-find-labels="false"/>"#
            ),
            NAMESPACES
        )?;
        Ok(OdsWriter {
            zip,
            row: String::new(),
            pending_empty: 0,
            pending_rows: 0,
            in_sheet: false,
            scratch: String::new(),
        })
    }

    /// Starts a sheet (ending the one before).
    pub fn begin_sheet(&mut self, name: &str, columns: u32) -> io::Result<()> {
        self.end_sheet()?;
        let mut tag = String::from(r#"<table:table table:name=""#);
        escape(name, &mut tag);
        write!(
            tag,
            r#"" table:style-name="ta1"><table:table-column table:number-columns-repeated="{columns}" table:default-cell-style-name="Default"/>"#
        )
        .ok();
        self.zip.write_all(tag.as_bytes())?;
        self.in_sheet = true;
        Ok(())
    }

    fn end_sheet(&mut self) -> io::Result<()> {
        if self.in_sheet {
            self.flush_empty_rows()?;
            self.zip.write_all(b"</table:table>")?;
            self.in_sheet = false;
        }
        Ok(())
    }

    fn flush_empty_rows(&mut self) -> io::Result<()> {
        if self.pending_rows > 0 {
            let run = if self.pending_rows > 1 {
                format!(r#" table:number-rows-repeated="{}""#, self.pending_rows)
            } else {
                String::new()
            };
            write!(
                self.zip,
                r#"<table:table-row{run}><table:table-cell/></table:table-row>"#
            )?;
            self.pending_rows = 0;
        }
        Ok(())
    }

    fn flush_empty_cells(&mut self) {
        match self.pending_empty {
            0 => {}
            1 => self.row.push_str("<table:table-cell/>"),
            count => {
                write!(
                    self.row,
                    r#"<table:table-cell table:number-columns-repeated="{count}"/>"#
                )
                .ok();
            }
        }
        self.pending_empty = 0;
    }

    /// Writes one row of cells, from column A; trailing empty cells are
    /// left out, and a row without values waits to be merged with the
    /// empty rows after it.
    pub fn write_row(&mut self, cells: &[OdsCell<'_>]) -> io::Result<()> {
        if cells.iter().all(|cell| matches!(cell, OdsCell::Empty)) {
            self.pending_rows += 1;
            return Ok(());
        }
        self.flush_empty_rows()?;
        self.row.clear();
        self.row.push_str("<table:table-row>");
        for cell in cells {
            if let OdsCell::Empty = cell {
                self.pending_empty += 1;
                continue;
            }
            self.flush_empty_cells();
            self.write_cell(cell);
        }
        self.pending_empty = 0;
        self.row.push_str("</table:table-row>");
        self.zip.write_all(self.row.as_bytes())
    }

    fn write_cell(&mut self, cell: &OdsCell<'_>) {
        let row = &mut self.row;
        match *cell {
            OdsCell::Number(number) => {
                let text = number_text(number);
                write!(
                    row,
                    r#"<table:table-cell office:value-type="float" office:value="{text}" calcext:value-type="float"><text:p>{text}</text:p></table:table-cell>"#
                )
                .ok();
            }
            OdsCell::Date(date) => {
                write!(
                    row,
                    r#"<table:table-cell table:style-name="ce1" office:value-type="date" office:date-value="{date}" calcext:value-type="date"><text:p>{date}</text:p></table:table-cell>"#
                )
                .ok();
            }
            OdsCell::DateTime(moment) => {
                let shown = moment.replace('T', " ");
                write!(
                    row,
                    r#"<table:table-cell table:style-name="ce2" office:value-type="date" office:date-value="{moment}" calcext:value-type="date"><text:p>{shown}</text:p></table:table-cell>"#
                )
                .ok();
            }
            OdsCell::Duration(duration) => {
                write!(
                    row,
                    r#"<table:table-cell table:style-name="ce3" office:value-type="time" office:time-value="{duration}" calcext:value-type="time"><text:p>{duration}</text:p></table:table-cell>"#
                )
                .ok();
            }
            OdsCell::Bool(flag) => {
                let (value, shown) = if flag {
                    ("true", "TRUE")
                } else {
                    ("false", "FALSE")
                };
                write!(
                    row,
                    r#"<table:table-cell office:value-type="boolean" office:boolean-value="{value}" calcext:value-type="boolean"><text:p>{shown}</text:p></table:table-cell>"#
                )
                .ok();
            }
            OdsCell::Text(text) => {
                row.push_str(
                    r#"<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>"#,
                );
                for (i, line) in text.split('\n').enumerate() {
                    if i > 0 {
                        row.push_str("<text:line-break/>");
                    }
                    escape(line, row);
                }
                row.push_str("</text:p></table:table-cell>");
            }
            OdsCell::Empty => row.push_str("<table:table-cell/>"),
        }
    }

    /// Writes raw XML into the current sheet (for hand-made rows).
    pub fn write_raw(&mut self, xml: &str) -> io::Result<()> {
        self.flush_empty_rows()?;
        self.zip.write_all(xml.as_bytes())
    }

    /// Ends the last sheet and the package.
    pub fn finish(mut self) -> io::Result<W> {
        self.end_sheet()?;
        self.zip
            .write_all(b"</office:spreadsheet></office:body></office:document-content>")?;
        let _ = &self.scratch;
        Ok(self.zip.finish()?)
    }
}

/// The days since 1970-01-01 of a 1900-system serial's date, then its
/// ISO text: `YYYY-MM-DD`, and `THH:MM:SS` when `with_time`.
pub fn iso_of_serial(serial: f64, with_time: bool) -> String {
    let mut days = serial.floor() as i64;
    let mut ms = ((serial - serial.floor()) * 86_400_000.0).round() as i64;
    if ms >= 86_400_000 {
        days += 1;
        ms -= 86_400_000;
    }
    let z = days - 25569 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut text = format!("{year:04}-{month:02}-{day:02}");
    if with_time {
        let seconds = ms / 1000;
        write!(
            text,
            "T{:02}:{:02}:{:02}",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )
        .ok();
    }
    text
}

/// The bench's mixed row (see `workbooks::write_mixed_row`) as `.ods`
/// cells: the same values, dates as dates.
pub fn mixed_row(row: u32, columns: u16, strings: &mut Vec<String>) -> Vec<OdsCell<'_>> {
    let i = f64::from(row);
    strings.clear();
    strings.push(iso_of_serial(36526.0 + (i % 9000.0), false));
    strings.push(iso_of_serial(40000.0 + i / 1440.0, true));
    strings.push(format!("item-{row:07}"));
    let (date, moment, item) = (&strings[0], &strings[1], &strings[2]);
    (0..columns)
        .map(|column| match column % 10 {
            0 => OdsCell::Number(i),
            1 => OdsCell::Number((i * 1.25) % 9973.0 - 17.5),
            2 => OdsCell::Date(date),
            3 => OdsCell::DateTime(moment),
            4 => OdsCell::Bool(row.is_multiple_of(3)),
            5 => OdsCell::Text(CATEGORIES[row as usize % CATEGORIES.len()]),
            6 => OdsCell::Text(item),
            7 if row.is_multiple_of(3) => OdsCell::Number(i / 7.0),
            8 if row.is_multiple_of(5) => OdsCell::Text("sparse note"),
            7 | 8 => OdsCell::Empty,
            _ => OdsCell::Number(-(i % 1000.0) / 100.0),
        })
        .collect()
}

/// As `workbooks::CATEGORIES`.
const CATEGORIES: [&str; 12] = [
    "north",
    "south",
    "east",
    "west",
    "central",
    "harbour & docks",
    "río",
    "münchen",
    "東京",
    "<unknown>",
    "night shift",
    "day shift",
];

/// Writes `sheets` sheets of `rows` mixed rows of `columns` columns.
pub fn write_mixed<W: Write + Seek>(out: W, sheets: u32, rows: u32, columns: u16) -> io::Result<W> {
    let mut writer = OdsWriter::new(out)?;
    let mut strings = Vec::new();
    for sheet in 0..sheets {
        writer.begin_sheet(&format!("Sheet{}", sheet + 1), u32::from(columns))?;
        for row in 0..rows {
            let cells = mixed_row(row, columns, &mut strings);
            writer.write_row(&cells)?;
        }
    }
    writer.finish()
}

/// The hostile file of calamine's issue 594, with empty cells: one value
/// in A1, then a row of 16,384 empty cells repeated down to row
/// 1,048,576: 17 billion cells claimed in a few hundred bytes, none of
/// them with a value.
pub fn write_all_cells<W: Write + Seek>(out: W) -> io::Result<W> {
    let mut writer = OdsWriter::new(out)?;
    writer.begin_sheet("Sheet1", 16_384)?;
    writer.write_row(&[OdsCell::Text("only value")])?;
    writer.write_raw(
        r#"<table:table-row table:number-rows-repeated="1048575"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>"#,
    )?;
    writer.finish()
}
