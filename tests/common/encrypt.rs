//! An ECMA-376 Agile encryptor for tests and benches (MS-OFFCRYPTO
//! 2.3.4.10-2.3.4.15, as Office writes it): a plain package in, an
//! `EncryptionInfo` header and an `EncryptedPackage` stream out, over
//! RustCrypto's crates, with salts and keys from a seeded generator so
//! that a run is repeatable. The library only decrypts; this is its
//! other half, for workbooks no corpus holds (a large one, a chosen
//! spin count).
#![allow(dead_code)]

use aes::cipher::array::Array;
use aes::cipher::{BlockModeEncrypt, KeyIvInit};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Digest;

use super::Rng;

/// How to encrypt.
#[derive(Debug, Clone)]
pub struct AgileParams {
    /// 128, 192 or 256.
    pub key_bits: usize,
    /// `SHA512`, `SHA384`, `SHA256`, `SHA1` or `MD5`.
    pub hash: &'static str,
    pub spin_count: u32,
    pub seed: u64,
}

impl Default for AgileParams {
    /// Office's AES-256 and SHA-512, with 1,000 rounds rather than 100,000
    /// (tests need not pay for the derivation).
    fn default() -> AgileParams {
        AgileParams {
            key_bits: 256,
            hash: "SHA512",
            spin_count: 1000,
            seed: 1,
        }
    }
}

/// An encrypted package: the two streams of its compound file.
pub struct Encrypted {
    pub info: Vec<u8>,
    pub package: Vec<u8>,
}

const VERIFIER_INPUT_BLOCK: [u8; 8] = [0xfe, 0xa7, 0xd2, 0x76, 0x3b, 0x4b, 0x9e, 0x79];
const VERIFIER_HASH_BLOCK: [u8; 8] = [0xd7, 0xaa, 0x0f, 0x6d, 0x30, 0x61, 0x34, 0x4e];
const KEY_VALUE_BLOCK: [u8; 8] = [0x14, 0x6e, 0x0b, 0xe7, 0xab, 0xac, 0xd0, 0xd6];
const HMAC_KEY_BLOCK: [u8; 8] = [0x5f, 0xb2, 0xad, 0x01, 0x0c, 0xb9, 0xe1, 0xf6];
const HMAC_VALUE_BLOCK: [u8; 8] = [0xa0, 0x67, 0x7f, 0x02, 0xb2, 0x2c, 0x84, 0x33];

fn hash(name: &str, parts: &[&[u8]]) -> Vec<u8> {
    fn with<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
        let mut digest = D::new();
        for part in parts {
            digest.update(part);
        }
        digest.finalize().to_vec()
    }
    match name {
        "SHA512" => with::<sha2::Sha512>(parts),
        "SHA384" => with::<sha2::Sha384>(parts),
        "SHA256" => with::<sha2::Sha256>(parts),
        "SHA1" => with::<sha1::Sha1>(parts),
        "MD5" => with::<md5::Md5>(parts),
        other => panic!("no hash {other}"),
    }
}

fn hmac(name: &str, key: &[u8], data: &[u8]) -> Vec<u8> {
    fn with<M: Mac + KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
        let mut mac = <M as KeyInit>::new_from_slice(key).unwrap();
        mac.update(data);
        mac.finalize().into_bytes().to_vec()
    }
    match name {
        "SHA512" => with::<Hmac<sha2::Sha512>>(key, data),
        "SHA384" => with::<Hmac<sha2::Sha384>>(key, data),
        "SHA256" => with::<Hmac<sha2::Sha256>>(key, data),
        "SHA1" => with::<Hmac<sha1::Sha1>>(key, data),
        "MD5" => with::<Hmac<md5::Md5>>(key, data),
        other => panic!("no hash {other}"),
    }
}

/// `value` cut or padded with `pad` to `size` bytes.
fn fit(value: &[u8], size: usize, pad: u8) -> Vec<u8> {
    let mut out = value[..value.len().min(size)].to_vec();
    out.resize(size, pad);
    out
}

