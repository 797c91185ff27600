//! The shared strings part (`sharedStrings.bin`), streamed record by
//! record into a [`SharedStringsBuilder`]: each BrtSSTItem's text (a
//! `RichStr`: flags, then the string; rich text runs and phonetic data
//! after it are not text). The part must end with BrtEndSst.

use std::io::Read;

use super::records::{END_SST, Fields, RecordStream, SST_ITEM, check_part_end, push_utf16_bytes};
use crate::contract::PartSource;
use crate::error::Result;
use crate::limits::Limits;
use crate::shared_strings::{SharedStrings, SharedStringsBuilder};

/// Reads a shared strings part from `reader`.
pub(crate) fn read_shared_strings(reader: impl Read, limits: &Limits) -> Result<SharedStrings> {
    let mut records = RecordStream::new(PartSource::Reader(Box::new(reader)), limits);
    let mut builder = SharedStringsBuilder::new(limits);
    // One item's text as UTF-8, reused.
    let mut text = Vec::new();
    while let Some(record) = records.next(|kind| kind == SST_ITEM)? {
        let offset = record.offset;
        let mut fields = Fields::new(record.kind, record.body);
        let item = fields
            .u8("a string item's flags")
            .and_then(|_| fields.wide_string("a string item's text"))
            .map_err(|err| err.with_offset(offset))?;
        text.clear();
        push_utf16_bytes(item, &mut text);
        builder
            .append(&text)
            .and_then(|()| builder.end_item())
            .map_err(|err| err.with_offset(offset))?;
    }
    // A table cut at a record boundary would lose its last strings (and
    // a cell naming one of them would be refused as past the table's end).
    check_part_end(records.last_kind(), END_SST, "BrtEndSst", records.offset())?;
    builder.finish()
}
