//! Formula text from parsed formulas: the token streams (`Rgce`, "ptgs")
//! `.xlsb` (MS-XLSB 2.2.2) and `.xls` (BIFF8, MS-XLS 2.2.2) store in
//! place of the text `.xlsx` keeps.
//!
//! Both formats share the tokens and differ in reference widths: `.xlsb`
//! rows are 4 bytes and `.xls` rows 2 ([`Dialect`]). [`Decompiler`] turns
//! a token stream back into the formula text Excel shows (without the
//! leading `=`), appending it to the caller's buffer: the row readers
//! pass their row text buffer, so formula text costs no allocation per
//! cell. The operands are kept as spans of that buffer on a bounded
//! stack (at most [`MAX_OPERANDS`]); an operator edits its operands where
//! they lie (inserting its sign, parentheses, a function's name and
//! separators), so the text of a formula is written once and moved only
//! within its own length.
//!
//! Offered: numbers, strings, booleans, errors, missing arguments, every
//! operator (with the parentheses the tokens hold, PtgParen, and any
//! that precedence needs where a writer left them out), references and
//! areas (A1, `$` for absolute parts; whole rows and columns as `1:3`
//! and `A:C`), relative references (PtgRefN, PtgAreaN: shared formulas)
//! against the formula's cell, 3-D references through the workbook's
//! external sheet table ([`Links`]), deleted references (`#REF!`),
//! built-in functions (fixed and varying argument counts, the
//! [`ftab`] table), user-defined functions named by a defined name or
//! by an add-in's external name (PtgNameX, `.xls`),
//! defined names, PtgAttr (SUM of one argument; IF, CHOOSE and GOTO jump
//! hints and spaces skipped: the text is Excel's without its extra
//! spaces), and the PtgMem tokens (skipped, as Excel does: the
//! expression after them is the formula). Anything else, such as array
//! constants, other external names (a name in another workbook),
//! structured table references and macro commands, is an
//! [`ErrorKind::Unsupported`] error naming the token's byte and offset,
//! never a wrong or empty text. A token stream cut short, an index past
//! its table or a stream that does not leave exactly one operand is an
//! [`ErrorKind::Record`] error; nothing panics, and work and memory are
//! bounded by the stream's length and [`MAX_TEXT`].
//!
//! Each operator edits its operands in place within a budget of bytes moved
//! per formula, so the work stays linear, not quadratic. PtgExp (a shared or
//! array formula's reference) is handed back to the format's reader, which
//! keeps its shared formulas. Checked against calamine
//! (`examples/formula_agreement.rs`) and LibreOffice conversions
//! (`tests/formats/formula_differential.py`).

pub(crate) mod ftab;

use std::fmt::Write as _;

use crate::cell::column_name;
use crate::error::{Error, ErrorKind, Result};

/// The most operands a formula holds on its stack at once: far past
/// Excel's own (64 nested functions of 255 arguments come nowhere
/// near); a stream deeper than this is refused, not followed.
pub(crate) const MAX_OPERANDS: usize = 1024;

/// The longest formula text written, in bytes (Excel's own limit is
/// 8,192 characters).
pub(crate) const MAX_TEXT: usize = 64 * 1024;

/// The most text bytes one formula's insertions may move. Operators edit
/// their operands in place, so a token stream of nested prefixes (`-` of
/// `-` of ... 60,000 deep) would move its whole text once per token:
/// quadratic work for one cell. Excel's own formulas (8,192 characters,
/// 64 nesting levels) move well under a MiB; past this budget a formula
/// is refused as a limit, keeping the work linear in the stream's length.
pub(crate) const MAX_MOVED: usize = 128 * MAX_TEXT;

/// Which format's token layout a stream has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// `.xlsb`: rows 4 bytes, columns 2 (14 bits and two relative flags).
    Xlsb,
    /// `.xls` BIFF8: rows 2 bytes, columns 2 (8 bits used and the flags).
    Biff8,
}

impl Dialect {
    fn row_bytes(self) -> usize {
        match self {
            Dialect::Xlsb => 4,
            Dialect::Biff8 => 2,
        }
    }

    fn rows(self) -> u32 {
        match self {
            Dialect::Xlsb => 1 << 20,
            Dialect::Biff8 => 1 << 16,
        }
    }

    fn columns(self) -> u32 {
        match self {
            Dialect::Xlsb => 1 << 14,
            Dialect::Biff8 => 1 << 8,
        }
    }
}

