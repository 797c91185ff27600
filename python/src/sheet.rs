//! `Workbook.sheet(..)`: one sheet as typed Arrow record batches, handed
//! to Python through the Arrow PyCapsule interface, as pyarrow, polars or
//! pandas objects, batch by batch, or row by row.
//!
//! `Sheet` is over the Arrow layer's owned `SheetBatchReader`: the PyCapsule
//! stream, `to_arrow`/`to_polars`/`to_pandas` read without the GIL and widened
//! by reading again (`ArrowOptions::widened_by`), `iter_batches`, `iter_rows`.

use std::sync::{Arc, Mutex};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::SchemaRef;
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyTuple};
use sheetstream::arrow::{ArrowOptions, BatchReport, SheetBatchReader};

use crate::args::{SheetRef, sheet_position};
use crate::arrow_ffi::{self, BatchStream, SchemaCapsule, import_optional};
use crate::errors::IntoPyResult;
use crate::opened::{OpenedWorkbook, with_workbook};
use crate::options::{batch_size_given, options_from_kwargs, whole_table_batch_rows};
use crate::report::{PyBatchReport, ReportingReader, warn_if_coerced};
use crate::values::batch_rows;

/// A new reader of one sheet (reads the header and the sample before it
/// returns). Called without the GIL.
pub(crate) fn open_reader(
    workbook: &OpenedWorkbook,
    position: usize,
    options: &ArrowOptions,
) -> Result<SheetBatchReader, sheetstream::Error> {
    with_workbook!(workbook, shared => options.sheet_reader(shared.clone(), position))
}

/// All batches of a reader, read without the GIL.
fn read_all(reader: &mut ReportingReader) -> Result<Vec<RecordBatch>, sheetstream::Error> {
    let mut batches = Vec::new();
    while let Some((batch, _)) = reader.next_batch()? {
        batches.push(batch);
    }
    Ok(batches)
}

/// Batches already read as a `pyarrow.RecordBatchReader` (through the
/// Arrow C stream, no copies).
fn pyarrow_reader<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyAny>> {
    let pyarrow = import_optional(py, "pyarrow", "pyarrow")?;
    let stream = BatchStream::new(arrow_ffi::batches_reader(schema, batches));
    pyarrow
        .getattr("RecordBatchReader")?
        .call_method1("from_stream", (stream,))
}

/// Batches already read as a pyarrow Table.
pub(crate) fn to_pyarrow_table<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyAny>> {
    pyarrow_reader(py, schema, batches)?.call_method0("read_all")
}

/// A pyarrow Table as a pandas DataFrame: dates as `datetime64` (as
/// `pandas.read_excel` gives them, not `object`) unless `kwargs` says
/// `date_as_object`.
pub(crate) fn table_to_pandas<'py>(
    py: Python<'py>,
    table: &Bound<'py, PyAny>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = match kwargs {
        Some(kwargs) => kwargs.copy()?,
        None => PyDict::new(py),
    };
    if !options.contains("date_as_object")? {
        options.set_item("date_as_object", false)?;
    }
    table.call_method("to_pandas", (), Some(&options))
}

/// Batches already read as a polars DataFrame.
pub(crate) fn to_polars_frame<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyAny>> {
    let polars = import_optional(py, "polars", "polars")?;
    let stream = BatchStream::new(arrow_ffi::batches_reader(schema, batches));
    polars.getattr("DataFrame")?.call1((stream,))
}

/// One sheet of a workbook, read as typed Arrow record batches with the
/// options given to `Workbook.sheet`. Each consumer reads the sheet anew
/// (the first reuses the header and sample read by `Workbook.sheet`).
#[pyclass(module = "sheetstream", name = "Sheet", frozen)]
pub(crate) struct PySheet {
    workbook: OpenedWorkbook,
    position: usize,
    name: String,
    options: ArrowOptions,
    schema: SchemaRef,
    /// The reader `Workbook.sheet` opened (to learn the schema), for the
    /// first consumer.
    first_reader: Mutex<Option<SheetBatchReader>>,
    /// The reports of the batches of the latest read, added up.
    report: Arc<Mutex<BatchReport>>,
    /// Whether the caller chose `batch_size` (else a read into one table
    /// may take bigger batches: [`whole_table_batch_rows`]).
    batch_size_given: bool,
}

impl PySheet {
    /// A reader for a new read (the report starts anew).
    fn reader(&self, py: Python<'_>) -> PyResult<ReportingReader> {
        self.reader_in_batches_of(py, None)
    }

