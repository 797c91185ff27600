//! The `sheetstream` command-line tool.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::sync::Mutex;

use sheetstream::{SheetCounts, SheetKind, SheetState, Value, Workbook};

const USAGE: &str = "\
sheetstream: stream the contents of .xlsx workbooks

Usage:
  sheetstream sheets FILE   list the sheets: position, name, state, kind
  sheetstream cells FILE    print every non-empty cell of every worksheet as
                            one JSON object a line (the conformance dump format)
  sheetstream count FILE    stream every worksheet and print, per sheet, rows,
                            cells and checksums of numbers, text, booleans,
                            errors and dates

Options:
  -t, --threads N           threads for cells and count: 0 (the default) for
                            one per core; sheets are read in parallel, and a
                            lone sheet inflates on one thread while it is
                            scanned on another

Exit status: 0 on success, 1 when the workbook cannot be read, 2 on bad usage.";

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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("sheetstream: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
        Err(Failure::Read(err)) => {
            eprintln!("sheetstream: {err}");
            ExitCode::from(1)
        }
        Err(Failure::Output(err)) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(err)) => {
            eprintln!("sheetstream: cannot write output: {err}");
            ExitCode::from(1)
        }
    }
}

fn run(args: &[String]) -> Result<(), Failure> {
    let Some((command, rest)) = args.split_first() else {
        return Err(Failure::Usage("no command given".into()));
    };
    if command == "-h" || command == "--help" {
        println!("{USAGE}");
        return Ok(());
    }
    if !["sheets", "cells", "count"].contains(&command.as_str()) {
        return Err(Failure::Usage(format!("unknown command `{command}`")));
    }
    let mut threads = 0;
    let mut files = Vec::new();
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-t" | "--threads" => {
                let value = rest
                    .next()
                    .ok_or_else(|| Failure::Usage(format!("`{arg}` needs a number")))?;
                threads = value
                    .parse()
                    .map_err(|_| Failure::Usage(format!("`{value}` is not a number of threads")))?;
            }
            flag if flag.starts_with('-') && flag.len() > 1 => {
                return Err(Failure::Usage(format!("unknown option `{flag}`")));
            }
            file => files.push(file),
        }
    }
    let [file] = files.as_slice() else {
        return Err(Failure::Usage(format!(
            "`{command}` takes exactly one FILE"
        )));
    };
    match command.as_str() {
        "sheets" => sheets(file),
        "cells" => cells(file, threads),
        _ => count(file, threads),
    }
}

fn sheets(file: &str) -> Result<(), Failure> {
    let workbook = Workbook::open(file)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for (position, sheet) in workbook.sheets().iter().enumerate() {
        let state = match sheet.state() {
            SheetState::Visible => "visible",
            SheetState::Hidden => "hidden",
            SheetState::VeryHidden => "veryHidden",
        };
        writeln!(
            out,
            "{position}\t{}\t{state}\t{}",
            sheet.name(),
            kind_name(sheet.kind())
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

fn count(file: &str, threads: usize) -> Result<(), Failure> {
    let workbook = Workbook::open(file)?;
    let worksheets = worksheet_positions(&workbook);
    let sheet_count = workbook.sheets().len();
    // Each thread counts into its own table, indexed by sheet position.
    let per_sheet = workbook.parallel().threads(threads).fold(
        || vec![SheetCounts::default(); sheet_count],
        |table, sheet, row| {
            table[sheet.position()].add_row(&row);
        },
        |mut a, b| {
            for (mine, theirs) in a.iter_mut().zip(&b) {
                mine.merge(theirs);
            }
            a
        },
    )?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut total = SheetCounts::default();
    for (position, name) in worksheets {
        let counts = per_sheet[position];
        writeln!(out, "{name}\t{counts}")?;
        total.merge(&counts);
    }
    writeln!(out, "(total)\t{total}")?;
    out.flush()?;
    Ok(())
}

/// Position and name of each worksheet (chart, dialog and macro sheets left out).
fn worksheet_positions<R>(workbook: &Workbook<R>) -> Vec<(usize, String)> {
    workbook
        .sheets()
        .iter()
        .enumerate()
        .filter(|(_, sheet)| sheet.kind() == SheetKind::Worksheet)
        .map(|(position, sheet)| (position, sheet.name().to_owned()))
        .collect()
}

fn cells(file: &str, threads: usize) -> Result<(), Failure> {
    let workbook = Workbook::open(file)?;
    let stdout = io::stdout();
    let out = Mutex::new(BufWriter::with_capacity(1 << 16, stdout));
    let write_error: Mutex<Option<io::Error>> = Mutex::new(None);
    // Sheets one after another, so that the output keeps workbook order;
    // with more than one thread each sheet inflates on a thread of its own.
    for (position, name) in worksheet_positions(&workbook) {
        let mut quoted_name = Vec::new();
        write_json_string(&mut quoted_name, &name);
        let (out, quoted_name, write_error) = (&out, &quoted_name, &write_error);
        workbook
            .parallel()
            .threads(threads)
            .sheets([position])?
            .for_each_row(|| {
                let mut line = Vec::with_capacity(256);
                move |_sheet: &sheetstream::SheetInfo, row: sheetstream::Row<'_>| {
                    let mut out = out.lock().unwrap_or_else(|poison| poison.into_inner());
                    let written = row.cells().iter().try_for_each(|cell| {
                        line.clear();
                        line.extend_from_slice(b"{\"sheet\":");
                        line.extend_from_slice(quoted_name);
                        write!(line, ",\"ref\":\"{}\",", cell.reference())?;
                        write_value(&mut line, cell.value())?;
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
    out.into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
        .flush()?;
    Ok(())
}

fn write_value(line: &mut Vec<u8>, value: Value<'_>) -> io::Result<()> {
    match value {
        Value::Number(number) => write!(line, "\"t\":\"n\",\"v\":{number}"),
        Value::Text(text) => {
            line.extend_from_slice(b"\"t\":\"s\",\"v\":");
            write_json_string(line, text);
            Ok(())
        }
        Value::Bool(flag) => write!(line, "\"t\":\"b\",\"v\":{flag}"),
        Value::Error(code) => {
            line.extend_from_slice(b"\"t\":\"e\",\"v\":");
            write_json_string(line, code);
            Ok(())
        }
        Value::DateTime(date) => match date.to_civil() {
            Some(civil) => write!(line, "\"t\":\"d\",\"v\":\"{civil}\""),
            None => write!(line, "\"t\":\"n\",\"v\":{}", date.serial()),
        },
    }
}

fn write_json_string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut copied = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        let escape: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[copied..at]);
        if escape.is_empty() {
            out.extend_from_slice(format!("\\u{byte:04x}").as_bytes());
        } else {
            out.extend_from_slice(escape);
        }
        copied = at + 1;
    }
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
}
