//! ECMA-376 Standard encryption (`EncryptionInfo` versions 2.2, 3.2 and
//! 4.2, MS-OFFCRYPTO 2.3.4.5-2.3.4.9), what Excel 2007 writes: a binary
//! header (AES-128, -192 or -256 by `algID`), a SHA-1 key derivation over
//! 50,000 rounds, a verifier, and the package in AES-ECB. There is no
//! integrity check in this scheme.
//!
//! Every field of the header is checked before use: the header's size
//! against the stream, the key size against the algorithm, the salt and
//! verifier sizes against the ones the scheme fixes. RC4 under a
//! Standard header (the `algID` of RC4) and an external (Extensible)
//! provider are refused by name.

use sha1::{Digest, Sha1};

use crate::error::Result;

use super::primitives::{Aes, HashAlgorithm};
use super::{damaged, unsupported};

/// The rounds of Standard encryption's key derivation, fixed by the scheme.
pub(crate) const SPIN_COUNT: u32 = 50_000;

/// `fCryptoAPI`: the header is a CryptoAPI one.
const F_CRYPTO_API: u32 = 0x04;
/// `fExternal`: an extensible (third-party) provider encrypted it.
const F_EXTERNAL: u32 = 0x10;
/// `fAES`: the cipher is AES.
const F_AES: u32 = 0x20;

/// A parsed Standard header: the key size and the verifier.
#[derive(Debug, Clone)]
pub struct StandardInfo {
    key_bits: u32,
    salt: [u8; 16],
    verifier: [u8; 16],
    verifier_hash: [u8; 32],
}

/// What a password opens: the AES key of the package.
#[derive(Clone)]
pub(crate) struct StandardKey {
    pub(crate) aes: Aes,
}

fn u32_at(bytes: &[u8], at: usize, what: &str) -> Result<u32> {
    bytes
        .get(at..at + 4)
        .map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
        .ok_or_else(|| {
            damaged(format!(
                "the Standard EncryptionInfo stream ends inside its {what} (at byte {at} of {})",
                bytes.len()
            ))
        })
}

impl StandardInfo {
    /// Parses a whole `EncryptionInfo` stream of version x.2: version,
    /// flags, the header's size, the header, then the verifier.
    pub(crate) fn parse(bytes: &[u8]) -> Result<StandardInfo> {
        let flags = u32_at(bytes, 4, "flags")?;
        let header_size = u32_at(bytes, 8, "header size")? as usize;
        let header_start = 12;
        // Eight 32-bit fields, then the CSP name.
        if header_size < 32 || header_size > bytes.len() - header_start {
            return Err(damaged(format!(
                "the Standard encryption header claims {header_size} bytes, and the stream \
                 holds {} after its first 12 (a header is at least 32)",
                bytes.len() - header_start
            )));
        }
        let header = &bytes[header_start..header_start + header_size];
        let header_flags = u32_at(header, 0, "header flags")?;
        let alg_id = u32_at(header, 8, "algID")?;
        let alg_id_hash = u32_at(header, 12, "algIDHash")?;
        let key_bits = u32_at(header, 16, "keySize")?;
        if (flags | header_flags) & F_EXTERNAL != 0 {
            return Err(unsupported(
                "Extensible encryption (a Standard header whose fExternal flag is set)",
            ));
        }
        let expected_bits = match alg_id {
            0x660E => 128,
            0x660F => 192,
            0x6610 => 256,
            // No algID: AES-128 when the flags say AES.
            0 if flags & F_AES != 0 => 128,
            0x6801 | 0 => {
                return Err(unsupported(
                    "Standard encryption with RC4 (CryptoAPI), which Office writes for \
                     Word and PowerPoint files only",
                ));
            }
            other => {
                return Err(unsupported(format!(
                    "Standard encryption with the CryptoAPI algorithm 0x{other:04X} (only \
                     AES is read)"
                )));
            }
        };
        if flags & F_CRYPTO_API == 0 || flags & F_AES == 0 {
            return Err(damaged(format!(
                "the Standard header's flags 0x{flags:02X} do not say CryptoAPI AES"
            )));
        }
        if !matches!(alg_id_hash, 0 | 0x8004) {
            return Err(unsupported(format!(
                "Standard encryption with the hash algorithm 0x{alg_id_hash:04X} (only \
                 SHA-1 is read)"
            )));
        }
        if key_bits != expected_bits {
            return Err(damaged(format!(
                "the Standard header's keySize {key_bits} does not match its cipher, \
                 AES-{expected_bits}"
            )));
        }
        let verifier = &bytes[header_start + header_size..];
        let salt_size = u32_at(verifier, 0, "verifier's salt size")?;
        if salt_size != 16 {
            return Err(damaged(format!(
                "the Standard verifier's salt size is {salt_size}, not 16"
            )));
        }
        let hash_size = u32_at(verifier, 36, "verifier hash size")?;
        if hash_size != 20 {
            return Err(damaged(format!(
                "the Standard verifier's hash size is {hash_size}, not 20 (SHA-1)"
            )));
        }
        let Some(verifier_hash) = verifier.get(40..72) else {
            return Err(damaged(format!(
                "the Standard EncryptionInfo stream ends inside its verifier ({} of 72 bytes)",
                verifier.len()
            )));
        };
        let mut info = StandardInfo {
            key_bits,
            salt: [0; 16],
            verifier: [0; 16],
            verifier_hash: [0; 32],
        };
        info.salt.copy_from_slice(&verifier[4..20]);
        info.verifier.copy_from_slice(&verifier[20..36]);
        info.verifier_hash.copy_from_slice(verifier_hash);
        Ok(info)
    }

