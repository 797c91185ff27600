//! Prints the formula text of every formula cell of a workbook as JSON
//! lines (`{"sheet", "ref", "formula"}`), read with
//! `SheetRows::with_formulas(true)`; a sheet whose formulas cannot be
//! given prints `{"sheet", "error"}` and the next sheet is read. The
//! formula differential (tests/formats/formula_differential.py) reads
//! `.xls` conversions through it.
//!
//! ```text
//! cargo run --release --example formula_dump -- FILE...
//! ```

use std::process::ExitCode;

use sheetstream::Workbook;

fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn main() -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for path in std::env::args().skip(1) {
        let mut workbook = match Workbook::open(&path) {
            Ok(workbook) => workbook,
            Err(err) => {
                eprintln!("{path}: {err}");
                status = ExitCode::FAILURE;
                continue;
            }
        };
        let names: Vec<String> = workbook
            .sheets()
            .iter()
            .map(|s| s.name().to_owned())
            .collect();
        for name in names {
            let rows = match workbook.rows(name.as_str()) {
                Ok(rows) => rows,
                Err(err) => {
                    println!(
                        "{{\"sheet\":{},\"error\":{}}}",
                        quoted(&name),
                        quoted(&err.to_string())
                    );
                    continue;
                }
            };
            let mut rows = rows.with_formulas(true);
            loop {
                match rows.next_row() {
                    Ok(Some(row)) => {
                        for cell in row.cells() {
                            if let Some(formula) = cell.formula() {
                                println!(
                                    "{{\"sheet\":{},\"ref\":\"{}\",\"formula\":{}}}",
                                    quoted(&name),
                                    cell.reference(),
                                    quoted(formula)
                                );
                            }
                        }
                    }
                    Ok(None) => break,
                    Err(err) => {
                        println!(
                            "{{\"sheet\":{},\"error\":{}}}",
                            quoted(&name),
                            quoted(&err.to_string())
                        );
                        break;
                    }
                }
            }
        }
    }
    status
}
