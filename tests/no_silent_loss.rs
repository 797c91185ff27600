//! Typed output never loses a value silently (issue 22): a value that does
//! not fit its column's sampled type widens the column in a whole-table
//! read or fails a stream naming the cell; error cells are values; a
//! column selection never changes the number of rows. Through the
//! library, the many-file reader and the CLI, on workbooks the tests write.
#![cfg(feature = "cli")]

use crate::common;

use std::sync::Arc;

use common::{book, run_cli_args, sheet_xml, styles_xml, temp_dir, temp_file};
use sheetstream::arrow::arrow_array::{Array, Float64Array, RecordBatch, StringArray};
use sheetstream::arrow::arrow_schema::DataType;
use sheetstream::arrow::{ALL_ROWS, ArrowOptions, OnErrorValue, OnMismatch, SheetChoice};
use sheetstream::{ColumnSpec, ErrorKind, Workbook};

fn inline(reference: &str, text: &str) -> String {
    format!(r#"<c r="{reference}" t="inlineStr"><is><t>{text}</t></is></c>"#)
}

fn number(reference: &str, value: &str, style: u32) -> String {
    format!(r#"<c r="{reference}" s="{style}"><v>{value}</v></c>"#)
}

/// A header `n`, 1,999 rows of 10, then 1,001 rows of 10.5: the sample of
/// 1,000 rows says Int64.
fn int_then_fraction() -> Vec<u8> {
    let mut rows =
        String::from(r#"<row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row>"#);
    for index in 2..=3_001u32 {
        let value = if index <= 2_000 { "10" } else { "10.5" };
        rows.push_str(&format!(
            r#"<row r="{index}">{}</row>"#,
            number(&format!("A{index}"), value, 0)
        ));
    }
    book().sheet("Data", sheet_xml(&rows)).build()
}

fn float_sum(batches: &[RecordBatch], name: &str) -> (f64, usize) {
    let mut sum = 0.0;
    let mut nulls = 0;
    for batch in batches {
        let column = batch.column_by_name(name).expect("the column");
        let values = column.as_any().downcast_ref::<Float64Array>().unwrap();
        sum += values.iter().flatten().sum::<f64>();
        nulls += values.null_count();
    }
    (sum, nulls)
}

fn rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

#[test]
fn a_fraction_after_the_sample_widens_a_whole_table_to_float64() {
    let mut workbook = Workbook::from_bytes(int_then_fraction()).unwrap();
    let (schema, batches) = ArrowOptions::new()
        .read_sheet_table(&mut workbook, "Data")
        .unwrap();
    assert_eq!(schema.field(0).data_type(), &DataType::Float64);
    assert_eq!(rows(&batches), 3_000);
    assert_eq!(float_sum(&batches, "n"), (30_500.5, 0));
}

#[test]
fn a_stream_fails_on_the_fraction_naming_cell_value_and_options() {
    let mut workbook = Workbook::from_bytes(int_then_fraction()).unwrap();
    let mut batches = ArrowOptions::new()
        .read_sheet(&mut workbook, "Data")
        .unwrap();
    let err = loop {
        match batches.next_batch() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the misfit was not reported"),
            Err(err) => break err,
        }
    };
    drop(batches);
    assert!(matches!(err.kind(), ErrorKind::Mismatch { .. }), "{err}");
    let message = err.to_string();
    for part in [
        "`10.5` does not fit column `n` (int64, as the first 1000 rows with values made it; every row together needs float64)",
        "(at sheet 'Data', cell A2001)",
        "schema_sample_rows=None",
        r#"dtypes={"n": "float64"}"#,
        r#"on_mismatch="null""#,
    ] {
        assert!(message.contains(part), "{part}: {message}");
    }
    // The widening that error carries reads every value.
    let options = ArrowOptions::new().widened_by(&err).expect("a widening");
    let batches = options
        .read_sheet(&mut workbook, "Data")
        .unwrap()
        .collect_batches()
        .unwrap();
    assert_eq!(float_sum(&batches, "n"), (30_500.5, 0));
    // Read again as widely, the same error widens nothing more.
    assert!(options.widened_by(&err).is_none());
}

#[test]
fn every_row_inferred_streams_float64_in_two_passes() {
    let mut workbook = Workbook::from_bytes(int_then_fraction()).unwrap();
    let batches = ArrowOptions::new()
        .schema_sample_rows(ALL_ROWS)
        .read_sheet(&mut workbook, "Data")
        .unwrap()
        .collect_batches()
        .unwrap();
    assert_eq!(batches[0].schema().field(0).data_type(), &DataType::Float64);
    assert_eq!(float_sum(&batches, "n"), (30_500.5, 0));
    // The owned reader too.
    let workbook = Arc::new(Workbook::from_bytes(int_then_fraction()).unwrap());
    let reader = ArrowOptions::new()
        .schema_sample_rows(ALL_ROWS)
        .sheet_reader(workbook, "Data")
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(float_sum(&batches, "n"), (30_500.5, 0));
}

#[test]
fn misfits_are_null_only_when_asked_and_then_counted() {
    let mut workbook = Workbook::from_bytes(int_then_fraction()).unwrap();
    let mut batches = ArrowOptions::new()
        .on_mismatch(OnMismatch::Null)
        .read_sheet(&mut workbook, "Data")
        .unwrap();
    let mut coerced = 0;
    let mut read = Vec::new();
    while let Some(batch) = batches.next_batch().unwrap() {
        coerced += batches.report().coerced_cells;
        read.push(batch);
    }
    assert_eq!(coerced, 1_001);
    assert_eq!(read[0].schema().field(0).data_type(), &DataType::Int64);
    assert_eq!(rows(&read), 3_000);
    let first = &batches.report().issues;
    assert!(first.is_empty() || first[0].to_string().contains("did not fit int64"));
}

/// A header `id, note`; `note` empty in the first 1,500 rows, then text.
fn text_after_an_empty_sample() -> Vec<u8> {
    let mut rows = format!(
        r#"<row r="1">{}{}</row>"#,
        inline("A1", "id"),
        inline("B1", "note")
    );
    for index in 2..=1_700u32 {
        let note = if index > 1_501 {
            inline(&format!("B{index}"), &format!("note {index}"))
        } else {
            String::new()
        };
        rows.push_str(&format!(
            r#"<row r="{index}">{}{note}</row>"#,
            number(&format!("A{index}"), &index.to_string(), 0)
        ));
    }
    book().sheet("S", sheet_xml(&rows)).build()
}

#[test]
fn text_after_an_empty_sample_widens_the_null_column_to_utf8() {
    let mut workbook = Workbook::from_bytes(text_after_an_empty_sample()).unwrap();
    let stream = ArrowOptions::new().read_sheet(&mut workbook, 0).unwrap();
    assert_eq!(stream.schema().field(1).data_type(), &DataType::Null);
    drop(stream);
    let (schema, batches) = ArrowOptions::new()
        .read_sheet_table(&mut workbook, 0)
        .unwrap();
    assert_eq!(schema.field(1).data_type(), &DataType::Utf8);
    let notes: Vec<String> = batches
        .iter()
        .flat_map(|batch| {
            let notes = batch
                .column(1)
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap();
            notes
                .iter()
                .flatten()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(notes.len(), 199);
    assert_eq!(
        (notes[0].as_str(), notes[198].as_str()),
        ("note 1502", "note 1700")
    );
}

#[test]
fn a_value_right_of_every_sampled_column_adds_a_column() {
    let rows = [
        format!(r#"<row r="1">{}</row>"#, inline("A1", "a")),
        format!(r#"<row r="2">{}</row>"#, number("A2", "1", 0)),
        format!(
            r#"<row r="3">{}{}</row>"#,
            number("A3", "2", 0),
            inline("C3", "late")
        ),
    ]
    .concat();
    let mut workbook = Workbook::from_bytes(book().sheet("S", sheet_xml(&rows)).build()).unwrap();
    let (schema, batches) = ArrowOptions::new()
        .schema_sample_rows(1)
        .read_sheet_table(&mut workbook, 0)
        .unwrap();
    let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["a", "column_2", "column_3"]);
    let late = batches[0]
        .column(2)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(late.iter().collect::<Vec<_>>(), [None, Some("late")]);
}

/// Styles: 0 General, 1 date (14), 2 elapsed `[hh]:mm:ss`.
fn dates_and_a_duration() -> Vec<u8> {
    let rows = [
        format!(r#"<row r="1">{}</row>"#, inline("A1", "when")),
        format!(r#"<row r="2">{}</row>"#, number("A2", "45352", 1)),
        format!(r#"<row r="3">{}</row>"#, number("A3", "45353", 1)),
        // 255:10:10 as days.
        format!(
            r#"<row r="4">{}</row>"#,
            number("A4", "10.63206018518519", 2)
        ),
    ]
    .concat();
    book()
        .sheet("S", sheet_xml(&rows))
        .styles(styles_xml(&[(164, "[hh]:mm:ss")], &[0, 14, 164]))
        .build()
}

#[test]
fn a_duration_among_dates_is_not_an_instant() {
    // In the sample: the column is text as the CSV writes each value.
    let mut workbook = Workbook::from_bytes(dates_and_a_duration()).unwrap();
    let (schema, batches) = ArrowOptions::new()
        .read_sheet_table(&mut workbook, 0)
        .unwrap();
    assert_eq!(schema.field(0).data_type(), &DataType::Utf8);
    let when = batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let got: Vec<Option<&str>> = when.iter().collect();
    assert_eq!(
        got,
        [Some("2024-03-01"), Some("2024-03-02"), Some("255:10:10")]
    );
    // After the sample: a Date32 column widens to text, not to Timestamp.
    let (schema, batches) = ArrowOptions::new()
        .schema_sample_rows(2)
        .read_sheet_table(&mut workbook, 0)
        .unwrap();
    assert_eq!(schema.field(0).data_type(), &DataType::Utf8);
    let when = batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(when.value(2), "255:10:10");
}

/// `v` holds numbers and error cells; `t` text and an error cell.
fn error_cells() -> Vec<u8> {
    let error =
        |reference: &str, code: &str| format!(r#"<c r="{reference}" t="e"><v>{code}</v></c>"#);
    let rows = [
        format!(
            r#"<row r="1">{}{}</row>"#,
            inline("A1", "v"),
            inline("B1", "t")
        ),
        format!(
            r#"<row r="2">{}{}</row>"#,
            number("A2", "1.5", 0),
            inline("B2", "x")
        ),
        format!(
            r#"<row r="3">{}{}</row>"#,
            error("A3", "#DIV/0!"),
            error("B3", "#N/A")
        ),
    ]
    .concat();
    book().sheet("S", sheet_xml(&rows)).build()
}

#[test]
fn error_cells_are_values_null_by_default_and_kept_as_codes_in_text() {
    let mut workbook = Workbook::from_bytes(error_cells()).unwrap();
    let mut batches = ArrowOptions::new()
        .on_mismatch(OnMismatch::Strict)
        .read_sheet(&mut workbook, 0)
        .unwrap();
    let batch = batches.next_batch().unwrap().unwrap();
    assert_eq!(batches.report().error_cells, 2);
    let v = batch
        .column(0)
        .as_any()
        .downcast_ref::<Float64Array>()
        .unwrap();
    assert_eq!(v.iter().collect::<Vec<_>>(), [Some(1.5), None]);
    let t = batch
        .column(1)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(t.iter().collect::<Vec<_>>(), [Some("x"), Some("#N/A")]);
    drop(batches);
    let err = ArrowOptions::new()
        .on_error_value(OnErrorValue::Strict)
        .read_sheet(&mut workbook, 0)
        .unwrap()
        .collect_batches()
        .unwrap_err();
    assert!(err.to_string().contains("error value #DIV/0!"), "{err}");
    assert_eq!(err.location().row, Some(3));
}

/// Column C has values in rows 1-2 only, column D none; A and B to row 5.
fn short_column() -> Vec<u8> {
    let rows = [
        format!(
            r#"<row r="1">{}{}{}</row>"#,
            inline("A1", "a"),
            inline("B1", "b"),
            inline("C1", "c")
        ),
        format!(
            r#"<row r="2">{}{}{}</row>"#,
            number("A2", "1", 0),
            number("B2", "2", 0),
            number("C2", "3", 0)
        ),
        format!(r#"<row r="3">{}</row>"#, number("A3", "4", 0)),
        format!(r#"<row r="5">{}</row>"#, number("B5", "5", 0)),
    ]
    .concat();
    book().sheet("S", sheet_xml(&rows)).build()
}

#[test]
fn a_column_selection_keeps_every_row() {
    let all = {
        let mut workbook = Workbook::from_bytes(short_column()).unwrap();
        rows(
            &ArrowOptions::new()
                .read_sheet_table(&mut workbook, 0)
                .unwrap()
                .1,
        )
    };
    assert_eq!(all, 4);
    for spec in ["c", "C", "D", "3", "C,A"] {
        let mut workbook = Workbook::from_bytes(short_column()).unwrap();
        let options = ArrowOptions::new().columns(ColumnSpec::parse(spec).unwrap());
        let (_, batches) = options.read_sheet_table(&mut workbook, 0).unwrap();
        assert_eq!(rows(&batches), all, "columns {spec}");
        // A short sample and batches of one row: held rows too.
        let mut workbook = Workbook::from_bytes(short_column()).unwrap();
        let options = options.schema_sample_rows(1).batch_size(1);
        let (_, batches) = options.read_sheet_table(&mut workbook, 0).unwrap();
        assert_eq!(rows(&batches), all, "columns {spec}, one-row batches");
    }
    // The rows of a selected column past its last value are nulls.
    let mut workbook = Workbook::from_bytes(short_column()).unwrap();
    let (_, batches) = ArrowOptions::new()
        .columns(ColumnSpec::parse("c").unwrap())
        .read_sheet_table(&mut workbook, 0)
        .unwrap();
    assert_eq!(batches[0].column(0).null_count(), 3);
}

/// Every batch of `read_files`, read again wider while a misfit widens a
/// column; with the file each misfit was in.
fn read_files_widening(
    mut options: ArrowOptions,
    paths: &[&std::path::PathBuf],
) -> (Vec<RecordBatch>, Vec<String>) {
    let mut misfits = Vec::new();
    loop {
        let read = options
            .read_files(paths, SheetChoice::All)
            .and_then(|mut reader| {
                let mut batches = Vec::new();
                while let Some(batch) = reader.next_batch()? {
                    batches.push(batch);
                }
                Ok(batches)
            });
        match read {
            Ok(batches) => return (batches, misfits),
            Err(err) => {
                misfits.push(err.location().file.clone().unwrap_or_default());
                options = options.widened_by(&err).expect("a widening");
            }
        }
    }
}

#[test]
fn the_many_file_reader_widens_through_the_union() {
    let files = temp_dir("no-silent-loss-many");
    let small = {
        let rows = [
            format!(r#"<row r="1">{}</row>"#, inline("A1", "n")),
            format!(r#"<row r="2">{}</row>"#, number("A2", "1", 0)),
        ]
        .concat();
        book().sheet("S", sheet_xml(&rows)).build()
    };
    let a = files.0.join("a.xlsx");
    let b = files.0.join("b.xlsx");
    std::fs::write(&a, small).unwrap();
    std::fs::write(&b, int_then_fraction()).unwrap();
    let options = ArrowOptions::new().union_by_name(true).threads(2);
    let (batches, misfits) = read_files_widening(options, &[&a, &b]);
    // One read again, for the misfit in b's sheet.
    assert_eq!(misfits, [b.to_str().unwrap()]);
    assert_eq!(float_sum(&batches, "n"), (30_501.5, 0));
}

#[test]
fn the_cli_parquet_widens_and_csv_columns_keeps_rows() {
    let book = temp_file("no-silent-loss", &int_then_fraction());
    let out = temp_dir("no-silent-loss-out");
    let parquet = out.0.join("n.parquet");
    let run = run_cli_args(&[
        "parquet",
        book.0.to_str().unwrap(),
        "-o",
        parquet.to_str().unwrap(),
        "--quiet",
    ]);
    assert!((run.code == Some(0)), "{}", run.stderr);
    let file = std::fs::File::open(&parquet).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(float_sum(&batches, "n"), (30_500.5, 0));
    // No file is left beside it.
    let left: Vec<_> = std::fs::read_dir(&out.0).unwrap().collect();
    assert_eq!(left.len(), 1);

    // A stream fails, naming the cell; nulling is asked for and reported.
    let arrow = std::process::Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args(["arrow", book.0.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&arrow.stderr);
    assert!(!arrow.status.success());
    assert!(stderr.contains("cell A2001"), "{stderr}");
    let run = run_cli_args(&[
        "parquet",
        book.0.to_str().unwrap(),
        "-o",
        parquet.to_str().unwrap(),
        "--on-mismatch",
        "null",
    ]);
    assert!((run.code == Some(0)), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("1001 values that did not fit their column became null")
            && run
                .stderr
                .contains("cell A2001 (column `n`): `10.5` did not fit int64"),
        "{}",
        run.stderr
    );

    let short = temp_file("no-silent-loss-short", &short_column());
    let all = run_cli_args(&["csv", short.0.to_str().unwrap()]);
    let some = run_cli_args(&["csv", short.0.to_str().unwrap(), "--columns", "C"]);
    assert_eq!(all.stdout.lines().count(), 5, "{}", all.stdout);
    // One column wide: an empty record is `""` (a blank line would be skipped).
    assert_eq!(some.stdout, "c\n3\n\"\"\n\"\"\n\"\"\n");
    let all = run_cli_args(&["jsonl", short.0.to_str().unwrap()]);
    let some = run_cli_args(&["jsonl", short.0.to_str().unwrap(), "--columns", "c"]);
    assert_eq!(all.stdout.lines().count(), 3, "{}", all.stdout);
    assert_eq!(some.stdout.lines().count(), 3, "{}", some.stdout);
}

#[test]
fn a_column_added_by_widening_joins_a_union_by_position() {
    let files = temp_dir("no-silent-loss-position");
    // Two sampled rows of A, then a value in C: a third column.
    let sheet_rows = [
        format!(r#"<row r="1">{}</row>"#, inline("A1", "a")),
        format!(r#"<row r="2">{}</row>"#, number("A2", "1", 0)),
        format!(
            r#"<row r="3">{}{}</row>"#,
            number("A3", "2", 0),
            number("C3", "9", 0)
        ),
    ]
    .concat();
    let path = files.0.join("late.xlsx");
    std::fs::write(&path, book().sheet("S", sheet_xml(&sheet_rows)).build()).unwrap();
    // Another file of one column, never widened.
    let plain = files.0.join("plain.xlsx");
    let plain_rows = [
        format!(r#"<row r="1">{}</row>"#, inline("A1", "a")),
        format!(r#"<row r="2">{}</row>"#, number("A2", "3", 0)),
    ]
    .concat();
    std::fs::write(&plain, book().sheet("S", sheet_xml(&plain_rows)).build()).unwrap();
    let options = ArrowOptions::new().schema_sample_rows(1).threads(2);
    let (batches, _) = read_files_widening(options, &[&path, &plain, &path]);
    let names: Vec<String> = batches[0]
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, ["a", "column_2", "column_3"]);
    assert_eq!(rows(&batches), 5);
    let nines: usize = batches
        .iter()
        .map(|batch| batch.column(2).len() - batch.column(2).null_count())
        .sum();
    // The same path twice: one label, so the widening found in one read
    // of it applies to both, and both C3 values are read; the plain file
    // reads nulls in the columns it does not have.
    assert_eq!(nines, 2);
}
