//! Encrypted OpenDocument spreadsheets (feature `encryption`) through the
//! open path: packages encrypted here (`common/odf_encrypt.rs`: AES-256-CBC
//! as LibreOffice writes it, Blowfish CFB as OpenOffice did) read as the
//! same package unencrypted, on every reading path; a missing or wrong
//! password; damaged and hostile encrypted entries (typed errors, never a
//! panic); the encrypted corpus's `.ods` cases; the command line's
//! `--password-file`.

use std::io::Cursor;
use std::sync::Mutex;

use serde_json::{Value as Json, json};
use sheetstream::{ErrorKind, FileFormat, Integrity, OpenOptions, SheetRows, Workbook};

use crate::common::odf_encrypt::{self, OdfCipher, OdfParams, Seeded};
use crate::common::{self, Container, Package, library_dump};
use crate::encryption::{Expect, cases, corpus_root, kind_matches, read_dump};

const PASSWORD: &str = "pässwörd 🔑";
const SPREADSHEET: &str = "application/vnd.oasis.opendocument.spreadsheet";
const NAMESPACES: &str = r#"xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0""#;

/// Rows of the first table: enough that the deflated `content.xml` spans
/// several of the decryptor's 16 KiB chunks.
const ROWS: u32 = 3000;

/// `content.xml`: a table `Data` of [`ROWS`] rows (a number, a text that
/// compresses poorly, a date, a boolean every third row) and a table
/// `Other` of one cell, its second column hidden.
fn content_xml() -> String {
    let mut rows = String::new();
    let mut rng = common::Rng(3);
    for row in 1..=ROWS {
        let noise: String = (0..12)
            .map(|_| char::from(b'a' + (rng.next_u64() % 26) as u8))
            .collect();
        rows.push_str(&format!(
            r#"<table:table-row><table:table-cell office:value-type="float" office:value="{row}"/><table:table-cell office:value-type="string"><text:p>item {row} {noise}</text:p></table:table-cell><table:table-cell table:style-name="ce1" office:value-type="date" office:date-value="2024-01-{day:02}"/>{flag}</table:table-row>"#,
            day = row % 28 + 1,
            flag = if row % 3 == 0 {
                r#"<table:table-cell office:value-type="boolean" office:boolean-value="true"/>"#
            } else {
                ""
            },
        ));
    }
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content {NAMESPACES} office:version="1.2"><office:automatic-styles><style:style style:name="ce1" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N37"/></office:automatic-styles><office:body><office:spreadsheet><table:table table:name="Data">{rows}</table:table><table:table table:name="Other"><table:table-column/><table:table-column table:visibility="collapse"/><table:table-row><table:table-cell office:value-type="string"><text:p>done</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"#
    )
}

/// `styles.xml`: the date style the dates use.
fn styles_xml() -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-styles {NAMESPACES} office:version="1.2"><office:styles><number:date-style style:name="N37"><number:day/><number:text>.</number:text><number:month/><number:text>.</number:text><number:year number:style="long"/></number:date-style><style:style style:name="Default" style:family="table-cell"/></office:styles></office:document-styles>"#
    )
}

/// The package's two entries, as pairs of name and bytes.
fn entries(content: &str, styles: &str) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("content.xml", content.as_bytes().to_vec()),
        ("styles.xml", styles.as_bytes().to_vec()),
    ]
}

