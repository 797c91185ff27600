//! The workbooks a command reads: paths, globs and `-` expanded into a
//! list of inputs, each opened with a message that names it. Every command
//! that reads workbooks (and new ones) goes through [`inputs`] and
//! [`Input::open`].

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sheetstream::{Limits, SharedFile, Workbook};

use crate::progress::Progress;
use crate::{Common, Failure};

/// One workbook to read.
pub struct Input {
    /// As the user wrote it (or as a glob expanded it); `-` for stdin.
    pub path: PathBuf,
}

impl Input {
    /// The name shown in messages and in the `file` column.
    pub fn display(&self) -> String {
        crate::escape(&self.path.to_string_lossy()).into_owned()
    }

    /// Whether this is standard input.
    pub fn is_stdin(&self) -> bool {
        self.path.as_os_str() == "-"
    }

    /// Opens the workbook, counting the compressed bytes read for the
    /// progress bar. Standard input is copied into a temporary file first
    /// (a ZIP is read from its end), at most `Limits::max_part_bytes`
    /// (16 GiB); the file is removed as soon as it is open.
    pub fn open(&self, quiet: bool) -> Result<(Workbook, Progress), Failure> {
        let file = self.file()?;
        let progress = Progress::new(file.len(), quiet);
        let workbook = crate::passwords::open_options()
            .from_shared_reader(file.with_progress(progress.counter()))
            .map_err(|err| self.locate(err))?;
        Ok((workbook, progress))
    }

    /// The input's bytes, not yet opened as a workbook (for one progress
    /// bar over many inputs): standard input spooled as [`Input::open`]
    /// does, a file checked to be a regular file; the failure names it.
    pub fn file(&self) -> Result<SharedFile, Failure> {
        if self.is_stdin() {
            spool_stdin()
        } else {
            self.open_file()
        }
    }

    fn open_file(&self) -> Result<SharedFile, Failure> {
        let path = &self.path;
        let metadata = fs::metadata(path).map_err(|err| self.io_failure(err))?;
        if metadata.is_dir() {
            return Err(self.read_failure("is a directory, not a workbook file".into()));
        }
        if !metadata.is_file() {
            // A pipe, /dev/stdin, a process substitution (`<(...)`): a ZIP
            // is read from its end, which a stream cannot seek to.
            return Err(self.read_failure(
                "is not a regular file and cannot be seeked (a pipe or a process \
                 substitution?); give `-` to read the workbook from standard input"
                    .into(),
            ));
        }
        SharedFile::open(path).map_err(|err| self.io_failure(err))
    }

    fn io_failure(&self, err: io::Error) -> Failure {
        let reason = match err.kind() {
            io::ErrorKind::NotFound => "no such file".to_owned(),
            io::ErrorKind::PermissionDenied => "permission denied: cannot read it".to_owned(),
            _ => err.to_string(),
        };
        self.read_failure(reason)
    }

    fn read_failure(&self, reason: String) -> Failure {
        Failure::Read(sheetstream::Error::from(io::Error::other(format!(
            "{}: {reason}",
            self.display()
        ))))
    }

    /// A read error with the file name in front, when several files are read.
    pub fn locate(&self, err: sheetstream::Error) -> Failure {
        Failure::ReadFile(self.display(), err)
    }
}

/// The inputs of a command: each argument is a file, `-`, a folder (the
/// workbooks in it, as [`sheetstream::workbooks_in`] lists them: by name,
/// with its subfolders' when `recursive`), or a glob (`*`, `?`, `[...]`)
/// that sheetstream expands itself when the shell did not (quoted, or no
/// match in the shell); a glob that matches nothing is an error, as are a
/// folder holding no workbook and `-` given twice.
pub fn inputs(common: &Common) -> Result<Vec<Input>, Failure> {
    expand(&common.files, common.recursive)
}

/// As [`inputs`], for any command's list of file arguments.
pub fn expand(files: &[PathBuf], recursive: bool) -> Result<Vec<Input>, Failure> {
    let mut inputs = Vec::new();
    let mut stdin_seen = false;
    for path in files {
        if path.as_os_str() == "-" {
            if stdin_seen {
                return Err(Failure::Usage(
                    "`-` (standard input) is given more than once".into(),
                ));
            }
            stdin_seen = true;
            inputs.push(Input { path: path.clone() });
            continue;
        }
        let text = path.to_string_lossy();
        if path.is_dir() {
            let found = sheetstream::workbooks_in(path, recursive).map_err(|err| {
                Failure::Read(sheetstream::Error::from(io::Error::new(
                    err.kind(),
                    format!("{}: cannot list the folder: {err}", crate::escape(&text)),
                )))
            })?;
            if found.is_empty() {
                return Err(Failure::Usage(format!(
                    "the folder `{}` holds no workbook (files ending in .{}){}",
                    crate::escape(&text),
                    sheetstream::WORKBOOK_EXTENSIONS.join(", ."),
                    if recursive {
                        ""
                    } else {
                        "; --recursive looks in its subfolders too"
                    }
                )));
            }
            inputs.extend(found.into_iter().map(|path| Input { path }));
        } else if !path.exists() && text.contains(['*', '?', '[']) {
            let matches = expand_glob(&text);
            if matches.is_empty() {
                return Err(Failure::Usage(format!(
                    "no file matches `{}`",
                    crate::escape(&text)
                )));
            }
            inputs.extend(matches.into_iter().map(|path| Input { path }));
        } else {
            inputs.push(Input { path: path.clone() });
        }
    }
    Ok(inputs)
}

