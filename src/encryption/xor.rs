//! XOR obfuscation of `.xls` (FILEPASS type 0, MS-OFFCRYPTO 2.3.7, method
//! 1): a 16-bit key and verifier from a password of at most 15
//! characters, a 16-byte XOR array from the key and the password, and
//! each byte of a record's body XORed with the array at its position and
//! rotated.
//!
//! This is obfuscation, not encryption: the tables below are the
//! scheme's published constants, and there is no cipher to take from a
//! crate.

/// The password's bytes as XOR obfuscation takes them: per UTF-16 unit
/// its low byte, or its high byte when the low one is 0 (MS-OFFCRYPTO
/// 2.3.7.4); None for an empty password or one of more than 15 units,
/// which the scheme cannot hold.
fn password_bytes(password: &str) -> Option<Vec<u8>> {
    let bytes: Vec<u8> = password
        .encode_utf16()
        .map(|unit| match unit.to_le_bytes() {
            [0, high] => high,
            [low, _] => low,
        })
        .collect();
    (1..=15).contains(&bytes.len()).then_some(bytes)
}

/// `InitialCode` (MS-OFFCRYPTO 2.3.7.2), by password length.
const INITIAL_CODE: [u16; 15] = [
    0xE1F0, 0x1D0F, 0xCC9C, 0x84C0, 0x110C, 0x0E10, 0xF1CE, 0x313E, 0x1872, 0xE139, 0xD40F, 0x84F9,
    0x280C, 0xA96A, 0x4EC3,
];

/// `XorMatrix` (MS-OFFCRYPTO 2.3.7.2): 7 entries per password character.
const XOR_MATRIX: [u16; 105] = [
    0xAEFC, 0x4DD9, 0x9BB2, 0x2745, 0x4E8A, 0x9D14, 0x2A09, 0x7B61, 0xF6C2, 0xFDA5, 0xEB6B, 0xC6F7,
    0x9DCF, 0x2BBF, 0x4563, 0x8AC6, 0x05AD, 0x0B5A, 0x16B4, 0x2D68, 0x5AD0, 0x0375, 0x06EA, 0x0DD4,
    0x1BA8, 0x3750, 0x6EA0, 0xDD40, 0xD849, 0xA0B3, 0x5147, 0xA28E, 0x553D, 0xAA7A, 0x44D5, 0x6F45,
    0xDE8A, 0xAD35, 0x4A4B, 0x9496, 0x390D, 0x721A, 0xEB23, 0xC667, 0x9CEF, 0x29FF, 0x53FE, 0xA7FC,
    0x5FD9, 0x47D3, 0x8FA6, 0x0F6D, 0x1EDA, 0x3DB4, 0x7B68, 0xF6D0, 0xB861, 0x60E3, 0xC1C6, 0x93AD,
    0x377B, 0x6EF6, 0xDDEC, 0x45A0, 0x8B40, 0x06A1, 0x0D42, 0x1A84, 0x3508, 0x6A10, 0xAA51, 0x4483,
    0x8906, 0x022D, 0x045A, 0x08B4, 0x1168, 0x76B4, 0xED68, 0xCAF1, 0x85C3, 0x1BA7, 0x374E, 0x6E9C,
    0x3730, 0x6E60, 0xDCC0, 0xA9A1, 0x4363, 0x86C6, 0x1DAD, 0x3331, 0x6662, 0xCCC4, 0x89A9, 0x0373,
    0x06E6, 0x0DCC, 0x1021, 0x2042, 0x4084, 0x8108, 0x1231, 0x2462, 0x48C4,
];

/// `PadArray` (MS-OFFCRYPTO 2.3.7.4): fills the XOR array past the
/// password.
const PAD_ARRAY: [u8; 15] = [
    0xBB, 0xFF, 0xFF, 0xBA, 0xFF, 0xFF, 0xB9, 0x80, 0x00, 0xBE, 0x0F, 0x00, 0xBF, 0x0F, 0x00,
];

/// `CreateXorKey_Method1`: the 16-bit key of a password.
fn key(password: &[u8]) -> u16 {
    let mut key = INITIAL_CODE[password.len() - 1];
    // The matrix is walked from its end, 7 entries per character, the
    // password from its last character.
    let mut element = XOR_MATRIX.len();
    for &byte in password.iter().rev() {
        let mut byte = byte;
        for _ in 0..7 {
            element -= 1;
            if byte & 0x40 != 0 {
                key ^= XOR_MATRIX[element];
            }
            byte <<= 1;
        }
    }
    key
}