/// What a workbook's formulas refer to by index: the external sheet
/// table (each entry's sheet prefix as written, `Sheet1!`,
/// `'My Sheet'!`, `Sheet1:Sheet3!`, or None for a sheet of another
/// workbook or none) and the defined names (PtgName's index, from 1).
#[derive(Debug, Default, Clone)]
pub(crate) struct Links {
    pub sheets: Vec<Option<String>>,
    pub names: Vec<String>,
    /// Each external sheet index's external names (PtgNameX's index, from
    /// 1), where its supporting link is an add-in's (functions such as
    /// `EDATE` in files of Excel 2003): empty otherwise.
    pub external_names: Vec<Vec<String>>,
}

/// No links: a context without a workbook (tests, fuzzing).
pub(crate) static NO_LINKS: Links = Links {
    sheets: Vec::new(),
    names: Vec::new(),
    external_names: Vec::new(),
};

impl Links {
    /// The prefix (with its `!`) of sheets `first` to `last` of
    /// `sheet_names`, quoted as Excel quotes it; None when either is not
    /// a sheet of the workbook.
    pub(crate) fn sheet_prefix(sheet_names: &[&str], first: i64, last: i64) -> Option<String> {
        let name = |index: i64| sheet_names.get(usize::try_from(index).ok()?).copied();
        let (first, last) = (name(first)?, name(last)?);
        let mut prefix = String::new();
        push_sheet_names(&mut prefix, first, (first != last).then_some(last));
        prefix.push('!');
        Some(prefix)
    }
}

/// `first` or `first:last` as a formula writes it: both plain, or the
/// whole quoted (a quote doubled) when either needs quotes (`'My
/// Sheet:Other'`): a name that is not letters, digits, `_` and `.`, that
/// starts with a digit, or that reads as a cell reference.
fn push_sheet_names(out: &mut String, first: &str, last: Option<&str>) {
    let quoted = needs_quotes(first) || last.is_some_and(needs_quotes);
    if quoted {
        out.push('\'');
    }
    for (i, name) in std::iter::once(first).chain(last).enumerate() {
        if i > 0 {
            out.push(':');
        }
        for c in name.chars() {
            if c == '\'' {
                out.push('\'');
            }
            out.push(c);
        }
    }
    if quoted {
        out.push('\'');
    }
}

fn needs_quotes(name: &str) -> bool {
    name.is_empty()
        || name.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        || looks_like_reference(name)
}

/// Whether a name reads as an A1 or R1C1 reference (`A1`, `XFD9`, `R1C1`,
/// `R`, `C`), which Excel quotes as a sheet name.
fn looks_like_reference(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    // R1C1 style: R, digits, C, digits, each part optional but one letter.
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if let Some(rest) = upper.strip_prefix('R') {
        let rest = &rest[digits(rest)..];
        let rest = rest.strip_prefix('C').map_or(rest, |r| &r[digits(r)..]);
        if rest.is_empty() {
            return true;
        }
    } else if let Some(rest) = upper.strip_prefix('C')
        && digits(rest) == rest.len()
    {
        return true;
    }
    let letters = upper.bytes().take_while(u8::is_ascii_uppercase).count();
    let rest = &upper[letters..];
    (1..=3).contains(&letters) && !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit())
}

/// What a token stream is: formula text (appended to the buffer), or a
/// reference to a shared or array formula (PtgExp) anchored at a cell,
/// whose own tokens the caller finds and decompiles against this cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decompiled {
    Text,
    /// PtgExp: the anchor's row, and its column (`.xls`; `.xlsb` gives
    /// the row only).
    Shared {
        row: u32,
        column: Option<u32>,
    },
}

// Precedences, tighter binding higher (Excel's order: reference
// operators, negation, percent, power, multiplication, addition,
// concatenation, comparison).
const ATOM: u8 = 20;
const RANGE: u8 = 15;
const ISECT: u8 = 14;
const UNION: u8 = 13;
const NEG: u8 = 12;
const PERCENT: u8 = 11;
const POWER: u8 = 10;
const MUL: u8 = 9;
const ADD: u8 = 8;
const CONCAT: u8 = 7;
const COMPARE: u8 = 6;

/// An operand on the stack: where its text starts in the buffer (it ends
/// where the next starts, or at the buffer's end) and how tightly it
/// binds.
#[derive(Clone, Copy, Debug)]
struct Operand {
    start: usize,
    precedence: u8,
}

