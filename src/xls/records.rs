//! BIFF records, read one at a time from the workbook stream through a
//! window of [`WINDOW`] bytes (a record is at most 4 + 65,535 bytes), and
//! the text encodings of BIFF5 and BIFF8 strings.
//!
//! `Records` reads one record at a time through a 192 KiB window (a record is
//! at most 64 KiB; each refill a read of the file through `StreamReader`),
//! limited to a sheet's span. Text: BIFF8 Latin-1/UTF-16 (`Chars`, over
//! CONTINUE boundaries with the flags byte each repeats), BIFF5 code pages
//! (`TextCodec`: `codepage` + `encoding_rs`, Mac Central European by table).
//!
//! In an encrypted workbook the window decrypts each record once, when it
//! first lies whole in the window (`plain_end` marks how far the window
//! is decrypted), so that [`Records::peek`] and the fast path's
//! [`Records::ready`] see plain bodies; a plain workbook's window is
//! plain to its end.

use std::io::{Read, Seek, SeekFrom};

use encoding_rs::Encoding;

use crate::error::{Error, ErrorKind, Result};

use super::decrypt::StreamDecryptor;

pub(crate) const FORMULA: u16 = 0x0006;
pub(crate) const EOF: u16 = 0x000A;
pub(crate) const NAME: u16 = 0x0018;
pub(crate) const DATEMODE: u16 = 0x0022;
pub(crate) const FILEPASS: u16 = 0x002F;
pub(crate) const CONTINUE: u16 = 0x003C;
pub(crate) const CODEPAGE: u16 = 0x0042;
pub(crate) const COLINFO: u16 = 0x007D;
pub(crate) const WSBOOL: u16 = 0x0081;
pub(crate) const BOUNDSHEET: u16 = 0x0085;
pub(crate) const MULRK: u16 = 0x00BD;
pub(crate) const RSTRING: u16 = 0x00D6;
pub(crate) const XF: u16 = 0x00E0;
pub(crate) const MERGEDCELLS: u16 = 0x00E5;
pub(crate) const SST: u16 = 0x00FC;
pub(crate) const LABELSST: u16 = 0x00FD;
pub(crate) const DIMENSIONS: u16 = 0x0200;
pub(crate) const NUMBER: u16 = 0x0203;
pub(crate) const LABEL: u16 = 0x0204;
pub(crate) const BOOLERR: u16 = 0x0205;
pub(crate) const STRING: u16 = 0x0207;
pub(crate) const ROW: u16 = 0x0208;
pub(crate) const RK: u16 = 0x027E;
pub(crate) const FORMAT: u16 = 0x041E;
pub(crate) const BOF: u16 = 0x0809;
/// BOF records of the older versions: a substream of one of them nested in
/// a sheet is skipped like a chart's.
pub(crate) const OLD_BOFS: [u16; 3] = [0x0009, 0x0209, 0x0409];

/// The window's size: a whole record fits after any carry-over, and reads
/// from the stream are 64 KiB or more (the `cfb` crate reads those
/// straight from the file).
const WINDOW: usize = 192 * 1024;

/// A record's header: its type, its data's length and its offset in the
/// stream.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Header {
    pub kind: u16,
    pub len: usize,
    pub offset: u64,
}

/// What records are read from: the stream, positioned at the first
/// record's offset, and able to move to another (a parallel worker reads
/// one block of a sheet after another through one window).
pub(crate) trait Source: Read {
    fn seek_to(&mut self, offset: u64) -> std::io::Result<()>;
}

impl<T: Read + Seek> Source for T {
    fn seek_to(&mut self, offset: u64) -> std::io::Result<()> {
        self.seek(SeekFrom::Start(offset)).map(|_| ())
    }
}

