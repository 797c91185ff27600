"""Workbooks in an S3 bucket (moto's server on 127.0.0.1) and behind HTTP
(a server of the tests' own that honours Range requests): values, the
bytes fetched (ranged reads, not downloads), globs over a prefix, errors
naming the URL."""

from __future__ import annotations

import io
import pathlib
import subprocess
import sys
from typing import Iterator

import pytest

import sheetstream
from servers import RangeServer, S3Server, running

pytest.importorskip("fsspec")
pytest.importorskip("aiohttp")

EIGHT_SHEET_ROWS = 10_000
COLUMNS = 8


def eight_sheets(path: pathlib.Path) -> pathlib.Path:
    """Eight sheets of 10,000 rows x 8 columns of scattered numbers (each
    sheet's part about an eighth of the file), written by xlsxwriter."""
    import xlsxwriter

    workbook = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    for index in range(8):
        sheet = workbook.add_worksheet(f"S{index}")
        sheet.write_row(0, 0, [f"c{column}" for column in range(COLUMNS)])
        for row in range(1, EIGHT_SHEET_ROWS + 1):
            sheet.write_row(row, 0, [value(index, row, column) for column in range(COLUMNS)])
    workbook.close()
    return path


def value(sheet: int, row: int, column: int) -> float:
    """A number exact in binary, scattered so that the parts compress
    little."""
    return sheet * 1e7 + (row * 7919 + column * 104729) % 1000003 + column * 0.25


def small(path: pathlib.Path, region: str, amounts: list[int]) -> pathlib.Path:
    import xlsxwriter

    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet("Data")
    sheet.write_row(0, 0, ["region", "amount"])
    for row, amount in enumerate(amounts, start=1):
        sheet.write_row(row, 0, [region, amount])
    workbook.close()
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    root = tmp_path_factory.mktemp("served")
    eight_sheets(root / "eight.xlsx")
    (root / "reports").mkdir()
    small(root / "reports" / "north.xlsx", "North", [1, 2, 3])
    small(root / "reports" / "south.xlsx", "South", [4, 5])
    (root / "reports" / "notes.txt").write_text("not a workbook")
    return root


@pytest.fixture(scope="module")
def http(files: pathlib.Path) -> Iterator[RangeServer]:
    yield from running(RangeServer(files))


@pytest.fixture(scope="module")
def s3(files: pathlib.Path) -> Iterator[S3Server]:
    pytest.importorskip("moto")
    pytest.importorskip("s3fs")
    server = S3Server()
    fs = server.filesystem()
    server.create_bucket("books")
    for file in sorted(files.rglob("*")):
        if file.is_file():
            fs.put_file(str(file), f"books/{file.relative_to(files).as_posix()}")
    yield from running(server)


def expected_sheet(index: int) -> list[float]:
    return [value(index, row, 0) for row in range(1, EIGHT_SHEET_ROWS + 1)]


def test_one_sheet_of_eight_fetches_about_an_eighth_over_s3(s3: S3Server, files: pathlib.Path) -> None:
    size = (files / "eight.xlsx").stat().st_size
    assert size > 2 * 1024 * 1024  # read by ranges, not fetched whole
    with sheetstream.open("s3://books/eight.xlsx", storage_options=s3.storage_options) as workbook:
        assert workbook.sheet_names == [f"S{index}" for index in range(8)]
        opened = workbook.bytes_fetched
        assert opened is not None and opened < size / 8
        frame = workbook.sheet("S5").to_polars()
        fetched = workbook.bytes_fetched
    assert frame["c0"].to_list() == expected_sheet(5)
    assert frame.width == COLUMNS
    # The sheet's part is about a ninth of the file; the directory, the
    # workbook part and the styles come on top.
    assert fetched is not None
    assert size / 10 < fetched < size / 8 + 300_000, (fetched, size)


def test_every_sheet_over_http_by_ranges_in_parallel(http: RangeServer, files: pathlib.Path) -> None:
    size = (files / "eight.xlsx").stat().st_size
    before = http.sent_for.get("/eight.xlsx", 0)
    frame = sheetstream.read_excel(f"{http.url}/eight.xlsx", sheet=None, sheet_column="sheet", threads=4)
    assert frame.height == 8 * EIGHT_SHEET_ROWS
    for index in range(8):
        rows = frame.filter(frame["sheet"] == f"S{index}")["c0"].to_list()
        assert rows == expected_sheet(index)
    # Every part once (a read-ahead never runs into the next part), not
    # the file many times over.
    assert size * 0.9 < http.sent_for["/eight.xlsx"] - before < size * 1.2
    assert all("bytes=" in request for request in http.requests)


def test_workbook_counts_bytes_over_http(http: RangeServer) -> None:
    with sheetstream.open(f"{http.url}/eight.xlsx") as workbook:
        table = workbook.sheet(2, columns="A:B").to_arrow()
        assert table.column("c1").to_pylist()[:2] == [value(2, 1, 1), value(2, 2, 1)]
        assert workbook.bytes_fetched is not None and workbook.bytes_fetched > 0
    # A local path fetches nothing remotely.
    assert sheetstream.open(str(http.root / "eight.xlsx")).bytes_fetched is None


