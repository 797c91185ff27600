//! One error type for everything that can go wrong while reading a workbook.
//!
//! An [`Error`] is a kind (what went wrong) plus a [`Location`] (where): the
//! package part, the sheet, the row and column, and the byte offset inside the
//! inflated part. Each layer fills in what it knows as the error travels up,
//! so the message a user sees names the place precisely.
//!
//! Text from the file in a message is escaped and cut at 200 characters; a
//! message the library composes of such text and advice (the many-sheet
//! reader's union hint) cuts the pieces itself (`clip`, `clip_start`), so that
//! its advice is never cut. An I/O error is `ErrorKind::Io` only when the
//! operating system failed a read; anything the ZIP or inflate code finds
//! wrong is `ErrorKind::Zip`.

use std::any::Any;
use std::fmt;
use std::io;

/// A specialised `Result` for sheetstream.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error from opening or reading a workbook.
///
/// The kind says what went wrong ([`Error::kind`]); the location says where
/// ([`Error::location`]). `Display` prints both on one line.
pub struct Error(Box<ErrorInner>);

struct ErrorInner {
    kind: ErrorKind,
    location: Location,
    /// What a layer above attached for itself to act on (the Arrow layer:
    /// the columns a read again of a misfit's sheet needs). The error type
    /// knows nothing of it but that it is there.
    attachment: Option<Box<dyn Any + Send + Sync>>,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading the underlying file or stream failed.
    Io(io::Error),
    /// The input is not a workbook container sheetstream reads (a ZIP
    /// package or an OLE2 compound file). `detail` says what it looks like
    /// instead.
    NotZip {
        /// What the input looks like (an OLE2 compound file, an empty file, ...).
        detail: &'static str,
    },
    /// The ZIP container is damaged or uses a feature that cannot be read.
    Zip(String),
    /// The package is not a usable OOXML spreadsheet package.
    Package(String),
    /// A part the workbook needs is missing.
    MissingPart(String),
    /// The XML of a part is malformed.
    Xml(String),
    /// A part is not valid UTF-8.
    InvalidUtf8,
    /// A binary part's record stream is malformed (`.xlsb`): a record
    /// header that overflows or is cut short, a record running past the end
    /// of its part, a field running past the end of its record.
    Record(String),
    /// Something the file holds that this reader does not offer for its
    /// format (formula text of `.xlsb` and `.xls` cells, for one); the
    /// message says what and how to do without it.
    Unsupported(String),
    /// A cell refers to a shared string that does not exist.
    SharedStringIndex {
        /// The index the cell names.
        index: u64,
        /// How many shared strings the workbook has.
        count: usize,
    },
    /// A cell value cannot be read as its type says.
    InvalidValue(String),
    /// A cell or row reference is malformed or past XFD1048576.
    CellReference(String),
    /// A configured limit was exceeded (see [`Limits`](crate::Limits)).
    LimitExceeded {
        /// Which limit.
        limit: &'static str,
        /// The configured maximum.
        max: u64,
    },
    /// The requested sheet does not exist.
    SheetNotFound(String),
    /// No Excel table has the requested name; the message lists the
    /// workbook's tables.
    TableNotFound(String),
    /// A typed reader (feature `arrow`) cannot go on: an error cell under
    /// `OnErrorValue::Strict`, a second value for one column in one row
    /// under `OnMismatch::Strict`, a batch that cannot be assembled; the
    /// location names the sheet, row and column.
    Conversion(String),
    /// A value does not fit the type of its column in a typed reader
    /// (feature `arrow`) and the read could not widen the column; the
    /// location names the file, sheet and cell.
    Mismatch {
        /// The value, as the CSV writer writes it.
        value: String,
        /// The column's name.
        column: String,
        /// The column's type and where it came from, and the options that
        /// would take the value (never cut short).
        detail: String,
    },
    /// A row could not be deserialised into the requested type (see
    /// `Workbook::deserialize`, feature `serde`); the
    /// location names the sheet, row and column.
    Deserialize {
        /// The struct field, where known.
        field: Option<String>,
        /// What went wrong.
        message: String,
    },
    /// A legacy `.xls` workbook (an OLE2 compound file of BIFF records)
    /// is damaged: its compound file, a record, or the offsets between
    /// them; the location names the stream, the byte offset in it, the
    /// sheet, row and column where known.
    Xls(String),
    /// The workbook is encrypted (password-protected) and cannot be
    /// decrypted: the library was built without its `encryption` feature,
    /// or the encryption's own structures (the `EncryptionInfo` stream, a
    /// FILEPASS record, an `EncryptedPackage` cut short) are damaged.
    Encrypted(String),
    /// The workbook is encrypted, no password was given, and Excel's
    /// default password (`VelvetSweatshop`) does not open it (an `.ods`
    /// has no default password); the message names the scheme.
    PasswordRequired(String),
    /// The workbook is encrypted, and neither the given passwords nor
    /// Excel's default one (not for an `.ods`) open it; the message names
    /// the scheme.
    PasswordIncorrect(String),
    /// The workbook is encrypted with a scheme this reader does not
    /// decrypt (Extensible encryption, IRM/DRM, Agile with DES or RC2, a
    /// spin count over the limit, ...); the message names it.
    UnsupportedEncryption(String),
    /// The password opened the workbook, but its integrity check (Agile's
    /// `dataIntegrity` HMAC, an `.ods` entry's checksum) does not match:
    /// the file was changed after it was encrypted.
    IntegrityFailure(String),
    /// A column selection ([`ColumnSpec`](crate::ColumnSpec)) cannot be
    /// parsed, or names a column the header row does not have.
    ColumnSelection(String),
    /// A workbook of a format or version this reader does not read: an
    /// Excel 2.x-4.0 file (BIFF2-4, not in a compound file), an
    /// OpenDocument spreadsheet, an Excel 2003 XML spreadsheet. The
    /// message names what was found.
    UnsupportedFormat(String),
    /// A reader of many files and sheets told to skip the unreadable ones
    /// (`ArrowOptions::skip_unreadable`) skipped every one: nothing was
    /// read. The message counts them and names the first; the reader's
    /// `skipped` lists them all.
    NothingRead(String),
}

