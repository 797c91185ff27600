//! The sheet scanner: worksheet XML bytes in, one raw row at a time out.
//!
//! Read this first: the scanner owns no buffer, does no I/O and knows
//! nothing of ZIP, shared strings or styles. It is handed the unconsumed
//! window of a sheet's XML and either finds one complete `<row>` in it
//! ([`Scan::Row`]), or says how much can be dropped and that it needs more
//! input ([`Scan::NeedMore`]), or that the part has ended properly
//! ([`Scan::End`]: after `</sheetData>` the rest of the part is read for
//! its structure only, so a sheet cut short there is an error). A row cut off by the end of the window is scanned again
//! from its start once more bytes are there, so the caller can feed chunks
//! of any size. Positions in a [`RawRow`] are offsets into the window; the
//! reader resolves them into values.
//!
//! A fast path reads the row and cell shapes every writer produces (`<c r=".."
//! s=".." t=".."><v>..</v></c>`) with plain byte loops; anything else falls
//! back to the general tokenizer path, which also checks nesting (the fast
//! path's attribute loop gives up on anything but printable ASCII values
//! without `<`, plain names and spaces, so that the general path reports
//! malformed tags and control characters). A cell's reference is checked
//! against its row's number with one word comparison (`RowReference`: the
//! digits as the row's `r` spells them), and a cell is written straight into
//! its slot of `RawRow::cells` (a cell assembled on the stack and moved
//! stalled on store forwarding). With a column selection
//! (`SheetScanner::select`) the cells of other columns are skipped where they
//! are found: the cell's end found, its shape checked, nothing recorded, its
//! value not parsed (`cargo bench --bench arrow`, benches/results/arrow.md).
//! Unit tests feed it in chunks of 1, 7, 4096 bytes and whole and expect the
//! same rows.

use super::number;
use crate::cell::{MAX_COLUMN, MAX_ROW, parse_reference, parse_row_number};
use crate::columns::ColumnSet;
use crate::error::{Error, ErrorKind, Result};
use crate::xml::bytes::{find_byte, find_byte_soon, is_plain_attribute_value, is_verbatim_text};
use crate::xml::{self, Attributes, Namespaces, Piece, Span, Step, Token};
use smallvec::SmallVec;

/// A row's attributes: already read by the fast path (the row index, if
/// given, and how its cells spell it when `r` came first), or still to be
/// read from their span.
#[derive(Debug, Clone, Copy)]
enum RowAttributes {
    /// `r` spelled first; whether the row is hidden.
    Spelled(RowReference, bool),
    /// `r` parsed (when there is one); whether the row is hidden.
    Parsed(Option<u32>, bool),
    Raw(Span),
}

/// A cell's type, from its `t` attribute (and `<is>` child).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CellKind {
    /// `t="n"` or no type.
    Number,
    /// `t="s"`: `<v>` holds an index into the shared strings.
    SharedString,
    /// `t="inlineStr"`, or a cell with an `<is>` child.
    InlineString,
    /// `t="str"`: a formula's string result.
    FormulaString,
    /// `t="b"`.
    Bool,
    /// `t="e"`.
    Error,
    /// `t="d"`: ISO 8601 text.
    Date,
}

/// A value the scanner's fast path parsed while the bytes were at hand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Parsed {
    /// Not parsed: resolve the text pieces.
    No,
    /// A number (`t="n"`), not yet checked against the style.
    Number(f64),
    /// A shared string index.
    SharedString(u64),
    /// A boolean.
    Bool(bool),
    /// An inline string's text, verbatim ([`is_verbatim_text`]: nothing
    /// to decode), handed out as it stands once checked as UTF-8 on its
    /// own: where it starts and ends in the window. Such a row needs no
    /// UTF-8 check of its own ([`RawRow::values_parsed`]).
    Text { start: u32, end: u32 },
}

/// A range of pieces in [`RawRow::pieces`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PieceRange {
    pub start: u32,
    pub end: u32,
}

/// How a row's number is spelled in the references of its cells: the
/// digits and the closing quote as the first bytes of a little-endian
/// word, so that a cell's reference is checked against its row with one
/// comparison instead of being parsed digit by digit.
#[derive(Debug, Clone, Copy)]
struct RowReference {
    /// The row index (the number less one).
    index: u32,
    /// The digits and `"`, in the low bytes.
    word: u64,
    /// Selects the bytes of `word` that count.
    mask: u64,
    /// How many digits.
    digits: usize,
}

impl RowReference {
    /// The row number written at `at`: one to seven digits and a closing
    /// quote, read as they stand. Returns it and the position after the
    /// quote; None for anything else (leading zeros included: the cells
    /// would not spell the number that way).
    #[inline]
    fn spelled_at(input: &[u8], at: usize) -> Option<(RowReference, usize)> {
        let word = u64::from_le_bytes(*input.get(at..)?.first_chunk::<8>()?);
        let bytes = word.to_le_bytes();
        let mut number: u32 = 0;
        let mut digits = 0;
        while digits < 7 {
            let digit = bytes[digits].wrapping_sub(b'0');
            if digit >= 10 {
                break;
            }
            number = number * 10 + u32::from(digit);
            digits += 1;
        }
        if digits == 0 || bytes[digits] != b'"' || bytes[0] == b'0' || number > MAX_ROW + 1 {
            return None;
        }
        let mask = u64::MAX >> (8 * (7 - digits));
        let reference = RowReference {
            index: number - 1,
            word: word & mask,
            mask,
            digits,
        };
        Some((reference, at + digits + 1))
    }

    fn new(index: u32) -> RowReference {
        // At most 7 digits: rows end at 1048576.
        let mut reversed = [0u8; 7];
        let mut number = index + 1;
        let mut digits = 0;
        while number > 0 && digits < 7 {
            reversed[digits] = b'0' + (number % 10) as u8;
            number /= 10;
            digits += 1;
        }
        let mut spelled = [0u8; 8];
        for (slot, digit) in spelled.iter_mut().zip(reversed[..digits].iter().rev()) {
            *slot = *digit;
        }
        spelled[digits] = b'"';
        RowReference {
            index,
            word: u64::from_le_bytes(spelled),
            mask: u64::MAX >> (8 * (7 - digits)),
            digits,
        }
    }
}

/// A cell as scanned: positions, not values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RawCell {
    pub row: u32,
    pub column: u32,
    pub style: u32,
    pub kind: CellKind,
    /// The text of `<v>` (or of an inline string's `<t>`s), when present.
    /// Empty when the fast path already parsed the value into `parsed`.
    pub value: Option<PieceRange>,
    /// The value, when the fast path could parse it from the bytes.
    pub parsed: Parsed,
    /// The text of `<f>`, when present.
    pub formula: Option<PieceRange>,
    /// Offset of the cell's start tag in the window.
    pub offset: usize,
}

/// One row as scanned. Reused from row to row, so its vectors stop growing
/// once they fit the widest row.
#[derive(Debug, Default)]
pub(crate) struct RawRow {
    pub index: u32,
    /// Offset of the row's start tag in the window.
    pub start: usize,
    pub cells: Vec<RawCell>,
    pub pieces: Vec<Piece>,
    /// Whether the fast path read every byte of the row as ASCII, but the
    /// text of verbatim inline strings, and no text of it is handed out
    /// but those (no pieces), so that the row needs no UTF-8 check: its
    /// values are numbers, booleans, shared string indices and
    /// [`Parsed::Text`] (checked one by one).
    pub values_parsed: bool,
    /// Whether the row tag says `hidden="1"` (or `true`).
    pub hidden: bool,
    /// Whether a cell the column selection skipped held a value (a `<v>`
    /// or an inline string, not resolved) in the column window: such a
    /// row exists though none of its cells is handed out.
    pub values_skipped: bool,
}

/// The columns whose cells the scanner records, and the window of columns
/// whose skipped values still make a row exist (see
/// [`SheetScanner::select`]).
#[derive(Debug)]
struct Selection {
    columns: ColumnSet,
    window: (u32, u32),
}

impl Selection {
    /// Notes that a cell of `column`, skipped, held a value.
    #[inline(always)]
    fn skipped_value(&self, column: u32, values_skipped: &mut bool) {
        *values_skipped |= (self.window.0..=self.window.1).contains(&column);
    }
}

/// What the scanner found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scan {
    /// A row: its events are in the [`RawRow`]; the first `consumed` bytes
    /// of the window can be dropped once the row has been used.
    Row { consumed: usize },
    /// No complete row in the window; drop `consumed` bytes and supply more.
    NeedMore { consumed: usize },
    /// The part has ended properly after its sheet data (or, for a chart
    /// or dialog sheet, without any).
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before `<sheetData>`.
    Prologue,
    /// Inside `<sheetData>`.
    Data,
    /// After `</sheetData>`: the rest of the part is read for its
    /// structure (the root's end tag, nothing after it).
    Epilogue,
    /// The part has ended properly.
    Done,
}

/// The scanner's state between calls: where in the sheet it is and the
/// index the next row gets when it has no `r`.
#[derive(Debug)]
pub(crate) struct SheetScanner {
    state: State,
    next_row: u32,
    /// Elements other than rows open inside `<sheetData>` (none in files
    /// written by spreadsheet programs), to check that they nest.
    open: Vec<OpenElement>,
    /// How many of `open` are foreign: rows inside them are skipped.
    foreign_open: usize,
    /// The elements open outside `<sheetData>` (the root, and what sits
    /// before and after the data: `<sheetViews>`, an extension list): a
    /// part cut short after `</sheetData>` still has its root open.
    outer: Vec<OpenElement>,
    /// Once the root element is seen: whether it is a sheet with data
    /// (`<worksheet>`, `<macrosheet>`), which must have `<sheetData>`.
    root: Option<bool>,
    /// The namespace prefixes in scope: only SpreadsheetML elements are
    /// read, foreign ones are skipped with their content.
    namespaces: Namespaces,
    /// How many bindings were in scope inside `<sheetData>`, before rows.
    data_scope: usize,
    /// Whether the fast paths, which read unprefixed tags, may run: the
    /// default namespace is SpreadsheetML where rows are read. Set when
    /// the scope changes, not per row.
    fast: bool,
    /// The columns recorded; None for all.
    selection: Option<Selection>,
    /// The columns whose skipped values make a row exist.
    window: (u32, u32),
    /// Each column's cell shape as an earlier row spelled it: the fastest
    /// path's memory (see [`CellShapes`]).
    shapes: CellShapes,
    /// Whether that path runs (tests and fuzzing compare it with the fast
    /// path alone).
    shaped: bool,
}

/// An element open while the scanner reads around it: its qualified name
/// (to check that its end tag matches), the namespace bindings in scope
/// before its own, and whether it is SpreadsheetML's.
#[derive(Debug)]
struct OpenElement {
    name: Vec<u8>,
    scope: usize,
    spreadsheet: bool,
}

impl Default for SheetScanner {
    fn default() -> Self {
        SheetScanner::new()
    }
}

/// The deepest nesting of elements other than rows and cells the scanner
/// follows (inside `<sheetData>`, a row or a cell). Writers nest a few
/// levels (an extension list, rich text); a row of millions of unclosed
/// elements would otherwise grow the stack with the row.
pub(crate) const MAX_NESTING: usize = 256;

/// The most cells with a value one row may hold: as many as a row has
/// columns. Cells normally advance along their row; some writers repeat
/// or go back to a column (read as they stand), but a row of millions of
/// cells at one reference would cost a raw and a resolved cell per 22
/// bytes of the row.
pub(crate) const MAX_ROW_CELLS: usize = MAX_COLUMN as usize + 1;

/// The most pieces of text (runs between comments, CDATA sections, rich
/// text runs) one row's values may have. A row holds at most 16,384 cells
/// of a few pieces each; without a cap, a value of millions of tiny pieces
/// would cost 24 bytes of spans per few bytes of the row.
pub(crate) const MAX_PIECES: usize = 1 << 18;

fn too_deep(pos: usize) -> Error {
    Error::xml(format!("elements nested more than {MAX_NESTING} deep")).with_offset(pos as u64)
}

fn after_the_root(pos: usize) -> Error {
    Error::xml("an element after the root element's end").with_offset(pos as u64)
}

fn name_is(input: &[u8], name: Span, wanted: &[u8]) -> bool {
    xml::local_name(name.of(input)) == wanted
}

fn xml_error(err: xml::XmlError) -> Error {
    err.into_error()
}

impl SheetScanner {
    pub(crate) fn new() -> SheetScanner {
        SheetScanner {
            state: State::Prologue,
            next_row: 0,
            open: Vec::new(),
            foreign_open: 0,
            outer: Vec::new(),
            root: None,
            namespaces: Namespaces::default(),
            data_scope: 0,
            fast: false,
            selection: None,
            window: (0, u32::MAX),
            shapes: CellShapes::default(),
            shaped: true,
        }
    }

    /// Reads every cell with the fast and general paths alone, not the
    /// repeated shapes' ([`CellShapes`]): for tests and fuzzing, which
    /// compare the two.
    pub(crate) fn without_shapes(&mut self) {
        self.shaped = false;
    }

    /// Records only the cells of `columns` (all for None) from the next
    /// row on. A cell of another column is skipped where it is found: its
    /// end is found (the fast path checks the shape it reads, the general
    /// path reads the cell as always), nothing of it is recorded, its
    /// value is neither parsed nor, later, resolved or checked as text
    /// (what a reader skips unread is not checked). Whether it held a
    /// value in the column window is kept in [`RawRow::values_skipped`].
    pub(crate) fn select(&mut self, columns: Option<ColumnSet>) {
        let window = self.window;
        self.selection = columns.map(|columns| Selection { columns, window });
    }

    /// The columns whose skipped values make a row exist (a range's or
    /// table's): all by default.
    pub(crate) fn set_window(&mut self, first: u32, last: u32) {
        self.window = (first, last);
        if let Some(selection) = &mut self.selection {
            selection.window = self.window;
        }
    }

