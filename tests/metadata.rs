//! Workbook and sheet metadata on workbooks written by rust_xlsxwriter:
//! defined names and their scope, merged ranges, hidden rows and columns,
//! the dimension, hyperlinks and notes, each read without the cells.

use rust_xlsxwriter::{Format, Note, Url, Workbook as Writer};
use sheetstream::{CellRange, CellRef, Workbook};

fn cell(text: &str) -> CellRef {
    text.parse().unwrap()
}

fn range(text: &str) -> CellRange {
    text.parse().unwrap()
}

fn sample() -> Vec<u8> {
    let mut writer = Writer::new();
    let first = writer.add_worksheet().set_name("First").unwrap();
    for row in 0..20 {
        first.write_number(row, 0, f64::from(row)).unwrap();
        first.write_string(row, 3, "x").unwrap();
    }
    first
        .merge_range(0, 1, 1, 2, "merged", &Format::new())
        .unwrap();
    first
        .merge_range(5, 0, 5, 3, "wide", &Format::new())
        .unwrap();
    first.set_default_note_author("Ann");
    first.set_row_hidden(3).unwrap();
    first.set_row_hidden(10).unwrap();
    // A hidden row with no cells is still listed.
    first.set_row_hidden(30).unwrap();
    first.set_column_hidden(2).unwrap();
    first.set_column_hidden(5).unwrap();
    first
        .write_url(7, 1, Url::new("https://example.com/a?b=c&d").set_tip("Go"))
        .unwrap();
    first
        .write_url(
            8,
            1,
            Url::new("internal:'Second sheet'!B2").set_text("jump"),
        )
        .unwrap();
    first
        .insert_note(2, 4, &Note::new("Check this & that"))
        .unwrap();
    first
        .insert_note(9, 0, &Note::new("Second\nline").set_author("Bo"))
        .unwrap();
    let second = writer.add_worksheet().set_name("Second sheet").unwrap();
    second.write_string(0, 0, "only").unwrap();
    writer
        .define_name("Everything", "=First!$A$1:$D$20")
        .unwrap();
    writer
        .define_name("'Second sheet'!Local", "='Second sheet'!$A$1")
        .unwrap();
    writer.save_to_buffer().unwrap()
}

#[test]
fn defined_names_with_scope() {
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let names = workbook.defined_names().unwrap();
    let everything = names.iter().find(|n| n.name == "Everything").unwrap();
    assert_eq!(everything.refers_to, "First!$A$1:$D$20");
    assert_eq!(everything.sheet, None);
    assert!(!everything.hidden);
    let local = names.iter().find(|n| n.name == "Local").unwrap();
    assert_eq!(local.sheet, Some(1));
    assert_eq!(local.refers_to, "'Second sheet'!$A$1");
}

#[test]
fn sheet_metadata_without_cells() {
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let metadata = workbook.sheet_metadata("First").unwrap();
    // As written: the writer counts the formatted empty row 31 in.
    assert_eq!(metadata.dimension, Some(range("A1:E31")));
    assert_eq!(metadata.merged, [range("B1:C2"), range("A6:D6")]);
    assert_eq!(metadata.merged_range_of(cell("C2")), Some(range("B1:C2")));
    assert_eq!(metadata.merged_range_of(cell("D2")), None);
    assert_eq!(metadata.hidden_columns, [2..=2, 5..=5]);
    assert!(metadata.is_column_hidden(5) && !metadata.is_column_hidden(4));

    assert_eq!(metadata.hyperlinks.len(), 2);
    let external = &metadata.hyperlinks[0];
    assert_eq!(external.range, range("B8"));
    assert_eq!(
        external.target.as_deref(),
        Some("https://example.com/a?b=c&d")
    );
    assert_eq!(external.tooltip.as_deref(), Some("Go"));
    let internal = &metadata.hyperlinks[1];
    assert_eq!(internal.target, None);
    assert_eq!(internal.location.as_deref(), Some("'Second sheet'!B2"));
    assert_eq!(internal.display.as_deref(), Some("jump"));

    assert_eq!(metadata.comments.len(), 2);
    assert_eq!(metadata.comments[0].cell, cell("E3"));
    assert_eq!(metadata.comments[0].author.as_deref(), Some("Ann"));
    // The author prefix is a bold run of its own: the runs are joined.
    assert_eq!(metadata.comments[0].text, "Ann:\nCheck this & that");
    assert_eq!(metadata.comments[1].cell, cell("A10"));
    assert_eq!(metadata.comments[1].author.as_deref(), Some("Bo"));
    assert_eq!(metadata.comments[1].text, "Bo:\nSecond\nline");

    assert!(!metadata.rows_hidden_by_default);

    let second = workbook.sheet_metadata(1).unwrap();
    assert_eq!(second.dimension, Some(range("A1")));
    assert!(second.merged.is_empty() && second.hyperlinks.is_empty());
    assert!(second.comments.is_empty() && second.hidden_columns.is_empty());
}

#[test]
fn hidden_rows_from_row_tags() {
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    assert_eq!(workbook.hidden_rows("First").unwrap(), [3, 10, 30]);
    assert!(workbook.hidden_rows("Second sheet").unwrap().is_empty());
    // The rows still stream as usual afterwards.
    let mut count = 0;
    workbook.for_each_row("First", |_| count += 1).unwrap();
    assert_eq!(count, 21);
}

#[test]
fn unused_rows_hidden_by_default() {
    let mut writer = Writer::new();
    let sheet = writer.add_worksheet().set_name("Few").unwrap();
    sheet.write_number(0, 0, 1.0).unwrap();
    sheet.write_number(4, 0, 5.0).unwrap();
    sheet.set_row_hidden(2).unwrap();
    sheet.hide_unused_rows(true);
    writer.add_worksheet().set_name("All").unwrap();
    let mut workbook = Workbook::from_bytes(writer.save_to_buffer().unwrap()).unwrap();
    assert!(
        workbook
            .sheet_metadata("Few")
            .unwrap()
            .rows_hidden_by_default
    );
    // The written rows marked hidden; the rows not written are hidden too.
    assert_eq!(workbook.hidden_rows("Few").unwrap(), [2]);
    assert!(
        !workbook
            .sheet_metadata("All")
            .unwrap()
            .rows_hidden_by_default
    );
}

#[test]
fn missing_sheet_is_an_error() {
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    assert!(workbook.sheet_metadata("Nope").is_err());
    assert!(workbook.hidden_rows(7).is_err());
}
