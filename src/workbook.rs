//! The entry point: an opened workbook.

use std::io::{Cursor, Read, Seek};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::thread::Scope;

use crate::cell::Row;
use crate::date::DateSystem;
use crate::error::{Error, ErrorKind, Result};
use crate::format::NumberFormats;
use crate::formula::Links;
use crate::limits::Limits;
use crate::number_format::FormatKind;
use crate::ods::{self, OdsContainer, OdsSource};
use crate::package::archive::Archive;
use crate::package::{SheetInfo, find_workbook_part};
use crate::pipe::Pipe;
use crate::rows::{PartSource, SheetContext, SheetRows};
use crate::shared_strings::SharedStrings;
use crate::source::SharedFile;
use crate::styles::Styles;
use crate::xls::compound::{Compound, is_compound_file};
use crate::xls::rows::XlsRows;
use crate::xlsb;
use crate::xlsb::rows::XlsbRows;
use crate::xlsx::rows::XlsxRows;
use crate::xlsx::shared_strings::{XmlItems, read_shared_strings};
use crate::xlsx::styles::read_styles;
use crate::xlsx::workbook_part::read_layout;

/// An opened workbook: `.xlsx` / `.xlsm`, `.xlsb` or a legacy `.xls`
/// (see [`Workbook::file_format`]).
///
/// Opening reads the ZIP central directory, the workbook part and the
/// styles (for `.xls`: the compound file's directory and the workbook
/// globals); the shared strings of an `.xlsx` are parsed only as far as
/// the rows read need them; sheets are read only when asked for, as a
/// stream.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// let mut total = 0.0;
/// workbook.for_each_row("Data", |row| {
///     if let Some(amount) = row.get(1).and_then(|cell| cell.value().as_f64()) {
///         total += amount;
///     }
/// })?;
/// assert_eq!(total, 60.0);
/// # Ok(())
/// # }
/// ```
pub struct Workbook<R = SharedFile> {
    pub(crate) container: Container<R>,
    pub(crate) format: FileFormat,
    pub(crate) workbook_part: String,
    pub(crate) sheets: Vec<SheetInfo>,
    pub(crate) shared_strings: Option<SharedStrings>,
    pub(crate) styles: Styles,
    pub(crate) date_system: DateSystem,
    pub(crate) limits: Limits,
    /// What formulas refer to by index (`.xlsb`, `.xls`; empty for `.xlsx`).
    pub(crate) links: Links,
}

/// The file format of a workbook, found from its bytes (not its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileFormat {
    /// An Office Open XML workbook (`.xlsx`, `.xlsm`): XML parts in a ZIP
    /// package.
    Xlsx,
    /// An Excel binary workbook (`.xlsb`): BIFF12 record streams in a ZIP
    /// package.
    Xlsb,
    /// A legacy Excel workbook (`.xls`, Excel 5 to 2003): BIFF5 or BIFF8
    /// records in an OLE2 compound file.
    Xls,
    /// An OpenDocument spreadsheet (`.ods`: XML parts in a ZIP package;
    /// `.fods`: one flat XML document).
    Ods,
}

impl FileFormat {
    /// The format in words, as messages name it.
    pub fn description(self) -> &'static str {
        match self {
            FileFormat::Xlsx => "an Excel workbook (.xlsx)",
            FileFormat::Xlsb => "an Excel binary workbook (.xlsb)",
            FileFormat::Xls => "a legacy Excel workbook (.xls)",
            FileFormat::Ods => "an OpenDocument spreadsheet (.ods)",
        }
    }
}

/// What a workbook's sheets are read from. Each worker of the parallel
/// readers reads through its own clone (cheap: the directory is shared).
#[derive(Clone)]
pub(crate) enum Container<R> {
    /// A ZIP package of parts: `.xlsx`, `.xlsb`.
    Package(Archive<R>),
    /// An OLE2 compound file holding a BIFF workbook stream: `.xls`.
    Compound(Compound<R>),
    /// An OpenDocument spreadsheet: a package or a flat document.
    Ods(OdsContainer<R>),
}

impl<R: Read + Seek> Container<R> {
    /// The compressed size of a sheet's data: the parallel readers start
    /// with the biggest.
    pub(crate) fn sheet_size(&self, sheet: &SheetInfo) -> u64 {
        match self {
            Container::Package(archive) => archive.compressed_size(sheet.part()),
            Container::Compound(compound) => compound.sheet_size(sheet.position()),
            Container::Ods(ods) => ods.sheet_size(sheet),
        }
    }
}

