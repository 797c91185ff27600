//! One sheet over two threads: an inflate thread fills buffers, the scan
//! thread scans them where they lie.
//!
//! Read this first: a fixed set of buffers goes round between the two
//! threads over two bounded channels (full ones to the scanner, used ones
//! back). Each buffer starts with [`HEADROOM`] unused bytes before the
//! inflated data. When the scanner's window runs out, the unconsumed tail
//! of its current buffer (a row cut off by the buffer's end, normally much
//! shorter than the headroom) is copied into the headroom of the next
//! buffer, and that buffer becomes the window: only tails are copied, not
//! the sheet. A tail longer than the headroom falls back to appending the
//! next buffer to the window (see [`ChunkBuffer::take`]).

use std::io::{self, Read, Seek};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::Scope;

use crate::chunk::ChunkBuffer;
use crate::error::Result;
use crate::limits::Limits;
use crate::package::SheetInfo;
use crate::package::archive::Archive;

/// Bytes of inflated data per buffer.
const PIPE_CHUNK: usize = 512 * 1024;
/// Room before the data for the tail of the previous buffer.
pub(crate) const HEADROOM: usize = 64 * 1024;
/// Buffers in flight between the two threads.
const PIPE_BUFFERS: usize = 4;

/// A buffer as the inflate thread sends it: `HEADROOM` bytes, then data.
/// An empty vector marks the end of the part.
type Message = io::Result<Vec<u8>>;

/// The scan thread's end of the pipe.
pub(crate) struct Pipe {
    full: Receiver<Message>,
    empty: SyncSender<Vec<u8>>,
    done: bool,
}

impl Pipe {
    /// Starts a thread in `scope` that inflates `sheet`'s part into the
    /// pipe. The thread ends at the end of the part, on an error (passed on
    /// through the pipe), or when the pipe is dropped. A `binary` part (an
    /// `.xlsb` sheet) is passed on as it is, never taken for UTF-16 text.
    pub(crate) fn spawn<'scope, 'env, R>(
        scope: &'scope Scope<'scope, 'env>,
        mut archive: Archive<R>,
        sheet: &'env SheetInfo,
        limits: Limits,
        binary: bool,
    ) -> Pipe
    where
        R: Read + Seek + Send + 'env,
    {
        let (full_sender, full) = sync_channel::<Message>(PIPE_BUFFERS);
        // Bounded channels both ways: their slots are allocated once (an
        // unbounded channel allocates a block every few dozen messages).
        // PIPE_BUFFERS buffers circulate (the window starts with none of its
        // own), so sending one back never finds the channel full.
        let (empty, empty_receiver) = sync_channel::<Vec<u8>>(PIPE_BUFFERS);
        for _ in 0..PIPE_BUFFERS {
            // Cannot fail: the receiver is alive and there is room.
            let _ = empty.try_send(Vec::with_capacity(HEADROOM + PIPE_CHUNK));
        }
        scope.spawn(move || {
            inflate_into(
                &mut archive,
                sheet,
                &limits,
                binary,
                &full_sender,
                &empty_receiver,
            )
        });
        Pipe {
            full,
            empty,
            done: false,
        }
    }

    /// The next buffer (`HEADROOM` bytes, then data), or None at the end of
    /// the part.
    fn next_buffer(&mut self) -> io::Result<Option<Vec<u8>>> {
        if self.done {
            return Ok(None);
        }
        match self.full.recv() {
            Ok(Ok(buffer)) if buffer.is_empty() => {
                self.done = true;
                Ok(None)
            }
            Ok(Ok(buffer)) => Ok(Some(buffer)),
            Ok(Err(err)) => {
                self.done = true;
                Err(err)
            }
            Err(_) => {
                self.done = true;
                Err(io::Error::other("the inflate thread stopped early"))
            }
        }
    }

    /// Hands a used buffer back to be refilled. When the inflate thread is
    /// gone (or, which cannot happen, the channel is full) it is dropped.
    fn recycle(&mut self, buffer: Vec<u8>) {
        let _ = self.empty.try_send(buffer);
    }

    /// Reads the rest of the part (so that its CRC is checked), dropping it.
    pub(crate) fn drain(&mut self) -> io::Result<()> {
        while let Some(buffer) = self.next_buffer()? {
            self.recycle(buffer);
        }
        Ok(())
    }

    /// Moves the next buffer into `window` (see the module docs), or marks
    /// the window's end.
    pub(crate) fn fill(&mut self, window: &mut ChunkBuffer) -> Result<()> {
        if window.is_eof() {
            return Ok(());
        }
        match self.next_buffer()? {
            None => window.mark_eof(),
            Some(buffer) => {
                if let Some(used) = window.take(buffer, HEADROOM)? {
                    self.recycle(used);
                }
            }
        }
        Ok(())
    }

    /// Takes buffers until `window` holds at least
    /// [`ChunkBuffer::rescan_target`] bytes or the part ends: a row longer
    /// than a buffer is scanned again only each time the window has
    /// doubled, not for every buffer, which made a long row quadratic.
    pub(crate) fn fill_for_rescan(&mut self, window: &mut ChunkBuffer) -> Result<()> {
        let target = window.rescan_target();
        loop {
            self.fill(window)?;
            if window.is_eof() || window.window().len() >= target {
                return Ok(());
            }
        }
    }
}

fn inflate_into<R: Read + Seek>(
    archive: &mut Archive<R>,
    sheet: &SheetInfo,
    limits: &Limits,
    binary: bool,
    full: &SyncSender<Message>,
    empty: &Receiver<Vec<u8>>,
) {
    let opened = if binary {
        archive.open_binary_part(sheet.part(), limits.max_part_bytes, limits)
    } else {
        archive.open_part(sheet.part(), limits.max_part_bytes, limits)
    };
    let mut source = match opened {
        Ok(source) => source,
        Err(err) => {
            let _ = full.send(Err(err.with_sheet(sheet.name()).into()));
            return;
        }
    };
    // Each buffer goes back and forth; the loop ends when the reader is gone.
    while let Ok(mut buffer) = empty.recv() {
        // Only what lies past the buffer's length is zeroed, once.
        buffer.resize(HEADROOM + PIPE_CHUNK, 0);
        let mut filled = 0;
        while filled < PIPE_CHUNK {
            match source.read(&mut buffer[HEADROOM + filled..]) {
                Ok(0) => break,
                Ok(count) => filled += count,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => {
                    let _ = full.send(Err(err));
                    return;
                }
            }
        }
        buffer.truncate(HEADROOM + filled);
        let at_end = filled < PIPE_CHUNK;
        if filled > 0 && full.send(Ok(buffer)).is_err() {
            return;
        }
        if at_end {
            let _ = full.send(Ok(Vec::new()));
            return;
        }
    }
}
