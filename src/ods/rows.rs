//! The streaming row reader of an `.ods` sheet: inflate, scan, resolve,
//! hand out borrowed rows.
//!
//! [`OdsRows`] pulls `content.xml` (or a flat document) through a
//! [`ChunkBuffer`], lets the [`ContentScanner`] find each row of its table
//! that holds a value, then resolves the raw cells into values: numbers
//! parsed from the borrowed attribute bytes, dates and durations from
//! their ISO 8601 text, text borrowed from the window or decoded into a
//! bumpalo arena that is reset before the next row. A run of repeated
//! cells with a value becomes one cell per column; a repeated row is
//! handed out once per repetition, resolved from the same scanned bytes.
//! After the first rows have sized the buffers nothing here touches the
//! heap.

use bumpalo::Bump;

use super::OdsLayout;
use super::scan::{ContentScanner, Piece, PieceRange, RawCell, RawRow, Scan, ValueKind};
use crate::cell::{Cell, Row, Value};
use crate::chunk::ChunkBuffer;
use crate::columns::ColumnSet;
use crate::contract::{PartSource, RowSource, SheetContext};
use crate::date::{DateSystem, DateTime, DateTimeKind, parse_iso_datetime};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::xlsx::number::parse_number;
use crate::xml::bytes::has_special_byte;
use crate::xml::row_text::RowText;
use crate::xml::{self, Span};

/// The rows of one table of an OpenDocument spreadsheet: what
/// [`SheetRows`](crate::SheetRows) reads an `.ods` sheet with.
pub(crate) struct OdsRows<'a> {
    source: PartSource<'a>,
    buffer: ChunkBuffer,
    scanner: ContentScanner,
    raw: RawRow,
    arena: Bump,
    context: SheetContext<'a>,
    layout: &'a OdsLayout,
    sheet_name: &'a str,
    part: &'a str,
    /// Bytes of the window the scanned row occupied, dropped once its
    /// repetitions have been handed out.
    pending: usize,
    /// Repetitions of the scanned row still to hand out.
    repeats_left: u32,
    /// The index of the row handed out last.
    index: u32,
    formulas: bool,
    finished: bool,
    max_row_bytes: u64,
    columns: Option<ColumnSet>,
    /// The columns whose values make a row exist when the selection
    /// leaves them out.
    window: (u32, u32),
}

impl<'a> OdsRows<'a> {
    /// A reader of the table at `table` (0-based among the spreadsheet's
    /// tables) in the document `source` streams, whose names and styles
    /// `layout` holds; `part` names the document in errors.
    pub(crate) fn new(
        source: PartSource<'a>,
        context: SheetContext<'a>,
        layout: &'a OdsLayout,
        table: usize,
        sheet_name: &'a str,
        part: &'a str,
        limits: &Limits,
    ) -> Self {
        OdsRows {
            buffer: source.chunk_buffer(limits),
            source,
            scanner: ContentScanner::new(table, limits.max_row_bytes, layout.names.clone()),
            raw: RawRow::default(),
            arena: Bump::new(),
            context,
            layout,
            sheet_name,
            part,
            pending: 0,
            repeats_left: 0,
            index: 0,
            formulas: false,
            finished: false,
            max_row_bytes: limits.max_row_bytes,
            columns: None,
            window: (0, u32::MAX),
        }
    }

    /// Replaces the window with one of `chunk_size` bytes (for tests and
    /// fuzzing: small windows make rows straddle chunk boundaries).
    pub(crate) fn with_chunk_size(mut self, chunk_size: usize, limits: &Limits) -> Self {
        self.buffer = ChunkBuffer::with_chunk_size(chunk_size, limits.max_row_bytes);
        self
    }

    /// Reads every row the general way, token by token (for the tests
    /// and the fuzz target that compare it with the fast path).
    pub(crate) fn without_fast_path(mut self) -> Self {
        self.scanner.fast = false;
        self
    }

