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

use bumpalo::Bump;

use super::records::{
    CELL_BLANK, CELL_BOOL, CELL_ERROR, CELL_ISST, CELL_REAL, CELL_RK, CELL_RSTRING, CELL_ST,
    END_SHEET_DATA, FMLA_BOOL, FMLA_ERROR, FMLA_NUM, FMLA_STRING, ROW_HDR, Record, RecordStream,
    SHORT_BLANK, SHORT_BOOL, SHORT_ERROR, SHORT_ISST, SHORT_REAL, SHORT_RK, SHORT_ST, push_utf16,
};
use crate::cell::{Cell, MAX_COLUMN, MAX_ROW, Row, Value};
use crate::columns::ColumnSet;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::rows::{PartSource, SheetContext};

/// The most cells with a value one row holds: one per column.
const MAX_ROW_CELLS: usize = MAX_COLUMN as usize + 1;

/// The record types the row reader reads; every other record is skipped
/// unread.
#[inline]
fn is_row_record(kind: u16) -> bool {
    kind <= SHORT_ISST || kind == CELL_RSTRING || kind == END_SHEET_DATA
}

/// A cell's value before the row is complete: text is a range of the
/// row's text buffer until the buffer stops growing.
#[derive(Clone, Copy)]
enum Slot<'a> {
    Value(Value<'a>),
    Text { start: usize, end: usize },
}

#[derive(Clone, Copy)]
struct RawCell<'a> {
    column: u32,
    style: u32,
    slot: Slot<'a>,
}

