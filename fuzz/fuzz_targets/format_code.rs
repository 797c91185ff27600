//! Fuzzes the number-format renderer: the input, as UTF-8 (lossily), is a
//! format code, parsed and rendered with a set of numbers (every sign and
//! size, date serials, `f64::MAX`), in both date systems, and with text.
//! Format codes come from the file, so they are hostile input. Checked
//! (by `sheetstream::fuzzing::render_format_code`):
//!
//! - nothing panics;
//! - every text is bounded by the code's length (four bytes a byte of
//!   code, plus room for an `f64`'s digits).
//!
//! The first eight bytes, when there are that many, also give one more
//! number to render.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (number, code) = match data.split_first_chunk::<8>() {
        Some((bytes, rest)) => (vec![f64::from_le_bytes(*bytes)], rest),
        None => (Vec::new(), data),
    };
    let code = String::from_utf8_lossy(code);
    sheetstream::fuzzing::render_format_code(&code, &number);
});
