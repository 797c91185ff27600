//! Parallel reading: whole sheets on a work-stealing pool, and one sheet
//! pipelined over two threads (inflate on one, scan on the other).
//!
//! Read this first: the unit of work is a (workbook, sheet) pair, over
//! one workbook ([`Workbook::parallel`]) or many ([`Parallel::across`]).
//! Every worker reads and inflates its own sheet through its own clone of
//! that workbook's archive (the central directory was parsed once and is
//! shared; a worker keeps the clone of the workbook it read last), so
//! decompression is parallel too. The shared strings and
//! styles were built at open and are shared read-only. Each worker owns its
//! row reader (window, arena, scratch), so nothing per cell touches a lock
//! or the global allocator. The only shared state while reading is a stop
//! flag and the earliest failed sheet, checked once per row, and the slot
//! for that sheet's failure.
//!
//! Sheets are taken biggest compressed part first, of any workbook. Besides
//! `for_each_row` (a closure factory) and `fold`, `for_each_sheet` hands each
//! sheet's `SheetRows` or the error opening it to a closure (the hook the
//! layers build on) and `for_each_workbook_sheet` tells it the workbook's
//! index. `open_workbooks` opens many workbooks on threads, results in order
//! (the many-file readers: `read_files`, the CLI's columnar commands, Python's
//! `read_excel`).

use std::any::Any;
use std::io::{Read, Seek};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, Scope};

use crossbeam_deque::{Injector, Stealer, Worker};

use crate::cell::Row;
use crate::columns::ColumnSet;
use crate::contract::{FormatBook, SheetContext, SheetRows};
use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{SheetInfo, SheetKind};
use crate::workbook::{
    Book, EncryptionState, InputHandle, RowFlow, SheetSelector, Workbook, integrity_step,
};

/// A parallel read of a workbook, set up by [`Workbook::parallel`].
///
/// Rows of one sheet arrive in file order, on one thread; rows of different
/// sheets interleave in no particular order (sheets are read biggest
/// first). An error stops the threads reading sheets after its sheet in
/// workbook order (workbook, then sheet position) at their next row; the
/// sheets before it are read on, and the error returned is the first
/// failing sheet's in that order: the error a caller reading the sheets
/// one after another would meet first, on every thread count. A panic
/// stops every thread and is resumed on the caller's thread; a closure
/// asking to stop stops every thread.
///
/// ```
/// # fn main() -> Result<(), sheetstream::Error> {
/// let workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// // Count the cells of every worksheet, one accumulator per thread.
/// let cells = workbook.parallel().threads(2).fold(
///     || 0usize,
///     |count, _sheet, row| *count += row.cells().len(),
///     |a, b| a + b,
/// )?;
/// assert_eq!(cells, 19);
/// # Ok(())
/// # }
/// ```
pub struct Parallel<'w, R> {
    workbooks: Vec<&'w Workbook<R>>,
    threads: usize,
    /// The (workbook, sheet position) pairs to read; None for every
    /// worksheet of every workbook.
    sheets: Option<Vec<(usize, usize)>>,
    columns: Option<ColumnSet>,
    /// [`Parallel::stop_after_row`]: every sheet's last row to read.
    last_row: Option<u32>,
    /// Whether a sheet may get an inflate thread when threads outnumber
    /// sheets (off for reads of a few rows per sheet).
    pipeline: bool,
}

/// What stopped a worker early.
enum Failure {
    Error(Error),
    Panic(Box<dyn Any + Send>),
}

impl<R: Read + Seek + Clone + Send> Workbook<R> {
    /// Sets up a parallel read of this workbook's worksheets (all of them,
    /// unless [`Parallel::sheets`] says otherwise) with as many threads as
    /// the machine has cores, at most one per sheet. A single sheet is read
    /// by two threads, inflating and scanning at the same time.
    ///
    /// The reader must be `Read + Seek + Clone + Send`: every worker reads
    /// through its own clone of it. [`Workbook::open`] (a [`SharedFile`](crate::SharedFile))
    /// and [`Workbook::from_bytes`] give one; a `std::fs::File` or a
    /// `BufReader` is not `Clone`, so a workbook opened from one with
    /// [`Workbook::from_reader`] has no `parallel()`: open the path with
    /// `Workbook::open` instead, or read the bytes and use `from_bytes`.
    pub fn parallel(&self) -> Parallel<'_, R> {
        Parallel::across([self])
    }
}