/// Names a sheet: by position in [`Workbook::sheets`] (`usize`) or by name
/// (`&str`, `String`, `&String`).
///
/// ```
/// # fn main() -> Result<(), sheetstream::Error> {
/// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// let name: String = "Data".to_owned();
/// workbook.for_each_row(&name, |_row| ())?;
/// workbook.for_each_row(name, |_row| ())?;
/// # Ok(())
/// # }
/// ```
pub trait SheetSelector {
    /// The position of the sheet in `sheets`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::SheetNotFound`] when there is no such sheet.
    fn position(&self, sheets: &[SheetInfo]) -> Result<usize>;
}

impl SheetSelector for usize {
    fn position(&self, sheets: &[SheetInfo]) -> Result<usize> {
        if *self < sheets.len() {
            Ok(*self)
        } else {
            Err(Error::new(ErrorKind::SheetNotFound(format!(
                "at position {self} (the workbook has {})",
                sheets.len()
            ))))
        }
    }
}

impl SheetSelector for &str {
    fn position(&self, sheets: &[SheetInfo]) -> Result<usize> {
        sheets
            .iter()
            .position(|sheet| sheet.name() == *self)
            .ok_or_else(|| Error::new(ErrorKind::SheetNotFound(format!("named '{self}'"))))
    }
}

impl SheetSelector for String {
    fn position(&self, sheets: &[SheetInfo]) -> Result<usize> {
        self.as_str().position(sheets)
    }
}

impl SheetSelector for &String {
    fn position(&self, sheets: &[SheetInfo]) -> Result<usize> {
        self.as_str().position(sheets)
    }
}

/// What a row closure returns to go on or stop: `()` always goes on, a
/// `bool` goes on while `true`, and `ControlFlow` says it outright; its
/// `Break` value comes back from [`Workbook::for_each_row`] as
/// `Some(value)` (`None` when the rows ran out first).
///
/// ```
/// use std::ops::ControlFlow;
///
/// # fn main() -> Result<(), sheetstream::Error> {
/// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// // The first row whose column B is over 15.
/// let found = workbook.for_each_row("Data", |row| {
///     match row.get(1).and_then(|cell| cell.value().as_f64()) {
///         Some(amount) if amount > 15.0 => ControlFlow::Break(row.index()),
///         _ => ControlFlow::Continue(()),
///     }
/// })?;
/// assert_eq!(found, Some(2));
/// # Ok(())
/// # }
/// ```
pub trait RowFlow: Sized {
    /// What [`Workbook::for_each_row`] returns: `()`, or the `Break` value
    /// of a `ControlFlow` as an `Option`.
    type Output;

    /// Whether to go on, or the value to stop with.
    fn flow(self) -> ControlFlow<Self::Output>;

    /// What is returned when the rows ran out before the closure stopped.
    fn finished() -> Self::Output;

    /// Whether to read the next row.
    fn keep_going(self) -> bool {
        self.flow().is_continue()
    }
}

impl RowFlow for () {
    type Output = ();
    fn flow(self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    fn finished() {}
}

impl RowFlow for bool {
    type Output = ();
    fn flow(self) -> ControlFlow<()> {
        if self {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    }
    fn finished() {}
}

impl<B> RowFlow for ControlFlow<B> {
    type Output = Option<B>;
    fn flow(self) -> ControlFlow<Option<B>> {
        match self {
            ControlFlow::Continue(()) => ControlFlow::Continue(()),
            ControlFlow::Break(value) => ControlFlow::Break(Some(value)),
        }
    }
    fn finished() -> Option<B> {
        None
    }
}

/// Options for opening a workbook.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    limits: Limits,
}

impl OpenOptions {
    /// Default options.
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// Use these limits instead of the defaults.
    pub fn limits(mut self, limits: Limits) -> OpenOptions {
        self.limits = limits;
        self
    }

    /// Opens a workbook file.
    ///
    /// # Errors
    ///
    /// As [`Workbook::open`].
    pub fn open(&self, path: impl AsRef<Path>) -> Result<Workbook> {
        self.from_reader(SharedFile::open(path)?)
    }

