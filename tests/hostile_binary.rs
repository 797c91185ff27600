//! Hostile binary workbooks (issue 46), one kind of shortfall per group of
//! tests, each for every format it applies to: the same rows, values and
//! error on every thread count and path (`common::answers`), and nothing
//! lost or written without a word.
//!
//! 1. `.xls` blocks read in parallel: rows across a block boundary, a
//!    formula's STRING in the next block, the per-row cell limit, a row
//!    whose hidden flag or end lies in the next block, INDEX that lies.
//! 2. NaN and infinity: refused as damaged records, in `.xls` and `.xlsb`,
//!    through every interface; `cells` and `jsonl` print strict JSON.
//! 3. The rectangular CSV bounded by what the sheet holds.
//! 4. Failed output leaves nothing (`csv --all`, `parquet --per-sheet`).
//! 5. A dimension that cannot be read fails no CSV export.
//! 6. Strings shorter than their count: refused at their record.
//! 7. `.xlsb` parts without their closing records: refused.
//! 8. The lazily parsed shared strings keep their limit and checks.
//! 9. Rows that go back: read in file order in all three formats.
//!
//! And the messages: the same on every path, with the same output before
//! them.

use crate::binary_mutations::{
    entries, indexed_xls, package, written_xlsb, xlsb_part, xlsb_records,
};
use crate::common;
use crate::xls::BLOCK_COUNTER;

use std::io::Cursor;
use std::path::Path;

use common::answers::{THREADS, assert_one_answer, rows_parallel, rows_serial};
use common::xls::{self, Book};
use common::{run_bin_args, temp_dir, temp_file};
use sheetstream::{ErrorKind, Limits, OpenOptions, Workbook};

use crate::xlsb::xlsb_writer::{XlsbCell, XlsbWriter};

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_sheetstream"))
}

/// [`assert_one_answer`] with the CLI too.
fn one_answer(bytes: &[u8], label: &str) -> common::answers::Answer {
    let file = temp_file("hostile-binary", bytes);
    assert_one_answer(bytes, label, Some((bin(), &file.0))).expect("the workbook opens")
}

// ---------------------------------------------------------------------------
// 1. The .xls block reader gives the serial reader's answer.

/// `count` blocks of 32 rows: each row a number in A and a label in B.
fn plain_blocks(count: u16) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..count)
        .map(|block| {
            let (mut rows, mut cells) = (Vec::new(), Vec::new());
            for row in block * 32..block * 32 + 32 {
                rows.extend(xls::row_record(row, false));
                cells.extend(xls::number(row, 0, 0, f64::from(row)));
                cells.extend(xls::label(row, 1, 0, &format!("r{row}")));
            }
            (rows, cells)
        })
        .collect()
}

/// The workbook of one indexed sheet of these blocks (INDEX and DBCELL
/// true unless `shift`).
fn indexed(blocks: &[(Vec<u8>, Vec<u8>)], shift: i64) -> Vec<u8> {
    let mut book = Book::new();
    book.sheet("Data", xls::indexed_records(blocks, &[], shift));
    book.bytes()
}

/// The first record of `records` (its bytes) and the rest.
fn split_first_record(records: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let len = 4 + usize::from(u16::from_le_bytes([records[2], records[3]]));
    (records[..len].to_vec(), records[len..].to_vec())
}

/// Runs `check` with the process's block count before, and asserts that
/// blocks were read in parallel meanwhile (the path under test ran).
fn with_blocks_read(check: impl FnOnce()) {
    let _one = BLOCK_COUNTER.lock().unwrap_or_else(|p| p.into_inner());
    let before = sheetstream::fuzzing::xls_blocks_read();
    check();
    assert!(
        sheetstream::fuzzing::xls_blocks_read() > before,
        "no block was read in parallel"
    );
}

#[test]
fn a_row_across_a_block_boundary_is_one_row_on_every_path() {
    // Row 95's label moved after block 3's ROW records: INDEX and DBCELL
    // true, the boundary inside the row. The serial reader's row event
    // runs on over the DBCELL and ROW records: one row, both cells.
    let mut blocks = plain_blocks(8);
    let label = xls::label(95, 1, 0, "r95");
    let at = blocks[2].1.len() - label.len();
    assert_eq!(blocks[2].1[at..], label[..]);
    blocks[2].1.truncate(at);
    blocks[3].1.splice(0..0, label);
    let bytes = indexed(&blocks, 0);
    with_blocks_read(|| {
        let answer = one_answer(&bytes, "row across a boundary");
        assert_eq!(answer.error, None);
        let row: Vec<&String> = answer
            .lines()
            .filter(|line| line.starts_with("95 "))
            .collect();
        assert_eq!(row.len(), 1, "{row:?}");
        assert!(
            row[0].contains("0/0=n") && row[0].contains("1/0=Text(\"r95\")"),
            "{row:?}"
        );
        assert_eq!(answer.lines().count(), 256);
    });
}

