//! Byte sources that clone cheaply, so that every worker thread can read
//! its own sheet from the same archive.
//!
//! `SharedFile`, the file handle `Workbook::open` uses: positioned reads into
//! a read-ahead buffer of its own per clone, 256 KiB when a read continues the
//! last fetch (or starts at most 4 KiB past it) and one 512-byte sector
//! otherwise (a compound file's scattered FAT sectors, `FIRST_FETCH`); a read
//! of 32 KiB or more goes straight into the caller's buffer (`DIRECT_READ`);
//! cheap clones for the workers, an optional byte counter for progress.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes fetched per positioned read when reading on from where the last
/// fetch ended and the caller asks for fewer (the ZIP reader asks for 8 KiB
/// at a time; a system call each was measured).
const READ_AHEAD: usize = 256 * 1024;

/// Bytes fetched by a read that does not continue the last fetch, when the
/// caller asks for fewer: a compound file's FAT sectors lie every 64 KiB
/// through the file, and fetching [`READ_AHEAD`] for each of them read a
/// 92 MB `.xls` three times over before its first row. One 512-byte
/// sector: fetching 4 KiB for each of that file's 1,400 FAT sectors made
/// the kernel copy eight times what the open needs (`sheets` of it took
/// 11.2-11.5 ms of CPU, 8.6-9.5 ms with 512; `.xlsx` and `.xlsb` opens
/// unchanged).
const FIRST_FETCH: usize = 512;

/// A read that starts at most this far past where the last fetch ended
/// still reads on (the caller skipped a sector of up to 4 KiB).
const READS_ON_GAP: u64 = 4 * 1024;

/// A read of at least this many bytes goes straight into the caller's
/// buffer, not through the read-ahead buffer: a second copy of every byte
/// costs more than the system call it saves. The workbook stream of a
/// compound file whose FAT sectors lie every 64 KiB through it comes in
/// runs of 127 sectors (65,024 bytes), each asked for whole: through the
/// read-ahead buffer, `count -t 1` of the bench's 92 MB 8-sheet `.xls`
/// copied every byte twice (102M of its 1,378M instructions).
const DIRECT_READ: usize = 32 * 1024;

/// A file opened once and read with positioned reads: clones share the
/// handle and each keeps its own position (and read-ahead buffer), so
/// threads read different parts of the file at once without seeking each
/// other's cursor.
///
/// [`Workbook::open`](crate::Workbook::open) reads through one of these.
#[derive(Debug)]
pub struct SharedFile {
    file: Arc<File>,
    position: u64,
    len: u64,
    progress: Option<Arc<AtomicU64>>,
    /// Bytes read ahead: `ahead[..ahead_len]` is the file from offset
    /// `ahead_start`. Allocated at the first read.
    ahead: Vec<u8>,
    ahead_start: u64,
    ahead_len: usize,
    /// Positioned reads made by this handle (not its clones).
    fetches: u64,
}

impl Clone for SharedFile {
    /// The same file and position, with a read-ahead buffer of its own.
    fn clone(&self) -> SharedFile {
        SharedFile {
            file: Arc::clone(&self.file),
            position: self.position,
            len: self.len,
            progress: self.progress.clone(),
            ahead: Vec::new(),
            ahead_start: 0,
            ahead_len: 0,
            fetches: 0,
        }
    }
}

impl SharedFile {
    /// Opens a file for reading.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or its size read.
    pub fn open(path: impl AsRef<Path>) -> io::Result<SharedFile> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(SharedFile {
            file: Arc::new(file),
            position: 0,
            len,
            progress: None,
            ahead: Vec::new(),
            ahead_start: 0,
            ahead_len: 0,
            fetches: 0,
        })
    }

    /// The file's size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds every byte read, by this handle and its clones, to `counter`:
    /// the compressed bytes consumed so far, for a progress bar.
    pub fn with_progress(mut self, counter: Arc<AtomicU64>) -> SharedFile {
        self.progress = Some(counter);
        self
    }

    /// The read-ahead bytes from `position` on, fetching more when there
    /// are none: [`READ_AHEAD`] bytes when `position` is where the last
    /// fetch ended or a little past it (the caller reads on, perhaps
    /// skipping a sector), else [`FIRST_FETCH`] or `wanted`.
    fn buffered(&mut self, wanted: usize) -> io::Result<&[u8]> {
        let skip = self
            .position
            .checked_sub(self.ahead_start)
            .and_then(|skip| usize::try_from(skip).ok())
            .filter(|&skip| skip < self.ahead_len);
        let skip = match skip {
            Some(skip) => skip,
            None => {
                let fetched_end = self.ahead_start + self.ahead_len as u64;
                let reads_on = self.ahead_len > 0
                    && (fetched_end..=fetched_end + READS_ON_GAP).contains(&self.position);
                let fetch = if reads_on {
                    READ_AHEAD
                } else {
                    wanted.clamp(FIRST_FETCH, READ_AHEAD)
                };
                if self.ahead.len() < fetch {
                    self.ahead.resize(fetch, 0);
                }
                self.ahead_len = read_at(&self.file, &mut self.ahead[..fetch], self.position)?;
                self.fetches += 1;
                self.ahead_start = self.position;
                0
            }
        };
        Ok(&self.ahead[skip..self.ahead_len])
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

impl Read for SharedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let count = if buf.len() >= DIRECT_READ {
            self.fetches += 1;
            read_at(&self.file, buf, self.position)?
        } else {
            let ahead = self.buffered(buf.len())?;
            let count = ahead.len().min(buf.len());
            buf[..count].copy_from_slice(&ahead[..count]);
            count
        };
        self.position += count as u64;
        if let Some(progress) = &self.progress {
            progress.fetch_add(count as u64, Ordering::Relaxed);
        }
        Ok(count)
    }
}

