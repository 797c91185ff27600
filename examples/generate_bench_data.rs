//! Writes the benchmark workbooks (see `benches/support/workbooks.rs`) into
//! `target/bench-data` (or `$SHEETSTREAM_BENCH_DIR`), skipping any that
//! exist.
//!
//! ```text
//! cargo run --release --example generate_bench_data
//! cargo run --release --example generate_bench_data -- --big
//! ```
//!
//! `--big` writes only the one large workbook the Spark bench reads for
//! executor memory (`python/benches/spark_bench.py --big`): one sheet of
//! 1,048,575 rows x 25 columns of the mixed recipe (about 100 MB), and
//! prints its path.

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

fn main() -> Result<(), rust_xlsxwriter::XlsxError> {
    let written = if std::env::args().any(|argument| argument == "--big") {
        let dir = workbooks::data_dir();
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(BIG.name);
        if !path.exists() {
            eprintln!("writing {} ({})", path.display(), BIG.description);
            let partial = path.with_extension("partial");
            workbooks::write(&BIG, &partial)?;
            std::fs::rename(&partial, &path)?;
        }
        vec![(path, &BIG)]
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
