//! The decryption engine (feature `encryption`) on the encrypted
//! conformance corpus (`../shared/conformance/corpus-encrypted`, beside
//! this repository), driven below the workbook through
//! `sheetstream::fuzzing::encryption` (the open path reads the same corpus
//! in `encrypted_workbooks.rs`, whose corpus test shares this file's cases
//! and expectations).
//!
//! For every case: an encrypted package is opened with the `cfb` crate,
//! unlocked with Excel's default password or `NAME.password`, read whole
//! through `DecryptedPackage`, its integrity checked, and the bytes opened
//! with `Workbook::from_bytes`; an `.xls` has its workbook stream
//! decrypted record by record and rebuilt into a compound file; an `.ods`
//! has its `content.xml` decrypted and inflated. Each dump (every
//! worksheet cell, in the form of FORMAT.md) must equal `NAME.cells.jsonl`
//! exactly; a `NAME.error` case must give the error kind its line names;
//! a `NAME.any` case must be refused as unsupported or equal
//! `NAME.if-read.cells.jsonl.gz`. Every case must pass.
//!
//! Beside the corpus: reads at random offsets and lengths against one
//! whole read, and hostile headers (typed errors, never a panic).
//!
//! Without the corpus the corpus tests say they skipped and pass.

use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value as Json;
use sheetstream::fuzzing::encryption::{
    self as enc, CompoundEncryption, DecryptedPackage, EncryptionInfo, Integrity,
};
use sheetstream::{ErrorKind, Workbook};

use crate::common::encrypt::{self, AgileParams};
use crate::common::{Rng, dump_difference, library_dump, parse_dump};

pub(crate) fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus-encrypted");
    root.is_dir().then_some(root)
}

/// What a case must give.
#[derive(Debug)]
pub(crate) enum Expect {
    /// This dump.
    Cells(PathBuf),
    /// A refusal, for the reason the line says.
    Error(String),
    /// Unsupported, or this dump.
    Any(PathBuf),
}

pub(crate) struct Case {
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) expect: Expect,
    pub(crate) passwords: Vec<String>,
}

/// Every workbook of the corpus with its expectation, sorted by path.
pub(crate) fn cases(root: &Path) -> Vec<Case> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read a corpus folder") {
            let path = entry.expect("a corpus entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| {
                ["xlsx", "xlsm", "xlsb", "xls", "ods"].contains(&&*ext.to_string_lossy())
            }) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|path| {
            let stem = path.with_extension("");
            let beside = |suffix: &str| {
                let mut name = stem.clone().into_os_string();
                name.push(suffix);
                PathBuf::from(name)
            };
            let expect = if beside(".cells.jsonl").exists() {
                Expect::Cells(beside(".cells.jsonl"))
            } else if beside(".cells.jsonl.gz").exists() {
                Expect::Cells(beside(".cells.jsonl.gz"))
            } else if beside(".error").exists() {
                Expect::Error(std::fs::read_to_string(beside(".error")).unwrap())
            } else if beside(".any").exists() {
                Expect::Any(beside(".if-read.cells.jsonl.gz"))
            } else {
                panic!("{} has no expectation", path.display());
            };
            let passwords = std::fs::read(beside(".password"))
                .map(|bytes| vec![String::from_utf8(bytes).expect("a UTF-8 password")])
                .unwrap_or_default();
            Case {
                name: stem.strip_prefix(root).unwrap().display().to_string(),
                path,
                expect,
                passwords,
            }
        })
        .collect()
}

pub(crate) fn read_dump(path: &Path) -> Vec<Json> {
    let bytes = std::fs::read(path).unwrap();
    let text = if path.extension().is_some_and(|ext| ext == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    } else {
        String::from_utf8(bytes).unwrap()
    };
    parse_dump(&text)
}

/// The scheme families counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Family {
    Agile,
    Standard,
    Xls,
    Ods,
    Container,
}

/// What decrypting a case gave.
enum Decrypted {
    /// The dump of the decrypted workbook, and what the integrity check
    /// found (packages only).
    Dump(Vec<Json>, Option<Integrity>),
    /// An `.ods` whose `content.xml` (and every other encrypted entry)
    /// decrypted and inflated as its manifest says.
    Ods,
}

