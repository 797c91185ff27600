//! The parallel paths deliver exactly the rows the serial path does, and
//! errors, panics and early stops reach the caller.

use crate::common;

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{book, sheet_xml};
use sheetstream::{ErrorKind, Row, SheetInfo, SheetKind, Workbook};

/// A row as owned, comparable text: index, then each cell's reference and value.
fn describe(row: &Row<'_>) -> String {
    let mut out = format!("{}:", row.index());
    for cell in row.cells() {
        out.push_str(&format!(" {}={:?}", cell.reference(), cell.value()));
    }
    out
}

type Rows = BTreeMap<usize, Vec<String>>;

/// Every worksheet's rows, read one sheet after another with `rows()`.
fn serial<R: std::io::Read + std::io::Seek>(
    workbook: &mut Workbook<R>,
) -> sheetstream::Result<Rows> {
    let mut all = Rows::new();
    let positions: Vec<usize> = workbook
        .sheets()
        .iter()
        .filter(|sheet| sheet.kind() == SheetKind::Worksheet)
        .map(SheetInfo::position)
        .collect();
    for position in positions {
        let mut rows = workbook.rows(position)?;
        let mut seen = Vec::new();
        while let Some(row) = rows.next_row()? {
            seen.push(describe(&row));
        }
        all.insert(position, seen);
    }
    Ok(all)
}

/// Every worksheet's rows, read through `parallel()` with `threads`.
fn parallel<R>(workbook: &Workbook<R>, threads: usize) -> sheetstream::Result<Rows>
where
    R: std::io::Read + std::io::Seek + Clone + Send,
{
    let collected = Mutex::new(Vec::new());
    workbook.parallel().threads(threads).for_each_row(|| {
        let collected = &collected;
        move |sheet: &SheetInfo, row: Row<'_>| {
            collected
                .lock()
                .unwrap()
                .push((sheet.position(), describe(&row)));
        }
    })?;
    let mut all = Rows::new();
    for position in workbook
        .sheets()
        .iter()
        .filter(|s| s.kind() == SheetKind::Worksheet)
        .map(SheetInfo::position)
    {
        all.insert(position, Vec::new());
    }
    // Rows of one sheet arrive in order, whichever thread read them.
    for (position, row) in collected.into_inner().unwrap() {
        all.get_mut(&position).expect("a worksheet").push(row);
    }
    Ok(all)
}

/// Each worksheet alone through the pipelined path (inflate on its own thread).
fn pipelined<R>(workbook: &Workbook<R>) -> sheetstream::Result<Rows>
where
    R: std::io::Read + std::io::Seek + Clone + Send,
{
    let mut all = Rows::new();
    for sheet in workbook
        .sheets()
        .iter()
        .filter(|s| s.kind() == SheetKind::Worksheet)
    {
        let seen = Mutex::new(Vec::new());
        workbook
            .parallel()
            .threads(2)
            .sheets([sheet.position()])?
            .for_each_row(|| {
                let seen = &seen;
                move |_: &SheetInfo, row: Row<'_>| seen.lock().unwrap().push(describe(&row))
            })?;
        all.insert(sheet.position(), seen.into_inner().unwrap());
    }
    Ok(all)
}

/// The differential test over the real-file corpus: for every workbook,
/// the serial reader, the sheet-parallel pool (1 and 2 threads) and the
/// pipelined single-sheet path give the same rows, or all fail.
#[test]
#[ignore = "slow tier: .ci/run runs it in release (cargo test --release -- --ignored)"]
fn parallel_paths_match_serial_on_the_corpus() {
    let Some(paths) = common::corpus_root().map(|root| common::corpus_workbooks(&root)) else {
        common::skip_notice(
            "parallel_paths_match_serial_on_the_corpus",
            "../shared/conformance/corpus",
        );
        return;
    };
    let (mut compared, mut refused) = (0, 0);
    for path in &paths {
        let Ok(mut workbook) = Workbook::open(path) else {
            refused += 1;
            continue;
        };
        let expected = serial(&mut workbook);
        for (name, got) in [
            ("1 thread", parallel(&workbook, 1)),
            ("2 threads", parallel(&workbook, 2)),
            ("pipelined", pipelined(&workbook)),
        ] {
            match (&expected, &got) {
                (Ok(expected), Ok(got)) => assert_eq!(expected, got, "{name}: {}", path.display()),
                (Err(_), Err(_)) => {}
                _ => panic!(
                    "{name}: {} serial {:?} but parallel {:?}",
                    path.display(),
                    expected.as_ref().err(),
                    got.as_ref().err()
                ),
            }
        }
        compared += 1;
    }
    println!(
        "{compared} workbooks read the same serially and in parallel; {refused} refused at open"
    );
    assert!(compared > 2000, "only {compared} corpus workbooks compared");
}

