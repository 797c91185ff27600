//! The entry point: an opened workbook, whatever its format.
//!
//! `detect` finds the format from the bytes and opens it; `book` holds
//! the opened format ([`Book`], one arm per format); `encryption` an
//! encrypted workbook's opening, passwords and integrity check; this file
//! is [`Workbook`] itself (opening, the sheet list, rows), `metadata` its
//! metadata methods.

mod book;
mod detect;
mod encryption;
mod folder;
mod metadata;

use std::io::{Cursor, Read, Seek};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
#[cfg(feature = "arrow")]
use std::thread::Scope;

pub(crate) use book::Book;
pub use detect::{FileFormat, WORKBOOK_EXTENSIONS};
pub(crate) use encryption::EncryptionState;
pub use encryption::Integrity;
use encryption::Passwords;
pub use folder::workbooks_in;

use crate::cell::Row;
use crate::contract::{AtEnd, FormatBook, SheetContext, SheetRows};
use crate::date::DateSystem;
use crate::error::{Error, ErrorKind, Result};
use crate::format::NumberFormats;
use crate::formula::Links;
use crate::limits::Limits;
use crate::metadata::SheetInfo;
use crate::number_format::FormatKind;
use crate::shared_strings::SharedStrings;
use crate::source::SharedFile;
use crate::styles::Styles;

/// An opened workbook: `.xlsx` / `.xlsm`, `.xlsb` or a legacy `.xls`
/// (see [`Workbook::file_format`]).
///
/// Opening reads the ZIP central directory, the workbook part and the
/// styles (for `.xls`: the compound file's directory and the workbook
/// globals); the shared strings of an `.xlsx` are parsed only as far as
/// the rows read need them (a read that reaches a sheet's end parses the
/// rest of the table, so that its size limit and its well-formedness are
/// checked as at open); sheets are read only when asked for, as a
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
    /// The format's opened workbook and its container.
    pub(crate) book: Book<R>,
    pub(crate) sheets: Vec<SheetInfo>,
    pub(crate) shared_strings: Option<SharedStrings>,
    pub(crate) styles: Styles,
    pub(crate) date_system: DateSystem,
    pub(crate) limits: Limits,
    /// What formulas refer to by index (`.xlsb`, `.xls`; empty for `.xlsx`).
    pub(crate) links: Links,
    /// An encrypted workbook's scheme and integrity check.
    pub(crate) encryption: Option<EncryptionState>,
    /// Another handle on an encrypted package's input, for the integrity
    /// check that runs once every worksheet was read: set when the reader
    /// clones ([`OpenOptions::from_shared_reader`]), and then every path
    /// (the pull reader, the parallel engine, the owned Arrow reader) runs
    /// it; with a reader that does not clone, none does (one answer).
    pub(crate) input_handle: Option<InputHandle<R>>,
}

/// Makes another handle on a book's package input (`Book::package_input`
/// for a reader that clones).
pub(crate) type InputHandle<R> = fn(&Book<R>) -> Option<crate::archive::PackageInput<R>>;