def test_glob_over_a_bucket_prefix(s3: S3Server) -> None:
    frame = sheetstream.read_excel(
        "s3://books/reports/*.xlsx", storage_options=s3.storage_options, file_column="file"
    )
    assert frame["file"].to_list() == ["s3://books/reports/north.xlsx"] * 3 + ["s3://books/reports/south.xlsx"] * 2
    assert frame["amount"].to_list() == [1, 2, 3, 4, 5]
    lazy = sheetstream.scan_excel("s3://books/**/*h.xlsx", storage_options=s3.storage_options, file_column="file")
    import polars as pl

    assert lazy.filter(pl.col("amount") > 2).collect()["region"].to_list() == ["North", "South", "South"]
    with pytest.raises(FileNotFoundError, match="s3://books/none/\\*.xlsx"):
        sheetstream.read_excel("s3://books/none/*.xlsx", storage_options=s3.storage_options)


def test_fsspec_file_objects_are_read_by_ranges(s3: S3Server) -> None:
    fs = s3.filesystem()
    with fs.open("books/eight.xlsx", "rb") as file:
        workbook = sheetstream.open(file)
        assert workbook.sheet("S1").to_polars()["c0"].to_list() == expected_sheet(1)
        size = fs.size("books/eight.xlsx")
        assert workbook.bytes_fetched is not None and workbook.bytes_fetched < size / 4


def test_seekable_file_objects_are_read_by_ranges(files: pathlib.Path) -> None:
    data = (files / "eight.xlsx").read_bytes()
    workbook = sheetstream.open(io.BytesIO(data))
    frame = sheetstream.read_excel(io.BytesIO(data), sheet=["S7", "S0"], threads=2)
    assert frame["c0"].to_list() == expected_sheet(7) + expected_sheet(0)
    assert workbook.sheet("S3").to_polars()["c0"].to_list() == expected_sheet(3)
    assert workbook.bytes_fetched is not None and workbook.bytes_fetched < len(data) / 4


def test_small_objects_are_fetched_whole(http: RangeServer, files: pathlib.Path) -> None:
    start = len(http.requests)
    with sheetstream.open(f"{http.url}/reports/north.xlsx") as workbook:
        assert workbook.sheet(0).to_polars()["amount"].to_list() == [1, 2, 3]
        assert workbook.bytes_fetched == (files / "reports" / "north.xlsx").stat().st_size
    assert len([r for r in http.requests[start:] if r.startswith("/reports/north.xlsx")]) == 1


def test_a_missing_key_names_the_url(s3: S3Server, http: RangeServer) -> None:
    with pytest.raises(FileNotFoundError, match="s3://books/missing.xlsx") as caught:
        sheetstream.open("s3://books/missing.xlsx", storage_options=s3.storage_options)
    assert isinstance(caught.value, sheetstream.FileNotFoundError)
    assert caught.value.file == "s3://books/missing.xlsx"
    with pytest.raises(FileNotFoundError, match="s3://no-such-bucket/a.xlsx"):
        sheetstream.read_excel("s3://no-such-bucket/a.xlsx", storage_options=s3.storage_options)
    with pytest.raises(FileNotFoundError, match=f"{http.url}/gone.xlsx"):
        sheetstream.open(f"{http.url}/gone.xlsx")


def test_a_denied_object_names_the_url(http: RangeServer) -> None:
    url = f"{http.url}/denied/eight.xlsx"
    with pytest.raises(OSError, match=url):
        sheetstream.open(url)


def test_a_truncated_object_names_the_url(http: RangeServer) -> None:
    url = f"{http.url}/truncated/eight.xlsx"
    with pytest.raises(sheetstream.Error, match="truncated") as caught:
        with sheetstream.open(url) as workbook:
            workbook.sheet("S7").to_polars()
    assert url in str(caught.value)


def test_a_server_that_ignores_ranges(http: RangeServer, files: pathlib.Path) -> None:
    # The whole object came for the first range: kept, and every other
    # range cut from it (no wrong bytes, one download).
    with sheetstream.open(f"{http.url}/norange/eight.xlsx") as workbook:
        assert workbook.sheet("S4").to_polars()["c0"].to_list() == expected_sheet(4)
    assert http.sent_for["/norange/eight.xlsx"] == (files / "eight.xlsx").stat().st_size


def test_a_prefix_is_no_workbook(s3: S3Server) -> None:
    with pytest.raises(IsADirectoryError, match="s3://books/reports"):
        sheetstream.open("s3://books/reports", storage_options=s3.storage_options)


def test_a_url_without_fsspec_says_what_to_install() -> None:
    # A child process where fsspec cannot be imported; a local path still
    # opens (and never imports fsspec).
    code = (
        "import sys; sys.modules['fsspec'] = None\n"
        "import sheetstream\n"
        "try:\n"
        "    sheetstream.open('s3://bucket/book.xlsx')\n"
        "except ImportError as err:\n"
        "    print(err)\n"
        "try:\n"
        "    sheetstream.open('/nonexistent.xlsx')\n"
        "except FileNotFoundError:\n"
        "    print('local', 'fsspec' in sys.modules and sys.modules['fsspec'] is not None)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "reading s3://bucket/book.xlsx needs fsspec: pip install fsspec s3fs"
    assert lines[1] == "local False"


def test_read_excel_sheets_and_storage_options(s3: S3Server) -> None:
    sheets = sheetstream.read_excel_sheets(
        "s3://books/eight.xlsx", ["S6"], storage_options=s3.storage_options, to="pyarrow"
    )
    assert sheets["S6"].column("c0").to_pylist() == expected_sheet(6)


