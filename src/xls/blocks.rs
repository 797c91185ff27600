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
//! it that the next row's first record hands out first. What it cannot
//! know about its own end (whether its last row goes on in the next block,
//! takes a string from the next block's first records, or is dropped by
//! an error there) is decided before any of its rows is handed out: a
//! block's rows go out once the blocks after it follow on, up to the next
//! block with a row (its first value record ends the last row for the
//! serial reader; blocks without one, ROW and BLANK records only, are read
//! inside that row) or the sheet's end: at each boundary the reader before
//! stopped there, and the block after read without an error, naming only
//! rows after every row named before, taking no CONTINUE or STRING record
//! the last string or formula waits for, not ending as a dialog sheet.
//! Where they do not, the serial reader reads the rest of the sheet from
//! the start of the block not handed out, with that state:
//! the rows, the values and the error are the serial reader's on every
//! path, damaged files included. Formula text (shared formulas span
//! blocks) is read serially.
//!
//! Blocks are read only from `MIN_THREADS` (4) threads: on 2 cores two
//! workers and the reader measured no faster than the serial read
//! (benches/results/xls.md).

use std::collections::VecDeque;
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::Scope;

use bumpalo::Bump;

use crate::cell::{Cell, Row, Value};
use crate::columns::ColumnSet;
use crate::contract::{RowSource, SheetContext};
use crate::error::{Error, Result};
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
    /// Its reader ran out with a string or a formula's string result
    /// waiting for the records after the block.
    open_at_end: bool,
    /// A CONTINUE or STRING record before its first row with a value.
    prefix_attaches: bool,
    /// Its reader stopped at a dialog sheet's WSBOOL.
    dialog: bool,
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
        self.open_at_end = false;
        self.prefix_attaches = false;
        self.dialog = false;
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
        held: None,
        gap_pending: Vec::new(),
        gap_high: None,
        flushing: false,
        carried: VecDeque::new(),
        frontier: None,
        high: None,
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
    block.open_at_end = stop.open_at_end;
    block.prefix_attaches = stop.prefix_attaches;
    block.dialog = stop.dialog;
}