impl<'w, R: Read + Seek + Clone + Send> Parallel<'w, R> {
    /// Sets up a parallel read of the worksheets of many workbooks on one
    /// pool: the unit of work is a (workbook, sheet) pair, so eight
    /// workbooks of one sheet each keep eight threads busy. Otherwise as
    /// [`Workbook::parallel`]; [`Parallel::for_each_workbook_sheet`] tells
    /// the closure which workbook a sheet is of (its index here).
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// use sheetstream::{Parallel, Workbook};
    /// let first = Workbook::open("examples/data/sales.xlsx")?;
    /// let second = Workbook::open("examples/data/sales.xlsx")?;
    /// let cells = Parallel::across([&first, &second]).threads(2).fold(
    ///     || 0usize,
    ///     |count, _sheet, row| *count += row.cells().len(),
    ///     |a, b| a + b,
    /// )?;
    /// assert_eq!(cells, 2 * 19);
    /// # Ok(())
    /// # }
    /// ```
    pub fn across(workbooks: impl IntoIterator<Item = &'w Workbook<R>>) -> Self {
        Parallel {
            workbooks: workbooks.into_iter().collect(),
            threads: 0,
            sheets: None,
            columns: None,
            last_row: None,
            pipeline: true,
        }
    }

    /// The number of threads: 0 (the default) for one per core, at most
    /// one per sheet. With 1, everything runs on the calling thread.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Reads only these sheets (by position or name) of every workbook
    /// instead of every worksheet.
    ///
    /// # Errors
    ///
    /// A sheet that does not exist (in any of the workbooks).
    pub fn sheets<S: SheetSelector>(mut self, sheets: impl IntoIterator<Item = S>) -> Result<Self> {
        let selectors: Vec<S> = sheets.into_iter().collect();
        let mut pairs = Vec::new();
        for (index, workbook) in self.workbooks.iter().enumerate() {
            for selector in &selectors {
                pairs.push((index, selector.position(&workbook.sheets)?));
            }
        }
        self.sheets = Some(pairs);
        Ok(self)
    }

    /// Reads exactly these (workbook index, sheet position) pairs: the
    /// work items themselves, for a caller that chose per workbook.
    ///
    /// # Errors
    ///
    /// A workbook index or sheet position out of range.
    pub fn workbook_sheets(
        mut self,
        pairs: impl IntoIterator<Item = (usize, usize)>,
    ) -> Result<Self> {
        let pairs: Vec<(usize, usize)> = pairs.into_iter().collect();
        for &(index, position) in &pairs {
            let workbook = self.workbooks.get(index).ok_or_else(|| {
                Error::new(ErrorKind::SheetNotFound(format!(
                    "in workbook {index} of {}",
                    self.workbooks.len()
                )))
            })?;
            position.position(&workbook.sheets)?;
        }
        self.sheets = Some(pairs);
        Ok(self)
    }

    /// Resolves and hands out only the cells of these columns, in every
    /// sheet read: the pushdown of
    /// [`SheetRows::select_columns`](crate::SheetRows::select_columns).
    pub fn select_columns(mut self, columns: ColumnSet) -> Self {
        self.columns = Some(columns);
        self
    }

    /// Reads no row past this one (0-based) in any sheet: the pushdown of
    /// [`SheetRows::stop_after_row`](crate::SheetRows::stop_after_row), a
    /// range's or a table's last row. As there, what lies past it is none
    /// of the read's business: not read, and its damage is no error.
    pub fn stop_after_row(mut self, last: Option<u32>) -> Self {
        self.last_row = last;
        self
    }

