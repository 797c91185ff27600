//! [`ManySheetsReader`]: the batches of many sheets of many workbooks, read
//! in parallel into one schema.
//!
//! Two passes. The first reads each sheet's header and sample (a few rows
//! each) and unites their columns: by position and name (the default: the
//! sheets must agree) or by name ([`ArrowOptions::union_by_name`]: missing
//! columns are null), the types promoted by the inference rules. The
//! second reads the sheets on a pool of worker threads, each with its own
//! clone of its workbook's archive (the shared strings and styles, read at
//! open, are shared read-only, as in [`Parallel`](crate::Parallel)), biggest
//! sheet first; every worker builds the batches of one sheet at a time and
//! hands them over one bounded channel.

use std::collections::HashMap;
use std::io::{Read, Seek};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, Schema, SchemaRef};

use super::batches::{
    BatchReport, SheetBatches, SheetColumns, SheetSource, apply_overrides, sheet_columns,
};
use super::infer::promote;
use super::options::{ArrowOptions, ColumnType};
use crate::error::{Error, ErrorKind, Result};
use crate::package::SheetKind;
use crate::source::SharedFile;
use crate::workbook::{OpenOptions, Workbook};

/// Which sheets of each workbook a [`ManySheetsReader`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SheetChoice {
    /// The first worksheet.
    First,
    /// Every worksheet (chart and macro sheets left out).
    All,
    /// These sheets, by name, or by position when no sheet has that name;
    /// a workbook that lacks one fails (or is skipped and reported).
    Named(Vec<String>),
}

/// A sheet (or a whole file) that could not be read and was skipped
/// ([`ArrowOptions::skip_unreadable`]).
#[derive(Debug)]
pub struct SkippedSheet {
    /// The file's label (its path for [`ArrowOptions::read_files`]).
    pub file: String,
    /// The sheet's name; empty when the file itself could not be opened.
    pub sheet: String,
    /// Why.
    pub error: Error,
}

enum Message {
    Batch(RecordBatch, BatchReport),
    Skipped(SkippedSheet),
    Failed(Error),
}

/// The batches of many sheets of many workbooks in one schema, read in
/// parallel; `Send + Sync + 'static`, an Arrow [`RecordBatchReader`].
/// Batches of different sheets arrive in no particular order (add
/// [`ArrowOptions::file_column`] and [`ArrowOptions::sheet_column`] to tell
/// them apart); those of one sheet arrive in order.
///
/// ```
/// use sheetstream::arrow::{ArrowOptions, SheetChoice};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let options = ArrowOptions::new()
///     .union_by_name(true)
///     .file_column(Some("file"))
///     .sheet_column(Some("sheet"))
///     .skip_unreadable(true);
/// let mut reader = options.read_files(["examples/data/sales.xlsx"], SheetChoice::All)?;
/// assert_eq!(reader.schema().field(1).name(), "sheet");
/// let mut rows = 0;
/// while let Some(batch) = reader.next_batch()? {
///     rows += batch.num_rows();
/// }
/// assert!(rows >= 3);
/// for skipped in reader.skipped() {
///     eprintln!("skipped {} {}: {}", skipped.file, skipped.sheet, skipped.error);
/// }
/// # Ok(())
/// # }
/// ```
pub struct ManySheetsReader {
    schema: SchemaRef,
    receiver: Mutex<Receiver<Message>>,
    workers: Vec<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    report: BatchReport,
    skipped: Vec<SkippedSheet>,
    done: bool,
}

/// One sheet to read: which workbook, which sheet.
struct Job {
    workbook: usize,
    position: usize,
}

impl ArrowOptions {
    /// The batches of the chosen sheets of every file, in one schema, read
    /// in parallel (see [`ManySheetsReader`]). Expand globs before (the
    /// shell does, for the CLI).
    ///
    /// # Errors
    ///
    /// A file or sheet that cannot be read (unless skipped), sheets whose
    /// columns differ without [`ArrowOptions::union_by_name`], a type
    /// override naming no column.
    pub fn read_files<P: AsRef<Path>>(
        &self,
        files: impl IntoIterator<Item = P>,
        sheets: SheetChoice,
    ) -> Result<ManySheetsReader> {
        let mut workbooks = Vec::new();
        let mut skipped = Vec::new();
        for file in files {
            let label = file.as_ref().display().to_string();
            match OpenOptions::new().open(file.as_ref()) {
                Ok(workbook) => workbooks.push((label, Arc::new(workbook))),
                Err(err) if self.skip_unreadable => skipped.push(SkippedSheet {
                    file: label,
                    sheet: String::new(),
                    error: err,
                }),
                Err(err) => return Err(err),
            }
        }
        let mut reader = self.read_workbooks::<SharedFile>(workbooks, sheets)?;
        skipped.append(&mut reader.skipped);
        reader.skipped = skipped;
        Ok(reader)
    }

