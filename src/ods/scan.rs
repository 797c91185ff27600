//! The content scanner: `content.xml` bytes in, one raw row of one table
//! at a time out.
//!
//! Read this first: like the `.xlsx` sheet scanner, this owns no buffer,
//! does no I/O and knows nothing of ZIP. It is handed the unconsumed
//! window of the part and either finds one complete `table:table-row`
//! with a value in it ([`Scan::Row`]), or says how much can be dropped
//! and that it needs more input ([`Scan::NeedMore`]), or that its table
//! has ended ([`Scan::End`]). A row cut off by the end of the window is
//! scanned again from its start once more bytes are there, so the caller
//! may feed chunks of any size; positions in a [`RawRow`] are offsets
//! into the window.
//!
//! Between rows the scanner walks the document's structure token by
//! token: the root, `office:body`, `office:spreadsheet`, the tables before
//! its own (each passed over by the skim, `skim.rs`, never tokenized),
//! then its table's column records (their default cell styles), row
//! groups, header rows and rows. Anything else (styles, shapes, forms,
//! named expressions) is passed over token by token, its end tags checked.
//!
//! Repeats are runs: a cell's `table:number-columns-repeated` and a row's
//! `table:number-rows-repeated` are counts carried in the raw row, never
//! expanded here. A run without a value costs nothing but the addition
//! that moves the column or row on, and a row without a value is not
//! handed out at all; a run with a value is expanded by the reader,
//! within the grid: a value past column 16,384 or row 1,048,576 is an
//! error here, before any of it is handed out.
//!
//! Within a cell only what makes its value is recorded: the spans of its
//! value attributes, and, for a string without `office:string-value` or
//! an error cell, the pieces of its paragraphs' text (`text:s`, `text:tab`
//! and `text:line-break` as pieces of their own, paragraphs joined with a
//! line feed; nothing inside annotations, notes, ruby text, shapes or
//! nested tables).

use std::sync::Arc;

use super::names::{Names, Ns};
use super::skim::{Skim, SkimStep};
use super::styles::StyleNames;
use crate::cell::{MAX_COLUMN, MAX_ROW};
use crate::error::{Error, Result};
use crate::xlsx::xml::{self, Attributes, Span, Step, Token, XmlError};

/// The deepest elements nest, outside rows and inside one.
pub(crate) const MAX_DEPTH: usize = 256;

/// What a call to [`ContentScanner::scan`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scan {
    /// A row with at least one value, in the [`RawRow`]; `consumed` bytes
    /// of the window are done with once the row has been read.
    Row { consumed: usize },
    /// The window ends inside a token or a row: drop `consumed` bytes and
    /// scan again with more.
    NeedMore { consumed: usize },
    /// The table has ended (or the document has, without it).
    End,
}

/// A cell's value type: `office:value-type`, or LibreOffice's error cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueKind {
    Float,
    Percentage,
    Currency,
    Date,
    Time,
    Bool,
    String,
    /// `calcext:value-type="error"`: the error's text is the paragraph.
    Error,
}

/// A piece of a cell's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Character data (still entity-encoded unless CDATA).
    Text { span: Span, cdata: bool },
    /// `text:s`: this many spaces.
    Spaces(u32),
    /// `text:tab`.
    Tab,
    /// `text:line-break`, or the line between two paragraphs.
    LineFeed,
}

/// A range of pieces in [`RawRow::pieces`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PieceRange {
    pub start: u32,
    pub end: u32,
}

/// A run of cells with a value, as scanned: positions, not values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawCell {
    /// The first column of the run.
    pub column: u32,
    /// How many columns the run covers (at least 1; the last one within
    /// the grid).
    pub repeat: u32,
    /// The style index: the cell's own style, else the row's or its
    /// column's default cell style.
    pub style: u32,
    pub kind: ValueKind,
    /// The value attribute's raw value (`office:value`, `office:date-value`,
    /// ...; `office:string-value` for a string that has one).
    pub value: Option<Span>,
    /// A string's or an error's text, from its paragraphs.
    pub text: PieceRange,
    /// `table:formula`, raw.
    pub formula: Option<Span>,
    /// Offset of the cell's start tag in the window.
    pub offset: usize,
}

