//! The two RC4 schemes of `.xls` (MS-OFFCRYPTO 2.3.6 and 2.3.5): "Office
//! 97/2000 compatible" RC4 (FILEPASS version 1.1, MD5 keys of 40 bits)
//! and RC4 CryptoAPI (versions 2.2, 3.2, 4.2, SHA-1 keys of 40 to 128
//! bits), and a key stream positioned by stream offset.
//!
//! Both re-key every 1024 bytes of stream position: the key of block `b`
//! is derived from the password hash and `b`, and the key stream of a
//! byte at offset `p` is byte `p mod 1024` of block `⌊p / 1024⌋`'s RC4.
//! RC4 cannot seek, so [`KeyStream`] keeps the cipher of the block it is
//! in and where it stands: bytes asked for in stream order cost only
//! their key stream, a jump back or to another block costs one re-key
//! and up to 1023 discarded bytes.

use md5::{Digest, Md5};
use rc4::{KeyInit, Rc4, StreamCipher};
use sha1::Sha1;

/// The stream bytes one RC4 key covers.
pub(crate) const REKEY_BLOCK: u64 = 1024;

/// How block keys are made from the password.
#[derive(Clone)]
pub(crate) enum BlockKeys {
    /// RC4 1.1: the 5-byte hash of the password and salt; block key =
    /// MD5(it ‖ LE32(block)).
    Office97 { truncated: [u8; 5] },
    /// RC4 CryptoAPI: H₀ = SHA-1(salt ‖ password); block key =
    /// SHA-1(H₀ ‖ LE32(block)) cut to the key size (40-bit keys padded
    /// with 11 zero bytes to 128 bits).
    CryptoApi { hash: [u8; 20], key_bytes: usize },
}

/// UTF-16LE units of a password, as both schemes hash it.
fn utf16le(password: &str) -> impl Iterator<Item = [u8; 2]> + '_ {
    password.encode_utf16().map(u16::to_le_bytes)
}

impl BlockKeys {
    /// RC4 1.1's keys from a password and the FILEPASS salt.
    pub(crate) fn office97(password: &str, salt: &[u8; 16]) -> BlockKeys {
        let mut digest = Md5::new();
        for unit in utf16le(password) {
            digest.update(unit);
        }
        let h0 = digest.finalize();
        let mut digest = Md5::new();
        for _ in 0..16 {
            digest.update(&h0[..5]);
            digest.update(salt);
        }
        let h1 = digest.finalize();
        let mut truncated = [0u8; 5];
        truncated.copy_from_slice(&h1[..5]);
        BlockKeys::Office97 { truncated }
    }

    /// RC4 CryptoAPI's keys from a password, the salt and the key size in
    /// bits (40 to 128, checked by the caller).
    pub(crate) fn crypto_api(password: &str, salt: &[u8; 16], key_bits: u32) -> BlockKeys {
        let mut digest = Sha1::new();
        digest.update(salt);
        for unit in utf16le(password) {
            digest.update(unit);
        }
        let mut hash = [0u8; 20];
        hash.copy_from_slice(&digest.finalize());
        BlockKeys::CryptoApi {
            hash,
            key_bytes: key_bits as usize / 8,
        }
    }

    /// The RC4 cipher of one block, at the block's first byte.
    pub(crate) fn cipher(&self, block: u32) -> Rc4 {
        let mut key = [0u8; 16];
        let len = match self {
            BlockKeys::Office97 { truncated } => {
                let hash = Md5::new()
                    .chain_update(truncated)
                    .chain_update(block.to_le_bytes())
                    .finalize();
                key.copy_from_slice(&hash);
                16
            }
            BlockKeys::CryptoApi { hash, key_bytes } => {
                let block_hash = Sha1::new()
                    .chain_update(hash)
                    .chain_update(block.to_le_bytes())
                    .finalize();
                // A 40-bit key is 5 bytes of hash and 11 zero bytes.
                let used = (*key_bytes).min(16);
                key[..used].copy_from_slice(&block_hash[..used]);
                if *key_bytes == 5 { 16 } else { used }
            }
        };
        // RC4 takes keys of 1 to 256 bytes; these are 5 to 16.
        Rc4::new_from_slice(&key[..len]).unwrap_or_else(|_| unreachable!("RC4 key of {len} bytes"))
    }
}

/// The key stream of a workbook stream, positioned by offset.
pub(crate) struct KeyStream {
    keys: BlockKeys,
    /// The block the cipher is in, the offset of its next byte, and the
    /// cipher.
    at: Option<(u64, u64, Rc4)>,
    /// Scratch for [`take_buffer`](Self::take_buffer).
    buffer: Vec<u8>,
}

impl Clone for KeyStream {
    /// The same key stream, its cipher re-keyed on the first use.
    fn clone(&self) -> KeyStream {
        KeyStream::new(self.keys.clone())
    }
}

impl KeyStream {
    pub(crate) fn new(keys: BlockKeys) -> KeyStream {
        KeyStream {
            keys,
            at: None,
            buffer: Vec::new(),
        }
    }

