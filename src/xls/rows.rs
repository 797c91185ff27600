//! [`XlsRows`], the row reader of a `.xls` sheet: the sheet's substream
//! read record by record from its BOF, value records resolved into the
//! public row events.
//!
//! A row event is a run of consecutive value records of one row, so cells
//! come out in file order (FORMAT-binary.md: a few writers put a row's
//! cells out of column order, or go back to an earlier row; such a row is
//! handed out again). Memory is the record window and the current row's
//! cells and text in an arena reset per row; nothing is allocated per
//! cell. BLANK and MULBLANK hold no value and are skipped; embedded chart
//! substreams (a nested BOF .. EOF) too. A string value holding fewer
//! characters than its count says (over its CONTINUE records), or a NaN
//! or infinite number, is a damaged record: refused at its offset.
//!
//! A parallel worker reads one block of a sheet with a reader of its own
//! (`super::blocks`); [`XlsRows::stopped`] tells what the block reader
//! needs to decide whether the next block follows on from it.
//!
//! A formula's STRING and a LABEL continued over CONTINUE records are joined
//! in the arena. Without formulas or a column selection, the common records
//! (NUMBER, RK, LABELSST, BOOLERR, a FORMULA's cached value, a LABEL of 8-bit
//! characters, ROW, DBCELL) are read straight from the window
//! (`Records::ready`) with one length check each; anything else or out of the
//! ordinary is read again by the record loop with its errors
//! (benches/results/xlsb.md). With `with_formulas`, `formulas.rs` decompiles
//! each FORMULA's tokens into the arena.

use bumpalo::Bump;
use bumpalo::collections::{String as BumpString, Vec as BumpVec};

use crate::ascii::ascii_str;
use crate::cell::{Cell, MAX_COLUMN, Row, Value};
use crate::columns::ColumnSet;
use crate::contract::RowSource;
use crate::contract::SheetContext;
use crate::error::{Error, ErrorKind, Result};
use crate::formula::Origin;
use crate::formula::error_text;
use crate::limits::Limits;

use super::blocks::DBCELL;
use super::formulas::{ARRAY, Formulas, SHRFMLA, Target};

use super::records::{
    BOF, BOOLERR, Biff, CONTINUE, Chars, EOF, FORMULA, LABEL, LABELSST, MULRK, NUMBER, OLD_BOFS,
    RK, ROW, RSTRING, Records, STRING, TextCodec, WSBOOL, f64_at, finite, rk_number, short_record,
    u16_at, u32_at,
};

/// The most cells with a value one row event holds (as for `.xlsx`).
const MAX_ROW_CELLS: usize = 16_384;

/// The rows of one `.xls` sheet.
pub(crate) struct XlsRows<'a> {
    /// None for a sheet that gives no rows (a chart, macro or dialog sheet).
    records: Option<Records<'a>>,
    arena: Bump,
    context: SheetContext<'a>,
    codec: TextCodec,
    sheet_name: &'a str,
    part: &'a str,
    columns: Option<ColumnSet>,
    /// The columns whose values make a row exist when the selection
    /// leaves them out (a range's or table's columns); all by default.
    window: (u32, u32),
    formulas: bool,
    /// With formulas: the sheet's shared formulas and the decompiler.
    formula_state: Formulas,
    state: SheetState,
    /// An error to give at the first row (opening the sheet failed where
    /// no reader could be returned).
    failure: Option<Error>,
    max_row_bytes: u64,
}

/// Where a reader stopped ([`XlsRows::stopped`]).
pub(crate) struct Stop {
    /// The span ran out (no EOF record).
    pub ran_out: bool,
    /// It ran out inside a nested substream (a BOF without its EOF).
    pub cut_in_substream: bool,
    /// The offset it stopped at.
    pub at: u64,
    /// The lowest and highest row a ROW record or a row event named.
    pub rows_seen: Option<(u32, u32)>,
    /// It ran out with a string waiting for CONTINUE records, or a
    /// formula's string result for its STRING record: the serial reader
    /// would take them from what follows.
    pub open_at_end: bool,
    /// Before its first row with a value it read a CONTINUE or a STRING
    /// record (which the serial reader, going on from the records before,
    /// could take as the rest of a string there).
    pub prefix_attaches: bool,
    /// It stopped at a dialog sheet's WSBOOL, read before any row with a
    /// value (where the serial reader, going on, may be inside a row).
    pub dialog: bool,
}

