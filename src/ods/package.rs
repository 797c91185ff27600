//! Which bytes are an OpenDocument spreadsheet, and whether it can be read.
//!
//! A package (ZIP) is one when its `mimetype` entry says
//! `application/vnd.oasis.opendocument.spreadsheet` (or `…-template`),
//! wherever the entry lies in the archive (the specification wants it
//! first and stored; 12 corpus files have it elsewhere). Without a
//! `mimetype`, the root entry of `META-INF/manifest.xml` decides
//! (FORMAT-binary section 1's decision: LibreOffice reads such files), and
//! without either, a `content.xml` in a package that is no OOXML one. The
//! manifest is read whenever it is there: an entry with
//! `manifest:encryption-data` makes the package an encrypted workbook,
//! opened with a password (`encrypted.rs`) or, in a build without the
//! `encryption` feature, refused with the same typed error as an
//! encrypted `.xlsx` ([`ErrorKind::Encrypted`](crate::ErrorKind::Encrypted)), whatever the rest of the
//! manifest says.
//!
//! A flat ODS document (`.fods`) is a plain XML file whose root element is
//! `office:document`, its `office:mimetype` attribute saying what it
//! holds; [`is_flat_document`] looks at the start of a file for it.

use std::io::{Read, Seek, SeekFrom};

use super::names::OFFICE;
use crate::archive::Archive;
#[cfg(not(feature = "encryption"))]
use crate::error::ErrorKind;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::xml::{self, Attributes, Namespace, Step, Token, local_name};

/// The media type of a spreadsheet, and of its template.
pub(crate) const SPREADSHEET: &str = "application/vnd.oasis.opendocument.spreadsheet";
pub(crate) const SPREADSHEET_TEMPLATE: &str =
    "application/vnd.oasis.opendocument.spreadsheet-template";
/// What every OpenDocument media type starts with.
const OPENDOCUMENT: &str = "application/vnd.oasis.opendocument.";

pub(crate) const MANIFEST_PART: &str = "META-INF/manifest.xml";

/// Whether a media type is a spreadsheet's.
pub(crate) fn is_spreadsheet_type(media_type: &str) -> bool {
    matches!(media_type.trim(), SPREADSHEET | SPREADSHEET_TEMPLATE)
}

/// The error for an OpenDocument file of another kind.
pub(crate) fn not_a_spreadsheet(media_type: &str) -> Error {
    let kind = media_type
        .trim()
        .strip_prefix(OPENDOCUMENT)
        .unwrap_or(media_type.trim());
    Error::package(format!(
        "it is an OpenDocument {kind} file ({}), not a spreadsheet",
        media_type.trim()
    ))
}

/// What a manifest says.
#[derive(Debug, Default, PartialEq, Eq)]
struct Manifest {
    /// The media type of the root entry (`manifest:full-path="/"`).
    root_type: Option<String>,
    /// An entry with `manifest:encryption-data`, by its path (what a
    /// build without the `encryption` feature refuses; with it,
    /// `encrypted.rs` reads the encryption data).
    #[cfg_attr(feature = "encryption", allow(dead_code))]
    encrypted: Option<String>,
}

/// `bytes` with a document type declaration that only names an external
/// DTD (`<!DOCTYPE manifest:manifest PUBLIC "-//OpenOffice.org//DTD
/// Manifest 1.0//EN" "Manifest.dtd">`, as OpenOffice wrote manifests)
/// blanked out: it defines no entity and is never fetched. One with an
/// internal subset (`[`...`]`, where entities are declared) is left for
/// the tokenizer to refuse.
pub(crate) fn blank_external_doctype(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let Some(start) = memchr::memmem::find(bytes, b"<!DOCTYPE") else {
        return bytes.into();
    };
    let mut quote = None;
    for (at, &byte) in bytes.iter().enumerate().skip(start + 9) {
        match (quote, byte) {
            (Some(open), _) if byte == open => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(byte),
            (None, b'[') => break,
            (None, b'>') => {
                let mut blanked = bytes.to_vec();
                blanked[start..=at].fill(b' ');
                return blanked.into();
            }
            _ => {}
        }
    }
    bytes.into()
}

