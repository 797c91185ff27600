//! The `sheetstream` command-line tool: xlsx to CSV, TSV and JSON lines,
//! per-column statistics, counts and the conformance cell dump, streaming
//! and in parallel.
//!
//! The commands and the exit codes (0 success, 1 the workbook could not be
//! read, 2 bad usage, 3 the output could not be written). Inputs (globs, `-`,
//! messages naming the path) go through `input.rs`: new commands open
//! workbooks through it; every output file through `partial.rs`.

mod columnar;
mod columns;
mod export;
mod format;
mod input;
mod partial;
mod passwords;
mod progress;
mod rows;
mod stats;
mod tables;

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use sheetstream::{
    Row, SheetCounts, SheetInfo, SheetKind, SheetRef, SheetSelector, SheetState, Workbook,
};

use crate::format::DateStyle;
use crate::input::{Input, inputs};

const EXIT_CODES: &str = "\
Counting: rows and columns as Excel numbers them, from 1 (--header-row 2,
  --skip-rows 3 leaves out rows 1-3, --columns 2-4 or B:D); sheets by
  position as `sheets` lists them, from 0 (--sheet 0 is the first sheet).

Inputs: files, globs, folders (every workbook in them, by name; with
  --recursive, in their subfolders too) and `-` for standard input.

Encrypted (password-protected) workbooks open with Excel's default password
(VelvetSweatshop) unasked, else with a password from --password-file FILE or
the environment variable SHEETSTREAM_PASSWORD (each tried in turn). A password
on the command line (--password) can be read by other users in the process list
and stays in the shell's history: prefer the file or the variable.

Exit status:
  0  success
  1  the workbook could not be read (missing, not a workbook, damaged,
     malformed, encrypted and no password opens it, or over a safety limit);
     the message says where
  2  bad usage
  3  the output could not be written";

/// Stream the contents of spreadsheet workbooks (.xlsx, .xlsb, .xls, .ods): to CSV, TSV or JSON lines,
/// per-column statistics, or counts. Sheets are read in parallel.
#[derive(Parser)]
#[command(name = "sheetstream", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    passwords: passwords::PasswordArgs,
}

/// Options every command that reads sheets takes.
#[derive(Args, Clone)]
struct Common {
    /// The workbooks (.xlsx, .xlsm, .xlsb, .xls, .ods): files, globs (expanded by sheetstream
    /// when quoted), folders (their workbooks, by name: files ending in
    /// .xlsx, .xlsm, .xltx, .xltm, .xlsb, .xls, .xlt, .ods or .fods), or `-`
    /// for standard input (copied into a temporary file first: a ZIP is
    /// read from its end).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// A folder given as FILE is read with its subfolders, at any depth.
    #[arg(short = 'r', long)]
    recursive: bool,
    /// Threads: 0 for one per core. Sheets are read in parallel; a lone
    /// sheet inflates on one thread while it is scanned on another.
    #[arg(short = 't', long, default_value_t = 0, value_name = "N")]
    threads: usize,
    /// No progress bar (it is shown only when stderr is a terminal anyway).
    #[arg(short, long)]
    quiet: bool,
}

/// Which sheet a command reads. At most one of these.
#[derive(Args, Clone, Default)]
#[group(multiple = false)]
struct SheetChoice {
    /// The sheet, by name, or by position as `sheets` lists it (0-based)
    /// when no sheet has that name: a name wins, so in a workbook with a
    /// sheet named `2`, `--sheet 2` is that sheet. --sheet-name and
    /// --sheet-index say which outright.
    #[arg(short, long, value_name = "NAME|POSITION")]
    sheet: Option<String>,
    /// The sheet of this name, exactly (never read as a position).
    #[arg(long, value_name = "NAME")]
    sheet_name: Option<String>,
    /// The sheet at this position as `sheets` lists it (0-based), whatever
    /// the sheets are named.
    #[arg(long, value_name = "POSITION")]
    sheet_index: Option<usize>,
}

/// Prints a warning on stderr, once per message however often the
/// commands' steps find the same thing.
fn warn_once(message: String) {
    static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|poison| poison.into_inner());
    if !seen.contains(&message) {
        eprintln!("sheetstream: warning: {message}");
        seen.push(message);
    }
}

