//! Parallel reading: whole sheets on a work-stealing pool, and one sheet
//! pipelined over two threads (inflate on one, scan on the other).
//!
//! Read this first: every worker reads and inflates its own sheet through
//! its own clone of the archive (the central directory was parsed once and
//! is shared), so decompression is parallel too. The shared strings and
//! styles were built at open and are shared read-only. Each worker owns its
//! row reader (window, arena, scratch), so nothing per cell touches a lock
//! or the global allocator. The only shared state while reading is a stop
//! flag, checked once per row, and the slot for the first failure.

use std::any::Any;
use std::io::{Read, Seek};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, Scope};

use crossbeam_deque::{Injector, Stealer, Worker};

use crate::cell::Row;
use crate::columns::ColumnSet;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::package::archive::Archive;
use crate::package::{SheetInfo, SheetKind};
use crate::pipe::Pipe;
use crate::rows::{SheetContext, SheetRows};
use crate::workbook::{RowFlow, SheetSelector, Workbook};

/// A parallel read of a workbook, set up by [`Workbook::parallel`].
///
/// Rows of one sheet arrive in file order, on one thread; rows of different
/// sheets interleave in no particular order. The first error or panic in
/// any thread stops the others at their next row and reaches the caller (a
/// panic is resumed on the caller's thread); a closure asking to stop stops
/// every thread.
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
    workbook: &'w Workbook<R>,
    threads: usize,
    sheets: Option<Vec<usize>>,
    columns: Option<ColumnSet>,
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
        Parallel {
            workbook: self,
            threads: 0,
            sheets: None,
            columns: None,
        }
    }
}

impl<'w, R: Read + Seek + Clone + Send> Parallel<'w, R> {
    /// The number of threads: 0 (the default) for one per core, at most
    /// one per sheet. With 1, everything runs on the calling thread.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Reads only these sheets (by position or name) instead of every
    /// worksheet.
    ///
    /// # Errors
    ///
    /// A sheet that does not exist.
    pub fn sheets<S: SheetSelector>(mut self, sheets: impl IntoIterator<Item = S>) -> Result<Self> {
        let positions = sheets
            .into_iter()
            .map(|sheet| sheet.position(&self.workbook.sheets))
            .collect::<Result<Vec<usize>>>()?;
        self.sheets = Some(positions);
        Ok(self)
    }

    /// Resolves and hands out only the cells of these columns, in every
    /// sheet read: the pushdown of
    /// [`SheetRows::select_columns`](crate::SheetRows::select_columns).
    pub fn select_columns(mut self, columns: ColumnSet) -> Self {
        self.columns = Some(columns);
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
    /// The first error any thread met.
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
    /// `Ok(false)` to stop every thread, or an error, which stops every
    /// thread and is returned. The closure drives its rows itself, so a
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
    /// The first error a closure returned.
    ///
    /// # Panics
    ///
    /// As [`Parallel::for_each_row`].
    pub fn for_each_sheet<M, F>(self, make: M) -> Result<()>
    where
        M: Fn() -> F + Sync,
        F: FnMut(&SheetInfo, Result<SheetRows<'_>>) -> Result<bool>,
    {
        self.run(make, |f: &mut F, sheet, rows, _stop| f(sheet, rows), drop)
    }

    /// Folds every row of every selected sheet into one value: each thread
    /// folds the rows it reads into its own accumulator made by `init`, and
    /// the accumulators are combined with `reduce` at the end.
    ///
    /// # Errors
    ///
    /// The first error any thread met.
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

    /// The selected sheets, biggest compressed part first so that the
    /// longest work starts first.
    fn positions(&self) -> Vec<usize> {
        let workbook = self.workbook;
        let mut positions: Vec<usize> = match &self.sheets {
            Some(positions) => positions.clone(),
            None => (0..workbook.sheets.len())
                .filter(|&position| workbook.sheets[position].kind() == SheetKind::Worksheet)
                .collect(),
        };
        positions.sort_by_key(|&position| {
            std::cmp::Reverse(
                workbook
                    .archive
                    .compressed_size(workbook.sheets[position].part()),
            )
        });
        positions
    }

    /// Runs the workers: each makes its state with `make`, visits sheets
    /// with `visit` (false stops everyone) and hands its final state to
    /// `finish`, unless the run failed.
    fn run<S, M, V, D>(&self, make: M, visit: V, finish: D) -> Result<()>
    where
        M: Fn() -> S + Sync,
        V: Fn(&mut S, &SheetInfo, Result<SheetRows<'_>>, &AtomicBool) -> Result<bool> + Sync,
        D: Fn(S) + Sync,
    {
        let positions = self.positions();
        let cores = thread::available_parallelism().map_or(1, usize::from);
        let threads = if self.threads == 0 {
            cores
        } else {
            self.threads
        };
        let workers = threads.min(positions.len()).max(1);
        // With fewer sheets than threads, each sheet gets an inflate thread.
        let pipelined = threads > positions.len();
        let workbook = self.workbook;
        let context = SheetContext {
            shared_strings: workbook.shared_strings.as_ref(),
            styles: &workbook.styles,
            date_system: workbook.date_system,
        };
        let job = Job {
            sheets: &workbook.sheets,
            context,
            limits: workbook.limits,
            columns: self.columns.as_ref(),
            pipelined,
            stop: AtomicBool::new(false),
            failure: Mutex::new(None),
        };

        if workers == 1 {
            // Serial, on the calling thread (with an inflate thread when pipelined).
            let mut archive = workbook.archive.clone();
            let mut state = make();
            thread::scope(|scope| {
                for &position in &positions {
                    match job.read_sheet(scope, &mut archive, position, &mut state, &visit) {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(err) => return Err(err),
                    }
                }
                Ok(())
            })?;
            finish(state);
            return Ok(());
        }

        let injector = Injector::new();
        for &position in &positions {
            injector.push(position);
        }
        let queues: Vec<Worker<usize>> = (0..workers).map(|_| Worker::new_fifo()).collect();
        let stealers: Vec<Stealer<usize>> = queues.iter().map(Worker::stealer).collect();
        thread::scope(|scope| {
            for queue in queues {
                let mut archive = workbook.archive.clone();
                let (job, injector, stealers, make, visit, finish) =
                    (&job, &injector, &stealers, &make, &visit, &finish);
                scope.spawn(move || {
                    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                        let mut state = make();
                        while !job.stop.load(Ordering::Relaxed) {
                            let Some(position) = next_task(&queue, injector, stealers) else {
                                break;
                            };
                            if !job.read_sheet(scope, &mut archive, position, &mut state, visit)? {
                                job.stop.store(true, Ordering::Relaxed);
                            }
                        }
                        Ok(state)
                    }));
                    match outcome {
                        Ok(Ok(state)) => finish(state),
                        Ok(Err(err)) => job.fail(Failure::Error(err)),
                        Err(payload) => job.fail(Failure::Panic(payload)),
                    }
                });
            }
        });
        match job
            .failure
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner())
        {
            Some(Failure::Error(err)) => Err(err),
            Some(Failure::Panic(payload)) => panic::resume_unwind(payload),
            None => Ok(()),
        }
    }
}

