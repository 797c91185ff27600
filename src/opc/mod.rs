//! The OPC package: from the ZIP container to the workbook's parts.
//!
//! The workbook part is found through the package relationships
//! (`_rels/.rels`), the sheets, shared strings and styles through the
//! workbook's relationships. Targets are resolved relative to their source
//! part, and part names compare case-insensitively.
//!
//! Here too: `SheetInfo`, `SheetKind`, `SheetState` and `Layout`, what a
//! format's workbook part gives; relationships are read once (external targets
//! kept and flagged) and reused by the metadata readers.

use std::io::{Read, Seek};

use crate::archive::Archive;
use crate::date::DateSystem;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::metadata::{SheetInfo, SheetKind, Table};
use crate::xml::{self, Namespace, Token};

/// Where the workbook's parts are, and what the workbook part says.
pub(crate) struct Layout {
    pub workbook_part: String,
    pub sheets: Vec<SheetInfo>,
    pub shared_strings_part: Option<String>,
    pub styles_part: Option<String>,
    pub date_system: DateSystem,
}

/// One relationship of a part.
pub(crate) struct Relationship {
    pub id: String,
    pub kind: String,
    /// Resolved to a part name when internal; as written when external.
    pub target: String,
    /// `TargetMode="External"`: a URL or file outside the package.
    pub external: bool,
}

/// The relationships part for a source part: `xl/workbook.xml` has
/// `xl/_rels/workbook.xml.rels`.
pub(crate) fn relationships_part_of(source: &str) -> String {
    match source.rfind('/') {
        Some(slash) => format!("{}/_rels/{}.rels", &source[..slash], &source[slash + 1..]),
        None => format!("_rels/{source}.rels"),
    }
}

/// Resolves a relationship target against its source part's folder.
pub(crate) fn resolve_target(source: &str, target: &str) -> String {
    let target = percent_decode(target);
    let mut segments: Vec<&str> = Vec::new();
    let absolute = target.starts_with('/') || target.starts_with('\\');
    if !absolute && let Some(slash) = source.rfind('/') {
        segments.extend(source[..slash].split('/').filter(|s| !s.is_empty()));
    }
    for segment in target.split(['/', '\\']) {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    segments.join("/")
}

fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// The last segment of a relationship type URI (`.../worksheet`), which is
/// the same in the Transitional and Strict namespaces.
pub(crate) fn type_suffix(kind: &str) -> &str {
    kind.rsplit('/').next().unwrap_or(kind)
}

fn xml_error(part: &str) -> impl Fn(xml::XmlError) -> Error + '_ {
    move |err| err.into_error().with_part(part)
}

/// The relationships of `source` (none when it has no relationships part),
/// external ones included.
pub(crate) fn read_relationships<R: Read + Seek>(
    archive: &mut Archive<R>,
    source: &str,
    limits: &Limits,
) -> Result<Vec<Relationship>> {
    let part = relationships_part_of(source);
    if !archive.contains(&part) {
        return Ok(Vec::new());
    }
    let bytes = archive.read_part(&part, limits)?;
    let mut relationships = Vec::new();
    // Only the package relationships namespace's elements: a foreign
    // element that looks like a `<Relationship>` is skipped with its
    // content.
    xml::walk(&bytes, Namespace::PackageRelationships, |token, _| {
        let Token::Start {
            name, attributes, ..
        } = token
        else {
            return Ok(());
        };
        if xml::local_name(name.of(&bytes)) != b"Relationship" {
            return Ok(());
        }
        let (mut id, mut kind, mut target, mut external) = (None, None, None, false);
        for attribute in xml::Attributes::new(&bytes, attributes) {
            let (key, value) = attribute?;
            let value = value.of(&bytes);
            match key {
                b"Id" => id = Some(xml::decode_owned(value, false)?),
                b"Type" => kind = Some(xml::decode_owned(value, false)?),
                b"Target" => target = Some(xml::decode_owned(value, false)?),
                b"TargetMode" => {
                    external = xml::decode_owned(value, false)?.eq_ignore_ascii_case("External")
                }
                _ => {}
            }
        }
        if let (Some(id), Some(kind), Some(target)) = (id, kind, target) {
            let target = if external {
                target
            } else {
                resolve_target(source, target.trim())
            };
            relationships.push(Relationship {
                id,
                kind,
                target,
                external,
            });
        }
        Ok(())
    })
    .map_err(xml_error(&part))?;
    Ok(relationships)
}

/// The first existing part among the relationships of one type, or a
/// conventional fallback name when the relationship is missing.
pub(crate) fn part_of_type<R: Read + Seek>(
    archive: &Archive<R>,
    relationships: &[Relationship],
    suffix: &str,
    fallback: &str,
) -> Option<String> {
    relationships
        .iter()
        .filter(|r| !r.external && type_suffix(&r.kind).eq_ignore_ascii_case(suffix))
        .map(|r| r.target.clone())
        .find(|target| archive.contains(target))
        .or_else(|| archive.contains(fallback).then(|| fallback.to_owned()))
}

