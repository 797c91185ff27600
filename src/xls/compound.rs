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
//! A [`Compound`] holds the reader, the compound file opened over it (the
//! FAT and directory read once per container) and what the globals said
//! (the stream's name, each sheet's offset). The reader sits behind a
//! mutex of its own ([`Locked`]), shared only with that compound file's
//! streams (one at a time), so that cloning a container clones the reader
//! inside: each parallel worker's clone opens the compound file once over
//! its own reader and reads its own streams, with no lock shared between
//! workers.

use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

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

/// What is wrong with a compound file's header, if anything: the version
/// and sector sizes must be those of version 3 (512-byte sectors) or 4
/// (4 KiB), the mini sectors 64 bytes. Such a file is told apart as one
/// that is no readable compound file at all (`ErrorKind::NotZip`, as
/// before `.xls` was read); damage past the header is `ErrorKind::Xls`,
/// with the `cfb` crate's words.
pub(crate) fn header_problem(reader: &mut (impl Read + Seek)) -> Result<Option<&'static str>> {
    let mut header = [0u8; 512];
    reader.seek(SeekFrom::Start(0))?;
    let mut filled = 0;
    while filled < header.len() {
        match reader.read(&mut header[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    reader.seek(SeekFrom::Start(0))?;
    if filled < header.len() {
        return Ok(Some(
            "it is an OLE2 compound file (a legacy .xls workbook, or an encrypted one) cut \
             short inside its header",
        ));
    }
    let word = |at: usize| u16::from_le_bytes([header[at], header[at + 1]]);
    let sizes_fit = matches!((word(0x1A), word(0x1E)), (3, 9) | (4, 12)) && word(0x20) == 6;
    Ok((!sizes_fit).then_some(
        "it is an OLE2 compound file (a legacy .xls workbook, or an encrypted one) whose \
         header is damaged: its version and sector sizes do not match",
    ))
}

/// A reader behind a mutex shared with the compound file opened over it.
pub(crate) struct Locked<R>(Arc<Mutex<R>>);

impl<R> Locked<R> {
    pub(crate) fn new(reader: R) -> Locked<R> {
        Locked(Arc::new(Mutex::new(reader)))
    }

    fn lock(&self) -> MutexGuard<'_, R> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<R> Clone for Locked<R> {
    /// Another handle on the same reader.
    fn clone(&self) -> Locked<R> {
        Locked(Arc::clone(&self.0))
    }
}

impl<R: Read> Read for Locked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.lock().read(buf)
    }
}

impl<R: Seek> Seek for Locked<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.lock().seek(pos)
    }
}

/// The compound file as the `.xls` reader opens it.
pub(crate) type File<R> = CompoundFile<Metered<Locked<R>>>;

/// A stream of it.
pub(crate) type StreamReader<R> = Stream<Metered<Locked<R>>>;

/// A `.xls` workbook's container: the reader, the compound file opened
/// over it (None in a fresh clone, opened on first use), the name of the
/// stream holding the workbook (`Workbook`, or `Book` for BIFF5), and
/// what the globals said.
pub(crate) struct Compound<R> {
    pub(crate) reader: Locked<R>,
    pub(crate) file: Option<File<R>>,
    pub(crate) stream: &'static str,
    pub(crate) layout: Arc<super::XlsLayout>,
}

impl<R: Clone> Clone for Compound<R> {
    /// A container over a clone of the reader, which opens the compound
    /// file again when first read.
    fn clone(&self) -> Compound<R> {
        let reader = self.reader.lock().clone();
        Compound {
            reader: Locked::new(reader),
            file: None,
            stream: self.stream,
            layout: Arc::clone(&self.layout),
        }
    }
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
    pub(crate) fn open_at(&mut self, offset: u64) -> Result<StreamReader<R>> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(
                open_compound(self.reader.clone(), self.layout.skip_minifat)
                    .map_err(compound_error)?,
            ),
        };
        stream_at(file, self.stream, offset)
    }
}