/// What every worker of one run shares.
struct Job<'w> {
    sheets: &'w [SheetInfo],
    context: SheetContext<'w>,
    limits: Limits,
    columns: Option<&'w ColumnSet>,
    pipelined: bool,
    stop: AtomicBool,
    failure: Mutex<Option<Failure>>,
}

impl Job<'_> {
    /// Records the first failure and tells every worker to stop.
    fn fail(&self, failure: Failure) {
        self.stop.store(true, Ordering::Relaxed);
        let mut slot = self
            .failure
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        slot.get_or_insert(failure);
    }

    /// Opens one sheet and hands its rows to `visit` with `state`;
    /// returns false when `visit` asked to stop.
    fn read_sheet<'scope, 'env, R, S, V>(
        &'env self,
        scope: &'scope Scope<'scope, 'env>,
        archive: &mut Archive<R>,
        position: usize,
        state: &mut S,
        visit: &V,
    ) -> Result<bool>
    where
        R: Read + Seek + Clone + Send + 'env,
        V: Fn(&mut S, &SheetInfo, Result<SheetRows<'_>>, &AtomicBool) -> Result<bool>,
    {
        let sheet = &self.sheets[position];
        let rows = if self.pipelined {
            let pipe = Pipe::spawn(scope, archive.clone(), sheet, self.limits);
            Ok(SheetRows::from_pipe(
                pipe,
                self.context,
                sheet.name(),
                sheet.part(),
                &self.limits,
            ))
        } else {
            archive
                .open_part(sheet.part(), self.limits.max_part_bytes, &self.limits)
                .map_err(|err| err.with_sheet(sheet.name()))
                .map(|source| {
                    SheetRows::new(
                        source,
                        self.context,
                        sheet.name(),
                        sheet.part(),
                        &self.limits,
                    )
                })
        };
        let rows = rows.map(|mut rows| {
            rows.select_columns(self.columns.cloned());
            rows
        });
        visit(state, sheet, rows, &self.stop)
    }
}

/// A sheet visitor from a row visitor: every row of the sheet to `visit`
/// until it returns false or another thread stops the run.
fn rows_of<S, V>(
    visit: V,
) -> impl Fn(&mut S, &SheetInfo, Result<SheetRows<'_>>, &AtomicBool) -> Result<bool> + Sync
where
    V: Fn(&mut S, &SheetInfo, Row<'_>) -> bool + Sync,
{
    move |state, sheet, rows, stop| {
        let mut rows = rows?;
        while let Some(row) = rows.next_row()? {
            if stop.load(Ordering::Relaxed) || !visit(state, sheet, row) {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The crossbeam-deque scheduler: the worker's own queue first, then a
/// batch from the global queue, then a task stolen from another worker.
fn next_task(
    local: &Worker<usize>,
    global: &Injector<usize>,
    stealers: &[Stealer<usize>],
) -> Option<usize> {
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
