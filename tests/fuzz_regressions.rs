//! Regression tests from fuzzing (`fuzz/`, see `fuzz/README.md`).
//!
//! Each test pins one input the fuzzers found (minimised) or one edge case
//! they kept returning to, with the outcome it must have. A new finding
//! that is not fixed yet goes in marked `#[ignore = "fuzz finding: ..."]`
//! (run those with `cargo test --test integration fuzz_regressions:: -- --include-ignored`);
//! the mark comes off with the fix.

use std::io::{Read, Seek};

use sheetstream::fuzzing::read_sheet_xml;
use sheetstream::{Error, ErrorKind, Workbook};

/// Window sizes every sheet input is read with: the result must not depend
/// on where chunk boundaries fall.
const CHUNK_SIZES: [usize; 6] = [1, 2, 7, 10, 64, 1 << 16];

/// Reads `xml` with every window size and checks they all succeed with
/// `cells` cells and this digest (see `read_sheet_xml`).
#[track_caller]
fn assert_reads(xml: &[u8], cells: usize, digest: &str) {
    for chunk in CHUNK_SIZES {
        match read_sheet_xml(xml, chunk) {
            Ok((got_cells, got_digest)) => {
                assert_eq!(got_digest, digest, "window of {chunk} bytes");
                assert_eq!(got_cells, cells, "window of {chunk} bytes");
            }
            Err(err) => panic!("window of {chunk} bytes: unexpected error {err}"),
        }
    }
}

/// Reads `xml` with every window size and checks they all fail the same
/// way (kind and location), with an error `expected` accepts. Returns it.
#[track_caller]
fn assert_fails(xml: &[u8], expected: impl Fn(&ErrorKind) -> bool) -> Error {
    let mut first: Option<Error> = None;
    for chunk in CHUNK_SIZES {
        let err = match read_sheet_xml(xml, chunk) {
            Ok((cells, digest)) => {
                panic!("window of {chunk} bytes: read {cells} cells, expected an error\n{digest}")
            }
            Err(err) => err,
        };
        assert!(
            expected(err.kind()),
            "window of {chunk} bytes: unexpected {err}"
        );
        match &first {
            Some(first) => assert_eq!(
                err.to_string(),
                first.to_string(),
                "window of {chunk} bytes fails differently from 1 byte"
            ),
            None => first = Some(err),
        }
    }
    first.expect("CHUNK_SIZES is not empty")
}

// ---------------------------------------------------------------------------
// Findings.

/// Found by `scan_sheet` (differential check), fixed in 2de7554 ("UTF-8
/// checked per row only, whatever the window"). The minimised input was
/// `\xC3<sheetData><row></row>`: a stray non-UTF-8 byte before
/// `<sheetData>`. Bytes outside rows were not validated when a small window
/// had already dropped them, but they were when they shared the window with
/// the first row: `build_row` validated `window[..consumed]`, and the
/// scanner's `Scan::Row { consumed }` counted from the window start, which
/// could still hold the prologue. With windows of 1 to 10 bytes the sheet
/// read; with 64 bytes and up it failed with `InvalidUtf8` blamed on row 1.
/// Every byte *of a row* is validated (ARCHITECTURE.md); the prologue is
/// not part of one, so the sheet must read the same with any window.
#[test]
fn invalid_utf8_before_sheet_data_does_not_depend_on_the_window() {
    assert_reads(
        b"<worksheet>\xFF<sheetData><row r=\"1\"><c r=\"A1\"><v>1</v></c></row></sheetData></worksheet>",
        1,
        "row 0\nA1 Number(1.0) None\n",
    );
}

/// The same finding between two rows: the bytes between `</row>` and the
/// next `<row>` were counted into the next row's `consumed` when the window
/// held both, and dropped unvalidated when it did not.
#[test]
fn invalid_utf8_between_rows_does_not_depend_on_the_window() {
    assert_reads(
        b"<worksheet><sheetData><row r=\"1\"><c><v>1</v></c></row><!-- \xFF -->\
          <row r=\"2\"><c><v>2</v></c></row></sheetData></worksheet>",
        2,
        "row 0\nA1 Number(1.0) None\nrow 1\nA2 Number(2.0) None\n",
    );
}

