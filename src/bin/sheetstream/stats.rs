//! `stats`: per sheet and column, what the values are, computed with the
//! parallel fold.

use std::io::{self, BufWriter, Write};

use clap::Args;
use sheetstream::{DateTime, Value};

use crate::columns;
use crate::format::{self, DateStyle};
use crate::input::inputs;
use crate::rows::{Role, Roles, RowArgs};
use crate::{Common, Failure, SheetChoice, escape, file_column};

#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    sheet: SheetChoice,
    #[command(flatten)]
    rows: RowArgs,
    #[arg(long, value_name = "LIST", help = columns::HELP)]
    columns: Option<String>,
}

/// What one column of one sheet holds.
#[derive(Debug, Clone, Default)]
struct ColumnStats {
    numbers: u64,
    texts: u64,
    booleans: u64,
    errors: u64,
    dates: u64,
    min: Option<f64>,
    max: Option<f64>,
    first_date: Option<DateTime>,
    last_date: Option<DateTime>,
    /// Length in characters, and the text (cut to 40 characters).
    longest_text: Option<(usize, String)>,
}

impl ColumnStats {
    fn add(&mut self, value: Value<'_>) {
        match value {
            Value::Number(number) => {
                self.numbers += 1;
                self.min = Some(self.min.map_or(number, |min| min.min(number)));
                self.max = Some(self.max.map_or(number, |max| max.max(number)));
            }
            Value::Text(text) => {
                self.texts += 1;
                // Characters are counted only when the bytes could beat the record.
                if self
                    .longest_text
                    .as_ref()
                    .is_none_or(|(chars, _)| text.len() > *chars)
                {
                    let chars = text.chars().count();
                    if self
                        .longest_text
                        .as_ref()
                        .is_none_or(|(longest, _)| chars > *longest)
                    {
                        self.longest_text = Some((chars, text.chars().take(40).collect()));
                    }
                }
            }
            Value::Bool(_) => self.booleans += 1,
            Value::Error(_) => self.errors += 1,
            Value::DateTime(date) => {
                self.dates += 1;
                if self
                    .first_date
                    .is_none_or(|first| date.serial() < first.serial())
                {
                    self.first_date = Some(date);
                }
                if self
                    .last_date
                    .is_none_or(|last| date.serial() > last.serial())
                {
                    self.last_date = Some(date);
                }
            }
            // A kind of value this CLI does not know yet: counted as its text.
            other => {
                let text = other.to_string();
                self.add(Value::Text(&text));
            }
        }
    }

    fn merge(&mut self, other: &ColumnStats) {
        self.numbers += other.numbers;
        self.texts += other.texts;
        self.booleans += other.booleans;
        self.errors += other.errors;
        self.dates += other.dates;
        for (mine, theirs, pick_min) in [
            (&mut self.min, other.min, true),
            (&mut self.max, other.max, false),
        ] {
            if let Some(theirs) = theirs {
                *mine = Some(mine.map_or(theirs, |m| {
                    if pick_min {
                        m.min(theirs)
                    } else {
                        m.max(theirs)
                    }
                }));
            }
        }
        if let Some(theirs) = other.first_date
            && self
                .first_date
                .is_none_or(|mine| theirs.serial() < mine.serial())
        {
            self.first_date = Some(theirs);
        }
        if let Some(theirs) = other.last_date
            && self
                .last_date
                .is_none_or(|mine| theirs.serial() > mine.serial())
        {
            self.last_date = Some(theirs);
        }
        if let Some((chars, text)) = &other.longest_text
            && self
                .longest_text
                .as_ref()
                .is_none_or(|(mine, _)| chars > mine)
        {
            self.longest_text = Some((*chars, text.clone()));
        }
    }
}

/// One sheet: per column, and the header row's text by column.
#[derive(Debug, Clone)]
struct SheetStats {
    columns: Vec<ColumnStats>,
    header: Vec<(u32, String)>,
    /// The sheet's rows so far (a sheet is read by one thread, in order).
    roles: Roles,
}

/// Per sheet position.
type Table = Vec<SheetStats>;

fn merge_tables(mut a: Table, b: Table) -> Table {
    for (sheet, theirs) in b.into_iter().enumerate() {
        let SheetStats {
            columns, header, ..
        } = theirs;
        if !header.is_empty() {
            a[sheet].header = header;
        }
        let mine = &mut a[sheet].columns;
        if mine.len() < columns.len() {
            mine.resize(columns.len(), ColumnStats::default());
        }
        for (column, stats) in columns.iter().enumerate() {
            mine[column].merge(stats);
        }
    }
    a
}

/// The first or last date of a column as `csv` writes it: a date in ISO
/// 8601, a time of day (`00:07:00`) or a duration (`36:00:00`) as such,
/// not as a date-time of 1899-12-31.
fn date_text(date: Option<DateTime>) -> String {
    let mut out = String::new();
    if let Some(date) = date {
        format::text(&mut out, Value::DateTime(date), &DateStyle::Iso);
    }
    out
}

