//! The shared strings table, parsed lazily: only as far as the strings
//! asked for. Writers put the strings in order of first use, so the first
//! rows of a sheet need only the first items, and a read that stops early
//! (a head, a range) parses only a prefix of the part; a read to a sheet's
//! end checks the rest of it as a whole read would (the same errors), but
//! keeps only the blocks its rows asked for ([`SharedStrings::check_to_end`]:
//! a later lookup past them reads the part again).
//!
//! Storage is append-only blocks of items, block `k` holding `1024 << k`
//! items (so a handful of blocks hold any table, and a lookup finds its
//! block with one shift and a leading-zero count). A block is one string
//! plus offsets, set once in a [`OnceLock`] when its last item is read (or
//! the part ends): a lookup in a filled block is one atomic load and two
//! offsets, with no lock. A lookup past the filled blocks takes the lock
//! around the resumable parser ([`ItemSource`]: the part's inflate reader
//! and the format's item parser) and parses items up to the end of the
//! block it needs. References into a block live as long as the table.
//!
//! Each format reads its own part through an [`ItemSource`] into a
//! [`SharedStringsBuilder`], which keeps the limits. A parse error is kept
//! and handed to every later lookup that needs the part past it, named by
//! part and byte offset.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;

/// log2 of the items in the first block.
const SHIFT: u32 = 10;
/// Enough blocks for any index a `usize` holds (a power of two: a block
/// index is masked, not bounds-checked).
const BLOCKS: usize = usize::BITS as usize;

/// The block holding item `index`, and the item's position in it.
#[inline(always)]
fn locate(index: usize) -> (usize, usize) {
    let group = (index >> SHIFT) + 1;
    let block = (usize::BITS - 1 - group.leading_zeros()) as usize;
    (block, index - (((1usize << block) - 1) << SHIFT))
}

/// How many items block `block` holds when full.
const fn block_capacity(block: usize) -> usize {
    1 << (block as u32 + SHIFT)
}

/// The items of one block: their text, and where each starts (`ends[0]`
/// is 0, item `i` is `text[ends[i]..ends[i + 1]]`).
#[derive(Debug)]
struct Block {
    text: String,
    ends: Box<[usize]>,
}

impl Block {
    #[inline(always)]
    fn get(&self, position: usize) -> Option<&str> {
        let end = *self.ends.get(position + 1)?;
        let start = self.ends[position];
        self.text.get(start..end)
    }

    fn len(&self) -> usize {
        self.ends.len() - 1
    }

    fn empty() -> Block {
        Block {
            text: String::new(),
            ends: Box::new([0]),
        }
    }

    /// Keeps the first `items` items.
    fn truncate(&mut self, items: usize) {
        if items < self.len() {
            self.text.truncate(self.ends[items]);
            self.ends = self.ends[..=items].into();
        }
    }
}

/// A format's shared strings part as a resumable parser.
pub(crate) trait ItemSource: Send {
    /// Reads items into the builder (each one's text appended, then
    /// ended) until it holds a full block
    /// ([`SharedStringsBuilder::has_full_block`]): `Ok(true)`; or until the
    /// part ends (its end checked): `Ok(false)`.
    fn next_items(&mut self, strings: &mut SharedStringsBuilder) -> Result<bool>;
}

/// Opens a lazy table's part again, from its start, as a new parser: for
/// the blocks a check to the part's end read and did not keep
/// ([`SharedStrings::check_to_end`]).
pub(crate) type ReopenItems = Box<dyn Fn() -> Result<Box<dyn ItemSource>> + Send + Sync>;

/// Where the parse stands.
enum State {
    /// Items remain to be read.
    Pending(Box<Pending>),
    /// The part was read to its end, whole and within the limits, by a
    /// check that kept no block past those set: a lookup past them reads
    /// the part again.
    Checked(Origin),
    /// The part was read to its end: every block is set.
    Done,
    /// The part is damaged past the blocks that are set.
    Failed(Error),
}

struct Pending {
    source: Box<dyn ItemSource>,
    builder: SharedStringsBuilder,
    origin: Origin,
    /// Blocks a parser reading the part again reads past (set already).
    skip: usize,
}

