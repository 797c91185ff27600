//! Workbook and sheet metadata that streaming readers usually miss:
//! defined names, the sheet dimension, hidden columns and rows, merged
//! ranges, hyperlinks and comments (notes), and the workbook's Excel
//! tables ([`Table`], from `xlsx::tables`). The types are the same for
//! every format; each format reads them from its own parts
//! (`xlsx::metadata`, `xlsb::metadata`, `xls::metadata`).

use std::io::{Read, Seek};
use std::ops::RangeInclusive;

use crate::cell::CellRef;
use crate::error::Result;
use crate::range::CellRange;
use crate::workbook::{FileFormat, SheetSelector, Workbook};

/// A defined name (a named range, constant or formula) from the workbook.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DefinedName {
    /// The name, e.g. `Totals` or `_xlnm.Print_Area`.
    pub name: String,
    /// What it refers to, as written: a formula such as `Data!$B$2:$B$4`.
    pub refers_to: String,
    /// The sheet the name is local to (its position in
    /// [`Workbook::sheets`]), or `None` for a workbook-wide name.
    pub sheet: Option<usize>,
    /// Whether the name is hidden from the user.
    pub hidden: bool,
}

/// A hyperlink anchored on a cell or range.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hyperlink {
    /// The cells the link is on.
    pub range: CellRange,
    /// The target of the link's relationship: a URL, a file path, or for
    /// a target inside the package, its part name. `None` for links that
    /// only have a `location`.
    pub target: Option<String>,
    /// A place in the workbook (`Sheet2!A1`, a defined name), or the
    /// fragment of an external target.
    pub location: Option<String>,
    /// The text shown, when the link says.
    pub display: Option<String>,
    /// The tooltip.
    pub tooltip: Option<String>,
}

/// A cell comment (a note, in today's Excel).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Comment {
    /// The cell it is attached to.
    pub cell: CellRef,
    /// The author, from the comments part's list of authors.
    pub author: Option<String>,
    /// The text, rich text runs joined.
    pub text: String,
}

/// What a sheet says about itself besides its cells. Read by
/// [`Workbook::sheet_metadata`] without reading the cells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SheetMetadata {
    /// The used range as the file states it (`<dimension ref>`), which may
    /// be missing or wrong; [`Sheet::used_range`](crate::Sheet::used_range)
    /// computes it from the cells.
    pub dimension: Option<CellRange>,
    /// Hidden columns (0-based, inclusive ranges), in file order.
    pub hidden_columns: Vec<RangeInclusive<u32>>,
    /// Whether rows are hidden unless the sheet writes them
    /// (`<sheetFormatPr zeroHeight="1">`, how Excel hides every unused row):
    /// then [`Workbook::hidden_rows`] lists the written rows marked hidden,
    /// and every row the sheet does not write is hidden too.
    pub rows_hidden_by_default: bool,
    /// Merged ranges, in file order.
    pub merged: Vec<CellRange>,
    /// Hyperlinks, in file order.
    pub hyperlinks: Vec<Hyperlink>,
    /// Comments (notes), in file order.
    pub comments: Vec<Comment>,
}

impl SheetMetadata {
    /// Whether a column (0-based) is hidden.
    pub fn is_column_hidden(&self, column: u32) -> bool {
        self.hidden_columns
            .iter()
            .any(|range| range.contains(&column))
    }

    /// The merged range a cell belongs to, if any.
    pub fn merged_range_of(&self, cell: CellRef) -> Option<CellRange> {
        self.merged
            .iter()
            .copied()
            .find(|range| range.contains(cell))
    }
}

/// An Excel table (a ListObject: Insert > Table in Excel), read by
/// [`Workbook::tables`] from its own part without reading any cell.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Table {
    /// The table's name (`Table1`, `Sales`), as formulas refer to it.
    pub name: String,
    /// The name Excel shows (the same as `name` in files Excel writes).
    pub display_name: String,
    /// The sheet holding it: its position in [`Workbook::sheets`].
    pub sheet: usize,
    /// That sheet's name.
    pub sheet_name: String,
    /// The whole table: header row, data rows and totals row.
    pub range: CellRange,
    /// Header rows at the top of the range (1, or 0 for a table whose
    /// header row is hidden).
    pub header_row_count: u32,
    /// Totals rows at the bottom of the range (0 or 1).
    pub totals_row_count: u32,
    /// The column names, left to right, as the table defines them.
    pub columns: Vec<String>,
}

impl Table {
    /// The rows and columns of its data: the range without the header
    /// row, and without the totals row unless `include_totals_row`. None
    /// for a table without data rows.
    pub fn data_range(&self, include_totals_row: bool) -> Option<CellRange> {
        let first = self.range.first.row + self.header_row_count;
        let totals = if include_totals_row {
            0
        } else {
            self.totals_row_count
        };
        let last = self.range.last.row.checked_sub(totals)?;
        (first <= last).then_some(CellRange {
            first: CellRef {
                row: first,
                column: self.range.first.column,
            },
            last: CellRef {
                row: last,
                column: self.range.last.column,
            },
        })
    }

