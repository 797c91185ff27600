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

/// The record types whose bodies an encrypted `.xls` keeps plain
/// (MS-XLS 2.2.10): BOF, FILEPASS, UsrExcl, FileLock, InterfaceHdr,
/// RRDInfo, RRDHead.
const XLS_PLAIN: [u16; 7] = [0x0809, 0x002F, 0x0194, 0x0195, 0x00E1, 0x0196, 0x0138];

/// RC4 CryptoAPI's key stream of an `.xls` workbook stream (MS-OFFCRYPTO
/// 2.3.5): block `b` of 1024 stream bytes is keyed SHA-1(H₀ ‖ LE32(b)),
/// H₀ = SHA-1(salt ‖ UTF-16LE(password)); 128-bit keys. Keeps the key
/// stream of the block last asked for.
struct XlsKeyStream {
    h0: Vec<u8>,
    block: Option<u64>,
    bytes: Vec<u8>,
}

impl XlsKeyStream {
    fn new(password: &str, salt: &[u8]) -> XlsKeyStream {
        let utf16: Vec<u8> = password.encode_utf16().flat_map(u16::to_le_bytes).collect();
        XlsKeyStream {
            h0: hash("SHA1", &[salt, &utf16]),
            block: None,
            bytes: vec![0; 1024],
        }
    }

    fn cipher(&self, block: u32) -> rc4::Rc4 {
        use rc4::KeyInit;
        let key = hash("SHA1", &[&self.h0, &block.to_le_bytes()]);
        rc4::Rc4::new_from_slice(&key[..16]).unwrap()
    }

    /// XORs `data` with the key stream from stream offset `at`.
    fn apply(&mut self, at: u64, data: &mut [u8]) {
        use rc4::StreamCipher;
        for (i, byte) in data.iter_mut().enumerate() {
            let position = at + i as u64;
            let block = position / 1024;
            if self.block != Some(block) {
                self.bytes.fill(0);
                self.cipher(block as u32).apply_keystream(&mut self.bytes);
                self.block = Some(block);
            }
            *byte ^= self.bytes[(position % 1024) as usize];
        }
    }
}

/// A BIFF8 FILEPASS body of RC4 CryptoAPI (version 4.2, 128-bit keys),
/// its verifier made for `password`.
fn xls_filepass(password: &str, salt: &[u8], verifier: &[u8]) -> Vec<u8> {
    let csp: Vec<u8> = "Microsoft Enhanced Cryptographic Provider v1.0\0"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut header = Vec::new();
    for word in [0x04u32, 0, 0x6801, 0x8004, 128, 1, 0, 0] {
        header.extend_from_slice(&word.to_le_bytes());
    }
    header.extend_from_slice(&csp);
    let mut body = vec![1, 0, 4, 0, 2, 0];
    body.extend_from_slice(&0x04u32.to_le_bytes());
    body.extend_from_slice(&(header.len() as u32).to_le_bytes());
    body.extend_from_slice(&header);
    // The verifier and its SHA-1, encrypted together with block 0's key.
    let mut secret = verifier.to_vec();
    secret.extend(hash("SHA1", &[verifier]));
    let mut stream = XlsKeyStream::new(password, salt);
    stream.apply(0, &mut secret);
    body.extend_from_slice(&16u32.to_le_bytes());
    body.extend_from_slice(salt);
    body.extend_from_slice(&secret[..16]);
    body.extend_from_slice(&20u32.to_le_bytes());
    body.extend_from_slice(&secret[16..]);
    body
}

/// A plain BIFF8 workbook stream encrypted as Excel 2003+ encrypts it
/// (RC4 CryptoAPI, 128-bit): a FILEPASS record inserted after the
/// globals' BOF, every stream offset after it (BOUNDSHEET's lbPlyPos,
/// INDEX's DBCELL offsets) moved past it, and every record body after it
/// encrypted by its stream offset, but for the records Excel keeps plain
/// and BOUNDSHEET's first four bytes; headers stay plain.
pub fn xls_rc4_cryptoapi(stream: &[u8], password: &str, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let (salt, verifier) = (rng.bytes(16), rng.bytes(16));
    let filepass = super::xls::record(0x002F, &xls_filepass(password, &salt, &verifier));
    let shift = filepass.len() as u32;
    let u16_at = |bytes: &[u8], at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let bof_len = 4 + usize::from(u16_at(stream, 2));
    let mut out = stream[..bof_len].to_vec();
    out.extend_from_slice(&filepass);
    let mut keys = XlsKeyStream::new(password, &salt);
    let mut at = bof_len;
    while at + 4 <= stream.len() {
        let kind = u16_at(stream, at);
        let len = usize::from(u16_at(stream, at + 2));
        let offset = out.len() as u64;
        let mut body = stream[at + 4..at + 4 + len].to_vec();
        let moved = |word: &mut [u8]| {
            let value = u32::from_le_bytes(word[..4].try_into().unwrap());
            if value != 0 {
                word[..4].copy_from_slice(&(value + shift).to_le_bytes());
            }
        };
        match kind {
            0x0085 => moved(&mut body[0..4]),
            0x020B => {
                moved(&mut body[12..16]);
                for entry in (16..len).step_by(4) {
                    moved(&mut body[entry..entry + 4]);
                }
            }
            _ => {}
        }
        let plain = if XLS_PLAIN.contains(&kind) {
            len
        } else if kind == 0x0085 {
            4
        } else {
            0
        };
        keys.apply(offset + 4 + plain as u64, &mut body[plain..]);
        out.extend_from_slice(&stream[at..at + 4]);
        out.extend_from_slice(&body);
        at += 4 + len;
    }
    out
}
