//! Loads one sheet with calamine's `worksheet_range` and prints its cell
//! count: the peer that `load_sheet` is measured against.
//!
//! ```text
//! cargo run --release --example calamine_range -- target/bench-data/one_sheet_1m_x10.xlsx Sheet1
//! ```

use std::process::ExitCode;
use std::time::Instant;

use calamine::{Data, Reader, Xlsx, open_workbook};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, sheet] = args.as_slice() else {
        eprintln!("usage: calamine_range FILE SHEET");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let range = open_workbook::<Xlsx<_>, _>(path)
        .map_err(|err| err.to_string())
        .and_then(|mut workbook| {
            workbook
                .worksheet_range(sheet)
                .map_err(|err| err.to_string())
        });
    match range {
        Ok(range) => {
            let cells = range
                .used_cells()
                .filter(|(_, _, v)| **v != Data::Empty)
                .count();
            println!(
                "{cells} cells in a {:?} range, loaded in {:.2?}",
                range.get_size(),
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
