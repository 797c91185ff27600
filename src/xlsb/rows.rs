//! The streaming row reader of an `.xlsb` sheet part.
//!
//! [`XlsbRows`] pulls the part's records through a [`RecordStream`] (the
//! window of a [`ChunkBuffer`](crate::chunk::ChunkBuffer), no copy per
//! record). A row is a BrtRowHdr and the cell records after it, up to the
//! next BrtRowHdr or BrtEndSheetData. Each cell record is resolved as it
//! is read, so the window never holds more than one record: numbers
//! (dates by style), booleans, errors and shared strings (borrowed from
//! the table) straight into the row's cell list, text (UTF-16) decoded
//! into the row's text buffer. When the row ends, its cells go into the
//! arena as one slice of the exact length. The cell list, the text
//! buffer and the arena are reused row after row: after the first rows
//! have sized them, nothing here touches the heap.
//!
//! Rows come in record order (a BrtRowHdr going back to an earlier row
//! starts a row of its own, as in `.xlsx` and `.xls`). The part must hold
//! BrtEndSheetData and end with BrtEndSheet: a part cut at a record
//! boundary is refused, its row in progress not handed out. A NaN or
//! infinite number is a damaged record.
//!
//! The common cells (numbers, booleans, shared strings, blanks) are read with
//! one length check per record, runs of them in one pass over the window
//! (`RowSink::plain_cells`); anything else or out of the ordinary is read
//! again field by field through `Fields` with its errors. A value converted
//! per cell, or `RecordStream::next` not inlined, stalled on store forwarding
//! (benches/results/xlsb.md). Rows past 1,048,576 and columns past XFD are
//! errors; with `with_formulas` each formula's tokens are decompiled into the
//! row text buffer (a PtgExp to the shared or array formula `formulas.rs`
//! kept).

use bumpalo::Bump;

use super::formulas::{Pending, SharedFormulas};
use super::records::{
    ARR_FMLA, CELL_BLANK, CELL_BOOL, CELL_ERROR, CELL_ISST, CELL_REAL, CELL_RK, CELL_RSTRING,
    CELL_ST, END_SHEET, END_SHEET_DATA, FMLA_BOOL, FMLA_ERROR, FMLA_NUM, FMLA_STRING, Fields,
    ROW_HDR, RecordStream, SHORT_BLANK, SHORT_BOOL, SHORT_ERROR, SHORT_ISST, SHORT_REAL, SHORT_RK,
    SHORT_ST, SHR_FMLA, check_part_end, push_utf16,
};
use crate::cell::{Cell, MAX_COLUMN, MAX_ROW, Row, Value};
use crate::columns::ColumnSet;
use crate::contract::RowSource;
use crate::contract::{PartSource, SheetContext};
use crate::error::{Error, ErrorKind, Result};
use crate::formula::{Decompiled, Decompiler, Dialect, Origin};
use crate::limits::Limits;

/// The most cells with a value one row holds: one per column.
const MAX_ROW_CELLS: usize = MAX_COLUMN as usize + 1;

/// The record types the row reader reads; every other record is skipped
/// unread.
#[inline]
fn is_row_record(kind: u16) -> bool {
    kind <= SHORT_ISST || kind == CELL_RSTRING || kind == END_SHEET_DATA
}

/// A text cell of the row: its index in the row's cells and its text's
/// range in the row's text buffer (the cell holds an empty placeholder
/// until the buffer stops growing).
#[derive(Clone, Copy)]
struct TextCell {
    index: usize,
    start: usize,
    end: usize,
}

/// The rows of one `.xlsb` sheet part: what [`SheetRows`](crate::SheetRows)
/// reads an `.xlsb` sheet with.
pub(crate) struct XlsbRows<'a> {
    records: RecordStream<'a>,
    context: SheetContext<'a>,
    sheet_name: &'a str,
    part: &'a str,
    arena: Bump,
    /// The row's cells (text cells with a placeholder), its decoded text
    /// and where each text cell's text lies in it, reused row after row.
    cells: Vec<Cell<'a>>,
    text: String,
    text_cells: Vec<TextCell>,
    /// With formulas: each formula cell's text in the row's text buffer,
    /// and the decompiler's reused stack.
    formula_cells: Vec<TextCell>,
    decompiler: Decompiler,
    shared: SharedFormulas,
    /// The next row's index and hidden flag, when the previous row ended
    /// at its header.
    next_header: Option<(u32, bool)>,
    formulas: bool,
    /// The columns resolved and handed out; None for all.
    columns: Option<ColumnSet>,
    /// The columns whose values make a row exist when the selection
    /// leaves them out (a range's or table's columns); all by default.
    window: (u32, u32),
    /// No more rows: the sheet data ended, the part ended, or an error.
    finished: bool,
    /// BrtEndSheetData was read (and the rest of the part checked).
    data_ended: bool,
    max_row_bytes: u64,
}

impl<'a> XlsbRows<'a> {
    pub(crate) fn new(
        source: PartSource<'a>,
        context: SheetContext<'a>,
        sheet_name: &'a str,
        part: &'a str,
        limits: &Limits,
    ) -> Self {
        XlsbRows {
            records: RecordStream::new(source, limits),
            context,
            sheet_name,
            part,
            arena: Bump::new(),
            cells: Vec::new(),
            text: String::new(),
            text_cells: Vec::new(),
            formula_cells: Vec::new(),
            decompiler: Decompiler::new(),
            shared: SharedFormulas::default(),
            next_header: None,
            formulas: false,
            columns: None,
            window: (0, u32::MAX),
            finished: false,
            data_ended: false,
            max_row_bytes: limits.max_row_bytes,
        }
    }

    /// See [`SheetRows::select_columns`](crate::SheetRows::select_columns):
    /// the records of other columns are still read (their column and
    /// length), but their values are not decoded or looked up.
    pub(crate) fn select_columns(&mut self, columns: Option<ColumnSet>) {
        self.columns = columns;
    }

