//! Arrow benchmark: typed record batches of the 1M x 10 sheet against
//! streaming it with `count`, against calamine's `worksheet_range`
//! converted to the same Arrow arrays (range, then arrays, as fastexcel
//! does), a projection of 2 of the 10 columns, the peak RSS of writing it
//! to Parquet at 200k and 1M rows, `sheetstream parquet` against
//! `sheetstream csv`, and the corner-cell workbook (cells at A1 and
//! XFD1048576 only: 16,384 columns, 1,048,576 rows; target under 1 s and
//! 100 MB), and many files: eight one-sheet workbooks (125k x 10 each) read
//! by one `read_files` on two threads (one pool of (file, sheet) pairs)
//! against one `read_files` per file, one file after another (each lone
//! sheet pipelined over two threads), and against one thread; and the
//! whole table of the 1M x 10 sheet (`read_sheet_table`) against the same
//! sheet with a misfit (a text in the Int64 column A) in its last row,
//! which is read again with that column widened. For the selection, the
//! floor it runs on: two of the ten columns from the owned reader (a lone
//! sheet inflated on one thread and scanned on another, as Python's
//! `scan_excel` reads it) against inflating the sheet part alone, and
//! against the owned reader of every column.
//!
//! ```text
//! cargo run --release --example generate_bench_data   # once
//! cargo bench --bench arrow
//! ```
//!
//! Each reader runs in a child process of its own (its peak RSS, VmHWM, is
//! its own) and reports its fastest of a few runs, open included. The
//! mixed sheet has no header row: every reader reads it with none.

#[path = "support/calamine_batch.rs"]
mod calamine_batch;
#[path = "support/inflate_floor.rs"]
mod inflate_floor;
#[path = "support/results.rs"]
mod results;
// `ensure_all` (every workbook) is for the other benches.
#[path = "support/readers.rs"]
mod readers;
#[allow(dead_code)]
#[path = "support/workbooks.rs"]
mod workbooks;

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use calamine::{Reader, Xlsx, open_workbook};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use readers::peak_rss_bytes;
use sheetstream::arrow::{ArrowOptions, Header, SheetChoice};
use sheetstream::{ColumnSpec, SheetCounts, Workbook};

const SHEET: &str = "one_sheet_1m_x10.xlsx";

/// Written next to the 1M x 10 sheet when missing.
const CORNER_CELL: &str = "corner_cell_a1_xfd1048576.xlsx";

/// The 1M x 10 sheet with its last row's first cell a text: a misfit in
/// an Int64 column, after every row but one (written when missing).
const LATE_MISFIT: &str = "one_sheet_1m_x10_late_misfit.xlsx";

/// The many-sheets workbook (8 x 125k x 10), read with two threads.
const MANY: &str = "eight_sheets_125k_x10.xlsx";

/// One sheet of the many-sheets workbook's shape, written next to the
/// 1M x 10 sheet when missing; the many-files readers read it eight times
/// (the same path given eight times: eight workbooks opened).
const ONE_OF_MANY: workbooks::Recipe = workbooks::Recipe {
    name: "one_sheet_125k_x10.xlsx",
    description: "1 sheet x 125,000 rows x 10 columns, mixed",
    sheets: 1,
    rows: 125_000,
    columns: 10,
    strings: workbooks::Strings::Shared,
};

/// How many files the many-files readers read.
const FILES: usize = 8;

const READERS: [&str; 17] = [
    "count-1t",
    "arrow-1t",
    "arrow-owned",
    "arrow-2-of-10",
    "owned-2-of-10",
    "inflate",
    "calamine-arrow",
    "parquet-200k",
    "parquet-1m",
    "shared-strings",
    "corner-cell",
    "many-8x125k-2t",
    "files-8x125k-2t",
    "files-8-serial-2t",
    "files-8x125k-1t",
    "table-1m",
    "table-1m-misfit",
];

