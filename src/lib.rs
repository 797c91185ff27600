//! Streaming reader for Excel `.xlsx` and `.xlsb` workbooks.
//!
//! sheetstream reads a worksheet's XML (an `.xlsb` sheet's binary records)
//! straight out of the inflate stream
//! and hands each row to you as borrowed events: text points into the scan
//! buffer or the shared strings table, numbers are parsed from the bytes in
//! place, and per-row scratch lives in an arena reset between rows. Nothing
//! is allocated per cell, and memory follows the largest row plus the shared
//! strings, never the size of the sheet.
//!
//! # Quick start
//!
//! ```
//! use sheetstream::{Value, Workbook};
//!
//! # fn main() -> Result<(), sheetstream::Error> {
//! let mut workbook = Workbook::open("examples/data/sales.xlsx")?;
//! for sheet in workbook.sheets() {
//!     println!("{} ({:?})", sheet.name(), sheet.kind());
//! }
//!
//! // Sum column B of the sheet named "Data", skipping the header row.
//! let mut total = 0.0;
//! workbook.for_each_row("Data", |row| {
//!     if let Some(Value::Number(amount)) = row.get(1).map(|cell| cell.value()) {
//!         total += amount;
//!     }
//! })?;
//! assert_eq!(total, 60.0);
//!
//! // Or pull rows one at a time, stopping whenever you like.
//! let mut rows = workbook.rows(0)?;
//! let header = rows.next_row()?.expect("a header row");
//! assert_eq!(header.cells()[0].value(), Value::Text("Item"));
//! # Ok(())
//! # }
//! ```
//!
//! # Values
//!
//! Each [`Cell`] carries a [`Value`]: a number, text, a boolean, an error
//! code, or a [`DateTime`] when the cell's number format shows a date or
//! time (or the cell is an ISO 8601 `t="d"` cell). A `DateTime` keeps the
//! serial number and the workbook's [`DateSystem`];
//! [`DateTime::to_civil`] converts it to a calendar date and time.
//!
//! # A whole sheet in memory
//!
//! [`Workbook::load_sheet`] builds a [`Sheet`] from the row events (and
//! [`Workbook::load_all`] every worksheet, in parallel): lookups by row and
//! column or by A1 reference, row iteration, the used range, and each
//! cell's text as Excel shows it ([`Sheet::formatted`]). Its memory
//! follows the cells that hold a value, about 11 bytes a cell (15 once a
//! cell has a style other than 0) plus each distinct string once, never the
//! rectangle they span.
//!
//! ```
//! # fn main() -> Result<(), sheetstream::Error> {
//! let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
//! let sheet = workbook.load_sheet("Data")?;
//! assert_eq!(sheet.get_a1("A4"), Some(sheetstream::Value::Text("plums")));
//! assert_eq!(sheet.used_range().map(|r| r.to_string()).as_deref(), Some("A1:E4"));
//! # Ok(())
//! # }
//! ```
//!
//! # Rows as your own types
//!
//! With the `serde` feature (on by default), `Workbook::deserialize`
//! reads rows into your structs by header name, or into tuples by position;
//! `&str` fields borrow from the reader, `Option` fields take empty cells,
//! and an error names the sheet, row, column and field.
//!
//! ```
//! # #[cfg(feature = "serde")]
//! # fn main() -> Result<(), sheetstream::Error> {
//! #[derive(serde::Deserialize)]
//! struct Sale<'a> {
//!     #[serde(rename = "Item")]
//!     item: &'a str,
//!     #[serde(rename = "Amount")]
//!     amount: f64,
//! }
//!
//! let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
//! let mut records = workbook.deserialize("Data")?;
//! let mut total = 0.0;
//! while let Some(sale) = records.next_row::<Sale>()? {
//!     println!("{}: {}", sale.item, sale.amount);
//!     total += sale.amount;
//! }
//! assert_eq!(total, 60.0);
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "serde"))]
//! # fn main() {}
//! ```
//!
//! # Metadata
//!
//! [`Workbook::defined_names`], [`Workbook::sheet_metadata`] (dimension,
//! hidden columns, merged ranges, hyperlinks, comments) and
//! [`Workbook::hidden_rows`] read what streaming readers usually miss,
//! without building the sheet's cells.
//!
//! ```
//! # fn main() -> Result<(), sheetstream::Error> {
//! let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
//! let metadata = workbook.sheet_metadata("Data")?;
//! for link in &metadata.hyperlinks {
//!     println!("{}: {:?}", link.range, link.target);
//! }
//! assert!(workbook.hidden_rows("Data")?.is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! - `serde` (default): `Workbook::deserialize`.
//! - `chrono`, `jiff` (off): date cells deserialise into
//!   `chrono::NaiveDate`/`NaiveDateTime`/`NaiveTime` and
//!   `jiff::civil::Date`/`DateTime`/`Time`, and
//!   `CivilDateTime::to_chrono`/`to_jiff` convert.
//! - `arrow` (off): typed Arrow record batches ([`arrow`] module: schema
//!   inference, column selection as a pushdown, Parquet-ready batches).
//! - `cli` (default): the `sheetstream` command-line tool (turns on `arrow`).
//!
//! # Errors and limits
//!
//! Every failure is an [`Error`] whose [`Location`] names the part, sheet,
//! row, column and byte offset where it applies. Hostile input (ZIP bombs,
//! giant rows, huge shared string tables) is refused by [`Limits`], which
//! can be raised through [`OpenOptions`].
#![deny(missing_docs)]
// `unsafe` in one module only (`ascii.rs`), which allows it.
#![deny(unsafe_code)]