#[test]
fn a_row_going_on_over_blocks_without_values_is_one_row_on_every_path() {
    // Row 0's cells in block 0 and in the last block; the blocks between
    // hold ROW and BLANK records only (formatting), which the serial
    // reader reads inside row 0: one row. And a FORMULA's STRING past such
    // blocks is still its value. (Found by the mutation test.)
    let mut blocks: Vec<(Vec<u8>, Vec<u8>)> = (0..8u16)
        .map(|block| {
            let (mut rows, mut cells) = (Vec::new(), Vec::new());
            for row in block * 32..block * 32 + 32 {
                rows.extend(xls::row_record(row, false));
                cells.extend(xls::blank(row, 0, 0));
            }
            (rows, cells)
        })
        .collect();
    blocks[0].1.extend(xls::number(0, 1, 0, 1.0));
    let (formula, string) = split_first_record(&xls::formula_string(0, 2, 0, "late"));
    blocks[0].1.extend(formula);
    blocks[5].1.extend(string);
    blocks[7].1.extend(xls::number(0, 3, 0, 4.0));
    let bytes = indexed(&blocks, 0);
    with_blocks_read(|| {
        let answer = one_answer(&bytes, "a row over blocks without values");
        assert_eq!(answer.error, None);
        let rows: Vec<&String> = answer.lines().collect();
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert!(rows[0].contains("2/0=Text(\"late\")"), "{rows:?}");
        assert!(rows[0].contains("3/0=n"), "{rows:?}");
    });
}

#[test]
fn a_formula_string_in_the_next_block_is_read_on_every_path() {
    // Block 4's last record a FORMULA with a string result, its STRING the
    // first record of block 5 after its ROW records (INDEX and DBCELL
    // true): the cell's text on every thread count.
    let mut blocks = plain_blocks(8);
    let (formula, string) = split_first_record(&xls::formula_string(159, 2, 0, "across"));
    blocks[4].1.extend(formula);
    blocks[5].1.splice(0..0, string);
    let bytes = indexed(&blocks, 0);
    with_blocks_read(|| {
        let answer = one_answer(&bytes, "formula string across a boundary");
        assert_eq!(answer.error, None);
        let row = answer
            .lines()
            .find(|line| line.starts_with("159 "))
            .unwrap();
        assert!(row.contains("2/0=Text(\"across\")"), "{row}");
    });
    // The same STRING damaged (no characters count): the serial reader
    // meets it before row 159 ends, so no path hands row 159 out.
    let mut blocks = plain_blocks(8);
    let (formula, _) = split_first_record(&xls::formula_string(159, 2, 0, "across"));
    blocks[4].1.extend(formula);
    blocks[5].1.splice(0..0, xls::record(xls::STRING, &[]));
    let bytes = indexed(&blocks, 0);
    with_blocks_read(|| {
        let answer = one_answer(&bytes, "damaged formula string across a boundary");
        let error = answer.error.clone().expect("refused");
        assert!(error.contains("shorter than its fields"), "{error}");
        assert!(!answer.lines().any(|line| line.starts_with("159 ")));
        assert_eq!(
            answer.lines().last().unwrap().split(' ').next(),
            Some("158")
        );
    });
}

#[test]
fn a_row_over_the_cell_limit_split_over_two_blocks_is_refused_on_every_path() {
    // Row 127 (block 3's last) holds 9,000 cells in block 3 and 9,000 more
    // after block 4's ROW records: 18,000 cells in one row event on one
    // thread, past the 16,384 a row may hold. Split at the boundary each
    // half was within the limit: the limit could be dodged.
    let many = |row: u16| -> Vec<u8> {
        let mut out = Vec::new();
        for first in (0..9000u16).step_by(200) {
            let cells: Vec<(u16, u32)> = (0..200).map(|i| (0, xls::rk_int(i, false))).collect();
            out.extend(xls::mulrk(row, first, &cells));
        }
        out
    };
    let mut blocks = plain_blocks(8);
    blocks[3].1.extend(many(127));
    blocks[4].1.splice(0..0, many(127));
    let bytes = indexed(&blocks, 0);
    with_blocks_read(|| {
        let answer = one_answer(&bytes, "a row over the limit across a boundary");
        let error = answer.error.clone().expect("refused");
        assert!(error.contains("cells in one row"), "{error}");
        assert!(error.contains("128,"), "{error}");
    });
}

#[test]
fn a_row_whose_hidden_flag_is_in_the_next_block_has_it_on_every_path() {
    // Row 191 (block 5's last) is marked hidden by a ROW record among
    // block 6's: the serial reader reads it before the row ends.
    let mut blocks = plain_blocks(8);
    blocks[6].0.splice(0..0, xls::row_record(191, true));
    let bytes = indexed(&blocks, 0);
    with_blocks_read(|| {
        let answer = one_answer(&bytes, "a hidden flag in the next block");
        assert_eq!(answer.error, None);
        let row = answer
            .lines()
            .find(|line| line.starts_with("191 "))
            .unwrap();
        assert!(row.starts_with("191 true "), "{row}");
    });
}

#[test]
fn index_and_dbcell_offsets_that_lie_give_the_serial_answer() {
    let truthful = one_answer(&indexed(&plain_blocks(8), 0), "truthful");
    for shift in [-20, -4, 3, 14] {
        let lying = one_answer(&indexed(&plain_blocks(8), shift), "lying INDEX");
        assert_eq!(lying, truthful, "shift {shift}");
    }
    // A written workbook with labels continued, formulas and hidden rows.
    with_blocks_read(|| {
        let answer = one_answer(&indexed_xls(700, 3), "indexed_xls");
        assert_eq!(answer.error, None);
    });
}

