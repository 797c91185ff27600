//! The Arrow PyCapsule interface: a record batch stream or a schema handed
//! to pyarrow, polars, pandas or DuckDB through arrow-rs's C data
//! structures, without copying the buffers.
//!
//! The capsule owns the C structure; a consumer moves it out (leaving a
//! released structure behind), and whatever is left is released when the
//! capsule is collected (the structures' `Drop`).

use std::sync::Mutex;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::{PyImportError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// A stream of batches as a capsule named `arrow_array_stream`.
pub(crate) fn stream_capsule<'py>(
    py: Python<'py>,
    reader: Box<dyn RecordBatchReader + Send>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let stream = FFI_ArrowArrayStream::new(reader);
    PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
}

/// A schema as a capsule named `arrow_schema`.
pub(crate) fn schema_capsule<'py>(
    py: Python<'py>,
    schema: &SchemaRef,
) -> PyResult<Bound<'py, PyCapsule>> {
    let schema = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|err| PyValueError::new_err(err.to_string()))?;
    PyCapsule::new_with_value(py, schema, c"arrow_schema")
}

/// Batches already read, as a stream again.
pub(crate) fn batches_reader(
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> Box<dyn RecordBatchReader + Send> {
    Box::new(RecordBatchIterator::new(
        batches.into_iter().map(Ok::<_, ArrowError>),
        schema,
    ))
}

/// An object with `__arrow_c_stream__` over batches already read, for
/// consumers that take the protocol (`pyarrow.table`, `polars.DataFrame`).
#[pyclass(module = "sheetstream", name = "_BatchStream", frozen)]
pub(crate) struct BatchStream {
    reader: Mutex<Option<Box<dyn RecordBatchReader + Send>>>,
    schema: SchemaRef,
}

impl BatchStream {
    pub(crate) fn new(reader: Box<dyn RecordBatchReader + Send>) -> BatchStream {
        let schema = reader.schema();
        BatchStream {
            reader: Mutex::new(Some(reader)),
            schema,
        }
    }
}

#[pymethods]
impl BatchStream {
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = self
            .reader
            .lock()
            .ok()
            .and_then(|mut reader| reader.take())
            .ok_or_else(|| PyValueError::new_err("the stream was already consumed"))?;
        stream_capsule(py, reader)
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }
}

/// A schema object for `pyarrow.schema(..)` and friends.
#[pyclass(module = "sheetstream", name = "_Schema", frozen)]
pub(crate) struct SchemaCapsule {
    pub(crate) schema: SchemaRef,
}

#[pymethods]
impl SchemaCapsule {
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }
}

/// Imports an optional package, with a message naming what to install.
pub(crate) fn import_optional<'py>(
    py: Python<'py>,
    module: &str,
    package: &str,
) -> PyResult<Bound<'py, PyModule>> {
    py.import(module).map_err(|err| {
        PyImportError::new_err(format!(
            "this needs the `{package}` package (pip install {package}): {err}"
        ))
    })
}
