//! `sheetstream parquet`, `arrow` and `schema` on a workbook written with
//! rust_xlsxwriter: the Parquet file read back with the parquet crate and
//! the IPC stream read back with arrow-ipc equal what the library's Arrow
//! reader gives.
#![cfg(feature = "cli")]

use crate::common;

use std::process::Command;

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rust_xlsxwriter::{ExcelDateTime, Format, Workbook as XlsxWorkbook};
use sheetstream::Workbook;
use sheetstream::arrow::ArrowOptions;
use sheetstream::arrow::arrow_array::{Array, Int64Array, RecordBatch, StringArray};

/// Two sheets: `Sales` (id, item, price, sold, when, ok) of 300 rows, and
/// `Other` (id, note) of 2 rows.
fn workbook() -> Vec<u8> {
    let mut book = XlsxWorkbook::new();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let stamp = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    let sheet = book.add_worksheet().set_name("Sales").unwrap();
    for (column, name) in ["id", "item", "price", "sold", "when", "ok"]
        .iter()
        .enumerate()
    {
        sheet.write_string(0, column as u16, *name).unwrap();
    }
    for n in 1..=300u32 {
        sheet.write_number(n, 0, f64::from(n)).unwrap();
        sheet.write_string(n, 1, format!("item {}", n % 7)).unwrap();
        sheet.write_number(n, 2, f64::from(n) * 0.25).unwrap();
        let day = ExcelDateTime::from_ymd(2024, 1, 1 + (n % 28) as u8).unwrap();
        sheet.write_datetime_with_format(n, 3, &day, &date).unwrap();
        let moment = ExcelDateTime::from_ymd(2024, 2, 1)
            .unwrap()
            .and_hms((n % 24) as u16, 30, 0)
            .unwrap();
        sheet
            .write_datetime_with_format(n, 4, &moment, &stamp)
            .unwrap();
        sheet.write_boolean(n, 5, n % 2 == 0).unwrap();
    }
    let other = book.add_worksheet().set_name("Other").unwrap();
    other.write_string(0, 0, "id").unwrap();
    other.write_string(0, 1, "note").unwrap();
    other.write_number(1, 0, 1.0).unwrap();
    other.write_string(1, 1, "first").unwrap();
    other.write_number(2, 0, 2.0).unwrap();
    book.save_to_buffer().unwrap()
}

fn library_batches(bytes: &[u8], sheet: &str) -> Vec<RecordBatch> {
    let mut workbook = Workbook::from_bytes(bytes.to_vec()).unwrap();
    ArrowOptions::new()
        .read_sheet(&mut workbook, sheet)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

/// The one batch a Parquet file of at most 1,000 rows reads back as.
fn read_parquet(path: &std::path::Path) -> (RecordBatch, usize) {
    let file = std::fs::File::open(path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_batch_size(1_000);
    let row_groups = builder.metadata().num_row_groups();
    let mut batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    assert_eq!(batches.len(), 1);
    (batches.remove(0), row_groups)
}

fn run(args: &[&str]) -> std::process::Output {
    let output = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args(args)
        .output()
        .expect("run the sheetstream binary");
    assert!(
        output.status.success(),
        "sheetstream {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn parquet_from_the_cli_reads_back_as_the_library_batches() {
    let bytes = workbook();
    let input = common::temp_file("arrow-cli-parquet", &bytes);
    let mut expected = library_batches(&bytes, "Sales");
    assert_eq!(expected.len(), 1);
    let expected = expected.remove(0);
    assert_eq!(expected.num_rows(), 300);
    for codec in ["zstd", "snappy", "none"] {
        let output = input.0.with_extension(format!("{codec}.parquet"));
        run(&[
            "parquet",
            input.0.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
            "--compression",
            codec,
            "--row-group-size",
            "128",
            "--batch-size",
            "100",
        ]);
        let (got, row_groups) = read_parquet(&output);
        assert_eq!(row_groups, 3, "{codec}");
        assert_eq!(got.schema().fields(), expected.schema().fields(), "{codec}");
        assert_eq!(got.columns(), expected.columns(), "{codec}");
        std::fs::remove_file(&output).unwrap();
    }
}

#[test]
fn one_parquet_file_per_sheet_or_one_of_every_sheet() {
    let bytes = workbook();
    let input = common::temp_file("arrow-cli-sheets", &bytes);
    let folder = input.0.with_extension("sheets");
    run(&[
        "parquet",
        input.0.to_str().unwrap(),
        "--all",
        "--per-sheet",
        "-o",
        folder.to_str().unwrap(),
    ]);
    for (sheet, rows) in [("Sales", 300), ("Other", 2)] {
        let file = std::fs::File::open(folder.join(format!("{sheet}.parquet"))).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
        assert_eq!(
            reader.metadata().file_metadata().num_rows(),
            rows,
            "{sheet}"
        );
    }
    std::fs::remove_dir_all(&folder).unwrap();
    // One file: columns united by name, with the sheet column.
    let output = input.0.with_extension("all.parquet");
    run(&[
        "parquet",
        input.0.to_str().unwrap(),
        "--all",
        "--union-by-name",
        "--sheet-column",
        "sheet",
        "--columns",
        "id,2",
        "-o",
        output.to_str().unwrap(),
    ]);
    let (all, _) = read_parquet(&output);
    let names: Vec<&String> = all.schema_ref().fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["sheet", "id", "item", "note"]);
    assert_eq!(all.num_rows(), 302);
    let sheets = all
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let ids = all.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
    let other: Vec<i64> = (0..all.num_rows())
        .filter(|&at| sheets.value(at) == "Other")
        .map(|at| ids.value(at))
        .collect();
    assert_eq!(other, [1, 2]);
    std::fs::remove_file(&output).unwrap();
}

#[test]
fn the_ipc_stream_reads_back_as_the_library_batches() {
    let bytes = workbook();
    let input = common::temp_file("arrow-cli-ipc", &bytes);
    let output = run(&["arrow", input.0.to_str().unwrap(), "--sheet", "Sales"]);
    let reader =
        arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(output.stdout), None)
            .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(batches, library_batches(&bytes, "Sales"));
}

#[test]
fn schema_prints_each_sheets_columns_and_types() {
    let bytes = workbook();
    let input = common::temp_file("arrow-cli-schema", &bytes);
    let output = run(&["schema", input.0.to_str().unwrap(), "--all"]);
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "sheet Sales\n  id\tInt64\n  item\tUtf8\n  price\tFloat64\n  sold\tDate32\n  when\tTimestamp(ms)\n  ok\tBoolean\nsheet Other\n  id\tInt64\n  note\tUtf8\n"
    );
    let bad = common::run_cli_args(&["schema", input.0.to_str().unwrap(), "--dtype", "id=huge"]);
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    assert!(bad.stderr.contains("unknown type `huge`"), "{}", bad.stderr);
}

