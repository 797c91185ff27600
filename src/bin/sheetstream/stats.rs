//! `stats`: per sheet and column, what the values are, computed with the
//! parallel fold.

use std::io::{self, BufWriter, Write};

use sheetstream::{CivilDateTime, DateTime, Value};

use crate::format;
use crate::{Common, Failure, find_sheet, open, worksheet_positions};

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

/// Per sheet position, per column.
type Table = Vec<Vec<ColumnStats>>;

fn merge_tables(mut a: Table, b: Table) -> Table {
    for (sheet, columns) in b.into_iter().enumerate() {
        let mine = &mut a[sheet];
        if mine.len() < columns.len() {
            mine.resize(columns.len(), ColumnStats::default());
        }
        for (column, stats) in columns.iter().enumerate() {
            mine[column].merge(stats);
        }
    }
    a
}

fn date_text(date: Option<DateTime>) -> String {
    date.and_then(|date| date.to_civil())
        .map(|civil: CivilDateTime| civil.to_string())
        .unwrap_or_default()
}

fn number_text(number: Option<f64>) -> String {
    let mut out = String::new();
    if let Some(number) = number {
        format::number(&mut out, number);
    }
    out
}

pub fn stats(common: &Common, sheet: Option<&str>) -> Result<(), Failure> {
    let (workbook, progress) = open(common)?;
    let positions: Vec<usize> = match sheet {
        Some(wanted) => vec![find_sheet(&workbook, wanted)?],
        None => worksheet_positions(&workbook)
            .into_iter()
            .map(|(position, _)| position)
            .collect(),
    };
    let sheet_count = workbook.sheets().len();
    let table = progress.run(|| {
        workbook
            .parallel()
            .threads(common.threads)
            .sheets(positions.iter().copied())?
            .fold(
                || vec![Vec::new(); sheet_count],
                |table: &mut Table, sheet, row| {
                    let columns = &mut table[sheet.position()];
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
    })?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    writeln!(
        out,
        "sheet\tcolumn\tnumbers\ttexts\tbooleans\terrors\tdates\tmin\tmax\tfirst date\tlast date\tlongest text (chars)\tlongest text"
    )?;
    for position in positions {
        let name = workbook.sheets()[position].name();
        for (column, stats) in table[position].iter().enumerate() {
            let cells = stats.numbers + stats.texts + stats.booleans + stats.errors + stats.dates;
            if cells == 0 {
                continue;
            }
            let letters = sheetstream::CellRef {
                row: 0,
                column: column as u32,
            }
            .to_string();
            let (chars, sample) = stats.longest_text.clone().unwrap_or_default();
            writeln!(
                out,
                "{name}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                letters.trim_end_matches('1'),
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
                sample.replace(['\t', '\n', '\r'], " "),
            )?;
        }
    }
    out.flush()?;
    Ok(())
}
