//! The primitives the schemes share, over RustCrypto's crates: the hash
//! algorithms an encrypted file may name (chosen at run time from what the
//! file says), their HMACs, AES with a key of any of its three sizes in
//! CBC and ECB, and the small steps MS-OFFCRYPTO's key derivations repeat
//! (a password as UTF-16LE, a value cut or padded to a size).
//!
//! Nothing here is a cipher or a hash of our own: every transformation is
//! a call into `aes`, `cbc`, `ecb`, `md-5`, `sha1`, `sha2` or `hmac`.

use aes::cipher::array::Array;
use aes::cipher::common::InnerInit;
use aes::cipher::{BlockModeDecrypt, InnerIvInit, KeyInit};
use hmac::{Hmac, Mac};
use md5::Md5;
use sha1::Sha1;
use sha2::digest::Digest;
use sha2::{Sha256, Sha384, Sha512};

/// A hash algorithm an encryption header names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashAlgorithm {
    /// MD5 (16 bytes).
    Md5,
    /// SHA-1 (20 bytes).
    Sha1,
    /// SHA-256 (32 bytes).
    Sha256,
    /// SHA-384 (48 bytes).
    Sha384,
    /// SHA-512 (64 bytes).
    Sha512,
}

/// The longest digest of [`HashAlgorithm`] (SHA-512's).
pub(crate) const MAX_HASH_SIZE: usize = 64;

/// A digest, on the stack: its bytes and its length.
#[derive(Clone, Copy)]
pub(crate) struct HashValue {
    bytes: [u8; MAX_HASH_SIZE],
    len: usize,
}

impl HashValue {
    fn of(bytes: &[u8]) -> HashValue {
        let mut value = HashValue {
            bytes: [0; MAX_HASH_SIZE],
            len: bytes.len(),
        };
        value.bytes[..bytes.len()].copy_from_slice(bytes);
        value
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl HashAlgorithm {
    /// The algorithm an Agile header's `hashAlgorithm` names (the names of
    /// MS-OFFCRYPTO 2.3.4.10); None for one this reader does not know.
    pub(crate) fn from_agile_name(name: &[u8]) -> Option<HashAlgorithm> {
        Some(match name {
            b"MD5" => HashAlgorithm::Md5,
            b"SHA1" | b"SHA-1" => HashAlgorithm::Sha1,
            b"SHA256" | b"SHA-256" => HashAlgorithm::Sha256,
            b"SHA384" | b"SHA-384" => HashAlgorithm::Sha384,
            b"SHA512" | b"SHA-512" => HashAlgorithm::Sha512,
            _ => return None,
        })
    }

    /// The name messages use: `SHA-512`.
    pub fn name(self) -> &'static str {
        match self {
            HashAlgorithm::Md5 => "MD5",
            HashAlgorithm::Sha1 => "SHA-1",
            HashAlgorithm::Sha256 => "SHA-256",
            HashAlgorithm::Sha384 => "SHA-384",
            HashAlgorithm::Sha512 => "SHA-512",
        }
    }

    /// The digest's size in bytes.
    pub fn size(self) -> usize {
        match self {
            HashAlgorithm::Md5 => 16,
            HashAlgorithm::Sha1 => 20,
            HashAlgorithm::Sha256 => 32,
            HashAlgorithm::Sha384 => 48,
            HashAlgorithm::Sha512 => 64,
        }
    }

    /// The digest of `parts`, one after another.
    pub(crate) fn hash(self, parts: &[&[u8]]) -> HashValue {
        fn with<D: Digest>(parts: &[&[u8]]) -> HashValue {
            let mut digest = D::new();
            for part in parts {
                digest.update(part);
            }
            HashValue::of(&digest.finalize())
        }
        match self {
            HashAlgorithm::Md5 => with::<Md5>(parts),
            HashAlgorithm::Sha1 => with::<Sha1>(parts),
            HashAlgorithm::Sha256 => with::<Sha256>(parts),
            HashAlgorithm::Sha384 => with::<Sha384>(parts),
            HashAlgorithm::Sha512 => with::<Sha512>(parts),
        }
    }

    /// MS-OFFCRYPTO's password hash: H₀ = Hash(salt ‖ UTF-16LE(password)),
    /// then `rounds` times Hᵢ₊₁ = Hash(LE32(i) ‖ Hᵢ). The loop is
    /// monomorphised per algorithm: no dispatch per round.
    pub(crate) fn password_hash(self, salt: &[u8], password: &str, rounds: u32) -> HashValue {
        fn with<D: Digest>(salt: &[u8], password: &str, rounds: u32) -> HashValue {
            let mut digest = D::new();
            digest.update(salt);
            for unit in password.encode_utf16() {
                digest.update(unit.to_le_bytes());
            }
            let mut value = digest.finalize();
            for round in 0..rounds {
                let mut digest = D::new();
                digest.update(round.to_le_bytes());
                digest.update(&value);
                digest.finalize_into(&mut value);
            }
            HashValue::of(&value)
        }
        match self {
            HashAlgorithm::Md5 => with::<Md5>(salt, password, rounds),
            HashAlgorithm::Sha1 => with::<Sha1>(salt, password, rounds),
            HashAlgorithm::Sha256 => with::<Sha256>(salt, password, rounds),
            HashAlgorithm::Sha384 => with::<Sha384>(salt, password, rounds),
            HashAlgorithm::Sha512 => with::<Sha512>(salt, password, rounds),
        }
    }

    /// An HMAC under `key` with this hash, to feed in pieces.
    pub(crate) fn hmac(self, key: &[u8]) -> Hmacs {
        match self {
            HashAlgorithm::Md5 => Hmacs::Md5(keyed(key)),
            HashAlgorithm::Sha1 => Hmacs::Sha1(keyed(key)),
            HashAlgorithm::Sha256 => Hmacs::Sha256(keyed(key)),
            HashAlgorithm::Sha384 => Hmacs::Sha384(keyed(key)),
            HashAlgorithm::Sha512 => Hmacs::Sha512(keyed(key)),
        }
    }
}

/// An HMAC under `key`: HMAC takes keys of every length (a longer one is
/// hashed first), so this cannot fail.
fn keyed<M: Mac + KeyInit>(key: &[u8]) -> M {
    <M as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of every length"))
}

/// An HMAC in progress, of the hash a header names.
#[derive(Clone)]
pub(crate) enum Hmacs {
    Md5(Hmac<Md5>),
    Sha1(Hmac<Sha1>),
    Sha256(Hmac<Sha256>),
    Sha384(Hmac<Sha384>),
    Sha512(Hmac<Sha512>),
}

impl Hmacs {
    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Hmacs::Md5(mac) => mac.update(data),
            Hmacs::Sha1(mac) => mac.update(data),
            Hmacs::Sha256(mac) => mac.update(data),
            Hmacs::Sha384(mac) => mac.update(data),
            Hmacs::Sha512(mac) => mac.update(data),
        }
    }

    /// Whether the HMAC equals `expected` (compared in constant time).
    pub(crate) fn verify(self, expected: &[u8]) -> bool {
        match self {
            Hmacs::Md5(mac) => mac.verify_slice(expected).is_ok(),
            Hmacs::Sha1(mac) => mac.verify_slice(expected).is_ok(),
            Hmacs::Sha256(mac) => mac.verify_slice(expected).is_ok(),
            Hmacs::Sha384(mac) => mac.verify_slice(expected).is_ok(),
            Hmacs::Sha512(mac) => mac.verify_slice(expected).is_ok(),
        }
    }
}

