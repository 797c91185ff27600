//! The one module with `unsafe` code (the crate denies it everywhere
//! else): ASCII bytes handed out as `str` without a second UTF-8 check.
//!
//! A value the readers already know to be ASCII, or can check a word at a
//! time, was checked again by `str::from_utf8`, whose byte-at-a-time loop
//! below two words cost more than the check (measured: `benches/results/
//! xls.md`, `read.md`). `ascii_str` is that check and the conversion; a
//! caller whose bytes are not ASCII takes the safe way (`from_utf8`, or a
//! character at a time), which the tests compare it with.
#![allow(unsafe_code)]

/// `bytes` as text when every byte is ASCII; None otherwise.
#[inline]
pub(crate) fn ascii_str(bytes: &[u8]) -> Option<&str> {
    if !bytes.is_ascii() {
        return None;
    }
    // SAFETY: every byte is below 0x80, and a sequence of such bytes is
    // valid UTF-8 (each is a one-byte character).
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
}

#[cfg(test)]
mod tests {
    use super::ascii_str;

    #[test]
    fn ascii_bytes_are_the_text_from_utf8_reads_and_others_are_refused() {
        let mut inputs: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"a".to_vec(),
            b"item-0000001".to_vec(),
            (0u8..0x80).collect(),
            "é".as_bytes().to_vec(),
            "東京".as_bytes().to_vec(),
            vec![0xFF],
            vec![0x80],
        ];
        // Every length to past two words, a byte beyond ASCII at every
        // place.
        for len in 0..40 {
            let ascii: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            for at in 0..len {
                let mut other = ascii.clone();
                other[at] |= 0x80;
                inputs.push(other);
            }
            inputs.push(ascii);
        }
        for bytes in &inputs {
            let expected = bytes
                .is_ascii()
                .then(|| std::str::from_utf8(bytes).unwrap());
            assert_eq!(ascii_str(bytes), expected, "{bytes:?}");
        }
    }
}
