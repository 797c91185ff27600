//! Rows deserialised into your own types with serde (feature `serde`, on
//! by default).
//!
//! Read this first: [`Records`] pulls rows from the streaming reader and
//! copies each row's cells into one reused record (a cell list and one text
//! buffer, so nothing is allocated per row once they have grown), then
//! deserialises the requested type from that record. Borrowed fields
//! (`&str`) point into the record, so a value borrows the reader until the
//! next call. Copying first lets the reader skip rows (the header, empty
//! rows) before deciding which row to hand out, which a borrow of the
//! stream itself would not allow.
//!
//! Structs map by header name (the first row by default), or by position
//! when there is no header; tuples and sequences always map by position.
//!
//! Each row is copied into one reused record first, so that rows can be
//! skipped before one is handed out; with `DeserializeOptions::formatted`,
//! each cell's displayed text too, for string fields.

use std::any::type_name;
use std::fmt;
use std::io::{Read, Seek};

use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Unexpected,
    Visitor,
};

use crate::cell::{Row, Value, column_name};
use crate::contract::SheetRows;
use crate::date::DateTime;
use crate::error::{Error, ErrorKind, Result};
use crate::format::NumberFormats;
use crate::workbook::{SheetSelector, Workbook};

/// Where the header is and which columns the records start at. The
/// default: the header is the first row (row 0), records start at column A.
///
/// ```
/// use sheetstream::DeserializeOptions;
///
/// // Header in row 3 (0-based 2), table starting at column B (1).
/// let options = DeserializeOptions::new().header_row(2).column_offset(1);
/// // No header: struct fields map to columns by position.
/// let positional = DeserializeOptions::new().no_header();
/// # let _ = (options, positional);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeserializeOptions {
    header_row: Option<u32>,
    column_offset: u32,
    formatted: bool,
}

impl Default for DeserializeOptions {
    fn default() -> Self {
        DeserializeOptions {
            header_row: Some(0),
            column_offset: 0,
            formatted: false,
        }
    }
}

impl DeserializeOptions {
    /// The default options: header in the first row, from column A.
    pub fn new() -> DeserializeOptions {
        DeserializeOptions::default()
    }

    /// The header is in this row (0-based); rows above it are skipped and
    /// records start below it.
    pub fn header_row(mut self, row: u32) -> DeserializeOptions {
        self.header_row = Some(row);
        self
    }

    /// There is no header: every row is a record, and struct fields map to
    /// columns in declaration order.
    pub fn no_header(mut self) -> DeserializeOptions {
        self.header_row = None;
        self
    }

    /// Columns left of this one (0-based) are ignored: by position, the
    /// first field is this column.
    pub fn column_offset(mut self, column: u32) -> DeserializeOptions {
        self.column_offset = column;
        self
    }

    /// With `true`, `String` and `&str` fields get each cell's text as
    /// Excel shows it through its number format
    /// ([`Cell::formatted_into`](crate::Cell::formatted_into)): `501` in
    /// `00000` is `"00501"`, `0.125` in `0.0%` is `"12.5%"`. Fields of
    /// other types (numbers, booleans, dates, `Option`s of them) get the
    /// value as without it. Off by default: a `String` field then gets the
    /// text the CSV writes (`"501"`).
    ///
    /// ```
    /// use sheetstream::DeserializeOptions;
    ///
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let options = DeserializeOptions::new().formatted(true);
    /// let rows: Vec<(String, f64, String)> =
    ///     workbook.deserialize_with("Data", options)?.iter().collect::<Result<_, _>>()?;
    /// // The date shows through its format, `yyyy-mm-dd`; the number stays a number.
    /// assert_eq!(rows[0], ("apples".to_owned(), 10.0, "2024-03-01".to_owned()));
    /// # Ok(())
    /// # }
    /// ```
    pub fn formatted(mut self, formatted: bool) -> DeserializeOptions {
        self.formatted = formatted;
        self
    }
}

/// A row's cells, copied out of the stream. Reused from row to row.
#[derive(Debug, Default)]
struct Record {
    index: u32,
    /// (column, value, where its formatted text lies in `text` when asked
    /// for) sorted by column, no duplicates.
    cells: Vec<StoredCell>,
    text: String,
}

