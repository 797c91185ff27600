//! The `.xlsx` (SpreadsheetML) format: XML parts in the OPC package.
//!
//! `workbook_part` reads the sheet list and the date system,
//! `styles` and `shared_strings` their parts into the format-neutral
//! [`Styles`](crate::styles::Styles) and
//! [`SharedStrings`](crate::SharedStrings), `rows` the sheet parts into
//! the public row events (through `scan`, the byte scanner, and `number`,
//! numbers parsed from the borrowed bytes), `metadata` the rest of a
//! sheet part and the workbook part. `xml` is the tokenizer every XML
//! part goes through, the package's relationship parts included; `bytes`
//! the word-at-a-time searches the scanners share.

pub(crate) mod metadata;
pub(crate) mod number;
pub(crate) mod rows;
pub(crate) mod scan;
pub(crate) mod shared_strings;
pub(crate) mod styles;
pub(crate) mod tables;
pub(crate) mod workbook_part;
