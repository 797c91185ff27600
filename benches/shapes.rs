//! What each option of the hand-made sheets (issue 26) costs on the 1M x 10
//! benchmark sheet, against a plain read in the same run.
//!
//! ```text
//! cargo bench --bench shapes
//! ```
//!
//! Reads `target/bench-data/one_sheet_1m_x10.xlsx` (written first if
//! missing, see `examples/generate_bench_data.rs`) into Arrow batches on
//! one thread (`ArrowOptions::read_sheet`), plain and with each option,
//! taking turns, best of three each, and prints seconds and the ratio to
//! the plain read. The sheet has no merged ranges, hidden rows or hidden
//! columns: what `fill_merged` and the skips cost there is finding that
//! out (the metadata passes over the sheet's part before its rows).
//!
//! For instruction counts on a busy machine: `SHAPES_FILE=path`
//! `SHAPES_ONLY=fill_merged` `SHAPES_RUNS=1` under
//! `valgrind --tool=callgrind` reads one variant once.

#[path = "support/results.rs"]
mod results;
#[path = "support/workbooks.rs"]
mod workbooks;

use std::time::{Duration, Instant};

use sheetstream::Workbook;
use sheetstream::arrow::{ArrowOptions, Header};

fn read(path: &std::path::Path, options: &ArrowOptions) -> (Duration, usize) {
    let start = Instant::now();
    let mut workbook = Workbook::open(path).expect("open");
    let mut batches = options.read_sheet(&mut workbook, 0).expect("sheet");
    let mut rows = 0;
    while let Some(batch) = batches.next_batch().expect("batch") {
        rows += batch.num_rows();
    }
    (start.elapsed(), rows)
}

fn main() {
    let path = std::env::var_os("SHAPES_FILE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| workbooks::data_dir().join("one_sheet_1m_x10.xlsx"));
    let only = std::env::var("SHAPES_ONLY").ok();
    let runs: usize = std::env::var("SHAPES_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(3);
    if !path.exists() {
        workbooks::ensure_all().expect("write the benchmark workbooks");
    }
    let plain = ArrowOptions::new();
    let variants: Vec<(&str, ArrowOptions)> = vec![
        ("plain", plain.clone()),
        ("fill_merged", plain.clone().fill_merged(true)),
        ("skip_hidden_rows", plain.clone().skip_hidden_rows(true)),
        (
            "skip_hidden_columns",
            plain.clone().skip_hidden_columns(true),
        ),
        (
            "header_row=[0, 1]",
            plain.clone().header(Header::Rows { first: 0, last: 1 }),
        ),
        ("header_row=auto", plain.clone().header(Header::Auto)),
        ("drop_empty_rows", plain.clone().drop_empty_rows(true)),
        ("drop_empty_cols", plain.clone().drop_empty_cols(true)),
        ("stop_at_empty_row", plain.clone().stop_at_empty_row(true)),
        (
            "all of them (header auto)",
            plain
                .clone()
                .header(Header::Auto)
                .fill_merged(true)
                .skip_hidden_rows(true)
                .skip_hidden_columns(true)
                .drop_empty_rows(true)
                .drop_empty_cols(true)
                .stop_at_empty_row(true),
        ),
    ];
    let variants: Vec<(&str, ArrowOptions)> = variants
        .into_iter()
        .filter(|(name, _)| only.as_deref().is_none_or(|only| only == *name))
        .collect();
    let mut best = vec![Duration::MAX; variants.len()];
    let mut rows = vec![0; variants.len()];
    for _ in 0..runs {
        for (at, (_, options)) in variants.iter().enumerate() {
            let (took, read) = read(&path, options);
            best[at] = best[at].min(took);
            rows[at] = read;
        }
    }
    let record = results::Results::new("shapes");
    record.say(format!(
        "{}: Arrow batches on one thread, best of {runs}",
        path.display()
    ));
    let base = best[0].as_secs_f64();
    for (at, (name, _)) in variants.iter().enumerate() {
        let seconds = best[at].as_secs_f64();
        record.say(format!(
            "{name:<28} {seconds:>7.3} s  {:>5.2}x plain  ({} rows)",
            seconds / base,
            rows[at]
        ));
    }
    record.write();
}
