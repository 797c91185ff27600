"""`read_sheet(..., password := ...)` on encrypted workbooks: cases of the
encrypted conformance corpus (../shared/conformance/corpus-encrypted),
against the same query on the plain workbooks they were encrypted from.

The extension file: $SHEETSTREAM_DUCKDB_EXTENSION, or
target/release/sheetstream.duckdb_extension (as test_read_sheet.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = Path(
    os.environ.get(
        "SHEETSTREAM_DUCKDB_EXTENSION",
        ROOT / "target" / "release" / "sheetstream.duckdb_extension",
    )
)
CONFORMANCE = ROOT.parent / "shared" / "conformance"
GENERATED = CONFORMANCE / "corpus-encrypted" / "generated"

# (encrypted case, the plain workbook it was encrypted from)
PAIRS = [
    ("agile-aes256-sha512.xlsx", CONFORMANCE / "corpus" / "tidyxl" / "examples-gnumeric.xlsx"),
    ("xls-rc4-cryptoapi-128.xls", CONFORMANCE / "corpus-binary" / "csvkit" / "sheets.xls"),
]


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    if not EXTENSION.is_file():
        pytest.fail(f"{EXTENSION} is missing: build it as duckdb/README.md says")
    connection = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    connection.execute(f"LOAD '{EXTENSION}'")
    yield connection
    connection.close()


def case(name: str) -> tuple[Path, str]:
    path = GENERATED / name
    if not path.is_file():
        pytest.skip(f"the encrypted corpus is absent ({GENERATED})")
    return path, path.with_suffix(".password").read_text(encoding="utf-8")


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[Any]:
    """The rows, sorted (DuckDB's threads hand sheets over in any order)."""
    return sorted(con.execute(sql).fetchall(), key=repr)


@pytest.mark.parametrize("name,plain", PAIRS, ids=[name for name, _ in PAIRS])
def test_a_password_reads_what_the_plain_workbook_holds(
    con: duckdb.DuckDBPyConnection, name: str, plain: Path
) -> None:
    path, password = case(name)
    query = "select * from read_sheet('{}', sheet := '*', union_by_name := true, all_varchar := true{})"
    expected = rows(con, query.format(plain, ""))
    assert expected
    quoted = password.replace("'", "''")
    assert rows(con, query.format(path, f", password := '{quoted}'")) == expected
    # A list: tried in order.
    assert rows(con, query.format(path, f", password := ['wrong', '{quoted}']")) == expected


def test_no_password_or_a_wrong_one_fails_naming_the_file(con: duckdb.DuckDBPyConnection) -> None:
    path, _ = case("agile-aes256-sha512.xlsx")
    with pytest.raises(duckdb.Error, match="a password is required") as required:
        rows(con, f"select count(*) from read_sheet('{path}')")
    assert str(path) in str(required.value)
    with pytest.raises(duckdb.Error, match="the password is incorrect"):
        rows(con, f"select count(*) from read_sheet('{path}', password := 'wrong')")


def test_excels_default_password_opens_unasked(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    path = GENERATED / "agile-aes256-sha512-velvet.xlsx"
    if not path.is_file():
        pytest.skip(f"the encrypted corpus is absent ({GENERATED})")
    shutil.copy(path, tmp_path / "velvet.xlsx")
    assert rows(con, f"select count(*) > 0 from read_sheet('{tmp_path / 'velvet.xlsx'}')") == [(True,)]