/// The reusable state of decompiling: the operand stack (kept between
/// formulas, so a row of formulas allocates nothing once it has grown).
#[derive(Default)]
pub(crate) struct Decompiler {
    stack: Vec<Operand>,
}

/// A formula's cell, against which relative tokens (PtgRefN, PtgAreaN)
/// resolve.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Origin {
    pub row: u32,
    pub column: u32,
}

impl Decompiler {
    pub(crate) fn new() -> Self {
        Decompiler::default()
    }

    /// Appends the text of token stream `rgce` to `out`, or says it is a
    /// PtgExp (nothing appended). On an error, `out` holds what it held
    /// before.
    pub(crate) fn decompile(
        &mut self,
        dialect: Dialect,
        rgce: &[u8],
        origin: Origin,
        links: &Links,
        out: &mut String,
    ) -> Result<Decompiled> {
        let base = out.len();
        self.stack.clear();
        let result = Run {
            dialect,
            tokens: rgce,
            pos: 0,
            origin,
            links,
            out,
            base,
            stack: &mut self.stack,
            moved: 0,
        }
        .run();
        if result.is_err() {
            out.truncate(base);
        }
        result
    }
}

struct Run<'r> {
    dialect: Dialect,
    tokens: &'r [u8],
    pos: usize,
    origin: Origin,
    links: &'r Links,
    out: &'r mut String,
    base: usize,
    stack: &'r mut Vec<Operand>,
    /// Text bytes moved by insertions so far (bounded by [`MAX_MOVED`]).
    moved: usize,
}

impl<'r> Run<'r> {
    fn run(mut self) -> Result<Decompiled> {
        while self.pos < self.tokens.len() {
            let at = self.pos;
            let ptg = self.tokens[at];
            self.pos += 1;
            if at == 0 && (ptg == 0x01 || ptg == 0x02) {
                return self.exp_or_table(ptg);
            }
            self.token(ptg, at)?;
            if self.out.len() - self.base > MAX_TEXT {
                return Err(Error::limit("formula text size", MAX_TEXT as u64));
            }
            if self.moved > MAX_MOVED {
                return Err(Error::limit(
                    "formula text bytes moved while decompiling",
                    MAX_MOVED as u64,
                ));
            }
        }
        match self.stack.len() {
            1 => Ok(Decompiled::Text),
            n => Err(malformed(format!(
                "the formula's tokens leave {n} operands, not one"
            ))),
        }
    }

    /// PtgExp (a shared or array formula's cell) or PtgTbl (a data
    /// table's cell), the whole stream.
    fn exp_or_table(&mut self, ptg: u8) -> Result<Decompiled> {
        let row = self.row()?;
        let column = match self.dialect {
            Dialect::Biff8 => Some(u32::from(self.u16()?)),
            Dialect::Xlsb => None,
        };
        if ptg == 0x02 {
            return Err(unsupported(
                "a data table's formula (PtgTbl, {=TABLE(..)})",
                ptg,
                0,
            ));
        }
        Ok(Decompiled::Shared { row, column })
    }

    fn take(&mut self, n: usize) -> Result<&'r [u8]> {
        let at = self.pos;
        let tokens = self.tokens;
        let bytes = tokens
            .get(at..at.saturating_add(n))
            .ok_or_else(|| cut_short(at, self.tokens.len()))?;
        self.pos += n;
        Ok(bytes)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn row(&mut self) -> Result<u32> {
        match self.dialect {
            Dialect::Xlsb => self.u32(),
            Dialect::Biff8 => self.u16().map(u32::from),
        }
    }

