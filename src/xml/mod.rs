//! A minimal XML tokenizer over bytes, and text decoding.
//!
//! Read this first: this is not a general XML parser. It splits a byte slice
//! into the handful of token kinds SpreadsheetML uses (start and end tags,
//! text, CDATA; comments and processing instructions are skipped) and never
//! allocates. It owns no buffer and does no I/O: when a token is cut off by
//! the end of the input it says so ([`Step::Incomplete`]) and the caller
//! supplies more bytes. A document type declaration is refused outright (no
//! entity expansion, ever).
//!
//! Names and namespaces: an element is read by its local name only once
//! [`Namespaces`] has said it is in the namespace its reader wants
//! (SpreadsheetML, or the package relationships); `<x:row>` is a row where
//! `x` is bound to SpreadsheetML, a foreign element where it is bound to
//! anything else or to nothing. Attributes are handed out by their
//! qualified name ([`Attributes`]): the attributes the readers read (`r`,
//! `t`, `s`, `ref`, `name`, `Id`, ...) are unqualified in the schemas, so a
//! prefixed one (`x:r`) is in its prefix's namespace and never matches
//! them, whatever the prefix is bound to. The one qualified attribute read,
//! a relationship id (`r:id`), is found by its prefix's namespace URI
//! ([`relationship_id`]), not by the spelling `r`.
//!
//! Each token is checked as it is read: tags against XML's grammar (names,
//! whitespace between attributes, quoted values without `<`), every token for
//! the control characters XML 1.0 forbids. `Attributes`; entity, line-end and
//! `_xHHHH_` decoding (`Piece`, `decode_text`: XML-decoded first,
//! `_xHHHH_`-unescaped second, over a value's whole text); `ElementScope`,
//! which open elements are foreign, for `walk` and the streamed metadata
//! readers. Every part read whole at open goes through `walk`, which checks
//! that end tags close the open element and that the part does not end inside
//! one.

pub(crate) mod bytes;
pub(crate) mod row_text;

use memchr::{memchr, memchr2, memmem};

use bytes::{find_forbidden_control, has_byte_below_space, has_special_byte, is_forbidden_control};

/// The message for a character XML 1.0 does not allow anywhere in a
/// document (a C0 control other than tab and line ends), raw in a part.
pub(crate) const FORBIDDEN_CONTROL: &str =
    "a control character XML does not allow (U+0000-U+001F but tab, line feed, carriage return)";

/// A half-open byte range `[start, end)` into the tokenizer's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    #[inline]
    pub(crate) fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    #[inline]
    pub(crate) fn of<'a>(&self, input: &'a [u8]) -> &'a [u8] {
        &input[self.start..self.end]
    }
}

/// One token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// Character data between tags, still entity-encoded.
    Text(Span),
    /// The content of a CDATA section, taken literally.
    CData(Span),
    /// A start tag; `attributes` spans everything after the name.
    Start {
        name: Span,
        attributes: Span,
        self_closing: bool,
    },
    /// An end tag.
    End { name: Span },
    /// A comment or processing instruction.
    Skip,
}

/// The result of asking for the next token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// A token, and the position just after it.
    Token(Token, usize),
    /// The input ends inside a token (or before the next one starts).
    Incomplete,
    /// The input ends cleanly at `pos` (only when the caller says the input
    /// is complete).
    End,
}

/// A tokenizer error: what was expected and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct XmlError {
    pub message: &'static str,
    pub offset: usize,
}

impl XmlError {
    fn at(message: &'static str, offset: usize) -> XmlError {
        XmlError { message, offset }
    }

    /// Stops a [`walk`] early; the caller has the error to report.
    pub(crate) fn stop() -> XmlError {
        XmlError::at("stopped", 0)
    }

    pub(crate) fn into_error(self) -> crate::Error {
        crate::Error::xml(self.message).with_offset(self.offset as u64)
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// The local part of a qualified name: `x:row` gives `row`.
#[inline]
pub(crate) fn local_name(name: &[u8]) -> &[u8] {
    // Names are short: a plain loop beats setting up a search.
    match name.iter().position(|&byte| byte == b':') {
        Some(colon) => &name[colon + 1..],
        None => name,
    }
}

/// Whether `byte` may start a name: an ASCII letter, `_`, `:`, or any
/// byte of a non-ASCII character (left to the UTF-8 check).
#[inline]
fn is_name_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || matches!(byte, b'_' | b':') || byte >= 0x80
}

/// Whether `byte` may continue a name: a name start, a digit, `-` or `.`.
#[inline]
fn is_name_byte(byte: u8) -> bool {
    is_name_start(byte) || byte.is_ascii_digit() || matches!(byte, b'-' | b'.')
}

/// The end of the name whose bytes after the first start at `from`.
#[inline]
fn name_end(input: &[u8], from: usize) -> usize {
    let mut at = from;
    while input.get(at).is_some_and(|&byte| is_name_byte(byte)) {
        at += 1;
    }
    at
}

/// `message` for an unexpected byte, unless the byte is one XML forbids
/// anywhere: then that is the error.
fn unexpected(byte: u8, message: &'static str, offset: usize) -> XmlError {
    if is_forbidden_control(byte) {
        XmlError::at(FORBIDDEN_CONTROL, offset)
    } else {
        XmlError::at(message, offset)
    }
}

/// Refuses a character XML forbids in `input[start..end]`, at its offset.
#[inline]
fn check_characters(input: &[u8], start: usize, end: usize) -> Result<(), XmlError> {
    match find_forbidden_control(&input[start..end]) {
        Some(at) => Err(XmlError::at(FORBIDDEN_CONTROL, start + at)),
        None => Ok(()),
    }
}

/// Reads the token starting at `pos`. With `complete` set, the input is
/// known to end at its last byte, so trailing text is a token and a cut-off
/// tag is an error rather than [`Step::Incomplete`].
///
/// Every byte of a token is checked: a character XML forbids (a C0 control
/// but tab and line ends) is an error at its offset, in text, names,
/// attribute values, comments, CDATA and processing instructions alike,
/// and tags are checked against XML's grammar (names, whitespace between
/// attributes, quoted values without `<`).
pub(crate) fn next_token(input: &[u8], pos: usize, complete: bool) -> Result<Step, XmlError> {
    if pos >= input.len() {
        return Ok(if complete {
            Step::End
        } else {
            Step::Incomplete
        });
    }
    if input[pos] != b'<' {
        let end = match memchr(b'<', &input[pos..]) {
            Some(found) => pos + found,
            None if complete => input.len(),
            None => return Ok(Step::Incomplete),
        };
        check_characters(input, pos, end)?;
        return Ok(Step::Token(Token::Text(Span::new(pos, end)), end));
    }
    let incomplete = |message: &'static str| {
        if complete {
            Err(XmlError::at(message, pos))
        } else {
            Ok(Step::Incomplete)
        }
    };
    let Some(&second) = input.get(pos + 1) else {
        return incomplete("a tag is cut off by the end of the part");
    };
    match second {
        b'/' => {
            let name_start = pos + 2;
            let Some(close) = memchr(b'>', &input[name_start..]) else {
                return incomplete("an end tag is cut off by the end of the part");
            };
            let close = name_start + close;
            if !input
                .get(name_start)
                .is_some_and(|&byte| is_name_start(byte))
            {
                return match input[name_start] {
                    b'>' => Err(XmlError::at("an end tag has no name", pos)),
                    byte => Err(unexpected(
                        byte,
                        "an end tag's name does not start with a letter",
                        name_start,
                    )),
                };
            }
            // The name, then only whitespace before `>`.
            let name_end = name_end(input, name_start + 1);
            if let Some(extra) = input[name_end..close].iter().position(|&b| !is_space(b)) {
                let at = name_end + extra;
                return Err(unexpected(
                    input[at],
                    "an end tag holds more than its name",
                    at,
                ));
            }
            let end = Token::End {
                name: Span::new(name_start, name_end),
            };
            Ok(Step::Token(end, close + 1))
        }
        b'?' => match memmem::find(&input[pos + 2..], b"?>") {
            Some(found) => {
                check_characters(input, pos + 2, pos + 2 + found)?;
                Ok(Step::Token(Token::Skip, pos + 2 + found + 2))
            }
            None => incomplete("a processing instruction is not closed"),
        },
        b'!' => {
            let rest = &input[pos..];
            if rest.starts_with(b"<!--") {
                match memmem::find(&input[pos + 4..], b"-->") {
                    Some(found) => {
                        check_characters(input, pos + 4, pos + 4 + found)?;
                        Ok(Step::Token(Token::Skip, pos + 4 + found + 3))
                    }
                    None => incomplete("a comment is not closed"),
                }
            } else if rest.starts_with(b"<![CDATA[") {
                let start = pos + 9;
                match memmem::find(&input[start..], b"]]>") {
                    Some(found) => {
                        check_characters(input, start, start + found)?;
                        let cdata = Token::CData(Span::new(start, start + found));
                        Ok(Step::Token(cdata, start + found + 3))
                    }
                    None => incomplete("a CDATA section is not closed"),
                }
            } else if rest.len() < 9
                && (b"<![CDATA[".starts_with(rest) || b"<!--".starts_with(rest))
            {
                incomplete("a tag is cut off by the end of the part")
            } else if rest.len() >= 9 && rest[2..9].eq_ignore_ascii_case(b"DOCTYPE") {
                Err(XmlError::at(
                    "a document type declaration (DTD) is not allowed in OOXML",
                    pos,
                ))
            } else if rest.len() < 9 {
                incomplete("a tag is cut off by the end of the part")
            } else {
                Err(XmlError::at("unknown markup declaration `<!`", pos))
            }
        }
        _ => start_tag(input, pos, complete),
    }
}