/// Names a sheet: by position in [`Workbook::sheets`] (`usize`, 0-based)
/// or by text (`&str`, `String`, `&String`). Text follows the one rule
/// every interface shares (the CLI's `--sheet`, Python's `sheet=`, the
/// Spark and DuckDB `sheet` options): the sheet of that name; or, when no
/// sheet has that name and the text is a whole number, the sheet at that
/// position. A name wins: in a workbook with a sheet named `2`, `"2"` is
/// that sheet and `2usize` the third one
/// ([`SheetSelector::ambiguity`] says so).
///
/// ```
/// # fn main() -> Result<(), sheetstream::Error> {
/// let mut workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// let name: String = "Data".to_owned();
/// workbook.for_each_row(&name, |_row| ())?;
/// workbook.for_each_row(name, |_row| ())?;
/// // No sheet is named "0": the first sheet.
/// assert_eq!("0".position(workbook.sheets())?, 0);
/// # use sheetstream::SheetSelector;
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

    /// A note for the user when the selection could have meant another
    /// sheet: text that is a whole number, the name of one sheet and the
    /// position of another. It says which was taken (each interface adds
    /// how to name the other in its own words); None when there is nothing
    /// to say.
    fn ambiguity(&self, sheets: &[SheetInfo]) -> Option<String> {
        let _ = sheets;
        None
    }
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
        let text = *self;
        if let Some(sheet) = sheets.iter().find(|sheet| sheet.name() == text) {
            return Ok(sheet.position());
        }
        if let Some(position) = whole_number(text).filter(|&position| position < sheets.len()) {
            return Ok(position);
        }
        let how = if whole_number(text).is_some() {
            "named or numbered"
        } else {
            "named"
        };
        Err(Error::new(ErrorKind::SheetNotFound(format!(
            "{how} '{text}'{}",
            sheet_list(sheets)
        ))))
    }

    fn ambiguity(&self, sheets: &[SheetInfo]) -> Option<String> {
        let position = whole_number(self).filter(|&position| position < sheets.len())?;
        let named = sheets.iter().find(|sheet| sheet.name() == *self)?;
        (named.position() != position).then(|| {
            format!(
                "sheet '{self}' is the sheet named '{self}' (at position {}), not the sheet at \
                 position {position} ('{}'): a name wins",
                named.position(),
                sheets[position].name()
            )
        })
    }
}

/// A sheet named by position or by text, owned: what options and lists of
/// sheets hold. Selects as its [`SheetSelector`] would.
///
/// ```
/// use sheetstream::{SheetRef, SheetSelector};
/// # fn main() -> Result<(), sheetstream::Error> {
/// let workbook = sheetstream::Workbook::open("examples/data/sales.xlsx")?;
/// assert_eq!(SheetRef::from("Data").position(workbook.sheets())?, 0);
/// assert_eq!(SheetRef::from(0).position(workbook.sheets())?, 0);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SheetRef {
    /// The sheet at this position in [`Workbook::sheets`] (0-based).
    Position(usize),
    /// The sheet of this name, never taken as a position.
    Name(String),
    /// The sheet this text names, by [`SheetSelector`]'s rule for text (a
    /// name, or a position when no sheet has that name).
    Text(String),
}

impl From<usize> for SheetRef {
    fn from(position: usize) -> SheetRef {
        SheetRef::Position(position)
    }
}

impl From<&str> for SheetRef {
    fn from(text: &str) -> SheetRef {
        SheetRef::Text(text.to_owned())
    }
}

impl From<String> for SheetRef {
    fn from(text: String) -> SheetRef {
        SheetRef::Text(text)
    }
}

impl std::fmt::Display for SheetRef {
    /// The position's digits, or the text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SheetRef::Position(position) => write!(f, "{position}"),
            SheetRef::Name(text) | SheetRef::Text(text) => f.write_str(text),
        }
    }
}

impl SheetSelector for SheetRef {
    fn position(&self, sheets: &[SheetInfo]) -> Result<usize> {
        match self {
            SheetRef::Position(position) => position.position(sheets),
            SheetRef::Name(name) => sheets
                .iter()
                .position(|sheet| sheet.name() == name)
                .ok_or_else(|| {
                    Error::new(ErrorKind::SheetNotFound(format!(
                        "named '{name}'{}",
                        sheet_list(sheets)
                    )))
                }),
            SheetRef::Text(text) => text.as_str().position(sheets),
        }
    }

    fn ambiguity(&self, sheets: &[SheetInfo]) -> Option<String> {
        match self {
            SheetRef::Position(_) | SheetRef::Name(_) => None,
            SheetRef::Text(text) => text.as_str().ambiguity(sheets),
        }
    }
}

impl SheetSelector for &SheetRef {
    fn position(&self, sheets: &[SheetInfo]) -> Result<usize> {
        (*self).position(sheets)
    }

    fn ambiguity(&self, sheets: &[SheetInfo]) -> Option<String> {
        (*self).ambiguity(sheets)
    }
}