    fn token(&mut self, ptg: u8, at: usize) -> Result<()> {
        match ptg {
            0x03 => self.binary("+", ADD),
            0x04 => self.binary("-", ADD),
            0x05 => self.binary("*", MUL),
            0x06 => self.binary("/", MUL),
            0x07 => self.binary("^", POWER),
            0x08 => self.binary("&", CONCAT),
            0x09 => self.binary("<", COMPARE),
            0x0A => self.binary("<=", COMPARE),
            0x0B => self.binary("=", COMPARE),
            0x0C => self.binary(">=", COMPARE),
            0x0D => self.binary(">", COMPARE),
            0x0E => self.binary("<>", COMPARE),
            0x0F => self.binary(" ", ISECT),
            0x10 => self.binary(",", UNION),
            0x11 => self.binary(":", RANGE),
            0x12 => self.prefix('+'),
            0x13 => self.prefix('-'),
            0x14 => {
                let operand = self.pop(1)?;
                if operand.precedence < PERCENT {
                    self.wrap(operand.start);
                }
                self.out.push('%');
                self.push(operand.start, PERCENT)
            }
            0x15 => {
                let operand = self.pop(1)?;
                self.wrap(operand.start);
                self.push(operand.start, ATOM)
            }
            // PtgMissArg: an empty argument.
            0x16 => self.operand(ATOM),
            0x17 => self.string(),
            0x19 => self.attr(at),
            0x1C => {
                let code = self.u8()?;
                let text = error_text(code).ok_or_else(|| {
                    malformed(format!("an error token with unknown code {code:#04x}"))
                })?;
                let start = self.out.len();
                self.out.push_str(text);
                self.push(start, ATOM)
            }
            0x1D => {
                let value = self.u8()?;
                let start = self.out.len();
                self.out.push_str(if value != 0 { "TRUE" } else { "FALSE" });
                self.push(start, ATOM)
            }
            0x1E => {
                let value = self.u16()?;
                let start = self.out.len();
                let _ = write!(self.out, "{value}");
                self.push(start, ATOM)
            }
            0x1F => {
                let b = self.take(8)?;
                let value = f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                let start = self.out.len();
                push_number(self.out, value);
                self.push(start, if value < 0.0 { NEG } else { ATOM })
            }
            0x20..=0x7F => self.classed(ptg & 0x1F | 0x20, ptg, at),
            _ => Err(unsupported("this token", ptg, at)),
        }
    }

    /// The tokens with a class (reference, value, array) in bits 5-6.
    fn classed(&mut self, base: u8, ptg: u8, at: usize) -> Result<()> {
        let dialect = self.dialect;
        let row_bytes = dialect.row_bytes();
        match base {
            // PtgFunc
            0x21 => {
                let index = self.u16()?;
                let (name, count) = self.function(index, ptg, at)?;
                if count == ftab::VAR {
                    return Err(unsupported(
                        "a function of varying arguments written with a fixed count (PtgFunc)",
                        ptg,
                        at,
                    ));
                }
                self.call(name, usize::from(count))
            }
            // PtgFuncVar
            0x22 => {
                let count = usize::from(self.u8()? & 0x7F);
                let index = self.u16()?;
                if index == 0x00FF {
                    return self.user_call(count);
                }
                let (name, _) = self.function(index, ptg, at)?;
                self.call(name, count)
            }
            // PtgName
            0x23 => {
                let index = self.name_index()?;
                let links = self.links;
                let name = usize::try_from(index)
                    .ok()
                    .and_then(|i| i.checked_sub(1))
                    .and_then(|i| links.names.get(i))
                    .filter(|name| !name.is_empty())
                    .ok_or_else(|| {
                        malformed(format!(
                            "defined name {index} of a formula is past the workbook's {} names",
                            links.names.len()
                        ))
                    })?;
                let start = self.out.len();
                self.out.push_str(name);
                self.push(start, ATOM)
            }
            // PtgRef, PtgRefN
            0x24 | 0x2C => {
                let row = self.row()?;
                let column = self.u16()?;
                let start = self.out.len();
                let (row, column) = self.resolve(row, column, base == 0x2C);
                push_cell(self.out, row, column);
                self.push(start, ATOM)
            }
            // PtgArea, PtgAreaN
            0x25 | 0x2D => {
                let start = self.out.len();
                self.area(base == 0x2D)?;
                self.push(start, ATOM)
            }
            // PtgMemArea, PtgMemErr, PtgMemNoMem: a cached reference
            // before its expression, which follows; PtgMemFunc the same.
            0x26..=0x28 => self.take(6).map(drop),
            0x29 => self.take(2).map(drop),
            // PtgRefErr, PtgAreaErr
            0x2A | 0x2B => {
                let size = if base == 0x2A {
                    row_bytes + 2
                } else {
                    2 * row_bytes + 4
                };
                self.take(size)?;
                let start = self.out.len();
                self.out.push_str("#REF!");
                self.push(start, ATOM)
            }
            // PtgRef3d, PtgArea3d, PtgRefErr3d, PtgAreaErr3d
            0x3A..=0x3D => {
                let ixti = self.u16()?;
                let links = self.links;
                let prefix = match links.sheets.get(usize::from(ixti)) {
                    Some(Some(prefix)) => prefix,
                    Some(None) => {
                        return Err(unsupported(
                            "a reference to a sheet of another workbook",
                            ptg,
                            at,
                        ));
                    }
                    None => {
                        return Err(malformed(format!(
                            "external sheet {ixti} of a formula is past the workbook's {} entries",
                            links.sheets.len()
                        )));
                    }
                };
                let start = self.out.len();
                self.out.push_str(prefix);
                match base {
                    0x3A => {
                        let row = self.row()?;
                        let column = self.u16()?;
                        let (row, column) = self.resolve(row, column, false);
                        push_cell(self.out, row, column);
                    }
                    0x3B => self.area(false)?,
                    0x3C => {
                        self.take(row_bytes + 2)?;
                        self.out.push_str("#REF!");
                    }
                    _ => {
                        self.take(2 * row_bytes + 4)?;
                        self.out.push_str("#REF!");
                    }
                }
                self.push(start, ATOM)
            }
            // PtgArray
            0x20 => Err(unsupported("an array constant (PtgArray)", ptg, at)),
            // PtgNameX: an add-in's function name (others not offered).
            0x39 => {
                let ixti = self.u16()?;
                let index = self.name_index()?;
                let links = self.links;
                let name = links
                    .external_names
                    .get(usize::from(ixti))
                    .and_then(|names| names.get(usize::try_from(index).ok()?.checked_sub(1)?))
                    .filter(|name| !name.is_empty())
                    .ok_or_else(|| {
                        unsupported(
                            "an external name (PtgNameX) that is not an add-in's function: a \
                             name in another workbook, or a newer function",
                            ptg,
                            at,
                        )
                    })?;
                let start = self.out.len();
                self.out.push_str(name);
                self.push(start, ATOM)
            }
            _ => Err(unsupported("this token", ptg, at)),
        }
    }