/// The minimised fuzzer input itself: with small windows the truncated
/// sheet was reported as such, with large ones as invalid UTF-8 in row 1.
#[test]
fn truncated_sheet_with_a_stray_byte_fails_the_same_with_any_window() {
    let err = assert_fails(b"\xC3<sheetData><row></row>", |kind| {
        matches!(kind, ErrorKind::Xml(_))
    });
    assert_eq!(err.location().row, None, "{err}");
}

/// Found by `open_workbook` (no `ErrorKind::Io` from memory), fixed in
/// fd79031 ("Damaged containers are Zip errors whatever kind of I/O error
/// the zip or inflate code uses"). A worksheet entry whose deflate data is
/// corrupt (here a block of the reserved type 3) failed with
/// `ErrorKind::Io(InvalidInput, "corrupt deflate stream")`:
/// flate2 reports a corrupt stream as `InvalidInput`, and
/// `PartReader::read` (src/archive/mod.rs) mapped only `InvalidData` and
/// `UnexpectedEof` to `ErrorKind::Zip`. The input is in memory, so nothing
/// failed to read: the container is damaged, which is `ErrorKind::Zip`.
/// The same happened at open when the damaged entry was the workbook, its
/// relationships, the styles or the shared strings.
#[test]
fn corrupt_deflate_stream_is_a_zip_error() {
    let sheet = Entry {
        name: "xl/worksheets/sheet1.xml",
        method: 8,
        raw: &[0xFF; 8],
        size: 100,
        crc: 0,
        central_extra: &[],
    };
    let mut workbook = Workbook::from_bytes(workbook_with(sheet)).expect("the package opens");
    let err = first_error_of_sheet(&mut workbook);
    assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err:?}");
    assert_eq!(
        err.location().part.as_deref(),
        Some("xl/worksheets/sheet1.xml")
    );
}

/// Found by `open_workbook` and fixed like the one above: an entry with a
/// compression method the `zip` crate does not support (bzip2, 12, is not enabled; 1234
/// does not exist) failed with `ErrorKind::Io(Unsupported,
/// CompressionMethodNotSupported(..))`: the zip crate's reader for the entry
/// fails its first read with that `io::Error`, and `PartReader::read` kept
/// it as I/O. It is `ErrorKind::Zip` ("uses a feature that cannot be read").
#[test]
fn unsupported_compression_method_is_a_zip_error() {
    for method in [12, 1234] {
        let sheet = Entry {
            method,
            ..Entry::stored("xl/worksheets/sheet1.xml", SHEET)
        };
        let mut workbook = Workbook::from_bytes(workbook_with(sheet)).expect("the package opens");
        let err = first_error_of_sheet(&mut workbook);
        assert!(
            matches!(err.kind(), ErrorKind::Zip(_)),
            "method {method}: {err:?}"
        );
    }
}

/// Found by `open_workbook` (no `ErrorKind::Io` from memory) at 5d32450,
/// fixed in fd79031; minimised by hand from the fuzzer's 2.6 KB input. The
/// central directory entry of `xl/workbook.xml` carries an NTFS extra field (id 0x000A) that
/// declares 32 bytes of data but holds 4 (an Info-ZIP Unicode Path field,
/// id 0x7075, cut short did the same). The `zip` crate fails
/// `ZipArchive::new` with `ZipError::Io(UnexpectedEof, "failed to fill
/// whole buffer")`, and `Archive::new` (src/archive/mod.rs) passed
/// every error but `InvalidArchive` to `zip_error`, which kept a
/// `ZipError::Io` that is not `InvalidData` as `ErrorKind::Io`. The input
/// is in memory: the central directory is damaged (`Zip`, or `NotZip` as
/// `Archive::new` calls the errors the zip crate names `InvalidArchive`).
#[test]
fn a_cut_short_central_directory_extra_field_is_a_zip_error() {
    for central_extra in [
        &b"\x0a\x00\x20\x00\x00\x00\x00\x00"[..],
        b"\x75\x70\x20\x00\x00\x00\x00\x00",
    ] {
        let bytes = zip(&[Entry {
            central_extra,
            ..Entry::stored("xl/workbook.xml", WORKBOOK)
        }]);
        let err = Workbook::from_bytes(bytes).err().expect("fails");
        assert!(
            matches!(err.kind(), ErrorKind::Zip(_) | ErrorKind::NotZip { .. }),
            "{err:?}"
        );
    }
    // The same entry with a well-formed NTFS field opens (and then misses
    // its sheet's relationship).
    let bytes = zip(&[Entry {
        central_extra: &[
            0x0a, 0x00, 0x20, 0x00, 0, 0, 0, 0, 0x01, 0x00, 0x18, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ],
        ..Entry::stored("xl/workbook.xml", WORKBOOK)
    }]);
    let err = Workbook::from_bytes(bytes).err().expect("fails");
    assert!(matches!(err.kind(), ErrorKind::MissingPart(_)), "{err:?}");
}