/// A cell of a [`Record`]: its column, value, and where its formatted text
/// lies in the record's text (with [`DeserializeOptions::formatted`]).
type StoredCell = (u32, Slot, Option<(usize, usize)>);

#[derive(Debug, Clone, Copy)]
enum Slot {
    Number(f64),
    Bool(bool),
    Text(usize, usize),
    Error(usize, usize),
    DateTime(DateTime),
}

impl Record {
    /// Copies the cells of `row` at or right of `offset`, with their text
    /// through `formats` when given.
    fn fill(&mut self, row: Row<'_>, offset: u32, formats: Option<&NumberFormats>) {
        self.index = row.index();
        self.cells.clear();
        self.text.clear();
        let mut sorted = true;
        for cell in row.cells() {
            if cell.column() < offset {
                continue;
            }
            let mut text = |text: &str| {
                let start = self.text.len();
                self.text.push_str(text);
                (start, text.len())
            };
            let slot = match cell.value() {
                Value::Number(number) => Slot::Number(number),
                Value::Bool(flag) => Slot::Bool(flag),
                Value::DateTime(date) => Slot::DateTime(date),
                Value::Text(value) => {
                    let (start, len) = text(value);
                    Slot::Text(start, len)
                }
                Value::Error(value) => {
                    let (start, len) = text(value);
                    Slot::Error(start, len)
                }
            };
            if self
                .cells
                .last()
                .is_some_and(|(last, _, _)| *last >= cell.column())
            {
                sorted = false;
            }
            let formatted = formats.map(|formats| {
                let start = self.text.len();
                cell.formatted_into(formats, &mut self.text);
                (start, self.text.len() - start)
            });
            self.cells.push((cell.column(), slot, formatted));
        }
        if !sorted {
            // Rare: cells out of order or repeated. The later one wins.
            self.cells.reverse();
            self.cells.sort_by_key(|(column, _, _)| *column);
            self.cells.dedup_by_key(|(column, _, _)| *column);
        }
    }

    fn value(&self, slot: Slot) -> Value<'_> {
        match slot {
            Slot::Number(number) => Value::Number(number),
            Slot::Bool(flag) => Value::Bool(flag),
            Slot::Text(start, len) => Value::Text(&self.text[start..start + len]),
            Slot::Error(start, len) => Value::Error(&self.text[start..start + len]),
            Slot::DateTime(date) => Value::DateTime(date),
        }
    }

    /// A deserialiser of one stored cell.
    fn cell(
        &self,
        (_, slot, formatted): (u32, Slot, Option<(usize, usize)>),
    ) -> CellDeserializer<'_> {
        CellDeserializer {
            value: Some(self.value(slot)),
            formatted: formatted.map(|(start, len)| &self.text[start..start + len]),
        }
    }
}

/// Rows of a sheet deserialised into your types, one at a time. Get one
/// from [`Workbook::deserialize`] or [`Workbook::deserialize_with`].
///
/// Rows without cells (in the columns read) are skipped. Each value may
/// borrow text from the reader (`&str` fields), until the next call.
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// struct Sale<'a> {
///     #[serde(rename = "Item")]
///     item: &'a str,
///     #[serde(rename = "Amount")]
///     amount: u32,
///     #[serde(rename = "Sold on")]
///     sold_on: String,
///     #[serde(rename = "In stock")]
///     in_stock: bool,
///     #[serde(rename = "Doubled")]
///     doubled: Option<f64>,
/// }
///
/// # fn main() -> Result<(), sheetstream::Error> {
/// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// let mut records = workbook.deserialize("Data")?;
/// let first: Sale = records.next_row()?.expect("a record");
/// assert_eq!((first.item, first.amount, first.in_stock), ("apples", 10, true));
/// // A date into a String: the text the CSV writes.
/// assert_eq!(first.sold_on, "2024-03-01");
/// assert_eq!(first.doubled, Some(20.0));
/// let second: Sale = records.next_row()?.expect("a record");
/// assert_eq!((second.item, second.doubled), ("pears", None));
/// drop(records);
///
/// // By position, as tuples, and owned: an iterator.
/// let rows: Vec<(String, f64)> = workbook.deserialize("Data")?.iter().collect::<Result<_, _>>()?;
/// assert_eq!(rows[2], ("plums".to_owned(), 30.0));
/// # Ok(())
/// # }
/// ```
pub struct Records<'w> {
    rows: SheetRows<'w>,
    sheet: String,
    options: DeserializeOptions,
    /// The workbook's number formats, with [`DeserializeOptions::formatted`].
    formats: Option<NumberFormats>,
    /// (column, name), by column.
    headers: Option<Vec<(u32, String)>>,
    record: Record,
    /// The record holds a row read ahead that is still to be handed out.
    pending: bool,
}

