//! Loads one sheet into memory and prints its cell count and heap size:
//! the memory check of the materialised sheet (compare with
//! `calamine_range`, which loads the same sheet with calamine).
//!
//! ```text
//! cargo run --release --example load_sheet -- target/bench-data/one_sheet_1m_x10.xlsx Sheet1
//! /usr/bin/time -f "%M KiB peak" target/release/examples/load_sheet FILE SHEET
//! ```

use std::process::ExitCode;
use std::time::Instant;

use sheetstream::Workbook;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, sheet) = match args.as_slice() {
        [path] => (path, None),
        [path, sheet] => (path, Some(sheet)),
        _ => {
            eprintln!("usage: load_sheet FILE [SHEET]");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let loaded = Workbook::open(path).and_then(|mut workbook| match sheet {
        Some(name) => workbook.load_sheet(name.as_str()),
        None => workbook.load_sheet(0),
    });
    match loaded {
        Ok(sheet) => {
            println!(
                "{} cells in {} rows, {} heap bytes, loaded in {:.2?}",
                sheet.cell_count(),
                sheet.row_count(),
                sheet.heap_bytes(),
                started.elapsed()
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
