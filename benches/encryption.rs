//! Encryption benchmark: encrypted workbooks read through the open path
//! (`OpenOptions::password`, files on disk) against the same workbooks
//! unencrypted, with the ratios the issue on encrypted workbooks asks for.
//!
//! ```text
//! cargo bench --bench encryption
//! ```
//!
//! The workbooks (the `.xlsx` ones in `target/bench-data`, or
//! `$SHEETSTREAM_BENCH_DIR`; written on first use; the `.xls` one and the
//! encrypted copies always in `target/bench-data`):
//!
//! - the bench's 1M x 10 workbook (`one_sheet_1m_x10.xlsx`, see
//!   `support/workbooks.rs`) and its 8 x 125k x 10 one, encrypted with the
//!   tests' Agile encryptor (`tests/common/encrypt.rs`) as Excel writes
//!   them today: AES-256, SHA-512, 100,000 rounds;
//! - the `.xls` bench's 8 x 65,535 x 10 workbook (`support/xls_book.rs`),
//!   encrypted with RC4 CryptoAPI (128-bit) as Excel 2003 writes it.
//!
//! Each read runs in a child process of its own (its peak resident memory,
//! VmHWM, is its own); the plain and the encrypted reads take turns over
//! the rounds, and the fastest of each is kept. Printed:
//!
//! - the key derivation: one password try (in this process), and the
//!   integrity check's pass on its own; the open
//!   of the encrypted workbook against the plain one's (the open tries
//!   Excel's default password, then the given one);
//! - every sheet read, plain against encrypted, on one thread
//!   (`for_each_row`) and on two (the parallel engine: the lone sheet of
//!   the 1M x 10 workbook pipelined, inflated on one thread while scanned
//!   on the other), the open left out: the read's ratio (the issue's bound:
//!   1.15), and the peak RSS of each with their ratio;
//! - one sheet of the 8-sheet workbooks (the last): the bytes read from
//!   the plain file against those read from the encrypted one (the issue's
//!   bound: no more).

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support/readers.rs"]
mod readers;
#[path = "support/results.rs"]
mod results;
#[allow(dead_code)]
#[path = "support/workbooks.rs"]
mod workbooks;
#[path = "support/xls_book.rs"]
mod xls_book;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use common::encrypt::{self, AgileParams};
use common::xls;
use sheetstream::fuzzing::encryption::{
    EncryptionInfo, decrypt_workbook_stream, workbook_stream_filepass,
};
use sheetstream::{OpenOptions, SharedFile, SheetCounts, SheetKind};

