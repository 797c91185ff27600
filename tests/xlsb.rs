//! `.xlsb` workbooks: the same data written as `.xlsx` (rust_xlsxwriter)
//! and as `.xlsb` (the small writer in `benches/support`) reads the same
//! through the library, the parallel engine and the CLI (`cells`, `csv`,
//! `parquet`); what `.xlsb` does not offer is a clear error.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use rust_xlsxwriter::{ExcelDateTime, Format, Formula};
use sheetstream::{ErrorKind, FileFormat, SheetState, Workbook};

#[path = "../benches/support/xlsb_writer.rs"]
pub(crate) mod xlsb_writer;

use xlsb_writer::{STYLE_DATE, STYLE_DATE_TIME, XlsbCell, XlsbWriter};

/// One cell of the differential workbook.
#[derive(Clone, Copy)]
enum Data {
    Number(f64),
    Date(f64),
    DateTime(f64),
    Text(&'static str),
    Bool(bool),
    FormulaNumber(f64),
}

const TEXTS: [&str; 5] = [
    "plain",
    "caf\u{e9} \u{6771}\u{4eac} \u{1F600}",
    "  spaced  ",
    "a & b < c",
    "line\nbreak",
];

/// The cells of row `row` (sparse: not every column every row).
fn row_data(row: u32) -> Vec<(u16, Data)> {
    let i = f64::from(row);
    let mut cells = vec![
        (0, Data::Number(i)),
        (1, Data::Number(-i * 1.25)),
        (2, Data::Number(i / 100.0 - 3.0)),
        (3, Data::Date(36526.0 + i)),
        (4, Data::DateTime(40000.0 + i / 1440.0)),
        (5, Data::Text(TEXTS[row as usize % TEXTS.len()])),
        (6, Data::Bool(row.is_multiple_of(3))),
    ];
    if row.is_multiple_of(4) {
        cells.push((8, Data::Number(1e300 / (i + 1.0))));
    }
    if row.is_multiple_of(5) {
        cells.push((9, Data::FormulaNumber(i * 2.0)));
    }
    if row.is_multiple_of(7) {
        cells.push((27, Data::Number(-((1u64 << 40) as f64) - i)));
    }
    cells
}

const ROWS: u32 = 300;

fn xlsx_bytes() -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let date_time = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    for (name, hidden) in [("Data", false), ("Hidden", true)] {
        let sheet = book.add_worksheet().set_name(name).unwrap();
        if hidden {
            sheet.set_hidden(true);
        }
        for row in 0..ROWS {
            for (column, data) in row_data(row) {
                match data {
                    Data::Number(number) => {
                        sheet.write_number(row, column, number).unwrap();
                    }
                    Data::Date(serial) => {
                        let day = ExcelDateTime::from_serial_datetime(serial).unwrap();
                        sheet
                            .write_datetime_with_format(row, column, day, &date)
                            .unwrap();
                    }
                    Data::DateTime(serial) => {
                        let moment = ExcelDateTime::from_serial_datetime(serial).unwrap();
                        sheet
                            .write_datetime_with_format(row, column, moment, &date_time)
                            .unwrap();
                    }
                    Data::Text(text) => {
                        sheet.write_string(row, column, text).unwrap();
                    }
                    Data::Bool(flag) => {
                        sheet.write_boolean(row, column, flag).unwrap();
                    }
                    Data::FormulaNumber(number) => {
                        let formula = Formula::new("=A1*2").set_result(number.to_string());
                        sheet.write_formula(row, column, formula).unwrap();
                    }
                }
            }
        }
    }
    book.save_to_buffer().unwrap()
}