/// AES's block size in bytes.
pub(crate) const AES_BLOCK: usize = 16;

/// An AES key schedule of any of the three key sizes.
#[derive(Clone)]
pub(crate) enum Aes {
    Aes128(aes::Aes128),
    Aes192(aes::Aes192),
    Aes256(aes::Aes256),
}

impl Aes {
    /// The key schedule of a 16-, 24- or 32-byte key; None for another
    /// length.
    pub(crate) fn new(key: &[u8]) -> Option<Aes> {
        Some(match key.len() {
            16 => Aes::Aes128(aes::Aes128::new_from_slice(key).ok()?),
            24 => Aes::Aes192(aes::Aes192::new_from_slice(key).ok()?),
            32 => Aes::Aes256(aes::Aes256::new_from_slice(key).ok()?),
            _ => return None,
        })
    }

    /// Decrypts `data` in place in CBC mode from `iv`. Only whole blocks
    /// are decrypted: a partial block at the end is left as it is (the
    /// callers hand whole blocks).
    pub(crate) fn decrypt_cbc(&self, iv: &[u8; AES_BLOCK], data: &mut [u8]) {
        let iv = Array::from(*iv);
        let (blocks, _) = Array::slice_as_chunks_mut(data);
        match self {
            Aes::Aes128(key) => cbc::Decryptor::inner_iv_init(key, &iv).decrypt_blocks(blocks),
            Aes::Aes192(key) => cbc::Decryptor::inner_iv_init(key, &iv).decrypt_blocks(blocks),
            Aes::Aes256(key) => cbc::Decryptor::inner_iv_init(key, &iv).decrypt_blocks(blocks),
        }
    }

