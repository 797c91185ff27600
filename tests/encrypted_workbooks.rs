//! Encrypted workbooks through the open path (feature `encryption`):
//! `OpenOptions::password`, Excel's default password, every reading path
//! (the pull reader, the parallel engine, `.xls` blocks, metadata) on an
//! encrypted package and an encrypted `.xls` against the same workbook
//! unencrypted, the integrity check (when a read checks it, what a
//! changed package gives), hostile containers, and the encrypted corpus
//! (`../shared/conformance/corpus-encrypted`) opened as a user opens it.
//!
//! The command-line tool's `--password-file`, `SHEETSTREAM_PASSWORD` and
//! `--password` are checked at the end.
//!
//! The workbooks are encrypted here with the tests' encryptors
//! (`common/encrypt.rs`: Agile as Office writes it, RC4 CryptoAPI `.xls`
//! as Excel 2003 writes it).

use std::io::{Cursor, Read, Seek, SeekFrom};
use std::sync::Mutex;

use serde_json::Value as Json;
use sheetstream::{ErrorKind, FileFormat, Integrity, OpenOptions, SheetKind, SheetRows, Workbook};

use crate::common::encrypt::{self, AgileParams};
use crate::common::{self, Rng, dump_difference, library_dump, sheet_xml, xls};
use crate::encryption::{Expect, cases, corpus_root, kind_matches, read_dump};

const PASSWORD: &str = "pässwörd 🔑";

/// A plain workbook of three worksheets (shared strings, numbers, a
/// date style), and an unread extra part of `extra` bytes (for tampering).
fn plain_book(extra: usize) -> Vec<u8> {
    let rows = |sheet: usize, count: usize| {
        (1..=count)
            .map(|row| {
                format!(
                    r#"<row r="{row}"><c r="A{row}"><v>{}</v></c><c r="B{row}" t="s"><v>{}</v></c><c r="C{row}" s="1"><v>{}</v></c></row>"#,
                    row * 10 + sheet,
                    row % 2,
                    45_000 + row
                )
            })
            .collect::<String>()
    };
    let book = common::book()
        .sheet("First", sheet_xml(&rows(1, 400)))
        .sheet("Second", sheet_xml(&rows(2, 50)))
        .sheet("Third", sheet_xml(&rows(3, 3)))
        .strings(&["<t>even</t>", "<t>odd</t>"])
        .styles(common::styles_xml(&[], &[0, 14]));
    let mut package = book.package();
    if extra > 0 {
        package = package.with("docProps/extra.bin", Rng(9).bytes(extra));
    }
    package.build()
}

/// `plain` encrypted with `password` as Office does, in its compound file.
fn encrypted(plain: &[u8], password: &str) -> Vec<u8> {
    encrypt::compound(&encrypt::agile(plain, password, &AgileParams::default()))
}

fn open(bytes: &[u8], options: OpenOptions) -> sheetstream::Result<Workbook<Cursor<Vec<u8>>>> {
    options.from_shared_reader(Cursor::new(bytes.to_vec()))
}

/// A reader that does not clone.
struct NoClone<R>(R);

impl<R: Read> Read for NoClone<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: Seek> Seek for NoClone<R> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.0.seek(pos)
    }
}

/// Every worksheet's dump through the parallel engine (each sheet's lines
/// in file order, the sheets in workbook order).
fn parallel_dump<R>(workbook: &Workbook<R>, threads: usize) -> sheetstream::Result<Vec<Json>>
where
    R: Read + Seek + Clone + Send,
{
    let sheets = Mutex::new(Vec::new());
    workbook.parallel().threads(threads).for_each_sheet(|| {
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
    })?;
    let mut sheets = sheets.into_inner().unwrap();
    sheets.sort_by_key(|(position, _)| *position);
    Ok(sheets.into_iter().flat_map(|(_, lines)| lines).collect())
}

