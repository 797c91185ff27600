//! The command-line tool as a new user meets it (issue 23's CLI points),
//! through the binary: one vocabulary of options across commands, failed
//! writes that leave nothing behind, messages bounded without cutting their
//! advice, `stats` dates as `csv` writes them, `csv --file-column`.

use crate::common;

use std::path::Path;

use common::{
    CliRun, MAIN_NS, XML_DECL, book, run_cli_args, sheet_xml, styles_xml, temp_dir, temp_file,
};

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
