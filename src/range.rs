//! Rectangular cell ranges (`A1:C4`) and parsing of A1 references.
//!
//! Used by the materialised [`Sheet`](crate::Sheet) (its used range) and by
//! the sheet metadata (dimension, merged ranges, hyperlink anchors).

use std::fmt;
use std::str::FromStr;

use crate::cell::{CellRef, parse_reference};
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

#[cfg(test)]
mod tests {
    use super::*;

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
