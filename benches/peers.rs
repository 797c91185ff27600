//! Peers benchmark: sheetstream against ExcelReader, the fastest peer
//! (a .NET NativeAOT library; `pip install excelreader-native`, imported
//! as `excelreader`), on every format, into Arrow, with polars' Excel
//! engine (fastexcel) and calamine's Rust API for reference and the
//! floor, inflating the sheet parts alone (`support/inflate_floor.rs`),
//! beside each ratio.
//!
//! ```text
//! python3 -m venv .venv && .venv/bin/pip install maturin pyarrow polars fastexcel excelreader-native
//! (cd python && VIRTUAL_ENV=$PWD/../.venv ../.venv/bin/maturin develop --release)
//! cargo bench --bench peers [-- --rounds N] [-- --files a,b] [-- --readers a,b]
//! ```
//!
//! Both sides are read the same way: through their Python packages, each
//! sheet into pyarrow in a fresh Python process (`python/benches/peers_child.py`:
//! open included, imports and loading the native library not; numpy's
//! OpenBLAS held to one thread, see [`OPENBLAS_THREADS`]), one thread
//! and default threads. ExcelReader's sheet is `to_arrow(infer_schema())`,
//! one thread with `prefetch_decompression=False`, default threads with
//! its default options (decompression prefetched on a second thread);
//! sheetstream's is `Workbook.sheet(.., threads=1 | 0).to_arrow()` (a
//! workbook of several sheets with default threads: `read_excel_sheets`,
//! sheets read at once). The Python interpreter is `$SHEETSTREAM_BENCH_PYTHON`,
//! else `.venv/bin/python` where there is one, else `python3`; a reader
//! whose package is missing is reported as such. calamine (its range, then
//! Arrow arrays, as fastexcel builds them: `support/calamine_batch.rs`),
//! sheetstream's Rust API on one thread and the floor run in child
//! processes of this bench.
//!
//! The files (written to `target/bench-data` when missing, never
//! committed): the 1M x 10 shared-strings sheet and the 200k x 10
//! inline-string sheet of `support/workbooks.rs`; a 65,535 x 14 "Sales
//! Records" workbook (`support/sales_records.rs`) as `.xlsx` and `.xlsb`;
//! the `.xls` bench's 8 x 65,535 x 10 workbook (`support/xls_book.rs`,
//! every sheet read). The readers take turns, `--rounds` rounds (3 by
//! default; forwards, then backwards), each run in a fresh process; each
//! reader's fastest run counts. Printed: seconds, CPU seconds and peak MB
//! per reader and file, then sheetstream over ExcelReader (one thread, and
//! default threads), the floor and sheetstream over the floor, with the
//! issue's targets; the same text is written to
//! `benches/results/peers.md` (appended, under the date) with the
//! machine, its load average before and after, and the commit
//! (`SHEETSTREAM_BENCH_RESULTS` as for the other benches).

#[path = "support/calamine_batch.rs"]
mod calamine_batch;
#[path = "support/inflate_floor.rs"]
mod inflate_floor;
#[path = "support/sales_records.rs"]
mod sales_records;
#[allow(dead_code)]
#[path = "support/workbooks.rs"]
mod workbooks;
#[path = "../tests/common/xls.rs"]
mod xls;
#[path = "support/xls_book.rs"]
mod xls_book;
#[path = "support/xlsb_writer.rs"]
mod xlsb_writer;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use calamine::{Reader, open_workbook_auto};
use sheetstream::arrow::{ArrowOptions, Header};
use sheetstream::{SheetKind, Workbook};

/// One workbook of the bench.
struct File {
    /// Short name in the table.
    label: &'static str,
    path: PathBuf,
    /// Whether the first row names the columns.
    header: bool,
    /// Whether it is a ZIP package (it has a floor).
    zipped: bool,
}

/// The readers, in the order they take turns. `py:` ones run through
/// `python/benches/peers_child.py`.
const READERS: [&str; 8] = [
    "py:sheetstream-1t",
    "py:excelreader-1t",
    "py:sheetstream",
    "py:excelreader",
    "py:fastexcel",
    "calamine",
    "rust:sheetstream-1t",
    "floor",
];

