//! The `sheetstream` command-line tool: xlsx to CSV, TSV and JSON lines,
//! per-column statistics, counts and the conformance cell dump, streaming
//! and in parallel.

mod export;
mod format;
mod progress;
mod stats;

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use clap::{Args, Parser, Subcommand};
use sheetstream::{
    OpenOptions, Row, SharedFile, SheetCounts, SheetInfo, SheetKind, SheetState, Workbook,
};

use crate::format::DateStyle;
use crate::progress::Progress;

const EXIT_CODES: &str = "\
Exit status:
  0  success
  1  the workbook could not be read (missing, not an .xlsx file, damaged,
     malformed, or over a safety limit); the message says where
  2  bad usage
  3  the output could not be written";

/// Stream the contents of Excel .xlsx workbooks: to CSV, TSV or JSON lines,
/// per-column statistics, or counts. Sheets are read in parallel.
#[derive(Parser)]
#[command(name = "sheetstream", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Options every command that reads sheets takes.
#[derive(Args, Clone)]
struct Common {
    /// The workbook (.xlsx, .xlsm).
    file: PathBuf,
    /// Threads: 0 for one per core. Sheets are read in parallel; a lone
    /// sheet inflates on one thread while it is scanned on another.
    #[arg(short = 't', long, default_value_t = 0, value_name = "N")]
    threads: usize,
    /// No progress bar (it is shown only when stderr is a terminal anyway).
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// List the sheets: position, name, state (visible, hidden, veryHidden),
    /// kind and dimension (as the sheet declares it).
    Sheets {
        /// The workbook.
        file: PathBuf,
    },
    /// Convert a sheet (or every sheet) to CSV or TSV.
    Csv(export::CsvArgs),
    /// Convert a sheet to JSON lines: one object per row, keyed by the header row.
    Jsonl(export::JsonlArgs),
    /// Per sheet and column: counts of each value type, min and max of
    /// numbers and dates, longest text.
    Stats {
        #[command(flatten)]
        common: Common,
        /// Only this sheet (name, or position as `sheets` shows it).
        #[arg(short, long)]
        sheet: Option<String>,
    },
    /// Per sheet: rows, cells and checksums of numbers, text, booleans,
    /// errors and dates.
    Count {
        #[command(flatten)]
        common: Common,
    },
    /// Every non-empty cell of every worksheet as one JSON object a line
    /// (the conformance dump format).
    Cells {
        #[command(flatten)]
        common: Common,
        /// Add a `"text"` field: the cell as Excel shows it through its
        /// number format.
        #[arg(long)]
        formatted: bool,
    },
}

/// Why the tool stopped.
enum Failure {
    Usage(String),
    Read(sheetstream::Error),
    Output(io::Error),
}

impl From<sheetstream::Error> for Failure {
    fn from(err: sheetstream::Error) -> Failure {
        Failure::Read(err)
    }
}

impl From<io::Error> for Failure {
    fn from(err: io::Error) -> Failure {
        Failure::Output(err)
    }
}

impl From<csv::Error> for Failure {
    fn from(err: csv::Error) -> Failure {
        // Keep the I/O error itself, so that a closed pipe is recognised.
        match err.into_kind() {
            csv::ErrorKind::Io(err) => Failure::Output(err),
            other => Failure::Output(io::Error::other(format!("{other:?}"))),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sheets { file } => sheets(&file),
        Command::Csv(args) => export::csv(&args),
        Command::Jsonl(args) => export::jsonl(&args),
        Command::Stats { common, sheet } => stats::stats(&common, sheet.as_deref()),
        Command::Count { common } => count(&common),
        Command::Cells { common, formatted } => cells(&common, formatted),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("sheetstream: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Read(err)) => {
            eprintln!("sheetstream: {err}");
            ExitCode::from(1)
        }
        Err(Failure::Output(err)) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(err)) => {
            eprintln!("sheetstream: cannot write the output: {err}");
            ExitCode::from(3)
        }
    }
}

