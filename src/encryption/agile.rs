//! ECMA-376 Agile encryption (`EncryptionInfo` version 4.4, MS-OFFCRYPTO
//! 2.3.4.10-2.3.4.14): the XML header, the password key derivation over
//! `spinCount` hash rounds, the verifier, the intermediate key that
//! encrypts the package, each 4096-byte segment's IV, and the
//! `dataIntegrity` HMAC's key and value.
//!
//! The header is parsed with the project's XML tokenizer (no XML
//! library). Every size it gives is checked against what it holds (a
//! `saltSize` that lies, an encrypted value shorter than the hash it
//! holds) before anything is decrypted; AES in CBC is the one cipher read
//! (with MD5, SHA-1, SHA-256, SHA-384 or SHA-512), and DES, 3DES, RC2, CFB
//! chaining or a header with only a certificate key encryptor are refused
//! by name.

use crate::error::Result;

use super::primitives::{AES_BLOCK, Aes, HashAlgorithm, aes_iv, fit};
use super::{XmlEvent, attributes, base64, damaged, decimal, unsupported, walk_elements};

/// The highest `spinCount` read: the schema's maximum (`ST_SpinCount` in
/// MS-OFFCRYPTO's `encryptionInfo.xsd`), so that every header the schema
/// allows is read. A try costs one hash per round, twice at most (the
/// default password, then the given one); a count above it (a crafted
/// 10^9 would take minutes) is refused before any hashing, as Apache POI 6
/// refuses counts over its maximum.
pub const MAX_SPIN_COUNT: u32 = 10_000_000;

/// The block key of the verifier input (MS-OFFCRYPTO 2.3.4.13).
const VERIFIER_INPUT_BLOCK: [u8; 8] = [0xfe, 0xa7, 0xd2, 0x76, 0x3b, 0x4b, 0x9e, 0x79];
/// The block key of the verifier hash.
const VERIFIER_HASH_BLOCK: [u8; 8] = [0xd7, 0xaa, 0x0f, 0x6d, 0x30, 0x61, 0x34, 0x4e];
/// The block key of the encrypted intermediate key.
const KEY_VALUE_BLOCK: [u8; 8] = [0x14, 0x6e, 0x0b, 0xe7, 0xab, 0xac, 0xd0, 0xd6];
/// The block key of the IV that encrypts the HMAC key (2.3.4.14).
const HMAC_KEY_BLOCK: [u8; 8] = [0x5f, 0xb2, 0xad, 0x01, 0x0c, 0xb9, 0xe1, 0xf6];
/// The block key of the IV that encrypts the HMAC value.
const HMAC_VALUE_BLOCK: [u8; 8] = [0xa0, 0x67, 0x7f, 0x02, 0xb2, 0x2c, 0x84, 0x33];

/// The password key encryptor's namespace, its `keyEncryptor`'s `uri`.
const PASSWORD_URI: &str = "http://schemas.microsoft.com/office/2006/keyEncryptor/password";

/// The cipher parameters an element of the header gives (`keyData`, the
/// password's `encryptedKey`).
#[derive(Debug, Clone)]
struct Cipher {
    salt: Vec<u8>,
    key_bytes: usize,
    hash: HashAlgorithm,
}

/// A parsed Agile header.
#[derive(Debug, Clone)]
pub struct AgileInfo {
    /// `keyData`: how the package is encrypted.
    data: Cipher,
    /// `dataIntegrity`: the encrypted HMAC key and value, when present.
    integrity: Option<(Vec<u8>, Vec<u8>)>,
    /// The password `encryptedKey`: how the intermediate key is encrypted.
    password: Cipher,
    spin_count: u32,
    verifier_input: Vec<u8>,
    verifier_hash: Vec<u8>,
    key_value: Vec<u8>,
}

/// What a password opens: the intermediate key, and what the package's
/// segments and HMAC need.
#[derive(Clone)]
pub(crate) struct AgileKey {
    aes: Aes,
    hash: HashAlgorithm,
    salt: Vec<u8>,
    /// The decrypted HMAC key and value, on `hashSize` bytes.
    pub(crate) integrity: Option<(Vec<u8>, Vec<u8>)>,
}