/// The records of a stream, from some offset on, up to `end`.
pub(crate) struct Records<'a> {
    source: Box<dyn Source + 'a>,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The stream offset of `buf[0]`.
    base: u64,
    eof: bool,
    /// The offset the records must end before (a sheet's substream ends
    /// before the next sheet's begins).
    limit: u64,
    /// How far `buf` holds plain records (from `start`): `end` but for an
    /// encrypted stream, where it stops before the first record not yet
    /// whole in the window.
    plain_end: usize,
    /// The decryptor of an encrypted workbook stream.
    decryptor: Option<Box<StreamDecryptor>>,
}

impl<'a> Records<'a> {
    pub(crate) fn new(source: Box<dyn Source + 'a>, offset: u64, limit: u64) -> Records<'a> {
        Records {
            source,
            buf: Vec::new(),
            start: 0,
            end: 0,
            base: offset,
            eof: false,
            limit,
            plain_end: 0,
            decryptor: None,
        }
    }

    /// Decrypts every record from the next one on with `decryptor` (an
    /// encrypted workbook's; None: a plain one).
    pub(crate) fn decrypting(mut self, decryptor: Option<StreamDecryptor>) -> Records<'a> {
        self.start_decrypting(decryptor);
        self
    }

    /// As [`decrypting`](Self::decrypting), in place: from the next record
    /// on (the globals' reader, from the record after the FILEPASS).
    pub(crate) fn start_decrypting(&mut self, decryptor: Option<StreamDecryptor>) {
        self.decryptor = decryptor.map(Box::new);
        self.plain_end = self.start;
        self.decrypt_window();
    }

    /// Decrypts the records from `plain_end` on that lie whole in the
    /// window, and moves `plain_end` past them (to `end` for a plain
    /// stream).
    fn decrypt_window(&mut self) {
        let Some(decryptor) = self.decryptor.as_deref_mut() else {
            self.plain_end = self.end;
            return;
        };
        let at = self.plain_end;
        self.plain_end +=
            decryptor.decrypt_records(self.base + at as u64, &mut self.buf[at..self.end]);
    }

    /// Reads the records from `offset` up to `limit` instead, keeping the
    /// window's buffer.
    pub(crate) fn restart(&mut self, offset: u64, limit: u64) -> Result<()> {
        self.source
            .seek_to(offset)
            .map_err(|err| crate::compound::compound_error(err).with_offset(offset))?;
        self.start = 0;
        self.end = 0;
        self.plain_end = 0;
        self.base = offset;
        self.eof = false;
        self.limit = limit;
        Ok(())
    }