fn xlsb_writer() -> XlsbWriter {
    let mut writer = XlsbWriter::new();
    for (name, state) in [("Data", 0), ("Hidden", 1)] {
        writer.add_sheet(name, state);
        for row in 0..ROWS {
            writer.row(row);
            for (column, data) in row_data(row) {
                let column = u32::from(column);
                match data {
                    Data::Number(number) => writer.cell(column, 0, XlsbCell::Number(number)),
                    Data::Date(serial) => writer.cell(column, STYLE_DATE, XlsbCell::Number(serial)),
                    Data::DateTime(serial) => {
                        writer.cell(column, STYLE_DATE_TIME, XlsbCell::Number(serial))
                    }
                    // Shared in even rows, inline (BrtCellSt) in odd ones.
                    Data::Text(text) if row.is_multiple_of(2) => {
                        writer.cell(column, 0, XlsbCell::Text(text))
                    }
                    Data::Text(text) => writer.cell(column, 0, XlsbCell::RichText(text)),
                    Data::Bool(flag) => writer.cell(column, 0, XlsbCell::Bool(flag)),
                    Data::FormulaNumber(number) => {
                        writer.cell(column, 0, XlsbCell::FormulaNumber(number))
                    }
                }
            }
            // Formatting only: no value, no line (inside the row, not
            // past its last column: a blank counts in the dimension).
            if row % 3 == 1 {
                writer.cell(7, 0, XlsbCell::Blank);
            }
        }
    }
    writer
}

fn xlsb_bytes() -> Vec<u8> {
    xlsb_writer().to_bytes()
}

/// A temporary file with the given extension, removed on drop.
fn temp(stem: &str, extension: &str, bytes: &[u8]) -> common::TempFile {
    let file = common::temp_file(stem, bytes);
    let path: PathBuf = file.0.with_extension(extension);
    std::fs::rename(&file.0, &path).unwrap();
    std::mem::forget(file);
    common::TempFile(path)
}