    /// Scans `input` for the next row. `complete` says that `input` runs to
    /// the end of the part. Errors carry offsets relative to `input`.
    #[inline]
    pub(crate) fn scan(&mut self, input: &[u8], complete: bool, row: &mut RawRow) -> Result<Scan> {
        // Nearly always the window starts with the next row's start tag.
        if self.state == State::Data
            && self.fast
            && let Some((attributes, next, self_closing)) = fast_row_start(input, 0)
        {
            let scope = self.namespaces.len();
            return match self.scan_row(
                input,
                0,
                next,
                attributes,
                self_closing,
                complete,
                row,
                scope,
            )? {
                Some(end) => Ok(Scan::Row { consumed: end }),
                None => Ok(Scan::NeedMore { consumed: 0 }),
            };
        }
        self.scan_from_anywhere(input, complete, row)
    }

    /// [`scan`](Self::scan) from the prologue, or past text and elements
    /// other than rows.
    fn scan_from_anywhere(
        &mut self,
        input: &[u8],
        complete: bool,
        row: &mut RawRow,
    ) -> Result<Scan> {
        let mut pos = 0;
        if self.state == State::Prologue {
            loop {
                match xml::next_token(input, pos, complete).map_err(xml_error)? {
                    Step::Token(
                        Token::Start {
                            name,
                            attributes,
                            self_closing,
                        },
                        next,
                    ) => {
                        if self.root.is_some() && self.outer.is_empty() {
                            return Err(after_the_root(pos));
                        }
                        let scope = self.namespaces.len();
                        self.namespaces
                            .declare(input, attributes)
                            .map_err(xml_error)?;
                        let spreadsheet = self.namespaces.is_spreadsheet(name.of(input));
                        let local = xml::local_name(name.of(input));
                        if local == b"sheetData"
                            && spreadsheet
                            && self.outer.iter().all(|open| open.spreadsheet)
                        {
                            pos = next;
                            if self_closing {
                                self.namespaces.truncate(scope);
                                self.state = State::Epilogue;
                                return self.scan_epilogue(input, pos, complete);
                            }
                            self.data_scope = scope;
                            self.fast = self.namespaces.default_is_spreadsheet();
                            self.state = State::Data;
                            break;
                        }
                        if self.root.is_none() {
                            self.root = Some(
                                spreadsheet && (local == b"worksheet" || local == b"macrosheet"),
                            );
                        }
                        self.open_outer(input, name, self_closing, pos, scope, spreadsheet)?;
                        pos = next;
                    }
                    Step::Token(Token::End { name }, next) => {
                        self.close_outer(input, name, pos)?;
                        pos = next;
                    }
                    Step::Token(_, next) => pos = next,
                    Step::Incomplete => return Ok(Scan::NeedMore { consumed: pos }),
                    Step::End => {
                        // An empty part, or a worksheet cut short before
                        // its data, is not an empty sheet; a chart or
                        // dialog sheet has no data to cut.
                        if self.root.is_none_or(|has_data| has_data) {
                            return Err(Error::xml("the part ends before `<sheetData>`")
                                .with_offset(pos as u64));
                        }
                        self.check_outer_closed(pos)?;
                        self.state = State::Done;
                        return Ok(Scan::End);
                    }
                }
            }
        }
        match self.state {
            State::Epilogue => return self.scan_epilogue(input, pos, complete),
            State::Done => return Ok(Scan::End),
            State::Prologue | State::Data => {}
        }
        loop {
            if self.fast
                && let Some((attributes, next, self_closing)) = fast_row_start(input, pos)
            {
                let scope = self.namespaces.len();
                match self.scan_row(
                    input,
                    pos,
                    next,
                    attributes,
                    self_closing,
                    complete,
                    row,
                    scope,
                )? {
                    Some(end) => return Ok(Scan::Row { consumed: end }),
                    None => return Ok(Scan::NeedMore { consumed: pos }),
                }
            }
            match xml::next_token(input, pos, complete).map_err(xml_error)? {
                Step::Token(
                    Token::Start {
                        name,
                        attributes,
                        self_closing,
                    },
                    next,
                ) => {
                    let scope = self.namespaces.len();
                    self.namespaces
                        .declare(input, attributes)
                        .map_err(xml_error)?;
                    let spreadsheet =
                        self.foreign_open == 0 && self.namespaces.is_spreadsheet(name.of(input));
                    if spreadsheet && name_is(input, name, b"row") {
                        let attributes = RowAttributes::Raw(attributes);
                        match self.scan_row(
                            input,
                            pos,
                            next,
                            attributes,
                            self_closing,
                            complete,
                            row,
                            scope,
                        )? {
                            Some(end) => return Ok(Scan::Row { consumed: end }),
                            None => return Ok(Scan::NeedMore { consumed: pos }),
                        }
                    }
                    // Something other than a row (an extension list, say):
                    // skipped, but its elements must nest; rows inside a
                    // foreign element are not read.
                    if self_closing {
                        self.namespaces.truncate(scope);
                    } else {
                        if self.open.len() >= MAX_NESTING {
                            return Err(too_deep(pos));
                        }
                        self.open.push(OpenElement {
                            name: name.of(input).to_vec(),
                            scope,
                            spreadsheet,
                        });
                        self.foreign_open += usize::from(!spreadsheet);
                        self.fast =
                            self.foreign_open == 0 && self.namespaces.default_is_spreadsheet();
                    }
                    pos = next;
                }
                Step::Token(Token::End { name }, next)
                    if self.open.is_empty()
                        && name_is(input, name, b"sheetData")
                        && self.namespaces.is_spreadsheet(name.of(input)) =>
                {
                    self.namespaces.truncate(self.data_scope);
                    self.state = State::Epilogue;
                    return self.scan_epilogue(input, next, complete);
                }
                Step::Token(Token::End { name }, next) => {
                    let Some(open) = self
                        .open
                        .pop_if(|open| open.name.as_slice() == name.of(input))
                    else {
                        return Err(unexpected_end_tag(input, name, pos));
                    };
                    self.namespaces.truncate(open.scope);
                    self.foreign_open -= usize::from(!open.spreadsheet);
                    self.fast = self.foreign_open == 0 && self.namespaces.default_is_spreadsheet();
                    pos = next;
                }
                Step::Token(token, next) => {
                    check_stray_text(input, token, pos)?;
                    pos = next;
                }
                Step::Incomplete => return Ok(Scan::NeedMore { consumed: pos }),
                Step::End => {
                    return Err(
                        Error::xml("the part ends inside `<sheetData>`").with_offset(pos as u64)
                    );
                }
            }
        }
    }

    /// Reads what follows `</sheetData>` for its structure only: the
    /// elements there nest, the root closes, nothing follows the root
    /// (an element after it is refused: XML has one root, and a writer
    /// that appends markup to a sheet is broken), and the part does not
    /// end inside an element. `End` once the part has ended properly.
    fn scan_epilogue(&mut self, input: &[u8], mut pos: usize, complete: bool) -> Result<Scan> {
        loop {
            match xml::next_token(input, pos, complete).map_err(xml_error)? {
                Step::Token(
                    Token::Start {
                        name,
                        attributes,
                        self_closing,
                    },
                    next,
                ) => {
                    if self.outer.is_empty() {
                        return Err(after_the_root(pos));
                    }
                    let scope = self.namespaces.len();
                    self.namespaces
                        .declare(input, attributes)
                        .map_err(xml_error)?;
                    let spreadsheet = self.namespaces.is_spreadsheet(name.of(input));
                    self.open_outer(input, name, self_closing, pos, scope, spreadsheet)?;
                    pos = next;
                }
                Step::Token(Token::End { name }, next) => {
                    self.close_outer(input, name, pos)?;
                    pos = next;
                }
                Step::Token(token, next) => {
                    check_stray_text(input, token, pos)?;
                    pos = next;
                }
                Step::Incomplete => return Ok(Scan::NeedMore { consumed: pos }),
                Step::End => {
                    self.check_outer_closed(pos)?;
                    self.state = State::Done;
                    return Ok(Scan::End);
                }
            }
        }
    }

    /// An element starts outside `<sheetData>`.
    /// `scope` is the number of namespace bindings before the element's
    /// own, `spreadsheet` whether it is SpreadsheetML's.
    fn open_outer(
        &mut self,
        input: &[u8],
        name: Span,
        self_closing: bool,
        pos: usize,
        scope: usize,
        spreadsheet: bool,
    ) -> Result<()> {
        if self_closing {
            self.namespaces.truncate(scope);
        } else {
            if self.outer.len() >= MAX_NESTING {
                return Err(too_deep(pos));
            }
            self.outer.push(OpenElement {
                name: name.of(input).to_vec(),
                scope,
                spreadsheet,
            });
        }
        Ok(())
    }

    /// An element ends outside `<sheetData>`: the one open there.
    fn close_outer(&mut self, input: &[u8], name: Span, pos: usize) -> Result<()> {
        let Some(open) = self
            .outer
            .pop_if(|open| open.name.as_slice() == name.of(input))
        else {
            return Err(unexpected_end_tag(input, name, pos));
        };
        self.namespaces.truncate(open.scope);
        Ok(())
    }

    /// The part ended at `pos`: every element outside the data is closed.
    fn check_outer_closed(&self, pos: usize) -> Result<()> {
        match self.outer.last() {
            None => Ok(()),
            Some(open) => Err(Error::xml(format!(
                "the part ends inside `<{}>` (cut short?)",
                String::from_utf8_lossy(&open.name)
            ))
            .with_offset(pos as u64)),
        }
    }

    /// Scans one row whose start tag spans `tag_start..body_start`. Returns
    /// the end of the row, or None when the input ends inside it. `scope`
    /// is the number of namespace bindings before the row's own: the row's
    /// are dropped again at its end (or to scan it again from its start).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn scan_row(
        &mut self,
        input: &[u8],
        tag_start: usize,
        body_start: usize,
        attributes: RowAttributes,
        self_closing: bool,
        complete: bool,
        row: &mut RawRow,
        scope: usize,
    ) -> Result<Option<usize>> {
        let scanned = self.read_row(
            input,
            tag_start,
            body_start,
            attributes,
            self_closing,
            complete,
            row,
        );
        self.namespaces.truncate(scope);
        scanned
    }

    /// The body of [`scan_row`](Self::scan_row).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn read_row(
        &mut self,
        input: &[u8],
        tag_start: usize,
        body_start: usize,
        attributes: RowAttributes,
        self_closing: bool,
        complete: bool,
        row: &mut RawRow,
    ) -> Result<Option<usize>> {
        row.cells.clear();
        row.pieces.clear();
        row.values_parsed = false;
        row.values_skipped = false;
        let selection = self.selection.as_ref();
        // Cleared when the general path reads any part of the row.
        let mut fast_only = !matches!(attributes, RowAttributes::Raw(_));
        let mut index = self.next_row;
        let mut spelled = None;
        match attributes {
            RowAttributes::Spelled(reference, hidden) => {
                index = reference.index;
                spelled = Some(reference);
                row.hidden = hidden;
            }
            RowAttributes::Parsed(explicit, hidden) => {
                index = explicit.unwrap_or(index);
                row.hidden = hidden;
            }
            RowAttributes::Raw(span) => {
                (index, row.hidden) = row_attributes(input, span, tag_start, index)?;
            }
        }
        if index > crate::cell::MAX_ROW {
            return Err(
                Error::new(ErrorKind::CellReference("more than 1048576 rows".into()))
                    .with_offset(tag_start as u64),
            );
        }
        row.index = index;
        row.start = tag_start;
        if self_closing {
            self.next_row = index + 1;
            row.values_parsed = fast_only;
            return Ok(Some(body_start));
        }
        let mut pos = body_start;
        let mut next_column: u32 = 0;
        // Elements other than cells open in the row (rare), to check
        // nesting: each with the namespace bindings before its own and
        // whether it is SpreadsheetML's.
        let mut open: SmallVec<[(Span, usize, bool); 4]> = SmallVec::new();
        // How many of them are foreign: cells inside are not read.
        let mut foreign = 0usize;
        // Whether the fast paths, which read unprefixed tags, may run: a
        // row the fast path read declares nothing.
        let mut fast = match attributes {
            RowAttributes::Raw(_) => self.namespaces.default_is_spreadsheet(),
            _ => true,
        };
        let reference = spelled.unwrap_or_else(|| RowReference::new(index));
        loop {
            // Cells first: a row has more of them than ends. Without a
            // selection, the loop of the whole read; with one, a loop of
            // its own, so that the first pays nothing for the second.
            if fast && let Some(selection) = selection {
                (next_column, pos) =
                    fast_selected_cells(input, pos, &reference, next_column, row, selection);
            } else if fast {
                // The cells whose tags repeat a shape their column had
                // before, then one cell of any shape the fast path reads
                // (and the repeated shapes again after it).
                loop {
                    if self.shaped {
                        (next_column, pos) = self.shapes.read_cells(
                            input,
                            pos,
                            &reference,
                            next_column,
                            &mut row.cells,
                            &mut row.pieces,
                        );
                    }
                    let Some((column, end)) = fast_cell(
                        input,
                        pos,
                        &reference,
                        next_column,
                        &mut row.cells,
                        &mut row.pieces,
                    ) else {
                        break;
                    };
                    next_column = column + 1;
                    pos = end;
                }
            }
            if fast && open.is_empty() && input.get(pos..pos + 6) == Some(b"</row>") {
                self.next_row = index + 1;
                row.values_parsed = fast_only && row.pieces.is_empty();
                return Ok(Some(pos + 6));
            }
            fast_only = false;
            let token = xml::next_token(input, pos, complete);
            match token.map_err(|err| xml_error(err).with_row(index + 1))? {
                Step::Token(
                    Token::Start {
                        name,
                        attributes,
                        self_closing,
                    },
                    next,
                ) => {
                    let scope = self.namespaces.len();
                    self.namespaces
                        .declare(input, attributes)
                        .map_err(|err| xml_error(err).with_row(index + 1))?;
                    let spreadsheet =
                        foreign == 0 && self.namespaces.is_spreadsheet(name.of(input));
                    let local = xml::local_name(name.of(input));
                    if !spreadsheet || local != b"c" {
                        if spreadsheet && (local == b"row" || local == b"sheetData") {
                            // Cannot be: refused now, not once the row limit is hit.
                            return Err(Error::xml(format!(
                                "a `<{}>` inside a `<row>`",
                                String::from_utf8_lossy(local)
                            ))
                            .with_row(index + 1)
                            .with_offset(pos as u64));
                        }
                        if self_closing {
                            self.namespaces.truncate(scope);
                        } else {
                            if open.len() >= MAX_NESTING {
                                return Err(too_deep(pos).with_row(index + 1));
                            }
                            open.push((name, scope, spreadsheet));
                            foreign += usize::from(!spreadsheet);
                            fast = foreign == 0 && self.namespaces.default_is_spreadsheet();
                        }
                        pos = next;
                        continue;
                    }
                    let mut cell = RawCell {
                        row: index,
                        column: next_column,
                        style: 0,
                        kind: CellKind::Number,
                        value: None,
                        parsed: Parsed::No,
                        formula: None,
                        offset: pos,
                    };
                    read_cell_attributes(input, attributes, &mut cell)
                        .map_err(|err| err.with_row(index + 1).with_offset(pos as u64))?;
                    if cell.column > MAX_COLUMN {
                        return Err(Error::new(ErrorKind::CellReference(
                            "more than 16384 columns (past XFD)".into(),
                        ))
                        .with_row(index + 1)
                        .with_offset(pos as u64));
                    }
                    next_column = cell.column + 1;
                    pos = next;
                    let pieces_before = row.pieces.len();
                    if !self_closing {
                        let body = scan_cell_body(
                            input,
                            pos,
                            complete,
                            &mut cell,
                            &mut row.pieces,
                            &mut self.namespaces,
                        );
                        match body.map_err(|err| err.with_row(index + 1))? {
                            Some(end) => pos = end,
                            None => return Ok(None),
                        }
                    }
                    self.namespaces.truncate(scope);
                    if let Some(selection) = selection
                        && !selection.columns.contains(cell.column)
                    {
                        // Read as any cell (this path is for the unusual
                        // shapes), then dropped.
                        row.pieces.truncate(pieces_before);
                        if holds_value(&cell) {
                            selection.skipped_value(cell.column, &mut row.values_skipped);
                        }
                        continue;
                    }
                    if cell.value.is_some() {
                        if row.cells.len() >= MAX_ROW_CELLS {
                            return Err(too_many_cells()
                                .with_row(index + 1)
                                .with_offset(pos as u64));
                        }
                        row.cells.push(cell);
                    }
                }
                Step::Token(Token::End { name }, next)
                    if open.is_empty() && name_is(input, name, b"row") =>
                {
                    self.next_row = index + 1;
                    return Ok(Some(next));
                }
                Step::Token(Token::End { name }, next) => {
                    let Some((_, scope, spreadsheet)) = open
                        .pop()
                        .filter(|(top, ..)| top.of(input) == name.of(input))
                    else {
                        return Err(unexpected_end_tag(input, name, pos).with_row(index + 1));
                    };
                    self.namespaces.truncate(scope);
                    foreign -= usize::from(!spreadsheet);
                    fast = foreign == 0 && self.namespaces.default_is_spreadsheet();
                    pos = next;
                }
                Step::Token(token, next) => {
                    check_stray_text(input, token, pos).map_err(|err| err.with_row(index + 1))?;
                    pos = next;
                }
                Step::Incomplete => return Ok(None),
                Step::End => {
                    return Err(Error::xml("the part ends inside a `<row>`")
                        .with_row(index + 1)
                        .with_offset(tag_start as u64));
                }
            }
        }
    }
}

