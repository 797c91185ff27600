//! The borrowed row and cell events handed to the user.
//!
//! `Row` carries `is_hidden` (from the row's tag, header or ROW record),
//! `Cell` its position, style and value; A1 references are parsed here.

use std::fmt;

use crate::date::DateTime;

/// The largest column index (0-based): XFD.
pub const MAX_COLUMN: u32 = 16_383;
/// The largest row index (0-based): row 1,048,576.
pub const MAX_ROW: u32 = 1_048_575;

/// A cell's value, borrowing its text from the reader.
///
/// Text borrows from the scan buffer, the shared strings table or the
/// reader's per-row arena; none of it is copied to the heap per cell. Call
/// [`Value::to_owned_text`] or copy what you need to keep past the row.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Value<'a> {
    /// A number (`t="n"`, or no type) whose style is not a date format.
    Number(f64),
    /// Text: a shared string, an inline string, or a formula's string result.
    Text(&'a str),
    /// A boolean.
    Bool(bool),
    /// An error value such as `#DIV/0!`.
    Error(&'a str),
    /// A date, time or duration: a number whose style is a date/time
    /// format, or an ISO 8601 `t="d"` cell.
    DateTime(DateTime),
}

impl Value<'_> {
    /// The number, if this is a number.
    #[inline]
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Number(number) => Some(number),
            _ => None,
        }
    }

    /// The text, if this is text.
    #[inline]
    pub fn as_str(&self) -> Option<&str> {
        match *self {
            Value::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The text as an owned `String`, if this is text.
    pub fn to_owned_text(&self) -> Option<String> {
        self.as_str().map(str::to_owned)
    }
}

impl fmt::Display for Value<'_> {
    /// The value as the `sheetstream csv` command writes it: numbers in
    /// their shortest form that reads back as the same double (plain digits
    /// for everyday magnitudes, an exponent below 1e-5 and from 1e16),
    /// text and error codes as they are, booleans as `TRUE`/`FALSE`, dates
    /// as [`DateTime`]'s `Display` writes them.
    ///
    /// ```
    /// use sheetstream::Value;
    /// assert_eq!(Value::Number(1.5e-7).to_string(), "1.5e-7");
    /// assert_eq!(Value::Number(42.0).to_string(), "42");
    /// assert_eq!(Value::Bool(false).to_string(), "FALSE");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Number(number) => crate::text::write_number(f, number),
            Value::Text(text) | Value::Error(text) => f.write_str(text),
            Value::Bool(flag) => f.write_str(if flag { "TRUE" } else { "FALSE" }),
            Value::DateTime(date) => fmt::Display::fmt(&date, f),
        }
    }
}

/// One non-empty cell of a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell<'a> {
    pub(crate) row: u32,
    pub(crate) column: u32,
    pub(crate) style: u32,
    pub(crate) value: Value<'a>,
    pub(crate) formula: Option<&'a str>,
}

impl<'a> Cell<'a> {
    /// The row index, 0-based (row 1 is 0).
    #[inline]
    pub fn row(&self) -> u32 {
        self.row
    }

    /// The column index, 0-based (column A is 0).
    #[inline]
    pub fn column(&self) -> u32 {
        self.column
    }

    /// The cell's A1 reference.
    #[inline]
    pub fn reference(&self) -> CellRef {
        CellRef {
            row: self.row,
            column: self.column,
        }
    }

    /// The index of the cell's style (`cellXfs` entry); 0 when it has none.
    #[inline]
    pub fn style(&self) -> u32 {
        self.style
    }

    /// The value.
    #[inline]
    pub fn value(&self) -> Value<'a> {
        self.value
    }

    /// The formula text, when the reader was asked for formulas
    /// ([`SheetRows::with_formulas`](crate::SheetRows::with_formulas)) and
    /// the cell has one written out (in `.xlsx`, cells that share a
    /// formula written on another cell have none of their own; in `.xlsb`
    /// and `.xls` each gets the shared formula as it reads from that cell,
    /// decompiled from its tokens). XML entities are decoded;
    /// unlike text values, formula text is not an escaped string in the
    /// format, so `_xHHHH_` stays as written (as in `_xlfn.CONCAT`).
    #[inline]
    pub fn formula(&self) -> Option<&'a str> {
        self.formula
    }
}

/// One row of a sheet: its index and its non-empty cells in file order.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    pub(crate) index: u32,
    pub(crate) cells: &'a [Cell<'a>],
    /// Whether a column left out by a selection holds a value in this row.
    pub(crate) values_elsewhere: bool,
    /// Whether the sheet marks the row hidden.
    pub(crate) hidden: bool,
}

