//! Hand-made sheets (issue 26): what a sheet's metadata changes about its
//! rows before they become a table. Merged ranges filled from their
//! anchor ([`ArrowOptions::fill_merged`], and the header rows of a
//! [`Header::Rows`] header), hidden rows and columns left out
//! ([`ArrowOptions::skip_hidden_rows`], [`ArrowOptions::skip_hidden_columns`]).
//!
//! Read this first: the metadata (merged ranges, hidden columns, whether
//! rows are hidden by default) is read before the first row, by the
//! format's metadata readers, which skip the cells unread. Hidden rows
//! need no such pass: each row event says whether its row is hidden
//! ([`Row::is_hidden`]), and a hidden row is left out as it streams (its
//! number noted, so that a gap between two rows tells a hidden row from
//! an empty one). A row no merged range covers and no hidden column
//! touches passes through unchanged (one range check per row); a row that
//! is shaped is copied into the owned rows the batch reader replays
//! ([`Sampled`]), with the filled cells added. What is held: the ranges,
//! the numbers of the hidden rows read so far, and one owned value per
//! merged range whose rows are being read.
//!
//! `SheetShape` is what the sheet's metadata, read before its rows, changes
//! about them: merged ranges filled, hidden rows (told by `Row::is_hidden` as
//! they stream) and columns left out, `HiddenRows` (the hidden rows read so
//! far) for the gaps; the shaped prelude for headers of several rows or found
//! past titles and `stop_at_empty_row`. A row it changes is copied into the
//! held rows the batches replay; any other passes unchanged.

use std::io::{Read, Seek};

use super::convert::write_text;
use super::options::{ArrowOptions, Header};
use super::prelude::{
    ColumnsDropped, Prelude, Sampled, Samples, SheetColumns, columns_from, format_of,
};
use crate::cell::{CellRef, Row, Value};
use crate::columns::ColumnSet;
use crate::contract::SheetRows;
use crate::error::{Error, Result};
use crate::number_format::FormatKind;
use crate::range::CellRange;
use crate::sheet::OwnedValue;
use crate::workbook::Workbook;

/// The hidden rows of a sheet, as the batch builder needs them to tell an
/// empty row from a hidden one in a gap between two written rows: noted
/// as their row events stream by.
#[derive(Debug, Clone, Default)]
pub(crate) struct HiddenRows {
    /// Written rows marked hidden, read so far, sorted.
    rows: Vec<u32>,
    /// Every row the sheet does not write is hidden (`zeroHeight`).
    by_default: bool,
}

impl HiddenRows {
    /// Notes a written row marked hidden (rows come in order, nearly
    /// always: one out of order is put in its place).
    pub fn note(&mut self, row: u32) {
        match self.rows.last() {
            Some(&last) if last >= row => {
                if let Err(at) = self.rows.binary_search(&row) {
                    self.rows.insert(at, row);
                }
            }
            _ => self.rows.push(row),
        }
    }

    /// Whether a written row is hidden.
    pub fn contains(&self, row: u32) -> bool {
        self.rows.binary_search(&row).is_ok()
    }

    /// Whether a row of a gap (a row not written with a value) is hidden.
    pub fn contains_gap_row(&self, row: u32) -> bool {
        self.by_default || self.contains(row)
    }

    /// How many rows of a gap `from..to` (rows the sheet does not write
    /// with a value) are hidden.
    pub fn count_in(&self, from: u32, to: u32) -> u32 {
        if self.by_default {
            return to.saturating_sub(from);
        }
        let start = self.rows.partition_point(|&row| row < from);
        let end = self.rows.partition_point(|&row| row < to);
        (end - start) as u32
    }

    /// The first hidden row at or after `from` in a gap (`None`: none
    /// before `to`).
    pub fn next_in(&self, from: u32, to: u32) -> Option<u32> {
        if self.by_default {
            return (from < to).then_some(from);
        }
        let at = self.rows.partition_point(|&row| row < from);
        self.rows.get(at).copied().filter(|&row| row < to)
    }
}

/// A merged range whose rows are being read, with its anchor's value once
/// the anchor's row was read.
struct Active {
    range: CellRange,
    anchor: Option<(OwnedValue, FormatKind)>,
}

