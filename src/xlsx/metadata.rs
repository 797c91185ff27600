//! The metadata of an `.xlsx` workbook ([`crate::metadata`]): defined
//! names, the sheet dimension, hidden columns and rows, merged ranges,
//! hyperlinks and comments (notes).
//!
//! Read this first: none of this builds cells. A sheet's part is read as a
//! stream through the same chunk window the row reader uses; the elements
//! before `<sheetData>` (dimension, columns) and after it (merged cells,
//! hyperlinks) are tokenised, and the sheet data itself is skipped by
//! searching the inflated bytes for `</sheetData>`, a tail carried over
//! between chunks. Hidden rows need the row tags: [`Workbook::hidden_rows`](crate::Workbook::hidden_rows)
//! looks for `<row` start tags with a substring search and parses only
//! those tags. Comments live in their own part, found through the sheet's
//! relationships; defined names in the workbook part.
//!
//! Hidden rows tokenise the part outside rows (so that rows in foreign
//! elements are skipped as the row reader skips them) and only tell tags apart
//! inside a row to find its end (`skip_row_content`: comments, CDATA and
//! quoted `>` handled), parsing just the row tags' attributes. What is skipped
//! unread is not checked for control characters; the row reader checks it.

use std::io::{Read, Seek};

use memchr::memmem;

use crate::cell::{CellRef, MAX_COLUMN, parse_row_number};
use crate::chunk::{CHUNK_SIZE, ChunkBuffer};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::metadata::{Comment, DefinedName, Hyperlink, SheetInfo, SheetMetadata};
use crate::xml::bytes::find_byte;
use crate::xml::{self, ElementScope, Namespace, Namespaces, Span, Step, Token};

use super::XlsxBook;
use crate::opc::{read_relationships, type_suffix};
use crate::range::CellRange;

pub(super) fn xml_error(part: &str) -> impl Fn(xml::XmlError) -> Error + '_ {
    move |err| err.into_error().with_part(part)
}

fn is_true(value: &[u8]) -> bool {
    value == b"1" || value.eq_ignore_ascii_case(b"true")
}

/// Text content of a run of tokens: entity references decoded, CDATA taken
/// literally, `_xHHHH_` escapes decoded with `escapes`.
fn push_text(
    input: &[u8],
    token: Token,
    escapes: bool,
    out: &mut String,
) -> Result<(), xml::XmlError> {
    match token {
        Token::Text(span) => out.push_str(&xml::decode_owned(span.of(input), escapes)?),
        Token::CData(span) => {
            out.push_str(
                std::str::from_utf8(span.of(input)).map_err(|_| xml::XmlError {
                    message: "invalid UTF-8",
                    offset: span.start,
                })?,
            )
        }
        _ => {}
    }
    Ok(())
}

/// The decoded value of an attribute, if present.
pub(super) fn attribute_text(
    input: &[u8],
    attributes: Span,
    wanted: &[u8],
) -> Result<Option<String>, xml::XmlError> {
    xml::attribute(input, attributes, wanted)?
        .map(|raw| xml::decode_owned(raw, false))
        .transpose()
}

/// A number attribute, its references decoded; None when missing or not
/// a number.
pub(super) fn number_attribute<T: std::str::FromStr>(
    input: &[u8],
    attributes: Span,
    wanted: &[u8],
) -> Result<Option<T>, xml::XmlError> {
    Ok(xml::attribute_decoded(input, attributes, wanted)?
        .and_then(|raw| std::str::from_utf8(&raw).ok()?.trim().parse().ok()))
}

/// A boolean attribute (`1` or `true`), its references decoded.
fn flag_attribute(input: &[u8], attributes: Span, wanted: &[u8]) -> Result<bool, xml::XmlError> {
    Ok(xml::attribute_decoded(input, attributes, wanted)?.is_some_and(|value| is_true(&value)))
}

