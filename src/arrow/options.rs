//! [`ArrowOptions`]: how a sheet becomes typed columns.
//!
//! `ArrowOptions`, `Header`, `ColumnType`, `OnMismatch`, `OnErrorValue`, and
//! `widened_by` (the options a read again after a misfit uses).

use std::sync::Arc;

use arrow_schema::{DataType, TimeUnit};

use super::prelude::SheetColumns;
use super::widen::WidenedSheet;
use super::window::{GivenHeader, ResolvedTable};
use crate::columns::ColumnSpec;
use crate::range::SheetRange;

/// The default number of rows per record batch.
pub const DEFAULT_BATCH_SIZE: usize = 65_536;
/// The default number of data rows the column types are inferred from.
pub const DEFAULT_SCHEMA_SAMPLE_ROWS: usize = 1_000;
/// [`ArrowOptions::schema_sample_rows`] of every row.
pub const ALL_ROWS: usize = usize::MAX;

/// Which row holds the column names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Header {
    /// The first row, after the skipped ones, with a value in any column
    /// (the default; a column selection does not change which row it is).
    #[default]
    FirstNonEmpty,
    /// The row at this 0-based index (row 1 is 0). When the sheet has no
    /// such row, every name is generated.
    Row(u32),
    /// No header: the columns are named `column_1`, `column_2`, ... and
    /// the data starts at the first non-empty row.
    None,
    // Hand-made sheets (issue 26): multi-row and detected headers.
    /// A header of several rows, `first` to `last` (0-based, inclusive):
    /// each column's name is its header cells' texts joined with a space
    /// (`"2024 Q1"`), top row first, empty ones and a text repeating the
    /// one above (a label merged down) left out; a merged header cell
    /// counts in every column it spans (filled across first, whether or
    /// not [`ArrowOptions::fill_merged`] is on). Rows above `first` are
    /// left out; the data starts after `last`.
    Rows {
        /// The top header row (0-based).
        first: u32,
        /// The bottom header row (0-based, at least `first`).
        last: u32,
    },
    /// The header is found past any title rows above the table: of the
    /// first rows with a value (the schema sample, after the skipped
    /// rows), the first whose non-empty cells cover more than half of the
    /// columns that the sampled rows below it use. A title in A1 above a
    /// table of five columns covers one of five and is left out with any
    /// row above the header. When no row qualifies, the first row with a
    /// value is the header ([`Header::FirstNonEmpty`]). The row taken is
    /// in every [`BatchReport::header_row`](super::BatchReport::header_row).
    Auto,
}

impl Header {
    /// Whether this header is one of the hand-made sheets' (several rows,
    /// or found past titles), read through the shaped prelude.
    pub(crate) fn is_shaped(self) -> bool {
        matches!(self, Header::Rows { .. } | Header::Auto)
    }
}

/// What happens to a value that does not fit its column's type: a text in
/// a number column after the sample, a fraction in an `Int64` column, a
/// time of day in a date column, a cell to the right of every sampled
/// column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OnMismatch {
    /// No value is lost: a reader of the whole table widens the column
    /// (the readers' consumers that collect every batch first, such as
    /// Python's `read_excel` and the CLI's `parquet` to a file, read
    /// again with the types inference over every row gives, see
    /// [`ArrowOptions::widened_by`]); a stream whose schema is out fails
    /// with an [`ErrorKind::Conversion`](crate::ErrorKind::Conversion)
    /// naming the cell, the value and the options that would take it. A
    /// column whose type was given ([`ArrowOptions::dtype`]) is never
    /// widened: its misfits fail. The default.
    #[default]
    Widen,
    /// Reading fails with an [`ErrorKind::Conversion`](crate::ErrorKind::Conversion)
    /// naming the sheet, cell, value and the options that would take it.
    Strict,
    /// The value becomes null and is counted (and, for the first ones of
    /// each batch, described) in the batch's [`BatchReport`](super::BatchReport).
    Null,
}

impl OnMismatch {
    /// Parses `widen`, `strict` (or `error`, `raise`) and `null` (or
    /// `coerce`), as the CLI's `--on-mismatch` and Python's `on_mismatch`
    /// take them.
    pub fn parse(name: &str) -> Option<OnMismatch> {
        Some(match name.to_ascii_lowercase().as_str() {
            "widen" => OnMismatch::Widen,
            "strict" | "error" | "raise" => OnMismatch::Strict,
            "null" | "coerce" => OnMismatch::Null,
            _ => return None,
        })
    }

