//! `csv` and `jsonl`: sheets out as CSV/TSV files or JSON lines.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clap::Args;
use sheetstream::{Cell, NumberFormats, Row, SheetInfo, Workbook};

use crate::format::{self, DateStyle};
use crate::{Common, Failure, find_sheet, open, worksheet_positions};

#[derive(Args)]
pub struct CsvArgs {
    #[command(flatten)]
    common: Common,
    /// The sheet, by name or by position as `sheets` lists it (default: the
    /// first worksheet).
    #[arg(short, long, conflicts_with = "all")]
    sheet: Option<String>,
    /// Every worksheet, one file each (named after the sheet) in the folder
    /// given with -o, converted in parallel.
    #[arg(long, requires = "output")]
    all: bool,
    /// The output file (with --all, the folder); standard output without.
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Tab-separated values instead of comma-separated.
    #[arg(long)]
    tsv: bool,
    /// Write dates with this pattern (%Y %m %d %H %M %S %f) instead of ISO 8601.
    #[arg(long, value_name = "PATTERN")]
    date_format: Option<String>,
    /// Leave out this many rows at the top of each sheet (a header, say).
    #[arg(long, default_value_t = 0, value_name = "N")]
    skip_rows: u64,
    /// Write at most this many rows of each sheet.
    #[arg(long, value_name = "N")]
    max_rows: Option<u64>,
    /// Write each cell's text as Excel shows it through its number format
    /// (`00501`, `12.5%`, `$1,234.50`) instead of its value.
    #[arg(long)]
    formatted: bool,
}

#[derive(Args)]
pub struct JsonlArgs {
    #[command(flatten)]
    common: Common,
    /// The sheet, by name or by position as `sheets` lists it (default: the
    /// first worksheet).
    #[arg(short, long)]
    sheet: Option<String>,
    /// The output file; standard output without.
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// The row holding the keys, counted from 1; rows above it are left out.
    #[arg(
        long,
        default_value_t = 1,
        value_name = "ROW",
        conflicts_with = "no_header",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    header_row: u32,
    /// No header row: keys are the column letters.
    #[arg(long)]
    no_header: bool,
    /// Write dates with this pattern (%Y %m %d %H %M %S %f) instead of ISO 8601.
    #[arg(long, value_name = "PATTERN")]
    date_format: Option<String>,
    /// Write at most this many rows.
    #[arg(long, value_name = "N")]
    max_rows: Option<u64>,
    /// Write each value as a string of its text as Excel shows it through
    /// its number format (`"00501"`, `"12.5%"`) instead of its value.
    #[arg(long)]
    formatted: bool,
}

type Output = Box<dyn Write + Send>;

fn date_style(pattern: Option<&str>) -> Result<DateStyle, Failure> {
    pattern.map_or(Ok(DateStyle::Iso), |pattern| {
        DateStyle::pattern(pattern).map_err(Failure::Usage)
    })
}

