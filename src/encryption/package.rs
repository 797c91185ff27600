//! The decrypted package of an Agile or Standard encrypted workbook, as a
//! positional reader over the `EncryptedPackage` stream, and the
//! `dataIntegrity` check over that stream.
//!
//! `EncryptedPackage` is the plain package's length (`StreamSize`, 8
//! bytes) and then its ciphertext, in segments of [`SEGMENT_SIZE`] bytes:
//! Agile encrypts each in AES-CBC with an IV of its own, Standard
//! encrypts everything in AES-ECB, so that any segment decrypts alone. A
//! [`DecryptedPackage`] reads and decrypts only the segments a read
//! covers, keeps the last one (sequential small reads cost nothing more),
//! and decrypts whole segments straight into a large read's buffer: there
//! is never a decrypted copy of the package in memory, and random access
//! (the ZIP reader's central directory, a sheet-parallel worker's entry)
//! costs at most one segment more than the bytes asked for.

use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};

use super::agile::AgileKey;
use super::primitives::AES_BLOCK;
use super::standard::StandardKey;
use super::{ENCRYPTED_PACKAGE_STREAM, damaged};

/// The plain bytes of one segment of the package (MS-OFFCRYPTO 2.3.4.15).
pub const SEGMENT_SIZE: usize = 4096;

/// The `StreamSize` field before the ciphertext.
const SIZE_FIELD: u64 = 8;

/// The key of an encrypted package, as a password opens it
/// ([`EncryptionInfo::unlock`](super::EncryptionInfo::unlock)). Cloning
/// it is cheap (the key schedule is shared).
#[derive(Clone)]
pub struct PackageKey {
    inner: Arc<KeyKind>,
    scheme: Arc<str>,
}

enum KeyKind {
    Agile(AgileKey),
    Standard(StandardKey),
}

/// What the integrity check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrity {
    /// The HMAC over the encrypted package matches.
    Verified,
    /// The scheme records no integrity data (Standard encryption), or the
    /// Agile header has no `dataIntegrity`: nothing to check.
    NotRecorded,
}

impl std::fmt::Debug for PackageKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself.
        f.debug_struct("PackageKey")
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}

impl PackageKey {
    pub(crate) fn agile(key: AgileKey, scheme: String) -> PackageKey {
        PackageKey {
            inner: Arc::new(KeyKind::Agile(key)),
            scheme: scheme.into(),
        }
    }

    pub(crate) fn standard(key: StandardKey, scheme: String) -> PackageKey {
        PackageKey {
            inner: Arc::new(KeyKind::Standard(key)),
            scheme: scheme.into(),
        }
    }

    /// The scheme, as messages name it: `Agile AES-256/SHA-512`.
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// Whether the header records an integrity check (Agile's
    /// `dataIntegrity`), which [`verify_integrity`](Self::verify_integrity)
    /// would check.
    pub fn records_integrity(&self) -> bool {
        matches!(&*self.inner, KeyKind::Agile(key) if key.integrity.is_some())
    }

    /// Decrypts segment `index` in place; `data` is whole AES blocks.
    fn decrypt_segment(&self, index: u64, data: &mut [u8]) {
        match &*self.inner {
            // The segment count was checked to fit 32 bits at open.
            KeyKind::Agile(key) => key.decrypt_segment(index as u32, data),
            KeyKind::Standard(key) => key.aes.decrypt_ecb(data),
        }
    }

    /// Checks Agile's `dataIntegrity`: the HMAC over the whole
    /// `EncryptedPackage` stream as stored (its size field and the
    /// ciphertext, padding included), in one sequential pass of 64 KiB
    /// reads from its start to its end.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::IntegrityFailure`] when the HMAC does not match,
    /// [`ErrorKind::Io`] when reading fails.
    pub fn verify_integrity<R: Read + Seek>(&self, mut encrypted_package: R) -> Result<Integrity> {
        let KeyKind::Agile(key) = &*self.inner else {
            return Ok(Integrity::NotRecorded);
        };
        let Some((hmac_key, expected)) = &key.integrity else {
            return Ok(Integrity::NotRecorded);
        };
        let mut mac = key.hash().hmac(hmac_key);
        encrypted_package.seek(SeekFrom::Start(0))?;
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let read = match encrypted_package.read(&mut buffer) {
                Ok(0) => break,
                Ok(read) => read,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err.into()),
            };
            mac.update(&buffer[..read]);
        }
        if mac.verify(expected) {
            Ok(Integrity::Verified)
        } else {
            Err(Error::new(ErrorKind::IntegrityFailure(
                "the HMAC of the EncryptedPackage stream (Agile dataIntegrity) does not \
                 match: the file was changed after it was encrypted"
                    .into(),
            ))
            .with_part(ENCRYPTED_PACKAGE_STREAM))
        }
    }
}