impl<R: Read + Seek> XlsxBook<R> {
    pub(super) fn read_defined_names(&mut self, sheets: &[SheetInfo]) -> Result<Vec<DefinedName>> {
        let limits = self.limits;
        let part = self.workbook_part.clone();
        let bytes = self.package()?.read_part(&part, &limits)?;
        let mut sheet_names: Vec<String> = Vec::new();
        let mut names = Vec::new();
        // The name being read: (name, localSheetId, hidden, text).
        let mut current: Option<(String, Option<usize>, bool, String)> = None;
        xml::walk(&bytes, Namespace::SpreadsheetMl, |token, _| {
            match token {
                Token::Start {
                    name,
                    attributes,
                    self_closing,
                } => match xml::local_name(name.of(&bytes)) {
                    b"sheet" => {
                        sheet_names
                            .push(attribute_text(&bytes, attributes, b"name")?.unwrap_or_default());
                    }
                    b"definedName" => {
                        let name = attribute_text(&bytes, attributes, b"name")?.unwrap_or_default();
                        let local = number_attribute(&bytes, attributes, b"localSheetId")?;
                        let hidden = flag_attribute(&bytes, attributes, b"hidden")?;
                        let entry = (name, local, hidden, String::new());
                        if self_closing {
                            names.push(entry);
                        } else {
                            current = Some(entry);
                        }
                    }
                    _ => {}
                },
                Token::End { name } if xml::local_name(name.of(&bytes)) == b"definedName" => {
                    names.extend(current.take());
                }
                token => {
                    if let Some((_, _, _, text)) = current.as_mut() {
                        push_text(&bytes, token, false, text)?;
                    }
                }
            }
            Ok(())
        })
        .map_err(xml_error(&part))?;
        Ok(names
            .into_iter()
            .map(|(name, local, hidden, refers_to)| DefinedName {
                name,
                refers_to,
                sheet: local
                    .and_then(|index: usize| sheet_names.get(index))
                    .and_then(|sheet| sheets.iter().position(|info| info.name() == sheet)),
                hidden,
            })
            .collect())
    }

    pub(super) fn read_sheet_metadata(&mut self, info: &SheetInfo) -> Result<SheetMetadata> {
        let limits = self.limits;
        let (name, part) = (info.name().to_owned(), info.part().to_owned());
        let locate = |err: Error| err.with_sheet(&name).with_part(&part);
        let relationships = read_relationships(self.package()?, &part, &limits).map_err(locate)?;
        let mut metadata = SheetMetadata::default();
        let mut in_cols = false;
        let reader = self
            .package()?
            .open_part(&part, limits.max_part_bytes, &limits)
            .map_err(locate)?;
        stream_outside_sheet_data(reader, &limits, CHUNK_SIZE, |input, token, namespaces| {
            let (name, attributes, self_closing) = match token {
                Token::Start {
                    name,
                    attributes,
                    self_closing,
                } => (name, attributes, self_closing),
                Token::End { name } => {
                    if xml::local_name(name.of(input)) == b"cols" {
                        in_cols = false;
                    }
                    return Ok(());
                }
                _ => return Ok(()),
            };
            match xml::local_name(name.of(input)) {
                b"dimension" => {
                    metadata.dimension = attribute_text(input, attributes, b"ref")?
                        .and_then(|text| text.parse().ok());
                }
                b"sheetFormatPr" => {
                    metadata.rows_hidden_by_default =
                        flag_attribute(input, attributes, b"zeroHeight")?;
                }
                b"cols" => in_cols = !self_closing,
                b"col" if in_cols => {
                    let number = |wanted: &[u8]| number_attribute::<u32>(input, attributes, wanted);
                    let hidden = flag_attribute(input, attributes, b"hidden")?;
                    if let (true, Some(min), Some(max)) = (hidden, number(b"min")?, number(b"max")?)
                        && min >= 1
                        && min <= max
                        && min <= MAX_COLUMN + 1
                    {
                        metadata
                            .hidden_columns
                            .push(min - 1..=(max - 1).min(MAX_COLUMN));
                    }
                }
                b"mergeCell" => {
                    if let Some(range) = attribute_text(input, attributes, b"ref")?
                        .and_then(|text| text.parse().ok())
                    {
                        metadata.merged.push(range);
                    }
                }
                b"hyperlink" => {
                    let Some(range) = attribute_text(input, attributes, b"ref")?
                        .and_then(|text| text.parse::<CellRange>().ok())
                    else {
                        return Ok(());
                    };
                    // `r:id`, by its prefix's namespace.
                    let id = xml::relationship_id(input, attributes, namespaces)?
                        .map(|raw| xml::decode_owned(raw, false))
                        .transpose()?;
                    let target = id.and_then(|id| {
                        relationships
                            .iter()
                            .find(|r| r.id == id)
                            .map(|r| r.target.clone())
                    });
                    metadata.hyperlinks.push(Hyperlink {
                        range,
                        target,
                        location: attribute_text(input, attributes, b"location")?,
                        display: attribute_text(input, attributes, b"display")?,
                        tooltip: attribute_text(input, attributes, b"tooltip")?,
                    });
                }
                _ => {}
            }
            Ok(())
        })
        .map_err(locate)?;
        let package = self.package()?;
        let comments_part = relationships
            .iter()
            .find(|r| type_suffix(&r.kind) == "comments" && package.contains(&r.target))
            .map(|r| r.target.clone());
        if let Some(comments_part) = comments_part {
            let bytes = self
                .package()?
                .read_part(&comments_part, &limits)
                .map_err(|err| err.with_sheet(&name))?;
            metadata.comments = parse_comments(&bytes)
                .map_err(|err| err.into_error().with_part(&comments_part).with_sheet(&name))?;
        }
        Ok(metadata)
    }

