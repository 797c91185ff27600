//! Legacy `.xls` workbooks (BIFF8 and BIFF5), written by the tests' own
//! BIFF writer (`common/xls.rs`): cell values, dates in both date
//! systems, the SST over CONTINUE records, BIFF5 code pages, column
//! selection, the parallel readers, metadata, the CLI, and hostile files
//! (a damaged compound file, offsets and records that lie).

use std::io::Cursor;

use sheetstream::{
    ColumnSet, ErrorKind, FileFormat, Limits, OpenOptions, SheetKind, Value, Workbook,
};

use crate::common::xls::{self, Book, record};
use crate::common::{library_dump, run_cli};

/// Every cell of every worksheet as `sheet!A1 t v`, in reading order.
fn cells(bytes: Vec<u8>) -> Vec<String> {
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    assert_eq!(workbook.file_format(), FileFormat::Xls);
    library_dump(&mut workbook)
        .unwrap()
        .iter()
        .map(|line| {
            format!(
                "{}!{} {} {}",
                line["sheet"].as_str().unwrap(),
                line["ref"].as_str().unwrap(),
                line["t"].as_str().unwrap(),
                line["v"]
            )
        })
        .collect()
}

fn error_of(bytes: Vec<u8>) -> sheetstream::Error {
    let mut workbook = match Workbook::from_bytes(bytes) {
        Ok(workbook) => workbook,
        Err(err) => return err,
    };
    match library_dump(&mut workbook) {
        Ok(lines) => panic!("read {} lines, expected an error", lines.len()),
        Err(err) => err,
    }
}

fn every_value_kind() -> Vec<u8> {
    let mut sheet = Vec::new();
    sheet.extend(record(xls::ROW, &[0u8; 16]));
    sheet.extend(xls::number(0, 0, 0, 1.5));
    sheet.extend(xls::rk(0, 1, 0, xls::rk_int(123, true)));
    sheet.extend(xls::rk(0, 2, 0, xls::rk_int(-7, false)));
    sheet.extend(xls::rk(0, 3, 0, (2.5f64.to_bits() >> 32) as u32));
    sheet.extend(xls::mulrk(
        1,
        1,
        &[(0, xls::rk_int(1, false)), (3, xls::rk_int(50, true))],
    ));
    sheet.extend(xls::label_sst(2, 0, 0, 1));
    sheet.extend(xls::label(2, 1, 0, "café"));
    sheet.extend(xls::label(2, 2, 0, "Grüße, 世界 😀"));
    sheet.extend(xls::label(2, 3, 0, ""));
    sheet.extend(xls::boolerr(3, 0, 0, 1, false));
    sheet.extend(xls::boolerr(3, 1, 0, 0x07, true));
    sheet.extend(xls::blank(3, 2, 0));
    sheet.extend(xls::formula_number(4, 0, 0, 42.0));
    sheet.extend(xls::formula_string(4, 1, 0, "from a formula"));
    sheet.extend(xls::formula_bool(4, 2, 0, false));
    sheet.extend(xls::formula_error(4, 3, 0, 0x2A));
    sheet.extend(xls::formula_empty(4, 4, 0));
    // Out of column order, and back to an earlier row: file order stands.
    sheet.extend(xls::number(5, 0, 0, 1.0));
    sheet.extend(xls::number(5, 2, 0, 3.0));
    sheet.extend(xls::number(5, 1, 0, 2.0));
    sheet.extend(xls::number(6, 0, 0, 4.0));
    sheet.extend(xls::number(5, 3, 0, 5.0));
    let mut book = Book::new();
    book.tail = xls::sst(&["zero", "one"], 2, 8224, false);
    book.sheet("Values", sheet);
    book.bytes()
}

#[test]
fn every_value_record_reads_as_its_cell() {
    assert_eq!(
        cells(every_value_kind()),
        [
            "Values!A1 n 1.5",
            "Values!B1 n 1.23",
            "Values!C1 n -7.0",
            "Values!D1 n 2.5",
            "Values!B2 n 1.0",
            "Values!C2 s \"50%\"",
            "Values!A3 s \"one\"",
            "Values!B3 s \"café\"",
            "Values!C3 s \"Grüße, 世界 😀\"",
            "Values!D3 s \"\"",
            "Values!A4 b true",
            "Values!B4 e \"#DIV/0!\"",
            "Values!A5 n 42.0",
            "Values!B5 s \"from a formula\"",
            "Values!C5 b false",
            "Values!D5 e \"#N/A\"",
            "Values!E5 s \"\"",
            "Values!A6 n 1.0",
            "Values!C6 n 3.0",
            "Values!B6 n 2.0",
            "Values!A7 n 4.0",
            "Values!D6 n 5.0",
        ]
        .iter()
        .map(|line| line.replace("\"50%\"", "0.5").replace(" s 0.5", " n 0.5"))
        .collect::<Vec<_>>()
    );
}

#[test]
fn rows_come_in_runs_of_one_row_in_file_order() {
    let mut workbook = Workbook::from_bytes(every_value_kind()).unwrap();
    let mut rows = workbook.rows("Values").unwrap();
    let mut seen = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        seen.push((row.index(), row.cells().len()));
    }
    // Row 4 holds a BLANK too (no value); rows 6 and 7 alternate.
    assert_eq!(
        seen,
        [
            (0, 4),
            (1, 2),
            (2, 4),
            (3, 2),
            (4, 5),
            (5, 3),
            (6, 1),
            (5, 1)
        ]
    );
}

#[test]
fn dates_follow_the_xf_format_in_both_date_systems() {
    for date1904 in [false, true] {
        let mut book = Book::new();
        if date1904 {
            book.date1904();
        }
        // A custom date format, and a redefined built-in id (14 as a number).
        book.format(165, "yyyy-mm-dd hh:mm");
        book.xf(165);
        let mut sheet = Vec::new();
        sheet.extend(xls::number(0, 0, 1, 45_000.0));
        sheet.extend(xls::number(0, 1, 2, 0.5));
        sheet.extend(xls::rk(0, 2, 4, xls::rk_int(1, false)));
        sheet.extend(xls::number(0, 3, 3, 0.25));
        book.sheet("Dates", sheet);
        let expected = if date1904 {
            [
                "Dates!A1 d \"2027-03-16T00:00:00\"",
                "Dates!B1 d \"1904-01-01T12:00:00\"",
                "Dates!C1 d \"1904-01-02T00:00:00\"",
                "Dates!D1 n 0.25",
            ]
        } else {
            [
                "Dates!A1 d \"2023-03-15T00:00:00\"",
                "Dates!B1 d \"1899-12-31T12:00:00\"",
                "Dates!C1 d \"1900-01-01T00:00:00\"",
                "Dates!D1 n 0.25",
            ]
        };
        assert_eq!(cells(book.bytes()), expected, "date1904 {date1904}");
    }
    // A file's own FORMAT for a built-in id wins over its built-in meaning.
    let mut book = Book::new();
    book.format(14, "0.00");
    book.sheet("Dates", xls::number(0, 0, 1, 45_000.0));
    assert_eq!(cells(book.bytes()), ["Dates!A1 n 45000.0"]);
}

#[test]
fn shared_strings_split_over_continue_records_join() {
    let long = "x".repeat(300) + "é" + &"y".repeat(100);
    let strings = ["short", long.as_str(), "αβγ δ", "", "tail"];
    for (limit, switch) in [(8224, false), (64, false), (64, true), (11, true)] {
        let mut book = Book::new();
        book.tail = xls::sst(&strings, strings.len() as u32, limit, switch);
        let mut sheet = Vec::new();
        for index in 0..strings.len() as u16 {
            sheet.extend(xls::label_sst(index, 0, 0, u32::from(index)));
        }
        book.sheet("S", sheet);
        let expected: Vec<String> = strings
            .iter()
            .enumerate()
            .map(|(i, text)| format!("S!A{} s {:?}", i + 1, text))
            .collect();
        assert_eq!(
            cells(book.bytes()),
            expected,
            "limit {limit} switch {switch}"
        );
    }
}

#[test]
fn rich_and_phonetic_runs_are_not_text_and_counts_size_nothing() {
    // "ab" with two formatting runs and 6 bytes of phonetic data, then
    // "cd"; the SST claims 4 billion strings.
    let mut data = Vec::new();
    data.extend_from_slice(&u32::MAX.to_le_bytes());
    data.extend_from_slice(&u32::MAX.to_le_bytes());
    data.extend_from_slice(&2u16.to_le_bytes());
    data.push(0x0C);
    data.extend_from_slice(&2u16.to_le_bytes());
    data.extend_from_slice(&6u32.to_le_bytes());
    data.extend_from_slice(b"ab");
    data.extend_from_slice(&[0; 8]);
    data.extend_from_slice(&[9; 6]);
    data.extend_from_slice(&2u16.to_le_bytes());
    data.push(0);
    data.extend_from_slice(b"cd");
    let mut book = Book::new();
    book.tail = record(xls::SST, &data);
    let mut sheet = xls::label_sst(0, 0, 0, 0);
    sheet.extend(xls::label_sst(0, 1, 0, 1));
    book.sheet("S", sheet);
    assert_eq!(cells(book.bytes()), ["S!A1 s \"ab\"", "S!B1 s \"cd\""]);
    // A string index past the table is an error naming the cell.
    let mut book = Book::new();
    book.tail = record(xls::SST, &data);
    book.sheet("S", xls::label_sst(2, 3, 0, 7));
    let err = error_of(book.bytes());
    assert!(
        matches!(err.kind(), ErrorKind::SharedStringIndex { .. }),
        "{err}"
    );
    assert_eq!(err.location().row, Some(3));
}

#[test]
fn biff5_text_is_in_the_code_page() {
    // Windows-1251: "Привет", and a sheet named "Лист" (the writer writes
    // each character of a BIFF5 name as one byte).
    let hello = [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2];
    let mut book = Book::biff5(Some(1251));
    let mut sheet = xls::label_bytes(0, 0, 0, &hello);
    sheet.extend(xls::number(0, 1, 1, 2.0));
    book.sheet("\u{CB}\u{E8}\u{F1}\u{F2}", sheet);
    assert_eq!(
        cells(book.bytes()),
        ["Лист!A1 s \"Привет\"", "Лист!B1 d \"1900-01-02T00:00:00\""]
    );
    // Without a CODEPAGE record: Windows-1252.
    let mut book = Book::biff5(None);
    book.sheet("S", xls::label_bytes(0, 0, 0, &[0x80, b'5']));
    assert_eq!(cells(book.bytes()), ["S!A1 s \"€5\""]);
    // Mac Central European, which encoding_rs lacks.
    let mut book = Book::biff5(Some(10029));
    book.sheet("S", xls::label_bytes(0, 0, 0, &[0x80]));
    assert_eq!(cells(book.bytes()), ["S!A1 s \"Ä\""]);
}

