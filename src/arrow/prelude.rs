//! A sheet's prelude: the header row, the sample rows the types are
//! inferred from (kept, to be replayed into the first batch), and the
//! columns they make ([`SheetColumns`]).
//!
//! The first pass of `ALL_ROWS` and of the many-sheet reader holds no rows.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::batches::SheetSource;
use super::convert::write_text;
use super::infer::ColumnSample;
use super::options::{ArrowOptions, ColumnType, Header};
use crate::cell::{Cell, Row, Value};
use crate::columns::{ColumnSet, ColumnSpec};
use crate::contract::SheetRows;
use crate::date::DateTime;
use crate::error::Result;
use crate::number_format::FormatKind;

/// A sheet's columns as the header and the sample made them (or, after a
/// misfit, the header and every row read).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SheetColumns {
    /// Unique names, in output order.
    pub names: Vec<String>,
    /// The sheet column each output column reads (0-based).
    pub sources: Vec<u32>,
    /// Inferred types; None for a column whose sample held no value.
    pub inferred: Vec<Option<ColumnType>>,
}

/// The rows held to be replayed, owned: cells and their text in one
/// buffer. A row with no selected cell (its values are in other columns)
/// is held as a row without cells, only the last of a run of them: the
/// rows between two held rows come out as rows of nulls anyway.
#[derive(Default)]
pub(crate) struct Sampled {
    pub rows: Vec<(u32, Range<usize>)>,
    pub cells: Vec<SampledCell>,
    text: String,
    /// Rows already replayed.
    pub replayed: usize,
}

pub(crate) struct SampledCell {
    pub column: u32,
    pub format: FormatKind,
    value: SampledValue,
}

enum SampledValue {
    Number(f64),
    Text(Range<usize>),
    Bool(bool),
    Error(Range<usize>),
    DateTime(DateTime),
}

impl Sampled {
    pub fn push_row(&mut self, index: u32, cells: &[Cell<'_>], formats: &[FormatKind]) {
        let start = self.cells.len();
        if cells.is_empty()
            && let Some((last, held)) = self.rows.last_mut()
            && held.start == held.end
        {
            *last = index;
            return;
        }
        for cell in cells {
            self.push_value(cell.column(), format_of(formats, cell), cell.value());
        }
        self.rows.push((index, start..self.cells.len()));
    }

    // Hand-made sheets (issue 26): rows shaped cell by cell.

    /// Starts a row of cells pushed one at a time; the position to give
    /// [`Sampled::end_row`] or [`Sampled::cancel_row`].
    pub fn begin_row(&mut self) -> (usize, usize) {
        (self.cells.len(), self.text.len())
    }

    /// One cell of the row begun.
    pub fn push_value(&mut self, column: u32, format: FormatKind, value: Value<'_>) {
        let mut text = |text: &str| {
            let at = self.text.len();
            self.text.push_str(text);
            at..self.text.len()
        };
        let value = match value {
            Value::Number(number) => SampledValue::Number(number),
            Value::Text(t) => SampledValue::Text(text(t)),
            Value::Bool(flag) => SampledValue::Bool(flag),
            Value::Error(code) => SampledValue::Error(text(code)),
            Value::DateTime(date) => SampledValue::DateTime(date),
        };
        self.cells.push(SampledCell {
            column,
            format,
            value,
        });
    }

    /// Ends the row begun at `start`, as row `index`.
    pub fn end_row(&mut self, index: u32, start: (usize, usize)) {
        self.rows.push((index, start.0..self.cells.len()));
    }

    /// Drops the row begun at `start`.
    pub fn cancel_row(&mut self, start: (usize, usize)) {
        self.cells.truncate(start.0);
        self.text.truncate(start.1);
    }

    /// A held row's cells: (sheet column, value, format).
    pub fn row_cells(&self, row: usize) -> impl Iterator<Item = (u32, Value<'_>, FormatKind)> + '_ {
        let range = self.rows[row].1.clone();
        self.cells[range]
            .iter()
            .map(|cell| (cell.column, self.value(cell), cell.format))
    }

    pub fn value(&self, cell: &SampledCell) -> Value<'_> {
        match &cell.value {
            SampledValue::Number(number) => Value::Number(*number),
            SampledValue::Text(range) => Value::Text(&self.text[range.clone()]),
            SampledValue::Bool(flag) => Value::Bool(*flag),
            SampledValue::Error(range) => Value::Error(&self.text[range.clone()]),
            SampledValue::DateTime(date) => Value::DateTime(*date),
        }
    }

    /// Keeps only the cells of these sheet columns (a projection chosen
    /// after the sample was read); every row stays, as a row of nulls
    /// where it had no such cell.
    pub fn retain_columns(&mut self, columns: &ColumnSet) {
        let mut kept = Vec::with_capacity(self.cells.len());
        let cells = std::mem::take(&mut self.cells);
        let mut cells = cells.into_iter();
        for (_, range) in &mut self.rows {
            let start = kept.len();
            kept.extend(
                cells
                    .by_ref()
                    .take(range.len())
                    .filter(|cell| columns.contains(cell.column)),
            );
            *range = start..kept.len();
        }
        self.cells = kept;
    }

    pub fn clear(&mut self) {
        self.rows.clear();
        self.cells.clear();
        self.text.clear();
        self.replayed = 0;
    }
}

/// A cell's number format kind.
pub(crate) fn format_of(formats: &[FormatKind], cell: &Cell<'_>) -> FormatKind {
    formats
        .get(cell.style() as usize)
        .copied()
        .unwrap_or_default()
}

/// What the values of every sheet column read so far said about its type,
/// by sheet column.
#[derive(Default)]
pub(crate) struct Samples {
    by_column: Vec<ColumnSample>,
    null_values: HashSet<String>,
}

impl Samples {
    pub fn new(options: &ArrowOptions) -> Samples {
        Samples {
            by_column: Vec::new(),
            null_values: options.null_values.iter().cloned().collect(),
        }
    }