/// The sheets there are, for a message: ` (the workbook's 3 sheets: 'a',
/// 'b', 'c')`, at most a dozen named.
fn sheet_list(sheets: &[SheetInfo]) -> String {
    let names: Vec<String> = sheets
        .iter()
        .take(12)
        .map(|sheet| format!("'{}'", sheet.name()))
        .collect();
    let more = if sheets.len() > names.len() {
        ", ..."
    } else {
        ""
    };
    format!(
        " (the workbook's {} sheets: {}{more})",
        sheets.len(),
        names.join(", ")
    )
}

/// Text that is a whole number (ASCII digits only, no sign).
fn whole_number(text: &str) -> Option<usize> {
    (!text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

impl SheetSelector for String {
    fn position(&self, sheets: &[SheetInfo]) -> Result<usize> {
        self.as_str().position(sheets)
    }

    fn ambiguity(&self, sheets: &[SheetInfo]) -> Option<String> {
        self.as_str().ambiguity(sheets)
    }
}

impl SheetSelector for &String {
    fn position(&self, sheets: &[SheetInfo]) -> Result<usize> {
        self.as_str().position(sheets)
    }

    fn ambiguity(&self, sheets: &[SheetInfo]) -> Option<String> {
        self.as_str().ambiguity(sheets)
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
///
/// An encrypted (password-protected) workbook opens with Excel's default
/// password (`VelvetSweatshop`, what Excel encrypts with when no one gave
/// a password) whatever the options, then with each password given here,
/// in order:
///
/// ```no_run
/// # fn main() -> Result<(), sheetstream::Error> {
/// let workbook = sheetstream::OpenOptions::new()
///     .password("first guess")
///     .password("s3cret")
///     .open("protected.xlsx")?;
/// println!("{:?}", workbook.encryption_scheme());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    limits: Limits,
    passwords: Passwords,
    verify_integrity: bool,
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

    /// A password to open an encrypted workbook with: tried after Excel's
    /// default password and the passwords given before it. A workbook
    /// that is not encrypted opens as it would without one.
    ///
    /// None opens it: [`ErrorKind::PasswordRequired`] when none was
    /// given, [`ErrorKind::PasswordIncorrect`] otherwise.
    pub fn password(mut self, password: impl Into<String>) -> OpenOptions {
        self.passwords.0.push(password.into());
        self
    }

    /// Several passwords, tried in order (after those given before).
    pub fn passwords<I, S>(mut self, passwords: I) -> OpenOptions
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.passwords
            .0
            .extend(passwords.into_iter().map(Into::into));
        self
    }

    /// Checks an encrypted workbook's integrity (Agile encryption's
    /// `dataIntegrity` HMAC over the whole encrypted package) at open, in
    /// one pass over the file before anything else is read: a workbook
    /// changed after it was encrypted is refused
    /// ([`ErrorKind::IntegrityFailure`]). Off by default: a read of every
    /// worksheet checks it anyway once the last one is read (see
    /// [`Workbook::integrity`]), and a read of one sheet or a range should
    /// not pay a pass over the whole file.
    pub fn verify_integrity(mut self, verify: bool) -> OpenOptions {
        self.verify_integrity = verify;
        self
    }

    /// Opens a workbook file.
    ///
    /// # Errors
    ///
    /// As [`Workbook::open`].
    pub fn open(&self, path: impl AsRef<Path>) -> Result<Workbook> {
        self.from_shared_reader(SharedFile::open(path)?)
    }

    /// Opens a workbook from any seekable reader. An encrypted package's
    /// integrity is then checked only when asked
    /// ([`OpenOptions::verify_integrity`], [`Workbook::verify_integrity`]):
    /// the check at the end of a read of every worksheet needs a second
    /// handle on the input, which [`OpenOptions::from_shared_reader`] has.
    ///
    /// # Errors
    ///
    /// As [`Workbook::open`].
    pub fn from_reader<R: Read + Seek>(&self, reader: R) -> Result<Workbook<R>> {
        Workbook::with_options(reader, self)
    }

    /// Opens a workbook from a reader whose clones read on their own (as
    /// [`SharedFile`] and `Cursor<Arc<[u8]>>` do; [`OpenOptions::open`] and
    /// [`Workbook::from_bytes`] use it): besides what
    /// [`OpenOptions::from_reader`] does, an encrypted package's integrity
    /// is checked once every worksheet has been read to its end, whichever
    /// path read them (the pull reader, the parallel engine, Arrow).
    ///
    /// # Errors
    ///
    /// As [`Workbook::open`].
    pub fn from_shared_reader<R: Read + Seek + Clone>(&self, reader: R) -> Result<Workbook<R>> {
        let mut workbook = Workbook::with_options(reader, self)?;
        workbook.input_handle = Some(Book::package_input);
        Ok(workbook)
    }
}

impl Workbook {
    /// Opens a workbook file with the default [`Limits`].
    ///
    /// # Errors
    ///
    /// The file cannot be read, is neither a ZIP archive nor a `.xls`
    /// compound file ([`ErrorKind::NotZip`]), is not a spreadsheet
    /// package, or its workbook, styles or shared strings (the `.xls`
    /// globals) are malformed. An encrypted workbook that Excel's default
    /// password does not open: [`ErrorKind::PasswordRequired`] (give one
    /// with [`OpenOptions::password`]); one the passwords given do not
    /// open: [`ErrorKind::PasswordIncorrect`]; a scheme this reader does
    /// not decrypt: [`ErrorKind::UnsupportedEncryption`]; damaged
    /// encryption structures: [`ErrorKind::Encrypted`].
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
        OpenOptions::default().from_shared_reader(Cursor::new(bytes.into()))
    }
}

impl<R> Workbook<R> {
    /// The workbook's file format, as its bytes say.
    pub fn file_format(&self) -> FileFormat {
        self.book.file_format()
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
    /// to its end. (Rows read it only as far as their cells need it, and
    /// to its end once a sheet is read to its end.)
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

    /// The scheme an encrypted (password-protected) workbook was
    /// decrypted with, as messages name it (`Agile AES-256/SHA-512`,
    /// `Standard AES-128`, `xls RC4 CryptoAPI 128-bit`); None for a
    /// workbook that is not encrypted.
    pub fn encryption_scheme(&self) -> Option<&str> {
        self.encryption.as_ref().map(EncryptionState::scheme)
    }

    /// What is known of an encrypted workbook's integrity so far: Agile
    /// encryption's HMAC over the whole encrypted package is checked when
    /// the whole package is read anyway, once every worksheet has been
    /// read to its end by the parallel engine ([`Workbook::parallel`],
    /// [`Workbook::load_all`]) or the Arrow readers (a read that fails
    /// the check fails with [`ErrorKind::IntegrityFailure`]), or on
    /// request ([`Workbook::verify_integrity`],
    /// [`OpenOptions::verify_integrity`]). A read of some sheets, of a
    /// range, or through [`Workbook::rows`] does not check it.
    pub fn integrity(&self) -> Integrity {
        self.encryption
            .as_ref()
            .map_or(Integrity::NotEncrypted, EncryptionState::integrity)
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
        Workbook::with_options(reader, &OpenOptions::default())
    }

    fn with_options(reader: R, options: &OpenOptions) -> Result<Workbook<R>> {
        let limits = options.limits;
        let (opened, encryption) =
            detect::open_book(reader, limits, &options.passwords, options.verify_integrity)?;
        Ok(Workbook {
            book: opened.book,
            sheets: opened.sheets,
            shared_strings: opened.shared_strings,
            styles: opened.styles,
            date_system: opened.date_system,
            limits,
            links: opened.links,
            encryption,
            input_handle: None,
        })
    }

    /// What a sheet's values are resolved against.
    pub(crate) fn context(&self) -> SheetContext<'_> {
        SheetContext {
            shared_strings: self.shared_strings.as_ref(),
            styles: &self.styles,
            date_system: self.date_system,
            links: &self.links,
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
            book,
            sheets,
            shared_strings,
            styles,
            date_system,
            links,
            encryption,
            input_handle,
            ..
        } = self;
        let at_end = encryption
            .as_ref()
            .filter(|state| state.is_due())
            .and_then(|state| {
                let input = (*input_handle)?(book)?;
                Some(integrity_check_at_end(state, input, position))
            });
        let context = SheetContext {
            shared_strings: shared_strings.as_ref(),
            styles,
            date_system: *date_system,
            links,
        };
        let mut rows = book.sheet_rows(&sheets[position], context)?;
        if let Some(step) = at_end {
            rows.at_end(step);
        }
        Ok(rows)
    }

    /// Rows of the sheet at `position`, read through `book`, a clone of
    /// this workbook's: a reader from a shared workbook (the owned Arrow
    /// reader's worker thread). With `scope`, two threads read the sheet
    /// ([`FormatBook::pipelined_sheet_rows`]).
    #[cfg(feature = "arrow")]
    pub(crate) fn rows_through<'scope, 'env, 'a>(
        &'env self,
        book: &'a mut Book<R>,
        position: usize,
        scope: Option<&'scope Scope<'scope, 'env>>,
    ) -> Result<SheetRows<'a>>
    where
        R: Clone + Send + 'env,
        'env: 'a,
    {
        let info = &self.sheets[position];
        let at_end = integrity_step(self.encryption.as_ref(), self.input_handle, book, position);
        let mut rows = match scope {
            Some(scope) => book.pipelined_sheet_rows(scope, info, self.context(), 2),
            None => book.sheet_rows(info, self.context()),
        }?;
        if let Some(step) = at_end {
            rows.at_end(step);
        }
        Ok(rows)
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

impl<R: Read + Seek + Clone> Workbook<R> {
    /// Checks an encrypted workbook's integrity now (Agile encryption's
    /// `dataIntegrity` HMAC over the whole encrypted package: one
    /// sequential pass over it), unless it was checked before; see
    /// [`Workbook::integrity`]. A workbook that is not encrypted, or
    /// whose scheme records nothing to check, has nothing to check.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::IntegrityFailure`] when the HMAC does not match (the
    /// file was changed after it was encrypted), or the file cannot be
    /// read.
    pub fn verify_integrity(&self) -> Result<Integrity> {
        let Some(state) = &self.encryption else {
            return Ok(Integrity::NotEncrypted);
        };
        state.verify(|| verify_book(&self.book))
    }
}

/// The step a sheet's reader runs at its end while an encrypted
/// workbook's integrity check is due (`state`): sheet `position` is
/// marked read, and the last worksheet's reader runs the check through a
/// clone of `book`'s input. None when the workbook has no second handle
/// on its input (`handle`: see [`Workbook::input_handle`]), as the pull
/// reader then has none either.
pub(crate) fn integrity_step<'a, R: Read + Seek + 'a>(
    state: Option<&'a EncryptionState>,
    handle: Option<InputHandle<R>>,
    book: &Book<R>,
    position: usize,
) -> Option<AtEnd<'a>> {
    let state = state.filter(|state| state.is_due())?;
    let input = handle?(book)?;
    Some(integrity_check_at_end(state, input, position))
}

/// Sheet `position` read to its end: marks it read, and runs the check
/// through `input` once every worksheet was.
fn integrity_check_at_end<'a, R: Read + Seek + 'a>(
    state: &'a EncryptionState,
    input: crate::archive::PackageInput<R>,
    position: usize,
) -> AtEnd<'a> {
    Box::new(move || state.sheet_read(position, || verify_input(Some(input))))
}

/// The integrity check's pass over `book`'s encrypted package.
fn verify_book<R: Read + Seek + Clone>(book: &Book<R>) -> Result<Integrity> {
    verify_input(book.package_input())
}

#[cfg(feature = "encryption")]
use encryption::verify_input;

/// Without the `encryption` feature no workbook is encrypted.
#[cfg(not(feature = "encryption"))]
fn verify_input<R>(_input: Option<crate::archive::PackageInput<R>>) -> Result<Integrity> {
    Ok(Integrity::NotRecorded)
}
