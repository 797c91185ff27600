//! What the benchmarks read a workbook with, in any format: sheetstream
//! on two threads, calamine's whole-sheet range, the value counting both
//! share, and the peak RSS each child process reports. Each bench uses
//! some of it.
#![allow(dead_code)]

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use calamine::{Data, DataRef, Reader, open_workbook};
use sheetstream::{SheetCounts, Workbook};

/// Every worksheet of `path` on two threads of the parallel engine; the
/// number of cells.
pub fn sheetstream_two_threads(path: &Path) -> u64 {
    let workbook = Workbook::open(path).expect("open");
    let total = workbook
        .parallel()
        .threads(2)
        .fold(
            SheetCounts::default,
            |counts, _sheet, row| counts.add_row(&row),
            |mut a, b| {
                a.merge(&b);
                a
            },
        )
        .expect("read");
    std::hint::black_box(&total);
    total.cells
}

/// One calamine cell (from a cells reader) into `counts`, as
/// `SheetCounts::add_row` counts sheetstream's.
pub fn count_calamine_cell(value: &DataRef<'_>, counts: &mut SheetCounts) {
    match value {
        DataRef::Empty => return,
        DataRef::Int(number) => counts.number_sum += *number as f64,
        DataRef::Float(number) => counts.number_sum += number,
        DataRef::String(text) => counts.text_bytes += text.len() as u64,
        DataRef::SharedString(text) => counts.text_bytes += text.len() as u64,
        DataRef::Bool(flag) => counts.trues += u64::from(*flag),
        DataRef::DateTime(date) => counts.date_serial_sum += date.as_f64(),
        DataRef::DateTimeIso(text) | DataRef::DurationIso(text) => {
            counts.text_bytes += text.len() as u64
        }
        DataRef::Error(_) => counts.errors += 1,
    }
    counts.cells += 1;
}

/// Every sheet of `path` through calamine reader `W`'s `worksheet_range`
/// (the whole sheet as a dense range first); the number of cells.
pub fn calamine_range<W: Reader<BufReader<File>>>(path: &Path) -> u64 {
    let mut workbook: W = open_workbook(path).expect("open");
    let mut counts = SheetCounts::default();
    for name in workbook.sheet_names() {
        let range = workbook.worksheet_range(&name).expect("range");
        for (_, _, value) in range.used_cells() {
            match value {
                Data::Empty => continue,
                Data::Int(number) => counts.number_sum += *number as f64,
                Data::Float(number) => counts.number_sum += number,
                Data::String(text) | Data::DateTimeIso(text) | Data::DurationIso(text) => {
                    counts.text_bytes += text.len() as u64
                }
                Data::Bool(flag) => counts.trues += u64::from(*flag),
                Data::DateTime(date) => counts.date_serial_sum += date.as_f64(),
                Data::Error(_) => counts.errors += 1,
            }
            counts.cells += 1;
        }
    }
    std::hint::black_box(&counts);
    counts.cells
}

/// This process's peak RSS (VmHWM) in bytes; 0 where /proc is not there.
pub fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib * 1024)
}