/// A start tag at `pos`, checked against XML's grammar: `<` name, then
/// attributes each after whitespace (`name = "value"`, either quote, no
/// `<` in the value), then `>` or `/>`. Anything else in the tag (a `<`, a
/// second tag run into the first, a character XML forbids) is an error at
/// its offset.
fn start_tag(input: &[u8], pos: usize, complete: bool) -> Result<Step, XmlError> {
    let cut = |message: &'static str, offset: usize| {
        if complete {
            Err(XmlError::at(message, offset))
        } else {
            Ok(Step::Incomplete)
        }
    };
    let name_start = pos + 1;
    // `next_token` saw a byte here.
    let first = input[name_start];
    if !is_name_start(first) {
        return Err(match first {
            b'>' | b'/' => XmlError::at("a start tag has no name", pos),
            _ => unexpected(
                first,
                "a start tag's name does not start with a letter",
                pos,
            ),
        });
    }
    let name = Span::new(name_start, name_end(input, name_start + 1));
    let mut at = name.end;
    loop {
        let after_value = at;
        while input.get(at).is_some_and(|&byte| is_space(byte)) {
            at += 1;
        }
        let Some(&byte) = input.get(at) else {
            return cut("a start tag is not closed", pos);
        };
        match byte {
            b'>' | b'/' => {
                let self_closing = byte == b'/';
                if self_closing {
                    match input.get(at + 1) {
                        Some(b'>') => {}
                        Some(&other) => {
                            return Err(unexpected(
                                other,
                                "a `/` in a start tag is not followed by `>`",
                                at + 1,
                            ));
                        }
                        None => return cut("a start tag is not closed", pos),
                    }
                }
                let token = Token::Start {
                    name,
                    attributes: Span::new(name.end, at),
                    self_closing,
                };
                let next = at + 1 + usize::from(self_closing);
                return Ok(Step::Token(token, next));
            }
            _ if at > after_value && is_name_start(byte) => match attribute_at(input, at)? {
                Some(end) => at = end,
                None => return cut("an attribute value is not closed", at),
            },
            _ => {
                let message = if byte == b'<' {
                    "a `<` inside a start tag (a tag cut short?)"
                } else if at > after_value {
                    "a start tag holds something other than attributes"
                } else if after_value == name.end {
                    "a start tag's name holds a character names cannot"
                } else {
                    "attributes are not separated by whitespace"
                };
                return Err(unexpected(byte, message, at));
            }
        }
    }
}

/// One attribute of a start tag from its name at `at`: the position after
/// its closing quote, or None when the input ends first.
fn attribute_at(input: &[u8], at: usize) -> Result<Option<usize>, XmlError> {
    let mut pos = name_end(input, at + 1);
    while input.get(pos).is_some_and(|&byte| is_space(byte)) {
        pos += 1;
    }
    match input.get(pos) {
        Some(b'=') => pos += 1,
        Some(&byte) => return Err(unexpected(byte, "an attribute has no value", pos)),
        None => return Ok(None),
    }
    while input.get(pos).is_some_and(|&byte| is_space(byte)) {
        pos += 1;
    }
    let quote = match input.get(pos) {
        Some(&quote @ (b'"' | b'\'')) => quote,
        Some(&byte) => return Err(unexpected(byte, "an attribute value is not quoted", pos)),
        None => return Ok(None),
    };
    let value_start = pos + 1;
    let Some(close) = memchr(quote, &input[value_start..]) else {
        return Ok(None);
    };
    let close = value_start + close;
    let value = &input[value_start..close];
    if let Some(lt) = memchr(b'<', value) {
        return Err(XmlError::at(
            "a `<` in an attribute value (a tag cut short?)",
            value_start + lt,
        ));
    }
    check_characters(input, value_start, close)?;
    Ok(Some(close + 1))
}

