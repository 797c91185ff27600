//! Hostile and malformed workbooks, one shape per test, each written by the
//! test itself: refused with a typed error (or read, where the format
//! allows it), on the one-thread and on the pipelined path.

use crate::common;

use std::io::Cursor;

use common::*;
use sheetstream::{Error, ErrorKind, Limits, OpenOptions, Row, SheetInfo, Workbook};

pub(crate) type Book = Workbook<Cursor<Vec<u8>>>;

/// Opens a workbook and reads its whole shared strings table (which rows
/// otherwise parse only as far as they need it, see
/// `errors::a_damaged_shared_string_past_the_rows_read_is_no_error`).
pub(crate) fn open_with(bytes: &[u8], limits: Limits) -> Result<Book, Error> {
    let workbook = OpenOptions::new()
        .limits(limits)
        .from_reader(Cursor::new(bytes.to_vec()))?;
    workbook.shared_strings()?;
    Ok(workbook)
}

/// Streams every worksheet on one thread; the cells read or the first error.
fn read_one_thread(workbook: &mut Book) -> Result<usize, Error> {
    let mut cells = 0;
    for position in 0..workbook.sheets().len() {
        let mut rows = workbook.rows(position)?;
        while let Some(row) = rows.next_row()? {
            cells += row.cells().len();
        }
    }
    Ok(cells)
}

/// Streams every worksheet over two threads (a lone sheet is pipelined).
fn read_two_threads(workbook: &Book) -> Result<usize, Error> {
    let cells = std::sync::atomic::AtomicUsize::new(0);
    workbook.parallel().threads(2).for_each_row(|| {
        |_: &SheetInfo, row: Row<'_>| {
            cells.fetch_add(row.cells().len(), std::sync::atomic::Ordering::Relaxed);
        }
    })?;
    Ok(cells.into_inner())
}

/// Both paths' results.
fn read_both(bytes: &[u8], limits: Limits) -> [Result<usize, Error>; 2] {
    let one = open_with(bytes, limits).and_then(|mut workbook| read_one_thread(&mut workbook));
    let two = open_with(bytes, limits).and_then(|workbook| read_two_threads(&workbook));
    [one, two]
}

fn assert_refused(results: [Result<usize, Error>; 2], wanted: &str) -> Vec<Error> {
    results
        .into_iter()
        .zip(["one thread", "pipelined"])
        .map(|(result, path)| {
            let err = result.expect_err(path);
            assert!(err.to_string().contains(wanted), "{path}: {err}");
            err
        })
        .collect()
}

fn small_rows() -> Limits {
    {
        let mut limits = Limits::default();
        limits.max_row_bytes = 1 << 20;
        limits
    }
}

#[test]
fn a_row_never_closed_is_refused_at_the_row_limit_on_both_paths() {
    // Repeated and nested markup after one cell, four times the limit.
    for filler in ["<x/>", "<x>"] {
        let rows = format!(
            r#"<row r="1"><c r="A1"><v>1</v></c>{}"#,
            filler.repeat((4 << 20) / filler.len())
        );
        let bytes = book().sheet("Data", sheet_xml(&rows)).build();
        let wanted = if filler == "<x>" {
            "nested more than 256 deep"
        } else {
            "row or string item size"
        };
        for err in assert_refused(read_both(&bytes, small_rows()), wanted) {
            assert_eq!(err.location().sheet.as_deref(), Some("Data"));
            assert_eq!(
                err.location().part.as_deref(),
                Some("xl/worksheets/sheet1.xml")
            );
        }
    }
}

#[test]
fn impossible_structure_is_refused_before_the_row_limit() {
    for (rows, wanted) in [
        (
            format!(
                r#"<row r="1"><c r="A1"><v>1</v></c><row r="2">{}"#,
                "<y/>".repeat(1 << 20)
            ),
            "a `<row>` inside a `<row>`",
        ),
        (
            format!(
                r#"<row r="1"><c r="A1"><c r="B1">{}"#,
                "<y/>".repeat(1 << 20)
            ),
            "a `<c>` inside a `<c>`",
        ),
    ] {
        let bytes = book().sheet("Data", sheet_xml(&rows)).build();
        // The default limit (256 MiB) is far off: the structure itself is refused.
        for err in assert_refused(read_both(&bytes, Limits::default()), wanted) {
            assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{err}");
            assert_eq!(err.location().row, Some(1), "{err}");
            assert!(err.location().offset.unwrap() < 1000, "{err}");
        }
    }
}

#[test]
fn a_row_of_more_cells_than_columns_is_refused() {
    let rows = format!(
        r#"<row r="1">{}</row>"#,
        r#"<c r="A1"><v>1</v></c>"#.repeat(20_000)
    );
    let bytes = book().sheet("Data", sheet_xml(&rows)).build();
    for err in assert_refused(
        read_both(&bytes, Limits::default()),
        "more than 16384 cells",
    ) {
        assert!(matches!(err.kind(), ErrorKind::CellReference(_)), "{err}");
    }
    // Exactly 16,384 (repeated columns included, as a real writer does) are read.
    let rows = format!(
        r#"<row r="1">{}</row>"#,
        r#"<c r="A1"><v>1</v></c>"#.repeat(16_384)
    );
    let bytes = book().sheet("Data", sheet_xml(&rows)).build();
    for result in read_both(&bytes, Limits::default()) {
        assert_eq!(result.unwrap(), 16_384);
    }
}