// ---------------------------------------------------------------------------
// Edge cases the fuzzers reached, pinned with their outcome.

#[test]
fn an_empty_sheet_part_is_an_error_not_an_empty_sheet() {
    // Issue 16: an empty part, or one cut before `<sheetData>`, is refused
    // (it was read as an empty sheet); a chart sheet has no data to cut.
    for xml in [
        &b""[..],
        b"<worksheet/>",
        b"<worksheet><dimension ref=\"A1\"/>",
    ] {
        let err = assert_fails(xml, |kind| matches!(kind, ErrorKind::Xml(_)));
        assert!(
            err.to_string().contains("ends before `<sheetData>`"),
            "{err}"
        );
    }
    assert_reads(b"<chartsheet><drawing r:id=\"rId1\"/></chartsheet>", 0, "");
}

#[test]
fn content_after_sheet_data_is_read_for_its_structure() {
    // What follows `</sheetData>` is checked (nesting, the root's end,
    // nothing after the root) the same way whatever the window: broken
    // markup there is refused where it starts.
    let err = assert_fails(
        b"<sheetData><row><c><v>1</v></c></row></sheetData><-worksheet> & junk <",
        |kind| matches!(kind, ErrorKind::Xml(_)),
    );
    assert_eq!(err.location().offset, Some(49), "{err}");
    let err = assert_fails(
        b"<worksheet><sheetData><row><c><v>1</v></c></row></sheetData><x>",
        |kind| matches!(kind, ErrorKind::Xml(_)),
    );
    assert!(err.to_string().contains("ends inside `<x>`"), "{err}");
    assert_reads(
        b"<worksheet><sheetData><row><c><v>1</v></c></row></sheetData><x/> text </worksheet>\n",
        1,
        "row 0\nA1 Number(1.0) None\n",
    );
}

#[test]
fn a_row_past_row_1048576_is_refused() {
    let err = assert_fails(
        b"<worksheet><sheetData><row r=\"1048576\"/><row/></sheetData></worksheet>",
        |kind| matches!(kind, ErrorKind::CellReference(_)),
    );
    assert!(err.to_string().contains("more than 1048576 rows"), "{err}");
}

#[test]
fn a_cell_past_column_xfd_is_refused() {
    let err = assert_fails(
        b"<sheetData><row><c r=\"XFD1\"><v>1</v></c><c><v>2</v></c></row></sheetData>",
        |kind| matches!(kind, ErrorKind::CellReference(_)),
    );
    assert!(err.to_string().contains("past XFD"), "{err}");
}

#[test]
fn row_zero_and_a_bad_row_number_are_refused() {
    for xml in [
        &b"<sheetData><row><c r=\"A0\"><v>1</v></c></row></sheetData>"[..],
        b"<sheetData><row r=\"0\"/></sheetData>",
    ] {
        assert_fails(xml, |kind| matches!(kind, ErrorKind::CellReference(_)));
    }
    // A raw control character is malformed XML before it is a bad number.
    let err = assert_fails(
        b"<sheetData><row r=\"\x07F\"/></sheetData>",
        |kind| matches!(kind, ErrorKind::Xml(message) if message.contains("control character")),
    );
    assert_eq!(err.location().offset, Some(19), "{err}");
}

