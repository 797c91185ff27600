//! A whole sheet in memory, built from the row events.
//!
//! Read this first: [`SheetBuilder`] sees nothing but the public [`Row`]
//! events, so a [`Sheet`] holds exactly what the streaming readers hand
//! out. Its layout follows the cells that exist, never the rectangle they
//! span (a sheet with cells at A1 and XFD1048576 costs two cells):
//!
//! - the rows that hold cells, ascending (`rows`), with the start of each
//!   row's cells (`row_starts`, one more entry than `rows`): a compressed
//!   sparse row layout;
//! - per cell, in (row, column) order, three parallel arrays: the column
//!   (`u16`), a tag (`u8`) and an 8-byte payload (the `f64` bits of a
//!   number or date, the boolean, or where the text lies): 11 bytes a cell;
//! - per cell, its style (`u32`), once any cell has a style other than 0
//!   (until then the array stays empty), and the workbook's number formats,
//!   so a lookup can give the cell's text as Excel shows it;
//! - all text in one `String`, each distinct string stored once while the
//!   sheet is built (a small direct-mapped cache of recent strings finds
//!   repeats), so a column of repeated labels costs one copy of each.
//!
//! Lookups binary-search the rows, then the row's columns.
//!
//! `Workbook::load_sheet` and `load_all` (every worksheet, on
//! `Parallel::fold`) build it; `OwnedValue` is a value that owns its text.
//! `tests/sheet.rs` checks on the corpus that a sheet holds exactly what the
//! stream gives.

use std::io::{Read, Seek};

use crate::cell::{CellRef, MAX_COLUMN, Row, Value};
use crate::date::{DateSystem, DateTime, DateTimeKind};
use crate::error::{Error, Result};
use crate::format::NumberFormats;
use crate::range::CellRange;
use crate::workbook::{SheetSelector, Workbook};

/// A cell value that owns its text: what [`Value`] becomes when it must
/// outlive the row it came from.
///
/// ```
/// use sheetstream::{OwnedValue, Value};
///
/// let owned: OwnedValue = Value::Text("pears").into_owned();
/// assert_eq!(owned, OwnedValue::Text("pears".to_owned()));
/// assert_eq!(owned.as_value(), Value::Text("pears"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum OwnedValue {
    /// A number.
    Number(f64),
    /// Text.
    Text(String),
    /// A boolean.
    Bool(bool),
    /// An error value such as `#DIV/0!`.
    Error(String),
    /// A date, time or duration.
    DateTime(DateTime),
}

impl OwnedValue {
    /// The value, borrowing its text from `self`.
    pub fn as_value(&self) -> Value<'_> {
        match self {
            OwnedValue::Number(number) => Value::Number(*number),
            OwnedValue::Text(text) => Value::Text(text),
            OwnedValue::Bool(flag) => Value::Bool(*flag),
            OwnedValue::Error(text) => Value::Error(text),
            OwnedValue::DateTime(date) => Value::DateTime(*date),
        }
    }
}

impl Value<'_> {
    /// The value with its text copied into an [`OwnedValue`].
    pub fn into_owned(self) -> OwnedValue {
        match self {
            Value::Number(number) => OwnedValue::Number(number),
            Value::Text(text) => OwnedValue::Text(text.to_owned()),
            Value::Bool(flag) => OwnedValue::Bool(flag),
            Value::Error(text) => OwnedValue::Error(text.to_owned()),
            Value::DateTime(date) => OwnedValue::DateTime(date),
        }
    }
}

impl From<Value<'_>> for OwnedValue {
    fn from(value: Value<'_>) -> OwnedValue {
        value.into_owned()
    }
}

impl PartialEq<Value<'_>> for OwnedValue {
    fn eq(&self, other: &Value<'_>) -> bool {
        self.as_value() == *other
    }
}

