//! One answer on every path (issue 46): a workbook read through the pull
//! reader, the parallel engine on 1, 2, 4 and 16 threads, `Sheet`, Arrow
//! and the CLI's `cells` gives the same rows, the same values and the
//! same error, or [`assert_one_answer`] fails naming the paths that
//! differ. Shared by `hostile_binary` and `binary_mutations`.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Cursor;
use std::sync::Mutex;

use serde_json::Value as Json;
use sheetstream::{Row, SheetBuilder, SheetInfo, SheetKind, SheetRows, Workbook};

/// The thread counts every path is read on.
pub const THREADS: [usize; 4] = [1, 2, 4, 16];

type Book = Workbook<Cursor<Vec<u8>>>;

/// What a read gave: each worksheet's lines (by position) up to the error,
/// and the error. After an error the sheets after the failing one (in
/// workbook order) are left out: the parallel engine stops them wherever
/// it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub sheets: Vec<(usize, Vec<String>)>,
    pub error: Option<String>,
}

impl Answer {
    /// The lines of every sheet, in order.
    pub fn lines(&self) -> impl Iterator<Item = &String> {
        self.sheets.iter().flat_map(|(_, lines)| lines)
    }

    fn from_map(
        map: BTreeMap<usize, Vec<String>>,
        failed: Option<usize>,
        error: Option<String>,
    ) -> Answer {
        let sheets = map
            .into_iter()
            .filter(|(position, _)| failed.is_none_or(|failed| *position <= failed))
            .collect();
        Answer { sheets, error }
    }
}

/// Every row event as a line: index, hidden flag, each cell's column,
/// style and value (a number by its bits: NaN and -0.0 tell apart).
pub fn row_line(row: &Row<'_>) -> String {
    let mut line = format!("{} {}", row.index(), row.is_hidden());
    for cell in row.cells() {
        let value = match cell.value() {
            sheetstream::Value::Number(number) => format!("n{:016x}", number.to_bits()),
            other => format!("{other:?}"),
        };
        line.push_str(&format!(" {}/{}={value}", cell.column(), cell.style()));
    }
    line
}

fn open(bytes: &[u8]) -> Result<Book, String> {
    sheetstream::OpenOptions::new()
        .from_shared_reader(Cursor::new(bytes.to_vec()))
        .map_err(|err| err.to_string())
}

fn worksheets(workbook: &Book) -> Vec<usize> {
    (0..workbook.sheets().len())
        .filter(|&at| workbook.sheets()[at].kind() == SheetKind::Worksheet)
        .collect()
}

/// The pull reader, sheet after sheet in workbook order, stopping at the
/// first error; Err when the workbook does not open.
pub fn rows_serial(bytes: &[u8]) -> Result<Answer, String> {
    let mut workbook = open(bytes)?;
    let mut sheets = Vec::new();
    for position in worksheets(&workbook) {
        let mut lines = Vec::new();
        let error = match workbook.rows(position) {
            Ok(mut rows) => loop {
                match rows.next_row() {
                    Ok(Some(row)) => lines.push(row_line(&row)),
                    Ok(None) => break None,
                    Err(err) => break Some(err.to_string()),
                }
            },
            Err(err) => Some(err.to_string()),
        };
        sheets.push((position, lines));
        if error.is_some() {
            return Ok(Answer { sheets, error });
        }
    }
    Ok(Answer {
        sheets,
        error: None,
    })
}

/// Reads every worksheet on the engine with `threads`, each sheet's rows
/// through `visit` into its lines.
fn on_engine(
    bytes: &[u8],
    threads: usize,
    visit: impl Fn(SheetRows<'_>, &SheetInfo, &mut Vec<String>) -> sheetstream::Result<()> + Sync,
) -> Result<Answer, String> {
    let workbook = open(bytes)?;
    let found = Mutex::new(BTreeMap::new());
    let failed = Mutex::new(None::<usize>);
    let result = workbook.parallel().threads(threads).for_each_sheet(|| {
        |sheet: &SheetInfo, rows: sheetstream::Result<SheetRows<'_>>| {
            let mut lines = Vec::new();
            let read = rows.and_then(|rows| visit(rows, sheet, &mut lines));
            found.lock().unwrap().insert(sheet.position(), lines);
            if read.is_err() {
                let mut failed = failed.lock().unwrap();
                *failed = Some(failed.map_or(sheet.position(), |at| at.min(sheet.position())));
            }
            read.map(|()| true)
        }
    });
    Ok(Answer::from_map(
        found.into_inner().unwrap(),
        failed.into_inner().unwrap(),
        result.err().map(|err| err.to_string()),
    ))
}

/// The engine's rows on `threads` threads.
pub fn rows_parallel(bytes: &[u8], threads: usize) -> Result<Answer, String> {
    on_engine(bytes, threads, |mut rows, _, lines| {
        while let Some(row) = rows.next_row()? {
            lines.push(row_line(&row));
        }
        Ok(())
    })
}