impl<R: Read + Seek> Workbook<R> {
    /// Reads the rows of a sheet as values of your types, with the default
    /// [`DeserializeOptions`]: the header is the first row.
    ///
    /// # Errors
    ///
    /// As [`Workbook::deserialize_with`].
    pub fn deserialize(&mut self, sheet: impl SheetSelector) -> Result<Records<'_>> {
        self.deserialize_with(sheet, DeserializeOptions::new())
    }

    /// Reads the rows of a sheet as values of your types. The header row,
    /// when there is one, is read now.
    ///
    /// # Errors
    ///
    /// As [`Workbook::rows`]; reading the header row may fail as
    /// [`SheetRows::next_row`] does, and a sheet whose first row at or
    /// below the header row is not the header row has no header.
    pub fn deserialize_with(
        &mut self,
        sheet: impl SheetSelector,
        options: DeserializeOptions,
    ) -> Result<Records<'_>> {
        let position = sheet.position(self.sheets())?;
        let name = self.sheets()[position].name().to_owned();
        let formats = options.formatted.then(|| self.number_formats().clone());
        let rows = self.rows(position)?;
        let mut records = Records {
            rows,
            sheet: name,
            options,
            formats,
            headers: None,
            record: Record::default(),
            pending: false,
        };
        if let Some(header_row) = options.header_row {
            records.read_header(header_row)?;
        }
        Ok(records)
    }
}

impl<'w> Records<'w> {
    fn read_header(&mut self, header_row: u32) -> Result<()> {
        let mut headers = Vec::new();
        while let Some(row) = self.rows.next_row()? {
            if row.index() < header_row {
                continue;
            }
            if row.index() > header_row {
                return Err(Error::new(ErrorKind::Deserialize {
                    field: None,
                    message: format!(
                        "the header row {} is missing (the first row below it is {})",
                        u64::from(header_row) + 1,
                        u64::from(row.index()) + 1
                    ),
                })
                .with_sheet(&self.sheet));
            }
            self.record.fill(row, self.options.column_offset, None);
            for &(column, slot, _) in &self.record.cells {
                let name = match self.record.value(slot) {
                    Value::Text(text) | Value::Error(text) => text.to_owned(),
                    other => owned_text(other),
                };
                if !name.is_empty() {
                    headers.push((column, name));
                }
            }
            break;
        }
        self.headers = Some(headers);
        Ok(())
    }

    /// The header names with their columns (0-based), left to right; empty
    /// without a header.
    pub fn headers(&self) -> impl Iterator<Item = (u32, &str)> {
        self.headers
            .iter()
            .flatten()
            .map(|(column, name)| (*column, name.as_str()))
    }

    /// The next record, or `None` after the last row. The value may borrow
    /// text from the reader until the next call.
    ///
    /// # Errors
    ///
    /// As [`SheetRows::next_row`], or
    /// [`ErrorKind::Deserialize`] when the row does not fit `T`: the
    /// error's location names the sheet, row and column, its kind the field.
    /// After a deserialisation error the next call reads the next row.
    pub fn next_row<'de, T: Deserialize<'de>>(&'de mut self) -> Result<Option<T>> {
        loop {
            if !self.pending {
                let Some(row) = self.rows.next_row()? else {
                    return Ok(None);
                };
                if self
                    .options
                    .header_row
                    .is_some_and(|header| row.index() <= header)
                {
                    continue;
                }
                self.record
                    .fill(row, self.options.column_offset, self.formats.as_ref());
            }
            self.pending = false;
            if !self.record.cells.is_empty() {
                break;
            }
        }
        let row = RowDeserializer {
            record: &self.record,
            headers: self.headers.as_deref(),
            offset: self.options.column_offset,
        };
        match T::deserialize(row) {
            Ok(value) => Ok(Some(value)),
            Err(err) => Err(self.locate(err)),
        }
    }

