//! Time on hostile input is linear in its size (issue 16): each shape is
//! read at size N and 2N, on one thread and pipelined, and the ratio of
//! the two times printed; about 2 is linear, the target is at most ~2.5.
//! A bench, not a test: timings on a shared machine are noisy.
//!
//! Shapes: a row never closed (repeated markup until the row limit), and
//! many sheets sharing one part (until the workbook-wide byte limit).
//!
//! `cargo bench --bench hostile`

#[path = "support/results.rs"]
mod results;

use std::io::{Cursor, Write};
use std::time::{Duration, Instant};

use sheetstream::{Limits, OpenOptions, Row, SheetInfo};
use zip::write::SimpleFileOptions;

const MAIN_NS: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL_NS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

fn package(sheet_count: usize, sheet_xml: &str) -> Vec<u8> {
    let mut sheets = String::new();
    let mut rels = String::new();
    for n in 0..sheet_count {
        sheets.push_str(&format!(
            r#"<sheet name="S{n}" sheetId="{}" r:id="rId{n}"/>"#,
            n + 1
        ));
        rels.push_str(&format!(
            r#"<Relationship Id="rId{n}" Type="{REL_NS}/worksheet" Target="worksheets/sheet1.xml"/>"#
        ));
    }
    let parts = [
        (
            "_rels/.rels",
            format!(
                r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>"#
            ),
        ),
        (
            "xl/workbook.xml",
            format!(
                r#"<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}"><sheets>{sheets}</sheets></workbook>"#
            ),
        ),
        (
            "xl/_rels/workbook.xml.rels",
            format!(
                r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{rels}</Relationships>"#
            ),
        ),
        ("xl/worksheets/sheet1.xml", sheet_xml.to_owned()),
    ];
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, content) in parts {
        zip.start_file(name, SimpleFileOptions::default()).unwrap();
        zip.write_all(content.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// Reads every sheet until the first error; the time it took.
fn time_read(bytes: &[u8], limits: Limits, pipelined: bool) -> Duration {
    let start = Instant::now();
    let mut workbook = OpenOptions::new()
        .limits(limits)
        .from_reader(Cursor::new(bytes.to_vec()))
        .unwrap();
    let result = if pipelined {
        workbook
            .parallel()
            .threads(2)
            .for_each_row(|| |_: &SheetInfo, _: Row<'_>| {})
    } else {
        (|| {
            for position in 0..workbook.sheets().len() {
                let mut rows = workbook.rows(position)?;
                while rows.next_row()?.is_some() {}
            }
            Ok(())
        })()
    };
    assert!(result.is_err(), "the hostile input was refused");
    start.elapsed()
}

/// The best of three.
fn best(bytes: &[u8], limits: Limits, pipelined: bool) -> Duration {
    (0..3)
        .map(|_| time_read(bytes, limits, pipelined))
        .min()
        .unwrap()
}

fn report(record: &results::Results, shape: &str, small: &[u8], large: &[u8], limits: [Limits; 2]) {
    for pipelined in [false, true] {
        let a = best(small, limits[0], pipelined);
        let b = best(large, limits[1], pipelined);
        record.say(format!(
            "{shape:<28} {:<11} N: {:>8.1} ms  2N: {:>8.1} ms  ratio {:.2}",
            if pipelined { "pipelined" } else { "one thread" },
            a.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            b.as_secs_f64() / a.as_secs_f64()
        ));
    }
}

fn main() {
    let record = results::Results::new("hostile");
    // A row never closed: refused at the row limit, which doubles with it.
    let unclosed = |limit: usize| {
        let xml = format!(
            r#"<worksheet xmlns="{MAIN_NS}"><sheetData><row r="1"><c r="A1"><v>1</v></c>{}"#,
            "<x/>".repeat(limit / 4 + 1024)
        );
        (package(1, &xml), {
            let mut limits = Limits::default();
            limits.max_row_bytes = limit as u64;
            limits
        })
    };
    let (small, small_limits) = unclosed(64 << 20);
    let (large, large_limits) = unclosed(128 << 20);
    report(
        &record,
        "unclosed row (64/128 MiB)",
        &small,
        &large,
        [small_limits, large_limits],
    );

    // Many sheets sharing one 1 MiB part: refused at the workbook-wide
    // byte limit, which doubles with the sheet count.
    let rows: String = (1..=20_000)
        .map(|row| format!(r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c></row>"#))
        .collect();
    let part = format!(r#"<worksheet xmlns="{MAIN_NS}"><sheetData>{rows}</sheetData></worksheet>"#);
    let shared = |sheets: usize| {
        let limits = {
            let mut limits = Limits::default();
            limits.max_workbook_bytes = (sheets as u64 / 2) * part.len() as u64;
            limits.max_compression_ratio = u64::MAX;
            limits
        };
        (package(sheets, &part), limits)
    };
    let (small, small_limits) = shared(400);
    let (large, large_limits) = shared(800);
    report(
        &record,
        "shared part (400/800 sheets)",
        &small,
        &large,
        [small_limits, large_limits],
    );
    record.write();
}