    /// The offset of the next record.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.start as u64
    }

    /// The next record's header, its data in the window; None at the end
    /// of the stream (or of the span the records are limited to).
    ///
    /// Inlined, with the window's refill out of line: a record the window
    /// holds whole (nearly every one) costs a few compares.
    #[inline(always)]
    pub(crate) fn peek(&mut self) -> Result<Option<Header>> {
        let offset = self.offset();
        if offset >= self.limit {
            return Ok(None);
        }
        if let Some(&[a, b, c, d]) = self
            .buf
            .get(self.start..self.plain_end)
            .and_then(|w| w.first_chunk())
        {
            let len = usize::from(u16::from_le_bytes([c, d]));
            if self.plain_end - self.start >= 4 + len {
                let kind = u16::from_le_bytes([a, b]);
                return Ok(Some(Header { kind, len, offset }));
            }
        }
        self.peek_refill(offset)
    }

    /// [`peek`](Self::peek) where the window does not hold the whole record.
    #[inline(never)]
    fn peek_refill(&mut self, offset: u64) -> Result<Option<Header>> {
        if !self.fill(4)? {
            if self.end == self.start {
                return Ok(None);
            }
            return Err(Error::new(ErrorKind::Xls(
                "the stream ends inside a record header".into(),
            ))
            .with_offset(offset));
        }
        let at = self.start;
        let kind = u16::from_le_bytes([self.buf[at], self.buf[at + 1]]);
        let len = usize::from(u16::from_le_bytes([self.buf[at + 2], self.buf[at + 3]]));
        if !self.fill(4 + len)? {
            return Err(Error::new(ErrorKind::Xls(format!(
                "record 0x{kind:04X} of {len} bytes runs past the end of the stream"
            )))
            .with_offset(offset));
        }
        Ok(Some(Header { kind, len, offset }))
    }

    /// The data of the record `peek` returned.
    #[inline(always)]
    pub(crate) fn data(&self, header: &Header) -> &[u8] {
        &self.buf[self.start + 4..self.start + 4 + header.len]
    }

    /// Moves past the record `peek` returned.
    #[inline(always)]
    pub(crate) fn consume(&mut self, header: &Header) {
        self.start += 4 + header.len;
    }

    /// The window from the next record on, for a caller that reads the
    /// records it holds whole itself and moves past them with
    /// [`advance`](Self::advance), and how far into it a record may start
    /// (the span's limit). (In an encrypted stream, the records decrypted
    /// so far: every one the window holds whole.)
    #[inline(always)]
    pub(crate) fn ready(&self) -> (&[u8], usize) {
        let window = self.buf.get(self.start..self.plain_end).unwrap_or(&[]);
        let before =
            usize::try_from(self.limit.saturating_sub(self.offset())).unwrap_or(usize::MAX);
        (window, before.min(window.len()))
    }

    /// Moves past `bytes` of whole records that [`ready`](Self::ready)
    /// handed out.
    #[inline(always)]
    pub(crate) fn advance(&mut self, bytes: usize) {
        self.start += bytes;
    }

    /// The next record, consumed: its header and data.
    pub(crate) fn next(&mut self) -> Result<Option<(Header, &[u8])>> {
        let Some(header) = self.peek()? else {
            return Ok(None);
        };
        self.consume(&header);
        let at = self.start - header.len;
        Ok(Some((header, &self.buf[at..self.start])))
    }

    /// Makes `wanted` bytes from `start` on available; false when the
    /// stream ends first.
    fn fill(&mut self, wanted: usize) -> Result<bool> {
        while self.end - self.start < wanted {
            if self.eof {
                return Ok(false);
            }
            if self.buf.is_empty() {
                self.buf.resize(WINDOW, 0);
            }
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.base += self.start as u64;
                self.end -= self.start;
                self.plain_end = self.plain_end.saturating_sub(self.start);
                self.start = 0;
            }
            // Nothing past the span is read (a sheet's window would read
            // the next sheet's first bytes), but for the record asked for.
            let window_end = self.base + self.end as u64;
            let needed_end = self.base + (self.start + wanted) as u64;
            let room = usize::try_from(self.limit.max(needed_end) - window_end)
                .unwrap_or(usize::MAX)
                .min(self.buf.len() - self.end);
            let read = self
                .source
                .read(&mut self.buf[self.end..self.end + room])
                .map_err(|err| crate::compound::compound_error(err).with_offset(self.base))?;
            if read == 0 {
                self.eof = true;
            }
            self.end += read;
            self.decrypt_window();
        }
        Ok(true)
    }
}

/// A little-endian `u16` at `at`, or an error naming the record.
pub(crate) fn u16_at(data: &[u8], at: usize) -> Result<u16> {
    data.get(at..at + 2)
        .map(|bytes| u16::from_le_bytes([bytes[0], bytes[1]]))
        .ok_or_else(short_record)
}

/// A little-endian `u32` at `at`.
pub(crate) fn u32_at(data: &[u8], at: usize) -> Result<u32> {
    data.get(at..at + 4)
        .map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
        .ok_or_else(short_record)
}

/// A little-endian `f64` at `at`.
pub(crate) fn f64_at(data: &[u8], at: usize) -> Result<f64> {
    data.get(at..at + 8)
        .map(|bytes| {
            let mut word = [0u8; 8];
            word.copy_from_slice(bytes);
            f64::from_le_bytes(word)
        })
        .ok_or_else(short_record)
}

#[cold]
pub(crate) fn short_record() -> Error {
    Error::new(ErrorKind::Xls("a record is shorter than its fields".into()))
}