/// Where the reader is in the substream.
#[derive(Default)]
struct SheetState {
    finished: bool,
    /// The sheet's own BOF says it is a worksheet (a dialog sheet's says
    /// so too, and its WSBOOL record has fDialog).
    worksheet_bof: bool,
    /// Whether the span the sheet must end in ends before the stream does
    /// (reaching it without EOF is then running into the next sheet).
    bounded: bool,
    /// The cells of the last row: the next row's list starts that long
    /// (grown a cell at a time it was copied at every doubling, measured).
    cells_hint: usize,
    /// The rows ROW records mark hidden (fDyZero), one bit a row; made at
    /// the first one (8 KiB: .xls has 65,536 rows). ROW records come in
    /// blocks before their rows' cells; a row without one is not hidden.
    hidden: Option<Box<[u64]>>,
    /// The highest row handed out: a hidden row between it and the next
    /// row with cells is handed out first, empty (as `.xlsx` hands out a
    /// hidden `<row>` without cells), so that the layers skipping hidden
    /// rows tell it from an empty one.
    frontier: Option<u32>,
    /// The span ended without an EOF record where that is no error (a
    /// block of a sheet read by a parallel worker, or a stream that ends).
    ran_out: bool,
    /// The records ran out inside a nested substream (an embedded chart's
    /// BOF without its EOF): a block read in parallel cut there.
    cut_in_substream: bool,
    /// The lowest and highest row that a ROW record or a row event named
    /// (a parallel worker's block must not overlap its neighbours').
    rows_seen: Option<(u32, u32)>,
    /// Some ROW record marked a row hidden since the bitmap was cleared.
    marked: bool,
    /// A row with a value was handed out since the reader (re)started.
    past_prefix: bool,
    /// See [`Stop::open_at_end`].
    open_at_end: bool,
    /// See [`Stop::prefix_attaches`].
    prefix_attaches: bool,
    /// See [`Stop::dialog`].
    dialog: bool,
}

impl SheetState {
    /// A ROW record: its row noted when it is hidden.
    #[inline(never)]
    fn row_record(&mut self, data: &[u8]) {
        if let Ok(row) = u16_at(data, 0) {
            self.seen(u32::from(row));
            if u16_at(data, 12).is_ok_and(|flags| flags & 0x20 != 0) {
                self.mark_hidden(row);
            }
        }
    }

    #[inline]
    fn seen(&mut self, row: u32) {
        self.rows_seen = Some(match self.rows_seen {
            None => (row, row),
            Some((low, high)) => (low.min(row), high.max(row)),
        });
    }

    #[cold]
    fn mark_hidden(&mut self, row: u16) {
        let bits = self
            .hidden
            .get_or_insert_with(|| vec![0u64; 1 << 10].into_boxed_slice());
        bits[usize::from(row >> 6)] |= 1 << (row & 63);
        self.marked = true;
    }

    /// The first hidden row after the frontier and before `row`.
    ///
    /// The search is out of line: inlined, LLVM hoisted its loads of the
    /// frontier and the bitmap to the top of the record loop, 9
    /// instructions a record (measured, callgrind).
    #[inline(always)]
    fn hidden_before(&self, row: u32) -> Option<u32> {
        self.hidden.as_ref()?;
        self.hidden_search(row)
    }

    #[inline(never)]
    fn hidden_search(&self, row: u32) -> Option<u32> {
        let bits = self.hidden.as_ref()?;
        let from = self.frontier.map_or(0, |last| last + 1);
        let to = row.min(1 << 16);
        let mut at = from;
        while at < to {
            let word = bits[at as usize >> 6] >> (at & 63);
            if word != 0 {
                let found = at + word.trailing_zeros();
                return (found < to).then_some(found);
            }
            at = (at | 63) + 1;
        }
        None
    }

    /// The hidden rows after the frontier, in order (those a later row's
    /// first record would hand out).
    fn hidden_after_frontier(&self, out: &mut Vec<u32>) {
        let Some(bits) = self.hidden.as_ref() else {
            return;
        };
        let mut at = self.frontier.map_or(0, |last| last + 1);
        while at < 1 << 16 {
            let word = bits[at as usize >> 6] >> (at & 63);
            if word == 0 {
                at = (at | 63) + 1;
                continue;
            }
            let found = at + word.trailing_zeros();
            out.push(found);
            at = found + 1;
        }
    }

    fn is_hidden(&self, row: u32) -> bool {
        self.hidden.as_ref().is_some_and(|bits| {
            (bits.get(row as usize >> 6)).is_some_and(|word| word & (1 << (row & 63)) != 0)
        })
    }
}