/// A materialised sheet as lines: each cell's reference and value.
fn sheet_lines(sheet: &sheetstream::Sheet) -> Vec<String> {
    sheet
        .cells()
        .map(|(at, value)| format!("{at}={:?}", value.into_owned()))
        .collect()
}

/// `Sheet`s built on the engine with `threads` threads.
pub fn sheets_parallel(bytes: &[u8], threads: usize) -> Result<Answer, String> {
    on_engine(bytes, threads, |mut rows, sheet, lines| {
        let mut builder = SheetBuilder::new(sheet.name());
        while let Some(row) = rows.next_row()? {
            builder.push_row(row)?;
        }
        *lines = sheet_lines(&builder.finish());
        Ok(())
    })
}

/// `Workbook::load_sheet` of each worksheet in order, stopping at the
/// first error.
pub fn sheets_serial(bytes: &[u8]) -> Result<Answer, String> {
    let mut workbook = open(bytes)?;
    let mut sheets = Vec::new();
    for position in worksheets(&workbook) {
        match workbook.load_sheet(position) {
            Ok(sheet) => sheets.push((position, sheet_lines(&sheet))),
            Err(err) => {
                sheets.push((position, Vec::new()));
                return Ok(Answer {
                    sheets,
                    error: Some(err.to_string()),
                });
            }
        }
    }
    Ok(Answer {
        sheets,
        error: None,
    })
}

/// `Workbook::load_all` (the engine's threads, one per core), as lines.
pub fn sheets_all(bytes: &[u8]) -> Result<Option<Vec<Vec<String>>>, String> {
    let workbook = open(bytes)?;
    Ok(workbook
        .load_all()
        .ok()
        .map(|sheets| sheets.iter().map(sheet_lines).collect()))
}

/// The Arrow batches of every worksheet (the many-sheet reader on
/// `threads` threads, read again wider after a misfit as the CLI does),
/// each sheet's batches as lines in order, or the error.
#[cfg(feature = "arrow")]
pub fn arrow(bytes: &[u8], threads: usize) -> Result<Answer, String> {
    use sheetstream::arrow::{ArrowOptions, SheetChoice};
    use std::sync::Arc;
    let workbook = Arc::new(open(bytes)?);
    let mut options = ArrowOptions::new()
        .threads(threads)
        .sheet_column(Some("__sheet"));
    for _ in 0..8 {
        let mut sheets: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let read = options
            .read_workbooks(
                vec![("book".into(), Arc::clone(&workbook))],
                SheetChoice::All,
            )
            .and_then(|mut reader| {
                while let Some(batch) = reader.next_batch()? {
                    let column = batch.column_by_name("__sheet").expect("the sheet column");
                    let name = format!("{:?}", column.slice(0, 1.min(column.len())));
                    sheets.entry(name).or_default().push(format!("{batch:?}"));
                }
                Ok(())
            });
        match read {
            Ok(()) => {
                return Ok(Answer {
                    sheets: sheets.into_values().enumerate().collect(),
                    error: None,
                });
            }
            Err(err) => match options.widened_by(&err) {
                Some(wider) => options = wider,
                // Batches of other sheets may have come before the
                // error, as threads went: only the error is compared.
                None => {
                    return Ok(Answer {
                        sheets: Vec::new(),
                        error: Some(err.to_string()),
                    });
                }
            },
        }
    }
    panic!("widened eight times")
}

/// `sheetstream cells -t THREADS` of the workbook: its lines, each parsed
/// by a strict JSON parser (serde_json refuses NaN and infinity), and its
/// message and exit status.
pub fn cli_cells(
    bin: &std::path::Path,
    file: &std::path::Path,
    threads: usize,
) -> (Vec<Json>, String, Option<i32>) {
    let run = super::run_bin_args(
        bin,
        &[
            "cells",
            "-q",
            "-t",
            &threads.to_string(),
            file.to_str().expect("a UTF-8 path"),
        ],
    );
    let lines = run
        .stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|err| {
                panic!("cells printed a line that is not JSON ({err}): {line}")
            })
        })
        .collect();
    (lines, run.stderr, run.code)
}

/// The dump lines the library's rows give for an answer of
/// [`rows_serial`] (the cells `cells` prints before its error).
pub fn dump_of(bytes: &[u8]) -> Vec<Json> {
    let mut workbook = open(bytes).expect("opens");
    let mut lines = Vec::new();
    for position in worksheets(&workbook) {
        let name = workbook.sheets()[position].name().to_owned();
        let Ok(mut rows) = workbook.rows(position) else {
            return lines;
        };
        loop {
            match rows.next_row() {
                Ok(Some(row)) => {
                    for cell in row.cells() {
                        lines.push(super::line_json(
                            &name,
                            &cell.reference().to_string(),
                            cell.value(),
                        ));
                    }
                }
                Ok(None) => break,
                Err(_) => return lines,
            }
        }
    }
    lines
}

