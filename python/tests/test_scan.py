"""sheetstream.scan_excel: sheets as a polars LazyFrame (polars' IO plugin
API), with the projection, row limit and predicate pushed into the reader."""

from __future__ import annotations

import datetime
import pathlib
import threading
import warnings
from typing import Any, Callable

import pytest

pl = pytest.importorskip("polars")
from polars.testing import assert_frame_equal  # noqa: E402

import sheetstream  # noqa: E402
from conftest import WriteWorkbook  # noqa: E402

ROWS = 3000


def sales(rows: int = ROWS, offset: int = 0, misfit_at: int | None = None) -> Callable[[Any], None]:
    """A sheet "Data": text, whole numbers, fractions, dates, date-times and
    booleans, `rows` rows after the header; at `misfit_at` (a 1-based data
    row past the type sample) the `qty` cell holds text."""

    def fill(workbook: Any) -> None:
        sheet = workbook.add_worksheet("Data")
        date = workbook.add_format({"num_format": "yyyy-mm-dd"})
        stamp = workbook.add_format({"num_format": "yyyy-mm-dd hh:mm:ss"})
        sheet.write_row(0, 0, ["name", "qty", "price", "day", "at", "ok"])
        start = datetime.datetime(2024, 1, 1)
        for r in range(1, rows + 1):
            n = r + offset
            sheet.write_string(r, 0, f"item-{n}")
            sheet.write_number(r, 1, n)
            sheet.write_number(r, 2, n * 1.25)
            sheet.write_datetime(r, 3, start + datetime.timedelta(days=n % 400), date)
            sheet.write_datetime(r, 4, start + datetime.timedelta(minutes=n * 7), stamp)
            sheet.write_boolean(r, 5, n % 3 == 0)
        if misfit_at is not None:
            sheet.write_string(misfit_at, 1, "twelve")

    return fill


def reports() -> tuple[list[sheetstream.BatchReport], Callable[[sheetstream.BatchReport], None]]:
    seen: list[sheetstream.BatchReport] = []
    return seen, seen.append


