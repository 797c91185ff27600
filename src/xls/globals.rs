//! The workbook globals: the substream at the start of the workbook stream,
//! read record by record at open. BOF (the BIFF version), FILEPASS (the
//! workbook is encrypted: unlocked with the passwords, and every record
//! after it decrypted from then on, see `decrypt`), CODEPAGE, DATEMODE, FORMAT and XF (into the neutral styles:
//! cells name any XF by index, so every XF is a style, in order),
//! BOUNDSHEET (the sheet list and each sheet's offset) and SST with its
//! CONTINUE records (into the shared strings); SUPBOOK, EXTERNSHEET and
//! NAME (BIFF8) into the [`Links`] formula text resolves against.

use crate::date::DateSystem;
use crate::error::{Error, ErrorKind, Result};
use crate::formula::Links;
use crate::limits::Limits;
use crate::metadata::{SheetInfo, SheetKind, SheetState};
use crate::shared_strings::{SharedStrings, SharedStringsBuilder};
use crate::styles::{Styles, StylesBuilder};

use super::decrypt::{self, StreamDecryptor};
use super::records::{
    BOF, BOUNDSHEET, Biff, CODEPAGE, CONTINUE, Chars, DATEMODE, EOF, FILEPASS, FORMAT, NAME,
    OLD_BOFS, Records, SST, TextCodec, XF, read_string, short_record, u16_at, u32_at,
};

const SUPBOOK: u16 = 0x01AE;
const EXTERNNAME: u16 = 0x0023;
const EXTERNSHEET: u16 = 0x0017;

/// The most XF records kept: cells name one by a `u16`.
const MAX_XFS: usize = 1 << 16;

/// What the globals say.
pub(crate) struct Globals {
    pub codec: TextCodec,
    pub sheets: Vec<SheetInfo>,
    /// Each sheet's BOF offset, by position.
    pub offsets: Vec<u64>,
    /// The offset after the globals' EOF: no sheet starts before it.
    pub end: u64,
    pub styles: Styles,
    pub shared_strings: Option<SharedStrings>,
    pub date_system: DateSystem,
    /// What formulas refer to by index (BIFF8: SUPBOOK, EXTERNSHEET, NAME).
    pub links: Links,
    /// An encrypted workbook's decryptor (every reader of the stream
    /// decrypts with a clone) and its scheme's name.
    pub encryption: Option<(StreamDecryptor, String)>,
}

/// The BIFF version a BOF record names.
pub(crate) fn bof_version(kind: u16, data: &[u8]) -> Result<Biff> {
    if OLD_BOFS.contains(&kind) {
        return Err(Error::new(ErrorKind::Xls(
            "a BIFF2, BIFF3 or BIFF4 workbook (Excel 2.x to 4.0), which is not read; \
             save it as .xlsx to read it"
                .into(),
        )));
    }
    Ok(if u16_at(data, 0)? == 0x0500 {
        Biff::V5
    } else {
        Biff::V8
    })
}

