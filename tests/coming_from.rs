//! What a user coming from polars and pandas meets (issue 43), through the
//! command-line tool and the library: a folder is a source, nothing read
//! is an error, a header merged down over two rows stays a header, errors
//! say what happened and which format was found, and Excel 2.x-4.0 files
//! are refused by version.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{CliRun, Package, content_types, run_cli_args, temp_dir};
use sheetstream::{ErrorClass, ErrorKind, Workbook};

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

/// A workbook of one sheet `Data`: a header `region`, `amount`, then one
/// row per amount.
fn small_book(region: &str, amounts: &[f64]) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet().set_name("Data").unwrap();
    sheet.write_string(0, 0, "region").unwrap();
    sheet.write_string(0, 1, "amount").unwrap();
    for (row, amount) in amounts.iter().enumerate() {
        sheet.write_string(row as u32 + 1, 0, region).unwrap();
        sheet.write_number(row as u32 + 1, 1, *amount).unwrap();
    }
    book.save_to_buffer().unwrap()
}

/// A folder of reports: two workbooks, a text file, an Excel lock file,
/// a hidden workbook and a subfolder with a third workbook.
fn reports(root: &Path) -> PathBuf {
    let folder = root.join("reports");
    std::fs::create_dir_all(folder.join("2023")).unwrap();
    std::fs::write(folder.join("south.xlsx"), small_book("South", &[4.0, 5.0])).unwrap();
    std::fs::write(folder.join("north.xlsx"), small_book("North", &[1.0])).unwrap();
    std::fs::write(folder.join("notes.txt"), "not a workbook").unwrap();
    std::fs::write(folder.join("~$north.xlsx"), b"lock").unwrap();
    std::fs::write(folder.join(".hidden.xlsx"), b"hidden").unwrap();
    std::fs::write(
        folder.join("2023").join("east.xlsx"),
        small_book("East", &[7.0]),
    )
    .unwrap();
    folder
}

/// The file column of `sheets` over several workbooks.
fn listed_files(run: &CliRun) -> Vec<String> {
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run.stdout
        .lines()
        .skip(1)
        .map(|line| line.split('\t').next().unwrap().to_owned())
        .collect()
}

