//! BIFF12 record framing: the record header, the fields inside a record,
//! and [`RecordStream`], the records of a streamed part read straight
//! from the [`ChunkBuffer`] window.
//!
//! Read this first: a record is a type (1 or 2 bytes), a size (1 to 4
//! bytes; 7 bits each, the high bit set on every byte but the last) and
//! that many bytes of body. The header parser does no I/O and owns no
//! buffer: it reads a header from whatever bytes it is given and says
//! whether it needs more. A body is handed out as a slice of the window
//! (no copy, no allocation per record); records the caller does not want
//! are skipped as their bytes arrive, never held whole.
//!
//! Framing: the type in 1-2 bytes, the size in 1-4, 7 bits each; a varint that
//! goes on is an error. `Fields` reads inside one record with bounds checks (a
//! field past its record is an error naming it); UTF-16 text (a lone surrogate
//! becomes U+FFFD; ASCII checked and narrowed four units to a 64-bit word).
//! `RecordStream` hands out a wanted record as a slice of the window (its size
//! checked against `max_row_bytes` from the header, before any byte is waited
//! for) and skips an unwanted one as its bytes arrive, never held. Unit tests
//! feed records in chunks of 1, 7, 4096 bytes and whole.

use crate::chunk::ChunkBuffer;
use crate::contract::PartSource;
use crate::error::{Error, Result};
use crate::limits::Limits;

// Sheet records.
pub(crate) const ROW_HDR: u16 = 0x0000;
pub(crate) const CELL_BLANK: u16 = 0x0001;
pub(crate) const CELL_RK: u16 = 0x0002;
pub(crate) const CELL_ERROR: u16 = 0x0003;
pub(crate) const CELL_BOOL: u16 = 0x0004;
pub(crate) const CELL_REAL: u16 = 0x0005;
pub(crate) const CELL_ST: u16 = 0x0006;
pub(crate) const CELL_ISST: u16 = 0x0007;
pub(crate) const FMLA_STRING: u16 = 0x0008;
pub(crate) const FMLA_NUM: u16 = 0x0009;
pub(crate) const FMLA_BOOL: u16 = 0x000A;
pub(crate) const FMLA_ERROR: u16 = 0x000B;
pub(crate) const SHORT_BLANK: u16 = 0x000C;
pub(crate) const SHORT_RK: u16 = 0x000D;
pub(crate) const SHORT_ERROR: u16 = 0x000E;
pub(crate) const SHORT_BOOL: u16 = 0x000F;
pub(crate) const SHORT_REAL: u16 = 0x0010;
pub(crate) const SHORT_ST: u16 = 0x0011;
pub(crate) const SHORT_ISST: u16 = 0x0012;
pub(crate) const CELL_RSTRING: u16 = 0x003E;
pub(crate) const COL_INFO: u16 = 0x003C;
pub(crate) const END_SHEET: u16 = 0x0082;
pub(crate) const BEGIN_SHEET_DATA: u16 = 0x0091;
pub(crate) const END_SHEET_DATA: u16 = 0x0092;
pub(crate) const WS_DIM: u16 = 0x0094;
pub(crate) const MERGE_CELL: u16 = 0x00B0;
pub(crate) const WS_FMT_INFO: u16 = 0x01E5;
pub(crate) const HLINK: u16 = 0x01EE;
// Shared strings.
pub(crate) const SST_ITEM: u16 = 0x0013;
pub(crate) const END_SST: u16 = 0x00A0;
// Workbook.
pub(crate) const BEGIN_BOOK: u16 = 0x0083;
pub(crate) const END_BOOK: u16 = 0x0084;
pub(crate) const WB_PROP: u16 = 0x0099;
pub(crate) const BUNDLE_SH: u16 = 0x009C;
pub(crate) const NAME: u16 = 0x0027;
pub(crate) const EXTERN_SHEET: u16 = 0x016A;
pub(crate) const SUP_BOOK_SRC: u16 = 0x0163;
pub(crate) const SUP_SELF: u16 = 0x0165;
pub(crate) const SUP_SAME: u16 = 0x0166;
pub(crate) const SUP_ADDIN: u16 = 0x029B;
pub(crate) const ARR_FMLA: u16 = 0x01AA;
pub(crate) const SHR_FMLA: u16 = 0x01AB;
// Styles.
pub(crate) const FMT: u16 = 0x002C;
pub(crate) const XF: u16 = 0x002F;
pub(crate) const BEGIN_CELL_XFS: u16 = 0x0269;
pub(crate) const END_CELL_XFS: u16 = 0x026A;
pub(crate) const END_STYLE_SHEET: u16 = 0x0117;
// Comments.
pub(crate) const COMMENT_AUTHOR: u16 = 0x0278;
pub(crate) const BEGIN_COMMENT: u16 = 0x027B;
pub(crate) const COMMENT_TEXT: u16 = 0x027D;

