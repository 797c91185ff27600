//! `.xlsb` benchmark: the 1M x 10 benchmark sheet written as `.xlsb` (by
//! `support/xlsb_writer.rs`) against the same data as `.xlsx`, and against
//! calamine's `.xlsb` readers; 8 sheets of 125,000 rows on one and two
//! threads.
//!
//! ```text
//! cargo bench --bench xlsb
//! ```
//!
//! The workbooks are written to `target/bench-data` on first use (the
//! `.xlsx` ones by `support/workbooks.rs`, as the read bench has them).
//! Each measurement runs in a child process of its own (its peak resident
//! memory is its own) and reports its fastest of several runs. Readers:
//!
//! - `xlsb`, `xlsx`: `Workbook::open`, then `for_each_row` over every
//!   sheet into `SheetCounts` (the `count` command's work), on one thread;
//! - `xlsb-2t`: `parallel().threads(2)` (a lone sheet is inflated on one
//!   thread and read on the other; many sheets go two at a time);
//! - `calamine-cells`, `calamine-range`: calamine's `.xlsb`
//!   `worksheet_cells_reader` and `worksheet_range`, every cell visited.

// The recipes and the .xlsx writer; not every helper is used here.
#[path = "support/readers.rs"]
mod readers;
#[path = "support/results.rs"]
mod results;
#[allow(dead_code)]
#[path = "support/workbooks.rs"]
mod workbooks;
#[path = "support/xlsb_writer.rs"]
mod xlsb_writer;

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use calamine::{Reader, Xlsb, open_workbook};
use readers::{calamine_range, count_calamine_cell, peak_rss_bytes, sheetstream_two_threads};
use sheetstream::{SheetCounts, SheetKind, Workbook};
use xlsb_writer::{STYLE_DATE, STYLE_DATE_TIME, XlsbCell, XlsbWriter};

/// Writes the mixed recipe of `support/workbooks.rs` (`write_mixed_row`)
/// as `.xlsb`: the same values, column by column.
fn write_xlsb(recipe: &workbooks::Recipe, path: &Path) {
    let mut writer = XlsbWriter::new();
    let mut text = String::new();
    for sheet in 0..recipe.sheets {
        writer.add_sheet(&format!("Sheet{}", sheet + 1), 0);
        for row in 0..recipe.rows {
            writer.row(row);
            let i = f64::from(row);
            for column in 0..u32::from(recipe.columns) {
                match column % 10 {
                    0 => writer.cell(column, 0, XlsbCell::Number(i)),
                    1 => writer.cell(column, 0, XlsbCell::Number((i * 1.25) % 9973.0 - 17.5)),
                    2 => writer.cell(column, STYLE_DATE, XlsbCell::Number(36526.0 + (i % 9000.0))),
                    3 => writer.cell(
                        column,
                        STYLE_DATE_TIME,
                        XlsbCell::Number(40000.0 + i / 1440.0),
                    ),
                    4 => writer.cell(column, 0, XlsbCell::Bool(row.is_multiple_of(3))),
                    5 => writer.cell(
                        column,
                        0,
                        XlsbCell::Text(
                            workbooks::CATEGORIES[row as usize % workbooks::CATEGORIES.len()],
                        ),
                    ),
                    6 => {
                        text.clear();
                        text.push_str(&format!("item-{row:07}"));
                        writer.cell(column, 0, XlsbCell::Text(&text));
                    }
                    7 => {
                        if row.is_multiple_of(3) {
                            writer.cell(column, 0, XlsbCell::Number(i / 7.0));
                        }
                    }
                    8 => {
                        if row.is_multiple_of(5) {
                            writer.cell(column, 0, XlsbCell::Text("sparse note"));
                        }
                    }
                    _ => writer.cell(column, 0, XlsbCell::Number(-(i % 1000.0) / 100.0)),
                }
            }
        }
    }
    writer.save(path).expect("write the .xlsb");
}

/// The `.xlsx` and `.xlsb` files of a recipe, written when missing.
fn ensure(recipe: &'static workbooks::Recipe) -> (PathBuf, PathBuf) {
    let dir = workbooks::data_dir();
    std::fs::create_dir_all(&dir).expect("create the bench data folder");
    let xlsx = dir.join(recipe.name);
    if !xlsx.exists() {
        eprintln!("writing {} ({})", xlsx.display(), recipe.description);
        let partial = xlsx.with_extension("partial");
        workbooks::write(recipe, &partial).expect("write the .xlsx");
        std::fs::rename(&partial, &xlsx).expect("rename");
    }
    let xlsb = xlsx.with_extension("xlsb");
    if !xlsb.exists() {
        eprintln!("writing {} ({})", xlsb.display(), recipe.description);
        let partial = xlsb.with_extension("partial");
        write_xlsb(recipe, &partial);
        std::fs::rename(&partial, &xlsb).expect("rename");
    }
    (xlsx, xlsb)
}