    // Used by the Arrow layer only.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn set_column_window(&mut self, first: u32, last: u32) {
        self.window = (first, last);
    }

    pub(crate) fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        if self.finished {
            return Ok(None);
        }
        match self.read_row() {
            Ok(Some((index, hidden, values_elsewhere))) => {
                let source: &[Cell<'_>] = &self.cells;
                let cells: &[Cell<'_>] =
                    if self.text_cells.is_empty() && self.formula_cells.is_empty() {
                        // No text to fill in: the row's cells as they are,
                        // not copied (the copy was about 7 instructions a
                        // cell of the 65,535 x 14 bench sheet, measured).
                        source
                    } else {
                        // One copy of the cells as they are (a value moved
                        // through a conversion per cell stalled on store
                        // forwarding, measured), then the text cells' text
                        // filled in.
                        self.arena.reset();
                        let text = self.text.as_str();
                        let cells = self.arena.alloc_slice_copy(source);
                        for cell in &self.text_cells {
                            cells[cell.index].value = Value::Text(&text[cell.start..cell.end]);
                        }
                        for cell in &self.formula_cells {
                            cells[cell.index].formula = Some(&text[cell.start..cell.end]);
                        }
                        cells
                    };
                Ok(Some(Row {
                    index,
                    cells,
                    values_elsewhere,
                    hidden,
                }))
            }
            Ok(None) => {
                self.finished = true;
                Ok(None)
            }
            Err(err) => {
                self.finished = true;
                Err(err.with_sheet(self.sheet_name).with_part(self.part))
            }
        }
    }

    /// Reads the next row's records: its index, whether its header marks
    /// it hidden, and whether a column the selection leaves out holds a
    /// value.
    ///
    /// The records the window holds whole, with a one-byte type and size
    /// (every cell record but long text), are framed here, straight from
    /// the window; the others come through [`RecordStream::next`], which
    /// refills the window (measured: framing each record through `next`
    /// was a third of the row reader's instructions).
    fn read_row(&mut self) -> Result<Option<(u32, bool, bool)>> {
        self.cells.clear();
        self.text.clear();
        self.text_cells.clear();
        self.formula_cells.clear();
        let (index, hidden) = match self.next_header.take() {
            Some(header) => header,
            None if self.data_ended => return Ok(None),
            None => {
                let Some(record) = self.records.next(is_row_record)? else {
                    return Err(no_end_of_data(self.records.offset()));
                };
                match record.kind {
                    ROW_HDR => (
                        row_index(record.body, record.offset)?,
                        row_hidden(record.body),
                    ),
                    END_SHEET_DATA => {
                        self.end_of_data()?;
                        return Ok(None);
                    }
                    _ => {
                        return Err(Error::record(
                            "a cell record before any row header (BrtRowHdr)",
                        )
                        .with_offset(record.offset));
                    }
                }
            }
        };
        // A record of at most 2 + 127 bytes is within the record limit.
        let fast = self.records.max_record() >= 2 + 127;
        let mut sink = RowSink {
            cells: &mut self.cells,
            text: &mut self.text,
            text_cells: &mut self.text_cells,
            formula_cells: &mut self.formula_cells,
            decompiler: &mut self.decompiler,
            shared: &mut self.shared,
            context: self.context,
            columns: self.columns.as_ref(),
            formulas: self.formulas,
            max_row_bytes: self.max_row_bytes,
            index,
            previous_column: None,
            row_bytes: 0,
            values_elsewhere: false,
            next_hidden: false,
            window: self.window,
        };
        let records = &mut self.records;
        let flow = 'row: loop {
            if fast {
                let (window, base) = records.ready();
                let mut pos = 0;
                let mut flow = Flow::More;
                let plain = sink.columns.is_none();
                loop {
                    // The common cells first, many to one call.
                    if plain {
                        pos = sink.plain_cells(window, pos);
                    }
                    let Some(&[kind, size]) = window.get(pos..).and_then(<[u8]>::first_chunk)
                    else {
                        break;
                    };
                    if (kind | size) & 0x80 != 0 {
                        break;
                    }
                    let end = pos + 2 + usize::from(size);
                    let Some(body) = window.get(pos + 2..end) else {
                        break;
                    };
                    let at = pos;
                    pos = end;
                    let kind = u16::from(kind);
                    if is_row_record(kind) {
                        flow = sink.record(kind, body, base + at as u64)?;
                        if flow != Flow::More {
                            break;
                        }
                    }
                }
                records.advance(pos);
                if flow != Flow::More {
                    break 'row flow;
                }
            }
            let formulas = sink.formulas;
            let wanted =
                |kind| is_row_record(kind) || (formulas && (kind == SHR_FMLA || kind == ARR_FMLA));
            let Some(record) = records.next(wanted)? else {
                // The part ends inside the sheet data: the row may be cut
                // short, and is not handed out.
                return Err(no_end_of_data(records.offset()));
            };
            let flow = sink.record(record.kind, record.body, record.offset)?;
            if flow != Flow::More {
                break flow;
            }
        };
        if let Some(pending) = sink.shared.pending.take() {
            return Err(no_shared_formula(pending));
        }
        let values_elsewhere = sink.values_elsewhere;
        match flow {
            Flow::NextRow(next) => self.next_header = Some((next, sink.next_hidden)),
            Flow::End => self.end_of_data()?,
            // (The loop ends only at the next row's header or the data's end.)
            Flow::More => {}
        }
        Ok(Some((index, hidden, values_elsewhere)))
    }

    /// After BrtEndSheetData: the rest of the part is read (framing
    /// checked, nothing kept) so that the archive's CRC check runs, and
    /// the part must end with BrtEndSheet, as an `.xlsx` sheet must end
    /// with its root's end tag.
    fn end_of_data(&mut self) -> Result<()> {
        self.records.note_kind(END_SHEET_DATA);
        while self.records.next(|_| false)?.is_some() {}
        check_part_end(
            self.records.last_kind(),
            END_SHEET,
            "BrtEndSheet",
            self.records.offset(),
        )?;
        self.records.stop();
        self.data_ended = true;
        Ok(())
    }
}

/// What a record did to the row being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    /// A cell (or nothing): the row goes on.
    More,
    /// The next row's header (its index): the row ends before it.
    NextRow(u32),
    /// BrtEndSheetData: the row and the sheet data end.
    End,
}

/// The row being read: where its cells go and what they are checked
/// against.
struct RowSink<'s, 'a> {
    cells: &'s mut Vec<Cell<'a>>,
    text: &'s mut String,
    text_cells: &'s mut Vec<TextCell>,
    formula_cells: &'s mut Vec<TextCell>,
    decompiler: &'s mut Decompiler,
    shared: &'s mut SharedFormulas,
    context: SheetContext<'a>,
    /// The columns resolved and handed out; None for all.
    columns: Option<&'s ColumnSet>,
    formulas: bool,
    max_row_bytes: u64,
    index: u32,
    previous_column: Option<u32>,
    row_bytes: u64,
    values_elsewhere: bool,
    /// Whether the next row's header, when the row ended at one, marks
    /// that row hidden.
    next_hidden: bool,
    /// The first and last column whose values make the row exist.
    window: (u32, u32),
}

impl RowSink<'_, '_> {
    /// One record of the row (a row record: a cell, the next row's header
    /// or the end of the sheet data) at part offset `offset`.
    #[inline(always)]
    fn record(&mut self, kind: u16, body: &[u8], offset: u64) -> Result<Flow> {
        match kind {
            ROW_HDR => {
                // Kept out of `Flow`: a wider `Flow` cost every cell
                // (measured: 8% more instructions in the row reader).
                self.next_hidden = row_hidden(body);
                return row_index(body, offset).map(Flow::NextRow);
            }
            END_SHEET_DATA => return Ok(Flow::End),
            SHR_FMLA | ARR_FMLA => {
                return self.shared_formula(kind, body, offset).map(|()| Flow::More);
            }
            _ => {}
        }
        self.row_bytes += body.len() as u64;
        if self.row_bytes > self.max_row_bytes {
            return Err(row_too_long(self.max_row_bytes, self.index, offset));
        }
        let column = self.cell(kind, body, offset)?;
        self.previous_column = Some(column);
        Ok(Flow::More)
    }

    /// Reads one cell record into the row's buffers (or only notes its
    /// value when its column is not selected); returns its column.
    #[inline(always)]
    fn cell(&mut self, kind: u16, body: &[u8], offset: u64) -> Result<u32> {
        match self.plain_cell(kind, body) {
            Some(column) => Ok(column),
            None => self.checked_cell(kind, body, offset),
        }
    }

    /// The cells most sheets are made of (numbers, booleans, shared
    /// strings, blanks; full and short forms) read with one length check
    /// per record, when every column is read: their column and value, or
    /// None (nothing done) for anything else, or anything out of the
    /// ordinary, which [`checked_cell`](Self::checked_cell) reads again,
    /// field by field, with its errors. Reading each field through
    /// `Fields` (a bounds check and an error path per field) was about a
    /// tenth of the row reader's instructions (measured).
    #[inline(always)]
    fn plain_cell(&mut self, kind: u16, body: &[u8]) -> Option<u32> {
        if self.columns.is_some() || self.cells.len() >= MAX_ROW_CELLS {
            return None;
        }
        let (column, style, value) = if (SHORT_BLANK..=SHORT_ISST).contains(&kind) {
            let column = self.previous_column.map_or(0, |column| column + 1);
            let (&style, value) = body.split_first_chunk::<4>()?;
            (column, style, value)
        } else {
            let (&head, value) = body.split_first_chunk::<8>()?;
            let [c0, c1, c2, c3, s0, s1, s2, s3] = head;
            (
                u32::from_le_bytes([c0, c1, c2, c3]),
                [s0, s1, s2, s3],
                value,
            )
        };
        if column > MAX_COLUMN {
            return None;
        }
        let style = u32::from_le_bytes(style) & 0x00FF_FFFF;
        let context = self.context;
        let value = match kind {
            CELL_RK | SHORT_RK => {
                let rk = u32::from_le_bytes(*value.first_chunk::<4>()?);
                let number = rk_number(rk);
                if !number.is_finite() {
                    return None;
                }
                context.number_value(number, style)
            }
            CELL_REAL | SHORT_REAL => {
                let number = f64::from_le_bytes(*value.first_chunk::<8>()?);
                if !number.is_finite() {
                    return None;
                }
                context.number_value(number, style)
            }
            CELL_BOOL | SHORT_BOOL => Value::Bool(*value.first()? != 0),
            CELL_ISST | SHORT_ISST => {
                let index = u32::from_le_bytes(*value.first_chunk::<4>()?);
                Value::Text(context.shared_string(u64::from(index)).ok()?)
            }
            CELL_BLANK | SHORT_BLANK => return Some(column),
            _ => return None,
        };
        self.cells.push(Cell {
            row: self.index,
            column,
            style,
            value,
            formula: None,
        });
        Some(column)
    }

