//! Output files written under a temporary name beside their path and
//! renamed to it once complete: a write that fails (a sheet damaged
//! midway, a full disk) leaves no file, whole or partial, under the
//! output's name, and removes its temporary one. `csv -o`, `csv --all`,
//! `jsonl -o` and `parquet -o` write through it.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// A file being written: removed when dropped before [`PartialFile::finish`].
pub struct PartialFile {
    /// Where the bytes go until the file is complete.
    partial: PathBuf,
    path: PathBuf,
    /// Whether nothing is left to rename or remove (renamed, or written
    /// in place).
    settled: bool,
}

impl PartialFile {
    /// Creates `.NAME.partial-PID` beside `path` (or, when `path` is a
    /// device or a pipe such as `/dev/stdout`, opens `path` itself: such a
    /// path cannot be renamed onto).
    pub fn create(path: &Path) -> io::Result<(PartialFile, File)> {
        let named =
            |err: io::Error| io::Error::new(err.kind(), format!("{}: {err}", path.display()));
        let special = fs::metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir());
        let partial = if special {
            path.to_owned()
        } else {
            let mut name = OsString::from(".");
            name.push(path.file_name().unwrap_or_default());
            name.push(format!(".partial-{}", std::process::id()));
            path.with_file_name(name)
        };
        let file = File::create(&partial).map_err(named)?;
        let file_guard = PartialFile {
            partial,
            path: path.to_owned(),
            settled: special,
        };
        Ok((file_guard, file))
    }

    /// Renames the complete file to its path (its writer flushed and
    /// closed first).
    pub fn finish(mut self) -> io::Result<()> {
        if !self.settled {
            fs::rename(&self.partial, &self.path).map_err(|err| {
                io::Error::new(err.kind(), format!("{}: {err}", self.path.display()))
            })?;
            self.settled = true;
        }
        Ok(())
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.settled {
            let _ = fs::remove_file(&self.partial);
        }
    }
}
