//! Heap allocations while streaming do not grow with the number of rows.
//!
//! This test binary installs a counting global allocator, so it holds this
//! one test only: another test running on another thread would add its own
//! allocations to the count.

/// The rows of the small and the large sheet of each case: allocations
/// must be the same for both (twenty times the rows).
const SMALL: u32 = 2_000;
const LARGE: u32 = 40_000;

use std::io::{Cursor, Write};

use sheetstream::{ColumnSet, SheetCounts, Workbook};
use zip::write::SimpleFileOptions;

#[path = "../benches/support/counting_allocator.rs"]
mod counting_allocator;

use counting_allocator::allocations;

#[path = "common/xls.rs"]
mod xls;

#[cfg(feature = "encryption")]
#[path = "common/odf_encrypt.rs"]
mod odf_encrypt;

/// A `.xls` workbook of `rows` rows (BIFF8, at most 65,536): numbers,
/// RK and MULRK numbers, dates, shared strings, Latin-1 and UTF-16 labels
/// (decoded into the arena), booleans, errors and formula strings.
fn xls_workbook(rows: u32) -> Vec<u8> {
    let mut book = xls::Book::new();
    book.tail = xls::sst(&["north", "south", "east"], 3, 8224, false);
    let mut sheet = Vec::new();
    for row in 0..rows {
        let r = row as u16;
        sheet.extend(xls::number(r, 0, 0, f64::from(row) / 2.0));
        sheet.extend(xls::rk(
            r,
            1,
            1,
            xls::rk_int(40_000 + (row % 5000) as i32, false),
        ));
        sheet.extend(xls::mulrk(
            r,
            2,
            &[(0, xls::rk_int(7, true)), (0, xls::rk_int(8, false))],
        ));
        sheet.extend(xls::label_sst(r, 4, 0, row % 3));
        sheet.extend(xls::label(r, 5, 0, "café crème"));
        sheet.extend(xls::label(r, 6, 0, "Grüße, 世界"));
        sheet.extend(xls::boolerr(r, 7, 0, (row % 2) as u8, false));
        sheet.extend(xls::boolerr(r, 8, 0, 0x2A, true));
        sheet.extend(xls::formula_string(r, 9, 0, "formula text"));
    }
    book.sheet("Data", sheet);
    book.bytes()
}

#[path = "../benches/support/xlsb_writer.rs"]
mod xlsb_writer;

#[path = "../benches/support/ods_writer.rs"]
mod ods_writer;

use xlsb_writer::{STYLE_BUILTIN_DATE, STYLE_FIXED, XlsbCell, XlsbWriter};

const CONTENT_TYPES: &str = r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>"#;
const PACKAGE_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;
const WORKBOOK: &str = r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
const WORKBOOK_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>"#;
const STYLES: &str = r##"<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="#,##0.00;[Red]\(#,##0.00\)"/></numFmts><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/></cellXfs></styleSheet>"##;
const SHARED_STRINGS: &str = r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>north</t></si><si><t>south &amp; east</t></si><si><r><t>rich</t></r><r><t> text</t></r></si></sst>"#;

