"""Workbook.sheet: typed columns, values through every consumer, options."""

from __future__ import annotations

import datetime as dt
import pathlib

import pytest

import sheetstream
from conftest import WriteWorkbook

ROWS = 300


def expected_row(i: int) -> tuple[object, ...]:
    """Row i (0-based) of the typed sheet, as iter_rows gives it."""
    return (
        i + 1,                                               # id: Int64
        i * 0.25,                                            # price: Float64
        f"item {i}",                                         # name: Utf8
        i % 3 == 0,                                          # flag: Boolean
        dt.date(2024, 1, 1) + dt.timedelta(days=i),          # day: Date32
        dt.datetime(2024, 1, 1, 8, 30) + dt.timedelta(hours=i),  # stamp: Timestamp(ms)
        dt.timedelta(hours=30 + i, minutes=15),              # elapsed: Duration(ms)
        dt.time(i % 24, 5, 10),                              # clock: Time32(ms)
        None if i % 2 else f"odd {i}",                       # sparse: Utf8 with nulls
    )


COLUMNS = ["id", "price", "name", "flag", "day", "stamp", "elapsed", "clock", "sparse"]


def typed(workbook) -> None:  # type: ignore[no-untyped-def]
    sheet = workbook.add_worksheet("Typed")
    date = workbook.add_format({"num_format": "yyyy-mm-dd"})
    stamp = workbook.add_format({"num_format": "yyyy-mm-dd hh:mm:ss"})
    elapsed = workbook.add_format({"num_format": "[h]:mm"})
    clock = workbook.add_format({"num_format": "hh:mm:ss"})
    sheet.write_row(0, 0, COLUMNS)
    for i in range(ROWS):
        row = expected_row(i)
        r = i + 1
        sheet.write_number(r, 0, row[0])
        sheet.write_number(r, 1, row[1])
        sheet.write_string(r, 2, row[2])
        sheet.write_boolean(r, 3, row[3])
        sheet.write_datetime(r, 4, dt.datetime.combine(row[4], dt.time()), date)
        sheet.write_datetime(r, 5, row[5], stamp)
        sheet.write_number(r, 6, row[6].total_seconds() / 86400, elapsed)
        sheet.write_datetime(r, 7, row[7], clock)
        if row[8] is not None:
            sheet.write_string(r, 8, row[8])
    other = workbook.add_worksheet("Other")
    other.write_row(0, 0, ["a", "b"])
    other.write_row(1, 0, [1, "x"])


@pytest.fixture
def book(write_workbook: WriteWorkbook) -> pathlib.Path:
    return write_workbook(typed)


def test_schema_types(book: pathlib.Path) -> None:
    import pyarrow as pa

    sheet = sheetstream.open(book).sheet("Typed")
    assert sheet.name == "Typed"
    assert sheet.column_names == COLUMNS
    assert sheet.schema == pa.schema(
        [
            ("id", pa.int64()),
            ("price", pa.float64()),
            ("name", pa.string()),
            ("flag", pa.bool_()),
            ("day", pa.date32()),
            ("stamp", pa.timestamp("ms")),
            ("elapsed", pa.duration("ms")),
            ("clock", pa.time32("ms")),
            ("sparse", pa.string()),
        ]
    )


def test_iter_rows_python_values(book: pathlib.Path) -> None:
    rows = list(sheetstream.open(book).sheet(0).iter_rows())
    assert rows == [expected_row(i) for i in range(ROWS)]
    assert type(rows[0][0]) is int and type(rows[0][1]) is float


def test_pyarrow(book: pathlib.Path) -> None:
    import pyarrow as pa

    expected = [expected_row(i) for i in range(ROWS)]
    sheet = sheetstream.open(book).sheet("Typed")
    for table in (
        sheet.to_arrow(),
        pa.table(sheet),
        pa.RecordBatchReader.from_stream(sheet).read_all(),
    ):
        assert table.schema == sheet.schema
        assert [tuple(row.values()) for row in table.to_pylist()] == expected


def test_polars(book: pathlib.Path) -> None:
    import polars as pl

    sheet = sheetstream.open(book).sheet("Typed")
    for frame in (sheet.to_polars(), pl.DataFrame(sheet)):
        assert frame.columns == COLUMNS
        assert frame.dtypes[:4] == [pl.Int64, pl.Float64, pl.String, pl.Boolean]
        assert frame.dtypes[4] == pl.Date
        assert frame.rows() == [expected_row(i) for i in range(ROWS)]
    assert (
        sheetstream.read_excel(book, "Typed").rows()
        == [expected_row(i) for i in range(ROWS)]
    )


def test_pandas(book: pathlib.Path) -> None:
    import pandas as pd

    frame = sheetstream.open(book).sheet("Typed").to_pandas()
    assert list(frame.columns) == COLUMNS
    assert frame["id"].dtype == "int64"
    assert frame["id"].tolist() == list(range(1, ROWS + 1))
    assert frame["price"].tolist() == [i * 0.25 for i in range(ROWS)]
    assert frame["stamp"].iloc[3] == pd.Timestamp("2024-01-01 11:30")
    assert frame["sparse"].isna().sum() == ROWS // 2
    again = sheetstream.read_excel(book, "Typed", to="pandas")
    assert again["name"].tolist() == frame["name"].tolist()


