//! [`ManySheetsReader`]: the batches of many sheets of many workbooks, read
//! in parallel into one schema.
//!
//! Two passes, both on the engine ([`Parallel::across`] with
//! [`Parallel::for_each_workbook_sheet`]): the unit of work is a
//! (workbook, sheet) pair across every input, so eight workbooks of one
//! sheet each keep every thread busy. The first pass reads each sheet's
//! header and sample (a few rows each) and unites their columns, in file
//! then sheet order whatever the thread timing: by position and name (the
//! default: the sheets must agree) or by name
//! ([`ArrowOptions::union_by_name`]: missing columns are null), the types
//! promoted by the inference rules. The second reads every readable pair
//! on one work-stealing pool, biggest sheet (of any workbook) first, every
//! worker building the batches of one sheet at a time and handing them
//! over one bounded channel of two batches per thread: at most that many
//! plus one per worker (built, or waiting for room) exist at once, besides
//! the one the caller holds. Every workbook stays open (its shared strings
//! and styles) until the reader ends; no sheet is ever held whole.
//!
//! A union by position takes a sheet lacking trailing generated columns
//! another gained by widening; each sheet's columns are matched to the united
//! ones through a map, and every sheet's batches share the reader's schema.
//! `output_columns` projects the united columns, each sheet's row reader
//! selecting only the projected ones it has (a query engine's projection: the
//! DuckDB extension's). Errors name the file in `Location::file`; with a
//! table, each workbook's table and its sheet are found first.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::{Read, Seek};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};

use super::batches::{
    BatchReport, SheetBatches, SheetSource, apply_overrides, batch_schema, batches_started,
};
use super::infer::promote;
use super::options::{ArrowOptions, ColumnType};
use super::prelude::{SheetColumns, sheet_columns};
use super::shape::SheetShape;
use crate::contract::SheetRows;
use crate::error::{Error, ErrorKind, Result, clip, clip_start};
use crate::metadata::{SheetInfo, SheetKind};
use crate::number_format::FormatKind;
use crate::parallel::Parallel;
use crate::source::SharedFile;
use crate::workbook::{OpenOptions, SheetRef, SheetSelector, Workbook};

/// Which sheets of each workbook a [`ManySheetsReader`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SheetChoice {
    /// The first worksheet.
    First,
    /// Every worksheet (chart and macro sheets left out).
    All,
    /// These sheets, each named as [`SheetSelector`](crate::SheetSelector)
    /// text says (by name, or by position when no sheet has that name); a
    /// workbook that lacks one fails (or is skipped and reported).
    Named(Vec<SheetRef>),
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

impl Clone for SkippedSheet {
    /// A copy (its error's kind, message and location), for a read that
    /// starts over and reports the same skips again.
    fn clone(&self) -> SkippedSheet {
        SkippedSheet {
            file: self.file.clone(),
            sheet: self.sheet.clone(),
            error: self.error.duplicate(),
        }
    }
}

/// Spawns the thread that runs the batches' pass on the engine, in
/// batches of the rows given.
type StartBatches = Box<dyn FnOnce(usize) -> std::io::Result<JoinHandle<()>> + Send>;

enum Message {
    Batch(RecordBatch, BatchReport),
    Skipped(SkippedSheet),
    Failed(Error),
}

/// The batches of many sheets of many workbooks in one schema, read in
/// parallel; `Send + Sync + 'static`, an Arrow [`RecordBatchReader`].
/// Batches of different sheets, of one workbook or of several, arrive
/// interleaved in no particular order (sheets start biggest first, across
/// all the workbooks; add [`ArrowOptions::file_column`] and
/// [`ArrowOptions::sheet_column`] to tell them apart, or the
/// [`BatchReport`]'s file and sheet); those of one sheet arrive in order.
/// With one thread, sheets come one after another, biggest first.
///
/// The headers and samples are read when the reader is made (its schema
/// is known then); the batches only from the first call to
/// [`next_batch`](Self::next_batch), so a reader made for its schema and
/// dropped builds none.
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
    /// Starts the second pass (the batches): taken by the first
    /// `next_batch`.
    start: Mutex<Option<StartBatches>>,
    /// The rows per batch the batches' pass will use.
    batch_size: usize,
    workers: Vec<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    report: BatchReport,
    skipped: Vec<SkippedSheet>,
    /// Sheets read or still being read: the ones the first pass could
    /// read, less those the second pass skipped.
    readable: usize,
    /// Whether unreadable sheets are skipped (and nothing read at all is
    /// an error: [`ErrorKind::NothingRead`]).
    skip_unreadable: bool,
    done: bool,
}

