//! [`SheetBatches`]: one sheet's row events into record batches, on the
//! caller's thread. Opening reads the header and the sample rows (kept in
//! one small owned buffer, replayed into the first batch); after that each
//! row goes from the row reader straight into the column builders.
//!
//! The builders get the last batch's capacity when the next batch's first row
//! comes (an arrow builder's `finish` leaves it none; made when the batch was
//! taken, that room was a fourth batch on `reader.rs`'s worker blocked handing
//! the batch over). `output_columns` is a projection chosen after the prelude:
//! the held rows and the row reader's selection narrowed to those columns.
//! `BatchReport` counts the cells read and what did not arrive.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, RecordBatchReader, StringArray};
use arrow_schema::{ArrowError, Field, Schema, SchemaRef};

use super::convert::{ColumnBuilder, Refusal, write_text};
use super::options::{ArrowOptions, ColumnType, OnErrorValue, OnMismatch};
use super::prelude::{ColumnsDropped, Prelude, Sampled, SheetColumns, read_prelude};
use super::shape::{HiddenRows, SheetShape, read_shaped_prelude};
use super::widen::{Misfit, MisfitColumn, Widening};
use crate::cell::{Cell, Value};
use crate::columns::ColumnSet;
use crate::contract::SheetRows;
use crate::error::{Error, ErrorKind, Result};
use crate::number_format::FormatKind;

/// Issues described per batch in a [`BatchReport`]; past this many only
/// the counts grow.
pub const MAX_ISSUES_PER_BATCH: usize = 100;

/// A Utf8 column's text bytes at which a batch is cut early, well before
/// the 32-bit offsets of an Arrow string array could overflow.
const MAX_BATCH_TEXT_BYTES: usize = 1 << 30;

/// What happened to the cells of one batch that did not arrive as values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchReport {
    /// The sheet's name.
    pub sheet: String,
    /// The file, for readers over many files.
    pub file: Option<String>,
    /// The 0-based sheet row index of the batch's first row.
    pub first_row: u32,
    /// Rows in the batch.
    pub rows: usize,
    /// Cells the row reader handed over for the batch's rows (values,
    /// error cells, and the dropped ones): only the selected columns'
    /// cells under a column selection, whose other cells are never read
    /// into values. What a projection saves, counted.
    pub cells: usize,
    /// Error cells (`#N/A`, `#DIV/0!`, ...), which became null.
    pub error_cells: usize,
    /// Values that did not fit their column's type, which became null.
    pub coerced_cells: usize,
    /// Cells in columns the schema does not have (to the right of every
    /// sampled column, say), and second cells for one column in one row,
    /// which were left out.
    pub dropped_cells: usize,
    /// The first of them ([`MAX_ISSUES_PER_BATCH`] unless
    /// [`ArrowOptions::issues_per_batch`] says otherwise), described.
    pub issues: Vec<CellIssue>,
    // Hand-made sheets (issue 26).
    /// Hidden rows left out ([`ArrowOptions::skip_hidden_rows`]) while
    /// this batch was read (the first batch: also those above it).
    pub hidden_rows_skipped: usize,
    /// The 0-based sheet row the header was taken from (the last row of a
    /// header of several rows); None without a header row.
    pub header_row: Option<u32>,
}

impl BatchReport {
    /// Whether every cell arrived as a value.
    pub fn is_clean(&self) -> bool {
        self.error_cells == 0 && self.coerced_cells == 0 && self.dropped_cells == 0
    }
}

/// One cell that did not arrive as a value.
#[derive(Debug, Clone, PartialEq)]
pub struct CellIssue {
    /// 0-based row index.
    pub row: u32,
    /// 0-based column index in the sheet.
    pub column: u32,
    /// The output column's name (empty when the schema has no such column).
    pub column_name: String,
    /// What happened.
    pub kind: IssueKind,
}

/// What happened to a [`CellIssue`]'s cell.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum IssueKind {
    /// An error cell, with its code.
    ErrorValue(String),
    /// The value (as the CSV writer writes it) does not fit the column type.
    DoesNotFit {
        /// The value as text.
        value: String,
        /// The column's type.
        column_type: ColumnType,
    },
    /// The row already had a cell in this column (a malformed sheet); the
    /// first one is in the table.
    Repeated {
        /// The value as text.
        value: String,
    },
    /// The cell's column is not in the schema.
    OutsideSchema {
        /// The value as text.
        value: String,
    },
}

impl std::fmt::Display for IssueKind {
    /// In words: `error value #DIV/0!`, `` `abc` did not fit int64 ``,
    /// `` a second value `3` for the column ``, `` `x` outside the columns ``.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IssueKind::ErrorValue(code) => write!(f, "error value {code}"),
            IssueKind::DoesNotFit { value, column_type } => {
                write!(f, "`{value}` did not fit {column_type}")
            }
            IssueKind::Repeated { value } => write!(f, "a second value `{value}` for the column"),
            IssueKind::OutsideSchema { value } => write!(f, "`{value}` outside the columns"),
        }
    }
}

impl std::fmt::Display for CellIssue {
    /// `cell B7 (column `Amount`): `abc` did not fit int64`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cell = crate::CellRef {
            row: self.row,
            column: self.column,
        };
        if self.column_name.is_empty() {
            write!(f, "cell {cell}: {}", self.kind)
        } else {
            write!(
                f,
                "cell {cell} (column `{}`): {}",
                self.column_name, self.kind
            )
        }
    }
}