#[test]
fn an_agile_package_opens_with_its_password_and_reads_as_the_plain_workbook() {
    let plain = plain_book(0);
    let bytes = encrypted(&plain, PASSWORD);
    let expected = library_dump(&mut Workbook::from_bytes(plain).unwrap()).unwrap();
    assert_eq!(expected.len(), 3 * 453);
    // The password after a wrong one; Excel's default password listed too.
    let options = OpenOptions::new()
        .password("wrong")
        .passwords(["VelvetSweatshop", PASSWORD]);
    let mut workbook = open(&bytes, options.clone()).unwrap();
    assert_eq!(workbook.file_format(), FileFormat::Xlsx);
    assert_eq!(workbook.encryption_scheme(), Some("Agile AES-256/SHA-512"));
    assert_eq!(workbook.integrity(), Integrity::NotVerified);
    assert_eq!(library_dump(&mut workbook).unwrap(), expected);
    // The pull reader, having read every worksheet, checked the HMAC at
    // the last sheet's end; so does the parallel engine, one thread or
    // more (one answer on every path).
    assert_eq!(workbook.integrity(), Integrity::Verified);
    // A reader that does not clone has no second handle for the check's
    // pass: no path checks unasked, the explicit check still can.
    let mut unshared = options
        .from_reader(NoClone(Cursor::new(bytes.clone())))
        .unwrap();
    assert_eq!(library_dump(&mut unshared).unwrap(), expected);
    assert_eq!(unshared.integrity(), Integrity::NotVerified);
    for threads in [1, 2, 4] {
        let workbook = open(&bytes, options.clone()).unwrap();
        assert_eq!(parallel_dump(&workbook, threads).unwrap(), expected);
        assert_eq!(workbook.integrity(), Integrity::Verified, "{threads}");
    }
    // From a file, by path.
    let file = common::temp_file("encrypted-agile", &bytes);
    let workbook = OpenOptions::new().password(PASSWORD).open(&file.0).unwrap();
    let sheets = workbook.load_all().unwrap();
    assert_eq!(sheets.len(), 3);
    assert_eq!(sheets[0].cell_count(), 1200);
    assert_eq!(workbook.integrity(), Integrity::Verified);
}

#[test]
fn a_missing_or_wrong_password_says_so_never_a_damaged_zip() {
    let bytes = encrypted(&plain_book(0), PASSWORD);
    let err = open(&bytes, OpenOptions::new()).err().unwrap();
    assert!(
        matches!(err.kind(), ErrorKind::PasswordRequired(_)),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "encrypted workbook (Agile AES-256/SHA-512): a password is required (Excel's default \
         password does not open it)"
    );
    let err = Workbook::from_bytes(bytes.clone()).err().unwrap();
    assert!(
        matches!(err.kind(), ErrorKind::PasswordRequired(_)),
        "{err}"
    );
    for wrong in [&["pässwörd"][..], &["PÄSSWÖRD 🔑", ""]] {
        let err = open(&bytes, OpenOptions::new().passwords(wrong.iter().copied()))
            .err()
            .unwrap();
        assert!(
            matches!(err.kind(), ErrorKind::PasswordIncorrect(_)),
            "{wrong:?}: {err}"
        );
        assert!(
            err.to_string().contains("the password is incorrect"),
            "{err}"
        );
    }
    // A plain workbook opens whatever passwords are given.
    let plain = open(&plain_book(0), OpenOptions::new().password("unused")).unwrap();
    assert_eq!(plain.encryption_scheme(), None);
    assert_eq!(plain.integrity(), Integrity::NotEncrypted);
}

#[test]
fn excels_default_password_opens_a_workbook_unasked() {
    let plain = plain_book(0);
    let bytes = encrypted(&plain, "VelvetSweatshop");
    let mut workbook = Workbook::from_bytes(bytes).unwrap();
    assert_eq!(workbook.encryption_scheme(), Some("Agile AES-256/SHA-512"));
    assert_eq!(
        library_dump(&mut workbook).unwrap(),
        library_dump(&mut Workbook::from_bytes(plain).unwrap()).unwrap()
    );
}

