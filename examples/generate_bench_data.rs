//! Writes the benchmark workbooks (see `benches/support/workbooks.rs`) into
//! `target/bench-data` (or `$SHEETSTREAM_BENCH_DIR`), skipping any that
//! exist.
//!
//! ```text
//! cargo run --release --example generate_bench_data
//! cargo run --release --example generate_bench_data -- --big
//! ```
//!
//! `--big` writes only the two workbooks the Spark bench reads for
//! executor memory (`python/benches/spark_bench.py --big`): one sheet of
//! 1,048,575 rows x 25 columns of the mixed recipe (about 100 MB), and the
//! same recipe's first 11 rows (a header and 10 rows of the same columns
//! and types: the Python worker's baseline), and prints their paths.

#[path = "../benches/support/workbooks.rs"]
mod workbooks;

/// The large workbook: Excel's last row, two and a half rounds of the mixed columns.
const BIG: workbooks::Recipe = workbooks::Recipe {
    name: "one_sheet_1048575_x25.xlsx",
    description: "1 sheet x 1,048,575 rows x 25 columns, mixed",
    sheets: 1,
    rows: 1_048_575,
    columns: 25,
    strings: workbooks::Strings::Shared,
};

/// The large workbook's first rows: its columns and types, read in no time.
const TINY: workbooks::Recipe = workbooks::Recipe {
    name: "tiny_10_x25_mixed.xlsx",
    description: "1 sheet x 11 rows x 25 columns, mixed: the large one's first rows",
    sheets: 1,
    rows: 11,
    columns: 25,
    strings: workbooks::Strings::Shared,
};

fn main() -> Result<(), rust_xlsxwriter::XlsxError> {
    let written = if std::env::args().any(|argument| argument == "--big") {
        let dir = workbooks::data_dir();
        std::fs::create_dir_all(&dir)?;
        let mut written = Vec::new();
        for recipe in [&BIG, &TINY] {
            let path = dir.join(recipe.name);
            if !path.exists() {
                eprintln!("writing {} ({})", path.display(), recipe.description);
                let partial = path.with_extension("partial");
                workbooks::write(recipe, &partial)?;
                std::fs::rename(&partial, &path)?;
            }
            written.push((path, recipe));
        }
        written
    } else {
        workbooks::ensure_all()?
    };
    for (path, recipe) in written {
        let size = std::fs::metadata(&path)?.len();
        println!(
            "{:>12} bytes  {}  ({})",
            size,
            path.display(),
            recipe.description
        );
    }
    Ok(())
}
