//! One `.xls` sheet read by several threads, block by block.
//!
//! A BIFF8 sheet's substream holds an INDEX record after its BOF (the
//! stream offset of each DBCELL record) and a DBCELL record after each
//! block of up to 32 rows (the distance back to the block's first ROW
//! record). [`plan`] reads them and checks them before any work is handed
//! out: offsets inside the sheet, ascending, each DBCELL where INDEX says,
//! each block starting with a ROW record after the previous DBCELL;
//! anything else and the sheet is read serially. The sheet is then cut at
//! the blocks' starts into segments; workers ([`spawn`]) take segments in
//! order, at most [`IN_FLIGHT`] ahead of the reader, each reading its
//! segment with an [`XlsRows`] of its own (its window and arena reused
//! from one segment to the next) into a [`Block`] of owned rows (buffers
//! recycled, nothing allocated per cell once they have grown), and
//! [`BlockRows`] hands the rows out in file order.
//!
//! What one block's reader cannot know is carried by `BlockRows`: the last
//! row handed out, and the hidden rows (ROW records without cells) after
//! it that the next row's first record hands out first. Where a block does
//! not follow on from the one before (its rows not all after the previous
//! block's, its records not starting where the previous block's reader
//! stopped, its own reader stopping anywhere but at its end, an error in
//! it, or its copied text over [`MAX_BLOCK_TEXT`]), the rest of the
//! sheet is read serially from where the previous block stopped, with
//! that state: the rows are the serial reader's either way. Formula text
//! (shared formulas span blocks) is read serially.

use std::collections::VecDeque;
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::Scope;

use bumpalo::Bump;

use crate::cell::{Cell, Row, Value};
use crate::columns::ColumnSet;
use crate::contract::RowSource;
use crate::contract::SheetContext;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::metadata::SheetInfo;

use super::decrypt::StreamDecryptor;
use super::records::{BOF, ROW, Records, TextCodec};
use super::rows::XlsRows;
use crate::compound::Compound;

pub(crate) const INDEX: u16 = 0x020B;
pub(crate) const DBCELL: u16 = 0x00D7;

/// Blocks read ahead of the reader, at most, per sheet.
const IN_FLIGHT: usize = 16;

/// The fewest blocks worth reading in parallel.
const MIN_BLOCKS: usize = 4;

/// The fewest threads a sheet is read block by block on. A worker's
/// read costs about 1.5 times the serial reader's (each cell is copied
/// into its block, and again into the reader's arena): on 2 cores, 2
/// workers and the reader took 0.073 s against the serial 0.072 s for the
/// bench's 65,535 x 50 sheet, with 1.8 times the CPU (`perf stat -r 20`
/// of `count -t 2`, quiet box). From 4 threads the work spread over the
/// workers outweighs the copies (estimated from those figures; not
/// measured: the box has 2 cores).
pub(crate) const MIN_THREADS: usize = 4;

/// Text one block may copy (a block of shared strings repeated could
/// otherwise hold far more than its records): past it, the rest of the
/// sheet is read serially.
const MAX_BLOCK_TEXT: usize = 16 << 20;

/// Blocks read by parallel workers, all sheets (tests check that the
/// parallel path ran).
static BLOCKS_READ: AtomicU64 = AtomicU64::new(0);

/// How many blocks parallel workers have read in this process.
pub(crate) fn blocks_read() -> u64 {
    BLOCKS_READ.load(Ordering::Relaxed)
}

