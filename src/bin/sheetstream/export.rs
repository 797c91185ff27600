//! `csv` and `jsonl`: sheets out as CSV/TSV files or JSON lines.
//!
//! `csv` and `jsonl`, and `--formatted`; `Window`, a range or table made into
//! their row options, columns and last row.

use std::collections::{HashMap, HashSet};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clap::Args;
use sheetstream::{ColumnSpec, NumberFormats, Row, SheetInfo, Workbook};

use crate::columns::{self, CellSlots};
use crate::format::{self, DateStyle};
use crate::input::{Input, inputs};
use crate::partial::{Outputs, PartialFile};
use crate::rows::{HeaderRowArg, Role, Roles, RowArgs, WindowArgs};
use crate::{Common, Failure, SheetChoice, escape, find_sheet, worksheet_positions};

#[derive(Args)]
pub struct CsvArgs {
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    sheet: SheetChoice,
    /// Every worksheet, one file each in the folder given with -o, converted
    /// in parallel. Files are named after the sheets (characters file
    /// systems refuse replaced by `_`, a `-N` suffix where two names would
    /// be the same after that or after case folding); with several
    /// workbooks, one subfolder each, named after the workbook. The list of
    /// sheet, file pairs is printed on standard output.
    #[arg(long, requires = "output", conflicts_with_all = ["SheetChoice", "range", "table"])]
    all: bool,
    /// The output file (with --all, the folder); standard output without.
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Tab-separated values, unquoted: a tab, line feed, carriage return or
    /// backslash in a value is written as `\t`, `\n`, `\r`, `\\`.
    #[arg(long, conflicts_with = "delimiter")]
    tsv: bool,
    /// The CSV field delimiter: one ASCII character (`tab` or `\t` for a
    /// tab); fields that hold it, a quote or a line break are quoted.
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    delimiter: Option<u8>,
    /// Write dates with this pattern (%Y %m %d %H %M %S %f) instead of ISO 8601.
    #[arg(long, value_name = "PATTERN")]
    date_format: Option<String>,
    #[command(flatten)]
    rows: RowArgs,
    #[command(flatten)]
    window: WindowArgs,
    #[arg(long, value_name = "LIST", help = columns::HELP)]
    columns: Option<String>,
    /// Write each record with only the fields up to its last cell, instead
    /// of every record of a sheet as wide as the sheet (see docs/src/cli/export.md).
    #[arg(long)]
    ragged: bool,
    /// Write each cell's text as Excel shows it through its number format
    /// (`00501`, `12.5%`, `$1,234.50`) instead of its value.
    #[arg(long)]
    formatted: bool,
    /// Add a first column of this name holding each row's file (as given
    /// on the command line), as `parquet --file-column` does: for several
    /// workbooks written into one CSV. The header row holds the name (with
    /// --no-header no record does), every other record its file. The
    /// header row is written once, the first workbook's: the others' must
    /// hold the same text, or the command fails (and writes no file).
    #[arg(long, value_name = "NAME")]
    file_column: Option<String>,
}

#[derive(Args)]
pub struct JsonlArgs {
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    sheet: SheetChoice,
    /// Every worksheet, one after another; each object then starts with
    /// `"_sheet"` (and `"_file"` with several workbooks).
    #[arg(long, conflicts_with_all = ["SheetChoice", "range", "table"])]
    all: bool,
    /// The output file; standard output without.
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,
    #[command(flatten)]
    rows: RowArgs,
    #[command(flatten)]
    window: WindowArgs,
    /// Write dates with this pattern (%Y %m %d %H %M %S %f) instead of ISO 8601.
    #[arg(long, value_name = "PATTERN")]
    date_format: Option<String>,
    #[arg(long, value_name = "LIST", help = columns::HELP)]
    columns: Option<String>,
    /// Write each value as a string of its text as Excel shows it through
    /// its number format (`"00501"`, `"12.5%"`) instead of its value.
    #[arg(long)]
    formatted: bool,
}

type Output = Box<dyn Write + Send>;

/// `--delimiter`: one ASCII character that is not a quote or a line break.
fn parse_delimiter(text: &str) -> Result<u8, String> {
    let byte = match text {
        "tab" | "\\t" | "\t" => b'\t',
        _ if text.len() == 1 && text.is_ascii() => text.as_bytes()[0],
        _ => return Err(format!("`{text}` is not one ASCII character")),
    };
    if matches!(byte, b'"' | b'\r' | b'\n') {
        return Err("a quote or a line break cannot separate fields".into());
    }
    Ok(byte)
}

pub fn date_style(pattern: Option<&str>) -> Result<DateStyle, Failure> {
    pattern.map_or(Ok(DateStyle::Iso), |pattern| {
        DateStyle::pattern(pattern).map_err(|err| Failure::Usage(format!("--date-format: {err}")))
    })
}

/// An output file, written under a temporary name until [`finish`]ed.
fn create(path: &Path) -> Result<(Output, PartialFile), io::Error> {
    let (partial, file) = PartialFile::create(path)?;
    Ok((Box::new(BufWriter::with_capacity(1 << 16, file)), partial))
}

/// Flushes and closes a complete output file and gives it its name.
fn finish(mut out: Output, partial: PartialFile) -> io::Result<()> {
    out.flush()?;
    drop(out);
    partial.finish()
}

fn stdout() -> Output {
    Box::new(BufWriter::with_capacity(1 << 16, io::stdout()))
}

/// The default sheet: the first worksheet.
fn first_worksheet<R>(workbook: &Workbook<R>) -> Result<usize, Failure> {
    worksheet_positions(workbook)
        .first()
        .map(|(position, _)| *position)
        .ok_or_else(|| Failure::Usage("the workbook has no worksheet".into()))
}

/// The sheets a command reads from one workbook: `--all`, the chosen one,
/// or the first worksheet.
fn chosen_sheets<R>(
    workbook: &Workbook<R>,
    choice: &SheetChoice,
    all: bool,
) -> Result<Vec<usize>, Failure> {
    if all {
        return Ok(worksheet_positions(workbook)
            .into_iter()
            .map(|(position, _)| position)
            .collect());
    }
    match choice.find(workbook)? {
        Some(position) => Ok(vec![position]),
        None => Ok(vec![first_worksheet(workbook)?]),
    }
}