/// Iterates over the attributes of a start tag: `(qualified name, raw
/// value)`. The value is still entity-encoded. Names are not cut to their
/// local part: `x:r` is not `r` (see the module docs).
pub(crate) struct Attributes<'a> {
    input: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Attributes<'a> {
    pub(crate) fn new(input: &'a [u8], span: Span) -> Attributes<'a> {
        Attributes {
            input,
            pos: span.start,
            end: span.end,
        }
    }
}

impl<'a> Iterator for Attributes<'a> {
    type Item = Result<(&'a [u8], Span), XmlError>;

    fn next(&mut self) -> Option<Self::Item> {
        let input = self.input;
        while self.pos < self.end && is_space(input[self.pos]) {
            self.pos += 1;
        }
        if self.pos >= self.end {
            return None;
        }
        let name_start = self.pos;
        let Some(eq) = memchr(b'=', &input[name_start..self.end]) else {
            self.pos = self.end;
            return Some(Err(XmlError::at("an attribute has no value", name_start)));
        };
        let mut name_end = name_start + eq;
        while name_end > name_start && is_space(input[name_end - 1]) {
            name_end -= 1;
        }
        let mut value_start = name_start + eq + 1;
        while value_start < self.end && is_space(input[value_start]) {
            value_start += 1;
        }
        let quote = input
            .get(value_start)
            .copied()
            .filter(|_| value_start < self.end);
        let Some(quote @ (b'"' | b'\'')) = quote else {
            self.pos = self.end;
            return Some(Err(XmlError::at(
                "an attribute value is not quoted",
                value_start,
            )));
        };
        let Some(close) = memchr(quote, &input[value_start + 1..self.end]) else {
            self.pos = self.end;
            return Some(Err(XmlError::at(
                "an attribute value is not closed",
                value_start,
            )));
        };
        let value = Span::new(value_start + 1, value_start + 1 + close);
        self.pos = value.end + 1;
        Some(Ok((&input[name_start..name_end], value)))
    }
}

/// The SpreadsheetML namespace URIs: transitional and strict.
pub(crate) const SPREADSHEETML: [&[u8]; 2] = [
    b"http://schemas.openxmlformats.org/spreadsheetml/2006/main",
    b"http://purl.oclc.org/ooxml/spreadsheetml/main",
];

/// The package relationships namespace of a `.rels` part (the same in
/// transitional and strict packages).
pub(crate) const PACKAGE_RELATIONSHIPS: &[u8] =
    b"http://schemas.openxmlformats.org/package/2006/relationships";

/// The namespace of the relationship id attributes (`r:id`) that point a
/// workbook's sheets and a sheet's hyperlinks at their relationships:
/// transitional and strict.
pub(crate) const OFFICE_RELATIONSHIPS: [&[u8]; 2] = [
    b"http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    b"http://purl.oclc.org/ooxml/officeDocument/relationships",
];

/// Excel's own 2006 namespace, where Excel puts a macro sheet's root
/// element (`<xm:macrosheet>`, its content in SpreadsheetML) and some
/// extension elements (`<xm:f>`, `<xm:sqref>`).
pub(crate) const EXCEL_2006_MAIN: &[u8] = b"http://schemas.microsoft.com/office/excel/2006/main";

/// A namespace a prefix (or the default namespace) can be bound to, as far
/// as the readers care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Namespace {
    /// SpreadsheetML, transitional or strict: sheets, shared strings, the
    /// workbook, styles, comments.
    SpreadsheetMl,
    /// The package relationships of `.rels` parts.
    PackageRelationships,
    /// The officeDocument relationships: `r:id` attributes.
    OfficeRelationships,
    /// Excel's 2006 namespace ([`EXCEL_2006_MAIN`]).
    Excel2006,
    /// No namespace: `xmlns=""` (unprefixed names only).
    Absent,
    /// Anything else: an extension's, markup compatibility, a typo.
    Other,
}

impl Namespace {
    fn of_uri(uri: &[u8]) -> Namespace {
        if SPREADSHEETML.contains(&uri) {
            Namespace::SpreadsheetMl
        } else if uri == PACKAGE_RELATIONSHIPS {
            Namespace::PackageRelationships
        } else if OFFICE_RELATIONSHIPS.contains(&uri) {
            Namespace::OfficeRelationships
        } else if uri == EXCEL_2006_MAIN {
            Namespace::Excel2006
        } else if uri.is_empty() {
            Namespace::Absent
        } else {
            Namespace::Other
        }
    }
}

/// The namespace prefixes in scope and what each is bound to: enough to
/// tell an element of the namespace a reader wants (`<c>`, `<x:c>`) from a
/// foreign one (an extension's `<x14:c>`, a `<c>` under a foreign default
/// namespace), which readers skip with its content, and to find a
/// relationship id attribute by its namespace ([`relationship_id`]).
///
/// Declarations sit on the root element in practice; a reader binds each
/// start tag's declarations with [`declare`](Self::declare) and drops them
/// at its end tag with [`truncate`](Self::truncate) to the length it had
/// before. A name whose prefix nothing binds is foreign, except an
/// unprefixed one where no default namespace is declared (or `xmlns=""`):
/// read as the reader's namespace, as files without declarations are
/// meant.
#[derive(Debug, Clone)]
pub(crate) struct Namespaces {
    /// `(prefix, namespace)`, innermost last; the default namespace has the
    /// empty prefix.
    bindings: Vec<(smallvec::SmallVec<[u8; 16]>, Namespace)>,
    /// [`default_is_spreadsheet`](Self::default_is_spreadsheet), kept up
    /// to date when the bindings change (rarely) rather than looked up for
    /// every item or row that asks.
    default_spreadsheet: bool,
}

impl Default for Namespaces {
    fn default() -> Self {
        Namespaces {
            bindings: Vec::new(),
            // Nothing declared: unprefixed names are read as SpreadsheetML.
            default_spreadsheet: true,
        }
    }
}

