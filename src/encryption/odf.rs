//! Encrypted OpenDocument packages (`.ods`, ODF 1.2 part 3, section 3.8):
//! the `manifest:encryption-data` of each encrypted entry, its key, the
//! password check against its checksum, and a streaming reader of its
//! bytes decrypted.
//!
//! An encrypted entry is stored (ZIP method 0) and holds its bytes
//! deflated, then encrypted: AES-256-CBC (what LibreOffice writes since
//! 3.4; AES-128 and -192 likewise) or Blowfish in 64-bit CFB (older
//! files), under a key from PBKDF2-HMAC-SHA1 of the start key (the SHA-1
//! or SHA-256 of the UTF-8 password) with the entry's own salt and
//! iteration count. The manifest's checksum (SHA-1 or SHA-256 of the
//! first 1024 decrypted bytes) is the password check. [`OdfDecrypt`]
//! yields the decrypted, still deflated bytes: the caller inflates them
//! and checks the entry's `manifest:size`.
//!
//! ODF 1.3's AES-GCM, Argon2 key derivation and OpenPGP keys are refused
//! by name.

use std::io::{self, Read};

use sha1::{Digest, Sha1};
use sha2::Sha256;

use crate::error::{Error, ErrorKind, Result};

use super::primitives::{AES_BLOCK, Aes};
use super::{XmlEvent, attributes, base64, damaged, decimal, unsupported, walk_elements};

/// The most PBKDF2 iterations read: ten times what LibreOffice writes
/// (100,000). Each entry has a salt of its own, so a password try costs
/// this many HMAC-SHA1 pairs per entry read; a crafted count over it is
/// refused before any hashing.
pub const MAX_ODF_ITERATIONS: u32 = 1_000_000;

/// The bytes of a checksum's reach: the first 1024 decrypted bytes.
const CHECKSUM_BYTES: usize = 1024;

/// The raw bytes of an entry the password check reads: the checksum's
/// 1024 and two AES blocks, so that the padding of a short entry is seen.
pub const ODF_CHECK_BYTES: usize = CHECKSUM_BYTES + 2 * AES_BLOCK;

/// The manifest's name in the package, for errors.
const MANIFEST: &str = "META-INF/manifest.xml";

/// The cipher of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OdfCipher {
    /// AES in CBC with W3C padding (xmlenc), of a 16-, 24- or 32-byte key.
    AesCbc,
    /// Blowfish in 64-bit CFB, no padding.
    BlowfishCfb,
}

/// The hash of the start key and of the checksum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OdfHash {
    Sha1,
    Sha256,
}

impl OdfHash {
    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            OdfHash::Sha1 => Sha1::digest(data).to_vec(),
            OdfHash::Sha256 => Sha256::digest(data).to_vec(),
        }
    }
}

/// How one encrypted entry of an ODF package is encrypted, from its
/// manifest entry.
#[derive(Debug, Clone)]
pub struct OdfEntryEncryption {
    path: String,
    size: Option<u64>,
    cipher: OdfCipher,
    iv: Vec<u8>,
    salt: Vec<u8>,
    iterations: u32,
    key_size: usize,
    start_key: OdfHash,
    checksum: Option<(OdfHash, Vec<u8>)>,
}

/// The key of one entry, as a password gives it.
#[derive(Clone)]
pub struct OdfKey(Vec<u8>);

impl std::fmt::Debug for OdfKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OdfKey(..)")
    }
}

/// The attributes of one `manifest:file-entry` as read.
#[derive(Default)]
struct RawEntry {
    path: Option<String>,
    size: Option<u64>,
    encrypted: bool,
    checksum_type: Option<String>,
    checksum: Option<Vec<u8>>,
    algorithm: Option<String>,
    iv: Option<Vec<u8>>,
    start_key: Option<String>,
    derivation: Option<String>,
    iterations: Option<u64>,
    salt: Option<Vec<u8>>,
    key_size: Option<u64>,
    pgp: bool,
}

