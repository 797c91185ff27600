//! A deflated part's compressed bytes, read by whichever of the pipe's two
//! threads would otherwise wait.
//!
//! The inflate thread reads the compressed bytes it inflates. When the
//! scan thread keeps up (a column selection, a count) it waits for each
//! inflated buffer, and the reads, a quarter of the inflate thread's time
//! on a selection of the read bench's 1M x 10 sheet (page-cache copies
//! slowed by the other core's scanning), lengthen the whole read. So the
//! scan thread, finding no buffer queued, reads the next chunk ahead into
//! a spare buffer, and the inflate thread's next refill takes that buffer
//! instead of reading. When the scan thread is the slower one (every
//! column), buffers are queued, it never reads ahead, and the inflate
//! thread reads as before.
//!
//! There is one source and one chunk ahead at most, behind a lock: the
//! source is read in order, by one thread at a time, so a reader with its
//! own read-ahead (a remote object's ranged requests) sees the same
//! sequential reads it would see from one thread. A read error met ahead
//! is handed to the inflate thread in its place, as if it had read there.
//!
//! `SharedInput`: one reader (a clone of the archive's, over the entry's
//! bytes) behind a lock, read in order; the scanner, finding no buffer queued,
//! reads the next chunk into a spare buffer and the inflater's next refill
//! swaps it in (`cargo bench --bench arrow`, benches/results/arrow.md).

use std::io::{self, Read};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::archive::inflate::{CompressedInput, read_retrying};

/// What the scan thread calls when it would wait, type-erased so that the
/// pipe does not depend on the archive's reader type.
pub(crate) trait ReadAhead: Send + Sync {
    /// Reads the next chunk into the spare buffer, unless a chunk is read
    /// ahead already, the inflate thread is reading, or the source has
    /// ended. Whether it read.
    fn read_ahead(&self) -> bool;
}

/// The compressed bytes of one part, shared by the inflate thread (through
/// an [`AheadInput`]) and the scan thread (as a [`ReadAhead`]).
pub(crate) struct SharedInput<R> {
    state: Mutex<State<R>>,
}

struct State<R> {
    source: R,
    /// A chunk read ahead (the buffer and how many bytes it holds), or the
    /// error met reading it.
    ahead: Option<io::Result<(Vec<u8>, usize)>>,
    /// The buffer the next chunk is read ahead into (empty until the
    /// first read ahead; then the inflater's buffer it last swapped out).
    spare: Vec<u8>,
    /// The length of the inflater's input buffer (every buffer's).
    buffer_len: usize,
    /// How much the inflater last asked for: what is read ahead.
    wanted: usize,
    /// The source has ended, or failed: nothing more is read ahead.
    ended: bool,
}

impl<R: Read> SharedInput<R> {
    /// `source`'s bytes, read into buffers of `buffer_len` bytes (the
    /// inflater's input size).
    pub(crate) fn new(source: R, buffer_len: usize) -> Arc<SharedInput<R>> {
        Arc::new(SharedInput {
            state: Mutex::new(State {
                source,
                ahead: None,
                spare: Vec::new(),
                buffer_len,
                wanted: 0,
                ended: false,
            }),
        })
    }

    /// The lock, whatever a panic elsewhere left: every field is valid
    /// between statements.
    fn lock(&self) -> MutexGuard<'_, State<R>> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<R: Read + Send> ReadAhead for SharedInput<R> {
    fn read_ahead(&self) -> bool {
        let mut state = match self.state.try_lock() {
            Ok(state) => state,
            // The inflate thread is reading: nothing to gain by waiting.
            Err(std::sync::TryLockError::WouldBlock) => return false,
            Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        };
        if state.ahead.is_some() || state.ended || state.wanted == 0 {
            return false;
        }
        let mut buffer = std::mem::take(&mut state.spare);
        buffer.resize(state.buffer_len, 0);
        let wanted = state.wanted.min(buffer.len());
        let read = read_retrying(&mut state.source, &mut buffer[..wanted]);
        state.ended = !matches!(read, Ok(count) if count > 0);
        state.ahead = Some(read.map(|count| (buffer, count)));
        true
    }
}

/// The inflate thread's end of a [`SharedInput`].
pub(crate) struct AheadInput<R>(pub(crate) Arc<SharedInput<R>>);

