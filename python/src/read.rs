//! `sheetstream.read_excel`: one call from files and sheets to one
//! DataFrame (polars, pandas) or pyarrow Table. Workbooks are opened and
//! sheets read on a pool of threads without the GIL, each sheet by its own
//! owned reader.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use sheetstream::arrow::ArrowOptions;
use sheetstream::{SheetKind, SheetSelector};

use crate::arrow_ffi::import_optional;
use crate::errors::to_py_err;
use crate::options::options_from_kwargs;
use crate::sheet::{SheetRef, open_reader, to_polars_frame, to_pyarrow_table};
use crate::workbook::{OpenedWorkbook, Source};

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

/// One sheet to read: which workbook, which position.
struct Task {
    workbook: usize,
    position: usize,
}

/// Runs `work(i)` for `i` in `0..count` on up to `threads` threads and
/// returns the results in order.
fn on_threads<T: Send>(count: usize, threads: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, count.max(1));
    let mut results: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= count {
                            break done;
                        }
                        done.push((index, work(index)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            })
            .collect()
    });
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// A constant Utf8 column appended to every batch (the `file` and `sheet`
/// columns).
fn with_constant_columns(
    batches: Vec<RecordBatch>,
    schema: &SchemaRef,
    columns: &[(String, String)],
) -> PyResult<(SchemaRef, Vec<RecordBatch>)> {
    if columns.is_empty() {
        return Ok((schema.clone(), batches));
    }
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    for (name, _) in columns {
        if schema.field_with_name(name).is_ok() {
            return Err(PyValueError::new_err(format!(
                "the sheet already has a column named {name:?}; choose another file_column/sheet_column"
            )));
        }
        fields.push(Field::new(name, DataType::Utf8, false));
    }
    let extended = Arc::new(Schema::new(fields));
    let batches = batches
        .into_iter()
        .map(|batch| {
            let mut arrays: Vec<ArrayRef> = batch.columns().to_vec();
            for (_, value) in columns {
                arrays.push(Arc::new(StringArray::from_iter_values(
                    std::iter::repeat_n(value.as_str(), batch.num_rows()),
                )));
            }
            RecordBatch::try_new(extended.clone(), arrays)
                .map_err(|err| PyValueError::new_err(err.to_string()))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((extended, batches))
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

    // Open every workbook, then list the sheets to read.
    let opened = py.detach(|| on_threads(sources.len(), threads, |i| sources[i].open_shared()));
    let workbooks = opened
        .into_iter()
        .map(|result| result.map_err(|err| to_py_err(py, &err)))
        .collect::<PyResult<Vec<OpenedWorkbook>>>()?;
    let mut tasks = Vec::new();
    for (index, workbook) in workbooks.iter().enumerate() {
        match &choice {
            SheetChoice::All => tasks.extend(
                workbook
                    .sheets()
                    .iter()
                    .filter(|info| info.kind() == SheetKind::Worksheet)
                    .map(|info| Task {
                        workbook: index,
                        position: info.position(),
                    }),
            ),
            SheetChoice::These(sheets) => {
                for sheet in sheets {
                    let position = match sheet {
                        SheetRef::Position(position) => position.position(workbook.sheets()),
                        SheetRef::Name(name) => name.as_str().position(workbook.sheets()),
                    }
                    .map_err(|err| to_py_err(py, &err))?;
                    tasks.push(Task {
                        workbook: index,
                        position,
                    });
                }
            }
        }
    }

    // Read every sheet.
    let read = py.detach(|| {
        on_threads(tasks.len(), threads, |i| {
            let task = &tasks[i];
            let mut reader = open_reader(&workbooks[task.workbook], task.position, &options)?;
            let schema = arrow_array::RecordBatchReader::schema(&reader);
            let mut batches = Vec::new();
            while let Some(batch) = reader.next_batch()? {
                batches.push(batch);
            }
            Ok::<_, sheetstream::Error>((schema, batches))
        })
    });
    let mut parts = Vec::with_capacity(tasks.len());
    for (task, result) in tasks.iter().zip(read) {
        let (schema, batches) = result.map_err(|err| to_py_err(py, &err))?;
        let mut constants = Vec::new();
        if let Some(name) = &file_column {
            constants.push((name.clone(), sources[task.workbook].label()));
        }
        if let Some(name) = &sheet_column {
            let sheet_name = workbooks[task.workbook].sheets()[task.position].name();
            constants.push((name.clone(), sheet_name.to_owned()));
        }
        parts.push(with_constant_columns(batches, &schema, &constants)?);
    }
    if parts.is_empty() {
        return Err(PyValueError::new_err("no sheets to read"));
    }

    if union_by_name {
        // Columns matched by name, missing ones null: the consumer's
        // diagonal concatenation.
        return match to {
            "polars" => {
                let frames = parts
                    .into_iter()
                    .map(|(schema, batches)| to_polars_frame(py, schema, batches))
                    .collect::<PyResult<Vec<_>>>()?;
                let polars = import_optional(py, "polars", "polars")?;
                let kwargs = PyDict::new(py);
                kwargs.set_item("how", "diagonal_relaxed")?;
                polars.getattr("concat")?.call((frames,), Some(&kwargs))
            }
            _ => {
                let tables = parts
                    .into_iter()
                    .map(|(schema, batches)| to_pyarrow_table(py, schema, batches))
                    .collect::<PyResult<Vec<_>>>()?;
                let pyarrow = import_optional(py, "pyarrow", "pyarrow")?;
                let kwargs = PyDict::new(py);
                kwargs.set_item("promote_options", "permissive")?;
                let table = pyarrow
                    .getattr("concat_tables")?
                    .call((tables,), Some(&kwargs))?;
                finish_table(py, table, to)
            }
        };
    }
    let schema = parts[0].0.clone();
    let mut batches = Vec::new();
    for (part_schema, part_batches) in parts {
        if part_schema.fields() != schema.fields() {
            return Err(PyValueError::new_err(format!(
                "the sheets have different columns ({} and {}); pass union_by_name=True to match them by name",
                describe(&schema),
                describe(&part_schema)
            )));
        }
        batches.extend(part_batches);
    }
    match to {
        "polars" => to_polars_frame(py, schema, batches),
        _ => finish_table(py, to_pyarrow_table(py, schema, batches)?, to),
    }
}

fn finish_table<'py>(
    py: Python<'py>,
    table: Bound<'py, PyAny>,
    to: &str,
) -> PyResult<Bound<'py, PyAny>> {
    if to == "pandas" {
        import_optional(py, "pandas", "pandas")?;
        return table.call_method0("to_pandas");
    }
    Ok(table)
}

fn describe(schema: &Schema) -> String {
    let fields: Vec<String> = schema
        .fields()
        .iter()
        .map(|field| format!("{}: {}", field.name(), field.data_type()))
        .collect();
    format!("[{}]", fields.join(", "))
}