/// What [`BatchBuilder::offer`] did with a row.
enum Offer {
    Taken,
    /// The batch is full: offer the row again after taking the batch.
    Full,
    /// `n_rows` rows were produced: stop reading.
    Stop,
}

/// The column builders of the batch being filled, and where its rows go.
struct BatchBuilder {
    schema: SchemaRef,
    names: Vec<String>,
    types: Vec<ColumnType>,
    builders: Vec<ColumnBuilder>,
    /// Rows the builders are to make room for when the next batch's first
    /// row comes ([`BatchBuilder::make_room`]); 0 once they have it. A
    /// taken batch leaves empty builders behind, so an owned reader's
    /// worker thread, blocked handing a batch over, holds no room for the
    /// next one (`SheetBatchReader`: at most three batches at once).
    room: usize,
    /// For each builder, the text bytes to make room for (the text of the
    /// batch taken last; Utf8 columns only).
    text_room: Vec<usize>,
    /// The output columns that hold values (not of type Null): the ones
    /// the rows a sheet skips append nulls to.
    valued: Vec<usize>,
    /// The Utf8 output columns, whose text size can cut a batch.
    text_slots: Vec<usize>,
    /// For each sheet column up to the last one read, its output column
    /// (`u32::MAX`: none); a column read twice has its others in `extra_slots`.
    slot_of: Vec<u32>,
    extra_slots: Vec<(u32, usize)>,
    /// Whether `slot_of` maps each sheet column to the output column of
    /// the same index, one for each builder (no lookup per cell).
    same_slots: bool,
    /// For each output column, the `row_mark` of the row its next entry
    /// is for (a stamp: nothing is cleared per row): the current row's
    /// mark when it is free, the next row's once the row filled it. A
    /// column whose mark is below the current row's owes nulls for the
    /// rows since its last value, which had none in it: as many as it is
    /// shorter than the batch, appended in one run ([`pay_nulls`]) when
    /// its next value comes or the batch is taken; nothing is done for a
    /// missing value as its row ends.
    filled: Vec<u32>,
    /// The current row's mark in `filled`: counts up by one a row (the
    /// rows a sheet skips have their nulls appended at once), from 1
    /// again (every column's nulls paid) before it would wrap.
    row_mark: u32,
    constants: Vec<String>,
    batch_size: usize,
    n_rows: Option<u64>,
    produced: u64,
    /// The next row index the table expects; rows skipped over are nulls.
    next_index: u32,
    rows_in_batch: usize,
    null_values: HashSet<String>,
    on_mismatch: OnMismatch,
    on_error_value: OnErrorValue,
    /// Output columns whose type inference gave (not an override), which
    /// a misfit may widen.
    widenable: Vec<bool>,
    /// The value that did not fit, when `offer` failed on one: the sheet's
    /// reader makes the error (reading on to widen the column, or naming
    /// the options that would take the value).
    misfit: Option<Misfit>,
    report: BatchReport,
    issues_per_batch: usize,
    scratch: String,
    // Hand-made sheets (issue 26).
    drop_empty_rows: bool,
    stop_at_empty_row: bool,
    /// Rows of a gap that are hidden, not empty (when skipping them).
    hidden: Option<HiddenRows>,
}

impl BatchBuilder {
    /// Offers one row; `cells` yields (sheet column, value).
    fn offer<'v>(
        &mut self,
        index: u32,
        cells: impl Iterator<Item = (u32, Value<'v>)>,
    ) -> Result<Offer> {
        if let Some(offer) = self.begin_row(index) {
            return Ok(offer);
        }
        let read_twice = !self.extra_slots.is_empty();
        for (column, value) in cells {
            self.report.cells += 1;
            self.put_cell(index, column, value, read_twice)?;
        }
        self.finish_row();
        self.next_index = index.saturating_add(1);
        Ok(Offer::Taken)
    }

