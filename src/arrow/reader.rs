//! [`SheetBatchReader`]: an owned reader of one sheet's record batches,
//! `Send + 'static`, for other threads and foreign interfaces (the Arrow C
//! stream, Python). A worker thread holds the workbook, runs
//! [`SheetBatches`] and hands each batch over a channel of two, so at most
//! three batches exist at once (one being built, two waiting). It reads
//! the header and the sample at once, then waits for the first
//! `next_batch` (and the batch size then in force) to build batches.
//!
//! The header and sample are read at once, the batches from the first
//! `next_batch`, so `set_batch_size` can still change their size.
//! `sheet_schema` reads the same schema on the caller's thread, the part
//! inflated only as far as the sample goes.

use std::io::{Read, Seek};
use std::panic;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::{self, JoinHandle, Scope};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};

use super::batches::{BatchReport, SheetBatches, SheetSource, batches_started};
use super::options::ArrowOptions;
use super::prelude::sheet_columns;
use crate::error::{Error, Result};
use crate::workbook::Book;
use crate::workbook::Workbook;

/// Batches waiting in the channel.
const CHANNEL_BATCHES: usize = 2;

enum Message {
    Schema(SchemaRef),
    Batch(RecordBatch, BatchReport),
    Failed(Error),
    End,
}

/// The record batches of one sheet, owned: built from an
/// `Arc<Workbook<R>>`, it implements Arrow's [`RecordBatchReader`] and is
/// `Send + Sync + 'static`. The rows are read on a worker thread of its
/// own; dropping the reader stops it at its next batch. The header and
/// sample are read when it is made; the batches from the first
/// [`next_batch`](Self::next_batch), so
/// [`set_batch_size`](Self::set_batch_size) can change their size once
/// the schema is known.
///
/// ```
/// use std::sync::Arc;
/// use sheetstream::arrow::{ArrowOptions, arrow_array::RecordBatchReader};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let workbook = Arc::new(sheetstream::Workbook::open("examples/data/sales.xlsx")?);
/// let reader = ArrowOptions::new().sheet_reader(workbook, "Data")?;
/// let schema = reader.schema();
/// let handle = std::thread::spawn(move || {
///     reader.map(|batch| batch.map(|b| b.num_rows())).sum::<Result<usize, _>>()
/// });
/// assert_eq!(handle.join().unwrap()?, 3);
/// assert_eq!(schema.fields().len(), 5);
/// # Ok(())
/// # }
/// ```
pub struct SheetBatchReader {
    schema: SchemaRef,
    /// Tells the worker to start the batches, in batches of the rows
    /// sent; taken by the first `next_batch`.
    start: Option<SyncSender<usize>>,
    batch_size: usize,
    receiver: Mutex<Receiver<Message>>,
    worker: Option<JoinHandle<()>>,
    report: BatchReport,
    done: bool,
}

impl SheetBatchReader {
    pub(crate) fn spawn<R>(
        workbook: Arc<Workbook<R>>,
        position: usize,
        options: ArrowOptions,
    ) -> Result<SheetBatchReader>
    where
        R: Read + Seek + Clone + Send + Sync + 'static,
    {
        let (sender, receiver) = sync_channel(CHANNEL_BATCHES);
        let (start, started) = sync_channel(1);
        let batch_size = options.get_batch_size();
        let worker = thread::Builder::new()
            .name("sheetstream-arrow".into())
            .spawn(move || {
                // A panic drops the sender: the reader sees the channel
                // close without an end and resumes the panic.
                if let Err(err) = produce(&workbook, position, &options, &started, &sender) {
                    let _ = sender.send(Message::Failed(err));
                }
            })
            .map_err(Error::from)?;
        let mut reader = SheetBatchReader {
            schema: Arc::new(arrow_schema::Schema::empty()),
            start: Some(start),
            batch_size,
            receiver: Mutex::new(receiver),
            worker: Some(worker),
            report: BatchReport::default(),
            done: false,
        };
        match reader.receive()? {
            Some(Message::Schema(schema)) => reader.schema = schema,
            Some(Message::Failed(err)) => return Err(err),
            _ => return Err(Error::conversion("the reader thread sent no schema")),
        }
        Ok(reader)
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// The next batch, or None after the last.
    ///
    /// # Errors
    ///
    /// As [`SheetBatches::next_batch`].
    ///
    /// # Panics
    ///
    /// A panic on the worker thread is resumed here.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.done {
            return Ok(None);
        }
        if let Some(start) = self.start.take() {
            // A worker that already ended (an error after the schema) has
            // said so on the channel.
            let _ = start.send(self.batch_size);
        }
        match self.receive()? {
            Some(Message::Batch(batch, report)) => {
                self.report = report;
                Ok(Some(batch))
            }
            Some(Message::Failed(err)) => {
                self.done = true;
                Err(err)
            }
            _ => {
                self.done = true;
                Ok(None)
            }
        }
    }

    /// Sets the rows per batch, which [`ArrowOptions::batch_size`] set when
    /// the reader was made, once its schema is known. Only before the
    /// first [`next_batch`](Self::next_batch): the batches start there.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sheetstream::arrow::ArrowOptions;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let workbook = Arc::new(sheetstream::Workbook::open("examples/data/sales.xlsx")?);
    /// let mut reader = ArrowOptions::new().batch_size(1).sheet_reader(workbook, "Data")?;
    /// reader.set_batch_size(2)?;
    /// let mut rows = Vec::new();
    /// while let Some(batch) = reader.next_batch()? {
    ///     rows.push(batch.num_rows());
    /// }
    /// assert_eq!(rows, [2, 1]);
    /// assert!(reader.set_batch_size(3).is_err(), "too late: the batches started");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The batches have started.
    pub fn set_batch_size(&mut self, rows: usize) -> Result<()> {
        if self.start.is_none() {
            return Err(batches_started());
        }
        self.batch_size = rows.max(1);
        Ok(())
    }

    /// The report of the batch returned last.
    pub fn report(&self) -> &BatchReport {
        &self.report
    }

    /// The next message; None when the worker ended without a word (it
    /// panicked: the panic is resumed).
    fn receive(&mut self) -> Result<Option<Message>> {
        let receiver = self
            .receiver
            .get_mut()
            .unwrap_or_else(|poison| poison.into_inner());
        match receiver.recv() {
            Ok(message) => Ok(Some(message)),
            Err(_) => {
                self.done = true;
                if let Some(worker) = self.worker.take()
                    && let Err(payload) = worker.join()
                {
                    panic::resume_unwind(payload);
                }
                Ok(None)
            }
        }
    }
}

