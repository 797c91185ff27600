//! Memory while reading one row is bounded by `Limits::max_row_bytes`:
//! about twice the limit plus a constant (see the `Limits` docs), on the
//! one-thread and on the pipelined path, for rows the reader refuses and
//! for big rows it reads.
//!
//! This test binary installs a counting global allocator that tracks the
//! bytes live at once, so it holds this one test only: another test on
//! another thread would add its own allocations to the peak.

mod common;

use common::*;
use sheetstream::{Error, ErrorKind, Limits, OpenOptions};

#[path = "../benches/support/counting_allocator.rs"]
mod counting_allocator;

use counting_allocator::{live_bytes, peak_bytes, reset_peak};

#[path = "../benches/support/xlsb_writer.rs"]
mod xlsb_writer;

use xlsb_writer::{XlsbCell, XlsbWriter};

const ROW_LIMIT: u64 = 8 << 20;
/// What a reader may hold besides the rows' own bytes: the inflater's
/// window and input buffer, the pipe's four 576 KiB buffers, one chunk
/// of slack past the limit, the row's cells (at most 16,384 of them, raw
/// and resolved) and pieces (at most 262,144).
const CONSTANT: u64 = 16 << 20;

fn limits() -> Limits {
    {
        let mut limits = Limits::default();
        limits.max_row_bytes = ROW_LIMIT;
        limits
    }
}

/// Reads the only sheet of `bytes` on one thread or pipelined over two,
/// returning the cells read (or the error) and the peak of heap bytes
/// live while reading, above what was live before.
fn peak_while_reading(bytes: &[u8], pipelined: bool) -> (Result<usize, Error>, u64) {
    let mut workbook = OpenOptions::new()
        .limits(limits())
        .from_reader(std::io::Cursor::new(bytes.to_vec()))
        .expect("open");
    let before = live_bytes();
    reset_peak();
    let result = if pipelined {
        let cells = std::sync::atomic::AtomicUsize::new(0);
        workbook
            .parallel()
            .threads(2)
            .for_each_row(|| {
                |_: &sheetstream::SheetInfo, row: sheetstream::Row<'_>| {
                    cells.fetch_add(row.cells().len(), std::sync::atomic::Ordering::Relaxed);
                }
            })
            .map(|()| cells.into_inner())
    } else {
        (|| {
            let mut cells = 0;
            let mut rows = workbook.rows(0)?;
            while let Some(row) = rows.next_row()? {
                cells += row.cells().len();
            }
            Ok(cells)
        })()
    };
    (result, peak_bytes().saturating_sub(before))
}

fn sheet(rows: &str) -> Vec<u8> {
    book().sheet("Data", sheet_xml(rows)).build()
}