/// The segments of the sheet whose substream runs from `start` (its BOF)
/// to `end`: their boundaries, from the record after the BOF to `end`
/// (each block's first ROW record in between); None when the sheet has
/// no INDEX, fewer than [`MIN_BLOCKS`] blocks, or anything in INDEX and
/// the DBCELLs does not check. In an encrypted workbook, INDEX and each
/// DBCELL are read whole and decrypted with `decryptor`.
pub(crate) fn plan(
    source: &mut (impl Read + Seek),
    start: u64,
    end: u64,
    mut decryptor: Option<StreamDecryptor>,
) -> Option<Vec<u64>> {
    let mut header = [0u8; 4];
    read_at(source, start, &mut header)?;
    let (kind, len) = split_header(header);
    if kind != BOF {
        return None;
    }
    let first = start + 4 + u64::from(len);
    // INDEX comes right after the BOF (a few records may come first).
    let mut at = first;
    let index_len = loop {
        if at >= end || at - first > 1024 {
            return None;
        }
        read_at(source, at, &mut header)?;
        let (kind, len) = split_header(header);
        match kind {
            INDEX => break usize::from(len),
            ROW | DBCELL | BOF | super::records::EOF => return None,
            _ => at += 4 + u64::from(len),
        }
    };
    if index_len < 16 || (index_len - 16) % 4 != 0 {
        return None;
    }
    let mut index = vec![0u8; index_len];
    read_at(source, at + 4, &mut index)?;
    if let Some(decryptor) = decryptor.as_mut() {
        decryptor.decrypt_record(at, INDEX, &mut index);
    }
    let count = (index_len - 16) / 4;
    if count < MIN_BLOCKS {
        return None;
    }
    let mut bounds = Vec::with_capacity(count + 2);
    bounds.push(first);
    // The end of the previous DBCELL: a block starts after it.
    let mut floor = at + 4 + index_len as u64;
    for entry in index[16..].chunks_exact(4) {
        let dbcell = u64::from(u32::from_le_bytes([entry[0], entry[1], entry[2], entry[3]]));
        if dbcell < floor || dbcell + 8 > end {
            return None;
        }
        let mut record = [0u8; 8];
        read_at(source, dbcell, &mut record)?;
        let (kind, len) = split_header([record[0], record[1], record[2], record[3]]);
        if kind != DBCELL || len < 4 {
            return None;
        }
        if let Some(decryptor) = decryptor.as_mut() {
            // The whole body: the XOR scheme's key depends on its length.
            let mut body = vec![0u8; usize::from(len)];
            read_at(source, dbcell + 4, &mut body)?;
            decryptor.decrypt_record(dbcell, DBCELL, &mut body);
            record[4..].copy_from_slice(&body[..4]);
        }
        let back = u64::from(u32::from_le_bytes([
            record[4], record[5], record[6], record[7],
        ]));
        let block = dbcell.checked_sub(back)?;
        if block < floor || block >= dbcell {
            return None;
        }
        read_at(source, block, &mut header)?;
        if split_header(header).0 != ROW {
            return None;
        }
        bounds.push(block);
        floor = dbcell + 4 + u64::from(len);
        if floor > end {
            return None;
        }
    }
    bounds.push(end);
    Some(bounds)
}

fn split_header(header: [u8; 4]) -> (u16, u16) {
    (
        u16::from_le_bytes([header[0], header[1]]),
        u16::from_le_bytes([header[2], header[3]]),
    )
}

fn read_at(source: &mut (impl Read + Seek), offset: u64, buf: &mut [u8]) -> Option<()> {
    source.seek(SeekFrom::Start(offset)).ok()?;
    source.read_exact(buf).ok()
}

/// What the reader asks of the workers, once (at its first row).
#[derive(Clone)]
struct Config {
    columns: Option<ColumnSet>,
    window: (u32, u32),
}

/// What the reader and the workers share.
struct Shared {
    state: Mutex<Coordination>,
    wake: Condvar,
}

struct Coordination {
    /// None until the reader's first row; then the workers start.
    config: Option<Config>,
    /// The reader is gone or reads serially: workers stop.
    quit: bool,
    /// The next segment to hand out.
    next: usize,
    /// Segments the reader is done with.
    done: usize,
    /// Blocks the reader is done with, for reuse.
    pool: Vec<Block>,
}