#[test]
fn sheets_kinds_and_states_come_from_boundsheet() {
    let mut book = Book::new();
    book.sheet("One", xls::number(0, 0, 0, 1.0));
    book.sheets.push(("Chart".into(), 2, Vec::new()));
    book.sheet("Two", xls::number(1, 1, 0, 2.0));
    let workbook = Workbook::from_bytes(book.bytes()).unwrap();
    let kinds: Vec<(&str, SheetKind)> = workbook
        .sheets()
        .iter()
        .map(|sheet| (sheet.name(), sheet.kind()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("One", SheetKind::Worksheet),
            ("Chart", SheetKind::Chartsheet),
            ("Two", SheetKind::Worksheet)
        ]
    );
    assert_eq!(cells(book.bytes()), ["One!A1 n 1.0", "Two!B2 n 2.0"]);
}

#[test]
fn embedded_chart_substreams_are_skipped() {
    let mut sheet = xls::number(0, 0, 0, 1.0);
    let mut chart_bof = vec![0u8; 16];
    chart_bof[0..2].copy_from_slice(&0x0600u16.to_le_bytes());
    chart_bof[2..4].copy_from_slice(&0x0020u16.to_le_bytes());
    sheet.extend(record(xls::BOF, &chart_bof));
    sheet.extend(xls::number(9, 9, 0, 99.0));
    sheet.extend(record(xls::EOF, &[]));
    sheet.extend(xls::number(1, 0, 0, 2.0));
    let mut book = Book::new();
    book.sheet("S", sheet);
    assert_eq!(cells(book.bytes()), ["S!A1 n 1.0", "S!A2 n 2.0"]);
}

#[test]
fn a_column_selection_is_pushed_down() {
    let mut workbook = Workbook::from_bytes(every_value_kind()).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    rows.select_columns(Some([1u32].into_iter().collect::<ColumnSet>()));
    let mut seen = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        let values: Vec<String> = row
            .cells()
            .iter()
            .map(|cell| format!("{}={}", cell.reference(), cell.value()))
            .collect();
        seen.push((row.index(), values, row.holds_values()));
    }
    assert_eq!(seen[0], (0, vec!["B1=1.23".to_owned()], true));
    assert_eq!(seen[4], (4, vec!["B5=from a formula".to_owned()], true));
    // Row 6 holds values only outside the selection.
    assert_eq!(seen[5], (5, vec!["B6=2".to_owned()], true));
    assert_eq!(seen[6], (6, vec![], true));
}

/// A BIFF8 PtgRef / PtgRefN token: row, column with its relative flags.
fn ptg_ref(ptg: u8, row: u16, column: u16) -> Vec<u8> {
    let mut out = vec![ptg];
    out.extend_from_slice(&row.to_le_bytes());
    out.extend_from_slice(&column.to_le_bytes());
    out
}

const NUMBER_RESULT: [u8; 8] = [0, 0, 0, 0, 0, 0, 0xF0, 0x3F];
const STRING_RESULT: [u8; 8] = [0, 0, 0, 0, 0, 0, 0xFF, 0xFF];

/// Each cell's reference, value and formula, read with formulas.
fn formulas_of(bytes: Vec<u8>, sheet: usize) -> sheetstream::Result<Vec<String>> {
    let mut workbook = Workbook::from_bytes(bytes)?;
    let mut rows = workbook.rows(sheet)?.with_formulas(true);
    let mut out = Vec::new();
    while let Some(row) = rows.next_row()? {
        for cell in row.cells() {
            out.push(format!(
                "{} {} {}",
                cell.reference(),
                cell.value(),
                cell.formula().unwrap_or("-")
            ));
        }
    }
    Ok(out)
}

#[test]
fn formula_text_is_decompiled_with_shared_formulas_3d_references_and_names() {
    let mut book = Book::new();
    book.globals
        .extend(xls::links(3, &[(1, 1), (0, 2)], &["Rate", "Total"]));
    let mut sheet = Vec::new();
    // A1: B1*2 (relative), with a number result.
    let b1_times_2 = [ptg_ref(0x44, 0, 1 | 0xC000), vec![0x1E, 2, 0, 0x05]].concat();
    sheet.extend(xls::formula_tokens(0, 0, NUMBER_RESULT, &b1_times_2));
    sheet.extend(xls::number(0, 1, 0, 0.5));
    // A2:A4 share A1+Rate (the row above, relative): A2 is the anchor.
    let shared = [ptg_ref(0x4C, 0xFFFF, 0xC000), vec![0x23, 1, 0, 0, 0, 0x03]].concat();
    let exp = [0x01, 1, 0, 0, 0];
    sheet.extend(xls::formula_tokens(1, 0, NUMBER_RESULT, &exp));
    sheet.extend(xls::shrfmla((1, 3), (0, 0), &shared));
    sheet.extend(xls::formula_tokens(2, 0, NUMBER_RESULT, &exp));
    // A string result after a 3-D reference to the quoted sheet and to a
    // range of sheets: 'My Sheet'!$A$1&SUM(Sheet1:Other!B2).
    let mut three_d = vec![0x5A, 0, 0, 0, 0, 0, 0];
    three_d.extend_from_slice(&[0x3A, 1, 0, 1, 0, 1, 0xC0, 0x42, 1, 4, 0, 0x08]);
    sheet.extend(xls::formula_tokens(2, 1, STRING_RESULT, &three_d));
    sheet.extend(record(xls::STRING, &xls::unicode_string("x1")));
    sheet.extend(xls::formula_tokens(3, 0, NUMBER_RESULT, &exp));
    // C5:C6 share C4*1 with a range that starts at A5 (Excel writes such
    // ranges): PtgExp names C5, the FORMULA the SHRFMLA follows.
    let shared = [ptg_ref(0x4C, 0xFFFF, 0xC000), vec![0x1E, 1, 0, 0x05]].concat();
    let exp = [0x01, 4, 0, 2, 0];
    sheet.extend(xls::formula_tokens(4, 2, NUMBER_RESULT, &exp));
    sheet.extend(xls::shrfmla((4, 5), (0, 2), &shared));
    sheet.extend(xls::formula_tokens(5, 2, NUMBER_RESULT, &exp));
    book.sheet("Sheet1", sheet);
    book.sheet("My Sheet", xls::number(0, 0, 0, 1.0));
    book.sheet("Other", xls::number(0, 0, 0, 1.0));
    let seen = formulas_of(book.bytes(), 0).unwrap();
    assert_eq!(
        seen,
        [
            "A1 1 B1*2",
            "B1 0.5 -",
            "A2 1 A1+Rate",
            "A3 1 A2+Rate",
            "B3 x1 'My Sheet'!$A$1&SUM(Sheet1:Other!B2)",
            "A4 1 A3+Rate",
            "C5 1 C4*1",
            "C6 1 C5*1",
        ]
    );
    // Without formulas the same cells carry none.
    let mut workbook = Workbook::from_bytes(book.bytes()).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    let row = rows.next_row().unwrap().unwrap();
    assert_eq!(row.cells()[0].formula(), None);
    // The parallel reader gives the same formulas.
    let workbook = Workbook::from_bytes(book.bytes()).unwrap();
    let found = std::sync::Mutex::new(Vec::new());
    workbook
        .parallel()
        .for_each_sheet(|| {
            |sheet: &sheetstream::SheetInfo,
             rows: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                let mut rows = rows?.with_formulas(true);
                while let Some(row) = rows.next_row()? {
                    for cell in row.cells() {
                        if let Some(formula) = cell.formula() {
                            let entry = (sheet.name().to_owned(), formula.to_owned());
                            found.lock().unwrap().push(entry);
                        }
                    }
                }
                Ok(true)
            }
        })
        .unwrap();
    assert_eq!(found.into_inner().unwrap().len(), 7);
}

