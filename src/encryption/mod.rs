//! Password-protected (encrypted) workbooks: the decryption below the
//! workbook readers (feature `encryption`).
//!
//! Read this first. Office encrypts a workbook in one of three ways, and
//! each is decrypted where its bytes are read, never into a decrypted copy
//! of the file:
//!
//! - An encrypted `.xlsx`/`.xlsm`/`.xlsb` is an OLE2 compound file holding
//!   an `EncryptionInfo` stream (the scheme, salts, the password verifier)
//!   and an `EncryptedPackage` stream (the ZIP package, encrypted).
//!   [`compound_encryption`] says from the compound file's entries whether
//!   it is one; [`EncryptionInfo::read`] parses the header (ECMA-376
//!   **Agile**, `agile.rs`, or **Standard**, `standard.rs`; anything else
//!   is [`ErrorKind::UnsupportedEncryption`]); [`EncryptionInfo::unlock`]
//!   checks the passwords against the verifier and gives a [`PackageKey`];
//!   [`DecryptedPackage`] (`package.rs`) is then a `Read + Seek` over the
//!   plain package that decrypts only the 4096-byte segments a read
//!   covers, for the ZIP reader to run on unchanged.
//!   [`PackageKey::verify_integrity`] checks Agile's `dataIntegrity` HMAC
//!   in one pass over the encrypted stream, for a caller that reads the
//!   whole package anyway.
//! - An encrypted `.xls` keeps its BIFF records, their bodies encrypted
//!   after a FILEPASS record in the workbook globals (`xls.rs`, with
//!   `rc4.rs` and `xor.rs`): [`FilePass::parse`] reads the record,
//!   [`FilePass::unlock`] checks the passwords, and the
//!   [`RecordDecryptor`] it gives decrypts each record's body in place
//!   from its offset in the stream, as the BIFF reader reads them.
//! - An encrypted `.ods` is an ordinary ZIP whose manifest gives each
//!   encrypted entry its own salt, IV and checksum (`odf.rs`):
//!   [`parse_manifest`] reads them, [`OdfEntryEncryption::unlock`] checks
//!   a password against an entry's checksum, and [`OdfDecrypt`] streams
//!   the entry's bytes decrypted (still deflated).
//!
//! Passwords: Excel's default password [`DEFAULT_PASSWORD`] is always
//! tried first (Excel writes it when it encrypts without asking, and opens
//! such files unasked), then the given ones in order. None opens it:
//! [`ErrorKind::PasswordRequired`] when none was given,
//! [`ErrorKind::PasswordIncorrect`] otherwise. The verifier is checked
//! before any data is decrypted, so a wrong password never surfaces as a
//! damaged ZIP.
//!
//! Hostile headers: every size, count and offset the file gives is
//! checked before it is used; a damaged header is
//! [`ErrorKind::Encrypted`], a scheme or parameter this reader does not
//! take is [`ErrorKind::UnsupportedEncryption`] (a spin count over
//! [`MAX_SPIN_COUNT`], PBKDF2 iterations over [`MAX_ODF_ITERATIONS`]),
//! refused before any hashing. Nothing here panics on any input.
//!
//! Every primitive (AES, Blowfish, RC4, MD5, SHA-1/2, HMAC, PBKDF2) comes
//! from RustCrypto's crates (`primitives.rs` wraps the ones chosen at run
//! time); nothing here is a cipher or hash of our own.

mod agile;
mod odf;
mod package;
mod primitives;
mod rc4;
mod standard;
mod xls;
mod xor;

use std::borrow::Cow;
use std::io::Read;

use crate::error::{Error, ErrorKind, Result};
use crate::xml::{self, Attributes, Span, Step, Token};

pub use agile::MAX_SPIN_COUNT;
pub use odf::{
    MAX_ODF_ITERATIONS, ODF_CHECK_BYTES, OdfDecrypt, OdfEntryEncryption, OdfKey, parse_manifest,
};
pub use package::{DecryptedPackage, Integrity, PackageKey, SEGMENT_SIZE};
pub use primitives::HashAlgorithm;
pub use xls::{
    BiffVersion, FilePass, RecordDecryptor, decrypt_workbook_stream, workbook_stream_filepass,
};

/// Excel's default password: what Excel encrypts with when it encrypts
/// without a user password (a read-only-recommended workbook, an old
/// `.xls` with a locked structure), and what it, Apache POI and others try
/// before asking. Always tried first.
pub const DEFAULT_PASSWORD: &str = "VelvetSweatshop";