impl Namespaces {
    /// How many bindings are in scope, for [`truncate`](Self::truncate).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.bindings.len()
    }

    /// Drops the bindings made after there were `len`. Called at the end of
    /// every row and shared string item, which nearly always declared
    /// nothing: that case returns after one comparison. (Left out of line
    /// on purpose: inlined into the scanner's row loop, it made the loop
    /// 48 million instructions dearer on the 1M x 10 sheet, callgrind.)
    pub(crate) fn truncate(&mut self, len: usize) {
        if len < self.bindings.len() {
            self.drop_bindings(len);
        }
    }

    #[cold]
    #[inline(never)]
    fn drop_bindings(&mut self, len: usize) {
        self.bindings.truncate(len);
        self.default_spreadsheet = self.is_spreadsheet(b"");
    }

    /// Binds the namespace declarations (`xmlns`, `xmlns:p`) among a start
    /// tag's attributes. Returns whether there were any.
    pub(crate) fn declare(&mut self, input: &[u8], attributes: Span) -> Result<bool, XmlError> {
        if memmem::find(attributes.of(input), b"xmlns").is_none() {
            return Ok(false);
        }
        let mut declared = false;
        for attribute in Attributes::new(input, attributes) {
            let (name, value) = attribute?;
            let prefix = match name.strip_prefix(b"xmlns") {
                Some([]) => &[][..],
                Some([b':', prefix @ ..]) if !prefix.is_empty() => prefix,
                _ => continue,
            };
            let raw = value.of(input);
            // Decoded (on the heap) only when it holds a reference.
            let decoded;
            let uri = if raw.contains(&b'&') {
                decoded = decode_owned(raw, true)?;
                decoded.as_bytes()
            } else {
                raw
            };
            let namespace = Namespace::of_uri(uri);
            if prefix.is_empty() {
                // What `is_spreadsheet(b"")` says from now on.
                self.default_spreadsheet =
                    matches!(namespace, Namespace::SpreadsheetMl | Namespace::Absent);
            }
            self.bindings.push((prefix.into(), namespace));
            declared = true;
        }
        Ok(declared)
    }

    /// What `prefix` is bound to, if anything. Compared byte by byte, not
    /// with `==` on the slices: prefixes are short (mostly empty), and the
    /// libc `memcmp` call that slice equality makes took half the time of
    /// a row of tiny foreign elements (`cargo bench --bench hostile`:
    /// 2.26 s -> 1.1 s per 64 MiB on one thread).
    fn bound(&self, prefix: &[u8]) -> Option<Namespace> {
        self.bindings
            .iter()
            .rev()
            .find(|(bound, _)| {
                bound.len() == prefix.len() && bound.iter().zip(prefix).all(|(a, b)| a == b)
            })
            .map(|&(_, namespace)| namespace)
    }

    /// Whether the element of qualified `name` is in `namespace`. An
    /// unprefixed name where no default namespace is declared, or where
    /// `xmlns=""` undeclared it, counts as in any namespace. Excel writes a
    /// macro sheet's root in its own 2006 namespace (`<xm:macrosheet>`, as
    /// the Open XML SDK defines it too) around SpreadsheetML content: that
    /// one element counts as SpreadsheetML.
    pub(crate) fn is_in(&self, name: &[u8], namespace: Namespace) -> bool {
        match name.iter().position(|&byte| byte == b':') {
            Some(colon) => match self.bound(&name[..colon]) {
                Some(Namespace::Excel2006) if namespace == Namespace::SpreadsheetMl => {
                    &name[colon + 1..] == b"macrosheet"
                }
                bound => bound == Some(namespace),
            },
            None => match self.bound(&[]) {
                Some(bound) => bound == namespace || bound == Namespace::Absent,
                None => true,
            },
        }
    }

    /// Whether the element of qualified `name` is SpreadsheetML's.
    pub(crate) fn is_spreadsheet(&self, name: &[u8]) -> bool {
        self.is_in(name, Namespace::SpreadsheetMl)
    }

    /// Whether unprefixed names are SpreadsheetML's: the scanners' fast
    /// paths, which read unprefixed tags, run only then.
    #[inline]
    pub(crate) fn default_is_spreadsheet(&self) -> bool {
        self.default_spreadsheet
    }

    /// Whether the qualified attribute `name` is `local` in `namespace`:
    /// its prefix is bound to that namespace (an unprefixed attribute is in
    /// no namespace, whatever the default).
    pub(crate) fn is_attribute(&self, name: &[u8], namespace: Namespace, local: &[u8]) -> bool {
        match name.iter().position(|&byte| byte == b':') {
            Some(colon) => {
                &name[colon + 1..] == local && self.bound(&name[..colon]) == Some(namespace)
            }
            None => false,
        }
    }
}

/// The raw value of a start tag's relationship id (`r:id`, under whatever
/// prefix is bound to the officeDocument relationships namespace), with
/// the tag's own declarations in `namespaces`.
pub(crate) fn relationship_id<'a>(
    input: &'a [u8],
    attributes: Span,
    namespaces: &Namespaces,
) -> Result<Option<&'a [u8]>, XmlError> {
    for attribute in Attributes::new(input, attributes) {
        let (name, value) = attribute?;
        if namespaces.is_attribute(name, Namespace::OfficeRelationships, b"id") {
            return Ok(Some(value.of(input)));
        }
    }
    Ok(None)
}

/// The elements open in a part read token by token, and which of them are
/// in the reader's namespace: the one mechanism by which the readers of
/// whole parts ([`walk`]) and of streamed ones (a sheet's metadata) skip
/// foreign elements with their content. The caller feeds it every start
/// and end tag, in order, and reads an element only when it says so.
#[derive(Debug)]
pub(crate) struct ElementScope {
    namespace: Namespace,
    namespaces: Namespaces,
    /// Per open element: the bindings in scope before its own, and whether
    /// it is foreign (or inside a foreign one).
    open: Vec<(usize, bool)>,
}

impl ElementScope {
    /// A scope reading the elements of `namespace`.
    pub(crate) fn new(namespace: Namespace) -> ElementScope {
        ElementScope {
            namespace,
            namespaces: Namespaces::default(),
            open: Vec::new(),
        }
    }

    /// An element starts at `pos`: binds its declarations and opens it
    /// (also when self-closing: then [`end`](Self::end) it after reading
    /// it, so that its own declarations are in scope meanwhile). Returns
    /// whether it is to be read: in the namespace, not inside a foreign
    /// element.
    pub(crate) fn start(
        &mut self,
        input: &[u8],
        name: Span,
        attributes: Span,
        pos: usize,
    ) -> Result<bool, XmlError> {
        if self.open.len() >= MAX_WALK_DEPTH {
            return Err(XmlError::at("elements nested more than 256 deep", pos));
        }
        let scope = self.namespaces.len();
        self.namespaces.declare(input, attributes)?;
        let inside_foreign = self.open.last().is_some_and(|&(_, foreign)| foreign);
        let foreign = inside_foreign || !self.namespaces.is_in(name.of(input), self.namespace);
        self.open.push((scope, foreign));
        Ok(!foreign)
    }

    /// The innermost open element ends. Returns whether it was read (see
    /// [`start`](Self::start)); false when none is open.
    pub(crate) fn end(&mut self) -> bool {
        match self.open.pop() {
            Some((scope, foreign)) => {
                self.namespaces.truncate(scope);
                !foreign
            }
            None => false,
        }
    }

    /// Whether text here is to be read: no foreign element is open.
    pub(crate) fn reading(&self) -> bool {
        self.open.last().is_none_or(|&(_, foreign)| !foreign)
    }

    /// How many elements are open.
    pub(crate) fn depth(&self) -> usize {
        self.open.len()
    }

