//! An OpenDocument package encryptor for tests (ODF 1.2 part 3, section
//! 3.8, as LibreOffice writes it): each encrypted entry deflated, then
//! encrypted with a key of its own (PBKDF2-HMAC-SHA1 of the hashed UTF-8
//! password, the entry's salt), stored, and described in the manifest's
//! `manifest:encryption-data` with the checksum of its first 1024
//! deflated bytes. AES-256-CBC (LibreOffice since 3.4) or Blowfish CFB
//! (older files), over RustCrypto's crates, salts and IVs from a seeded
//! generator so that a run is repeatable. The library only decrypts; this
//! is its other half, for packages no corpus holds (`ods_encrypted.rs`
//! builds them; `allocations.rs` includes this file on its own).
#![allow(dead_code)]

use std::io::Write;

use aes::cipher::array::Array;
use aes::cipher::{BlockModeEncrypt, KeyIvInit};
use sha1::Sha1;
use sha2::{Digest, Sha256};

/// The cipher of the encrypted entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OdfCipher {
    /// AES-256-CBC, SHA-256 start key and checksum (LibreOffice 3.4+).
    Aes256,
    /// Blowfish CFB, SHA-1 start key and checksum (OpenOffice).
    Blowfish,
}

/// How to encrypt.
#[derive(Debug, Clone)]
pub struct OdfParams {
    pub cipher: OdfCipher,
    /// PBKDF2 iterations: LibreOffice writes 100,000 (AES) or 1,024
    /// (Blowfish); tests need not pay for the former.
    pub iterations: u32,
    pub seed: u64,
}

impl Default for OdfParams {
    fn default() -> OdfParams {
        OdfParams {
            cipher: OdfCipher::Aes256,
            iterations: 1024,
            seed: 7,
        }
    }
}

/// Salts and IVs: a seeded generator (splitmix64), so that a run is
/// repeatable. Standalone, so that the allocation test binary can include
/// this file.
pub struct Seeded(pub u64);

impl Seeded {
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len)
            .map(|_| {
                self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = self.0;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                (z ^ (z >> 31)) as u8
            })
            .collect()
    }
}

/// One entry, encrypted: its stored bytes and its manifest entry.
pub struct EncryptedEntry {
    pub stored: Vec<u8>,
    pub manifest_entry: String,
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Raw deflate (no zlib header), as ODF entries hold it.
pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut encoder =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// Encrypts the entry `path` of `plain` bytes with `password`.
pub fn encrypt_entry(
    path: &str,
    plain: &[u8],
    password: &str,
    params: &OdfParams,
    rng: &mut Seeded,
) -> EncryptedEntry {
    let deflated = deflate(plain);
    let salt = rng.bytes(16);
    let head = &deflated[..deflated.len().min(1024)];
    let (stored, algorithm, iv, start_key, checksum_type, checksum, key_size) = match params.cipher
    {
        OdfCipher::Aes256 => {
            let start = Sha256::digest(password.as_bytes());
            let mut key = [0u8; 32];
            pbkdf2::pbkdf2_hmac::<Sha1>(&start, &salt, params.iterations, &mut key);
            let iv = rng.bytes(16);
            // W3C padding: whole blocks, the last byte the count added.
            let mut buffer = deflated.clone();
            let pad = 16 - buffer.len() % 16;
            buffer.resize(buffer.len() + pad, pad as u8);
            let (blocks, _) = Array::slice_as_chunks_mut(&mut buffer);
            cbc::Encryptor::<aes::Aes256>::new_from_slices(&key, &iv)
                .unwrap()
                .encrypt_blocks(blocks);
            (
                buffer,
                "http://www.w3.org/2001/04/xmlenc#aes256-cbc",
                iv,
                "http://www.w3.org/2000/09/xmldsig#sha256",
                "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k",
                Sha256::digest(head).to_vec(),
                32,
            )
        }
        OdfCipher::Blowfish => {
            use cfb_mode::cipher::{InnerIvInit, KeyInit};
            let start = Sha1::digest(password.as_bytes());
            let mut key = [0u8; 16];
            pbkdf2::pbkdf2_hmac::<Sha1>(&start, &salt, params.iterations, &mut key);
            let iv = rng.bytes(8);
            let mut buffer = deflated.clone();
            let blowfish: blowfish::Blowfish = blowfish::Blowfish::new_from_slice(&key).unwrap();
            cfb_mode::BufEncryptor::inner_iv_slice_init(blowfish, &iv)
                .unwrap()
                .encrypt(&mut buffer);
            (
                buffer,
                "Blowfish CFB",
                iv,
                "SHA1",
                "SHA1/1K",
                Sha1::digest(head).to_vec(),
                16,
            )
        }
    };
    let manifest_entry = format!(
        r#"<manifest:file-entry manifest:full-path="{path}" manifest:media-type="text/xml" manifest:size="{size}"><manifest:encryption-data manifest:checksum-type="{checksum_type}" manifest:checksum="{checksum}"><manifest:algorithm manifest:algorithm-name="{algorithm}" manifest:initialisation-vector="{iv}"/><manifest:start-key-generation manifest:start-key-generation-name="{start_key}" manifest:key-size="{start_size}"/><manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="{key_size}" manifest:iteration-count="{iterations}" manifest:salt="{salt}"/></manifest:encryption-data></manifest:file-entry>"#,
        size = plain.len(),
        checksum = b64(&checksum),
        iv = b64(&iv),
        start_size = if params.cipher == OdfCipher::Aes256 {
            32
        } else {
            20
        },
        iterations = params.iterations,
        salt = b64(&salt),
    );
    EncryptedEntry {
        stored,
        manifest_entry,
    }
}

/// The manifest of a spreadsheet package with these entry elements.
pub fn manifest(entries: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>{entries}</manifest:manifest>"#
    )
}
