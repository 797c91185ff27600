//! Encrypted `.xls` workbooks: the FILEPASS record (0x002F) of the
//! workbook globals, the passwords tried against it, and the decryption
//! of each record's body as the BIFF reader reads it.
//!
//! A FILEPASS says XOR obfuscation (type 0; in BIFF5 the record is the
//! 4-byte XOR key and verifier alone), RC4 "Office 97/2000" (type 1,
//! version 1.1) or RC4 CryptoAPI (type 1, versions 2.2, 3.2, 4.2).
//! [`FilePass::unlock`] checks the passwords against its verifier and
//! gives a [`RecordDecryptor`]: the BIFF reader hands it each record after
//! the FILEPASS with its stream offset ([`RecordDecryptor::decrypt_record`]),
//! and it decrypts the body in place. Record headers are never encrypted
//! (the key stream still advances over them: it is positioned by stream
//! offset), nor are the records Excel leaves plain (BOF, FILEPASS,
//! UsrExcl, FileLock, InterfaceHdr, RRDInfo, RRDHead) or the first four
//! bytes of BoundSheet8 (the sheet's stream offset, `lbPlyPos`).
//!
//! BIFF5 FILEPASS (XOR) is read: the scheme is the same as BIFF8's XOR
//! obfuscation.
//!
//! [`decrypt_workbook_stream`] decrypts a whole workbook stream in memory
//! record by record, and blanks the FILEPASS record: for tests, and as the
//! reference of a differential test of the BIFF reader's own decryption.

use md5::{Digest, Md5};
use sha1::Sha1;

use crate::error::{Error, Result};

use super::rc4::{BlockKeys, KeyStream};
use super::{damaged, first_that_opens, unsupported, xor};

const BOF: u16 = 0x0809;
const EOF: u16 = 0x000A;
const FILEPASS: u16 = 0x002F;
const BOUNDSHEET: u16 = 0x0085;
const INTERFACEHDR: u16 = 0x00E1;
const RRDHEAD: u16 = 0x0138;
const USREXCL: u16 = 0x0194;
const FILELOCK: u16 = 0x0195;
const RRDINFO: u16 = 0x0196;

/// The BIFF version of the workbook stream, as its BOF says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BiffVersion {
    /// BIFF5 and BIFF7 (Excel 5 to 95).
    Biff5,
    /// BIFF8 (Excel 97 to 2003).
    Biff8,
}

/// A parsed FILEPASS record: the scheme and its verifier.
#[derive(Debug, Clone)]
pub struct FilePass(Scheme);

#[derive(Debug, Clone)]
enum Scheme {
    Xor {
        key: u16,
        verifier: u16,
    },
    Rc4 {
        salt: [u8; 16],
        verifier: [u8; 16],
        verifier_hash: [u8; 16],
    },
    CryptoApi {
        key_bits: u32,
        salt: [u8; 16],
        verifier: [u8; 16],
        verifier_hash: [u8; 20],
    },
}

fn u16_at(body: &[u8], at: usize) -> Option<u16> {
    body.get(at..at + 2)
        .map(|bytes| u16::from_le_bytes([bytes[0], bytes[1]]))
}

