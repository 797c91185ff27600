//! OpenDocument spreadsheets (`.ods`, `.fods`) through the public API:
//! the binary corpus's `.ods` cases against their expected dumps, on one
//! thread and pipelined; packages and flat documents written here (values,
//! metadata, names, styles, hostile shapes: repeats past the grid, a
//! manifest that lies, an encrypted package, a part cut short).

use crate::common;

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use sheetstream::{CellRange, CellRef, ErrorKind, FileFormat, SheetState, Value, Workbook};
use zip::write::SimpleFileOptions;

#[path = "../benches/support/ods_writer.rs"]
mod ods_writer;

use ods_writer::{NAMESPACES, OdsCell, OdsWriter};

const SPREADSHEET: &str = "application/vnd.oasis.opendocument.spreadsheet";

fn manifest(extra: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="{SPREADSHEET}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{extra}</manifest:file-entry></manifest:manifest>"#
    )
}

/// `content.xml` with these automatic styles and spreadsheet children.
fn content(automatic_styles: &str, spreadsheet: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content {NAMESPACES} xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.2"><office:automatic-styles>{automatic_styles}</office:automatic-styles><office:body><office:spreadsheet>{spreadsheet}</office:spreadsheet></office:body></office:document-content>"#
    )
}

/// A package of `mimetype`, the manifest and `content.xml`.
fn package(content: &str) -> common::Package {
    common::Package::new()
        .with("mimetype", SPREADSHEET)
        .with("META-INF/manifest.xml", manifest(""))
        .with("content.xml", content)
}

fn dump(workbook: &mut Workbook<impl std::io::Read + std::io::Seek>) -> Vec<String> {
    common::library_dump(workbook)
        .unwrap()
        .iter()
        .map(|line| line.to_string())
        .collect()
}

/// Workbooks larger than this are left to `corpus_ods_all_files` (debug
/// builds read about ten times slower than release builds).
const SMALL_FILE_BYTES: u64 = 256 * 1024;

/// The binary corpus's `.ods` cases of at most [`SMALL_FILE_BYTES`].
#[test]
fn corpus_ods_small_files() {
    run_corpus(Some(SMALL_FILE_BYTES));
}

/// Every `.ods` case: `cargo test --release --test integration ods:: -- --ignored`.
#[test]
#[ignore]
fn corpus_ods_all_files() {
    run_corpus(None);
}

/// Every `.ods` of the binary corpus, by the content of its bytes, read
/// through the library on one thread and over two (pipelined): the cells
/// of a `NAME.cells.jsonl.gz` case equal it, a `NAME.error` case is
/// refused, a `NAME.any` case does not panic; the metadata readers read
/// each workbook or refuse it with a typed error.
fn run_corpus(max_bytes: Option<u64>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus-binary");
    if !root.is_dir() {
        common::skip_notice("corpus_ods_cases_through_the_library", "corpus-binary");
        return;
    }
    let mut files: Vec<PathBuf> = Vec::new();
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "ods")
                && max_bytes.is_none_or(|max| path.metadata().unwrap().len() <= max)
            {
                files.push(path);
            }
        }
    }
    files.sort();
    let (mut passed, mut refused, mut any) = (0, 0, 0);
    let (mut comments, mut merged, mut hidden_rows, mut names) = (0, 0, 0, 0);
    for path in &files {
        // `NAME.ods` beside `NAME.cells.jsonl.gz` (names hold dots).
        let base = path.to_str().unwrap().strip_suffix(".ods").unwrap();
        let expected = PathBuf::from(format!("{base}.cells.jsonl.gz"));
        let opened = Workbook::open(path);
        if Path::new(&format!("{base}.error")).exists() {
            let refused_somewhere = match opened {
                Err(_) => true,
                Ok(mut workbook) => common::library_dump(&mut workbook).is_err(),
            };
            assert!(
                refused_somewhere,
                "{}: read, but it must be refused",
                path.display()
            );
            refused += 1;
            continue;
        }
        if !expected.exists() {
            if let Ok(mut workbook) = opened {
                let _ = common::library_dump(&mut workbook);
            }
            any += 1;
            continue;
        }
        let mut workbook = opened.unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        if workbook.file_format() != FileFormat::Ods {
            continue;
        }
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&expected).unwrap()),
            &mut text,
        )
        .unwrap();
        let want = common::parse_dump(&text);
        let got = common::library_dump(&mut workbook)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        if let Some(difference) = common::dump_difference(&want, &got) {
            panic!("{}:\n{difference}", path.display());
        }
        // The parallel, pipelined read gives the same cells.
        let cells = workbook
            .parallel()
            .threads(2)
            .fold(
                || 0usize,
                |count, _, row| *count += row.cells().len(),
                |a, b| a + b,
            )
            .unwrap();
        assert_eq!(cells, want.len(), "{}: parallel read", path.display());
        // Metadata through a workbook of its own: every read of a sheet
        // inflates the document up to its table, and one workbook's reads
        // together are held to the compression ratio limit.
        let mut workbook = Workbook::open(path).unwrap();
        names += workbook.defined_names().unwrap().len();
        for position in 0..workbook.sheets().len() {
            let metadata = workbook
                .sheet_metadata(position)
                .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            comments += metadata.comments.len();
            merged += metadata.merged.len();
            hidden_rows += workbook.hidden_rows(position).unwrap().len();
        }
        passed += 1;
    }
    println!(
        "{passed} .ods cases read as expected, {refused} refused, {any} read or refused; \
         {comments} comments, {merged} merged ranges, {hidden_rows} hidden rows, {names} names"
    );
    assert!(passed > 190, "{passed}");
    assert!(comments > 0 && merged > 0 && hidden_rows > 0 && names > 0);
}

