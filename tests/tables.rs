//! Excel tables (ListObjects) and ranges: the listing read from the table
//! parts alone, a table read by name into typed batches (its columns named
//! by its definition, its totals row left out unless asked for), a range
//! read as a pushdown (the read stops after its last row and never
//! resolves a cell outside its columns), and their errors. Workbooks are
//! written by rust_xlsxwriter or by hand; corpus files with tables are
//! listed and read when `../shared` is there.
#![cfg(feature = "arrow")]

use crate::common;

use std::sync::Arc;

use common::{MAIN_NS, REL_NS, XML_DECL, book, rels_xml, sheet_xml};
use rust_xlsxwriter::{Table as WriterTable, TableColumn, TableFunction, Workbook as Writer};
use sheetstream::arrow::arrow_array::{Array, Float64Array, Int64Array, RecordBatch, StringArray};
use sheetstream::arrow::{ArrowOptions, Header, SheetChoice};
use sheetstream::{ColumnSpec, ErrorKind, SheetRange, Workbook};

/// `Report`: a title in A1, table `Sales` at B4:D8 (totals row 8) beside
/// table `Costs` at H4:I6, a note in C12 below `Sales` (text in its
/// numeric column) and text in E5 between them; `Other`: table `Ids`
/// without a header row at A1:B3.
fn report() -> Vec<u8> {
    let mut writer = Writer::new();
    let sheet = writer.add_worksheet().set_name("Report").unwrap();
    sheet.write_string(0, 0, "Quarterly report").unwrap();
    let sales = [("North", 10, 1.5), ("South", 20, 2.5), ("East", 30, 3.25)];
    for (at, (region, units, price)) in sales.iter().enumerate() {
        let row = 4 + at as u32;
        sheet.write_string(row, 1, *region).unwrap();
        sheet.write_number(row, 2, f64::from(*units)).unwrap();
        sheet.write_number(row, 3, *price).unwrap();
    }
    let columns = [
        TableColumn::new()
            .set_header("Region")
            .set_total_label("Total"),
        TableColumn::new()
            .set_header("Units")
            .set_total_function(TableFunction::Sum),
        TableColumn::new().set_header("Price"),
    ];
    let table = WriterTable::new()
        .set_name("Sales")
        .set_columns(&columns)
        .set_total_row(true);
    sheet.add_table(3, 1, 7, 3, &table).unwrap();
    sheet.write_string(4, 4, "outside").unwrap();
    sheet.write_string(11, 2, "a note below the table").unwrap();
    for (at, (item, cost)) in [("Rent", 100), ("Power", 40)].iter().enumerate() {
        sheet.write_string(4 + at as u32, 7, *item).unwrap();
        sheet
            .write_number(4 + at as u32, 8, f64::from(*cost))
            .unwrap();
    }
    let columns = [
        TableColumn::new().set_header("Item"),
        TableColumn::new().set_header("Cost"),
    ];
    let costs = WriterTable::new().set_name("Costs").set_columns(&columns);
    sheet.add_table(3, 7, 5, 8, &costs).unwrap();
    let other = writer.add_worksheet().set_name("Other").unwrap();
    for row in 0..3u32 {
        other.write_number(row, 0, f64::from(row + 1)).unwrap();
        other.write_string(row, 1, format!("id-{row}")).unwrap();
    }
    let ids = WriterTable::new().set_name("Ids").set_header_row(false);
    other.add_table(0, 0, 2, 1, &ids).unwrap();
    writer.save_to_buffer().unwrap()
}

fn concat(batches: &[RecordBatch]) -> RecordBatch {
    let schema = batches[0].schema();
    sheetstream::arrow::arrow_array::RecordBatch::try_new(
        schema.clone(),
        (0..schema.fields().len())
            .map(|at| {
                let arrays: Vec<&dyn Array> =
                    batches.iter().map(|b| b.column(at).as_ref()).collect();
                arrow_select_concat(&arrays)
            })
            .collect(),
    )
    .unwrap()
}

/// The tests read small tables: one batch each.
fn arrow_select_concat(arrays: &[&dyn Array]) -> Arc<dyn Array> {
    assert_eq!(arrays.len(), 1, "one batch");
    sheetstream::arrow::arrow_array::make_array(arrays[0].to_data())
}

