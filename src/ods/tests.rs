//! The scanner and row reader on hand-written documents, fed in windows
//! of 1, 7 and 4096 bytes and whole: every size must read the same rows,
//! or fail with the same error at the same place.

use std::io::Read;

use super::catalog::{Document, read_catalog_chunked};
use super::rows::OdsRows;
use super::styles::{CellStyle, DataKind, DataStyle, Part, StyleNames, build_styles};
use crate::columns::ColumnSet;
use crate::contract::{PartSource, SheetContext};
use crate::date::DateSystem;
use crate::error::Result;
use crate::limits::Limits;
use crate::styles::Styles;

const HEAD: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8"?>"#,
    r#"<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" "#,
    r#"xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" "#,
    r#"xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" "#,
    r#"xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" "#,
    r#"xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xlink="http://www.w3.org/1999/xlink" "#,
    r#"xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0">"#,
    r#"<office:body><office:spreadsheet>"#
);
const TAIL: &str = "</office:spreadsheet></office:body></office:document-content>";

/// A content document holding `tables`.
fn document(tables: &str) -> String {
    format!("{HEAD}{tables}{TAIL}")
}

/// Styles: `ce1` a date style, `ce2` a time of day, `Default`.
fn styles() -> (Styles, StyleNames) {
    let cell = |name: &str, data: Option<&str>| CellStyle {
        name: name.into(),
        parent: None,
        data_style: data.map(Into::into),
    };
    let data = |name: &str, kind, parts| DataStyle {
        name: name.into(),
        kind,
        parts,
        ..DataStyle::default()
    };
    build_styles(
        &[
            cell("Default", None),
            cell("ce1", Some("N1")),
            cell("ce2", Some("N2")),
        ],
        &[
            data(
                "N1",
                DataKind::Date,
                vec![
                    Part::Year { long: true },
                    Part::Text("-".into()),
                    Part::Month {
                        long: true,
                        textual: false,
                    },
                ],
            ),
            data(
                "N2",
                DataKind::Time,
                vec![
                    Part::Hours { long: true },
                    Part::Text(":".into()),
                    Part::Minutes { long: true },
                ],
            ),
        ],
        DateSystem::V1900,
    )
}

/// How a read is set up.
#[derive(Clone, Default)]
struct Setup {
    table: usize,
    columns: Option<ColumnSet>,
    window: Option<(u32, u32)>,
    formulas: bool,
    max_row_bytes: Option<u64>,
}

/// The rows of `source`'s table as text, one line a row and a cell.
fn digest(source: PartSource<'_>, chunk: Option<usize>, setup: &Setup) -> Result<String> {
    digest_by(source, chunk, setup, true)
}

/// [`digest`], by the fast path first or (`fast` false) the general one only.
fn digest_by(
    source: PartSource<'_>,
    chunk: Option<usize>,
    setup: &Setup,
    fast: bool,
) -> Result<String> {
    let limits = Limits {
        max_row_bytes: setup.max_row_bytes.unwrap_or(1 << 20),
        ..Limits::default()
    };
    let (styles, style_names) = styles();
    let layout = super::OdsLayout {
        style_names,
        ..super::OdsLayout::default()
    };
    let context = SheetContext {
        shared_strings: None,
        styles: &styles,
        date_system: DateSystem::V1900,
        links: &crate::formula::NO_LINKS,
    };
    let mut rows = OdsRows::new(
        source,
        context,
        &layout,
        setup.table,
        "S",
        "content.xml",
        &limits,
    )
    .with_formulas(setup.formulas);
    if !fast {
        rows = rows.without_fast_path();
    }
    if let Some(chunk) = chunk {
        rows = rows.with_chunk_size(chunk, &limits);
    }
    rows.select_columns(setup.columns.clone());
    if let Some((first, last)) = setup.window {
        rows.set_column_window(first, last);
    }
    let mut out = String::new();
    while let Some(row) = rows.next_row()? {
        out.push_str(&format!("row {}", row.index()));
        if row.hidden {
            out.push_str(" hidden");
        }
        if row.values_elsewhere {
            out.push_str(" elsewhere");
        }
        out.push('\n');
        for cell in row.cells() {
            out.push_str(&format!(
                "  {} {} {:?}",
                cell.reference(),
                cell.style(),
                cell.value()
            ));
            if let Some(formula) = cell.formula() {
                out.push_str(&format!(" = {formula}"));
            }
            out.push('\n');
        }
    }
    Ok(out)
}