/// Where a lazy table's items come from.
struct Origin {
    /// The part's name, for errors.
    part: String,
    limits: Limits,
    /// How to read the part again; None where it cannot be (the check to
    /// the end then keeps every block, as a whole read does).
    reopen: Option<ReopenItems>,
    /// Whether the part was read to its end once (by a check): a second
    /// check has nothing to do.
    whole: bool,
}

impl Origin {
    /// A parser of the part from its start again, reading past the `set`
    /// blocks already set.
    fn reread(self, set: usize) -> Result<Box<Pending>> {
        let source = match &self.reopen {
            Some(reopen) => reopen(),
            None => Err(Error::new(ErrorKind::Package(
                "the shared strings part cannot be read again".into(),
            ))),
        }
        .map_err(|err| err.with_part(&self.part))?;
        Ok(Box::new(Pending {
            source,
            builder: SharedStringsBuilder::handing_out(&self.limits),
            origin: self,
            skip: set,
        }))
    }
}

/// All shared strings of a workbook, parsed as far as asked for (see the
/// module docs). [`Workbook::shared_strings`](crate::Workbook::shared_strings)
/// hands out the table parsed to its end.
pub struct SharedStrings {
    blocks: [OnceLock<Block>; BLOCKS],
    /// The number of strings, once the part was read to its end.
    count: OnceLock<usize>,
    /// Items in the blocks set so far.
    parsed: AtomicUsize,
    /// When the part is damaged: the items read before the damage in the
    /// block it is in, and where they start (a row that needs none past
    /// the damage reads on).
    before_damage: OnceLock<(usize, Block)>,
    state: Mutex<State>,
}

impl fmt::Debug for SharedStrings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedStrings")
            .field("parsed", &self.parsed())
            .field("count", &self.count.get())
            .finish_non_exhaustive()
    }
}

impl Default for SharedStrings {
    fn default() -> SharedStrings {
        SharedStrings::empty()
    }
}

impl SharedStrings {
    pub(crate) const fn empty() -> SharedStrings {
        SharedStrings {
            blocks: [const { OnceLock::new() }; BLOCKS],
            count: OnceLock::new(),
            parsed: AtomicUsize::new(0),
            before_damage: OnceLock::new(),
            state: Mutex::new(State::Done),
        }
    }

    /// A table read from `source` only as far as lookups need it; errors
    /// name `part`. With `reopen`, a check to the part's end keeps no block
    /// it alone read ([`SharedStrings::check_to_end`]).
    pub(crate) fn lazy(
        source: Box<dyn ItemSource>,
        reopen: Option<ReopenItems>,
        limits: &Limits,
        part: &str,
    ) -> SharedStrings {
        SharedStrings {
            state: Mutex::new(State::Pending(Box::new(Pending {
                source,
                builder: SharedStringsBuilder::handing_out(limits),
                origin: Origin {
                    part: part.to_owned(),
                    limits: *limits,
                    reopen,
                    whole: false,
                },
                skip: 0,
            }))),
            ..SharedStrings::empty()
        }
    }