/// A record header read from the front of some bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Header {
    /// A whole header: the record's type, its body's size, and the
    /// header's own length.
    Record { kind: u16, size: u32, length: usize },
    /// The bytes end inside the header.
    Short,
}

/// Reads the record header at the start of `bytes`. A type of more than
/// 2 bytes or a size of more than 4 is an error (the format has no larger
/// ones; a varint that goes on is damage, not a big record).
#[inline(always)]
pub(crate) fn header(bytes: &[u8]) -> Result<Header> {
    let Some(&first) = bytes.first() else {
        return Ok(Header::Short);
    };
    let (kind, mut pos) = if first & 0x80 == 0 {
        (u16::from(first), 1)
    } else {
        let Some(&second) = bytes.get(1) else {
            return Ok(Header::Short);
        };
        if second & 0x80 != 0 {
            return Err(type_overflow());
        }
        (u16::from(first & 0x7F) | (u16::from(second) << 7), 2)
    };
    let mut size: u32 = 0;
    for shift in 0..4 {
        let Some(&byte) = bytes.get(pos) else {
            return Ok(Header::Short);
        };
        pos += 1;
        size |= u32::from(byte & 0x7F) << (7 * shift);
        if byte & 0x80 == 0 {
            return Ok(Header::Record {
                kind,
                size,
                length: pos,
            });
        }
    }
    Err(size_overflow(kind))
}

#[cold]
#[inline(never)]
fn type_overflow() -> Error {
    Error::record("a record type of more than 2 bytes (its varint does not end)")
}

#[cold]
#[inline(never)]
fn size_overflow(kind: u16) -> Error {
    Error::record(format!(
        "the size of record type {kind:#06x} takes more than 4 bytes (its varint does not end)"
    ))
}

/// The fields of one record's body, read front to back with bounds
/// checks: a field running past the body is an error naming the record.
#[derive(Clone, Copy)]
pub(crate) struct Fields<'b> {
    body: &'b [u8],
    pos: usize,
    kind: u16,
}

impl<'b> Fields<'b> {
    pub(crate) fn new(kind: u16, body: &'b [u8]) -> Fields<'b> {
        Fields { body, pos: 0, kind }
    }

    /// The bytes not read yet.
    pub(crate) fn rest(&self) -> &'b [u8] {
        &self.body[self.pos..]
    }

    #[cold]
    #[inline(never)]
    fn short(&self, what: &str) -> Error {
        Error::record(format!(
            "{what} runs past the end of record type {:#06x} ({} bytes)",
            self.kind,
            self.body.len()
        ))
    }