/// Reads the globals substream, which `records` start at; `passwords`
/// open an encrypted one (after Excel's default password).
pub(crate) fn read_globals(
    records: &mut Records<'_>,
    limits: &Limits,
    passwords: &[String],
) -> Result<Globals> {
    let biff = match records.next()? {
        Some((header, data)) if header.kind == BOF || OLD_BOFS.contains(&header.kind) => {
            bof_version(header.kind, data)?
        }
        _ => {
            return Err(Error::new(ErrorKind::Xls(
                "the workbook stream does not start with a BOF record".into(),
            ))
            .with_offset(0));
        }
    };
    let mut codec = TextCodec::new(biff, None);
    let mut date_system = DateSystem::V1900;
    let mut styles = StylesBuilder::new();
    let mut xf_formats: Vec<u16> = Vec::new();
    let mut sheets: Vec<SheetInfo> = Vec::new();
    let mut offsets = Vec::new();
    let mut shared_strings = None;
    let mut text = String::new();
    let mut end = records.offset();
    // Which SUPBOOKs are this workbook, the EXTERNSHEET entries (supporting
    // link, first and last sheet) and the defined names, for formulas.
    let mut own_books: Vec<bool> = Vec::new();
    // Each add-in SUPBOOK's EXTERNNAMEs (the functions it names); empty
    // for other SUPBOOKs.
    let mut addin_names: Vec<Vec<String>> = Vec::new();
    let mut addin_books: Vec<bool> = Vec::new();
    let mut extern_sheets: Vec<(u16, i16, i16)> = Vec::new();
    let mut links = Links::default();
    let mut encryption = None;
    while let Some(header) = records.peek()? {
        let locate = |err: Error| err.with_offset(header.offset);
        if header.kind == SST {
            if shared_strings.is_some() {
                return Err(locate(Error::new(ErrorKind::Xls(
                    "the workbook has two SST records".into(),
                ))));
            }
            shared_strings = Some(read_sst(records, limits)?);
            continue;
        }
        let data = records.data(&header);
        match header.kind {
            EOF => {
                records.consume(&header);
                end = records.offset();
                break;
            }
            FILEPASS if encryption.is_some() => {
                return Err(locate(Error::new(ErrorKind::Encrypted(
                    "the workbook globals hold a second FILEPASS record".into(),
                ))));
            }
            FILEPASS => {
                let from = header.offset + 4 + header.len as u64;
                let (decryptor, scheme) =
                    decrypt::unlock(data, biff, from, passwords).map_err(locate)?;
                records.consume(&header);
                records.start_decrypting(Some(decryptor.clone()));
                encryption = Some((decryptor, scheme));
                end = records.offset();
                continue;
            }
            CODEPAGE => codec = TextCodec::new(biff, Some(u16_at(data, 0).map_err(locate)?)),
            DATEMODE if u16_at(data, 0).map_err(locate)? == 1 => {
                date_system = DateSystem::V1904;
            }
            FORMAT => {
                let id = u16_at(data, 0).map_err(locate)?;
                text.clear();
                read_string(data, 2, biff == Biff::V5, &codec, &mut text).map_err(locate)?;
                styles.custom_format(u32::from(id), text.clone());
            }
            XF if xf_formats.len() < MAX_XFS => {
                xf_formats.push(u16_at(data, 2).map_err(locate)?);
            }
            BOUNDSHEET => {
                if sheets.len() as u64 >= limits.max_sheets {
                    return Err(locate(Error::limit("number of sheets", limits.max_sheets)));
                }
                let offset = u32_at(data, 0).map_err(locate)?;
                let state = match data.get(4).ok_or_else(short_record).map_err(locate)? & 3 {
                    0 => SheetState::Visible,
                    1 => SheetState::Hidden,
                    _ => SheetState::VeryHidden,
                };
                let kind = match data.get(5).ok_or_else(short_record).map_err(locate)? {
                    0 => SheetKind::Worksheet,
                    2 => SheetKind::Chartsheet,
                    // 1: an Excel 4.0 macro sheet; 6: a VB module.
                    _ => SheetKind::Macrosheet,
                };
                let mut name = String::new();
                read_string(data, 6, true, &codec, &mut name).map_err(locate)?;
                offsets.push(u64::from(offset));
                sheets.push(SheetInfo {
                    position: sheets.len(),
                    name,
                    state,
                    kind,
                    part: String::new(),
                });
            }
            SUPBOOK if biff == Biff::V8 => {
                let kind = u16_at(data, 2).map_err(locate)?;
                own_books.push(kind == 0x0401);
                addin_books.push(kind == 0x3A01);
                addin_names.push(Vec::new());
            }
            EXTERNNAME if biff == Biff::V8 => {
                // An add-in's names are read; others' are left out.
                let last = addin_names.len().checked_sub(1);
                let addin = last.filter(|&last| addin_books[last]);
                if let (Some(last), Some(&cch)) = (addin, data.get(6)) {
                    let wide = data.get(7).is_some_and(|flags| flags & 1 != 0);
                    let bytes = usize::from(cch) * if wide { 2 } else { 1 };
                    let mut name = String::new();
                    if let Some(text) = data.get(8..8 + bytes) {
                        if wide {
                            super::records::decode_utf16(text, &mut None, &mut name);
                        } else {
                            super::records::decode_latin1(text, &mut name);
                        }
                    }
                    addin_names[last].push(name);
                }
            }
            EXTERNSHEET if biff == Biff::V8 => {
                let count = usize::from(u16_at(data, 0).map_err(locate)?);
                let entries = data.get(2..).unwrap_or(&[]).chunks_exact(6).take(count);
                extern_sheets.extend(entries.map(|xti| {
                    (
                        u16::from_le_bytes([xti[0], xti[1]]),
                        i16::from_le_bytes([xti[2], xti[3]]),
                        i16::from_le_bytes([xti[4], xti[5]]),
                    )
                }));
            }
            NAME if biff == Biff::V8 => {
                let name = super::metadata::read_name(data, &codec, &[], &[]);
                links
                    .names
                    .push(name.map(|name| name.name).unwrap_or_default());
            }
            _ => {}
        }
        records.consume(&header);
        end = records.offset();
    }
    let names: Vec<&str> = sheets.iter().map(|sheet| sheet.name.as_str()).collect();
    links.external_names = extern_sheets
        .iter()
        .map(|&(book, _, _)| {
            addin_names
                .get(usize::from(book))
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    links.sheets = extern_sheets
        .iter()
        .map(|&(book, first, last)| {
            own_books
                .get(usize::from(book))
                .copied()
                .unwrap_or(false)
                .then(|| Links::sheet_prefix(&names, i64::from(first), i64::from(last)))
                .flatten()
        })
        .collect();
    for format in xf_formats {
        styles.cell_style(u32::from(format));
    }
    Ok(Globals {
        codec,
        sheets,
        offsets,
        end,
        styles: styles.finish(date_system),
        shared_strings,
        date_system,
        links,
        encryption,
    })
}

/// The SST record and its CONTINUE records, copied one at a time.
struct Continued<'r, 'a> {
    records: &'r mut Records<'a>,
    data: Vec<u8>,
    at: usize,
}

impl Continued<'_, '_> {
    /// Moves to the next CONTINUE record; false when the next record is
    /// another.
    fn advance(&mut self) -> Result<bool> {
        match self.records.peek()? {
            Some(header) if header.kind == CONTINUE => {
                self.data.clear();
                self.data.extend_from_slice(self.records.data(&header));
                self.records.consume(&header);
                self.at = 0;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// One byte, over record boundaries.
    fn byte(&mut self) -> Result<Option<u8>> {
        while self.at >= self.data.len() {
            if !self.advance()? {
                return Ok(None);
            }
        }
        self.at += 1;
        Ok(Some(self.data[self.at - 1]))
    }

    fn u16(&mut self) -> Result<Option<u16>> {
        let (Some(low), Some(high)) = (self.byte()?, self.byte()?) else {
            return Ok(None);
        };
        Ok(Some(u16::from_le_bytes([low, high])))
    }

    fn u32(&mut self) -> Result<Option<u32>> {
        let (Some(low), Some(high)) = (self.u16()?, self.u16()?) else {
            return Ok(None);
        };
        Ok(Some(u32::from(low) | (u32::from(high) << 16)))
    }

    /// Skips `count` bytes over record boundaries; false when the records
    /// end first.
    fn skip(&mut self, mut count: u64) -> Result<bool> {
        while count > 0 {
            if self.at >= self.data.len() && !self.advance()? {
                return Ok(false);
            }
            let step = count.min((self.data.len() - self.at) as u64);
            self.at += step as usize;
            count -= step;
        }
        Ok(true)
    }
}

/// Reads the SST: its strings, each possibly split over CONTINUE records
/// (the flags byte repeats where the characters continue), rich text runs
/// and phonetic data skipped. The counts it states size nothing: strings
/// are read while the records hold them.
fn read_sst(records: &mut Records<'_>, limits: &Limits) -> Result<SharedStrings> {
    let Some((header, data)) = records.next()? else {
        return Err(short_record());
    };
    let sst_offset = header.offset;
    let unique = u32_at(data, 4).map_err(|err| err.with_offset(sst_offset))?;
    let mut cursor = Continued {
        data: data[8..].to_vec(),
        records,
        at: 0,
    };
    let mut builder = SharedStringsBuilder::new(limits);
    let mut text = String::new();
    let mut count = 0u32;
    let locate = |err: Error| err.with_offset(sst_offset);
    while count < unique {
        let Some(cch) = cursor.u16()? else { break };
        let truncated = || {
            Error::new(ErrorKind::Xls(format!(
                "the SST ends inside string {count}"
            )))
        };
        let flags = cursor.byte()?.ok_or_else(truncated)?;
        let runs = if flags & 0x08 != 0 {
            cursor.u16()?.ok_or_else(truncated)?
        } else {
            0
        };
        let ext = if flags & 0x04 != 0 {
            cursor.u32()?.ok_or_else(truncated)?
        } else {
            0
        };
        text.clear();
        let mut chars = Chars {
            left: usize::from(cch),
            wide: flags & 1 != 0,
            pending: None,
        };
        loop {
            let data = &cursor.data;
            chars.take(data, &mut cursor.at, &mut text);
            if chars.left == 0 {
                break;
            }
            if !cursor.advance()? {
                return Err(truncated().with_offset(sst_offset));
            }
            let flags = cursor.data.first().copied().ok_or_else(truncated)?;
            chars.wide = flags & 1 != 0;
            cursor.at = 1;
        }
        chars.finish(&mut text);
        builder.append(text.as_bytes()).map_err(locate)?;
        builder.end_item().map_err(locate)?;
        if !cursor.skip(4 * u64::from(runs) + u64::from(ext))? {
            break;
        }
        count += 1;
    }
    // The rest of the SST's records (strings past the count).
    while cursor.advance()? {}
    builder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: u16, data: &[u8]) -> Vec<u8> {
        let mut out = kind.to_le_bytes().to_vec();
        out.extend_from_slice(&(data.len() as u16).to_le_bytes());
        out.extend_from_slice(data);
        out
    }

    fn strings(stream: &[u8]) -> Result<Vec<String>> {
        let mut records = Records::new(
            Box::new(std::io::Cursor::new(stream)),
            0,
            stream.len() as u64,
        );
        let table = read_sst(&mut records, &Limits::default())?;
        Ok((0..table.len())
            .map(|i| table.get(i).unwrap().to_owned())
            .collect())
    }

    #[test]
    fn a_string_header_and_its_runs_may_straddle_records() {
        // "héllo" with 1 rich run: the header's cch is cut after its first
        // byte, the characters after "hé" (the CONTINUE's flags byte then
        // says UTF-16), the run in the middle of its 4 bytes.
        let mut sst = 2u32.to_le_bytes().to_vec();
        sst.extend_from_slice(&2u32.to_le_bytes());
        sst.push(5);
        let mut stream = record(SST, &sst);
        let mut more = vec![0, 0x08, 1, 0, b'h', 0xE9];
        stream.extend(record(CONTINUE, &more));
        more = vec![1];
        for ch in "llo".encode_utf16() {
            more.extend_from_slice(&ch.to_le_bytes());
        }
        more.extend_from_slice(&[0, 0]);
        stream.extend(record(CONTINUE, &more));
        let mut last = vec![0, 0];
        last.extend_from_slice(&[2, 0, 0, b'o', b'k']);
        stream.extend(record(CONTINUE, &last));
        stream.extend(record(EOF, &[]));
        assert_eq!(strings(&stream).unwrap(), ["héllo", "ok"]);
    }

    #[test]
    fn counts_size_nothing_and_a_string_cut_short_is_an_error() {
        // Four billion strings claimed, none there.
        let mut sst = u32::MAX.to_le_bytes().to_vec();
        sst.extend_from_slice(&u32::MAX.to_le_bytes());
        let stream = record(SST, &sst);
        assert!(strings(&stream).unwrap().is_empty());
        // A string of 10 characters with 3 in the records.
        let mut sst = 1u32.to_le_bytes().to_vec();
        sst.extend_from_slice(&1u32.to_le_bytes());
        sst.extend_from_slice(&[10, 0, 0, b'a', b'b', b'c']);
        let mut stream = record(SST, &sst);
        stream.extend(record(EOF, &[]));
        let err = strings(&stream).unwrap_err();
        assert!(
            err.to_string().contains("the SST ends inside string 0"),
            "{err}"
        );
    }

    #[test]
    fn the_globals_read_formats_xfs_sheets_and_the_date_system() {
        let mut bof = vec![0u8; 16];
        bof[0..2].copy_from_slice(&0x0600u16.to_le_bytes());
        bof[2..4].copy_from_slice(&5u16.to_le_bytes());
        let mut stream = record(BOF, &bof);
        stream.extend(record(DATEMODE, &1u16.to_le_bytes()));
        let mut xf = vec![0u8; 20];
        xf[2..4].copy_from_slice(&165u16.to_le_bytes());
        stream.extend(record(XF, &xf));
        let mut format = 165u16.to_le_bytes().to_vec();
        format.extend_from_slice(&[5, 0, 0]);
        format.extend_from_slice(b"d/m/y");
        stream.extend(record(FORMAT, &format));
        let mut sheet = 1234u32.to_le_bytes().to_vec();
        sheet.extend_from_slice(&[1, 0, 3, 0]);
        sheet.extend_from_slice(b"Abc");
        stream.extend(record(BOUNDSHEET, &sheet));
        stream.extend(record(EOF, &[]));
        let mut records = Records::new(
            Box::new(std::io::Cursor::new(&stream[..])),
            0,
            stream.len() as u64,
        );
        let globals = read_globals(&mut records, &Limits::default(), &[]).unwrap();
        assert_eq!(globals.date_system, DateSystem::V1904);
        assert_eq!(globals.offsets, [1234]);
        assert_eq!(globals.end, stream.len() as u64);
        assert_eq!(globals.sheets[0].name(), "Abc");
        assert_eq!(globals.sheets[0].state(), SheetState::Hidden);
        // The FORMAT after the XF still makes it a date.
        assert!(globals.styles.date_kind(0).is_some());
    }

    #[test]
    fn an_encrypted_or_old_workbook_is_refused() {
        let mut bof = vec![0u8; 16];
        bof[0..2].copy_from_slice(&0x0600u16.to_le_bytes());
        let mut stream = record(BOF, &bof);
        stream.extend(record(FILEPASS, &[0, 0]));
        let mut records = Records::new(
            Box::new(std::io::Cursor::new(&stream[..])),
            0,
            stream.len() as u64,
        );
        let err = read_globals(&mut records, &Limits::default(), &[])
            .err()
            .expect("refused");
        assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
        let stream = record(0x0409, &[0, 0, 0x10, 0]);
        let mut records = Records::new(
            Box::new(std::io::Cursor::new(&stream[..])),
            0,
            stream.len() as u64,
        );
        let err = read_globals(&mut records, &Limits::default(), &[])
            .err()
            .expect("refused");
        assert!(err.to_string().contains("BIFF2, BIFF3 or BIFF4"), "{err}");
    }
}
