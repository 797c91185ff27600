//! Limits that keep hostile input from eating memory or time.
//!
//! Each limit has a default that reads every real workbook; `OpenOptions`
//! changes them.

/// Size limits applied while reading a workbook.
///
/// The defaults read any workbook Excel itself can write and refuse the
/// obviously hostile (ZIP bombs, a single multi-gigabyte row, a shared
/// strings table larger than memory). Raise them for unusual files:
///
/// ```
/// let mut limits = sheetstream::Limits::default();
/// limits.max_row_bytes = 1 << 30;
/// let options = sheetstream::OpenOptions::new().limits(limits);
/// # let _ = options;
/// ```
///
/// New limits may be added (the struct is `#[non_exhaustive]`): start from
/// [`Limits::default`] and set the fields you want.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest inflated size of any part, in bytes. Sheets are streamed, so
    /// this bounds time, not memory.
    pub max_part_bytes: u64,
    /// Largest inflated size of a part that is held in memory whole (the
    /// workbook, its relationships, styles), in bytes.
    pub max_metadata_part_bytes: u64,
    /// Largest XML text of one row (or one shared string item), in bytes.
    ///
    /// Memory use while streaming a sheet is bounded by this: about twice
    /// `max_row_bytes` plus a constant of a few MiB, on one thread and
    /// pipelined, for rows that are read and rows that are refused. The
    /// window holding the row grows to at most `max_row_bytes` plus one
    /// 512 KiB chunk (never doubling past the limit); the row's decoded
    /// text is no longer than the row. The constant covers the inflater's
    /// and the pipe's buffers and the row's cells and text pieces: a row
    /// holds at most 16,384 cells with a value and 262,144 pieces of
    /// text, and elements nest at most 256 deep.
    /// `tests/row_memory.rs` measures the peak.
    ///
    /// In an `.xlsb` sheet or shared strings part, it bounds one record
    /// (its header and body, checked from the header before the record is
    /// read) and the records of one row together.
    pub max_row_bytes: u64,
    /// Largest ratio of inflated to compressed size of a part, checked once
    /// a part has inflated past [`Limits::ratio_threshold_bytes`].
    pub max_compression_ratio: u64,
    /// Inflated bytes after which the compression ratio is checked; small
    /// parts may compress arbitrarily well.
    pub ratio_threshold_bytes: u64,
    /// Largest number of shared strings.
    pub max_shared_strings: u64,
    /// Largest total size of the shared strings' text, in bytes.
    pub max_shared_string_bytes: u64,
    /// Largest number of bytes inflated from all parts of one workbook
    /// together, counted as they are read (by every reader and thread of
    /// one opened [`Workbook`](crate::Workbook); a sheet read twice counts
    /// twice). Past [`Limits::ratio_threshold_bytes`], these bytes are also
    /// held to [`Limits::max_compression_ratio`] times the file's size, so
    /// that many sheets sharing one part cannot turn a small file into
    /// hours of work.
    pub max_workbook_bytes: u64,
    /// Largest number of sheets a workbook may list.
    pub max_sheets: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_part_bytes: 16 << 30,
            max_metadata_part_bytes: 256 << 20,
            max_row_bytes: 256 << 20,
            max_compression_ratio: 1000,
            ratio_threshold_bytes: 64 << 20,
            max_shared_strings: 64 << 20,
            max_shared_string_bytes: 1 << 30,
            max_workbook_bytes: 64 << 30,
            max_sheets: 1 << 16,
        }
    }
}
