//! [`SheetRows`], the public pull reader over a sheet's rows, and what
//! every format's row reader shares: the [`SheetContext`] values are
//! resolved against, and the [`PartSource`] a reader of a ZIP part pulls
//! its inflated bytes from. Each format's reader lives in its own folder
//! (`xlsx::rows`, `xlsb::rows`, `xls::rows`); `SheetRows` hands each call
//! to it.

use std::io::{self, Read};

use crate::cell::{Row, Value};
use crate::chunk::ChunkBuffer;
use crate::columns::ColumnSet;
use crate::date::{DateSystem, DateTime};
use crate::error::{Error, ErrorKind, Result};
use crate::formula::Links;
use crate::limits::Limits;
use crate::ods::rows::OdsRows;
use crate::pipe::Pipe;
use crate::shared_strings::SharedStrings;
use crate::styles::Styles;
use crate::xls::blocks::BlockRows;
use crate::xls::rows::XlsRows;
use crate::xlsb::rows::XlsbRows;
use crate::xlsx::rows::XlsxRows;

/// What a sheet's values are resolved against: read once at open, shared
/// read-only by every reader.
#[derive(Clone, Copy)]
pub(crate) struct SheetContext<'a> {
    pub shared_strings: Option<&'a SharedStrings>,
    pub styles: &'a Styles,
    pub date_system: DateSystem,
    /// What formulas refer to by index (`.xlsb`, `.xls`).
    pub links: &'a Links,
}

#[cold]
#[inline(never)]
fn no_shared_strings() -> Error {
    Error::new(ErrorKind::MissingPart(
        "the shared strings part, which a cell refers to".into(),
    ))
}

#[cold]
#[inline(never)]
fn bad_shared_string(index: u64, count: usize) -> Error {
    Error::new(ErrorKind::SharedStringIndex { index, count })
}

impl<'a> SheetContext<'a> {
    /// A number cell's value: a date when its style says so.
    #[inline]
    pub(crate) fn number_value(self, number: f64, style: u32) -> Value<'static> {
        if let Some(kind) = self.styles.date_kind(style) {
            Value::DateTime(DateTime::from_serial(number, self.date_system).with_kind(kind))
        } else {
            Value::Number(number)
        }
    }

    /// Looks up a shared string (inlined into the row readers: called
    /// apart, measured, it cost a plain read 1.5% more instructions).
    #[inline(always)]
    pub(crate) fn shared_string(self, index: u64) -> Result<&'a str> {
        let Some(strings) = self.shared_strings else {
            return Err(no_shared_strings());
        };
        match strings.get_read(index) {
            Some(text) => Ok(text),
            None => unread_shared_string(strings, index),
        }
    }
}

/// [`SheetContext::shared_string`] of a string not read yet (its block
/// is parsed now), or past the table's end.
#[cold]
#[inline(never)]
fn unread_shared_string(strings: &SharedStrings, index: u64) -> Result<&str> {
    let Ok(position) = usize::try_from(index) else {
        return Err(bad_shared_string(index, strings.len()));
    };
    match strings.lookup(position) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(bad_shared_string(index, strings.len())),
        Err(err) => Err(err),
    }
}

/// Where a sheet's inflated bytes come from.
pub(crate) enum PartSource<'a> {
    /// Read into the window, chunk by chunk; boxed so the reader's type does
    /// not depend on where the bytes come from (one dynamic call per chunk,
    /// not per cell).
    Reader(Box<dyn Read + 'a>),
    /// Whole buffers from an inflate thread, scanned where they lie.
    Pipe(Pipe<'a>),
}

impl PartSource<'_> {
    /// The window a reader of this source scans: its own buffer for a
    /// reader, the pipe's buffers taken where they lie for a pipe.
    pub(crate) fn chunk_buffer(&self, limits: &Limits) -> ChunkBuffer {
        match self {
            PartSource::Reader(_) => ChunkBuffer::new(limits.max_row_bytes),
            PartSource::Pipe(_) => ChunkBuffer::without_buffer(limits.max_row_bytes),
        }
    }

    /// More bytes into `buffer` (see [`ChunkBuffer::fill_for_rescan`]).
    pub(crate) fn fill_for_rescan(&mut self, buffer: &mut ChunkBuffer) -> Result<()> {
        match self {
            PartSource::Reader(reader) => buffer.fill_for_rescan(reader),
            PartSource::Pipe(pipe) => pipe.fill_for_rescan(buffer),
        }
    }

    /// Reads the rest, so that the archive's CRC check runs.
    pub(crate) fn drain(&mut self) -> Result<()> {
        match self {
            PartSource::Reader(reader) => {
                io::copy(reader, &mut io::sink())?;
                Ok(())
            }
            PartSource::Pipe(pipe) => Ok(pipe.drain()?),
        }
    }
}