/// A sheet of a shared workbook, read through a clone of its container;
/// with `scope`, its part inflated on a thread of it.
fn sheet_source<'scope, 'env, 'a, R: Read + Seek + Clone + Send + 'env>(
    workbook: &'env Workbook<R>,
    archive: &'a mut Book<R>,
    position: usize,
    scope: Option<&'scope Scope<'scope, 'env>>,
    options: &ArrowOptions,
) -> Result<SheetSource<'a>>
where
    'env: 'a,
{
    let shape = super::shape::SheetShape::load_shared(workbook, position, options)?;
    Ok(SheetSource {
        shape,
        rows: workbook.rows_through(archive, position, scope)?,
        formats: workbook.format_kinds().to_vec(),
        sheet: workbook.sheets()[position].name().to_owned(),
        file: None,
    })
}

/// The sheet's batches, the header and sample read (and the whole sheet
/// first, when the types come from every row).
fn open_batches<'scope, 'env, 'a, R: Read + Seek + Clone + Send + 'env>(
    workbook: &'env Workbook<R>,
    archive: &'a mut Book<R>,
    position: usize,
    scope: Option<&'scope Scope<'scope, 'env>>,
    options: &ArrowOptions,
) -> Result<SheetBatches<'a>>
where
    'env: 'a,
{
    let sheet = workbook.sheets()[position].name();
    // Types from every row: a first pass for them, none of it held.
    if options.needs_first_pass(None, sheet) {
        let source = sheet_source(workbook, archive, position, scope, options)?;
        let columns = sheet_columns(source, options)?;
        let options = options.with_first_pass(None, sheet, columns);
        let source = sheet_source(workbook, archive, position, scope, &options)?;
        return SheetBatches::open(source, &options, None, None);
    }
    let source = sheet_source(workbook, archive, position, scope, options)?;
    SheetBatches::open(source, options, None, None)
}

/// [`ArrowOptions::sheet_schema`] of a sheet found (a table's options
/// resolved).
pub(super) fn sheet_schema<R>(
    workbook: &Workbook<R>,
    position: usize,
    options: &ArrowOptions,
) -> Result<SchemaRef>
where
    R: Read + Seek + Clone + Send,
{
    let mut archive = workbook.book.clone();
    Ok(open_batches(workbook, &mut archive, position, None, options)?.schema())
}

fn produce<R>(
    workbook: &Workbook<R>,
    position: usize,
    options: &ArrowOptions,
    started: &Receiver<usize>,
    sender: &SyncSender<Message>,
) -> Result<()>
where
    R: Read + Seek + Clone + Send,
{
    let mut archive = workbook.book.clone();
    // One sheet on two threads where there are two cores (and the options
    // allow two): its part inflated on a thread of this scope while this
    // one scans and builds.
    let threads = match options.threads {
        0 => thread::available_parallelism().map_or(1, usize::from),
        threads => threads,
    };
    let pipelined = threads > 1;
    thread::scope(|scope| {
        let scope = pipelined.then_some(scope);
        let mut batches = open_batches(workbook, &mut archive, position, scope, options)?;
        if sender.send(Message::Schema(batches.schema())).is_err() {
            return Ok(());
        }
        // The first next_batch says go, with the batch size; a reader
        // dropped before that ends the worker here.
        let Ok(batch_size) = started.recv() else {
            return Ok(());
        };
        batches.set_batch_size(batch_size);
        while let Some((batch, report)) = batches.next_batch_with_report()? {
            if sender.send(Message::Batch(batch, report)).is_err() {
                // The reader was dropped.
                return Ok(());
            }
        }
        let _ = sender.send(Message::End);
        Ok(())
    })
}

impl Iterator for SheetBatchReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch()
            .map_err(|err| ArrowError::ExternalError(Box::new(err)))
            .transpose()
    }
}

impl RecordBatchReader for SheetBatchReader {
    fn schema(&self) -> SchemaRef {
        SheetBatchReader::schema(self)
    }
}

impl std::fmt::Debug for SheetBatchReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SheetBatchReader")
            .field("schema", &self.schema())
            .finish_non_exhaustive()
    }
}
