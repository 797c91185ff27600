//! Many workbooks through the Arrow layer's `ManySheetsReader`: one pool of
//! (file, sheet) pairs, columns united by name across files whose column
//! orders differ, an unreadable file and damaged sheets failed fast or
//! skipped and reported, the values and the order of each sheet's batches.
#![cfg(feature = "arrow")]

use crate::common;

use std::collections::BTreeMap;

use common::{TempFile, book, sheet_xml};
use sheetstream::arrow::arrow_array::{Array, Float64Array, Int64Array, StringArray};
use sheetstream::arrow::arrow_schema::DataType;
use sheetstream::arrow::{ArrowOptions, SheetChoice};

fn inline(reference: &str, text: &str) -> String {
    format!(r#"<c r="{reference}" t="inlineStr"><is><t>{text}</t></is></c>"#)
}

fn number(reference: &str, value: &str) -> String {
    format!(r#"<c r="{reference}"><v>{value}</v></c>"#)
}

fn letter(column: usize) -> char {
    (b'A' + column as u8) as char
}

/// Workbook `n`: one sheet "Data", rows 2..=31+n. Its columns are a
/// rotation of (id, name, value) by `n`, and even workbooks lack `value`
/// when `n % 4 == 2`: id = 1000 n + row, name = "f{n}r{row}", value =
/// row + 0.5.
fn numbered_book(n: usize) -> Vec<u8> {
    let mut names = vec!["id", "name", "value"];
    if n % 4 == 2 {
        names.pop();
    }
    let len = names.len();
    names.rotate_left(n % len);
    let mut rows = vec![format!(
        r#"<row r="1">{}</row>"#,
        names
            .iter()
            .enumerate()
            .map(|(at, name)| inline(&format!("{}1", letter(at)), name))
            .collect::<String>()
    )];
    for row in 2..=31 + n {
        let cells: String = names
            .iter()
            .enumerate()
            .map(|(at, name)| {
                let reference = format!("{}{row}", letter(at));
                match *name {
                    "id" => number(&reference, &(1000 * n + row).to_string()),
                    "name" => inline(&reference, &format!("f{n}r{row}")),
                    _ => number(&reference, &format!("{row}.5")),
                }
            })
            .collect();
        rows.push(format!(r#"<row r="{row}">{cells}</row>"#));
    }
    book().sheet("Data", sheet_xml(&rows.concat())).build()
}

/// A workbook whose sheet breaks at `row` (a cell left open): within the
/// sample (row 3) or after it (row 20, with a sample of 5 rows).
fn broken_book(row: usize) -> Vec<u8> {
    let mut rows = vec![format!(r#"<row r="1">{}</row>"#, inline("A1", "id"))];
    for at in 2..row {
        rows.push(format!(
            r#"<row r="{at}">{}</row>"#,
            number(&format!("A{at}"), "1")
        ));
    }
    rows.push(format!(r#"<row r="{row}"><c r="A{row}"><v>1</v></row>"#));
    book().sheet("Data", sheet_xml(&rows.concat())).build()
}

struct Files {
    good: Vec<TempFile>,
    not_a_workbook: TempFile,
    broken_in_sample: TempFile,
    broken_after_sample: TempFile,
}

fn files() -> Files {
    Files {
        good: (0..8)
            .map(|n| common::temp_file(&format!("arrow-many-good-{n}"), &numbered_book(n)))
            .collect(),
        not_a_workbook: common::temp_file("arrow-many-not-a-workbook", b"plain text"),
        broken_in_sample: common::temp_file("arrow-many-broken-3", &broken_book(3)),
        broken_after_sample: common::temp_file("arrow-many-broken-20", &broken_book(20)),
    }
}

fn options(threads: usize) -> ArrowOptions {
    ArrowOptions::new()
        .union_by_name(true)
        .file_column(Some("file"))
        .sheet_column(Some("sheet"))
        .schema_sample_rows(5)
        .batch_size(7)
        .threads(threads)
}

/// Per file: its rows (id, name, value) in the order they came, and the
/// first row of each batch.
type Read = BTreeMap<String, (Vec<(Option<i64>, Option<String>, Option<f64>)>, Vec<u32>)>;

fn read(reader: &mut sheetstream::arrow::ManySheetsReader) -> sheetstream::Result<Read> {
    let mut read = Read::new();
    while let Some(batch) = reader.next_batch()? {
        let report = reader.report();
        let file = |at: usize| {
            batch
                .column_by_name("file")
                .unwrap()
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap()
                .value(at)
                .to_owned()
        };
        let label = file(0);
        assert_eq!(report.file.as_deref(), Some(label.as_str()));
        assert_eq!(report.rows, batch.num_rows());
        let sheet = batch.column_by_name("sheet").unwrap();
        let sheet = sheet.as_any().downcast_ref::<StringArray>().unwrap();
        let id = batch.column_by_name("id").unwrap();
        let id = id.as_any().downcast_ref::<Int64Array>().unwrap();
        let name = batch.column_by_name("name").unwrap();
        let name = name.as_any().downcast_ref::<StringArray>().unwrap();
        let value = batch.column_by_name("value").unwrap();
        let value = value.as_any().downcast_ref::<Float64Array>().unwrap();
        let entry = read.entry(label.clone()).or_default();
        entry.1.push(report.first_row);
        for at in 0..batch.num_rows() {
            assert_eq!(file(at), label, "one file per batch");
            assert_eq!(sheet.value(at), "Data");
            entry.0.push((
                id.is_valid(at).then(|| id.value(at)),
                name.is_valid(at).then(|| name.value(at).to_owned()),
                value.is_valid(at).then(|| value.value(at)),
            ));
        }
    }
    Ok(read)
}

/// What workbook `n` holds, row by row.
fn expected_rows(n: usize) -> Vec<(Option<i64>, Option<String>, Option<f64>)> {
    (2..=31 + n)
        .map(|row| {
            (
                Some((1000 * n + row) as i64),
                Some(format!("f{n}r{row}")),
                (n % 4 != 2).then_some(row as f64 + 0.5),
            )
        })
        .collect()
}

#[test]
fn many_files_united_by_name_in_parallel() {
    let files = files();
    let paths: Vec<_> = files.good.iter().map(|file| &file.0).collect();
    for threads in [1, 2, 3] {
        let mut reader = options(threads)
            .read_files(&paths, SheetChoice::All)
            .unwrap();
        let schema = reader.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        // In the order first met, file by file: file 0 has id, name, value.
        assert_eq!(names, ["file", "sheet", "id", "name", "value"]);
        assert_eq!(schema.field(2).data_type(), &DataType::Int64);
        assert_eq!(schema.field(3).data_type(), &DataType::Utf8);
        assert_eq!(schema.field(4).data_type(), &DataType::Float64);
        let read = read(&mut reader).unwrap();
        assert!(reader.skipped().is_empty());
        assert_eq!(read.len(), 8, "{threads} threads");
        for (n, file) in files.good.iter().enumerate() {
            let (rows, firsts) = &read[&file.0.display().to_string()];
            assert_eq!(rows, &expected_rows(n), "file {n}, {threads} threads");
            // One sheet's batches in order: 7 rows each from sheet row 1.
            let expected_firsts: Vec<u32> = (0..rows.len().div_ceil(7))
                .map(|batch| 1 + 7 * batch as u32)
                .collect();
            assert_eq!(firsts, &expected_firsts, "file {n}");
        }
    }
}

#[test]
fn output_columns_project_the_united_columns() {
    // A query engine's projection over many files: the united columns
    // named, in that order; a file lacking one reads nulls there; the
    // others' cells are not read (the report counts cells of the
    // projected columns only).
    let files = files();
    let paths: Vec<_> = files.good.iter().map(|file| &file.0).collect();
    for threads in [1, 2] {
        let mut reader = options(threads)
            .sheet_column(None::<String>)
            .output_columns(Some(vec!["value".to_owned(), "id".to_owned()]))
            .read_files(&paths, SheetChoice::All)
            .unwrap();
        let schema = reader.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["file", "value", "id"]);
        let mut rows: BTreeMap<String, Vec<(Option<f64>, i64)>> = BTreeMap::new();
        while let Some(batch) = reader.next_batch().unwrap() {
            let cells: usize = (0..batch.num_rows())
                .map(|at| {
                    let value = batch
                        .column(1)
                        .as_any()
                        .downcast_ref::<Float64Array>()
                        .unwrap();
                    1 + usize::from(value.is_valid(at))
                })
                .sum();
            assert_eq!(
                reader.report().cells,
                cells,
                "only the projected cells read"
            );
            let file = batch
                .column(0)
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap();
            let value = batch
                .column(1)
                .as_any()
                .downcast_ref::<Float64Array>()
                .unwrap();
            let id = batch
                .column(2)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap();
            for at in 0..batch.num_rows() {
                rows.entry(file.value(at).to_owned())
                    .or_default()
                    .push((value.is_valid(at).then(|| value.value(at)), id.value(at)));
            }
        }
        for (n, file) in files.good.iter().enumerate() {
            let expected: Vec<(Option<f64>, i64)> = expected_rows(n)
                .into_iter()
                .map(|(id, _, value)| (value, id.unwrap()))
                .collect();
            assert_eq!(rows[&file.0.display().to_string()], expected, "file {n}");
        }
        // No column but the file's: the rows are still counted.
        let mut reader = options(threads)
            .output_columns(Some(Vec::new()))
            .read_files(&paths, SheetChoice::All)
            .unwrap();
        assert_eq!(reader.schema().fields().len(), 2);
        let mut count = 0;
        while let Some(batch) = reader.next_batch().unwrap() {
            count += batch.num_rows();
        }
        assert_eq!(count, (0..8).map(|n| 30 + n).sum::<usize>());
        // A name no sheet has.
        let err = options(threads)
            .output_columns(Some(vec!["nope".to_owned()]))
            .read_files(&paths, SheetChoice::All)
            .unwrap_err();
        assert!(err.to_string().contains("`nope`"), "{err}");
    }
}

#[test]
fn an_unreadable_file_or_sheet_fails_fast_or_is_skipped_and_reported() {
    let files = files();
    let good: Vec<_> = files.good.iter().map(|file| file.0.clone()).collect();
    for threads in [1, 2] {
        // Fail fast: a file that is no workbook fails at once, naming it.
        let mut with_text = good.clone();
        with_text.insert(3, files.not_a_workbook.0.clone());
        let err = options(threads)
            .read_files(&with_text, SheetChoice::All)
            .unwrap_err();
        assert!(
            err.to_string().contains("arrow-many-not-a-workbook"),
            "{err}"
        );
        // Damage within the sample fails the first pass, naming the sheet.
        let mut with_damage = good.clone();
        with_damage.push(files.broken_in_sample.0.clone());
        let err = options(threads)
            .read_files(&with_damage, SheetChoice::All)
            .unwrap_err();
        assert!(err.to_string().contains("sheet 'Data'"), "{err}");
        assert_eq!(err.location().row, Some(3), "{err}");
        let in_sample = files.broken_in_sample.0.display().to_string();
        assert_eq!(err.location().file.as_ref(), Some(&in_sample), "{err}");
        // Damage after the sample fails a later batch, naming the row.
        let mut with_late_damage = good.clone();
        with_late_damage.insert(0, files.broken_after_sample.0.clone());
        let mut reader = options(threads)
            .read_files(&with_late_damage, SheetChoice::All)
            .unwrap();
        let err = read(&mut reader).unwrap_err();
        assert_eq!(err.location().row, Some(20), "{err}");
        let after_sample = files.broken_after_sample.0.display().to_string();
        assert_eq!(err.location().file.as_ref(), Some(&after_sample), "{err}");
        assert_eq!(reader.next_batch().unwrap(), None, "done after the error");

        // Skip and report: each (file, sheet, error), every good row read.
        let mut all = good.clone();
        all.insert(2, files.not_a_workbook.0.clone());
        all.insert(5, files.broken_in_sample.0.clone());
        all.push(files.broken_after_sample.0.clone());
        let mut reader = options(threads)
            .skip_unreadable(true)
            .read_files(&all, SheetChoice::All)
            .unwrap();
        let read = read(&mut reader).unwrap();
        for (n, file) in files.good.iter().enumerate() {
            let (rows, _) = &read[&file.0.display().to_string()];
            assert_eq!(rows, &expected_rows(n), "file {n}, {threads} threads");
        }
        // The late damage: rows before its last full batch came out, each
        // with its id (the sheet has no name or value column).
        let late = files.broken_after_sample.0.display().to_string();
        let late_rows = read.get(&late).map_or(0, |(rows, _)| rows.len());
        assert!(late_rows < 18, "{late_rows} rows of the damaged sheet");
        let mut skipped: Vec<(String, String, Option<u32>)> = reader
            .skipped()
            .iter()
            .map(|skipped| {
                (
                    skipped.file.clone(),
                    skipped.sheet.clone(),
                    skipped.error.location().row,
                )
            })
            .collect();
        skipped.sort();
        let mut expected = vec![
            (late, "Data".to_owned(), Some(20)),
            (
                files.broken_in_sample.0.display().to_string(),
                "Data".to_owned(),
                Some(3),
            ),
            (
                files.not_a_workbook.0.display().to_string(),
                String::new(),
                None,
            ),
        ];
        expected.sort();
        assert_eq!(skipped, expected, "{threads} threads");
    }
}
