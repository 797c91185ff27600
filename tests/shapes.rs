//! Hand-made sheets (issue 26): merged cells filled, hidden rows and
//! columns left out, headers of several rows or past a title, empty rows
//! and columns dropped, the table ended at an empty row; on a workbook
//! the tests write with each shape, checked cell by cell against the
//! table a person would type, through the library and the CLI, and for
//! `.xlsb` and `.xls` too.
#![cfg(feature = "arrow")]

use crate::common;
use crate::common::xls::{self, Book, record};
use crate::xlsb::xlsb_writer::{XlsbCell, XlsbWriter};

use rust_xlsxwriter::{FilterCondition, Format};
use sheetstream::Workbook;
use sheetstream::arrow::arrow_array::{Array, Float64Array, Int64Array, RecordBatch, StringArray};
use sheetstream::arrow::arrow_schema::DataType;
use sheetstream::arrow::{ArrowOptions, BatchReport, Header};

/// The sheet `Sales`, as a person sees it in Excel:
///
/// ```text
///   | A                  | B    | C  | D    | E  | F (hidden)
/// 1 | Sales report 2024  |      |    |      |    |
/// 2 |                    |      |    |      |    |
/// 3 | Region (A3:A4)     | 2024 (B3:C3)   | 2025 (D3:E3)   | Internal
/// 4 |                    | Q1   | Q2 | Q1   | Q2 | Note
/// 5 | North (A5:A6)      | 1    | 2  | 3    | 4  | x
/// 6 |                    | 5    | 6  | 7    | 8  | y
/// 7 | South (hidden by the autofilter) | 9 | 10 | 11 | 12 | z
/// 8 | East               | 13   | 14 | 15   | 16 | w
/// 9 |                    |      |    |      |    |
/// 10| Total              | 100  | 200| 300  | 400|
/// ```
///
/// and `Titled`: a title in A1, the header in row 3 with an unnamed empty
/// column C between `Item` and `Amount`.
pub fn shapes_book() -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let plain = Format::new();
    let sheet = book.add_worksheet().set_name("Sales").unwrap();
    sheet.write_string(0, 0, "Sales report 2024").unwrap();
    sheet.merge_range(2, 0, 3, 0, "Region", &plain).unwrap();
    sheet.merge_range(2, 1, 2, 2, "2024", &plain).unwrap();
    sheet.merge_range(2, 3, 2, 4, "2025", &plain).unwrap();
    sheet.write_string(2, 5, "Internal").unwrap();
    for (column, quarter) in ["Q1", "Q2", "Q1", "Q2", "Note"].iter().enumerate() {
        sheet.write_string(3, column as u16 + 1, *quarter).unwrap();
    }
    sheet.merge_range(4, 0, 5, 0, "North", &plain).unwrap();
    sheet.write_string(6, 0, "South").unwrap();
    sheet.write_string(7, 0, "East").unwrap();
    for (row, notes) in [(4u32, "x"), (5, "y"), (6, "z"), (7, "w")] {
        for column in 1..=4u16 {
            let value = (row - 4) * 4 + u32::from(column);
            sheet.write_number(row, column, f64::from(value)).unwrap();
        }
        sheet.write_string(row, 5, notes).unwrap();
    }
    sheet.write_string(9, 0, "Total").unwrap();
    for column in 1..=4u16 {
        sheet
            .write_number(9, column, f64::from(column) * 100.0)
            .unwrap();
    }
    sheet.set_column_hidden(5).unwrap();
    // The autofilter hides South's row (rust_xlsxwriter hides the rows
    // the filter leaves out, as Excel does: `hidden="1"` on the row).
    sheet.autofilter(3, 0, 7, 5).unwrap();
    let filter = FilterCondition::new()
        .add_list_filter("North")
        .add_list_filter("East")
        .add_list_blanks_filter();
    sheet.filter_column(0, &filter).unwrap();
    let titled = book.add_worksheet().set_name("Titled").unwrap();
    titled.write_string(0, 0, "Quarterly figures").unwrap();
    titled.write_string(2, 0, "Item").unwrap();
    titled.write_string(2, 3, "Amount").unwrap();
    for (row, (item, amount)) in [("apples", 10.0), ("pears", 20.5)].iter().enumerate() {
        titled.write_string(row as u32 + 3, 0, *item).unwrap();
        titled.write_number(row as u32 + 3, 3, *amount).unwrap();
    }
    book.save_to_buffer().unwrap()
}