    /// The records as owned values, through an iterator.
    pub fn iter<T: DeserializeOwned>(&mut self) -> impl Iterator<Item = Result<T>> + '_ {
        std::iter::from_fn(move || self.next_row::<T>().transpose())
    }

    /// The index (0-based) of the row last read.
    pub fn row_index(&self) -> u32 {
        self.record.index
    }

    fn locate(&self, err: DeError) -> Error {
        let column = err.column.or_else(|| {
            let field = err.field.as_deref()?;
            self.headers()
                .find(|(_, name)| *name == field)
                .map(|(column, _)| column)
        });
        let error = Error::new(ErrorKind::Deserialize {
            field: err.field,
            message: err.message,
        })
        .with_sheet(&self.sheet)
        .with_row(self.record.index + 1);
        match column {
            Some(column) => error.with_column(column + 1),
            None => error,
        }
    }
}

/// The error serde works with inside one row; [`Records::next_row`] turns
/// it into an [`Error`] with the sheet and row.
#[derive(Debug)]
struct DeError {
    message: String,
    field: Option<String>,
    column: Option<u32>,
}

impl DeError {
    fn at(mut self, field: Option<&str>, column: u32) -> DeError {
        if self.field.is_none() {
            self.field = field.map(str::to_owned);
        }
        self.column.get_or_insert(column);
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        DeError {
            message: message.to_string(),
            field: None,
            column: None,
        }
    }

    fn missing_field(field: &'static str) -> Self {
        DeError {
            message: "the cell is empty or the column is missing (an Option field allows that)"
                .to_owned(),
            field: Some(field.to_owned()),
            column: None,
        }
    }
}

/// A number as a spreadsheet shows it: whole numbers without a fraction.
fn number_text(number: f64) -> String {
    if number.fract() == 0.0 && number.abs() < 1e15 {
        format!("{}", number as i64)
    } else {
        number.to_string()
    }
}

/// Any value as text: what a `String` field gets from a non-text cell.
fn owned_text(value: Value<'_>) -> String {
    match value {
        Value::Number(number) => number_text(number),
        Value::Text(text) | Value::Error(text) => text.to_owned(),
        Value::Bool(true) => "TRUE".to_owned(),
        Value::Bool(false) => "FALSE".to_owned(),
        Value::DateTime(date) => date.to_string(),
    }
}

/// Deserializer methods of a row that read the cell in its first column.
macro_rules! first_cell {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
                let offset = self.offset;
                de::Deserializer::$method(self.first_cell(), visitor)
                    .map_err(|err| err.at(None, offset))
            }
        )*
    };
}

/// One row: a map by header name, or a sequence by position.
struct RowDeserializer<'de> {
    record: &'de Record,
    headers: Option<&'de [(u32, String)]>,
    offset: u32,
}

impl<'de> RowDeserializer<'de> {
    fn positions(
        &self,
        count: Option<usize>,
        fields: Option<&'static [&'static str]>,
    ) -> Positions<'de> {
        let end = match count {
            Some(count) => u64::from(self.offset) + count as u64,
            None => self
                .record
                .cells
                .last()
                .map_or(u64::from(self.offset), |(column, _, _)| {
                    u64::from(*column) + 1
                }),
        };
        Positions {
            record: self.record,
            column: u64::from(self.offset),
            end,
            cursor: 0,
            fields,
            offset: self.offset,
        }
    }

    fn first_cell(&self) -> CellDeserializer<'de> {
        self.record
            .cells
            .first()
            .filter(|(column, _, _)| *column == self.offset)
            .map_or(CellDeserializer::EMPTY, |&cell| self.record.cell(cell))
    }
}

