//! Bad input gives a typed error, never a panic: the error's kind says what
//! is wrong and its `Display` names the part, sheet, row or cell where that
//! applies. Every input here is built by the test.

use crate::common;

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use common::*;
use sheetstream::{Error, ErrorKind, Limits, OpenOptions, SheetKind, Workbook};

/// Opens the workbook and streams every worksheet to the end, returning the
/// number of cells read or the first error (then the rest of the shared
/// strings table is read: see below). A panic fails the test with
/// the input's description.
fn read_with(bytes: &[u8], limits: Limits, what: &str) -> Result<usize, Error> {
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<usize, Error> {
        let mut workbook = OpenOptions::new()
            .limits(limits)
            .from_reader(Cursor::new(bytes.to_vec()))?;
        let positions: Vec<usize> = workbook
            .sheets()
            .iter()
            .enumerate()
            .filter(|(_, sheet)| sheet.kind() == SheetKind::Worksheet)
            .map(|(position, _)| position)
            .collect();
        let mut cells = 0;
        for position in positions {
            let mut rows = workbook.rows(position)?;
            while let Some(row) = rows.next_row()? {
                cells += row.cells().len();
            }
        }
        // Rows parse the shared strings only as far as they need them;
        // the rest of the table too.
        workbook.shared_strings()?;
        Ok(cells)
    }));
    match outcome {
        Ok(result) => result,
        Err(_) => panic!("reading {what} panicked"),
    }
}

fn read(bytes: &[u8], what: &str) -> Result<usize, Error> {
    read_with(bytes, Limits::default(), what)
}

fn read_err(bytes: &[u8], what: &str) -> Error {
    match read(bytes, what) {
        Ok(cells) => panic!("{what}: read {cells} cells, expected an error"),
        Err(err) => err,
    }
}

/// Asserts that `Display` mentions every one of `parts`.
fn assert_mentions(err: &Error, parts: &[&str]) {
    let text = err.to_string();
    for part in parts {
        assert!(text.contains(part), "`{text}` does not mention `{part}`");
    }
}

/// A workbook of one worksheet named "Bad" with the given part bytes.
fn one_sheet(sheet: impl Into<Vec<u8>>) -> Vec<u8> {
    book()
        .strings(&["<t>zero</t>", "<t>one</t>"])
        .styles(styles_xml(&[], &[0, 14]))
        .sheet("Bad", sheet)
        .build()
}

const SHEET_PART: &str = "xl/worksheets/sheet1.xml";

fn good_workbook() -> Vec<u8> {
    one_sheet(sheet_xml(concat!(
        r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>1.5</v></c></row>"#,
        r#"<row r="2"><c r="A2" s="1"><v>45292</v></c><c r="B2" t="inlineStr"><is><t>x</t></is></c></row>"#,
    )))
}

#[test]
fn the_good_workbook_reads() {
    // The positive control for the damaged copies below.
    assert_eq!(read(&good_workbook(), "the good workbook").unwrap(), 4);
}

// ---------------------------------------------------------------------------
// Not a ZIP package
// ---------------------------------------------------------------------------

fn not_zip_detail(err: &Error) -> &'static str {
    match err.kind() {
        ErrorKind::NotZip { detail } => detail,
        other => panic!("expected NotZip, got {other:?} ({err})"),
    }
}

