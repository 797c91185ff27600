//! The window of inflated bytes a scanner works on.
//!
//! A part is read in fixed-size chunks into one reusable buffer. Scanners
//! consume whole units (a row, a shared string item) from the front of the
//! window; a unit cut off by the end of a chunk stays in the window, is moved
//! to the front, and the next chunk is appended behind it. The buffer grows
//! only when a single unit is larger than it, so memory follows the largest
//! unit, never the part.
//!
//! A window is filled from a reader (64 KiB, or what one read gives, not a
//! whole buffer, so the first row waits only for the start of the part), or by
//! taking whole buffers from the pipe (`crate::archive::pipe`). A unit cut off
//! by the window's end is scanned again only once the window has doubled
//! (`rescan_target`), so a long row costs linear time on both paths; the
//! buffer grows within the unit limit, never doubling past it.

use std::io::Read;

use crate::error::{Error, Result};

/// Bytes asked of the inflater per read. Each read ends with the inflater
/// copying up to 32 KiB of what it wrote into its window, so bigger reads
/// cost less per byte: 512 KiB streams the 1M x 10 sheet of the read bench
/// about 2% faster than 128 KiB (measured), and still fits a core's L2
/// cache with the scanner reading what was just inflated.
pub(crate) const CHUNK_SIZE: usize = 512 * 1024;

/// The least a fill reads, unless the buffer fills or the part ends first.
const MIN_FILL: usize = 64 * 1024;

pub(crate) struct ChunkBuffer {
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Offset in the part of `buf[start]`.
    offset: u64,
    eof: bool,
    max_unit_bytes: u64,
    /// An error the reader gave after bytes came in: raised by the next
    /// fill, once the scanner has had those bytes (so the rows before a
    /// damaged or cut stream are the same whatever the reads' sizes).
    deferred: Option<Error>,
}

impl ChunkBuffer {
    pub(crate) fn new(max_unit_bytes: u64) -> ChunkBuffer {
        ChunkBuffer::with_chunk_size(CHUNK_SIZE, max_unit_bytes)
    }

    /// A buffer starting at `chunk_size` bytes (tests and fuzzing use tiny
    /// ones so that rows straddle chunk boundaries).
    pub(crate) fn with_chunk_size(chunk_size: usize, max_unit_bytes: u64) -> ChunkBuffer {
        ChunkBuffer {
            buf: vec![0; chunk_size.max(1)],
            start: 0,
            end: 0,
            offset: 0,
            eof: false,
            max_unit_bytes,
            deferred: None,
        }
    }

    /// A window with no buffer of its own yet, to be fed whole buffers
    /// with [`take`](Self::take).
    pub(crate) fn without_buffer(max_unit_bytes: u64) -> ChunkBuffer {
        ChunkBuffer {
            buf: Vec::new(),
            ..ChunkBuffer::with_chunk_size(0, max_unit_bytes)
        }
    }

