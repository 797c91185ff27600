//! The ZIP container: the central directory read once, parts found by their
//! OPC name (case-insensitively), and each part read through a guard that
//! enforces the size and compression-ratio limits.
//!
//! Input that is no ZIP is told apart before the archive is tried (empty, XML;
//! an OLE2 compound file goes to `crate::compound`), and the end records are
//! checked here before the zip crate reads them: split or spanned (multi-disk)
//! archives are refused, as is a ZIP64 end locator that points outside the
//! file or at no ZIP64 end record. Entries may not overlap. `open_part_owned`
//! reads a part's compressed bytes at once and inflates them as asked (the
//! lazily parsed shared strings). Stored parts and compression methods other
//! than deflate go through the zip crate; deflated ones through `inflate`.

use std::collections::HashMap;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use zip::read::ZipFile;
use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

mod encoding;
mod inflate;
mod input;
pub(crate) mod pipe;
pub(crate) mod read_ahead;

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;

pub(crate) use inflate::CrcCheck;
use inflate::{CompressedInput, Inflater, input_size};
pub(crate) use input::PackageInput;
use read_ahead::{AheadInput, SharedInput};

/// A deflated part's compressed bytes read through a clone of the
/// archive's reader, shared by the pipe's two threads.
type SharedPartInput<R> = Arc<SharedInput<io::Take<R>>>;

/// The opened ZIP archive and an index of its entries by normalised part
/// name. Cloning it (for a reader that clones cheaply) shares the central
/// directory and the index: each clone reads on its own.
#[derive(Clone)]
pub(crate) struct Archive<R> {
    zip: ZipArchive<R>,
    /// Normalised (lower-case, no leading `/`, forward slashes) name to entry index.
    index: Arc<HashMap<String, usize>>,
    /// Bytes inflated from every part so far, by this archive and all its
    /// clones (checked against `Limits::max_workbook_bytes`).
    inflated: Arc<AtomicU64>,
    /// The archive's size in bytes, for the workbook-wide compression ratio.
    archive_bytes: u64,
}

/// Normalises a part name for lookup: OPC part names compare
/// case-insensitively; some writers use backslashes or a leading slash.
pub(crate) fn normalise_part_name(name: &str) -> String {
    let trimmed = name.trim_start_matches(['/', '\\']);
    let mut out = String::with_capacity(trimmed.len());
    for ch in trimmed.chars() {
        out.push(if ch == '\\' {
            '/'
        } else {
            ch.to_ascii_lowercase()
        });
    }
    out
}

/// What the input looks like when it does not start like a ZIP archive:
/// an error for what cannot be one (empty, XML; an OLE2 compound file
/// never gets here, `Workbook` hands it to the `.xls` reader first);
/// `Ok(Some(detail))` for anything else, which may still be an archive
/// with bytes before its first entry (a self-extracting stub) and is tried
/// as one.
fn sniff(reader: &mut (impl Read + Seek)) -> Result<Option<&'static str>> {
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
    let detail = if filled == 0 {
        "the file is empty"
    } else if magic.starts_with(b"PK") {
        return Ok(None);
    } else if magic.starts_with(b"<?xml") || magic.starts_with(b"<") {
        "it is an XML or HTML text file, not a ZIP package"
    } else {
        return Ok(Some("it does not start with a ZIP signature"));
    };
    Err(Error::new(ErrorKind::NotZip { detail }))
}