/// One row as scanned. Reused from row to row, so its vectors stop growing
/// once they fit the widest row.
#[derive(Debug, Default)]
pub(crate) struct RawRow {
    /// The row index (0-based) of the first repetition.
    pub index: u32,
    /// How many times the row repeats (at least 1; the last one within
    /// the grid).
    pub repeat: u32,
    /// Offsets of the row's start and end in the window.
    pub start: usize,
    pub end: usize,
    /// `table:visibility` is `collapse` or `filter`.
    pub hidden: bool,
    /// Runs of cells with a value, left to right.
    pub cells: Vec<RawCell>,
    pub pieces: Vec<Piece>,
}

impl RawRow {
    fn clear(&mut self) {
        self.cells.clear();
        self.pieces.clear();
        self.hidden = false;
        self.repeat = 1;
    }
}

/// An element open outside rows, and what it is to the scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Root,
    Body,
    Spreadsheet,
    /// The scanner's own table.
    Table,
    /// `table:table-row-group`, `table:table-header-rows`, `table:table-rows`.
    Rows,
    /// `table:table-column-group`, `table:table-header-columns`,
    /// `table:table-columns`.
    Columns,
    Other,
}

/// The error for malformed XML at a window offset.
pub(crate) fn xml_error(err: XmlError) -> Error {
    err.into_error()
}

/// A count attribute (`number-rows-repeated`, `number-columns-spanned`):
/// digits, at least 1 (0 is read as 1); a huge count saturates (it can
/// only run past the grid).
pub(crate) fn parse_count(raw: &[u8], what: &str, offset: usize) -> Result<u64> {
    let digits = raw.trim_ascii();
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(Error::invalid_value(format!(
            "{what} `{}` is not a count",
            String::from_utf8_lossy(raw)
        ))
        .with_offset(offset as u64));
    }
    let count = digits.iter().fold(0u64, |count, &digit| {
        count
            .saturating_mul(10)
            .saturating_add(u64::from(digit - b'0'))
    });
    Ok(count.max(1))
}

/// Whether an attribute value says `collapse` or `filter` (a hidden row
/// or column).
pub(crate) fn is_hidden_visibility(raw: &[u8]) -> bool {
    matches!(raw.trim_ascii(), b"collapse" | b"filter")
}

/// The value type an `office:value-type` names; None for `void`.
fn value_kind(raw: &[u8], offset: usize) -> Result<Option<ValueKind>> {
    Ok(Some(match raw.trim_ascii() {
        b"float" => ValueKind::Float,
        b"percentage" => ValueKind::Percentage,
        b"currency" => ValueKind::Currency,
        b"date" => ValueKind::Date,
        b"time" => ValueKind::Time,
        b"boolean" => ValueKind::Bool,
        b"string" => ValueKind::String,
        b"void" | b"" => return Ok(None),
        other => {
            return Err(Error::invalid_value(format!(
                "`{}` is no office:value-type (float, percentage, currency, date, time, \
                 boolean, string, void)",
                String::from_utf8_lossy(other)
            ))
            .with_offset(offset as u64));
        }
    }))
}

/// Scans one table of `content.xml` (or of a flat ODS document) into raw
/// rows; see the module docs.
#[derive(Debug)]
pub(crate) struct ContentScanner {
    names: Arc<Names>,
    /// The position of the table to read among the spreadsheet's tables.
    target: usize,
    /// Tables met so far.
    tables: usize,
    frames: Vec<Frame>,
    /// The names of the open elements (outside rows), one after another.
    open_names: Vec<u8>,
    name_ends: Vec<usize>,
    /// Passing over a table before the target.
    skim: Option<Skim>,
    root_seen: bool,
    done: bool,
    /// The next row's index (past the grid only after rows without value).
    next_row: u64,
    /// The column records read so far: runs of columns with their
    /// default cell style, as `(first, past the last, style)`.
    column_styles: Vec<(u64, u64, u32)>,
    next_column: u64,
    /// The elements open inside the row being scanned.
    row_stack: Vec<Span>,
    /// Spaces `text:s` adds to one row, at most (the row size limit).
    max_row_bytes: u64,
}

/// What a cell's start tag says.
#[derive(Debug, Default)]
struct CellAttributes {
    kind: Option<ValueKind>,
    error: bool,
    value: Option<Span>,
    date: Option<Span>,
    time: Option<Span>,
    boolean: Option<Span>,
    string: Option<Span>,
    repeat: u64,
    style: Option<Span>,
    formula: Option<Span>,
}

