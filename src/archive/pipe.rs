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
//!
//! The part's CRC-32 is checked by the pipe, not by the inflater: each
//! buffer is hashed by whichever thread would otherwise wait. When the
//! scan thread has buffers queued it is the slower one, and the inflate
//! thread hashes the buffer before sending it; when none are queued the
//! scan thread keeps up, and hashes the buffer as it takes it (a column
//! selection or a count scans faster than the part inflates: the hashing
//! was about 2% of the inflate thread's time). The scan thread combines
//! the pieces in order and checks the whole at the end of the part, with
//! the error the inflater gives.
//!
//! The part's compressed bytes are read the same way: the scan thread,
//! finding no buffer queued, reads the inflater's next input ahead
//! (`src/archive/read_ahead.rs`).
//!
//! The inflate thread fills four recycled 512 KiB buffers that keep 64 KiB of
//! headroom before the data; the part's CRC-32 is handed over from the
//! inflater (`CrcCheck`) and combined in order.

use std::io::{self, Read, Seek};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::Scope;

use crate::archive::read_ahead::ReadAhead;
use crate::archive::{Archive, CrcCheck, container_error};
use crate::chunk::ChunkBuffer;
use crate::error::Result;
use crate::limits::Limits;
use crate::metadata::SheetInfo;

/// Bytes of inflated data per buffer.
const PIPE_CHUNK: usize = 512 * 1024;
/// Room before the data for the tail of the previous buffer.
pub(crate) const HEADROOM: usize = 64 * 1024;
/// Buffers in flight between the two threads.
const PIPE_BUFFERS: usize = 4;

/// What the inflate thread sends.
enum Message {
    /// A buffer: `HEADROOM` bytes, then data.
    Data(Vec<u8>, ChunkCrc),
    /// The end of the part, and the CRC-32 to check (when the pipe checks
    /// it), after the last piece of the hash.
    End(ChunkCrc, Option<u32>),
}

/// What a buffer adds to the part's CRC-32, when the pipe checks it.
#[derive(Default)]
struct ChunkCrc {
    /// Bytes hashed on the inflate thread (this buffer's, or bytes the
    /// inflater hashed before it handed the check over), combined first.
    hashed: Option<crc32fast::Hasher>,
    /// The scan thread hashes the buffer's data from this offset on.
    unhashed_from: Option<usize>,
}

/// Which thread hashes a buffer, from the count of buffers queued for the
/// scan thread (see the module docs); tests fix one or the other.
type HashHere = fn(queued: usize) -> bool;

fn hash_where_it_waits_least(queued: usize) -> bool {
    queued > 0
}

/// The scan thread's end of the pipe.
pub(crate) struct Pipe<'a> {
    full: Receiver<io::Result<Message>>,
    /// The part's compressed bytes, read ahead here when no buffer is
    /// queued (see `src/archive/read_ahead.rs`).
    compressed: Option<Arc<dyn ReadAhead + 'a>>,
    empty: SyncSender<Vec<u8>>,
    /// Messages sent and not yet received.
    queued: Arc<AtomicUsize>,
    /// The hash of the part's bytes so far, when the pipe checks it.
    crc: crc32fast::Hasher,
    done: bool,
    /// An error met after a buffer was taken in the same call, raised by
    /// the next: the bytes before an error are scanned first, as a
    /// window filled from a reader scans them.
    deferred: Option<crate::error::Error>,
}