impl<'a> XlsRows<'a> {
    /// A reader over `records`, which start after the sheet's BOF (None:
    /// a sheet without rows).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        records: Option<Records<'a>>,
        worksheet_bof: bool,
        bounded: bool,
        context: SheetContext<'a>,
        codec: TextCodec,
        sheet_name: &'a str,
        part: &'a str,
        limits: &Limits,
    ) -> Self {
        XlsRows {
            records,
            arena: Bump::new(),
            context,
            codec,
            sheet_name,
            part,
            columns: None,
            window: (0, u32::MAX),
            formulas: false,
            formula_state: Formulas::default(),
            state: SheetState {
                worksheet_bof,
                bounded,
                ..SheetState::default()
            },
            failure: None,
            max_row_bytes: limits.max_row_bytes,
        }
    }

    /// Whether the sheet's BOF says it is a worksheet.
    pub(crate) fn worksheet_bof(&self) -> bool {
        self.state.worksheet_bof
    }

    pub(crate) fn set_formulas(&mut self, formulas: bool) {
        self.formulas = formulas;
    }

    pub(crate) fn select_columns(&mut self, columns: Option<ColumnSet>) {
        self.columns = columns;
    }

    // Used by the Arrow layer only.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn set_column_window(&mut self, first: u32, last: u32) {
        self.window = (first, last);
    }

    /// Reads the records from `offset` to `limit` next, as a sheet of its
    /// own but for what the sheet's BOF said (a block of a sheet, for a
    /// parallel worker; see `super::blocks`), keeping the buffers.
    pub(crate) fn restart(&mut self, offset: u64, limit: u64, bounded: bool) -> Result<()> {
        if let Some(records) = self.records.as_mut() {
            records.restart(offset, limit)?;
        }
        let mut hidden = self.state.hidden.take();
        if self.state.marked
            && let Some(bits) = hidden.as_mut()
        {
            bits.fill(0);
        }
        self.state = SheetState {
            worksheet_bof: self.state.worksheet_bof,
            bounded,
            hidden,
            ..SheetState::default()
        };
        self.failure = None;
        Ok(())
    }

    /// Goes on from `offset` to `limit` (the sheet's end) where a parallel
    /// read of the sheet's blocks stopped: `frontier` the last row handed
    /// out, `hidden` the hidden rows after it that the next row's first
    /// record hands out first.
    pub(crate) fn resume(
        &mut self,
        offset: u64,
        limit: u64,
        bounded: bool,
        frontier: Option<u32>,
        hidden: &[u32],
    ) -> Result<()> {
        self.restart(offset, limit, bounded)?;
        self.state.frontier = frontier;
        for &row in hidden {
            if let Ok(row) = u16::try_from(row) {
                self.state.mark_hidden(row);
            }
        }
        Ok(())
    }

    /// Where the reader stopped, once `next_row` gave None or an error;
    /// the hidden rows a later row would hand out go to `pending`.
    pub(crate) fn stopped(&self, pending: &mut Vec<u32>) -> Stop {
        self.state.hidden_after_frontier(pending);
        Stop {
            ran_out: self.state.ran_out,
            cut_in_substream: self.state.cut_in_substream,
            at: self.records.as_ref().map_or(0, Records::offset),
            rows_seen: self.state.rows_seen,
            open_at_end: self.state.open_at_end,
            prefix_attaches: self.state.prefix_attaches,
            dialog: self.state.dialog,
        }
    }

    pub(crate) fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        if self.state.finished {
            return Ok(None);
        }
        if let Some(err) = self.failure.take() {
            self.state.finished = true;
            return Err(err.with_sheet(self.sheet_name).with_part(self.part));
        }
        let Some(records) = self.records.as_mut() else {
            self.state.finished = true;
            return Ok(None);
        };
        self.arena.reset();
        let reader = RowReader {
            arena: &self.arena,
            context: self.context,
            codec: self.codec,
            columns: self.columns.as_ref(),
            window: self.window,
            max_text: self.max_row_bytes,
        };
        let formulas = self.formulas.then_some(&mut self.formula_state);
        match reader.read(records, &mut self.state, formulas) {
            Ok(Some(row)) => Ok(Some(row)),
            Ok(None) => {
                self.state.finished = true;
                Ok(None)
            }
            Err(err) => {
                self.state.finished = true;
                Err(err.with_sheet(self.sheet_name).with_part(self.part))
            }
        }
    }
}

/// What one row is resolved with.
struct RowReader<'r, 'c> {
    arena: &'r Bump,
    context: SheetContext<'r>,
    codec: TextCodec,
    columns: Option<&'c ColumnSet>,
    window: (u32, u32),
    max_text: u64,
}

/// A string value being read over its record and the CONTINUE records
/// after it (a formula's STRING, a LABEL).
struct OpenString<'r> {
    cell: CellAt,
    text: BumpString<'r>,
    chars: Chars,
    /// The characters the string says it holds.
    count: usize,
    /// The offset of the record it starts in (LABEL, RSTRING, STRING),
    /// once known (a record's reader locates its own errors).
    offset: Option<u64>,
    /// A formula's text, for a formula's string result.
    formula: Option<&'r str>,
}

/// What [`RowReader::cell_record`] did with a record.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Not a FORMULA.
    Other,
    /// A FORMULA whose cell was not pushed (not selected, no value, or a
    /// string result the STRING record after it holds).
    Formula,
    /// A FORMULA whose cell is the last one pushed.
    FormulaCell,
}

#[derive(Clone, Copy)]
struct CellAt {
    row: u32,
    column: u32,
    style: u32,
}

