//! The owned Arrow reader (`SheetBatchReader`) holds at most three batches
//! at once: two waiting in its channel and one being built, or built and
//! being handed over. The builders of the batch after it get their room
//! only when its first row comes, not while the worker thread waits to
//! hand the last one over (that room was a fourth batch, the fifth with
//! the consumer's: 12 MiB of a Spark Python worker's live heap at its
//! peak reading a 1,048,575 x 25 sheet in batches of 65,536 rows).
//!
//! This test binary installs a counting global allocator that tracks the
//! bytes live at once, so it holds this one test only: another test on
//! another thread would add its own allocations to the peak.

mod common;

use common::*;
use sheetstream::Workbook;
use sheetstream::arrow::ArrowOptions;

#[path = "../benches/support/counting_allocator.rs"]
mod counting_allocator;

use counting_allocator::live_bytes;

const BATCH_ROWS: usize = 65_536;
const BATCHES: usize = 2;
const COLUMNS: usize = 6;

/// A header and `BATCH_ROWS * BATCHES` rows of `COLUMNS` numbers.
fn numbers_workbook() -> Vec<u8> {
    let letters = ["A", "B", "C", "D", "E", "F"];
    let mut rows = String::from(r#"<row r="1">"#);
    for letter in letters {
        rows.push_str(&format!(
            r#"<c r="{letter}1" t="inlineStr"><is><t>{letter}</t></is></c>"#
        ));
    }
    rows.push_str("</row>");
    rows.push_str(&number_rows(2..=BATCH_ROWS * BATCHES + 1, COLUMNS));
    book().sheet("Data", sheet_xml(&rows)).build()
}

#[test]
fn a_taken_batch_leaves_no_room_for_the_next_until_its_first_row() {
    let mut workbook = Workbook::from_bytes(numbers_workbook()).unwrap();
    // On the caller's thread: no other thread allocates while it reads.
    let mut batches = ArrowOptions::new()
        .batch_size(BATCH_ROWS)
        .read_sheet(&mut workbook, "Data")
        .unwrap();
    let first = batches.next_batch().unwrap().unwrap();
    assert_eq!(first.num_rows(), BATCH_ROWS);
    let batch_bytes = first.get_array_memory_size() as u64;
    // The values (8 bytes each, no nulls) and the arrays' own structs.
    let values = (BATCH_ROWS * COLUMNS * 8) as u64;
    assert!(
        (values..values + 4096).contains(&batch_bytes),
        "{batch_bytes}"
    );
    drop(first);
    // Between two batches the reader holds its row reader's buffers and
    // the row that found the batch full, and no room for the next batch
    // (with the room made when a batch is taken, an owned reader's
    // worker, blocked handing that batch over, held a fourth batch).
    let between = live_bytes();
    let second = batches.next_batch().unwrap().unwrap();
    assert_eq!(second.num_rows(), BATCH_ROWS);
    drop(second);
    assert!(batches.next_batch().unwrap().is_none());
    drop(batches);
    let held = between.saturating_sub(live_bytes());
    // About 1.1 MB here (the inflater's buffers, the row reader's); 4.3 MB
    // with the room made at once.
    assert!(
        held < batch_bytes / 2,
        "the reader held {held} bytes between batches of {batch_bytes}"
    );
}