    /// What a sheet part says before its cells (dimension, hidden
    /// columns, whether rows are hidden by default), read from the start
    /// of the part only: reading stops at `<sheetData>` (issue 26: the
    /// hidden columns and rows without a pass over the whole part).
    // Used by the Arrow layer only.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(super) fn read_sheet_head(&mut self, info: &SheetInfo) -> Result<SheetMetadata> {
        self.read_part_head(info, false)
    }

    /// The dimension the sheet part declares, read from its start: reading
    /// stops at `<dimension>` (or `<sheetData>`, when it has none).
    pub(super) fn read_sheet_dimension(&mut self, info: &SheetInfo) -> Result<Option<CellRange>> {
        Ok(self.read_part_head(info, true)?.dimension)
    }

    /// The start of a sheet part up to `<sheetData>`, or, with
    /// `dimension_only`, up to `<dimension>` with nothing else read.
    fn read_part_head(&mut self, info: &SheetInfo, dimension_only: bool) -> Result<SheetMetadata> {
        let limits = self.limits;
        let (name, part) = (info.name().to_owned(), info.part().to_owned());
        let locate = |err: Error| err.with_sheet(&name).with_part(&part);
        let mut reader = self
            .package()?
            .open_part(&part, limits.max_part_bytes, &limits)
            .map_err(locate)?;
        let mut buffer = ChunkBuffer::new(limits.max_row_bytes);
        let mut scope = ElementScope::new(Namespace::SpreadsheetMl);
        let mut metadata = SheetMetadata::default();
        let mut in_cols = false;
        loop {
            let complete = buffer.is_eof();
            let input = buffer.window();
            let base = buffer.window_offset();
            let located = |err: xml::XmlError| locate(err.into_error().shift_offset(base));
            let mut pos = 0;
            loop {
                match xml::next_token(input, pos, complete).map_err(located)? {
                    Step::Token(
                        Token::Start {
                            name,
                            attributes,
                            self_closing,
                        },
                        next,
                    ) => {
                        if scope.start(input, name, attributes, pos).map_err(located)? {
                            let number = |wanted: &[u8]| {
                                number_attribute::<u32>(input, attributes, wanted).map_err(located)
                            };
                            match xml::local_name(name.of(input)) {
                                b"dimension" => {
                                    metadata.dimension = attribute_text(input, attributes, b"ref")
                                        .map_err(located)?
                                        .and_then(|text| text.parse().ok());
                                    if dimension_only {
                                        return Ok(metadata);
                                    }
                                }
                                b"sheetData" => return Ok(metadata),
                                _ if dimension_only => {}
                                b"sheetFormatPr" => {
                                    metadata.rows_hidden_by_default =
                                        flag_attribute(input, attributes, b"zeroHeight")
                                            .map_err(located)?;
                                }
                                b"cols" => in_cols = !self_closing,
                                b"col" if in_cols => {
                                    let hidden = flag_attribute(input, attributes, b"hidden")
                                        .map_err(located)?;
                                    if let (true, Some(min), Some(max)) =
                                        (hidden, number(b"min")?, number(b"max")?)
                                        && min >= 1
                                        && min <= max
                                        && min <= MAX_COLUMN + 1
                                    {
                                        metadata
                                            .hidden_columns
                                            .push(min - 1..=(max - 1).min(MAX_COLUMN));
                                    }
                                }

                                _ => {}
                            }
                        }
                        if self_closing {
                            scope.end();
                        }
                        pos = next;
                    }
                    Step::Token(Token::End { name }, next) => {
                        if xml::local_name(name.of(input)) == b"cols" {
                            in_cols = false;
                        }
                        scope.end();
                        pos = next;
                    }
                    Step::Token(_, next) => pos = next,
                    Step::Incomplete | Step::End => break,
                }
            }
            if complete {
                return Ok(metadata);
            }
            buffer.consume(pos);
            buffer.fill_for_rescan(&mut reader).map_err(locate)?;
        }
    }

    pub(super) fn read_hidden_rows(&mut self, info: &SheetInfo) -> Result<Vec<u32>> {
        let limits = self.limits;
        let (name, part) = (info.name().to_owned(), info.part().to_owned());
        let locate = |err: Error| err.with_sheet(&name).with_part(&part);
        let reader = self
            .package()?
            .open_part(&part, limits.max_part_bytes, &limits)
            .map_err(locate)?;
        hidden_rows(reader, &limits, CHUNK_SIZE).map_err(locate)
    }
}