/// Reads `META-INF/manifest.xml`.
fn read_manifest(bytes: &[u8]) -> Result<Manifest> {
    let bytes = &*blank_external_doctype(bytes);
    let mut manifest = Manifest::default();
    // The entry being read: its path.
    let mut entry: Option<String> = None;
    xml::walk(bytes, Namespace::Other, |token, namespaces| {
        let Token::Start {
            name, attributes, ..
        } = token
        else {
            return Ok(());
        };
        let qname = name.of(bytes);
        // Elements of the manifest's namespace, whatever their prefix.
        let ours = match qname.iter().position(|&byte| byte == b':') {
            Some(_) => namespaces.is_in(qname, Namespace::Other),
            None => true,
        };
        if !ours {
            return Ok(());
        }
        match local_name(qname) {
            b"file-entry" => {
                let (mut path, mut media_type) = (None, None);
                for attribute in Attributes::new(bytes, attributes) {
                    let (key, value) = attribute?;
                    match local_name(key) {
                        b"full-path" => path = Some(xml::decode_owned(value.of(bytes), false)?),
                        b"media-type" => {
                            media_type = Some(xml::decode_owned(value.of(bytes), false)?)
                        }
                        _ => {}
                    }
                }
                if path.as_deref() == Some("/") {
                    manifest.root_type = media_type;
                }
                entry = path;
            }
            b"encryption-data" if manifest.encrypted.is_none() => {
                manifest.encrypted = Some(entry.clone().unwrap_or_default());
            }
            _ => {}
        }
        Ok(())
    })
    .map_err(|err| err.into_error().with_part(MANIFEST_PART))?;
    Ok(manifest)
}

/// Whether a ZIP package is an OpenDocument spreadsheet; an error for
/// another kind of OpenDocument file, for a `mimetype` or manifest that
/// cannot be read, and (without the `encryption` feature) for an
/// encrypted one.
pub(crate) fn is_spreadsheet_package<R: Read + Seek>(
    archive: &mut Archive<R>,
    limits: &Limits,
) -> Result<bool> {
    let mimetype = if archive.contains("mimetype") {
        let bytes = archive.read_binary_part("mimetype", limits)?;
        Some(String::from_utf8_lossy(&bytes).trim().to_owned())
    } else {
        None
    };
    let manifest = if archive.contains(MANIFEST_PART) {
        let bytes = archive.read_part(MANIFEST_PART, limits)?;
        Some(read_manifest(&bytes)?)
    } else {
        None
    };
    let media_type = mimetype
        .clone()
        .or_else(|| manifest.as_ref().and_then(|m| m.root_type.clone()));
    match media_type.as_deref() {
        Some(media_type) if is_spreadsheet_type(media_type) => {}
        Some(media_type) if media_type.starts_with(OPENDOCUMENT) => {
            return Err(not_a_spreadsheet(media_type));
        }
        // A `mimetype` of something else: an OOXML package never has one.
        Some(_) if mimetype.is_some() => return Ok(false),
        _ => {
            // Neither says: a `content.xml` in a package that is no OOXML
            // package is read as one (the sheet list refuses any other
            // kind of document).
            if !archive.contains("content.xml") || archive.contains("[Content_Types].xml") {
                return Ok(false);
            }
        }
    }
    #[cfg(not(feature = "encryption"))]
    if let Some(path) = manifest.and_then(|manifest| manifest.encrypted) {
        return Err(Error::new(ErrorKind::Encrypted(format!(
            "the OpenDocument package is encrypted (its manifest gives `{path}` \
             manifest:encryption-data); save it without a password to read it"
        )))
        .with_part(MANIFEST_PART));
    }
    Ok(true)
}

/// How far into a file its root element is looked for.
const HEAD: usize = 64 * 1024;