/// What the metadata changes about a sheet's rows.
pub(crate) struct SheetShape {
    /// Merged ranges to fill, by first row.
    merged: Vec<CellRange>,
    next_merge: usize,
    active: Vec<Active>,
    /// Fill merged ranges in every row, or only in these header rows.
    fill_all: bool,
    fill_rows: Option<(u32, u32)>,
    /// Rows left out (when skipping hidden rows).
    pub hidden_rows: Option<HiddenRows>,
    hidden_columns: Option<ColumnSet>,
    /// A column selection applied here instead of by the row reader: a
    /// merged range's anchor may lie in a column the selection leaves out.
    selection: Option<ColumnSet>,
    /// Columns of the row being shaped that hold a cell.
    present: ColumnSet,
    /// The last row shaped or passed, whose successor a gap starts at.
    last_row: Option<u32>,
    /// Bytes the rows filled into one gap may hold, at most
    /// ([`Limits::max_row_bytes`](crate::Limits::max_row_bytes): they are
    /// held together as one row is).
    max_gap_bytes: u64,
}

impl SheetShape {
    /// The shape of a sheet for these options, from its metadata; None
    /// when no option of the hand-made sheets needs any.
    pub fn load<R: Read + Seek>(
        workbook: &mut Workbook<R>,
        position: usize,
        options: &ArrowOptions,
    ) -> Result<Option<SheetShape>> {
        let header_rows = match options.header {
            Header::Rows { first, last } => Some((first, last)),
            _ => None,
        };
        let wants_merges = options.fill_merged || header_rows.is_some();
        let wants_metadata =
            wants_merges || options.skip_hidden_rows || options.skip_hidden_columns;
        if !options.is_shaped() {
            return Ok(None);
        }
        // Merged ranges follow the cells: the whole part is passed over
        // for them. Hidden columns and rows hidden by default come before
        // the cells: only the part's start is read for those. Hidden rows
        // are told by their row events.
        let metadata = if wants_merges {
            workbook.sheet_metadata(position)?
        } else if wants_metadata {
            workbook.sheet_head(position)?
        } else {
            Default::default()
        };
        let hidden_rows = options.skip_hidden_rows.then(|| HiddenRows {
            rows: Vec::new(),
            by_default: metadata.rows_hidden_by_default,
        });
        let mut merged = if wants_merges {
            metadata.merged
        } else {
            Vec::new()
        };
        // A one-cell "range" fills nothing.
        merged.retain(|range| range.first != range.last);
        merged.sort_by_key(|range| (range.first.row, range.first.column));
        let hidden_columns = (options.skip_hidden_columns && !metadata.hidden_columns.is_empty())
            .then(|| {
                (metadata.hidden_columns.iter())
                    .flat_map(|range| range.clone())
                    .collect::<ColumnSet>()
            });
        Ok(Some(SheetShape {
            merged,
            next_merge: 0,
            active: Vec::new(),
            fill_all: options.fill_merged,
            fill_rows: header_rows,
            hidden_rows,
            hidden_columns,
            selection: None,
            present: ColumnSet::new(),
            last_row: None,
            max_gap_bytes: workbook.limits.max_row_bytes,
        }))
    }

    /// The same from a shared workbook (the owned and many-sheet readers),
    /// through a view of it over a clone of its container.
    pub fn load_shared<R: Read + Seek + Clone>(
        workbook: &Workbook<R>,
        position: usize,
        options: &ArrowOptions,
    ) -> Result<Option<SheetShape>> {
        if !options.is_shaped() {
            return Ok(None);
        }
        SheetShape::load(&mut workbook.metadata_handle(), position, options)
    }

    /// Whether the column selection is to be applied here (the sheet has
    /// merged ranges to fill) rather than pushed down to the row reader.
    pub fn takes_selection(&self) -> bool {
        !self.merged.is_empty()
    }

    /// The column selection, when [`SheetShape::takes_selection`].
    pub fn select(&mut self, selection: Option<ColumnSet>) {
        self.selection = selection;
    }

    /// The hidden columns left out.
    pub fn hidden_column_set(&self) -> Option<ColumnSet> {
        self.hidden_columns.clone()
    }

    /// Whether a row is left out as hidden (its row event says so, and
    /// hidden rows are skipped); its number is noted for the gaps.
    pub fn skips_hidden(&mut self, row: &Row<'_>) -> bool {
        match &mut self.hidden_rows {
            Some(hidden) if row.is_hidden() => {
                hidden.note(row.index());
                true
            }
            _ => false,
        }
    }

    /// The last row a merged range that starts in the header rows
    /// (`first..=last`) reaches below them, when one does: a header cell
    /// merged down over the rows under it makes them part of the header
    /// (a label spanning a two-row header), never data, whatever the
    /// merge holds.
    pub fn header_merged_down_to(&self, first: u32, last: u32) -> Option<u32> {
        self.merged
            .iter()
            .filter(|range| (first..=last).contains(&range.first.row) && range.last.row > last)
            .map(|range| range.last.row)
            .max()
    }

