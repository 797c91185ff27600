//! An encrypted workbook, as the workbook layer sees it: opening an
//! encrypted package (an `.xlsx`/`.xlsb` in the `EncryptedPackage` stream
//! of a compound file), the passwords ([`Passwords`]), and the integrity
//! check of Agile encryption ([`Integrity`]).
//!
//! Read this first. The decryption itself is the engine's
//! (`crate::encryption`): a compound file holding `EncryptionInfo` and
//! `EncryptedPackage` is unlocked with Excel's default password and then
//! the given ones, its package mapped in the file and read through
//! [`PackageInput::Decrypted`], a positional reader that decrypts only
//! the segments each read covers; the ZIP reader and the `.xlsx`/`.xlsb`
//! formats run on it unchanged (an encrypted `.xls` is decrypted record
//! by record inside its own reader, `xls::decrypt`).
//!
//! Agile encryption's `dataIntegrity` HMAC covers the whole encrypted
//! stream: checking it costs a sequential pass over the file, so it is
//! checked when the whole package is read anyway, once every worksheet
//! has been read to its end through a reader that can clone the input
//! (the parallel engine and the Arrow readers; [`EncryptionState::sheet_read`]),
//! or on request ([`Workbook::verify_integrity`](super::Workbook::verify_integrity),
//! `OpenOptions::verify_integrity` at open); never by a read of some
//! sheets or of a range.

use std::sync::{Mutex, PoisonError};

use crate::error::Result;

#[cfg(feature = "encryption")]
use {
    super::book::Book,
    super::detect::open_package,
    crate::archive::{Archive, PackageInput},
    crate::compound::{OpenedCompound, OwnedStream},
    crate::contract::Opened,
    crate::encryption::{self as engine, DecryptedPackage, EncryptionInfo},
    crate::error::{Error, ErrorKind},
    crate::limits::Limits,
    std::io::{Read, Seek},
    std::sync::Arc,
};

/// What is known of an encrypted workbook's integrity (Agile
/// encryption's `dataIntegrity` HMAC over the whole encrypted package).
/// A check that fails is an error,
/// [`ErrorKind::IntegrityFailure`](crate::ErrorKind::IntegrityFailure).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Integrity {
    /// The workbook is not encrypted.
    NotEncrypted,
    /// The scheme records nothing to check: ECMA-376 Standard encryption,
    /// an `.xls` workbook's RC4 or XOR, an Agile header without
    /// `dataIntegrity`.
    NotRecorded,
    /// Not checked yet: no read of every worksheet so far, and no
    /// [`Workbook::verify_integrity`](crate::Workbook::verify_integrity).
    NotVerified,
    /// Checked: the HMAC over the encrypted package matches.
    Verified,
}

impl Integrity {
    /// In words, as reports show it: `not encrypted`, `not recorded`,
    /// `not verified`, `verified`.
    pub fn as_str(self) -> &'static str {
        match self {
            Integrity::NotEncrypted => "not encrypted",
            Integrity::NotRecorded => "not recorded",
            Integrity::NotVerified => "not verified",
            Integrity::Verified => "verified",
        }
    }
}

impl std::fmt::Display for Integrity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The passwords to open an encrypted workbook with, tried in order after
/// Excel's default one. Never printed.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Passwords(pub(crate) Vec<String>);

impl std::fmt::Debug for Passwords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Passwords({} given)", self.0.len())
    }
}

/// An encrypted workbook's scheme and what its integrity check found,
/// shared (read-only but for the check's state) by every reader of the
/// workbook.
#[derive(Debug)]
pub(crate) struct EncryptionState {
    /// The scheme, as messages name it: `Agile AES-256/SHA-512`.
    scheme: String,
    check: Mutex<Check>,
}

#[derive(Debug)]
struct Check {
    integrity: Integrity,
    /// While the check is due: the worksheets (by position) not yet read
    /// to their end.
    unread: Vec<usize>,
}

impl EncryptionState {
    /// A workbook encrypted with `scheme`, whose integrity is as given
    /// ([`Integrity::NotVerified`]: due once each of `worksheets` has been
    /// read to its end).
    pub(crate) fn new(
        scheme: String,
        integrity: Integrity,
        worksheets: Vec<usize>,
    ) -> EncryptionState {
        EncryptionState {
            scheme,
            check: Mutex::new(Check {
                integrity,
                unread: worksheets,
            }),
        }
    }

    pub(crate) fn scheme(&self) -> &str {
        &self.scheme
    }

    pub(crate) fn integrity(&self) -> Integrity {
        self.check
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .integrity
    }

    /// Whether the check is still to be made.
    pub(crate) fn is_due(&self) -> bool {
        self.integrity() == Integrity::NotVerified
    }

    /// Runs `verify` (the pass over the package) unless the check was
    /// made, and records what it found.
    pub(crate) fn verify(&self, verify: impl FnOnce() -> Result<Integrity>) -> Result<Integrity> {
        // Held through the pass: a second caller waits for its result.
        let mut check = self.check.lock().unwrap_or_else(PoisonError::into_inner);
        if check.integrity == Integrity::NotVerified {
            check.integrity = verify()?;
            check.unread.clear();
        }
        Ok(check.integrity)
    }

    /// Worksheet `position` was read to its end: once every worksheet has
    /// been, `verify` runs (the whole package was read anyway).
    ///
    /// # Errors
    ///
    /// What `verify` returns: the check failed, or its pass could not read
    /// the package.
    pub(crate) fn sheet_read(
        &self,
        position: usize,
        verify: impl FnOnce() -> Result<Integrity>,
    ) -> Result<()> {
        let mut check = self.check.lock().unwrap_or_else(PoisonError::into_inner);
        if check.integrity != Integrity::NotVerified {
            return Ok(());
        }
        check.unread.retain(|&unread| unread != position);
        if check.unread.is_empty() {
            check.integrity = verify()?;
        }
        Ok(())
    }
}