impl<'r> RowReader<'r, '_> {
    fn read(
        &self,
        records: &mut Records<'_>,
        state: &mut SheetState,
        mut formulas: Option<&mut Formulas>,
    ) -> Result<Option<Row<'r>>> {
        let mut cells: BumpVec<'r, Cell<'r>> =
            BumpVec::with_capacity_in(state.cells_hint, self.arena);
        let mut row: Option<u32> = None;
        let mut elsewhere = false;
        // A formula whose string result the next STRING record holds.
        let mut formula_string: Option<CellAt> = None;
        // That formula's text, for the STRING record.
        let mut string_formula: Option<&'r str> = None;
        let mut open: Option<OpenString<'r>> = None;
        let mut text_bytes = 0u64;
        // The common cells are read by `plain_cells` where nothing needs
        // more than their record: no formulas, every column, no string
        // waiting for its CONTINUE or STRING record.
        let plain = formulas.is_none() && self.columns.is_none();
        loop {
            if plain
                && open.is_none()
                && formula_string.is_none()
                && self.plain_cells(records, state, &mut row, &mut cells, &mut text_bytes)
            {
                // The next row's first record: left for the next call.
                break;
            }
            let Some(header) = records.peek()? else {
                if state.bounded {
                    return Err(Error::new(ErrorKind::Xls(
                        "the sheet's substream runs into the next sheet's without an EOF record"
                            .into(),
                    ))
                    .with_offset(records.offset()));
                }
                // The stream ends without the sheet's EOF: what was read stands.
                state.finished = true;
                state.ran_out = true;
                state.open_at_end = open.is_some() || formula_string.is_some();
                break;
            };
            if header.kind == CONTINUE {
                if let Some(string) = open.as_mut() {
                    let data = records.data(&header);
                    if let Some(&flags) = data.first() {
                        string.chars.wide = flags & 1 != 0;
                        let mut at = 1;
                        string.chars.take(data, &mut at, &mut string.text);
                        if string.chars.left > 0 && at < data.len() {
                            // Half a UTF-16 character, the string not done.
                            return Err(torn_string(string, Some(header.offset)));
                        }
                    }
                    text_bytes += header.len as u64;
                } else if row.is_none() && !state.past_prefix {
                    state.prefix_attaches = true;
                }
                records.consume(&header);
                continue;
            }
            if let Some(string) = open.take() {
                self.finish_string(string, &mut cells)?;
            }
            let locate = |err: Error| err.with_offset(header.offset);
            match header.kind {
                NUMBER | RK | MULRK | LABELSST | LABEL | RSTRING | BOOLERR | FORMULA => {
                    let data = records.data(&header);
                    let index = u32::from(u16_at(data, 0).map_err(locate)?);
                    if let Some(formulas) = formulas.as_deref_mut() {
                        formulas.settled().map_err(locate)?;
                    }
                    if row.is_some_and(|current| current != index) {
                        // The next row's first record: left for the next call.
                        break;
                    }
                    if row.is_none()
                        && let Some(hidden) = state.hidden_before(index)
                    {
                        // A hidden row without cells before it: handed out
                        // first, this record left for the next call.
                        state.frontier = Some(hidden);
                        return Ok(Some(Row {
                            index: hidden,
                            cells: &[],
                            values_elsewhere: false,
                            hidden: true,
                        }));
                    }
                    row = Some(index);
                    formula_string = None;
                    text_bytes += header.len as u64;
                    if text_bytes.saturating_mul(3) > self.max_text.saturating_add(1 << 20) {
                        return Err(locate(
                            Error::limit("row or string item size", self.max_text)
                                .with_row(index + 1),
                        ));
                    }
                    let outcome = self
                        .cell_record(
                            header.kind,
                            data,
                            index,
                            &mut cells,
                            &mut elsewhere,
                            &mut formula_string,
                            &mut open,
                        )
                        .map_err(|err| locate(err).with_row(index + 1))?;
                    if let Some(string) = open.as_mut() {
                        // A LABEL or RSTRING going on in CONTINUE records.
                        string.offset = Some(header.offset);
                    }
                    if outcome != Outcome::Other
                        && let Some(formulas) = formulas.as_deref_mut()
                    {
                        let column = u32::from(u16_at(data, 2).map_err(locate)?);
                        let origin = Origin { row: index, column };
                        formulas.seen(origin);
                        let target = if formula_string.is_some() {
                            Target::StringResult
                        } else if outcome == Outcome::FormulaCell {
                            Target::Pushed(cells.len() - 1)
                        } else {
                            // Not selected, or no value.
                            records.consume(&header);
                            continue;
                        };
                        let text = formulas
                            .cell(
                                data,
                                origin,
                                target,
                                self.context.links,
                                self.arena,
                                self.codec.biff,
                            )
                            .map_err(|err| {
                                locate(err).with_row(index + 1).with_column(column + 1)
                            })?;
                        set_formula(&mut cells, &mut string_formula, target, text);
                    }
                }
                SHRFMLA | ARRAY if formulas.is_some() => {
                    let data = records.data(&header);
                    let resolved = formulas
                        .as_deref_mut()
                        .expect("matched on is_some")
                        .shared_record(
                            header.kind,
                            data,
                            self.context.links,
                            self.arena,
                            self.max_text.saturating_mul(4),
                        )
                        .map_err(locate)?;
                    if let Some((target, text)) = resolved {
                        set_formula(&mut cells, &mut string_formula, target, Some(text));
                    }
                }
                STRING => {
                    if let Some(cell) = formula_string.take() {
                        let data = records.data(&header);
                        text_bytes += header.len as u64;
                        let mut string = self
                            .start_string(data, 0, cell, Some(header.offset))
                            .map_err(|err| {
                                locate(err)
                                    .with_row(cell.row + 1)
                                    .with_column(cell.column + 1)
                            })?;
                        string.formula = string_formula.take();
                        open = Some(string);
                    } else if row.is_none() && !state.past_prefix {
                        state.prefix_attaches = true;
                    }
                }
                BOF => {
                    records.consume(&header);
                    state.cut_in_substream |= !skip_substream(records)?;
                    continue;
                }
                kind if OLD_BOFS.contains(&kind) => {
                    records.consume(&header);
                    state.cut_in_substream |= !skip_substream(records)?;
                    continue;
                }
                EOF => {
                    records.consume(&header);
                    state.finished = true;
                    break;
                }
                WSBOOL
                    if state.worksheet_bof
                        && row.is_none()
                        && records
                            .data(&header)
                            .first()
                            .is_some_and(|flags| flags & 0x10 != 0) =>
                {
                    // A dialog sheet: no cells.
                    state.finished = true;
                    state.dialog = true;
                    return Ok(None);
                }
                ROW => state.row_record(records.data(&header)),
                _ => {}
            }
            records.consume(&header);
        }
        if let Some(string) = open.take() {
            self.finish_string(string, &mut cells)?;
        }
        if let Some(formulas) = formulas {
            formulas.settled()?;
        }
        let Some(index) = row else {
            return Ok(None);
        };
        state.cells_hint = cells.len();
        state.frontier = state.frontier.max(Some(index));
        state.past_prefix = true;
        state.seen(index);
        let values_elsewhere = cells.is_empty() && elsewhere;
        Ok(Some(Row {
            index,
            cells: cells.into_bump_slice(),
            values_elsewhere,
            hidden: state.is_hidden(index),
        }))
    }

    /// The cells most sheets are made of (NUMBER, RK, LABELSST, BOOLERR,
    /// a FORMULA's cached number, boolean, error or empty text, a BIFF8
    /// LABEL of 8-bit characters all in its record), and the ROW and
    /// DBCELL records around them, read straight from the record window
    /// with one length check a record, for as long as they come. Anything
    /// else or out of the ordinary (another length, a column past XFD, a
    /// shared string or error code that does not resolve, a hidden row to
    /// hand out first, the row's limits, a record the window does not
    /// hold whole) stops it before that record, which the record loop
    /// reads field by field, with its errors. True at the next row's
    /// first cell record.
    ///
    /// Through the record loop each cell took about 180 instructions
    /// (the window's checks, the header, each field's bounds check and
    /// error path); here a number takes under half that (measured).
    #[inline(always)]
    fn plain_cells(
        &self,
        records: &mut Records<'_>,
        state: &mut SheetState,
        row: &mut Option<u32>,
        cells: &mut BumpVec<'r, Cell<'r>>,
        text_bytes: &mut u64,
    ) -> bool {
        let (window, starts) = records.ready();
        // The record loop's `text_bytes * 3 > max_text + 1 MiB` as a bound
        // on `text_bytes`.
        let budget = self.max_text.saturating_add(1 << 20) / 3;
        let mut pos = 0;
        let mut next_row = false;
        // Written back after the loop.
        let mut current = *row;
        let mut row_bytes = *text_bytes;
        let context = self.context;
        while pos < starts {
            let Some((&[k0, k1, l0, l1], rest)) =
                window.get(pos..).and_then(<[u8]>::split_first_chunk::<4>)
            else {
                break;
            };
            let kind = u16::from_le_bytes([k0, k1]);
            let len = usize::from(u16::from_le_bytes([l0, l1]));
            let Some(data) = rest.get(..len) else {
                break;
            };
            // The ROW records before a block of rows, the DBCELL after it:
            // as the record loop reads them.
            if kind == ROW || kind == DBCELL {
                if kind == ROW {
                    state.row_record(data);
                }
                pos += 4 + len;
                continue;
            }
            let Some((&[r0, r1, c0, c1, s0, s1], fields)) = data.split_first_chunk::<6>() else {
                break;
            };
            let style = u32::from(u16::from_le_bytes([s0, s1]));
            // One dispatch on the kind: each common kind's length checked
            // and its value read (nothing kept until the row's checks
            // below pass; a LABEL's text is made after them).
            let mut latin1: &[u8] = &[];
            let mut value = match kind {
                NUMBER if len == 14 => {
                    let Some(&number) = fields.first_chunk::<8>() else {
                        break;
                    };
                    let number = f64::from_le_bytes(number);
                    if !number.is_finite() {
                        break;
                    }
                    context.number_value(number, style)
                }
                RK if len == 10 => {
                    let Some(&rk) = fields.first_chunk::<4>() else {
                        break;
                    };
                    let number = rk_number(u32::from_le_bytes(rk));
                    if !number.is_finite() {
                        break;
                    }
                    context.number_value(number, style)
                }
                LABELSST if len == 10 => {
                    let Some(&sst) = fields.first_chunk::<4>() else {
                        break;
                    };
                    let Ok(text) = context.shared_string(u64::from(u32::from_le_bytes(sst))) else {
                        break;
                    };
                    Value::Text(text)
                }
                BOOLERR if len == 8 => {
                    let Some(&[code, error]) = fields.first_chunk::<2>() else {
                        break;
                    };
                    if error != 0 {
                        let Some(text) = error_text(code) else {
                            break;
                        };
                        Value::Error(text)
                    } else {
                        Value::Bool(code != 0)
                    }
                }
                FORMULA if len >= 14 => {
                    let Some(&result) = fields.first_chunk::<8>() else {
                        break;
                    };
                    if result[6] == 0xFF && result[7] == 0xFF {
                        match result[0] {
                            1 => Value::Bool(result[2] != 0),
                            2 => {
                                let Some(text) = error_text(result[2]) else {
                                    break;
                                };
                                Value::Error(text)
                            }
                            3 => Value::Text(""),
                            // A string result (its STRING record next),
                            // or none this reader knows.
                            _ => break,
                        }
                    } else {
                        let number = f64::from_le_bytes(result);
                        if !number.is_finite() {
                            break;
                        }
                        context.number_value(number, style)
                    }
                }
                LABEL if self.codec.biff == Biff::V8 => {
                    // 8-bit characters (Latin-1), all in the record.
                    let Some((&[n0, n1, 0], chars)) = fields.split_first_chunk::<3>() else {
                        break;
                    };
                    let Some(bytes) = chars.get(..usize::from(u16::from_le_bytes([n0, n1]))) else {
                        break;
                    };
                    latin1 = bytes;
                    Value::Text("")
                }
                _ => break,
            };
            let index = u32::from(u16::from_le_bytes([r0, r1]));
            match current {
                Some(current) if current != index => {
                    next_row = true;
                    break;
                }
                Some(_) => {}
                None => {
                    if state.hidden_before(index).is_some() {
                        break;
                    }
                }
            }
            let column = u32::from(u16::from_le_bytes([c0, c1]));
            let bytes = row_bytes + len as u64;
            if column > MAX_COLUMN || cells.len() >= MAX_ROW_CELLS || bytes > budget {
                break;
            }
            if kind == LABEL {
                // ASCII (nearly every label) copied as it is; other
                // Latin-1 text pushed a character at a time, as the
                // record loop decodes it.
                let text = match ascii_str(latin1) {
                    Some(ascii) => self.arena.alloc_str(ascii),
                    None => {
                        let mut text = BumpString::with_capacity_in(latin1.len(), self.arena);
                        for &byte in latin1 {
                            text.push(char::from(byte));
                        }
                        text.into_bump_str()
                    }
                };
                value = Value::Text(text);
            }
            current = Some(index);
            row_bytes = bytes;
            cells.push(Cell {
                row: index,
                column,
                style,
                value,
                formula: None,
            });
            pos += 4 + len;
        }
        records.advance(pos);
        *row = current;
        *text_bytes = row_bytes;
        next_row
    }

    fn selected(&self, column: u32) -> bool {
        self.columns.is_none_or(|columns| columns.contains(column))
    }

    /// Whether a value in this column makes its row exist.
    fn in_window(&self, column: u32) -> bool {
        (self.window.0..=self.window.1).contains(&column)
    }

    /// Resolves one value record into `cells`; says whether it was a
    /// FORMULA and whether it pushed its cell (what the formula text
    /// needs, so that the loop keeps neither the record's kind nor the
    /// cell count across the call).
    #[allow(clippy::too_many_arguments)]
    fn cell_record(
        &self,
        kind: u16,
        data: &[u8],
        row: u32,
        cells: &mut BumpVec<'r, Cell<'r>>,
        elsewhere: &mut bool,
        formula_string: &mut Option<CellAt>,
        open: &mut Option<OpenString<'r>>,
    ) -> Result<Outcome> {
        let first = u32::from(u16_at(data, 2)?);
        if kind == MULRK {
            let entries = data.get(4..data.len().saturating_sub(2)).unwrap_or(&[]);
            for (i, entry) in entries.chunks_exact(6).enumerate() {
                let column = first + i as u32;
                check_column(column)?;
                if !self.selected(column) {
                    *elsewhere |= self.in_window(column);
                    continue;
                }
                let style = u32::from(u16::from_le_bytes([entry[0], entry[1]]));
                let rk = u32::from_le_bytes([entry[2], entry[3], entry[4], entry[5]]);
                let number = finite(rk_number(rk)).map_err(|err| err.with_column(column + 1))?;
                let value = self.context.number_value(number, style);
                push(cells, CellAt { row, column, style }, value)?;
            }
            return Ok(Outcome::Other);
        }
        let column = first;
        check_column(column).map_err(|err| err.with_column(column + 1))?;
        let style = u32::from(u16_at(data, 4)?);
        let at = CellAt { row, column, style };
        if !self.selected(column) {
            *elsewhere |= self.in_window(column);
            return Ok(if kind == FORMULA {
                Outcome::Formula
            } else {
                Outcome::Other
            });
        }
        let locate = |err: Error| err.with_column(column + 1);
        let value = match kind {
            NUMBER => self
                .context
                .number_value(finite(f64_at(data, 6)?).map_err(locate)?, style),
            RK => self
                .context
                .number_value(finite(rk_number(u32_at(data, 6)?)).map_err(locate)?, style),
            LABELSST => Value::Text(
                self.context
                    .shared_string(u64::from(u32_at(data, 6)?))
                    .map_err(locate)?,
            ),
            LABEL | RSTRING => {
                if let Some(text) = self.whole_ascii_string(data) {
                    push(cells, at, Value::Text(self.arena.alloc_str(text)))?;
                    return Ok(Outcome::Other);
                }
                // (Its offset is the record's, which the caller adds.)
                let string = self.start_string(data, 6, at, None).map_err(locate)?;
                if string.chars.left > 0 {
                    *open = Some(string);
                } else {
                    self.finish_string(string, cells)?;
                }
                return Ok(Outcome::Other);
            }
            BOOLERR => {
                let code = *data.get(6).ok_or_else(short_record)?;
                if *data.get(7).ok_or_else(short_record)? != 0 {
                    Value::Error(error_code(code).map_err(locate)?)
                } else {
                    Value::Bool(code != 0)
                }
            }
            FORMULA => {
                let result = data.get(6..14).ok_or_else(short_record)?;
                let value = if result[6] == 0xFF && result[7] == 0xFF {
                    match result[0] {
                        0 => {
                            *formula_string = Some(at);
                            return Ok(Outcome::Formula);
                        }
                        1 => Value::Bool(result[2] != 0),
                        2 => Value::Error(error_code(result[2]).map_err(locate)?),
                        3 => Value::Text(""),
                        // No result this reader knows.
                        _ => return Ok(Outcome::Formula),
                    }
                } else {
                    self.context
                        .number_value(finite(f64_at(data, 6)?).map_err(locate)?, style)
                };
                push(cells, at, value)?;
                return Ok(Outcome::FormulaCell);
            }
            _ => return Ok(Outcome::Other),
        };
        push(cells, at, value)?;
        Ok(Outcome::Other)
    }

    /// The common string value, read without the general decoder: BIFF8,
    /// 8-bit characters all ASCII, no rich text or phonetic data, all
    /// within the record (a label of 10 characters cost about 340
    /// instructions through the decoder, measured).
    #[inline]
    fn whole_ascii_string<'d>(&self, data: &'d [u8]) -> Option<&'d str> {
        if self.codec.biff != Biff::V8 {
            return None;
        }
        let cch = usize::from(u16_at(data, 6).ok()?);
        if *data.get(8)? != 0 {
            return None;
        }
        let bytes = data.get(9..9 + cch)?;
        if !bytes.is_ascii() {
            return None;
        }
        std::str::from_utf8(bytes).ok()
    }

    /// Starts a string value: BIFF8 `cch`, flags and characters (the rest
    /// may follow in CONTINUE records); BIFF5 `cch` and 8-bit text.
    fn start_string(
        &self,
        data: &[u8],
        at: usize,
        cell: CellAt,
        offset: Option<u64>,
    ) -> Result<OpenString<'r>> {
        let cch = usize::from(u16_at(data, at)?);
        let mut text = BumpString::new_in(self.arena);
        match self.codec.biff {
            Biff::V5 => {
                let start = (at + 2).min(data.len());
                let end = (start + cch).min(data.len());
                self.codec.decode_8bit(&data[start..end], &mut text);
                let string = OpenString {
                    cell,
                    text,
                    chars: Chars {
                        left: cch - (end - start),
                        wide: false,
                        pending: None,
                    },
                    count: cch,
                    offset,
                    formula: None,
                };
                if string.chars.left > 0 {
                    // BIFF5 text is never continued: a string that says
                    // more characters than its record holds is cut short.
                    return Err(short_string(&string));
                }
                Ok(string)
            }
            Biff::V8 => {
                // An empty string may leave out its flags byte.
                let flags = match data.get(at + 2) {
                    Some(&flags) => flags,
                    None if cch == 0 => 0,
                    None => return Err(short_record()),
                };
                let mut position = at + 3;
                if flags & 0x08 != 0 {
                    position += 2;
                }
                if flags & 0x04 != 0 {
                    position += 4;
                }
                let mut position = position.min(data.len());
                let mut chars = Chars {
                    left: cch,
                    wide: flags & 1 != 0,
                    pending: None,
                };
                text.reserve(cch.min(data.len()));
                chars.take(data, &mut position, &mut text);
                let string = OpenString {
                    cell,
                    text,
                    chars,
                    count: cch,
                    offset,
                    formula: None,
                };
                if string.chars.left > 0 && position < data.len() {
                    // Half a UTF-16 character, and characters still to come.
                    return Err(torn_string(&string, string.offset));
                }
                Ok(string)
            }
        }
    }

    /// Ends a string value: a string that holds fewer characters than it
    /// says (no CONTINUE record brought the rest) is a damaged record,
    /// refused at its offset, as the same damage in the shared strings
    /// table is.
    fn finish_string(
        &self,
        mut string: OpenString<'r>,
        cells: &mut BumpVec<'r, Cell<'r>>,
    ) -> Result<()> {
        if string.chars.left > 0 {
            return Err(short_string(&string));
        }
        string.chars.finish(&mut string.text);
        push(cells, string.cell, Value::Text(string.text.into_bump_str()))?;
        if let (Some(formula), Some(cell)) = (string.formula, cells.last_mut()) {
            cell.formula = Some(formula);
        }
        Ok(())
    }
}

