//! The native module of the `sheetstream` Python package
//! (`sheetstream._sheetstream`); python/sheetstream/__init__.py re-exports
//! it. Everything here is a thin layer over the sheetstream crate's public
//! API: no parsing rules of its own.

mod args;
mod arrow_ffi;
mod errors;
mod metadata;
mod opened;
mod options;
mod read;
mod remote;
mod report;
mod sheet;
mod values;
mod workbook;

use pyo3::prelude::*;

#[pymodule]
fn _sheetstream(module: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(module)?;
    metadata::register(module)?;
    module.add_class::<workbook::PyWorkbook>()?;
    module.add_class::<workbook::PySheetInfo>()?;
    module.add_class::<workbook::PyDefinedName>()?;
    module.add_class::<sheet::PySheet>()?;
    module.add_class::<sheet::BatchIterator>()?;
    module.add_class::<sheet::RowIterator>()?;
    module.add_class::<report::PyBatchReport>()?;
    module.add_class::<report::PyCellIssue>()?;
    module.add_class::<read::PySkippedSheet>()?;
    module.add(
        "CoercionWarning",
        module.py().get_type::<report::CoercionWarning>(),
    )?;
    module.add_function(wrap_pyfunction!(workbook::open, module)?)?;
    module.add_function(wrap_pyfunction!(read::read_excel, module)?)?;
    module.add_function(wrap_pyfunction!(read::warn_skipped_by, module)?)?;
    module.add_function(wrap_pyfunction!(workbook::workbooks_in, module)?)?;
    // The extensions a folder's listing keeps (lower case, no dot).
    module.add(
        "WORKBOOK_EXTENSIONS",
        pyo3::types::PyTuple::new(module.py(), sheetstream::WORKBOOK_EXTENSIONS)?,
    )?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
