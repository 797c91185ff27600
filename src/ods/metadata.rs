//! What an `.ods` sheet says besides its values: merged ranges (the
//! spans of its cells), hidden rows and columns, comments (annotations)
//! and hyperlinks, as the neutral [`SheetMetadata`] has them; and the
//! workbook's named ranges and expressions as [`DefinedName`]s.
//!
//! A sheet's metadata is spread over its cells, so [`read_sheet_metadata`]
//! tokenizes its table (the tables before it are skimmed): columns from
//! the column records, hidden rows from `table:visibility` with their
//! repeats (within the grid), merged ranges from
//! `table:number-columns-spanned` and `table:number-rows-spanned`,
//! comments from `office:annotation` (`dc:creator` and the paragraphs),
//! hyperlinks from the `text:a` in a cell's paragraphs. Repeats count as
//! they do for values; a merge or a comment on a repeated cell or row is
//! taken once, at its first repetition (LibreOffice and Excel do the
//! same with merges). [`read_sheet_head`] stops at the first row: the
//! hidden columns only.

use std::ops::RangeInclusive;

use super::catalog::NamedEntry;
use super::names::Names;
use super::scan::{is_hidden_visibility, parse_count};
use super::skim::Skim;
use super::stream::TokenStream;
use crate::cell::{CellRef, MAX_COLUMN, MAX_ROW};
use crate::contract::PartSource;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::metadata::{Comment, DefinedName, Hyperlink, SheetMetadata};
use crate::range::CellRange;
use crate::xml::{self, Attributes, Span, Token};

/// The deepest elements nest.
const MAX_DEPTH: usize = 256;

/// How far to read a sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Up to its first row: the column records.
    Head,
    /// All of it.
    Whole,
}

/// The defined names: the workbook's and each sheet's named ranges and
/// expressions, as written.
pub(crate) fn defined_names(named: &[NamedEntry]) -> Vec<DefinedName> {
    named
        .iter()
        .map(|entry| DefinedName {
            name: entry.name.clone(),
            refers_to: entry.refers_to.clone(),
            sheet: entry.sheet,
            hidden: false,
        })
        .collect()
}

/// The metadata of the table at `table` and its hidden rows.
pub(crate) fn read_sheet_metadata(
    source: PartSource<'_>,
    table: usize,
    limits: &Limits,
) -> Result<(SheetMetadata, Vec<u32>)> {
    read(source, table, limits, Reach::Whole)
}

/// The hidden columns of the table at `table`, read up to its first row.
pub(crate) fn read_sheet_head(
    source: PartSource<'_>,
    table: usize,
    limits: &Limits,
) -> Result<SheetMetadata> {
    read(source, table, limits, Reach::Head).map(|(metadata, _)| metadata)
}

/// Adds `first..first + count` (clipped to `max`) to sorted, merged ranges.
fn add_range(ranges: &mut Vec<RangeInclusive<u32>>, first: u64, count: u64, max: u32) {
    if first > u64::from(max) {
        return;
    }
    let last = first.saturating_add(count - 1).min(u64::from(max)) as u32;
    let first = first as u32;
    match ranges.last_mut() {
        Some(previous) if previous.end().saturating_add(1) == first => {
            *previous = *previous.start()..=last;
        }
        _ => ranges.push(first..=last),
    }
}

/// A cell's range, clipped to the grid; None when it starts past it.
fn cell_range(row: u64, column: u64, rows: u64, columns: u64) -> Option<CellRange> {
    if row > u64::from(MAX_ROW) || column > u64::from(MAX_COLUMN) {
        return None;
    }
    let last_row = row.saturating_add(rows - 1).min(u64::from(MAX_ROW)) as u32;
    let last_column = column
        .saturating_add(columns - 1)
        .min(u64::from(MAX_COLUMN)) as u32;
    Some(CellRange {
        first: CellRef {
            row: row as u32,
            column: column as u32,
        },
        last: CellRef {
            row: last_row,
            column: last_column,
        },
    })
}