    /// The number of strings (the whole table is read for it).
    pub fn len(&self) -> usize {
        // An error leaves the count unknown: the strings read before it.
        match self.load() {
            Ok(()) => self.count.get().copied().unwrap_or(0),
            Err(_) => self.parsed(),
        }
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The string at `index`, if there is one (read as far as needed; a
    /// damaged part reads as no string: the table
    /// [`Workbook::shared_strings`](crate::Workbook::shared_strings) hands
    /// out was read whole, its errors reported there).
    pub fn get(&self, index: usize) -> Option<&str> {
        self.lookup(index).ok().flatten()
    }

    /// Total bytes of text (of the strings read so far).
    pub fn text_bytes(&self) -> usize {
        self.blocks
            .iter()
            .map_while(OnceLock::get)
            .map(|block| block.text.len())
            .sum()
    }

    /// How many strings have been parsed so far: a read that stops early
    /// parses only the strings its rows need (and the rest of their
    /// blocks).
    #[doc(hidden)]
    pub fn parsed(&self) -> usize {
        self.parsed.load(Ordering::Acquire)
    }

    /// Reads the whole table.
    pub(crate) fn load(&self) -> Result<()> {
        if self.count.get().is_some() {
            return Ok(());
        }
        self.fill(BLOCKS)
    }

    /// The string at `index` if its block was read: the row readers' fast
    /// path, [`SharedStrings::lookup`] otherwise. Not inlined: inlined into
    /// `XlsxRows::next_row`, its registers cost the cell loop spills
    /// (6.37 against 6.31 billion instructions for `count` of the 1M x 10
    /// sheet, callgrind).
    #[inline(never)]
    pub(crate) fn get_read(&self, index: u64) -> Option<&str> {
        let index = usize::try_from(index).ok()?;
        let (block, position) = locate(index);
        self.blocks[block % BLOCKS].get()?.get(position)
    }

    /// The string at `index`: `Ok(None)` past the end, an error when the
    /// part is damaged before it.
    pub(crate) fn lookup(&self, index: usize) -> Result<Option<&str>> {
        let (block, position) = locate(index);
        match self.blocks[block % BLOCKS].get() {
            // A set block is full, or the last: a position past its items is
            // past the table's end.
            Some(block) => Ok(block.get(position)),
            None => self.lookup_unread(index),
        }
    }

    /// [`SharedStrings::lookup`] of a string in a block not yet set.
    fn lookup_unread(&self, index: usize) -> Result<Option<&str>> {
        let (block, position) = locate(index);
        if let Err(err) = self.fill(block) {
            return match self.before_damage.get() {
                Some((first, items)) if index >= *first && index - first < items.len() => {
                    Ok(items.get(index - first))
                }
                _ => Err(err),
            };
        }
        Ok(self
            .blocks
            .get(block)
            .and_then(OnceLock::get)
            .and_then(|block| block.get(position)))
    }

    /// Checks the part to its end as reading the whole table would (its
    /// well-formedness and the limits: the same error, or none), for a read
    /// that reaches a sheet's end, without keeping what only the check
    /// read: the blocks past those already set are dropped as they fill, and
    /// a lookup that needs one later reads the part again. A read of
    /// numbers alone in a sheet of a million shared strings then holds none
    /// of them (it held them all, 19.5 MB, issue 48). Where the part cannot
    /// be read again, the whole table is read ([`SharedStrings::load`]).
    pub(crate) fn check_to_end(&self) -> Result<()> {
        if self.count.get().is_some() {
            return Ok(());
        }
        let mut state = self.lock_state()?;
        let pending = match &mut *state {
            State::Done | State::Checked(_) => return Ok(()),
            State::Failed(err) => return Err(err.duplicate()),
            State::Pending(pending) if pending.origin.whole => return Ok(()),
            // (A part read again was checked whole: `whole` above.)
            State::Pending(pending) if pending.origin.reopen.is_none() => {
                drop(state);
                return self.load();
            }
            State::Pending(pending) => pending,
        };
        pending.builder.check_only();
        loop {
            match pending.next_block() {
                // Not kept: read again if a lookup needs it.
                Ok(Some(_block)) => {}
                Ok(None) => {
                    let State::Pending(pending) = std::mem::replace(&mut *state, State::Done)
                    else {
                        unreachable!("the state checked above");
                    };
                    let mut origin = pending.origin;
                    origin.whole = true;
                    *state = State::Checked(origin);
                    return Ok(());
                }
                Err(err) => {
                    let err = err.with_part(&pending.origin.part);
                    let items = pending.builder.count();
                    let State::Pending(pending) =
                        std::mem::replace(&mut *state, State::Failed(err.duplicate()))
                    else {
                        unreachable!("the state checked above");
                    };
                    self.replay_to_damage(pending.origin, items);
                    return Err(err);
                }
            }
        }
    }

    /// After a check found damage past item `items`: the table as a whole
    /// read leaves it, from the part read again: every block before the
    /// damaged one set, and the damaged one's items before the damage kept
    /// (all of them read without damage before).
    fn replay_to_damage(&self, origin: Origin, items: usize) {
        let (damaged, _) = locate(items);
        let Ok(mut pending) = origin.reread(locate(self.parsed()).0) else {
            return;
        };
        while pending.skip > 0 || locate(self.parsed()).0 < damaged {
            match pending.next_block() {
                Ok(Some(_)) if pending.skip > 0 => pending.skip -= 1,
                Ok(Some(block)) => {
                    if self.install(block).is_err() {
                        return;
                    }
                }
                Ok(None) | Err(_) => return,
            }
        }
        let first = self.parsed();
        let mut partial = match pending.next_block() {
            Ok(Some(block)) => block,
            Ok(None) => pending.builder.seal_rest().unwrap_or_else(Block::empty),
            // The damage again (or, for a limit the workbook's other parts
            // took part in, none: the items are cut where it was found).
            Err(_) => pending.builder.take_block(),
        };
        partial.truncate(items.saturating_sub(first));
        let _ = self.before_damage.set((first, partial));
    }

    fn lock_state(&self) -> Result<std::sync::MutexGuard<'_, State>> {
        self.state.lock().map_err(|_| {
            Error::new(ErrorKind::Package(
                "the shared strings table's reader failed in another thread".into(),
            ))
        })
    }

    /// Reads items until block `wanted` is set or the part ends.
    fn fill(&self, wanted: usize) -> Result<()> {
        let mut state = self.lock_state()?;
        loop {
            if self
                .blocks
                .get(wanted)
                .is_some_and(|block| block.get().is_some())
            {
                return Ok(());
            }
            let pending = match &mut *state {
                State::Done => return Ok(()),
                State::Failed(err) => return Err(err.duplicate()),
                State::Checked(_) => {
                    // A lookup past the blocks a check did not keep: the
                    // part read again, past the blocks set.
                    let State::Checked(origin) = std::mem::replace(&mut *state, State::Done) else {
                        unreachable!("matched above");
                    };
                    match origin.reread(locate(self.parsed()).0) {
                        Ok(pending) => *state = State::Pending(pending),
                        Err(err) => {
                            *state = State::Failed(err.duplicate());
                            return Err(err);
                        }
                    }
                    continue;
                }
                State::Pending(pending) => pending,
            };
            match pending.next_block() {
                Ok(Some(_)) if pending.skip > 0 => pending.skip -= 1,
                Ok(Some(block)) => self.install(block)?,
                Ok(None) => {
                    let count = pending.builder.count();
                    if let Some(block) = pending.builder.seal_rest() {
                        self.install(block)?;
                    }
                    let _ = self.count.set(count);
                    *state = State::Done;
                }
                Err(err) => {
                    let err = err.with_part(&pending.origin.part);
                    // (A part read again was read whole without damage: an
                    // error there leaves the blocks as they are.)
                    if pending.skip == 0 {
                        let _ = self
                            .before_damage
                            .set((self.parsed(), pending.builder.take_block()));
                    }
                    *state = State::Failed(err.duplicate());
                    return Err(err);
                }
            }
        }
    }

    /// Sets the next block.
    fn install(&self, block: Block) -> Result<()> {
        let parsed = self.parsed();
        let (index, _) = locate(parsed);
        let items = block.len();
        self.blocks
            .get(index)
            .and_then(|slot| slot.set(block).ok())
            .ok_or_else(|| {
                Error::new(ErrorKind::Package(
                    "a shared strings block set twice".into(),
                ))
            })?;
        self.parsed.store(parsed + items, Ordering::Release);
        Ok(())
    }
}

impl Pending {
    /// Reads items until a block is full (`Some`) or the part ends
    /// (`None`).
    fn next_block(&mut self) -> Result<Option<Block>> {
        if let Some(block) = self.builder.full.take() {
            return Ok(Some(block));
        }
        if !self.source.next_items(&mut self.builder)? {
            return Ok(None);
        }
        Ok(self.builder.full.take())
    }
}

/// Gathers a table's strings item by item within the limits, a block at a
/// time: the text as bytes (each item valid UTF-8 before it is pushed, so
/// the one check per block cannot fail), growing by doubling only up to
/// the limit.
pub(crate) struct SharedStringsBuilder {
    text: Vec<u8>,
    ends: Vec<usize>,
    /// While `ends` is shorter, an item ends with a push alone: no growth,
    /// no limit reached, the block not full.
    ends_check: usize,
    /// The block being gathered.
    block: usize,
    /// Items in the blocks already handed out.
    sealed_items: usize,
    /// Text bytes left to the limit after the blocks already handed out.
    text_room: u64,
    /// A block just filled, to be taken.
    full: Option<Block>,
    /// Blocks filled, kept for [`SharedStringsBuilder::finish`].
    done: Vec<Block>,
    /// Whether filled blocks are kept (in `done`) or handed out (`full`).
    keep: bool,
    /// Whether the blocks are a check's, not kept: each of the first
    /// block's size, whatever the block index.
    checking: bool,
    max_text: u64,
    max_count: u64,
}

impl SharedStringsBuilder {
    /// A builder whose blocks [`SharedStringsBuilder::finish`] gathers
    /// into a table (a part read whole).
    pub(crate) fn new(limits: &Limits) -> SharedStringsBuilder {
        SharedStringsBuilder {
            text: Vec::new(),
            ends: vec![0],
            ends_check: 0,
            block: 0,
            sealed_items: 0,
            text_room: limits.max_shared_string_bytes,
            full: None,
            done: Vec::new(),
            keep: true,
            checking: false,
            max_text: limits.max_shared_string_bytes,
            max_count: limits.max_shared_strings,
        }
    }

