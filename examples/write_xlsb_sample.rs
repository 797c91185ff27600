//! Writes a small `.xlsb` with the bench's own writer
//! (`benches/support/xlsb_writer.rs`): every kind of cell record it writes,
//! numbers that are and are not RK, dates, shared and rich strings, errors,
//! formula results, blanks, a hidden sheet. Beside it, `NAME.expected.jsonl`
//! holds the cells as written in the conformance dump format, which
//! `tests/formats/binary_differential.py` compares with LibreOffice's
//! reading of the file; and the example reads the file back with calamine
//! (`worksheet_range`) and fails when a value differs from what it wrote.
//!
//! ```text
//! cargo run --example write_xlsb_sample -- target/xlsb-sample.xlsb
//! ```

#[path = "../benches/support/xlsb_writer.rs"]
mod xlsb_writer;

use std::io::Cursor;
use std::path::PathBuf;

use calamine::{Data, Reader, Xlsb};
use xlsb_writer::{
    STYLE_BUILTIN_DATE, STYLE_DATE, STYLE_DATE_TIME, STYLE_FIXED, XlsbCell, XlsbWriter,
};

/// A written value as the dump has it: type and JSON value.
#[derive(Clone, Debug, PartialEq)]
enum Expected {
    Number(f64),
    Date(f64),
    Text(String),
    Bool(bool),
    Error(&'static str),
}

/// Row, column and value of a cell written.
type WrittenCell = (u32, u32, Expected);

const ERRORS: &[(u8, &str)] = &[
    (0x00, "#NULL!"),
    (0x07, "#DIV/0!"),
    (0x0F, "#VALUE!"),
    (0x17, "#REF!"),
    (0x1D, "#NAME?"),
    (0x24, "#NUM!"),
    (0x2A, "#N/A"),
];

/// The ISO text of a 1900-system serial after 1900-03-01 (FORMAT.md's rule).
fn iso(serial: f64) -> String {
    let mut days = serial.floor() as i64;
    let mut ms = ((serial - serial.floor()) * 86_400_000.0).round() as i64;
    if ms >= 86_400_000 {
        days += 1;
        ms -= 86_400_000;
    }
    // Days since 1970-01-01 (serial 25569), then the civil date.
    let z = days - 25569 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (hours, minutes, seconds, millis) =
        (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    let mut text = format!("{year:04}-{month:02}-{day:02}T{hours:02}:{minutes:02}:{seconds:02}");
    if millis != 0 {
        text.push_str(&format!(".{millis:03}"));
    }
    text
}

fn reference(row: u32, column: u32) -> String {
    let mut letters = String::new();
    let mut column = column + 1;
    while column > 0 {
        let rest = (column - 1) % 26;
        letters.insert(0, char::from(b'A' + rest as u8));
        column = (column - 1) / 26;
    }
    format!("{letters}{}", row + 1)
}

fn main() {
    let path = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "target/xlsb-sample.xlsb".into()),
    );
    let numbers = [
        0.0,
        1.0,
        -1.0,
        42.0,
        536_870_911.0,
        -536_870_912.0,
        536_870_912.0,
        1.25,
        0.1,
        1.23,
        -17.5,
        1e-300,
        1e300,
        std::f64::consts::PI,
        123_456_789.012_345_68,
        -0.000_123,
        2.0_f64.powi(53),
        1.0 / 3.0,
    ];
    let texts = [
        "plain",
        "",
        " padded ",
        "two\nlines",
        "tab\there",
        "ünïcödé ✓ 日本語",
        "emoji 😀",
        "&<>\"'",
        "_x0041_ stays",
    ];
    let dates = [
        (STYLE_DATE, 36526.0),
        (STYLE_DATE, 2_958_465.0),
        (STYLE_DATE_TIME, 40000.5),
        (STYLE_DATE_TIME, 45000.0 + 1.0 / 1440.0),
        (STYLE_DATE_TIME, 44_197.999_988_425_93),
        (STYLE_BUILTIN_DATE, 61.0),
        (STYLE_BUILTIN_DATE, 43831.0),
    ];
    let mut writer = XlsbWriter::new();
    let mut sheets: Vec<(String, Vec<WrittenCell>)> = Vec::new();
    for (name, state) in [("Values", 0), ("Hidden sheet", 1)] {
        writer.add_sheet(name, state);
        let mut cells = Vec::new();
        let mut row = 0;
        let mut put = |writer: &mut XlsbWriter, row: u32, column, style, cell, expected| {
            writer.cell(column, style, cell);
            cells.push((row, column, expected));
        };
        for (i, &number) in numbers.iter().enumerate() {
            writer.row(row);
            put(
                &mut writer,
                row,
                0,
                0,
                XlsbCell::Number(number),
                Expected::Number(number),
            );
            put(
                &mut writer,
                row,
                1,
                0,
                XlsbCell::Real(number),
                Expected::Number(number),
            );
            put(
                &mut writer,
                row,
                2,
                STYLE_FIXED,
                XlsbCell::Number(-number),
                Expected::Number(-number),
            );
            put(
                &mut writer,
                row,
                3,
                0,
                XlsbCell::FormulaNumber(number * 2.0),
                Expected::Number(number * 2.0),
            );
            if i % 2 == 0 {
                writer.cell(4, 0, XlsbCell::Blank);
            }
            row += 1;
        }
        for text in texts {
            writer.row(row);
            put(
                &mut writer,
                row,
                0,
                0,
                XlsbCell::Text(text),
                Expected::Text(text.into()),
            );
            put(
                &mut writer,
                row,
                1,
                0,
                XlsbCell::RichText(text),
                Expected::Text(text.into()),
            );
            put(
                &mut writer,
                row,
                2,
                0,
                XlsbCell::FormulaText(text),
                Expected::Text(text.into()),
            );
            row += 1;
        }
        for (style, serial) in dates {
            writer.row(row);
            put(
                &mut writer,
                row,
                0,
                style,
                XlsbCell::Number(serial),
                Expected::Date(serial),
            );
            put(
                &mut writer,
                row,
                1,
                style,
                XlsbCell::FormulaNumber(serial),
                Expected::Date(serial),
            );
            row += 1;
        }
        for flag in [true, false] {
            writer.row(row);
            put(
                &mut writer,
                row,
                0,
                0,
                XlsbCell::Bool(flag),
                Expected::Bool(flag),
            );
            put(
                &mut writer,
                row,
                1,
                0,
                XlsbCell::FormulaBool(flag),
                Expected::Bool(flag),
            );
            row += 1;
        }
        for &(code, text) in ERRORS {
            writer.row(row);
            put(
                &mut writer,
                row,
                0,
                0,
                XlsbCell::Error(code),
                Expected::Error(text),
            );
            put(
                &mut writer,
                row,
                1,
                0,
                XlsbCell::FormulaError(code),
                Expected::Error(text),
            );
            row += 1;
        }
        // A far cell: a wide column and a row far down.
        writer.row(70_000);
        put(
            &mut writer,
            70_000,
            300,
            0,
            XlsbCell::Number(7.0),
            Expected::Number(7.0),
        );
        sheets.push((name.to_owned(), cells));
    }
    writer.save(&path).expect("write the .xlsb");

