//! Column projection: which columns a reader resolves and hands out.
//!
//! A [`ColumnSet`] given to [`SheetRows::select_columns`](crate::SheetRows::select_columns)
//! (or [`Parallel::select_columns`](crate::Parallel::select_columns)) is a
//! pushdown: the scanner still finds every cell's boundaries, but the cells
//! of other columns are dropped before they are resolved, so they cost no
//! shared-string lookup, no text decoding, no date or boolean reading, and
//! their errors (a shared-string index out of range, a malformed number)
//! are never raised. A [`ColumnSpec`] is what a user asked for (`A:C,F`,
//! `Amount`, `3`), resolved against a header row into column indices in the
//! user's order.
//!
//! `ColumnSet` is a 2 KiB bitset over the 16,384 columns. In `.xlsx` the
//! scanner skips the cells of other columns where it finds them; the other
//! readers drop them before resolving anything (no shared-string lookup,
//! decoding or value parsing for them; their errors never raised).

use std::fmt;

use crate::cell::{MAX_COLUMN, column_name};
use crate::error::{Error, ErrorKind, Result};

const WORDS: usize = (MAX_COLUMN as usize + 1) / 64;

/// A set of 0-based column indices: a bitset over Excel's 16,384 columns
/// (2 KiB, held inline: making or copying one never touches the heap).
///
/// ```
/// use sheetstream::ColumnSet;
///
/// let columns: ColumnSet = [5, 0, 2].into_iter().collect();
/// assert!(columns.contains(2) && !columns.contains(1));
/// assert_eq!(columns.iter().collect::<Vec<_>>(), [0, 2, 5]);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ColumnSet {
    words: [u64; WORDS],
}

impl ColumnSet {
    /// An empty set.
    pub fn new() -> ColumnSet {
        ColumnSet { words: [0; WORDS] }
    }

    /// Adds a column (0-based: A is 0).
    ///
    /// # Panics
    ///
    /// When `column` is past XFD ([`MAX_COLUMN`]): no sheet has such a
    /// column, so asking for one is a bug in the caller.
    pub fn insert(&mut self, column: u32) {
        assert!(
            column <= MAX_COLUMN,
            "column index {column} is past XFD ({MAX_COLUMN})"
        );
        self.words[column as usize / 64] |= 1 << (column % 64);
    }

    /// Whether the set holds a column; false for any index past XFD.
    #[inline]
    pub fn contains(&self, column: u32) -> bool {
        self.words
            .get(column as usize / 64)
            .is_some_and(|word| word & (1 << (column % 64)) != 0)
    }

    /// The columns, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(index, &word)| {
            let base = index as u32 * 64;
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros();
                rest &= rest - 1;
                Some(base + bit)
            })
        })
    }

    /// How many columns the set holds.
    pub fn len(&self) -> usize {
        self.words
            .iter()
            .map(|word| word.count_ones() as usize)
            .sum()
    }

    /// Whether the set holds no column.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&word| word == 0)
    }
}

impl Default for ColumnSet {
    fn default() -> ColumnSet {
        ColumnSet::new()
    }
}

impl FromIterator<u32> for ColumnSet {
    /// # Panics
    ///
    /// As [`ColumnSet::insert`], for a column past XFD.
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> ColumnSet {
        let mut set = ColumnSet::new();
        set.extend(iter);
        set
    }
}

impl Extend<u32> for ColumnSet {
    fn extend<I: IntoIterator<Item = u32>>(&mut self, iter: I) {
        for column in iter {
            self.insert(column);
        }
    }
}

impl fmt::Debug for ColumnSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// One item of a column selection, before it is resolved against a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnSelector {
    /// A column by 0-based index (A is 0).
    Index(u32),
    /// The columns from the first to the last, both included, 0-based.
    Range(u32, u32),
    /// The column whose header cell holds exactly this text.
    Name(String),
}

/// A list of [`ColumnSelector`]s in the user's order, which is the order of
/// the output columns.
///
/// ```
/// use sheetstream::ColumnSpec;
///
/// # fn main() -> Result<(), sheetstream::Error> {
/// let spec = ColumnSpec::parse("Amount,A:B,5")?;
/// let header = [(0, "Item"), (1, "Region"), (3, "Amount")];
/// assert_eq!(spec.resolve(&header)?, [3, 0, 1, 4]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    selectors: Vec<ColumnSelector>,
}