/// The attributes of one cipher-describing element, as read.
#[derive(Default)]
struct Raw {
    salt_size: Option<u64>,
    block_size: Option<u64>,
    key_bits: Option<u64>,
    hash_size: Option<u64>,
    cipher: Option<String>,
    chaining: Option<String>,
    hash: Option<String>,
    salt: Option<Vec<u8>>,
    spin_count: Option<u64>,
    verifier_input: Option<Vec<u8>>,
    verifier_hash: Option<Vec<u8>>,
    key_value: Option<Vec<u8>>,
}

impl Raw {
    fn read(input: &[u8], span: crate::xml::Span, element: &str) -> Result<Raw> {
        let mut raw = Raw::default();
        for attribute in attributes(input, span) {
            let (name, value) = attribute?;
            let what = |field: &str| format!("{element} {field}");
            match name {
                b"saltSize" => raw.salt_size = Some(decimal(&value, &what("saltSize"))?),
                b"blockSize" => raw.block_size = Some(decimal(&value, &what("blockSize"))?),
                b"keyBits" => raw.key_bits = Some(decimal(&value, &what("keyBits"))?),
                b"hashSize" => raw.hash_size = Some(decimal(&value, &what("hashSize"))?),
                b"spinCount" => raw.spin_count = Some(decimal(&value, &what("spinCount"))?),
                b"cipherAlgorithm" => raw.cipher = Some(value.into_owned()),
                b"cipherChaining" => raw.chaining = Some(value.into_owned()),
                b"hashAlgorithm" => raw.hash = Some(value.into_owned()),
                b"saltValue" => raw.salt = Some(base64(&value, &what("saltValue"))?),
                b"encryptedVerifierHashInput" => {
                    raw.verifier_input = Some(base64(&value, &what("encryptedVerifierHashInput"))?);
                }
                b"encryptedVerifierHashValue" => {
                    raw.verifier_hash = Some(base64(&value, &what("encryptedVerifierHashValue"))?);
                }
                b"encryptedKeyValue" => {
                    raw.key_value = Some(base64(&value, &what("encryptedKeyValue"))?);
                }
                _ => {}
            }
        }
        Ok(raw)
    }

    /// The cipher these attributes describe, checked: AES in CBC with a
    /// hash this reader knows, every size consistent with what it sizes.
    fn cipher(&self, element: &str) -> Result<Cipher> {
        let missing = |field: &str| damaged(format!("the {element} has no {field}"));
        let cipher = self
            .cipher
            .as_deref()
            .ok_or_else(|| missing("cipherAlgorithm"))?;
        let hash_name = self
            .hash
            .as_deref()
            .ok_or_else(|| missing("hashAlgorithm"))?;
        let key_bits = self.key_bits.ok_or_else(|| missing("keyBits"))?;
        let named = |cipher: &str| {
            let known = match HashAlgorithm::from_agile_name(hash_name.as_bytes()) {
                Some(hash) => hash.name(),
                None => hash_name,
            };
            format!("Agile encryption with {cipher}-{key_bits}/{known}")
        };
        if cipher != "AES" {
            let cipher = match cipher {
                "DESede" | "3DES" => "3DES",
                "3DES_112" => "3DES-112",
                other => other,
            };
            return Err(unsupported(format!(
                "{} (only AES is read)",
                named(&cipher.chars().take(40).collect::<String>())
            )));
        }
        let Some(hash) = HashAlgorithm::from_agile_name(hash_name.as_bytes()) else {
            return Err(unsupported(format!(
                "{} (the hashes read are MD5, SHA-1, SHA-256, SHA-384 and SHA-512)",
                named("AES")
            )));
        };
        match self.chaining.as_deref() {
            Some("ChainingModeCBC") => {}
            Some("ChainingModeCFB") => {
                return Err(unsupported(format!(
                    "{} in CFB chaining (only CBC is read)",
                    named("AES")
                )));
            }
            Some(other) => {
                return Err(damaged(format!(
                    "the {element} names an unknown cipherChaining `{}`",
                    other.chars().take(40).collect::<String>()
                )));
            }
            None => return Err(missing("cipherChaining")),
        }
        if !matches!(key_bits, 128 | 192 | 256) {
            return Err(damaged(format!(
                "the {element}'s keyBits {key_bits} is not an AES key size (128, 192, 256)"
            )));
        }
        let block_size = self.block_size.ok_or_else(|| missing("blockSize"))?;
        if block_size != AES_BLOCK as u64 {
            return Err(damaged(format!(
                "the {element}'s blockSize {block_size} is not AES's (16)"
            )));
        }
        let hash_size = self.hash_size.ok_or_else(|| missing("hashSize"))?;
        if hash_size != hash.size() as u64 {
            return Err(damaged(format!(
                "the {element}'s hashSize {hash_size} is not {}'s ({})",
                hash.name(),
                hash.size()
            )));
        }
        let salt_size = self.salt_size.ok_or_else(|| missing("saltSize"))?;
        let salt = self.salt.clone().ok_or_else(|| missing("saltValue"))?;
        if salt_size != salt.len() as u64 || !(1..=65_536).contains(&salt_size) {
            return Err(damaged(format!(
                "the {element}'s saltSize {salt_size} does not match its saltValue of {} bytes",
                salt.len()
            )));
        }
        Ok(Cipher {
            salt,
            key_bytes: key_bits as usize / 8,
            hash,
        })
    }
}