/// A row's attributes as the general path reads them: the row index, from
/// `r` when there is one, else `index` (the one after the previous row),
/// and whether `hidden` is true.
fn row_attributes(
    input: &[u8],
    attributes: Span,
    tag_start: usize,
    index: u32,
) -> Result<(u32, bool)> {
    let mut index = index;
    let mut seen_r = false;
    let mut hidden = false;
    for attribute in Attributes::new(input, attributes) {
        let (key, value) = attribute.map_err(xml_error)?;
        if key == b"hidden" {
            let value = decode_attribute(value.of(input))
                .map_err(|err| err.with_offset(tag_start as u64))?;
            hidden = is_true(&value);
        } else if key == b"r" {
            if std::mem::replace(&mut seen_r, true) {
                return Err(
                    Error::xml("the attribute `r` appears twice").with_offset(tag_start as u64)
                );
            }
            let value = decode_attribute(value.of(input))
                .map_err(|err| err.with_offset(tag_start as u64))?;
            let value: &[u8] = &value;
            index = parse_row_number(trim(value)).ok_or_else(|| {
                Error::new(ErrorKind::CellReference(format!(
                    "row number `{}` is not between 1 and 1048576",
                    String::from_utf8_lossy(value)
                )))
                .with_offset(tag_start as u64)
            })?;
        }
    }
    Ok((index, hidden))
}

/// An XML Schema boolean's true (`1` or `true`).
#[inline]
fn is_true(value: &[u8]) -> bool {
    value == b"1" || value.eq_ignore_ascii_case(b"true")
}

/// Reads the attributes of a start tag on the fast path: `name="value"`
/// pairs each after one or more spaces, double quotes, up to `>` or `/>`.
/// Calls `on_attribute` with each qualified name and raw value (a
/// prefixed `x:r` is not `r`: see the `xml` module docs).
/// Returns the position of the closing `>` and whether the tag is
/// self-closing, or None for anything unusual (other whitespace, single
/// quotes, spaces around `=`, an attribute not after a space, a name of
/// other than ASCII letters, digits, `_`, `-`, `.` and `:`, a value of
/// other than printable ASCII or with a `<`, a tag cut off by the end of
/// the window, or `on_attribute` refusing a value): the general path,
/// which checks tags against XML's grammar, reads and reports those.
#[inline]
fn fast_attributes(
    input: &[u8],
    mut at: usize,
    mut on_attribute: impl FnMut(&[u8], &[u8]) -> Option<()>,
) -> Option<(usize, bool)> {
    loop {
        match *input.get(at)? {
            b' ' => at += 1,
            b'>' => return Some((at, false)),
            b'/' => {
                return (*input.get(at + 1)? == b'>').then_some((at + 1, true));
            }
            first => {
                // Attributes are separated by whitespace.
                if at.checked_sub(1).and_then(|before| input.get(before)) != Some(&b' ')
                    || !(first.is_ascii_alphabetic() || first == b'_')
                {
                    return None;
                }
                let eq = find_byte(input, at, b'=')?;
                let name = &input[at..eq];
                // A namespace declaration: the general path binds it.
                if input.get(eq + 1) != Some(&b'"')
                    || name.starts_with(b"xmlns")
                    || !name.iter().all(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':')
                    })
                {
                    return None;
                }
                let close = find_byte(input, eq + 2, b'"')?;
                let value = &input[eq + 2..close];
                // The fast path reads only ASCII (see `RawRow::values_parsed`),
                // and no character XML forbids.
                if !is_plain_attribute_value(value) {
                    return None;
                }
                on_attribute(name, value)?;
                at = close + 1;
            }
        }
    }
}

/// The fast path for a row's start tag, `<row attributes>`: its row index
/// (when it has `r`), the position after the tag and whether it is
/// self-closing. None for anything unusual; the general path takes over.
#[inline]
fn fast_row_start(input: &[u8], pos: usize) -> Option<(RowAttributes, usize, bool)> {
    let rest = input.get(pos..pos + 5)?;
    if &rest[..4] != b"<row" || !matches!(rest[4], b' ' | b'>' | b'/') {
        return None;
    }
    // `r` first, as writers put it: its digits and quote are the word the
    // row's cell references are compared with.
    let mut hidden = false;
    if input.get(pos + 4..pos + 8) == Some(b" r=\"")
        && let Some((reference, after)) = RowReference::spelled_at(input, pos + 8)
    {
        let (close, self_closing) = fast_attributes(input, after, |name, value| {
            // A second `r` is for the general path to report.
            if name == b"r" {
                return None;
            }
            if name == b"hidden" {
                hidden = fast_flag(value)?;
            }
            Some(())
        })?;
        return Some((
            RowAttributes::Spelled(reference, hidden),
            close + 1,
            self_closing,
        ));
    }
    let mut index = None;
    let (close, self_closing) = fast_attributes(input, pos + 4, |name, value| {
        if name == b"r" {
            // A second `r` is for the general path to report.
            if index.is_some() {
                return None;
            }
            index = Some(parse_row_number(value)?);
        } else if name == b"hidden" {
            hidden = fast_flag(value)?;
        }
        Some(())
    })?;
    Some((
        RowAttributes::Parsed(index, hidden),
        close + 1,
        self_closing,
    ))
}

/// A row's `hidden` on the fast path: None for a value with a reference
/// in it (the general path decodes it).
#[inline]
fn fast_flag(value: &[u8]) -> Option<bool> {
    if value.contains(&b'&') {
        return None;
    }
    Some(is_true(value))
}

/// A cell's attributes in any order on the fast path (see
/// [`fast_attributes`]); None for a duplicate or a value the general path
/// must report on.
fn general_cell_attributes(input: &[u8], at: usize, cell: &mut RawCell) -> Option<(usize, bool)> {
    let mut seen = 0u8;
    fast_attributes(input, at, |name, value| {
        // A character or entity reference in a value: the general path
        // decodes it.
        if value.contains(&b'&') {
            return None;
        }
        let bit = match name {
            b"r" => 1,
            b"s" => 2,
            b"t" => 4,
            _ => 0,
        };
        if seen & bit != 0 {
            // A duplicate: the general path reports it.
            return None;
        }
        seen |= bit;
        match name {
            b"r" => {
                let (row, column) = parse_reference(value)?;
                cell.column = column;
                if let Some(row) = row {
                    cell.row = row;
                }
            }
            b"s" => cell.style = parse_style(value),
            b"t" => cell.kind = fast_cell_kind(value)?,
            _ => {}
        }
        Some(())
    })
}

/// The attribute shape nearly every writer produces, read without a
/// general attribute loop: `r="A1"` first, then optionally ` s="N"` and
/// ` t="x"`, in that order, then `>` or `/>`. Returns the position of `>`
/// and whether the tag is self-closing; None for any other shape.
#[inline]
fn canonical_cell_attributes(
    input: &[u8],
    mut at: usize,
    row: &RowReference,
    cell: &mut RawCell,
) -> Option<(usize, bool)> {
    if input.get(at..at + 3)? != b"r=\"" {
        return None;
    }
    let (column, after) = column_letters(input, at + 3)?;
    cell.column = column;
    at = after;
    // Nearly always the cell is in its row's row: one comparison checks
    // the digits and the closing quote.
    if let Some(&word) = input.get(at..).and_then(|rest| rest.first_chunk::<8>())
        && (u64::from_le_bytes(word) ^ row.word) & row.mask == 0
    {
        cell.row = row.index;
        at += row.digits + 1;
    } else {
        at = reference_row(input, at, cell)?;
    }
    if input.get(at..at + 4) == Some(b" s=\"") {
        at += 4;
        // Nine digits cannot overflow; longer ones go the general way.
        let (style, end) = quoted_digits(input, at, 9)?;
        cell.style = style;
        at = end;
    }
    if input.get(at..at + 4) == Some(b" t=\"") {
        at += 4;
        // Most types are one letter (`s`, `b`, `n`, `e`, `d`).
        let close = if input.get(at + 1) == Some(&b'"') {
            at + 1
        } else {
            find_byte(input, at, b'"')?
        };
        cell.kind = cell_kind(&input[at..close])?;
        at = close + 1;
    }
    match *input.get(at)? {
        b'>' => Some((at, false)),
        b'/' if *input.get(at + 1)? == b'>' => Some((at + 1, true)),
        _ => None,
    }
}

/// The column letters of a reference from `at`: the column (0-based) and
/// the position after them; None for no letters, more than three or a
/// column past XFD.
#[inline(always)]
fn column_letters(input: &[u8], mut at: usize) -> Option<(u32, usize)> {
    let mut column: u32 = 0;
    let letters_start = at;
    while let Some(letter) = input
        .get(at)
        .map(|b| b.wrapping_sub(b'A'))
        .filter(|l| *l < 26)
    {
        column = column * 26 + u32::from(letter) + 1;
        at += 1;
        if at - letters_start > 3 {
            return None;
        }
    }
    if at == letters_start || column - 1 > MAX_COLUMN {
        return None;
    }
    Some((column - 1, at))
}

/// An inline string's text from `at` in the shape writers use,
/// `<is><t>text</t></is></c>` (or `<t xml:space="preserve">`): where the
/// text starts and ends (before `</t></is></c>`, 13 bytes); None for any
/// other shape, which the general path reads.
#[inline(always)]
fn inline_string_text(input: &[u8], at: usize) -> Option<(usize, usize)> {
    const PRESERVE: &[u8] = b"<is><t xml:space=\"preserve\">";
    let text_start = if input.get(at..at + 7)? == b"<is><t>" {
        at + 7
    } else if input.get(at..at + PRESERVE.len())? == PRESERVE {
        at + PRESERVE.len()
    } else {
        return None;
    };
    let text_end = find_byte(input, text_start, b'<')?;
    if input.get(text_end..text_end + 13)? != b"</t></is></c>" {
        return None;
    }
    Some((text_start, text_end))
}

/// The eight bytes at `at` as a little-endian word; None within eight
/// bytes of the window's end.
#[inline(always)]
fn word_at(input: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(*input.get(at..)?.first_chunk::<8>()?))
}

