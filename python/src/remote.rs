//! Workbooks read by byte ranges through Python: an object in a bucket or
//! behind HTTP (through fsspec), or a seekable binary file object.
//!
//! The Python side (`sheetstream/_remote.py`) hands over an object with a
//! `size` and a `read_range(start, end) -> bytes` that is safe to call
//! from several threads at once (fsspec's `cat_file`, or a file object's
//! seek and read under a lock). [`RangeReader`] reads it as the ZIP reader
//! asks: the end first (one request for the central directory, kept for
//! the object's life), then the parts needed, each in ranged requests that
//! start at 256 KiB and double while the part is read front to back (up to
//! 8 MiB), never past the part's end. Chunks fetched are shared by the
//! workbook's readers for a while (a sheet's header and sample, then the
//! sheet read again, fetch its start once). The GIL is held only for the
//! `read_range` call.

use std::collections::VecDeque;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The first request in a part (or after a seek): small, so that reading
/// a sheet's header and sample fetches little more than they hold.
const FIRST_FETCH: usize = 256 * 1024;

/// Requests double while a part is read front to back, up to this.
const LARGEST_FETCH: usize = 8 * 1024 * 1024;

/// The end of the object fetched first: the end of central directory
/// record and, in all but huge packages, the directory (the zip crate
/// looks for the record in the last 65,557 bytes: no second request).
const TAIL_FETCH: u64 = 66 * 1024;

/// Chunks kept for the workbook's other readers: at most this many bytes.
const CACHE_BYTES: usize = 16 * 1024 * 1024;

/// An object this small is fetched whole in one request: a few ranged
/// requests would cost more round trips than the bytes they save.
pub(crate) const WHOLE_BELOW: u64 = 2 * 1024 * 1024;

/// Bytes of the object from `start`.
#[derive(Clone)]
struct Chunk {
    start: u64,
    data: Arc<[u8]>,
}

impl Chunk {
    fn holds(&self, position: u64) -> bool {
        position >= self.start && position - self.start < self.data.len() as u64
    }
}

/// The end of the object, and where the ZIP package's entries start (their
/// local headers, and the central directory; sorted) when the tail held
/// the directory: no request runs past the entry it starts in, so that
/// reading one part fetches no bytes of the next.
struct Tail {
    chunk: Chunk,
    entries: Option<Vec<u64>>,
}

/// A remote object, shared by every reader of one workbook.
pub(crate) struct RemoteObject {
    /// How errors and the `file` column name it: the URL.
    label: String,
    len: u64,
    ranges: Py<PyAny>,
    /// Bytes fetched so far by every reader.
    fetched: AtomicU64,
    tail: OnceLock<Tail>,
    /// Chunks fetched lately, the newest last, at most `CACHE_BYTES`.
    cache: Mutex<VecDeque<Chunk>>,
}

impl RemoteObject {
    /// Wraps the Python range object (`url`, `size`, `read_range`).
    pub(crate) fn new(label: String, len: u64, ranges: Py<PyAny>) -> RemoteObject {
        RemoteObject {
            label,
            len,
            ranges,
            fetched: AtomicU64::new(0),
            tail: OnceLock::new(),
            cache: Mutex::new(VecDeque::new()),
        }
    }

    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    pub(crate) fn bytes_fetched(&self) -> u64 {
        self.fetched.load(Ordering::Relaxed)
    }

    /// Bytes `start..end` (within the object), all of them.
    fn fetch(&self, start: u64, end: u64) -> io::Result<Vec<u8>> {
        let wanted = usize::try_from(end - start).map_err(io::Error::other)?;
        let data = Python::attach(|py| -> PyResult<Vec<u8>> {
            let data = self.ranges.call_method1(py, "read_range", (start, end))?;
            let data = data.bind(py).cast::<PyBytes>()?.as_bytes();
            if data.len() > wanted {
                return Err(pyo3::exceptions::PyOSError::new_err(format!(
                    "{} bytes came for a range of {wanted}",
                    data.len()
                )));
            }
            Ok(data.to_vec())
        })
        .map_err(|err| {
            io::Error::other(format!(
                "{}: reading bytes {start}..{end}: {err}",
                self.label
            ))
        })?;
        self.fetched.fetch_add(data.len() as u64, Ordering::Relaxed);
        if data.len() < wanted {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "{}: truncated: bytes {start}..{end} of {} asked for, {} came",
                    self.label,
                    self.len,
                    data.len()
                ),
            ));
        }
        Ok(data)
    }

    /// The whole object, in one request.
    pub(crate) fn fetch_all(&self) -> io::Result<Vec<u8>> {
        self.fetch(0, self.len)
    }

    /// The end of the object, fetched at the first read: the last 64 KiB,
    /// or from the start of the central directory when it begins earlier.
    fn tail(&self) -> io::Result<&Tail> {
        if let Some(tail) = self.tail.get() {
            return Ok(tail);
        }
        let mut start = self.len.saturating_sub(TAIL_FETCH);
        let mut data = self.fetch(start, self.len)?;
        if let Some(directory) = directory_start(&data)
            && directory < start
            && self.len - directory <= LARGEST_FETCH as u64
        {
            let mut earlier = self.fetch(directory, start)?;
            earlier.extend_from_slice(&data);
            data = earlier;
            start = directory;
        }
        let entries = zip_entries(start, &data, self.len);
        let tail = Tail {
            chunk: Chunk {
                start,
                data: data.into(),
            },
            entries,
        };
        Ok(self.tail.get_or_init(|| tail))
    }

    /// A chunk fetched lately that holds `position`.
    fn cached(&self, position: u64) -> Option<Chunk> {
        let cache = self.cache.lock().ok()?;
        cache
            .iter()
            .rev()
            .find(|chunk| chunk.holds(position))
            .cloned()
    }

    fn keep(&self, chunk: &Chunk) {
        if let Ok(mut cache) = self.cache.lock() {
            cache.push_back(chunk.clone());
            let mut bytes: usize = cache.iter().map(|chunk| chunk.data.len()).sum();
            while bytes > CACHE_BYTES
                && let Some(oldest) = cache.pop_front()
            {
                bytes -= oldest.data.len();
            }
        }
    }
}