/// A file name stem for a sheet (or a workbook): its name with characters
/// file systems refuse replaced by `_`, made unique among `taken` (compared
/// after Unicode case folding) with a `-N` suffix.
fn file_name(name: &str, position: usize, taken: &mut HashSet<String>) -> String {
    let mut stem: String = name
        .chars()
        .map(|ch| {
            if ch.is_control() || "/\\:*?\"<>|".contains(ch) {
                '_'
            } else {
                ch
            }
        })
        .collect();
    if stem.trim().is_empty() || stem.starts_with('.') {
        stem = format!("sheet{position}");
    }
    let mut candidate = stem.clone();
    let mut suffix = position;
    while taken.contains(&candidate.to_lowercase()) {
        candidate = format!("{stem}-{suffix}");
        suffix += 1;
    }
    taken.insert(candidate.to_lowercase());
    candidate
}

/// How records are written.
#[derive(Clone, Copy)]
enum Delimited {
    /// RFC 4180: fields quoted where needed, with this delimiter.
    Csv(u8),
    /// Unquoted, special characters escaped with a backslash.
    Tsv,
}

/// Records out, field by field.
struct RecordWriter {
    out: Output,
    format: Delimited,
    /// Fields written into the current record, and whether the last was empty.
    fields: usize,
    last_empty: bool,
}

impl RecordWriter {
    fn field(&mut self, text: &str) -> io::Result<()> {
        let out = &mut self.out;
        match self.format {
            Delimited::Csv(delimiter) => {
                if self.fields > 0 {
                    out.write_all(&[delimiter])?;
                }
                let bytes = text.as_bytes();
                if bytes
                    .iter()
                    .any(|&b| b == delimiter || b == b'"' || b == b'\n' || b == b'\r')
                {
                    out.write_all(b"\"")?;
                    let mut rest = bytes;
                    while let Some(quote) = memchr_quote(rest) {
                        out.write_all(&rest[..=quote])?;
                        out.write_all(b"\"")?;
                        rest = &rest[quote + 1..];
                    }
                    out.write_all(rest)?;
                    out.write_all(b"\"")?;
                } else {
                    out.write_all(bytes)?;
                }
            }
            Delimited::Tsv => {
                if self.fields > 0 {
                    out.write_all(b"\t")?;
                }
                let bytes = text.as_bytes();
                let mut copied = 0;
                for (at, &byte) in bytes.iter().enumerate() {
                    let escape: &[u8] = match byte {
                        b'\t' => b"\\t",
                        b'\n' => b"\\n",
                        b'\r' => b"\\r",
                        b'\\' => b"\\\\",
                        _ => continue,
                    };
                    out.write_all(&bytes[copied..at])?;
                    out.write_all(escape)?;
                    copied = at + 1;
                }
                out.write_all(&bytes[copied..])?;
            }
        }
        self.fields += 1;
        self.last_empty = text.is_empty();
        Ok(())
    }

    /// Ends the record. A CSV record of no field or one empty field is
    /// written `""`, so that it reads back as a record and not as a blank
    /// line (which CSV readers skip).
    fn end(&mut self) -> io::Result<()> {
        let blank = self.fields == 0 || (self.fields == 1 && self.last_empty);
        if blank && matches!(self.format, Delimited::Csv(_)) {
            self.out.write_all(b"\"\"")?;
        }
        self.fields = 0;
        self.out.write_all(b"\n")
    }
}

fn memchr_quote(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'"')
}

/// What is known of a sheet before its rows are read.
struct SheetPlan {
    /// Fields per record to start with: from the sheet's dimension.
    width: usize,
    /// The output columns (`--columns`), in order.
    order: Option<Vec<u32>>,
    /// With `--formatted`: the styles' number formats to write cells through.
    formats: Option<NumberFormats>,
    /// With `--file-column`: the column's name and the workbook's file.
    file_column: Option<(String, String)>,
    /// The sheet's name, for messages.
    sheet: String,
}

/// Empty fields a sheet's records may be padded with, to keep them as
/// wide as the sheet, before [`PAD_PER_CELL`] per cell written counts:
/// a sheet's rectangular CSV is bounded by what the sheet holds, not by
/// its coordinates (one cell at XFD1048576 would otherwise pad a million
/// empty records to 16,384 fields: 17 GB of commas).
const PAD_FREE: u64 = 64 << 20;

/// Empty fields of padding each cell written allows, past [`PAD_FREE`]:
/// a sheet of 256 columns holding one cell a row squares.
const PAD_PER_CELL: u64 = 256;

/// A sheet whose rectangular CSV would be mostly padding: a usage error
/// naming `--ragged`.
#[derive(Debug)]
struct TooSparse(String);

impl std::fmt::Display for TooSparse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TooSparse {}

/// One sheet being written: the rows in Excel's grid, with empty records
/// for rows that have no cells and empty fields for missing cells, every
/// record `width` fields wide unless `--ragged`.
struct SheetCsv {
    writer: RecordWriter,
    /// The next row to write a record for: empty records fill the gap
    /// up to a row with values.
    next_row: u32,
    /// Which rows are left out, the header, the data, the limit.
    roles: Roles,
    /// Whether the row limit was reached.
    done: bool,
    ragged: bool,
    width: usize,
    order: Option<Vec<u32>>,
    slots: CellSlots,
    field: String,
    /// With `--formatted`: the styles' number formats to write cells through.
    formats: Option<NumberFormats>,
    /// With `--file-column`: the column's name and the workbook's file,
    /// the first field of every record.
    file_column: Option<(String, String)>,
    /// The header row's text by column, once read.
    header: Option<Vec<(u32, String)>>,
    /// A header row written already (a workbook before this one's, with
    /// `--file-column`): this one's is compared with it, not written.
    written_header: Option<Vec<(u32, String)>>,
    /// Empty fields written only to make records as wide as the sheet
    /// (the rest of a short record, empty records), and the cells
    /// written: see [`PAD_FREE`].
    padding: u64,
    cells: u64,
    sheet: String,
}