    /// The run of common cell records from `pos` in `window` (numbers,
    /// booleans, shared strings and blanks, full and short forms, each of
    /// the size it has when nothing follows its fields), read in one pass:
    /// a record's type, size and fields from one bounds-checked block of
    /// the window, straight into the row's cells. Returns where the run
    /// ends: at any other record (a row header, text, a formula), at a
    /// record of another size or out of the ordinary (a column past XFD, a
    /// shared string not in the table, the row's limits reached), or at
    /// the window's end; [`record`](Self::record) reads that record as
    /// always, with its errors. Only without a column selection.
    #[inline(always)]
    fn plain_cells(&mut self, window: &[u8], pos: usize) -> usize {
        // The longest record read here: BrtCellReal, 2 + 16 bytes.
        const BLOCK: usize = 18;
        let context = self.context;
        // The run reads records only as far as the row's limits allow
        // whatever they hold: its records' bytes within what the row limit
        // leaves (a body is shorter than its record), 7 bytes a cell within
        // what the cell limit leaves (a record with a value takes at least
        // 7). The records past that, if any, go through `record`, which
        // checks the limits one record at a time, as the run did (a check
        // a record here was about 5 instructions a cell, measured).
        let budget = self.max_row_bytes.saturating_sub(self.row_bytes);
        let budget = usize::try_from(budget).unwrap_or(usize::MAX);
        let room = MAX_ROW_CELLS.saturating_sub(self.cells.len()) * 7;
        let Some(mut rest) = window
            .get(pos..)
            .map(|rest| &rest[..rest.len().min(budget).min(room)])
        else {
            return pos;
        };
        // The row's state in locals for the run, written back once at its
        // end (kept in the sink, each store and load per record was about
        // a tenth of the loop, measured).
        let mut next_column = self.previous_column.map_or(0, |column| column + 1);
        let mut row_bytes = self.row_bytes;
        let row = self.index;
        let cells = &mut *self.cells;
        let before = rest.len();
        // One length check a record: the block holds any record read here.
        while let Some(block) = rest.first_chunk::<BLOCK>() {
            // One dispatch on the type; each arm reads its layout's fields
            // at fixed places (a table of sizes, then a dispatch on the
            // value, was about 15 instructions a cell more, measured).
            let read = match u16::from(block[0]) {
                CELL_BLANK => plain_record::<false, CELL_BLANK>(block, next_column, context),
                CELL_RK => plain_record::<false, CELL_RK>(block, next_column, context),
                CELL_BOOL => plain_record::<false, CELL_BOOL>(block, next_column, context),
                CELL_REAL => plain_record::<false, CELL_REAL>(block, next_column, context),
                CELL_ISST => plain_record::<false, CELL_ISST>(block, next_column, context),
                SHORT_BLANK => plain_record::<true, CELL_BLANK>(block, next_column, context),
                SHORT_RK => plain_record::<true, CELL_RK>(block, next_column, context),
                SHORT_BOOL => plain_record::<true, CELL_BOOL>(block, next_column, context),
                SHORT_REAL => plain_record::<true, CELL_REAL>(block, next_column, context),
                SHORT_ISST => plain_record::<true, CELL_ISST>(block, next_column, context),
                _ => None,
            };
            let Some(Plain {
                column,
                style,
                value,
                size,
            }) = read
            else {
                break;
            };
            // (Always there: a body of at most 16 bytes in a block of 18.)
            let Some(next) = rest.get(2 + size..) else {
                break;
            };
            if let Some(value) = value {
                cells.push(Cell {
                    row,
                    column,
                    style,
                    value,
                    formula: None,
                });
            }
            row_bytes += size as u64;
            next_column = column + 1;
            rest = next;
        }
        let read = before - rest.len();
        if read > 0 {
            self.row_bytes = row_bytes;
            self.previous_column = Some(next_column - 1);
        }
        pos + read
    }

    /// [`cell`](Self::cell) for any cell record, each field read through
    /// `Fields`, with an error naming the field that is cut short.
    #[inline(never)]
    fn checked_cell(&mut self, kind: u16, body: &[u8], offset: u64) -> Result<u32> {
        let row = self.index;
        let mut fields = Fields::new(kind, body);
        let short = (SHORT_BLANK..=SHORT_ISST).contains(&kind);
        let column = if short {
            self.previous_column.map_or(0, |column| column + 1)
        } else {
            fields
                .u32("a cell's column")
                .map_err(|err| cell_error(err, row, None, offset))?
        };
        let at = |err: Error| cell_error(err, row, Some(column), offset);
        if column > MAX_COLUMN {
            return Err(cell_error(
                Error::new(ErrorKind::CellReference(
                    "more than 16384 columns (past XFD)".into(),
                )),
                row,
                None,
                offset,
            ));
        }
        let style = fields.u32("a cell's style").map_err(at)? & 0x00FF_FFFF;
        if kind == CELL_BLANK || kind == SHORT_BLANK {
            return Ok(column);
        }
        if self
            .columns
            .is_some_and(|columns| !columns.contains(column))
        {
            // A value outside the window does not make the row exist.
            if (self.window.0..=self.window.1).contains(&column) {
                self.values_elsewhere = true;
            }
            return Ok(column);
        }
        let context = self.context;
        let value = match kind {
            CELL_RK | SHORT_RK => {
                let rk = fields.u32("an RK number").map_err(at)?;
                context.number_value(finite(rk_number(rk)).map_err(at)?, style)
            }
            CELL_REAL | SHORT_REAL | FMLA_NUM => {
                let number = fields.f64("a number").map_err(at)?;
                context.number_value(finite(number).map_err(at)?, style)
            }
            CELL_BOOL | SHORT_BOOL | FMLA_BOOL => {
                Value::Bool(fields.u8("a boolean").map_err(at)? != 0)
            }
            CELL_ERROR | SHORT_ERROR | FMLA_ERROR => {
                let code = fields.u8("an error code").map_err(at)?;
                Value::Error(error_text(code).map_err(at)?)
            }
            CELL_ISST | SHORT_ISST => {
                let index = fields.u32("a shared string index").map_err(at)?;
                Value::Text(context.shared_string(u64::from(index)).map_err(at)?)
            }
            CELL_ST | SHORT_ST | FMLA_STRING | CELL_RSTRING => {
                if kind == CELL_RSTRING {
                    fields.u8("a rich string's flags").map_err(at)?;
                }
                let units = fields.wide_string("a cell's text").map_err(at)?;
                let start = self.text.len();
                push_utf16(units, self.text);
                // The text of a row is no longer than 1.5 times its
                // records, which the row limit bounds.
                self.text_cells.push(TextCell {
                    index: self.cells.len(),
                    start,
                    end: self.text.len(),
                });
                Value::Text("")
            }
            _ => return Ok(column),
        };
        if self.cells.len() >= MAX_ROW_CELLS {
            return Err(at(Error::new(ErrorKind::CellReference(format!(
                "more than {MAX_ROW_CELLS} cells with a value in one row"
            )))));
        }
        if self.formulas && (FMLA_STRING..=FMLA_ERROR).contains(&kind) {
            self.formula(&mut fields, column).map_err(at)?;
        }
        self.cells.push(Cell {
            row,
            column,
            style,
            value,
            formula: None,
        });
        Ok(column)
    }
}