/// An RK number ([MS-XLS] 2.5.217).
#[inline]
pub(crate) fn rk_number(rk: u32) -> f64 {
    let number = if rk & 2 != 0 {
        f64::from((rk as i32) >> 2)
    } else {
        f64::from_bits(u64::from(rk & 0xFFFF_FFFC) << 32)
    };
    if rk & 1 != 0 { number / 100.0 } else { number }
}

/// `number` where it is one a cell can hold: an IEEE NaN or infinity in a
/// NUMBER, RK or a formula's cached result is none (Excel holds no such
/// value: it calls an `.xlsx` holding one damaged, and the `.xlsx` reader
/// refuses the text `NaN` or `1E999` as no number), so the record is
/// damaged and refused, the caller naming its cell and offset.
#[inline(always)]
pub(crate) fn finite(number: f64) -> Result<f64> {
    if number.is_finite() {
        Ok(number)
    } else {
        Err(not_finite(number))
    }
}

#[cold]
#[inline(never)]
pub(crate) fn not_finite(number: f64) -> Error {
    let what = if number.is_nan() {
        "NaN (not a number)"
    } else if number > 0.0 {
        "infinity"
    } else {
        "minus infinity"
    };
    Error::invalid_value(format!(
        "the number is {what}, which no cell holds: a damaged record"
    ))
}

/// The BIFF version of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Biff {
    /// BIFF5 and BIFF7 (Excel 5 to 95): 8-bit text in the code page.
    V5,
    /// BIFF8 (Excel 97 to 2003): Latin-1 or UTF-16 text.
    V8,
}

/// How the workbook's text is decoded: BIFF8 strings are Latin-1 or
/// UTF-16 whatever the code page; BIFF5 strings are 8-bit text in the code
/// page of the CODEPAGE record (Windows-1252 without one).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextCodec {
    pub biff: Biff,
    page: CodePage,
}

#[derive(Debug, Clone, Copy)]
enum CodePage {
    Encoding(&'static Encoding),
    /// Mac Central European (10029), which encoding_rs does not have.
    MacCentralEurope,
}

impl TextCodec {
    pub(crate) fn new(biff: Biff, code_page: Option<u16>) -> TextCodec {
        let page = match code_page {
            Some(10029) => CodePage::MacCentralEurope,
            Some(367 | 32769) | None => CodePage::Encoding(encoding_rs::WINDOWS_1252),
            Some(32768) => CodePage::Encoding(encoding_rs::MACINTOSH),
            Some(page) => CodePage::Encoding(
                codepage::to_encoding(page)
                    .filter(|encoding| *encoding != encoding_rs::UTF_16LE)
                    .unwrap_or(encoding_rs::WINDOWS_1252),
            ),
        };
        TextCodec { biff, page }
    }

    /// Appends 8-bit text in the code page to `out`.
    pub(crate) fn decode_8bit(&self, bytes: &[u8], out: &mut impl Push) {
        if bytes.is_ascii() {
            out.push_str(ascii_str(bytes));
            return;
        }
        match self.page {
            CodePage::MacCentralEurope => {
                for &byte in bytes {
                    out.push_char(if byte < 0x80 {
                        char::from(byte)
                    } else {
                        MAC_CENTRAL_EUROPE[usize::from(byte - 0x80)]
                    });
                }
            }
            CodePage::Encoding(encoding) => {
                let mut decoder = encoding.new_decoder_without_bom_handling();
                let mut chunk = [0u8; 1024];
                let mut rest = bytes;
                loop {
                    let (result, read, written, _) = decoder.decode_to_utf8(rest, &mut chunk, true);
                    // encoding_rs writes whole UTF-8 sequences only.
                    out.push_str(std::str::from_utf8(&chunk[..written]).unwrap_or(""));
                    rest = &rest[read..];
                    if result == encoding_rs::CoderResult::InputEmpty {
                        break;
                    }
                }
            }
        }
    }
}

/// An ASCII byte slice as text.
pub(crate) fn ascii_str(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or("")
}

/// Appends Latin-1 text (BIFF8 "compressed" characters).
pub(crate) fn decode_latin1(bytes: &[u8], out: &mut impl Push) {
    if bytes.is_ascii() {
        out.push_str(ascii_str(bytes));
    } else {
        for &byte in bytes {
            out.push_char(char::from(byte));
        }
    }
}

/// Appends UTF-16LE text; a lone surrogate becomes U+FFFD. `pending`
/// carries a high surrogate over a CONTINUE boundary.
pub(crate) fn decode_utf16(bytes: &[u8], pending: &mut Option<u16>, out: &mut impl Push) {
    let units = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]));
    for unit in pending.take().into_iter().chain(units) {
        match unit {
            0xD800..=0xDBFF => {
                if pending.replace(unit).is_some() {
                    out.push_char(char::REPLACEMENT_CHARACTER);
                }
            }
            0xDC00..=0xDFFF => match pending.take() {
                Some(high) => {
                    let code =
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    out.push_char(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
                None => out.push_char(char::REPLACEMENT_CHARACTER),
            },
            _ => {
                if pending.take().is_some() {
                    out.push_char(char::REPLACEMENT_CHARACTER);
                }
                out.push_char(
                    char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER),
                );
            }
        }
    }
}

