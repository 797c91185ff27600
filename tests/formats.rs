//! Cell text through its number format, end to end: a workbook written by
//! rust_xlsxwriter with the formats, read back through the library
//! (`Cell::formatted_into`) and the CLI (`csv`, `jsonl`, `cells` with
//! `--formatted`), and the plain output left as it was.

use crate::common;

use common::{run_cli_args, temp_file};
use rust_xlsxwriter::{Format, Workbook as XlsxWorkbook};
use sheetstream::{Value, Workbook};

/// Row 1: headers. Row 2: 501 as `00000`, 0.125 as `0.0%`, 1234.5 as
/// `$#,##0.00`, 45000.75 as `yyyy-mm-dd hh:mm`, 1.5 as `[h]:mm`, text
/// through `"<"@">"`, a bool and General numbers.
fn formatted_workbook() -> Vec<u8> {
    let mut workbook = XlsxWorkbook::new();
    let sheet = workbook.add_worksheet();
    sheet.set_name("Data").unwrap();
    for (column, header) in [
        "zip", "rate", "amount", "when", "hours", "tag", "ok", "plain",
    ]
    .iter()
    .enumerate()
    {
        sheet.write_string(0, column as u16, *header).unwrap();
    }
    let cases: [(f64, &str); 5] = [
        (501.0, "00000"),
        (0.125, "0.0%"),
        (1234.5, "$#,##0.00"),
        (45_000.75, "yyyy-mm-dd hh:mm"),
        (1.5, "[h]:mm"),
    ];
    for (column, (number, code)) in cases.iter().enumerate() {
        let format = Format::new().set_num_format(*code);
        sheet
            .write_number_with_format(1, column as u16, *number, &format)
            .unwrap();
    }
    let tagged = Format::new().set_num_format("\"<\"@\">\"");
    sheet
        .write_string_with_format(1, 5, "north", &tagged)
        .unwrap();
    sheet.write_boolean(1, 6, true).unwrap();
    sheet.write_number(1, 7, 2.0 / 3.0).unwrap();
    // Row 3: a negative amount, a zero rate, a number past General's digits.
    let amount = Format::new().set_num_format("$#,##0.00;[Red]($#,##0.00)");
    sheet
        .write_number_with_format(2, 2, -1234.5, &amount)
        .unwrap();
    sheet.write_number(2, 7, 123_456_789_012.0).unwrap();
    workbook.save_to_buffer().unwrap()
}

const ROW_2: [&str; 8] = [
    "00501",
    "12.5%",
    "$1,234.50",
    "2023-03-15 18:00",
    "36:00",
    "<north>",
    "TRUE",
    "0.666666667",
];

#[test]
fn library_renders_each_cell_through_its_style() {
    let mut workbook = Workbook::from_bytes(formatted_workbook()).unwrap();
    let formats = workbook.number_formats().clone();
    let mut rows = workbook.rows("Data").unwrap();
    let header = rows.next_row().unwrap().unwrap();
    assert_eq!(header.cells()[0].formatted(&formats), "zip");
    let row = rows.next_row().unwrap().unwrap();
    let mut text = String::new();
    let mut texts = Vec::new();
    for cell in row.cells() {
        text.clear();
        cell.formatted_into(&formats, &mut text);
        texts.push(text.clone());
    }
    assert_eq!(texts, ROW_2);
    // The value itself is unchanged.
    assert_eq!(row.cells()[0].value(), Value::Number(501.0));
    let row = rows.next_row().unwrap().unwrap();
    let texts: Vec<String> = row.cells().iter().map(|c| c.formatted(&formats)).collect();
    assert_eq!(texts, ["($1,234.50)", "1.23457E+11"]);
    // A style past the table is General.
    assert_eq!(formats.for_style(10_000).code(), "");
}