impl<'env> Pipe<'env> {
    /// Starts a thread in `scope` that inflates `sheet`'s part into the
    /// pipe. The thread ends at the end of the part, on an error (passed on
    /// through the pipe), or when the pipe is dropped. A `binary` part (an
    /// `.xlsb` sheet) is passed on as it is, never taken for UTF-16 text.
    pub(crate) fn spawn<'scope, R>(
        scope: &'scope Scope<'scope, 'env>,
        archive: Archive<R>,
        sheet: &'env SheetInfo,
        limits: Limits,
        binary: bool,
    ) -> Pipe<'env>
    where
        R: Read + Seek + Clone + Send + 'env,
    {
        Pipe::spawn_hashing(
            scope,
            archive,
            sheet,
            limits,
            binary,
            hash_where_it_waits_least,
        )
    }

    fn spawn_hashing<'scope, R>(
        scope: &'scope Scope<'scope, 'env>,
        mut archive: Archive<R>,
        sheet: &'env SheetInfo,
        limits: Limits,
        binary: bool,
        hash_here: HashHere,
    ) -> Pipe<'env>
    where
        R: Read + Seek + Clone + Send + 'env,
    {
        let shared = archive.shared_input(sheet.part());
        let compressed = shared
            .clone()
            .map(|shared| shared as Arc<dyn ReadAhead + 'env>);
        let (full_sender, full) = sync_channel::<io::Result<Message>>(PIPE_BUFFERS);
        // Bounded channels both ways: their slots are allocated once (an
        // unbounded channel allocates a block every few dozen messages).
        // PIPE_BUFFERS buffers circulate (the window starts with none of its
        // own), so sending one back never finds the channel full.
        let (empty, empty_receiver) = sync_channel::<Vec<u8>>(PIPE_BUFFERS);
        for _ in 0..PIPE_BUFFERS {
            // Cannot fail: the receiver is alive and there is room.
            let _ = empty.try_send(Vec::with_capacity(HEADROOM + PIPE_CHUNK));
        }
        let queued = Arc::new(AtomicUsize::new(0));
        let sender = Sender {
            full: full_sender,
            queued: Arc::clone(&queued),
        };
        scope.spawn(move || {
            let opened = archive
                .open_part_checked_by_caller(
                    sheet.part(),
                    limits.max_part_bytes,
                    &limits,
                    binary,
                    shared,
                )
                .map_err(|err| err.with_sheet(sheet.name()));
            inflate_into(opened, &sender, &empty_receiver, hash_here)
        });
        Pipe {
            full,
            compressed,
            empty,
            queued,
            crc: crc32fast::Hasher::new(),
            done: false,
            deferred: None,
        }
    }

    /// The next buffer (`HEADROOM` bytes, then data), or None at the end of
    /// the part.
    fn next_buffer(&mut self) -> io::Result<Option<Vec<u8>>> {
        if self.done {
            return Ok(None);
        }
        if let Some(compressed) = &self.compressed
            && self.queued.load(Ordering::Relaxed) == 0
        {
            // This thread would wait: it reads the inflater's next input.
            compressed.read_ahead();
        }
        let received = self.full.recv();
        if received.is_ok() {
            self.queued.fetch_sub(1, Ordering::Relaxed);
        }
        match received {
            Ok(Ok(Message::Data(buffer, crc))) => {
                self.add_to_crc(crc, &buffer[HEADROOM..]);
                Ok(Some(buffer))
            }
            Ok(Ok(Message::End(crc, expected))) => {
                self.done = true;
                self.add_to_crc(crc, &[]);
                if let Some(expected) = expected {
                    let all = std::mem::take(&mut self.crc);
                    CrcCheck::verify(expected, all).map_err(container_error)?;
                }
                Ok(None)
            }
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

    fn add_to_crc(&mut self, crc: ChunkCrc, data: &[u8]) {
        if let Some(hashed) = crc.hashed {
            self.crc.combine(&hashed);
        }
        if let Some(from) = crc.unhashed_from {
            self.crc.update(&data[from..]);
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
        if let Some(err) = self.deferred.take() {
            return Err(err);
        }
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
        let held = window.window().len();
        loop {
            if let Err(err) = self.fill(window) {
                // The bytes taken before the error are scanned first.
                if window.window().len() > held {
                    self.deferred = Some(err);
                    return Ok(());
                }
                return Err(err);
            }
            if window.is_eof() || window.window().len() >= target {
                return Ok(());
            }
        }
    }
}

/// The inflate thread's end of the full buffers' channel.
struct Sender {
    full: SyncSender<io::Result<Message>>,
    /// Messages sent and not yet received (see [`Pipe::next_buffer`]).
    queued: Arc<AtomicUsize>,
}

impl Sender {
    /// False when the scan thread is gone.
    fn send(&self, message: io::Result<Message>) -> bool {
        self.queued.fetch_add(1, Ordering::Relaxed);
        self.full.send(message).is_ok()
    }
}

/// Inflates the opened part (or passes on the error that opening it met)
/// into the buffers that come back through `empty`.
fn inflate_into(
    opened: Result<(Box<dyn Read + '_>, Option<CrcCheck>)>,
    full: &Sender,
    empty: &Receiver<Vec<u8>>,
    hash_here: HashHere,
) {
    let (mut source, check) = match opened {
        Ok(opened) => opened,
        Err(err) => {
            full.send(Err(err.into()));
            return;
        }
    };
    let expected = check.as_ref().map(|check| check.expected);
    // Bytes the inflater hashed before it handed the check over, and how
    // many of the bytes read here they cover.
    let mut pending = check.as_ref().map(|check| check.hashed.clone());
    let mut already_hashed = check.map_or(0, |check| check.already_hashed);
    let mut crc_of = |data: &[u8]| -> ChunkCrc {
        if expected.is_none() {
            return ChunkCrc::default();
        }
        let from = already_hashed.min(data.len());
        already_hashed -= from;
        if hash_here(full.queued.load(Ordering::Relaxed)) {
            let mut hashed = pending.take().unwrap_or_default();
            hashed.update(&data[from..]);
            ChunkCrc {
                hashed: Some(hashed),
                unhashed_from: None,
            }
        } else {
            ChunkCrc {
                hashed: pending.take(),
                unhashed_from: Some(from),
            }
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
                    // The bytes inflated before the error go first, as a
                    // reader of the part on one thread hands them out.
                    if filled > 0 {
                        buffer.truncate(HEADROOM + filled);
                        let crc = crc_of(&buffer[HEADROOM..]);
                        if !full.send(Ok(Message::Data(buffer, crc))) {
                            return;
                        }
                    }
                    full.send(Err(err));
                    return;
                }
            }
        }
        buffer.truncate(HEADROOM + filled);
        let at_end = filled < PIPE_CHUNK;
        if filled > 0 {
            let crc = crc_of(&buffer[HEADROOM..]);
            if !full.send(Ok(Message::Data(buffer, crc))) {
                return;
            }
        }
        if at_end {
            full.send(Ok(Message::End(crc_of(&[]), expected)));
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};
    use std::sync::atomic::AtomicBool;

    use crate::metadata::{SheetKind, SheetState};

    const PART: &str = "xl/worksheets/sheet1.xml";

    /// About five buffers of rows that compress, with enough variety to
    /// take many deflate blocks.
    fn rows() -> Vec<u8> {
        let mut text = Vec::new();
        let mut row = 0u64;
        while text.len() < 5 * PIPE_CHUNK + 1234 {
            row += 1;
            let value = row.wrapping_mul(2_654_435_761) % 1_000_003;
            write!(
                text,
                r#"<row r="{row}"><c r="A{row}"><v>{value}</v></c></row>"#
            )
            .unwrap();
        }
        text
    }

    fn package(part: &[u8]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file(PART, options).unwrap();
        zip.write_all(part).unwrap();
        zip.finish().unwrap().into_inner()
    }

    /// The package with the part's recorded CRC-32 changed, in the local
    /// header (at byte 14 of the file: the part is its only entry) and the
    /// central directory (at byte 16 of its entry).
    fn with_wrong_crc(bytes: &[u8], part: &[u8]) -> Vec<u8> {
        let crc = crc32fast::hash(part).to_le_bytes();
        let central = bytes
            .windows(4)
            .position(|window| window == b"PK\x01\x02")
            .expect("a central directory entry");
        let mut damaged = bytes.to_vec();
        for at in [14, central + 16] {
            assert_eq!(damaged[at..at + 4], crc, "the recorded CRC at byte {at}");
            damaged[at] ^= 0x01;
        }
        damaged
    }

    fn sheet() -> SheetInfo {
        SheetInfo {
            position: 0,
            name: "Sheet1".into(),
            state: SheetState::Visible,
            kind: SheetKind::Worksheet,
            part: PART.into(),
        }
    }

    /// Every byte the pipe hands out, or its error.
    fn through_pipe(bytes: &[u8], binary: bool, hash_here: HashHere) -> io::Result<Vec<u8>> {
        let archive = Archive::new(Cursor::new(bytes.to_vec())).unwrap();
        let info = sheet();
        std::thread::scope(|scope| {
            let mut pipe =
                Pipe::spawn_hashing(scope, archive, &info, Limits::default(), binary, hash_here);
            let mut out = Vec::new();
            while let Some(buffer) = pipe.next_buffer()? {
                out.extend_from_slice(&buffer[HEADROOM..]);
                pipe.recycle(buffer);
            }
            Ok(out)
        })
    }

    fn on_inflate_thread(_: usize) -> bool {
        true
    }

    fn on_scan_thread(_: usize) -> bool {
        false
    }

    fn alternately(_: usize) -> bool {
        static HERE: AtomicBool = AtomicBool::new(false);
        !HERE.fetch_xor(true, Ordering::Relaxed)
    }

    const POLICIES: [(&str, HashHere); 4] = [
        ("inflate thread", on_inflate_thread),
        ("scan thread", on_scan_thread),
        ("alternately", alternately),
        ("where it waits least", hash_where_it_waits_least),
    ];

    #[test]
    fn the_crc_is_checked_whichever_thread_hashes_each_buffer() {
        let part = rows();
        let bytes = package(&part);
        let damaged = with_wrong_crc(&bytes, &part);
        for binary in [false, true] {
            for (policy, hash_here) in POLICIES {
                let read = through_pipe(&bytes, binary, hash_here);
                let read = read.unwrap_or_else(|err| panic!("{policy}: {err}"));
                assert!(read == part, "{policy}, binary {binary}: the part's bytes");
                let err = through_pipe(&damaged, binary, hash_here).unwrap_err();
                assert!(
                    err.to_string().contains("invalid checksum"),
                    "{policy}, binary {binary}: {err}"
                );
            }
        }
    }

    #[test]
    fn a_part_read_ahead_between_reads_is_the_part() {
        let part = rows();
        let mut archive = Archive::new(Cursor::new(package(&part))).unwrap();
        let shared = archive.shared_input(PART).expect("a deflated part");
        let ahead: Arc<dyn ReadAhead> = shared.clone();
        let (mut reader, check) = archive
            .open_part_checked_by_caller(PART, u64::MAX, &Limits::default(), false, Some(shared))
            .unwrap();
        let check = check.expect("the check handed over");
        let (mut out, mut buffer, mut reads_ahead) = (Vec::new(), vec![0; 64 * 1024], 0);
        loop {
            reads_ahead += usize::from(ahead.read_ahead());
            match reader.read(&mut buffer).unwrap() {
                0 => break,
                count => out.extend_from_slice(&buffer[..count]),
            }
        }
        assert!(out == part, "the part's bytes");
        assert!(reads_ahead >= 4, "{reads_ahead} reads ahead");
        let mut all = check.hashed;
        all.update(&out[check.already_hashed..]);
        CrcCheck::verify(check.expected, all).unwrap();
        // A stored part and a missing one read through the zip crate.
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file(PART, stored).unwrap();
        zip.write_all(&part).unwrap();
        let mut archive = Archive::new(zip.finish().unwrap()).unwrap();
        assert!(archive.shared_input(PART).is_none());
        assert!(archive.shared_input("xl/worksheets/sheet9.xml").is_none());
    }

    #[test]
    fn short_parts_are_checked_too() {
        // Shorter than the head the text reader looks at, exactly that
        // head, a buffer, and nothing at all.
        for part in [&b"<a"[..], b"<ab>", &rows()[..PIPE_CHUNK], b""] {
            let bytes = package(part);
            let damaged = with_wrong_crc(&bytes, part);
            for (policy, hash_here) in POLICIES {
                let read = through_pipe(&bytes, false, hash_here).unwrap();
                assert!(read == part, "{policy}: {} bytes", part.len());
                let err = through_pipe(&damaged, false, hash_here).unwrap_err();
                assert!(
                    err.to_string().contains("invalid checksum"),
                    "{policy}, {} bytes: {err}",
                    part.len()
                );
            }
        }
    }
}