/// Streams a sheet part, calling `visit` with every token of a
/// SpreadsheetML element outside `<sheetData>` (whose content is skipped
/// by a substring search) and the bindings in scope; foreign elements are
/// skipped with their content ([`ElementScope`]).
fn stream_outside_sheet_data(
    mut reader: impl Read,
    limits: &Limits,
    chunk_size: usize,
    mut visit: impl FnMut(&[u8], Token, &Namespaces) -> Result<(), xml::XmlError>,
) -> Result<()> {
    let mut buffer = ChunkBuffer::with_chunk_size(chunk_size, limits.max_row_bytes);
    let mut scope = ElementScope::new(Namespace::SpreadsheetMl);
    let mut pos = 0;
    let mut skipping = false;
    loop {
        let complete = buffer.is_eof();
        let window = buffer.window();
        if skipping {
            match find_sheet_data_end(&window[pos..]) {
                Some(end) => {
                    pos += end;
                    skipping = false;
                    scope.end();
                }
                None if complete => {
                    return Err(Error::xml(
                        "`</sheetData>` not found before the end of the part",
                    ));
                }
                None => {
                    // Keep a tail in case the end tag straddles the chunks.
                    let keep = window.len().saturating_sub(pos).min(END_TAIL);
                    buffer.consume(window.len() - keep);
                    pos = 0;
                    buffer.fill(&mut reader)?;
                }
            }
            continue;
        }
        let base = buffer.window_offset();
        let shifted = |err: xml::XmlError| err.into_error().shift_offset(base);
        match xml::next_token(window, pos, complete).map_err(shifted)? {
            Step::Token(token, next) => {
                match token {
                    Token::Start {
                        name,
                        attributes,
                        self_closing,
                    } => {
                        let read = scope
                            .start(window, name, attributes, pos)
                            .map_err(shifted)?;
                        if read && !self_closing && xml::local_name(name.of(window)) == b"sheetData"
                        {
                            skipping = true;
                        } else {
                            if read {
                                visit(window, token, scope.namespaces()).map_err(shifted)?;
                            }
                            if self_closing {
                                scope.end();
                            }
                        }
                    }
                    Token::End { .. } => {
                        if scope.end() {
                            visit(window, token, scope.namespaces()).map_err(shifted)?;
                        }
                    }
                    _ => {
                        if scope.reading() {
                            visit(window, token, scope.namespaces()).map_err(shifted)?;
                        }
                    }
                }
                pos = next;
            }
            Step::Incomplete => {
                buffer.consume(pos);
                pos = 0;
                buffer.fill_for_rescan(&mut reader)?;
            }
            Step::End => return Ok(()),
        }
    }
}