    #[inline(always)]
    pub(crate) fn bytes(&mut self, count: usize, what: &str) -> Result<&'b [u8]> {
        let end = self
            .pos
            .checked_add(count)
            .filter(|&end| end <= self.body.len())
            .ok_or_else(|| self.short(what))?;
        let bytes = &self.body[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    #[inline]
    pub(crate) fn skip(&mut self, count: usize, what: &str) -> Result<()> {
        self.bytes(count, what).map(|_| ())
    }

    #[inline(always)]
    pub(crate) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.bytes(1, what)?[0])
    }

    #[inline(always)]
    pub(crate) fn u16(&mut self, what: &str) -> Result<u16> {
        let bytes = self.bytes(2, what)?;
        Ok(u16::from_le_bytes([bytes[0], bytes[1]]))
    }

    #[inline(always)]
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32> {
        let bytes = self.bytes(4, what)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    #[inline(always)]
    pub(crate) fn f64(&mut self, what: &str) -> Result<f64> {
        let bytes = self.bytes(8, what)?;
        let mut array = [0u8; 8];
        array.copy_from_slice(bytes);
        Ok(f64::from_le_bytes(array))
    }

    /// An `XLWideString`: a count of UTF-16 code units, then the units;
    /// the raw UTF-16LE bytes.
    #[inline]
    pub(crate) fn wide_string(&mut self, what: &str) -> Result<&'b [u8]> {
        let units = self.u32(what)?;
        self.utf16_units(units, what)
    }

    /// An `XLNullableWideString`: None for the null string (a count of
    /// 0xFFFFFFFF).
    pub(crate) fn nullable_wide_string(&mut self, what: &str) -> Result<Option<&'b [u8]>> {
        let units = self.u32(what)?;
        if units == u32::MAX {
            return Ok(None);
        }
        self.utf16_units(units, what).map(Some)
    }

    fn utf16_units(&mut self, units: u32, what: &str) -> Result<&'b [u8]> {
        let count = usize::try_from(units)
            .ok()
            .and_then(|units| units.checked_mul(2))
            .ok_or_else(|| self.short(what))?;
        self.bytes(count, what)
    }

    /// A reference to a range (`RfX`): first row, last row, first column,
    /// last column, each a u32.
    pub(crate) fn range(&mut self, what: &str) -> Result<[u32; 4]> {
        Ok([
            self.u32(what)?,
            self.u32(what)?,
            self.u32(what)?,
            self.u32(what)?,
        ])
    }
}

/// Appends UTF-16LE `bytes` to `out` as UTF-8; a lone surrogate becomes
/// U+FFFD. Text is taken literally (no escapes, no line-end changes).
#[inline]
pub(crate) fn push_utf16(bytes: &[u8], out: &mut String) {
    let rest = push_ascii_prefix(bytes, |ascii| {
        // All ASCII, so this cannot fail.
        out.push_str(std::str::from_utf8(ascii).unwrap_or_default());
    });
    let decoded = char::decode_utf16(
        rest.chunks_exact(2)
            .map(|unit| u16::from_le_bytes([unit[0], unit[1]])),
    )
    .map(|unit| unit.unwrap_or(char::REPLACEMENT_CHARACTER));
    out.extend(decoded);
}

/// Appends UTF-16LE `bytes` to `out` as UTF-8 bytes (always valid UTF-8:
/// a lone surrogate becomes U+FFFD), for a caller that gathers bytes (the
/// shared strings table checks its text once, whole). Going through a
/// `str` per string was about 300 instructions a string, measured.
#[inline]
pub(crate) fn push_utf16_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    let rest = push_ascii_prefix(bytes, |ascii| out.extend_from_slice(ascii));
    let units = rest.chunks_exact(2);
    let decoded = char::decode_utf16(units.map(|unit| u16::from_le_bytes([unit[0], unit[1]])))
        .map(|unit| unit.unwrap_or(char::REPLACEMENT_CHARACTER));
    let mut utf8 = [0u8; 4];
    for ch in decoded {
        out.extend_from_slice(ch.encode_utf8(&mut utf8).as_bytes());
    }
}