/// The most bytes of an `EncryptionInfo` stream read (Office's are about
/// 1 KiB; a certificate key encryptor adds a few KiB).
pub const MAX_ENCRYPTION_INFO_BYTES: u64 = 1 << 20;

/// The name of the compound-file stream that holds the encryption header.
pub const ENCRYPTION_INFO_STREAM: &str = "EncryptionInfo";

/// The name of the compound-file stream that holds the encrypted package.
pub const ENCRYPTED_PACKAGE_STREAM: &str = "EncryptedPackage";

/// What a compound file holds, as far as encryption goes.
#[derive(Debug)]
pub enum CompoundEncryption {
    /// No encryption streams: a `.xls` workbook (which may still hold a
    /// FILEPASS record), or no workbook at all.
    None,
    /// An encrypted package: `EncryptionInfo` and `EncryptedPackage`.
    Package,
    /// Encrypted in a way this reader refuses, or with a stream missing:
    /// the error to report.
    Refused(Error),
}

/// Tells from a compound file's entries (their paths from the root, as
/// `cfb`'s `walk` gives them, with or without a leading `/`) whether it is
/// an encrypted package, an IRM/DRM-protected one (a `\x09DRMContent`
/// stream, or the `DRMEncryptedTransform` in `\x06DataSpaces`), or
/// neither.
pub fn compound_encryption<'a>(paths: impl IntoIterator<Item = &'a str>) -> CompoundEncryption {
    let (mut info, mut package, mut drm) = (false, false, false);
    for path in paths {
        let path = path.strip_prefix('/').unwrap_or(path);
        match path {
            ENCRYPTION_INFO_STREAM => info = true,
            ENCRYPTED_PACKAGE_STREAM => package = true,
            "\u{9}DRMContent" => drm = true,
            _ if path.starts_with("\u{6}DataSpaces/") && path.contains("DRMEncryptedTransform") => {
                drm = true;
            }
            _ => {}
        }
    }
    if drm {
        return CompoundEncryption::Refused(unsupported(
            "an IRM/DRM-protected package (rights management, the DRMEncryptedTransform): \
             it opens only with the rights server's licence, not with a password",
        ));
    }
    match (info, package) {
        (true, true) => CompoundEncryption::Package,
        (false, false) => CompoundEncryption::None,
        (true, false) => CompoundEncryption::Refused(damaged(
            "the compound file holds an EncryptionInfo stream but no EncryptedPackage",
        )),
        (false, true) => CompoundEncryption::Refused(damaged(
            "the compound file holds an EncryptedPackage stream but no EncryptionInfo",
        )),
    }
}

/// The header of an encrypted package: the `EncryptionInfo` stream.
#[derive(Debug, Clone)]
pub enum EncryptionInfo {
    /// ECMA-376 Agile encryption (version 4.4).
    Agile(Box<agile::AgileInfo>),
    /// ECMA-376 Standard encryption (versions 2.2, 3.2, 4.2).
    Standard(standard::StandardInfo),
}

impl EncryptionInfo {
    /// Reads and parses an `EncryptionInfo` stream (at most
    /// [`MAX_ENCRYPTION_INFO_BYTES`]).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnsupportedEncryption`] for a scheme this reader does
    /// not decrypt, [`ErrorKind::Encrypted`] for a damaged header,
    /// [`ErrorKind::Io`] when reading fails.
    pub fn read(reader: impl Read) -> Result<EncryptionInfo> {
        let mut bytes = Vec::new();
        reader
            .take(MAX_ENCRYPTION_INFO_BYTES + 1)
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_ENCRYPTION_INFO_BYTES {
            return Err(damaged(format!(
                "the EncryptionInfo stream is larger than {MAX_ENCRYPTION_INFO_BYTES} bytes"
            )));
        }
        EncryptionInfo::parse(&bytes)
    }

