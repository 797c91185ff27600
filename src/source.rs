//! Byte sources that clone cheaply, so that every worker thread can read
//! its own sheet from the same archive.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A file opened once and read with positioned reads: clones share the
/// handle and each keeps its own position, so threads read different parts
/// of the file at once without seeking each other's cursor.
///
/// [`Workbook::open`](crate::Workbook::open) reads through one of these.
#[derive(Debug, Clone)]
pub struct SharedFile {
    file: Arc<File>,
    position: u64,
    len: u64,
    progress: Option<Arc<AtomicU64>>,
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

    #[cfg(unix)]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(&*self.file, buf, offset)
    }

    #[cfg(windows)]
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::windows::fs::FileExt::seek_read(&*self.file, buf, offset)
    }
}

impl Read for SharedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let count = self.read_at(buf, self.position)?;
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
}
