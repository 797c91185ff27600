//! Golden workbooks: each is built in memory by the test (with
//! `rust_xlsxwriter`, or by hand with the `zip` writer from XML strings),
//! run through the `sheetstream cells` binary, and compared with
//! `tests/golden/NAME.cells.jsonl` the way the conformance suite compares
//! (`../shared/conformance/FORMAT.md`: same keys, numbers equal as f64,
//! everything else exactly). The library's own reading of each workbook is
//! compared with the same file.
//!
//! `UPDATE_GOLDEN=1 cargo test --test integration golden::` rewrites the expected files
//! from what the binary prints. Every expected file was checked by hand
//! against FORMAT.md; check any rewritten one again before committing it.
//! Workbooks whose expectation shows a known bug are never rewritten.

use crate::common;

use std::io::Cursor;
use std::ops::ControlFlow;
use std::path::PathBuf;

use common::*;
use rust_xlsxwriter::{
    Chart, ChartType, ExcelDateTime, Format, Formula, Workbook as XlsxWriter, Worksheet,
};
use sheetstream::{
    CellRef, DateSystem, ErrorKind, OpenOptions, SheetKind, SheetState, Value, Workbook,
};

// ---------------------------------------------------------------------------
// The golden comparison
// ---------------------------------------------------------------------------

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.cells.jsonl"))
}

/// Runs `sheetstream cells` on `bytes` and compares with the golden file
/// `name` (or rewrites it under `UPDATE_GOLDEN=1`); then reads the workbook
/// through the library and compares that too.
fn golden(name: &str, bytes: &[u8]) {
    check_golden(name, bytes, true);
}

fn check_golden(name: &str, bytes: &[u8], may_update: bool) {
    // `GOLDEN_SAVE_DIR=DIR` keeps a copy of each workbook for inspection.
    if let Some(dir) = std::env::var_os("GOLDEN_SAVE_DIR") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(PathBuf::from(dir).join(format!("{name}.xlsx")), bytes).unwrap();
    }
    let run = run_cli("cells", name, bytes);
    assert_eq!(
        run.code,
        Some(0),
        "{name}: `sheetstream cells` failed: {}",
        run.stderr
    );
    assert!(
        run.stderr.is_empty(),
        "{name}: unexpected stderr: {}",
        run.stderr
    );
    let path = golden_path(name);
    if may_update && std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, canonical_dump(&run.stdout)).unwrap();
        return;
    }
    let expected_text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "{}: {err} (UPDATE_GOLDEN=1 writes it; check it by hand)",
            path.display()
        )
    });
    let expected = parse_dump(&expected_text);
    let printed = parse_dump(&run.stdout);
    if let Some(diff) = dump_difference(&expected, &printed) {
        panic!(
            "{name}: the binary's dump differs from {}:\n{diff}",
            path.display()
        );
    }
    let mut workbook = Workbook::from_bytes(bytes.to_vec()).expect("the library opens it");
    let read = library_dump(&mut workbook).expect("the library reads it");
    if let Some(diff) = dump_difference(&expected, &read) {
        panic!(
            "{name}: the library's reading differs from {}:\n{diff}",
            path.display()
        );
    }
}

/// The dump with its keys in FORMAT.md's order and numbers in their
/// shortest round-trip form (`1e300`, not 301 digits).
fn canonical_dump(text: &str) -> String {
    let mut out = String::new();
    for line in parse_dump(text) {
        let field = |key: &str| serde_json::to_string(&line[key]).unwrap();
        assert_eq!(line.as_object().unwrap().len(), 4, "{line}");
        out.push_str(&format!(
            "{{\"sheet\":{},\"ref\":{},\"t\":{},\"v\":{}}}\n",
            field("sheet"),
            field("ref"),
            field("t"),
            field("v")
        ));
    }
    out
}