fn main() {
    let record = results::Results::new("arrow");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(
            &args[1],
            Path::new(&args[2]),
            args[3].parse().expect("repetitions"),
        );
        return;
    }
    if args.iter().any(|arg| arg == "--list") {
        return;
    }
    // Readers named on the command line run alone (an A/B pair, say).
    let chosen: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|arg| READERS.contains(arg))
        .collect();
    // Only the workbook this bench reads is written when missing.
    let recipe = workbooks::RECIPES
        .iter()
        .find(|recipe| recipe.name == SHEET)
        .expect("the 1M x 10 recipe");
    let dir = workbooks::data_dir();
    let path = dir.join(SHEET);
    let many = workbooks::RECIPES
        .iter()
        .find(|recipe| recipe.name == MANY)
        .expect("the 8 x 125k x 10 recipe");
    for (recipe, path) in [
        (recipe, path.clone()),
        (many, dir.join(MANY)),
        (&ONE_OF_MANY, dir.join(ONE_OF_MANY.name)),
    ] {
        if !path.exists() {
            std::fs::create_dir_all(&dir).expect("the bench data folder");
            eprintln!("writing {} ({})", path.display(), recipe.description);
            let partial = path.with_extension("partial");
            workbooks::write(recipe, &partial).expect("write the workbook");
            std::fs::rename(&partial, &path).expect("rename the workbook");
        }
    }
    let corner = path.with_file_name(CORNER_CELL);
    if !corner.exists() {
        write_corner_cell(&corner);
    }
    let late = path.with_file_name(LATE_MISFIT);
    if !late.exists() {
        eprintln!("writing {} (1M x 10, a text in A1000000)", late.display());
        write_late_misfit(&late);
    }
    record.say(format!(
        "{:<16} {:>9} {:>9} {:>10}",
        "reader", "seconds", "peak MB", "rows"
    ));
    let mut results = Vec::new();
    for reader in READERS {
        if !chosen.is_empty() && !chosen.contains(&reader) {
            continue;
        }
        let repetitions = match reader {
            "calamine-arrow" | "parquet-200k" | "parquet-1m" | "shared-strings" | "table-1m"
            | "table-1m-misfit" => 1,
            _ => 3,
        };
        let (seconds, peak, rows) = run_child(reader, &path, repetitions);
        record.say(format!(
            "{reader:<16} {seconds:>9.3} {:>9.1} {rows:>10}",
            peak as f64 / 1e6
        ));
        results.push((reader, seconds, peak));
    }
    if !chosen.is_empty() {
        return;
    }
    let get = |name: &str| results.iter().find(|r| r.0 == name).copied().unwrap();
    let (_, count, _) = get("count-1t");
    let (_, arrow, _) = get("arrow-1t");
    let (_, owned, _) = get("arrow-owned");
    let (_, projected, _) = get("arrow-2-of-10");
    let (_, owned_projected, _) = get("owned-2-of-10");
    let (_, inflate, _) = get("inflate");
    let (_, calamine, _) = get("calamine-arrow");
    let (_, _, strings) = get("shared-strings");
    let (_, _, rss_200k) = get("parquet-200k");
    let (_, _, rss_1m) = get("parquet-1m");
    let (_, corner_seconds, corner_peak) = get("corner-cell");
    let (_, many_seconds, many_peak) = get("many-8x125k-2t");
    let (_, files, files_peak) = get("files-8x125k-2t");
    let (_, files_serial, files_serial_peak) = get("files-8-serial-2t");
    let (_, files_1t, _) = get("files-8x125k-1t");
    let (_, table, table_peak) = get("table-1m");
    let (_, table_misfit, table_misfit_peak) = get("table-1m-misfit");
    record.say(format!(
        "  arrow-1t/count-1t {:.2}x (target <= 1.5x); arrow-owned/count-1t {:.2}x",
        arrow / count,
        owned / count
    ));
    record.say(format!(
        "  calamine-arrow/arrow-1t {:.2}x (target >= 5x)",
        calamine / arrow
    ));
    record.say(format!(
        "  projection: 2 of 10 columns {:.3} s vs 10 of 10 {:.3} s ({:.0}% saved)",
        projected,
        arrow,
        (1.0 - projected / arrow) * 100.0
    ));
    record.say(format!(
        "  selection over two threads: arrow-owned/owned-2-of-10 {:.2}x; owned-2-of-10/inflate (the floor, one thread) {:.2}x",
        owned / owned_projected,
        owned_projected / inflate
    ));
    record.say(format!(
        "  parquet peak RSS: 200k rows {:.1} MB, 1M rows {:.1} MB; open alone (shared strings) {:.1} MB; 1M - open {:.1} MB (target <= 64 MiB = 67.1 MB)",
        rss_200k as f64 / 1e6,
        rss_1m as f64 / 1e6,
        strings as f64 / 1e6,
        rss_1m.saturating_sub(strings) as f64 / 1e6
    ));
    record.say(format!(
        "  corner-cell (A1 + XFD1048576) into batches: {corner_seconds:.3} s, {:.1} MB peak (target < 1 s, < 100 MB)",
        corner_peak as f64 / 1e6
    ));
    record.say(format!(
        "  many sheets (8 x 125k x 10, every sheet, 2 threads, read_files): {many_seconds:.3} s, {:.1} MB peak",
        many_peak as f64 / 1e6
    ));
    record.say(format!(
        "  many files (8 one-sheet workbooks of 125k x 10): one pool on 2 threads {files:.3} s ({:.1} MB peak), one file after another on 2 threads {files_serial:.3} s ({:.1} MB peak), 1 thread {files_1t:.3} s; after-another/pool {:.2}x, 1-thread/pool {:.2}x",
        files_peak as f64 / 1e6,
        files_serial_peak as f64 / 1e6,
        files_serial / files,
        files_1t / files
    ));
    record.say(format!(
        "  whole table of 1M x 10 (read_sheet_table): {table:.3} s ({:.1} MB peak); with a misfit in its last row, read again wider: {table_misfit:.3} s ({:.1} MB peak), {:.2}x",
        table_peak as f64 / 1e6,
        table_misfit_peak as f64 / 1e6,
        table_misfit / table
    ));
    cli_comparison(&path);
    record.write();
}

