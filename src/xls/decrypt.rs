//! Encrypted `.xls` workbooks inside the BIFF reader: the FILEPASS record
//! of the globals unlocked with the passwords (Excel's default one first),
//! and the [`StreamDecryptor`] that every reader of the workbook stream
//! (`Records`, through its window) hands each record after the FILEPASS.
//!
//! The schemes themselves (RC4, RC4 CryptoAPI, XOR obfuscation) are the
//! decryption engine's (`crate::encryption`, feature `encryption`);
//! without the feature an encrypted `.xls` is refused here by name.

use crate::error::Result;

use super::records::Biff;

#[cfg(feature = "encryption")]
use crate::encryption::{BiffVersion, FilePass, RecordDecryptor};

/// No decryptor: a build without the `encryption` feature refuses
/// encrypted workbooks before one could be made.
#[cfg(not(feature = "encryption"))]
#[derive(Clone)]
enum RecordDecryptor {}

#[cfg(not(feature = "encryption"))]
impl RecordDecryptor {
    fn decrypt_record(&mut self, _offset: u64, _kind: u16, _body: &mut [u8]) {
        match *self {}
    }

    fn decrypt_records(&mut self, _offset: u64, _window: &mut [u8]) -> usize {
        match *self {}
    }
}

/// Decrypts the records of an encrypted workbook stream in place, each by
/// its offset in the stream: the records from the one after the FILEPASS
/// record on (those before it are plain). Clone one per reader of the
/// stream (a sheet's, a parallel worker's); any order of records gives the
/// same bytes, stream order costs least.
#[derive(Clone)]
pub(crate) struct StreamDecryptor {
    cipher: RecordDecryptor,
    /// The offset of the record after the FILEPASS.
    from: u64,
}

impl std::fmt::Debug for StreamDecryptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("StreamDecryptor")
            .field("from", &self.from)
            .finish_non_exhaustive()
    }
}

impl StreamDecryptor {
    /// Decrypts the body of the record whose header is at `offset`, of
    /// type `kind` (the whole body: the XOR scheme's key depends on its
    /// length). A record before the FILEPASS's end is left as it is.
    #[inline]
    pub(crate) fn decrypt_record(&mut self, offset: u64, kind: u16, body: &mut [u8]) {
        if offset >= self.from {
            self.cipher.decrypt_record(offset, kind, body);
        }
    }

    /// Decrypts the records that lie whole at the start of `window` (its
    /// first byte the header of the record at stream offset `offset`) and
    /// returns how many bytes they take: a window's worth at a time (a
    /// record cut short at the end waits for a later call).
    pub(crate) fn decrypt_records(&mut self, mut offset: u64, window: &mut [u8]) -> usize {
        let mut done = 0;
        // The records before the FILEPASS's end are plain.
        while offset < self.from {
            let Some(&[_, _, a, b]) = window.get(done..).and_then(|rest| rest.first_chunk()) else {
                return done;
            };
            let next = done + 4 + usize::from(u16::from_le_bytes([a, b]));
            if next > window.len() {
                return done;
            }
            offset += (next - done) as u64;
            done = next;
        }
        done + self.cipher.decrypt_records(offset, &mut window[done..])
    }
}

/// The decryptor and the scheme's name (`xls RC4 CryptoAPI 128-bit`) of
/// a FILEPASS record's body, the passwords tried as the engine tries
/// them (Excel's default first); `from` is the offset after the record.
///
/// # Errors
///
/// [`ErrorKind::PasswordRequired`](crate::ErrorKind::PasswordRequired),
/// [`ErrorKind::PasswordIncorrect`](crate::ErrorKind::PasswordIncorrect),
/// [`ErrorKind::UnsupportedEncryption`](crate::ErrorKind::UnsupportedEncryption)
/// and, for a damaged record,
/// [`ErrorKind::Encrypted`](crate::ErrorKind::Encrypted); that kind too
/// in a build without the `encryption` feature.
#[cfg(feature = "encryption")]
pub(crate) fn unlock(
    body: &[u8],
    biff: Biff,
    from: u64,
    passwords: &[String],
) -> Result<(StreamDecryptor, String)> {
    let version = match biff {
        Biff::V5 => BiffVersion::Biff5,
        Biff::V8 => BiffVersion::Biff8,
    };
    let filepass = FilePass::parse(body, version)?;
    let scheme = filepass.scheme();
    let cipher = filepass.unlock(passwords)?;
    Ok((StreamDecryptor { cipher, from }, scheme))
}

/// See the other `unlock`: a build without the `encryption` feature
/// refuses the workbook.
#[cfg(not(feature = "encryption"))]
pub(crate) fn unlock(
    _body: &[u8],
    _biff: Biff,
    _from: u64,
    _passwords: &[String],
) -> Result<(StreamDecryptor, String)> {
    Err(crate::error::Error::new(
        crate::error::ErrorKind::Encrypted(
            "the .xls workbook is encrypted (it has a FILEPASS record), and this build of \
         sheetstream has no `encryption` feature to decrypt it"
                .into(),
        ),
    ))
}
