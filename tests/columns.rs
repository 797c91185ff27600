//! Column selection is a pushdown: the cells of unselected columns are
//! dropped before they are resolved, so their errors are never raised, and
//! every path (pull reader, serial and pipelined parallel) gives the same
//! selected cells.

use crate::common;

use std::sync::Mutex;

use common::{book, sheet_xml};
use sheetstream::{ColumnSet, ColumnSpec, ErrorKind, Row, Workbook};

/// A row as owned text: index, then each cell's reference and value.
fn describe(row: &Row<'_>) -> String {
    let mut out = format!("{}:", row.index());
    for cell in row.cells() {
        out.push_str(&format!(" {}={:?}", cell.reference(), cell.value()));
    }
    out
}

/// A header row, then rows whose columns B, C and E hold values that
/// cannot be resolved: shared string 99 of a table of two, a boolean `x`,
/// an ISO date `soon`. Row 2 is all parsed by the scanner (the one-pass
/// path), row 3 has inline text (the text path), row 4 has an entity to
/// decode in a selected column.
fn poisoned() -> Vec<u8> {
    let rows = concat!(
        r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>"#,
        r#"<c r="C1" t="inlineStr"><is><t>Flag</t></is></c><c r="D1" t="inlineStr"><is><t>Note</t></is></c>"#,
        r#"<c r="E1" t="inlineStr"><is><t>When</t></is></c></row>"#,
        r#"<row r="2"><c r="A2"><v>1.5</v></c><c r="B2" t="s"><v>99</v></c><c r="D2"><v>7</v></c></row>"#,
        r#"<row r="3"><c r="A3"><v>2</v></c><c r="B3" t="s"><v>99</v></c><c r="C3" t="b"><v>x</v></c>"#,
        r#"<c r="D3" t="inlineStr"><is><t>plain</t></is></c><c r="E3" t="d"><v>soon</v></c></row>"#,
        r#"<row r="4"><c r="B4" t="s"><v>99</v></c><c r="D4" t="inlineStr"><is><t>a &amp; b</t></is></c></row>"#,
    );
    book()
        .strings(&["<t>Amount</t>", "<t>Label</t>"])
        .sheet("Data", sheet_xml(rows))
        .build()
}

const SELECTED: [&str; 3] = [
    "1: A2=Number(1.5) D2=Number(7.0)",
    "2: A3=Number(2.0) D3=Text(\"plain\")",
    "3: D4=Text(\"a & b\")",
];

#[test]
fn unselected_cells_are_not_resolved() {
    let mut workbook = Workbook::from_bytes(poisoned()).unwrap();

    // Read whole, the sheet is an error: the selection below is what avoids it.
    let mut rows = workbook.rows("Data").unwrap();
    rows.next_row().unwrap();
    let err = rows.next_row().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::SharedStringIndex { index: 99, .. }),
        "{err}"
    );
    drop(rows);

    let mut rows = workbook.rows("Data").unwrap();
    let header = rows.next_row().unwrap().map(|row| describe(&row)).unwrap();
    assert!(header.starts_with("0: A1=Text(\"Amount\") B1=Text(\"Label\")"));
    // Selected after the header: A and D by letter.
    let spec = ColumnSpec::parse("A,D").unwrap();
    rows.select_columns(Some(spec.resolve(&[]).unwrap().into_iter().collect()));
    let mut seen = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        seen.push(describe(&row));
    }
    assert_eq!(seen, SELECTED);
}

#[test]
fn selection_by_header_name_and_back_to_all() {
    let mut workbook = Workbook::from_bytes(poisoned()).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    let header: Vec<(u32, String)> = rows
        .next_row()
        .unwrap()
        .unwrap()
        .cells()
        .iter()
        .map(|cell| (cell.column(), cell.value().as_str().unwrap().to_owned()))
        .collect();
    let header: Vec<(u32, &str)> = header.iter().map(|(c, t)| (*c, t.as_str())).collect();
    let wanted = ColumnSpec::parse("Note,Amount")
        .unwrap()
        .resolve(&header)
        .unwrap();
    assert_eq!(wanted, [3, 0]);
    rows.select_columns(Some(wanted.into_iter().collect()));
    let first = rows.next_row().unwrap().map(|row| describe(&row));
    assert_eq!(first.as_deref(), Some(SELECTED[0]));
    // None selects every column again: the next row's poison is read.
    rows.select_columns(None);
    let err = rows.next_row().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::SharedStringIndex { .. }),
        "{err}"
    );

    let err = ColumnSpec::parse("Price")
        .unwrap()
        .resolve(&header)
        .unwrap_err();
    assert!(
        err.to_string().contains("no column named \"Price\""),
        "{err}"
    );
}

#[test]
fn the_parallel_engine_selects_on_both_paths() {
    let workbook = Workbook::from_bytes(poisoned()).unwrap();
    let columns: ColumnSet = [0, 3].into_iter().collect();
    // One thread reads on the caller's; two pipeline the lone sheet.
    for threads in [1, 2] {
        let seen = Mutex::new(Vec::new());
        workbook
            .parallel()
            .threads(threads)
            .select_columns(columns.clone())
            .for_each_row(|| {
                |_sheet: &sheetstream::SheetInfo, row: Row<'_>| {
                    if row.index() > 0 {
                        seen.lock().unwrap().push(describe(&row));
                    }
                }
            })
            .unwrap();
        assert_eq!(seen.into_inner().unwrap(), SELECTED, "{threads} threads");
    }
    // And without the selection the same run fails.
    let err = workbook
        .parallel()
        .threads(2)
        .for_each_row(|| |_sheet: &sheetstream::SheetInfo, _row: Row<'_>| {})
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::SharedStringIndex { .. }),
        "{err}"
    );
}

#[test]
fn an_empty_selection_hands_out_rows_without_cells() {
    let mut workbook = Workbook::from_bytes(poisoned()).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    rows.select_columns(Some(ColumnSet::new()));
    let mut indices = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        assert!(row.cells().is_empty());
        indices.push(row.index());
    }
    assert_eq!(indices, [0, 1, 2, 3]);
}