/// Copies standard input into a temporary file and opens it.
fn spool_stdin() -> Result<SharedFile, Failure> {
    let limit = Limits::default().max_part_bytes;
    let path = std::env::temp_dir().join(format!(
        "sheetstream-stdin-{}-{}.xlsx",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos())
    ));
    let failure = |err: io::Error| {
        Failure::Read(sheetstream::Error::from(io::Error::other(format!(
            "standard input: cannot copy it into a temporary file ({}): {err}",
            path.display()
        ))))
    };
    let copied = (|| -> io::Result<u64> {
        let mut file = File::options().write(true).create_new(true).open(&path)?;
        let copied = io::copy(&mut io::stdin().lock().take(limit + 1), &mut file)?;
        file.flush()?;
        Ok(copied)
    })();
    let opened = copied.map_err(failure).and_then(|copied| {
        if copied > limit {
            return Err(Failure::Read(sheetstream::Error::from(io::Error::other(
                format!(
                    "standard input: more than {limit} bytes (the largest part a workbook may have)"
                ),
            ))));
        }
        SharedFile::open(&path).map_err(failure)
    });
    // Unix keeps the open file readable after its name is gone; elsewhere
    // the name is removed at exit.
    if cfg!(unix) || opened.is_err() {
        let _ = fs::remove_file(&path);
    } else {
        REMOVE_AT_EXIT
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .push(path.clone());
    }
    opened
}

/// Temporary files to remove before the process exits (not on Unix).
pub static REMOVE_AT_EXIT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// The files a glob matches, sorted; wildcards may stand in any component.
fn expand_glob(pattern: &str) -> Vec<PathBuf> {
    let path = Path::new(pattern);
    let mut current: Vec<PathBuf> = vec![PathBuf::new()];
    let components: Vec<_> = path.components().collect();
    for (index, component) in components.iter().enumerate() {
        let part = component.as_os_str();
        let text = part.to_string_lossy();
        let last = index + 1 == components.len();
        if !text.contains(['*', '?', '[']) {
            for base in &mut current {
                base.push(part);
            }
            continue;
        }
        let mut next = Vec::new();
        for base in &current {
            let folder = if base.as_os_str().is_empty() {
                Path::new(".")
            } else {
                base.as_path()
            };
            let Ok(entries) = fs::read_dir(folder) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name_text = name.to_string_lossy();
                // As shells do, `*` does not match a leading dot.
                if name_text.starts_with('.') && !text.starts_with('.') {
                    continue;
                }
                if glob_match(text.as_bytes(), name_text.as_bytes())
                    && (last || entry.path().is_dir())
                {
                    next.push(base.join(&name as &OsStr));
                }
            }
        }
        current = next;
    }
    current.retain(|path| !path.as_os_str().is_empty() && path.is_file());
    current.sort();
    current
}

/// Whether `name` matches a glob component: `*` any run, `?` one
/// character, `[abc]`, `[a-z]`, `[!x]` one of a set.
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() {
            match pattern[p] {
                b'*' => {
                    star = Some((p, n));
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    n += utf8_len(name[n]);
                    continue;
                }
                b'[' => {
                    if let Some((matched, end)) = class_match(&pattern[p..], name[n]) {
                        if matched {
                            p += end;
                            n += 1;
                            continue;
                        }
                    } else if name[n] == b'[' {
                        p += 1;
                        n += 1;
                        continue;
                    }
                }
                byte if byte == name[n] => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((star_p, star_n)) => {
                p = star_p + 1;
                n = star_n + 1;
                star = Some((star_p, star_n + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&byte| byte == b'*')
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// A `[...]` class at the start of `pattern` against one byte: whether it
/// matches, and the class's length; None when the class is not closed.
fn class_match(pattern: &[u8], byte: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negated = matches!(pattern.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < pattern.len() {
        if pattern[i] == b']' && !first {
            return Some((matched != negated, i + 1));
        }
        first = false;
        if pattern.get(i + 1) == Some(&b'-') && pattern.get(i + 2).is_some_and(|&c| c != b']') {
            matched |= (pattern[i]..=pattern[i + 2]).contains(&byte);
            i += 3;
        } else {
            matched |= pattern[i] == byte;
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_as_shells_do() {
        for (pattern, name, expected) in [
            ("*.xlsx", "a.xlsx", true),
            ("*.xlsx", "a.xlsm", false),
            ("q?.xlsx", "q1.xlsx", true),
            ("q?.xlsx", "q10.xlsx", false),
            ("[ab]*", "b.x", true),
            ("[!ab]*", "b.x", false),
            ("[a-c]1", "c1", true),
            ("*a*b", "xxaxxb", true),
            ("*a*b", "xxaxxbx", false),
            ("[x", "[x", true),
        ] {
            assert_eq!(
                glob_match(pattern.as_bytes(), name.as_bytes()),
                expected,
                "{pattern} {name}"
            );
        }
    }
}