    /// As [`ArrowOptions::read_files`], over workbooks already open, each
    /// with a label (its file column value).
    ///
    /// # Errors
    ///
    /// As [`ArrowOptions::read_files`].
    pub fn read_workbooks<R>(
        &self,
        workbooks: Vec<(String, Arc<Workbook<R>>)>,
        sheets: SheetChoice,
    ) -> Result<ManySheetsReader>
    where
        R: Read + Seek + Clone + Send + Sync + 'static,
    {
        let mut skipped = Vec::new();
        let mut jobs = Vec::new();
        for (index, (label, workbook)) in workbooks.iter().enumerate() {
            match choose(workbook, &sheets) {
                Ok(positions) => jobs.extend(positions.into_iter().map(|position| Job {
                    workbook: index,
                    position,
                })),
                Err(err) if self.skip_unreadable => skipped.push(SkippedSheet {
                    file: label.clone(),
                    sheet: String::new(),
                    error: err,
                }),
                Err(err) => return Err(err),
            }
        }
        // First pass: every sheet's columns.
        let mut readable = Vec::new();
        let mut columns = Vec::new();
        for job in jobs {
            let (label, workbook) = &workbooks[job.workbook];
            let name = workbook.sheets()[job.position].name().to_owned();
            let mut archive = workbook.archive.clone();
            let found = workbook
                .rows_through(&mut archive, job.position)
                .and_then(|rows| {
                    let source = SheetSource {
                        rows,
                        formats: workbook.format_kinds().to_vec(),
                        sheet: name.clone(),
                        file: Some(label.clone()),
                    };
                    sheet_columns(source, self)
                });
            match found {
                Ok(found) => {
                    columns.push((label.clone(), name, found));
                    readable.push(job);
                }
                Err(err) if self.skip_unreadable => skipped.push(SkippedSheet {
                    file: label.clone(),
                    sheet: name,
                    error: err,
                }),
                Err(err) => return Err(err),
            }
        }
        let target = unite(&columns, self)?;
        let batches = Arc::new(Schema::new({
            let mut fields = Vec::new();
            if let Some(name) = &self.file_column {
                fields.push(arrow_schema::Field::new(
                    name,
                    arrow_schema::DataType::Utf8,
                    false,
                ));
            }
            if let Some(name) = &self.sheet_column {
                fields.push(arrow_schema::Field::new(
                    name,
                    arrow_schema::DataType::Utf8,
                    false,
                ));
            }
            fields.extend(
                target
                    .iter()
                    .map(|(name, ty)| arrow_schema::Field::new(name, ty.data_type(), true)),
            );
            fields
        }));
        // Second pass, biggest sheets first.

        readable.sort_by_key(|job| {
            let workbook = &workbooks[job.workbook].1;
            std::cmp::Reverse(
                workbook
                    .archive
                    .compressed_size(workbook.sheets()[job.position].part()),
            )
        });
        let cores = thread::available_parallelism().map_or(1, usize::from);
        let threads = if self.threads == 0 {
            cores
        } else {
            self.threads
        };
        let threads = threads.min(readable.len()).max(1);
        let queue = Arc::new(Mutex::new(readable.into_iter()));
        let stop = Arc::new(AtomicBool::new(false));
        let (sender, receiver) = sync_channel(2 * threads);
        let target = Arc::new(target);
        let workbooks = Arc::new(workbooks);
        let mut workers = Vec::new();
        for _ in 0..threads {
            let (queue, stop, sender, target, workbooks, options) = (
                Arc::clone(&queue),
                Arc::clone(&stop),
                sender.clone(),
                Arc::clone(&target),
                Arc::clone(&workbooks),
                self.clone(),
            );
            let worker = thread::Builder::new()
                .name("sheetstream-arrow".into())
                .spawn(move || {
                    work(&queue, &stop, &sender, &target, &workbooks, &options);
                })
                .map_err(Error::from)?;
            workers.push(worker);
        }
        Ok(ManySheetsReader {
            schema: batches,
            receiver: Mutex::new(receiver),
            workers,
            stop,
            report: BatchReport::default(),
            skipped,
            done: false,
        })
    }
}

/// The positions of the chosen sheets of a workbook.
fn choose<R>(workbook: &Workbook<R>, sheets: &SheetChoice) -> Result<Vec<usize>> {
    let worksheets = workbook
        .sheets()
        .iter()
        .filter(|sheet| sheet.kind() == SheetKind::Worksheet)
        .map(|sheet| sheet.position());
    match sheets {
        SheetChoice::First => Ok(worksheets.take(1).collect()),
        SheetChoice::All => Ok(worksheets.collect()),
        SheetChoice::Named(names) => names
            .iter()
            .map(|wanted| {
                let all = workbook.sheets();
                all.iter()
                    .position(|sheet| sheet.name() == wanted)
                    .or_else(|| wanted.parse::<usize>().ok().filter(|&p| p < all.len()))
                    .ok_or_else(|| {
                        Error::new(ErrorKind::SheetNotFound(format!(
                            "named or numbered '{wanted}'"
                        )))
                    })
            })
            .collect(),
    }
}

