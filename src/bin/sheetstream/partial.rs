//! Output files written under a temporary name beside their path and
//! renamed to it once complete: a write that fails (a sheet damaged
//! midway, a full disk) leaves no file, whole or partial, under the
//! output's name, and removes its temporary one. `csv -o`, `csv --all`,
//! `jsonl -o` and `parquet -o` write through it; the commands that write
//! several files (`csv --all`, `parquet --per-sheet`) keep them in
//! [`Outputs`] and name them all once every one is complete: a failure
//! anywhere leaves none.

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

/// The files (and the folders for them) one command writes, all or none:
/// each file complete under its temporary name until
/// [`Outputs::commit`] renames them all. Dropped before that (a sheet
/// damaged midway, in any workbook, on any thread), it removes every
/// file and the folders it made.
#[derive(Default)]
pub struct Outputs {
    /// Complete files, not yet renamed.
    files: Vec<PartialFile>,
    /// Folders made for the output, in the order made.
    folders: Vec<PathBuf>,
    committed: bool,
}

impl Outputs {
    pub fn new() -> Outputs {
        Outputs::default()
    }

    /// Makes `path` and the folders above it that are missing, noting
    /// each one made (to remove it again unless the output is committed).
    pub fn create_dir_all(&mut self, path: &Path) -> io::Result<()> {
        let mut missing = Vec::new();
        let mut at = Some(path);
        while let Some(folder) = at {
            if folder.as_os_str().is_empty() || folder.is_dir() {
                break;
            }
            missing.push(folder.to_owned());
            at = folder.parent();
        }
        for folder in missing.into_iter().rev() {
            match fs::create_dir(&folder) {
                Ok(()) => self.folders.push(folder),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists && folder.is_dir() => {}
                Err(err) => {
                    // Named as asked for (the folder given, not the part of
                    // it that could not be made).
                    return Err(io::Error::new(
                        err.kind(),
                        format!("{}: {err}", path.display()),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Keeps a complete file (its writer flushed and closed) to be named
    /// at [`Outputs::commit`].
    pub fn add(&mut self, file: PartialFile) {
        self.files.push(file);
    }

    /// Names every file. Should a rename fail, the files already named
    /// are removed again, as are the rest: nothing of the output stays.
    pub fn commit(mut self) -> io::Result<()> {
        let mut named: Vec<PathBuf> = Vec::with_capacity(self.files.len());
        for file in std::mem::take(&mut self.files) {
            let path = file.path.clone();
            let settled = file.settled;
            if let Err(err) = file.finish() {
                for path in named {
                    let _ = fs::remove_file(path);
                }
                return Err(err);
            }
            if !settled {
                named.push(path);
            }
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        // The files first (each removes its temporary name), then the
        // folders, innermost first (only empty ones go).
        self.files.clear();
        for folder in self.folders.iter().rev() {
            let _ = fs::remove_dir(folder);
        }
    }
}