fn u32_at(body: &[u8], at: usize) -> Option<u32> {
    body.get(at..at + 4)
        .map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

fn array_at<const N: usize>(body: &[u8], at: usize) -> Option<[u8; N]> {
    body.get(at..at + N)?.try_into().ok()
}

/// The error of a FILEPASS record too short for what it says it holds.
fn short(scheme: &str, len: usize, needed: usize) -> Error {
    damaged(format!(
        "the FILEPASS record ({scheme}) is {len} bytes, too short for the {needed} its \
         scheme needs"
    ))
}

impl FilePass {
    /// Parses a FILEPASS record's body.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Encrypted`](crate::ErrorKind::Encrypted) for a record
    /// too short for its scheme or with sizes that lie,
    /// [`ErrorKind::UnsupportedEncryption`](crate::ErrorKind::UnsupportedEncryption)
    /// for another encryption type or version.
    pub fn parse(body: &[u8], version: BiffVersion) -> Result<FilePass> {
        if version == BiffVersion::Biff5 {
            let (Some(key), Some(verifier)) = (u16_at(body, 0), u16_at(body, 2)) else {
                return Err(short("BIFF5 XOR obfuscation", body.len(), 4));
            };
            return Ok(FilePass(Scheme::Xor { key, verifier }));
        }
        let Some(kind) = u16_at(body, 0) else {
            return Err(short("BIFF8", body.len(), 2));
        };
        match kind {
            0 => {
                let (Some(key), Some(verifier)) = (u16_at(body, 2), u16_at(body, 4)) else {
                    return Err(short("XOR obfuscation", body.len(), 6));
                };
                Ok(FilePass(Scheme::Xor { key, verifier }))
            }
            1 => {
                let (Some(major), Some(minor)) = (u16_at(body, 2), u16_at(body, 4)) else {
                    return Err(short("RC4", body.len(), 6));
                };
                match (major, minor) {
                    (1, 1) => {
                        let (Some(salt), Some(verifier), Some(verifier_hash)) =
                            (array_at(body, 6), array_at(body, 22), array_at(body, 38))
                        else {
                            return Err(short("RC4 1.1", body.len(), 54));
                        };
                        Ok(FilePass(Scheme::Rc4 {
                            salt,
                            verifier,
                            verifier_hash,
                        }))
                    }
                    (2..=4, 2) => FilePass::crypto_api(body),
                    _ => Err(unsupported(format!(
                        "an .xls RC4 encryption of version {major}.{minor} (RC4 1.1 and RC4 \
                         CryptoAPI 2.2, 3.2, 4.2 are read)"
                    ))),
                }
            }
            other => Err(unsupported(format!(
                "an .xls encryption of FILEPASS type {other} (XOR obfuscation and RC4 are read)"
            ))),
        }
    }

    /// RC4 CryptoAPI: flags, the header's size, the header (MS-OFFCRYPTO
    /// 2.3.2), then the verifier (2.3.3).
    fn crypto_api(body: &[u8]) -> Result<FilePass> {
        let scheme = "RC4 CryptoAPI";
        let Some(header_size) = u32_at(body, 10) else {
            return Err(short(scheme, body.len(), 14));
        };
        let header_start = 14usize;
        let verifier_start = usize::try_from(header_size)
            .ok()
            .and_then(|size| header_start.checked_add(size))
            .filter(|&end| header_size >= 32 && end <= body.len())
            .ok_or_else(|| {
                damaged(format!(
                    "the FILEPASS record's RC4 CryptoAPI header claims {header_size} bytes, \
                     and the record holds {} after its first 14 (a header is at least 32)",
                    body.len().saturating_sub(header_start)
                ))
            })?;
        let header = &body[header_start..verifier_start];
        let (Some(alg_id), Some(alg_id_hash), Some(key_size)) =
            (u32_at(header, 8), u32_at(header, 12), u32_at(header, 16))
        else {
            return Err(short(scheme, body.len(), header_start + 20));
        };
        if !matches!(alg_id, 0 | 0x6801) {
            return Err(unsupported(format!(
                "an .xls CryptoAPI encryption with the algorithm 0x{alg_id:04X} (only RC4 is \
                 read)"
            )));
        }
        if !matches!(alg_id_hash, 0 | 0x8004) {
            return Err(unsupported(format!(
                "an .xls RC4 CryptoAPI encryption with the hash algorithm 0x{alg_id_hash:04X} \
                 (only SHA-1 is read)"
            )));
        }
        // No key size is 40 bits (MS-OFFCRYPTO 2.3.5.1).
        let key_bits = if key_size == 0 { 40 } else { key_size };
        if !(40..=128).contains(&key_bits) || key_bits % 8 != 0 {
            return Err(unsupported(format!(
                "an .xls RC4 CryptoAPI encryption with {key_bits}-bit keys (40 to 128 bits \
                 are read)"
            )));
        }
        let verifier = &body[verifier_start..];
        let (Some(salt_size), Some(salt), Some(encrypted), Some(hash_size), Some(hash)) = (
            u32_at(verifier, 0),
            array_at(verifier, 4),
            array_at(verifier, 20),
            u32_at(verifier, 36),
            array_at(verifier, 40),
        ) else {
            return Err(short(scheme, body.len(), verifier_start + 60));
        };
        if salt_size != 16 || hash_size != 20 {
            return Err(damaged(format!(
                "the FILEPASS record's RC4 CryptoAPI verifier gives a salt of {salt_size} \
                 bytes and a hash of {hash_size} (16 and 20 are the scheme's)"
            )));
        }
        Ok(FilePass(Scheme::CryptoApi {
            key_bits,
            salt,
            verifier: encrypted,
            verifier_hash: hash,
        }))
    }

    /// The scheme, as messages name it: `xls RC4 CryptoAPI 128-bit`.
    pub fn scheme(&self) -> String {
        match &self.0 {
            Scheme::Xor { .. } => "xls XOR obfuscation".into(),
            Scheme::Rc4 { .. } => "xls RC4 (Office 97/2000, 40-bit)".into(),
            Scheme::CryptoApi { key_bits, .. } => format!("xls RC4 CryptoAPI {key_bits}-bit"),
        }
    }

    /// The decryptor `password` opens, if the verifier accepts it.
    pub fn try_password(&self, password: &str) -> Option<RecordDecryptor> {
        let cipher = match &self.0 {
            Scheme::Xor { key, verifier } => {
                Cipher::Xor(xor::try_password(password, *key, *verifier)?)
            }
            Scheme::Rc4 {
                salt,
                verifier,
                verifier_hash,
            } => {
                let stream = KeyStream::new(BlockKeys::office97(password, salt));
                let md5 = |data: &[u8]| Md5::digest(data).to_vec();
                if !stream.verifies(verifier, verifier_hash, md5) {
                    return None;
                }
                Cipher::Rc4(Box::new(stream))
            }
            Scheme::CryptoApi {
                key_bits,
                salt,
                verifier,
                verifier_hash,
            } => {
                let stream = KeyStream::new(BlockKeys::crypto_api(password, salt, *key_bits));
                let sha1 = |data: &[u8]| Sha1::digest(data).to_vec();
                if !stream.verifies(verifier, verifier_hash, sha1) {
                    return None;
                }
                Cipher::Rc4(Box::new(stream))
            }
        };
        Some(RecordDecryptor(cipher))
    }

    /// Tries Excel's default password, then each of `passwords` in order,
    /// and gives the decryptor of the first the verifier accepts.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::PasswordRequired`](crate::ErrorKind::PasswordRequired)
    /// when `passwords` is empty and the default password does not open
    /// it, [`ErrorKind::PasswordIncorrect`](crate::ErrorKind::PasswordIncorrect)
    /// when none of them does.
    pub fn unlock(&self, passwords: &[String]) -> Result<RecordDecryptor> {
        first_that_opens(&self.scheme(), passwords, |password| {
            Ok(self.try_password(password))
        })
    }
}

/// Decrypts the records of an encrypted `.xls` workbook stream, each in
/// place, given its offset in the stream. Cheapest when records come in
/// stream order (RC4's cipher is kept; it is re-keyed only at a new
/// 1024-byte block or on a jump back); any order gives the same bytes.
/// Clone one per reader of the stream (a parallel worker's).
#[derive(Clone)]
pub struct RecordDecryptor(Cipher);

#[derive(Clone)]
enum Cipher {
    Xor([u8; 16]),
    Rc4(Box<KeyStream>),
}

impl std::fmt::Debug for RecordDecryptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.write_str(match self.0 {
            Cipher::Xor(_) => "RecordDecryptor(XOR)",
            Cipher::Rc4(_) => "RecordDecryptor(RC4)",
        })
    }
}

