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