impl ColumnSpec {
    /// Parses a comma-separated column list, the language of the CLI's
    /// `--columns`. Each item, with the spaces around it trimmed, is:
    ///
    /// - letters, one to three capitals up to `XFD`: that column (`F`);
    /// - two such joined by `:` or `-`: that range, both ends included
    ///   (`A:C`, in either order of writing the ends: `C:A` is `C,B,A`);
    /// - digits: a 1-based position (`3` is column C);
    /// - two numbers joined by `-` or `:`: a range of positions (`2-4`);
    /// - anything else: a header name, matched exactly (case and inner
    ///   spaces included) against the header row's text;
    /// - `"..."`: a header name even when it looks like letters or digits
    ///   (`"ID"`, `"2024"`); inside the quotes a comma is part of the name
    ///   and `""` is one quote.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ColumnSelection`] for an empty item, a position of 0 or
    /// past 16,384, or an unclosed quote.
    pub fn parse(spec: &str) -> Result<ColumnSpec> {
        let mut selectors = Vec::new();
        let mut rest = spec;
        loop {
            let trimmed = rest.trim_start();
            let (item, quoted, after) = if let Some(inner) = trimmed.strip_prefix('"') {
                let (name, after) = quoted_name(inner)?;
                let after = after.trim_start();
                if !(after.is_empty() || after.starts_with(',')) {
                    return Err(selection_error(format!(
                        "`{}` follows the quoted name \"{name}\"; separate items with commas",
                        after.split(',').next().unwrap_or(after)
                    )));
                }
                (name, true, after)
            } else {
                let end = trimmed.find(',').unwrap_or(trimmed.len());
                (trimmed[..end].trim_end().to_owned(), false, &trimmed[end..])
            };
            if item.is_empty() && !quoted {
                return Err(selection_error(format!(
                    "empty item in the column list `{spec}`"
                )));
            }
            selectors.push(if quoted {
                ColumnSelector::Name(item)
            } else {
                parse_item(&item)?
            });
            match after.strip_prefix(',') {
                Some(next) => rest = next,
                None => break,
            }
        }
        Ok(ColumnSpec { selectors })
    }

    /// A spec from selectors built by the caller.
    pub fn from_selectors(selectors: impl IntoIterator<Item = ColumnSelector>) -> ColumnSpec {
        ColumnSpec {
            selectors: selectors.into_iter().collect(),
        }
    }

    /// The selectors, in the user's order.
    pub fn selectors(&self) -> &[ColumnSelector] {
        &self.selectors
    }

    /// Whether a name is among the selectors, so that the header row must
    /// be read before the columns are known.
    pub fn needs_header(&self) -> bool {
        self.selectors
            .iter()
            .any(|selector| matches!(selector, ColumnSelector::Name(_)))
    }

    /// The output columns, 0-based, in the user's order (a range expanded
    /// in its written direction; a column asked for twice comes twice).
    /// Names are looked up in `header`, the header row's cells as (column,
    /// text); when two header cells hold the name, the leftmost wins.
    /// Collect the result into a [`ColumnSet`] for the pushdown.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ColumnSelection`] naming a name that no header cell
    /// holds, and listing the header.
    pub fn resolve(&self, header: &[(u32, &str)]) -> Result<Vec<u32>> {
        let mut columns = Vec::new();
        for selector in &self.selectors {
            match selector {
                ColumnSelector::Index(column) => columns.push((*column).min(MAX_COLUMN)),
                ColumnSelector::Range(first, last) => {
                    let (first, last) = ((*first).min(MAX_COLUMN), (*last).min(MAX_COLUMN));
                    if first <= last {
                        columns.extend(first..=last);
                    } else {
                        columns.extend((last..=first).rev());
                    }
                }
                ColumnSelector::Name(name) => {
                    let found = header
                        .iter()
                        .filter(|(_, text)| text == name)
                        .map(|&(column, _)| column)
                        .min();
                    match found {
                        Some(column) => columns.push(column),
                        None => return Err(unknown_name(name, header)),
                    }
                }
            }
        }
        Ok(columns)
    }
}

/// The name inside quotes (the opening one already taken) and what follows
/// the closing quote.
fn quoted_name(inner: &str) -> Result<(String, &str)> {
    let mut name = String::new();
    let mut rest = inner;
    loop {
        let Some(quote) = rest.find('"') else {
            return Err(selection_error(format!(
                "the quoted column name \"{inner} is not closed"
            )));
        };
        name.push_str(&rest[..quote]);
        rest = &rest[quote + 1..];
        match rest.strip_prefix('"') {
            Some(after) => {
                name.push('"');
                rest = after;
            }
            None => return Ok((name, rest)),
        }
    }
}

/// One unquoted, trimmed item.
fn parse_item(item: &str) -> Result<ColumnSelector> {
    if let Some(column) = letters(item) {
        return Ok(ColumnSelector::Index(column));
    }
    if item.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(ColumnSelector::Index(position(item)?));
    }
    if let Some(split) = item.find([':', '-']) {
        let (first, last) = (item[..split].trim(), item[split + 1..].trim());
        if let (Some(first), Some(last)) = (letters(first), letters(last)) {
            return Ok(ColumnSelector::Range(first, last));
        }
        let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        if digits(first) && digits(last) {
            return Ok(ColumnSelector::Range(position(first)?, position(last)?));
        }
    }
    Ok(ColumnSelector::Name(item.to_owned()))
}