/// The fast path for a cell of a column the selection leaves out, in the
/// shape [`fast_cell`]'s canonical attributes read: `<c r="A1"` in its
/// row, optionally ` s="N"` and ` t="x"`, then `/>`, `><v>text</v></c>`
/// or, for an inline string, `><is><t>text</t></is></c>`. Returns the
/// cell's column and the position after it, nothing recorded and the value
/// unread (`values_skipped` notes that there was one); None for a selected
/// column and for any other shape, which [`fast_cell`] (skipping the cell
/// there once read) and the general path then read and check. The tags
/// are checked as strictly as [`fast_cell`] checks them: only the value's
/// text is left unread.
#[inline(always)]
fn skip_cell(
    input: &[u8],
    pos: usize,
    row: &RowReference,
    selection: &Selection,
    values_skipped: &mut bool,
) -> Option<(u32, usize)> {
    const OPEN: u64 = u64::from_le_bytes(*b"<c r=\"\0\0");
    const V_OPEN: u64 = u64::from_le_bytes(*b"<v>\0\0\0\0\0");
    const V_CLOSE: u64 = u64::from_le_bytes(*b"</v></c>");
    if word_at(input, pos)? & 0xffff_ffff_ffff != OPEN {
        return None;
    }
    let (column, mut at) = column_letters(input, pos + 6)?;
    if selection.columns.contains(column) {
        return None;
    }
    if (word_at(input, at)? ^ row.word) & row.mask != 0 {
        return None;
    }
    at += row.digits + 1;
    // The style and type as `canonical_cell_attributes` reads them, written
    // out again: one helper for both cost the whole read's cell loop 0.3-1.1%
    // of `count -t 1`'s instructions (its inlining changed).
    if input.get(at..at + 4) == Some(b" s=\"") {
        (_, at) = quoted_digits(input, at + 4, 9)?;
    }
    let mut kind = CellKind::Number;
    if input.get(at..at + 4) == Some(b" t=\"") {
        at += 4;
        // Most types are one letter (`s`, `b`, `n`, `e`, `d`).
        let close = if input.get(at + 1) == Some(&b'"') {
            at + 1
        } else {
            find_byte(input, at, b'"')?
        };
        kind = cell_kind(&input[at..close])?;
        at = close + 1;
    }
    let at = match *input.get(at)? {
        b'>' => at + 1,
        b'/' if *input.get(at + 1)? == b'>' => return Some((column, at + 2)),
        _ => return None,
    };
    let end = if kind == CellKind::InlineString {
        let (_, text_end) = inline_string_text(input, at)?;
        text_end + 13
    } else {
        if word_at(input, at)? & 0xff_ffff != V_OPEN {
            return None;
        }
        let text_end = find_byte_soon(input, at + 3, b'<')?;
        if word_at(input, text_end)? != V_CLOSE {
            return None;
        }
        text_end + 8
    };
    selection.skipped_value(column, values_skipped);
    Some((column, end))
}

/// The cells from `pos` on that the fast paths read, with a column
/// selection: those it leaves out skipped ([`skip_cell`], or read by
/// [`fast_cell`] in another shape and taken out again), the others
/// recorded. Returns the next column and the position after them. Kept
/// out of line: inlined beside the whole read's cell loop, it pushed that
/// loop's callees out of line (at up to 3% of `count -t 1`'s
/// instructions).
#[inline(never)]
fn fast_selected_cells(
    input: &[u8],
    mut pos: usize,
    reference: &RowReference,
    mut next_column: u32,
    row: &mut RawRow,
    selection: &Selection,
) -> (u32, usize) {
    loop {
        if let Some((column, end)) =
            skip_cell(input, pos, reference, selection, &mut row.values_skipped)
        {
            (next_column, pos) = (column + 1, end);
            continue;
        }
        let (cells, pieces) = (row.cells.len(), row.pieces.len());
        let Some((column, end)) = fast_cell(
            input,
            pos,
            reference,
            next_column,
            &mut row.cells,
            &mut row.pieces,
        ) else {
            return (next_column, pos);
        };
        if !selection.columns.contains(column) {
            // A cell the fast path keeps has a value.
            if row.cells.len() > cells {
                selection.skipped_value(column, &mut row.values_skipped);
            }
            row.cells.truncate(cells);
            row.pieces.truncate(pieces);
        }
        (next_column, pos) = (column + 1, end);
    }
}

/// The bytes the fastest path looks at for one cell: at most this many
/// from its `<`. The longest cell it reads, `<c r="XFD1048576"`, a shape
/// of [`SHAPE_BYTES`], 23 bytes of value then `</t></is></c>`, fits.
const SHAPED_CELL: usize = 96;

/// One column's cell shape: the bytes of its start tag after the
/// reference through the value's opening tag (`` s="3" t="s"><v>``,
/// `><v>`, ` t="inlineStr"><is><t>`, ` s="1"/>`), as a cell of that column
/// spelled them in an earlier row where the fast path read them, with
/// what they said.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// The first 16 bytes, little-endian, zero past `len`.
    tail: u128,
    /// Selects the first `len` bytes of `tail`.
    mask: u128,
    /// Bytes 16 to 31, as `tail` (a shape of more than 16 bytes: a style
    /// of two digits or more with a type, an inline string).
    tail_high: u128,
    /// Selects the bytes of `tail_high` the shape has; 0 for none.
    mask_high: u128,
    /// Whether the shape has more than 16 bytes (`mask_high` is not 0).
    long: bool,
    /// Whether the shape is other than a value after at most 16 bytes
    /// (the common shape, read on a path of its own).
    other: bool,
    len: u8,
    /// How the tag ends: what follows the shape's bytes.
    end: ShapeEnd,
    kind: CellKind,
    style: u32,
}

/// What a [`Shape`]'s bytes end with, and so what the cell holds after
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShapeEnd {
    /// No shape learnt for the column.
    Unknown,
    /// `/>`: no value.
    SelfClosing,
    /// `><v>`: the value's text, then `</v></c>`.
    Value,
    /// `><is><t>`: an inline string's text, then `</t></is></c>`.
    InlineString,
}

/// The most bytes a [`Shape`] holds.
const SHAPE_BYTES: usize = 32;

impl Shape {
    const NONE: Shape = Shape {
        tail: 0,
        mask: u128::MAX,
        tail_high: 0,
        mask_high: 0,
        long: false,
        other: true,
        len: 0,
        end: ShapeEnd::Unknown,
        kind: CellKind::Number,
        style: 0,
    };

    /// Whether the bytes of `block` from `at` spell this shape's first 16
    /// bytes (or, for [`ShapeEnd::Unknown`], are sixteen zero bytes, which
    /// no cell the fast path reads has); a long shape's others are
    /// compared by [`Shape::rest_spelled_at`].
    #[inline(always)]
    fn spelled_at(&self, block: &[u8; SHAPED_CELL], at: usize) -> bool {
        (block_u128(block, at) ^ self.tail) & self.mask == 0
    }

    /// Whether the bytes of `block` from `at + 16` spell the rest of a long
    /// shape.
    #[inline(always)]
    fn rest_spelled_at(&self, block: &[u8; SHAPED_CELL], at: usize) -> bool {
        (block_u128(block, at + 16) ^ self.tail_high) & self.mask_high == 0
    }
}

/// The mask of the first `len` (at most 16) bytes of a little-endian u128.
fn low_bytes_mask(len: usize) -> u128 {
    match len {
        0 => 0,
        16.. => u128::MAX,
        _ => (1u128 << (8 * len)) - 1,
    }
}

/// The fastest path: each column's cell shape as an earlier row spelled
/// it (see [`Shape`]). The rows of a sheet repeat their columns' shapes
/// (a column keeps its style and type), so a cell whose tag after the
/// reference is byte for byte the one its column had is read with one
/// 16-byte comparison (two for a shape of more than 16 bytes) instead of
/// an attribute walk: the same bytes say the same style and type, which
/// the canonical shape's reader ([`canonical_cell_attributes`]) read and
/// checked the first time. The reference is read as that reader reads it
/// (letters, then the row's digits in one word), and the value as
/// [`read_fast_cell`] reads it (an inline string's only when it is
/// verbatim and short); any other shape or value, and a cell within
/// [`SHAPED_CELL`] bytes of the window's end, is left to [`fast_cell`].
#[derive(Debug, Default)]
struct CellShapes {
    /// By column; grown to the widest column seen, up to [`SHAPED_COLUMNS`].
    shapes: Vec<Shape>,
}

/// The columns whose shapes are kept: a cell further right goes to the
/// fast path, so that one cell at XFD costs no more than 48 KiB of shapes.
const SHAPED_COLUMNS: usize = 1024;

impl CellShapes {
    /// Reads the cells from `pos` on whose shapes repeat; returns the next
    /// column and the position after them. Cells are recorded as
    /// [`fast_cell`] records them.
    #[inline(never)]
    fn read_cells(
        &mut self,
        input: &[u8],
        mut pos: usize,
        row: &RowReference,
        mut next_column: u32,
        cells: &mut Vec<RawCell>,
        pieces: &mut Vec<Piece>,
    ) -> (u32, usize) {
        const OPEN: u64 = u64::from_le_bytes(*b"<c r=\"\0\0");
        while let Some(block) = input
            .get(pos..)
            .and_then(|rest| rest.first_chunk::<SHAPED_CELL>())
        {
            if word_of(block, 0) & 0xffff_ffff_ffff != OPEN || cells.len() >= MAX_ROW_CELLS {
                break;
            }
            // The column letters, one to three.
            let Some((column, letters_end)) = block_column(block) else {
                break;
            };
            // The row's digits and quote, as the row spells them.
            if (word_of(block, letters_end) ^ row.word) & row.mask != 0 {
                break;
            }
            let at = letters_end + row.digits + 1;
            let shape = match self.shapes.get(column as usize) {
                Some(shape) if shape.spelled_at(block, at) => shape,
                _ => {
                    if self.learn(input, pos, at, block, row, column) {
                        // Read again, now that its column has the shape.
                        continue;
                    }
                    break;
                }
            };
            let tag_end = at + usize::from(shape.len);
            // The common shape, a value after a short tag, on the path it
            // had alone; the others behind this one test (measured: a
            // `match` on the shape's end cost every cell more).
            if shape.other {
                let cell = RawCell {
                    row: row.index,
                    column,
                    style: shape.style,
                    kind: shape.kind,
                    value: None,
                    parsed: Parsed::No,
                    formula: None,
                    offset: pos,
                };
                match other_shape(shape, block, at, cell, cells, pieces) {
                    OtherShape::Empty => {
                        (next_column, pos) = (column + 1, pos + tag_end);
                        continue;
                    }
                    OtherShape::Value(cell_end) => {
                        (next_column, pos) = (column + 1, pos + cell_end);
                        continue;
                    }
                    OtherShape::Learn => {
                        if self.learn(input, pos, at, block, row, column) {
                            continue;
                        }
                        break;
                    }
                    OtherShape::Unread => break,
                }
            }
            let Some((parsed, text_end)) = shaped_value(block, tag_end, shape.kind) else {
                break;
            };
            let start = pieces.len() as u32;
            let value = if parsed == Parsed::No {
                pieces.push(Piece {
                    span: Span::new(pos + tag_end, pos + text_end),
                    cdata: false,
                });
                PieceRange {
                    start,
                    end: start + 1,
                }
            } else {
                PieceRange { start, end: start }
            };
            cells.push(RawCell {
                row: row.index,
                column,
                style: shape.style,
                kind: shape.kind,
                value: Some(value),
                parsed,
                formula: None,
                offset: pos,
            });
            (next_column, pos) = (column + 1, pos + text_end + 8);
        }
        (next_column, pos)
    }

    /// Reads the start tag of the cell at `pos` of `column` (its reference
    /// ending at `pos + at`, `block` the [`SHAPED_CELL`] bytes from `pos`)
    /// with the canonical shape's reader, and keeps its shape for the
    /// column when the reader reads it and it is one this path takes (a
    /// value in `<v>`, an inline string in `<is><t>`, or none): whether it
    /// did.
    #[cold]
    #[inline(never)]
    fn learn(
        &mut self,
        input: &[u8],
        pos: usize,
        at: usize,
        block: &[u8; SHAPED_CELL],
        row: &RowReference,
        column: u32,
    ) -> bool {
        self.read_shape(input, pos, at, block, row, column)
            .is_some()
    }

    /// The body of [`CellShapes::learn`].
    fn read_shape(
        &mut self,
        input: &[u8],
        pos: usize,
        at: usize,
        block: &[u8; SHAPED_CELL],
        row: &RowReference,
        column: u32,
    ) -> Option<()> {
        let mut cell = RawCell {
            row: row.index,
            column,
            style: 0,
            kind: CellKind::Number,
            value: None,
            parsed: Parsed::No,
            formula: None,
            offset: pos,
        };
        let (close, self_closing) = canonical_cell_attributes(input, pos + 3, row, &mut cell)?;
        // The reference as read here (never otherwise: the same bytes).
        if cell.column != column || cell.row != row.index {
            return None;
        }
        // What follows the tag, as the fast path reads it.
        let (end, shape_end) = if self_closing {
            (close + 1, ShapeEnd::SelfClosing)
        } else if cell.kind == CellKind::InlineString {
            (input.get(close + 1..close + 8)? == b"<is><t>").then_some(())?;
            (close + 8, ShapeEnd::InlineString)
        } else {
            (input.get(close + 1..close + 4)? == b"<v>").then_some(())?;
            (close + 4, ShapeEnd::Value)
        };
        let len = end - (pos + at);
        let slot = column as usize;
        if len > SHAPE_BYTES || slot >= SHAPED_COLUMNS {
            return None;
        }
        let mask = low_bytes_mask(len);
        let mask_high = low_bytes_mask(len.saturating_sub(16));
        let shape = Shape {
            tail: block_u128(block, at) & mask,
            mask,
            tail_high: block_u128(block, at + 16) & mask_high,
            mask_high,
            long: len > 16,
            other: len > 16 || shape_end != ShapeEnd::Value,
            len: len as u8,
            end: shape_end,
            kind: cell.kind,
            style: cell.style,
        };
        if self.shapes.len() <= slot {
            self.shapes.resize(slot + 1, Shape::NONE);
        }
        self.shapes[slot] = shape;
        Some(())
    }
}