fn names(batch: &RecordBatch) -> Vec<String> {
    batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect()
}

fn texts(batch: &RecordBatch, name: &str) -> Vec<Option<String>> {
    let column = batch.column_by_name(name).unwrap();
    let column = column
        .as_any()
        .downcast_ref::<StringArray>()
        .expect("a Utf8 column");
    column.iter().map(|v| v.map(str::to_owned)).collect()
}

fn ints(batch: &RecordBatch, name: &str) -> Vec<Option<i64>> {
    let column = batch.column_by_name(name).unwrap();
    let column = column
        .as_any()
        .downcast_ref::<Int64Array>()
        .expect("an Int64 column");
    column.iter().collect()
}

fn floats(batch: &RecordBatch, name: &str) -> Vec<Option<f64>> {
    let column = batch.column_by_name(name).unwrap();
    let column = column
        .as_any()
        .downcast_ref::<Float64Array>()
        .expect("a Float64 column");
    column.iter().collect()
}

fn read_table(
    bytes: Vec<u8>,
    options: &ArrowOptions,
    name: &str,
) -> sheetstream::Result<RecordBatch> {
    let mut workbook = Workbook::from_bytes(bytes)?;
    let batches = options.read_table(&mut workbook, name)?.collect_batches()?;
    Ok(concat(&batches))
}

fn read_range(bytes: Vec<u8>, range: &str, sheet: &str) -> sheetstream::Result<RecordBatch> {
    let mut workbook = Workbook::from_bytes(bytes)?;
    let options = ArrowOptions::new().range(Some(range.parse()?));
    let (_, batches) = options.read_sheet_table(&mut workbook, sheet)?;
    Ok(concat(&batches))
}

#[test]
fn lists_every_table_with_its_sheet_range_and_columns() {
    let mut workbook = Workbook::from_bytes(report()).unwrap();
    let tables = workbook.tables().unwrap();
    let summary: Vec<_> = tables
        .iter()
        .map(|t| {
            (
                t.name.as_str(),
                t.sheet,
                t.sheet_name.as_str(),
                t.range.to_string(),
                t.header_row_count,
                t.totals_row_count,
                t.columns.clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "Sales",
                0,
                "Report",
                "B4:D8".to_owned(),
                1,
                1,
                vec!["Region".to_owned(), "Units".into(), "Price".into()]
            ),
            (
                "Costs",
                0,
                "Report",
                "H4:I6".to_owned(),
                1,
                0,
                vec!["Item".to_owned(), "Cost".into()]
            ),
            (
                "Ids",
                1,
                "Other",
                "A1:B3".to_owned(),
                0,
                0,
                vec!["Column1".to_owned(), "Column2".into()]
            ),
        ]
    );
    assert_eq!(tables[0].display_name, "Sales");
    assert_eq!(tables[0].data_range(false).unwrap().to_string(), "B5:D7");
    assert_eq!(tables[0].data_range(true).unwrap().to_string(), "B5:D8");
    assert_eq!(workbook.table("sALES").unwrap().range.to_string(), "B4:D8");
}