    /// [`BatchBuilder::offer`] of a row reader's row: the runs of cells
    /// that are common fits ([`append_common_run`]) appended in a tight
    /// loop, each other cell as `offer` takes it.
    fn offer_cells(&mut self, index: u32, cells: &[Cell<'_>]) -> Result<Offer> {
        if !self.extra_slots.is_empty() {
            let cells = cells.iter().map(|cell| (cell.column(), cell.value()));
            return self.offer(index, cells);
        }
        if let Some(offer) = self.begin_row(index) {
            return Ok(offer);
        }
        self.report.cells += cells.len();
        // Decided once a row, not per cell: whether text can be read as
        // null (then text takes `put`'s way).
        let plain_text = self.null_values.is_empty();
        let append_run = if self.same_slots {
            append_common_run::<true>
        } else {
            append_common_run::<false>
        };
        let mut rest = cells;
        loop {
            let run = append_run(
                &mut self.builders,
                &mut self.filled,
                self.row_mark,
                &self.slot_of,
                rest,
                plain_text,
            );
            let Some((cell, after)) = rest.get(run..).and_then(<[Cell<'_>]>::split_first) else {
                break;
            };
            // A column that owes nulls has them appended, and the cell
            // tries the common fits again.
            if self.paid_nulls(cell.column()) {
                rest = &rest[run..];
                continue;
            }
            self.put_cell(index, cell.column(), cell.value(), false)?;
            rest = after;
        }
        self.finish_row();
        self.next_index = index.saturating_add(1);
        Ok(Offer::Taken)
    }

    /// One cell of a row into its output column (or columns, when
    /// `read_twice`), or left out of the columns.
    #[inline]
    fn put_cell(
        &mut self,
        index: u32,
        column: u32,
        value: Value<'_>,
        read_twice: bool,
    ) -> Result<()> {
        let slot = self
            .slot_of
            .get(column as usize)
            .copied()
            .unwrap_or(u32::MAX);
        // A cell outside the columns (a selection's cells never are:
        // the row reader hands out no others).
        if slot == u32::MAX {
            return self.outside(index, column, value);
        }
        self.put(slot as usize, index, column, value)?;
        if read_twice {
            self.put_extra(index, column, value)?;
        }
        Ok(())
    }

    /// What comes before a row's cells: the builders' room, the rows the
    /// sheet skipped (nulls), and whether the row is taken at all (None)
    /// or the batch is full or the rows are done. Inlined into the row
    /// loop; the room and the skipped rows are out of line in
    /// [`BatchBuilder::before_row`] (the call was about 20 instructions
    /// of the 110 a row this took on the Sales Records `.xlsb`).
    #[inline(always)]
    fn begin_row(&mut self, index: u32) -> Option<Offer> {
        if (self.room != 0 || self.next_index < index)
            && let Some(offer) = self.before_row(index)
        {
            return Some(offer);
        }
        if self.n_rows.is_some_and(|n| self.produced >= n) {
            return Some(Offer::Stop);
        }
        if self.rows_in_batch >= self.batch_size || self.text_full() {
            return Some(Offer::Full);
        }
        self.start_row(index);
        None
    }

    /// [`BatchBuilder::begin_row`]'s rare part: the builders' room for a
    /// new batch and the rows the sheet skipped before row `index`; Some
    /// when the row is not to be taken.
    #[inline(never)]
    fn before_row(&mut self, index: u32) -> Option<Offer> {
        if self.room != 0 {
            self.make_room();
        }
        if self.next_index < index
            && (self.hidden.is_some() || self.drop_empty_rows || self.stop_at_empty_row)
        {
            self.gap(index);
            if self.stop_at_empty_row && self.next_index < index {
                return Some(Offer::Stop);
            }
        }
        // Rows the sheet skips: nulls, appended in bulk (nothing at all
        // for the Null columns).
        while self.next_index < index {
            if let Some(hidden) = &self.hidden
                && hidden.contains_gap_row(self.next_index)
            {
                self.next_index += 1;
                continue;
            }
            let left = self
                .n_rows
                .map_or(u64::MAX, |n| n.saturating_sub(self.produced));
            if left == 0 {
                return Some(Offer::Stop);
            }
            let room = self.batch_size.saturating_sub(self.rows_in_batch);
            if room == 0 {
                return Some(Offer::Full);
            }
            let gap_end = (self.hidden.as_ref())
                .and_then(|hidden| hidden.next_in(self.next_index, index))
                .unwrap_or(index);
            let gap = (gap_end - self.next_index) as usize;
            let n = gap
                .min(room)
                .min(usize::try_from(left).unwrap_or(usize::MAX));
            let row = self.next_index;
            if self.rows_in_batch == 0 {
                self.report.first_row = row;
            }
            for &slot in &self.valued {
                self.builders[slot].append_nulls(n);
            }
            self.rows_in_batch += n;
            self.produced += n as u64;
            self.next_index += n as u32;
        }
        None
    }

    /// A gap before row `index` (issue 26): passed at once when every row
    /// of it is hidden or empty rows are dropped; otherwise left for the
    /// null rows (or, with `stop_at_empty_row`, the end of the table).
    #[cold]
    fn gap(&mut self, index: u32) {
        let hidden = (self.hidden.as_ref()).map_or(0, |h| h.count_in(self.next_index, index));
        if self.drop_empty_rows || index - self.next_index == hidden {
            self.next_index = index;
        }
    }

    /// A cell of a column selected more than once, into its other output
    /// columns.
    #[inline(never)]
    fn put_extra(&mut self, row: u32, column: u32, value: Value<'_>) -> Result<()> {
        for at in 0..self.extra_slots.len() {
            let (extra_column, extra_slot) = self.extra_slots[at];
            if extra_column == column {
                self.put(extra_slot, row, column, value)?;
            }
        }
        Ok(())
    }

    /// Gives the builders of a new batch their room (see
    /// [`ColumnBuilder::renewed`]): as many rows as the batch before, and
    /// as much text.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self) {
        let rows = std::mem::take(&mut self.room);
        for (builder, &text) in self.builders.iter_mut().zip(&self.text_room) {
            *builder = builder.renewed(rows, text);
        }
    }

    /// Sets the rows per batch and the room of the first batch's builders.
    fn set_batch_size(&mut self, rows: usize) {
        self.batch_size = rows.max(1);
        self.room = self.batch_size.min(1 << 16);
        for (text, ty) in self.text_room.iter_mut().zip(&self.types) {
            *text = if *ty == ColumnType::Utf8 {
                self.room * 8
            } else {
                0
            };
        }
    }

    fn text_full(&self) -> bool {
        self.text_slots
            .iter()
            .any(|&slot| self.builders[slot].text_bytes() > MAX_BATCH_TEXT_BYTES)
    }

    fn start_row(&mut self, index: u32) {
        if self.rows_in_batch == 0 {
            self.report.first_row = index;
        }
        // A mark up to one past the row's.
        if self.row_mark >= u32::MAX - 1 {
            self.restart_marks();
        }
        self.row_mark += 1;
    }

    /// Every column's owed nulls paid and the row marks started again
    /// (after 4,294,967,294 rows).
    #[cold]
    #[inline(never)]
    fn restart_marks(&mut self) {
        self.pay_all_nulls();
        self.filled.fill(1);
        self.row_mark = 0;
    }

    /// The nulls every column owes, paid (see [`BatchBuilder::filled`]):
    /// each column free for the next row.
    fn pay_all_nulls(&mut self) {
        let rows = self.rows_in_batch;
        for (builder, mark) in self.builders.iter_mut().zip(&mut self.filled) {
            pay_nulls(builder, rows);
            *mark = self.row_mark + 1;
        }
    }

    /// Whether the output column of sheet column `column` owed nulls (see
    /// [`BatchBuilder::filled`]), now appended.
    #[inline]
    fn paid_nulls(&mut self, column: u32) -> bool {
        let slot = self
            .slot_of
            .get(column as usize)
            .map_or(usize::MAX, |&slot| slot as usize);
        match self.filled.get_mut(slot) {
            Some(mark) if *mark < self.row_mark => {
                *mark = self.row_mark;
                pay_nulls(&mut self.builders[slot], self.rows_in_batch);
                true
            }
            _ => false,
        }
    }

    /// The row's end: the columns it had no value for owe a null each,
    /// which their lengths tell (see [`BatchBuilder::filled`]).
    fn finish_row(&mut self) {
        self.rows_in_batch += 1;
        self.produced += 1;
    }

    /// One cell into its output column. The common case (first value of
    /// its column in the row, one that fits) is inlined into the row loop;
    /// the rest is out of line in [`BatchBuilder::repeated`] and
    /// [`BatchBuilder::refused`] (per-cell call overhead was measured: the
    /// prologues and epilogues of `put` and `append` were about a fifth of
    /// what the Arrow path adds to the row stream, in callgrind). Always:
    /// with `#[inline]` alone the compiler had left `put`, then `append`,
    /// out of line again (an `arrow -t 1` of the Spark bench's 125,000 x 10
    /// book: 1,276.8 -> 1,249.8 million instructions, callgrind).
    #[inline(always)]
    fn put(&mut self, slot: usize, row: u32, column: u32, value: Value<'_>) -> Result<()> {
        let mark = self.filled[slot];
        if mark > self.row_mark {
            return self.repeated(slot, row, column, value);
        }
        if mark < self.row_mark {
            pay_nulls(&mut self.builders[slot], self.rows_in_batch);
        }
        self.filled[slot] = self.row_mark + 1;
        if let Value::Text(text) = value
            && !self.null_values.is_empty()
            && self.null_values.contains(text)
        {
            self.builders[slot].append_null();
            return Ok(());
        }
        match self.builders[slot].append(value, &mut self.scratch) {
            Ok(()) => Ok(()),
            Err(refusal) => self.refused(slot, row, column, value, refusal),
        }
    }

    /// A second cell for the same column in one row: the first wins.
    #[cold]
    #[inline(never)]
    fn repeated(&mut self, slot: usize, row: u32, column: u32, value: Value<'_>) -> Result<()> {
        self.report.dropped_cells += 1;
        let text = value_text(value);
        if self.on_mismatch == OnMismatch::Strict {
            let message = format!(
                "a second value `{text}` for column `{}` in one row",
                self.names[slot]
            );
            return Err(self.locate(Error::conversion(message), row, column));
        }
        let name = self.names[slot].clone();
        self.describe(row, column, name, IssueKind::Repeated { value: text });
        Ok(())
    }

    /// A value its column refused: an error cell (null, or its code in a
    /// text column; counted, described, or the error under
    /// [`OnErrorValue::Strict`]), or a misfit (null and counted under
    /// [`OnMismatch::Null`], otherwise the read stops on it).
    #[cold]
    #[inline(never)]
    fn refused(
        &mut self,
        slot: usize,
        row: u32,
        column: u32,
        value: Value<'_>,
        refusal: Refusal,
    ) -> Result<()> {
        let name = &self.names[slot];
        let column_type = self.types[slot];
        let kind = match refusal {
            Refusal::ErrorValue => {
                self.report.error_cells += 1;
                if !self.builders[slot].append_code(value) {
                    self.builders[slot].append_null();
                }
                let code = value_text(value);
                if self.on_error_value == OnErrorValue::Strict {
                    let message = format!(
                        "error value {code} in column `{name}` ({column_type}); on_error_value=\"null\" (CLI --on-error-value null) reads it as null"
                    );
                    return Err(self.locate(Error::conversion(message), row, column));
                }
                IssueKind::ErrorValue(code)
            }
            Refusal::DoesNotFit if self.on_mismatch == OnMismatch::Null => {
                self.builders[slot].append_null();
                self.report.coerced_cells += 1;
                IssueKind::DoesNotFit {
                    value: value_text(value),
                    column_type,
                }
            }
            Refusal::DoesNotFit => return Err(self.misfit(Some(slot), row, column, value)),
        };
        let name = name.clone();
        self.describe(row, column, name, kind);
        Ok(())
    }

    /// Stops on a value that does not fit (`slot`: its output column;
    /// None: the schema has none for it).
    fn misfit(&mut self, slot: Option<usize>, row: u32, column: u32, value: Value<'_>) -> Error {
        self.misfit = Some(Misfit {
            slot,
            row,
            column,
            value: value_text(value),
            position: self.produced,
        });
        Error::conversion("a value does not fit its column")
    }

    fn outside(&mut self, row: u32, column: u32, value: Value<'_>) -> Result<()> {
        if self.on_mismatch != OnMismatch::Null {
            return Err(self.misfit(None, row, column, value));
        }
        self.report.dropped_cells += 1;
        let text = value_text(value);
        self.describe(
            row,
            column,
            String::new(),
            IssueKind::OutsideSchema { value: text },
        );
        Ok(())
    }

    fn describe(&mut self, row: u32, column: u32, column_name: String, kind: IssueKind) {
        if self.report.issues.len() < self.issues_per_batch {
            self.report.issues.push(CellIssue {
                row,
                column,
                column_name,
                kind,
            });
        }
    }

    fn locate(&self, err: Error, row: u32, column: u32) -> Error {
        let err = err.with_sheet(&self.report.sheet).with_row(row + 1);
        err.with_column(column + 1)
    }

    /// Takes the batch built so far (None when it has no rows) and its report.
    fn take(&mut self) -> Result<Option<(RecordBatch, BatchReport)>> {
        if self.rows_in_batch == 0 {
            return Ok(None);
        }
        let rows = self.rows_in_batch;
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.schema.fields().len());
        for constant in &self.constants {
            let values: StringArray = std::iter::repeat_n(Some(constant.as_str()), rows).collect();
            columns.push(Arc::new(values));
        }
        // Each builder is finished and replaced by an empty one, given
        // room for as many rows and as much text as this batch when the
        // next batch's first row comes (`make_room`).
        self.room = rows.min(self.batch_size.min(1 << 16));
        self.pay_all_nulls();
        for (builder, text) in self.builders.iter_mut().zip(&mut self.text_room) {
            *text = builder.text_bytes();
            let empty = builder.renewed(0, 0);
            columns.push(std::mem::replace(builder, empty).finish(rows));
        }
        let batch = RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|err| {
            Error::conversion(format!("cannot assemble a record batch: {err}"))
                .with_sheet(&self.report.sheet)
        })?;
        self.rows_in_batch = 0;
        let mut report = BatchReport {
            sheet: self.report.sheet.clone(),
            file: self.report.file.clone(),
            header_row: self.report.header_row,
            ..BatchReport::default()
        };
        std::mem::swap(&mut report, &mut self.report);
        report.rows = rows;
        Ok(Some((batch, report)))
    }
}