/// How many bytes opening a compound file of `len` bytes may read.
fn open_budget(len: u64) -> u64 {
    len.saturating_mul(2).saturating_add(1 << 20)
}

/// A reader that fails once it has read its budget (while the `cfb` crate
/// reads the FAT and directory), then reads freely once the budget is
/// lifted ([`u64::MAX`]).
///
/// It also mends two header fields that the `cfb` crate refuses but
/// other readers (Excel, calamine) ignore: a byte order mark other than
/// `FFFE` (always mended), and, when `skip_minifat` is set (a second try
/// after the crate refused the MiniFAT), the MiniFAT itself, which only
/// streams under 4 KiB use: a workbook stream in it then fails to read.
pub(crate) struct Metered<F> {
    inner: F,
    budget: Arc<AtomicU64>,
    position: u64,
    skip_minifat: bool,
}

impl<F> Metered<F> {
    /// Mends the header bytes `buf` holds, read from `position`.
    fn mend(&self, buf: &mut [u8]) {
        let mut patch = |offset: u64, bytes: &[u8]| {
            for (i, &byte) in bytes.iter().enumerate() {
                let at = offset + i as u64;
                if at >= self.position && at < self.position + buf.len() as u64 {
                    buf[(at - self.position) as usize] = byte;
                }
            }
        };
        patch(0x1C, &[0xFE, 0xFF]);
        if self.skip_minifat {
            patch(0x3C, &[0xFE, 0xFF, 0xFF, 0xFF]);
            patch(0x40, &[0, 0, 0, 0]);
        }
    }
}

impl<F: Read> Read for Metered<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.budget.load(Ordering::Relaxed);
        if left == u64::MAX {
            return self.inner.read(buf);
        }
        if self.position < 0x44 {
            let read = self.inner.read(buf)?;
            self.mend(&mut buf[..read]);
            self.position += read as u64;
            self.budget
                .fetch_sub(read.min(left as usize) as u64, Ordering::Relaxed);
            return Ok(read);
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
        self.position += read as u64;
        Ok(read)
    }
}

impl<F: Seek> Seek for Metered<F> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.position = self.inner.seek(pos)?;
        Ok(self.position)
    }
}

/// Opens the compound file in `reader` within the budget; with
/// `skip_minifat`, as if it had no MiniFAT (see [`Metered`]).
pub(crate) fn open_compound<F: Read + Seek>(
    mut reader: F,
    skip_minifat: bool,
) -> io::Result<CompoundFile<Metered<F>>> {
    let len = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(0))?;
    let budget = Arc::new(AtomicU64::new(open_budget(len)));
    let metered = Metered {
        inner: reader,
        budget: Arc::clone(&budget),
        position: 0,
        skip_minifat,
    };
    let file = CompoundFile::open(metered)?;
    budget.store(u64::MAX, Ordering::Relaxed);
    Ok(file)
}

/// Whether the `cfb` crate refused a file for its MiniFAT (worth a second
/// try without it).
pub(crate) fn is_minifat_error(err: &io::Error) -> bool {
    err.get_ref().is_none_or(|inner| !inner.is::<Error>()) && err.to_string().contains("MiniFAT")
}

/// A `cfb` error as ours: our own errors (the budget) come back as they
/// were; the crate's own messages say what is wrong with the container.
pub(crate) fn compound_error(err: io::Error) -> Error {
    if err.get_ref().is_some_and(|inner| inner.is::<Error>()) {
        return Error::from(err);
    }
    match err.kind() {
        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput | io::ErrorKind::NotFound => {
            Error::new(ErrorKind::Xls(format!("damaged OLE2 compound file: {err}")))
        }
        io::ErrorKind::UnexpectedEof => Error::new(ErrorKind::Xls(
            "damaged OLE2 compound file: a sector lies past the end of the file".into(),
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

/// Opens `stream` in an opened compound file, at `offset`.
pub(crate) fn stream_at<F: Read + Seek>(
    file: &mut CompoundFile<F>,
    stream: &str,
    offset: u64,
) -> Result<Stream<F>> {
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
    Ok(handle)
}