/// Hands the ASCII start of UTF-16LE `bytes` to `push`, 64 units at a time
/// through a buffer on the stack (a char at a time was 4% of reading the
/// 1M x 10 sheet, measured), up to the first chunk that is not all ASCII;
/// returns the rest (empty, or at least one whole unit), for a decoder.
/// Four units are checked and narrowed at once in one 64-bit word (a unit
/// at a time was about 5 instructions a character, measured on the shared
/// strings of the 1M x 10 `.xlsb`).
#[inline(always)]
fn push_ascii_prefix(bytes: &[u8], mut push: impl FnMut(&[u8])) -> &[u8] {
    /// A unit's high byte, and bit 7 of its low byte: set in a non-ASCII
    /// unit.
    const NOT_ASCII: u64 = 0xFF80_FF80_FF80_FF80;
    let mut rest = bytes;
    let mut ascii = [0u8; 64];
    while rest.len() >= 2 {
        let take = (rest.len() / 2).min(ascii.len());
        let units = &rest[..2 * take];
        let mut high = 0u64;
        let words = units.chunks_exact(8);
        let tail = words.remainder();
        for (i, word) in words.enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(word);
            let word = u64::from_le_bytes(bytes);
            high |= word;
            // The low bytes of the four units, side by side.
            let low = word & 0x00FF_00FF_00FF_00FF;
            let low = (low | (low >> 8)) & 0x0000_FFFF_0000_FFFF;
            let low = low | (low >> 16);
            ascii[4 * i..4 * i + 4].copy_from_slice(&(low as u32).to_le_bytes());
        }
        let done = take - tail.len() / 2;
        let mut tail_high = 0u8;
        for (i, unit) in tail.chunks_exact(2).enumerate() {
            ascii[done + i] = unit[0];
            tail_high |= unit[1] | (unit[0] & 0x80);
        }
        if high & NOT_ASCII != 0 || tail_high != 0 {
            break;
        }
        push(&ascii[..take]);
        rest = &rest[2 * take..];
    }
    rest
}

/// UTF-16LE bytes as an owned `String` (names, format codes: read at open).
pub(crate) fn utf16_string(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() / 2);
    push_utf16(bytes, &mut out);
    out
}

/// One record of a streamed part: its type, the part offset of its
/// header, and its body, borrowed from the window.
pub(crate) struct Record<'w> {
    pub kind: u16,
    pub offset: u64,
    pub body: &'w [u8],
}

impl<'w> Record<'w> {
    pub(crate) fn fields(&self) -> Fields<'w> {
        Fields::new(self.kind, self.body)
    }
}

/// The records of one streamed part (a sheet, the shared strings), read
/// from the window of a [`ChunkBuffer`]. The window holds at most one
/// wanted record and the start of the next: memory follows the largest
/// wanted record (bounded by [`Limits::max_row_bytes`]), never the part.
pub(crate) struct RecordStream<'a> {
    source: PartSource<'a>,
    buffer: ChunkBuffer,
    /// Bytes of the window the last record handed out occupies, consumed
    /// on the next call.
    pending: usize,
    max_record: u64,
    ended: bool,
    /// The type of the last record [`next`](Self::next) framed (handed
    /// out or skipped), or [`note_kind`](Self::note_kind) was told of:
    /// what a part ends with.
    last_kind: Option<u16>,
}

