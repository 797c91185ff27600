//! What an OpenDocument spreadsheet says besides its cells, read in one
//! pass at open: the sheet list, the cell and data styles, which table
//! styles hide their sheet, the null date, and the named ranges and
//! expressions.
//!
//! The pass walks the document's structure token by token ([`TokenStream`])
//! and skims every table (`skim.rs`): a table's start tag gives the
//! sheet's name and style, and its end is found without tokenizing its
//! rows; only the table's own `table:named-expressions` (its local names,
//! after its rows) stop the skim to be read. `styles.xml` goes through the
//! same pass for its common styles; a flat ODS document holds everything
//! in one.

use std::collections::HashSet;

use super::names::{Names, Ns};
use super::skim::Skim;
use super::stream::{SkimEnd, TokenStream};
use super::styles::{CellStyle, DataKind, DataStyle, Part};
use crate::contract::PartSource;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::xml::{self, Attributes, Span, Token, local_name};

/// Which document a pass reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Document {
    /// `content.xml` of a package: `office:document-content`.
    Content,
    /// `styles.xml` of a package: `office:document-styles`.
    Styles,
    /// A flat ODS file: `office:document`, everything in one.
    Flat,
}

/// A table as the sheet list has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableEntry {
    pub name: String,
    pub style: Option<String>,
    /// The offsets of its start tag and of the end of its end tag in the
    /// part: its size, for scheduling.
    pub start: u64,
    pub end: u64,
}

/// A named range or expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NamedEntry {
    pub name: String,
    /// `table:cell-range-address` of a range, `table:expression` of an
    /// expression, as written.
    pub refers_to: String,
    /// The table it is local to.
    pub sheet: Option<usize>,
}

/// What one pass read.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    pub tables: Vec<TableEntry>,
    pub cell_styles: Vec<CellStyle>,
    pub data_styles: Vec<DataStyle>,
    /// Table styles that say `table:display="false"`.
    pub hidden_table_styles: HashSet<String>,
    /// `table:null-date table:date-value`.
    pub null_date: Option<String>,
    pub named: Vec<NamedEntry>,
    /// The root's `office:mimetype` (a flat document says what it is there).
    pub mimetype: Option<String>,
    /// The name of the table style being read.
    table_style_reading: Option<String>,
}

/// An element open during the pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Root,
    /// `office:styles`, `office:automatic-styles`.
    StyleList,
    /// A `style:style` of family `table`, at this index of the hidden
    /// styles' candidates.
    TableStyle,
    /// A data style being read (the last of `data_styles`).
    DataStyle,
    /// `number:text` or `number:currency-symbol` in a data style: its
    /// text is a literal part.
    DataText,
    Body,
    Spreadsheet,
    CalculationSettings,
    /// `table:named-expressions`, of the table at this position or (None)
    /// of the workbook.
    Named(Option<usize>),
    Other,
}

/// The deepest the pass follows elements.
const MAX_DEPTH: usize = 256;

/// A decoded attribute value.
fn decoded(input: &[u8], value: Span) -> Result<String> {
    xml::decode_owned(value.of(input), false).map_err(|err| err.into_error())
}

/// A small count attribute (digits), clamped.
fn count(input: &[u8], value: Span) -> u32 {
    let raw = value.of(input).trim_ascii();
    if raw.is_empty() || !raw.iter().all(u8::is_ascii_digit) {
        return 0;
    }
    raw.iter().fold(0u32, |count, &digit| {
        count
            .saturating_mul(10)
            .saturating_add(u32::from(digit - b'0'))
    })
}

fn is_true(input: &[u8], value: Span) -> bool {
    value.of(input).trim_ascii() == b"true"
}

/// One pass over a document; see the module docs.
pub(crate) fn read_catalog(
    source: PartSource<'_>,
    limits: &Limits,
    document: Document,
) -> Result<(Catalog, Names)> {
    catalog_of(TokenStream::new(source, limits), document)
}

