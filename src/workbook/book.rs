//! [`Book`]: the workbook's format, one arm per format, each a
//! [`FormatBook`]. The only place above the formats that names them; every
//! method asks the arm's format ([`each_format!`]).
//!
//! The ZIP formats read a [`PackageInput`]: the input itself, or an
//! encrypted workbook's package decrypted as it is read, so an encrypted
//! `.xlsx` is the same arm as a plain one.

use std::io::{Read, Seek};
use std::thread::Scope;

use super::detect::FileFormat;
use crate::archive::PackageInput;
use crate::contract::{FormatBook, SheetContext, SheetRows};
use crate::error::Result;
use crate::metadata::{DefinedName, SheetInfo, SheetMetadata, Table};
use crate::ods::OdsBook;
use crate::range::CellRange;
use crate::xls::XlsBook;
use crate::xlsb::XlsbBook;
use crate::xlsx::XlsxBook;

/// An opened workbook's format and container (cloned once per parallel
/// worker: cheap, what was read at open is shared).
#[derive(Clone)]
pub(crate) enum Book<R> {
    Xlsx(XlsxBook<PackageInput<R>>),
    Xlsb(XlsbBook<PackageInput<R>>),
    Xls(XlsBook<R>),
    Ods(OdsBook<PackageInput<R>>),
}

/// Runs `$body` with `$name` bound to the format's book, whatever the arm
/// (a new format is one line here and one variant above).
macro_rules! each_format {
    ($book:expr, $name:ident => $body:expr) => {
        match $book {
            Book::Xlsx($name) => $body,
            Book::Xlsb($name) => $body,
            Book::Xls($name) => $body,
            Book::Ods($name) => $body,
        }
    };
}

impl<R> Book<R> {
    /// The file format the book reads.
    pub(crate) fn file_format(&self) -> FileFormat {
        match self {
            Book::Xlsx(_) => FileFormat::Xlsx,
            Book::Xlsb(_) => FileFormat::Xlsb,
            Book::Xls(_) => FileFormat::Xls,
            Book::Ods(_) => FileFormat::Ods,
        }
    }

    /// Another handle on a ZIP format's input (an encrypted package's, for
    /// its integrity check); None for `.xls`.
    pub(crate) fn package_input(&self) -> Option<PackageInput<R>>
    where
        R: Read + Seek + Clone,
    {
        match self {
            Book::Xlsx(book) => Some(book.archive().input()),
            Book::Xlsb(book) => Some(book.archive().input()),
            Book::Xls(_) | Book::Ods(_) => None,
        }
    }
}

impl<R: Read + Seek> FormatBook<R> for Book<R> {
    fn sheet_rows<'a>(
        &'a mut self,
        sheet: &'a SheetInfo,
        context: SheetContext<'a>,
    ) -> Result<SheetRows<'a>> {
        each_format!(self, book => book.sheet_rows(sheet, context))
    }

    fn pipelined_sheet_rows<'scope, 'env, 'a>(
        &'a mut self,
        scope: &'scope Scope<'scope, 'env>,
        sheet: &'env SheetInfo,
        context: SheetContext<'env>,
        threads: usize,
    ) -> Result<SheetRows<'a>>
    where
        R: Clone + Send + 'env,
        'env: 'a,
    {
        each_format!(self, book => book.pipelined_sheet_rows(scope, sheet, context, threads))
    }

    fn sheet_size(&self, sheet: &SheetInfo) -> u64 {
        each_format!(self, book => book.sheet_size(sheet))
    }

    fn defined_names(&mut self, sheets: &[SheetInfo]) -> Result<Vec<DefinedName>> {
        each_format!(self, book => book.defined_names(sheets))
    }

    fn sheet_metadata(&mut self, sheet: &SheetInfo) -> Result<SheetMetadata> {
        each_format!(self, book => book.sheet_metadata(sheet))
    }

    fn sheet_head(&mut self, sheet: &SheetInfo) -> Result<SheetMetadata> {
        each_format!(self, book => book.sheet_head(sheet))
    }

    fn sheet_dimension(&mut self, sheet: &SheetInfo) -> Result<Option<CellRange>> {
        each_format!(self, book => book.sheet_dimension(sheet))
    }

    fn hidden_rows(&mut self, sheet: &SheetInfo) -> Result<Vec<u32>> {
        each_format!(self, book => book.hidden_rows(sheet))
    }

    fn tables(&mut self, sheets: &[SheetInfo]) -> Result<Vec<Table>> {
        each_format!(self, book => book.tables(sheets))
    }
}
