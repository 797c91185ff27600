//! Entry points for the fuzz targets in `fuzz/` and for tests that drive
//! internal layers directly. Not part of the public API.
//!
//! `read_sheet_xml`, `read_sheet_xlsb`: a sheet part through a format's row
//! reader with a window of any size.

/// The decryption engine (feature `encryption`), for the tests that drive
/// it on the encrypted corpus below the workbook (the open path's own
/// tests are `tests/encrypted_workbooks.rs`) and for the fuzz targets of
/// its parsers.
#[cfg(feature = "encryption")]
pub mod encryption {
    pub use crate::encryption::*;
}

use crate::contract::{PartSource, SheetContext, SheetRows};
use crate::date::DateSystem;
use crate::error::Result;
use crate::limits::Limits;
use crate::shared_strings::SharedStringsBuilder;
use crate::styles::StylesBuilder;
use crate::xlsb::rows::XlsbRows;
use crate::xlsx::rows::XlsxRows;
use crate::xlsx::shared_strings::read_shared_strings;
use crate::xlsx::styles::read_styles;

/// Streams `xml` as a worksheet part through the scanner and the row
/// reader with a window of `chunk_size` bytes, against a shared strings
/// table of three strings and a styles part where style 1 is a date.
/// Returns the number of cells read, and a digest of what was read so
/// that two runs can be compared.
pub fn read_sheet_xml(xml: &[u8], chunk_size: usize) -> Result<(usize, String)> {
    read_sheet_xml_with(xml, chunk_size, true)
}

/// [`read_sheet_xml`], with the scanner's repeated cell shapes (its
/// fastest path: cells whose tags repeat their column's shape) or
/// without (the fast and general paths alone), so that the two can be
/// compared.
pub fn read_sheet_xml_with(xml: &[u8], chunk_size: usize, shapes: bool) -> Result<(usize, String)> {
    let limits = Limits {
        max_row_bytes: 1 << 20,
        ..Limits::default()
    };
    let shared_strings = read_shared_strings(
        &b"<sst><si><t>zero</t></si><si><t>one</t></si><si><r><t>tw</t></r><r><t>o</t></r></si></sst>"[..],
        &limits,
    )?;
    let styles = read_styles(
        br#"<styleSheet><cellXfs><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>"#,
        DateSystem::V1900,
    )?;
    let context = SheetContext {
        shared_strings: Some(&shared_strings),
        styles: &styles,
        date_system: DateSystem::V1900,
        links: &crate::formula::NO_LINKS,
    };
    let mut reader = XlsxRows::new(
        PartSource::Reader(Box::new(xml)),
        context,
        "Fuzz",
        "xl/worksheets/sheet1.xml",
        &limits,
    );
    if !shapes {
        reader = reader.without_shapes();
    }
    let mut rows = SheetRows::new(reader)
        .with_chunk_size(chunk_size, &limits)
        .with_formulas(true);
    let mut cells = 0;
    let mut digest = String::new();
    while let Some(row) = rows.next_row()? {
        digest.push_str(&format!("row {}\n", row.index()));
        for cell in row.cells() {
            cells += 1;
            digest.push_str(&format!(
                "{} {:?} {:?}\n",
                cell.reference(),
                cell.value(),
                cell.formula()
            ));
        }
    }
    Ok((cells, digest))
}

