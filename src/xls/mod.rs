//! The legacy `.xls` format: BIFF8 (Excel 97-2003) and BIFF5/BIFF7
//! (Excel 5-95) record streams in an OLE2 compound file.
//!
//! The compound file around it is `crate::compound`'s (opened within a
//! read budget, the `Workbook` or `Book` stream found); `records`
//! reads the stream one record at a time through a window (never whole)
//! and decodes BIFF text (Latin-1 or UTF-16 in BIFF8, the code page in
//! BIFF5); `globals` reads the workbook globals at open (sheet list,
//! code page, date system, formats and XFs into the neutral styles, the
//! SST into the shared strings); `rows` (`XlsRows`) reads a sheet's
//! substream from its BOF into the public row events; `metadata` the
//! records the cell reader skips; `blocks` one sheet on several threads.
//! [`XlsBook`] is the format's opened workbook (`contract::FormatBook`).

pub(crate) mod blocks;
mod formulas;
pub(crate) mod globals;
pub(crate) mod metadata;
pub(crate) mod records;
pub(crate) mod rows;

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;
use std::thread::Scope;

use crate::compound::{
    Compound, Contents, Fat, Locked, StreamMap, StreamReader, compound_error, contents,
    is_minifat_error, open_compound,
};
use crate::contract::{FormatBook, Opened, SheetContext, SheetRows};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::metadata::{DefinedName, SheetInfo, SheetKind, SheetMetadata, Table};
use crate::range::CellRange;

use records::{BOF, OLD_BOFS, Records, TextCodec, u16_at};
use rows::XlsRows;

/// Each sheet's substream (by position in the sheet list): its BOF's
/// offset, and the offset it must end before (the next sheet's start, or
/// the stream's end).
#[derive(Debug, Default)]
pub(crate) struct SheetOffsets {
    pub(crate) spans: Vec<(u64, u64)>,
    pub(crate) stream_len: u64,
}

/// An opened `.xls` workbook: the workbook stream of its compound file,
/// what the globals said that reading a sheet needs (shared by every
/// clone), and the limits it was opened with. A sheet is found by its
/// position ([`SheetInfo::position`]) in `layout`'s offsets.
pub(crate) struct XlsBook<R> {
    compound: Compound<R>,
    layout: Arc<XlsLayout>,
    limits: Limits,
}

impl<R: Clone> Clone for XlsBook<R> {
    /// A book over a clone of the reader: nothing of the file is read
    /// again.
    fn clone(&self) -> XlsBook<R> {
        XlsBook {
            compound: self.compound.clone(),
            layout: Arc::clone(&self.layout),
            limits: self.limits,
        }
    }
}

/// What the globals said that reading a sheet needs, shared by the
/// book's clones.
#[derive(Debug)]
pub(crate) struct XlsLayout {
    pub(crate) offsets: SheetOffsets,
    pub(crate) codec: TextCodec,
    /// The offset after the globals: no sheet starts before it.
    pub(crate) globals_end: u64,
}