/// [`read_catalog`] through a window of `chunk_size` bytes.
#[cfg(test)]
pub(crate) fn read_catalog_chunked(
    source: PartSource<'_>,
    limits: &Limits,
    document: Document,
    chunk_size: usize,
) -> Result<(Catalog, Names)> {
    catalog_of(
        TokenStream::new(source, limits).with_chunk_size(chunk_size, limits),
        document,
    )
}

fn catalog_of(mut stream: TokenStream<'_>, document: Document) -> Result<(Catalog, Names)> {
    let mut names = Names::default();
    let mut catalog = Catalog::default();
    let mut frames: Vec<Frame> = Vec::new();
    let mut open_names: Vec<u8> = Vec::new();
    let mut name_ends: Vec<usize> = Vec::new();
    let mut root_seen = false;
    // Text of the literal being read.
    let mut literal = String::new();
    while let Some(token) = stream.next_token()? {
        let input = stream.input();
        let offset = stream.offset();
        match token {
            Token::Start {
                name,
                attributes,
                self_closing,
            } => {
                let qname = name.of(input);
                let frame = match frames.last().copied() {
                    None => {
                        if root_seen {
                            return Err(Error::xml("a second root element").with_offset(offset));
                        }
                        root_seen = true;
                        names = Names::from_root(input, attributes)
                            .map_err(|err| err.into_error().shift_offset(offset))?;
                        let expected = match document {
                            Document::Content => &names.document_content,
                            Document::Styles => &names.document_styles,
                            Document::Flat => &names.document,
                        };
                        if !expected.is(qname) {
                            return Err(Error::package(format!(
                                "the root element is `{}`, not {}",
                                String::from_utf8_lossy(qname),
                                String::from_utf8_lossy(expected.as_bytes())
                            ))
                            .with_offset(offset));
                        }
                        for attribute in Attributes::new(input, attributes) {
                            let (key, value) = attribute.map_err(|err| err.into_error())?;
                            if names.a_office_mimetype.is(key) {
                                catalog.mimetype = Some(decoded(input, value)?);
                            }
                        }
                        Frame::Root
                    }
                    Some(Frame::Root) => {
                        if names.styles.is(qname) || names.automatic_styles.is(qname) {
                            Frame::StyleList
                        } else if names.body.is(qname) {
                            Frame::Body
                        } else {
                            Frame::Other
                        }
                    }
                    Some(Frame::StyleList) => {
                        style_element(&names, input, qname, attributes, &mut catalog)?
                    }
                    Some(Frame::TableStyle) => {
                        if names.table_properties.is(qname) {
                            for attribute in Attributes::new(input, attributes) {
                                let (key, value) = attribute.map_err(|err| err.into_error())?;
                                if names.a_display.is(key)
                                    && value.of(input).trim_ascii() == b"false"
                                    && let Some(style) = catalog.table_style_reading.clone()
                                {
                                    catalog.hidden_table_styles.insert(style);
                                }
                            }
                        }
                        Frame::Other
                    }
                    Some(Frame::DataStyle) => {
                        data_style_part(&names, input, qname, attributes, &mut catalog)?
                    }
                    Some(Frame::Body) => {
                        if names.spreadsheet.is(qname) {
                            Frame::Spreadsheet
                        } else if names.in_namespace(qname, Ns::Office)
                            && matches!(
                                local_name(qname),
                                b"text" | b"drawing" | b"presentation" | b"chart" | b"image"
                            )
                        {
                            return Err(Error::package(format!(
                                "it is an OpenDocument {} document ({}), not a spreadsheet",
                                String::from_utf8_lossy(local_name(qname)),
                                String::from_utf8_lossy(qname)
                            ))
                            .with_offset(offset));
                        } else {
                            Frame::Other
                        }
                    }
                    Some(Frame::Spreadsheet) => {
                        if names.table.is(qname) {
                            let mut entry = TableEntry {
                                name: String::new(),
                                style: None,
                                start: offset,
                                end: offset,
                            };
                            for attribute in Attributes::new(input, attributes) {
                                let (key, value) = attribute.map_err(|err| err.into_error())?;
                                if names.a_name.is(key) {
                                    entry.name = decoded(input, value)?;
                                } else if names.a_style_name.is(key) {
                                    entry.style = Some(decoded(input, value)?);
                                }
                            }
                            let position = catalog.tables.len();
                            if !self_closing {
                                let mut skim = Skim::new();
                                while stream.skim_table(&mut skim, &names, true)?
                                    == SkimEnd::NamedExpressions
                                {
                                    read_named(&mut stream, &names, Some(position), &mut catalog)?;
                                }
                            }
                            entry.end = stream.offset();
                            catalog.tables.push(entry);
                            continue;
                        } else if names.calculation_settings.is(qname) {
                            Frame::CalculationSettings
                        } else if names.named_expressions.is(qname) {
                            Frame::Named(None)
                        } else {
                            Frame::Other
                        }
                    }
                    Some(Frame::CalculationSettings) => {
                        if names.null_date.is(qname) {
                            for attribute in Attributes::new(input, attributes) {
                                let (key, value) = attribute.map_err(|err| err.into_error())?;
                                if names.a_date_value_table.is(key) {
                                    catalog.null_date = Some(decoded(input, value)?);
                                }
                            }
                        }
                        Frame::Other
                    }
                    Some(Frame::Named(sheet)) => {
                        named_entry(&names, input, qname, attributes, sheet, &mut catalog)?;
                        Frame::Other
                    }
                    Some(Frame::DataText | Frame::Other) => Frame::Other,
                };
                if frame == Frame::DataText {
                    literal.clear();
                }
                if self_closing {
                    if frame == Frame::DataText {
                        push_literal(&mut catalog, &literal);
                    }
                } else {
                    if frames.len() >= MAX_DEPTH {
                        return Err(
                            Error::xml("elements nested more than 256 deep").with_offset(offset)
                        );
                    }
                    frames.push(frame);
                    open_names.extend_from_slice(qname);
                    name_ends.push(open_names.len());
                }
            }
            Token::End { name } => {
                let Some(frame) = frames.pop() else {
                    return Err(Error::xml("an end tag with no element open").with_offset(offset));
                };
                let end = name_ends.pop().unwrap_or(0);
                let start = name_ends.last().copied().unwrap_or(0);
                if open_names.get(start..end) != Some(name.of(input)) {
                    return Err(
                        Error::xml("an end tag does not close the element open here")
                            .with_offset(offset),
                    );
                }
                if frame == Frame::DataText {
                    push_literal(&mut catalog, &literal);
                }
                open_names.truncate(start);
            }
            Token::Text(span) if frames.last() == Some(&Frame::DataText) => {
                let raw = std::str::from_utf8(span.of(input)).map_err(|_| {
                    Error::new(crate::error::ErrorKind::InvalidUtf8).with_offset(offset)
                })?;
                xml::decode_text(raw, true, &mut literal)
                    .map_err(|message| Error::xml(message).with_offset(offset))?;
            }
            Token::CData(span) if frames.last() == Some(&Frame::DataText) => {
                literal.push_str(&String::from_utf8_lossy(span.of(input)));
            }
            _ => {}
        }
    }
    if !frames.is_empty() {
        return Err(
            Error::xml("the part ends inside an element (cut short?)").with_offset(stream.offset())
        );
    }
    if !root_seen {
        return Err(Error::xml("the part has no root element").with_offset(stream.offset()));
    }
    stream.drain()?;
    Ok((catalog, names))
}