/// Opens the encrypted package in a compound file: reads its
/// `EncryptionInfo`, unlocks it with `passwords` (after Excel's default
/// password), maps its `EncryptedPackage` stream in the file and opens the
/// ZIP package it decrypts to as the workbook it is (`.xlsx` or `.xlsb`,
/// by its content). With `verify`, the integrity check's pass runs first.
#[cfg(feature = "encryption")]
pub(crate) fn open_encrypted_package<R: Read + Seek>(
    mut compound: OpenedCompound<R>,
    limits: Limits,
    passwords: &Passwords,
    verify: bool,
) -> Result<(Opened<Book<R>>, EncryptionState)> {
    let info = EncryptionInfo::read(compound.open_stream(engine::ENCRYPTION_INFO_STREAM)?)?;
    let scheme = info.scheme();
    let key = info.unlock(&passwords.0)?;
    let stream = engine::ENCRYPTED_PACKAGE_STREAM;
    let len = compound.stream_len(stream).ok_or_else(|| {
        Error::new(ErrorKind::Encrypted(
            "the compound file has no EncryptedPackage stream".into(),
        ))
    })?;
    let map = compound.map(stream, len)?;
    let reader = compound.into_reader()?;
    let mut package = DecryptedPackage::new(OwnedStream::new(reader, Arc::new(map)), key)?;
    let mut integrity = if !package.key().records_integrity() {
        Integrity::NotRecorded
    } else if verify {
        verified(package.verify_integrity()?)
    } else {
        Integrity::NotVerified
    };
    // A package that does not even look like a ZIP was damaged: if it
    // records an HMAC, the check says whether it was changed after it was
    // encrypted (the cause), rather than what the change broke.
    if integrity == Integrity::NotVerified && !looks_like_zip(&mut package)? {
        integrity = verified(package.verify_integrity()?);
    }
    let archive = Archive::new(PackageInput::Decrypted(package))
        .map_err(|err| not_a_package(err).with_part(stream))?;
    let opened = open_package(archive, limits)?;
    let worksheets = opened
        .sheets
        .iter()
        .filter(|sheet| sheet.kind() == crate::SheetKind::Worksheet)
        .map(|sheet| sheet.position())
        .collect();
    Ok((opened, EncryptionState::new(scheme, integrity, worksheets)))
}

/// Whether a decrypted package looks like a ZIP archive: a local header
/// at its start, an end record that ends it (its comment's length
/// included) and, unless ZIP64 stands in for them, a central directory
/// where the end record says. (A damaged package is checked against its
/// HMAC before it is reported.)
#[cfg(feature = "encryption")]
fn looks_like_zip<R: Read + Seek>(package: &mut DecryptedPackage<R>) -> Result<bool> {
    use std::io::SeekFrom;
    let len = package.len();
    let mut start = [0u8; 4];
    package.seek(SeekFrom::Start(0))?;
    if len < 22 || package.read_exact(&mut start).is_err() || &start != b"PK\x03\x04" {
        return Ok(false);
    }
    let tail_len = len.min(22 + 65_535);
    let tail_start = len - tail_len;
    let mut tail = vec![0u8; tail_len as usize];
    package.seek(SeekFrom::Start(tail_start))?;
    package.read_exact(&mut tail)?;
    let u16_at = |at: usize| u16::from_le_bytes([tail[at], tail[at + 1]]);
    let u32_at =
        |at: usize| u32::from_le_bytes([tail[at], tail[at + 1], tail[at + 2], tail[at + 3]]);
    let end = (0..=tail.len() - 22).rev().find(|&at| {
        &tail[at..at + 4] == b"PK\x05\x06" && at + 22 + usize::from(u16_at(at + 20)) == tail.len()
    });
    let Some(end) = end else {
        return Ok(false);
    };
    let (size, offset) = (u32_at(end + 12), u32_at(end + 16));
    let found = if size == u32::MAX || offset == u32::MAX {
        true
    } else if u64::from(offset) + u64::from(size) > tail_start + end as u64 {
        false
    } else {
        let mut signature = [0u8; 4];
        package.seek(SeekFrom::Start(u64::from(offset)))?;
        package.read_exact(&mut signature)?;
        size == 0 || &signature == b"PK\x01\x02"
    };
    package.seek(SeekFrom::Start(0))?;
    Ok(found)
}

/// The engine's finding as the public one.
#[cfg(feature = "encryption")]
fn verified(found: engine::Integrity) -> Integrity {
    match found {
        engine::Integrity::Verified => Integrity::Verified,
        engine::Integrity::NotRecorded => Integrity::NotRecorded,
    }
}

/// A decrypted package that is no ZIP: the password verified, so the
/// package itself is damaged (or its verifier was made to pass).
#[cfg(feature = "encryption")]
fn not_a_package(err: Error) -> Error {
    match err.kind() {
        ErrorKind::NotZip { detail } => Error::new(ErrorKind::Encrypted(format!(
            "the password opened it, but the decrypted package is not a workbook: {detail}"
        ))),
        _ => err,
    }
}

/// The integrity check's pass over an encrypted package, through `input`
/// (a clone of the book's input); a plain input has nothing to check.
#[cfg(feature = "encryption")]
pub(crate) fn verify_input<R: Read + Seek>(input: Option<PackageInput<R>>) -> Result<Integrity> {
    match input {
        Some(PackageInput::Decrypted(mut package)) => package
            .verify_integrity()
            .map(verified)
            .map_err(|err| err.with_part(engine::ENCRYPTED_PACKAGE_STREAM)),
        _ => Ok(Integrity::NotRecorded),
    }
}
