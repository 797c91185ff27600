//! Finding the end of a `table:table` without reading its cells.
//!
//! Every sheet of an `.ods` lives in the one `content.xml`, one
//! `table:table` after another: reading sheet N passes over sheets 1 to
//! N-1, and the sheet list is read by passing over every sheet. Passing
//! over means finding the table's end tag, never tokenizing its rows: the
//! skim jumps from `<` to `<` (memchr) and looks only at the few markup
//! starts that can change where the table ends: a nested `table:table`
//! (a sub-table in a cell, or in a shape) opens a level, its end tag
//! closes one, and comments, CDATA sections and processing instructions
//! are passed over whole, since a `<table:table>` inside them is no tag.
//! A document type declaration is refused here as everywhere.
//!
//! The skim is resumable: [`Skim::run`] consumes what it has looked at and
//! asks for more input where a markup start is cut off by the end of the
//! window; its state (the nesting depth, and whether it is inside a
//! comment) carries over.

use memchr::{memchr, memmem};

use super::names::{Names, QName, same};
use crate::xml::{self, Step, Token, XmlError};

/// Where a skim stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkimStep {
    /// The table ended; the position just after its end tag.
    Ended(usize),
    /// The input ran out: everything before this position is passed over
    /// (the caller drops it and comes back with more).
    More(usize),
    /// A `table:named-expressions` start tag of the table itself (not of a
    /// nested table) at this position, when asked to stop there (the
    /// sheet list reads the sheet's own named ranges).
    NamedExpressions(usize),
}

/// Markup whose end the skim is still looking for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Nothing,
    Comment,
    CData,
    Instruction,
}

/// The state of a skim over one table.
#[derive(Debug, Clone)]
pub(crate) struct Skim {
    /// Tables open: the skipped one and those nested in it.
    depth: u32,
    open: Open,
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// The most bytes a markup start needs to be told apart: `<![CDATA[` and
/// `<!DOCTYPE` are nine.
const DECIDE: usize = 9;

impl Skim {
    /// A skim inside a table whose start tag was just read.
    pub(crate) fn new() -> Skim {
        Skim {
            depth: 1,
            open: Open::Nothing,
        }
    }