#[test]
fn formula_text_errors_name_the_cell_and_token() {
    let one = |records: Vec<u8>| {
        let mut book = Book::new();
        book.sheet("Data", records);
        formulas_of(book.bytes(), 0).unwrap_err()
    };
    // An array constant: not offered.
    let err = one(xls::formula_tokens(
        4,
        2,
        NUMBER_RESULT,
        &[0x60, 0, 0, 0, 0, 0, 0, 0],
    ));
    assert!(matches!(err.kind(), ErrorKind::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("0x60"), "{err}");
    assert_eq!(
        (err.location().row, err.location().column),
        (Some(5), Some(3))
    );
    assert_eq!(err.location().sheet.as_deref(), Some("Data"));
    assert!(err.location().offset.is_some());
    // A PtgExp naming a shared formula no record holds.
    let err = one(xls::formula_tokens(
        4,
        2,
        NUMBER_RESULT,
        &[0x01, 0, 0, 0, 0],
    ));
    assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
    assert!(err.to_string().contains("no SHRFMLA"), "{err}");
    // A PtgExp naming its own cell with no SHRFMLA after it.
    let mut records = xls::formula_tokens(4, 2, NUMBER_RESULT, &[0x01, 4, 0, 2, 0]);
    records.extend(xls::number(4, 3, 0, 1.0));
    let err = one(records);
    assert!(err.to_string().contains("has no SHRFMLA"), "{err}");
    assert_eq!(
        (err.location().row, err.location().column),
        (Some(5), Some(3))
    );
    // A 3-D reference with no external sheet table, a name past the names,
    // tokens cut short, a data table.
    let err = one(xls::formula_tokens(
        0,
        0,
        NUMBER_RESULT,
        &[0x3A, 0, 0, 0, 0, 0, 0],
    ));
    assert!(err.to_string().contains("external sheet 0"), "{err}");
    let err = one(xls::formula_tokens(
        0,
        0,
        NUMBER_RESULT,
        &[0x23, 1, 0, 0, 0],
    ));
    assert!(err.to_string().contains("defined name 1"), "{err}");
    let err = one(xls::formula_tokens(0, 0, NUMBER_RESULT, &[0x24, 0, 0]));
    assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
    let err = one(xls::formula_tokens(
        0,
        0,
        NUMBER_RESULT,
        &[0x02, 0, 0, 0, 0],
    ));
    assert!(err.to_string().contains("PtgTbl"), "{err}");
}

#[test]
fn parallel_reads_match_the_pull_reader() {
    let mut book = Book::new();
    for sheet in 0..5u16 {
        let mut records = Vec::new();
        for row in 0..300u16 {
            records.extend(xls::number(row, 0, 0, f64::from(row * 10 + sheet)));
            records.extend(xls::label(row, 1, 0, &format!("s{sheet} r{row}")));
        }
        book.sheet(&format!("Sheet{sheet}"), records);
    }
    let bytes = book.bytes();
    let sequential = cells(bytes.clone());
    let workbook = Workbook::from_bytes(bytes).unwrap();
    let sheets = workbook.load_all().unwrap();
    let mut parallel = 0;
    for sheet in &sheets {
        parallel += sheet.cell_count();
    }
    assert_eq!(parallel, sequential.len());
    assert_eq!(sequential.len(), 5 * 300 * 2);
}

#[test]
fn metadata_comes_from_the_sheet_records() {
    let mut sheet = Vec::new();
    // DIMENSIONS: rows 1 to 9, columns B to D.
    let mut dimensions = Vec::new();
    dimensions.extend_from_slice(&0u32.to_le_bytes());
    dimensions.extend_from_slice(&9u32.to_le_bytes());
    dimensions.extend_from_slice(&1u16.to_le_bytes());
    dimensions.extend_from_slice(&4u16.to_le_bytes());
    dimensions.extend_from_slice(&0u16.to_le_bytes());
    sheet.extend(record(xls::DIMENSIONS, &dimensions));
    let mut colinfo = vec![0u8; 12];
    colinfo[0..2].copy_from_slice(&2u16.to_le_bytes());
    colinfo[2..4].copy_from_slice(&3u16.to_le_bytes());
    colinfo[8] = 1;
    sheet.extend(record(xls::COLINFO, &colinfo));
    let mut row = vec![0u8; 16];
    row[0..2].copy_from_slice(&4u16.to_le_bytes());
    row[12] = 0x20;
    sheet.extend(record(xls::ROW, &row));
    sheet.extend(xls::number(4, 1, 0, 1.0));
    let mut merged = 1u16.to_le_bytes().to_vec();
    for word in [0u16, 1, 1, 2] {
        merged.extend_from_slice(&word.to_le_bytes());
    }
    sheet.extend(record(xls::MERGEDCELLS, &merged));
    let mut book = Book::new();
    // EXTERNSHEET with one XTI for sheet 0, and a name for B2:C3 on it.
    let mut extern_sheet = 1u16.to_le_bytes().to_vec();
    extern_sheet.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    book.globals.extend(record(xls::EXTERNSHEET, &extern_sheet));
    let mut name = vec![0u8; 14];
    name[3] = 6;
    name[4..6].copy_from_slice(&11u16.to_le_bytes());
    name.push(0);
    name.extend_from_slice(b"Totals");
    name.push(0x3B);
    for word in [0u16, 1, 2, 1, 2] {
        name.extend_from_slice(&word.to_le_bytes());
    }
    book.globals.extend(record(xls::NAME, &name));
    book.sheet("Data", sheet);
    let mut workbook = Workbook::from_bytes(book.bytes()).unwrap();
    assert_eq!(
        workbook.sheet_dimension(0).unwrap().map(|r| r.to_string()),
        Some("B1:D9".into())
    );
    assert_eq!(workbook.hidden_rows(0).unwrap(), [4]);
    let metadata = workbook.sheet_metadata(0).unwrap();
    assert_eq!(metadata.hidden_columns, [2..=3]);
    assert_eq!(
        metadata
            .merged
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>(),
        ["B1:C2"]
    );
    assert!(metadata.hyperlinks.is_empty() && metadata.comments.is_empty());
    let names = workbook.defined_names().unwrap();
    assert_eq!(names.len(), 1);
    assert_eq!(names[0].name, "Totals");
    assert_eq!(names[0].refers_to, "Data!$B$2:$C$3");
}

#[test]
fn the_cli_dumps_and_exports_xls() {
    let run = run_cli("cells", "xls-cells.xls", &every_value_kind());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let first = run.stdout.lines().next().unwrap();
    assert_eq!(first, r#"{"sheet":"Values","ref":"A1","t":"n","v":1.5}"#);
    assert_eq!(run.stdout.lines().count(), 22);
    let run = run_cli("csv", "xls-csv.xls", &every_value_kind());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.starts_with("1.5,1.23,-7,2.5\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("café"), "{}", run.stdout);
}

// ---------------------------------------------------------------------------
// Hostile files
// ---------------------------------------------------------------------------

#[test]
fn an_encrypted_xls_is_refused_as_encrypted() {
    let mut book = Book::new();
    book.globals
        .extend(record(xls::FILEPASS, &[1, 0, 1, 0, 1, 0]));
    book.sheet("S", xls::number(0, 0, 0, 1.0));
    let err = error_of(book.bytes());
    assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
    assert!(err.to_string().contains("encrypted"), "{err}");
}

#[test]
fn other_compound_files_say_what_they_are() {
    let doc = xls::compound(&[("WordDocument", &[0u8; 600][..])]);
    let err = error_of(doc);
    assert!(err.to_string().contains("Word document (.doc)"), "{err}");
    let encrypted = xls::compound(&[
        ("EncryptionInfo", &[0u8; 100][..]),
        ("EncryptedPackage", &[0u8; 5000][..]),
    ]);
    let err = error_of(encrypted);
    assert!(err.to_string().contains("encrypted"), "{err}");
}

#[test]
fn sheet_offsets_that_lie_are_errors_naming_the_sheet() {
    // Past the stream.
    let mut book = Book::new();
    book.sheet("S", xls::number(0, 0, 0, 1.0));
    book.offset_shift = 100_000;
    let err = error_of(book.bytes());
    assert!(
        err.to_string().contains("past the end of the stream"),
        "{err}"
    );
    assert_eq!(err.location().sheet.as_deref(), Some("S"));
    // Into the globals.
    let mut book = Book::new();
    book.sheet("S", xls::number(0, 0, 0, 1.0));
    book.offset_shift = -40;
    let err = error_of(book.bytes());
    assert!(
        err.to_string().contains("inside the workbook globals"),
        "{err}"
    );
    // Two sheets on one substream.
    let mut book = Book::new();
    book.sheet("A", xls::number(0, 0, 0, 1.0));
    book.sheet("B", xls::number(0, 0, 0, 1.0));
    let mut stream = book.stream();
    let second = stream
        .windows(2)
        .enumerate()
        .filter(|(_, w)| *w == xls::BOUNDSHEET.to_le_bytes())
        .map(|(i, _)| i)
        .collect::<Vec<_>>();
    let first_offset = stream[second[0] + 4..second[0] + 8].to_vec();
    stream[second[1] + 4..second[1] + 8].copy_from_slice(&first_offset);
    let err = error_of(xls::compound(&[("Workbook", &stream)]));
    assert!(err.to_string().contains("another sheet's too"), "{err}");
}

#[test]
fn a_record_running_past_the_stream_is_an_error() {
    let mut book = Book::new();
    book.sheet("S", xls::number(0, 0, 0, 1.0));
    let mut stream = book.stream();
    // Cut inside the sheet's NUMBER record.
    let cut = stream.len() - 4 - 10;
    stream.truncate(cut);
    let err = error_of(xls::compound(&[("Workbook", &stream)]));
    assert!(matches!(err.kind(), ErrorKind::Xls(_)), "{err}");
    assert!(
        err.to_string().contains("runs past the end of the stream"),
        "{err}"
    );
    assert!(err.location().offset.is_some(), "{err}");
}

#[test]
fn a_never_ending_continue_chain_ends_with_the_stream() {
    // An SST whose one string claims 65,535 characters, followed by
    // CONTINUE records to the end of the stream and no EOF.
    let mut stream = Book::new().stream();
    stream.truncate(stream.len() - 4);
    let mut data = 1u32.to_le_bytes().to_vec();
    data.extend_from_slice(&1u32.to_le_bytes());
    data.extend_from_slice(&u16::MAX.to_le_bytes());
    data.push(0);
    stream.extend(record(xls::SST, &data));
    for _ in 0..200 {
        stream.extend(record(xls::CONTINUE, &[0, b'a', b'b']));
    }
    let err = error_of(xls::compound(&[("Workbook", &stream)]));
    assert!(
        err.to_string().contains("the SST ends inside string 0"),
        "{err}"
    );
}

#[test]
fn a_damaged_compound_file_is_an_error_not_a_panic() {
    let bytes = every_value_kind();
    // A sector size that lies: version 3 with 4 KiB sectors.
    let mut lying = bytes.clone();
    lying[0x1E] = 12;
    let err = error_of(lying);
    assert!(matches!(err.kind(), ErrorKind::NotZip { .. }), "{err}");
    assert!(err.to_string().contains("header is damaged"), "{err}");
    // A directory sector past the end of the file.
    let mut lying = bytes.clone();
    lying[0x30..0x34].copy_from_slice(&5000u32.to_le_bytes());
    let err = error_of(lying);
    assert!(matches!(err.kind(), ErrorKind::Xls(_)), "{err}");
    assert!(
        err.to_string().contains("damaged OLE2 compound file"),
        "{err}"
    );
    // Every FAT entry pointing at itself (a loop), or past the file.
    let fat_sector = u32::from_le_bytes(bytes[0x4C..0x50].try_into().unwrap()) as usize;
    let fat_at = 512 * (fat_sector + 1);
    for hostile in [0u32, 0x00FF_FFFF] {
        let mut looping = bytes.clone();
        for entry in 0..128usize {
            let at = fat_at + 4 * entry;
            let current = u32::from_le_bytes(looping[at..at + 4].try_into().unwrap());
            if current < 0xFFFF_FFF0 && entry as u32 != fat_sector as u32 {
                let target = if hostile == 0 { entry as u32 } else { hostile };
                looping[at..at + 4].copy_from_slice(&target.to_le_bytes());
            }
        }
        let _ = error_of(looping);
    }
}

#[test]
fn a_fat_larger_than_the_file_is_refused_within_the_budget() {
    // A compound file whose DIFAT lists FAT sector 1 over and over: the
    // FAT it describes is 127 times the file.
    const DIFAT_SECTORS: usize = 400;
    let mut file = vec![0u8; 512 * (DIFAT_SECTORS + 2)];
    file[..8].copy_from_slice(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]);
    file[0x18..0x1A].copy_from_slice(&0x3Eu16.to_le_bytes());
    file[0x1A..0x1C].copy_from_slice(&3u16.to_le_bytes());
    file[0x1C..0x1E].copy_from_slice(&0xFFFEu16.to_le_bytes());
    file[0x1E..0x20].copy_from_slice(&9u16.to_le_bytes());
    file[0x20..0x22].copy_from_slice(&6u16.to_le_bytes());
    file[0x2C..0x30].copy_from_slice(&1u32.to_le_bytes());
    file[0x30..0x34].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
    file[0x38..0x3C].copy_from_slice(&4096u32.to_le_bytes());
    file[0x3C..0x40].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
    file[0x44..0x48].copy_from_slice(&1u32.to_le_bytes());
    file[0x48..0x4C].copy_from_slice(&(DIFAT_SECTORS as u32).to_le_bytes());
    for entry in 0..109 {
        file[0x4C + 4 * entry..0x50 + 4 * entry].copy_from_slice(&1u32.to_le_bytes());
    }
    for sector in 1..=DIFAT_SECTORS {
        let at = 512 * (sector + 1);
        for entry in 0..127 {
            file[at + 4 * entry..at + 4 * entry + 4].copy_from_slice(&1u32.to_le_bytes());
        }
        let next = if sector == DIFAT_SECTORS {
            0xFFFF_FFFE
        } else {
            sector as u32 + 1
        };
        file[at + 508..at + 512].copy_from_slice(&next.to_le_bytes());
    }
    let err = match Workbook::from_reader(Cursor::new(file)) {
        Ok(_) => panic!("opened"),
        Err(err) => err,
    };
    assert!(
        err.to_string()
            .contains("FAT and directory are larger than the file"),
        "{err}"
    );
}

#[test]
fn an_unknown_error_code_refuses_the_file() {
    let mut book = Book::new();
    book.sheet("S", xls::boolerr(0, 0, 0, 0x99, true));
    let err = error_of(book.bytes());
    assert!(err.to_string().contains("error code 0x99"), "{err}");
    assert_eq!(
        (err.location().row, err.location().column),
        (Some(1), Some(1))
    );
}

#[test]
fn values_of_the_bytes_read_back() {
    // The value of a `Value::Number` is the f64 written.
    let mut book = Book::new();
    book.sheet("S", xls::number(0, 0, 0, -0.1));
    let mut workbook = Workbook::from_bytes(book.bytes()).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    let row = rows.next_row().unwrap().unwrap();
    assert_eq!(row.cells()[0].value(), Value::Number(-0.1));
}

#[test]
fn random_damage_is_an_error_or_a_read_never_a_panic() {
    // The fuzz target's entry point over mutated workbooks: the stream
    // wrapped in a valid compound file (mutations reach the records), and
    // the whole file (mutations reach the compound file).
    let mut book = Book::new();
    book.tail = xls::sst(&["zero", &"long ".repeat(40), "αβγ"], 3, 40, true);
    let mut sheet = Vec::new();
    for row in 0..20u16 {
        sheet.extend(xls::number(row, 0, 1, f64::from(row)));
        sheet.extend(xls::label_sst(row, 1, 0, u32::from(row % 3)));
        sheet.extend(xls::formula_string(row, 2, 0, "text"));
        sheet.extend(xls::mulrk(row, 3, &[(0, xls::rk_int(7, true)), (2, 0)]));
    }
    sheet.extend(hyperlink_records());
    book.sheet("S", sheet);
    let stream = book.stream();
    let file = book.bytes();
    // SHEETSTREAM_XLS_ROUNDS=100000 for a longer run.
    let rounds: u64 = std::env::var("SHEETSTREAM_XLS_ROUNDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(600);
    let mut rng = crate::common::Rng(25 + rounds);
    for round in 0..rounds {
        let whole = round % 2 == 1;
        let mut bytes = if whole { file.clone() } else { stream.clone() };
        for _ in 0..1 + rng.next_u64() % 4 {
            let at = (rng.next_u64() % bytes.len() as u64) as usize;
            bytes[at] = rng.next_u64() as u8;
        }
        if rng.next_u64().is_multiple_of(8) {
            let cut = (rng.next_u64() % bytes.len() as u64) as usize;
            bytes.truncate(cut);
        }
        if !whole {
            bytes = sheetstream::fuzzing::xls_from_stream(&bytes);
        }
        sheetstream::fuzzing::read_whole_workbook(&bytes);
        // The common cells' one-length-check path reads what the
        // field-by-field one reads.
        sheetstream::fuzzing::read_both_ways(&bytes);
    }
}

#[test]
fn a_dialog_sheet_gives_no_cells() {
    let mut dialog = record(0x0081, &[0x10, 0x04]);
    dialog.extend(xls::number(0, 0, 0, 1.0));
    let mut book = Book::new();
    book.sheet("Dialog", dialog);
    book.sheet("Data", xls::number(0, 0, 0, 2.0));
    assert_eq!(cells(book.bytes()), ["Data!A1 n 2.0"]);
    let workbook = Workbook::from_bytes(book.bytes()).unwrap();
    let kinds: Vec<SheetKind> = workbook.sheets().iter().map(|s| s.kind()).collect();
    assert_eq!(kinds, [SheetKind::Dialogsheet, SheetKind::Worksheet]);
}

#[test]
fn an_offset_into_another_sheet_is_found_again_by_position() {
    // The second sheet's offset points into the middle of the first
    // sheet's substream (no BOF there): the second substream is read.
    let mut book = Book::new();
    let mut first = Vec::new();
    for row in 0..10 {
        first.extend(xls::number(row, 0, 0, f64::from(row)));
    }
    book.sheet("A", first);
    book.sheet("B", xls::number(0, 1, 0, 99.0));
    let mut stream = book.stream();
    let boundsheets: Vec<usize> = stream
        .windows(2)
        .enumerate()
        .filter(|(_, w)| *w == xls::BOUNDSHEET.to_le_bytes())
        .map(|(i, _)| i)
        .collect();
    let (a, b) = (boundsheets[0], boundsheets[1]);
    let first_offset = u32::from_le_bytes(stream[a + 4..a + 8].try_into().unwrap());
    stream[b + 4..b + 8].copy_from_slice(&(first_offset + 40).to_le_bytes());
    let lines = cells(xls::compound(&[("Workbook", &stream)]));
    assert_eq!(lines.len(), 11);
    assert_eq!(lines[10], "B!B1 n 99.0");
}

#[test]
fn many_sheets_read_through_one_compound_file() {
    // 3,000 sheets: the compound file's FAT and directory are read once
    // per container (not once per sheet, which made this quadratic).
    let mut book = Book::new();
    for sheet in 0..3_000u16 {
        book.sheet(
            &format!("S{sheet}"),
            xls::number(sheet % 100, 0, 0, f64::from(sheet)),
        );
    }
    let bytes = book.bytes();
    let start = std::time::Instant::now();
    assert_eq!(cells(bytes.clone()).len(), 3_000);
    let workbook = Workbook::from_bytes(bytes).unwrap();
    let sheets = workbook.load_all().unwrap();
    assert_eq!(sheets.iter().map(|s| s.cell_count()).sum::<usize>(), 3_000);
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
}

/// UTF-16LE with a terminating NUL.
fn utf16z(text: &str) -> Vec<u8> {
    text.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

/// An HLINK record on B3 (a URL, a location and display text) and its
/// HLINKTOOLTIP.
fn hyperlink_records() -> Vec<u8> {
    let mut link = Vec::new();
    for word in [2u16, 2, 1, 1] {
        link.extend_from_slice(&word.to_le_bytes());
    }
    link.extend_from_slice(&[
        0xD0, 0xC9, 0xEA, 0x79, 0xF9, 0xBA, 0xCE, 0x11, 0x8C, 0x82, 0, 0xAA, 0, 0x4B, 0xA9, 0x0B,
    ]);
    link.extend_from_slice(&2u32.to_le_bytes());
    link.extend_from_slice(&(0x01u32 | 0x02 | 0x08 | 0x10).to_le_bytes());
    let display = utf16z("the site");
    link.extend_from_slice(&((display.len() / 2) as u32).to_le_bytes());
    link.extend(display);
    link.extend_from_slice(&[
        0xE0, 0xC9, 0xEA, 0x79, 0xF9, 0xBA, 0xCE, 0x11, 0x8C, 0x82, 0, 0xAA, 0, 0x4B, 0xA9, 0x0B,
    ]);
    let url = utf16z("https://example.com/ä");
    link.extend_from_slice(&(url.len() as u32).to_le_bytes());
    link.extend(url);
    let location = utf16z("top");
    link.extend_from_slice(&((location.len() / 2) as u32).to_le_bytes());
    link.extend(location);
    let mut sheet = record(0x01B8, &link);
    let mut tooltip = 0x0800u16.to_le_bytes().to_vec();
    for word in [2u16, 2, 1, 1] {
        tooltip.extend_from_slice(&word.to_le_bytes());
    }
    tooltip.extend(utf16z("Go there"));
    sheet.extend(record(0x0800, &tooltip));
    sheet
}

#[test]
fn hyperlinks_come_from_hlink_records() {
    let mut sheet = hyperlink_records();
    sheet.extend(xls::label(2, 1, 0, "the site"));
    let mut book = Book::new();
    book.sheet("Links", sheet);
    let mut workbook = Workbook::from_bytes(book.bytes()).unwrap();
    let links = workbook.sheet_metadata(0).unwrap().hyperlinks;
    assert_eq!(links.len(), 1);
    assert_eq!(links[0].range.to_string(), "B3");
    assert_eq!(links[0].target.as_deref(), Some("https://example.com/ä"));
    assert_eq!(links[0].location.as_deref(), Some("top"));
    assert_eq!(links[0].display.as_deref(), Some("the site"));
    assert_eq!(links[0].tooltip.as_deref(), Some("Go there"));
}

#[test]
fn the_same_data_as_xls_and_xlsx_dumps_the_same() {
    use rust_xlsxwriter::{Format, Formula, Workbook as XlsxWorkbook};
    // Written once by the tests' BIFF writer and once by rust_xlsxwriter.
    let mut book = Book::new();
    book.tail = xls::sst(&["shared", "Grüße 世界"], 2, 8224, false);
    let mut sheet = Vec::new();
    sheet.extend(xls::number(0, 0, 0, 1.5));
    sheet.extend(xls::rk(0, 1, 0, xls::rk_int(-42, false)));
    sheet.extend(xls::label_sst(0, 2, 0, 0));
    sheet.extend(xls::label_sst(1, 0, 0, 1));
    sheet.extend(xls::boolerr(1, 1, 0, 1, false));
    sheet.extend(xls::number(1, 2, 1, 45_123.0));
    sheet.extend(xls::number(2, 0, 2, 0.75));
    sheet.extend(xls::formula_string(2, 1, 0, "made"));
    sheet.extend(xls::formula_number(2, 2, 0, 7.0));
    sheet.extend(xls::boolerr(3, 0, 0, 0x07, true));
    book.sheet("Data", sheet);
    book.sheet("Empty", Vec::new());

    let mut xlsx = XlsxWorkbook::new();
    let data = xlsx.add_worksheet().set_name("Data").unwrap();
    data.write_number(0, 0, 1.5).unwrap();
    data.write_number(0, 1, -42.0).unwrap();
    data.write_string(0, 2, "shared").unwrap();
    data.write_string(1, 0, "Grüße 世界").unwrap();
    data.write_boolean(1, 1, true).unwrap();
    data.write_number_with_format(1, 2, 45_123.0, &Format::new().set_num_format("mm-dd-yy"))
        .unwrap();
    data.write_number_with_format(2, 0, 0.75, &Format::new().set_num_format("h:mm:ss"))
        .unwrap();
    data.write_formula(2, 1, Formula::new("=\"made\"").set_result("made"))
        .unwrap();
    data.write_formula(2, 2, Formula::new("=3+4").set_result("7"))
        .unwrap();
    data.write_formula(3, 0, Formula::new("=1/0").set_result("#DIV/0!"))
        .unwrap();
    xlsx.add_worksheet().set_name("Empty").unwrap();
    let xlsx_bytes = xlsx.save_to_buffer().unwrap();

    let mut from_xlsx = Workbook::from_bytes(xlsx_bytes).unwrap();
    let mut from_xls = Workbook::from_bytes(book.bytes()).unwrap();
    assert_eq!(from_xlsx.file_format(), FileFormat::Xlsx);
    assert_eq!(
        library_dump(&mut from_xls).unwrap(),
        library_dump(&mut from_xlsx).unwrap()
    );
}

#[test]
fn an_xls_workbook_has_no_tables_in_what_is_read() {
    let mut workbook = sheetstream::Workbook::from_bytes(every_value_kind()).unwrap();
    assert!(workbook.tables().unwrap().is_empty());
}

#[test]
fn the_dimension_is_read_before_the_rows_only() {
    let dimensions = |last_row: u32| {
        let mut data = Vec::new();
        data.extend_from_slice(&0u32.to_le_bytes());
        data.extend_from_slice(&last_row.to_le_bytes());
        data.extend_from_slice(&0u16.to_le_bytes());
        data.extend_from_slice(&2u16.to_le_bytes());
        data.extend_from_slice(&0u16.to_le_bytes());
        record(xls::DIMENSIONS, &data)
    };
    let mut book = Book::new();
    let mut before = dimensions(3);
    before.extend(xls::number(0, 0, 0, 1.0));
    book.sheet("Before", before);
    // A DIMENSIONS record after the first cell is no sheet's dimension:
    // the reader stops at the first cell and does not scan the sheet.
    let mut after = xls::number(0, 0, 0, 1.0);
    after.extend(dimensions(7));
    book.sheet("After", after);
    let mut workbook = Workbook::from_bytes(book.bytes()).unwrap();
    assert_eq!(
        workbook
            .sheet_dimension(0)
            .unwrap()
            .map(|range| range.to_string()),
        Some("A1:B3".to_owned())
    );
    assert_eq!(workbook.sheet_dimension(1).unwrap(), None);
}

/// A workbook stream whose sectors are scattered: written a piece at a
/// time, each piece followed by a piece of another stream.
fn scattered_compound(workbook: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut file =
        cfb::CompoundFile::create_with_version(cfb::Version::V3, Cursor::new(Vec::new())).unwrap();
    let mut junk_written = 0;
    for piece in workbook.chunks(1536) {
        {
            let mut stream = if file.exists("/Workbook") {
                file.open_stream("/Workbook").unwrap()
            } else {
                file.create_stream("/Workbook").unwrap()
            };
            std::io::Seek::seek(&mut stream, std::io::SeekFrom::End(0)).unwrap();
            stream.write_all(piece).unwrap();
            stream.flush().unwrap();
        }
        let mut junk = if junk_written == 0 {
            file.create_stream("/Junk").unwrap()
        } else {
            file.open_stream("/Junk").unwrap()
        };
        std::io::Seek::seek(&mut junk, std::io::SeekFrom::End(0)).unwrap();
        junk.write_all(&[0x5A; 700]).unwrap();
        junk.flush().unwrap();
        junk_written += 700;
    }
    file.flush().unwrap();
    file.into_inner().into_inner()
}

#[test]
fn a_workbook_stream_in_scattered_sectors_reads_as_a_contiguous_one() {
    let mut book = Book::new();
    for sheet in 0..3u16 {
        let mut records = Vec::new();
        for row in 0..400u16 {
            records.extend(xls::number(
                row,
                0,
                0,
                f64::from(row) + f64::from(sheet) / 4.0,
            ));
            records.extend(xls::label(row, 1, 0, &format!("sheet {sheet} row {row}")));
        }
        book.sheet(&format!("S{sheet}"), records);
    }
    let stream = book.stream();
    let expected = cells(book.bytes());
    assert_eq!(expected.len(), 3 * 400 * 2);
    let scattered = scattered_compound(&stream);
    // The chain really is scattered: the stream is nowhere in one piece.
    assert!(stream.len() > 8192);
    assert!(
        !scattered
            .windows(stream.len())
            .any(|window| window == stream.as_slice())
    );
    assert_eq!(cells(scattered.clone()), expected);
    // Each parallel worker reads through the same map with its own reader.
    let workbook = Workbook::from_bytes(scattered).unwrap();
    let mut parallel = 0;
    for sheet in workbook.load_all().unwrap() {
        parallel += sheet.cell_count();
    }
    assert_eq!(parallel, expected.len());
}

#[test]
fn a_workbook_stream_longer_than_its_chain_reads_what_its_sheets_hold() {
    let mut book = Book::new();
    let mut records = Vec::new();
    for row in 0..400u16 {
        records.extend(xls::number(row, 0, 0, f64::from(row)));
    }
    book.sheet("Data", records);
    let mut bytes = book.bytes();
    let expected = cells(bytes.clone());
    // The directory entry of the Workbook stream says it is 1 MiB longer.
    let name: Vec<u8> = "Workbook"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let entry = bytes
        .windows(name.len())
        .position(|window| window == name.as_slice())
        .expect("the directory entry");
    let size_at = entry + 0x78;
    let size = u32::from_le_bytes(bytes[size_at..size_at + 4].try_into().unwrap());
    bytes[size_at..size_at + 4].copy_from_slice(&(size + (1 << 20)).to_le_bytes());
    // Each sheet ends at its EOF, inside the chain: nothing past it is read.
    assert_eq!(cells(bytes), expected);
    assert_eq!(expected.len(), 400);
}

/// A reader that counts the bytes read through it and its clones.
#[derive(Clone)]
struct Counting {
    inner: Cursor<std::sync::Arc<[u8]>>,
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl std::io::Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.read
            .fetch_add(read as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(read)
    }
}

impl std::io::Seek for Counting {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[test]
fn parallel_workers_read_the_sheets_not_the_compound_file_again() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let mut book = Book::new();
    for sheet in 0..4u16 {
        let mut records = Vec::new();
        for row in 0..6000u16 {
            records.extend(xls::number(row, 0, 0, f64::from(row)));
            records.extend(xls::number(row, 1, 0, f64::from(sheet)));
        }
        book.sheet(&format!("S{sheet}"), records);
    }
    let stream_len = book.stream().len() as u64;
    let read = std::sync::Arc::new(AtomicU64::new(0));
    let reader = Counting {
        inner: Cursor::new(std::sync::Arc::from(book.bytes())),
        read: std::sync::Arc::clone(&read),
    };
    let workbook = Workbook::from_reader(reader).unwrap();
    let at_open = read.swap(0, Ordering::Relaxed);
    let cells = AtomicU64::new(0);
    workbook
        .parallel()
        .threads(2)
        .for_each_row(|| {
            |_: &sheetstream::SheetInfo, row: sheetstream::Row<'_>| {
                cells.fetch_add(row.cells().len() as u64, Ordering::Relaxed);
            }
        })
        .unwrap();
    assert_eq!(cells.into_inner(), 4 * 6000 * 2);
    let reading = read.load(Ordering::Relaxed);
    assert!(at_open > 0);
    // The sheets' bytes (the stream but its globals), nothing past a
    // sheet's end and nothing of the FAT or directory again (a worker that
    // opened the compound file again read its FAT, some 8 KiB here).
    assert!(
        reading <= stream_len,
        "read {reading} of a {stream_len}-byte stream"
    );
}

/// Comments: NOTE records (cell, object id, author) and their text from
/// the note object's TXO and the CONTINUE records after it (Latin-1 and
/// UTF-16 pieces joined; the formatting runs after them are no text).
#[test]
fn comments_come_from_note_records_and_their_text_objects() {
    let mut sheet = xls::number(0, 0, 0, 1.0);
    sheet.extend(xls::note_object(1, 9, &["Plain"]));
    // A note whose text switches to UTF-16 in its second CONTINUE.
    sheet.extend(xls::note_object(2, 7, &["Été ", "✈ ok"]));
    sheet.extend(xls::note(0, 0, 2, "Zoë"));
    sheet.extend(xls::note(3, 2, 1, ""));
    let mut book = Book::new();
    book.sheet("Data", sheet.clone());
    let err = Workbook::from_bytes(book.bytes())
        .unwrap()
        .sheet_metadata(0)
        .unwrap_err();
    // "Plain" is 5 characters, the TXO says 9: the next record (OBJ) is
    // no CONTINUE.
    assert!(matches!(err.kind(), ErrorKind::Xls(_)), "{err}");
    assert!(err.to_string().contains("says 9 characters"), "{err}");
    assert!(err.to_string().contains("hold 5"), "{err}");
    assert_eq!(err.location().sheet.as_deref(), Some("Data"));
    assert!(err.location().offset.is_some(), "{err}");

    let mut sheet = xls::number(0, 0, 0, 1.0);
    sheet.extend(xls::note_object(1, 5, &["Plain"]));
    sheet.extend(xls::note_object(2, 8, &["Été ", "✈ ok"]));
    sheet.extend(xls::note(0, 0, 2, "Zoë"));
    sheet.extend(xls::note(3, 2, 1, ""));
    let mut book = Book::new();
    book.sheet("Data", sheet);
    let metadata = Workbook::from_bytes(book.bytes())
        .unwrap()
        .sheet_metadata(0)
        .unwrap();
    let comments: Vec<_> = metadata
        .comments
        .iter()
        .map(|c| (c.cell.to_string(), c.author.clone(), c.text.clone()))
        .collect();
    assert_eq!(
        comments,
        [
            (
                "A1".to_owned(),
                Some("Zoë".to_owned()),
                "Été ✈ ok".to_owned()
            ),
            ("C4".to_owned(), None, "Plain".to_owned()),
        ]
    );

    // The sheet ends before the text does (its CONTINUE missing).
    let mut sheet = xls::number(0, 0, 0, 1.0);
    let mut object = xls::note_object(1, 5, &[]);
    object.truncate(object.len() - 20);
    sheet.extend(object);
    let mut book = Book::new();
    book.sheet("Data", sheet);
    let err = Workbook::from_bytes(book.bytes())
        .unwrap()
        .sheet_metadata(0)
        .unwrap_err();
    assert!(err.to_string().contains("says 5 characters"), "{err}");
    assert!(err.to_string().contains("hold 0"), "{err}");
    assert_eq!(err.location().sheet.as_deref(), Some("Data"));

    // A CONTINUE chain far longer than the TXO says is refused as it
    // grows, not gathered.
    let mut sheet = xls::number(0, 0, 0, 1.0);
    sheet.extend(xls::note_object(1, 2, &["ab"; 5000]));
    let mut book = Book::new();
    book.sheet("Data", sheet);
    let err = Workbook::from_bytes(book.bytes())
        .unwrap()
        .sheet_metadata(0)
        .unwrap_err();
    assert!(
        err.to_string().contains("hold more than its 2 characters"),
        "{err}"
    );
}

/// Real `.xls` comments from the binary corpus, BIFF8 and BIFF5, against
/// the same workbooks as `.xlsx` where the corpus has them.
#[test]
fn corpus_xls_comments_match_their_xlsx() {
    let binary = std::path::Path::new("../shared/conformance/corpus-binary");
    let corpus = std::path::Path::new("../shared/conformance/corpus");
    if !binary.is_dir() || !corpus.is_dir() {
        crate::common::skip_notice(
            "corpus_xls_comments_match_their_xlsx",
            "../shared/conformance/corpus-binary",
        );
        return;
    }
    let comments = |path: std::path::PathBuf, sheet: usize| {
        let mut workbook = Workbook::open(&path).unwrap();
        let mut comments: Vec<_> = workbook
            .sheet_metadata(sheet)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
            .comments
            .into_iter()
            .map(|c| (c.cell.to_string(), c.text))
            .collect();
        comments.sort();
        comments
    };
    for (xls, xlsx) in [
        ("poi/SimpleWithComments.xls", "poi/SimpleWithComments.xlsx"),
        ("roo_xls/comments.xls", "roo/comments.xlsx"),
    ] {
        let from_xls = comments(binary.join(xls), 0);
        assert!(!from_xls.is_empty(), "{xls}");
        assert_eq!(from_xls, comments(corpus.join(xlsx), 0), "{xls}");
    }
    let mut workbook = Workbook::open(binary.join("poi/SimpleWithComments.xls")).unwrap();
    let first = &workbook.sheet_metadata(0).unwrap().comments[0];
    assert_eq!(first.cell.to_string(), "B1");
    assert_eq!(first.author.as_deref(), Some("Yegor Kozlov"));
    assert_eq!(first.text, "Yegor Kozlov:\nfirst cell");
    // BIFF5: the text in the NOTE records themselves, no author.
    let biff5 = comments(binary.join("sheetjs/biff5__comments_stress_test.xls"), 0);
    assert_eq!(biff5.len(), 10);
    assert!(biff5.contains(&(
        "B2".to_owned(),
        "Colors come in three:\nARR\nGEE\nBEE".to_owned()
    )));
}

/// The INDEX/DBCELL tests read the process-wide count of blocks read in
/// parallel: one at a time.
pub(crate) static BLOCK_COUNTER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A sheet of `rows` rows in blocks of 32 with INDEX and DBCELL records:
/// numbers, shared strings, labels, RK numbers, booleans and errors; the
/// rows `hidden` says hidden, those `empty` says without cells (hidden
/// ones among them handed out empty). `shift` moves every INDEX offset.
/// `back`: the block at that position names rows of the block before.
fn indexed_hidden(row: u16) -> bool {
    row % 9 == 4 || (100..=104).contains(&row) || row % 32 == 31
}

fn indexed_empty(row: u16) -> bool {
    row % 13 == 5 || (100..=104).contains(&row) || row % 64 == 63
}

fn indexed_book(rows: u16, shift: i64, back: Option<usize>) -> Vec<u8> {
    let (hidden, empty) = (indexed_hidden, indexed_empty);
    let mut blocks = Vec::new();
    for first in (0..rows).step_by(32) {
        let last = (first + 32).min(rows);
        let (mut row_records, mut cells) = (Vec::new(), Vec::new());
        for row in first..last {
            let row = match back {
                Some(block) if usize::from(first / 32) == block => row - 20,
                _ => row,
            };
            row_records.extend(xls::row_record(row, hidden(row)));
            if empty(row) {
                continue;
            }
            cells.extend(xls::number(row, 0, 0, f64::from(row) * 1.25));
            cells.extend(xls::label_sst(row, 1, 0, u32::from(row % 3)));
            cells.extend(xls::label(row, 2, 0, &format!("label {row}")));
            cells.extend(xls::rk(
                row,
                4,
                1,
                xls::rk_int(40_000 + i32::from(row), false),
            ));
            cells.extend(xls::boolerr(row, 6, 0, (row % 2) as u8, false));
            if row % 11 == 0 {
                cells.extend(xls::boolerr(row, 7, 0, 0x07, true));
            }
        }
        blocks.push((row_records, cells));
    }
    let mut book = Book::new();
    book.tail = xls::sst(&["alpha", "beta", "gamma"], 3, 8224, false);
    book.sheet("Data", xls::indexed_records(&blocks, &[], shift));
    book.bytes()
}

/// Every row event as a line (index, hidden, cells).
fn row_line(row: &sheetstream::Row<'_>) -> String {
    let cells: Vec<String> = row
        .cells()
        .iter()
        .map(|cell| format!("{}={:?}", cell.column(), cell.value()))
        .collect();
    format!("{} {} {}", row.index(), row.is_hidden(), cells.join(" "))
}

/// The rows of the lone sheet read serially and by the parallel reader
/// on 4 threads (its blocks in parallel where INDEX allows), with a
/// column selection and a last row; and how many blocks were read in
/// parallel.
fn serial_and_parallel(
    bytes: &[u8],
    columns: Option<ColumnSet>,
    last: Option<u32>,
) -> (Vec<String>, Vec<String>, u64) {
    let mut workbook = Workbook::from_bytes(bytes.to_vec()).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    rows.select_columns(columns.clone());
    rows.stop_after_row(last);
    let mut serial = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        serial.push(row_line(&row));
    }
    let workbook = Workbook::from_bytes(bytes.to_vec()).unwrap();
    let before = sheetstream::fuzzing::xls_blocks_read();
    let found = std::sync::Mutex::new(Vec::new());
    let mut parallel = workbook.parallel().threads(4);
    if let Some(columns) = columns {
        parallel = parallel.select_columns(columns);
    }
    parallel
        .for_each_sheet(|| {
            |_sheet: &sheetstream::SheetInfo,
             rows: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                let mut rows = rows?;
                rows.stop_after_row(last);
                while let Some(row) = rows.next_row()? {
                    found.lock().unwrap().push(row_line(&row));
                }
                Ok(true)
            }
        })
        .unwrap();
    let read = sheetstream::fuzzing::xls_blocks_read() - before;
    (serial, found.into_inner().unwrap(), read)
}

#[test]
fn indexed_sheet_is_read_in_parallel_blocks_as_serially() {
    let _one = BLOCK_COUNTER.lock().unwrap_or_else(|p| p.into_inner());
    let bytes = indexed_book(2000, 0, None);
    let (serial, parallel, read) = serial_and_parallel(&bytes, None, None);
    let expected = (0..2000u16)
        .filter(|&row| !indexed_empty(row) || indexed_hidden(row))
        .count();
    assert_eq!(serial.len(), expected);
    assert_eq!(parallel, serial);
    // 63 blocks, the records before the first and the last block's rest.
    assert!(read >= 60, "{read} blocks read in parallel");
    // Hidden rows without cells are handed out, empty, in order; one that
    // ends a block (row 63 and 127 have no cells) too.
    assert!(serial.contains(&"63 true ".to_owned()));
    assert!(serial.contains(&"102 true ".to_owned()));
    assert!(
        serial[0].starts_with("0 false 0=Number(0.0) 1=Text(\"alpha\")"),
        "{}",
        serial[0]
    );
    // A column selection, and a last row.
    let columns: ColumnSet = [1, 6].into_iter().collect();
    let (serial, parallel, read) = serial_and_parallel(&bytes, Some(columns), Some(700));
    assert_eq!(parallel, serial);
    assert!(serial.last().unwrap().starts_with("700 "));
    assert!(read > 0);
}

#[test]
fn indexed_sheet_with_damaged_index_is_read_serially() {
    let _one = BLOCK_COUNTER.lock().unwrap_or_else(|p| p.into_inner());
    let good = serial_and_parallel(&indexed_book(600, 0, None), None, None).0;
    // INDEX offsets that miss their DBCELLs: decided before any work.
    let (serial, parallel, read) = serial_and_parallel(&indexed_book(600, 3, None), None, None);
    assert_eq!(read, 0);
    assert_eq!(parallel, serial);
    assert_eq!(serial, good);
    // A block whose rows go back into the block before: found when its
    // turn comes, the rest read serially from where the blocks stopped.
    let (serial, parallel, read) = serial_and_parallel(&indexed_book(600, 0, Some(5)), None, None);
    assert!(read > 0);
    assert_eq!(parallel, serial);
    assert!(serial.iter().any(|line| line.starts_with("140 ")));
}

#[test]
fn indexed_sheet_read_in_part_stops_its_workers() {
    let _one = BLOCK_COUNTER.lock().unwrap_or_else(|p| p.into_inner());
    let workbook = Workbook::from_bytes(indexed_book(3000, 0, None)).unwrap();
    let taken = std::sync::Mutex::new(Vec::new());
    // Returns (the workers stopped) after ten rows of a sheet of 94 blocks.
    workbook
        .parallel()
        .threads(4)
        .for_each_sheet(|| {
            |_sheet: &sheetstream::SheetInfo,
             rows: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                let mut rows = rows?;
                while let Some(row) = rows.next_row()? {
                    let mut taken = taken.lock().unwrap();
                    taken.push(row.index());
                    if taken.len() == 10 {
                        break;
                    }
                }
                Ok(true)
            }
        })
        .unwrap();
    assert_eq!(taken.into_inner().unwrap(), [0, 1, 2, 3, 4, 6, 7, 8, 9, 10]);
}

