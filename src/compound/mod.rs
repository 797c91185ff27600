//! The OLE2 compound file (CFB), read through the `cfb` crate: what it
//! holds (a BIFF workbook stream, an encrypted package, another Office
//! document), and a reader over one of its streams, shared by clones. The
//! container of `.xls` workbooks (and of encrypted packages); it knows
//! nothing of what the streams hold.
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
//! Once the crate has opened the file, [`StreamMap`] reads where the
//! workbook stream lies (its sector chain, as runs of consecutive
//! sectors) and the crate's file is dropped. A [`Compound`] holds the
//! reader and that map; every clone (one per
//! parallel worker) shares the map and reads the file directly through
//! [`StreamReader`] with its own clone of the reader: the FAT and
//! directory are read once per workbook, with no lock between workers.
//!
//! `Fat` (the header's and DIFAT's list of FAT sectors and their bytes, at
//! most the sectors that cover the file) is read once before the crate opens
//! the file, and handed to it from memory by `Metered`, which also mends two
//! header fields other readers ignore (the byte order mark; a MiniFAT the
//! crate refuses, tried again without it).

use std::collections::HashMap;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use cfb::{CompoundFile, Stream};

use crate::error::{Error, ErrorKind, Result};

/// The first eight bytes of every compound file.
pub(crate) const MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

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

    /// The reader, once no compound file holds it any more.
    pub(crate) fn into_inner(self) -> Option<R> {
        Arc::try_unwrap(self.0)
            .ok()
            .map(|mutex| mutex.into_inner().unwrap_or_else(PoisonError::into_inner))
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

/// One stream of a compound file: the reader, where the stream lies in it
/// (read from the FAT once at open, shared by every clone) and its name
/// (for `.xls`, `Workbook`, or `Book` for BIFF5).
pub(crate) struct Compound<R> {
    pub(crate) reader: R,
    pub(crate) map: Arc<StreamMap>,
    pub(crate) stream: &'static str,
}

impl<R: Clone> Clone for Compound<R> {
    /// A container over a clone of the reader, sharing the stream's map:
    /// nothing of the compound file is read again.
    fn clone(&self) -> Compound<R> {
        Compound {
            reader: self.reader.clone(),
            map: Arc::clone(&self.map),
            stream: self.stream,
        }
    }
}

impl<R: Read + Seek> Compound<R> {
    /// The workbook stream of this container, read from `offset` on.
    pub(crate) fn open_at(&mut self, offset: u64) -> Result<StreamReader<'_, R>> {
        StreamReader::new(&mut self.reader, &self.map, offset)
    }
}

/// A compound file opened by the `cfb` crate (within the read budget, its
/// FAT read once): what it holds, and the maps of the streams to read,
/// before the crate's file is dropped and the reader handed on
/// ([`OpenedCompound::into_reader`]).
pub(crate) struct OpenedCompound<R> {
    file: CompoundFile<Metered<Locked<R>>>,
    locked: Locked<R>,
    fat: Option<Arc<Fat>>,
}

impl<R: Read + Seek> OpenedCompound<R> {
    /// Opens the compound file in `reader` (which starts with its magic).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotZip`] for a header that is no readable compound
    /// file's, [`ErrorKind::Xls`] for a damaged container.
    pub(crate) fn open(mut reader: R) -> Result<OpenedCompound<R>> {
        if let Some(detail) = header_problem(&mut reader)? {
            return Err(Error::new(ErrorKind::NotZip { detail }));
        }
        let locked = Locked::new(reader);
        // The FAT read once, here; if it cannot be, the crate says why (or
        // a stream's map, read without it).
        let fat = Fat::read(&mut locked.clone()).ok().map(Arc::new);
        let file = match open_compound(locked.clone(), false, fat.clone()) {
            Ok(file) => file,
            Err(err) if is_minifat_error(&err) => {
                open_compound(locked.clone(), true, fat.clone()).map_err(compound_error)?
            }
            Err(err) => return Err(compound_error(err)),
        };
        Ok(OpenedCompound { file, locked, fat })
    }