    /// The name [`OnMismatch::parse`] reads back.
    pub fn name(self) -> &'static str {
        match self {
            OnMismatch::Widen => "widen",
            OnMismatch::Strict => "strict",
            OnMismatch::Null => "null",
        }
    }
}

/// What happens to an error cell (`#DIV/0!`, `#N/A`): a value the workbook
/// shows, not damage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OnErrorValue {
    /// Null in a typed column, its code (`#DIV/0!`) in a `Utf8` column;
    /// counted in the batch's [`BatchReport`](super::BatchReport) either
    /// way (as `pandas.read_excel` reads them). The default.
    #[default]
    Null,
    /// Reading fails with an [`ErrorKind::Conversion`](crate::ErrorKind::Conversion)
    /// naming the cell and the code.
    Strict,
}

impl OnErrorValue {
    /// Parses `null` and `strict` (or `error`, `raise`), as the CLI's
    /// `--on-error-value` and Python's `on_error_value` take them.
    pub fn parse(name: &str) -> Option<OnErrorValue> {
        Some(match name.to_ascii_lowercase().as_str() {
            "null" => OnErrorValue::Null,
            "strict" | "error" | "raise" => OnErrorValue::Strict,
            _ => return None,
        })
    }

    /// The name [`OnErrorValue::parse`] reads back.
    pub fn name(self) -> &'static str {
        match self {
            OnErrorValue::Null => "null",
            OnErrorValue::Strict => "strict",
        }
    }
}

/// The column types the typed reader produces: the inference table of the
/// [module docs](super) says which cells give which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ColumnType {
    /// `Null`: a column whose sampled cells held no value; every row is
    /// null and a value met later does not fit.
    Null,
    /// `Boolean`.
    Boolean,
    /// `Int64`: whole numbers.
    Int64,
    /// `Float64`.
    Float64,
    /// `Utf8`: text; other values written as the CSV writer writes them.
    Utf8,
    /// `Date32`: days since 1970-01-01.
    Date32,
    /// `Timestamp(Millisecond, None)`: a date and time of day, no time zone.
    Timestamp,
    /// `Time32(Millisecond)`: a time of day.
    Time,
    /// `Duration(Millisecond)`: elapsed time (`[h]:mm` formats).
    Duration,
}

impl ColumnType {
    /// The Arrow data type of a column of this type.
    pub fn data_type(self) -> DataType {
        match self {
            ColumnType::Null => DataType::Null,
            ColumnType::Boolean => DataType::Boolean,
            ColumnType::Int64 => DataType::Int64,
            ColumnType::Float64 => DataType::Float64,
            ColumnType::Utf8 => DataType::Utf8,
            ColumnType::Date32 => DataType::Date32,
            ColumnType::Timestamp => DataType::Timestamp(TimeUnit::Millisecond, None),
            ColumnType::Time => DataType::Time32(TimeUnit::Millisecond),
            ColumnType::Duration => DataType::Duration(TimeUnit::Millisecond),
        }
    }

    /// The column type of an Arrow data type this reader produces.
    pub fn from_data_type(data_type: &DataType) -> Option<ColumnType> {
        Some(match data_type {
            DataType::Null => ColumnType::Null,
            DataType::Boolean => ColumnType::Boolean,
            DataType::Int64 => ColumnType::Int64,
            DataType::Float64 => ColumnType::Float64,
            DataType::Utf8 => ColumnType::Utf8,
            DataType::Date32 => ColumnType::Date32,
            DataType::Timestamp(TimeUnit::Millisecond, None) => ColumnType::Timestamp,
            DataType::Time32(TimeUnit::Millisecond) => ColumnType::Time,
            DataType::Duration(TimeUnit::Millisecond) => ColumnType::Duration,
            _ => return None,
        })
    }