/// The end records' own checks, before the zip crate reads the directory:
/// a split or spanned archive (a spanning marker at the start, or disk
/// numbers other than 0 in the end record, the ZIP64 locator or the ZIP64
/// end record) and a ZIP64 locator that points outside the file or at
/// anything but a ZIP64 end record are refused with a message of their
/// own. The zip crate refuses most of these too, but as "damaged" or by
/// ignoring a locator the 32-bit end record does not ask for; a locator
/// that is there must be right. Finding no end record at all is left to
/// the zip crate's error.
fn check_end_records(reader: &mut (impl Read + Seek), archive_bytes: u64) -> Result<()> {
    const END: &[u8; 4] = b"PK\x05\x06";
    const LOCATOR: &[u8; 4] = b"PK\x06\x07";
    const END64: &[u8; 4] = b"PK\x06\x06";
    const SPANNED: &[u8; 4] = b"PK\x07\x08";
    // The end record (22 bytes and a comment of up to 65,535) and the
    // locator (20 bytes) before it.
    let tail_len = archive_bytes.min(22 + 65_535 + 20);
    let tail_start = archive_bytes - tail_len;
    let mut tail = vec![0u8; tail_len as usize];
    reader.seek(SeekFrom::Start(tail_start))?;
    reader.read_exact(&mut tail)?;
    let mut start = [0u8; 4];
    reader.seek(SeekFrom::Start(0))?;
    if reader.read_exact(&mut start).is_ok() && &start == SPANNED {
        return Err(multi_disk("the archive starts with a spanning marker"));
    }
    let u16_at = |bytes: &[u8], at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let u32_at = |bytes: &[u8], at: usize| {
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
    };
    // The last end signature whose comment fits in the file.
    let Some(end) = (0..tail.len().saturating_sub(21)).rev().find(|&at| {
        &tail[at..at + 4] == END && at + 22 + usize::from(u16_at(&tail, at + 20)) <= tail.len()
    }) else {
        return Ok(());
    };
    let record = &tail[end..end + 22];
    let end_offset = tail_start + end as u64;
    if end < 20 || &tail[end - 20..end - 16] != LOCATOR {
        let (disk, directory_disk) = (u16_at(record, 4), u16_at(record, 6));
        if disk != 0 || directory_disk != 0 || u16_at(record, 8) != u16_at(record, 10) {
            return Err(multi_disk(&format!(
                "the end record is on disk {disk} and names disk {directory_disk} for the directory"
            ))
            .with_offset(end_offset));
        }
        return Ok(());
    }
    let locator = &tail[end - 20..end];
    let locator_offset = end_offset - 20;
    let (directory_disk, disks) = (u32_at(locator, 4), u32_at(locator, 16));
    if directory_disk != 0 || disks > 1 {
        return Err(multi_disk(&format!(
            "the ZIP64 locator names {disks} disks and disk {directory_disk} for the directory"
        ))
        .with_offset(locator_offset));
    }
    let pointed = u64::from_le_bytes(locator[8..16].try_into().expect("8 bytes"));
    // The ZIP64 end record is 56 bytes before any extensible data.
    let nowhere = |what: &str| {
        Error::new(ErrorKind::Zip(format!(
            "the ZIP64 end locator points {what} (offset {pointed})"
        )))
        .with_offset(locator_offset)
    };
    if pointed
        .checked_add(56)
        .is_none_or(|past| past > locator_offset)
    {
        return Err(nowhere("outside the file"));
    }
    let mut end64 = [0u8; 56];
    reader.seek(SeekFrom::Start(pointed))?;
    reader.read_exact(&mut end64)?;
    if &end64[..4] != END64 {
        // A prefixed archive: offsets count from the archive's start, and
        // the record sits right before the locator.
        reader.seek(SeekFrom::Start(locator_offset - 56))?;
        reader.read_exact(&mut end64)?;
        if &end64[..4] != END64 || u64::from_le_bytes(end64[4..12].try_into().expect("8")) != 44 {
            return Err(nowhere("at no ZIP64 end record"));
        }
    }
    let (disk, directory_disk) = (u32_at(&end64, 16), u32_at(&end64, 20));
    if disk != 0 || directory_disk != 0 {
        return Err(multi_disk(&format!(
            "the ZIP64 end record is on disk {disk} and names disk {directory_disk} for the directory"
        ))
        .with_offset(locator_offset));
    }
    Ok(())
}

/// A split or spanned (multi-disk) archive, which only its writer's own
/// segments can reassemble.
fn multi_disk(detail: &str) -> Error {
    Error::new(ErrorKind::Zip(format!(
        "multi-disk (split or spanned) archives are not supported: {detail}"
    )))
}

/// Whether an I/O error came from the operating system (a real read
/// failure) rather than from the zip or inflate code finding the data
/// damaged: only the former carries an OS error code.
fn is_os_error(err: &io::Error) -> bool {
    err.raw_os_error().is_some()
}