/// The plain package of an encrypted workbook: a `Read + Seek` over the
/// `EncryptedPackage` stream `R` that decrypts the segments each read
/// covers. Clone it (when `R` is `Clone`) to read from several threads:
/// each clone has its own position and segment, and shares the key.
pub struct DecryptedPackage<R> {
    inner: R,
    key: PackageKey,
    /// The plain package's length (`StreamSize`).
    size: u64,
    /// The position in the plain package.
    pos: u64,
    /// Where `inner` is, when known (a read at that offset needs no seek).
    inner_pos: Option<u64>,
    /// The segment held decrypted in `segment`, if any.
    held: Option<u64>,
    segment: Vec<u8>,
}

impl<R: Clone> Clone for DecryptedPackage<R> {
    /// Another reader at the same position over a clone of the stream
    /// (the decrypted segment is not copied; the clone reads its own).
    fn clone(&self) -> DecryptedPackage<R> {
        DecryptedPackage {
            inner: self.inner.clone(),
            key: self.key.clone(),
            size: self.size,
            pos: self.pos,
            inner_pos: None,
            held: None,
            segment: Vec::new(),
        }
    }
}

impl<R: Read + Seek> DecryptedPackage<R> {
    /// Opens the plain package over `encrypted_package`, the whole
    /// `EncryptedPackage` stream (its offset 0 is the stream's first
    /// byte), with the key a password opened.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Encrypted`] when the stream is shorter than its size
    /// field and the ciphertext it claims (a package cut short), or too
    /// large to be one (more than 2^32 segments); [`ErrorKind::Io`] when
    /// reading fails.
    pub fn new(mut encrypted_package: R, key: PackageKey) -> Result<DecryptedPackage<R>> {
        let stored = encrypted_package.seek(SeekFrom::End(0))?;
        encrypted_package.seek(SeekFrom::Start(0))?;
        let mut field = [0u8; SIZE_FIELD as usize];
        let mut filled = 0;
        while filled < field.len() {
            match encrypted_package.read(&mut field[filled..]) {
                Ok(0) => break,
                Ok(read) => filled += read,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err.into()),
            }
        }
        let locate = |err: Error| err.with_part(ENCRYPTED_PACKAGE_STREAM);
        if filled < field.len() {
            return Err(locate(damaged(format!(
                "the EncryptedPackage stream is {stored} bytes, too short for its 8-byte size"
            ))));
        }
        let size = u64::from_le_bytes(field);
        // The ciphertext of the last segment is padded to whole blocks.
        let needed = size
            .checked_next_multiple_of(AES_BLOCK as u64)
            .and_then(|ciphertext| ciphertext.checked_add(SIZE_FIELD));
        if needed.is_none_or(|needed| needed > stored) {
            return Err(locate(damaged(format!(
                "the EncryptedPackage stream holds {} bytes of ciphertext, fewer than the \
                 {size} bytes its size field claims (cut short?)",
                stored.saturating_sub(SIZE_FIELD)
            ))));
        }
        if size.div_ceil(SEGMENT_SIZE as u64) > u64::from(u32::MAX) {
            return Err(locate(damaged(format!(
                "the EncryptedPackage stream claims {size} bytes, more than 2^32 segments"
            ))));
        }
        Ok(DecryptedPackage {
            inner: encrypted_package,
            key,
            size,
            pos: 0,
            inner_pos: Some(SIZE_FIELD),
            held: None,
            segment: Vec::new(),
        })
    }

    /// The plain package's length in bytes (`StreamSize`).
    pub fn len(&self) -> u64 {
        self.size
    }

    /// Whether the plain package is empty.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// The key the package is read with.
    pub fn key(&self) -> &PackageKey {
        &self.key
    }

    /// The `EncryptedPackage` stream, back.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Checks the `dataIntegrity` HMAC over the whole encrypted stream
    /// ([`PackageKey::verify_integrity`]): one sequential pass over it.
    ///
    /// # Errors
    ///
    /// As [`PackageKey::verify_integrity`].
    pub fn verify_integrity(&mut self) -> Result<Integrity> {
        self.inner_pos = None;
        self.key.verify_integrity(&mut self.inner)
    }

    /// The ciphertext bytes of segment `index`: whole AES blocks, the last
    /// segment's cut to the blocks that hold the package's end.
    fn ciphertext_len(&self, index: u64) -> usize {
        let start = index * SEGMENT_SIZE as u64;
        let plain = (self.size - start).min(SEGMENT_SIZE as u64);
        plain.next_multiple_of(AES_BLOCK as u64) as usize
    }

    /// Reads the ciphertext from `offset` in the stream into `out`.
    fn read_ciphertext(&mut self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        if self.inner_pos != Some(offset) {
            self.inner_pos = None;
            self.inner.seek(SeekFrom::Start(offset))?;
        }
        let result = self.inner.read_exact(out);
        self.inner_pos = result.is_ok().then_some(offset + out.len() as u64);
        result.map_err(|err| {
            if err.kind() == io::ErrorKind::UnexpectedEof {
                // The length was checked at open: the stream shrank.
                io::Error::from(
                    damaged(format!(
                        "the EncryptedPackage stream ends before byte {}",
                        offset + out.len() as u64
                    ))
                    .with_part(ENCRYPTED_PACKAGE_STREAM),
                )
            } else {
                err
            }
        })
    }

    /// Makes `segment` hold segment `index`, decrypted.
    fn load(&mut self, index: u64) -> io::Result<()> {
        if self.held == Some(index) {
            return Ok(());
        }
        self.held = None;
        let len = self.ciphertext_len(index);
        let mut segment = std::mem::take(&mut self.segment);
        segment.resize(len, 0);
        let result = self.read_ciphertext(SIZE_FIELD + index * SEGMENT_SIZE as u64, &mut segment);
        if result.is_ok() {
            self.key.decrypt_segment(index, &mut segment);
            self.held = Some(index);
        }
        self.segment = segment;
        result
    }
}