    /// No inflate thread per sheet, however many threads there are to
    /// spare: for reads of a few rows of each sheet, where a pipe would
    /// inflate ahead what is never read.
    #[cfg(feature = "arrow")]
    pub(crate) fn without_pipeline(mut self) -> Self {
        self.pipeline = false;
        self
    }

    /// Calls a closure with every row of every selected sheet (a
    /// `ControlFlow::Break` value stops every thread but is not returned:
    /// rows of several threads have no one last value). `make` is
    /// called once per thread and returns that thread's closure, which owns
    /// its state; the closure gets the sheet and the row and returns what
    /// [`RowFlow`] allows (`()`, a `bool`, a `ControlFlow`).
    ///
    /// # Errors
    ///
    /// The error of the first sheet (in workbook order) that failed.
    ///
    /// # Panics
    ///
    /// A panic in a closure is resumed on the calling thread once the other
    /// threads have stopped.
    pub fn for_each_row<M, F, T>(self, make: M) -> Result<()>
    where
        M: Fn() -> F + Sync,
        F: FnMut(&SheetInfo, Row<'_>) -> T,
        T: RowFlow,
    {
        self.run(
            make,
            rows_of(|f: &mut F, sheet, row| f(sheet, row).keep_going()),
            drop,
        )
    }

    /// Calls a closure once per selected sheet with that sheet's row
    /// reader (or the error that opening it met), on the same threads and
    /// in the same order as [`Parallel::for_each_row`]: for work with a
    /// beginning and an end per sheet (a header read first, an output file
    /// per sheet, record batches built from the rows) or that decides
    /// itself what an unreadable sheet means (fail, or skip and report).
    /// `make` is called once per thread and returns that thread's closure,
    /// which owns its state. The closure returns `Ok(true)` to go on,
    /// `Ok(false)` to stop every thread, or an error, which stops the
    /// threads on the sheets after it in workbook order and is returned
    /// unless a sheet before it fails too (see [`Parallel`]). The closure drives its rows itself, so a
    /// stop that another thread asks for reaches this one when its closure
    /// returns.
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// use std::sync::Mutex;
    /// let workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// // The first row's cell count per sheet, read past nothing else.
    /// let firsts = Mutex::new(Vec::new());
    /// workbook.parallel().threads(2).for_each_sheet(|| {
    ///     |sheet: &sheetstream::SheetInfo, rows: sheetstream::Result<sheetstream::SheetRows<'_>>| {
    ///         let mut rows = rows?;
    ///         let cells = rows.next_row()?.map_or(0, |row| row.cells().len());
    ///         firsts.lock().unwrap().push((sheet.name().to_owned(), cells));
    ///         Ok(true)
    ///     }
    /// })?;
    /// let mut firsts = firsts.into_inner().unwrap();
    /// firsts.sort();
    /// assert_eq!(firsts[0], ("Data".to_owned(), 5));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The error of the first sheet (in workbook order) whose closure
    /// returned one.
    ///
    /// # Panics
    ///
    /// As [`Parallel::for_each_row`].
    pub fn for_each_sheet<M, F>(self, make: M) -> Result<()>
    where
        M: Fn() -> F + Sync,
        F: FnMut(&SheetInfo, Result<SheetRows<'_>>) -> Result<bool>,
    {
        self.run(
            make,
            |f: &mut F, _workbook, sheet, rows, _stop| f(sheet, rows),
            drop,
        )
    }

    /// As [`Parallel::for_each_sheet`], the closure also told which
    /// workbook the sheet is of: its index among those given to
    /// [`Parallel::across`] (0 for [`Workbook::parallel`]).
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// use std::sync::Mutex;
    /// use sheetstream::{Parallel, Result, SheetInfo, SheetRows, Workbook};
    /// let first = Workbook::open("examples/data/sales.xlsx")?;
    /// let second = Workbook::open("examples/data/sales.xlsx")?;
    /// let seen = Mutex::new(Vec::new());
    /// Parallel::across([&first, &second])
    ///     .sheets(["Data"])?
    ///     .threads(2)
    ///     .for_each_workbook_sheet(|| {
    ///         |workbook: usize, sheet: &SheetInfo, rows: Result<SheetRows<'_>>| {
    ///             let mut rows = rows?;
    ///             let mut count = 0;
    ///             while rows.next_row()?.is_some() {
    ///                 count += 1;
    ///             }
    ///             seen.lock().unwrap().push((workbook, sheet.name().to_owned(), count));
    ///             Ok(true)
    ///         }
    ///     })?;
    /// let mut seen = seen.into_inner().unwrap();
    /// seen.sort();
    /// assert_eq!(seen, [(0, "Data".to_owned(), 4), (1, "Data".to_owned(), 4)]);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Parallel::for_each_sheet`].
    ///
    /// # Panics
    ///
    /// As [`Parallel::for_each_row`].
    pub fn for_each_workbook_sheet<M, F>(self, make: M) -> Result<()>
    where
        M: Fn() -> F + Sync,
        F: FnMut(usize, &SheetInfo, Result<SheetRows<'_>>) -> Result<bool>,
    {
        self.run(
            make,
            |f: &mut F, workbook, sheet, rows, _stop| f(workbook, sheet, rows),
            drop,
        )
    }

    /// Folds every row of every selected sheet into one value: each thread
    /// folds the rows it reads into its own accumulator made by `init`, and
    /// the accumulators are combined with `reduce` at the end.
    ///
    /// # Errors
    ///
    /// The error of the first sheet (in workbook order) that failed.
    ///
    /// # Panics
    ///
    /// As [`Parallel::for_each_row`].
    pub fn fold<T, I, F, G>(self, init: I, fold: F, reduce: G) -> Result<T>
    where
        T: Send,
        I: Fn() -> T + Sync,
        F: Fn(&mut T, &SheetInfo, Row<'_>) + Sync,
        G: Fn(T, T) -> T,
    {
        let states = Mutex::new(Vec::new());
        self.run(
            &init,
            rows_of(|state: &mut T, sheet, row| {
                fold(state, sheet, row);
                true
            }),
            |state| {
                states
                    .lock()
                    .unwrap_or_else(|poison| poison.into_inner())
                    .push(state)
            },
        )?;
        let states = states
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner());
        Ok(states.into_iter().reduce(reduce).unwrap_or_else(init))
    }

    /// The selected (workbook, sheet) pairs, biggest compressed part first
    /// (across all workbooks) so that the longest work starts first; a
    /// stable sort, so equal sizes keep workbook and sheet order.
    fn pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs: Vec<(usize, usize)> = match &self.sheets {
            Some(pairs) => pairs.clone(),
            None => self
                .workbooks
                .iter()
                .enumerate()
                .flat_map(|(index, workbook)| {
                    (0..workbook.sheets.len())
                        .filter(|&position| {
                            workbook.sheets[position].kind() == SheetKind::Worksheet
                        })
                        .map(move |position| (index, position))
                })
                .collect(),
        };
        pairs.sort_by_key(|&(index, position)| {
            let workbook = self.workbooks[index];
            std::cmp::Reverse(workbook.book.sheet_size(&workbook.sheets[position]))
        });
        pairs
    }

    /// Runs the workers: each makes its state with `make`, visits sheets
    /// with `visit` (false stops everyone) and hands its final state to
    /// `finish`, unless the run failed.
    fn run<S, M, V, D>(&self, make: M, visit: V, finish: D) -> Result<()>
    where
        M: Fn() -> S + Sync,
        V: Fn(&mut S, usize, &SheetInfo, Result<SheetRows<'_>>, &Stop<'_>) -> Result<bool> + Sync,
        D: Fn(S) + Sync,
    {
        let pairs = self.pairs();
        let cores = thread::available_parallelism().map_or(1, usize::from);
        let threads = if self.threads == 0 {
            cores
        } else {
            self.threads
        };
        let workers = threads.min(pairs.len()).max(1);
        // With fewer sheets than threads, each sheet gets an inflate thread.
        let pipelined = self.pipeline && threads > pairs.len();
        let job = Job {
            workbooks: self
                .workbooks
                .iter()
                .map(|workbook| Shared {
                    sheets: &workbook.sheets,
                    context: workbook.context(),
                    encryption: workbook.encryption.as_ref(),
                    checks_at_end: workbook.input_handle.is_some(),
                })
                .collect(),
            columns: self.columns.as_ref(),
            last_row: self.last_row,
            pipelined,
            sheet_threads: threads / pairs.len().max(1),
            stop: AtomicBool::new(false),
            failed_at: AtomicUsize::new(usize::MAX),
            failure: Mutex::new(None),
        };
        // Each worker's own clones of the books, none read yet (cheap:
        // the central directory is shared, a read-ahead buffer is only
        // allocated by a read). A worker reads through a clone of one of
        // these, dropped when it turns to another workbook.
        let pristine = || -> Vec<Book<R>> {
            self.workbooks
                .iter()
                .map(|workbook| workbook.book.clone())
                .collect()
        };

        // Each task's place in workbook order (workbook, then sheet
        // position): the order a caller reading the sheets one after
        // another meets their errors in, which decides the error returned.
        let mut ordered = pairs.clone();
        ordered.sort_unstable();
        let rank = |pair: &(usize, usize)| ordered.binary_search(pair).unwrap_or(usize::MAX);

        if workers == 1 {
            // Serial, on the calling thread (with an inflate thread when pipelined).
            let archives = pristine();
            let mut archive = None;
            let mut state = make();
            thread::scope(|scope| {
                for pair in &pairs {
                    let stop = Stop {
                        job: &job,
                        task: rank(pair),
                    };
                    if stop.is_set() {
                        // After a sheet earlier in workbook order failed.
                        continue;
                    }
                    match job.read_sheet(
                        scope,
                        &archives,
                        &mut archive,
                        *pair,
                        &mut state,
                        &visit,
                        &stop,
                    ) {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(err) => job.fail(stop.task, Failure::Error(err)),
                    }
                }
            });
            return match job
                .failure
                .into_inner()
                .unwrap_or_else(|poison| poison.into_inner())
            {
                Some((_, Failure::Error(err))) => Err(err),
                Some((_, Failure::Panic(payload))) => panic::resume_unwind(payload),
                None => {
                    finish(state);
                    Ok(())
                }
            };
        }

        let injector = Injector::new();
        for pair in &pairs {
            injector.push((rank(pair), *pair));
        }
        let queues: Vec<Worker<Task>> = (0..workers).map(|_| Worker::new_fifo()).collect();
        let stealers: Vec<Stealer<Task>> = queues.iter().map(Worker::stealer).collect();
        thread::scope(|scope| {
            for queue in queues {
                let archives = pristine();
                let (job, injector, stealers, make, visit, finish) =
                    (&job, &injector, &stealers, &make, &visit, &finish);
                scope.spawn(move || {
                    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                        let mut archive = None;
                        let mut state = make();
                        let mut failed = false;
                        while !job.stop.load(Ordering::Relaxed) {
                            let Some((task, pair)) = next_task(&queue, injector, stealers) else {
                                break;
                            };
                            let stop = Stop { job, task };
                            if stop.is_set() {
                                // After a sheet read earlier in order failed.
                                continue;
                            }
                            match job.read_sheet(
                                scope,
                                &archives,
                                &mut archive,
                                pair,
                                &mut state,
                                visit,
                                &stop,
                            ) {
                                Ok(true) => {}
                                Ok(false) => job.stop.store(true, Ordering::Relaxed),
                                Err(err) => {
                                    // The sheets before this one in order
                                    // are still read: the error returned
                                    // is the first one's, as on one thread.
                                    job.fail(task, Failure::Error(err));
                                    failed = true;
                                }
                            }
                        }
                        (!failed).then_some(state)
                    }));
                    match outcome {
                        Ok(Some(state)) => finish(state),
                        Ok(None) => {}
                        Err(payload) => {
                            job.stop.store(true, Ordering::Relaxed);
                            job.fail(0, Failure::Panic(payload));
                        }
                    }
                });
            }
        });
        match job
            .failure
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner())
        {
            Some((_, Failure::Error(err))) => Err(err),
            Some((_, Failure::Panic(payload))) => panic::resume_unwind(payload),
            None => Ok(()),
        }
    }
}