/// The worksheet named or numbered `wanted` (a name wins), found as
/// `--sheet` finds it: the columnar commands' repeatable `--sheet`.
fn find_sheet<R>(workbook: &Workbook<R>, wanted: &str) -> Result<usize, Failure> {
    find_worksheet(workbook, &SheetRef::Text(wanted.to_owned()))
}

/// The sheet `wanted` names, which must be a worksheet: a usage error
/// listing the sheets when there is none (or naming what it is instead);
/// a warning on stderr when the text could have meant another sheet.
fn find_worksheet<R>(workbook: &Workbook<R>, wanted: &SheetRef) -> Result<usize, Failure> {
    let sheets = workbook.sheets();
    let position = wanted.position(sheets).map_err(|_| {
        let how = match wanted {
            SheetRef::Position(position) => format!("at position {position}"),
            SheetRef::Name(name) => format!("named `{}`", escape(name)),
            _ => format!("named or numbered `{}`", escape(&wanted.to_string())),
        };
        Failure::Usage(format!(
            "no sheet {how}; the sheets are: {}",
            sheets
                .iter()
                .map(|s| format!("{} `{}`", s.position(), escape(s.name())))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    if let Some(note) = wanted.ambiguity(sheets) {
        warn_once(format!(
            "{note}; --sheet-index {} reads the sheet at that position",
            wanted
        ));
    }
    match sheets[position].kind() {
        SheetKind::Worksheet => Ok(position),
        kind => Err(Failure::Usage(format!(
            "sheet `{}` is a {}, not a worksheet: it has no cells to read",
            escape(sheets[position].name()),
            kind_name(kind)
        ))),
    }
}

impl SheetChoice {
    /// The choice as the library names a sheet: `--sheet` by its rule for
    /// text (a name wins, else a whole number is a position), the others
    /// outright; None when no choice was given.
    fn sheet_ref(&self) -> Option<SheetRef> {
        if let Some(wanted) = &self.sheet {
            Some(SheetRef::Text(wanted.clone()))
        } else if let Some(wanted) = &self.sheet_name {
            Some(SheetRef::Name(wanted.clone()))
        } else {
            self.sheet_index.map(SheetRef::Position)
        }
    }

    /// The chosen worksheet; None when no choice was given. A `--sheet`
    /// that could have meant another sheet gets a warning on stderr.
    fn find<R>(&self, workbook: &Workbook<R>) -> Result<Option<usize>, Failure> {
        let Some(wanted) = self.sheet_ref() else {
            return Ok(None);
        };
        find_worksheet(workbook, &wanted).map(Some)
    }

    /// The chosen worksheet, or every worksheet when none was chosen.
    fn find_or_all<R>(&self, workbook: &Workbook<R>) -> Result<Vec<usize>, Failure> {
        Ok(match self.find(workbook)? {
            Some(position) => vec![position],
            None => worksheet_positions(workbook)
                .into_iter()
                .map(|(position, _)| position)
                .collect(),
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// List the sheets: position, name, state (visible, hidden, veryHidden),
    /// kind and dimension (as the sheet declares it). With several files,
    /// a first column names the file.
    Sheets {
        /// The workbooks (files, globs, folders, `-` for standard input).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// A folder given as FILE is read with its subfolders, at any depth.
        #[arg(short = 'r', long)]
        recursive: bool,
    },
    /// List the Excel tables (Insert > Table): name, sheet, range, header
    /// and totals row counts, column names (a JSON array). Read from the
    /// table parts only, no cell read. With several files, a first column
    /// names the file. Read one with `--table NAME` (parquet, arrow, schema,
    /// csv, jsonl).
    Tables(tables::TablesArgs),
    /// Convert a sheet (or every sheet) to CSV or TSV.
    Csv(export::CsvArgs),
    /// Convert a sheet to JSON lines: one object per row, keyed by the header row.
    Jsonl(export::JsonlArgs),
    /// Per sheet and column: counts of each value type, min and max of
    /// numbers and dates, longest text. The header row (the first row with
    /// a value unless --header-row or --no-header says otherwise) and the
    /// rows above it are left out of the counts; its text is shown in the
    /// `header` column.
    Stats(stats::StatsArgs),
    /// Per sheet: rows, cells and checksums of numbers, text, booleans,
    /// errors and dates. With several files, a first column names the file.
    Count {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        sheet: SheetChoice,
    },
    /// Sheets to a Parquet file of typed columns (types inferred from a
    /// sample, see `sheetstream schema`); many sheets and files in one.
    Parquet(columnar::ParquetArgs),
    /// Sheets as an Arrow IPC stream of typed columns on standard output
    /// (for DuckDB, polars, pyarrow).
    Arrow(columnar::ArrowArgs),
    /// The column names and inferred types of each sheet.
    Schema(columnar::SchemaArgs),
    /// Every non-empty cell of every worksheet (or of the one chosen) as
    /// one JSON object a line (the conformance dump format).
    Cells {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        sheet: SheetChoice,
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
    /// A read error in a named input file.
    ReadFile(String, sheetstream::Error),
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

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|err| err.exit());
    if let Err(failure) = cli.passwords.install() {
        return report(Err(failure));
    }
    let result = match cli.command {
        Command::Sheets { files, recursive } => sheets(files, recursive),
        Command::Tables(args) => tables::tables(&args),
        Command::Csv(args) => export::csv(&args),
        Command::Jsonl(args) => export::jsonl(&args),
        Command::Stats(args) => stats::stats(&args),
        Command::Count { common, sheet } => count(&common, &sheet),
        Command::Cells {
            common,
            sheet,
            formatted,
        } => cells(&common, &sheet, formatted),
        Command::Parquet(args) => columnar::parquet(&args),
        Command::Arrow(args) => columnar::arrow(&args),
        Command::Schema(args) => columnar::refuse_in_schema(matches.subcommand_matches("schema"))
            .and_then(|()| columnar::schema(&args)),
    };
    for path in input::REMOVE_AT_EXIT
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .drain(..)
    {
        let _ = std::fs::remove_file(path);
    }
    report(result)
}

/// The exit status of a command's result, its failure on stderr.
fn report(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("sheetstream: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Read(err)) => {
            eprintln!("sheetstream: {}", escape(&in_cli_words(&err)));
            ExitCode::from(1)
        }
        Err(Failure::ReadFile(file, err)) => {
            eprintln!("sheetstream: {file}: {}", escape(&in_cli_words(&err)));
            ExitCode::from(1)
        }
        Err(Failure::Output(err)) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(err)) => {
            eprintln!(
                "sheetstream: cannot write the output: {}",
                escape(&err.to_string())
            );
            ExitCode::from(3)
        }
    }
}

/// A library error's message in the tool's words: advice naming an
/// [`ArrowOptions`](sheetstream::arrow::ArrowOptions) option (and Python's
/// keyword), `union_by_name`, `skip_unreadable`, names the flag,
/// `--union-by-name`, `--skip-unreadable`.
pub fn in_cli_words(err: &sheetstream::Error) -> String {
    err.to_string()
        .replace("read with union_by_name", "read with --union-by-name")
        .replace("(skip_unreadable)", "(--skip-unreadable)")
}

/// Text from a file (a sheet name, a value, a path) made safe to print on
/// one line of a terminal or log: control characters (C0, DEL, C1, and
/// the bidirectional overrides) are written as `\u{..}` escapes, and a
/// backslash before `u{` as `\\`, so nothing forges a line, moves the
/// cursor or starts an escape sequence.
pub fn escape(text: &str) -> Cow<'_, str> {
    let unsafe_char = |ch: char| {
        ch.is_control() || matches!(ch, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) && !text.contains("\\u{") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if unsafe_char(ch) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(ch)));
        } else if ch == '\\' && chars.peek() == Some(&'u') {
            out.push_str("\\\\");
        } else {
            out.push(ch);
        }
    }
    Cow::Owned(out)
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

/// `FILE\t` before each line when several files are read, else nothing.
fn file_column(input: &Input, several: bool) -> String {
    if several {
        format!("{}\t", input.display().replace('\t', "\\t"))
    } else {
        String::new()
    }
}

fn sheets(files: Vec<PathBuf>, recursive: bool) -> Result<(), Failure> {
    let common = Common {
        files,
        recursive,
        threads: 1,
        quiet: true,
    };
    let inputs = inputs(&common)?;
    let several = inputs.len() > 1;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let file_header = if several { "file\t" } else { "" };
    let mut header = Some(format!(
        "{file_header}position\tname\tstate\tkind\tdimension"
    ));
    for input in &inputs {
        let (mut workbook, _) = input.open(true)?;
        // Written once the first workbook opened: nothing on stdout otherwise.
        if let Some(header) = header.take() {
            writeln!(out, "{header}")?;
        }
        let file = file_column(input, several);
        for sheet in workbook.sheets().to_vec() {
            let state = match sheet.state() {
                SheetState::Visible => "visible",
                SheetState::Hidden => "hidden",
                SheetState::VeryHidden => "veryHidden",
                _ => "other",
            };
            let kind = kind_name(sheet.kind());
            // As the sheet says, from the start of its part; empty when it does not.
            let dimension = match sheet.kind() {
                SheetKind::Worksheet => workbook
                    .sheet_dimension(sheet.position())
                    .map_err(|err| input.locate(err))?
                    .map(|range| range.to_string()),
                _ => None,
            };
            writeln!(
                out,
                "{file}{}\t{}\t{state}\t{kind}\t{}",
                sheet.position(),
                escape(sheet.name()).replace('\t', "\\t"),
                dimension.unwrap_or_default()
            )?;
        }
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
        _ => "other sheet",
    }
}

fn count(common: &Common, choice: &SheetChoice) -> Result<(), Failure> {
    let inputs = inputs(common)?;
    let several = inputs.len() > 1;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut total = SheetCounts::default();
    for input in &inputs {
        let (workbook, progress) = input.open(common.quiet)?;
        let positions = choice.find_or_all(&workbook)?;
        let sheet_count = workbook.sheets().len();
        // Each thread counts into its own table, indexed by sheet position.
        let per_sheet = progress
            .run(|| {
                workbook
                    .parallel()
                    .threads(common.threads)
                    .sheets(positions.iter().copied())?
                    .fold(
                        || vec![SheetCounts::default(); sheet_count],
                        |table, sheet, row| table[sheet.position()].add_row(&row),
                        |mut a, b| {
                            for (mine, theirs) in a.iter_mut().zip(&b) {
                                mine.merge(theirs);
                            }
                            a
                        },
                    )
            })
            .map_err(|err| input.locate(err))?;
        let file = file_column(input, several);
        for position in positions {
            let counts = per_sheet[position];
            let name = escape(workbook.sheets()[position].name()).replace('\t', "\\t");
            writeln!(out, "{file}{name}\t{counts}")?;
            total.merge(&counts);
        }
    }
    writeln!(
        out,
        "{}(total)\t{total}",
        if several { "(all files)\t" } else { "" }
    )?;
    out.flush()?;
    Ok(())
}

fn cells(common: &Common, choice: &SheetChoice, formatted: bool) -> Result<(), Failure> {
    let out = Mutex::new(BufWriter::with_capacity(1 << 16, io::stdout()));
    for input in &inputs(common)? {
        let (workbook, progress) = input.open(common.quiet)?;
        let positions = choice.find_or_all(&workbook)?;
        progress
            .run(|| dump_sheets(&workbook, &positions, common.threads, formatted, &out))
            .map_err(|failure| match failure {
                Failure::Read(err) => input.locate(err),
                other => other,
            })?;
    }
    out.into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
        .flush()?;
    Ok(())
}

/// The conformance dump of some sheets, in workbook order.
fn dump_sheets(
    workbook: &Workbook,
    positions: &[usize],
    threads: usize,
    formatted: bool,
    out: &Mutex<BufWriter<io::Stdout>>,
) -> Result<(), Failure> {
    let formats = formatted.then(|| workbook.number_formats());
    let write_error: Mutex<Option<io::Error>> = Mutex::new(None);
    let dates = DateStyle::Pattern("%Y-%m-%dT%H:%M:%S".into());
    // Sheets one after another, so that the output keeps workbook order;
    // with more than one thread each sheet inflates on a thread of its own.
    for &position in positions {
        let mut quoted_name = Vec::new();
        format::json_string(&mut quoted_name, workbook.sheets()[position].name());
        let (quoted_name, write_error, dates) = (&quoted_name, &write_error, &dates);
        workbook
            .parallel()
            .threads(threads)
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
        _ => b"s",
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
            // No date to show (a negative serial, say under a duration
            // format): the dump's number, whatever the CSV writes for it.
            None => {
                scratch.clear();
                format::number(scratch, date.serial());
                line.extend_from_slice(scratch.as_bytes());
            }
        },
        _ => format::json_value(line, value, dates, scratch),
    }
}