fn create(path: &Path) -> Result<Output, Failure> {
    let file = File::create(path)
        .map_err(|err| io::Error::new(err.kind(), format!("{}: {err}", path.display())))?;
    Ok(Box::new(BufWriter::with_capacity(1 << 16, file)))
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

/// A file name for a sheet: its name with characters file systems refuse
/// replaced by `_`.
fn file_name(name: &str, position: usize, taken: &mut Vec<String>) -> String {
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
    if taken.iter().any(|other| other.eq_ignore_ascii_case(&stem)) {
        stem = format!("{stem}-{position}");
    }
    taken.push(stem.clone());
    stem
}

/// One sheet being written as CSV: the rows in Excel's grid, with empty
/// records for rows that have no cells and empty fields for missing cells.
struct SheetCsv {
    writer: csv::Writer<Output>,
    next_row: u32,
    written: u64,
    skip: u64,
    max: Option<u64>,
    field: String,
    /// With `--formatted`: the styles' number formats to write cells through.
    formats: Option<NumberFormats>,
}

impl SheetCsv {
    fn new(output: Output, args: &CsvArgs, formats: Option<&NumberFormats>) -> SheetCsv {
        let writer = csv::WriterBuilder::new()
            .delimiter(if args.tsv { b'\t' } else { b',' })
            .flexible(true)
            .from_writer(output);
        SheetCsv {
            writer,
            next_row: 0,
            written: 0,
            skip: args.skip_rows,
            max: args.max_rows,
            field: String::new(),
            formats: formats.cloned(),
        }
    }

    fn full(&self) -> bool {
        self.max.is_some_and(|max| self.written >= max)
    }

    /// Writes the row (and empty records for any rows skipped before it);
    /// returns false once the row limit is reached.
    fn add(&mut self, row: &Row<'_>, dates: &DateStyle) -> csv::Result<bool> {
        if row.cells().is_empty() {
            // A row written only for its height or style: it becomes an
            // empty record if a row with values follows, and nothing if not.
            return Ok(!self.full());
        }
        while self.next_row < row.index() && !self.full() {
            self.record(None, dates)?;
            self.next_row += 1;
        }
        if !self.full() {
            self.record(Some(row), dates)?;
        }
        self.next_row = row.index().saturating_add(1);
        Ok(!self.full())
    }

    fn record(&mut self, row: Option<&Row<'_>>, dates: &DateStyle) -> csv::Result<()> {
        if self.skip > 0 {
            self.skip -= 1;
            return Ok(());
        }
        let mut column = 0;
        for cell in row.map_or(&[][..], |row| row.cells()) {
            // Cells are in file order; one out of order starts a new field after the last.
            while column < cell.column() {
                self.writer.write_field("")?;
                column += 1;
            }
            self.field.clear();
            match &self.formats {
                Some(formats) => cell.formatted_into(formats, &mut self.field),
                None => format::text(&mut self.field, cell.value(), dates),
            }
            self.writer.write_field(&self.field)?;
            column += 1;
        }
        // Ends the record (the csv crate writes a record without fields as
        // `""`, so that it still reads back as a row).
        self.writer.write_record(std::iter::empty::<&[u8]>())?;
        self.written += 1;
        Ok(())
    }
}

pub fn csv(args: &CsvArgs) -> Result<(), Failure> {
    let dates = date_style(args.date_format.as_deref())?;
    let (workbook, progress) = open(&args.common)?;
    let formats = args.formatted.then(|| workbook.number_formats());
    // One writer per sheet, created up front so that empty sheets get
    // (empty) files too; a worker takes a sheet's writer when it reads the
    // sheet and hands it back when it ends.
    let mut writers: HashMap<usize, SheetCsv> = HashMap::new();
    if args.all {
        let folder = args.output.as_deref().unwrap_or(Path::new("."));
        std::fs::create_dir_all(folder)
            .map_err(|err| io::Error::new(err.kind(), format!("{}: {err}", folder.display())))?;
        let mut taken = Vec::new();
        let extension = if args.tsv { "tsv" } else { "csv" };
        for (position, name) in worksheet_positions(&workbook) {
            let path = folder.join(format!(
                "{}.{extension}",
                file_name(&name, position, &mut taken)
            ));
            writers.insert(position, SheetCsv::new(create(&path)?, args, formats));
        }
    } else {
        let position = match &args.sheet {
            Some(wanted) => find_sheet(&workbook, wanted)?,
            None => first_worksheet(&workbook)?,
        };
        let output = match &args.output {
            Some(path) => create(path)?,
            None => stdout(),
        };
        writers.insert(position, SheetCsv::new(output, args, formats));
    }
    let positions: Vec<usize> = writers.keys().copied().collect();
    let pool = Mutex::new(writers);
    let failure: Mutex<Option<csv::Error>> = Mutex::new(None);
    // With one sheet, reaching --max-rows may stop the read; with --all it
    // must not stop the other sheets.
    let stop_at_limit = !args.all;
    progress.run(|| {
        workbook
            .parallel()
            .threads(args.common.threads)
            .sheets(positions)?
            .for_each_row(|| {
                let mut held = Held {
                    sheets: HashMap::new(),
                    pool: &pool,
                };
                let (pool, failure, dates) = (&pool, &failure, &dates);
                move |sheet: &SheetInfo, row: Row<'_>| {
                    let writer = match held.sheets.entry(sheet.position()) {
                        Entry::Occupied(held) => held.into_mut(),
                        Entry::Vacant(slot) => {
                            // Each sheet is read by one thread, which takes its writer.
                            let mut pool = pool.lock().unwrap_or_else(|poison| poison.into_inner());
                            let Some(writer) = pool.remove(&sheet.position()) else {
                                return false;
                            };
                            slot.insert(writer)
                        }
                    };
                    if writer.full() {
                        return !stop_at_limit;
                    }
                    match writer.add(&row, dates) {
                        Ok(more) => more || !stop_at_limit,
                        Err(err) => {
                            failure
                                .lock()
                                .unwrap_or_else(|poison| poison.into_inner())
                                .get_or_insert(err);
                            false
                        }
                    }
                }
            })
    })?;
    if let Some(err) = failure
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
    {
        return Err(err.into());
    }
    for (_, mut sheet) in pool
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
    {
        sheet.writer.flush()?;
    }
    Ok(())
}