    /// Counts one cell's value in its column's sample (a null value says
    /// nothing of the type).
    pub fn add(&mut self, column: u32, value: Value<'_>, format: FormatKind) {
        let at = column as usize;
        if self.by_column.len() <= at {
            self.by_column.resize(at + 1, ColumnSample::default());
        }
        match value {
            Value::Text(text) if self.null_values.contains(text) => {
                self.by_column[at].add_untyped()
            }
            value => self.by_column[at].add(value, format),
        }
    }

    /// Counts every cell of a row.
    pub fn add_row(&mut self, cells: &[Cell<'_>], formats: &[FormatKind]) {
        for cell in cells {
            self.add(cell.column(), cell.value(), format_of(formats, cell));
        }
    }

    /// The type the values of a sheet column make (None: no value).
    pub fn infer(&self, column: u32) -> Option<ColumnType> {
        self.by_column.get(column as usize)?.infer()
    }

    /// The sheet columns that had any cell, in order.
    pub fn seen(&self) -> impl Iterator<Item = u32> + '_ {
        (self.by_column.iter().enumerate())
            .filter(|(_, sample)| sample.seen())
            .map(|(column, _)| column as u32)
    }
}

/// What the header and the sample rows gave.
pub(crate) struct Prelude {
    /// The header row's text by sheet column.
    pub header: Vec<(u32, String)>,
    /// The rows read, held to be replayed (when asked for).
    pub held: Sampled,
    pub samples: Samples,
    /// The sheet row the table starts at.
    pub next_index: u32,
    pub columns: SheetColumns,
    // Hand-made sheets (issue 26).
    /// The table ended within the rows read ([`ArrowOptions::stop_at_empty_row`]).
    pub ended: bool,
    /// The header row taken (the last one of a header of several rows).
    pub header_row: Option<u32>,
    /// Hidden rows left out so far.
    pub hidden_skipped: usize,
}

/// Reads the header and the sample rows. `known`: the columns a read
/// before found (every row inferred, or a misfit widened them), used
/// instead of the sample's, which is then one row. `hold`: keep the rows
/// read, to replay them into the batches (a first pass that only wants
/// the columns keeps none).
pub(crate) fn read_prelude(
    rows: &mut SheetRows<'_>,
    formats: &[FormatKind],
    options: &ArrowOptions,
    sheet: &str,
    known: Option<&SheetColumns>,
    hold: bool,
) -> Result<Prelude> {
    let spec = options.columns.as_ref();
    if let Some(spec) = spec
        && !spec.needs_header()
    {
        let wanted = spec.resolve(&[])?;
        options.check_in_window(&wanted, sheet)?;
        rows.select_columns(Some(wanted.into_iter().collect::<ColumnSet>()));
    }
    let mut held = Sampled::default();
    let mut samples = Samples::new(options);
    let mut header: Vec<(u32, String)> = Vec::new();
    let mut next_index: Option<u32> = None;
    let mut header_row = None;
    let n_rows = usize::try_from(options.n_rows.unwrap_or(u64::MAX)).unwrap_or(usize::MAX);
    let sample_rows = match known {
        Some(_) => 1,
        None => options.schema_sample_rows.max(1),
    }
    .min(n_rows);
    // Rows sampled: those with a cell in a selected column.
    let mut sampled = 0;
    let sample_row = |row: &Row<'_>, held: &mut Sampled, samples: &mut Samples| {
        if hold {
            held.push_row(row.index(), row.cells(), formats);
        }
        if row.cells().is_empty() {
            return 0;
        }
        samples.add_row(row.cells(), formats);
        1
    };
    // A table's column names, from its definition.
    if let Some(given) = &options.given_header {
        header.clone_from(&given.names);
        next_index = Some(given.data_row);
    }
    // The header.
    if options.header != Header::None {
        while let Some(row) = rows.next_row()? {
            // The first row with a value in any column, selected or not:
            // which row is the header does not depend on the selection.
            if row.index() < options.skip_rows || !row.holds_values() {
                continue;
            }
            match options.header {
                Header::Row(at) if row.index() < at => continue,
                Header::Row(at) if row.index() > at => {
                    // No such row: every name is generated, and this row is data.
                    next_index = Some(at.saturating_add(1));
                    sampled += sample_row(&row, &mut held, &mut samples);
                }
                _ => {
                    let mut text = String::new();
                    for cell in row.cells() {
                        text.clear();
                        write_text(&mut text, cell.value());
                        header.push((cell.column(), text.trim().to_owned()));
                    }
                    header_row = Some(row.index());
                    next_index = Some(row.index().saturating_add(1));
                }
            }
            break;
        }
    }
    if let Some(spec) = spec
        && spec.needs_header()
    {
        let wanted = resolve(spec, &header, sheet)?;
        options.check_in_window(&wanted, sheet)?;
        rows.select_columns(Some(wanted.into_iter().collect::<ColumnSet>()));
    }
    // The sample.
    while sampled < sample_rows {
        let Some(row) = rows.next_row()? else { break };
        if row.index() < options.skip_rows || !row.holds_values() {
            continue;
        }
        next_index.get_or_insert(row.index());
        sampled += sample_row(&row, &mut held, &mut samples);
    }
    let columns = match known {
        Some(known) => known.clone(),
        None => columns_from(spec, &header, &samples, &[], sheet, &drop_filter(options))?,
    };
    Ok(Prelude {
        header,
        held,
        samples,
        next_index: next_index.unwrap_or(options.skip_rows),
        columns,
        ended: false,
        header_row,
        hidden_skipped: 0,
    })
}

