//! Fuzzes the `.xls` reader over whole files: the compound file, the
//! globals (SST and CONTINUE records, formats, sheet list) and every
//! sheet's records, each read to its end or to an error, in parallel too,
//! and the metadata. Checked: nothing panics, a reader that failed yields
//! no more rows, and no error is an I/O error (the input is in memory).
//!
//! The first byte chooses: even, the rest is a `Workbook` stream, wrapped
//! in a valid compound file (so that mutations reach the BIFF records);
//! odd, the rest is the whole file (so that the compound file's header,
//! FAT and directory are fuzzed too).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sheetstream::fuzzing::{read_whole_workbook, xls_from_stream};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        read_whole_workbook(&xls_from_stream(rest));
    } else {
        read_whole_workbook(rest);
    }
});