impl SheetCsv {
    fn new(out: Output, args: &CsvArgs, rows: &RowArgs, plan: SheetPlan) -> SheetCsv {
        let format = match (args.tsv, args.delimiter) {
            (true, _) => Delimited::Tsv,
            (false, delimiter) => Delimited::Csv(delimiter.unwrap_or(b',')),
        };
        let slots = plan
            .order
            .as_deref()
            .map_or_else(CellSlots::default, CellSlots::for_order);
        SheetCsv {
            writer: RecordWriter {
                out,
                format,
                fields: 0,
                last_empty: false,
            },
            // Rows stay aligned with Excel's: empty rows above the first
            // with a value are empty records, unless the options say
            // where the sheet starts.
            next_row: rows.first_row(),
            roles: rows.roles(),
            done: false,
            ragged: args.ragged,
            width: plan.order.as_ref().map_or(plan.width, Vec::len),
            order: plan.order,
            slots,
            field: String::new(),
            formats: plan.formats,
            file_column: plan.file_column,
            header: None,
            written_header: None,
            padding: 0,
            cells: 0,
            sheet: plan.sheet,
        }
    }

    fn full(&self) -> bool {
        self.done
    }

    /// A table's column names (by sheet column) as the header record, in
    /// the output columns' order.
    fn given_header(&mut self, names: &[(u32, String)]) -> io::Result<()> {
        self.header = Some(names.to_vec());
        if self.written_header.is_some() {
            return Ok(());
        }
        if let Some((name, _)) = &self.file_column {
            self.writer.field(name)?;
        }
        for column in self.order.as_deref().unwrap_or(&[]) {
            let name = names.iter().find(|(c, _)| c == column);
            self.writer.field(name.map_or("", |(_, name)| name))?;
        }
        self.writer.end()
    }

    /// Writes the row (and empty records for any rows skipped before it);
    /// returns false once the row limit is reached.
    fn add(&mut self, row: &Row<'_>, dates: &DateStyle) -> io::Result<bool> {
        let header = match self.roles.role(row) {
            Role::Above => return Ok(true),
            Role::Past => {
                self.done = true;
                return Ok(false);
            }
            Role::Header => true,
            Role::Data => false,
        };
        if header {
            let mut texts = Vec::with_capacity(row.cells().len());
            for cell in row.cells() {
                let mut text = String::new();
                format::cell_text(&mut text, cell, dates, self.formats.as_ref());
                texts.push((cell.column(), text));
            }
            self.header = Some(texts);
            if self.written_header.is_some() {
                // Compared after the read; not written twice.
                self.next_row = row.index().saturating_add(1);
                return Ok(true);
            }
        }
        if !row.holds_values() {
            // A row written only for its height or style: it becomes an
            // empty record if a row with values follows, and nothing if not.
            // (A row whose values are all in columns `--columns` leaves out
            // is a record, of empty fields.)
            return Ok(!self.full());
        }
        // The width is known from the widest row so far (skipped ones
        // too), this one included, so that the empty records before it are
        // as wide as it is.
        if self.order.is_none() {
            let last = row.cells().iter().map(|cell| cell.column() as usize + 1);
            self.width = self.width.max(last.max().unwrap_or(0));
        }
        self.pad(row)?;
        while self.next_row < row.index() {
            self.record(None, false, dates)?;
            self.next_row += 1;
        }
        self.record(Some(row), header, dates)?;
        self.next_row = row.index().saturating_add(1);
        Ok(true)
    }

    /// Counts the padding `row` and the empty records before it add (the
    /// records as wide as the sheet, unless `--ragged` or `--columns`),
    /// and refuses it past what the cells written allow ([`PAD_FREE`]),
    /// before any of it is written.
    fn pad(&mut self, row: &Row<'_>) -> io::Result<()> {
        self.cells += row.cells().len() as u64;
        if self.ragged || self.order.is_some() {
            return Ok(());
        }
        let width = self.width as u64;
        let own = row
            .cells()
            .iter()
            .map(|cell| u64::from(cell.column()) + 1)
            .max()
            .unwrap_or(0);
        let gap = u64::from(row.index().saturating_sub(self.next_row));
        let padding = gap
            .saturating_mul(width)
            .saturating_add(width.saturating_sub(own));
        self.padding = self.padding.saturating_add(padding);
        let allowed = PAD_FREE.saturating_add(self.cells.saturating_mul(PAD_PER_CELL));
        if self.padding > allowed {
            return Err(io::Error::other(TooSparse(format!(
                "sheet '{}': its rows as wide as the sheet ({} fields, to row {}) would be more \
                 than {} empty fields for the {} cells written: write it with --ragged (each \
                 record up to its last cell), or choose its columns with --columns or --range",
                escape(&self.sheet),
                self.width,
                u64::from(row.index()) + 1,
                allowed,
                self.cells
            ))));
        }
        Ok(())
    }

    /// [`add`](Self::add), an error kept in `failure`: None then (the read
    /// should stop), else whether more rows are wanted.
    fn add_or_keep(
        &mut self,
        row: &Row<'_>,
        dates: &DateStyle,
        failure: &Mutex<Option<io::Error>>,
    ) -> Option<bool> {
        match self.add(row, dates) {
            Ok(more) => Some(more),
            Err(err) => {
                keep_failure(failure, err);
                None
            }
        }
    }