/// The rows of one `.xlsb` sheet part: what [`SheetRows`](crate::SheetRows)
/// reads an `.xlsb` sheet with.
pub(crate) struct XlsbRows<'a> {
    records: RecordStream<'a>,
    context: SheetContext<'a>,
    sheet_name: &'a str,
    part: &'a str,
    arena: Bump,
    /// The row's cells and decoded text, reused row after row.
    cells: Vec<RawCell<'a>>,
    text: String,
    /// The next row's index, when the previous row ended at its header.
    next_header: Option<u32>,
    /// The index of the last row handed out.
    last_row: Option<u32>,
    formulas: bool,
    /// The columns resolved and handed out; None for all.
    columns: Option<ColumnSet>,
    /// No more rows: the sheet data ended, the part ended, or an error.
    finished: bool,
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
            next_header: None,
            last_row: None,
            formulas: false,
            columns: None,
            finished: false,
            max_row_bytes: limits.max_row_bytes,
        }
    }

    /// Replaces the window with one of `chunk_size` bytes (for tests and
    /// fuzzing: small windows make records straddle chunk boundaries).
    pub(crate) fn with_chunk_size(mut self, chunk_size: usize, limits: &Limits) -> Self {
        self.records = self.records.with_chunk_size(chunk_size, limits);
        self
    }

    /// Formula text is not decoded from `.xlsb` (that needs a decompiler of
    /// its parsed formulas): with `formulas`, the first formula cell read
    /// is an [`ErrorKind::Unsupported`] error rather than a cell without
    /// its formula.
    pub(crate) fn with_formulas(mut self, formulas: bool) -> Self {
        self.formulas = formulas;
        self
    }

    /// See [`SheetRows::select_columns`](crate::SheetRows::select_columns):
    /// the records of other columns are still read (their column and
    /// length), but their values are not decoded or looked up.
    pub(crate) fn select_columns(&mut self, columns: Option<ColumnSet>) {
        self.columns = columns;
    }

    pub(crate) fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        if self.finished {
            return Ok(None);
        }
        self.arena.reset();
        match self.read_row() {
            Ok(Some((index, values_elsewhere))) => {
                let text = self.text.as_str();
                let cells = self
                    .arena
                    .alloc_slice_fill_iter(self.cells.iter().map(|cell| Cell {
                        row: index,
                        column: cell.column,
                        style: cell.style,
                        value: match cell.slot {
                            Slot::Value(value) => value,
                            Slot::Text { start, end } => Value::Text(&text[start..end]),
                        },
                        formula: None,
                    }));
                Ok(Some(Row {
                    index,
                    cells,
                    values_elsewhere,
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

    /// Reads the next row's records: its index, and whether a column the
    /// selection leaves out holds a value.
    fn read_row(&mut self) -> Result<Option<(u32, bool)>> {
        self.cells.clear();
        self.text.clear();
        let index = match self.next_header.take() {
            Some(index) => index,
            None => {
                let Some(record) = self.records.next(is_row_record)? else {
                    return Ok(None);
                };
                match record.kind {
                    ROW_HDR => row_index(&record, self.last_row)?,
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
        self.last_row = Some(index);
        let mut values_elsewhere = false;
        let mut previous_column: Option<u32> = None;
        let mut row_bytes: u64 = 0;
        while let Some(record) = self.records.next(is_row_record)? {
            match record.kind {
                ROW_HDR => {
                    self.next_header = Some(row_index(&record, self.last_row)?);
                    break;
                }
                END_SHEET_DATA => {
                    self.end_of_data()?;
                    break;
                }
                _ => {}
            }
            row_bytes += record.body.len() as u64;
            if row_bytes > self.max_row_bytes {
                return Err(Error::limit("row or string item size", self.max_row_bytes)
                    .with_row(index + 1)
                    .with_offset(record.offset));
            }
            let offset = record.offset;
            let column = read_cell(
                &record,
                previous_column,
                self.context,
                self.columns.as_ref(),
                self.formulas,
                &mut self.cells,
                &mut self.text,
                &mut values_elsewhere,
            )
            .map_err(|(err, column)| {
                let err = err.with_row(index + 1).with_offset(offset);
                match column {
                    Some(column) => err.with_column(column + 1),
                    None => err,
                }
            })?;
            previous_column = Some(column);
        }
        Ok(Some((index, values_elsewhere)))
    }

    /// After BrtEndSheetData: the rest of the part is read (framing
    /// checked, nothing kept) so that the archive's CRC check runs.
    fn end_of_data(&mut self) -> Result<()> {
        while self.records.next(|_| false)?.is_some() {}
        self.records.stop();
        Ok(())
    }
}

/// The row index of a BrtRowHdr: within the sheet, and not before the
/// previous row.
fn row_index(record: &Record<'_>, last: Option<u32>) -> Result<u32> {
    let index = record
        .fields()
        .u32("a row header's row")
        .map_err(|err| err.with_offset(record.offset))?;
    if index > MAX_ROW {
        return Err(
            Error::new(ErrorKind::CellReference("more than 1048576 rows".into()))
                .with_row(index.saturating_add(1))
                .with_offset(record.offset),
        );
    }
    if let Some(last) = last
        && index < last
    {
        return Err(Error::record(format!(
            "row {} comes after row {} (rows go backwards)",
            index + 1,
            last + 1
        ))
        .with_row(index + 1)
        .with_offset(record.offset));
    }
    Ok(index)
}

/// The text of an error code (BrtCellError, BrtFmlaError).
pub(crate) fn error_text(code: u8) -> Result<&'static str> {
    Ok(match code {
        0x00 => "#NULL!",
        0x07 => "#DIV/0!",
        0x0F => "#VALUE!",
        0x17 => "#REF!",
        0x1D => "#NAME?",
        0x24 => "#NUM!",
        0x2A => "#N/A",
        0x2B => "#GETTING_DATA",
        other => {
            return Err(Error::invalid_value(format!(
                "error code {other:#04x} is none of Excel's"
            )));
        }
    })
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

/// Reads one cell record into `cells` (or only notes its value when its
/// column is not selected). Returns its column; errors come with the
/// column where it was read.
#[allow(clippy::too_many_arguments)]
#[inline]
fn read_cell<'a>(
    record: &Record<'_>,
    previous_column: Option<u32>,
    context: SheetContext<'a>,
    columns: Option<&ColumnSet>,
    formulas: bool,
    cells: &mut Vec<RawCell<'a>>,
    text: &mut String,
    values_elsewhere: &mut bool,
) -> Result<u32, (Error, Option<u32>)> {
    let kind = record.kind;
    let mut fields = record.fields();
    let short = (SHORT_BLANK..=SHORT_ISST).contains(&kind);
    let column = if short {
        previous_column.map_or(0, |column| column + 1)
    } else {
        fields.u32("a cell's column").map_err(|err| (err, None))?
    };
    let at = |err: Error| (err, Some(column));
    if column > MAX_COLUMN {
        return Err((
            Error::new(ErrorKind::CellReference(
                "more than 16384 columns (past XFD)".into(),
            )),
            None,
        ));
    }
    let style = fields.u32("a cell's style").map_err(at)? & 0x00FF_FFFF;
    if kind == CELL_BLANK || kind == SHORT_BLANK {
        return Ok(column);
    }
    if columns.is_some_and(|columns| !columns.contains(column)) {
        *values_elsewhere = true;
        return Ok(column);
    }
    if formulas && (FMLA_STRING..=FMLA_ERROR).contains(&kind) {
        return Err(at(Error::new(ErrorKind::Unsupported(
            "formula text of .xlsb cells (their formulas are stored parsed, and no decompiler is offered): read without formulas"
                .into(),
        ))));
    }
    let slot = match kind {
        CELL_RK | SHORT_RK => {
            let rk = fields.u32("an RK number").map_err(at)?;
            Slot::Value(context.number_value(rk_number(rk), style))
        }
        CELL_REAL | SHORT_REAL | FMLA_NUM => {
            let number = fields.f64("a number").map_err(at)?;
            Slot::Value(context.number_value(number, style))
        }
        CELL_BOOL | SHORT_BOOL | FMLA_BOOL => {
            Slot::Value(Value::Bool(fields.u8("a boolean").map_err(at)? != 0))
        }
        CELL_ERROR | SHORT_ERROR | FMLA_ERROR => {
            let code = fields.u8("an error code").map_err(at)?;
            Slot::Value(Value::Error(error_text(code).map_err(at)?))
        }
        CELL_ISST | SHORT_ISST => {
            let index = fields.u32("a shared string index").map_err(at)?;
            Slot::Value(Value::Text(
                context.shared_string(u64::from(index)).map_err(at)?,
            ))
        }
        CELL_ST | SHORT_ST | FMLA_STRING | CELL_RSTRING => {
            if kind == CELL_RSTRING {
                fields.u8("a rich string's flags").map_err(at)?;
            }
            let units = fields.wide_string("a cell's text").map_err(at)?;
            let start = text.len();
            push_utf16(units, text);
            // The text of a row is no longer than 1.5 times its records,
            // which the row limit bounds.
            Slot::Text {
                start,
                end: text.len(),
            }
        }
        _ => return Ok(column),
    };
    if cells.len() >= MAX_ROW_CELLS {
        return Err(at(Error::new(ErrorKind::CellReference(format!(
            "more than {MAX_ROW_CELLS} cells with a value in one row"
        )))));
    }
    cells.push(RawCell {
        column,
        style,
        slot,
    });
    Ok(column)
}

#[cfg(test)]
mod tests {
    use super::*;

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