    /// A builder that hands out each block as it fills (a lazy table's).
    fn handing_out(limits: &Limits) -> SharedStringsBuilder {
        SharedStringsBuilder {
            keep: false,
            ..SharedStringsBuilder::new(limits)
        }
    }

    /// Items the block being gathered holds when full: `1024 << block`, or
    /// 1024 for a check's blocks ([`SharedStringsBuilder::check_only`]).
    fn block_items(&self) -> usize {
        if self.checking {
            block_capacity(0)
        } else {
            block_capacity(self.block)
        }
    }

    /// From here on, blocks of 1024 items, for a check that keeps none:
    /// the limits hold as before (they count items and bytes, not blocks).
    fn check_only(&mut self) {
        self.checking = true;
        // The block being gathered is not kept either (its items and bytes
        // counted as sealed), so that no block of the old size grows on.
        if self.ends.len() > 1 {
            drop(self.take_block());
        }
        self.ends_check = 0;
    }

    /// Items ended so far.
    fn count(&self) -> usize {
        self.sealed_items + self.ends.len() - 1
    }

    /// Appends to the item being gathered (valid UTF-8 only).
    #[inline]
    pub(crate) fn append(&mut self, item: &[u8]) -> Result<()> {
        append_within(&mut self.text, item, self.text_room, self.max_text)
    }