/// Finds the workbook part through the package relationships (or the
/// conventional name), telling other OPC documents apart.
pub(crate) fn find_workbook_part<R: Read + Seek>(
    archive: &mut Archive<R>,
    limits: &Limits,
) -> Result<String> {
    let package_relationships = read_relationships(archive, "", limits)?;
    part_of_type(archive, &package_relationships, "officeDocument", "xl/workbook.xml")
        .ok_or_else(|| {
            if archive.contains("content.xml") {
                Error::unsupported_format("an OpenDocument spreadsheet (.ods)")
            } else if archive.contains("word/document.xml") {
                Error::new(ErrorKind::NotZip {
                    detail: "it is a Word document (.docx), a ZIP package holding no workbook",
                })
            } else if archive.contains("ppt/presentation.xml") {
                Error::new(ErrorKind::NotZip {
                    detail: "it is a PowerPoint presentation (.pptx), a ZIP package holding no workbook",
                })
            } else {
                Error::new(ErrorKind::MissingPart(
                    "the workbook part (no officeDocument relationship in _rels/.rels, no xl/workbook.xml)".into(),
                ))
            }
        })
}

/// Every table of every worksheet, in sheet order, then in the order of
/// each sheet's relationships part: each relationship of type `table`
/// names a table part (`xl/tables/tableN.xml`, or in an `.xlsb` package
/// the record stream `xl/tables/tableN.bin`), read whole and handed to
/// the format's `parse`; `binary` says which of the archive's readers
/// reads it. Its header and totals row counts are checked against its
/// range, the same for every format.
pub(crate) fn read_tables<R: Read + Seek>(
    archive: &mut Archive<R>,
    sheets: &[SheetInfo],
    limits: &Limits,
    binary: bool,
    parse: fn(&[u8], &str, &SheetInfo) -> Result<Table>,
) -> Result<Vec<Table>> {
    let mut tables = Vec::new();
    for sheet in sheets.iter().filter(|s| s.kind() == SheetKind::Worksheet) {
        let located = |err: Error| err.with_sheet(sheet.name());
        let relationships = read_relationships(archive, sheet.part(), limits).map_err(located)?;
        for relationship in relationships
            .iter()
            .filter(|r| !r.external && type_suffix(&r.kind).eq_ignore_ascii_case("table"))
        {
            let part = &relationship.target;
            if !archive.contains(part) {
                return Err(located(Error::new(ErrorKind::MissingPart(format!(
                    "the table part {part}, which the sheet's relationships name"
                )))));
            }
            let bytes = if binary {
                archive.read_binary_part(part, limits)
            } else {
                archive.read_part(part, limits)
            }
            .map_err(located)?;
            tables.push(
                parse(&bytes, part, sheet)
                    .and_then(|table| check_counts(table, part, binary))
                    .map_err(located)?,
            );
        }
    }
    Ok(tables)
}

/// A table's header and totals row counts, checked against its range
/// (the same for every format's table parts).
fn check_counts(table: Table, part: &str, binary: bool) -> Result<Table> {
    let damaged: fn(String) -> Error = if binary { Error::record } else { Error::xml };
    if table.header_row_count > 1 || table.totals_row_count > 1 {
        return Err(damaged(format!(
            "table {} says {} header rows and {} totals rows (at most 1 each)",
            table.name, table.header_row_count, table.totals_row_count
        ))
        .with_part(part));
    }
    if table.header_row_count + table.totals_row_count > table.range.height() {
        return Err(damaged(format!(
            "table {} has more header and totals rows than its range {} holds",
            table.name, table.range
        ))
        .with_part(part));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_parent_and_absolute_targets() {
        assert_eq!(
            resolve_target("xl/workbook.xml", "worksheets/sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
        assert_eq!(
            resolve_target("xl/workbook.xml", "/xl/worksheets/sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
        assert_eq!(
            resolve_target("xl/workbook.xml", "../xl/./sheet%201.xml"),
            "xl/sheet 1.xml"
        );
        assert_eq!(resolve_target("", "xl/workbook.xml"), "xl/workbook.xml");
        assert_eq!(
            resolve_target("workbook.xml", "sheets\\s.xml"),
            "sheets/s.xml"
        );
    }

    #[test]
    fn relationships_part_sits_beside_its_source() {
        assert_eq!(
            relationships_part_of("xl/workbook.xml"),
            "xl/_rels/workbook.xml.rels"
        );
        assert_eq!(relationships_part_of(""), "_rels/.rels");
    }
}