/// Opens a compound file as a `.xls` workbook: the globals are read here,
/// sheets when asked for.
pub(crate) fn open<R: Read + Seek>(mut reader: R, limits: Limits) -> Result<Opened<XlsBook<R>>> {
    if let Some(detail) = crate::compound::header_problem(&mut reader)? {
        return Err(Error::new(ErrorKind::NotZip { detail }));
    }
    let locked = Locked::new(reader);
    // The FAT read once, here; if it cannot be, the crate says why (or
    // the map below, read without it).
    let fat = Fat::read(&mut locked.clone()).ok().map(Arc::new);
    let mut file = match open_compound(locked.clone(), false, fat.clone()) {
        Ok(file) => file,
        Err(err) if is_minifat_error(&err) => {
            open_compound(locked.clone(), true, fat.clone()).map_err(compound_error)?
        }
        Err(err) => return Err(compound_error(err)),
    };
    let (stream, stream_len) = match contents(&file) {
        Contents::Workbook(name, len) => (name, len),
        Contents::Encrypted(found) => return Err(Error::new(ErrorKind::Encrypted(found.into()))),
        Contents::Other(detail) => return Err(Error::new(ErrorKind::NotZip { detail })),
    };
    // Where the stream lies, read once: from here on the file is read
    // directly, the compound file's FAT and directory never again.
    let map = {
        let mut reader = locked.clone();
        StreamMap::read(&mut reader, &mut file, fat.as_deref(), stream, stream_len)
            .map_err(|err| err.with_part(stream))?
    };
    drop(file);
    drop(fat);
    let mut reader = locked.into_inner().ok_or_else(|| {
        Error::new(ErrorKind::Xls(
            "the compound file's reader is still in use".into(),
        ))
    })?;
    let globals = {
        let source =
            StreamReader::new(&mut reader, &map, 0).map_err(|err| err.with_part(stream))?;
        let mut records = Records::new(Box::new(source), 0, stream_len);
        globals::read_globals(&mut records, &limits).map_err(|err| err.with_part(stream))?
    };
    let offsets = {
        let source =
            StreamReader::new(&mut reader, &map, 0).map_err(|err| err.with_part(stream))?;
        checked_offsets(source, &globals.offsets, globals.end, stream_len)
            .map_err(|err| err.with_part(stream))?
    };
    let offsets = SheetOffsets::new(&offsets, stream_len);
    let layout = XlsLayout {
        offsets,
        codec: globals.codec,
        globals_end: globals.end,
    };
    let mut sheets = globals.sheets;
    {
        let mut source =
            StreamReader::new(&mut reader, &map, 0).map_err(|err| err.with_part(stream))?;
        for sheet in &mut sheets {
            sheet.part = stream.to_owned();
            let start = layout
                .offsets
                .spans
                .get(sheet.position)
                .map_or(u64::MAX, |span| span.0);
            if sheet.kind == SheetKind::Worksheet && is_dialog_sheet(&mut source, start) {
                sheet.kind = SheetKind::Dialogsheet;
            }
        }
    }
    Ok(Opened {
        book: XlsBook {
            compound: Compound {
                reader,
                map: Arc::new(map),
                stream,
            },
            layout: Arc::new(layout),
            limits,
        },
        sheets,
        shared_strings: globals.shared_strings,
        styles: globals.styles,
        date_system: globals.date_system,
        links: globals.links,
    })
}

impl SheetOffsets {
    /// Each sheet's span: from its offset to the next larger offset of any
    /// sheet (or the stream's end). A sheet sharing its offset with an
    /// earlier one gets an empty span, refused when it is read (so that
    /// many sheets over one substream cannot multiply the work).
    fn new(offsets: &[u64], stream_len: u64) -> SheetOffsets {
        let mut sorted: Vec<u64> = offsets.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut seen = std::collections::HashSet::new();
        let spans = offsets
            .iter()
            .map(|&start| {
                if !seen.insert(start) {
                    return (start, start);
                }
                let next = sorted.partition_point(|&offset| offset <= start);
                let end = sorted.get(next).copied().unwrap_or(stream_len);
                (start, end.min(stream_len))
            })
            .collect();
        SheetOffsets { spans, stream_len }
    }
}

impl<R: Read + Seek> FormatBook<R> for XlsBook<R> {
    fn sheet_rows<'a>(
        &'a mut self,
        sheet: &'a SheetInfo,
        context: SheetContext<'a>,
    ) -> Result<SheetRows<'a>> {
        let limits = self.limits;
        open_xls_rows(&mut self.compound, &self.layout, sheet, context, &limits).map(SheetRows::new)
    }

    /// The rows of a sheet, read by `threads` workers block by block where
    /// its INDEX and DBCELL records allow and there are at least
    /// [`blocks::MIN_THREADS`] (see `blocks`), else serially.
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
        open_rows_in_blocks(scope, self, sheet, context, threads)
    }

    /// The size of a sheet's substream.
    fn sheet_size(&self, sheet: &SheetInfo) -> u64 {
        self.layout
            .offsets
            .spans
            .get(sheet.position())
            .map_or(0, |&(start, end)| end.saturating_sub(start))
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

    /// An `.xls` workbook has no tables in what is read of it.
    fn tables(&mut self, _sheets: &[SheetInfo]) -> Result<Vec<Table>> {
        Ok(Vec::new())
    }
}