/// Where decoded text goes: a `String`, or a string in a row's arena.
pub(crate) trait Push {
    fn push_str(&mut self, text: &str);
    fn push_char(&mut self, ch: char);
}

impl Push for String {
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }
    fn push_char(&mut self, ch: char) {
        self.push(ch);
    }
}

impl Push for bumpalo::collections::String<'_> {
    fn push_str(&mut self, text: &str) {
        bumpalo::collections::String::push_str(self, text);
    }
    fn push_char(&mut self, ch: char) {
        self.push(ch);
    }
}

/// One BIFF8 string's characters read over a record and the CONTINUE
/// records after it: how many are left, and whether they are UTF-16 (the
/// flag is given again at the start of each CONTINUE).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chars {
    pub left: usize,
    pub wide: bool,
    pub pending: Option<u16>,
}

impl Chars {
    /// Decodes as many characters as `data` holds from `*at` on; moves `*at`.
    pub(crate) fn take(&mut self, data: &[u8], at: &mut usize, out: &mut impl Push) {
        let available = data.len().saturating_sub(*at);
        let (count, bytes) = if self.wide {
            let count = self.left.min(available / 2);
            (count, count * 2)
        } else {
            let count = self.left.min(available);
            (count, count)
        };
        let slice = &data[*at..*at + bytes];
        if self.wide {
            decode_utf16(slice, &mut self.pending, out);
        } else {
            if self.pending.take().is_some() {
                out.push_char(char::REPLACEMENT_CHARACTER);
            }
            decode_latin1(slice, out);
        }
        *at += bytes;
        self.left -= count;
    }

    /// Ends the string: a high surrogate left over is U+FFFD.
    pub(crate) fn finish(&mut self, out: &mut impl Push) {
        if self.pending.take().is_some() {
            out.push_char(char::REPLACEMENT_CHARACTER);
        }
    }
}

/// Reads a whole string within one record's data: BIFF8 `cch`
/// (`u16`, or `u8` for the short form) and flags, or BIFF5 `cch` and
/// 8-bit text. Returns the bytes after it; characters past the record are
/// left out (they would be in a CONTINUE, which names and formats never
/// need).
pub(crate) fn read_string(
    data: &[u8],
    at: usize,
    short: bool,
    codec: &TextCodec,
    out: &mut impl Push,
) -> Result<usize> {
    let (cch, mut at) = if short {
        (usize::from(*data.get(at).ok_or_else(short_record)?), at + 1)
    } else {
        (usize::from(u16_at(data, at)?), at + 2)
    };
    match codec.biff {
        Biff::V5 => {
            let end = (at + cch).min(data.len());
            codec.decode_8bit(&data[at..end], out);
            Ok(end)
        }
        Biff::V8 => {
            let flags = match data.get(at) {
                Some(&flags) => flags,
                None if cch == 0 => return Ok(at),
                None => return Err(short_record()),
            };
            at += 1;
            if flags & 0x08 != 0 {
                at += 2;
            }
            if flags & 0x04 != 0 {
                at += 4;
            }
            let at = at.min(data.len());
            let mut chars = Chars {
                left: cch,
                wide: flags & 1 != 0,
                pending: None,
            };
            let mut position = at;
            chars.take(data, &mut position, out);
            chars.finish(out);
            Ok(position)
        }
    }
}

