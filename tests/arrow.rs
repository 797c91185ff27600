//! The typed Arrow layer (feature `arrow`): inference, header edge cases,
//! overrides, strict and coerce, early stop, gaps and batches, projection,
//! and the owned reader, on workbooks the tests write.
#![cfg(feature = "arrow")]

use crate::common;

use std::sync::Arc;

use common::{book, sheet_xml, styles_xml};
use sheetstream::arrow::arrow_array::{
    Array, BooleanArray, Date32Array, DurationMillisecondArray, Float64Array, Int64Array,
    RecordBatch, StringArray, Time32MillisecondArray, TimestampMillisecondArray,
};
use sheetstream::arrow::arrow_schema::DataType;
use sheetstream::arrow::{
    ArrowOptions, ColumnType, Header, IssueKind, OnErrorValue, OnMismatch, SheetChoice,
};
use sheetstream::{ColumnSpec, ErrorKind, Workbook};

fn inline(reference: &str, text: &str) -> String {
    format!(r#"<c r="{reference}" t="inlineStr"><is><t>{text}</t></is></c>"#)
}

fn number(reference: &str, value: &str, style: u32) -> String {
    format!(r#"<c r="{reference}" s="{style}"><v>{value}</v></c>"#)
}

fn row(index: u32, cells: &[String]) -> String {
    format!(r#"<row r="{index}">{}</row>"#, cells.concat())
}

/// Styles: 0 General, 1 date (14), 2 date-time (22), 3 time (20),
/// 4 elapsed (46), 5 `0.00` (2).
fn styles() -> String {
    styles_xml(&[], &[0, 14, 22, 20, 46, 2])
}

fn read_all(bytes: Vec<u8>, options: &ArrowOptions) -> sheetstream::Result<Vec<RecordBatch>> {
    let mut workbook = Workbook::from_bytes(bytes)?;
    let mut batches = options.read_sheet(&mut workbook, 0)?;
    let mut out = Vec::new();
    while let Some(batch) = batches.next_batch()? {
        out.push(batch);
    }
    Ok(out)
}

fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> &'a T {
    batch
        .column_by_name(name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .as_any()
        .downcast_ref::<T>()
        .unwrap_or_else(|| panic!("column {name} is not the expected array type"))
}

/// One column of every inferred type, three data rows.
fn typed_book() -> Vec<u8> {
    let header: Vec<String> = [
        "id", "price", "name", "flag", "day", "when", "clock", "elapsed", "empty", "mixed",
        "fraction",
    ]
    .iter()
    .enumerate()
    .map(|(i, name)| inline(&format!("{}1", (b'A' + i as u8) as char), name))
    .collect();
    let mut rows = vec![row(1, &header)];
    for (r, (id, price, flag, mixed)) in [
        ("1", "2.5", "1", "7"),
        ("2", "3", "0", "x"),
        ("3", "-4.25", "1", "8"),
    ]
    .iter()
    .enumerate()
    {
        let n = r as u32 + 2;
        let mixed_cell = if *mixed == "x" {
            inline(&format!("J{n}"), "x")
        } else {
            number(&format!("J{n}"), mixed, 0)
        };
        rows.push(row(
            n,
            &[
                number(&format!("A{n}"), id, 0),
                number(&format!("B{n}"), price, 0),
                inline(&format!("C{n}"), &format!("item {n}")),
                format!(r#"<c r="D{n}" t="b"><v>{flag}</v></c>"#),
                number(&format!("E{n}"), &format!("{}", 45_352 + r), 1),
                number(&format!("F{n}"), "45352.5", 2),
                number(&format!("G{n}"), "0.75", 3),
                number(&format!("H{n}"), "1.5", 4),
                mixed_cell,
                number(&format!("K{n}"), "2", 5),
            ],
        ));
    }
    book()
        .styles(styles())
        .sheet("Data", sheet_xml(&rows.concat()))
        .build()
}

#[test]
fn infers_every_type_and_converts_the_values() {
    let batches = read_all(typed_book(), &ArrowOptions::new()).unwrap();
    assert_eq!(batches.len(), 1);
    let batch = &batches[0];
    let types: Vec<(String, DataType)> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let expected = [
        ("id", ColumnType::Int64),
        ("price", ColumnType::Float64),
        ("name", ColumnType::Utf8),
        ("flag", ColumnType::Boolean),
        ("day", ColumnType::Date32),
        ("when", ColumnType::Timestamp),
        ("clock", ColumnType::Time),
        ("elapsed", ColumnType::Duration),
        ("empty", ColumnType::Null),
        ("mixed", ColumnType::Utf8),
    ];
    assert_eq!(types.len(), 11, "{types:?}");
    for (name, ty) in &expected {
        let found = types.iter().find(|(n, _)| n == name).expect(name);
        assert_eq!(found.1, ty.data_type(), "{name}");
    }
    assert_eq!(
        types.iter().find(|(n, _)| n == "fraction").unwrap().1,
        DataType::Float64,
        "a 0.00 format makes whole numbers Float64"
    );
    assert_eq!(batch.num_rows(), 3);
    assert_eq!(column::<Int64Array>(batch, "id").values(), &[1, 2, 3]);
    assert_eq!(
        column::<Float64Array>(batch, "price").values(),
        &[2.5, 3.0, -4.25]
    );
    assert_eq!(column::<StringArray>(batch, "name").value(2), "item 4");
    assert!(column::<BooleanArray>(batch, "flag").value(0));
    assert!(!column::<BooleanArray>(batch, "flag").value(1));
    // 2024-03-01 is 19783 days after 1970-01-01.
    assert_eq!(
        column::<Date32Array>(batch, "day").values(),
        &[19_783, 19_784, 19_785]
    );
    assert_eq!(
        column::<TimestampMillisecondArray>(batch, "when").value(0),
        19_783 * 86_400_000 + 43_200_000
    );
    assert_eq!(
        column::<Time32MillisecondArray>(batch, "clock").value(0),
        64_800_000
    );
    assert_eq!(
        column::<DurationMillisecondArray>(batch, "elapsed").value(0),
        129_600_000
    );
    let mixed = column::<StringArray>(batch, "mixed");
    assert_eq!(
        (mixed.value(0), mixed.value(1), mixed.value(2)),
        ("7", "x", "8")
    );
    let empty = batch.column_by_name("empty").unwrap();
    assert_eq!(empty.data_type(), &DataType::Null);
    assert_eq!(
        (empty.len(), empty.logical_null_count()),
        (3, 3),
        "an all-empty column is Null, every row null"
    );
}

#[test]
fn header_names_are_made_unique_and_generated_where_missing() {
    let rows = [
        row(1, &[inline("A1", "skipped")]),
        row(
            3,
            &[inline("A3", "a"), inline("B3", "a"), inline("D3", "a_1")],
        ),
        row(
            4,
            &[
                number("A4", "1", 0),
                number("C4", "2", 0),
                number("E4", "3", 0),
            ],
        ),
    ]
    .concat();
    let bytes = book().sheet("S", sheet_xml(&rows)).build();
    let names = |options: ArrowOptions| -> Vec<String> {
        let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
        let schema = options.infer_schema(&mut workbook, 0).unwrap();
        schema.fields().iter().map(|f| f.name().clone()).collect()
    };
    assert_eq!(
        names(ArrowOptions::new().skip_rows(1)),
        ["a", "a_2", "column_3", "a_1", "column_5"]
    );
    // The first non-empty row is row 1 without skipping.
    assert_eq!(
        names(ArrowOptions::new()),
        ["skipped", "column_2", "column_3", "column_4", "column_5"]
    );
    assert_eq!(
        names(ArrowOptions::new().header(Header::Row(3))),
        ["1", "column_2", "2", "column_4", "3"]
    );
    let none = ArrowOptions::new().header(Header::None);
    assert_eq!(
        names(none.clone()),
        ["column_1", "column_2", "column_3", "column_4", "column_5"]
    );
    let batches = read_all(bytes.clone(), &none).unwrap();
    // Rows 1 to 4 (row 2 is a row of nulls); column A is text then numbers.
    assert_eq!(batches[0].num_rows(), 4);
    let a = column::<StringArray>(&batches[0], "column_1");
    assert_eq!(a.value(0), "skipped");
    assert!(a.is_null(1));
    assert_eq!(a.value(3), "1");
}

/// Two whole numbers in the sample, then a fraction, a text and an error.
fn late_misfits() -> Vec<u8> {
    let rows = [
        row(1, &[inline("A1", "n"), inline("B1", "other")]),
        row(2, &[number("A2", "1", 0)]),
        row(3, &[number("A3", "2", 0)]),
        row(4, &[number("A4", "2.5", 0)]),
        row(5, &[inline("A5", "many")]),
        row(6, &[r#"<c r="A6" t="e"><v>#N/A</v></c>"#.to_owned()]),
        row(7, &[number("A7", "7", 0), inline("C7", "late")]),
    ]
    .concat();
    book().sheet("S", sheet_xml(&rows)).build()
}

#[test]
fn on_mismatch_null_nulls_and_reports_what_does_not_fit_after_the_sample() {
    let options = ArrowOptions::new()
        .schema_sample_rows(2)
        .on_mismatch(OnMismatch::Null);
    let mut workbook = Workbook::from_bytes(late_misfits()).unwrap();
    let mut batches = options.read_sheet(&mut workbook, 0).unwrap();
    let batch = batches.next_batch().unwrap().unwrap();
    let n = column::<Int64Array>(&batch, "n");
    let got: Vec<Option<i64>> = n.iter().collect();
    assert_eq!(got, [Some(1), Some(2), None, None, None, Some(7)]);
    let report = batches.report().clone();
    assert_eq!(
        (
            report.coerced_cells,
            report.error_cells,
            report.dropped_cells
        ),
        (2, 1, 1)
    );
    assert_eq!(report.first_row, 1);
    assert_eq!(report.rows, 6);
    assert_eq!(
        report.issues[0].kind,
        IssueKind::DoesNotFit {
            value: "2.5".into(),
            column_type: ColumnType::Int64
        }
    );
    assert_eq!((report.issues[0].row, report.issues[0].column), (3, 0));
    assert_eq!(report.issues[2].kind, IssueKind::ErrorValue("#N/A".into()));
    assert_eq!(
        report.issues[3].kind,
        IssueKind::OutsideSchema {
            value: "late".into()
        }
    );
    assert!(batches.next_batch().unwrap().is_none());
}

#[test]
fn issues_per_batch_sets_how_many_issues_a_report_describes() {
    let options = ArrowOptions::new()
        .schema_sample_rows(2)
        .on_mismatch(OnMismatch::Null);
    let mut workbook = Workbook::from_bytes(late_misfits()).unwrap();
    let mut batches = options
        .issues_per_batch(2)
        .read_sheet(&mut workbook, 0)
        .unwrap();
    batches.next_batch().unwrap().unwrap();
    let report = batches.report();
    // The counts stay whole; only the first two issues are described.
    assert_eq!(
        (
            report.coerced_cells,
            report.error_cells,
            report.dropped_cells
        ),
        (2, 1, 1)
    );
    let rows: Vec<u32> = report.issues.iter().map(|issue| issue.row).collect();
    assert_eq!(rows, [3, 4]);
}

/// Rows 2..=6 hold 1..=5 in column A, then row 7 breaks the XML.
fn damaged_after_five_rows() -> Vec<u8> {
    let mut rows = vec![row(1, &[inline("A1", "n")])];
    rows.extend((2..=6).map(|index| {
        row(
            index,
            &[number(&format!("A{index}"), &(index - 1).to_string(), 0)],
        )
    }));
    rows.push(r#"<row r="7"><c r="A7"><v>6</v></c></rowx>"#.to_owned());
    book().sheet("S", sheet_xml(&rows.concat())).build()
}

#[test]
fn keep_rows_before_error_hands_out_the_batch_being_filled_then_the_error() {
    let options = ArrowOptions::new().schema_sample_rows(1).batch_size(2);
    // By default the batch being filled (row 6) is dropped with the error.
    let mut workbook = Workbook::from_bytes(damaged_after_five_rows()).unwrap();
    let mut batches = options.clone().read_sheet(&mut workbook, 0).unwrap();
    let mut seen = Vec::new();
    let err = loop {
        match batches.next_batch() {
            Ok(Some(batch)) => seen.extend(column::<Int64Array>(&batch, "n").iter()),
            Ok(None) => panic!("the damage was not reported"),
            Err(err) => break err,
        }
    };
    assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{err}");
    assert_eq!(seen, [Some(1), Some(2), Some(3), Some(4)]);
    drop(batches);
    // Kept: every row before the damage, then the same error, then the end.
    let mut batches = options
        .keep_rows_before_error(true)
        .read_sheet(&mut workbook, 0)
        .unwrap();
    let mut seen = Vec::new();
    let kept = loop {
        match batches.next_batch() {
            Ok(Some(batch)) => seen.extend(column::<Int64Array>(&batch, "n").iter()),
            Ok(None) => panic!("the damage was not reported"),
            Err(kept) => break kept,
        }
    };
    assert_eq!(seen, [Some(1), Some(2), Some(3), Some(4), Some(5)]);
    assert_eq!(kept.to_string(), err.to_string());
    assert!(batches.next_batch().unwrap().is_none());
}

#[test]
fn strict_fails_naming_sheet_row_column_and_value() {
    let options = ArrowOptions::new()
        .schema_sample_rows(2)
        .on_mismatch(OnMismatch::Strict);
    let err = read_all(late_misfits(), &options).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Mismatch { .. }), "{err}");
    let location = err.location();
    assert_eq!(location.sheet.as_deref(), Some("S"));
    assert_eq!((location.row, location.column), (Some(4), Some(1)));
    let message = err.to_string();
    assert!(
        message.contains(
            "`2.5` does not fit column `n` (int64, as the first 2 rows with values made it)"
        ),
        "{message}"
    );
    // The options that would take the value, in Python's and the CLI's words.
    for option in [
        "schema_sample_rows=None",
        "--schema-sample-rows all",
        r#"dtypes={"n": "float64"}"#,
        "--dtype 'n=float64'",
        r#"on_mismatch="null""#,
        "(at sheet 'S', cell A4)",
    ] {
        assert!(message.contains(option), "{option}: {message}");
    }
    // An override that takes every value: strict fails on the cell outside
    // the columns, not on the error cell (a value the workbook shows: its
    // code in a text column), unless error values are strict too.
    let options = options.dtype("n", ColumnType::Utf8);
    let err = read_all(late_misfits(), &options).unwrap_err();
    assert!(
        err.to_string()
            .contains("`late` does not fit column `C` (the schema has no such column"),
        "{err}"
    );
    assert_eq!(err.location().row, Some(7));
    let options = options.on_error_value(OnErrorValue::Strict);
    let err = read_all(late_misfits(), &options).unwrap_err();
    assert!(err.to_string().contains("error value #N/A"), "{err}");
    assert_eq!(err.location().row, Some(6));
}

#[test]
fn overrides_and_null_values() {
    let options = ArrowOptions::new()
        .dtype("n", ColumnType::Float64)
        .null_values(["many"]);
    let batches = read_all(late_misfits(), &options).unwrap();
    let n = column::<Float64Array>(&batches[0], "n");
    assert_eq!(n.value(2), 2.5);
    assert!(n.is_null(3) && n.is_null(4));
    let err = read_all(
        late_misfits(),
        &ArrowOptions::new().dtype("nope", ColumnType::Int64),
    )
    .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::ColumnSelection(_)), "{err}");
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
fn n_rows_stops_reading_the_sheet() {
    // Row 4 is malformed: reading to it would fail.
    let rows = [
        row(1, &[inline("A1", "n")]),
        row(2, &[number("A2", "1", 0)]),
        row(3, &[number("A3", "2", 0)]),
        r#"<row r="4"><c r="A4"><v>1</v></row>"#.to_owned(),
    ]
    .concat();
    let bytes = book().sheet("S", sheet_xml(&rows)).build();
    assert!(read_all(bytes.clone(), &ArrowOptions::new()).is_err());
    let batches = read_all(bytes, &ArrowOptions::new().n_rows(Some(2))).unwrap();
    assert_eq!(column::<Int64Array>(&batches[0], "n").values(), &[1, 2]);
}

#[test]
fn gaps_are_rows_of_nulls_and_batches_have_the_batch_size() {
    let mut rows = vec![row(1, &[inline("A1", "n")])];
    for n in [2u32, 3, 7, 8, 9] {
        rows.push(row(n, &[number(&format!("A{n}"), &n.to_string(), 0)]));
    }
    // A formatting-only row at the end is not a row of the table.
    rows.push(r#"<row r="20" ht="30" customHeight="1"/>"#.to_owned());
    let bytes = book().sheet("S", sheet_xml(&rows.concat())).build();
    for batch_size in [1, 2, 3, 100] {
        let options = ArrowOptions::new()
            .batch_size(batch_size)
            .schema_sample_rows(2);
        let batches = read_all(bytes.clone(), &options).unwrap();
        let values: Vec<Option<i64>> = batches
            .iter()
            .flat_map(|b| column::<Int64Array>(b, "n").iter().collect::<Vec<_>>())
            .collect();
        assert_eq!(
            values,
            [
                Some(2),
                Some(3),
                None,
                None,
                None,
                Some(7),
                Some(8),
                Some(9)
            ],
            "batch size {batch_size}"
        );
        assert!(batches.iter().all(|b| b.num_rows() <= batch_size));
        assert_eq!(batches.len(), 8usize.div_ceil(batch_size));
    }
}

/// Columns a row has no value in, in runs of every length, across the
/// batches' boundaries, around rows the sheet skips and beside text read
/// as null: the nulls a column owes land in their own rows.
#[test]
fn sparse_columns_have_their_nulls_in_their_rows_across_batches() {
    let mut rows = vec![row(
        1,
        &[inline("A1", "a"), inline("B1", "b"), inline("C1", "c")],
    )];
    let skipped = [12u32, 13];
    for n in (2u32..=40).filter(|n| !skipped.contains(n)) {
        let mut cells = vec![number(&format!("A{n}"), &n.to_string(), 0)];
        if n % 3 == 0 {
            cells.push(number(&format!("B{n}"), &(n * 10).to_string(), 0));
        }
        if n % 2 == 0 || n == 25 {
            cells.push(inline(&format!("C{n}"), &format!("t{n}")));
        }
        rows.push(row(n, &cells));
    }
    let bytes = book().sheet("S", sheet_xml(&rows.concat())).build();
    for null_text in [false, true] {
        for batch_size in [1, 2, 3, 4, 7, 100] {
            let mut options = ArrowOptions::new().batch_size(batch_size);
            if null_text {
                options = options.null_values(["t8", "t30"]);
            }
            let batches = read_all(bytes.clone(), &options).unwrap();
            let mut a: Vec<Option<i64>> = Vec::new();
            let mut b: Vec<Option<i64>> = Vec::new();
            let mut c: Vec<Option<String>> = Vec::new();
            for batch in &batches {
                a.extend(column::<Int64Array>(batch, "a").iter());
                b.extend(column::<Int64Array>(batch, "b").iter());
                c.extend(
                    column::<StringArray>(batch, "c")
                        .iter()
                        .map(|t| t.map(str::to_owned)),
                );
            }
            let mut want_a = Vec::new();
            let mut want_b = Vec::new();
            let mut want_c = Vec::new();
            for n in 2u32..=40 {
                let here = !skipped.contains(&n);
                want_a.push(here.then_some(i64::from(n)));
                want_b.push((here && n % 3 == 0).then_some(i64::from(n) * 10));
                let nulled = null_text && (n == 8 || n == 30);
                want_c.push((here && (n % 2 == 0 || n == 25) && !nulled).then(|| format!("t{n}")));
            }
            let case = format!("batch size {batch_size}, null text {null_text}");
            assert_eq!(a, want_a, "{case}");
            assert_eq!(b, want_b, "{case}");
            assert_eq!(c, want_c, "{case}");
            assert_eq!(batches.len(), 39usize.div_ceil(batch_size), "{case}");
        }
    }
}

#[test]
fn selected_columns_come_in_the_order_asked_and_others_are_not_resolved() {
    // Column B refers to shared string 99 of a table of one: resolving it fails.
    let rows = [
        row(
            1,
            &[inline("A1", "a"), inline("B1", "b"), inline("C1", "c")],
        ),
        row(
            2,
            &[
                number("A2", "1", 0),
                r#"<c r="B2" t="s"><v>99</v></c>"#.to_owned(),
                number("C2", "3", 0),
            ],
        ),
    ]
    .concat();
    let bytes = book()
        .strings(&["<t>x</t>"])
        .sheet("S", sheet_xml(&rows))
        .build();
    assert!(read_all(bytes.clone(), &ArrowOptions::new()).is_err());
    for spec in ["c,A", "C,1", "C:C,a"] {
        let options = ArrowOptions::new().columns(ColumnSpec::parse(spec).unwrap());
        let batches = read_all(bytes.clone(), &options).unwrap();
        let names: Vec<&String> = batches[0]
            .schema_ref()
            .fields()
            .iter()
            .map(|f| f.name())
            .collect();
        assert_eq!(names, ["c", "a"], "{spec}");
        assert_eq!(
            column::<Int64Array>(&batches[0], "c").values(),
            &[3],
            "{spec}"
        );
    }
    let err = read_all(
        bytes,
        &ArrowOptions::new().columns(ColumnSpec::parse("missing").unwrap()),
    )
    .unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");
}

#[test]
fn output_columns_keep_the_whole_sheets_types_and_read_only_their_cells() {
    // Past the sample of 2 rows: B4 refers to shared string 99 of a table
    // of one (resolving it fails), and C4 is text in a number column.
    let mut rows = vec![row(
        1,
        &[inline("A1", "a"), inline("B1", "b"), inline("C1", "c")],
    )];
    for r in 2..=3 {
        rows.push(row(
            r,
            &[
                number(&format!("A{r}"), &r.to_string(), 0),
                inline(&format!("B{r}"), "text"),
                number(&format!("C{r}"), "1.5", 0),
            ],
        ));
    }
    rows.push(row(
        4,
        &[
            number("A4", "4", 0),
            r#"<c r="B4" t="s"><v>99</v></c>"#.to_owned(),
            inline("C4", "late"),
        ],
    ));
    let bytes = book()
        .strings(&["<t>x</t>"])
        .sheet("S", sheet_xml(&rows.concat()))
        .build();
    let sample = ArrowOptions::new().schema_sample_rows(2);
    assert!(read_all(bytes.clone(), &sample).is_err());
    let options = sample
        .clone()
        .output_columns(Some(vec!["c".to_owned(), "a".to_owned()]))
        .on_mismatch(OnMismatch::Null);
    let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
    let mut batches = options.read_sheet(&mut workbook, 0).unwrap();
    let batch = batches.next_batch().unwrap().expect("a batch");
    let names: Vec<&String> = batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name())
        .collect();
    assert_eq!(names, ["c", "a"]);
    // The sample's type: C is Float64 from rows 2 and 3, its late text nulled.
    assert_eq!(column::<Float64Array>(&batch, "c").value(0), 1.5);
    assert!(column::<Float64Array>(&batch, "c").is_null(2));
    assert_eq!(column::<Int64Array>(&batch, "a").values(), &[2, 3, 4]);
    // Two columns' cells of three rows; B's were never read.
    assert_eq!(batches.report().cells, 6);
    assert_eq!(batches.report().coerced_cells, 1);
    drop(batches);
    // Strict, the late text fails naming the cell.
    let strict = sample.clone().output_columns(Some(vec!["c".to_owned()]));
    let err = read_all(bytes.clone(), &strict).unwrap_err();
    assert_eq!(
        (err.location().row, err.location().column),
        (Some(4), Some(3))
    );
    // A name that is not a column.
    let err = read_all(bytes, &sample.output_columns(Some(vec!["z".to_owned()]))).unwrap_err();
    assert!(err.to_string().contains("`z`"), "{err}");
}

#[test]
fn the_owned_reader_gives_the_same_batches_on_another_thread() {
    let bytes = typed_book();
    let borrowed = read_all(bytes.clone(), &ArrowOptions::new().batch_size(2)).unwrap();
    let workbook = Arc::new(Workbook::from_bytes(bytes).unwrap());
    let reader = ArrowOptions::new()
        .batch_size(2)
        .sheet_column(Some("sheet"))
        .sheet_reader(Arc::clone(&workbook), "Data")
        .unwrap();
    fn assert_send_static<T: Send + Sync + 'static>(_: &T) {}
    assert_send_static(&reader);
    let owned = std::thread::spawn(move || reader.collect::<Result<Vec<_>, _>>())
        .join()
        .unwrap()
        .unwrap();
    assert_eq!(owned.len(), borrowed.len());
    for (owned, borrowed) in owned.iter().zip(&borrowed) {
        assert_eq!(column::<StringArray>(owned, "sheet").value(0), "Data");
        let without_sheet = owned
            .project(&(1..owned.num_columns()).collect::<Vec<_>>())
            .unwrap();
        assert_eq!(&without_sheet, borrowed);
    }
    // Dropping a reader early stops its thread (no hang, no panic).
    let reader = ArrowOptions::new()
        .batch_size(1)
        .sheet_reader(workbook, 0)
        .unwrap();
    drop(reader);
}

#[test]
fn many_sheets_and_files_unite_by_name_with_file_and_sheet_columns() {
    use sheetstream::arrow::SheetChoice;
    let first = book()
        .sheet(
            "One",
            sheet_xml(
                &[
                    row(1, &[inline("A1", "id"), inline("B1", "name")]),
                    row(2, &[number("A2", "1", 0), inline("B2", "a")]),
                ]
                .concat(),
            ),
        )
        .sheet(
            "Two",
            sheet_xml(
                &[
                    row(1, &[inline("A1", "price"), inline("B1", "id")]),
                    row(2, &[number("A2", "2.5", 0), number("B2", "2", 0)]),
                ]
                .concat(),
            ),
        )
        .build();
    let second = book()
        .sheet(
            "Three",
            sheet_xml(&[row(1, &[inline("A1", "id")]), row(2, &[inline("A2", "x")])].concat()),
        )
        .build();
    let first_file = common::temp_file("arrow-many-1", &first);
    let second_file = common::temp_file("arrow-many-2", &second);
    let broken = common::temp_file("arrow-many-broken", b"not a workbook");
    let files = [&first_file.0, &second_file.0, &broken.0];
    let options = ArrowOptions::new()
        .union_by_name(true)
        .file_column(Some("file"))
        .sheet_column(Some("sheet"))
        .threads(2);
    // Fails fast by default: the broken file.
    assert!(options.read_files(files, SheetChoice::All).is_err());
    let mut reader = options
        .clone()
        .skip_unreadable(true)
        .read_files(files, SheetChoice::All)
        .unwrap();
    let schema = reader.schema();
    let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["file", "sheet", "id", "name", "price"]);
    // id: Int64 in two sheets, text in the third: Utf8.
    assert_eq!(schema.field(2).data_type(), &DataType::Utf8);
    assert_eq!(schema.field(4).data_type(), &DataType::Float64);
    let mut rows = Vec::new();
    while let Some(batch) = reader.next_batch().unwrap() {
        for at in 0..batch.num_rows() {
            let text = |name: &str| {
                let array = column::<StringArray>(&batch, name);
                array.is_valid(at).then(|| array.value(at).to_owned())
            };
            let price = column::<Float64Array>(&batch, "price");
            rows.push((
                text("sheet").unwrap(),
                text("id"),
                text("name"),
                price.is_valid(at).then(|| price.value(at)),
                text("file").unwrap().ends_with(".xlsx"),
            ));
        }
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        rows,
        [
            ("One".into(), Some("1".into()), Some("a".into()), None, true),
            ("Three".into(), Some("x".into()), None, None, true),
            ("Two".into(), Some("2".into()), None, Some(2.5), true),
        ]
    );
    assert_eq!(reader.skipped().len(), 1);
    assert!(reader.skipped()[0].file.contains("broken"));
    // Without union_by_name the sheets must agree.
    let err = ArrowOptions::new()
        .read_files([&first_file.0], SheetChoice::All)
        .unwrap_err();
    assert!(err.to_string().contains("union_by_name"), "{err}");
}

/// A workbook written by rust_xlsxwriter (constant memory) with two cells:
/// `top-left` at A1 and 42 at XFD1048576, the last cell a sheet can have.
fn corner_cell_book() -> Vec<u8> {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet_with_constant_memory();
    sheet.write_string(0, 0, "top-left").unwrap();
    sheet.write_number(1_048_575, 16_383, 42).unwrap();
    workbook.save_to_buffer().unwrap()
}

#[test]
fn a_corner_cell_sheet_has_null_columns_and_its_two_values() {
    let batches = read_all(
        corner_cell_book(),
        &ArrowOptions::new().header(Header::None),
    )
    .unwrap();
    let schema = batches[0].schema();
    assert_eq!(schema.fields().len(), 16_384);
    assert_eq!(schema.field(0).name(), "column_1");
    assert_eq!(schema.field(0).data_type(), &DataType::Utf8);
    assert_eq!(schema.field(16_383).name(), "column_16384");
    assert_eq!(schema.field(16_383).data_type(), &DataType::Int64);
    for field in &schema.fields()[1..16_383] {
        assert_eq!(field.data_type(), &DataType::Null, "{}", field.name());
    }
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, 1_048_576);
    assert!(batches.iter().all(|b| b.num_rows() <= 65_536));
    let first = column::<StringArray>(&batches[0], "column_1");
    assert_eq!(first.value(0), "top-left");
    assert_eq!(first.null_count(), first.len() - 1);
    let last_batch = batches.last().unwrap();
    let last = column::<Int64Array>(last_batch, "column_16384");
    assert_eq!(last.value(last.len() - 1), 42);
    let values: usize = batches
        .iter()
        .map(|b| {
            let c = b.column(16_383);
            c.len() - c.null_count()
        })
        .sum();
    assert_eq!(values, 1, "one value in the last column");
    let null_column = batches[3].column(100);
    assert_eq!(null_column.logical_null_count(), null_column.len());

    // With the header (A1 names the first column) the value is still sampled.
    let batches = read_all(corner_cell_book(), &ArrowOptions::new()).unwrap();
    let schema = batches[0].schema();
    assert_eq!(schema.field(0).name(), "top-left");
    assert_eq!(schema.field(0).data_type(), &DataType::Null);
    assert_eq!(schema.field(16_383).data_type(), &DataType::Int64);
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, 1_048_575);
    let last_batch = batches.last().unwrap();
    let last = column::<Int64Array>(last_batch, "column_16384");
    assert_eq!(last.value(last.len() - 1), 42);
    assert!(batches.iter().all(|b| b.num_rows() <= 65_536));
}

/// Header `a`, `b`; `a` has a value in row 2, `b` only in row 5000.
fn late_value_book() -> Vec<u8> {
    let rows = [
        row(1, &[inline("A1", "a"), inline("B1", "b")]),
        row(2, &[number("A2", "1", 0)]),
        row(5000, &[number("B5000", "7", 0)]),
    ]
    .concat();
    book().sheet("S", sheet_xml(&rows)).build()
}

#[test]
fn the_sample_counts_rows_with_cells_so_a_late_value_in_a_sparse_sheet_is_sampled() {
    // Two sample rows reach past the 4,997 rows the sheet skips.
    let options = ArrowOptions::new().schema_sample_rows(2);
    let batches = read_all(late_value_book(), &options).unwrap();
    let schema = batches[0].schema();
    assert_eq!(schema.field(1).data_type(), &DataType::Int64);
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, 4_999);
    let b = column::<Int64Array>(&batches[0], "b");
    assert_eq!((b.value(4_998), b.null_count()), (7, 4_998));

    // One sample row: `b` saw nothing, so it is Null and its value does not fit.
    let options = ArrowOptions::new()
        .schema_sample_rows(1)
        .on_mismatch(OnMismatch::Null);
    let mut workbook = Workbook::from_bytes(late_value_book()).unwrap();
    let mut reader = options.read_sheet(&mut workbook, 0).unwrap();
    assert_eq!(reader.schema().field(1).data_type(), &DataType::Null);
    let batch = reader.next_batch().unwrap().unwrap();
    assert_eq!(batch.column(1).logical_null_count(), 4_999);
    assert_eq!(reader.report().coerced_cells, 1);
    assert_eq!(
        reader.report().issues[0].kind,
        IssueKind::DoesNotFit {
            value: "7".into(),
            column_type: ColumnType::Null
        }
    );
    let err = read_all(
        late_value_book(),
        &options.clone().on_mismatch(OnMismatch::Strict),
    )
    .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Mismatch { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("`7` does not fit column `b` (null, "),
        "{message}"
    );
    assert!(message.contains("5000"), "{message}");

    // A type override wins over Null.
    let options = options.dtype("b", ColumnType::Float64);
    let batches = read_all(late_value_book(), &options).unwrap();
    let b = column::<Float64Array>(&batches[0], "b");
    assert_eq!(b.value(4_998), 7.0);
}