/// [`FormatBook::pipelined_sheet_rows`] of a `.xls` sheet.
fn open_rows_in_blocks<'scope, 'env, 'a, R>(
    scope: &'scope Scope<'scope, 'env>,
    book: &'a mut XlsBook<R>,
    info: &'env SheetInfo,
    context: SheetContext<'env>,
    threads: usize,
) -> Result<SheetRows<'a>>
where
    R: Read + Seek + Clone + Send + 'env,
    'env: 'a,
{
    let limits = &book.limits;
    let layout = Arc::clone(&book.layout);
    let compound = &mut book.compound;
    let bounds = match layout.offsets.spans.get(info.position()) {
        Some(&(start, end))
            if threads >= blocks::MIN_THREADS
                && info.kind() == SheetKind::Worksheet
                && layout.codec.biff == records::Biff::V8
                && start >= layout.globals_end
                && end > start =>
        {
            match compound.open_at(0) {
                Ok(mut source) => blocks::plan(&mut source, start, end),
                Err(_) => None,
            }
        }
        _ => None,
    };
    let Some(bounds) = bounds else {
        return open_xls_rows(compound, &layout, info, context, limits).map(SheetRows::new);
    };
    let job = blocks::SheetJob {
        compound: compound.clone(),
        info,
        context,
        codec: layout.codec,
        limits: *limits,
        worksheet_bof: true,
        bounded: bounds
            .last()
            .is_some_and(|&end| end < layout.offsets.stream_len),
    };
    let serial = open_xls_rows(compound, &layout, info, context, limits)?;
    if !serial.worksheet_bof() {
        return Ok(SheetRows::new(serial));
    }
    Ok(SheetRows::new(blocks::spawn(
        scope, job, bounds, threads, serial,
    )))
}

fn open_xls_rows<'a, R: Read + Seek>(
    compound: &'a mut Compound<R>,
    layout: &XlsLayout,
    info: &'a SheetInfo,
    context: SheetContext<'a>,
    limits: &Limits,
) -> Result<XlsRows<'a>> {
    let codec = layout.codec;
    let part = info.part();
    let located = |err: Error| err.with_sheet(info.name()).with_part(part);
    if info.kind() != SheetKind::Worksheet {
        return Ok(XlsRows::new(
            None,
            false,
            false,
            context,
            codec,
            info.name(),
            part,
            limits,
        ));
    }
    let &(start, end) = layout
        .offsets
        .spans
        .get(info.position())
        .ok_or_else(|| located(Error::new(ErrorKind::Xls("the sheet has no offset".into()))))?;
    let problem = if start >= layout.offsets.stream_len {
        Some(format!(
            "the sheet's offset {start} lies past the end of the stream ({} bytes)",
            layout.offsets.stream_len
        ))
    } else if start < layout.globals_end {
        Some(format!(
            "the sheet's offset {start} lies inside the workbook globals"
        ))
    } else if end <= start {
        Some(format!("the sheet's offset {start} is another sheet's too"))
    } else {
        None
    };
    if let Some(problem) = problem {
        return Err(located(
            Error::new(ErrorKind::Xls(problem)).with_offset(start),
        ));
    }
    let Some((records, worksheet_bof)) = sheet_records(compound, start, end).map_err(located)?
    else {
        return Err(located(
            Error::new(ErrorKind::Xls(format!(
                "no BOF record at the sheet's offset {start}"
            )))
            .with_offset(start),
        ));
    };
    Ok(XlsRows::new(
        Some(records),
        worksheet_bof,
        end < layout.offsets.stream_len,
        context,
        codec,
        info.name(),
        part,
        limits,
    ))
}

/// The records of a substream from `start`, after its BOF, and whether the
/// BOF says it is a worksheet; None when `start` holds no BOF.
fn sheet_records<R: Read + Seek>(
    compound: &mut Compound<R>,
    start: u64,
    end: u64,
) -> Result<Option<(Records<'_>, bool)>> {
    let source = compound.open_at(start)?;
    let mut records = Records::new(Box::new(source), start, end);
    let worksheet_bof = match records.next()? {
        Some((header, data)) if header.kind == BOF || OLD_BOFS.contains(&header.kind) => {
            u16_at(data, 2).unwrap_or(0x0010) == 0x0010
        }
        _ => return Ok(None),
    };
    Ok(Some((records, worksheet_bof)))
}