    let mut dump = String::new();
    for (sheet, cells) in &sheets {
        for (row, column, expected) in cells {
            let (t, v) = match expected {
                Expected::Number(number) => ("n", serde_json::json!(number)),
                Expected::Date(serial) => ("d", serde_json::json!(iso(*serial))),
                Expected::Text(text) => ("s", serde_json::json!(text)),
                Expected::Bool(flag) => ("b", serde_json::json!(flag)),
                Expected::Error(text) => ("e", serde_json::json!(text)),
            };
            let line = serde_json::json!({"sheet": sheet, "ref": reference(*row, *column), "t": t, "v": v});
            dump.push_str(&line.to_string());
            dump.push('\n');
        }
    }
    let expected_path = path.with_extension("expected.jsonl");
    std::fs::write(&expected_path, dump).expect("write the expected cells");

    // calamine reads the file back: every value as written. Its range
    // reader leaves out BrtFmlaError and BrtCellRString (FORMAT-binary.md
    // says so); those are counted apart.
    let bytes = std::fs::read(&path).expect("read the .xlsb back");
    let mut book = Xlsb::new(Cursor::new(bytes)).expect("calamine opens the .xlsb");
    let (mut same, mut skipped) = (0, 0);
    for (sheet, cells) in &sheets {
        let range = book
            .worksheet_range(sheet)
            .expect("calamine reads the sheet");
        for (row, column, expected) in cells {
            let got = range
                .get_value((*row, *column))
                .cloned()
                .unwrap_or(Data::Empty);
            let matches = match (&got, expected) {
                (Data::Float(a), Expected::Number(b)) => a.to_bits() == b.to_bits() || a == b,
                (Data::Int(a), Expected::Number(b)) => *a as f64 == *b,
                (Data::DateTime(a), Expected::Date(b)) => a.as_f64() == *b,
                (Data::String(a), Expected::Text(b)) => a == b,
                (Data::Bool(a), Expected::Bool(b)) => a == b,
                (Data::Error(a), Expected::Error(b)) => a.to_string() == *b,
                (Data::Empty, _) => {
                    skipped += 1;
                    continue;
                }
                _ => false,
            };
            assert!(
                matches,
                "calamine reads {sheet}!{} as {got:?}, written {expected:?}",
                reference(*row, *column)
            );
            same += 1;
        }
    }
    let written: usize = sheets.iter().map(|(_, cells)| cells.len()).sum();
    assert!(
        skipped <= 2 * (ERRORS.len() + texts.len()),
        "calamine left out {skipped} cells"
    );
    println!(
        "wrote {} ({written} cells) and {}; calamine read {same} back as written, \
         left out {skipped} (formula errors and rich strings)",
        path.display(),
        expected_path.display()
    );
}