/// The package encrypted, with a ciphertext byte changed inside the
/// unread extra part (the sheets' bytes intact).
fn tampered() -> Vec<u8> {
    let plain = plain_book(20_000);
    let name = b"docProps/extra.bin";
    let at = plain
        .windows(name.len())
        .position(|window| window == name)
        .expect("the extra part's local header");
    let mut encrypted = encrypt::agile(&plain, PASSWORD, &AgileParams::default());
    // Past the name: 10,000 bytes into the part's data; +8: StreamSize.
    encrypted.package[8 + at + name.len() + 10_000] ^= 0x40;
    encrypt::compound(&encrypted)
}

#[test]
fn the_integrity_check_runs_when_every_worksheet_was_read_and_fails_a_changed_package() {
    let bytes = tampered();
    let options = OpenOptions::new().password(PASSWORD);
    // One sheet, a range of another: no check, the rows as written.
    let workbook = open(&bytes, options.clone()).unwrap();
    workbook
        .parallel()
        .sheets([0])
        .unwrap()
        .for_each_row(|| |_: &sheetstream::SheetInfo, _: sheetstream::Row<'_>| ())
        .unwrap();
    let rows = Mutex::new(0);
    workbook
        .parallel()
        .sheets([1, 2])
        .unwrap()
        .stop_after_row(Some(1))
        .for_each_row(|| {
            |_: &sheetstream::SheetInfo, _: sheetstream::Row<'_>| *rows.lock().unwrap() += 1
        })
        .unwrap();
    assert_eq!(*rows.lock().unwrap(), 4);
    assert_eq!(workbook.integrity(), Integrity::NotVerified);
    // The rest read whole: the last sheet's end checks, and fails.
    let err = workbook
        .parallel()
        .sheets([1, 2])
        .unwrap()
        .for_each_row(|| |_: &sheetstream::SheetInfo, _: sheetstream::Row<'_>| ())
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::IntegrityFailure(_)),
        "{err}"
    );
    assert!(err.to_string().contains("integrity check failed"), "{err}");
    assert_eq!(err.location().part.as_deref(), Some("EncryptedPackage"));
    // The pull reader, every worksheet in turn: the same error at the
    // last one's end.
    let mut workbook = open(&bytes, options.clone()).unwrap();
    let err = library_dump(&mut workbook).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::IntegrityFailure(_)),
        "{err}"
    );
    // Every sheet at once, and load_all: the same.
    let workbook = open(&bytes, options.clone()).unwrap();
    let err = parallel_dump(&workbook, 2).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::IntegrityFailure(_)),
        "{err}"
    );
    let err = open(&bytes, options.clone())
        .unwrap()
        .load_all()
        .unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::IntegrityFailure(_)),
        "{err}"
    );
    // On request, and at open.
    let workbook = open(&bytes, options.clone()).unwrap();
    let err = workbook.verify_integrity().unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::IntegrityFailure(_)),
        "{err}"
    );
    let err = open(&bytes, options.clone().verify_integrity(true))
        .err()
        .unwrap();
    assert!(
        matches!(err.kind(), ErrorKind::IntegrityFailure(_)),
        "{err}"
    );
    // The intact package: verified at open, on request, and by a full read.
    let intact = encrypted(&plain_book(20_000), PASSWORD);
    let workbook = open(&intact, options.clone().verify_integrity(true)).unwrap();
    assert_eq!(workbook.integrity(), Integrity::Verified);
    let workbook = open(&intact, options.clone()).unwrap();
    assert_eq!(workbook.verify_integrity().unwrap(), Integrity::Verified);
    assert_eq!(workbook.integrity(), Integrity::Verified);
}

/// A reader that cannot be cloned (as a `File` or a `BufReader`).
struct Unshared(Cursor<Vec<u8>>);

impl Read for Unshared {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl Seek for Unshared {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.0.seek(pos)
    }
}