// Cell tags. Text that is too long or lies too far into the arena for the
// packed form goes through `long_text` instead (`LONG` set).
const NUMBER: u8 = 0;
const BOOL: u8 = 1;
const TEXT: u8 = 2;
const ERROR: u8 = 3;
/// Dates: `DATE`, plus `V1904` for the 1904 system, plus `FROM_TEXT` for
/// ISO 8601 text cells, plus `TIME` or `DURATION` for those kinds.
const DATE: u8 = 4;
const V1904: u8 = 1;
const FROM_TEXT: u8 = 2;
const TIME: u8 = 8;
const DURATION: u8 = 16;
const LONG: u8 = 0x80;

/// Bits of a packed text payload that hold the length; the rest hold the start.
const LENGTH_BITS: u32 = 24;
const MAX_PACKED_LENGTH: usize = (1 << LENGTH_BITS) - 1;
const MAX_PACKED_START: usize = (1 << (64 - LENGTH_BITS)) - 1;

/// A sheet held in memory: every cell with a value, found by position.
///
/// Build one with [`Workbook::load_sheet`], [`Workbook::load_all`], or a
/// [`SheetBuilder`] fed with rows. Memory follows the cells that hold a
/// value: 11 bytes a cell (15 once a cell has a style other than 0), 8 bytes
/// a non-empty row, plus each distinct string once ([`Sheet::heap_bytes`]
/// tells the total).
///
/// A sheet read from a workbook keeps the workbook's number formats, so
/// [`Sheet::formatted`] gives a cell's text as Excel shows it (see
/// [`Cell::formatted_into`](crate::Cell::formatted_into)).
///
/// ```
/// use sheetstream::{Value, Workbook};
///
/// # fn main() -> Result<(), sheetstream::Error> {
/// let mut workbook = Workbook::open("examples/data/sales.xlsx")?;
/// let sheet = workbook.load_sheet("Data")?;
/// assert_eq!(sheet.get(1, 0), Some(Value::Text("apples")));
/// assert_eq!(sheet.get_a1("B3"), Some(Value::Number(20.0)));
/// assert_eq!(sheet.used_range().unwrap().to_string(), "A1:E4");
/// for row in sheet.rows() {
///     for (column, value) in row.cells() {
///         println!("row {} column {column}: {value:?}", row.index());
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Sheet {
    name: String,
    rows: Vec<u32>,
    row_starts: Vec<u32>,
    columns: Vec<u16>,
    tags: Vec<u8>,
    payloads: Vec<u64>,
    /// Each cell's style, or empty while every cell's style is 0.
    styles: Vec<u32>,
    text: String,
    long_text: Vec<(usize, usize)>,
    /// Smallest and largest column holding a cell.
    column_span: Option<(u16, u16)>,
    /// The number formats the styles index (General only for a sheet built
    /// without them).
    number_formats: NumberFormats,
}

/// One row of a [`Sheet`] that holds at least one cell.
#[derive(Debug, Clone, Copy)]
pub struct SheetRow<'a> {
    sheet: &'a Sheet,
    index: u32,
    start: usize,
    end: usize,
}

impl<'a> SheetRow<'a> {
    /// The row index, 0-based.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The number of cells with a value.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the row has no cells (never true for rows a sheet hands out).
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// The value in a column (0-based), if there is one.
    pub fn get(&self, column: u32) -> Option<Value<'a>> {
        self.position(column).map(|i| self.sheet.value_at(i))
    }

    /// The text of the cell in a column (0-based) as Excel shows it, if
    /// there is a cell (see [`Sheet::formatted`]).
    pub fn formatted(&self, column: u32) -> Option<String> {
        let mut out = String::new();
        self.formatted_into(column, &mut out).then_some(out)
    }

    /// Appends the text of the cell in a column as Excel shows it to `out`;
    /// false (and nothing appended) when there is no cell.
    pub fn formatted_into(&self, column: u32, out: &mut String) -> bool {
        match self.position(column) {
            Some(i) => {
                self.sheet.formatted_at(i, out);
                true
            }
            None => false,
        }
    }

    /// The style of the cell in a column ([`Cell::style`](crate::Cell::style)),
    /// if there is a cell.
    pub fn style(&self, column: u32) -> Option<u32> {
        self.position(column).map(|i| self.sheet.style_at(i))
    }

    fn position(&self, column: u32) -> Option<usize> {
        let column = u16::try_from(column).ok()?;
        let found = self.sheet.columns[self.start..self.end]
            .binary_search(&column)
            .ok()?;
        Some(self.start + found)
    }

    /// The cells as `(column, value)`, left to right.
    pub fn cells(&self) -> impl ExactSizeIterator<Item = (u32, Value<'a>)> + use<'a> {
        let sheet = self.sheet;
        (self.start..self.end).map(move |i| (u32::from(sheet.columns[i]), sheet.value_at(i)))
    }
}

