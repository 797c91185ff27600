//! Fuzzes the `.xls` reader over whole files: the compound file, the
//! globals (SST and CONTINUE records, formats, sheet list) and every
//! sheet's records, each read to its end or to an error, in parallel too,
//! and the metadata. Checked: nothing panics, a reader that failed yields
//! no more rows, no error is an I/O error (the input is in memory), and
//! every sheet reads the same with no column selection and with every
//! column selected (the common cells' one-length-check path against the
//! field-by-field one), and the same rows, values and error on 1, 2, 4 and
//! 16 threads as the pull reader gives (sheets read in blocks from 4).
//!
//! The first byte chooses: even, the rest is a `Workbook` stream, wrapped
//! in a valid compound file (so that mutations reach the BIFF records);
//! odd, the rest is the whole file (so that the compound file's header,
//! FAT and directory are fuzzed too).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sheetstream::fuzzing::{
    read_both_ways, read_on_every_thread_count, read_whole_workbook, xls_from_stream,
};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode % 2 == 0 {
        xls_from_stream(rest)
    } else {
        rest.to_vec()
    };
    read_whole_workbook(&file);
    read_both_ways(&file);
    read_on_every_thread_count(&file);
});