/// The writers a worker holds; they go back to the pool when the worker
/// ends, so that the caller flushes them and sees any error.
struct Held<'a> {
    sheets: HashMap<usize, SheetCsv>,
    pool: &'a Mutex<HashMap<usize, SheetCsv>>,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut pool = self
            .pool
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        pool.extend(self.sheets.drain());
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
    let (workbook, progress) = open(&args.common)?;
    let position = match &args.sheet {
        Some(wanted) => find_sheet(&workbook, wanted)?,
        None => first_worksheet(&workbook)?,
    };
    let mut out = match &args.output {
        Some(path) => create(path)?,
        None => stdout(),
    };
    let header_index = if args.no_header {
        None
    } else {
        Some(args.header_row.saturating_sub(1))
    };
    let formats = args.formatted.then(|| workbook.number_formats());
    let mut keys = Keys::default();
    let mut written = 0u64;
    let state = Mutex::new((&mut out, &mut keys, &mut written, None::<io::Error>));
    progress.run(|| {
        workbook
            .parallel()
            .threads(args.common.threads)
            .sheets([position])?
            .for_each_row(|| {
                let state = &state;
                let dates = &dates;
                let mut line = Vec::with_capacity(1024);
                let mut scratch = String::new();
                move |_: &SheetInfo, row: Row<'_>| {
                    let mut guard = state.lock().unwrap_or_else(|poison| poison.into_inner());
                    let (out, keys, written, failure) = &mut *guard;
                    match header_index {
                        Some(header) if row.index() < header => return true,
                        Some(header) if row.index() == header => {
                            **keys = Keys::from_header(&row, dates);
                            return true;
                        }
                        _ => {}
                    }
                    if row.cells().is_empty() {
                        // Only formatting: no object.
                        return true;
                    }
                    if args.max_rows.is_some_and(|max| **written >= max) {
                        return false;
                    }
                    line.clear();
                    object(&mut line, &row, keys, dates, formats, &mut scratch);
                    if let Err(err) = out.write_all(&line) {
                        *failure = Some(err);
                        return false;
                    }
                    **written += 1;
                    true
                }
            })
    })?;
    let (_, _, _, failure) = state
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner());
    if let Some(err) = failure {
        return Err(err.into());
    }
    out.flush()?;
    Ok(())
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
    fn from_header(row: &Row<'_>, dates: &DateStyle) -> Keys {
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
        let mut keys = Keys::default();
        for name in names {
            let name = keys.unique(name);
            keys.header.push(quoted(&name));
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

/// One row as a JSON object: every header key (null where the row has no
/// cell), then cells past the header keyed by their column letters.
fn object(
    line: &mut Vec<u8>,
    row: &Row<'_>,
    keys: &mut Keys,
    dates: &DateStyle,
    formats: Option<&NumberFormats>,
    scratch: &mut String,
) {
    let mut value = |line: &mut Vec<u8>, cell: &Cell<'_>| match formats {
        Some(formats) => {
            scratch.clear();
            cell.formatted_into(formats, scratch);
            format::json_string(line, scratch);
        }
        None => format::json_value(line, cell.value(), dates, scratch),
    };
    line.push(b'{');
    let cells = row.cells();
    let mut next = 0;
    let mut first = true;
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
            Some(cell) => value(line, cell),
            None => line.extend_from_slice(b"null"),
        }
    }
    let width = keys.header.len();
    for cell in cells.iter().filter(|cell| cell.column() as usize >= width) {
        separator(line);
        line.extend_from_slice(keys.extra(cell.column()));
        line.push(b':');
        value(line, cell);
    }
    line.extend_from_slice(b"}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_and_distinct() {
        let mut taken = Vec::new();
        assert_eq!(file_name("Q1/Q2: sales", 0, &mut taken), "Q1_Q2_ sales");
        assert_eq!(file_name("q1/q2: SALES", 1, &mut taken), "q1_q2_ SALES-1");
        assert_eq!(file_name("..", 2, &mut taken), "sheet2");
        assert_eq!(column_letters(0), "A");
        assert_eq!(column_letters(27), "AB");
    }
}