impl<'a> RecordStream<'a> {
    pub(crate) fn new(source: PartSource<'a>, limits: &Limits) -> RecordStream<'a> {
        RecordStream {
            buffer: source.chunk_buffer(limits),
            source,
            pending: 0,
            max_record: limits.max_row_bytes,
            ended: false,
            last_kind: None,
        }
    }

    /// The type of the last record framed: once [`next`](Self::next) gave
    /// None, the part's last record (None for an empty part).
    pub(crate) fn last_kind(&self) -> Option<u16> {
        self.last_kind
    }

    /// Notes a record the caller framed itself (through
    /// [`ready`](Self::ready)) as the last one.
    pub(crate) fn note_kind(&mut self, kind: u16) {
        self.last_kind = Some(kind);
    }

    /// The part offset of the next record (the part's length once
    /// [`next`](Self::next) gave None).
    pub(crate) fn offset(&self) -> u64 {
        self.buffer.window_offset() + self.pending as u64
    }

    /// Replaces the window with one of `chunk_size` bytes (tests and
    /// fuzzing: records straddle chunk boundaries).
    pub(crate) fn set_chunk_size(&mut self, chunk_size: usize, limits: &Limits) {
        self.buffer = ChunkBuffer::with_chunk_size(chunk_size, limits.max_row_bytes);
    }

    /// The next record whose type `wanted` accepts; the others are skipped
    /// as their bytes arrive. None at the end of the part (after which the
    /// part was read to its end, so the archive's CRC check ran).
    ///
    /// Errors carry the part offset of the record's header. Inlined: a
    /// record handed back through memory stalled the row reader on store
    /// forwarding (measured).
    #[inline(always)]
    pub(crate) fn next(&mut self, wanted: impl Fn(u16) -> bool) -> Result<Option<Record<'_>>> {
        if self.ended {
            return Ok(None);
        }
        self.buffer.consume(self.pending);
        self.pending = 0;
        let (kind, start, end) = loop {
            let window = self.buffer.window();
            let offset = self.buffer.window_offset();
            let (kind, size, length) = match header(window) {
                Ok(Header::Record { kind, size, length }) => (kind, size, length),
                Ok(Header::Short) => {
                    if self.buffer.is_eof() {
                        if window.is_empty() {
                            self.ended = true;
                            self.source.drain()?;
                            return Ok(None);
                        }
                        return Err(Error::record("the part ends inside a record header")
                            .with_offset(offset));
                    }
                    self.source.fill_for_rescan(&mut self.buffer)?;
                    continue;
                }
                Err(err) => return Err(err.with_offset(offset)),
            };
            self.last_kind = Some(kind);
            let total = length as u64 + u64::from(size);
            if !wanted(kind) {
                self.skip(total, kind, offset)?;
                continue;
            }
            if total > self.max_record {
                return Err(Error::limit("record size", self.max_record).with_offset(offset));
            }
            // Within the limit, so it fits a usize.
            let total = total as usize;
            if window.len() >= total {
                break (kind, length, total);
            }
            if self.buffer.is_eof() {
                return Err(self.past_the_end(kind, size, offset));
            }
            self.source.fill_for_rescan(&mut self.buffer)?;
        };
        let offset = self.buffer.window_offset();
        self.pending = end;
        Ok(Some(Record {
            kind,
            offset,
            body: &self.buffer.window()[start..end],
        }))
    }

    /// The window from the next record on (the record handed out last is
    /// consumed first) and the part offset of its first byte: for a caller
    /// that frames the records the window holds whole itself, and moves
    /// past them with [`advance`](Self::advance). Empty once stopped.
    #[inline(always)]
    pub(crate) fn ready(&mut self) -> (&[u8], u64) {
        self.buffer.consume(self.pending);
        self.pending = 0;
        if self.ended {
            return (&[], self.buffer.window_offset());
        }
        (self.buffer.window(), self.buffer.window_offset())
    }

    /// Moves past `count` bytes of the window [`ready`](Self::ready) gave:
    /// whole records the caller framed.
    #[inline(always)]
    pub(crate) fn advance(&mut self, count: usize) {
        self.buffer.consume(count);
    }

    /// The largest record handed out whole.
    pub(crate) fn max_record(&self) -> u64 {
        self.max_record
    }

    /// Skips `total` bytes of an unwanted record as they arrive.
    fn skip(&mut self, mut total: u64, kind: u16, offset: u64) -> Result<()> {
        loop {
            let held = self.buffer.window().len() as u64;
            let count = held.min(total);
            self.buffer.consume(count as usize);
            total -= count;
            if total == 0 {
                return Ok(());
            }
            if self.buffer.is_eof() {
                return Err(Error::record(format!(
                    "record type {kind:#06x} runs past the end of the part ({total} bytes missing)"
                ))
                .with_offset(offset));
            }
            self.source.fill_for_rescan(&mut self.buffer)?;
        }
    }

    #[cold]
    #[inline(never)]
    fn past_the_end(&self, kind: u16, size: u32, offset: u64) -> Error {
        Error::record(format!(
            "record type {kind:#06x} of {size} bytes runs past the end of the part"
        ))
        .with_offset(offset)
    }

