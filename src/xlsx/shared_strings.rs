//! The shared strings part, parsed item by item (`<si>`) as the table
//! asks for them ([`XmlItems`], see `crate::shared_strings`), so its XML
//! is never held whole. Rich text runs are concatenated, phonetic runs (`<rPh>`) left out,
//! entities and `_xHHHH_` escapes decoded. The `count` and `uniqueCount`
//! attributes are ignored: storage grows with the text actually read.
//! Outside the items the part's structure is checked as the items stream
//! by: one root element, end tags that close the element open there, and
//! a proper end (a part cut short between two items, or after the last,
//! is refused, not read as if it ended there).
//!
//! The part is read through `Archive::open_part_owned` (its compressed bytes
//! at open, inflated as asked; a stored part is parsed at open). `.xlsb` and
//! `.xls` tables are read whole at open.

use std::io::Read;

use crate::chunk::ChunkBuffer;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::xml::bytes::{find_byte, is_plain_text};
use crate::xml::{self, Piece, Step, Token};
use smallvec::SmallVec;

use crate::shared_strings::{ItemSource, SharedStrings, SharedStringsBuilder};

/// Reads the shared strings part from its inflated bytes, whole.
pub(crate) fn read_shared_strings(reader: impl Read, limits: &Limits) -> Result<SharedStrings> {
    let mut items = XmlItems::new(reader, limits);
    let mut strings = SharedStringsBuilder::new(limits);
    items.next(&mut strings)?;
    strings.finish()
}

/// The shared strings part as a resumable parser (see
/// [`ItemSource`]): the window of its inflated bytes and the parser's
/// state between two items.
pub(crate) struct XmlItems<R> {
    reader: R,
    buffer: ChunkBuffer,
    pieces: Vec<Piece>,
    scratch: String,
    unescaped: String,
    outline: Outline,
    max_row_bytes: u64,
}

impl<R: Read> XmlItems<R> {
    pub(crate) fn new(reader: R, limits: &Limits) -> XmlItems<R> {
        XmlItems {
            reader,
            buffer: ChunkBuffer::new(limits.max_row_bytes),
            pieces: Vec::new(),
            scratch: String::new(),
            unescaped: String::new(),
            outline: Outline::default(),
            max_row_bytes: limits.max_row_bytes,
        }
    }
}

impl<R: Read + Send> ItemSource for XmlItems<R> {
    fn next_items(&mut self, strings: &mut SharedStringsBuilder) -> Result<bool> {
        self.next(strings)
    }
}