/// A child of `office:styles` or `office:automatic-styles`.
fn style_element(
    names: &Names,
    input: &[u8],
    qname: &[u8],
    attributes: Span,
    catalog: &mut Catalog,
) -> Result<Frame> {
    if names.style.is(qname) {
        let (mut name, mut family, mut parent, mut data_style) = (None, None, None, None);
        for attribute in Attributes::new(input, attributes) {
            let (key, value) = attribute.map_err(|err| err.into_error())?;
            if names.a_style_name_style.is(key) {
                name = Some(decoded(input, value)?);
            } else if names.a_family.is(key) {
                family = Some(value.of(input).trim_ascii().to_vec());
            } else if names.a_parent_style_name.is(key) {
                parent = Some(decoded(input, value)?);
            } else if names.a_data_style_name.is(key) {
                data_style = Some(decoded(input, value)?);
            }
        }
        let Some(name) = name else {
            return Ok(Frame::Other);
        };
        return Ok(match family.as_deref() {
            Some(b"table-cell") => {
                catalog.cell_styles.push(CellStyle {
                    name,
                    parent,
                    data_style,
                });
                Frame::Other
            }
            Some(b"table") => {
                catalog.table_style_reading = Some(name);
                Frame::TableStyle
            }
            _ => Frame::Other,
        });
    }
    if !names.in_namespace(qname, Ns::Number) {
        return Ok(Frame::Other);
    }
    let kind = match local_name(qname) {
        b"number-style" => DataKind::Number,
        b"percentage-style" => DataKind::Percentage,
        b"currency-style" => DataKind::Currency,
        b"date-style" => DataKind::Date,
        b"time-style" => DataKind::Time,
        b"boolean-style" => DataKind::Boolean,
        b"text-style" => DataKind::Text,
        _ => return Ok(Frame::Other),
    };
    let mut style = DataStyle {
        kind,
        ..DataStyle::default()
    };
    for attribute in Attributes::new(input, attributes) {
        let (key, value) = attribute.map_err(|err| err.into_error())?;
        if names.a_style_name_style.is(key) {
            style.name = decoded(input, value)?;
        } else if local_name(key) == b"truncate-on-overflow" {
            style.elapsed = value.of(input).trim_ascii() == b"false";
        }
    }
    catalog.data_styles.push(style);
    Ok(Frame::DataStyle)
}