const PASSWORD: &str = "bench password";
const ROUNDS: usize = 3;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(
            &args[1],
            Path::new(&args[2]),
            args[3].parse().expect("threads"),
        );
        return;
    }
    let record = results::Results::new("encryption");
    let own = own_dir();
    std::fs::create_dir_all(workbooks::data_dir()).expect("create the bench data folder");
    std::fs::create_dir_all(&own).expect("create target/bench-data");
    let one = workbook("one_sheet_1m_x10.xlsx");
    let eight = workbook("eight_sheets_125k_x10.xlsx");
    let xls_plain = xls_book::ensure("xls-indexed-8x65535x10", 8, 10);
    let one_encrypted = agile(&one);
    let eight_encrypted = agile(&eight);
    let xls_encrypted = rc4(&xls_plain);

    // The key derivation.
    let info = header(&one_encrypted);
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        std::hint::black_box(info.try_password(PASSWORD).expect("the password opens it"));
        best = best.min(start.elapsed().as_secs_f64());
    }
    record.say(format!(
        "{}: {}, spin count {}; one password try {:.1} ms",
        one_encrypted.display(),
        info.scheme(),
        info.spin_count(),
        best * 1e3
    ));
    // The integrity check's pass on its own (HMAC-SHA512 over the whole
    // encrypted package, one sequential read): what a read of every
    // worksheet adds when the workbook has a second handle on its input
    // (`OpenOptions::open`, `from_shared_reader`); the reads below open
    // with `from_reader`, so they leave it out.
    let mut best = f64::MAX;
    for _ in 0..ROUNDS {
        let workbook = OpenOptions::new()
            .password(PASSWORD)
            .from_reader(SharedFile::open(&one_encrypted).expect("open the file"))
            .expect("open");
        let start = Instant::now();
        workbook.verify_integrity().expect("the HMAC matches");
        best = best.min(start.elapsed().as_secs_f64());
    }
    record.say(format!(
        "the integrity check's pass over the 1M x 10 package ({} bytes): {:.3} s",
        std::fs::metadata(&one_encrypted).map_or(0, |meta| meta.len()),
        best
    ));

    for (plain, encrypted, label) in [
        (&one, &one_encrypted, "1M x 10 .xlsx, Agile AES-256/SHA-512"),
        (
            &xls_plain,
            &xls_encrypted,
            "8 x 65,535 x 10 .xls, RC4 CryptoAPI 128-bit",
        ),
    ] {
        record.say(format!("{label}:"));
        for threads in [1, 2] {
            let mut plain_runs = Vec::new();
            let mut encrypted_runs = Vec::new();
            for _ in 0..ROUNDS {
                plain_runs.push(run("read", plain, threads));
                encrypted_runs.push(run("read", encrypted, threads));
            }
            let fastest = |runs: &[Run]| runs.iter().map(|run| run.read).fold(f64::MAX, f64::min);
            let open = |runs: &[Run]| runs.iter().map(|run| run.open).fold(f64::MAX, f64::min);
            let peak = |runs: &[Run]| runs.iter().map(|run| run.peak).max().unwrap_or(0);
            assert!(
                plain_runs
                    .iter()
                    .chain(&encrypted_runs)
                    .all(|run| run.cells == plain_runs[0].cells),
                "the same cells"
            );
            let (plain_read, encrypted_read) = (fastest(&plain_runs), fastest(&encrypted_runs));
            let (plain_peak, encrypted_peak) = (peak(&plain_runs), peak(&encrypted_runs));
            record.say(format!(
                "  {threads} thread(s){}: read plain {:.3} s, encrypted {:.3} s: ratio {:.3} \
                 (open {:.1} ms against {:.1} ms); peak RSS {:.1} MB against {:.1} MB: ratio \
                 {:.3}; {} cells",
                if threads == 2 && plain == &one {
                    " (pipelined)"
                } else {
                    ""
                },
                plain_read,
                encrypted_read,
                encrypted_read / plain_read,
                open(&encrypted_runs) * 1e3,
                open(&plain_runs) * 1e3,
                encrypted_peak as f64 / 1e6,
                plain_peak as f64 / 1e6,
                encrypted_peak as f64 / plain_peak as f64,
                plain_runs[0].cells
            ));
        }
    }

    // The floor of the .xls read: decrypting its workbook stream alone, in
    // memory (RC4 CryptoAPI re-keys every 1,024 bytes: a hash and RC4's
    // key schedule, then the key stream; every reader pays it).
    {
        let mut file = cfb::open(&xls_encrypted).expect("a compound file");
        let mut stream = Vec::new();
        std::io::Read::read_to_end(
            &mut file.open_stream("Workbook").expect("Workbook"),
            &mut stream,
        )
        .expect("read the stream");
        let (_, filepass) = workbook_stream_filepass(&stream)
            .expect("the globals parse")
            .expect("a FILEPASS");
        let decryptor = filepass
            .try_password(PASSWORD)
            .expect("the password opens it");
        let mut best = f64::MAX;
        for _ in 0..ROUNDS {
            let mut copy = stream.clone();
            let mut fresh = decryptor.clone();
            let start = Instant::now();
            decrypt_workbook_stream(&mut copy, &mut fresh);
            best = best.min(start.elapsed().as_secs_f64());
            std::hint::black_box(&copy);
        }
        record.say(format!(
            "floor: decrypting the .xls workbook stream alone ({} bytes, in memory, one thread): \
             {best:.3} s ({:.0} MB/s)",
            stream.len(),
            stream.len() as f64 / best / 1e6
        ));
    }

    // One sheet of eight: the bytes read from the file.
    for (plain, encrypted, label) in [
        (&eight, &eight_encrypted, "8 x 125k x 10 .xlsx (Agile)"),
        (
            &xls_plain,
            &xls_encrypted,
            "8 x 65,535 x 10 .xls (RC4 CryptoAPI)",
        ),
    ] {
        let plain_run = run("last-sheet", plain, 1);
        let encrypted_run = run("last-sheet", encrypted, 1);
        let size = |path: &Path| std::fs::metadata(path).map_or(0, |meta| meta.len());
        record.say(format!(
            "{label}, its last sheet only: {} bytes read from the plain file ({:.1}% of {}), {} \
             from the encrypted one ({:.1}% of {}): ratio {:.4}",
            plain_run.bytes,
            plain_run.bytes as f64 * 100.0 / size(plain) as f64,
            size(plain),
            encrypted_run.bytes,
            encrypted_run.bytes as f64 * 100.0 / size(encrypted) as f64,
            size(encrypted),
            encrypted_run.bytes as f64 / plain_run.bytes as f64
        ));
    }
    record.write();
}

/// What a child read.
struct Run {
    open: f64,
    read: f64,
    cells: u64,
    peak: u64,
    bytes: u64,
}