/// The 4-byte header of the record at `at` (which lies whole in `window`).
#[inline]
fn header_at(window: &[u8], at: usize) -> [u8; 4] {
    [window[at], window[at + 1], window[at + 2], window[at + 3]]
}

/// A header's type and body length.
#[inline]
fn split(header: [u8; 4]) -> (u16, usize) {
    (
        u16::from_le_bytes([header[0], header[1]]),
        usize::from(u16::from_le_bytes([header[2], header[3]])),
    )
}

/// How many bytes at the start of a body of `kind`, `len` bytes long, are
/// not encrypted: all of those Excel never encrypts, BoundSheet8's first
/// four, none of the others.
#[inline]
fn plain_body(kind: u16, len: usize) -> usize {
    if never_encrypted(kind) {
        len
    } else if kind == BOUNDSHEET {
        len.min(4)
    } else {
        0
    }
}

/// Whether Excel leaves the body of a record of this type unencrypted.
fn never_encrypted(kind: u16) -> bool {
    matches!(
        kind,
        BOF | FILEPASS | USREXCL | FILELOCK | INTERFACEHDR | RRDINFO | RRDHEAD
    )
}

impl RecordDecryptor {
    /// Decrypts a record's body in place: `offset` is the stream offset of
    /// the record's 4-byte header, `kind` its type, `body` its data
    /// (`len` bytes from `offset + 4`). Call it once per record (it
    /// decrypts whatever it is given), for every record after the
    /// FILEPASS, in any order. The bodies of the records Excel never
    /// encrypts, and a BoundSheet8's first four bytes, are left as they
    /// are.
    pub fn decrypt_record(&mut self, offset: u64, kind: u16, body: &mut [u8]) {
        if never_encrypted(kind) {
            return;
        }
        let start = offset + 4;
        let plain = if kind == BOUNDSHEET {
            body.len().min(4)
        } else {
            0
        };
        match &mut self.0 {
            Cipher::Xor(array) => {
                let base = start + body.len() as u64 + plain as u64;
                xor::deobfuscate(array, base, &mut body[plain..]);
            }
            Cipher::Rc4(stream) => stream.apply(start + plain as u64, &mut body[plain..]),
        }
    }
}