/// A workbook listing `count` sheets that all point at one part.
fn many_sheets_one_part(count: usize, part_xml: &str) -> Vec<u8> {
    let mut sheets = String::new();
    let mut rels = vec![(
        "rIdS".to_owned(),
        format!("{REL_NS}/styles"),
        "styles.xml".to_owned(),
    )];
    for n in 0..count {
        sheets.push_str(&format!(
            r#"<sheet name="S{n}" sheetId="{}" r:id="rId{n}"/>"#,
            n + 1
        ));
        rels.push((
            format!("rId{n}"),
            format!("{REL_NS}/worksheet"),
            "worksheets/sheet1.xml".into(),
        ));
    }
    Package::new()
        .with("[Content_Types].xml", content_types())
        .with("_rels/.rels", package_rels("xl/workbook.xml"))
        .with(
            "xl/workbook.xml",
            format!(
                r#"{XML_DECL}<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}"><sheets>{sheets}</sheets></workbook>"#
            ),
        )
        .with("xl/_rels/workbook.xml.rels", rels_xml(&rels))
        .with("xl/styles.xml", styles_xml(&[], &[0]))
        .with("xl/worksheets/sheet1.xml", part_xml.to_owned())
        .build()
}

#[test]
fn many_sheets_open_in_linear_time_up_to_the_sheet_limit() {
    let bytes = many_sheets_one_part(
        20_000,
        &sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#),
    );
    // Opening looks each sheet's relationship up by id (this took seconds
    // with a search per sheet): 20,000 sheets open at once.
    let workbook = open_with(&bytes, Limits::default()).unwrap();
    assert_eq!(workbook.sheets().len(), 20_000);
    assert_eq!(workbook.sheets()[19_999].name(), "S19999");
    assert_eq!(workbook.sheets()[19_999].part(), "xl/worksheets/sheet1.xml");
    let limits = {
        let mut limits = Limits::default();
        limits.max_sheets = 10_000;
        limits
    };
    let err = open_with(&bytes, limits)
        .err()
        .expect("past the sheet limit");
    assert!(
        matches!(
            err.kind(),
            ErrorKind::LimitExceeded {
                limit: "number of sheets",
                max: 10_000
            }
        ),
        "{err}"
    );
    assert_eq!(err.location().part.as_deref(), Some("xl/workbook.xml"));
}

#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn sheets_sharing_one_part_hit_the_workbook_wide_limit() {
    // A 2 MiB part read by 200 sheets: 400 MiB from a file of a few KiB.
    let rows: String = (1..=40_000)
        .map(|row| format!(r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c></row>"#))
        .collect();
    let part = sheet_xml(&rows);
    assert!(part.len() > 1 << 20);
    let bytes = many_sheets_one_part(200, &part);
    let ratio = {
        let mut limits = Limits::default();
        limits.ratio_threshold_bytes = 8 << 20;
        limits
    };
    for err in assert_refused(
        read_both(&bytes, ratio),
        "compression ratio of the whole workbook",
    ) {
        assert!(
            matches!(err.kind(), ErrorKind::LimitExceeded { .. }),
            "{err}"
        );
    }
    let total = {
        let mut limits = Limits::default();
        limits.max_workbook_bytes = 16 << 20;
        limits
    };
    for err in assert_refused(
        read_both(&bytes, total),
        "inflated bytes of the whole workbook",
    ) {
        assert!(
            matches!(err.kind(), ErrorKind::LimitExceeded { max, .. } if *max == 16 << 20),
            "{err}"
        );
    }
    // Within the limits every sheet is read.
    let relaxed = {
        let mut limits = Limits::default();
        limits.max_compression_ratio = 1_000_000;
        limits
    };
    let mut workbook = open_with(&bytes, relaxed).unwrap();
    assert_eq!(read_one_thread(&mut workbook).unwrap(), 200 * 40_000);
}

/// The central directory of a ZIP without a comment: (offset of the
/// directory, its size, the number of entries).
fn central_directory(zip: &[u8]) -> (usize, usize, usize) {
    let eocd = zip.len() - 22;
    assert_eq!(&zip[eocd..eocd + 4], b"PK\x05\x06");
    let u16_at = |at: usize| u16::from_le_bytes([zip[at], zip[at + 1]]) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(zip[at..at + 4].try_into().unwrap()) as usize;
    (u32_at(eocd + 16), u32_at(eocd + 12), u16_at(eocd + 10))
}

/// The central directory records of a ZIP, each with its name.
fn central_records(zip: &[u8]) -> Vec<(usize, usize, String)> {
    let (start, _, count) = central_directory(zip);
    let u16_at = |at: usize| u16::from_le_bytes([zip[at], zip[at + 1]]) as usize;
    let mut at = start;
    let mut records = Vec::new();
    for _ in 0..count {
        assert_eq!(&zip[at..at + 4], b"PK\x01\x02");
        let length = 46 + u16_at(at + 28) + u16_at(at + 30) + u16_at(at + 32);
        let name = String::from_utf8(zip[at + 46..at + 46 + u16_at(at + 28)].to_vec()).unwrap();
        records.push((at, length, name));
        at += length;
    }
    records
}

#[test]
fn overlapping_entries_are_refused() {
    // A second directory entry for the sheet's own bytes, under a name of
    // the same length: two entries sharing one compressed stream.
    let zip = book()
        .sheet(
            "Data",
            sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#),
        )
        .build();
    let (start, size, count) = central_directory(&zip);
    let (at, length, _) = central_records(&zip)
        .into_iter()
        .find(|(_, _, name)| name == "xl/worksheets/sheet1.xml")
        .unwrap();
    let mut twin = zip[at..at + length].to_vec();
    let name = b"xl/worksheets/sheet9.xml";
    twin[46..46 + name.len()].copy_from_slice(name);
    let mut hostile = zip[..start + size].to_vec();
    hostile.extend_from_slice(&twin);
    let mut eocd = zip[zip.len() - 22..].to_vec();
    let entries = (count as u16 + 1).to_le_bytes();
    eocd[8..10].copy_from_slice(&entries);
    eocd[10..12].copy_from_slice(&entries);
    eocd[12..16].copy_from_slice(&((size + length) as u32).to_le_bytes());
    hostile.extend_from_slice(&eocd);
    let err = open_with(&hostile, Limits::default())
        .err()
        .expect("overlap refused");
    assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err}");
    assert!(err.to_string().contains("two entries overlap"), "{err}");
}