impl RowSink<'_, '_> {
    /// A formula cell's parsed formula (after its value: flags, then the
    /// token stream's size and tokens) decompiled into the row's text
    /// buffer, for the cell about to be pushed.
    #[inline(never)]
    fn formula(&mut self, fields: &mut Fields<'_>, column: u32) -> Result<()> {
        if let Some(pending) = self.shared.pending.take() {
            return Err(no_shared_formula(pending));
        }
        self.shared.last = Some((self.index, column));
        fields.skip(2, "a formula's flags")?;
        let size = fields.u32("a formula's size")?;
        let rgce = fields.bytes(size as usize, "a formula's tokens")?;
        let start = self.text.len();
        let origin = Origin {
            row: self.index,
            column,
        };
        let decompiled = self.decompiler.decompile(
            Dialect::Xlsb,
            rgce,
            origin,
            self.context.links,
            self.text,
        )?;
        if let Decompiled::Shared { row: named, .. } = decompiled {
            let Some(rgce) = self.shared.tokens(named, self.index, column) else {
                if named == self.index {
                    // The BrtShrFmla comes next.
                    self.shared.pending = Some(Pending {
                        index: self.cells.len(),
                        row: self.index,
                        column,
                    });
                    return Ok(());
                }
                return Err(Error::record(format!(
                    "a shared formula's cell (PtgExp) names row {}, where no shared formula \
                     (BrtShrFmla) before it covers this cell",
                    named + 1
                )));
            };
            if rgce.is_empty() {
                // A cell of an array formula other than its first.
                return Ok(());
            }
            let again = self.decompiler.decompile(
                Dialect::Xlsb,
                rgce,
                origin,
                self.context.links,
                self.text,
            )?;
            if again != Decompiled::Text {
                return Err(Error::record(
                    "a shared formula's tokens are themselves a PtgExp",
                ));
            }
        }
        // Formula text can be longer than its tokens (a defined name's
        // index is 4 bytes, its name up to 255 characters): a row's text
        // is held within four times the row limit.
        if self.text.len() as u64 > self.max_row_bytes.saturating_mul(4) {
            return Err(Error::limit(
                "formula text of one row (four times the row size limit)",
                self.max_row_bytes.saturating_mul(4),
            ));
        }
        self.formula_cells.push(TextCell {
            index: self.cells.len(),
            start,
            end: self.text.len(),
        });
        Ok(())
    }
}

impl RowSink<'_, '_> {
    /// A BrtShrFmla: its tokens kept for the cells of its range, and the
    /// text of the cell waiting for them.
    #[cold]
    #[inline(never)]
    fn shared_formula(&mut self, kind: u16, body: &[u8], offset: u64) -> Result<()> {
        let limit = self.max_row_bytes.saturating_mul(4);
        let located = |err: Error| err.with_row(self.index + 1).with_offset(offset);
        let Some((pending, rgce)) = self.shared.record(kind, body, limit).map_err(located)? else {
            return Ok(());
        };
        let at = |err: Error| cell_error(err, pending.row, Some(pending.column), offset);
        let start = self.text.len();
        let origin = Origin {
            row: pending.row,
            column: pending.column,
        };
        let decompiled = self
            .decompiler
            .decompile(Dialect::Xlsb, rgce, origin, self.context.links, self.text)
            .map_err(at)?;
        if decompiled != Decompiled::Text {
            return Err(at(Error::record(
                "a shared formula's tokens are themselves a PtgExp",
            )));
        }
        self.formula_cells.push(TextCell {
            index: pending.index,
            start,
            end: self.text.len(),
        });
        Ok(())
    }
}

/// A sheet part that ends before its sheet data does (no BrtEndSheetData):
/// cut short, its last rows lost; `offset` is the part's length.
#[cold]
#[inline(never)]
fn no_end_of_data(offset: u64) -> Error {
    Error::record(
        "the sheet part ends inside its sheet data, without BrtEndSheetData: it is cut short",
    )
    .with_offset(offset)
}

#[cold]
fn no_shared_formula(pending: Pending) -> Error {
    Error::record(
        "a shared formula's cell (PtgExp naming its own row) has no shared formula record \
         (BrtShrFmla) after it",
    )
    .with_row(pending.row + 1)
    .with_column(pending.column + 1)
}

/// An error met reading a cell, with where: row, column (where it was
/// read) and the record's offset.
#[cold]
#[inline(never)]
fn cell_error(err: Error, row: u32, column: Option<u32>, offset: u64) -> Error {
    let err = err.with_row(row + 1).with_offset(offset);
    match column {
        Some(column) => err.with_column(column + 1),
        None => err,
    }
}

#[cold]
#[inline(never)]
fn row_too_long(max_row_bytes: u64, row: u32, offset: u64) -> Error {
    Error::limit("row or string item size", max_row_bytes)
        .with_row(row + 1)
        .with_offset(offset)
}

/// Whether a BrtRowHdr marks its row hidden (fDyZero, in the flags byte
/// after the row, style and height).
#[inline]
fn row_hidden(body: &[u8]) -> bool {
    body.get(11).is_some_and(|flags| flags & 0x10 != 0)
}

/// The row index of a BrtRowHdr at part offset `offset`, within the
/// sheet. Rows come in record order (FORMAT-binary.md): a row that goes
/// back to an earlier one is handed out as a row of its own, as the
/// `.xlsx` and `.xls` readers hand it out (ARCHITECTURE.md, invariants).
#[inline]
fn row_index(body: &[u8], offset: u64) -> Result<u32> {
    let index = match body.first_chunk() {
        Some(&bytes) => u32::from_le_bytes(bytes),
        None => {
            return Err(Fields::new(ROW_HDR, body)
                .u32("a row header's row")
                .map_or_else(|err| err, |_| Error::record("a row header"))
                .with_offset(offset));
        }
    };
    if index > MAX_ROW {
        return Err(row_past_the_sheet(index, offset));
    }
    Ok(index)
}

#[cold]
#[inline(never)]
fn row_past_the_sheet(index: u32, offset: u64) -> Error {
    Error::new(ErrorKind::CellReference("more than 1048576 rows".into()))
        .with_row(index.saturating_add(1))
        .with_offset(offset)
}

/// The text of an error code (BrtCellError, BrtFmlaError); a code that is
/// none of Excel's is an error.
pub(crate) fn error_text(code: u8) -> Result<&'static str> {
    crate::formula::error_text(code)
        .ok_or_else(|| Error::invalid_value(format!("error code {code:#04x} is none of Excel's")))
}

/// `number` where a cell can hold it: a NaN or infinity is no number
/// Excel holds, so its record is damaged (as in `.xls`: see
/// `crate::xls::records::finite`).
#[inline(always)]
fn finite(number: f64) -> Result<f64> {
    if number.is_finite() {
        Ok(number)
    } else {
        Err(crate::xls::records::not_finite(number))
    }
}

/// An `RkNumber`: the high 30 bits of a double, or a 30-bit signed
/// integer (bit 1); divided by 100 when bit 0 is set.
#[inline]
pub(crate) fn rk_number(rk: u32) -> f64 {
    let number = if rk & 2 != 0 {
        f64::from((rk as i32) >> 2)
    } else {
        f64::from_bits(u64::from(rk & 0xFFFF_FFFC) << 32)
    };
    if rk & 1 != 0 { number / 100.0 } else { number }
}

/// A common cell record [`RowSink::plain_cells`] read: its column, style,
/// value (None for a blank) and body size.
struct Plain<'a> {
    column: u32,
    style: u32,
    value: Option<Value<'a>>,
    size: usize,
}

