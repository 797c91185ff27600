//! Encrypted `.ods` packages (feature `encryption`): the password checked
//! at open, and each encrypted entry the reader reads (`content.xml`,
//! `styles.xml`) streamed decrypted, then inflated, then checked.
//!
//! Read this first. The manifest gives each encrypted entry its own salt,
//! IV, key derivation and checksum (`crate::encryption`'s `odf.rs` parses
//! them and decrypts). At open, [`Decryption::unlock`] checks the given
//! passwords against the checksum of `content.xml` (the entry every read
//! reads; `styles.xml`, else the manifest's first encrypted entry, when it
//! is not encrypted) and derives the keys of the entries read, once: a
//! key costs the PBKDF2 iterations (100,000 where LibreOffice writes
//! them), so the opened book keeps them, shared by every clone. There is
//! no default password (LibreOffice writes none): without a password the
//! open fails with [`ErrorKind::PasswordRequired`].
//!
//! An entry is stored in the ZIP (its CRC-32 is the encrypted bytes',
//! checked by the zip crate), and its bytes are deflated, then encrypted.
//! [`open_entry`] chains, as the reader pulls: the stored bytes, the
//! decryption (`OdfDecrypt`, 16 KiB at a time, the checksum checked as
//! the first 1024 bytes pass), the raw inflater, and [`SizeCheck`], which
//! holds the entry to its `manifest:size`; the archive's part guard (the
//! size and compression-ratio limits) and the scanner come after, as for
//! a plain part. Nothing holds the entry whole. Once the password was
//! checked, bytes that do not decrypt to the entry (a checksum or size
//! that fails, a deflate stream that breaks) are
//! [`ErrorKind::IntegrityFailure`]: the package was changed after it was
//! encrypted.
//!
//! Without the feature an encrypted package is refused at open
//! (`package.rs`), and [`Decryption`] has no value.

use std::io::{Read, Seek};

use crate::archive::Archive;
use crate::error::{Error, Result};
use crate::limits::Limits;

#[cfg(feature = "encryption")]
use {
    super::package::{MANIFEST_PART, blank_external_doctype},
    super::{CONTENT_PART, STYLES_PART},
    crate::archive::{inflate_unchecked, normalise_part_name},
    crate::encryption::{ODF_CHECK_BYTES, OdfEntryEncryption, OdfKey, parse_manifest},
    crate::error::ErrorKind,
    std::io,
};

/// The keys of an encrypted package's entries that the reader reads.
#[cfg(feature = "encryption")]
#[derive(Debug)]
pub(crate) struct Decryption {
    /// The scheme of the entry the password was checked on, as messages
    /// name it: `ods AES-256-CBC`.
    scheme: String,
    entries: Vec<EntryKey>,
}

/// An encrypted entry and its key.
#[cfg(feature = "encryption")]
#[derive(Debug)]
struct EntryKey {
    /// The entry's normalised part name.
    name: String,
    encryption: OdfEntryEncryption,
    key: OdfKey,
}

/// Without the `encryption` feature nothing is decrypted: no value.
#[cfg(not(feature = "encryption"))]
#[derive(Debug)]
pub(crate) enum Decryption {}

#[cfg(feature = "encryption")]
impl Decryption {
    /// Reads the manifest of a package and, when it gives encrypted
    /// entries, checks `passwords` (in order) and derives the keys of the
    /// entries the reader reads. None for a package with no encrypted
    /// entry.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::PasswordRequired`] when `passwords` is empty,
    /// [`ErrorKind::PasswordIncorrect`] when none opens it,
    /// [`ErrorKind::UnsupportedEncryption`] for a scheme the engine does
    /// not decrypt, [`ErrorKind::Encrypted`] for encryption data that is
    /// damaged or names an entry the package does not hold.
    pub(crate) fn unlock<R: Read + Seek>(
        archive: &mut Archive<R>,
        limits: &Limits,
        passwords: &[String],
    ) -> Result<Option<Decryption>> {
        if !archive.contains(MANIFEST_PART) {
            return Ok(None);
        }
        let manifest = archive.read_part(MANIFEST_PART, limits)?;
        let manifest = blank_external_doctype(&manifest);
        let entries = parse_manifest(&manifest)?;
        if entries.is_empty() {
            return Ok(None);
        }
        let find = |name: &str| {
            entries
                .iter()
                .find(|entry| normalise_part_name(entry.path()) == name)
        };
        // The entry the password is checked on: one that every read reads.
        let Some(first) = find(CONTENT_PART)
            .or_else(|| find(STYLES_PART))
            .or(entries.first())
        else {
            return Ok(None);
        };
        if !archive.contains(first.path()) {
            return Err(Error::new(ErrorKind::Encrypted(format!(
                "the manifest gives encryption data for `{}`, which the package does not hold",
                first.path()
            )))
            .with_part(MANIFEST_PART));
        }
        let (head, stored) = archive.stored_head(first.path(), ODF_CHECK_BYTES)?;
        let (key, password) = first
            .unlock(passwords, &head, stored)
            .map_err(|err| err.with_part(first.path()))?;
        let mut keys = Vec::new();
        for name in [CONTENT_PART, STYLES_PART] {
            let Some(entry) = find(name) else {
                continue;
            };
            let key = if std::ptr::eq(entry, first) {
                key.clone()
            } else {
                entry.key(&password)
            };
            keys.push(EntryKey {
                name: name.to_owned(),
                encryption: entry.clone(),
                key,
            });
        }
        Ok(Some(Decryption {
            scheme: first.scheme(),
            entries: keys,
        }))
    }

