//! The `.xlsb` (BIFF12) format: binary record streams in the OPC package.
//!
//! `records` is the framing every part shares (record headers, bounds-
//! checked fields, UTF-16 text, [`records::RecordStream`] over the chunk
//! window); `workbook_part` reads the sheet list and the date system,
//! `styles` and `shared_strings` their parts into the format-neutral
//! [`Styles`](crate::styles::Styles) and
//! [`SharedStrings`](crate::SharedStrings), `rows` the sheet parts into
//! the public row events, `metadata` the rest of a sheet part, `tables`
//! a table part; [`XlsbBook`] is the format's opened workbook
//! (`contract::FormatBook`).
//!
//! The package is found as for `.xlsx` (`_rels/.rels`, the workbook's
//! relationships); what makes a package `.xlsb` is its workbook part's
//! content, a record stream starting with BrtBeginBook ([`is_binary_workbook`]).

mod formulas;
pub(crate) mod metadata;
pub(crate) mod records;
pub(crate) mod rows;
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
use crate::limits::Limits;
use crate::metadata::{DefinedName, SheetInfo, SheetMetadata, Table};
use crate::range::CellRange;
use crate::styles::Styles;
use rows::XlsbRows;

/// Whether the workbook part `part` is a BIFF12 record stream: its first
/// record is BrtBeginBook (type 0x83, written `83 01`, then its size). An XML workbook
/// part starts with `<`, white space or a byte order mark.
pub(crate) fn is_binary_workbook<R: Read + Seek>(
    archive: &mut Archive<R>,
    part: &str,
    limits: &Limits,
) -> Result<bool> {
    let mut reader = archive.open_binary_part(part, limits.max_metadata_part_bytes, limits)?;
    let mut head = [0u8; 3];
    let mut filled = 0;
    while filled < head.len() {
        match reader
            .read(&mut head[filled..])
            .map_err(|err| crate::error::Error::from(err).with_part(part))?
        {
            0 => break,
            count => filled += count,
        }
    }
    Ok(records::header(&head[..filled]).is_ok_and(|header| {
        matches!(
            header,
            records::Header::Record {
                kind: records::BEGIN_BOOK,
                ..
            }
        )
    }))
}

/// An opened `.xlsb` workbook: its package, the name of its workbook
/// part (defined names are read from it) and the limits it was opened
/// with. A sheet is found by its part ([`SheetInfo::part`]).
#[derive(Clone)]
pub(crate) struct XlsbBook<R> {
    archive: Archive<R>,
    workbook_part: String,
    limits: Limits,
}

impl<R: Read + Seek> XlsbBook<R> {
    /// Opens the workbook whose workbook part is `workbook_part` (a
    /// record stream: [`is_binary_workbook`]): reads the sheet list, the
    /// date system, what formulas refer to, the styles and the shared
    /// strings.
    pub(crate) fn open(
        mut archive: Archive<R>,
        workbook_part: &str,
        limits: Limits,
    ) -> Result<Opened<XlsbBook<R>>> {
        let (layout, links) = workbook_part::read_layout(&mut archive, workbook_part, &limits)?;
        let styles = match &layout.styles_part {
            Some(part) => {
                let bytes = archive.read_binary_part(part, &limits)?;
                styles::read_styles(&bytes, layout.date_system)
                    .map_err(|err| err.with_part(part))?
            }
            None => Styles::general(layout.date_system),
        };
        let shared_strings = match &layout.shared_strings_part {
            Some(part) => {
                let reader = archive.open_binary_part(part, limits.max_part_bytes, &limits)?;
                Some(
                    shared_strings::read_shared_strings(reader, &limits)
                        .map_err(|err| err.with_part(part))?,
                )
            }
            None => None,
        };
        Ok(Opened {
            book: XlsbBook {
                archive,
                workbook_part: layout.workbook_part,
                limits,
            },
            sheets: layout.sheets,
            styles,
            shared_strings,
            date_system: layout.date_system,
            links,
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

impl<R: Read + Seek> FormatBook<R> for XlsbBook<R> {
    fn sheet_rows<'a>(
        &'a mut self,
        sheet: &'a SheetInfo,
        context: SheetContext<'a>,
    ) -> Result<SheetRows<'a>> {
        let limits = self.limits;
        let source = self
            .archive
            .open_binary_part(sheet.part(), limits.max_part_bytes, &limits)
            // Named as the row readers name the errors opening meets on
            // the pipelined path (one message on every path).
            .map_err(|err| err.with_sheet(sheet.name()).with_part(sheet.part()))?;
        Ok(SheetRows::new(XlsbRows::new(
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
        let pipe = Pipe::spawn(scope, self.archive.clone(), sheet, self.limits, true);
        Ok(SheetRows::new(XlsbRows::new(
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
            true,
            tables::parse_table,
        )
    }
}