    /// Every entry's path from the root (`/EncryptionInfo`,
    /// `/\u{6}DataSpaces/...`), storages and streams: read from the
    /// directory in memory.
    #[cfg_attr(not(feature = "encryption"), allow(dead_code))]
    pub(crate) fn paths(&self) -> Vec<String> {
        self.file
            .walk()
            .map(|entry| entry.path().to_string_lossy().into_owned())
            .collect()
    }

    /// What the file holds: a workbook stream, or what else.
    pub(crate) fn contents(&self) -> Contents {
        contents(&self.file)
    }

    /// The length of the stream `name` among the root's children, if
    /// there is one.
    #[cfg_attr(not(feature = "encryption"), allow(dead_code))]
    pub(crate) fn stream_len(&self, name: &str) -> Option<u64> {
        self.file
            .read_root_storage()
            .find(|entry| entry.is_stream() && entry.name() == name)
            .map(|entry| entry.len())
    }

    /// The stream `name` among the root's children, read through the
    /// crate (for a small one: an encryption header).
    #[cfg_attr(not(feature = "encryption"), allow(dead_code))]
    pub(crate) fn open_stream(&mut self, name: &str) -> Result<impl Read + '_> {
        stream_at(&mut self.file, name, 0)
            .map(CheckedStream)
            .map_err(|err| err.with_part(name))
    }

    /// Where the stream `name` (among the root's children, `len` bytes)
    /// lies in the file.
    pub(crate) fn map(&mut self, name: &str, len: u64) -> Result<StreamMap> {
        let mut reader = self.locked.clone();
        StreamMap::read(&mut reader, &mut self.file, self.fat.as_deref(), name, len)
            .map_err(|err| err.with_part(name))
    }

    /// The reader back, the crate's file and the FAT dropped: from here on
    /// the file is read directly through the maps, the compound file's FAT
    /// and directory never again.
    pub(crate) fn into_reader(self) -> Result<R> {
        let OpenedCompound { file, locked, fat } = self;
        drop(file);
        drop(fat);
        locked.into_inner().ok_or_else(|| {
            Error::new(ErrorKind::Xls(
                "the compound file's reader is still in use".into(),
            ))
        })
    }
}

/// Sector ids at and above this are markers (free, end of chain, FAT and
/// DIFAT sectors), not sectors.
const MAX_REGULAR_SECTOR: u32 = 0xFFFF_FFFA;

/// The `cfb` crate keeps streams shorter than this in the mini stream.
const MINI_STREAM_CUTOFF: u64 = 4096;

/// One stretch of the workbook stream that lies in consecutive sectors.
#[derive(Debug, Clone, Copy)]
struct Run {
    /// Where it starts in the stream.
    stream: u64,
    /// Where it starts in the file.
    file: u64,
    /// Its length in bytes.
    len: u64,
}

/// Where the workbook stream's bytes lie in the file: its sector chain as
/// runs of consecutive sectors (a handful for a file written in one go),
/// or the bytes themselves for a stream in the mini stream (under 4 KiB).
/// Read once at open, after the `cfb` crate has opened (and checked) the
/// compound file, so that a sheet's reader reads the file directly with
/// positioned reads of its own reader: no FAT read again, no chain walked
/// per sheet, no lock.
#[derive(Debug)]
pub(crate) struct StreamMap {
    runs: Vec<Run>,
    /// The bytes of a stream held in the mini stream.
    small: Option<Box<[u8]>>,
    len: u64,
}