/// Eight sheets of different lengths, to keep two threads busy.
fn eight_sheets() -> Vec<u8> {
    let mut workbook = book();
    for sheet in 0..8 {
        let rows: String = (1..=200 + sheet * 50)
            .map(|row| format!(r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c><c r="B{row}"><v>{sheet}</v></c></row>"#))
            .collect();
        workbook = workbook.sheet(&format!("S{sheet}"), sheet_xml(&rows));
    }
    workbook.build()
}

#[test]
fn fold_matches_a_serial_sum() {
    let workbook = Workbook::from_bytes(eight_sheets()).unwrap();
    for threads in [1, 2, 3, 8] {
        let (rows, sum) = workbook
            .parallel()
            .threads(threads)
            .fold(
                || (0usize, 0.0),
                |(rows, sum), _sheet, row| {
                    *rows += 1;
                    *sum += row
                        .cells()
                        .iter()
                        .filter_map(|c| c.value().as_f64())
                        .sum::<f64>();
                },
                |a, b| (a.0 + b.0, a.1 + b.1),
            )
            .unwrap();
        // Sheet s has 200 + 50 s rows; column A sums 1..=n, column B is s on every row.
        let expected_rows: usize = (0..8).map(|s| 200 + 50 * s).sum();
        let expected_sum: f64 = (0..8)
            .map(|s| {
                let n = (200 + 50 * s) as f64;
                n * (n + 1.0) / 2.0 + n * s as f64
            })
            .sum();
        assert_eq!(
            (rows, sum),
            (expected_rows, expected_sum),
            "{threads} threads"
        );
    }
}

#[test]
fn the_first_error_reaches_the_caller_and_names_the_sheet() {
    let good: String = (1..=2000)
        .map(|row| format!(r#"<row r="{row}"><c r="A{row}"><v>1</v></c></row>"#))
        .collect();
    let bytes = book()
        .sheet("Good", sheet_xml(&good))
        .sheet(
            "Bad",
            sheet_xml(r#"<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</x></c></row>"#),
        )
        .sheet("AlsoGood", sheet_xml(&good))
        .build();
    let workbook = Workbook::from_bytes(bytes).unwrap();
    for threads in [1, 2, 3] {
        let err = workbook
            .parallel()
            .threads(threads)
            .for_each_row(|| |_: &SheetInfo, _: Row<'_>| ())
            .unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Xml(_)), "{err}");
        assert_eq!(err.location().sheet.as_deref(), Some("Bad"), "{err}");
    }
}

#[test]
fn a_panic_is_resumed_on_the_calling_thread() {
    let workbook = Workbook::from_bytes(eight_sheets()).unwrap();
    for threads in [1, 2] {
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            workbook.parallel().threads(threads).for_each_row(|| {
                |sheet: &SheetInfo, row: Row<'_>| {
                    if sheet.name() == "S3" && row.index() == 10 {
                        panic!("boom in S3");
                    }
                }
            })
        }));
        let payload = outcome.expect_err("the panic must reach the caller");
        let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
        assert_eq!(message, "boom in S3", "{threads} threads");
    }
}

#[test]
fn stopping_in_one_thread_stops_all() {
    let workbook = Workbook::from_bytes(eight_sheets()).unwrap();
    let total_rows: usize = (0..8).map(|s| 200 + 50 * s).sum();
    for threads in [1, 2] {
        let visited = AtomicUsize::new(0);
        workbook
            .parallel()
            .threads(threads)
            .for_each_row(|| {
                let visited = &visited;
                move |_: &SheetInfo, _: Row<'_>| visited.fetch_add(1, Ordering::Relaxed) < 5
            })
            .unwrap();
        let visited = visited.into_inner();
        // Each thread stops at its next row once any asked to stop.
        assert!(
            visited >= 6 && visited <= 6 + threads * 2,
            "{threads} threads visited {visited} of {total_rows} rows"
        );
    }
}

