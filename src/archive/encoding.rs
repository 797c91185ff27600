//! Text encodings other than UTF-8. XML allows UTF-16 parts; a few writers
//! produce them. They are detected by their byte order mark or by the
//! UTF-16 spelling of `<?` and transcoded to UTF-8 once.
//!
//! An unpaired surrogate, or a part of an odd number of bytes, is an error at
//! its byte offset in the part.

/// Whether a part starting with `head` is UTF-16: `Some(true)` for big
/// endian, `Some(false)` for little endian, None for UTF-8.
pub(crate) fn utf16_byte_order(head: &[u8]) -> Option<bool> {
    match head {
        [0xFE, 0xFF, ..] | [0x00, b'<', 0x00, _, ..] => Some(true),
        [0xFF, 0xFE, ..] | [b'<', 0x00, _, 0x00, ..] => Some(false),
        _ => None,
    }
}

/// Why UTF-16 bytes are not text: what is wrong and at which byte offset
/// of the part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Utf16Error {
    pub message: &'static str,
    pub offset: usize,
}

/// Transcodes UTF-16 bytes (a byte order mark is dropped) to UTF-8. An odd
/// length and an unpaired surrogate (a high one not followed by a low one,
/// or a low one alone) are errors at their offset: XML text is characters,
/// and a lone surrogate is none.
pub(crate) fn utf16_to_utf8(bytes: &[u8], big_endian: bool) -> Result<String, Utf16Error> {
    if !bytes.len().is_multiple_of(2) {
        return Err(Utf16Error {
            message: "a UTF-16 part of an odd number of bytes",
            offset: bytes.len() - 1,
        });
    }
    let unit_at = |index: usize| {
        let pair = [bytes[2 * index], bytes[2 * index + 1]];
        if big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    };
    let units = bytes.len() / 2;
    let mut text = String::with_capacity(bytes.len());
    let mut index = 0;
    while index < units {
        let unit = unit_at(index);
        let ch = match unit {
            0xD800..=0xDBFF => match (index + 1 < units).then(|| unit_at(index + 1)) {
                Some(low @ 0xDC00..=0xDFFF) => {
                    index += 1;
                    let scalar =
                        0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    char::from_u32(scalar)
                }
                _ => None,
            },
            0xDC00..=0xDFFF => None,
            _ => char::from_u32(u32::from(unit)),
        };
        let Some(ch) = ch else {
            return Err(Utf16Error {
                message: "an unpaired UTF-16 surrogate",
                offset: 2 * index,
            });
        };
        text.push(ch);
        index += 1;
    }
    Ok(text
        .strip_prefix('\u{feff}')
        .map(str::to_owned)
        .unwrap_or(text))
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
            Ok("<?xml?><a>é😀</a>")
        );
        assert_eq!(utf16_to_utf8(&little, false).as_deref(), Ok("<a>é</a>"));
        assert_eq!(
            utf16_to_utf8(&big[1..], true).unwrap_err().offset,
            big.len() - 2
        );
    }

    #[test]
    fn refuses_unpaired_surrogates_at_their_offset() {
        let encode = |units: &[u16]| -> Vec<u8> {
            units.iter().flat_map(|unit| unit.to_le_bytes()).collect()
        };
        let a = u16::from(b'a');
        for (units, offset) in [
            (vec![a, 0xD800], 2),
            (vec![a, 0xD800, a], 2),
            (vec![a, a, 0xDC00, a], 4),
            (vec![0xD83D, 0xD83D, 0xDE00], 0),
        ] {
            let err = utf16_to_utf8(&encode(&units), false).unwrap_err();
            assert_eq!(err.message, "an unpaired UTF-16 surrogate");
            assert_eq!(err.offset, offset, "{units:?}");
        }
        assert_eq!(
            utf16_to_utf8(&encode(&[a, 0xD83D, 0xDE00]), false).as_deref(),
            Ok("a😀")
        );
    }
}
