//! The materialised sheet against the stream it is built from: on every
//! workbook of the conformance corpus, and on generated ones; and the
//! memory of a sheet whose two cells span the whole grid.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rust_xlsxwriter::Workbook as Writer;
use sheetstream::{OwnedValue, Sheet, SheetKind, Value, Workbook};

/// Workbooks larger than this are left out of the corpus test in debug
/// builds (`cargo test`), which still takes all but a few dozen of the
/// corpus in about 12 s on two cores; release builds
/// (`cargo test --release --test integration sheet::`) take every workbook.
const SMALL_FILE_BYTES: u64 = if cfg!(debug_assertions) {
    256 * 1024
} else {
    u64::MAX
};

/// Two values are the same: numbers by their bits (so NaN equals itself).
fn same(a: Value<'_>, b: Value<'_>) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.to_bits() == y.to_bits(),
        (Value::DateTime(x), Value::DateTime(y)) => {
            x.serial().to_bits() == y.serial().to_bits() && x == y
        }
        _ => a == b,
    }
}

/// Streams a sheet into (row, column) -> value, the later cell winning.
fn streamed(
    workbook: &mut Workbook<impl std::io::Read + std::io::Seek>,
    position: usize,
) -> sheetstream::Result<BTreeMap<(u32, u32), OwnedValue>> {
    let mut cells = BTreeMap::new();
    workbook.for_each_row(position, |row| {
        for cell in row.cells() {
            cells.insert((cell.row(), cell.column()), cell.value().into_owned());
        }
    })?;
    Ok(cells)
}

/// Checks that a sheet holds exactly the streamed cells; returns a
/// description of the first difference.
fn compare(sheet: &Sheet, expected: &BTreeMap<(u32, u32), OwnedValue>) -> Result<(), String> {
    if sheet.cell_count() != expected.len() {
        return Err(format!(
            "{} cells materialised, {} streamed",
            sheet.cell_count(),
            expected.len()
        ));
    }
    for ((at, value), ((row, column), want)) in sheet.cells().zip(expected) {
        if (at.row, at.column) != (*row, *column) || !same(value, want.as_value()) {
            return Err(format!(
                "at {at}: {value:?}, streamed ({row}, {column}) {want:?}"
            ));
        }
        if !sheet
            .get(*row, *column)
            .is_some_and(|found| same(found, want.as_value()))
        {
            return Err(format!("lookup of ({row}, {column}) failed"));
        }
    }
    if let Some(range) = sheet.used_range() {
        let rows = expected.keys().map(|(row, _)| *row);
        let columns = expected.keys().map(|(_, column)| *column);
        let want = (
            rows.clone().min().unwrap(),
            columns.clone().min().unwrap(),
            rows.max().unwrap(),
            columns.max().unwrap(),
        );
        let got = (
            range.first.row,
            range.first.column,
            range.last.row,
            range.last.column,
        );
        if got != want {
            return Err(format!("used range {range}, expected {want:?}"));
        }
    }
    Ok(())
}

fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus");
    root.is_dir().then_some(root)
}

/// Every worksheet of every corpus workbook (of at most
/// [`SMALL_FILE_BYTES`]): `load_sheet` and `load_all` hold exactly the
/// cells the stream gives, and fail where the stream fails.
#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn corpus_sheets_equal_their_streams() {
    let Some(root) = corpus_root() else {
        common::skip_notice(
            "corpus_sheets_equal_their_streams",
            "../shared/conformance/corpus",
        );
        return;
    };
    let started = Instant::now();
    let (mut workbooks, mut sheets, mut cells, mut skipped) = (0, 0, 0usize, 0);
    let mut failures = Vec::new();
    for path in common::corpus_workbooks(&root) {
        if std::fs::metadata(&path).map_or(true, |meta| meta.len() > SMALL_FILE_BYTES) {
            skipped += 1;
            continue;
        }
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let Ok(mut workbook) = Workbook::open(&path) else {
            continue;
        };
        workbooks += 1;
        let positions: Vec<usize> = workbook
            .sheets()
            .iter()
            .filter(|sheet| sheet.kind() == SheetKind::Worksheet)
            .map(|sheet| sheet.position())
            .collect();
        let mut expected_all = Vec::new();
        for &position in &positions {
            let expected = streamed(&mut workbook, position);
            let loaded = workbook.load_sheet(position);
            match (&expected, loaded) {
                (Ok(expected), Ok(sheet)) => {
                    sheets += 1;
                    cells += sheet.cell_count();
                    if let Err(problem) = compare(&sheet, expected) {
                        failures.push(format!("{name} sheet {position}: {problem}"));
                    }
                }
                (Err(_), Err(_)) => {}
                (Ok(_), Err(err)) => failures.push(format!("{name}: load_sheet failed: {err}")),
                (Err(err), Ok(_)) => {
                    failures.push(format!("{name}: streaming failed ({err}), loading did not"))
                }
            }
            expected_all.push(expected.ok());
        }
        match workbook.load_all() {
            Ok(all) => {
                assert_eq!(all.len(), positions.len(), "{name}");
                for ((sheet, expected), &position) in all.iter().zip(&expected_all).zip(&positions)
                {
                    assert_eq!(sheet.name(), workbook.sheets()[position].name());
                    match expected {
                        Some(expected) => {
                            if let Err(problem) = compare(sheet, expected) {
                                failures.push(format!("{name} load_all {position}: {problem}"));
                            }
                        }
                        None => failures.push(format!("{name}: load_all read a failing sheet")),
                    }
                }
            }
            Err(_) => {
                if expected_all.iter().all(Option::is_some) {
                    failures.push(format!("{name}: load_all failed, streaming did not"));
                }
            }
        }
    }
    println!(
        "{workbooks} workbooks, {sheets} sheets, {cells} cells compared in {:.1?} \
         ({skipped} workbooks over {SMALL_FILE_BYTES} bytes left out)",
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(workbooks > 100, "too few corpus workbooks opened");
}

