//! Fuzzes the sheet scanner and row reader over arbitrary worksheet XML.
//!
//! Input layout: the first byte picks the window (chunk) size, 1 to 64
//! bytes; the rest is the worksheet part's XML.
//!
//! Besides "never panic", this checks a differential property: the window
//! size is an implementation detail, so reading the same XML with a 1-byte
//! window, the fuzzed window and a 64 KiB window must give the same result:
//! the same cell count and digest when it succeeds, and an error for all
//! three, with the same kind and location, when it fails. The large window
//! is read again without the scanner's repeated cell shapes (its fastest
//! path, which needs 96 bytes ahead of a cell: never in a 1-byte window),
//! and must read the same.
//!
//! The one legitimate exception is a size limit: `read_sheet_xml` caps a row
//! at `max_row_bytes` (1 MiB), and when a unit hits that cap depends on how
//! far the window happened to be filled, so a row or run of text close to
//! the cap may pass with one window and fail with another. Inputs of 1 MiB
//! or more are therefore only checked for panics, not compared.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sheetstream::fuzzing::{read_sheet_xml, read_sheet_xml_with};

/// `max_row_bytes` in `read_sheet_xml`.
const ROW_LIMIT: usize = 1 << 20;
const LARGE_CHUNK: usize = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let Some((&first, xml)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(first % 64) + 1;
    let fuzzed = read_sheet_xml(xml, chunk);
    if let Err(err) = &fuzzed {
        // Display walks the location (column names and so on): must not panic.
        let _ = err.to_string();
    }
    if xml.len() >= ROW_LIMIT {
        return;
    }
    let tiny = read_sheet_xml(xml, 1);
    let large = read_sheet_xml(xml, LARGE_CHUNK);
    let unshaped = read_sheet_xml_with(xml, LARGE_CHUNK, false);
    let runs = [
        (1, &tiny),
        (chunk, &fuzzed),
        (LARGE_CHUNK, &large),
        (LARGE_CHUNK, &unshaped),
    ];
    for (size, result) in &runs[1..] {
        let (base_size, base) = runs[0];
        match (base, result) {
            (Ok(expected), Ok(got)) => assert!(
                expected == got,
                "chunk {base_size} and chunk {size} read different cells:\n\
                 --- chunk {base_size} ({} cells)\n{}\n--- chunk {size} ({} cells)\n{}",
                expected.0,
                expected.1,
                got.0,
                got.1
            ),
            (Err(expected), Err(got)) => assert!(
                expected.to_string() == got.to_string(),
                "chunk {base_size} and chunk {size} fail differently:\n  {expected}\n  {got}"
            ),
            (Ok((cells, _)), Err(err)) => {
                panic!("chunk {base_size} reads {cells} cells, chunk {size} fails: {err}")
            }
            (Err(err), Ok((cells, _))) => {
                panic!("chunk {base_size} fails: {err}; chunk {size} reads {cells} cells")
            }
        }
    }
});