/// What kind of failure an error is, by what happened rather than where:
/// the classes every interface sorts errors into (the Python package's
/// exception classes, the CLI's words). [`ErrorKind::class`] says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// The operating system failed to read the input.
    Io,
    /// The input is no workbook: empty, a text file, another kind of
    /// document, a ZIP or compound file holding no workbook.
    NotAWorkbook,
    /// A workbook of a format or version this reader does not read, or a
    /// feature of its format it does not offer (formula text of BIFF5).
    Unsupported,
    /// The workbook is encrypted and could not be decrypted.
    Encrypted,
    /// The workbook is damaged: its container, a part, a record, a cell.
    Damaged,
    /// A configured limit ([`Limits`](crate::Limits)) was exceeded.
    Limit,
    /// What was asked does not fit the workbook (no such sheet, table or
    /// column; a value that does not fit its column's type; every file
    /// skipped), whatever the workbook's health.
    Request,
}

impl ErrorKind {
    /// Which class of failure this is.
    ///
    /// ```
    /// use sheetstream::{ErrorClass, Workbook};
    ///
    /// let err = Workbook::from_bytes(b"plain text, no workbook".to_vec()).err().unwrap();
    /// assert_eq!(err.kind().class(), ErrorClass::NotAWorkbook);
    /// ```
    pub fn class(&self) -> ErrorClass {
        match self {
            ErrorKind::Io(_) => ErrorClass::Io,
            ErrorKind::NotZip { .. } => ErrorClass::NotAWorkbook,
            ErrorKind::Unsupported(_) | ErrorKind::UnsupportedFormat(_) => ErrorClass::Unsupported,
            ErrorKind::Encrypted(_)
            | ErrorKind::PasswordRequired(_)
            | ErrorKind::PasswordIncorrect(_)
            | ErrorKind::UnsupportedEncryption(_)
            | ErrorKind::IntegrityFailure(_) => ErrorClass::Encrypted,
            ErrorKind::Zip(_)
            | ErrorKind::Package(_)
            | ErrorKind::MissingPart(_)
            | ErrorKind::Xml(_)
            | ErrorKind::InvalidUtf8
            | ErrorKind::Record(_)
            | ErrorKind::Xls(_)
            | ErrorKind::SharedStringIndex { .. }
            | ErrorKind::InvalidValue(_)
            | ErrorKind::CellReference(_) => ErrorClass::Damaged,
            ErrorKind::LimitExceeded { .. } => ErrorClass::Limit,
            ErrorKind::SheetNotFound(_)
            | ErrorKind::TableNotFound(_)
            | ErrorKind::Conversion(_)
            | ErrorKind::Mismatch { .. }
            | ErrorKind::Deserialize { .. }
            | ErrorKind::ColumnSelection(_)
            | ErrorKind::NothingRead(_) => ErrorClass::Request,
        }
    }
}