/// Reads an ODF package's manifest (`META-INF/manifest.xml`, its bytes)
/// and gives the encryption of every encrypted entry, in manifest order.
/// An entry without `manifest:encryption-data` is not listed.
///
/// # Errors
///
/// [`ErrorKind::Xml`] for a manifest that is not well-formed,
/// [`ErrorKind::Encrypted`] for encryption data that is missing a field or
/// lies about a size, [`ErrorKind::UnsupportedEncryption`] for an entry
/// encrypted with a scheme this reader does not decrypt.
pub fn parse_manifest(manifest: &[u8]) -> Result<Vec<OdfEntryEncryption>> {
    let mut entries = Vec::new();
    let mut entry: Option<RawEntry> = None;
    walk_elements(manifest, MANIFEST, |event| {
        match event {
            XmlEvent::Start {
                local,
                attributes: span,
            } => {
                let read = |entry: &mut RawEntry| -> Result<()> {
                    for attribute in attributes(manifest, span) {
                        let (name, value) = attribute?;
                        match (local, name) {
                            (b"file-entry", b"full-path") => entry.path = Some(value.into_owned()),
                            (b"file-entry", b"size") => {
                                entry.size = Some(decimal(&value, "manifest:size")?);
                            }
                            (b"encryption-data", b"checksum-type") => {
                                entry.checksum_type = Some(value.into_owned());
                            }
                            (b"encryption-data", b"checksum") => {
                                entry.checksum = Some(base64(&value, "manifest:checksum")?);
                            }
                            (b"algorithm", b"algorithm-name") => {
                                entry.algorithm = Some(value.into_owned());
                            }
                            (b"algorithm", b"initialisation-vector") => {
                                entry.iv = Some(base64(&value, "manifest:initialisation-vector")?);
                            }
                            (b"start-key-generation", b"start-key-generation-name") => {
                                entry.start_key = Some(value.into_owned());
                            }
                            (b"key-derivation", b"key-derivation-name") => {
                                entry.derivation = Some(value.into_owned());
                            }
                            (b"key-derivation", b"iteration-count") => {
                                entry.iterations =
                                    Some(decimal(&value, "manifest:iteration-count")?);
                            }
                            (b"key-derivation", b"salt") => {
                                entry.salt = Some(base64(&value, "manifest:salt")?);
                            }
                            (b"key-derivation", b"key-size") => {
                                entry.key_size = Some(decimal(&value, "manifest:key-size")?);
                            }
                            _ => {}
                        }
                    }
                    Ok(())
                };
                match local {
                    b"file-entry" => {
                        let mut fresh = RawEntry::default();
                        read(&mut fresh)?;
                        entry = Some(fresh);
                    }
                    b"encryption-data" => {
                        if let Some(entry) = entry.as_mut() {
                            entry.encrypted = true;
                            read(entry)?;
                        }
                    }
                    b"algorithm" | b"start-key-generation" | b"key-derivation" => {
                        if let Some(entry) = entry.as_mut() {
                            read(entry)?;
                        }
                    }
                    b"keyinfo" | b"KeyInfo" | b"PGPData" => {
                        if let Some(entry) = entry.as_mut() {
                            entry.pgp = true;
                        }
                    }
                    _ => {}
                }
            }
            XmlEvent::End { local } => {
                if local == b"file-entry"
                    && let Some(done) = entry.take()
                    && done.encrypted
                {
                    entries.push(OdfEntryEncryption::from_raw(done)?);
                }
            }
        }
        Ok(())
    })
    .map_err(|err| err.with_part(MANIFEST))?;
    Ok(entries)
}

