//! The command-line tool's inputs and options, through the binary: many
//! files and globs, standard input, paths that are no workbook, sheet and
//! column selection, rectangular CSV, TSV and delimiters, names escaped.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{CliRun, book, run_cli_args, sheet_xml, temp_dir, temp_file};

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

fn ok(args: &[&str]) -> String {
    let run = run_cli_args(args);
    assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
    assert!(run.stderr.is_empty(), "{args:?}: {}", run.stderr);
    run.stdout
}

/// A failure with one line of message (clap's own usage errors, exit 2,
/// run longer: they are not counted).
fn fails(args: &[&str], code: i32) -> CliRun {
    let run = run_cli_args(args);
    assert_eq!(run.code, Some(code), "{args:?}: {run:?}");
    if run.stderr.starts_with("sheetstream: ") {
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
    } else {
        assert!(
            run.stderr.starts_with("error: "),
            "{args:?}: {}",
            run.stderr
        );
    }
    run
}

fn inline(reference: &str, text: &str) -> String {
    format!(r#"<c r="{reference}" t="inlineStr"><is><t>{text}</t></is></c>"#)
}

/// Sheet `Data`: a header (Item, Region, Amount, "ID"), then rows whose
/// trailing cells are empty, an empty row 4, and column B's shared string
/// index is bad in row 3 (so only a pushdown that leaves B out reads it).
/// Sheet `2` (named like a position), sheet `Other`.
fn sales() -> Vec<u8> {
    let header = format!(
        "{}{}{}{}",
        inline("A1", "Item"),
        inline("B1", "Region"),
        inline("C1", "Amount"),
        inline("D1", "ID")
    );
    let rows = format!(
        concat!(
            r#"<row r="1">{header}</row>"#,
            r#"<row r="2">{a2}<c r="B2" t="s"><v>0</v></c><c r="C2"><v>20</v></c></row>"#,
            r#"<row r="3">{a3}<c r="B3" t="s"><v>7</v></c><c r="C3"><v>12.5</v></c><c r="D3"><v>3</v></c></row>"#,
            r#"<row r="5">{a5}</row>"#
        ),
        header = header,
        a2 = inline("A2", "pears"),
        a3 = inline("A3", "tab\there, &quot;q&quot;"),
        a5 = inline("A5", "line\nbreak\\"),
    );
    book()
        .strings(&["<t>north</t>"])
        .sheet("Data", sheet_xml(&rows))
        .sheet(
            "2",
            sheet_xml(&format!(
                r#"<row r="1">{}</row>"#,
                inline("A1", "named two")
            )),
        )
        .sheet(
            "Other",
            sheet_xml(&format!(r#"<row r="1">{}</row>"#, inline("A1", "other"))),
        )
        .build()
}

#[test]
fn columns_by_name_letter_position_and_quoted_name() {
    let file = temp_file("cli-columns", &sales());
    let f = path_str(&file.0);
    // B's bad shared string in row 3 is never resolved.
    assert_eq!(
        ok(&["csv", f, "--columns", "Amount,A"]),
        "Amount,Item\n20,pears\n12.5,\"tab\there, \"\"q\"\"\"\n,\n,\"line\nbreak\\\"\n"
    );
    assert_eq!(
        ok(&["csv", f, "--columns", r#""ID",3:3"#, "--n-rows", "2"]),
        "ID,Amount\n,20\n3,12.5\n"
    );
    assert_eq!(
        ok(&["csv", f, "--columns", "D,4-4", "--n-rows", "0"]),
        "ID,ID\n"
    );
    // Without the selection the bad index is an error naming the cell.
    let run = fails(&["csv", f], 1);
    assert!(run.stderr.contains("cell B3"), "{}", run.stderr);
    assert_eq!(
        ok(&["jsonl", f, "--columns", "Amount,Item", "--max-rows", "2"]),
        "{\"Amount\":20,\"Item\":\"pears\"}\n{\"Amount\":12.5,\"Item\":\"tab\\there, \\\"q\\\"\"}\n"
    );
    let stats = ok(&["stats", f, "--sheet", "Data", "--columns", "Amount"]);
    let lines: Vec<&str> = stats.lines().collect();
    assert_eq!(lines.len(), 2, "{stats}");
    assert!(lines[1].starts_with("Data\tC\tAmount\t2\t0\t"), "{stats}");
    // An unknown name is a usage error naming it and the header.
    let run = fails(&["csv", f, "--columns", "Price"], 2);
    assert!(
        run.stderr.contains("\"Price\"") && run.stderr.contains("A \"Item\""),
        "{}",
        run.stderr
    );
    fails(&["csv", f, "--columns", "A,,B"], 2);
    fails(&["jsonl", f, "--no-header", "--columns", "Item"], 2);
}

#[test]
fn csv_records_are_rectangular_unless_ragged() {
    let file = temp_file("cli-rect", &sales());
    let f = path_str(&file.0);
    let picked = ["--columns", "A,C,D"];
    let csv = ok(&["csv", f, picked[0], picked[1]]);
    assert_eq!(
        csv,
        "Item,Amount,ID\npears,20,\n\"tab\there, \"\"q\"\"\",12.5,3\n,,\n\"line\nbreak\\\",,\n"
    );
    // Every record as wide as the header: the empty row 4 is `,,,`.
    let dims = book()
        .sheet(
            "S",
            format!(
                r#"<worksheet xmlns="{}"><dimension ref="A1:C3"/><sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="3"><c r="B3"><v>2</v></c></row></sheetData></worksheet>"#,
                common::MAIN_NS
            ),
        )
        .build();
    let dims = temp_file("cli-dims", &dims);
    assert_eq!(ok(&["csv", path_str(&dims.0)]), "1,,\n,,\n,2,\n");
    assert_eq!(ok(&["csv", path_str(&dims.0), "--ragged"]), "1\n\"\"\n,2\n");
}

#[test]
fn tsv_escapes_and_delimiters() {
    let file = temp_file("cli-tsv", &sales());
    let f = path_str(&file.0);
    let args = ["csv", f, "--columns", "A,C"];
    let tsv = ok(&[&args[..], &["--tsv"]].concat());
    assert_eq!(
        tsv,
        "Item\tAmount\npears\t20\ntab\\there, \"q\"\t12.5\n\t\nline\\nbreak\\\\\t\n"
    );
    let semi = ok(&[&args[..], &["--delimiter", ";"]].concat());
    assert_eq!(
        semi,
        "Item;Amount\npears;20\n\"tab\there, \"\"q\"\"\";12.5\n;\n\"line\nbreak\\\";\n"
    );
    let tab = ok(&[&args[..], &["--delimiter", "tab", "--max-rows", "2"]].concat());
    assert_eq!(
        tab,
        "Item\tAmount\npears\t20\n\"tab\there, \"\"q\"\"\"\t12.5\n"
    );
    fails(&["csv", f, "--delimiter", "\""], 2);
    fails(&["csv", f, "--delimiter", "ab"], 2);
    fails(&["csv", f, "--tsv", "--delimiter", ";"], 2);
    let run = fails(&["csv", f, "--date-format", ""], 2);
    assert!(run.stderr.contains("--date-format"), "{}", run.stderr);
}

#[test]
fn sheet_selection_forms() {
    let file = temp_file("cli-sheets", &sales());
    let f = path_str(&file.0);
    // `2` is a name here: the name wins, with a warning that says how to
    // ask for the position; --sheet-index says position.
    let named = run_cli_args(&["csv", f, "--sheet", "2"]);
    assert_eq!(named.code, Some(0), "{}", named.stderr);
    assert_eq!(named.stdout, "named two\n");
    assert_eq!(named.stderr.lines().count(), 1, "{}", named.stderr);
    assert!(
        named.stderr.contains("a name wins; --sheet-index 2 reads"),
        "{}",
        named.stderr
    );
    assert_eq!(ok(&["csv", f, "--sheet-name", "2"]), "named two\n");
    assert_eq!(ok(&["csv", f, "--sheet-index", "2"]), "other\n");
    fails(&["csv", f, "--sheet-name", "3"], 2);
    fails(&["csv", f, "--sheet-index", "3"], 2);
    fails(&["csv", f, "--sheet", "2", "--sheet-index", "1"], 2);
    let help = ok(&["csv", "--help"]);
    assert!(help.contains("a name wins"), "{help}");
    // jsonl --all: every worksheet, each object saying which.
    let all = ok(&["jsonl", f, "--all", "--no-header", "--columns", "A"]);
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), 6, "{all}");
    assert!(
        lines[5].starts_with("{\"_sheet\":\"Other\",\"A\":\"other\""),
        "{all}"
    );
    // count and cells take --sheet.
    let count = ok(&["count", f, "--sheet-index", "1"]);
    assert!(count.starts_with("2\t"), "{count}");
    assert_eq!(count.lines().count(), 2, "{count}");
    let cells = ok(&["cells", f, "--sheet", "Other"]);
    assert_eq!(
        cells,
        "{\"sheet\":\"Other\",\"ref\":\"A1\",\"t\":\"s\",\"v\":\"other\"}\n"
    );
}

#[test]
fn stats_leaves_the_header_out() {
    let file = temp_file("cli-stats", &sales());
    let f = path_str(&file.0);
    let with = ok(&["stats", f, "--sheet", "Data", "--columns", "A,C:D"]);
    // Column A: three texts below the header, named by it.
    assert!(
        with.lines().any(|l| l.starts_with("Data\tA\tItem\t0\t3\t")),
        "{with}"
    );
    let without = ok(&[
        "stats",
        f,
        "--sheet",
        "Data",
        "--no-header",
        "--columns",
        "A",
    ]);
    assert!(
        without.lines().any(|l| l.starts_with("Data\tA\t\t0\t4\t")),
        "{without}"
    );
}

#[test]
fn many_files_and_globs() {
    let dir = temp_dir("cli-many");
    for name in ["a.xlsx", "b.xlsx", "c.xlsm"] {
        let bytes = book()
            .sheet(
                "S",
                sheet_xml(&format!(r#"<row r="1">{}</row>"#, inline("A1", name))),
            )
            .build();
        std::fs::write(dir.0.join(name), bytes).unwrap();
    }
    let glob = format!("{}/*.xlsx", path_str(&dir.0));
    let a = dir.0.join("a.xlsx");
    let b = dir.0.join("b.xlsx");
    let count = ok(&["count", &glob]);
    let lines: Vec<&str> = count.lines().collect();
    assert_eq!(lines.len(), 3, "{count}");
    assert!(
        lines[0].starts_with(&format!("{}\tS\trows=1 ", path_str(&a))),
        "{count}"
    );
    assert!(
        lines[1].starts_with(&format!("{}\tS\trows=1 ", path_str(&b))),
        "{count}"
    );
    assert!(
        lines[2].starts_with("(all files)\t(total)\trows=2 "),
        "{count}"
    );
    let sheets = ok(&["sheets", path_str(&a), path_str(&b)]);
    assert!(sheets.starts_with("file\tposition\t"), "{sheets}");
    assert_eq!(sheets.lines().count(), 3);
    assert_eq!(ok(&["csv", &glob]), "a.xlsx\nb.xlsx\n");
    let stats = ok(&["stats", &glob, "--no-header"]);
    assert!(stats.starts_with("file\tsheet\t"), "{stats}");
    // csv --all: one folder per workbook, one file per sheet.
    let out = dir.0.join("out");
    let listing = ok(&["csv", &glob, "--all", "-o", path_str(&out)]);
    assert_eq!(
        std::fs::read_to_string(out.join("a/S.csv")).unwrap(),
        "a.xlsx\n"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("b/S.csv")).unwrap(),
        "b.xlsx\n"
    );
    assert_eq!(listing.lines().count(), 3, "{listing}");
    let run = fails(&["count", &format!("{}/*.xls", path_str(&dir.0))], 2);
    assert!(run.stderr.contains("no file matches"), "{}", run.stderr);
}

#[test]
fn standard_input_pipes_and_folders() {
    let bytes = sales();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
        .args(["csv", "-", "--sheet", "Other"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), "other\n");

    // A pipe given as a path: not seekable, and the message says to use `-`.
    #[cfg(unix)]
    {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sheetstream"))
            .args(["count", "/dev/stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(&bytes);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("/dev/stdin") && stderr.contains("give `-`"),
            "{stderr}"
        );
    }
    // A folder is read as its workbooks; one holding none is a usage
    // error naming it.
    let dir = temp_dir("cli-folder");
    let run = fails(&["count", path_str(&dir.0)], 2);
    assert!(
        run.stderr.contains(path_str(&dir.0)) && run.stderr.contains("holds no workbook"),
        "{}",
        run.stderr
    );
}

#[test]
fn names_from_the_file_are_escaped_on_stdout() {
    let bytes = book()
        .sheet(
            // XML forbids ESC even as a reference (the reader refuses
            // `&#27;`); a line break and a right-to-left override it allows.
            "evil&#10;line&#x202E;[2J",
            sheet_xml(&format!(r#"<row r="1">{}</row>"#, inline("A1", "x"))),
        )
        .build();
    let file = temp_file("cli-escape", &bytes);
    let f = path_str(&file.0);
    let sheets = ok(&["sheets", f]);
    assert_eq!(sheets.lines().count(), 2, "{sheets:?}");
    assert!(sheets.contains("evil\\u{a}line\\u{202e}[2J"), "{sheets:?}");
    let count = ok(&["count", f]);
    assert_eq!(count.lines().count(), 2, "{count:?}");
    assert!(!count.contains('\u{202e}'), "{count:?}");
    let run = fails(&["csv", f, "--sheet", "nope\u{1b}"], 2);
    assert!(
        !run.stderr.contains('\u{1b}') && run.stderr.contains("\\u{1b}"),
        "{}",
        run.stderr
    );
}

#[test]
fn csv_all_names_never_collide_and_files_open_one_at_a_time() {
    // Names that sanitise alike, differ only in case, and many sheets.
    let mut workbook = book()
        .sheet(
            "a/b",
            sheet_xml(&format!(r#"<row r="1">{}</row>"#, inline("A1", "1"))),
        )
        .sheet(
            "a:b",
            sheet_xml(&format!(r#"<row r="1">{}</row>"#, inline("A1", "2"))),
        )
        .sheet(
            "A?B",
            sheet_xml(&format!(r#"<row r="1">{}</row>"#, inline("A1", "3"))),
        );
    for i in 0..300 {
        workbook = workbook.sheet(
            &format!("s{i}"),
            sheet_xml(&format!(
                r#"<row r="1">{}</row>"#,
                inline("A1", &i.to_string())
            )),
        );
    }
    let file = temp_file("cli-all-names", &workbook.build());
    let dir = temp_dir("cli-all-names");
    let out = dir.0.join("out");
    // Fewer open files allowed than there are sheets.
    let script = format!(
        "ulimit -n 64 && exec '{}' csv '{}' --all -o '{}' --threads 2",
        env!("CARGO_BIN_EXE_sheetstream"),
        path_str(&file.0),
        path_str(&out)
    );
    let output = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listing = String::from_utf8(output.stdout).unwrap();
    assert_eq!(listing.lines().count(), 304, "{listing}");
    let mut contents = Vec::new();
    for line in listing.lines().skip(1) {
        let (sheet, path) = line.split_once('\t').unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        contents.push((sheet.to_owned(), text));
    }
    assert_eq!(contents[0], ("a/b".to_owned(), "1\n".to_owned()));
    assert_eq!(contents[1], ("a:b".to_owned(), "2\n".to_owned()));
    assert_eq!(contents[2], ("A?B".to_owned(), "3\n".to_owned()));
    assert_eq!(contents[303 - 1].1, "299\n");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 303);
}

/// The README's sample output is what the tool prints.
#[test]
fn the_readme_sample_is_the_output() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let command = "$ sheetstream csv examples/data/sales.xlsx\n";
    let start = readme.find(command).expect("the README shows a sample") + command.len();
    let sample = &readme[start..start + readme[start..].find("```").unwrap()];
    let sales = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/sales.xlsx");
    assert_eq!(ok(&["csv", path_str(&sales)]), sample);
}

/// A compound file holding one stream named `stream`.
fn ole2(stream: &str) -> Vec<u8> {
    common::xls::compound(&[(stream, &[0u8; 64][..])])
}

#[test]
fn encrypted_workbooks_are_told_from_legacy_xls() {
    let encrypted = temp_file("cli-encrypted", &ole2("EncryptedPackage"));
    let run = fails(&["count", path_str(&encrypted.0)], 1);
    assert!(
        run.stderr
            .contains("encrypted workbook: the compound file holds an EncryptedPackage stream"),
        "{}",
        run.stderr
    );
    // A .xls whose Workbook stream is no BIFF.
    let legacy = temp_file("cli-legacy", &ole2("Workbook"));
    let run = fails(&["count", path_str(&legacy.0)], 1);
    assert!(
        run.stderr.contains("malformed .xls workbook"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("encrypted"), "{}", run.stderr);
    // A message about a missing workbook part reads as English.
    let bytes = common::Package::new()
        .with("[Content_Types].xml", common::content_types())
        .with("xl/styles.xml", "<styleSheet/>")
        .build();
    let empty = temp_file("cli-no-workbook", &bytes);
    let run = fails(&["count", path_str(&empty.0)], 1);
    assert!(
        run.stderr.contains("missing the workbook part"),
        "{}",
        run.stderr
    );
}
