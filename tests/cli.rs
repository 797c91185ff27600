//! The `sheetstream` command-line tool, run as a separate process.
//!
//! 1. Two workbooks built by the test, one with `rust_xlsxwriter` (what a
//!    writer library produces: shared strings, styles, a chart sheet, a
//!    hidden sheet, an empty row element with a height, formulas with
//!    cached results) and one from hand-written XML with the `zip` builders
//!    of `tests/common` (errors, empty strings, inline and rich text, `t="d"`
//!    cells, valueless cells, a very hidden sheet named `1`, a dialog sheet,
//!    sheet names no file system takes). Every command and the main options run
//!    on both, with `--threads 1` and `--threads 2` (which must agree), and
//!    the output is compared with the files in `tests/cli/BOOK/`.
//!    `UPDATE_CLI=1 cargo test --test integration cli::` rewrites those files; each was
//!    checked by hand (RFC 4180 quoting, one record per Excel row, numbers
//!    in shortest round-trip form, TRUE/FALSE, ISO 8601 dates): check any
//!    rewritten one again before committing it.
//! 2. Errors and exit codes (0 ok, 1 unreadable workbook, 2 bad usage, 3
//!    output not writable), one-line messages, and a reader that closes the
//!    pipe early.
//! 3. The conformance corpus (`../shared/conformance/corpus`): the first
//!    sheet of each workbook with an expected dump, as CSV, against a grid
//!    rebuilt from the dump (see `corpus_first_sheet_as_csv`). Skipped with
//!    a message where the corpus is absent. `--nocapture` shows the counts.
//!
//! Known bugs are tests marked `#[ignore = "bug: ..."]`.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Instant, SystemTime};

use common::*;
use serde_json::Value as Json;

// ---------------------------------------------------------------------------
// Running the tool and comparing with the expected files
// ---------------------------------------------------------------------------

/// Runs the test-built binary; `args` may hold paths.
fn sheetstream(args: &[&str]) -> CliRun {
    run_cli_args(args)
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

/// Asserts a run succeeded quietly and returns its output.
fn assert_ok<'a>(run: &'a CliRun, args: &[&str]) -> &'a str {
    assert_eq!(
        run.code,
        Some(0),
        "sheetstream {args:?} failed: {}",
        run.stderr
    );
    assert!(
        run.stderr.is_empty(),
        "sheetstream {args:?} wrote to stderr: {}",
        run.stderr
    );
    &run.stdout
}

/// Runs `args` with `--threads 1` and `--threads 2`; both must succeed
/// and print the same; returns what they printed.
fn run_threads(args: &[&str]) -> String {
    let mut printed: Vec<String> = Vec::new();
    for threads in ["1", "2"] {
        let mut full = args.to_vec();
        full.extend(["--threads", threads]);
        let run = sheetstream(&full);
        printed.push(assert_ok(&run, &full).to_owned());
    }
    assert!(
        printed[0] == printed[1],
        "sheetstream {args:?}: --threads 1 and --threads 2 differ:\n{}",
        first_difference(&printed[0], &printed[1])
    );
    printed.pop().unwrap()
}

fn expected_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli")
}

fn updating() -> bool {
    std::env::var_os("UPDATE_CLI").is_some_and(|value| value == "1")
}

/// The first line where two texts differ, for messages.
fn first_difference(expected: &str, got: &str) -> String {
    let (mut e, mut g) = (expected.split_inclusive('\n'), got.split_inclusive('\n'));
    for line in 1.. {
        match (e.next(), g.next()) {
            (None, None) => return "(the same)".into(),
            (a, b) if a == b => {}
            (a, b) => return format!("line {line}:\n  expected {a:?}\n  got      {b:?}"),
        }
    }
    unreachable!()
}

/// Compares `got` with `tests/cli/RELATIVE`, or writes it there under
/// `UPDATE_CLI=1`.
fn check_expected(relative: &str, got: &str) {
    let path = expected_root().join(relative);
    if updating() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "{}: {err} (UPDATE_CLI=1 writes it; check it by hand)",
            path.display()
        )
    });
    assert!(
        expected == got,
        "the output differs from {}:\n{}",
        path.display(),
        first_difference(&expected, got)
    );
}

/// The workbooks of part 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fixture {
    /// Built with rust_xlsxwriter.
    Writer,
    /// Built from hand-written XML.
    Handmade,
}

const FIXTURES: [Fixture; 2] = [Fixture::Writer, Fixture::Handmade];

impl Fixture {
    fn name(self) -> &'static str {
        match self {
            Fixture::Writer => "writer",
            Fixture::Handmade => "handmade",
        }
    }

    fn bytes(self) -> Vec<u8> {
        match self {
            Fixture::Writer => writer_workbook(),
            Fixture::Handmade => handmade_workbook(),
        }
    }

    fn file(self) -> TempFile {
        temp_file(self.name(), &self.bytes())
    }
}

/// Runs `COMMAND FILE OPTIONS` on every fixture with 1 and 2 threads and
/// compares with `tests/cli/BOOK/VARIANT`.
fn golden(command: &str, options: &[&str], variant: &str) {
    for fixture in FIXTURES {
        golden_one(fixture, command, options, variant);
    }
}

fn golden_one(fixture: Fixture, command: &str, options: &[&str], variant: &str) {
    let file = fixture.file();
    let mut args = vec![command, path_str(&file.0)];
    args.extend(options);
    let printed = run_threads(&args);
    check_expected(&format!("{}/{variant}", fixture.name()), &printed);
}

// ---------------------------------------------------------------------------
// The workbooks
// ---------------------------------------------------------------------------