#[test]
fn a_table_reads_by_name_without_its_totals_row_or_anything_around_it() {
    let batch = read_table(report(), &ArrowOptions::new(), "Sales").unwrap();
    assert_eq!(names(&batch), ["Region", "Units", "Price"]);
    assert_eq!(
        texts(&batch, "Region"),
        [
            Some("North".into()),
            Some("South".into()),
            Some("East".into())
        ]
    );
    // The note below the table (text in C12) is not read: Units stays Int64.
    assert_eq!(ints(&batch, "Units"), [Some(10), Some(20), Some(30)]);
    assert_eq!(floats(&batch, "Price"), [Some(1.5), Some(2.5), Some(3.25)]);

    let totals = ArrowOptions::new().include_totals_row(true);
    let batch = read_table(report(), &totals, "sales").unwrap();
    assert_eq!(batch.num_rows(), 4);
    assert_eq!(texts(&batch, "Region")[3].as_deref(), Some("Total"));

    let batch = read_table(report(), &ArrowOptions::new(), "Costs").unwrap();
    assert_eq!(names(&batch), ["Item", "Cost"]);
    assert_eq!(
        texts(&batch, "Item"),
        [Some("Rent".into()), Some("Power".into())]
    );
    assert_eq!(ints(&batch, "Cost"), [Some(100), Some(40)]);

    // No header row: the definition's names, every row data.
    let batch = read_table(report(), &ArrowOptions::new(), "Ids").unwrap();
    assert_eq!(names(&batch), ["Column1", "Column2"]);
    assert_eq!(ints(&batch, "Column1"), [Some(1), Some(2), Some(3)]);
    assert_eq!(texts(&batch, "Column2")[2].as_deref(), Some("id-2"));

    // A column selection by the table's names.
    let chosen = ArrowOptions::new().columns(ColumnSpec::parse("Price,Region").unwrap());
    let batch = read_table(report(), &chosen, "Sales").unwrap();
    assert_eq!(names(&batch), ["Price", "Region"]);
    let outside = ArrowOptions::new().columns(ColumnSpec::parse("E").unwrap());
    let err = read_table(report(), &outside, "Sales").unwrap_err();
    assert!(
        err.to_string()
            .contains("column E is outside the table read (columns B to D)"),
        "{err}"
    );
}

#[test]
fn a_table_on_the_many_sheet_reader_and_the_owned_reader() {
    let workbook = Arc::new(Workbook::from_bytes(report()).unwrap());
    let options = ArrowOptions::new().table(Some("Costs"));
    let reader = options
        .read_workbooks(
            vec![("a.xlsx".into(), Arc::clone(&workbook))],
            SheetChoice::First,
        )
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    let batch = concat(&batches);
    assert_eq!(names(&batch), ["Item", "Cost"]);
    assert_eq!(ints(&batch, "Cost"), [Some(100), Some(40)]);
    let mut owned = options
        .sheet_reader(Arc::clone(&workbook), "Report")
        .unwrap();
    let batch = owned.next_batch().unwrap().unwrap();
    assert_eq!(
        texts(&batch, "Item"),
        [Some("Rent".into()), Some("Power".into())]
    );
    // The table's sheet must be the one read.
    let err = options.sheet_reader(workbook, "Other").unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TableNotFound(_)), "{err}");
    assert!(
        err.to_string().contains("the table is on sheet 'Report'"),
        "{err}"
    );
}

#[test]
fn an_unknown_table_lists_the_tables_there_are() {
    let err = read_table(report(), &ArrowOptions::new(), "Salez").unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TableNotFound(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "no table named 'Salez' (the workbook's tables: Sales, Costs, Ids)"
    );
    let plain = book()
        .sheet("S", sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c></row>"#))
        .build();
    let err = read_table(plain, &ArrowOptions::new(), "T").unwrap_err();
    assert!(
        err.to_string().contains("the workbook has no tables"),
        "{err}"
    );
}

#[test]
fn a_range_reads_its_rectangle_with_its_first_row_as_header() {
    let batch = read_range(report(), "B4:D7", "Report").unwrap();
    assert_eq!(names(&batch), ["Region", "Units", "Price"]);
    assert_eq!(ints(&batch, "Units"), [Some(10), Some(20), Some(30)]);
    // The sheet in the range supplies nothing here but must agree.
    let batch = read_range(report(), "'Report'!H4:I", "Report").unwrap();
    assert_eq!(names(&batch), ["Item", "Cost"]);
    assert_eq!(ints(&batch, "Cost"), [Some(100), Some(40)]);
    let err = read_range(report(), "Other!B4:D7", "Report").unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::SheetNotFound(_)), "{err}");
    // Open-ended: from H4 right and down.
    let batch = read_range(report(), "H4:", "Report").unwrap();
    assert_eq!(names(&batch), ["Item", "Cost"]);
    // Whole columns: the header is the range's first row (row 1, the
    // title's row, empty in B:C), unless the header options say another.
    let mut workbook = Workbook::from_bytes(report()).unwrap();
    let options = ArrowOptions::new()
        .range(Some("B:C".parse().unwrap()))
        .header(Header::Row(3));
    let (schema, batches) = options.read_sheet_table(&mut workbook, "Report").unwrap();
    let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["Region", "Units"]);
    // Units holds the totals row's 0 and the note: text.
    let batch = concat(&batches);
    assert_eq!(
        texts(&batch, "Units").last().unwrap().as_deref(),
        Some("a note below the table")
    );
}