/// Bytes kept from one window to the next while looking for an end tag.
const END_TAIL: usize = 64;

/// Finds the end of the first `</sheetData>` (any prefix, spaces before
/// `>`) in `input`: the position just after it.
fn find_sheet_data_end(input: &[u8]) -> Option<usize> {
    let finder = memmem::Finder::new(b"sheetData");
    let mut from = 0;
    while let Some(found) = finder.find(&input[from..]) {
        let at = from + found;
        from = at + 1;
        if !is_end_tag_name(&input[..at]) {
            continue;
        }
        let mut end = at + b"sheetData".len();
        while input
            .get(end)
            .is_some_and(|byte| byte.is_ascii_whitespace())
        {
            end += 1;
        }
        if input.get(end) == Some(&b'>') {
            return Some(end + 1);
        }
    }
    None
}

/// Whether `before` ends with `</` or `</prefix:`.
fn is_end_tag_name(before: &[u8]) -> bool {
    if before.ends_with(b"</") {
        return true;
    }
    let Some(rest) = before.strip_suffix(b":") else {
        return false;
    };
    let prefix = rest
        .iter()
        .rev()
        .take_while(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.'))
        .count();
    prefix > 0 && rest[..rest.len() - prefix].ends_with(b"</")
}

/// Where the hidden row reader is in the part.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RowsAt {
    /// Before `<sheetData>`.
    Before,
    /// Inside `<sheetData>`, its element open at this depth, no row open.
    Data(usize),
    /// Inside a row, inside `<sheetData>` open at this depth, with this
    /// many elements open inside the row (cells and their content: only
    /// counted, since nothing in a row but its start tag is read).
    Row(usize, usize),
    /// After `</sheetData>`: the sheet has no more rows.
    After,
}