#[test]
fn cli_csv_formatted_and_plain() {
    let file = temp_file("formats", &formatted_workbook());
    let path = file.0.to_str().unwrap();
    let run = run_cli_args(&["csv", "--formatted", path]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "zip,rate,amount,when,hours,tag,ok,plain");
    assert_eq!(
        lines[1],
        "00501,12.5%,\"$1,234.50\",2023-03-15 18:00,36:00,<north>,TRUE,0.666666667"
    );
    assert_eq!(lines[2], ",,\"($1,234.50)\",,,,,1.23457E+11");
    // Off by default: the values as before.
    let plain = run_cli_args(&["csv", path]);
    let lines: Vec<&str> = plain.stdout.lines().collect();
    assert!(
        lines[1].starts_with("501,0.125,1234.5,2023-03-15T18:00:00"),
        "{}",
        lines[1]
    );
}

#[test]
fn cli_jsonl_and_cells_formatted() {
    let file = temp_file("formats", &formatted_workbook());
    let path = file.0.to_str().unwrap();
    let run = run_cli_args(&["jsonl", "--formatted", path]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let first: serde_json::Value =
        serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["zip"], "00501");
    assert_eq!(first["rate"], "12.5%");
    assert_eq!(first["ok"], "TRUE");
    let plain = run_cli_args(&["jsonl", path]);
    let first: serde_json::Value =
        serde_json::from_str(plain.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["zip"], 501.0);

    let run = run_cli_args(&["cells", "--formatted", path]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let zip: serde_json::Value = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|cell| cell["ref"] == "A2")
        .unwrap();
    assert_eq!(zip["v"], 501.0);
    assert_eq!(zip["text"], "00501");
    let plain = run_cli_args(&["cells", path]);
    assert!(!plain.stdout.contains("\"text\""));
}

/// Time-of-day and elapsed-time cells (issue 15): a workbook with one
/// column per case under a header row. 13:45 as `h:mm`, 13:45:30 as
/// `h:mm:ss AM/PM`, 10 days 15:10:10 as `[h]:mm:ss`, 90.5 seconds as
/// `[mm]:ss`, minus 1.5 hours as `[h]:mm:ss`, 12:30:00.250 as `h:mm:ss`,
/// 2024-03-01 18:00 as `h:mm` (a date part the format does not show, which
/// the values keep: no date is dropped unasked), and a plain date for
/// comparison.
fn clock_workbook() -> Vec<u8> {
    let mut workbook = XlsxWorkbook::new();
    let sheet = workbook.add_worksheet();
    sheet.set_name("Clock").unwrap();
    let cases: [(&str, f64, &str); 8] = [
        ("time", (13.0 * 60.0 + 45.0) / 1440.0, "h:mm"),
        (
            "ampm",
            (13.0 * 3600.0 + 45.0 * 60.0 + 30.0) / 86_400.0,
            "h:mm:ss AM/PM",
        ),
        (
            "elapsed",
            10.0 + (15.0 * 3600.0 + 10.0 * 60.0 + 10.0) / 86_400.0,
            "[h]:mm:ss",
        ),
        ("minutes", 90.5 / 86_400.0, "[mm]:ss"),
        ("late", -1.5 / 24.0, "[h]:mm:ss"),
        ("precise", (12.5 * 3600.0 + 0.25) / 86_400.0, "h:mm:ss"),
        ("dated", 45_352.75, "h:mm"),
        ("day", 45_352.0, "yyyy-mm-dd"),
    ];
    for (column, (header, number, code)) in cases.iter().enumerate() {
        sheet.write_string(0, column as u16, *header).unwrap();
        let format = Format::new().set_num_format(*code);
        sheet
            .write_number_with_format(1, column as u16, *number, &format)
            .unwrap();
    }
    workbook.save_to_buffer().unwrap()
}

/// What `csv` writes for the cases of [`clock_workbook`].
const CLOCK_TEXT: [&str; 8] = [
    "13:45:00",
    "13:45:30",
    "255:10:10",
    "00:01:30.500",
    "-01:30:00",
    "12:30:00.250",
    "2024-03-01T18:00:00",
    "2024-03-01",
];