/// Reads the common cell record at the start of `block` (its type
/// checked by the caller): `SHORT` for the short form (no column: the one
/// after the last, `next_column`), `KIND` the full form's type. None when
/// the record is not of the size its fields make, or holds anything out of
/// the ordinary (a column past XFD, a NaN or infinity, a shared string not
/// in the table), which the per-record path reads again, with its errors.
/// Each type's fields lie at fixed places.
#[inline(always)]
fn plain_record<'a, const SHORT: bool, const KIND: u16>(
    block: &[u8; 18],
    next_column: u32,
    context: SheetContext<'a>,
) -> Option<Plain<'a>> {
    let head = if SHORT { 4 } else { 8 };
    let size = head
        + match KIND {
            CELL_RK | CELL_ISST => 4,
            CELL_REAL => 8,
            CELL_BOOL => 1,
            _ => 0,
        };
    if usize::from(block[1]) != size {
        return None;
    }
    let word =
        |at: usize| u32::from_le_bytes([block[at], block[at + 1], block[at + 2], block[at + 3]]);
    let column = if SHORT { next_column } else { word(2) };
    if column > MAX_COLUMN {
        return None;
    }
    let style = word(2 + head - 4) & 0x00FF_FFFF;
    let at = 2 + head;
    let value = match KIND {
        // A NaN or infinity is the per-record path's (an error at its
        // offset).
        CELL_RK => {
            let number = rk_number(word(at));
            if !number.is_finite() {
                return None;
            }
            Some(context.number_value(number, style))
        }
        CELL_REAL => {
            let number = f64::from_bits(u64::from(word(at)) | u64::from(word(at + 4)) << 32);
            if !number.is_finite() {
                return None;
            }
            Some(context.number_value(number, style))
        }
        CELL_BOOL => Some(Value::Bool(block[at] != 0)),
        CELL_ISST => Some(Value::Text(
            context.shared_string(u64::from(word(at))).ok()?,
        )),
        // A blank: formatting only, no value.
        _ => None,
    };
    Some(Plain {
        column,
        style,
        value,
        size,
    })
}

#[cfg(test)]
#[path = "../../benches/support/xlsb_writer.rs"]
mod writer;

impl RowSource for XlsbRows<'_> {
    fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        XlsbRows::next_row(self)
    }

    fn select_columns(&mut self, columns: Option<ColumnSet>) {
        XlsbRows::select_columns(self, columns);
    }

    fn set_column_window(&mut self, first: u32, last: u32) {
        XlsbRows::set_column_window(self, first, last);
    }

    fn set_formulas(&mut self, formulas: bool) {
        self.formulas = formulas;
    }

    fn set_chunk_size(&mut self, chunk_size: usize, limits: &Limits) {
        self.records.set_chunk_size(chunk_size, limits);
    }
}

#[cfg(test)]
mod tests {
    use super::writer::{record, wide};
    use super::*;
    use crate::fuzzing::{read_sheet_xlsb, read_sheet_xlsb_with};

    fn cell(column: u32, style: u32) -> Vec<u8> {
        [column.to_le_bytes(), style.to_le_bytes()].concat()
    }

    fn row(out: &mut Vec<u8>, index: u32) {
        let mut body = index.to_le_bytes().to_vec();
        body.extend_from_slice(&[0; 13]);
        record(out, ROW_HDR, &body);
    }

    fn sheet(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        record(&mut out, 0x0081, &[]);
        record(&mut out, 0x0094, &[0; 16]);
        record(&mut out, BEGIN_SHEET_DATA_FOR_TESTS, &[]);
        out.extend_from_slice(data);
        record(&mut out, END_SHEET_DATA, &[]);
        record(&mut out, 0x00B0, &[0; 16]);
        record(&mut out, 0x0082, &[]);
        out
    }

    const BEGIN_SHEET_DATA_FOR_TESTS: u16 = super::super::records::BEGIN_SHEET_DATA;