/// Mac Central European, bytes 0x80 to 0xFF.
const MAC_CENTRAL_EUROPE: [char; 128] = [
    'Ä', 'Ā', 'ā', 'É', 'Ą', 'Ö', 'Ü', 'á', 'ą', 'Č', 'ä', 'č', 'Ć', 'ć', 'é', 'Ź', //
    'ź', 'Ď', 'í', 'ď', 'Ē', 'ē', 'Ė', 'ó', 'ė', 'ô', 'ö', 'õ', 'ú', 'Ě', 'ě', 'ü', //
    '†', '°', 'Ę', '£', '§', '•', '¶', 'ß', '®', '©', '™', 'ę', '¨', '≠', 'ģ', 'Į', //
    'į', 'Ī', '≤', '≥', 'ī', 'Ķ', '∂', '∑', 'ł', 'Ļ', 'ļ', 'Ľ', 'ľ', 'Ĺ', 'ĺ', 'Ņ', //
    'ņ', 'Ń', '¬', '√', 'ń', 'Ň', '∆', '«', '»', '…', '\u{a0}', 'ň', 'Ő', 'Õ', 'ő', 'Ō', //
    '–', '—', '“', '”', '‘', '’', '÷', '◊', 'ō', 'Ŕ', 'ŕ', 'Ř', '‹', '›', 'ř', 'Ŗ', //
    'ŗ', 'Š', '‚', '„', 'š', 'Ś', 'ś', 'Á', 'Ť', 'ť', 'Í', 'Ž', 'ž', 'Ū', 'Ó', 'Ô', //
    'ū', 'Ů', 'Ú', 'ů', 'Ű', 'ű', 'Ų', 'ų', 'Ý', 'ý', 'ķ', 'Ż', 'Ł', 'ż', 'Ģ', 'ˇ', //
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rk_numbers_decode_per_the_spec() {
        assert_eq!(rk_number((123 << 2) | 2 | 1), 1.23);
        assert_eq!(rk_number((-5i32 << 2) as u32 | 2), -5.0);
        let bits = (1.5f64.to_bits() >> 32) as u32;
        assert_eq!(rk_number(bits), 1.5);
        assert_eq!(rk_number(bits | 1), 0.015);
    }

    #[test]
    fn utf16_surrogates_pair_over_a_boundary_and_lone_ones_are_replaced() {
        let mut out = String::new();
        let mut pending = None;
        decode_utf16(&[0x3D, 0xD8], &mut pending, &mut out);
        decode_utf16(&[0x00, 0xDE, 0x41, 0x00], &mut pending, &mut out);
        assert_eq!(out, "\u{1F600}A");
        let mut out = String::new();
        decode_utf16(&[0x00, 0xDC, 0x00, 0xD8, 0x42, 0x00], &mut None, &mut out);
        assert_eq!(out, "\u{FFFD}\u{FFFD}B");
    }

    #[test]
    fn code_pages_decode_biff5_text() {
        let mut out = String::new();
        TextCodec::new(Biff::V5, Some(1251)).decode_8bit(&[0xCF, 0xF0, b'!'], &mut out);
        assert_eq!(out, "Пр!");
        let mut out = String::new();
        TextCodec::new(Biff::V5, Some(10029)).decode_8bit(&[0x80, b'a'], &mut out);
        assert_eq!(out, "Äa");
        let mut out = String::new();
        TextCodec::new(Biff::V5, None).decode_8bit(&[0x80], &mut out);
        assert_eq!(out, "€");
    }
}