fn cells_of(bytes: &[u8], sheet: &str) -> Vec<(String, String)> {
    let mut workbook = Workbook::from_bytes(bytes.to_vec()).unwrap();
    let mut rows = workbook.rows(sheet).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        for cell in row.cells() {
            out.push((cell.reference().to_string(), format!("{:?}", cell.value())));
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Workbooks written by rust_xlsxwriter
// ---------------------------------------------------------------------------

/// Column A of the "Numbers" sheet, row by row.
const NUMBERS: [f64; 22] = [
    0.0,
    1.0,
    -1.0,
    42.0,
    -273.15,
    123_456_789.0,
    0.1,
    0.300_000_000_000_000_04,
    1e300,
    -1e300,
    -0.0,
    1e-300,
    5e-324,
    2.225_073_858_507_201_4e-308,
    f64::MAX,
    9_007_199_254_740_993.0,
    1.0 / 3.0,
    std::f64::consts::PI,
    -2.5e-10,
    1e15,
    1e21,
    4_294_967_296.5,
];

fn xw_numbers() -> Vec<u8> {
    let mut workbook = XlsxWriter::new();
    let sheet = workbook.add_worksheet();
    sheet.set_name("Numbers").unwrap();
    for (row, number) in NUMBERS.iter().enumerate() {
        sheet.write_number(row as u32, 0, *number).unwrap();
    }
    // Number formats that are not date formats leave numbers numbers.
    let two_places = Format::new().set_num_format("0.00");
    sheet
        .write_number_with_format(0, 1, 1.5, &two_places)
        .unwrap();
    let percent = Format::new().set_num_format_index(10);
    sheet
        .write_number_with_format(1, 1, 0.25, &percent)
        .unwrap();
    workbook.save_to_buffer().unwrap()
}

#[test]
fn golden_xw_numbers() {
    golden("xw_numbers", &xw_numbers());
}

#[test]
fn numbers_come_back_bit_for_bit() {
    let bytes = xw_numbers();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let mut column_a = Vec::new();
    workbook
        .for_each_row("Numbers", |row| {
            if let Some(Value::Number(number)) = row.get(0).map(|cell| cell.value()) {
                column_a.push(number);
            }
        })
        .unwrap();
    assert_eq!(column_a.len(), NUMBERS.len());
    for (got, want) in column_a.iter().zip(NUMBERS) {
        // Bits, so that -0.0 keeps its sign.
        assert_eq!(got.to_bits(), want.to_bits(), "got {got:e}, want {want:e}");
    }
}

/// Strings of the "Strings" sheet, column A; the empty string is left out
/// by rust_xlsxwriter (as by Excel), so it produces no line.
const STRINGS: [&str; 19] = [
    "plain",
    "Grüße — 日本語 — Ελληνικά — עברית",
    "😀👍🏽🇫🇷",
    "<tag> & \"quotes\" 'apos'",
    "  leading and trailing  ",
    "line1\nline2\n",
    "tab\there\t",
    "",
    "\r\n crlf",
    "ctrl \u{1}\u{1f} chars",
    "123",
    "TRUE",
    "#N/A",
    "=1+1",
    " ",
    "plain",
    "nul\u{0}inside",
    "nonchar \u{FFFF}",
    "x_y_z and_x",
];

fn xw_strings() -> Vec<u8> {
    let mut workbook = XlsxWriter::new();
    let sheet = workbook.add_worksheet();
    sheet.set_name("Strings").unwrap();
    for (row, text) in STRINGS.iter().enumerate() {
        sheet.write_string(row as u32, 0, *text).unwrap();
    }
    // A long string, and an empty string with a format (a blank cell).
    let long: String = "0123456789".repeat(100);
    sheet.write_string(0, 1, &long).unwrap();
    let bold = Format::new().set_bold();
    sheet.write_string_with_format(1, 1, "", &bold).unwrap();
    workbook.save_to_buffer().unwrap()
}

#[test]
fn golden_xw_strings() {
    golden("xw_strings", &xw_strings());
}

#[test]
fn strings_come_back_exactly() {
    let bytes = xw_strings();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    // Shared strings: every distinct non-empty string once, plus the long one.
    let distinct: std::collections::BTreeSet<&str> =
        STRINGS.iter().copied().filter(|s| !s.is_empty()).collect();
    assert_eq!(workbook.shared_strings().unwrap().len(), distinct.len() + 1);
    let mut rows = workbook.rows("Strings").unwrap();
    let mut column_a = Vec::new();
    let mut long = None;
    let mut blank_b2 = None;
    while let Some(row) = rows.next_row().unwrap() {
        if let Some(cell) = row.get(0) {
            column_a.push(cell.value().to_owned_text().expect("text"));
        }
        if row.index() == 0 {
            long = row.get(1).and_then(|cell| cell.value().to_owned_text());
        }
        if row.index() == 1 {
            blank_b2 = Some(row.get(1).is_none());
        }
    }
    let want: Vec<&str> = STRINGS.iter().copied().filter(|s| !s.is_empty()).collect();
    assert_eq!(column_a, want);
    assert_eq!(long.as_deref(), Some("0123456789".repeat(100).as_str()));
    assert_eq!(blank_b2, Some(true), "a formatted blank cell has no value");
}

fn xw_formulas() -> Vec<u8> {
    let mut workbook = XlsxWriter::new();
    let sheet = workbook.add_worksheet();
    sheet.set_name("Formulas").unwrap();
    let with_results = [
        ("=1+1", "2"),
        ("=\"a\"&\"b\"", "ab"),
        ("=1=1", "TRUE"),
        ("=1=2", "FALSE"),
        ("=1/0", "#DIV/0!"),
        ("=NA()", "#N/A"),
        ("=\"\"", ""),
        ("=\"<&>\"", "<&>"),
        ("=PI()", "3.14159265358979"),
        ("=#REF!", "#REF!"),
        ("=FOO()", "#NAME?"),
        ("=SQRT(-1)", "#NUM!"),
        ("=A1 B1", "#NULL!"),
        ("=\"a\"+1", "#VALUE!"),
        ("=\"  x  \"", "  x  "),
        ("=-0.5", "-0.5"),
    ];
    for (row, (formula, result)) in with_results.iter().enumerate() {
        sheet
            .write_formula(row as u32, 0, Formula::new(*formula).set_result(*result))
            .unwrap();
    }
    // No result given: rust_xlsxwriter writes 0.
    sheet.write_formula(16, 0, "=SUM(B1:B2)").unwrap();
    // A number result in a date format is a date.
    let date = Format::new().set_num_format("yyyy-mm-dd");
    sheet
        .write_formula_with_format(
            17,
            0,
            Formula::new("=DATE(2024,1,2)").set_result("45293"),
            &date,
        )
        .unwrap();
    // A string result in a date format is still text.
    sheet
        .write_formula_with_format(18, 0, Formula::new("=\"day\"").set_result("day"), &date)
        .unwrap();
    sheet
        .write_array_formula(19, 0, 19, 0, Formula::new("{=SUM(B1:B2)}").set_result("1"))
        .unwrap();
    sheet.write_boolean(0, 1, true).unwrap();
    sheet.write_boolean(1, 1, false).unwrap();
    workbook.save_to_buffer().unwrap()
}

#[test]
fn golden_xw_formulas() {
    golden("xw_formulas", &xw_formulas());
}

#[test]
fn formula_values_and_text() {
    let bytes = xw_formulas();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    {
        let mut rows = workbook.rows("Formulas").unwrap().with_formulas(true);
        let first = rows.next_row().unwrap().unwrap();
        assert_eq!(first.index(), 0);
        let a1 = first.get(0).unwrap();
        assert_eq!(a1.value(), Value::Number(2.0));
        assert_eq!(a1.formula(), Some("1+1"));
        let b1 = first.get(1).unwrap();
        assert_eq!(b1.value(), Value::Bool(true));
        assert_eq!(b1.formula(), None, "a plain boolean has no formula");
        let second = rows.next_row().unwrap().unwrap();
        assert_eq!(second.get(0).unwrap().value(), Value::Text("ab"));
        assert_eq!(second.get(0).unwrap().formula(), Some("\"a\"&\"b\""));
        assert_eq!(second.get(1).unwrap().value(), Value::Bool(false));
        let third = rows.next_row().unwrap().unwrap();
        assert_eq!(third.get(0).unwrap().value(), Value::Bool(true));
        assert_eq!(third.get(0).unwrap().formula(), Some("1=1"));
        rows.next_row().unwrap().unwrap();
        let fifth = rows.next_row().unwrap().unwrap();
        assert_eq!(fifth.get(0).unwrap().value(), Value::Error("#DIV/0!"));
        assert_eq!(fifth.get(0).unwrap().formula(), Some("1/0"));
        rows.next_row().unwrap().unwrap();
        // rust_xlsxwriter writes an empty result as its default, 0.
        let seventh = rows.next_row().unwrap().unwrap();
        assert_eq!(seventh.get(0).unwrap().value(), Value::Number(0.0));
        assert_eq!(seventh.get(0).unwrap().formula(), Some("\"\""));
        let eighth = rows.next_row().unwrap().unwrap();
        assert_eq!(eighth.get(0).unwrap().value(), Value::Text("<&>"));
        assert_eq!(eighth.get(0).unwrap().formula(), Some("\"<&>\""));
    }
    // Without with_formulas(true) there is no formula text.
    let mut rows = workbook.rows("Formulas").unwrap();
    let first = rows.next_row().unwrap().unwrap();
    assert_eq!(first.get(0).unwrap().formula(), None);
    assert_eq!(first.get(0).unwrap().value().as_f64(), Some(2.0));
    assert_eq!(first.get(1).unwrap().value().as_f64(), None);
}

/// (serial, number format) pairs of the "Dates" sheet; a format given as
/// `#N` is the built-in format id N.
const DATE_CELLS: &[(f64, &str)] = &[
    (45366.5734, "yyyy-mm-dd"),
    (45366.5734, "hh:mm:ss"),
    (45366.5734, "d/m/yy h:mm AM/PM"),
    (1.25, "[h]:mm"),
    (0.5, "hh:mm:ss"),
    (0.0, "yyyy-mm-dd"),
    (1.0, "#14"),
    (59.0, "#14"),
    (60.0, "#14"),
    (61.0, "#14"),
    (45000.0 + 3.0 / 2048.0, "#22"),
    (45000.9999999999, "#22"),
    (36526.000011574, "#22"),
    (2958465.0, "#14"),
    (2958465.9999999, "#22"),
    (2958465.999999999, "#22"),
    (2958466.0, "#14"),
    (-1.0, "#14"),
    (1e300, "#14"),
    (0.0005, "#45"),
    (1.5, "#46"),
    (0.75, "#47"),
    (45292.0, "#27"),
    (45292.0, "#36"),
    (45292.0, "#50"),
    (45292.0, "#58"),
    (45292.0, "[$-F800]dddd\\,\\ mmmm\\ dd\\,\\ yyyy"),
    (2.5, "[MM]:SS"),
    (-0.0, "#14"),
    (-1e-10, "#22"),
    (59.999_999_999_9, "#22"),
    (60.5, "#22"),
    (45292.0, "mmm-yy"),
    // Not date formats.
    (45292.5, "[Red]0.00"),
    (45292.5, "0.00\"yy\""),
    (45292.5, "0.00E+00"),
    (45292.5, "#0"),
    (45292.5, "#2"),
    (45292.5, "#23"),
    (45292.5, "#26"),
    (45292.5, "#37"),
    (45292.5, "#44"),
    (45292.5, "#48"),
    (45292.5, "#49"),
    (45292.5, "#59"),
    (45292.5, "[$-409]#,##0.00"),
    (45292.5, "0\\h"),
    (45292.5, "0 AM/PM"),
    (45292.5, "[>=100]0;0"),
];

fn date_format(code: &str) -> Format {
    match code.strip_prefix('#') {
        Some(id) => Format::new().set_num_format_index(id.parse().unwrap()),
        None => Format::new().set_num_format(code),
    }
}

fn xw_dates() -> Vec<u8> {
    let mut workbook = XlsxWriter::new();
    let sheet = workbook.add_worksheet();
    sheet.set_name("Dates").unwrap();
    for (row, (serial, code)) in DATE_CELLS.iter().enumerate() {
        sheet
            .write_number_with_format(row as u32, 0, *serial, &date_format(code))
            .unwrap();
    }
    // Dates written as dates.
    let iso = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss.000");
    let leap = ExcelDateTime::from_ymd(2024, 2, 29)
        .unwrap()
        .and_hms(23, 59, 59.5)
        .unwrap();
    sheet.write_datetime_with_format(0, 1, &leap, &iso).unwrap();
    let time = ExcelDateTime::from_hms_milli(7, 8, 9, 10).unwrap();
    sheet.write_datetime_with_format(1, 1, &time, &iso).unwrap();
    let first = ExcelDateTime::from_ymd(1900, 1, 1).unwrap();
    sheet
        .write_datetime_with_format(2, 1, &first, &iso)
        .unwrap();
    let march = ExcelDateTime::from_ymd(1900, 3, 1).unwrap();
    sheet
        .write_datetime_with_format(3, 1, &march, &iso)
        .unwrap();
    workbook.save_to_buffer().unwrap()
}

#[test]
fn golden_xw_dates() {
    golden("xw_dates", &xw_dates());
}

#[test]
fn date_values_and_civil_fields() {
    let bytes = xw_dates();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    assert_eq!(workbook.date_system(), DateSystem::V1900);
    let mut rows = workbook.rows(0).unwrap();
    let row = rows.next_row().unwrap().unwrap();
    let Value::DateTime(date) = row.get(0).unwrap().value() else {
        panic!("A1 is a date: {:?}", row.get(0));
    };
    assert_eq!(date.serial(), 45366.5734);
    assert_eq!(date.system(), DateSystem::V1900);
    let civil = date.to_civil().unwrap();
    // 0.5734 days = 49541.76 s = 13:45:41.760
    assert_eq!(
        (
            civil.year(),
            civil.month(),
            civil.day(),
            civil.hour(),
            civil.minute(),
            civil.second(),
            civil.millisecond()
        ),
        (2024, 3, 15, 13, 45, 41, 760)
    );
    assert_eq!(civil.to_string(), "2024-03-15T13:45:41.760");
    let Value::DateTime(leap) = row.get(1).unwrap().value() else {
        panic!("B1 is a date");
    };
    assert_eq!(
        leap.to_civil().unwrap().to_string(),
        "2024-02-29T23:59:59.500"
    );
    assert!(row.get(1).unwrap().style() > 0);
    // Out-of-range serials have no calendar date but keep their serial.
    let mut below_zero = None;
    let mut past_9999 = None;
    while let Some(row) = rows.next_row().unwrap() {
        let Some(Value::DateTime(date)) = row.get(0).map(|cell| cell.value()) else {
            continue;
        };
        if date.serial() == -1.0 {
            below_zero = Some(date.to_civil());
        }
        if date.serial() == 2958466.0 {
            past_9999 = Some(date.to_civil());
        }
    }
    assert_eq!(below_zero, Some(None));
    assert_eq!(past_9999, Some(None));
}

fn xw_sheets() -> Vec<u8> {
    let mut workbook = XlsxWriter::new();
    let visible = workbook.add_worksheet();
    visible.set_name("Visible").unwrap();
    visible.write_string(0, 0, "first").unwrap();
    visible.write_number(1, 0, 10).unwrap();
    visible.write_number(2, 0, 20).unwrap();
    let hidden = workbook.add_worksheet();
    hidden.set_name("Hidden").unwrap().set_hidden(true);
    hidden.write_number(0, 0, 1).unwrap();
    let very_hidden = workbook.add_worksheet();
    very_hidden
        .set_name("VeryHidden")
        .unwrap()
        .set_very_hidden(true);
    very_hidden.write_number(0, 0, 2).unwrap();
    let ampersand = workbook.add_worksheet();
    ampersand.set_name("R&D <2024>").unwrap();
    ampersand.write_string(0, 0, "r&d").unwrap();
    let unicode = workbook.add_worksheet();
    unicode.set_name("Ünïcødé 表 😀").unwrap();
    unicode.write_string(0, 0, "ü").unwrap();
    let mut chart = Chart::new(ChartType::Column);
    chart.add_series().set_values(("Visible", 1, 0, 2, 0));
    let mut chartsheet = Worksheet::new_chartsheet();
    chartsheet.set_name("Chart").unwrap();
    chartsheet.insert_chart(0, 0, &chart).unwrap();
    workbook.push_worksheet(chartsheet);
    let sparse = workbook.add_worksheet();
    sparse.set_name("Sparse").unwrap();
    sparse.write_number(999, 26, 3).unwrap();
    sparse.write_number(1, 1, 1).unwrap();
    sparse.write_number(99, 25, 2).unwrap();
    sparse.write_number(1, 5, 1.5).unwrap();
    let far = workbook.add_worksheet();
    far.set_name("Far").unwrap();
    far.write_string(0, 0, "top left").unwrap();
    far.write_string(1_048_575, 16_383, "bottom right").unwrap();
    let empty = workbook.add_worksheet();
    empty.set_name("Empty").unwrap();
    let apostrophe = workbook.add_worksheet();
    apostrophe.set_name("it's").unwrap();
    apostrophe.write_boolean(0, 0, true).unwrap();
    workbook.save_to_buffer().unwrap()
}

#[test]
fn golden_xw_sheets() {
    golden("xw_sheets", &xw_sheets());
}

#[test]
fn sheet_list_states_and_kinds() {
    let workbook = Workbook::from_bytes(xw_sheets()).unwrap();
    let got: Vec<(&str, SheetState, SheetKind)> = workbook
        .sheets()
        .iter()
        .map(|sheet| (sheet.name(), sheet.state(), sheet.kind()))
        .collect();
    assert_eq!(
        got,
        [
            ("Visible", SheetState::Visible, SheetKind::Worksheet),
            ("Hidden", SheetState::Hidden, SheetKind::Worksheet),
            ("VeryHidden", SheetState::VeryHidden, SheetKind::Worksheet),
            ("R&D <2024>", SheetState::Visible, SheetKind::Worksheet),
            ("Ünïcødé 表 😀", SheetState::Visible, SheetKind::Worksheet),
            ("Chart", SheetState::Visible, SheetKind::Chartsheet),
            ("Sparse", SheetState::Visible, SheetKind::Worksheet),
            ("Far", SheetState::Visible, SheetKind::Worksheet),
            ("Empty", SheetState::Visible, SheetKind::Worksheet),
            ("it's", SheetState::Visible, SheetKind::Worksheet),
        ]
    );
    assert!(workbook.sheets()[0].part().ends_with(".xml"));
    assert_ne!(workbook.sheets()[0].part(), workbook.sheets()[1].part());
}

#[test]
fn cli_sheets_lists_every_sheet() {
    let run = run_cli("sheets", "xw_sheets", &xw_sheets());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "position\tname\tstate\tkind\tdimension\n\
         0\tVisible\tvisible\tworksheet\tA1:A3\n\
         1\tHidden\thidden\tworksheet\tA1\n\
         2\tVeryHidden\tveryHidden\tworksheet\tA1\n\
         3\tR&D <2024>\tvisible\tworksheet\tA1\n\
         4\tÜnïcødé 表 😀\tvisible\tworksheet\tA1\n\
         5\tChart\tvisible\tchartsheet\t\n\
         6\tSparse\tvisible\tworksheet\tB2:AA1000\n\
         7\tFar\tvisible\tworksheet\tA1:XFD1048576\n\
         8\tEmpty\tvisible\tworksheet\tA1\n\
         9\tit's\tvisible\tworksheet\tA1\n"
    );
}

#[test]
fn sheets_by_name_and_by_position_agree() {
    let bytes = xw_sheets();
    let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
    for (position, name) in [
        (0, "Visible"),
        (3, "R&D <2024>"),
        (4, "Ünïcødé 表 😀"),
        (7, "Far"),
    ] {
        let by_name = cells_of(&bytes, name);
        let mut by_position = Vec::new();
        let mut rows = workbook.rows(position).unwrap();
        while let Some(row) = rows.next_row().unwrap() {
            for cell in row.cells() {
                by_position.push((cell.reference().to_string(), format!("{:?}", cell.value())));
            }
        }
        assert!(!by_name.is_empty());
        assert_eq!(by_name, by_position, "{name}");
    }
    // A chart sheet has no rows.
    assert!(
        workbook
            .rows("Chart")
            .unwrap()
            .next_row()
            .unwrap()
            .is_none()
    );
    assert!(
        workbook
            .rows("Empty")
            .unwrap()
            .next_row()
            .unwrap()
            .is_none()
    );
}

#[test]
fn missing_sheets_are_sheet_not_found() {
    let mut workbook = Workbook::from_bytes(xw_sheets()).unwrap();
    let Err(err) = workbook.rows("Nope") else {
        panic!("a sheet named Nope");
    };
    assert!(matches!(err.kind(), ErrorKind::SheetNotFound(_)), "{err:?}");
    assert!(err.to_string().contains("Nope"), "{err}");
    // Names compare exactly.
    assert!(workbook.rows("visible").is_err());
    assert!(workbook.rows("Visible ").is_err());
    let Err(err) = workbook.rows(10) else {
        panic!("a sheet at position 10");
    };
    assert!(matches!(err.kind(), ErrorKind::SheetNotFound(_)), "{err:?}");
    assert!(err.to_string().contains("10"), "{err}");
    let err = workbook.for_each_row(usize::MAX, |_| ()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::SheetNotFound(_)), "{err:?}");
    let err = workbook.for_each_row("", |_| ()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::SheetNotFound(_)), "{err:?}");
}