    /// Ends the item being gathered.
    #[inline(always)]
    pub(crate) fn end_item(&mut self) -> Result<()> {
        if self.ends.len() < self.ends_check {
            self.ends.push(self.text.len());
            return Ok(());
        }
        self.end_item_checked()
    }

    /// Whether a block is full, to be handed out before more items are
    /// read.
    #[inline(always)]
    pub(crate) fn has_full_block(&self) -> bool {
        self.full.is_some()
    }

    /// [`SharedStringsBuilder::end_item`] with its checks: the count limit
    /// first, then the offsets grown (doubling up to the block's size),
    /// the block handed out when full.
    #[cold]
    #[inline(never)]
    fn end_item_checked(&mut self) -> Result<()> {
        if self.count() as u64 >= self.max_count {
            return Err(Error::limit("shared string count", self.max_count));
        }
        let block_items = self.block_items();
        let ends = &mut self.ends;
        if ends.len() == ends.capacity() {
            let capacity = block_items as u64 + 1;
            let left = self.max_count - self.sealed_items as u64 + 1;
            let ceiling = usize::try_from(capacity.min(left)).unwrap_or(usize::MAX);
            let wanted = ends.len().saturating_mul(2).clamp(16, ceiling.max(16));
            ends.try_reserve_exact(wanted - ends.len())
                .map_err(|_| Error::limit("shared string count", self.max_count))?;
        }
        ends.push(self.text.len());
        if ends.len() > block_items {
            self.seal()?;
        }
        let left = self.max_count.saturating_sub(self.sealed_items as u64) + 1;
        self.ends_check = self
            .ends
            .capacity()
            .min(self.block_items())
            .min(usize::try_from(left).unwrap_or(usize::MAX));
        Ok(())
    }