/// What is being read inside a cell: the depths (below the cell) of the
/// open annotation, its author and paragraph, and link.
#[derive(Debug, Default)]
struct CellReading {
    annotation: Option<usize>,
    creator: Option<usize>,
    paragraph: Option<usize>,
    link: Option<usize>,
    commented: bool,
    author: String,
    comment: String,
    comment_paragraphs: u32,
    link_target: String,
    link_text: String,
    links: Vec<(String, String)>,
}

impl CellReading {
    /// Where text goes now, if anywhere.
    fn sink(&mut self) -> Option<&mut String> {
        if self.annotation.is_some() {
            if self.creator.is_some() {
                Some(&mut self.author)
            } else if self.paragraph.is_some() {
                Some(&mut self.comment)
            } else {
                None
            }
        } else if self.link.is_some() {
            Some(&mut self.link_text)
        } else {
            None
        }
    }

    /// An element starts `depth` levels below the cell.
    fn start(
        &mut self,
        names: &Names,
        input: &[u8],
        qname: &[u8],
        attributes: Span,
        self_closing: bool,
        depth: usize,
    ) -> Result<()> {
        let open = |slot: &mut Option<usize>| {
            if !self_closing {
                *slot = Some(depth);
            }
        };
        if names.text_s.is(qname) {
            let mut count = 1;
            for attribute in Attributes::new(input, attributes) {
                let (key, value) = attribute.map_err(|err| err.into_error())?;
                if names.a_text_c.is(key) {
                    count = parse_count(value.of(input), "text:c", 0)?.min(1 << 16);
                }
            }
            if let Some(sink) = self.sink() {
                sink.extend(std::iter::repeat_n(' ', count as usize));
            }
        } else if names.text_tab.is(qname) {
            if let Some(sink) = self.sink() {
                sink.push('\t');
            }
        } else if names.text_line_break.is(qname) {
            if let Some(sink) = self.sink() {
                sink.push('\n');
            }
        } else if self.annotation.is_some() {
            if names.dc_creator.is(qname) {
                open(&mut self.creator);
            } else if self.paragraph.is_none() && (names.text_p.is(qname) || names.text_h.is(qname))
            {
                if self.comment_paragraphs > 0 {
                    self.comment.push('\n');
                }
                self.comment_paragraphs += 1;
                open(&mut self.paragraph);
            }
        } else if names.annotation.is(qname) {
            self.commented = true;
            open(&mut self.annotation);
        } else if self.link.is_none() && names.text_a.is(qname) {
            let mut target = String::new();
            for attribute in Attributes::new(input, attributes) {
                let (key, value) = attribute.map_err(|err| err.into_error())?;
                if names.a_href.is(key) {
                    target = decoded(input, value)?;
                }
            }
            if self_closing {
                self.links.push((target, String::new()));
            } else {
                self.link_target = target;
                self.link_text.clear();
                self.link = Some(depth);
            }
        }
        Ok(())
    }

    /// The element `depth` levels below the cell ends.
    fn end(&mut self, depth: usize) {
        if self.creator == Some(depth) {
            self.creator = None;
        }
        if self.paragraph == Some(depth) {
            self.paragraph = None;
        }
        if self.annotation == Some(depth) {
            self.annotation = None;
            self.paragraph = None;
            self.creator = None;
        }
        if self.link == Some(depth) {
            self.link = None;
            let target = std::mem::take(&mut self.link_target);
            let text = std::mem::take(&mut self.link_text);
            self.links.push((target, text));
        }
    }