    /// Opens a workbook from any seekable reader.
    ///
    /// # Errors
    ///
    /// As [`Workbook::open`].
    pub fn from_reader<R: Read + Seek>(&self, reader: R) -> Result<Workbook<R>> {
        Workbook::with_limits(reader, self.limits)
    }
}

impl Workbook {
    /// Opens a workbook file with the default [`Limits`].
    ///
    /// # Errors
    ///
    /// The file cannot be read, is neither a ZIP archive nor a `.xls`
    /// compound file (an encrypted workbook is an OLE2 file too:
    /// [`ErrorKind::NotZip`] or [`ErrorKind::Encrypted`]), is not a
    /// spreadsheet package, or its workbook, styles or shared strings (the
    /// `.xls` globals) are malformed.
    pub fn open(path: impl AsRef<Path>) -> Result<Workbook> {
        OpenOptions::new().open(path)
    }
}

impl Workbook<Cursor<Arc<[u8]>>> {
    /// Opens a workbook held in memory. The bytes are shared, not copied,
    /// by the threads of the parallel readers.
    ///
    /// # Errors
    ///
    /// As [`Workbook::open`].
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> Result<Workbook<Cursor<Arc<[u8]>>>> {
        Workbook::from_reader(Cursor::new(bytes.into()))
    }
}

impl<R> Workbook<R> {
    /// The workbook's file format, as its bytes say.
    pub fn file_format(&self) -> FileFormat {
        self.format
    }

    /// The sheets in workbook order, hidden ones included.
    pub fn sheets(&self) -> &[SheetInfo] {
        &self.sheets
    }

    /// The workbook's date system (1900, or 1904 for old Mac workbooks).
    pub fn date_system(&self) -> DateSystem {
        self.date_system
    }

    /// What the number format of cell style `style` ([`Cell::style`](crate::Cell::style))
    /// shows a number as: the date kinds the typed layers tell apart, and
    /// whether it shows a fraction. Styles the workbook does not have are
    /// General.
    pub fn format_kind(&self, style: u32) -> FormatKind {
        self.styles.format_kind(style)
    }

    /// The kind of every cell style's number format, indexed by style
    /// ([`Cell::style`](crate::Cell::style)); a style past the end is General.
    pub fn format_kinds(&self) -> &[FormatKind] {
        self.styles.format_kinds()
    }

    /// The number format of each cell style, parsed at open: what
    /// [`Cell::formatted_into`](crate::Cell::formatted_into) renders with.
    /// Clone it (cheaply) to use it inside a row closure.
    pub fn number_formats(&self) -> &NumberFormats {
        self.styles.number_formats()
    }

    /// The shared strings table (empty when the workbook has none), read
    /// to its end. (Rows read it only as far as their cells need it.)
    ///
    /// # Errors
    ///
    /// The shared strings part is damaged or breaks a limit.
    pub fn shared_strings(&self) -> Result<&SharedStrings> {
        static EMPTY: SharedStrings = SharedStrings::empty();
        match &self.shared_strings {
            Some(strings) => strings.load().map(|()| strings),
            None => Ok(&EMPTY),
        }
    }

    /// How many shared strings have been parsed so far (a read that stops
    /// early parses only a prefix of the table).
    #[doc(hidden)]
    pub fn parsed_shared_strings(&self) -> usize {
        self.shared_strings
            .as_ref()
            .map_or(0, SharedStrings::parsed)
    }
}

impl<R: Read + Seek> Workbook<R> {
    /// Opens a workbook from any seekable reader.
    ///
    /// # Errors
    ///
    /// As [`Workbook::open`].
    pub fn from_reader(reader: R) -> Result<Workbook<R>> {
        Workbook::with_limits(reader, Limits::default())
    }

    fn with_limits(mut reader: R, limits: Limits) -> Result<Workbook<R>> {
        if is_compound_file(&mut reader)? {
            return crate::xls::open(reader, limits);
        }
        if ods::package::is_flat_document(&mut reader)? {
            let book = ods::open_flat(&mut reader, &limits)?;
            return Ok(Workbook::of_ods(book, OdsSource::Flat(reader), limits));
        }
        let mut archive = Archive::new(reader)?;
        if ods::package::is_spreadsheet_package(&mut archive, &limits)? {
            let book = ods::open_package(&mut archive, &limits)?;
            return Ok(Workbook::of_ods(book, OdsSource::Package(archive), limits));
        }
        let workbook_part = find_workbook_part(&mut archive, &limits)?;
        if xlsb::is_binary_workbook(&mut archive, &workbook_part, &limits)? {
            let (layout, styles, shared_strings, links) =
                xlsb::read_workbook(&mut archive, &workbook_part, &limits)?;
            return Ok(Workbook {
                container: Container::Package(archive),
                format: FileFormat::Xlsb,
                workbook_part: layout.workbook_part,
                sheets: layout.sheets,
                shared_strings,
                styles,
                date_system: layout.date_system,
                limits,
                links,
            });
        }
        let layout = read_layout(&mut archive, workbook_part, &limits)?;
        let styles = match &layout.styles_part {
            Some(part) => {
                let bytes = archive.read_part(part, &limits)?;
                read_styles(&bytes, layout.date_system).map_err(|err| err.with_part(part))?
            }
            None => Styles::general(layout.date_system),
        };
        // Parsed as far as rows need it (a stored part, rare, at once).
        let shared_strings = match &layout.shared_strings_part {
            Some(part) => Some(
                match archive.open_part_owned(part, limits.max_part_bytes, &limits)? {
                    Some(reader) => {
                        let items = XmlItems::new(reader, &limits);
                        SharedStrings::lazy(Box::new(items), &limits, part)
                    }
                    None => {
                        let reader = archive.open_part(part, limits.max_part_bytes, &limits)?;
                        read_shared_strings(reader, &limits).map_err(|err| err.with_part(part))?
                    }
                },
            ),
            None => None,
        };
        Ok(Workbook {
            container: Container::Package(archive),
            format: FileFormat::Xlsx,
            workbook_part: layout.workbook_part,
            sheets: layout.sheets,
            shared_strings,
            styles,
            date_system: layout.date_system,
            limits,
            links: Links::default(),
        })
    }