/// The 1M x 10 sheet, its last row's first cell a text instead of the
/// whole number column A holds everywhere else.
fn write_late_misfit(path: &Path) {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let date = rust_xlsxwriter::Format::new().set_num_format("yyyy-mm-dd");
    let date_time = rust_xlsxwriter::Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    let sheet = workbook.add_worksheet_with_low_memory();
    let rows = 1_000_000;
    for row in 0..rows {
        workbooks::write_mixed_row(sheet, row, 10, &date, &date_time).expect("a row");
    }
    sheet
        .write_string(rows - 1, 0, "late text")
        .expect("the misfit");
    let partial = path.with_extension("partial");
    workbook.save(&partial).expect("write the workbook");
    std::fs::rename(&partial, path).expect("rename the workbook");
}

/// The whole table, widened on a misfit (every batch held, as a
/// DataFrame would hold them).
fn whole_table(path: &Path) -> u64 {
    let mut workbook = Workbook::open(path).expect("open");
    let (_, batches) = options()
        .read_sheet_table(&mut workbook, 0)
        .expect("the table");
    batches.iter().map(|batch| batch.num_rows() as u64).sum()
}

/// The corner-cell workbook: `top-left` at A1, 42 at XFD1048576.
fn write_corner_cell(path: &Path) {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet_with_constant_memory();
    sheet.write_string(0, 0, "top-left").expect("A1");
    sheet
        .write_number(1_048_575, 16_383, 42)
        .expect("XFD1048576");
    let partial = path.with_extension("partial");
    workbook
        .save(&partial)
        .expect("write the corner-cell workbook");
    std::fs::rename(&partial, path).expect("rename the corner-cell workbook");
}

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
        .map(|f| f.parse().expect("a number"))
        .collect();
    (fields[0], fields[1] as u64, fields[2] as u64)
}