    /// Parses the bytes of an `EncryptionInfo` stream.
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    pub fn parse(bytes: &[u8]) -> Result<EncryptionInfo> {
        let parse = || {
            let Some(&[a, b, c, d]) = bytes.first_chunk::<4>() else {
                return Err(damaged(format!(
                    "the EncryptionInfo stream is {} bytes, too short for its version",
                    bytes.len()
                )));
            };
            let major = u16::from_le_bytes([a, b]);
            let minor = u16::from_le_bytes([c, d]);
            match (major, minor) {
                (4, 4) => Ok(EncryptionInfo::Agile(Box::new(agile::AgileInfo::parse(
                    bytes,
                )?))),
                (2..=4, 2) => Ok(EncryptionInfo::Standard(standard::StandardInfo::parse(
                    bytes,
                )?)),
                (3 | 4, 3) => Err(unsupported(format!(
                    "Extensible encryption (EncryptionInfo version {major}.{minor}): \
                     encrypted by a third-party cryptographic extension"
                ))),
                _ => Err(unsupported(format!(
                    "an encryption scheme of EncryptionInfo version {major}.{minor}, which \
                     is none of ECMA-376's Agile (4.4) or Standard (2.2, 3.2, 4.2)"
                ))),
            }
        };
        parse().map_err(|err: Error| err.with_part(ENCRYPTION_INFO_STREAM))
    }

    /// The scheme, as messages name it: `Agile AES-256/SHA-512`.
    pub fn scheme(&self) -> String {
        match self {
            EncryptionInfo::Agile(info) => info.scheme(),
            EncryptionInfo::Standard(info) => info.scheme(),
        }
    }

    /// The spin count of the key derivation (the hash rounds a password
    /// try costs).
    pub fn spin_count(&self) -> u32 {
        match self {
            EncryptionInfo::Agile(info) => info.spin_count(),
            EncryptionInfo::Standard(_) => standard::SPIN_COUNT,
        }
    }

    /// The key one password gives, if the verifier says it is the right
    /// one; None otherwise. Costs the key derivation (the spin count's
    /// hash rounds).
    pub fn try_password(&self, password: &str) -> Option<PackageKey> {
        let scheme = self.scheme();
        match self {
            EncryptionInfo::Agile(info) => info
                .try_password(password)
                .map(|key| PackageKey::agile(key, scheme)),
            EncryptionInfo::Standard(info) => info
                .try_password(password)
                .map(|key| PackageKey::standard(key, scheme)),
        }
    }

    /// Tries [`DEFAULT_PASSWORD`], then each of `passwords` in order, and
    /// gives the key of the first the verifier accepts.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::PasswordRequired`] when `passwords` is empty and the
    /// default password does not open it, [`ErrorKind::PasswordIncorrect`]
    /// when none of them does.
    pub fn unlock(&self, passwords: &[String]) -> Result<PackageKey> {
        first_that_opens(&self.scheme(), passwords, |password| {
            Ok(self.try_password(password))
        })
    }
}

/// Tries [`DEFAULT_PASSWORD`] and then `passwords` (the default again
/// skipped) with `try_one`, and gives the first key it returns; the
/// password error for `scheme` when none opens it.
pub(crate) fn first_that_opens<K>(
    scheme: &str,
    passwords: &[String],
    mut try_one: impl FnMut(&str) -> Result<Option<K>>,
) -> Result<K> {
    if let Some(key) = try_one(DEFAULT_PASSWORD)? {
        return Ok(key);
    }
    for password in passwords {
        if password == DEFAULT_PASSWORD {
            continue;
        }
        if let Some(key) = try_one(password)? {
            return Ok(key);
        }
    }
    Err(Error::new(if passwords.is_empty() {
        ErrorKind::PasswordRequired(scheme.to_owned())
    } else {
        ErrorKind::PasswordIncorrect(scheme.to_owned())
    }))
}

/// A damaged encryption structure.
pub(crate) fn damaged(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Encrypted(message.into()))
}

/// A scheme or parameter this reader does not decrypt.
pub(crate) fn unsupported(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::UnsupportedEncryption(message.into()))
}

/// The deepest element nesting the header parsers follow (the Agile header
/// and an ODF manifest nest four or five deep).
const MAX_XML_DEPTH: usize = 32;