/// `parquet`, `arrow` and `schema` take their inputs as csv/jsonl/count
/// do: `-` for standard input, globs sheetstream expands, several files;
/// a folder or a missing file named in the message.
#[test]
fn columnar_commands_take_stdin_globs_several_files_and_name_bad_inputs() {
    use std::io::Write as _;
    let bytes = workbook();
    let dir = common::temp_dir("arrow-cli-inputs");
    for name in ["a.xlsx", "b.xlsx"] {
        std::fs::write(dir.0.join(name), &bytes).unwrap();
    }
    let expected = library_batches(&bytes, "Sales").remove(0);

    // `-`: the workbook on standard input, for each command.
    let out = dir.0.join("stdin.parquet");
    for args in [
        vec!["parquet", "-", "-o", out.to_str().unwrap()],
        vec!["arrow", "-"],
        vec!["schema", "-"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        match args[0] {
            "parquet" => {
                let (got, _) = read_parquet(&out);
                assert_eq!(got.columns(), expected.columns());
            }
            "arrow" => {
                let reader =
                    arrow_ipc::reader::StreamReader::try_new(&output.stdout[..], None).unwrap();
                let got: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
                assert_eq!(got[0].columns(), expected.columns());
            }
            _ => assert!(
                String::from_utf8(output.stdout)
                    .unwrap()
                    .starts_with("sheet Sales\n  id\tInt64\n"),
            ),
        }
    }

    // A glob sheetstream expands (quoted: no shell here) over two files.
    let glob = dir.0.join("*.xlsx");
    let output = run(&["schema", glob.to_str().unwrap()]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text.matches(" sheet Sales\n").count(), 2, "{text}");
    assert!(
        text.contains("a.xlsx sheet Sales") && text.contains("b.xlsx sheet Sales"),
        "{text}"
    );
    let both = dir.0.join("both.parquet");
    run(&[
        "parquet",
        glob.to_str().unwrap(),
        "--file-column",
        "file",
        "-o",
        both.to_str().unwrap(),
    ]);
    let (got, _) = read_parquet(&both);
    assert_eq!(got.num_rows(), 600);
    let files = got
        .column_by_name("file")
        .unwrap()
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let distinct: std::collections::BTreeSet<&str> = files.iter().flatten().collect();
    assert_eq!(distinct.len(), 2, "{distinct:?}");
    let no_match = dir.0.join("none-*.xlsx");
    let failed = common::run_cli_args(&["arrow", no_match.to_str().unwrap()]);
    assert_eq!(failed.code, Some(2), "{}", failed.stderr);
    assert!(
        failed.stderr.contains("no file matches"),
        "{}",
        failed.stderr
    );

    // A text file and a missing file are named; --skip-unreadable goes
    // on. (A folder is read as the workbooks in it.)
    let text = dir.0.join("text.xlsx");
    std::fs::write(&text, "Item,Amount\n").unwrap();
    let missing = dir.0.join("missing.xlsx");
    let a = dir.0.join("a.xlsx");
    for (bad, reason) in [(&text, "ZIP signature"), (&missing, "no such file")] {
        for command in ["parquet", "arrow", "schema"] {
            let mut args = vec![command, a.to_str().unwrap(), bad.to_str().unwrap()];
            if command == "parquet" {
                args.extend(["-o", both.to_str().unwrap()]);
            }
            // `arrow` writes IPC bytes to stdout: only the code and stderr here.
            let run_raw = |args: &[&str]| {
                let output = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
                    .args(args)
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
                (output.status.code(), stderr, output.stdout.len())
            };
            let (code, stderr, _) = run_raw(&args);
            assert_ne!(code, Some(0), "{command} {stderr}");
            assert!(
                stderr.contains(bad.to_str().unwrap()) && stderr.contains(reason),
                "{command}: {stderr}"
            );
            args.push("--skip-unreadable");
            let (code, stderr, written) = run_raw(&args);
            assert_eq!(code, Some(0), "{command} {stderr}");
            assert!(
                stderr.contains("skipped") && stderr.contains(reason),
                "{command}: {stderr}"
            );
            if command != "parquet" {
                assert!(written > 0, "{command} wrote the readable file");
            }
        }
    }
}

/// The environment variable that hands [`peak_rss_of_a_fresh_child`] the
/// arguments of the run to measure, separated by `\u{1f}`.
#[cfg(target_os = "linux")]
const PEAK_OF: &str = "SHEETSTREAM_TEST_PEAK_OF";

/// The peak resident memory of `sheetstream ARGS` (stdout thrown away), in
/// bytes. A child's peak as the kernel keeps it is at least that of the
/// process it was started from (a child started without a copy of the
/// memory, as `Command` starts it, carries its parent's peak through
/// `exec`), and this test process has held hundreds of MB; so a fresh copy
/// of this test binary, small, starts the run and reports its peak.
#[cfg(target_os = "linux")]
fn peak_rss(args: &[&str]) -> u64 {
    let output = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "arrow_cli::peak_rss_of_a_fresh_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PEAK_OF, args.join("\u{1f}"))
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        // (After the harness's `test NAME ... ` on the same line.)
        .find_map(|line| line.split("peak rss: ").nth(1))
        .and_then(|bytes| bytes.trim().parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "no peak for sheetstream {args:?}: {stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            )
        })
}

