//! Byte searches over short distances: the scanner's and the shared
//! strings' inner loops look for a delimiter a few bytes ahead, where a
//! word at a time beats setting up a SIMD search.
//!
//! `find_byte` and `find_byte_soon` (short distances, a word at a time), the
//! plain-text check (which also flags every byte below 0x20 at no extra cost),
//! the search for the control characters XML forbids, and the short-value
//! check of `Piece::needs_decoding`: shared by the scanner, the tokenizer and
//! the shared strings.

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

/// The top bit of each byte of `word` below 0x20, a control character
/// (the lowest flag is exact, those above may not be; a byte of 0x80 or
/// more is never flagged).
#[inline(always)]
fn bytes_below_space(word: u64) -> u64 {
    word.wrapping_sub(ONES * 0x20) & !word & HIGH_BITS
}

/// Whether `byte` is a character XML 1.0 does not allow in a document: a
/// C0 control other than tab, line feed and carriage return (NUL
/// included). Characters from 0x80 up are UTF-8's to check.
#[inline(always)]
pub(crate) fn is_forbidden_control(byte: u8) -> bool {
    byte < 0x20 && !matches!(byte, b'\t' | b'\n' | b'\r')
}

/// The position of the first character XML 1.0 does not allow (see
/// [`is_forbidden_control`]) in `text`, if any: a word at a time, each
/// byte of a word looked at only when the word has a control character
/// (tabs and line ends are common in markup between tags).
#[inline]
pub(crate) fn find_forbidden_control(text: &[u8]) -> Option<usize> {
    let mut words = text.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let bytes = u64::from_le_bytes(word.try_into().unwrap_or_default());
        if bytes_below_space(bytes) != 0
            && let Some(found) = word.iter().position(|&byte| is_forbidden_control(byte))
        {
            return Some(at + found);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&byte| is_forbidden_control(byte))
        .map(|found| at + found)
}

/// Whether `text` has a byte below 0x20 (a tab, a line end, or a control
/// character XML forbids), a word at a time.
#[inline]
pub(crate) fn has_byte_below_space(text: &[u8]) -> bool {
    let mut words = text.chunks_exact(8);
    let mut flags = 0;
    for word in words.by_ref() {
        flags |= bytes_below_space(u64::from_le_bytes(word.try_into().unwrap_or_default()));
    }
    flags != 0 || words.remainder().iter().any(|&byte| byte < 0x20)
}

/// Whether `input[start..end]`, a short piece of text (a cell value),
/// has a byte below 0x20 (a tab, a line end, or a control character XML
/// forbids), or `first` or `second` (pass 0 for none: a NUL is below 0x20
/// anyway). A word at a time, the last word read past `end` where the
/// input goes on (the bytes past `end` masked off), so that a value of a
/// few bytes costs one word, not a loop over its bytes.
#[inline]
pub(crate) fn has_special_byte(
    input: &[u8],
    start: usize,
    end: usize,
    first: u8,
    second: u8,
) -> bool {
    let special =
        |word: u64| bytes_below_space(word) | bytes_equal(word, first) | bytes_equal(word, second);
    let mut at = start;
    while at < end {
        let Some(&word) = input.get(at..).and_then(|rest| rest.first_chunk::<8>()) else {
            return input[at..end]
                .iter()
                .any(|&byte| byte < 0x20 || byte == first || byte == second);
        };
        let left = end - at;
        // Flags of bytes past `end` are masked off; a flag in a byte of
        // the text is exact or above an exact one (borrows run upwards).
        let mask = if left >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * left)) - 1
        };
        if special(u64::from_le_bytes(word)) & mask != 0 {
            return true;
        }
        at += 8;
    }
    false
}

/// Whether `text` is plain: ASCII without `&`, `_` or control characters
/// (tab and line ends included), so that it needs no XML decoding, no
/// line-end normalisation and no `_xHHHH_` unescaping, holds no character
/// XML forbids, and is valid UTF-8 as it is. (Flagging every byte below
/// 0x20 costs what flagging the carriage return alone did.)
#[inline]
pub(crate) fn is_plain_text(text: &[u8]) -> bool {
    text_without_markup::<false>(text)
}

/// Whether `text` stands as it is, as [`is_plain_text`] says, except that
/// bytes from 0x80 up are allowed: whether they are UTF-8 is for the
/// caller to check. (Of the characters XML forbids, those above 0x7F are
/// the surrogates, which are not UTF-8, and U+FFFE and U+FFFF, which the
/// general path hands out as they stand too.)
#[inline]
pub(crate) fn is_verbatim_text(text: &[u8]) -> bool {
    text_without_markup::<true>(text)
}