    /// Stops reading: no more records are handed out. The rest of the
    /// part is not read.
    pub(crate) fn stop(&mut self) {
        self.ended = true;
    }
}

/// Checks that a part's last record (`last`) is `end`, the record that
/// closes the part's root (named `name`): a part cut at a record boundary
/// would otherwise lose what came after the cut without a word, which the
/// `.xlsx` reader refuses too (a part ends where its root element ends).
/// `offset` is the part's length.
pub(crate) fn check_part_end(last: Option<u16>, end: u16, name: &str, offset: u64) -> Result<()> {
    if last == Some(end) {
        return Ok(());
    }
    Err(part_not_ended(name, offset))
}

#[cold]
#[inline(never)]
fn part_not_ended(name: &str, offset: u64) -> Error {
    Error::record(format!(
        "the part does not end with its closing {name} record: it is cut short, or records follow \
         its end"
    ))
    .with_offset(offset)
}

/// The records of a part held whole in memory (workbook, styles, a
/// sheet's comments): each with its offset and body.
pub(crate) struct Records<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl<'b> Records<'b> {
    pub(crate) fn new(bytes: &'b [u8]) -> Records<'b> {
        Records { bytes, pos: 0 }
    }
}

impl<'b> Iterator for Records<'b> {
    type Item = Result<(u16, usize, &'b [u8])>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = &self.bytes[self.pos..];
        if rest.is_empty() {
            return None;
        }
        let offset = self.pos;
        let result = match header(rest) {
            Ok(Header::Record { kind, size, length }) => {
                match length
                    .checked_add(size as usize)
                    .filter(|&end| end <= rest.len())
                {
                    Some(end) => {
                        self.pos += end;
                        return Some(Ok((kind, offset, &rest[length..end])));
                    }
                    None => Err(Error::record(format!(
                        "record type {kind:#06x} of {size} bytes runs past the end of the part"
                    ))),
                }
            }
            Ok(Header::Short) => Err(Error::record("the part ends inside a record header")),
            Err(err) => Err(err),
        };
        // No more records after an error.
        self.pos = self.bytes.len();
        Some(result.map_err(|err| err.with_offset(offset as u64)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_headers_of_every_length() {
        assert_eq!(header(&[]).unwrap(), Header::Short);
        assert_eq!(
            header(&[0x00, 0x05]).unwrap(),
            Header::Record {
                kind: 0,
                size: 5,
                length: 2
            }
        );
        // BrtBeginBook: type 0x83 in two bytes.
        assert_eq!(
            header(&[0x83, 0x01, 0x00]).unwrap(),
            Header::Record {
                kind: 0x83,
                size: 0,
                length: 3
            }
        );
        assert_eq!(header(&[0x83]).unwrap(), Header::Short);
        assert_eq!(
            header(&[0x01, 0xFF, 0xFF, 0xFF, 0x7F]).unwrap(),
            Header::Record {
                kind: 1,
                size: (1 << 28) - 1,
                length: 5
            }
        );
        assert_eq!(header(&[0x01, 0xFF, 0xFF]).unwrap(), Header::Short);
        // A size varint of 5 bytes, a type of 3.
        let err = header(&[0x01, 0x80, 0x80, 0x80, 0x80, 0x01]).unwrap_err();
        assert!(err.to_string().contains("more than 4 bytes"), "{err}");
        let err = header(&[0x81, 0x81, 0x01]).unwrap_err();
        assert!(err.to_string().contains("more than 2 bytes"), "{err}");
    }

    #[test]
    fn fields_are_bounds_checked() {
        let body = [1, 0, 0, 0, 0x41, 0, 5];
        let mut fields = Fields::new(6, &body);
        assert_eq!(fields.wide_string("text").unwrap(), &[0x41, 0]);
        assert_eq!(fields.u8("flag").unwrap(), 5);
        assert!(fields.u8("flag").is_err());
        let lying = [0xFF, 0xFF, 0xFF, 0x7F, 0x41, 0];
        let err = Fields::new(6, &lying).wide_string("text").unwrap_err();
        assert!(err.to_string().contains("runs past the end"), "{err}");
        let null = [0xFF, 0xFF, 0xFF, 0xFF];
        assert_eq!(
            Fields::new(6, &null).nullable_wide_string("id").unwrap(),
            None
        );
    }

    #[test]
    fn whole_parts_stop_at_the_first_bad_record() {
        let mut bytes = vec![0x83, 0x01, 0x00, 0x2C, 0x02, 0xA4, 0x00];
        let records: Vec<_> = Records::new(&bytes).map(|r| r.unwrap()).collect();
        assert_eq!(records, [(0x83, 0, &[][..]), (0x2C, 3, &[0xA4, 0x00][..])]);
        // A size that lies, then a header cut short: each an error at its
        // offset, and nothing after it.
        bytes.extend_from_slice(&[0x2C, 0x09, 1]);
        let results: Vec<_> = Records::new(&bytes).collect();
        assert_eq!(results.len(), 3);
        let err = results[2].as_ref().unwrap_err();
        assert!(
            err.to_string().contains("runs past the end of the part"),
            "{err}"
        );
        assert_eq!(err.location().offset, Some(7));
        let err = Records::new(&[0x83]).next().unwrap().unwrap_err();
        assert!(err.to_string().contains("inside a record header"), "{err}");
    }

    #[test]
    fn decodes_utf16_with_replacement_for_lone_surrogates() {
        let mut out = String::new();
        push_utf16(
            &[
                0x41, 0, 0xE9, 0, 0x3D, 0xD8, 0x00, 0xDE, 0x00, 0xD8, 0x42, 0,
            ],
            &mut out,
        );
        assert_eq!(out, "A\u{e9}\u{1F600}\u{FFFD}B");
        out.clear();
        push_utf16(b"a\0\r\0\n\0", &mut out);
        assert_eq!(out, "a\r\n");
        // Across the 64-unit chunks of the ASCII path and the four units
        // of each of its words, in every position; a unit that is not
        // ASCII by its high byte (U+0141: low byte 'A'), by its low byte
        // (U+00E9) or both (a surrogate); after it, ASCII of every length.
        let positions = (0..=9).chain([63, 64, 65, 127, 128, 200]);
        for (at, odd) in
            positions.flat_map(|at| ["\u{141}", "\u{e9}", "\u{1F600}"].map(|odd| (at, odd)))
        {
            for after in [0, 1, 3, 4, 5, 70] {
                let text: String = (0..at)
                    .map(|i| char::from(b'a' + (i % 26) as u8))
                    .collect::<String>()
                    + odd
                    + &"z".repeat(after);
                let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
                out.clear();
                push_utf16(&bytes, &mut out);
                assert_eq!(out, text, "at {at}");
                // The shared strings' decoder, into bytes, after what is there.
                let mut utf8 = b"before".to_vec();
                push_utf16_bytes(&bytes, &mut utf8);
                assert_eq!(utf8, format!("before{text}").into_bytes(), "at {at}");
            }
        }
        // All ASCII, of every length around the words and chunks.
        for length in 0..140 {
            let text: String = (0..length)
                .map(|i| char::from(b' ' + (i % 95) as u8))
                .collect();
            let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
            out.clear();
            push_utf16(&bytes, &mut out);
            assert_eq!(out, text, "length {length}");
        }
        let mut utf8 = Vec::new();
        push_utf16_bytes(
            &[
                0x41, 0, 0xE9, 0, 0x3D, 0xD8, 0x00, 0xDE, 0x00, 0xD8, 0x42, 0,
            ],
            &mut utf8,
        );
        assert_eq!(utf8, "A\u{e9}\u{1F600}\u{FFFD}B".as_bytes());
        // An odd trailing byte is no unit.
        utf8.clear();
        push_utf16_bytes(&[0x41, 0, 0x42], &mut utf8);
        assert_eq!(utf8, b"A");
    }
}
