//! The streaming row reader: inflate, scan, resolve, hand out borrowed rows.
//!
//! [`XlsxRows`] pulls a sheet's inflated XML through a [`ChunkBuffer`],
//! lets the [`SheetScanner`] find each row, then resolves the raw cells into
//! values: shared strings by reference, numbers parsed from the borrowed
//! bytes, dates by style, decoded text in a bumpalo arena that is reset
//! before the next row. After the first rows have sized the buffers nothing
//! here touches the heap.
//!
//! A row whose every value the scanner parsed (`RawRow::values_parsed`; a
//! verbatim inline string, with nothing to decode, counts as parsed:
//! `Parsed::Text`, its span checked as UTF-8 alone) is resolved in one pass
//! into a slice of the exact length; other rows are UTF-8-checked and go
//! through the text path (decoding, escapes, formulas).

use bumpalo::Bump;

use super::number::{parse_index, parse_number};
use super::scan::{CellKind, Parsed, PieceRange, RawCell, RawRow, Scan, SheetScanner};
use crate::ascii::ascii_str;
use crate::cell::{Cell, Row, Value};
use crate::chunk::ChunkBuffer;
use crate::columns::ColumnSet;
use crate::contract::RowSource;
use crate::contract::{PartSource, SheetContext};
use crate::date::parse_iso_datetime;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::xml::row_text::RowText;
use crate::xml::{self, Piece, Span};

/// The rows of one `.xlsx` sheet part: what [`SheetRows`](crate::SheetRows)
/// reads an `.xlsx` sheet with.
pub(crate) struct XlsxRows<'a> {
    source: PartSource<'a>,
    buffer: ChunkBuffer,
    scanner: SheetScanner,
    raw: RawRow,
    arena: Bump,
    context: SheetContext<'a>,
    sheet_name: &'a str,
    part: &'a str,
    /// Bytes of the window the previous row occupied, dropped on the next call.
    pending: usize,
    formulas: bool,
    finished: bool,
    max_row_bytes: u64,
}

impl<'a> XlsxRows<'a> {
    pub(crate) fn new(
        source: PartSource<'a>,
        context: SheetContext<'a>,
        sheet_name: &'a str,
        part: &'a str,
        limits: &Limits,
    ) -> Self {
        XlsxRows {
            buffer: source.chunk_buffer(limits),
            source,
            scanner: SheetScanner::new(),
            raw: RawRow::default(),
            arena: Bump::new(),
            context,
            sheet_name,
            part,
            pending: 0,
            formulas: false,
            finished: false,
            max_row_bytes: limits.max_row_bytes,
        }
    }

    /// Reads without the scanner's repeated cell shapes (see
    /// [`SheetScanner::without_shapes`]): for tests and fuzzing.
    pub(crate) fn without_shapes(mut self) -> Self {
        self.scanner.without_shapes();
        self
    }

    /// See [`SheetRows::select_columns`](crate::SheetRows::select_columns): the scanner skips the cells
    /// of other columns where it finds them ([`SheetScanner::select`]):
    /// their ends are found, their values neither parsed nor resolved.
    pub(crate) fn select_columns(&mut self, columns: Option<ColumnSet>) {
        self.scanner.select(columns);
    }

    /// The columns whose values make a row exist when the selection
    /// leaves them out (a range's or table's columns); all by default.
    // Used by the Arrow layer only.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn set_column_window(&mut self, first: u32, last: u32) {
        self.scanner.set_window(first, last);
    }

    pub(crate) fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        if self.finished {
            return Ok(None);
        }
        self.buffer.consume(self.pending);
        self.pending = 0;
        self.arena.reset();
        let result = self.advance();
        match result {
            Ok(Some(consumed)) => {
                self.pending = consumed;
                let window = &self.buffer.window()[..consumed];
                let offset = self.buffer.window_offset();
                build_row(window, &self.raw, &self.arena, self.context, self.formulas)
                    .map(Some)
                    .map_err(|err| {
                        self.finished = true;
                        locate(err, self.sheet_name, self.part, offset)
                    })
            }
            Ok(None) => {
                self.finished = true;
                // A read to the sheet's end checks the rest of the shared
                // strings table too (its rows needed only a prefix): the
                // table's size limit and its well-formedness hold as they
                // did when it was read whole at open, whatever the rows
                // asked for, and what only the check read is not kept. A
                // read that stops early (a head, a range) checks only what
                // it parsed.
                if let Some(strings) = self.context.shared_strings {
                    strings
                        .check_to_end()
                        .map_err(|err| err.with_sheet(self.sheet_name))?;
                }
                Ok(None)
            }
            Err(err) => {
                self.finished = true;
                Err(locate(
                    err,
                    self.sheet_name,
                    self.part,
                    self.buffer.window_offset(),
                ))
            }
        }
    }

    /// Scans until a row is complete in the window; returns its length.
    fn advance(&mut self) -> Result<Option<usize>> {
        loop {
            let complete = self.buffer.is_eof();
            match self
                .scanner
                .scan(self.buffer.window(), complete, &mut self.raw)?
            {
                Scan::Row { consumed } => {
                    // The window may be larger than the limit: check the row itself.
                    if (consumed - self.raw.start) as u64 > self.max_row_bytes {
                        return Err(Error::limit("row or string item size", self.max_row_bytes)
                            .with_row(self.raw.index + 1)
                            .with_offset(self.raw.start as u64));
                    }
                    return Ok(Some(consumed));
                }
                Scan::NeedMore { consumed } => {
                    self.buffer.consume(consumed);
                    if complete {
                        return Err(Error::xml("the part ends inside a row"));
                    }
                    self.source.fill_for_rescan(&mut self.buffer)?;
                }
                Scan::End => {
                    // Read the rest so the archive's CRC check runs.
                    self.source.drain()?;
                    return Ok(None);
                }
            }
        }
    }
}