/// Appends the nulls `builder` owes (see [`BatchBuilder::filled`]): as
/// many as it is shorter than `rows`, the rows of the batch before the
/// current one.
#[inline(never)]
fn pay_nulls(builder: &mut ColumnBuilder, rows: usize) {
    let owed = rows.checked_sub(builder.len());
    debug_assert!(owed.is_some(), "a column longer than its batch");
    builder.append_nulls(owed.unwrap_or(0));
}

/// Appends the leading cells of `cells` that are each the first value of
/// their column in the row and one of [`ColumnBuilder::append_common`]'s
/// common fits, marking their columns filled (`row_mark`: the row's mark,
/// see [`BatchBuilder::filled`]); returns how many. The first cell it
/// stops at (outside the columns, a second value, a column that owes
/// nulls, a value of another type, an error, text that may be null when
/// `plain_text` is false) has had nothing done and takes the general way.
///
/// Out of line and over slices, so that the per-cell loop keeps its
/// state in registers: a slot lookup (none when `SAME_SLOTS`: the sheet
/// column is the output column), a mark, a type check and an append.
#[inline(never)]
fn append_common_run<const SAME_SLOTS: bool>(
    builders: &mut [ColumnBuilder],
    filled: &mut [u32],
    row_mark: u32,
    slot_of: &[u32],
    cells: &[Cell<'_>],
    plain_text: bool,
) -> usize {
    let filled = &mut filled[..builders.len()];
    // The cells left, and none other, counted: one register fewer in the
    // loop than an index beside the iterator (spilled marks otherwise).
    let mut rest = cells.iter();
    while let Some(cell) = rest.next() {
        let slot = if SAME_SLOTS {
            cell.column() as usize
        } else {
            // `u32::MAX` (no output column) is past every builder.
            slot_of
                .get(cell.column() as usize)
                .map_or(usize::MAX, |&slot| slot as usize)
        };
        let taken = match (builders.get_mut(slot), filled.get_mut(slot)) {
            // Past the row's mark: a second value; below it: nulls owed.
            (Some(builder), Some(mark)) if *mark == row_mark => builder
                .append_common(cell.value(), plain_text)
                .then_some(mark),
            _ => None,
        };
        let Some(mark) = taken else {
            return cells.len() - rest.len() - 1;
        };
        *mark = row_mark + 1;
    }
    cells.len()
}

/// The schema of a sheet's batches: the file and sheet columns the
/// options ask for (text, never null), then `columns`.
pub(crate) fn batch_schema<'a>(
    options: &ArrowOptions,
    columns: impl Iterator<Item = (&'a str, ColumnType)>,
) -> SchemaRef {
    let constant = |name: &String| Field::new(name, arrow_schema::DataType::Utf8, false);
    let fields: Vec<Field> = (options.file_column.iter().map(constant))
        .chain(options.sheet_column.iter().map(constant))
        .chain(columns.map(|(name, ty)| Field::new(name, ty.data_type(), true)))
        .collect();
    Arc::new(Schema::new(fields))
}

/// The error of a reader's `set_batch_size` once its batches have started.
pub(crate) fn batches_started() -> Error {
    Error::conversion("the batch size cannot change once the batches have started")
}

/// A value as text for a message or report, cut at 200 bytes.
fn value_text(value: Value<'_>) -> String {
    let mut text = String::new();
    write_text(&mut text, value);
    if text.len() > 200 {
        let mut end = 200;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// Where a sheet's batches come from, and what to call it.
pub(crate) struct SheetSource<'w> {
    pub rows: SheetRows<'w>,
    pub formats: Vec<FormatKind>,
    pub sheet: String,
    pub file: Option<String>,
    /// What the sheet's metadata changes about its rows (issue 26).
    pub shape: Option<SheetShape>,
}

/// The record batches of one sheet, read on the calling thread: an Arrow
/// [`RecordBatchReader`] that borrows its workbook. Get one from
/// [`ArrowOptions::read_sheet`]; [`ArrowOptions::sheet_reader`] gives an
/// owned one for other threads.
///
/// ```
/// use sheetstream::arrow::{ArrowOptions, arrow_array::Array};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// let mut batches = ArrowOptions::new().read_sheet(&mut workbook, "Data")?;
/// let schema = batches.schema();
/// assert_eq!(schema.field(0).name(), "Item");
/// while let Some(batch) = batches.next_batch()? {
///     assert_eq!(batch.num_rows(), 3);
///     assert!(batches.report().is_clean());
/// }
/// # Ok(())
/// # }
/// ```
pub struct SheetBatches<'w> {
    rows: SheetRows<'w>,
    builder: BatchBuilder,
    /// The sample rows (replayed first), then a row that did not fit into
    /// the batch it arrived in.
    pending: Sampled,
    formats: Vec<FormatKind>,
    report: BatchReport,
    finished: bool,
    /// With [`ArrowOptions::keep_rows_before_error`]: an error met while a
    /// batch had rows, returned after that batch.
    keep_rows_before_error: bool,
    held_error: Option<Error>,
    // Hand-made sheets (issue 26).
    shape: Option<SheetShape>,
    /// The table ended within the rows the prelude read.
    ended: bool,
    /// What a misfit needs: the header, the samples (read on through the
    /// sheet to widen), the sheet's own columns and the options.
    widening: Widening,
}

impl<'w> SheetBatches<'w> {
    /// Reads the header and the sample, infers the schema, and sets up the
    /// builders. `target`: the names and types of a unioned schema the
    /// batches must have instead of the sheet's own, and that schema (with
    /// the file and sheet columns the options ask for), shared. `known`:
    /// the sheet's columns as a read before found them (otherwise those of
    /// [`ArrowOptions::widened_by`], or the sample's).
    pub(crate) fn open(
        source: SheetSource<'w>,
        options: &ArrowOptions,
        target: Option<(&[(String, ColumnType)], &SchemaRef)>,
        known: Option<&SheetColumns>,
    ) -> Result<SheetBatches<'w>> {
        let mut source = source;
        let windowed = options.for_sheet(&mut source)?;
        let options = &*windowed;
        let SheetSource {
            mut rows,
            formats,
            sheet,
            file,
            mut shape,
        } = source;
        let known = known.or_else(|| options.widened_columns(file.as_deref(), &sheet));
        debug_assert!(
            known.is_some() || !options.samples_every_row(),
            "a read of every row's types starts from the columns of a first pass"
        );
        let Prelude {
            header,
            held: mut pending,
            samples,
            next_index,
            columns,
            ended,
            header_row,
            hidden_skipped,
        } = match shape.as_mut() {
            Some(shape) => {
                read_shaped_prelude(&mut rows, shape, &formats, options, &sheet, known, true)?
            }
            None => read_prelude(&mut rows, &formats, options, &sheet, known, true)?,
        };
        let given = |name: &str| options.dtypes.iter().any(|(own, _)| own == name);
        let outputs: Vec<(String, Option<u32>, ColumnType)> = match target {
            None => {
                let types = resolve_types(&columns, options, &sheet)?;
                columns
                    .names
                    .iter()
                    .zip(&columns.sources)
                    .zip(types)
                    .map(|((name, &source), ty)| (name.clone(), Some(source), ty))
                    .collect()
            }
            Some((target, _)) => {
                // The sheet's own names are unique: a map, not a search per
                // column (a sheet can have 16,384).
                let own: HashMap<&str, u32> = columns
                    .names
                    .iter()
                    .map(String::as_str)
                    .zip(columns.sources.iter().copied())
                    .collect();
                target
                    .iter()
                    .map(|(name, ty)| (name.clone(), own.get(name.as_str()).copied(), *ty))
                    .collect()
            }
        };
        let outputs = match (&options.output_columns, target) {
            (Some(wanted), None) => {
                let chosen = project(&outputs, wanted).map_err(|err| err.with_sheet(&sheet))?;
                // Past the sample, the other columns' cells are dropped
                // before they are read into values; the held sample rows
                // lose theirs.
                let selected: ColumnSet =
                    chosen.iter().filter_map(|(_, source, _)| *source).collect();
                match shape.as_mut() {
                    Some(shape) if shape.takes_selection() => shape.select(Some(selected.clone())),
                    _ => rows.select_columns(Some(selected.clone())),
                }
                pending.retain_columns(&selected);
                chosen
            }
            (Some(_), Some(_)) => {
                // The reader of many sheets made the united columns the
                // projection's: the row reader drops the others' cells.
                let selected: ColumnSet = outputs
                    .iter()
                    .filter_map(|(_, source, _)| *source)
                    .collect();
                rows.select_columns(Some(selected.clone()));
                pending.retain_columns(&selected);
                outputs
            }
            (None, _) => outputs,
        };
        let batch_size = options.get_batch_size();
        // The file and sheet columns' values, in the schema's order.
        let constants: Vec<String> = (options.file_column.iter())
            .map(|_| file.clone().unwrap_or_default())
            .chain(options.sheet_column.iter().map(|_| sheet.clone()))
            .collect();
        let schema = match target {
            Some((_, schema)) => Arc::clone(schema),
            None => batch_schema(
                options,
                outputs.iter().map(|(name, _, ty)| (name.as_str(), *ty)),
            ),
        };
        let mut slot_of = Vec::new();
        let mut extra_slots = Vec::new();
        for (slot, (_, source, _)) in outputs.iter().enumerate() {
            let Some(source) = *source else { continue };
            let at = source as usize;
            if slot_of.len() <= at {
                slot_of.resize(at + 1, u32::MAX);
            }
            if slot_of[at] == u32::MAX {
                slot_of[at] = slot as u32;
            } else {
                extra_slots.push((source, slot));
            }
        }
        let same_slots = slot_of.len() == outputs.len()
            && (slot_of.iter().enumerate()).all(|(at, &slot)| slot as usize == at);
        let mut builder = BatchBuilder {
            schema,
            names: outputs.iter().map(|(name, _, _)| name.clone()).collect(),
            types: outputs.iter().map(|&(_, _, ty)| ty).collect(),
            builders: outputs
                .iter()
                .map(|&(_, _, ty)| ColumnBuilder::new(ty, 0))
                .collect(),
            room: 0,
            text_room: vec![0; outputs.len()],
            valued: (0..outputs.len())
                .filter(|&slot| outputs[slot].2 != ColumnType::Null)
                .collect(),
            text_slots: (0..outputs.len())
                .filter(|&slot| outputs[slot].2 == ColumnType::Utf8)
                .collect(),
            same_slots,
            slot_of,
            extra_slots,
            filled: vec![1; outputs.len()],
            row_mark: 0,
            constants,
            batch_size,
            n_rows: options.n_rows,
            produced: 0,
            next_index,
            rows_in_batch: 0,
            null_values: options.null_values.iter().cloned().collect(),
            on_mismatch: options.on_mismatch,
            on_error_value: options.on_error_value,
            widenable: outputs.iter().map(|(name, _, _)| !given(name)).collect(),
            misfit: None,
            report: BatchReport {
                sheet: sheet.clone(),
                file: file.clone(),
                header_row,
                hidden_rows_skipped: hidden_skipped,
                ..BatchReport::default()
            },
            issues_per_batch: options.issues_per_batch,
            scratch: String::new(),
            drop_empty_rows: options.drop_empty_rows,
            stop_at_empty_row: options.stop_at_empty_row,
            hidden: shape.as_ref().and_then(|shape| shape.hidden_rows.clone()),
        };
        builder.set_batch_size(batch_size);
        let widening = Widening {
            header,
            samples,
            columns,
            sources: outputs.iter().map(|(_, source, _)| *source).collect(),
            united: target.is_some(),
            known: known.is_some(),
            options: options.clone(),
            dropped: ColumnsDropped {
                empty: options.drop_empty_cols,
                hidden: shape.as_ref().and_then(SheetShape::hidden_column_set),
            },
        };
        Ok(SheetBatches {
            rows,
            builder,
            pending,
            formats,
            report: BatchReport {
                sheet,
                file,
                ..BatchReport::default()
            },
            finished: false,
            keep_rows_before_error: options.keep_rows_before_error,
            held_error: None,
            shape,
            ended,
            widening,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.builder.schema)
    }

    /// The next batch, or None after the last. Batches have the configured
    /// number of rows but the last (and one cut early for holding over
    /// 1 GiB of text in a column).
    ///
    /// # Errors
    ///
    /// What [`SheetRows::next_row`] reports, and in strict mode an
    /// [`ErrorKind::Conversion`] naming the sheet, row, column and value.
    /// After an error there are no more batches.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        match self.next_batch_with_report() {
            Ok(Some((batch, report))) => {
                self.report = report;
                Ok(Some(batch))
            }
            Ok(None) => Ok(None),
            Err(err) => {
                self.finished = true;
                Err(err)
            }
        }
    }

    /// The report of the batch [`SheetBatches::next_batch`] returned last.
    pub fn report(&self) -> &BatchReport {
        &self.report
    }

    /// Sets the rows per batch; before the first batch (the owned readers
    /// call it when their consumer asks).
    pub(crate) fn set_batch_size(&mut self, rows: usize) {
        self.builder.set_batch_size(rows);
    }

    pub(crate) fn next_batch_with_report(&mut self) -> Result<Option<(RecordBatch, BatchReport)>> {
        if let Some(err) = self.held_error.take() {
            self.finished = true;
            return Err(err);
        }
        if self.finished {
            return Ok(None);
        }
        loop {
            // Rows held over first: the sample, or a row that found its batch full.
            while self.pending.replayed < self.pending.rows.len() {
                let (index, range) = self.pending.rows[self.pending.replayed].clone();
                let pending = &self.pending;
                let cells = pending.cells[range.clone()]
                    .iter()
                    .map(|cell| (cell.column, pending.value(cell)));
                let offered = self.builder.offer(index, cells);
                if offered.is_err()
                    && let Some(misfit) = self.builder.misfit.take()
                {
                    // The held row's cells count towards the widened types.
                    for cell in &self.pending.cells[range] {
                        let value = self.pending.value(cell);
                        self.widening.samples.add(cell.column, value, cell.format);
                    }
                    return Err(self.misfit_error(misfit));
                }
                match offered? {
                    Offer::Taken => self.pending.replayed += 1,
                    Offer::Full => return self.builder.take(),
                    Offer::Stop => return self.finish(),
                }
            }
            if !self.pending.rows.is_empty() {
                self.pending.clear();
            }
            if self.ended {
                return self.finish();
            }
            if self
                .builder
                .n_rows
                .is_some_and(|n| self.builder.produced >= n)
            {
                return self.finish();
            }
            let row = match self.rows.next_row() {
                Ok(Some(row)) => row,
                Ok(None) => return self.finish(),
                Err(err) if self.keep_rows_before_error && self.builder.rows_in_batch > 0 => {
                    self.held_error = Some(err);
                    return self.builder.take();
                }
                Err(err) => return Err(err),
            };
            let index = row.index();
            if let Some(shape) = &mut self.shape
                && shape.skips_hidden(&row)
            {
                if let Some(hidden) = &mut self.builder.hidden {
                    hidden.note(index);
                }
                if row.holds_values() {
                    self.builder.report.hidden_rows_skipped += 1;
                }
                continue;
            }
            // A row with values only in columns a selection leaves out is
            // a row of the table all the same (of nulls).
            if !row.holds_values() {
                continue;
            }
            if let Some(shape) = &mut self.shape {
                let gap = shape.fill_gap(index, &mut self.pending)?;
                if shape.affects(index) || gap {
                    // Shaped into the held rows, replayed at the loop's top.
                    shape.push_row(&row, &self.formats, &mut self.pending);
                    continue;
                }
            }
            let offered = self.builder.offer_cells(index, row.cells());
            if offered.is_err()
                && let Some(misfit) = self.builder.misfit.take()
            {
                self.widening.samples.add_row(row.cells(), &self.formats);
                return Err(self.misfit_error(misfit));
            }
            match offered? {
                Offer::Taken => {}
                Offer::Full => {
                    self.pending.push_row(index, row.cells(), &self.formats);
                    return self.builder.take();
                }
                Offer::Stop => return self.finish(),
            }
        }
    }

    fn finish(&mut self) -> Result<Option<(RecordBatch, BatchReport)>> {
        self.finished = true;
        self.builder.take()
    }

    /// The error for the value the builder stopped on (its row's cells
    /// already in the samples).
    #[cold]
    fn misfit_error(&mut self, misfit: Misfit) -> Error {
        self.finished = true;
        let column = misfit.slot.map(|slot| MisfitColumn {
            name: &self.builder.names[slot],
            column_type: self.builder.types[slot],
            widenable: self.builder.widenable[slot],
        });
        self.widening.error(
            &misfit,
            column,
            &mut self.rows,
            &self.formats,
            self.report.file.as_deref(),
            &self.report.sheet,
        )
    }

    /// Every batch of the sheet (the whole table in memory, a batch at a
    /// time as it is read), or the first error. A whole-table reader that
    /// widens columns reads again on [`ArrowOptions::widened_by`].
    ///
    /// # Errors
    ///
    /// As [`SheetBatches::next_batch`].
    pub fn collect_batches(mut self) -> Result<Vec<RecordBatch>> {
        let mut batches = Vec::new();
        while let Some(batch) = self.next_batch()? {
            batches.push(batch);
        }
        Ok(batches)
    }
}