/// The hidden rows of a streamed sheet part: every tag is tokenised (the
/// row tags parsed), so that a row inside a foreign element (an
/// `mc:AlternateContent` choice, an extension's `<x14:row>`) is skipped
/// like the row reader skips it ([`ElementScope`]). Inside a row, tags are
/// only counted to find its end.
fn hidden_rows(mut reader: impl Read, limits: &Limits, chunk_size: usize) -> Result<Vec<u32>> {
    let mut buffer = ChunkBuffer::with_chunk_size(chunk_size, limits.max_row_bytes);
    let mut scope = ElementScope::new(Namespace::SpreadsheetMl);
    let mut at = RowsAt::Before;
    let mut hidden = Vec::new();
    let mut next_row: u32 = 0;
    loop {
        let complete = buffer.is_eof();
        let window = buffer.window();
        let base = buffer.window_offset();
        let shifted = |err: xml::XmlError| err.into_error().shift_offset(base);
        let mut pos = 0;
        loop {
            if let RowsAt::Row(data, inside) = at {
                match skip_row_content(window, pos, inside, complete).map_err(shifted)? {
                    Skipped::RowEnd(next) => {
                        scope.end();
                        at = RowsAt::Data(data);
                        pos = next;
                        continue;
                    }
                    Skipped::NeedMore(stopped, inside) => {
                        at = RowsAt::Row(data, inside);
                        pos = stopped;
                        break;
                    }
                }
            }
            match xml::next_token(window, pos, complete).map_err(shifted)? {
                Step::Token(
                    Token::Start {
                        name,
                        attributes,
                        self_closing,
                    },
                    next,
                ) => {
                    let read = scope
                        .start(window, name, attributes, pos)
                        .map_err(shifted)?;
                    let local = xml::local_name(name.of(window));
                    match at {
                        RowsAt::Before if read && local == b"sheetData" => {
                            at = if self_closing {
                                RowsAt::After
                            } else {
                                RowsAt::Data(scope.depth())
                            };
                        }
                        RowsAt::Data(data) if read && local == b"row" => {
                            let attribute = |wanted: &[u8]| {
                                xml::attribute_decoded(window, attributes, wanted).map_err(shifted)
                            };
                            let index = match attribute(b"r")? {
                                Some(raw) => {
                                    parse_row_number(raw.trim_ascii()).ok_or_else(|| {
                                        Error::new(crate::ErrorKind::CellReference(format!(
                                            "row number `{}`",
                                            String::from_utf8_lossy(&raw)
                                        )))
                                        .with_offset(base + pos as u64)
                                    })?
                                }
                                None => next_row,
                            };
                            if flag_attribute(window, attributes, b"hidden").map_err(shifted)? {
                                hidden.push(index);
                            }
                            next_row = index.saturating_add(1);
                            if !self_closing {
                                at = RowsAt::Row(data, 0);
                            }
                        }
                        _ => {}
                    }
                    if self_closing {
                        scope.end();
                    }
                    pos = next;
                }
                Step::Token(Token::End { .. }, next) => {
                    let depth = scope.depth();
                    scope.end();
                    if at == RowsAt::Data(depth) {
                        at = RowsAt::After;
                    }
                    pos = next;
                }
                Step::Token(_, next) => pos = next,
                Step::Incomplete | Step::End => break,
            }
        }
        if complete && at != RowsAt::After && at != RowsAt::Before {
            return Err(
                Error::xml("the part ends inside `<sheetData>`").with_offset(base + pos as u64)
            );
        }
        if complete || at == RowsAt::After {
            return Ok(hidden);
        }
        buffer.consume(pos);
        buffer.fill_for_rescan(&mut reader)?;
    }
}

/// Where [`skip_row_content`] stopped.
enum Skipped {
    /// After the row's end tag.
    RowEnd(usize),
    /// At a tag cut off by the window's end, this many elements open in
    /// the row.
    NeedMore(usize, usize),
}

/// Skips a row's content from `pos`, `inside` elements open in it, to just
/// after the row's end tag: tags are only told apart (start, self-closing,
/// end; comments, CDATA and processing instructions by the tokenizer),
/// not read, so that a sheet's hidden rows cost little more than a search.
fn skip_row_content(
    input: &[u8],
    mut pos: usize,
    mut inside: usize,
    complete: bool,
) -> Result<Skipped, xml::XmlError> {
    let cut = |pos: usize, inside: usize| {
        if complete {
            Err(xml::XmlError {
                message: "the part ends inside `<sheetData>`",
                offset: pos,
            })
        } else {
            Ok(Skipped::NeedMore(pos, inside))
        }
    };
    loop {
        // Distances inside a row are short: a word-at-a-time search.
        let Some(at) = find_byte(input, pos, b'<') else {
            return cut(input.len(), inside);
        };
        match input.get(at + 1) {
            None => return cut(at, inside),
            Some(b'/') => {
                let Some(close) = find_byte(input, at, b'>') else {
                    return cut(at, inside);
                };
                pos = close + 1;
                if inside == 0 {
                    return Ok(Skipped::RowEnd(pos));
                }
                inside -= 1;
            }
            Some(b'!' | b'?') => match xml::next_token(input, at, complete)? {
                Step::Token(_, next) => pos = next,
                Step::Incomplete | Step::End => return cut(at, inside),
            },
            Some(_) => {
                // The `>` that ends the tag is the first outside quotes.
                let mut quote = None;
                let close = input[at + 1..].iter().position(|&byte| match quote {
                    Some(open) => {
                        if byte == open {
                            quote = None;
                        }
                        false
                    }
                    None if byte == b'"' || byte == b'\'' => {
                        quote = Some(byte);
                        false
                    }
                    None => byte == b'>',
                });
                let Some(close) = close.map(|found| at + 1 + found) else {
                    return cut(at, inside);
                };
                if input[close - 1] != b'/' {
                    inside += 1;
                }
                pos = close + 1;
            }
        }
    }
}

