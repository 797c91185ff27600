//! Which format a workbook is, from its bytes (never its name), and each
//! format's facts ([`FileFormat`]): one function reads the first bytes
//! once and decides ([`open_book`]), handing the input to that format's
//! opening.

use std::io::{Read, Seek, SeekFrom};

use super::book::Book;
use super::encryption::{EncryptionState, Integrity, Passwords};
use crate::archive::{Archive, PackageInput};
use crate::compound::{self, OpenedCompound};
use crate::contract::Opened;
use crate::error::Result;
use crate::limits::Limits;
use crate::ods;
use crate::opc::find_workbook_part;
use crate::xls;
use crate::xlsb::{self, XlsbBook};
use crate::xlsx::XlsxBook;

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
    /// An OpenDocument spreadsheet: `.ods`, XML parts in a ZIP package
    /// (LibreOffice, OpenOffice, Collabora), or `.fods`, one flat XML
    /// document.
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

    /// The file name extensions the format's workbooks usually carry
    /// (lower case, without the dot); the first is the usual one.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            FileFormat::Xlsx => &["xlsx", "xlsm", "xltx", "xltm"],
            FileFormat::Xlsb => &["xlsb"],
            FileFormat::Xls => &["xls", "xlt"],
            FileFormat::Ods => &["ods", "fods", "ots"],
        }
    }
}

/// The first bytes of the input, read once.
struct Head {
    bytes: [u8; 8],
    len: usize,
}

impl Head {
    fn read(reader: &mut (impl Read + Seek)) -> Result<Head> {
        let mut bytes = [0u8; 8];
        reader.seek(SeekFrom::Start(0))?;
        let mut len = 0;
        while len < bytes.len() {
            match reader.read(&mut bytes[len..])? {
                0 => break,
                n => len += n,
            }
        }
        reader.seek(SeekFrom::Start(0))?;
        Ok(Head { bytes, len })
    }

    fn is_compound_file(&self) -> bool {
        self.len == self.bytes.len() && self.bytes == compound::MAGIC
    }

    /// Whether the input may be an XML document: a byte order mark, white
    /// space or `<` first (then the flat OpenDocument check reads more).
    fn may_be_xml(&self) -> bool {
        let bytes = &self.bytes[..self.len];
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        matches!(bytes.trim_ascii_start().first(), Some(b'<') | None) && self.len > 0
    }
}

/// Opens `reader` as the workbook its bytes say it is: an OLE2 compound
/// file is an encrypted package (an encrypted `.xlsx`/`.xlsb`: its
/// `EncryptionInfo` and `EncryptedPackage` streams) or a `.xls` workbook
/// (encrypted when its globals hold a FILEPASS record); an XML document
/// whose root is `office:document` a flat OpenDocument spreadsheet;
/// anything else is tried as a ZIP package (the archive says what the input
/// is when it is none): an OpenDocument spreadsheet by its `mimetype` (or
/// manifest), else an OPC package whose workbook part, found through the
/// package relationships, is an `.xlsb` record stream or `.xlsx` XML. `passwords` open an
/// encrypted workbook (after Excel's default password); with `verify`,
/// an encrypted package's integrity is checked before anything is read.
pub(crate) fn open_book<R: Read + Seek>(
    mut reader: R,
    limits: Limits,
    passwords: &Passwords,
    verify: bool,
) -> Result<(Opened<Book<R>>, Option<EncryptionState>)> {
    let head = Head::read(&mut reader)?;
    if head.is_compound_file() {
        let compound = OpenedCompound::open(reader)?;
        #[cfg(feature = "encryption")]
        {
            use crate::encryption::{CompoundEncryption, compound_encryption};
            match compound_encryption(compound.paths().iter().map(String::as_str)) {
                CompoundEncryption::Package => {
                    let (opened, state) = super::encryption::open_encrypted_package(
                        compound, limits, passwords, verify,
                    )?;
                    return Ok((opened, Some(state)));
                }
                CompoundEncryption::Refused(err) => return Err(err),
                CompoundEncryption::None => {}
            }
        }
        #[cfg(not(feature = "encryption"))]
        let _ = verify;
        let opened = xls::open(compound, limits, &passwords.0)?;
        let state = opened.book.encryption_scheme().map(|scheme| {
            EncryptionState::new(scheme.to_owned(), Integrity::NotRecorded, Vec::new())
        });
        return Ok((opened.map_book(Book::Xls), state));
    }
    if head.may_be_xml() && ods::package::is_flat_document(&mut reader)? {
        let opened = ods::open_flat(PackageInput::Plain(reader), limits)?;
        return Ok((opened.map_book(Book::Ods), None));
    }
    let mut archive = Archive::new(PackageInput::Plain(reader))?;
    if ods::package::is_spreadsheet_package(&mut archive, &limits)? {
        return Ok((ods::open_package(archive, limits)?.map_book(Book::Ods), None));
    }
    Ok((open_package(archive, limits)?, None))
}
/// Opens a ZIP package (plain, or an encrypted workbook's decrypted
/// package) as the workbook its workbook part says: an `.xlsb` record
/// stream or `.xlsx` XML.
pub(crate) fn open_package<R: Read + Seek>(
    mut archive: Archive<PackageInput<R>>,
    limits: Limits,
) -> Result<Opened<Book<R>>> {
    let workbook_part = find_workbook_part(&mut archive, &limits)?;
    if xlsb::is_binary_workbook(&mut archive, &workbook_part, &limits)? {
        return Ok(XlsbBook::open(archive, &workbook_part, limits)?.map_book(Book::Xlsb));
    }
    Ok(XlsxBook::open(archive, workbook_part, limits)?.map_book(Book::Xlsx))
}