fn borrowed<'a>(entries: &'a [(&'static str, Vec<u8>)]) -> Vec<(&'static str, &'a [u8])> {
    entries
        .iter()
        .map(|(name, bytes)| (*name, bytes.as_slice()))
        .collect()
}

/// The same package unencrypted.
fn plain_ods(entries: &[(&'static str, Vec<u8>)]) -> Vec<u8> {
    let mut manifest = String::new();
    let mut package = Package::new().with("mimetype", SPREADSHEET);
    for (name, bytes) in entries {
        manifest.push_str(&format!(
            r#"<manifest:file-entry manifest:full-path="{name}" manifest:media-type="text/xml"/>"#
        ));
        package = package.with(name, bytes.clone());
    }
    package
        .with("META-INF/manifest.xml", odf_encrypt::manifest(&manifest))
        .build()
}

fn encrypted(cipher: OdfCipher) -> Vec<u8> {
    let entries = entries(&content_xml(), &styles_xml());
    let params = OdfParams {
        cipher,
        ..OdfParams::default()
    };
    encrypted_ods(&borrowed(&entries), PASSWORD, &params)
}

/// A spreadsheet package (`mimetype`, the manifest, every entry stored)
/// whose `entries` are encrypted with `password`.
fn encrypted_ods(entries: &[(&str, &[u8])], password: &str, params: &OdfParams) -> Vec<u8> {
    let mut rng = Seeded(params.seed);
    let mut package = Package::new().with("mimetype", SPREADSHEET);
    let mut manifest_entries = String::new();
    for (path, plain) in entries {
        let entry = odf_encrypt::encrypt_entry(path, plain, password, params, &mut rng);
        package = package.with(path, entry.stored);
        manifest_entries.push_str(&entry.manifest_entry);
    }
    package
        .with(
            "META-INF/manifest.xml",
            odf_encrypt::manifest(&manifest_entries),
        )
        .build_as(Container::Stored)
}

fn open(bytes: &[u8], options: OpenOptions) -> sheetstream::Result<Workbook<Cursor<Vec<u8>>>> {
    options.from_reader(Cursor::new(bytes.to_vec()))
}

/// Every worksheet's dump through the parallel engine, the sheets in
/// workbook order.
fn parallel_dump(workbook: &Workbook<Cursor<Vec<u8>>>, threads: usize) -> Vec<Json> {
    let sheets = Mutex::new(Vec::new());
    workbook
        .parallel()
        .threads(threads)
        .for_each_sheet(|| {
            |sheet: &sheetstream::SheetInfo, rows: sheetstream::Result<SheetRows<'_>>| {
                let mut rows = rows?;
                let mut lines = Vec::new();
                while let Some(row) = rows.next_row()? {
                    for cell in row.cells() {
                        lines.push(common::line_json(
                            sheet.name(),
                            &cell.reference().to_string(),
                            cell.value(),
                        ));
                    }
                }
                sheets.lock().unwrap().push((sheet.position(), lines));
                Ok(true)
            }
        })
        .unwrap();
    let mut sheets = sheets.into_inner().unwrap();
    sheets.sort_by_key(|(position, _)| *position);
    sheets.into_iter().flat_map(|(_, lines)| lines).collect()
}

#[test]
fn an_encrypted_ods_reads_as_the_plain_one_on_every_path() {
    let plain_bytes = plain_ods(&entries(&content_xml(), &styles_xml()));
    let plain = library_dump(&mut Workbook::from_bytes(plain_bytes).unwrap()).unwrap();
    // Every cell of `Data` and the one of `Other`.
    assert_eq!(plain.len(), 3 * ROWS as usize + ROWS as usize / 3 + 1);
    for (cipher, scheme) in [
        (OdfCipher::Aes256, "ods AES-256-CBC"),
        (OdfCipher::Blowfish, "ods Blowfish CFB"),
    ] {
        let bytes = encrypted(cipher);
        let mut workbook = open(&bytes, OpenOptions::new().password(PASSWORD)).unwrap();
        assert_eq!(workbook.file_format(), FileFormat::Ods);
        assert_eq!(workbook.encryption_scheme(), Some(scheme));
        // Nothing beyond each entry's checksum to check.
        assert_eq!(workbook.integrity(), Integrity::NotRecorded);
        assert_eq!(workbook.verify_integrity().unwrap(), Integrity::NotRecorded);
        let names: Vec<&str> = workbook.sheets().iter().map(|s| s.name()).collect();
        assert_eq!(names, ["Data", "Other"]);
        let lines = library_dump(&mut workbook).unwrap();
        assert_eq!(lines, plain, "{scheme}: the pull reader");
        assert_eq!(
            lines[0],
            json!({"sheet": "Data", "ref": "A1", "t": "n", "v": 1.0})
        );
        assert_eq!(
            lines[1]["v"].as_str().unwrap().split(' ').next(),
            Some("item")
        );
        assert_eq!(
            lines[2],
            json!({"sheet": "Data", "ref": "C1", "t": "d", "v": "2024-01-02T00:00:00"})
        );
        let last_row = lines.iter().rfind(|line| line["sheet"] == "Data").unwrap();
        assert_eq!(
            *last_row,
            json!({"sheet": "Data", "ref": "D3000", "t": "b", "v": true})
        );
        assert_eq!(
            *lines.last().unwrap(),
            json!({"sheet": "Other", "ref": "A1", "t": "s", "v": "done"})
        );
        for threads in [1, 2] {
            assert_eq!(
                parallel_dump(&workbook, threads),
                plain,
                "{scheme}: the parallel engine on {threads} threads"
            );
        }
        // A second open with the password among wrong ones: the first that
        // opens it is taken.
        let workbook = open(
            &bytes,
            OpenOptions::new().passwords(["wrong".to_owned(), PASSWORD.to_owned()]),
        )
        .unwrap();
        assert_eq!(workbook.sheets().len(), 2);
        // Metadata reads the decrypted document too.
        let mut workbook = open(&bytes, OpenOptions::new().password(PASSWORD)).unwrap();
        let metadata = workbook.sheet_metadata(1).unwrap();
        assert!(!metadata.is_column_hidden(0) && metadata.is_column_hidden(1));
    }
}

#[test]
fn a_missing_or_wrong_password_says_so() {
    for cipher in [OdfCipher::Aes256, OdfCipher::Blowfish] {
        let bytes = encrypted(cipher);
        let err = open(&bytes, OpenOptions::new()).err().unwrap();
        assert!(
            matches!(err.kind(), ErrorKind::PasswordRequired(_)),
            "{err}"
        );
        assert!(err.to_string().contains("a password is required"), "{err}");
        // An .ods has no default password: the message does not name one.
        assert!(!err.to_string().contains("default"), "{err}");
        let err = open(&bytes, OpenOptions::new().password("Pässwörd 🔑"))
            .err()
            .unwrap();
        assert!(
            matches!(err.kind(), ErrorKind::PasswordIncorrect(_)),
            "{err}"
        );
        assert!(
            err.to_string().contains("the password is incorrect"),
            "{err}"
        );
        // Excel's default password is no default here.
        let err = open(&bytes, OpenOptions::new().password("VelvetSweatshop"))
            .err()
            .unwrap();
        assert!(
            matches!(err.kind(), ErrorKind::PasswordIncorrect(_)),
            "{err}"
        );
    }
    // Encrypted with the default password, it still takes it given.
    let entries = entries(&content_xml(), &styles_xml());
    let bytes = encrypted_ods(
        &borrowed(&entries),
        "VelvetSweatshop",
        &OdfParams::default(),
    );
    let err = open(&bytes, OpenOptions::new()).err().unwrap();
    assert!(
        matches!(err.kind(), ErrorKind::PasswordRequired(_)),
        "{err}"
    );
    assert!(open(&bytes, OpenOptions::new().password("VelvetSweatshop")).is_ok());
}

/// The package of `content` (encrypted as given) and `styles.xml` (plain
/// or encrypted), with the manifest entries passed through `edit`.
fn package_with(
    content: &[u8],
    manifest_edit: impl Fn(String) -> String,
    stored_edit: impl Fn(&mut Vec<u8>),
) -> Vec<u8> {
    let params = OdfParams::default();
    let mut rng = Seeded(11);
    let mut entry = odf_encrypt::encrypt_entry("content.xml", content, PASSWORD, &params, &mut rng);
    stored_edit(&mut entry.stored);
    Package::new()
        .with("mimetype", SPREADSHEET)
        .with(
            "META-INF/manifest.xml",
            odf_encrypt::manifest(&manifest_edit(entry.manifest_entry)),
        )
        .with("content.xml", entry.stored)
        .build_as(Container::Stored)
}

/// Reads every cell of every sheet.
fn read_all(bytes: &[u8]) -> sheetstream::Result<usize> {
    let mut workbook = open(bytes, OpenOptions::new().password(PASSWORD))?;
    Ok(library_dump(&mut workbook)?.len())
}

#[test]
fn damaged_and_hostile_encrypted_entries_are_typed_errors() {
    let content = content_xml();
    let content = content.as_bytes();
    let same = |text: String| text;
    let intact = |_: &mut Vec<u8>| {};
    // The package as written reads (styles.xml absent: the date style is
    // then unknown, the cells the same).
    assert_eq!(
        read_all(&package_with(content, same, intact)).unwrap(),
        3 * ROWS as usize + ROWS as usize / 3 + 1
    );
    // A manifest size that lies: the integrity check fails once the entry
    // has inflated (a size too large at its end, too small past it).
    let size = format!(r#"manifest:size="{}""#, content.len());
    for lie in [content.len() + 1, content.len() - 1] {
        let bytes = package_with(
            content,
            |entry| entry.replace(&size, &format!(r#"manifest:size="{lie}""#)),
            intact,
        );
        let err = read_all(&bytes).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::IntegrityFailure(_)),
            "{lie}: {err}"
        );
        assert!(err.to_string().contains("manifest"), "{err}");
        assert_eq!(err.location().part.as_deref(), Some("content.xml"), "{err}");
    }
    // Ciphertext changed past the checksum's first 1024 bytes (the ZIP's
    // CRC-32 made to match): the password verifies, the rest does not
    // decrypt to the entry.
    let bytes = package_with(content, same, |stored| {
        for byte in &mut stored[4096..4160] {
            *byte ^= 0x5a;
        }
    });
    let err = read_all(&bytes).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::IntegrityFailure(_) | ErrorKind::Xml(_)
        ),
        "{err}"
    );
    // Cut by one AES block: the padding, or the deflate stream, breaks.
    let bytes = package_with(content, same, |stored| {
        stored.truncate(stored.len() - 16);
    });
    let err = read_all(&bytes).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::IntegrityFailure(_) | ErrorKind::Encrypted(_)
        ),
        "{err}"
    );
    // Not whole AES blocks.
    let bytes = package_with(content, same, |stored| {
        stored.pop();
    });
    let err = read_all(&bytes).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
    // The checksum is the password check: a changed one refuses the
    // password.
    let bytes = package_with(
        content,
        |entry| {
            let at = entry.find(r#"manifest:checksum=""#).unwrap() + 19;
            let mut entry = entry.into_bytes();
            entry[at] = if entry[at] == b'A' { b'B' } else { b'A' };
            String::from_utf8(entry).unwrap()
        },
        intact,
    );
    let err = read_all(&bytes).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::PasswordIncorrect(_)),
        "{err}"
    );
    // Schemes and parameters the engine does not take, refused by name
    // before any hashing.
    for (from, to) in [
        ("xmlenc#aes256-cbc", "xmlenc11#aes256-gcm"),
        (
            r#"manifest:iteration-count="1024""#,
            r#"manifest:iteration-count="2000000000""#,
        ),
        (
            r#"manifest:key-derivation-name="PBKDF2""#,
            r#"manifest:key-derivation-name="argon2id""#,
        ),
    ] {
        let bytes = package_with(content, |entry| entry.replace(from, to), intact);
        let err = read_all(&bytes).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
            "{to}: {err}"
        );
    }
    // Encryption data for an entry the package does not hold.
    let bytes = package_with(
        content,
        |entry| {
            entry.replace(
                r#"manifest:full-path="content.xml""#,
                r#"manifest:full-path="gone.xml""#,
            )
        },
        intact,
    );
    let err = read_all(&bytes).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
    assert!(err.to_string().contains("gone.xml"), "{err}");
    // The stored bytes changed after the ZIP was written: its CRC-32 fails
    // (or the decrypted bytes do first).
    let mut bytes = package_with(content, same, intact);
    let data = zip::ZipArchive::new(Cursor::new(&bytes))
        .unwrap()
        .by_name("content.xml")
        .unwrap()
        .data_start()
        .unwrap();
    bytes[data as usize + 8192] ^= 1;
    assert!(read_all(&bytes).is_err());
}

