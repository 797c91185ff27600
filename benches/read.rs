//! Read benchmark: sheetstream against calamine and the inflate-only floor.
//!
//! ```text
//! cargo bench --bench read                 # every workbook
//! cargo bench --bench read -- one_sheet    # workbooks whose name contains this
//! ```
//!
//! The workbooks (see `support/workbooks.rs`) are written to
//! `target/bench-data` on first use. Each measurement runs in a child
//! process of its own, so that its peak resident memory (VmHWM) and its heap
//! allocation count (a counting global allocator) are its own. Each child
//! repeats its work and reports the fastest run. Readers:
//!
//! - `inflate`: the sheet parts inflated to nowhere with the inflate
//!   backend sheetstream uses (zlib-rs through flate2), in big pieces, with
//!   the CRC checked: the floor (see `support/inflate_floor.rs`).
//! - `sheetstream`: `Workbook::open`, then `for_each_row` over every sheet,
//!   adding every value into `SheetCounts`, on one thread.
//! - `sheetstream-stream`: the same, timing only the streaming (the open,
//!   which parses the shared strings, is left out): the figure to hold
//!   against the inflate-only floor.
//! - `sheetstream-2t`: open, then `parallel().threads(2).fold(..)`: sheets
//!   on two threads, or a lone sheet inflated on one and scanned on the other.
//! - `calamine-cells`: calamine's streaming `worksheet_cells_reader`.
//! - `calamine-range`: calamine's `worksheet_range`, then every used cell.

#[path = "support/inflate_floor.rs"]
mod inflate_floor;
#[path = "support/readers.rs"]
mod readers;
#[path = "support/results.rs"]
mod results;
#[path = "support/workbooks.rs"]
mod workbooks;

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use calamine::{Reader, Xlsx, open_workbook};
use sheetstream::{SheetCounts, SheetKind, Workbook};

#[path = "support/counting_allocator.rs"]
mod counting_allocator;

use counting_allocator::allocations;
use readers::{calamine_range, count_calamine_cell, peak_rss_bytes, sheetstream_two_threads};

const READERS: [&str; 7] = [
    "inflate",
    "sheetstream",
    "sheetstream-stream",
    "scan-in-memory",
    "sheetstream-2t",
    "calamine-cells",
    "calamine-range",
];

/// What one child run reports.
struct Measurement {
    seconds: f64,
    allocations: u64,
    cells: u64,
    peak_rss_bytes: u64,
}

fn main() {
    let record = results::Results::new("read");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(
            &args[1],
            Path::new(&args[2]),
            args[3].parse().expect("repetitions"),
        );
        return;
    }
    let filters: Vec<&String> = args.iter().filter(|arg| !arg.starts_with("--")).collect();
    let workbooks = workbooks::ensure_all().expect("write the benchmark workbooks");
    record.say(format!(
        "{:<30} {:<15} {:>9} {:>9} {:>10} {:>9} {:>10} {:>9}",
        "workbook", "reader", "seconds", "MB/s", "Mcells/s", "peak MB", "allocs", "allocs/cell"
    ));
    for (path, recipe) in workbooks {
        if !filters.is_empty()
            && !filters
                .iter()
                .any(|filter| recipe.name.contains(filter.as_str()))
        {
            continue;
        }
        let xml_bytes = sheet_xml_bytes(&path);
        let mut results = Vec::new();
        for reader in READERS {
            // Best of ten for the fast readers: on a shared machine a run of
            // three could land in a slow spell (seen: the floor at 0.205 s
            // for 0.185 s). Calamine, ten times slower, gets three.
            let repetitions = match (reader.starts_with("calamine"), xml_bytes > 100 << 20) {
                (true, true) => 3,
                (true, false) => 5,
                (false, _) => 10,
            };
            results.push((reader, run_child(reader, &path, repetitions)));
        }
        let cells = results[1].1.cells;
        for (reader, measurement) in &results {
            record.say(format!(
                "{:<30} {:<15} {:>9.3} {:>9.1} {:>10.2} {:>9.1} {:>10} {:>9.3}",
                recipe.name,
                reader,
                measurement.seconds,
                xml_bytes as f64 / measurement.seconds / 1e6,
                cells as f64 / measurement.seconds / 1e6,
                measurement.peak_rss_bytes as f64 / 1e6,
                measurement.allocations,
                measurement.allocations as f64 / cells.max(1) as f64,
            ));
            if *reader != "inflate" && measurement.cells != cells {
                record.say(format!(
                    "  note: {reader} saw {} cells, sheetstream {cells}",
                    measurement.cells
                ));
            }
        }
        let time = |name: &str| {
            results
                .iter()
                .find(|(reader, _)| *reader == name)
                .map(|(_, m)| m.seconds)
                .unwrap_or(f64::NAN)
        };
        record.say(format!(
            "  ratios: sheetstream-stream/inflate {:.2}x (scan-in-memory/inflate {:.2}x); calamine-cells/sheetstream {:.2}x; calamine-range/sheetstream {:.2}x",
            time("sheetstream-stream") / time("inflate"),
            time("scan-in-memory") / time("inflate"),
            time("calamine-cells") / time("sheetstream"),
            time("calamine-range") / time("sheetstream"),
        ));
        record.say(format!(
            "  two threads: sheetstream-2t/inflate {:.2}x; calamine-cells/sheetstream-2t {:.2}x; calamine-range/sheetstream-2t {:.2}x",
            time("sheetstream-2t") / time("inflate"),
            time("calamine-cells") / time("sheetstream-2t"),
            time("calamine-range") / time("sheetstream-2t"),
        ));
    }
    record.write();
}