/// An element boundary of a small XML document, with its local name.
pub(crate) enum XmlEvent<'a> {
    /// A start tag (a self-closing one is followed by its `End`).
    Start { local: &'a [u8], attributes: Span },
    /// An end tag.
    End { local: &'a [u8] },
}

/// Walks a whole small XML document (an Agile header, an ODF manifest)
/// with the project's tokenizer, calling `visit` at each element's start
/// and end with its local name. Checks that the document is one element,
/// that every end tag closes the element open, and that it nests at most
/// [`MAX_XML_DEPTH`] deep; `what` names the document in errors.
pub(crate) fn walk_elements<'a>(
    input: &'a [u8],
    what: &str,
    mut visit: impl FnMut(XmlEvent<'a>) -> Result<()>,
) -> Result<()> {
    let mut open: Vec<&[u8]> = Vec::new();
    let mut seen_root = false;
    let mut pos = 0;
    let located = |err: xml::XmlError| err.into_error().with_part(what);
    loop {
        let step = xml::next_token(input, pos, true).map_err(located)?;
        let Step::Token(token, next) = step else {
            if !open.is_empty() {
                return Err(
                    Error::xml("the document ends inside an element (cut short?)")
                        .with_part(what)
                        .with_offset(pos as u64),
                );
            }
            if !seen_root {
                return Err(Error::xml("the document has no root element").with_part(what));
            }
            return Ok(());
        };
        match token {
            Token::Start {
                name,
                attributes,
                self_closing,
            } => {
                if open.is_empty() && seen_root {
                    return Err(Error::xml("a second root element")
                        .with_part(what)
                        .with_offset(pos as u64));
                }
                if open.len() >= MAX_XML_DEPTH {
                    return Err(
                        Error::xml(format!("elements nest deeper than {MAX_XML_DEPTH}"))
                            .with_part(what)
                            .with_offset(pos as u64),
                    );
                }
                seen_root = true;
                let name = name.of(input);
                let local = xml::local_name(name);
                visit(XmlEvent::Start { local, attributes })?;
                if self_closing {
                    visit(XmlEvent::End { local })?;
                } else {
                    open.push(name);
                }
            }
            Token::End { name } => {
                let name = name.of(input);
                if open.pop() != Some(name) {
                    return Err(
                        Error::xml("an end tag does not close the element open here")
                            .with_part(what)
                            .with_offset(pos as u64),
                    );
                }
                visit(XmlEvent::End {
                    local: xml::local_name(name),
                })?;
            }
            // Text, CDATA, comments: the headers keep everything in
            // attributes.
            Token::Text(_) | Token::CData(_) | Token::Skip => {}
        }
        pos = next;
    }
}

/// The attributes of a start tag as (local name, decoded value).
pub(crate) fn attributes<'a>(
    input: &'a [u8],
    span: Span,
) -> impl Iterator<Item = Result<(&'a [u8], Cow<'a, str>)>> {
    Attributes::new(input, span).map(move |attribute| {
        let (name, value) = attribute.map_err(xml::XmlError::into_error)?;
        let raw = value.of(input);
        let text = if raw.contains(&b'&') {
            Cow::Owned(xml::decode_owned(raw, true).map_err(xml::XmlError::into_error)?)
        } else {
            Cow::Borrowed(std::str::from_utf8(raw).map_err(|_| Error::new(ErrorKind::InvalidUtf8))?)
        };
        Ok((xml::local_name(name), text))
    })
}

/// Decodes base64 text from a header (ASCII whitespace inside is
/// skipped); `what` names the attribute in errors.
pub(crate) fn base64(text: &str, what: &str) -> Result<Vec<u8>> {
    use base64::Engine;
    let compact: Cow<'_, str> = if text.bytes().any(|byte| byte.is_ascii_whitespace()) {
        Cow::Owned(
            text.chars()
                .filter(|ch| !ch.is_ascii_whitespace())
                .collect(),
        )
    } else {
        Cow::Borrowed(text)
    };
    base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|_| damaged(format!("{what} is not base64")))
}