/// A column selection resolved against the header row.
fn resolve(spec: &ColumnSpec, header: &[(u32, String)], sheet: &str) -> Result<Vec<u32>> {
    let names: Vec<(u32, &str)> = header.iter().map(|(c, t)| (*c, t.as_str())).collect();
    spec.resolve(&names).map_err(|err| err.with_sheet(sheet))
}

/// The columns the header and the samples make: the selected ones, or
/// every one from the leftmost to the rightmost that the header, the
/// samples or `also` use; named by the header, typed by the samples.
pub(crate) fn columns_from(
    spec: Option<&ColumnSpec>,
    header: &[(u32, String)],
    samples: &Samples,
    also: &[u32],
    sheet: &str,
    drop: &ColumnsDropped,
) -> Result<SheetColumns> {
    let sources: Vec<u32> = match spec {
        Some(spec) => resolve(spec, header, sheet)?,
        None => {
            let used = (header.iter().map(|(column, _)| *column))
                .chain(samples.seen())
                .chain(also.iter().copied());
            let (min, max) = used.fold((u32::MAX, 0), |(lo, hi), c| (lo.min(c), hi.max(c)));
            if min == u32::MAX {
                Vec::new()
            } else {
                let named: HashSet<u32> = (header.iter())
                    .filter(|(_, text)| !text.is_empty())
                    .map(|(column, _)| *column)
                    .chain(also.iter().copied())
                    .collect();
                let seen: HashSet<u32> = if drop.empty {
                    samples.seen().collect()
                } else {
                    HashSet::new()
                };
                (min..=max)
                    .filter(|column| !drop.hidden.as_ref().is_some_and(|h| h.contains(*column)))
                    .filter(|column| !drop.empty || named.contains(column) || seen.contains(column))
                    .collect()
            }
        }
    };
    let header_names: HashMap<u32, &str> = header
        .iter()
        .filter(|(_, text)| !text.is_empty())
        .map(|(column, text)| (*column, text.as_str()))
        .collect();
    let own_names: Vec<Option<&str>> = sources
        .iter()
        .map(|source| header_names.get(source).copied())
        .collect();
    Ok(SheetColumns {
        names: unique_names(&own_names),
        inferred: sources
            .iter()
            .map(|&source| samples.infer(source))
            .collect(),
        sources,
    })
}