    /// An opened `.ods` workbook.
    fn of_ods(book: ods::OdsBook, source: OdsSource<R>, limits: Limits) -> Workbook<R> {
        let workbook_part = match &source {
            OdsSource::Package(_) => ods::CONTENT_PART,
            OdsSource::Flat(_) => ods::FLAT_PART,
        };
        Workbook {
            container: Container::Ods(OdsContainer {
                source,
                layout: Arc::new(book.layout),
            }),
            format: FileFormat::Ods,
            workbook_part: workbook_part.to_owned(),
            sheets: book.sheets,
            shared_strings: None,
            styles: book.styles,
            date_system: book.date_system,
            limits,
            links: Links::default(),
        }
    }

    /// The workbook's ZIP package.
    pub(crate) fn package(&mut self) -> Result<&mut Archive<R>> {
        match &mut self.container {
            Container::Package(archive) => Ok(archive),
            Container::Compound(_) | Container::Ods(_) => Err(Error::package(
                "a package part asked of a workbook that is no OOXML package",
            )),
        }
    }

    /// A pull reader over the rows of a sheet.
    ///
    /// The reader borrows the workbook mutably (it reads through the
    /// workbook's file handle), so one workbook has one pull reader at a
    /// time. To stream two sheets side by side, open the workbook twice:
    /// cheap, since opening reads only the directory and the small parts,
    /// and [`Workbook::from_bytes`] shares the bytes. (Or read every sheet
    /// at once with [`Workbook::parallel`].)
    ///
    /// ```
    /// # fn main() -> Result<(), sheetstream::Error> {
    /// let bytes = std::fs::read("examples/data/sales.xlsx")?;
    /// let bytes: std::sync::Arc<[u8]> = bytes.into();
    /// let mut left = sheetstream::Workbook::from_bytes(bytes.clone())?;
    /// let mut right = sheetstream::Workbook::from_bytes(bytes)?;
    /// let (mut a, mut b) = (left.rows(0)?, right.rows(0)?);
    /// while let (Some(x), Some(y)) = (a.next_row()?, b.next_row()?) {
    ///     assert_eq!(x.index(), y.index());
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// No such sheet, or its part is missing from the archive.
    pub fn rows(&mut self, sheet: impl SheetSelector) -> Result<SheetRows<'_>> {
        let position = sheet.position(&self.sheets)?;
        let Workbook {
            container,
            format,
            sheets,
            shared_strings,
            styles,
            date_system,
            limits,
            links,
            ..
        } = self;
        let context = SheetContext {
            shared_strings: shared_strings.as_ref(),
            styles,
            date_system: *date_system,
            links,
        };
        open_sheet_rows(*format, container, &sheets[position], context, limits)
    }