impl Sheet {
    /// The name of the sheet it was read from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of cells with a value.
    pub fn cell_count(&self) -> usize {
        self.columns.len()
    }

    /// The number of rows holding at least one cell.
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// Whether the sheet has no cells.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The value at a 0-based row and column, if there is one.
    pub fn get(&self, row: u32, column: u32) -> Option<Value<'_>> {
        self.row(row)?.get(column)
    }

    /// The value at an A1 reference such as `"B3"`; `None` when the cell is
    /// empty or the reference is malformed.
    pub fn get_a1(&self, reference: &str) -> Option<Value<'_>> {
        let cell: CellRef = reference.parse().ok()?;
        self.get(cell.row, cell.column)
    }

    /// The text of the cell at a 0-based row and column as Excel shows it
    /// through its style's number format, if there is a cell: `501` in
    /// `00000` is `00501`, a date in `d mmmm yyyy` is `1 March 2024`. A sheet
    /// built by a [`SheetBuilder`] without
    /// [`number_formats`](SheetBuilder::number_formats) shows every number
    /// as General.
    ///
    /// ```
    /// use sheetstream::Workbook;
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = Workbook::open("examples/data/sales.xlsx")?;
    /// let sheet = workbook.load_sheet("Data")?;
    /// assert_eq!(sheet.formatted(1, 0).as_deref(), Some("apples"));
    /// // C2 holds the serial 45352 in a date style.
    /// assert_eq!(sheet.formatted_a1("C2").as_deref(), Some("2024-03-01"));
    /// assert_eq!(sheet.formatted_a1("Z99"), None);
    /// # Ok(())
    /// # }
    /// ```
    pub fn formatted(&self, row: u32, column: u32) -> Option<String> {
        self.row(row)?.formatted(column)
    }

    /// [`formatted`](Self::formatted) at an A1 reference such as `"B3"`.
    pub fn formatted_a1(&self, reference: &str) -> Option<String> {
        let cell: CellRef = reference.parse().ok()?;
        self.formatted(cell.row, cell.column)
    }

    /// Appends the text of the cell at a 0-based row and column as Excel
    /// shows it to `out`, reusing its buffer; false (and nothing appended)
    /// when there is no cell.
    pub fn formatted_into(&self, row: u32, column: u32, out: &mut String) -> bool {
        self.row(row)
            .is_some_and(|row| row.formatted_into(column, out))
    }

    /// The style of the cell at a 0-based row and column
    /// ([`Cell::style`](crate::Cell::style)), if there is a cell.
    pub fn style(&self, row: u32, column: u32) -> Option<u32> {
        self.row(row)?.style(column)
    }

    /// The number formats the cells' styles index: the workbook's, for a
    /// sheet read from one.
    pub fn number_formats(&self) -> &NumberFormats {
        &self.number_formats
    }

    /// A row (0-based), if it holds a cell.
    pub fn row(&self, index: u32) -> Option<SheetRow<'_>> {
        let position = self.rows.binary_search(&index).ok()?;
        Some(self.row_at(position))
    }

    /// The rows holding cells, top to bottom.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = SheetRow<'_>> + '_ {
        (0..self.rows.len()).map(|position| self.row_at(position))
    }

    /// Every cell with its position, row by row, left to right.
    pub fn cells(&self) -> impl Iterator<Item = (CellRef, Value<'_>)> + '_ {
        self.rows().flat_map(|row| {
            row.cells().map(move |(column, value)| {
                (
                    CellRef {
                        row: row.index(),
                        column,
                    },
                    value,
                )
            })
        })
    }

    /// The smallest range holding every cell, or `None` for an empty sheet.
    /// Computed from the cells, not read from the sheet's `<dimension>`
    /// (see [`SheetMetadata::dimension`](crate::SheetMetadata::dimension)).
    pub fn used_range(&self) -> Option<CellRange> {
        let (first_column, last_column) = self.column_span?;
        Some(CellRange {
            first: CellRef {
                row: *self.rows.first()?,
                column: u32::from(first_column),
            },
            last: CellRef {
                row: *self.rows.last()?,
                column: u32::from(last_column),
            },
        })
    }

    /// The bytes this sheet holds on the heap, from the capacities of its
    /// buffers (not counting the number formats, which it shares with the
    /// workbook).
    pub fn heap_bytes(&self) -> usize {
        self.name.capacity()
            + self.rows.capacity() * size_of::<u32>()
            + self.row_starts.capacity() * size_of::<u32>()
            + self.columns.capacity() * size_of::<u16>()
            + self.tags.capacity()
            + self.payloads.capacity() * size_of::<u64>()
            + self.styles.capacity() * size_of::<u32>()
            + self.text.capacity()
            + self.long_text.capacity() * size_of::<(usize, usize)>()
    }

    fn row_at(&self, position: usize) -> SheetRow<'_> {
        SheetRow {
            sheet: self,
            index: self.rows[position],
            start: self.row_starts[position] as usize,
            end: self.row_starts[position + 1] as usize,
        }
    }

    fn style_at(&self, i: usize) -> u32 {
        self.styles.get(i).copied().unwrap_or(0)
    }

    fn formatted_at(&self, i: usize, out: &mut String) {
        self.number_formats
            .write_value(self.style_at(i), self.value_at(i), out);
    }

    fn value_at(&self, i: usize) -> Value<'_> {
        let payload = self.payloads[i];
        let tag = self.tags[i];
        let text = || {
            let (start, len) = if tag & LONG != 0 {
                self.long_text[payload as usize]
            } else {
                (
                    (payload >> LENGTH_BITS) as usize,
                    (payload & MAX_PACKED_LENGTH as u64) as usize,
                )
            };
            // The builder stored whole strings, so these are char boundaries.
            self.text.get(start..start + len).unwrap_or("")
        };
        match tag & !LONG {
            NUMBER => Value::Number(f64::from_bits(payload)),
            BOOL => Value::Bool(payload != 0),
            TEXT => Value::Text(text()),
            ERROR => Value::Error(text()),
            date => Value::DateTime(DateTime::from_parts(
                f64::from_bits(payload),
                if date & V1904 != 0 {
                    DateSystem::V1904
                } else {
                    DateSystem::V1900
                },
                date & FROM_TEXT != 0,
                if date & DURATION != 0 {
                    DateTimeKind::Duration
                } else if date & TIME != 0 {
                    DateTimeKind::Time
                } else {
                    DateTimeKind::Date
                },
            )),
        }
    }
}