#[test]
fn a_reader_that_cannot_clone_reads_and_checks_at_open() {
    let plain = plain_book(0);
    let bytes = encrypted(&plain, PASSWORD);
    let options = OpenOptions::new().password(PASSWORD).verify_integrity(true);
    let mut workbook = options.from_reader(Unshared(Cursor::new(bytes))).unwrap();
    assert_eq!(workbook.integrity(), Integrity::Verified);
    assert_eq!(
        library_dump(&mut workbook).unwrap(),
        library_dump(&mut Workbook::from_bytes(plain).unwrap()).unwrap()
    );
    let bytes = tampered();
    let err = options
        .from_reader(Unshared(Cursor::new(bytes)))
        .err()
        .unwrap();
    assert!(
        matches!(err.kind(), ErrorKind::IntegrityFailure(_)),
        "{err}"
    );
}

/// A BIFF8 stream of two sheets: one laid out in 40 blocks of 32 rows
/// with INDEX and DBCELL (read block by block on 4 threads), one small
/// with a hidden row; shared strings and a defined name.
fn xls_stream() -> Vec<u8> {
    let mut blocks = Vec::new();
    for first in (0..1280u16).step_by(32) {
        let (mut rows, mut cells) = (Vec::new(), Vec::new());
        for row in first..first + 32 {
            rows.extend(xls::row_record(row, row % 97 == 5));
            cells.extend(xls::number(row, 0, 0, f64::from(row) * 1.25));
            cells.extend(xls::label_sst(row, 1, 0, u32::from(row % 3)));
            cells.extend(xls::label(row, 2, 0, &format!("label {row}")));
            cells.extend(xls::rk(
                row,
                3,
                1,
                xls::rk_int(40_000 + i32::from(row), false),
            ));
            cells.extend(xls::boolerr(row, 4, 0, (row % 2) as u8, false));
        }
        blocks.push((rows, cells));
    }
    let mut book = xls::Book::new();
    book.tail = xls::sst(&["alpha", "beta", "gamma"], 3, 8224, false);
    book.sheet("Blocks", xls::indexed_records(&blocks, &[], 0));
    let mut small = xls::row_record(1, true);
    small.extend(xls::label(0, 0, 0, "tiny"));
    small.extend(xls::number(2, 1, 2, 0.5));
    book.sheet("Small", small);
    book.stream()
}

/// Every row of every worksheet as a line (hidden rows included).
fn row_lines<R: Read + Seek>(workbook: &mut Workbook<R>) -> Vec<String> {
    let mut lines = Vec::new();
    for position in 0..workbook.sheets().len() {
        workbook
            .for_each_row(position, |row| {
                let cells: Vec<String> = row
                    .cells()
                    .iter()
                    .map(|cell| format!("{}={:?}", cell.reference(), cell.value()))
                    .collect();
                lines.push(format!(
                    "{position} {} {} {}",
                    row.index(),
                    row.is_hidden(),
                    cells.join(" ")
                ));
            })
            .unwrap();
    }
    lines
}