/// A string value with fewer characters than its count says.
#[cold]
#[inline(never)]
fn short_string(string: &OpenString<'_>) -> Error {
    let err = Error::new(ErrorKind::Xls(format!(
        "a string says it holds {} characters and its record holds {}: the record is cut short",
        string.count,
        string.count - string.chars.left
    )))
    .with_row(string.cell.row + 1)
    .with_column(string.cell.column + 1);
    match string.offset {
        Some(offset) => err.with_offset(offset),
        None => err,
    }
}

/// A string value whose record (at `offset`, where known) ends in half a UTF-16
/// character, with characters still to come.
#[cold]
#[inline(never)]
fn torn_string(string: &OpenString<'_>, offset: Option<u64>) -> Error {
    let err = Error::new(ErrorKind::Xls(
        "a string's UTF-16 characters end in half a character (an odd byte count): the record \
         is damaged"
            .into(),
    ))
    .with_row(string.cell.row + 1)
    .with_column(string.cell.column + 1);
    match offset {
        Some(offset) => err.with_offset(offset),
        None => err,
    }
}

/// A formula cell's text where it goes: on its pushed cell, or kept for
/// its STRING record.
fn set_formula<'r>(
    cells: &mut BumpVec<'r, Cell<'r>>,
    string_formula: &mut Option<&'r str>,
    target: Target,
    text: Option<&'r str>,
) {
    match target {
        Target::Pushed(index) => {
            if let Some(cell) = cells.get_mut(index) {
                cell.formula = text;
            }
        }
        Target::StringResult => *string_formula = text,
    }
}