    /// A scratch buffer kept with the key stream (for the bytes a span's
    /// decryption puts back); give it back with
    /// [`return_buffer`](Self::return_buffer).
    pub(crate) fn take_buffer(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buffer)
    }

    /// The buffer [`take_buffer`](Self::take_buffer) handed out, for the
    /// next call.
    pub(crate) fn return_buffer(&mut self, buffer: Vec<u8>) {
        self.buffer = buffer;
    }

    /// XORs the key stream from stream offset `offset` on into `data`.
    pub(crate) fn apply(&mut self, mut offset: u64, mut data: &mut [u8]) {
        while !data.is_empty() {
            let block = offset / REKEY_BLOCK;
            let reuse =
                matches!(&self.at, Some((held, next, _)) if *held == block && *next <= offset);
            if !reuse {
                // Block numbers past 2^32 wrap, as the 32-bit field they
                // are hashed as (a stream is far shorter).
                let cipher = self.keys.cipher(block as u32);
                self.at = Some((block, block * REKEY_BLOCK, cipher));
            }
            let Some((_, next, cipher)) = &mut self.at else {
                return;
            };
            // Discard the key stream up to `offset` within the block.
            let mut skip = (offset - *next) as usize;
            if skip > 0 {
                let mut scratch = [0u8; 256];
                while skip > 0 {
                    let step = skip.min(scratch.len());
                    cipher.apply_keystream(&mut scratch[..step]);
                    skip -= step;
                }
            }
            let room = ((block + 1) * REKEY_BLOCK - offset) as usize;
            let count = room.min(data.len());
            let (now, rest) = data.split_at_mut(count);
            cipher.apply_keystream(now);
            offset += count as u64;
            *next = offset;
            data = rest;
        }
    }

    /// Whether the verifier and its hash (encrypted with block 0's key, one
    /// after the other) match under these keys: `hash` of the decrypted
    /// verifier equals the decrypted hash.
    pub(crate) fn verifies(
        &self,
        verifier: &[u8; 16],
        verifier_hash: &[u8],
        hash: impl Fn(&[u8]) -> Vec<u8>,
    ) -> bool {
        let mut cipher = self.keys.cipher(0);
        let mut verifier = *verifier;
        cipher.apply_keystream(&mut verifier);
        let mut expected = verifier_hash.to_vec();
        cipher.apply_keystream(&mut expected);
        hash(&verifier) == expected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rc4_1_1_keys_verify_the_published_example() {
        // msoffcrypto-tool's doctest for MS-OFFCRYPTO's RC4 verifier
        // ("password1").
        let salt = [
            0xe8, 0x77, 0x2c, 0x1d, 0x91, 0xc5, 0x6a, 0x37, 0x96, 0x47, 0x61, 0xb2, 0x80, 0x18,
            0x32, 0x17,
        ];
        let verifier = [
            0xc9, 0xe9, 0x97, 0xd4, 0x54, 0x97, 0x3d, 0x31, 0x0b, 0xb1, 0xba, 0x70, 0x14, 0x26,
            0x83, 0x7e,
        ];
        let hash = [
            0xb1, 0xde, 0x17, 0x8f, 0x07, 0xe9, 0x89, 0xc4, 0x4d, 0xae, 0x5e, 0x4c, 0xf9, 0x6a,
            0xc4, 0x07,
        ];
        let md5 = |data: &[u8]| Md5::digest(data).to_vec();
        let right = KeyStream::new(BlockKeys::office97("password1", &salt));
        assert!(right.verifies(&verifier, &hash, md5));
        let wrong = KeyStream::new(BlockKeys::office97("Password1", &salt));
        assert!(!wrong.verifies(&verifier, &hash, md5));
    }

    #[test]
    fn the_key_stream_is_the_same_in_order_and_by_jumps() {
        let keys = BlockKeys::crypto_api("pw", &[3; 16], 128);
        // In order, one byte at a time, over three blocks.
        let mut ordered = vec![0u8; 3000];
        let mut stream = KeyStream::new(keys.clone());
        for (offset, byte) in ordered.iter_mut().enumerate() {
            stream.apply(offset as u64, std::slice::from_mut(byte));
        }
        // Each block from its own RC4.
        let mut expected = vec![0u8; 3000];
        for (block, chunk) in expected.chunks_mut(1024).enumerate() {
            keys.cipher(block as u32).apply_keystream(chunk);
        }
        assert_eq!(ordered, expected);
        // Jumps back and forth, spans across block boundaries.
        let mut stream = KeyStream::new(keys);
        for (start, len) in [(2000, 900), (5, 20), (1000, 100), (1023, 1), (0, 3000)] {
            let mut data = vec![0u8; len];
            stream.apply(start as u64, &mut data);
            assert_eq!(data, expected[start..start + len], "{start}+{len}");
        }
    }

    #[test]
    fn a_40_bit_crypto_api_key_is_padded_to_128_bits() {
        let keys = BlockKeys::crypto_api("pw", &[1; 16], 40);
        let BlockKeys::CryptoApi { hash, .. } = &keys else {
            unreachable!()
        };
        let block = Sha1::new()
            .chain_update(hash)
            .chain_update(0u32.to_le_bytes())
            .finalize();
        let mut key = [0u8; 16];
        key[..5].copy_from_slice(&block[..5]);
        let mut expected = [0u8; 32];
        Rc4::new_from_slice(&key)
            .unwrap()
            .apply_keystream(&mut expected);
        let mut actual = [0u8; 32];
        keys.cipher(0).apply_keystream(&mut actual);
        assert_eq!(actual, expected);
    }
}