impl ContentScanner {
    /// A scanner of the table at `target` (0-based among the
    /// spreadsheet's tables), with the names spelled as the document's
    /// root binds them (read at open, by the sheet list's pass).
    pub(crate) fn new(target: usize, max_row_bytes: u64, names: Arc<Names>) -> ContentScanner {
        ContentScanner {
            names,
            target,
            tables: 0,
            frames: Vec::new(),
            open_names: Vec::new(),
            name_ends: Vec::new(),
            skim: None,
            root_seen: false,
            done: false,
            next_row: 0,
            column_styles: Vec::new(),
            next_column: 0,
            row_stack: Vec::new(),
            max_row_bytes,
        }
    }

    /// Scans `input` (the unconsumed window) for the next row with a
    /// value; `complete`: the window holds the rest of the part.
    pub(crate) fn scan(
        &mut self,
        input: &[u8],
        complete: bool,
        raw: &mut RawRow,
        styles: &StyleNames,
    ) -> Result<Scan> {
        let mut pos = 0;
        loop {
            if self.done {
                return Ok(Scan::End);
            }
            if let Some(skim) = &mut self.skim {
                match skim
                    .run(input, pos, complete, &self.names, false)
                    .map_err(xml_error)?
                {
                    SkimStep::Ended(next) => {
                        self.skim = None;
                        self.tables += 1;
                        pos = next;
                        continue;
                    }
                    SkimStep::More(at) | SkimStep::NamedExpressions(at) => {
                        return Ok(Scan::NeedMore { consumed: at });
                    }
                }
            }
            let (token, next) = match xml::next_token(input, pos, complete).map_err(xml_error)? {
                Step::Token(token, next) => (token, next),
                Step::Incomplete => return Ok(Scan::NeedMore { consumed: pos }),
                Step::End => return self.document_end(pos),
            };
            match token {
                Token::Start {
                    name,
                    attributes,
                    self_closing,
                } => {
                    let Some(frame) =
                        self.classify(input, pos, name, attributes, self_closing, styles)?
                    else {
                        // Passed over (a table before the target).
                        pos = next;
                        continue;
                    };
                    if frame == Frame::Table && self_closing {
                        // The target table, empty.
                        self.done = true;
                        return Ok(Scan::End);
                    }
                    if frame == Frame::Rows && self.names.table_row.is(name.of(input)) {
                        match self.scan_row(
                            input,
                            pos,
                            attributes,
                            self_closing,
                            next,
                            complete,
                            raw,
                            styles,
                        )? {
                            None => return Ok(Scan::NeedMore { consumed: pos }),
                            Some(end) if !raw.cells.is_empty() => {
                                return Ok(Scan::Row { consumed: end });
                            }
                            Some(end) => {
                                pos = end;
                                continue;
                            }
                        }
                    }
                    if !self_closing {
                        self.open(input, name, frame, pos)?;
                    }
                    pos = next;
                }
                Token::End { name } => {
                    let closed = self.close(input, name, pos)?;
                    pos = next;
                    if closed == Frame::Table {
                        self.done = true;
                        return Ok(Scan::End);
                    }
                }
                // Text between structure elements, comments, CDATA.
                _ => pos = next,
            }
        }
    }

    /// The document ended (the input is complete and holds no more
    /// tokens) at `pos`.
    fn document_end(&mut self, pos: usize) -> Result<Scan> {
        if !self.frames.is_empty() {
            let message = if self.frames.contains(&Frame::Table) {
                "the part ends inside the table (cut short?)"
            } else {
                "the part ends inside an element (cut short?)"
            };
            return Err(Error::xml(message).with_offset(pos as u64));
        }
        if !self.root_seen {
            return Err(Error::xml("the part has no root element").with_offset(pos as u64));
        }
        self.done = true;
        Ok(Scan::End)
    }

