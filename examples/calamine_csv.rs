//! A calamine-based xlsx-to-CSV converter, the peer `sheetstream csv` is
//! timed against (see the closing notes of the CLI work). It writes the
//! first sheet through calamine's `worksheet_range` (cells read and
//! materialised by calamine), dates as ISO 8601,
//! with the csv crate, as `sheetstream csv` does.
//!
//! ```text
//! cargo run --release --example calamine_csv -- FILE OUT.csv
//! ```

use std::fs::File;
use std::io::BufWriter;

use calamine::{Data, Reader, Xlsx, open_workbook};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        return Err("usage: calamine_csv FILE OUT.csv".into());
    };
    let mut workbook: Xlsx<_> = open_workbook(input)?;
    let name = workbook.sheet_names().first().cloned().ok_or("no sheet")?;
    let range = workbook.worksheet_range(&name)?;
    let mut writer = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(BufWriter::with_capacity(1 << 16, File::create(output)?));
    let mut field = String::new();
    for row in range.rows() {
        for value in row {
            field.clear();
            match value {
                Data::Empty => {}
                Data::String(text) | Data::DateTimeIso(text) | Data::DurationIso(text) => {
                    field.push_str(text)
                }
                Data::Float(number) => field.push_str(&number.to_string()),
                Data::Int(number) => field.push_str(&number.to_string()),
                Data::Bool(flag) => field.push_str(if *flag { "TRUE" } else { "FALSE" }),
                Data::Error(error) => field.push_str(&error.to_string()),
                // calamine's own conversion needs its chrono feature; the
                // civil conversion of sheetstream costs the same either way.
                Data::DateTime(date) => {
                    let serial = sheetstream::DateTime::from_serial(
                        date.as_f64(),
                        sheetstream::DateSystem::V1900,
                    );
                    match serial.to_civil() {
                        Some(civil) => field.push_str(&civil.to_string()),
                        None => field.push_str(&date.as_f64().to_string()),
                    }
                }
            }
            writer.write_field(&field)?;
        }
        writer.write_record(std::iter::empty::<&[u8]>())?;
    }
    writer.flush()?;
    Ok(())
}
