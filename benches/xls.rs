//! `.xls` benchmark: sheetstream on one and two threads against calamine.
//!
//! ```text
//! cargo bench --bench xls
//! ```
//!
//! Two workbooks, written once with the tests' BIFF8 writer
//! (`tests/common/xls.rs`) to `target/bench-data`: 8 sheets of 65,535
//! rows x 10 columns, and one sheet of 65,535 x 50 (numbers, RK numbers,
//! dates, shared strings, labels, booleans, formula results), each sheet
//! laid out in blocks of 32 rows with INDEX and DBCELL records as Excel
//! and LibreOffice write them (a lone sheet is read block by block,
//! `src/xls/blocks.rs`, from 4 threads; on 2 it is read serially). Each
//! reader
//! runs in a child process of its own (its peak resident memory, VmHWM, is
//! its own) and reports the fastest of three runs. Readers:
//!
//! - `sheetstream`: `Workbook::open`, every worksheet through
//!   `for_each_row` into `SheetCounts`, one thread;
//! - `sheetstream-2t`: the same through `parallel().threads(2)`;
//! - `calamine`: its `Xls` reader's `worksheet_range` of every sheet, each
//!   used cell's value counted as `SheetCounts` counts sheetstream's
//!   (`support/readers.rs`, shared with the other benches).
//!
//! Printed: seconds, cells, peak MB per reader, then the ratios the issue
//! asks for (calamine's time and memory over sheetstream's, two threads
//! over one).

#[path = "support/readers.rs"]
mod readers;
#[path = "support/results.rs"]
mod results;
#[path = "../tests/common/xls.rs"]
mod xls;
#[path = "support/xls_book.rs"]
mod xls_book;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use calamine::Xls;
use readers::{calamine_range, peak_rss_bytes, sheetstream_two_threads};
use sheetstream::{SheetCounts, SheetKind, Workbook};

const READERS: [&str; 3] = ["sheetstream", "sheetstream-2t", "calamine"];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(&args[1], Path::new(&args[2]));
        return;
    }
    let record = results::Results::new("xls");
    for (name, sheets, columns) in [
        ("xls-indexed-8x65535x10", 8, 10),
        ("xls-indexed-1x65535x50", 1, 50),
    ] {
        let path = xls_book::ensure(name, sheets, columns);
        let mut results = Vec::new();
        for reader in READERS {
            let output = Command::new(std::env::current_exe().expect("the bench binary"))
                .args(["--child", reader, path.to_str().expect("UTF-8 path")])
                .output()
                .expect("run a child");
            let text = String::from_utf8_lossy(&output.stdout);
            let fields: Vec<f64> = text
                .split_whitespace()
                .filter_map(|field| field.parse().ok())
                .collect();
            assert_eq!(
                fields.len(),
                3,
                "child {reader}: {text} {}",
                String::from_utf8_lossy(&output.stderr)
            );
            record.say(format!(
                "{name:<16} {reader:<15} {:>8.3} s {:>10} cells {:>8.1} peak MB",
                fields[0],
                fields[1],
                fields[2] / 1e6
            ));
            results.push(fields);
        }
        let (one, two, calamine) = (&results[0], &results[1], &results[2]);
        record.say(format!(
            "{name:<16} calamine/sheetstream time {:.2}x, peak memory {:.2}x; 2 threads over 1: {:.2}x",
            calamine[0] / one[0],
            calamine[2] / one[2],
            one[0] / two[0]
        ));
    }
    record.write();
}

/// One reader, three runs; prints the fastest run's seconds, the cells
/// and the process's peak resident bytes.
fn child(reader: &str, path: &Path) {
    let mut best = f64::MAX;
    let mut cells = 0u64;
    for _ in 0..3 {
        let start = Instant::now();
        cells = match reader {
            "sheetstream" => {
                let mut workbook = Workbook::open(path).expect("open");
                let mut counts = SheetCounts::default();
                for position in 0..workbook.sheets().len() {
                    if workbook.sheets()[position].kind() == SheetKind::Worksheet {
                        workbook
                            .for_each_row(position, |row| counts.add_row(&row))
                            .expect("read");
                    }
                }
                counts.cells
            }
            "sheetstream-2t" => sheetstream_two_threads(path),
            _ => calamine_range::<Xls<_>>(path),
        };
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("{best} {cells} {}", peak_rss_bytes());
}