    /// The scheme, as messages name it: `ods AES-256-CBC`.
    pub(crate) fn scheme(&self) -> &str {
        &self.scheme
    }

    fn entry(&self, name: &str) -> Option<&EntryKey> {
        let name = normalise_part_name(name);
        self.entries.iter().find(|entry| entry.name == name)
    }
}

#[cfg(not(feature = "encryption"))]
impl Decryption {
    pub(crate) fn scheme(&self) -> &str {
        match *self {}
    }
}

/// Opens a part of the package for streaming, with at most `max_bytes`
/// bytes: decrypted and inflated when `decryption` has its key, else as
/// the archive stores it ([`Archive::open_part`]).
pub(crate) fn open_entry<'a, R: Read + Seek>(
    archive: &'a mut Archive<R>,
    decryption: Option<&'a Decryption>,
    name: &str,
    max_bytes: u64,
    limits: &Limits,
) -> Result<Box<dyn Read + 'a>> {
    #[cfg(feature = "encryption")]
    if let Some(entry) = decryption.and_then(|decryption| decryption.entry(name)) {
        return archive.open_transformed_part(
            name,
            entry.encryption.size().unwrap_or(u64::MAX),
            max_bytes,
            limits,
            |stored, stored_len| {
                let decrypted = entry.encryption.decrypt(&entry.key, stored, stored_len)?;
                Ok(Box::new(SizeCheck {
                    inner: inflate_unchecked(decrypted, stored_len),
                    read: 0,
                    size: entry.encryption.size(),
                    path: entry.encryption.path(),
                }))
            },
        );
    }
    #[cfg(not(feature = "encryption"))]
    if let Some(decryption) = decryption {
        match *decryption {}
    }
    archive.open_part(name, max_bytes, limits)
}

/// Reads a whole (small) part into memory, up to the metadata size limit,
/// decrypted as [`open_entry`] does.
pub(crate) fn read_entry<R: Read + Seek>(
    archive: &mut Archive<R>,
    decryption: Option<&Decryption>,
    name: &str,
    limits: &Limits,
) -> Result<Vec<u8>> {
    let mut reader = open_entry(
        archive,
        decryption,
        name,
        limits.max_metadata_part_bytes,
        limits,
    )?;
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|err| Error::from(err).with_part(name))?;
    Ok(bytes)
}

/// An encrypted entry's inflated bytes, held to the entry's
/// `manifest:size`; an inflate error is the integrity check's failure
/// (the password verified: the bytes were changed).
#[cfg(feature = "encryption")]
struct SizeCheck<'a, I> {
    inner: I,
    read: u64,
    size: Option<u64>,
    path: &'a str,
}

#[cfg(feature = "encryption")]
impl<I> SizeCheck<'_, I> {
    fn failure(&self, message: String) -> io::Error {
        Error::new(ErrorKind::IntegrityFailure(message))
            .with_part(self.path)
            .into()
    }
}

#[cfg(feature = "encryption")]
impl<I: Read> Read for SizeCheck<'_, I> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let count = match self.inner.read(buf) {
            Ok(count) => count,
            // Ours (the checksum, a damaged entry) and the system's pass.
            Err(err)
                if err.raw_os_error().is_some()
                    || err.get_ref().is_some_and(|inner| inner.is::<Error>()) =>
            {
                return Err(err);
            }
            Err(err) => {
                return Err(self.failure(format!(
                    "the decrypted entry {} does not inflate ({err})",
                    self.path
                )));
            }
        };
        self.read += count as u64;
        if let Some(size) = self.size {
            if self.read > size {
                return Err(self.failure(format!(
                    "the decrypted entry {} inflates past the {size} bytes its manifest entry \
                     gives",
                    self.path
                )));
            }
            if count == 0 && !buf.is_empty() && self.read < size {
                return Err(self.failure(format!(
                    "the decrypted entry {} inflates to {} bytes, not the {size} its manifest \
                     entry gives",
                    self.path, self.read
                )));
            }
        }
        Ok(count)
    }
}
