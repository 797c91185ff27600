//! Typed Arrow record batches from the row stream (feature `arrow`).
//!
//! A sheet becomes a table: the header row names the columns, the first
//! rows with cells after it (the *sample*, 1,000 by default) decide each
//! column's type, and the rows are then read one at a time from the row events into
//! column builders, a batch of 65,536 rows at a time. Nothing holds the
//! sheet: memory follows one batch plus the shared strings.
//!
//! - [`ArrowOptions`]: header, rows, columns, types, batch size.
//! - [`SheetBatches`] ([`ArrowOptions::read_sheet`]): one sheet, read on
//!   the calling thread, borrowing the workbook.
//! - [`SheetBatchReader`] ([`ArrowOptions::sheet_reader`]): one sheet,
//!   owned (`Send + Sync + 'static`), read on a worker thread.
//! - [`ManySheetsReader`] ([`ArrowOptions::read_files`],
//!   [`ArrowOptions::read_workbooks`]): many sheets of many workbooks in
//!   parallel, in one schema (by position, or [by name](ArrowOptions::union_by_name)),
//!   with optional file and sheet columns; unreadable sheets fail the read
//!   or are [skipped and reported](ArrowOptions::skip_unreadable).
//! - [`BatchReport`]: per batch, the error cells and the values that did
//!   not fit their column.
//!
//! Both readers implement Arrow's [`RecordBatchReader`](arrow_array::RecordBatchReader);
//! its errors are [`ArrowError::ExternalError`](arrow_schema::ArrowError::ExternalError)
//! wrapping a [`crate::Error`].
//!
//! # Types
//!
//! Each column's type is inferred from the values of its sampled cells
//! (error cells and the [null values](ArrowOptions::null_values) say
//! nothing), by the first rule that applies:
//!
//! | Sampled values                                                        | Column type                    |
//! |-----------------------------------------------------------------------|--------------------------------|
//! | none (an all-empty column)                                            | `Null`                         |
//! | more than one of booleans, numbers, text, calendar dates, clock times; or any text | `Utf8`            |
//! | booleans only                                                         | `Boolean`                      |
//! | numbers, every one whole, within ±2^53, in a format without a fraction| `Int64`                        |
//! | other numbers                                                         | `Float64`                      |
//! | dates without a time of day, in date-only formats (`yyyy-mm-dd`)      | `Date32`                       |
//! | dates, some with a time of day or in a date-time format               | `Timestamp(Millisecond, None)` |
//! | times of day only (`h:mm:ss` formats)                                 | `Time32(Millisecond)`          |
//! | elapsed times (`[h]:mm`), possibly with times of day                  | `Duration(Millisecond)`        |
//!
//! Calendar dates (with or without a time of day) and clock times (times
//! of day, durations) are two families: no instant type holds `255:10:10`
//! beside `2024-03-01`, so a column of both is `Utf8`, each value as the
//! CSV writes it (`2024-03-01`, `255:10:10`, `13:45:00`). A date whose
//! date-only format hides a time of day is a `Timestamp`, keeping the time.
//!
//! `Int64` needs every sampled number to be whole and exactly an `f64`
//! integer (within ±2^53), so that no value the sample saw changes on the
//! way, and no format such as `0.00` or `0%` saying the numbers are
//! fractions. A format that shows a fraction makes `Float64` even for
//! whole numbers: the workbook's author said the column has fractions.
//! An ISO 8601 cell (`t="d"`) in a style that is not a date format counts
//! as a date when it has no time of day, as a date-time otherwise.
//!
//! The sample is counted in rows that have cells (in the selected
//! columns): rows the sheet skips, and rows with formatting only, cost
//! nothing to pass and do not count. So a sparse sheet's late values are
//! sampled: in a sheet with cells only at A1 and XFD1048576 the sample
//! reaches the last row, and only the 16,382 columns between them, which
//! hold nothing, are `Null`. A `Null` column costs nothing per row (no
//! buffer, no null bitmap): its array is made from the batch's row count.
//! [`ALL_ROWS`] samples every row: the sheet is read twice, first for the
//! types only (nothing held), so memory stays one batch.
//!
//! Values go into their column as follows; anything else *does not fit*:
//!
//! | Column      | Takes                                                                  |
//! |-------------|------------------------------------------------------------------------|
//! | `Null`      | nothing                                                                |
//! | `Utf8`      | text; numbers as the CSV writer writes them (`3`, `0.1`, `1e20`), `TRUE`/`FALSE`, dates in ISO 8601 (`2024-03-01`, `2024-03-01T12:30:00`), times and durations (`13:45:00`, `255:10:10`), error codes (`#N/A`) |
//! | `Boolean`   | booleans                                                               |
//! | `Int64`     | whole numbers within ±2^63                                             |
//! | `Float64`   | numbers (never a NaN or an infinity: no cell holds one; a binary record holding one is refused as damaged, see below) |
//! | `Date32`    | calendar dates without a time of day                                   |
//! | `Timestamp` | calendar dates: milliseconds since 1970-01-01T00:00 (no time zone)     |
//! | `Time32`    | times of day                                                           |
//! | `Duration`  | durations and times of day: the serial number of days in milliseconds  |
//!
//! A NaN or an infinite double is no number a cell holds (the `.xlsx`
//! reader refuses the text `NaN` or `1E999`; an `.xls` NUMBER, RK, MULRK
//! or formula result and an `.xlsb` BrtCellReal, BrtCellRk or BrtFmlaNum
//! holding one is a damaged record): the read fails with an
//! [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming the
//! cell and the record's offset, as the row readers' does, so no column
//! ever holds one.
//!
//! What fits a type takes every value inference would give that type, and
//! what fits a type fits every wider one (`Null` < `Int64` < `Float64` <
//! `Utf8`, `Date32` < `Timestamp` < `Utf8`, `Time32` < `Duration` <
//! `Utf8`, `Boolean` < `Utf8`), so that a column widened by a misfit takes
//! every value of the rows before it. Dates follow
//! [`DateTime::to_civil`](crate::DateTime::to_civil): a serial that stands
//! for no date (negative, past 9999) does not fit a date column (its text
//! does), nor does Excel's fictitious 1900-02-29, a day no calendar type
//! holds (its text `1900-02-29` does, as the CSV writes it). A time of day
//! is a value within the date system's first day: a value with a date
//! under a time-only format (`h:mm`) is a date
//! ([`DateTime::with_kind`](crate::DateTime::with_kind)), so its column is
//! a `Timestamp` and its date is kept.
//!
//! # No value lost without asking
//!
//! A value that does not fit the type its column's sample gave (a `10.5`
//! after 1,000 whole numbers, a text after an empty sample, a time of day
//! in a date column) or that lies right of every sampled column is never
//! dropped silently. What happens is [`ArrowOptions::on_mismatch`]'s:
//!
//! - [`OnMismatch::Widen`] (the default): a reader of the whole table
//!   ([`ArrowOptions::read_sheet_table`], Python's `read_excel` and
//!   `to_arrow`, the CLI's `parquet -o FILE`) reads the sheet again with
//!   the types every row needs; the misfit's read reads on through the
//!   sheet for them first, so one read again is enough per sheet. A
//!   stream whose schema is out (these readers' batches, Python's
//!   `iter_batches`, the CLI's `arrow`) fails with an
//!   [`ErrorKind::Mismatch`](crate::ErrorKind::Mismatch) naming the file,
//!   sheet, cell, value, the column's type and where it came from, and
//!   the options that would take it; [`ArrowOptions::widened_by`] turns
//!   that error into the options to read again with.
//! - [`OnMismatch::Strict`]: the read fails with that error.
//! - [`OnMismatch::Null`]: the value becomes null (a cell outside the
//!   columns is left out) and is counted and described in the batch's
//!   [`BatchReport`].
//!
//! A column whose type was given ([`ArrowOptions::dtype`]) is not
//! widened: a value that does not fit it fails the read unless misfits
//! are nulled. Error cells (`#DIV/0!`, `#N/A`) are what the workbook
//! shows, not damage: null in a typed column and their code in a `Utf8`
//! one, counted in the report as `error_cells`
//! ([`OnErrorValue::Null`], the default), or a failed read with
//! [`OnErrorValue::Strict`].
//!
//! # Rows and columns
//!
//! The header is the first non-empty row after [`ArrowOptions::skip_rows`]
//! (or [`Header::Row`], or none); its cells' text names the columns, an
//! empty name becomes `column_N` (N the 1-based output position) and a
//! repeated one `name_1`, `name_2`, ... The columns are those from the
//! leftmost to the rightmost that the header or the sample uses, or the
//! [selected ones](ArrowOptions::columns) in the order asked for. A cell to
//! the right of them later in the sheet is a misfit (see above). Rows the
//! sheet skips between data rows are rows of nulls; empty rows at the end
//! are not rows of the table. A row's existence does not depend on the
//! column selection: every row from the header to the last row with a
//! value in any column is a row of the table (of nulls where the selected
//! columns are empty), and the header row is the same with or without a
//! selection. Rows are table
//! rows in file order: a row whose number repeats or goes back (malformed,
//! but written by some tools) is a row of its own, and a second cell for
//! one column in one row is left out and counted.
//!
//! ```
//! use sheetstream::arrow::{ArrowOptions, ColumnType, Header};
//! use sheetstream::arrow::arrow_array::{Array, Float64Array, StringArray};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
//! let options = ArrowOptions::new()
//!     .header(Header::FirstNonEmpty)
//!     .columns(sheetstream::ColumnSpec::parse("Item,B")?)
//!     .n_rows(Some(2))
//!     .dtype("Amount", ColumnType::Float64);
//! let mut batches = options.read_sheet(&mut workbook, "Data")?;
//! let batch = batches.next_batch()?.expect("one batch");
//! assert_eq!(batch.num_rows(), 2);
//! let items = batch.column(0).as_any().downcast_ref::<StringArray>().unwrap();
//! assert_eq!(items.value(0), "apples");
//! let amounts = batch.column(1).as_any().downcast_ref::<Float64Array>().unwrap();
//! assert_eq!(amounts.value(0), 10.0);
//! # Ok(())
//! # }
//! ```
//!
//! The arrow-rs crates this builds on are re-exported ([`arrow_array`],
//! [`arrow_schema`]) so that their versions match.