    /// Also hand out each cell's `table:formula`, as written
    /// (OpenFormula, `of:=[.A1]*2`), through [`Cell::formula`].
    pub(crate) fn with_formulas(mut self, formulas: bool) -> Self {
        self.formulas = formulas;
        self
    }

    /// Only the cells of `columns` from the next row on (None: all); the
    /// others are scanned but never resolved.
    pub(crate) fn select_columns(&mut self, columns: Option<ColumnSet>) {
        self.columns = columns;
    }

    /// The columns whose values make a row exist when the selection
    /// leaves them out (a range's or table's columns); all by default.
    // Used by the Arrow layer only.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn set_column_window(&mut self, first: u32, last: u32) {
        self.window = (first, last);
    }

    pub(crate) fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        if self.finished {
            return Ok(None);
        }
        loop {
            if self.repeats_left > 0 {
                self.repeats_left -= 1;
                self.index += 1;
                break;
            }
            self.buffer.consume(self.pending);
            self.pending = 0;
            match self.advance() {
                Ok(Some(consumed)) => {
                    self.pending = consumed;
                    self.index = self.raw.index;
                    self.repeats_left = self.raw.repeat.saturating_sub(1);
                }
                Ok(None) => {
                    self.finished = true;
                    return Ok(None);
                }
                Err(err) => {
                    self.finished = true;
                    return Err(locate(
                        err,
                        self.sheet_name,
                        self.part,
                        self.buffer.window_offset(),
                    ));
                }
            }
            if self.shows_anything() {
                break;
            }
            // None of its columns is wanted: neither is any repetition.
            self.repeats_left = 0;
        }
        self.arena.reset();
        let window = &self.buffer.window()[..self.pending];
        let offset = self.buffer.window_offset();
        let wanted = Wanted {
            columns: self.columns.as_ref(),
            window: self.window,
        };
        build_row(
            window,
            &self.raw,
            self.index,
            &self.arena,
            self.context,
            self.formulas,
            wanted,
        )
        .map(Some)
        .map_err(|err| {
            self.finished = true;
            locate(err, self.sheet_name, self.part, offset)
        })
    }

    /// Whether the scanned row has a value in a selected column, or in
    /// the column window.
    fn shows_anything(&self) -> bool {
        let Some(columns) = &self.columns else {
            return true;
        };
        self.raw.cells.iter().any(|cell| {
            let last = cell.column + (cell.repeat - 1);
            (cell.column <= self.window.1 && last >= self.window.0)
                || (cell.column..=last).any(|column| columns.contains(column))
        })
    }

    /// Scans until a row with a value is complete in the window; returns
    /// its length.
    fn advance(&mut self) -> Result<Option<usize>> {
        loop {
            let complete = self.buffer.is_eof();
            match self.scanner.scan(
                self.buffer.window(),
                complete,
                &mut self.raw,
                &self.layout.style_names,
            )? {
                Scan::Row { consumed } => {
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
                // The rest of the document is not read: its CRC was
                // checked by the sheet list's pass at open, which read it
                // whole, and the tables after this one are none of this
                // reader's (reading sheet N inflates the document up to
                // the end of table N, no further).
                Scan::End => return Ok(None),
            }
        }
    }
}

fn locate(err: Error, sheet: &str, part: &str, base: u64) -> Error {
    err.shift_offset(base).with_sheet(sheet).with_part(part)
}

/// Which columns a row hands out.
#[derive(Clone, Copy)]
struct Wanted<'s> {
    columns: Option<&'s ColumnSet>,
    window: (u32, u32),
}