    fn record(&mut self, row: Option<&Row<'_>>, header: bool, dates: &DateStyle) -> io::Result<()> {
        let (writer, field) = (&mut self.writer, &mut self.field);
        if let Some((name, file)) = &self.file_column {
            writer.field(if header { name } else { file })?;
        }
        let formats = self.formats.as_ref();
        match (&self.order, row) {
            (Some(order), Some(row)) => {
                self.slots.each(row, order, |_, cell| {
                    field.clear();
                    if let Some(cell) = cell {
                        format::cell_text(field, cell, dates, formats);
                    }
                    writer.field(field)
                })?;
            }
            _ => {
                let mut column = 0;
                for cell in row.map_or(&[][..], |row| row.cells()) {
                    // Cells are in file order; one out of order starts a new field after the last.
                    while column < cell.column() {
                        writer.field("")?;
                        column += 1;
                    }
                    field.clear();
                    format::cell_text(field, cell, dates, formats);
                    writer.field(field)?;
                    column += 1;
                }
                if !self.ragged {
                    while (column as usize) < self.width {
                        writer.field("")?;
                        column += 1;
                    }
                }
            }
        }
        self.writer.end()
    }

    fn finish(mut self) -> io::Result<Output> {
        self.writer.out.flush()?;
        Ok(self.writer.out)
    }
}

/// `--range` or `--table` for one workbook, as the typed commands read
/// them: the sheet read (the range's or the table's, unless `--sheet`
/// chose one, which must be it), the rows options made to start at the
/// first row (a range's first row is its header unless `--header-row` or
/// `--no-header` says otherwise; a table's header is its column names),
/// its columns and its last row, past which the read stops.
struct Window {
    position: usize,
    rows: RowArgs,
    first_column: u32,
    last_column: Option<u32>,
    last_row: Option<u32>,
    /// A table's column names, by sheet column: its header.
    names: Option<Vec<(u32, String)>>,
    /// What the window is, for messages: `range B3:F9`, `table Sales`.
    what: String,
}

impl Window {
    fn resolve(
        workbook: &mut Workbook,
        choice: &SheetChoice,
        args: &WindowArgs,
        rows: &RowArgs,
    ) -> Result<Option<Window>, Failure> {
        let chosen = choice.find(workbook)?;
        let mut rows = rows.clone();
        if let Some(name) = &args.table {
            let tables = workbook.tables()?;
            let table = sheetstream::Table::find(&tables, name)?;
            if let Some(chosen) = chosen.filter(|&chosen| chosen != table.sheet) {
                return Err(Failure::Usage(format!(
                    "no table `{}` on sheet `{}` (the table is on sheet `{}`)",
                    escape(name),
                    escape(workbook.sheets()[chosen].name()),
                    escape(&table.sheet_name)
                )));
            }
            let data = table.data_window(args.include_totals_row);
            rows.skip_rows = rows.skip_rows.max(data.first_row);
            rows.header_row = None;
            rows.no_header = true;
            return Ok(Some(Window {
                position: table.sheet,
                rows,
                first_column: data.first_column,
                last_column: data.last_column,
                last_row: data.last_row,
                names: Some(table.header()),
                what: format!("table {}", table.name),
            }));
        }
        let Some(range) = args.range()? else {
            return Ok(None);
        };
        let position = match (&range.sheet, chosen) {
            (Some(sheet), Some(chosen)) if workbook.sheets()[chosen].name() != sheet => {
                return Err(Failure::Usage(format!(
                    "--range names sheet `{}`, but the sheet read is `{}`",
                    escape(sheet),
                    escape(workbook.sheets()[chosen].name())
                )));
            }
            (_, Some(chosen)) => chosen,
            (Some(sheet), None) => find_sheet(workbook, sheet)?,
            (None, None) => first_worksheet(workbook)?,
        };
        rows.skip_rows = rows.skip_rows.max(range.first_row);
        if !rows.no_header && rows.header_row.is_none() {
            rows.header_row = Some(HeaderRowArg::Row(rows.skip_rows + 1));
        }
        Ok(Some(Window {
            position,
            rows,
            first_column: range.first_column,
            last_column: range.last_column,
            last_row: range.last_row,
            names: None,
            what: format!("range {range}"),
        }))
    }

    /// The output columns: `--columns` (resolved against the table's names
    /// or the range's header row), which must lie inside; else every
    /// column of the window. A range open to the right (`C5:`) ends at the
    /// sheet's declared last column.
    fn order(
        &self,
        workbook: &mut Workbook,
        spec: Option<&ColumnSpec>,
        dates: &DateStyle,
    ) -> Result<Option<Vec<u32>>, Failure> {
        let inside = |column: u32| {
            column >= self.first_column && self.last_column.is_none_or(|l| column <= l)
        };
        if let Some(spec) = spec {
            let order = match &self.names {
                Some(names) => {
                    let header: Vec<(u32, &str)> =
                        names.iter().map(|(c, t)| (*c, t.as_str())).collect();
                    spec.resolve(&header).map_err(|err| {
                        Failure::Usage(format!("--columns: {}", escape(&err.to_string())))
                    })?
                }
                None => columns::resolve(spec, workbook, self.position, &self.rows, dates)?,
            };
            if let Some(&outside) = order.iter().find(|&&column| !inside(column)) {
                return Err(Failure::Usage(format!(
                    "--columns: column {} is outside the {} read",
                    column_letters(outside),
                    self.what
                )));
            }
            return Ok(Some(order));
        }
        let last = match self.last_column {
            Some(last) => last,
            None if self.first_column == 0 => return Ok(None),
            None => match workbook.sheet_dimension(self.position)? {
                Some(range) if range.last.column < sheetstream::MAX_COLUMN => range.last.column,
                _ => {
                    return Err(Failure::Usage(format!(
                        "the {} has no last column and the sheet declares none: give one \
                         (as in C5:H)",
                        self.what
                    )));
                }
            },
        };
        Ok(Some((self.first_column..=last).collect()))
    }
}