/// A table as text, column by column: its names, and each row's cells
/// (`""` for null; whole numbers without a fraction).
fn table(batches: &[RecordBatch]) -> (Vec<String>, Vec<Vec<String>>) {
    let Some(first) = batches.first() else {
        return (Vec::new(), Vec::new());
    };
    let names = first
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let mut rows = Vec::new();
    for batch in batches {
        for row in 0..batch.num_rows() {
            let cells = (batch.columns().iter())
                .map(|column| {
                    if column.is_null(row) || column.data_type() == &DataType::Null {
                        return String::new();
                    }
                    match column.data_type() {
                        DataType::Utf8 => column
                            .as_any()
                            .downcast_ref::<StringArray>()
                            .unwrap()
                            .value(row)
                            .to_owned(),
                        DataType::Int64 => column
                            .as_any()
                            .downcast_ref::<Int64Array>()
                            .unwrap()
                            .value(row)
                            .to_string(),
                        DataType::Float64 => column
                            .as_any()
                            .downcast_ref::<Float64Array>()
                            .unwrap()
                            .value(row)
                            .to_string(),
                        other => panic!("unexpected column type {other}"),
                    }
                })
                .collect();
            rows.push(cells);
        }
    }
    (names, rows)
}

fn read(
    bytes: Vec<u8>,
    sheet: &str,
    options: &ArrowOptions,
) -> (Vec<String>, Vec<Vec<String>>, Vec<BatchReport>) {
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let mut batches = options.read_sheet(&mut workbook, sheet).unwrap();
    let mut read = Vec::new();
    let mut reports = Vec::new();
    while let Some(batch) = batches.next_batch().unwrap() {
        read.push(batch);
        reports.push(batches.report().clone());
    }
    let (names, rows) = table(&read);
    (names, rows, reports)
}

fn rows(expected: &[&[&str]]) -> Vec<Vec<String>> {
    (expected.iter())
        .map(|row| row.iter().map(|cell| (*cell).to_owned()).collect())
        .collect()
}

const QUARTERS: [&str; 5] = ["Region", "2024 Q1", "2024 Q2", "2025 Q1", "2025 Q2"];

#[test]
fn the_autofilter_hides_south_and_the_metadata_says_so() {
    let mut workbook = Workbook::from_bytes(shapes_book()).unwrap();
    assert_eq!(workbook.hidden_rows("Sales").unwrap(), [6]);
    let metadata = workbook.sheet_metadata("Sales").unwrap();
    assert_eq!(metadata.hidden_columns, [5..=5]);
    assert_eq!(metadata.merged.len(), 4);
}

#[test]
fn a_two_row_header_joins_the_year_and_the_quarter() {
    let options = ArrowOptions::new().header(Header::Rows { first: 2, last: 3 });
    let (names, got, reports) = read(shapes_book(), "Sales", &options);
    assert_eq!(names, [&QUARTERS[..], &["Internal Note"]].concat());
    // Without fill_merged only the header's merged cells are filled:
    // North stays in its anchor row, South and column F are read.
    let expected = rows(&[
        &["North", "1", "2", "3", "4", "x"],
        &["", "5", "6", "7", "8", "y"],
        &["South", "9", "10", "11", "12", "z"],
        &["East", "13", "14", "15", "16", "w"],
        &["", "", "", "", "", ""],
        &["Total", "100", "200", "300", "400", ""],
    ]);
    assert_eq!(got, expected);
    assert_eq!(reports[0].header_row, Some(3));
    assert_eq!(reports[0].hidden_rows_skipped, 0);
}