#[test]
fn time_and_duration_values_display_as_times() {
    use sheetstream::{DateTime, DateTimeKind};
    let mut workbook = Workbook::from_bytes(clock_workbook()).unwrap();
    let mut rows = workbook.rows("Clock").unwrap();
    rows.next_row().unwrap();
    let row = rows.next_row().unwrap().unwrap();
    let kinds: Vec<DateTimeKind> = row
        .cells()
        .iter()
        .map(|cell| match cell.value() {
            Value::DateTime(date) => date.kind(),
            other => panic!("{other:?} is not a date"),
        })
        .collect();
    use DateTimeKind::{Date, Duration, Time};
    // The dated time keeps its date: a date-time, not a time of day.
    assert_eq!(
        kinds,
        [Time, Time, Duration, Duration, Duration, Time, Date, Date]
    );
    let texts: Vec<String> = row.cells().iter().map(|c| c.value().to_string()).collect();
    assert_eq!(texts, CLOCK_TEXT);
    // The serial is kept as it was: only the text changes.
    let Value::DateTime(dated) = row.cells()[6].value() else {
        unreachable!()
    };
    assert_eq!(dated.serial(), 45_352.75);
    assert_eq!(
        dated,
        DateTime::from_serial(45_352.75, sheetstream::DateSystem::V1900).with_kind(Date)
    );
    // The materialised sheet keeps the kind.
    drop(rows);
    let sheet = workbook.load_sheet("Clock").unwrap();
    let texts: Vec<String> = (0..8)
        .map(|column| sheet.get(1, column).unwrap().to_string())
        .collect();
    assert_eq!(texts, CLOCK_TEXT);
}

#[cfg(feature = "serde")]
#[test]
fn time_and_duration_strings_deserialise_as_the_csv_writes_them() {
    #[derive(serde::Deserialize)]
    struct Clock {
        time: String,
        ampm: String,
        elapsed: String,
        minutes: String,
        late: String,
        precise: String,
        dated: String,
        day: String,
    }
    let mut workbook = Workbook::from_bytes(clock_workbook()).unwrap();
    let mut records = workbook.deserialize("Clock").unwrap();
    let records: Vec<Clock> = records.iter().collect::<Result<_, _>>().unwrap();
    let clock = &records[0];
    let got = [
        &clock.time,
        &clock.ampm,
        &clock.elapsed,
        &clock.minutes,
        &clock.late,
        &clock.precise,
        &clock.dated,
        &clock.day,
    ];
    assert_eq!(got, CLOCK_TEXT);
}

