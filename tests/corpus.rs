//! The public conformance corpus (`../shared/conformance/corpus`, beside
//! this repository), read through the library rather than the binary.
//!
//! For every workbook with a `NAME.cells.jsonl.gz` (or `.cells.jsonl`)
//! expectation, every worksheet is streamed twice, with the pull reader
//! (`rows()` / `next_row()`) and with the push reader (`for_each_row`); the
//! two must give identical cells, and those must equal the expected dump of
//! `../shared/conformance/FORMAT.md` (numbers compared as f64, dates as
//! `to_civil()`'s ISO string, a date without a calendar date as a number).
//! A `NAME.error` workbook must be refused when opened or read; a
//! `NAME.any` workbook only must not panic.
//!
//! Debug builds read about an order of magnitude slower than release
//! builds, so `corpus_small_files` (run by `cargo test`) takes the
//! workbooks of at most [`SMALL_FILE_BYTES`] bytes: all but a few dozen of
//! the 2,503. `corpus_all_files` takes every workbook and is ignored by
//! default; run it with `cargo test --release --test integration corpus:: -- --ignored`.
//!
//! Without the corpus both tests say they skipped (a note on stderr, shown
//! in the normal `cargo test` output) and pass.

use crate::common;

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::Value as Json;
use sheetstream::{CellRef, Row, SheetKind, Value, Workbook};

/// Workbooks larger than this are left to `corpus_all_files`.
const SMALL_FILE_BYTES: u64 = 256 * 1024;

fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus");
    root.is_dir().then_some(root)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Cells,
    Error,
    Any,
}

struct Case {
    name: String,
    workbook: PathBuf,
    expect: Expect,
    /// The expected dump, for `Expect::Cells`.
    dump: Option<PathBuf>,
}

/// Every workbook under `root` with its expectation, sorted by path (the
/// order and the precedence of `check.py`).
fn find_cases(root: &Path) -> Vec<Case> {
    common::corpus_workbooks(root)
        .into_iter()
        .filter_map(|workbook| {
            let stem = workbook.with_extension("");
            let beside = |suffix: &str| {
                let mut name = stem.clone().into_os_string();
                name.push(suffix);
                let path = PathBuf::from(name);
                path.exists().then_some(path)
            };
            let (expect, dump) = if let Some(dump) = beside(".cells.jsonl") {
                (Expect::Cells, Some(dump))
            } else if let Some(dump) = beside(".cells.jsonl.gz") {
                (Expect::Cells, Some(dump))
            } else if beside(".error").is_some() {
                (Expect::Error, None)
            } else if beside(".any").is_some() {
                (Expect::Any, None)
            } else {
                return None;
            };
            let name = stem
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            Some(Case {
                name,
                workbook,
                expect,
                dump,
            })
        })
        .collect()
}

/// One cell as the dump has it.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    sheet: usize,
    reference: CellRef,
    t: &'static str,
    v: V,
}

/// A dump value; numbers compare as f64 (`==`).
#[derive(Debug, Clone, PartialEq)]
enum V {
    Number(f64),
    Text(String),
    Bool(bool),
}

fn line_of(sheet: usize, reference: CellRef, value: Value<'_>) -> Line {
    let (t, v) = match value {
        Value::Number(number) => ("n", V::Number(number)),
        Value::Text(text) => ("s", V::Text(text.to_owned())),
        Value::Bool(flag) => ("b", V::Bool(flag)),
        Value::Error(code) => ("e", V::Text(code.to_owned())),
        Value::DateTime(date) => match date.to_civil() {
            Some(civil) => ("d", V::Text(civil.to_string())),
            None => ("n", V::Number(date.serial())),
        },
        other => panic!("a value FORMAT.md does not describe: {other:?}"),
    };
    Line {
        sheet,
        reference,
        t,
        v,
    }
}

fn push_row(lines: &mut Vec<Line>, sheet: usize, row: &Row<'_>) {
    for cell in row.cells() {
        lines.push(line_of(sheet, cell.reference(), cell.value()));
    }
}

fn matches_expected(line: &Line, names: &[String], expected: &Json) -> bool {
    let Some(object) = expected.as_object() else {
        return false;
    };
    let v_matches = match (&line.v, &object.get("v")) {
        (V::Number(number), Some(Json::Number(want))) => want.as_f64() == Some(*number),
        (V::Text(text), Some(Json::String(want))) => text == want,
        (V::Bool(flag), Some(Json::Bool(want))) => flag == want,
        _ => false,
    };
    object.len() == 4
        && v_matches
        && object.get("t").and_then(Json::as_str) == Some(line.t)
        && object.get("sheet").and_then(Json::as_str) == Some(names[line.sheet].as_str())
        && object.get("ref").and_then(Json::as_str) == Some(line.reference.to_string().as_str())
}

fn describe(line: &Line, names: &[String]) -> String {
    format!(
        "{{sheet {:?}, ref {}, t {}, v {:?}}}",
        names[line.sheet], line.reference, line.t, line.v
    )
}

fn read_dump(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|ext| ext == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    } else {
        String::from_utf8(bytes).unwrap()
    }
}