    /// A reader for a read that ends in one table: bigger batches for a
    /// wide sheet unless the caller chose `batch_size`.
    fn whole_table_reader(&self, py: Python<'_>) -> PyResult<ReportingReader> {
        let rows = whole_table_batch_rows(self.schema.fields().len());
        self.reader_in_batches_of(py, rows.filter(|_| !self.batch_size_given))
    }

    /// The whole sheet (`to_arrow`, `to_polars`, `to_pandas`): a value
    /// that does not fit its column's type widens the column, and the
    /// sheet is read again with the wider types (`ArrowOptions::widened_by`),
    /// until every value fits or the error cannot be widened away. Warns
    /// when values were nulled (`on_mismatch="null"`).
    fn read_whole_table(&self, py: Python<'_>) -> PyResult<(SchemaRef, Vec<RecordBatch>)> {
        let mut reader = self.whole_table_reader(py)?;
        let mut options = self.options.clone();
        loop {
            let schema = reader.schema();
            let err = match py.detach(|| read_all(&mut reader)) {
                Ok(batches) => {
                    warn_if_coerced(py, &reader.total(), 1)?;
                    return Ok((schema, batches));
                }
                Err(err) => err,
            };
            options = options.widened_by(&err).ok_or(err).or_raise(py)?;
            let wider = match whole_table_batch_rows(self.schema.fields().len()) {
                Some(rows) if !self.batch_size_given => options.clone().batch_size(rows),
                _ => options.clone(),
            };
            let next = py
                .detach(|| open_reader(&self.workbook, self.position, &wider))
                .or_raise(py)?;
            reader = ReportingReader::new(next, Arc::clone(&self.report), &self.name);
        }
    }

    /// A reader for a new read, in batches of `rows` rows when given. The
    /// first reader (whose header and sample `Workbook.sheet` read) serves
    /// the first read: it builds no batch before it is asked, so its batch
    /// size can still be set.
    fn reader_in_batches_of(
        &self,
        py: Python<'_>,
        rows: Option<usize>,
    ) -> PyResult<ReportingReader> {
        let first = self.first_reader.lock().ok().and_then(|mut r| r.take());
        let first = match (first, rows) {
            (Some(mut reader), Some(rows)) => reader.set_batch_size(rows).ok().map(|()| reader),
            (first, _) => first,
        };
        let reader = match (first, rows) {
            (Some(reader), _) => reader,
            (None, rows) => {
                let options = match rows {
                    Some(rows) => self.options.clone().batch_size(rows),
                    None => self.options.clone(),
                };
                py.detach(|| open_reader(&self.workbook, self.position, &options))
                    .or_raise(py)?
            }
        };
        Ok(ReportingReader::new(
            reader,
            Arc::clone(&self.report),
            &self.name,
        ))
    }
}

