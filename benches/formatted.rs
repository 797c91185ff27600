//! `csv --formatted` against plain `csv` of the 1M x 10 benchmark sheet.
//!
//! ```text
//! cargo bench --bench formatted
//! ```
//!
//! Runs the release `sheetstream` binary on `target/bench-data/
//! one_sheet_1m_x10.xlsx` (the benchmark workbooks are written first if
//! missing, see `examples/generate_bench_data.rs`), output to /dev/null, plain and
//! `--formatted` taking turns, best of five each, and prints the ratio
//! (the issue's target: at most 1.3). Then the same in the library: every
//! cell of the sheet rendered with `Cell::formatted_into` into one reused
//! `String`, against reading the sheet and touching each value.

#[path = "support/results.rs"]
mod results;
#[path = "support/workbooks.rs"]
mod workbooks;

use std::process::Command;
use std::time::{Duration, Instant};

use sheetstream::{Value, Workbook};

const RUNS: usize = 5;

fn time(mut work: impl FnMut()) -> Duration {
    let start = Instant::now();
    work();
    start.elapsed()
}

fn cli(path: &str, formatted: bool) {
    let mut args = vec!["csv", "-q", "-o", "/dev/null", path];
    if formatted {
        args.insert(1, "--formatted");
    }
    let status = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args(&args)
        .status()
        .expect("run sheetstream");
    assert!(status.success(), "sheetstream {args:?} failed");
}

fn library(path: &str, formatted: bool) -> usize {
    let mut workbook = Workbook::open(path).expect("open");
    let formats = workbook.number_formats().clone();
    let mut rows = workbook.rows(0).expect("sheet");
    let mut text = String::new();
    let mut total = 0;
    while let Some(row) = rows.next_row().expect("row") {
        for cell in row.cells() {
            if formatted {
                text.clear();
                cell.formatted_into(&formats, &mut text);
                total += text.len();
            } else {
                total += match cell.value() {
                    Value::Text(text) => text.len(),
                    Value::Number(number) => number.to_bits() as usize & 7,
                    _ => 1,
                };
            }
        }
    }
    total
}

fn report(record: &results::Results, label: &str, plain: &[Duration], formatted: &[Duration]) {
    let best = |times: &[Duration]| times.iter().min().copied().unwrap_or_default();
    let (plain, formatted) = (best(plain), best(formatted));
    record.say(format!(
        "{label}: plain {:.3} s, formatted {:.3} s, ratio {:.2} (best of {RUNS})",
        plain.as_secs_f64(),
        formatted.as_secs_f64(),
        formatted.as_secs_f64() / plain.as_secs_f64()
    ));
}

fn main() {
    let (path, recipe) = workbooks::ensure_all()
        .expect("write the benchmark workbooks")
        .into_iter()
        .find(|(_, recipe)| recipe.name == "one_sheet_1m_x10.xlsx")
        .expect("the 1M x 10 recipe");
    let record = results::Results::new("formatted");
    record.say(format!("{} ({})", path.display(), recipe.description));
    let path = path.to_str().expect("UTF-8 path").to_owned();
    let (mut plain, mut formatted) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        plain.push(time(|| cli(&path, false)));
        formatted.push(time(|| cli(&path, true)));
    }
    report(
        &record,
        "sheetstream csv of one_sheet_1m_x10",
        &plain,
        &formatted,
    );
    let (mut plain, mut formatted) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        plain.push(time(|| {
            std::hint::black_box(library(&path, false));
        }));
        formatted.push(time(|| {
            std::hint::black_box(library(&path, true));
        }));
    }
    report(
        &record,
        "library, every cell formatted_into",
        &plain,
        &formatted,
    );
    record.write();
}