mod archive;
#[cfg(feature = "arrow")]
pub mod arrow;
mod ascii;
mod cell;
mod chunk;
mod columns;
mod compound;
mod contract;
mod count;
mod date;
#[cfg(feature = "serde")]
mod de;
#[cfg(feature = "encryption")]
mod encryption;
mod error;
mod format;
mod formula;
#[cfg(any(feature = "chrono", feature = "jiff"))]
mod interop;
mod limits;
mod metadata;
mod number_format;
mod ods;
mod opc;
mod parallel;
mod range;
mod shared_strings;
mod sheet;
mod source;
mod styles;
mod text;
mod workbook;
mod xls;
mod xlsb;
mod xlsx;
mod xml;

#[doc(hidden)]
pub mod fuzzing;

pub use cell::{Cell, CellRef, MAX_COLUMN, MAX_ROW, Row, Value};
pub use columns::{ColumnSelector, ColumnSet, ColumnSpec};
pub use contract::SheetRows;
pub use count::SheetCounts;
pub use date::{CivilDateTime, DateSystem, DateTime, DateTimeKind};
#[cfg(feature = "serde")]
pub use de::{DeserializeOptions, Records};
pub use error::{Error, ErrorClass, ErrorKind, Location, Result};
pub use format::{NumberFormat, NumberFormats};
pub use limits::Limits;
pub use metadata::{
    Comment, DefinedName, Hyperlink, SheetInfo, SheetKind, SheetMetadata, SheetState, Table,
};
pub use number_format::FormatKind;
pub use parallel::{Parallel, open_workbooks};
pub use range::{CellRange, SheetRange};
pub use shared_strings::SharedStrings;
pub use sheet::{OwnedValue, Sheet, SheetBuilder, SheetRow};
pub use source::SharedFile;
pub use workbook::{
    FileFormat, Integrity, OpenOptions, RowFlow, SheetRef, SheetSelector, WORKBOOK_EXTENSIONS,
    Workbook, workbooks_in,
};
// The guide's Rust examples (docs/src, an mdBook) and the README's run as
// doctests: `cargo test --doc` compiles and runs every `rust` block of
// these pages against the crate as built, so a page cannot drift from the
// API. Compiled for doctests only (the published crate holds no docs/).
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../README.md")]
    mod readme {}
    #[doc = include_str!("../docs/src/library.md")]
    mod library {}
    #[doc = include_str!("../docs/src/formats.md")]
    mod formats {}
    #[doc = include_str!("../docs/src/display-text.md")]
    mod display_text {}
    #[doc = include_str!("../docs/src/typed-columns.md")]
    mod typed_columns {}
    #[doc = include_str!("../docs/src/hand-made-sheets.md")]
    mod hand_made_sheets {}
    #[doc = include_str!("../docs/src/encrypted.md")]
    mod encrypted {}
    #[doc = include_str!("../docs/src/faq.md")]
    mod faq {}
}
