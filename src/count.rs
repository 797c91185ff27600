//! Counting what a sheet holds: the unit of work of `sheetstream count`
//! and of the benchmarks, and a quick `wc` for workbooks.
//!
//! `SheetCounts` is the unit of work of `sheetstream count` and the benches.

use std::fmt;

use crate::cell::{Row, Value};

/// Counts and checksums of the cells of a sheet, accumulated row by row.
///
/// ```
/// # fn main() -> Result<(), sheetstream::Error> {
/// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// let mut counts = sheetstream::SheetCounts::default();
/// workbook.for_each_row("Data", |row| counts.add_row(&row))?;
/// assert_eq!((counts.rows, counts.cells, counts.numbers), (4, 18, 4));
/// assert_eq!(counts.number_sum, 80.0);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SheetCounts {
    /// Rows seen, including rows without cells.
    pub rows: u64,
    /// Cells holding a value.
    pub cells: u64,
    /// Number cells.
    pub numbers: u64,
    /// Sum of the number cells.
    pub number_sum: f64,
    /// Text cells.
    pub texts: u64,
    /// Total UTF-8 bytes of the text cells.
    pub text_bytes: u64,
    /// Boolean cells.
    pub booleans: u64,
    /// Boolean cells that are true.
    pub trues: u64,
    /// Error cells.
    pub errors: u64,
    /// Date, time and duration cells.
    pub dates: u64,
    /// Sum of the date cells' serial numbers.
    pub date_serial_sum: f64,
}

impl SheetCounts {
    /// Adds one row's cells.
    #[inline]
    pub fn add_row(&mut self, row: &Row<'_>) {
        self.rows += 1;
        for cell in row.cells() {
            self.add_value(cell.value());
        }
    }

    /// Adds one value.
    #[inline]
    pub fn add_value(&mut self, value: Value<'_>) {
        self.cells += 1;
        match value {
            Value::Number(number) => {
                self.numbers += 1;
                self.number_sum += number;
            }
            Value::Text(text) => {
                self.texts += 1;
                self.text_bytes += text.len() as u64;
            }
            Value::Bool(flag) => {
                self.booleans += 1;
                self.trues += u64::from(flag);
            }
            Value::Error(_) => self.errors += 1,
            Value::DateTime(date) => {
                self.dates += 1;
                self.date_serial_sum += date.serial();
            }
        }
    }

    /// Adds the counts of another sheet (or another part of one).
    pub fn merge(&mut self, other: &SheetCounts) {
        self.rows += other.rows;
        self.cells += other.cells;
        self.numbers += other.numbers;
        self.number_sum += other.number_sum;
        self.texts += other.texts;
        self.text_bytes += other.text_bytes;
        self.booleans += other.booleans;
        self.trues += other.trues;
        self.errors += other.errors;
        self.dates += other.dates;
        self.date_serial_sum += other.date_serial_sum;
    }
}

/// A sum in its shortest form that reads back the same: plain digits for
/// everyday magnitudes, an exponent otherwise.
struct Sum(f64);

impl fmt::Display for Sum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let magnitude = self.0.abs();
        if magnitude == 0.0 || (1e-5..1e16).contains(&magnitude) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

impl fmt::Display for SheetCounts {
    /// One line: `rows=.. cells=.. numbers=..(sum ..) texts=..(.. bytes) booleans=..(.. true) errors=.. dates=..(serial sum ..)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rows={} cells={} numbers={} (sum {}) texts={} ({} bytes) booleans={} ({} true) errors={} dates={} (serial sum {})",
            self.rows,
            self.cells,
            self.numbers,
            Sum(self.number_sum),
            self.texts,
            self.text_bytes,
            self.booleans,
            self.trues,
            self.errors,
            self.dates,
            Sum(self.date_serial_sum)
        )
    }
}