/// The corpus's `.xls` files of 100 KB and more (those with blocks enough
/// to be read in parallel): every worksheet's rows read serially and by
/// the parallel reader on 4 threads are the same, and some were read in
/// blocks. Skipped without `../shared/conformance/corpus-binary`.
#[test]
fn corpus_xls_sheets_read_in_blocks_as_serially() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance/corpus-binary");
    if !root.is_dir() {
        println!("skipping: ../shared/conformance/corpus-binary not found");
        return;
    }
    let _one = BLOCK_COUNTER.lock().unwrap_or_else(|p| p.into_inner());
    let mut files = Vec::new();
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "xls")
                && std::fs::metadata(&path).unwrap().len() >= 100_000
            {
                files.push(path);
            }
        }
    }
    let before = sheetstream::fuzzing::xls_blocks_read();
    let mut compared = 0;
    for path in &files {
        let Ok(mut workbook) = Workbook::open(path) else {
            continue;
        };
        let worksheets: Vec<usize> = (0..workbook.sheets().len())
            .filter(|&at| workbook.sheets()[at].kind() == SheetKind::Worksheet)
            .collect();
        for position in worksheets {
            let mut serial = Vec::new();
            let serial_end = match workbook.rows(position) {
                Ok(mut rows) => loop {
                    match rows.next_row() {
                        Ok(Some(row)) => serial.push(row_line(&row)),
                        Ok(None) => break None,
                        Err(err) => break Some(err.to_string()),
                    }
                },
                Err(err) => Some(err.to_string()),
            };
            let found = std::sync::Mutex::new((Vec::new(), None));
            let _ = workbook
                .parallel()
                .threads(4)
                .sheets([position])
                .unwrap()
                .for_each_sheet(|| {
                    |_sheet: &sheetstream::SheetInfo,
                     rows: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                        let mut found = found.lock().unwrap();
                        let mut rows = match rows {
                            Ok(rows) => rows,
                            Err(err) => {
                                found.1 = Some(err.to_string());
                                return Ok(true);
                            }
                        };
                        loop {
                            match rows.next_row() {
                                Ok(Some(row)) => found.0.push(row_line(&row)),
                                Ok(None) => break,
                                Err(err) => {
                                    found.1 = Some(err.to_string());
                                    break;
                                }
                            }
                        }
                        Ok(true)
                    }
                });
            let (parallel, parallel_end) = found.into_inner().unwrap();
            assert_eq!(parallel, serial, "{} sheet {position}", path.display());
            assert_eq!(
                parallel_end,
                serial_end,
                "{} sheet {position}",
                path.display()
            );
            compared += 1;
        }
    }
    let read = sheetstream::fuzzing::xls_blocks_read() - before;
    assert!(compared > 10, "{compared} sheets compared");
    assert!(read > 100, "{read} blocks read in parallel");
}

