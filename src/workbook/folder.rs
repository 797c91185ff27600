//! A folder as a source: the workbooks in it, listed as a glob lists
//! files (by name, hidden files left out), for every interface that takes
//! a folder where it takes files (the CLI's commands, Python's
//! `read_excel("reports/")`, `scan_excel`, `read_excel_sheets`).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::detect::WORKBOOK_EXTENSIONS;

/// The workbooks in `folder`, sorted by path: its files whose extension
/// is a workbook's ([`WORKBOOK_EXTENSIONS`], in any case), and with
/// `recursive` those of its subfolders, at any depth. Left out, as a
/// glob's `*` leaves them out or as they are no workbooks: names
/// starting with `.` (hidden files and folders) and with `~$` (the lock
/// files Excel writes beside an open workbook). Symbolic links to files
/// are followed, links to folders are not (a link may loop). An empty
/// result is no error here: each interface says so in its own words.
///
/// ```
/// let found = sheetstream::workbooks_in("examples/data".as_ref(), false)?;
/// assert!(found.iter().any(|path| path.ends_with("sales.xlsx")));
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// The folder (or, with `recursive`, a subfolder) cannot be listed.
pub fn workbooks_in(folder: &Path, recursive: bool) -> io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(current) = folders.pop() {
        for entry in fs::read_dir(&current)? {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                if recursive {
                    folders.push(path);
                }
            } else if is_workbook_name(&name) && fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Whether a file name is one a folder's listing keeps: a workbook's
/// extension, not a lock file.
fn is_workbook_name(name: &str) -> bool {
    if name.starts_with("~$") {
        return false;
    }
    let Some((_, extension)) = name.rsplit_once('.') else {
        return false;
    };
    WORKBOOK_EXTENSIONS
        .iter()
        .any(|known| known.eq_ignore_ascii_case(extension))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbook::FileFormat;

    #[test]
    fn every_format_extension_is_listed() {
        for format in [FileFormat::Xlsx, FileFormat::Xlsb, FileFormat::Xls] {
            for extension in format.extensions() {
                assert!(WORKBOOK_EXTENSIONS.contains(extension), "{extension}");
            }
        }
    }

    #[test]
    fn names_kept_and_left_out() {
        for kept in [
            "a.xlsx", "B.XLSX", "r.xlsb", "old.xls", "t.xltm", "c.ods", "f.fods",
        ] {
            assert!(is_workbook_name(kept), "{kept}");
        }
        for left in ["~$a.xlsx", "notes.txt", "xlsx", "a.xlsx.bak", "a.csv"] {
            assert!(!is_workbook_name(left), "{left}");
        }
    }

    #[test]
    fn a_folder_sorted_recursive_on_request() {
        let root = std::env::temp_dir().join(format!("sheetstream-folder-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("sub/deeper")).unwrap();
        fs::create_dir_all(root.join(".hidden")).unwrap();
        for name in [
            "b.xlsx",
            "a.xls",
            "~$b.xlsx",
            ".c.xlsx",
            "notes.txt",
            "sub/c.xlsb",
            "sub/deeper/d.xlsx",
            ".hidden/e.xlsx",
        ] {
            fs::write(root.join(name), b"").unwrap();
        }
        fs::create_dir_all(root.join("folder.xlsx")).unwrap();
        let names = |found: Vec<PathBuf>| -> Vec<String> {
            found
                .iter()
                .map(|path| {
                    let relative = path.strip_prefix(&root).unwrap();
                    relative.to_string_lossy().replace('\\', "/")
                })
                .collect()
        };
        assert_eq!(
            names(workbooks_in(&root, false).unwrap()),
            ["a.xls", "b.xlsx"]
        );
        assert_eq!(
            names(workbooks_in(&root, true).unwrap()),
            ["a.xls", "b.xlsx", "sub/c.xlsb", "sub/deeper/d.xlsx"]
        );
        assert!(workbooks_in(&root.join("absent"), false).is_err());
        fs::remove_dir_all(&root).unwrap();
    }
}
