//! Fuzzes the `.xlsb` record stream and row reader over arbitrary sheet
//! part bytes (BIFF12 records).
//!
//! Input layout: the first byte picks the window (chunk) size, 1 to 64
//! bytes; the rest is the worksheet part.
//!
//! Besides "never panic", this checks a differential property: the window
//! size is an implementation detail, so reading the same records with a
//! 1-byte window, the fuzzed window and a 64 KiB window must give the same
//! result: the same cell count and digest when it succeeds, and an error
//! for all three, with the same kind and location, when it fails. Unlike
//! the XML scanner's, the record reader's limits do not depend on the
//! window (a record's size is checked from its header, a row's from its
//! records), so every input is compared. The 1-byte window reads each
//! cell record through the record loop, the large one reads runs of the
//! common cells in one pass (`plain_cells`): the comparison covers both.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sheetstream::fuzzing::read_sheet_xlsb;

const LARGE_CHUNK: usize = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(first % 64) + 1;
    let fuzzed = read_sheet_xlsb(bytes, chunk);
    if let Err(err) = &fuzzed {
        let _ = err.to_string();
    }
    let tiny = read_sheet_xlsb(bytes, 1);
    let large = read_sheet_xlsb(bytes, LARGE_CHUNK);
    let runs = [(1, &tiny), (chunk, &fuzzed), (LARGE_CHUNK, &large)];
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