    /// Whether `name` names this table: Excel's table names are
    /// case-insensitive, and either its name or its display name counts.
    pub fn is_named(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        self.name.to_lowercase() == name || self.display_name.to_lowercase() == name
    }
}

/// The table of this name among `tables`, or an error listing those
/// there are.
pub(crate) fn find_table<'t>(tables: &'t [Table], name: &str) -> crate::Result<&'t Table> {
    Table::find(tables, name)
}

impl Table {
    /// The table of this name (case-insensitive) among `tables`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TableNotFound`](crate::ErrorKind::TableNotFound),
    /// listing the tables there are.
    pub fn find<'t>(tables: &'t [Table], name: &str) -> crate::Result<&'t Table> {
        tables
            .iter()
            .find(|table| table.is_named(name))
            .ok_or_else(|| {
                let known: Vec<&str> = tables.iter().map(|table| table.name.as_str()).collect();
                let known = if known.is_empty() {
                    "the workbook has no tables".to_owned()
                } else {
                    format!("the workbook's tables: {}", known.join(", "))
                };
                crate::Error::new(crate::ErrorKind::TableNotFound(format!(
                    "named '{name}' ({known})"
                )))
            })
    }
}

/// The tables of a package's workbook, by its format.
fn read_tables<R: Read + Seek>(
    format: FileFormat,
    archive: &mut crate::package::archive::Archive<R>,
    sheets: &[crate::SheetInfo],
    limits: &crate::Limits,
) -> Result<Vec<Table>> {
    match format {
        FileFormat::Xlsx => crate::xlsx::tables::read_tables(archive, sheets, limits, false),
        FileFormat::Xlsb => crate::xlsx::tables::read_tables(archive, sheets, limits, true),
        FileFormat::Xls | FileFormat::Ods => Ok(Vec::new()),
    }
}

impl<R: Read + Seek> Workbook<R> {
    /// The workbook's Excel tables (ListObjects), in sheet order: name,
    /// sheet, range, header and totals row counts, column names. Each is
    /// read from its own part (`xl/tables/tableN.xml`, in an `.xlsb`
    /// workbook the record stream `xl/tables/tableN.bin`, found through
    /// the sheet's relationships); no sheet's cells are read. An `.xls`
    /// workbook has none in what is read of it (an empty list).
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// for table in workbook.tables()? {
    ///     println!("{} on {} at {}: {:?}", table.name, table.sheet_name, table.range, table.columns);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// A sheet's relationships or a table part are missing or malformed.
    pub fn tables(&mut self) -> Result<Vec<Table>> {
        let limits = self.limits;
        let format = self.format;
        match &mut self.container {
            crate::workbook::Container::Package(archive) => {
                read_tables(format, archive, &self.sheets, &limits)
            }
            crate::workbook::Container::Compound(_) | crate::workbook::Container::Ods(_) => {
                Ok(Vec::new())
            }
        }
    }

    /// A second handle on this workbook for the metadata readers (defined
    /// names, [`Workbook::sheet_metadata`], [`Workbook::hidden_rows`],
    /// [`Workbook::tables`]), which take `&mut self`, when the workbook is
    /// shared behind an `Arc` (the Python package's, the Arrow layer's
    /// owned and many-sheet readers): the same file through a clone of its
    /// handle. It holds no shared strings or styles (those readers use
    /// none), so it is for metadata only: reading rows through it fails on
    /// the first shared string.
    #[doc(hidden)]
    pub fn metadata_handle(&self) -> Workbook<R>
    where
        R: Clone,
    {
        Workbook {
            container: self.container.clone(),
            format: self.format,
            workbook_part: self.workbook_part.clone(),
            sheets: self.sheets.clone(),
            shared_strings: None,
            styles: crate::styles::Styles::default(),
            date_system: self.date_system,
            limits: self.limits,
            links: crate::formula::Links::default(),
        }
    }

    /// [`Workbook::tables`] of a shared workbook (one behind an `Arc`),
    /// read through a clone of its file handle.
    ///
    /// # Errors
    ///
    /// As [`Workbook::tables`].
    pub fn tables_shared(&self) -> Result<Vec<Table>>
    where
        R: Clone,
    {
        match self.container.clone() {
            crate::workbook::Container::Package(mut archive) => {
                read_tables(self.format, &mut archive, &self.sheets, &self.limits)
            }
            crate::workbook::Container::Compound(_) | crate::workbook::Container::Ods(_) => {
                Ok(Vec::new())
            }
        }
    }

    /// The table of this name (case-insensitive, as Excel's names are).
    ///
    /// # Errors
    ///
    /// As [`Workbook::tables`]; no table of that name (the error lists the
    /// tables there are).
    pub fn table(&mut self, name: &str) -> Result<Table> {
        let tables = self.tables()?;
        find_table(&tables, name).cloned()
    }