#[test]
fn a_folder_is_read_as_its_workbooks_in_name_order() {
    let dir = temp_dir("folder-source");
    let folder = reports(&dir.0);
    let names = |files: Vec<String>| -> Vec<String> {
        files
            .iter()
            .map(|file| {
                Path::new(file)
                    .strip_prefix(&folder)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect()
    };
    let listed = listed_files(&run_cli_args(&["sheets", path_str(&folder)]));
    assert_eq!(names(listed), ["north.xlsx", "south.xlsx"]);
    let listed = listed_files(&run_cli_args(&["sheets", "--recursive", path_str(&folder)]));
    assert_eq!(
        names(listed),
        ["2023/east.xlsx", "north.xlsx", "south.xlsx"]
    );
    // Every command that takes files: a CSV of the folder, one workbook
    // after the other, in name order.
    let run = run_cli_args(&["csv", path_str(&folder), "--file-column", "file"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let regions: Vec<&str> = (run.stdout.lines().skip(1))
        .map(|line| line.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(regions, ["North", "South", "South"]);
    // A Parquet file of the folder, the folder beside a file.
    let out = dir.0.join("all.parquet");
    let run = run_cli_args(&[
        "parquet",
        path_str(&folder),
        "-o",
        path_str(&out),
        "--file-column",
        "file",
        "--quiet",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(out.is_file());
    // A folder without workbooks is a usage error naming it and the
    // extensions looked for.
    let empty = dir.0.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let run = run_cli_args(&["count", path_str(&empty)]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("holds no workbook") && run.stderr.contains(".xlsx, .xlsm"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--recursive"), "{}", run.stderr);
}

fn run_raw(args: &[&str]) -> (Option<i32>, String, usize) {
    let output = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr, output.stdout.len())
}

#[test]
fn nothing_readable_is_an_error_with_the_skipped_list() {
    let dir = temp_dir("nothing-read");
    let text = dir.0.join("text.xlsx");
    std::fs::write(&text, "Item,Amount\napples,10\n").unwrap();
    let empty = dir.0.join("empty.xlsx");
    std::fs::write(&empty, b"").unwrap();
    let out = dir.0.join("out.parquet");
    let per_sheet = dir.0.join("per-sheet");
    for command in ["parquet", "parquet-per-sheet", "arrow", "schema"] {
        let mut args = vec![
            command.trim_end_matches("-per-sheet"),
            path_str(&text),
            path_str(&empty),
            "--skip-unreadable",
        ];
        match command {
            "parquet" => args.extend(["-o", path_str(&out)]),
            "parquet-per-sheet" => args.extend(["--per-sheet", "-o", path_str(&per_sheet)]),
            _ => {}
        }
        let (code, stderr, written) = run_raw(&args);
        assert_eq!(code, Some(1), "{command}: {stderr}");
        assert_eq!(written, 0, "{command} wrote to stdout");
        for file in [&text, &empty] {
            assert!(
                stderr.contains(&format!("skipped {}", file.display())),
                "{command}: {stderr}"
            );
        }
        assert!(stderr.contains("nothing read"), "{command}: {stderr}");
        assert!(stderr.contains("--skip-unreadable"), "{command}: {stderr}");
        assert!(!out.exists(), "{command} left a Parquet file");
        assert!(!per_sheet.exists(), "{command} left a folder");
    }
    // One readable file among them: read, exit 0.
    let good = dir.0.join("good.xlsx");
    std::fs::write(&good, small_book("North", &[1.0])).unwrap();
    let run = run_cli_args(&[
        "parquet",
        path_str(&text),
        path_str(&good),
        "--skip-unreadable",
        "-o",
        path_str(&out),
        "--quiet",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(out.is_file());
    // The library: the many-sheet reader's error, and its list.
    let options = sheetstream::arrow::ArrowOptions::new().skip_unreadable(true);
    let mut reader = options
        .read_files([&text, &empty], sheetstream::arrow::SheetChoice::First)
        .unwrap();
    let err = reader.next_batch().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::NothingRead(_)), "{err:?}");
    assert_eq!(err.class(), ErrorClass::Request);
    assert!(err.to_string().contains("all 2 files and sheets"), "{err}");
    assert_eq!(reader.skipped().len(), 2);
}

#[test]
fn a_header_merged_down_over_two_rows_is_no_data() {
    use sheetstream::arrow::{ArrowOptions, Header};
    // `Sales`: Region merged A3:A4 beside 2024/2025 over Q1 Q2 in row 4.
    let bytes = crate::shapes::shapes_book();
    let mut workbook = Workbook::from_bytes(bytes.clone()).unwrap();
    let options = ArrowOptions::new()
        .header(Header::Row(2))
        .fill_merged(true)
        .skip_hidden_columns(true);
    let mut batches = options.read_sheet(&mut workbook, "Sales").unwrap();
    let batch = batches.next_batch().unwrap().unwrap();
    let regions = batch
        .column(0)
        .as_any()
        .downcast_ref::<sheetstream::arrow::arrow_array::StringArray>()
        .unwrap();
    // Row 4 (Region filled down, Q1, Q2) is the header's, not data.
    let first: Vec<Option<&str>> = regions.iter().take(2).collect();
    assert_eq!(first, [Some("North"), Some("North")]);
    assert_eq!(batches.report().header_row, Some(2));
    drop(batches);
    // The same without fill_merged read row 4 as data before, and still
    // does (its merge is not read): only fill_merged changes it.
    let mut plain = ArrowOptions::new()
        .header(Header::Row(2))
        .read_sheet(&mut workbook, "Sales")
        .unwrap();
    let batch = plain.next_batch().unwrap().unwrap();
    let column = batch.column(1);
    assert_eq!(column.len(), 7, "rows 4 to 10");
    // The CLI: the same table.
    let dir = temp_dir("merged-header");
    let book = dir.0.join("shapes.xlsx");
    std::fs::write(&book, &bytes).unwrap();
    let run = run_cli_args(&[
        "schema",
        path_str(&book),
        "--sheet",
        "Sales",
        "--header-row",
        "3",
        "--fill-merged",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Column B holds numbers only: the Q1 of row 4 is no value of it.
    assert!(run.stdout.contains("2024\tInt64"), "{}", run.stdout);
}

/// The class and message of opening `bytes`.
fn open_error(bytes: Vec<u8>) -> sheetstream::Error {
    match Workbook::from_bytes(bytes) {
        Ok(_) => panic!("opened"),
        Err(err) => err,
    }
}

#[test]
fn errors_say_what_happened_and_the_format_found() {
    // Not a workbook.
    for (bytes, found) in [
        (Vec::new(), "empty"),
        (b"Item,Amount\n".to_vec(), "ZIP signature"),
        (
            Package::new()
                .with("[Content_Types].xml", content_types())
                .with("word/document.xml", "<w:document/>")
                .build(),
            "Word document (.docx)",
        ),
    ] {
        let err = open_error(bytes);
        assert_eq!(err.class(), ErrorClass::NotAWorkbook, "{err}");
        assert!(err.to_string().contains(found), "{err}");
    }
    // A spreadsheet of another format: named, and refused (OpenDocument
    // spreadsheets are read: issue 44).
    let xml2003 = br#"<?xml version="1.0"?><?mso-application progid="Excel.Sheet"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"/>"#;
    let mut biff4 = vec![0x09, 0x04, 6, 0, 0, 0, 0x10, 0, 0, 0];
    biff4.resize(74, 0);
    for (bytes, found) in [
        (xml2003.to_vec(), "an Excel 2003 XML spreadsheet"),
        (biff4, "an Excel 4.0 worksheet (BIFF4"),
    ] {
        let err = open_error(bytes);
        assert_eq!(err.class(), ErrorClass::Unsupported, "{err}");
        assert!(
            matches!(err.kind(), ErrorKind::UnsupportedFormat(_)),
            "{err:?}"
        );
        assert!(err.to_string().contains(found), "{err}");
        assert!(err.to_string().contains("save it as .xlsx"), "{err}");
    }
    // Damaged: an .xlsx part's XML, an .xls whose globals are cut short.
    let good = small_book("North", &[1.0]);
    let broken_xml = common::book()
        .sheet("S", common::sheet_xml(""))
        .package()
        .with("xl/workbook.xml", "<workbook><sheets><sheet name=")
        .build();
    let err = open_error(broken_xml);
    assert_eq!(err.class(), ErrorClass::Damaged, "{err}");
    assert!(err.to_string().contains("malformed XML"), "{err}");
    let mut xls = common::xls::Book::new();
    xls.sheet("S", common::xls::number(0, 0, 0, 1.0));
    let stream = xls.stream();
    let cut = common::xls::compound(&[("Workbook", &stream[..stream.len() / 3])]);
    let err = open_error(cut);
    assert_eq!(err.class(), ErrorClass::Damaged, "{err}");
    assert!(err.to_string().contains(".xls"), "{err}");
    // A limit.
    let mut limits = sheetstream::Limits::default();
    limits.max_metadata_part_bytes = 16;
    let limited = sheetstream::OpenOptions::new()
        .limits(limits)
        .from_reader(std::io::Cursor::new(good));
    let err = limited.err().expect("over the limit");
    assert_eq!(err.class(), ErrorClass::Limit, "{err}");
}

#[cfg(feature = "encryption")]
#[test]
fn an_encrypted_workbook_is_an_encryption_error_naming_the_format() {
    let plain = small_book("North", &[1.0]);
    let encrypted = common::encrypt::compound(&common::encrypt::agile(
        &plain,
        "not the default password",
        &common::encrypt::AgileParams::default(),
    ));
    let err = open_error(encrypted);
    assert_eq!(err.class(), ErrorClass::Encrypted, "{err}");
    assert!(err.to_string().contains("encrypted workbook"), "{err}");
    // The encryption's format: Agile (the package's format is known only
    // once decrypted).
    assert!(err.to_string().contains("Agile"), "{err}");
}

/// The inputs of the corpus that start with a BIFF BOF record (Excel
/// 2.x-4.0 files and bare BIFF streams), found by their first bytes.
fn raw_biff_streams(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let mut head = [0u8; 2];
            let read = std::fs::File::open(&path)
                .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut head));
            if read.is_ok() && matches!(head, [0x09, 0x00 | 0x02 | 0x04 | 0x08]) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn excel_2_to_4_files_are_refused_naming_their_version() {
    // Hand-made BOF records: BIFF4 worksheet and workbook, BIFF2, BIFF3.
    for (bof, found) in [
        (
            &[0x09, 0x04, 6, 0, 0, 0, 0x10, 0, 0, 0][..],
            "an Excel 4.0 worksheet (BIFF4",
        ),
        (
            &[0x09, 0x04, 6, 0, 0, 0, 0x00, 1, 0, 0],
            "an Excel 4.0 workbook (BIFF4",
        ),
        (
            &[0x09, 0x00, 4, 0, 2, 0, 0x10, 0],
            "an Excel 2.x worksheet (BIFF2",
        ),
        (
            &[0x09, 0x02, 6, 0, 0, 0, 0x40, 0, 0, 0],
            "an Excel 3.0 macro sheet (BIFF3",
        ),
    ] {
        let mut bytes = bof.to_vec();
        bytes.extend([0u8; 64]);
        let err = open_error(bytes);
        assert!(
            matches!(err.kind(), ErrorKind::UnsupportedFormat(_)),
            "{err:?}"
        );
        assert!(err.to_string().contains(found), "{err}");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/corpus-binary");
    if !root.is_dir() {
        common::skip_notice(
            "excel_2_to_4_files_are_refused_naming_their_version",
            "../shared/conformance/corpus-binary",
        );
        return;
    }
    let files = raw_biff_streams(&root);
    assert!(files.len() >= 12, "{files:?}");
    for file in &files {
        let err = match Workbook::open(file) {
            Ok(_) => panic!("{} opened", file.display()),
            Err(err) => err,
        };
        assert_eq!(
            err.class(),
            ErrorClass::Unsupported,
            "{}: {err}",
            file.display()
        );
        assert!(
            err.to_string().contains("BIFF"),
            "{}: {err}",
            file.display()
        );
        let run = run_cli_args(&["cells", path_str(file)]);
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(
            run.stderr.contains("not read; save it as .xlsx"),
            "{}",
            run.stderr
        );
    }
}