    /// Passes over `input` from `pos` until the table ends, the input runs
    /// out, or (with `stop_at_names`) the table's own named expressions
    /// start. `complete`: the input holds the rest of the part, so running
    /// out of it is an error (the part ends inside the table).
    pub(crate) fn run(
        &mut self,
        input: &[u8],
        mut pos: usize,
        complete: bool,
        names: &Names,
        stop_at_names: bool,
    ) -> Result<SkimStep, XmlError> {
        let table = &names.table;
        let named = &names.named_expressions;
        let cut = |at: usize| {
            if complete {
                Err(XmlError {
                    message: "the part ends inside a table (cut short?)",
                    offset: at,
                })
            } else {
                Ok(SkimStep::More(at))
            }
        };
        loop {
            // The end of markup opened in an earlier window.
            if self.open != Open::Nothing {
                let close: &[u8] = match self.open {
                    Open::Comment => b"-->",
                    Open::CData => b"]]>",
                    _ => b"?>",
                };
                match memmem::find(&input[pos.min(input.len())..], close) {
                    Some(found) => {
                        pos += found + close.len();
                        self.open = Open::Nothing;
                    }
                    // Keep the bytes that may start the terminator.
                    None => return cut(input.len().saturating_sub(close.len() - 1).max(pos)),
                }
            }
            let Some(found) = memchr(b'<', input.get(pos..).unwrap_or_default()) else {
                return cut(input.len());
            };
            let at = pos + found;
            let rest = &input[at..];
            match rest.get(1) {
                None => return cut(at),
                Some(b'!') => {
                    if rest.starts_with(b"<!--") {
                        self.open = Open::Comment;
                        pos = at + 4;
                    } else if rest.starts_with(b"<![CDATA[") {
                        self.open = Open::CData;
                        pos = at + 9;
                    } else if rest.len() < DECIDE {
                        return cut(at);
                    } else if rest[2..9].eq_ignore_ascii_case(b"DOCTYPE") {
                        return Err(XmlError {
                            message: "a document type declaration (DTD) is not allowed",
                            offset: at,
                        });
                    } else {
                        return Err(XmlError {
                            message: "unknown markup declaration `<!`",
                            offset: at,
                        });
                    }
                }
                Some(b'?') => {
                    self.open = Open::Instruction;
                    pos = at + 2;
                }
                Some(b'/') => match end_of_table_tag(input, at, table) {
                    None => return cut(at),
                    Some(None) => pos = at + 2,
                    Some(Some(name_end)) => {
                        let Some(close) = memchr(b'>', &input[name_end..]) else {
                            return cut(at);
                        };
                        let next = name_end + close + 1;
                        self.depth -= 1;
                        if self.depth == 0 {
                            return Ok(SkimStep::Ended(next));
                        }
                        pos = next;
                    }
                },
                Some(_) => {
                    match start_tag_named(input, at, table) {
                        None => return cut(at),
                        Some(true) => {
                            // Its end decides whether it opens a level.
                            match xml::next_token(input, at, complete)? {
                                Step::Token(
                                    Token::Start {
                                        self_closing: false,
                                        ..
                                    },
                                    next,
                                ) => {
                                    self.depth = self.depth.saturating_add(1);
                                    pos = next;
                                }
                                Step::Token(_, next) => pos = next,
                                Step::Incomplete | Step::End => return cut(at),
                            }
                            continue;
                        }
                        Some(false) => {}
                    }
                    if stop_at_names && self.depth == 1 {
                        match start_tag_named(input, at, named) {
                            None => return cut(at),
                            Some(true) => return Ok(SkimStep::NamedExpressions(at)),
                            Some(false) => {}
                        }
                    }
                    pos = at + 1;
                }
            }
        }
    }
}

/// Whether a start tag of `name` begins at `at` (`<` then the name, then
/// whitespace, `>` or `/`); None when the input is cut off before that is
/// known.
#[inline(always)]
fn start_tag_named(input: &[u8], at: usize, name: &QName) -> Option<bool> {
    // The byte after the name first: it tells a table's tag from its
    // rows' and cells' (`<table:table-row`) with one comparison.
    let spelled = name.as_bytes();
    if let Some(&after) = input.get(at + 1 + spelled.len())
        && !(after == b'>' || after == b'/' || is_space(after))
        && !name.has_second_spelling()
    {
        return Some(false);
    }
    let mut undecided = false;
    for spelled in name.spellings() {
        let end = at + 1 + spelled.len();
        match input.get(end) {
            Some(&after) => {
                if (after == b'>' || after == b'/' || is_space(after))
                    && same(&input[at + 1..end], spelled)
                {
                    return Some(true);
                }
            }
            // Cut off: undecided unless what is there differs.
            None => undecided |= spelled.starts_with(&input[at + 1..]),
        }
    }
    if undecided { None } else { Some(false) }
}

/// Whether an end tag of `name` begins at `at` (`</`, the name, then
/// whitespace or `>`): the position after the name; None when the input
/// is cut off before that is known.
#[inline(always)]
fn end_of_table_tag(input: &[u8], at: usize, name: &QName) -> Option<Option<usize>> {
    let spelled = name.as_bytes();
    if let Some(&after) = input.get(at + 2 + spelled.len())
        && !(after == b'>' || is_space(after))
        && !name.has_second_spelling()
    {
        return Some(None);
    }
    let mut undecided = false;
    for spelled in name.spellings() {
        let start = at + 2;
        let end = start + spelled.len();
        match input.get(end) {
            Some(&after) => {
                if (after == b'>' || is_space(after)) && same(&input[start..end], spelled) {
                    return Some(Some(end));
                }
            }
            None => undecided |= spelled.starts_with(&input[start.min(input.len())..]),
        }
    }
    if undecided { None } else { Some(None) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skims `xml` (after the table's start tag) fed in pieces of `chunk`
    /// bytes, as a reader would: returns where the table ended, in `xml`.
    fn skim_in_chunks(xml: &str, chunk: usize) -> Result<usize, XmlError> {
        let names = Names::default();
        let bytes = xml.as_bytes();
        let mut skim = Skim::new();
        let (mut start, mut end) = (0, 0);
        loop {
            end = (end + chunk).min(bytes.len());
            let complete = end == bytes.len();
            let step = skim
                .run(&bytes[start..end], 0, complete, &names, false)
                .map_err(|err| XmlError {
                    offset: start + err.offset,
                    ..err
                })?;
            match step {
                SkimStep::Ended(at) => return Ok(start + at),
                SkimStep::More(at) => start += at,
                SkimStep::NamedExpressions(_) => unreachable!(),
            }
        }
    }

    #[test]
    fn the_end_is_found_past_nested_tables_and_markup_holding_table_tags() {
        let xml = concat!(
            r#"<table:table-row><table:table-cell><table:table table:name="sub"><table:table-row/></table:table>"#,
            r#"</table:table-cell></table:table-row><!-- </table:table> --><![CDATA[</table:table>]]>"#,
            r#"<?pi </table:table> ?><table:table table:name="empty"/><table:table"#,
            "\n",
            r#"table:name="x"></table:table ><table:table-rows/></table:table>tail"#
        );
        let end = xml.find("tail").unwrap();
        for chunk in [1, 2, 3, 7, 13, 4096] {
            assert_eq!(skim_in_chunks(xml, chunk).unwrap(), end, "chunk {chunk}");
        }
    }

    #[test]
    fn a_table_without_its_end_and_a_dtd_are_errors() {
        for chunk in [1, 5, 4096] {
            let err = skim_in_chunks("<table:table-row></table:table-row>", chunk).unwrap_err();
            assert_eq!(err.message, "the part ends inside a table (cut short?)");
            let err = skim_in_chunks("<x/><!DOCTYPE x []></table:table>", chunk).unwrap_err();
            assert_eq!(err.offset, 4, "chunk {chunk}");
            let err = skim_in_chunks("<!-- never closed </table:table>", chunk).unwrap_err();
            assert!(err.message.contains("ends inside a table"), "{err:?}");
        }
    }

    #[test]
    fn the_tables_own_named_expressions_stop_the_skim_when_asked() {
        let names = Names::default();
        let xml = br#"<table:table-row/><table:table table:name="n"><table:named-expressions/></table:table><table:named-expressions/></table:table>"#;
        let mut skim = Skim::new();
        let step = skim.run(xml, 0, true, &names, true).unwrap();
        let text = std::str::from_utf8(xml).unwrap();
        let own = text
            .match_indices("<table:named-expressions")
            .nth(1)
            .unwrap()
            .0;
        assert_eq!(step, SkimStep::NamedExpressions(own));
    }
}