/// Reads `xml` in windows of 1, 7 and 4096 bytes and whole, by the fast
/// path and by the general one: the same rows, or the same error; returns
/// them (the error as its message).
fn read_with(xml: &str, setup: &Setup) -> std::result::Result<String, String> {
    let mut results = Vec::new();
    for fast in [true, false] {
        for chunk in [1, 7, 4096, xml.len().max(1)] {
            let source = PartSource::Reader(Box::new(xml.as_bytes()));
            let result = digest_by(source, Some(chunk), setup, fast);
            results.push((chunk, fast, result.map_err(|err| err.to_string())));
        }
    }
    for (chunk, fast, result) in &results[1..] {
        assert_eq!(
            result, &results[0].2,
            "window {chunk} (fast path {fast}) against window 1 (fast path)"
        );
    }
    results.swap_remove(0).2
}

fn read(xml: &str) -> std::result::Result<String, String> {
    read_with(xml, &Setup::default())
}

#[test]
fn values_are_read_by_their_value_type() {
    let xml = document(concat!(
        r#"<table:table table:name="S"><table:table-row>"#,
        r#"<table:table-cell office:value-type="float" office:value="1.5"><text:p>1,5</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="percentage" office:value="0.075"/>"#,
        r#"<table:table-cell office:value-type="currency" office:currency="EUR" office:value="-9.99"/>"#,
        r#"<table:table-cell table:style-name="ce1" office:value-type="float" office:value="45000"/>"#,
        r#"<table:table-cell office:value-type="date" office:date-value="2024-03-01"/>"#,
        r#"<table:table-cell office:value-type="date" office:date-value="1899-12-30T12:00:00.1234"/>"#,
        r#"<table:table-cell office:value-type="time" office:time-value="PT36H30M"/>"#,
        r#"<table:table-cell table:style-name="ce2" office:value-type="time" office:time-value="PT13H24M00S"/>"#,
        r#"<table:table-cell office:value-type="time" office:time-value="-PT1H"/>"#,
        r#"<table:table-cell office:value-type="boolean" office:boolean-value="true"/>"#,
        r#"<table:table-cell office:value-type="boolean" office:boolean-value="0"/>"#,
        r#"<table:table-cell office:value-type="float"><text:p>no value attribute</text:p></table:table-cell>"#,
        r#"<table:table-cell><text:p>typeless</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="void"/>"#,
        r#"<table:table-cell office:value-type="float" office:value=" 1E+300 "/>"#,
        r#"</table:table-row></table:table>"#
    ));
    assert_eq!(
        read(&xml).unwrap(),
        concat!(
            "row 0\n",
            "  A1 1 Number(1.5)\n",
            "  B1 1 Number(0.075)\n",
            "  C1 1 Number(-9.99)\n",
            // A float with a date style is a number.
            "  D1 2 Number(45000.0)\n",
            "  E1 1 DateTime(DateTime { serial: 45352.0, system: V1900, from_text: true, kind: Date })\n",
            "  F1 1 DateTime(DateTime { serial: -0.4999985763888889, system: V1900, from_text: true, kind: Date })\n",
            "  G1 1 DateTime(DateTime { serial: 1.5208333333333333, system: V1900, from_text: true, kind: Duration })\n",
            "  H1 3 DateTime(DateTime { serial: 0.5583333333333333, system: V1900, from_text: true, kind: Time })\n",
            "  I1 1 DateTime(DateTime { serial: -0.041666666666666664, system: V1900, from_text: false, kind: Duration })\n",
            "  J1 1 Bool(true)\n",
            "  K1 1 Bool(false)\n",
            "  O1 1 Number(1e300)\n",
        )
    );
}