#[test]
fn values_metadata_and_names_of_a_package() {
    let styles = concat!(
        r#"<number:date-style style:name="N1"><number:day number:style="long"/><number:text>.</number:text><number:month number:style="long"/><number:text>.</number:text><number:year number:style="long"/></number:date-style>"#,
        r#"<number:number-style style:name="N2"><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:grouping="true"/></number:number-style>"#,
        r#"<style:style style:name="ce1" style:family="table-cell" style:data-style-name="N1"/>"#,
        r#"<style:style style:name="ce2" style:family="table-cell" style:data-style-name="N2"/>"#,
        r#"<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>"#,
        r#"<style:style style:name="co2" style:family="table-column"/>"#,
    );
    let sheets = concat!(
        r#"<table:calculation-settings><table:null-date table:date-value="1904-01-01"/></table:calculation-settings>"#,
        r#"<table:table table:name="Data"><table:table-column table:number-columns-repeated="2"/><table:table-column table:visibility="collapse" table:number-columns-repeated="2"/>"#,
        r#"<table:table-row><table:table-cell table:number-columns-spanned="2" table:number-rows-spanned="2" office:value-type="string"><text:p>merged</text:p></table:table-cell>"#,
        r#"<table:covered-table-cell/><table:table-cell table:style-name="ce1" office:value-type="date" office:date-value="2024-03-01"/>"#,
        r#"<table:table-cell table:style-name="ce2" office:value-type="float" office:value="1234.5"><office:annotation><dc:creator>Ann</dc:creator><text:p>first</text:p><text:p>second</text:p></office:annotation><text:p>1,234.50</text:p></table:table-cell></table:table-row>"#,
        r#"<table:table-row table:number-rows-repeated="2" table:visibility="collapse"><table:covered-table-cell table:number-columns-repeated="2"/>"#,
        r#"<table:table-cell office:value-type="string"><text:p>see <text:a xlink:href="https://example.com/">the site</text:a></text:p></table:table-cell></table:table-row>"#,
        r##"<table:table-row table:visibility="filter"><table:table-cell office:value-type="string"><text:p><text:a xlink:href="#Other.A1">there</text:a></text:p></table:table-cell></table:table-row>"##,
        r#"<table:named-expressions><table:named-range table:name="Local" table:cell-range-address="$Data.$A$1:.$B$2"/></table:named-expressions></table:table>"#,
        r#"<table:table table:name="Other" table:style-name="ta2"><table:table-row><table:table-cell office:value-type="float" office:value="2"/></table:table-row></table:table>"#,
        r#"<table:named-expressions><table:named-range table:name="Everything" table:cell-range-address="$Data.$A$1:.$D$4"/>"#,
        r#"<table:named-expression table:name="Twice" table:expression="of:=2*[$Other.$A$1]"/></table:named-expressions>"#,
    );
    let bytes = package(&content(styles, sheets)).build();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    assert_eq!(workbook.file_format(), FileFormat::Ods);
    let sheets: Vec<(&str, SheetState, &str)> = workbook
        .sheets()
        .iter()
        .map(|sheet| (sheet.name(), sheet.state(), sheet.part()))
        .collect();
    assert_eq!(
        sheets,
        [
            ("Data", SheetState::Visible, "content.xml"),
            ("Other", SheetState::Hidden, "content.xml")
        ]
    );
    assert_eq!(workbook.date_system(), sheetstream::DateSystem::V1904);
    assert_eq!(
        dump(&mut workbook),
        [
            r#"{"ref":"A1","sheet":"Data","t":"s","v":"merged"}"#,
            r#"{"ref":"C1","sheet":"Data","t":"d","v":"2024-03-01T00:00:00"}"#,
            r#"{"ref":"D1","sheet":"Data","t":"n","v":1234.5}"#,
            r#"{"ref":"C2","sheet":"Data","t":"s","v":"see the site"}"#,
            r#"{"ref":"C3","sheet":"Data","t":"s","v":"see the site"}"#,
            r#"{"ref":"A4","sheet":"Data","t":"s","v":"there"}"#,
            r#"{"ref":"A1","sheet":"Other","t":"n","v":2.0}"#,
        ]
    );
    // Display text through the data styles.
    let formats = workbook.number_formats().clone();
    let mut shown = Vec::new();
    workbook
        .for_each_row("Data", |row| {
            for cell in row.cells() {
                shown.push(cell.formatted(&formats));
            }
        })
        .unwrap();
    assert_eq!(
        shown,
        [
            "merged",
            "01.03.2024",
            "1,234.50",
            "see the site",
            "see the site",
            "there"
        ]
    );
    let metadata = workbook.sheet_metadata("Data").unwrap();
    let range = |first: (u32, u32), last: (u32, u32)| CellRange {
        first: CellRef {
            row: first.0,
            column: first.1,
        },
        last: CellRef {
            row: last.0,
            column: last.1,
        },
    };
    assert_eq!(metadata.merged, [range((0, 0), (1, 1))]);
    assert_eq!(metadata.hidden_columns, [2..=3]);
    assert_eq!(workbook.hidden_rows("Data").unwrap(), [1, 2, 3]);
    assert_eq!(metadata.comments.len(), 1);
    assert_eq!(metadata.comments[0].cell.to_string(), "D1");
    assert_eq!(metadata.comments[0].author.as_deref(), Some("Ann"));
    assert_eq!(metadata.comments[0].text, "first\nsecond");
    let links: Vec<String> = metadata
        .hyperlinks
        .iter()
        .map(|link| {
            format!(
                "{} {:?} {:?} {:?}",
                link.range, link.target, link.location, link.display
            )
        })
        .collect();
    assert_eq!(
        links,
        [
            r#"C2 Some("https://example.com/") None Some("the site")"#,
            r#"A4 None Some("Other.A1") Some("there")"#,
        ]
    );
    let names: Vec<(String, String, Option<usize>)> = workbook
        .defined_names()
        .unwrap()
        .into_iter()
        .map(|name| (name.name, name.refers_to, name.sheet))
        .collect();
    assert_eq!(
        names,
        [
            ("Local".into(), "$Data.$A$1:.$B$2".into(), Some(0)),
            ("Everything".into(), "$Data.$A$1:.$D$4".into(), None),
            ("Twice".into(), "of:=2*[$Other.$A$1]".into(), None),
        ]
    );
    assert_eq!(workbook.sheet_dimension("Data").unwrap(), None);
    assert!(workbook.tables().unwrap().is_empty());
    // Hidden rows are told by the row events too.
    let mut hidden = Vec::new();
    workbook
        .for_each_row("Data", |row| hidden.push((row.index(), row.is_hidden())))
        .unwrap();
    assert_eq!(hidden, [(0, false), (1, true), (2, true), (3, true)]);
    // Formula text as written.
    let bytes = package(&content(
        "",
        r#"<table:table table:name="F"><table:table-row><table:table-cell table:formula="of:=[.B1]&amp;&quot;x&quot;" office:value-type="string" office:string-value="1x"/></table:table-row></table:table>"#,
    ))
    .build();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let mut rows = workbook.rows(0).unwrap().with_formulas(true);
    let row = rows.next_row().unwrap().unwrap();
    assert_eq!(row.cells()[0].formula(), Some(r#"of:=[.B1]&"x""#));
    assert_eq!(row.cells()[0].value(), Value::Text("1x"));
}

/// A flat document of the same content reads the same cells.
#[test]
fn a_flat_document_reads_as_its_package_does() {
    let spreadsheet = concat!(
        r#"<table:table table:name="One"><table:table-row><table:table-cell office:value-type="float" office:value="1"/>"#,
        r#"<table:table-cell office:value-type="string"><text:p>a<text:s text:c="2"/>b</text:p></table:table-cell></table:table-row></table:table>"#,
        r#"<table:table table:name="Two"><table:table-row table:number-rows-repeated="2"><table:table-cell office:value-type="boolean" office:boolean-value="true"/></table:table-row></table:table>"#,
    );
    let flat = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document {NAMESPACES} office:version="1.2" office:mimetype="{SPREADSHEET}"><office:meta/><office:styles><style:style style:name="Default" style:family="table-cell"/></office:styles><office:automatic-styles/><office:body><office:spreadsheet>{spreadsheet}</office:spreadsheet></office:body></office:document>"#
    );
    let mut from_flat = Workbook::from_bytes(flat.clone().into_bytes()).unwrap();
    assert_eq!(from_flat.file_format(), FileFormat::Ods);
    assert_eq!(from_flat.sheets()[1].part(), "the flat ODS document");
    let mut from_package =
        Workbook::from_bytes(package(&content("", spreadsheet)).build()).unwrap();
    let expected = dump(&mut from_package);
    assert_eq!(expected.len(), 4);
    assert_eq!(dump(&mut from_flat), expected);
    // Pipelined and parallel over the file itself.
    let file = common::temp_file("flat.fods", flat.as_bytes());
    let workbook = Workbook::open(&file.0).unwrap();
    let cells = workbook
        .parallel()
        .threads(2)
        .fold(
            || 0usize,
            |count, _, row| *count += row.cells().len(),
            |a, b| a + b,
        )
        .unwrap();
    assert_eq!(cells, 4);
    // A flat text document is refused as one.
    let text = flat.replace(SPREADSHEET, "application/vnd.oasis.opendocument.text");
    let err = Workbook::from_bytes(text.into_bytes()).err().unwrap();
    assert!(err.to_string().contains("OpenDocument text file"), "{err}");
}

/// The package is found by its bytes: `mimetype` anywhere, or the
/// manifest without one; a manifest that lies is refused with a typed error.
#[test]
fn the_package_and_its_manifest_decide() {
    let one = content(
        "",
        r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="1"/></table:table-row></table:table>"#,
    );
    // `mimetype` not first, or missing with the manifest saying.
    let late = common::Package::new()
        .with("content.xml", one.as_str())
        .with("mimetype", SPREADSHEET);
    assert_eq!(
        dump(&mut Workbook::from_bytes(late.build()).unwrap()).len(),
        1
    );
    let no_mimetype = package(&one).without("mimetype");
    assert_eq!(
        dump(&mut Workbook::from_bytes(no_mimetype.build()).unwrap()).len(),
        1
    );
    // Encrypted: the typed error, naming the manifest.
    let encrypted = package(&one).with(
        "META-INF/manifest.xml",
        manifest(
            r#"<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x"/>"#,
        ),
    );
    let err = Workbook::from_bytes(encrypted.build()).err().unwrap();
    assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
    assert_eq!(
        err.location().part.as_deref(),
        Some("META-INF/manifest.xml")
    );
    // A manifest that is no XML: refused where it breaks.
    let broken = package(&one).with("META-INF/manifest.xml", "<manifest:manifest><x>");
    let err = Workbook::from_bytes(broken.build()).err().unwrap();
    assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{err}");
    assert_eq!(
        err.location().part.as_deref(),
        Some("META-INF/manifest.xml")
    );
    assert!(err.location().offset.is_some(), "{err}");
    // A manifest that says spreadsheet over a text document.
    let text = one
        .replace("<office:spreadsheet>", "<office:text>")
        .replace("</office:spreadsheet>", "</office:text>");
    let lying = package(&text).without("mimetype");
    let err = Workbook::from_bytes(lying.build()).err().unwrap();
    assert!(
        err.to_string().contains("OpenDocument text document"),
        "{err}"
    );
    assert_eq!(err.location().part.as_deref(), Some("content.xml"));
    // A `mimetype` of another kind.
    let drawing = package(&one).with("mimetype", "application/vnd.oasis.opendocument.graphics");
    let err = Workbook::from_bytes(drawing.build()).err().unwrap();
    assert!(
        err.to_string().contains("OpenDocument graphics file"),
        "{err}"
    );
    // A manifest that names content.xml, which is not there.
    let empty = common::Package::new()
        .with("mimetype", SPREADSHEET)
        .with("META-INF/manifest.xml", manifest(""));
    let err = Workbook::from_bytes(empty.build()).err().unwrap();
    assert!(matches!(err.kind(), ErrorKind::MissingPart(_)), "{err}");
    // content.xml cut in the middle of its second table: refused at open,
    // with the part and the byte.
    let two = content(
        "",
        &format!(
            "{}{}",
            r#"<table:table table:name="A"><table:table-row><table:table-cell office:value-type="float" office:value="1"/></table:table-row></table:table>"#,
            r#"<table:table table:name="B"><table:table-row><table:table-cell office:value-type="float" office:value="2"/></table:table-row>"#
        ),
    );
    let cut = &two[..two.find("</office:spreadsheet>").unwrap()];
    let err = Workbook::from_bytes(package(cut).build()).err().unwrap();
    assert!(
        err.to_string().contains("the part ends inside a table"),
        "{err}"
    );
    assert_eq!(err.location().part.as_deref(), Some("content.xml"));
    assert_eq!(err.location().offset, Some(cut.len() as u64));
}

/// The hostile shapes of issue 16, as `.ods`: repeats that multiply past
/// the grid, and the 17-billion-cell file, which reads as its one value.
#[test]
fn repeats_past_the_grid() {
    let mut writer = OdsWriter::new(Cursor::new(Vec::new())).unwrap();
    writer.begin_sheet("Sheet1", 16_384).unwrap();
    writer.write_row(&[OdsCell::Text("only value")]).unwrap();
    writer
        .write_raw(r#"<table:table-row table:number-rows-repeated="1048575"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>"#)
        .unwrap();
    let all_cells = writer.finish().unwrap().into_inner();
    assert!(all_cells.len() < 8 * 1024, "{} bytes", all_cells.len());
    let mut workbook = Workbook::from_bytes(all_cells).unwrap();
    assert_eq!(
        dump(&mut workbook),
        [r#"{"ref":"A1","sheet":"Sheet1","t":"s","v":"only value"}"#]
    );
    assert!(workbook.hidden_rows(0).unwrap().is_empty());
    // A value repeated into row 1,048,577: refused, on one thread and two.
    let past = package(&content(
        "",
        r#"<table:table table:name="S"><table:table-row table:number-rows-repeated="1048575"><table:table-cell/></table:table-row><table:table-row table:number-rows-repeated="2"><table:table-cell office:value-type="float" office:value="1"/></table:table-row></table:table>"#,
    ))
    .build();
    let mut workbook = Workbook::from_bytes(past).unwrap();
    let err = common::library_dump(&mut workbook).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::CellReference(_)), "{err}");
    assert!(err.to_string().contains("a value in row 1048577"), "{err}");
    let parallel = workbook
        .parallel()
        .threads(2)
        .fold(
            || 0usize,
            |count, _, row| *count += row.cells().len(),
            |a, b| a + b,
        )
        .unwrap_err();
    assert_eq!(parallel.to_string(), err.to_string());
}

/// The command-line tool reads `.ods` like any workbook.
#[test]
fn the_cli_reads_ods() {
    let mut writer = OdsWriter::new(Cursor::new(Vec::new())).unwrap();
    writer.begin_sheet("Numbers", 2).unwrap();
    writer
        .write_row(&[OdsCell::Text("n"), OdsCell::Text("when")])
        .unwrap();
    writer
        .write_row(&[OdsCell::Number(1.5), OdsCell::Date("2024-03-01")])
        .unwrap();
    let bytes = writer.finish().unwrap().into_inner();
    let run = common::run_cli("cells", "cli.ods", &bytes);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines: Vec<Json> = common::parse_dump(&run.stdout);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[3]["v"], "2024-03-01T00:00:00");
    let run = common::run_cli("csv", "cli.ods", &bytes);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "n,when\n1.5,2024-03-01\n");
    let run = common::run_cli("sheets", "cli.ods", &bytes);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("Numbers"), "{}", run.stdout);
}

