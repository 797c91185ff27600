//! The styles part (`styles.bin`) into the format-neutral [`Styles`]: the
//! number formats the file defines (BrtFmt) and each cell format's
//! number format id (the BrtXF records between BrtBeginCellXFs and
//! BrtEndCellXFs; the style XFs before them are not cell formats). The
//! part must end with BrtEndStyleSheet.

use super::records::{
    BEGIN_CELL_XFS, END_CELL_XFS, END_STYLE_SHEET, FMT, Fields, Records, XF, check_part_end,
    utf16_string,
};
use crate::date::DateSystem;
use crate::error::{Error, Result};
use crate::styles::{Styles, StylesBuilder};

/// Reads a whole styles part.
pub(crate) fn read_styles(bytes: &[u8], date_system: DateSystem) -> Result<Styles> {
    let mut builder = StylesBuilder::new();
    let mut in_cell_xfs = false;
    let mut last = None;
    for record in Records::new(bytes) {
        let (kind, offset, body) = record?;
        last = Some(kind);
        let located = |err: Error| err.with_offset(offset as u64);
        match kind {
            FMT => {
                let mut fields = Fields::new(kind, body);
                let id = fields.u16("a number format's id").map_err(located)?;
                let code = fields
                    .wide_string("a number format's code")
                    .map_err(located)?;
                builder.custom_format(u32::from(id), utf16_string(code));
            }
            BEGIN_CELL_XFS => in_cell_xfs = true,
            END_CELL_XFS => in_cell_xfs = false,
            XF if in_cell_xfs => {
                let mut fields = Fields::new(kind, body);
                fields.skip(2, "a cell format's parent").map_err(located)?;
                let id = fields
                    .u16("a cell format's number format")
                    .map_err(located)?;
                builder.cell_style(u32::from(id));
            }
            _ => {}
        }
    }
    check_part_end(
        last,
        END_STYLE_SHEET,
        "BrtEndStyleSheet",
        bytes.len() as u64,
    )?;
    Ok(builder.finish(date_system))
}