/// Cells at A1 and XFD1048576: a file of a few kilobytes loads into a
/// sheet of a few hundred bytes, not the 17 billion cells it spans.
#[test]
fn opposite_corners_cost_two_cells() {
    let mut writer = Writer::new();
    let sheet = writer.add_worksheet();
    sheet.write_string(0, 0, "top left").unwrap();
    sheet.write_number(1_048_575, 16_383, 42.0).unwrap();
    let bytes = writer.save_to_buffer().unwrap();
    assert!(bytes.len() < 8 * 1024, "{} bytes", bytes.len());

    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let sheet = workbook.load_sheet(0).unwrap();
    assert_eq!(sheet.cell_count(), 2);
    assert_eq!(sheet.get_a1("A1"), Some(Value::Text("top left")));
    assert_eq!(sheet.get_a1("XFD1048576"), Some(Value::Number(42.0)));
    assert_eq!(sheet.get(1_048_575, 16_382), None);
    assert_eq!(sheet.used_range().unwrap().to_string(), "A1:XFD1048576");
    let heap = sheet.heap_bytes();
    println!("heap of a sheet with cells at A1 and XFD1048576: {heap} bytes");
    assert!(heap < 1024, "{heap} bytes");

    let all = workbook.load_all().unwrap();
    assert!(all[0].heap_bytes() < 1024);
}

/// A generated sheet of mixed values, out of order and with repeated
/// strings: loaded serially and in parallel, equal to the stream.
#[test]
fn generated_sheets_load_serially_and_in_parallel() {
    let mut writer = Writer::new();
    let date = rust_xlsxwriter::Format::new().set_num_format("yyyy-mm-dd");
    for index in 0..4u32 {
        let sheet = writer.add_worksheet();
        for row in 0..500u32 {
            if row % 9 == 3 {
                continue;
            }
            sheet
                .write_string(row, 0, ["north", "south", "east"][(row % 3) as usize])
                .unwrap();
            sheet
                .write_number(row, 1, f64::from(row * index) / 7.0)
                .unwrap();
            sheet.write_boolean(row, 3, row % 2 == 0).unwrap();
            sheet
                .write_number_with_format(row, 5, 45_000.0 + f64::from(row), &date)
                .unwrap();
            sheet
                .write_string(row, 7 + (row % 5) as u16, format!("unique {row}"))
                .unwrap();
        }
    }
    writer.add_worksheet().set_name("Empty").unwrap();
    let mut workbook = Workbook::from_bytes(writer.save_to_buffer().unwrap()).unwrap();
    let all = workbook.load_all().unwrap();
    assert_eq!(all.len(), 5);
    for (position, sheet) in all.iter().enumerate() {
        let expected = streamed(&mut workbook, position).unwrap();
        compare(sheet, &expected).unwrap();
        let serial = workbook.load_sheet(position).unwrap();
        compare(&serial, &expected).unwrap();
        assert_eq!(serial.heap_bytes(), sheet.heap_bytes());
    }
    assert!(all[4].is_empty());
    assert_eq!(all[4].used_range(), None);
    let sheet = &all[1];
    assert_eq!(sheet.get_a1("A1"), Some(Value::Text("north")));
    assert!(matches!(sheet.get_a1("F2"), Some(Value::DateTime(_))));
    assert!(sheet.row(3).is_none());
    let row = sheet.row(2).unwrap();
    assert_eq!(row.len(), 5);
    let columns: Vec<u32> = row.cells().map(|(column, _)| column).collect();
    assert_eq!(columns, [0, 1, 3, 5, 9]);
    assert_eq!(sheet.rows().len(), 500 - 56);
}
