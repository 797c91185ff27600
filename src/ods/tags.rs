//! The row scanner's fast path: tags read with a handful of comparisons
//! each, for the shapes every writer produces (`ContentScanner::fast_row`
//! in `scan.rs`).
//!
//! Read this first: the general tokenizer (`xml::next_token`) checks
//! every byte of every token as it goes, which in a row of `.ods` cells
//! (a hundred bytes of markup for each value) cost more than everything
//! else together. These functions read a start tag's name and attributes
//! and an end tag's name without looking at each byte twice, and refuse
//! ([`Fast::Fallback`]) anything they do not handle exactly as the
//! general tokenizer would: a name that does not start as XML names do,
//! attributes not separated by whitespace, whitespace around `=`, a `<` in
//! an attribute value, comments, CDATA and processing instructions. The
//! row scanner then reads the row again the general way, which reports
//! what is wrong where it is. The characters XML forbids are looked for
//! once over the whole row, by the caller, instead of token by token.

use crate::xml::Span;

/// What the fast path made of some input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fast<T> {
    Done(T),
    /// The input ends first.
    Incomplete,
    /// Something the fast path leaves to the general one.
    Fallback,
}

#[inline(always)]
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// Whether `byte` may start a name (as `xml.rs` has it).
#[inline(always)]
pub(crate) fn is_name_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || matches!(byte, b'_' | b':') || byte >= 0x80
}

/// The bytes that may continue a name: a name start, a digit, `-`, `.`
/// (one load a byte instead of a chain of comparisons).
static NAME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] =
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'-' | b'.') || b >= 0x80;
        byte += 1;
    }
    table
};

/// Whether `byte` may continue a name.
#[inline(always)]
pub(crate) fn is_name_byte(byte: u8) -> bool {
    NAME_BYTES[usize::from(byte)]
}

/// The end of the name that starts at `from` (its first byte checked by
/// the caller).
#[inline(always)]
pub(crate) fn name_end(input: &[u8], from: usize) -> usize {
    let mut at = from + 1;
    while let Some(&byte) = input.get(at) {
        if !NAME_BYTES[usize::from(byte)] {
            break;
        }
        at += 1;
    }
    at
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The top bit of each byte of `word` equal to `byte` (the lowest flag is
/// exact, those above it may not be).
#[inline(always)]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    let diff = word ^ (ONES * u64::from(byte));
    diff.wrapping_sub(ONES) & !diff & HIGH_BITS
}

/// The first `quote` or `<` at or after `from`: the end of an attribute
/// value, or a `<` in it (which the general path refuses). Values are
/// short: a word at a time for the first 64 bytes, memchr beyond.
#[inline(always)]
fn value_end(input: &[u8], from: usize, quote: u8) -> Option<usize> {
    let near = input.len().min(from + 64);
    let mut at = from;
    while let Some(&word) = input.get(at..near).and_then(|rest| rest.first_chunk::<8>()) {
        let word = u64::from_le_bytes(word);
        let flags = bytes_equal(word, quote) | bytes_equal(word, b'<');
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    while at < near {
        if input[at] == quote || input[at] == b'<' {
            return Some(at);
        }
        at += 1;
    }
    memchr::memchr2(quote, b'<', input.get(near..)?).map(|found| near + found)
}

/// The rest of a start tag read by [`attributes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StartTag {
    pub self_closing: bool,
    /// The position after the tag.
    pub next: usize,
}

/// What the caller of [`attributes`] made of an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen {
    /// A name the caller knows (and so a well-formed one).
    Known,
    /// Another name: checked here, byte by byte.
    Unknown,
    /// Give the tag to the general path.
    Refused,
}