impl<'de> de::Deserializer<'de> for RowDeserializer<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.headers {
            Some(_) => self.deserialize_map(visitor),
            None => self.deserialize_seq(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.headers {
            Some(headers) => visitor.visit_map(ByHeader {
                record: self.record,
                headers,
                header: 0,
                cursor: 0,
                value: None,
            }),
            None => visitor.visit_seq(self.positions(Some(fields.len()), Some(fields))),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.headers {
            Some(headers) => visitor.visit_map(ByHeader {
                record: self.record,
                headers,
                header: 0,
                cursor: 0,
                value: None,
            }),
            None => visitor.visit_map(ByColumnName {
                record: self.record,
                cursor: 0,
            }),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_seq(self.positions(None, None))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_seq(self.positions(Some(len), None))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_seq(self.positions(Some(len), None))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    // A single value: the cell in the first column.
    first_cell! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let offset = self.offset;
        de::Deserializer::deserialize_enum(self.first_cell(), name, variants, visitor)
            .map_err(|err| err.at(None, offset))
    }
}

/// A struct or map by header name: the headers that have a cell.
struct ByHeader<'de> {
    record: &'de Record,
    headers: &'de [(u32, String)],
    header: usize,
    cursor: usize,
    value: Option<(CellDeserializer<'de>, u32, &'de str)>,
}

impl<'de> MapAccess<'de> for ByHeader<'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let cells = &self.record.cells;
        while let Some((column, name)) = self.headers.get(self.header) {
            self.header += 1;
            while self.cursor < cells.len() && cells[self.cursor].0 < *column {
                self.cursor += 1;
            }
            if let Some(&cell) = cells.get(self.cursor)
                && cell.0 == *column
            {
                self.value = Some((self.record.cell(cell), *column, name));
                return seed
                    .deserialize(BorrowedStrDeserializer::new(name.as_str()))
                    .map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let (value, column, name) = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("a value asked for before its key"))?;
        seed.deserialize(value)
            .map_err(|err| err.at(Some(name), column))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.headers.len() - self.header)
    }
}

/// A map without a header: keys are column letters.
struct ByColumnName<'de> {
    record: &'de Record,
    cursor: usize,
}

impl<'de> MapAccess<'de> for ByColumnName<'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((column, _, _)) = self.record.cells.get(self.cursor) else {
            return Ok(None);
        };
        let mut letters = [0u8; 3];
        let name = column_name(*column, &mut letters).to_owned();
        seed.deserialize(StringDeserializer::new(name)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let cell = self.record.cells[self.cursor];
        self.cursor += 1;
        seed.deserialize(self.record.cell(cell))
            .map_err(|err| err.at(None, cell.0))
    }
}

/// A sequence of the cells from the first column on, empty cells included.
struct Positions<'de> {
    record: &'de Record,
    column: u64,
    end: u64,
    cursor: usize,
    fields: Option<&'static [&'static str]>,
    offset: u32,
}

impl<'de> SeqAccess<'de> for Positions<'de> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        if self.column >= self.end || self.column > u64::from(crate::MAX_COLUMN) {
            return Ok(None);
        }
        let column = self.column as u32;
        self.column += 1;
        let cells = &self.record.cells;
        while self.cursor < cells.len() && cells[self.cursor].0 < column {
            self.cursor += 1;
        }
        let value = match cells.get(self.cursor) {
            Some(&cell) if cell.0 == column => self.record.cell(cell),
            _ => CellDeserializer::EMPTY,
        };
        let field = self
            .fields
            .and_then(|fields| fields.get((column - self.offset) as usize).copied());
        seed.deserialize(value)
            .map(Some)
            .map_err(|err| err.at(field, column))
    }

    fn size_hint(&self) -> Option<usize> {
        usize::try_from(self.end.saturating_sub(self.column)).ok()
    }
}

/// One cell's value (`None`: the cell is empty).
struct CellDeserializer<'de> {
    value: Option<Value<'de>>,
    /// The cell's text through its number format, with
    /// [`DeserializeOptions::formatted`]: what string fields get.
    formatted: Option<&'de str>,
}

impl CellDeserializer<'_> {
    /// An empty cell.
    const EMPTY: CellDeserializer<'static> = CellDeserializer {
        value: None,
        formatted: None,
    };
}

/// What a value is, for error messages.
fn describe(value: Option<Value<'_>>) -> String {
    match value {
        None => "an empty cell".to_owned(),
        Some(Value::Number(number)) => format!("the number {}", number_text(number)),
        Some(Value::Text(text)) => format!("the text {text:?}"),
        Some(Value::Bool(flag)) => format!("the boolean {}", if flag { "TRUE" } else { "FALSE" }),
        Some(Value::Error(text)) => format!("the error value {text}"),
        Some(value @ Value::DateTime(_)) => format!("the date {}", owned_text(value)),
    }
}