/// Builds a [`Sheet`] from rows, in any order.
///
/// Rows and cells normally arrive sorted and are appended as they are; a
/// row or cell out of order (rare, but files may do it) makes
/// [`finish`](SheetBuilder::finish) sort the cells. When a cell appears
/// twice, the later one wins.
///
/// ```
/// use sheetstream::{SheetBuilder, Value, Workbook};
///
/// # fn main() -> Result<(), sheetstream::Error> {
/// let mut workbook = Workbook::open("examples/data/sales.xlsx")?;
/// let mut builder = SheetBuilder::new("first two rows");
/// let mut rows = workbook.rows("Data")?;
/// for _ in 0..2 {
///     if let Some(row) = rows.next_row()? {
///         builder.push_row(row)?;
///     }
/// }
/// let sheet = builder.finish();
/// assert_eq!(sheet.row_count(), 2);
/// assert_eq!(sheet.get_a1("A2"), Some(Value::Text("apples")));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct SheetBuilder {
    sheet: Sheet,
    sorted: bool,
    /// Recently stored strings, by hash: packed spans (0 is empty).
    recent: Vec<u64>,
    text_cells: usize,
}

/// Slots of the string cache at first, and at most.
const RECENT_MIN: usize = 1 << 10;
const RECENT_MAX: usize = 1 << 16;