impl ArrowOptions {
    /// The batches of the chosen sheets of every file, in one schema, read
    /// in parallel (see [`ManySheetsReader`]); the files are opened in
    /// parallel too ([`open_workbooks`](crate::open_workbooks)). Expand
    /// globs before (the shell does, for the CLI).
    ///
    /// # Errors
    ///
    /// A file or sheet that cannot be read (unless skipped), sheets whose
    /// columns differ without [`ArrowOptions::union_by_name`], a type
    /// override naming no column.
    pub fn read_files<P: AsRef<Path> + Sync>(
        &self,
        files: impl IntoIterator<Item = P>,
        sheets: SheetChoice,
    ) -> Result<ManySheetsReader> {
        let files: Vec<P> = files.into_iter().collect();
        let opened = crate::parallel::open_workbooks(&files, self.threads, |file| {
            OpenOptions::new().open(file.as_ref())
        });
        let mut workbooks = Vec::new();
        let mut skipped = Vec::new();
        for (file, opened) in files.iter().zip(opened) {
            let label = file.as_ref().display().to_string();
            match opened.map_err(|err| err.with_file(&label)) {
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
        if self.table.is_none() {
            return self.read_chosen(workbooks, sheets, Vec::new());
        }
        // A table: each workbook's own definition of it, and its sheet.
        let mut options = self.clone();
        let mut kept = Vec::new();
        let mut skipped = Vec::new();
        for (label, workbook) in workbooks {
            let resolved = (|| {
                let wanted = match &sheets {
                    SheetChoice::First => None,
                    chosen => match choose(&workbook, chosen, None)?.as_slice() {
                        [one] => Some(*one),
                        _ => {
                            return Err(Error::new(ErrorKind::TableNotFound(format!(
                                "named '{}' on more than one sheet: a table is on one sheet",
                                self.table.as_deref().unwrap_or_default()
                            ))));
                        }
                    },
                };
                let tables = workbook.tables_shared();
                options.with_table(Some(&label), tables, workbook.sheets(), wanted)
            })();
            match resolved.map_err(|err| err.with_file(&label)) {
                Ok((with_table, _)) => {
                    options = with_table;
                    kept.push((label, workbook));
                }
                Err(error) if self.skip_unreadable => skipped.push(SkippedSheet {
                    file: label,
                    sheet: String::new(),
                    error,
                }),
                Err(err) => return Err(err),
            }
        }
        options.read_chosen(kept, sheets, skipped)
    }

    /// [`ArrowOptions::read_workbooks`], a table these options name
    /// resolved in each workbook; `skipped`: the workbooks left out so far.
    fn read_chosen<R>(
        &self,
        workbooks: Vec<(String, Arc<Workbook<R>>)>,
        sheets: SheetChoice,
        mut skipped: Vec<SkippedSheet>,
    ) -> Result<ManySheetsReader>
    where
        R: Read + Seek + Clone + Send + Sync + 'static,
    {
        let mut jobs: Vec<(usize, usize)> = Vec::new();
        // Each job's rank: files as given, then sheets as chosen.
        let mut ranks: HashMap<(usize, usize), usize> = HashMap::new();
        for (index, (label, workbook)) in workbooks.iter().enumerate() {
            let table = self.table.is_some().then(|| {
                (self.tables.iter())
                    .find(|known| known.file.as_deref() == Some(label.as_str()))
                    .map_or(usize::MAX, |known| known.table.sheet)
            });
            match choose(workbook, &sheets, table).map_err(|err| err.with_file(label)) {
                Ok(positions) => {
                    for position in positions {
                        // A sheet named twice is read once.
                        if let Entry::Vacant(rank) = ranks.entry((index, position)) {
                            rank.insert(jobs.len());
                            jobs.push((index, position));
                        }
                    }
                }
                Err(err) if self.skip_unreadable => skipped.push(SkippedSheet {
                    file: label.clone(),
                    sheet: String::new(),
                    error: err,
                }),
                Err(err) => return Err(err),
            }
        }
        let threads = if self.threads == 0 {
            thread::available_parallelism().map_or(1, usize::from)
        } else {
            self.threads
        };
        let labels: Vec<String> = workbooks.iter().map(|(label, _)| label.clone()).collect();
        // First pass, on the engine: every sheet's header and sample (no
        // inflate thread: only the first rows are read), put back in job
        // order (files as given, then sheets) so that the united columns
        // do not depend on thread timing.
        let found = Mutex::new(Vec::with_capacity(jobs.len()));
        Parallel::across(workbooks.iter().map(|(_, workbook)| &**workbook))
            .threads(threads)
            .without_pipeline()
            .workbook_sheets(jobs.iter().copied())?
            .for_each_workbook_sheet(|| {
                |index: usize, sheet: &SheetInfo, rows: Result<SheetRows<'_>>| {
                    let columns = rows.and_then(|rows| {
                        let shape =
                            SheetShape::load_shared(&workbooks[index].1, sheet.position(), self)?;
                        let source = SheetSource {
                            rows,
                            formats: workbooks[index].1.format_kinds().to_vec(),
                            sheet: sheet.name().to_owned(),
                            file: Some(labels[index].clone()),
                            shape,
                        };
                        sheet_columns(source, self)
                    });
                    let columns = columns.map_err(|err| err.with_file(&labels[index]));
                    let columns = match columns {
                        Err(err) if !self.skip_unreadable => return Err(err),
                        columns => columns,
                    };
                    found
                        .lock()
                        .unwrap_or_else(|poison| poison.into_inner())
                        .push(((index, sheet.position()), columns));
                    Ok(true)
                }
            })?;
        let mut found = found
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner());
        found.sort_by_key(|(job, _)| ranks.get(job).copied());
        let mut readable = Vec::new();
        let mut columns = Vec::new();
        for ((index, position), result) in found {
            let name = workbooks[index].1.sheets()[position].name().to_owned();
            match result {
                Ok(found) => {
                    columns.push((labels[index].clone(), name, found));
                    readable.push((index, position));
                }
                Err(error) => skipped.push(SkippedSheet {
                    file: labels[index].clone(),
                    sheet: name,
                    error,
                }),
            }
        }
        let readable_count = readable.len();
        let target = unite(&columns, self)?;
        // A projection ([`ArrowOptions::output_columns`]) of the united
        // columns: the other columns are neither in the batches nor read
        // past the header and sample.
        let target = match &self.output_columns {
            Some(wanted) => project_united(&target, wanted)?,
            None => target,
        };
        // The second pass reads each sheet with the columns the first
        // found (the union was made of them), sampling no more.
        let known: HashMap<(usize, usize), SheetColumns> = readable
            .iter()
            .copied()
            .zip(columns.into_iter().map(|(_, _, found)| found))
            .collect();
        let batches = batch_schema(self, target.iter().map(|(name, ty)| (name.as_str(), *ty)));
        // Second pass, on the engine: every readable (workbook, sheet)
        // pair is one work item on one pool, biggest sheet first across
        // all the workbooks; each worker builds one sheet's batches at a
        // time and hands them over one bounded channel.
        let stop = Arc::new(AtomicBool::new(false));
        let (sender, receiver) = sync_channel(2 * threads.max(1));
        let (coordinator_stop, mut options) = (Arc::clone(&stop), self.clone());
        let batches_schema = Arc::clone(&batches);
        let start: StartBatches = Box::new(move |batch_size| {
            options.batch_size = batch_size;
            thread::Builder::new()
                .name("sheetstream-arrow".into())
                .spawn(move || {
                    let formats: Vec<&[FormatKind]> = workbooks
                        .iter()
                        .map(|(_, workbook)| workbook.format_kinds())
                        .collect();
                    let load_shape = |index: usize, position: usize| {
                        SheetShape::load_shared(&workbooks[index].1, position, &options)
                    };
                    let run =
                        Parallel::across(workbooks.iter().map(|(_, workbook)| &**workbook))
                            .threads(threads)
                            .workbook_sheets(readable)
                            .and_then(|parallel| {
                                parallel.for_each_workbook_sheet(|| {
                            let sheet_reader = SheetReader {
                                labels: &labels,
                                formats: &formats,
                                target: &target,
                                known: &known,
                                schema: &batches_schema,
                                options: &options,
                                load_shape: &load_shape,
                                stop: &coordinator_stop,
                                sender: sender.clone(),
                            };
                            move |index: usize, sheet: &SheetInfo, rows: Result<SheetRows<'_>>| {
                                sheet_reader.read(index, sheet, rows)
                            }
                        })
                            });
                    if let Err(error) = run {
                        coordinator_stop.store(true, Ordering::Relaxed);
                        let _ = sender.send(Message::Failed(error));
                    }
                })
        });
        Ok(ManySheetsReader {
            schema: batches,
            receiver: Mutex::new(receiver),
            start: Mutex::new(Some(start)),
            batch_size: self.batch_size,
            workers: Vec::new(),
            stop,
            report: BatchReport::default(),
            skipped,
            readable: readable_count,
            skip_unreadable: self.skip_unreadable,
            done: false,
        })
    }
}