/// One segment's rows, owned: cells and their text copied out of the
/// worker's arena.
#[derive(Default)]
struct Block {
    rows: Vec<BlockRow>,
    /// The rows' cells as they came, but text values (and error codes'
    /// text) left empty: copied into the reader's arena whole, then the
    /// text filled in from `texts`.
    cells: Vec<Cell<'static>>,
    /// Each text value: its cell (in `cells`), its text (in `text`), and
    /// whether it is an error code's.
    texts: Vec<TextAt>,
    text: String,
    /// Hidden rows after the block's last row, for the next row's first
    /// record to hand out.
    pending: Vec<u32>,
    /// The block's reader ran to the segment's end without an EOF record.
    ran_out: bool,
    /// Where its reader stopped.
    stopped_at: u64,
    /// Its reader ran out inside a nested substream: it did not stop at
    /// a block's start.
    cut_in_substream: bool,
    /// The lowest and highest row named by a ROW record or a row event.
    rows_seen: Option<(u32, u32)>,
    /// The copied text went past [`MAX_BLOCK_TEXT`]: the block's rows are
    /// not all here.
    overflow: bool,
    error: Option<Error>,
}

impl Block {
    fn clear(&mut self) {
        self.rows.clear();
        self.cells.clear();
        self.texts.clear();
        self.text.clear();
        self.pending.clear();
        self.ran_out = false;
        self.stopped_at = 0;
        self.cut_in_substream = false;
        self.rows_seen = None;
        self.overflow = false;
        self.error = None;
    }

    /// Copies one row in; false when the text is over the limit.
    fn push(&mut self, row: &Row<'_>) -> bool {
        let first = self.cells.len() as u32;
        let first_text = self.texts.len() as u32;
        for cell in row.cells() {
            let value = match cell.value {
                Value::Number(number) => Value::Number(number),
                Value::Bool(flag) => Value::Bool(flag),
                Value::DateTime(date) => Value::DateTime(date),
                Value::Text(text) => {
                    self.copy(text, false);
                    Value::Text("")
                }
                Value::Error(text) => {
                    self.copy(text, true);
                    Value::Error("")
                }
            };
            self.cells.push(Cell {
                row: cell.row,
                column: cell.column,
                style: cell.style,
                value,
                formula: None,
            });
        }
        self.rows.push(BlockRow {
            index: row.index,
            hidden: row.hidden,
            values_elsewhere: row.values_elsewhere,
            cells: (first, self.cells.len() as u32),
            texts: (first_text, self.texts.len() as u32),
        });
        self.text.len() <= MAX_BLOCK_TEXT
    }

    /// The text of the cell about to be pushed.
    fn copy(&mut self, text: &str, error: bool) {
        let start = self.text.len() as u32;
        self.text.push_str(text);
        self.texts.push(TextAt {
            cell: self.cells.len() as u32,
            start,
            end: self.text.len() as u32,
            error,
        });
    }
}

struct BlockRow {
    index: u32,
    hidden: bool,
    values_elsewhere: bool,
    cells: (u32, u32),
    texts: (u32, u32),
}

struct TextAt {
    cell: u32,
    start: u32,
    end: u32,
    error: bool,
}

/// What a worker reads a sheet with.
pub(crate) struct SheetJob<'env, R> {
    pub compound: Compound<R>,
    pub info: &'env SheetInfo,
    pub context: SheetContext<'env>,
    pub codec: TextCodec,
    /// An encrypted workbook's decryptor (each worker decrypts with a
    /// clone).
    pub decryptor: Option<StreamDecryptor>,
    pub limits: Limits,
    pub worksheet_bof: bool,
    /// Whether the sheet's span ends before the stream does.
    pub bounded: bool,
}