/// Where an error happened. Every field is optional: it is filled in as far
/// as the reader knows it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Location {
    /// The file (its path or label), where a reader of many files knows it.
    pub file: Option<String>,
    /// The package part, e.g. `xl/worksheets/sheet1.xml`.
    pub part: Option<String>,
    /// The sheet name.
    pub sheet: Option<String>,
    /// The row number, 1-based as in Excel.
    pub row: Option<u32>,
    /// The column number, 1-based (A is 1).
    pub column: Option<u32>,
    /// The byte offset in the inflated part.
    pub offset: Option<u64>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error(Box::new(ErrorInner {
            kind,
            location: Location::default(),
            attachment: None,
        }))
    }

    pub(crate) fn xml(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Xml(message.into()))
    }

    pub(crate) fn record(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Record(message.into()))
    }

    // Unused since a package that is no workbook says what it is instead.
    #[allow(dead_code)]
    pub(crate) fn package(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Package(message.into()))
    }

    pub(crate) fn invalid_value(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidValue(message.into()))
    }

    #[cfg(feature = "arrow")]
    pub(crate) fn conversion(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Conversion(message.into()))
    }

    /// A workbook of a format or version not read; `found` names it.
    pub(crate) fn unsupported_format(found: impl Into<String>) -> Error {
        Error::new(ErrorKind::UnsupportedFormat(found.into()))
    }

    pub(crate) fn limit(limit: &'static str, max: u64) -> Error {
        Error::new(ErrorKind::LimitExceeded { limit, max })
    }

    /// A copy of this error, for one kept to be reported again (an I/O
    /// error's copy keeps its kind and message).
    pub(crate) fn duplicate(&self) -> Error {
        let kind = match &self.0.kind {
            ErrorKind::Io(err) => ErrorKind::Io(io::Error::new(err.kind(), err.to_string())),
            ErrorKind::NotZip { detail } => ErrorKind::NotZip { detail },
            ErrorKind::Zip(text) => ErrorKind::Zip(text.clone()),
            ErrorKind::Package(text) => ErrorKind::Package(text.clone()),
            ErrorKind::MissingPart(text) => ErrorKind::MissingPart(text.clone()),
            ErrorKind::Xml(text) => ErrorKind::Xml(text.clone()),
            ErrorKind::InvalidUtf8 => ErrorKind::InvalidUtf8,
            ErrorKind::Record(text) => ErrorKind::Record(text.clone()),
            ErrorKind::Unsupported(text) => ErrorKind::Unsupported(text.clone()),
            ErrorKind::SharedStringIndex { index, count } => ErrorKind::SharedStringIndex {
                index: *index,
                count: *count,
            },
            ErrorKind::InvalidValue(text) => ErrorKind::InvalidValue(text.clone()),
            ErrorKind::CellReference(text) => ErrorKind::CellReference(text.clone()),
            ErrorKind::LimitExceeded { limit, max } => {
                ErrorKind::LimitExceeded { limit, max: *max }
            }
            ErrorKind::SheetNotFound(text) => ErrorKind::SheetNotFound(text.clone()),
            ErrorKind::TableNotFound(text) => ErrorKind::TableNotFound(text.clone()),
            ErrorKind::Conversion(text) => ErrorKind::Conversion(text.clone()),
            ErrorKind::Mismatch {
                value,
                column,
                detail,
            } => ErrorKind::Mismatch {
                value: value.clone(),
                column: column.clone(),
                detail: detail.clone(),
            },
            ErrorKind::Deserialize { field, message } => ErrorKind::Deserialize {
                field: field.clone(),
                message: message.clone(),
            },
            ErrorKind::Xls(text) => ErrorKind::Xls(text.clone()),
            ErrorKind::Encrypted(text) => ErrorKind::Encrypted(text.clone()),
            ErrorKind::PasswordRequired(text) => ErrorKind::PasswordRequired(text.clone()),
            ErrorKind::PasswordIncorrect(text) => ErrorKind::PasswordIncorrect(text.clone()),
            ErrorKind::UnsupportedEncryption(text) => {
                ErrorKind::UnsupportedEncryption(text.clone())
            }
            ErrorKind::IntegrityFailure(text) => ErrorKind::IntegrityFailure(text.clone()),
            ErrorKind::ColumnSelection(text) => ErrorKind::ColumnSelection(text.clone()),
            ErrorKind::UnsupportedFormat(text) => ErrorKind::UnsupportedFormat(text.clone()),
            ErrorKind::NothingRead(text) => ErrorKind::NothingRead(text.clone()),
        };
        let mut copy = Error::new(kind);
        copy.0.location = self.0.location.clone();
        copy
    }

    /// A value that does not fit its column (feature `arrow`).
    #[cfg(feature = "arrow")]
    pub(crate) fn mismatch(value: String, column: String, detail: String) -> Error {
        Error::new(ErrorKind::Mismatch {
            value,
            column,
            detail,
        })
    }

    /// With `value` attached, for the layer that attached it to find
    /// again ([`Error::attachment`]); it replaces any attached before.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn with_attachment<T: Any + Send + Sync>(mut self, value: T) -> Error {
        self.0.attachment = Some(Box::new(value));
        self
    }

    /// What was attached, if it is a `T`.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn attachment<T: Any>(&self) -> Option<&T> {
        self.0.attachment.as_ref()?.downcast_ref()
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// Which class of failure this is ([`ErrorKind::class`]).
    pub fn class(&self) -> ErrorClass {
        self.0.kind.class()
    }

    /// Where it went wrong, as far as known.
    pub fn location(&self) -> &Location {
        &self.0.location
    }

    pub(crate) fn with_part(mut self, part: &str) -> Error {
        self.0.location.part.get_or_insert_with(|| part.to_owned());
        self
    }

    pub(crate) fn with_sheet(mut self, sheet: &str) -> Error {
        self.0
            .location
            .sheet
            .get_or_insert_with(|| sheet.to_owned());
        self
    }

    /// Names the file (its path or label), unless already named: for a
    /// caller that reads many files, or opened one by path and wants the
    /// message to say which (the Python package's `open` and `read_excel`).
    pub fn with_file(mut self, file: &str) -> Error {
        // (A misfit's widening keeps the reader's own label for the file:
        // the one a read again looks its sheet up by.)
        self.0.location.file.get_or_insert_with(|| file.to_owned());
        self
    }

    pub(crate) fn with_row(mut self, row: u32) -> Error {
        self.0.location.row.get_or_insert(row);
        self
    }

    pub(crate) fn with_column(mut self, column: u32) -> Error {
        self.0.location.column.get_or_insert(column);
        self
    }

    pub(crate) fn with_offset(mut self, offset: u64) -> Error {
        self.0.location.offset.get_or_insert(offset);
        self
    }

    /// Adds an offset relative to a base, keeping an offset already set as
    /// relative to the same base.
    pub(crate) fn shift_offset(mut self, base: u64) -> Error {
        if let Some(offset) = self.0.location.offset.as_mut() {
            *offset += base;
        }
        self
    }
}