/// An I/O error met while reading the archive: kept as I/O when the system
/// failed to read, a damaged container otherwise (the zip and inflate code
/// report bad data as I/O errors of their own making).
pub(crate) fn container_error(err: io::Error) -> io::Error {
    if is_os_error(&err) || err.get_ref().is_some_and(|inner| inner.is::<Error>()) {
        err
    } else {
        io::Error::from(Error::new(ErrorKind::Zip(err.to_string())))
    }
}

pub(crate) fn zip_error(err: ZipError) -> Error {
    match err {
        ZipError::Io(err) => Error::from(container_error(err)),
        ZipError::UnsupportedArchive(message) => {
            Error::new(ErrorKind::Zip(format!("unsupported: {message}")))
        }
        ZipError::InvalidPassword => Error::new(ErrorKind::Zip("the entry is encrypted".into())),
        other => Error::new(ErrorKind::Zip(other.to_string())),
    }
}

impl<R: Read + Seek> Archive<R> {
    /// Reads the central directory and indexes the entries.
    pub(crate) fn new(mut reader: R) -> Result<Archive<R>> {
        let prefixed = sniff(&mut reader)?;
        let archive_bytes = reader.seek(SeekFrom::End(0))?;
        check_end_records(&mut reader, archive_bytes)?;
        reader.seek(SeekFrom::Start(0))?;
        let zip = ZipArchive::new(reader).map_err(|err| match err {
            _ if let Some(detail) = prefixed => Error::new(ErrorKind::NotZip { detail }),
            ZipError::InvalidArchive(message) => Error::new(ErrorKind::NotZip {
                detail: if message.contains("end of central directory") || message.contains("EOCD")
                {
                    "no ZIP central directory was found (truncated or not a ZIP file)"
                } else {
                    "the ZIP central directory is damaged"
                },
            }),
            other => zip_error(other),
        })?;
        if zip.has_duplicate_names() {
            return Err(Error::new(ErrorKind::Zip(
                "the archive has duplicate entry names".into(),
            )));
        }
        let mut index = HashMap::with_capacity(zip.len());
        for (position, raw) in zip.file_names_raw().enumerate() {
            let name = normalise_part_name(&String::from_utf8_lossy(raw));
            if index.insert(name.clone(), position).is_some() {
                return Err(Error::new(ErrorKind::Zip(format!(
                    "the archive has two entries named {name}"
                ))));
            }
        }
        check_entries_do_not_overlap(&zip)?;
        Ok(Archive {
            zip,
            index: Arc::new(index),
            inflated: Arc::new(AtomicU64::new(0)),
            archive_bytes,
        })
    }

    /// Another handle on the input the archive reads, at its start (for
    /// a pass over it outside the ZIP reader: an encrypted package's
    /// integrity check).
    pub(crate) fn input(&self) -> R
    where
        R: Clone,
    {
        self.zip.clone().into_inner()
    }