impl<R: Read> XmlItems<R> {
    /// Reads items (see [`ItemSource::next_items`]).
    fn next(&mut self, strings: &mut SharedStringsBuilder) -> Result<bool> {
        // The text is gathered as bytes: plain ASCII items (most of them)
        // are appended without a UTF-8 check of their own; every other item
        // is validated before it is appended.
        let XmlItems {
            reader,
            buffer,
            pieces,
            scratch,
            unescaped,
            outline,
            max_row_bytes,
        } = self;
        loop {
            let complete = buffer.is_eof();
            let window = buffer.window();
            // A run of plain items first, straight from the window.
            if outline.fast() && !outline.open.is_empty() {
                let (consumed, ended) = plain_items(window, strings, *max_row_bytes);
                buffer.consume(consumed);
                match ended {
                    RunEnd::Other => {}
                    RunEnd::FullBlock => return Ok(true),
                    RunEnd::Failed(err) => return Err(err.with_offset(buffer.window_offset())),
                }
            }
            let window = buffer.window();
            match next_item(window, complete, pieces, outline)
                .map_err(|err| err.shift_offset(buffer.window_offset()))?
            {
                Item::Found { consumed, has_item } => {
                    if !has_item {
                        buffer.consume(consumed);
                        continue;
                    }
                    if consumed as u64 > *max_row_bytes {
                        return Err(Error::limit("row or string item size", *max_row_bytes)
                            .with_offset(buffer.window_offset()));
                    }
                    let unit = &window[..consumed];
                    let located = |err: Error| err.with_offset(buffer.window_offset());
                    match plain_ascii_text(unit, pieces) {
                        Some(plain) => strings.append(plain).map_err(located)?,
                        None => {
                            let item = simdutf8::basic::from_utf8(unit).map_err(|_| {
                                let valid = std::str::from_utf8(unit)
                                    .map_or_else(|err| err.valid_up_to(), |_| 0);
                                Error::new(ErrorKind::InvalidUtf8)
                                    .with_offset(buffer.window_offset() + valid as u64)
                            })?;
                            // XML-decode the item's text, then its `_xHHHH_` escapes.
                            scratch.clear();
                            for piece in pieces.iter() {
                                piece
                                    .decode_into(&item[piece.span.start..piece.span.end], scratch)
                                    .map_err(|err| {
                                        err.into_error().shift_offset(buffer.window_offset())
                                    })?;
                            }
                            if xml::has_escapes(scratch) {
                                unescaped.clear();
                                xml::unescape(scratch, unescaped);
                                strings.append(unescaped.as_bytes()).map_err(located)?;
                            } else {
                                strings.append(scratch.as_bytes()).map_err(located)?;
                            }
                        }
                    }
                    strings.end_item().map_err(located)?;
                    buffer.consume(consumed);
                    if strings.has_full_block() {
                        return Ok(true);
                    }
                }
                Item::NeedMore { skip } => {
                    buffer.consume(skip);
                    if complete {
                        outline
                            .check_end()
                            .map_err(|err| err.with_offset(buffer.window_offset()))?;
                        return Ok(false);
                    }
                    buffer.fill_for_rescan(reader)?;
                }
            }
        }
    }
}

/// Why [`plain_items`] stopped.
enum RunEnd {
    /// At an item of another shape, or text that is not plain, or the
    /// window's end: the item parser reads on.
    Other,
    /// A block of the table is full (see
    /// [`SharedStringsBuilder::has_full_block`]).
    FullBlock,
    /// The table refused the item at the window's new start (a limit).
    Failed(Error),
}

/// Reads the run of plain items (`<si><t>text</t></si>`, with or without
/// `xml:space="preserve"`, the text plain ASCII: see
/// [`plain_ascii_text`]) at the start of `window` into `strings`, as
/// [`XmlItems::next`] reads each through [`next_item`], without a trip
/// through the item parser for each (measured: half the instructions of
/// such an item). Returns the bytes of the items read and why it stopped;
/// on failure, the failed item starts where the items read end.
fn plain_items(
    window: &[u8],
    strings: &mut SharedStringsBuilder,
    max_row_bytes: u64,
) -> (usize, RunEnd) {
    let mut pos = 0;
    while let Some((piece, consumed)) = window.get(pos..).and_then(plain_item) {
        let item = &window[pos..pos + consumed];
        let text = piece.span.of(item);
        if consumed as u64 > max_row_bytes || !is_plain_text(text) {
            break;
        }
        if let Err(err) = strings.append(text).and_then(|()| strings.end_item()) {
            return (pos, RunEnd::Failed(err));
        }
        pos += consumed;
        if strings.has_full_block() {
            return (pos, RunEnd::FullBlock);
        }
    }
    (pos, RunEnd::Other)
}

/// The text of an item that is one piece of plain ASCII (no references,
/// no carriage returns, no `_` that could start an `_xHHHH_` escape): it
/// stands as it is.
#[inline]
fn plain_ascii_text<'a>(unit: &'a [u8], pieces: &[Piece]) -> Option<&'a [u8]> {
    let [piece] = pieces else {
        return None;
    };
    let raw = piece.span.of(unit);
    (!piece.cdata && is_plain_text(raw)).then_some(raw)
}

