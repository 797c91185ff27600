//! Fuzzes the whole reader: arbitrary bytes opened as a workbook, then every
//! sheet streamed row by row until an error or its end. Checked:
//!
//! - nothing panics;
//! - a reader that returned an error yields no more rows (as
//!   `SheetRows::next_row` documents);
//! - no error is `ErrorKind::Io`: the input is in memory, so reading it
//!   cannot fail; a damaged archive is `ErrorKind::Zip` (or `NotZip`);
//! - the rows, values and error are the same on 1, 2, 4 and 16 threads as
//!   the pull reader gives (`fuzzing::read_on_every_thread_count`).
//!
//! Mutating a ZIP file byte by byte mostly breaks CRCs and offsets, so the
//! fuzzer would rarely get past the container into the package parts. The
//! custom mutator below therefore, half of the time, unpacks an input that
//! is a readable ZIP, mutates one entry (its content, usually, or its name,
//! or drops it) with libFuzzer's own mutator, and packs the archive again
//! with valid CRCs and sizes. The other half mutates the raw bytes, which
//! keeps the ZIP layer itself under test.
#![no_main]

use std::io::{Cursor, Read, Write};

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};
use sheetstream::fuzzing::read_on_every_thread_count;
use sheetstream::{Error, ErrorKind, SheetRows, Value, Workbook};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

fuzz_target!(|data: &[u8]| {
    let mut workbook = match Workbook::from_bytes(data) {
        Ok(workbook) => workbook,
        Err(err) => {
            check_error(&err);
            return;
        }
    };
    let _ = workbook.date_system();
    for sheet in workbook.sheets() {
        let _ = (sheet.name(), sheet.kind(), sheet.state(), sheet.part());
    }
    for position in 0..workbook.sheets().len() {
        match workbook.rows(position) {
            Ok(rows) => stream(rows.with_formulas(position % 2 == 0)),
            Err(err) => check_error(&err),
        }
    }
    // One answer on every thread count.
    read_on_every_thread_count(data);
    // After the rows, which parse the shared strings only as far as they
    // need them: the rest of the table.
    match workbook.shared_strings() {
        Ok(strings) => {
            for index in 0..=strings.len() {
                let _ = strings.get(index);
            }
            let _ = strings.text_bytes();
        }
        Err(err) => check_error(&err),
    }
    // The metadata readers: their own walks over the workbook, the sheet
    // parts (outside and inside `<sheetData>`), the comments and the
    // table parts (XML, or `.xlsb` records).
    if let Err(err) = workbook.defined_names() {
        check_error(&err);
    }
    if let Err(err) = workbook.tables() {
        check_error(&err);
    }
    for position in 0..workbook.sheets().len() {
        if let Err(err) = workbook.sheet_metadata(position) {
            check_error(&err);
        }
        if let Err(err) = workbook.sheet_dimension(position) {
            check_error(&err);
        }
        if let Err(err) = workbook.hidden_rows(position) {
            check_error(&err);
        }
    }
});

/// What every error must satisfy.
fn check_error(err: &Error) {
    // Display walks the location (column names and so on): must not panic.
    let _ = err.to_string();
    if let ErrorKind::Io(io_error) = err.kind() {
        panic!(
            "reading from memory failed with an I/O error ({:?}): {err}",
            io_error.kind()
        );
    }
}

/// Reads every row, touching every cell, until the end or an error.
fn stream(mut rows: SheetRows<'_>) {
    loop {
        match rows.next_row() {
            Ok(Some(row)) => {
                let _ = row.index();
                for cell in row.cells() {
                    let _ = cell.reference().to_string();
                    let _ = (cell.style(), cell.formula().map(str::len));
                    match cell.value() {
                        Value::DateTime(date) => {
                            if let Some(civil) = date.to_civil() {
                                let _ = civil.to_string();
                            }
                        }
                        Value::Text(text) | Value::Error(text) => {
                            let _ = text.len();
                        }
                        _ => {}
                    }
                }
            }
            Ok(None) => return,
            Err(err) => {
                check_error(&err);
                assert!(
                    matches!(rows.next_row(), Ok(None)),
                    "the reader yielded more after the error {err}"
                );
                return;
            }
        }
    }
}

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    if seed.is_multiple_of(2)
        && let Some(rebuilt) = mutate_inside_zip(&data[..size], max_size, seed / 2)
    {
        data[..rebuilt.len()].copy_from_slice(&rebuilt);
        return rebuilt.len();
    }
    fuzzer_mutate(data, size, max_size)
});

struct Entry {
    name: Vec<u8>,
    method: CompressionMethod,
    content: Vec<u8>,
}

/// Unpacks `input` as a ZIP, mutates one entry and packs it again. None
/// when `input` is not a ZIP every entry of which reads cleanly, or the
/// result does not fit in `max_size`.
fn mutate_inside_zip(input: &[u8], max_size: usize, seed: u32) -> Option<Vec<u8>> {
    let mut archive = ZipArchive::new(Cursor::new(input)).ok()?;
    if archive.is_empty() || archive.len() > 64 {
        return None;
    }
    let mut entries = Vec::with_capacity(archive.len());
    let mut budget = max_size.saturating_mul(8);
    for index in 0..archive.len() {
        let file = archive.by_index(index).ok()?;
        if file.encrypted() || file.size() > budget as u64 {
            return None;
        }
        budget -= file.size() as usize;
        let name = file.name_raw().to_vec();
        let method = match file.compression() {
            CompressionMethod::Stored => CompressionMethod::Stored,
            _ => CompressionMethod::Deflated,
        };
        let mut content = Vec::with_capacity(file.size() as usize);
        file.take(budget as u64 + 1)
            .read_to_end(&mut content)
            .ok()?;
        entries.push(Entry {
            name,
            method,
            content,
        });
    }
    let target = (seed as usize / 8) % entries.len();
    match seed % 8 {
        0 => {
            entries.remove(target);
        }
        1 => {
            let name = &mut entries[target].name;
            let len = name.len();
            name.resize(len + 16, 0);
            let new_len = fuzzer_mutate(name, len, len + 16);
            name.truncate(new_len);
        }
        _ => {
            let content = &mut entries[target].content;
            let len = content.len();
            let room = len + max_size.saturating_sub(input.len()).max(64);
            content.resize(room, 0);
            let new_len = fuzzer_mutate(content, len, room);
            content.truncate(new_len);
        }
    }
    let mut writer = ZipWriter::new(Cursor::new(Vec::with_capacity(max_size)));
    for entry in &entries {
        let options = SimpleFileOptions::default().compression_method(entry.method);
        writer
            .start_file(String::from_utf8_lossy(&entry.name), options)
            .ok()?;
        writer.write_all(&entry.content).ok()?;
    }
    let rebuilt = writer.finish().ok()?.into_inner();
    (rebuilt.len() <= max_size).then_some(rebuilt)
}
