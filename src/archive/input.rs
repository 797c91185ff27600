//! What the ZIP reader reads: the input as it is, or the decrypted package
//! of an encrypted workbook (an `.xlsx`/`.xlsb` package that Office
//! encrypted into the `EncryptedPackage` stream of a compound file).
//!
//! One type for both, so that the formats above hold one
//! `Archive<PackageInput<R>>` whatever the file: a read costs one match
//! per call (the ZIP reader reads in chunks of kilobytes, never per cell),
//! and a plain file's bytes go straight through. The decrypted package
//! decrypts only the 4096-byte segments a read covers
//! (`crate::encryption::DecryptedPackage`), so the ZIP reader, its clones
//! for the parallel workers and the pipe's read-ahead run on it
//! unchanged: never a decrypted copy of the package.

use std::io::{self, Read, Seek, SeekFrom};

#[cfg(feature = "encryption")]
use crate::compound::OwnedStream;
#[cfg(feature = "encryption")]
use crate::encryption::DecryptedPackage;

/// The bytes of a ZIP package: the input itself, or an encrypted
/// workbook's package decrypted as it is read. Clone it (when `R` clones)
/// for another reader with a position of its own.
pub(crate) enum PackageInput<R> {
    /// A plain package: the input.
    Plain(R),
    /// An encrypted package: the `EncryptedPackage` stream of the compound
    /// file in the input, decrypted segment by segment.
    #[cfg(feature = "encryption")]
    Decrypted(DecryptedPackage<OwnedStream<R>>),
}

impl<R: Clone> Clone for PackageInput<R> {
    fn clone(&self) -> PackageInput<R> {
        match self {
            PackageInput::Plain(reader) => PackageInput::Plain(reader.clone()),
            #[cfg(feature = "encryption")]
            PackageInput::Decrypted(package) => PackageInput::Decrypted(package.clone()),
        }
    }
}

impl<R: Read + Seek> Read for PackageInput<R> {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            PackageInput::Plain(reader) => reader.read(buf),
            #[cfg(feature = "encryption")]
            PackageInput::Decrypted(package) => package.read(buf),
        }
    }
}

impl<R: Read + Seek> Seek for PackageInput<R> {
    #[inline]
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match self {
            PackageInput::Plain(reader) => reader.seek(pos),
            #[cfg(feature = "encryption")]
            PackageInput::Decrypted(package) => package.seek(pos),
        }
    }

    #[inline]
    fn stream_position(&mut self) -> io::Result<u64> {
        match self {
            PackageInput::Plain(reader) => reader.stream_position(),
            #[cfg(feature = "encryption")]
            PackageInput::Decrypted(package) => package.stream_position(),
        }
    }
}