fn run(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args(args)
        .output()
        .expect("run the sheetstream binary");
    assert!(
        output.status.success(),
        "sheetstream {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_same_data_as_xlsx_and_xlsb_reads_the_same() {
    let mut xlsx = Workbook::from_bytes(xlsx_bytes()).unwrap();
    let mut xlsb = Workbook::from_bytes(xlsb_bytes()).unwrap();
    assert_eq!(xlsx.file_format(), FileFormat::Xlsx);
    assert_eq!(xlsb.file_format(), FileFormat::Xlsb);
    assert_eq!(xlsb.sheets().len(), 2);
    assert_eq!(xlsb.sheets()[1].state(), SheetState::Hidden);
    assert_eq!(xlsb.sheets()[0].part(), "xl/worksheets/sheet1.bin");
    let expected = common::library_dump(&mut xlsx).unwrap();
    let got = common::library_dump(&mut xlsb).unwrap();
    assert!(expected.len() > 2 * 7 * ROWS as usize, "{}", expected.len());
    if let Some(difference) = common::dump_difference(&expected, &got) {
        panic!("the .xlsb reads differently from the .xlsx: {difference}");
    }
    // The number formats render the same (the styles went through the
    // same builder).
    let render = |workbook: &mut Workbook<_>| {
        let formats = workbook.number_formats().clone();
        let mut text = String::new();
        let mut all = Vec::new();
        let mut rows = workbook.rows(0).unwrap();
        while let Some(row) = rows.next_row().unwrap() {
            for cell in row.cells() {
                text.clear();
                cell.formatted_into(&formats, &mut text);
                all.push(text.clone());
            }
        }
        all
    };
    assert_eq!(render(&mut xlsx), render(&mut xlsb));
}

#[test]
fn the_parallel_engine_reads_xlsb_sheets() {
    let xlsb = Workbook::from_bytes(xlsb_bytes()).unwrap();
    for threads in [1, 2] {
        let cells = xlsb
            .parallel()
            .threads(threads)
            .fold(
                || 0usize,
                |count, _, row| *count += row.cells().len(),
                |a, b| a + b,
            )
            .unwrap();
        let mut serial = Workbook::from_bytes(xlsb_bytes()).unwrap();
        assert_eq!(cells, common::library_dump(&mut serial).unwrap().len());
    }
    // One sheet alone goes through the pipelined path (an inflate thread).
    let mut writer = XlsbWriter::new();
    writer.add_sheet("Only", 0);
    for row in 0..5_000 {
        writer.row(row);
        writer.cell(0, 0, XlsbCell::Number(f64::from(row)));
        writer.cell(1, 0, XlsbCell::RichText("text of a row"));
    }
    let bytes = writer.to_bytes();
    let one = Workbook::from_bytes(bytes.clone()).unwrap();
    let piped = one
        .parallel()
        .threads(2)
        .fold(
            || (0usize, 0.0),
            |(cells, sum), _, row| {
                *cells += row.cells().len();
                *sum += row
                    .cells()
                    .iter()
                    .filter_map(|cell| cell.value().as_f64())
                    .sum::<f64>();
            },
            |a, b| (a.0 + b.0, a.1 + b.1),
        )
        .unwrap();
    assert_eq!(piped, (10_000, 4999.0 * 5000.0 / 2.0));
}

#[test]
fn the_cli_reads_xlsb_as_it_reads_the_same_xlsx() {
    let xlsx = temp("xlsb-cli", "xlsx", &xlsx_bytes());
    let xlsb = temp("xlsb-cli", "xlsb", &xlsb_bytes());
    let (xlsx_path, xlsb_path) = (xlsx.0.to_str().unwrap(), xlsb.0.to_str().unwrap());
    for args in [
        vec!["cells"],
        vec!["csv"],
        vec!["csv", "--sheet", "Hidden", "--formatted"],
        vec!["sheets"],
    ] {
        let expected = run(&[&args[..], &[xlsx_path]].concat());
        let got = run(&[&args[..], &[xlsb_path]].concat());
        assert!(!expected.is_empty(), "{args:?}");
        if let Some((line, (want, have))) = expected
            .lines()
            .zip(got.lines())
            .enumerate()
            .find(|(_, (want, have))| want != have)
        {
            panic!(
                "sheetstream {args:?}, line {}: {want:?} against {have:?}",
                line + 1
            );
        }
        assert_eq!(expected.len(), got.len(), "sheetstream {args:?}");
    }
    let read_parquet = |path: &std::path::Path| {
        let file = std::fs::File::open(path).unwrap();
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap()
            .map(Result::unwrap)
            .collect::<Vec<_>>()
    };
    let xlsx_parquet = xlsx.0.with_extension("xlsx.parquet");
    let xlsb_parquet = xlsb.0.with_extension("xlsb.parquet");
    run(&["parquet", xlsx_path, "-o", xlsx_parquet.to_str().unwrap()]);
    run(&["parquet", xlsb_path, "-o", xlsb_parquet.to_str().unwrap()]);
    let (expected, got) = (read_parquet(&xlsx_parquet), read_parquet(&xlsb_parquet));
    let _ = std::fs::remove_file(&xlsx_parquet);
    let _ = std::fs::remove_file(&xlsb_parquet);
    assert_eq!(expected, got);
    assert_eq!(
        expected.iter().map(|batch| batch.num_rows()).sum::<usize>(),
        ROWS as usize - 1
    );
}

#[test]
fn formula_text_of_xlsb_cells_is_decompiled() {
    // The writer's formulas are their result as a constant (PtgNum).
    let mut workbook = Workbook::from_bytes(xlsb_bytes()).unwrap();
    let mut rows = workbook.rows("Data").unwrap().with_formulas(true);
    let mut formulas = 0;
    while let Some(row) = rows.next_row().unwrap() {
        for cell in row.cells() {
            match cell.column() {
                9 => {
                    let value = cell.value().as_f64().unwrap();
                    assert_eq!(cell.formula(), Some(value.to_string().as_str()));
                    formulas += 1;
                }
                _ => assert_eq!(cell.formula(), None),
            }
        }
    }
    assert_eq!(formulas, ROWS.div_ceil(5));
    drop(rows);
    // Without formulas the same cells read as their cached results.
    let mut rows = workbook.rows("Data").unwrap();
    let first = rows.next_row().unwrap().unwrap();
    assert_eq!(first.get(9).unwrap().value().as_f64(), Some(0.0));
    assert_eq!(first.get(9).unwrap().formula(), None);
}

#[test]
fn a_hostile_xlsb_is_refused_with_its_place() {
    // A shared string index past the table, in the second row.
    let mut writer = XlsbWriter::new();
    writer.add_sheet("S", 0);
    writer.row(0);
    writer.cell(0, 0, XlsbCell::Text("only"));
    let mut bytes = writer.to_bytes();
    // The index 0 of the one BrtCellIsst becomes 5: rewrite the sheet part.
    let sheet = {
        use std::io::Read;
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
        let mut part = Vec::new();
        archive
            .by_name("xl/worksheets/sheet1.bin")
            .unwrap()
            .read_to_end(&mut part)
            .unwrap();
        part
    };
    let at = sheet
        .windows(10)
        .position(|w| w[..2] == [0x07, 12])
        .unwrap();
    let mut hostile = sheet.clone();
    hostile[at + 2 + 8] = 5;
    let mut package = common::Package::new();
    {
        use std::io::Read;
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
        for index in 0..archive.len() {
            let mut entry = archive.by_index(index).unwrap();
            let mut content = Vec::new();
            entry.read_to_end(&mut content).unwrap();
            let name = entry.name().unwrap().to_string();
            package = package.with(&name, content);
        }
    }
    bytes = package.with("xl/worksheets/sheet1.bin", hostile).build();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    let err = rows.next_row().unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::SharedStringIndex { index: 5, count: 1 }
        ),
        "{err}"
    );
    let location = err.location();
    assert_eq!(location.part.as_deref(), Some("xl/worksheets/sheet1.bin"));
    assert_eq!((location.row, location.column), (Some(1), Some(1)));
    assert_eq!(location.offset, Some(at as u64));
}