impl Seek for SharedFile {
    fn seek(&mut self, target: SeekFrom) -> io::Result<u64> {
        let position = match target {
            SeekFrom::Start(offset) => Some(offset),
            SeekFrom::End(delta) => self.len.checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        self.position = position.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the file",
            )
        })?;
        Ok(self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_read_independently() {
        let path =
            std::env::temp_dir().join(format!("sheetstream-shared-file-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        let mut first = SharedFile::open(&path).unwrap();
        let mut second = first.clone();
        let mut buf = [0u8; 4];
        first.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"0123");
        second.seek(SeekFrom::End(-3)).unwrap();
        second.read_exact(&mut buf[..3]).unwrap();
        assert_eq!(&buf[..3], b"789");
        first.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"4567");
        assert!(second.seek(SeekFrom::Current(-100)).is_err());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn reads_ahead_and_seeks_within_and_past_what_it_read() {
        let path = std::env::temp_dir().join(format!(
            "sheetstream-shared-file-ahead-{}",
            std::process::id()
        ));
        let data: Vec<u8> = (0..3 * READ_AHEAD + 1234)
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        std::fs::write(&path, &data).unwrap();
        let mut file = SharedFile::open(&path).unwrap();
        let expect = |file: &mut SharedFile, at: usize, len: usize| {
            file.seek(SeekFrom::Start(at as u64)).unwrap();
            let mut buf = vec![0u8; len];
            file.read_exact(&mut buf).unwrap();
            assert_eq!(buf, data[at..at + len], "{len} bytes at {at}");
        };
        // Small reads across the end of a read-ahead, back inside it, past
        // it, and one larger than it (read directly).
        expect(&mut file, 10, 8192);
        expect(&mut file, READ_AHEAD - 100, 8192);
        expect(&mut file, 20, 100);
        expect(&mut file, 2 * READ_AHEAD + 7, 5000);
        expect(&mut file, 5, READ_AHEAD + 3);
        expect(&mut file, data.len() - 10, 10);
        let mut rest = Vec::new();
        file.seek(SeekFrom::Start(1)).unwrap();
        file.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, data[1..]);
        // A clone starts where its original is, with no read-ahead of its own.
        file.seek(SeekFrom::Start(100)).unwrap();
        let mut clone = file.clone();
        let mut buf = [0u8; 3];
        clone.read_exact(&mut buf).unwrap();
        assert_eq!(buf, data[100..103]);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn fetches_little_for_scattered_reads_and_much_for_reading_on() {
        let path = std::env::temp_dir().join(format!(
            "sheetstream-shared-file-fetch-{}",
            std::process::id()
        ));
        let data: Vec<u8> = (0..5 * READ_AHEAD).map(|i| (i % 249) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        // A sector every 64 KiB, as a compound file's FAT lies: one small
        // fetch each, never a read-ahead of the whole stretch between.
        let mut file = SharedFile::open(&path).unwrap();
        let mut sector = [0u8; 512];
        for at in (0..4 * READ_AHEAD).step_by(64 * 1024) {
            file.seek(SeekFrom::Start(at as u64)).unwrap();
            file.read_exact(&mut sector).unwrap();
            assert_eq!(sector[..], data[at..at + 512]);
        }
        assert_eq!(file.fetches, 16);
        assert_eq!(file.ahead.len(), FIRST_FETCH);
        // Reading on in 8 KiB pieces: after the first small fetch, one
        // fetch per READ_AHEAD bytes; skipping a sector still reads on.
        let mut file = SharedFile::open(&path).unwrap();
        let mut piece = vec![0u8; 8192];
        let mut at = 0;
        while at + piece.len() <= 3 * READ_AHEAD {
            file.read_exact(&mut piece).unwrap();
            assert_eq!(piece, data[at..at + piece.len()]);
            at += piece.len();
        }
        assert_eq!(file.fetches, 4, "8 KiB, then three read-aheads");
        let past_fetched = file.ahead_start + file.ahead_len as u64 + 512;
        file.seek(SeekFrom::Start(past_fetched)).unwrap();
        file.read_exact(&mut piece).unwrap();
        let past_fetched = past_fetched as usize;
        assert_eq!(piece, data[past_fetched..past_fetched + piece.len()]);
        assert_eq!((file.fetches, file.ahead_len), (5, READ_AHEAD));
        std::fs::remove_file(&path).unwrap();
    }
}