#[test]
fn a_lone_sheet_is_pipelined_with_the_same_rows() {
    let rows: String = (1..=30_000)
        .map(|row| format!(r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c><c r="B{row}" t="inlineStr"><is><t>r&amp;{row}</t></is></c></row>"#))
        .collect();
    let mut workbook =
        Workbook::from_bytes(book().sheet("Only", sheet_xml(&rows)).build()).unwrap();
    let expected = serial(&mut workbook).unwrap();
    assert_eq!(expected[&0].len(), 30_000);
    assert_eq!(
        expected[&0][29_999],
        r#"29999: A30000=Number(30000.0) B30000=Text("r&30000")"#
    );
    assert_eq!(pipelined(&workbook).unwrap(), expected);
    assert_eq!(parallel(&workbook, 0).unwrap(), expected);
}

/// Rows of different lengths around the pipe's buffer size (512 KiB) and
/// the room kept before each buffer for the tail of the one before (64
/// KiB): short rows, rows longer than that room, and rows longer than a
/// whole buffer, so every way a row can straddle buffers is taken.
#[test]
fn rows_longer_than_a_pipe_buffer_arrive_whole() {
    let widths = [3, 5_000, 2, 16_384, 1, 1, 9_000, 2_000, 4, 12_000, 7];
    let mut rows = String::new();
    let mut longest = 0;
    for (index, &width) in widths.iter().cycle().take(60).enumerate() {
        let row = index + 1;
        let start = rows.len();
        rows.push_str(&format!(r#"<row r="{row}">"#));
        for column in 0..width {
            rows.push_str(&format!(
                r#"<c r="{}{row}" s="0"><v>{}</v></c>"#,
                column_name(column),
                row * 100_000 + column
            ));
        }
        rows.push_str("</row>");
        longest = longest.max(rows.len() - start);
    }
    // Longer than a buffer and the room before it together.
    assert!(
        longest > (512 + 64) << 10,
        "the longest row has {longest} bytes"
    );
    let workbook = Workbook::from_bytes(book().sheet("Wide", sheet_xml(&rows)).build()).unwrap();
    assert!(rows.len() > 6 << 20, "{} bytes of rows", rows.len());
    let mut reopened =
        Workbook::from_bytes(book().sheet("Wide", sheet_xml(&rows)).build()).unwrap();
    let expected = serial(&mut reopened).unwrap();
    assert_eq!(expected[&0].len(), 60);
    let widest = &expected[&0][3];
    assert!(
        widest.ends_with(" XFD4=Number(416383.0)"),
        "{}",
        &widest[widest.len() - 40..]
    );
    assert_eq!(pipelined(&workbook).unwrap(), expected);
}

fn column_name(mut index: usize) -> String {
    let mut name = Vec::new();
    loop {
        name.push(b'A' + (index % 26) as u8);
        if index < 26 {
            break;
        }
        index = index / 26 - 1;
    }
    name.reverse();
    String::from_utf8(name).unwrap()
}

#[test]
fn selecting_sheets_by_name_and_refusing_unknown_ones() {
    let workbook = Workbook::from_bytes(eight_sheets()).unwrap();
    let rows = workbook
        .parallel()
        .sheets(["S1", "S6"])
        .unwrap()
        .fold(|| 0usize, |count, _, _| *count += 1, |a, b| a + b)
        .unwrap();
    assert_eq!(rows, 250 + 500);
    let err = workbook
        .parallel()
        .sheets(["S1", "nope"])
        .err()
        .expect("an unknown sheet");
    assert!(matches!(err.kind(), ErrorKind::SheetNotFound(_)), "{err}");
}

/// The first row reaches the caller after reading only the start of the
/// sheet: the compressed bytes read from the file, counted by `SharedFile`,
/// stay a small part of the sheet, serially and pipelined.
#[test]
fn the_first_row_needs_only_the_start_of_the_sheet() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicU64;

    // Unique numbers compress poorly, so the sheet is megabytes on disk.
    let rows: String = (1..=150_000u64)
        .map(|row| {
            let noise = row.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11;
            format!(r#"<row r="{row}"><c r="A{row}"><v>{noise}</v></c><c r="B{row}"><v>{}</v></c></row>"#, noise / 7)
        })
        .collect();
    let file = common::temp_file("first-row", &book().sheet("Big", sheet_xml(&rows)).build());
    let size = std::fs::metadata(&file.0).unwrap().len();
    assert!(
        size > 3_000_000,
        "the sheet is only {size} bytes compressed"
    );

    let counter = Arc::new(AtomicU64::new(0));
    let source = sheetstream::SharedFile::open(&file.0)
        .unwrap()
        .with_progress(Arc::clone(&counter));
    let mut workbook = sheetstream::OpenOptions::new().from_reader(source).unwrap();
    let at_open = counter.load(Ordering::Relaxed);
    let mut sheet_rows = workbook.rows("Big").unwrap();
    let first = sheet_rows.next_row().unwrap().expect("a first row");
    assert_eq!(first.index(), 0);
    let read = counter.load(Ordering::Relaxed) - at_open;
    assert!(
        read < size / 20,
        "{read} of {size} compressed bytes read for the first row"
    );
    drop(sheet_rows);

    // Pipelined: the inflate thread runs ahead by a few buffers only.
    let before = counter.load(Ordering::Relaxed);
    let result = workbook
        .parallel()
        .threads(2)
        .for_each_row(|| |_: &SheetInfo, _: Row<'_>| false);
    result.unwrap();
    let read = counter.load(Ordering::Relaxed) - before;
    assert!(
        read < size / 5,
        "{read} of {size} compressed bytes read by the pipelined path for one row"
    );
}

/// A sheet visitor per thread: each sheet's rows whole, in order, once;
/// an unreadable sheet handed to the closure (which skips it here) instead
/// of failing the run; an error returned fails it; false stops it.
#[test]
fn for_each_sheet_hands_each_sheet_to_one_thread_with_its_errors() {
    let workbook = Workbook::from_bytes(eight_sheets()).unwrap();
    for threads in [1, 2, 3] {
        let seen = Mutex::new(Vec::new());
        let per_thread = AtomicUsize::new(0);
        workbook
            .parallel()
            .threads(threads)
            .for_each_sheet(|| {
                per_thread.fetch_add(1, Ordering::Relaxed);
                let seen = &seen;
                move |sheet: &SheetInfo, rows: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                    let mut rows = rows?;
                    let (mut count, mut last) = (0usize, 0u32);
                    while let Some(row) = rows.next_row()? {
                        count += 1;
                        last = row.index();
                    }
                    seen.lock()
                        .unwrap()
                        .push((sheet.name().to_owned(), count, last));
                    Ok(true)
                }
            })
            .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        let expected: Vec<(String, usize, u32)> = (0..8)
            .map(|s| (format!("S{s}"), 200 + 50 * s, (199 + 50 * s) as u32))
            .collect();
        assert_eq!(seen, expected, "{threads} threads");
        assert_eq!(
            per_thread.load(Ordering::Relaxed),
            threads,
            "one closure per thread"
        );
    }

    // A sheet whose part is missing: the closure gets the error and decides.
    let rows: String = (1..=50)
        .map(|row| format!(r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c></row>"#))
        .collect();
    let bytes = book()
        .sheet("Good", sheet_xml(&rows))
        .sheet("Gone", sheet_xml(&rows))
        .package()
        .without("xl/worksheets/sheet2.xml")
        .build();
    let workbook = Workbook::from_bytes(bytes).unwrap();
    for threads in [1, 2] {
        let skipped = Mutex::new(Vec::new());
        let read = AtomicUsize::new(0);
        workbook
            .parallel()
            .threads(threads)
            .for_each_sheet(|| {
                |sheet: &SheetInfo, rows: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                    let result = rows.and_then(|mut rows| {
                        while rows.next_row()?.is_some() {
                            read.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(())
                    });
                    if let Err(err) = result {
                        skipped.lock().unwrap().push((sheet.name().to_owned(), err));
                    }
                    Ok(true)
                }
            })
            .unwrap();
        let skipped = skipped.into_inner().unwrap();
        assert_eq!(skipped.len(), 1, "{threads} threads");
        assert_eq!(skipped[0].0, "Gone");
        assert_eq!(skipped[0].1.location().sheet.as_deref(), Some("Gone"));
        assert_eq!(read.load(Ordering::Relaxed), 50);
        // Returned, the error fails the run.
        let err = workbook
            .parallel()
            .threads(threads)
            .for_each_sheet(|| {
                |_: &SheetInfo, rows: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                    rows.map(|_| true)
                }
            })
            .unwrap_err();
        assert_eq!(err.location().sheet.as_deref(), Some("Gone"), "{err}");
    }

    // False stops every thread: no sheet starts after the first says stop.
    let workbook = Workbook::from_bytes(eight_sheets()).unwrap();
    let started = AtomicUsize::new(0);
    workbook
        .parallel()
        .threads(1)
        .for_each_sheet(|| {
            |_: &SheetInfo, _: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                started.fetch_add(1, Ordering::Relaxed);
                Ok(false)
            }
        })
        .unwrap();
    assert_eq!(started.load(Ordering::Relaxed), 1);
}

/// One sheet of `rows` rows: A the row number, B the workbook's number.
fn one_sheet_book(number: usize, rows: usize) -> Vec<u8> {
    let xml: String = (1..=rows)
        .map(|row| format!(r#"<row r="{row}"><c r="A{row}"><v>{row}</v></c><c r="B{row}"><v>{number}</v></c></row>"#))
        .collect();
    book().sheet("Only", sheet_xml(&xml)).build()
}

/// Many workbooks on one pool: the unit of work is a (workbook, sheet)
/// pair, so eight one-sheet workbooks keep two threads busy at once (each
/// thread's first sheet waits, up to ten seconds, until the other thread
/// holds a sheet too: one workbook after another would never get there);
/// every sheet is read whole, once, and told its workbook.
#[test]
fn many_workbooks_are_read_as_one_pool_of_sheets() {
    use sheetstream::Parallel;
    use std::sync::Condvar;
    use std::time::{Duration, Instant};

    let books: Vec<Workbook<_>> = (0..8)
        .map(|n| Workbook::from_bytes(one_sheet_book(n, 100 + 30 * n)).unwrap())
        .collect();
    for threads in [1, 2, 3] {
        let seen = Mutex::new(Vec::new());
        let holding = (Mutex::new(0usize), Condvar::new());
        let met = AtomicUsize::new(0);
        Parallel::across(&books)
            .threads(threads)
            .for_each_workbook_sheet(|| {
                let (seen, holding, met) = (&seen, &holding, &met);
                let mut first = true;
                move |workbook: usize,
                      sheet: &SheetInfo,
                      rows: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                    let mut rows = rows?;
                    if std::mem::take(&mut first) && threads > 1 {
                        let (count, wake) = holding;
                        let mut count = count.lock().unwrap();
                        *count += 1;
                        wake.notify_all();
                        let deadline = Instant::now() + Duration::from_secs(10);
                        while *count < 2 && Instant::now() < deadline {
                            count = wake
                                .wait_timeout(count, Duration::from_millis(50))
                                .unwrap()
                                .0;
                        }
                        if *count >= 2 {
                            met.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    let (mut count, mut sum_b) = (0usize, 0.0);
                    while let Some(row) = rows.next_row()? {
                        count += 1;
                        assert_eq!(
                            row.cells()[0].value().as_f64(),
                            Some(f64::from(row.index() + 1))
                        );
                        sum_b += row.cells()[1].value().as_f64().unwrap();
                    }
                    seen.lock()
                        .unwrap()
                        .push((workbook, sheet.name().to_owned(), count, sum_b));
                    Ok(true)
                }
            })
            .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort_by_key(|seen| seen.0);
        let expected: Vec<(usize, String, usize, f64)> = (0..8)
            .map(|n| {
                let rows = 100 + 30 * n;
                (n, "Only".to_owned(), rows, (n * rows) as f64)
            })
            .collect();
        assert_eq!(seen, expected, "{threads} threads");
        if threads > 1 {
            let met = met.load(Ordering::Relaxed);
            assert!(met >= 2, "{met} threads saw another holding a sheet");
        }
    }

    // `sheets` picks in every workbook; `workbook_sheets` exact pairs; the
    // biggest sheet of any workbook comes first on one thread.
    let order = Mutex::new(Vec::new());
    Parallel::across(&books)
        .threads(1)
        .workbook_sheets([(2, 0), (7, 0), (0, 0)])
        .unwrap()
        .for_each_workbook_sheet(|| {
            |workbook: usize, _: &SheetInfo, _: sheetstream::Result<sheetstream::SheetRows<'_>>| {
                order.lock().unwrap().push(workbook);
                Ok(true)
            }
        })
        .unwrap();
    assert_eq!(order.into_inner().unwrap(), [7, 2, 0]);
    let cells = Parallel::across(&books)
        .sheets(["Only"])
        .unwrap()
        .threads(2)
        .fold(
            || 0usize,
            |count, _, row| *count += row.cells().len(),
            |a, b| a + b,
        )
        .unwrap();
    assert_eq!(cells, (0..8).map(|n| 2 * (100 + 30 * n)).sum::<usize>());
    let missing = Parallel::across(&books).sheets(["Other"]).err().unwrap();
    assert!(
        matches!(missing.kind(), ErrorKind::SheetNotFound(_)),
        "{missing}"
    );
    let out_of_range = Parallel::across(&books)
        .workbook_sheets([(8, 0)])
        .err()
        .unwrap();
    assert!(
        matches!(out_of_range.kind(), ErrorKind::SheetNotFound(_)),
        "{out_of_range}"
    );
    assert!(Parallel::across(&books).workbook_sheets([(0, 1)]).is_err());
}