#[test]
fn quoted_gt_and_slash_in_an_attribute_do_not_end_the_tag() {
    // Style 1 is a date format in `read_sheet_xml`'s styles.
    assert_reads(
        b"<sheetData><row><c r=\"B1\" x=\"a>b/\" s=\"1\"><v>1</v></c></row></sheetData>",
        1,
        "row 0\nB1 DateTime(DateTime { serial: 1.0, system: V1900, from_text: false, kind: Date }) None\n",
    );
}

#[test]
fn value_text_around_a_comment_or_processing_instruction_is_joined() {
    assert_reads(
        b"<sheetData><row><c><v>1<!-- x -->2<?pi?>3</v></c></row></sheetData>",
        1,
        "row 0\nA1 Number(123.0) None\n",
    );
}

#[test]
fn shared_string_references() {
    assert_reads(
        b"<sheetData><row><c t=\"s\"><v> 1 </v></c><c t=\"s\"><v>2</v></c></row></sheetData>",
        2,
        "row 0\nA1 Text(\"one\") None\nB1 Text(\"two\") None\n",
    );
    let err = assert_fails(
        b"<sheetData><row><c t=\"s\"><v>0</v></c></row><row><c t=\"s\"><v>3</v></c></row></sheetData>",
        |kind| matches!(kind, ErrorKind::SharedStringIndex { index: 3, count: 3 }),
    );
    assert_eq!(err.location().row, Some(2));
    assert_eq!(err.location().column, Some(1));
}

#[test]
fn inline_strings_skip_phonetic_runs_and_ignore_v() {
    assert_reads(
        b"<sheetData><row><c t=\"inlineStr\"><v>x</v></c>\
          <c><is><t>a</t><rPh><t>b</t></rPh><t>c</t></is></c></row></sheetData>",
        1,
        "row 0\nB1 Text(\"ac\") None\n",
    );
}

#[test]
fn formula_text_keeps_escapes_that_values_decode() {
    assert_reads(
        b"<sheetData><row><c t=\"str\"><f>a&amp;_x0041_</f><v>_x0041_&amp;</v></c></row></sheetData>",
        1,
        "row 0\nA1 Text(\"A&\") Some(\"a&_x0041_\")\n",
    );
    assert_fails(
        b"<sheetData><row><c><f>&bogus;</f><v>1</v></c></row></sheetData>",
        |kind| matches!(kind, ErrorKind::Xml(_)),
    );
}

#[test]
fn iso_dates_round_to_the_millisecond_and_carry() {
    assert_reads(
        b"<sheetData><row><c t=\"d\"><v>2024-02-29T23:59:59.9995Z</v></c>\
          <c t=\"d\"><v>1900-02-29</v></c><c t=\"d\"><v>PT36H</v></c></row></sheetData>",
        3,
        "row 0\n\
         A1 DateTime(DateTime { serial: 45352.0, system: V1900, from_text: true, kind: Date }) None\n\
         B1 DateTime(DateTime { serial: 60.0, system: V1900, from_text: true, kind: Date }) None\n\
         C1 DateTime(DateTime { serial: 1.5, system: V1900, from_text: true, kind: Duration }) None\n",
    );
}

#[test]
fn numbers_that_are_not_finite_are_refused() {
    for value in ["1e309", "inf", "NaN", "-infinity"] {
        let xml = format!("<sheetData><row><c><v>{value}</v></c></row></sheetData>");
        assert_fails(xml.as_bytes(), |kind| {
            matches!(kind, ErrorKind::InvalidValue(_))
        });
    }
}

#[test]
fn malformed_markup_is_refused_wherever_it_is() {
    for xml in [
        &b"<>"[..],
        b"<",
        b"<sheetData><row><c><v>1</v></c></row><!DOCTYPE x></sheetData>",
        b"<!--r>t;)<ork/r>",
        b"2<!\"d\"edDat",
        b"<sheetData><row><c t=>1</c></row></sheetData>",
        b"<sheetData><row><c tt=\"b\"<v>1</v></c></row></sheetData>",
    ] {
        assert_fails(xml, |kind| matches!(kind, ErrorKind::Xml(_)));
    }
}