impl OdfEntryEncryption {
    fn from_raw(raw: RawEntry) -> Result<OdfEntryEncryption> {
        let path = raw
            .path
            .ok_or_else(|| damaged("an encrypted manifest:file-entry has no manifest:full-path"))?;
        let locate = |err: Error| err.with_part(&path);
        let missing = |field: &str| {
            locate(damaged(format!(
                "the manifest's encryption data of {path} has no {field}"
            )))
        };
        if raw.pgp {
            return Err(locate(unsupported(
                "an .ods encrypted with an OpenPGP key (it opens with a private key, not a \
                 password)",
            )));
        }
        let algorithm = raw
            .algorithm
            .ok_or_else(|| missing("manifest:algorithm-name"))?;
        let (cipher, default_key_size) = match algorithm.as_str() {
            "http://www.w3.org/2001/04/xmlenc#aes256-cbc" => (OdfCipher::AesCbc, 32),
            "http://www.w3.org/2001/04/xmlenc#aes192-cbc" => (OdfCipher::AesCbc, 24),
            "http://www.w3.org/2001/04/xmlenc#aes128-cbc" => (OdfCipher::AesCbc, 16),
            "Blowfish CFB" | "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#blowfish" => {
                (OdfCipher::BlowfishCfb, 16)
            }
            other => {
                let name = other.chars().take(80).collect::<String>();
                return Err(locate(unsupported(if name.contains("gcm") {
                    format!("an .ods encrypted with AES-GCM (`{name}`, ODF 1.3's AEAD)")
                } else {
                    format!("an .ods encrypted with the algorithm `{name}`")
                })));
            }
        };
        let derivation = raw
            .derivation
            .ok_or_else(|| missing("manifest:key-derivation-name"))?;
        if derivation != "PBKDF2"
            && derivation != "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#pbkdf2"
        {
            return Err(locate(unsupported(format!(
                "an .ods whose keys are derived with `{}` (PBKDF2 is read)",
                derivation.chars().take(80).collect::<String>()
            ))));
        }
        let start_key = match raw.start_key.as_deref() {
            None
            | Some("SHA1")
            | Some("http://www.w3.org/2000/09/xmldsig#sha1")
            | Some("http://www.w3.org/2000/09/xmldsig#sha1-1k") => OdfHash::Sha1,
            Some("http://www.w3.org/2000/09/xmldsig#sha256")
            | Some("http://www.w3.org/2001/04/xmlenc#sha256")
            | Some("SHA256") => OdfHash::Sha256,
            Some(other) => {
                return Err(locate(unsupported(format!(
                    "an .ods whose start key is made with `{}` (SHA-1 and SHA-256 are read)",
                    other.chars().take(80).collect::<String>()
                ))));
            }
        };
        let checksum = match (raw.checksum_type.as_deref(), raw.checksum) {
            (None, None) => None,
            (Some(kind), Some(value)) => {
                let hash = match kind {
                    "SHA1/1K" | "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha1-1k" => {
                        OdfHash::Sha1
                    }
                    "SHA256/1K"
                    | "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" => {
                        OdfHash::Sha256
                    }
                    other => {
                        return Err(locate(unsupported(format!(
                            "an .ods with the checksum type `{}`",
                            other.chars().take(80).collect::<String>()
                        ))));
                    }
                };
                let expected = match hash {
                    OdfHash::Sha1 => 20,
                    OdfHash::Sha256 => 32,
                };
                if value.len() != expected {
                    return Err(locate(damaged(format!(
                        "the checksum of {path} is {} bytes, not {expected}",
                        value.len()
                    ))));
                }
                Some((hash, value))
            }
            _ => {
                return Err(missing(
                    "manifest:checksum and manifest:checksum-type together",
                ));
            }
        };
        let iterations = raw
            .iterations
            .ok_or_else(|| missing("manifest:iteration-count"))?;
        if iterations == 0 || iterations > u64::from(MAX_ODF_ITERATIONS) {
            return Err(locate(if iterations == 0 {
                damaged(format!("the key derivation of {path} has 0 iterations"))
            } else {
                unsupported(format!(
                    "an .ods whose key derivation takes {iterations} PBKDF2 iterations, \
                     above the limit of {MAX_ODF_ITERATIONS}"
                ))
            }));
        }
        let salt = raw.salt.ok_or_else(|| missing("manifest:salt"))?;
        if salt.is_empty() || salt.len() > 1024 {
            return Err(locate(damaged(format!(
                "the salt of {path} is {} bytes (1 to 1024 are read)",
                salt.len()
            ))));
        }
        let key_size = raw.key_size.unwrap_or(default_key_size);
        let iv = raw
            .iv
            .ok_or_else(|| missing("manifest:initialisation-vector"))?;
        let (key_fits, block) = match cipher {
            OdfCipher::AesCbc => (key_size == default_key_size, AES_BLOCK),
            OdfCipher::BlowfishCfb => ((4..=56).contains(&key_size), 8),
        };
        if !key_fits || iv.len() != block {
            return Err(locate(damaged(format!(
                "the encryption of {path} gives a {key_size}-byte key and a {}-byte IV, which \
                 its cipher does not take",
                iv.len()
            ))));
        }
        Ok(OdfEntryEncryption {
            size: raw.size,
            cipher,
            iv,
            salt,
            iterations: iterations as u32,
            key_size: key_size as usize,
            start_key,
            checksum,
            path,
        })
    }