    /// The bindings in scope, for [`relationship_id`].
    pub(crate) fn namespaces(&self) -> &Namespaces {
        &self.namespaces
    }
}

/// Something decoded text can be appended to.
pub(crate) trait TextSink {
    fn push_str(&mut self, text: &str);
    fn push(&mut self, ch: char);
}

/// A sink that keeps nothing: for checking text that is not used.
pub(crate) struct Discard;

impl TextSink for Discard {
    fn push_str(&mut self, _text: &str) {}
    fn push(&mut self, _ch: char) {}
}

/// Short decoded text kept on the stack (attribute values).
impl TextSink for smallvec::SmallVec<[u8; 32]> {
    fn push_str(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }

    fn push(&mut self, ch: char) {
        self.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
    }
}

impl TextSink for String {
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }
    fn push(&mut self, ch: char) {
        String::push(self, ch);
    }
}

impl TextSink for bumpalo::collections::String<'_> {
    fn push_str(&mut self, text: &str) {
        bumpalo::collections::String::push_str(self, text);
    }
    fn push(&mut self, ch: char) {
        bumpalo::collections::String::push(self, ch);
    }
}

/// A piece of character data: text between tags, or a CDATA section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub span: Span,
    /// CDATA content is literal: `&` is not an entity there.
    pub cdata: bool,
}

impl Piece {
    /// The piece of character data a token carries, if any.
    pub(crate) fn of_token(token: Token) -> Option<Piece> {
        match token {
            Token::Text(span) => Some(Piece { span, cdata: false }),
            Token::CData(span) => Some(Piece { span, cdata: true }),
            _ => None,
        }
    }

    /// Whether the piece needs [`decode_into`](Self::decode_into)
    /// (entities, carriage returns, and with `escapes` set, `_xHHHH_`
    /// escapes), or may hold a character XML forbids (any byte below 0x20:
    /// a tab or line feed sends the piece the slow way too, where
    /// `decode_into` refuses the controls; the fast paths hand over their
    /// text unchecked).
    pub(crate) fn needs_decoding(&self, input: &[u8], escapes: bool) -> bool {
        let raw = self.span.of(input);
        if raw.len() <= 32 {
            // Cell values are short: a word at a time beats setting up
            // searches.
            let ampersand = if self.cdata { 0 } else { b'&' };
            let underscore = if escapes { b'_' } else { 0 };
            return has_special_byte(input, self.span.start, self.span.end, ampersand, underscore);
        }
        let special = if self.cdata { None } else { memchr(b'&', raw) };
        special.is_some()
            || has_byte_below_space(raw)
            || (escapes && memchr::memchr_iter(b'_', raw).any(|at| raw.get(at + 1) == Some(&b'x')))
    }

    /// Appends the XML-decoded piece, whose raw text is `raw`, to `out`
    /// (`_xHHHH_` escapes are decoded afterwards, over the whole text). A
    /// character XML forbids is an error at its offset: a piece the fast
    /// paths found was not checked by the tokenizer.
    pub(crate) fn decode_into(&self, raw: &str, out: &mut impl TextSink) -> Result<(), XmlError> {
        if let Some(at) = find_forbidden_control(raw.as_bytes()) {
            return Err(XmlError::at(FORBIDDEN_CONTROL, self.span.start + at));
        }
        decode_text(raw, !self.cdata, out).map_err(|message| XmlError::at(message, self.span.start))
    }
}

/// Appends raw XML text to `out`, decoding (with `entities`) entity and
/// character references and normalising line ends (CRLF and CR become LF).
/// An unknown entity is an error.
pub(crate) fn decode_text(
    raw: &str,
    entities: bool,
    out: &mut impl TextSink,
) -> Result<(), &'static str> {
    let bytes = raw.as_bytes();
    let mut copied = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        let next = if entities {
            memchr2(b'&', b'\r', &bytes[pos..])
        } else {
            memchr(b'\r', &bytes[pos..])
        };
        let Some(found) = next else { break };
        let at = pos + found;
        out.push_str(&raw[copied..at]);
        if bytes[at] == b'&' {
            let Some(semi) = memchr(b';', &bytes[at..]).filter(|&s| s <= 12) else {
                return Err("an `&` does not start an entity reference");
            };
            let name = &raw[at + 1..at + semi];
            out.push(match name {
                "lt" => '<',
                "gt" => '>',
                "amp" => '&',
                "quot" => '"',
                "apos" => '\'',
                _ => character_reference(name).ok_or("an unknown entity reference")?,
            });
            pos = at + semi + 1;
        } else {
            out.push('\n');
            pos = if bytes.get(at + 1) == Some(&b'\n') {
                at + 2
            } else {
                at + 1
            };
        }
        copied = pos;
    }
    out.push_str(&raw[copied..]);
    Ok(())
}

/// Whether decoded text holds an `_xHHHH_` escape candidate.
pub(crate) fn has_escapes(text: &str) -> bool {
    // Called for every string: a byte search beats building a substring finder.
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'_', bytes).any(|at| bytes.get(at + 1) == Some(&b'x'))
}

