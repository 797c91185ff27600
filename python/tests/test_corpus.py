"""The public conformance corpora (../shared/conformance/corpus, and the
.xlsb and .xls files of corpus-binary), a sample:
every worksheet read through the Python package equals the Rust row
stream (the CLI's `cells` dump, and its `csv` for text columns) after the
Arrow layer's documented type mapping, through pyarrow, polars, pandas,
DuckDB and iter_rows; files the corpus says to refuse raise
sheetstream.Error with the CLI's message."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import pathlib

import pytest

import sheetstream
from conftest import CORPUS, run_cli

SAMPLE_EVERY = 40
MAX_BYTES = 2_000_000


BINARY_CORPUS = CORPUS.parent / "corpus-binary"
SUFFIXES = {CORPUS: (".xlsx", ".xlsm"), BINARY_CORPUS: (".xlsb", ".xls")}


def corpus_files(kind: str) -> list[pathlib.Path]:
    books = []
    for folder, suffixes in SUFFIXES.items():
        if folder.is_dir():
            books += sorted(p for p in folder.rglob("*") if p.suffix in suffixes)
    if kind == "error":
        return [p for p in books if p.with_suffix(".error").exists()]
    dumped = [
        p for p in books
        if (p.with_suffix(".cells.jsonl").exists() or p.with_suffix(".cells.jsonl.gz").exists())
        and p.stat().st_size <= MAX_BYTES
    ]
    return dumped[::SAMPLE_EVERY]


def column_index(ref: str) -> tuple[int, int]:
    """A1 reference to (row, column), both 1-based."""
    letters = "".join(ch for ch in ref if ch.isalpha())
    column = 0
    for ch in letters:
        column = column * 26 + ord(ch) - ord("A") + 1
    return int(ref[len(letters):]), column


def iso(value: str) -> dt.datetime:
    # Excel's fictitious 1900-02-29 fits no date column (its text does):
    # fromisoformat refusing it here fails the test.
    return dt.datetime.fromisoformat(value)


# The first day of each date system: a time of day's only date.
FIRST_DAYS = (dt.date(1899, 12, 31), dt.date(1904, 1, 1))


def expected_value(arrow_type: str, cell: tuple[str, object], csv_field: str) -> object:
    t, v = cell
    if t == "e":
        # Error cells: their code in a text column, null in a typed one.
        return csv_field if arrow_type == "string" else None
    if arrow_type == "string":
        return csv_field
    if arrow_type == "double":
        return float(v)  # type: ignore[arg-type]
    if arrow_type == "int64":
        return int(v)  # type: ignore[call-overload]
    if arrow_type == "bool":
        return v
    if arrow_type == "date32[day]":
        return iso(str(v)).date()
    if arrow_type == "timestamp[ms]":
        return iso(str(v))
    if arrow_type == "time32[ms]":
        # A time of day column holds no date: the dump's value must have
        # none to drop.
        moment = iso(str(v))
        assert moment.date() in FIRST_DAYS, f"the time column drops the date of {v}"
        return moment.time()
    raise AssertionError(f"unexpected column type {arrow_type}")


def dump_cells(cli: pathlib.Path, path: pathlib.Path) -> dict[str, dict[tuple[int, int], tuple[str, object]]]:
    result = run_cli(cli, "cells", path)
    assert result.returncode == 0, result.stderr
    sheets: dict[str, dict[tuple[int, int], tuple[str, object]]] = {}
    for line in result.stdout.splitlines():
        cell = json.loads(line)
        sheets.setdefault(cell["sheet"], {})[column_index(cell["ref"])] = (cell["t"], cell["v"])
    return sheets


@pytest.mark.parametrize("path", corpus_files("dump"), ids=lambda p: str(p.relative_to(CORPUS.parent)))
def test_sheets_equal_the_row_stream(path: pathlib.Path, cli: pathlib.Path) -> None:
    import duckdb
    import polars

    workbook = sheetstream.open(path)
    dumped = dump_cells(cli, path)
    compared = 0
    for info in workbook.sheets:
        if info.kind != "worksheet" or info.name not in dumped:
            continue
        cells = dumped[info.name]
        csv_rows = list(csv.reader(io.StringIO(run_cli(cli, "csv", path, "--sheet", info.name, "--quiet").stdout)))
        sheet = workbook.sheet(info.position, header_row=None, schema_sample_rows=10**9)
        table = sheet.to_arrow()
        first_row = min(row for row, _ in cells)
        last_row = max(row for row, _ in cells)
        first_column = min(column for _, column in cells)
        types = [str(field.type) for field in table.schema]
        assert table.num_rows == last_row - first_row + 1, info.name
        rows = [tuple(r.values()) for r in table.to_pylist()]
        for (row, column), cell in cells.items():
            index = column - first_column
            if index >= len(types) or types[index] == "duration[ms]":
                continue
            field = csv_rows[row - 1][column - 1] if row - 1 < len(csv_rows) else ""
            got = rows[row - first_row][index]
            want = expected_value(types[index], cell, field)
            assert got == want, (info.name, row, column, cell, types[index])
            compared += 1
        # Every consumer sees the same values.
        assert list(sheet.iter_rows()) == rows
        assert polars.DataFrame(sheet).rows() == rows
        frame = sheet.to_pandas()
        assert frame.shape == (len(rows), len(types))
        assert frame.isna().to_numpy().sum() == sum(value is None for row in rows for value in row)
        assert duckdb.sql("select * from sheet").fetchall() == rows
    assert compared > 0 or not dumped


@pytest.mark.parametrize("path", corpus_files("error"), ids=lambda p: str(p.relative_to(CORPUS.parent)))
def test_refused_files_raise(path: pathlib.Path, cli: pathlib.Path) -> None:
    cli_result = run_cli(cli, "cells", path)
    assert cli_result.returncode != 0
    with pytest.raises(sheetstream.Error) as caught:
        workbook = sheetstream.open(path)
        for info in workbook.sheets:
            if info.kind == "worksheet":
                workbook.sheet(info.position).to_arrow()
    # Errors found on opening are the CLI's word for word, after the
    # file name the CLI puts first (Python names it in the location).
    if cli_result.stderr.startswith("sheetstream: ") and caught.value.sheet is None:
        message = str(caught.value)
        if caught.value.file is not None:
            assert caught.value.file == str(path)
            message = message.replace(f" (at file {path})", "").replace(f"(at file {path}, ", "(at ")
        assert cli_result.stderr.strip() == f"sheetstream: {path}: {message}"


def test_corpus_sample_is_there() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the conformance corpus is absent ({CORPUS})")
    assert len(corpus_files("dump")) >= 30
    assert len(corpus_files("error")) >= 10
    binary = [p for p in corpus_files("dump") if p.suffix in (".xlsb", ".xls")]
    if BINARY_CORPUS.is_dir():
        assert {p.suffix for p in binary} == {".xlsb", ".xls"}, binary
