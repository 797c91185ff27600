//! Every dumpable sheet of the public conformance corpus through the Arrow
//! reader (`../shared/conformance/corpus`, the workbooks with a
//! `.cells.jsonl` expectation, those of at most 256 KiB in this debug-build
//! test): each cell of the row stream is, in the table, its value after the
//! documented mapping (the `arrow` module's tables), or a null that the
//! batch reports counted (an error cell, a value that did not fit the type
//! the sample gave), or, right of the sampled columns, left out and counted;
//! every other table cell is null. A sheet the row stream cannot read is a
//! typed error through Arrow too.
//!
//! Without the corpus the test prints "skipping: ../shared/conformance/corpus
//! not found" and passes.
#![cfg(feature = "arrow")]

use crate::common;

use std::path::{Path, PathBuf};

use sheetstream::arrow::arrow_array::cast::AsArray;
use sheetstream::arrow::arrow_array::types::{
    Date32Type, DurationMillisecondType, Float64Type, Int64Type, Time32MillisecondType,
    TimestampMillisecondType,
};
use sheetstream::arrow::arrow_array::{Array, RecordBatch};
use sheetstream::arrow::arrow_schema::{DataType, TimeUnit};
use sheetstream::arrow::{ArrowOptions, DEFAULT_SCHEMA_SAMPLE_ROWS, Header, OnMismatch};
use sheetstream::{CivilDateTime, DateTimeKind, OwnedValue, SheetKind, Value, Workbook};

const SMALL_FILE_BYTES: u64 = 256 * 1024;

fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus");
    root.is_dir().then_some(root)
}

fn dumpable(workbook: &Path) -> bool {
    let stem = workbook.with_extension("");
    [".cells.jsonl", ".cells.jsonl.gz"].iter().any(|suffix| {
        let mut name = stem.clone().into_os_string();
        name.push(suffix);
        Path::new(&name).exists()
    })
}

/// Civil date of a day count since 1970-01-01 (the inverse algorithm of
/// the one the library uses, so that the two check each other).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn civil_date(civil: &CivilDateTime) -> (i64, u32, u32) {
    (
        i64::from(civil.year()),
        u32::from(civil.month()),
        u32::from(civil.day()),
    )
}

/// The first day of each date system: the only date a time of day may
/// have, since a `Time32` column holds none (what `cells` prints is kept).
fn is_first_day(civil: &CivilDateTime) -> bool {
    matches!(civil_date(civil), (1899, 12, 31) | (1904, 1, 1))
}

fn ms_of_day(civil: &CivilDateTime) -> i64 {
    i64::from(civil.hour()) * 3_600_000
        + i64::from(civil.minute()) * 60_000
        + i64::from(civil.second()) * 1_000
        + i64::from(civil.millisecond())
}

/// Text as the CSV writer writes a value (the `Utf8` row of the table).
fn csv_text(value: Value<'_>) -> String {
    fn number(value: f64) -> String {
        let magnitude = value.abs();
        if value.fract() == 0.0 && magnitude < 1e15 {
            format!(
                "{}{}",
                if value.is_sign_negative() { "-" } else { "" },
                magnitude as u64
            )
        } else if magnitude == 0.0 || (1e-5..1e16).contains(&magnitude) {
            format!("{value}")
        } else {
            format!("{value:e}")
        }
    }
    match value {
        Value::Number(n) => number(n),
        Value::Text(t) | Value::Error(t) => t.to_owned(),
        Value::Bool(b) => (if b { "TRUE" } else { "FALSE" }).to_owned(),
        // A time of day or a duration as a clock, hours past 24 for a
        // duration (the CSV's rule, README "csv").
        Value::DateTime(date) if date.kind() != DateTimeKind::Date => {
            let ms = match date.kind() {
                DateTimeKind::Time => date.to_civil().map(|civil| ms_of_day(&civil)),
                _ => Some((date.serial() * 86_400_000.0).round() as i64),
            };
            let Some(ms) = ms else {
                return number(date.serial());
            };
            let sign = if ms < 0 { "-" } else { "" };
            let ms = ms.abs();
            let fraction = if ms % 1000 == 0 {
                String::new()
            } else {
                format!(".{:03}", ms % 1000)
            };
            format!(
                "{sign}{:02}:{:02}:{:02}{fraction}",
                ms / 3_600_000,
                ms / 60_000 % 60,
                ms / 1000 % 60
            )
        }
        Value::DateTime(date) => match date.to_civil() {
            Some(civil) if ms_of_day(&civil) == 0 => {
                format!(
                    "{:04}-{:02}-{:02}",
                    civil.year(),
                    civil.month(),
                    civil.day()
                )
            }
            Some(civil) => civil.to_string(),
            None => number(date.serial()),
        },
        other => panic!("a value the CSV rule does not describe: {other:?}"),
    }
}