#[test]
fn references_rows_and_columns() {
    let mut workbook = Workbook::from_bytes(xw_sheets()).unwrap();
    let mut seen = Vec::new();
    workbook
        .for_each_row("Far", |row| {
            for cell in row.cells() {
                assert_eq!(cell.row(), row.index());
                seen.push((
                    cell.row(),
                    cell.column(),
                    cell.reference().to_string(),
                    cell.reference(),
                ));
            }
        })
        .unwrap();
    assert_eq!(
        seen,
        [
            (0, 0, "A1".to_owned(), CellRef { row: 0, column: 0 }),
            (
                1_048_575,
                16_383,
                "XFD1048576".to_owned(),
                CellRef {
                    row: 1_048_575,
                    column: 16_383
                }
            ),
        ]
    );
    let mut sparse = Vec::new();
    workbook
        .for_each_row("Sparse", |row| {
            for cell in row.cells() {
                sparse.push(cell.reference().to_string());
            }
        })
        .unwrap();
    assert_eq!(sparse, ["B2", "F2", "Z100", "AA1000"]);
    for (row, column, text) in [
        (0, 25, "Z1"),
        (9, 26, "AA10"),
        (99, 701, "ZZ100"),
        (0, 702, "AAA1"),
    ] {
        assert_eq!(CellRef { row, column }.to_string(), text);
    }
}