    /// Whether a part exists (`name` is a part name, any case).
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.index.contains_key(&normalise_part_name(name))
    }

    /// The compressed size of a part (0 when it is missing): how much work
    /// reading it is, for scheduling.
    pub(crate) fn compressed_size(&self, name: &str) -> u64 {
        self.entry_index(name)
            .ok()
            .and_then(|index| self.zip.by_index_data(index).ok())
            .map_or(0, |entry| entry.compressed_size())
    }

    fn entry_index(&self, name: &str) -> Result<usize> {
        self.index
            .get(&normalise_part_name(name))
            .copied()
            .ok_or_else(|| Error::new(ErrorKind::MissingPart(name.to_owned())))
    }

    /// Opens a binary part (an `.xlsb` record stream) for streaming,
    /// guarded by the limits, with at most `max_bytes` inflated bytes: the
    /// bytes as they are, never taken for UTF-16 text.
    pub(crate) fn open_binary_part(
        &mut self,
        name: &str,
        max_bytes: u64,
        limits: &Limits,
    ) -> Result<Box<dyn Read + '_>> {
        Ok(Box::new(self.part_reader(name, max_bytes, limits, None)?))
    }

    /// Reads a whole (small) binary part into memory, up to the metadata
    /// size limit.
    pub(crate) fn read_binary_part(&mut self, name: &str, limits: &Limits) -> Result<Vec<u8>> {
        let mut reader = self.open_binary_part(name, limits.max_metadata_part_bytes, limits)?;
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|err| Error::from(err).with_part(name))?;
        Ok(bytes)
    }

    /// A part's inflated bytes, guarded by the limits; a deflated part's
    /// compressed bytes come through `shared` when given (see
    /// [`Archive::shared_input`]), else through the zip crate's reader.
    fn part_reader(
        &mut self,
        name: &str,
        max_bytes: u64,
        limits: &Limits,
        shared: Option<SharedPartInput<R>>,
    ) -> Result<PartReader<PartData<'_, R>>> {
        let index = self.entry_index(name)?;
        let budget = self.budget();
        let deflated = self
            .zip
            .by_index_data(index)
            .map_err(|err| zip_error(err).with_part(name))?
            .compression()
            == CompressionMethod::Deflated;
        let file = if deflated {
            self.zip.by_index_raw(index)
        } else {
            self.zip.by_index(index)
        }
        .map_err(|err| zip_error(err).with_part(name))?;
        if file.encrypted() {
            return Err(Error::new(ErrorKind::Zip("the entry is encrypted".into())).with_part(name));
        }
        let compressed = file.compressed_size();
        let declared = file.size();
        let data = if deflated {
            let crc = file.crc32();
            let input = match shared {
                Some(shared) => Compressed::Shared(AheadInput(shared)),
                None => Compressed::Entry(file),
            };
            PartData::Deflated(Box::new(Inflater::new(input, compressed, crc)))
        } else {
            // Stored, or a method only the zip crate knows (or refuses).
            PartData::Other(file)
        };
        Ok(PartReader::new(
            data,
            (compressed, declared),
            max_bytes,
            limits,
            budget,
        ))
    }

    /// What the workbook's parts may inflate to, together.
    fn budget(&self) -> WorkbookBudget {
        WorkbookBudget {
            inflated: Arc::clone(&self.inflated),
            archive_bytes: self.archive_bytes,
        }
    }

    /// Opens a part for streaming, guarded by the limits, with at most
    /// `max_bytes` inflated bytes. The stream is UTF-8: a UTF-16 part (rare,
    /// but legal XML) is transcoded whole, up to the metadata size limit.
    pub(crate) fn open_part(
        &mut self,
        name: &str,
        max_bytes: u64,
        limits: &Limits,
    ) -> Result<Box<dyn Read + '_>> {
        let mut reader = self.part_reader(name, max_bytes, limits, None)?;
        Ok(match utf8_start(&mut reader, name, max_bytes, limits)? {
            Utf8Start::Head(head) => Box::new(io::Cursor::new(head).chain(reader)),
            Utf8Start::Whole(text) => Box::new(io::Cursor::new(text)),
        })
    }

    /// As [`Archive::open_part`], a reader that owns what it reads: the
    /// part's compressed bytes, read into memory now and inflated as they
    /// are read (the shared strings, parsed as far as lookups need them);
    /// and a way to read the part again from those bytes, from its start
    /// ([`ReopenPart`]). `None` for a part not deflated (stored: its bytes
    /// are the text itself, no smaller than the parsed table), which the
    /// caller reads whole.
    pub(crate) fn open_part_owned(
        &mut self,
        name: &str,
        max_bytes: u64,
        limits: &Limits,
    ) -> Result<Option<(Box<dyn Read + Send>, ReopenPart)>> {
        let index = self.entry_index(name)?;
        let budget = self.budget();
        let mut file = self
            .zip
            .by_index_raw(index)
            .map_err(|err| zip_error(err).with_part(name))?;
        if file.compression() != CompressionMethod::Deflated {
            return Ok(None);
        }
        if file.encrypted() {
            return Err(Error::new(ErrorKind::Zip("the entry is encrypted".into())).with_part(name));
        }
        let compressed = file.compressed_size();
        let (declared, crc) = (file.size(), file.crc32());
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(usize::try_from(compressed.min(self.archive_bytes)).unwrap_or(0))
            .map_err(|_| Error::limit("inflated part size", max_bytes).with_part(name))?;
        file.read_to_end(&mut bytes)
            .map_err(|err| Error::from(err).with_part(name))?;
        drop(file);
        let part = OwnedPart {
            name: name.to_owned(),
            bytes: SharedBytes(Arc::new(bytes)),
            sizes: (compressed, declared),
            crc,
            max_bytes,
            limits: *limits,
        };
        let reader = part.open(budget)?;
        // Read again, the part's bytes count against a budget of their own:
        // the workbook's counted them when they were first read.
        let archive_bytes = self.archive_bytes;
        let reopen = move || {
            part.open(WorkbookBudget {
                inflated: Arc::new(AtomicU64::new(0)),
                archive_bytes,
            })
        };
        Ok(Some((reader, Box::new(reopen))))
    }

    /// A deflated part's compressed bytes, read through a clone of the
    /// archive's reader, for the pipe to share between its two threads
    /// (see `src/archive/read_ahead.rs`). None for a part that is missing,
    /// not deflated or encrypted, or whose data cannot be found: its
    /// reader then reads through the zip crate, and reports any error.
    pub(crate) fn shared_input(&mut self, name: &str) -> Option<SharedPartInput<R>>
    where
        R: Clone,
    {
        let index = self.entry_index(name).ok()?;
        let file = self.zip.by_index_raw(index).ok()?;
        if file.compression() != CompressionMethod::Deflated || file.encrypted() {
            return None;
        }
        let (start, compressed) = (file.data_start()?, file.compressed_size());
        drop(file);
        let mut source = self.zip.clone().into_inner();
        source.seek(SeekFrom::Start(start)).ok()?;
        Some(SharedInput::new(
            source.take(compressed),
            input_size(compressed),
        ))
    }

    /// As [`Archive::open_part`] (or [`Archive::open_binary_part`] when
    /// `binary`), for a reader that checks the part's CRC-32 itself: a
    /// deflated part's check is handed over (see [`CrcCheck`]) and the
    /// reader must hash every byte it reads and verify the whole at the
    /// end; None when the part's reader still checks it (a stored part, a
    /// UTF-16 part transcoded whole here).
    ///
    /// A deflated part's compressed bytes come through `shared` when given
    /// (made by [`Archive::shared_input`] for this part).
    pub(crate) fn open_part_checked_by_caller(
        &mut self,
        name: &str,
        max_bytes: u64,
        limits: &Limits,
        binary: bool,
        shared: Option<SharedPartInput<R>>,
    ) -> Result<(Box<dyn Read + '_>, Option<CrcCheck>)> {
        let mut reader = self.part_reader(name, max_bytes, limits, shared)?;
        if binary {
            let check = reader.inner.hand_over_crc();
            return Ok((Box::new(reader), check));
        }
        Ok(match utf8_start(&mut reader, name, max_bytes, limits)? {
            Utf8Start::Head(head) => {
                // The head was hashed by the inflater, before it handed over.
                let check = reader.inner.hand_over_crc().map(|check| CrcCheck {
                    already_hashed: head.len(),
                    ..check
                });
                (Box::new(io::Cursor::new(head).chain(reader)), check)
            }
            Utf8Start::Whole(text) => (Box::new(io::Cursor::new(text)), None),
        })
    }

    /// The first `count` bytes of a part as the archive stores them, and
    /// how many it stores in all: what an encrypted `.ods` entry's
    /// password is checked against.
    #[cfg(feature = "encryption")]
    pub(crate) fn stored_head(&mut self, name: &str, count: usize) -> Result<(Vec<u8>, u64)> {
        let index = self.entry_index(name)?;
        let file = self
            .zip
            .by_index(index)
            .map_err(|err| zip_error(err).with_part(name))?;
        if file.encrypted() {
            return Err(Error::new(ErrorKind::Zip("the entry is encrypted".into())).with_part(name));
        }
        let stored = file.size();
        let mut head = Vec::with_capacity(count.min(stored as usize));
        file.take(count as u64)
            .read_to_end(&mut head)
            .map_err(|err| Error::from(container_error(err)).with_part(name))?;
        Ok((head, stored))
    }

    /// Opens a part whose stored bytes are not yet its bytes (an
    /// encrypted `.ods` entry: they are decrypted, then inflated) for
    /// streaming, as [`Archive::open_part`] does: `transform` gets a
    /// reader of the stored bytes (the zip crate checks their CRC-32 at
    /// their end) and their count, and gives the part's bytes, which the
    /// limits guard as any part's, `declared` standing for the inflated
    /// size a directory entry declares.
    #[cfg(feature = "encryption")]
    pub(crate) fn open_transformed_part<'s>(
        &'s mut self,
        name: &str,
        declared: u64,
        max_bytes: u64,
        limits: &Limits,
        transform: impl FnOnce(Box<dyn Read + 's>, u64) -> Result<Box<dyn Read + 's>>,
    ) -> Result<Box<dyn Read + 's>> {
        let index = self.entry_index(name)?;
        let budget = self.budget();
        let file = self
            .zip
            .by_index(index)
            .map_err(|err| zip_error(err).with_part(name))?;
        if file.encrypted() {
            return Err(Error::new(ErrorKind::Zip("the entry is encrypted".into())).with_part(name));
        }
        let (compressed, stored) = (file.compressed_size(), file.size());
        let part = transform(Box::new(file), stored).map_err(|err| err.with_part(name))?;
        let mut reader = PartReader::new(part, (compressed, declared), max_bytes, limits, budget);
        Ok(match utf8_start(&mut reader, name, max_bytes, limits)? {
            Utf8Start::Head(head) => Box::new(io::Cursor::new(head).chain(reader)),
            Utf8Start::Whole(text) => Box::new(io::Cursor::new(text)),
        })
    }

    /// Reads a whole (small) part into memory, up to the metadata size limit.
    pub(crate) fn read_part(&mut self, name: &str, limits: &Limits) -> Result<Vec<u8>> {
        let mut reader = self.open_part(name, limits.max_metadata_part_bytes, limits)?;
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|err| Error::from(err).with_part(name))?;
        Ok(bytes)
    }
}

