//! Inflating a deflated part ourselves, from its raw compressed bytes.
//!
//! The zip crate's own reader feeds the inflater through an 8 KiB input
//! buffer, so that every call inflates at most a few dozen kilobytes and
//! pays the call's fixed costs (among them copying up to 32 KiB of output
//! into the inflater's window) again. Here the inflater gets up to
//! [`INPUT_CHUNK`] bytes of input at a time and inflates straight into the
//! caller's buffer, which for the sheet readers is up to 512 KiB: the
//! 1M x 10 sheet of the read bench inflates in about 10% less time
//! (`cargo bench --bench read`, benches/results/read.md). The checks stay what the zip crate
//! does: the CRC-32 of the whole part against the central directory's, and
//! an error when the compressed data ends inside the deflate stream.
//!
//! The inflater takes its input through `CompressedInput`: any reader, or the
//! pipe's `SharedInput` (`read_ahead.rs`). A small part's input buffer is no
//! bigger than the part. Stored parts and other methods go through the zip
//! crate. The backend is zlib-rs through flate2, chosen by measurement, with
//! zlib-rs's `std` feature so that it detects AVX2 at run time
//! (benches/results/read.md).

use std::io::{self, Read};

use flate2::{Decompress, FlushDecompress, Status};

/// Compressed bytes handed to the inflater per refill, at most.
const INPUT_CHUNK: usize = 256 * 1024;
/// The first refill's size; each refill doubles it up to [`INPUT_CHUNK`],
/// so that the first rows of a sheet need only the start of its data.
const FIRST_INPUT: usize = 16 * 1024;

/// Where an [`Inflater`] gets its compressed bytes: any reader, or the
/// pipe's shared input (`src/archive/read_ahead.rs`), which may hand over
/// a buffer the other thread filled instead of reading into this one.
pub(crate) trait CompressedInput {
    /// Puts the next compressed bytes at the start of `buffer`, at most
    /// `wanted` of them (`wanted <= buffer.len()`), and returns how many;
    /// 0 at the end. The buffer may be swapped for another (of the
    /// length the input was made for).
    fn next_input(&mut self, buffer: &mut Vec<u8>, wanted: usize) -> io::Result<usize>;
}

impl<R: Read> CompressedInput for R {
    fn next_input(&mut self, buffer: &mut Vec<u8>, wanted: usize) -> io::Result<usize> {
        read_retrying(self, &mut buffer[..wanted])
    }
}

/// One read, retried when it was interrupted.
pub(crate) fn read_retrying(reader: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buffer) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            result => return result,
        }
    }
}

/// A deflated part's inflated bytes, read from its raw compressed bytes.
pub(crate) struct Inflater<I> {
    compressed: I,
    /// Always `input_size` bytes long (see [`Inflater::new`]).
    input: Vec<u8>,
    /// The unread input is `input[start..end]`.
    start: usize,
    end: usize,
    /// How much the next refill asks for.
    refill_size: usize,
    /// The compressed data is used up.
    input_ended: bool,
    inflater: Decompress,
    crc: crc32fast::Hasher,
    expected_crc: u32,
    /// The CRC-32 check was handed to the reader (see [`CrcCheck`]): the
    /// bytes are no longer hashed here.
    crc_handed_over: bool,
    /// The deflate stream has ended (and the CRC was checked).
    finished: bool,
    /// An error met in a call that inflated bytes before it: those are
    /// handed out, the error by the next call. So the bytes before damage
    /// are the same however large the reads are (a reader on one thread
    /// and the pipe's inflate thread ask for different sizes).
    deferred: Option<io::Error>,
}

/// A part's CRC-32 check, handed over by its [`Inflater`] to whoever reads
/// its bytes: the pipe (`src/archive/pipe.rs`) hashes each buffer on whichever of
/// its two threads would otherwise wait, and checks the whole at the end.
pub(crate) struct CrcCheck {
    /// The hash of the bytes the inflater gave out before it handed over.
    pub(crate) hashed: crc32fast::Hasher,
    /// The CRC-32 the archive records for the whole part.
    pub(crate) expected: u32,
    /// How many of the first bytes the caller reads `hashed` already
    /// covers (a head read before the hand-over and given out again).
    pub(crate) already_hashed: usize,
}