    /// The entry's path in the package (`content.xml`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The entry's size once decrypted and inflated (`manifest:size`), for
    /// the caller to check.
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// The PBKDF2 iteration count of the entry's key (what a password try
    /// costs).
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The scheme, as messages name it: `ods AES-256-CBC`.
    pub fn scheme(&self) -> String {
        match self.cipher {
            OdfCipher::AesCbc => format!("ods AES-{}-CBC", self.key_size * 8),
            OdfCipher::BlowfishCfb => "ods Blowfish CFB".into(),
        }
    }

    /// The entry's key from `password`: PBKDF2-HMAC-SHA1 of the start key
    /// (the hash of the UTF-8 password) with the entry's salt and
    /// iteration count.
    pub fn key(&self, password: &str) -> OdfKey {
        let start = self.start_key.digest(password.as_bytes());
        let mut key = vec![0u8; self.key_size];
        pbkdf2::pbkdf2_hmac::<Sha1>(&start, &self.salt, self.iterations, &mut key);
        OdfKey(key)
    }

    /// Whether `key` opens the entry: its checksum matches the first 1024
    /// decrypted bytes. `raw_start` is the entry's first
    /// `min(raw_len, ODF_CHECK_BYTES)` stored bytes, `raw_len` its stored
    /// length. An entry without a checksum takes any key.
    pub fn key_matches(&self, key: &OdfKey, raw_start: &[u8], raw_len: u64) -> bool {
        let Some((hash, expected)) = &self.checksum else {
            return true;
        };
        if raw_start.len() as u64 != raw_len.min(ODF_CHECK_BYTES as u64) {
            return false;
        }
        // The prefix alone: its end is the entry's (and padded) only when
        // it is the whole entry.
        let mut reader = match self.decrypt(key, raw_start, raw_start.len() as u64) {
            Ok(reader) => reader.without_checksum(),
            Err(_) => return false,
        };
        reader.padded_end = raw_start.len() as u64 == raw_len;
        let mut plain = Vec::with_capacity(CHECKSUM_BYTES);
        if (&mut reader)
            .take(CHECKSUM_BYTES as u64)
            .read_to_end(&mut plain)
            .is_err()
        {
            return false;
        }
        hash.digest(&plain) == *expected
    }

    /// Tries each of `passwords` in order against the entry's checksum,
    /// and gives the key of the first that matches and that password
    /// (`raw_start` and `raw_len` as for
    /// [`key_matches`](Self::key_matches)). An OpenDocument package has
    /// no default password (Excel's is not tried: LibreOffice never
    /// writes it). The caller unlocks one entry this way and derives the
    /// others' keys from the password that worked ([`key`](Self::key)).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::PasswordRequired`] when `passwords` is empty,
    /// [`ErrorKind::PasswordIncorrect`] when none of them matches.
    pub fn unlock(
        &self,
        passwords: &[String],
        raw_start: &[u8],
        raw_len: u64,
    ) -> Result<(OdfKey, String)> {
        for password in passwords {
            let key = self.key(password);
            if self.key_matches(&key, raw_start, raw_len) {
                return Ok((key, password.clone()));
            }
        }
        Err(Error::new(if passwords.is_empty() {
            ErrorKind::PasswordRequired(self.scheme())
        } else {
            ErrorKind::PasswordIncorrect(self.scheme())
        }))
    }