/// Starts `threads` workers on the segments between `bounds` and returns
/// the reader's end of them; `serial` is the sheet's serial reader (for
/// formulas, and for the rest of a sheet whose blocks do not follow on).
pub(crate) fn spawn<'scope, 'env, 'a, R>(
    scope: &'scope Scope<'scope, 'env>,
    job: SheetJob<'env, R>,
    bounds: Vec<u64>,
    threads: usize,
    serial: XlsRows<'a>,
) -> BlockRows<'a>
where
    R: Read + Seek + Clone + Send + 'env,
{
    let shared = Arc::new(Shared {
        state: Mutex::new(Coordination {
            config: None,
            quit: false,
            next: 0,
            done: 0,
            pool: Vec::new(),
        }),
        wake: Condvar::new(),
    });
    let bounds = Arc::new(bounds);
    let (sender, receiver) = sync_channel(IN_FLIGHT);
    for _ in 0..threads.max(1) {
        let shared = Arc::clone(&shared);
        let bounds = Arc::clone(&bounds);
        let sender = sender.clone();
        let job = SheetJob {
            compound: job.compound.clone(),
            decryptor: job.decryptor.clone(),
            ..job
        };
        scope.spawn(move || work(job, &shared, &bounds, &sender));
    }
    let segments = bounds.len() - 1;
    BlockRows {
        serial,
        serial_mode: false,
        shared,
        receiver,
        waiting: (0..IN_FLIGHT).map(|_| None).collect(),
        segments,
        bounds,
        bounded: job.bounded,
        next: 0,
        current: None,
        cursor: 0,
        flushing: false,
        carried: VecDeque::new(),
        frontier: None,
        high: None,
        resume_at: None,
        arena: Bump::new(),
        columns: None,
        window: (0, u32::MAX),
        formulas: false,
        started: false,
        finished: false,
    }
}

/// A worker: segments in order, each into a block sent to the reader.
fn work<R: Read + Seek>(
    mut job: SheetJob<'_, R>,
    shared: &Shared,
    bounds: &[u64],
    sender: &SyncSender<(usize, Block)>,
) {
    let config = {
        let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if state.quit {
                return;
            }
            if let Some(config) = &state.config {
                break config.clone();
            }
            state = shared.wake.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    };
    let segments = bounds.len() - 1;
    let source = match job.compound.open_at(bounds[0]) {
        Ok(source) => source,
        Err(_) => return,
    };
    let records =
        Records::new(Box::new(source), bounds[0], bounds[0]).decrypting(job.decryptor.clone());
    let mut rows = XlsRows::new(
        Some(records),
        job.worksheet_bof,
        false,
        job.context,
        job.codec,
        job.info.name(),
        job.info.part(),
        &job.limits,
    );
    rows.select_columns(config.columns);
    rows.set_column_window(config.window.0, config.window.1);
    loop {
        let (segment, mut block) = {
            let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if state.quit || state.next >= segments {
                    return;
                }
                if state.next < state.done + IN_FLIGHT {
                    let segment = state.next;
                    state.next += 1;
                    break (segment, state.pool.pop().unwrap_or_default());
                }
                state = shared.wake.wait(state).unwrap_or_else(|p| p.into_inner());
            }
        };
        let last = segment + 1 == segments;
        read_segment(
            &mut rows,
            bounds[segment],
            bounds[segment + 1],
            last && job.bounded,
            &mut block,
        );
        BLOCKS_READ.fetch_add(1, Ordering::Relaxed);
        if sender.send((segment, block)).is_err() {
            return;
        }
    }
}

fn read_segment(rows: &mut XlsRows<'_>, start: u64, end: u64, bounded: bool, block: &mut Block) {
    if let Err(err) = rows.restart(start, end, bounded) {
        block.error = Some(err);
        return;
    }
    loop {
        match rows.next_row() {
            Ok(Some(row)) => {
                if !block.push(&row) {
                    block.overflow = true;
                    return;
                }
            }
            Ok(None) => break,
            Err(err) => {
                block.error = Some(err);
                break;
            }
        }
    }
    let stop = rows.stopped(&mut block.pending);
    block.ran_out = stop.ran_out;
    block.cut_in_substream = stop.cut_in_substream;
    block.stopped_at = stop.at;
    block.rows_seen = stop.rows_seen;
}