/// A reader over a [`RemoteObject`] with read-ahead: clones share the
/// object and each keeps its own position and chunk, so that workers
/// read different sheets at once.
pub(crate) struct RangeReader {
    object: Arc<RemoteObject>,
    position: u64,
    ahead: Option<Chunk>,
}

impl Clone for RangeReader {
    fn clone(&self) -> RangeReader {
        RangeReader {
            object: Arc::clone(&self.object),
            position: self.position,
            ahead: None,
        }
    }
}

impl RangeReader {
    pub(crate) fn new(object: Arc<RemoteObject>) -> RangeReader {
        RangeReader {
            object,
            position: 0,
            ahead: None,
        }
    }

    /// The chunk holding `position`: this reader's, the tail, one fetched
    /// lately, or a new request: twice the last one's size when it follows
    /// on from it, never past the end of the entry it starts in.
    fn chunk(&mut self) -> io::Result<&Chunk> {
        let position = self.position;
        let ahead = self.ahead.take();
        if let Some(chunk) = ahead.as_ref().filter(|chunk| chunk.holds(position)) {
            return Ok(self.ahead.insert(chunk.clone()));
        }
        let tail = self.object.tail()?;
        if tail.chunk.holds(position) {
            return Ok(self.ahead.insert(tail.chunk.clone()));
        }
        if let Some(chunk) = self.object.cached(position) {
            return Ok(self.ahead.insert(chunk));
        }
        let size = match &ahead {
            Some(chunk) if chunk.start + chunk.data.len() as u64 == position => {
                (chunk.data.len() * 2).clamp(FIRST_FETCH, LARGEST_FETCH)
            }
            _ => FIRST_FETCH,
        };
        let mut end = position.saturating_add(size as u64).min(self.object.len());
        if let Some(entries) = &tail.entries {
            let next = entries.partition_point(|&start| start <= position);
            if let Some(&entry_end) = entries.get(next) {
                end = end.min(entry_end);
            }
        }
        let chunk = Chunk {
            start: position,
            data: self.object.fetch(position, end)?.into(),
        };
        self.object.keep(&chunk);
        Ok(self.ahead.insert(chunk))
    }
}

impl Read for RangeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.position >= self.object.len() || buf.is_empty() {
            return Ok(0);
        }
        let position = self.position;
        let chunk = self.chunk()?;
        let skip = (position - chunk.start) as usize;
        let count = (chunk.data.len() - skip).min(buf.len());
        buf[..count].copy_from_slice(&chunk.data[skip..skip + count]);
        self.position += count as u64;
        Ok(count)
    }
}

impl Seek for RangeReader {
    fn seek(&mut self, target: SeekFrom) -> io::Result<u64> {
        let position = match target {
            SeekFrom::Start(offset) => Some(offset),
            SeekFrom::End(delta) => self.object.len().checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        self.position = position.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the object",
            )
        })?;
        Ok(self.position)
    }
}

/// Where the end of central directory record in `data` (the end of the
/// object) says the directory starts.
fn directory_start(data: &[u8]) -> Option<u64> {
    let at = end_record(data)?;
    Some(u64::from(field32(&data[at..], 16)))
}

/// The end of central directory record's offset in `data`, the last one.
fn end_record(data: &[u8]) -> Option<usize> {
    data.windows(4)
        .rposition(|window| window == b"PK\x05\x06")
        .filter(|&at| data.len() - at >= 22)
}

fn field16(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn field32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The offsets where a ZIP package's entries start (and its central
/// directory), sorted, when `data` (the object's bytes from `start` to its
/// end) holds the end of central directory record and the whole
/// directory; None otherwise (ZIP64, a directory outside `data`, anything
/// odd: the reader then fetches without entry bounds, and the ZIP reader
/// checks the package as always).
fn zip_entries(start: u64, data: &[u8], len: u64) -> Option<Vec<u64>> {
    let end = &data[end_record(data)?..];
    let count = usize::from(field16(end, 10));
    let directory_size = u64::from(field32(end, 12));
    let directory_start = u64::from(field32(end, 16));
    if count == 0xFFFF || directory_start == 0xFFFF_FFFF {
        return None; // ZIP64
    }
    let directory_end = directory_start.checked_add(directory_size)?;
    if directory_start < start || directory_end > len {
        return None;
    }
    let directory = data.get(
        usize::try_from(directory_start - start).ok()?
            ..usize::try_from(directory_end - start).ok()?,
    )?;
    let mut entries = Vec::with_capacity(count.min(directory.len() / 46) + 1);
    let mut rest = directory;
    for _ in 0..count {
        if rest.len() < 46 || &rest[..4] != b"PK\x01\x02" {
            return None;
        }
        let offset = u64::from(field32(rest, 42));
        if offset == 0xFFFF_FFFF || offset >= directory_start {
            return None;
        }
        entries.push(offset);
        let skip = 46
            + usize::from(field16(rest, 28))
            + usize::from(field16(rest, 30))
            + usize::from(field16(rest, 32));
        rest = rest.get(skip..)?;
    }
    entries.push(directory_start);
    entries.sort_unstable();
    Some(entries)
}