#[test]
fn cli_writes_times_and_durations() {
    let file = temp_file("clock", &clock_workbook());
    let path = file.0.to_str().unwrap();
    let run = run_cli_args(&["csv", path]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[1], CLOCK_TEXT.join(","));
    // `--date-format` is for dates; times and durations keep their form.
    let run = run_cli_args(&["csv", "--date-format", "%d/%m/%Y", path]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let mut expected = CLOCK_TEXT;
    expected[6] = "01/03/2024";
    expected[7] = "01/03/2024";
    assert_eq!(lines[1], expected.join(","));
    // JSON Lines: strings.
    let run = run_cli_args(&["jsonl", path]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let first: serde_json::Value =
        serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["time"], "13:45:00");
    assert_eq!(first["elapsed"], "255:10:10");
    assert_eq!(first["late"], "-01:30:00");
    assert_eq!(first["day"], "2024-03-01");
    // With `--formatted`, the format's own text: `[mm]:ss` rounds to the
    // second as Excel does, and a negative time, which Excel shows as
    // `####`, is General.
    let run = run_cli_args(&["csv", "--formatted", path]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[1],
        "13:45,1:45:30 PM,255:10:10,01:31,-0.0625,12:30:00,18:00,2024-03-01"
    );
    // The `cells` dump (../shared/conformance/FORMAT.md) keeps its form: a
    // serial with a date to show is `"t":"d"` with its ISO text, one with
    // none (the negative duration) is `"t":"n"` with its number.
    let run = run_cli_args(&["cells", path]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let cells: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let cell = |reference: &str| {
        cells
            .iter()
            .find(|cell| cell["ref"] == reference)
            .unwrap_or_else(|| panic!("no {reference} in {}", run.stdout))
    };
    assert_eq!(cell("C2")["t"], "d");
    assert_eq!(cell("C2")["v"], "1900-01-10T15:10:10");
    assert_eq!(cell("E2")["t"], "n");
    assert_eq!(cell("E2")["v"], -0.0625);
}

/// The Arrow layer types the same cells Time32 and Duration, with the same
/// values the text stands for; the dated time is a Timestamp, its date
/// kept.
#[cfg(feature = "arrow")]
#[test]
fn arrow_times_and_durations_agree_with_the_text() {
    use sheetstream::arrow::ArrowOptions;
    use sheetstream::arrow::arrow_array::{
        Array, DurationMillisecondArray, Time32MillisecondArray,
    };
    let mut workbook = Workbook::from_bytes(clock_workbook()).unwrap();
    let mut batches = ArrowOptions::new().read_sheet(&mut workbook, 0).unwrap();
    let batch = batches.next().unwrap().unwrap();
    let time = |name: &str| {
        batch
            .column_by_name(name)
            .unwrap()
            .as_any()
            .downcast_ref::<Time32MillisecondArray>()
            .unwrap_or_else(|| panic!("{name} is not Time32"))
            .value(0)
    };
    let duration = |name: &str| {
        batch
            .column_by_name(name)
            .unwrap()
            .as_any()
            .downcast_ref::<DurationMillisecondArray>()
            .unwrap_or_else(|| panic!("{name} is not Duration"))
            .value(0)
    };
    assert_eq!(time("time"), (13 * 60 + 45) * 60_000);
    assert_eq!(time("ampm"), ((13 * 60 + 45) * 60 + 30) * 1000);
    assert_eq!(time("precise"), (12 * 3600 + 30 * 60) * 1000 + 250);
    let dated = batch
        .column_by_name("dated")
        .unwrap()
        .as_any()
        .downcast_ref::<sheetstream::arrow::arrow_array::TimestampMillisecondArray>()
        .expect("dated is a Timestamp")
        .value(0);
    // 2024-03-01T18:00:00: 19,783 days after 1970-01-01, and 18 hours.
    assert_eq!(dated, 19_783 * 86_400_000 + 18 * 3_600_000);
    assert_eq!(duration("elapsed"), ((255 * 60 + 10) * 60 + 10) * 1000);
    assert_eq!(duration("minutes"), 90_500);
    assert_eq!(duration("late"), -5_400_000);
}

/// `DeserializeOptions::formatted(true)`: `String` and `&str` fields get the
/// text Excel shows, other fields their values; without it, as before.
#[cfg(feature = "serde")]
#[test]
fn serde_string_fields_get_the_displayed_text_on_request() {
    use sheetstream::DeserializeOptions;
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Shown<'a> {
        zip: String,
        rate: &'a str,
        amount: String,
        when: String,
        hours: f64,
        tag: String,
        ok: bool,
        plain: Option<String>,
    }
    let mut workbook = Workbook::from_bytes(formatted_workbook()).unwrap();
    let mut records = workbook
        .deserialize_with("Data", DeserializeOptions::new().formatted(true))
        .unwrap();
    let first: Shown = records.next_row().unwrap().unwrap();
    assert_eq!(
        first,
        Shown {
            zip: "00501".into(),
            rate: "12.5%",
            amount: "$1,234.50".into(),
            when: "2023-03-15 18:00".into(),
            hours: 1.5,
            tag: "<north>".into(),
            ok: true,
            plain: Some("0.666666667".into()),
        }
    );
    // Positional tuples too; an empty cell is still None.
    drop(records);
    let options = DeserializeOptions::new().formatted(true);
    let rows: Vec<(Option<String>, Option<String>, String)> = workbook
        .deserialize_with("Data", options)
        .unwrap()
        .iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows[1], (None, None, "($1,234.50)".to_owned()));
    // Without the request: the values' text, as the CSV writes them.
    let mut records = workbook.deserialize("Data").unwrap();
    let first: (String, String, String) = records.next_row().unwrap().unwrap();
    assert_eq!(
        first,
        ("501".to_owned(), "0.125".to_owned(), "1234.5".to_owned())
    );
}