    /// Hands out the full block being gathered.
    #[cold]
    #[inline(never)]
    fn seal(&mut self) -> Result<()> {
        if self.block + 1 >= BLOCKS {
            return Err(Error::limit("shared string count", self.max_count));
        }
        let block = self.take_block();
        if !self.checking {
            self.block += 1;
        }
        if self.keep {
            self.done.push(block);
        } else {
            self.full = Some(block);
        }
        Ok(())
    }

    /// The block being gathered, as it stands.
    fn take_block(&mut self) -> Block {
        let mut text = std::mem::take(&mut self.text);
        text.shrink_to_fit();
        self.text_room = self.text_room.saturating_sub(text.len() as u64);
        let ends = std::mem::replace(&mut self.ends, vec![0]).into_boxed_slice();
        self.sealed_items += ends.len() - 1;
        self.ends_check = 0;
        // Every item was checked (or is ASCII) before it was appended.
        let text = String::from_utf8(text)
            .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned());
        Block { text, ends }
    }

    /// The last block, partly filled, once the part ended (none when it
    /// holds no item).
    fn seal_rest(&mut self) -> Option<Block> {
        (self.ends.len() > 1).then(|| self.take_block())
    }

    /// The whole table (of a builder made with
    /// [`SharedStringsBuilder::new`]).
    pub(crate) fn finish(mut self) -> Result<SharedStrings> {
        let strings = SharedStrings::empty();
        let rest = self.seal_rest();
        for block in self.done.drain(..).chain(rest) {
            strings.install(block)?;
        }
        let _ = strings.count.set(self.count());
        Ok(strings)
    }
}

/// Appends an item's text to the block's text, checking the limit (`room`
/// left of `max` for the whole table) before the text grows, and growing
/// it by doubling only up to the limit (a text of just over 1 GiB must
/// not ask for 2 GiB), without aborting the process when memory runs out.
/// Inlined for the common case, an item that fits the capacity; growing
/// is out of line.
#[inline]
fn append_within(text: &mut Vec<u8>, item: &[u8], room: u64, max: u64) -> Result<()> {
    let needed = text.len().saturating_add(item.len());
    if needed > text.capacity() || needed as u64 > room {
        grow_within(text, needed, room, max)?;
    }
    text.extend_from_slice(item);
    Ok(())
}

