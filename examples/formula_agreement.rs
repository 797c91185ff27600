//! Compares sheetstream's formula text of `.xls` and `.xlsb` files with
//! calamine's formula reader (`worksheet_formula`), cell by cell, and
//! prints agreement counts: the check of the ptg decompiler against real
//! workbooks (the conformance dumps hold no formula text).
//!
//! ```text
//! cargo run --release --example formula_agreement -- ../shared/conformance/corpus-binary [-v]
//! ```
//!
//! Per format: formula cells both readers give and agree on, differ on
//! (with `-v`, each difference), sheets sheetstream refuses (an
//! `Unsupported` or `Record` error: counted by message), cells only one
//! reader gives, and sheets calamine fails on.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use calamine::{Reader, open_workbook_auto};
use sheetstream::Workbook;

#[derive(Default)]
struct Counts {
    files: usize,
    agree: usize,
    agree_normalised: usize,
    differ: usize,
    ours_only: usize,
    theirs_only: usize,
    our_errors: BTreeMap<String, usize>,
    their_errors: usize,
    examples: Vec<String>,
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("xls" | "xlsb")
        ) {
            out.push(path);
        }
    }
}

/// A formula without what calamine writes differently but means the
/// same: spaces outside strings (calamine keeps PtgAttrSpace's, which
/// sheetstream leaves out) and the quotes around sheet names (calamine
/// writes none).
fn normalise(formula: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    for c in formula.chars() {
        match c {
            '"' => {
                in_string = !in_string;
                out.push(c);
            }
            ' ' | '\n' | '\r' | '\'' if !in_string => {}
            _ => out.push(c),
        }
    }
    out
}

/// The error's message with its location and file-specific text cut.
fn error_class(message: &str) -> String {
    let message = message.split(" (token").next().unwrap_or(message);
    let message = message.split(" at byte").next().unwrap_or(message);
    message.chars().take(110).collect()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let Some(root) = args.iter().find(|a| *a != "-v") else {
        eprintln!("usage: formula_agreement DIR [-v]");
        return ExitCode::from(2);
    };
    let mut paths = Vec::new();
    files(Path::new(root), &mut paths);
    let mut by_format: BTreeMap<&str, Counts> = BTreeMap::new();
    for path in &paths {
        let format = if path.extension().is_some_and(|e| e == "xls") {
            "xls"
        } else {
            "xlsb"
        };
        let counts = by_format.entry(format).or_default();
        let Ok(mut ours) = Workbook::open(path) else {
            continue;
        };
        let Ok(mut theirs) = open_workbook_auto(path) else {
            continue;
        };
        counts.files += 1;
        let names: Vec<String> = ours.sheets().iter().map(|s| s.name().to_owned()).collect();
        for name in names {
            let Ok(range) = theirs.worksheet_formula(&name) else {
                counts.their_errors += 1;
                continue;
            };
            let mut expected: HashMap<(u32, u32), String> = HashMap::new();
            if let Some((row0, col0)) = range.start() {
                for (row, col, text) in range.cells() {
                    if !text.is_empty() {
                        expected.insert((row0 + row as u32, col0 + col as u32), text.clone());
                    }
                }
            }
            let Ok(rows) = ours.rows(name.as_str()) else {
                continue;
            };
            let mut rows = rows.with_formulas(true);
            loop {
                match rows.next_row() {
                    Ok(Some(row)) => {
                        for cell in row.cells() {
                            let key = (cell.row(), cell.column());
                            match (cell.formula(), expected.remove(&key)) {
                                (Some(a), Some(b)) if a == b => counts.agree += 1,
                                (Some(a), Some(b)) if normalise(a) == normalise(&b) => {
                                    counts.agree_normalised += 1;
                                }
                                (Some(a), Some(b)) => {
                                    counts.differ += 1;
                                    if verbose || counts.examples.len() < 15 {
                                        counts.examples.push(format!(
                                            "{}!{}: ours {a:?} calamine {b:?}",
                                            path.display(),
                                            cell.reference()
                                        ));
                                    }
                                }
                                (Some(_), None) => counts.ours_only += 1,
                                (None, Some(_)) => counts.theirs_only += 1,
                                (None, None) => {}
                            }
                        }
                    }
                    Ok(None) => {
                        counts.theirs_only += expected.len();
                        break;
                    }
                    Err(err) => {
                        let class = error_class(&err.to_string());
                        if verbose {
                            println!("{}: {err}", path.display());
                        }
                        *counts.our_errors.entry(class).or_default() += 1;
                        break;
                    }
                }
            }
        }
    }
    for (format, counts) in &by_format {
        println!(
            "{format}: {} files; formula cells: {} agree, {} agree but for spaces and sheet-name quotes, \
             {} differ, {} only sheetstream, {} only calamine; sheets calamine failed: {}",
            counts.files,
            counts.agree,
            counts.agree_normalised,
            counts.differ,
            counts.ours_only,
            counts.theirs_only,
            counts.their_errors
        );
        for (class, n) in &counts.our_errors {
            println!("  sheets sheetstream refused ({n}): {class}");
        }
        for example in &counts.examples {
            println!("  differs: {example}");
        }
    }
    ExitCode::SUCCESS
}
