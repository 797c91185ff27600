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

/// The commands `sheetstream --help` lists, with clap's own `help`.
fn listed_commands() -> Vec<String> {
    let help = ok(&["--help"]);
    let mut lines = help.lines().skip_while(|line| *line != "Commands:").skip(1);
    let mut names = Vec::new();
    for line in lines.by_ref() {
        if line.trim().is_empty() {
            break;
        }
        // A command's line starts with two spaces; a wrapped line with more.
        if let Some(name) = line
            .strip_prefix("  ")
            .filter(|rest| !rest.starts_with(' '))
        {
            names.push(name.split_whitespace().next().unwrap().to_owned());
        }
    }
    names
}

/// Every command the tool has is in the top-level help, and every command
/// there runs.
#[test]
fn the_top_level_help_lists_every_command() {
    let listed = listed_commands();
    assert_eq!(
        listed,
        [
            "sheets", "tables", "csv", "jsonl", "stats", "count", "parquet", "arrow", "schema",
            "cells", "help"
        ]
    );
    for command in &listed {
        ok(&["help", command]);
    }
    // And nothing runs that the help does not list.
    assert_eq!(run_cli_args(&["nonesuch"]).code, Some(2));
}

/// The help of one option of one command: from the option's name to the
/// next option, whitespace collapsed (clap lays the help out by the width
/// of the command's longest option).
fn option_help(command: &str, flag: &str) -> Option<String> {
    let help = ok(&[command, "--help"]);
    let lines: Vec<&str> = help.lines().collect();
    // An option's line: `  -t, --threads` or `      --n-rows`; its help's
    // own lines are indented further.
    let is_option = |line: &str| {
        line.trim_start().starts_with('-') && line.len() - line.trim_start().len() <= 6
    };
    let start = lines
        .iter()
        .position(|line| is_option(line) && line.split([',', ' ']).any(|word| word == flag))?;
    let mut text = lines[start].to_owned();
    for line in &lines[start + 1..] {
        if is_option(line) || !line.starts_with(' ') {
            break;
        }
        text.push(' ');
        text.push_str(line);
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(text.split_once(flag).unwrap().1.trim().to_owned())
}

/// The row options are the same options, with the same help, on every
/// command that reads rows; the sheet options on every command that takes
/// `--sheet`.
#[test]
fn one_vocabulary_across_commands() {
    let readers = ["csv", "jsonl", "stats", "parquet", "arrow", "schema"];
    for flag in ["--skip-rows", "--header-row", "--no-header", "--n-rows"] {
        let helps: Vec<Option<String>> = readers.iter().map(|c| option_help(c, flag)).collect();
        assert!(helps[0].is_some(), "csv has no {flag}");
        for (command, help) in readers.iter().zip(&helps) {
            assert_eq!(help, &helps[0], "{command} {flag}");
        }
    }
    assert!(
        option_help("csv", "--n-rows")
            .unwrap()
            .contains("[alias: --max-rows]")
    );
    // The table and range options, on every typed command.
    let typed = ["parquet", "arrow", "schema"];
    for flag in ["--range", "--table", "--include-totals-row"] {
        let helps: Vec<Option<String>> = typed.iter().map(|c| option_help(c, flag)).collect();
        assert!(helps[0].is_some(), "parquet has no {flag}");
        for (command, help) in typed.iter().zip(&helps) {
            assert_eq!(help, &helps[0], "{command} {flag}");
        }
    }
    for command in [
        "csv", "jsonl", "stats", "count", "cells", "parquet", "arrow", "schema",
    ] {
        for flag in ["--sheet", "--sheet-name", "--sheet-index"] {
            assert!(
                option_help(command, flag).is_some(),
                "{command} has no {flag}"
            );
        }
    }
}

/// A title above the header row, an empty row between the two, then
/// five data rows (one empty row among them).
fn titled_book() -> Vec<u8> {
    let text =
        |at: &str, text: &str| format!(r#"<c r="{at}" t="inlineStr"><is><t>{text}</t></is></c>"#);
    let mut rows = format!(
        r#"<row r="2">{}</row><row r="4">{}{}</row>"#,
        text("A2", "Sales, 2024"),
        text("A4", "item"),
        text("B4", "amount")
    );
    for (index, (item, amount)) in [
        (5, ("apples", 1)),
        (6, ("pears", 2)),
        (8, ("plums", 3)),
        (9, ("figs", 4)),
        (10, ("kiwis", 5)),
    ] {
        rows.push_str(&format!(
            r#"<row r="{index}">{}<c r="B{index}"><v>{amount}</v></c></row>"#,
            text(&format!("A{index}"), item)
        ));
    }
    book().sheet("S", sheet_xml(&rows)).build()
}

/// Every command finds the same header row by default and with each
/// option, and counts `--n-rows` (or `--max-rows`) in data rows after it.
#[test]
fn the_row_options_mean_the_same_everywhere() {
    let file = temp_file("vocab-rows", &titled_book());
    let f = path_str(&file.0);
    // The default header row: the first with a value (the title, row 2).
    let schema = ok(&["schema", f]);
    assert_eq!(schema, "sheet S\n  Sales, 2024\tUtf8\n  column_2\tUtf8\n");
    let jsonl = ok(&["jsonl", f, "--n-rows", "1"]);
    assert_eq!(jsonl, "{\"Sales, 2024\":\"item\",\"B\":\"amount\"}\n");
    // The header row given: row 4, for every command.
    let header = ["--header-row", "4"];
    let schema = ok(&[&["schema", f][..], &header].concat());
    assert_eq!(schema, "sheet S\n  item\tUtf8\n  amount\tInt64\n");
    for limit in ["--n-rows", "--max-rows"] {
        let jsonl = ok(&[&["jsonl", f, limit, "3"][..], &header].concat());
        assert_eq!(
            jsonl,
            "{\"item\":\"apples\",\"amount\":1}\n{\"item\":\"pears\",\"amount\":2}\n{\"item\":\"plums\",\"amount\":3}\n"
        );
        // The csv's header and three data rows (the empty row 7 an empty record).
        let csv = ok(&[&["csv", f, limit, "3"][..], &header].concat());
        assert_eq!(csv, "item,amount\napples,1\npears,2\n,\nplums,3\n");
        let csv = ok(&[&["csv", f, limit, "3", "--columns", "amount"][..], &header].concat());
        assert_eq!(csv, "amount\n1\n2\n\"\"\n3\n");
        let stats = ok(&[&["stats", f, limit, "3"][..], &header].concat());
        let amount = stats
            .lines()
            .find(|line| line.starts_with("S\tB\t"))
            .unwrap();
        assert!(amount.starts_with("S\tB\tamount\t3\t0\t"), "{stats}");
        let dir = temp_dir("vocab-rows-parquet");
        let out = dir.0.join("s.parquet");
        ok(&[
            &["parquet", f, "-o", path_str(&out), limit, "3"][..],
            &header,
        ]
        .concat());
        assert!(out.exists());
    }
    // Skipped rows: the header is looked for after them (row 4 again).
    let jsonl = ok(&["jsonl", f, "--skip-rows", "3", "--n-rows", "1"]);
    assert_eq!(jsonl, "{\"item\":\"apples\",\"amount\":1}\n");
    let schema = ok(&["schema", f, "--skip-rows", "3"]);
    assert_eq!(schema, "sheet S\n  item\tUtf8\n  amount\tInt64\n");
    let csv = ok(&["csv", f, "--skip-rows", "3", "--n-rows", "1"]);
    assert_eq!(csv, "item,amount\napples,1\n");
    // No header: every row after the skipped ones is data.
    let jsonl = ok(&[
        "jsonl",
        f,
        "--skip-rows",
        "4",
        "--no-header",
        "--n-rows",
        "1",
    ]);
    assert_eq!(jsonl, "{\"A\":\"apples\",\"B\":1}\n");
    let csv = ok(&["csv", f, "--skip-rows", "4", "--no-header", "--n-rows", "2"]);
    assert_eq!(csv, "apples,1\npears,2\n");
    let schema = ok(&["schema", f, "--skip-rows", "4", "--no-header"]);
    assert_eq!(schema, "sheet S\n  column_1\tUtf8\n  column_2\tInt64\n");
    // Without options csv keeps the rows aligned with Excel's.
    let csv = ok(&["csv", f]);
    assert!(
        csv.starts_with("\"\"\n\"Sales, 2024\"\n,\nitem,amount\n"),
        "{csv}"
    );
}

/// `schema` refuses what would change nothing in a schema, saying why.
#[test]
fn schema_refuses_options_that_change_nothing_there() {
    let file = temp_file("vocab-schema", &titled_book());
    let f = path_str(&file.0);
    for (option, why) in [
        (&["--batch-size", "10"][..], "sizes the record batches"),
        (&["--strict"], "after the sample"),
        (&["--on-mismatch", "null"], "after the sample"),
        (&["--on-error-value", "strict"], "error cells"),
        (&["--union-by-name"], "not their union"),
    ] {
        let run = fails(&[&["schema", f][..], option].concat(), 2);
        assert!(
            run.stderr
                .contains(&format!("{} changes nothing in `schema`", option[0]))
                && run.stderr.contains(why),
            "{}",
            run.stderr
        );
    }
    // What does change a schema, and the options every command takes, are taken.
    ok(&[
        "schema",
        f,
        "--sample-rows",
        "all",
        "--header-row",
        "4",
        "--null-value",
        "x",
        "-q",
        "-t",
        "1",
    ]);
}

/// `--sheet-name` and `--sheet-index` say which sheet outright, in the
/// typed commands as in the others.
#[test]
fn typed_commands_take_sheet_name_and_sheet_index() {
    let table = |value: &str| {
        sheet_xml(&format!(
            r#"<row r="1"><c r="A1" t="inlineStr"><is><t>{value}</t></is></c></row>"#
        ))
    };
    let bytes = book()
        .sheet("1", table("one"))
        .sheet("Data", table("data"))
        .build();
    let file = temp_file("vocab-sheets", &bytes);
    let f = path_str(&file.0);
    let first = |out: String| out.lines().nth(1).unwrap().trim().to_owned();
    assert_eq!(first(ok(&["schema", f, "--sheet-name", "1"])), "one\tNull");
    // `1` names the first sheet and is the position of the second: the
    // name wins, with a warning.
    let ambiguous = run_cli_args(&["schema", f, "--sheet", "1"]);
    assert_eq!(first(ambiguous.stdout.clone()), "one\tNull");
    assert!(
        ambiguous.stderr.contains("a name wins"),
        "{}",
        ambiguous.stderr
    );
    assert_eq!(first(ok(&["schema", f, "--sheet-index", "0"])), "one\tNull");
    assert_eq!(
        first(ok(&["schema", f, "--sheet-name", "Data"])),
        "data\tNull"
    );
    let run = fails(&["schema", f, "--sheet-name", "0"], 2);
    assert!(run.stderr.contains("no sheet named `0`"), "{}", run.stderr);
    // Position 1 is `Data`, whatever the sheet at position 0 is named:
    // a position is never taken for a name, on every path.
    assert_eq!(
        first(ok(&["schema", f, "--sheet-index", "1"])),
        "data\tNull"
    );
    let out = temp_dir("vocab-sheet-index");
    let parquet = out.0.join("data.parquet");
    let run = run_cli_args(&["parquet", f, "--sheet-index", "1", "-o", path_str(&parquet)]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let file = std::fs::File::open(&parquet).unwrap();
    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    // The sheet `Data`: its one row is the header.
    assert_eq!(reader.schema().field(0).name(), "data");
    fails(&["schema", f, "--sheet-index", "5"], 2);
    // clap's usage errors.
    for args in [
        &["schema", f, "--sheet", "Data", "--sheet-name", "Data"][..],
        &["schema", f, "--all", "--sheet-index", "0"],
    ] {
        assert_eq!(run_cli_args(args).code, Some(2), "{args:?}");
    }
    assert_eq!(ok(&["csv", f, "--sheet-index", "1"]), "data\n");
}

/// 20,000 rows of two numbers, then a row whose XML is broken: the damage
/// is found after the writer has flushed much of the output.
fn damaged_midway_sheet() -> String {
    let mut rows = String::new();
    for index in 1..=20_000 {
        rows.push_str(&format!(
            r#"<row r="{index}"><c r="A{index}"><v>{index}</v></c><c r="B{index}"><v>0.5</v></c></row>"#
        ));
    }
    rows.push_str(r#"<row r="20001"><c r="A20001"><v>1</v></c></rowx>"#);
    sheet_xml(&rows)
}

/// The names in a folder, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A write cut short by a sheet damaged midway leaves no file behind,
/// neither under the output's name nor a temporary one.
#[test]
fn a_failed_write_leaves_nothing_behind() {
    let bytes = book().sheet("Broken", damaged_midway_sheet()).build();
    let file = temp_file("vocab-broken", &bytes);
    let f = path_str(&file.0);
    let dir = temp_dir("vocab-broken-out");
    for (command, name) in [
        ("csv", "out.csv"),
        ("jsonl", "out.jsonl"),
        ("parquet", "out.parquet"),
    ] {
        let out = dir.0.join(name);
        for threads in ["1", "2"] {
            let run = fails(&[command, f, "-o", path_str(&out), "-t", threads], 1);
            assert!(run.stderr.contains("Broken"), "{}", run.stderr);
            assert_eq!(
                listing(&dir.0),
                Vec::<String>::new(),
                "{command} -t {threads}"
            );
        }
    }
    // A good workbook after a good one is written whole; a damaged one
    // after a good one leaves nothing either (one output of both).
    let good = temp_file("vocab-good", &titled_book());
    let out = dir.0.join("both.csv");
    fails(&["csv", path_str(&good.0), f, "-o", path_str(&out)], 1);
    assert_eq!(listing(&dir.0), Vec::<String>::new());
    ok(&[
        "csv",
        path_str(&good.0),
        path_str(&good.0),
        "-o",
        path_str(&out),
    ]);
    assert_eq!(listing(&dir.0), ["both.csv"]);
}

/// `csv --all`: a sheet that fails leaves no file of the command (the
/// good sheets' files are not named either: all or none, whatever the
/// thread timing) and no listing; the folder it made is gone too.
#[test]
fn csv_all_leaves_nothing_when_a_sheet_fails() {
    let small = sheet_xml(
        r#"<row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2"><v>2</v></c></row>"#,
    );
    let bytes = book()
        .sheet("Good", small.clone())
        .sheet("Broken", damaged_midway_sheet())
        .sheet("Also good", small)
        .build();
    let file = temp_file("vocab-all-broken", &bytes);
    for threads in ["1", "2", "3"] {
        let dir = temp_dir("vocab-all-broken-out");
        let out = dir.0.join("sheets");
        let run = fails(
            &[
                "csv",
                "--all",
                path_str(&file.0),
                "-o",
                path_str(&out),
                "-t",
                threads,
            ],
            1,
        );
        assert!(run.stderr.contains("Broken"), "{}", run.stderr);
        assert_eq!(
            run.stdout, "",
            "-t {threads}: a listing of files not written"
        );
        assert!(!out.exists(), "-t {threads}: {:?}", listing(&dir.0));
        assert!(listing(&dir.0).is_empty(), "-t {threads}");
    }
}

/// `csv --file-column` as `parquet --file-column`: a first column naming
/// each row's file, one header row for all the files.
#[test]
fn csv_of_several_workbooks_takes_a_file_column() {
    let dir = temp_dir("vocab-file-column");
    let (a, b, other) = (
        dir.0.join("a.xlsx"),
        dir.0.join("b.xlsx"),
        dir.0.join("c.xlsx"),
    );
    std::fs::write(&a, titled_book()).unwrap();
    std::fs::write(&b, titled_book()).unwrap();
    std::fs::write(&other, table_book("S", &["id", "total"])).unwrap();
    let (a, b, other) = (path_str(&a), path_str(&b), path_str(&other));
    let args = [
        "--header-row",
        "4",
        "--n-rows",
        "2",
        "--file-column",
        "file",
    ];
    let csv = ok(&[&["csv", a, b][..], &args].concat());
    assert_eq!(
        csv,
        format!("file,item,amount\n{a},apples,1\n{a},pears,2\n{b},apples,1\n{b},pears,2\n")
    );
    // The same column in parquet.
    let out = dir.0.join("both.parquet");
    ok(&[&["parquet", a, b, "-o", path_str(&out)][..], &args].concat());
    let schema = ok(&[&["schema", a][..], &args].concat());
    assert!(
        schema.starts_with("sheet S\n  file\tUtf8\n  item\t"),
        "{schema}"
    );
    // Files whose header rows differ cannot share one: refused, no file.
    let out = dir.0.join("mixed.csv");
    let run = fails(
        &[
            "csv",
            a,
            other,
            "--file-column",
            "file",
            "--header-row",
            "4",
            "-o",
            path_str(&out),
        ],
        2,
    );
    assert!(
        run.stderr.contains("c.xlsx: the header row differs"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
    // Without a header row, every record names its file.
    let csv = ok(&[
        "csv",
        a,
        "--skip-rows",
        "4",
        "--no-header",
        "--n-rows",
        "1",
        "--file-column",
        "file",
    ]);
    assert_eq!(csv, format!("{a},apples,1\n"));
}

/// An `.xlsb` workbook (its workbook part `xl/workbook.bin`, binary
/// records) is named as such, not as malformed XML, by every command.
#[test]
fn a_binary_workbook_is_read_and_its_damage_named() {
    let stream = b"\x83\x01\x00\x80\x01\x00\x99\x01\x04\x00\x00\x00\x00";
    // With its closing BrtEndBook, which the part must end with.
    let whole = [&stream[..], b"\x84\x01\x00"].concat();
    let package = |workbook: &[u8]| {
        common::Package::new()
            .with("[Content_Types].xml", common::content_types())
            .with("_rels/.rels", common::package_rels("xl/workbook.bin"))
            .with("xl/workbook.bin", workbook)
            .build()
    };
    // An .xlsb without sheets (whatever the file's name) opens as one.
    let file = temp_file("vocab-xlsb", &package(&whole));
    let f = path_str(&file.0);
    assert_eq!(
        ok(&["sheets", f]),
        "position\tname\tstate\tkind\tdimension\n"
    );
    // Its workbook part cut inside a record: a malformed record, named
    // with its part, by every command.
    let file = temp_file("vocab-xlsb-cut", &package(&stream[..stream.len() - 2]));
    let f = path_str(&file.0);
    for command in ["sheets", "csv", "count", "schema", "arrow"] {
        let run = fails(&[command, f], 1);
        assert!(
            run.stderr.contains("malformed record") && run.stderr.contains("xl/workbook.bin"),
            "{command}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("malformed XML"), "{}", run.stderr);
    }
}
