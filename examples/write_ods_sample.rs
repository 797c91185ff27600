//! Writes a small `.ods` with the bench's own writer
//! (`benches/support/ods_writer.rs`): the mixed rows of the read bench
//! (numbers, dates, date-times, booleans, text with `&`, `<` and
//! non-ASCII characters, sparse columns as repeated empty cells), and
//! beside it `NAME.expected.jsonl`, the cells as written in the
//! conformance dump format. `.ci/run` has LibreOffice read the file back
//! (converting it to `.xlsx` and to flat `.fods`) and compares what
//! sheetstream reads from those with the expectation, to the 15
//! significant digits LibreOffice keeps.
//!
//! ```text
//! cargo run --example write_ods_sample -- target/ods-sample.ods
//! ```

#[path = "../benches/support/ods_writer.rs"]
mod ods_writer;

use std::io::Write;
use std::path::PathBuf;

use ods_writer::OdsCell;

/// Rows written.
const ROWS: u32 = 60;
const COLUMNS: u16 = 10;

fn reference(row: u32, column: u32) -> String {
    let mut letters = String::new();
    let mut column = column + 1;
    while column > 0 {
        let rest = (column - 1) % 26;
        letters.insert(0, char::from(b'A' + rest as u8));
        column = (column - 1) / 26;
    }
    format!("{letters}{}", row + 1)
}

fn main() -> std::io::Result<()> {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/ods-sample.ods"));
    let file = std::fs::File::create(&path)?;
    ods_writer::write_mixed(std::io::BufWriter::new(file), 1, ROWS, COLUMNS)?;
    let mut expected = std::io::BufWriter::new(std::fs::File::create(
        path.with_extension("expected.jsonl"),
    )?);
    let mut strings = Vec::new();
    for row in 0..ROWS {
        for (column, cell) in ods_writer::mixed_row(row, COLUMNS, &mut strings)
            .into_iter()
            .enumerate()
        {
            let (t, v) = match cell {
                OdsCell::Number(number) => ("n", serde_json::json!(number)),
                OdsCell::Date(date) => ("d", serde_json::json!(format!("{date}T00:00:00"))),
                OdsCell::DateTime(moment) | OdsCell::Duration(moment) => {
                    ("d", serde_json::json!(moment))
                }
                OdsCell::Bool(flag) => ("b", serde_json::json!(flag)),
                OdsCell::Text(text) => ("s", serde_json::json!(text)),
                OdsCell::Empty => continue,
            };
            let line = serde_json::json!({
                "sheet": "Sheet1",
                "ref": reference(row, column as u32),
                "t": t,
                "v": v,
            });
            writeln!(expected, "{line}")?;
        }
    }
    expected.flush()?;
    println!("{}", path.display());
    Ok(())
}