    fn filling(&self, row: u32) -> bool {
        self.fill_all
            || self
                .fill_rows
                .is_some_and(|(first, last)| (first..=last).contains(&row))
    }

    /// Whether a row must be shaped (copied, cells added or left out);
    /// advances the merged ranges to this row. Rows come in order (a row
    /// that goes back finds the ranges of the rows after it).
    pub fn affects(&mut self, row: u32) -> bool {
        self.active.retain(|active| active.range.last.row >= row);
        while let Some(range) = self.merged.get(self.next_merge) {
            if range.first.row > row {
                break;
            }
            if range.last.row >= row {
                self.active.push(Active {
                    range: *range,
                    anchor: None,
                });
            }
            self.next_merge += 1;
        }
        self.hidden_columns.is_some()
            || self.selection.is_some()
            || (!self.active.is_empty() && self.filling(row))
    }

    /// The rows a merged range covers between the last row read and
    /// `index` (rows the sheet writes without a value, or not at all),
    /// filled from their anchor into `out`; true when any was. They are
    /// held until replayed (a merged block over empty rows is held whole,
    /// within [`Limits::max_row_bytes`](crate::Limits::max_row_bytes): a
    /// block past it is a limit error naming the rows, not a heap that
    /// grows with the range).
    pub fn fill_gap(&mut self, index: u32, out: &mut Sampled) -> Result<bool> {
        let from = self.last_row.map_or(index, |last| last.saturating_add(1));
        self.last_row = Some(index);
        if from >= index || self.active.is_empty() {
            return Ok(false);
        }
        let mut filled = false;
        let mut held_bytes: u64 = 0;
        for row in from..index {
            let hidden = (self.hidden_rows.as_ref()).is_some_and(|h| h.contains_gap_row(row));
            if hidden
                || !self.filling(row)
                || (self.active.iter()).all(|active| {
                    active.anchor.is_none()
                        || !(active.range.first.row..=active.range.last.row).contains(&row)
                })
            {
                continue;
            }
            let start = out.begin_row();
            let mut any = false;
            for active in &self.active {
                let Some((value, format)) = &active.anchor else {
                    continue;
                };
                let range = active.range;
                if row < range.first.row || row > range.last.row {
                    continue;
                }
                let value_bytes = 16
                    + match value {
                        OwnedValue::Text(text) | OwnedValue::Error(text) => text.len() as u64,
                        _ => 0,
                    };
                for column in range.first.column..=range.last.column {
                    if self.keeps(column) {
                        held_bytes += value_bytes;
                        if held_bytes > self.max_gap_bytes {
                            return Err(Error::limit(
                                "merged cells filled between two rows (fill_merged)",
                                self.max_gap_bytes,
                            )
                            .with_row(row + 1)
                            .with_column(column + 1));
                        }
                        any = true;
                        out.push_value(column, *format, value.as_value());
                    }
                }
            }
            if any {
                out.end_row(row, start);
                filled = true;
            } else {
                out.cancel_row(start);
            }
        }
        Ok(filled)
    }

    fn keeps(&self, column: u32) -> bool {
        !self
            .hidden_columns
            .as_ref()
            .is_some_and(|hidden| hidden.contains(column))
            && self
                .selection
                .as_ref()
                .is_none_or(|selection| selection.contains(column))
    }

    /// Copies a row into `out`, shaped: hidden columns' cells left out,
    /// merged ranges filled from their anchor, the selection applied.
    /// Returns false (and adds nothing) for a row that holds no value
    /// once the hidden columns are left out.
    pub fn push_row(&mut self, row: &Row<'_>, formats: &[FormatKind], out: &mut Sampled) -> bool {
        let index = row.index();
        let filling = self.filling(index);
        let start = out.begin_row();
        let mut visible = row.values_elsewhere;
        for cell in row.cells() {
            let column = cell.column();
            let format = format_of(formats, cell);
            if filling {
                let at = CellRef { row: index, column };
                for active in &mut self.active {
                    if active.range.first == at {
                        active.anchor = Some((cell.value().into_owned(), format));
                    }
                }
            }
            if self
                .hidden_columns
                .as_ref()
                .is_some_and(|hidden| hidden.contains(column))
            {
                continue;
            }
            visible = true;
            if self
                .selection
                .as_ref()
                .is_none_or(|selection| selection.contains(column))
            {
                out.push_value(column, format, cell.value());
            }
        }
        if filling {
            self.present = row.cells().iter().map(|cell| cell.column()).collect();
            for active in &self.active {
                let Some((value, format)) = &active.anchor else {
                    continue;
                };
                let range = active.range;
                if index < range.first.row {
                    continue;
                }
                for column in range.first.column..=range.last.column {
                    if self.present.contains(column) || !self.keeps(column) {
                        continue;
                    }
                    visible = true;
                    out.push_value(column, *format, value.as_value());
                }
            }
        }
        if !visible {
            out.cancel_row(start);
            return false;
        }
        out.end_row(index, start);
        true
    }
}