/// Appends text to `out`, decoding OOXML's `_xHHHH_` escapes (UTF-16 code
/// units; a surrogate pair across two escapes is one character, a lone
/// surrogate becomes U+FFFD). This applies to the text after XML decoding,
/// so an escape split by a comment or written with character references
/// is still one escape.
pub(crate) fn unescape(text: &str, out: &mut impl TextSink) {
    let bytes = text.as_bytes();
    let mut pending_high: Option<u16> = None;
    let mut copied = 0;
    let mut pos = 0;
    while let Some(found) = memchr(b'_', &bytes[pos..]) {
        let at = pos + found;
        let Some(unit) = bytes.get(at..at + 7).and_then(parse_escape) else {
            pos = at + 1;
            continue;
        };
        if at != copied {
            flush_surrogate(&mut pending_high, out);
            out.push_str(&text[copied..at]);
        }
        match unit {
            0xD800..=0xDBFF => {
                flush_surrogate(&mut pending_high, out);
                pending_high = Some(unit);
            }
            0xDC00..=0xDFFF => match pending_high.take() {
                Some(high) => {
                    let code =
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
                None => out.push(char::REPLACEMENT_CHARACTER),
            },
            _ => {
                flush_surrogate(&mut pending_high, out);
                out.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
        copied = at + 7;
        pos = copied;
    }
    flush_surrogate(&mut pending_high, out);
    out.push_str(&text[copied..]);
}

/// [`unescape`] over text in place: the decoded text is written from the
/// start of `text` (an escape is seven bytes, what it stands for at most
/// four, so writing never overtakes reading). Returns the new length; the
/// bytes up to it are UTF-8 when `text` was.
pub(crate) fn unescape_in_place(text: &mut [u8]) -> usize {
    fn put(text: &mut [u8], written: &mut usize, ch: char) {
        let mut utf8 = [0u8; 4];
        let encoded = ch.encode_utf8(&mut utf8).as_bytes();
        text[*written..*written + encoded.len()].copy_from_slice(encoded);
        *written += encoded.len();
    }
    fn flush(text: &mut [u8], written: &mut usize, pending_high: &mut Option<u16>) {
        if pending_high.take().is_some() {
            put(text, written, char::REPLACEMENT_CHARACTER);
        }
    }
    let mut pending_high: Option<u16> = None;
    let mut written = 0;
    let mut copied = 0;
    let mut pos = 0;
    while let Some(found) = memchr(b'_', &text[pos..]) {
        let at = pos + found;
        let Some(unit) = text.get(at..at + 7).and_then(parse_escape) else {
            pos = at + 1;
            continue;
        };
        if at != copied {
            flush(text, &mut written, &mut pending_high);
            text.copy_within(copied..at, written);
            written += at - copied;
        }
        match unit {
            0xD800..=0xDBFF => {
                flush(text, &mut written, &mut pending_high);
                pending_high = Some(unit);
            }
            0xDC00..=0xDFFF => {
                let ch = match pending_high.take() {
                    Some(high) => char::from_u32(
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00),
                    )
                    .unwrap_or(char::REPLACEMENT_CHARACTER),
                    None => char::REPLACEMENT_CHARACTER,
                };
                put(text, &mut written, ch);
            }
            _ => {
                flush(text, &mut written, &mut pending_high);
                let ch = char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER);
                put(text, &mut written, ch);
            }
        }
        copied = at + 7;
        pos = copied;
    }
    flush(text, &mut written, &mut pending_high);
    let rest = text.len() - copied;
    text.copy_within(copied.., written);
    written + rest
}

fn flush_surrogate(pending_high: &mut Option<u16>, out: &mut impl TextSink) {
    if pending_high.take().is_some() {
        out.push(char::REPLACEMENT_CHARACTER);
    }
}

fn parse_escape(bytes: &[u8]) -> Option<u16> {
    if bytes.len() != 7 || bytes[0] != b'_' || bytes[1] != b'x' || bytes[6] != b'_' {
        return None;
    }
    let mut unit = 0u16;
    for &digit in &bytes[2..6] {
        unit = unit << 4 | (digit as char).to_digit(16)? as u16;
    }
    Some(unit)
}

/// A character reference's character: digits only (no sign, which the
/// number parsers would take), and only a character XML allows (not NUL,
/// other C0 controls but tab and line ends, surrogates, U+FFFE, U+FFFF).
fn character_reference(name: &str) -> Option<char> {
    let digits = name.strip_prefix('#')?;
    let code = match digits.strip_prefix('x') {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u32::from_str_radix(hex, 16).ok()?
        }
        Some(_) => return None,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse::<u32>().ok()?
        }
        None => return None,
    };
    let allowed =
        matches!(code, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
    allowed.then(|| char::from_u32(code)).flatten()
}

/// Decodes a raw attribute value or text into an owned string (for the
/// parts that are read once at open, never on the per-cell path).
pub(crate) fn decode_owned(raw: &[u8], escapes: bool) -> Result<String, XmlError> {
    let text = simdutf8::basic::from_utf8(raw).map_err(|_| XmlError::at("invalid UTF-8", 0))?;
    let mut out = String::with_capacity(text.len());
    decode_text(text, true, &mut out).map_err(|message| XmlError::at(message, 0))?;
    if escapes && has_escapes(&out) {
        let mut unescaped = String::with_capacity(out.len());
        unescape(&out, &mut unescaped);
        return Ok(unescaped);
    }
    Ok(out)
}

/// The deepest element nesting [`walk`] follows.
const MAX_WALK_DEPTH: usize = 256;

/// Walks every token of a whole in-memory part (the small parts read at
/// open, never sheets), calling `visit` with each token of an element in
/// `namespace` (see [`ElementScope`]) and the bindings in scope; a foreign
/// element is skipped with its content, its structure still checked. The
/// part must be one well-formed element: every end tag closes the element
/// open at that point, and the part does not end inside one (a workbook or
/// styles part cut short between two elements is not read as if it ended
/// there).
pub(crate) fn walk(
    input: &[u8],
    namespace: Namespace,
    mut visit: impl FnMut(Token, &Namespaces) -> Result<(), XmlError>,
) -> Result<(), XmlError> {
    let mut pos = 0;
    // The names of the open elements, to check that end tags match.
    let mut open: Vec<Span> = Vec::new();
    let mut scope = ElementScope::new(namespace);
    let mut seen_root = false;
    loop {
        match next_token(input, pos, true)? {
            Step::Token(token, next) => {
                match token {
                    Token::Start {
                        name,
                        attributes,
                        self_closing,
                    } => {
                        if open.is_empty() && seen_root {
                            return Err(XmlError::at("a second root element", pos));
                        }
                        seen_root = true;
                        if scope.start(input, name, attributes, pos)? {
                            visit(token, scope.namespaces())?;
                        }
                        if self_closing {
                            scope.end();
                        } else {
                            open.push(name);
                        }
                    }
                    Token::End { name } => {
                        if open.pop().is_none_or(|top| top.of(input) != name.of(input)) {
                            return Err(XmlError::at(
                                "an end tag does not close the element open here",
                                pos,
                            ));
                        }
                        if scope.end() {
                            visit(token, scope.namespaces())?;
                        }
                    }
                    _ => {
                        if scope.reading() {
                            visit(token, scope.namespaces())?;
                        }
                    }
                }
                pos = next;
            }
            Step::End | Step::Incomplete => {
                if !open.is_empty() {
                    return Err(XmlError::at(
                        "the part ends inside an element (cut short?)",
                        pos,
                    ));
                }
                if !seen_root {
                    return Err(XmlError::at("the part has no root element", pos));
                }
                return Ok(());
            }
        }
    }
}

/// Finds the unqualified attribute `wanted`, returning its raw value (a
/// prefixed attribute of the same local name is another attribute).
pub(crate) fn attribute<'a>(
    input: &'a [u8],
    attributes: Span,
    wanted: &[u8],
) -> Result<Option<&'a [u8]>, XmlError> {
    for attribute in Attributes::new(input, attributes) {
        let (name, value) = attribute?;
        if name == wanted {
            return Ok(Some(value.of(input)));
        }
    }
    Ok(None)
}