#[test]
fn every_shape_option_together_gives_the_table_a_person_types() {
    let base = ArrowOptions::new()
        .header(Header::Rows { first: 2, last: 3 })
        .fill_merged(true)
        .skip_hidden_rows(true)
        .skip_hidden_columns(true);
    let (names, got, reports) = read(shapes_book(), "Sales", &base);
    assert_eq!(names, QUARTERS);
    let table = [
        &["North", "1", "2", "3", "4"][..],
        &["North", "5", "6", "7", "8"],
        &["East", "13", "14", "15", "16"],
    ];
    let total: &[&str] = &["Total", "100", "200", "300", "400"];
    let empty: &[&str] = &["", "", "", "", ""];
    assert_eq!(got, rows(&[table[0], table[1], table[2], empty, total]));
    assert_eq!(
        reports.iter().map(|r| r.hidden_rows_skipped).sum::<usize>(),
        1
    );
    // The empty row dropped.
    let (_, got, _) = read(shapes_book(), "Sales", &base.clone().drop_empty_rows(true));
    assert_eq!(got, rows(&[table[0], table[1], table[2], total]));
    // The table ends at the empty row: the totals are not read. The
    // hidden row between North and East is no empty row.
    let (_, got, _) = read(
        shapes_book(),
        "Sales",
        &base.clone().stop_at_empty_row(true),
    );
    assert_eq!(got, rows(&table));
    // Through the pipelined owned reader and the many-sheet reader alike.
    let workbook = std::sync::Arc::new(Workbook::from_bytes(shapes_book()).unwrap());
    let reader = base
        .clone()
        .stop_at_empty_row(true)
        .sheet_reader(workbook, "Sales")
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(table_rows(&batches), rows(&table));
}

fn table_rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    table(batches).1
}

#[test]
fn fill_merged_alone_fills_rows_and_columns() {
    let options = ArrowOptions::new().header(Header::None).fill_merged(true);
    let (names, got, _) = read(shapes_book(), "Sales", &options);
    assert_eq!(names.len(), 6);
    // Row 3: Region, 2024 twice, 2025 twice; row 4: Region filled down.
    assert_eq!(
        got[2],
        ["Region", "2024", "2024", "2025", "2025", "Internal"]
    );
    assert_eq!(got[3], ["Region", "Q1", "Q2", "Q1", "Q2", "Note"]);
    assert_eq!(got[4][0], "North");
    assert_eq!(got[5][0], "North");
    assert_eq!(got[6][0], "South");
    // A column selection leaving out the anchor's column still fills.
    let options = options.columns(sheetstream::ColumnSpec::parse("C").unwrap());
    let (_, got, _) = read(shapes_book(), "Sales", &options);
    assert_eq!(got[2], ["2024"]);
}

#[test]
fn the_auto_header_skips_the_title() {
    let options = ArrowOptions::new().header(Header::Auto);
    let (names, got, reports) = read(shapes_book(), "Titled", &options);
    assert_eq!(names, ["Item", "column_2", "column_3", "Amount"]);
    assert_eq!(
        got,
        rows(&[&["apples", "", "", "10"], &["pears", "", "", "20.5"]])
    );
    assert_eq!(reports[0].header_row, Some(2));
    // Empty columns dropped as polars drops them.
    let (names, got, _) = read(
        shapes_book(),
        "Titled",
        &options.clone().drop_empty_cols(true),
    );
    assert_eq!(names, ["Item", "Amount"]);
    assert_eq!(got, rows(&[&["apples", "10"], &["pears", "20.5"]]));
    // The default header is the title, as before.
    let (names, _, reports) = read(shapes_book(), "Titled", &ArrowOptions::new());
    assert_eq!(names[0], "Quarterly figures");
    assert_eq!(reports[0].header_row, Some(0));
    // On Sales, auto passes the title and takes the first header row
    // (Region, 2024, 2025 and Internal: four of the six columns below);
    // a header of two rows is asked for with `Header::Rows`.
    let (names, _, reports) = read(shapes_book(), "Sales", &options);
    assert_eq!(names[..3], ["Region", "2024", "column_3"]);
    assert_eq!(reports[0].header_row, Some(2));
}

#[test]
fn a_sheet_without_merges_reads_as_without_the_option() {
    let plain = ArrowOptions::new();
    let (names, got, _) = read(shapes_book(), "Titled", &plain);
    let filled = read(shapes_book(), "Titled", &plain.clone().fill_merged(true));
    assert_eq!((names, got), (filled.0, filled.1));
}