/// Found by `scan_sheet`: a cell without `r` after one in column XFD is
/// past the last column. The fast path took it (with column 16385) when the
/// whole cell was in the window; only the general path, taken when the
/// window cut the cell, refused it.
#[test]
fn a_cell_after_xfd_without_a_reference_is_refused() {
    for xml in [
        &b"<sheetData><row r=\"1\"><c r=\"XFD1\"><v>1</v></c><c><v>2</v></c></row></sheetData>"[..],
        b"<sheetData><row r=\"1\"><c r=\"XFD1\"><v>1</v></c><c t=\"d\"><v>2024-01-01</v></c></row></sheetData>",
        b"<sheetData><row r=\"1\"><c r=\"XFD1\" s=\"1\"/><c s=\"1\"/></row></sheetData>",
    ] {
        let err = assert_fails(xml, |kind| matches!(kind, ErrorKind::CellReference(_)));
        assert_eq!(err.location().row, Some(1));
    }
}

/// Found by `scan_sheet` while references in attribute values were being
/// added: a bad reference in a cell's `r` was reported at an offset that
/// depended on the window. It must be reported at the cell, every time.
#[test]
fn a_bad_reference_in_an_attribute_value_is_reported_at_its_cell() {
    for xml in [
        &b"<sheetData>\n<row  spans=\"1:3\"><c r=\"&#xam><z|sh-<worksh\t\t\"i><v>1</v></c></row></sheetData>"[..],
        b"<sheetData><row><c r=\"&bad;\"><v>1</v></c></row></sheetData>",
    ] {
        let err = assert_fails(xml, |kind| matches!(kind, ErrorKind::Xml(_)));
        assert_eq!(err.location().row, Some(1), "{err}");
        assert!(err.location().offset.is_some_and(|offset| offset > 10), "{err}");
    }
    // In a row's own `r`: reported at the row's start tag.
    let err = assert_fails(
        b"<sheetData><row r=\"&#;\"><c><v>1</v></c></row></sheetData>",
        |kind| matches!(kind, ErrorKind::Xml(_)),
    );
    assert_eq!(err.location().offset, Some(11), "{err}");
}

#[test]
fn truncated_sheets_are_refused() {
    for xml in [
        &b"<sheetData><row><c><v>1</v></c></row>"[..],
        b"<sheetData><row><c><v>1</v>",
        b"<sheetData><row><c><v>1</v></row></sheetData>",
        b"<sheetData><row></sheetData>",
    ] {
        assert_fails(xml, |kind| matches!(kind, ErrorKind::Xml(_)));
    }
}

#[test]
fn a_workbook_without_sheets_opens() {
    let bytes = zip(&[Entry::stored(
        "xl/workbook.xml",
        b"<workbook><sheets/></workbook>",
    )]);
    let workbook = Workbook::from_bytes(bytes).expect("opens");
    assert!(workbook.sheets().is_empty());
    assert!(workbook.shared_strings().unwrap().is_empty());
}

#[test]
fn a_sheet_without_its_relationship_is_refused_at_open() {
    let bytes = zip(&[Entry::stored("xl/workbook.xml", WORKBOOK)]);
    let err = Workbook::from_bytes(bytes).err().expect("fails");
    assert!(matches!(err.kind(), ErrorKind::MissingPart(_)), "{err:?}");
    assert_eq!(err.location().part.as_deref(), Some("xl/workbook.xml"));
}

#[test]
fn a_damaged_sheet_entry_is_a_zip_error_and_ends_the_reader() {
    // A stored entry whose CRC does not match: the sheet is small enough to
    // be read whole by the first fill, so no row is handed out.
    let bad_crc = Entry {
        crc: 1,
        ..Entry::stored("xl/worksheets/sheet1.xml", SHEET)
    };
    // Deflate data that stops before the end of its block.
    let truncated = Entry {
        name: "xl/worksheets/sheet1.xml",
        method: 8,
        raw: &[0x00],
        size: 100,
        crc: 0,
        central_extra: &[],
    };
    for sheet in [bad_crc, truncated] {
        let mut workbook = Workbook::from_bytes(workbook_with(sheet)).expect("the package opens");
        let err = first_error_of_sheet(&mut workbook);
        assert!(matches!(err.kind(), ErrorKind::Zip(_)), "{err:?}");
    }
    let mut workbook = Workbook::from_bytes(workbook_with(Entry::stored(
        "xl/worksheets/sheet1.xml",
        SHEET,
    )))
    .expect("opens");
    let mut rows = workbook.rows(0).expect("rows");
    let row = rows.next_row().expect("a row").expect("a row");
    assert_eq!(row.cells().len(), 1);
    assert!(rows.next_row().expect("the end").is_none());
}

