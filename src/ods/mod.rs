//! OpenDocument spreadsheets: `.ods` (a ZIP package, the sheets in its
//! `content.xml`) and flat `.fods` (one plain XML document), streamed
//! into the same row events as the other formats.
//!
//! Read this first. `package` tells which bytes are an OpenDocument
//! spreadsheet (the `mimetype` entry, else the manifest); `encrypted`
//! checks an encrypted package's password at open and streams its
//! encrypted entries decrypted and inflated (feature `encryption`;
//! without it `package` refuses them); `catalog` reads, in one pass at open, what the
//! document says besides its cells (the sheet list with each table
//! skimmed, never tokenized: `skim`; the cell and data styles, which
//! `styles` turns into number formats; the null date; named ranges);
//! `scan` is the hand-written scanner of one table's rows, resumable
//! chunk by chunk, repeats carried as runs; `rows` (`OdsRows`) resolves
//! them into the public `Row`/`Cell`/`Value` events; `metadata` reads a
//! sheet's merged ranges, hidden rows and columns, comments and links.
//! `names` spells the qualified names with the prefixes the document
//! binds; `stream` hands out the tokens of a streamed part to the
//! structure readers.
//!
//! All sheets live in one part: reading sheet N inflates `content.xml`
//! from its start and skims sheets 1 to N-1 (each worker of a parallel
//! read does so on its own). [`OdsBook`] is the format's opened workbook
//! (`contract::FormatBook`), [`open_package`] and [`open_flat`] open it.

pub(crate) mod catalog;
mod encrypted;
pub(crate) mod metadata;
mod names;
pub(crate) mod package;
pub(crate) mod rows;
pub(crate) mod scan;
mod skim;
mod stream;
pub(crate) mod styles;
mod tags;
#[cfg(test)]
mod tests;

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;
use std::thread::Scope;

use crate::archive::Archive;
use crate::archive::pipe::Pipe;
use crate::contract::{FormatBook, Opened, PartSource, SheetContext, SheetRows};
use crate::date::DateSystem;
use crate::error::{Error, ErrorKind, Result};
use crate::formula::Links;
use crate::limits::Limits;
use crate::metadata::{DefinedName, SheetInfo, SheetKind, SheetMetadata, SheetState, Table};
use crate::range::CellRange;
use crate::styles::Styles;
use catalog::{Catalog, Document, NamedEntry, read_catalog};
use encrypted::{Decryption, open_entry, read_entry};
use rows::OdsRows;
use styles::{StyleNames, build_styles};

/// The part holding a package's sheets.
pub(crate) const CONTENT_PART: &str = "content.xml";
/// The part holding a package's common styles.
pub(crate) const STYLES_PART: &str = "styles.xml";
/// How errors name a flat document (it has no parts).
pub(crate) const FLAT_PART: &str = "the flat ODS document";

/// What reading a sheet needs besides the neutral context, shared by the
/// container's clones.
#[derive(Debug, Default)]
pub(crate) struct OdsLayout {
    /// The qualified names, spelled with the document's prefixes.
    pub(crate) names: Arc<names::Names>,
    /// Cell style names to style indexes.
    pub(crate) style_names: StyleNames,
    /// Named ranges and expressions, the workbook's and the sheets'.
    pub(crate) named: Vec<NamedEntry>,
    /// Each table's size in bytes of the document (for scheduling).
    pub(crate) table_sizes: Vec<u64>,
}

/// What the pass at open reads of a document.
struct Catalogued {
    sheets: Vec<SheetInfo>,
    styles: Styles,
    date_system: DateSystem,
    layout: OdsLayout,
}

/// Where an `.ods` workbook's document is read from.
#[derive(Clone)]
pub(crate) enum OdsSource<R> {
    /// A package: `content.xml` is inflated for each read (decrypted
    /// first, with the keys derived at open, when the package is
    /// encrypted).
    Package(Archive<R>, Option<Arc<Decryption>>),
    /// A flat document: the file itself.
    Flat(R),
}

/// An opened `.ods` workbook: its document, what the pass at open read
/// of it (shared by every clone: each worker of the parallel readers
/// reads through its own) and the limits it was opened with. A sheet is
/// found by its position among the document's tables.
#[derive(Clone)]
pub(crate) struct OdsBook<R> {
    source: OdsSource<R>,
    layout: Arc<OdsLayout>,
    limits: Limits,
}

/// The document, streamed from its start.
fn document<'a, R: Read + Seek>(
    source: &'a mut OdsSource<R>,
    limits: &Limits,
) -> Result<PartSource<'a>> {
    Ok(match source {
        OdsSource::Package(archive, decryption) => PartSource::Reader(open_entry(
            archive,
            decryption.as_deref(),
            CONTENT_PART,
            limits.max_part_bytes,
            limits,
        )?),
        OdsSource::Flat(reader) => {
            reader.seek(SeekFrom::Start(0))?;
            PartSource::Reader(Box::new(reader.take(limits.max_part_bytes)))
        }
    })
}