/// Opens a workbook, counting the compressed bytes read for the progress bar.
fn open(common: &Common) -> Result<(Workbook, Progress), Failure> {
    let file = SharedFile::open(&common.file).map_err(|err| {
        Failure::Read(sheetstream::Error::from(io::Error::new(
            err.kind(),
            format!("{}: {err}", common.file.display()),
        )))
    })?;
    let progress = Progress::new(file.len(), common.quiet);
    let workbook = OpenOptions::new().from_reader(file.with_progress(progress.counter()))?;
    Ok((workbook, progress))
}

/// Finds a worksheet by name, or by position when no sheet has that name.
fn find_sheet<R>(workbook: &Workbook<R>, wanted: &str) -> Result<usize, Failure> {
    let sheets = workbook.sheets();
    let found = match sheets.iter().find(|sheet| sheet.name() == wanted) {
        Some(sheet) => Some(sheet.position()),
        None => wanted
            .parse::<usize>()
            .ok()
            .filter(|&position| position < sheets.len()),
    };
    match found {
        Some(position) if sheets[position].kind() == SheetKind::Worksheet => Ok(position),
        Some(position) => Err(Failure::Usage(format!(
            "sheet `{}` is a {}, not a worksheet: it has no cells to read",
            sheets[position].name(),
            kind_name(sheets[position].kind())
        ))),
        None => Err(Failure::Usage(format!(
            "no sheet named or numbered `{wanted}`; the sheets are: {}",
            sheets
                .iter()
                .map(|s| format!("{} `{}`", s.position(), s.name()))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Position and name of each worksheet (chart, dialog and macro sheets left out).
fn worksheet_positions<R>(workbook: &Workbook<R>) -> Vec<(usize, String)> {
    workbook
        .sheets()
        .iter()
        .filter(|sheet| sheet.kind() == SheetKind::Worksheet)
        .map(|sheet| (sheet.position(), sheet.name().to_owned()))
        .collect()
}

fn sheets(file: &Path) -> Result<(), Failure> {
    let common = Common {
        file: file.to_path_buf(),
        threads: 1,
        quiet: true,
    };
    let (mut workbook, _) = open(&common)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    writeln!(out, "position\tname\tstate\tkind\tdimension")?;
    for sheet in workbook.sheets().to_vec() {
        let state = match sheet.state() {
            SheetState::Visible => "visible",
            SheetState::Hidden => "hidden",
            SheetState::VeryHidden => "veryHidden",
        };
        let kind = kind_name(sheet.kind());
        // As the sheet says, from the start of its part; empty when it does not.
        let dimension = match sheet.kind() {
            SheetKind::Worksheet => workbook
                .sheet_dimension(sheet.position())?
                .map(|range| range.to_string()),
            _ => None,
        };
        writeln!(
            out,
            "{}\t{}\t{state}\t{kind}\t{}",
            sheet.position(),
            sheet.name(),
            dimension.unwrap_or_default()
        )?;
    }
    out.flush()?;
    Ok(())
}

fn kind_name(kind: SheetKind) -> &'static str {
    match kind {
        SheetKind::Worksheet => "worksheet",
        SheetKind::Chartsheet => "chartsheet",
        SheetKind::Dialogsheet => "dialogsheet",
        SheetKind::Macrosheet => "macrosheet",
    }
}

fn count(common: &Common) -> Result<(), Failure> {
    let (workbook, progress) = open(common)?;
    let sheet_count = workbook.sheets().len();
    // Each thread counts into its own table, indexed by sheet position.
    let per_sheet = progress.run(|| {
        workbook.parallel().threads(common.threads).fold(
            || vec![SheetCounts::default(); sheet_count],
            |table, sheet, row| table[sheet.position()].add_row(&row),
            |mut a, b| {
                for (mine, theirs) in a.iter_mut().zip(&b) {
                    mine.merge(theirs);
                }
                a
            },
        )
    })?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut total = SheetCounts::default();
    for (position, name) in worksheet_positions(&workbook) {
        let counts = per_sheet[position];
        writeln!(out, "{name}\t{counts}")?;
        total.merge(&counts);
    }
    writeln!(out, "(total)\t{total}")?;
    out.flush()?;
    Ok(())
}

fn cells(common: &Common, formatted: bool) -> Result<(), Failure> {
    let (workbook, progress) = open(common)?;
    let formats = formatted.then(|| workbook.number_formats());
    let out = Mutex::new(BufWriter::with_capacity(1 << 16, io::stdout()));
    let write_error: Mutex<Option<io::Error>> = Mutex::new(None);
    let dates = DateStyle::Pattern("%Y-%m-%dT%H:%M:%S".into());
    progress.run(|| -> Result<(), Failure> {
        // Sheets one after another, so that the output keeps workbook order;
        // with more than one thread each sheet inflates on a thread of its own.
        for (position, name) in worksheet_positions(&workbook) {
            let mut quoted_name = Vec::new();
            format::json_string(&mut quoted_name, &name);
            let (out, quoted_name, write_error, dates) = (&out, &quoted_name, &write_error, &dates);
            workbook
                .parallel()
                .threads(common.threads)
                .sheets([position])?
                .for_each_row(|| {
                    let mut line = Vec::with_capacity(256);
                    let mut scratch = String::new();
                    move |_sheet: &SheetInfo, row: Row<'_>| {
                        let mut out = out.lock().unwrap_or_else(|poison| poison.into_inner());
                        let written = row.cells().iter().try_for_each(|cell| {
                            line.clear();
                            line.extend_from_slice(b"{\"sheet\":");
                            line.extend_from_slice(quoted_name);
                            write!(line, ",\"ref\":\"{}\",", cell.reference())?;
                            write_dump_value(&mut line, cell.value(), dates, &mut scratch);
                            if let Some(formats) = formats {
                                scratch.clear();
                                cell.formatted_into(formats, &mut scratch);
                                line.extend_from_slice(b",\"text\":");
                                format::json_string(&mut line, &scratch);
                            }
                            line.extend_from_slice(b"}\n");
                            out.write_all(&line)
                        });
                        match written {
                            Ok(()) => true,
                            Err(err) => {
                                *write_error
                                    .lock()
                                    .unwrap_or_else(|poison| poison.into_inner()) = Some(err);
                                false
                            }
                        }
                    }
                })?;
            if let Some(err) = write_error
                .lock()
                .unwrap_or_else(|poison| poison.into_inner())
                .take()
            {
                return Err(Failure::Output(err));
            }
        }
        Ok(())
    })?;
    out.into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
        .flush()?;
    Ok(())
}

/// A value in the conformance dump: `"t"` and `"v"` as FORMAT.md defines them.
fn write_dump_value(
    line: &mut Vec<u8>,
    value: sheetstream::Value<'_>,
    dates: &DateStyle,
    scratch: &mut String,
) {
    use sheetstream::Value;
    let kind: &[u8] = match value {
        Value::Number(_) => b"n",
        Value::Text(_) => b"s",
        Value::Bool(_) => b"b",
        Value::Error(_) => b"e",
        Value::DateTime(date) if date.to_civil().is_some() => b"d",
        Value::DateTime(_) => b"n",
    };
    line.extend_from_slice(b"\"t\":\"");
    line.extend_from_slice(kind);
    line.extend_from_slice(b"\",\"v\":");
    match value {
        // The dump keeps milliseconds only when they are not zero.
        Value::DateTime(date) => match date.to_civil() {
            Some(civil) => {
                scratch.clear();
                let _ = std::fmt::Write::write_fmt(scratch, format_args!("{civil}"));
                format::json_string(line, scratch);
            }
            None => format::json_value(line, value, dates, scratch),
        },
        _ => format::json_value(line, value, dates, scratch),
    }
}