type Outcome = (Family, Result<Decrypted, sheetstream::Error>);

/// Decrypts a case below the workbook, as the open path does.
fn decrypt(case: &Case) -> Outcome {
    let bytes = std::fs::read(&case.path).unwrap();
    if bytes.starts_with(b"PK") {
        return (Family::Ods, decrypt_ods(&bytes, &case.passwords));
    }
    let mut file = match open_compound(bytes) {
        Ok(file) => file,
        Err(err) => return (Family::Container, Err(err.into())),
    };
    let paths: Vec<String> = file
        .walk()
        .map(|entry| entry.path().to_string_lossy().into_owned())
        .collect();
    match enc::compound_encryption(paths.iter().map(String::as_str)) {
        CompoundEncryption::Refused(err) => (Family::Container, Err(err)),
        CompoundEncryption::Package => {
            let info = file
                .open_stream(enc::ENCRYPTION_INFO_STREAM)
                .map_err(sheetstream::Error::from)
                .and_then(EncryptionInfo::read);
            let family = match &info {
                Ok(EncryptionInfo::Standard(_)) => Family::Standard,
                _ => Family::Agile,
            };
            let result = info.and_then(|info| {
                let key = info.unlock(&case.passwords)?;
                let stream = file.open_stream(enc::ENCRYPTED_PACKAGE_STREAM)?;
                let mut package = DecryptedPackage::new(stream, key)?;
                let integrity = package.verify_integrity()?;
                let mut plain = Vec::new();
                package.read_to_end(&mut plain)?;
                let mut workbook = Workbook::from_bytes(plain)?;
                Ok(Decrypted::Dump(
                    library_dump(&mut workbook)?,
                    Some(integrity),
                ))
            });
            (family, result)
        }
        CompoundEncryption::None => (Family::Xls, decrypt_xls(&mut file, &case.passwords)),
    }
}

/// Opens a compound file with the `cfb` crate, its streams read 1 KiB at
/// a time: as the library's own stream reader does (it reads what a read
/// asks for), a stream whose sector chain ends before its length
/// (`poi/extenxls_pwd123.xlsx`, whose package ends within the chain) still
/// reads up to the chain's end; the crate's default buffer would refill
/// past it and fail the first read.
fn open_compound(bytes: Vec<u8>) -> std::io::Result<cfb::CompoundFile<Cursor<Vec<u8>>>> {
    cfb::OpenOptions::new()
        .max_buffer_size(1024)
        .open_with(Cursor::new(bytes))
}

fn decrypt_xls(
    file: &mut cfb::CompoundFile<Cursor<Vec<u8>>>,
    passwords: &[String],
) -> Result<Decrypted, sheetstream::Error> {
    let name = if file.is_stream("Workbook") {
        "Workbook"
    } else {
        "Book"
    };
    let mut stream = Vec::new();
    file.open_stream(name)?.read_to_end(&mut stream)?;
    let (_, filepass) = enc::workbook_stream_filepass(&stream)?
        .unwrap_or_else(|| panic!("an encrypted .xls without a FILEPASS record"));
    let mut decryptor = filepass.unlock(passwords)?;
    enc::decrypt_workbook_stream(&mut stream, &mut decryptor);
    let mut workbook = Workbook::from_bytes(sheetstream::fuzzing::xls_from_stream(&stream))?;
    Ok(Decrypted::Dump(library_dump(&mut workbook)?, None))
}

/// The stored bytes of a ZIP entry.
fn stored_entry(archive: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str) -> Vec<u8> {
    let mut raw = Vec::new();
    archive
        .by_name_raw(name.as_bytes())
        .unwrap_or_else(|err| panic!("entry {name}: {err}"))
        .read_to_end(&mut raw)
        .unwrap();
    raw
}