#[test]
fn an_encrypted_xls_reads_as_the_plain_one_on_every_path() {
    let _one = crate::xls::BLOCK_COUNTER
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let stream = xls_stream();
    let plain = xls::compound(&[("Workbook", &stream)]);
    let bytes = xls::compound(&[(
        "Workbook",
        &encrypt::xls_rc4_cryptoapi(&stream, PASSWORD, 3),
    )]);
    assert_ne!(plain.len(), 0);
    let err = Workbook::from_bytes(bytes.clone()).err().unwrap();
    assert!(
        matches!(err.kind(), ErrorKind::PasswordRequired(_)),
        "{err}"
    );
    assert!(
        err.to_string().contains("xls RC4 CryptoAPI 128-bit"),
        "{err}"
    );
    let options = OpenOptions::new().password(PASSWORD);
    let mut workbook = open(&bytes, options.clone()).unwrap();
    let mut reference = Workbook::from_bytes(plain).unwrap();
    assert_eq!(workbook.file_format(), FileFormat::Xls);
    assert_eq!(
        workbook.encryption_scheme(),
        Some("xls RC4 CryptoAPI 128-bit")
    );
    assert_eq!(workbook.integrity(), Integrity::NotRecorded);
    let names: Vec<&str> = workbook.sheets().iter().map(|s| s.name()).collect();
    assert_eq!(names, ["Blocks", "Small"]);
    let expected = row_lines(&mut reference);
    assert_eq!(expected.len(), 1280 + 3);
    assert_eq!(row_lines(&mut workbook), expected);
    assert_eq!(
        library_dump(&mut workbook).unwrap(),
        library_dump(&mut reference).unwrap()
    );
    // Metadata: the dimension, hidden rows.
    for position in 0..2 {
        assert_eq!(
            workbook.sheet_dimension(position).unwrap(),
            reference.sheet_dimension(position).unwrap()
        );
        assert_eq!(
            workbook.hidden_rows(position).unwrap(),
            reference.hidden_rows(position).unwrap()
        );
    }
    assert!(!workbook.hidden_rows(0).unwrap().is_empty());
    // The parallel engine: the big sheet alone on 4 threads is read block
    // by block (INDEX and DBCELL decrypted to plan them).
    let expected = library_dump(&mut reference).unwrap();
    for threads in [1, 2, 4] {
        let workbook = open(&bytes, options.clone()).unwrap();
        assert_eq!(parallel_dump(&workbook, threads).unwrap(), expected);
    }
    let workbook = open(&bytes, options).unwrap();
    let before = sheetstream::fuzzing::xls_blocks_read();
    let lines = Mutex::new(0);
    workbook
        .parallel()
        .threads(4)
        .sheets([0])
        .unwrap()
        .for_each_row(|| {
            |_: &sheetstream::SheetInfo, _: sheetstream::Row<'_>| *lines.lock().unwrap() += 1
        })
        .unwrap();
    assert_eq!(*lines.lock().unwrap(), 1280);
    let read = sheetstream::fuzzing::xls_blocks_read() - before;
    assert!(read >= 35, "{read} blocks read in parallel");
}

#[test]
fn a_verifier_that_passes_over_a_garbage_package_is_a_damaged_package() {
    let garbage = Rng(5).bytes(30_000);
    let bytes = encrypt::compound(&encrypt::agile(&garbage, PASSWORD, &AgileParams::default()));
    let err = open(&bytes, OpenOptions::new().password(PASSWORD))
        .err()
        .unwrap();
    assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
    assert!(
        err.to_string()
            .contains("the password opened it, but the decrypted package is not a workbook"),
        "{err}"
    );
}

#[test]
fn an_encryption_header_whose_minifat_is_gone_is_a_damaged_container() {
    // Found by the `open_workbook` fuzz target: the header says there is
    // no MiniFAT, so the compound file opens on the second try (without
    // it), and the small `EncryptionInfo` stream, which lies in the mini
    // stream, fails in the middle of its read. That is the container's
    // damage, typed, not an I/O error from bytes in memory.
    let mut bytes = encrypted(&plain_book(0), PASSWORD);
    bytes[0x3C..0x40].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
    bytes[0x40..0x44].copy_from_slice(&0u32.to_le_bytes());
    let err = open(&bytes, OpenOptions::new().password(PASSWORD))
        .err()
        .unwrap();
    assert!(matches!(err.kind(), ErrorKind::Xls(_)), "{err:?}");
    assert!(
        err.to_string().contains("damaged OLE2 compound file")
            && err.to_string().contains("MiniFAT"),
        "{err}"
    );
}

#[test]
fn a_fat_padded_with_end_of_chain_markers_opens() {
    // excelize fills the FAT entries past the file's last sector with
    // ENDOFCHAIN rather than FREESECT.
    let mut bytes = encrypted(&plain_book(0), PASSWORD);
    let sector = 4096usize;
    let sectors = (bytes.len() - sector) / sector;
    let fat = u32::from_le_bytes(bytes[0x4C..0x50].try_into().unwrap()) as usize;
    let at = (fat + 1) * sector;
    assert!(sectors < 1024, "one FAT sector covers the file");
    for entry in sectors..1024 {
        bytes[at + entry * 4..at + entry * 4 + 4].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
    }
    let mut workbook = open(&bytes, OpenOptions::new().password(PASSWORD)).unwrap();
    assert_eq!(library_dump(&mut workbook).unwrap().len(), 3 * 453);
}