/// Every byte of a small encrypted package flipped in turn, and every
/// length it could be cut to: an error or the cells, never a panic.
#[test]
fn mutated_encrypted_ods_never_panic() {
    let small = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content {NAMESPACES}><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell office:value-type="float" office:value="42"/></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"#
    );
    for cipher in [OdfCipher::Aes256, OdfCipher::Blowfish] {
        let params = OdfParams {
            cipher,
            iterations: 1,
            seed: 5,
        };
        let bytes = encrypted_ods(&[("content.xml", small.as_bytes())], "p", &params);
        let read = |bytes: &[u8]| -> sheetstream::Result<usize> {
            let mut workbook = open(bytes, OpenOptions::new().password("p"))?;
            Ok(library_dump(&mut workbook)?.len())
        };
        assert_eq!(read(&bytes).unwrap(), 1);
        for at in (0..bytes.len()).step_by(3) {
            let mut mutated = bytes.clone();
            mutated[at] ^= 0x21;
            let _ = read(&mutated);
        }
        for len in (0..bytes.len()).step_by(7) {
            let _ = read(&bytes[..len]);
        }
    }
}

/// The encrypted corpus's `.ods` cases (`../shared/conformance/corpus-encrypted`)
/// opened as a user opens them, their password given, against their
/// expectations.
#[test]
fn the_encrypted_corpus_ods_cases_read() {
    let Some(root) = corpus_root() else {
        common::skip_notice(
            "the_encrypted_corpus_ods_cases_read",
            "../shared/conformance/corpus-encrypted",
        );
        return;
    };
    let mut failures = Vec::new();
    let mut passed = 0;
    for case in cases(&root)
        .iter()
        .filter(|case| case.path.extension().is_some_and(|ext| ext == "ods"))
    {
        let outcome = OpenOptions::new()
            .passwords(case.passwords.iter().cloned())
            .open(&case.path)
            .and_then(|mut workbook| library_dump(&mut workbook));
        let verdict = match (&case.expect, &outcome) {
            (Expect::Cells(dump), Ok(lines)) => {
                match common::dump_difference(&read_dump(dump), lines) {
                    Some(difference) => Err(difference),
                    None => Ok(()),
                }
            }
            (Expect::Error(line), Err(err)) if kind_matches(line, err) => Ok(()),
            (expect, outcome) => Err(format!("expected {expect:?}, got {outcome:?}")),
        };
        match verdict {
            Ok(()) => passed += 1,
            Err(problem) => failures.push(format!("{}: {problem}", case.name)),
        }
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
    assert_eq!(passed, 8, "the corpus holds 8 encrypted .ods cases");
}

#[test]
fn the_command_line_reads_an_encrypted_ods_with_its_password_file() {
    let file = common::temp_file("ods-encrypted", &encrypted(OdfCipher::Aes256));
    let password = common::temp_file("ods-encrypted-password", PASSWORD.as_bytes());
    let path = |file: &common::TempFile| file.0.to_str().unwrap().to_owned();
    let run = common::run_cli_args(&["cells", &path(&file), "--password-file", &path(&password)]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines = common::parse_dump(&run.stdout);
    assert_eq!(lines.len(), 3 * ROWS as usize + ROWS as usize / 3 + 1);
    assert_eq!(
        lines[0],
        json!({"sheet": "Data", "ref": "A1", "t": "n", "v": 1})
    );
    let run = common::run_cli_args(&["cells", &path(&file)]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr.contains("a password is required"),
        "{}",
        run.stderr
    );
}