/// One run of one reader.
#[derive(Clone, Copy)]
struct Run {
    wall: f64,
    cpu: f64,
    peak_mb: f64,
    rows: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(&args[1], Path::new(&args[2]), args[3] == "1");
        return;
    }
    // `cargo bench` passes `--bench`; other flags are ours.
    let value = |flag: &str| {
        args.iter()
            .position(|arg| arg == flag)
            .and_then(|at| args.get(at + 1))
            .cloned()
    };
    let rounds: usize = value("--rounds").map_or(3, |n| n.parse().expect("--rounds N"));
    let wanted_files = value("--files");
    let wanted_readers = value("--readers");
    let files: Vec<File> = ensure_files()
        .into_iter()
        .filter(|file| {
            wanted_files
                .as_deref()
                .is_none_or(|names| names.split(',').any(|name| name == file.label))
        })
        .collect();
    let readers: Vec<&str> = READERS
        .into_iter()
        .filter(|reader| {
            wanted_readers
                .as_deref()
                .is_none_or(|names| names.split(',').any(|name| name == *reader))
        })
        .collect();
    let python = python();
    let load_before = load_average();
    let mut report = String::new();
    let _ = writeln!(
        report,
        "peers bench, {}; commit {}; {}; load average before {load_before}",
        today(),
        commit(),
        machine(),
    );
    let _ = writeln!(
        report,
        "python: {} ({}); best of {rounds} rounds, the readers taking turns, each run in a fresh process (OPENBLAS_NUM_THREADS={OPENBLAS_THREADS})",
        python
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(&python)
            .display(),
        python_versions(&python),
    );
    print!("{report}");
    let mut table = String::new();
    for file in &files {
        let _ = writeln!(
            table,
            "\n{} ({}, {:.1} MB)",
            file.label,
            file.path.file_name().unwrap_or_default().to_string_lossy(),
            std::fs::metadata(&file.path).map_or(0, |m| m.len()) as f64 / 1e6
        );
        let _ = writeln!(
            table,
            "  {:<22} {:>8} {:>8} {:>8} {:>9}",
            "reader", "wall s", "cpu s", "peak MB", "rows"
        );
        let mut best: Vec<(&str, Option<Run>, String)> = Vec::new();
        let mut runs: Vec<Vec<Run>> = vec![Vec::new(); readers.len()];
        let mut notes: Vec<String> = vec![String::new(); readers.len()];
        let mut types: Vec<String> = vec![String::new(); readers.len()];
        for round in 0..rounds {
            let order: Vec<usize> = if round % 2 == 0 {
                (0..readers.len()).collect()
            } else {
                (0..readers.len()).rev().collect()
            };
            for at in order {
                let reader = readers[at];
                if !notes[at].is_empty() || (reader == "floor" && !file.zipped) {
                    continue;
                }
                match run(reader, file, &python) {
                    Ok((one, schema)) => {
                        runs[at].push(one);
                        types[at] = schema;
                    }
                    Err(note) => notes[at] = note,
                }
            }
        }
        for (at, reader) in readers.iter().enumerate() {
            let fastest = runs[at]
                .iter()
                .copied()
                .min_by(|a, b| a.wall.total_cmp(&b.wall));
            let line = match (fastest, notes[at].as_str()) {
                (Some(one), _) => format!(
                    "  {reader:<22} {:>8.3} {:>8.3} {:>8.0} {:>9}",
                    one.wall, one.cpu, one.peak_mb, one.rows
                ),
                (None, "") if *reader == "floor" => {
                    format!(
                        "  {reader:<22} {:>8}  (no inflating: not a ZIP package)",
                        "-"
                    )
                }
                (None, note) => format!("  {reader:<22} {note}"),
            };
            let _ = writeln!(table, "{line}");
            best.push((reader, fastest, types[at].clone()));
        }
        // The schemas, as each Python reader's Arrow types (a workbook's
        // sheets of one schema shown once, with their count).
        for (reader, _, schema) in &best {
            if reader.starts_with("py:") && !schema.is_empty() {
                let _ = writeln!(table, "  types {reader:<18} {}", schemas(schema));
            }
        }
        let get = |name: &str| {
            best.iter()
                .find(|(reader, ..)| *reader == name)
                .and_then(|(_, one, _)| *one)
        };
        let floor = get("floor").map(|one| one.wall);
        let ratio = |ours_name: &str, theirs_name: &str, target: f64| {
            let (Some(ours), Some(theirs)) = (get(ours_name), get(theirs_name)) else {
                return format!("  {ours_name} / {theirs_name}: not measured");
            };
            let ratio = ours.wall / theirs.wall;
            let over_floor = floor.map_or(String::from("floor -"), |floor| {
                format!(
                    "floor {floor:.3} s, {ours_name} {:.2}x the floor",
                    ours.wall / floor
                )
            });
            let met = if ratio <= target || floor.is_some_and(|floor| ours.wall <= 1.15 * floor) {
                "met"
            } else {
                "NOT met"
            };
            format!(
                "  {ours_name} / {theirs_name}: {ratio:.2}x ({:.3} / {:.3} s; target <= {target}x or <= 1.15x the floor: {met}); CPU {:.2}x; {over_floor}",
                ours.wall,
                theirs.wall,
                ours.cpu / theirs.cpu
            )
        };
        let _ = writeln!(
            table,
            "{}",
            ratio("py:sheetstream-1t", "py:excelreader-1t", 0.6)
        );
        let _ = writeln!(table, "{}", ratio("py:sheetstream", "py:excelreader", 0.5));
        if let (Some(ours), Some(calamine), Some(fast)) = (
            get("py:sheetstream-1t"),
            get("calamine"),
            get("py:fastexcel"),
        ) {
            let _ = writeln!(
                table,
                "  reference: calamine / py:sheetstream-1t {:.2}x, py:fastexcel / py:sheetstream-1t {:.2}x",
                calamine.wall / ours.wall,
                fast.wall / ours.wall
            );
        }
        if let (Some(py), Some(rust)) = (get("py:sheetstream-1t"), get("rust:sheetstream-1t")) {
            let _ = writeln!(
                table,
                "  sheetstream's Python over its Rust API, one thread: {:.2}x",
                py.wall / rust.wall
            );
        }
        print!("{table}");
        report.push_str(&table);
        table.clear();
    }
    let _ = writeln!(report, "\nload average after {}", load_average());
    println!("\nload average after {}", load_average());
    let folder = match std::env::var("SHEETSTREAM_BENCH_RESULTS") {
        Ok(value) if value == "off" => return,
        Ok(value) if !value.is_empty() => std::path::PathBuf::from(value),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results"),
    };
    std::fs::create_dir_all(&folder).expect("benches/results");
    let out = folder.join("peers.md");
    let section = format!("\n## {}\n\n```text\n{}```\n", today(), report);
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&out)
        .and_then(|mut file| std::io::Write::write_all(&mut file, section.as_bytes()));
    match appended {
        Ok(()) => println!("results appended to {}", out.display()),
        Err(err) => eprintln!("could not write {}: {err}", out.display()),
    }
}

