//! The workbook part (`workbook.xml`): the sheet list with each sheet's
//! part, state and kind, and the date system; the shared strings and
//! styles parts beside it.

use std::io::{Read, Seek};

use crate::archive::Archive;
use crate::date::DateSystem;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::metadata::{SheetInfo, SheetKind, SheetState};
use crate::opc::{Layout, Relationship, part_of_type, read_relationships, type_suffix};

use crate::xml::{self, Namespace, Token};

/// Reads the sheet list and workbook properties of the workbook part
/// `workbook_part` (found through the package relationships:
/// [`find_workbook_part`](crate::opc::find_workbook_part)).
pub(crate) fn read_layout<R: Read + Seek>(
    archive: &mut Archive<R>,
    workbook_part: String,
    limits: &Limits,
) -> Result<Layout> {
    let relationships = read_relationships(archive, &workbook_part, limits)?;
    let bytes = archive.read_part(&workbook_part, limits)?;

    // Internal relationships by id, the first of a repeated id winning:
    // one lookup per sheet, not a search of them all.
    let mut by_id: std::collections::HashMap<&str, &Relationship> =
        std::collections::HashMap::with_capacity(relationships.len());
    for relationship in relationships.iter().filter(|r| !r.external) {
        by_id
            .entry(relationship.id.as_str())
            .or_insert(relationship);
    }
    let mut sheets = Vec::new();
    let mut date_system = DateSystem::V1900;
    let mut problem: Option<Error> = None;
    xml::walk(&bytes, Namespace::SpreadsheetMl, |token, namespaces| {
        let Token::Start {
            name, attributes, ..
        } = token
        else {
            return Ok(());
        };
        match xml::local_name(name.of(&bytes)) {
            b"workbookPr" => {
                if let Some(value) = xml::attribute_decoded(&bytes, attributes, b"date1904")?
                    && (*value == *b"1" || value.eq_ignore_ascii_case(b"true"))
                {
                    date_system = DateSystem::V1904;
                }
            }
            b"sheet" => {
                let (mut sheet_name, mut state) = (None, SheetState::Visible);
                // `r:id`, by its prefix's namespace.
                let id = xml::relationship_id(&bytes, attributes, namespaces)?
                    .map(|raw| xml::decode_owned(raw, false))
                    .transpose()?;
                for attribute in xml::Attributes::new(&bytes, attributes) {
                    let (key, value) = attribute?;
                    let value = value.of(&bytes);
                    match key {
                        b"name" => sheet_name = Some(xml::decode_owned(value, false)?),
                        b"state" => {
                            state = match xml::decode_owned(value, false)?.as_bytes() {
                                b"hidden" => SheetState::Hidden,
                                b"veryHidden" => SheetState::VeryHidden,
                                _ => SheetState::Visible,
                            }
                        }
                        _ => {}
                    }
                }
                let Some(id) = id.filter(|id| !id.is_empty()) else {
                    // Old VBA module sheets have no relationship: not a sheet we can read.
                    return Ok(());
                };
                let sheet_name = sheet_name.unwrap_or_default();
                if sheets.len() as u64 >= limits.max_sheets {
                    problem
                        .get_or_insert_with(|| Error::limit("number of sheets", limits.max_sheets));
                    return Err(xml::XmlError::stop());
                }
                let Some(&relationship) = by_id.get(id.as_str()) else {
                    problem.get_or_insert_with(|| {
                        Error::new(ErrorKind::MissingPart(format!(
                            "the relationship {id} of sheet '{sheet_name}'"
                        )))
                    });
                    return Ok(());
                };
                let kind = match type_suffix(&relationship.kind) {
                    "chartsheet" => SheetKind::Chartsheet,
                    "dialogsheet" => SheetKind::Dialogsheet,
                    "xlMacrosheet" | "xlIntlMacrosheet" => SheetKind::Macrosheet,
                    _ => SheetKind::Worksheet,
                };
                sheets.push(SheetInfo {
                    position: sheets.len(),
                    name: sheet_name,
                    state,
                    kind,
                    part: relationship.target.clone(),
                });
            }
            _ => {}
        }
        Ok(())
    })
    .map_err(|err| match problem.take() {
        Some(problem) => problem.with_part(&workbook_part),
        None => err.into_error().with_part(&workbook_part),
    })?;
    if let Some(problem) = problem {
        return Err(problem.with_part(&workbook_part));
    }
    let workbook_folder = workbook_part
        .rsplit_once('/')
        .map_or("", |(folder, _)| folder);
    let conventional = |file: &str| {
        if workbook_folder.is_empty() {
            file.to_owned()
        } else {
            format!("{workbook_folder}/{file}")
        }
    };
    Ok(Layout {
        workbook_part: workbook_part.clone(),
        sheets,
        shared_strings_part: part_of_type(
            archive,
            &relationships,
            "sharedStrings",
            &conventional("sharedStrings.xml"),
        ),
        styles_part: part_of_type(
            archive,
            &relationships,
            "styles",
            &conventional("styles.xml"),
        ),
        date_system,
    })
}