/// Streams `xml` as an OpenDocument `content.xml` through the content
/// scanner and the row reader with a window of `chunk_size` bytes, by the
/// fast path first or (`fast` false) the general one only: its first two
/// tables, against styles where `ce1` is a date style; and through the
/// sheet list's pass. Returns the number of cells read, and a digest of
/// what was read so that two runs can be compared.
pub fn read_ods_xml(xml: &[u8], chunk_size: usize, fast: bool) -> Result<(usize, String)> {
    use crate::ods::OdsLayout;
    use crate::ods::catalog::{Document, read_catalog};
    use crate::ods::rows::OdsRows;
    use crate::ods::styles::{CellStyle, DataKind, DataStyle, Part, build_styles};
    let limits = Limits {
        max_row_bytes: 1 << 20,
        ..Limits::default()
    };
    let (styles, style_names) = build_styles(
        &[CellStyle {
            name: "ce1".into(),
            parent: None,
            data_style: Some("N1".into()),
        }],
        &[DataStyle {
            name: "N1".into(),
            kind: DataKind::Date,
            parts: vec![Part::Year { long: true }],
            ..DataStyle::default()
        }],
        DateSystem::V1900,
    );
    let layout = OdsLayout {
        style_names,
        ..OdsLayout::default()
    };
    let context = SheetContext {
        shared_strings: None,
        styles: &styles,
        date_system: DateSystem::V1900,
        links: &crate::formula::NO_LINKS,
    };
    let mut cells = 0;
    let mut digest = String::new();
    for table in 0..2 {
        let mut rows = OdsRows::new(
            PartSource::Reader(Box::new(xml)),
            context,
            &layout,
            table,
            "Fuzz",
            "content.xml",
            &limits,
        )
        .with_chunk_size(chunk_size, &limits)
        .with_formulas(true);
        if !fast {
            rows = rows.without_fast_path();
        }
        while let Some(row) = rows.next_row()? {
            digest.push_str(&format!("row {} {}\n", row.index(), row.is_hidden()));
            for cell in row.cells() {
                cells += 1;
                digest.push_str(&format!(
                    "{} {} {:?} {:?}\n",
                    cell.reference(),
                    cell.style(),
                    cell.value(),
                    cell.formula()
                ));
            }
        }
    }
    // The sheet list's pass: it must not panic; what it says is compared.
    match read_catalog(
        PartSource::Reader(Box::new(xml)),
        &limits,
        Document::Content,
    ) {
        Ok((catalog, _)) => {
            for table in &catalog.tables {
                digest.push_str(&format!("table {:?}\n", table.name));
            }
        }
        Err(err) => digest.push_str(&format!("catalog: {}\n", err.kind())),
    }
    Ok((cells, digest))
}

/// Streams `bytes` as an `.xlsb` worksheet part (BIFF12 records) through
/// the record stream and the row reader with a window of `chunk_size`
/// bytes, against a shared strings table of three strings and styles
/// where style 1 is a date. Returns the number of cells read, and a
/// digest of what was read so that two runs can be compared.
pub fn read_sheet_xlsb(bytes: &[u8], chunk_size: usize) -> Result<(usize, String)> {
    read_sheet_xlsb_with(bytes, chunk_size, None)
}

/// As [`read_sheet_xlsb`], with only the cells of `columns` resolved.
pub fn read_sheet_xlsb_with(
    bytes: &[u8],
    chunk_size: usize,
    columns: Option<crate::ColumnSet>,
) -> Result<(usize, String)> {
    let limits = Limits {
        max_row_bytes: 1 << 20,
        ..Limits::default()
    };
    let mut strings = SharedStringsBuilder::new(&limits);
    for text in ["zero", "one", "two"] {
        strings.append(text.as_bytes())?;
        strings.end_item()?;
    }
    let shared_strings = strings.finish()?;
    let mut styles = StylesBuilder::new();
    styles.cell_style(0);
    styles.cell_style(14);
    let styles = styles.finish(DateSystem::V1900);
    let context = SheetContext {
        shared_strings: Some(&shared_strings),
        styles: &styles,
        date_system: DateSystem::V1900,
        links: &crate::formula::NO_LINKS,
    };
    let mut rows = SheetRows::new(XlsbRows::new(
        PartSource::Reader(Box::new(bytes)),
        context,
        "Fuzz",
        "xl/worksheets/sheet1.bin",
        &limits,
    ))
    .with_chunk_size(chunk_size, &limits);
    rows.select_columns(columns);
    let mut cells = 0;
    let mut digest = String::new();
    while let Some(row) = rows.next_row()? {
        digest.push_str(&format!("row {} {}\n", row.index(), row.holds_values()));
        for cell in row.cells() {
            cells += 1;
            digest.push_str(&format!(
                "{} {} {:?}\n",
                cell.reference(),
                cell.style(),
                cell.value()
            ));
        }
    }
    Ok((cells, digest))
}