/// The bytes a raw deflate stream inflates to, `compressed_size` bytes
/// of it, with no CRC-32 to check (an encrypted `.ods` entry's decrypted
/// bytes: the archive's CRC-32 is of the encrypted ones). The errors are
/// the inflater's: a corrupt stream, one that ends inside.
#[cfg(feature = "encryption")]
pub(crate) fn inflate_unchecked<'a>(
    compressed: impl Read + 'a,
    compressed_size: u64,
) -> impl Read + 'a {
    Inflater::unchecked(compressed, compressed_size)
}

/// How a part's UTF-8 stream starts: its first bytes, or (a UTF-16 part,
/// rare but legal XML) the whole part transcoded.
enum Utf8Start {
    Head(Vec<u8>),
    Whole(Vec<u8>),
}

/// Reads the first bytes of a part, and a UTF-16 part whole, up to the
/// metadata size limit, transcoded.
fn utf8_start<T: Read>(
    reader: &mut PartReader<T>,
    name: &str,
    max_bytes: u64,
    limits: &Limits,
) -> Result<Utf8Start> {
    let mut head = [0u8; 4];
    let mut filled = 0;
    while filled < head.len() {
        match reader
            .read(&mut head[filled..])
            .map_err(|err| Error::from(err).with_part(name))?
        {
            0 => break,
            count => filled += count,
        }
    }
    let head = &head[..filled];
    match encoding::utf16_byte_order(head) {
        None => Ok(Utf8Start::Head(head.to_vec())),
        Some(big_endian) => {
            reader.max_bytes = max_bytes.min(limits.max_metadata_part_bytes);
            let mut bytes = head.to_vec();
            reader
                .read_to_end(&mut bytes)
                .map_err(|err| Error::from(err).with_part(name))?;
            let text = encoding::utf16_to_utf8(&bytes, big_endian).map_err(|err| {
                Error::xml(err.message)
                    .with_offset(err.offset as u64)
                    .with_part(name)
            })?;
            Ok(Utf8Start::Whole(text.into_bytes()))
        }
    }
}