/// The most characters of one piece of text from the file (a name, a
/// value, a message quoting one) an error message shows.
const SHOWN_CHARS: usize = 200;

/// Text from the file as an error message shows it: control characters
/// escaped (so that a sheet name cannot end the line, move the cursor or
/// send escape sequences to a terminal) and cut after [`SHOWN_CHARS`]
/// characters, with its whole length.
struct Shown<'a>(&'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        ShownUpTo(self.0, SHOWN_CHARS).fmt(f)
    }
}

/// The most characters of a message the library composed of fixed words
/// and pieces from the file it cut to size itself ([`clip`]), such as
/// the many-sheet reader's advice to match columns by name: room for the
/// pieces and the advice, so that the advice at the end is never cut.
const COMPOSED_CHARS: usize = 360;

/// `text` cut to at most `chars` characters, with `...` where it was cut:
/// a piece from the file (a sheet name, a column list) inside a message.
// Used by the Arrow layer only.
#[cfg_attr(not(feature = "arrow"), allow(dead_code))]
pub(crate) fn clip(text: &str, chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(chars.saturating_sub(3)) {
        Some((at, _)) if text.chars().count() > chars => format!("{}...", &text[..at]).into(),
        _ => text.into(),
    }
}

/// `text` cut to at most `chars` characters from its start, with `...`
/// where it was cut: a path, whose end (the file's name) says the most.
// Used by the Arrow layer only.
#[cfg_attr(not(feature = "arrow"), allow(dead_code))]
pub(crate) fn clip_start(text: &str, chars: usize) -> std::borrow::Cow<'_, str> {
    let count = text.chars().count();
    if count <= chars {
        return text.into();
    }
    let skip = count - chars.saturating_sub(3);
    let at = text
        .char_indices()
        .nth(skip)
        .map_or(text.len(), |(at, _)| at);
    format!("...{}", &text[at..]).into()
}