/// A child of a data style: a part, a condition, the text colour.
fn data_style_part(
    names: &Names,
    input: &[u8],
    qname: &[u8],
    attributes: Span,
    catalog: &mut Catalog,
) -> Result<Frame> {
    let Some(style) = catalog.data_styles.last_mut() else {
        return Ok(Frame::Other);
    };
    if names.map.is(qname) {
        let (mut test, mut apply) = (None, None);
        for attribute in Attributes::new(input, attributes) {
            let (key, value) = attribute.map_err(|err| err.into_error())?;
            match local_name(key) {
                b"condition" => test = Some(decoded(input, value)?),
                b"apply-style-name" => apply = Some(decoded(input, value)?),
                _ => {}
            }
        }
        if let (Some(test), Some(apply)) = (test, apply) {
            style.maps.push((test, apply));
        }
        return Ok(Frame::Other);
    }
    if names.text_properties.is(qname) {
        for attribute in Attributes::new(input, attributes) {
            let (key, value) = attribute.map_err(|err| err.into_error())?;
            if names.in_namespace(key, Ns::Fo) && local_name(key) == b"color" {
                style.red = value
                    .of(input)
                    .trim_ascii()
                    .eq_ignore_ascii_case(b"#ff0000");
            }
        }
        return Ok(Frame::Other);
    }
    if !names.in_namespace(qname, Ns::Number) {
        return Ok(Frame::Other);
    }
    // Attributes, by local name (LibreOffice writes some of them in its
    // own namespace, `loext:min-decimal-places`).
    let (mut decimals, mut min_decimals, mut min_integers) = (None, None, 0);
    let (mut grouping, mut factor, mut min_exponent) = (false, 0, 2);
    let (mut min_numerator, mut min_denominator, mut denominator) = (1, 1, None);
    let (mut long, mut textual) = (false, false);
    for attribute in Attributes::new(input, attributes) {
        let (key, value) = attribute.map_err(|err| err.into_error())?;
        match local_name(key) {
            b"decimal-places" => decimals = Some(count(input, value)),
            b"min-decimal-places" => min_decimals = Some(count(input, value)),
            b"min-integer-digits" => min_integers = count(input, value),
            b"grouping" => grouping = is_true(input, value),
            b"display-factor" => {
                let raw = value.of(input).trim_ascii();
                factor = match raw {
                    b"1000" => 1,
                    b"1000000" => 2,
                    b"1000000000" => 3,
                    _ => 0,
                };
            }
            b"min-exponent-digits" => min_exponent = count(input, value),
            b"min-numerator-digits" => min_numerator = count(input, value),
            b"min-denominator-digits" => min_denominator = count(input, value),
            b"denominator-value" => denominator = Some(count(input, value)),
            b"style" => long = value.of(input).trim_ascii() == b"long",
            b"textual" => textual = is_true(input, value),
            _ => {}
        }
    }
    let part = match local_name(qname) {
        b"number" => Part::Number {
            decimals,
            min_decimals,
            min_integers,
            grouping,
            factor_thousands: factor,
        },
        b"scientific-number" => Part::Scientific {
            decimals: decimals.unwrap_or(0),
            min_integers,
            min_exponent,
        },
        b"fraction" => Part::Fraction {
            min_integers,
            min_numerator,
            min_denominator,
            denominator,
        },
        b"text" | b"currency-symbol" => return Ok(Frame::DataText),
        b"text-content" => Part::TextContent,
        b"year" => Part::Year { long },
        b"month" => Part::Month { long, textual },
        b"day" => Part::Day { long },
        b"day-of-week" => Part::DayOfWeek { long },
        b"hours" => Part::Hours { long },
        b"minutes" => Part::Minutes { long },
        b"seconds" => Part::Seconds {
            long,
            decimals: decimals.unwrap_or(0),
        },
        b"am-pm" => Part::AmPm,
        _ => return Ok(Frame::Other),
    };
    style.parts.push(part);
    Ok(Frame::Other)
}