/// Run by [`peak_rss`] in a fresh copy of the test binary: starts
/// `sheetstream` with the arguments in [`PEAK_OF`], waits for it with
/// `wait4` and prints its peak resident memory. Does nothing without them.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "a helper run by batches_written_are_not_held_while_the_next_is_taken"]
fn peak_rss_of_a_fresh_child() {
    let Ok(args) = std::env::var(PEAK_OF) else {
        return;
    };
    let args: Vec<&str> = args.split('\u{1f}').collect();
    #[allow(clippy::zombie_processes, reason = "reaped by wait4 below")]
    let child = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args(&args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run the sheetstream binary");
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: `wait4` writes only into the two locals it is handed, both
    // live for the call; the child is reaped here and never waited for
    // through `child` (dropping a `Child` does not wait).
    #[allow(unsafe_code)]
    let (reaped, usage) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        (libc::wait4(pid, &mut status, 0, &mut usage), usage)
    };
    assert_eq!(reaped, pid, "wait4 on sheetstream {args:?}");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "sheetstream {args:?} failed: {status}"
    );
    // Kilobytes on Linux.
    let bytes = u64::try_from(usage.ru_maxrss).expect("a size") * 1024;
    println!("peak rss: {bytes}");
}

/// `arrow` drops each batch once written, before the next is taken from
/// the reader: holding it while the reader handed over the next one kept
/// one batch more alive at the peak (`arrow` of the 1M x 10 bench sheet:
/// 52 against 46 MB; issue 48 asks for peak memory unchanged). Measured
/// against `count` of the same file on one thread, which reads the same
/// rows into no batch: here about 2.9 batches more, against 3.9 with a
/// batch held (`parquet` shares the loop; its writer's row group, a batch
/// or more, blurs the difference there).
#[cfg(target_os = "linux")]
#[test]
fn batches_written_are_not_held_while_the_next_is_taken() {
    const BATCH_ROWS: usize = 65_536;
    const BATCHES: usize = 6;
    const COLUMNS: usize = 6;
    let rows = common::number_rows(1..=BATCH_ROWS * BATCHES, COLUMNS);
    // Stored, not deflated: nothing of the test's time goes to compressing
    // 60 MB of sheet XML.
    let bytes = common::book()
        .sheet("Data", common::sheet_xml(&rows))
        .package()
        .build_as(common::Container::Stored);
    drop(rows);
    let input = common::temp_file("arrow-cli-peak", &bytes);
    drop(bytes);
    let file = input.0.to_str().unwrap();
    let batch_bytes = (BATCH_ROWS * COLUMNS * 8) as u64;
    let read_alone = peak_rss(&["count", "-t", "1", file]);
    let batch_size = BATCH_ROWS.to_string();
    let arrow = peak_rss(&[
        "arrow",
        file,
        "--no-header",
        "-t",
        "1",
        "--batch-size",
        &batch_size,
    ]);
    let batches = arrow.saturating_sub(read_alone) as f64 / batch_bytes as f64;
    assert!(
        batches < 3.5,
        "arrow peaked at {arrow} bytes, {batches:.2} batches ({batch_bytes} bytes each) over \
         count's {read_alone}"
    );
}