    /// A reader of the entry's bytes decrypted (still deflated) over
    /// `raw`, its stored bytes (`raw_len` of them). The checksum is
    /// checked as the first 1024 bytes pass: a mismatch is an
    /// [`ErrorKind::IntegrityFailure`] from `read`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Encrypted`] when `raw_len` cannot be an AES-CBC
    /// ciphertext (not whole blocks).
    pub fn decrypt<R: Read>(&self, key: &OdfKey, raw: R, raw_len: u64) -> Result<OdfDecrypt<R>> {
        let cipher = match self.cipher {
            OdfCipher::AesCbc => {
                if raw_len == 0 || !raw_len.is_multiple_of(AES_BLOCK as u64) {
                    return Err(damaged(format!(
                        "the stored entry {} is {raw_len} bytes, not whole AES blocks",
                        self.path
                    ))
                    .with_part(&self.path));
                }
                let aes = Aes::new(&key.0).ok_or_else(|| damaged("an AES key of a wrong size"))?;
                let mut iv = [0u8; AES_BLOCK];
                iv.copy_from_slice(&self.iv);
                Stream::Aes {
                    aes: Box::new(aes),
                    iv,
                }
            }
            OdfCipher::BlowfishCfb => {
                use cfb_mode::cipher::{InnerIvInit, KeyInit};
                let blowfish = blowfish::Blowfish::new_from_slice(&key.0)
                    .map_err(|_| damaged("a Blowfish key of a wrong size"))?;
                let decryptor = cfb_mode::BufDecryptor::inner_iv_slice_init(blowfish, &self.iv)
                    .map_err(|_| damaged("a Blowfish IV of a wrong size"))?;
                Stream::Blowfish(Box::new(decryptor))
            }
        };
        Ok(OdfDecrypt {
            raw,
            left: raw_len,
            cipher,
            buffer: Vec::new(),
            start: 0,
            padded_end: true,
            checksum: self.checksum.clone().map(|(hash, expected)| Checksum {
                hash,
                expected,
                seen: Vec::with_capacity(CHECKSUM_BYTES),
            }),
            path: self.path.clone(),
        })
    }
}

/// The cipher state of a stream.
enum Stream {
    /// AES-CBC: the key and the IV of the next block.
    Aes { aes: Box<Aes>, iv: [u8; AES_BLOCK] },
    /// Blowfish CFB (any length).
    Blowfish(Box<cfb_mode::BufDecryptor<blowfish::Blowfish>>),
}

/// The checksum of the first 1024 decrypted bytes, as they pass.
struct Checksum {
    hash: OdfHash,
    expected: Vec<u8>,
    seen: Vec<u8>,
}

/// The decrypted bytes of one encrypted ODF entry, still deflated: a
/// `Read` over the entry's stored bytes that decrypts 16 KiB at a time.
pub struct OdfDecrypt<R> {
    raw: R,
    /// Stored bytes not yet read.
    left: u64,
    cipher: Stream,
    /// Decrypted bytes, from `start` on not yet handed out.
    buffer: Vec<u8>,
    start: usize,
    /// Whether the last stored byte is the entry's end, padded (AES).
    padded_end: bool,
    checksum: Option<Checksum>,
    path: String,
}

/// The stored bytes decrypted at a time.
const CHUNK: usize = 16 * 1024;

impl<R: Read> OdfDecrypt<R> {
    fn without_checksum(mut self) -> Self {
        self.checksum = None;
        self
    }

