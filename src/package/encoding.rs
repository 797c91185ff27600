//! Text encodings other than UTF-8. XML allows UTF-16 parts; a few writers
//! produce them. They are detected by their byte order mark or by the
//! UTF-16 spelling of `<?` and transcoded to UTF-8 once.

/// Whether a part starting with `head` is UTF-16: `Some(true)` for big
/// endian, `Some(false)` for little endian, None for UTF-8.
pub(crate) fn utf16_byte_order(head: &[u8]) -> Option<bool> {
    match head {
        [0xFE, 0xFF, ..] | [0x00, b'<', 0x00, _, ..] => Some(true),
        [0xFF, 0xFE, ..] | [b'<', 0x00, _, 0x00, ..] => Some(false),
        _ => None,
    }
}

/// Transcodes UTF-16 bytes (a byte order mark is dropped) to UTF-8. Returns
/// None for an odd length; unpaired surrogates become U+FFFD.
pub(crate) fn utf16_to_utf8(bytes: &[u8], big_endian: bool) -> Option<String> {
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    let units = bytes.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    });
    let text: String = char::decode_utf16(units)
        .map(|unit| unit.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    Some(
        text.strip_prefix('\u{feff}')
            .map(str::to_owned)
            .unwrap_or(text),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_and_transcodes_both_byte_orders() {
        let big: Vec<u8> = "<?xml?><a>é😀</a>"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        let little: Vec<u8> = "\u{feff}<a>é</a>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(utf16_byte_order(&big), Some(true));
        assert_eq!(utf16_byte_order(&little), Some(false));
        assert_eq!(utf16_byte_order(b"<?xml"), None);
        assert_eq!(
            utf16_to_utf8(&big, true).as_deref(),
            Some("<?xml?><a>é😀</a>")
        );
        assert_eq!(utf16_to_utf8(&little, false).as_deref(), Some("<a>é</a>"));
        assert_eq!(utf16_to_utf8(&big[1..], true), None);
    }
}