/// What a worker of the engine needs to turn one sheet's rows into
/// batches on the channel: per workbook (by the engine's index) its label
/// and its styles' format kinds.
struct SheetReader<'a> {
    labels: &'a [String],
    formats: &'a [&'a [FormatKind]],
    target: &'a [(String, ColumnType)],
    /// Each (workbook, sheet) pair's columns as the first pass found them.
    known: &'a HashMap<(usize, usize), SheetColumns>,
    /// The batches' schema, shared by every sheet's batches.
    schema: &'a SchemaRef,
    options: &'a ArrowOptions,
    /// A sheet's shape (issue 26), by workbook index and sheet position.
    load_shape: &'a (dyn Fn(usize, usize) -> Result<Option<SheetShape>> + Sync),
    stop: &'a AtomicBool,
    sender: SyncSender<Message>,
}

impl SheetReader<'_> {
    /// One sheet's batches onto the channel: Ok(false) when the reader is
    /// gone or stopped; an error (unless sheets are skipped) fails the run
    /// (see [`Parallel`]: the first sheet's error in workbook order).
    fn read(&self, index: usize, sheet: &SheetInfo, rows: Result<SheetRows<'_>>) -> Result<bool> {
        if self.stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let label = &self.labels[index];
        let result = (|| -> Result<bool> {
            let source = SheetSource {
                rows: rows?,
                formats: self.formats[index].to_vec(),
                sheet: sheet.name().to_owned(),
                file: Some(label.clone()),
                shape: (self.load_shape)(index, sheet.position())?,
            };
            let known = self.known.get(&(index, sheet.position()));
            let mut batches = SheetBatches::open(
                source,
                self.options,
                Some((self.target, self.schema)),
                known,
            )?;
            while let Some((batch, report)) = batches.next_batch_with_report()? {
                if self.stop.load(Ordering::Relaxed)
                    || self.sender.send(Message::Batch(batch, report)).is_err()
                {
                    return Ok(false);
                }
            }
            Ok(true)
        })()
        .map_err(|err| err.with_file(label));
        match result {
            // A misfit that can widen its column is not damage: the
            // whole-table reader reads again.
            Err(error)
                if self.options.skip_unreadable
                    && error.attachment::<super::WidenedSheet>().is_none() =>
            {
                let skipped = SkippedSheet {
                    file: label.clone(),
                    sheet: sheet.name().to_owned(),
                    error,
                };
                Ok(self.sender.send(Message::Skipped(skipped)).is_ok())
            }
            // The engine stops the sheets after this one in workbook
            // order, and returns the first sheet's error in that order
            // (the same on every thread count).
            other => other,
        }
    }
}