impl SheetBuilder {
    /// An empty sheet with this name.
    pub fn new(name: impl Into<String>) -> SheetBuilder {
        SheetBuilder {
            sheet: Sheet {
                name: name.into(),
                row_starts: vec![0],
                ..Sheet::default()
            },
            sorted: true,
            recent: Vec::new(),
            text_cells: 0,
        }
    }

    /// The number formats the cells' styles index, for
    /// [`Sheet::formatted`] (a workbook's
    /// [`number_formats`](Workbook::number_formats)); without them every
    /// number shows as General.
    pub fn number_formats(mut self, formats: NumberFormats) -> SheetBuilder {
        self.sheet.number_formats = formats;
        self
    }

    /// Adds the cells of a row. A row without cells adds nothing.
    ///
    /// # Errors
    ///
    /// More than `u32::MAX` cells in the sheet, or a column past XFD.
    pub fn push_row(&mut self, row: Row<'_>) -> Result<()> {
        let cells = row.cells();
        if cells.is_empty() {
            return Ok(());
        }
        let sheet = &mut self.sheet;
        if sheet.rows.last().is_some_and(|&last| last >= row.index()) {
            self.sorted = false;
        }
        let mut previous: Option<u16> = None;
        for cell in cells {
            let column = u16::try_from(cell.column())
                .ok()
                .filter(|&column| u32::from(column) <= MAX_COLUMN)
                .ok_or_else(|| Error::limit("column index", u64::from(MAX_COLUMN)))?;
            if previous.is_some_and(|previous| previous >= column) {
                self.sorted = false;
            }
            previous = Some(column);
            let (tag, payload) = self.encode(cell.value());
            let sheet = &mut self.sheet;
            if cell.style() != 0 || !sheet.styles.is_empty() {
                // From the first styled cell on (every earlier one has
                // style 0), one style per cell.
                sheet.styles.resize(sheet.columns.len(), 0);
                sheet.styles.push(cell.style());
            }
            sheet.columns.push(column);
            sheet.tags.push(tag);
            sheet.payloads.push(payload);
            sheet.column_span = Some(match sheet.column_span {
                Some((low, high)) => (low.min(column), high.max(column)),
                None => (column, column),
            });
        }
        let sheet = &mut self.sheet;
        let end = u32::try_from(sheet.columns.len())
            .map_err(|_| Error::limit("cells in a materialised sheet", u64::from(u32::MAX)))?;
        sheet.rows.push(row.index());
        sheet.row_starts.push(end);
        Ok(())
    }

    fn encode(&mut self, value: Value<'_>) -> (u8, u64) {
        match value {
            Value::Number(number) => (NUMBER, number.to_bits()),
            Value::Bool(flag) => (BOOL, u64::from(flag)),
            Value::DateTime(date) => {
                let mut tag = DATE;
                if date.system() == DateSystem::V1904 {
                    tag |= V1904;
                }
                if date.is_from_text() {
                    tag |= FROM_TEXT;
                }
                tag |= match date.kind() {
                    DateTimeKind::Date => 0,
                    DateTimeKind::Time => TIME,
                    DateTimeKind::Duration => DURATION,
                };
                (tag, date.serial().to_bits())
            }
            Value::Text(text) => self.encode_text(TEXT, text),
            Value::Error(text) => self.encode_text(ERROR, text),
        }
    }