    /// A reference's row and column (with its relative flags) made
    /// absolute against the origin when `relative` (PtgRefN, PtgAreaN)
    /// and its parts relative; the flags are kept.
    fn resolve(&self, row: u32, column: u16, relative: bool) -> (u32, u16) {
        if !relative {
            return (row, column);
        }
        let dialect = self.dialect;
        let row = if column & 0x8000 != 0 {
            self.origin.row.wrapping_add(row) % dialect.rows()
        } else {
            row
        };
        let index = if column & 0x4000 != 0 {
            let offset = match dialect {
                Dialect::Xlsb => u32::from(column & 0x3FFF),
                Dialect::Biff8 => u32::from(column & 0x00FF),
            };
            (self.origin.column.wrapping_add(offset) % dialect.columns()) as u16
        } else {
            column & 0x3FFF
        };
        (row, index | (column & 0xC000))
    }

    /// An area's fields (after any sheet index) written as text.
    fn area(&mut self, relative: bool) -> Result<()> {
        let (first_row, last_row) = (self.row()?, self.row()?);
        let (first_column, last_column) = (self.u16()?, self.u16()?);
        let (first_row, first_column) = self.resolve(first_row, first_column, relative);
        let (last_row, last_column) = self.resolve(last_row, last_column, relative);
        let max_row = self.dialect.rows() - 1;
        let max_column = (self.dialect.columns() - 1) as u16;
        let out = &mut *self.out;
        if first_row == 0 && last_row == max_row {
            push_column(out, first_column);
            out.push(':');
            push_column(out, last_column);
        } else if first_column & 0x3FFF == 0 && last_column & 0x3FFF == max_column {
            push_row(out, first_row, first_column);
            out.push(':');
            push_row(out, last_row, last_column);
        } else {
            push_cell(out, first_row, first_column);
            out.push(':');
            push_cell(out, last_row, last_column);
        }
        Ok(())
    }

    fn function(&self, index: u16, ptg: u8, at: usize) -> Result<(&'static str, u8)> {
        if index & 0x8000 != 0 {
            return Err(unsupported("a macro command (a Cetab function)", ptg, at));
        }
        ftab::function(index).ok_or_else(|| {
            malformed(format!(
                "function number {index} of a formula is not a built-in function"
            ))
        })
    }