/// A sheet whose row 50 and column E hold damage (a number cell that is
/// no number): any read that reaches them fails.
fn damaged_around() -> Vec<u8> {
    let mut rows = String::new();
    rows.push_str(r#"<row r="2"><c r="B2" t="inlineStr"><is><t>a</t></is></c><c r="C2" t="inlineStr"><is><t>b</t></is></c><c r="E2"><v>not a number</v></c></row>"#);
    for r in 3..=5 {
        rows.push_str(&format!(r#"<row r="{r}"><c r="B{r}"><v>{r}</v></c><c r="C{r}"><v>{}</v></c><c r="E{r}"><v>bad</v></c></row>"#, r * 10));
    }
    rows.push_str(r#"<row r="50"><c r="B50"><v>oops</v></c></row>"#);
    let table = format!(
        r#"{XML_DECL}<table xmlns="{MAIN_NS}" id="1" name="T" displayName="T" ref="B2:C5"><autoFilter ref="B2:C5"/><tableColumns count="2"><tableColumn id="1" name="a"/><tableColumn id="2" name="b_x000a_c"/></tableColumns></table>"#
    );
    let sheet = format!(
        r#"{XML_DECL}<worksheet xmlns="{MAIN_NS}" xmlns:r="{REL_NS}"><sheetData>{rows}</sheetData><tableParts count="1"><tablePart r:id="rId1"/></tableParts></worksheet>"#
    );
    book()
        .sheet("S", sheet)
        .package()
        .with(
            "xl/worksheets/_rels/sheet1.xml.rels",
            rels_xml(&[(
                "rId1".into(),
                format!("{REL_NS}/table"),
                "../tables/table1.xml".into(),
            )]),
        )
        .with("xl/tables/table1.xml", table)
        .build()
}

#[test]
fn ranges_and_tables_are_pushdowns_past_their_last_row_and_outside_their_columns() {
    // The whole sheet fails on the damage.
    let mut workbook = Workbook::from_bytes(damaged_around()).unwrap();
    assert!(
        ArrowOptions::new()
            .read_sheet_table(&mut workbook, 0)
            .is_err()
    );
    // The range never reaches it.
    let batch = read_range(damaged_around(), "B2:C5", "S").unwrap();
    assert_eq!(names(&batch), ["a", "b"]);
    assert_eq!(ints(&batch, "a"), [Some(3), Some(4), Some(5)]);
    // Open below, it reads on to the damage in B50...
    let err = read_range(damaged_around(), "B2:C", "S").unwrap_err();
    assert_eq!(err.location().row, Some(50));
    // ... which column C never resolves, and a row with values only
    // outside the range (row 50) is no row of it.
    let batch = read_range(damaged_around(), "C2:C", "S").unwrap();
    assert_eq!(ints(&batch, "b"), [Some(30), Some(40), Some(50)]);
    // Nor does the table; a name's `_x000a_` is a line break.
    let batch = read_table(damaged_around(), &ArrowOptions::new(), "t").unwrap();
    assert_eq!(names(&batch), ["a", "b\nc"]);
    assert_eq!(ints(&batch, "b\nc"), [Some(30), Some(40), Some(50)]);
    // The CLI reads the same: the range stops before the damage (on one
    // thread and on two), the whole sheet fails on it.
    let file = common::temp_file("tables_damaged_around", &damaged_around());
    let path = file.0.to_str().unwrap();
    for threads in ["1", "2"] {
        for command in ["csv", "jsonl"] {
            let run =
                common::run_cli_args(&[command, "--range", "B2:C5", "--threads", threads, path]);
            assert_eq!(run.code, Some(0), "{command} -t {threads}: {}", run.stderr);
            assert_eq!(
                run.stdout.lines().count(),
                4 - usize::from(command == "jsonl")
            );
        }
        let run = common::run_cli_args(&["csv", "--threads", threads, path]);
        assert_eq!(run.code, Some(1), "{}", run.stdout);
    }
    // The row reader's stop, on its own.
    let mut workbook = Workbook::from_bytes(damaged_around()).unwrap();
    let mut rows = workbook.rows(0).unwrap();
    rows.select_columns(Some([1, 2].into_iter().collect()));
    rows.stop_after_row(Some(4));
    let mut seen = Vec::new();
    while let Some(row) = rows.next_row().unwrap() {
        seen.push(row.index());
    }
    assert_eq!(seen, [1, 2, 3, 4]);
}

#[test]
fn a_malformed_range_says_what_is_read() {
    let err = "B3:F100x".parse::<SheetRange>().unwrap_err();
    assert!(
        err.to_string().contains("`B3:F100x` is not a range"),
        "{err}"
    );
}

/// Corpus workbooks holding tables: listed, and each table read by name.
#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn corpus_tables_list_and_read() {
    let root = std::path::Path::new("../shared/conformance/corpus");
    if !root.is_dir() {
        eprintln!("skipped: no corpus at {}", root.display());
        return;
    }
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "xlsx" || e == "xlsm") {
                files.push(path);
            }
        }
    }
    files.sort();
    let (mut with_tables, mut read) = (0, 0);
    for file in &files {
        let Ok(mut workbook) = Workbook::open(file) else {
            continue;
        };
        let Ok(tables) = workbook.tables() else {
            continue;
        };
        if tables.is_empty() {
            continue;
        }
        with_tables += 1;
        for table in &tables {
            assert!(
                table.range.height() >= table.header_row_count + table.totals_row_count,
                "{}",
                file.display()
            );
            let mut workbook = Workbook::open(file).unwrap();
            let mut options = ArrowOptions::new();
            let (schema, rows) = loop {
                let batches = options.read_table(&mut workbook, &table.name);
                let batches = batches
                    .unwrap_or_else(|err| panic!("{}: {}: {err}", file.display(), table.name));
                let schema = batches.schema();
                match batches.collect_batches() {
                    Ok(batches) => {
                        break (schema, batches.iter().map(|b| b.num_rows()).sum::<usize>());
                    }
                    Err(err) => match options.widened_by(&err) {
                        Some(wider) => options = wider,
                        None => panic!("{}: {}: {err}", file.display(), table.name),
                    },
                }
            };
            // Its columns, named as it names them (made unique).
            assert_eq!(
                schema.fields().len(),
                table.columns.len(),
                "{}: {}",
                file.display(),
                table.name
            );
            let data_rows = table.data_range(false).map_or(0, |r| r.height() as usize);
            assert!(
                rows <= data_rows,
                "{}: {}: {rows} rows of {data_rows}",
                file.display(),
                table.name
            );
            read += 1;
        }
    }
    eprintln!(
        "{} corpus files, {with_tables} with tables, {read} tables read",
        files.len()
    );
}

