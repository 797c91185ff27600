//! Fuzzes the parsers of the decryption engine's headers: an
//! `EncryptionInfo` stream (Agile XML, Standard binary), a FILEPASS
//! record (BIFF8 and BIFF5), a workbook stream's globals searched for
//! one, and an ODF manifest's encryption data. Checked: nothing panics,
//! and every input ends in a value or a typed error, in bounded time.
//!
//! The first byte chooses the parser; the rest is its input. A header
//! that parses is also tried with a password where that is cheap (a spin
//! count or PBKDF2 count of at most 1,000): the verifier's decryption on
//! whatever the header holds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sheetstream::fuzzing::encryption::{
    BiffVersion, EncryptionInfo, FilePass, RecordDecryptor, decrypt_workbook_stream,
    parse_manifest, workbook_stream_filepass,
};

/// Decrypts a few records with a decryptor the fuzzer unlocked.
fn exercise(mut decryptor: RecordDecryptor, data: &[u8]) {
    let mut body = data.to_vec();
    decryptor.decrypt_record(0, 0x0203, &mut body);
    decryptor.decrypt_record(1020, 0x0085, &mut body);
    decryptor.decrypt_record(10, 0x0809, &mut body);
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 4 {
        0 => {
            if let Ok(info) = EncryptionInfo::parse(rest) {
                let _ = info.scheme();
                if info.spin_count() <= 1000 {
                    let _ = info.unlock(&["password".to_owned()]);
                }
            }
        }
        1 => {
            for version in [BiffVersion::Biff8, BiffVersion::Biff5] {
                if let Ok(pass) = FilePass::parse(rest, version) {
                    let _ = pass.scheme();
                    if let Ok(decryptor) = pass.unlock(&["password".to_owned()]) {
                        exercise(decryptor, rest);
                    }
                }
            }
        }
        2 => {
            if let Ok(Some((_, pass))) = workbook_stream_filepass(rest)
                && let Ok(mut decryptor) = pass.unlock(&[])
            {
                let mut stream = rest.to_vec();
                decrypt_workbook_stream(&mut stream, &mut decryptor);
            }
        }
        _ => {
            if let Ok(entries) = parse_manifest(rest) {
                for entry in entries.iter().take(4) {
                    let _ = entry.scheme();
                    if entry.iterations() <= 1000 {
                        let key = entry.key("password");
                        let raw = &rest[..rest.len().min(1056)];
                        let _ = entry.key_matches(&key, raw, rest.len() as u64);
                    }
                }
            }
        }
    }
});