impl CrcCheck {
    /// The check of the whole part, `all` being the hash of every byte
    /// of it: the error the inflater itself gives on a mismatch.
    pub(crate) fn verify(expected: u32, all: crc32fast::Hasher) -> io::Result<()> {
        if all.finalize() == expected {
            Ok(())
        } else {
            Err(checksum_mismatch())
        }
    }
}

fn checksum_mismatch() -> io::Error {
    invalid_data(
        "invalid checksum: the CRC-32 of the inflated part is not the one the archive records",
    )
}

/// The size of the input buffers for a part of `compressed_size` bytes as
/// the archive records it: small parts get a small one.
pub(crate) fn input_size(compressed_size: u64) -> usize {
    usize::try_from(compressed_size)
        .unwrap_or(INPUT_CHUNK)
        .clamp(1, INPUT_CHUNK)
}

impl<I: CompressedInput> Inflater<I> {
    /// Inflates the raw deflate stream `compressed`, `compressed_size`
    /// bytes long as the archive records it (it sizes the input buffer,
    /// see [`input_size`]), whose inflated bytes must have the CRC-32
    /// `expected_crc`.
    pub(crate) fn new(compressed: I, compressed_size: u64, expected_crc: u32) -> Inflater<I> {
        Inflater {
            compressed,
            input: vec![0; input_size(compressed_size)],
            start: 0,
            end: 0,
            refill_size: FIRST_INPUT,
            input_ended: false,
            // Raw deflate: no zlib header.
            inflater: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            expected_crc,
            crc_handed_over: false,
            finished: false,
            deferred: None,
        }
    }

    /// Inflates a raw deflate stream that no CRC-32 covers (an encrypted
    /// `.ods` entry's decrypted bytes: the archive's CRC-32 is of the
    /// stored, encrypted bytes, and the manifest's size is the check).
    #[cfg(feature = "encryption")]
    pub(crate) fn unchecked(compressed: I, compressed_size: u64) -> Inflater<I> {
        let mut inflater = Inflater::new(compressed, compressed_size, 0);
        inflater.crc_handed_over = true;
        inflater
    }

    /// Stops hashing the bytes and hands the check to the caller, who
    /// must hash every byte read from now on, after [`CrcCheck::hashed`],
    /// and verify the whole at the end. None when the stream has already
    /// ended (and was checked) or the check was handed over before.
    pub(crate) fn hand_over_crc(&mut self) -> Option<CrcCheck> {
        if self.finished || self.crc_handed_over {
            return None;
        }
        self.crc_handed_over = true;
        Some(CrcCheck {
            hashed: self.crc.clone(),
            expected: self.expected_crc,
            already_hashed: 0,
        })
    }

    fn refill(&mut self) -> io::Result<()> {
        let wanted = self.refill_size.min(self.input.len());
        let count = self.compressed.next_input(&mut self.input, wanted)?;
        self.start = 0;
        self.end = count;
        self.input_ended = count == 0;
        self.refill_size = (self.refill_size * 2).min(INPUT_CHUNK);
        Ok(())
    }
}