/// The lone sheet's rows (consecutive events of one row joined: a row
/// split by a lying DBCELL comes as two events, see ARCHITECTURE) and
/// its error, read serially or on `threads` threads; None when the
/// workbook does not open.
fn rows_or_error(bytes: &[u8], threads: Option<usize>) -> Option<(Vec<String>, Option<String>)> {
    let workbook = Workbook::from_bytes(bytes.to_vec()).ok();
    let (events, error) = match threads {
        None => {
            let mut workbook = workbook?;
            let mut rows = workbook.rows(0).ok()?;
            let mut events = Vec::new();
            loop {
                match rows.next_row() {
                    Ok(Some(row)) => events.push((row.index(), row_line(&row))),
                    Ok(None) => break (events, None),
                    Err(err) => break (events, Some(err.to_string())),
                }
            }
        }
        Some(threads) => {
            let found = std::sync::Mutex::new(Vec::new());
            let result = workbook?.parallel().threads(threads).for_each_row(|| {
                |_: &sheetstream::SheetInfo, row: sheetstream::Row<'_>| {
                    found.lock().unwrap().push((row.index(), row_line(&row)));
                }
            });
            (
                found.into_inner().unwrap(),
                result.err().map(|err| err.to_string()),
            )
        }
    };
    let mut lines: Vec<(u32, String)> = Vec::new();
    for (index, line) in events {
        match lines.last_mut() {
            Some((last, joined)) if *last == index => {
                let cells = line.splitn(3, ' ').nth(2).unwrap_or_default();
                if !cells.is_empty() {
                    joined.push(' ');
                    joined.push_str(cells);
                }
            }
            _ => lines.push((index, line)),
        }
    }
    Some((lines.into_iter().map(|(_, line)| line).collect(), error))
}