    /// What the element starting at `pos` is, under the innermost open
    /// one; None when it was passed over whole (or is being: a table
    /// before the target starts the skim). A table column record is read
    /// here; a row is told by its frame, `Rows`, and its name.
    fn classify(
        &mut self,
        input: &[u8],
        pos: usize,
        name: Span,
        attributes: Span,
        self_closing: bool,
        styles: &StyleNames,
    ) -> Result<Option<Frame>> {
        let qname = name.of(input);
        let names = &self.names;
        let frame = match self.frames.last() {
            None => {
                if self.root_seen {
                    return Err(Error::xml("a second root element").with_offset(pos as u64));
                }
                self.root_seen = true;
                if !names.document_content.is(qname) && !names.document.is(qname) {
                    return Err(Error::package(format!(
                        "the content's root element is `{}`, not office:document-content",
                        String::from_utf8_lossy(qname)
                    ))
                    .with_offset(pos as u64));
                }
                Frame::Root
            }
            Some(Frame::Root) if names.body.is(qname) => Frame::Body,
            Some(Frame::Body) if names.spreadsheet.is(qname) => Frame::Spreadsheet,
            Some(Frame::Spreadsheet) if names.table.is(qname) => {
                if self.tables == self.target {
                    self.tables += 1;
                    self.next_row = 0;
                    self.next_column = 0;
                    self.column_styles.clear();
                    Frame::Table
                } else {
                    if self_closing {
                        self.tables += 1;
                    } else {
                        self.skim = Some(Skim::new());
                    }
                    return Ok(None);
                }
            }
            Some(Frame::Table | Frame::Rows) => {
                if names.table_row.is(qname)
                    || names.table_row_group.is(qname)
                    || names.table_header_rows.is(qname)
                    || names.table_rows.is(qname)
                {
                    Frame::Rows
                } else if names.table_column.is(qname) {
                    self.column_record(input, attributes, styles)?;
                    Frame::Other
                } else if names.table_column_group.is(qname)
                    || names.table_header_columns.is(qname)
                    || names.table_columns.is(qname)
                {
                    Frame::Columns
                } else {
                    Frame::Other
                }
            }
            Some(Frame::Columns) => {
                if names.table_column.is(qname) {
                    self.column_record(input, attributes, styles)?;
                    Frame::Other
                } else if names.table_column_group.is(qname)
                    || names.table_header_columns.is(qname)
                    || names.table_columns.is(qname)
                {
                    Frame::Columns
                } else {
                    Frame::Other
                }
            }
            Some(_) => Frame::Other,
        };
        Ok(Some(frame))
    }

    /// Reads a `table:table-column` record: its default cell style, for
    /// the cells of its columns without a style of their own.
    fn column_record(&mut self, input: &[u8], attributes: Span, styles: &StyleNames) -> Result<()> {
        let mut repeat = 1;
        let mut style = None;
        for attribute in Attributes::new(input, attributes) {
            let (name, value) = attribute.map_err(xml_error)?;
            if self.names.a_columns_repeated.is(name) {
                repeat = parse_count(value.of(input), "number-columns-repeated", value.start)?;
            } else if self.names.a_default_cell_style.is(name) {
                style = Some(styles.index(value.of(input)));
            }
        }
        let first = self.next_column;
        self.next_column = first.saturating_add(repeat);
        if let Some(style) = style {
            self.column_styles.push((first, self.next_column, style));
        }
        Ok(())
    }

    /// The default cell style of `column`'s record, if it names one, and
    /// the first column past `column` where that may change.
    fn column_style(&self, column: u64) -> (Option<u32>, u64) {
        let at = self
            .column_styles
            .partition_point(|&(_, end, _)| end <= column);
        match self.column_styles.get(at) {
            Some(&(first, end, style)) if first <= column => (Some(style), end),
            Some(&(first, _, _)) => (None, first),
            None => (None, u64::MAX),
        }
    }

    /// Opens an element outside rows.
    fn open(&mut self, input: &[u8], name: Span, frame: Frame, pos: usize) -> Result<()> {
        if self.frames.len() >= MAX_DEPTH {
            return Err(Error::xml("elements nested more than 256 deep").with_offset(pos as u64));
        }
        self.frames.push(frame);
        self.open_names.extend_from_slice(name.of(input));
        self.name_ends.push(self.open_names.len());
        Ok(())
    }

    /// Closes the innermost element outside rows, checking the end tag's
    /// name; returns what it was.
    fn close(&mut self, input: &[u8], name: Span, pos: usize) -> Result<Frame> {
        let Some(frame) = self.frames.pop() else {
            return Err(Error::xml("an end tag with no element open").with_offset(pos as u64));
        };
        let end = self.name_ends.pop().unwrap_or(0);
        let start = self.name_ends.last().copied().unwrap_or(0);
        if self.open_names.get(start..end) != Some(name.of(input)) {
            return Err(
                Error::xml("an end tag does not close the element open here")
                    .with_offset(pos as u64),
            );
        }
        self.open_names.truncate(start);
        Ok(frame)
    }