/// Where a deflated part's compressed bytes come from.
enum Compressed<'a, R: Read> {
    /// The zip crate's raw reader of the entry.
    Entry(ZipFile<'a, R>),
    /// A clone of the archive's reader over the entry's bytes, which the
    /// pipe's scan thread may read ahead (see `src/archive/read_ahead.rs`).
    Shared(AheadInput<io::Take<R>>),
}

impl<R: Read> CompressedInput for Compressed<'_, R> {
    fn next_input(&mut self, buffer: &mut Vec<u8>, wanted: usize) -> io::Result<usize> {
        match self {
            Compressed::Entry(entry) => entry.next_input(buffer, wanted),
            Compressed::Shared(shared) => shared.next_input(buffer, wanted),
        }
    }
}

/// A part's bytes as they come out of the container.
enum PartData<'a, R: Read> {
    /// Inflated by us, from the raw compressed bytes (see [`Inflater`]).
    Deflated(Box<Inflater<Compressed<'a, R>>>),
    /// Read through the zip crate.
    Other(ZipFile<'a, R>),
}

impl<R: Read> PartData<'_, R> {
    /// See [`Inflater::hand_over_crc`]; None for a part the zip crate reads.
    fn hand_over_crc(&mut self) -> Option<CrcCheck> {
        match self {
            PartData::Deflated(inflater) => inflater.hand_over_crc(),
            PartData::Other(_) => None,
        }
    }
}