#[test]
fn for_each_row_stops_early() {
    let mut workbook = Workbook::from_bytes(xw_sheets()).unwrap();
    // Returning () reads every row.
    let mut all = Vec::new();
    workbook
        .for_each_row("Visible", |row| all.push(row.index()))
        .unwrap();
    assert_eq!(all, [0, 1, 2]);
    // Returning false stops after that row.
    let mut visited = Vec::new();
    workbook
        .for_each_row("Visible", |row| {
            visited.push(row.index());
            false
        })
        .unwrap();
    assert_eq!(visited, [0]);
    // true goes on.
    let mut visited = Vec::new();
    workbook
        .for_each_row("Visible", |row| {
            visited.push(row.index());
            row.index() < 1
        })
        .unwrap();
    assert_eq!(visited, [0, 1]);
    // ControlFlow::Break stops, Continue goes on.
    let mut visited = Vec::new();
    workbook
        .for_each_row(0, |row| {
            visited.push(row.index());
            if row.get(0).and_then(|cell| cell.value().as_f64()) == Some(10.0) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
    assert_eq!(visited, [0, 1]);
    // The workbook is still usable after stopping early.
    let mut again = Vec::new();
    workbook
        .for_each_row("Visible", |row| again.push(row.index()))
        .unwrap();
    assert_eq!(again, [0, 1, 2]);
}

#[test]
fn next_row_pulls_rows_then_stays_done() {
    let mut workbook = Workbook::from_bytes(xw_sheets()).unwrap();
    let mut rows = workbook.rows("Visible").unwrap();
    let first = rows.next_row().unwrap().unwrap();
    assert_eq!(first.index(), 0);
    assert_eq!(first.cells().len(), 1);
    assert_eq!(first.cells()[0].value(), Value::Text("first"));
    assert_eq!(first.get(0).unwrap().value().as_str(), Some("first"));
    assert!(first.get(1).is_none());
    let second = rows.next_row().unwrap().unwrap();
    assert_eq!(second.get(0).unwrap().value(), Value::Number(10.0));
    let third = rows.next_row().unwrap().unwrap();
    assert_eq!(third.index(), 2);
    assert!(rows.next_row().unwrap().is_none());
    assert!(rows.next_row().unwrap().is_none());
}

#[test]
fn open_from_path_reader_and_bytes_agree() {
    let bytes = xw_sheets();
    let file = temp_file("open-paths", &bytes);
    let mut from_path = Workbook::open(&file.0).unwrap();
    let mut from_options = OpenOptions::new().open(&file.0).unwrap();
    let mut from_reader = Workbook::from_reader(Cursor::new(bytes.clone())).unwrap();
    let mut from_bytes = Workbook::from_bytes(bytes).unwrap();
    let expected = library_dump(&mut from_bytes).unwrap();
    assert_eq!(expected.len(), 14);
    assert_eq!(library_dump(&mut from_path).unwrap(), expected);
    assert_eq!(library_dump(&mut from_options).unwrap(), expected);
    assert_eq!(library_dump(&mut from_reader).unwrap(), expected);
}

fn xw_rich() -> Vec<u8> {
    let mut workbook = XlsxWriter::new();
    let bold = Format::new().set_bold();
    let italic = Format::new().set_italic();
    let red = Format::new().set_font_color(rust_xlsxwriter::Color::Red);
    let plain = Format::default();
    let runs_1: [(&Format, &str); 3] = [(&bold, "Bold"), (&plain, " and "), (&italic, "italic")];
    let runs_2: [(&Format, &str); 2] = [(&red, " 红色 "), (&plain, "& <more>\n")];
    let shared = workbook.add_worksheet();
    shared.set_name("Shared").unwrap();
    shared.write_rich_string(0, 0, &runs_1).unwrap();
    shared.write_rich_string(1, 0, &runs_2).unwrap();
    shared.write_string(2, 0, "after").unwrap();
    // Constant memory mode writes inline strings (t="inlineStr").
    let inline = workbook.add_worksheet_with_constant_memory();
    inline.set_name("Inline").unwrap();
    inline.write_rich_string(0, 0, &runs_1).unwrap();
    inline.write_rich_string(1, 0, &runs_2).unwrap();
    inline.write_string(2, 0, "  inline spaced  ").unwrap();
    inline.write_string(3, 0, "cr\r lf\n ctrl\u{7}").unwrap();
    inline.write_number(3, 1, 7.5).unwrap();
    workbook.save_to_buffer().unwrap()
}

#[test]
fn golden_xw_rich() {
    let bytes = xw_rich();
    // Make sure the second sheet really holds inline strings.
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes.clone())).unwrap();
    let mut sheet2 = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("xl/worksheets/sheet2.xml").unwrap(),
        &mut sheet2,
    )
    .unwrap();
    assert!(sheet2.contains("t=\"inlineStr\""), "{sheet2}");
    assert!(sheet2.contains("<r>"), "{sheet2}");
    golden("xw_rich", &bytes);
}

// ---------------------------------------------------------------------------
// Hand-written packages
// ---------------------------------------------------------------------------

fn positions() -> Vec<u8> {
    book()
        .sheet(
            "Pos",
            sheet_xml(concat!(
                r#"<row><c><v>1</v></c><c><v>2</v></c></row>"#,
                r#"<row r="5"><c><v>3</v></c><c r="D5"><v>4</v></c><c><v>5</v></c></row>"#,
                r#"<row><c t="inlineStr"><is><t>x</t></is></c></row>"#,
                r#"<row r="8"/>"#,
                r#"<row><c r="C9" s="0"/><c><v>6</v></c></row>"#,
                r#"<row r="12"><c r="B12"><v>7</v></c><c r="A12"><v>8</v></c></row>"#,
                r#"<row r="3"><c r="A3"><v>9</v></c></row>"#,
                r#"<row><c><v>10</v></c></row>"#,
                r#"<row r="1048576"><c r="XFC1048576"><v>11</v></c><c><v>12</v></c></row>"#,
            )),
        )
        .build()
}

#[test]
fn golden_positions() {
    golden("positions", &positions());
}

