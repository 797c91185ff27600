//! Dated results: a bench that prints ratios also appends what it printed
//! to `benches/results/BENCH.md`, under a heading with the date (UTC),
//! the machine (CPU model, cores, memory), the load average before and
//! after, and the commit (`-dirty` when the work tree has changes), so
//! that a figure is never quoted without its day and machine
//! (benches/README.md).
//!
//! `SHEETSTREAM_BENCH_RESULTS=DIR` writes to `DIR/BENCH.md` instead;
//! `SHEETSTREAM_BENCH_RESULTS=off` writes nothing.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// The lines a bench prints, kept for its results file.
pub struct Results {
    bench: &'static str,
    load_before: String,
    lines: RefCell<Vec<String>>,
}

impl Results {
    /// Starts the record of one run of `bench` (the bench's name, which
    /// names its file).
    pub fn new(bench: &'static str) -> Results {
        Results {
            bench,
            load_before: load_average(),
            lines: RefCell::new(Vec::new()),
        }
    }

    /// Prints a line and keeps it for the results file (through a shared
    /// reference, so that a bench's printing closures can all hold one).
    pub fn say(&self, line: impl Into<String>) {
        let line = line.into();
        println!("{line}");
        self.lines.borrow_mut().push(line);
    }

    /// Appends the run to its results file and says where.
    pub fn write(self) {
        let folder = match std::env::var("SHEETSTREAM_BENCH_RESULTS") {
            Ok(value) if value == "off" => return,
            Ok(value) if !value.is_empty() => PathBuf::from(value),
            _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/results"),
        };
        let mut section = String::new();
        let _ = writeln!(section, "\n## {} ({})\n", today(), commit());
        let _ = writeln!(section, "- machine: {}", machine());
        let _ = writeln!(
            section,
            "- load average (1, 5, 15 min): {} before, {} after",
            self.load_before,
            load_average()
        );
        let _ = writeln!(section, "- command: `cargo bench --bench {}`\n", self.bench);
        section.push_str("```text\n");
        for line in self.lines.borrow().iter() {
            section.push_str(line);
            section.push('\n');
        }
        section.push_str("```\n");
        let path = folder.join(format!("{}.md", self.bench));
        let written = std::fs::create_dir_all(&folder).and_then(|()| {
            let new = !path.exists();
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)?;
            if new {
                writeln!(file, "# `{}` bench results\n", self.bench)?;
                writeln!(file, "Appended by the bench itself; newest last.")?;
            }
            file.write_all(section.as_bytes())
        });
        match written {
            Ok(()) => println!("results appended to {}", path.display()),
            Err(err) => eprintln!("could not write {}: {err}", path.display()),
        }
    }
}

/// Today's date, UTC, as `YYYY-MM-DD` (the civil-from-days algorithm on
/// the Unix epoch).
fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split(':').nth(1))
        .map(str::trim)
        .unwrap_or("unknown CPU");
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!(", {} GiB", kib / (1024 * 1024)))
        })
        .unwrap_or_default();
    format!("{model}, {cores} cores{memory}")
}

fn commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let head = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "no commit".to_owned());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|status| !status.is_empty());
    if dirty { format!("{head}-dirty") } else { head }
}