/// The literal a `number:text` or `number:currency-symbol` ended with.
fn push_literal(catalog: &mut Catalog, text: &str) {
    if let Some(style) = catalog.data_styles.last_mut() {
        style.parts.push(Part::Text(text.to_owned()));
    }
}

/// A child of `table:named-expressions`.
fn named_entry(
    names: &Names,
    input: &[u8],
    qname: &[u8],
    attributes: Span,
    sheet: Option<usize>,
    catalog: &mut Catalog,
) -> Result<()> {
    let range = names.named_range.is(qname);
    if !range && !names.named_expression.is(qname) {
        return Ok(());
    }
    let (mut name, mut refers_to) = (None, None);
    for attribute in Attributes::new(input, attributes) {
        let (key, value) = attribute.map_err(|err| err.into_error())?;
        if names.a_name.is(key) {
            name = Some(decoded(input, value)?);
        } else if (range && names.a_cell_range_address.is(key))
            || (!range && names.a_expression.is(key))
        {
            refers_to = Some(decoded(input, value)?);
        }
    }
    if let (Some(name), Some(refers_to)) = (name, refers_to) {
        catalog.named.push(NamedEntry {
            name,
            refers_to,
            sheet,
        });
    }
    Ok(())
}

/// Reads a table's own `table:named-expressions`, whose start tag is the
/// stream's next token, to its end.
fn read_named(
    stream: &mut TokenStream<'_>,
    names: &Names,
    sheet: Option<usize>,
    catalog: &mut Catalog,
) -> Result<()> {
    let mut depth = 0usize;
    while let Some(token) = stream.next_token()? {
        let input = stream.input();
        match token {
            Token::Start {
                name,
                attributes,
                self_closing,
            } => {
                if depth == 1 {
                    named_entry(names, input, name.of(input), attributes, sheet, catalog)?;
                }
                if self_closing {
                    if depth == 0 {
                        return Ok(());
                    }
                } else {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(Error::xml("elements nested more than 256 deep")
                            .with_offset(stream.offset()));
                    }
                }
            }
            Token::End { .. } => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(());
                }
            }
            _ => {}
        }
    }
    Err(Error::xml("the part ends inside a table (cut short?)").with_offset(stream.offset()))
}