/// The positions of the chosen sheets of a workbook; `table`: the sheet
/// of the table read, which is the one chosen.
fn choose<R>(
    workbook: &Workbook<R>,
    sheets: &SheetChoice,
    table: Option<usize>,
) -> Result<Vec<usize>> {
    if let Some(table) = table {
        return Ok(vec![table]);
    }
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
            .map(|wanted| wanted.position(workbook.sheets()))
            .collect(),
    }
}

/// Whether two sheets' columns by position are the same but for columns
/// one of them has past the other's last, none of them named by a header
/// (`column_N`): a value right of every sampled column adds such a column
/// to the sheet it is in (a misfit widened), and the others read nulls there.
fn same_but_generated(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long[..short.len()] == *short
        && (long.iter().enumerate())
            .skip(short.len())
            .all(|(at, name)| *name == format!("column_{}", at + 1))
}

/// The united columns [`ArrowOptions::output_columns`] names, in its order.
fn project_united(
    united: &[(String, ColumnType)],
    wanted: &[String],
) -> Result<Vec<(String, ColumnType)>> {
    let at: HashMap<&str, usize> = (united.iter().enumerate())
        .map(|(at, (name, _))| (name.as_str(), at))
        .collect();
    wanted
        .iter()
        .map(|name| match at.get(name.as_str()) {
            Some(&at) => Ok(united[at].clone()),
            None => {
                let names: Vec<&str> = united.iter().map(|(own, _)| own.as_str()).collect();
                Err(Error::new(ErrorKind::ColumnSelection(format!(
                    "an output column `{}` was asked for, which is not a column; the columns are: {}",
                    clip(name, 60),
                    clip(&names.join(", "), 200)
                ))))
            }
        })
        .collect()
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
        if !options.union_by_name
            && !names.is_empty()
            && names != columns.names
            && !same_but_generated(&names, &columns.names)
        {
            // The pieces from the files cut to size, so that the message's
            // bound (`COMPOSED_CHARS`) never cuts the advice at its end.
            return Err(Error::new(ErrorKind::ColumnSelection(format!(
                "the columns of sheet '{}' of {} ({}) differ from the first sheet's ({}); read with union_by_name to match them by name",
                clip(sheet, 40),
                clip_start(file, 60),
                clip(&columns.names.join(", "), 70),
                clip(&names.join(", "), 70)
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

impl ManySheetsReader {
    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// The next batch of any sheet, or None after the last.
    ///
    /// # Errors
    ///
    /// The first error of any sheet, unless sheets are skipped; when they
    /// are and every one was ([`ArrowOptions::skip_unreadable`]: every
    /// file and sheet given, none read), [`ErrorKind::NothingRead`]
    /// (at once when no sheet's header and sample could be read), and
    /// [`skipped`](Self::skipped) lists them.
    ///
    /// # Panics
    ///
    /// A panic on a worker thread is resumed here.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if let Some(err) = self.nothing_read() {
            self.done = true;
            return Err(err);
        }
        let start = self
            .start
            .get_mut()
            .unwrap_or_else(|poison| poison.into_inner())
            .take();
        if let Some(start) = start {
            match start(self.batch_size) {
                Ok(coordinator) => self.workers.push(coordinator),
                Err(err) => {
                    self.done = true;
                    return Err(err.into());
                }
            }
        }
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
                Ok(Message::Skipped(skipped)) => {
                    self.readable = self.readable.saturating_sub(1);
                    self.skipped.push(skipped);
                    if let Some(err) = self.nothing_read() {
                        self.done = true;
                        return Err(err);
                    }
                }
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

    /// Sets the rows per batch, which [`ArrowOptions::batch_size`] set when
    /// the reader was made, once its schema is known (a consumer that
    /// wants wide tables in bigger batches, say). Only before the first
    /// [`next_batch`](Self::next_batch): the batches start there.
    ///
    /// ```
    /// use sheetstream::arrow::{ArrowOptions, SheetChoice};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut reader = ArrowOptions::new()
    ///     .batch_size(1)
    ///     .read_files(["examples/data/sales.xlsx"], SheetChoice::Named(vec!["Data".into()]))?;
    /// assert_eq!(reader.schema().fields().len(), 5);
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
        let pending = self
            .start
            .get_mut()
            .unwrap_or_else(|poison| poison.into_inner())
            .is_some();
        if !pending {
            return Err(batches_started());
        }
        self.batch_size = rows.max(1);
        Ok(())
    }

    /// The sheets and files skipped so far (all of them once
    /// [`ManySheetsReader::next_batch`] returned None).
    pub fn skipped(&self) -> &[SkippedSheet] {
        &self.skipped
    }

    /// The reader with `earlier` skips listed first in
    /// [`skipped`](Self::skipped): the files a caller that opens the
    /// workbooks itself (and hands [`ArrowOptions::read_workbooks`] the
    /// ones that opened) skipped before. They count toward
    /// [`ErrorKind::NothingRead`].
    pub fn with_skipped(mut self, earlier: Vec<SkippedSheet>) -> Self {
        let later = std::mem::replace(&mut self.skipped, earlier);
        self.skipped.extend(later);
        self
    }

    /// [`ErrorKind::NothingRead`] when unreadable sheets are skipped, some
    /// were, and none is left to read.
    fn nothing_read(&self) -> Option<Error> {
        if !self.skip_unreadable || self.readable > 0 {
            return None;
        }
        SkippedSheet::nothing_read(&self.skipped)
    }
}

impl SkippedSheet {
    /// The error of a read that skipped all of `skipped` and read nothing
    /// ([`ErrorKind::NothingRead`]: how many, and the first), as
    /// [`ManySheetsReader::next_batch`] returns it; for a caller that
    /// reads sheets one by one and skips them itself. None when `skipped`
    /// is empty.
    pub fn nothing_read(skipped: &[SkippedSheet]) -> Option<Error> {
        let first = skipped.first()?;
        let place = if first.sheet.is_empty() {
            clip_start(&first.file, 120).into_owned()
        } else {
            format!(
                "{} sheet '{}'",
                clip_start(&first.file, 120),
                clip(&first.sheet, 40)
            )
        };
        let message = format!(
            "{} unreadable and skipped (skip_unreadable), no sheet left to read; the first: \
             {place}: {}",
            if skipped.len() == 1 {
                "the one file or sheet given was".to_owned()
            } else {
                format!("all {} files and sheets given were", skipped.len())
            },
            clip(&first.error.to_string(), 150)
        );
        Some(Error::new(ErrorKind::NothingRead(message)))
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