    /// Stores text once: a string seen recently is shared.
    fn encode_text(&mut self, tag: u8, text: &str) -> (u8, u64) {
        self.text_cells += 1;
        if self.recent.len() < RECENT_MAX && self.text_cells > self.recent.len() * 4 {
            // Grow the cache as text cells come; forgetting is harmless.
            self.recent = vec![0; (self.recent.len() * 4).clamp(RECENT_MIN, RECENT_MAX)];
        }
        let slot = (hash(text.as_bytes()) as usize) & (self.recent.len() - 1);
        let cached = self.recent[slot];
        if cached != 0 {
            let start = (cached >> LENGTH_BITS) as usize;
            let len = (cached & MAX_PACKED_LENGTH as u64) as usize;
            if self.sheet.text.get(start..start + len) == Some(text) {
                return (tag, cached);
            }
        }
        let start = self.sheet.text.len();
        self.sheet.text.push_str(text);
        if text.len() <= MAX_PACKED_LENGTH && start <= MAX_PACKED_START {
            let packed = (start as u64) << LENGTH_BITS | text.len() as u64;
            // An empty string at offset 0 packs to 0, which means "empty slot".
            if packed != 0 {
                self.recent[slot] = packed;
            }
            (tag, packed)
        } else {
            self.sheet.long_text.push((start, text.len()));
            (tag | LONG, (self.sheet.long_text.len() - 1) as u64)
        }
    }

    /// The finished sheet, sorted by row and column, its buffers shrunk to fit.
    pub fn finish(self) -> Sheet {
        let mut sheet = self.sheet;
        if !self.sorted {
            sort_cells(&mut sheet);
        }
        sheet.rows.shrink_to_fit();
        sheet.row_starts.shrink_to_fit();
        sheet.columns.shrink_to_fit();
        sheet.tags.shrink_to_fit();
        sheet.payloads.shrink_to_fit();
        sheet.styles.shrink_to_fit();
        sheet.text.shrink_to_fit();
        sheet.long_text.shrink_to_fit();
        sheet
    }
}

/// Sorts the cells by (row, column), keeping the last of duplicates, and
/// rebuilds the row index.
fn sort_cells(sheet: &mut Sheet) {
    let mut order: Vec<(u32, u16, u32)> = Vec::with_capacity(sheet.columns.len());
    for position in 0..sheet.rows.len() {
        let row = sheet.rows[position];
        for i in sheet.row_starts[position]..sheet.row_starts[position + 1] {
            order.push((row, sheet.columns[i as usize], i));
        }
    }
    order.sort_unstable();
    // Keep the last of each run of equal positions: the later cell wins.
    let mut kept: Vec<(u32, u16, u32)> = Vec::with_capacity(order.len());
    for entry in order {
        match kept.last_mut() {
            Some(last) if (last.0, last.1) == (entry.0, entry.1) => *last = entry,
            _ => kept.push(entry),
        }
    }
    let mut rows = Vec::new();
    let mut row_starts = vec![0u32];
    let mut columns = Vec::with_capacity(kept.len());
    let mut tags = Vec::with_capacity(kept.len());
    let mut payloads = Vec::with_capacity(kept.len());
    let mut styles = Vec::with_capacity(if sheet.styles.is_empty() {
        0
    } else {
        kept.len()
    });
    for (n, &(row, column, i)) in kept.iter().enumerate() {
        if rows.last() != Some(&row) {
            if !rows.is_empty() {
                row_starts.push(n as u32);
            }
            rows.push(row);
        }
        columns.push(column);
        tags.push(sheet.tags[i as usize]);
        payloads.push(sheet.payloads[i as usize]);
        if let Some(&style) = sheet.styles.get(i as usize) {
            styles.push(style);
        }
    }
    row_starts.push(kept.len() as u32);
    if rows.is_empty() {
        row_starts.truncate(1);
    }
    sheet.rows = rows;
    sheet.row_starts = row_starts;
    sheet.columns = columns;
    sheet.tags = tags;
    sheet.payloads = payloads;
    sheet.styles = styles;
}