impl StreamMap {
    /// The map of `stream` (of `len` bytes) in the compound file `file`
    /// opened over `reader`'s bytes, through `fat` (read before the crate
    /// opened the file; read here if that failed, for its error).
    pub(crate) fn read<R: Read + Seek, F: Read + Seek>(
        reader: &mut R,
        file: &mut CompoundFile<F>,
        fat: Option<&Fat>,
        stream: &str,
        len: u64,
    ) -> Result<StreamMap> {
        if len < MINI_STREAM_CUTOFF {
            let mut bytes = Vec::new();
            stream_at(file, stream, 0)?
                .take(len)
                .read_to_end(&mut bytes)
                .map_err(compound_error)?;
            let len = bytes.len() as u64;
            return Ok(StreamMap {
                runs: Vec::new(),
                small: Some(bytes.into_boxed_slice()),
                len,
            });
        }
        let read_now;
        let fat = match fat {
            Some(fat) => fat,
            None => {
                read_now = Fat::read(reader)?;
                &read_now
            }
        };
        let start = fat.find_stream(reader, stream, len)?;
        let sector_len = fat.sector_len;
        let needed = len.div_ceil(sector_len).min(fat.count + 1);
        let mut runs: Vec<Run> = Vec::new();
        let mut sector = start;
        let mut mapped = 0u64;
        let mut steps = 0u64;
        while steps < needed {
            if sector >= MAX_REGULAR_SECTOR || u64::from(sector) >= fat.count {
                break;
            }
            // The chain from `sector` on while it runs through the file's
            // next sectors: one run, at most what the stream still needs.
            let most = (len - mapped).div_ceil(sector_len).min(needed - steps);
            let taken = fat.consecutive(sector, most)?;
            steps += taken;
            let file_at = (u64::from(sector) + 1) * sector_len;
            let piece = (taken * sector_len).min(len - mapped);
            match runs.last_mut() {
                Some(run) if run.file + run.len == file_at => run.len += piece,
                _ => runs.push(Run {
                    stream: mapped,
                    file: file_at,
                    len: piece,
                }),
            }
            mapped += piece;
            if mapped >= len {
                break;
            }
            // `taken` is at most the file's sector count: a `u32`.
            sector = fat.next(sector + (taken - 1) as u32)?;
        }
        Ok(StreamMap {
            runs,
            small: None,
            len,
        })
    }
}

/// Where a reader of a stream through its [`StreamMap`] stands: the
/// position in the stream, the run it lies in, and where the file's reader
/// stands. Shared by the borrowing [`StreamReader`] and the owning
/// [`OwnedStream`].
#[derive(Debug, Clone, Copy)]
struct StreamCursor {
    position: u64,
    /// The run `position` lies in (the one last read, usually).
    run: usize,
    /// Where the file's reader stands, if known.
    at: Option<u64>,
}

impl StreamCursor {
    /// At `offset` in a stream mapped by `map` (at most its end).
    fn new(map: &StreamMap, offset: u64) -> Result<StreamCursor> {
        if offset > map.len {
            return Err(Error::new(ErrorKind::Xls(format!(
                "offset {offset} lies past the end of the stream ({} bytes)",
                map.len
            ))));
        }
        Ok(StreamCursor {
            position: offset,
            run: 0,
            at: None,
        })
    }

