//! Sums the numbers in one column of a sheet, streaming.
//!
//! ```text
//! cargo run --example sum_column -- examples/data/sales.xlsx Data B
//! ```

use std::process::ExitCode;

use sheetstream::{Value, Workbook};

/// Turns column letters (`B`, `AA`) into a 0-based index.
fn column_index(letters: &str) -> Option<u32> {
    if letters.is_empty() || letters.len() > 3 {
        return None;
    }
    letters
        .bytes()
        .try_fold(0u32, |index, letter| {
            letter
                .is_ascii_alphabetic()
                .then(|| index * 26 + u32::from(letter.to_ascii_uppercase() - b'A' + 1))
        })
        .map(|number| number - 1)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, sheet, column] = args.as_slice() else {
        eprintln!("usage: sum_column FILE SHEET COLUMN");
        return ExitCode::from(2);
    };
    let Some(column) = column_index(column) else {
        eprintln!("sum_column: `{column}` is not a column name");
        return ExitCode::from(2);
    };
    let mut sum = 0.0;
    let mut count = 0u64;
    let result = Workbook::open(path).and_then(|mut workbook| {
        workbook.for_each_row(sheet.as_str(), |row| {
            if let Some(Value::Number(number)) = row.get(column).map(|cell| cell.value()) {
                sum += number;
                count += 1;
            }
        })
    });
    match result {
        Ok(()) => {
            println!("{count} numbers, sum {sum}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("sum_column: {err}");
            ExitCode::from(1)
        }
    }
}
