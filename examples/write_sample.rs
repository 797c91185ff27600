//! Writes `examples/data/sales.xlsx`, the small sample workbook the README,
//! the crate docs and the examples read.
//!
//! ```text
//! cargo run --example write_sample
//! ```

use rust_xlsxwriter::{ExcelDateTime, Format, Workbook, XlsxError};

fn main() -> Result<(), XlsxError> {
    let mut workbook = Workbook::new();
    let date_format = Format::new().set_num_format("yyyy-mm-dd");

    let data = workbook.add_worksheet().set_name("Data")?;
    data.write_row(0, 0, ["Item", "Amount", "Sold on", "In stock"])?;
    let rows = [
        ("apples", 10.0, (2024, 3, 1), true),
        ("pears", 20.0, (2024, 3, 2), false),
        ("plums", 30.0, (2024, 3, 5), true),
    ];
    for (offset, (item, amount, (year, month, day), in_stock)) in rows.into_iter().enumerate() {
        let row = offset as u32 + 1;
        data.write_string(row, 0, item)?;
        data.write_number(row, 1, amount)?;
        data.write_datetime_with_format(
            row,
            2,
            ExcelDateTime::from_ymd(year, month, day)?,
            &date_format,
        )?;
        data.write_boolean(row, 3, in_stock)?;
    }
    data.write_string(0, 4, "Doubled")?;
    data.write_formula(1, 4, "=B2*2")?
        .set_formula_result(1, 4, "20");

    let notes = workbook.add_worksheet().set_name("Notes & ideas")?;
    notes.write_string(0, 0, "Prices are per crate; <b> is not markup.")?;
    notes.set_hidden(true);

    workbook.save("examples/data/sales.xlsx")
}