impl<R: Read + Seek> FormatBook<R> for OdsBook<R> {
    fn sheet_rows<'a>(
        &'a mut self,
        sheet: &'a SheetInfo,
        context: SheetContext<'a>,
    ) -> Result<SheetRows<'a>> {
        let limits = self.limits;
        let OdsBook { source, layout, .. } = self;
        let source = document(source, &limits)
            .map_err(|err| err.with_sheet(sheet.name()).with_part(sheet.part()))?;
        Ok(SheetRows::new(OdsRows::new(
            source,
            context,
            layout,
            sheet.position(),
            sheet.name(),
            sheet.part(),
            &limits,
        )))
    }

    /// A package's `content.xml` inflated on a thread of `scope` while
    /// this one scans (a flat document, and an encrypted package's
    /// `content.xml`, decrypted as it is inflated, are read on this
    /// thread).
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
        let source = match &mut self.source {
            OdsSource::Package(archive, None) => PartSource::Pipe(Pipe::spawn(
                scope,
                archive.clone(),
                sheet,
                self.limits,
                false,
            )),
            OdsSource::Package(_, Some(_)) | OdsSource::Flat(_) => {
                return self.sheet_rows(sheet, context);
            }
        };
        Ok(SheetRows::new(OdsRows::new(
            source,
            context,
            &self.layout,
            sheet.position(),
            sheet.name(),
            sheet.part(),
            &self.limits,
        )))
    }

    /// The size of a sheet's table in the document.
    fn sheet_size(&self, sheet: &SheetInfo) -> u64 {
        self.layout
            .table_sizes
            .get(sheet.position())
            .copied()
            .unwrap_or(0)
    }

    /// The workbook's and the sheets' named ranges and expressions.
    fn defined_names(&mut self, _sheets: &[SheetInfo]) -> Result<Vec<DefinedName>> {
        Ok(metadata::defined_names(&self.layout.named))
    }

    /// The merged ranges, hidden columns, comments and links of a sheet.
    fn sheet_metadata(&mut self, sheet: &SheetInfo) -> Result<SheetMetadata> {
        self.read_sheet_metadata(sheet)
            .map(|(metadata, _)| metadata)
    }

    /// A sheet's hidden columns, read up to its first row.
    fn sheet_head(&mut self, sheet: &SheetInfo) -> Result<SheetMetadata> {
        let located = |err: Error| err.with_sheet(sheet.name()).with_part(sheet.part());
        let limits = self.limits;
        let source = document(&mut self.source, &limits).map_err(located)?;
        metadata::read_sheet_head(source, sheet.position(), &limits).map_err(located)
    }

    /// An `.ods` sheet states no dimension.
    fn sheet_dimension(&mut self, _sheet: &SheetInfo) -> Result<Option<CellRange>> {
        Ok(None)
    }

    fn hidden_rows(&mut self, sheet: &SheetInfo) -> Result<Vec<u32>> {
        self.read_sheet_metadata(sheet).map(|(_, rows)| rows)
    }

    /// An OpenDocument spreadsheet has no Excel tables (its database
    /// ranges are not read as tables).
    fn tables(&mut self, _sheets: &[SheetInfo]) -> Result<Vec<Table>> {
        Ok(Vec::new())
    }
}

impl<R> OdsBook<R> {
    /// The encryption scheme of an encrypted package (`ods AES-256-CBC`),
    /// None for a plain one.
    pub(crate) fn encryption_scheme(&self) -> Option<&str> {
        match &self.source {
            OdsSource::Package(_, Some(decryption)) => Some(decryption.scheme()),
            _ => None,
        }
    }
}

impl<R: Read + Seek> OdsBook<R> {
    /// A sheet's metadata and its hidden rows, read in one pass.
    fn read_sheet_metadata(&mut self, sheet: &SheetInfo) -> Result<(SheetMetadata, Vec<u32>)> {
        let located = |err: Error| err.with_sheet(sheet.name()).with_part(sheet.part());
        let limits = self.limits;
        let source = document(&mut self.source, &limits).map_err(located)?;
        metadata::read_sheet_metadata(source, sheet.position(), &limits).map_err(located)
    }
}

/// Reads an OpenDocument package's sheet list and styles (the package is
/// one: see [`package::is_spreadsheet_package`]). An encrypted package
/// opens with the first of `passwords` that its checksum accepts (see
/// `encrypted.rs`).
pub(crate) fn open_package<R: Read + Seek>(
    mut archive: Archive<R>,
    limits: Limits,
    passwords: &[String],
) -> Result<Opened<OdsBook<R>>> {
    #[cfg(feature = "encryption")]
    let decryption = Decryption::unlock(&mut archive, &limits, passwords)?.map(Arc::new);
    #[cfg(not(feature = "encryption"))]
    let decryption: Option<Arc<Decryption>> = {
        // Refused by `package::is_spreadsheet_package`.
        let _ = passwords;
        None
    };
    let catalogued = catalogue_package(&mut archive, decryption.as_deref(), &limits)?;
    Ok(opened(
        catalogued,
        OdsSource::Package(archive, decryption),
        limits,
    ))
}