#[test]
fn xlsb_merged_cells_and_hidden_rows() {
    let mut writer = XlsbWriter::new();
    writer.add_sheet("Data", 0);
    writer.merge([1, 3, 0, 0]);
    writer.hide_columns(2, 2);
    writer.row(0);
    writer.cell(0, 0, XlsbCell::Text("Group"));
    writer.cell(1, 0, XlsbCell::Text("Value"));
    writer.cell(2, 0, XlsbCell::Text("Secret"));
    for row in 1..=3u32 {
        writer.row_with(row, row == 2);
        if row == 1 {
            writer.cell(0, 0, XlsbCell::Text("A"));
        }
        writer.cell(1, 0, XlsbCell::Number(f64::from(row)));
        writer.cell(2, 0, XlsbCell::Number(0.5));
    }
    let options = ArrowOptions::new()
        .fill_merged(true)
        .skip_hidden_rows(true)
        .skip_hidden_columns(true);
    let bytes = writer.to_bytes();
    // The row headers' hidden flag, on the row events.
    let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
    let mut events = workbook.rows("Data").unwrap();
    let mut seen = Vec::new();
    while let Some(row) = events.next_row().unwrap() {
        seen.push((row.index(), row.is_hidden()));
    }
    assert_eq!(seen, [(0, false), (1, false), (2, true), (3, false)]);
    let (names, got, reports) = read(bytes, "Data", &options);
    assert_eq!(names, ["Group", "Value"]);
    assert_eq!(got, rows(&[&["A", "1"], &["A", "3"]]));
    assert_eq!(reports[0].hidden_rows_skipped, 1);
}

#[test]
fn xls_merged_cells_fill_down() {
    let mut sheet = Vec::new();
    sheet.extend(xls::number(0, 0, 0, 7.0));
    sheet.extend(xls::number(0, 1, 0, 1.0));
    sheet.extend(xls::number(1, 1, 0, 2.0));
    sheet.extend(xls::number(2, 1, 0, 3.0));
    let mut merged = 1u16.to_le_bytes().to_vec();
    // A1:A3: first row, last row, first column, last column.
    for word in [0u16, 2, 0, 0] {
        merged.extend_from_slice(&word.to_le_bytes());
    }
    sheet.extend(record(xls::MERGEDCELLS, &merged));
    let mut book = Book::new();
    book.sheet("Data", sheet);
    let options = ArrowOptions::new().header(Header::None).fill_merged(true);
    let (_, got, _) = read(book.bytes(), "Data", &options);
    assert_eq!(got, rows(&[&["7", "1"], &["7", "2"], &["7", "3"]]));
}