#[test]
fn text_is_the_paragraphs_joined_and_nothing_else() {
    let xml = document(concat!(
        r#"<table:table table:name="S"><table:table-row>"#,
        "<table:table-cell office:value-type=\"string\" office:string-value=\"a&amp;b&#10;c\td\r\ne\"><text:p>shown</text:p></table:table-cell>",
        r#"<table:table-cell office:value-type="string"><text:p>one<text:s text:c="3"/>two<text:tab/>three<text:line-break/>four</text:p>"#,
        r#"<text:p/><text:h><text:span>sp</text:span><text:a xlink:href="http://x">link</text:a><text:s/>x</text:h></table:table-cell>"#,
        r#"<table:table-cell office:value-type="string"><office:annotation><dc:creator>me</dc:creator><text:p>note</text:p></office:annotation>"#,
        r#"<text:p>val<text:ruby><text:ruby-base>base</text:ruby-base><text:ruby-text>rt</text:ruby-text></text:ruby></text:p>"#,
        r#"<draw:frame><draw:text-box><text:p>shape</text:p></draw:text-box></draw:frame></table:table-cell>"#,
        "<table:table-cell office:value-type=\"string\"><text:p><![CDATA[<cdata> & ]]>&lt;ent&gt; crlf\r\nend</text:p></table:table-cell>",
        r#"<table:table-cell office:value-type="string"/>"#,
        r#"<table:table-cell office:value-type="string" calcext:value-type="error" office:string-value=""><text:p>#DIV/0!</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="string" calcext:value-type="error"><text:p/></table:table-cell>"#,
        r#"<table:table-cell office:value-type="float" office:value="0" calcext:value-type="float"><text:p>#N/A</text:p></table:table-cell>"#,
        r#"<table:table-cell office:value-type="string"><text:p>  two  spaces  </text:p></table:table-cell>"#,
        r#"</table:table-row></table:table>"#
    ));
    assert_eq!(
        read(&xml).unwrap(),
        concat!(
            "row 0\n",
            "  A1 1 Text(\"a&b\\nc d e\")\n",
            "  B1 1 Text(\"one   two\\tthree\\nfour\\n\\nsplink x\")\n",
            "  C1 1 Text(\"valbase\")\n",
            "  D1 1 Text(\"<cdata> & <ent> crlf\\nend\")\n",
            "  E1 1 Text(\"\")\n",
            "  F1 1 Error(\"#DIV/0!\")\n",
            "  H1 1 Number(0.0)\n",
            "  I1 1 Text(\"  two  spaces  \")\n",
        )
    );
}

/// A table before the one read: a nested table in a cell, a comment and
/// a CDATA section holding its end tag, and its own rows.
const FIRST_TABLE: &str = concat!(
    r#"<table:table table:name="first"><table:table-row><table:table-cell office:value-type="float" office:value="1">"#,
    r#"<table:table table:name="nested"><table:table-row><table:table-cell office:value-type="float" office:value="99"/></table:table-row></table:table>"#,
    r#"</table:table-cell></table:table-row><!-- </table:table> --><table:table-row><table:table-cell office:value-type="string">"#,
    r#"<text:p><![CDATA[</table:table>]]></text:p></table:table-cell></table:table-row></table:table>"#
);