/// Reads a workbook both ways and compares with its expected dump.
/// Returns a description of the first problem.
fn check_cells(case: &Case) -> Result<(), String> {
    let mut workbook = Workbook::open(&case.workbook).map_err(|err| format!("open: {err}"))?;
    let worksheets: Vec<usize> = workbook
        .sheets()
        .iter()
        .enumerate()
        .filter(|(_, sheet)| sheet.kind() == SheetKind::Worksheet)
        .map(|(position, _)| position)
        .collect();
    let names: Vec<String> = workbook
        .sheets()
        .iter()
        .map(|sheet| sheet.name().to_owned())
        .collect();
    // Push: for_each_row.
    let mut pushed = Vec::new();
    for &position in &worksheets {
        workbook
            .for_each_row(position, |row| push_row(&mut pushed, position, &row))
            .map_err(|err| format!("for_each_row: {err}"))?;
    }
    // Pull: rows() / next_row(), compared cell by cell with the push path.
    let mut pulled = 0;
    for &position in &worksheets {
        let mut rows = workbook
            .rows(position)
            .map_err(|err| format!("rows: {err}"))?;
        let mut from_pull = Vec::new();
        while let Some(row) = rows.next_row().map_err(|err| format!("next_row: {err}"))? {
            from_pull.clear();
            push_row(&mut from_pull, position, &row);
            for line in &from_pull {
                match pushed.get(pulled) {
                    Some(other) if other == line => {}
                    other => {
                        return Err(format!(
                            "cell {}: next_row gave {}, for_each_row gave {:?}",
                            pulled + 1,
                            describe(line, &names),
                            other.map(|o| describe(o, &names))
                        ));
                    }
                }
                pulled += 1;
            }
        }
    }
    if pulled != pushed.len() {
        return Err(format!(
            "next_row gave {pulled} cells, for_each_row {}",
            pushed.len()
        ));
    }
    // The expected dump.
    let text = read_dump(case.dump.as_ref().unwrap());
    let mut expected_lines = text.lines().filter(|line| !line.trim().is_empty());
    for (i, line) in pushed.iter().enumerate() {
        let Some(expected) = expected_lines.next() else {
            return Err(format!(
                "{} cells read, {i} expected; first extra {}",
                pushed.len(),
                describe(line, &names)
            ));
        };
        let expected: Json = serde_json::from_str(expected).unwrap();
        if !matches_expected(line, &names, &expected) {
            return Err(format!(
                "cell {}: expected {expected}, read {}",
                i + 1,
                describe(line, &names)
            ));
        }
    }
    let missing = expected_lines.count();
    if missing > 0 {
        return Err(format!(
            "{} cells read, {} expected",
            pushed.len(),
            pushed.len() + missing
        ));
    }
    Ok(())
}

/// Opens the workbook and reads every worksheet to the end.
fn read_everything(path: &Path) -> sheetstream::Result<usize> {
    let mut workbook = Workbook::open(path)?;
    let worksheets: Vec<usize> = workbook
        .sheets()
        .iter()
        .enumerate()
        .filter(|(_, sheet)| sheet.kind() == SheetKind::Worksheet)
        .map(|(position, _)| position)
        .collect();
    let mut cells = 0;
    for position in worksheets {
        let mut rows = workbook.rows(position)?;
        while let Some(row) = rows.next_row()? {
            cells += row.cells().len();
        }
    }
    Ok(cells)
}

fn check_case(case: &Case) -> Result<(), String> {
    let outcome = catch_unwind(AssertUnwindSafe(|| match case.expect {
        Expect::Cells => check_cells(case),
        Expect::Error => match read_everything(&case.workbook) {
            Ok(cells) => Err(format!("read {cells} cells, but the file must be refused")),
            Err(_) => Ok(()),
        },
        Expect::Any => {
            let _ = read_everything(&case.workbook);
            Ok(())
        }
    }));
    outcome.unwrap_or_else(|_| Err("panicked".to_owned()))
}

#[derive(Default)]
struct Tally {
    passed: [usize; 3],
    total: [usize; 3],
    failures: Vec<String>,
}

fn run_corpus(max_bytes: Option<u64>) {
    let Some(root) = corpus_root() else {
        common::skip_notice("corpus (every corpus test)", "../shared/conformance/corpus");
        return;
    };
    let started = Instant::now();
    let all = find_cases(&root);
    assert!(!all.is_empty(), "no cases under {}", root.display());
    let mut cases: Vec<(u64, &Case)> = all
        .iter()
        .map(|case| (std::fs::metadata(&case.workbook).unwrap().len(), case))
        .filter(|(size, _)| max_bytes.is_none_or(|max| *size <= max))
        .collect();
    // Largest first, so that no worker is left with a big one at the end.
    cases.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
    let cases: Vec<&Case> = cases.into_iter().map(|(_, case)| case).collect();
    let next = AtomicUsize::new(0);
    let tally = Mutex::new(Tally::default());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let result = check_case(case);
                    let kind = case.expect as usize;
                    let mut tally = tally.lock().unwrap();
                    tally.total[kind] += 1;
                    match result {
                        Ok(()) => tally.passed[kind] += 1,
                        Err(problem) => tally.failures.push(format!("{}: {problem}", case.name)),
                    }
                }
            });
        }
    });
    let mut tally = tally.into_inner().unwrap();
    tally.failures.sort();
    let passed: usize = tally.passed.iter().sum();
    println!(
        "corpus: {passed} of {} workbooks passed ({} skipped as larger than the limit) in {:.1} s: \
         cells {}/{}, error {}/{}, any {}/{}",
        cases.len(),
        all.len() - cases.len(),
        started.elapsed().as_secs_f64(),
        tally.passed[Expect::Cells as usize],
        tally.total[Expect::Cells as usize],
        tally.passed[Expect::Error as usize],
        tally.total[Expect::Error as usize],
        tally.passed[Expect::Any as usize],
        tally.total[Expect::Any as usize],
    );
    for failure in &tally.failures {
        println!("FAIL {failure}");
    }
    assert!(
        tally.failures.is_empty(),
        "{} corpus cases failed:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
}

#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn corpus_small_files() {
    run_corpus(Some(SMALL_FILE_BYTES));
}

#[test]
#[ignore = "slow in debug builds; run with `cargo test --release --test integration corpus:: -- --ignored`"]
fn corpus_all_files() {
    run_corpus(None);
}