#[test]
fn the_cli_takes_the_same_options() {
    let file = common::temp_file("shapes", &shapes_book());
    let path = file.0.to_str().unwrap().to_owned();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args([
            "arrow",
            &path,
            "--sheet",
            "Sales",
            "--header-row",
            "3-4",
            "--fill-merged",
            "--skip-hidden-rows",
            "--skip-hidden-columns",
            "--drop-empty-rows",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("1 hidden row left out"), "{stderr}");
    let reader =
        arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(output.stdout), None)
            .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    let (names, got) = table(&batches);
    assert_eq!(names, QUARTERS);
    assert_eq!(
        got,
        rows(&[
            &["North", "1", "2", "3", "4"],
            &["North", "5", "6", "7", "8"],
            &["East", "13", "14", "15", "16"],
            &["Total", "100", "200", "300", "400"],
        ])
    );
    let run = common::run_cli_args(&["schema", &path, "--sheet", "Titled", "--header-row", "auto"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("Item") && !run.stdout.contains("Quarterly"),
        "{}",
        run.stdout
    );
    // The record commands refuse the headers only the typed ones read.
    let run = common::run_cli_args(&["csv", &path, "--header-row", "3,4"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
}

#[test]
fn a_merged_block_over_empty_rows_fills_them() {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet().set_name("Block").unwrap();
    sheet.write_string(0, 0, "Key").unwrap();
    sheet.write_string(0, 1, "Value").unwrap();
    // A2:B4 merged, holding "block"; row 5 a value below it.
    sheet
        .merge_range(1, 0, 3, 1, "block", &Format::new())
        .unwrap();
    sheet.write_string(4, 0, "after").unwrap();
    sheet.write_number(4, 1, 5.0).unwrap();
    sheet.set_row_hidden(2).unwrap();
    let bytes = book.save_to_buffer().unwrap();
    let options = ArrowOptions::new().fill_merged(true);
    let (_, got, _) = read(bytes.clone(), "Block", &options);
    let block: &[&str] = &["block", "block"];
    assert_eq!(got, rows(&[block, block, block, &["after", "5"]]));
    // The hidden row inside the block is left out, not filled.
    let (_, got, _) = read(bytes, "Block", &options.skip_hidden_rows(true));
    assert_eq!(got, rows(&[block, block, &["after", "5"]]));
}

/// Every worksheet of the corpus that has merged ranges reads with
/// `fill_merged` (and the hidden rows and columns left out) as it reads
/// without: the same error, or a table of the same width or narrower
/// (hidden columns) whose every anchor value is in each cell its range
/// covers.
#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn corpus_sheets_with_merged_ranges_fill_without_error() {
    let Some(root) = common::corpus_root() else {
        common::skip_notice(
            "shapes::corpus_sheets_with_merged_ranges_fill_without_error",
            "the corpus",
        );
        return;
    };
    let (mut sheets, mut failed_alike) = (0, 0);
    for path in common::corpus_workbooks(&root) {
        let Ok(mut workbook) = Workbook::open(&path) else {
            continue;
        };
        for position in 0..workbook.sheets().len() {
            let Ok(metadata) = workbook.sheet_metadata(position) else {
                continue;
            };
            if metadata.merged.is_empty() {
                continue;
            }
            let plain = ArrowOptions::new().read_sheet_table(&mut workbook, position);
            let options = ArrowOptions::new()
                .fill_merged(true)
                .skip_hidden_rows(true)
                .skip_hidden_columns(true);
            let filled = options.read_sheet_table(&mut workbook, position);
            match (plain, filled) {
                (Ok(_), Ok(_)) => sheets += 1,
                (Err(a), Err(b)) => {
                    assert_eq!(
                        std::mem::discriminant(a.kind()),
                        std::mem::discriminant(b.kind()),
                        "{}: {a} / {b}",
                        path.display()
                    );
                    failed_alike += 1;
                }
                (Ok(_), Err(err)) => panic!("{} sheet {position}: {err}", path.display()),
                (Err(_), Ok(_)) => sheets += 1,
            }
        }
    }
    eprintln!("corpus: {sheets} sheets with merged ranges filled, {failed_alike} failing alike");
    assert!(sheets > 0);
}

#[test]
fn the_many_sheet_reader_takes_the_options() {
    let workbook = std::sync::Arc::new(Workbook::from_bytes(shapes_book()).unwrap());
    let options = ArrowOptions::new()
        .header(Header::Auto)
        .drop_empty_cols(true);
    let reader = options
        .read_workbooks(
            vec![("shapes".to_owned(), workbook)],
            sheetstream::arrow::SheetChoice::Named(vec![sheetstream::SheetRef::Name(
                "Titled".to_owned(),
            )]),
        )
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    let (names, got) = table(&batches);
    assert_eq!(names, ["Item", "Amount"]);
    assert_eq!(got, rows(&[&["apples", "10"], &["pears", "20.5"]]));
}

/// Each row event says whether its row is hidden, as the row tag spells
/// it (the fast path's `r` first or after `hidden`, a character
/// reference, `true`, `0`, no `r`), rows without cells included; the
/// metadata pass agrees; `skip_hidden_rows` leaves them out as they come.
#[test]
fn row_events_say_which_rows_are_hidden() {
    let rows_xml = concat!(
        r#"<row r="1"><c r="A1"><v>1</v></c></row>"#,
        r#"<row r="2" hidden="1"><c r="A2"><v>2</v></c></row>"#,
        r#"<row hidden="true" r="3"><c r="A3"><v>3</v></c></row>"#,
        r#"<row r="4" hidden="&#49;"><c r="A4"><v>4</v></c></row>"#,
        r#"<row r="5" hidden="0" customHeight="1"><c r="A5"><v>5</v></c></row>"#,
        r#"<row hidden="1"><c r="A6"><v>6</v></c></row>"#,
        r#"<row r="8" hidden="1"/>"#,
        r#"<row r="9"><c r="A9"><v>9</v></c></row>"#,
    );
    let bytes = common::book()
        .sheet("Data", common::sheet_xml(rows_xml))
        .build();
    let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
    let mut seen = Vec::new();
    let mut events = workbook.rows("Data").unwrap();
    while let Some(row) = events.next_row().unwrap() {
        seen.push((row.index(), row.is_hidden()));
    }
    drop(events);
    let expected = [
        (0, false),
        (1, true),
        (2, true),
        (3, true),
        (4, false),
        (5, true),
        (7, true),
        (8, false),
    ];
    assert_eq!(seen, expected);
    let hidden: Vec<u32> = (seen.iter()).filter(|(_, h)| *h).map(|(i, _)| *i).collect();
    assert_eq!(workbook.hidden_rows("Data").unwrap(), hidden);
    let options = ArrowOptions::new()
        .header(Header::None)
        .skip_hidden_rows(true);
    let (_, got, reports) = read(bytes.clone(), "Data", &options);
    // Row 7 (not written) is an empty row; row 8 is hidden, not empty.
    assert_eq!(got, rows(&[&["1"], &["5"], &[""], &["9"]]));
    assert_eq!(
        reports.iter().map(|r| r.hidden_rows_skipped).sum::<usize>(),
        4
    );
    // With `stop_at_empty_row`, the hidden rows are no empty rows: the
    // table ends at row 7, which is.
    let (_, got, _) = read(bytes, "Data", &options.stop_at_empty_row(true));
    assert_eq!(got, rows(&[&["1"], &["5"]]));
}

/// .xls: ROW records (in blocks before their rows' cells) mark rows
/// hidden; a row without a ROW record is not.
#[test]
fn xls_row_records_mark_rows_hidden() {
    let row_record = |row: u16, hidden: bool| {
        let mut data = [0u8; 16];
        data[..2].copy_from_slice(&row.to_le_bytes());
        data[12] = if hidden { 0x20 } else { 0 };
        record(xls::ROW, &data)
    };
    let mut sheet = Vec::new();
    for (row, hidden) in [(0, false), (1, true), (2, false), (3, true)] {
        sheet.extend(row_record(row, hidden));
    }
    for row in [0u16, 1, 2, 4] {
        sheet.extend(xls::number(row, 0, 0, f64::from(row)));
    }
    let mut book = Book::new();
    book.sheet("Data", sheet);
    let bytes = book.bytes();
    let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
    let mut seen = Vec::new();
    let mut events = workbook.rows("Data").unwrap();
    while let Some(row) = events.next_row().unwrap() {
        seen.push((row.index(), row.is_hidden()));
    }
    drop(events);
    // Row 3, hidden without cells, is handed out empty (as `.xlsx` hands
    // out a hidden `<row>`), so that it is skipped, not a row of nulls.
    assert_eq!(
        seen,
        [(0, false), (1, true), (2, false), (3, true), (4, false)]
    );
    assert_eq!(workbook.hidden_rows("Data").unwrap(), [1, 3]);
    let options = ArrowOptions::new()
        .header(Header::None)
        .skip_hidden_rows(true);
    let (_, got, reports) = read(bytes.clone(), "Data", &options);
    assert_eq!(got, rows(&[&["0"], &["2"], &["4"]]));
    // The count is of hidden rows with values.
    assert_eq!(
        reports.iter().map(|r| r.hidden_rows_skipped).sum::<usize>(),
        1
    );
    // Without the option the hidden empty row is a row of nulls, as the
    // rows the sheet does not write are.
    let (_, got, _) = read(bytes, "Data", &ArrowOptions::new().header(Header::None));
    assert_eq!(got.len(), 5);

    // The same sheet as .xlsx reads the same.
    let mut writer = rust_xlsxwriter::Workbook::new();
    let sheet = writer.add_worksheet().set_name("Data").unwrap();
    for row in [0u32, 1, 2, 4] {
        sheet.write_number(row, 0, f64::from(row)).unwrap();
    }
    sheet.set_row_hidden(1).unwrap();
    sheet.set_row_hidden(3).unwrap();
    let (_, got, reports) = read(writer.save_to_buffer().unwrap(), "Data", &options);
    assert_eq!(got, rows(&[&["0"], &["2"], &["4"]]));
    assert_eq!(
        reports.iter().map(|r| r.hidden_rows_skipped).sum::<usize>(),
        1
    );
}

/// Hidden rows without cells (ROW records only, as LibreOffice writes an
/// empty hidden row) before the first row with cells, between rows and
/// past a block of ROW records are handed out, in row order.
#[test]
fn xls_hidden_rows_without_cells_come_out_in_order() {
    let row_record = |row: u16| {
        let mut data = [0u8; 16];
        data[..2].copy_from_slice(&row.to_le_bytes());
        data[12] = 0x20;
        record(xls::ROW, &data)
    };
    let mut sheet = Vec::new();
    for row in [0u16, 2, 3, 70] {
        sheet.extend(row_record(row));
    }
    sheet.extend(xls::number(1, 0, 0, 1.0));
    sheet.extend(xls::number(5, 0, 0, 5.0));
    sheet.extend(row_record(100));
    sheet.extend(xls::number(101, 0, 0, 101.0));
    let mut book = Book::new();
    book.sheet("Data", sheet);
    let mut workbook = Workbook::from_bytes(book.bytes()).unwrap();
    let mut seen = Vec::new();
    let mut events = workbook.rows("Data").unwrap();
    while let Some(row) = events.next_row().unwrap() {
        seen.push((row.index(), row.is_hidden(), row.cells().len()));
    }
    assert_eq!(
        seen,
        [
            (0, true, 0),
            (1, false, 1),
            (2, true, 0),
            (3, true, 0),
            (5, false, 1),
            (70, true, 0),
            (100, true, 0),
            (101, false, 1)
        ]
    );
}

/// A merged range over rows the sheet does not write is filled when the
/// next written row comes: a range of the whole grid is refused by the
/// row limit, naming the row, not held in memory until it is exhausted.
#[test]
fn a_merged_block_past_the_row_limit_is_refused_not_held() {
    let rows_xml = concat!(
        r#"<row r="1"><c r="A1" t="inlineStr"><is><t>Key</t></is></c></row>"#,
        r#"<row r="2"><c r="A2" t="inlineStr"><is><t>block</t></is></c></row>"#,
        r#"<row r="1048576"><c r="A1048576"><v>1</v></c></row>"#,
    );
    let sheet = common::sheet_xml(rows_xml).replace(
        "</sheetData>",
        r#"</sheetData><mergeCells count="1"><mergeCell ref="A2:XFD1048575"/></mergeCells>"#,
    );
    let bytes = common::book().sheet("Grid", sheet).build();
    let limits = {
        let mut limits = sheetstream::Limits::default();
        limits.max_row_bytes = 1 << 20;
        limits
    };
    let mut workbook = sheetstream::OpenOptions::new()
        .limits(limits)
        .from_reader(std::io::Cursor::new(bytes.clone()))
        .unwrap();
    let options = ArrowOptions::new().fill_merged(true);
    let err = options
        .read_sheet_table(&mut workbook, "Grid")
        .expect_err("a merged block of 17 billion cells is refused");
    assert!(
        matches!(err.kind(), sheetstream::ErrorKind::LimitExceeded { max, .. } if *max == 1 << 20),
        "{err}"
    );
    let message = err.to_string();
    assert!(message.contains("merged cells filled"), "{message}");
    // Without the option the sheet reads: the anchor alone holds the
    // value, the rows between are rows of nulls (1,048,575 data rows).
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let (_, batches) = ArrowOptions::new()
        .read_sheet_table(&mut workbook, "Grid")
        .unwrap();
    assert_eq!(
        batches.iter().map(|b| b.num_rows()).sum::<usize>(),
        1_048_575
    );
}
