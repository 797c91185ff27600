//! `.ods` benchmark: the read bench's 1M x 10 mixed sheet written as
//! `.ods` (by `support/ods_writer.rs`, which LibreOffice reads back as
//! written: `tests/formats/ods_writer_check.py`), against the floor every
//! reader of it shares (inflating `content.xml` alone) and against
//! calamine's `Ods` reader; the same rows as 8 sheets of 125,000; and the
//! 17-billion-cell file.
//!
//! ```text
//! cargo bench --bench ods
//! ```
//!
//! The workbooks are written to `target/bench-data` on first use. Each
//! measurement runs in a child process of its own (its peak resident
//! memory is its own) and reports its fastest of several runs. Readers:
//!
//! - `inflate`: `content.xml` inflated to nowhere, its CRC checked (see
//!   `support/inflate_floor.rs`);
//! - `open`: `Workbook::open` alone: the sheet list's pass over
//!   `content.xml` (every table skimmed, never tokenized);
//! - `sheetstream`: open, then `for_each_row` over every sheet into
//!   `SheetCounts` on one thread (`sheetstream count -t 1`'s work);
//! - `rows-only`: the same, timing the rows alone (the open left out);
//! - `sheetstream-2t`: open, then `parallel().threads(2)` (a lone sheet
//!   inflated on one thread and scanned on the other);
//! - `calamine-range`: calamine's `Ods` open and `worksheet_range` of
//!   every sheet, every cell visited.

#[path = "support/inflate_floor.rs"]
mod inflate_floor;
#[path = "support/ods_writer.rs"]
mod ods_writer;
#[path = "support/readers.rs"]
mod readers;
#[allow(dead_code)]
#[path = "support/workbooks.rs"]
mod workbooks;

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use calamine::Ods;
use readers::{calamine_range, peak_rss_bytes, sheetstream_two_threads};
use sheetstream::{SheetCounts, Workbook};

/// The bench's files, written when missing: (file name, what, writer).
fn ensure(name: &str, write: impl FnOnce(&Path)) -> PathBuf {
    let dir = workbooks::data_dir();
    std::fs::create_dir_all(&dir).expect("create the bench data folder");
    let path = dir.join(name);
    if !path.exists() {
        eprintln!("writing {}", path.display());
        let partial = path.with_extension("partial");
        write(&partial);
        std::fs::rename(&partial, &path).expect("rename");
    }
    path
}