/// What [`other_shape`] read.
enum OtherShape {
    /// A cell without a value (`/>`).
    Empty,
    /// A cell with a value, recorded; the position after it.
    Value(usize),
    /// Bytes after the first 16 that differ from the shape's, or no shape
    /// yet: the column's shape is to be learnt.
    Learn,
    /// A value the shaped path does not read: the fast path reads it.
    Unread,
}

/// Reads a cell of a shape other than the common one (see
/// [`Shape::other`]) whose first 16 bytes matched at `at` in `block`: the
/// rest of a long shape compared, then its end (none, a value, an inline
/// string); `cell` is the cell as the shape says, recorded with its value
/// as [`read_fast_cell`] records it. Out of the loop: inlined, it cost the
/// common cells instructions (measured).
#[inline(never)]
fn other_shape(
    shape: &Shape,
    block: &[u8; SHAPED_CELL],
    at: usize,
    mut cell: RawCell,
    cells: &mut Vec<RawCell>,
    pieces: &mut Vec<Piece>,
) -> OtherShape {
    if shape.end == ShapeEnd::Unknown || (shape.long && !shape.rest_spelled_at(block, at)) {
        return OtherShape::Learn;
    }
    let pos = cell.offset;
    let tag_end = at + usize::from(shape.len);
    let read = match shape.end {
        ShapeEnd::SelfClosing => return OtherShape::Empty,
        ShapeEnd::InlineString => shaped_inline_string(block, pos, tag_end)
            .map(|(parsed, text_end)| (parsed, text_end, text_end + 13)),
        _ => shaped_value(block, tag_end, shape.kind)
            .map(|(parsed, text_end)| (parsed, text_end, text_end + 8)),
    };
    let Some((parsed, text_end, cell_end)) = read else {
        return OtherShape::Unread;
    };
    let start = pieces.len() as u32;
    let end = if parsed == Parsed::No {
        pieces.push(Piece {
            span: Span::new(pos + tag_end, pos + text_end),
            cdata: false,
        });
        start + 1
    } else {
        start
    };
    cell.value = Some(PieceRange { start, end });
    cell.parsed = parsed;
    cells.push(cell);
    OtherShape::Value(cell_end)
}

/// The value of a shaped cell whose `<v>` ends at `at` in `block`, as
/// [`read_fast_cell`] reads it: up to 23 bytes, then `</v></c>`; and where
/// its text ends. None for a longer value or another end.
#[inline(always)]
fn shaped_value(block: &[u8; SHAPED_CELL], at: usize, kind: CellKind) -> Option<(Parsed, usize)> {
    const V_CLOSE: u64 = u64::from_le_bytes(*b"</v></c>");
    let text_end = find_lt(block, at)?;
    if word_of(block, text_end) != V_CLOSE {
        return None;
    }
    Some((parsed_value(kind, &block[at..text_end]), text_end))
}

/// A `<v>` value's text as the scanner parses it for a cell of `kind`: a
/// number, a shared string's index, a boolean; [`Parsed::No`] for any
/// other kind or text, which the row reader reads.
#[inline(always)]
fn parsed_value(kind: CellKind, text: &[u8]) -> Parsed {
    match kind {
        CellKind::Number => number::parse_number(text).map_or(Parsed::No, Parsed::Number),
        CellKind::SharedString => {
            number::parse_index(text).map_or(Parsed::No, Parsed::SharedString)
        }
        CellKind::Bool => match text {
            b"1" => Parsed::Bool(true),
            b"0" => Parsed::Bool(false),
            _ => Parsed::No,
        },
        _ => Parsed::No,
    }
}

/// The text of a shaped inline string whose `<is><t>` ends at `at` in
/// `block` (at `pos` in the window): verbatim text of up to 23 bytes, then
/// `</t></is></c>`; and where it ends. None for other text, which the fast
/// path reads (and decodes).
#[inline(always)]
fn shaped_inline_string(
    block: &[u8; SHAPED_CELL],
    pos: usize,
    at: usize,
) -> Option<(Parsed, usize)> {
    // `</t></is></c>`: a word, then five bytes.
    const T_CLOSE: u64 = u64::from_le_bytes(*b"</t></is");
    const IS_CLOSE: u64 = u64::from_le_bytes(*b"></c>\0\0\0");
    const FIVE_BYTES: u64 = 0xff_ffff_ffff;
    let text_end = find_lt(block, at)?;
    if word_of(block, text_end) != T_CLOSE
        || word_of(block, text_end + 8) & FIVE_BYTES != IS_CLOSE
        || !is_verbatim_text(&block[at..text_end])
    {
        return None;
    }
    let start = u32::try_from(pos + at).ok()?;
    let end = u32::try_from(pos + text_end).ok()?;
    Some((Parsed::Text { start, end }, text_end))
}

/// The sixteen bytes of `block` at `at` as a little-endian u128 (zero
/// past its end, where no byte is wanted).
#[inline(always)]
fn block_u128(block: &[u8; SHAPED_CELL], at: usize) -> u128 {
    match block.get(at..).and_then(|rest| rest.first_chunk::<16>()) {
        Some(bytes) => u128::from_le_bytes(*bytes),
        None => 0,
    }
}

/// The eight bytes of `block` at `at` as a little-endian word (zero past
/// its end, where no byte is wanted).
#[inline(always)]
fn word_of(block: &[u8; SHAPED_CELL], at: usize) -> u64 {
    match block.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        Some(word) => u64::from_le_bytes(*word),
        None => 0,
    }
}

/// The column letters of a reference at byte 6 of `block` (after
/// `<c r="`): the column (0-based) and where the letters end; None for no
/// letters, more than three or a column past XFD.
#[inline(always)]
fn block_column(block: &[u8; SHAPED_CELL]) -> Option<(u32, usize)> {
    let letter = |at: usize| {
        let l = block[at].wrapping_sub(b'A');
        (l < 26).then_some(u32::from(l))
    };
    let first = letter(6)?;
    let Some(second) = letter(7) else {
        return Some((first, 7));
    };
    let Some(third) = letter(8) else {
        return Some(((first + 1) * 26 + second, 8));
    };
    let column = ((first + 1) * 26 + second + 1) * 26 + third;
    (letter(9).is_none() && column <= MAX_COLUMN).then_some((column, 9))
}

/// The first `<` in `block` at or after `at`, within 24 bytes.
#[inline(always)]
fn find_lt(block: &[u8; SHAPED_CELL], at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    for word_start in [at, at + 8, at + 16] {
        let diff = word_of(block, word_start) ^ (ONES * u64::from(b'<'));
        let found = diff.wrapping_sub(ONES) & !diff & HIGH_BITS;
        if found != 0 {
            return Some(word_start + (found.trailing_zeros() / 8) as usize);
        }
    }
    None
}

/// The row digits of a reference and its closing quote, from `at`, for a
/// cell outside its row's row (or a window too short to compare a word).
/// Returns the position after the quote.
#[cold]
fn reference_row(input: &[u8], at: usize, cell: &mut RawCell) -> Option<usize> {
    let (row, end) = quoted_digits(input, at, 7)?;
    if row == 0 || row > MAX_ROW + 1 {
        return None;
    }
    cell.row = row - 1;
    Some(end)
}

/// One to `max_digits` (at most 9) decimal digits from `at`, then `"`:
/// their value and the position after the quote.
#[inline(always)]
fn quoted_digits(input: &[u8], mut at: usize, max_digits: usize) -> Option<(u32, usize)> {
    let mut value: u32 = 0;
    let start = at;
    while let Some(digit) = input
        .get(at)
        .map(|b| b.wrapping_sub(b'0'))
        .filter(|d| *d < 10)
    {
        if at - start == max_digits {
            return None;
        }
        value = value * 10 + u32::from(digit);
        at += 1;
    }
    (at > start && *input.get(at)? == b'"').then_some((value, at + 1))
}

/// The fast path for the cell shape nearly every writer produces:
/// `<c attributes/>` or `<c attributes><v>text</v></c>`, unprefixed, with
/// nothing between the tags. Returns the cell's column and the position
/// after it, or None, with nothing recorded, for anything else (a formula,
/// an inline string, a comment, a prefix, whitespace, a malformed
/// attribute, a cell cut off by the end of the window), which the general
/// path then reads and reports on.
///
/// The cell is written straight into its slot in `cells` (and taken out
/// again when it has no value or the fast path gives up): assembled on the
/// stack and moved, its fields' narrow stores would be read back as wide
/// loads, which the processor cannot forward, for every cell.
#[inline(always)]
fn fast_cell(
    input: &[u8],
    pos: usize,
    row: &RowReference,
    next_column: u32,
    cells: &mut Vec<RawCell>,
    pieces: &mut Vec<Piece>,
) -> Option<(u32, usize)> {
    // A row that holds all the cells it may: the general path reads the
    // next one, and reports it if it has a value.
    if input.get(pos..pos + 3)? != b"<c " || cells.len() >= MAX_ROW_CELLS {
        return None;
    }
    cells.push(RawCell {
        row: row.index,
        column: next_column,
        style: 0,
        kind: CellKind::Number,
        value: None,
        parsed: Parsed::No,
        formula: None,
        offset: pos,
    });
    let cell = cells.last_mut()?;
    match read_fast_cell(input, pos, row, cell, pieces) {
        Some(end) => {
            let column = cell.column;
            if cell.value.is_none() {
                cells.pop();
            }
            Some((column, end))
        }
        None => {
            cells.pop();
            None
        }
    }
}

/// The body of [`fast_cell`]: reads the cell at `pos` into `cell`.
/// Returns the position after it.
#[inline(always)]
fn read_fast_cell(
    input: &[u8],
    pos: usize,
    row: &RowReference,
    cell: &mut RawCell,
    pieces: &mut Vec<Piece>,
) -> Option<usize> {
    let (close, self_closing) = match canonical_cell_attributes(input, pos + 3, row, cell) {
        Some(found) => found,
        None => {
            let found = general_cell_attributes(input, pos + 3, cell)?;
            // A cell without `r` after one in column XFD is past the last
            // column: the general path reports it. (The canonical shape's
            // reference is checked as it is read.)
            if cell.column > MAX_COLUMN {
                return None;
            }
            found
        }
    };
    let at = close + 1;
    if self_closing {
        return Some(at);
    }
    if cell.kind == CellKind::InlineString {
        let (text_start, text_end) = inline_string_text(input, at)?;
        let start = pieces.len() as u32;
        // Verbatim text (nearly all of it) is handed out as it stands, and
        // keeps the row on the parsed values' way: no piece to decode, no
        // UTF-8 check of the row (9% of the instructions of `arrow -t 1`
        // on the Spark bench's book, two inline strings a row), the text
        // checked alone. Text that is not UTF-8 sends the row the general
        // way, which reports it.
        if let (Ok(plain_start), Ok(plain_end)) =
            (u32::try_from(text_start), u32::try_from(text_end))
            && is_verbatim_text(&input[text_start..text_end])
        {
            cell.parsed = Parsed::Text {
                start: plain_start,
                end: plain_end,
            };
            cell.value = Some(PieceRange { start, end: start });
            return Some(text_end + 13);
        }
        pieces.push(Piece {
            span: Span::new(text_start, text_end),
            cdata: false,
        });
        cell.value = Some(PieceRange {
            start,
            end: start + 1,
        });
        return Some(text_end + 13);
    }
    if input.get(at..at + 3)? != b"<v>" {
        return None;
    }
    let text_start = at + 3;
    let text_end = find_byte_soon(input, text_start, b'<')?;
    if input.get(text_end..text_end + 8)? != b"</v></c>" {
        return None;
    }
    cell.parsed = parsed_value(cell.kind, &input[text_start..text_end]);
    let start = pieces.len() as u32;
    if cell.parsed == Parsed::No {
        pieces.push(Piece {
            span: Span::new(text_start, text_end),
            cdata: false,
        });
        cell.value = Some(PieceRange {
            start,
            end: start + 1,
        });
    } else {
        cell.value = Some(PieceRange { start, end: start });
    }
    Some(text_end + 8)
}

/// Whether a scanned cell holds a value: a `<v>` (an empty `<v></v>` of a
/// number cell, which is no value, counts too: the value is not resolved)
/// or an inline string.
fn holds_value(cell: &RawCell) -> bool {
    cell.value.is_some_and(|range| {
        range.start < range.end
            || !matches!(cell.parsed, Parsed::No)
            || matches!(cell.kind, CellKind::FormulaString | CellKind::InlineString)
    })
}

/// The error for a row with more cells than a row has columns.
fn too_many_cells() -> Error {
    Error::new(ErrorKind::CellReference(format!(
        "more than {MAX_ROW_CELLS} cells with a value in one row"
    )))
}

/// The error for an end tag that does not close the innermost open element.
fn unexpected_end_tag(input: &[u8], name: Span, pos: usize) -> Error {
    Error::xml(format!(
        "`</{}>` does not close the element open here",
        String::from_utf8_lossy(name.of(input))
    ))
    .with_offset(pos as u64)
}

/// Text between rows or cells is ignored, but it must still be well-formed:
/// an entity reference there has to be one XML knows.
fn check_stray_text(input: &[u8], token: Token, pos: usize) -> Result<()> {
    let Token::Text(span) = token else {
        return Ok(());
    };
    let raw = span.of(input);
    if memchr::memchr(b'&', raw).is_none() {
        return Ok(());
    }
    let text = simdutf8::basic::from_utf8(raw)
        .map_err(|_| Error::new(ErrorKind::InvalidUtf8).with_offset(pos as u64))?;
    xml::decode_text(text, true, &mut xml::Discard)
        .map_err(|message| Error::xml(message).with_offset(pos as u64))
}