    /// Reads from the stream at the cursor, through `reader` (a read within
    /// one run is one read of the file).
    fn read<R: Read + Seek>(
        &mut self,
        reader: &mut R,
        map: &StreamMap,
        buf: &mut [u8],
    ) -> io::Result<usize> {
        if self.position >= map.len || buf.is_empty() {
            return Ok(0);
        }
        if let Some(small) = &map.small {
            let from = usize::try_from(self.position).unwrap_or(usize::MAX);
            let mut rest = small.get(from..).unwrap_or_default();
            let read = rest.read(buf)?;
            self.position += read as u64;
            return Ok(read);
        }
        let runs = &map.runs;
        let inside = |run: &Run| (run.stream..run.stream + run.len).contains(&self.position);
        if !runs.get(self.run).is_some_and(inside) {
            self.run = runs.partition_point(|run| run.stream + run.len <= self.position);
        }
        let Some(run) = runs.get(self.run).copied().filter(inside) else {
            // The chain ends before the stream does.
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the stream's sector chain ends before the stream",
            ));
        };
        let within = self.position - run.stream;
        let file_at = run.file + within;
        if self.at != Some(file_at) {
            reader.seek(SeekFrom::Start(file_at))?;
        }
        let wanted = buf
            .len()
            .min(usize::try_from(run.len - within).unwrap_or(usize::MAX));
        let read = reader.read(&mut buf[..wanted]);
        let read = match read {
            Ok(0) => {
                self.at = None;
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "a sector of the stream lies past the end of the file",
                ));
            }
            Ok(read) => read,
            Err(err) => {
                self.at = None;
                return Err(err);
            }
        };
        self.position += read as u64;
        self.at = Some(file_at + read as u64);
        Ok(read)
    }

    /// Moves the cursor (no I/O).
    fn seek(&mut self, map: &StreamMap, pos: SeekFrom) -> io::Result<u64> {
        let target = match pos {
            SeekFrom::Start(at) => Some(at),
            SeekFrom::Current(by) => self.position.checked_add_signed(by),
            SeekFrom::End(by) => map.len.checked_add_signed(by),
        };
        let Some(target) = target else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a seek before the start of the stream",
            ));
        };
        self.position = target;
        Ok(target)
    }
}

/// A reader of the workbook stream through its [`StreamMap`], from the
/// file directly (a read within one run is one read of the file).
pub(crate) struct StreamReader<'a, R> {
    reader: &'a mut R,
    map: &'a StreamMap,
    cursor: StreamCursor,
}

impl<'a, R: Read + Seek> StreamReader<'a, R> {
    /// The stream from `offset` on (at most its end).
    pub(crate) fn new(
        reader: &'a mut R,
        map: &'a StreamMap,
        offset: u64,
    ) -> Result<StreamReader<'a, R>> {
        Ok(StreamReader {
            cursor: StreamCursor::new(map, offset)?,
            reader,
            map,
        })
    }
}

impl<R: Read + Seek> Read for StreamReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.cursor.read(self.reader, self.map, buf)
    }
}

impl<R: Read + Seek> Seek for StreamReader<'_, R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.cursor.seek(self.map, pos)
    }
}

/// A stream of a compound file that owns its reader of the file and
/// shares its [`StreamMap`]: the `EncryptedPackage` stream an encrypted
/// package is decrypted from. Clone it (when the reader clones) for
/// another reader of the same stream, with a position of its own (a
/// parallel worker's): the map is shared, nothing of the compound file is
/// read again.
#[cfg_attr(not(feature = "encryption"), allow(dead_code))]
pub(crate) struct OwnedStream<R> {
    reader: R,
    map: Arc<StreamMap>,
    cursor: StreamCursor,
}

impl<R: Clone> Clone for OwnedStream<R> {
    fn clone(&self) -> OwnedStream<R> {
        OwnedStream {
            reader: self.reader.clone(),
            map: Arc::clone(&self.map),
            // The clone's reader stands wherever it stands: seek first.
            cursor: StreamCursor {
                at: None,
                ..self.cursor
            },
        }
    }
}

#[cfg_attr(not(feature = "encryption"), allow(dead_code))]
impl<R: Read + Seek> OwnedStream<R> {
    /// The stream `map` maps in the file `reader` reads, from its start.
    pub(crate) fn new(reader: R, map: Arc<StreamMap>) -> OwnedStream<R> {
        OwnedStream {
            reader,
            map,
            cursor: StreamCursor {
                position: 0,
                run: 0,
                at: None,
            },
        }
    }
}

impl<R: Read + Seek> Read for OwnedStream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.cursor.read(&mut self.reader, &self.map, buf)
    }
}

impl<R: Read + Seek> Seek for OwnedStream<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.cursor.seek(&self.map, pos)
    }
}

