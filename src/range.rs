//! Rectangular cell ranges (`A1:C4`) and parsing of A1 references.
//!
//! Used by the materialised [`Sheet`](crate::Sheet) (its used range) and by
//! the sheet metadata (dimension, merged ranges, hyperlink anchors).
//!
//! `CellRange` and the A1 parsing of `CellRef`; `SheetRange`, the `range`
//! option's language (`B3:F100`, `A5:`, `B:F`, `3:10`, `C5`, `'My
//! Sheet'!B3:F100`: open-ended, with a sheet).

use std::fmt;
use std::str::FromStr;

use crate::cell::{CellRef, MAX_COLUMN, MAX_ROW, parse_reference, parse_row_number};
use crate::error::{Error, ErrorKind};

impl FromStr for CellRef {
    type Err = Error;

    /// Parses an A1 reference such as `B3`, `$B$3` or `xfd1048576`.
    ///
    /// ```
    /// use sheetstream::CellRef;
    ///
    /// let cell: CellRef = "B3".parse()?;
    /// assert_eq!((cell.row, cell.column), (2, 1));
    /// assert!("B0".parse::<CellRef>().is_err());
    /// # Ok::<(), sheetstream::Error>(())
    /// ```
    fn from_str(text: &str) -> Result<CellRef, Error> {
        match parse_reference(text.trim().as_bytes()) {
            Some((Some(row), column)) => Ok(CellRef { row, column }),
            _ => Err(Error::new(ErrorKind::CellReference(format!(
                "`{text}` is not an A1 cell reference"
            )))),
        }
    }
}

/// A rectangle of cells, from its top-left to its bottom-right cell
/// (both included). Shown and parsed in A1 notation: `A1:C4`, or `B2` for a
/// single cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellRange {
    /// The top-left cell.
    pub first: CellRef,
    /// The bottom-right cell.
    pub last: CellRef,
}

impl CellRange {
    /// The range between two corners, in any order.
    pub fn new(a: CellRef, b: CellRef) -> CellRange {
        CellRange {
            first: CellRef {
                row: a.row.min(b.row),
                column: a.column.min(b.column),
            },
            last: CellRef {
                row: a.row.max(b.row),
                column: a.column.max(b.column),
            },
        }
    }

    /// Whether the range holds a cell.
    pub fn contains(&self, cell: CellRef) -> bool {
        (self.first.row..=self.last.row).contains(&cell.row)
            && (self.first.column..=self.last.column).contains(&cell.column)
    }

    /// The number of rows the range spans.
    pub fn height(&self) -> u32 {
        self.last.row - self.first.row + 1
    }

    /// The number of columns the range spans.
    pub fn width(&self) -> u32 {
        self.last.column - self.first.column + 1
    }
}

impl fmt::Display for CellRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}:{}", self.first, self.last)
        }
    }
}

impl FromStr for CellRange {
    type Err = Error;

    /// Parses `A1:C4` (corners in any order, `$` allowed) or a single cell.
    ///
    /// ```
    /// use sheetstream::CellRange;
    ///
    /// let range: CellRange = "$C$4:a1".parse()?;
    /// assert_eq!(range.to_string(), "A1:C4");
    /// assert_eq!((range.width(), range.height()), (3, 4));
    /// # Ok::<(), sheetstream::Error>(())
    /// ```
    fn from_str(text: &str) -> Result<CellRange, Error> {
        let bad = || {
            Error::new(ErrorKind::CellReference(format!(
                "`{text}` is not an A1 cell range"
            )))
        };
        let (a, b) = match text.split_once(':') {
            Some((a, b)) => (a, b),
            None => (text, text),
        };
        let a: CellRef = a.parse().map_err(|_| bad())?;
        let b: CellRef = b.parse().map_err(|_| bad())?;
        Ok(CellRange::new(a, b))
    }
}