fn trim(bytes: &[u8]) -> &[u8] {
    bytes.trim_ascii()
}

fn read_cell_attributes(input: &[u8], attributes: Span, cell: &mut RawCell) -> Result<()> {
    let mut seen = [false; 3];
    for attribute in Attributes::new(input, attributes) {
        let (key, value) = attribute.map_err(xml_error)?;
        let value = decode_attribute(value.of(input))?;
        let value: &[u8] = &value;
        let slot = [b"r".as_slice(), b"s", b"t"]
            .iter()
            .position(|name| *name == key);
        if let Some(slot) = slot
            && std::mem::replace(&mut seen[slot], true)
        {
            return Err(Error::xml(format!(
                "the attribute `{}` appears twice",
                String::from_utf8_lossy(key)
            )));
        }
        match key {
            b"r" => {
                let (row, column) = parse_reference(trim(value)).ok_or_else(|| {
                    Error::new(ErrorKind::CellReference(format!(
                        "`{}` is not a cell reference within XFD1048576",
                        String::from_utf8_lossy(value)
                    )))
                })?;
                cell.column = column;
                if let Some(row) = row {
                    cell.row = row;
                }
            }
            b"s" => cell.style = parse_style(value),
            // An unknown type is read as a number, as Excel does.
            b"t" => cell.kind = cell_kind(value).unwrap_or(CellKind::Number),
            _ => {}
        }
    }
    Ok(())
}

/// The cell type a `t` attribute names.
#[inline(always)]
fn cell_kind(value: &[u8]) -> Option<CellKind> {
    Some(match value {
        b"n" => CellKind::Number,
        b"s" => CellKind::SharedString,
        b"str" => CellKind::FormulaString,
        b"inlineStr" => CellKind::InlineString,
        b"b" => CellKind::Bool,
        b"e" => CellKind::Error,
        b"d" => CellKind::Date,
        _ => return None,
    })
}

/// The cell types the fast path reads (an inline string's text is in child
/// elements, which only the general path reads).
#[inline]
fn fast_cell_kind(value: &[u8]) -> Option<CellKind> {
    cell_kind(value).filter(|kind| *kind != CellKind::InlineString)
}

/// An attribute value as the general path reads it: the bytes as they
/// stand, or with their character and entity references decoded (on the
/// stack: the values read here are short).
enum AttributeValue<'a> {
    Raw(&'a [u8]),
    Decoded(SmallVec<[u8; 32]>),
}

impl std::ops::Deref for AttributeValue<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            AttributeValue::Raw(bytes) => bytes,
            AttributeValue::Decoded(bytes) => bytes,
        }
    }
}

/// Decodes the references in an attribute value (`r="&#66;2"` is `B2`);
/// nearly always there are none and the value is borrowed.
fn decode_attribute(raw: &[u8]) -> Result<AttributeValue<'_>> {
    if !raw.contains(&b'&') {
        return Ok(AttributeValue::Raw(raw));
    }
    let text = std::str::from_utf8(raw).map_err(|_| Error::new(ErrorKind::InvalidUtf8))?;
    let mut decoded = SmallVec::new();
    xml::decode_text(text, true, &mut decoded).map_err(Error::xml)?;
    Ok(AttributeValue::Decoded(decoded))
}

fn parse_style(value: &[u8]) -> u32 {
    let mut style: u32 = 0;
    for &digit in trim(value) {
        if !digit.is_ascii_digit() {
            return 0;
        }
        style = style
            .saturating_mul(10)
            .saturating_add(u32::from(digit - b'0'));
    }
    style
}

/// Which child of `<c>` the text being read belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Collecting {
    Nothing,
    Value,
    Formula,
    /// Inside `<is>`; text counts only inside `<t>` and outside `<rPh>`.
    Inline {
        in_text: bool,
        phonetic_depth: u32,
    },
}

fn piece_index(pieces: &[Piece]) -> u32 {
    pieces.len() as u32
}