#[test]
fn hostile_bytes_in_an_indexed_sheet_read_in_blocks_as_serially() {
    // Bytes of an indexed sheet overwritten at random (a fixed seed:
    // INDEX, DBCELL, ROW and cell records alike): the block reader gives
    // the serial reader's rows and error, or the workbook does not open.
    let _one = BLOCK_COUNTER.lock().unwrap_or_else(|p| p.into_inner());
    let good = indexed_book(400, 0, None);
    let before = sheetstream::fuzzing::xls_blocks_read();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut compared, mut failed, mut block_end_differences) = (0, 0, 0);
    for _ in 0..1500 {
        let mut bytes = good.clone();
        // The Workbook stream starts at the second sector of the
        // tests' compound files; mutate past the globals.
        let span = bytes.len() - 2048;
        for _ in 0..1 + next() % 4 {
            let at = 2048 + (next() % span as u64) as usize;
            bytes[at] = next() as u8;
        }
        let Some(serial) = rows_or_error(&bytes, None) else {
            continue;
        };
        let parallel = rows_or_error(&bytes, Some(4)).expect("opened serially");
        assert_eq!(parallel.1, serial.1, "the errors differ");
        // A damaged file may differ in the last row of a block, which its
        // DBCELL ends: the block reader hands it out complete, as its own
        // block says; the serial reader, still waiting for the row's end,
        // drops it with an error met in the next block, or takes its
        // hidden flag from a ROW record there.
        if parallel.0 != serial.0 {
            let dropped = serial.1.is_some()
                && parallel.0.len() == serial.0.len() + 1
                && parallel.0.starts_with(&serial.0);
            // Each line without its hidden flag: "index hidden cells".
            let without_flag = |line: &str| {
                let mut parts = line.splitn(3, ' ');
                let index = parts.next().map(str::to_owned);
                parts.next();
                (index, parts.next().map(str::to_owned))
            };
            let differing: Vec<(&String, &String)> = parallel
                .0
                .iter()
                .zip(&serial.0)
                .filter(|(a, b)| a != b)
                .collect();
            let hidden_flag = parallel.0.len() == serial.0.len()
                && differing.len() == 1
                && without_flag(differing[0].0) == without_flag(differing[0].1);
            if !(dropped || hidden_flag) {
                let short = |line: Option<&String>| {
                    line.map(|line| line.chars().take(60).collect::<String>())
                };
                let diffs: Vec<String> = (0..serial.0.len().max(parallel.0.len()))
                    .filter(|&i| serial.0.get(i) != parallel.0.get(i))
                    .take(3)
                    .map(|i| {
                        format!(
                            "at {i}: serial {:?}, in blocks {:?}",
                            short(serial.0.get(i)),
                            short(parallel.0.get(i))
                        )
                    })
                    .collect();
                panic!(
                    "the rows differ beyond a block's last row ({} and {} rows, error {:?}): {}",
                    serial.0.len(),
                    parallel.0.len(),
                    serial.1,
                    diffs.join("; ")
                );
            }
            block_end_differences += 1;
        }
        compared += 1;
        failed += usize::from(serial.1.is_some());
    }
    assert!(compared > 200, "{compared} workbooks compared");
    assert!(failed > 0, "no mutation made an error");
    assert!(
        block_end_differences * 20 < compared,
        "{block_end_differences} of {compared} differ in a block's last row"
    );
    assert!(sheetstream::fuzzing::xls_blocks_read() > before + 1000);
}

