//! The OLE2 compound file (CFB) around a `.xls` workbook, read through the
//! `cfb` crate: which stream holds the workbook, and a reader over that
//! stream for the globals and for each sheet.
//!
//! The `cfb` crate reads the header, the DIFAT, the whole FAT and the
//! directory when it opens a file. A DIFAT may list one FAT sector many
//! times, so the FAT it builds could be far larger than the file: every
//! open therefore reads through [`Metered`], which allows the open
//! [`open_budget`] bytes in all (twice the file and a MiB: the header,
//! DIFAT, FAT, directory and MiniFAT are distinct sectors of it) and then
//! reads without a budget. The `cfb` crate refuses a FAT in which a sector
//! is pointed to twice, so a chain can only loop back to its start, which
//! it refuses as well.
//!
//! A [`Compound`] holds the reader and what the globals said (the stream's
//! name, each sheet's offset); it clones with the reader. A sheet opens the
//! compound file again over its clone's reader (`&mut R`) and keeps the
//! `CompoundFile` beside the stream ([`StreamReader`]): each parallel worker
//! reads through its own handle, with no lock shared between workers.

use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cfb::{CompoundFile, Stream};

use crate::error::{Error, ErrorKind, Result};

/// The first eight bytes of every compound file.
pub(crate) const MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// Whether the input starts like a compound file (leaves it at the start).
pub(crate) fn is_compound_file(reader: &mut (impl Read + Seek)) -> Result<bool> {
    let mut magic = [0u8; 8];
    reader.seek(SeekFrom::Start(0))?;
    let mut filled = 0;
    while filled < magic.len() {
        match reader.read(&mut magic[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    reader.seek(SeekFrom::Start(0))?;
    Ok(filled == magic.len() && magic == MAGIC)
}

/// A `.xls` workbook's container: the reader, the name of the stream
/// holding the workbook (`Workbook`, or `Book` for BIFF5), and where each
/// sheet's substream starts and ends in it.
#[derive(Clone)]
pub(crate) struct Compound<R> {
    pub(crate) reader: R,
    pub(crate) stream: &'static str,
    pub(crate) layout: Arc<super::XlsLayout>,
}

/// Each sheet's substream (by position in the sheet list): its BOF's
/// offset, and the offset it must end before (the next sheet's start, or
/// the stream's end).
#[derive(Debug, Default)]
pub(crate) struct SheetOffsets {
    pub(crate) spans: Vec<(u64, u64)>,
    pub(crate) stream_len: u64,
}

impl<R> Compound<R> {
    /// The size of a sheet's substream, for the parallel readers'
    /// biggest-first order.
    pub(crate) fn sheet_size(&self, position: usize) -> u64 {
        self.layout
            .offsets
            .spans
            .get(position)
            .map_or(0, |&(start, end)| end.saturating_sub(start))
    }
}

impl<R: Read + Seek> Compound<R> {
    /// The workbook stream of this container, read from `offset` on.
    pub(crate) fn open_at(&mut self, offset: u64) -> Result<StreamReader<&mut R>> {
        open_stream(&mut self.reader, self.stream, offset)
    }
}

/// How many bytes opening a compound file of `len` bytes may read.
fn open_budget(len: u64) -> u64 {
    len.saturating_mul(2).saturating_add(1 << 20)
}

/// A reader that fails once it has read its budget (while the `cfb` crate
/// reads the FAT and directory), then reads freely once the budget is
/// lifted ([`u64::MAX`]).
pub(crate) struct Metered<F> {
    inner: F,
    budget: Arc<AtomicU64>,
}

impl<F: Read> Read for Metered<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.budget.load(Ordering::Relaxed);
        if left == u64::MAX {
            return self.inner.read(buf);
        }
        if left == 0 {
            return Err(Error::new(ErrorKind::Xls(
                "the compound file's FAT and directory are larger than the file \
                 (its DIFAT lists sectors more than once)"
                    .into(),
            ))
            .into());
        }
        let wanted = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let read = self.inner.read(&mut buf[..wanted])?;
        self.budget.fetch_sub(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

impl<F: Seek> Seek for Metered<F> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// Opens the compound file in `reader` within the budget.
pub(crate) fn open_compound<F: Read + Seek>(mut reader: F) -> Result<CompoundFile<Metered<F>>> {
    let len = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(0))?;
    let budget = Arc::new(AtomicU64::new(open_budget(len)));
    let metered = Metered {
        inner: reader,
        budget: Arc::clone(&budget),
    };
    let file = CompoundFile::open(metered).map_err(compound_error)?;
    budget.store(u64::MAX, Ordering::Relaxed);
    Ok(file)
}

/// A `cfb` error as ours: our own errors (the budget) come back as they
/// were; the crate's own messages say what is wrong with the container.
pub(crate) fn compound_error(err: io::Error) -> Error {
    if err.get_ref().is_some_and(|inner| inner.is::<Error>()) {
        return Error::from(err);
    }
    match err.kind() {
        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput | io::ErrorKind::NotFound => {
            Error::new(ErrorKind::Xls(format!("damaged compound file: {err}")))
        }
        io::ErrorKind::UnexpectedEof => Error::new(ErrorKind::Xls(
            "damaged compound file: a sector lies past the end of the file".into(),
        )),
        _ => Error::from(err),
    }
}

/// What a compound file holds: a workbook stream, or what else it is.
pub(crate) enum Contents {
    /// The name of the stream holding a workbook and its length.
    Workbook(&'static str, u64),
    /// Not a workbook: why, for the message.
    Other(&'static str),
}

/// Finds the workbook stream of an opened compound file.
pub(crate) fn contents<F>(file: &CompoundFile<F>) -> Contents {
    let mut workbook = None;
    let mut book = None;
    let mut encrypted = false;
    let mut word = false;
    let mut powerpoint = false;
    for entry in file.read_root_storage() {
        let name = entry.name();
        if !entry.is_stream() {
            continue;
        }
        if name.eq_ignore_ascii_case("Workbook") {
            workbook = Some(entry.len());
        } else if name.eq_ignore_ascii_case("Book") {
            book = Some(entry.len());
        } else if name == "EncryptedPackage" || name == "EncryptionInfo" {
            encrypted = true;
        } else if name == "WordDocument" {
            word = true;
        } else if name == "PowerPoint Document" {
            powerpoint = true;
        }
    }
    if encrypted {
        return Contents::Other(
            "it is an encrypted (password-protected) workbook: an OLE2 file holding an \
             EncryptedPackage stream; save it without a password to read it",
        );
    }
    if let Some(len) = workbook {
        return Contents::Workbook("Workbook", len);
    }
    if let Some(len) = book {
        return Contents::Workbook("Book", len);
    }
    Contents::Other(if word {
        "it is an OLE2 compound file holding a Word document (.doc), not a workbook"
    } else if powerpoint {
        "it is an OLE2 compound file holding a PowerPoint presentation (.ppt), not a workbook"
    } else {
        "it is an OLE2 compound file without a Workbook or Book stream, not a workbook"
    })
}

/// The workbook stream, positioned at `offset`, with the compound file it
/// reads through (the stream holds only a weak handle on it).
pub(crate) struct StreamReader<F> {
    stream: Stream<Metered<F>>,
    _file: CompoundFile<Metered<F>>,
}

impl<F: Read + Seek> Read for StreamReader<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.read(buf)
    }
}

/// Opens `stream` in the compound file in `reader`, at `offset`.
pub(crate) fn open_stream<F: Read + Seek>(
    reader: F,
    stream: &str,
    offset: u64,
) -> Result<StreamReader<F>> {
    let mut file = open_compound(reader)?;
    let mut handle = file.open_stream(stream).map_err(compound_error)?;
    if offset > handle.len() {
        return Err(Error::new(ErrorKind::Xls(format!(
            "offset {offset} lies past the end of the {stream} stream ({} bytes)",
            handle.len()
        ))));
    }
    handle
        .seek(SeekFrom::Start(offset))
        .map_err(compound_error)?;
    Ok(StreamReader {
        stream: handle,
        _file: file,
    })
}
