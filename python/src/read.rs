//! `sheetstream.read_excel`: one call from files and sheets to one
//! DataFrame (polars, pandas) or pyarrow Table. Workbooks are opened on
//! threads (`sheetstream::open_workbooks`) and every (file, sheet) pair is
//! read on the engine's one pool (the Arrow layer's `ManySheetsReader`),
//! without the GIL; the batches are put back in workbook order (files as
//! given, then sheets) before the table is made.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use sheetstream::arrow::{ArrowOptions, BatchReport, SheetChoice as ManySheets};

use crate::arrow_ffi::import_optional;
use crate::errors::to_py_err;
use crate::options::{batch_size_given, options_from_kwargs, whole_table_batch_rows};
use crate::report::{add_report, warn_if_coerced};
use crate::sheet::{SheetRef, table_to_pandas, to_polars_frame, to_pyarrow_table};
use crate::workbook::Source;

/// Which sheets `read_excel` reads of each workbook.
enum SheetChoice {
    /// Every worksheet (`sheet=None`).
    All,
    /// These, by position or name, in each workbook.
    These(Vec<SheetRef>),
}

/// The `sheet` argument: one sheet or a list (None, for every worksheet,
/// is the `Option` around it).
#[derive(FromPyObject)]
pub(crate) enum SheetArg {
    One(SheetRef),
    Many(Vec<SheetRef>),
}

/// Reads sheets of one or many workbooks into one polars DataFrame (the
/// default), pyarrow Table or pandas DataFrame.
#[pyfunction]
#[pyo3(signature = (
    source,
    sheet = Some(SheetArg::One(SheetRef::Position(0))),
    *,
    to = "polars",
    union_by_name = false,
    file_column = None,
    sheet_column = None,
    threads = 0,
    **options
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_excel<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    sheet: Option<SheetArg>,
    to: &str,
    union_by_name: bool,
    file_column: Option<String>,
    sheet_column: Option<String>,
    threads: usize,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    if !matches!(to, "polars" | "pyarrow" | "pandas") {
        return Err(PyValueError::new_err(format!(
            "to must be \"polars\", \"pyarrow\" or \"pandas\", not {to:?}"
        )));
    }
    let choice = match sheet {
        None => SheetChoice::All,
        Some(SheetArg::One(sheet)) => SheetChoice::These(vec![sheet]),
        Some(SheetArg::Many(sheets)) => SheetChoice::These(sheets),
    };
    let batch_size_given = batch_size_given(options)?;
    let options = options_from_kwargs(py, ArrowOptions::new(), options)?;
    let many_sources = source.is_instance_of::<PyList>() || source.is_instance_of::<PyTuple>();
    let sources: Vec<Source> = if many_sources {
        source
            .try_iter()?
            .map(|item| Source::extract(&item?))
            .collect::<PyResult<_>>()?
    } else {
        vec![Source::extract(source)?]
    };
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };

    // Open every workbook (in parallel), then read the sheets on the Arrow
    // layer's pool: one schema, columns united by position or by name with
    // types promoted by its rules, file and sheet columns.
    let opened = py.detach(|| sheetstream::open_workbooks(&sources, threads, Source::open_any));
    let mut workbooks = Vec::with_capacity(sources.len());
    let labels = unique_labels(sources.iter().map(Source::label));
    for (label, result) in labels.into_iter().zip(opened) {
        let workbook = result.map_err(|err| to_py_err(py, &err))?;
        workbooks.push((label, Arc::new(workbook)));
    }
    let order = SheetOrder::new(&workbooks, &choice);
    let sheets = match choice {
        SheetChoice::All => ManySheets::All,
        SheetChoice::These(refs) => ManySheets::Named(
            refs.into_iter()
                .map(|sheet| match sheet {
                    SheetRef::Position(position) => position.to_string(),
                    SheetRef::Name(name) => name,
                })
                .collect(),
        ),
    };
    let options = options
        .union_by_name(union_by_name)
        .file_column(file_column)
        .sheet_column(sheet_column)
        .threads(threads);
    let (schema, batches) =
        read_all_sheets(py, options, workbooks, sheets, &order, batch_size_given)?;
    match to {
        "polars" => to_polars_frame(py, schema, batches),
        _ => finish_table(py, to_pyarrow_table(py, schema, batches)?, to),
    }
}