/// Resolves the raw cells of one row (repetition `index` of it) into
/// values.
fn build_row<'r>(
    window: &'r [u8],
    raw: &'r RawRow,
    index: u32,
    arena: &'r Bump,
    context: SheetContext<'r>,
    formulas: bool,
    wanted: Wanted<'_>,
) -> Result<Row<'r>> {
    let text = RowText::new(window, raw.start, raw.end).map_err(|err| err.with_row(index + 1))?;
    let mut cells = bumpalo::collections::Vec::with_capacity_in(raw.cells.len(), arena);
    let mut elsewhere = false;
    let in_window = |column: u32| (wanted.window.0..=wanted.window.1).contains(&column);
    for cell in &raw.cells {
        let last = cell.column + (cell.repeat - 1);
        if let Some(columns) = wanted.columns
            && !(cell.column..=last).any(|column| columns.contains(column))
        {
            elsewhere |= cell.column <= wanted.window.1 && last >= wanted.window.0;
            continue;
        }
        let locate = |err: Error| {
            err.with_row(index + 1)
                .with_column(cell.column + 1)
                .with_offset(cell.offset as u64)
        };
        let Some(value) = resolve_value(text, raw, cell, arena, context).map_err(locate)? else {
            continue;
        };
        let formula = match cell.formula {
            Some(span) if formulas => Some(attribute_text(text, span, arena).map_err(locate)?),
            _ => None,
        };
        for column in cell.column..=last {
            if wanted
                .columns
                .is_some_and(|columns| !columns.contains(column))
            {
                elsewhere |= in_window(column);
                continue;
            }
            cells.push(Cell {
                row: index,
                column,
                style: cell.style,
                value,
                formula,
            });
        }
    }
    let cells = cells.into_bump_slice();
    Ok(Row {
        index,
        hidden: raw.hidden,
        values_elsewhere: cells.is_empty() && elsewhere,
        cells,
    })
}

/// The value of a cell; None when it has none after all (an error cell
/// whose text is empty).
fn resolve_value<'r>(
    text: RowText<'r>,
    raw: &RawRow,
    cell: &RawCell,
    arena: &'r Bump,
    context: SheetContext<'r>,
) -> Result<Option<Value<'r>>> {
    let attribute = |arena: &'r Bump| -> Result<&'r str> {
        match cell.value {
            Some(span) => attribute_text(text, span, arena),
            None => Ok(""),
        }
    };
    let value = match cell.kind {
        ValueKind::Float | ValueKind::Percentage | ValueKind::Currency => {
            let number = attribute(arena)?.trim_ascii();
            Value::Number(parse_number(number.as_bytes()).ok_or_else(|| {
                Error::invalid_value(format!("`{number}` is not a number (office:value)"))
            })?)
        }
        ValueKind::Date => {
            let date = attribute(arena)?.trim_ascii();
            let parsed = parse_iso_datetime(date).ok_or_else(|| {
                Error::invalid_value(format!(
                    "`{date}` is not an ISO 8601 date or date-time (office:date-value)"
                ))
            })?;
            Value::DateTime(shown_as_its_style(parsed, cell.style, context))
        }
        ValueKind::Time => {
            let time = attribute(arena)?.trim_ascii();
            let parsed = parse_duration(time).ok_or_else(|| {
                Error::invalid_value(format!(
                    "`{time}` is not an ISO 8601 duration (office:time-value)"
                ))
            })?;
            Value::DateTime(shown_as_its_style(parsed, cell.style, context))
        }
        ValueKind::Bool => {
            let flag = attribute(arena)?.trim_ascii();
            Value::Bool(match flag {
                "true" | "1" | "TRUE" | "True" => true,
                "false" | "0" | "FALSE" | "False" => false,
                other => {
                    return Err(Error::invalid_value(format!(
                        "`{other}` is not a boolean (office:boolean-value)"
                    )));
                }
            })
        }
        ValueKind::String => match cell.value {
            Some(span) => Value::Text(attribute_text(text, span, arena)?),
            None => Value::Text(join_pieces(text, &raw.pieces, cell.text, arena)?),
        },
        ValueKind::Error => {
            let shown = join_pieces(text, &raw.pieces, cell.text, arena)?;
            if shown.is_empty() {
                return Ok(None);
            }
            Value::Error(shown)
        }
    };
    Ok(Some(value))
}

/// A date or time value, shown as its style's format says (a time of
/// day, a duration, a date) when the style is a date or time one.
fn shown_as_its_style(value: DateTime, style: u32, context: SheetContext<'_>) -> DateTime {
    match context.styles.date_kind(style) {
        Some(kind) => value.with_kind(kind),
        None => value,
    }
}