#[test]
fn empty_file() {
    let err = read_err(&[], "an empty file");
    assert!(not_zip_detail(&err).contains("empty"), "{err}");
    assert_mentions(&err, &["empty"]);
    // The command line says so too, and exits 1.
    let run = run_cli("cells", "empty", &[]);
    assert_eq!(run.code, Some(1));
    assert!(run.stdout.is_empty());
    assert!(run.stderr.starts_with("sheetstream: "), "{}", run.stderr);
    assert!(run.stderr.contains("empty"), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn random_bytes() {
    let mut rng = Rng(7);
    for len in [1, 2, 3, 4, 7, 8, 21, 22, 100, 1000, 5000] {
        let mut bytes = rng.bytes(len);
        if bytes.starts_with(b"PK") || bytes.first() == Some(&b'<') {
            bytes[0] = 0;
        }
        let err = read_err(&bytes, &format!("{len} random bytes"));
        assert!(not_zip_detail(&err).contains("ZIP signature"), "{err}");
    }
    // Random bytes behind a ZIP signature.
    for len in [4, 30, 100, 5000] {
        let mut bytes = b"PK\x03\x04".to_vec();
        bytes.extend(rng.bytes(len));
        let err = read_err(&bytes, &format!("PK and {len} random bytes"));
        assert!(
            matches!(err.kind(), ErrorKind::NotZip { .. } | ErrorKind::Zip(_)),
            "{err:?}"
        );
    }
}

#[test]
fn text_files() {
    for (text, detail) in [
        (&b"name,amount\nwidget,10\n"[..], "ZIP signature"),
        (b"<?xml version=\"1.0\"?><worksheet/>", "XML"),
        (b"<html><body>not a workbook</body></html>", "XML"),
        (b"\xef\xbb\xbfhello", "ZIP signature"),
    ] {
        let err = read_err(text, "a text file");
        assert!(not_zip_detail(&err).contains(detail), "{err}");
    }
    let run = run_cli("cells", "text", b"just some text\n");
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("not a workbook (.xlsx, .xlsb or .xls)"),
        "{}",
        run.stderr
    );
}

#[test]
fn ole2_compound_files() {
    // Encrypted workbooks and legacy .xls files are OLE2 compound files.
    let mut bytes = vec![0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
    bytes.resize(4096, 0);
    let err = read_err(&bytes, "an OLE2 file");
    assert!(not_zip_detail(&err).contains("OLE2"), "{err}");
    assert_mentions(&err, &["OLE2", "encrypted", ".xls"]);
    let run = run_cli("sheets", "ole2", &bytes);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("OLE2"), "{}", run.stderr);
}

#[test]
fn truncated_zips() {
    let bytes = good_workbook();
    let len = bytes.len();
    let cuts = [
        1,
        2,
        4,
        10,
        30,
        100,
        len / 4,
        len / 2,
        3 * len / 4,
        len - 100,
        len - 23,
        len - 22,
        len - 21,
        len - 10,
        len - 1,
    ];
    for cut in cuts {
        let err = read_err(
            &bytes[..cut],
            &format!("the workbook cut at {cut} of {len} bytes"),
        );
        assert!(
            matches!(err.kind(), ErrorKind::NotZip { .. } | ErrorKind::Zip(_)),
            "cut at {cut}: {err:?}"
        );
    }
    // Cut inside the data but with the central directory kept: the
    // sheet's entry is gone from under its header.
    let sheet_at = find(&bytes, SHEET_PART.as_bytes()).expect("the sheet's local header");
    let mut holed = bytes[..sheet_at + 40].to_vec();
    holed.extend_from_slice(&bytes[sheet_at + 40 + 30..]);
    let err = read_err(&holed, "the workbook with bytes cut out of the sheet entry");
    assert!(
        matches!(err.kind(), ErrorKind::NotZip { .. } | ErrorKind::Zip(_)),
        "{err:?}"
    );
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    haystack
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect()
}

// ---------------------------------------------------------------------------
// ZIP packages that are not workbooks
// ---------------------------------------------------------------------------

#[test]
fn zip_without_a_workbook() {
    let bytes = Package::new()
        .with("hello.txt", "hello")
        .with("data/numbers.csv", "1,2,3\n")
        .build();
    let err = read_err(&bytes, "a ZIP of text files");
    assert!(matches!(err.kind(), ErrorKind::MissingPart(_)), "{err:?}");
    assert_mentions(&err, &["workbook"]);
    // The package relationships name a workbook part that is not there.
    let bytes = book()
        .sheet("S", sheet_xml(""))
        .package()
        .with("_rels/.rels", package_rels("xl/book-that-is-missing.xml"))
        .without("xl/workbook.xml")
        .build();
    let err = read_err(&bytes, "a package whose workbook part is missing");
    assert!(matches!(err.kind(), ErrorKind::MissingPart(_)), "{err:?}");
}

#[test]
fn opendocument_and_word_packages() {
    // An OpenDocument spreadsheet reads (issue 44); this one has no
    // spreadsheet in its body, so no sheets. An OpenDocument text file
    // is refused as what it is.
    let ods = Package::new()
        .with("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        .with(
            "content.xml",
            r#"<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>"#,
        )
        .with("META-INF/manifest.xml", "<manifest/>")
        .build();
    assert_eq!(read(&ods, "an .ods package").unwrap(), 0);
    let odt = Package::new()
        .with("mimetype", "application/vnd.oasis.opendocument.text")
        .with(
            "content.xml",
            r#"<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>"#,
        )
        .build();
    let err = read_err(&odt, "an .odt package");
    assert!(matches!(err.kind(), ErrorKind::Package(_)), "{err:?}");
    assert_mentions(&err, &["OpenDocument text"]);
    let docx = Package::new()
        .with("[Content_Types].xml", content_types())
        .with("word/document.xml", "<w:document/>")
        .build();
    let err = read_err(&docx, "a .docx package");
    assert!(matches!(err.kind(), ErrorKind::NotZip { .. }), "{err:?}");
    assert_mentions(&err, &["Word document"]);
    let run = run_cli("cells", "odt", &odt);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("OpenDocument"), "{}", run.stderr);
}

#[test]
fn sheet_part_missing_from_the_archive() {
    let bytes = book()
        .sheet("Gone", sheet_xml(""))
        .package()
        .without("xl/worksheets/sheet1.xml")
        .build();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let Err(err) = workbook.rows("Gone") else {
        panic!("the sheet part is missing");
    };
    assert!(matches!(err.kind(), ErrorKind::MissingPart(_)), "{err:?}");
    assert_mentions(&err, &["Gone", SHEET_PART]);
}

#[test]
fn sheet_relationship_missing() {
    let bytes = book()
        .sheet("Orphan", sheet_xml(""))
        .package()
        .with("xl/_rels/workbook.xml.rels", rels_xml(&[]))
        .build();
    let err = read_err(&bytes, "a sheet without its relationship");
    assert!(matches!(err.kind(), ErrorKind::MissingPart(_)), "{err:?}");
    assert_mentions(&err, &["Orphan", "rId1", "xl/workbook.xml"]);
}

// ---------------------------------------------------------------------------
// Malformed XML
// ---------------------------------------------------------------------------

/// Reads a one-sheet workbook whose `<sheetData>` holds `rows`; returns the
/// cells read before the error and the error.
fn bad_rows(rows: &str) -> (usize, Error) {
    bad_sheet(sheet_xml(rows).into_bytes())
}

fn bad_sheet(sheet: Vec<u8>) -> (usize, Error) {
    let bytes = one_sheet(sheet);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut workbook = Workbook::from_bytes(bytes).expect("opens: only the sheet is bad");
        let mut rows = workbook.rows("Bad").expect("the sheet exists");
        let mut cells = 0;
        loop {
            match rows.next_row() {
                Ok(Some(row)) => cells += row.cells().len(),
                Ok(None) => panic!("read {cells} cells and no error"),
                Err(err) => {
                    // After an error the reader yields no more rows.
                    assert!(matches!(rows.next_row(), Ok(None)));
                    return (cells, err);
                }
            }
        }
    }));
    outcome.unwrap_or_else(|_| panic!("reading a bad sheet panicked"))
}

fn assert_xml(err: &Error) {
    assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{err:?}");
}

#[test]
fn unclosed_row() {
    let (cells, err) = bad_rows(concat!(
        r#"<row r="1"><c r="A1"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2"><v>2</v></c>"#,
    ));
    assert_eq!(cells, 1, "the row before is read");
    assert_xml(&err);
    assert_mentions(&err, &["sheet 'Bad'", SHEET_PART, "row 2"]);
    assert_eq!(err.location().row, Some(2));
    assert_eq!(err.location().sheet.as_deref(), Some("Bad"));
    assert_eq!(err.location().part.as_deref(), Some(SHEET_PART));
    assert!(err.location().offset.is_some());
}