/// A workbook of `rows` rows in one recipe: numbers, dates, booleans,
/// shared strings, inline strings and formula strings that need entity
/// decoding (so the arena is used), an error, and sparse cells.
fn workbook(rows: u32) -> Vec<u8> {
    let mut sheet = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#,
    );
    for row in 1..=rows {
        sheet.push_str(&format!(
            concat!(
                r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c><c r="B{row}" s="2"><v>{half}</v></c>"#,
                r#"<c r="C{row}" s="1"><v>{date}</v></c><c r="D{row}" t="b"><v>{flag}</v></c>"#,
                r#"<c r="E{row}" t="s"><v>{string}</v></c>"#,
                r#"<c r="F{row}" t="inlineStr"><is><t>row &lt;{row}&gt; &amp; more</t></is></c>"#,
                r#"<c r="G{row}" t="str"><f>A{row}&amp;"x"</f><v>{row}x&#13;</v></c>"#,
                r#"<c r="H{row}" t="e"><v>#N/A</v></c>{sparse}</row>"#
            ),
            row = row,
            half = f64::from(row) / 2.0,
            date = 40000 + row % 5000,
            flag = row % 2,
            string = row % 3,
            sparse = if row % 7 == 0 {
                format!(r#"<c r="J{row}"><v>-1.25E-3</v></c>"#)
            } else {
                String::new()
            },
        ));
    }
    sheet.push_str("</sheetData></worksheet>");
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, content) in [
        ("[Content_Types].xml", CONTENT_TYPES),
        ("_rels/.rels", PACKAGE_RELS),
        ("xl/workbook.xml", WORKBOOK),
        ("xl/_rels/workbook.xml.rels", WORKBOOK_RELS),
        ("xl/styles.xml", STYLES),
        ("xl/sharedStrings.xml", SHARED_STRINGS),
        ("xl/worksheets/sheet1.xml", sheet.as_str()),
    ] {
        zip.start_file(name, options).unwrap();
        zip.write_all(content.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// The recipe of [`workbook`] as an `.xlsb`: RK and real numbers, dates,
/// booleans, shared strings, inline rich strings and formula strings
/// (UTF-16 decoded into the row's text), an error, sparse cells.
fn xlsb_workbook(rows: u32) -> Vec<u8> {
    let mut writer = XlsbWriter::new();
    writer.add_sheet("Data", 0);
    let strings = ["north", "south & east", "rich text"];
    let mut text = String::new();
    for row in 1..=rows {
        writer.row(row - 1);
        writer.cell(0, 0, XlsbCell::Number(f64::from(row)));
        writer.cell(1, STYLE_FIXED, XlsbCell::Real(f64::from(row) / 3.0));
        writer.cell(
            2,
            STYLE_BUILTIN_DATE,
            XlsbCell::Number(f64::from(40000 + row % 5000)),
        );
        writer.cell(3, 0, XlsbCell::Bool(row % 2 == 1));
        writer.cell(4, 0, XlsbCell::Text(strings[(row % 3) as usize]));
        text.clear();
        text.push_str(&format!("row <{row}> & m\u{f6}re"));
        writer.cell(5, 0, XlsbCell::RichText(&text));
        writer.cell(6, 0, XlsbCell::FormulaText(&text[..4]));
        writer.cell(7, 0, XlsbCell::Error(0x2A));
        if row % 7 == 0 {
            writer.cell(9, 0, XlsbCell::Number(-1.25e-3));
        }
    }
    writer.to_bytes()
}

/// An `.ods` workbook of `rows` rows: the bench's mixed recipe (numbers,
/// dates, date-times, booleans, text that needs entity decoding, sparse
/// columns as repeated empty cells) and a duration and a two-line text
/// (decoded into the arena), then a run of a value repeated over three
/// columns every tenth row.
fn ods_workbook(rows: u32) -> Vec<u8> {
    use ods_writer::{OdsCell, OdsWriter};
    let mut writer = OdsWriter::new(Cursor::new(Vec::new())).unwrap();
    writer.begin_sheet("Data", 12).unwrap();
    let mut strings = Vec::new();
    for row in 0..rows {
        let mut cells = ods_writer::mixed_row(row, 10, &mut strings);
        cells.push(OdsCell::Duration("PT1H30M"));
        cells.push(OdsCell::Text("two\nlines"));
        writer.write_row(&cells).unwrap();
        if row % 10 == 0 {
            writer
                .write_raw(r#"<table:table-row><table:table-cell table:number-columns-repeated="3" office:value-type="float" office:value="7"/></table:table-row>"#)
                .unwrap();
        }
    }
    writer.finish().unwrap().into_inner()
}

/// `ods_workbook`'s package with its `content.xml` encrypted (AES-256-CBC,
/// as LibreOffice writes it), every entry stored.
#[cfg(feature = "encryption")]
fn encrypted_ods_workbook(rows: u32) -> Vec<u8> {
    use std::io::Read;
    let plain = ods_workbook(rows);
    let mut archive = zip::ZipArchive::new(Cursor::new(plain)).unwrap();
    let mut content = Vec::new();
    archive
        .by_name("content.xml")
        .unwrap()
        .read_to_end(&mut content)
        .unwrap();
    let params = odf_encrypt::OdfParams::default();
    let mut seeded = odf_encrypt::Seeded(params.seed);
    let entry = odf_encrypt::encrypt_entry("content.xml", &content, "secret", &params, &mut seeded);
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(ods_writer::MIMETYPE.as_bytes()).unwrap();
    zip.start_file("META-INF/manifest.xml", stored).unwrap();
    zip.write_all(odf_encrypt::manifest(&entry.manifest_entry).as_bytes())
        .unwrap();
    zip.start_file("content.xml", stored).unwrap();
    zip.write_all(&entry.stored).unwrap();
    zip.finish().unwrap().into_inner()
}

/// Streams the sheet, returning the counts and the allocations made while
/// streaming (from `rows()` to the end of the sheet).
fn stream(bytes: Vec<u8>) -> (SheetCounts, u64) {
    stream_columns(bytes, None)
}

/// As `stream`, resolving only `columns` when given (the pushdown).
fn stream_columns(bytes: Vec<u8>, columns: Option<ColumnSet>) -> (SheetCounts, u64) {
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let mut counts = SheetCounts::default();
    let before = allocations();
    let mut rows = workbook.rows("Data").unwrap();
    rows.select_columns(columns);
    while let Some(row) = rows.next_row().unwrap() {
        counts.add_row(&row);
    }
    drop(rows);
    let allocations = allocations() - before;
    (counts, allocations)
}

/// Streams the sheet with formula text (`with_formulas`): the number of
/// formula cells and the allocations made while streaming.
fn stream_formulas(bytes: Vec<u8>) -> (u64, u64) {
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let mut formulas = 0;
    let before = allocations();
    let mut rows = workbook.rows("Data").unwrap().with_formulas(true);
    while let Some(row) = rows.next_row().unwrap() {
        formulas += row.cells().iter().filter(|c| c.formula().is_some()).count() as u64;
    }
    drop(rows);
    (formulas, allocations() - before)
}

/// Asserts that formula text costs no allocation per row (the decompiler's
/// stack and the row's buffers are reused).
fn assert_formula_allocations(format: &str, small: Vec<u8>, large: Vec<u8>, rows: (u64, u64)) {
    let (small_formulas, small_allocations) = stream_formulas(small);
    let (large_formulas, large_allocations) = stream_formulas(large);
    assert_eq!((small_formulas, large_formulas), rows);
    println!(
        "allocations while streaming {format} with formulas: {small_allocations} for {} rows, \
         {large_allocations} for {} rows",
        rows.0, rows.1
    );
    assert!(
        small_allocations < 160,
        "{small_allocations} allocations for {format} formulas"
    );
    assert!(
        large_allocations.abs_diff(small_allocations) <= 4,
        "{format} formulas: {small_allocations} allocations for {} rows but {large_allocations} for {}",
        rows.0,
        rows.1
    );
}

/// Streams the sheet of a `.xls` workbook: the counts, the allocations
/// opening the sheet (`rows()`) and those while streaming its rows.
fn stream_xls(bytes: Vec<u8>) -> (SheetCounts, u64, u64) {
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let mut counts = SheetCounts::default();
    let before = allocations();
    let mut rows = workbook.rows("Data").unwrap();
    let opened = allocations();
    while let Some(row) = rows.next_row().unwrap() {
        counts.add_row(&row);
    }
    drop(rows);
    let done = allocations();
    (counts, opened - before, done - opened)
}

/// Streams the sheet and renders every cell through its number format into
/// one reused `String`, returning the total length of the texts and the
/// allocations made while streaming and rendering.
fn stream_formatted(bytes: Vec<u8>) -> (usize, u64) {
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let formats = workbook.number_formats().clone();
    let mut text = String::new();
    let mut total = 0;
    let before = allocations();
    let mut rows = workbook.rows("Data").unwrap();
    while let Some(row) = rows.next_row().unwrap() {
        for cell in row.cells() {
            text.clear();
            cell.formatted_into(&formats, &mut text);
            total += text.len();
        }
    }
    drop(rows);
    (total, allocations() - before)
}

/// Reads the sheet through the pipelined parallel path (an inflate thread
/// and a scanning thread), returning the counts and the allocations made
/// from the start of the parallel read to its end, in both threads.
fn stream_pipelined(bytes: Vec<u8>) -> (SheetCounts, u64) {
    let workbook = Workbook::from_bytes(bytes).unwrap();
    let before = allocations();
    let counts = workbook
        .parallel()
        .threads(2)
        .fold(
            SheetCounts::default,
            |counts, _, row| counts.add_row(&row),
            |mut a, b| {
                a.merge(&b);
                a
            },
        )
        .unwrap();
    let allocations = allocations() - before;
    (counts, allocations)
}

#[test]
fn allocations_do_not_grow_with_rows() {
    let small_bytes = workbook(SMALL);
    let large_bytes = workbook(LARGE);
    let (small, small_allocations) = stream(small_bytes.clone());
    let (large, large_allocations) = stream(large_bytes.clone());

    // The recipe was read in full both times.
    assert_eq!(small.rows, u64::from(SMALL));
    assert_eq!(large.rows, u64::from(LARGE));
    assert_eq!(large.cells, u64::from(LARGE * 8 + LARGE / 7));
    assert_eq!(
        (large.texts, large.booleans, large.errors, large.dates),
        (
            3 * u64::from(LARGE),
            LARGE.into(),
            LARGE.into(),
            LARGE.into()
        )
    );

    println!(
        "allocations while streaming: {small_allocations} for {SMALL} rows, {large_allocations} for {LARGE} rows \
         ({:.6} per cell at {LARGE} rows)",
        large_allocations as f64 / large.cells as f64
    );
    // The same fixed set-up either way (window, arena, scratch vectors):
    // nothing per row or per cell, give or take arena chunk growth.
    assert!(
        small_allocations < 64,
        "{small_allocations} allocations for {SMALL} rows"
    );
    assert!(
        large_allocations.abs_diff(small_allocations) <= 4,
        "{small_allocations} allocations for {SMALL} rows but {large_allocations} for {LARGE}"
    );

    // With a column selection (numbers, an inline string that needs
    // decoding, the sparse column): the same, and only those cells.
    let columns: ColumnSet = [0, 5, 9].into_iter().collect();
    let (small_selected, small_selected_allocations) =
        stream_columns(small_bytes.clone(), Some(columns.clone()));
    let (large_selected, large_selected_allocations) =
        stream_columns(large_bytes.clone(), Some(columns));
    assert_eq!(small_selected.rows, u64::from(SMALL));
    assert_eq!(large_selected.cells, u64::from(LARGE * 2 + LARGE / 7));
    assert_eq!(
        (
            large_selected.texts,
            large_selected.booleans,
            large_selected.dates
        ),
        (LARGE.into(), 0, 0)
    );
    println!(
        "allocations while streaming three columns: {small_selected_allocations} for {SMALL} rows, \
         {large_selected_allocations} for {LARGE} rows"
    );
    assert!(
        small_selected_allocations < 64,
        "{small_selected_allocations} allocations for {SMALL} rows, three columns"
    );
    assert!(
        large_selected_allocations.abs_diff(small_selected_allocations) <= 4,
        "three columns: {small_selected_allocations} allocations for {SMALL} rows but {large_selected_allocations} for {LARGE}"
    );

    // Rendering every cell through its number format adds nothing per
    // cell either: the one text buffer grows a few times at the start.
    let (small_text, small_formatted) = stream_formatted(small_bytes.clone());
    let (large_text, large_formatted) = stream_formatted(large_bytes.clone());
    println!(
        "allocations while streaming formatted: {small_formatted} for {SMALL} rows, {large_formatted} for {LARGE} rows"
    );
    assert!(
        large_text > small_text * 19,
        "{small_text} and {large_text} bytes of text"
    );
    assert!(
        small_formatted <= small_allocations + 8,
        "{small_formatted} allocations formatted, {small_allocations} plain"
    );
    assert!(
        large_formatted.abs_diff(small_formatted) <= 4,
        "{small_formatted} allocations for {SMALL} rows formatted but {large_formatted} for {LARGE}"
    );

    // The same through the parallel engine, per worker: the pipelined path
    // adds threads, channels and recycled buffers, a fixed set-up too.
    let (small_piped, small_piped_allocations) = stream_pipelined(small_bytes);
    let (large_piped, large_piped_allocations) = stream_pipelined(large_bytes);
    assert_eq!(
        (small_piped.rows, small_piped.cells),
        (small.rows, small.cells)
    );
    assert_eq!(
        (large_piped.rows, large_piped.cells),
        (large.rows, large.cells)
    );
    println!(
        "allocations while streaming with an inflate thread: {small_piped_allocations} for {SMALL} rows, \
         {large_piped_allocations} for {LARGE} rows"
    );
    assert!(
        small_piped_allocations < 128,
        "{small_piped_allocations} allocations for {SMALL} rows"
    );
    assert!(
        large_piped_allocations.abs_diff(small_piped_allocations) <= 4,
        "pipelined: {small_piped_allocations} allocations for {SMALL} rows but {large_piped_allocations} for {LARGE}"
    );

    // A `.xls` sheet: opening it opens a stream of the compound file read
    // at open (its FAT and directory are not read again); then the record
    // window and the arena, nothing per row.
    let (small_xls, small_open, small_xls_allocations) = stream_xls(xls_workbook(6_000));
    let (large_xls, large_open, large_xls_allocations) = stream_xls(xls_workbook(60_000));
    assert_eq!((small_xls.rows, large_xls.rows), (6_000, 60_000));
    assert_eq!(large_xls.cells, 60_000 * 10);
    assert_eq!(
        (
            large_xls.texts,
            large_xls.booleans,
            large_xls.errors,
            large_xls.dates
        ),
        (240_000, 60_000, 60_000, 60_000)
    );
    println!(
        "allocations while streaming .xls: {small_xls_allocations} for 6,000 rows, \
         {large_xls_allocations} for 60,000 rows (opening the sheet: {small_open} and {large_open})"
    );
    assert!(
        small_open < 32 && large_open == small_open,
        "opening the .xls sheet: {small_open} and {large_open} allocations"
    );
    assert!(
        small_xls_allocations < 128,
        "{small_xls_allocations} allocations for 6,000 .xls rows"
    );
    assert!(
        large_xls_allocations.abs_diff(small_xls_allocations) <= 4,
        ".xls: {small_xls_allocations} allocations for 6,000 rows but {large_xls_allocations} for 60,000"
    );
    assert_formula_allocations(
        ".xls",
        xls_workbook(6_000),
        xls_workbook(60_000),
        (6_000, 60_000),
    );
    assert_formula_allocations(
        ".xlsb",
        xlsb_workbook(SMALL),
        xlsb_workbook(LARGE),
        (SMALL.into(), LARGE.into()),
    );
    xlsb_allocations_do_not_grow_with_rows();
    ods_allocations_do_not_grow_with_rows();
    #[cfg(feature = "encryption")]
    encrypted_ods_allocations_do_not_grow_with_rows();
}

/// The same for an encrypted `.ods` sheet: the decryptor's chunk, the
/// checksum's kilobyte and the inflater's input are set up once.
#[cfg(feature = "encryption")]
fn encrypted_ods_allocations_do_not_grow_with_rows() {
    let stream_encrypted = |bytes: Vec<u8>| {
        let mut workbook = sheetstream::OpenOptions::new()
            .password("secret")
            .from_reader(Cursor::new(bytes))
            .unwrap();
        let mut counts = SheetCounts::default();
        let before = allocations();
        let mut rows = workbook.rows("Data").unwrap();
        while let Some(row) = rows.next_row().unwrap() {
            counts.add_row(&row);
        }
        drop(rows);
        (counts, allocations() - before)
    };
    let (small, small_allocations) = stream_encrypted(encrypted_ods_workbook(10_000));
    let (large, large_allocations) = stream_encrypted(encrypted_ods_workbook(100_000));
    assert_eq!(small.rows, 11_000);
    assert_eq!(
        large.cells,
        100_000 * 10 + 100_000 / 3 + 1 + 100_000 / 5 + 10_000 * 3
    );
    println!(
        "allocations while streaming an encrypted .ods: {small_allocations} for 10,000 rows, \
         {large_allocations} for 100,000 rows"
    );
    assert!(
        small_allocations < 80,
        "{small_allocations} allocations for 10,000 encrypted .ods rows"
    );
    assert!(
        large_allocations.abs_diff(small_allocations) <= 4,
        "encrypted .ods: {small_allocations} allocations for 10,000 rows but \
         {large_allocations} for 100,000"
    );
}

/// The same for an `.ods` sheet: the window, the raw row's runs and text
/// pieces, the arena and the scanner's stacks are set up once; repeated
/// cells and rows are expanded without allocating.
fn ods_allocations_do_not_grow_with_rows() {
    let small_bytes = ods_workbook(10_000);
    let large_bytes = ods_workbook(100_000);
    let (small, small_allocations) = stream(small_bytes.clone());
    let (large, large_allocations) = stream(large_bytes.clone());
    assert_eq!(small.rows, 11_000);
    assert_eq!(large.rows, 110_000);
    assert_eq!(
        large.cells,
        100_000 * 10 + 100_000 / 3 + 1 + 100_000 / 5 + 10_000 * 3
    );
    println!(
        "allocations while streaming .ods: {small_allocations} for 10,000 rows, {large_allocations} for 100,000 rows"
    );
    assert!(
        small_allocations < 64,
        "{small_allocations} allocations for 10,000 .ods rows"
    );
    assert!(
        large_allocations.abs_diff(small_allocations) <= 4,
        ".ods: {small_allocations} allocations for 10,000 rows but {large_allocations} for 100,000"
    );
    let columns: ColumnSet = [0, 5, 11].into_iter().collect();
    let (small_selected, small_selected_allocations) =
        stream_columns(small_bytes.clone(), Some(columns.clone()));
    let (large_selected, large_selected_allocations) =
        stream_columns(large_bytes.clone(), Some(columns));
    assert_eq!(small_selected.rows, 11_000);
    assert_eq!(large_selected.cells, 100_000 * 3 + 10_000);
    assert!(
        large_selected_allocations.abs_diff(small_selected_allocations) <= 4,
        ".ods, three columns: {small_selected_allocations} allocations for 10,000 rows but {large_selected_allocations} for 100,000"
    );
    let (small_piped, small_piped_allocations) = stream_pipelined(small_bytes);
    let (large_piped, large_piped_allocations) = stream_pipelined(large_bytes);
    assert_eq!(small_piped.cells, small.cells);
    assert_eq!(large_piped.cells, large.cells);
    println!(
        "allocations while streaming .ods with an inflate thread: {small_piped_allocations} for 10,000 rows, \
         {large_piped_allocations} for 100,000 rows"
    );
    assert!(
        large_piped_allocations.abs_diff(small_piped_allocations) <= 4,
        ".ods pipelined: {small_piped_allocations} allocations for 10,000 rows but {large_piped_allocations} for 100,000"
    );
}

/// The same for an `.xlsb` sheet: the record window, the row's cell list,
/// text buffer and arena are set up once.
fn xlsb_allocations_do_not_grow_with_rows() {
    let small_bytes = xlsb_workbook(SMALL);
    let large_bytes = xlsb_workbook(LARGE);
    let (small, small_allocations) = stream(small_bytes.clone());
    let (large, large_allocations) = stream(large_bytes.clone());
    assert_eq!(small.rows, u64::from(SMALL));
    assert_eq!(large.cells, u64::from(LARGE * 8 + LARGE / 7));
    assert_eq!(
        (large.texts, large.booleans, large.errors, large.dates),
        (
            3 * u64::from(LARGE),
            LARGE.into(),
            LARGE.into(),
            LARGE.into()
        )
    );
    println!(
        "allocations while streaming .xlsb: {small_allocations} for {SMALL} rows, {large_allocations} for {LARGE} rows"
    );
    assert!(
        small_allocations < 64,
        "{small_allocations} allocations for {SMALL} .xlsb rows"
    );
    assert!(
        large_allocations.abs_diff(small_allocations) <= 4,
        ".xlsb: {small_allocations} allocations for {SMALL} rows but {large_allocations} for {LARGE}"
    );
    let columns: ColumnSet = [0, 5, 9].into_iter().collect();
    let (small_selected, small_selected_allocations) =
        stream_columns(small_bytes.clone(), Some(columns.clone()));
    let (large_selected, large_selected_allocations) =
        stream_columns(large_bytes.clone(), Some(columns));
    assert_eq!(small_selected.rows, u64::from(SMALL));
    assert_eq!(large_selected.cells, u64::from(LARGE * 2 + LARGE / 7));
    assert!(
        large_selected_allocations.abs_diff(small_selected_allocations) <= 4,
        ".xlsb, three columns: {small_selected_allocations} allocations for {SMALL} rows but {large_selected_allocations} for {LARGE}"
    );
    let (small_piped, small_piped_allocations) = stream_pipelined(small_bytes);
    let (large_piped, large_piped_allocations) = stream_pipelined(large_bytes);
    assert_eq!(small_piped.cells, small.cells);
    assert_eq!(large_piped.cells, large.cells);
    println!(
        "allocations while streaming .xlsb with an inflate thread: {small_piped_allocations} for {SMALL} rows, \
         {large_piped_allocations} for {LARGE} rows"
    );
    assert!(
        large_piped_allocations.abs_diff(small_piped_allocations) <= 4,
        ".xlsb pipelined: {small_piped_allocations} allocations for {SMALL} rows but {large_piped_allocations} for {LARGE}"
    );
}