mod batches;
mod convert;
mod infer;
mod many;
mod options;
mod prelude;
mod reader;
mod shape;
mod widen;
mod window;

use std::io::{Read, Seek};
use std::sync::Arc;

pub use arrow_array;
pub use arrow_schema;
use arrow_schema::SchemaRef;

pub use batches::{BatchReport, CellIssue, IssueKind, MAX_ISSUES_PER_BATCH, SheetBatches};
pub use many::{ManySheetsReader, SheetChoice, SkippedSheet};
pub use options::{
    ALL_ROWS, ArrowOptions, ColumnType, DEFAULT_BATCH_SIZE, DEFAULT_SCHEMA_SAMPLE_ROWS, Header,
    OnErrorValue, OnMismatch,
};
pub use reader::SheetBatchReader;
pub(crate) use widen::WidenedSheet;

use crate::error::Result;
use crate::workbook::{SheetSelector, Workbook};
use batches::SheetSource;
use prelude::sheet_columns;

impl ArrowOptions {
    /// The record batches of one sheet, read on this thread. Opening reads
    /// the header and the sample rows.
    ///
    /// # Errors
    ///
    /// No such sheet; what reading its first rows met; a column selection
    /// naming a column the header does not have; a type override naming
    /// no column.
    pub fn read_sheet<'w, R: Read + Seek>(
        &self,
        workbook: &'w mut Workbook<R>,
        sheet: impl SheetSelector,
    ) -> Result<SheetBatches<'w>> {
        let position = sheet.position(workbook.sheets())?;
        // A table: these options knowing it, on its sheet.
        let resolved;
        let this = if self.table.is_some() {
            let tables = workbook.tables();
            resolved = self
                .with_table(None, tables, workbook.sheets(), Some(position))?
                .0;
            &resolved
        } else {
            self
        };
        this.read_resolved(workbook, position)
    }

    /// [`ArrowOptions::read_sheet`] of the Excel table of this name, on
    /// whichever sheet holds it (see [`ArrowOptions::table`]).
    ///
    /// # Errors
    ///
    /// No table of that name (the error lists the workbook's tables);
    /// [`Workbook::tables`]' errors; as [`ArrowOptions::read_sheet`].
    pub fn read_table<'w, R: Read + Seek>(
        &self,
        workbook: &'w mut Workbook<R>,
        name: &str,
    ) -> Result<SheetBatches<'w>> {
        let options = self.clone().table(Some(name));
        let tables = workbook.tables();
        let (options, position) = options.with_table(None, tables, workbook.sheets(), None)?;
        options.read_resolved(workbook, position)
    }

    /// [`ArrowOptions::read_sheet`], a table these options name resolved.
    fn read_resolved<'w, R: Read + Seek>(
        &self,
        workbook: &'w mut Workbook<R>,
        position: usize,
    ) -> Result<SheetBatches<'w>> {
        let formats = workbook.format_kinds().to_vec();
        let name = workbook.sheets()[position].name().to_owned();
        // Types from every row: a first pass for them, none of it held.
        let options = if self.needs_first_pass(None, &name) {
            let shape = shape::SheetShape::load(workbook, position, self)?;
            let source = SheetSource {
                rows: workbook.rows(position)?,
                formats: formats.clone(),
                sheet: name.clone(),
                file: None,
                shape,
            };
            self.with_first_pass(None, &name, sheet_columns(source, self)?)
        } else {
            self.clone()
        };
        let shape = shape::SheetShape::load(workbook, position, &options)?;
        let source = SheetSource {
            rows: workbook.rows(position)?,
            formats,
            sheet: name,
            file: None,
            shape,
        };
        SheetBatches::open(source, &options, None, None)
    }

    /// The whole table of one sheet: its schema and every batch, each
    /// column as wide as its values need. A value that does not fit the
    /// type the sample gave its column (a fraction after 1,000 whole
    /// numbers, a text after an empty sample) makes the sheet be read
    /// again with the wider type ([`ArrowOptions::widened_by`]), unless
    /// [`OnMismatch::Strict`] or [`OnMismatch::Null`] say otherwise or the
    /// column's type was given. Memory: the whole table (use
    /// [`ArrowOptions::read_sheet`] to stream it).
    ///
    /// ```
    /// use sheetstream::arrow::{ArrowOptions, ColumnType};
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let (schema, batches) = ArrowOptions::new().read_sheet_table(&mut workbook, "Data")?;
    /// assert_eq!(schema.field(1).data_type(), &ColumnType::Int64.data_type());
    /// assert_eq!(batches.iter().map(|batch| batch.num_rows()).sum::<usize>(), 3);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`ArrowOptions::read_sheet`], and [`SheetBatches::next_batch`]'s.
    pub fn read_sheet_table<R: Read + Seek>(
        &self,
        workbook: &mut Workbook<R>,
        sheet: impl SheetSelector,
    ) -> Result<(SchemaRef, Vec<arrow_array::RecordBatch>)> {
        let position = sheet.position(workbook.sheets())?;
        let mut options = self.clone();
        loop {
            let batches = options.read_sheet(&mut *workbook, position)?;
            let schema = batches.schema();
            match batches.collect_batches() {
                Ok(batches) => return Ok((schema, batches)),
                Err(err) => match options.widened_by(&err) {
                    Some(wider) => options = wider,
                    None => return Err(err),
                },
            }
        }
    }

    /// Whether a sheet's types are to be inferred from every row in a
    /// first pass (no read before found its columns).
    pub(crate) fn needs_first_pass(&self, file: Option<&str>, sheet: &str) -> bool {
        self.samples_every_row() && self.widened_columns(file, sheet).is_none()
    }

    /// The record batches of one sheet, owned: read on a worker thread
    /// from a shared workbook (for `SharedFile` and in-memory workbooks
    /// alike), its part inflated on a second thread where there are two
    /// cores, unless [`ArrowOptions::threads`] is 1. The header and sample
    /// are read before this returns.
    ///
    /// # Errors
    ///
    /// As [`ArrowOptions::read_sheet`].
    pub fn sheet_reader<R>(
        &self,
        workbook: Arc<Workbook<R>>,
        sheet: impl SheetSelector,
    ) -> Result<SheetBatchReader>
    where
        R: Read + Seek + Clone + Send + Sync + 'static,
    {
        let position = sheet.position(workbook.sheets())?;
        let options = if self.table.is_some() {
            let tables = workbook.tables_shared();
            self.with_table(None, tables, workbook.sheets(), Some(position))?
                .0
        } else {
            self.clone()
        };
        SheetBatchReader::spawn(workbook, position, options)
    }

    /// The schema of the batches [`ArrowOptions::sheet_reader`] would
    /// give, from a shared workbook: the header and the sample read on
    /// this thread, the sheet's part inflated only as far as they go (the
    /// reader's threads, and its part inflated ahead on one of them, are
    /// not started: a scan that looks at many sheets' schemas first).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sheetstream::arrow::{ArrowOptions, arrow_array::RecordBatchReader};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let workbook = Arc::new(sheetstream::Workbook::open("examples/data/sales.xlsx")?);
    /// let options = ArrowOptions::new().schema_sample_rows(2);
    /// let schema = options.sheet_schema(&workbook, "Data")?;
    /// assert_eq!(schema, options.sheet_reader(workbook, "Data")?.schema());
    /// assert_eq!(schema.fields().len(), 5);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`ArrowOptions::read_sheet`].
    pub fn sheet_schema<R>(
        &self,
        workbook: &Workbook<R>,
        sheet: impl SheetSelector,
    ) -> Result<SchemaRef>
    where
        R: Read + Seek + Clone + Send,
    {
        let position = sheet.position(workbook.sheets())?;
        if self.table.is_some() {
            let tables = workbook.tables_shared();
            let options = self
                .with_table(None, tables, workbook.sheets(), Some(position))?
                .0;
            return reader::sheet_schema(workbook, position, &options);
        }
        reader::sheet_schema(workbook, position, self)
    }

    /// The schema a sheet's batches would have: reads the header and the
    /// sample only.
    ///
    /// # Errors
    ///
    /// As [`ArrowOptions::read_sheet`].
    pub fn infer_schema<R: Read + Seek>(
        &self,
        workbook: &mut Workbook<R>,
        sheet: impl SheetSelector,
    ) -> Result<SchemaRef> {
        Ok(self.read_sheet(workbook, sheet)?.schema())
    }
}