    /// Scans the row whose start tag is at `start` into `raw` (its
    /// attributes span `attributes`, its content starts at `next`).
    /// Returns the position after the row, or None when the window ends
    /// first.
    #[allow(clippy::too_many_arguments)]
    fn scan_row(
        &mut self,
        input: &[u8],
        start: usize,
        attributes: Span,
        self_closing: bool,
        next: usize,
        complete: bool,
        raw: &mut RawRow,
        styles: &StyleNames,
    ) -> Result<Option<usize>> {
        raw.clear();
        raw.start = start;
        let mut repeat = 1;
        let mut row_style = None;
        for attribute in Attributes::new(input, attributes) {
            let (name, value) = attribute.map_err(xml_error)?;
            let names = &self.names;
            if names.a_rows_repeated.is(name) {
                repeat = parse_count(value.of(input), "number-rows-repeated", value.start)?;
            } else if names.a_visibility.is(name) {
                raw.hidden = is_hidden_visibility(value.of(input));
            } else if names.a_default_cell_style.is(name) {
                row_style = Some(styles.index(value.of(input)));
            }
        }
        let mut column = 0;
        let mut spaces = 0;
        let end = if self_closing {
            next
        } else {
            let mut pos = next;
            loop {
                let (token, after) =
                    match xml::next_token(input, pos, complete).map_err(xml_error)? {
                        Step::Token(token, after) => (token, after),
                        Step::Incomplete => return Ok(None),
                        Step::End => {
                            return Err(Error::xml("the part ends inside a row (cut short?)")
                                .with_offset(start as u64));
                        }
                    };
                match token {
                    Token::Start {
                        name,
                        attributes,
                        self_closing,
                    } => {
                        let qname = name.of(input);
                        let found = if self.names.table_cell.is(qname)
                            || self.names.covered_cell.is(qname)
                        {
                            let cell = CellStart {
                                at: pos,
                                name,
                                attributes,
                                self_closing,
                                after,
                            };
                            self.scan_cell(
                                input,
                                cell,
                                complete,
                                raw,
                                &mut column,
                                row_style,
                                styles,
                                &mut spaces,
                            )?
                        } else if self_closing {
                            Some(after)
                        } else {
                            // Not a cell (no writer puts anything else in a
                            // row): passed over with its content.
                            self.scan_content(input, name, after, complete, None, &mut spaces)?
                        };
                        match found {
                            Some(found) => pos = found,
                            None => return Ok(None),
                        }
                    }
                    Token::End { name } => {
                        if !self.names.table_row.is(name.of(input)) {
                            return Err(Error::xml(
                                "an end tag does not close the element open here",
                            )
                            .with_offset(pos as u64));
                        }
                        break after;
                    }
                    _ => pos = after,
                }
            }
        };
        raw.end = end;
        if !raw.cells.is_empty() {
            let last = self.next_row.saturating_add(repeat - 1);
            if last > u64::from(MAX_ROW) {
                return Err(past_the_grid(format!(
                    "a value in row {} lies past row 1,048,576 (the row is repeated {repeat} times from row {})",
                    last.saturating_add(1),
                    self.next_row.saturating_add(1),
                ))
                .with_offset(start as u64));
            }
            // Both fit: `last` is within the grid.
            raw.index = self.next_row as u32;
            raw.repeat = repeat as u32;
        }
        self.next_row = self.next_row.saturating_add(repeat);
        Ok(Some(end))
    }