impl<'a> Row<'a> {
    /// The row index, 0-based (row 1 is 0).
    #[inline]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The cells that hold a value, in the order the file stores them.
    #[inline]
    pub fn cells(&self) -> &'a [Cell<'a>] {
        self.cells
    }

    /// Whether the row holds a value in any column, counting the columns
    /// a [selection](crate::SheetRows::select_columns) leaves out: a row
    /// of the sheet's table even when none of the selected columns has a
    /// value in it. Without a selection, whether [`Row::cells`] is not
    /// empty.
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let mut rows = workbook.rows("Data")?;
    /// // Column E (`Doubled`) has a value in rows 1 and 2 only.
    /// rows.select_columns(Some([4].into_iter().collect()));
    /// let mut seen = Vec::new();
    /// while let Some(row) = rows.next_row()? {
    ///     seen.push((row.index(), row.cells().len(), row.holds_values()));
    /// }
    /// assert_eq!(seen, [(0, 1, true), (1, 1, true), (2, 0, true), (3, 0, true)]);
    /// # Ok(())
    /// # }
    /// ```
    #[inline]
    pub fn holds_values(&self) -> bool {
        !self.cells.is_empty() || self.values_elsewhere
    }

    /// Whether the sheet marks the row hidden (xlsx `<row hidden="1">`,
    /// the hidden flag of an .xlsb row header or an .xls ROW record), as
    /// its row header says while the row streams. Rows a sheet hides by
    /// default (rows it does not write, under `zeroHeight`) are not seen
    /// here: [`SheetMetadata::rows_hidden_by_default`](crate::SheetMetadata::rows_hidden_by_default)
    /// says so.
    #[inline]
    pub fn is_hidden(&self) -> bool {
        self.hidden
    }

    /// The cell in a column (0-based), if it holds a value.
    #[inline]
    pub fn get(&self, column: u32) -> Option<&'a Cell<'a>> {
        self.cells.iter().find(|cell| cell.column == column)
    }
}

/// A cell position, shown in A1 notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellRef {
    /// Row index, 0-based.
    pub row: u32,
    /// Column index, 0-based.
    pub column: u32,
}

impl fmt::Display for CellRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut letters = [0u8; 3];
        write!(
            f,
            "{}{}",
            column_name(self.column, &mut letters),
            u64::from(self.row) + 1
        )
    }
}

/// Writes the letters of a 0-based column index into `buf` and returns them
/// (`0` is `A`, `16383` is `XFD`). Indices past XFD are clamped to XFD.
pub(crate) fn column_name(column: u32, buf: &mut [u8; 3]) -> &str {
    let mut n = column.min(MAX_COLUMN) + 1;
    let mut len = 0;
    let mut reversed = [0u8; 3];
    while n > 0 {
        let digit = ((n - 1) % 26) as u8;
        reversed[len] = b'A' + digit;
        len += 1;
        n = (n - 1) / 26;
    }
    for i in 0..len {
        buf[i] = reversed[len - 1 - i];
    }
    std::str::from_utf8(&buf[..len]).unwrap_or("A")
}

/// Parses an A1 reference (`B3`, `xfd1048576`; a `$` before either part is
/// allowed) into a 0-based row (None when the reference has no row digits)
/// and column. Returns None when it is malformed or past XFD1048576.
#[inline]
pub(crate) fn parse_reference(text: &[u8]) -> Option<(Option<u32>, u32)> {
    let mut pos = usize::from(text.first() == Some(&b'$'));
    let letters_start = pos;
    let mut column: u32 = 0;
    while pos < text.len() && pos - letters_start < 4 {
        // ASCII letters only; `| 0x20` folds upper case onto lower case.
        let letter = (text[pos] | 0x20).wrapping_sub(b'a');
        if letter >= 26 {
            break;
        }
        column = column * 26 + u32::from(letter) + 1;
        pos += 1;
    }
    if pos == letters_start || pos - letters_start > 3 || column - 1 > MAX_COLUMN {
        return None;
    }
    if text.get(pos) == Some(&b'$') {
        pos += 1;
    }
    if pos == text.len() {
        return Some((None, column - 1));
    }
    let row = parse_row_number(&text[pos..])?;
    Some((Some(row), column - 1))
}

/// Parses a 1-based row number into a 0-based index, refusing 0 and rows
/// past 1,048,576.
pub(crate) fn parse_row_number(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 7 {
        return None;
    }
    let mut row: u32 = 0;
    for &digit in digits {
        if !digit.is_ascii_digit() {
            return None;
        }
        row = row * 10 + u32::from(digit - b'0');
    }
    (1..=MAX_ROW + 1).contains(&row).then(|| row - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names_round_trip() {
        let mut buf = [0u8; 3];
        for (index, name) in [
            (0, "A"),
            (25, "Z"),
            (26, "AA"),
            (701, "ZZ"),
            (702, "AAA"),
            (16383, "XFD"),
        ] {
            assert_eq!(column_name(index, &mut buf), name);
            assert_eq!(parse_reference(name.as_bytes()), Some((None, index)));
        }
    }

    #[test]
    fn parses_and_bounds_references() {
        assert_eq!(parse_reference(b"B3"), Some((Some(2), 1)));
        assert_eq!(parse_reference(b"$b$3"), Some((Some(2), 1)));
        assert_eq!(
            parse_reference(b"XFD1048576"),
            Some((Some(1_048_575), 16_383))
        );
        assert_eq!(parse_reference(b"XFE1"), None);
        assert_eq!(parse_reference(b"A1048577"), None);
        assert_eq!(parse_reference(b"A0"), None);
        assert_eq!(parse_reference(b"1"), None);
        assert_eq!(parse_reference(b"AAAA1"), None);
        assert_eq!(parse_reference(b"A1x"), None);
        assert_eq!(
            CellRef {
                row: 1_048_575,
                column: 16_383
            }
            .to_string(),
            "XFD1048576"
        );
    }
}