fn child(reader: &str, path: &Path, repetitions: u32) {
    let mut best = Duration::MAX;
    let mut rows = 0;
    // The part of the sheet the others read (the first), as the workbook
    // names it; looked up before the clock.
    let sheet_part = (reader == "inflate").then(|| {
        Workbook::open(path).expect("open").sheets()[0]
            .part()
            .to_owned()
    });
    for _ in 0..repetitions {
        let start = Instant::now();
        rows = match reader {
            "count-1t" => count(path),
            "arrow-1t" => arrow_borrowed(path, None),
            "arrow-owned" => arrow_owned(path, None),
            "arrow-2-of-10" => arrow_borrowed(path, Some("A:B")),
            "owned-2-of-10" => arrow_owned(path, Some("A:B")),
            // The sheet part inflated and dropped: no rows.
            "inflate" => {
                std::hint::black_box(inflate_floor::inflate_parts(path, sheet_part.as_deref()));
                0
            }
            "calamine-arrow" => calamine_arrow(path),
            "parquet-200k" => parquet(path, 200_000),
            "parquet-1m" => parquet(path, u64::MAX),
            // Default options: A1 is the header, XFD1048576 the one value.
            "corner-cell" => {
                let corner = path.with_file_name(CORNER_CELL);
                let mut workbook = Workbook::open(&corner).expect("open");
                let mut batches = ArrowOptions::new()
                    .read_sheet(&mut workbook, 0)
                    .expect("open the sheet");
                let mut rows = 0;
                while let Some(batch) = batches.next_batch().expect("batch") {
                    rows += batch.num_rows() as u64;
                    std::hint::black_box(&batch);
                }
                rows
            }
            "many-8x125k-2t" => {
                let reader = options()
                    .threads(2)
                    .read_files([path.with_file_name(MANY)], SheetChoice::All)
                    .expect("open the sheets");
                reader
                    .map(|batch| batch.expect("batch").num_rows() as u64)
                    .sum()
            }
            "files-8x125k-2t" => many_files(path, 2),
            "files-8x125k-1t" => many_files(path, 1),
            // How files were read before they shared the pool: one
            // `read_files` per file, each lone sheet pipelined.
            "files-8-serial-2t" => (0..FILES)
                .map(|_| {
                    let reader = options()
                        .threads(2)
                        .read_files([path.with_file_name(ONE_OF_MANY.name)], SheetChoice::First)
                        .expect("open the sheet");
                    reader
                        .map(|batch| batch.expect("batch").num_rows() as u64)
                        .sum::<u64>()
                })
                .sum(),
            "shared-strings" => {
                std::hint::black_box(Workbook::open(path).expect("open"));
                0
            }
            "table-1m" => whole_table(path),
            "table-1m-misfit" => whole_table(&path.with_file_name(LATE_MISFIT)),
            other => panic!("unknown reader {other}"),
        };
        best = best.min(start.elapsed());
    }
    println!("{} {} {rows}", best.as_secs_f64(), peak_rss_bytes());
}

/// `sheetstream count -t 1`'s work: every value into `SheetCounts`.
fn count(path: &Path) -> u64 {
    let mut workbook = Workbook::open(path).expect("open");
    let mut counts = SheetCounts::default();
    workbook
        .for_each_row(0, |row| counts.add_row(&row))
        .expect("read");
    std::hint::black_box(&counts);
    counts.rows
}

/// The eight one-sheet workbooks, with one `read_files` on `threads`.
fn many_files(path: &Path, threads: usize) -> u64 {
    let files = vec![path.with_file_name(ONE_OF_MANY.name); FILES];
    let reader = options()
        .threads(threads)
        .file_column(Some("file"))
        .read_files(files, SheetChoice::First)
        .expect("open the sheets");
    reader
        .map(|batch| batch.expect("batch").num_rows() as u64)
        .sum()
}

fn options() -> ArrowOptions {
    ArrowOptions::new().header(Header::None)
}