/// Parses a comments part: the authors, then each comment's cell, author
/// and text (the `<t>` runs of its `<text>`, phonetic runs left out).
fn parse_comments(bytes: &[u8]) -> Result<Vec<Comment>, xml::XmlError> {
    let mut authors: Vec<String> = Vec::new();
    let mut comments = Vec::new();
    let mut author: Option<String> = None;
    let mut comment: Option<(CellRef, Option<usize>, String)> = None;
    let (mut in_t, mut phonetic) = (false, 0u32);
    xml::walk(bytes, Namespace::SpreadsheetMl, |token, _| {
        match token {
            Token::Start {
                name,
                attributes,
                self_closing,
            } => match xml::local_name(name.of(bytes)) {
                b"author" if !self_closing => author = Some(String::new()),
                b"author" => authors.push(String::new()),
                b"comment" => {
                    let cell = attribute_text(bytes, attributes, b"ref")?
                        .and_then(|text| text.parse::<CellRef>().ok());
                    let author_id: Option<usize> =
                        number_attribute(bytes, attributes, b"authorId")?;
                    match (cell, self_closing) {
                        (Some(cell), false) => comment = Some((cell, author_id, String::new())),
                        (Some(cell), true) => comments.push(Comment {
                            cell,
                            author: author_id.and_then(|id| authors.get(id).cloned()),
                            text: String::new(),
                        }),
                        (None, _) => {}
                    }
                }
                b"rPh" if !self_closing => phonetic += 1,
                b"t" if !self_closing => in_t = true,
                _ => {}
            },
            Token::End { name } => match xml::local_name(name.of(bytes)) {
                b"author" => authors.extend(author.take()),
                b"comment" => {
                    if let Some((cell, author_id, text)) = comment.take() {
                        comments.push(Comment {
                            cell,
                            author: author_id.and_then(|id| authors.get(id).cloned()),
                            text,
                        });
                    }
                }
                b"rPh" => phonetic = phonetic.saturating_sub(1),
                b"t" => in_t = false,
                _ => {}
            },
            token => {
                if let Some(text) = author.as_mut() {
                    push_text(bytes, token, false, text)?;
                } else if let Some((_, _, text)) = comment.as_mut()
                    && in_t
                    && phonetic == 0
                {
                    push_text(bytes, token, true, text)?;
                }
            }
        }
        Ok(())
    })?;
    Ok(comments)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_end_of_sheet_data() {
        assert_eq!(find_sheet_data_end(b"<row/></sheetData><x/>"), Some(18));
        assert_eq!(find_sheet_data_end(b"</x:sheetData >"), Some(15));
        assert_eq!(
            find_sheet_data_end(b"<t>sheetData></t></sheetData>"),
            Some(29)
        );
        assert_eq!(find_sheet_data_end(b"</sheetDataX>"), None);
        assert_eq!(find_sheet_data_end(b"</sheetData"), None);
    }

    fn read_in_chunks(xml: &str, chunk: usize) -> (SheetMetadata, Vec<u32>) {
        let limits = Limits::default();
        let mut metadata = SheetMetadata::default();
        stream_outside_sheet_data(xml.as_bytes(), &limits, chunk, |input, token, _| {
            if let Token::Start {
                name, attributes, ..
            } = token
                && xml::local_name(name.of(input)) == b"mergeCell"
            {
                let text = attribute_text(input, attributes, b"ref")?.unwrap();
                metadata.merged.push(text.parse().unwrap());
            }
            Ok(())
        })
        .unwrap();
        let hidden = hidden_rows(xml.as_bytes(), &limits, chunk).unwrap();
        (metadata, hidden)
    }

    #[test]
    fn skips_sheet_data_whatever_the_chunks() {
        let mut xml = String::from(
            "<worksheet xmlns:x=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" xmlns:f=\"urn:f\"><sheetData>",
        );
        for row in 1..=300 {
            let hidden = if row % 7 == 0 { " hidden=\"1\"" } else { "" };
            xml.push_str(&format!(
                "<row r=\"{row}\"{hidden}><c r=\"A{row}\"><v>{row}</v></c></row>"
            ));
        }
        // Inside a row, markup that looks like its end is not: CDATA, a
        // comment, a quoted `/>` or `>`, an end tag of a nested element.
        xml.push_str("<row r=\"301\"><c t=\"str\"><v><![CDATA[</row>]]></v></c><!-- </row> -->");
        xml.push_str("<c a=\"/>\" b='>'><v>1</v></c><c/><?pi </row>?></row><row hidden=\"1\"/>");
        // A foreign row (and the rows inside a foreign element) is no row.
        xml.push_str("<f:row hidden=\"1\"/><f:x><row hidden=\"1\"/></f:x>");
        xml.push_str("<x:row hidden=\"true\"/><row hidden=\"0\"/></sheetData>");
        xml.push_str("<mergeCells><mergeCell ref=\"A1:B2\"/><mergeCell ref=\"C3:D4\"/></mergeCells></worksheet>");
        let mut expected: Vec<u32> = (1..=300)
            .filter(|row| row % 7 == 0)
            .map(|row| row - 1)
            .collect();
        expected.extend([301, 302]);
        for chunk in [1, 7, 64, 4096, 1 << 20] {
            let (metadata, hidden) = read_in_chunks(&xml, chunk);
            assert_eq!(metadata.merged.len(), 2, "chunk {chunk}");
            assert_eq!(metadata.merged[1].to_string(), "C3:D4");
            assert_eq!(hidden, expected, "chunk {chunk}");
        }
    }

    #[test]
    fn hidden_rows_of_a_part_cut_inside_sheet_data_is_an_error() {
        let limits = Limits::default();
        for cut in [
            "<worksheet><sheetData><row r=\"1\" hidden=\"1\"><c><v>1</v>",
            "<worksheet><sheetData><row r=\"1\" hidden=\"1\"><c a=\"x>",
            "<worksheet><sheetData><row hidden=\"1\"/>",
        ] {
            for chunk in [1, 7, 4096] {
                let err = hidden_rows(cut.as_bytes(), &limits, chunk).unwrap_err();
                assert!(
                    err.to_string().contains("ends inside `<sheetData>`"),
                    "{cut} in chunks of {chunk}: {err}"
                );
            }
        }
        // No data to cut: a chart sheet has no rows.
        let chart = b"<chartsheet><drawing/></chartsheet>";
        assert_eq!(
            hidden_rows(&chart[..], &limits, 7).unwrap(),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn comments_join_runs_and_skip_phonetics() {
        let xml = br#"<comments><authors><author>Ann &amp; Bo</author><author>Cy</author></authors>
<commentList><comment ref="B2" authorId="1"><text><r><rPr><b/></rPr><t>Hello</t></r><r><t xml:space="preserve"> world_x0021_</t></r><rPh><t>x</t></rPh></text></comment>
<comment ref="A1" authorId="0"><text><t>plain</t></text></comment></commentList></comments>"#;
        let comments = parse_comments(xml).unwrap();
        assert_eq!(comments.len(), 2);
        assert_eq!(comments[0].cell.to_string(), "B2");
        assert_eq!(comments[0].author.as_deref(), Some("Cy"));
        assert_eq!(comments[0].text, "Hello world!");
        assert_eq!(comments[1].author.as_deref(), Some("Ann & Bo"));
        assert_eq!(comments[1].text, "plain");
    }
}