fn decrypt_ods(bytes: &[u8], passwords: &[String]) -> Result<Decrypted, sheetstream::Error> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("an .ods is a ZIP");
    let manifest = stored_entry(&mut archive, "META-INF/manifest.xml");
    let mut inflated_manifest = Vec::new();
    flate2::read::DeflateDecoder::new(&manifest[..])
        .read_to_end(&mut inflated_manifest)
        .unwrap();
    let entries = enc::parse_manifest(&inflated_manifest)?;
    let content = entries
        .iter()
        .find(|entry| entry.path() == "content.xml")
        .expect("content.xml is encrypted");
    let raw = stored_entry(&mut archive, "content.xml");
    let len = raw.len() as u64;
    let check = &raw[..raw.len().min(enc::ODF_CHECK_BYTES)];
    let (key, password) = content.unlock(passwords, check, len)?;
    // A wrong password fails the checksum.
    let wrong = content.key(&format!("{password}!"));
    assert!(!content.key_matches(&wrong, check, len));
    // Every encrypted entry opens with the password that opened one, and
    // inflates to its manifest size.
    for entry in &entries {
        let raw = stored_entry(&mut archive, entry.path());
        let key = if entry.path() == "content.xml" {
            key.clone()
        } else {
            entry.key(&password)
        };
        let decrypted = entry.decrypt(&key, &raw[..], raw.len() as u64)?;
        let mut inflated = Vec::new();
        flate2::read::DeflateDecoder::new(decrypted).read_to_end(&mut inflated)?;
        assert_eq!(
            Some(inflated.len() as u64),
            entry.size(),
            "{}: inflated size",
            entry.path()
        );
        if entry.path() == "content.xml" {
            let text = inflated
                .strip_prefix("\u{feff}".as_bytes())
                .unwrap_or(&inflated);
            assert!(
                text.starts_with(b"<?xml") || text.starts_with(b"<office:document-content"),
                "content.xml starts {:?}",
                String::from_utf8_lossy(&inflated[..inflated.len().min(60)])
            );
        }
    }
    Ok(Decrypted::Ods)
}

/// The error kind a `.error` line asks for.
pub(crate) fn kind_matches(line: &str, err: &sheetstream::Error) -> bool {
    let kind = err.kind();
    if line.contains("saying a password is required") {
        matches!(kind, ErrorKind::PasswordRequired(_))
    } else if line.contains("saying the password is incorrect") {
        matches!(kind, ErrorKind::PasswordIncorrect(_))
    } else if line.contains("dataIntegrity HMAC") {
        matches!(kind, ErrorKind::IntegrityFailure(_))
    } else if line.contains("spinCount") || line.contains("unsupported") {
        matches!(kind, ErrorKind::UnsupportedEncryption(_))
    } else if line.contains("EncryptedPackage cut") {
        matches!(kind, ErrorKind::Encrypted(_)) && err.to_string().contains("cut short")
    } else if line.contains("never panic") {
        // "password required, or damaged" (the `cfb` crate refuses the
        // container: the library's open path says so as `ErrorKind::Xls`).
        match kind {
            ErrorKind::PasswordRequired(_) | ErrorKind::Encrypted(_) | ErrorKind::Xls(_) => true,
            ErrorKind::Io(io) => io.kind() == std::io::ErrorKind::InvalidData,
            _ => false,
        }
    } else {
        panic!("an expectation this test does not know: {line}")
    }
}

/// Checks one case; a description of what is wrong.
fn check(case: &Case, outcome: &Result<Decrypted, sheetstream::Error>) -> Result<(), String> {
    match (&case.expect, outcome) {
        // (A package's integrity was checked before it was read: a
        // mismatch is a refusal.)
        (Expect::Cells(dump), Ok(Decrypted::Dump(lines, _))) => {
            dump_difference(&read_dump(dump), lines).map_or(Ok(()), Err)
        }
        (Expect::Cells(_), Ok(Decrypted::Ods)) => Ok(()),
        (Expect::Cells(_), Err(err)) => Err(format!("refused: {err}")),
        (Expect::Error(line), Err(err)) if kind_matches(line, err) => Ok(()),
        (Expect::Error(line), Err(err)) => Err(format!("refused with `{err}`; expected: {line}")),
        (Expect::Error(_), Ok(_)) => Err("decrypted, but must be refused".into()),
        (Expect::Any(_), Err(err)) => match err.kind() {
            ErrorKind::UnsupportedEncryption(_) => Ok(()),
            _ => Err(format!("refused, but not as unsupported: {err}")),
        },
        (Expect::Any(dump), Ok(Decrypted::Dump(lines, _))) => {
            dump_difference(&read_dump(dump), lines).map_or(Ok(()), Err)
        }
        (Expect::Any(_), Ok(Decrypted::Ods)) => Err("an .ods is never `any`".into()),
    }
}