/// The plan of one sheet: its declared width (unless the dimension spans
/// to the last column XFD, which says nothing) and its output columns.
fn plan(
    input: &Input,
    workbook: &mut Workbook,
    position: usize,
    args: &CsvArgs,
    spec: Option<&ColumnSpec>,
    dates: &DateStyle,
    window: Option<&Window>,
) -> Result<SheetPlan, Failure> {
    // The dimension only sizes the records: one that cannot be read (a
    // record cut short) is no dimension, and fails no export that reads
    // the cells (the rows decide the width then).
    let dimension = if args.ragged {
        None
    } else {
        workbook.sheet_dimension(position).ok().flatten()
    };
    let width = match dimension {
        Some(range) if range.last.column < sheetstream::MAX_COLUMN => {
            range.last.column as usize + 1
        }
        _ => 0,
    };
    let order = match (window, spec) {
        (Some(window), spec) => window.order(workbook, spec, dates)?,
        (None, Some(spec)) => Some(columns::resolve(
            spec, workbook, position, &args.rows, dates,
        )?),
        (None, None) => None,
    };
    let formats = args.formatted.then(|| workbook.number_formats().clone());
    Ok(SheetPlan {
        width,
        order,
        formats,
        file_column: (args.file_column.clone()).map(|name| (name, input.display())),
        sheet: workbook.sheets()[position].name().to_owned(),
    })
}

pub fn csv(args: &CsvArgs) -> Result<(), Failure> {
    let dates = date_style(args.date_format.as_deref())?;
    let spec = columns::parse(args.columns.as_deref())?;
    args.rows.check_columns(spec.as_ref())?;
    let inputs = inputs(&args.common)?;
    if args.all {
        return csv_all(args, &inputs, spec.as_ref(), &dates);
    }
    // Created once the first workbook is open and its sheet found, and
    // named only once every workbook is written: a workbook that cannot be
    // read, or a sheet damaged midway, leaves no file behind.
    let mut out = None;
    let mut partial = None;
    // With --file-column: the header row written, the first workbook's.
    let mut first_header = None;
    for input in &inputs {
        let (mut workbook, progress) = input.open(args.common.quiet)?;
        let window = Window::resolve(&mut workbook, &args.sheet, &args.window, &args.rows)
            .map_err(|failure| in_file(input, failure))?;
        let position = match &window {
            Some(window) => window.position,
            None => chosen_sheets(&workbook, &args.sheet, false)?[0],
        };
        let rows = window.as_ref().map_or(&args.rows, |window| &window.rows);
        let last_row = window.as_ref().and_then(|window| window.last_row);
        let plan = plan(
            input,
            &mut workbook,
            position,
            args,
            spec.as_ref(),
            &dates,
            window.as_ref(),
        )
        .map_err(|failure| in_file(input, failure))?;
        let out_now = match out.take() {
            Some(out) => out,
            None => {
                let (out, file) = output(args.output.as_deref())?;
                partial = file;
                out
            }
        };
        let selected = plan.order.as_deref().map(columns::set);
        let mut sheet = SheetCsv::new(out_now, args, rows, plan);
        sheet.written_header = first_header.clone();
        if let Some(names) = window.as_ref().and_then(|window| window.names.as_deref()) {
            sheet.given_header(names)?;
        }
        let sheet = Mutex::new(sheet);
        let failure: Mutex<Option<io::Error>> = Mutex::new(None);
        progress
            .run(|| {
                // The range's or table's last row stops the read.
                read_sheets(&workbook, args, [position], selected, last_row, || {
                    let (sheet, failure, dates) = (&sheet, &failure, &dates);
                    move |_: &SheetInfo, row: Row<'_>| {
                        let mut sheet = sheet.lock().unwrap_or_else(|poison| poison.into_inner());
                        // The row limit stops the read.
                        !sheet.full() && sheet.add_or_keep(&row, dates, failure).unwrap_or(false)
                    }
                })
            })
            .map_err(|err| input.locate(err))?;
        take_failure(failure)?;
        let sheet = sheet
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner());
        if args.file_column.is_some() {
            match &first_header {
                None => first_header = Some(sheet.header.clone().unwrap_or_default()),
                Some(first) if *first != sheet.header.clone().unwrap_or_default() => {
                    return Err(Failure::Usage(format!(
                        "{}: the header row differs from the first file's, and --file-column \
                         writes one header row for all: write the files apart",
                        input.display()
                    )));
                }
                Some(_) => {}
            }
        }
        out = Some(sheet.finish()?);
    }
    if let (Some(out), Some(partial)) = (out, partial) {
        finish(out, partial)?;
    }
    Ok(())
}

/// The output file (under a temporary name until finished), or standard
/// output.
fn output(path: Option<&Path>) -> io::Result<(Output, Option<PartialFile>)> {
    match path {
        Some(path) => {
            let (out, partial) = create(path)?;
            Ok((out, Some(partial)))
        }
        None => Ok((stdout(), None)),
    }
}

/// Names the input file in a read failure.
fn in_file(input: &Input, failure: Failure) -> Failure {
    match failure {
        Failure::Read(err) => input.locate(err),
        other => other,
    }
}

/// A sheet of `--all` not started yet: where it goes and its plan.
struct Pending {
    path: PathBuf,
    plan: SheetPlan,
}