fn prefixed() -> Vec<u8> {
    let x = format!(r#"xmlns:x="{MAIN_NS}""#);
    Package::new()
        .with("[Content_Types].xml", content_types())
        .with(
            "_rels/.rels",
            format!(
                r#"{XML_DECL}<pr:Relationships xmlns:pr="{PKG_REL_NS}"><pr:Relationship Id="rId1" Type="{REL_NS}/officeDocument" Target="xl/workbook.xml"/></pr:Relationships>"#
            ),
        )
        .with(
            "xl/workbook.xml",
            format!(
                r#"{XML_DECL}<x:workbook {x} xmlns:r="{REL_NS}"><x:workbookPr/><x:sheets><x:sheet name="Prefixed" sheetId="1" r:id="rId1"/></x:sheets></x:workbook>"#
            ),
        )
        .with(
            "xl/_rels/workbook.xml.rels",
            rels_xml(&[
                ("rId1".into(), format!("{REL_NS}/worksheet"), "worksheets/sheet1.xml".into()),
                ("rId2".into(), format!("{REL_NS}/sharedStrings"), "sharedStrings.xml".into()),
                ("rId3".into(), format!("{REL_NS}/styles"), "styles.xml".into()),
            ]),
        )
        .with(
            "xl/sharedStrings.xml",
            format!(
                r#"{XML_DECL}<x:sst {x} count="2" uniqueCount="2"><x:si><x:t>alpha</x:t></x:si><x:si><x:r><x:rPr><x:b/></x:rPr><x:t>be</x:t></x:r><x:r><x:t>ta</x:t></x:r></x:si></x:sst>"#
            ),
        )
        .with(
            "xl/styles.xml",
            format!(
                r#"{XML_DECL}<x:styleSheet {x}><x:numFmts count="1"><x:numFmt numFmtId="164" formatCode="yyyy-mm-dd"/></x:numFmts><x:cellXfs count="2"><x:xf numFmtId="0"/><x:xf numFmtId="164"/></x:cellXfs></x:styleSheet>"#
            ),
        )
        .with(
            "xl/worksheets/sheet1.xml",
            format!(
                r#"{XML_DECL}<x:worksheet {x}><x:sheetData><x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" t="s"><x:v>1</x:v></x:c><x:c r="C1" s="1"><x:v>45292</x:v></x:c><x:c r="D1" t="inlineStr"><x:is><x:t>inline</x:t></x:is></x:c><x:c r="E1" t="str"><x:f>"f"</x:f><x:v>f</x:v></x:c></x:row><x:row><x:c><x:v>2</x:v></x:c><x:c t="b"><x:v>0</x:v></x:c></x:row></x:sheetData></x:worksheet>"#
            ),
        )
        .build()
}

#[test]
fn golden_prefixed() {
    golden("prefixed", &prefixed());
}

fn strict() -> Vec<u8> {
    let rel = STRICT_REL_NS;
    Package::new()
        .with("[Content_Types].xml", content_types())
        .with(
            "_rels/.rels",
            rels_xml(&[("rId1".into(), format!("{rel}/officeDocument"), "xl/workbook.xml".into())]),
        )
        .with(
            "xl/workbook.xml",
            format!(
                r#"{XML_DECL}<workbook xmlns="{STRICT_MAIN_NS}" xmlns:r="{rel}" conformance="strict"><workbookPr/><sheets><sheet name="Strict" sheetId="1" r:id="rId1"/></sheets></workbook>"#
            ),
        )
        .with(
            "xl/_rels/workbook.xml.rels",
            rels_xml(&[
                ("rId1".into(), format!("{rel}/worksheet"), "worksheets/sheet1.xml".into()),
                ("rId2".into(), format!("{rel}/sharedStrings"), "sharedStrings.xml".into()),
                ("rId3".into(), format!("{rel}/styles"), "styles.xml".into()),
            ]),
        )
        .with(
            "xl/sharedStrings.xml",
            format!(
                r#"{XML_DECL}<sst xmlns="{STRICT_MAIN_NS}"><si><t>strict text</t></si></sst>"#
            ),
        )
        .with(
            "xl/styles.xml",
            format!(
                r#"{XML_DECL}<styleSheet xmlns="{STRICT_MAIN_NS}"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="22"/></cellXfs></styleSheet>"#
            ),
        )
        .with(
            "xl/worksheets/sheet1.xml",
            format!(
                r#"{XML_DECL}<worksheet xmlns="{STRICT_MAIN_NS}" xmlns:r="{rel}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>2.5</v></c><c r="C1" s="1"><v>45292.75</v></c><c r="D1" t="d"><v>2024-01-01T18:00:00</v></c><c r="E1" t="b"><v>1</v></c></row></sheetData></worksheet>"#
            ),
        )
        .build()
}

#[test]
fn golden_strict() {
    golden("strict", &strict());
}

fn one_cell_sheet(value_xml: &str) -> String {
    sheet_xml(&format!(r#"<row r="1"><c r="A1" {value_xml}</c></row>"#))
}

/// The workbook part at `wb/main/book.xml`, targets relative, `../` and
/// absolute, names differing in case, and a decoy `xl/workbook.xml`.
fn layout() -> Vec<u8> {
    let ws = format!("{REL_NS}/worksheet");
    Package::new()
        .with("[Content_Types].xml", content_types())
        .with("_rels/.rels", package_rels("/WB/main/Book.xml"))
        .with(
            "wb/main/book.xml",
            format!(
                r#"{XML_DECL}<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}"><sheets><sheet name="Second" sheetId="2" r:id="rId2"/><sheet name="First" sheetId="1" r:id="rId1"/><sheet name="Parent" sheetId="3" r:id="rId3"/><sheet name="Absolute" sheetId="4" r:id="rId4"/><sheet name="CaseDiff" sheetId="5" r:id="rId5"/></sheets></workbook>"#
            ),
        )
        .with(
            "wb/main/_rels/book.xml.rels",
            rels_xml(&[
                ("rId1".into(), ws.clone(), "sheets/one.xml".into()),
                ("rId2".into(), ws.clone(), "./sheets/two.xml".into()),
                ("rId3".into(), ws.clone(), "../other/three.xml".into()),
                ("rId4".into(), ws.clone(), "/abs/four.xml".into()),
                ("rId5".into(), ws.clone(), "Sheets/FIVE.XML".into()),
                ("rId6".into(), format!("{REL_NS}/sharedStrings"), "../strings.xml".into()),
                ("rId7".into(), format!("{REL_NS}/styles"), "/wb/main/look.xml".into()),
            ]),
        )
        .with("wb/main/sheets/one.xml", one_cell_sheet(r#"t="s"><v>0</v>"#))
        .with("wb/main/sheets/two.xml", one_cell_sheet(r#"t="s"><v>1</v>"#))
        .with("wb/other/three.xml", one_cell_sheet(r#"t="s"><v>2</v>"#))
        .with("abs/four.xml", one_cell_sheet(r#"s="1"><v>45292</v>"#))
        .with("wb/main/sheets/five.xml", one_cell_sheet(r#"t="s"><v>3</v>"#))
        .with(
            "wb/strings.xml",
            sst_xml(&["<t>one</t>", "<t>two</t>", "<t>three</t>", "<t>five</t>"]),
        )
        .with("wb/main/look.xml", styles_xml(&[], &[0, 14]))
        // Decoys at the conventional names, which the relationships do not name.
        .with(
            "xl/workbook.xml",
            format!(
                r#"{XML_DECL}<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}"><sheets><sheet name="Decoy" sheetId="1" r:id="rId1"/></sheets></workbook>"#
            ),
        )
        .with(
            "xl/_rels/workbook.xml.rels",
            rels_xml(&[("rId1".into(), ws, "worksheets/sheet1.xml".into())]),
        )
        .with("xl/worksheets/sheet1.xml", one_cell_sheet(r#"><v>666</v>"#))
        .with("xl/sharedStrings.xml", sst_xml(&["<t>decoy</t>"]))
        .build()
}

#[test]
fn golden_layout() {
    golden("layout", &layout());
}

#[test]
fn layout_parts_are_resolved() {
    let workbook = Workbook::from_bytes(layout()).unwrap();
    let parts: Vec<(&str, String)> = workbook
        .sheets()
        .iter()
        .map(|sheet| (sheet.name(), sheet.part().to_ascii_lowercase()))
        .collect();
    assert_eq!(
        parts,
        [
            ("Second", "wb/main/sheets/two.xml".to_owned()),
            ("First", "wb/main/sheets/one.xml".to_owned()),
            ("Parent", "wb/other/three.xml".to_owned()),
            ("Absolute", "abs/four.xml".to_owned()),
            ("CaseDiff", "wb/main/sheets/five.xml".to_owned()),
        ]
    );
    assert_eq!(workbook.shared_strings().unwrap().get(3), Some("five"));
}

fn text_cells() -> Vec<u8> {
    book()
        .strings(&[
            "<t>shared</t>",
            "<t/>",
            r#"<r><t>ri</t></r><r><rPr><b/></rPr><t xml:space="preserve">ch </t></r>"#,
            r#"<t>漢字</t><rPh sb="0" eb="2"><t>かんじ</t></rPh><phoneticPr fontId="1"/>"#,
            r#"<t xml:space="preserve">  padded  </t>"#,
            "<t>  no preserve  </t>",
        ])
        .sheet(
            "Text",
            sheet_xml(concat!(
                r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c>"#,
                r#"<c r="D1" t="s"><v>3</v></c><c r="E1" t="s"><v> 4 </v></c><c r="F1" t="s"><v>5</v></c></row>"#,
                r#"<row r="2"><c r="A2" t="inlineStr"><is><t>plain inline</t></is></c>"#,
                r#"<c r="B2" t="inlineStr"><is><r><rPr><i/></rPr><t>東</t></r><r><t>京</t></r><rPh sb="0" eb="2"><t>トウキョウ</t></rPh></is></c>"#,
                r#"<c r="C2" t="inlineStr"><is><t/></is></c><c r="D2" t="inlineStr"><is/></c>"#,
                r#"<c r="E2" t="inlineStr"><is><t xml:space="preserve"> lead and trail </t></is></c></row>"#,
                r#"<row r="3"><c r="A3" t="str"><f>"a"&amp;"b"</f><v>ab</v></c><c r="B3" t="str"><f>""</f><v></v></c>"#,
                r#"<c r="C3" t="str"><f>T(1)</f><v/></c><c r="D3" t="str"><v>  spaced  </v></c><c r="E3" t="str"><v>123</v></c></row>"#,
                r#"<row r="4"><c r="A4" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="B4" t="e"><v>#N/A</v></c><c r="C4" t="e"><v>#REF!</v></c>"#,
                r#"<c r="D4" t="e"><v>#NAME?</v></c><c r="E4" t="e"><v>#NUM!</v></c><c r="F4" t="e"><v>#NULL!</v></c>"#,
                r#"<c r="G4" t="e"><v>#VALUE!</v></c><c r="H4" t="e"><v/></c><c r="I4" t="e"><v>#SPILL!</v></c></row>"#,
                r#"<row r="5"><c r="A5" t="b"><v>1</v></c><c r="B5" t="b"><v>0</v></c><c r="C5" t="b"><v/></c><c r="D5" t="b"><f>TRUE()</f><v>1</v></c></row>"#,
                r#"<row r="6"><c r="A6"><v> 42 </v></c><c r="B6" t="n"><v>-1.5E3</v></c><c r="C6"><v>1e-5</v></c><c r="D6"><v/></c>"#,
                r#"<c r="E6"><v></v></c><c r="F6" s="0"/><c r="G6"><v>"#,
                "\n\t12\r\n",
                r#"</v></c><c r="H6"><f>1+1</f><v>2</v></c></row>"#,
                r#"<row r="7"><c r="A7"><f>NOW()</f></c><c r="B7"><f t="shared" ref="B7:C7" si="0">A1</f><v>3</v></c><c r="C7"><f t="shared" si="0"/><v>4</v></c></row>"#,
                // Number spellings of writers other than Excel.
                r#"<row r="8"><c r="A8"><v>1E+300</v></c><c r="B8"><v>1.5E-3</v></c><c r="C8"><v>-0</v></c>"#,
                r#"<c r="D8"><v>000123.4500</v></c><c r="E8"><v>.5</v></c><c r="F8"><v>5.</v></c>"#,
                r#"<c r="G8"><v>12345678901234567890</v></c><c r="H8"><v>0.1000000000000000055511151231257827</v></c>"#,
                r#"<c r="I8"><v>2.2250738585072011e-308</v></c><c r="J8"><v>9007199254740993</v></c>"#,
                r#"<c r="K8"><v>4.9406564584124654E-324</v></c><c r="L8"><v>1.7976931348623157E+308</v></c>"#,
                r#"<c r="M8"><v>-123456.789e-2</v></c><c r="N8"><v>40000.00069444445</v></c><c r="O8"><v>   </v></c></row>"#,
            )),
        )
        .build()
}

#[test]
fn golden_text_cells() {
    golden("text_cells", &text_cells());
}

#[test]
fn shared_formula_text_only_where_written() {
    let mut workbook = Workbook::from_bytes(text_cells()).unwrap();
    let mut rows = workbook.rows("Text").unwrap().with_formulas(true);
    let mut formulas = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        for cell in row.cells() {
            formulas.push((
                cell.reference().to_string(),
                cell.formula().map(str::to_owned),
            ));
        }
    }
    let find = |name: &str| {
        formulas
            .iter()
            .find(|(r, _)| r == name)
            .unwrap_or_else(|| panic!("{name} read"))
            .1
            .clone()
    };
    assert_eq!(find("A3").as_deref(), Some("\"a\"&\"b\""));
    assert_eq!(find("B7").as_deref(), Some("A1"));
    assert_eq!(find("C7"), None);
    assert_eq!(find("A1"), None);
    assert!(
        !formulas.iter().any(|(r, _)| r == "A7"),
        "a formula without a value is no cell"
    );
}

/// Cell values are escaped strings (`ST_Xstring`): `_xHHHH_` stands for a
/// character. Formula text (`ST_Formula`) is not: it comes back as written,
/// XML entities decoded and nothing else.
#[test]
fn formula_text_keeps_what_looks_like_an_escape() {
    let bytes = book()
        .sheet(
            "F",
            sheet_xml(concat!(
                r#"<row r="1"><c r="A1" t="str"><f>"_x0041_"&amp;"b"</f><v>_x0041_b</v></c>"#,
                r#"<c r="B1"><f>_xlfn.CONCAT(1,2)</f><v>12</v></c></row>"#,
            )),
        )
        .build();
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    let mut rows = workbook.rows("F").unwrap().with_formulas(true);
    let row = rows.next_row().unwrap().expect("the row");
    let cells = row.cells();
    assert_eq!(cells[0].value(), Value::Text("Ab"));
    assert_eq!(cells[0].formula(), Some("\"_x0041_\"&\"b\""));
    assert_eq!(cells[1].value(), Value::Number(12.0));
    assert_eq!(cells[1].formula(), Some("_xlfn.CONCAT(1,2)"));
}

fn iso_dates() -> Vec<u8> {
    let values = [
        "2024-03-15",
        "2024-03-15T13:45:30",
        "2024-03-15T13:45:30.5",
        "2024-03-15T13:45:30.1234567",
        "2024-03-15T13:45:30.1235",
        "2024-03-15T13:45:59.9996",
        "2024-12-31T23:59:59.9995",
        "13:45:30",
        "00:00:00",
        "PT30H",
        "PT0H11M0.000S",
        "P2DT3H4M5.5S",
        "1900-01-01",
        "9999-12-31T23:59:59.999",
        "2000-02-29T12:00:00",
        "1900-03-01",
        "PT1440M",
        "PT59.9999S",
        "PT1500H",
        "1899-12-30",
        "1800-01-01T12:00:00",
        "0001-01-01",
    ];
    let mut rows = String::new();
    for (i, value) in values.iter().enumerate() {
        rows.push_str(&format!(
            r#"<row r="{0}"><c r="A{0}" t="d"><v>{value}</v></c></row>"#,
            i + 1
        ));
    }
    rows.push_str(r#"<row r="30"><c r="A30" t="d" s="1"><v>2024-01-02</v></c><c r="B30" t="d"><v/></c></row>"#);
    book()
        .styles(styles_xml(&[], &[0, 2]))
        .sheet("ISO", sheet_xml(&rows))
        .build()
}

#[test]
fn golden_iso_dates() {
    golden("iso_dates", &iso_dates());
}

/// Entities, `_xHHHH_` escapes, CDATA, comments and PIs, line ends, BOMs.
fn escapes() -> Vec<u8> {
    let bom = "\u{feff}";
    let items = [
        "<t>_x0041__x0042_</t>",
        "<t>_x005F_x0041_</t>",
        "<t>_xD83D__xDE00_</t>",
        "<t>lone _xD800_ high</t>",
        "<t>lone _xDC00_ low</t>",
        "<t>a_x000D__x000A_b</t>",
        "<t>crlf\r\nraw\rcr</t>",
        "<t>&#13;&#xD;&#10;</t>",
        "<t>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;</t>",
        r#"<t><![CDATA[<cdata> & "raw"]]></t>"#,
        "<t>be<!-- comment -->fore<?pi data?>after</t>",
        "<t>not_x00_escape _x004_ _xZZZZ_</t>",
    ];
    let mut row1 = String::from(r#"<row r="1"><!-- in row -->"#);
    for (i, _) in items.iter().enumerate() {
        let column = (b'A' + i as u8) as char;
        row1.push_str(&format!(
            r#"<c r="{column}1" t="s"><!-- in cell --><?pi?><v>{i}</v></c>"#
        ));
    }
    row1.push_str("</row>");
    let sheet = format!(
        "{bom}{}",
        sheet_xml(&format!(
            concat!(
                "<!-- before rows --><?pi here?>\r\n{}",
                r#"<!-- <row r="2"><c r="A2"><v>999</v></c></row> -->"#,
                r#"<row r="3"><c r="A3" t="inlineStr"><is><t>in_x0041_line &amp; _xD83D__xDE00_</t></is></c>"#,
                r#"<c r="B3" t="str"><f>"x"</f><v>str_x0041_ &lt;&#13;&#10;</v></c>"#,
                r#"<c r="C3"><v><![CDATA[42]]></v></c><c r="D3"><v>4<!-- split -->2</v></c>"#,
                "<c r=\"E3\" t=\"inlineStr\"><is><t>crlf&#13;&#10;\r\n</t></is></c>",
                r#"<c r="F3" t="inlineStr"><is><t><![CDATA[a]]>&amp;<![CDATA[b]]></t></is></c></row>"#,
            ),
            row1
        ))
    );
    let strings = format!("{bom}{}", sst_xml(&items));
    let workbook = book()
        .strings_part(strings)
        .sheet("Esc_x0041_ &amp; &lt;&gt; &#x1F600;", sheet);
    let package = workbook.package();
    let workbook_xml = format!("{bom}{}", workbook.workbook_xml());
    package.with("xl/workbook.xml", workbook_xml).build()
}

#[test]
fn golden_escapes() {
    golden("escapes", &escapes());
}

/// Comments are not part of an element's text, so an escape they split is
/// still an escape: the text of `<t>_xD83D_<!-- c -->_xDE00_</t>` is
/// `_xD83D__xDE00_`, which unescapes to one emoji. The expected file was
/// written by hand.
fn escape_split_by_comments() -> Vec<u8> {
    book()
        .strings(&[
            "<t>_xD83D_<!-- c -->_xDE00_</t>",
            "<t>_x00<!-- c -->41_</t>",
        ])
        .sheet(
            "Split",
            sheet_xml(concat!(
                r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>"#,
                r#"<c r="C1" t="inlineStr"><is><t>_xD83D_<?pi?>_xDE00_</t></is></c>"#,
                r#"<c r="D1" t="str"><f>"A"</f><v>_x00<!-- c -->41_</v></c></row>"#,
            )),
        )
        .build()
}

#[test]
fn golden_escape_split_by_comments() {
    check_golden("escape_split", &escape_split_by_comments(), false);
}

fn mac_sheet() -> String {
    sheet_xml(concat!(
        r#"<row r="1"><c r="A1" s="1"><v>0</v></c></row>"#,
        r#"<row r="2"><c r="A2" s="1"><v>1</v></c></row>"#,
        r#"<row r="3"><c r="A3" s="1"><v>59</v></c></row>"#,
        r#"<row r="4"><c r="A4" s="1"><v>60</v></c></row>"#,
        r#"<row r="5"><c r="A5" s="2"><v>43000.25</v></c></row>"#,
        r#"<row r="6"><c r="A6" s="1"><v>-1</v></c></row>"#,
        r#"<row r="7"><c r="A7" t="d"><v>2024-03-15</v></c></row>"#,
        r#"<row r="8"><c r="A8"><v>5</v></c></row>"#,
        r#"<row r="9"><c r="A9" s="1"><v>2957003</v></c></row>"#,
        r#"<row r="10"><c r="A10" s="1"><v>2957004</v></c></row>"#,
        r#"<row r="11"><c r="A11" s="3"><v>1.5</v></c></row>"#,
    ))
}

fn date1904(workbook_pr: &str) -> Vec<u8> {
    book()
        .workbook_pr(workbook_pr)
        .styles(styles_xml(&[(164, "[h]:mm:ss")], &[0, 14, 22, 164]))
        .sheet("Mac", mac_sheet())
        .build()
}

#[test]
fn golden_date1904() {
    golden(
        "date1904",
        &date1904(r#"<workbookPr defaultThemeVersion="124226" date1904="1"/>"#),
    );
    // "true" means the same as "1".
    check_golden(
        "date1904",
        &date1904(r#"<workbookPr date1904="true"/>"#),
        false,
    );
}

#[test]
fn golden_date1904_off() {
    golden(
        "date1904_off",
        &date1904(r#"<workbookPr date1904="false"/>"#),
    );
    check_golden(
        "date1904_off",
        &date1904(r#"<workbookPr date1904="0"/>"#),
        false,
    );
    check_golden("date1904_off", &date1904(""), false);
}

#[test]
fn date_system_is_reported() {
    for (pr, system) in [
        (r#"<workbookPr date1904="1"/>"#, DateSystem::V1904),
        (r#"<workbookPr date1904="true"/>"#, DateSystem::V1904),
        (r#"<workbookPr date1904="0"/>"#, DateSystem::V1900),
        ("", DateSystem::V1900),
    ] {
        let mut workbook = Workbook::from_bytes(date1904(pr)).unwrap();
        assert_eq!(workbook.date_system(), system, "{pr}");
        let mut rows = workbook.rows("Mac").unwrap();
        let row = rows.next_row().unwrap().unwrap();
        let Value::DateTime(date) = row.cells()[0].value() else {
            panic!("A1 is a date");
        };
        assert_eq!(date.system(), system);
        assert_eq!(date.serial(), 0.0);
        let civil = date.to_civil().unwrap();
        let want = if system == DateSystem::V1904 {
            (1904, 1, 1)
        } else {
            (1899, 12, 31)
        };
        assert_eq!((civil.year(), civil.month(), civil.day()), want);
    }
}

fn no_styles() -> Vec<u8> {
    book()
        .strings(&["<t>text</t>"])
        .sheet(
            "Plain",
            sheet_xml(concat!(
                r#"<row r="1"><c r="A1" s="1"><v>45292</v></c><c r="B1" s="14"><v>1</v></c>"#,
                r#"<c r="C1" t="s" s="2"><v>0</v></c><c r="D1" t="d" s="3"><v>2024-01-01</v></c></row>"#,
            )),
        )
        .build()
}

#[test]
fn golden_no_styles() {
    golden("no_styles", &no_styles());
}

fn no_shared_strings() -> Vec<u8> {
    book()
        .styles(styles_xml(&[], &[0, 14]))
        .sheet(
            "NoSST",
            sheet_xml(concat!(
                r#"<row r="1"><c r="A1"><v>1</v></c><c r="B1" t="inlineStr"><is><t>inline</t></is></c>"#,
                r#"<c r="C1" t="b"><v>1</v></c><c r="D1" t="e"><v>#N/A</v></c><c r="E1" t="str"><v>str</v></c>"#,
                r#"<c r="F1" s="1"><v>2</v></c></row>"#,
            )),
        )
        .build()
}

#[test]
fn golden_no_shared_strings() {
    golden("no_shared_strings", &no_shared_strings());
}

/// A `<sheet>` with an empty relationship id (an old VBA module sheet).
fn empty_rid() -> Vec<u8> {
    book()
        .sheet("Data", sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#))
        .sheet("More", sheet_xml(r#"<row r="2"><c r="B2"><v>2</v></c></row>"#))
        .package()
        .with(
            "xl/workbook.xml",
            format!(
                r#"{XML_DECL}<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/><sheet name="Module1" sheetId="3" r:id=""/><sheet name="More" sheetId="2" r:id="rId2"/></sheets></workbook>"#
            ),
        )
        .build()
}

#[test]
fn golden_empty_rid() {
    let bytes = empty_rid();
    golden("empty_rid", &bytes);
    let workbook = Workbook::from_bytes(bytes).unwrap();
    assert!(
        !workbook
            .sheets()
            .iter()
            .any(|sheet| sheet.name() == "Module1" && sheet.kind() == SheetKind::Worksheet),
        "{:?}",
        workbook.sheets()
    );
}

fn other_sheet_kinds() -> Vec<u8> {
    let cell = r#"<sheetData><row r="1"><c r="A1"><v>9</v></c></row></sheetData>"#;
    book()
        .sheet("Data", sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#))
        .sheet_of_type(
            "Dialog",
            &format!("{REL_NS}/dialogsheet"),
            None,
            format!(r#"{XML_DECL}<dialogsheet xmlns="{MAIN_NS}">{cell}</dialogsheet>"#),
        )
        .sheet_of_type(
            "Macro",
            &format!("{MS_REL_NS}/xlMacrosheet"),
            Some("hidden"),
            format!(
                r#"{XML_DECL}<xm:macrosheet xmlns="{MAIN_NS}" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main"><sheetData><row r="1"><c r="A1" t="str"><f>RETURN()</f><v>x</v></c></row></sheetData></xm:macrosheet>"#
            ),
        )
        .sheet_of_type(
            "Intl",
            &format!("{MS_REL_NS}/xlIntlMacrosheet"),
            None,
            format!(r#"{XML_DECL}<xm:macrosheet xmlns="{MAIN_NS}" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main">{cell}</xm:macrosheet>"#),
        )
        .sheet_of_type(
            "Chart",
            &format!("{REL_NS}/chartsheet"),
            Some("veryHidden"),
            format!(r#"{XML_DECL}<chartsheet xmlns="{MAIN_NS}"><sheetPr/>{cell}</chartsheet>"#),
        )
        .sheet("Tail", sheet_xml(r#"<row r="1"><c r="A1" t="inlineStr"><is><t>end</t></is></c></row>"#))
        .build()
}

#[test]
fn golden_other_sheet_kinds() {
    let bytes = other_sheet_kinds();
    golden("other_sheet_kinds", &bytes);
    let run = run_cli("sheets", "other_sheet_kinds", &bytes);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "position\tname\tstate\tkind\tdimension\n\
         0\tData\tvisible\tworksheet\t\n\
         1\tDialog\tvisible\tdialogsheet\t\n\
         2\tMacro\thidden\tmacrosheet\t\n\
         3\tIntl\tvisible\tmacrosheet\t\n\
         4\tChart\tveryHidden\tchartsheet\t\n\
         5\tTail\tvisible\tworksheet\t\n"
    );
    let workbook = Workbook::from_bytes(bytes).unwrap();
    let kinds: Vec<SheetKind> = workbook.sheets().iter().map(|s| s.kind()).collect();
    assert_eq!(
        kinds,
        [
            SheetKind::Worksheet,
            SheetKind::Dialogsheet,
            SheetKind::Macrosheet,
            SheetKind::Macrosheet,
            SheetKind::Chartsheet,
            SheetKind::Worksheet
        ]
    );
}

/// Custom and built-in number formats: which make a number a date.
const STYLE_FORMATS: &[(u32, &str)] = &[
    (164, "yyyy-mm-dd"),
    (165, "[Red]0.00"),
    (166, "0.00&quot;yy&quot;"),
    (167, "[h]:mm"),
    (168, "d/m/yy h:mm AM/PM"),
    (169, "0 AM/PM"),
    (170, r"0\d"),
    (171, "0_m"),
    (172, "*d0"),
    (173, "[$-409]#,##0.00"),
    (174, "[&gt;=100]0;0"),
    (175, "[ss]"),
    (176, "[MM]:SS"),
    (177, "0.00E+00"),
    (178, "General"),
    (179, "#,##0;[Red]-#,##0;yyyy"),
    (180, "&quot;Day &quot;0"),
    (181, r"[$-F800]dddd\,\ mmmm\ dd\,\ yyyy"),
    (182, "@"),
    (183, "[Blue][h]"),
    (184, "0 A/P"),
    (185, "mm:ss.0"),
    (186, "[DBNum1]0"),
];

const BUILTIN_IDS: &[u32] = &[
    0, 1, 2, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
    31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54,
    55, 56, 57, 58, 59, 71, 81, 200,
];

fn number_formats() -> Vec<u8> {
    // Style 0 (also that of cells without `s`) is General.
    let mut xfs: Vec<u32> = vec![0];
    xfs.extend(STYLE_FORMATS.iter().map(|(id, _)| *id));
    xfs.extend_from_slice(BUILTIN_IDS);
    let mut styles = styles_xml(STYLE_FORMATS, &xfs);
    // A date format in cellStyleXfs does not make style 0 a date, and
    // applyNumberFormat="0" does not stop a cellXfs entry being one.
    styles = styles.replace(
        r#"<cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs>"#,
        r#"<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>"#,
    );
    styles = styles.replace(
        "</cellXfs>",
        r#"<xf numFmtId="14" applyNumberFormat="0"/><xf numFmtId="0" applyNumberFormat="1"/><xf/></cellXfs>"#,
    );
    let count = xfs.len() + 3;
    let mut rows = String::new();
    for style in 0..count {
        rows.push_str(&format!(
            r#"<row r="{0}"><c r="A{0}" s="{style}"><v>45292.75</v></c></row>"#,
            style + 1
        ));
    }
    rows.push_str(&format!(
        r#"<row r="{0}"><c r="A{0}"><v>45292.75</v></c></row>"#,
        count + 1
    ));
    book()
        .styles(styles)
        .sheet("Formats", sheet_xml(&rows))
        .build()
}

#[test]
fn golden_number_formats() {
    golden("number_formats", &number_formats());
}

fn container_book() -> Book {
    book()
        .strings(&["<t>stored?</t>", "<t>zip64!</t>"])
        .styles(styles_xml(&[(164, "yyyy-mm-dd hh:mm")], &[0, 164]))
        .sheet(
            "One",
            sheet_xml(concat!(
                r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>1.25</v></c></row>"#,
                r#"<row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2" s="1"><v>45292.5</v></c></row>"#,
            )),
        )
        .sheet(
            "Two",
            sheet_xml(r#"<row r="1"><c r="C3" t="b"><v>0</v></c></row>"#),
        )
}

/// (name, general-purpose flags, method, has a ZIP64 extra field) of each
/// local header.
fn local_headers(bytes: &[u8]) -> Vec<(String, u16, u16, bool)> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes.to_vec())).unwrap();
    let le16 = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    (0..zip.len())
        .map(|i| {
            let file = zip.by_index_raw(i).unwrap();
            let at = file.header_start() as usize;
            assert_eq!(&bytes[at..at + 4], b"PK\x03\x04");
            let name_len = le16(at + 26) as usize;
            let extra_len = le16(at + 28) as usize;
            let mut extra = &bytes[at + 30 + name_len..at + 30 + name_len + extra_len];
            let mut zip64 = false;
            while extra.len() >= 4 {
                let id = u16::from_le_bytes([extra[0], extra[1]]);
                let len = u16::from_le_bytes([extra[2], extra[3]]) as usize;
                zip64 |= id == 0x0001;
                extra = &extra[(4 + len).min(extra.len())..];
            }
            (
                file.name().unwrap().into_owned(),
                le16(at + 6),
                le16(at + 8),
                zip64,
            )
        })
        .collect()
}

#[test]
fn golden_containers() {
    let package = container_book().package();
    for container in [
        Container::Deflated,
        Container::Stored,
        Container::Stream,
        Container::Zip64,
        Container::Zip64Stream,
    ] {
        let bytes = package.build_as(container);
        let headers = local_headers(&bytes);
        assert_eq!(headers.len(), 8);
        for (name, flags, method, zip64) in &headers {
            let descriptor = flags & 0x8 != 0;
            match container {
                Container::Stored => assert_eq!(*method, 0, "{name}"),
                _ => assert_eq!(*method, 8, "{name}"),
            }
            let streamed = matches!(container, Container::Stream | Container::Zip64Stream);
            assert_eq!(
                descriptor, streamed,
                "{container:?} {name}: data descriptor"
            );
            let large = matches!(container, Container::Zip64 | Container::Zip64Stream);
            assert_eq!(*zip64, large, "{container:?} {name}: ZIP64 extra field");
        }
        if container == Container::Deflated {
            golden("containers", &bytes);
        } else {
            check_golden("containers", &bytes, false);
        }
    }
}

fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let mut units: Vec<u16> = Vec::new();
    if bom {
        units.push(0xFEFF);
    }
    units.extend(text.encode_utf16());
    units
        .into_iter()
        .flat_map(|unit| {
            if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            }
        })
        .collect()
}

fn utf16_parts() -> Vec<u8> {
    let decl = r#"<?xml version="1.0" encoding="UTF-16" standalone="yes"?>"#;
    let sheet = format!(
        r#"{decl}<worksheet xmlns="{MAIN_NS}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>3.25</v></c><c r="C1" t="inlineStr"><is><t>ÄÖÜ 😀</t></is></c></row></sheetData></worksheet>"#
    );
    let strings = format!(r#"{decl}<sst xmlns="{MAIN_NS}"><si><t>wide 😀 text</t></si></sst>"#);
    let workbook = book()
        .sheet("Ütf16 😀", utf16(&sheet, true, true))
        .strings_part(utf16(&strings, false, false));
    let workbook_xml = workbook.workbook_xml().replacen(XML_DECL, decl, 1);
    workbook
        .package()
        .with("xl/workbook.xml", utf16(&workbook_xml, false, true))
        .build()
}

#[test]
fn golden_utf16() {
    golden("utf16", &utf16_parts());
}

// ---------------------------------------------------------------------------
// The scanner gives the same rows whatever the size of the read window.
// ---------------------------------------------------------------------------

#[test]
fn window_size_does_not_change_rows() {
    // The fuzzing entry point reads a sheet against three shared strings
    // ("zero", "one", "two") and a styles part where style 1 is a date.
    let sheets = [
        sheet_xml(concat!(
            r#"<row><c><v>1</v></c><c><v>2</v></c></row><row r="5"><c t="s"><v>2</v></c>"#,
            r#"<c r="D5" s="1"><v>45292.5</v></c><c><v>5</v></c></row><!-- <row r="6"/> -->"#,
            r#"<x:row r="7" xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:c r="B7" t="inlineStr"><x:is><x:r><x:t>ri</x:t></x:r><x:r><x:t>ch</x:t></x:r>"#,
            r#"<x:rPh><x:t>no</x:t></x:rPh></x:is></x:c></x:row>"#,
            r#"<row r="8"><c r="A8" t="str"><f>"a"&amp;"b"</f><v>a&amp;b_x0041_</v></c><c r="B8" t="d"><v>2024-01-02T03:04:05.006</v></c>"#,
            r#"<c r="C8" t="e"><v>#N/A</v></c><c r="D8" t="b"><v>1</v></c><c r="E8"><v><![CDATA[7]]></v></c></row>"#,
        )),
        "\u{feff}<worksheet><sheetData>\r\n<row r=\"1\">\r\n<c r=\"A1\" t=\"inlineStr\"><is><t>a\r\nb&#13;</t></is></c></row></sheetData></worksheet>".to_owned(),
    ];
    for xml in &sheets {
        let whole = sheetstream::fuzzing::read_sheet_xml(xml.as_bytes(), 1 << 20).unwrap();
        assert!(whole.0 > 0);
        for chunk in [1, 2, 3, 5, 7, 16, 64, 4096] {
            let got = sheetstream::fuzzing::read_sheet_xml(xml.as_bytes(), chunk).unwrap();
            assert_eq!(got, whole, "window of {chunk} bytes");
        }
    }
    let (count, digest) = sheetstream::fuzzing::read_sheet_xml(sheets[0].as_bytes(), 3).unwrap();
    assert_eq!(count, 11, "{digest}");
    assert!(digest.contains("A5 Text(\"two\")"), "{digest}");
    assert!(digest.contains("B7 Text(\"rich\")"), "{digest}");
    assert!(digest.contains("A8 Text(\"a&bA\")"), "{digest}");
}