    /// The comment and links found, for the cell at `row`, `column`.
    fn finish(self, row: u64, column: u64, metadata: &mut SheetMetadata) {
        let Some(range) = cell_range(row, column, 1, 1) else {
            return;
        };
        if self.commented {
            metadata.comments.push(Comment {
                cell: range.first,
                author: (!self.author.is_empty()).then_some(self.author),
                text: self.comment,
            });
        }
        for (target, text) in self.links {
            let (target, location) = match target.strip_prefix('#') {
                Some(place) => (None, Some(place.to_owned())),
                None => (Some(target), None),
            };
            metadata.hyperlinks.push(Hyperlink {
                range,
                target,
                location,
                display: (!text.is_empty()).then_some(text),
                tooltip: None,
            });
        }
    }
}

fn decoded(input: &[u8], span: Span) -> Result<String> {
    xml::decode_owned(span.of(input), false).map_err(|err| err.into_error())
}

/// A cell being read: its depth, position and what is found in it.
struct OpenCell {
    depth: usize,
    row: u64,
    column: u64,
    reading: CellReading,
}

fn read(
    source: PartSource<'_>,
    table: usize,
    limits: &Limits,
    reach: Reach,
) -> Result<(SheetMetadata, Vec<u32>)> {
    let mut stream = TokenStream::new(source, limits);
    let mut names = Names::default();
    let mut metadata = SheetMetadata::default();
    let mut hidden_rows = Vec::new();
    // The open elements' names, one after another.
    let mut open_names: Vec<u8> = Vec::new();
    let mut name_ends: Vec<usize> = Vec::new();
    let mut tables = 0;
    // The depths of the table and of the row being read (with its repeat).
    let mut in_table: Option<usize> = None;
    let mut row: Option<(usize, u64)> = None;
    let mut cell: Option<OpenCell> = None;
    let (mut next_row, mut next_column, mut next_column_record) = (0u64, 0u64, 0u64);
    while let Some(token) = stream.next_token()? {
        let offset = stream.offset();
        let located = |err: Error| err.with_offset(offset);
        let input = stream.input();
        match token {
            Token::Start {
                name,
                attributes,
                self_closing,
            } => {
                let qname = name.of(input);
                let depth = name_ends.len();
                let parent = depth.checked_sub(1).map(|up| {
                    &open_names[up.checked_sub(1).map_or(0, |p| name_ends[p])..name_ends[up]]
                });
                if depth == 0 {
                    names = Names::from_root(input, attributes)
                        .map_err(|err| err.into_error().shift_offset(offset))?;
                } else if in_table.is_none() {
                    if names.table.is(qname) && parent.is_some_and(|p| names.spreadsheet.is(p)) {
                        if tables != table {
                            tables += 1;
                            if !self_closing {
                                let mut skim = Skim::new();
                                stream.skim_table(&mut skim, &names, false)?;
                            }
                            continue;
                        }
                        if self_closing {
                            break;
                        }
                        in_table = Some(depth);
                    }
                } else if let Some(open) = cell.as_mut() {
                    open.reading
                        .start(
                            &names,
                            input,
                            qname,
                            attributes,
                            self_closing,
                            depth - open.depth,
                        )
                        .map_err(located)?;
                } else if let Some((row_depth, _)) = row {
                    if depth == row_depth + 1
                        && (names.table_cell.is(qname) || names.covered_cell.is(qname))
                    {
                        let (mut repeat, mut rows, mut columns) = (1, 1, 1);
                        for attribute in Attributes::new(input, attributes) {
                            let (key, value) =
                                attribute.map_err(|err| located(err.into_error()))?;
                            let count =
                                |what| parse_count(value.of(input), what, 0).map_err(located);
                            if names.a_columns_repeated.is(key) {
                                repeat = count("number-columns-repeated")?;
                            } else if names.a_columns_spanned.is(key) {
                                columns = count("number-columns-spanned")?;
                            } else if names.a_rows_spanned.is(key) {
                                rows = count("number-rows-spanned")?;
                            }
                        }
                        if (rows, columns) != (1, 1)
                            && let Some(range) = cell_range(next_row, next_column, rows, columns)
                        {
                            metadata.merged.push(range);
                        }
                        if !self_closing {
                            cell = Some(OpenCell {
                                depth,
                                row: next_row,
                                column: next_column,
                                reading: CellReading::default(),
                            });
                        }
                        next_column = next_column.saturating_add(repeat);
                    }
                } else if names.table_row.is(qname) {
                    if reach == Reach::Head {
                        break;
                    }
                    let (mut repeat, mut hidden) = (1, false);
                    for attribute in Attributes::new(input, attributes) {
                        let (key, value) = attribute.map_err(|err| located(err.into_error()))?;
                        if names.a_rows_repeated.is(key) {
                            repeat = parse_count(value.of(input), "number-rows-repeated", 0)
                                .map_err(located)?;
                        } else if names.a_visibility.is(key) {
                            hidden = is_hidden_visibility(value.of(input));
                        }
                    }
                    if hidden && next_row <= u64::from(MAX_ROW) {
                        let last = next_row.saturating_add(repeat - 1).min(u64::from(MAX_ROW));
                        hidden_rows.extend(next_row as u32..=last as u32);
                    }
                    next_column = 0;
                    if self_closing {
                        next_row = next_row.saturating_add(repeat);
                    } else {
                        row = Some((depth, repeat));
                    }
                } else if names.table_column.is(qname) {
                    let (mut repeat, mut hidden) = (1, false);
                    for attribute in Attributes::new(input, attributes) {
                        let (key, value) = attribute.map_err(|err| located(err.into_error()))?;
                        if names.a_columns_repeated.is(key) {
                            repeat = parse_count(value.of(input), "number-columns-repeated", 0)
                                .map_err(located)?;
                        } else if names.a_visibility.is(key) {
                            hidden = is_hidden_visibility(value.of(input));
                        }
                    }
                    if hidden {
                        add_range(
                            &mut metadata.hidden_columns,
                            next_column_record,
                            repeat,
                            MAX_COLUMN,
                        );
                    }
                    next_column_record = next_column_record.saturating_add(repeat);
                }
                if !self_closing {
                    if name_ends.len() >= MAX_DEPTH {
                        return Err(located(Error::xml("elements nested more than 256 deep")));
                    }
                    open_names.extend_from_slice(qname);
                    name_ends.push(open_names.len());
                }
            }
            Token::End { name } => {
                let Some(end) = name_ends.pop() else {
                    return Err(located(Error::xml("an end tag with no element open")));
                };
                let start = name_ends.last().copied().unwrap_or(0);
                if &open_names[start..end] != name.of(input) {
                    return Err(located(Error::xml(
                        "an end tag does not close the element open here",
                    )));
                }
                open_names.truncate(start);
                let depth = name_ends.len();
                if let Some(open) = cell.as_mut() {
                    if depth == open.depth {
                        if let Some(done) = cell.take() {
                            done.reading.finish(done.row, done.column, &mut metadata);
                        }
                    } else {
                        open.reading.end(depth - open.depth);
                    }
                } else if let Some((row_depth, repeat)) = row
                    && depth == row_depth
                {
                    next_row = next_row.saturating_add(repeat);
                    row = None;
                } else if in_table == Some(depth) {
                    return Ok((metadata, hidden_rows));
                }
            }
            Token::Text(span) | Token::CData(span) => {
                if let Some(open) = cell.as_mut()
                    && let Some(sink) = open.reading.sink()
                {
                    let raw = std::str::from_utf8(span.of(input))
                        .map_err(|_| located(Error::new(crate::error::ErrorKind::InvalidUtf8)))?;
                    let cdata = matches!(token, Token::CData(_));
                    xml::decode_text(raw, !cdata, sink)
                        .map_err(|message| located(Error::xml(message)))?;
                }
            }
            Token::Skip => {}
        }
    }
    if in_table.is_some() && reach == Reach::Whole {
        return Err(
            Error::xml("the part ends inside the table (cut short?)").with_offset(stream.offset())
        );
    }
    Ok((metadata, hidden_rows))
}