    /// `Standard AES-128`.
    pub(crate) fn scheme(&self) -> String {
        format!("Standard AES-{}", self.key_bits)
    }

    /// The key `password` opens, if the verifier accepts it.
    pub(crate) fn try_password(&self, password: &str) -> Option<StandardKey> {
        let spun = HashAlgorithm::Sha1.password_hash(&self.salt, password, SPIN_COUNT);
        let final_hash = Sha1::new()
            .chain_update(spun.as_slice())
            .chain_update(0u32.to_le_bytes())
            .finalize();
        // MS-OFFCRYPTO 2.3.4.7: the hash XORed into 64 bytes of 0x36 and of
        // 0x5C, each hashed; the key is the start of the two digests.
        let derive = |fill: u8| {
            let mut buffer = [fill; 64];
            for (byte, hash) in buffer.iter_mut().zip(final_hash.iter()) {
                *byte ^= hash;
            }
            Sha1::digest(buffer)
        };
        let mut derived = [0u8; 40];
        derived[..20].copy_from_slice(&derive(0x36));
        derived[20..].copy_from_slice(&derive(0x5C));
        let aes = Aes::new(&derived[..self.key_bits as usize / 8])?;
        let mut verifier = self.verifier;
        aes.decrypt_ecb(&mut verifier);
        let mut expected = self.verifier_hash;
        aes.decrypt_ecb(&mut expected);
        (Sha1::digest(verifier)[..] == expected[..20]).then_some(StandardKey { aes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    /// A Standard header: version 4.2, AES-`bits`.
    fn header(alg_id: u32, bits: u32, tail: usize) -> Vec<u8> {
        let mut bytes = vec![4, 0, 2, 0];
        bytes.extend_from_slice(&0x24u32.to_le_bytes());
        let csp = "Microsoft Enhanced RSA and AES Cryptographic Provider\0"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect::<Vec<u8>>();
        bytes.extend_from_slice(&(32 + csp.len() as u32).to_le_bytes());
        for word in [0x24, 0, alg_id, 0x8004, bits, 0x18, 0, 0] {
            bytes.extend_from_slice(&u32::to_le_bytes(word));
        }
        bytes.extend_from_slice(&csp);
        bytes.extend_from_slice(&16u32.to_le_bytes());
        bytes.extend_from_slice(&[1; 32]);
        bytes.extend_from_slice(&20u32.to_le_bytes());
        bytes.extend_from_slice(&[2; 32]);
        bytes.truncate(bytes.len() - tail);
        bytes
    }

    #[test]
    fn a_header_parses_and_names_its_key_size() {
        let info = StandardInfo::parse(&header(0x660F, 192, 0)).unwrap();
        assert_eq!(info.scheme(), "Standard AES-192");
        assert!(info.try_password("x").is_none());
    }

    #[test]
    fn headers_that_lie_or_are_cut_short_are_refused() {
        let err = StandardInfo::parse(&header(0x660E, 256, 0)).unwrap_err();
        assert!(err.to_string().contains("keySize 256"), "{err}");
        for tail in [1, 32, 60, 72] {
            let err = StandardInfo::parse(&header(0x660E, 128, tail)).unwrap_err();
            assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
        }
        let mut huge = header(0x660E, 128, 0);
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = StandardInfo::parse(&huge).unwrap_err();
        assert!(err.to_string().contains("claims 4294967295 bytes"), "{err}");
        let err = StandardInfo::parse(&header(0x6801, 128, 0)).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
            "{err}"
        );
    }
}