    /// The bytes read and not yet consumed.
    #[inline]
    pub(crate) fn window(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// The part offset of the first byte of the window.
    #[inline]
    pub(crate) fn window_offset(&self) -> u64 {
        self.offset
    }

    /// Whether the window holds the rest of the part.
    #[inline]
    pub(crate) fn is_eof(&self) -> bool {
        self.eof
    }

    #[inline]
    pub(crate) fn consume(&mut self, count: usize) {
        debug_assert!(self.start + count <= self.end);
        let count = count.min(self.end - self.start);
        self.start += count;
        self.offset += count as u64;
    }

    /// Marks the end of the part: the window holds the rest of it.
    pub(crate) fn mark_eof(&mut self) {
        self.eof = true;
    }

    /// How long the window must be before a unit cut off by its end is
    /// scanned again from its start: twice what it holds now (at least one
    /// chunk more), but no more than one byte past the unit limit, which
    /// is then reported. Scanning again only once the window has doubled
    /// keeps the rescans of a long unit linear in its length.
    pub(crate) fn rescan_target(&self) -> usize {
        let held = self.end - self.start;
        let limit = usize::try_from(self.max_unit_bytes)
            .unwrap_or(usize::MAX)
            .saturating_add(1);
        held.saturating_add(held.max(MIN_FILL))
            .min(limit.max(held + 1))
    }

    /// Fills the window until it holds at least [`rescan_target`](Self::rescan_target)
    /// bytes or the part ends.
    pub(crate) fn fill_for_rescan(&mut self, reader: &mut impl Read) -> Result<()> {
        let target = self.rescan_target();
        let held = self.end - self.start;
        loop {
            if let Err(err) = self.fill(reader) {
                return self.defer_unless_nothing_came(held, err);
            }
            if self.eof || self.end - self.start >= target {
                return Ok(());
            }
        }
    }

    /// `err` when the window holds no more than the `held` bytes it held
    /// before the fill that met it; otherwise Ok, `err` kept for the next
    /// fill: the bytes that came before an error are scanned first.
    fn defer_unless_nothing_came(&mut self, held: usize, err: Error) -> Result<()> {
        if self.end - self.start > held {
            self.deferred = Some(err);
            return Ok(());
        }
        Err(err)
    }

    /// Takes the error kept for the next fill, if any.
    pub(crate) fn take_deferred(&mut self) -> Result<()> {
        match self.deferred.take() {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// The unit limit error, at the window's start.
    fn unit_too_long(&self) -> Error {
        Error::limit("row or string item size", self.max_unit_bytes).with_offset(self.offset)
    }

    /// Grows the buffer to hold `needed` bytes: to twice its capacity, but
    /// never past what the unit limit (plus `slack` bytes of one more
    /// fill) can use, and without aborting when memory runs out.
    fn reserve_within_limit(&mut self, needed: usize, slack: usize) -> Result<()> {
        if needed <= self.buf.capacity() {
            return Ok(());
        }
        let ceiling = usize::try_from(self.max_unit_bytes)
            .unwrap_or(usize::MAX)
            .saturating_add(slack);
        let wanted = self
            .buf
            .capacity()
            .saturating_mul(2)
            .min(ceiling)
            .max(needed);
        self.buf
            .try_reserve_exact(wanted - self.buf.len())
            .map_err(|_| self.unit_too_long())
    }

    /// Continues the window with `buffer[headroom..]`, without copying it
    /// when the window's unconsumed tail fits in the `headroom` bytes before
    /// the data: the tail is copied there and `buffer` becomes the window's
    /// buffer. Otherwise (a unit longer than the headroom) the data is
    /// appended to the window. Returns the buffer no longer used.
    pub(crate) fn take(&mut self, mut buffer: Vec<u8>, headroom: usize) -> Result<Option<Vec<u8>>> {
        debug_assert!(buffer.len() >= headroom);
        let tail = self.end - self.start;
        if tail <= headroom {
            let start = headroom - tail;
            buffer[start..headroom].copy_from_slice(&self.buf[self.start..self.end]);
            self.start = start;
            self.end = buffer.len();
            let used = std::mem::replace(&mut self.buf, buffer);
            return Ok((used.capacity() > 0).then_some(used));
        }
        if tail as u64 >= self.max_unit_bytes {
            return Err(self.unit_too_long());
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
        }
        self.buf.truncate(tail);
        let data = &buffer[headroom..];
        self.reserve_within_limit(tail + data.len(), data.len())?;
        self.buf.extend_from_slice(data);
        self.start = 0;
        self.end = self.buf.len();
        Ok(Some(buffer))
    }

    /// Appends at least one more byte to the window, or marks the end of the
    /// part. Moves the window to the front of the buffer first, and grows the
    /// buffer only when the window fills it.
    pub(crate) fn fill(&mut self, reader: &mut impl Read) -> Result<()> {
        self.take_deferred()?;
        if self.eof {
            return Ok(());
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            if self.end as u64 >= self.max_unit_bytes {
                return Err(self.unit_too_long());
            }
            let cap = usize::try_from(self.max_unit_bytes)
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            // Doubling, but straight to the cap when one more doubling
            // would pass it: growing by one byte past a buffer of the
            // limit's size would hold two of them while it is copied.
            let doubled = self.buf.len().saturating_mul(2);
            let grown = if doubled.saturating_mul(2) > cap {
                cap
            } else {
                doubled
            }
            .max(self.end + 1);
            self.reserve_within_limit(grown, 1)?;
            self.buf.resize(grown, 0);
        }
        // Reads until MIN_FILL bytes came in (or the buffer is full, or the
        // part ends), not until the buffer is full: the inflater fills what
        // its input allows in one read, and the scanner gets to work on
        // that (the first rows of a sheet need only the start of its
        // data). The minimum keeps a reader that hands out little at a
        // time from making the scanner go over a long row's start again
        // for every few bytes.
        let start = self.end;
        while self.end - start < MIN_FILL && self.end < self.buf.len() {
            let count = match reader.read(&mut self.buf[self.end..]) {
                Ok(count) => count,
                Err(err) if self.end > start => {
                    // Bytes came in first: they are scanned before the error.
                    self.deferred = Some(err.into());
                    break;
                }
                Err(err) => return Err(err.into()),
            };
            if count == 0 {
                self.eof = true;
                break;
            }
            self.end += count;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries_the_unconsumed_tail_over() {
        let data: Vec<u8> = (0..(3 * CHUNK_SIZE + 10)).map(|i| i as u8).collect();
        let mut reader = &data[..];
        let mut buffer = ChunkBuffer::new(u64::MAX);
        buffer.fill(&mut reader).unwrap();
        assert_eq!(buffer.window().len(), CHUNK_SIZE);
        buffer.consume(CHUNK_SIZE - 3);
        buffer.fill(&mut reader).unwrap();
        assert_eq!(buffer.window_offset(), (CHUNK_SIZE - 3) as u64);
        assert_eq!(&buffer.window()[..3], &data[CHUNK_SIZE - 3..CHUNK_SIZE]);
        // Nothing consumed: the buffer grows to hold a bigger unit.
        buffer.fill(&mut reader).unwrap();
        assert!(buffer.window().len() > CHUNK_SIZE);
        let offset = buffer.window_offset() as usize;
        assert_eq!(
            buffer.window(),
            &data[offset..offset + buffer.window().len()]
        );
    }

    #[test]
    fn takes_whole_buffers_copying_only_the_tail() {
        const HEADROOM: usize = 4;
        let with_headroom = |data: &[u8]| [&[0u8; HEADROOM][..], data].concat();
        let mut buffer = ChunkBuffer::without_buffer(1 << 20);
        // Nothing to give back for the empty start.
        assert!(
            buffer
                .take(with_headroom(b"abcdef"), HEADROOM)
                .unwrap()
                .is_none()
        );
        assert_eq!(buffer.window(), b"abcdef");
        buffer.consume(4);
        // A tail of two fits in the headroom: the new buffer becomes the window.
        let used = buffer.take(with_headroom(b"ghij"), HEADROOM).unwrap();
        assert_eq!(used.as_deref(), Some(&with_headroom(b"abcdef")[..]));
        assert_eq!(buffer.window(), b"efghij");
        assert_eq!(buffer.window_offset(), 4);
        // A tail of six does not: the data is appended and the buffer handed back.
        let used = buffer.take(with_headroom(b"kl"), HEADROOM).unwrap();
        assert_eq!(used.as_deref(), Some(&with_headroom(b"kl")[..]));
        assert_eq!(buffer.window(), b"efghijkl");
        assert_eq!(buffer.window_offset(), 4);
        buffer.consume(7);
        assert!(
            buffer
                .take(with_headroom(b"m"), HEADROOM)
                .unwrap()
                .is_some()
        );
        assert_eq!(buffer.window(), b"lm");
        assert_eq!(buffer.window_offset(), 11);
        // The unit limit holds when appending.
        let mut small = ChunkBuffer::without_buffer(3);
        small.take(with_headroom(b"abcdefgh"), HEADROOM).unwrap();
        let err = small.take(with_headroom(b"i"), HEADROOM).unwrap_err();
        assert!(err.to_string().contains("row or string item size"), "{err}");
    }

    /// Hands out at most `piece` bytes per read.
    struct Trickle<'a> {
        data: &'a [u8],
        piece: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let count = buf.len().min(self.piece).min(self.data.len());
            buf[..count].copy_from_slice(&self.data[..count]);
            self.data = &self.data[count..];
            Ok(count)
        }
    }

    #[test]
    fn a_fill_takes_at_least_its_minimum_from_a_trickling_reader() {
        let data: Vec<u8> = (0..(3 * CHUNK_SIZE)).map(|i| (i % 251) as u8).collect();
        let mut reader = Trickle {
            data: &data,
            piece: 1000,
        };
        let mut buffer = ChunkBuffer::new(u64::MAX);
        buffer.fill(&mut reader).unwrap();
        let first = buffer.window().len();
        assert!((MIN_FILL..MIN_FILL + 1000).contains(&first), "{first}");
        assert_eq!(buffer.window(), &data[..first]);
        // A reader that hands out everything at once: one read, however
        // much it is.
        let mut whole = &data[..];
        let mut buffer = ChunkBuffer::new(u64::MAX);
        buffer.fill(&mut whole).unwrap();
        assert_eq!(buffer.window().len(), CHUNK_SIZE);
        // The end of the part ends a fill early.
        let mut short = Trickle {
            data: &data[..100],
            piece: 7,
        };
        let mut buffer = ChunkBuffer::new(u64::MAX);
        buffer.fill(&mut short).unwrap();
        assert_eq!(buffer.window(), &data[..100]);
        assert!(buffer.is_eof());
    }

    #[test]
    fn refuses_a_unit_larger_than_the_limit() {
        let data = vec![b'x'; 4 * CHUNK_SIZE];
        let mut reader = &data[..];
        let mut buffer = ChunkBuffer::new(CHUNK_SIZE as u64 * 2);
        let mut result = Ok(());
        for _ in 0..8 {
            result = buffer.fill(&mut reader);
            if result.is_err() {
                break;
            }
        }
        let err = result.unwrap_err();
        assert!(err.to_string().contains("row or string item size"), "{err}");
    }
}