    fn string(&mut self) -> Result<()> {
        let start = self.out.len();
        self.out.push('"');
        match self.dialect {
            Dialect::Xlsb => {
                let units = usize::from(self.u16()?);
                let bytes = self.take(units * 2)?;
                push_utf16_string_chars(self.out, bytes);
            }
            Dialect::Biff8 => {
                let count = usize::from(self.u8()?);
                let wide = self.u8()? & 1 != 0;
                if wide {
                    let bytes = self.take(count * 2)?;
                    push_utf16_string_chars(self.out, bytes);
                } else {
                    let bytes = self.take(count)?;
                    for &b in bytes {
                        push_string_char(self.out, char::from(b));
                    }
                }
            }
        }
        self.out.push('"');
        self.push(start, ATOM)
    }

    fn attr(&mut self, at: usize) -> Result<()> {
        let kind = self.u8()?;
        let data = self.u16()?;
        if kind & 0x04 != 0 {
            // PtgAttrChoose: its jump table, one offset per choice and one
            // past them.
            self.take((usize::from(data) + 1) * 2)?;
            return Ok(());
        }
        if kind & 0x10 != 0 {
            // PtgAttrSum: SUM of the one operand before it.
            return self.call("SUM", 1);
        }
        if kind & !(0x01 | 0x02 | 0x08 | 0x20 | 0x40 | 0x80) != 0 {
            return Err(unsupported("this PtgAttr", 0x19, at));
        }
        Ok(())
    }

    fn operand(&mut self, precedence: u8) -> Result<()> {
        let start = self.out.len();
        self.push(start, precedence)
    }

    fn push(&mut self, start: usize, precedence: u8) -> Result<()> {
        if self.stack.len() >= MAX_OPERANDS {
            return Err(Error::limit("operands of a formula", MAX_OPERANDS as u64));
        }
        self.stack.push(Operand { start, precedence });
        Ok(())
    }

    /// Pops the top operand, which `count` operands must be there for.
    fn pop(&mut self, count: usize) -> Result<Operand> {
        if self.stack.len() < count {
            return Err(malformed(format!(
                "an operator of a formula takes {count} operands and {} are there",
                self.stack.len()
            )));
        }
        Ok(self.stack.pop().expect("checked above"))
    }

    /// A defined name's or external name's index: 4 bytes in `.xlsb`, 2
    /// and 2 unused in `.xls`.
    fn name_index(&mut self) -> Result<u32> {
        match self.dialect {
            Dialect::Xlsb => self.u32(),
            Dialect::Biff8 => {
                let index = self.u16()?;
                self.take(2)?;
                Ok(u32::from(index))
            }
        }
    }

    /// Inserts `text` at `at`, counting the bytes it moves.
    fn insert_str(&mut self, at: usize, text: &str) {
        self.moved += self.out.len() - at;
        self.out.insert_str(at, text);
    }

    fn insert_char(&mut self, at: usize, c: char) {
        self.moved += self.out.len() - at;
        self.out.insert(at, c);
    }

    /// Puts the text from `start` to the end in parentheses.
    fn wrap(&mut self, start: usize) {
        self.insert_char(start, '(');
        self.out.push(')');
    }

    /// Puts the text from `start` to `end` in parentheses.
    fn wrap_span(&mut self, start: usize, end: usize) {
        self.insert_char(end, ')');
        self.insert_char(start, '(');
    }

    fn binary(&mut self, sign: &str, precedence: u8) -> Result<()> {
        let right = self.pop(2)?;
        let left = self.pop(1)?;
        // Left-associative: a right operand of the same precedence needs
        // its parentheses, a left one does not.
        if right.precedence <= precedence {
            self.wrap(right.start);
        }
        self.insert_str(right.start, sign);
        if left.precedence < precedence {
            self.insert_char(right.start, ')');
            self.insert_char(left.start, '(');
        }
        self.push(left.start, precedence)
    }

    fn prefix(&mut self, sign: char) -> Result<()> {
        let operand = self.pop(1)?;
        if operand.precedence < NEG {
            self.wrap(operand.start);
        }
        self.insert_char(operand.start, sign);
        self.push(operand.start, NEG)
    }

    /// A function call of the top `count` operands.
    fn call(&mut self, name: &str, count: usize) -> Result<()> {
        if self.stack.len() < count {
            return Err(malformed(format!(
                "{name} takes {count} arguments and the formula has {} operands there",
                self.stack.len()
            )));
        }
        let first = self.stack.len() - count;
        let start = match self.stack.get(first) {
            Some(operand) => operand.start,
            None => self.out.len(),
        };
        self.separate(first);
        self.out.push(')');
        self.insert_char(start, '(');
        self.insert_str(start, name);
        self.stack.truncate(first);
        self.push(start, ATOM)
    }

