//! The `.xlsx` (SpreadsheetML) format: XML parts in the OPC package.
//!
//! [`XlsxBook`] is the format's opened workbook (`contract::FormatBook`):
//! `workbook_part` reads the sheet list and the date system, `styles` and
//! `shared_strings` their parts into the format-neutral
//! [`Styles`](crate::styles::Styles) and
//! [`SharedStrings`](crate::SharedStrings), `rows` the sheet parts into
//! the public row events (through `scan`, the byte scanner, and `number`,
//! numbers parsed from the borrowed bytes), `metadata` the rest of a
//! sheet part and the workbook part, `tables` a table part. The XML goes
//! through the neutral tokenizer (`crate::xml`), the package through
//! `crate::archive` and `crate::opc`.

pub(crate) mod metadata;
pub(crate) mod number;
pub(crate) mod rows;
pub(crate) mod scan;
pub(crate) mod shared_strings;
pub(crate) mod styles;
pub(crate) mod tables;
pub(crate) mod workbook_part;

use std::io::{Read, Seek};
use std::thread::Scope;

use crate::archive::Archive;
use crate::archive::pipe::Pipe;
use crate::contract::{FormatBook, Opened, PartSource, SheetContext, SheetRows};
use crate::error::Result;
use crate::formula::Links;
use crate::limits::Limits;
use crate::metadata::{DefinedName, SheetInfo, SheetMetadata, Table};
use crate::range::CellRange;
use crate::shared_strings::{ItemSource, ReopenItems, SharedStrings};
use crate::styles::Styles;
use rows::XlsxRows;
use shared_strings::{XmlItems, read_shared_strings};

/// An opened `.xlsx` workbook: its package, the name of its workbook part
/// (defined names are read from it) and the limits it was opened with.
/// A sheet is found by its part ([`SheetInfo::part`]).
#[derive(Clone)]
pub(crate) struct XlsxBook<R> {
    archive: Archive<R>,
    workbook_part: String,
    limits: Limits,
}

impl<R: Read + Seek> XlsxBook<R> {
    /// Opens the workbook whose workbook part is `workbook_part` (found
    /// through the package relationships): reads the sheet list, the date
    /// system and the styles, and opens the shared strings, parsed only as
    /// far as rows need them (a stored part, rare, at once).
    pub(crate) fn open(
        mut archive: Archive<R>,
        workbook_part: String,
        limits: Limits,
    ) -> Result<Opened<XlsxBook<R>>> {
        let layout = workbook_part::read_layout(&mut archive, workbook_part, &limits)?;
        let styles = match &layout.styles_part {
            Some(part) => {
                let bytes = archive.read_part(part, &limits)?;
                styles::read_styles(&bytes, layout.date_system)
                    .map_err(|err| err.with_part(part))?
            }
            None => Styles::general(layout.date_system),
        };
        let shared_strings = match &layout.shared_strings_part {
            Some(part) => Some(
                match archive.open_part_owned(part, limits.max_part_bytes, &limits)? {
                    Some((reader, reopen_part)) => {
                        let items = XmlItems::new(reader, &limits);
                        let reopen: ReopenItems = Box::new(move || {
                            let items = XmlItems::new(reopen_part()?, &limits);
                            Ok(Box::new(items) as Box<dyn ItemSource>)
                        });
                        SharedStrings::lazy(Box::new(items), Some(reopen), &limits, part)
                    }
                    None => {
                        let reader = archive.open_part(part, limits.max_part_bytes, &limits)?;
                        read_shared_strings(reader, &limits).map_err(|err| err.with_part(part))?
                    }
                },
            ),
            None => None,
        };
        Ok(Opened {
            book: XlsxBook {
                archive,
                workbook_part: layout.workbook_part,
                limits,
            },
            sheets: layout.sheets,
            styles,
            shared_strings,
            date_system: layout.date_system,
            links: Links::default(),
        })
    }

    /// The package (for the metadata readers).
    fn package(&mut self) -> Result<&mut Archive<R>> {
        Ok(&mut self.archive)
    }

    /// The package, read-only (the workbook layer clones its input for an
    /// encrypted package's integrity check).
    pub(crate) fn archive(&self) -> &Archive<R> {
        &self.archive
    }
}

impl<R: Read + Seek> FormatBook<R> for XlsxBook<R> {
    fn sheet_rows<'a>(
        &'a mut self,
        sheet: &'a SheetInfo,
        context: SheetContext<'a>,
    ) -> Result<SheetRows<'a>> {
        let limits = self.limits;
        let source = self
            .archive
            .open_part(sheet.part(), limits.max_part_bytes, &limits)
            // Named as the row readers name the errors opening meets on
            // the pipelined path (one message on every path).
            .map_err(|err| err.with_sheet(sheet.name()).with_part(sheet.part()))?;
        Ok(SheetRows::new(XlsxRows::new(
            PartSource::Reader(source),
            context,
            sheet.name(),
            sheet.part(),
            &limits,
        )))
    }

    fn pipelined_sheet_rows<'scope, 'env, 'a>(
        &'a mut self,
        scope: &'scope Scope<'scope, 'env>,
        sheet: &'env SheetInfo,
        context: SheetContext<'env>,
        _threads: usize,
    ) -> Result<SheetRows<'a>>
    where
        R: Clone + Send + 'env,
        'env: 'a,
    {
        let pipe = Pipe::spawn(scope, self.archive.clone(), sheet, self.limits, false);
        Ok(SheetRows::new(XlsxRows::new(
            PartSource::Pipe(pipe),
            context,
            sheet.name(),
            sheet.part(),
            &self.limits,
        )))
    }

    fn sheet_size(&self, sheet: &SheetInfo) -> u64 {
        self.archive.compressed_size(sheet.part())
    }

    fn defined_names(&mut self, sheets: &[SheetInfo]) -> Result<Vec<DefinedName>> {
        self.read_defined_names(sheets)
    }

    fn sheet_metadata(&mut self, sheet: &SheetInfo) -> Result<SheetMetadata> {
        self.read_sheet_metadata(sheet)
    }

    fn sheet_head(&mut self, sheet: &SheetInfo) -> Result<SheetMetadata> {
        self.read_sheet_head(sheet)
    }

    fn sheet_dimension(&mut self, sheet: &SheetInfo) -> Result<Option<CellRange>> {
        self.read_sheet_dimension(sheet)
    }

    fn hidden_rows(&mut self, sheet: &SheetInfo) -> Result<Vec<u32>> {
        self.read_hidden_rows(sheet)
    }

    fn tables(&mut self, sheets: &[SheetInfo]) -> Result<Vec<Table>> {
        crate::opc::read_tables(
            &mut self.archive,
            sheets,
            &self.limits,
            false,
            tables::parse_table,
        )
    }
}