    /// A sheet with every cell record, short forms, text of every kind,
    /// an empty row and records the reader skips between them.
    fn every_record() -> Vec<u8> {
        let mut data = Vec::new();
        row(&mut data, 0);
        record(
            &mut data,
            CELL_RK,
            &[cell(0, 0), (123u32 << 2 | 2).to_le_bytes().to_vec()].concat(),
        );
        record(
            &mut data,
            CELL_RK,
            &[
                cell(1, 0),
                (((-12345i32) << 2) as u32 | 3).to_le_bytes().to_vec(),
            ]
            .concat(),
        );
        record(
            &mut data,
            CELL_REAL,
            &[cell(2, 1), 45000.5f64.to_le_bytes().to_vec()].concat(),
        );
        record(&mut data, CELL_BLANK, &cell(3, 1));
        let mut text = cell(4, 0);
        wide(
            &mut text,
            "h\u{e9}llo \u{6771}\u{4eac} \u{1F600}\r\n_x0041_",
        );
        record(&mut data, CELL_ST, &text);
        record(
            &mut data,
            CELL_ISST,
            &[cell(5, 0), 2u32.to_le_bytes().to_vec()].concat(),
        );
        record(&mut data, 0x0400, &[0xAB; 300]); // an unknown record
        row(&mut data, 2);
        row(&mut data, 3);
        record(&mut data, CELL_BOOL, &[cell(0, 0), vec![1]].concat());
        record(&mut data, CELL_ERROR, &[cell(1, 0), vec![0x07]].concat());
        let mut rich = cell(2, 0);
        rich.push(1);
        wide(&mut rich, "rich");
        rich.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]); // a run
        record(&mut data, CELL_RSTRING, &rich);
        let formula = [0u8; 10];
        record(
            &mut data,
            FMLA_NUM,
            &[cell(3, 0), 2.5f64.to_le_bytes().to_vec(), formula.to_vec()].concat(),
        );
        let mut string = cell(4, 0);
        wide(&mut string, "");
        string.extend_from_slice(&formula);
        record(&mut data, FMLA_STRING, &string);
        record(
            &mut data,
            FMLA_BOOL,
            &[cell(5, 0), vec![0], formula.to_vec()].concat(),
        );
        record(
            &mut data,
            FMLA_ERROR,
            &[cell(6, 0), vec![0x2A], formula.to_vec()].concat(),
        );
        // Short forms: the column is the previous cell's plus one.
        record(
            &mut data,
            SHORT_REAL,
            &[1u32.to_le_bytes().to_vec(), 0.25f64.to_le_bytes().to_vec()].concat(),
        );
        record(
            &mut data,
            SHORT_ISST,
            &[0u32.to_le_bytes(), 1u32.to_le_bytes()].concat(),
        );
        let mut lone = 0u32.to_le_bytes().to_vec();
        lone.extend_from_slice(&[2, 0, 0, 0, 0x00, 0xD8, 0x41, 0x00]);
        record(&mut data, SHORT_ST, &lone);
        row(&mut data, 1_048_575);
        record(
            &mut data,
            CELL_RK,
            &[cell(16_383, 0), (7u32 << 2 | 2).to_le_bytes().to_vec()].concat(),
        );
        sheet(&data)
    }

    #[test]
    fn reads_every_record_the_same_in_chunks_of_any_size() {
        let bytes = every_record();
        let (cells, digest) = read_sheet_xlsb(&bytes, bytes.len()).unwrap();
        assert_eq!(cells, 16, "{digest}");
        let expected = [
            "row 0 true",
            "A1 0 Number(123.0)",
            "B1 0 Number(-123.45)",
            "C1 1 DateTime(",
            "E1 0 Text(\"h\u{e9}llo \u{6771}\u{4eac} \u{1F600}\\r\\n_x0041_\")",
            "F1 0 Text(\"two\")",
            "row 2 false",
            "row 3 true",
            "A4 0 Bool(true)",
            "B4 0 Error(\"#DIV/0!\")",
            "C4 0 Text(\"rich\")",
            "D4 0 Number(2.5)",
            "E4 0 Text(\"\")",
            "F4 0 Bool(false)",
            "G4 0 Error(\"#N/A\")",
            "H4 1 DateTime(",
            "I4 0 Text(\"one\")",
            "J4 0 Text(\"\u{FFFD}A\")",
            "row 1048575 true",
            "XFD1048576 0 Number(7.0)",
        ];
        let mut lines = digest.lines();
        for want in expected {
            let line = lines.next().unwrap_or_default();
            assert!(line.starts_with(want), "{line:?} is not {want:?}\n{digest}");
        }
        for chunk in [1, 7, 4096] {
            assert_eq!(
                read_sheet_xlsb(&bytes, chunk).unwrap(),
                (cells, digest.clone()),
                "chunk {chunk}"
            );
        }
    }

    /// Rows of the common cells (numbers, booleans, shared strings,
    /// blanks, full and short forms) with records of other sizes and
    /// kinds among them: read in runs from a large window, record by
    /// record from a 1-byte one.
    fn common_runs(extra: &[u8]) -> Vec<u8> {
        let mut data = Vec::new();
        for index in 0..300u32 {
            row(&mut data, index);
            let style = index % 2;
            record(
                &mut data,
                CELL_RK,
                &[cell(0, style), (index << 2 | 2).to_le_bytes().to_vec()].concat(),
            );
            record(
                &mut data,
                SHORT_RK,
                &[
                    style.to_le_bytes().to_vec(),
                    (index << 2 | 3).to_le_bytes().to_vec(),
                ]
                .concat(),
            );
            record(
                &mut data,
                CELL_REAL,
                &[cell(2, 1), (f64::from(index) + 0.5).to_le_bytes().to_vec()].concat(),
            );
            record(
                &mut data,
                SHORT_REAL,
                &[
                    0u32.to_le_bytes().to_vec(),
                    (-f64::from(index)).to_le_bytes().to_vec(),
                ]
                .concat(),
            );
            record(&mut data, CELL_BLANK, &cell(4, 1));
            record(
                &mut data,
                SHORT_BOOL,
                &[0u32.to_le_bytes().to_vec(), vec![(index % 3) as u8]].concat(),
            );
            record(
                &mut data,
                CELL_ISST,
                &[cell(6, 0), (index % 3).to_le_bytes().to_vec()].concat(),
            );
            record(
                &mut data,
                SHORT_ISST,
                &[
                    0u32.to_le_bytes().to_vec(),
                    ((index + 1) % 3).to_le_bytes().to_vec(),
                ]
                .concat(),
            );
            record(&mut data, SHORT_BLANK, &0u32.to_le_bytes());
            if index.is_multiple_of(7) {
                // A record with bytes after its fields, and one of another
                // kind: read by the record loop.
                record(&mut data, CELL_BOOL, &[cell(9, 0), vec![1, 0xEE]].concat());
                record(&mut data, CELL_ERROR, &[cell(10, 0), vec![0x2A]].concat());
            }
            record(
                &mut data,
                CELL_RK,
                &[
                    cell(20 + index % 5, 0),
                    (1u32 << 2 | 2).to_le_bytes().to_vec(),
                ]
                .concat(),
            );
            if index == 250 {
                data.extend_from_slice(extra);
            }
        }
        sheet(&data)
    }

    #[test]
    fn common_cells_in_runs_read_as_record_by_record() {
        let bytes = common_runs(&[]);
        let (cells, digest) = read_sheet_xlsb(&bytes, bytes.len()).unwrap();
        assert_eq!(cells, 300 * 8 + 43 * 2, "{digest}");
        let row7: Vec<&str> = digest
            .lines()
            .skip_while(|line| *line != "row 7 true")
            .take(12)
            .collect();
        assert_eq!(
            row7,
            [
                "row 7 true",
                "A8 1 DateTime(DateTime { serial: 7.0, system: V1900, from_text: false, kind: Date })",
                "B8 1 DateTime(DateTime { serial: 0.07, system: V1900, from_text: false, kind: Date })",
                "C8 1 DateTime(DateTime { serial: 7.5, system: V1900, from_text: false, kind: Date })",
                "D8 0 Number(-7.0)",
                "F8 0 Bool(true)",
                "G8 0 Text(\"one\")",
                "H8 0 Text(\"two\")",
                "J8 0 Bool(true)",
                "K8 0 Error(\"#N/A\")",
                "W8 0 Number(1.0)",
                "row 8 true",
            ]
        );
        for chunk in [1, 7, 4096] {
            assert_eq!(
                read_sheet_xlsb(&bytes, chunk).unwrap(),
                (cells, digest.clone()),
                "chunk {chunk}"
            );
        }
        // A damaged cell inside a run: the same error at the same cell.
        for damage in [
            [cell(16_384, 0), 1u32.to_le_bytes().to_vec()].concat(),
            [cell(3, 0), 3u32.to_le_bytes().to_vec()].concat(),
        ] {
            let mut extra = Vec::new();
            record(&mut extra, CELL_ISST, &damage);
            let bytes = common_runs(&extra);
            let whole = read_sheet_xlsb(&bytes, bytes.len()).unwrap_err();
            assert_eq!(whole.location().row, Some(251), "{whole}");
            for chunk in [1, 7, 4096] {
                let err = read_sheet_xlsb(&bytes, chunk).unwrap_err();
                assert_eq!(err.to_string(), whole.to_string(), "chunk {chunk}");
            }
        }
    }

    #[test]
    fn a_selection_reads_only_its_columns() {
        let bytes = every_record();
        let columns: ColumnSet = [1].into_iter().collect();
        for chunk in [1, 4096] {
            let (cells, digest) =
                read_sheet_xlsb_with(&bytes, chunk, Some(columns.clone())).unwrap();
            assert_eq!(cells, 2, "{digest}");
            assert!(digest.contains("row 1048575 true"), "{digest}");
            assert!(digest.contains("row 2 false"), "{digest}");
        }
    }

    /// The error of reading `data` (inside sheet data) in chunks of 1, 7
    /// and whole: the same in each.
    fn error_of(data: &[u8]) -> Error {
        let bytes = sheet(data);
        let whole = read_sheet_xlsb(&bytes, bytes.len()).unwrap_err();
        for chunk in [1, 7] {
            let err = read_sheet_xlsb(&bytes, chunk).unwrap_err();
            assert_eq!(err.to_string(), whole.to_string(), "chunk {chunk}");
        }
        assert_eq!(
            whole.location().part.as_deref(),
            Some("xl/worksheets/sheet1.bin")
        );
        assert_eq!(whole.location().sheet.as_deref(), Some("Fuzz"));
        whole
    }

    /// Where the records of `data` start in the sheet part.
    const DATA: u64 = 3 + 19 + 3;

    #[test]
    fn a_record_running_past_the_part_is_an_error_at_its_offset() {
        let mut bytes = Vec::new();
        record(&mut bytes, 0x0081, &[]);
        bytes.extend_from_slice(&[0x05, 100, 1, 2, 3]); // claims 100 bytes
        for chunk in [1, 7, 4096] {
            let err = read_sheet_xlsb(&bytes, chunk).unwrap_err();
            assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
            assert!(
                err.to_string().contains("runs past the end of the part"),
                "{err}"
            );
            assert_eq!(err.location().offset, Some(3));
        }
        // An unwanted record that lies is found too.
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&[0x81, 0x01, 0x7F, 1, 2]);
        let err = read_sheet_xlsb(&bytes, 4096).unwrap_err();
        assert!(
            err.to_string().contains("runs past the end of the part"),
            "{err}"
        );
        // A header cut short.
        let err = read_sheet_xlsb(&[0x81], 4096).unwrap_err();
        assert!(err.to_string().contains("inside a record header"), "{err}");
    }

    #[test]
    fn varints_that_do_not_end_are_errors() {
        let mut data = Vec::new();
        row(&mut data, 0);
        let offset = DATA + data.len() as u64;
        data.extend_from_slice(&[0x05, 0x80, 0x80, 0x80, 0x80, 0x01]);
        let err = error_of(&data);
        assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
        assert_eq!(err.location().offset, Some(offset));
        let err = error_of(&[0x85, 0x81, 0x01, 0x00]);
        assert!(err.to_string().contains("more than 2 bytes"), "{err}");
    }

    #[test]
    fn records_over_the_limit_are_refused_before_they_are_read() {
        // 2 MiB claimed (the reader's limit is 1 MiB), and the largest size
        // the header can say: refused at once, nothing buffered.
        for size in [2u32 << 20, (1 << 28) - 1] {
            let mut data = Vec::new();
            row(&mut data, 0);
            let mut header = Vec::new();
            record(&mut header, CELL_REAL, &[]);
            let mut claimed = Vec::new();
            let mut rest = size;
            loop {
                let byte = (rest & 0x7F) as u8;
                rest >>= 7;
                if rest == 0 {
                    claimed.push(byte);
                    break;
                }
                claimed.push(byte | 0x80);
            }
            data.push(CELL_REAL as u8);
            data.extend_from_slice(&claimed);
            data.extend_from_slice(&[0; 16]);
            let err = error_of(&data);
            assert!(
                matches!(err.kind(), ErrorKind::LimitExceeded { .. }),
                "{err}"
            );
        }
        // An unknown record bigger than the limit is skipped, never held.
        let mut data = Vec::new();
        row(&mut data, 0);
        record(&mut data, 0x0400, &vec![7; 3 << 20]);
        record(&mut data, CELL_BOOL, &[cell(0, 0), vec![1]].concat());
        let bytes = sheet(&data);
        for chunk in [7, 4096] {
            assert_eq!(read_sheet_xlsb(&bytes, chunk).unwrap().0, 1);
        }
    }

    #[test]
    fn records_cut_short_are_errors_at_their_cell() {
        let mut data = Vec::new();
        row(&mut data, 4);
        let offset = DATA + data.len() as u64;
        record(&mut data, CELL_REAL, &[cell(2, 0), vec![0; 4]].concat());
        let err = error_of(&data);
        assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
        assert_eq!(err.location().row, Some(5));
        assert_eq!(err.location().column, Some(3));
        assert_eq!(err.location().offset, Some(offset));
        // A string whose count lies.
        let mut data = Vec::new();
        row(&mut data, 0);
        record(
            &mut data,
            CELL_ST,
            &[cell(0, 0), vec![0xFF, 0xFF, 0xFF, 0x7F, 0x41, 0]].concat(),
        );
        let err = error_of(&data);
        assert!(
            err.to_string().contains("runs past the end of record"),
            "{err}"
        );
        // No column at all.
        let mut data = Vec::new();
        row(&mut data, 0);
        record(&mut data, CELL_BOOL, &[1, 0]);
        assert!(matches!(error_of(&data).kind(), ErrorKind::Record(_)));
    }

    #[test]
    fn common_cells_cut_short_anywhere_are_errors_at_their_cell() {
        // The cells the one-length-check path reads, full and short forms,
        // each cut at every length: the field-by-field reader's error.
        let cases = [
            (CELL_RK, 4),
            (CELL_REAL, 8),
            (CELL_BOOL, 1),
            (CELL_ISST, 4),
            (CELL_BLANK, 0),
            (SHORT_RK, 4),
            (SHORT_REAL, 8),
            (SHORT_BOOL, 1),
            (SHORT_ISST, 4),
            (SHORT_BLANK, 0),
        ];
        for (kind, value) in cases {
            let short = kind >= SHORT_BLANK;
            let head = if short { 4 } else { 8 };
            let body = if short {
                vec![0; head + value]
            } else {
                [cell(2, 0), vec![0; value]].concat()
            };
            for cut in 0..body.len() {
                let mut data = Vec::new();
                row(&mut data, 4);
                let offset = DATA + data.len() as u64;
                record(&mut data, kind, &body[..cut]);
                let err = error_of(&data);
                assert!(
                    err.to_string().contains("runs past the end of record"),
                    "{kind:#x} cut at {cut}: {err}"
                );
                assert_eq!(err.location().row, Some(5));
                let column = match (short, cut) {
                    (true, _) => Some(1),
                    (false, 0..4) => None,
                    (false, _) => Some(3),
                };
                assert_eq!(err.location().column, column, "{kind:#x} cut at {cut}");
                assert_eq!(err.location().offset, Some(offset));
            }
        }
    }

    #[test]
    fn bad_positions_and_values_are_typed_errors() {
        let value = |kind: u16, column: u32, value: &[u8]| {
            let mut data = Vec::new();
            row(&mut data, 9);
            record(&mut data, kind, &[cell(column, 0), value.to_vec()].concat());
            data
        };
        let err = error_of(&value(CELL_ISST, 1, &3u32.to_le_bytes()));
        assert!(
            matches!(
                err.kind(),
                ErrorKind::SharedStringIndex { index: 3, count: 3 }
            ),
            "{err}"
        );
        assert_eq!(
            (err.location().row, err.location().column),
            (Some(10), Some(2))
        );
        let err = error_of(&value(CELL_BOOL, 16_384, &[1]));
        assert!(matches!(err.kind(), ErrorKind::CellReference(_)), "{err}");
        let err = error_of(&value(CELL_ERROR, 0, &[0x08]));
        assert!(matches!(err.kind(), ErrorKind::InvalidValue(_)), "{err}");
        let mut data = Vec::new();
        row(&mut data, 1_048_576);
        let err = error_of(&data);
        assert!(matches!(err.kind(), ErrorKind::CellReference(_)), "{err}");
        // Rows that go back come in record order, each a row of its own.
        let mut data = Vec::new();
        row(&mut data, 5);
        record(&mut data, CELL_BOOL, &[cell(0, 0), vec![1]].concat());
        row(&mut data, 4);
        record(&mut data, CELL_BOOL, &[cell(1, 0), vec![0]].concat());
        row(&mut data, 4);
        let bytes = sheet(&data);
        for chunk in [1, 7, 4096] {
            let (cells, digest) = read_sheet_xlsb(&bytes, chunk).unwrap();
            assert_eq!(cells, 2);
            let rows: Vec<&str> = digest.lines().filter(|l| l.starts_with("row ")).collect();
            assert_eq!(
                rows,
                ["row 5 true", "row 4 true", "row 4 false"],
                "{digest}"
            );
        }
        let err = error_of(&value(CELL_BOOL, 0, &[1])[19..]);
        assert!(err.to_string().contains("before any row header"), "{err}");
    }

    /// A formula's flags and parsed formula: `rgce`, no extra data.
    fn parsed(rgce: &[u8]) -> Vec<u8> {
        let mut out = vec![0, 0];
        out.extend_from_slice(&(rgce.len() as u32).to_le_bytes());
        out.extend_from_slice(rgce);
        out.extend_from_slice(&0u32.to_le_bytes());
        out
    }

    /// Each row's cells: column, value (debug-printed) and formula.
    type FormulaCells = Vec<Vec<(u32, String, Option<String>)>>;

    /// The rows of a sheet part, read with formulas or without.
    fn formula_rows(data: &[u8], formulas: bool) -> Result<FormulaCells> {
        use crate::contract::{PartSource, SheetRows};
        let bytes = sheet(data);
        let styles = crate::styles::Styles::general(crate::date::DateSystem::V1900);
        let links = crate::formula::Links {
            sheets: vec![Some("'My Sheet'!".into())],
            names: vec!["Rate".into()],
            external_names: Vec::new(),
        };
        let context = SheetContext {
            shared_strings: None,
            styles: &styles,
            date_system: crate::date::DateSystem::V1900,
            links: &links,
        };
        let limits = Limits::default();
        let mut rows = SheetRows::new(XlsbRows::new(
            PartSource::Reader(Box::new(&bytes[..])),
            context,
            "S",
            "p",
            &limits,
        ))
        .with_formulas(formulas);
        let mut out = Vec::new();
        while let Some(row) = rows.next_row()? {
            out.push(
                row.cells()
                    .iter()
                    .map(|c| {
                        (
                            c.column(),
                            format!("{:?}", c.value()),
                            c.formula().map(str::to_owned),
                        )
                    })
                    .collect(),
            );
        }
        Ok(out)
    }

    #[test]
    fn formula_text_is_decompiled_when_asked_for() {
        let mut data = Vec::new();
        row(&mut data, 4);
        record(&mut data, CELL_BOOL, &[cell(0, 0), vec![1]].concat());
        // A1+1: PtgRef (relative A1), PtgInt 1, PtgAdd.
        let a1_plus_1 = [0x24, 0, 0, 0, 0, 0, 0xC0, 0x1E, 1, 0, 0x03];
        record(
            &mut data,
            FMLA_NUM,
            &[
                cell(1, 0),
                2.0f64.to_le_bytes().to_vec(),
                parsed(&a1_plus_1),
            ]
            .concat(),
        );
        // "a"&'My Sheet'!$B$2 with a string result.
        let mut concat = vec![0x17, 1, 0, b'a', 0];
        concat.extend_from_slice(&[0x3A, 0, 0, 1, 0, 0, 0, 1, 0]);
        concat.push(0x08);
        record(
            &mut data,
            FMLA_STRING,
            &[
                cell(2, 0),
                vec![2, 0, 0, 0, b'a', 0, b'x', 0],
                parsed(&concat),
            ]
            .concat(),
        );
        // Rate*2 with a boolean result (whatever its meaning).
        let rate = [0x23, 1, 0, 0, 0, 0x1E, 2, 0, 0x05];
        record(
            &mut data,
            FMLA_BOOL,
            &[cell(3, 0), vec![0], parsed(&rate)].concat(),
        );
        let rows = formula_rows(&data, true).unwrap();
        let formulas: Vec<Option<&str>> = rows[0].iter().map(|c| c.2.as_deref()).collect();
        assert_eq!(
            formulas,
            [
                None,
                Some("A1+1"),
                Some("\"a\"&'My Sheet'!$B$2"),
                Some("Rate*2")
            ]
        );
        // The values are the cached results, formulas or not.
        assert_eq!(rows[0][2].1, "Text(\"ax\")");
        assert_eq!(formula_rows(&data, false).unwrap()[0][2].2, None);
        assert_eq!(formula_rows(&data, false).unwrap()[0][2].1, rows[0][2].1);
    }

    #[test]
    fn shared_formulas_are_decompiled_against_each_cell() {
        use super::super::records::SHR_FMLA;
        // B5:B6 share A5+1 (PtgRefN: same row, one column left), written
        // on B5 with a BrtShrFmla after it; B6 holds PtgExp of row 5.
        let exp = [0x01, 4, 0, 0, 0];
        let shared = [0x4C, 0, 0, 0, 0, 0xFF, 0xFF, 0x1E, 1, 0, 0x03];
        let mut shrfmla = Vec::new();
        for x in [4u32, 5, 1, 1, shared.len() as u32] {
            shrfmla.extend_from_slice(&x.to_le_bytes());
        }
        shrfmla.extend_from_slice(&shared);
        shrfmla.extend_from_slice(&0u32.to_le_bytes());
        let formula_cell =
            |column: u32| [cell(column, 0), 2.0f64.to_le_bytes().to_vec(), parsed(&exp)].concat();
        let mut data = Vec::new();
        row(&mut data, 4);
        record(&mut data, FMLA_NUM, &formula_cell(1));
        record(&mut data, SHR_FMLA, &shrfmla);
        row(&mut data, 5);
        record(&mut data, FMLA_NUM, &formula_cell(1));
        let rows = formula_rows(&data, true).unwrap();
        assert_eq!(rows[0][0].2.as_deref(), Some("A5+1"));
        assert_eq!(rows[1][0].2.as_deref(), Some("A6+1"));
        // Without formulas the BrtShrFmla is skipped unread.
        assert_eq!(formula_rows(&data, false).unwrap()[1][0].2, None);
        // A PtgExp naming its own row with no BrtShrFmla after it, and one
        // naming a row no shared formula covers.
        let mut data = Vec::new();
        row(&mut data, 4);
        record(&mut data, FMLA_NUM, &formula_cell(1));
        let err = formula_rows(&data, true).unwrap_err();
        assert!(
            err.to_string().contains("no shared formula record"),
            "{err}"
        );
        assert_eq!(
            (err.location().row, err.location().column),
            (Some(5), Some(2))
        );
        let mut data = Vec::new();
        row(&mut data, 7);
        record(&mut data, FMLA_NUM, &formula_cell(1));
        let err = formula_rows(&data, true).unwrap_err();
        assert!(err.to_string().contains("names row 5"), "{err}");
        // A BrtShrFmla cut short is a record error.
        let mut data = Vec::new();
        row(&mut data, 4);
        record(&mut data, FMLA_NUM, &formula_cell(1));
        record(&mut data, SHR_FMLA, &shrfmla[..20]);
        let err = formula_rows(&data, true).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
    }

    #[test]
    fn formula_text_not_offered_is_an_error_naming_the_token_and_cell() {
        let one = |rgce: &[u8]| {
            let mut data = Vec::new();
            row(&mut data, 0);
            record(&mut data, CELL_BOOL, &[cell(0, 0), vec![1]].concat());
            record(
                &mut data,
                FMLA_NUM,
                &[cell(1, 0), 2.0f64.to_le_bytes().to_vec(), parsed(rgce)].concat(),
            );
            formula_rows(&data, true).unwrap_err()
        };
        // An array constant.
        let err = one(&[0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(matches!(err.kind(), ErrorKind::Unsupported(_)), "{err}");
        assert!(err.to_string().contains("0x40"), "{err}");
        assert_eq!(
            (err.location().row, err.location().column),
            (Some(1), Some(2))
        );
        assert_eq!(err.location().sheet.as_deref(), Some("S"));
        assert_eq!(err.location().part.as_deref(), Some("p"));
        assert!(err.location().offset.is_some());
        // A shared formula's cell.
        let err = one(&[0x01, 0, 0, 0, 0]);
        assert!(err.to_string().contains("PtgExp"), "{err}");
        // Tokens cut short: a malformed record, not a panic.
        let err = one(&[0x24, 0, 0]);
        assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
        // A token stream's size past its record.
        let mut data = Vec::new();
        row(&mut data, 0);
        let mut body = [cell(1, 0), 2.0f64.to_le_bytes().to_vec(), vec![0, 0]].concat();
        body.extend_from_slice(&u32::MAX.to_le_bytes());
        record(&mut data, FMLA_NUM, &body);
        let err = formula_rows(&data, true).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Record(_)), "{err}");
        // Without formulas, the same record is its cached value.
        assert_eq!(formula_rows(&data, false).unwrap()[0][0].1, "Number(2.0)");
    }

    #[test]
    fn decodes_rk_numbers() {
        // Integer forms.
        assert_eq!(rk_number(123 << 2 | 2), 123.0);
        assert_eq!(rk_number(((-5i32) << 2) as u32 | 2), -5.0);
        assert_eq!(rk_number(123 << 2 | 3), 1.23);
        assert_eq!(rk_number(((-12345i32) << 2) as u32 | 3), -123.45);
        // Double forms: the high 32 bits of 1.5 and of -2.0.
        let high = |number: f64| (number.to_bits() >> 32) as u32;
        assert_eq!(rk_number(high(1.5)), 1.5);
        assert_eq!(rk_number(high(-2.0)), -2.0);
        assert_eq!(rk_number(high(1234.0) | 1), 12.34);
    }

    #[test]
    fn names_error_codes() {
        assert_eq!(error_text(0x07).unwrap(), "#DIV/0!");
        assert_eq!(error_text(0x2B).unwrap(), "#GETTING_DATA");
        assert!(error_text(0x08).is_err());
    }
}