/// One case's result.
struct Verdict<'a> {
    case: &'a Case,
    family: Family,
    verdict: Result<(), String>,
    integrity: Option<Integrity>,
    /// Whether it was decrypted and read (not refused).
    read: bool,
}

#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn every_case_of_the_encrypted_corpus_decrypts_or_is_refused_as_it_must() {
    let Some(root) = corpus_root() else {
        eprintln!("skipping: ../shared/conformance/corpus-encrypted not found");
        return;
    };
    let cases = cases(&root);
    assert!(cases.len() >= 100, "{} cases", cases.len());
    // Two workers: the key derivations dominate.
    let next = Mutex::new(cases.iter());
    let results: Mutex<Vec<Verdict<'_>>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let Some(case) = next.lock().unwrap().next() else {
                        return;
                    };
                    let (family, outcome) = decrypt(case);
                    let integrity = match &outcome {
                        Ok(Decrypted::Dump(_, integrity)) => *integrity,
                        _ => None,
                    };
                    let read = outcome.is_ok();
                    let verdict = check(case, &outcome);
                    results.lock().unwrap().push(Verdict {
                        case,
                        family,
                        verdict,
                        integrity,
                        read,
                    });
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.case.name.cmp(&b.case.name));
    let mut failures = Vec::new();
    let mut tally: std::collections::BTreeMap<Family, (usize, usize, usize)> = Default::default();
    let mut verified = 0;
    for result in &results {
        let entry = tally.entry(result.family).or_default();
        entry.0 += 1;
        if result.read {
            entry.2 += 1;
        }
        match &result.verdict {
            Ok(()) => entry.1 += 1,
            Err(problem) => failures.push(format!("{}: {problem}", result.case.name)),
        }
        if result.integrity == Some(Integrity::Verified) {
            verified += 1;
        }
    }
    for (family, (all, passed, read)) in &tally {
        println!("encrypted corpus, {family:?}: {passed}/{all} passed ({read} decrypted and read)");
    }
    println!("encrypted corpus: dataIntegrity HMAC verified on {verified} packages");
    let passed: usize = tally.values().map(|counts| counts.1).sum();
    assert!(
        failures.is_empty() && passed == cases.len(),
        "{passed} of {} cases passed; failures:\n{}",
        cases.len(),
        failures.join("\n")
    );
    // Every family is in the corpus, and Office's Agile packages carry an
    // HMAC that verifies.
    for family in [Family::Agile, Family::Standard, Family::Xls, Family::Ods] {
        assert!(
            tally.get(&family).is_some_and(|counts| counts.2 > 0),
            "{family:?}"
        );
    }
    assert!(verified >= 20, "{verified} HMACs verified");
}

/// An intact package verifies; the tampered one (a byte of the last
/// segment changed after the HMAC was taken) fails the check.
#[test]
fn the_integrity_check_fails_only_where_the_package_was_changed() {
    let Some(root) = corpus_root() else {
        eprintln!("skipping: ../shared/conformance/corpus-encrypted not found");
        return;
    };
    let open = |name: &str| {
        let path = root.join(name);
        let bytes = std::fs::read(&path).unwrap();
        let mut file = open_compound(bytes).unwrap();
        let info = EncryptionInfo::read(file.open_stream("EncryptionInfo").unwrap()).unwrap();
        let passwords: Vec<String> = std::fs::read_to_string(path.with_extension("password"))
            .into_iter()
            .collect();
        (file, info.unlock(&passwords).unwrap())
    };
    let (mut file, key) = open("generated/agile-aes256-sha512-velvet.xlsx");
    let stream = file.open_stream("EncryptedPackage").unwrap();
    let mut intact = DecryptedPackage::new(stream, key).unwrap();
    assert_eq!(intact.verify_integrity().unwrap(), Integrity::Verified);
    let (mut file, key) = open("generated/agile-tampered-padding.xlsx");
    let stream = file.open_stream("EncryptedPackage").unwrap();
    let mut tampered = DecryptedPackage::new(stream, key).unwrap();
    let err = tampered.verify_integrity().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::IntegrityFailure(_)),
        "{err}"
    );
    assert!(err.to_string().contains("integrity check failed"), "{err}");
}