/// One more row of the sheet into `buffer`, shaped (rows before
/// `skip_rows`, without a value, or hidden are passed); false at the end.
fn pull(
    rows: &mut SheetRows<'_>,
    shape: &mut SheetShape,
    formats: &[FormatKind],
    skip_rows: u32,
    buffer: &mut Sampled,
    hidden_skipped: &mut usize,
) -> Result<bool> {
    while let Some(row) = rows.next_row()? {
        let index = row.index();
        if index < skip_rows {
            continue;
        }
        if shape.skips_hidden(&row) {
            if row.holds_values() {
                *hidden_skipped += 1;
            }
            continue;
        }
        if !row.holds_values() {
            continue;
        }
        let gap = shape.fill_gap(index, buffer)?;
        if shape.affects(index) || gap {
            if !shape.push_row(&row, formats, buffer) {
                if gap {
                    return Ok(true);
                }
                continue;
            }
        } else {
            let start = buffer.begin_row();
            for cell in row.cells() {
                buffer.push_value(cell.column(), format_of(formats, cell), cell.value());
            }
            buffer.end_row(index, start);
        }
        return Ok(true);
    }
    Ok(false)
}

/// Rows the detected header ([`Header::Auto`]) looks at, at most.
const AUTO_HEADER_ROWS: usize = 1_000;

/// The header row [`Header::Auto`] takes among `buffer`'s rows: the first
/// whose non-empty cells cover more than half of the columns the rows
/// below it use; the first row when none does.
fn auto_header(buffer: &Sampled) -> usize {
    let rows = buffer.rows.len();
    let columns_of = |row: usize| -> ColumnSet {
        buffer
            .row_cells(row)
            .filter(|(_, value, _)| !matches!(value, Value::Text(text) if text.trim().is_empty()))
            .map(|(column, _, _)| column)
            .collect()
    };
    // The columns used by the rows below each row, from the bottom up.
    let mut below = vec![ColumnSet::new(); rows];
    let mut used = ColumnSet::new();
    for row in (0..rows).rev() {
        below[row] = used.clone();
        used.extend(columns_of(row).iter());
    }
    for (row, below) in below.iter().enumerate() {
        if below.is_empty() {
            break;
        }
        let own = columns_of(row);
        let covered = below.iter().filter(|&column| own.contains(column)).count();
        if covered * 2 > below.len() {
            return row;
        }
    }
    0
}