    /// Parses a type name as the CLI's `--dtype NAME=TYPE` takes it: `null`, `bool`
    /// (or `boolean`), `int64` (`int`), `float64` (`float`), `utf8`
    /// (`string`, `str`), `date` (`date32`), `timestamp` (`datetime`),
    /// `time`, `duration`; case does not matter.
    pub fn parse(name: &str) -> Option<ColumnType> {
        Some(match name.to_ascii_lowercase().as_str() {
            "null" => ColumnType::Null,
            "bool" | "boolean" => ColumnType::Boolean,
            "int" | "int64" => ColumnType::Int64,
            "float" | "float64" | "double" => ColumnType::Float64,
            "utf8" | "string" | "str" | "text" => ColumnType::Utf8,
            "date" | "date32" => ColumnType::Date32,
            "timestamp" | "datetime" => ColumnType::Timestamp,
            "time" => ColumnType::Time,
            "duration" => ColumnType::Duration,
            _ => return None,
        })
    }

    /// The short name [`ColumnType::parse`] reads back.
    pub fn name(self) -> &'static str {
        match self {
            ColumnType::Null => "null",
            ColumnType::Boolean => "bool",
            ColumnType::Int64 => "int64",
            ColumnType::Float64 => "float64",
            ColumnType::Utf8 => "utf8",
            ColumnType::Date32 => "date",
            ColumnType::Timestamp => "timestamp",
            ColumnType::Time => "time",
            ColumnType::Duration => "duration",
        }
    }
}

impl std::fmt::Display for ColumnType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How sheets are read into Arrow record batches: header, rows, columns,
/// types, batch size, and (for many sheets and files) the extra columns
/// and the union of schemas. Every option has a default; set the ones you
/// need and hand the options to a reader.
///
/// ```
/// use sheetstream::arrow::{ArrowOptions, ColumnType, Header, OnErrorValue, OnMismatch};
///
/// # fn main() -> Result<(), sheetstream::Error> {
/// let options = ArrowOptions::new()
///     .header(Header::Row(0))
///     .skip_rows(0)
///     .n_rows(Some(1_000))
///     .columns(sheetstream::ColumnSpec::parse("Item,B")?)
///     .schema_sample_rows(100)
///     .dtype("Amount", ColumnType::Float64)
///     .on_mismatch(OnMismatch::Strict)
///     .on_error_value(OnErrorValue::Null)
///     .null_values(["n/a", "-"])
///     .batch_size(8_192);
/// assert_eq!(options.get_batch_size(), 8_192);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ArrowOptions {
    pub(crate) header: Header,
    pub(crate) skip_rows: u32,
    pub(crate) n_rows: Option<u64>,
    pub(crate) columns: Option<ColumnSpec>,
    pub(crate) schema_sample_rows: usize,
    pub(crate) dtypes: Vec<(String, ColumnType)>,
    pub(crate) on_mismatch: OnMismatch,
    pub(crate) on_error_value: OnErrorValue,
    pub(crate) null_values: Vec<String>,
    pub(crate) batch_size: usize,
    pub(crate) file_column: Option<String>,
    pub(crate) sheet_column: Option<String>,
    pub(crate) union_by_name: bool,
    pub(crate) skip_unreadable: bool,
    pub(crate) threads: usize,
    pub(crate) issues_per_batch: usize,
    pub(crate) keep_rows_before_error: bool,
    /// Of the sheet's columns, the output ones handed out, in this order
    /// ([`ArrowOptions::output_columns`]).
    pub(crate) output_columns: Option<Vec<String>>,
    /// Sheets whose columns a read before found wider than their sample
    /// said ([`ArrowOptions::widened_by`]): read with these columns.
    pub(crate) widened: Arc<Vec<WidenedSheet>>,
    // Hand-made sheets (issue 26): merged cells, hidden rows and columns,
    // empty rows and columns.
    pub(crate) fill_merged: bool,
    pub(crate) skip_hidden_rows: bool,
    pub(crate) skip_hidden_columns: bool,
    pub(crate) drop_empty_rows: bool,
    pub(crate) drop_empty_cols: bool,
    pub(crate) stop_at_empty_row: bool,
    // Tables and ranges (see `window.rs`).
    /// [`ArrowOptions::range`].
    pub(crate) range: Option<SheetRange>,
    /// [`ArrowOptions::table`].
    pub(crate) table: Option<String>,
    /// [`ArrowOptions::include_totals_row`].
    pub(crate) include_totals_row: bool,
    /// The table as each workbook read defines it.
    pub(crate) tables: Arc<Vec<ResolvedTable>>,
    /// A table's column names, in place of a header row read.
    pub(crate) given_header: Option<GivenHeader>,
    /// The first and last column of the range or table being read.
    pub(crate) window_columns: Option<(u32, u32)>,
}

