//! The command-line tool as a new user meets it (issue 23's CLI points),
//! through the binary: one vocabulary of options across commands, failed
//! writes that leave nothing behind, messages bounded without cutting their
//! advice, `stats` dates as `csv` writes them, `csv --file-column`.

use crate::common;

use std::path::Path;

use common::{CliRun, book, run_cli_args, sheet_xml, styles_xml, temp_dir, temp_file};

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

/// Runs `args`; it must succeed without a word on stderr.
fn ok(args: &[&str]) -> String {
    let run = run_cli_args(args);
    assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
    assert!(run.stderr.is_empty(), "{args:?}: {}", run.stderr);
    run.stdout
}

/// Runs `args`; it must fail with `code` and a one-line message.
fn fails(args: &[&str], code: i32) -> CliRun {
    let run = run_cli_args(args);
    assert_eq!(run.code, Some(code), "{args:?}: {run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
    run
}

/// A date (numFmtId 14), a time of day (21, `h:mm:ss`) and a duration
/// (46, `[h]:mm:ss`) under a header row.
fn dates_book() -> Vec<u8> {
    let rows = r#"<row r="1"><c r="A1" t="inlineStr"><is><t>day</t></is></c><c r="B1" t="inlineStr"><is><t>time</t></is></c><c r="C1" t="inlineStr"><is><t>took</t></is></c></row><row r="2"><c r="A2" s="1"><v>43831</v></c><c r="B2" s="2"><v>0.0048611111111111112</v></c><c r="C2" s="3"><v>1.5</v></c></row>"#;
    book()
        .styles(styles_xml(&[], &[0, 14, 21, 46]))
        .sheet("S", sheet_xml(rows))
        .build()
}

#[test]
fn stats_writes_dates_times_and_durations_as_csv_does() {
    let file = temp_file("vocab-dates", &dates_book());
    let csv = ok(&["csv", path_str(&file.0)]);
    assert_eq!(csv, "day,time,took\n2020-01-01,00:07:00,36:00:00\n");
    let stats = ok(&["stats", path_str(&file.0)]);
    let lines: Vec<Vec<&str>> = stats
        .lines()
        .map(|line| line.split('\t').collect())
        .collect();
    let at = |name: &str| lines[0].iter().position(|h| *h == name).unwrap();
    let (first, last) = (at("first date"), at("last date"));
    let got: Vec<(&str, &str)> = lines[1..].iter().map(|l| (l[first], l[last])).collect();
    assert_eq!(
        got,
        [
            ("2020-01-01", "2020-01-01"),
            ("00:07:00", "00:07:00"),
            ("36:00:00", "36:00:00")
        ],
        "{stats}"
    );
}

/// A one-sheet workbook: a header row of `names`, then one row of numbers.
fn table_book(sheet: &str, names: &[&str]) -> Vec<u8> {
    let letters = |at: usize| char::from(b'A' + at as u8).to_string();
    let header: String = names
        .iter()
        .enumerate()
        .map(|(at, name)| {
            format!(
                r#"<c r="{}1" t="inlineStr"><is><t>{name}</t></is></c>"#,
                letters(at)
            )
        })
        .collect();
    let values: String = (0..names.len())
        .map(|at| format!(r#"<c r="{}2"><v>{at}</v></c>"#, letters(at)))
        .collect();
    book()
        .sheet(
            sheet,
            sheet_xml(&format!(
                r#"<row r="1">{header}</row><row r="2">{values}</row>"#
            )),
        )
        .build()
}

/// Files whose columns differ, with long names everywhere the message
/// quotes the files: the pieces are cut, the advice is whole and names the
/// flag.
#[test]
fn the_union_hint_is_whole_and_names_the_flag() {
    let dir = temp_dir("vocab-union");
    let deep = dir.0.join("a-folder-with-a-rather-long-name".repeat(4));
    std::fs::create_dir_all(&deep).unwrap();
    let long = "a column name that goes on and on".repeat(3);
    let first = deep.join("first.xlsx");
    let second = deep.join("second.xlsx");
    std::fs::write(&first, table_book("Sheet", &["id", &long, "amount"])).unwrap();
    let sheet = "a sheet name much longer than anyone would like".repeat(2);
    std::fs::write(&second, table_book(&sheet, &["id", "total", &long])).unwrap();
    let out = dir.0.join("out.parquet");
    for command in [vec!["parquet", "-o", path_str(&out)], vec!["arrow"]] {
        let mut args = command.clone();
        args.extend([path_str(&first), path_str(&second)]);
        let run = fails(&args, 1);
        assert!(
            run.stderr
                .contains("; read with --union-by-name to match them by name"),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("union_by_name"), "{}", run.stderr);
        assert!(!run.stderr.contains("bytes in all"), "{}", run.stderr);
        assert!(run.stderr.contains("second.xlsx"), "{}", run.stderr);
        assert!(
            run.stderr.len() < 600,
            "{} bytes: {}",
            run.stderr.len(),
            run.stderr
        );
        // With the flag, the files read.
        args.push("--union-by-name");
        if command[0] == "parquet" {
            ok(&args);
            assert!(out.exists());
        }
    }
}