/// `dataIntegrity`'s encrypted HMAC key and value, as read.
type EncryptedPair = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Checks that an encrypted value holds whole AES blocks and at least
/// `needed` bytes.
fn encrypted_value(value: Option<Vec<u8>>, needed: usize, what: &str) -> Result<Vec<u8>> {
    let value = value.ok_or_else(|| damaged(format!("the header has no {what}")))?;
    if value.len() < needed || value.len() % AES_BLOCK != 0 {
        return Err(damaged(format!(
            "the {what} is {} bytes: it must be whole 16-byte blocks holding at least {needed}",
            value.len()
        )));
    }
    Ok(value)
}

impl AgileInfo {
    /// Parses a whole `EncryptionInfo` stream of version 4.4: the 8-byte
    /// version and reserved field, then the XML.
    pub(crate) fn parse(bytes: &[u8]) -> Result<AgileInfo> {
        let Some(xml) = bytes.get(8..) else {
            return Err(damaged(
                "the Agile EncryptionInfo stream ends inside its 8-byte header",
            ));
        };
        let mut key_data: Option<Raw> = None;
        let mut integrity: Option<EncryptedPair> = None;
        let mut password: Option<Raw> = None;
        let mut certificate = false;
        // Inside a `keyEncryptor` whose uri is the password's: which one.
        let mut encryptor_is_password: Option<bool> = None;
        let mut depth = 0usize;
        walk_elements(xml, "EncryptionInfo", |event| {
            match event {
                XmlEvent::Start {
                    local,
                    attributes: span,
                } => {
                    depth += 1;
                    match (depth, local) {
                        (1, b"encryption") => {}
                        (1, _) => {
                            return Err(damaged(
                                "the Agile header's root element is not <encryption>",
                            ));
                        }
                        (2, b"keyData") => {
                            if key_data.is_some() {
                                return Err(damaged("the header has two keyData elements"));
                            }
                            key_data = Some(Raw::read(xml, span, "keyData")?);
                        }
                        (2, b"dataIntegrity") => {
                            let mut pair = (None, None);
                            for attribute in attributes(xml, span) {
                                let (name, value) = attribute?;
                                match name {
                                    b"encryptedHmacKey" => {
                                        pair.0 = Some(base64(&value, "encryptedHmacKey")?);
                                    }
                                    b"encryptedHmacValue" => {
                                        pair.1 = Some(base64(&value, "encryptedHmacValue")?);
                                    }
                                    _ => {}
                                }
                            }
                            integrity = Some(pair);
                        }
                        (3, b"keyEncryptor") => {
                            let mut uri = None;
                            for attribute in attributes(xml, span) {
                                let (name, value) = attribute?;
                                if name == b"uri" {
                                    uri = Some(value.into_owned());
                                }
                            }
                            let is_password = uri.as_deref() == Some(PASSWORD_URI);
                            certificate |= !is_password;
                            encryptor_is_password = Some(is_password);
                        }
                        (4, b"encryptedKey")
                            if encryptor_is_password == Some(true) && password.is_none() =>
                        {
                            password = Some(Raw::read(xml, span, "password encryptedKey")?);
                        }
                        _ => {}
                    }
                }
                XmlEvent::End { local } => {
                    if depth == 3 && local == b"keyEncryptor" {
                        encryptor_is_password = None;
                    }
                    depth -= 1;
                }
            }
            Ok(())
        })?;
        let key_data = key_data.ok_or_else(|| damaged("the Agile header has no keyData"))?;
        let Some(password) = password else {
            return Err(if certificate {
                unsupported(
                    "Agile encryption with only a certificate key encryptor (it opens with a \
                     private key, not a password)",
                )
            } else {
                damaged("the Agile header has no password key encryptor")
            });
        };
        // The data's cipher first: its name is the scheme's.
        let data = key_data.cipher("keyData")?;
        let password_cipher = password.cipher("password encryptedKey")?;
        let spin_count = password
            .spin_count
            .ok_or_else(|| damaged("the password encryptedKey has no spinCount"))?;
        if spin_count > u64::from(MAX_SPIN_COUNT) {
            return Err(unsupported(format!(
                "Agile encryption with a spinCount of {spin_count}, above the limit of \
                 {MAX_SPIN_COUNT} (the schema's maximum): its key derivation would take \
                 too long"
            )));
        }
        let salt_size = password_cipher.salt.len();
        let verifier_input = encrypted_value(
            password.verifier_input,
            salt_size,
            "encryptedVerifierHashInput",
        )?;
        let verifier_hash = encrypted_value(
            password.verifier_hash,
            password_cipher.hash.size(),
            "encryptedVerifierHashValue",
        )?;
        let key_value = encrypted_value(password.key_value, data.key_bytes, "encryptedKeyValue")?;
        let integrity = match integrity {
            None => None,
            Some((key, value)) => Some((
                encrypted_value(key, data.hash.size(), "encryptedHmacKey")?,
                encrypted_value(value, data.hash.size(), "encryptedHmacValue")?,
            )),
        };
        Ok(AgileInfo {
            data,
            integrity,
            password: password_cipher,
            spin_count: spin_count as u32,
            verifier_input,
            verifier_hash,
            key_value,
        })
    }