// ---------------------------------------------------------------------------
// 2. NaN and infinity are damaged records, in every interface.

/// The .xls workbooks holding a NaN or an infinity, each with a good cell
/// before it (A1), and the bad cell's reference.
fn xls_non_finite() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let nan_rk = 0x7FF8_0000u32;
    let inf_rk = 0x7FF0_0000u32;
    let sheets = [
        ("NUMBER NaN", xls::number(1, 1, 0, f64::NAN), "B2"),
        ("NUMBER -inf", xls::number(1, 1, 1, f64::NEG_INFINITY), "B2"),
        ("RK inf", xls::rk(1, 2, 0, inf_rk), "C2"),
        (
            "MULRK NaN",
            xls::mulrk(1, 0, &[(0, xls::rk_int(1, false)), (0, nan_rk)]),
            "B2",
        ),
        ("FORMULA NaN", xls::formula_number(1, 3, 0, f64::NAN), "D2"),
    ];
    sheets
        .into_iter()
        .map(|(name, record, reference)| {
            let mut book = Book::new();
            book.sheet("S", [xls::number(0, 0, 0, 1.0), record].concat());
            (name, book.bytes(), reference)
        })
        .collect()
}

fn xlsb_non_finite() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    [
        ("BrtCellReal NaN", XlsbCell::Real(f64::NAN), "B2"),
        ("BrtCellRk inf", XlsbCell::Number(f64::INFINITY), "B2"),
        (
            "BrtFmlaNum -inf",
            XlsbCell::FormulaNumber(f64::NEG_INFINITY),
            "B2",
        ),
    ]
    .into_iter()
    .map(|(name, cell, reference)| {
        let mut writer = XlsbWriter::new();
        writer.add_sheet("S", 0);
        writer.row(0);
        writer.cell(0, 0, XlsbCell::Number(1.0));
        writer.row(1);
        writer.cell(1, 0, cell);
        (name, writer.to_bytes(), reference)
    })
    .collect()
}

#[test]
fn nan_and_infinity_are_refused_at_their_record_on_every_path() {
    for (name, bytes, reference) in xls_non_finite().into_iter().chain(xlsb_non_finite()) {
        let answer = one_answer(&bytes, name);
        let error = answer.error.clone().expect(name);
        assert!(
            error.contains("which no cell holds: a damaged record"),
            "{name}: {error}"
        );
        assert_eq!(answer.lines().count(), 1, "{name}: the good row before it");
        // The error names the cell and the record's offset.
        let mut workbook = Workbook::from_reader(Cursor::new(bytes.clone())).unwrap();
        let mut rows = workbook.rows(0).unwrap();
        assert!(rows.next_row().unwrap().is_some());
        let err = rows.next_row().unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidValue(_)),
            "{name}: {err}"
        );
        let cell: sheetstream::CellRef = reference.parse().unwrap();
        assert_eq!(err.location().row, Some(cell.row + 1), "{name}: {err}");
        assert_eq!(
            err.location().column,
            Some(cell.column + 1),
            "{name}: {err}"
        );
        assert!(err.location().offset.is_some(), "{name}: {err}");
    }
}

#[test]
fn nan_is_refused_by_csv_jsonl_and_arrow_too() {
    for (name, bytes, _) in xls_non_finite().into_iter().chain(xlsb_non_finite()) {
        let file = temp_file("nan", &bytes);
        let path = file.0.to_str().unwrap();
        for command in ["csv", "jsonl", "cells"] {
            for threads in ["1", "4"] {
                let run = run_bin_args(bin(), &[command, "-q", "-t", threads, path]);
                assert_eq!(run.code, Some(1), "{name} {command}: {run:?}");
                assert!(
                    run.stderr.contains("which no cell holds"),
                    "{name} {command}: {}",
                    run.stderr
                );
                assert!(
                    !run.stdout.contains("NaN") && !run.stdout.contains("inf"),
                    "{name} {command}: {}",
                    run.stdout
                );
                if command != "csv" {
                    for line in run.stdout.lines() {
                        let _: serde_json::Value = serde_json::from_str(line)
                            .unwrap_or_else(|err| panic!("{name} {command}: {err}: {line}"));
                    }
                }
            }
        }
        #[cfg(feature = "arrow")]
        {
            let dir = temp_dir("nan-parquet");
            let out = dir.0.join("out.parquet");
            let run = run_bin_args(bin(), &["parquet", "-q", path, "-o", out.to_str().unwrap()]);
            assert_eq!(run.code, Some(1), "{name}: {run:?}");
            assert!(!out.exists(), "{name}: a parquet file was left");
            let mut workbook = Workbook::from_reader(Cursor::new(bytes.clone())).unwrap();
            let err = sheetstream::arrow::ArrowOptions::new()
                .read_sheet_table(&mut workbook, 0)
                .unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::InvalidValue(_)),
                "{name}: {err}"
            );
        }
    }
}