#[test]
fn the_cli_lists_tables_and_reads_one_or_a_range() {
    let file = common::temp_file("tables", &report());
    let path = file.0.to_str().unwrap();
    let run = common::run_cli_args(&["tables", path]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "name\tsheet\trange\theader_rows\ttotals_rows\tcolumns\n\
         Sales\tReport\tB4:D8\t1\t1\t[\"Region\",\"Units\",\"Price\"]\n\
         Costs\tReport\tH4:I6\t1\t0\t[\"Item\",\"Cost\"]\n\
         Ids\tOther\tA1:B3\t0\t0\t[\"Column1\",\"Column2\"]\n"
    );
    let run = common::run_cli_args(&["tables", "--json", path]);
    let first: serde_json::Value =
        serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["name"], "Sales");
    assert_eq!(first["sheet_position"], 0);
    assert_eq!(first["totals_rows"], 1);
    assert_eq!(
        first["columns"],
        serde_json::json!(["Region", "Units", "Price"])
    );

    // The table's sheet found without --sheet; its columns only.
    let run = common::run_cli_args(&["schema", "--table", "ids", path]);
    assert_eq!(
        run.stdout, "sheet Other\n  Column1\tInt64\n  Column2\tUtf8\n",
        "{}",
        run.stderr
    );
    let run = common::run_cli_args(&["schema", "--range", "'Report'!H4:I6", path]);
    assert_eq!(
        run.stdout, "sheet Report\n  Item\tUtf8\n  Cost\tInt64\n",
        "{}",
        run.stderr
    );

    let out = common::temp_dir("tables_parquet");
    let parquet = out.0.join("sales.parquet");
    let run = common::run_cli_args(&[
        "parquet",
        "--table",
        "Sales",
        "--include-totals-row",
        "-q",
        "-o",
        parquet.to_str().unwrap(),
        path,
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&parquet).unwrap(),
    )
    .unwrap()
    .build()
    .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 4);

    let run = common::run_cli_args(&["arrow", "--table", "Salez", path]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr
            .contains("no table named 'Salez' (the workbook's tables: Sales, Costs, Ids)"),
        "{}",
        run.stderr
    );
    let run = common::run_cli_args(&["schema", "--range", "B3:F100x", path]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("`B3:F100x` is not a range"),
        "{}",
        run.stderr
    );
}