/// `csv --all`: each workbook's worksheets in parallel, each output file
/// opened when its sheet's first row arrives and closed when the worker
/// moves on, so that a workbook of thousands of sheets holds one file open
/// per thread. Every file is named only once every workbook's every sheet
/// is written ([`Outputs`]): a sheet that fails, in any workbook and on any
/// thread count, leaves no file and no folder the command made, and the
/// listing is printed once the files have their names.
fn csv_all(
    args: &CsvArgs,
    inputs: &[Input],
    spec: Option<&ColumnSpec>,
    dates: &DateStyle,
) -> Result<(), Failure> {
    let folder = args.output.as_deref().unwrap_or(Path::new("."));
    let extension = if args.tsv { "tsv" } else { "csv" };
    let several = inputs.len() > 1;
    let mut folders_taken = HashSet::new();
    let mut outputs = Outputs::new();
    let mut listing = vec![format!(
        "{}sheet\tpath",
        if several { "file\t" } else { "" }
    )];
    for (index, input) in inputs.iter().enumerate() {
        let (mut workbook, progress) = input.open(args.common.quiet)?;
        // The folder once the first workbook opened.
        outputs.create_dir_all(folder)?;
        let sheet_folder = if several {
            let stem = input
                .path
                .file_stem()
                .map_or_else(|| "stdin".to_owned(), |s| s.to_string_lossy().into_owned());
            let sub = folder.join(file_name(&stem, index, &mut folders_taken));
            outputs.create_dir_all(&sub)?;
            sub
        } else {
            folder.to_path_buf()
        };
        let mut taken = HashSet::new();
        let mut pending = HashMap::new();
        // Every worksheet in workbook order: position, name, file.
        let mut order = Vec::new();
        let mut selected = spec.is_some().then(sheetstream::ColumnSet::new);
        for (position, name) in worksheet_positions(&workbook) {
            let stem = file_name(&name, position, &mut taken);
            let path = sheet_folder.join(format!("{stem}.{extension}"));
            let plan = plan(input, &mut workbook, position, args, spec, dates, None)
                .map_err(|failure| in_file(input, failure))?;
            if let (Some(selected), Some(order)) = (&mut selected, &plan.order) {
                selected.extend(order.iter().copied());
            }
            order.push((position, name, path.clone()));
            pending.insert(position, Pending { path, plan });
        }
        let positions: Vec<usize> = pending.keys().copied().collect();
        let pool = Mutex::new(pending);
        let failure: Mutex<Option<io::Error>> = Mutex::new(None);
        let closed = Mutex::new(Vec::new());
        progress
            .run(|| {
                read_sheets(&workbook, args, positions, selected, None, || {
                    let mut held = Held {
                        current: None,
                        failure: &failure,
                        closed: &closed,
                    };
                    let (pool, failure) = (&pool, &failure);
                    move |sheet: &SheetInfo, row: Row<'_>| {
                        if held.current.as_ref().map(|(p, ..)| *p) != Some(sheet.position()) {
                            // A new sheet on this thread: the previous one has ended.
                            held.close();
                            let taken = pool
                                .lock()
                                .unwrap_or_else(|poison| poison.into_inner())
                                .remove(&sheet.position());
                            let Some(Pending { path, plan }) = taken else {
                                return true;
                            };
                            match create(&path) {
                                Ok((out, partial)) => {
                                    held.current = Some((
                                        sheet.position(),
                                        SheetCsv::new(out, args, &args.rows, plan),
                                        partial,
                                    ));
                                }
                                Err(err) => {
                                    held.fail(err);
                                    return false;
                                }
                            }
                        }
                        let Some((_, writer, _)) = &mut held.current else {
                            return false;
                        };
                        // With --all, one sheet's --max-rows does not stop
                        // the others; an error does.
                        writer.full() || writer.add_or_keep(&row, dates, failure).is_some()
                    }
                })
            })
            .map_err(|err| input.locate(err))?;
        take_failure(failure)?;
        // The read ended well: the sheets closed are complete, and sheets
        // without rows are empty files.
        let mut written = HashSet::new();
        for (position, partial) in closed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            outputs.add(partial);
            written.insert(position);
        }
        for (position, Pending { path, .. }) in pool.into_inner().unwrap_or_else(|p| p.into_inner())
        {
            let (mut out, partial) = create(&path)?;
            out.flush()?;
            drop(out);
            outputs.add(partial);
            written.insert(position);
        }
        let file = crate::file_column(input, several);
        for (_, name, path) in order.iter().filter(|(p, ..)| written.contains(p)) {
            listing.push(format!(
                "{file}{}\t{}",
                escape(name).replace('\t', "\\t"),
                escape(&path.to_string_lossy())
            ));
        }
    }
    outputs.commit()?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in listing {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}

/// Reads `positions` of the workbook in parallel with `--threads`, only the
/// `selected` columns when given, each worker's rows through the closure
/// `worker` makes (as [`sheetstream::Parallel::for_each_row`]).
fn read_sheets<R, W, F>(
    workbook: &Workbook<R>,
    args: &CsvArgs,
    positions: impl IntoIterator<Item = usize>,
    selected: Option<sheetstream::ColumnSet>,
    last_row: Option<u32>,
    worker: W,
) -> sheetstream::Result<()>
where
    R: io::Read + io::Seek + Clone + Send,
    W: Fn() -> F + Sync,
    F: FnMut(&SheetInfo, Row<'_>) -> bool,
{
    let mut parallel = workbook
        .parallel()
        .threads(args.common.threads)
        .sheets(positions)?
        .stop_after_row(last_row);
    if let Some(selected) = selected {
        parallel = parallel.select_columns(selected);
    }
    parallel.for_each_row(worker)
}

/// Keeps the first write error of a parallel read.
fn keep_failure(failure: &Mutex<Option<io::Error>>, err: io::Error) {
    failure
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .get_or_insert(err);
}

/// The write error a parallel read kept, if any (a sheet too sparse to
/// square is a usage error).
fn take_failure(failure: Mutex<Option<io::Error>>) -> Result<(), Failure> {
    match failure
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
    {
        Some(err) if err.get_ref().is_some_and(|inner| inner.is::<TooSparse>()) => {
            Err(Failure::Usage(err.to_string()))
        }
        Some(err) => Err(err.into()),
        None => Ok(()),
    }
}

/// The sheet a worker is writing, under a temporary name. When the next
/// sheet starts on the worker, or the worker ends, the sheet is closed and
/// kept unnamed: complete if the read as a whole ends well, cut short if
/// not (by its own damage or another sheet's), which only the caller
/// knows.
struct Held<'a> {
    current: Option<(usize, SheetCsv, PartialFile)>,
    failure: &'a Mutex<Option<io::Error>>,
    /// The sheets closed, not yet named.
    closed: &'a Mutex<Vec<(usize, PartialFile)>>,
}

impl Held<'_> {
    /// The sheet has ended (or its worker has): flushed and closed.
    fn close(&mut self) {
        if let Some((position, sheet, partial)) = self.current.take() {
            match sheet.finish() {
                Ok(out) => {
                    drop(out);
                    self.closed
                        .lock()
                        .unwrap_or_else(|poison| poison.into_inner())
                        .push((position, partial));
                }
                Err(err) => self.fail(err),
            }
        }
    }

    fn fail(&self, err: io::Error) {
        keep_failure(self.failure, err);
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.close();
    }
}