fn locate(err: Error, sheet: &str, part: &str, base: u64) -> Error {
    // An error that names its part already (the shared strings, parsed as
    // a cell needs them) has its offset in that part.
    let err = if err.location().part.is_none() {
        err.shift_offset(base)
    } else {
        err
    };
    err.with_sheet(sheet).with_part(part)
}

/// Resolves the raw cells of one row into values (the scanner recorded
/// only the selected columns' cells).
fn build_row<'r>(
    window: &'r [u8],
    raw: &'r RawRow,
    arena: &'r Bump,
    context: SheetContext<'r>,
    formulas: bool,
) -> Result<Row<'r>> {
    if raw.values_parsed {
        // Every value was parsed by the scanner: one pass into a slice of
        // the exact length, without the text machinery.
        let parsed = raw
            .cells
            .iter()
            .map(|cell| parsed_cell(window, cell, context));
        match arena.alloc_slice_try_fill_iter(parsed) {
            Ok(cells) => {
                return Ok(Row {
                    index: raw.index,
                    hidden: raw.hidden,
                    cells,
                    values_elsewhere: cells.is_empty() && raw.values_skipped,
                });
            }
            Err(Some(err)) => return Err(err),
            // A value the scanner left as text (none should be, in a row
            // without pieces): the general way below reads it.
            Err(None) => {}
        }
    }
    let text =
        RowText::new(window, raw.start, window.len()).map_err(|err| err.with_row(raw.index + 1))?;
    let mut cells = bumpalo::collections::Vec::with_capacity_in(raw.cells.len(), arena);
    for cell in &raw.cells {
        let locate = |err: Error| locate_cell(err, cell);
        let Some(value) = resolve_value(text, raw, cell, arena, context).map_err(locate)? else {
            continue;
        };
        let formula = match cell.formula {
            Some(range) if formulas => {
                Some(join_pieces(text, &raw.pieces, range, false, arena).map_err(locate)?)
            }
            _ => None,
        };
        cells.push(Cell {
            row: cell.row,
            column: cell.column,
            style: cell.style,
            value,
            formula,
        });
    }
    let cells = cells.into_bump_slice();
    Ok(Row {
        index: raw.index,
        hidden: raw.hidden,
        values_elsewhere: cells.is_empty() && raw.values_skipped,
        cells,
    })
}

/// A cell whose value the scanner parsed, resolved; `Err(None)` when the
/// value is still text. Always inlined: once called from two places (with
/// and without a column selection), the compiler kept it out of line, and
/// returning each cell through memory cost 8% of `count -t 1` of the
/// 1M x 10 sheet (6.70 against 6.22 billion instructions, callgrind).
#[inline(always)]
fn parsed_cell<'r>(
    window: &'r [u8],
    cell: &RawCell,
    context: SheetContext<'r>,
) -> Result<Cell<'r>, Option<Error>> {
    let value = match cell.parsed {
        Parsed::Number(number) => context.number_value(number, cell.style),
        Parsed::SharedString(index) => Value::Text(
            context
                .shared_string(index)
                .map_err(|err| Some(locate_cell(err, cell)))?,
        ),
        Parsed::Bool(flag) => Value::Bool(flag),
        // Verbatim (the scanner checked); text that is not UTF-8 sends the
        // row the general way, which reports it.
        Parsed::Text { start, end } => window
            .get(start as usize..end as usize)
            .and_then(|text| ascii_str(text).or_else(|| std::str::from_utf8(text).ok()))
            .map_or(Err(None), |text| Ok(Value::Text(text)))?,
        Parsed::No => return Err(None),
    };
    Ok(Cell {
        row: cell.row,
        column: cell.column,
        style: cell.style,
        value,
        formula: None,
    })
}

/// Adds a cell's position to an error about it.
fn locate_cell(err: Error, cell: &RawCell) -> Error {
    err.with_row(cell.row + 1)
        .with_column(cell.column + 1)
        .with_offset(cell.offset as u64)
}