#[test]
fn xlsb_metadata_reads_as_the_sheet_says() {
    let mut writer = XlsbWriter::new();
    writer.add_sheet("Meta", 0);
    writer.hide_columns(2, 3);
    writer.hide_columns(9, 9);
    writer.merge([0, 1, 0, 2]);
    writer.merge([5, 5, 4, 6]);
    writer.rows_hidden_by_default();
    for row in 0..6 {
        writer.row_with(row, row == 2 || row == 4);
        writer.cell(1, 0, XlsbCell::Number(f64::from(row)));
    }
    writer.row(7);
    writer.cell(6, 0, XlsbCell::Bool(true));
    let mut workbook = Workbook::from_bytes(writer.to_bytes()).unwrap();
    let metadata = workbook.sheet_metadata("Meta").unwrap();
    assert_eq!(
        metadata.dimension.map(|range| range.to_string()).as_deref(),
        Some("B1:G8")
    );
    assert_eq!(
        workbook
            .sheet_dimension(0)
            .unwrap()
            .map(|range| range.to_string())
            .as_deref(),
        Some("B1:G8")
    );
    assert_eq!(metadata.hidden_columns, vec![2..=3, 9..=9]);
    assert!(metadata.is_column_hidden(3));
    assert!(metadata.rows_hidden_by_default);
    let merged: Vec<String> = metadata
        .merged
        .iter()
        .map(|range| range.to_string())
        .collect();
    assert_eq!(merged, ["A1:C2", "E6:G6"]);
    assert!(metadata.hyperlinks.is_empty() && metadata.comments.is_empty());
    assert_eq!(workbook.hidden_rows("Meta").unwrap(), vec![2, 4]);
    assert!(workbook.defined_names().unwrap().is_empty());
    // The same from the same data as .xlsx.
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet().set_name("Meta").unwrap();
    sheet.set_column_hidden(2).unwrap();
    sheet.set_column_hidden(3).unwrap();
    sheet.set_column_hidden(9).unwrap();
    sheet.merge_range(0, 0, 1, 2, "", &Format::new()).unwrap();
    sheet.merge_range(5, 4, 5, 6, "", &Format::new()).unwrap();
    for row in 0..6 {
        sheet.write_number(row, 1, f64::from(row)).unwrap();
    }
    sheet.set_row_hidden(2).unwrap();
    sheet.set_row_hidden(4).unwrap();
    sheet.write_boolean(7, 6, true).unwrap();
    let mut xlsx = Workbook::from_bytes(book.save_to_buffer().unwrap()).unwrap();
    let expected = xlsx.sheet_metadata("Meta").unwrap();
    assert_eq!(expected.merged, metadata.merged);
    assert_eq!(xlsx.hidden_rows("Meta").unwrap(), vec![2, 4]);
}