#[test]
fn hostile_encrypted_containers_are_typed_errors() {
    // A spin count of a billion: refused before any hashing.
    let params = AgileParams {
        spin_count: 1_000_000_000,
        ..AgileParams::default()
    };
    let plain = plain_book(0);
    let bytes = encrypt::compound(&encrypt::Encrypted {
        info: encrypt::agile_header_only(&plain, PASSWORD, &params),
        package: encrypt::agile(&plain, PASSWORD, &AgileParams::default()).package,
    });
    let err = open(&bytes, OpenOptions::new().password(PASSWORD))
        .err()
        .unwrap();
    assert!(
        matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
        "{err}"
    );
    // A StreamSize past the stream.
    let mut encrypted = encrypt::agile(&plain, PASSWORD, &AgileParams::default());
    encrypted.package[..8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let err = open(
        &encrypt::compound(&encrypted),
        OpenOptions::new().password(PASSWORD),
    )
    .err()
    .unwrap();
    assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
    assert!(err.to_string().contains("cut short"), "{err}");
    // Only one of the two streams; an IRM/DRM container.
    let only_info = xls::compound(&[("EncryptionInfo", &[4, 0, 4, 0][..])]);
    let err = open(&only_info, OpenOptions::new()).err().unwrap();
    assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
    let drm = xls::compound(&[("\u{9}DRMContent", &[0u8; 100][..])]);
    let err = open(&drm, OpenOptions::new()).err().unwrap();
    assert!(
        matches!(err.kind(), ErrorKind::UnsupportedEncryption(_)),
        "{err}"
    );
    // A FILEPASS too short for its scheme, in BIFF8 and BIFF5.
    for biff5 in [false, true] {
        let mut book = if biff5 {
            xls::Book::biff5(None)
        } else {
            xls::Book::new()
        };
        book.sheet("S", xls::number(0, 0, 0, 1.0));
        let stream = book.stream();
        let bof = 4 + usize::from(u16::from_le_bytes([stream[2], stream[3]]));
        let mut damaged = stream[..bof].to_vec();
        damaged.extend(xls::record(0x002F, &[1, 0]));
        damaged.extend_from_slice(&stream[bof..]);
        let name = if biff5 { "Book" } else { "Workbook" };
        let err = open(&xls::compound(&[(name, &damaged)]), OpenOptions::new())
            .err()
            .unwrap();
        assert!(matches!(err.kind(), ErrorKind::Encrypted(_)), "{err}");
        assert!(err.to_string().contains("too short"), "{err}");
    }
}

/// Every byte of a small encrypted package and `.xls` changed in turn (a
/// sample of them): a typed error or a workbook, never a panic; reading
/// what opens ends too.
#[test]
fn mutated_encrypted_workbooks_never_panic() {
    let small = common::book()
        .sheet("S", sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#))
        .build();
    let params = AgileParams {
        spin_count: 10,
        ..AgileParams::default()
    };
    let agile = encrypt::compound(&encrypt::agile(&small, "pw", &params));
    let mut book = xls::Book::new();
    book.sheet("S", xls::number(0, 0, 0, 1.0));
    let rc4 = xls::compound(&[(
        "Workbook",
        &encrypt::xls_rc4_cryptoapi(&book.stream(), "pw", 1),
    )]);
    let mut rng = Rng(77);
    for original in [agile, rc4] {
        for _ in 0..600 {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.next_u64() % 3 {
                let at = (rng.next_u64() % bytes.len() as u64) as usize;
                bytes[at] = rng.next_u64() as u8;
            }
            if let Ok(workbook) = open(&bytes, OpenOptions::new().password("pw")) {
                let _ = parallel_dump(&workbook, 2);
                let _ = workbook.verify_integrity();
            }
        }
    }
}

/// Every case of the encrypted corpus opened as a user opens it (its
/// password given when it has one) and read through the parallel engine
/// (every worksheet: the integrity check runs), against its expectation.
/// (`ods_encrypted.rs` reads the `.ods` cases in the quick tier too.)
#[test]
#[ignore = "slow tier: .ci/run runs it in release"]
fn the_encrypted_corpus_reads_through_the_open_path() {
    let Some(root) = corpus_root() else {
        common::skip_notice(
            "the_encrypted_corpus_reads_through_the_open_path",
            "../shared/conformance/corpus-encrypted",
        );
        return;
    };
    let cases = cases(&root);
    let (mut passed, mut verified) = (0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let outcome = OpenOptions::new()
            .passwords(case.passwords.iter().cloned())
            .open(&case.path)
            .and_then(|workbook| {
                let lines = parallel_dump(&workbook, 2)?;
                Ok((lines, workbook.integrity()))
            });
        if let Ok((_, Integrity::Verified)) = &outcome {
            verified += 1;
        }
        let verdict = match (&case.expect, &outcome) {
            (Expect::Cells(dump) | Expect::Any(dump), Ok((lines, integrity))) => {
                match dump_difference(&read_dump(dump), lines) {
                    Some(difference) => Err(difference),
                    None if *integrity == Integrity::NotVerified => {
                        Err("read every sheet, yet the integrity check did not run".into())
                    }
                    None => Ok(()),
                }
            }
            (Expect::Cells(_), Err(err)) => Err(format!("refused: {err}")),
            (Expect::Error(line), Err(err)) if kind_matches(line, err) => Ok(()),
            (Expect::Error(line), Err(err)) => {
                Err(format!("refused with `{err}`; expected: {line}"))
            }
            (Expect::Error(_), Ok(_)) => Err("read, but must be refused".into()),
            (Expect::Any(_), Err(err)) => match err.kind() {
                ErrorKind::UnsupportedEncryption(_) => Ok(()),
                _ => Err(format!("refused, but not as unsupported: {err}")),
            },
        };
        match verdict {
            Ok(()) => passed += 1,
            Err(problem) => failures.push(format!("{}: {problem}", case.name)),
        }
    }
    println!(
        "encrypted corpus through the open path: {passed} of {} passed; the HMAC verified by \
         the read on {verified}",
        cases.len()
    );
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
    assert!(passed >= 100, "{passed}");
    assert!(verified >= 20, "{verified}");
}

#[test]
fn worksheets_only_count_for_the_check() {
    // A chart sheet is no worksheet: reading the worksheets is reading
    // every sheet the check waits for.
    let plain = common::book()
        .sheet(
            "Data",
            sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#),
        )
        .sheet_of_type(
            "Chart",
            "http://schemas.openxmlformats.org/officeDocument/2006/relationships/chartsheet",
            None,
            "<chartsheet/>",
        )
        .build();
    let bytes = encrypted(&plain, PASSWORD);
    let workbook = open(&bytes, OpenOptions::new().password(PASSWORD)).unwrap();
    assert_eq!(workbook.sheets()[1].kind(), SheetKind::Chartsheet);
    parallel_dump(&workbook, 1).unwrap();
    assert_eq!(workbook.integrity(), Integrity::Verified);
}

/// Runs the tool with `SHEETSTREAM_PASSWORD` set to `password` (or
/// removed).
fn run_with_variable(args: &[&str], password: Option<&str>) -> common::CliRun {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_sheetstream"));
    command.args(args);
    match password {
        Some(password) => command.env("SHEETSTREAM_PASSWORD", password),
        None => command.env_remove("SHEETSTREAM_PASSWORD"),
    };
    let output = command.output().expect("run the sheetstream binary");
    common::CliRun {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("UTF-8"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn the_command_line_takes_a_password_file_the_variable_or_a_warned_flag() {
    let plain = common::temp_file("cli-plain", &plain_book(0));
    let encrypted = common::temp_file("cli-encrypted", &encrypted(&plain_book(0), PASSWORD));
    // The file holds the password and a newline, as an editor saves it.
    let password = common::temp_file("cli-password", format!("{PASSWORD}\n").as_bytes());
    let wrong = common::temp_file("cli-wrong", b"wrong");
    let path = |file: &common::TempFile| file.0.to_str().unwrap().to_owned();
    let expected = run_with_variable(&["cells", &path(&plain)], None);
    assert_eq!(expected.code, Some(0), "{}", expected.stderr);
    assert_eq!(expected.stdout.lines().count(), 3 * 453);
    for (args, variable) in [
        (
            vec![
                "cells",
                &path(&encrypted),
                "--password-file",
                &path(&password),
            ],
            None,
        ),
        // Before the command's name, and a wrong file first.
        (
            vec![
                "--password-file",
                &path(&wrong),
                "cells",
                &path(&encrypted),
                "--password-file",
                &path(&password),
            ],
            None,
        ),
        (vec!["cells", &path(&encrypted)], Some(PASSWORD)),
    ] {
        let run = run_with_variable(&args, variable);
        assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, expected.stdout, "{args:?}");
        assert_eq!(run.stderr, "", "{args:?}");
    }
    // --password works, and warns.
    let run = run_with_variable(&["cells", &path(&encrypted), "--password", PASSWORD], None);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, expected.stdout);
    assert!(
        run.stderr.contains("warning") && run.stderr.contains("process list"),
        "{}",
        run.stderr
    );
    // None, a wrong one: exit 1, the file named, what happened said.
    let run = run_with_variable(&["count", &path(&encrypted)], None);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains(&path(&encrypted)), "{}", run.stderr);
    assert!(
        run.stderr.contains("a password is required"),
        "{}",
        run.stderr
    );
    let run = run_with_variable(
        &["count", &path(&encrypted), "--password-file", &path(&wrong)],
        None,
    );
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("the password is incorrect"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("ZIP"), "{}", run.stderr);
    // A password file that is not there: bad usage.
    let run = run_with_variable(
        &[
            "count",
            &path(&encrypted),
            "--password-file",
            "/nonexistent/pw",
        ],
        None,
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    // --help says a password on the command line leaks.
    let help = run_with_variable(&["--help"], None);
    assert!(help.stdout.contains("--password-file"), "{}", help.stdout);
    assert!(help.stdout.contains("process list"), "{}", help.stdout);
    assert!(
        help.stdout.contains("SHEETSTREAM_PASSWORD"),
        "{}",
        help.stdout
    );
}

#[test]
fn the_command_line_checks_integrity_when_it_reads_every_sheet() {
    let tampered = common::temp_file("cli-tampered", &tampered());
    let file = tampered.0.to_str().unwrap();
    // Every sheet (cells, count, csv --all): the check runs, and fails.
    for args in [
        vec!["cells", file],
        vec!["count", file, "-t", "1"],
        vec!["count", file, "-t", "2"],
    ] {
        let run = run_with_variable(&args, Some(PASSWORD));
        assert_eq!(run.code, Some(1), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("the integrity check failed"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stderr.contains(file), "{}", run.stderr);
    }
    // One sheet: no pass over the whole file, the sheet as written.
    let run = run_with_variable(&["cells", file, "--sheet", "Second"], Some(PASSWORD));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 3 * 50);
    // Unless asked for.
    let run = run_with_variable(
        &["cells", file, "--sheet", "Second", "--verify-integrity"],
        Some(PASSWORD),
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("the integrity check failed"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_command_line_reads_an_encrypted_xls() {
    let stream = xls_stream();
    let plain = common::temp_file("cli-xls-plain", &xls::compound(&[("Workbook", &stream)]));
    let encrypted = common::temp_file(
        "cli-xls-encrypted",
        &xls::compound(&[(
            "Workbook",
            &encrypt::xls_rc4_cryptoapi(&stream, PASSWORD, 4),
        )]),
    );
    for command in ["cells", "count"] {
        let expected = run_with_variable(&[command, plain.0.to_str().unwrap()], None);
        let run = run_with_variable(&[command, encrypted.0.to_str().unwrap()], Some(PASSWORD));
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert_eq!(run.stdout, expected.stdout, "{command}");
    }
}
