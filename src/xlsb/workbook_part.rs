//! The workbook part (`workbook.bin`): the sheet list (BrtBundleSh: state,
//! relationship id, name) and the date system (BrtWbProp); the shared
//! strings and styles parts beside it; what formulas refer to by index
//! (the supporting links, BrtExternSheet and the BrtName names: the
//! [`Links`] formula text resolves against). The part must end with
//! BrtEndBook.

use std::collections::HashMap;
use std::io::{Read, Seek};

use super::records::{
    BUNDLE_SH, END_BOOK, EXTERN_SHEET, Fields, NAME, Records, SUP_ADDIN, SUP_BOOK_SRC, SUP_SAME,
    SUP_SELF, WB_PROP, check_part_end, utf16_string,
};
use crate::archive::Archive;
use crate::date::DateSystem;
use crate::error::{Error, ErrorKind, Result};
use crate::formula::Links;
use crate::limits::Limits;
use crate::metadata::{SheetInfo, SheetKind, SheetState};
use crate::opc::{Layout, Relationship, part_of_type, read_relationships, type_suffix};

/// Reads the sheet list and workbook properties of the workbook part
/// `workbook_part` (already found through the package relationships).
pub(crate) fn read_layout<R: Read + Seek>(
    archive: &mut Archive<R>,
    workbook_part: &str,
    limits: &Limits,
) -> Result<(Layout, Links)> {
    let relationships = read_relationships(archive, workbook_part, limits)?;
    let bytes = archive.read_binary_part(workbook_part, limits)?;
    let mut by_id: HashMap<&str, &Relationship> = HashMap::with_capacity(relationships.len());
    for relationship in relationships.iter().filter(|r| !r.external) {
        by_id
            .entry(relationship.id.as_str())
            .or_insert(relationship);
    }
    let mut sheets = Vec::new();
    let mut date_system = DateSystem::V1900;
    // Every BrtBundleSh's name (external sheet indices count them all),
    // which supporting links are this workbook, the external sheets (link,
    // first, last) and the defined names in order.
    let mut all_names: Vec<String> = Vec::new();
    let mut own_links: Vec<bool> = Vec::new();
    let mut extern_sheets: Vec<(u32, u32, u32)> = Vec::new();
    let mut links = Links::default();
    let mut last = None;
    for record in Records::new(&bytes) {
        let (kind, offset, body) = record.map_err(|err| err.with_part(workbook_part))?;
        last = Some(kind);
        let located = |err: Error| err.with_offset(offset as u64).with_part(workbook_part);
        match kind {
            WB_PROP => {
                let flags = Fields::new(kind, body)
                    .u32("BrtWbProp's flags")
                    .map_err(located)?;
                if flags & 1 != 0 {
                    date_system = DateSystem::V1904;
                }
            }
            BUNDLE_SH => {
                let mut fields = Fields::new(kind, body);
                let state = fields.u32("a sheet's state").map_err(located)?;
                fields.skip(4, "a sheet's tab id").map_err(located)?;
                let id = fields
                    .nullable_wide_string("a sheet's relationship id")
                    .map_err(located)?
                    .map(utf16_string);
                let name = utf16_string(fields.wide_string("a sheet's name").map_err(located)?);
                if all_names.len() as u64 <= limits.max_sheets {
                    all_names.push(name.clone());
                }
                let Some(id) = id.filter(|id| !id.is_empty()) else {
                    // No relationship: not a sheet that holds cells.
                    continue;
                };
                if sheets.len() as u64 >= limits.max_sheets {
                    return Err(located(Error::limit("number of sheets", limits.max_sheets)));
                }
                let Some(&relationship) = by_id.get(id.as_str()) else {
                    return Err(located(Error::new(ErrorKind::MissingPart(format!(
                        "the relationship {id} of sheet '{name}'"
                    )))));
                };
                let kind = match type_suffix(&relationship.kind) {
                    "chartsheet" => SheetKind::Chartsheet,
                    "dialogsheet" => SheetKind::Dialogsheet,
                    "xlMacrosheet" | "xlIntlMacrosheet" => SheetKind::Macrosheet,
                    _ => SheetKind::Worksheet,
                };
                sheets.push(SheetInfo {
                    position: sheets.len(),
                    name,
                    state: match state {
                        1 => SheetState::Hidden,
                        2 => SheetState::VeryHidden,
                        _ => SheetState::Visible,
                    },
                    kind,
                    part: relationship.target.clone(),
                });
            }
            SUP_SELF | SUP_SAME => own_links.push(true),
            SUP_BOOK_SRC | SUP_ADDIN => own_links.push(false),
            EXTERN_SHEET => {
                let mut fields = Fields::new(kind, body);
                let count = fields.u32("the external sheet count").map_err(located)?;
                for _ in 0..count {
                    let mut field = |what| fields.u32(what).map_err(located);
                    let entry = (
                        field("an external sheet's link")?,
                        field("an external sheet's first sheet")?,
                        field("an external sheet's last sheet")?,
                    );
                    extern_sheets.push(entry);
                }
            }
            NAME => {
                let mut fields = Fields::new(kind, body);
                let flags = fields.u32("a name's flags").map_err(located)?;
                fields.skip(5, "a name's key and sheet").map_err(located)?;
                let mut name = utf16_string(fields.wide_string("a name").map_err(located)?);
                if flags & 0x20 != 0 {
                    name.insert_str(0, "_xlnm.");
                }
                links.names.push(name);
            }
            _ => {}
        }
    }
    // A workbook part cut at a record boundary would lose its last sheets.
    check_part_end(last, END_BOOK, "BrtEndBook", bytes.len() as u64)
        .map_err(|err| err.with_part(workbook_part))?;
    let names: Vec<&str> = all_names.iter().map(String::as_str).collect();
    links.sheets = extern_sheets
        .iter()
        .map(|&(link, first, last)| {
            own_links
                .get(link as usize)
                .copied()
                .unwrap_or(false)
                .then(|| Links::sheet_prefix(&names, i64::from(first), i64::from(last)))
                .flatten()
        })
        .collect();
    let folder = workbook_part
        .rsplit_once('/')
        .map_or("", |(folder, _)| folder);
    let conventional = |file: &str| {
        if folder.is_empty() {
            file.to_owned()
        } else {
            format!("{folder}/{file}")
        }
    };
    let layout = Layout {
        workbook_part: workbook_part.to_owned(),
        sheets,
        shared_strings_part: part_of_type(
            archive,
            &relationships,
            "sharedStrings",
            &conventional("sharedStrings.bin"),
        ),
        styles_part: part_of_type(
            archive,
            &relationships,
            "styles",
            &conventional("styles.bin"),
        ),
        date_system,
    };
    Ok((layout, links))
}