/// Reads at random offsets and lengths equal the same slice of one whole
/// sequential read, through fresh readers and clones, for an Agile
/// package (CBC, an IV per segment) and a Standard one (ECB).
#[test]
fn random_reads_equal_the_slices_of_a_whole_read() {
    let mut rng = Rng(0x5EED_C0DE);
    // 9 segments and a partial one, not a multiple of the block.
    let plain = rng.bytes(9 * enc::SEGMENT_SIZE + 1234);
    for params in [
        AgileParams::default(),
        AgileParams {
            key_bits: 128,
            hash: "SHA1",
            ..AgileParams::default()
        },
    ] {
        let encrypted = encrypt::agile(&plain, "pässword", &params);
        let info = EncryptionInfo::parse(&encrypted.info).unwrap();
        let key = info.unlock(&["pässword".to_owned()]).unwrap();
        let mut package = DecryptedPackage::new(Cursor::new(&encrypted.package[..]), key).unwrap();
        assert_eq!(package.len(), plain.len() as u64);
        assert_eq!(package.verify_integrity().unwrap(), Integrity::Verified);
        let mut whole = Vec::new();
        package.read_to_end(&mut whole).unwrap();
        assert_eq!(whole, plain, "{params:?}");
        for round in 0..400 {
            let start = rng.next_u64() % (plain.len() as u64 + 100);
            let len = (rng.next_u64() % 3 * enc::SEGMENT_SIZE as u64) as usize
                + (rng.next_u64() % 40) as usize;
            let reader = if round % 3 == 0 {
                &mut package
            } else {
                &mut package.clone()
            };
            reader.seek(SeekFrom::Start(start)).unwrap();
            let mut got = Vec::new();
            reader.take(len as u64).read_to_end(&mut got).unwrap();
            let from = (start as usize).min(plain.len());
            let to = (start as usize + len).min(plain.len());
            assert_eq!(got, plain[from..to], "{start}+{len}");
        }
    }
}

/// The corpus's largest Standard (ECB) package, read at random.
#[test]
fn random_reads_of_a_standard_package_equal_a_whole_read() {
    let Some(root) = corpus_root() else {
        eprintln!("skipping: ../shared/conformance/corpus-encrypted not found");
        return;
    };
    let bytes = std::fs::read(root.join("excel_streaming_reader/encrypted.xlsx")).unwrap();
    let mut file = open_compound(bytes).unwrap();
    let info = EncryptionInfo::read(file.open_stream("EncryptionInfo").unwrap()).unwrap();
    assert_eq!(info.scheme(), "Standard AES-128");
    let password = std::fs::read_to_string(root.join("excel_streaming_reader/encrypted.password"));
    let key = info.unlock(&[password.unwrap()]).unwrap();
    let mut package =
        DecryptedPackage::new(file.open_stream("EncryptedPackage").unwrap(), key).unwrap();
    let mut whole = Vec::new();
    package.read_to_end(&mut whole).unwrap();
    assert!(whole.starts_with(b"PK\x03\x04"));
    let mut rng = Rng(7);
    for _ in 0..200 {
        let start = rng.next_u64() % whole.len() as u64;
        let len = (rng.next_u64() % 10_000) as usize;
        package.seek(SeekFrom::Start(start)).unwrap();
        let mut got = vec![0u8; len.min(whole.len() - start as usize)];
        package.read_exact(&mut got).unwrap();
        assert_eq!(got, whole[start as usize..start as usize + got.len()]);
    }
}

#[test]
fn a_spin_count_of_a_billion_is_refused_before_any_hashing() {
    let plain = vec![1u8; 100];
    let params = AgileParams {
        spin_count: 1_000_000_000,
        ..AgileParams::default()
    };
    let encrypted = encrypt::agile_header_only(&plain, "x", &params);
    let err = EncryptionInfo::parse(&encrypted).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
        "{err}"
    );
    assert!(err.to_string().contains("spinCount of 1000000000"), "{err}");
}

