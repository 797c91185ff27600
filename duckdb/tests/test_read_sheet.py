"""SQL against the sheetstream DuckDB extension (`read_sheet`), on
workbooks these tests write with xlsxwriter.

The extension file: $SHEETSTREAM_DUCKDB_EXTENSION, or
target/release/sheetstream.duckdb_extension (built by `.ci/run`; see
duckdb/README.md).
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterator

import duckdb
import pytest
import xlsxwriter

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = Path(
    os.environ.get(
        "SHEETSTREAM_DUCKDB_EXTENSION",
        ROOT / "target" / "release" / "sheetstream.duckdb_extension",
    )
)


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    if not EXTENSION.is_file():
        pytest.fail(f"{EXTENSION} is missing: build it as duckdb/README.md says")
    connection = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    connection.execute(f"LOAD '{EXTENSION}'")
    yield connection
    connection.close()


def one(con: duckdb.DuckDBPyConnection, sql: str) -> Any:
    row = con.execute(sql).fetchone()
    assert row is not None
    return row


def write_sales(path: Path, rows: int, start: int = 0, extra: bool = False) -> None:
    """Item, Amount (whole), Price (fraction), Sold on (dates), In stock,
    At (time of day), Took ([h]:mm), Stamp (date and time); `extra` adds
    a column Extra between Item and Amount."""
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Data")
    date = book.add_format({"num_format": "yyyy-mm-dd"})
    time = book.add_format({"num_format": "hh:mm:ss"})
    elapsed = book.add_format({"num_format": "[h]:mm:ss"})
    stamp = book.add_format({"num_format": "yyyy-mm-dd hh:mm"})
    names = ["Item"] + (["Extra"] if extra else []) + ["Amount", "Price", "Sold on", "In stock", "At", "Took", "Stamp"]
    sheet.write_row(0, 0, names)
    for r in range(rows):
        n = start + r
        row = r + 1
        col = 0
        sheet.write_string(row, col, f"item{n}")
        col += 1
        if extra:
            sheet.write_string(row, col, f"x{n}")
            col += 1
        sheet.write_number(row, col, n)
        sheet.write_number(row, col + 1, n + 0.5)
        sheet.write_datetime(row, col + 2, datetime.datetime(2024, 3, 1) + datetime.timedelta(days=n), date)
        sheet.write_boolean(row, col + 3, n % 2 == 0)
        sheet.write_datetime(row, col + 4, datetime.time(13, 45, n % 60), time)
        sheet.write_number(row, col + 5, 1 + n / 24, elapsed)
        sheet.write_datetime(row, col + 6, datetime.datetime(2024, 3, 1, 12, 30) + datetime.timedelta(days=n), stamp)
    book.close()


@pytest.fixture(scope="module")
def sales(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sales") / "sales.xlsx"
    write_sales(path, 5000)
    return path


def test_count_and_sum(con: duckdb.DuckDBPyConnection, sales: Path) -> None:
    count, total, price = one(con, f"select count(*), sum(Amount), sum(Price) from read_sheet('{sales}')")
    assert count == 5000
    assert total == sum(range(5000))
    assert price == pytest.approx(sum(range(5000)) + 2500)


def test_types_are_the_arrow_layers(con: duckdb.DuckDBPyConnection, sales: Path) -> None:
    described = con.execute(f"describe select * from read_sheet('{sales}')").fetchall()
    types = {name: ty for name, ty, *_ in described}
    assert types == {
        "Item": "VARCHAR",
        "Amount": "BIGINT",
        "Price": "DOUBLE",
        "Sold on": "DATE",
        "In stock": "BOOLEAN",
        "At": "TIME",
        "Took": "INTERVAL",
        "Stamp": "TIMESTAMP",
    }
    row = one(con, f"select * from read_sheet('{sales}') where Amount = 3")
    assert row == (
        "item3",
        3,
        3.5,
        datetime.date(2024, 3, 4),
        False,
        datetime.time(13, 45, 3),
        datetime.timedelta(days=1, hours=3),
        datetime.datetime(2024, 3, 4, 12, 30),
    )
    first = one(con, f"select min(\"Sold on\"), max(\"Sold on\") from read_sheet('{sales}')")
    assert first == (datetime.date(2024, 3, 1), datetime.date(2024, 3, 1) + datetime.timedelta(days=4999))


def test_projection(con: duckdb.DuckDBPyConnection, sales: Path) -> None:
    rows = con.execute(f"select Price, Item from read_sheet('{sales}') order by Price limit 2").fetchall()
    assert rows == [(0.5, "item0"), (1.5, "item1")]


def test_projection_is_pushed_into_the_reader(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    # Column B is whole numbers in the sampled row, then a text: a value
    # the schema does not take. Reading B fails; a query that does not use
    # B never reads its cells, so it does not.
    path = tmp_path / "late.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, ["A", "B"])
    sheet.write_row(1, 0, [1, 10])
    sheet.write_row(2, 0, [2, "late text"])
    book.close()
    assert one(con, f"select sum(A) from read_sheet('{path}', sample_size := 1)") == (3,)
    with pytest.raises(duckdb.Error) as failure:
        con.execute(f"select sum(B) from read_sheet('{path}', sample_size := 1)").fetchall()
    message = str(failure.value)
    assert "late text" in message and "late.xlsx" in message, message
    assert "sample_size := -1" in message and "cell B3" in message, message
    assert "schema_sample_rows" not in message, "the advice in DuckDB's words only"
    # What the message offers works.
    assert one(con, f"select typeof(B) from read_sheet('{path}', sample_size := -1) limit 1") == ("VARCHAR",)
    assert con.execute(f"select B from read_sheet('{path}', sample_size := 1, ignore_errors := true)").fetchall() == [
        (10,),
        (None,),
    ]


def test_count_star_and_constant_columns_only(con: duckdb.DuckDBPyConnection, sales: Path) -> None:
    assert one(con, f"select count(*) from read_sheet('{sales}', filename := true)") == (5000,)
    rows = con.execute(f"select filename, count(*) from read_sheet('{sales}', filename := true) group by all").fetchall()
    assert rows == [(str(sales), 5000)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("reports")
    write_sales(folder / "a.xlsx", 3000, start=0)
    write_sales(folder / "b.xlsx", 2000, start=3000, extra=True)
    write_sales(folder / "c.xlsx", 1000, start=5000)
    return folder


def test_glob_union_by_name_and_filename(con: duckdb.DuckDBPyConnection, folder: Path) -> None:
    source = f"read_sheet('{folder}/*.xlsx', union_by_name := true, filename := true)"
    count, total = one(con, f"select count(*), sum(Amount) from {source}")
    assert (count, total) == (6000, sum(range(6000)))
    per_file = con.execute(
        f"select filename, count(*), count(Extra), min(Amount) from {source} group by filename order by filename"
    ).fetchall()
    assert per_file == [
        (str(folder / "a.xlsx"), 3000, 0, 0),
        (str(folder / "b.xlsx"), 2000, 2000, 3000),
        (str(folder / "c.xlsx"), 1000, 0, 5000),
    ]
    names = [row[0] for row in con.execute(f"describe select * from {source}").fetchall()]
    assert names[:3] == ["filename", "Item", "Amount"] and "Extra" in names


def test_glob_without_union_by_name_says_so(con: duckdb.DuckDBPyConnection, folder: Path) -> None:
    with pytest.raises(duckdb.Error, match="union_by_name"):
        con.execute(f"select count(*) from read_sheet('{folder}/*.xlsx')").fetchall()


def test_list_of_files(con: duckdb.DuckDBPyConnection, folder: Path) -> None:
    files = f"['{folder / 'a.xlsx'}', '{folder / 'c.xlsx'}']"
    assert one(con, f"select count(*), sum(Amount) from read_sheet({files})") == (
        4000,
        sum(range(3000)) + sum(range(5000, 6000)),
    )


def test_parallel_scan_on_threads(con: duckdb.DuckDBPyConnection, folder: Path) -> None:
    con.execute("set threads = 4")
    try:
        source = f"read_sheet('{folder}/*.xlsx', union_by_name := true)"
        amounts = [row[0] for row in con.execute(f"select Amount from {source}").fetchall()]
        assert sorted(amounts) == list(range(6000))
    finally:
        con.execute("reset threads")


def test_bad_file_in_a_glob_is_named(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    write_sales(tmp_path / "good.xlsx", 10)
    (tmp_path / "bad.xlsx").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(duckdb.Error) as failure:
        con.execute(f"select count(*) from read_sheet('{tmp_path}/*.xlsx')").fetchall()
    assert str(tmp_path / "bad.xlsx") in str(failure.value), str(failure.value)


def test_sheets_header_columns_and_all_varchar(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    path = tmp_path / "two.xlsx"
    book = xlsxwriter.Workbook(str(path))
    for name, base in (("North", 1), ("South", 100)):
        sheet = book.add_worksheet(name)
        sheet.write_row(0, 0, ["City", "Sales", "Note"])
        sheet.write_row(1, 0, [f"{name}-1", base, "n"])
        sheet.write_row(2, 0, [f"{name}-2", base + 1, "na"])
    book.close()
    assert one(con, f"select sum(Sales) from read_sheet('{path}')") == (3,)
    assert one(con, f"select sum(Sales) from read_sheet('{path}', sheet := 'South')") == (201,)
    rows = con.execute(
        f"select sheet, sum(Sales) from read_sheet('{path}', sheet := '*', sheet_column := true) group by sheet order by sheet"
    ).fetchall()
    assert rows == [("North", 3), ("South", 201)]
    assert con.execute(f"select * from read_sheet('{path}', sheet := ['South'], columns := ['Sales'])").fetchall() == [
        (100,),
        (101,),
    ]
    assert con.execute(f"select * from read_sheet('{path}', columns := 'B,A')").fetchall() == [
        (1, "North-1"),
        (2, "North-2"),
    ]
    assert one(con, f"select count(*), first(column_1) from read_sheet('{path}', header := false)") == (3, "City")
    assert one(con, f"select typeof(min(Sales)), min(Sales) from read_sheet('{path}', all_varchar := true)") == (
        "VARCHAR",
        "1",
    )
    assert con.execute(f"select Note from read_sheet('{path}', nullstr := 'na')").fetchall() == [("n",), (None,)]
    # skip: rows left out before the header (the header row itself here).
    assert con.execute(f"select * from read_sheet('{path}', skip := 1)").fetchall() == [
        ("North-2", 2, "na"),
    ]
    assert one(con, f"select source from read_sheet('{path}', filename := 'source') limit 1") == (str(path),)


def test_types_by_name_by_position_and_read_csvs_spellings(
    con: duckdb.DuckDBPyConnection, sales: Path
) -> None:
    # By name (a struct, as read_csv takes it): Amount as text, Price whole
    # numbers are not asked for; a name with a quote and a comma in it.
    row = one(
        con,
        f"select typeof(Amount), Amount, typeof(Price), Price from read_sheet('{sales}', "
        "types := {'Amount': 'VARCHAR', 'Price': 'DOUBLE'}) where Item = 'item7'",
    )
    assert row == ("VARCHAR", "7", "DOUBLE", 7.5)
    assert one(con, f"select sum(Amount::BIGINT) from read_sheet('{sales}', dtypes := {{'Amount': 'VARCHAR'}})") == (
        sum(range(5000)),
    )
    # By position (a list): the first columns in order, the others inferred.
    row = one(
        con,
        f"select typeof(Item), typeof(Amount), Amount, typeof(Price) from read_sheet('{sales}', "
        "column_types := ['VARCHAR', 'DOUBLE']) where Item = 'item3'",
    )
    assert row == ("VARCHAR", "DOUBLE", 3.0, "DOUBLE")
    # A column name with a quote and a comma, and a date column as text.
    path = sales.parent / "odd.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Data")
    sheet.write_row(0, 0, ["it's, odd: yes", "n"])
    sheet.write_row(1, 0, [12, 3])
    book.close()
    assert one(con, f"""select * from read_sheet('{path}', types := {{'it''s, odd: yes': 'VARCHAR'}})""") == ("12", 3)
    # Mistakes are named.
    for options, said in (
        ("types := {'Nope': 'VARCHAR'}", "Nope"),
        ("types := {'Amount': 'HUGEINT'}", "HUGEINT is not a type read_sheet makes"),
        ("types := 'VARCHAR'", "types must be a struct"),
        ("types := ['VARCHAR'], dtypes := ['DOUBLE']", "give one of types, dtypes and column_types"),
        ("types := ['VARCHAR'], all_varchar := true", "give all_varchar or types, not both"),
        ("types := ['VARCHAR', 'VARCHAR', 'VARCHAR', 'VARCHAR', 'VARCHAR', 'VARCHAR', 'VARCHAR', 'VARCHAR', 'VARCHAR']",
         "lists 9 types for 8 columns"),
    ):
        with pytest.raises(duckdb.Error) as failure:
            con.execute(f"select * from read_sheet('{sales}', {options})").fetchall()
        assert said in str(failure.value), str(failure.value)
    # A value that does not fit the type given fails naming it (no value
    # is lost), or is nulled with ignore_errors.
    with pytest.raises(duckdb.Error) as failure:
        con.execute(f"select * from read_sheet('{sales}', types := {{'Item': 'DOUBLE'}})").fetchall()
    assert "item0" in str(failure.value), str(failure.value)
    assert one(
        con, f"select count(Item), count(*) from read_sheet('{sales}', types := {{'Item': 'DOUBLE'}}, ignore_errors := true)"
    ) == (0, 5000)


XLSB_SAMPLE = Path(os.environ.get("SHEETSTREAM_XLSB_SAMPLE", ROOT / "target" / "release" / "examples" / "write_xlsb_sample"))


def test_xlsb(con: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    """The .xlsb the bench's writer makes (examples/write_xlsb_sample.rs):
    the numbers of its first rows as its expected dump has them."""
    if not XLSB_SAMPLE.is_file():
        pytest.fail(f"{XLSB_SAMPLE} is missing: cargo build --release --example write_xlsb_sample")
    path = tmp_path / "sample.xlsb"
    subprocess.run([str(XLSB_SAMPLE), str(path)], check=True, capture_output=True)
    expected = {}
    for line in (tmp_path / "sample.expected.jsonl").read_text().splitlines():
        cell = json.loads(line)
        if cell["sheet"] == "Values":
            expected[cell["ref"]] = cell
    # One thread: the rows in the sheet's order.
    single = duckdb.connect(config={"allow_unsigned_extensions": "true", "threads": 1})
    single.execute(f"LOAD '{EXTENSION}'")
    rows = single.execute(
        f"select * from read_sheet('{path}', header := false, columns := 'A:D', all_varchar := true) limit 7"
    ).fetchall()
    single.close()
    assert len(rows) == 7
    for r, row in enumerate(rows, start=1):
        for c, text in zip("ABCD", row):
            cell = expected[f"{c}{r}"]
            assert cell["t"] == "n"
            assert float(text) == cell["v"], (c, r, text, cell)
    # The hidden sheet is there by name.
    assert one(con, f"select count(*) > 0 from read_sheet('{path}', sheet := 'Hidden sheet', header := false)") == (True,)


def test_xls(con: duckdb.DuckDBPyConnection, tmp_path: Path, sales: Path) -> None:
    """The sales workbook saved as .xls by LibreOffice: the same sums and
    types as the .xlsx."""
    if shutil.which("soffice") is None:
        pytest.fail("LibreOffice (soffice) is missing: .ci/run installs it")
    subprocess.run(
        ["soffice", "--headless", f"-env:UserInstallation=file://{tmp_path}/profile",
         "--convert-to", "xls", "--outdir", str(tmp_path), str(sales)],
        check=True, capture_output=True, timeout=180,
    )
    xls = tmp_path / "sales.xls"
    query = "select count(*), sum(Amount), sum(Price), min(\"Sold on\"), max(Stamp), min(Item), max(Item) from read_sheet('{}')"
    assert one(con, query.format(xls)) == one(con, query.format(sales))
    assert one(con, query.format(xls))[:3] == (5000, sum(range(5000)), sum(range(5000)) + 2500.0)
    # Globs over both formats at once, by name.
    both = con.execute(
        f"select filename, count(*) from read_sheet(['{sales}', '{xls}'], filename := true) group by filename order by filename"
    ).fetchall()
    assert both == sorted([(str(sales), 5000), (str(xls), 5000)])