#[test]
fn skipped_rows_inside_a_range_move_its_header_down() {
    let mut workbook = Workbook::from_bytes(report()).unwrap();
    // B3:D7 starts on an empty row; skipping 3 rows makes row 4 the header.
    let options = ArrowOptions::new()
        .range(Some("B3:D7".parse().unwrap()))
        .skip_rows(3);
    let (schema, batches) = options.read_sheet_table(&mut workbook, "Report").unwrap();
    let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["Region", "Units", "Price"]);
    assert_eq!(
        ints(&concat(&batches), "Units"),
        [Some(10), Some(20), Some(30)]
    );
}

/// `.xlsb` tables from the binary corpus: listed from their `tableN.bin`
/// parts as the same files saved as `.xlsx` list them, and read by name.
#[test]
fn xlsb_tables_list_as_their_xlsx_and_read_by_name() {
    let binary = std::path::Path::new("../shared/conformance/corpus-binary");
    let corpus = std::path::Path::new("../shared/conformance/corpus");
    if !binary.is_dir() || !corpus.is_dir() {
        common::skip_notice(
            "xlsb_tables_list_as_their_xlsx_and_read_by_name",
            "../shared/conformance/corpus-binary",
        );
        return;
    }
    let mut workbook = Workbook::open(binary.join("polars/example_2.xlsb")).unwrap();
    let tables = workbook.tables().unwrap();
    let listed: Vec<_> = tables
        .iter()
        .map(|t| {
            (
                t.name.as_str(),
                t.sheet_name.as_str(),
                t.range.to_string(),
                t.header_row_count,
                t.totals_row_count,
                t.columns.join("|"),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (
                "Table1",
                "test3",
                "B5:D12".to_owned(),
                1,
                1,
                "cardinality|rows_by_key|iter groups".to_owned()
            ),
            (
                "TemporalData",
                "temporal",
                "B4:G8".to_owned(),
                1,
                0,
                "id|dtm|dt|dtm_str|dt_str|tm_str".to_owned()
            ),
        ]
    );
    // Its totals row ("Total" in B12) left out, its header from the table.
    let bytes = std::fs::read(binary.join("polars/example_2.xlsb")).unwrap();
    let batch = read_table(bytes, &ArrowOptions::new(), "table1").unwrap();
    assert_eq!(names(&batch), ["cardinality", "rows_by_key", "iter groups"]);
    assert_eq!(
        ints(&batch, "cardinality"),
        [1, 3, 15, 30, 150, 300].map(Some)
    );
    assert_eq!(floats(&batch, "iter groups")[5], Some(0.06945));
    let path = binary.join("polars/example_2.xlsb");
    let run = common::run_cli_args(&["csv", "--table", "TemporalData", path.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout.lines().next(),
        Some("id,dtm,dt,dtm_str,dt_str,tm_str"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.lines().count(), 5, "{}", run.stdout);

    // The same workbooks as `.xlsx` (their tables in sheet order; a sheet's
    // tables in the order of its relationships, which the two files need
    // not share).
    for name in ["50867_with_table", "55745"] {
        let listing = |path: std::path::PathBuf| {
            let mut tables = Workbook::open(&path)
                .and_then(|mut w| w.tables())
                .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            tables.sort_by(|a, b| (a.sheet, &a.name).cmp(&(b.sheet, &b.name)));
            tables
        };
        let xlsb = listing(binary.join(format!("sheetjs/apachepoi_{name}.xlsx.xlsb")));
        let xlsx = listing(corpus.join(format!("poi/{name}.xlsx")));
        assert!(!xlsb.is_empty(), "{name}");
        assert_eq!(xlsb, xlsx, "{name}");
    }
}

/// `csv` and `jsonl` take `--table` and `--range` as the typed commands
/// do: the table's sheet found, its names as the header, its totals row
/// left out unless asked for, nothing around it; a range's first row its
/// header, its columns only, the read stopped after its last row.
#[test]
fn csv_and_jsonl_read_a_table_or_a_range() {
    let file = common::temp_file("tables_csv", &report());
    let path = file.0.to_str().unwrap();
    let run = common::run_cli_args(&["csv", "--table", "sales", path]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "Region,Units,Price\nNorth,10,1.5\nSouth,20,2.5\nEast,30,3.25\n"
    );
    let run = common::run_cli_args(&["csv", "--table", "Sales", "--include-totals-row", path]);
    assert_eq!(
        run.stdout.lines().last(),
        Some("Total,0,"),
        "{}",
        run.stderr
    );
    // A table without a header row: its names from the definition.
    let run = common::run_cli_args(&["csv", "--table", "Ids", path]);
    assert_eq!(
        run.stdout, "Column1,Column2\n1,id-0\n2,id-1\n3,id-2\n",
        "{}",
        run.stderr
    );
    let run = common::run_cli_args(&["jsonl", "--table", "Costs", path]);
    assert_eq!(
        run.stdout, "{\"Item\":\"Rent\",\"Cost\":100}\n{\"Item\":\"Power\",\"Cost\":40}\n",
        "{}",
        run.stderr
    );
    let run = common::run_cli_args(&[
        "jsonl",
        "--table",
        "Sales",
        "--columns",
        "Price,Region",
        path,
    ]);
    assert_eq!(
        run.stdout.lines().next(),
        Some("{\"Price\":1.5,\"Region\":\"North\"}"),
        "{}",
        run.stderr
    );

    let run = common::run_cli_args(&["csv", "--range", "'Report'!B4:C6", path]);
    assert_eq!(
        run.stdout, "Region,Units\nNorth,10\nSouth,20\n",
        "{}",
        run.stderr
    );
    let run = common::run_cli_args(&["jsonl", "--range", "Report!H4:I5", path]);
    assert_eq!(
        run.stdout, "{\"Item\":\"Rent\",\"Cost\":100}\n",
        "{}",
        run.stderr
    );
    // Open-ended rows: to the sheet's end, the note below included (an
    // empty record of one field is `""`).
    let run = common::run_cli_args(&["csv", "--range", "C5:C", "--no-header", path]);
    assert_eq!(
        run.stdout, "10\n20\n30\n0\n\"\"\n\"\"\n\"\"\na note below the table\n",
        "{}",
        run.stderr
    );

    // Errors: a column outside, a table on another sheet than chosen, a
    // range with --all.
    let run = common::run_cli_args(&["csv", "--table", "Sales", "--columns", "H", path]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("column H is outside the table Sales"),
        "{}",
        run.stderr
    );
    let run = common::run_cli_args(&["jsonl", "--table", "Sales", "--sheet", "Other", path]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("the table is on sheet `Report`"),
        "{}",
        run.stderr
    );
    let run = common::run_cli_args(&["jsonl", "--all", "--range", "B4:C6", path]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let run = common::run_cli_args(&["csv", "--table", "Salez", path]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("no table named 'Salez'"),
        "{}",
        run.stderr
    );
}