/// Built with rust_xlsxwriter. Sheets: 0 `Chart` (a chart sheet, so the
/// default sheet is not position 0), 1 `Data`, 2 `Sparse`, 3 `Hidden`
/// (hidden), 4 `Empty`, 5 `<Q1|Q2>` and 6 `>Q1|Q2<` (the same file name
/// once sanitised), 7 `.dot`.
fn writer_workbook() -> Vec<u8> {
    use rust_xlsxwriter::{Chart, ChartType, ExcelDateTime, Format, Formula, Workbook};

    let mut workbook = Workbook::new();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let minutes = Format::new().set_num_format("yyyy-mm-dd hh:mm");
    let millis = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss.000");
    let time = Format::new().set_num_format("hh:mm:ss.000");
    let day = ExcelDateTime::from_ymd(2024, 3, 1).unwrap();

    let mut chart = Chart::new(ChartType::Column);
    chart.add_series().set_values("Data!$C$3:$C$10");
    let chartsheet = workbook.add_chartsheet();
    chartsheet.set_name("Chart").unwrap();
    chartsheet.insert_chart(0, 0, &chart).unwrap();

    {
        let sheet = workbook.add_worksheet().set_name("Data").unwrap();
        // Row 1: a title; row 2: the header (D repeats C, E and H have no
        // cell). rust_xlsxwriter writes no empty strings (`=""` gets the
        // cached result 0): the hand-made workbook has those.
        sheet
            .write_string(0, 0, "Sales report, 2024 \"draft\"")
            .unwrap();
        for (column, header) in [
            (0, "id"),
            (1, "text"),
            (2, "number"),
            (3, "number"),
            (5, "when"),
            (6, "flag"),
            (8, "ünïcødé ✓"),
        ] {
            sheet.write_string(1, column, header).unwrap();
        }
        // Row 3.
        sheet.write_number(2, 0, 1).unwrap();
        sheet.write_string(2, 1, "plain").unwrap();
        sheet.write_number(2, 2, 42).unwrap();
        sheet.write_number(2, 3, -17.5).unwrap();
        sheet.write_datetime_with_format(2, 5, &day, &date).unwrap();
        sheet.write_boolean(2, 6, true).unwrap();
        sheet.write_string(2, 8, "Zürich").unwrap();
        // Row 4.
        sheet.write_number(3, 0, 2).unwrap();
        sheet.write_string(3, 1, "comma, inside").unwrap();
        sheet.write_number(3, 2, 0.1).unwrap();
        sheet.write_number(3, 3, 1e300).unwrap();
        sheet.write_string(3, 4, "no header").unwrap();
        let half_past_noon = day.clone().and_hms(12, 30, 0).unwrap();
        sheet
            .write_datetime_with_format(3, 5, half_past_noon, &minutes)
            .unwrap();
        sheet.write_boolean(3, 6, false).unwrap();
        sheet.write_string(3, 8, "東京").unwrap();
        // Row 5.
        sheet.write_number(4, 0, 3).unwrap();
        sheet.write_string(4, 1, "say \"hi\"").unwrap();
        sheet.write_number(4, 2, 1.5e-7).unwrap();
        sheet.write_number(4, 3, -2.5e-10).unwrap();
        let with_millis = day.clone().and_hms_milli(12, 30, 45, 250).unwrap();
        sheet
            .write_datetime_with_format(4, 5, with_millis, &millis)
            .unwrap();
        sheet
            .write_formula(4, 6, Formula::new("=1/0").set_result("#DIV/0!"))
            .unwrap();
        sheet.write_string(4, 8, "emoji 🎉").unwrap();
        // Row 6 is empty.
        // Row 7.
        sheet.write_number(6, 0, 5).unwrap();
        sheet.write_string(6, 1, "line one\nline two").unwrap();
        sheet.write_number(6, 2, 12345678901234567890.0).unwrap();
        sheet.write_number(6, 3, 1e16).unwrap();
        let time_only = ExcelDateTime::from_hms_milli(12, 30, 0, 250).unwrap();
        sheet
            .write_datetime_with_format(6, 5, time_only, &time)
            .unwrap();
        sheet
            .write_formula(6, 6, Formula::new("=NA()").set_result("#N/A"))
            .unwrap();
        // Row 8.
        sheet.write_number(7, 0, 6).unwrap();
        sheet.write_string(7, 1, "\ttab\tseparated").unwrap();
        sheet.write_number(7, 2, 0).unwrap();
        sheet.write_number(7, 3, -1e-6).unwrap();
        // Row 9.
        sheet.write_number(8, 0, 7).unwrap();
        sheet.write_string(8, 1, "  padded  ").unwrap();
        sheet.write_number(8, 2, 0.1 + 0.2).unwrap();
        sheet.write_number(8, 3, 123456.789).unwrap();
        // Row 10.
        sheet.write_number(9, 0, 8).unwrap();
        sheet.write_string(9, 1, " ").unwrap();
        sheet.write_number(9, 2, 1e-5).unwrap();
        sheet.write_number(9, 3, 9999999999999998.0).unwrap();
        // Row 11: only the first and a late column.
        sheet.write_number(10, 0, -3).unwrap();
        sheet.write_string(10, 8, "last").unwrap();
    }
    {
        let sheet = workbook.add_worksheet().set_name("Sparse").unwrap();
        sheet.write_string(0, 0, "a").unwrap();
        sheet.write_string(0, 2, "c").unwrap();
        sheet.write_number(2, 1, 1).unwrap();
        // Row 4 has a height and no cells: an empty <row> element.
        sheet.set_row_height(3, 30).unwrap();
        sheet.write_string(5, 4, "e").unwrap();
        sheet.write_boolean(8, 0, true).unwrap();
    }
    {
        let sheet = workbook.add_worksheet().set_name("Hidden").unwrap();
        sheet.write_string(0, 0, "secret").unwrap();
        sheet.write_number(0, 1, 1).unwrap();
        sheet.set_hidden(true);
    }
    workbook.add_worksheet().set_name("Empty").unwrap();
    for (name, text) in [
        ("<Q1|Q2>", "angle"),
        (">Q1|Q2<", "reversed"),
        (".dot", "dot"),
    ] {
        let sheet = workbook.add_worksheet().set_name(name).unwrap();
        sheet.write_string(0, 0, text).unwrap();
    }
    workbook.save_to_buffer().unwrap()
}

