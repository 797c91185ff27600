//! `Workbook`'s metadata methods: defined names, a sheet's metadata,
//! dimension and hidden rows, and the Excel tables, each asked of the
//! workbook's format (`FormatBook`); the types are in `crate::metadata`.
//!
//! `metadata_handle` is a second handle for a workbook behind an `Arc` (Python
//! reads metadata through it without the GIL).

use std::io::{Read, Seek};

use super::{SheetSelector, Workbook};
use crate::contract::FormatBook;
use crate::error::Result;
use crate::metadata::{DefinedName, SheetMetadata, Table, find_table};
use crate::range::CellRange;

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
        self.book.tables(&self.sheets)
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
            book: self.book.clone(),
            sheets: self.sheets.clone(),
            shared_strings: None,
            styles: crate::styles::Styles::default(),
            date_system: self.date_system,
            limits: self.limits,
            links: crate::formula::Links::default(),
            encryption: None,
            input_handle: None,
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
        self.book.clone().tables(&self.sheets)
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
        self.book.defined_names(&self.sheets)
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
        let position = sheet.position(&self.sheets)?;
        self.book.sheet_metadata(&self.sheets[position])
    }

    /// What a sheet says before its cells: its dimension, hidden columns
    /// and whether rows are hidden by default, without merged ranges,
    /// hyperlinks or comments. An `.xlsx` part is read up to its cells
    /// only; the other formats read [`Workbook::sheet_metadata`].
    // Used by the Arrow layer only.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn sheet_head(&mut self, sheet: impl SheetSelector) -> Result<SheetMetadata> {
        let position = sheet.position(&self.sheets)?;
        self.book.sheet_head(&self.sheets[position])
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
        let position = sheet.position(&self.sheets)?;
        self.book.sheet_dimension(&self.sheets[position])
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
        let position = sheet.position(&self.sheets)?;
        self.book.hidden_rows(&self.sheets[position])
    }
}
