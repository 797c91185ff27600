//! Fuzzes the OpenDocument content scanner, row reader and sheet list
//! over arbitrary `content.xml`.
//!
//! Input layout: the first byte picks the window (chunk) size, 1 to 64
//! bytes; the rest is the document.
//!
//! Besides "never panic", this checks two differential properties: the
//! window size is an implementation detail, so reading the same document
//! with a 1-byte window, the fuzzed window and a 64 KiB window must give
//! the same result; and the row scanner's fast path must read exactly as
//! its general path does (the same cells, or the same error at the same
//! place). As in `scan_sheet`, inputs of 1 MiB or more (the row limit of
//! `read_ods_xml`) are only checked for panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sheetstream::fuzzing::read_ods_xml;

/// `max_row_bytes` in `read_ods_xml`.
const ROW_LIMIT: usize = 1 << 20;
const LARGE_CHUNK: usize = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let Some((&first, xml)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(first % 64) + 1;
    let fuzzed = read_ods_xml(xml, chunk, true);
    if let Err(err) = &fuzzed {
        // Display walks the location (column names and so on): must not panic.
        let _ = err.to_string();
    }
    if xml.len() >= ROW_LIMIT {
        return;
    }
    let runs = [
        ("window 1, fast path", read_ods_xml(xml, 1, true)),
        ("fuzzed window, fast path", fuzzed),
        (
            "window 64 KiB, fast path",
            read_ods_xml(xml, LARGE_CHUNK, true),
        ),
        (
            "fuzzed window, general path",
            read_ods_xml(xml, chunk, false),
        ),
        (
            "window 64 KiB, general path",
            read_ods_xml(xml, LARGE_CHUNK, false),
        ),
    ];
    let (base_name, base) = &runs[0];
    for (name, result) in &runs[1..] {
        match (base, result) {
            (Ok(expected), Ok(got)) => assert!(
                expected == got,
                "{base_name} and {name} read different cells:\n--- {base_name} ({} cells)\n{}\n--- {name} ({} cells)\n{}",
                expected.0,
                expected.1,
                got.0,
                got.1
            ),
            (Err(expected), Err(got)) => assert!(
                expected.to_string() == got.to_string(),
                "{base_name} and {name} fail differently:\n  {expected}\n  {got}"
            ),
            (Ok((cells, _)), Err(err)) => {
                panic!("{base_name} reads {cells} cells, {name} fails: {err}")
            }
            (Err(err), Ok((cells, _))) => {
                panic!("{base_name} fails: {err}; {name} reads {cells} cells")
            }
        }
    }
});
