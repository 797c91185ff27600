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

/// Every row of a sheet as owned text (reference, style, value and
/// formula of each cell) with whether the row holds values, read with
/// `columns` selected (None: every column, then filtered to `keep`).
fn read_rows(
    workbook: &mut Workbook<impl std::io::Read + std::io::Seek>,
    sheet: usize,
    columns: Option<&ColumnSet>,
    keep: &ColumnSet,
) -> sheetstream::Result<Vec<(u32, bool, Vec<String>)>> {
    let mut rows = workbook.rows(sheet)?.with_formulas(true);
    rows.select_columns(columns.cloned());
    let mut seen = Vec::new();
    while let Some(row) = rows.next_row()? {
        let cells = row
            .cells()
            .iter()
            .filter(|cell| keep.contains(cell.column()))
            .map(|cell| {
                format!(
                    "{} s{} {:?} {:?}",
                    cell.reference(),
                    cell.style(),
                    cell.value(),
                    cell.formula()
                )
            })
            .collect();
        seen.push((row.index(), row.holds_values(), cells));
    }
    Ok(seen)
}

/// Every cell form the scanner reads, in columns A to F, so that each
/// selection skips some of each: the shape writers use (`r`, `s`, `t`),
/// self-closing cells, inline strings (the plain shape and rich text),
/// formulas with and without a cached value, cells and rows without `r`
/// (their place counted), attributes in another order or quoted with
/// `'`, an entity in an attribute, whitespace and comments inside a cell,
/// a CDATA value holding `</c>`, text other than ASCII, a boolean, an
/// error, an ISO date, an empty `<v></v>`, and a row whose only values
/// lie in one column.
fn every_cell_form() -> Vec<u8> {
    let rows = concat!(
        r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1"><v>44927</v></c>"#,
        r#"<c r="C1" t="inlineStr"><is><t>plain</t></is></c><c r="D1"><f>A1*2</f><v>3</v></c>"#,
        r#"<c r="E1" s="1"/><c r="F1" t="b"><v>1</v></c></row>"#,
        // No `r` on the cells: A, B, C, then D after an explicit C.
        r#"<row r="2"><c><v>1</v></c><c t="s"><v>1</v></c><c r="C2"><v>2.5</v></c>"#,
        r#"<c t="inlineStr"><is><t xml:space="preserve"> sp </t></is></c><c><v>5</v></c><c/></row>"#,
        // No `r` on the row: row 3.
        r#"<row><c r="A3" t="str"><f>"x"&amp;"y"</f><v>xy</v></c><c r="B3" t="e"><v>#DIV/0!</v></c>"#,
        r#"<c r="C3" t="d"><v>2024-02-29T12:00:00</v></c><c r="D3" t="inlineStr"><is><r><t>ri</t></r><r><t>ch</t></r></is></c>"#,
        r#"<c r="E3" t="str"><v>é</v></c><c r="F3" t="inlineStr"><is><t>ünï</t></is></c></row>"#,
        // The general path: other orders, single quotes, an entity,
        // whitespace, a comment, CDATA.
        r#"<row r="4" spans="1:6"><c t="s" r="A4"><v>2</v></c><c r='B4' s='1'><v>45000.5</v></c>"#,
        r#"<c r="&#67;4"><v>7</v></c><c r="D4"> <v>8</v> </c><c r="E4"><!-- note --><v>9</v></c>"#,
        r#"<c r="F4" t="str"><v><![CDATA[</c> & <v>]]></v></c></row>"#,
        // Values only in E (a selection without E still sees them), an
        // empty value in A, a formula without a cached value in B.
        r#"<row r="6"><c r="A6"><v></v></c><c r="B6"><f>1+1</f></c><c r="E6"><v>10</v></c></row>"#,
        r#"<row r="7" hidden="1"><c r="F7" t="s"><v>0</v></c></row>"#,
        r#"<row r="8"/>"#,
        // Cells out of their row and going back to a column.
        r#"<row r="9"><c r="C9"><v>1</v></c><c r="A9"><v>2</v></c><c><v>3</v></c></row>"#,
        // Only an empty value: no cell, but the row holds a value when A
        // is skipped (a skipped value is not read).
        r#"<row r="10"><c r="A10"><v></v></c></row>"#,
    );
    book()
        .strings(&["<t>one</t>", "<t>two</t>", "<t>three</t>"])
        .styles(common::styles_xml(&[], &[0, 14]))
        .sheet("Forms", sheet_xml(rows))
        .build()
}