#[pymethods]
impl PySheet {
    /// The sheet's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The names of the columns, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|field| field.name().clone())
            .collect()
    }

    /// What happened to the cells of the latest read (the batches read so
    /// far, when a read is under way) that did not arrive as values.
    #[getter]
    fn report(&self) -> PyBatchReport {
        PyBatchReport::from(&*self.report.lock().unwrap_or_else(|p| p.into_inner()))
            .with_integrity(self.workbook.integrity())
    }

    /// The Arrow schema, as a `pyarrow.Schema`.
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pyarrow = import_optional(py, "pyarrow", "pyarrow")?;
        let capsule = SchemaCapsule {
            schema: self.schema.clone(),
        };
        pyarrow.getattr("schema")?.call1((capsule,))
    }

    /// The columns' types by the names `scan_excel` unites them by
    /// (`int64`, `float64`, `utf8`, `date`, ...), without pyarrow: a scan
    /// that reads into polars does not import it.
    #[getter]
    fn _column_types(&self) -> PyResult<Vec<&'static str>> {
        self.schema
            .fields()
            .iter()
            .map(|field| scan_type_name(field.data_type()))
            .collect()
    }

    /// `scan_excel`'s batches: `(polars.DataFrame, BatchReport)` pairs,
    /// each batch handed to polars through the Arrow C stream (no pyarrow).
    fn _iter_polars_batches(&self, py: Python<'_>) -> PyResult<BatchIterator> {
        import_optional(py, "polars", "polars")?;
        Ok(BatchIterator {
            reader: Mutex::new(Some(self.reader(py)?)),
            with_report: true,
            polars: true,
        })
    }

    /// The Arrow PyCapsule interface: the schema.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        arrow_ffi::schema_capsule(py, &self.schema)
    }

    /// The Arrow PyCapsule interface: a stream of the sheet's batches, read
    /// as the consumer pulls them.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(self.reader(py)?);
        arrow_ffi::stream_capsule(py, reader)
    }

    /// The whole sheet as a `pyarrow.Table` (read without the GIL).
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (schema, batches) = self.read_whole_table(py)?;
        to_pyarrow_table(py, schema, batches)
    }

    /// The whole sheet as a `polars.DataFrame` (read without the GIL).
    fn to_polars<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (schema, batches) = self.read_whole_table(py)?;
        to_polars_frame(py, schema, batches)
    }

    /// The whole sheet as a `pandas.DataFrame` (through pyarrow's
    /// `Table.to_pandas`, which takes `kwargs`): dates and date-times as
    /// `datetime64`, as `pandas.read_excel` gives them, unless
    /// `date_as_object=True` is given.
    #[pyo3(signature = (**kwargs))]
    fn to_pandas<'py>(
        &self,
        py: Python<'py>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        import_optional(py, "pandas", "pandas")?;
        table_to_pandas(py, &self.to_arrow(py)?, kwargs)
    }

    /// The batches one at a time, as `pyarrow.RecordBatch`es (with
    /// `with_report=True`, as `(batch, BatchReport)` pairs): memory follows
    /// one batch, whatever the sheet's size.
    #[pyo3(signature = (*, with_report = false))]
    fn iter_batches(&self, py: Python<'_>, with_report: bool) -> PyResult<BatchIterator> {
        import_optional(py, "pyarrow", "pyarrow")?;
        Ok(BatchIterator {
            reader: Mutex::new(Some(self.reader(py)?)),
            with_report,
            polars: false,
        })
    }

    /// The rows one at a time, as tuples of Python values (float; int in
    /// Int64 columns; str; bool; datetime.date, datetime.datetime,
    /// datetime.time, datetime.timedelta; None).
    fn iter_rows(&self, py: Python<'_>) -> PyResult<RowIterator> {
        Ok(RowIterator {
            state: Mutex::new(RowState {
                reader: Some(self.reader(py)?),
                rows: Vec::new().into_iter(),
            }),
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "<sheetstream.Sheet {:?}: {} columns>",
            self.name,
            self.schema.fields().len()
        )
    }
}

/// The next batch of a reader held by an iterator and its report, read
/// without the GIL; None (and the reader dropped) after the last.
fn next_batch(
    py: Python<'_>,
    slot: &mut Option<ReportingReader>,
) -> PyResult<Option<(RecordBatch, BatchReport)>> {
    let Some(reader) = slot.as_mut() else {
        return Ok(None);
    };
    let batch = py.detach(|| reader.next_batch());
    match batch {
        Ok(Some(next)) => Ok(Some(next)),
        Ok(None) => {
            let total = reader.total();
            *slot = None;
            warn_if_coerced(py, &total, 1)?;
            Ok(None)
        }
        Err(err) => {
            *slot = None;
            Err(crate::errors::to_py_err(py, &err))
        }
    }
}

/// `Sheet.iter_batches()`.
#[pyclass(module = "sheetstream", name = "BatchIterator", frozen)]
pub(crate) struct BatchIterator {
    reader: Mutex<Option<ReportingReader>>,
    with_report: bool,
    /// polars DataFrames rather than pyarrow RecordBatches
    /// (`Sheet._iter_polars_batches`).
    polars: bool,
}

#[pymethods]
impl BatchIterator {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut slot = self.reader.lock().expect("not poisoned");
        let schema = slot.as_ref().map(|reader| reader.schema());
        match (next_batch(py, &mut slot)?, schema) {
            (Some((batch, report)), Some(schema)) => {
                let batch = if self.polars {
                    to_polars_frame(py, schema, vec![batch])?
                } else {
                    pyarrow_reader(py, schema, vec![batch])?.call_method0("read_next_batch")?
                };
                if !self.with_report {
                    return Ok(batch);
                }
                let report = Bound::new(py, PyBatchReport::from(&report))?;
                Ok(PyTuple::new(py, [batch, report.into_any()])?.into_any())
            }
            _ => Err(PyStopIteration::new_err(())),
        }
    }
}