impl<'de> CellDeserializer<'de> {
    fn unexpected<V: Visitor<'de>>(&self, visitor: &V) -> DeError {
        let found = describe(self.value);
        de::Error::invalid_type(Unexpected::Other(&found), visitor)
    }

    fn integer<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let number = match self.value {
            Some(Value::Number(number)) => number,
            Some(Value::DateTime(date)) => date.serial(),
            Some(Value::Text(text)) => {
                let trimmed = text.trim();
                if let Ok(number) = trimmed.parse::<u64>() {
                    return visitor.visit_u64(number);
                }
                if let Ok(number) = trimmed.parse::<i64>() {
                    return visitor.visit_i64(number);
                }
                return Err(self.unexpected(&visitor));
            }
            _ => return Err(self.unexpected(&visitor)),
        };
        if number.fract() != 0.0 || !number.is_finite() {
            return Err(de::Error::invalid_value(
                Unexpected::Float(number),
                &visitor,
            ));
        }
        if (0.0..18_446_744_073_709_551_616.0).contains(&number) {
            visitor.visit_u64(number as u64)
        } else if (-9_223_372_036_854_775_808.0..0.0).contains(&number) {
            visitor.visit_i64(number as i64)
        } else {
            Err(de::Error::invalid_value(
                Unexpected::Float(number),
                &visitor,
            ))
        }
    }

    fn float<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Some(Value::Number(number)) => visitor.visit_f64(number),
            Some(Value::DateTime(date)) => visitor.visit_f64(date.serial()),
            Some(Value::Text(text)) => match text.trim().parse::<f64>() {
                Ok(number) => visitor.visit_f64(number),
                Err(_) => Err(self.unexpected(&visitor)),
            },
            _ => Err(self.unexpected(&visitor)),
        }
    }

    fn text<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Some(Value::Text(text) | Value::Error(text)) => visitor.visit_borrowed_str(text),
            Some(Value::DateTime(date)) => match date.to_civil() {
                Some(civil) => match dates::text_for::<V>(date, civil) {
                    Ok(text) => visitor.visit_string(text),
                    Err(message) => Err(de::Error::custom(message)),
                },
                // A negative duration still has its text; a serial with no
                // date or time to show is its number.
                None if date.kind() == crate::date::DateTimeKind::Duration => {
                    visitor.visit_string(date.to_string())
                }
                None => visitor.visit_string(number_text(date.serial())),
            },
            Some(value) => visitor.visit_string(owned_text(value)),
            None => Err(self.unexpected(&visitor)),
        }
    }
}