/// The compound file's FAT, read from the file once: the header's and the
/// DIFAT's list of FAT sectors and those sectors' bytes. It is read
/// before the `cfb` crate opens the file, which is then handed these
/// sectors from memory ([`Metered`]) rather than reading them again, and
/// [`StreamMap::read`] walks the workbook stream's chain through it.
///
/// It holds at most the FAT sectors that cover the file's sectors (one for
/// every `sector_len / 4` sectors, about 1/128 of the file, as the crate's
/// own FAT), whatever the header claims, and is dropped once the stream's
/// map is made. Every loop is bounded by the file's sector count.
pub(crate) struct Fat {
    sector_len: u64,
    /// How many whole or partial sectors follow the header.
    count: u64,
    /// The FAT's sectors, in order.
    sectors: Vec<u32>,
    /// Their bytes, `sector_len` each; zeros for a sector past the file
    /// (refused when a chain needs it, [`Fat::next`]).
    bytes: Vec<u8>,
    /// Each FAT sector's place in `sectors`, for serving the crate.
    places: HashMap<u32, usize>,
    first_directory: u32,
}

impl Fat {
    /// Reads the header, the DIFAT and the FAT sectors of the compound
    /// file in `reader`.
    pub(crate) fn read<R: Read + Seek>(reader: &mut R) -> Result<Fat> {
        let file_len = reader.seek(SeekFrom::End(0))?;
        let mut header = [0u8; 512];
        read_at(reader, 0, &mut header)?;
        let word = |at: usize| u16::from_le_bytes([header[at], header[at + 1]]);
        let long = |at: usize| {
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
        };
        let sector_len = if word(0x1E) == 12 { 4096 } else { 512 };
        let count = file_len.saturating_sub(sector_len).div_ceil(sector_len);
        let per_sector = (sector_len / 4) as usize;
        // FAT sectors past the one covering the file's last sector describe
        // no sector: neither read nor held.
        let fat_count = u64::from(long(0x2C)).min(count.div_ceil(per_sector as u64));
        let mut sectors = Vec::new();
        for index in 0..109usize {
            if sectors.len() as u64 >= fat_count {
                break;
            }
            sectors.push(long(0x4C + index * 4));
        }
        let mut difat = long(0x44);
        let mut sector = vec![0u8; sector_len as usize];
        let mut steps = 0u64;
        while (sectors.len() as u64) < fat_count && difat < MAX_REGULAR_SECTOR {
            steps += 1;
            if steps > count {
                return Err(damaged("its DIFAT chain loops"));
            }
            read_at(reader, (u64::from(difat) + 1) * sector_len, &mut sector)?;
            for index in 0..per_sector - 1 {
                if sectors.len() as u64 >= fat_count {
                    break;
                }
                sectors.push(u32_at(&sector, index * 4));
            }
            difat = u32_at(&sector, (per_sector - 1) * 4);
        }
        let mut bytes = vec![0u8; sectors.len() * sector_len as usize];
        let mut places = HashMap::with_capacity(sectors.len());
        for (place, (&fat_sector, into)) in sectors
            .iter()
            .zip(bytes.chunks_exact_mut(sector_len as usize))
            .enumerate()
        {
            if fat_sector < MAX_REGULAR_SECTOR && u64::from(fat_sector) < count {
                read_at(reader, (u64::from(fat_sector) + 1) * sector_len, into)?;
                places.entry(fat_sector).or_insert(place);
            }
        }
        // The entries past the file's last sector describe no sector; MS-CFB
        // fills them with FREESECT, excelize with ENDOFCHAIN, which the
        // `cfb` crate refuses ("Malformed FAT"): they are handed to it as
        // free, which they are. (Only the bytes of the last FAT sector that
        // covers the file are past it; no chain can reach those sectors.)
        let past_end = usize::try_from(count)
            .unwrap_or(usize::MAX)
            .saturating_mul(4);
        if let Some(tail) = bytes.get_mut(past_end..) {
            tail.fill(0xFF);
        }
        Ok(Fat {
            sector_len,
            count,
            sectors,
            bytes,
            places,
            first_directory: long(0x30),
        })
    }