/// [`Shown`] with another bound.
struct ShownUpTo<'a>(&'a str, usize);

impl fmt::Display for ShownUpTo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (count, ch) in self.0.chars().enumerate() {
            if count == self.1 {
                return write!(f, "... ({} bytes in all)", self.0.len());
            }
            if ch.is_control()
                || matches!(ch, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            {
                write!(f, "{}", ch.escape_unicode())?;
            } else {
                fmt::Write::write_char(f, ch)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Io(err) => write!(f, "I/O error: {err}"),
            ErrorKind::NotZip { detail } => {
                write!(f, "not a workbook (.xlsx, .xlsb or .xls): {detail}")
            }
            ErrorKind::Zip(message) => write!(f, "damaged ZIP container: {}", Shown(message)),
            ErrorKind::Package(message) => {
                write!(f, "not a spreadsheet package: {}", Shown(message))
            }
            // "missing the workbook part (...)", "missing part xl/styles.xml".
            ErrorKind::MissingPart(part) if part.starts_with("the ") => {
                write!(f, "missing {}", Shown(part))
            }
            ErrorKind::MissingPart(part) => write!(f, "missing part {}", Shown(part)),
            ErrorKind::Xml(message) => write!(f, "malformed XML: {}", Shown(message)),
            ErrorKind::InvalidUtf8 => f.write_str("invalid UTF-8"),
            ErrorKind::Record(message) => write!(f, "malformed record: {}", Shown(message)),
            ErrorKind::Unsupported(message) => write!(f, "not supported: {}", Shown(message)),
            ErrorKind::SharedStringIndex { index, count } => write!(
                f,
                "shared string index {index} out of range (the workbook has {count})"
            ),
            ErrorKind::InvalidValue(message) => {
                write!(f, "invalid cell value: {}", Shown(message))
            }
            ErrorKind::CellReference(message) => {
                write!(f, "invalid cell reference: {}", Shown(message))
            }
            ErrorKind::LimitExceeded { limit, max } => {
                write!(f, "limit exceeded: {limit} (maximum {max}; see Limits)")
            }
            ErrorKind::SheetNotFound(name) => write!(f, "no sheet {}", Shown(name)),
            ErrorKind::TableNotFound(name) => write!(f, "no table {}", Shown(name)),
            ErrorKind::Conversion(message) => {
                write!(f, "cannot convert a cell: {}", Shown(message))
            }
            ErrorKind::Mismatch {
                value,
                column,
                detail,
            } => write!(
                f,
                "`{}` does not fit column `{}` {detail}",
                Shown(value),
                Shown(column)
            ),
            ErrorKind::Deserialize {
                field: Some(field),
                message,
            } => write!(
                f,
                "cannot deserialize field `{}`: {}",
                Shown(field),
                Shown(message)
            ),
            ErrorKind::Deserialize {
                field: None,
                message,
            } => write!(f, "cannot deserialize row: {}", Shown(message)),
            ErrorKind::Xls(message) => write!(f, "malformed .xls workbook: {}", Shown(message)),
            ErrorKind::Encrypted(message) => write!(f, "encrypted workbook: {}", Shown(message)),
            ErrorKind::PasswordRequired(scheme) => write!(
                f,
                "encrypted workbook ({}): a password is required{}",
                Shown(scheme),
                // An OpenDocument package has no default password.
                if scheme.starts_with("ods ") {
                    ""
                } else {
                    " (Excel's default password does not open it)"
                }
            ),
            ErrorKind::PasswordIncorrect(scheme) => write!(
                f,
                "encrypted workbook ({}): the password is incorrect",
                Shown(scheme)
            ),
            ErrorKind::UnsupportedEncryption(scheme) => {
                write!(f, "encrypted workbook: not supported: {}", Shown(scheme))
            }
            ErrorKind::IntegrityFailure(message) => write!(
                f,
                "encrypted workbook: the integrity check failed: {}",
                Shown(message)
            ),
            ErrorKind::ColumnSelection(message) => {
                write!(
                    f,
                    "bad column selection: {}",
                    ShownUpTo(message, COMPOSED_CHARS)
                )
            }
            ErrorKind::UnsupportedFormat(found) => write!(
                f,
                "unsupported format: {}: not read; save it as .xlsx to read it",
                Shown(found)
            ),
            ErrorKind::NothingRead(message) => {
                write!(f, "nothing read: {}", ShownUpTo(message, COMPOSED_CHARS))
            }
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut separator = "";
        let mut item = |f: &mut fmt::Formatter<'_>, args: fmt::Arguments<'_>| {
            let result = write!(f, "{separator}{args}");
            separator = ", ";
            result
        };
        if let Some(file) = &self.file {
            item(f, format_args!("file {}", Shown(file)))?;
        }
        if let Some(sheet) = &self.sheet {
            item(f, format_args!("sheet '{}'", Shown(sheet)))?;
        }
        if let Some(part) = &self.part {
            item(f, format_args!("part {}", Shown(part)))?;
        }
        match (self.row, self.column) {
            (Some(row), Some(column)) => {
                let mut letters = [0u8; 3];
                let name = crate::cell::column_name(column.saturating_sub(1), &mut letters);
                item(f, format_args!("cell {name}{row}"))?
            }
            (Some(row), None) => item(f, format_args!("row {row}"))?,
            (None, Some(column)) => item(f, format_args!("column {column}"))?,
            (None, None) => {}
        }
        if let Some(offset) = self.offset {
            item(f, format_args!("byte {offset}"))?;
        }
        Ok(())
    }
}

impl Location {
    fn is_empty(&self) -> bool {
        self == &Location::default()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.kind)?;
        if !self.0.location.is_empty() {
            write!(f, " (at {})", self.0.location)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("location", &self.0.location)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            ErrorKind::Io(err) => Some(err),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(err: io::Error) -> Error {
        // Our own limit and format errors travel through `io::Read` as
        // `io::Error`s wrapping an `Error`; unwrap them again here.
        if err.get_ref().is_some_and(|inner| inner.is::<Error>()) {
            if let Some(inner) = err.into_inner()
                && let Ok(ours) = inner.downcast::<Error>()
            {
                return *ours;
            }
            return Error::new(ErrorKind::Io(io::Error::other("I/O error")));
        }
        Error::new(ErrorKind::Io(err))
    }
}

impl From<Error> for io::Error {
    fn from(err: Error) -> io::Error {
        io::Error::other(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipped_pieces_keep_their_start_or_their_end() {
        assert_eq!(clip("abcdef", 6), "abcdef");
        assert_eq!(clip("abcdefg", 6), "abc...");
        assert_eq!(clip("äöüßéèà", 5), "äö...");
        assert_eq!(clip_start("dir/sales.xlsx", 14), "dir/sales.xlsx");
        assert_eq!(clip_start("long/dir/sales.xlsx", 14), ".../sales.xlsx");
        assert_eq!(clip_start("ääääü.xlsx", 9), "...ü.xlsx");
    }

    #[test]
    fn names_and_values_from_the_file_are_escaped_and_bounded() {
        let err = Error::invalid_value(format!("`{}` is not a number", "9".repeat(100_000)))
            .with_sheet("evil\nsheetstream: all good\u{1b}[2J")
            .with_part(&"p".repeat(60_000));
        let shown = err.to_string();
        assert!(shown.len() < 1000, "{} bytes", shown.len());
        assert!(!shown.chars().any(char::is_control), "{shown}");
        assert!(shown.contains("... (100018 bytes in all)"), "{shown}");
        assert!(shown.contains("... (60000 bytes in all)"), "{shown}");
        assert!(
            shown.contains("sheet 'evil\\u{a}sheetstream: all good\\u{1b}[2J'"),
            "{shown}"
        );
        // Short, plain text is shown as it is.
        let plain =
            Error::xml("`</a>` does not close the element open here").with_part("xl/workbook.xml");
        assert_eq!(
            plain.to_string(),
            "malformed XML: `</a>` does not close the element open here (at part xl/workbook.xml)"
        );
    }
}