/// From hand-written XML. Sheets: 0 `Cells`, 1 `Q1/Q2: sales` (a name
/// Excel refuses, but a file may hold), 2 `1` (very hidden; `--sheet 1`
/// names it rather than position 1), 3 `Dialog` (a dialog sheet), 4 `..`.
fn handmade_workbook() -> Vec<u8> {
    // Style 1: a date, 2: date and time, 3: time with milliseconds, 4: date
    // and time with milliseconds.
    let styles = styles_xml(
        &[(164, "hh:mm:ss.000"), (165, "yyyy-mm-dd hh:mm:ss.000")],
        &[0, 14, 22, 164, 165],
    );
    let strings = [
        "<t/>",
        r#"<t xml:space="preserve"> lead and trail </t>"#,
        "<t>a \"quoted\", text\nwith newline</t>",
        "<r><t>rich </t></r><r><rPr><b/></rPr><t>text</t></r>",
        "<t>key</t>",
    ];
    let cells = sheet_xml(concat!(
        // The header: a repeated key, a missing cell (C) and an empty string (D).
        r#"<row r="1"><c r="A1" t="s"><v>4</v></c><c r="B1" t="inlineStr"><is><t>key</t></is></c>"#,
        r#"<c r="D1" t="s"><v>0</v></c><c r="E1" t="inlineStr"><is><t>value</t></is></c></row>"#,
        r#"<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="e"><v>#N/A</v></c><c r="C2" t="s"><v>1</v></c>"#,
        r#"<c r="D2" t="b"><v>1</v></c><c r="E2" t="inlineStr"><is><t>tab&#9;here</t></is></c>"#,
        r#"<c r="F2"><v>2.5</v></c></row>"#,
        r#"<row r="3"><c r="A3" s="1"><v>45352</v></c><c r="B3" s="2"><v>45352.520833333336</v></c>"#,
        r#"<c r="C3" t="d"><v>2024-03-01T12:30:45.123</v></c><c r="D3" t="d"><v>2024-03-01</v></c>"#,
        r#"<c r="E3" s="3"><v>0.25</v></c><c r="F3" t="d"><v>12:30:00.250</v></c>"#,
        r#"<c r="G3" s="4"><v>45352.000011574074</v></c><c r="H3" s="4"><v>45352</v></c>"#,
        r#"<c r="I3" s="1"><v>-1</v></c></row>"#,
        // Rows 4 and 5 are missing (an empty row element is left to
        // `rows_without_values_*`).
        r#"<row r="6"><c r="A6" t="str"><v></v></c><c r="B6" s="1"/><c r="C6" t="e"><v>#REF!</v></c>"#,
        r#"<c r="Z6" t="inlineStr"><is><t>far</t></is></c></row>"#,
        r#"<row r="8"><c r="A8" t="s"><v>2</v></c><c r="B8" t="s"><v>3</v></c>"#,
        r#"<c r="C8" t="inlineStr"><is><t>ünïcødé ✓ 東京 🎉</t></is></c><c r="D8" t="b"><v>0</v></c>"#,
        r#"<c r="E8"><v>-0.5</v></c></row>"#,
        r#"<row r="9"><c r="B9"><v>1E+300</v></c><c r="C9"><v> 7 </v></c>"#,
        r#"<c r="D9" t="inlineStr"><is><t>x_x000A_y</t></is></c></row>"#,
    ));
    let dialog = format!(r#"{XML_DECL}<dialogsheet xmlns="{MAIN_NS}"><sheetData/></dialogsheet>"#);
    book()
        .styles(styles)
        .strings(&strings)
        .sheet("Cells", cells)
        .sheet(
            "Q1/Q2: sales",
            sheet_xml(r#"<row r="1"><c r="A1" t="inlineStr"><is><t>q</t></is></c><c r="B1"><v>1</v></c></row>"#),
        )
        .sheet_with_state(
            "1",
            "veryHidden",
            &sheet_xml(r#"<row r="1"><c r="A1" t="inlineStr"><is><t>named one</t></is></c></row>"#),
        )
        .sheet_of_type("Dialog", &format!("{REL_NS}/dialogsheet"), None, dialog)
        .sheet(
            "..",
            sheet_xml(r#"<row r="2"><c r="B2" t="inlineStr"><is><t>dots</t></is></c></row>"#),
        )
        .build()
}

// ---------------------------------------------------------------------------
// 1. Output on generated workbooks
// ---------------------------------------------------------------------------

#[test]
fn sheets_lists_every_sheet() {
    for fixture in FIXTURES {
        let file = fixture.file();
        let args = ["sheets", path_str(&file.0)];
        let run = sheetstream(&args);
        check_expected(
            &format!("{}/sheets.tsv", fixture.name()),
            assert_ok(&run, &args),
        );
    }
}

#[test]
fn csv_default_is_the_first_worksheet() {
    golden("csv", &[], "csv.csv");
}

#[test]
fn csv_tsv() {
    golden("csv", &["--tsv"], "csv-tsv.tsv");
}

#[test]
fn csv_sheet_by_name() {
    golden_one(
        Fixture::Writer,
        "csv",
        &["--sheet", "Sparse"],
        "csv-sheet-name.csv",
    );
    golden_one(
        Fixture::Handmade,
        "csv",
        &["--sheet", "Q1/Q2: sales"],
        "csv-sheet-name.csv",
    );
}

/// `--sheet 1`: position 1 in the writer's workbook; in the hand-made one a
/// sheet is named `1`, and the name wins.
#[test]
fn csv_sheet_by_position() {
    // The fixture has a sheet named `1` at position 2: `--sheet 1` is that
    // sheet (a name wins), with one warning naming the other reading.
    golden_one(
        Fixture::Writer,
        "csv",
        &["--sheet", "1"],
        "csv-sheet-position.csv",
    );
    golden_one(
        Fixture::Handmade,
        "csv",
        &["--sheet-name", "1"],
        "csv-sheet-position.csv",
    );
    let file = Fixture::Handmade.file();
    let named = run_cli_args(&["csv", path_str(&file.0), "--sheet-name", "1"]);
    let ambiguous = run_cli_args(&["csv", path_str(&file.0), "--sheet", "1"]);
    assert_eq!(ambiguous.code, Some(0), "{}", ambiguous.stderr);
    assert_eq!(ambiguous.stdout, named.stdout);
    assert_eq!(
        ambiguous.stderr,
        "sheetstream: warning: sheet '1' is the sheet named '1' (at position 2), not the sheet \
         at position 1 ('Q1/Q2: sales'): a name wins; --sheet-index 1 reads the sheet at that \
         position\n"
    );
    let file = Fixture::Writer.file();
    let by_position = run_threads(&["csv", path_str(&file.0), "--sheet", "2"]);
    let by_name = run_threads(&["csv", path_str(&file.0), "--sheet", "Sparse"]);
    assert_eq!(by_position, by_name);
}

#[test]
fn csv_skip_rows_and_max_rows() {
    golden(
        "csv",
        &["--skip-rows", "1", "--max-rows", "2"],
        "csv-skip-max.csv",
    );
    // Skipped and limited rows include the empty ones.
    golden_one(
        Fixture::Writer,
        "csv",
        &["--sheet", "Sparse", "--skip-rows", "1", "--max-rows", "4"],
        "csv-sparse-skip-max.csv",
    );
}

#[test]
fn csv_date_format() {
    golden(
        "csv",
        &["--date-format", "%d/%m/%Y %H:%M"],
        "csv-date-format.csv",
    );
}

/// `-o FILE` writes what standard output gets.
#[test]
fn csv_and_jsonl_to_a_file() {
    let file = Fixture::Writer.file();
    let dir = temp_dir("cli-output");
    for command in ["csv", "jsonl"] {
        let out = dir.0.join(format!("out.{command}"));
        let args = [command, path_str(&file.0), "-o", path_str(&out)];
        let run = sheetstream(&args);
        assert_eq!(assert_ok(&run, &args), "", "nothing on standard output");
        let to_stdout = run_threads(&[command, path_str(&file.0)]);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), to_stdout);
    }
}

/// The files `csv --all -o DIR` wrote, by name.
fn read_folder(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().expect("UTF-8 file name");
            (name, std::fs::read_to_string(entry.path()).unwrap())
        })
        .collect()
}

fn check_all(fixture: Fixture, options: &[&str], variant: &str) {
    let file = fixture.file();
    let mut folders = Vec::new();
    for threads in ["1", "2"] {
        let dir = temp_dir("cli-all");
        // A folder that does not exist yet is created.
        let out = dir.0.join("out");
        let mut args = vec!["csv", path_str(&file.0), "--all", "-o", path_str(&out)];
        args.extend(options);
        args.extend(["--threads", threads]);
        let run = sheetstream(&args);
        let listing = assert_ok(&run, &args);
        let written = read_folder(&out);
        // Standard output maps each sheet to its file, one line each.
        let mut lines = listing.lines();
        assert_eq!(lines.next(), Some("sheet\tpath"), "{listing}");
        let listed: Vec<String> = lines
            .map(|line| {
                let (_, path) = line.rsplit_once('\t').expect("sheet, tab, path");
                let path = Path::new(path);
                assert_eq!(path.parent(), Some(out.as_path()), "{line}");
                path.file_name().unwrap().to_string_lossy().into_owned()
            })
            .collect();
        let mut sorted = listed.clone();
        sorted.sort();
        assert_eq!(sorted, written.keys().cloned().collect::<Vec<_>>());
        folders.push(written);
    }
    assert!(
        folders[0] == folders[1],
        "csv --all: --threads 1 and 2 differ: {:?} vs {:?}",
        folders[0],
        folders[1]
    );
    let got = folders.pop().unwrap();
    let expected_dir = expected_root().join(fixture.name()).join(variant);
    if updating() {
        let _ = std::fs::remove_dir_all(&expected_dir);
        std::fs::create_dir_all(&expected_dir).unwrap();
    }
    if !updating() {
        let expected_names: Vec<String> = read_folder(&expected_dir).into_keys().collect();
        let got_names: Vec<String> = got.keys().cloned().collect();
        assert_eq!(got_names, expected_names, "csv --all: the files written");
    }
    for (name, text) in &got {
        check_expected(&format!("{}/{variant}/{name}", fixture.name()), text);
    }
}

