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

use super::names::{Names, Ns, QName, same};
use super::skim::{Skim, SkimStep};
use super::styles::StyleNames;
use super::tags::{self, Fast, Seen};
use crate::cell::{MAX_COLUMN, MAX_ROW};
use crate::error::{Error, Result};
use crate::xml::bytes::{find_byte, find_forbidden_control, has_byte_below_space};
use crate::xml::{self, Attributes, Span, Step, Token, XmlError};

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
#[inline]
fn value_kind(raw: &[u8], offset: usize) -> Result<Option<ValueKind>> {
    // By frequency; `same` compares lengths first.
    let raw = raw.trim_ascii();
    Ok(Some(if same(raw, b"float") {
        ValueKind::Float
    } else if same(raw, b"string") {
        ValueKind::String
    } else if same(raw, b"date") {
        ValueKind::Date
    } else if same(raw, b"boolean") {
        ValueKind::Bool
    } else if same(raw, b"time") {
        ValueKind::Time
    } else if same(raw, b"percentage") {
        ValueKind::Percentage
    } else if same(raw, b"currency") {
        ValueKind::Currency
    } else if raw.is_empty() || same(raw, b"void") {
        return Ok(None);
    } else {
        return Err(Error::invalid_value(format!(
            "`{}` is no office:value-type (float, percentage, currency, date, time, \
             boolean, string, void)",
            String::from_utf8_lossy(raw)
        ))
        .with_offset(offset as u64));
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
    /// The last few style names looked up and their indexes (rows name
    /// a few styles over and over: no hashing for those).
    style_cache: [(Vec<u8>, u32); 4],
    style_cache_next: usize,
    /// Whether rows are read by the fast path first (tests and the fuzz
    /// target compare the two paths).
    pub(crate) fast: bool,
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
            style_cache: Default::default(),
            style_cache_next: 0,
            fast: true,
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

    /// The index of the style named `raw`, through the cache.
    #[inline]
    fn style_index(&mut self, raw: &[u8], styles: &StyleNames) -> u32 {
        if let Some((_, index)) = self
            .style_cache
            .iter()
            .find(|(name, _)| !name.is_empty() && same(name, raw))
        {
            return *index;
        }
        let index = styles.index(raw);
        // The entry's buffer is reused: no allocation once the names fit.
        let (name, cached) = &mut self.style_cache[self.style_cache_next];
        name.clear();
        name.extend_from_slice(raw);
        *cached = index;
        self.style_cache_next = (self.style_cache_next + 1) % self.style_cache.len();
        index
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
    /// first. The fast path reads the row first; what it leaves (see
    /// `tags.rs`) is read again the general way, token by token.
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
        let hidden = raw.hidden;
        let fast = self.fast;
        let end = if self_closing {
            next
        } else {
            let tried = if fast {
                self.fast_row(input, start, next, raw, row_style, styles)?
            } else {
                Fast::Fallback
            };
            match tried {
                Fast::Done(end) => end,
                Fast::Incomplete if !complete => return Ok(None),
                Fast::Incomplete | Fast::Fallback => {
                    raw.clear();
                    raw.start = start;
                    raw.hidden = hidden;
                    match self.general_row(input, start, next, complete, raw, row_style, styles)? {
                        Some(end) => end,
                        None => return Ok(None),
                    }
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

    /// The fast path of [`scan_row`](Self::scan_row): the row's content
    /// from `from`, read with the tags of `tags.rs`; the characters XML
    /// forbids looked for once over the row. It reports no error of its
    /// own: a row where it meets one (a bad count, an unknown value type,
    /// a value past the grid) is read again by the general path, which
    /// reports the first thing wrong in the row as it comes (a malformed
    /// tag before the bad value in it, say), so that both paths give one
    /// answer.
    fn fast_row(
        &mut self,
        input: &[u8],
        start: usize,
        from: usize,
        raw: &mut RawRow,
        row_style: Option<u32>,
        styles: &StyleNames,
    ) -> Result<Fast<usize>> {
        Ok(self
            .fast_row_or_error(input, start, from, raw, row_style, styles)
            .unwrap_or(Fast::Fallback))
    }

    /// [`fast_row`](Self::fast_row), with the errors it meets.
    fn fast_row_or_error(
        &mut self,
        input: &[u8],
        start: usize,
        from: usize,
        raw: &mut RawRow,
        row_style: Option<u32>,
        styles: &StyleNames,
    ) -> Result<Fast<usize>> {
        let names = Arc::clone(&self.names);
        let mut column = 0;
        let mut spaces = 0;
        let mut pos = from;
        // A row without a byte below 0x20 (most: writers put no line
        // ends in rows) is looked at once, all its words or-ed together;
        // one with tabs or line ends is searched for the forbidden ones.
        let forbidden_before = |at: usize| {
            let row = &input[start..at];
            has_byte_below_space(row) && find_forbidden_control(row).is_some()
        };
        loop {
            let Some(lt) = find_byte(input, pos, b'<') else {
                return Ok(Fast::Incomplete);
            };
            let Some(&second) = input.get(lt + 1) else {
                return Ok(Fast::Incomplete);
            };
            if second == b'/' {
                return Ok(match tags::end_tag(input, lt) {
                    Fast::Done((name, next)) if names.table_row.is(name.of(input)) => {
                        if forbidden_before(next) {
                            Fast::Fallback
                        } else {
                            Fast::Done(next)
                        }
                    }
                    Fast::Incomplete => Fast::Incomplete,
                    _ => Fast::Fallback,
                });
            }
            if !tags::is_name_start(second) {
                return Ok(Fast::Fallback);
            }
            let name = name_at(input, lt + 1, &names.table_cell, &names.covered_cell);
            let qname = name.of(input);
            let found = if names.table_cell.is(qname) || names.covered_cell.is(qname) {
                let mut cell = CellAttributes {
                    repeat: 1,
                    ..CellAttributes::default()
                };
                let mut failed = None;
                let tag = tags::attributes(input, name.end, |key, value| {
                    match cell_attribute(&names, &mut cell, key, value, input) {
                        Ok(true) => Seen::Known,
                        Ok(false) => Seen::Unknown,
                        Err(err) => {
                            failed = Some(err);
                            Seen::Refused
                        }
                    }
                });
                if let Some(err) = failed {
                    return if forbidden_before(lt) {
                        Ok(Fast::Fallback)
                    } else {
                        Err(err)
                    };
                }
                let tag = match tag {
                    Fast::Done(tag) => tag,
                    Fast::Incomplete => return Ok(Fast::Incomplete),
                    Fast::Fallback => return Ok(Fast::Fallback),
                };
                let wants_text = cell.wants_text();
                let text_start = raw.pieces.len();
                let end = if tag.self_closing {
                    tag.next
                } else {
                    let pieces = wants_text.then_some(&mut raw.pieces);
                    match self.fast_content(&names, input, name, tag.next, pieces, &mut spaces) {
                        Ok(Fast::Done(end)) => end,
                        Ok(other) => return Ok(other.map_done()),
                        Err(err) if forbidden_before(lt) => {
                            let _ = err;
                            return Ok(Fast::Fallback);
                        }
                        Err(err) => return Err(err),
                    }
                };
                let recorded = self.record_cell(
                    input,
                    &cell,
                    lt,
                    text_start,
                    raw,
                    &mut column,
                    row_style,
                    styles,
                );
                if let Err(err) = recorded {
                    return if forbidden_before(lt) {
                        Ok(Fast::Fallback)
                    } else {
                        Err(err)
                    };
                }
                end
            } else {
                // Not a cell: passed over with its content.
                let tag = match tags::attributes(input, name.end, |_, _| Seen::Unknown) {
                    Fast::Done(tag) => tag,
                    other => return Ok(other.map_done()),
                };
                if tag.self_closing {
                    tag.next
                } else {
                    match self.fast_content(&names, input, name, tag.next, None, &mut spaces)? {
                        Fast::Done(end) => end,
                        other => return Ok(other.map_done()),
                    }
                }
            };
            pos = found;
        }
    }

    /// The fast path's reading of an element's content, as
    /// [`general_content`](Self::general_content) reads it.
    fn fast_content(
        &mut self,
        names: &Names,
        input: &[u8],
        outer: Span,
        from: usize,
        mut pieces: Option<&mut Vec<Piece>>,
        spaces: &mut u64,
    ) -> Result<Fast<usize>> {
        if let Some(end) = one_paragraph(names, input, outer, from, pieces.as_deref_mut()) {
            return Ok(Fast::Done(end));
        }
        let stack = &mut self.row_stack;
        stack.clear();
        let mut text = TextWalk::default();
        let mut pos = from;
        loop {
            let Some(lt) = find_byte(input, pos, b'<') else {
                return Ok(Fast::Incomplete);
            };
            if lt > pos
                && text.reading()
                && let Some(pieces) = pieces.as_deref_mut()
            {
                pieces.push(Piece::Text {
                    span: Span::new(pos, lt),
                    cdata: false,
                });
            }
            let Some(&second) = input.get(lt + 1) else {
                return Ok(Fast::Incomplete);
            };
            if second == b'/' {
                let (name, next) = match tags::end_tag(input, lt) {
                    Fast::Done(found) => found,
                    other => return Ok(other.map_done()),
                };
                match stack.pop() {
                    None if same(outer.of(input), name.of(input)) => return Ok(Fast::Done(next)),
                    Some(open) if same(open.of(input), name.of(input)) => text.end(stack.len()),
                    _ => return Ok(Fast::Fallback),
                }
                pos = next;
                continue;
            }
            if !tags::is_name_start(second) {
                return Ok(Fast::Fallback);
            }
            let name = Span::new(lt + 1, tags::name_end(input, lt + 1));
            let qname = name.of(input);
            let counting = pieces.is_some() && text.reading() && names.text_s.is(qname);
            let mut count = 1;
            let mut failed = None;
            let tag = tags::attributes(input, name.end, |key, value| {
                if counting && names.a_text_c.is(key) {
                    match parse_count(value.of(input), "text:c", value.start) {
                        Ok(found) => count = found,
                        Err(err) => {
                            failed = Some(err);
                            return Seen::Refused;
                        }
                    }
                }
                Seen::Unknown
            });
            if let Some(err) = failed {
                return Err(err);
            }
            let tag = match tag {
                Fast::Done(tag) => tag,
                other => return Ok(other.map_done()),
            };
            if let Some(pieces) = pieces.as_deref_mut() {
                text.start(names, qname, tag.self_closing, stack.len(), count, pieces)?;
                if counting {
                    *spaces = spaces.saturating_add(count);
                    if *spaces > self.max_row_bytes {
                        return Err(Error::limit("row or string item size", self.max_row_bytes)
                            .with_offset(lt as u64));
                    }
                }
            }
            if !tag.self_closing {
                if stack.len() >= MAX_DEPTH {
                    return Ok(Fast::Fallback);
                }
                stack.push(name);
            }
            pos = tag.next;
        }
    }

    /// The general path of [`scan_row`](Self::scan_row): token by token.
    #[allow(clippy::too_many_arguments)]
    fn general_row(
        &mut self,
        input: &[u8],
        start: usize,
        next: usize,
        complete: bool,
        raw: &mut RawRow,
        row_style: Option<u32>,
        styles: &StyleNames,
    ) -> Result<Option<usize>> {
        let mut column = 0;
        let mut spaces = 0;
        let mut pos = next;
        loop {
            let (token, after) = match xml::next_token(input, pos, complete).map_err(xml_error)? {
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
                        let mut cell = CellAttributes {
                            repeat: 1,
                            ..CellAttributes::default()
                        };
                        for attribute in Attributes::new(input, attributes) {
                            let (key, value) = attribute.map_err(xml_error)?;
                            cell_attribute(&self.names, &mut cell, key, value, input)?;
                        }
                        let text_start = raw.pieces.len();
                        let end = if self_closing {
                            Some(after)
                        } else {
                            let pieces = cell.wants_text().then_some(&mut raw.pieces);
                            self.general_content(input, name, after, complete, pieces, &mut spaces)?
                        };
                        if end.is_some() {
                            self.record_cell(
                                input,
                                &cell,
                                pos,
                                text_start,
                                raw,
                                &mut column,
                                row_style,
                                styles,
                            )?;
                        }
                        end
                    } else if self_closing {
                        Some(after)
                    } else {
                        // Not a cell (no writer puts anything else in a
                        // row): passed over with its content.
                        self.general_content(input, name, after, complete, None, &mut spaces)?
                    };
                    match found {
                        Some(found) => pos = found,
                        None => return Ok(None),
                    }
                }
                Token::End { name } => {
                    if !self.names.table_row.is(name.of(input)) {
                        return Err(
                            Error::xml("an end tag does not close the element open here")
                                .with_offset(pos as u64),
                        );
                    }
                    return Ok(Some(after));
                }
                _ => pos = after,
            }
        }
    }

    /// Records a scanned cell in `raw` when it has a value (its text, if
    /// any, is the pieces from `text_start` on), and moves `column` on by
    /// its repeat.
    #[allow(clippy::too_many_arguments)]
    fn record_cell(
        &mut self,
        input: &[u8],
        cell: &CellAttributes,
        at: usize,
        text_start: usize,
        raw: &mut RawRow,
        column: &mut u64,
        row_style: Option<u32>,
        styles: &StyleNames,
    ) -> Result<()> {
        let kind = cell.kind();
        let value = match kind {
            None | Some(ValueKind::Error) => None,
            Some(ValueKind::Float | ValueKind::Percentage | ValueKind::Currency) => cell.value,
            Some(ValueKind::Date) => cell.date,
            Some(ValueKind::Time) => cell.time,
            Some(ValueKind::Bool) => cell.boolean,
            Some(ValueKind::String) => cell.string,
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
            return Ok(());
        };
        let last = first.saturating_add(cell.repeat - 1);
        if last > u64::from(MAX_COLUMN) {
            return Err(past_the_grid(format!(
                "a value in column {} lies past column XFD (16,384) (the cell is repeated {} times from column {})",
                last.saturating_add(1),
                cell.repeat,
                first.saturating_add(1),
            ))
            .with_offset(at as u64));
        }
        let own = match cell.style {
            Some(style) => Some(self.style_index(style.of(input), styles)),
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
            offset: at,
        };
        if own.is_some() || self.column_styles.is_empty() {
            raw.cells.push(raw_cell);
            return Ok(());
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
        Ok(())
    }

    /// Passes over the content of the element named `outer`, from `from`
    /// to its end tag (checked, as every end tag in it), recording into
    /// `pieces` (when given) the text of its paragraphs. Returns the
    /// position after the end tag, or None when the window ends first.
    fn general_content(
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
        let mut text = TextWalk::default();
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
                    if let Some(pieces) = pieces.as_deref_mut() {
                        let qname = name.of(input);
                        let mut count = 1;
                        let counting = text.reading() && names.text_s.is(qname);
                        if counting {
                            for attribute in Attributes::new(input, attributes) {
                                let (key, value) = attribute.map_err(xml_error)?;
                                if names.a_text_c.is(key) {
                                    count = parse_count(value.of(input), "text:c", value.start)?;
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
                        }
                        text.start(names, qname, self_closing, stack.len(), count, pieces)?;
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
                        text.end(stack.len());
                    }
                },
                Token::Text(span) | Token::CData(span) => {
                    if let Some(pieces) = pieces.as_deref_mut()
                        && text.reading()
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

/// The name that starts at `at`: one of two expected ones (first
/// spellings) compared whole, else read byte by byte.
#[inline(always)]
fn name_at(input: &[u8], at: usize, one: &QName, other: &QName) -> Span {
    for expected in [one.as_bytes(), other.as_bytes()] {
        let end = at + expected.len();
        if input
            .get(end)
            .is_some_and(|&byte| !tags::is_name_byte(byte))
            && same(&input[at..end], expected)
        {
            return Span::new(at, end);
        }
    }
    Span::new(at, tags::name_end(input, at))
}

/// The content of nearly every cell: `<text:p>text</text:p>` then the
/// cell's end tag, spelled with the first prefixes. Returns the position
/// after the end tag, the text recorded as the one paragraph, when the
/// content at `from` is that; None for anything else (read the general
/// way: more paragraphs, markup in the text, a cut-off window).
#[inline(always)]
fn one_paragraph(
    names: &Names,
    input: &[u8],
    outer: Span,
    from: usize,
    pieces: Option<&mut Vec<Piece>>,
) -> Option<usize> {
    let open = names.paragraph_open.as_slice();
    let close = names.paragraph_close.as_slice();
    if !input
        .get(from..from + open.len())
        .is_some_and(|there| same(there, open))
    {
        return None;
    }
    let text_start = from + open.len();
    let lt = find_byte(input, text_start, b'<')?;
    let after_close = lt + close.len();
    if !input
        .get(lt..after_close)
        .is_some_and(|there| same(there, close))
    {
        return None;
    }
    // `</`, the cell's name, `>`.
    let name = outer.of(input);
    let name_start = after_close + 2;
    let name_end = name_start + name.len();
    if input.get(after_close..name_start) != Some(b"</")
        || !input
            .get(name_start..name_end)
            .is_some_and(|there| same(there, name))
        || input.get(name_end) != Some(&b'>')
    {
        return None;
    }
    if let Some(pieces) = pieces
        && lt > text_start
    {
        pieces.push(Piece::Text {
            span: Span::new(text_start, lt),
            cdata: false,
        });
    }
    Some(name_end + 1)
}

/// Reads one attribute of a cell's start tag into `cell`; whether it is
/// one the reader knows.
#[inline(always)]
fn cell_attribute(
    names: &Names,
    cell: &mut CellAttributes,
    key: &[u8],
    value: Span,
    input: &[u8],
) -> Result<bool> {
    if names.a_value_type.is(key) {
        cell.kind = value_kind(value.of(input), value.start)?;
    } else if names.a_value.is(key) {
        cell.value = Some(value);
    } else if names.a_calc_value_type.is(key) {
        cell.error = same(value.of(input).trim_ascii(), b"error");
    } else if names.a_style_name.is(key) {
        cell.style = Some(value);
    } else if names.a_date_value.is(key) {
        cell.date = Some(value);
    } else if names.a_time_value.is(key) {
        cell.time = Some(value);
    } else if names.a_boolean_value.is(key) {
        cell.boolean = Some(value);
    } else if names.a_string_value.is(key) {
        cell.string = Some(value);
    } else if names.a_columns_repeated.is(key) {
        cell.repeat = parse_count(value.of(input), "number-columns-repeated", value.start)?;
    } else if names.a_formula.is(key) {
        cell.formula = Some(value);
    } else {
        return Ok(false);
    }
    Ok(true)
}

impl CellAttributes {
    /// The cell's value type: LibreOffice's error type over the office one.
    fn kind(&self) -> Option<ValueKind> {
        if self.error && self.kind.is_some() {
            Some(ValueKind::Error)
        } else {
            self.kind
        }
    }

    /// Whether the cell's value is its paragraphs' text.
    fn wants_text(&self) -> bool {
        match self.kind() {
            Some(ValueKind::String) => self.string.is_none(),
            Some(ValueKind::Error) => true,
            _ => false,
        }
    }
}

impl<T> Fast<T> {
    /// An unfinished result as another type's.
    fn map_done<U>(self) -> Fast<U> {
        match self {
            Fast::Done(_) | Fast::Fallback => Fast::Fallback,
            Fast::Incomplete => Fast::Incomplete,
        }
    }
}

/// Which paragraph text of a cell is being read: the element depths of
/// the open paragraph and of an element whose text is none of the cell's
/// (annotations, notes, ruby text, shapes, nested tables).
#[derive(Debug, Default)]
struct TextWalk {
    paragraph: Option<usize>,
    excluded: Option<usize>,
    paragraphs: u32,
}

impl TextWalk {
    /// Whether character data here is the cell's text.
    #[inline(always)]
    fn reading(&self) -> bool {
        self.paragraph.is_some() && self.excluded.is_none()
    }

    /// An element starts at `depth` (the elements open around it);
    /// `count` is a `text:s`'s count of spaces.
    fn start(
        &mut self,
        names: &Names,
        qname: &[u8],
        self_closing: bool,
        depth: usize,
        count: u64,
        pieces: &mut Vec<Piece>,
    ) -> Result<()> {
        if self.excluded.is_some() {
            return Ok(());
        }
        if self.paragraph.is_some() {
            if names.text_s.is(qname) {
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
                self.excluded = Some(depth);
            }
        } else if self.paragraph.is_none() && (names.text_p.is(qname) || names.text_h.is(qname)) {
            if self.paragraphs > 0 {
                pieces.push(Piece::LineFeed);
            }
            self.paragraphs += 1;
            if !self_closing {
                self.paragraph = Some(depth);
            }
        }
        Ok(())
    }

    /// The element at `depth` ends.
    fn end(&mut self, depth: usize) {
        if self.paragraph == Some(depth) {
            self.paragraph = None;
        }
        if self.excluded == Some(depth) {
            self.excluded = None;
        }
    }
}

/// A value placed past the sheet's last row or column.
fn past_the_grid(message: String) -> Error {
    Error::new(crate::error::ErrorKind::CellReference(message))
}