/// Reads `bytes` every way and fails unless every path gives the serial
/// reader's answer: the engine's rows and `Sheet`s on each of [`THREADS`],
/// `load_sheet` and `load_all`, Arrow on each thread count (against each
/// other), and with `cli` (the binary and a file holding the bytes) the
/// CLI's `cells` on each thread count. Returns the serial answer (Err:
/// the workbook does not open, which every path agrees on).
pub fn assert_one_answer(
    bytes: &[u8],
    label: &str,
    cli: Option<(&std::path::Path, &std::path::Path)>,
) -> Result<Answer, String> {
    let serial = rows_serial(bytes);
    let answer = match &serial {
        Ok(answer) => answer.clone(),
        Err(err) => {
            for threads in THREADS {
                assert_eq!(
                    rows_parallel(bytes, threads).err().as_ref(),
                    Some(err),
                    "{label}: opening on {threads} threads"
                );
            }
            return Err(err.clone());
        }
    };
    for threads in THREADS {
        let parallel = rows_parallel(bytes, threads).expect("opened serially");
        if parallel != answer {
            panic!(
                "{label}: rows on {threads} threads differ from the serial reader's:\n{}",
                difference(&answer, &parallel)
            );
        }
    }
    // Sheets: built from the rows, on every thread count and by the
    // library's own loaders.
    let built = sheets_serial(bytes).expect("opened serially");
    assert_eq!(
        built.error, answer.error,
        "{label}: load_sheet's error against the rows'"
    );
    for threads in THREADS {
        let parallel = sheets_parallel(bytes, threads).expect("opened serially");
        if parallel != built {
            panic!(
                "{label}: sheets built on {threads} threads differ from load_sheet's:\n{}",
                difference(&built, &parallel)
            );
        }
    }
    match sheets_all(bytes).expect("opened serially") {
        Some(all) => {
            assert!(
                answer.error.is_none(),
                "{label}: load_all read what the rows refuse"
            );
            let one_by_one: Vec<Vec<String>> = built
                .sheets
                .iter()
                .map(|(_, lines)| lines.clone())
                .collect();
            assert_eq!(all, one_by_one, "{label}: load_all against load_sheet");
        }
        None => assert!(
            answer.error.is_some(),
            "{label}: load_all refused what the rows read"
        ),
    }
    #[cfg(feature = "arrow")]
    {
        let first = arrow(bytes, THREADS[0]).expect("opened serially");
        if answer.error.is_some() {
            assert!(
                first.error.is_some(),
                "{label}: Arrow read what the rows refuse"
            );
        }
        for threads in &THREADS[1..] {
            let other = arrow(bytes, *threads).expect("opened serially");
            if other != first {
                panic!(
                    "{label}: Arrow on {threads} threads differs from one thread:\n{}",
                    difference(&first, &other)
                );
            }
        }
    }
    if let Some((bin, file)) = cli {
        let expected = dump_of(bytes);
        let (first, message, code) = cli_cells(bin, file, THREADS[0]);
        assert_eq!(
            code.map(|code| code != 0),
            Some(answer.error.is_some()),
            "{label}: cells' exit status {code:?}: {message}"
        );
        assert_eq!(
            first.len(),
            expected.len(),
            "{label}: cells lines against the rows'"
        );
        for (got, want) in first.iter().zip(&expected) {
            assert!(
                super::same(got, want),
                "{label}: cells printed {got}, the rows hold {want}"
            );
        }
        for threads in &THREADS[1..] {
            let (lines, other_message, other_code) = cli_cells(bin, file, *threads);
            assert_eq!(
                (&lines, &other_message, other_code),
                (&first, &message, code),
                "{label}: cells on {threads} threads against one thread"
            );
        }
    }
    Ok(answer)
}

/// Where two answers part: the first differing line of each sheet, and
/// the errors.
pub fn difference(expected: &Answer, got: &Answer) -> String {
    let mut out = String::new();
    let short = |line: Option<&String>| line.map(|line| line.chars().take(120).collect::<String>());
    let sheets = expected.sheets.len().max(got.sheets.len());
    for at in 0..sheets {
        let want = expected.sheets.get(at);
        let have = got.sheets.get(at);
        if want == have {
            continue;
        }
        let (want_lines, have_lines) = (
            want.map(|(_, lines)| lines.as_slice()).unwrap_or_default(),
            have.map(|(_, lines)| lines.as_slice()).unwrap_or_default(),
        );
        let first = (0..want_lines.len().max(have_lines.len()))
            .find(|&i| want_lines.get(i) != have_lines.get(i))
            .unwrap_or(0);
        out.push_str(&format!(
            "sheet {:?}/{:?} ({} and {} lines), first difference at line {first}: {:?} against {:?}\n",
            want.map(|(p, _)| p),
            have.map(|(p, _)| p),
            want_lines.len(),
            have_lines.len(),
            short(want_lines.get(first)),
            short(have_lines.get(first)),
        ));
    }
    if expected.error != got.error {
        out.push_str(&format!(
            "errors: {:?} against {:?}\n",
            expected.error, got.error
        ));
    }
    out
}