/// The reader's end: blocks taken in order, their rows handed out.
pub(crate) struct BlockRows<'a> {
    serial: XlsRows<'a>,
    /// Rows come from `serial` (formulas asked for, or the blocks stopped
    /// following on).
    serial_mode: bool,
    shared: Arc<Shared>,
    receiver: Receiver<(usize, Block)>,
    /// Blocks received ahead of their turn, by segment modulo IN_FLIGHT.
    waiting: Vec<Option<Block>>,
    segments: usize,
    bounds: Arc<Vec<u64>>,
    bounded: bool,
    /// The next segment to take.
    next: usize,
    current: Option<Block>,
    cursor: usize,
    /// The carried hidden rows go out before the current block's first row.
    flushing: bool,
    carried: VecDeque<u32>,
    /// The highest row handed out.
    frontier: Option<u32>,
    /// The highest row the blocks so far named.
    high: Option<u32>,
    /// Where the serial reader takes over, once decided.
    resume_at: Option<u64>,
    arena: Bump,
    columns: Option<ColumnSet>,
    window: (u32, u32),
    formulas: bool,
    started: bool,
    finished: bool,
}

impl Drop for BlockRows<'_> {
    fn drop(&mut self) {
        self.stop_workers();
    }
}

impl<'a> BlockRows<'a> {
    pub(crate) fn select_columns(&mut self, columns: Option<ColumnSet>) {
        self.serial.select_columns(columns.clone());
        self.columns = columns;
    }

    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn set_column_window(&mut self, first: u32, last: u32) {
        self.serial.set_column_window(first, last);
        self.window = (first, last);
    }

    fn stop_workers(&self) {
        let mut state = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        state.quit = true;
        drop(state);
        self.shared.wake.notify_all();
    }

    fn start(&mut self) {
        self.started = true;
        if self.formulas {
            self.serial_mode = true;
            self.stop_workers();
            return;
        }
        let mut state = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        state.config = Some(Config {
            columns: self.columns.clone(),
            window: self.window,
        });
        drop(state);
        self.shared.wake.notify_all();
    }