    /// `Agile AES-256/SHA-512`.
    pub(crate) fn scheme(&self) -> String {
        format!(
            "Agile AES-{}/{}",
            self.data.key_bytes * 8,
            self.data.hash.name()
        )
    }

    pub(crate) fn spin_count(&self) -> u32 {
        self.spin_count
    }

    /// The key `password` opens, if the verifier accepts it.
    pub(crate) fn try_password(&self, password: &str) -> Option<AgileKey> {
        let cipher = &self.password;
        let hash = cipher.hash;
        let spun = hash.password_hash(&cipher.salt, password, self.spin_count);
        let iv = aes_iv(&cipher.salt);
        let mut key = Vec::with_capacity(cipher.key_bytes);
        // One block key: Hash(Hₙ ‖ block), cut or padded with 0x36 to the
        // key size; then its value decrypted.
        let mut decrypt = |block: &[u8; 8], encrypted: &[u8]| -> Option<Vec<u8>> {
            let derived = hash.hash(&[spun.as_slice(), block]);
            fit(derived.as_slice(), cipher.key_bytes, 0x36, &mut key);
            let aes = Aes::new(&key)?;
            let mut value = encrypted.to_vec();
            aes.decrypt_cbc(&iv, &mut value);
            Some(value)
        };
        let input = decrypt(&VERIFIER_INPUT_BLOCK, &self.verifier_input)?;
        let expected = decrypt(&VERIFIER_HASH_BLOCK, &self.verifier_hash)?;
        // Compared on hashSize bytes: the block padding after them is not
        // part of the verifier.
        let actual = hash.hash(&[&input[..cipher.salt.len()]]);
        if actual.as_slice() != &expected[..hash.size()] {
            return None;
        }
        let key_value = decrypt(&KEY_VALUE_BLOCK, &self.key_value)?;
        let aes = Aes::new(&key_value[..self.data.key_bytes])?;
        let mut key = AgileKey {
            aes,
            hash: self.data.hash,
            salt: self.data.salt.clone(),
            integrity: None,
        };
        key.integrity = self.integrity.as_ref().map(|(hmac_key, hmac_value)| {
            let size = self.data.hash.size();
            let open = |block: &[u8; 8], encrypted: &[u8]| {
                let mut value = encrypted.to_vec();
                key.aes.decrypt_cbc(&key.iv(block), &mut value);
                value.truncate(size);
                value
            };
            (
                open(&HMAC_KEY_BLOCK, hmac_key),
                open(&HMAC_VALUE_BLOCK, hmac_value),
            )
        });
        Some(key)
    }
}