/// What a worker needs of one workbook besides its book: read-only,
/// shared by every worker.
struct Shared<'w> {
    sheets: &'w [SheetInfo],
    context: SheetContext<'w>,
    /// An encrypted workbook's state: its integrity check is due once
    /// every worksheet was read to its end.
    encryption: Option<&'w EncryptionState>,
    /// Whether the workbook has a second handle on its input for that
    /// check (the pull reader runs it then too).
    checks_at_end: bool,
}

/// What every worker of one run shares.
struct Job<'w> {
    workbooks: Vec<Shared<'w>>,
    columns: Option<&'w ColumnSet>,
    last_row: Option<u32>,
    pipelined: bool,
    /// Threads for one sheet when pipelined (an `.xls` sheet read block
    /// by block takes them all).
    sheet_threads: usize,
    /// A closure asked to stop, or a panic: every worker stops.
    stop: AtomicBool,
    /// The earliest task in workbook order that failed: the workers stop
    /// every later one, and read on the earlier ones.
    failed_at: AtomicUsize,
    /// The failure of the earliest task that failed (a panic wins).
    failure: Mutex<Option<(usize, Failure)>>,
}

/// A task: its place in workbook order, and its (workbook, sheet).
type Task = (usize, (usize, usize));

/// What tells a sheet's reader to stop: a stop every worker obeys, or a
/// failure of a sheet before it in workbook order.
struct Stop<'j> {
    job: &'j Job<'j>,
    task: usize,
}