/// Every batch of the sheets, in workbook order, read without the GIL. A
/// value that does not fit its column's type widens the column: the
/// sheets are read again with the wider types (`ArrowOptions::widened_by`)
/// until every value fits or the error cannot be widened away. Warns when
/// values were nulled (`on_mismatch="null"`).
fn read_all_sheets<R>(
    py: Python<'_>,
    mut options: ArrowOptions,
    workbooks: Vec<(String, Arc<sheetstream::Workbook<R>>)>,
    sheets: ManySheets,
    order: &SheetOrder,
    batch_size_given: bool,
) -> PyResult<(SchemaRef, Vec<RecordBatch>)>
where
    R: std::io::Read + std::io::Seek + Clone + Send + Sync + 'static,
{
    let mut coerced = BatchReport::default();
    let read = |options: &ArrowOptions, coerced: &mut BatchReport| {
        let mut reader = options.read_workbooks(workbooks.clone(), sheets.clone())?;
        let schema = arrow_array::RecordBatchReader::schema(&reader);
        // A wide table in bigger batches (see `whole_table_batch_rows`),
        // set before the first batch.
        if let Some(rows) =
            whole_table_batch_rows(schema.fields().len()).filter(|_| !batch_size_given)
        {
            reader.set_batch_size(rows)?;
        }
        // Batches of different sheets arrive as the pool finishes
        // them; those of one sheet in order (a stable sort keeps it).
        let mut batches = Vec::new();
        *coerced = BatchReport::default();
        while let Some(batch) = reader.next_batch()? {
            let report = reader.report();
            if coerced.coerced_cells + coerced.dropped_cells == 0 {
                coerced.file = report.file.clone();
                coerced.sheet = report.sheet.clone();
            }
            add_report(coerced, report);
            batches.push((order.rank(report.file.as_deref(), &report.sheet), batch));
        }
        batches.sort_by_key(|(rank, _)| *rank);
        let batches = batches.into_iter().map(|(_, batch)| batch).collect();
        Ok::<_, sheetstream::Error>((schema, batches))
    };
    loop {
        match py.detach(|| read(&options, &mut coerced)) {
            Ok(table) => {
                // 2: the caller of sheetstream.read_excel, the Python
                // function that expands glob patterns.
                warn_if_coerced(py, &coerced, 2)?;
                return Ok(table);
            }
            Err(err) => match options.widened_by(&err) {
                Some(wider) => options = wider,
                None => return Err(to_py_err(py, &err)),
            },
        }
    }
}

/// The sources' labels (the `file` column), with " #2", " #3", ... after
/// a label met before (a file given twice, two byte strings of one
/// length), so that each workbook's batches can be told apart.
fn unique_labels(labels: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    labels
        .map(|label| {
            let count = seen.entry(label.clone()).or_insert(0);
            *count += 1;
            if *count == 1 {
                label
            } else {
                format!("{label} #{count}")
            }
        })
        .collect()
}

/// Where a sheet's batches go in the result: files in the order given,
/// then sheets in workbook order (every worksheet) or in the order asked.
struct SheetOrder {
    ranks: HashMap<(String, String), (usize, usize)>,
}

impl SheetOrder {
    fn new<R>(workbooks: &[(String, Arc<sheetstream::Workbook<R>>)], choice: &SheetChoice) -> Self {
        let mut ranks = HashMap::new();
        for (file, (label, workbook)) in workbooks.iter().enumerate() {
            let sheets = workbook.sheets();
            // As the Arrow layer resolves a wanted sheet: a name, else a position.
            let wanted: Option<Vec<Option<usize>>> = match choice {
                SheetChoice::All => None,
                SheetChoice::These(refs) => Some(
                    refs.iter()
                        .map(|wanted| {
                            let wanted = match wanted {
                                SheetRef::Position(position) => position.to_string(),
                                SheetRef::Name(name) => name.clone(),
                            };
                            sheets
                                .iter()
                                .position(|sheet| sheet.name() == wanted)
                                .or_else(|| wanted.parse().ok())
                        })
                        .collect(),
                ),
            };
            for sheet in sheets {
                let position = sheet.position();
                let rank = match &wanted {
                    None => Some(position),
                    Some(wanted) => wanted.iter().position(|&at| at == Some(position)),
                };
                if let Some(rank) = rank {
                    ranks.insert((label.clone(), sheet.name().to_owned()), (file, rank));
                }
            }
        }
        SheetOrder { ranks }
    }

    fn rank(&self, file: Option<&str>, sheet: &str) -> (usize, usize) {
        file.and_then(|file| self.ranks.get(&(file.to_owned(), sheet.to_owned())))
            .copied()
            .unwrap_or((usize::MAX, usize::MAX))
    }
}

fn finish_table<'py>(
    py: Python<'py>,
    table: Bound<'py, PyAny>,
    to: &str,
) -> PyResult<Bound<'py, PyAny>> {
    if to == "pandas" {
        import_optional(py, "pandas", "pandas")?;
        return table_to_pandas(py, &table, None);
    }
    Ok(table)
}