#[test]
fn csv_all_writes_one_file_per_worksheet() {
    for fixture in FIXTURES {
        check_all(fixture, &[], "all-csv");
    }
    check_all(
        Fixture::Writer,
        &["--tsv", "--max-rows", "3"],
        "all-tsv-max-3",
    );
}

#[test]
fn jsonl_keys_from_the_header_row() {
    golden("jsonl", &[], "jsonl.jsonl");
}

#[test]
fn jsonl_header_row_2() {
    golden("jsonl", &["--header-row", "2"], "jsonl-header-row-2.jsonl");
}

#[test]
fn jsonl_no_header() {
    golden("jsonl", &["--no-header"], "jsonl-no-header.jsonl");
}

#[test]
fn jsonl_max_rows() {
    golden("jsonl", &["--max-rows", "2"], "jsonl-max-rows.jsonl");
    golden_one(
        Fixture::Writer,
        "jsonl",
        &[
            "--header-row",
            "2",
            "--max-rows",
            "3",
            "--date-format",
            "%d/%m/%Y %H:%M:%S.%f",
        ],
        "jsonl-header-row-2-max-rows-3.jsonl",
    );
}

/// Every line is a JSON object, and its keys are distinct.
#[test]
fn jsonl_lines_are_objects_with_distinct_keys() {
    for fixture in FIXTURES {
        let file = fixture.file();
        for options in [&[][..], &["--header-row", "2"], &["--no-header"]] {
            let mut args = vec!["jsonl", path_str(&file.0)];
            args.extend(options);
            for line in run_threads(&args).lines() {
                assert_distinct_keys(line);
            }
        }
    }
}

/// Parses a JSON object line and checks no key repeats (serde_json keeps
/// the last of repeated keys, so the keys are counted from the text).
fn assert_distinct_keys(line: &str) {
    let object: Json = serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line}"));
    let object = object.as_object().expect("a JSON object");
    let mut keys = 0;
    let mut stream = serde_json::Deserializer::from_str(line).into_iter::<KeyCounter>();
    if let Some(Ok(KeyCounter(count))) = stream.next() {
        keys = count;
    }
    assert_eq!(keys, object.len(), "repeated keys in {line}");
}

/// Counts the keys of a JSON object as written, repeats included.
struct KeyCounter(usize);