impl<R: Read> Read for PartData<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            PartData::Deflated(inflater) => inflater.read(buf),
            PartData::Other(file) => file.read(buf),
        }
    }
}

/// Refuses entries whose bytes overlap (a non-recursive ZIP bomb: many
/// directory entries sharing one compressed stream). Each entry spans at
/// least its local header (30 bytes and its name) and its compressed data
/// from where its local header starts; sorted by that start, each must
/// end before the next begins.
fn check_entries_do_not_overlap<R: Read + Seek>(zip: &ZipArchive<R>) -> Result<()> {
    let mut spans: Vec<(u64, u64)> = Vec::new();
    spans
        .try_reserve_exact(zip.len())
        .map_err(|_| Error::new(ErrorKind::Zip("too many entries to index".into())))?;
    for position in 0..zip.len() {
        let entry = zip.by_index_data(position).map_err(zip_error)?;
        let start = entry.header_start();
        let end = start
            .saturating_add(30)
            .saturating_add(entry.name_raw().len() as u64)
            .saturating_add(entry.compressed_size());
        spans.push((start, end));
    }
    spans.sort_unstable();
    for pair in spans.windows(2) {
        if pair[1].0 < pair[0].1 {
            return Err(Error::new(ErrorKind::Zip(format!(
                "two entries overlap (one at byte {} runs to byte {}, the next starts at byte {}): refused as a ZIP bomb",
                pair[0].0, pair[0].1, pair[1].0
            ))));
        }
    }
    Ok(())
}

/// The workbook-wide count of inflated bytes a part reader adds to.
struct WorkbookBudget {
    inflated: Arc<AtomicU64>,
    archive_bytes: u64,
}

/// Reads a part that [`Archive::open_part_owned`] opened again, from its
/// start: the same bytes through the same limits, the workbook's budget
/// left as it stands.
pub(crate) type ReopenPart = Box<dyn Fn() -> Result<Box<dyn Read + Send>> + Send + Sync>;

/// A part's compressed bytes, shared by its readers.
#[derive(Clone)]
struct SharedBytes(Arc<Vec<u8>>);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A deflated part read into memory (its compressed bytes), opened as
/// often as asked.
struct OwnedPart {
    name: String,
    bytes: SharedBytes,
    /// Compressed and declared inflated sizes.
    sizes: (u64, u64),
    crc: u32,
    max_bytes: u64,
    limits: Limits,
}