def test_schema_before_collect_equals_read_excel(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(sales())
    seen, on_report = reports()
    lazy = sheetstream.scan_excel(path, on_report=on_report)
    schema = lazy.collect_schema()
    assert schema == sheetstream.read_excel(path).schema
    assert schema == pl.Schema(
        {
            "name": pl.String,
            "qty": pl.Int64,
            "price": pl.Float64,
            "day": pl.Date,
            "at": pl.Datetime("ms"),
            "ok": pl.Boolean,
        }
    )
    # No row is read before collect: no batch was built.
    assert seen == []


def test_the_sample_alone_gives_the_readers_schema(write_workbook: WriteWorkbook) -> None:
    # scan_excel reads each sheet's header and sample on its own thread
    # (Workbook.sheet's private `_schema_only`): the same schema as the
    # reader that reads the batches, whatever the options, and a sheet so
    # opened still reads its batches.
    path = write_workbook(sales(rows=1500))
    workbook = sheetstream.open(path)
    for options in [
        {},
        {"header_row": None},
        {"schema_sample_rows": None},
        {"schema_sample_rows": 5},
        {"dtypes": {"qty": "float64"}},
        {"columns": ["price", "name"]},
        {"range": "B1:D40"},
        {"skip_rows": 3, "header_row": None, "n_rows": 10},
    ]:
        alone = workbook.sheet("Data", _schema_only=True, **options)
        reader = workbook.sheet("Data", **options)
        assert alone.schema == reader.schema, options
        assert alone.column_names == reader.column_names, options
        assert alone._column_types == reader._column_types, options
        assert alone.to_arrow() == reader.to_arrow(), options
    with pytest.raises(sheetstream.Error, match="nope"):
        workbook.sheet("Data", _schema_only=True, columns=["nope"])


def test_collect_equals_read_excel(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(sales())
    frame = sheetstream.scan_excel(path).collect()
    assert_frame_equal(frame, sheetstream.read_excel(path))
    assert frame.height == ROWS
    assert frame.row(0) == (
        "item-1", 1, 1.25, datetime.date(2024, 1, 2), datetime.datetime(2024, 1, 1, 0, 7), False
    )
    assert frame["qty"].sum() == ROWS * (ROWS + 1) // 2


def test_projection_reads_only_the_selected_columns(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(sales())
    seen, on_report = reports()
    everything = sheetstream.scan_excel(path, on_report=on_report).collect()
    assert sum(report.cells for report in seen) == ROWS * 6
    seen.clear()
    two = sheetstream.scan_excel(path, on_report=on_report).select("price", "name").collect()
    assert two.columns == ["price", "name"]
    assert_frame_equal(two, everything.select("price", "name"))
    # The reader read the cells of two columns, not six.
    assert sum(report.rows for report in seen) == ROWS
    assert sum(report.cells for report in seen) == ROWS * 2


def test_head_stops_after_the_first_batch(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(sales())
    seen, on_report = reports()
    head = sheetstream.scan_excel(path, batch_size=100, on_report=on_report).head(10).collect()
    assert head["name"].to_list() == [f"item-{n}" for n in range(1, 11)]
    assert len(seen) == 1
    assert seen[0].rows == 10
    assert seen[0].cells == 10 * 6
    # In the streaming engine too.
    seen.clear()
    streamed = (
        sheetstream.scan_excel(path, batch_size=100, on_report=on_report)
        .select("qty")
        .head(5)
        .collect(engine="streaming")
    )
    assert streamed["qty"].to_list() == [1, 2, 3, 4, 5]
    assert sum(report.rows for report in seen) == 5
    assert sum(report.cells for report in seen) == 5


def test_batch_size_is_honoured(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(sales())
    seen, on_report = reports()
    frame = sheetstream.scan_excel(path, batch_size=250, on_report=on_report).collect()
    assert frame.height == ROWS
    assert [report.rows for report in seen] == [250] * (ROWS // 250)


@pytest.mark.parametrize(
    "predicate",
    [
        pl.col("qty") > 2500,
        (pl.col("price") < 100.0) & pl.col("ok"),
        pl.col("name").str.ends_with("7"),
        pl.col("day") == datetime.date(2024, 3, 1),
        pl.col("at") >= datetime.datetime(2024, 1, 10, 12),
        pl.col("qty").is_between(10, 20) | (pl.col("qty") == 2999),
    ],
)
def test_filters_equal_read_excel_then_filter(
    write_workbook: WriteWorkbook, predicate: Any
) -> None:
    path = write_workbook(sales())
    expected = sheetstream.read_excel(path).filter(predicate)
    assert expected.height > 0
    lazy = sheetstream.scan_excel(path, batch_size=512).filter(predicate)
    assert_frame_equal(lazy.collect(), expected)
    assert_frame_equal(lazy.collect(engine="streaming"), expected)
    assert_frame_equal(
        lazy.select("qty", "name").collect(), expected.select("qty", "name")
    )


def test_globs_of_several_files(write_workbook: WriteWorkbook, tmp_path: pathlib.Path) -> None:
    for n in range(3):
        write_workbook(sales(rows=400, offset=1000 * n), name=f"part{n}.xlsx")
    pattern = str(tmp_path / "part*.xlsx")
    lazy = sheetstream.scan_excel(pattern, file_column="file", sheet_column="sheet")
    expected = sheetstream.read_excel(pattern, file_column="file", sheet_column="sheet")
    assert lazy.collect_schema() == expected.schema
    frame = lazy.collect()
    assert_frame_equal(frame, expected)
    assert frame.group_by("file", maintain_order=True).agg(pl.len()).rows() == [
        (str(tmp_path / f"part{n}.xlsx"), 400) for n in range(3)
    ]
    assert set(frame["sheet"].to_list()) == {"Data"}
    # A list of paths, and only the file column selected.
    files = [tmp_path / "part2.xlsx", tmp_path / "part0.xlsx"]
    only = sheetstream.scan_excel(files, file_column="file").select("file").collect()
    assert only["file"].to_list() == [str(files[0])] * 400 + [str(files[1])] * 400
    # head() across files stops in the first one.
    seen, on_report = reports()
    head = sheetstream.scan_excel(pattern, on_report=on_report).head(3).collect()
    assert head["qty"].to_list() == [1, 2, 3]
    assert [report.file for report in seen] == [None]
    assert sum(report.rows for report in seen) == 3


def test_union_by_name(write_workbook: WriteWorkbook) -> None:
    def first(workbook: Any) -> None:
        sheet = workbook.add_worksheet("S")
        sheet.write_row(0, 0, ["id", "amount"])
        for r in range(1, 4):
            sheet.write_row(r, 0, [r, r * 10])

    def second(workbook: Any) -> None:
        sheet = workbook.add_worksheet("S")
        sheet.write_row(0, 0, ["amount", "note", "id"])
        for r in range(1, 3):
            sheet.write_row(r, 0, [r + 0.5, f"n{r}", 100 + r])

    paths = [write_workbook(first), write_workbook(second)]
    lazy = sheetstream.scan_excel(paths, union_by_name=True, file_column="file")
    expected = sheetstream.read_excel(paths, union_by_name=True, file_column="file")
    assert lazy.collect_schema() == expected.schema
    assert lazy.collect_schema()["amount"] == pl.Float64
    frame = lazy.collect()
    assert_frame_equal(frame, expected)
    assert frame["note"].to_list() == [None, None, None, "n1", "n2"]
    assert frame["amount"].to_list() == [10.0, 20.0, 30.0, 1.5, 2.5]
    # Only columns one file lacks: nulls of the right length for it.
    assert lazy.select("note").collect()["note"].to_list() == [None] * 3 + ["n1", "n2"]
    with pytest.raises(sheetstream.ColumnError, match="union_by_name") as info:
        sheetstream.scan_excel(paths)
    assert str(paths[1]) in str(info.value)


def test_a_misfit_past_the_sample_raises_naming_file_and_cell(
    write_workbook: WriteWorkbook, tmp_path: pathlib.Path
) -> None:
    write_workbook(sales(rows=1500), name="a.xlsx")
    bad = write_workbook(sales(rows=1500, misfit_at=1400), name="b.xlsx")
    pattern = str(tmp_path / "*.xlsx")
    lazy = sheetstream.scan_excel(pattern)
    assert lazy.collect_schema()["qty"] == pl.Int64
    for query in (lazy, lazy.select("qty", "price"), lazy.filter(pl.col("qty") > 0)):
        with pytest.raises(sheetstream.ConversionError) as info:
            query.collect()
        message = str(info.value)
        assert info.value.file == str(bad)
        assert info.value.row == 1401 and info.value.column == 2
        assert f"file {bad}" in message and "cell B1401" in message
        assert "`twelve`" in message and "schema_sample_rows=None" in message
        assert 'on_mismatch="null"' in message
        assert "as dtypes gives it" not in message
    # Typed from every row: the column is text, as read_excel widens it.
    every = sheetstream.scan_excel(pattern, schema_sample_rows=None)
    assert every.collect_schema()["qty"] == pl.String
    assert_frame_equal(every.collect(), sheetstream.read_excel(pattern))
    # Nulled, with a warning, only when asked.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nulled = sheetstream.scan_excel(pattern, on_mismatch="null").collect()
    assert nulled["qty"].null_count() == 1
    assert nulled["qty"][1500 + 1399] is None
    assert any(issubclass(w.category, sheetstream.CoercionWarning) for w in caught)


def test_errors_name_the_file(write_workbook: WriteWorkbook, tmp_path: pathlib.Path) -> None:
    good = write_workbook(sales(rows=10), name="good.xlsx")
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"not a zip file at all")
    with pytest.raises(sheetstream.Error) as info:
        sheetstream.scan_excel([good, broken])
    assert str(broken) in str(info.value)
    with pytest.raises(sheetstream.SheetNotFoundError) as missing:
        sheetstream.scan_excel(good, sheet="Nope")
    assert str(good) in str(missing.value) and missing.value.file == str(good)
    with pytest.raises(FileNotFoundError):
        sheetstream.scan_excel(str(tmp_path / "none*.xlsx"))


def test_sink_parquet_and_streaming_group_by(
    write_workbook: WriteWorkbook, tmp_path: pathlib.Path
) -> None:
    path = write_workbook(sales())
    expected = sheetstream.read_excel(path)
    out = tmp_path / "out.parquet"
    sheetstream.scan_excel(path, batch_size=500).sink_parquet(out)
    assert_frame_equal(pl.read_parquet(out), expected)
    grouped = (
        sheetstream.scan_excel(path)
        .filter(pl.col("qty") % 2 == 0)
        .group_by("ok")
        .agg(pl.col("price").sum(), pl.len())
        .sort("ok")
        .collect(engine="streaming")
    )
    want = (
        expected.filter(pl.col("qty") % 2 == 0)
        .group_by("ok")
        .agg(pl.col("price").sum(), pl.len())
        .sort("ok")
    )
    assert_frame_equal(grouped, want)


def test_options_as_read_excel(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(sales(rows=50))
    options: dict[str, Any] = {
        "n_rows": 20,
        "null_values": ["item-3"],
        "columns": ["qty", "name"],
        "dtypes": {"qty": "float64"},
    }
    lazy = sheetstream.scan_excel(path, **options)
    expected = sheetstream.read_excel(path, **options)
    assert lazy.collect_schema() == expected.schema
    assert_frame_equal(lazy.collect(), expected)
    assert_frame_equal(lazy.select("name").head(3).collect(), expected.select("name").head(3))
    # Bytes and file objects too.
    data = path.read_bytes()
    assert_frame_equal(sheetstream.scan_excel(data, **options).collect(), expected)
    with open(path, "rb") as handle:
        lazy_file = sheetstream.scan_excel(handle, **options)
    assert_frame_equal(lazy_file.collect(), expected)


def test_projection_of_generated_and_repeated_names(write_workbook: WriteWorkbook) -> None:
    """Columns the reader names itself (no header, an empty header cell, a
    second `x`) are projected by the same names, with the whole sheet's
    types."""

    def fill(workbook: Any) -> None:
        sheet = workbook.add_worksheet("S")
        sheet.write_row(0, 0, ["x", "", "x", "y"])
        for r in range(1, 201):
            sheet.write_row(r, 0, [r, f"t{r}", r * 0.5, r % 2 == 0])

    path = write_workbook(fill)
    for options in ({}, {"header_row": None}):
        expected = sheetstream.read_excel(path, **options)
        names = expected.columns
        assert len(names) == 4
        for chosen in ([names[1]], [names[2], names[0]], [names[3], names[1]]):
            seen, on_report = reports()
            got = sheetstream.scan_excel(path, on_report=on_report, **options).select(chosen).collect()
            assert_frame_equal(got, expected.select(chosen))
            assert sum(report.cells for report in seen) == sum(
                expected[name].drop_nulls().len() for name in chosen
            )
    assert sheetstream.read_excel(path).columns == ["x", "column_2", "x_1", "y"]


def test_a_misfit_in_a_column_a_union_widened(write_workbook: WriteWorkbook) -> None:
    """The scan gives a sheet the united type (whole numbers widened to
    fractions by another file): a late misfit there is told as the scan's,
    not as a dtypes the caller never gave."""

    def whole(workbook: Any) -> None:
        sheet = workbook.add_worksheet("S")
        sheet.write_row(0, 0, ["id", "qty"])
        for r in range(1, 31):
            sheet.write_row(r, 0, [r, r])
        sheet.write_row(31, 0, [31, "lots"])

    def fractions(workbook: Any) -> None:
        sheet = workbook.add_worksheet("S")
        sheet.write_row(0, 0, ["id", "qty"])
        for r in range(1, 4):
            sheet.write_row(r, 0, [r, r + 0.5])

    first = write_workbook(whole)
    paths = [first, write_workbook(fractions)]
    lazy = sheetstream.scan_excel(paths, schema_sample_rows=10)
    assert lazy.collect_schema()["qty"] == pl.Float64
    with pytest.raises(sheetstream.ConversionError) as info:
        lazy.collect()
    message = str(info.value)
    assert "as dtypes gives it" not in message
    assert "of the sheets scanned together" in message and "schema_sample_rows=None" in message
    assert f"file {first}" in message and "cell B32" in message and "`lots`" in message
    # The caller's own dtypes are said as such.
    with pytest.raises(sheetstream.ConversionError, match="as dtypes gives it"):
        sheetstream.scan_excel(paths, dtypes={"qty": "float64"}).collect()
    nulled = sheetstream.scan_excel(paths, schema_sample_rows=10, on_mismatch="null")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sheetstream.CoercionWarning)
        assert nulled.collect()["qty"].to_list() == [float(r) for r in range(1, 31)] + [None, 1.5, 2.5, 3.5]


def test_files_are_read_in_parallel_at_collect(
    write_workbook: WriteWorkbook, tmp_path: pathlib.Path
) -> None:
    for n in range(4):
        write_workbook(sales(rows=500, offset=1000 * n), name=f"part{n}.xlsx")
    pattern = str(tmp_path / "part*.xlsx")
    expected = sheetstream.read_excel(pattern, file_column="file")
    for threads, reading in ((2, 2), (1, 0)):
        # At the first batch handed over, `threads` sheets are being read
        # (each on a thread of the scan; none when one at a time): the
        # first holds more batches than it may read ahead, so it is not done.
        at_first: list[int] = []

        def on_report(report: sheetstream.BatchReport) -> None:
            if not at_first:
                names = [thread.name for thread in threading.enumerate()]
                at_first.append(names.count("sheetstream-scan"))

        frame = sheetstream.scan_excel(
            pattern, file_column="file", threads=threads, batch_size=50, on_report=on_report
        ).collect()
        assert at_first == [reading]
        # Handed over in read_excel's order, every value.
        assert_frame_equal(frame, expected)
        assert frame["qty"].to_list()[:2] == [1, 2]
        assert frame["qty"].to_list()[-1] == 3500
    # A filter and a projection across the files read at once.
    lazy = sheetstream.scan_excel(pattern, threads=2, batch_size=64)
    small = lazy.filter(pl.col("qty") % 100 == 0).select("qty", "name").collect()
    assert small["qty"].to_list() == [n * 100 + 1000 * f for f in range(4) for n in range(1, 6)]
    assert small["name"].to_list()[0] == "item-100"


def test_an_error_in_a_file_read_at_once_is_raised_naming_it(
    write_workbook: WriteWorkbook, tmp_path: pathlib.Path
) -> None:
    write_workbook(sales(rows=1200), name="a.xlsx")
    bad = write_workbook(sales(rows=1200, misfit_at=1100), name="b.xlsx")
    write_workbook(sales(rows=1200), name="c.xlsx")
    lazy = sheetstream.scan_excel(str(tmp_path / "*.xlsx"), threads=3, batch_size=100)
    with pytest.raises(sheetstream.ConversionError) as info:
        lazy.collect()
    assert info.value.file == str(bad)
    assert "twelve" in str(info.value)


def test_skip_unreadable(write_workbook: WriteWorkbook, tmp_path: pathlib.Path) -> None:
    good = write_workbook(sales(rows=20), name="good.xlsx")
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"not a zip file at all")

    def other(workbook: Any) -> None:
        workbook.add_worksheet("Other").write_row(0, 0, ["name", "qty"])

    no_data = write_workbook(other, name="no_data.xlsx")
    with pytest.warns(sheetstream.SkippedWarning) as caught:
        lazy = sheetstream.scan_excel([broken, good, no_data], sheet="Data", skip_unreadable=True)
    skipped = caught[0].message.skipped  # type: ignore[union-attr]
    assert [(item.file, item.sheet) for item in skipped] == [
        (str(broken), None),
        (str(no_data), None),
    ]
    assert isinstance(skipped[0].error, sheetstream.Error)
    assert isinstance(skipped[1].error, sheetstream.SheetNotFoundError)
    assert skipped[1].error.file == str(no_data)
    assert "scan_excel skipped 2 unreadable files or sheets" in str(caught[0].message)
    frame = lazy.collect()
    assert_frame_equal(frame, sheetstream.read_excel(good))
    assert frame["qty"].sum() == 210
    # Without it, the first unreadable file fails the scan.
    with pytest.raises(sheetstream.Error) as info:
        sheetstream.scan_excel([good, broken])
    assert str(broken) in str(info.value)


def test_skip_unreadable_skips_a_sheet_whose_rows_cannot_be_read(
    write_workbook: WriteWorkbook, tmp_path: pathlib.Path
) -> None:
    import zipfile

    def two(workbook: Any) -> None:
        sales(rows=5)(workbook)
        workbook.add_worksheet("Bad").write_row(0, 0, ["a", "b"])

    source = write_workbook(two, name="two.xlsx")
    broken = tmp_path / "broken_sheet.xlsx"
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(broken, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/worksheets/sheet2.xml":
                data = data.replace(b"<sheetData>", b"<sheetData><row r=\"1\"><c r=\"A1\" t=\"n\"><v>1</v")
            zout.writestr(item, data)
    with pytest.raises(sheetstream.Error):
        sheetstream.scan_excel(broken, sheet=None)
    with pytest.warns(sheetstream.SkippedWarning) as caught:
        lazy = sheetstream.scan_excel(broken, sheet=None, skip_unreadable=True)
    skipped = caught[0].message.skipped  # type: ignore[union-attr]
    assert [(item.file, item.sheet) for item in skipped] == [(str(broken), "Bad")]
    assert lazy.collect()["qty"].to_list() == [1, 2, 3, 4, 5]