#[test]
fn repeats_are_runs_and_rows_come_from_groups_and_header_rows() {
    let second = concat!(
        r#"<table:table table:name="second"><table:table-column table:number-columns-repeated="2" table:default-cell-style-name="ce1"/>"#,
        r#"<table:table-column table:default-cell-style-name="Default"/>"#,
        r#"<table:table-header-rows><table:table-row><table:table-cell office:value-type="string"><text:p>head</text:p></table:table-cell></table:table-row></table:table-header-rows>"#,
        r#"<table:table-row-group><table:table-row table:number-rows-repeated="2" table:visibility="collapse">"#,
        r#"<table:table-cell table:number-columns-repeated="1"/><table:table-cell table:number-columns-repeated="3" office:value-type="float" office:value="7"/></table:table-row></table:table-row-group>"#,
        r#"<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>"#,
        r#"<table:table-row table:default-cell-style-name="ce2"><table:covered-table-cell office:value-type="string"><text:p>covered</text:p></table:covered-table-cell>"#,
        r#"<table:table-cell table:number-columns-repeated="16383"/></table:table-row>"#,
        r#"<table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="1000000"/></table:table-row>"#,
        r#"</table:table>"#,
    );
    let xml = document(&format!("{FIRST_TABLE}{second}"));
    assert_eq!(
        read_with(
            &xml,
            &Setup {
                table: 1,
                ..Setup::default()
            }
        )
        .unwrap(),
        concat!(
            "row 0\n",
            "  A1 2 Text(\"head\")\n",
            "row 1 hidden\n",
            "  B2 2 Number(7.0)\n",
            "  C2 1 Number(7.0)\n",
            "  D2 1 Number(7.0)\n",
            "row 2 hidden\n",
            "  B3 2 Number(7.0)\n",
            "  C3 1 Number(7.0)\n",
            "  D3 1 Number(7.0)\n",
            "row 1048003\n",
            "  A1048004 3 Text(\"covered\")\n",
        )
    );
    // The first table reads its own rows, not the nested table's.
    assert_eq!(
        read(&xml).unwrap(),
        "row 0\n  A1 1 Number(1.0)\nrow 1\n  A2 1 Text(\"</table:table>\")\n"
    );
    // A table past the last reads as empty.
    assert_eq!(
        read_with(
            &xml,
            &Setup {
                table: 2,
                ..Setup::default()
            }
        )
        .unwrap(),
        ""
    );
}

#[test]
fn a_value_past_the_grid_refuses_the_file() {
    let rows = document(concat!(
        r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="1"/></table:table-row>"#,
        r#"<table:table-row table:number-rows-repeated="1048576"><table:table-cell office:value-type="float" office:value="2"/></table:table-row></table:table>"#
    ));
    let err = read(&rows).unwrap_err();
    assert!(
        err.starts_with("invalid cell reference: a value in row 1048577 lies past row 1,048,576"),
        "{err}"
    );
    assert!(err.contains("sheet 'S', part content.xml, byte "), "{err}");
    let columns = document(concat!(
        r#"<table:table table:name="S"><table:table-row><table:table-cell table:number-columns-repeated="16383"/>"#,
        r#"<table:table-cell table:number-columns-repeated="2" office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row></table:table>"#
    ));
    let err = read(&columns).unwrap_err();
    assert!(
        err.contains("a value in column 16385 lies past column XFD"),
        "{err}"
    );
    // Empty rows past the grid, then a value.
    let late = document(concat!(
        r#"<table:table table:name="S"><table:table-row table:number-rows-repeated="4000000000000"><table:table-cell/></table:table-row>"#,
        r#"<table:table-row><table:table-cell office:value-type="float" office:value="2"/></table:table-row></table:table>"#
    ));
    let err = read(&late).unwrap_err();
    assert!(
        err.contains("a value in row 4000000000001 lies past"),
        "{err}"
    );
    // calamine#594's file: a string repeated 999,999,999 times.
    let dos = document(concat!(
        r#"<table:table table:name="Sheet1"><table:table-row table:number-rows-repeated="999999999">"#,
        r#"<table:table-cell table:number-columns-repeated="999999999" office:value-type="string"><text:p>X</text:p></table:table-cell></table:table-row></table:table>"#
    ));
    let err = read(&dos).unwrap_err();
    assert!(
        err.contains("a value in column 999999999 lies past column XFD"),
        "{err}"
    );
}

#[test]
fn a_selection_resolves_its_columns_and_says_where_values_were_left_out() {
    let xml = document(concat!(
        r#"<table:table table:name="S">"#,
        r#"<table:table-row><table:table-cell office:value-type="float" office:value="1"/><table:table-cell office:value-type="float" office:value="2"/>"#,
        r#"<table:table-cell table:number-columns-repeated="3" office:value-type="string" table:formula="of:=&quot;x&quot;"><text:p>x</text:p></table:table-cell></table:table-row>"#,
        r#"<table:table-row table:number-rows-repeated="2"><table:table-cell office:value-type="float" office:value="3"/></table:table-row>"#,
        r#"<table:table-row><table:table-cell table:number-columns-repeated="9"/><table:table-cell office:value-type="boolean" office:boolean-value="garbage"/></table:table-row>"#,
        r#"</table:table>"#
    ));
    let setup = Setup {
        columns: Some([1, 3].into_iter().collect()),
        window: Some((0, 4)),
        formulas: true,
        ..Setup::default()
    };
    // Column J's bad boolean is outside the selection and the window:
    // neither read nor an error, and its row is no row of the selection.
    assert_eq!(
        read_with(&xml, &setup).unwrap(),
        concat!(
            "row 0\n",
            "  B1 1 Number(2.0)\n",
            "  D1 1 Text(\"x\") = of:=\"x\"\n",
            "row 1 elsewhere\n",
            "row 2 elsewhere\n",
        )
    );
    let err = read(&xml).unwrap_err();
    assert!(
        err.starts_with("invalid cell value: `garbage` is not a boolean (office:boolean-value) (at sheet 'S', part content.xml, cell J4, byte "),
        "{err}"
    );
}