/// Whether the table's non-null value at `at` is `value` after the mapping.
fn maps_to(array: &dyn Array, at: usize, value: Value<'_>) -> bool {
    let civil = |value: Value<'_>| match value {
        Value::DateTime(date) => date.to_civil(),
        _ => None,
    };
    match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(at) == csv_text(value),
        DataType::Boolean => value == Value::Bool(array.as_boolean().value(at)),
        DataType::Int64 => {
            value.as_f64() == Some(array.as_primitive::<Int64Type>().value(at) as f64)
        }
        DataType::Float64 => {
            value.as_f64().map(f64::to_bits)
                == Some(array.as_primitive::<Float64Type>().value(at).to_bits())
        }
        DataType::Date32 => civil(value).is_some_and(|c| {
            civil_from_days(i64::from(array.as_primitive::<Date32Type>().value(at)))
                == civil_date(&c)
        }),
        DataType::Timestamp(TimeUnit::Millisecond, None) => civil(value).is_some_and(|c| {
            let ms = array.as_primitive::<TimestampMillisecondType>().value(at);
            civil_from_days(ms.div_euclid(86_400_000)) == civil_date(&c)
                && ms.rem_euclid(86_400_000) == ms_of_day(&c)
        }),
        DataType::Time32(TimeUnit::Millisecond) => civil(value).is_some_and(|c| {
            is_first_day(&c)
                && i64::from(array.as_primitive::<Time32MillisecondType>().value(at))
                    == ms_of_day(&c)
        }),
        DataType::Duration(TimeUnit::Millisecond) => match value {
            Value::DateTime(date) => {
                array.as_primitive::<DurationMillisecondType>().value(at)
                    == (date.serial() * 86_400_000.0).round() as i64
            }
            _ => false,
        },
        other => panic!("a type the reader does not produce: {other}"),
    }
}

/// Checks one sheet; returns a description of the first difference.
/// Checks one sheet read as a stream with misfits nulled (`whole`: false)
/// or as a whole table, columns widened (`whole`: true; then no value may
/// be missing but error cells in typed columns).
fn check_sheet(path: &Path, position: usize, whole: bool) -> Result<(), String> {
    let mut workbook = Workbook::open(path).map_err(|err| format!("open: {err}"))?;
    // The non-empty rows, in file order.
    let mut rows: Vec<(u32, Vec<(u32, OwnedValue)>)> = Vec::new();
    let streamed = workbook.for_each_row(position, |row| {
        if !row.cells().is_empty() {
            let cells = row.cells().iter();
            rows.push((
                row.index(),
                cells.map(|c| (c.column(), c.value().into())).collect(),
            ));
        }
    });
    let mut options = ArrowOptions::new()
        .header(Header::None)
        .batch_size(1_000)
        .on_mismatch(if whole {
            OnMismatch::Widen
        } else {
            OnMismatch::Null
        });
    let read = loop {
        let attempt = options
            .read_sheet(&mut workbook, position)
            .and_then(|mut batches| {
                let mut out = Vec::new();
                let mut counted = (0usize, 0usize, 0usize);
                while let Some(batch) = batches.next_batch()? {
                    let report = batches.report();
                    counted.0 += report.error_cells + report.coerced_cells;
                    counted.1 += report.dropped_cells;
                    counted.2 += report.coerced_cells;
                    out.push((report.first_row, batch));
                }
                Ok((out, counted))
            });
        match attempt {
            Err(err) if whole => match options.widened_by(&err) {
                Some(wider) => options = wider,
                None => break Err(err),
            },
            other => break other,
        }
    };
    let (batches, (nulled_counted, dropped_counted, coerced_counted)) = match (streamed, read) {
        (Err(_), Err(_)) => return Ok(()),
        (Err(err), Ok(_)) => return Err(format!("the row stream fails ({err}), Arrow does not")),
        (Ok(()), Err(err)) => return Err(format!("Arrow fails: {err}")),
        (Ok(()), Ok(read)) => read,
    };
    let Some(&(first_row, _)) = rows.first() else {
        return if batches.is_empty() {
            Ok(())
        } else {
            Err("batches from a sheet without cells".into())
        };
    };
    if whole && coerced_counted > 0 {
        return Err(format!(
            "{coerced_counted} values nulled in a whole-table read"
        ));
    }
    // The columns: those of the sample, or of every row when the table
    // is read whole (a value outside the sample's columns adds one).
    let sampled = &rows[..rows.len().min(if whole {
        usize::MAX
    } else {
        DEFAULT_SCHEMA_SAMPLE_ROWS
    })];
    let used = sampled
        .iter()
        .flat_map(|(_, cells)| cells.iter().map(|c| c.0));
    let (min_column, max_column) = used.fold((u32::MAX, 0), |(lo, hi), c| (lo.min(c), hi.max(c)));
    // Each row's place in the table: the next one, after the rows of nulls
    // the sheet skips (none for a row whose number repeats or goes back).
    let mut places = Vec::with_capacity(rows.len());
    let mut next = 0usize;
    let mut previous: Option<u32> = None;
    for (index, _) in &rows {
        if let Some(previous) = previous
            && *index > previous
        {
            next += (*index - previous - 1) as usize;
        }
        places.push(next);
        next += 1;
        previous = Some(*index);
    }
    let table: Vec<&RecordBatch> = batches.iter().map(|(_, b)| b).collect();
    let total_rows: usize = table.iter().map(|b| b.num_rows()).sum();
    if total_rows != next {
        return Err(format!("{total_rows} rows, expected {next}"));
    }
    if batches.first().map(|(first, _)| *first) != Some(first_row) {
        return Err("the first batch does not start at the first non-empty row".into());
    }
    let columns = (max_column - min_column + 1) as usize;
    if table[0].num_columns() != columns {
        return Err(format!(
            "{} columns, expected {columns}",
            table[0].num_columns()
        ));
    }
    let locate = |place: usize| {
        let mut at = place;
        for batch in &table {
            if at < batch.num_rows() {
                return (*batch, at);
            }
            at -= batch.num_rows();
        }
        unreachable!()
    };
    let (mut values, mut nulled, mut dropped, mut codes) = (0usize, 0usize, 0usize, 0usize);
    for ((row, cells), &place) in rows.iter().zip(&places) {
        let mut seen = std::collections::HashSet::new();
        for (column, value) in cells {
            if !(min_column..=max_column).contains(column) || !seen.insert(*column) {
                dropped += 1;
                continue;
            }
            let (batch, at) = locate(place);
            let array = batch.column((column - min_column) as usize);
            // A Null array has no null buffer: its nulls are logical.
            if array.is_null(at) || array.data_type() == &DataType::Null {
                nulled += 1;
            } else if maps_to(array.as_ref(), at, value.as_value()) {
                values += 1;
                // An error cell's code in a text column: kept, and counted.
                if matches!(value.as_value(), Value::Error(_)) {
                    codes += 1;
                }
            } else {
                return Err(format!(
                    "row {row} column {column}: {:?} is not {:?} ({})",
                    value,
                    sheetstream::arrow::arrow_array::array::make_array(
                        array.slice(at, 1).to_data()
                    ),
                    array.data_type()
                ));
            }
        }
    }
    let non_null: usize = table
        .iter()
        .flat_map(|b| b.columns())
        .map(|a| a.len() - a.logical_null_count())
        .sum();
    if non_null != values {
        return Err(format!(
            "{non_null} non-null table cells, {values} sheet values"
        ));
    }
    if whole && nulled > 0 {
        // Only error cells in typed columns may be null.
        let errors = rows
            .iter()
            .flat_map(|(_, cells)| cells.iter())
            .filter(|(_, value)| matches!(value.as_value(), Value::Error(_)))
            .count();
        if nulled > errors {
            return Err(format!(
                "{nulled} values null in a whole-table read, {errors} error cells"
            ));
        }
    }
    let nulled = nulled + codes;
    if (nulled, dropped) != (nulled_counted, dropped_counted) {
        return Err(format!(
            "nulled/dropped {nulled}/{dropped}, reported {nulled_counted}/{dropped_counted}"
        ));
    }
    Ok(())
}