/// Column letters, for keys of columns without a header.
fn column_letters(column: u32) -> String {
    let reference = sheetstream::CellRef { row: 0, column }.to_string();
    reference
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .to_owned()
}

pub fn jsonl(args: &JsonlArgs) -> Result<(), Failure> {
    let dates = date_style(args.date_format.as_deref())?;
    let spec = columns::parse(args.columns.as_deref())?;
    args.rows.check_columns(spec.as_ref())?;
    let inputs = inputs(&args.common)?;
    let several = inputs.len() > 1;
    // As csv's: named once every workbook is written.
    let mut out = None;
    let mut partial = None;
    for input in &inputs {
        let (mut workbook, progress) = input.open(args.common.quiet)?;
        let window = Window::resolve(&mut workbook, &args.sheet, &args.window, &args.rows)
            .map_err(|failure| in_file(input, failure))?;
        let positions = match &window {
            Some(window) => vec![window.position],
            None => chosen_sheets(&workbook, &args.sheet, args.all)?,
        };
        let rows = window.as_ref().map_or(&args.rows, |window| &window.rows);
        let last_row = window.as_ref().and_then(|window| window.last_row);
        for position in positions {
            let order = match (&window, &spec) {
                (Some(window), spec) => window
                    .order(&mut workbook, spec.as_ref(), &dates)
                    .map_err(|failure| in_file(input, failure))?,
                (None, Some(spec)) => Some(
                    columns::resolve(spec, &mut workbook, position, &args.rows, &dates)
                        .map_err(|failure| in_file(input, failure))?,
                ),
                (None, None) => None,
            };
            // With several sheets or files, each object says where it is from.
            let mut keys = Keys::default();
            let mut prefix = Vec::new();
            if args.all || several {
                let name = workbook.sheets()[position].name();
                if several {
                    keys.used.insert("_file".into());
                    prefix.extend_from_slice(b"\"_file\":");
                    format::json_string(&mut prefix, &input.path.to_string_lossy());
                    prefix.push(b',');
                }
                keys.used.insert("_sheet".into());
                prefix.extend_from_slice(b"\"_sheet\":");
                format::json_string(&mut prefix, name);
            }
            let reserved = keys.used.clone();
            if let Some(names) = window.as_ref().and_then(|window| window.names.as_deref()) {
                keys = Keys::from_names(names, reserved.clone());
            }
            let sheet = JsonlSheet {
                out: match out.take() {
                    Some(out) => out,
                    None => {
                        let (out, file) = output(args.output.as_deref())?;
                        partial = file;
                        out
                    }
                },
                keys,
                reserved,
                prefix,
                slots: order
                    .as_deref()
                    .map_or_else(CellSlots::default, CellSlots::for_order),
                order,
                formats: args.formatted.then(|| workbook.number_formats().clone()),
                roles: rows.roles(),
                failure: None,
            };
            let selected = sheet.order.as_deref().map(columns::set);
            let state = Mutex::new(sheet);
            progress
                .run(|| {
                    // The range's or table's last row stops the read.
                    let mut parallel = workbook
                        .parallel()
                        .threads(args.common.threads)
                        .sheets([position])?
                        .stop_after_row(last_row);
                    if let Some(selected) = selected {
                        parallel = parallel.select_columns(selected);
                    }
                    parallel.for_each_row(|| {
                        let (state, dates) = (&state, &dates);
                        let mut line = Vec::with_capacity(1024);
                        let mut scratch = String::new();
                        move |_: &SheetInfo, row: Row<'_>| {
                            let mut sheet =
                                state.lock().unwrap_or_else(|poison| poison.into_inner());
                            sheet.add(&row, dates, &mut line, &mut scratch)
                        }
                    })
                })
                .map_err(|err| input.locate(err))?;
            let sheet = state
                .into_inner()
                .unwrap_or_else(|poison| poison.into_inner());
            if let Some(err) = sheet.failure {
                return Err(err.into());
            }
            out = Some(sheet.out);
        }
    }
    match (out, partial) {
        (Some(out), Some(partial)) => finish(out, partial)?,
        (Some(mut out), None) => out.flush()?,
        _ => {}
    }
    Ok(())
}

/// One sheet being written as JSON lines.
struct JsonlSheet {
    out: Output,
    keys: Keys,
    /// Keys taken before the header's (`_file`, `_sheet`).
    reserved: HashSet<String>,
    /// Written at the start of every object (the `_file` and `_sheet` members).
    prefix: Vec<u8>,
    order: Option<Vec<u32>>,
    slots: CellSlots,
    /// With `--formatted`: the styles' number formats to write cells through.
    formats: Option<NumberFormats>,
    /// Which rows are left out, the header, the data, the limit.
    roles: Roles,
    failure: Option<io::Error>,
}

impl JsonlSheet {
    /// Writes a row; false to stop.
    fn add(
        &mut self,
        row: &Row<'_>,
        dates: &DateStyle,
        line: &mut Vec<u8>,
        scratch: &mut String,
    ) -> bool {
        match self.roles.role(row) {
            Role::Above => return true,
            Role::Past => return false,
            Role::Header => {
                self.keys = Keys::from_header(row, dates, self.reserved.clone());
                return true;
            }
            Role::Data => {}
        }
        if !row.holds_values() {
            // Only formatting: no object. (A row whose values are all in
            // columns `--columns` leaves out is an object of nulls.)
            return true;
        }
        line.clear();
        line.push(b'{');
        line.extend_from_slice(&self.prefix);
        match &self.order {
            Some(order) => {
                let keys = &mut self.keys;
                let formats = self.formats.as_ref();
                let mut first = self.prefix.is_empty();
                let _ = self.slots.each(row, order, |column, cell| {
                    if !std::mem::take(&mut first) {
                        line.push(b',');
                    }
                    line.extend_from_slice(keys.key(column));
                    line.push(b':');
                    match cell {
                        Some(cell) => format::cell_json(line, cell, dates, formats, scratch),
                        None => line.extend_from_slice(b"null"),
                    }
                    Ok::<(), ()>(())
                });
            }
            None => members(
                line,
                row,
                &mut self.keys,
                dates,
                self.formats.as_ref(),
                scratch,
                self.prefix.is_empty(),
            ),
        }
        line.extend_from_slice(b"}\n");
        if let Err(err) = self.out.write_all(line) {
            self.failure = Some(err);
            return false;
        }
        true
    }
}