/// Many sheets of one workbook on the engine: every row of every sheet,
/// with one, two and three threads; dropping the reader early ends it.
#[test]
fn many_sheets_on_the_engine_deliver_every_row_and_stop_when_dropped() {
    let mut workbook = book();
    for sheet in 0..6u32 {
        let mut rows = vec![row(1, &[inline("A1", "n"), inline("B1", "sheet")])];
        for n in 2..=(100 + 40 * sheet) {
            rows.push(row(
                n,
                &[
                    number(&format!("A{n}"), &n.to_string(), 0),
                    number(&format!("B{n}"), &sheet.to_string(), 0),
                ],
            ));
        }
        workbook = workbook.sheet(&format!("S{sheet}"), sheet_xml(&rows.concat()));
    }
    let bytes = workbook.build();
    for threads in [1, 2, 3] {
        let shared = Arc::new(Workbook::from_bytes(bytes.clone()).unwrap());
        let options = ArrowOptions::new()
            .threads(threads)
            .batch_size(50)
            .sheet_column(Some("name"));
        let reader = options
            .read_workbooks(vec![("book".into(), Arc::clone(&shared))], SheetChoice::All)
            .unwrap();
        let mut per_sheet = std::collections::BTreeMap::<String, (usize, i64)>::new();
        for batch in reader {
            let batch = batch.unwrap();
            let names = column::<StringArray>(&batch, "name");
            let n = column::<Int64Array>(&batch, "n");
            for at in 0..batch.num_rows() {
                let entry = per_sheet.entry(names.value(at).to_owned()).or_default();
                entry.0 += 1;
                entry.1 += n.value(at);
            }
        }
        let expected: std::collections::BTreeMap<String, (usize, i64)> = (0..6i64)
            .map(|s| {
                let last = 100 + 40 * s;
                (format!("S{s}"), ((last - 1) as usize, (2..=last).sum()))
            })
            .collect();
        assert_eq!(per_sheet, expected, "{threads} threads");
        // Dropped after one batch: the engine's workers end.
        let mut reader = options
            .read_workbooks(vec![("book".into(), shared)], SheetChoice::All)
            .unwrap();
        assert!(reader.next_batch().unwrap().is_some());
        drop(reader);
    }
}
