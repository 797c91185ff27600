//! Thread scaling of the parallel reader.
//!
//! ```text
//! cargo bench --bench scaling
//! ```
//!
//! For each shape, `Workbook::parallel().threads(n).fold(..)` adding every
//! value into `SheetCounts`, with 1 thread and with 2 (and with every core
//! the machine has, when that is more), best of several runs, after the
//! workbook is open. For the single sheet, 2 threads means the pipelined
//! path (inflate on one thread, scan on the other); the inflate-only floor
//! is printed beside it.

#[path = "support/inflate_floor.rs"]
mod inflate_floor;
#[path = "support/results.rs"]
mod results;
#[path = "support/workbooks.rs"]
mod workbooks;

use std::time::{Duration, Instant};

use sheetstream::{SheetCounts, SheetKind, Workbook};

fn best_of(runs: u32, mut work: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            work();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn count(workbook: &Workbook, threads: usize) -> SheetCounts {
    workbook
        .parallel()
        .threads(threads)
        .fold(
            SheetCounts::default,
            |counts, _sheet, row| counts.add_row(&row),
            |mut a, b| {
                a.merge(&b);
                a
            },
        )
        .expect("read")
}

/// The floor, as in the read bench (see `support/inflate_floor.rs`).
fn inflate_only(path: &std::path::Path, workbook: &Workbook) -> u64 {
    inflate_floor::inflate_parts(
        path,
        workbook
            .sheets()
            .iter()
            .filter(|s| s.kind() == SheetKind::Worksheet)
            .map(|sheet| sheet.part()),
    )
}

fn main() {
    let record = results::Results::new("scaling");
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let shapes = [
        "eight_sheets_125k_x10.xlsx",
        "eight_sheets_5k_x4.xlsx",
        "one_sheet_1m_x10.xlsx",
    ];
    let all = workbooks::ensure_all().expect("write the benchmark workbooks");
    record.say(format!("{cores} cores"));
    record.say(format!(
        "{:<28} {:>8} {:>10} {:>9}",
        "workbook", "threads", "seconds", "speedup"
    ));
    for (path, recipe) in all {
        if !shapes.contains(&recipe.name)
            || (!filters.is_empty() && !filters.iter().any(|f| recipe.name.contains(f.as_str())))
        {
            continue;
        }
        let workbook = Workbook::open(&path).expect("open");
        // Short runs vary more (thread start-up, scheduling): more of them.
        // Ten of the long ones: on a shared machine five could all land in
        // a slow spell.
        let runs = if recipe.rows * recipe.sheets >= 1_000_000 {
            10
        } else {
            40
        };
        let mut thread_counts = vec![1, 2];
        if cores > 2 {
            thread_counts.push(cores);
        }
        // Float sums may differ in the last bits with the order of addition;
        // the counts must not.
        let key = |c: SheetCounts| {
            (
                c.rows,
                c.cells,
                c.numbers,
                c.texts,
                c.text_bytes,
                c.booleans,
                c.dates,
            )
        };
        let reference = key(count(&workbook, 1));
        let single = best_of(runs, || assert_eq!(key(count(&workbook, 1)), reference));
        let mut two_threads = single;
        for threads in thread_counts {
            let time = if threads == 1 {
                single
            } else {
                best_of(runs, || {
                    assert_eq!(key(count(&workbook, threads)), reference)
                })
            };
            if threads == 2 {
                two_threads = time;
            }
            record.say(format!(
                "{:<28} {:>8} {:>10.3} {:>8.2}x",
                recipe.name,
                threads,
                time.as_secs_f64(),
                single.as_secs_f64() / time.as_secs_f64()
            ));
        }
        let floor = best_of(runs, || {
            std::hint::black_box(inflate_only(&path, &workbook));
        });
        record.say(format!(
            "{:<28} {:>8} {:>10.3}   (inflate only, 1 thread; 2 threads take {:.2}x this)",
            recipe.name,
            "-",
            floor.as_secs_f64(),
            two_threads.as_secs_f64() / floor.as_secs_f64()
        ));
    }
    record.write();
}