/// One set of columns for every sheet: names and promoted types.
fn unite(
    sheets: &[(String, String, SheetColumns)],
    options: &ArrowOptions,
) -> Result<Vec<(String, ColumnType)>> {
    let mut names: Vec<String> = Vec::new();
    let mut types: Vec<Option<ColumnType>> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (file, sheet, columns) in sheets {
        if !options.union_by_name && !names.is_empty() && names != columns.names {
            return Err(Error::new(ErrorKind::ColumnSelection(format!(
                "the columns of sheet '{sheet}' of {file} ({}) differ from the first sheet's ({}); read with union_by_name to match them by name",
                columns.names.join(", "),
                names.join(", ")
            ))));
        }
        for (name, inferred) in columns.names.iter().zip(&columns.inferred) {
            match index.get(name) {
                Some(&at) => types[at] = promote(types[at], *inferred),
                None => {
                    index.insert(name.clone(), names.len());
                    names.push(name.clone());
                    types.push(*inferred);
                }
            }
        }
    }
    let mut types: Vec<ColumnType> = types
        .into_iter()
        .map(|ty| ty.unwrap_or(ColumnType::Null))
        .collect();
    apply_overrides(&names, &mut types, options)?;
    Ok(names.into_iter().zip(types).collect())
}

/// A worker: sheets from the queue until it is empty or the read stops.
fn work<R>(
    queue: &Mutex<std::vec::IntoIter<Job>>,
    stop: &AtomicBool,
    sender: &SyncSender<Message>,
    target: &[(String, ColumnType)],
    workbooks: &[(String, Arc<Workbook<R>>)],
    options: &ArrowOptions,
) where
    R: Read + Seek + Clone + Send,
{
    let mut archives: HashMap<usize, crate::package::archive::Archive<R>> = HashMap::new();
    while !stop.load(Ordering::Relaxed) {
        let job = queue
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .next();
        let Some(job) = job else { return };
        let (label, workbook) = &workbooks[job.workbook];
        let archive = archives
            .entry(job.workbook)
            .or_insert_with(|| workbook.archive.clone());
        let name = workbook.sheets()[job.position].name().to_owned();
        let result = (|| -> Result<bool> {
            let rows = workbook.rows_through(archive, job.position)?;
            let source = SheetSource {
                rows,
                formats: workbook.format_kinds().to_vec(),
                sheet: name.clone(),
                file: Some(label.clone()),
            };
            let mut batches = SheetBatches::open(source, options, Some(target))?;
            while let Some((batch, report)) = batches.next_batch_with_report()? {
                if stop.load(Ordering::Relaxed)
                    || sender.send(Message::Batch(batch, report)).is_err()
                {
                    return Ok(false);
                }
            }
            Ok(true)
        })();
        match result {
            Ok(true) => {}
            Ok(false) => return,
            Err(error) if options.skip_unreadable => {
                let skipped = SkippedSheet {
                    file: label.clone(),
                    sheet: name,
                    error,
                };
                if sender.send(Message::Skipped(skipped)).is_err() {
                    return;
                }
            }
            Err(error) => {
                stop.store(true, Ordering::Relaxed);
                let _ = sender.send(Message::Failed(error));
                return;
            }
        }
    }
}

impl ManySheetsReader {
    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// The next batch of any sheet, or None after the last.
    ///
    /// # Errors
    ///
    /// The first error of any sheet, unless sheets are skipped.
    ///
    /// # Panics
    ///
    /// A panic on a worker thread is resumed here.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        while !self.done {
            let message = self
                .receiver
                .get_mut()
                .unwrap_or_else(|poison| poison.into_inner())
                .recv();
            match message {
                Ok(Message::Batch(batch, report)) => {
                    self.report = report;
                    return Ok(Some(batch));
                }
                Ok(Message::Skipped(skipped)) => self.skipped.push(skipped),
                Ok(Message::Failed(err)) => {
                    self.done = true;
                    return Err(err);
                }
                Err(_) => {
                    // Every worker is done.
                    self.done = true;
                    for worker in self.workers.drain(..) {
                        if let Err(payload) = worker.join() {
                            std::panic::resume_unwind(payload);
                        }
                    }
                }
            }
        }
        Ok(None)
    }

    /// The report of the batch returned last (its file and sheet included).
    pub fn report(&self) -> &BatchReport {
        &self.report
    }

    /// The sheets and files skipped so far (all of them once
    /// [`ManySheetsReader::next_batch`] returned None).
    pub fn skipped(&self) -> &[SkippedSheet] {
        &self.skipped
    }
}

impl Drop for ManySheetsReader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Iterator for ManySheetsReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch()
            .map_err(|err| ArrowError::ExternalError(Box::new(err)))
            .transpose()
    }
}

impl RecordBatchReader for ManySheetsReader {
    fn schema(&self) -> SchemaRef {
        ManySheetsReader::schema(self)
    }
}

impl std::fmt::Debug for ManySheetsReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManySheetsReader")
            .field("schema", &self.schema())
            .finish_non_exhaustive()
    }
}
