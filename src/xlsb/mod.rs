//! The `.xlsb` (BIFF12) format: binary record streams in the OPC package.
//!
//! `records` is the framing every part shares (record headers, bounds-
//! checked fields, UTF-16 text, [`records::RecordStream`] over the chunk
//! window); `workbook_part` reads the sheet list and the date system,
//! `styles` and `shared_strings` their parts into the format-neutral
//! [`Styles`](crate::styles::Styles) and
//! [`SharedStrings`](crate::SharedStrings), `rows` the sheet parts into
//! the public row events, `metadata` the rest of a sheet part.
//!
//! The package is found as for `.xlsx` (`_rels/.rels`, the workbook's
//! relationships); what makes a package `.xlsb` is its workbook part's
//! content, a record stream starting with BrtBeginBook ([`is_binary_workbook`]).

mod formulas;
pub(crate) mod metadata;
pub(crate) mod records;
pub(crate) mod rows;
pub(crate) mod shared_strings;
pub(crate) mod styles;
pub(crate) mod tables;
pub(crate) mod workbook_part;

use std::io::{Read, Seek};

use crate::error::Result;
use crate::formula::Links;
use crate::limits::Limits;
use crate::opc::Layout;
use crate::archive::Archive;
use crate::shared_strings::SharedStrings;
use crate::styles::Styles;

/// Whether the workbook part `part` is a BIFF12 record stream: its first
/// record is BrtBeginBook (type 0x83, written `83 01`, then its size). An XML workbook
/// part starts with `<`, white space or a byte order mark.
pub(crate) fn is_binary_workbook<R: Read + Seek>(
    archive: &mut Archive<R>,
    part: &str,
    limits: &Limits,
) -> Result<bool> {
    let mut reader = archive.open_binary_part(part, limits.max_metadata_part_bytes, limits)?;
    let mut head = [0u8; 3];
    let mut filled = 0;
    while filled < head.len() {
        match reader
            .read(&mut head[filled..])
            .map_err(|err| crate::error::Error::from(err).with_part(part))?
        {
            0 => break,
            count => filled += count,
        }
    }
    Ok(records::header(&head[..filled]).is_ok_and(|header| {
        matches!(
            header,
            records::Header::Record {
                kind: records::BEGIN_BOOK,
                ..
            }
        )
    }))
}

/// What opening an `.xlsb` workbook reads: the layout, the styles, the
/// shared strings and what formulas refer to.
pub(crate) fn read_workbook<R: Read + Seek>(
    archive: &mut Archive<R>,
    workbook_part: &str,
    limits: &Limits,
) -> Result<(Layout, Styles, Option<SharedStrings>, Links)> {
    let (layout, links) = workbook_part::read_layout(archive, workbook_part, limits)?;
    let styles = match &layout.styles_part {
        Some(part) => {
            let bytes = archive.read_binary_part(part, limits)?;
            styles::read_styles(&bytes, layout.date_system).map_err(|err| err.with_part(part))?
        }
        None => Styles::general(layout.date_system),
    };
    let shared_strings = match &layout.shared_strings_part {
        Some(part) => {
            let reader = archive.open_binary_part(part, limits.max_part_bytes, limits)?;
            Some(
                shared_strings::read_shared_strings(reader, limits)
                    .map_err(|err| err.with_part(part))?,
            )
        }
        None => None,
    };
    Ok((layout, styles, shared_strings, links))
}