    /// The bytes of the file from `offset` on, if they lie in a FAT sector
    /// held here (up to that sector's end).
    fn bytes_at(&self, offset: u64) -> Option<&[u8]> {
        let sector = u32::try_from((offset / self.sector_len).checked_sub(1)?).ok()?;
        let &place = self.places.get(&sector)?;
        let from = place * self.sector_len as usize + (offset % self.sector_len) as usize;
        let to = (place + 1) * self.sector_len as usize;
        self.bytes.get(from..to)
    }

    /// How many sectors from `sector` on (at most `most`, at least one)
    /// its chain takes in file order, each followed by the next one.
    fn consecutive(&self, sector: u32, most: u64) -> Result<u64> {
        let mut last = sector;
        let mut taken = 1;
        while taken < most && u64::from(last) + 1 < self.count && self.next(last)? == last + 1 {
            last += 1;
            taken += 1;
        }
        Ok(taken)
    }

    /// The sector after `sector` in its chain.
    #[inline]
    fn next(&self, sector: u32) -> Result<u32> {
        // Entry `sector` lies at byte `4 * sector` of the FAT's bytes, in
        // FAT sector `place` (a sector is 512 or 4096 bytes: a shift).
        let at = sector as usize * 4;
        let place = at >> self.sector_len.trailing_zeros();
        let &fat_sector = self
            .sectors
            .get(place)
            .ok_or_else(|| damaged("a sector lies past the end of its FAT"))?;
        if fat_sector >= MAX_REGULAR_SECTOR || u64::from(fat_sector) >= self.count {
            return Err(damaged("a FAT sector lies past the end of the file"));
        }
        Ok(u32_at(&self.bytes, at))
    }

    /// The first sector of the stream named `name` (any case) among the
    /// root storage's children, `len` bytes long.
    fn find_stream<R: Read + Seek>(&self, reader: &mut R, name: &str, len: u64) -> Result<u32> {
        // The directory's sectors.
        let mut directory = Vec::new();
        let mut sector = self.first_directory;
        while sector < MAX_REGULAR_SECTOR {
            if directory.len() as u64 >= self.count || u64::from(sector) >= self.count {
                return Err(damaged("its directory chain loops or leaves the file"));
            }
            directory.push(sector);
            sector = self.next(sector)?;
        }
        let per_sector = (self.sector_len / 128) as usize;
        let total = directory.len() * per_sector;
        let mut entry = [0u8; 128];
        let mut read_entry = |index: u32| -> Result<Option<[u8; 128]>> {
            let index = index as usize;
            if index >= total {
                return Ok(None);
            }
            let at = (u64::from(directory[index / per_sector]) + 1) * self.sector_len
                + (index % per_sector) as u64 * 128;
            read_at(reader, at, &mut entry)?;
            Ok(Some(entry))
        };
        let Some(root) = read_entry(0)? else {
            return Err(damaged("it has no root entry"));
        };
        let mut stack = vec![u32_at(&root, 0x4C)];
        let mut visited = 0usize;
        while let Some(index) = stack.pop() {
            if index >= MAX_REGULAR_SECTOR {
                continue;
            }
            visited += 1;
            if visited > total {
                return Err(damaged("its directory tree loops"));
            }
            let Some(entry) = read_entry(index)? else {
                continue;
            };
            stack.push(u32_at(&entry, 0x44));
            stack.push(u32_at(&entry, 0x48));
            let name_len = usize::from(u16::from_le_bytes([entry[0x40], entry[0x41]]));
            let units: Vec<u16> = entry[..name_len.clamp(2, 64) - 2]
                .chunks_exact(2)
                .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
                .collect();
            let size = u64::from_le_bytes(entry[0x78..0x80].try_into().unwrap_or_default());
            let size = if self.sector_len == 512 {
                size & 0xFFFF_FFFF
            } else {
                size
            };
            if entry[0x42] == 2
                && size == len
                && String::from_utf16_lossy(&units).eq_ignore_ascii_case(name)
            {
                return Ok(u32_at(&entry, 0x74));
            }
        }
        Err(damaged(&format!(
            "its {name} stream has no directory entry"
        )))
    }
}