/// Reads a flat document's sheet list and styles (the file is one: see
/// [`package::is_flat_document`]).
pub(crate) fn open_flat<R: Read + Seek>(
    mut reader: R,
    limits: Limits,
) -> Result<Opened<OdsBook<R>>> {
    let catalogued = catalogue_flat(&mut reader, &limits)?;
    Ok(opened(catalogued, OdsSource::Flat(reader), limits))
}

/// The opened workbook of what the pass at open read.
fn opened<R>(catalogued: Catalogued, source: OdsSource<R>, limits: Limits) -> Opened<OdsBook<R>> {
    Opened {
        book: OdsBook {
            source,
            layout: Arc::new(catalogued.layout),
            limits,
        },
        sheets: catalogued.sheets,
        styles: catalogued.styles,
        shared_strings: None,
        date_system: catalogued.date_system,
        links: Links::default(),
    }
}

/// The pass at open over a package: `styles.xml`, then `content.xml`.
fn catalogue_package<R: Read + Seek>(
    archive: &mut Archive<R>,
    decryption: Option<&Decryption>,
    limits: &Limits,
) -> Result<Catalogued> {
    if !archive.contains(CONTENT_PART) {
        return Err(Error::new(ErrorKind::MissingPart(CONTENT_PART.into())));
    }
    let common = if archive.contains(STYLES_PART) {
        let bytes = read_entry(archive, decryption, STYLES_PART, limits)?;
        let source = PartSource::Reader(Box::new(&bytes[..]));
        let (catalog, _) = read_catalog(source, limits, Document::Styles)
            .map_err(|err| err.with_part(STYLES_PART))?;
        Some(catalog)
    } else {
        None
    };
    let source = open_entry(
        archive,
        decryption,
        CONTENT_PART,
        limits.max_part_bytes,
        limits,
    )?;
    let (content, names) = read_catalog(PartSource::Reader(source), limits, Document::Content)
        .map_err(|err| err.with_part(CONTENT_PART))?;
    book(content, names, common, CONTENT_PART, limits)
}

/// The pass at open over a flat document.
fn catalogue_flat<R: Read + Seek>(reader: &mut R, limits: &Limits) -> Result<Catalogued> {
    let length = reader.seek(SeekFrom::End(0))?;
    if length > limits.max_part_bytes {
        return Err(Error::limit("inflated part size", limits.max_part_bytes).with_part(FLAT_PART));
    }
    reader.seek(SeekFrom::Start(0))?;
    let source = PartSource::Reader(Box::new(reader.by_ref()));
    let (catalog, names) =
        read_catalog(source, limits, Document::Flat).map_err(|err| err.with_part(FLAT_PART))?;
    if let Some(mimetype) = &catalog.mimetype
        && !package::is_spreadsheet_type(mimetype)
    {
        return Err(package::not_a_spreadsheet(mimetype));
    }
    book(catalog, names, None, FLAT_PART, limits)
}

/// The date system of a null date: the 1904 system for 1904-01-01, else
/// the 1900 system (whose serials count from LibreOffice's default null
/// date, 1899-12-30). The date system only matters to number formats
/// showing floats as dates: an `.ods` date cell holds its date as text.
fn date_system(null_date: Option<&str>) -> DateSystem {
    match null_date.map(str::trim) {
        Some(date) if date.starts_with("1904-01-01") => DateSystem::V1904,
        _ => DateSystem::V1900,
    }
}

/// The book of a document's catalog, and of `styles.xml`'s when the
/// document is a package's `content.xml`.
fn book(
    content: Catalog,
    names: names::Names,
    common: Option<Catalog>,
    part: &str,
    limits: &Limits,
) -> Result<Catalogued> {
    if content.tables.len() as u64 > limits.max_sheets {
        return Err(Error::limit("sheets in a workbook", limits.max_sheets).with_part(part));
    }
    let date_system = date_system(content.null_date.as_deref());
    let Catalog {
        tables,
        mut cell_styles,
        mut data_styles,
        mut hidden_table_styles,
        named,
        ..
    } = content;
    // Automatic styles (content.xml) first: their names win.
    if let Some(common) = common {
        cell_styles.extend(common.cell_styles);
        data_styles.extend(common.data_styles);
        hidden_table_styles.extend(common.hidden_table_styles);
    }
    let (styles, style_names) = build_styles(&cell_styles, &data_styles, date_system);
    let sheets = tables
        .iter()
        .enumerate()
        .map(|(position, table)| SheetInfo {
            position,
            name: table.name.clone(),
            state: match &table.style {
                Some(style) if hidden_table_styles.contains(style) => SheetState::Hidden,
                _ => SheetState::Visible,
            },
            kind: SheetKind::Worksheet,
            part: part.to_owned(),
        })
        .collect();
    let table_sizes = tables.iter().map(|table| table.end - table.start).collect();
    Ok(Catalogued {
        sheets,
        styles,
        date_system,
        layout: OdsLayout {
            names: Arc::new(names),
            style_names,
            named,
            table_sizes,
        },
    })
}
