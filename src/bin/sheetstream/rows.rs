//! Which rows of a sheet a command reads: `--skip-rows`, `--header-row`,
//! `--no-header` and `--n-rows`, defined once for every command that reads
//! rows as records (`csv`, `jsonl`, `stats`, `parquet`, `arrow`, `schema`),
//! with one meaning and one default everywhere, the typed commands' (the
//! arrow layer's [`Header`]).
//!
//! Also `Roles`, which tells a sheet's rows apart as the arrow layer's
//! `Header` does; `ShapeArgs`, the typed commands' `--fill-merged`,
//! `--skip-hidden-*`, `--drop-empty-*` and `--stop-at-empty-row`; and
//! `WindowArgs`: `--range`, `--table`, `--include-totals-row`, which `csv` and
//! `jsonl` take too.

use clap::Args;
use sheetstream::arrow::{ArrowOptions, Header};
use sheetstream::{ColumnSpec, Row};

use crate::Failure;

/// The rows a command reads.
#[derive(Args, Clone, Debug, Default)]
pub struct RowArgs {
    /// Leave out the sheet's first N rows (rows 1 to N as Excel numbers
    /// them, empty ones counted) before the header row is looked for.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub skip_rows: u32,
    /// The row holding the column names, counted from 1; rows above it are
    /// left out. Default: the first row with a value, after --skip-rows.
    /// The typed commands (parquet, arrow, schema) also take several
    /// consecutive rows (`2,3` or `2-3`: a two-row header, names joined
    /// with a space, "2024 Q1") and `auto` (the header found past title
    /// rows: the first row whose cells cover more than half of the columns
    /// the sampled rows below it use).
    #[arg(long, value_name = "ROW|ROWS|auto", conflicts_with = "no_header",
          value_parser = parse_header_row)]
    pub header_row: Option<HeaderRowArg>,
    /// No header row: every row is data, and columns are named after
    /// their position (letters A, B, ...; column_1, column_2, ... in typed
    /// columns).
    #[arg(long)]
    pub no_header: bool,
    /// Read at most N data rows (rows with a value, after the header row)
    /// of each sheet; reading the sheet stops there.
    #[arg(long, visible_alias = "max-rows", value_name = "N")]
    pub n_rows: Option<u64>,
}

/// `--header-row` as given: one row, several (1-based, inclusive), or
/// `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderRowArg {
    Row(u32),
    Rows(u32, u32),
    Auto,
}

/// `N`, `N,N+1,...` or `N-M` (consecutive rows from 1), or `auto`.
fn parse_header_row(text: &str) -> Result<HeaderRowArg, String> {
    if text.eq_ignore_ascii_case("auto") {
        return Ok(HeaderRowArg::Auto);
    }
    let number = |part: &str| -> Result<u32, String> {
        match part.trim().parse::<u32>() {
            Ok(row) if row >= 1 => Ok(row),
            _ => Err(format!("`{part}` is not a row number from 1")),
        }
    };
    if let Some((first, last)) = text.split_once('-') {
        let (first, last) = (number(first)?, number(last)?);
        if last < first {
            return Err(format!("the rows {first}-{last} go backwards"));
        }
        return Ok(HeaderRowArg::Rows(first, last));
    }
    let rows: Vec<u32> = text.split(',').map(number).collect::<Result<_, _>>()?;
    if rows.windows(2).any(|pair| pair[1] != pair[0] + 1) {
        return Err("the header rows must be consecutive (2,3,4 or 2-4)".into());
    }
    Ok(match rows.as_slice() {
        [row] => HeaderRowArg::Row(*row),
        [first, .., last] => HeaderRowArg::Rows(*first, *last),
        [] => return Err("no row given".into()),
    })
}

/// Where the header row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderAt {
    /// The first row with a value, after the skipped rows.
    FirstWithValue,
    /// The row at this 0-based index.
    Row(u32),
    /// No header row.
    None,
}

impl RowArgs {
    pub fn header(&self) -> HeaderAt {
        match (self.no_header, self.header_row) {
            (true, _) => HeaderAt::None,
            (false, Some(HeaderRowArg::Row(row))) => HeaderAt::Row(row - 1),
            // The record commands refuse these (`check_columns`).
            (false, Some(HeaderRowArg::Rows(_, last))) => HeaderAt::Row(last - 1),
            (false, Some(HeaderRowArg::Auto)) => HeaderAt::FirstWithValue,
            (false, None) => HeaderAt::FirstWithValue,
        }
    }

    /// The same header for the arrow layer.
    pub fn arrow_header(&self) -> Header {
        match (self.no_header, self.header_row) {
            (false, Some(HeaderRowArg::Rows(first, last))) => {
                return Header::Rows {
                    first: first - 1,
                    last: last - 1,
                };
            }
            (false, Some(HeaderRowArg::Auto)) => return Header::Auto,
            _ => {}
        }
        match self.header() {
            HeaderAt::FirstWithValue => Header::FirstNonEmpty,
            HeaderAt::Row(index) => Header::Row(index),
            HeaderAt::None => Header::None,
        }
    }

    /// A `--columns` list that names header cells needs a header row.
    pub fn check_columns(&self, spec: Option<&ColumnSpec>) -> Result<(), Failure> {
        if matches!(
            self.header_row,
            Some(HeaderRowArg::Rows(..) | HeaderRowArg::Auto)
        ) {
            return Err(Failure::Usage(
                "--header-row with several rows or `auto` is for the typed commands (parquet, arrow, schema)".into(),
            ));
        }
        if self.no_header && spec.is_some_and(ColumnSpec::needs_header) {
            return Err(Failure::Usage(
                "--columns names header cells, but --no-header says there is no header row".into(),
            ));
        }
        Ok(())
    }