/// Column letters: one to three capitals, up to XFD.
fn letters(text: &str) -> Option<u32> {
    if !(1..=3).contains(&text.len()) || !text.bytes().all(|b| b.is_ascii_uppercase()) {
        return None;
    }
    let column = text
        .bytes()
        .fold(0u32, |column, b| column * 26 + u32::from(b - b'A') + 1);
    (column - 1 <= MAX_COLUMN).then(|| column - 1)
}

/// A 1-based position, as a 0-based index.
fn position(digits: &str) -> Result<u32> {
    match digits.parse::<u32>() {
        Ok(n) if (1..=MAX_COLUMN + 1).contains(&n) => Ok(n - 1),
        _ => Err(selection_error(format!(
            "column position {digits} is not between 1 and {}",
            MAX_COLUMN + 1
        ))),
    }
}

fn unknown_name(name: &str, header: &[(u32, &str)]) -> Error {
    const SHOWN: usize = 20;
    let mut listed = String::new();
    for (i, (column, text)) in header.iter().take(SHOWN).enumerate() {
        let mut letters = [0u8; 3];
        if i > 0 {
            listed.push_str(", ");
        }
        listed.push_str(&format!(
            "{} {:?}",
            column_name(*column, &mut letters),
            text
        ));
    }
    if header.len() > SHOWN {
        listed.push_str(&format!(", and {} more", header.len() - SHOWN));
    }
    let listed = if header.is_empty() {
        "the header row is empty".to_owned()
    } else {
        format!("the header row holds {listed}")
    };
    selection_error(format!("no column named {name:?}: {listed}"))
}

fn selection_error(message: String) -> Error {
    Error::new(ErrorKind::ColumnSelection(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_holds_what_was_inserted() {
        let mut set = ColumnSet::new();
        assert!(set.is_empty());
        for column in [MAX_COLUMN, 0, 63, 64, 1000, 63] {
            set.insert(column);
        }
        assert_eq!(set.len(), 5);
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            [0, 63, 64, 1000, MAX_COLUMN]
        );
        assert!(set.contains(64) && !set.contains(65) && !set.contains(MAX_COLUMN + 1));
        assert!(!set.contains(u32::MAX));
        assert_eq!(format!("{set:?}"), "{0, 63, 64, 1000, 16383}");
        let all: ColumnSet = (0..=MAX_COLUMN).collect();
        assert_eq!(all.len(), 16_384);
        assert_eq!(all.iter().count(), 16_384);
    }

    #[test]
    #[should_panic(expected = "past XFD")]
    fn a_column_past_xfd_is_a_caller_bug() {
        ColumnSet::new().insert(MAX_COLUMN + 1);
    }

    #[test]
    fn items_parse_as_letters_positions_ranges_and_names() {
        use ColumnSelector::{Index, Name, Range};
        let spec =
            ColumnSpec::parse(r#"A:C, F ,3,2-4,XFD,Amount,id,"ID","a,""b""" ,C:A,Unit price"#)
                .unwrap();
        assert_eq!(
            spec.selectors(),
            [
                Range(0, 2),
                Index(5),
                Index(2),
                Range(1, 3),
                Index(MAX_COLUMN),
                Name("Amount".into()),
                Name("id".into()),
                Name("ID".into()),
                Name(r#"a,"b""#.into()),
                Range(2, 0),
                Name("Unit price".into()),
            ]
        );
        assert!(spec.needs_header());
        assert!(!ColumnSpec::parse("A:C,4").unwrap().needs_header());
        // Past XFD is no column: read as a name.
        assert_eq!(
            ColumnSpec::parse("XFE").unwrap().selectors(),
            [Name("XFE".into())]
        );
    }

    #[test]
    fn bad_lists_are_refused_with_the_reason() {
        for (spec, expected) in [
            ("A,,B", "empty item"),
            ("", "empty item"),
            ("0", "position 0 is not between 1 and 16384"),
            ("16385", "position 16385"),
            ("2-0", "position 0"),
            ("\"open", "not closed"),
            ("\"a\" b", "separate items with commas"),
        ] {
            let err = ColumnSpec::parse(spec).unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::ColumnSelection(_)),
                "{spec}: {err}"
            );
            assert!(err.to_string().contains(expected), "{spec}: {err}");
        }
    }

    #[test]
    fn resolving_keeps_the_users_order_and_names_what_is_missing() {
        let header = [(0, "Item"), (2, "Amount"), (4, "Amount"), (5, "Date")];
        let spec = ColumnSpec::parse("Date,B,Amount,C:A,2").unwrap();
        assert_eq!(spec.resolve(&header).unwrap(), [5, 1, 2, 2, 1, 0, 1]);
        let err = ColumnSpec::parse("Item,Price")
            .unwrap()
            .resolve(&header)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"bad column selection: no column named "Price": the header row holds A "Item", C "Amount", E "Amount", F "Date""#
        );
        let spec = ColumnSpec::from_selectors([ColumnSelector::Range(3, 5)]);
        assert_eq!(spec.resolve(&[]).unwrap(), [3, 4, 5]);
    }
}