impl AgileKey {
    /// Hash(keyData salt ‖ block) cut or padded to AES's block: the IV of
    /// a segment (block = its index, LE32) or of the HMAC's key and value.
    fn iv(&self, block: &[u8]) -> [u8; AES_BLOCK] {
        aes_iv(self.hash.hash(&[&self.salt, block]).as_slice())
    }

    /// Decrypts segment `index` of the package in place (whole blocks).
    pub(crate) fn decrypt_segment(&self, index: u32, data: &mut [u8]) {
        let iv = self.iv(&index.to_le_bytes());
        self.aes.decrypt_cbc(&iv, data);
    }

    /// The hash the HMAC of `dataIntegrity` is taken with.
    pub(crate) fn hash(&self) -> HashAlgorithm {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Error, ErrorKind};

    /// A header as Office writes it, with attributes to override.
    fn header(key_data: &str, encrypted_key: &str) -> Vec<u8> {
        let mut bytes = vec![4, 0, 4, 0, 0x40, 0, 0, 0];
        bytes.extend_from_slice(
            format!(
                r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<encryption xmlns="http://schemas.microsoft.com/office/2006/encryption" xmlns:p="http://schemas.microsoft.com/office/2006/keyEncryptor/password"><keyData {key_data}/><dataIntegrity encryptedHmacKey="{b64}" encryptedHmacValue="{b64}"/><keyEncryptors><keyEncryptor uri="http://schemas.microsoft.com/office/2006/keyEncryptor/password"><p:encryptedKey {encrypted_key}/></keyEncryptor></keyEncryptors></encryption>"#,
                b64 = "A".repeat(86) + "==",
            )
            .as_bytes(),
        );
        bytes
    }

    const KEY_DATA: &str = r#"saltSize="16" blockSize="16" keyBits="256" hashSize="64" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="SHA512" saltValue="AAAAAAAAAAAAAAAAAAAAAA==""#;

    fn encrypted_key(spin: &str) -> String {
        format!(
            r#"spinCount="{spin}" saltSize="16" blockSize="16" keyBits="256" hashSize="64" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="SHA512" saltValue="AAAAAAAAAAAAAAAAAAAAAA==" encryptedVerifierHashInput="AAAAAAAAAAAAAAAAAAAAAA==" encryptedVerifierHashValue="{h}" encryptedKeyValue="{k}""#,
            h = "A".repeat(86) + "==",
            k = "A".repeat(43) + "=",
        )
    }

    fn parse_error(bytes: &[u8]) -> Error {
        AgileInfo::parse(bytes).map(|_| ()).unwrap_err()
    }