/// The cells of a sheet to read: a rectangle, possibly open to the right
/// or below, possibly naming its sheet. The `range` option of every
/// interface (and Spark's `dataAddress`) parses into one.
///
/// | Text                        | Rows             | Columns        |
/// |-----------------------------|------------------|----------------|
/// | `B3:F100`                   | 3 to 100         | B to F         |
/// | `A5:`                       | 5 to the last    | A to the last  |
/// | `C5` (spark-excel's start)  | 5 to the last    | C to the last  |
/// | `A5:F`                      | 5 to the last    | A to F         |
/// | `B:F`                       | every row        | B to F         |
/// | `3:10`                      | 3 to 10          | every column   |
///
/// A sheet may come first: `Sheet1!B3:F100`, or quoted as Excel writes a
/// name with spaces, `'My Sheet'!C5:H10` (a `'` inside doubled). `$`
/// signs are allowed and mean nothing.
///
/// ```
/// use sheetstream::SheetRange;
///
/// let range: SheetRange = "'Q1 ''24'!$B$3:F100".parse()?;
/// assert_eq!(range.sheet.as_deref(), Some("Q1 '24"));
/// assert_eq!((range.first_row, range.last_row), (2, Some(99)));
/// assert_eq!((range.first_column, range.last_column), (1, Some(5)));
/// let open: SheetRange = "A5:".parse()?;
/// assert_eq!((open.first_row, open.last_row, open.last_column), (4, None, None));
/// assert!("B3:F100x".parse::<SheetRange>().is_err());
/// # Ok::<(), sheetstream::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SheetRange {
    /// The sheet the range names, if it names one.
    pub sheet: Option<String>,
    /// The first row (0-based).
    pub first_row: u32,
    /// The last row (0-based, included); None: to the sheet's end.
    pub last_row: Option<u32>,
    /// The first column (0-based).
    pub first_column: u32,
    /// The last column (0-based, included); None: every column from the
    /// first on.
    pub last_column: Option<u32>,
}

impl SheetRange {
    /// The range of these cells, on no named sheet.
    pub fn new(range: CellRange) -> SheetRange {
        SheetRange {
            sheet: None,
            first_row: range.first.row,
            last_row: Some(range.last.row),
            first_column: range.first.column,
            last_column: Some(range.last.column),
        }
    }

    /// The same range on the named sheet.
    pub fn on_sheet(mut self, sheet: Option<String>) -> SheetRange {
        self.sheet = sheet;
        self
    }

    /// Whether a column (0-based) is inside.
    pub fn contains_column(&self, column: u32) -> bool {
        column >= self.first_column && self.last_column.is_none_or(|last| column <= last)
    }
}

impl fmt::Display for SheetRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(sheet) = &self.sheet {
            write!(f, "'{}'!", sheet.replace('\'', "''"))?;
        }
        let first = CellRef {
            row: self.first_row,
            column: self.first_column,
        };
        match (self.last_row, self.last_column) {
            (Some(row), Some(column)) => write!(f, "{first}:{}", CellRef { row, column }),
            (None, None) => write!(f, "{first}:"),
            (None, Some(column)) => {
                let last = CellRef { row: 0, column }.to_string();
                write!(f, "{first}:{}", last.trim_end_matches('1'))
            }
            (Some(row), None) => write!(f, "{first}:XFD{}", row + 1),
        }
    }
}

/// One end of a range: a cell, column letters, row digits, or nothing.
enum End {
    Cell(CellRef),
    Column(u32),
    Row(u32),
    Open,
}

impl FromStr for SheetRange {
    type Err = Error;

    /// Parses the forms [`SheetRange`] lists; anything else is an
    /// [`ErrorKind::CellReference`] error saying what is read.
    fn from_str(text: &str) -> Result<SheetRange, Error> {
        let bad = |why: &str| {
            Error::new(ErrorKind::CellReference(format!(
                "`{text}` is not a range: {why} (ranges read: B3:F100, A5:, B:F, 3:10, C5, \
                 Sheet1!B3:F100, 'My Sheet'!B3:F100)"
            )))
        };
        let (sheet, area) = split_sheet(text.trim()).map_err(bad)?;
        if area.trim().is_empty() {
            return Err(bad("no cells"));
        }
        let area = area.replace('$', "");
        let end = |text: &str| -> Result<End, Error> {
            let text = text.trim();
            if text.is_empty() {
                return Ok(End::Open);
            }
            if text.bytes().all(|b| b.is_ascii_digit()) {
                return parse_row_number(text.as_bytes())
                    .map(End::Row)
                    .ok_or_else(|| bad("a row number is 1 to 1048576"));
            }
            match parse_reference(text.as_bytes()) {
                Some((Some(row), column)) => Ok(End::Cell(CellRef { row, column })),
                Some((None, column)) => Ok(End::Column(column)),
                None => Err(bad(&format!("`{text}` is no cell, column or row"))),
            }
        };
        let (a, b) = match area.split_once(':') {
            Some((a, b)) => (end(a)?, Some(end(b)?)),
            None => (end(&area)?, None),
        };
        let (first_row, last_row, first_column, last_column) = match (a, b) {
            (End::Cell(a), None | Some(End::Open)) => (a.row, None, a.column, None),
            (End::Cell(a), Some(End::Cell(b))) => {
                let range = CellRange::new(a, b);
                (
                    range.first.row,
                    Some(range.last.row),
                    range.first.column,
                    Some(range.last.column),
                )
            }
            (End::Cell(a), Some(End::Column(b))) => {
                (a.row, None, a.column.min(b), Some(a.column.max(b)))
            }
            (End::Column(a), Some(End::Column(b))) => (0, None, a.min(b), Some(a.max(b))),
            (End::Row(a), Some(End::Row(b))) => (a.min(b), Some(a.max(b)), 0, None),
            (End::Open, _) => return Err(bad("no first cell")),
            (End::Column(_) | End::Row(_), None) => {
                return Err(bad("a lone column or row needs both ends (B:B, 3:3)"));
            }
            _ => return Err(bad("its two ends are not of one kind")),
        };
        debug_assert!(first_row <= MAX_ROW && first_column <= MAX_COLUMN);
        Ok(SheetRange {
            sheet,
            first_row,
            last_row,
            first_column,
            last_column,
        })
    }
}

