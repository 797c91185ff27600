//! Namespaces in every part the library reads (issue 16): relationships,
//! the workbook's sheet list and defined names, a sheet's metadata
//! (dimension, columns, merged cells, hyperlinks, hidden rows), comments,
//! and the attributes of cells and rows. Only elements of the namespace a
//! reader wants are read (SpreadsheetML, or the package relationships),
//! prefixed or not; foreign ones are skipped with their content. A prefixed
//! attribute (`f:r`) is never the unqualified one the schemas define, and
//! a relationship id is found by its prefix's namespace URI, not by the
//! spelling `r:id`. Each workbook is written by the test itself.

use crate::common;
use crate::hostile::{cells_of, open_with};

use common::*;
use sheetstream::{CellRange, ErrorKind, Limits, SheetInfo};

const FOREIGN: &str = "urn:example:foreign";
const MC_NS: &str = "http://schemas.openxmlformats.org/markup-compatibility/2006";

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(reference, value)| (reference.to_string(), value.to_string()))
        .collect()
}

fn range(text: &str) -> CellRange {
    text.parse().unwrap()
}

/// A one-sheet book whose sheet holds `1` in A1.
fn one_cell_sheet(value: &str) -> String {
    sheet_xml(&format!(r#"<row r="1"><c r="A1"><v>{value}</v></c></row>"#))
}

#[test]
fn a_foreign_element_that_looks_like_a_relationship_is_not_read() {
    // The workbook's rels: a foreign `<f:Relationship>` with the sheet's id
    // comes first (the first of a repeated id wins, so reading it would
    // send the sheet to the ghost part), and a plain `<Relationship>` sits
    // inside a foreign element.
    let workbook_rels = format!(
        r#"{XML_DECL}<Relationships xmlns="{PKG_REL_NS}" xmlns:f="{FOREIGN}"><f:Relationship Id="rId1" Type="{REL_NS}/worksheet" Target="worksheets/ghost.xml"/><f:wrap><Relationship Id="rId1" Type="{REL_NS}/worksheet" Target="worksheets/ghost.xml"/></f:wrap><Relationship Id="rId1" Type="{REL_NS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#
    );
    // The package rels: a foreign officeDocument relationship to a ghost
    // workbook first.
    let package_rels = format!(
        r#"{XML_DECL}<Relationships xmlns="{PKG_REL_NS}"><Relationship xmlns="{FOREIGN}" Id="rId0" Type="{REL_NS}/officeDocument" Target="ghost/workbook.xml"/><Relationship Id="rId1" Type="{REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>"#
    );
    let ghost_workbook = format!(
        r#"{XML_DECL}<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}"><sheets><sheet name="Ghost" sheetId="1" r:id="rId1"/></sheets></workbook>"#
    );
    let bytes = book()
        .sheet("Data", one_cell_sheet("1"))
        .package()
        .with("xl/_rels/workbook.xml.rels", workbook_rels)
        .with("_rels/.rels", package_rels)
        .with("ghost/workbook.xml", ghost_workbook)
        .with("ghost/_rels/workbook.xml.rels", rels_xml(&[]))
        .with("xl/worksheets/ghost.xml", one_cell_sheet("666"))
        .build();
    let workbook = open_with(&bytes, Limits::default()).expect("open");
    let names: Vec<&str> = workbook.sheets().iter().map(SheetInfo::name).collect();
    assert_eq!(names, ["Data"]);
    assert_eq!(workbook.sheets()[0].part(), "xl/worksheets/sheet1.xml");
    assert_eq!(cells_of(&bytes), pairs(&[("A1", "1")]));
}

#[test]
fn a_relationships_part_in_a_foreign_namespace_has_no_relationships() {
    // Its default namespace is foreign: the sheet's relationship is missing.
    let workbook_rels = format!(
        r#"{XML_DECL}<Relationships xmlns="{FOREIGN}"><Relationship Id="rId1" Type="{REL_NS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#
    );
    let bytes = book()
        .sheet("Data", one_cell_sheet("1"))
        .package()
        .with("xl/_rels/workbook.xml.rels", workbook_rels)
        .build();
    let Err(err) = open_with(&bytes, Limits::default()) else {
        panic!("opened without the sheet's relationship");
    };
    assert!(
        matches!(err.kind(), ErrorKind::MissingPart(what) if what.contains("rId1")),
        "{err}"
    );
}

#[test]
fn prefixed_relationships_are_read() {
    let prefixed = |rels: &[(&str, String, &str)]| {
        let mut out = format!(r#"{XML_DECL}<p:Relationships xmlns:p="{PKG_REL_NS}">"#);
        for (id, kind, target) in rels {
            out.push_str(&format!(
                r#"<p:Relationship Id="{id}" Type="{kind}" Target="{target}"/>"#
            ));
        }
        out + "</p:Relationships>"
    };
    let bytes = book()
        .sheet("Data", one_cell_sheet("4"))
        .package()
        .with(
            "_rels/.rels",
            prefixed(&[(
                "rId1",
                format!("{REL_NS}/officeDocument"),
                "xl/workbook.xml",
            )]),
        )
        .with(
            "xl/_rels/workbook.xml.rels",
            prefixed(&[(
                "rId1",
                format!("{REL_NS}/worksheet"),
                "worksheets/sheet1.xml",
            )]),
        )
        .build();
    let workbook = open_with(&bytes, Limits::default()).expect("open");
    assert_eq!(workbook.sheets()[0].name(), "Data");
    assert_eq!(cells_of(&bytes), pairs(&[("A1", "4")]));
}

/// A workbook part with the given root attributes and content.
fn workbook_part(root_attributes: &str, content: &str) -> String {
    format!(r#"{XML_DECL}<workbook xmlns="{MAIN_NS}" {root_attributes}>{content}</workbook>"#)
}

/// Three sheets' relationships, rId1 to rId3, and their parts.
fn three_sheets(workbook: String) -> Vec<u8> {
    let rels: Vec<(String, String, String)> = (1..=3)
        .map(|i| {
            (
                format!("rId{i}"),
                format!("{REL_NS}/worksheet"),
                format!("worksheets/sheet{i}.xml"),
            )
        })
        .collect();
    let mut package = book()
        .sheet("unused", one_cell_sheet("1"))
        .package()
        .with("xl/workbook.xml", workbook)
        .with("xl/_rels/workbook.xml.rels", rels_xml(&rels));
    for i in 1..=3 {
        package = package.with(
            &format!("xl/worksheets/sheet{i}.xml"),
            one_cell_sheet(&i.to_string()),
        );
    }
    package.build()
}

#[test]
fn a_relationship_id_is_found_by_its_namespace_not_its_prefix() {
    // `rel:` and the strict `s:` are the relationships namespace; `r:` is
    // bound to something else here, so `r:id` is not a relationship id.
    let workbook = workbook_part(
        &format!(r#"xmlns:rel="{REL_NS}" xmlns:s="{STRICT_REL_NS}" xmlns:r="{FOREIGN}""#),
        r#"<sheets><sheet name="Rel" sheetId="1" r:id="rId3" rel:id="rId2"/><sheet name="Strict" sheetId="2" s:id="rId1"/><sheet name="Foreign" sheetId="3" r:id="rId3"/><sheet name="Plain" sheetId="4" id="rId3"/></sheets>"#,
    );
    let bytes = three_sheets(workbook);
    let mut workbook = open_with(&bytes, Limits::default()).expect("open");
    let listed: Vec<(&str, &str)> = workbook
        .sheets()
        .iter()
        .map(|sheet| (sheet.name(), sheet.part()))
        .collect();
    // A sheet without a relationship id is not a sheet we can read (an old
    // VBA module sheet has none), as before.
    assert_eq!(
        listed,
        [
            ("Rel", "xl/worksheets/sheet2.xml"),
            ("Strict", "xl/worksheets/sheet1.xml")
        ]
    );
    let mut rows = workbook.rows("Rel").expect("rows");
    let row = rows.next_row().expect("row").expect("a row");
    assert_eq!(row.cells()[0].value().to_string(), "2");
}

#[test]
fn foreign_sheets_and_defined_names_in_the_workbook_are_not_read() {
    let workbook = workbook_part(
        &format!(r#"xmlns:r="{REL_NS}" xmlns:f="{FOREIGN}""#),
        r#"<sheets><f:sheet name="Ghost" sheetId="9" r:id="rId3"/><sheet name="One" sheetId="1" r:id="rId1"/><sheet name="Two" sheetId="2" r:id="rId2"/></sheets><definedNames><definedName name="Real" localSheetId="1">Two!$A$1</definedName><f:definedName name="Ghost">One!$B$1</f:definedName><definedName f:name="Wrong" name="Right">One!$C$1</definedName><definedName name="Coded" localSheetId="&#48;" hidden="&#49;">One!$D$1</definedName></definedNames><f:ext><definedNames><definedName name="Inside">One!$E$1</definedName></definedNames></f:ext>"#,
    );
    let bytes = three_sheets(workbook);
    let mut workbook = open_with(&bytes, Limits::default()).expect("open");
    let names: Vec<&str> = workbook.sheets().iter().map(SheetInfo::name).collect();
    assert_eq!(names, ["One", "Two"]);
    let defined: Vec<(String, String, Option<usize>, bool)> = workbook
        .defined_names()
        .expect("defined names")
        .into_iter()
        .map(|name| (name.name, name.refers_to, name.sheet, name.hidden))
        .collect();
    // `localSheetId` counts the workbook's sheets, not the foreign one.
    assert_eq!(
        defined,
        [
            ("Real".into(), "Two!$A$1".into(), Some(1), false),
            ("Right".into(), "One!$C$1".into(), None, false),
            ("Coded".into(), "One!$D$1".into(), Some(0), true),
        ]
    );
}

/// A sheet with foreign look-alikes of every metadata element, with
/// comments (their part's default namespace `comments_namespace`) and a
/// hyperlink relationship beside it.
fn metadata_workbook(comments_namespace: &str) -> Vec<u8> {
    let sheet = format!(
        r#"{XML_DECL}<worksheet xmlns="{MAIN_NS}" xmlns:f="{FOREIGN}" xmlns:rel="{REL_NS}" xmlns:r="{FOREIGN}" xmlns:mc="{MC_NS}" mc:Ignorable="f"><f:dimension ref="A1:Z99"/><dimension ref="A1:C6"/><f:sheetFormatPr zeroHeight="1"/><sheetFormatPr defaultRowHeight="15"/><f:cols><col min="1" max="1" hidden="1"/></f:cols><cols><f:col min="2" max="2" hidden="1"/><col min="3" max="3" hidden="1"/><col min="4" max="4" f:hidden="1"/></cols><sheetData><row r="1" hidden="1"><c r="A1"><v>1</v></c></row><mc:AlternateContent><mc:Choice Requires="f"><row r="2" hidden="1"><c r="A2"><v>2</v></c></row></mc:Choice></mc:AlternateContent><f:row r="3" hidden="1"/><row r="4" f:hidden="1"><c r="A4"><v>4</v></c></row><row r="5" hidden="&#49;"><c r="A5"><v>5</v></c></row><row f:r="9" hidden="1"><c r="A6"><v>6</v></c></row></sheetData><f:mergeCells><mergeCell ref="E1:F1"/></f:mergeCells><mergeCells><mergeCell ref="A1:B1"/><f:mergeCell ref="C1:D1"/></mergeCells><hyperlinks><hyperlink ref="A1" rel:id="rIdLink"/><hyperlink ref="A2" r:id="rIdLink" location="Here"/><f:hyperlink ref="A3" rel:id="rIdLink"/></hyperlinks></worksheet>"#
    );
    let comments = format!(
        r#"{XML_DECL}<comments xmlns="{comments_namespace}" xmlns:f="{FOREIGN}"><authors><author>Ann</author><f:author>Ghost</f:author><author>Bo</author></authors><commentList><comment ref="A1" authorId="1"><text><t>keep</t><f:t> drop</f:t><r><t> run</t><f:r><t> nor this</t></f:r></r></text></comment><f:comment ref="B1" authorId="0"><text><t>ghost</t></text></f:comment><f:wrap><comment ref="C1" authorId="0"><text><t>inside</t></text></comment></f:wrap><comment ref="D1" f:ref="E1" authorId="&#48;"><text><t>plain</t></text></comment></commentList></comments>"#
    );
    let sheet_rels = rels_xml(&[
        (
            "rIdLink".into(),
            format!("{REL_NS}/hyperlink"),
            "https://example.com/".into(),
        ),
        (
            "rIdNotes".into(),
            format!("{REL_NS}/comments"),
            "../comments1.xml".into(),
        ),
    ])
    .replace(
        r#"Target="https://example.com/""#,
        r#"Target="https://example.com/" TargetMode="External""#,
    );
    book()
        .sheet("Data", sheet)
        .package()
        .with("xl/worksheets/_rels/sheet1.xml.rels", sheet_rels)
        .with("xl/comments1.xml", comments)
        .build()
}

#[test]
fn foreign_metadata_elements_and_attributes_are_not_read() {
    let bytes = metadata_workbook(MAIN_NS);
    let mut workbook = open_with(&bytes, Limits::default()).expect("open");
    let metadata = workbook.sheet_metadata("Data").expect("metadata");
    assert_eq!(metadata.dimension, Some(range("A1:C6")));
    assert!(!metadata.rows_hidden_by_default);
    assert_eq!(metadata.hidden_columns, [2..=2]);
    assert_eq!(metadata.merged, [range("A1:B1")]);
    let links: Vec<(CellRange, Option<&str>, Option<&str>)> = metadata
        .hyperlinks
        .iter()
        .map(|link| (link.range, link.target.as_deref(), link.location.as_deref()))
        .collect();
    assert_eq!(
        links,
        [
            (range("A1"), Some("https://example.com/"), None),
            (range("A2"), None, Some("Here")),
        ]
    );
    let comments: Vec<(String, Option<&str>, &str)> = metadata
        .comments
        .iter()
        .map(|comment| {
            (
                comment.cell.to_string(),
                comment.author.as_deref(),
                comment.text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        comments,
        [
            ("A1".into(), Some("Bo"), "keep run"),
            ("D1".into(), Some("Ann"), "plain"),
        ]
    );
    assert_eq!(
        workbook.sheet_dimension("Data").expect("dimension"),
        Some(range("A1:C6"))
    );
}

#[test]
fn hidden_rows_are_the_rows_the_row_reader_reads() {
    let bytes = metadata_workbook(MAIN_NS);
    let mut workbook = open_with(&bytes, Limits::default()).expect("open");
    // Row 2 sits in a markup-compatibility choice and row 3 is foreign:
    // neither is a row. `f:hidden` is not `hidden`, and `f:r` not `r`, so
    // the last row is row 6, after row 5.
    assert_eq!(
        workbook.hidden_rows("Data").expect("hidden rows"),
        [0, 4, 5]
    );
    assert_eq!(
        cells_of(&bytes),
        pairs(&[("A1", "1"), ("A4", "4"), ("A5", "5"), ("A6", "6")])
    );
    let mut rows = workbook.rows("Data").expect("rows");
    let mut indices = Vec::new();
    while let Some(row) = rows.next_row().expect("row") {
        indices.push(row.index());
    }
    assert_eq!(indices, [0, 3, 4, 5]);
}

#[test]
fn a_comments_part_in_a_foreign_namespace_has_no_comments() {
    let bytes = metadata_workbook("urn:example:other");
    let mut workbook = open_with(&bytes, Limits::default()).expect("open");
    let metadata = workbook.sheet_metadata("Data").expect("metadata");
    assert!(metadata.comments.is_empty(), "{:?}", metadata.comments);
}

#[test]
fn prefixed_attributes_are_not_the_unqualified_ones() {
    // `f:r`, `f:t`, `f:s`, `f:numFmtId` belong to the foreign namespace, and `x:t` to
    // SpreadsheetML's namespace, which is not the unqualified `t` either
    // (SpreadsheetML's attributes are unqualified). Each cell reads as if
    // the prefixed attribute were not there: a cell without `r` takes the
    // next column.
    let sheet = format!(
        r#"{XML_DECL}<worksheet xmlns="{MAIN_NS}" xmlns:x="{MAIN_NS}" xmlns:f="{FOREIGN}"><sheetData><row r="1"><c r="A1" f:r="Z1"><v>1</v></c><c f:r="C1"><v>2</v></c><c r="D1" t="s" f:t="n"><v>0</v></c><c r="E1" f:t="s"><v>5</v></c><c r="F1" f:s="1"><v>45292</v></c><c r="G1" x:t="s"><v>0</v></c><c r="H1" s="1"><v>45292</v></c><c r="I1" s="2"><v>45292</v></c></row><row f:r="5"><c><v>7</v></c></row><x:row r="3" x:r="9"><x:c x:r="Q3" r="B3"><x:v>8</x:v></x:c></x:row></sheetData></worksheet>"#
    );
    let bytes = book()
        .sheet("Data", sheet)
        .strings(&["<t>text</t>"])
        .styles(
            styles_xml(&[], &[0, 14, 0])
                .replace(
                    &format!(r#"<styleSheet xmlns="{MAIN_NS}">"#),
                    &format!(r#"<styleSheet xmlns="{MAIN_NS}" xmlns:f="{FOREIGN}">"#),
                )
                .replacen(
                    r#"<xf numFmtId="0" fontId"#,
                    r#"<xf numFmtId="0" f:numFmtId="14" fontId"#,
                    2,
                ),
        )
        .build();
    assert_eq!(
        cells_of(&bytes),
        pairs(&[
            ("A1", "1"),
            ("B1", "2"),
            ("D1", "text"),
            ("E1", "5"),
            ("F1", "45292"),
            ("G1", "0"),
            ("H1", "2024-01-01"),
            // Style 2's `f:numFmtId="14"` is not its number format.
            ("I1", "45292"),
            ("A2", "7"),
            ("B3", "8"),
        ])
    );
}

#[test]
fn a_macro_sheet_as_excel_writes_it_is_read() {
    // Excel puts a macro sheet's root in its own 2006 namespace, around
    // SpreadsheetML content (corpus poi/64420.xlsm); its other elements in
    // that namespace (`xm:f`) stay foreign.
    let sheet = format!(
        r#"{XML_DECL}<xm:macrosheet xmlns="{MAIN_NS}" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main" xmlns:r="{REL_NS}"><dimension ref="A1:B1"/><sheetData><row r="1"><c r="A1"><v>1</v></c><c r="B1"><xm:f>A1</xm:f><v>2</v></c></row></sheetData><mergeCells><mergeCell ref="A1:B1"/></mergeCells></xm:macrosheet>"#
    );
    let bytes = book()
        .sheet_of_type("Macro1", &format!("{MS_REL_NS}/xlMacrosheet"), None, sheet)
        .build();
    let mut workbook = open_with(&bytes, Limits::default()).expect("open");
    assert_eq!(
        workbook.sheets()[0].kind(),
        sheetstream::SheetKind::Macrosheet
    );
    let mut rows = workbook.rows(0).expect("rows").with_formulas(true);
    let row = rows.next_row().expect("row").expect("a row");
    let cells: Vec<(String, String)> = row
        .cells()
        .iter()
        .map(|cell| (cell.reference().to_string(), cell.value().to_string()))
        .collect();
    assert_eq!(cells, pairs(&[("A1", "1"), ("B1", "2")]));
    assert_eq!(row.cells()[1].formula(), None);
    drop(rows);
    let metadata = workbook.sheet_metadata(0).expect("metadata");
    assert_eq!(metadata.dimension, Some(range("A1:B1")));
    assert_eq!(metadata.merged, [range("A1:B1")]);
}