    /// The defined names of the workbook, in file order.
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// for name in workbook.defined_names()? {
    ///     println!("{} = {} (sheet {:?})", name.name, name.refers_to, name.sheet);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The workbook part cannot be read or is malformed.
    pub fn defined_names(&mut self) -> Result<Vec<DefinedName>> {
        match self.format {
            FileFormat::Xlsx => self.xlsx_defined_names(),
            FileFormat::Xls => self.xls_defined_names(),
            FileFormat::Xlsb => self.xlsb_defined_names(),
            FileFormat::Ods => Ok(match &self.container {
                crate::workbook::Container::Ods(ods) => ods.defined_names(),
                _ => Vec::new(),
            }),
        }
    }

    /// The dimension, hidden columns (and whether rows are hidden by
    /// default), merged ranges, hyperlinks and comments of a sheet, read
    /// without reading its cells.
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// let metadata = workbook.sheet_metadata("Data")?;
    /// assert_eq!(metadata.dimension.map(|range| range.to_string()), Some("A1:E4".into()));
    /// assert!(metadata.merged.is_empty());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// No such sheet; its part, relationships or comments are missing
    /// (when referred to) or malformed.
    pub fn sheet_metadata(&mut self, sheet: impl SheetSelector) -> Result<SheetMetadata> {
        match self.format {
            FileFormat::Xlsx => self.xlsx_sheet_metadata(sheet),
            FileFormat::Xls => self.xls_sheet_metadata(sheet),
            FileFormat::Xlsb => self.xlsb_sheet_metadata(sheet),
            FileFormat::Ods => self.ods_sheet_metadata(sheet).map(|(metadata, _)| metadata),
        }
    }

    /// What a sheet says before its cells: its dimension, hidden columns
    /// and whether rows are hidden by default, without merged ranges,
    /// hyperlinks or comments. An `.xlsx` part is read up to its cells
    /// only; the other formats read [`Workbook::sheet_metadata`].
    // Used by the Arrow layer only.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn sheet_head(&mut self, sheet: impl SheetSelector) -> Result<SheetMetadata> {
        match self.format {
            FileFormat::Xlsx => self.xlsx_sheet_head(sheet),
            FileFormat::Xls | FileFormat::Xlsb => self.sheet_metadata(sheet),
            FileFormat::Ods => {
                let position = sheet.position(&self.sheets)?;
                let limits = self.limits;
                match &mut self.container {
                    crate::workbook::Container::Ods(ods) => {
                        ods.sheet_head(&self.sheets[position], &limits)
                    }
                    _ => Ok(SheetMetadata::default()),
                }
            }
        }
    }

    /// The dimension of a sheet as written (`<dimension ref="A1:E4"/>`),
    /// read from the start of its part only: reading stops at the cells.
    /// None when the sheet does not say (or says something unreadable).
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// assert_eq!(workbook.sheet_dimension("Data")?.map(|range| range.to_string()), Some("A1:E4".into()));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// No such sheet, its part is missing, or its start is malformed.
    pub fn sheet_dimension(&mut self, sheet: impl SheetSelector) -> Result<Option<CellRange>> {
        match self.format {
            FileFormat::Xlsx => self.xlsx_sheet_dimension(sheet),
            FileFormat::Xls => self.xls_sheet_dimension(sheet),
            FileFormat::Xlsb => self.xlsb_sheet_dimension(sheet),
            // An .ods sheet states no dimension.
            FileFormat::Ods => sheet.position(&self.sheets).map(|_| None),
        }
    }

    /// The hidden rows of a sheet (0-based), in file order. Only the row
    /// start tags are parsed; cells are skipped unread. In a sheet whose
    /// rows are hidden by default
    /// ([`SheetMetadata::rows_hidden_by_default`]), the rows it does not
    /// write are hidden as well.
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
    /// assert!(workbook.hidden_rows("Data")?.is_empty());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// No such sheet, its part is missing, or a row tag is malformed.
    pub fn hidden_rows(&mut self, sheet: impl SheetSelector) -> Result<Vec<u32>> {
        match self.format {
            FileFormat::Xlsx => self.xlsx_hidden_rows(sheet),
            FileFormat::Xls => self.xls_hidden_rows(sheet),
            FileFormat::Xlsb => self.xlsb_hidden_rows(sheet),
            FileFormat::Ods => self.ods_sheet_metadata(sheet).map(|(_, rows)| rows),
        }
    }

    /// An .ods sheet's metadata and hidden rows.
    fn ods_sheet_metadata(
        &mut self,
        sheet: impl SheetSelector,
    ) -> Result<(SheetMetadata, Vec<u32>)> {
        let position = sheet.position(&self.sheets)?;
        let limits = self.limits;
        match &mut self.container {
            crate::workbook::Container::Ods(ods) => {
                ods.sheet_metadata(&self.sheets[position], &limits)
            }
            _ => Ok(Default::default()),
        }
    }
}