/// [`is_plain_text`], or [`is_verbatim_text`] with `HIGH_BYTES`.
#[inline(always)]
fn text_without_markup<const HIGH_BYTES: bool>(text: &[u8]) -> bool {
    let high_bits = if HIGH_BYTES { 0 } else { HIGH_BITS };
    let mut words = text.chunks_exact(8);
    let mut flags = 0;
    for word in words.by_ref() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        flags |= (word & high_bits)
            | bytes_equal(word, b'&')
            | bytes_below_space(word)
            | bytes_equal(word, b'_');
    }
    flags == 0
        && words.remainder().iter().all(|&byte| {
            byte >= 0x20 && (HIGH_BYTES || byte < 0x80) && !matches!(byte, b'&' | b'_')
        })
}

/// Whether every byte of `value` is printable ASCII (0x20 to 0x7E, and
/// DEL) other than `<`: an attribute value the sheet fast path may read
/// as it stands (anything else, the general path reads and reports).
#[inline]
pub(crate) fn is_plain_attribute_value(value: &[u8]) -> bool {
    let mut words = value.chunks_exact(8);
    let mut flags = 0;
    for word in words.by_ref() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        flags |= (word & HIGH_BITS) | bytes_below_space(word) | bytes_equal(word, b'<');
    }
    flags == 0
        && words
            .remainder()
            .iter()
            .all(|&byte| (0x20..0x80).contains(&byte) && byte != b'<')
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
        for special in ["&", "\r", "_", "é", "\u{80}", "\t", "\n", "\u{1b}", "\0"] {
            for at in [0, 3, 7, 8, 9, 15, 20] {
                let mut text = "x".repeat(21);
                text.insert_str(at, special);
                assert!(!is_plain_text(text.as_bytes()), "{text:?}");
            }
        }
    }

    #[test]
    fn verbatim_text_is_plain_text_with_any_byte_from_0x80() {
        for text in ["", "item-0000001", "münchen", "東京", "río \u{1F600}"] {
            assert!(is_verbatim_text(text.as_bytes()), "{text:?}");
        }
        // Not UTF-8, yet verbatim: the caller checks.
        assert!(is_verbatim_text(b"\xff\xfe abc \x80"));
        for special in ["&", "\r", "_", "\t", "\n", "\u{1b}", "\0"] {
            for at in [0, 3, 7, 8, 9, 15, 20] {
                let mut text = "é".repeat(11);
                text.insert_str(at & !1, special);
                assert!(!is_verbatim_text(text.as_bytes()), "{text:?}");
            }
        }
    }

    #[test]
    fn forbidden_controls_are_found_where_they_are() {
        assert_eq!(find_forbidden_control(b""), None);
        assert_eq!(find_forbidden_control(b"a\tb\nc\r\nd, a longer text"), None);
        for control in (0u8..0x20).filter(|b| !matches!(b, b'\t' | b'\n' | b'\r')) {
            for at in [0, 3, 7, 8, 9, 15, 16, 20] {
                let mut text = b"\t\n\r".repeat(7);
                text.insert(at, control);
                assert_eq!(
                    find_forbidden_control(&text),
                    Some(at),
                    "{control:#x} at {at}"
                );
                let mut value = b"x".repeat(21);
                value.insert(at, control);
                assert!(!is_plain_attribute_value(&value), "{control:#x} at {at}");
            }
        }
        for byte in 0x20u8..0x80 {
            assert_eq!(find_forbidden_control(&[byte; 9]), None);
            let plain = byte != b'<';
            assert_eq!(is_plain_attribute_value(&[byte; 9]), plain, "{byte:#x}");
            assert_eq!(is_plain_attribute_value(&[byte; 3]), plain, "{byte:#x}");
        }
        assert!(!is_plain_attribute_value("é".as_bytes()));
        // The short-text check agrees with a plain search, cut anywhere.
        let text = b"ab&c_d\te<f>gh\x01ij_klmnopq\rrstuvwxyz&";
        for start in 0..text.len() {
            for end in start..=text.len() {
                for (first, second) in [(b'&', b'_'), (b'&', 0), (0, b'_'), (0, 0)] {
                    let expected = text[start..end].iter().any(|&b| {
                        b < 0x20 || (first != 0 && b == first) || (second != 0 && b == second)
                    });
                    assert_eq!(
                        has_special_byte(text, start, end, first, second),
                        expected,
                        "{start}..{end} {first} {second}"
                    );
                }
            }
        }
        for length in [1, 7, 8, 9, 40] {
            for at in 0..length {
                let mut text = "é".repeat(length).into_bytes();
                assert!(!has_byte_below_space(&text));
                text[at] = b'\t';
                assert!(has_byte_below_space(&text), "{length} {at}");
            }
        }
        assert!(is_plain_attribute_value(b""));
    }
}
