//! The benchmark workbooks, written deterministically with rust_xlsxwriter.
//!
//! Shared by `benches/read.rs` (which writes any that are missing) and
//! `examples/generate_bench_data.rs`.

use std::path::{Path, PathBuf};

use rust_xlsxwriter::{ExcelDateTime, Format, Workbook, Worksheet, XlsxError};

/// One benchmark workbook: its file name and how to write it.
pub struct Recipe {
    pub name: &'static str,
    pub description: &'static str,
    pub sheets: u32,
    pub rows: u32,
    pub columns: u16,
    pub strings: Strings,
}

/// How a recipe's strings are stored.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Strings {
    /// The mixed recipe, strings in the shared strings table.
    Shared,
    /// The mixed recipe, strings written inline (`t="inlineStr"`).
    Inline,
    /// One column of unique shared strings only.
    UniqueOnly,
}

pub const RECIPES: &[Recipe] = &[
    Recipe {
        name: "one_sheet_1m_x10.xlsx",
        description: "1 sheet x 1,000,000 rows x 10 columns, mixed",
        sheets: 1,
        rows: 1_000_000,
        columns: 10,
        strings: Strings::Shared,
    },
    Recipe {
        name: "eight_sheets_125k_x10.xlsx",
        description: "8 sheets x 125,000 rows x 10 columns, mixed",
        sheets: 8,
        rows: 125_000,
        columns: 10,
        strings: Strings::Shared,
    },
    Recipe {
        name: "eight_sheets_5k_x4.xlsx",
        description: "8 sheets x 5,000 rows x 4 columns, mixed",
        sheets: 8,
        rows: 5_000,
        columns: 4,
        strings: Strings::Shared,
    },
    Recipe {
        name: "unique_strings_1m.xlsx",
        description: "1 sheet x 1,000,000 unique shared strings",
        sheets: 1,
        rows: 1_000_000,
        columns: 1,
        strings: Strings::UniqueOnly,
    },
    Recipe {
        name: "inline_strings_200k_x10.xlsx",
        description: "1 sheet x 200,000 rows x 10 columns, mixed, inline strings",
        sheets: 1,
        rows: 200_000,
        columns: 10,
        strings: Strings::Inline,
    },
];

pub const CATEGORIES: [&str; 12] = [
    "north",
    "south",
    "east",
    "west",
    "central",
    "harbour & docks",
    "río",
    "münchen",
    "東京",
    "<unknown>",
    "night shift",
    "day shift",
];

/// Writes one row of the mixed recipe: numbers, dates, date-times, booleans,
/// repeated and unique strings, and sparse cells.
pub fn write_mixed_row(
    sheet: &mut Worksheet,
    row: u32,
    columns: u16,
    date: &Format,
    date_time: &Format,
) -> Result<(), XlsxError> {
    let i = f64::from(row);
    for column in 0..columns {
        match column % 10 {
            0 => {
                sheet.write_number(row, column, i)?;
            }
            1 => {
                sheet.write_number(row, column, (i * 1.25) % 9973.0 - 17.5)?;
            }
            2 => {
                let day = ExcelDateTime::from_serial_datetime(36526.0 + (i % 9000.0))?;
                sheet.write_datetime_with_format(row, column, day, date)?;
            }
            3 => {
                let moment = ExcelDateTime::from_serial_datetime(40000.0 + i / 1440.0)?;
                sheet.write_datetime_with_format(row, column, moment, date_time)?;
            }
            4 => {
                sheet.write_boolean(row, column, row.is_multiple_of(3))?;
            }
            5 => {
                sheet.write_string(row, column, CATEGORIES[row as usize % CATEGORIES.len()])?;
            }
            6 => {
                sheet.write_string(row, column, format!("item-{row:07}"))?;
            }
            7 => {
                if row.is_multiple_of(3) {
                    sheet.write_number(row, column, i / 7.0)?;
                }
            }
            8 => {
                if row.is_multiple_of(5) {
                    sheet.write_string(row, column, "sparse note")?;
                }
            }
            _ => {
                sheet.write_number(row, column, -(i % 1000.0) / 100.0)?;
            }
        }
    }
    Ok(())
}

/// Writes `recipe` to `path`.
pub fn write(recipe: &Recipe, path: &Path) -> Result<(), XlsxError> {
    let mut workbook = Workbook::new();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let date_time = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    for sheet_number in 0..recipe.sheets {
        let sheet = match recipe.strings {
            Strings::Inline => workbook.add_worksheet_with_constant_memory(),
            Strings::Shared | Strings::UniqueOnly => workbook.add_worksheet_with_low_memory(),
        };
        sheet.set_name(format!("Sheet{}", sheet_number + 1))?;
        for row in 0..recipe.rows {
            if recipe.strings == Strings::UniqueOnly {
                sheet.write_string(row, 0, format!("unique string number {row:07}"))?;
            } else {
                write_mixed_row(sheet, row, recipe.columns, &date, &date_time)?;
            }
        }
    }
    workbook.save(path)
}

/// The folder the workbooks live in: `$SHEETSTREAM_BENCH_DIR`, or
/// `target/bench-data`.
pub fn data_dir() -> PathBuf {
    std::env::var_os("SHEETSTREAM_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data"))
}

/// Writes every recipe whose file is missing; returns their paths.
pub fn ensure_all() -> Result<Vec<(PathBuf, &'static Recipe)>, XlsxError> {
    let dir = data_dir();
    std::fs::create_dir_all(&dir)?;
    let mut out = Vec::new();
    for recipe in RECIPES {
        let path = dir.join(recipe.name);
        if !path.exists() {
            eprintln!("writing {} ({})", path.display(), recipe.description);
            let partial = path.with_extension("partial");
            write(recipe, &partial)?;
            std::fs::rename(&partial, &path)?;
        }
        out.push((path, recipe));
    }
    Ok(out)
}
