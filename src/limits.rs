//! Limits that keep hostile input from eating memory or time.

/// Size limits applied while reading a workbook.
///
/// The defaults read any workbook Excel itself can write and refuse the
/// obviously hostile (ZIP bombs, a single multi-gigabyte row, a shared
/// strings table larger than memory). Raise them for unusual files:
///
/// ```
/// let limits = sheetstream::Limits {
///     max_row_bytes: 1 << 30,
///     ..sheetstream::Limits::default()
/// };
/// # let _ = limits;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest inflated size of any part, in bytes. Sheets are streamed, so
    /// this bounds time, not memory.
    pub max_part_bytes: u64,
    /// Largest inflated size of a part that is held in memory whole (the
    /// workbook, its relationships, styles), in bytes.
    pub max_metadata_part_bytes: u64,
    /// Largest XML text of one row (or one shared string item), in bytes.
    /// Memory use while streaming is bounded by this.
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
        }
    }
}