/// Total inflated size of the workbook's worksheet parts.
fn sheet_xml_bytes(path: &Path) -> u64 {
    let parts = worksheet_parts(path);
    let mut archive =
        zip::ZipArchive::new(BufReader::new(File::open(path).expect("open"))).expect("zip");
    parts
        .iter()
        .map(|part| archive.by_name(part).expect("sheet part").size())
        .sum()
}

fn worksheet_parts(path: &Path) -> Vec<String> {
    let workbook = Workbook::open(path).expect("open with sheetstream");
    workbook
        .sheets()
        .iter()
        .filter(|sheet| sheet.kind() == SheetKind::Worksheet)
        .map(|sheet| sheet.part().to_owned())
        .collect()
}

fn run_child(reader: &str, path: &Path, repetitions: u32) -> Measurement {
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
    Measurement {
        seconds: fields[0],
        allocations: fields[1] as u64,
        cells: fields[2] as u64,
        peak_rss_bytes: fields[3] as u64,
    }
}

/// Runs one reader `repetitions` times; prints the fastest time, the
/// allocations of the first run, the cells seen and the peak RSS.
fn child(reader: &str, path: &Path, repetitions: u32) {
    let parts = worksheet_parts(path);
    let mut best = Duration::MAX;
    let mut first_allocations = None;
    let mut cells = 0;
    for _ in 0..repetitions {
        let before = allocations();
        let start = Instant::now();
        let mut streaming = None;
        cells = match reader {
            "inflate" => inflate(path, &parts),
            "sheetstream" => read_sheetstream(path).0,
            "sheetstream-stream" => {
                let (cells, elapsed) = read_sheetstream(path);
                streaming = Some(elapsed);
                cells
            }
            "scan-in-memory" => {
                let (cells, elapsed) = scan_in_memory(path);
                streaming = Some(elapsed);
                cells
            }
            "sheetstream-2t" => sheetstream_two_threads(path),
            "calamine-cells" => read_calamine_cells(path),
            "calamine-range" => calamine_range::<Xlsx<_>>(path),
            other => panic!("unknown reader {other}"),
        };
        best = best.min(streaming.unwrap_or_else(|| start.elapsed()));
        first_allocations.get_or_insert(allocations() - before);
    }
    println!(
        "{} {} {} {}",
        best.as_secs_f64(),
        first_allocations.unwrap_or(0),
        cells,
        peak_rss_bytes()
    );
}

/// The floor: the sheets' XML inflated and dropped (see
/// `support/inflate_floor.rs`).
fn inflate(path: &Path, parts: &[String]) -> u64 {
    std::hint::black_box(inflate_floor::inflate_parts(
        path,
        parts.iter().map(String::as_str),
    ));
    0
}

/// Reads every worksheet on one thread; with `streaming` given, records the
/// time from the end of the open to the end of the read there.
/// Reads every worksheet on one thread; returns the cells and the time
/// from the end of the open to the end of the read.
fn read_sheetstream(path: &Path) -> (u64, Duration) {
    let mut workbook = Workbook::open(path).expect("open");
    let start = Instant::now();
    let mut total = SheetCounts::default();
    for position in 0..workbook.sheets().len() {
        if workbook.sheets()[position].kind() != SheetKind::Worksheet {
            continue;
        }
        workbook
            .for_each_row(position, |row| total.add_row(&row))
            .expect("read");
    }
    std::hint::black_box(&total);
    (total.cells, start.elapsed())
}

/// Inflates every worksheet into memory first (not timed), then times
/// scanning and resolving them from memory: sheetstream's cost without
/// inflate.
fn scan_in_memory(path: &Path) -> (u64, Duration) {
    let workbook = Workbook::open(path).expect("open");
    let mut archive =
        zip::ZipArchive::new(BufReader::new(File::open(path).expect("open"))).expect("zip");
    let sheets: Vec<(usize, Vec<u8>)> = workbook
        .sheets()
        .iter()
        .enumerate()
        .filter(|(_, sheet)| sheet.kind() == SheetKind::Worksheet)
        .map(|(position, sheet)| {
            let mut xml = Vec::new();
            archive
                .by_name(sheet.part())
                .expect("sheet part")
                .read_to_end(&mut xml)
                .expect("inflate");
            (position, xml)
        })
        .collect();
    let start = Instant::now();
    let mut total = SheetCounts::default();
    for (position, xml) in &sheets {
        let counts =
            sheetstream::fuzzing::count_sheet_xml(&workbook, *position, xml).expect("read");
        total.merge(&counts);
    }
    std::hint::black_box(&total);
    (total.cells, start.elapsed())
}

fn read_calamine_cells(path: &Path) -> u64 {
    let mut workbook: Xlsx<BufReader<File>> = open_workbook(path).expect("open");
    let mut counts = SheetCounts::default();
    for name in workbook.sheet_names() {
        let mut reader = workbook
            .worksheet_cells_reader(&name)
            .expect("cells reader");
        while let Some(cell) = reader.next_cell().expect("next cell") {
            count_calamine_cell(cell.get_value(), &mut counts);
        }
    }
    std::hint::black_box(&counts);
    counts.cells
}