/// Scans the children of a `<c>` from `pos` to its end tag. Returns the
/// position after `</c>`, or None when the input ends first. Foreign
/// elements (see [`Namespaces`]) are skipped with their content; the
/// bindings made inside the cell are dropped again by its end.
fn scan_cell_body(
    input: &[u8],
    mut pos: usize,
    complete: bool,
    cell: &mut RawCell,
    pieces: &mut Vec<Piece>,
    namespaces: &mut Namespaces,
) -> Result<Option<usize>> {
    let mut collecting = Collecting::Nothing;
    let mut range_start = piece_index(pieces);
    let mut inline: Option<PieceRange> = None;
    // Elements open inside the cell, to check that they nest: each with
    // the namespace bindings before its own and whether it is
    // SpreadsheetML's.
    let mut open: SmallVec<[(Span, usize, bool); 4]> = SmallVec::new();
    // How many of them are foreign: nothing inside is read.
    let mut foreign = 0usize;
    loop {
        let (token, next) = match xml::next_token(input, pos, complete).map_err(xml_error)? {
            Step::Token(token, next) => (token, next),
            Step::Incomplete => return Ok(None),
            Step::End => {
                return Err(
                    Error::xml("the part ends inside a `<c>`").with_offset(cell.offset as u64)
                );
            }
        };
        match token {
            Token::Start {
                name,
                attributes,
                self_closing,
            } => {
                let local = xml::local_name(name.of(input));
                if matches!(collecting, Collecting::Value | Collecting::Formula) {
                    return Err(Error::xml(format!(
                        "`<{}>` inside a cell's value or formula",
                        String::from_utf8_lossy(name.of(input))
                    ))
                    .with_offset(pos as u64));
                }
                let scope = namespaces.len();
                namespaces.declare(input, attributes).map_err(xml_error)?;
                let spreadsheet = foreign == 0 && namespaces.is_spreadsheet(name.of(input));
                if spreadsheet && matches!(local, b"c" | b"row" | b"sheetData") {
                    return Err(Error::xml(format!(
                        "a `<{}>` inside a `<c>`",
                        String::from_utf8_lossy(local)
                    ))
                    .with_offset(pos as u64));
                }
                if self_closing {
                    namespaces.truncate(scope);
                } else {
                    if open.len() >= MAX_NESTING {
                        return Err(too_deep(pos));
                    }
                    open.push((name, scope, spreadsheet));
                    foreign += usize::from(!spreadsheet);
                }
                if !spreadsheet {
                    pos = next;
                    continue;
                }
                match (collecting, local) {
                    (Collecting::Nothing, b"v") => {
                        range_start = piece_index(pieces);
                        if self_closing {
                            cell.value = Some(PieceRange {
                                start: range_start,
                                end: range_start,
                            });
                        } else {
                            collecting = Collecting::Value;
                        }
                    }
                    (Collecting::Nothing, b"f") if !self_closing => {
                        range_start = piece_index(pieces);
                        collecting = Collecting::Formula;
                    }
                    (Collecting::Nothing, b"is") => {
                        range_start = piece_index(pieces);
                        if self_closing {
                            inline = Some(PieceRange {
                                start: range_start,
                                end: range_start,
                            });
                        } else {
                            collecting = Collecting::Inline {
                                in_text: false,
                                phonetic_depth: 0,
                            };
                        }
                    }
                    (Collecting::Inline { phonetic_depth, .. }, b"t") if !self_closing => {
                        collecting = Collecting::Inline {
                            in_text: true,
                            phonetic_depth,
                        };
                    }
                    (
                        Collecting::Inline {
                            in_text,
                            phonetic_depth,
                        },
                        b"rPh",
                    ) if !self_closing => {
                        collecting = Collecting::Inline {
                            in_text,
                            phonetic_depth: phonetic_depth + 1,
                        };
                    }
                    _ => {}
                }
            }
            Token::End { name } => {
                let local = xml::local_name(name.of(input));
                if open.is_empty() {
                    if local != b"c" {
                        return Err(Error::xml(format!(
                            "`</c>` not found before `</{}>`",
                            String::from_utf8_lossy(name.of(input))
                        ))
                        .with_offset(cell.offset as u64));
                    }
                    if let Some(inline) = inline {
                        cell.kind = CellKind::InlineString;
                        cell.value = Some(inline);
                    } else if cell.kind == CellKind::InlineString {
                        // An inline string's text is in `<is>`; a `<v>` there is not it.
                        cell.value = None;
                    }
                    return Ok(Some(next));
                }
                let Some((_, scope, spreadsheet)) = open
                    .pop()
                    .filter(|(top, ..)| top.of(input) == name.of(input))
                else {
                    return Err(unexpected_end_tag(input, name, pos));
                };
                namespaces.truncate(scope);
                if !spreadsheet {
                    foreign -= 1;
                    pos = next;
                    continue;
                }
                let range = PieceRange {
                    start: range_start,
                    end: piece_index(pieces),
                };
                match (collecting, local) {
                    (Collecting::Value, b"v") => {
                        cell.value = Some(range);
                        collecting = Collecting::Nothing;
                    }
                    (Collecting::Formula, b"f") => {
                        cell.formula = Some(range);
                        collecting = Collecting::Nothing;
                    }
                    (Collecting::Inline { phonetic_depth, .. }, b"t") => {
                        collecting = Collecting::Inline {
                            in_text: false,
                            phonetic_depth,
                        };
                    }
                    (
                        Collecting::Inline {
                            in_text,
                            phonetic_depth,
                        },
                        b"rPh",
                    ) => {
                        collecting = Collecting::Inline {
                            in_text,
                            phonetic_depth: phonetic_depth.saturating_sub(1),
                        };
                    }
                    (Collecting::Inline { .. }, b"is") => {
                        inline = Some(range);
                        collecting = Collecting::Nothing;
                    }
                    _ => {}
                }
            }
            Token::Text(_) | Token::CData(_) => {
                let keep = match collecting {
                    _ if foreign > 0 => false,
                    Collecting::Value | Collecting::Formula => true,
                    Collecting::Inline {
                        in_text,
                        phonetic_depth,
                    } => in_text && phonetic_depth == 0,
                    Collecting::Nothing => false,
                };
                if keep {
                    if pieces.len() >= MAX_PIECES {
                        return Err(Error::xml(format!(
                            "more than {MAX_PIECES} pieces of text in one row"
                        ))
                        .with_offset(pos as u64));
                    }
                    pieces.extend(Piece::of_token(token));
                } else {
                    check_stray_text(input, token, pos)?;
                }
            }
            Token::Skip => {}
        }
        pos = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::FORBIDDEN_CONTROL;

    /// A scanned cell with its text joined (raw, not decoded).
    #[derive(Debug, PartialEq)]
    struct Seen {
        row: u32,
        column: u32,
        kind: CellKind,
        style: u32,
        value: String,
        formula: Option<String>,
    }

    fn text_of(input: &[u8], row: &RawRow, cell: &RawCell, range: PieceRange) -> String {
        match cell.parsed {
            Parsed::No => {}
            Parsed::Number(number) => return number.to_string(),
            Parsed::SharedString(index) => return index.to_string(),
            Parsed::Bool(flag) => return u8::from(flag).to_string(),
            Parsed::Text { start, end } => {
                return String::from_utf8_lossy(&input[start as usize..end as usize]).into_owned();
            }
        }
        row.pieces[range.start as usize..range.end as usize]
            .iter()
            .map(|piece| String::from_utf8_lossy(piece.span.of(input)).into_owned())
            .collect()
    }

    /// Feeds `xml` to the scanner in chunks of `chunk` bytes, the way the
    /// reader does, and returns every row seen.
    fn scan_in_chunks(xml: &str, chunk: usize) -> Result<Vec<(u32, Vec<Seen>)>> {
        let bytes = xml.as_bytes();
        let mut scanner = SheetScanner::new();
        let mut row = RawRow::default();
        let mut window_start = 0;
        let mut window_end = chunk.min(bytes.len());
        let mut rows = Vec::new();
        loop {
            let window = &bytes[window_start..window_end];
            let complete = window_end == bytes.len();
            let scanned = scanner.scan(window, complete, &mut row);
            // Offsets from the start of the part, not of the window.
            match scanned.map_err(|err| err.shift_offset(window_start as u64))? {
                Scan::Row { consumed } => {
                    let cells = row
                        .cells
                        .iter()
                        .map(|cell| Seen {
                            row: cell.row,
                            column: cell.column,
                            kind: cell.kind,
                            style: cell.style,
                            value: text_of(window, &row, cell, cell.value.unwrap()),
                            formula: cell.formula.map(|f| {
                                text_of(
                                    window,
                                    &row,
                                    &RawCell {
                                        parsed: Parsed::No,
                                        ..*cell
                                    },
                                    f,
                                )
                            }),
                        })
                        .collect();
                    rows.push((row.index, cells));
                    window_start += consumed;
                }
                Scan::NeedMore { consumed } => {
                    window_start += consumed;
                    assert!(!complete, "need more at the end of the input");
                    window_end = (window_end + chunk).min(bytes.len());
                }
                Scan::End => return Ok(rows),
            }
        }
    }

    fn scan_every_way(xml: &str) -> Vec<(u32, Vec<Seen>)> {
        let whole = scan_in_chunks(xml, xml.len()).unwrap();
        for chunk in [1, 7, 4096] {
            assert_eq!(
                scan_in_chunks(xml, chunk).unwrap(),
                whole,
                "chunk size {chunk}"
            );
        }
        whole
    }

    fn seen(row: u32, column: u32, kind: CellKind, value: &str) -> Seen {
        Seen {
            row,
            column,
            kind,
            style: 0,
            value: value.into(),
            formula: None,
        }
    }

    /// Everything the scanner hands out for `xml` read whole, with the
    /// repeated shapes' path or without: each row (index, hidden, whether
    /// it is ASCII only, whether skipped values made it exist, its cells
    /// field by field and its pieces), or the error as text.
    fn raw_rows(xml: &[u8], shapes: bool) -> std::result::Result<Vec<String>, String> {
        let mut scanner = SheetScanner::new();
        if !shapes {
            scanner.without_shapes();
        }
        let mut row = RawRow::default();
        let mut start = 0;
        let mut rows = Vec::new();
        loop {
            match scanner.scan(&xml[start..], true, &mut row) {
                Ok(Scan::Row { consumed }) => {
                    rows.push(format!(
                        "{} {} {} {} {:?} {:?}",
                        row.index,
                        row.hidden,
                        row.values_parsed,
                        row.values_skipped,
                        row.cells,
                        row.pieces
                    ));
                    start += consumed;
                }
                Ok(Scan::NeedMore { .. }) => return Err("needs more at the end".into()),
                Ok(Scan::End) => return Ok(rows),
                Err(err) => return Err(err.to_string()),
            }
        }
    }

    /// A sheet of the shapes the repeated shapes' path takes and of those
    /// it leaves: columns whose style or type changes from row to row,
    /// sparse and self-closing cells, values it reads and values it
    /// leaves as text, references of other rows, long columns and values.
    fn shapes_sheet() -> String {
        let mut xml = String::from(concat!(
            "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">",
            "<sheetData>"
        ));
        let cells = [
            r#"<c r="A{r}"><v>{r}</v></c>"#,
            r#"<c r="B{r}" s="1"><v>4{r}.25</v></c>"#,
            r#"<c r="C{r}" t="s"><v>{r}</v></c>"#,
            r#"<c r="D{r}" s="12" t="b"><v>1</v></c>"#,
            r#"<c r="E{r}" s="3"/>"#,
            r#"<c r="F{r}" t="e"><v>#N/A</v></c>"#,
            r#"<c r="G{r}"><v>1E+{r}</v></c>"#,
            r#"<c r="H{r}" t="str"><v>a&amp;b</v></c>"#,
            r#"<c r="I{r}" t="inlineStr"><is><t>x{r}</t></is></c>"#,
            r#"<c r="J{r}"><v>0.1234567890123456789012345</v></c>"#,
            r#"<c r="AB{r}" s="123456789" t="s"><v>7</v></c>"#,
            r#"<c r="XFD{r}" t="b"><v>2</v></c>"#,
            r#"<c r="K{r}" t="d"><v>2024-01-0{r}</v></c>"#,
            r#"<c r="L{r}"><v>-</v></c>"#,
            r#"<c r="M7"><v>5</v></c>"#,
            r#"<c r="N{r}"><v>héllo</v></c>"#,
            r#"<c r="O{r}" t="inlineStr"><is><t>é{r}</t></is></c>"#,
            r#"<c r="P{r}" t="inlineStr"><is><t>text longer than twenty-three bytes</t></is></c>"#,
            r#"<c r="Q{r}" s="12" t="inlineStr"><is><t>a&amp;{r}</t></is></c>"#,
            r#"<c r="AC{r}" s="123456789" t="inlineStr"><is><t>y{r}</t></is></c>"#,
            r#"<c r="AD{r}" t="inlineStr"><is><t xml:space="preserve"> z </t></is></c>"#,
            r#"<c r="AE{r}" s="123456789" t="str"><v>long shape, text</v></c>"#,
        ];
        for r in 1..=9u32 {
            xml.push_str(&format!("<row r=\"{r}\">"));
            for (at, cell) in cells.iter().enumerate() {
                // Each row leaves some cells out and changes some shapes.
                if (at as u32 + r).is_multiple_of(5) {
                    continue;
                }
                let mut cell = cell.replace("{r}", &r.to_string());
                if r.is_multiple_of(3) {
                    cell = cell
                        .replace(" s=\"1\"", " s=\"2\"")
                        .replace(" t=\"s\"", " t=\"n\"");
                }
                xml.push_str(&cell);
            }
            xml.push_str("</row>");
        }
        xml.push_str("</sheetData></worksheet>");
        xml
    }

    #[test]
    fn repeated_shapes_read_as_the_fast_path_reads() {
        let xml = shapes_sheet();
        let with = raw_rows(xml.as_bytes(), true).unwrap();
        assert_eq!(with.len(), 9);
        assert_eq!(with, raw_rows(xml.as_bytes(), false).unwrap());
        assert_eq!(scan_every_way(&xml).len(), 9);
        // The path ran: it learned the shapes of the columns it takes (a
        // value in `<v>`, whatever its type, an inline string in `<is><t>`,
        // or none; D, Q, AB and AE with more than 16 bytes after the
        // reference), not those it leaves (AC: more than 32 bytes after
        // the reference; AD, an inline string with an attribute; XFD, past
        // SHAPED_COLUMNS).
        let mut scanner = SheetScanner::new();
        let mut row = RawRow::default();
        let mut start = 0;
        while let Ok(Scan::Row { consumed }) =
            scanner.scan(&xml.as_bytes()[start..], true, &mut row)
        {
            start += consumed;
        }
        let learned: Vec<usize> = (scanner.shapes.shapes.iter().enumerate())
            .filter(|(_, shape)| shape.end != ShapeEnd::Unknown)
            .map(|(column, _)| column)
            .collect();
        let mut expected: Vec<usize> = (0..=16).collect();
        expected.extend([27, 30]);
        assert_eq!(learned, expected);
    }

    #[test]
    fn repeated_shapes_fail_as_the_fast_path_fails() {
        // Every byte of the sheet changed in turn, to each of a few bytes
        // that matter to tags: both paths read the same rows or give the
        // same error.
        let xml = shapes_sheet().into_bytes();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut changed = xml.clone();
        for at in 0..xml.len() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let bytes = b"<>/\"= 0A9Zsv\x01";
            let byte = bytes[(state % bytes.len() as u64) as usize];
            changed[at] = byte;
            assert_eq!(
                raw_rows(&changed, true),
                raw_rows(&changed, false),
                "byte {at} changed to {:?}",
                byte as char
            );
            changed[at] = xml[at];
        }
    }

    const SHEET: &str = concat!(
        "\u{feff}<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n",
        "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"",
        " xmlns:x=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">",
        "<dimension ref=\"A1:C4\"/><sheetViews><sheetView workbookViewId=\"0\"/></sheetViews>",
        "<sheetData>\n",
        "<row r=\"1\" spans=\"1:3\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" s=\"2\"><v>1.5</v></c>",
        "<c r=\"C1\" t=\"str\"><f>A1&amp;\"x\"</f><v>a&lt;b</v></c></row>",
        "<row r=\"3\"/>",
        "<row><c t=\"b\"><v>1</v></c><!-- note --><c t=\"e\"><v>#N/A</v></c><c r=\"E4\" s=\"1\"/>",
        "<c t=\"inlineStr\"><is><r><t>ri</t></r><r><t xml:space=\"preserve\">ch</t></r>",
        "<rPh><t>ignored</t></rPh></is></c></row>",
        "<x:row r='6' x:spans='1:1'><x:c r='B6' t='d'><x:v><![CDATA[2024-01-02]]></x:v></x:c></x:row>",
        "</sheetData><mergeCells count=\"1\"><mergeCell ref=\"A1:B1\"/></mergeCells></worksheet>"
    );

    #[test]
    fn scans_the_same_rows_in_any_chunking() {
        let rows = scan_every_way(SHEET);
        let indices: Vec<u32> = rows.iter().map(|(index, _)| *index).collect();
        assert_eq!(indices, [0, 2, 3, 5]);
        assert_eq!(
            rows[0].1,
            [
                seen(0, 0, CellKind::SharedString, "0"),
                Seen {
                    style: 2,
                    ..seen(0, 1, CellKind::Number, "1.5")
                },
                Seen {
                    formula: Some("A1&amp;\"x\"".into()),
                    ..seen(0, 2, CellKind::FormulaString, "a&lt;b")
                },
            ]
        );
        assert!(rows[1].1.is_empty());
        assert_eq!(
            rows[2].1,
            [
                seen(3, 0, CellKind::Bool, "1"),
                seen(3, 1, CellKind::Error, "#N/A"),
                seen(3, 5, CellKind::InlineString, "rich"),
            ]
        );
        assert_eq!(rows[3].1, [seen(5, 1, CellKind::Date, "2024-01-02")]);
    }

    #[test]
    fn inline_strings_on_the_fast_and_the_general_path() {
        let rows = scan_every_way(concat!(
            "<worksheet><sheetData><row r=\"1\">",
            "<c r=\"A1\" t=\"inlineStr\"><is><t>a&amp;b</t></is></c>",
            "<c r=\"B1\" s=\"3\" t=\"inlineStr\"><is><t xml:space=\"preserve\"> x </t></is></c>",
            "<c r=\"C1\" t=\"inlineStr\"><is><t>p</t><rPh><t>q</t></rPh></is></c>",
            "<c r=\"D1\" t=\"inlineStr\"><v>not it</v></c>",
            "<c r=\"E1\" t=\"inlineStr\"/>",
            "</row></sheetData></worksheet>"
        ));
        assert_eq!(
            rows[0].1,
            [
                seen(0, 0, CellKind::InlineString, "a&amp;b"),
                Seen {
                    style: 3,
                    ..seen(0, 1, CellKind::InlineString, " x ")
                },
                seen(0, 2, CellKind::InlineString, "p"),
            ]
        );
    }

    #[test]
    fn cell_references_in_and_out_of_their_row() {
        let rows = scan_every_way(concat!(
            "<worksheet><sheetData>",
            "<row r=\"9\"><c r=\"A9\"><v>1</v></c><c r=\"B09\"><v>2</v></c>",
            "<c r=\"C90\"><v>3</v></c><c r=\"D8\"><v>4</v></c><c r=\"E9\"><v>5</v></c></row>",
            "<row r=\"1048576\"><c r=\"XFD1048576\"><v>6</v></c><c r=\"A104857\"><v>7</v></c></row>",
            "</sheetData></worksheet>"
        ));
        assert_eq!(
            rows[0],
            (
                8,
                vec![
                    seen(8, 0, CellKind::Number, "1"),
                    seen(8, 1, CellKind::Number, "2"),
                    seen(89, 2, CellKind::Number, "3"),
                    seen(7, 3, CellKind::Number, "4"),
                    seen(8, 4, CellKind::Number, "5"),
                ]
            )
        );
        assert_eq!(
            rows[1],
            (
                MAX_ROW,
                vec![
                    seen(MAX_ROW, MAX_COLUMN, CellKind::Number, "6"),
                    seen(104_856, 0, CellKind::Number, "7"),
                ]
            )
        );
        // Row numbers spelled with leading zeros, after other attributes,
        // or not at all: the cells' references are still read right.
        let rows = scan_every_way(concat!(
            "<worksheet><sheetData>",
            "<row r=\"007\"><c r=\"A7\"><v>1</v></c><c r=\"B007\"><v>2</v></c></row>",
            "<row spans=\"1:2\" r=\"12\"><c r=\"A12\"><v>3</v></c></row>",
            "<row><c r=\"A13\"><v>4</v></c><c><v>5</v></c></row>",
            "</sheetData></worksheet>"
        ));
        assert_eq!(
            rows,
            [
                (
                    6,
                    vec![
                        seen(6, 0, CellKind::Number, "1"),
                        seen(6, 1, CellKind::Number, "2")
                    ]
                ),
                (11, vec![seen(11, 0, CellKind::Number, "3")]),
                (
                    12,
                    vec![
                        seen(12, 0, CellKind::Number, "4"),
                        seen(12, 1, CellKind::Number, "5")
                    ]
                ),
            ]
        );
        // A second `r` on a row is refused, wherever the first one was.
        for row in ["<row r=\"1\" r=\"2\">", "<row s=\"1\" r=\"1\" r=\"2\">"] {
            let xml = format!("<worksheet><sheetData>{row}</row></sheetData></worksheet>");
            assert!(scan_in_chunks(&xml, 64).is_err(), "{xml}");
        }
        // Styles of nine digits on the fast path, longer ones on the general.
        let rows = scan_every_way(concat!(
            "<worksheet><sheetData><row r=\"1\">",
            "<c r=\"A1\" s=\"123456789\"><v>1</v></c>",
            "<c r=\"B1\" s=\"1234567890\"><v>2</v></c>",
            "</row></sheetData></worksheet>"
        ));
        let styles: Vec<u32> = rows[0].1.iter().map(|cell| cell.style).collect();
        assert_eq!(styles, [123_456_789, 1_234_567_890]);
        // A reference past the last row is an error, in any row.
        assert!(
            scan_in_chunks(
                "<worksheet><sheetData><row r=\"1\"><c r=\"A1048577\"><v>1</v></c></row></sheetData></worksheet>",
                64
            )
            .is_err()
        );
    }

    #[test]
    fn references_in_attribute_values_are_decoded() {
        let rows = scan_every_way(concat!(
            "<worksheet><sheetData><row r=\"&#51;\">",
            "<c r=\"&#66;3\" s=\"&#50;\" t=\"&#115;\"><v>0</v></c>",
            "<c r=\"C&#x33;\" t=\"&#98;\"><v>1</v></c>",
            "</row></sheetData></worksheet>"
        ));
        assert_eq!(
            rows,
            [(
                2,
                vec![
                    Seen {
                        style: 2,
                        ..seen(2, 1, CellKind::SharedString, "0")
                    },
                    seen(2, 2, CellKind::Bool, "1"),
                ]
            )]
        );
        // An undeclared entity in a value is refused.
        assert!(
            scan_in_chunks(
                "<worksheet><sheetData><row><c r=\"&x;1\"><v>1</v></c></row></sheetData></worksheet>",
                64
            )
            .is_err()
        );
    }

    /// Whether the one row of `row_xml`, scanned in one window, needs no
    /// text of its own.
    fn values_parsed(row_xml: &str) -> bool {
        let xml = format!("<sheetData>{row_xml}</sheetData>");
        let mut row = RawRow::default();
        let scan = SheetScanner::new().scan(xml.as_bytes(), true, &mut row);
        assert!(matches!(scan, Ok(Scan::Row { .. })), "{scan:?}");
        row.values_parsed
    }

    #[test]
    fn rows_of_parsed_values_need_no_text() {
        for row in [
            r#"<row r="1"><c r="A1"><v>1.5</v></c><c r="B1" t="s"><v>0</v></c></row>"#,
            r#"<row r="2" spans="1:3" x14ac:dyDescent="0.25"><c r="C2" t="b"><v>1</v></c></row>"#,
            r#"<row r="3"><c r="A3" s="2"/><c r="B3" cm="1" s="1"><v>-4</v></c></row>"#,
            r#"<row r="4"/>"#,
            // Plain inline strings are handed out as they stand.
            r#"<row r="5"><c r="A5" t="inlineStr"><is><t>a b</t></is></c><c r="B5"><v>1</v></c></row>"#,
            r#"<row r="6"><c r="A6" t="inlineStr"><is><t xml:space="preserve"> a </t></is></c></row>"#,
            r#"<row r="7"><c r="A7" t="inlineStr"><is><t></t></is></c></row>"#,
            // Verbatim text beyond ASCII too: its UTF-8 is checked alone.
            "<row r=\"8\"><c r=\"A8\" t=\"inlineStr\"><is><t>\u{e9}</t></is></c></row>",
            "<row r=\"9\"><c r=\"A9\" t=\"inlineStr\"><is><t>東京</t></is></c></row>",
        ] {
            assert!(values_parsed(row), "{row}");
        }
        for row in [
            // Text is handed out: inline strings to decode or with a
            // control character, errors, unparsed numbers.
            r#"<row r="1"><c r="A1" t="inlineStr"><is><t>a&amp;b</t></is></c></row>"#,
            r#"<row r="1"><c r="A1" t="inlineStr"><is><t>a_x0041_</t></is></c></row>"#,
            "<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>a\r\nb</t></is></c></row>",
            r#"<row r="1"><c r="A1" t="inlineStr"><is><r><t>a</t></r></is></c></row>"#,
            r#"<row r="1"><c r="A1" t="e"><v>#N/A</v></c></row>"#,
            r#"<row r="1"><c r="A1"><v>1e</v></c></row>"#,
            // The general path read part of the row.
            r#"<row r="1"><c r="A1"><f>1+1</f><v>2</v></c></row>"#,
            r#"<row r="1"> <c r="A1"><v>1</v></c></row>"#,
            r#"<row r='1'><c r="A1"><v>1</v></c></row>"#,
            // Bytes beyond ASCII in attributes nothing reads.
            "<row r=\"1\" x=\"\u{e9}\"><c r=\"A1\"><v>1</v></c></row>",
            "<row r=\"1\"><c r=\"A1\" x=\"\u{e9}\"><v>1</v></c></row>",
        ] {
            assert!(!values_parsed(row), "{row}");
        }
    }

    #[test]
    fn a_sheet_without_rows_ends_cleanly() {
        assert!(scan_every_way("<worksheet><sheetData/></worksheet>").is_empty());
        assert!(scan_every_way("<chartsheet><drawing/></chartsheet>").is_empty());
        // An empty part, or a worksheet cut before its data, is no sheet.
        for cut in [
            "",
            "<?xml version=\"1.0\"?>",
            "<worksheet><dimension ref=\"A1\"/>",
            "<worksheet/>",
        ] {
            let err = scan_in_chunks(cut, 4).unwrap_err();
            assert!(
                err.to_string().contains("ends before `<sheetData>`"),
                "{cut}: {err}"
            );
        }
    }

    #[test]
    fn references_past_xfd1048576_are_errors() {
        for bad in [
            "<c r=\"XFE1\"><v>1</v></c>",
            "<c r=\"A1048577\"><v>1</v></c>",
            // No reference: the column after XFD, on the fast path's
            // general attribute reader, self-closing or not.
            "<c r=\"XFD1\"><v>1</v></c><c><v>2</v></c>",
            "<c r=\"XFD1\"><v>1</v></c><c s=\"1\"><v>2</v></c>",
            "<c r=\"XFD1\"><v>1</v></c><c t=\"b\"/>",
        ] {
            let xml = format!("<worksheet><sheetData><row>{bad}</row></sheetData></worksheet>");
            let err = scan_in_chunks(&xml, 5).unwrap_err();
            assert!(matches!(err.kind(), ErrorKind::CellReference(_)), "{err}");
        }
        let xml = "<worksheet><sheetData><row r=\"1048577\"/></sheetData></worksheet>";
        assert!(scan_in_chunks(xml, 3).is_err());
    }

    #[test]
    fn tags_and_control_characters_the_fast_path_leaves_are_refused_at_their_offset() {
        let head = "<worksheet><sheetData>";
        for (rows, wanted, offset) in [
            // A row's and a cell's attributes, on the row and cell fast paths.
            (
                r#"<row r="1"spans="1:1">"#,
                "not separated by whitespace",
                10,
            ),
            (
                r#"<row r="1" spans="1:1"<c r="A1"/></row>"#,
                "a `<` inside",
                22,
            ),
            (
                r#"<row spans="1<2" r="1">"#,
                "a `<` in an attribute value",
                13,
            ),
            ("<row r=\"1\" spans=\"1:\x1b\">", FORBIDDEN_CONTROL, 20),
            ("<row r=\"1\" sp\x01ans=\"1:1\">", FORBIDDEN_CONTROL, 13),
            (
                r#"<row r="1"><c r="A1"s="1"/></row>"#,
                "not separated by whitespace",
                20,
            ),
            (
                "<row r=\"1\"><c r=\"A1\" x=\"\x02\"/></row>",
                FORBIDDEN_CONTROL,
                24,
            ),
            (
                "<row r=\"1\"><c r=\"A1\" t=\"s\x03\"><v>0</v></c></row>",
                FORBIDDEN_CONTROL,
                25,
            ),
            (
                "<row r=\"1\"><c r=\"A\x041\"><v>0</v></c></row>",
                FORBIDDEN_CONTROL,
                18,
            ),
            // Between cells and rows, in the general path's text.
            (
                "<row r=\"1\"><c r=\"A1\"/>\x1f</row>",
                FORBIDDEN_CONTROL,
                22,
            ),
            ("<row r=\"1\"/>\x0c<row r=\"2\"/>", FORBIDDEN_CONTROL, 12),
            // In a formula the general path reads.
            (
                "<row r=\"1\"><c r=\"A1\"><f>1\x0b</f><v>1</v></c></row>",
                FORBIDDEN_CONTROL,
                25,
            ),
        ] {
            let xml = format!("{head}{rows}</sheetData></worksheet>");
            for chunk in [1, 7, 4096, xml.len()] {
                let err = scan_in_chunks(&xml, chunk).unwrap_err();
                assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{rows}: {err}");
                assert!(err.to_string().contains(wanted), "{rows}: {err}");
                assert_eq!(
                    err.location().offset,
                    Some((head.len() + offset) as u64),
                    "{rows} in chunks of {chunk}: {err}"
                );
            }
        }
        // Before and after the data, in the general path.
        for (xml, offset) in [
            ("<worksheet>\x01<sheetData/></worksheet>", 11),
            ("<worksheet><sheetData/><x a=\"\x01\"/></worksheet>", 29),
        ] {
            let err = scan_in_chunks(xml, 4096).unwrap_err();
            assert!(err.to_string().contains(FORBIDDEN_CONTROL), "{err}");
            assert_eq!(err.location().offset, Some(offset), "{xml}");
        }
    }

    #[test]
    fn values_with_control_characters_are_refused_by_the_reader() {
        // The fast path hands the text of `<v>` and inline strings over as
        // it stands (parsing a number, index or boolean fails on a
        // control); the reader's text path refuses the control as malformed
        // XML at its offset, whichever path found the cell, not as a value
        // that is no number (nor trimmed away as whitespace, U+000C).
        let long = "x".repeat(40);
        for value in [
            "<c r=\"A1\"><v>1\x1b</v></c>".to_owned(),
            "<c r=\"A1\" s=\"1\"><v>\x0c1</v></c>".to_owned(),
            "<c r=\"A1\" t=\"s\"><v>0\x1b</v></c>".to_owned(),
            "<c r=\"A1\" t=\"b\"><v>\x0c1</v></c>".to_owned(),
            "<c r=\"A1\" t=\"e\"><v>#N/A\x01</v></c>".to_owned(),
            "<c r=\"A1\" t=\"d\"><v>2024-01-01\x01</v></c>".to_owned(),
            "<c r=\"A1\" t=\"str\"><v>a\x1fb</v></c>".to_owned(),
            "<c r=\"A1\" t=\"inlineStr\"><is><t>a\x1bb</t></is></c>".to_owned(),
            format!("<c r=\"A1\" t=\"inlineStr\"><is><t>{long}\x1b</t></is></c>"),
            format!("<c r=\"A1\" t=\"str\"><v>{long}\x1b</v></c>"),
            "<c r=\"A1\" t=\"str\"><v><![CDATA[a\x1b]]></v></c>".to_owned(),
            "<c r=\"A1\" t=\"str\"><f>1&amp;\x02</f><v>1</v></c>".to_owned(),
        ] {
            let xml =
                format!("<worksheet><sheetData><row r=\"1\">{value}</row></sheetData></worksheet>");
            let offset = xml.bytes().position(|b| b < 0x20).unwrap() as u64;
            for chunk in [1, 7, 64, 4096] {
                let err = crate::fuzzing::read_sheet_xml(xml.as_bytes(), chunk).unwrap_err();
                assert!(
                    matches!(err.kind(), ErrorKind::Xml(message) if message == FORBIDDEN_CONTROL),
                    "{value} in chunks of {chunk}: {err}"
                );
                assert_eq!(
                    err.location().offset,
                    Some(offset),
                    "{value}, {chunk}: {err}"
                );
                assert_eq!(err.location().row, Some(1), "{value}, {chunk}: {err}");
            }
        }
        // Tabs and line ends in values are text, read the slow way.
        let xml = "<worksheet><sheetData><row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>a\tb\nc</t></is></c></row></sheetData></worksheet>";
        let (cells, digest) = crate::fuzzing::read_sheet_xml(xml.as_bytes(), 4096).unwrap();
        assert_eq!(cells, 1);
        assert!(digest.contains(r#"Text("a\tb\nc")"#), "{digest}");
    }

    #[test]
    fn truncated_sheets_are_errors() {
        for cut in [
            "<worksheet><sheetData><row><c><v>1</v>",
            "<worksheet><sheetData><row>",
            "<worksheet><sheetData>",
        ] {
            let err = scan_in_chunks(cut, 4).unwrap_err();
            assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{cut}: {err}");
        }
    }

    #[test]
    fn impossible_structure_is_refused_where_it_starts() {
        for (xml, wanted) in [
            ("<row r=\"1\"><row r=\"2\">", "a `<row>` inside a `<row>`"),
            ("<row><x><row>", "a `<row>` inside a `<row>`"),
            ("<row><c r=\"A1\"><c r=\"B1\">", "a `<c>` inside a `<c>`"),
            ("<row><c r=\"A1\"><is><row>", "a `<row>` inside a `<c>`"),
            ("<row><c r=\"A1\"><x>", "nested more than 256 deep"),
        ] {
            // Never closed, and followed by enough markup to pass any
            // window: refused from what is there, not at the end.
            let filler = if wanted.contains("deep") {
                "<x>"
            } else {
                "<y/>"
            };
            let hostile = format!("<worksheet><sheetData>{xml}{}", filler.repeat(300));
            for chunk in [1, 7, 4096, hostile.len()] {
                let err = scan_in_chunks(&hostile, chunk).unwrap_err();
                assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{xml}: {err}");
                assert!(err.to_string().contains(wanted), "{xml}: {err}");
            }
        }
        // Deep nesting between rows is refused too.
        let hostile = format!("<worksheet><sheetData>{}", "<x>".repeat(300));
        let err = scan_in_chunks(&hostile, 4096).unwrap_err();
        assert!(
            err.to_string().contains("nested more than 256 deep"),
            "{err}"
        );
    }

    #[test]
    fn a_row_holds_at_most_as_many_cells_as_columns() {
        // Cells out of order or repeated are read as they stand (a real
        // writer repeats columns), up to 16,384 of them in one row.
        let rows = scan_every_way(concat!(
            "<worksheet><sheetData><row r=\"1\"><c r=\"B1\"><v>1</v></c>",
            "<c r=\"A1\"><v>2</v></c><c r=\"A1\"><v>3</v></c></row></sheetData></worksheet>"
        ));
        assert_eq!(
            rows[0].1,
            [
                seen(0, 1, CellKind::Number, "1"),
                seen(0, 0, CellKind::Number, "2"),
                seen(0, 0, CellKind::Number, "3")
            ]
        );
        for cell in [
            "<c r=\"A1\"><v>1</v></c>",
            "<c r=\"A1\" t=\"inlineStr\"><is><t>x</t></is></c>",
        ] {
            let full = format!(
                "<worksheet><sheetData><row r=\"1\">{}</row></sheetData></worksheet>",
                cell.repeat(MAX_ROW_CELLS)
            );
            assert_eq!(
                scan_in_chunks(&full, 4096).unwrap()[0].1.len(),
                MAX_ROW_CELLS
            );
            let over = format!(
                "<worksheet><sheetData><row r=\"1\">{}</row></sheetData></worksheet>",
                cell.repeat(MAX_ROW_CELLS + 1)
            );
            for chunk in [4096, over.len()] {
                let err = scan_in_chunks(&over, chunk).unwrap_err();
                assert!(matches!(err.kind(), ErrorKind::CellReference(_)), "{err}");
                assert!(err.to_string().contains("more than 16384 cells"), "{err}");
            }
        }
    }
}