/// The sheets' offsets, each checked to hold a BOF record. Some writers
/// put wrong offsets in BOUNDSHEET; where one holds no BOF, the sheet's
/// substream is found by its position: the substreams after the globals
/// (walked once, only then) follow the sheet list's order.
fn checked_offsets(
    mut source: impl Read + Seek,
    offsets: &[u64],
    globals_end: u64,
    stream_len: u64,
) -> Result<Vec<u64>> {
    let mut checked = offsets.to_vec();
    let mut walked: Option<Vec<u64>> = None;
    for (position, offset) in checked.iter_mut().enumerate() {
        if *offset < globals_end || *offset + 4 > stream_len {
            // Refused when the sheet is read.
            continue;
        }
        source
            .seek(SeekFrom::Start(*offset))
            .map_err(compound_error)?;
        let mut kind = [0u8; 2];
        if source.read_exact(&mut kind).is_ok() {
            let kind = u16::from_le_bytes(kind);
            if kind == BOF || OLD_BOFS.contains(&kind) {
                continue;
            }
        }
        if walked.is_none() {
            source
                .seek(SeekFrom::Start(globals_end))
                .map_err(compound_error)?;
            let mut records = Records::new(Box::new(&mut source), globals_end, stream_len);
            let mut starts = Vec::new();
            let mut depth = 0u32;
            // A damaged record ends the walk: the substreams found so far stand.
            while let Ok(Some((header, _))) = records.next() {
                if header.kind == BOF || OLD_BOFS.contains(&header.kind) {
                    if depth == 0 {
                        starts.push(header.offset);
                    }
                    depth += 1;
                } else if header.kind == records::EOF {
                    depth = depth.saturating_sub(1);
                }
            }
            walked = Some(starts);
        }
        if let Some(&start) = walked.as_ref().and_then(|starts| starts.get(position)) {
            *offset = start;
        }
    }
    Ok(checked)
}

/// Whether the substream at `offset` is a dialog sheet's: its BOF says
/// worksheet (0x0010) and its WSBOOL record, among the first records
/// before any row or cell, sets fDialog. Reads record headers only (and
/// WSBOOL's first byte); anything unreadable is no dialog sheet (the row
/// reader reports it).
fn is_dialog_sheet(source: &mut (impl Read + Seek), offset: u64) -> bool {
    let mut header = [0u8; 4];
    let mut read_header = |source: &mut dyn ReadSeek| -> Option<(u16, u16)> {
        source.read_exact(&mut header).ok()?;
        Some((
            u16::from_le_bytes([header[0], header[1]]),
            u16::from_le_bytes([header[2], header[3]]),
        ))
    };
    if source.seek(SeekFrom::Start(offset)).is_err() {
        return false;
    }
    let Some((BOF, len)) = read_header(source) else {
        return false;
    };
    let mut bof = [0u8; 4];
    if len < 4
        || source.read_exact(&mut bof).is_err()
        || u16::from_le_bytes([bof[2], bof[3]]) != 0x0010
    {
        return false;
    }
    if source.seek(SeekFrom::Current(i64::from(len) - 4)).is_err() {
        return false;
    }
    for _ in 0..64 {
        let Some((kind, len)) = read_header(source) else {
            return false;
        };
        match kind {
            records::WSBOOL => {
                let mut flags = [0u8; 1];
                return len > 0 && source.read_exact(&mut flags).is_ok() && flags[0] & 0x10 != 0;
            }
            records::EOF | records::ROW | records::DIMENSIONS | BOF => return false,
            _ => {
                if source.seek(SeekFrom::Current(i64::from(len))).is_err() {
                    return false;
                }
            }
        }
    }
    false
}

/// `Read + Seek` as one object type.
trait ReadSeek: Read + Seek {}

impl<T: Read + Seek> ReadSeek for T {}