    /// Reads and decrypts the next chunk into `buffer`.
    fn refill(&mut self) -> Result<()> {
        let count = self.left.min(CHUNK as u64) as usize;
        self.buffer.resize(count, 0);
        self.start = 0;
        self.raw.read_exact(&mut self.buffer).map_err(|err| {
            if err.kind() == io::ErrorKind::UnexpectedEof {
                damaged(format!(
                    "the stored entry {} ends before its {} bytes",
                    self.path, self.left
                ))
                .with_part(&self.path)
            } else {
                Error::from(err)
            }
        })?;
        self.left -= count as u64;
        match &mut self.cipher {
            Stream::Aes { aes, iv } => {
                // The chunk is whole blocks (the length is checked, and
                // chunks are whole blocks); its last block is the next IV.
                let mut next = [0u8; AES_BLOCK];
                next.copy_from_slice(&self.buffer[count - AES_BLOCK..]);
                aes.decrypt_cbc(iv, &mut self.buffer);
                *iv = next;
                if self.left == 0 && self.padded_end {
                    // W3C padding: the last byte says how many to drop.
                    let pad = usize::from(self.buffer[count - 1]);
                    if !(1..=AES_BLOCK).contains(&pad) {
                        return Err(damaged(format!(
                            "the decrypted entry {} ends in a padding byte of {pad} (a wrong \
                             key, or a damaged entry)",
                            self.path
                        ))
                        .with_part(&self.path));
                    }
                    self.buffer.truncate(count - pad);
                }
            }
            Stream::Blowfish(decryptor) => decryptor.decrypt(&mut self.buffer),
        }
        if let Some(checksum) = &mut self.checksum {
            let room = CHECKSUM_BYTES - checksum.seen.len();
            let take = room.min(self.buffer.len());
            checksum.seen.extend_from_slice(&self.buffer[..take]);
            if checksum.seen.len() == CHECKSUM_BYTES || self.left == 0 {
                let matches = checksum.hash.digest(&checksum.seen) == checksum.expected;
                self.checksum = None;
                if !matches {
                    return Err(Error::new(ErrorKind::IntegrityFailure(format!(
                        "the checksum of the encrypted entry {} does not match its first \
                         bytes",
                        self.path
                    )))
                    .with_part(&self.path));
                }
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for OdfDecrypt<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.start == self.buffer.len() {
            if self.left == 0 {
                return Ok(0);
            }
            self.refill()?;
        }
        let count = (self.buffer.len() - self.start).min(out.len());
        out[..count].copy_from_slice(&self.buffer[self.start..self.start + count]);
        self.start += count;
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(entry: &str) -> String {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:size="100">{entry}</manifest:file-entry></manifest:manifest>"#
        )
    }

    const AES_ENTRY: &str = r#"<manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="><manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" manifest:initialisation-vector="AAAAAAAAAAAAAAAAAAAAAA=="/><manifest:start-key-generation manifest:start-key-generation-name="http://www.w3.org/2000/09/xmldsig#sha256" manifest:key-size="32"/><manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32" manifest:iteration-count="1024" manifest:salt="AAAAAAAAAAAAAAAAAAAAAA=="/></manifest:encryption-data>"#;

    #[test]
    fn the_manifest_gives_each_encrypted_entry() {
        let entries = parse_manifest(manifest(AES_ENTRY).as_bytes()).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].path(), "content.xml");
        assert_eq!(entries[0].size(), Some(100));
        assert_eq!(entries[0].scheme(), "ods AES-256-CBC");
        assert!(parse_manifest(manifest("").as_bytes()).unwrap().is_empty());
    }

    #[test]
    fn unsupported_and_lying_encryption_data_are_typed_errors() {
        let cases = [
            (
                AES_ENTRY.replace("xmlenc#aes256-cbc", "xmlenc11#aes256-gcm"),
                "AES-GCM",
            ),
            (
                AES_ENTRY.replace("\"1024\"", "\"2000000\""),
                "above the limit",
            ),
            (AES_ENTRY.replace("\"PBKDF2\"", "\"argon2id\""), "argon2id"),
        ];
        for (entry, expected) in cases {
            let err = parse_manifest(manifest(&entry).as_bytes()).unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
                "{err}"
            );
            assert!(err.to_string().contains(expected), "{err}");
        }
        let cases = [
            (
                AES_ENTRY.replace("AAAAAAAAAAAAAAAAAAAAAA==\"/>", "AAAA\"/>"),
                "IV",
            ),
            (AES_ENTRY.replace("\"1024\"", "\"0\""), "0 iterations"),
            (
                AES_ENTRY.replace("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "AAAA"),
                "checksum",
            ),
        ];
        for (entry, expected) in cases {
            let err = parse_manifest(manifest(&entry).as_bytes()).unwrap_err();
            assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
            assert!(err.to_string().contains(expected), "{expected}: {err}");
        }
    }

    #[test]
    fn a_ciphertext_of_partial_blocks_is_refused() {
        let entry = &parse_manifest(manifest(AES_ENTRY).as_bytes()).unwrap()[0];
        let key = entry.key("x");
        assert!(entry.decrypt(&key, &[0u8; 20][..], 20).is_err());
        assert!(!entry.key_matches(&key, &[0u8; 32], 32));
        let err = entry.unlock(&["y".into()], &[0u8; 32], 32).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::PasswordIncorrect(_)),
            "{err}"
        );
    }
}