/// `CreatePasswordVerifier_Method1`: the 16-bit verifier of a password.
fn verifier(password: &[u8]) -> u16 {
    let mut verifier: u16 = 0;
    // The characters from the last, then the length.
    let length = password.len() as u8;
    for &byte in password.iter().rev().chain(std::iter::once(&length)) {
        let carry = u16::from(verifier & 0x4000 != 0);
        verifier = (carry ^ ((verifier << 1) & 0x7FFF)) ^ u16::from(byte);
    }
    verifier ^ 0xCE4B
}

/// One entry of the XOR array: `value` XOR `key byte`, rotated right by 1.
fn entry(value: u8, key_byte: u8) -> u8 {
    (value ^ key_byte).rotate_right(1)
}

/// `CreateXorArray_Method1`: the 16 bytes a body is XORed with.
fn xor_array(password: &[u8], key: u16) -> [u8; 16] {
    let [low, high] = key.to_le_bytes();
    let mut array = [0u8; 16];
    let mut index = password.len();
    if index % 2 == 1 {
        array[index] = entry(PAD_ARRAY[0], high);
        index -= 1;
        array[index] = entry(password[password.len() - 1], low);
    }
    while index > 0 {
        index -= 1;
        array[index] = entry(password[index], high);
        index -= 1;
        array[index] = entry(password[index], low);
    }
    // The rest from the pad array, from the end, high and low bytes in
    // turn (an odd count of pad entries ends on a high byte).
    let mut index = 15;
    let mut pad = 15 - password.len();
    while pad > 0 {
        array[index] = entry(PAD_ARRAY[pad], high);
        pad -= 1;
        array[index - 1] = entry(PAD_ARRAY[pad], low);
        index -= 2;
        pad = pad.saturating_sub(1);
    }
    array
}

/// The XOR array of `password`, when its key and verifier are the
/// FILEPASS record's.
pub(crate) fn try_password(password: &str, file_key: u16, file_verifier: u16) -> Option<[u8; 16]> {
    let bytes = password_bytes(password)?;
    let key = key(&bytes);
    (key == file_key && verifier(&bytes) == file_verifier).then(|| xor_array(&bytes, key))
}

/// Deobfuscates `data`, the bytes of a record's body from `start` on:
/// byte `i` is XORed with the array at `(array_base + i) mod 16` and
/// rotated right by 5 bits. `array_base` is the body's stream offset plus
/// its length (MS-XLS 2.2.10: the array is indexed from the record's end).
pub(crate) fn deobfuscate(array: &[u8; 16], array_base: u64, data: &mut [u8]) {
    for (i, byte) in data.iter_mut().enumerate() {
        let index = (array_base.wrapping_add(i as u64) % 16) as usize;
        *byte = (*byte ^ array[index]).rotate_right(5);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_password_has_the_published_verifier() {
        // MS-OFFCRYPTO's example (and msoffcrypto-tool's doctest):
        // VelvetSweatshop verifies as 0x9A0A.
        let bytes = password_bytes("VelvetSweatshop").unwrap();
        assert_eq!(verifier(&bytes), 0x9A0A);
    }

    #[test]
    fn passwords_the_scheme_cannot_hold_never_verify() {
        assert!(password_bytes("").is_none());
        assert!(password_bytes(&"x".repeat(16)).is_none());
        assert_eq!(
            password_bytes("a\u{100}\u{141}").unwrap(),
            [b'a', 0x01, 0x41]
        );
    }

    #[test]
    fn the_array_is_filled_for_every_length() {
        for len in 1..=15 {
            let password: Vec<u8> = (0..len).map(|i| b'a' + i as u8).collect();
            let key = key(&password);
            let array = xor_array(&password, key);
            // Every position is written: none keeps its zero start unless
            // the entry itself is zero, which these inputs never give.
            assert!(array.iter().all(|&byte| byte != 0), "{len}: {array:?}");
        }
    }

    #[test]
    fn deobfuscation_indexes_the_array_from_the_record_end() {
        let array: [u8; 16] = std::array::from_fn(|i| i as u8 * 17);
        // Obfuscate as the writer does: rotate left 5, XOR the array.
        let plain = *b"hello, world";
        let base = 1000u64 + plain.len() as u64;
        let mut data = plain;
        for (i, byte) in data.iter_mut().enumerate() {
            *byte = byte.rotate_left(5) ^ array[((base + i as u64) % 16) as usize];
        }
        deobfuscate(&array, base, &mut data);
        assert_eq!(data, plain);
    }
}