#[test]
fn a_part_inflating_past_its_declared_size_is_refused() {
    let rows: String = (1..=2_000)
        .map(|row| format!(r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c></row>"#))
        .collect();
    let zip = book().sheet("Data", sheet_xml(&rows)).build();
    let (at, _, _) = central_records(&zip)
        .into_iter()
        .find(|(_, _, name)| name == "xl/worksheets/sheet1.xml")
        .unwrap();
    let local = u32::from_le_bytes(zip[at + 42..at + 46].try_into().unwrap()) as usize;
    // Declared as 200 bytes, in the directory and in the local header.
    let mut hostile = zip.clone();
    hostile[at + 24..at + 28].copy_from_slice(&200u32.to_le_bytes());
    hostile[local + 22..local + 26].copy_from_slice(&200u32.to_le_bytes());
    for err in assert_refused(read_both(&hostile, Limits::default()), "declares") {
        assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err}");
        assert!(
            err.to_string()
                .contains("the 200 bytes its directory entry declares"),
            "{err}"
        );
        assert_eq!(
            err.location().part.as_deref(),
            Some("xl/worksheets/sheet1.xml")
        );
    }
}

#[test]
fn a_prefixed_archive_is_read() {
    // A self-extracting stub before the first entry: the offset is found
    // from the end records, as zip tools do.
    let zip = book()
        .sheet(
            "Data",
            sheet_xml(r#"<row r="1"><c r="A1"><v>7</v></c></row>"#),
        )
        .build();
    let mut prefixed = vec![b'M'; 4096];
    prefixed.extend_from_slice(&zip);
    for result in read_both(&prefixed, Limits::default()) {
        assert_eq!(result.unwrap(), 1);
    }
}

/// The package with `part`'s recorded CRC-32 changed, in its central
/// directory record and its local header.
fn with_crc_changed(zip: &[u8], part: &str) -> Vec<u8> {
    let (at, _, _) = central_records(zip)
        .into_iter()
        .find(|(_, _, name)| name == part)
        .unwrap();
    let local = u32::from_le_bytes(zip[at + 42..at + 46].try_into().unwrap()) as usize;
    let mut changed = zip.to_vec();
    for crc_at in [at + 16, local + 14] {
        changed[crc_at] ^= 0xFF;
    }
    changed
}

#[test]
fn a_crc_mismatch_in_a_metadata_part_is_refused() {
    let zip = book()
        .styles(styles_xml(&[], &[0, 14]))
        .sheet(
            "Data",
            sheet_xml(r#"<row r="1"><c r="A1" s="1"><v>7</v></c></row>"#),
        )
        .build();
    let hostile = with_crc_changed(&zip, "xl/styles.xml");
    let err = open_with(&hostile, Limits::default())
        .err()
        .expect("CRC mismatch refused");
    assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err}");
    assert_eq!(
        err.location().part.as_deref(),
        Some("xl/styles.xml"),
        "{err}"
    );
}

#[test]
fn a_crc_mismatch_in_a_long_sheet_is_refused_on_both_paths() {
    // Many of the pipe's 512 KiB buffers: the pipelined path hashes each
    // on one thread or the other and checks the whole at the end.
    let mut rows = String::new();
    for row in 1..=60_000u64 {
        let value = row.wrapping_mul(2_654_435_761) % 1_000_003;
        rows.push_str(&format!(
            r#"<row r="{row}"><c r="A{row}"><v>{value}</v></c></row>"#
        ));
    }
    let zip = book().sheet("Data", sheet_xml(&rows)).build();
    for result in read_both(&zip, Limits::default()) {
        assert_eq!(result.unwrap(), 60_000);
    }
    let hostile = with_crc_changed(&zip, "xl/worksheets/sheet1.xml");
    for err in assert_refused(read_both(&hostile, Limits::default()), "invalid checksum") {
        assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err}");
        assert_eq!(
            err.location().part.as_deref(),
            Some("xl/worksheets/sheet1.xml"),
            "{err}"
        );
    }
}

#[test]
fn a_relationships_part_with_a_dtd_or_cut_short_is_refused() {
    let dtd = format!(
        r#"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "b">]><Relationships xmlns="{PKG_REL_NS}"/>"#
    );
    let cut = format!(
        r#"<Relationships xmlns="{PKG_REL_NS}"><Relationship Id="rId1" Type="{REL_NS}/worksheet" Target="worksheets/sheet1.xml"/>"#
    );
    for rels in [dtd, cut] {
        let bytes = book()
            .sheet("Data", sheet_xml(""))
            .package()
            .with("xl/_rels/workbook.xml.rels", rels.clone())
            .build();
        let err = open_with(&bytes, Limits::default()).err().expect("refused");
        assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{rels}: {err}");
        assert_eq!(
            err.location().part.as_deref(),
            Some("xl/_rels/workbook.xml.rels"),
            "{err}"
        );
    }
}

/// A one-sheet workbook, for the ZIP end-record tests.
fn small_zip() -> Vec<u8> {
    book()
        .sheet(
            "Data",
            sheet_xml(r#"<row r="1"><c r="A1"><v>7</v></c></row>"#),
        )
        .build()
}

fn assert_zip_refused(bytes: &[u8], wanted: &str) {
    let err = open_with(bytes, Limits::default())
        .err()
        .unwrap_or_else(|| panic!("refused: {wanted}"));
    assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err}");
    assert!(err.to_string().contains(wanted), "{err}");
}

#[test]
fn multi_disk_archives_are_refused() {
    let zip = small_zip();
    let eocd = zip.len() - 22;
    // The end record on disk 1, the directory on disk 1, or fewer entries
    // on this disk than in all.
    for (at, value) in [(4, 1u16), (6, 1), (8, 0)] {
        let mut hostile = zip.clone();
        hostile[eocd + at..eocd + at + 2].copy_from_slice(&value.to_le_bytes());
        assert_zip_refused(&hostile, "multi-disk (split or spanned) archives");
    }
    // The spanning marker a split archive's first segment starts with.
    let mut spanned = b"PK\x07\x08".to_vec();
    spanned.extend_from_slice(&zip);
    assert_zip_refused(&spanned, "starts with a spanning marker");
    // A ZIP64 locator naming three disks.
    let mut locator = b"PK\x06\x07".to_vec();
    locator.extend_from_slice(&0u32.to_le_bytes());
    locator.extend_from_slice(&0u64.to_le_bytes());
    locator.extend_from_slice(&3u32.to_le_bytes());
    let mut hostile = zip[..eocd].to_vec();
    hostile.extend_from_slice(&locator);
    hostile.extend_from_slice(&zip[eocd..]);
    assert_zip_refused(&hostile, "the ZIP64 locator names 3 disks");
    // The same archive without the markers is read.
    for result in read_both(&zip, Limits::default()) {
        assert_eq!(result.unwrap(), 1);
    }
}

#[test]
fn a_zip64_locator_that_points_nowhere_is_refused() {
    let zip = small_zip();
    let eocd = zip.len() - 22;
    let with_locator = |pointed: u64, zip64_marks: bool| {
        let mut locator = b"PK\x06\x07".to_vec();
        locator.extend_from_slice(&0u32.to_le_bytes());
        locator.extend_from_slice(&pointed.to_le_bytes());
        locator.extend_from_slice(&1u32.to_le_bytes());
        let mut hostile = zip[..eocd].to_vec();
        hostile.extend_from_slice(&locator);
        let mut end = zip[eocd..].to_vec();
        if zip64_marks {
            // The 32-bit record defers to the ZIP64 one.
            end[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
        }
        hostile.extend_from_slice(&end);
        hostile
    };
    for zip64_marks in [true, false] {
        // Past the end of the file, and at the first local header.
        assert_zip_refused(
            &with_locator(1 << 40, zip64_marks),
            "the ZIP64 end locator points outside the file (offset 1099511627776)",
        );
        assert_zip_refused(
            &with_locator(0, zip64_marks),
            "the ZIP64 end locator points at no ZIP64 end record (offset 0)",
        );
    }
    // A real ZIP64 end record before the locator is read, and refused
    // when it names another disk.
    let (start, size, count) = central_directory(&zip);
    let with_end64 = |disk: u32| {
        let mut end64 = b"PK\x06\x06".to_vec();
        end64.extend_from_slice(&44u64.to_le_bytes());
        end64.extend_from_slice(&[45, 0, 45, 0]);
        end64.extend_from_slice(&disk.to_le_bytes());
        end64.extend_from_slice(&0u32.to_le_bytes());
        for value in [count, count, size, start] {
            end64.extend_from_slice(&(value as u64).to_le_bytes());
        }
        let mut bytes = zip[..eocd].to_vec();
        bytes.extend_from_slice(&end64);
        let mut locator = b"PK\x06\x07".to_vec();
        locator.extend_from_slice(&0u32.to_le_bytes());
        locator.extend_from_slice(&(eocd as u64).to_le_bytes());
        locator.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&locator);
        let mut end = zip[eocd..].to_vec();
        end[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
        bytes.extend_from_slice(&end);
        bytes
    };
    for result in read_both(&with_end64(0), Limits::default()) {
        assert_eq!(result.unwrap(), 1);
    }
    assert_zip_refused(&with_end64(2), "the ZIP64 end record is on disk 2");
}

#[test]
fn a_shared_strings_part_cut_short_is_refused() {
    let items = r#"<si><t>a</t></si><si><t>b</t></si>"#;
    let head = format!(r#"<sst xmlns="{MAIN_NS}" count="4000000000" uniqueCount="4000000000">"#);
    // Between two items, after the last one, and inside an extension list.
    for xml in [
        format!("{head}<si><t>a</t></si>"),
        format!("{head}{items}"),
        format!("{head}{items}<extLst><ext>"),
    ] {
        let bytes = book()
            .strings_part(xml.clone())
            .sheet(
                "Data",
                sheet_xml(r#"<row r="1"><c r="A1" t="s"><v>0</v></c></row>"#),
            )
            .build();
        let err = open_with(&bytes, Limits::default()).err().expect("refused");
        assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{xml}: {err}");
        assert!(err.to_string().contains("ends inside an element"), "{err}");
        assert_eq!(err.location().part.as_deref(), Some("xl/sharedStrings.xml"));
        assert_eq!(err.location().offset, Some(xml.len() as u64), "{err}");
    }
    // With its end tag the same part is read, whatever its counts claim
    // (they size nothing), under a limit of 10 strings.
    let bytes = book()
        .strings_part(format!("{head}{items}</sst>"))
        .sheet(
            "Data",
            sheet_xml(r#"<row r="1"><c r="A1" t="s"><v>1</v></c></row>"#),
        )
        .build();
    let limits = {
        let mut limits = Limits::default();
        limits.max_shared_strings = 10;
        limits
    };
    let mut workbook = open_with(&bytes, limits).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    let row = rows.next_row().unwrap().unwrap();
    assert_eq!(row.cells()[0].value().as_str(), Some("b"));
}

#[test]
fn a_sheet_cut_short_after_its_data_is_refused_on_both_paths() {
    // Rows enough for the pipelined path to hand the scanner several windows.
    let rows: String = (1..=3_000)
        .map(|row| format!(r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c></row>"#))
        .collect();
    let head = format!(r#"<worksheet xmlns="{MAIN_NS}"><sheetViews><sheetView/></sheetViews>"#);
    for (tail, wanted) in [
        ("", "ends inside `<sheetData>`"),
        ("</sheetData>", "ends inside `<worksheet>`"),
        (
            "</sheetData><mergeCells><mergeCell ref=\"A1:B1\"/>",
            "ends inside `<mergeCells>`",
        ),
        (
            "</sheetData></worksheet><row r=\"9\"/>",
            "after the root element",
        ),
        ("</sheetData></sheetViews></worksheet>", "does not close"),
    ] {
        let xml = format!("{head}<sheetData>{rows}{tail}");
        let bytes = book().sheet("Data", xml.clone()).build();
        for err in assert_refused(read_both(&bytes, Limits::default()), wanted) {
            assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{err}");
            assert_eq!(
                err.location().part.as_deref(),
                Some("xl/worksheets/sheet1.xml")
            );
            let offset = err.location().offset.expect("an offset") as usize;
            let at = xml.len() - tail.len();
            assert!((at..=xml.len()).contains(&offset), "{tail}: {offset} {err}");
        }
    }
    // Properly ended (with a trailing newline and markup after the data),
    // the same sheet is read whole.
    let xml =
        format!("{head}<sheetData>{rows}</sheetData><pageMargins left=\"0.7\"/></worksheet>\n");
    let bytes = book().sheet("Data", xml).build();
    for result in read_both(&bytes, Limits::default()) {
        assert_eq!(result.unwrap(), 3_000);
    }
}

/// `text` as UTF-16 little endian with a byte order mark, and `lone` (a
/// surrogate) in place of the first `#`: the bytes and the lone unit's offset.
fn utf16_with_lone_surrogate(text: &str, lone: u16) -> (Vec<u8>, usize) {
    let mut units = vec![0xFEFF];
    let mut offset = None;
    for unit in text.encode_utf16() {
        if unit == u16::from(b'#') && offset.is_none() {
            offset = Some(units.len() * 2);
            units.push(lone);
        } else {
            units.push(unit);
        }
    }
    let bytes = units.iter().flat_map(|unit| unit.to_le_bytes()).collect();
    (bytes, offset.expect("a # to replace"))
}

#[test]
fn unpaired_surrogates_in_utf16_parts_are_refused() {
    let decl = r#"<?xml version="1.0" encoding="UTF-16"?>"#;
    let cell = r#"<row r="1"><c r="A1" t="s"><v>0</v></c></row>"#;
    for lone in [0xD83D, 0xDE00] {
        // In the shared strings, read at open.
        let strings = format!(r#"{decl}<sst xmlns="{MAIN_NS}"><si><t>a#b</t></si></sst>"#);
        let (part, offset) = utf16_with_lone_surrogate(&strings, lone);
        let bytes = book()
            .strings_part(part)
            .sheet("Data", sheet_xml(cell))
            .build();
        let err = open_with(&bytes, Limits::default()).err().expect("refused");
        assert!(
            err.to_string().contains("an unpaired UTF-16 surrogate"),
            "{err}"
        );
        assert_eq!(err.location().part.as_deref(), Some("xl/sharedStrings.xml"));
        assert_eq!(err.location().offset, Some(offset as u64));
        // In a sheet, streamed on both paths.
        let sheet = format!(
            r#"{decl}<worksheet xmlns="{MAIN_NS}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>#</t></is></c></row></sheetData></worksheet>"#
        );
        let (part, offset) = utf16_with_lone_surrogate(&sheet, lone);
        let bytes = book().sheet("Data", part).build();
        for err in assert_refused(read_both(&bytes, Limits::default()), "unpaired UTF-16") {
            assert_eq!(
                err.location().part.as_deref(),
                Some("xl/worksheets/sheet1.xml")
            );
            assert_eq!(err.location().offset, Some(offset as u64), "{err}");
        }
    }
    // Paired, the same sheet is read.
    let sheet = format!(
        r#"{decl}<worksheet xmlns="{MAIN_NS}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>😀</t></is></c></row></sheetData></worksheet>"#
    );
    let units: Vec<u8> = sheet.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let bytes = book().sheet("Data", units).build();
    for result in read_both(&bytes, Limits::default()) {
        assert_eq!(result.unwrap(), 1);
    }
}

/// Every cell of the first sheet as `(reference, value)`, read on one
/// thread and pipelined; asserts that both paths agree.
pub(crate) fn cells_of(bytes: &[u8]) -> Vec<(String, String)> {
    let mut workbook = open_with(bytes, Limits::default()).expect("open");
    let mut one = Vec::new();
    let mut rows = workbook.rows(0).expect("rows");
    while let Some(row) = rows.next_row().expect("row") {
        for cell in row.cells() {
            let reference = cell.reference().to_string();
            one.push((reference, cell.value().to_string()));
        }
    }
    drop(rows);
    let two = std::sync::Mutex::new(Vec::new());
    workbook
        .parallel()
        .threads(2)
        .for_each_row(|| {
            |sheet: &SheetInfo, row: Row<'_>| {
                if sheet.position() != 0 {
                    return;
                }
                for cell in row.cells() {
                    let reference = cell.reference().to_string();
                    two.lock()
                        .unwrap()
                        .push((reference, cell.value().to_string()));
                }
            }
        })
        .expect("pipelined");
    let mut two = two.into_inner().unwrap();
    two.sort();
    let mut sorted = one.clone();
    sorted.sort();
    assert_eq!(sorted, two, "one thread and pipelined differ");
    one
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(reference, value)| (reference.to_string(), value.to_string()))
        .collect()
}

/// Plain inline strings (ASCII, nothing to decode), which the scanner
/// hands out as they stand, beside ones to decode, beyond ASCII, with a
/// line end or in runs, and in a row the general path reads in part (a
/// formula): each value as written.
#[test]
fn inline_strings_plain_and_to_decode_are_read_as_written() {
    let inline = |reference: &str, text: &str| {
        format!(r#"<c r="{reference}" t="inlineStr"><is><t>{text}</t></is></c>"#)
    };
    let rows = [
        format!(
            r#"<row r="1">{}<c r="B1"><v>1.5</v></c>{}{}{}{}{}<c r="H1" t="inlineStr"><is><t xml:space="preserve"> sp </t></is></c>{}</row>"#,
            inline("A1", "plain text"),
            inline("C1", "a &amp; b"),
            inline("D1", "x_x0041_y"),
            inline("E1", "\u{e9}t\u{e9}"),
            inline("F1", "a\r\nb"),
            inline("G1", "after"),
            inline("I1", ""),
        ),
        format!(
            r#"<row r="2">{}<c r="B2" t="b"><v>1</v></c>{}</row>"#,
            inline("A2", "only"),
            inline("C2", "plain"),
        ),
        format!(
            r#"<row r="3">{}<c r="B3"><f>1+1</f><v>2</v></c>{}<c r="D3" t="inlineStr"><is><r><t>ru</t></r><r><t>ns</t></r></is></c></row>"#,
            inline("A3", "before"),
            inline("C3", "after a formula"),
        ),
    ];
    let bytes = book().sheet("Data", sheet_xml(&rows.concat())).build();
    assert_eq!(
        cells_of(&bytes),
        pairs(&[
            ("A1", "plain text"),
            ("B1", "1.5"),
            ("C1", "a & b"),
            ("D1", "xAy"),
            ("E1", "\u{e9}t\u{e9}"),
            ("F1", "a\nb"),
            ("G1", "after"),
            ("H1", " sp "),
            ("I1", ""),
            ("A2", "only"),
            ("B2", "TRUE"),
            ("C2", "plain"),
            ("A3", "before"),
            ("B3", "2"),
            ("C3", "after a formula"),
            ("D3", "runs"),
        ])
    );
}

#[test]
fn foreign_elements_in_rows_cells_and_items_are_not_read() {
    let sheet = format!(
        r#"{XML_DECL}<worksheet xmlns="{MAIN_NS}" xmlns:x14="urn:example:ext" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14"><sheetData><row r="1"><c r="A1"><v>1</v></c><x14:c r="B1"><x14:v>2</x14:v></x14:c><x14:wrap><c r="C1"><v>3</v></c></x14:wrap><c r="D1" t="inlineStr"><is><t>keep</t><x14:t>drop</x14:t></is></c><c r="E1"><x14:v>9</x14:v><v>5</v></c><c r="F1" t="s"><v>0</v></c></row><mc:AlternateContent><mc:Choice Requires="x14"><row r="2"><c r="A2"><v>6</v></c></row></mc:Choice></mc:AlternateContent><x14:row r="3"><c r="A3"><v>7</v></c></x14:row><row r="4"><c r="A4"><v>8</v></c></row></sheetData></worksheet>"#
    );
    let strings = format!(
        r#"{XML_DECL}<sst xmlns="{MAIN_NS}" xmlns:x14="urn:example:ext"><x14:si><t>not an item</t></x14:si><si><t>one</t><x14:t>, not this</x14:t><r><t>, two</t><x14:r><t>, nor this</t></x14:r></r></si></sst>"#
    );
    let bytes = book().sheet("Data", sheet).strings_part(strings).build();
    assert_eq!(
        cells_of(&bytes),
        pairs(&[
            ("A1", "1"),
            ("D1", "keep"),
            ("E1", "5"),
            ("F1", "one, two"),
            ("A4", "8"),
        ])
    );
}

#[test]
fn prefixed_spreadsheetml_is_read_and_a_foreign_default_is_not() {
    // The default namespace is foreign: unprefixed `<c>`s are not cells,
    // and the unprefixed fast paths must not take them.
    let sheet = format!(
        r#"{XML_DECL}<x:worksheet xmlns="urn:example:other" xmlns:x="{MAIN_NS}"><x:sheetData><x:row r="1"><c r="A1"><v>7</v></c><x:c r="B1" t="s"><x:v>0</x:v></x:c><x:c r="C1"><x:v>2.5</x:v></x:c></x:row><row r="2"><x:c r="A2"><x:v>9</x:v></x:c></row><x:row r="3"><x:c r="A3" t="inlineStr"><x:is><x:t>inline</x:t><t>no</t></x:is></x:c></x:row></x:sheetData></x:worksheet>"#
    );
    let strings = format!(
        r#"{XML_DECL}<s:sst xmlns:s="{STRICT_MAIN_NS}" xmlns="urn:example:other"><si><t>not an item</t></si><s:si><s:t>strict</s:t><t>, not this</t></s:si></s:sst>"#
    );
    let bytes = book().sheet("Data", sheet).strings_part(strings).build();
    assert_eq!(
        cells_of(&bytes),
        pairs(&[("B1", "strict"), ("C1", "2.5"), ("A3", "inline")])
    );
}

#[test]
fn a_declaration_below_the_root_is_honoured_in_its_scope() {
    let sheet = format!(
        r#"{XML_DECL}<worksheet xmlns="{MAIN_NS}"><sheetData><row r="1" xmlns:s="{MAIN_NS}"><s:c r="A1"><s:v>1</s:v></s:c></row><row r="2"><s:c r="A2"><v>2</v></s:c><c r="B2" xmlns="urn:example:other"><v>3</v></c><c r="C2"><v>4</v></c></row><row r="3" xmlns="urn:example:other"><c r="A3"><v>5</v></c></row><row r="4"><c r="A4"><v xmlns="urn:example:other">6</v><v>7</v></c></row><row r="5"><c r="A5"><v>8</v></c></row></sheetData></worksheet>"#
    );
    let strings = format!(
        r#"{XML_DECL}<sst xmlns="{MAIN_NS}"><si xmlns:z="{MAIN_NS}"><z:t>a</z:t></si><si><t xmlns="urn:example:other">b</t><t>c</t><z:t>d</z:t></si></sst>"#
    );
    let rows = r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>"#;
    let bytes = book()
        .sheet("Data", sheet)
        .sheet("Strings", sheet_xml(rows))
        .strings_part(strings)
        .build();
    assert_eq!(
        cells_of(&bytes),
        pairs(&[("A1", "1"), ("C2", "4"), ("A4", "7"), ("A5", "8")])
    );
    let mut workbook = open_with(&bytes, Limits::default()).expect("open");
    let mut rows = workbook.rows(1).expect("rows");
    let row = rows.next_row().expect("row").expect("a row");
    let values: Vec<String> = row.cells().iter().map(|c| c.value().to_string()).collect();
    assert_eq!(values, ["a", "c"]);
}

#[test]
fn foreign_elements_in_the_workbook_and_styles_are_not_read() {
    // A `<sheet>` inside a foreign element is not a sheet of the workbook,
    // and a foreign `workbookPr` does not switch to the 1904 date system.
    let workbook_extension = r#"<x14:workbookPr xmlns:x14="urn:example:ext" date1904="1"/><x14:ghosts xmlns:x14="urn:example:ext"><sheet name="Ghost" sheetId="9" r:id="rId1"/></x14:ghosts>"#;
    // A foreign `<xf>` in `cellXfs` takes no style index, and a foreign
    // `<numFmt>` does not redefine a format.
    let styles = format!(
        r#"{XML_DECL}<styleSheet xmlns="{MAIN_NS}" xmlns:x14="urn:example:ext"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/><x14:numFmt numFmtId="164" formatCode="0.00"/></numFmts><cellXfs count="3"><x14:xf numFmtId="0"/><xf numFmtId="0"/><xf numFmtId="164"/><x14:ext><xf numFmtId="0"/></x14:ext></cellXfs></styleSheet>"#
    );
    let rows =
        r#"<row r="1"><c r="A1" s="1"><v>45292</v></c><c r="B1" s="0"><v>45292</v></c></row>"#;
    let bytes = book()
        .workbook_pr(workbook_extension)
        .sheet("Data", sheet_xml(rows))
        .styles(styles)
        .build();
    let workbook = open_with(&bytes, Limits::default()).expect("open");
    let names: Vec<&str> = workbook.sheets().iter().map(SheetInfo::name).collect();
    assert_eq!(names, ["Data"]);
    assert_eq!(
        cells_of(&bytes),
        pairs(&[("A1", "2024-01-01"), ("B1", "45292")])
    );
}

/// The error of opening `bytes`, which must be refused.
fn open_error(bytes: &[u8]) -> Error {
    open_with(bytes, Limits::default())
        .err()
        .expect("refused at open")
}

/// Asserts a malformed-XML error in `part` at `offset`, saying `wanted`.
fn assert_malformed_at(err: &Error, part: &str, offset: usize, wanted: &str) {
    assert!(
        matches!(err.kind(), ErrorKind::Xml(message) if message.contains(wanted)),
        "{err}"
    );
    assert_eq!(err.location().part.as_deref(), Some(part), "{err}");
    assert_eq!(err.location().offset, Some(offset as u64), "{err}");
}

const CONTROL: &str = "control character XML does not allow";

#[test]
fn a_start_tag_run_into_the_next_in_the_workbook_is_malformed() {
    // `<sheet name="x"<sheet name="S" .../>`: the first tag never closed.
    let book = book().sheet(r#"x"<sheet name="S"#, sheet_xml(""));
    let workbook = book.workbook_xml();
    let offset = workbook.find(r#""<sheet"#).unwrap() + 1;
    let err = open_error(&book.build());
    assert_malformed_at(&err, "xl/workbook.xml", offset, "a `<` inside a start tag");
    // A `<` inside a quoted value, and attributes run together.
    for (name, wanted) in [
        ("x<y", "a `<` in an attribute value"),
        (r#"x"a="1"#, "not separated by whitespace"),
    ] {
        let book = book_with_sheet(name);
        let workbook = book.workbook_xml();
        let offset = workbook.find(name).unwrap() + name.find(['<', 'a']).unwrap();
        let err = open_error(&book.build());
        assert_malformed_at(&err, "xl/workbook.xml", offset, wanted);
    }
}

fn book_with_sheet(name_xml: &str) -> common::Book {
    book().sheet(
        name_xml,
        sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#),
    )
}

#[test]
fn a_raw_control_character_in_the_workbook_styles_or_shared_strings_is_refused_at_open() {
    // A sheet name with a raw ESC, as the issue found it read.
    let book = book_with_sheet("a\u{1b}b");
    let offset = book.workbook_xml().find('\u{1b}').unwrap();
    assert_malformed_at(
        &open_error(&book.build()),
        "xl/workbook.xml",
        offset,
        CONTROL,
    );
    // Elsewhere in the workbook part: text between elements.
    let book = book_with_sheet("S").workbook_pr("<workbookPr/>\u{1}");
    let offset = book.workbook_xml().find('\u{1}').unwrap();
    assert_malformed_at(
        &open_error(&book.build()),
        "xl/workbook.xml",
        offset,
        CONTROL,
    );
    // Styles: a number format code.
    let styles = styles_xml(&[(164, "0.0\u{7}")], &[0, 164]);
    let offset = styles.find('\u{7}').unwrap();
    let bytes = book_with_sheet("S").styles(styles).build();
    assert_malformed_at(&open_error(&bytes), "xl/styles.xml", offset, CONTROL);
    // Shared strings: a plain item (the fast path), a rich one, and one the
    // fast path decodes (a reference in it).
    for item in [
        "<t>a\u{1b}b</t>",
        "<r><t>a</t></r><r><t>\u{1b}</t></r>",
        "<t>a &amp; \u{1b}</t>",
        "<t xml:space=\"preserve\">\u{c}</t>",
    ] {
        let strings = sst_xml(&["fine", item]);
        let offset = strings.find(['\u{1b}', '\u{c}']).unwrap();
        let bytes = book_with_sheet("S").strings_part(strings).build();
        assert_malformed_at(&open_error(&bytes), "xl/sharedStrings.xml", offset, CONTROL);
    }
}

#[test]
fn a_raw_control_character_in_a_relationships_part_is_refused_at_open() {
    let base = book_with_sheet("S").package();
    let workbook_rels = rels_xml(&[(
        "rId1".into(),
        format!("{REL_NS}/worksheet"),
        "worksheets/sheet1.xml\u{1f}".into(),
    )]);
    let package_rels = package_rels("xl/workbook.xml\u{2}");
    for (part, xml) in [
        ("xl/_rels/workbook.xml.rels", workbook_rels),
        ("_rels/.rels", package_rels),
    ] {
        let offset = xml.find(['\u{1f}', '\u{2}']).unwrap();
        let bytes = base.clone().with(part, xml.clone()).build();
        assert_malformed_at(&open_error(&bytes), part, offset, CONTROL);
    }
}

#[test]
fn a_raw_control_character_in_a_sheet_is_refused_where_it_stands_on_both_paths() {
    let long = "y".repeat(40);
    for rows in [
        // Values the fast path reads: a number, a shared string index, a
        // boolean, an inline string, a long formula string.
        "<row r=\"1\"><c r=\"A1\"><v>1\u{1b}</v></c></row>".to_owned(),
        "<row r=\"1\"><c r=\"A1\" t=\"s\"><v>\u{c}0</v></c></row>".to_owned(),
        "<row r=\"1\"><c r=\"A1\" t=\"b\"><v>1\u{c}</v></c></row>".to_owned(),
        "<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>a\u{1b}</t></is></c></row>".to_owned(),
        format!("<row r=\"1\"><c r=\"A1\" t=\"str\"><v>{long}\u{1b}</v></c></row>"),
        // Attributes and markup.
        "<row r=\"1\" spans=\"1:1\u{1}\"><c r=\"A1\"><v>1</v></c></row>".to_owned(),
        "<row r=\"1\"><c r=\"A1\" s=\"0\" x=\"\u{1}\"><v>1</v></c></row>".to_owned(),
        "<row r=\"1\"><c r=\"A1\"><v>1</v></c>\u{1f}</row>".to_owned(),
        "<row r=\"1\"><c r=\"A1\"><f>1\u{b}</f><v>1</v></c></row>".to_owned(),
    ] {
        let xml = sheet_xml(&rows);
        let offset = xml.bytes().position(|b| b < 0x20).unwrap();
        let bytes = book().strings(&["<t>zero</t>"]).sheet("Data", xml).build();
        for err in assert_refused(read_both(&bytes, Limits::default()), CONTROL) {
            assert_malformed_at(&err, "xl/worksheets/sheet1.xml", offset, CONTROL);
            assert_eq!(err.location().sheet.as_deref(), Some("Data"), "{err}");
            // Inside the row's own start tag, the row is not known yet.
            if !rows.contains("spans") {
                assert_eq!(err.location().row, Some(1), "{rows}: {err}");
            }
        }
    }
    // Before the data, after it, and between rows.
    for xml in [
        format!("{XML_DECL}<worksheet xmlns=\"{MAIN_NS}\">\u{1}<sheetData/></worksheet>"),
        format!(
            "{XML_DECL}<worksheet xmlns=\"{MAIN_NS}\"><sheetData/><x a=\"\u{1}\"/></worksheet>"
        ),
        sheet_xml("<row r=\"1\"/>\u{1}<row r=\"2\"/>"),
    ] {
        let offset = xml.find('\u{1}').unwrap();
        let bytes = book().sheet("Data", xml).build();
        for err in assert_refused(read_both(&bytes, Limits::default()), CONTROL) {
            assert_malformed_at(&err, "xl/worksheets/sheet1.xml", offset, CONTROL);
        }
    }
    // Tabs and line ends are XML's whitespace: read.
    let xml = sheet_xml(
        "\n\t<row r=\"1\">\r\n<c r=\"A1\" t=\"inlineStr\"><is><t>a\tb\nc</t></is></c></row>",
    );
    let bytes = book().sheet("Data", xml).build();
    for result in read_both(&bytes, Limits::default()) {
        assert_eq!(result.unwrap(), 1);
    }
}

#[test]
fn a_raw_control_character_is_refused_by_the_metadata_readers() {
    let sheet = format!(
        "{XML_DECL}<worksheet xmlns=\"{MAIN_NS}\"><sheetData><row r=\"1\" hidden=\"1\u{2}\"/></sheetData><mergeCells><mergeCell ref=\"A1:B2\u{1}\"/></mergeCells></worksheet>"
    );
    let bytes = book().sheet("Data", sheet.clone()).build();
    let mut workbook = open_with(&bytes, Limits::default()).expect("open");
    let part = "xl/worksheets/sheet1.xml";
    let err = workbook.sheet_metadata(0).expect_err("merge cell");
    assert_malformed_at(&err, part, sheet.find('\u{1}').unwrap(), CONTROL);
    let err = workbook.hidden_rows(0).expect_err("row tag");
    assert_malformed_at(&err, part, sheet.find('\u{2}').unwrap(), CONTROL);
    // A comments part.
    let comments = format!(
        "{XML_DECL}<comments xmlns=\"{MAIN_NS}\"><authors><author>A</author></authors><commentList><comment ref=\"A1\" authorId=\"0\"><text><t>hi\u{1b}</t></text></comment></commentList></comments>"
    );
    let bytes = book_with_sheet("S")
        .package()
        .with(
            "xl/worksheets/_rels/sheet1.xml.rels",
            rels_xml(&[(
                "rId1".into(),
                format!("{REL_NS}/comments"),
                "../comments1.xml".into(),
            )]),
        )
        .with("xl/comments1.xml", comments.clone())
        .build();
    let mut workbook = open_with(&bytes, Limits::default()).expect("open");
    let err = workbook.sheet_metadata(0).expect_err("comment");
    assert_malformed_at(
        &err,
        "xl/comments1.xml",
        comments.find('\u{1b}').unwrap(),
        CONTROL,
    );
}