/// A damaged compound file's error.
fn damaged(what: &str) -> Error {
    Error::new(ErrorKind::Xls(format!(
        "damaged OLE2 compound file: {what}"
    )))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .map_or(u32::MAX, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Fills `buf` from `offset` (zeros past the end of the file, as the
/// `cfb` crate reads a last sector cut short).
fn read_at(reader: &mut (impl Read + Seek), offset: u64, buf: &mut [u8]) -> Result<()> {
    reader.seek(SeekFrom::Start(offset))?;
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    buf[filled..].fill(0);
    Ok(())
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
///
/// The FAT's sectors, read before ([`Fat`]), are handed to the crate from
/// memory (counted against the budget all the same), not read again.
pub(crate) struct Metered<F> {
    inner: F,
    budget: Arc<AtomicU64>,
    position: u64,
    skip_minifat: bool,
    fat: Option<Arc<Fat>>,
    /// Whether `inner` stands behind `position` (after bytes handed out
    /// from `fat`).
    inner_behind: bool,
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

impl<F: Read + Seek> Read for Metered<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.inner_behind {
            self.inner.seek(SeekFrom::Start(self.position))?;
            self.inner_behind = false;
        }
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
        let held = self
            .fat
            .as_deref()
            .and_then(|fat| fat.bytes_at(self.position));
        let read = match held {
            Some(bytes) => {
                let read = wanted.min(bytes.len());
                buf[..read].copy_from_slice(&bytes[..read]);
                self.inner_behind = true;
                read
            }
            None => self.inner.read(&mut buf[..wanted])?,
        };
        self.budget.fetch_sub(read as u64, Ordering::Relaxed);
        self.position += read as u64;
        Ok(read)
    }
}

impl<F: Seek> Seek for Metered<F> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let pos = match pos {
            SeekFrom::Current(by) if self.inner_behind => {
                SeekFrom::Start(self.position.checked_add_signed(by).ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "a seek before the file's start",
                    )
                })?)
            }
            pos => pos,
        };
        self.position = self.inner.seek(pos)?;
        self.inner_behind = false;
        Ok(self.position)
    }
}

/// Opens the compound file in `reader` within the budget; with
/// `skip_minifat`, as if it had no MiniFAT; with `fat`, handing the crate
/// those FAT sectors from memory (see [`Metered`]).
pub(crate) fn open_compound<F: Read + Seek>(
    mut reader: F,
    skip_minifat: bool,
    fat: Option<Arc<Fat>>,
) -> io::Result<CompoundFile<Metered<F>>> {
    let len = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(0))?;
    let budget = Arc::new(AtomicU64::new(open_budget(len)));
    let metered = Metered {
        inner: reader,
        budget: Arc::clone(&budget),
        position: 0,
        skip_minifat,
        fat,
        inner_behind: false,
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

/// A stream read through the `cfb` crate, whose errors are read as
/// [`compound_error`] reads them: a damaged container found in the middle
/// of a read (a sector chain the MiniFAT does not hold) is a typed error,
/// never an I/O error from bytes in memory.
struct CheckedStream<S>(S);

impl<S: Read> Read for CheckedStream<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0
            .read(buf)
            .map_err(|err| io::Error::from(compound_error(err)))
    }
}

/// What a compound file holds: a workbook stream, or what else it is.
pub(crate) enum Contents {
    /// The name of the stream holding a workbook and its length.
    Workbook(&'static str, u64),
    /// An encrypted package (`EncryptionInfo`, `EncryptedPackage`): an
    /// encrypted `.xlsx`/`.xlsb`, read only with the `encryption` feature.
    #[cfg_attr(feature = "encryption", allow(dead_code))]
    EncryptedPackage,
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
        return Contents::EncryptedPackage;
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