impl RecordDecryptor {
    /// Decrypts the records that lie whole at the start of `window`, whose
    /// first byte is the header of the record at stream offset `offset`,
    /// each as [`decrypt_record`](Self::decrypt_record) would; returns how
    /// many bytes they take (a record cut short at the end is left as it
    /// is, for a later call that holds it whole). RC4's key stream is made
    /// for the whole span in one pass, then XORed into each body: a
    /// record-sized call per record cost more than the key stream.
    pub fn decrypt_records(&mut self, offset: u64, window: &mut [u8]) -> usize {
        let mut end = 0;
        while let (Some(_), Some(len)) = (u16_at(window, end), u16_at(window, end + 2)) {
            let next = end + 4 + usize::from(len);
            if next > window.len() {
                break;
            }
            end = next;
        }
        match &mut self.0 {
            Cipher::Rc4(stream) => {
                // The key stream is XORed over the whole span in place;
                // what stays plain (the headers, and the rare bodies Excel
                // never encrypts and BoundSheet8's first four bytes) is
                // kept before and put back after.
                let mut kept = stream.take_buffer();
                kept.clear();
                let mut bodies = Vec::new();
                let mut at = 0;
                while at < end {
                    let header = header_at(window, at);
                    kept.extend_from_slice(&header);
                    let (kind, len) = split(header);
                    let plain = plain_body(kind, len);
                    if plain > 0 {
                        bodies.extend_from_slice(&window[at + 4..at + 4 + plain]);
                    }
                    at += 4 + len;
                }
                stream.apply(offset, &mut window[..end]);
                let (mut at, mut from) = (0, 0);
                for header in kept.chunks_exact(4) {
                    let header = [header[0], header[1], header[2], header[3]];
                    window[at..at + 4].copy_from_slice(&header);
                    let (kind, len) = split(header);
                    let plain = plain_body(kind, len);
                    if plain > 0 {
                        window[at + 4..at + 4 + plain].copy_from_slice(&bodies[from..from + plain]);
                        from += plain;
                    }
                    at += 4 + len;
                }
                stream.return_buffer(kept);
            }
            Cipher::Xor(_) => {
                let mut at = 0;
                while at < end {
                    let kind = u16_at(window, at).unwrap_or(0);
                    let body_end = at + 4 + usize::from(u16_at(window, at + 2).unwrap_or(0));
                    self.decrypt_record(offset + at as u64, kind, &mut window[at + 4..body_end]);
                    at = body_end;
                }
            }
        }
        end
    }
}

/// The BIFF version and the FILEPASS record of a workbook stream's
/// globals, if it has one: the records from the BOF up to the globals'
/// EOF (at most 64 KiB of records are looked through; Excel writes
/// FILEPASS right after the BOF).
///
/// # Errors
///
/// [`ErrorKind::Encrypted`](crate::ErrorKind::Encrypted) when the stream
/// does not start with a BOF record; the errors of [`FilePass::parse`].
pub fn workbook_stream_filepass(stream: &[u8]) -> Result<Option<(BiffVersion, FilePass)>> {
    const LOOK_THROUGH: usize = 64 * 1024;
    let mut offset = 0usize;
    let mut version = None;
    while let (Some(kind), Some(len)) = (u16_at(stream, offset), u16_at(stream, offset + 2)) {
        let body_start = offset + 4;
        let Some(body) = stream.get(body_start..body_start + usize::from(len)) else {
            break;
        };
        let Some(version) = version else {
            if kind != BOF {
                return Err(damaged(
                    "the workbook stream does not start with a BOF record",
                ));
            }
            version = Some(if u16_at(body, 0) == Some(0x0500) {
                BiffVersion::Biff5
            } else {
                BiffVersion::Biff8
            });
            offset = body_start + body.len();
            continue;
        };
        match kind {
            FILEPASS => {
                return Ok(Some((
                    version,
                    FilePass::parse(body, version).map_err(|err| err.with_offset(offset as u64))?,
                )));
            }
            EOF => break,
            _ => {}
        }
        offset = body_start + body.len();
        if offset > LOOK_THROUGH {
            break;
        }
    }
    Ok(None)
}