#[test]
fn malformed_and_hostile_documents_are_errors_with_their_place() {
    // Cut short: inside a row, inside the table, between tables.
    let whole = document(concat!(
        r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="1"/></table:table-row>"#,
        r#"<table:table-row><table:table-cell office:value-type="float" office:value="2"/></table:table-row></table:table>"#
    ));
    let cut = &whole[..whole
        .find("<table:table-cell office:value-type=\"float\" office:value=\"2\"")
        .unwrap()
        + 10];
    let err = read(cut).unwrap_err();
    assert!(err.contains("malformed XML"), "{err}");
    assert!(err.contains("byte "), "{err}");
    let err = read(&whole[..whole.find("</table:table>").unwrap()]).unwrap_err();
    assert!(err.contains("the part ends inside the table"), "{err}");
    let err = read_with(
        &whole[..whole.len() - 40],
        &Setup {
            table: 1,
            ..Setup::default()
        },
    );
    assert!(err.unwrap_err().contains("ends inside"));
    // Nesting 100,000 deep, in a cell and outside rows.
    let deep_cell = document(&format!(
        r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="string"><text:p>{}</text:p></table:table-cell></table:table-row></table:table>"#,
        "<text:span>".repeat(100_000)
    ));
    let err = read(&deep_cell).unwrap_err();
    assert!(err.contains("nested more than 256 deep in a cell"), "{err}");
    let deep = document(&format!(
        r#"<table:table table:name="S">{}</table:table>"#,
        "<table:shapes>".repeat(100_000)
    ));
    let err = read(&deep).unwrap_err();
    assert!(err.contains("nested more than 256 deep"), "{err}");
    // A DTD (with an entity) is refused where it stands.
    let dtd = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY e \"{}\">]>{}",
        "x".repeat(100),
        &document("")[HEAD.find("<office:document-content").unwrap()..]
    );
    let err = read(&dtd).unwrap_err();
    assert!(err.contains("document type declaration"), "{err}");
    // An unknown entity in a value is an error, never expanded.
    let entity = document(
        r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="string" office:string-value="&e;"/></table:table-row></table:table>"#,
    );
    let err = read(&entity).unwrap_err();
    assert!(err.contains("unknown entity"), "{err}");
    // A bad value type and, later in the same tag, attributes run
    // together: the tag's form is wrong first, by both paths (found by
    // the scan_ods fuzz target).
    let both = document(
        r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="nope" office:value="1"table:style-name="ce1"/></table:table-row></table:table>"#,
    );
    let err = read(&both).unwrap_err();
    assert!(
        err.contains("attributes are not separated by whitespace"),
        "{err}"
    );
    // A mismatched end tag.
    let mismatched = document(
        r#"<table:table table:name="S"><table:table-row><table:table-cell office:value-type="string"><text:p>x</text:span></table:table-cell></table:table-row></table:table>"#,
    );
    let err = read(&mismatched).unwrap_err();
    assert!(
        err.contains("does not close the element open here"),
        "{err}"
    );
}

/// A reader of `head`, then `count` bytes of `fill`, then `tail`: a huge
/// document made as it is read.
struct Synthetic {
    head: Vec<u8>,
    fill: u8,
    count: u64,
    tail: Vec<u8>,
    at: u64,
}