    /// The 0-based index of the first row a sheet's output may start at
    /// when the options say where (`--skip-rows`, `--header-row`).
    pub fn first_row(&self) -> u32 {
        match self.header() {
            HeaderAt::Row(index) => index.max(self.skip_rows),
            _ => self.skip_rows,
        }
    }

    /// A fresh tracker of one sheet's rows.
    pub fn roles(&self) -> Roles {
        Roles {
            skip: self.skip_rows,
            header: self.header(),
            found: false,
            data: 0,
            n_rows: self.n_rows,
        }
    }
}

/// What a row of a sheet is to the command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Skipped, or above the header row: left out.
    Above,
    /// The header row.
    Header,
    /// A data row (one without values too, which does not count).
    Data,
    /// Past the `--n-rows` limit: the sheet's reading may stop.
    Past,
}

/// One sheet's rows, in order: which is the header, which are data, and
/// when the limit is reached.
#[derive(Clone, Debug)]
pub struct Roles {
    skip: u32,
    header: HeaderAt,
    /// Whether the header row (or where it would be) has been passed.
    found: bool,
    /// Data rows with a value so far.
    data: u64,
    n_rows: Option<u64>,
}

impl Roles {
    /// The role of the next row of the sheet (rows come in order).
    pub fn role(&mut self, row: &Row<'_>) -> Role {
        let index = row.index();
        if index < self.skip {
            return Role::Above;
        }
        if !self.found {
            match self.header {
                HeaderAt::Row(at) if index < at => return Role::Above,
                HeaderAt::Row(at) => {
                    self.found = true;
                    if index == at {
                        return Role::Header;
                    }
                }
                HeaderAt::FirstWithValue if !row.holds_values() => return Role::Above,
                HeaderAt::FirstWithValue => {
                    self.found = true;
                    return Role::Header;
                }
                HeaderAt::None => self.found = true,
            }
        }
        if self.n_rows.is_some_and(|limit| self.data >= limit) {
            return Role::Past;
        }
        if row.holds_values() {
            self.data += 1;
        }
        Role::Data
    }
}

// Hand-made sheets (issue 26): merged cells, hidden rows and columns,
// empty rows and columns; the typed commands (parquet, arrow, schema).

/// What the typed commands do with a sheet's merged, hidden and empty
/// cells.
#[derive(Args, Clone, Debug, Default)]
pub struct ShapeArgs {
    /// Give every cell of a merged range its top-left cell's value.
    #[arg(long)]
    pub fill_merged: bool,
    /// Leave out the rows Excel marks hidden (also by an autofilter); the
    /// number left out is reported on stderr.
    #[arg(long)]
    pub skip_hidden_rows: bool,
    /// Leave out the columns Excel marks hidden.
    #[arg(long)]
    pub skip_hidden_columns: bool,
    /// Leave out the empty rows between data rows (by default they are
    /// rows of nulls).
    #[arg(long)]
    pub drop_empty_rows: bool,
    /// Leave out the columns without a header name and without a value in
    /// the sampled rows.
    #[arg(long)]
    pub drop_empty_cols: bool,
    /// End each table at its first empty row after the header (DuckDB's
    /// `stop_at_empty`).
    #[arg(long)]
    pub stop_at_empty_row: bool,
}

impl ShapeArgs {
    /// These options on the arrow layer's.
    pub fn apply(&self, options: ArrowOptions) -> ArrowOptions {
        options
            .fill_merged(self.fill_merged)
            .skip_hidden_rows(self.skip_hidden_rows)
            .skip_hidden_columns(self.skip_hidden_columns)
            .drop_empty_rows(self.drop_empty_rows)
            .drop_empty_cols(self.drop_empty_cols)
            .stop_at_empty_row(self.stop_at_empty_row)
    }
}

// Tables and ranges: which rectangle of a sheet the typed commands, csv
// and jsonl read.

/// `--range`, `--table` and `--include-totals-row`: a rectangle of the
/// sheet, or an Excel table by name, read as a pushdown (rows above
/// skipped, columns outside never read, reading stopped after the last
/// row).
#[derive(Args, Clone, Debug, Default)]
pub struct WindowArgs {
    /// Read only this range: B3:F100, A5: (to the end), B:F (whole
    /// columns), 3:10 (whole rows), C5 (from C5 on), with an optional
    /// sheet (Sheet1!B3:F100, 'My Sheet'!B3:F100) that picks the sheet
    /// when no --sheet does. Its first row is the header unless
    /// --header-row or --no-header says otherwise.
    #[arg(long, value_name = "RANGE", conflicts_with = "table")]
    pub range: Option<String>,
    /// Read the Excel table (Insert > Table) of this name, as `tables`
    /// lists them (case-insensitive), from whichever sheet holds it: its
    /// columns named by the table, its totals row left out.
    #[arg(long, value_name = "NAME")]
    pub table: Option<String>,
    /// With --table: keep the table's totals row.
    #[arg(long, requires = "table")]
    pub include_totals_row: bool,
}

impl WindowArgs {
    /// The range asked for, parsed.
    pub fn range(&self) -> Result<Option<sheetstream::SheetRange>, Failure> {
        self.range
            .as_deref()
            .map(|text| {
                text.parse()
                    .map_err(|err: sheetstream::Error| Failure::Usage(format!("--range: {err}")))
            })
            .transpose()
    }

    /// These options on the arrow layer's options.
    pub fn apply(
        &self,
        options: sheetstream::arrow::ArrowOptions,
    ) -> Result<sheetstream::arrow::ArrowOptions, Failure> {
        Ok(options
            .range(self.range()?)
            .table(self.table.clone())
            .include_totals_row(self.include_totals_row))
    }
}