def test_duckdb(book: pathlib.Path) -> None:
    import duckdb

    sheet = sheetstream.open(book).sheet("Typed")
    result = duckdb.sql("select count(*), sum(id), max(day), min(name) from sheet").fetchall()
    assert result == [(ROWS, ROWS * (ROWS + 1) // 2, dt.date(2024, 1, 1) + dt.timedelta(days=ROWS - 1), "item 0")]


def test_iter_batches(book: pathlib.Path) -> None:
    sheet = sheetstream.open(book).sheet("Typed", batch_size=64)
    batches = list(sheet.iter_batches())
    assert [b.num_rows for b in batches] == [64, 64, 64, 64, 44]
    assert batches[1].column(0).to_pylist() == list(range(65, 129))
    assert all(b.schema == sheet.schema for b in batches)


def test_every_consumer_reads_anew(book: pathlib.Path) -> None:
    sheet = sheetstream.open(book).sheet("Typed")
    assert len(sheet.to_arrow()) == ROWS
    assert len(sheet.to_arrow()) == ROWS
    assert sum(1 for _ in sheet.iter_rows()) == ROWS


# ---- options ----------------------------------------------------------------


def test_header_options(book: pathlib.Path) -> None:
    workbook = sheetstream.open(book)
    no_header = workbook.sheet("Other", header_row=None)
    assert no_header.column_names == ["column_1", "column_2"]
    assert list(no_header.iter_rows()) == [("a", "b"), ("1", "x")]
    second = workbook.sheet("Other", header_row=1)
    assert second.column_names == ["1", "x"]
    assert list(second.iter_rows()) == []
    assert workbook.sheet("Other", header_row="auto").column_names == ["a", "b"]
    with pytest.raises(ValueError, match="header_row"):
        workbook.sheet("Other", header_row="first")


def test_rows_options(book: pathlib.Path) -> None:
    workbook = sheetstream.open(book)
    sheet = workbook.sheet("Typed", n_rows=10)
    assert [row[0] for row in sheet.iter_rows()] == list(range(1, 11))
    skipped = workbook.sheet("Typed", skip_rows=5, header_row=None)
    # The first row after the 5 skipped is data row 5 (id 5).
    assert next(iter(skipped.iter_rows()))[0] == 5


def test_column_selection(book: pathlib.Path) -> None:
    workbook = sheetstream.open(book)
    by_spec = workbook.sheet("Typed", columns="C,A")
    assert by_spec.column_names == ["name", "id"]
    assert next(iter(by_spec.iter_rows())) == ("item 0", 1)
    by_list = workbook.sheet("Typed", columns=["price", 3])
    assert by_list.column_names == ["price", "flag"]
    assert list(by_list.iter_rows())[3] == (0.75, True)
    with pytest.raises(sheetstream.Error, match="nope"):
        workbook.sheet("Typed", columns=["nope"])


def test_dtypes_overrides(book: pathlib.Path) -> None:
    import pyarrow as pa

    sheet = sheetstream.open(book).sheet("Typed", dtypes={"id": float, "flag": "utf8", "day": dt.datetime})
    schema = sheet.schema
    assert schema.field("id").type == pa.float64()
    assert schema.field("flag").type == pa.string()
    assert schema.field("day").type == pa.timestamp("ms")
    first = next(iter(sheet.iter_rows()))
    assert first[0] == 1.0 and type(first[0]) is float
    assert first[3] == "TRUE"
    assert first[4] == dt.datetime(2024, 1, 1)
    with pytest.raises(ValueError, match="unknown column type"):
        sheetstream.open(book).sheet("Typed", dtypes={"id": "decimal"})


def late_text(workbook) -> None:  # type: ignore[no-untyped-def]
    sheet = workbook.add_worksheet("Late")
    sheet.write_row(0, 0, ["n", "label"])
    for r in range(1, 21):
        sheet.write_row(r, 0, [r, "n/a" if r == 4 else f"l{r}"])
    sheet.write_string(21, 0, "twenty-one")


def test_strict_coerce_and_null_values(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(late_text)
    workbook = sheetstream.open(path)
    coerced = workbook.sheet("Late", schema_sample_rows=10, on_mismatch="null")
    with pytest.warns(sheetstream.CoercionWarning, match="cell A22"):
        rows = list(coerced.iter_rows())
    assert rows[-1] == (None, None)  # the text after the sample does not fit Int64
    assert rows[2] == (3, "l3") and rows[3] == (4, "n/a")
    # By default a stream fails on it (its schema is out), as strict does.
    for options in ({}, {"strict": True}, {"on_mismatch": "strict"}):
        with pytest.raises(sheetstream.CellError) as caught:
            list(workbook.sheet("Late", schema_sample_rows=10, **options).iter_rows())
        err = caught.value
        assert (err.sheet, err.row, err.column) == ("Late", 22, 1)
        assert "twenty-one" in str(err)
    # A whole-table read widens the column to text.
    widened = workbook.sheet("Late", schema_sample_rows=10).to_arrow()
    assert widened["n"].to_pylist()[-1] == "twenty-one" and widened["n"].to_pylist()[0] == "1"
    nulls = list(workbook.sheet("Late", null_values=["n/a"]).iter_rows())
    assert nulls[3] == ("4", None)  # the whole column is text: the sample saw "twenty-one"


def test_unknown_option(book: pathlib.Path) -> None:
    with pytest.raises(TypeError, match='unexpected option "header"'):
        sheetstream.open(book).sheet(0, header=0)
    with pytest.raises(ValueError, match="batch_size"):
        sheetstream.open(book).sheet(0, batch_size=0)


def test_sheet_not_found(book: pathlib.Path) -> None:
    workbook = sheetstream.open(book)
    with pytest.raises(sheetstream.SheetNotFoundError, match="Nope"):
        workbook.sheet("Nope")
    with pytest.raises(sheetstream.SheetNotFoundError):
        workbook.sheet(7)