/// The first `=` at or after `from`: the end of an attribute's name in
/// the shapes the fast path reads (a word at a time; names are short).
#[inline(always)]
fn equals_at(input: &[u8], from: usize) -> Option<usize> {
    let near = input.len().min(from + 64);
    let mut at = from;
    while let Some(&word) = input.get(at..near).and_then(|rest| rest.first_chunk::<8>()) {
        let flags = bytes_equal(u64::from_le_bytes(word), b'=');
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    while at < near {
        if input[at] == b'=' {
            return Some(at);
        }
        at += 1;
    }
    memchr::memchr(b'=', input.get(near..)?).map(|found| near + found)
}

/// Reads the attributes of a start tag whose name ends at `from`, to its
/// `>` or `/>`, calling `attribute` with each attribute's name and raw
/// value as it goes. An attribute's name is taken to end at the next `=`
/// and checked only when `attribute` does not know it (a name it knows is
/// well-formed).
#[inline(always)]
pub(crate) fn attributes(
    input: &[u8],
    from: usize,
    mut attribute: impl FnMut(&[u8], Span) -> Seen,
) -> Fast<StartTag> {
    let mut pos = from;
    loop {
        let Some(&byte) = input.get(pos) else {
            return Fast::Incomplete;
        };
        if is_space(byte) {
            pos += 1;
            while input.get(pos).is_some_and(|&byte| is_space(byte)) {
                pos += 1;
            }
            let Some(&byte) = input.get(pos) else {
                return Fast::Incomplete;
            };
            if is_name_start(byte) {
                // An attribute: name, `=`, a quoted value without `<`.
                let Some(key_end) = equals_at(input, pos) else {
                    return Fast::Incomplete;
                };
                let Some(&quote) = input.get(key_end + 1) else {
                    return Fast::Incomplete;
                };
                if !(quote == b'"' || quote == b'\'') {
                    return Fast::Fallback;
                }
                let value_start = key_end + 2;
                let Some(close) = value_end(input, value_start, quote) else {
                    return Fast::Incomplete;
                };
                if input[close] != quote {
                    return Fast::Fallback;
                }
                match attribute(&input[pos..key_end], Span::new(value_start, close)) {
                    Seen::Known => {}
                    Seen::Unknown if name_end(input, pos) == key_end => {}
                    Seen::Unknown | Seen::Refused => return Fast::Fallback,
                }
                pos = close + 1;
                continue;
            }
        }
        let Some(&byte) = input.get(pos) else {
            return Fast::Incomplete;
        };
        return match byte {
            b'>' => Fast::Done(StartTag {
                self_closing: false,
                next: pos + 1,
            }),
            b'/' => match input.get(pos + 1) {
                Some(b'>') => Fast::Done(StartTag {
                    self_closing: true,
                    next: pos + 2,
                }),
                Some(_) => Fast::Fallback,
                None => Fast::Incomplete,
            },
            _ => Fast::Fallback,
        };
    }
}

/// Reads the end tag at `at` (`input[at..]` starts with `</`): its name
/// and the position after it.
#[inline(always)]
pub(crate) fn end_tag(input: &[u8], at: usize) -> Fast<(Span, usize)> {
    let Some(&first) = input.get(at + 2) else {
        return Fast::Incomplete;
    };
    if !is_name_start(first) {
        return Fast::Fallback;
    }
    let name = Span::new(at + 2, name_end(input, at + 2));
    let mut pos = name.end;
    loop {
        match input.get(pos) {
            None => return Fast::Incomplete,
            Some(b'>') => return Fast::Done((name, pos + 1)),
            Some(&byte) if is_space(byte) => pos += 1,
            Some(_) => return Fast::Fallback,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(xml: &str) -> (Fast<StartTag>, Vec<(String, String)>) {
        let mut found_attributes = Vec::new();
        let found = attributes(
            xml.as_bytes(),
            name_end(xml.as_bytes(), 1),
            |name, value| {
                found_attributes.push((
                    String::from_utf8_lossy(name).into_owned(),
                    String::from_utf8_lossy(value.of(xml.as_bytes())).into_owned(),
                ));
                Seen::Unknown
            },
        );
        (found, found_attributes)
    }

    #[test]
    fn start_tags_read_as_the_general_tokenizer_reads_them() {
        let (found, attributes) =
            tag(r#"<table:table-cell office:value-type="float"  x='1 > 0'/>tail"#);
        let Fast::Done(found) = found else {
            panic!("{found:?}")
        };
        assert!(found.self_closing);
        assert_eq!(
            &r#"<table:table-cell office:value-type="float"  x='1 > 0'/>tail"#[found.next..],
            "tail"
        );
        assert_eq!(
            attributes,
            [
                ("office:value-type".to_owned(), "float".to_owned()),
                ("x".to_owned(), "1 > 0".to_owned())
            ]
        );
        assert_eq!(
            tag("<a>").0,
            Fast::Done(StartTag {
                self_closing: false,
                next: 3
            })
        );
        // Left to the general path: no whitespace between attributes,
        // whitespace around `=`, a `<` in a value, a stray byte.
        for odd in [
            r#"<a b="1"c="2">"#,
            r#"<a b = "1">"#,
            r#"<a b="<">"#,
            r#"<a b c="1">"#,
            r#"<a b%="1">"#,
            "<a/ >",
            "<a %>",
        ] {
            assert_eq!(tag(odd).0, Fast::Fallback, "{odd}");
        }
        for cut in [r#"<a b="1"#, "<a b", "<a b>", "<a", "<a /", r#"<a b="1" "#] {
            assert_eq!(tag(cut).0, Fast::Incomplete, "{cut}");
        }
    }

    #[test]
    fn a_value_ends_at_its_quote_or_a_less_than_sign() {
        for length in [0, 1, 7, 8, 9, 63, 64, 65, 200] {
            let value = "v".repeat(length);
            let input = format!(r#"a="{value}" b"#);
            assert_eq!(value_end(input.as_bytes(), 3, b'"'), Some(3 + length));
            let input = format!("a='{value}<'");
            assert_eq!(value_end(input.as_bytes(), 3, b'\''), Some(3 + length));
            assert_eq!(value_end(value.as_bytes(), 0, b'"'), None);
        }
        for byte in 0..=255u8 {
            let expected = byte.is_ascii_alphanumeric()
                || matches!(byte, b'_' | b':' | b'-' | b'.')
                || byte >= 0x80;
            assert_eq!(NAME_BYTES[usize::from(byte)], expected, "{byte}");
        }
    }

    #[test]
    fn end_tags_allow_whitespace_before_their_close() {
        assert_eq!(end_tag(b"</a:b >x", 0), Fast::Done((Span::new(2, 5), 7)));
        assert_eq!(end_tag(b"</a:b", 0), Fast::Incomplete);
        assert_eq!(end_tag(b"</a x>", 0), Fast::Fallback);
        assert_eq!(end_tag(b"</>", 0), Fast::Fallback);
    }
}