impl Stop<'_> {
    /// Whether the sheet's reader should stop (checked once per row).
    fn is_set(&self) -> bool {
        self.job.stop.load(Ordering::Relaxed)
            || self.job.failed_at.load(Ordering::Relaxed) < self.task
    }
}

impl Job<'_> {
    /// Records a failure of `task`: kept when it is the earliest (so the
    /// error returned does not depend on which thread failed first), the
    /// later tasks stopped.
    fn fail(&self, task: usize, failure: Failure) {
        self.failed_at.fetch_min(task, Ordering::Relaxed);
        let mut slot = self
            .failure
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let keep = match (&*slot, &failure) {
            (None, _) => true,
            (Some((_, Failure::Panic(_))), _) => false,
            (Some(_), Failure::Panic(_)) => true,
            (Some((held, _)), _) => task < *held,
        };
        if keep {
            *slot = Some((task, failure));
        }
    }

    /// Opens one sheet and hands its rows to `visit` with `state`;
    /// returns false when `visit` asked to stop. `archive` is the worker's
    /// clone of the archive of the workbook it read last, replaced by a
    /// clone of this one's (from the worker's unread `archives`) when the
    /// workbook changes: a worker holds one clone that has read, with its
    /// read-ahead buffer, however many workbooks there are.
    #[allow(clippy::too_many_arguments)]
    fn read_sheet<'scope, 'env, R, S, V>(
        &'env self,
        scope: &'scope Scope<'scope, 'env>,
        archives: &[Book<R>],
        archive: &mut Option<(usize, Book<R>)>,
        (index, position): (usize, usize),
        state: &mut S,
        visit: &V,
        stop: &Stop<'_>,
    ) -> Result<bool>
    where
        R: Read + Seek + Clone + Send + 'env,
        V: Fn(&mut S, usize, &SheetInfo, Result<SheetRows<'_>>, &Stop<'_>) -> Result<bool>,
    {
        if archive.as_ref().is_none_or(|(held, _)| *held != index) {
            *archive = Some((index, archives[index].clone()));
        }
        let Some((_, archive)) = archive.as_mut() else {
            unreachable!("the archive was just set");
        };
        let shared = &self.workbooks[index];
        let sheet = &shared.sheets[position];
        let context = shared.context;
        let handle = shared
            .checks_at_end
            .then_some(Book::package_input as InputHandle<R>);
        let at_end = integrity_step(shared.encryption, handle, archive, position);
        let rows = if self.pipelined {
            archive.pipelined_sheet_rows(scope, sheet, context, self.sheet_threads)
        } else {
            archive.sheet_rows(sheet, context)
        };
        let rows = rows.map(|mut rows| {
            rows.select_columns(self.columns.cloned());
            rows.stop_after_row(self.last_row);
            if let Some(step) = at_end {
                rows.at_end(step);
            }
            rows
        });
        visit(state, index, sheet, rows, stop)
    }
}

