//! [`SheetRows`], the public pull reader over a sheet's rows, and
//! [`RowSource`], what every format's row reader implements for it.
//!
//! `SheetRows` holds the format's reader behind the trait (one dynamic
//! call per row, not per cell) and adds what is the same for every
//! format: stopping after a range's last row, and a step run once the
//! sheet was read to its end (an encrypted workbook's integrity check,
//! due once every sheet was).

use crate::cell::Row;
use crate::columns::ColumnSet;
use crate::error::Result;
use crate::limits::Limits;

/// A format's row reader: what [`SheetRows`] hands each call to. Every
/// format implements it for its own reader, and nothing above the formats
/// names those types.
pub(crate) trait RowSource {
    /// The next row, or None after the last (see [`SheetRows::next_row`]).
    fn next_row(&mut self) -> Result<Option<Row<'_>>>;

    /// Resolves and hands out only the cells of `columns` from the next
    /// row on (None: every column); see [`SheetRows::select_columns`].
    fn select_columns(&mut self, columns: Option<ColumnSet>);

    /// Only values in columns `first..=last` make a row exist when a
    /// selection leaves them out ([`Row::holds_values`](crate::Row::holds_values)).
    fn set_column_window(&mut self, first: u32, last: u32);

    /// Also decode formula text; see [`SheetRows::with_formulas`].
    fn set_formulas(&mut self, formulas: bool);

    /// Reads through a window of `chunk_size` bytes instead (tests and
    /// fuzzing: small windows make rows straddle chunk boundaries);
    /// nothing for a reader without such a window.
    fn set_chunk_size(&mut self, chunk_size: usize, limits: &Limits) {
        let _ = (chunk_size, limits);
    }
}

/// What runs once a sheet was read to its end; its error is the read's.
pub(crate) type AtEnd<'a> = Box<dyn FnOnce() -> Result<()> + 'a>;

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
    reader: Box<dyn RowSource + 'a>,
    /// [`SheetRows::stop_after_row`]: the last row handed out.
    last_row: u32,
    /// A row past `last_row` was met: no more rows.
    stopped: bool,
    /// Run when the reader ends (not when `last_row` stops it).
    at_end: Option<AtEnd<'a>>,
}

impl<'a> SheetRows<'a> {
    /// The rows a format's reader reads.
    pub(crate) fn new(reader: impl RowSource + 'a) -> Self {
        SheetRows {
            reader: Box::new(reader),
            last_row: u32::MAX,
            stopped: false,
            at_end: None,
        }
    }

    /// Runs `step` once the reader has handed out its last row (not when
    /// [`stop_after_row`](Self::stop_after_row) stops it first): its
    /// error is returned instead of the end.
    pub(crate) fn at_end(&mut self, step: AtEnd<'a>) {
        self.at_end = Some(step);
    }

    /// Replaces the window with one of `chunk_size` bytes (for tests and
    /// fuzzing: small windows make rows straddle chunk boundaries).
    pub(crate) fn with_chunk_size(mut self, chunk_size: usize, limits: &Limits) -> Self {
        self.reader.set_chunk_size(chunk_size, limits);
        self
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
    pub fn with_formulas(mut self, formulas: bool) -> Self {
        self.reader.set_formulas(formulas);
        self
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
        self.reader.select_columns(columns);
    }

    /// Only values in these columns (first to last, 0-based) make a row
    /// exist ([`Row::holds_values`]) when a selection leaves them out: a
    /// range's or table's columns, so that a row with values only beside
    /// the range is no row of its table.
    // Used by the Arrow layer only.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn set_column_window(&mut self, first: u32, last: u32) {
        self.reader.set_column_window(first, last);
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
        let row = self.reader.next_row();
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
            Ok(None) if self.at_end.is_some() => {
                self.stopped = true;
                run_at_end(self.at_end.take()).map(|()| None)
            }
            row => row,
        }
    }
}

/// The sheet was read to its end: the step waiting for it runs.
#[cold]
fn run_at_end(step: Option<AtEnd<'_>>) -> Result<()> {
    match step {
        Some(step) => step(),
        None => Ok(()),
    }
}