/// The fast path for the item shape nearly every writer produces,
/// `<si><t>text</t></si>` (with or without `xml:space="preserve"`): its
/// text and length. None for anything else, which the tokenizer reads.
#[inline(always)]
fn plain_item(input: &[u8]) -> Option<(Piece, usize)> {
    const PLAIN: &[u8] = b"<si><t>";
    const PRESERVE: &[u8] = b"<si><t xml:space=\"preserve\">";
    const END: &[u8] = b"</t></si>";
    let start = if input.starts_with(PLAIN) {
        PLAIN.len()
    } else if input.starts_with(PRESERVE) {
        PRESERVE.len()
    } else {
        return None;
    };
    let end = find_byte(input, start, b'<')?;
    if !input[end..].starts_with(END) {
        return None;
    }
    let piece = Piece {
        span: xml::Span::new(start, end),
        cdata: false,
    };
    Some((piece, end + END.len()))
}

/// The elements open around the items (`<sst>`, an extension list), by
/// name: the part's structure outside the items, which streams by.
///
/// It also holds the namespace bindings in scope there (see
/// [`Namespaces`](xml::Namespaces)): items and their text are read only
/// from SpreadsheetML elements, foreign ones are skipped with their
/// content.
#[derive(Default)]
struct Outline {
    /// Each open element's name, the bindings before its own, and whether
    /// it is SpreadsheetML's.
    open: Vec<(Vec<u8>, usize, bool)>,
    seen_root: bool,
    namespaces: xml::Namespaces,
    /// How many of `open` are foreign: items inside them are not read.
    foreign_open: usize,
}

impl Outline {
    /// The deepest nesting followed outside the items.
    const MAX_DEPTH: usize = 256;

    /// A start tag outside an item.
    /// `scope` is the number of bindings before the element's own.
    fn start(&mut self, name: &[u8], self_closing: bool, at: usize, scope: usize) -> Result<()> {
        if self.open.is_empty() && self.seen_root {
            return Err(Error::xml("a second root element").with_offset(at as u64));
        }
        self.seen_root = true;
        if self_closing {
            self.namespaces.truncate(scope);
        } else {
            if self.open.len() >= Outline::MAX_DEPTH {
                return Err(Error::xml("elements nested more than 256 deep").with_offset(at as u64));
            }
            let spreadsheet = self.is_spreadsheet(name);
            self.foreign_open += usize::from(!spreadsheet);
            self.open.push((name.to_vec(), scope, spreadsheet));
        }
        Ok(())
    }

    /// An end tag outside an item.
    fn end(&mut self, name: &[u8], at: usize) -> Result<()> {
        match self.open.pop() {
            Some((top, scope, spreadsheet)) if top == name => {
                self.namespaces.truncate(scope);
                self.foreign_open -= usize::from(!spreadsheet);
                Ok(())
            }
            _ => Err(
                Error::xml("an end tag does not close the element open here")
                    .with_offset(at as u64),
            ),
        }
    }

    /// Whether an element named `name` here is SpreadsheetML's (not
    /// foreign, nor inside a foreign one), once its declarations are bound.
    fn is_spreadsheet(&self, name: &[u8]) -> bool {
        self.foreign_open == 0 && self.namespaces.is_spreadsheet(name)
    }

    /// Whether the fast path, which reads unprefixed tags, may run here.
    fn fast(&self) -> bool {
        self.foreign_open == 0 && self.namespaces.default_is_spreadsheet()
    }

    /// An item starts: it must sit inside the root.
    fn item(&self, at: usize) -> Result<()> {
        if self.open.is_empty() {
            return Err(
                Error::xml("a shared string item `<si>` outside the root element")
                    .with_offset(at as u64),
            );
        }
        Ok(())
    }

    /// The part ended: every element is closed.
    fn check_end(&self) -> Result<()> {
        if !self.open.is_empty() {
            return Err(Error::xml(
                "the shared strings part ends inside an element (cut short?)",
            ));
        }
        if !self.seen_root {
            return Err(Error::xml("the shared strings part has no root element"));
        }
        Ok(())
    }
}

enum Item {
    /// `consumed` bytes hold one complete `<si>` (when `has_item`) or
    /// something to skip.
    Found { consumed: usize, has_item: bool },
    /// The window ends inside an item; `skip` leading bytes can be dropped.
    NeedMore { skip: usize },
}