/// Opens many workbooks at once: `open` is called once per source on up to
/// `threads` threads (0: one per core, at most one per source), and the
/// results come back in the sources' order. Opening reads each workbook's
/// sheet list, styles and shared strings; reading their sheets is then
/// [`Parallel::across`]'s work.
///
/// ```
/// # fn main() -> Result<(), sheetstream::Error> {
/// let paths = ["examples/data/sales.xlsx", "examples/data/sales.xlsx"];
/// let opened = sheetstream::open_workbooks(&paths, 2, |path| sheetstream::Workbook::open(path));
/// let workbooks = opened.into_iter().collect::<sheetstream::Result<Vec<_>>>()?;
/// let cells = sheetstream::Parallel::across(&workbooks).fold(
///     || 0usize,
///     |count, _sheet, row| *count += row.cells().len(),
///     |a, b| a + b,
/// )?;
/// assert_eq!(cells, 2 * 19);
/// # Ok(())
/// # }
/// ```
///
/// # Panics
///
/// A panic in `open` is resumed on the calling thread.
pub fn open_workbooks<S, R, F>(sources: &[S], threads: usize, open: F) -> Vec<Result<Workbook<R>>>
where
    S: Sync,
    R: Send,
    F: Fn(&S) -> Result<Workbook<R>> + Sync,
{
    let threads = if threads == 0 {
        thread::available_parallelism().map_or(1, usize::from)
    } else {
        threads
    };
    let threads = threads.min(sources.len()).max(1);
    if threads == 1 {
        return sources.iter().map(open).collect();
    }
    let next = AtomicUsize::new(0);
    let mut opened: Vec<(usize, Result<Workbook<R>>)> = thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut opened = Vec::new();
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(source) = sources.get(at) else {
                            break opened;
                        };
                        opened.push((at, open(source)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|payload| panic::resume_unwind(payload))
            })
            .collect()
    });
    opened.sort_by_key(|(at, _)| *at);
    opened.into_iter().map(|(_, result)| result).collect()
}

/// A sheet visitor from a row visitor: every row of the sheet to `visit`
/// until it returns false or another thread stops the run.
fn rows_of<S, V>(
    visit: V,
) -> impl Fn(&mut S, usize, &SheetInfo, Result<SheetRows<'_>>, &Stop<'_>) -> Result<bool> + Sync
where
    V: Fn(&mut S, &SheetInfo, Row<'_>) -> bool + Sync,
{
    move |state, _workbook, sheet, rows, stop| {
        let mut rows = rows?;
        while let Some(row) = rows.next_row()? {
            if stop.is_set() || !visit(state, sheet, row) {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The crossbeam-deque scheduler: the worker's own queue first, then a
/// batch from the global queue, then a task stolen from another worker.
fn next_task(
    local: &Worker<Task>,
    global: &Injector<Task>,
    stealers: &[Stealer<Task>],
) -> Option<Task> {
    local.pop().or_else(|| {
        std::iter::repeat_with(|| {
            global
                .steal_batch_and_pop(local)
                .or_else(|| stealers.iter().map(Stealer::steal).collect())
        })
        .find(|steal| !steal.is_retry())
        .and_then(|steal| steal.success())
    })
}