#[test]
fn memory_per_row_is_bounded_by_the_row_limit() {
    let limit = ROW_LIMIT as usize;
    let bound = 2 * ROW_LIMIT + CONSTANT;
    // A row never closed: three times the limit of markup after one cell.
    let unclosed = sheet(&format!(
        r#"<row r="1"><c r="A1"><v>1</v></c>{}"#,
        "<x></x>".repeat(3 * limit / 7)
    ));
    // A row just under the limit of short cells, each a text value that
    // needs decoding, in two pieces around a comment (the arena's and the
    // pieces' share of the row).
    let cell = r#"<c t="inlineStr"><is><t>&amp;_x0041_<!---->b</t></is></c>"#;
    let decoded_cells = sheet(&format!(r#"<row r="1">{}</row>"#, cell.repeat(16_384)));
    // One value of nearly the limit that needs decoding and unescaping.
    let value = "&lt;_x0041_".repeat((limit - 1024) / 11);
    let huge_value = sheet(&format!(
        r#"<row r="1"><c r="A1" t="inlineStr"><is><t>{value}</t></is></c></row>"#
    ));
    // Hundreds of thousands of cells at one reference: refused at the
    // 16,385th.
    let repeated = sheet(&format!(
        r#"<row r="1">{}</row>"#,
        r#"<c r="A1"><v>1</v></c>"#.repeat(limit / 22)
    ));
    for pipelined in [false, true] {
        let path = if pipelined { "pipelined" } else { "one thread" };
        let (result, peak) = peak_while_reading(&unclosed, pipelined);
        let err = result.expect_err("an unclosed row is refused");
        assert!(
            matches!(
                err.kind(),
                ErrorKind::LimitExceeded {
                    limit: "row or string item size",
                    ..
                }
            ),
            "{path}: {err}"
        );
        eprintln!("unclosed row, {path}: peak {peak} bytes (bound {bound})");
        assert!(peak <= bound, "unclosed row, {path}: peak {peak} > {bound}");

        let (result, peak) = peak_while_reading(&decoded_cells, pipelined);
        assert_eq!(result.expect("16,384 decoded cells read"), 16_384, "{path}");
        eprintln!("decoded cells, {path}: peak {peak} bytes (bound {bound})");
        assert!(
            peak <= bound,
            "decoded cells, {path}: peak {peak} > {bound}"
        );

        let (result, peak) = peak_while_reading(&huge_value, pipelined);
        assert_eq!(result.expect("a value near the limit is read"), 1, "{path}");
        eprintln!("huge value, {path}: peak {peak} bytes (bound {bound})");
        assert!(peak <= bound, "huge value, {path}: peak {peak} > {bound}");
        // The value must have been read for that peak to mean anything.
        assert!(peak >= ROW_LIMIT / 2, "huge value, {path}: peak {peak}");

        let (result, peak) = peak_while_reading(&repeated, pipelined);
        let err = result.expect_err("repeated cells are refused");
        assert!(
            matches!(err.kind(), ErrorKind::CellReference(_)),
            "{path}: {err}"
        );
        assert!(
            err.to_string().contains("more than 16384 cells"),
            "{path}: {err}"
        );
        eprintln!("repeated cells, {path}: peak {peak} bytes");
        assert!(
            peak <= bound,
            "repeated cells, {path}: peak {peak} > {bound}"
        );
    }
    xlsb_memory_per_row_is_bounded_by_the_row_limit();
}

/// The same for `.xlsb` rows: a row's records over the limit, one record
/// of nearly the limit (read), one column written again and again.
fn xlsb_memory_per_row_is_bounded_by_the_row_limit() {
    let limit = ROW_LIMIT as usize;
    let bound = 2 * ROW_LIMIT + CONSTANT;
    let xlsb = |fill: &dyn Fn(&mut XlsbWriter)| {
        let mut writer = XlsbWriter::new();
        writer.add_sheet("Data", 0);
        writer.row(0);
        fill(&mut writer);
        writer.to_bytes()
    };
    let text = "x".repeat(1100);
    let long_row = xlsb(&|writer| {
        for column in 0..8_000 {
            writer.cell(column, 0, XlsbCell::RichText(&text));
        }
    });
    let value = "\u{e9}".repeat((limit - 1024) / 2);
    let huge_record = xlsb(&|writer| writer.cell(0, 0, XlsbCell::RichText(&value)));
    let repeated = xlsb(&|writer| {
        for _ in 0..20_000 {
            writer.cell(0, 0, XlsbCell::Bool(true));
        }
    });
    for pipelined in [false, true] {
        let path = if pipelined { "pipelined" } else { "one thread" };
        let (result, peak) = peak_while_reading(&long_row, pipelined);
        let err = result.expect_err("a row over the limit is refused");
        assert!(
            matches!(err.kind(), ErrorKind::LimitExceeded { .. }),
            ".xlsb, {path}: {err}"
        );
        eprintln!(".xlsb row over the limit, {path}: peak {peak} bytes (bound {bound})");
        assert!(
            peak <= bound,
            ".xlsb long row, {path}: peak {peak} > {bound}"
        );

        let (result, peak) = peak_while_reading(&huge_record, pipelined);
        assert_eq!(
            result.expect("a record near the limit is read"),
            1,
            "{path}"
        );
        eprintln!(".xlsb record near the limit, {path}: peak {peak} bytes (bound {bound})");
        assert!(
            peak <= bound,
            ".xlsb huge record, {path}: peak {peak} > {bound}"
        );
        assert!(
            peak >= ROW_LIMIT / 2,
            ".xlsb huge record, {path}: peak {peak}"
        );

        let (result, peak) = peak_while_reading(&repeated, pipelined);
        let err = result.expect_err("repeated cells are refused");
        assert!(
            err.to_string().contains("more than 16384 cells"),
            ".xlsb, {path}: {err}"
        );
        eprintln!(".xlsb repeated cells, {path}: peak {peak} bytes");
        assert!(
            peak <= bound,
            ".xlsb repeated cells, {path}: peak {peak} > {bound}"
        );
    }
}