/// The header and the sample of a hand-made sheet ([`ArrowOptions::is_shaped`]):
/// as [`read_prelude`](super::prelude::read_prelude), with the rows
/// shaped, a header of several rows or found past titles, and the table
/// ended at its first empty row when asked.
pub(crate) fn read_shaped_prelude(
    rows: &mut SheetRows<'_>,
    shape: &mut SheetShape,
    formats: &[FormatKind],
    options: &ArrowOptions,
    sheet: &str,
    known: Option<&SheetColumns>,
    hold: bool,
) -> Result<Prelude> {
    let spec = options.columns.as_ref();
    let select = |rows: &mut SheetRows<'_>, shape: &mut SheetShape, wanted: Vec<u32>| {
        let set = wanted.into_iter().collect::<ColumnSet>();
        if shape.takes_selection() {
            shape.select(Some(set));
        } else {
            rows.select_columns(Some(set));
        }
    };
    if let Some(spec) = spec
        && !spec.needs_header()
    {
        select(rows, shape, spec.resolve(&[])?);
    }
    let skip = options.skip_rows;
    let mut hidden_skipped = 0;
    let mut buffer = Sampled::default();
    let n_rows = usize::try_from(options.n_rows.unwrap_or(u64::MAX)).unwrap_or(usize::MAX);
    let sample_rows = match known {
        Some(_) => 1,
        None => options.schema_sample_rows.max(1),
    }
    .min(n_rows);
    // The header rows (positions in `buffer`) and where the data starts.
    let mut header_rows: Vec<usize> = Vec::new();
    let mut data_from = 0;
    let mut more = |rows: &mut SheetRows<'_>, shape: &mut SheetShape, buffer: &mut Sampled| {
        pull(rows, shape, formats, skip, buffer, &mut hidden_skipped)
    };
    match options.header {
        Header::None => {}
        Header::FirstNonEmpty => {
            if more(rows, shape, &mut buffer)? {
                header_rows.push(0);
                data_from = 1;
            }
        }
        Header::Row(at) | Header::Rows { first: at, last: _ } => {
            let last = match options.header {
                Header::Rows { last, .. } => last.max(at),
                _ => at,
            };
            while more(rows, shape, &mut buffer)? {
                let position = buffer.rows.len() - 1;
                let index = buffer.rows[position].0;
                if index < at {
                    data_from = position + 1;
                } else if index <= last {
                    header_rows.push(position);
                    data_from = position + 1;
                } else {
                    data_from = position;
                    break;
                }
            }
        }
        Header::Auto => {
            // The same rows whether or not the columns are known (a
            // second pass finds the header the first found).
            let look = options.schema_sample_rows.clamp(2, AUTO_HEADER_ROWS);
            while buffer.rows.len() < look && more(rows, shape, &mut buffer)? {}
            if !buffer.rows.is_empty() {
                let at = auto_header(&buffer);
                header_rows.push(at);
                data_from = at + 1;
            }
        }
    }
    // The names: each column's header texts, top row first, joined.
    let mut names: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
    let mut text = String::new();
    for &position in &header_rows {
        let cells: Vec<(u32, String)> = buffer
            .row_cells(position)
            .map(|(column, value, _)| {
                text.clear();
                write_text(&mut text, value);
                (column, text.trim().to_owned())
            })
            .collect();
        for (column, part) in cells {
            let parts = names.entry(column).or_default();
            if !part.is_empty() && parts.last() != Some(&part) {
                parts.push(part);
            }
        }
    }
    let header: Vec<(u32, String)> = names
        .into_iter()
        .map(|(column, parts)| (column, parts.join(" ")))
        .collect();
    let header_row = header_rows.last().map(|&position| buffer.rows[position].0);
    // Rows a header cell is merged down over are header rows, not data
    // (with fill_merged they would repeat the header's names).
    let first_header_row = header_rows.first().map(|&position| buffer.rows[position].0);
    let merged_down = first_header_row
        .zip(header_row)
        .and_then(|(first, last)| shape.header_merged_down_to(first, last));
    if let Some(end) = merged_down {
        loop {
            while data_from < buffer.rows.len() && buffer.rows[data_from].0 <= end {
                data_from += 1;
            }
            if data_from < buffer.rows.len() || !more(rows, shape, &mut buffer)? {
                break;
            }
        }
    }
    let data_start = merged_down.or(header_row);
    if let Some(spec) = spec
        && spec.needs_header()
    {
        let names: Vec<(u32, &str)> = header.iter().map(|(c, t)| (*c, t.as_str())).collect();
        let wanted = spec.resolve(&names).map_err(|err| err.with_sheet(sheet))?;
        let set: ColumnSet = wanted.iter().copied().collect();
        select(rows, shape, wanted);
        buffer.retain_columns(&set);
    }
    // The sample: the rows read past the header, then more.
    let mut samples = Samples::new(options);
    let mut sampled = 0;
    let mut position = data_from;
    let mut expected = data_start.map(|row| row.saturating_add(1));
    let mut next_index = expected;
    let mut ended = false;
    loop {
        if position == buffer.rows.len()
            && (sampled >= sample_rows || !more(rows, shape, &mut buffer)?)
        {
            break;
        }
        let (index, range) = buffer.rows[position].clone();
        if options.stop_at_empty_row
            && let Some(expected) = expected
            && index > expected
        {
            let hidden = (shape.hidden_rows.as_ref()).map_or(0, |h| h.count_in(expected, index));
            if index - expected > hidden {
                ended = true;
                buffer.rows.truncate(position);
                break;
            }
        }
        expected = Some(index.saturating_add(1));
        next_index.get_or_insert(index);
        if !range.is_empty() {
            for (column, value, format) in buffer.row_cells(position) {
                samples.add(column, value, format);
            }
            sampled += 1;
        }
        position += 1;
    }
    buffer.rows.drain(..data_from.min(buffer.rows.len()));
    let held = if hold { buffer } else { Sampled::default() };
    let dropped = ColumnsDropped {
        empty: options.drop_empty_cols,
        hidden: shape.hidden_column_set(),
    };
    let columns = match known {
        Some(known) => known.clone(),
        None => columns_from(spec, &header, &samples, &[], sheet, &dropped)?,
    };
    Ok(Prelude {
        header,
        held,
        samples,
        next_index: next_index.unwrap_or(skip),
        columns,
        ended,
        header_row,
        hidden_skipped,
    })
}