/// Streams `xml` as the worksheet part of `sheet` in `workbook` (its
/// shared strings, styles and date system), from memory: the benchmarks
/// time the scanning and resolving alone with it, inflate left out.
pub fn count_sheet_xml<R>(
    workbook: &crate::Workbook<R>,
    sheet: usize,
    xml: &[u8],
) -> Result<crate::SheetCounts> {
    let info = &workbook.sheets[sheet];
    let context = SheetContext {
        shared_strings: workbook.shared_strings.as_ref(),
        styles: &workbook.styles,
        date_system: workbook.date_system,
        links: &workbook.links,
    };
    let mut rows = SheetRows::new(XlsxRows::new(
        PartSource::Reader(Box::new(xml)),
        context,
        info.name(),
        info.part(),
        &workbook.limits,
    ));
    let mut counts = crate::SheetCounts::default();
    while let Some(row) = rows.next_row()? {
        counts.add_row(&row);
    }
    Ok(counts)
}

/// Parses `code` as a number format and renders a few values through it
/// (numbers of every size and sign, a date serial, text), returning the
/// total length of the texts. Panics (for the fuzzer to find) when one is
/// longer than the bound on a rendered text: the code's length times 4,
/// plus room for the digits of an `f64` and a General fallback.
pub fn render_format_code(code: &str, numbers: &[f64]) -> usize {
    let format = crate::format::NumberFormat::parse(code);
    let bound = 4 * code.len().min(crate::format::MAX_CODE_BYTES) + 1024;
    let mut total = 0;
    let mut out = String::new();
    let mut check = |out: &mut String| {
        assert!(
            out.len() <= bound,
            "format {code:?} rendered {} bytes, more than {bound}",
            out.len()
        );
        total += out.len();
        out.clear();
    };
    for &number in numbers.iter().chain(&[
        0.0,
        -0.0,
        1.0,
        -1.5,
        0.125,
        501.0,
        45_000.75,
        -45_000.75,
        1e15,
        1e300,
        -1e-300,
        f64::MAX,
        f64::MIN_POSITIVE,
        2_958_465.999_999,
    ]) {
        format.write_number(number, &mut out);
        check(&mut out);
        format.write_number_in(number, DateSystem::V1904, &mut out);
        check(&mut out);
    }
    format.write_text("text", &mut out);
    check(&mut out);
    total
}

/// The bytes of a `.xls` file whose `Workbook` stream is `stream`: the
/// compound file written around it by the `cfb` crate, so that a fuzzer
/// mutating BIFF records reaches the record readers past the container.
pub fn xls_from_stream(stream: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let build = || -> std::io::Result<Vec<u8>> {
        let mut file = cfb::CompoundFile::create_with_version(
            cfb::Version::V3,
            std::io::Cursor::new(Vec::new()),
        )?;
        file.create_stream("/Workbook")?.write_all(stream)?;
        file.flush()?;
        Ok(file.into_inner().into_inner())
    };
    build().unwrap_or_default()
}