impl Default for ArrowOptions {
    fn default() -> ArrowOptions {
        ArrowOptions {
            header: Header::FirstNonEmpty,
            skip_rows: 0,
            n_rows: None,
            columns: None,
            schema_sample_rows: DEFAULT_SCHEMA_SAMPLE_ROWS,
            dtypes: Vec::new(),
            on_mismatch: OnMismatch::Widen,
            on_error_value: OnErrorValue::Null,
            null_values: Vec::new(),
            batch_size: DEFAULT_BATCH_SIZE,
            file_column: None,
            sheet_column: None,
            union_by_name: false,
            skip_unreadable: false,
            threads: 0,
            issues_per_batch: super::MAX_ISSUES_PER_BATCH,
            keep_rows_before_error: false,
            output_columns: None,
            widened: Arc::new(Vec::new()),
            fill_merged: false,
            skip_hidden_rows: false,
            skip_hidden_columns: false,
            drop_empty_rows: false,
            drop_empty_cols: false,
            stop_at_empty_row: false,
            range: None,
            table: None,
            include_totals_row: false,
            tables: Arc::new(Vec::new()),
            given_header: None,
            window_columns: None,
        }
    }
}

impl ArrowOptions {
    /// The defaults: header in the first non-empty row, every column,
    /// types inferred from 1,000 rows, misfits widened (or failing a
    /// stream), error cells null, batches of 65,536 rows.
    pub fn new() -> ArrowOptions {
        ArrowOptions::default()
    }

    /// Which row holds the column names (default: the first non-empty one).
    ///
    /// ```
    /// use sheetstream::arrow::{ArrowOptions, Header};
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let schema = ArrowOptions::new().header(Header::None).infer_schema(&mut workbook, "Data")?;
    /// assert_eq!(schema.field(0).name(), "column_1");
    /// // The header row is then data: column A holds text only.
    /// assert_eq!(schema.field(1).data_type(), &sheetstream::arrow::arrow_schema::DataType::Utf8);
    /// # Ok(())
    /// # }
    /// ```
    pub fn header(mut self, header: Header) -> Self {
        self.header = header;
        self
    }

    /// Leaves out the sheet's first `rows` rows (rows 1 to `rows`, empty
    /// ones counted, as Excel numbers them) before the header is looked for.
    pub fn skip_rows(mut self, rows: u32) -> Self {
        self.skip_rows = rows;
        self
    }

    /// Reads at most this many data rows, then stops reading the sheet.
    pub fn n_rows(mut self, rows: Option<u64>) -> Self {
        self.n_rows = rows;
        self
    }

