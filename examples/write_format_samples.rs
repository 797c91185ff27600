//! Writes a workbook of number formats and values for the differential
//! test of the format renderer against LibreOffice
//! (`tests/formats/differential.py`): one row per format code, its code in
//! column A as text and the same values through it in the columns after.
//!
//! ```text
//! cargo run --example write_format_samples -- target/format-samples.xlsx
//! ```

use rust_xlsxwriter::{Format, Workbook, XlsxError};

/// Format codes of every feature of the language.
const CODES: &[&str] = &[
    "General",
    "0",
    "0.00",
    "#,##0",
    "#,##0.00",
    "00000",
    "#.##",
    "0.0#",
    "???.???",
    "000-00-0000",
    "#,##0,",
    "0.0,,",
    "0%",
    "0.00%",
    "0.00E+00",
    "##0.0E+0",
    "00.00E+00",
    "# ?/?",
    "# ??/??",
    "# ??/16",
    "?/?",
    "$#,##0.00",
    "$#,##0.00;[Red]($#,##0.00)",
    "#,##0.00;(#,##0.00);\"zero\"",
    "0;-0;;@",
    "[<=9999999]###-####;(###) ###-####",
    "[>100]\"big\";[<-100]\"small\";0.0",
    "0\" units\"",
    "0\\h",
    "[$€-407] #,##0.00",
    "#,##0.00 [$€-407]",
    "[Blue]0.0",
    "yyyy-mm-dd",
    "m/d/yy",
    "d-mmm-yy",
    "dddd, mmmm d, yyyy",
    "ddd mmm",
    "mmmmm",
    "h:mm",
    "hh:mm:ss",
    "h:mm AM/PM",
    "h:mm:ss A/P",
    "yyyy-mm-dd hh:mm:ss",
    "mm:ss.0",
    "h:mm:ss.000",
    "[h]:mm:ss",
    "[mm]:ss",
    "[ss]",
    "\"<\"@\">\"",
    "@",
];

/// Values through every code: whole, fractional, negative, zero, large,
/// small, and date serials with times.
const VALUES: &[f64] = &[
    0.0,
    1.0,
    -1.0,
    501.0,
    0.125,
    -0.5,
    1234.5,
    -1234.567,
    5.25,
    2.675,
    12_345.678_9,
    0.000_123_45,
    123_456_789.0,
    8_005_551_234.0,
    45_000.75,
    45_000.999_99,
    36_526.512_345,
    61.25,
    1.5,
];

fn main() -> Result<(), XlsxError> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/format-samples.xlsx".to_owned());
    let mut workbook = Workbook::new();
    let sheet = workbook.add_worksheet().set_name("Formats")?;
    sheet.write_string(0, 0, "code")?;
    for (index, value) in VALUES.iter().enumerate() {
        sheet.write_number(0, index as u16 + 1, *value)?;
    }
    for (offset, code) in CODES.iter().enumerate() {
        let row = offset as u32 + 1;
        sheet.write_string(row, 0, *code)?;
        let format = Format::new().set_num_format(*code);
        for (index, value) in VALUES.iter().enumerate() {
            sheet.write_number_with_format(row, index as u16 + 1, *value, &format)?;
        }
        let text_column = VALUES.len() as u16 + 1;
        sheet.write_string_with_format(row, text_column, "text", &format)?;
    }
    workbook.save(&path)?;
    println!("wrote {path}");
    Ok(())
}