/// Opens `bytes` as a workbook and reads everything: every sheet's rows
/// (one of them in parallel too), its metadata, the defined names and the
/// tables.
/// Returns the number of cells read; errors are values, never panics. An
/// `ErrorKind::Io` from bytes in memory is reported as a panic, for the
/// fuzzer: the container's damage must be a format error.
pub fn read_whole_workbook(bytes: &[u8]) -> usize {
    let check = |err: &crate::Error| {
        let _ = err.to_string();
        if let crate::ErrorKind::Io(io) = err.kind() {
            panic!("reading from memory failed with an I/O error ({io:?}): {err}");
        }
    };
    let mut workbook = match crate::Workbook::from_bytes(bytes.to_vec()) {
        Ok(workbook) => workbook,
        Err(err) => {
            check(&err);
            return 0;
        }
    };
    let mut cells = 0;
    for position in 0..workbook.sheets().len() {
        match workbook.rows(position) {
            Ok(mut rows) => loop {
                match rows.next_row() {
                    Ok(Some(row)) => {
                        for cell in row.cells() {
                            cells += 1;
                            let _ = (cell.reference().to_string(), cell.value().to_string());
                        }
                    }
                    Ok(None) => break,
                    Err(err) => {
                        check(&err);
                        assert!(
                            matches!(rows.next_row(), Ok(None)),
                            "the reader yielded more after the error {err}"
                        );
                        break;
                    }
                }
            },
            Err(err) => check(&err),
        }
        for result in [
            workbook.sheet_metadata(position).map(|_| ()),
            workbook.sheet_dimension(position).map(|_| ()),
            workbook.hidden_rows(position).map(|_| ()),
        ] {
            if let Err(err) = result {
                check(&err);
            }
        }
    }
    if let Err(err) = workbook.defined_names() {
        check(&err);
    }
    if let Err(err) = workbook.tables() {
        check(&err);
    }
    if let Err(err) = workbook.load_all() {
        check(&err);
    }
    cells
}

/// Reads every sheet of the workbook in `bytes` twice, with no column
/// selection and with every column selected, and panics (for the fuzzer to
/// find) when the rows or the error that ends them differ: a `.xls`
/// sheet's common cell records are read straight from the record window
/// without a selection, field by field with one. Returns the cells read.
pub fn read_both_ways(bytes: &[u8]) -> usize {
    let digest = |every_column: bool| {
        let mut out = String::new();
        let mut cells = 0;
        let Ok(mut workbook) = crate::Workbook::from_bytes(bytes.to_vec()) else {
            return (0, out);
        };
        for position in 0..workbook.sheets().len() {
            let mut rows = match workbook.rows(position) {
                Ok(rows) => rows,
                Err(err) => {
                    out.push_str(&format!("{err} {:?}\n", err.location()));
                    continue;
                }
            };
            if every_column {
                rows.select_columns(Some((0..=crate::cell::MAX_COLUMN).collect()));
            }
            loop {
                match rows.next_row() {
                    Ok(Some(row)) => {
                        out.push_str(&format!("row {} {}\n", row.index(), row.is_hidden()));
                        for cell in row.cells() {
                            cells += 1;
                            out.push_str(&format!(
                                "{} {} {:?}\n",
                                cell.reference(),
                                cell.style(),
                                cell.value()
                            ));
                        }
                    }
                    Ok(None) => break,
                    Err(err) => {
                        out.push_str(&format!("{err} {:?}\n", err.location()));
                        break;
                    }
                }
            }
        }
        (cells, out)
    };
    let (cells, plain) = digest(false);
    let (_, checked) = digest(true);
    assert_eq!(
        plain, checked,
        "read without a column selection and with every column"
    );
    cells
}