fn mixed(sheets: u32, rows: u32) -> impl FnOnce(&Path) {
    move |path| {
        let file = BufWriter::new(std::fs::File::create(path).expect("create"));
        ods_writer::write_mixed(file, sheets, rows, 10).expect("write the .ods");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(
            &args[1],
            Path::new(&args[2]),
            args[3].parse().expect("repetitions"),
        );
        return;
    }
    println!(
        "{:<28} {:<15} {:>9} {:>10} {:>9} {:>10}",
        "workbook", "reader", "seconds", "Mcells/s", "peak MB", "cells"
    );
    let show = |name: &str, reader: &str, (seconds, cells, rss): (f64, u64, u64)| {
        println!(
            "{:<28} {:<15} {:>9.3} {:>10.2} {:>9.1} {:>10}",
            name,
            reader,
            seconds,
            cells as f64 / seconds / 1e6,
            rss as f64 / 1e6,
            cells
        );
        (seconds, rss)
    };
    let one = ensure("one_sheet_1m_x10.ods", mixed(1, 1_000_000));
    let name = "one_sheet_1m_x10.ods";
    let (floor, _) = show(name, "inflate", run_child("inflate", &one, 3));
    let (open, _) = show(name, "open", run_child("open", &one, 3));
    let (serial, serial_rss) = show(name, "sheetstream", run_child("sheetstream", &one, 3));
    let (rows, _) = show(name, "rows-only", run_child("rows-only", &one, 3));
    let (piped, _) = show(name, "sheetstream-2t", run_child("sheetstream-2t", &one, 3));
    let (range, range_rss) = show(name, "calamine-range", run_child("calamine-range", &one, 1));
    println!(
        "  ratios to inflating content.xml: sheetstream (count -t 1) {:.2}x (target <= 2.0), \
         of which the open {:.2}x and the rows {:.2}x; sheetstream-2t {:.2}x (target <= 1.2)",
        serial / floor,
        open / floor,
        rows / floor,
        piped / floor,
    );
    println!(
        "  calamine-range/sheetstream {:.2}x, calamine-range/sheetstream-2t {:.2}x; \
         peak RSS {:.1} MB against calamine's {:.1} MB",
        range / serial,
        range / piped,
        serial_rss as f64 / 1e6,
        range_rss as f64 / 1e6,
    );
    let eight = ensure("eight_sheets_125k_x10.ods", mixed(8, 125_000));
    let name = "eight_sheets_125k_x10.ods";
    let (floor, _) = show(name, "inflate", run_child("inflate", &eight, 3));
    let (serial, _) = show(name, "sheetstream", run_child("sheetstream", &eight, 3));
    let (piped, _) = show(
        name,
        "sheetstream-2t",
        run_child("sheetstream-2t", &eight, 3),
    );
    println!(
        "  ratios: sheetstream/inflate {:.2}x, sheetstream-2t/inflate {:.2}x (each sheet's \
         reader inflates content.xml up to its table)",
        serial / floor,
        piped / floor,
    );
    let all = ensure("all_cells_17g.ods", |path| {
        let file = BufWriter::new(std::fs::File::create(path).expect("create"));
        ods_writer::write_all_cells(file).expect("write the .ods");
    });
    let name = "all_cells_17g.ods";
    let (seconds, rss) = show(name, "sheetstream", run_child("sheetstream", &all, 5));
    println!(
        "  1,048,576 x 16,384 cells claimed in {} bytes: {:.1} ms (target < 50), \
         peak RSS {:.1} MB (target < 50)",
        std::fs::metadata(&all).expect("size").len(),
        seconds * 1e3,
        rss as f64 / 1e6,
    );
}

/// Runs a reader in a child process: its best time, cells and peak RSS.
fn run_child(reader: &str, path: &Path, repetitions: u32) -> (f64, u64, u64) {
    let output = Command::new(std::env::current_exe().expect("own path"))
        .args([
            "--child",
            reader,
            &path.to_string_lossy(),
            &repetitions.to_string(),
        ])
        .output()
        .expect("run the child");
    assert!(
        output.status.success(),
        "{reader} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<f64> = text
        .split_whitespace()
        .map(|field| field.parse().expect("a number"))
        .collect();
    (fields[0], fields[1] as u64, fields[2] as u64)
}

fn child(reader: &str, path: &Path, repetitions: u32) {
    let mut best = Duration::MAX;
    let mut cells = 0;
    for _ in 0..repetitions {
        let start = Instant::now();
        let (count, timed_from) = match reader {
            "inflate" => (inflate_floor::inflate_parts(path, ["content.xml"]), None),
            "open" => {
                let workbook = Workbook::open(path).expect("open");
                (workbook.sheets().len() as u64, None)
            }
            "sheetstream" => (read_sheetstream(path, &mut None), None),
            "rows-only" => {
                let mut rows_started = None;
                let cells = read_sheetstream(path, &mut rows_started);
                (cells, rows_started)
            }
            "sheetstream-2t" => (sheetstream_two_threads(path), None),
            "calamine-range" => (calamine_range::<Ods<_>>(path), None),
            other => panic!("unknown reader {other}"),
        };
        cells = count;
        best = best.min(timed_from.unwrap_or(start).elapsed());
    }
    println!("{} {} {}", best.as_secs_f64(), cells, peak_rss_bytes());
}

/// Opens the workbook and counts every sheet's cells on one thread; sets
/// `rows_started` when the rows start (after the open).
fn read_sheetstream(path: &Path, rows_started: &mut Option<Instant>) -> u64 {
    let mut workbook = Workbook::open(path).expect("open");
    *rows_started = Some(Instant::now());
    let mut total = SheetCounts::default();
    for position in 0..workbook.sheets().len() {
        workbook
            .for_each_row(position, |row| total.add_row(&row))
            .expect("read");
    }
    std::hint::black_box(&total);
    total.cells
}