/// [`append_within`]'s growth: the limit checked first, then doubling up
/// to it.
#[cold]
#[inline(never)]
fn grow_within(text: &mut Vec<u8>, needed: usize, room: u64, max: u64) -> Result<()> {
    if needed as u64 > room {
        return Err(Error::limit("shared string bytes", max));
    }
    if needed > text.capacity() {
        let ceiling = usize::try_from(room).unwrap_or(usize::MAX);
        let wanted = text
            .capacity()
            .saturating_mul(2)
            .max(4096)
            .min(ceiling)
            .max(needed);
        text.try_reserve_exact(wanted - text.len())
            .map_err(|_| Error::limit("shared string bytes", max))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_double_from_1024_items() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(1023), (0, 1023));
        assert_eq!(locate(1024), (1, 0));
        assert_eq!(locate(3071), (1, 2047));
        assert_eq!(locate(3072), (2, 0));
        assert!(locate(usize::MAX).0 < BLOCKS);
        for block in 0..6 {
            let first = block_capacity(block) - 1024;
            assert_eq!(locate(first), (block, 0));
            assert_eq!(
                locate(first + block_capacity(block) - 1),
                (block, block_capacity(block) - 1)
            );
        }
    }

    /// Items "0", "1", ... read one per call, counting the calls; an error
    /// at item `fail_at`.
    struct Numbers {
        next: usize,
        end: usize,
        fail_at: Option<usize>,
    }

    impl ItemSource for Numbers {
        fn next_items(&mut self, strings: &mut SharedStringsBuilder) -> Result<bool> {
            while !strings.has_full_block() {
                if self.next == self.end {
                    return Ok(false);
                }
                if self.fail_at == Some(self.next) {
                    return Err(Error::xml("damaged").with_offset(self.next as u64));
                }
                strings.append(self.next.to_string().as_bytes())?;
                strings.end_item()?;
                self.next += 1;
            }
            Ok(true)
        }
    }

    /// Items "0" to `end - 1`, damaged at `fail_at`.
    fn items(end: usize, fail_at: Option<usize>) -> Box<Numbers> {
        Box::new(Numbers {
            next: 0,
            end,
            fail_at,
        })
    }

    fn numbers(end: usize, fail_at: Option<usize>) -> SharedStrings {
        SharedStrings::lazy(items(end, fail_at), None, &Limits::default(), "sst")
    }

    #[test]
    fn reads_only_the_blocks_asked_for() {
        let strings = numbers(10_000, None);
        assert_eq!(strings.parsed(), 0);
        assert_eq!(strings.lookup(5).unwrap(), Some("5"));
        assert_eq!(strings.parsed(), 1024);
        assert_eq!(strings.lookup(1024).unwrap(), Some("1024"));
        assert_eq!(strings.parsed(), 3072);
        assert_eq!(strings.lookup(9_999).unwrap(), Some("9999"));
        assert_eq!(strings.lookup(10_000).unwrap(), None);
        assert_eq!(strings.parsed(), 10_000);
        assert_eq!(strings.len(), 10_000);
        assert_eq!(strings.text_bytes(), 10 + 90 * 2 + 900 * 3 + 9000 * 4);
    }

    #[test]
    fn a_damaged_item_fails_only_the_lookups_past_it() {
        let strings = numbers(10_000, Some(5_000));
        assert_eq!(strings.lookup(3_000).unwrap(), Some("3000"));
        for _ in 0..2 {
            let err = strings.lookup(6_000).unwrap_err();
            assert_eq!(err.location().part.as_deref(), Some("sst"));
            assert_eq!(err.location().offset, Some(5_000));
        }
        assert!(strings.load().is_err());
        assert_eq!(strings.lookup(3_071).unwrap(), Some("3071"));
        // The items before the damage in its block still read.
        assert_eq!(strings.lookup(4_999).unwrap(), Some("4999"));
        assert!(strings.lookup(5_000).is_err());
        assert_eq!(strings.parsed(), 3_072);
    }

    #[test]
    fn limits_hold_across_blocks() {
        let limits = Limits {
            max_shared_strings: 2_000,
            max_shared_string_bytes: 3_000,
            ..Limits::default()
        };
        let strings = SharedStrings::lazy(items(1_500, None), None, &limits, "sst");
        // The first 1024 items hold 10 + 180 + 2700 + 96 bytes.
        assert_eq!(strings.lookup(1_000).unwrap(), Some("1000"));
        // Items 1024 to 1026 fit in the 14 bytes left, 1027 does not.
        assert_eq!(strings.lookup(1_026).unwrap(), Some("1026"));
        let err = strings.lookup(1_027).unwrap_err();
        assert!(err.to_string().contains("shared string bytes"), "{err}");
        let strings = SharedStrings::lazy(
            items(5_000, None),
            None,
            &Limits {
                max_shared_string_bytes: 1 << 20,
                ..limits
            },
            "sst",
        );
        assert_eq!(strings.lookup(1_999).unwrap(), Some("1999"));
        let err = strings.lookup(2_000).unwrap_err();
        assert!(err.to_string().contains("shared string count"), "{err}");
    }

    /// A table of `end` numbers (damaged at `fail_at`) whose part can be
    /// read again, and how many times it was.
    fn reopenable(
        end: usize,
        fail_at: Option<usize>,
        limits: &Limits,
    ) -> (SharedStrings, std::sync::Arc<AtomicUsize>) {
        let reopened = std::sync::Arc::new(AtomicUsize::new(0));
        let counter = std::sync::Arc::clone(&reopened);
        let reopen: ReopenItems = Box::new(move || {
            counter.fetch_add(1, Ordering::Relaxed);
            Ok(items(end, fail_at) as Box<dyn ItemSource>)
        });
        let strings = SharedStrings::lazy(items(end, fail_at), Some(reopen), limits, "sst");
        (strings, reopened)
    }

    #[test]
    fn a_check_to_the_end_keeps_no_block_it_alone_read() {
        let (strings, reopened) = reopenable(10_000, None, &Limits::default());
        assert_eq!(strings.lookup(5).unwrap(), Some("5"));
        strings.check_to_end().unwrap();
        // Only the block the lookup set: the text of items 0 to 1023.
        assert_eq!(strings.parsed(), 1024);
        assert_eq!(strings.text_bytes(), 10 + 90 * 2 + 900 * 3 + 24 * 4);
        assert_eq!(reopened.load(Ordering::Relaxed), 0);
        // Set blocks read as before; a lookup past them reads the part again.
        assert_eq!(strings.lookup(1_000).unwrap(), Some("1000"));
        assert_eq!(strings.lookup(7_000).unwrap(), Some("7000"));
        assert_eq!(reopened.load(Ordering::Relaxed), 1);
        assert_eq!(strings.parsed(), 7_168);
        // A second check has nothing to do: the part was read whole once.
        strings.check_to_end().unwrap();
        assert_eq!(strings.lookup(9_999).unwrap(), Some("9999"));
        assert_eq!(strings.lookup(10_000).unwrap(), None);
        assert_eq!(strings.len(), 10_000);
        assert_eq!(strings.text_bytes(), 10 + 90 * 2 + 900 * 3 + 9000 * 4);
        assert_eq!(reopened.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_check_finds_the_damage_a_whole_read_finds_and_leaves_the_same_table() {
        for lookup_first in [None, Some(10), Some(2_000)] {
            let whole = numbers(10_000, Some(5_000));
            let (checked, _) = reopenable(10_000, Some(5_000), &Limits::default());
            if let Some(index) = lookup_first {
                assert_eq!(whole.lookup(index).unwrap(), checked.lookup(index).unwrap());
            }
            let expected = whole.load().unwrap_err();
            let got = checked.check_to_end().unwrap_err();
            assert_eq!(got.to_string(), expected.to_string());
            assert_eq!(got.location(), expected.location());
            assert_eq!(checked.parsed(), whole.parsed());
            for index in [0, 1_023, 3_071, 4_999, 5_000, 6_000] {
                assert_eq!(
                    checked.lookup(index).ok(),
                    whole.lookup(index).ok(),
                    "{index} after {lookup_first:?}"
                );
            }
            assert!(checked.check_to_end().is_err());
        }
    }

    #[test]
    fn a_check_holds_the_limits_as_a_whole_read() {
        let limits = Limits {
            max_shared_strings: 2_000,
            max_shared_string_bytes: 3_000,
            ..Limits::default()
        };
        let (strings, _) = reopenable(1_500, None, &limits);
        let err = strings.check_to_end().unwrap_err();
        assert!(err.to_string().contains("shared string bytes"), "{err}");
        assert_eq!(strings.lookup(1_026).unwrap(), Some("1026"));
        assert!(strings.lookup(1_027).is_err());
        let limits = Limits {
            max_shared_string_bytes: 1 << 20,
            ..limits
        };
        let (strings, _) = reopenable(5_000, None, &limits);
        let err = strings.check_to_end().unwrap_err();
        assert!(err.to_string().contains("shared string count"), "{err}");
        assert_eq!(strings.lookup(1_999).unwrap(), Some("1999"));
    }
}