/// The text of a range of pieces: borrowed when it is one piece that needs
/// no decoding, otherwise decoded into the arena. With `escapes`, OOXML's
/// `_xHHHH_` escapes are decoded too, over the XML-decoded whole.
fn join_pieces<'r>(
    text: RowText<'r>,
    pieces: &[Piece],
    range: PieceRange,
    escapes: bool,
    arena: &'r Bump,
) -> Result<&'r str> {
    let pieces = &pieces[range.start as usize..range.end as usize];
    let decoded = match pieces {
        [] => return Ok(""),
        [piece] if !piece.needs_decoding(text.window, escapes) => return Ok(text.span(piece.span)),
        [piece] if !piece.needs_decoding(text.window, false) => text.span(piece.span),
        _ => {
            // Decoding never lengthens text: one allocation of the raw
            // length, never regrown (regrowing in the arena leaves the old
            // copies behind until the row ends), and escapes are decoded
            // in place in it.
            let raw_length = pieces
                .iter()
                .map(|piece| piece.span.end - piece.span.start)
                .sum();
            let mut out = bumpalo::collections::String::with_capacity_in(raw_length, arena);
            for piece in pieces {
                piece
                    .decode_into(text.span(piece.span), &mut out)
                    .map_err(|err| err.into_error())?;
            }
            if escapes && xml::has_escapes(&out) {
                let mut bytes = out.into_bytes();
                let length = xml::unescape_in_place(&mut bytes);
                bytes.truncate(length);
                let unescaped = bumpalo::collections::String::from_utf8(bytes)
                    .map_err(|_| Error::new(ErrorKind::InvalidUtf8))?;
                return Ok(unescaped.into_bump_str());
            }
            return Ok(out.into_bump_str());
        }
    };
    if escapes && xml::has_escapes(decoded) {
        let mut out = bumpalo::collections::String::with_capacity_in(decoded.len(), arena);
        xml::unescape(decoded, &mut out);
        return Ok(out.into_bump_str());
    }
    Ok(decoded)
}

fn resolve_value<'r>(
    text: RowText<'r>,
    raw: &RawRow,
    cell: &RawCell,
    arena: &'r Bump,
    context: SheetContext<'r>,
) -> Result<Option<Value<'r>>> {
    let Some(range) = cell.value else {
        return Ok(None);
    };
    match cell.parsed {
        Parsed::No => {}
        Parsed::Number(number) => return Ok(Some(context.number_value(number, cell.style))),
        Parsed::SharedString(index) => {
            return context
                .shared_string(index)
                .map(|text| Some(Value::Text(text)));
        }
        Parsed::Bool(flag) => return Ok(Some(Value::Bool(flag))),
        Parsed::Text { start, end } => {
            return Ok(Some(Value::Text(
                text.span(Span::new(start as usize, end as usize)),
            )));
        }
    }
    if matches!(cell.kind, CellKind::FormulaString | CellKind::InlineString) {
        let text = join_pieces(text, &raw.pieces, range, true, arena)?;
        return Ok(Some(Value::Text(text)));
    }
    // The other types hold a token: surrounding whitespace is not part of it,
    // and an empty one is no value.
    let content = join_pieces(text, &raw.pieces, range, false, arena)?;
    let trimmed = content.trim_ascii();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let value = match cell.kind {
        CellKind::SharedString => {
            let index = parse_index(trimmed.as_bytes()).ok_or_else(|| {
                Error::invalid_value(format!("shared string index `{trimmed}` is not a number"))
            })?;
            Value::Text(context.shared_string(index)?)
        }
        CellKind::Bool => match trimmed {
            "1" | "true" | "TRUE" => Value::Bool(true),
            "0" | "false" | "FALSE" => Value::Bool(false),
            other => return Err(Error::invalid_value(format!("`{other}` is not a boolean"))),
        },
        CellKind::Error => Value::Error(trimmed),
        CellKind::Date => {
            let date = parse_iso_datetime(trimmed).ok_or_else(|| {
                Error::invalid_value(format!(
                    "`{trimmed}` is not an ISO 8601 date, time or duration"
                ))
            })?;
            // Shown as its style's format says; as its text says (a date, a
            // time alone, a `P` duration) when the style is not a date one.
            Value::DateTime(match context.styles.date_kind(cell.style) {
                Some(kind) => date.with_kind(kind),
                None => date,
            })
        }
        // Numbers, and the string types handled above.
        _ => {
            let number = parse_number(trimmed.as_bytes())
                .ok_or_else(|| Error::invalid_value(format!("`{trimmed}` is not a number")))?;
            context.number_value(number, cell.style)
        }
    };
    Ok(Some(value))
}

impl RowSource for XlsxRows<'_> {
    fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        XlsxRows::next_row(self)
    }

    fn select_columns(&mut self, columns: Option<ColumnSet>) {
        XlsxRows::select_columns(self, columns);
    }

    fn set_column_window(&mut self, first: u32, last: u32) {
        XlsxRows::set_column_window(self, first, last);
    }

    fn set_formulas(&mut self, formulas: bool) {
        self.formulas = formulas;
    }

    fn set_chunk_size(&mut self, chunk_size: usize, limits: &Limits) {
        self.buffer = ChunkBuffer::with_chunk_size(chunk_size, limits.max_row_bytes);
    }
}