/// Whether `reader` holds a flat OpenDocument document (`office:document`
/// as its root element, after the XML declaration, comments and
/// processing instructions); the reader is left at its start.
pub(crate) fn is_flat_document<R: Read + Seek>(reader: &mut R) -> Result<bool> {
    reader.seek(SeekFrom::Start(0))?;
    let mut head = Vec::with_capacity(4096);
    reader.by_ref().take(HEAD as u64).read_to_end(&mut head)?;
    reader.seek(SeekFrom::Start(0))?;
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    if !body.trim_ascii_start().starts_with(b"<") {
        return Ok(false);
    }
    let complete = head.len() < HEAD;
    let mut pos = 0;
    loop {
        match xml::next_token(body, pos, complete) {
            Ok(Step::Token(
                Token::Start {
                    name, attributes, ..
                },
                _,
            )) => {
                let qname = name.of(body);
                if local_name(qname) != b"document" {
                    return Ok(false);
                }
                // The office namespace, bound on the root itself.
                let prefix = match qname.iter().position(|&byte| byte == b':') {
                    Some(colon) => &qname[..colon],
                    None => &[][..],
                };
                for attribute in Attributes::new(body, attributes) {
                    let Ok((key, value)) = attribute else {
                        return Ok(false);
                    };
                    let declares = match key.strip_prefix(b"xmlns") {
                        Some([]) => prefix.is_empty(),
                        Some([b':', bound @ ..]) => bound == prefix,
                        _ => false,
                    };
                    if declares && value.of(body) == OFFICE {
                        return Ok(true);
                    }
                }
                return Ok(false);
            }
            Ok(Step::Token(_, next)) => pos = next,
            // Cut off, malformed or empty: not one (the ZIP reader says
            // what the file is instead).
            _ => return Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_says_the_root_type_and_encryption() {
        let plain = br#"<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#;
        let manifest = read_manifest(plain).unwrap();
        assert_eq!(manifest.root_type.as_deref(), Some(SPREADSHEET));
        assert_eq!(manifest.encrypted, None);
        let encrypted = br#"<m:manifest xmlns:m="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><m:file-entry m:full-path="content.xml" m:media-type="text/xml"><m:encryption-data m:checksum="x"/></m:file-entry></m:manifest>"#;
        let manifest = read_manifest(encrypted).unwrap();
        assert_eq!(manifest.encrypted.as_deref(), Some("content.xml"));
        let err = read_manifest(b"<manifest><file-entry></manifest>").unwrap_err();
        assert_eq!(err.location().part.as_deref(), Some(MANIFEST_PART));
        assert!(err.location().offset.is_some(), "{err}");
        let err = read_manifest(b"<!DOCTYPE m [<!ENTITY e \"x\">]><manifest/>").unwrap_err();
        assert!(err.to_string().contains("DTD"), "{err}");
        // OpenOffice's manifests name an external DTD: no entity, read.
        let old = br#"<?xml version="1.0"?><!DOCTYPE manifest:manifest PUBLIC "-//OpenOffice.org//DTD Manifest 1.0//EN" "Manifest.dtd"><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/></manifest:manifest>"#;
        assert_eq!(
            read_manifest(old).unwrap().root_type.as_deref(),
            Some(SPREADSHEET)
        );
    }

    #[test]
    fn a_flat_document_is_told_by_its_root() {
        let flat = br#"<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment --><office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body/></office:document>"#;
        assert!(is_flat_document(&mut std::io::Cursor::new(&flat[..])).unwrap());
        let bom = [&b"\xEF\xBB\xBF"[..], &flat[..]].concat();
        assert!(is_flat_document(&mut std::io::Cursor::new(bom)).unwrap());
        for other in [
            &b"<html><body/></html>"[..],
            b"PK\x03\x04",
            b"",
            br#"<office:document xmlns:office="urn:example"/>"#,
            br#"<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>"#,
        ] {
            assert!(!is_flat_document(&mut std::io::Cursor::new(other)).unwrap());
        }
    }
}