fn main() {
    let record = results::Results::new("xlsb");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(
            &args[1],
            Path::new(&args[2]),
            args[3].parse().expect("repetitions"),
        );
        return;
    }
    let recipe = |name: &str| {
        workbooks::RECIPES
            .iter()
            .find(|recipe| recipe.name == name)
            .expect("a recipe")
    };
    record.say(format!(
        "{:<28} {:<15} {:>9} {:>10} {:>9} {:>10}",
        "workbook", "reader", "seconds", "Mcells/s", "peak MB", "cells"
    ));
    let show = |name: &str, reader: &str, (seconds, cells, rss): (f64, u64, u64)| {
        record.say(format!(
            "{:<28} {:<15} {:>9.3} {:>10.2} {:>9.1} {:>10}",
            name,
            reader,
            seconds,
            cells as f64 / seconds / 1e6,
            rss as f64 / 1e6,
            cells
        ));
        seconds
    };
    let one = recipe("one_sheet_1m_x10.xlsx");
    let (xlsx, xlsb) = ensure(one);
    let name = one.name.trim_end_matches(".xlsx");
    let xlsb_time = show(name, "xlsb", run_child("sheetstream", &xlsb, 5));
    let xlsx_time = show(name, "xlsx", run_child("sheetstream", &xlsx, 5));
    let piped = show(name, "xlsb-2t", run_child("sheetstream-2t", &xlsb, 5));
    let cells = show(
        name,
        "calamine-cells",
        run_child("calamine-cells", &xlsb, 3),
    );
    let range = show(
        name,
        "calamine-range",
        run_child("calamine-range", &xlsb, 2),
    );
    record.say(format!(
        "  ratios: xlsb/xlsx {:.2}x (target <= 0.5); calamine-cells/xlsb {:.2}x (target >= 5); \
         calamine-range/xlsb {:.2}x (target >= 10); xlsb/xlsb-2t {:.2}x",
        xlsb_time / xlsx_time,
        cells / xlsb_time,
        range / xlsb_time,
        xlsb_time / piped,
    ));
    // The ratios above are one thread against one; a lone sheet read
    // through `parallel()` with two threads or more (the CLI by default,
    // on two cores or more) is pipelined: inflated on one thread, its
    // records read on the other.
    record.say(format!(
        "  pipelined (xlsb-2t): calamine-cells/xlsb-2t {:.2}x; calamine-range/xlsb-2t {:.2}x",
        cells / piped,
        range / piped,
    ));
    let eight = recipe("eight_sheets_125k_x10.xlsx");
    let (_, xlsb) = ensure(eight);
    let name = eight.name.trim_end_matches(".xlsx");
    let one_thread = show(name, "xlsb", run_child("sheetstream", &xlsb, 5));
    let two_threads = show(name, "xlsb-2t", run_child("sheetstream-2t", &xlsb, 5));
    record.say(format!(
        "  ratios: one thread/two threads {:.2}x (target >= 1.8 on two free cores)",
        one_thread / two_threads
    ));
    record.write();
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
        cells = match reader {
            "sheetstream" => read_sheetstream(path),
            "sheetstream-2t" => sheetstream_two_threads(path),
            "calamine-cells" => read_calamine_cells(path),
            "calamine-range" => calamine_range::<Xlsb<_>>(path),
            other => panic!("unknown reader {other}"),
        };
        best = best.min(start.elapsed());
    }
    println!("{} {} {}", best.as_secs_f64(), cells, peak_rss_bytes());
}

fn read_sheetstream(path: &Path) -> u64 {
    let mut workbook = Workbook::open(path).expect("open");
    let mut total = SheetCounts::default();
    for position in 0..workbook.sheets().len() {
        if workbook.sheets()[position].kind() == SheetKind::Worksheet {
            workbook
                .for_each_row(position, |row| total.add_row(&row))
                .expect("read");
        }
    }
    std::hint::black_box(&total);
    total.cells
}

fn read_calamine_cells(path: &Path) -> u64 {
    let mut workbook: Xlsb<BufReader<File>> = open_workbook(path).expect("open");
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