#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn corpus_sheets_through_arrow_equal_the_row_stream() {
    let Some(root) = corpus_root() else {
        println!("skipping: ../shared/conformance/corpus not found");
        return;
    };
    check_workbooks(common::corpus_workbooks(&root), 100);
}

/// The `.xls` and `.xlsb` workbooks of the binary corpus, the same way.
#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn binary_corpus_sheets_through_arrow_equal_the_row_stream() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus-binary");
    if !root.is_dir() {
        println!("skipping: ../shared/conformance/corpus-binary not found");
        return;
    }
    let mut workbooks: Vec<PathBuf> = Vec::new();
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read a corpus folder") {
            let path = entry.expect("a corpus entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| {
                ext.eq_ignore_ascii_case("xls") || ext.eq_ignore_ascii_case("xlsb")
            }) {
                workbooks.push(path);
            }
        }
    }
    workbooks.sort();
    check_workbooks(workbooks, 100);
}

fn check_workbooks(workbooks: Vec<PathBuf>, at_least: usize) {
    let mut failures = Vec::new();
    let mut sheets = 0;
    for path in workbooks {
        if !dumpable(&path) || std::fs::metadata(&path).map_or(true, |m| m.len() > SMALL_FILE_BYTES)
        {
            continue;
        }
        let Ok(workbook) = Workbook::open(&path) else {
            continue;
        };
        for sheet in workbook.sheets() {
            if sheet.kind() != SheetKind::Worksheet {
                continue;
            }
            sheets += 1;
            for whole in [false, true] {
                if let Err(message) = check_sheet(&path, sheet.position(), whole) {
                    let how = if whole { "whole table" } else { "stream" };
                    failures.push(format!(
                        "{} sheet {} ({how}): {message}",
                        path.display(),
                        sheet.position()
                    ));
                }
            }
        }
    }
    println!("{sheets} corpus sheets checked through Arrow, as a stream and whole");
    assert!(sheets > at_least, "only {sheets} sheets found");
    assert!(
        failures.is_empty(),
        "{} sheets differ:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
