//! Encryption benchmark: what decrypting costs next to reading the plain
//! workbook, for the decryption engine below the workbook (feature
//! `encryption`; the open path does not decrypt yet, so the encrypted
//! reads here go through `DecryptedPackage` by hand, as it will).
//!
//! ```text
//! cargo bench --bench encryption
//! ```
//!
//! The bench's 1M x 10 workbook and its 8 x 125k x 10 one (see
//! `support/workbooks.rs`, written to `target/bench-data` on first use)
//! are encrypted in memory with the tests' Agile encryptor
//! (`tests/common/encrypt.rs`) as Excel writes them today: AES-256,
//! SHA-512, 100,000 rounds. Printed, each the fastest of its rounds:
//!
//! - the key derivation (one password try) and the unlock (the default
//!   password, then the right one);
//! - decrypting the whole package through `DecryptedPackage` (64 KiB
//!   reads), and the `dataIntegrity` HMAC pass, in MB/s of package;
//! - every sheet read on one thread and on two, plain against encrypted,
//!   with their ratio (the key derivation left out: it is printed on its
//!   own);
//! - one sheet of the 8-sheet workbook: the bytes read from the plain
//!   file against the bytes of `EncryptedPackage` read.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support/results.rs"]
mod results;
#[allow(dead_code)]
#[path = "support/workbooks.rs"]
mod workbooks;

use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::encrypt::{self, AgileParams};
use sheetstream::fuzzing::encryption::{DecryptedPackage, EncryptionInfo, PackageKey};
use sheetstream::{SheetCounts, SheetKind, Workbook};

const PASSWORD: &str = "bench password";

/// A reader that counts the bytes read through it (shared by clones).
#[derive(Clone)]
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.read.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// The fastest of `rounds` runs of `f`.
fn fastest<T>(rounds: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..rounds {
        let start = Instant::now();
        let value = f();
        best = best.min(start.elapsed());
        last = Some(value);
    }
    (best, last.expect("at least one round"))
}

fn mb_per_s(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / 1e6 / time.as_secs_f64()
}

/// Every worksheet's cells, on `threads` threads (1: `for_each_row`).
fn read_all<R: Read + Seek + Clone + Send>(workbook: &mut Workbook<R>, threads: usize) -> u64 {
    if threads > 1 {
        let total = workbook
            .parallel()
            .threads(threads)
            .fold(
                SheetCounts::default,
                |counts, _sheet, row| counts.add_row(&row),
                |mut a, b| {
                    a.merge(&b);
                    a
                },
            )
            .expect("read");
        return total.cells;
    }
    let mut total = SheetCounts::default();
    for position in 0..workbook.sheets().len() {
        if workbook.sheets()[position].kind() == SheetKind::Worksheet {
            workbook
                .for_each_row(position, |row| total.add_row(&row))
                .expect("read");
        }
    }
    total.cells
}

fn workbook_bytes(name: &str) -> Arc<[u8]> {
    let recipe = workbooks::RECIPES
        .iter()
        .find(|recipe| recipe.name == name)
        .expect("a bench recipe");
    let dir = workbooks::data_dir();
    std::fs::create_dir_all(&dir).expect("create the bench data folder");
    let path = dir.join(name);
    if !path.exists() {
        eprintln!("writing {} ({})", path.display(), recipe.description);
        let partial = path.with_extension("partial");
        workbooks::write(recipe, &partial).expect("write the workbook");
        std::fs::rename(&partial, &path).expect("rename");
    }
    std::fs::read(&path).expect("read the workbook").into()
}

/// The workbook encrypted as Excel does, and the key its password opens.
fn encrypted(plain: &[u8]) -> (Arc<[u8]>, EncryptionInfo) {
    let params = AgileParams {
        spin_count: 100_000,
        ..AgileParams::default()
    };
    let encrypted = encrypt::agile(plain, PASSWORD, &params);
    let info = EncryptionInfo::parse(&encrypted.info).expect("the header parses");
    (encrypted.package.into(), info)
}

fn package(stream: &Arc<[u8]>, key: &PackageKey) -> DecryptedPackage<Cursor<Arc<[u8]>>> {
    DecryptedPackage::new(Cursor::new(Arc::clone(stream)), key.clone()).expect("the package")
}