/// Each selection's cells are the full read's cells of those columns, on
/// every cell form, for every subset of the columns A to F and G past
/// them; a row holds values when any of its cells has one, selected or not.
#[test]
fn every_selection_reads_what_the_full_read_reads_in_its_columns() {
    let mut workbook = Workbook::from_bytes(every_cell_form()).unwrap();
    let all: ColumnSet = (0..16_384).collect();
    let full = read_rows(&mut workbook, 0, None, &all).unwrap();
    let references: Vec<&str> = full
        .iter()
        .flat_map(|(_, _, cells)| cells.iter().map(|cell| cell.split(' ').next().unwrap()))
        .collect();
    assert_eq!(
        references,
        [
            "A1", "B1", "C1", "D1", "F1", "A2", "B2", "C2", "D2", "E2", "A3", "B3", "C3", "D3",
            "E3", "F3", "A4", "B4", "C4", "D4", "E4", "F4", "E6", "F7", "C9", "A9", "B9"
        ],
        "{full:#?}"
    );
    assert!(
        full[3].2[5].contains("Text(\"</c> & <v>\")"),
        "{:?}",
        full[3]
    );
    assert!(full[2].2[3].contains("Text(\"rich\")"), "{:?}", full[2]);
    assert_eq!(
        full.iter().map(|(index, ..)| *index).collect::<Vec<_>>(),
        [0, 1, 2, 3, 5, 6, 7, 8, 9]
    );
    for mask in 0u32..128 {
        let selected: ColumnSet = (0..7).filter(|column| mask & (1 << column) != 0).collect();
        let got = read_rows(&mut workbook, 0, Some(&selected), &all).unwrap();
        let expected: Vec<(u32, bool, Vec<String>)> = read_rows(&mut workbook, 0, None, &selected)
            .unwrap()
            .into_iter()
            .zip(&full)
            // A row holds values when any cell has one; row 10's empty
            // `<v></v>` in A counts when it is skipped (its value is not
            // read), not when it is read.
            .map(|((index, _, cells), (_, holds, _))| {
                let skipped_empty = index == 9 && !selected.contains(0);
                (index, *holds || skipped_empty, cells)
            })
            .collect();
        assert_eq!(got, expected, "columns {selected:?}");
    }
}

/// The same on the public corpus's workbooks (up to 512 KiB each): for
/// three selections (the even columns, B and D, the first column), each
/// sheet the full read reads gives the same cells of those columns.
#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn corpus_selections_read_what_the_full_read_reads_in_their_columns() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus");
    if !root.is_dir() {
        println!("skipping: ../shared/conformance/corpus not found");
        return;
    }
    let selections: [ColumnSet; 3] = [
        (0..16_384).step_by(2).collect(),
        [1, 3].into_iter().collect(),
        [0].into_iter().collect(),
    ];
    let all: ColumnSet = (0..16_384).collect();
    let (mut sheets, mut cells) = (0, 0);
    for path in common::corpus_workbooks(&root) {
        if std::fs::metadata(&path).map_or(true, |meta| meta.len() > 512 << 10) {
            continue;
        }
        let Ok(mut workbook) = Workbook::open(&path) else {
            continue;
        };
        for sheet in 0..workbook.sheets().len() {
            let Ok(full) = read_rows(&mut workbook, sheet, None, &all) else {
                continue;
            };
            sheets += 1;
            for selected in &selections {
                let got = read_rows(&mut workbook, sheet, Some(selected), &all)
                    .unwrap_or_else(|err| panic!("{}, sheet {sheet}: {err}", path.display()));
                let got: Vec<_> = got
                    .into_iter()
                    .map(|(index, _, cells)| (index, cells))
                    .collect();
                let expected: Vec<_> = full
                    .iter()
                    .map(|(index, _, row)| {
                        let row: Vec<String> = row
                            .iter()
                            .filter(|cell| {
                                let reference = cell.split(' ').next().unwrap();
                                let letters =
                                    reference.trim_end_matches(|c: char| c.is_ascii_digit());
                                let column = letters
                                    .bytes()
                                    .fold(0u32, |n, b| n * 26 + u32::from(b - b'A' + 1))
                                    - 1;
                                selected.contains(column)
                            })
                            .cloned()
                            .collect();
                        (*index, row)
                    })
                    .collect();
                cells += expected.iter().map(|(_, row)| row.len()).sum::<usize>();
                assert_eq!(got, expected, "{}, sheet {sheet}", path.display());
            }
        }
    }
    println!("{sheets} corpus sheets, {cells} selected cells compared");
    assert!(sheets > 100, "only {sheets} corpus sheets read");
}

/// A skipped cell's value is not read, but its structure is: a cell that
/// does not close, nests what cannot nest or lies past XFD is an error
/// with the selection as without it.
#[test]
fn malformed_skipped_cells_are_still_errors() {
    let broken = [
        r#"<c r="B1"><v>1</v></row>"#,
        r#"<c r="B1"><v>1<v>2</v></v></c></row>"#,
        r#"<c r="B1"><v>1</v></x></c></row>"#,
        r#"<c r="B1" s=1><v>1</v></c></row>"#,
        r#"<c r="B1"><v>1</v><c r="C1"/></c></row>"#,
        r#"<c r="XFE1"><v>1</v></c></row>"#,
        r#"<c r="B1" t="inlineStr"><is><t>x</t></c></row>"#,
        r#"<c r="B1"><v>1</v></c>"#,
    ];
    let only_a: ColumnSet = [0].into_iter().collect();
    for cell in broken {
        let rows = format!(r#"<row r="1"><c r="A1"><v>7</v></c>{cell}"#);
        let bytes = book().sheet("Data", sheet_xml(&rows)).build();
        let mut workbook = Workbook::from_bytes(bytes).unwrap();
        for columns in [None, Some(&only_a)] {
            let all: ColumnSet = (0..16_384).collect();
            let read = read_rows(&mut workbook, 0, columns, &all);
            assert!(read.is_err(), "{cell} with {columns:?}: {read:?}");
        }
    }
}