/// An Arrow type of the reader's by the name `scan_excel` gives it.
fn scan_type_name(data_type: &arrow_schema::DataType) -> PyResult<&'static str> {
    use arrow_schema::{DataType, TimeUnit};
    Ok(match data_type {
        DataType::Null => "null",
        DataType::Boolean => "bool",
        DataType::Int64 => "int64",
        DataType::Float64 => "float64",
        DataType::Utf8 => "utf8",
        DataType::Date32 => "date",
        DataType::Timestamp(TimeUnit::Millisecond, None) => "timestamp",
        DataType::Time32(TimeUnit::Millisecond) => "time",
        DataType::Duration(TimeUnit::Millisecond) => "duration",
        other => {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "sheetstream does not make Arrow type {other}"
            )));
        }
    })
}

struct RowState {
    reader: Option<ReportingReader>,
    rows: std::vec::IntoIter<Py<PyTuple>>,
}

/// `Sheet.iter_rows()`.
#[pyclass(module = "sheetstream", name = "RowIterator", frozen)]
pub(crate) struct RowIterator {
    state: Mutex<RowState>,
}

#[pymethods]
impl RowIterator {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        let mut state = self.state.lock().expect("not poisoned");
        loop {
            if let Some(row) = state.rows.next() {
                return Ok(row);
            }
            match next_batch(py, &mut state.reader)? {
                Some((batch, _)) => state.rows = batch_rows(py, &batch)?.into_iter(),
                None => return Err(PyStopIteration::new_err(())),
            }
        }
    }
}

/// The private keywords of `Workbook.sheet` that `scan_excel` gives its
/// projection by, and asks for a sheet's schema alone by.
const OUTPUT_COLUMNS: &str = "_output_columns";
const SCHEMA_ONLY: &str = "_schema_only";

/// `Workbook.sheet(sheet, **options)`.
pub(crate) fn open_sheet(
    py: Python<'_>,
    workbook: &OpenedWorkbook,
    sheet: SheetRef,
    threads: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PySheet> {
    // `_output_columns` (scan_excel's projection: the output columns
    // handed out, of those the header and sample make) and `_schema_only`
    // (scan_excel's look at a sheet before collect) are no options of
    // read_excel's: taken out here.
    let mut output_columns = None;
    let mut schema_only = false;
    let options = match options {
        Some(kwargs) if kwargs.contains(OUTPUT_COLUMNS)? || kwargs.contains(SCHEMA_ONLY)? => {
            let kwargs = kwargs.copy()?;
            if let Some(names) = kwargs.get_item(OUTPUT_COLUMNS)? {
                output_columns = names.extract::<Option<Vec<String>>>()?;
                kwargs.del_item(OUTPUT_COLUMNS)?;
            }
            if let Some(flag) = kwargs.get_item(SCHEMA_ONLY)? {
                schema_only = flag.extract::<bool>()?;
                kwargs.del_item(SCHEMA_ONLY)?;
            }
            Some(kwargs)
        }
        other => other.cloned(),
    };
    let options = options.as_ref();
    // The whole sheet's schema was checked when the scan was made.
    let projected = output_columns.is_some();
    let kwargs = options;
    let batch_size_given = batch_size_given(options)?;
    let options = options_from_kwargs(py, ArrowOptions::new(), options)?
        .output_columns(output_columns)
        .threads(threads);
    // A table's or a range's sheet.
    let sheet = with_workbook!(workbook, shared => crate::options::window_sheet(py, shared, sheet, &options))?;
    let position = sheet_position(py, workbook, &sheet)?;
    crate::args::readable_sheet(py, &workbook.sheets()[position], None)?;
    let (schema, first_reader) = if schema_only {
        // The header and sample read here; a reader is opened when
        // batches are asked for.
        let schema = py
            .detach(|| {
                with_workbook!(&workbook, shared => options.sheet_schema(shared.as_ref(), position))
            })
            .or_raise(py)?;
        (schema, None)
    } else {
        let reader = py
            .detach(|| open_reader(workbook, position, &options))
            .or_raise(py)?;
        (reader.schema(), Some(reader))
    };
    let sheet_name = format!("sheet '{}'", workbook.sheets()[position].name());
    if !projected {
        crate::args::check_schema(&schema, 0, kwargs, &sheet_name)?;
    }
    Ok(PySheet {
        name: workbook.sheets()[position].name().to_owned(),
        schema,
        first_reader: Mutex::new(first_reader),
        report: Arc::new(Mutex::new(BatchReport {
            sheet: workbook.sheets()[position].name().to_owned(),
            ..BatchReport::default()
        })),
        workbook: workbook.clone(),
        position,
        options,
        batch_size_given,
    })
}