impl<'de> serde::Deserialize<'de> for KeyCounter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = KeyCounter;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<KeyCounter, A::Error> {
                let mut count = 0;
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {
                    count += 1;
                }
                Ok(KeyCounter(count))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// A header whose text is what the tool makes of a repeated header
/// (`key_2`), and a header naming a column letter that a cell past the
/// header is keyed by.
#[test]
fn jsonl_keys_never_repeat() {
    let workbook = book()
        .sheet(
            "S",
            sheet_xml(concat!(
                r#"<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c><c r="B1" t="inlineStr"><is><t>x</t></is></c>"#,
                r#"<c r="C1" t="inlineStr"><is><t>x_2</t></is></c><c r="D1" t="inlineStr"><is><t>F</t></is></c></row>"#,
                r#"<row r="2"><c r="A2"><v>1</v></c><c r="B2"><v>2</v></c><c r="C2"><v>3</v></c>"#,
                r#"<c r="D2"><v>4</v></c><c r="F2"><v>6</v></c></row>"#,
            )),
        )
        .build();
    let file = temp_file("repeated-keys", &workbook);
    let printed = run_threads(&["jsonl", path_str(&file.0)]);
    for line in printed.lines() {
        assert_distinct_keys(line);
    }
}

/// `--header-row` counts from 1; 0 is not a row.
#[test]
fn jsonl_header_row_0_is_refused() {
    let file = Fixture::Writer.file();
    let run = sheetstream(&["jsonl", path_str(&file.0), "--header-row", "0"]);
    assert_eq!(run.code, Some(2), "{run:?}");
}

#[test]
fn stats() {
    golden("stats", &[], "stats.tsv");
    golden_one(
        Fixture::Writer,
        "stats",
        &["--sheet", "Data"],
        "stats-data.tsv",
    );
}

#[test]
fn count() {
    golden("count", &[], "count.tsv");
}

#[test]
fn cells() {
    golden("cells", &[], "cells.jsonl");
    // The dump is the library's view of every worksheet.
    for fixture in FIXTURES {
        let bytes = fixture.bytes();
        let file = temp_file(fixture.name(), &bytes);
        let printed = parse_dump(&run_threads(&["cells", path_str(&file.0)]));
        let mut workbook = sheetstream::Workbook::from_bytes(bytes).unwrap();
        let library = library_dump(&mut workbook).unwrap();
        if let Some(diff) = dump_difference(&library, &printed) {
            panic!(
                "{}: cells differs from the library:\n{diff}",
                fixture.name()
            );
        }
    }
}

/// `--sheet` naming a chart sheet: not a worksheet (the default sheet and
/// `--all` leave chart sheets out), so a usage error like an unknown sheet.
#[test]
fn sheet_that_is_not_a_worksheet() {
    let file = Fixture::Writer.file();
    for command in ["csv", "jsonl", "stats"] {
        let args = [command, path_str(&file.0), "--sheet", "Chart"];
        let run = sheetstream(&args);
        assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
        assert_one_line_message(&run);
        assert!(run.stderr.contains("Chart"), "{args:?}: {}", run.stderr);
    }
}

/// A sheet whose row elements 2, 4, 5 and 1048576 hold no value (a row
/// height, a row style, cells with a style and no value).
fn rows_without_values() -> Vec<u8> {
    book()
        .styles(styles_xml(&[], &[0, 14]))
        .sheet(
            "S",
            sheet_xml(concat!(
                r#"<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c></row>"#,
                r#"<row r="2" ht="30" customHeight="1"/>"#,
                r#"<row r="3"><c r="B3"><v>1</v></c></row>"#,
                r#"<row r="4" ht="30" customHeight="1"/>"#,
                r#"<row r="5"><c r="A5" s="1"/><c r="B5" s="1"/></row>"#,
                r#"<row r="1048576" s="1" customFormat="1"/>"#,
            )),
        )
        .build()
}

/// Runs `args FILE` and compares with `expected`, without putting what
/// may be millions of lines into the message.
fn assert_prints(args: &[&str], file: &TempFile, expected: &str) {
    let mut args = args.to_vec();
    args.push(path_str(&file.0));
    let printed = run_threads(&args);
    assert!(
        printed == expected,
        "{args:?}: expected {expected:?}, got {} lines starting {:?}",
        printed.lines().count(),
        printed.lines().take(6).collect::<Vec<_>>()
    );
}

/// The CSV ends with the last row that has a value, as the dump does;
/// empty rows before it stay, as empty records, so that records keep
/// Excel's row numbers.
#[test]
fn rows_without_values_csv_ends_at_the_last_value() {
    let file = temp_file("rows-without-values", &rows_without_values());
    // Row 1 is as wide as all that is known then (its own cell); the empty
    // row 2 is as wide as row 3, which follows it.
    assert_prints(&["csv"], &file, "a\n,\n,1\n");
    assert_prints(&["csv", "--ragged"], &file, "a\n\"\"\n,1\n");
}

/// JSON lines has no row numbers to keep: a row without values is no
/// object, whether the file leaves the row out or writes a row element
/// for its height or style (else the output depends on formatting the
/// user cannot see).
#[test]
fn rows_without_values_jsonl_skips_them() {
    let file = temp_file("rows-without-values", &rows_without_values());
    assert_prints(
        &["jsonl", "--no-header"],
        &file,
        "{\"A\":\"a\"}\n{\"B\":1}\n",
    );
    assert_prints(&["jsonl"], &file, "{\"a\":null,\"B\":1}\n");
}

/// `count` writes its sums as the other commands write numbers.
#[test]
fn count_sums_in_shortest_form() {
    let file = Fixture::Writer.file();
    let printed = run_threads(&["count", path_str(&file.0)]);
    let data = printed
        .lines()
        .find(|line| line.starts_with("Data\t"))
        .unwrap();
    assert!(data.contains("(sum 1e300)"), "{data}");
}

// ---------------------------------------------------------------------------
// 2. Errors and exit codes
// ---------------------------------------------------------------------------

/// A message of the tool's own: one line, `sheetstream: ...`, no Rust
/// debug output.
fn assert_one_line_message(run: &CliRun) {
    assert!(
        run.stderr.starts_with("sheetstream: ") && run.stderr.ends_with('\n'),
        "not a `sheetstream: ` line: {:?}",
        run.stderr
    );
    assert_eq!(
        run.stderr.lines().count(),
        1,
        "not one line: {:?}",
        run.stderr
    );
    assert_no_debug_output(&run.stderr);
}

fn assert_no_debug_output(stderr: &str) {
    for bad in ["panicked", "Error {", "Os {", "kind:", "RUST_BACKTRACE"] {
        assert!(!stderr.contains(bad), "debug output in {stderr:?}");
    }
}

/// Every command that reads a workbook, with its arguments (`csv --all`
/// into the folder `out`).
fn every_command<'a>(file: &'a str, out: &'a str) -> Vec<Vec<&'a str>> {
    vec![
        vec!["sheets", file],
        vec!["csv", file],
        vec!["csv", file, "--all", "-o", out],
        vec!["jsonl", file],
        vec!["stats", file],
        vec!["count", file],
        vec!["cells", file],
    ]
}

#[test]
fn missing_file_exits_1() {
    let dir = temp_dir("cli-missing");
    let missing = dir.0.join("no such workbook.xlsx");
    let out = dir.0.join("never-written");
    for args in every_command(path_str(&missing), path_str(&out)) {
        let run = sheetstream(&args);
        assert_eq!(run.code, Some(1), "{args:?}: {run:?}");
        assert_one_line_message(&run);
        assert!(
            run.stderr.contains("no such workbook.xlsx"),
            "the message names the file: {}",
            run.stderr
        );
        assert_eq!(run.stdout, "");
    }
    assert!(!out.exists());
}

#[test]
fn not_a_zip_exits_1() {
    for (stem, bytes) in [
        ("text", &b"id,name\n1,plain\n"[..]),
        ("empty", &b""[..]),
        (
            "zip-without-workbook",
            &Package::new().with("hello.txt", "hi").build()[..],
        ),
    ] {
        let file = temp_file(stem, bytes);
        let dir = temp_dir("cli-not-zip");
        let out = dir.0.join("never-written");
        for args in every_command(path_str(&file.0), path_str(&out)) {
            let run = sheetstream(&args);
            assert_eq!(run.code, Some(1), "{stem} {args:?}: {run:?}");
            assert_one_line_message(&run);
            assert_eq!(run.stdout, "");
        }
        assert!(!out.exists());
    }
}

/// A sheet whose XML breaks off in a row: exit 1, whatever was written.
#[test]
fn damaged_sheet_exits_1() {
    let workbook = book()
        .sheet(
            "Broken",
            format!(
                r#"{XML_DECL}<worksheet xmlns="{MAIN_NS}"><sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2"><v>2"#
            ),
        )
        .build();
    let file = temp_file("broken", &workbook);
    let dir = temp_dir("cli-broken");
    let out = dir.0.join("out");
    for args in every_command(path_str(&file.0), path_str(&out)) {
        if args[0] == "sheets" {
            continue;
        }
        for threads in ["1", "2"] {
            let mut full = args.clone();
            full.extend(["--threads", threads]);
            let run = sheetstream(&full);
            assert_eq!(run.code, Some(1), "{full:?}: {run:?}");
            assert_one_line_message(&run);
        }
    }
}

#[test]
fn unknown_sheet_exits_2_and_lists_the_sheets() {
    let file = Fixture::Writer.file();
    for command in ["csv", "jsonl", "stats"] {
        for wanted in ["Nope", "99", "data"] {
            let args = [command, path_str(&file.0), "--sheet", wanted];
            let run = sheetstream(&args);
            assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
            assert_one_line_message(&run);
            assert!(run.stderr.contains(wanted), "{}", run.stderr);
            for sheet in [
                "Chart", "Data", "Sparse", "Hidden", "Empty", "<Q1|Q2>", ">Q1|Q2<", ".dot",
            ] {
                assert!(
                    run.stderr.contains(&format!("`{sheet}`")),
                    "{args:?}: {sheet} not listed in {}",
                    run.stderr
                );
            }
            assert_eq!(run.stdout, "");
        }
    }
}

#[test]
fn bad_date_format_exits_2() {
    let file = Fixture::Writer.file();
    for command in ["csv", "jsonl"] {
        for (pattern, mentions) in [("%Y-%q", "%q"), ("100%", "%"), ("%d %B %Y", "%B")] {
            let args = [command, path_str(&file.0), "--date-format", pattern];
            let run = sheetstream(&args);
            assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
            assert_one_line_message(&run);
            assert!(run.stderr.contains(mentions), "{}", run.stderr);
            assert_eq!(run.stdout, "");
        }
    }
}

/// Usage errors found by the argument parser: exit 2 and a message that
/// names the problem (the parser adds a usage line and a hint).
fn assert_usage_error(args: &[&str], mentions: &str) {
    let run = sheetstream(args);
    assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
    assert!(
        run.stderr.starts_with("error: ") && run.stderr.contains(mentions),
        "{args:?}: {}",
        run.stderr
    );
    assert_no_debug_output(&run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn usage_errors_exit_2() {
    let file = Fixture::Writer.file();
    let file = path_str(&file.0);
    assert_usage_error(&["csv", file, "--bogus"], "--bogus");
    assert_usage_error(&["csv", "--bogus", file], "--bogus");
    assert_usage_error(&["jsonl", file, "-x"], "-x");
    assert_usage_error(&["frobnicate", file], "frobnicate");
    assert_usage_error(&["csv", file, "--all"], "--output");
    assert_usage_error(
        &["csv", file, "--all", "-o", "x", "--sheet", "Data"],
        "--sheet",
    );
    assert_usage_error(
        &["jsonl", file, "--no-header", "--header-row", "2"],
        "--no-header",
    );
    assert_usage_error(&["csv", file, "--max-rows", "many"], "many");
    assert_usage_error(&["csv", file, "--threads", "-1"], "-1");
    assert_usage_error(&["csv"], "<FILE>");
    // No command at all: the help, on stderr, and exit 2.
    let run = sheetstream(&[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr
            .contains("Usage: sheetstream [OPTIONS] <COMMAND>"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("3  the output could not be written"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

/// `--help` documents the exit codes, and `--version` prints the version;
/// both on standard output, exit 0.
#[test]
fn help_and_version() {
    let run = sheetstream(&["--help"]);
    let help = assert_ok(&run, &["--help"]);
    for line in [
        "0  success",
        "1  the workbook could not be read",
        "2  bad usage",
        "3  the output could not be written",
    ] {
        assert!(help.contains(line), "--help lacks {line:?}:\n{help}");
    }
    for command in ["sheets", "csv", "jsonl", "stats", "count", "cells"] {
        let args = [command, "--help"];
        let run = sheetstream(&args);
        assert!(assert_ok(&run, &args).contains("Usage: sheetstream "));
    }
    let run = sheetstream(&["--version"]);
    assert_eq!(
        assert_ok(&run, &["--version"]),
        format!("sheetstream {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// A path under a missing folder, under a regular file, or in a folder
/// that may not be written: exit 3, nothing left behind.
#[test]
fn unwritable_output_exits_3() {
    let file = Fixture::Writer.file();
    let file = path_str(&file.0);
    let dir = temp_dir("cli-unwritable");
    let regular = dir.0.join("regular");
    std::fs::write(&regular, "not a folder").unwrap();
    let under_file = regular.join("x.csv");
    let mut cases: Vec<Vec<&str>> = vec![
        vec!["csv", file, "-o", "/nonexistent/dir/x.csv"],
        vec!["jsonl", file, "-o", "/nonexistent/dir/x.jsonl"],
        vec!["csv", file, "-o", path_str(&under_file)],
        vec!["csv", file, "--all", "-o", path_str(&under_file)],
        vec!["csv", file, "--all", "-o", path_str(&regular)],
        vec!["jsonl", file, "-o", path_str(&under_file)],
        // A folder where a file should be.
        vec!["csv", file, "-o", path_str(&dir.0)],
    ];
    // A read-only folder, where permissions apply (not to root).
    let read_only = dir.0.join("read-only");
    std::fs::create_dir(&read_only).unwrap();
    let in_read_only = read_only.join("x.csv");
    let all_in_read_only = read_only.join("sub");
    if make_read_only(&read_only) {
        cases.push(vec!["csv", file, "-o", path_str(&in_read_only)]);
        cases.push(vec![
            "csv",
            file,
            "--all",
            "-o",
            path_str(&all_in_read_only),
        ]);
    } else {
        println!("a read-only folder is writable here (root?): that case is left out");
    }
    for args in &cases {
        let run = sheetstream(args);
        assert_eq!(run.code, Some(3), "{args:?}: {run:?}");
        assert_one_line_message(&run);
        assert!(
            run.stderr.contains(args[args.len() - 1]),
            "the message names the path: {}",
            run.stderr
        );
        assert_eq!(run.stdout, "");
    }
    set_mode(&read_only, 0o755);
}

/// Makes a folder read-only; whether that stops this process writing in it.
#[cfg(unix)]
fn make_read_only(folder: &Path) -> bool {
    set_mode(folder, 0o555);
    std::fs::write(folder.join("probe"), "").is_err()
}

#[cfg(not(unix))]
fn make_read_only(_folder: &Path) -> bool {
    false
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) {}

/// A workbook that cannot be read wins over an output that cannot be
/// written: nothing is created.
#[test]
fn unreadable_workbook_creates_no_output() {
    let dir = temp_dir("cli-no-output");
    let missing = dir.0.join("missing.xlsx");
    let out = dir.0.join("out.csv");
    let run = sheetstream(&["csv", path_str(&missing), "-o", path_str(&out)]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(!out.exists());
}

/// A sheet large enough that its output overruns the pipe and the tool's
/// buffers many times over.
fn large_workbook() -> Vec<u8> {
    let mut rows = String::with_capacity(8 << 20);
    for row in 1..=40_000 {
        rows.push_str(&format!(
            r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c><c r="B{row}" t="inlineStr"><is><t>text, "quoted" {row}</t></is></c><c r="C{row}"><v>{}</v></c><c r="D{row}" t="b"><v>1</v></c></row>"#,
            row as f64 / 7.0
        ));
    }
    book().sheet("Large", sheet_xml(&rows)).build()
}

/// Runs the tool with its output into a pipe that is closed after the
/// first line; returns the exit code and stderr.
fn run_into_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(
        !first.is_empty(),
        "{args:?}: no output before the pipe closed"
    );
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn check_closed_pipe(commands: &[&[&str]]) {
    let file = temp_file("large", &large_workbook());
    for command in commands {
        for threads in ["1", "2"] {
            let mut args = command.to_vec();
            args.extend([path_str(&file.0), "--threads", threads]);
            let (code, stderr) = run_into_closed_pipe(&args);
            assert_no_debug_output(&stderr);
            assert!(
                code == Some(0) || (stderr.is_empty() && code.is_some()),
                "{args:?}: exit {code:?}, stderr {stderr:?}"
            );
        }
    }
}

#[test]
fn closed_pipe_is_quiet_jsonl_and_cells() {
    check_closed_pipe(&[&["jsonl"], &["cells"]]);
}

#[test]
fn closed_pipe_is_quiet_csv() {
    check_closed_pipe(&[&["csv"], &["csv", "--tsv"]]);
}

/// The large sheet in full: every row there once, `--max-rows` honoured.
#[test]
fn large_sheet_in_full() {
    let file = temp_file("large", &large_workbook());
    let printed = run_threads(&["csv", path_str(&file.0)]);
    assert_eq!(printed.lines().count(), 40_000);
    assert_eq!(
        printed.lines().nth(6).unwrap(),
        r#"7,"text, ""quoted"" 7",1,TRUE"#
    );
    let limited = run_threads(&["csv", path_str(&file.0), "--no-header", "--max-rows", "5"]);
    assert_eq!(limited.lines().count(), 5);
    assert!(printed.starts_with(&limited));
    let jsonl = run_threads(&["jsonl", path_str(&file.0), "--no-header", "--max-rows", "3"]);
    assert_eq!(
        jsonl,
        concat!(
            "{\"A\":1,\"B\":\"text, \\\"quoted\\\" 1\",\"C\":0.14285714285714285,\"D\":true}\n",
            "{\"A\":2,\"B\":\"text, \\\"quoted\\\" 2\",\"C\":0.2857142857142857,\"D\":true}\n",
            "{\"A\":3,\"B\":\"text, \\\"quoted\\\" 3\",\"C\":0.42857142857142855,\"D\":true}\n",
        )
    );
}

// ---------------------------------------------------------------------------
// 3. The conformance corpus
// ---------------------------------------------------------------------------

fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus");
    root.is_dir().then_some(root)
}

/// The newest modification time of the files under `path`.
fn newest(path: &Path) -> SystemTime {
    let metadata = std::fs::metadata(path).unwrap();
    if !metadata.is_dir() {
        return metadata.modified().unwrap();
    }
    std::fs::read_dir(path)
        .unwrap()
        .map(|entry| newest(&entry.unwrap().path()))
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// The release binary when it is newer than the sources, else the one
/// Cargo built for the tests.
fn corpus_binary() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let test_built = PathBuf::from(env!("CARGO_BIN_EXE_sheetstream"));
    // TARGET/debug/sheetstream beside TARGET/release/sheetstream.
    let release = test_built
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("release")
        .join(test_built.file_name().unwrap());
    let sources = ["src", "Cargo.toml", "Cargo.lock"]
        .iter()
        .map(|part| newest(&manifest.join(part)))
        .max()
        .unwrap();
    match std::fs::metadata(&release).and_then(|m| m.modified()) {
        Ok(built) if built > sources => release,
        _ => test_built,
    }
}

/// Workbooks with an expected dump, sorted by path.
fn corpus_cases(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    common::corpus_workbooks(root)
        .into_iter()
        .filter_map(|path| {
            let mut dump = path.with_extension("").into_os_string();
            dump.push(".cells.jsonl.gz");
            let dump = PathBuf::from(dump);
            dump.exists().then_some((path, dump))
        })
        .collect()
}

/// What a corpus workbook came to.
enum Outcome {
    /// The CSV matched; with the number of empty records after the last
    /// cell's row (row elements without values, which the dump cannot show).
    Pass {
        trailing_empty: usize,
    },
    /// The dump has no cells: the default sheet printed only empty records
    /// (or the workbook has no worksheet).
    NoCells,
    /// Cells out of order or repeated in the first sheet's dump, or two
    /// sheets of one name: the grid is ambiguous.
    Ambiguous,
    Fail(String),
}

/// One line of a dump.
#[derive(serde::Deserialize)]
struct DumpLine<'a> {
    #[serde(borrow)]
    sheet: std::borrow::Cow<'a, str>,
    #[serde(rename = "ref")]
    reference: &'a str,
    t: &'a str,
    v: Json,
}

/// Column and row (both from 0) of an A1 reference.
fn parse_ref(reference: &str) -> (u32, u32) {
    let letters = reference
        .bytes()
        .take_while(u8::is_ascii_alphabetic)
        .count();
    let column = reference[..letters].bytes().fold(0u32, |n, b| {
        n * 26 + u32::from(b.to_ascii_uppercase() - b'A' + 1)
    }) - 1;
    let row: u32 = reference[letters..].parse().expect("a row number");
    (column, row - 1)
}

/// A number as the tool writes it: shortest round trip, with an exponent
/// outside [1e-5, 1e16).
fn number_text(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude == 0.0 || (1e-5..1e16).contains(&magnitude) {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// The expected CSV field of a dump line.
fn field_text(t: &str, v: &Json) -> String {
    match (t, v) {
        ("n", Json::Number(number)) => number_text(number.as_f64().expect("a finite number")),
        ("s" | "e", Json::String(text)) => text.clone(),
        ("b", Json::Bool(flag)) => if *flag { "TRUE" } else { "FALSE" }.into(),
        ("d", Json::String(iso)) => iso.strip_suffix("T00:00:00").unwrap_or(iso).to_owned(),
        _ => panic!("unexpected dump value: t={t} v={v}"),
    }
}

/// The first sheet of a dump and its grid, or why there is none.
fn expected_grid(text: &str) -> Result<(String, Vec<Vec<String>>), Outcome> {
    let mut sheet: Option<String> = None;
    let mut grid: Vec<Vec<String>> = Vec::new();
    let mut last: Option<(u32, u32)> = None;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let line: DumpLine = serde_json::from_str(line).unwrap();
        match &sheet {
            None => sheet = Some(line.sheet.clone().into_owned()),
            Some(first) if *first != line.sheet => {
                if sheet_comes_back(text, first, &line.sheet) {
                    return Err(Outcome::Ambiguous);
                }
                break;
            }
            Some(_) => {}
        }
        let (column, row) = parse_ref(line.reference);
        // Rows ascending and cells left to right, each cell once.
        if last.is_some_and(|(last_row, last_column)| (row, column) <= (last_row, last_column)) {
            return Err(Outcome::Ambiguous);
        }
        last = Some((row, column));
        let (row, column) = (row as usize, column as usize);
        if grid.len() <= row {
            grid.resize(row + 1, Vec::new());
        }
        let record = &mut grid[row];
        if record.len() <= column {
            record.resize(column + 1, String::new());
        }
        record[column] = field_text(line.t, &line.v);
    }
    let sheet = sheet.ok_or(Outcome::NoCells)?;
    // A row whose one cell is an empty string in A is, in CSV, the same
    // record as an empty row (see `fields`).
    for record in &mut grid {
        if record.len() == 1 && record[0].is_empty() {
            record.clear();
        }
    }
    Ok((sheet, grid))
}

/// Whether the first sheet's name comes back after another sheet's lines
/// (two sheets of one name): then `--sheet` cannot tell them apart.
fn sheet_comes_back(text: &str, first: &str, second: &str) -> bool {
    let first = format!("{{\"sheet\":{}", Json::String(first.into()));
    let second = format!("{{\"sheet\":{}", Json::String(second.into()));
    text.find(&second)
        .is_some_and(|at| text[at..].contains(&first))
}

/// A record without its trailing empty fields.
fn trimmed(want: &[String]) -> Vec<&str> {
    let mut want: Vec<&str> = want.iter().map(String::as_str).collect();
    while want.last() == Some(&"") {
        want.pop();
    }
    want
}

/// Whether a CSV record matches the dump's: field by field equal, or a
/// time of day or duration (`13:45:00`, `255:10:10`, `-01:30:00`) where the
/// dump, which does not tell them from dates, has the date-time or number
/// it stands for (see [`clock_matches`]).
fn fields_match(want: &[&str], got: &[&str]) -> bool {
    want.len() == got.len()
        && want
            .iter()
            .zip(got)
            .all(|(want, got)| want == got || clock_matches(want, got))
}

/// Milliseconds of a `[-]HH:MM:SS[.mmm]` clock, hours past 24 allowed.
fn clock_ms(text: &str) -> Option<i64> {
    let (sign, text) = match text.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, text),
    };
    let (clock, ms) = match text.split_once('.') {
        Some((clock, ms)) if ms.len() == 3 => (clock, ms.parse::<i64>().ok()?),
        Some(_) => return None,
        None => (text, 0),
    };
    let mut parts = clock.split(':');
    let hours: i64 = parts.next()?.parse().ok()?;
    let minutes: i64 = parts.next().filter(|m| m.len() == 2)?.parse().ok()?;
    let seconds: i64 = parts.next().filter(|s| s.len() == 2)?.parse().ok()?;
    (parts.next().is_none() && minutes < 60 && seconds < 60)
        .then_some(sign * (((hours * 60 + minutes) * 60 + seconds) * 1000 + ms))
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn civil_days(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Whether a clock the CSV wrote for a time or duration cell stands for
/// the dump's value: a number (a negative duration, which the dump writes
/// as its serial) of the same milliseconds, or a date-time with the same
/// time of day and, for a duration, as many whole days since the 1900 or
/// 1904 epoch (a time of day shows none).
fn clock_matches(want: &str, got: &str) -> bool {
    let Some(ms) = clock_ms(got) else {
        return false;
    };
    if let Ok(serial) = want.parse::<f64>() {
        return (serial * 86_400_000.0).round() as i64 == ms;
    }
    let (date, time) = want.split_once('T').unwrap_or((want, "00:00:00"));
    let (Some(day_ms), Some(date)) = (clock_ms(time), date.get(..10)) else {
        return false;
    };
    let part = |range: std::ops::Range<usize>| date.get(range)?.parse::<i64>().ok();
    let (Some(year), Some(month), Some(day)) = (part(0..4), part(5..7), part(8..10)) else {
        return false;
    };
    let days = civil_days(year, month, day);
    let epochs = [
        civil_days(1899, 12, 31),
        civil_days(1899, 12, 30),
        civil_days(1904, 1, 1),
    ];
    ms.rem_euclid(86_400_000) == day_ms
        && (ms < 86_400_000
            || epochs
                .iter()
                .any(|epoch| (days - epoch) * 86_400_000 + day_ms == ms))
}

/// A CSV record's fields; a lone empty field is how CSV writes a record
/// with no fields, and counts as none.
fn fields(record: &csv::StringRecord) -> Vec<&str> {
    if record.len() == 1 && record[0].is_empty() {
        Vec::new()
    } else {
        record.iter().collect()
    }
}

fn short_record<T: std::fmt::Debug>(record: &[T]) -> String {
    let text = format!("{record:?}");
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// Runs `csv --sheet` on one workbook and compares with its dump.
fn corpus_case(bin: &Path, workbook: &Path, dump: &Path, threads: &str) -> Outcome {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(dump).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let (sheet, expected) = match expected_grid(&text) {
        Ok(found) => found,
        Err(Outcome::NoCells) => return no_cells_case(bin, workbook, threads),
        Err(outcome) => return outcome,
    };
    drop(text);
    let args = [
        "csv",
        path_str(workbook),
        "--sheet",
        &sheet,
        "--threads",
        threads,
    ];
    let run = run_bin_args(bin, &args);
    if run.code != Some(0) || !run.stderr.is_empty() {
        return Outcome::Fail(format!("exit {:?}: {}", run.code, run.stderr.trim_end()));
    }
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(false)
        .from_reader(run.stdout.as_bytes());
    let mut record = csv::StringRecord::new();
    let mut row = 0;
    let mut trailing_empty = 0;
    let mut width = 0;
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(err) => return Outcome::Fail(format!("unreadable CSV: {err}")),
        }
        // Records are as wide as the widest so far (the dimension, the
        // rows before, the row after an empty one): never narrower.
        if record.len() < width {
            return Outcome::Fail(format!(
                "record {} has {} fields after one of {width}",
                row + 1,
                record.len()
            ));
        }
        width = record.len();
        let mut got = fields(&record);
        while got.last() == Some(&"") {
            got.pop();
        }
        match expected.get(row) {
            Some(want) if fields_match(&trimmed(want), &got) => {}
            None if got.is_empty() => trailing_empty += 1,
            want => {
                return Outcome::Fail(format!(
                    "sheet {sheet:?}, {} records expected; record {}: expected {}, got {}",
                    expected.len(),
                    row + 1,
                    want.map_or("none".into(), |want| short_record(want)),
                    short_record(&got),
                ));
            }
        }
        row += 1;
    }
    if row < expected.len() {
        return Outcome::Fail(format!(
            "sheet {sheet:?}: {} records expected, {row} got",
            expected.len()
        ));
    }
    Outcome::Pass { trailing_empty }
}

/// A workbook whose dump has no cells: its default sheet must print only
/// empty records, or the tool must say it has no worksheet.
fn no_cells_case(bin: &Path, workbook: &Path, threads: &str) -> Outcome {
    let args = ["csv", path_str(workbook), "--threads", threads];
    let run = run_bin_args(bin, &args);
    match run.code {
        Some(0)
            if run
                .stdout
                .lines()
                .all(|line| line.is_empty() || line == "\"\"") =>
        {
            Outcome::NoCells
        }
        Some(2) if run.stderr == "sheetstream: the workbook has no worksheet\n" => Outcome::NoCells,
        _ => Outcome::Fail(format!(
            "no cells expected; exit {:?}, stdout {:?}, stderr {:?}",
            run.code,
            short_record(&run.stdout.lines().take(5).collect::<Vec<_>>()),
            run.stderr.trim_end()
        )),
    }
}

/// The first sheet named in each dump, through `csv --sheet NAME`, against
/// the grid rebuilt from the dump: row i = Excel row i + 1, field j =
/// column j, each record as long as its last cell, empty rows as empty
/// records (CSV's `""`, which is also a row holding one empty string in A).
/// Empty records after the last cell's row are counted, not failed (the
/// dump cannot show row elements without values; see
/// `rows_without_values_csv_ends_at_the_last_value`). Dumps with cells out
/// of order or repeated, or two sheets of one name, are skipped and
/// counted; dumps without cells check that the default sheet prints only
/// empty records. The release binary runs when it is newer than the
/// sources (else the test-built one), two processes at a time, cases
/// alternating between `--threads 1` and `--threads 2`.
#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn corpus_first_sheet_as_csv() {
    let Some(root) = corpus_root() else {
        common::skip_notice("corpus_first_sheet_as_csv", "../shared/conformance/corpus");
        return;
    };
    let bin = corpus_binary();
    let cases = corpus_cases(&root);
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some((workbook, dump)) = cases.get(index) else {
                        break;
                    };
                    let threads = if index.is_multiple_of(2) { "1" } else { "2" };
                    let outcome = corpus_case(&bin, workbook, dump, threads);
                    results.lock().unwrap().push((index, outcome));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(index, _)| *index);
    let (mut passed, mut no_cells, mut ambiguous) = (0, 0, 0);
    let mut trailing = Vec::new();
    let mut failures = Vec::new();
    for (index, outcome) in results {
        let name = cases[index].0.strip_prefix(&root).unwrap().display();
        match outcome {
            Outcome::Pass { trailing_empty } => {
                passed += 1;
                if trailing_empty > 0 {
                    trailing.push(format!("{name} ({trailing_empty})"));
                }
            }
            Outcome::NoCells => no_cells += 1,
            Outcome::Ambiguous => ambiguous += 1,
            Outcome::Fail(why) => failures.push(format!("{name}: {why}")),
        }
    }
    println!(
        "corpus csv ({}): {} workbooks: {passed} passed ({} with empty records after the last \
         cell), {no_cells} without cells (default sheet empty), {ambiguous} skipped (cells out \
         of order or repeated), {} failed, in {:.1} s",
        bin.display(),
        cases.len(),
        trailing.len(),
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    if std::env::var_os("CLI_CORPUS_VERBOSE").is_some() {
        println!("empty records after the last cell: {}", trailing.join(", "));
    }
    assert!(
        failures.is_empty(),
        "{} workbooks failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