    #[test]
    fn a_well_formed_header_parses_and_a_wrong_password_does_not_verify() {
        let info = AgileInfo::parse(&header(KEY_DATA, &encrypted_key("1000"))).unwrap();
        assert_eq!(info.scheme(), "Agile AES-256/SHA-512");
        assert_eq!(info.spin_count(), 1000);
        assert!(info.integrity.is_some());
        assert!(info.try_password("anything").is_none());
    }

    #[test]
    fn a_spin_count_over_the_limit_is_refused_before_hashing() {
        for spin in ["1000000000", "10000001", "99999999999999"] {
            let err = parse_error(&header(KEY_DATA, &encrypted_key(spin)));
            assert!(
                matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
                "{err}"
            );
            assert!(err.to_string().contains("spinCount"), "{err}");
        }
        assert!(AgileInfo::parse(&header(KEY_DATA, &encrypted_key("10000000"))).is_ok());
    }

    #[test]
    fn sizes_that_lie_are_refused() {
        let cases = [
            (
                KEY_DATA.replace("saltSize=\"16\"", "saltSize=\"32\""),
                "saltSize",
            ),
            (
                KEY_DATA.replace("keyBits=\"256\"", "keyBits=\"4096\""),
                "keyBits",
            ),
            (
                KEY_DATA.replace("blockSize=\"16\"", "blockSize=\"0\""),
                "blockSize",
            ),
            (
                KEY_DATA.replace("hashSize=\"64\"", "hashSize=\"20\""),
                "hashSize",
            ),
            (
                KEY_DATA.replace("saltValue=\"AAAAAAAAAAAAAAAAAAAAAA==\"", "saltValue=\"%%\""),
                "base64",
            ),
            (
                KEY_DATA.replace("hashSize=\"64\"", "hashSize=\"-1\""),
                "count",
            ),
        ];
        for (key_data, expected) in cases {
            let err = parse_error(&header(&key_data, &encrypted_key("1")));
            assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
            assert!(err.to_string().contains(expected), "{expected}: {err}");
        }
        // An encrypted key value too short for the 256-bit key it holds.
        let short = encrypted_key("1").replace(
            &format!("encryptedKeyValue=\"{}=\"", "A".repeat(43)),
            "encryptedKeyValue=\"AAAAAAAAAAAAAAAAAAAAAA==\"",
        );
        let err = parse_error(&header(KEY_DATA, &short));
        assert!(err.to_string().contains("encryptedKeyValue"), "{err}");
    }

    #[test]
    fn other_ciphers_and_certificate_only_headers_are_unsupported_by_name() {
        for (cipher, expected) in [
            ("RC2", "Agile encryption with RC2-256/SHA-512"),
            ("DES", "Agile encryption with DES-256/SHA-512"),
            ("DESede", "Agile encryption with 3DES-256/SHA-512"),
        ] {
            let key_data = KEY_DATA.replace("\"AES\"", &format!("\"{cipher}\""));
            let err = parse_error(&header(&key_data, &encrypted_key("1")));
            assert!(
                matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
                "{err}"
            );
            assert!(err.to_string().contains(expected), "{err}");
        }
        let cfb = KEY_DATA.replace("ChainingModeCBC", "ChainingModeCFB");
        let err = parse_error(&header(&cfb, &encrypted_key("1")));
        assert!(err.to_string().contains("CFB"), "{err}");
        let certificate = String::from_utf8(header(KEY_DATA, &encrypted_key("1")))
            .unwrap()
            .replace(
                "keyEncryptor/password\"><p:",
                "keyEncryptor/certificate\"><p:",
            );
        let err = parse_error(certificate.as_bytes());
        assert!(err.to_string().contains("certificate"), "{err}");
    }

    #[test]
    fn truncated_and_malformed_headers_are_errors() {
        let whole = header(KEY_DATA, &encrypted_key("1"));
        for cut in [0, 4, 7, 8, 40, whole.len() / 2, whole.len() - 2] {
            let err = parse_error(&whole[..cut]);
            assert!(
                matches!(err.kind(), ErrorKind::Encrypted(_) | ErrorKind::Xml(_)),
                "{cut}: {err}"
            );
        }
    }
}