impl<'de> de::Deserializer<'de> for CellDeserializer<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            None => visitor.visit_unit(),
            Some(Value::Number(number)) => visitor.visit_f64(number),
            Some(Value::Bool(flag)) => visitor.visit_bool(flag),
            Some(_) => self.text(visitor),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Some(Value::Bool(flag)) => visitor.visit_bool(flag),
            Some(Value::Text(text)) if text.trim().eq_ignore_ascii_case("true") => {
                visitor.visit_bool(true)
            }
            Some(Value::Text(text)) if text.trim().eq_ignore_ascii_case("false") => {
                visitor.visit_bool(false)
            }
            _ => Err(self.unexpected(&visitor)),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.integer(visitor)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.float(visitor)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.float(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.text(visitor)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.formatted {
            Some(text) => visitor.visit_borrowed_str(text),
            None => self.text(visitor),
        }
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.text(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Some(Value::Text(text)) => visitor.visit_borrowed_bytes(text.as_bytes()),
            _ => self.text(visitor),
        }
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            None | Some(Value::Text("")) => visitor.visit_none(),
            Some(_) => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            None | Some(Value::Text("")) => visitor.visit_unit(),
            Some(_) => Err(self.unexpected(&visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.value {
            Some(Value::Text(text)) => visitor.visit_enum(text.into_deserializer()),
            _ => Err(self.unexpected(&visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        Err(self.unexpected(&visitor))
    }
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        Err(self.unexpected(&visitor))
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        Err(self.unexpected(&visitor))
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        Err(self.unexpected(&visitor))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        Err(self.unexpected(&visitor))
    }
}

/// The text a date cell gives a string target: the ISO date and time, or,
/// with the `chrono` or `jiff` feature, only the date or only the time when
/// the target is one of their date-only or time-only types.
mod dates {
    use super::*;
    use crate::date::CivilDateTime;

    /// What part of a date a target type wants.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[cfg_attr(not(any(feature = "chrono", feature = "jiff")), allow(dead_code))]
    enum Wanted {
        Date,
        Time,
        DateTime,
        /// Anything else (`String`, `&str`, your own type): the text the
        /// CSV writes.
        Text,
    }

    /// The text a date cell gives the visitor: what the CSV writes (the
    /// date alone at midnight) for a `String` or a date-time type; the date
    /// for a date-only type, refused when the cell has a time of day (it
    /// would be cut silently); the time for a time-only type.
    pub(super) fn text_for<'de, V: Visitor<'de>>(
        date: crate::date::DateTime,
        civil: CivilDateTime,
    ) -> Result<String, String> {
        let full = civil.to_string();
        match wanted(type_name::<V>()) {
            Wanted::Text => Ok(date.to_string()),
            Wanted::DateTime => Ok(full),
            Wanted::Date if !civil.is_midnight() => Err(format!(
                "the date-time {full} has a time of day, which a date-only field would drop; \
                 deserialise it into a date-time type and take its date"
            )),
            Wanted::Date => Ok(full
                .split_once('T')
                .map_or(full.clone(), |(date, _)| date.to_owned())),
            Wanted::Time => Ok(full
                .split_once('T')
                .map_or(full.clone(), |(_, time)| time.to_owned())),
        }
    }

    #[cfg(not(any(feature = "chrono", feature = "jiff")))]
    fn wanted(_visitor: &str) -> Wanted {
        Wanted::Text
    }

    /// Compares the visitor with the ones the date-only and time-only types
    /// of chrono and jiff use, found once by asking each type to
    /// deserialise from a probe that records its visitor's type name.
    #[cfg(any(feature = "chrono", feature = "jiff"))]
    fn wanted(visitor: &str) -> Wanted {
        use std::sync::OnceLock;
        static KNOWN: OnceLock<Vec<(&'static str, Wanted)>> = OnceLock::new();
        let known = KNOWN.get_or_init(|| {
            let mut known = Vec::new();
            #[cfg(feature = "chrono")]
            {
                known.extend(probe::<chrono::NaiveDate>().map(|name| (name, Wanted::Date)));
                known.extend(probe::<chrono::NaiveTime>().map(|name| (name, Wanted::Time)));
                known.extend(probe::<chrono::NaiveDateTime>().map(|name| (name, Wanted::DateTime)));
            }
            #[cfg(feature = "jiff")]
            {
                known.extend(probe::<jiff::civil::Date>().map(|name| (name, Wanted::Date)));
                known.extend(probe::<jiff::civil::Time>().map(|name| (name, Wanted::Time)));
                known.extend(probe::<jiff::civil::DateTime>().map(|name| (name, Wanted::DateTime)));
            }
            known
        });
        known
            .iter()
            .find(|(name, _)| *name == visitor)
            .map_or(Wanted::Text, |(_, wanted)| *wanted)
    }

    /// The type name of the visitor `T` hands its deserializer.
    #[cfg(any(feature = "chrono", feature = "jiff"))]
    fn probe<T: DeserializeOwned>() -> Option<&'static str> {
        struct Probe;
        #[derive(Debug)]
        struct Found(Option<&'static str>);
        impl fmt::Display for Found {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("probe")
            }
        }
        impl std::error::Error for Found {}
        impl de::Error for Found {
            fn custom<M: fmt::Display>(_message: M) -> Self {
                Found(None)
            }
        }
        impl<'de> de::Deserializer<'de> for Probe {
            type Error = Found;
            fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Found> {
                Err(Found(Some(type_name::<V>())))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf option unit unit_struct newtype_struct seq tuple
                tuple_struct map struct enum identifier ignored_any
            }
        }
        match T::deserialize(Probe) {
            Err(Found(name)) => name,
            Ok(_) => None,
        }
    }
}