/// The keys of the JSON objects: one per header column, then one per
/// column past the header as it is first met; all distinct.
#[derive(Default)]
struct Keys {
    /// JSON-quoted, by column.
    header: Vec<Vec<u8>>,
    /// Every name given out so far.
    used: HashSet<String>,
    /// JSON-quoted keys of columns past the header.
    extra: HashMap<u32, Vec<u8>>,
}

impl Keys {
    /// The keys of a header row: the header text, or the column letters
    /// where the header cell is empty.
    fn from_header(row: &Row<'_>, dates: &DateStyle, reserved: HashSet<String>) -> Keys {
        let width = row
            .cells()
            .iter()
            .map(|cell| cell.column() + 1)
            .max()
            .unwrap_or(0);
        let mut names: Vec<String> = (0..width).map(column_letters).collect();
        for cell in row.cells() {
            let mut text = String::new();
            format::text(&mut text, cell.value(), dates);
            if !text.is_empty() {
                names[cell.column() as usize] = text;
            }
        }
        let mut keys = Keys {
            used: reserved,
            ..Keys::default()
        };
        for name in names {
            let name = keys.unique(name);
            keys.header.push(quoted(&name));
        }
        keys
    }

    /// The keys of a table's column names (by sheet column).
    fn from_names(names: &[(u32, String)], reserved: HashSet<String>) -> Keys {
        let width = names
            .iter()
            .map(|(c, _)| *c as usize + 1)
            .max()
            .unwrap_or(0);
        let mut keys = Keys {
            used: reserved,
            header: vec![Vec::new(); width],
            ..Keys::default()
        };
        for (column, name) in names {
            let name = keys.unique(name.clone());
            keys.header[*column as usize] = quoted(&name);
        }
        for column in 0..width {
            if keys.header[column].is_empty() {
                keys.header[column] = quoted(&column_letters(column as u32));
            }
        }
        keys
    }

    /// `name`, or `name_2`, `name_3`, ... if it is taken.
    fn unique(&mut self, name: String) -> String {
        let mut candidate = name.clone();
        let mut count = 1;
        while self.used.contains(&candidate) {
            count += 1;
            candidate = format!("{name}_{count}");
        }
        self.used.insert(candidate.clone());
        candidate
    }

    /// The key of a column: the header's, or for one past the header its
    /// letters, made unique.
    fn key(&mut self, column: u32) -> &[u8] {
        if (column as usize) < self.header.len() {
            return &self.header[column as usize];
        }
        self.extra(column)
    }

    /// The key of a column past the header: its letters, made unique.
    fn extra(&mut self, column: u32) -> &[u8] {
        if !self.extra.contains_key(&column) {
            let name = self.unique(column_letters(column));
            self.extra.insert(column, quoted(&name));
        }
        &self.extra[&column]
    }
}

fn quoted(name: &str) -> Vec<u8> {
    let mut quoted = Vec::new();
    format::json_string(&mut quoted, name);
    quoted
}

/// One row's members of its JSON object: every header key (null where the
/// row has no cell), then cells past the header keyed by their column
/// letters.
fn members(
    line: &mut Vec<u8>,
    row: &Row<'_>,
    keys: &mut Keys,
    dates: &DateStyle,
    formats: Option<&NumberFormats>,
    scratch: &mut String,
    first: bool,
) {
    let cells = row.cells();
    let mut next = 0;
    let mut first = first;
    let mut separator = |line: &mut Vec<u8>| {
        if !std::mem::take(&mut first) {
            line.push(b',');
        }
    };
    for (column, key) in keys.header.iter().enumerate() {
        separator(line);
        line.extend_from_slice(key);
        line.push(b':');
        // Cells come in column order in practice; search only when they do not.
        let cell = if cells
            .get(next)
            .is_some_and(|cell| cell.column() as usize == column)
        {
            next += 1;
            cells.get(next - 1)
        } else {
            cells.iter().find(|cell| cell.column() as usize == column)
        };
        match cell {
            Some(cell) => format::cell_json(line, cell, dates, formats, scratch),
            None => line.extend_from_slice(b"null"),
        }
    }
    let width = keys.header.len();
    for cell in cells.iter().filter(|cell| cell.column() as usize >= width) {
        separator(line);
        line.extend_from_slice(keys.extra(cell.column()));
        line.push(b':');
        format::cell_json(line, cell, dates, formats, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_and_distinct() {
        let mut taken = HashSet::new();
        assert_eq!(file_name("Q1/Q2: sales", 0, &mut taken), "Q1_Q2_ sales");
        assert_eq!(file_name("q1/q2: SALES", 1, &mut taken), "q1_q2_ SALES-1");
        assert_eq!(file_name("..", 2, &mut taken), "sheet2");
        // Three names that sanitise alike, and one that looks like a suffixed one.
        assert_eq!(file_name("a-3", 9, &mut taken), "a-3");
        assert_eq!(file_name("a/", 3, &mut taken), "a_");
        assert_eq!(file_name("a:", 4, &mut taken), "a_-4");
        assert_eq!(file_name("A?", 5, &mut taken), "A_-5");
        assert_eq!(file_name("ÄB", 6, &mut taken), "ÄB");
        assert_eq!(file_name("äb", 7, &mut taken), "äb-7");
        assert_eq!(column_letters(0), "A");
        assert_eq!(column_letters(27), "AB");
    }
}