/// `[[a, b], [a, b]]` as `2 x [a, b]`: one line per distinct schema.
fn schemas(types: &str) -> String {
    let inner = types.trim().trim_start_matches('[').trim_end_matches(']');
    let mut distinct: Vec<(&str, usize)> = Vec::new();
    for schema in inner.split("], [") {
        let schema = schema.trim_matches(['[', ']']);
        match distinct.iter_mut().find(|(seen, _)| *seen == schema) {
            Some((_, count)) => *count += 1,
            None => distinct.push((schema, 1)),
        }
    }
    distinct
        .iter()
        .map(|(schema, count)| {
            if *count == 1 {
                format!("[{schema}]")
            } else {
                format!("{count} x [{schema}]")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The bench's files, written when missing.
fn ensure_files() -> Vec<File> {
    let dir = workbooks::data_dir();
    std::fs::create_dir_all(&dir).expect("the bench data folder");
    let recipe = |name: &str| {
        workbooks::RECIPES
            .iter()
            .find(|recipe| recipe.name == name)
            .expect("a recipe")
    };
    let mut files = Vec::new();
    for (label, name) in [
        ("1m-x10-shared", "one_sheet_1m_x10.xlsx"),
        ("200k-x10-inline", "inline_strings_200k_x10.xlsx"),
    ] {
        let path = dir.join(name);
        write_once(&path, |partial| {
            workbooks::write(recipe(name), partial).expect("write the workbook")
        });
        files.push(File {
            label,
            path,
            header: false,
            zipped: true,
        });
    }
    let sales = dir.join("sales_records_65535_x14.xlsx");
    write_once(&sales, |partial| {
        sales_records::write_xlsx(partial).expect("write the .xlsx")
    });
    files.push(File {
        label: "sales-xlsx",
        path: sales.clone(),
        header: true,
        zipped: true,
    });
    let sales_binary = sales.with_extension("xlsb");
    write_once(&sales_binary, |partial| {
        sales_records::write_xlsb(partial).expect("write the .xlsb")
    });
    files.push(File {
        label: "sales-xlsb",
        path: sales_binary,
        header: true,
        zipped: true,
    });
    files.push(File {
        label: "xls-8x65535-x10",
        path: xls_book::ensure("xls-indexed-8x65535x10", 8, 10),
        header: false,
        zipped: false,
    });
    files
}

/// Writes `path` through a partial file, when it is missing.
fn write_once(path: &Path, write: impl FnOnce(&Path)) {
    if path.exists() {
        return;
    }
    eprintln!("writing {}", path.display());
    // The extension tells the writers and readers the format: kept.
    let partial = path.with_file_name(format!(
        "partial-{}",
        path.file_name().unwrap_or_default().to_string_lossy()
    ));
    write(&partial);
    std::fs::rename(&partial, path).expect("rename the workbook");
}

/// The Python interpreter the `py:` readers run in.
fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("SHEETSTREAM_BENCH_PYTHON") {
        return PathBuf::from(python);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if venv.exists() {
        return venv;
    }
    PathBuf::from("python3")
}

/// The versions of Python and of the readers' packages.
fn python_versions(python: &Path) -> String {
    let script = "import sys, importlib.metadata as m\n\
        names = ['sheetstream', 'excelreader-native', 'fastexcel', 'pyarrow']\n\
        def v(n):\n    try: return m.version(n)\n    except Exception: return 'missing'\n\
        print(sys.version.split()[0], ' '.join(f'{n} {v(n)}' for n in names))";
    Command::new(python)
        .args(["-c", script])
        .output()
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_else(|| String::from("not found"))
}

/// OpenBLAS's threads for the Python children (pyarrow imports numpy,
/// which starts them): left to themselves they spin for a while after the
/// import, on a core a reader's second thread wants. On the 2-core box a
/// lone sheet read with default threads took 0.062 s on its first read in
/// a fresh process and 0.034 s on its second, 0.035 s on both with one
/// OpenBLAS thread; the one-thread reads did not move. The same for every
/// Python reader.
const OPENBLAS_THREADS: &str = "1";

/// One run of `reader` on `file` in a fresh process: the run and, for a
/// Python reader, its Arrow types; or why there is none.
fn run(reader: &str, file: &File, python: &Path) -> Result<(Run, String), String> {
    let header = if file.header { "1" } else { "0" };
    let path = file.path.to_str().expect("a UTF-8 path");
    let output = if let Some(name) = reader.strip_prefix("py:") {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/benches/peers_child.py");
        Command::new(python)
            .arg(script)
            .args([name, path, header])
            .env("OPENBLAS_NUM_THREADS", OPENBLAS_THREADS)
            .output()
    } else {
        Command::new(std::env::current_exe().expect("the bench binary"))
            .args(["--child", reader, path, header])
            .output()
    }
    .map_err(|err| format!("could not run: {err}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let last = text.lines().last().unwrap_or_default();
    if !output.status.success() || last.is_empty() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = stderr.lines().last().unwrap_or("no output");
        return Err(format!(
            "failed: {}",
            why.chars().take(150).collect::<String>()
        ));
    }
    if last.contains("\"missing\"") {
        return Err(format!("not installed ({last})"));
    }
    let field = |name: &str| -> f64 {
        let key = format!("\"{name}\": ");
        last.split(&key)
            .nth(1)
            .and_then(|rest| rest.split([',', '}']).next())
            .and_then(|number| number.trim().parse().ok())
            .unwrap_or(f64::NAN)
    };
    let types = last
        .split("\"types\": ")
        .nth(1)
        .map(|rest| rest.trim_end_matches('}').replace('"', ""))
        .unwrap_or_default();
    Ok((
        Run {
            wall: field("wall"),
            cpu: field("cpu"),
            peak_mb: field("peak_mb"),
            rows: field("rows") as u64,
        },
        types,
    ))
}

/// A Rust reader's run, printed as the Python child prints it.
fn child(reader: &str, path: &Path, header: bool) {
    // The floor's worksheet parts, as the workbook names them: looked up
    // before the clock.
    let parts: Vec<String> = if reader == "floor" {
        let workbook = Workbook::open(path).expect("open");
        workbook
            .sheets()
            .iter()
            .filter(|sheet| sheet.kind() == SheetKind::Worksheet)
            .map(|sheet| sheet.part().to_owned())
            .collect()
    } else {
        Vec::new()
    };
    let cpu_start = cpu_seconds();
    let start = Instant::now();
    let rows = match reader {
        "calamine" => {
            let mut workbook = open_workbook_auto(path).expect("open");
            let mut rows = 0;
            for name in workbook.sheet_names() {
                let range = workbook.worksheet_range(&name).expect("range");
                let batch = calamine_batch::range_to_batch(&range, header);
                rows += batch.num_rows() as u64;
                std::hint::black_box(&batch);
            }
            rows
        }
        "rust:sheetstream-1t" => {
            let mut workbook = Workbook::open(path).expect("open");
            let mut rows = 0;
            for position in 0..workbook.sheets().len() {
                if workbook.sheets()[position].kind() != SheetKind::Worksheet {
                    continue;
                }
                let options = ArrowOptions::new().threads(1).header(if header {
                    Header::Row(0)
                } else {
                    Header::None
                });
                let mut batches = options
                    .read_sheet(&mut workbook, position)
                    .expect("open the sheet");
                while let Some(batch) = batches.next_batch().expect("batch") {
                    rows += batch.num_rows() as u64;
                    std::hint::black_box(&batch);
                }
            }
            rows
        }
        "floor" => {
            std::hint::black_box(inflate_floor::inflate_parts(
                path,
                parts.iter().map(String::as_str),
            ));
            0
        }
        other => panic!("unknown reader {other}"),
    };
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_start;
    println!(
        "{{\"wall\": {wall}, \"cpu\": {cpu}, \"peak_mb\": {}, \"rows\": {rows}}}",
        peak_rss_mb()
    );
}

/// This process's CPU seconds, user and system, all threads (from
/// /proc/self/stat, in clock ticks of 1/100 s); 0 where it is not there.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name's closing parenthesis.
    let rest = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |at: usize| {
        fields
            .get(at)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15, the 12th and 13th after `)`.
    (ticks(11) + ticks(12)) / 100.0
}

/// This process's peak RSS (VmHWM) in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// The 1-, 5- and 15-minute load averages.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| String::from("unknown"))
}

/// The processor, its cores and the memory.
fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_owned())
        .unwrap_or_else(|| String::from("unknown processor"));
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("MemTotal:"))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<f64>()
                        .ok()
                })
        })
        .map_or(String::from("? GiB"), |kib| {
            format!("{:.0} GiB", kib / 1024.0 / 1024.0)
        });
    format!("{model}, {cores} cores, {memory}")
}

/// The commit checked out, `+changes` when the tree differs from it.
fn commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
            .unwrap_or_default()
    };
    let head = git(&["rev-parse", "--short=12", "HEAD"]);
    if head.is_empty() {
        return String::from("unknown");
    }
    let changed = !git(&["status", "--porcelain", "--untracked-files=no"]).is_empty();
    format!("{head}{}", if changed { "+changes" } else { "" })
}

/// The date and time (UTC), `YYYY-MM-DD HH:MM`.
fn today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Days since 1970-01-01 to the civil date (the proleptic Gregorian
    // calendar, in eras of 400 years).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}