    /// Scans one cell (`table:table-cell` or `table:covered-table-cell`):
    /// records it in `raw` when it has a value, and moves `column` on by
    /// its repeat. Returns the position after it, or None when the window
    /// ends first.
    #[allow(clippy::too_many_arguments)]
    fn scan_cell(
        &mut self,
        input: &[u8],
        start: CellStart,
        complete: bool,
        raw: &mut RawRow,
        column: &mut u64,
        row_style: Option<u32>,
        styles: &StyleNames,
        spaces: &mut u64,
    ) -> Result<Option<usize>> {
        let mut cell = CellAttributes {
            repeat: 1,
            ..CellAttributes::default()
        };
        let names = &self.names;
        for attribute in Attributes::new(input, start.attributes) {
            let (name, value) = attribute.map_err(xml_error)?;
            if names.a_value_type.is(name) {
                cell.kind = value_kind(value.of(input), value.start)?;
            } else if names.a_value.is(name) {
                cell.value = Some(value);
            } else if names.a_date_value.is(name) {
                cell.date = Some(value);
            } else if names.a_time_value.is(name) {
                cell.time = Some(value);
            } else if names.a_boolean_value.is(name) {
                cell.boolean = Some(value);
            } else if names.a_string_value.is(name) {
                cell.string = Some(value);
            } else if names.a_columns_repeated.is(name) {
                cell.repeat = parse_count(value.of(input), "number-columns-repeated", value.start)?;
            } else if names.a_style_name.is(name) {
                cell.style = Some(value);
            } else if names.a_formula.is(name) {
                cell.formula = Some(value);
            } else if names.a_calc_value_type.is(name) {
                cell.error = value.of(input).trim_ascii() == b"error";
            }
        }
        let kind = if cell.error && cell.kind.is_some() {
            Some(ValueKind::Error)
        } else {
            cell.kind
        };
        let value = match kind {
            None | Some(ValueKind::Error) => None,
            Some(ValueKind::Float | ValueKind::Percentage | ValueKind::Currency) => cell.value,
            Some(ValueKind::Date) => cell.date,
            Some(ValueKind::Time) => cell.time,
            Some(ValueKind::Bool) => cell.boolean,
            Some(ValueKind::String) => cell.string,
        };
        let wants_text = match kind {
            Some(ValueKind::String) => cell.string.is_none(),
            Some(ValueKind::Error) => true,
            _ => false,
        };
        let text_start = raw.pieces.len();
        let end = if start.self_closing {
            start.after
        } else {
            let pieces = wants_text.then_some(&mut raw.pieces);
            match self.scan_content(input, start.name, start.after, complete, pieces, spaces)? {
                Some(end) => end,
                None => return Ok(None),
            }
        };
        let text = PieceRange {
            start: text_start as u32,
            end: raw.pieces.len() as u32,
        };
        let first = *column;
        *column = first.saturating_add(cell.repeat);
        let has_value = match kind {
            None => false,
            Some(ValueKind::String) => true,
            // An error cell without text gives no value.
            Some(ValueKind::Error) => text.start != text.end,
            // A number, date, time or boolean without its attribute neither.
            Some(_) => value.is_some(),
        };
        let Some(kind) = kind.filter(|_| has_value) else {
            raw.pieces.truncate(text_start);
            return Ok(Some(end));
        };
        let last = first.saturating_add(cell.repeat - 1);
        if last > u64::from(MAX_COLUMN) {
            return Err(past_the_grid(format!(
                "a value in column {} lies past column XFD (16,384) (the cell is repeated {} times from column {})",
                last.saturating_add(1),
                cell.repeat,
                first.saturating_add(1),
            ))
            .with_offset(start.at as u64));
        }
        let own = match cell.style {
            Some(style) => Some(styles.index(style.of(input))),
            None => row_style,
        };
        let mut raw_cell = RawCell {
            // Both fit: `last` is within the grid.
            column: first as u32,
            repeat: cell.repeat as u32,
            style: own.unwrap_or(styles.default_index()),
            kind,
            value,
            text,
            formula: cell.formula,
            offset: start.at,
        };
        if own.is_some() || self.column_styles.is_empty() {
            raw.cells.push(raw_cell);
            return Ok(Some(end));
        }
        // The columns' default styles: a run split where they change.
        let mut column = first;
        while column <= last {
            let (style, until) = self.column_style(column);
            let run_last = until.saturating_sub(1).min(last);
            raw_cell.column = column as u32;
            raw_cell.repeat = (run_last - column + 1) as u32;
            raw_cell.style = style.unwrap_or(styles.default_index());
            raw.cells.push(raw_cell);
            column = run_last + 1;
        }
        Ok(Some(end))
    }