/// Reads every worksheet of the workbook in `bytes` with the pull reader
/// (sheet after sheet, to the first error) and on the parallel engine with
/// 1, 2, 4 and 16 threads (an `.xls` sheet read in blocks from 4, a lone
/// package sheet pipelined), and panics (for the fuzzer to find) unless
/// each gives the same rows, values and error: one answer on every thread
/// count (issue 46). Sheets after the failing one are left out of the
/// comparison (the engine stops them wherever they were). Returns the row
/// events read serially.
pub fn read_on_every_thread_count(bytes: &[u8]) -> usize {
    use std::collections::BTreeMap;
    use std::sync::Mutex;
    let line = |row: &crate::Row<'_>| {
        let mut out = format!("{} {}", row.index(), row.is_hidden());
        for cell in row.cells() {
            let value = match cell.value() {
                crate::Value::Number(number) => format!("{:x}", number.to_bits()),
                other => format!("{other:?}"),
            };
            out.push_str(&format!(" {}/{}={value}", cell.column(), cell.style()));
        }
        out
    };
    let Ok(mut workbook) = crate::Workbook::from_bytes(bytes.to_vec()) else {
        return 0;
    };
    let worksheets: Vec<usize> = (0..workbook.sheets().len())
        .filter(|&at| workbook.sheets()[at].kind() == crate::SheetKind::Worksheet)
        .collect();
    let mut serial = BTreeMap::new();
    let mut serial_error = None;
    let mut events = 0;
    for &position in &worksheets {
        let mut lines = Vec::new();
        let error = match workbook.rows(position) {
            Ok(mut rows) => loop {
                match rows.next_row() {
                    Ok(Some(row)) => lines.push(line(&row)),
                    Ok(None) => break None,
                    Err(err) => break Some(err.to_string()),
                }
            },
            Err(err) => Some(err.to_string()),
        };
        events += lines.len();
        serial.insert(position, lines);
        if error.is_some() {
            serial_error = error;
            break;
        }
    }
    for threads in [1, 2, 4, 16] {
        let found = Mutex::new(BTreeMap::new());
        let failed = Mutex::new(None::<usize>);
        let result = workbook.parallel().threads(threads).for_each_sheet(|| {
            |sheet: &crate::SheetInfo, rows: Result<crate::SheetRows<'_>>| {
                let mut lines = Vec::new();
                let read = rows.and_then(|mut rows| {
                    while let Some(row) = rows.next_row()? {
                        lines.push(line(&row));
                    }
                    Ok(true)
                });
                found
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(sheet.position(), lines);
                if read.is_err() {
                    let mut failed = failed.lock().unwrap_or_else(|p| p.into_inner());
                    *failed = Some(failed.map_or(sheet.position(), |at| at.min(sheet.position())));
                }
                read
            }
        });
        let failed = failed.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut found = found.into_inner().unwrap_or_else(|p| p.into_inner());
        found.retain(|position, _| failed.is_none_or(|failed| *position <= failed));
        let error = result.err().map(|err| err.to_string());
        assert_eq!(error, serial_error, "the error on {threads} threads");
        assert!(
            found == serial,
            "the rows on {threads} threads differ from the pull reader's"
        );
    }
    events
}

/// Decompiles `tokens` as a formula of both layouts (`.xlsb` and BIFF8)
/// against a small link table, from a cell near the grid's corner (so
/// relative references wrap); returns the total length of the texts.
/// Panics (for the fuzzer to find) when an error leaves text behind or a
/// text is past the decompiler's bound; nothing else may panic.
pub fn decompile_formula(tokens: &[u8]) -> usize {
    use crate::formula::{Decompiled, Decompiler, Dialect, Links, MAX_TEXT, Origin};
    let links = Links {
        sheets: vec![Some("Sheet1!".into()), None, Some("'A b'!".into())],
        names: vec!["Rate".into(), String::new()],
        external_names: vec![vec!["EDATE".into()]],
    };
    let mut decompiler = Decompiler::new();
    let mut total = 0;
    for dialect in [Dialect::Xlsb, Dialect::Biff8] {
        for origin in [
            Origin { row: 0, column: 0 },
            Origin {
                row: 65_535,
                column: 255,
            },
        ] {
            let mut out = String::from("kept");
            match decompiler.decompile(dialect, tokens, origin, &links, &mut out) {
                Ok(Decompiled::Text) => {
                    // The bound is checked after each token: one string token
                    // (65,535 UTF-16 units, quotes doubled) may pass it.
                    let bound = 4 + MAX_TEXT + 6 * 65_536 + 1024;
                    assert!(out.len() <= bound, "text of {} bytes", out.len());
                    total += out.len();
                }
                Ok(Decompiled::Shared { .. }) => assert_eq!(out, "kept"),
                Err(_) => assert_eq!(out, "kept", "an error left text behind"),
            }
        }
    }
    total
}

/// How many blocks of `.xls` sheets parallel workers have read in this
/// process (INDEX/DBCELL reading; tests check that it ran).
pub fn xls_blocks_read() -> u64 {
    crate::xls::blocks::blocks_read()
}
