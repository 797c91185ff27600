//! Which format a workbook is, from its bytes (never its name), and each
//! format's facts ([`FileFormat`]): one function reads the first bytes
//! once and decides ([`open_book`]), handing the input to that format's
//! opening. Formats recognised but not read (Excel 2.x-4.0's BIFF2-4
//! streams outside a compound file, flat OpenDocument and Excel 2003 XML
//! spreadsheets) are refused here, by name ([`Head::unsupported`]); the
//! file names a folder's listing keeps are [`WORKBOOK_EXTENSIONS`].

use std::io::{Read, Seek, SeekFrom};

use super::book::Book;
use super::encryption::{EncryptionState, Integrity, Passwords};
use crate::archive::{Archive, PackageInput};
use crate::compound::{self, OpenedCompound};
use crate::contract::Opened;
use crate::error::{Error, Result};
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

/// The file name extensions (lower case, without the dot) of the files a
/// folder given as a source is read for (the CLI's folders, Python's
/// `read_excel("reports/")`): every [`FileFormat`]'s, and the
/// OpenDocument ones (`.ods`, `.fods`), which are told by their content
/// like any other (and refused, naming the format, until they are read).
pub const WORKBOOK_EXTENSIONS: &[&str] = &[
    "xlsx", "xlsm", "xltx", "xltm", "xlsb", "xls", "xlt", "ods", "fods",
];

/// How many bytes of the input's start [`Head`] holds: the magic numbers,
/// a BIFF BOF record, and an XML file's root element.
const HEAD_BYTES: usize = 1024;

/// The first bytes of the input, read once.
struct Head {
    bytes: [u8; HEAD_BYTES],
    len: usize,
}

impl Head {
    /// The first bytes: the magic number's 8, then, for anything but a
    /// ZIP or a compound file, up to [`HEAD_BYTES`] (a text file's root
    /// element). A package's or compound file's next bytes are left to
    /// its reader: a compound file's next sector may be one its opening
    /// reads as the FAT, and a package read by ranges (a URL) would fetch
    /// the start of the part after the first.
    fn read(reader: &mut (impl Read + Seek)) -> Result<Head> {
        let mut head = Head {
            bytes: [0u8; HEAD_BYTES],
            len: 0,
        };
        reader.seek(SeekFrom::Start(0))?;
        head.fill(reader, compound::MAGIC.len())?;
        if !head.is_compound_file() && !head.bytes.starts_with(b"PK") {
            head.fill(reader, HEAD_BYTES)?;
        }
        reader.seek(SeekFrom::Start(0))?;
        Ok(head)
    }

    /// Reads on until `until` bytes are held or the input ends.
    fn fill(&mut self, reader: &mut impl Read, until: usize) -> Result<()> {
        while self.len < until {
            match reader.read(&mut self.bytes[self.len..until])? {
                0 => break,
                n => self.len += n,
            }
        }
        Ok(())
    }

    fn is_compound_file(&self) -> bool {
        self.len >= compound::MAGIC.len() && self.bytes[..compound::MAGIC.len()] == compound::MAGIC
    }

    /// Whether the input may be an XML document: a byte order mark, white
    /// space or `<` first (then the flat OpenDocument check reads more).
    fn may_be_xml(&self) -> bool {
        let bytes = &self.bytes[..self.len];
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        matches!(bytes.trim_ascii_start().first(), Some(b'<') | None) && self.len > 0
    }

    /// What the input is when it is a spreadsheet of a format or version
    /// this reader does not read, told by its first bytes: a BIFF stream
    /// outside a compound file (Excel 2.x-4.0 files and the BIFF4
    /// workbook; a raw BIFF5/8 stream), an Excel 2003 XML spreadsheet. None for anything else.
    fn unsupported(&self) -> Option<String> {
        let head = &self.bytes[..self.len];
        if let Some(found) = biff_stream(head) {
            return Some(found);
        }
        // XML: the root element's name and namespaces are in its first
        // kilobyte (after the declaration and processing instructions).
        let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
        let text = text.trim_ascii_start();
        if !text.starts_with(b"<") {
            return None;
        }
        let contains = |needle: &[u8]| text.windows(needle.len()).any(|w| w == needle);
        if contains(b"urn:schemas-microsoft-com:office:spreadsheet")
            || contains(b"progid=\"Excel.Sheet\"")
        {
            return Some("an Excel 2003 XML spreadsheet (SpreadsheetML 2003)".into());
        }
        None
    }
}

/// The version a BIFF stream outside a compound file was written in, in
/// words, when the input starts with a BOF record: type 0x0009 (BIFF2),
/// 0x0209 (BIFF3), 0x0409 (BIFF4) or 0x0809 (BIFF5 and later), its size
/// one a BOF of that version has ([MS-XLS] 2.4.21 and the BIFF2-4 BOFs
/// before it), its sheet type a known one.
fn biff_stream(head: &[u8]) -> Option<String> {
    let word = |at: usize| -> Option<u16> {
        let bytes = head.get(at..at + 2)?;
        Some(u16::from_le_bytes([bytes[0], bytes[1]]))
    };
    let (record, size, version, kind) = (word(0)?, word(2)?, word(4)?, word(6)?);
    let (excel, biff) = match (record, size) {
        (0x0009, 4..=6) => ("Excel 2.x", "BIFF2"),
        (0x0209, 6) => ("Excel 3.0", "BIFF3"),
        (0x0409, 6) => ("Excel 4.0", "BIFF4"),
        (0x0809, 4..=20) => match version {
            0x0500 => ("Excel 5.0/95", "BIFF5"),
            0x0600 => ("Excel 97-2003", "BIFF8"),
            _ => ("Excel 5.0 or later", "BIFF5-8"),
        },
        _ => return None,
    };
    let what = match kind {
        0x0010 => "worksheet",
        0x0020 => "chart",
        0x0040 => "macro sheet",
        0x0100 if record == 0x0409 => "workbook",
        0x0005 if record == 0x0809 => "workbook",
        _ => return None,
    };
    let container = if record == 0x0809 {
        "a bare record stream, not in a compound file as an .xls file's is"
    } else {
        "from before .xls files were compound files"
    };
    Some(format!("an {excel} {what} ({biff}, {container})"))
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
    if let Some(found) = head.unsupported() {
        return Err(Error::unsupported_format(found));
    }
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
        let opened = ods::open_package(archive, limits, &passwords.0)?;
        // An `.ods` records no integrity check beyond each entry's
        // checksum, which every read of the entry checks.
        let state = opened.book.encryption_scheme().map(|scheme| {
            EncryptionState::new(scheme.to_owned(), Integrity::NotRecorded, Vec::new())
        });
        return Ok((opened.map_book(Book::Ods), state));
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