/// One read in a child process.
fn run(mode: &str, path: &Path, threads: usize) -> Run {
    let output = Command::new(std::env::current_exe().expect("the bench binary"))
        .args([
            "--child",
            mode,
            path.to_str().expect("UTF-8 path"),
            &threads.to_string(),
        ])
        .output()
        .expect("run a child");
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<f64> = text
        .split_whitespace()
        .filter_map(|field| field.parse().ok())
        .collect();
    assert_eq!(
        fields.len(),
        5,
        "child {mode} {}: {text} {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    Run {
        open: fields[0],
        read: fields[1],
        cells: fields[2] as u64,
        peak: fields[3] as u64,
        bytes: fields[4] as u64,
    }
}

/// The child: opens `path` (with the password), reads every worksheet
/// (`read`) or the last sheet alone (`last-sheet`), and prints the open's
/// and the read's seconds, the cells, its peak RSS and the bytes read.
fn child(mode: &str, path: &Path, threads: usize) {
    let read_bytes = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let file = SharedFile::open(path)
        .expect("open the file")
        .with_progress(Arc::clone(&read_bytes));
    let workbook = OpenOptions::new()
        .password(PASSWORD)
        .from_reader(file)
        .expect("open");
    let open = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let positions: Vec<usize> = workbook
        .sheets()
        .iter()
        .filter(|sheet| sheet.kind() == SheetKind::Worksheet)
        .map(|sheet| sheet.position())
        .collect();
    let positions = if mode == "last-sheet" {
        positions[positions.len() - 1..].to_vec()
    } else {
        positions
    };
    let mut workbook = workbook;
    let cells = if threads == 1 {
        let mut counts = SheetCounts::default();
        for position in positions {
            workbook
                .for_each_row(position, |row| counts.add_row(&row))
                .expect("read");
        }
        counts.cells
    } else {
        workbook
            .parallel()
            .threads(threads)
            .sheets(positions)
            .expect("the sheets")
            .fold(
                SheetCounts::default,
                |counts, _sheet, row| counts.add_row(&row),
                |mut a, b| {
                    a.merge(&b);
                    a
                },
            )
            .expect("read")
            .cells
    };
    let read = start.elapsed().as_secs_f64();
    println!(
        "{open} {read} {cells} {} {}",
        readers::peak_rss_bytes(),
        read_bytes.load(Ordering::Relaxed)
    );
}

/// A bench workbook's path, written first when missing.
fn workbook(name: &str) -> PathBuf {
    let recipe = workbooks::RECIPES
        .iter()
        .find(|recipe| recipe.name == name)
        .expect("a bench recipe");
    let path = workbooks::data_dir().join(name);
    if !path.exists() {
        eprintln!("writing {} ({})", path.display(), recipe.description);
        let partial = path.with_extension("partial");
        workbooks::write(recipe, &partial).expect("write the workbook");
        std::fs::rename(&partial, &path).expect("rename");
    }
    path
}

/// `plain` encrypted as Excel writes it today (Agile AES-256/SHA-512,
/// 100,000 rounds), in `target/bench-data`; written once.
fn agile(plain: &Path) -> PathBuf {
    let path = own_dir().join(format!(
        "encrypted-agile-{}",
        plain.file_name().unwrap().to_string_lossy()
    ));
    if !path.exists() {
        eprintln!("writing {}", path.display());
        let params = AgileParams {
            spin_count: 100_000,
            ..AgileParams::default()
        };
        let bytes = std::fs::read(plain).expect("read the workbook");
        let encrypted = encrypt::compound(&encrypt::agile(&bytes, PASSWORD, &params));
        std::fs::write(&path, encrypted).expect("write the encrypted workbook");
    }
    path
}

/// The `.xls` `plain` encrypted with RC4 CryptoAPI, in `target/bench-data`;
/// written once.
fn rc4(plain: &Path) -> PathBuf {
    let path = own_dir().join(format!(
        "encrypted-rc4-{}",
        plain.file_name().unwrap().to_string_lossy()
    ));
    if !path.exists() {
        eprintln!("writing {}", path.display());
        let stream = xls_book::stream(8, 10);
        let encrypted = encrypt::xls_rc4_cryptoapi(&stream, PASSWORD, 1);
        std::fs::write(&path, xls::compound(&[("Workbook", &encrypted)])).expect("write");
    }
    path
}

/// This checkout's `target/bench-data`: the encrypted copies and the
/// `.xls` workbook (as `benches/xls.rs` keeps it).
fn own_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data")
}

/// The `EncryptionInfo` of an encrypted package's compound file.
fn header(path: &Path) -> EncryptionInfo {
    let mut file = cfb::open(path).expect("a compound file");
    EncryptionInfo::read(file.open_stream("EncryptionInfo").expect("EncryptionInfo"))
        .expect("the header parses")
}