/// Splits `Sheet1!A1:B2` or `'My Sheet'!A1:B2` into the sheet (unquoted)
/// and the cells.
fn split_sheet(text: &str) -> Result<(Option<String>, &str), &'static str> {
    if let Some(quoted) = text.strip_prefix('\'') {
        let mut name = String::new();
        let mut chars = quoted.char_indices();
        while let Some((at, c)) = chars.next() {
            if c != '\'' {
                name.push(c);
                continue;
            }
            if quoted[at + 1..].starts_with('\'') {
                name.push('\'');
                chars.next();
                continue;
            }
            return match quoted[at + 1..].strip_prefix('!') {
                Some(area) if !name.is_empty() => Ok((Some(name), area)),
                Some(_) => Err("an empty sheet name"),
                None => Err("a quoted sheet name must be followed by `!`"),
            };
        }
        return Err("the sheet name's quote is not closed");
    }
    match text.rsplit_once('!') {
        Some(("", _)) => Err("an empty sheet name"),
        Some((sheet, area)) => Ok((Some(sheet.to_owned()), area)),
        None => Ok((None, text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> (Option<String>, u32, Option<u32>, u32, Option<u32>) {
        let r: SheetRange = text.parse().unwrap();
        (
            r.sheet,
            r.first_row,
            r.last_row,
            r.first_column,
            r.last_column,
        )
    }

    #[test]
    fn parses_sheet_ranges() {
        assert_eq!(parts("B3:F100"), (None, 2, Some(99), 1, Some(5)));
        assert_eq!(
            parts("Sheet1!F100:B3"),
            (Some("Sheet1".into()), 2, Some(99), 1, Some(5))
        );
        assert_eq!(
            parts("'My ''Sheet'''!C5:H10").0.as_deref(),
            Some("My 'Sheet'")
        );
        let quoted: SheetRange = "'My ''Sheet'''!C5:H10".parse().unwrap();
        assert_eq!(quoted.to_string(), "'My ''Sheet'''!C5:H10");
        assert_eq!(parts("A5:"), (None, 4, None, 0, None));
        assert_eq!("A5:".parse::<SheetRange>().unwrap().to_string(), "A5:");
        assert_eq!(parts("C5"), (None, 4, None, 2, None));
        assert_eq!(parts("b:f"), (None, 0, None, 1, Some(5)));
        assert_eq!(parts("A5:F"), (None, 4, None, 0, Some(5)));
        assert_eq!("A5:F".parse::<SheetRange>().unwrap().to_string(), "A5:F");
        assert_eq!(parts("3:10"), (None, 2, Some(9), 0, None));
        assert_eq!(parts("$B$3:$F$100"), parts("B3:F100"));
        for bad in [
            "",
            "!A1",
            "Sheet1!",
            "'Sheet1",
            "'Sheet1'A1",
            ":B3",
            "B:3",
            "A0:B2",
            "B3:F100x",
            "XFE1",
            "B",
            "3",
            "A1:B2:C3",
        ] {
            let err = bad.parse::<SheetRange>().unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::CellReference(_)),
                "{bad}: {err}"
            );
            assert!(err.to_string().contains("is not a range"), "{bad}: {err}");
        }
    }

    #[test]
    fn parses_and_shows_ranges() {
        let range: CellRange = "B2:A1".parse().unwrap();
        assert_eq!(range.to_string(), "A1:B2");
        assert_eq!("C3".parse::<CellRange>().unwrap().to_string(), "C3");
        assert!("A1:".parse::<CellRange>().is_err());
        assert!("A:A".parse::<CellRange>().is_err());
        let whole: CellRange = "A1:XFD1048576".parse().unwrap();
        assert!(whole.contains(CellRef {
            row: 1_048_575,
            column: 16_383
        }));
        assert!(!range.contains(CellRef { row: 2, column: 0 }));
    }
}