/// Decrypts a whole workbook stream in place, record by record, and
/// blanks its FILEPASS record (type and body zeros, its length kept, as
/// msoffcrypto-tool writes a decrypted stream), so that it reads as an
/// unencrypted workbook with every record at its offset. Bytes after the
/// last whole record are left as they are.
pub fn decrypt_workbook_stream(stream: &mut [u8], decryptor: &mut RecordDecryptor) {
    let mut offset = 0usize;
    let mut after_filepass = false;
    while let (Some(kind), Some(len)) = (u16_at(stream, offset), u16_at(stream, offset + 2)) {
        let body_start = offset + 4;
        let body_end = body_start + usize::from(len);
        let Some(body) = stream.get_mut(body_start..body_end) else {
            break;
        };
        if kind == FILEPASS && !after_filepass {
            body.fill(0);
            stream[offset..offset + 2].fill(0);
            after_filepass = true;
        } else if after_filepass {
            decryptor.decrypt_record(offset as u64, kind, body);
        }
        offset = body_end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn record(kind: u16, body: &[u8]) -> Vec<u8> {
        let mut bytes = kind.to_le_bytes().to_vec();
        bytes.extend_from_slice(&(body.len() as u16).to_le_bytes());
        bytes.extend_from_slice(body);
        bytes
    }

    #[test]
    fn filepass_records_too_short_or_lying_are_typed_errors() {
        let cases: [(&[u8], BiffVersion, &str); 7] = [
            (&[], BiffVersion::Biff8, "too short"),
            (&[0, 0, 1], BiffVersion::Biff8, "too short"),
            (&[1, 0, 1, 0, 1, 0, 9], BiffVersion::Biff8, "too short"),
            (
                &[1, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF],
                BiffVersion::Biff8,
                "claims",
            ),
            (&[1, 0, 2, 0, 2, 0], BiffVersion::Biff8, "too short"),
            (&[1, 2, 3], BiffVersion::Biff5, "too short"),
            (&[1, 0, 9, 0, 9, 0], BiffVersion::Biff8, "version 9.9"),
        ];
        for (body, version, expected) in cases {
            let err = FilePass::parse(body, version).unwrap_err();
            assert!(
                matches!(
                    err.kind(),
                    ErrorKind::Encrypted(_) | ErrorKind::UnsupportedEncryption(_)
                ),
                "{err}"
            );
            assert!(err.to_string().contains(expected), "{body:?}: {err}");
        }
        let err = FilePass::parse(&[2, 0, 0, 0], BiffVersion::Biff8).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
            "{err}"
        );
    }

    #[test]
    fn a_crypto_api_header_with_a_wrong_key_size_is_unsupported() {
        let mut body = vec![1, 0, 4, 0, 2, 0];
        body.extend_from_slice(&0x04u32.to_le_bytes());
        body.extend_from_slice(&32u32.to_le_bytes());
        for word in [0x04u32, 0, 0x6801, 0x8004, 256, 1, 0, 0] {
            body.extend_from_slice(&word.to_le_bytes());
        }
        body.extend_from_slice(&16u32.to_le_bytes());
        body.extend_from_slice(&[0; 32]);
        body.extend_from_slice(&20u32.to_le_bytes());
        body.extend_from_slice(&[0; 20]);
        let err = FilePass::parse(&body, BiffVersion::Biff8).unwrap_err();
        assert!(err.to_string().contains("256-bit keys"), "{err}");
        body[30..34].copy_from_slice(&128u32.to_le_bytes());
        let pass = FilePass::parse(&body, BiffVersion::Biff8).unwrap();
        assert_eq!(pass.scheme(), "xls RC4 CryptoAPI 128-bit");
        let err = pass.unlock(&[]).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::PasswordRequired(_)),
            "{err}"
        );
    }

    #[test]
    fn exempt_records_and_the_sheet_offset_stay_plain_and_the_key_stream_advances() {
        let keys = BlockKeys::crypto_api("x", &[5; 16], 128);
        let mut decryptor = RecordDecryptor(Cipher::Rc4(Box::new(KeyStream::new(keys.clone()))));
        let mut keystream = vec![0u8; 2048];
        for (block, chunk) in keystream.chunks_mut(1024).enumerate() {
            rc4::StreamCipher::apply_keystream(&mut keys.cipher(block as u32), chunk);
        }
        // A BOF body at offset 0 stays; a BOUNDSHEET at 1020 keeps its
        // first four bytes and decrypts the rest across the re-key at 1024.
        let mut bof = [7u8; 16];
        decryptor.decrypt_record(0, BOF, &mut bof);
        assert_eq!(bof, [7; 16]);
        let mut sheet = [0u8; 12];
        decryptor.decrypt_record(1020, BOUNDSHEET, &mut sheet);
        assert_eq!(sheet[..4], [0; 4]);
        assert_eq!(sheet[4..], keystream[1028..1036]);
        // Back to an earlier record: the same bytes as in order.
        let mut early = [0u8; 3];
        decryptor.decrypt_record(100, 0x0203, &mut early);
        assert_eq!(early, keystream[104..107]);
    }

    #[test]
    fn records_decrypted_together_equal_records_decrypted_one_by_one() {
        let keys = BlockKeys::crypto_api("x", &[5; 16], 128);
        let mut window = Vec::new();
        for (kind, len) in [
            (0x0203u16, 14usize),
            (BOUNDSHEET, 12),
            (BOF, 16),
            (0x00FC, 3000),
            (0x0000, 0),
            (0x027E, 10),
        ] {
            window.extend(record(kind, &vec![0x5A; len]));
        }
        // A record cut short at the end stays as it is.
        window.extend_from_slice(&[0x03, 0x02, 14, 0, 1, 2]);
        for cipher in [
            Cipher::Rc4(Box::new(KeyStream::new(keys))),
            Cipher::Xor([9; 16]),
        ] {
            let mut one_by_one = window.clone();
            let mut decryptor = RecordDecryptor(cipher);
            let mut at = 0;
            while at + 4 + usize::from(u16_at(&one_by_one, at + 2).unwrap()) <= one_by_one.len() - 6
            {
                let kind = u16_at(&one_by_one, at).unwrap();
                let end = at + 4 + usize::from(u16_at(&one_by_one, at + 2).unwrap());
                decryptor.decrypt_record(1000 + at as u64, kind, &mut one_by_one[at + 4..end]);
                at = end;
            }
            let mut together = window.clone();
            let mut fresh = decryptor.clone();
            assert_eq!(fresh.decrypt_records(1000, &mut together), window.len() - 6);
            assert_eq!(together, one_by_one);
            assert_ne!(together, window);
        }
    }

    #[test]
    fn the_filepass_is_found_in_the_globals_and_blanked_by_the_whole_stream_decryption() {
        let mut stream = record(BOF, &[0, 6, 5, 0]);
        stream.extend(record(FILEPASS, &[0, 0, 0x34, 0x12, 0x0A, 0x9A]));
        stream.extend(record(0x0042, &[1, 2]));
        stream.extend(record(EOF, &[]));
        let (version, pass) = workbook_stream_filepass(&stream).unwrap().unwrap();
        assert_eq!(version, BiffVersion::Biff8);
        assert_eq!(pass.scheme(), "xls XOR obfuscation");
        let mut decryptor = RecordDecryptor(Cipher::Xor([0; 16]));
        let mut decrypted = stream.clone();
        decrypt_workbook_stream(&mut decrypted, &mut decryptor);
        // FILEPASS: type 0, its length kept, its body zeros.
        assert_eq!(decrypted[8..18], [0, 0, 6, 0, 0, 0, 0, 0, 0, 0]);
        // XOR with zeros only rotates the CODEPAGE body.
        assert_eq!(
            decrypted[22..24],
            [1u8.rotate_right(5), 2u8.rotate_right(5)]
        );
        assert_eq!(decrypted[24..], stream[24..]);
        assert!(workbook_stream_filepass(&record(EOF, &[])).is_err());
        let plain = [record(BOF, &[0, 6]), record(EOF, &[])].concat();
        assert!(workbook_stream_filepass(&plain).unwrap().is_none());
    }
}