/// Every `.xlsb` of the binary corpus: the metadata reads, or fails with
/// a typed error, never a panic; each workbook's parallel read gives the
/// cells its pull read gives. `--nocapture` shows the counts.
#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn corpus_xlsb_metadata_and_parallel_reads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance/corpus-binary");
    if !root.is_dir() {
        common::skip_notice("corpus_xlsb_metadata_and_parallel_reads", "corpus-binary");
        return;
    }
    let mut files = Vec::new();
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "xlsb") {
                files.push(path);
            }
        }
    }
    files.sort();
    let (mut opened, mut names, mut unsupported_names, mut metadata) = (0, 0, 0, 0);
    let (mut hyperlinks, mut comments, mut merged) = (0, 0, 0);
    for path in &files {
        let Ok(mut workbook) = Workbook::open(path) else {
            continue;
        };
        if workbook.file_format() != FileFormat::Xlsb {
            continue;
        }
        opened += 1;
        match workbook.defined_names() {
            Ok(found) => names += found.len(),
            Err(err) if matches!(err.kind(), ErrorKind::Unsupported(_)) => unsupported_names += 1,
            Err(_) => {}
        }
        let mut serial_cells = Some(0usize);
        for position in 0..workbook.sheets().len() {
            if let Ok(found) = workbook.sheet_metadata(position) {
                metadata += 1;
                hyperlinks += found.hyperlinks.len();
                comments += found.comments.len();
                merged += found.merged.len();
            }
            let _ = workbook.hidden_rows(position);
            let _ = workbook.sheet_dimension(position);
            if workbook.sheets()[position].kind() != sheetstream::SheetKind::Worksheet {
                continue;
            }
            match workbook.rows(position) {
                Ok(mut rows) => loop {
                    match rows.next_row() {
                        Ok(Some(row)) => {
                            if let Some(count) = serial_cells.as_mut() {
                                *count += row.cells().len();
                            }
                        }
                        Ok(None) => break,
                        Err(_) => {
                            serial_cells = None;
                            break;
                        }
                    }
                },
                Err(_) => serial_cells = None,
            }
        }
        if let Some(expected) = serial_cells {
            let cells = workbook
                .parallel()
                .threads(2)
                .fold(
                    || 0usize,
                    |count, _, row| *count += row.cells().len(),
                    |a, b| a + b,
                )
                .unwrap();
            assert_eq!(cells, expected, "{}", path.display());
        }
    }
    println!(
        "{opened} .xlsb workbooks: {names} defined names ({unsupported_names} workbooks with a name not decoded), \
         {metadata} sheets' metadata: {merged} merged ranges, {hyperlinks} hyperlinks, {comments} comments"
    );
    assert!(opened > 300, "{opened}");
}

#[test]
fn a_damaged_workbook_part_is_refused_at_open() {
    use std::io::Read;
    let bytes = xlsb_bytes();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
    let mut package = common::Package::new();
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).unwrap();
        let mut content = Vec::new();
        entry.read_to_end(&mut content).unwrap();
        package = package.with(entry.name().unwrap().as_ref(), content);
    }
    // The sheet list cut in the middle of its first BrtBundleSh.
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
    let mut workbook_part = Vec::new();
    archive
        .by_name("xl/workbook.bin")
        .unwrap()
        .read_to_end(&mut workbook_part)
        .unwrap();
    let at = workbook_part
        .windows(2)
        .position(|pair| pair == [0x9C, 0x01])
        .unwrap();
    workbook_part.truncate(at + 8);
    let err = match Workbook::from_bytes(package.with("xl/workbook.bin", workbook_part).build()) {
        Ok(_) => panic!("a cut workbook part opened"),
        Err(err) => err,
    };
    assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
    assert_eq!(err.location().part.as_deref(), Some("xl/workbook.bin"));
    assert_eq!(err.location().offset, Some(at as u64));
}

#[test]
fn an_xlsb_workbook_without_table_parts_lists_no_tables() {
    let tables = Workbook::from_bytes(xlsb_bytes())
        .unwrap()
        .tables()
        .unwrap();
    assert!(tables.is_empty(), "{tables:?}");
}
