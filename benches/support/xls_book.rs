//! The `.xls` benchmark workbooks, written once with the tests' BIFF8
//! writer (`tests/common/xls.rs`, which the bench including this file
//! declares as its `xls` module) to `target/bench-data`. Shared by
//! `benches/xls.rs` and `benches/peers.rs`.

use std::path::{Path, PathBuf};

/// Writes the workbook once.
pub fn ensure(name: &str, sheets: usize, columns: u16) -> PathBuf {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&folder).expect("create target/bench-data");
    let path = folder.join(format!("{name}.xls"));
    if path.exists() {
        return path;
    }
    std::fs::write(&path, book(sheets, columns).bytes()).expect("write the workbook");
    path
}

/// The workbook's `Workbook` stream (for a bench that encrypts it).
#[allow(dead_code)]
pub fn stream(sheets: usize, columns: u16) -> Vec<u8> {
    book(sheets, columns).stream()
}

/// The workbook: `sheets` sheets of 65,535 rows x `columns` columns.
fn book(sheets: usize, columns: u16) -> crate::xls::Book {
    let mut book = crate::xls::Book::new();
    book.tail = crate::xls::sst(&["north", "south", "east", "west"], 4, 8224, false);
    for sheet in 0..sheets {
        // Laid out as Excel and LibreOffice write it: blocks of 32 rows,
        // each its ROW records, its cells and a DBCELL, found through the
        // sheet's INDEX record.
        let mut blocks = Vec::new();
        for first in (0..65_535u32).step_by(32) {
            let (mut rows, mut records) = (Vec::new(), Vec::new());
            for row in first..(first + 32).min(65_535) {
                let r = row as u16;
                rows.extend(crate::xls::row_record(r, false));
                for column in 0..columns {
                    records.extend(match column % 10 {
                        0 | 3 => crate::xls::number(
                            r,
                            column,
                            0,
                            f64::from(row) * 1.5 + f64::from(column),
                        ),
                        1 => crate::xls::rk(r, column, 0, crate::xls::rk_int(row as i32, false)),
                        2 => crate::xls::rk(
                            r,
                            column,
                            1,
                            crate::xls::rk_int(40_000 + (row % 5000) as i32, false),
                        ),
                        4 => crate::xls::label_sst(r, column, 0, row % 4),
                        5 => crate::xls::label(r, column, 0, "some label"),
                        6 => crate::xls::boolerr(r, column, 0, (row % 2) as u8, false),
                        7 => crate::xls::formula_number(r, column, 0, f64::from(row) / 4.0),
                        8 => crate::xls::rk(
                            r,
                            column,
                            3,
                            crate::xls::rk_int(row as i32 % 1000, true),
                        ),
                        _ => crate::xls::number(r, column, 0, -0.125),
                    });
                }
            }
            blocks.push((rows, records));
        }
        let records = crate::xls::indexed_records(&blocks, &[], 0);
        book.sheet(&format!("Sheet{}", sheet + 1), records);
    }
    book
}