impl OwnedPart {
    /// A reader of the part from its start, counting against `budget`.
    fn open(&self, budget: WorkbookBudget) -> Result<Box<dyn Read + Send>> {
        let inflater = Inflater::new(io::Cursor::new(self.bytes.clone()), self.sizes.0, self.crc);
        let mut reader =
            PartReader::new(inflater, self.sizes, self.max_bytes, &self.limits, budget);
        Ok(
            match utf8_start(&mut reader, &self.name, self.max_bytes, &self.limits)? {
                Utf8Start::Head(head) => Box::new(io::Cursor::new(head).chain(reader)),
                Utf8Start::Whole(text) => Box::new(io::Cursor::new(text)),
            },
        )
    }
}

/// A part's inflated bytes, with the limits enforced as they are read.
pub(crate) struct PartReader<R> {
    inner: R,
    /// A limit passed in a read that brought bytes within it: those are
    /// handed out, the error by the next read (the bytes before a limit
    /// are the same however large the reads are).
    deferred: Option<io::Error>,
    inflated: u64,
    compressed: u64,
    /// The inflated size the directory entry declares.
    declared: u64,
    max_bytes: u64,
    limits: Limits,
    workbook: WorkbookBudget,
}

impl<R> PartReader<R> {
    /// `inner`, a part of `compressed` bytes declared to inflate to
    /// `declared`, read within the part's and the workbook's limits.
    fn new(
        inner: R,
        (compressed, declared): (u64, u64),
        max_bytes: u64,
        limits: &Limits,
        workbook: WorkbookBudget,
    ) -> PartReader<R> {
        PartReader {
            inner,
            deferred: None,
            inflated: 0,
            compressed,
            declared,
            max_bytes,
            limits: *limits,
            workbook,
        }
    }
}

impl<R: Read> PartReader<R> {
    /// The most bytes of the part its own limits let through (its size
    /// limit, its declared size, the compression ratio): past them,
    /// [`check`](Self::check) fails whatever the workbook's other parts
    /// read.
    fn part_cap(&self) -> u64 {
        let ratio = self
            .limits
            .max_compression_ratio
            .saturating_add(1)
            .saturating_mul(self.compressed.max(1))
            .saturating_sub(1)
            .max(self.limits.ratio_threshold_bytes);
        self.max_bytes.min(self.declared).min(ratio)
    }

    /// Checks the limits after `inflated` bytes of the part and `total`
    /// of the workbook, returning the error to stop with.
    fn check(&self, total: u64) -> Option<Error> {
        if self.inflated > self.max_bytes {
            return Some(Error::limit("inflated part size", self.max_bytes));
        }
        if self.inflated > self.declared {
            return Some(Error::new(ErrorKind::Zip(format!(
                "the part inflates past the {} bytes its directory entry declares",
                self.declared
            ))));
        }
        if self.inflated > self.limits.ratio_threshold_bytes
            && self.inflated / self.compressed.max(1) > self.limits.max_compression_ratio
        {
            return Some(Error::limit(
                "compression ratio",
                self.limits.max_compression_ratio,
            ));
        }
        if total > self.limits.max_workbook_bytes {
            return Some(Error::limit(
                "inflated bytes of the whole workbook",
                self.limits.max_workbook_bytes,
            ));
        }
        if total > self.limits.ratio_threshold_bytes
            && total / self.workbook.archive_bytes.max(1) > self.limits.max_compression_ratio
        {
            return Some(Error::limit(
                "compression ratio of the whole workbook (bytes inflated from all parts, as read, to the file's size)",
                self.limits.max_compression_ratio,
            ));
        }
        None
    }
}

impl<R: Read> Read for PartReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(err) = self.deferred.take() {
            return Err(err);
        }
        let count = self.inner.read(buf).map_err(container_error)?;
        let before = self.inflated;
        self.inflated += count as u64;
        let total = self
            .workbook
            .inflated
            .fetch_add(count as u64, Ordering::Relaxed)
            + count as u64;
        match self.check(total) {
            Some(err) => {
                // The bytes up to the part's own limits go out first.
                let within = self.part_cap().saturating_sub(before).min(count as u64) as usize;
                if within == 0 {
                    return Err(err.into());
                }
                self.deferred = Some(err.into());
                Ok(within)
            }
            None => Ok(count),
        }
    }
}