fn main() {
    let record = results::Results::new("encryption");
    let rounds = 3;
    let plain = workbook_bytes("one_sheet_1m_x10.xlsx");
    let (stream, info) = encrypted(&plain);
    record.say(format!(
        "one_sheet_1m_x10.xlsx: {:.1} MB plain, {} (spin count {})",
        plain.len() as f64 / 1e6,
        info.scheme(),
        info.spin_count()
    ));

    // The key derivation: one try, and the unlock (default, then right).
    let (derive, key) = fastest(5, || info.try_password(PASSWORD).expect("the password"));
    let (unlock, _) = fastest(3, || info.unlock(&[PASSWORD.to_owned()]).expect("unlock"));
    record.say(format!(
        "key derivation (one password try): {:.1} ms; unlock (VelvetSweatshop, then the \
         password): {:.1} ms",
        derive.as_secs_f64() * 1e3,
        unlock.as_secs_f64() * 1e3
    ));

    // Decryption alone, and the HMAC pass.
    let mut buffer = vec![0u8; 64 * 1024];
    let (decrypt, _) = fastest(rounds, || {
        let mut reader = package(&stream, &key);
        let mut total = 0;
        loop {
            let read = reader.read(&mut buffer).expect("read");
            if read == 0 {
                break total;
            }
            total += read;
        }
    });
    let (hmac, _) = fastest(rounds, || {
        package(&stream, &key)
            .verify_integrity()
            .expect("the HMAC matches")
    });
    record.say(format!(
        "decrypt the whole package: {:.0} MB/s; dataIntegrity HMAC pass: {:.0} MB/s \
         ({:.1} ms and {:.1} ms for {:.1} MB)",
        mb_per_s(plain.len(), decrypt),
        mb_per_s(stream.len(), hmac),
        decrypt.as_secs_f64() * 1e3,
        hmac.as_secs_f64() * 1e3,
        plain.len() as f64 / 1e6
    ));

    // Every sheet, plain against encrypted, rounds taking turns.
    for threads in [1, 2] {
        let mut best_plain = Duration::MAX;
        let mut best_encrypted = Duration::MAX;
        let mut cells = (0, 0);
        for _ in 0..rounds {
            let start = Instant::now();
            let mut workbook = Workbook::from_bytes(Arc::clone(&plain)).expect("open");
            cells.0 = read_all(&mut workbook, threads);
            best_plain = best_plain.min(start.elapsed());
            let start = Instant::now();
            let mut workbook = Workbook::from_reader(package(&stream, &key)).expect("open");
            cells.1 = read_all(&mut workbook, threads);
            best_encrypted = best_encrypted.min(start.elapsed());
        }
        assert_eq!(cells.0, cells.1, "the same cells");
        record.say(format!(
            "read every sheet, {threads} thread(s): plain {:.0} ms, encrypted {:.0} ms: \
             ratio {:.3} ({} cells)",
            best_plain.as_secs_f64() * 1e3,
            best_encrypted.as_secs_f64() * 1e3,
            best_encrypted.as_secs_f64() / best_plain.as_secs_f64(),
            cells.0
        ));
    }

    // One sheet of eight: bytes read.
    let plain = workbook_bytes("eight_sheets_125k_x10.xlsx");
    let (stream, info) = encrypted(&plain);
    let key = info.unlock(&[PASSWORD.to_owned()]).expect("unlock");
    let plain_read = Arc::new(AtomicU64::new(0));
    let counted = Counting {
        inner: Cursor::new(Arc::clone(&plain)),
        read: Arc::clone(&plain_read),
    };
    let mut workbook = Workbook::from_reader(counted).expect("open");
    let last = workbook.sheets().len() - 1;
    workbook.for_each_row(last, |_| ()).expect("read");
    let encrypted_read = Arc::new(AtomicU64::new(0));
    let counted = Counting {
        inner: Cursor::new(Arc::clone(&stream)),
        read: Arc::clone(&encrypted_read),
    };
    let reader = DecryptedPackage::new(counted, key).expect("the package");
    let mut workbook = Workbook::from_reader(reader).expect("open");
    workbook.for_each_row(last, |_| ()).expect("read");
    let (plain_read, encrypted_read) = (
        plain_read.load(Ordering::Relaxed),
        encrypted_read.load(Ordering::Relaxed),
    );
    record.say(format!(
        "eight_sheets_125k_x10.xlsx, its last sheet only: {plain_read} bytes read from the \
         plain file ({:.1}% of {}), {encrypted_read} bytes of EncryptedPackage ({:.1}%): ratio \
         {:.4}",
        plain_read as f64 * 100.0 / plain.len() as f64,
        plain.len(),
        encrypted_read as f64 * 100.0 / stream.len() as f64,
        encrypted_read as f64 / plain_read as f64
    ));
    record.write();
}