    /// Passes over the content of the element named `outer`, from `from`
    /// to its end tag (checked, as every end tag in it), recording into
    /// `pieces` (when given) the text of its paragraphs. Returns the
    /// position after the end tag, or None when the window ends first.
    fn scan_content(
        &mut self,
        input: &[u8],
        outer: Span,
        from: usize,
        complete: bool,
        mut pieces: Option<&mut Vec<Piece>>,
        spaces: &mut u64,
    ) -> Result<Option<usize>> {
        let names = &self.names;
        let stack = &mut self.row_stack;
        stack.clear();
        // The depth of the open paragraph's element, and of an element
        // whose text is none of the cell's.
        let mut paragraph: Option<usize> = None;
        let mut excluded: Option<usize> = None;
        let mut paragraphs = 0u32;
        let mut pos = from;
        loop {
            let (token, after) = match xml::next_token(input, pos, complete).map_err(xml_error)? {
                Step::Token(token, after) => (token, after),
                Step::Incomplete => return Ok(None),
                Step::End => {
                    return Err(Error::xml("the part ends inside a cell (cut short?)")
                        .with_offset(from as u64));
                }
            };
            match token {
                Token::Start {
                    name,
                    attributes,
                    self_closing,
                } => {
                    if let Some(pieces) = pieces.as_deref_mut()
                        && excluded.is_none()
                    {
                        let qname = name.of(input);
                        if paragraph.is_some() {
                            if names.text_s.is(qname) {
                                let mut count = 1;
                                for attribute in Attributes::new(input, attributes) {
                                    let (key, value) = attribute.map_err(xml_error)?;
                                    if names.a_text_c.is(key) {
                                        count =
                                            parse_count(value.of(input), "text:c", value.start)?;
                                    }
                                }
                                *spaces = spaces.saturating_add(count);
                                if *spaces > self.max_row_bytes {
                                    return Err(Error::limit(
                                        "row or string item size",
                                        self.max_row_bytes,
                                    )
                                    .with_offset(pos as u64));
                                }
                                pieces.push(Piece::Spaces(count as u32));
                            } else if names.text_tab.is(qname) {
                                pieces.push(Piece::Tab);
                            } else if names.text_line_break.is(qname) {
                                pieces.push(Piece::LineFeed);
                            }
                        }
                        if names.annotation.is(qname)
                            || names.text_note_body.is(qname)
                            || names.text_ruby_text.is(qname)
                            || names.table.is(qname)
                            || names.in_namespace(qname, Ns::Draw)
                        {
                            if !self_closing {
                                excluded = Some(stack.len());
                            }
                        } else if paragraph.is_none()
                            && (names.text_p.is(qname) || names.text_h.is(qname))
                        {
                            if paragraphs > 0 {
                                pieces.push(Piece::LineFeed);
                            }
                            paragraphs += 1;
                            if !self_closing {
                                paragraph = Some(stack.len());
                            }
                        }
                    }
                    if !self_closing {
                        if stack.len() >= MAX_DEPTH {
                            return Err(Error::xml("elements nested more than 256 deep in a cell")
                                .with_offset(pos as u64));
                        }
                        stack.push(name);
                    }
                }
                Token::End { name } => match stack.pop() {
                    None => {
                        // The end of the element itself.
                        if outer.of(input) != name.of(input) {
                            return Err(Error::xml(
                                "an end tag does not close the element open here",
                            )
                            .with_offset(pos as u64));
                        }
                        return Ok(Some(after));
                    }
                    Some(open) => {
                        if open.of(input) != name.of(input) {
                            return Err(Error::xml(
                                "an end tag does not close the element open here",
                            )
                            .with_offset(pos as u64));
                        }
                        if paragraph == Some(stack.len()) {
                            paragraph = None;
                        }
                        if excluded == Some(stack.len()) {
                            excluded = None;
                        }
                    }
                },
                Token::Text(span) | Token::CData(span) => {
                    if let Some(pieces) = pieces.as_deref_mut()
                        && paragraph.is_some()
                        && excluded.is_none()
                    {
                        let cdata = matches!(token, Token::CData(_));
                        pieces.push(Piece::Text { span, cdata });
                    }
                }
                Token::Skip => {}
            }
            pos = after;
        }
    }
}

/// Where a cell's start tag is and what it holds.
#[derive(Debug, Clone, Copy)]
struct CellStart {
    at: usize,
    name: Span,
    attributes: Span,
    self_closing: bool,
    after: usize,
}

/// A value placed past the sheet's last row or column.
fn past_the_grid(message: String) -> Error {
    Error::new(crate::error::ErrorKind::CellReference(message))
}