#[test]
fn a_package_size_past_the_stream_is_a_damaged_package() {
    let plain = vec![7u8; 10_000];
    let encrypted = encrypt::agile(&plain, "x", &AgileParams::default());
    let key = EncryptionInfo::parse(&encrypted.info)
        .unwrap()
        .unlock(&["x".to_owned()])
        .unwrap();
    for claimed in [10_001u64, 1 << 40, u64::MAX] {
        let mut package = encrypted.package.clone();
        package[..8].copy_from_slice(&claimed.to_le_bytes());
        let err = DecryptedPackage::new(Cursor::new(package), key.clone())
            .err()
            .unwrap();
        assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
        assert!(err.to_string().contains("cut short"), "{err}");
    }
    // Cut in half: the same.
    let half = encrypted.package[..encrypted.package.len() / 2].to_vec();
    let err = DecryptedPackage::new(Cursor::new(half), key.clone())
        .err()
        .unwrap();
    assert!(err.to_string().contains("cut short"), "{err}");
    let err = DecryptedPackage::new(Cursor::new(vec![0u8; 5]), key)
        .err()
        .unwrap();
    assert!(err.to_string().contains("too short"), "{err}");
}

#[test]
fn truncated_and_lying_encryption_headers_are_typed_errors() {
    let plain = vec![3u8; 100];
    let encrypted = encrypt::agile(&plain, "x", &AgileParams::default());
    for cut in (0..encrypted.info.len()).step_by(37) {
        let err = EncryptionInfo::parse(&encrypted.info[..cut]).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Encrypted(_) | ErrorKind::Xml(_)),
            "{cut}: {err}"
        );
    }
    let text = String::from_utf8_lossy(&encrypted.info[8..]).into_owned();
    for (from, to) in [
        ("saltSize=\"16\"", "saltSize=\"4\""),
        ("keyBits=\"256\"", "keyBits=\"2048\""),
        ("hashSize=\"64\"", "hashSize=\"65\""),
        ("blockSize=\"16\"", "blockSize=\"99999999999\""),
    ] {
        let mut lying = encrypted.info[..8].to_vec();
        lying.extend_from_slice(text.replacen(from, to, 1).as_bytes());
        let err = EncryptionInfo::parse(&lying).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{to}: {err}");
    }
}

#[test]
fn filepass_records_too_short_are_typed_errors() {
    use enc::{BiffVersion, FilePass};
    let full: Vec<u8> = {
        let mut body = vec![1, 0, 1, 0, 1, 0];
        body.extend_from_slice(&[9; 48]);
        body
    };
    assert!(FilePass::parse(&full, BiffVersion::Biff8).is_ok());
    for cut in 0..full.len() {
        let err = FilePass::parse(&full[..cut], BiffVersion::Biff8).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Encrypted(_)),
            "{cut}: {err}"
        );
        assert!(err.to_string().contains("too short"), "{cut}: {err}");
    }
}

/// A package encrypted by this test's encryptor reads back through the
/// library's own reader, with the right password only.
#[test]
fn a_package_encrypted_here_opens_with_its_password_only() {
    let workbook = crate::common::book()
        .sheet(
            "Data",
            crate::common::sheet_xml(r#"<row r="1"><c r="A1"><v>42</v></c></row>"#),
        )
        .build();
    let encrypted = encrypt::agile(&workbook, "secret", &AgileParams::default());
    let info = EncryptionInfo::parse(&encrypted.info).unwrap();
    assert_eq!(info.scheme(), "Agile AES-256/SHA-512");
    let err = info.unlock(&[]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::PasswordRequired(_)),
        "{err}"
    );
    let err = info.unlock(&["Secret".to_owned()]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::PasswordIncorrect(_)),
        "{err}"
    );
    let key = info
        .unlock(&["wrong".to_owned(), "secret".to_owned()])
        .unwrap();
    let mut package = DecryptedPackage::new(Cursor::new(encrypted.package), key).unwrap();
    let mut plain = Vec::new();
    package.read_to_end(&mut plain).unwrap();
    assert_eq!(plain, workbook);
    let lines = library_dump(&mut Workbook::from_bytes(plain).unwrap()).unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["v"], 42.0);
}