/// A reader that counts how often each 512-byte sector of the file is
/// read from.
struct SectorReads {
    inner: Cursor<Vec<u8>>,
    reads: std::rc::Rc<std::cell::RefCell<Vec<u32>>>,
}

impl std::io::Read for SectorReads {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let from = self.inner.position();
        let read = self.inner.read(buf)?;
        let mut reads = self.reads.borrow_mut();
        for sector in from / 512..(from + read as u64).div_ceil(512) {
            reads[sector as usize] += 1;
        }
        Ok(read)
    }
}

impl std::io::Seek for SectorReads {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[test]
fn opening_reads_each_fat_sector_once() {
    // A sheet of 6,000 rows: a workbook stream of about 200 KiB, whose
    // FAT takes several sectors.
    let mut book = Book::new();
    let mut records = Vec::new();
    for row in 0..6_000u16 {
        records.extend(xls::number(row, 0, 0, f64::from(row)));
        records.extend(xls::label(row, 1, 0, "some text"));
    }
    book.sheet("S", records);
    let bytes = book.bytes();
    let long = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let fat_sectors: Vec<u32> = (0..long(0x2C) as usize)
        .map(|index| long(0x4C + 4 * index))
        .collect();
    assert!(fat_sectors.len() >= 3, "{fat_sectors:?}");
    let reads = std::rc::Rc::new(std::cell::RefCell::new(vec![0u32; bytes.len() / 512]));
    let reader = SectorReads {
        inner: Cursor::new(bytes),
        reads: std::rc::Rc::clone(&reads),
    };
    let mut workbook = Workbook::from_reader(reader).unwrap();
    for &sector in &fat_sectors {
        // Sector `n` lies after the header, at 512 * (n + 1).
        assert_eq!(
            reads.borrow()[sector as usize + 1],
            1,
            "FAT sector {sector}"
        );
    }
    let mut rows = workbook.rows(0).unwrap();
    let mut count = 0;
    while let Some(row) = rows.next_row().unwrap() {
        assert_eq!(row.cells()[0].value(), Value::Number(f64::from(count)));
        count += 1;
    }
    assert_eq!(count, 6_000);
}

/// Every row of every sheet (index, hidden, each cell's reference, style
/// and value) and the error that ended the read, if any: with no column
/// selection, where the common cell records are read straight from the
/// record window with one length check each, or with every column
/// selected, where every record is read field by field.
fn rows_read(bytes: &[u8], every_column: bool, limits: Option<Limits>) -> Vec<String> {
    let mut out = Vec::new();
    let opened = match limits {
        Some(limits) => OpenOptions::new()
            .limits(limits)
            .from_reader(Cursor::new(bytes.to_vec())),
        None => Workbook::from_reader(Cursor::new(bytes.to_vec())),
    };
    let mut workbook = match opened {
        Ok(workbook) => workbook,
        Err(err) => return vec![format!("open: {err}")],
    };
    for sheet in 0..workbook.sheets().len() {
        let mut rows = match workbook.rows(sheet) {
            Ok(rows) => rows,
            Err(err) => {
                out.push(format!("{err} | {:?} | {:?}", err.kind(), err.location()));
                continue;
            }
        };
        if every_column {
            rows.select_columns(Some((0..=16_383).collect()));
        }
        loop {
            match rows.next_row() {
                Ok(Some(row)) => {
                    let mut line = format!("{sheet}:{} hidden={}", row.index(), row.is_hidden());
                    for cell in row.cells() {
                        line.push_str(&format!(
                            " {}/{}={:?}",
                            cell.reference(),
                            cell.style(),
                            cell.value()
                        ));
                    }
                    out.push(line);
                }
                Ok(None) => break,
                Err(err) => {
                    out.push(format!("{err} | {:?} | {:?}", err.kind(), err.location()));
                    break;
                }
            }
        }
    }
    out
}

/// The same rows and error read both ways (see [`rows_read`]).
fn same_both_ways(sheet: &[u8], limits: Option<Limits>) -> Vec<String> {
    let mut book = Book::new();
    book.tail = xls::sst(&["zero", "one"], 2, 8224, false);
    book.sheet("S", sheet.to_vec());
    // A sheet after it: the first one's records end where it begins.
    book.sheet("T", xls::number(0, 0, 0, 9.0));
    let bytes = book.bytes();
    let plain = rows_read(&bytes, false, limits);
    assert_eq!(plain, rows_read(&bytes, true, limits), "{sheet:02X?}");
    plain
}

#[test]
fn common_cells_cut_or_grown_read_as_field_by_field() {
    // Each record the one-length-check loop reads, cut at every length
    // and grown by a byte or two, first in its row and after a cell of
    // its row: the same cells or the same error (kind, message, row,
    // column, offset) as the field-by-field reader.
    let mut latin1 = xls::label(1, 2, 3, "plain");
    latin1[13] = 0xE9;
    let mut shorter = xls::label(1, 2, 0, "cut");
    shorter[10] = 9;
    let records = [
        xls::number(1, 2, 1, 2.5),
        xls::rk(1, 2, 0, xls::rk_int(7, true)),
        xls::rk(1, 2, 2, (2.5f64.to_bits() >> 32) as u32),
        xls::label_sst(1, 2, 0, 1),
        xls::boolerr(1, 2, 0, 1, false),
        xls::boolerr(1, 2, 0, 0x07, true),
        xls::formula_number(1, 2, 1, 4.0),
        xls::formula_bool(1, 2, 0, true),
        xls::formula_error(1, 2, 0, 0x2A),
        xls::formula_empty(1, 2, 0),
        xls::formula_string(1, 2, 0, "text"),
        xls::label(1, 2, 0, "plain"),
        latin1,
        shorter,
        xls::label(1, 2, 0, "Grüße, 世界"),
        xls::label(1, 2, 0, ""),
        xls::blank(1, 2, 0),
        xls::mulrk(
            1,
            2,
            &[(0, xls::rk_int(1, false)), (3, xls::rk_int(5, true))],
        ),
    ];
    for full in records {
        let kind = u16::from_le_bytes([full[0], full[1]]);
        let data = &full[4..];
        for len in 0..=data.len() + 2 {
            let mut body = data[..len.min(data.len())].to_vec();
            body.resize(len, 0);
            let cell = record(kind, &body);
            for first in [false, true] {
                let mut sheet = xls::row_record(1, false);
                sheet.extend(xls::number(0, 0, 0, 1.0));
                if !first {
                    sheet.extend(xls::number(1, 0, 0, 2.0));
                }
                sheet.extend(&cell);
                sheet.extend(xls::number(1, 3, 0, 3.0));
                sheet.extend(xls::number(2, 0, 0, 4.0));
                let rows = same_both_ways(&sheet, None);
                if len == data.len() {
                    // Whole: read to the end, the last cell of row 2 there.
                    assert_eq!(rows.len(), 4, "{kind:#06X}: {rows:?}");
                    assert!(rows[1].contains("D2/0=Number(3.0)"), "{rows:?}");
                }
            }
        }
    }
}

#[test]
fn common_cells_out_of_the_ordinary_read_as_field_by_field() {
    let errors = |rows: &[String]| rows.iter().filter(|row| row.contains(" | ")).count();
    // A column past XFD, a shared string past the SST, error codes BIFF
    // does not define: errors naming the cell, either way.
    for bad in [
        xls::number(1, 16_384, 0, 1.0),
        xls::label_sst(1, 1, 0, 2),
        xls::boolerr(1, 1, 0, 0x99, true),
        xls::formula_error(1, 1, 0, 0x99),
    ] {
        let mut sheet = xls::number(1, 0, 0, 1.0);
        sheet.extend(bad);
        let rows = same_both_ways(&sheet, None);
        assert_eq!(errors(&rows), 1, "{rows:?}");
        assert!(rows[0].contains("row: Some(2)"), "{rows:?}");
    }
    // Hidden rows (their ROW records before the cells, and among them), a
    // row that comes back, a LABEL continued in a CONTINUE record, BIFF
    // strings in a STRING record.
    let mut sheet = xls::row_record(1, true);
    sheet.extend(xls::number(0, 0, 0, 1.0));
    sheet.extend(xls::row_record(3, true));
    sheet.extend(xls::number(2, 0, 0, 2.0));
    sheet.extend(xls::number(4, 0, 0, 3.0));
    sheet.extend(xls::number(2, 1, 0, 4.0));
    let mut split = xls::label(4, 1, 0, "abcdefghij");
    split.truncate(split.len() - 5);
    split[2] -= 5;
    sheet.extend(split);
    sheet.extend(record(xls::CONTINUE, b"\x00fghij"));
    sheet.extend(xls::label(4, 2, 0, "after"));
    sheet.extend(record(xls::CONTINUE, b"\x00ignored"));
    sheet.extend(xls::formula_string(4, 3, 0, "result"));
    sheet.extend(xls::number(4, 4, 0, 5.0));
    let rows = same_both_ways(&sheet, None);
    assert_eq!(
        rows[..6],
        [
            "0:0 hidden=false A1/0=Number(1.0)",
            "0:1 hidden=true",
            "0:2 hidden=false A3/0=Number(2.0)",
            "0:3 hidden=true",
            "0:4 hidden=false A5/0=Number(3.0)",
            "0:2 hidden=false B3/0=Number(4.0)",
        ]
    );
    assert_eq!(
        rows[6],
        "0:4 hidden=false B5/0=Text(\"abcdefghij\") C5/0=Text(\"after\") \
         D5/0=Text(\"result\") E5/0=Number(5.0)"
    );
    // BIFF5 labels are in the code page: not read as Latin-1.
    let mut book = Book::biff5(Some(1251));
    book.sheet("S", xls::label_bytes(0, 0, 0, &[0xCF, b'!']));
    let bytes = book.bytes();
    let rows = rows_read(&bytes, false, None);
    assert_eq!(rows, rows_read(&bytes, true, None));
    assert_eq!(rows, ["0:0 hidden=false A1/0=Text(\"П!\")"]);
}

#[test]
fn a_row_past_its_limits_is_the_same_error_either_way() {
    // More cells in one row than a row event holds.
    let mut sheet = Vec::new();
    for i in 0..16_385u32 {
        sheet.extend(xls::number(0, (i % 16_384) as u16, 0, 1.0));
    }
    let rows = same_both_ways(&sheet, None);
    assert!(rows[0].contains("cells in one row"), "{:?}", rows[0]);
    // More record bytes in one row than the row limit allows.
    let limits = {
        let mut limits = Limits::default();
        limits.max_row_bytes = 1000;
        limits
    };
    let mut sheet = Vec::new();
    for column in 0..60 {
        sheet.extend(xls::label(0, column, 0, &"a".repeat(8000)));
    }
    let rows = same_both_ways(&sheet, Some(limits));
    assert!(rows[0].contains("row or string item size"), "{:?}", rows[0]);
    assert!(rows[0].contains("column: None"), "{:?}", rows[0]);
}

#[test]
fn a_sheet_over_many_windows_reads_the_same_either_way() {
    // Records across the record window's refills (192 KiB), and a
    // sheet whose span ends where the next sheet's BOF begins.
    let mut sheet = Vec::new();
    for row in 0..12_000u16 {
        sheet.extend(xls::row_record(row, row % 1000 == 7));
        sheet.extend(xls::number(row, 0, 1, f64::from(row)));
        sheet.extend(xls::label(row, 1, 0, &"x".repeat(usize::from(row % 40))));
        sheet.extend(xls::label_sst(row, 2, 0, u32::from(row % 2)));
        sheet.extend(xls::boolerr(row, 3, 0, (row % 2) as u8, false));
    }
    let rows = same_both_ways(&sheet, None);
    assert_eq!(rows.len(), 12_001);
    assert_eq!(
        rows[11_999],
        "0:11999 hidden=false A12000/1=DateTime(DateTime { serial: 11999.0, system: V1900, \
         from_text: false, kind: Date }) \
         B12000/0=Text(\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\") C12000/0=Text(\"one\") \
         D12000/0=Bool(true)"
    );
    assert_eq!(rows[12_000], "1:0 hidden=false A1/0=Number(9.0)");
}
