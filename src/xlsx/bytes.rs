//! Byte searches over short distances: the scanner's and the shared
//! strings' inner loops look for a delimiter a few bytes ahead, where a
//! word at a time beats setting up a SIMD search.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The top bit of each byte of `word` equal to `byte` (and maybe of bytes
/// above such a byte: the lowest flag is exact, those above may not be).
#[inline(always)]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    let diff = word ^ (ONES * u64::from(byte));
    diff.wrapping_sub(ONES) & !diff & HIGH_BITS
}

/// [`find_byte`] for a byte expected within the next eight (the end of a
/// short value): that word is checked inline, the search called only past
/// it.
#[inline(always)]
pub(crate) fn find_byte_soon(input: &[u8], from: usize, byte: u8) -> Option<usize> {
    if let Some(&word) = input.get(from..).and_then(|rest| rest.first_chunk::<8>()) {
        let zeros = bytes_equal(u64::from_le_bytes(word), byte);
        if zeros != 0 {
            return Some(from + (zeros.trailing_zeros() / 8) as usize);
        }
        return find_byte(input, from + 8, byte);
    }
    find_byte(input, from, byte)
}

/// Finds `byte` at or after `from`. The distances inside a cell are short,
/// so the first 64 bytes are searched eight at a time in a plain word
/// (setting up a SIMD search costs more than it saves there); memchr beyond.
#[inline]
pub(crate) fn find_byte(input: &[u8], from: usize, byte: u8) -> Option<usize> {
    let near = input.len().min(from.saturating_add(64));
    let mut at = from;
    while let Some(&word) = input.get(at..near).and_then(|rest| rest.first_chunk::<8>()) {
        let zeros = bytes_equal(u64::from_le_bytes(word), byte);
        if zeros != 0 {
            return Some(at + (zeros.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    while at < near {
        if input[at] == byte {
            return Some(at);
        }
        at += 1;
    }
    memchr::memchr(byte, input.get(near..)?).map(|found| near + found)
}

/// Whether `text` is plain: ASCII without `&`, carriage returns or `_`, so
/// that it needs no XML decoding, no line-end normalisation and no
/// `_xHHHH_` unescaping, and is valid UTF-8 as it is.
#[inline]
pub(crate) fn is_plain_text(text: &[u8]) -> bool {
    let mut words = text.chunks_exact(8);
    let mut flags = 0;
    for word in words.by_ref() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        flags |= (word & HIGH_BITS)
            | bytes_equal(word, b'&')
            | bytes_equal(word, b'\r')
            | bytes_equal(word, b'_');
    }
    flags == 0
        && words
            .remainder()
            .iter()
            .all(|&byte| byte < 0x80 && !matches!(byte, b'&' | b'\r' | b'_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_byte_agrees_with_a_plain_search() {
        let haystack: Vec<u8> = (0..300u32).map(|i| (i * 7 % 13) as u8 + b'a').collect();
        for from in 0..haystack.len() {
            for byte in b'a'..=b'n' {
                let expected = haystack[from..]
                    .iter()
                    .position(|&b| b == byte)
                    .map(|p| from + p);
                assert_eq!(
                    find_byte(&haystack, from, byte),
                    expected,
                    "from {from} byte {byte}"
                );
                assert_eq!(
                    find_byte_soon(&haystack, from, byte),
                    expected,
                    "soon: from {from} byte {byte}"
                );
            }
        }
        assert_eq!(find_byte(b"abc", 3, b'a'), None);
        assert_eq!(find_byte_soon(b"abc", 3, b'a'), None);
        assert_eq!(find_byte_soon(b"abcdefghij<", 0, b'<'), Some(10));
    }

    #[test]
    fn plain_text_is_ascii_without_references_or_escapes() {
        for text in [
            "",
            "a",
            "item-0000001",
            "a much longer plain text, 40 bytes long!",
        ] {
            assert!(is_plain_text(text.as_bytes()), "{text:?}");
        }
        for special in ["&", "\r", "_", "é", "\u{80}"] {
            for at in [0, 3, 7, 8, 9, 15, 20] {
                let mut text = "x".repeat(21);
                text.insert_str(at, special);
                assert!(!is_plain_text(text.as_bytes()), "{text:?}");
            }
        }
    }
}