    /// Rows of the sheet at `position`, read through `container`, a clone
    /// of this workbook's: a reader from a shared workbook (the owned Arrow
    /// reader's worker thread). With `scope`, a package's part is inflated
    /// on a thread of it (see [`pipelined_sheet_rows`]).
    #[cfg(feature = "arrow")]
    pub(crate) fn rows_through<'scope, 'env, 'a>(
        &'env self,
        container: &'a mut Container<R>,
        position: usize,
        scope: Option<&'scope Scope<'scope, 'env>>,
    ) -> Result<SheetRows<'a>>
    where
        R: Clone + Send + 'env,
        'env: 'a,
    {
        let context = SheetContext {
            shared_strings: self.shared_strings.as_ref(),
            styles: &self.styles,
            date_system: self.date_system,
            links: &self.links,
        };
        let info = &self.sheets[position];
        match scope {
            Some(scope) => pipelined_sheet_rows(
                scope,
                self.format,
                container,
                info,
                context,
                &self.limits,
                2,
            ),
            None => open_sheet_rows(self.format, container, info, context, &self.limits),
        }
    }

    /// Calls `f` with each row of a sheet, in file order, until it asks to
    /// stop (see [`RowFlow`]). Returns `()` for closures returning `()` or
    /// `bool`; for `ControlFlow<B>`, `Some` of the `Break` value, or `None`
    /// when the rows ran out.
    ///
    /// # Errors
    ///
    /// As [`Workbook::rows`] and [`SheetRows::next_row`].
    pub fn for_each_row<F, T>(&mut self, sheet: impl SheetSelector, mut f: F) -> Result<T::Output>
    where
        F: FnMut(Row<'_>) -> T,
        T: RowFlow,
    {
        let mut rows = self.rows(sheet)?;
        while let Some(row) = rows.next_row()? {
            if let ControlFlow::Break(value) = f(row).flow() {
                return Ok(value);
            }
        }
        Ok(T::finished())
    }
}

/// A pull reader over one sheet of a workbook in `format`, read through
/// `container` and resolved against `context`: what [`Workbook::rows`],
/// the owned Arrow reader and the parallel readers share.
pub(crate) fn open_sheet_rows<'a, R: Read + Seek>(
    format: FileFormat,
    container: &'a mut Container<R>,
    info: &'a SheetInfo,
    context: SheetContext<'a>,
    limits: &Limits,
) -> Result<SheetRows<'a>> {
    match container {
        Container::Package(archive) => {
            let source = match format {
                FileFormat::Xlsb => {
                    archive.open_binary_part(info.part(), limits.max_part_bytes, limits)
                }
                _ => archive.open_part(info.part(), limits.max_part_bytes, limits),
            }
            .map_err(|err| err.with_sheet(info.name()))?;
            Ok(sheet_part_rows(
                format,
                PartSource::Reader(source),
                info,
                context,
                limits,
            ))
        }
        Container::Compound(compound) => crate::xls::open_rows(compound, info, context, limits),
        Container::Ods(ods) => ods.rows(info, context, limits).map(SheetRows::ods),
    }
}

/// As [`open_sheet_rows`], but a package's part is inflated on a thread of
/// `scope` while this one scans (two threads on one sheet); other
/// containers are read on this thread.
pub(crate) fn pipelined_sheet_rows<'scope, 'env, 'a, R>(
    scope: &'scope Scope<'scope, 'env>,
    format: FileFormat,
    container: &'a mut Container<R>,
    info: &'env SheetInfo,
    context: SheetContext<'env>,
    limits: &Limits,
    threads: usize,
) -> Result<SheetRows<'a>>
where
    R: Read + Seek + Clone + Send + 'env,
    'env: 'a,
{
    match container {
        Container::Package(archive) => {
            let binary = format == FileFormat::Xlsb;
            let pipe = Pipe::spawn(scope, archive.clone(), info, *limits, binary);
            Ok(sheet_part_rows(
                format,
                PartSource::Pipe(pipe),
                info,
                context,
                limits,
            ))
        }
        Container::Compound(compound) => {
            crate::xls::open_rows_in_blocks(scope, compound, info, context, limits, threads)
        }
        Container::Ods(ods) => ods
            .pipelined_rows(scope, info, context, limits)
            .map(SheetRows::ods),
    }
}

/// A pull reader over one sheet part of a package, its bytes from `source`
/// (read here, or inflated on another thread).
pub(crate) fn sheet_part_rows<'a>(
    format: FileFormat,
    source: PartSource<'a>,
    info: &'a SheetInfo,
    context: SheetContext<'a>,
    limits: &Limits,
) -> SheetRows<'a> {
    match format {
        FileFormat::Xlsx => SheetRows::xlsx(XlsxRows::new(
            source,
            context,
            info.name(),
            info.part(),
            limits,
        )),
        FileFormat::Xlsb => SheetRows::xlsb(XlsbRows::new(
            source,
            context,
            info.name(),
            info.part(),
            limits,
        )),
        // A compound file's sheets are never parts of a package, and an
        // .ods sheet is read through its container.
        FileFormat::Xls | FileFormat::Ods => SheetRows::xls(XlsRows::failing(
            Error::package("a .xls or .ods sheet read as a package part"),
            context,
            info.name(),
            info.part(),
            limits,
        )),
    }
}