/// A quick non-cryptographic hash for the string cache (FxHash-style).
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    let rest = chunks.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    // The slot is taken from the low bits: fold the high bits in.
    h ^ (h >> 29)
}

impl<R: Read + Seek> Workbook<R> {
    /// Reads a whole sheet into memory.
    ///
    /// # Errors
    ///
    /// As [`Workbook::rows`] and [`SheetRows::next_row`](crate::SheetRows::next_row).
    pub fn load_sheet(&mut self, sheet: impl SheetSelector) -> Result<Sheet> {
        let position = sheet.position(self.sheets())?;
        let mut builder = SheetBuilder::new(self.sheets()[position].name())
            .number_formats(self.number_formats().clone());
        let mut failure = None;
        self.for_each_row(position, |row| match builder.push_row(row) {
            Ok(()) => true,
            Err(err) => {
                failure = Some(err);
                false
            }
        })?;
        match failure {
            Some(err) => Err(err.with_sheet(self.sheets()[position].name())),
            None => Ok(builder.finish()),
        }
    }
}

/// What one thread of [`Workbook::load_all`] has built.
#[derive(Default)]
struct Loaded {
    done: Vec<(usize, Sheet)>,
    current: Option<(usize, SheetBuilder)>,
    failure: Option<Error>,
}

impl Loaded {
    fn finish_current(&mut self) {
        if let Some((position, builder)) = self.current.take() {
            self.done.push((position, builder.finish()));
        }
    }
}