/// Record batches on the calling thread.
fn arrow_borrowed(path: &Path, columns: Option<&str>) -> u64 {
    let mut workbook = Workbook::open(path).expect("open");
    let mut options = options();
    if let Some(spec) = columns {
        options = options.columns(ColumnSpec::parse(spec).expect("columns"));
    }
    let mut batches = options
        .read_sheet(&mut workbook, 0)
        .expect("open the sheet");
    let mut rows = 0;
    while let Some(batch) = batches.next_batch().expect("batch") {
        rows += batch.num_rows() as u64;
        std::hint::black_box(&batch);
    }
    rows
}

/// Record batches from the owned reader (a worker thread), of `columns`
/// (all for None).
fn arrow_owned(path: &Path, columns: Option<&str>) -> u64 {
    let workbook = Arc::new(Workbook::open(path).expect("open"));
    let mut options = options();
    if let Some(spec) = columns {
        options = options.columns(ColumnSpec::parse(spec).expect("columns"));
    }
    let reader = options.sheet_reader(workbook, 0).expect("open the sheet");
    reader
        .map(|batch| batch.expect("batch").num_rows() as u64)
        .sum()
}

/// Writes the sheet (or its first `rows` rows) to Parquet, zstd, batches
/// of 65,536 rows.
fn parquet(path: &Path, rows: u64) -> u64 {
    let mut workbook = Workbook::open(path).expect("open");
    let mut batches = options()
        .n_rows((rows != u64::MAX).then_some(rows))
        .read_sheet(&mut workbook, 0)
        .expect("open the sheet");
    let out =
        std::env::temp_dir().join(format!("sheetstream-bench-{}.parquet", std::process::id()));
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .build();
    let mut writer = ArrowWriter::try_new(
        File::create(&out).expect("create"),
        batches.schema(),
        Some(properties),
    )
    .expect("writer");
    let mut written = 0;
    while let Some(batch) = batches.next_batch().expect("batch") {
        written += batch.num_rows() as u64;
        writer.write(&batch).expect("write");
    }
    writer.close().expect("close");
    std::fs::remove_file(&out).expect("remove");
    written
}

/// calamine's `worksheet_range`, then one Arrow array per column, typed
/// from the first 1,000 rows (as fastexcel does: range, then arrays).
fn calamine_arrow(path: &Path) -> u64 {
    let mut workbook: Xlsx<BufReader<File>> = open_workbook(path).expect("open");
    let name = workbook.sheet_names()[0].clone();
    let range = workbook.worksheet_range(&name).expect("range");
    let batch = calamine_batch::range_to_batch(&range, false);
    std::hint::black_box(&batch);
    batch.num_rows() as u64
}

/// `sheetstream parquet` against `sheetstream csv` of the sheet (default
/// threads), wall time of the best of three, and the output sizes.
fn cli_comparison(path: &Path) {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_sheetstream"));
    let dir = std::env::temp_dir().join(format!("sheetstream-bench-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let run = |command: &str, output: &Path, extra: &[&str]| -> (f64, u64) {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let start = Instant::now();
            let mut args = vec![
                command,
                path.to_str().expect("path"),
                "-o",
                output.to_str().expect("path"),
                "--quiet",
            ];
            args.extend_from_slice(extra);
            let status = Command::new(&binary)
                .args(&args)
                .status()
                .expect("run the CLI");
            assert!(status.success(), "sheetstream {command} failed");
            best = best.min(start.elapsed().as_secs_f64());
        }
        (best, std::fs::metadata(output).expect("output").len())
    };
    let (csv, csv_bytes) = run("csv", &dir.join("out.csv"), &[]);
    let (parquet, parquet_bytes) = run("parquet", &dir.join("out.parquet"), &["--no-header"]);
    println!(
        "  CLI: sheetstream parquet {parquet:.3} s ({:.1} MB) vs sheetstream csv {csv:.3} s ({:.1} MB): {:.2}x (target <= 2x)",
        parquet_bytes as f64 / 1e6,
        csv_bytes as f64 / 1e6,
        parquet / csv
    );
    std::fs::remove_dir_all(&dir).expect("remove the temp folder");
}