impl<R: Read> CompressedInput for AheadInput<R> {
    fn next_input(&mut self, buffer: &mut Vec<u8>, wanted: usize) -> io::Result<usize> {
        let mut state = self.0.lock();
        state.wanted = wanted;
        match state.ahead.take() {
            Some(Ok((mut filled, count))) => {
                // `count` fits `filled`, which becomes the inflater's
                // buffer (read ahead at the inflater's buffer length).
                std::mem::swap(buffer, &mut filled);
                state.spare = filled;
                Ok(count)
            }
            Some(Err(err)) => Err(err),
            None if state.ended => Ok(0),
            None => {
                let read = read_retrying(&mut state.source, &mut buffer[..wanted]);
                state.ended = !matches!(read, Ok(count) if count > 0);
                read
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that gives `chunk` bytes at most per read, counting reads,
    /// and fails at `fail_at` (once) when set.
    struct Chunky {
        data: Vec<u8>,
        at: usize,
        chunk: usize,
        fail_at: Option<usize>,
    }

    impl Read for Chunky {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.fail_at == Some(self.at) {
                self.fail_at = None;
                return Err(io::Error::other("the disk is gone"));
            }
            let count = buf.len().min(self.chunk).min(self.data.len() - self.at);
            buf[..count].copy_from_slice(&self.data[self.at..self.at + count]);
            self.at += count;
            Ok(count)
        }
    }

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    /// Reads everything through the inflate side, reading ahead before
    /// each refill when `ahead(refill)` says so.
    fn read_all(source: Chunky, buffer_len: usize, ahead: impl Fn(usize) -> bool) -> Vec<u8> {
        let shared = SharedInput::new(source, buffer_len);
        let mut input = AheadInput(Arc::clone(&shared));
        let mut buffer = vec![0; buffer_len];
        let mut out = Vec::new();
        for refill in 0.. {
            if ahead(refill) {
                shared.read_ahead();
            }
            let wanted = (16 << refill.min(10)).min(buffer_len);
            let count = input.next_input(&mut buffer, wanted).unwrap();
            assert_eq!(buffer.len(), buffer_len, "refill {refill}");
            if count == 0 {
                break;
            }
            out.extend_from_slice(&buffer[..count]);
        }
        out
    }

    #[test]
    fn every_byte_comes_once_in_order_whoever_reads() {
        let expected = data(100_000);
        for chunk in [1, 100, 4096, 1 << 20] {
            for buffer_len in [1, 1000, 65_536] {
                let policies: [(&str, &dyn Fn(usize) -> bool); 4] = [
                    ("never ahead", &|_| false),
                    ("always ahead", &|_| true),
                    ("every other", &|refill| refill % 2 == 1),
                    ("every third", &|refill| refill % 3 == 0),
                ];
                for (policy, ahead) in policies {
                    let source = Chunky {
                        data: expected.clone(),
                        at: 0,
                        chunk,
                        fail_at: None,
                    };
                    let out = read_all(source, buffer_len, ahead);
                    assert!(
                        out == expected,
                        "{policy}, chunk {chunk}, buffer {buffer_len}"
                    );
                }
            }
        }
    }

    #[test]
    fn reading_ahead_stops_at_the_end_and_when_a_chunk_waits() {
        let source = Chunky {
            data: data(10),
            at: 0,
            chunk: 4,
            fail_at: None,
        };
        let shared = SharedInput::new(source, 8);
        let mut input = AheadInput(Arc::clone(&shared));
        let mut buffer = vec![0; 8];
        // Nothing is read ahead before the inflater has asked once.
        assert!(!shared.read_ahead());
        assert_eq!(input.next_input(&mut buffer, 8).unwrap(), 4);
        assert!(shared.read_ahead());
        // One chunk ahead at most.
        assert!(!shared.read_ahead());
        assert_eq!(input.next_input(&mut buffer, 8).unwrap(), 4);
        assert_eq!(buffer[..4], data(10)[4..8]);
        assert!(shared.read_ahead());
        assert_eq!(input.next_input(&mut buffer, 8).unwrap(), 2);
        assert_eq!(buffer[..2], data(10)[8..]);
        // The end, read ahead: no more reading ahead, and the end stays.
        assert!(shared.read_ahead());
        assert_eq!(input.next_input(&mut buffer, 8).unwrap(), 0);
        assert!(!shared.read_ahead());
        assert_eq!(input.next_input(&mut buffer, 8).unwrap(), 0);
    }

    #[test]
    fn an_error_read_ahead_comes_in_its_place() {
        let source = Chunky {
            data: data(100),
            at: 0,
            chunk: 10,
            fail_at: Some(20),
        };
        let shared = SharedInput::new(source, 10);
        let mut input = AheadInput(Arc::clone(&shared));
        let mut buffer = vec![0; 10];
        assert_eq!(input.next_input(&mut buffer, 10).unwrap(), 10);
        assert!(shared.read_ahead());
        // The chunk read ahead first, then the error where the read failed.
        assert_eq!(input.next_input(&mut buffer, 10).unwrap(), 10);
        assert_eq!(buffer, data(100)[10..20]);
        assert!(shared.read_ahead());
        let err = input.next_input(&mut buffer, 10).unwrap_err();
        assert_eq!(err.to_string(), "the disk is gone");
        // Nothing is read ahead after an error.
        assert!(!shared.read_ahead());
    }

    #[test]
    fn a_read_ahead_on_another_thread_hands_over_in_order() {
        let expected = data(3_000_000);
        let source = Chunky {
            data: expected.clone(),
            at: 0,
            chunk: 50_000,
            fail_at: None,
        };
        let shared = SharedInput::new(source, 65_536);
        let reader: Arc<dyn ReadAhead> = shared.clone();
        let done = std::sync::atomic::AtomicBool::new(false);
        let out = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    reader.read_ahead();
                    std::thread::yield_now();
                }
            });
            let mut input = AheadInput(shared);
            let mut buffer = vec![0; 65_536];
            let mut out = Vec::new();
            loop {
                let count = input.next_input(&mut buffer, 65_536).unwrap();
                if count == 0 {
                    break;
                }
                out.extend_from_slice(&buffer[..count]);
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            out
        });
        assert!(out == expected);
    }
}