/// AES-CBC encryption of `data` zero-padded to whole blocks.
fn encrypt(key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
    let mut buffer = data.to_vec();
    buffer.resize(data.len().next_multiple_of(16), 0);
    let (blocks, _) = Array::slice_as_chunks_mut(&mut buffer);
    match key.len() {
        16 => cbc::Encryptor::<aes::Aes128>::new_from_slices(key, iv)
            .unwrap()
            .encrypt_blocks(blocks),
        24 => cbc::Encryptor::<aes::Aes192>::new_from_slices(key, iv)
            .unwrap()
            .encrypt_blocks(blocks),
        32 => cbc::Encryptor::<aes::Aes256>::new_from_slices(key, iv)
            .unwrap()
            .encrypt_blocks(blocks),
        other => panic!("no AES key of {other} bytes"),
    }
    buffer
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn hash_size(name: &str) -> usize {
    hash(name, &[]).len()
}

/// The `EncryptionInfo` stream of the given values.
#[allow(clippy::too_many_arguments)]
fn header(
    params: &AgileParams,
    key_salt: &[u8],
    password_salt: &[u8],
    verifier_input: &[u8],
    verifier_hash: &[u8],
    key_value: &[u8],
    hmac_key: &[u8],
    hmac_value: &[u8],
) -> Vec<u8> {
    let cipher = |salt: &[u8]| {
        format!(
            r#"saltSize="{}" blockSize="16" keyBits="{}" hashSize="{}" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="{}" saltValue="{}""#,
            salt.len(),
            params.key_bits,
            hash_size(params.hash),
            params.hash,
            b64(salt)
        )
    };
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\r\n<encryption \
         xmlns=\"http://schemas.microsoft.com/office/2006/encryption\" \
         xmlns:p=\"http://schemas.microsoft.com/office/2006/keyEncryptor/password\" \
         xmlns:c=\"http://schemas.microsoft.com/office/2006/keyEncryptor/certificate\">\
         <keyData {}/><dataIntegrity encryptedHmacKey=\"{}\" encryptedHmacValue=\"{}\"/>\
         <keyEncryptors><keyEncryptor \
         uri=\"http://schemas.microsoft.com/office/2006/keyEncryptor/password\">\
         <p:encryptedKey spinCount=\"{}\" {} encryptedVerifierHashInput=\"{}\" \
         encryptedVerifierHashValue=\"{}\" encryptedKeyValue=\"{}\"/></keyEncryptor>\
         </keyEncryptors></encryption>",
        cipher(key_salt),
        b64(hmac_key),
        b64(hmac_value),
        params.spin_count,
        cipher(password_salt),
        b64(verifier_input),
        b64(verifier_hash),
        b64(key_value),
    );
    let mut info = vec![4, 0, 4, 0, 0x40, 0, 0, 0];
    info.extend_from_slice(xml.as_bytes());
    info
}

/// Encrypts `plain` with `password`.
pub fn agile(plain: &[u8], password: &str, params: &AgileParams) -> Encrypted {
    let mut rng = Rng(params.seed);
    let key_bytes = params.key_bits / 8;
    let size = hash_size(params.hash);
    let key_salt = rng.bytes(16);
    let password_salt = rng.bytes(16);
    let intermediate = rng.bytes(key_bytes);
    let verifier = rng.bytes(16);
    let hmac_key = rng.bytes(size);
    // The password hash and its block keys.
    let utf16: Vec<u8> = password.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let mut spun = hash(params.hash, &[&password_salt, &utf16]);
    for round in 0..params.spin_count {
        spun = hash(params.hash, &[&round.to_le_bytes(), &spun]);
    }
    let block_key = |block: &[u8]| fit(&hash(params.hash, &[&spun, block]), key_bytes, 0x36);
    let iv = fit(&password_salt, 16, 0x36);
    let verifier_input = encrypt(&block_key(&VERIFIER_INPUT_BLOCK), &iv, &verifier);
    let verifier_hash = encrypt(
        &block_key(&VERIFIER_HASH_BLOCK),
        &iv,
        &hash(params.hash, &[&verifier]),
    );
    let key_value = encrypt(&block_key(&KEY_VALUE_BLOCK), &iv, &intermediate);
    // The package, segment by segment.
    let data_iv = |block: &[u8]| fit(&hash(params.hash, &[&key_salt, block]), 16, 0x36);
    let mut package = (plain.len() as u64).to_le_bytes().to_vec();
    for (index, segment) in plain.chunks(4096).enumerate() {
        let iv = data_iv(&(index as u32).to_le_bytes());
        package.extend_from_slice(&encrypt(&intermediate, &iv, segment));
    }
    let hmac_value = hmac(params.hash, &hmac_key, &package);
    let encrypted_hmac_key = encrypt(&intermediate, &data_iv(&HMAC_KEY_BLOCK), &hmac_key);
    let encrypted_hmac_value = encrypt(&intermediate, &data_iv(&HMAC_VALUE_BLOCK), &hmac_value);
    Encrypted {
        info: header(
            params,
            &key_salt,
            &password_salt,
            &verifier_input,
            &verifier_hash,
            &key_value,
            &encrypted_hmac_key,
            &encrypted_hmac_value,
        ),
        package,
    }
}

/// An `EncryptionInfo` header of `params` with random encrypted values
/// (no key derivation: for a spin count too large to run).
pub fn agile_header_only(plain: &[u8], password: &str, params: &AgileParams) -> Vec<u8> {
    let _ = (plain, password);
    let mut rng = Rng(params.seed);
    let size = hash_size(params.hash).next_multiple_of(16);
    header(
        params,
        &rng.bytes(16),
        &rng.bytes(16),
        &rng.bytes(16),
        &rng.bytes(size),
        &rng.bytes(params.key_bits / 8),
        &rng.bytes(size),
        &rng.bytes(size),
    )
}

/// The compound file of an encrypted package: its two streams.
pub fn compound(encrypted: &Encrypted) -> Vec<u8> {
    use std::io::Write;
    let mut file =
        cfb::CompoundFile::create_with_version(cfb::Version::V4, std::io::Cursor::new(Vec::new()))
            .unwrap();
    file.create_stream("/EncryptionInfo")
        .unwrap()
        .write_all(&encrypted.info)
        .unwrap();
    file.create_stream("/EncryptedPackage")
        .unwrap()
        .write_all(&encrypted.package)
        .unwrap();
    file.flush().unwrap();
    file.into_inner().into_inner()
}