/// `content.xml` stored uncompressed, and a UTF-8 BOM: both read.
#[test]
fn stored_parts_and_a_byte_order_mark() {
    let one = content(
        "",
        r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="string"><text:p>é</text:p></table:table-cell></table:table-row></table:table>"#,
    );
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(SPREADSHEET.as_bytes()).unwrap();
    zip.start_file("content.xml", stored).unwrap();
    zip.write_all(b"\xEF\xBB\xBF").unwrap();
    zip.write_all(one.as_bytes()).unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    assert_eq!(
        dump(&mut workbook),
        [r#"{"ref":"A1","sheet":"S","t":"s","v":"é"}"#]
    );
}

/// The sample `examples/ods/sales.ods` (LibreOffice's conversion of
/// `examples/data/sales.xlsx`) into typed Arrow columns: the types the
/// `.xlsx` gives, and its values.
#[cfg(feature = "arrow")]
#[test]
fn arrow_reads_the_ods_sample_as_the_xlsx_it_came_from() {
    use sheetstream::arrow::ArrowOptions;
    use sheetstream::arrow::arrow_array::{Array, Date32Array, Int64Array, StringArray};
    use sheetstream::arrow::arrow_schema::DataType;

    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let read = |path: PathBuf| {
        let mut workbook = Workbook::open(&path).unwrap();
        let mut batches = ArrowOptions::new().read_sheet(&mut workbook, 0).unwrap();
        let batch = batches.next_batch().unwrap().expect("a batch");
        assert!(batches.next_batch().unwrap().is_none());
        batch
    };
    let ods = read(examples.join("ods/sales.ods"));
    let xlsx = read(examples.join("data/sales.xlsx"));
    let types = |batch: &sheetstream::arrow::arrow_array::RecordBatch| -> Vec<DataType> {
        batch
            .schema()
            .fields()
            .iter()
            .map(|field| field.data_type().clone())
            .collect()
    };
    // "In stock" holds =TRUE() and =FALSE(): booleans in the .xlsx,
    // numbers in LibreOffice's .ods (office:value-type="float").
    assert_eq!(types(&ods)[..3], types(&xlsx)[..3]);
    assert_eq!(types(&ods)[3], DataType::Int64);
    let items = ods
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(
        items.iter().flatten().collect::<Vec<_>>(),
        ["apples", "pears", "plums"]
    );
    let amounts = ods.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
    assert_eq!(amounts.values().to_vec(), [10, 20, 30]);
    let dates = ods
        .column(2)
        .as_any()
        .downcast_ref::<Date32Array>()
        .unwrap();
    // 2024-03-01, 2024-03-02 and 2024-03-05 in days since 1970-01-01.
    assert_eq!(dates.values().to_vec(), [19783, 19784, 19787]);
    for column in [0, 1, 2, 4] {
        assert_eq!(ods.column(column).to_data(), xlsx.column(column).to_data());
    }
}

/// One answer on every thread count: the bench's mixed `.ods` recipe,
/// three sheets, through the pull reader and the parallel engine.
#[test]
fn the_parallel_engine_reads_ods_as_the_pull_reader_does() {
    use sheetstream::SheetCounts;

    let bytes = ods_writer::write_mixed(Cursor::new(Vec::new()), 3, 2_000, 10)
        .expect("write the .ods")
        .into_inner();
    let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
    let mut serial = SheetCounts::default();
    for position in 0..workbook.sheets().len() {
        workbook
            .for_each_row(position, |row| serial.add_row(&row))
            .unwrap();
    }
    assert!(serial.cells > 3 * 2_000 * 5, "{}", serial.cells);
    for threads in [1, 2, 4] {
        let workbook = Workbook::from_bytes(bytes.clone()).unwrap();
        let parallel = workbook
            .parallel()
            .threads(threads)
            .fold(
                SheetCounts::default,
                |counts, _sheet, row| counts.add_row(&row),
                |mut a, b| {
                    a.merge(&b);
                    a
                },
            )
            .unwrap();
        assert_eq!(parallel, serial, "{threads} threads");
    }
}
