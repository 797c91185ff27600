//! Writes the benchmark workbooks (see `benches/support/workbooks.rs`) into
//! `target/bench-data` (or `$SHEETSTREAM_BENCH_DIR`), skipping any that
//! exist.
//!
//! ```text
//! cargo run --release --example generate_bench_data
//! ```

#[path = "../benches/support/workbooks.rs"]
mod workbooks;

fn main() -> Result<(), rust_xlsxwriter::XlsxError> {
    for (path, recipe) in workbooks::ensure_all()? {
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