fn number_text(number: Option<f64>) -> String {
    let mut out = String::new();
    if let Some(number) = number {
        format::number(&mut out, number);
    }
    out
}

pub fn stats(args: &StatsArgs) -> Result<(), Failure> {
    let spec = columns::parse(args.columns.as_deref())?;
    args.rows.check_columns(spec.as_ref())?;
    let inputs = inputs(&args.common)?;
    let several = inputs.len() > 1;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut header_line = Some(format!(
        "{}sheet\tcolumn\theader\tnumbers\ttexts\tbooleans\terrors\tdates\tmin\tmax\tfirst date\tlast date\tlongest text (chars)\tlongest text",
        if several { "file\t" } else { "" }
    ));
    for input in &inputs {
        let (mut workbook, progress) = input.open(args.common.quiet)?;
        let positions = args.sheet.find_or_all(&workbook)?;
        if let Some(line) = header_line.take() {
            writeln!(out, "{line}")?;
        }
        // Per sheet, the columns asked for (None: all).
        let mut wanted: Vec<Option<Vec<u32>>> = vec![None; workbook.sheets().len()];
        let mut selected = spec.is_some().then(sheetstream::ColumnSet::new);
        if let Some(spec) = &spec {
            for &position in &positions {
                let mut order =
                    columns::resolve(spec, &mut workbook, position, &args.rows, &DateStyle::Iso)
                        .map_err(|failure| match failure {
                            Failure::Read(err) => input.locate(err),
                            other => other,
                        })?;
                order.sort_unstable();
                order.dedup();
                if let Some(selected) = &mut selected {
                    selected.extend(order.iter().copied());
                }
                wanted[position] = Some(order);
            }
        }
        let sheet_count = workbook.sheets().len();
        let fresh = SheetStats {
            columns: Vec::new(),
            header: Vec::new(),
            roles: args.rows.roles(),
        };
        let table = progress
            .run(|| {
                let mut parallel = workbook
                    .parallel()
                    .threads(args.common.threads)
                    .sheets(positions.iter().copied())?;
                if let Some(selected) = selected {
                    parallel = parallel.select_columns(selected);
                }
                parallel.fold(
                    || vec![fresh.clone(); sheet_count],
                    |table: &mut Table, sheet, row| {
                        let stats = &mut table[sheet.position()];
                        let role = stats.roles.role(&row);
                        if matches!(role, Role::Above | Role::Past) {
                            return;
                        }
                        if role == Role::Header {
                            stats.header = row
                                .cells()
                                .iter()
                                .map(|cell| {
                                    let mut text = String::new();
                                    format::text(&mut text, cell.value(), &DateStyle::Iso);
                                    (cell.column(), text)
                                })
                                .collect();
                            return;
                        }
                        let columns = &mut stats.columns;
                        for cell in row.cells() {
                            let column = cell.column() as usize;
                            if columns.len() <= column {
                                columns.resize(column + 1, ColumnStats::default());
                            }
                            columns[column].add(cell.value());
                        }
                    },
                    merge_tables,
                )
            })
            .map_err(|err| input.locate(err))?;
        let file = file_column(input, several);
        for &position in &positions {
            let name = escape(workbook.sheets()[position].name()).replace('\t', "\\t");
            let sheet = &table[position];
            for (column, stats) in sheet.columns.iter().enumerate() {
                let cells =
                    stats.numbers + stats.texts + stats.booleans + stats.errors + stats.dates;
                if cells == 0 {
                    continue;
                }
                if wanted[position]
                    .as_ref()
                    .is_some_and(|order| order.binary_search(&(column as u32)).is_err())
                {
                    continue;
                }
                let letters = sheetstream::CellRef {
                    row: 0,
                    column: column as u32,
                }
                .to_string();
                let header = sheet
                    .header
                    .iter()
                    .find(|(c, _)| *c as usize == column)
                    .map_or("", |(_, text)| text.as_str());
                let (chars, sample) = stats.longest_text.clone().unwrap_or_default();
                writeln!(
                    out,
                    "{file}{name}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    letters.trim_end_matches('1'),
                    cell_text(header),
                    stats.numbers,
                    stats.texts,
                    stats.booleans,
                    stats.errors,
                    stats.dates,
                    number_text(stats.min),
                    number_text(stats.max),
                    date_text(stats.first_date),
                    date_text(stats.last_date),
                    chars,
                    cell_text(&sample),
                )?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// A value from the file in a TSV field: tabs and line breaks as spaces,
/// control characters escaped.
fn cell_text(text: &str) -> String {
    escape(&text.replace(['\t', '\n', '\r'], " ")).into_owned()
}