    pub(crate) fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        if !self.started {
            self.start();
        }
        if self.serial_mode {
            return self.serial.next_row();
        }
        if self.finished {
            return Ok(None);
        }
        match self.advance() {
            Ok(Step::Row) => Ok(Some(self.build_row())),
            Ok(Step::Hidden(index)) => Ok(Some(Row {
                index,
                cells: &[],
                values_elsewhere: false,
                hidden: true,
            })),
            Ok(Step::End) => {
                self.finished = true;
                self.stop_workers();
                Ok(None)
            }
            Ok(Step::Serial) => {
                self.serial_mode = true;
                self.stop_workers();
                self.serial.next_row()
            }
            Err(err) => {
                self.finished = true;
                self.stop_workers();
                Err(err)
            }
        }
    }

    /// Moves to the next row: the current block's, a carried hidden row,
    /// or the next block's; or says the rows end or go on serially.
    fn advance(&mut self) -> Result<Step> {
        loop {
            if self.current.is_none() {
                if self.next == self.segments {
                    return Ok(Step::End);
                }
                let block = self.take(self.next)?;
                self.next += 1;
                let follows = !block.overflow
                    && match (self.high, block.rows_seen) {
                        (Some(high), Some((low, _))) => low > high,
                        _ => true,
                    }
                    && self
                        .resume_at
                        .is_none_or(|at| at == self.bounds[self.next - 1])
                    // Its reader stopped at its end, not inside or past
                    // the next block (a record straddling the boundary:
                    // its last row may have been cut short, which the
                    // serial reader would not hand out; or a nested
                    // substream cut, which the serial reader skips on).
                    && (!block.ran_out
                        || (block.stopped_at == self.bounds[self.next] && !block.cut_in_substream))
                    // A block that fails is read again serially: what the
                    // serial reader hands out before an error (hidden rows
                    // carried from the block before) is its own.
                    && block.error.is_none();
                if !follows {
                    let at = self.resume_at.unwrap_or(self.bounds[self.next - 1]);
                    let end = self.bounds[self.segments];
                    self.serial.resume(
                        at,
                        end,
                        self.bounded,
                        self.frontier,
                        self.carried.make_contiguous(),
                    )?;
                    return Ok(Step::Serial);
                }
                self.flushing = !block.rows.is_empty();
                self.cursor = 0;
                self.current = Some(block);
            }
            let Some(block) = self.current.as_mut() else {
                unreachable!("set above");
            };
            if self.flushing {
                let first = block.rows[0].index;
                while let Some(row) = self.carried.pop_front() {
                    if self.frontier.is_none_or(|last| row > last) && row < first {
                        self.frontier = Some(row);
                        return Ok(Step::Hidden(row));
                    }
                }
                self.flushing = false;
            }
            if self.cursor < block.rows.len() {
                let index = block.rows[self.cursor].index;
                self.frontier = self.frontier.max(Some(index));
                self.cursor += 1;
                return Ok(Step::Row);
            }
            if let Some(err) = block.error.take() {
                return Err(err);
            }
            if !block.ran_out {
                // EOF, or a dialog sheet: the sheet ends here.
                return Ok(Step::End);
            }
            if let Some((_, high)) = block.rows_seen {
                self.high = self.high.max(Some(high));
            }
            self.carried.extend(block.pending.iter().copied());
            self.resume_at = Some(block.stopped_at);
            let mut block = self.current.take().expect("a current block");
            block.clear();
            let mut state = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
            state.done += 1;
            state.pool.push(block);
            drop(state);
            self.shared.wake.notify_all();
        }
    }

    /// Segment `segment`'s block, waiting for it.
    fn take(&mut self, segment: usize) -> Result<Block> {
        loop {
            if let Some(block) = self.waiting[segment % IN_FLIGHT].take() {
                return Ok(block);
            }
            let (at, block) = self.receiver.recv().map_err(|_| {
                Error::new(ErrorKind::Xls(
                    "a worker reading the sheet's blocks stopped".into(),
                ))
            })?;
            self.waiting[at % IN_FLIGHT] = Some(block);
        }
    }

    /// The row the cursor just passed, its cells in the arena.
    fn build_row(&mut self) -> Row<'_> {
        self.arena.reset();
        let block = self.current.as_ref().expect("a current block");
        let row = &block.rows[self.cursor - 1];
        let text = block.text.as_str();
        let (first, last) = (row.cells.0 as usize, row.cells.1 as usize);
        let cells: &mut [Cell<'_>] = self.arena.alloc_slice_copy(&block.cells[first..last]);
        for at in &block.texts[row.texts.0 as usize..row.texts.1 as usize] {
            let value = &text[at.start as usize..at.end as usize];
            if let Some(cell) = cells.get_mut(at.cell as usize - first) {
                cell.value = if at.error {
                    Value::Error(value)
                } else {
                    Value::Text(value)
                };
            }
        }
        Row {
            index: row.index,
            cells,
            values_elsewhere: row.values_elsewhere,
            hidden: row.hidden,
        }
    }
}

enum Step {
    Row,
    Hidden(u32),
    End,
    Serial,
}

impl RowSource for BlockRows<'_> {
    fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        BlockRows::next_row(self)
    }

    fn select_columns(&mut self, columns: Option<ColumnSet>) {
        BlockRows::select_columns(self, columns);
    }

    fn set_column_window(&mut self, first: u32, last: u32) {
        BlockRows::set_column_window(self, first, last);
    }

    fn set_formulas(&mut self, formulas: bool) {
        self.formulas = formulas;
        self.serial.set_formulas(formulas);
    }
}