/// An `office:time-value`: an ISO 8601 duration (`PT36H30M`), counted
/// from 1899-12-31 as a `t="d"` duration is; a negative one (`-PT1H`) is
/// a duration before it, which no date shows (its value in days).
pub(crate) fn parse_duration(text: &str) -> Option<DateTime> {
    match text.strip_prefix('-') {
        Some(positive) if positive.starts_with('P') => {
            let length = parse_iso_datetime(positive)?;
            Some(DateTime::from_parts(
                -length.serial(),
                DateSystem::V1900,
                false,
                DateTimeKind::Duration,
            ))
        }
        Some(_) => None,
        None => parse_iso_datetime(text),
    }
}

/// An attribute's value as XML reads it: references decoded, and each
/// tab, line feed or carriage return written as it is (a CR LF as one)
/// read as a space. Borrowed when there is nothing to decode.
fn attribute_text<'r>(text: RowText<'r>, span: Span, arena: &'r Bump) -> Result<&'r str> {
    let raw = text.span(span);
    if !has_special_byte(text.window, span.start, span.end, b'&', 0) {
        return Ok(raw);
    }
    let mut normalized = bumpalo::collections::String::with_capacity_in(raw.len(), arena);
    let mut chars = raw.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\r' => {
                chars.next_if_eq(&'\n');
                normalized.push(' ');
            }
            '\n' | '\t' => normalized.push(' '),
            _ => normalized.push(ch),
        }
    }
    let mut out = bumpalo::collections::String::with_capacity_in(normalized.len(), arena);
    xml::decode_text(&normalized, true, &mut out)
        .map_err(|message| Error::xml(message).with_offset(span.start as u64))?;
    Ok(out.into_bump_str())
}

/// The text of a range of pieces: borrowed when it is one piece that
/// needs no decoding, otherwise decoded into the arena.
fn join_pieces<'r>(
    text: RowText<'r>,
    pieces: &[Piece],
    range: PieceRange,
    arena: &'r Bump,
) -> Result<&'r str> {
    let pieces = &pieces[range.start as usize..range.end as usize];
    match pieces {
        [] => return Ok(""),
        [Piece::Text { span, cdata }] => {
            let piece = xml::Piece {
                span: *span,
                cdata: *cdata,
            };
            if !piece.needs_decoding(text.window, false) {
                return Ok(text.span(*span));
            }
        }
        _ => {}
    }
    // Decoding never lengthens raw text; spaces come on top.
    let length = pieces
        .iter()
        .map(|piece| match piece {
            Piece::Text { span, .. } => span.end - span.start,
            Piece::Spaces(count) => *count as usize,
            Piece::Tab | Piece::LineFeed => 1,
        })
        .sum();
    let mut out = bumpalo::collections::String::with_capacity_in(length, arena);
    for piece in pieces {
        match *piece {
            Piece::Text { span, cdata } => xml::Piece { span, cdata }
                .decode_into(text.span(span), &mut out)
                .map_err(|err| err.into_error())?,
            Piece::Spaces(count) => out.extend(std::iter::repeat_n(' ', count as usize)),
            Piece::Tab => out.push('\t'),
            Piece::LineFeed => out.push('\n'),
        }
    }
    Ok(out.into_bump_str())
}

impl RowSource for OdsRows<'_> {
    fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        OdsRows::next_row(self)
    }

    fn select_columns(&mut self, columns: Option<ColumnSet>) {
        OdsRows::select_columns(self, columns);
    }

    fn set_column_window(&mut self, first: u32, last: u32) {
        OdsRows::set_column_window(self, first, last);
    }

    fn set_formulas(&mut self, formulas: bool) {
        self.formulas = formulas;
    }

    fn set_chunk_size(&mut self, chunk_size: usize, limits: &Limits) {
        self.buffer = ChunkBuffer::with_chunk_size(chunk_size, limits.max_row_bytes);
    }
}