impl<R: Read + Seek> Read for DecryptedPackage<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() || self.pos >= self.size {
            return Ok(0);
        }
        let segment_size = SEGMENT_SIZE as u64;
        let index = self.pos / segment_size;
        let within = (self.pos % segment_size) as usize;
        // A read of whole segments not held: decrypt them in `out`.
        let whole = ((self.size - self.pos) / segment_size).min((out.len() / SEGMENT_SIZE) as u64);
        if within == 0 && whole > 0 && self.held != Some(index) {
            let bytes = whole as usize * SEGMENT_SIZE;
            let out = &mut out[..bytes];
            self.read_ciphertext(SIZE_FIELD + self.pos, out)?;
            for (offset, segment) in out.chunks_exact_mut(SEGMENT_SIZE).enumerate() {
                self.key.decrypt_segment(index + offset as u64, segment);
            }
            self.pos += bytes as u64;
            return Ok(bytes);
        }
        self.load(index)?;
        let end = (self.size - index * segment_size).min(segment_size) as usize;
        let available = &self.segment[within..end];
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        self.pos += count as u64;
        Ok(count)
    }
}

impl<R: Read + Seek> Seek for DecryptedPackage<R> {
    /// Moves in the plain package (no I/O: the next read seeks the
    /// stream). A position past the end reads nothing.
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let target = match pos {
            SeekFrom::Start(offset) => Some(offset),
            SeekFrom::End(delta) => self.size.checked_add_signed(delta),
            SeekFrom::Current(delta) => self.pos.checked_add_signed(delta),
        };
        let Some(target) = target else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a seek before the start of the decrypted package",
            ));
        };
        self.pos = target;
        Ok(target)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.pos)
    }
}