/// Finds the next `<si>` item in `input` and records its text pieces (text
/// and CDATA inside `<t>`, but not inside `<rPh>`).
fn next_item(
    input: &[u8],
    complete: bool,
    pieces: &mut Vec<Piece>,
    outline: &mut Outline,
) -> Result<Item> {
    pieces.clear();
    if outline.fast()
        && let Some((piece, consumed)) = plain_item(input)
    {
        outline.item(0)?;
        pieces.push(piece);
        return Ok(Item::Found {
            consumed,
            has_item: true,
        });
    }
    let mut pos = 0;
    // Skip to the next `<si>` start tag.
    let (item_start, item_scope) = loop {
        match xml::next_token(input, pos, complete).map_err(xml::XmlError::into_error)? {
            Step::Token(
                Token::Start {
                    name,
                    attributes,
                    self_closing,
                },
                next,
            ) => {
                let scope = outline.namespaces.len();
                outline
                    .namespaces
                    .declare(input, attributes)
                    .map_err(|err| err.into_error())?;
                if xml::local_name(name.of(input)) == b"si"
                    && outline.is_spreadsheet(name.of(input))
                {
                    if pos > 0 || self_closing {
                        // Read again from its start tag, or ended.
                        outline.namespaces.truncate(scope);
                    }
                    if pos > 0 {
                        break (next, scope);
                    }
                    outline.item(pos)?;
                    if self_closing {
                        return Ok(Item::Found {
                            consumed: next,
                            has_item: true,
                        });
                    }
                    break (next, scope);
                }
                outline.start(name.of(input), self_closing, pos, scope)?;
                pos = next;
            }
            Step::Token(Token::End { name }, next) => {
                outline.end(name.of(input), pos)?;
                pos = next;
            }
            Step::Token(_, next) => pos = next,
            Step::Incomplete => return Ok(Item::NeedMore { skip: pos }),
            Step::End => return Ok(Item::NeedMore { skip: pos }),
        }
    };
    if pos > 0 {
        // Drop what came before the item first, so offsets stay small.
        return Ok(Item::Found {
            consumed: pos,
            has_item: false,
        });
    }
    let found = read_item_body(input, item_start, complete, pieces, outline);
    // The item's own bindings end with it (or it is read again from its
    // start tag).
    outline.namespaces.truncate(item_scope);
    found
}