/// [`attribute`] with its references decoded (`hidden="&#49;"` is `1`):
/// borrowed when the value has none.
pub(crate) fn attribute_decoded<'a>(
    input: &'a [u8],
    attributes: Span,
    wanted: &[u8],
) -> Result<Option<std::borrow::Cow<'a, [u8]>>, XmlError> {
    let Some(raw) = attribute(input, attributes, wanted)? else {
        return Ok(None);
    };
    if !raw.contains(&b'&') {
        return Ok(Some(std::borrow::Cow::Borrowed(raw)));
    }
    Ok(Some(std::borrow::Cow::Owned(
        decode_owned(raw, false)?.into_bytes(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: &str) -> Vec<Token> {
        let mut pos = 0;
        let mut out = Vec::new();
        loop {
            match next_token(input.as_bytes(), pos, true).unwrap() {
                Step::Token(token, next) => {
                    out.push(token);
                    pos = next;
                }
                Step::End => return out,
                Step::Incomplete => panic!("incomplete with complete input"),
            }
        }
    }

    #[test]
    fn splits_tags_text_and_cdata() {
        let input =
            r#"<?xml version="1.0"?><a x="1>2"><!-- c --><b/>t&amp;<![CDATA[<raw>]]></x:a>"#;
        let got = tokens(input);
        assert_eq!(got.len(), 7);
        assert!(matches!(
            got[1],
            Token::Start {
                self_closing: false,
                ..
            }
        ));
        assert!(matches!(
            got[3],
            Token::Start {
                self_closing: true,
                ..
            }
        ));
        let Token::Text(text) = got[4] else { panic!() };
        assert_eq!(text.of(input.as_bytes()), b"t&amp;");
        let Token::CData(span) = got[5] else { panic!() };
        assert_eq!(span.of(input.as_bytes()), b"<raw>");
        let Token::End { name } = got[6] else {
            panic!()
        };
        assert_eq!(local_name(name.of(input.as_bytes())), b"a");
    }

    #[test]
    fn cut_off_tokens_are_incomplete_until_complete() {
        for input in [
            "<a b=\"1", "<a", "<", "<!-", "<![CDA", "<!-- x", "</a", "<?xml",
        ] {
            assert_eq!(
                next_token(input.as_bytes(), 0, false),
                Ok(Step::Incomplete),
                "{input}"
            );
            assert!(next_token(input.as_bytes(), 0, true).is_err(), "{input}");
        }
        assert_eq!(next_token(b"text", 0, false), Ok(Step::Incomplete));
    }

    /// The error of reading `input` token by token as a whole part.
    fn first_error(input: &[u8]) -> Option<XmlError> {
        let mut pos = 0;
        loop {
            match next_token(input, pos, true) {
                Ok(Step::Token(_, next)) => pos = next,
                Ok(_) => return None,
                Err(err) => return Some(err),
            }
        }
    }

    #[test]
    fn start_tags_follow_the_grammar() {
        for (input, message, offset) in [
            (
                &br#"<sheets><sheet name="x"<sheet name="S" sheetId="1"/></sheets>"#[..],
                "a `<` inside a start tag",
                23,
            ),
            (br#"<a b="1" <c/>"#, "a `<` inside a start tag", 9),
            (br#"<a<b/>"#, "a `<` inside a start tag", 2),
            (br#"<a b="x<y"/>"#, "a `<` in an attribute value", 7),
            (br#"<a b='x<y'/>"#, "a `<` in an attribute value", 7),
            (br#"<a b="1"c="2"/>"#, "not separated by whitespace", 8),
            (br#"<a b/>"#, "has no value", 4),
            (br#"<a b=c/>"#, "not quoted", 5),
            (br#"<a "b"/>"#, "other than attributes", 3),
            (br#"<a b="1" / >"#, "`/` in a start tag", 10),
            (br#"<a@ b="1"/>"#, "name holds a character", 2),
            (br#"<1a/>"#, "does not start with a letter", 0),
            (br#"<a></a b>"#, "more than its name", 7),
            (br#"<a></a<b>"#, "more than its name", 6),
            (br#"<a></1>"#, "does not start with a letter", 5),
        ] {
            let err = first_error(input).unwrap_or_else(|| panic!("{input:?} read"));
            assert!(err.message.contains(message), "{input:?}: {err:?}");
            assert_eq!(err.offset, offset, "{input:?}: {err:?}");
        }
        // What XML allows: whitespace of every kind around `=` and between
        // attributes, either quote, `>` in values, names with `-`, `.`,
        // digits, prefixes and non-ASCII letters.
        for input in [
            "<a\tb = '1'\r\n\tc=\"x>y\"\n/>",
            "<x:a-b.c2 x:d_1=\"\"></x:a-b.c2 \n>",
            "<é é=\"é\"></é>",
        ] {
            assert_eq!(first_error(input.as_bytes()), None, "{input}");
        }
    }

    #[test]
    fn control_characters_are_refused_in_every_token() {
        for control in (0u8..0x20).filter(|b| !matches!(b, b'\t' | b'\n' | b'\r')) {
            let c = control as char;
            for (input, offset) in [
                (format!("<a>x{c}</a>"), 4),
                (format!("<a b=\"{c}\"/>"), 6),
                (format!("<a b='x{c}'/>"), 7),
                (format!("<a{c} b=\"1\"/>"), 2),
                (format!("<a b{c}=\"1\"/>"), 4),
                (format!("<a b=\"1\"{c}/>"), 8),
                (format!("<a></a{c}>"), 6),
                (format!("<a><!--{c}--></a>"), 7),
                (format!("<a><![CDATA[{c}]]></a>"), 12),
                (format!("<?xml{c}?><a/>"), 5),
                (format!("<a/>\n{c}"), 5),
            ] {
                let err = first_error(input.as_bytes()).unwrap_or_else(|| panic!("{input:?}"));
                assert_eq!(err.message, FORBIDDEN_CONTROL, "{input:?}");
                assert_eq!(err.offset, offset, "{input:?}");
            }
        }
        // Tabs and line ends are characters XML allows.
        assert_eq!(
            first_error(b"<a b=\"\t\r\n\"><!--\t\r\n-->\t\r\n<![CDATA[\t]]></a>"),
            None
        );
        // A piece of text the fast paths found is checked when decoded.
        let piece = Piece {
            span: Span::new(3, 6),
            cdata: false,
        };
        let input = b"<v>a\x1bb</v>";
        assert!(piece.needs_decoding(input, false));
        let raw = std::str::from_utf8(piece.span.of(input)).unwrap();
        let err = piece.decode_into(raw, &mut String::new()).unwrap_err();
        assert_eq!((err.message, err.offset), (FORBIDDEN_CONTROL, 4));
    }

    #[test]
    fn cut_off_start_tags_wait_for_more_input() {
        let tag = br#"<sheet name="x" sheetId='1' r:id="rId1"/>"#;
        for cut in 1..tag.len() {
            assert_eq!(
                next_token(&tag[..cut], 0, false),
                Ok(Step::Incomplete),
                "{cut}"
            );
            assert!(next_token(&tag[..cut], 0, true).is_err(), "{cut}");
        }
    }

    #[test]
    fn refuses_doctype() {
        let err = next_token(b"<!DOCTYPE x [<!ENTITY a 'b'>]>", 0, true).unwrap_err();
        assert!(err.message.contains("DTD"));
    }

    #[test]
    fn attributes_with_prefixes_and_spaces() {
        let input = br#"<c r = "A1" x:s='3' t="s">"#;
        let Step::Token(Token::Start { attributes, .. }, _) = next_token(input, 0, true).unwrap()
        else {
            panic!()
        };
        let got: Vec<_> = Attributes::new(input, attributes)
            .map(|a| a.unwrap())
            .map(|(name, value)| (name.to_vec(), value.of(input).to_vec()))
            .collect();
        assert_eq!(
            got,
            vec![
                (b"r".to_vec(), b"A1".to_vec()),
                (b"x:s".to_vec(), b"3".to_vec()),
                (b"t".to_vec(), b"s".to_vec())
            ]
        );
    }

    fn decoded(raw: &str, escapes: bool) -> String {
        let mut out = String::new();
        decode_text(raw, true, &mut out).unwrap();
        if escapes {
            let mut unescaped = String::new();
            unescape(&out, &mut unescaped);
            return unescaped;
        }
        out
    }

    #[test]
    fn decodes_entities_line_ends_and_escapes() {
        assert_eq!(
            decoded("a&lt;b&gt;&amp;&quot;&apos;&#65;&#x42;", false),
            "a<b>&\"'AB"
        );
        assert_eq!(decoded("1\r\n2\r3\n", false), "1\n2\n3\n");
        assert_eq!(decoded("&#13;", false), "\r");
        assert_eq!(decoded("a_x000D_b_x005F_x0041_", true), "a\rb_x0041_");
        assert_eq!(decoded("a_x000D_b", false), "a_x000D_b");
        assert_eq!(decoded("_xD83D__xDE00_", true), "\u{1F600}");
        assert_eq!(decoded("_xD83D_x", true), "\u{FFFD}x");
        assert_eq!(decoded("_xDE00_", true), "\u{FFFD}");
        assert_eq!(decoded("snake_case_x_", true), "snake_case_x_");
        // Escapes apply to the text after XML decoding.
        assert_eq!(decoded("&#95;x0041_", true), "A");
        let mut out = String::new();
        assert!(decode_text("a & b", true, &mut out).is_err());
        out.clear();
        decode_text("a & b&lt;\r", false, &mut out).unwrap();
        assert_eq!(out, "a & b&lt;\n");
    }

    #[test]
    fn unescaping_in_place_matches_unescaping_into_a_copy() {
        for text in [
            "",
            "plain",
            "_x0041_",
            "a_x0041_b_x0042__x0043_",
            "_xD83D__xDE00_ pair",
            "_xD83D_ lone high, _xDE00_ lone low",
            "_xD83D__xD83D__xDE00_",
            "_x004_ not one _x00G1_ _x0041",
            "é_x00E9_ü",
        ] {
            let mut copy = String::new();
            unescape(text, &mut copy);
            let mut bytes = text.as_bytes().to_vec();
            let length = unescape_in_place(&mut bytes);
            assert_eq!(
                std::str::from_utf8(&bytes[..length]).unwrap(),
                copy,
                "{text}"
            );
        }
    }

    #[test]
    fn a_walk_checks_nesting_and_a_proper_end() {
        let walk_all = |input: &str| {
            walk(input.as_bytes(), Namespace::SpreadsheetMl, |_, _| Ok(()))
                .map_err(|err| err.message)
        };
        assert_eq!(
            walk_all("<?xml version=\"1.0\"?>\n<a><b/><c>t</c></a>\n"),
            Ok(())
        );
        for (input, wanted) in [
            (
                "<a><b></a>",
                "an end tag does not close the element open here",
            ),
            ("<a><b></b>", "the part ends inside an element (cut short?)"),
            (
                "<a><sheets><sheet/>",
                "the part ends inside an element (cut short?)",
            ),
            ("<a/><b/>", "a second root element"),
            ("", "the part has no root element"),
            ("<!-- only a comment -->", "the part has no root element"),
        ] {
            assert_eq!(walk_all(input), Err(wanted), "{input}");
        }
        let deep = "<a>".repeat(300);
        assert_eq!(walk_all(&deep), Err("elements nested more than 256 deep"));
    }

    #[test]
    fn names_resolve_by_the_uri_their_prefix_is_bound_to() {
        let input = concat!(
            r#"<a xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" "#,
            r#"xmlns:x="http://purl.oclc.org/ooxml/spreadsheetml/main" xmlns:f="urn:f" "#,
            r#"xmlns:rel="http://schemas.openxmlformats.org/officeDocument/2006/relationships" "#,
            r#"xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main" "#,
            r#"r:id="no" f:id="no" rel:id="yes">"#
        )
        .as_bytes();
        let Step::Token(Token::Start { attributes, .. }, _) = next_token(input, 0, true).unwrap()
        else {
            panic!()
        };
        let mut namespaces = Namespaces::default();
        assert!(namespaces.is_spreadsheet(b"c") && !namespaces.is_spreadsheet(b"x:c"));
        assert!(namespaces.declare(input, attributes).unwrap());
        for (name, spreadsheet) in [
            (&b"c"[..], true),
            (b"x:c", true),
            (b"f:c", false),
            (b"undeclared:c", false),
            (b"xm:macrosheet", true),
            (b"xm:f", false),
        ] {
            assert_eq!(
                namespaces.is_spreadsheet(name),
                spreadsheet,
                "{}",
                String::from_utf8_lossy(name)
            );
        }
        assert_eq!(
            relationship_id(input, attributes, &namespaces).unwrap(),
            Some(&b"yes"[..])
        );
        assert!(!namespaces.is_attribute(b"id", Namespace::OfficeRelationships, b"id"));
        // A prefixed attribute is not the unqualified one.
        assert_eq!(attribute(input, attributes, b"id").unwrap(), None);
    }

    #[test]
    fn character_references_xml_forbids_are_refused() {
        for bad in [
            "&#+65;",
            "&#-65;",
            "&#x+41;",
            "&#0;",
            "&#x0;",
            "&#1;",
            "&#xFFFF;",
            "&#xFFFE;",
            "&#xD800;",
            "&#x110000;",
            "&#;",
            "&#x;",
            "&#X41;",
        ] {
            let mut out = String::new();
            assert!(decode_text(bad, true, &mut out).is_err(), "{bad}: {out:?}");
        }
        let mut out = String::new();
        decode_text("&#65;&#x42;&#9;&#x10FFFF;", true, &mut out).unwrap();
        assert_eq!(out, "AB\t\u{10FFFF}");
    }
}