/// The in-memory `Sheet` gives each cell's text as Excel shows it, through
/// `load_sheet` and `load_all`, and keeps the style of each cell.
#[test]
fn sheet_lookup_gives_the_displayed_text() {
    let mut workbook = Workbook::from_bytes(formatted_workbook()).unwrap();
    let sheet = workbook.load_sheet("Data").unwrap();
    let texts: Vec<String> = (0..8).map(|c| sheet.formatted(1, c).unwrap()).collect();
    assert_eq!(texts, ROW_2);
    assert_eq!(sheet.formatted_a1("C3").as_deref(), Some("($1,234.50)"));
    assert_eq!(sheet.formatted_a1("A1").as_deref(), Some("zip"));
    assert_eq!(sheet.formatted_a1("A3"), None);
    assert_eq!(sheet.get_a1("A2"), Some(Value::Number(501.0)));
    let mut text = String::from(">");
    assert!(sheet.formatted_into(1, 1, &mut text));
    assert_eq!(text, ">12.5%");
    assert!(!sheet.formatted_into(9, 9, &mut text));
    assert_eq!(text, ">12.5%");
    // Styles: the header (unstyled) is 0, the formatted cells are not.
    assert_eq!(sheet.style(0, 0), Some(0));
    assert_ne!(sheet.style(1, 0), Some(0));
    assert_eq!(sheet.style(5, 5), None);
    let row = sheet.row(1).unwrap();
    assert_eq!(row.formatted(4).as_deref(), Some("36:00"));
    let all = workbook.load_all().unwrap();
    assert_eq!(all[0].formatted(1, 2).as_deref(), Some("$1,234.50"));
    // Clock cells through the sheet: the format's text.
    let mut clock = Workbook::from_bytes(clock_workbook()).unwrap();
    let sheet = clock.load_sheet(0).unwrap();
    assert_eq!(sheet.formatted(1, 2).as_deref(), Some("255:10:10"));
    assert_eq!(sheet.formatted(1, 1).as_deref(), Some("1:45:30 PM"));
}

/// A sheet built by hand, out of order: the styles follow their cells
/// through the sort, and without number formats every number is General.
#[test]
fn sheet_builder_styles_follow_the_sort() {
    use sheetstream::SheetBuilder;
    let workbook = Workbook::from_bytes(formatted_workbook()).unwrap();
    let formats = workbook.number_formats().clone();
    // Read the styled row 2 and the header, push them in reverse order.
    let mut workbook = Workbook::from_bytes(formatted_workbook()).unwrap();
    let mut builder = SheetBuilder::new("copy").number_formats(formats);
    let mut plain = SheetBuilder::new("plain");
    let mut rows = workbook.rows(0).unwrap();
    let mut kept = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        let cells: Vec<(u32, u32, Value<'_>, u32)> = row
            .cells()
            .iter()
            .map(|c| (c.row(), c.column(), c.value(), c.style()))
            .collect();
        kept.push(format!("{cells:?}"));
        if row.index() == 1 {
            builder.push_row(row).unwrap();
            plain.push_row(row).unwrap();
        }
    }
    drop(rows);
    let mut rows = workbook.rows(0).unwrap();
    let header = rows.next_row().unwrap().unwrap();
    builder.push_row(header).unwrap();
    let sheet = builder.finish();
    assert_eq!(sheet.formatted(0, 0).as_deref(), Some("zip"));
    assert_eq!(sheet.formatted(1, 0).as_deref(), Some("00501"));
    assert_eq!(sheet.formatted(1, 2).as_deref(), Some("$1,234.50"));
    let plain = plain.finish();
    assert_eq!(plain.formatted(1, 0).as_deref(), Some("501"));
    assert_eq!(kept.len(), 3);
}