/// The reader's end: blocks taken in order, their rows handed out.
///
/// A block's rows go out only once the block after it is known to follow
/// on (see [`BlockRows::follows`]): until then its last row may go on in
/// the next block (a boundary inside a row), take a string from its
/// records (CONTINUE, a formula's STRING) or be dropped by an error
/// there, as the serial reader would decide. Where the next block does
/// not follow on, the serial reader reads on from the start of the block
/// not handed out, with the state the blocks before it left.
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
    /// The next segment to take from the workers.
    next: usize,
    /// The block whose rows are being handed out.
    current: Option<Block>,
    cursor: usize,
    /// The next block with rows (or the sheet's last), known to follow
    /// on from the current one: its rows go out once what comes after it
    /// is known to follow on in turn.
    held: Option<(usize, Block)>,
    /// The blocks without rows between the current block and the held
    /// one (already back in the pool): their hidden rows, carried after
    /// the current block's, and the highest row they named.
    gap_pending: Vec<u32>,
    gap_high: Option<u32>,
    /// The carried hidden rows go out before the current block's first row.
    flushing: bool,
    carried: VecDeque<u32>,
    /// The highest row handed out.
    frontier: Option<u32>,
    /// The highest row the blocks handed out named.
    high: Option<u32>,
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
            if let Some(block) = self.current.as_mut() {
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
                if !block.ran_out {
                    // EOF, or a dialog sheet: the sheet ends here.
                    return Ok(Step::End);
                }
                if let Some((_, high)) = block.rows_seen {
                    self.high = self.high.max(Some(high));
                }
                self.high = self.high.max(self.gap_high.take());
                self.carried.extend(block.pending.iter().copied());
                self.carried.extend(self.gap_pending.drain(..));
                let block = self.current.take().expect("a current block");
                self.release(block);
                continue;
            }
            // The next block to hand out: held (it follows on from the one
            // before), or the first.
            let (segment, block) = match self.held.take() {
                Some(held) => held,
                None => {
                    if self.next == self.segments {
                        return Ok(Step::End);
                    }
                    let segment = self.next;
                    let Some(block) = self.take(segment) else {
                        return self.serial_from(segment);
                    };
                    self.next += 1;
                    (segment, block)
                }
            };
            // A block that fails, or whose text went past the limit, is
            // read by the serial reader: what it hands out before an error
            // is its own.
            if block.error.is_some() || block.overflow {
                return self.serial_from(segment);
            }
            // Its rows go out when nothing after it can change them: the
            // sheet ends in it, or what follows on from it up to the next
            // row with a value (which ends its last row for the serial
            // reader) is known.
            if block.ran_out && segment + 1 < self.segments && !self.confirm(segment, &block) {
                return self.serial_from(segment);
            }
            self.flushing = !block.rows.is_empty();
            self.cursor = 0;
            self.current = Some(block);
        }
    }

    /// Whether the blocks after `block` (segment `segment`) follow on from
    /// it as the serial reader would read them, up to the first block with
    /// a row (whose first value record ends `block`'s last row) or the
    /// sheet's end; that block is then held, and the blocks without rows
    /// before it are folded into the gap and released. Each boundary on
    /// the way must be one the serial reader crosses as a fresh reader
    /// starts there: the block before it stopped at it (no record across
    /// it, no nested substream cut), and the block after it read without
    /// an error or a cut (an error there could come before `block`'s last
    /// row ends), names no row up to the highest named before (a row going
    /// on over the boundary, a ROW record changing the last row's hidden
    /// flag, rows going back: the serial reader joins or orders those),
    /// takes no CONTINUE or STRING record that `block`'s open string or
    /// formula would (while no value record comes between, it waits), and
    /// does not end as a dialog sheet (which only the records before any
    /// row decide).
    fn confirm(&mut self, segment: usize, block: &Block) -> bool {
        let mut high = match block.rows_seen {
            Some((_, high)) => self.high.max(Some(high)),
            None => self.high,
        };
        let waits = block.open_at_end;
        let (mut stopped_at, mut cut) = (block.stopped_at, block.cut_in_substream);
        let mut at = segment + 1;
        loop {
            if stopped_at != self.bounds[at] || cut {
                return false;
            }
            let Some(next) = self.take(at) else {
                return false;
            };
            self.next = at + 1;
            let follows = next.error.is_none()
                && !next.overflow
                && !next.dialog
                && match (high, next.rows_seen) {
                    (Some(high), Some((low, _))) => low > high,
                    _ => true,
                }
                && !(waits && next.prefix_attaches);
            if !follows {
                return false;
            }
            if !next.rows.is_empty() || !next.ran_out || at + 1 == self.segments {
                self.held = Some((at, next));
                return true;
            }
            // No row: the serial reader reads it inside `block`'s last row.
            if let Some((_, next_high)) = next.rows_seen {
                high = high.max(Some(next_high));
                self.gap_high = self.gap_high.max(Some(next_high));
            }
            self.gap_pending.extend(next.pending.iter().copied());
            (stopped_at, cut) = (next.stopped_at, next.cut_in_substream);
            self.release(next);
            at += 1;
        }
    }

    /// Hands the rest of the sheet to the serial reader, from the start
    /// of `segment`, none of whose rows were handed out, with what the
    /// blocks before it left: the last row handed out and the hidden rows
    /// still to hand out.
    fn serial_from(&mut self, segment: usize) -> Result<Step> {
        let at = self.bounds[segment];
        let end = self.bounds[self.segments];
        self.held = None;
        self.gap_pending.clear();
        self.gap_high = None;
        self.serial.resume(
            at,
            end,
            self.bounded,
            self.frontier,
            self.carried.make_contiguous(),
        )?;
        Ok(Step::Serial)
    }

    /// A block the reader is done with (its rows handed out, or it has
    /// none): back to the workers' pool, which lets them read one block
    /// further ahead.
    fn release(&mut self, mut block: Block) {
        block.clear();
        let mut state = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        state.done += 1;
        state.pool.push(block);
        drop(state);
        self.shared.wake.notify_all();
    }

    /// Segment `segment`'s block, waiting for it; None when the workers
    /// are gone without it (one could not read the file: the serial
    /// reader reads on, and meets whatever stopped it).
    fn take(&mut self, segment: usize) -> Option<Block> {
        loop {
            if let Some(block) = self.waiting[segment % IN_FLIGHT].take() {
                return Some(block);
            }
            let (at, block) = self.receiver.recv().ok()?;
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