impl<R: Read + Seek + Clone + Send> Workbook<R> {
    /// Reads every worksheet into memory, in parallel (see
    /// [`Workbook::parallel`]), and returns them in workbook order. Chart,
    /// dialog and macro sheets are left out.
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let sheets = workbook.load_all()?;
    /// let names: Vec<&str> = sheets.iter().map(|sheet| sheet.name()).collect();
    /// assert_eq!(names, ["Data", "Notes & ideas"]);
    /// assert_eq!(sheets[0].cell_count(), 18);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The first error any sheet met.
    pub fn load_all(&self) -> Result<Vec<Sheet>> {
        let formats = self.number_formats();
        let loaded = self.parallel().fold(
            Loaded::default,
            |state, sheet, row| {
                if state.failure.is_some() {
                    return;
                }
                if state.current.as_ref().map(|(position, _)| *position) != Some(sheet.position()) {
                    state.finish_current();
                    let builder = SheetBuilder::new(sheet.name()).number_formats(formats.clone());
                    state.current = Some((sheet.position(), builder));
                }
                if let Some((_, builder)) = state.current.as_mut()
                    && let Err(err) = builder.push_row(row)
                {
                    state.failure = Some(err.with_sheet(sheet.name()));
                }
            },
            |mut a, mut b| {
                a.finish_current();
                b.finish_current();
                a.done.append(&mut b.done);
                a.failure = a.failure.or(b.failure);
                a
            },
        )?;
        let mut loaded = loaded;
        loaded.finish_current();
        if let Some(err) = loaded.failure {
            return Err(err);
        }
        let mut by_position: Vec<Option<Sheet>> = vec![None; self.sheets().len()];
        for (position, sheet) in loaded.done {
            by_position[position] = Some(sheet);
        }
        Ok(self
            .sheets()
            .iter()
            .filter(|info| info.kind() == crate::SheetKind::Worksheet)
            .map(|info| {
                by_position[info.position()].take().unwrap_or_else(|| {
                    let builder = SheetBuilder::new(info.name());
                    builder.number_formats(formats.clone()).finish()
                })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::Cell;

    fn cell(row: u32, column: u32, value: Value<'_>) -> Cell<'_> {
        Cell {
            row,
            column,
            style: 0,
            value,
            formula: None,
        }
    }

    fn push(builder: &mut SheetBuilder, index: u32, cells: &[Cell<'_>]) {
        builder
            .push_row(Row {
                index,
                cells,
                values_elsewhere: false,
                hidden: false,
            })
            .unwrap();
    }

    #[test]
    fn sparse_cells_cost_what_they_hold() {
        let mut builder = SheetBuilder::new("s");
        push(&mut builder, 0, &[cell(0, 0, Value::Number(1.0))]);
        push(
            &mut builder,
            1_048_575,
            &[cell(1_048_575, 16_383, Value::Text("far"))],
        );
        let sheet = builder.finish();
        assert_eq!(sheet.get(0, 0), Some(Value::Number(1.0)));
        assert_eq!(sheet.get_a1("XFD1048576"), Some(Value::Text("far")));
        assert_eq!(sheet.get(5, 5), None);
        assert_eq!(
            sheet.used_range().unwrap().to_string(),
            "A1:XFD1048576".to_owned()
        );
        assert!(sheet.heap_bytes() < 100, "{}", sheet.heap_bytes());
    }

    #[test]
    fn out_of_order_rows_and_duplicates_are_sorted_last_wins() {
        let mut builder = SheetBuilder::new("s");
        push(
            &mut builder,
            3,
            &[
                cell(3, 2, Value::Bool(true)),
                cell(3, 0, Value::Text("a")),
                cell(3, 2, Value::Bool(false)),
            ],
        );
        push(&mut builder, 1, &[cell(1, 1, Value::Error("#N/A"))]);
        push(&mut builder, 3, &[cell(3, 1, Value::Number(2.5))]);
        push(&mut builder, 2, &[]);
        let sheet = builder.finish();
        let cells: Vec<String> = sheet
            .cells()
            .map(|(at, value)| format!("{at}={value:?}"))
            .collect();
        assert_eq!(
            cells,
            [
                "B2=Error(\"#N/A\")",
                "A4=Text(\"a\")",
                "B4=Number(2.5)",
                "C4=Bool(false)"
            ]
        );
        assert_eq!(sheet.row_count(), 2);
        assert_eq!(sheet.row(3).unwrap().len(), 3);
        assert!(sheet.row(2).is_none());
    }

    #[test]
    fn repeated_strings_are_stored_once() {
        let mut builder = SheetBuilder::new("s");
        let labels = ["north", "south", "", "east", "west"];
        for index in 0..10_000u32 {
            let cells = [
                cell(index, 0, Value::Text(labels[index as usize % 5])),
                cell(index, 1, Value::Error("#DIV/0!")),
            ];
            push(&mut builder, index, &cells);
        }
        let sheet = builder.finish();
        assert!(sheet.text.len() < 100, "{}", sheet.text.len());
        for index in 0..10_000u32 {
            assert_eq!(
                sheet.get(index, 0),
                Some(Value::Text(labels[index as usize % 5]))
            );
        }
        assert_eq!(sheet.get(9_999, 1), Some(Value::Error("#DIV/0!")));
    }

    #[test]
    fn dates_keep_their_system() {
        let mut builder = SheetBuilder::new("s");
        let a = DateTime::from_serial(1.5, DateSystem::V1904);
        let b = DateTime::from_serial(45_000.0, DateSystem::V1900);
        push(
            &mut builder,
            0,
            &[
                cell(0, 0, Value::DateTime(a)),
                cell(0, 1, Value::DateTime(b)),
            ],
        );
        let sheet = builder.finish();
        assert_eq!(sheet.get(0, 0), Some(Value::DateTime(a)));
        assert_eq!(sheet.get(0, 1), Some(Value::DateTime(b)));
        assert_eq!(
            sheet.get(0, 1).map(Value::into_owned),
            Some(OwnedValue::DateTime(b))
        );
    }
}