    /// Reads only these columns, in this order (see [`ColumnSpec::parse`]
    /// for `"A:C,F"`, positions and header names). Cells of other columns
    /// are dropped by the row reader before they are resolved.
    ///
    /// ```
    /// use sheetstream::{ColumnSpec, arrow::ArrowOptions};
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let options = ArrowOptions::new().columns(ColumnSpec::parse("D,Item")?);
    /// let schema = options.infer_schema(&mut workbook, "Data")?;
    /// let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
    /// assert_eq!(names, ["In stock", "Item"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn columns(mut self, columns: ColumnSpec) -> Self {
        self.columns = Some(columns);
        self
    }

    /// Infers column types from this many data rows (default 1,000; at
    /// least 1 is used). [`ALL_ROWS`] (`usize::MAX`) infers them from
    /// every row: the sheet is then read twice, first only to infer (no
    /// row is kept), then into batches, so memory stays one batch.
    ///
    /// ```
    /// use sheetstream::arrow::{ALL_ROWS, ArrowOptions, ColumnType};
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// // `Doubled` has one value in its first row, and the type of the rest.
    /// let schema = ArrowOptions::new().schema_sample_rows(ALL_ROWS).infer_schema(&mut workbook, "Data")?;
    /// assert_eq!(schema.field(4).data_type(), &ColumnType::Int64.data_type());
    /// # Ok(())
    /// # }
    /// ```
    pub fn schema_sample_rows(mut self, rows: usize) -> Self {
        self.schema_sample_rows = rows;
        self
    }

    /// Whether the types are inferred from every row.
    pub(crate) fn samples_every_row(&self) -> bool {
        self.schema_sample_rows == ALL_ROWS
    }

    /// Gives the column named `name` (after header names were made
    /// unique) this type instead of the inferred one.
    ///
    /// ```
    /// use sheetstream::arrow::{ArrowOptions, ColumnType};
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let options = ArrowOptions::new()
    ///     .schema_sample_rows(10)
    ///     .dtype("Amount", ColumnType::Float64);
    /// let schema = options.infer_schema(&mut workbook, "Data")?;
    /// assert_eq!(schema.field(1).data_type(), &ColumnType::Float64.data_type());
    /// # Ok(())
    /// # }
    /// ```
    pub fn dtype(mut self, name: impl Into<String>, column_type: ColumnType) -> Self {
        self.dtypes.push((name.into(), column_type));
        self
    }

    /// Several [`ArrowOptions::dtype`] overrides at once.
    pub fn dtypes<N: Into<String>>(
        mut self,
        overrides: impl IntoIterator<Item = (N, ColumnType)>,
    ) -> Self {
        self.dtypes
            .extend(overrides.into_iter().map(|(name, ty)| (name.into(), ty)));
        self
    }

    /// Widen (the default), fail or null on values that do not fit their
    /// column (see [`OnMismatch`]).
    ///
    /// ```
    /// use sheetstream::arrow::{ArrowOptions, ColumnType, OnMismatch, arrow_array::Array};
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// // Item is text: as a number column it does not fit.
    /// let options = ArrowOptions::new().dtype("Item", ColumnType::Float64);
    /// let mut batches = options.clone().on_mismatch(OnMismatch::Null).read_sheet(&mut workbook, "Data")?;
    /// let batch = batches.next_batch()?.expect("a batch");
    /// assert_eq!(batch.column(0).null_count(), 3);
    /// assert_eq!(batches.report().coerced_cells, 3);
    /// drop(batches);
    /// // A column whose type was given is not widened: by default the read fails.
    /// let mut strict = options.read_sheet(&mut workbook, "Data")?;
    /// let err = strict.next_batch().unwrap_err();
    /// assert_eq!(err.location().row, Some(2));
    /// assert!(err.to_string().contains("`apples` does not fit column `Item` (float64, as dtypes gives it)"), "{err}");
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_mismatch(mut self, on_mismatch: OnMismatch) -> Self {
        self.on_mismatch = on_mismatch;
        self
    }

    /// Shorthand: `strict(true)` is [`OnMismatch::Strict`], `strict(false)`
    /// the default, [`OnMismatch::Widen`].
    pub fn strict(self, strict: bool) -> Self {
        self.on_mismatch(if strict {
            OnMismatch::Strict
        } else {
            OnMismatch::Widen
        })
    }

    /// What error cells (`#DIV/0!`) become: null, counted (the default),
    /// or a failed read (see [`OnErrorValue`]).
    pub fn on_error_value(mut self, on_error_value: OnErrorValue) -> Self {
        self.on_error_value = on_error_value;
        self
    }

    /// The options to read again with after a read failed on a value that
    /// did not fit its column, when that column can widen: None for any
    /// other error, under [`OnMismatch::Strict`] and
    /// [`OnMismatch::Null`], for a column whose type was given, and when
    /// these options already read that sheet as widely. The sheet is then
    /// read with the columns and types inference over every row gives
    /// (more exactly: over the sample and every row from the misfit on;
    /// the rows between fit the narrower type, so they fit the wider one).
    /// A reader of the whole table (every batch collected before any is
    /// used) reads again with them until the read succeeds; each round
    /// widens at least one column, so it ends.
    ///
    /// ```
    /// use sheetstream::arrow::{ArrowOptions, ColumnType};
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// // One sampled row: `Amount` looks like Int64 and `Doubled` like Int64.
    /// let mut options = ArrowOptions::new().schema_sample_rows(1);
    /// let table = loop {
    ///     let read: Result<Vec<_>, _> = options.read_sheet(&mut workbook, "Data")?.collect_batches();
    ///     match read {
    ///         Ok(batches) => break batches,
    ///         Err(err) => match options.widened_by(&err) {
    ///             Some(wider) => options = wider,
    ///             None => return Err(err),
    ///         },
    ///     }
    /// };
    /// assert_eq!(table.iter().map(|batch| batch.num_rows()).sum::<usize>(), 3);
    /// # Ok(())
    /// # }
    /// ```
    pub fn widened_by(&self, err: &crate::Error) -> Option<ArrowOptions> {
        let widened = err.attachment::<WidenedSheet>()?;
        let known = self.widened_columns(widened.file.as_deref(), &widened.sheet);
        if known == Some(&widened.columns) {
            return None;
        }
        Some(self.with_widened(widened.clone()))
    }

    /// These options with a sheet's columns as a read found them, in place
    /// of any it had.
    fn with_widened(&self, widened: WidenedSheet) -> ArrowOptions {
        let mut sheets: Vec<WidenedSheet> = (self.widened.iter())
            .filter(|known| !(known.file == widened.file && known.sheet == widened.sheet))
            .cloned()
            .collect();
        sheets.push(widened);
        let mut options = self.clone();
        options.widened = Arc::new(sheets);
        options
    }

    /// These options with a sheet's columns as a first pass found them.
    pub(crate) fn with_first_pass(
        &self,
        file: Option<&str>,
        sheet: &str,
        columns: SheetColumns,
    ) -> ArrowOptions {
        self.with_widened(WidenedSheet {
            file: file.map(str::to_owned),
            sheet: sheet.to_owned(),
            columns,
        })
    }

    /// The columns a read before found for this sheet, if any.
    pub(crate) fn widened_columns(&self, file: Option<&str>, sheet: &str) -> Option<&SheetColumns> {
        self.widened
            .iter()
            .find(|known| known.file.as_deref() == file && known.sheet == sheet)
            .map(|known| &known.columns)
    }

    /// Text cells exactly equal to one of these are read as null.
    pub fn null_values<S: Into<String>>(mut self, values: impl IntoIterator<Item = S>) -> Self {
        self.null_values = values.into_iter().map(Into::into).collect();
        self
    }

    /// Rows per record batch (default 65,536; at least 1 is used). Memory
    /// follows one batch plus the shared strings.
    ///
    /// ```
    /// use sheetstream::arrow::ArrowOptions;
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let batches = ArrowOptions::new().batch_size(2).read_sheet(&mut workbook, "Data")?;
    /// let rows: Vec<usize> = batches.map(|batch| batch.unwrap().num_rows()).collect();
    /// assert_eq!(rows, [2, 1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn batch_size(mut self, rows: usize) -> Self {
        self.batch_size = rows;
        self
    }

    /// Of the columns the header and sample make (every one, or those of
    /// [`ArrowOptions::columns`]), hand out only these, by output name, in
    /// this order: a query engine's projection. The header and sample are
    /// read as without it, so the columns keep the names and types the
    /// whole sheet's schema gives them; past the sample, the other
    /// columns' cells are dropped before they are read into values (as
    /// [`ArrowOptions::columns`] drops them). For a read of one sheet
    /// ([`ArrowOptions::read_sheet`], [`ArrowOptions::sheet_reader`]) the
    /// names are the sheet's columns; for many ([`ArrowOptions::read_files`])
    /// the united ones (a sheet that lacks one reads nulls there), the
    /// file and sheet columns apart (they come with their options). A
    /// name that is not a column is an error. An empty list hands out no
    /// column but the file and sheet columns, with the rows counted.
    ///
    /// ```
    /// use sheetstream::arrow::ArrowOptions;
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let whole = ArrowOptions::new().infer_schema(&mut workbook, "Data")?;
    /// let options = ArrowOptions::new().output_columns(Some(vec!["Amount".to_owned()]));
    /// let mut batches = options.read_sheet(&mut workbook, "Data")?;
    /// let batch = batches.next_batch()?.expect("a batch");
    /// assert_eq!(batch.num_columns(), 1);
    /// assert_eq!(batch.schema().field(0), whole.field_with_name("Amount").unwrap());
    /// assert_eq!(batches.report().cells, 3);
    /// # Ok(())
    /// # }
    /// ```
    pub fn output_columns(mut self, names: Option<Vec<String>>) -> Self {
        self.output_columns = names;
        self
    }

    /// The batch size in effect.
    pub fn get_batch_size(&self) -> usize {
        self.batch_size.max(1)
    }

    /// Adds a `Utf8` column of this name holding the file's path (readers
    /// over many files) first in every batch.
    pub fn file_column(mut self, name: Option<impl Into<String>>) -> Self {
        self.file_column = name.map(Into::into);
        self
    }

    /// Adds a `Utf8` column of this name holding the sheet's name, after
    /// the file column if there is one.
    pub fn sheet_column(mut self, name: Option<impl Into<String>>) -> Self {
        self.sheet_column = name.map(Into::into);
        self
    }

    /// Reading many sheets: match columns by name across sheets and
    /// files (missing ones null, conflicting types promoted by the
    /// inference rules) instead of requiring one schema.
    pub fn union_by_name(mut self, union: bool) -> Self {
        self.union_by_name = union;
        self
    }

    /// Reading many sheets: skip a sheet that cannot be read and report it
    /// instead of failing (the default is to fail on the first one).
    pub fn skip_unreadable(mut self, skip: bool) -> Self {
        self.skip_unreadable = skip;
        self
    }

    /// The threads that read (0, the default: one per core). Many sheets
    /// are read on this many at once; one sheet is read on two (inflate
    /// and scan, see [`ArrowOptions::sheet_reader`]) where there are two,
    /// and on one when this is 1: a reader that already runs one per core
    /// (a Spark task on each) spends about 4% less CPU a sheet so.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// How many of a batch's issues its [`BatchReport`](super::BatchReport)
    /// describes (default [`MAX_ISSUES_PER_BATCH`](super::MAX_ISSUES_PER_BATCH));
    /// past that only the counts grow. A consumer that must find every bad
    /// cell of a batch (a Spark reader marking or dropping rows) sets it to
    /// the batch's cell count at most.
    pub fn issues_per_batch(mut self, issues: usize) -> Self {
        self.issues_per_batch = issues;
        self
    }

    /// A sheet that cannot be read to its end (a damaged part after some
    /// rows): with `true`, the rows read before the damage come out as one
    /// last, shorter batch and the error follows at the next call; with
    /// `false` (the default) the error comes at once and the batch being
    /// filled is dropped. Damage within the header or the schema sample
    /// fails the open either way.
    pub fn keep_rows_before_error(mut self, keep: bool) -> Self {
        self.keep_rows_before_error = keep;
        self
    }

    // Hand-made sheets (issue 26): merged cells, hidden rows and columns,
    // empty rows and columns.

    /// Gives every cell of a merged range the value of its top-left
    /// (anchor) cell, along rows and down columns (default: off; only the
    /// anchor holds the value, as the file stores it). The sheet's merged
    /// ranges are read before its rows (they follow the cells in the
    /// part: for `.xlsx` and `.xlsb` a pass over the sheet's part that
    /// skips the cells unread; for `.xls` over the sheet's records); memory
    /// holds the ranges and the anchors' values, and the rows a range
    /// fills between two rows the sheet writes (at most
    /// [`Limits::max_row_bytes`](crate::Limits::max_row_bytes) of them: a
    /// larger block is a limit error). A sheet without merged ranges is
    /// then read as without the option.
    pub fn fill_merged(mut self, fill: bool) -> Self {
        self.fill_merged = fill;
        self
    }

    /// Leaves out the rows Excel marks hidden, also those an autofilter
    /// hides (marked the same way) and, in a sheet whose unused rows are
    /// hidden, every row it does not write (default: off). Each row event
    /// says whether its row is hidden ([`Row::is_hidden`](crate::Row::is_hidden)):
    /// hidden rows are left out as they stream, with no pass of their own
    /// (a hidden row without cells is handed out too, empty, in every
    /// format, so it is left out, not a row of nulls); each batch's [`BatchReport::hidden_rows_skipped`](super::BatchReport::hidden_rows_skipped)
    /// counts those left out.
    pub fn skip_hidden_rows(mut self, skip: bool) -> Self {
        self.skip_hidden_rows = skip;
        self
    }

    /// Leaves out the columns Excel marks hidden (default: off): no output
    /// column for them, their cells dropped.
    pub fn skip_hidden_columns(mut self, skip: bool) -> Self {
        self.skip_hidden_columns = skip;
        self
    }

    /// Leaves out the empty rows between data rows (default: off, they are
    /// rows of nulls, so that rows stay where Excel has them; polars'
    /// `drop_empty_rows` defaults to on).
    pub fn drop_empty_rows(mut self, drop: bool) -> Self {
        self.drop_empty_rows = drop;
        self
    }

    /// Leaves out the columns without a header name and without a value in
    /// the sample (default: off, they are `Null` columns named
    /// `column_N`; polars' `drop_empty_cols` defaults to on). A value
    /// later in such a column is a misfit as any cell outside the columns
    /// is ([`OnMismatch`]): no value is lost.
    pub fn drop_empty_cols(mut self, drop: bool) -> Self {
        self.drop_empty_cols = drop;
        self
    }

    /// Ends the table at its first empty row after the header (a row
    /// without a value in any column; hidden rows left out by
    /// [`ArrowOptions::skip_hidden_rows`] do not count): what follows (a
    /// second table, notes) is not read (default: off). DuckDB's
    /// `read_xlsx` calls this `stop_at_empty`.
    pub fn stop_at_empty_row(mut self, stop: bool) -> Self {
        self.stop_at_empty_row = stop;
        self
    }

    /// Whether any option of the hand-made sheets needs the shaped
    /// prelude (merges, hidden rows or columns, a header of several rows
    /// or found past titles).
    pub(crate) fn is_shaped(&self) -> bool {
        self.fill_merged
            || self.skip_hidden_rows
            || self.skip_hidden_columns
            || self.stop_at_empty_row
            || self.header.is_shaped()
    }

    // Tables and ranges.

    /// Reads only this range of the sheet (see [`SheetRange`] for `B3:F100`,
    /// `A5:`, `B:F`, `Sheet1!B3:F100`): its first row is the header (its
    /// first row not skipped with [`ArrowOptions::skip_rows`], which counts
    /// from the sheet's row 1; unless [`ArrowOptions::header`] says another
    /// row, or none), rows above it
    /// are skipped, columns outside it are never resolved, and reading
    /// stops after its last row. A sheet named in the range must be the
    /// sheet read. Letters and positions in [`ArrowOptions::columns`]
    /// still count from the sheet's column A.
    ///
    /// ```
    /// use sheetstream::arrow::ArrowOptions;
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let options = ArrowOptions::new().range(Some("Data!A1:B3".parse()?));
    /// let (schema, batches) = options.read_sheet_table(&mut workbook, "Data")?;
    /// let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
    /// assert_eq!(names, ["Item", "Amount"]);
    /// assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 2);
    /// # Ok(())
    /// # }
    /// ```
    pub fn range(mut self, range: Option<SheetRange>) -> Self {
        self.range = range;
        self
    }

    /// Reads the Excel table (ListObject) of this name (case-insensitive)
    /// instead of a sheet's used cells: its columns named by the table's
    /// definition, its rows from below its header to its last data row
    /// (the totals row left out unless
    /// [`ArrowOptions::include_totals_row`]), only its columns resolved and
    /// reading stopped after its last row. The sheet read must be the
    /// table's ([`ArrowOptions::read_table`] finds it). An unknown name is
    /// an [`ErrorKind::TableNotFound`](crate::ErrorKind::TableNotFound)
    /// error listing the workbook's tables. Overrides
    /// [`ArrowOptions::range`] and the header options.
    pub fn table(mut self, name: Option<impl Into<String>>) -> Self {
        self.table = name.map(Into::into);
        self
    }

    /// Reading a table: keep its totals row as the last row (default:
    /// left out).
    pub fn include_totals_row(mut self, include: bool) -> Self {
        self.include_totals_row = include;
        self
    }

    /// The table these options read ([`ArrowOptions::table`]), if any.
    pub fn get_table(&self) -> Option<&str> {
        self.table.as_deref()
    }

    /// The range these options read ([`ArrowOptions::range`]), if any.
    pub fn get_range(&self) -> Option<&SheetRange> {
        self.range.as_ref()
    }
}