// Hand-made sheets (issue 26): the columns left out of a sheet's table.

/// Which columns in the span of the used ones are left out: those without
/// a name or a sampled value ([`ArrowOptions::drop_empty_cols`]), the
/// hidden ones ([`ArrowOptions::skip_hidden_columns`]).
#[derive(Default)]
pub(crate) struct ColumnsDropped {
    pub empty: bool,
    pub hidden: Option<ColumnSet>,
}

/// What the options leave out, before the sheet's hidden columns are known.
pub(crate) fn drop_filter(options: &ArrowOptions) -> ColumnsDropped {
    ColumnsDropped {
        empty: options.drop_empty_cols,
        hidden: None,
    }
}

/// Column names from the header's (None: generated, `column_N` for the
/// Nth column): the first of equal names keeps it, the others get the
/// first free `name_1`, `name_2`, ..., never one another column's header
/// already holds.
pub(crate) fn unique_names(own: &[Option<&str>]) -> Vec<String> {
    let reserved: HashSet<&str> = own.iter().flatten().copied().collect();
    let mut taken: HashSet<String> = HashSet::new();
    let mut names = Vec::with_capacity(own.len());
    for (position, name) in own.iter().enumerate() {
        let base = match name {
            Some(text) => (*text).to_owned(),
            None => format!("column_{}", position + 1),
        };
        let mut name = base.clone();
        let mut suffix = 0;
        while taken.contains(&name) || (suffix > 0 && reserved.contains(name.as_str())) {
            suffix += 1;
            name = format!("{base}_{suffix}");
        }
        taken.insert(name.clone());
        names.push(name);
    }
    names
}

/// The columns of a sheet, without building any batch (the first pass of
/// a read over many sheets, and the inference over every row): the
/// columns a read before found, or the header and sample read (every
/// row, with [`ALL_ROWS`](super::ALL_ROWS)), none of it held.
pub(crate) fn sheet_columns(
    mut source: SheetSource<'_>,
    options: &ArrowOptions,
) -> Result<SheetColumns> {
    if let Some(known) = options.widened_columns(source.file.as_deref(), &source.sheet) {
        return Ok(known.clone());
    }
    let options = &*options.for_sheet(&mut source)?;
    let prelude = match source.shape.as_mut() {
        Some(shape) => super::shape::read_shaped_prelude(
            &mut source.rows,
            shape,
            &source.formats,
            options,
            &source.sheet,
            None,
            false,
        )?,
        None => read_prelude(
            &mut source.rows,
            &source.formats,
            options,
            &source.sheet,
            None,
            false,
        )?,
    };
    Ok(prelude.columns)
}