#[test]
fn cells_and_jsonl_print_strict_json() {
    // Every line of both, for workbooks of every value kind in each
    // binary format, parses with a strict JSON parser.
    for (name, bytes) in [
        ("indexed.xls", indexed_xls(300, 5)),
        ("written.xlsb", written_xlsb(200)),
    ] {
        let file = temp_file("json", &bytes);
        let path = file.0.to_str().unwrap();
        for command in [
            vec!["cells"],
            vec!["jsonl", "--all"],
            vec!["cells", "--formatted"],
        ] {
            let mut args = command.clone();
            args.extend(["-q", path]);
            let run = run_bin_args(bin(), &args);
            assert_eq!(run.code, Some(0), "{name} {command:?}: {}", run.stderr);
            assert!(run.stdout.lines().count() > 100, "{name} {command:?}");
            for line in run.stdout.lines() {
                let value: serde_json::Value = serde_json::from_str(line)
                    .unwrap_or_else(|err| panic!("{name} {command:?}: {err}: {line}"));
                assert!(value.is_object(), "{line}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 3. The rectangular CSV is bounded by what the sheet holds.

fn xlsx_with(rows: &str) -> Vec<u8> {
    common::book().sheet("S", common::sheet_xml(rows)).build()
}

fn xlsb_cells(cells: &[(u32, u32, f64)]) -> Vec<u8> {
    let mut writer = XlsbWriter::new();
    writer.add_sheet("S", 0);
    for &(row, column, value) in cells {
        writer.row(row);
        writer.cell(column, 0, XlsbCell::Number(value));
    }
    writer.to_bytes()
}

#[test]
fn one_cell_at_xfd1048576_is_refused_unless_ragged() {
    let cases = [
        (
            "xlsx",
            xlsx_with(r#"<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>"#),
        ),
        ("xlsb", xlsb_cells(&[(1_048_575, 16_383, 1.0)])),
        (
            "xlsx, a cell at XFD1 then a million rows of A",
            xlsx_with(&format!(
                r#"<row r="1"><c r="XFD1"><v>1</v></c></row>{}"#,
                (2..=20_000)
                    .map(|row| format!(r#"<row r="{}"><c r="A{0}"><v>2</v></c></row>"#, row * 50))
                    .collect::<String>()
            )),
        ),
    ];
    for (name, bytes) in cases {
        let dir = temp_dir("squaring");
        let input = dir.0.join("in.bin");
        std::fs::write(&input, &bytes).unwrap();
        let out = dir.0.join("out.csv");
        for threads in ["1", "4"] {
            let started = std::time::Instant::now();
            let run = run_bin_args(
                bin(),
                &[
                    "csv",
                    "-q",
                    "-t",
                    threads,
                    input.to_str().unwrap(),
                    "-o",
                    out.to_str().unwrap(),
                ],
            );
            assert_eq!(run.code, Some(2), "{name}: {run:?}");
            assert!(run.stderr.contains("--ragged"), "{name}: {}", run.stderr);
            assert!(
                run.stderr.contains("empty fields"),
                "{name}: {}",
                run.stderr
            );
            assert!(!out.exists(), "{name}: a file was left");
            assert!(
                started.elapsed().as_secs() < 60,
                "{name}: it wrote the padding first"
            );
            // Standard output gets no gigabytes either.
            let run = run_bin_args(
                bin(),
                &["csv", "-q", "-t", threads, input.to_str().unwrap()],
            );
            assert_eq!(run.code, Some(2), "{name}");
            assert!(
                run.stdout.len() < 128 << 20,
                "{name}: {} bytes",
                run.stdout.len()
            );
        }
        if name == "xlsb" {
            // Asked for: each record up to its last cell.
            let run = run_bin_args(bin(), &["csv", "-q", "--ragged", input.to_str().unwrap()]);
            assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
            assert!(run.stdout.len() < 4 << 20, "{name}");
            assert_eq!(run.stdout.lines().count(), 1_048_576, "{name}");
        }
    }
    // What a sparse sheet needs is written: 2,000 rows of one cell each
    // under a 300-column header row.
    let mut rows = String::from(r#"<row r="1">"#);
    for column in 0..300u32 {
        let reference = sheetstream::CellRef { row: 0, column }.to_string();
        rows.push_str(&format!(r#"<c r="{reference}"><v>{column}</v></c>"#));
    }
    rows.push_str("</row>");
    for row in 2..=2000 {
        rows.push_str(&format!(
            r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c></row>"#
        ));
    }
    let run = common::run_cli("csv", "sparse", &xlsx_with(&rows));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout
            .lines()
            .all(|line| line.matches(',').count() == 299)
    );
}

// ---------------------------------------------------------------------------
// 4. Failed output leaves nothing.

/// Workbooks of three sheets whose second is damaged, in each format.
fn three_sheets_second_damaged() -> Vec<(&'static str, Vec<u8>)> {
    let mut xls_book = Book::new();
    xls_book.sheet("One", xls::number(0, 0, 0, 1.0));
    xls_book.sheet(
        "Two",
        [xls::number(0, 0, 0, 2.0), xls::boolerr(1, 0, 0, 0x01, true)].concat(),
    );
    xls_book.sheet("Three", xls::number(0, 0, 0, 3.0));
    let mut writer = XlsbWriter::new();
    for (name, value) in [
        ("One", XlsbCell::Number(1.0)),
        ("Two", XlsbCell::Real(f64::NAN)),
        ("Three", XlsbCell::Number(3.0)),
    ] {
        writer.add_sheet(name, 0);
        writer.row(0);
        writer.cell(0, 0, XlsbCell::Number(0.5));
        writer.row(1);
        writer.cell(0, 0, value);
    }
    let xlsx = common::book()
        .sheet(
            "One",
            common::sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#),
        )
        .sheet(
            "Two",
            common::sheet_xml(r#"<row r="1"><c r="A1"><v>x</v></c></row>"#),
        )
        .sheet(
            "Three",
            common::sheet_xml(r#"<row r="1"><c r="A1"><v>3</v></c></row>"#),
        )
        .build();
    vec![
        ("xls", xls_book.bytes()),
        ("xlsb", writer.to_bytes()),
        ("xlsx", xlsx),
    ]
}

fn files_under(folder: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return found;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        }
        found.push(path.display().to_string());
    }
    found
}

#[test]
fn csv_all_and_parquet_per_sheet_leave_nothing_when_a_sheet_fails() {
    for (name, bytes) in three_sheets_second_damaged() {
        let dir = temp_dir("all-or-none");
        let input = dir.0.join("book.bin");
        std::fs::write(&input, &bytes).unwrap();
        let good = dir.0.join("good.bin");
        std::fs::write(&good, written_xlsb(20)).unwrap();
        let input = input.to_str().unwrap();
        for threads in ["1", "2", "4", "16"] {
            // One workbook; then a good workbook before the damaged one.
            for inputs in [vec![input], vec![good.to_str().unwrap(), input]] {
                let out = dir.0.join(format!("csv-{threads}"));
                let mut args = vec!["csv", "--all", "-q", "-t", threads];
                args.extend(&inputs);
                args.extend(["-o", out.to_str().unwrap()]);
                let run = run_bin_args(bin(), &args);
                assert_eq!(run.code, Some(1), "{name} {threads}: {run:?}");
                assert!(
                    !out.exists(),
                    "{name} {threads}: left {:?}",
                    files_under(&out)
                );
                assert_eq!(run.stdout, "", "{name}: a listing of files not written");
            }
            #[cfg(feature = "arrow")]
            {
                let out = dir.0.join(format!("parquet-{threads}"));
                let run = run_bin_args(
                    bin(),
                    &[
                        "parquet",
                        "--per-sheet",
                        "--all",
                        "-q",
                        "-t",
                        threads,
                        input,
                        "-o",
                        out.to_str().unwrap(),
                    ],
                );
                assert_eq!(run.code, Some(1), "{name} {threads}: {run:?}");
                assert!(
                    !out.exists(),
                    "{name} {threads}: left {:?}",
                    files_under(&out)
                );
            }
        }
        // An existing output folder stays, empty.
        let out = dir.0.join("existing");
        std::fs::create_dir(&out).unwrap();
        let run = run_bin_args(
            bin(),
            &["csv", "--all", "-q", input, "-o", out.to_str().unwrap()],
        );
        assert_eq!(run.code, Some(1));
        assert_eq!(files_under(&out), Vec::<String>::new(), "{name}");
    }
    // And all of them when every sheet reads.
    let dir = temp_dir("all-or-none-good");
    let good = dir.0.join("good.bin");
    std::fs::write(&good, written_xlsb(20)).unwrap();
    let out = dir.0.join("out");
    let run = run_bin_args(
        bin(),
        &[
            "csv",
            "--all",
            "-q",
            "-t",
            "4",
            good.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 3, "{}", run.stdout);
    assert!(out.join("Data.csv").is_file() && out.join("Two.csv").is_file());
}

// ---------------------------------------------------------------------------
// 5. The dimension is a hint.

#[test]
fn a_dimension_shorter_than_its_fields_fails_no_csv_export() {
    let mut book = Book::new();
    book.sheet(
        "S",
        [
            xls::record(xls::DIMENSIONS, &[1, 0]),
            xls::number(0, 0, 0, 1.0),
            xls::number(1, 2, 0, 2.0),
        ]
        .concat(),
    );
    let xls_bytes = book.bytes();
    let mut parts = entries(&xlsb_cells(&[(0, 0, 1.0), (1, 2, 2.0)])).unwrap();
    let (_, sheet) = parts
        .iter_mut()
        .find(|(name, _)| name.ends_with("sheet1.bin"))
        .unwrap();
    let mut records = xlsb_records(sheet).unwrap();
    let dim = records
        .iter_mut()
        .find(|(kind, _)| *kind == 0x0094)
        .unwrap();
    dim.1.truncate(3);
    *sheet = xlsb_part(&records);
    let xlsb_bytes = package(&parts);
    for (name, bytes) in [("xls", xls_bytes), ("xlsb", xlsb_bytes)] {
        for command in ["cells", "csv"] {
            let run = common::run_cli(command, "dimension", &bytes);
            assert_eq!(run.code, Some(0), "{name} {command}: {}", run.stderr);
        }
        let run = common::run_cli("csv", "dimension", &bytes);
        // The rows give the width: the second row is the wider.
        assert_eq!(run.stdout, "1\n,,2\n", "{name}");
    }
}

// ---------------------------------------------------------------------------
// 6. Strings shorter than their count.

#[test]
fn strings_shorter_than_their_count_are_refused_at_their_record() {
    // BIFF8 LABEL: 1,000 characters said, 10 there.
    let mut label = xls::label(1, 1, 0, "0123456789");
    label[10..12].copy_from_slice(&1000u16.to_le_bytes());
    // BIFF8 UTF-16 text ending in half a character, characters to come.
    let mut wide = xls::label(1, 1, 0, "\u{6771}\u{4eac}\u{5927}");
    wide.pop();
    let len = u16::from_le_bytes([wide[2], wide[3]]) - 1;
    wide[2..4].copy_from_slice(&len.to_le_bytes());
    // A formula's STRING: 50 said, 3 there.
    let mut string = xls::formula_string(1, 1, 0, "abc");
    let at = string.len() - 3 - 3;
    string[at..at + 2].copy_from_slice(&50u16.to_le_bytes());
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "BIFF8 LABEL",
            label,
            "says it holds 1000 characters and its record holds 10",
        ),
        ("BIFF8 UTF-16", wide, "half a character"),
        (
            "STRING",
            string,
            "says it holds 50 characters and its record holds 3",
        ),
    ];
    let mut books: Vec<(&str, Vec<u8>, &str)> = cases
        .into_iter()
        .map(|(name, record, wanted)| {
            let mut book = Book::new();
            book.sheet(
                "S",
                [xls::number(0, 0, 0, 1.0), record, xls::number(2, 0, 0, 3.0)].concat(),
            );
            (name, book.bytes(), wanted)
        })
        .collect();
    // BIFF5: a LABEL of 8-bit text, 20 said, 5 there.
    let mut book = Book::biff5(Some(1252));
    let mut short = xls::label_bytes(1, 1, 0, b"short");
    short[10..12].copy_from_slice(&20u16.to_le_bytes());
    book.sheet("S", [xls::number(0, 0, 0, 1.0), short].concat());
    books.push((
        "BIFF5 LABEL",
        book.bytes(),
        "says it holds 20 characters and its record holds 5",
    ));
    for (name, bytes, wanted) in books {
        let answer = one_answer(&bytes, name);
        let error = answer.error.clone().expect(name);
        assert!(error.contains(wanted), "{name}: {error}");
        assert!(error.contains("cell B2"), "{name}: {error}");
        assert!(error.contains("byte "), "{name}: {error}");
        assert_eq!(answer.lines().count(), 1, "{name}");
    }
    // .xlsb: a BrtCellSt whose count runs past its record.
    let mut writer = XlsbWriter::new().inline_strings();
    writer.add_sheet("S", 0);
    writer.row(0);
    writer.cell(0, 0, XlsbCell::Text("ten chars!"));
    let mut parts = entries(&writer.to_bytes()).unwrap();
    let (_, sheet) = parts
        .iter_mut()
        .find(|(name, _)| name.ends_with("sheet1.bin"))
        .unwrap();
    let mut records = xlsb_records(sheet).unwrap();
    let cell = records
        .iter_mut()
        .find(|(kind, _)| *kind == 0x0006)
        .unwrap();
    cell.1[8..12].copy_from_slice(&1000u32.to_le_bytes());
    *sheet = xlsb_part(&records);
    let answer = one_answer(&package(&parts), "xlsb BrtCellSt");
    let error = answer.error.expect("refused");
    assert!(error.contains("byte "), "{error}");
}

// ---------------------------------------------------------------------------
// 7. .xlsb parts without their closing records.

/// The written .xlsb with `part`'s records cut where `keep` says.
fn xlsb_cut(part: &str, keep: impl Fn(&[(u16, Vec<u8>)]) -> usize) -> Vec<u8> {
    let mut parts = entries(&written_xlsb(50)).unwrap();
    let (_, bytes) = parts
        .iter_mut()
        .find(|(name, _)| name.ends_with(part))
        .unwrap();
    let mut records = xlsb_records(bytes).unwrap();
    records.truncate(keep(&records));
    *bytes = xlsb_part(&records);
    package(&parts)
}

#[test]
fn xlsb_parts_without_their_closing_records_are_refused() {
    let position = |kind: u16| {
        move |records: &[(u16, Vec<u8>)]| records.iter().position(|(k, _)| *k == kind).unwrap()
    };
    let cases = [
        // Cut at a row: rows lost.
        (
            "sheet in its rows",
            xlsb_cut("sheet1.bin", |records| records.len() / 2),
            "without BrtEndSheetData",
        ),
        (
            "sheet before BrtEndSheet",
            xlsb_cut("sheet1.bin", position(0x0082)),
            "closing BrtEndSheet",
        ),
        (
            "shared strings",
            xlsb_cut("sharedStrings.bin", position(0x00A0)),
            "closing BrtEndSst",
        ),
        (
            "styles",
            xlsb_cut("styles.bin", position(0x0117)),
            "closing BrtEndStyleSheet",
        ),
        (
            "workbook",
            xlsb_cut("workbook.bin", position(0x0084)),
            "closing BrtEndBook",
        ),
        (
            "workbook before its sheets",
            xlsb_cut("workbook.bin", position(0x009C)),
            "closing BrtEndBook",
        ),
    ];
    for (name, bytes, wanted) in cases {
        let error = match Workbook::from_reader(Cursor::new(bytes.clone())) {
            Err(err) => err.to_string(),
            Ok(_) => one_answer(&bytes, name).error.expect(name),
        };
        assert!(error.contains(wanted), "{name}: {error}");
        assert!(error.contains("byte "), "{name}: {error}");
    }
    // A record after BrtEndSheet is a part that does not end there.
    let mut parts = entries(&written_xlsb(5)).unwrap();
    let (_, sheet) = parts
        .iter_mut()
        .find(|(name, _)| name.ends_with("sheet1.bin"))
        .unwrap();
    let mut records = xlsb_records(sheet).unwrap();
    records.push((0x0094, vec![0; 16]));
    *sheet = xlsb_part(&records);
    let answer = one_answer(&package(&parts), "a record after BrtEndSheet");
    assert!(answer.error.unwrap().contains("closing BrtEndSheet"));
    // The .xls analogue: a sheet whose substream runs into the next
    // sheet's without its EOF.
    let mut stream = Book::new();
    stream.sheet("A", xls::number(0, 0, 0, 1.0));
    stream.sheet("B", xls::number(0, 0, 0, 2.0));
    let stream = stream.stream();
    let mut records = crate::binary_mutations::biff_records(&stream).unwrap();
    let first_eof = records
        .iter()
        .enumerate()
        .filter(|(_, (kind, _))| *kind == 0x000A)
        .nth(1)
        .unwrap()
        .0;
    records.remove(first_eof);
    let bytes = xls::compound(&[("Workbook", &crate::binary_mutations::biff_stream(&records))]);
    let answer = one_answer(&bytes, "xls sheet without EOF");
    assert!(answer.error.unwrap().contains("without an EOF record"));
}

// ---------------------------------------------------------------------------
// 8. The lazily parsed shared strings keep the limit and the checks.

/// An .xlsx of `items` shared strings (`s0`, `s1`, ...), whose sheet uses
/// the first ten in its ten rows; `end` closes the table or not.
fn many_strings(items: usize, end: bool) -> Vec<u8> {
    let mut sst = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="{}" count="{items}" uniqueCount="{items}">"#,
        common::MAIN_NS
    );
    for i in 0..items {
        sst.push_str(&format!("<si><t>s{i}</t></si>"));
    }
    if end {
        sst.push_str("</sst>");
    }
    let rows: String = (1..=10)
        .map(|row| {
            format!(
                r#"<row r="{row}"><c r="A{row}" t="s"><v>{}</v></c></row>"#,
                row - 1
            )
        })
        .collect();
    common::book()
        .strings_part(sst)
        .sheet("S", common::sheet_xml(&rows))
        .build()
}

/// Reads every row of the lone sheet with `limits` on each path: the
/// error, the same on each (None: read).
fn full_read_error(bytes: &[u8], limits: Limits) -> Option<String> {
    let open = || {
        OpenOptions::new()
            .limits(limits)
            .from_reader(Cursor::new(bytes.to_vec()))
            .unwrap()
    };
    let mut workbook = open();
    let serial = workbook.load_sheet(0).err().map(|err| err.to_string());
    let mut rows = open();
    let mut pull = rows.rows(0).unwrap();
    let pulled = loop {
        match pull.next_row() {
            Ok(Some(_)) => {}
            Ok(None) => break None,
            Err(err) => break Some(err.to_string()),
        }
    };
    assert_eq!(pulled, serial);
    for threads in THREADS {
        let parallel = open()
            .parallel()
            .threads(threads)
            .for_each_row(|| |_: &sheetstream::SheetInfo, _: sheetstream::Row<'_>| {})
            .err()
            .map(|err| err.to_string());
        assert_eq!(parallel, serial, "{threads} threads");
    }
    serial
}

#[test]
fn a_shared_strings_table_past_its_limit_or_cut_is_refused_by_a_full_read() {
    // 5,000 items of 5 bytes or so, past a limit of 10,000 bytes; the
    // rows need the first ten only.
    let bytes = many_strings(5000, true);
    let limits = {
        let mut limits = Limits::default();
        limits.max_shared_string_bytes = 10_000;
        limits
    };
    let error = full_read_error(&bytes, limits).expect("refused");
    assert!(error.contains("shared string bytes"), "{error}");
    assert!(error.contains("sharedStrings.xml"), "{error}");
    // A head read stops before the end, and reads.
    let mut workbook = OpenOptions::new()
        .limits(limits)
        .from_reader(Cursor::new(bytes))
        .unwrap();
    let mut rows = workbook.rows(0).unwrap();
    for _ in 0..5 {
        assert!(rows.next_row().unwrap().is_some());
    }
    // Cut between two items (no `</sst>`), past the first block.
    let bytes = many_strings(5000, false);
    let error = full_read_error(&bytes, Limits::default()).expect("refused");
    assert!(error.contains("sharedStrings.xml"), "{error}");
    let error_serial = rows_serial(&bytes).unwrap().error;
    for threads in THREADS {
        assert_eq!(rows_parallel(&bytes, threads).unwrap().error, error_serial);
    }
    // Whole and well-formed: read.
    assert_eq!(
        full_read_error(&many_strings(5000, true), Limits::default()),
        None
    );
}

/// A sheet read to its end checks the rest of the table without keeping
/// it; a sheet read after it that needs strings past what the first set
/// reads the part again, and every path gives the same rows.
#[test]
fn strings_a_check_did_not_keep_are_read_again_when_asked_for() {
    let items = 5000;
    let mut sst = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="{}" count="{items}" uniqueCount="{items}">"#,
        common::MAIN_NS
    );
    for i in 0..items {
        sst.push_str(&format!("<si><t>s{i}</t></si>"));
    }
    sst.push_str("</sst>");
    let row = |row: usize, cell: String| format!(r#"<row r="{row}">{cell}</row>"#);
    // The first sheet needs string 3 (the first block) and numbers; the
    // second strings of the third block and of the last.
    let first: String = (1..=10)
        .map(|r| {
            row(
                r,
                format!(r#"<c r="A{r}"><v>{r}</v></c><c r="B{r}" t="s"><v>3</v></c>"#),
            )
        })
        .collect();
    let second: String = (1..=10)
        .map(|r| {
            row(
                r,
                format!(r#"<c r="A{r}" t="s"><v>{}</v></c>"#, 4000 + r * 99 - 99),
            )
        })
        .collect();
    let bytes = common::book()
        .strings_part(sst)
        .sheet("First", common::sheet_xml(&first))
        .sheet("Second", common::sheet_xml(&second))
        .build();
    let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    while let Some(row) = rows.next_row().unwrap() {
        assert_eq!(row.cells()[1].value().to_string(), "s3");
    }
    drop(rows);
    let mut rows = workbook.rows(1).unwrap();
    let mut texts = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        texts.push(row.cells()[0].value().to_string());
    }
    let expected: Vec<String> = (0..10).map(|i| format!("s{}", 4000 + i * 99)).collect();
    assert_eq!(texts, expected);
    drop(rows);
    assert_eq!(workbook.shared_strings().unwrap().len(), items);
    let serial = rows_serial(&bytes).unwrap();
    assert_eq!(serial.error, None);
    for threads in THREADS {
        let parallel = rows_parallel(&bytes, threads).unwrap();
        assert_eq!(parallel.sheets, serial.sheets, "{threads} threads");
        assert_eq!(parallel.error, None);
    }
}

// ---------------------------------------------------------------------------
// 9. Rows that go back come in file order, in all three formats.

#[test]
fn rows_that_go_back_are_read_in_file_order_in_every_format() {
    let xlsx = xlsx_with(
        r#"<row r="6"><c r="A6"><v>6</v></c></row><row r="5"><c r="B5"><v>5</v></c></row><row r="7"><c r="A7"><v>7</v></c></row>"#,
    );
    let xlsb = xlsb_cells(&[(5, 0, 6.0), (4, 1, 5.0), (6, 0, 7.0)]);
    let mut book = Book::new();
    book.sheet(
        "S",
        [
            xls::number(5, 0, 0, 6.0),
            xls::number(4, 1, 0, 5.0),
            xls::number(6, 0, 0, 7.0),
        ]
        .concat(),
    );
    for (name, bytes) in [("xlsx", xlsx), ("xlsb", xlsb), ("xls", book.bytes())] {
        let answer = one_answer(&bytes, name);
        assert_eq!(answer.error, None, "{name}");
        let rows: Vec<&str> = answer
            .lines()
            .map(|line| line.split(' ').next().unwrap())
            .collect();
        assert_eq!(rows, ["5", "4", "6"], "{name}");
        let run = common::run_cli("cells", "back", &bytes);
        let refs: Vec<String> = common::parse_dump(&run.stdout)
            .iter()
            .map(|line| line["ref"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(refs, ["A6", "B5", "A7"], "{name}");
    }
}

// ---------------------------------------------------------------------------
// Messages: the same message and output before it on every path.

#[test]
fn a_missing_sheet_part_reads_the_same_on_every_thread_count() {
    let parts: Vec<(String, Vec<u8>)> = entries(&written_xlsb(5))
        .unwrap()
        .into_iter()
        .filter(|(name, _)| !name.ends_with("sheet2.bin"))
        .collect();
    let answer = one_answer(&package(&parts), "a missing part");
    let error = answer.error.unwrap();
    assert!(
        error.contains("missing part xl/worksheets/sheet2.bin"),
        "{error}"
    );
}

#[test]
fn a_damaged_deflate_stream_gives_the_same_rows_before_its_error() {
    // A long sheet part whose compressed bytes are overwritten past its
    // middle: every path hands out the rows inflated before the damage,
    // then the same error.
    let bytes = written_xlsb(12_000);
    let name = b"xl/worksheets/sheet1.bin";
    let header = bytes
        .windows(name.len())
        .position(|window| window == name)
        .unwrap();
    let mut checked = 0;
    for step in [3, 5, 7, 11] {
        let mut damaged = bytes.clone();
        let at = header + name.len() + (bytes.len() - header) * step / 16;
        for offset in 0..6 {
            damaged[at + offset] ^= 0x5A;
        }
        let answer = one_answer(&damaged, &format!("deflate damage at {at}"));
        if answer.error.is_some() {
            assert!(answer.lines().count() > 0, "rows before the damage");
            checked += 1;
        }
    }
    assert!(checked > 0);
}