/// The children of an `<si>` from `pos`, to its end tag.
fn read_item_body(
    input: &[u8],
    mut pos: usize,
    complete: bool,
    pieces: &mut Vec<Piece>,
    outline: &mut Outline,
) -> Result<Item> {
    let mut in_text = false;
    let mut phonetic_depth = 0u32;
    // Elements open in the item: name, bindings before its own, whether
    // SpreadsheetML's. Text inside a foreign one is not the item's.
    let mut open: SmallVec<[(xml::Span, usize, bool); 4]> = SmallVec::new();
    let mut foreign = 0usize;
    loop {
        match xml::next_token(input, pos, complete).map_err(xml::XmlError::into_error)? {
            Step::Token(token, next) => {
                match token {
                    Token::Start {
                        name,
                        attributes,
                        self_closing,
                    } => {
                        let scope = outline.namespaces.len();
                        outline
                            .namespaces
                            .declare(input, attributes)
                            .map_err(|err| err.into_error())?;
                        let spreadsheet =
                            foreign == 0 && outline.namespaces.is_spreadsheet(name.of(input));
                        if self_closing {
                            outline.namespaces.truncate(scope);
                        } else {
                            if open.len() >= Outline::MAX_DEPTH {
                                return Err(Error::xml("elements nested more than 256 deep")
                                    .with_offset(pos as u64));
                            }
                            open.push((name, scope, spreadsheet));
                            foreign += usize::from(!spreadsheet);
                        }
                        if spreadsheet {
                            match xml::local_name(name.of(input)) {
                                b"t" if !self_closing => in_text = true,
                                b"rPh" if !self_closing => phonetic_depth += 1,
                                _ => {}
                            }
                        }
                    }
                    Token::End { name } => {
                        let mut spreadsheet = foreign == 0;
                        if let Some(&(top, scope, element_spreadsheet)) = open.last()
                            && top.of(input) == name.of(input)
                        {
                            open.pop();
                            outline.namespaces.truncate(scope);
                            foreign -= usize::from(!element_spreadsheet);
                            spreadsheet = element_spreadsheet;
                        }
                        if spreadsheet {
                            match xml::local_name(name.of(input)) {
                                b"t" => in_text = false,
                                b"rPh" => phonetic_depth = phonetic_depth.saturating_sub(1),
                                b"si" => {
                                    return Ok(Item::Found {
                                        consumed: next,
                                        has_item: true,
                                    });
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {
                        if in_text && phonetic_depth == 0 && foreign == 0 {
                            pieces.extend(Piece::of_token(token));
                        }
                    }
                }
                pos = next;
            }
            Step::Incomplete => return Ok(Item::NeedMore { skip: 0 }),
            Step::End => return Err(Error::xml("a shared string item `<si>` is not closed")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(xml: &str) -> SharedStrings {
        read_shared_strings(xml.as_bytes(), &Limits::default()).unwrap()
    }

    #[test]
    fn reads_plain_rich_and_phonetic_items() {
        let strings = parse(concat!(
            r#"<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main""#,
            r#" xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="999999999" uniqueCount="4">"#,
            "<si><t>plain</t></si>",
            r#"<si><r><rPr><b/></rPr><t>ri</t></r><r><t xml:space="preserve">ch &amp; </t></r></si>"#,
            "<si><t>漢字</t><rPh sb=\"0\" eb=\"2\"><t>かんじ</t></rPh></si>",
            "<si/><si><t/></si><x:si><x:t>a_x000D_b</x:t></x:si>",
            "</sst>"
        ));
        let all: Vec<_> = (0..strings.len())
            .map(|i| strings.get(i).unwrap())
            .collect();
        assert_eq!(all, ["plain", "rich & ", "漢字", "", "", "a\rb"]);
        assert_eq!(strings.get(6), None);
    }

    #[test]
    fn only_plain_ascii_items_skip_decoding() {
        let strings = parse(
            "<sst><si><t>plain</t></si><si><t>a\r\nb</t></si><si><t>x&lt;y</t></si><si><t>snake_case</t></si><si><t>_x0041_</t></si><si><t>é</t></si></sst>",
        );
        let all: Vec<_> = (0..strings.len())
            .map(|i| strings.get(i).unwrap())
            .collect();
        assert_eq!(all, ["plain", "a\nb", "x<y", "snake_case", "A", "é"]);
    }

    #[test]
    fn cdata_text_is_literal() {
        let strings = parse("<sst><si><t><![CDATA[a&b]]></t></si></sst>");
        assert_eq!(strings.get(0), Some("a&b"));
    }

    #[test]
    fn refuses_an_unclosed_item() {
        let err = read_shared_strings(&b"<sst><si><t>x</t>"[..], &Limits::default()).unwrap_err();
        assert!(err.to_string().contains("not closed"), "{err}");
    }

    #[test]
    fn refuses_a_part_cut_short_between_or_after_items() {
        for (xml, at) in [
            ("<sst><si><t>x</t></si>", 22),
            ("<sst><si><t>x</t></si><si><t>y</t></si>", 39),
            ("<sst>", 5),
            ("<sst><extLst><ext>", 18),
        ] {
            let err = read_shared_strings(xml.as_bytes(), &Limits::default()).unwrap_err();
            assert!(
                err.to_string().contains("ends inside an element"),
                "{xml}: {err}"
            );
            assert_eq!(err.location().offset, Some(at), "{xml}");
        }
    }

    #[test]
    fn refuses_a_broken_outline() {
        for (xml, wanted, at) in [
            ("<sst><si><t>x</t></si></sheet>", "does not close", 22),
            ("<sst></sst><sst></sst>", "a second root", 11),
            ("<si><t>x</t></si>", "outside the root", 0),
            ("", "no root element", 0),
        ] {
            let err = read_shared_strings(xml.as_bytes(), &Limits::default()).unwrap_err();
            assert!(err.to_string().contains(wanted), "{xml}: {err}");
            assert_eq!(err.location().offset, Some(at), "{xml}");
        }
    }
}