impl Read for Synthetic {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let head = self.head.len() as u64;
        let mut written = 0;
        while written < buf.len() {
            let at = self.at;
            let byte = if at < head {
                self.head[at as usize]
            } else if at < head + self.count {
                self.fill
            } else if let Some(&byte) = self.tail.get((at - head - self.count) as usize) {
                byte
            } else {
                break;
            };
            buf[written] = byte;
            written += 1;
            self.at += 1;
        }
        Ok(written)
    }
}

#[test]
fn a_gigabyte_attribute_is_refused_at_the_row_limit_without_reading_it_all() {
    let head = format!(
        r#"{HEAD}<table:table table:name="S"><table:table-row><table:table-cell office:value-type="string" office:string-value=""#
    );
    let source = Synthetic {
        head: head.into_bytes(),
        fill: b'a',
        count: 1 << 30,
        tail: format!(r#""/></table:table-row></table:table>{TAIL}"#).into_bytes(),
        at: 0,
    };
    let err = digest(
        PartSource::Reader(Box::new(source)),
        None,
        &Setup {
            max_row_bytes: Some(1 << 20),
            ..Setup::default()
        },
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("limit exceeded: row or string item size (maximum 1048576"),
        "{err}"
    );
    // Refused at the limit: the offset is the row's, the part and sheet named.
    assert_eq!(err.location().part.as_deref(), Some("content.xml"), "{err}");
    assert_eq!(err.location().sheet.as_deref(), Some("S"), "{err}");
    assert!(
        err.location().offset.is_some_and(|offset| offset < 4096),
        "{err}"
    );
}

#[test]
fn an_empty_grid_of_17_billion_cells_reads_as_nothing() {
    // The allocation-free path: the row is scanned once, its runs added.
    let xml = document(concat!(
        r#"<table:table table:name="S"><table:table-column table:number-columns-repeated="16384"/>"#,
        r#"<table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="16384"/></table:table-row></table:table>"#
    ));
    assert_eq!(read(&xml).unwrap(), "");
}

#[test]
fn the_catalog_lists_tables_styles_and_names_without_reading_cells() {
    let xml = format!(
        concat!(
            r#"{head}"#,
            r#"<table:calculation-settings><table:null-date table:date-value="1904-01-01"/></table:calculation-settings>"#,
            r#"{first}<table:table table:name="b &amp; c" table:style-name="ta2"><table:table-row><table:table-cell office:value-type="float" office:value="x"/></table:table-row>"#,
            r#"<table:named-expressions><table:named-range table:name="local" table:cell-range-address="$'b &amp; c'.$A$1"/></table:named-expressions></table:table>"#,
            r#"<table:named-expressions><table:named-expression table:name="twice" table:expression="of:=2*[.A1]"/></table:named-expressions>{tail}"#
        ),
        head = HEAD.replace(
            "<office:body>",
            concat!(
                r#"<office:automatic-styles xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0">"#,
                r#"<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>"#,
                r#"<style:style style:name="ce9" style:family="table-cell" style:data-style-name="N9"/></office:automatic-styles><office:body>"#
            )
        ),
        first = FIRST_TABLE,
        tail = TAIL
    );
    for chunk in [1, 7, 4096, xml.len()] {
        let limits = Limits::default();
        let source = PartSource::Reader(Box::new(xml.as_bytes()));
        let (catalog, _) = read_catalog_chunked(source, &limits, Document::Content, chunk).unwrap();
        let tables: Vec<(&str, Option<&str>)> = catalog
            .tables
            .iter()
            .map(|table| (table.name.as_str(), table.style.as_deref()))
            .collect();
        assert_eq!(tables, [("first", None), ("b & c", Some("ta2"))]);
        assert!(catalog.hidden_table_styles.contains("ta2"));
        assert_eq!(catalog.null_date.as_deref(), Some("1904-01-01"));
        assert_eq!(catalog.cell_styles.len(), 1);
        let named: Vec<(&str, &str, Option<usize>)> = catalog
            .named
            .iter()
            .map(|entry| (entry.name.as_str(), entry.refers_to.as_str(), entry.sheet))
            .collect();
        assert_eq!(
            named,
            [
                ("local", "$'b & c'.$A$1", Some(1)),
                ("twice", "of:=2*[.A1]", None)
            ]
        );
    }
}
