"""`read_sheet` on OpenDocument spreadsheets (issue 44): the sample
examples/ods/sales.ods, LibreOffice's conversion of
examples/data/sales.xlsx, alone, with a projection, and united with the
.xlsx it came from.

The extension file: $SHEETSTREAM_DUCKDB_EXTENSION, or
target/release/sheetstream.duckdb_extension (as test_read_sheet.py)."""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Iterator

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = Path(
    os.environ.get(
        "SHEETSTREAM_DUCKDB_EXTENSION",
        ROOT / "target" / "release" / "sheetstream.duckdb_extension",
    )
)
ODS = ROOT / "examples" / "ods" / "sales.ods"
XLSX = ROOT / "examples" / "data" / "sales.xlsx"


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    if not EXTENSION.is_file():
        pytest.fail(f"{EXTENSION} is missing: build it as duckdb/README.md says")
    connection = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    connection.execute(f"LOAD '{EXTENSION}'")
    yield connection
    connection.close()


def test_read_sheet_reads_an_ods_with_its_types(con: duckdb.DuckDBPyConnection) -> None:
    relation = con.sql(f"select * from read_sheet('{ODS}') order by Amount")
    assert relation.columns == ["Item", "Amount", "Sold on", "In stock", "Doubled"]
    assert [str(t) for t in relation.types[:3]] == ["VARCHAR", "BIGINT", "DATE"]
    assert relation.fetchall() == [
        ("apples", 10, datetime.date(2024, 3, 1), 1, 20),
        ("pears", 20, datetime.date(2024, 3, 2), 0, None),
        ("plums", 30, datetime.date(2024, 3, 5), 1, None),
    ]


def test_an_ods_and_an_xlsx_in_one_query(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        f"select filename, sum(Amount) from read_sheet(['{XLSX}', '{ODS}'], filename := true) "
        "group by filename order by filename"
    ).fetchall()
    assert rows == sorted([(str(XLSX), 60), (str(ODS), 60)])
    # A projection reads the one column asked for.
    assert con.execute(f"select sum(Amount) from read_sheet('{ODS}')").fetchall() == [(60,)]