/// A decimal count from a header; `what` names the attribute in errors.
pub(crate) fn decimal(text: &str, what: &str) -> Result<u64> {
    let text = text.trim();
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(damaged(format!(
            "{what} `{text}` is not a count (0 to 10^19)"
        )));
    }
    text.parse()
        .map_err(|_| damaged(format!("{what} `{text}` is not a count")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_password_is_tried_first_and_not_twice() {
        let given = vec!["b".to_owned(), DEFAULT_PASSWORD.to_owned(), "c".to_owned()];
        let mut tried = Vec::new();
        let key = first_that_opens("test", &given, |password| {
            tried.push(password.to_owned());
            Ok((password == "c").then_some(7))
        })
        .unwrap();
        assert_eq!(key, 7);
        assert_eq!(tried, [DEFAULT_PASSWORD, "b", "c"]);
        let none = first_that_opens("Agile AES-128/SHA-1", &[], |_| Ok(None::<u8>));
        let err = none.unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::PasswordRequired(_)),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "encrypted workbook (Agile AES-128/SHA-1): a password is required (Excel's default \
             password does not open it)"
        );
        let wrong = first_that_opens("x", &given, |_| Ok(None::<u8>)).unwrap_err();
        assert!(
            matches!(wrong.kind(), ErrorKind::PasswordIncorrect(_)),
            "{wrong}"
        );
        assert!(
            wrong.to_string().contains("the password is incorrect"),
            "{wrong}"
        );
    }

    #[test]
    fn compound_files_are_told_apart_by_their_entries() {
        assert!(matches!(
            compound_encryption(["/EncryptionInfo", "/EncryptedPackage", "/\u{6}DataSpaces"]),
            CompoundEncryption::Package
        ));
        assert!(matches!(
            compound_encryption(["Workbook", "\u{5}SummaryInformation"]),
            CompoundEncryption::None
        ));
        let CompoundEncryption::Refused(drm) = compound_encryption([
            "/\u{6}DataSpaces/TransformInfo/DRMEncryptedTransform",
            "/\u{9}DRMContent",
        ]) else {
            panic!("an IRM/DRM package must be refused");
        };
        assert!(
            matches!(drm.kind(), ErrorKind::UnsupportedEncryption(_)),
            "{drm}"
        );
        assert!(drm.to_string().contains("IRM/DRM"), "{drm}");
        let CompoundEncryption::Refused(half) = compound_encryption(["EncryptionInfo"]) else {
            panic!("a package without its EncryptedPackage is damaged");
        };
        assert!(matches!(half.kind(), ErrorKind::Encrypted(_)), "{half}");
    }

    #[test]
    fn versions_other_than_agile_and_standard_are_refused_by_name() {
        for (bytes, expected) in [
            (&[4u8, 0, 3, 0, 0x10, 0, 0, 0][..], "Extensible encryption"),
            (&[3, 0, 3, 0][..], "Extensible encryption"),
            (&[1, 0, 1, 0][..], "version 1.1"),
            (&[4, 0, 5, 0][..], "version 4.5"),
        ] {
            let err = EncryptionInfo::parse(bytes).unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
                "{err}"
            );
            assert!(err.to_string().contains(expected), "{err}");
        }
        for short in [&[][..], &[4u8, 0, 4][..]] {
            let err = EncryptionInfo::parse(short).unwrap_err();
            assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
            assert!(err.to_string().contains("too short"), "{err}");
        }
    }

    #[test]
    fn the_header_reader_stops_at_its_limit() {
        let huge = std::io::repeat(0).take(MAX_ENCRYPTION_INFO_BYTES + 10);
        let err = EncryptionInfo::read(huge).unwrap_err();
        assert!(err.to_string().contains("larger than"), "{err}");
    }

    #[test]
    fn the_element_walker_checks_structure() {
        let mut seen = Vec::new();
        walk_elements(
            b"<?xml version=\"1.0\"?><a:r x='1'><b/><c></c></a:r>",
            "t",
            |event| {
                seen.push(match event {
                    XmlEvent::Start { local, .. } => format!("+{}", String::from_utf8_lossy(local)),
                    XmlEvent::End { local } => format!("-{}", String::from_utf8_lossy(local)),
                });
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, ["+r", "+b", "-b", "+c", "-c", "-r"]);
        for bad in [
            &b"<a><b></a>"[..],
            b"<a>",
            b"<a/><b/>",
            b"",
            b"<!DOCTYPE a><a/>",
        ] {
            assert!(walk_elements(bad, "t", |_| Ok(())).is_err());
        }
        let deep = "<a>".repeat(MAX_XML_DEPTH + 1) + &"</a>".repeat(MAX_XML_DEPTH + 1);
        let err = walk_elements(deep.as_bytes(), "t", |_| Ok(())).unwrap_err();
        assert!(err.to_string().contains("nest deeper"), "{err}");
    }

    #[test]
    fn counts_and_base64_are_checked() {
        assert_eq!(decimal(" 100000 ", "n").unwrap(), 100_000);
        for bad in ["", "-1", "1e9", "99999999999999999999", "0x10"] {
            assert!(decimal(bad, "n").is_err(), "{bad}");
        }
        assert_eq!(base64("AAE=\n", "v").unwrap(), [0, 1]);
        assert!(base64("A", "v").is_err());
    }
}