#[test]
fn unclosed_cell() {
    let (cells, err) = bad_rows(r#"<row r="3"><c r="A3"><v>1</v></c><c r="B3"><v>2</v></row>"#);
    assert_eq!(cells, 0);
    assert_xml(&err);
    assert_mentions(&err, &["sheet 'Bad'", SHEET_PART]);
}

#[test]
fn part_ends_inside_a_row_or_a_tag() {
    for cut in [
        r#"<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c>"#,
        r#"<worksheet><sheetData><row r="1"><c r="A1"><v>1</v"#,
        r#"<worksheet><sheetData><row r="1"><c r="A1" t="#,
        r#"<worksheet><sheetData><row r="1">"#,
        r#"<worksheet><sheetData>"#,
    ] {
        let (_, err) = bad_sheet(cut.as_bytes().to_vec());
        assert_xml(&err);
        assert_mentions(&err, &["sheet 'Bad'", SHEET_PART]);
    }
}

#[test]
fn garbage_markup() {
    for rows in [
        r#"<row r="1"><c r="A1"><v>1</v></c><></row>"#,
        r#"<row r=1><c r="A1"><v>1</v></c></row>"#,
        r#"<row r="1"><c r="A1 t="s"><v>1</v></c></row>"#,
        r#"<row r="1"><c r="A1"><v>1</v></c></row><!NOTATION x>"#,
        r#"<row r="1"><c r="A1"><v>1</v></c></ ></row>"#,
    ] {
        let (_, err) = bad_rows(rows);
        assert_xml(&err);
        assert_mentions(&err, &["sheet 'Bad'", SHEET_PART]);
    }
}

/// Markup that is not well-formed XML. A scanner that does not check
/// nesting, names and attributes reads these without complaint, losing or
/// misplacing cells; this one did until it checked well-formedness inside
/// `<sheetData>`.
#[test]
fn ill_formed_markup_is_refused() {
    for rows in [
        // `</x>` does not close `<v>` (a lax reader drops B1).
        r#"<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</x></c></row>"#,
        // A cell inside a cell (a lax reader gives A1 the value 2, no B1).
        r#"<row r="1"><c r="A1"><v>1</v><c r="B1"><v>2</v></c></c></row>"#,
        // `<v>` inside `<v>` (a lax reader reads 12).
        r#"<row r="1"><c r="A1"><v>1<v>2</v></v></c></row>"#,
        // An end tag with no start tag.
        r#"<row r="1"><c r="A1"><v>1</v></c></row></row>"#,
        // `<` is not a name character.
        r#"<row r="1"><c r="A1"><v>1</v></c></row><<<>>>"#,
        r#"<row r="1"><c r="A1"><v>1</v></c></row><1row/>"#,
        // Attributes must be unique (a lax reader takes B1).
        r#"<row r="1"><c r="A1" r="B1"><v>1</v></c></row>"#,
        // An unknown entity outside any cell.
        r#"<row r="1"><c r="A1"><v>1</v></c></row>&bogus;"#,
    ] {
        let (_, err) = bad_rows(rows);
        assert_xml(&err);
        assert_mentions(&err, &["sheet 'Bad'", SHEET_PART]);
    }
}

#[test]
fn values_that_do_not_match_their_type() {
    for (cell, reference) in [
        (r#"<c r="C4"><v>abc</v></c>"#, "cell C4"),
        (r#"<c r="C4" t="n"><v>1,5</v></c>"#, "cell C4"),
        (r#"<c r="C4"><v>inf</v></c>"#, "cell C4"),
        (r#"<c r="C4"><v>NaN</v></c>"#, "cell C4"),
        (r#"<c r="C4"><v>1e400</v></c>"#, "cell C4"),
        (r#"<c r="C4" t="b"><v>yes</v></c>"#, "cell C4"),
        (r#"<c r="C4" t="d"><v>2024-13-01</v></c>"#, "cell C4"),
        (r#"<c r="C4" t="d"><v>24:00:00</v></c>"#, "cell C4"),
        (r#"<c r="C4" t="s"><v>one</v></c>"#, "cell C4"),
        (r#"<c r="C4" t="s"><v>-1</v></c>"#, "cell C4"),
    ] {
        let (_, err) = bad_rows(&format!(r#"<row r="4">{cell}</row>"#));
        assert!(
            matches!(err.kind(), ErrorKind::InvalidValue(_)),
            "{cell}: {err:?}"
        );
        assert_mentions(&err, &["sheet 'Bad'", SHEET_PART, reference]);
        assert_eq!(
            (err.location().row, err.location().column),
            (Some(4), Some(3))
        );
    }
}

#[test]
fn document_type_declarations_are_refused() {
    let dtd = r#"<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>"#;
    // In the sheet: refused when the sheet is read.
    let (_, err) = bad_sheet(
        format!(
            r#"{XML_DECL}{dtd}<worksheet xmlns="{MAIN_NS}"><sheetData><row r="1"><c r="A1" t="str"><v>&lol2;</v></c></row></sheetData></worksheet>"#
        )
        .into_bytes(),
    );
    assert_xml(&err);
    assert_mentions(&err, &["DTD", "sheet 'Bad'", SHEET_PART]);
    // In a part read at open: the workbook, its relationships, the package
    // relationships, the shared strings, the styles.
    let good = book()
        .strings(&["<t>s</t>"])
        .styles(styles_xml(&[], &[0]))
        .sheet("S", sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#));
    let package = good.package();
    for part in [
        "xl/workbook.xml",
        "xl/_rels/workbook.xml.rels",
        "_rels/.rels",
        "xl/sharedStrings.xml",
        "xl/styles.xml",
    ] {
        let original = match part {
            "xl/workbook.xml" => good.workbook_xml(),
            "xl/_rels/workbook.xml.rels" => rels_xml(&[
                (
                    "rId1".into(),
                    format!("{REL_NS}/worksheet"),
                    "worksheets/sheet1.xml".into(),
                ),
                (
                    "rIdStyles".into(),
                    format!("{REL_NS}/styles"),
                    "styles.xml".into(),
                ),
                (
                    "rIdStrings".into(),
                    format!("{REL_NS}/sharedStrings"),
                    "sharedStrings.xml".into(),
                ),
            ]),
            "_rels/.rels" => package_rels("xl/workbook.xml"),
            "xl/sharedStrings.xml" => sst_xml(&["<t>s</t>"]),
            _ => styles_xml(&[], &[0]),
        };
        let with_dtd = original.replacen(XML_DECL, &format!("{XML_DECL}{dtd}"), 1);
        assert_ne!(with_dtd, original);
        let bytes = package.clone().with(part, with_dtd).build();
        let err = read_err(&bytes, &format!("a DTD in {part}"));
        assert_xml(&err);
        assert_mentions(&err, &["DTD", part]);
    }
    // The untouched package reads.
    assert_eq!(
        read(&package.build(), "the package without DTDs").unwrap(),
        1
    );
}

#[test]
fn unknown_entities() {
    for (cell, reference) in [
        (r#"<c r="B2" t="str"><v>&nbsp;</v></c>"#, "cell B2"),
        (
            r#"<c r="B2" t="inlineStr"><is><t>a &bogus; b</t></is></c>"#,
            "cell B2",
        ),
        (r#"<c r="B2" t="str"><v>a & b</v></c>"#, "cell B2"),
        (r#"<c r="B2" t="str"><v>&#xZZ;</v></c>"#, "cell B2"),
        (r#"<c r="B2" t="str"><v>&#1114112;</v></c>"#, "cell B2"),
    ] {
        let (_, err) = bad_rows(&format!(r#"<row r="2">{cell}</row>"#));
        assert_xml(&err);
        assert_mentions(&err, &["sheet 'Bad'", SHEET_PART, reference]);
    }
    // In the shared strings and in a sheet name: refused at open.
    let bytes = book()
        .strings(&["<t>&eacute;</t>"])
        .sheet("S", sheet_xml(""))
        .build();
    let err = read_err(&bytes, "an unknown entity in the shared strings");
    assert_xml(&err);
    assert_mentions(&err, &["xl/sharedStrings.xml"]);
    let bytes = book().sheet("A &amp B", sheet_xml("")).build();
    let err = read_err(&bytes, "a bare & in a sheet name");
    assert_xml(&err);
    assert_mentions(&err, &["xl/workbook.xml"]);
}

// ---------------------------------------------------------------------------
// Cell values and positions
// ---------------------------------------------------------------------------

#[test]
fn shared_string_index_out_of_range() {
    let (cells, err) = bad_rows(concat!(
        r#"<row r="1"><c r="A1" t="s"><v>1</v></c></row>"#,
        r#"<row r="3"><c r="A3" t="s"><v>0</v></c><c r="B3" t="s"><v>5</v></c></row>"#,
    ));
    assert_eq!(cells, 1);
    match err.kind() {
        ErrorKind::SharedStringIndex { index, count } => assert_eq!((*index, *count), (5, 2)),
        other => panic!("{other:?}"),
    }
    assert_mentions(&err, &["sheet 'Bad'", SHEET_PART, "cell B3", "5", "2"]);
    // An index past u64.
    let (_, err) =
        bad_rows(r#"<row r="1"><c r="A1" t="s"><v>99999999999999999999999</v></c></row>"#);
    assert!(
        matches!(
            err.kind(),
            ErrorKind::SharedStringIndex { .. } | ErrorKind::InvalidValue(_)
        ),
        "{err:?}"
    );
}

#[test]
fn shared_strings_part_missing_when_a_cell_refers_to_it() {
    let bytes = book()
        .sheet(
            "Refers",
            sheet_xml(r#"<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="s"><v>0</v></c></row>"#),
        )
        .build();
    let mut workbook = Workbook::from_bytes(bytes.clone()).expect("opens without shared strings");
    assert!(workbook.shared_strings().unwrap().is_empty());
    let mut rows = workbook.rows("Refers").unwrap();
    let err = rows.next_row().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::MissingPart(_)), "{err:?}");
    assert_mentions(&err, &["shared strings", "sheet 'Refers'", "cell B2"]);
    let run = run_cli("cells", "no-sst", &bytes);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("shared strings"), "{}", run.stderr);
}

#[test]
fn references_past_xfd1048576() {
    for (rows, mention) in [
        (r#"<row r="1"><c r="XFE1"><v>1</v></c></row>"#, "XFE1"),
        (r#"<row r="1"><c r="AAAA1"><v>1</v></c></row>"#, "AAAA1"),
        (
            r#"<row r="1048576"><c r="A1048577"><v>1</v></c></row>"#,
            "A1048577",
        ),
        (
            r#"<row r="1048577"><c r="A1"><v>1</v></c></row>"#,
            "1048577",
        ),
        (r#"<row r="0"><c r="A1"><v>1</v></c></row>"#, "row number"),
        (r#"<row r="1"><c r="A0"><v>1</v></c></row>"#, "A0"),
        (r#"<row r="1"><c r="1A"><v>1</v></c></row>"#, "1A"),
        (
            r#"<row r="1048576"/><row><c><v>1</v></c></row>"#,
            "1048576 rows",
        ),
        (
            r#"<row r="1"><c r="XFD1"><v>1</v></c><c><v>2</v></c></row>"#,
            "XFD",
        ),
    ] {
        let (_, err) = bad_rows(rows);
        assert!(
            matches!(err.kind(), ErrorKind::CellReference(_)),
            "{rows}: {err:?}"
        );
        assert_mentions(&err, &["sheet 'Bad'", SHEET_PART, mention]);
    }
}

#[test]
fn invalid_utf8() {
    // In a sheet row: the error names the row.
    let mut sheet = sheet_xml(concat!(
        r#"<row r="1"><c r="A1"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2" t="str"><v>bad: @@</v></c></row>"#,
    ))
    .into_bytes();
    let at = find(&sheet, b"@@").unwrap();
    sheet[at] = 0xFF;
    sheet[at + 1] = 0xC0;
    let (cells, err) = bad_sheet(sheet.clone());
    assert_eq!(cells, 1);
    assert!(matches!(err.kind(), ErrorKind::InvalidUtf8), "{err:?}");
    assert_mentions(&err, &["UTF-8", "sheet 'Bad'", SHEET_PART, "row 2"]);
    // A truncated multi-byte character in an inline string.
    let mut sheet = sheet_xml(r#"<row r="7"><c r="C7" t="inlineStr"><is><t>é@</t></is></c></row>"#)
        .into_bytes();
    let at = find(&sheet, "é@".as_bytes()).unwrap();
    sheet.remove(at + 1);
    let (_, err) = bad_sheet(sheet);
    assert!(matches!(err.kind(), ErrorKind::InvalidUtf8), "{err:?}");
    assert_mentions(&err, &["row 7"]);
    // The same in a column whose cells repeat their shape (the scanner's
    // fastest path, which hands out such text as it stands once checked):
    // the rows before are read, the broken one refused at its byte.
    let rows: String = (1..=6)
        .map(|r| {
            format!(
                r#"<row r="{r}"><c r="A{r}" s="12" t="inlineStr"><is><t>é{r}</t></is></c><c r="B{r}"><v>{r}</v></c></row>"#
            )
        })
        .collect();
    let mut sheet = sheet_xml(&rows).into_bytes();
    let at = find(&sheet, "é4".as_bytes()).unwrap();
    sheet[at + 1] = b'x';
    let (cells, err) = bad_sheet(sheet);
    assert_eq!(cells, 6);
    assert!(matches!(err.kind(), ErrorKind::InvalidUtf8), "{err:?}");
    assert_mentions(&err, &["row 4"]);
    assert_eq!(err.location().offset, Some(at as u64));
    // In attribute values nothing reads: a row of numbers is checked too.
    for row in [
        r#"<row r="4" x14ac:dyDescent="@@"><c r="A4"><v>1</v></c></row>"#,
        r#"<row r="4"><c r="A4" s="1" cm="@@"><v>1</v></c></row>"#,
        r#"<row r="4"><c r="A4" x="@@" t="b"><v>1</v></c></row>"#,
    ] {
        let mut sheet = sheet_xml(row).into_bytes();
        let at = find(&sheet, b"@@").unwrap();
        sheet[at] = 0xC3;
        sheet[at + 1] = b'(';
        let (_, err) = bad_sheet(sheet);
        assert!(
            matches!(err.kind(), ErrorKind::InvalidUtf8),
            "{row}: {err:?}"
        );
        assert_mentions(&err, &["row 4"]);
        assert_eq!(err.location().offset, Some(at as u64), "{row}");
    }
    // In the shared strings: refused at open, naming the part.
    let mut strings = sst_xml(&["<t>ok</t>", "<t>@@</t>"]).into_bytes();
    let at = find(&strings, b"@@").unwrap();
    strings[at] = 0xFE;
    let bytes = book()
        .strings_part(strings)
        .sheet("S", sheet_xml(""))
        .build();
    let err = read_err(&bytes, "invalid UTF-8 in the shared strings");
    assert!(matches!(err.kind(), ErrorKind::InvalidUtf8), "{err:?}");
    assert_mentions(&err, &["xl/sharedStrings.xml"]);
    assert_eq!(err.location().offset, Some(at as u64));
    // In a sheet name.
    let workbook = book().sheet("Name@", sheet_xml(""));
    let mut workbook_xml = workbook.workbook_xml().into_bytes();
    let at = find(&workbook_xml, b"Name@").unwrap() + 4;
    workbook_xml[at] = 0xFF;
    let bytes = workbook
        .package()
        .with("xl/workbook.xml", workbook_xml)
        .build();
    let err = read_err(&bytes, "invalid UTF-8 in a sheet name");
    assert_mentions(&err, &["UTF-8", "xl/workbook.xml"]);
    // The command line exits 1 and names the sheet.
    let mut sheet = sheet_xml(r#"<row r="1"><c r="A1" t="str"><v>@</v></c></row>"#).into_bytes();
    let at = find(&sheet, b"@").unwrap();
    sheet[at] = 0xFF;
    let run = run_cli("cells", "bad-utf8", &one_sheet(sheet));
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("UTF-8") && run.stderr.contains("Bad"),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------------------
// Damaged containers
// ---------------------------------------------------------------------------

/// Renames every occurrence (local and central headers) of `from` to `to`,
/// which must have the same length.
fn rename_entry(bytes: &mut [u8], from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let places = find_all(bytes, from.as_bytes());
    assert_eq!(places.len(), 2, "{from}: one local and one central header");
    for at in places {
        bytes[at..at + to.len()].copy_from_slice(to.as_bytes());
    }
}

#[test]
fn duplicate_entries_are_refused() {
    let package = book()
        .sheet("S", sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#))
        .package()
        .with(
            "xl/worksheets/sheetX.xml",
            sheet_xml(r#"<row r="1"><c r="A1"><v>2</v></c></row>"#),
        )
        .with("docProps/app_a.xml", "<Properties/>")
        .with("docProps/app_b.xml", "<Properties/>");
    let bytes = package.build_as(Container::Stored);
    assert_eq!(read(&bytes, "the package before renaming").unwrap(), 1);
    // Two entries named like the sheet: which one is the sheet?
    let mut twice = bytes.clone();
    rename_entry(
        &mut twice,
        "xl/worksheets/sheetX.xml",
        "xl/worksheets/sheet1.xml",
    );
    let err = read_err(&twice, "a duplicated sheet entry");
    assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err:?}");
    assert_mentions(&err, &["duplicate"]);
    // A duplicate of an entry the reader never needs is refused too.
    let mut twice = bytes.clone();
    rename_entry(&mut twice, "docProps/app_b.xml", "docProps/app_a.xml");
    let err = read_err(&twice, "a duplicated docProps entry");
    assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err:?}");
    // Names that differ only in case name the same part.
    let mut twice = bytes.clone();
    rename_entry(
        &mut twice,
        "xl/worksheets/sheetX.xml",
        "XL/Worksheets/Sheet1.xml",
    );
    let err = read_err(&twice, "a sheet entry duplicated in another case");
    assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err:?}");
    let run = run_cli("cells", "duplicate", &twice);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("ZIP"), "{}", run.stderr);
}

/// Flips one byte of a STORED entry's data (the digit of `<v>12345</v>`)
/// so that its CRC no longer matches.
fn flip_marker(bytes: &mut [u8], marker: &[u8]) {
    let places = find_all(bytes, marker);
    assert_eq!(places.len(), 1, "the marker is in one entry");
    bytes[places[0] + marker.len() - 1] ^= 0x01;
}

#[test]
fn crc_mismatches_are_refused() {
    let package = book()
        .strings(&["<t>str12345</t>"])
        .styles(styles_xml(&[(164, "sty12345")], &[0, 164]))
        .sheet(
            "Sheet",
            sheet_xml(concat!(
                r#"<row r="1"><c r="A1"><v>12345</v></c></row>"#,
                r#"<row r="2"><c r="A2" t="s"><v>0</v></c></row>"#,
            )),
        )
        .package();
    let bytes = package.build_as(Container::Stored);
    assert_eq!(read(&bytes, "the stored package").unwrap(), 2);
    // In the sheet: the rows themselves are fine, the check at the end is not.
    let mut damaged = bytes.clone();
    flip_marker(&mut damaged, b"<v>12345");
    let err = read_err(&damaged, "a CRC mismatch in the sheet");
    assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err:?}");
    assert_mentions(&err, &["checksum", SHEET_PART]);
    let run = run_cli("cells", "crc", &damaged);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stderr.contains("checksum"), "{}", run.stderr);
    // In parts read at open.
    for (marker, part) in [
        (&b"str12345"[..], "xl/sharedStrings.xml"),
        (b"sty12345", "xl/styles.xml"),
        (b"name=\"Sheet", "xl/workbook.xml"),
    ] {
        let mut damaged = bytes.clone();
        flip_marker(&mut damaged, marker);
        let err = read_err(&damaged, &format!("a CRC mismatch in {part}"));
        assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{part}: {err:?}");
        assert_mentions(&err, &["checksum", part]);
    }
}

#[test]
fn crc_mismatches_in_deflated_parts_are_refused() {
    // Deflated parts are inflated by sheetstream itself, which checks the
    // CRC at the end of the stream: the same sheet with its recorded CRC
    // changed (in the local header and the central directory) is refused.
    let mut rows = String::new();
    for row in 1..=500 {
        rows.push_str(&format!(
            r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c></row>"#
        ));
    }
    let bytes = one_sheet(sheet_xml(&rows));
    assert_eq!(read(&bytes, "the deflated sheet").unwrap(), 500);
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes.clone())).unwrap();
    let file = zip.by_name(SHEET_PART).unwrap();
    assert_eq!(file.compression(), zip::CompressionMethod::Deflated);
    let crc = file.crc32().to_le_bytes();
    drop(file);
    let places = find_all(&bytes, &crc);
    assert_eq!(places.len(), 2, "the CRC is in the two headers only");
    let mut damaged = bytes.clone();
    for place in places {
        damaged[place] ^= 0x01;
    }
    let err = read_err(&damaged, "a CRC mismatch in the deflated sheet");
    assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err:?}");
    assert_mentions(&err, &["checksum", SHEET_PART]);
}

#[test]
fn damaged_deflate_data_is_refused() {
    // A long sheet, so that its deflate stream is long; bytes flipped in
    // its middle break the stream or its CRC.
    let mut rows = String::new();
    for row in 1..=2000 {
        rows.push_str(&format!(
            r#"<row r="{row}"><c r="A{row}"><v>{}</v></c></row>"#,
            row * 7919 % 10007
        ));
    }
    let bytes = one_sheet(sheet_xml(&rows));
    assert_eq!(read(&bytes, "the long sheet").unwrap(), 2000);
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes.clone())).unwrap();
    let file = zip.by_name(SHEET_PART).unwrap();
    let start = file.data_start().unwrap() as usize;
    let size = file.compressed_size() as usize;
    drop(file);
    for offset in [size / 3, size / 2, size - 8] {
        let mut damaged = bytes.clone();
        damaged[start + offset] ^= 0x5A;
        damaged[start + offset + 1] ^= 0xA5;
        let err = read_err(&damaged, &format!("deflate data flipped at {offset}"));
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Zip(_)
                    | ErrorKind::Xml(_)
                    | ErrorKind::InvalidUtf8
                    | ErrorKind::InvalidValue(_)
                    | ErrorKind::CellReference(_)
            ),
            "{err:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------

fn limit_of(err: &Error) -> (&'static str, u64) {
    match err.kind() {
        ErrorKind::LimitExceeded { limit, max } => (limit, *max),
        other => panic!("expected LimitExceeded, got {other:?} ({err})"),
    }
}

/// A sheet whose second row is `row_bytes` long.
fn wide_row_workbook(row_bytes: usize) -> Vec<u8> {
    let text = "w".repeat(row_bytes);
    one_sheet(sheet_xml(&format!(
        r#"<row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>{text}</t></is></c></row>"#
    )))
}

#[test]
fn row_size_limit_on_a_row_larger_than_the_read_window() {
    // 300 KiB row, 200 KiB limit: refused.
    let bytes = wide_row_workbook(300 << 10);
    let limits = {
        let mut limits = Limits::default();
        limits.max_row_bytes = 200 << 10;
        limits
    };
    let err = read_with(&bytes, limits, "a 300 KiB row").unwrap_err();
    assert_eq!(limit_of(&err), ("row or string item size", 200 << 10));
    assert_mentions(&err, &["limit", "sheet 'Bad'", SHEET_PART]);
    // With the default limits it reads.
    assert_eq!(read(&bytes, "a 300 KiB row").unwrap(), 2);
}

#[test]
fn row_size_limit_below_the_read_window() {
    let bytes = wide_row_workbook(10_000);
    let limits = {
        let mut limits = Limits::default();
        limits.max_row_bytes = 1024;
        limits
    };
    let err = read_with(&bytes, limits, "a 10 kB row with a 1 KiB limit").unwrap_err();
    assert_eq!(limit_of(&err), ("row or string item size", 1024));
    assert_mentions(&err, &["sheet 'Bad'", SHEET_PART]);
}

#[test]
fn shared_string_item_size_limit() {
    let long = format!("<t>{}</t>", "s".repeat(300 << 10));
    let bytes = book()
        .strings(&["<t>short</t>", &long])
        .sheet("S", sheet_xml(""))
        .build();
    let limits = {
        let mut limits = Limits::default();
        limits.max_row_bytes = 200 << 10;
        limits
    };
    let err = read_with(&bytes, limits, "a 300 KiB shared string").unwrap_err();
    assert_eq!(limit_of(&err).1, 200 << 10);
    assert_mentions(&err, &["xl/sharedStrings.xml"]);
    assert_eq!(read(&bytes, "a 300 KiB shared string").unwrap(), 0);
}

/// A sheet of `rows` identical rows: compresses very well.
fn compressible_workbook(rows: usize) -> Vec<u8> {
    let row = r#"<row><c t="inlineStr"><is><t>the same text again and again</t></is></c></row>"#;
    one_sheet(sheet_xml(&row.repeat(rows)))
}

#[test]
fn compression_ratio_limit() {
    let bytes = compressible_workbook(20_000);
    let limits = {
        let mut limits = Limits::default();
        limits.max_compression_ratio = 20;
        limits.ratio_threshold_bytes = 64 << 10;
        limits
    };
    // Opening reads only the small parts; the sheet trips the limit.
    let mut workbook = OpenOptions::new()
        .limits(limits)
        .from_reader(Cursor::new(bytes.clone()))
        .unwrap();
    let mut rows = workbook.rows("Bad").unwrap();
    let err = loop {
        match rows.next_row() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the whole sheet was read"),
            Err(err) => break err,
        }
    };
    assert_eq!(limit_of(&err), ("compression ratio", 20));
    assert_mentions(&err, &["sheet 'Bad'", SHEET_PART]);
    // Under the threshold, the ratio is not checked.
    let mut relaxed = limits;
    relaxed.ratio_threshold_bytes = 64 << 20;
    assert_eq!(
        read_with(&bytes, relaxed, "under the threshold").unwrap(),
        20_000
    );
    assert_eq!(read(&bytes, "default limits").unwrap(), 20_000);
}

#[test]
fn compression_ratio_limit_on_a_part_read_at_open() {
    let strings: Vec<String> = (0..5000).map(|_| "<t>again</t>".to_owned()).collect();
    let items: Vec<&str> = strings.iter().map(String::as_str).collect();
    let bytes = book().strings(&items).sheet("S", sheet_xml("")).build();
    let limits = {
        let mut limits = Limits::default();
        limits.max_compression_ratio = 10;
        limits.ratio_threshold_bytes = 4096;
        limits
    };
    let err = read_with(&bytes, limits, "a compressible shared strings part").unwrap_err();
    assert_eq!(limit_of(&err), ("compression ratio", 10));
    assert_mentions(&err, &["xl/sharedStrings.xml"]);
}

#[test]
fn part_size_limit() {
    let bytes = compressible_workbook(200);
    let sheet_len = sheet_xml(
        &r#"<row><c t="inlineStr"><is><t>the same text again and again</t></is></c></row>"#
            .repeat(200),
    )
    .len() as u64;
    let limits = {
        let mut limits = Limits::default();
        limits.max_part_bytes = 4000;
        limits
    };
    let err = read_with(&bytes, limits, "a sheet over max_part_bytes").unwrap_err();
    assert_eq!(limit_of(&err), ("inflated part size", 4000));
    assert_mentions(&err, &["sheet 'Bad'", SHEET_PART]);
    // Exactly the part's size is allowed.
    let exact = {
        let mut limits = Limits::default();
        limits.max_part_bytes = sheet_len;
        limits
    };
    assert_eq!(
        read_with(&bytes, exact, "a sheet of exactly max_part_bytes").unwrap(),
        200
    );
    let one_less = {
        let mut limits = Limits::default();
        limits.max_part_bytes = sheet_len - 1;
        limits
    };
    assert!(read_with(&bytes, one_less, "a sheet one byte over").is_err());
}

#[test]
fn metadata_part_size_limit() {
    let names: String = (0..200)
        .map(|i| format!(r#"<definedName name="n{i}">Sheet!$A$1</definedName>"#))
        .collect();
    let workbook = book().sheet("S", sheet_xml(""));
    let workbook_xml = workbook.workbook_xml().replace(
        "</sheets>",
        &format!("</sheets><definedNames>{names}</definedNames>"),
    );
    let bytes = workbook
        .package()
        .with("xl/workbook.xml", workbook_xml)
        .build();
    let limits = {
        let mut limits = Limits::default();
        limits.max_metadata_part_bytes = 2000;
        limits
    };
    let err = read_with(&bytes, limits, "a big workbook part").unwrap_err();
    assert_eq!(limit_of(&err), ("inflated part size", 2000));
    assert_mentions(&err, &["xl/workbook.xml"]);
    assert_eq!(read(&bytes, "a big workbook part").unwrap(), 0);
}

#[test]
fn shared_string_count_limit() {
    let items: Vec<String> = (0..10).map(|i| format!("<t>s{i}</t>")).collect();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let bytes = book().strings(&items).sheet("S", sheet_xml("")).build();
    let at = |max: u64| {
        read_with(
            &bytes,
            {
                let mut limits = Limits::default();
                limits.max_shared_strings = max;
                limits
            },
            "ten shared strings",
        )
    };
    assert_eq!(at(10).unwrap(), 0, "ten strings are within a limit of ten");
    let err = at(9).unwrap_err();
    assert_eq!(limit_of(&err), ("shared string count", 9));
    assert_mentions(&err, &["xl/sharedStrings.xml", "limit"]);
    // At the tenth item, read in a run of plain items as the nine before.
    let tenth = find(sst_xml(&items).as_bytes(), b"<si><t>s9</t>").unwrap();
    assert_eq!(err.location().offset, Some(tenth as u64));
    let err = at(0).unwrap_err();
    assert_eq!(limit_of(&err).1, 0);
}

#[test]
fn shared_string_bytes_limit() {
    let items = ["<t>0123456789</t>", "<t>0123456789</t>", "<t>01234</t>"];
    let bytes = book().strings(&items).sheet("S", sheet_xml("")).build();
    let at = |max: u64| {
        read_with(
            &bytes,
            {
                let mut limits = Limits::default();
                limits.max_shared_string_bytes = max;
                limits
            },
            "25 bytes of shared strings",
        )
    };
    assert_eq!(at(25).unwrap(), 0);
    let err = at(24).unwrap_err();
    assert_eq!(limit_of(&err), ("shared string bytes", 24));
    let third = find(sst_xml(&items).as_bytes(), b"<si><t>01234</t>").unwrap();
    assert_eq!(err.location().offset, Some(third as u64));
}

// ---------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------

#[test]
fn command_line_usage_and_missing_files() {
    let run = run_cli_args(&[]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("Usage"), "{}", run.stderr);
    let run = run_cli_args(&["frobnicate", "x.xlsx"]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("frobnicate"), "{}", run.stderr);
    let run = run_cli_args(&["cells"]);
    assert_eq!(run.code, Some(2));
    let missing = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-workbook.xlsx");
    let run = run_cli_args(&["cells", missing.to_str().unwrap()]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.starts_with("sheetstream: "), "{}", run.stderr);
    assert!(run.stderr.contains("I/O"), "{}", run.stderr);
    let err = Workbook::open(&missing).err().expect("no such file");
    assert!(matches!(err.kind(), ErrorKind::Io(_)), "{err:?}");
    assert!(std::error::Error::source(&err).is_some());
}

#[test]
fn errors_partway_through_the_cli_dump_exit_nonzero() {
    let sheet = sheet_xml(concat!(
        r#"<row r="1"><c r="A1"><v>1</v></c></row>"#,
        r#"<row r="2"><c r="A2"><v>oops</v></c></row>"#,
    ));
    let run = run_cli("cells", "partway", &one_sheet(sheet));
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("cell A2"), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

/// A workbook of one sheet whose row `i` (1-based `i + 1`) holds shared
/// string `i` in column A, the strings `s0`, `s1`, ... in order of first
/// use as writers put them; item `damaged` (if any) holds an unknown
/// entity. Returns the bytes and the damaged item's offset in the part.
fn strings_in_order(count: usize, damaged: Option<usize>) -> (Vec<u8>, Option<usize>) {
    let items: Vec<String> = (0..count)
        .map(|i| match damaged {
            Some(at) if at == i => "<t>a &bogus; b</t>".to_owned(),
            _ => format!("<t>s{i}</t>"),
        })
        .collect();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let part = sst_xml(&items);
    // A decoding error points at the start of the text holding it.
    let offset = damaged.map(|_| part.find("a &bogus;").unwrap());
    let rows: String = (0..count)
        .map(|i| {
            format!(
                r#"<row r="{r}"><c r="A{r}" t="s"><v>{i}</v></c></row>"#,
                r = i + 1
            )
        })
        .collect();
    let bytes = book()
        .strings_part(part)
        .sheet("S", sheet_xml(&rows))
        .build();
    (bytes, offset)
}

#[test]
fn shared_strings_are_parsed_only_as_far_as_the_rows_read_need() {
    let (bytes, _) = strings_in_order(20_000, None);
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    assert_eq!(
        workbook.parsed_shared_strings(),
        0,
        "nothing parsed at open"
    );
    {
        let mut rows = workbook.rows(0).unwrap();
        for i in 0..10 {
            let row = rows.next_row().unwrap().unwrap();
            assert_eq!(row.cells()[0].value().as_str(), Some(&*format!("s{i}")));
        }
    }
    // The first block: 1024 strings of 20,000.
    assert_eq!(workbook.parsed_shared_strings(), 1024);
    let mut seen = 0;
    workbook
        .for_each_row(0, |row| {
            assert_eq!(
                row.cells()[0].value().as_str(),
                Some(&*format!("s{}", row.index()))
            );
            seen += 1;
        })
        .unwrap();
    assert_eq!(seen, 20_000);
    assert_eq!(workbook.parsed_shared_strings(), 20_000);
    assert_eq!(workbook.shared_strings().unwrap().len(), 20_000);
}

#[test]
fn a_damaged_shared_string_past_the_rows_read_is_no_error() {
    let (bytes, offset) = strings_in_order(20_000, Some(15_000));
    let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
    {
        let mut rows = workbook.rows(0).unwrap();
        for _ in 0..5_000 {
            assert!(rows.next_row().unwrap().is_some());
        }
    }
    assert!(workbook.parsed_shared_strings() < 15_000);
    // A read of the rows that need it fails at the first of them, naming
    // the part and the byte offset of the damage.
    let err = read_err(&bytes, "a damaged shared string item 15,000");
    assert_xml(&err);
    assert_eq!(
        err.location().part.as_deref(),
        Some("xl/sharedStrings.xml"),
        "{err}"
    );
    assert_eq!(err.location().offset, offset.map(|at| at as u64), "{err}");
    assert_eq!(err.location().sheet.as_deref(), Some("S"), "{err}");
    // Row 15,001 (its cell A15001) needs item 15,000: the rows before it
    // read, though the damage is in the block they need.
    assert_eq!(err.location().row, Some(15_001), "{err}");
    assert_eq!(err.location().column, Some(1), "{err}");
    // And so does the whole table asked for.
    let workbook = Workbook::from_bytes(bytes).unwrap();
    let err = workbook.shared_strings().unwrap_err();
    assert_eq!(err.location().part.as_deref(), Some("xl/sharedStrings.xml"));
    assert_eq!(err.location().offset, offset.map(|at| at as u64));
}