fn push<'r>(cells: &mut BumpVec<'r, Cell<'r>>, at: CellAt, value: Value<'r>) -> Result<()> {
    if cells.len() >= MAX_ROW_CELLS {
        return Err(Error::limit("cells in one row", MAX_ROW_CELLS as u64)
            .with_row(at.row + 1)
            .with_column(at.column + 1));
    }
    cells.push(Cell {
        row: at.row,
        column: at.column,
        style: at.style,
        value,
        formula: None,
    });
    Ok(())
}

fn check_column(column: u32) -> Result<()> {
    if column > MAX_COLUMN {
        return Err(Error::new(ErrorKind::CellReference(format!(
            "column {} is past XFD",
            column + 1
        ))));
    }
    Ok(())
}

fn error_code(code: u8) -> Result<&'static str> {
    error_text(code).ok_or_else(|| {
        Error::invalid_value(format!("error code 0x{code:02X} is not one BIFF defines"))
    })
}

/// Skips a nested substream (an embedded chart), whose BOF was read, up
/// to and including its EOF; nested ones within it too. False when the
/// records end first.
fn skip_substream(records: &mut Records<'_>) -> Result<bool> {
    let mut depth = 1u32;
    while let Some((header, _)) = records.next()? {
        if header.kind == BOF || OLD_BOFS.contains(&header.kind) {
            depth += 1;
        } else if header.kind == EOF {
            depth -= 1;
            if depth == 0 {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

impl RowSource for XlsRows<'_> {
    fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        XlsRows::next_row(self)
    }

    fn select_columns(&mut self, columns: Option<ColumnSet>) {
        XlsRows::select_columns(self, columns);
    }

    fn set_column_window(&mut self, first: u32, last: u32) {
        XlsRows::set_column_window(self, first, last);
    }

    fn set_formulas(&mut self, formulas: bool) {
        XlsRows::set_formulas(self, formulas);
    }
}