/// Rows of one sheet, read one at a time.
///
/// Each [`Row`] borrows the reader, so it must be dropped before the next
/// call to [`SheetRows::next_row`]; the borrow checker enforces this. Get one
/// from [`Workbook::rows`](crate::Workbook::rows).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// let mut rows = workbook.rows(0)?;
/// while let Some(row) = rows.next_row()? {
///     for cell in row.cells() {
///         println!("{} = {:?}", cell.reference(), cell.value());
///     }
/// }
/// # Ok(())
/// # }
/// ```
pub struct SheetRows<'a> {
    reader: FormatRows<'a>,
    /// [`SheetRows::stop_after_row`]: the last row handed out.
    last_row: u32,
    /// A row past `last_row` was met: no more rows.
    stopped: bool,
}

/// The format's own row reader.
enum FormatRows<'a> {
    Xlsx(Box<XlsxRows<'a>>),
    Xls(Box<XlsRows<'a>>),
    /// An `.xls` sheet read block by block on several threads.
    XlsBlocks(Box<BlockRows<'a>>),
    Xlsb(Box<XlsbRows<'a>>),
    Ods(Box<OdsRows<'a>>),
}

impl<'a> SheetRows<'a> {
    pub(crate) fn xlsx(rows: XlsxRows<'a>) -> Self {
        SheetRows {
            reader: FormatRows::Xlsx(Box::new(rows)),
            last_row: u32::MAX,
            stopped: false,
        }
    }

    pub(crate) fn xls(rows: XlsRows<'a>) -> Self {
        SheetRows {
            reader: FormatRows::Xls(Box::new(rows)),
            last_row: u32::MAX,
            stopped: false,
        }
    }

    pub(crate) fn xls_blocks(rows: BlockRows<'a>) -> Self {
        SheetRows {
            reader: FormatRows::XlsBlocks(Box::new(rows)),
            last_row: u32::MAX,
            stopped: false,
        }
    }

    pub(crate) fn xlsb(rows: XlsbRows<'a>) -> Self {
        SheetRows {
            reader: FormatRows::Xlsb(Box::new(rows)),
            last_row: u32::MAX,
            stopped: false,
        }
    }

    pub(crate) fn ods(rows: OdsRows<'a>) -> Self {
        SheetRows {
            reader: FormatRows::Ods(Box::new(rows)),
            last_row: u32::MAX,
            stopped: false,
        }
    }

    /// Replaces the window with one of `chunk_size` bytes (for tests and
    /// fuzzing: small windows make rows straddle chunk boundaries).
    pub(crate) fn with_chunk_size(self, chunk_size: usize, limits: &Limits) -> Self {
        let last_row = self.last_row;
        let mut rows = match self.reader {
            FormatRows::Xlsx(rows) => SheetRows::xlsx(rows.with_chunk_size(chunk_size, limits)),
            FormatRows::Xls(rows) => SheetRows::xls(*rows),
            FormatRows::XlsBlocks(rows) => SheetRows::xls_blocks(*rows),
            FormatRows::Xlsb(rows) => SheetRows::xlsb(rows.with_chunk_size(chunk_size, limits)),
            FormatRows::Ods(rows) => SheetRows::ods(rows.with_chunk_size(chunk_size, limits)),
        };
        rows.last_row = last_row;
        rows
    }

    /// Also decode formula text, available through [`Cell::formula`](crate::Cell::formula).
    ///
    /// `.xls` (BIFF8) and `.xlsb` store formulas parsed: their text is
    /// decompiled from the tokens (each cell of a shared formula gets its
    /// own text). A formula with a token the decompiler does not offer
    /// (array constants, external names, references to other workbooks,
    /// BIFF5 formulas, ...) is an
    /// [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) error
    /// naming the token and the cell; damaged tokens are an
    /// [`ErrorKind::Record`](crate::ErrorKind::Record) error. Formulas'
    /// cached values are read without it as in every format.
    pub fn with_formulas(self, formulas: bool) -> Self {
        let last_row = self.last_row;
        let mut rows = match self.reader {
            FormatRows::Xlsx(rows) => SheetRows::xlsx(rows.with_formulas(formulas)),
            FormatRows::Xls(rows) => SheetRows::xls(rows.with_formulas(formulas)),
            FormatRows::XlsBlocks(rows) => SheetRows::xls_blocks(rows.with_formulas(formulas)),
            FormatRows::Xlsb(rows) => SheetRows::xlsb(rows.with_formulas(formulas)),
            FormatRows::Ods(rows) => SheetRows::ods(rows.with_formulas(formulas)),
        };
        rows.last_row = last_row;
        rows
    }

    /// Stops reading after this row (0-based; None: read to the end):
    /// the first row past it ends the rows, and nothing after it is read.
    /// A range's or a table's last row pushed down.
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let mut rows = workbook.rows("Data")?;
    /// rows.stop_after_row(Some(1));
    /// let mut seen = Vec::new();
    /// while let Some(row) = rows.next_row()? {
    ///     seen.push(row.index());
    /// }
    /// assert_eq!(seen, [0, 1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn stop_after_row(&mut self, last: Option<u32>) {
        self.last_row = last.unwrap_or(u32::MAX);
    }

    /// From the next row on, resolves and hands out only the cells of
    /// `columns` (None: every column). This is a pushdown: the cells of
    /// other columns are still found (in an `.xlsx` sheet the scanner
    /// finds each one's end and skips it, its tags checked, its value
    /// neither parsed nor checked as text), but they are dropped before
    /// they are resolved, so they cost no shared-string lookup, text
    /// decoding or value parsing, and a bad value in one of them is no
    /// error. Call it before the first row, or between rows,
    /// for instance after reading a header row to find the columns by name:
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// use sheetstream::{ColumnSpec, Value};
    ///
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let mut rows = workbook.rows("Data")?;
    /// let header: Vec<(u32, String)> = match rows.next_row()? {
    ///     Some(row) => row
    ///         .cells()
    ///         .iter()
    ///         .filter_map(|cell| Some((cell.column(), cell.value().as_str()?.to_owned())))
    ///         .collect(),
    ///     None => Vec::new(),
    /// };
    /// let header: Vec<(u32, &str)> = header.iter().map(|(c, t)| (*c, t.as_str())).collect();
    /// let wanted = ColumnSpec::parse("Amount")?.resolve(&header)?;
    /// rows.select_columns(Some(wanted.iter().copied().collect()));
    /// let mut total = 0.0;
    /// while let Some(row) = rows.next_row()? {
    ///     assert!(row.cells().iter().all(|cell| cell.column() == wanted[0]));
    ///     total += row.cells().iter().filter_map(|cell| cell.value().as_f64()).sum::<f64>();
    /// }
    /// assert_eq!(total, 60.0);
    /// # Ok(())
    /// # }
    /// ```
    pub fn select_columns(&mut self, columns: Option<ColumnSet>) {
        match &mut self.reader {
            FormatRows::Xlsx(rows) => rows.select_columns(columns),
            FormatRows::Xls(rows) => rows.select_columns(columns),
            FormatRows::XlsBlocks(rows) => rows.select_columns(columns),
            FormatRows::Xlsb(rows) => rows.select_columns(columns),
            FormatRows::Ods(rows) => rows.select_columns(columns),
        }
    }

    /// Only values in these columns (first to last, 0-based) make a row
    /// exist ([`Row::holds_values`]) when a selection leaves them out: a
    /// range's or table's columns, so that a row with values only beside
    /// the range is no row of its table.
    // Used by the Arrow layer only.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn set_column_window(&mut self, first: u32, last: u32) {
        match &mut self.reader {
            FormatRows::Xlsx(rows) => rows.set_column_window(first, last),
            FormatRows::Xls(rows) => rows.set_column_window(first, last),
            FormatRows::XlsBlocks(rows) => rows.set_column_window(first, last),
            FormatRows::Xlsb(rows) => rows.set_column_window(first, last),
            FormatRows::Ods(rows) => rows.set_column_window(first, last),
        }
    }

    /// The next row, or None after the last. Rows without cells (written
    /// only for their formatting) are returned too, with no cells.
    ///
    /// # Errors
    ///
    /// Malformed XML (or `.xlsb` records), invalid UTF-8, a bad cell value
    /// or reference, a limit
    /// hit, or a damaged archive; the error names the sheet, part, row,
    /// column and byte offset where known. After an error the reader yields
    /// no more rows.
    #[inline]
    pub fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        if self.stopped {
            return Ok(None);
        }
        let row = match &mut self.reader {
            FormatRows::Xlsx(rows) => rows.next_row(),
            FormatRows::Xls(rows) => rows.next_row(),
            FormatRows::XlsBlocks(rows) => rows.next_row(),
            FormatRows::Xlsb(rows) => rows.next_row(),
            FormatRows::Ods(rows) => rows.next_row(),
        };
        match row {
            Ok(Some(row)) if row.index() > self.last_row => {
                // Past the last row wanted: nothing more is read.
                self.stopped = true;
                Ok(None)
            }
            // A row past the last one wanted is none of the reader's
            // business: its damage (found while its cells were resolved)
            // ends the rows as the row itself would have.
            Err(err)
                if self.last_row != u32::MAX
                    && err
                        .location()
                        .row
                        .is_some_and(|row| row > self.last_row.saturating_add(1)) =>
            {
                self.stopped = true;
                Ok(None)
            }
            row => row,
        }
    }
}