    /// Decrypts `data` in place in ECB mode (whole blocks only, as
    /// [`decrypt_cbc`](Self::decrypt_cbc)).
    pub(crate) fn decrypt_ecb(&self, data: &mut [u8]) {
        let (blocks, _) = Array::slice_as_chunks_mut(data);
        match self {
            Aes::Aes128(key) => ecb::Decryptor::inner_init(key).decrypt_blocks(blocks),
            Aes::Aes192(key) => ecb::Decryptor::inner_init(key).decrypt_blocks(blocks),
            Aes::Aes256(key) => ecb::Decryptor::inner_init(key).decrypt_blocks(blocks),
        }
    }
}

/// `value` cut to `size` bytes, or padded to it with `pad` (MS-OFFCRYPTO
/// 2.3.4.11 pads a derived key with 0x36, an IV likewise).
pub(crate) fn fit(value: &[u8], size: usize, pad: u8, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&value[..value.len().min(size)]);
    out.resize(size, pad);
}

/// An IV of AES's block size: `value` cut to 16 bytes or padded with 0x36.
pub(crate) fn aes_iv(value: &[u8]) -> [u8; AES_BLOCK] {
    let mut iv = [0x36; AES_BLOCK];
    let used = value.len().min(AES_BLOCK);
    iv[..used].copy_from_slice(&value[..used]);
    iv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    #[test]
    fn hashes_match_their_published_test_vectors() {
        // FIPS 180 / RFC 1321 vectors for "abc".
        let abc: &[&[u8]] = &[b"a", b"bc"];
        assert_eq!(
            hex(HashAlgorithm::Md5.hash(abc).as_slice()),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hex(HashAlgorithm::Sha1.hash(abc).as_slice()),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(HashAlgorithm::Sha256.hash(abc).as_slice()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        for algorithm in [
            HashAlgorithm::Md5,
            HashAlgorithm::Sha1,
            HashAlgorithm::Sha256,
            HashAlgorithm::Sha384,
            HashAlgorithm::Sha512,
        ] {
            assert_eq!(algorithm.hash(abc).as_slice().len(), algorithm.size());
        }
    }

    #[test]
    fn the_password_hash_spins_over_the_round_number_and_the_last_value() {
        // Zero rounds: the hash of the salt and the UTF-16LE password.
        let h0 = HashAlgorithm::Sha1.password_hash(b"salt", "pé", 0);
        let direct = HashAlgorithm::Sha1.hash(&[b"salt", &[b'p', 0, 0xE9, 0]]);
        assert_eq!(h0.as_slice(), direct.as_slice());
        // Two rounds, spelt out.
        let h1 = HashAlgorithm::Sha1.hash(&[&0u32.to_le_bytes(), h0.as_slice()]);
        let h2 = HashAlgorithm::Sha1.hash(&[&1u32.to_le_bytes(), h1.as_slice()]);
        let spun = HashAlgorithm::Sha1.password_hash(b"salt", "pé", 2);
        assert_eq!(spun.as_slice(), h2.as_slice());
    }

    #[test]
    fn aes_decrypts_the_fips_197_vector_in_ecb_and_cbc() {
        // FIPS-197 appendix C.1: AES-128.
        let key: Vec<u8> = (0u8..16).collect();
        let cipher = [
            0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
            0xc5, 0x5a,
        ];
        let plain: Vec<u8> = (0u8..16).map(|i| i * 0x11).collect();
        let aes = Aes::new(&key).unwrap();
        let mut data = cipher;
        aes.decrypt_ecb(&mut data);
        assert_eq!(data.to_vec(), plain);
        // CBC with an IV: the plain block XOR the IV.
        let iv = [0xFF; 16];
        let mut data = cipher;
        aes.decrypt_cbc(&iv, &mut data);
        let expected: Vec<u8> = plain.iter().map(|byte| byte ^ 0xFF).collect();
        assert_eq!(data.to_vec(), expected);
        assert!(Aes::new(&[0; 15]).is_none());
        assert!(Aes::new(&[0; 24]).is_some() && Aes::new(&[0; 32]).is_some());
    }

    #[test]
    fn values_fit_by_cutting_or_padding() {
        let mut out = Vec::new();
        fit(&[1, 2, 3], 2, 0x36, &mut out);
        assert_eq!(out, [1, 2]);
        fit(&[1, 2, 3], 5, 0x36, &mut out);
        assert_eq!(out, [1, 2, 3, 0x36, 0x36]);
        assert_eq!(aes_iv(&[7; 20]), [7; 16]);
        assert_eq!(aes_iv(&[7; 8])[8..], [0x36; 8]);
    }
}
