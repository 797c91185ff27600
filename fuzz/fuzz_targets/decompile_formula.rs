//! Fuzzes the ptg decompiler (`.xlsb` and `.xls` formula tokens): the
//! input is a token stream, decompiled in both layouts and from two
//! cells (`sheetstream::fuzzing::decompile_formula`). Checked: nothing
//! panics, an error leaves the output buffer as it was, and a text stays
//! within the decompiler's bound.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    sheetstream::fuzzing::decompile_formula(data);
});