impl Iterator for SheetBatches<'_> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch()
            .map_err(|err| ArrowError::ExternalError(Box::new(err)))
            .transpose()
    }
}

impl RecordBatchReader for SheetBatches<'_> {
    fn schema(&self) -> SchemaRef {
        SheetBatches::schema(self)
    }
}

/// The inferred types with the overrides applied; all-empty columns Null.
fn resolve_types(
    columns: &SheetColumns,
    options: &ArrowOptions,
    sheet: &str,
) -> Result<Vec<ColumnType>> {
    let mut types: Vec<ColumnType> = columns
        .inferred
        .iter()
        .map(|ty| ty.unwrap_or(ColumnType::Null))
        .collect();
    apply_overrides(&columns.names, &mut types, options).map_err(|err| err.with_sheet(sheet))?;
    Ok(types)
}

/// The output columns [`ArrowOptions::output_columns`] names, in its order.
fn project(
    outputs: &[(String, Option<u32>, ColumnType)],
    wanted: &[String],
) -> Result<Vec<(String, Option<u32>, ColumnType)>> {
    wanted
        .iter()
        .map(|name| {
            outputs
                .iter()
                .find(|(own, _, _)| own == name)
                .cloned()
                .ok_or_else(|| {
                    let names: Vec<&str> = outputs.iter().map(|(own, _, _)| own.as_str()).collect();
                    Error::new(ErrorKind::ColumnSelection(format!(
                        "an output column `{name}` was asked for, which is not a column; the columns are: {}",
                        names.join(", ")
                    )))
                })
        })
        .collect()
}

/// Applies the `dtype` overrides by name; a name no column has is an error.
pub(crate) fn apply_overrides(
    names: &[String],
    types: &mut [ColumnType],
    options: &ArrowOptions,
) -> Result<()> {
    for (name, ty) in &options.dtypes {
        match names.iter().position(|own| own == name) {
            Some(at) => types[at] = *ty,
            None => {
                return Err(Error::new(ErrorKind::ColumnSelection(format!(
                    "a type override names `{name}`, which is not a column; the columns are: {}",
                    names.join(", ")
                ))));
            }
        }
    }
    Ok(())
}

impl std::fmt::Debug for SheetBatches<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SheetBatches")
            .field("schema", &self.schema())
            .finish_non_exhaustive()
    }
}