// ---------------------------------------------------------------------------
// A minimal ZIP writer, so that the damaged archives above can be built
// byte by byte (the `zip` crate would refuse to write most of them).

// `r:id` is read by its namespace URI, so `r` is bound to the real one.
const WORKBOOK: &[u8] = b"<workbook xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><sheets><sheet name=\"S\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";
const WORKBOOK_RELS: &[u8] = b"<Relationships><Relationship Id=\"rId1\" \
    Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" \
    Target=\"worksheets/sheet1.xml\"/></Relationships>";
const SHEET: &[u8] = b"<worksheet><sheetData><row><c><v>1</v></c></row></sheetData></worksheet>";

/// One ZIP entry: `raw` is written as is, with the declared method,
/// uncompressed size and CRC, and `central_extra` as the extra field of its
/// central directory header.
struct Entry<'a> {
    name: &'a str,
    method: u16,
    raw: &'a [u8],
    size: u32,
    crc: u32,
    central_extra: &'a [u8],
}

impl<'a> Entry<'a> {
    fn stored(name: &'a str, content: &'a [u8]) -> Entry<'a> {
        Entry {
            name,
            method: 0,
            raw: content,
            size: content.len() as u32,
            crc: crc32(content),
            central_extra: &[],
        }
    }
}

/// A package with one worksheet, `sheet` being its entry.
fn workbook_with(sheet: Entry<'_>) -> Vec<u8> {
    zip(&[
        Entry::stored("xl/workbook.xml", WORKBOOK),
        Entry::stored("xl/_rels/workbook.xml.rels", WORKBOOK_RELS),
        sheet,
    ])
}

/// Streams the first sheet and returns the error it stops with.
fn first_error_of_sheet<R: Read + Seek>(workbook: &mut Workbook<R>) -> Error {
    let mut rows = match workbook.rows(0) {
        Ok(rows) => rows,
        Err(err) => return err,
    };
    loop {
        match rows.next_row() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the sheet read without an error"),
            Err(err) => {
                assert!(matches!(rows.next_row(), Ok(None)), "rows after the error");
                return err;
            }
        }
    }
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn zip(entries: &[Entry<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for entry in entries {
        let offset = out.len() as u32;
        let name_len = u16::try_from(entry.name.len()).expect("a short name");
        let raw_len = u32::try_from(entry.raw.len()).expect("a small entry");
        // The fields local and central headers share, from "version needed"
        // to the name length.
        let mut common = Vec::new();
        common.extend_from_slice(&20u16.to_le_bytes()); // version needed
        common.extend_from_slice(&0u16.to_le_bytes()); // flags
        common.extend_from_slice(&entry.method.to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes()); // time
        common.extend_from_slice(&0x21u16.to_le_bytes()); // date: 1980-01-01
        common.extend_from_slice(&entry.crc.to_le_bytes());
        common.extend_from_slice(&raw_len.to_le_bytes());
        common.extend_from_slice(&entry.size.to_le_bytes());
        common.extend_from_slice(&name_len.to_le_bytes());
        let central_extra_len = u16::try_from(entry.central_extra.len()).expect("a short extra");
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&common);
        out.extend_from_slice(&0u16.to_le_bytes()); // extra field length
        out.extend_from_slice(entry.name.as_bytes());
        out.extend_from_slice(entry.raw);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        central.extend_from_slice(&common);
        central.extend_from_slice(&central_extra_len.to_le_bytes());
        central.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(entry.name.as_bytes());
        central.extend_from_slice(entry.central_extra);
    }
    let count = u16::try_from(entries.len()).expect("few entries");
    let central_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]); // disk numbers
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&central_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    out
}