fn invalid_data(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

impl<I: CompressedInput> Inflater<I> {
    /// `err` after the `produced` bytes this call inflated: those first,
    /// the error on the next call.
    fn after(&mut self, produced: usize, err: io::Error) -> io::Result<usize> {
        if produced == 0 {
            return Err(err);
        }
        self.deferred = Some(err);
        Ok(produced)
    }
}

impl<I: CompressedInput> Read for Inflater<I> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(err) = self.deferred.take() {
            return Err(err);
        }
        if self.finished || buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.start == self.end && !self.input_ended {
                self.refill()?;
            }
            let (in_before, out_before) = (self.inflater.total_in(), self.inflater.total_out());
            let status = self.inflater.decompress(
                &self.input[self.start..self.end],
                buf,
                FlushDecompress::None,
            );
            // Both counts are bounded by the slices just passed (and are
            // counted on an error too: what came out before the damage).
            let consumed = (self.inflater.total_in() - in_before) as usize;
            let produced = (self.inflater.total_out() - out_before) as usize;
            self.start += consumed;
            if !self.crc_handed_over {
                self.crc.update(&buf[..produced]);
            }
            let status = match status {
                Ok(status) => status,
                Err(err) => {
                    let err = invalid_data(&format!("corrupt deflate stream: {err}"));
                    return self.after(produced, err);
                }
            };
            if status == Status::StreamEnd {
                self.finished = true;
                if !self.crc_handed_over
                    && let Err(err) = CrcCheck::verify(self.expected_crc, self.crc.clone())
                {
                    return self.after(produced, err);
                }
                return Ok(produced);
            }
            if produced > 0 {
                return Ok(produced);
            }
            if consumed == 0 {
                if self.input_ended {
                    return Err(invalid_data(
                        "the compressed data ends inside the deflate stream",
                    ));
                }
                if self.start < self.end {
                    // Input and room for output, and no progress: never
                    // seen, but looping on it would hang.
                    return Err(invalid_data("the deflate stream makes no progress"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::DeflateEncoder;
    use std::io::Write;

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut encoder = DeflateEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    /// Text that compresses, with enough variety to take many blocks.
    fn sample(len: usize) -> Vec<u8> {
        let mut state: u32 = 12345;
        (0..len)
            .map(|i| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                if i % 7 == 0 {
                    b'a' + (state >> 24) as u8 % 26
                } else {
                    b"<row r=\"1\"><c><v>0</v></c></row>"[i % 32]
                }
            })
            .collect()
    }

    fn read_in(reader: &mut impl Read, piece: usize) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut buffer = vec![0; piece];
        loop {
            match reader.read(&mut buffer)? {
                0 => return Ok(out),
                count => out.extend_from_slice(&buffer[..count]),
            }
        }
    }

    #[test]
    fn inflates_in_any_piece_size() {
        let data = sample(1_000_000);
        let compressed = deflate(&data);
        let crc = crc32fast::hash(&data);
        for piece in [1, 7, 4096, 128 * 1024, 2 * 1024 * 1024] {
            let mut inflater = Inflater::new(&compressed[..], compressed.len() as u64, crc);
            assert_eq!(read_in(&mut inflater, piece).unwrap(), data, "{piece}");
            // The end stays the end.
            assert_eq!(inflater.read(&mut [0; 16]).unwrap(), 0);
        }
        // A recorded size that is wrong only makes the input buffer small
        // (or big), never the result wrong.
        for recorded in [0, 1, 100, u64::MAX] {
            let mut inflater = Inflater::new(&compressed[..], recorded, crc);
            assert_eq!(
                read_in(&mut inflater, 64 * 1024).unwrap(),
                data,
                "{recorded}"
            );
        }
        let empty = deflate(b"");
        let mut inflater = Inflater::new(&empty[..], empty.len() as u64, crc32fast::hash(b""));
        assert_eq!(read_in(&mut inflater, 100).unwrap(), b"");
    }

    #[test]
    fn a_wrong_checksum_is_an_error_at_the_end() {
        let data = sample(300_000);
        let compressed = deflate(&data);
        let mut inflater = Inflater::new(
            &compressed[..],
            compressed.len() as u64,
            crc32fast::hash(&data) ^ 1,
        );
        let err = read_in(&mut inflater, 64 * 1024).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("checksum"), "{err}");
    }

    #[test]
    fn a_cut_stream_is_an_error() {
        let data = sample(300_000);
        let compressed = deflate(&data);
        let crc = crc32fast::hash(&data);
        for cut in [0, 1, compressed.len() / 2, compressed.len() - 1] {
            let mut inflater = Inflater::new(&compressed[..cut], compressed.len() as u64, crc);
            let err = read_in(&mut inflater, 64 * 1024).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{cut}");
            assert!(err.to_string().contains("ends inside"), "{cut}: {err}");
        }
    }

    #[test]
    fn damaged_streams_are_errors_not_panics() {
        let data = sample(200_000);
        let compressed = deflate(&data);
        let crc = crc32fast::hash(&data);
        for at in (0..compressed.len()).step_by(991) {
            let mut damaged = compressed.clone();
            damaged[at] ^= 0x5A;
            let mut inflater = Inflater::new(&damaged[..], damaged.len() as u64, crc);
            // Either the stream breaks, or the checksum catches the change
            // (or, rarely, the flip lands where it changes nothing).
            if let Ok(out) = read_in(&mut inflater, 32 * 1024) {
                assert_eq!(out, data, "{at}");
            }
        }
    }
}