    /// Commas between the operands from `first` up (right to left, so that
    /// an insertion moves none of the starts still to come), and
    /// parentheses around any union among them.
    fn separate(&mut self, first: usize) {
        let mut end = self.out.len();
        for i in (first..self.stack.len()).rev() {
            let operand = self.stack[i];
            if operand.precedence == UNION {
                self.wrap_span(operand.start, end);
            }
            end = operand.start;
            if i > first {
                self.insert_char(operand.start, ',');
            }
        }
    }

    /// PtgFuncVar 255: a user-defined function, named by its first
    /// operand (a defined name).
    fn user_call(&mut self, count: usize) -> Result<()> {
        if count == 0 || self.stack.len() < count {
            return Err(malformed(format!(
                "a user-defined function takes {count} operands (its name first) and the formula has {} there",
                self.stack.len()
            )));
        }
        let first = self.stack.len() - count;
        let name = self.stack[first];
        let args = first + 1;
        let end = match self.stack.get(args) {
            Some(operand) => operand.start,
            None => self.out.len(),
        };
        self.separate(args);
        self.out.push(')');
        self.insert_char(end, '(');
        self.stack.truncate(first);
        self.push(name.start, ATOM)
    }
}

/// A string constant's UTF-16LE text, quoted as a formula writes it (an
/// unpaired surrogate as U+FFFD).
fn push_utf16_string_chars(out: &mut String, bytes: &[u8]) {
    let units = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]));
    for c in char::decode_utf16(units) {
        push_string_char(out, c.unwrap_or(char::REPLACEMENT_CHARACTER));
    }
}

fn push_string_char(out: &mut String, c: char) {
    if c == '"' {
        out.push('"');
    }
    out.push(c);
}

/// A number as Excel writes it in a formula: integers plainly, others in
/// their shortest exact form, with an exponent (`1E+20`, `1E-10`) past 15
/// digits either way.
fn push_number(out: &mut String, value: f64) {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-9..1e15).contains(&magnitude) {
        let start = out.len();
        let _ = write!(out, "{value:E}");
        if let Some(e) = out[start..].find('E')
            && !out[start + e + 1..].starts_with('-')
        {
            out.insert(start + e + 1, '+');
        }
    } else {
        let _ = write!(out, "{value}");
    }
}

/// A cell reference (row and column with their relative flags) in A1
/// style.
fn push_cell(out: &mut String, row: u32, column: u16) {
    push_column(out, column);
    push_row(out, row, column);
}

fn push_column(out: &mut String, column: u16) {
    if column & 0x4000 == 0 {
        out.push('$');
    }
    let mut letters = [0u8; 3];
    out.push_str(column_name(u32::from(column & 0x3FFF), &mut letters));
}

fn push_row(out: &mut String, row: u32, column: u16) {
    if column & 0x8000 == 0 {
        out.push('$');
    }
    let _ = write!(out, "{}", u64::from(row) + 1);
}

/// An error code's text (BErr, as `.xlsb` and `.xls` store error values
/// and formula results); None for a code Excel does not define.
pub(crate) fn error_text(code: u8) -> Option<&'static str> {
    Some(match code {
        0x00 => "#NULL!",
        0x07 => "#DIV/0!",
        0x0F => "#VALUE!",
        0x17 => "#REF!",
        0x1D => "#NAME?",
        0x24 => "#NUM!",
        0x2A => "#N/A",
        0x2B => "#GETTING_DATA",
        _ => return None,
    })
}

#[cold]
fn unsupported(what: &str, ptg: u8, at: usize) -> Error {
    Error::new(ErrorKind::Unsupported(format!(
        "formula text: {what} (token {ptg:#04x} at byte {at} of the formula) is not decoded; \
         read without formulas for the cached values"
    )))
}

#[cold]
fn malformed(message: String) -> Error {
    Error::new(ErrorKind::Record(message))
}

#[cold]
fn cut_short(at: usize, len: usize) -> Error {
    malformed(format!(
        "a formula's tokens end at byte {len}, inside the token read at byte {at}"
    ))
}

#[cfg(test)]
mod tests;
