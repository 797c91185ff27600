"""Hand-made sheets (issue 26): merged cells filled, hidden rows and
columns left out, a two-row header, a header found past a title, empty
rows and columns dropped, the table ended at an empty row; each frame
checked cell by cell against the one a person would type by hand."""

from __future__ import annotations

import pathlib
from typing import Any

import polars
import pytest

import sheetstream
from conftest import CORPUS
from shapes_workbook import EAST, NORTH_1, NORTH_2, QUARTERS, TOTAL, write_shapes


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return write_shapes(tmp_path_factory.mktemp("shapes") / "shapes.xlsx")


def frame(rows: list[list[Any]], names: list[str]) -> polars.DataFrame:
    return polars.DataFrame(rows, schema=names, orient="row")


EVERY = {
    "header_row": [2, 3],
    "fill_merged": True,
    "skip_hidden_rows": True,
    "skip_hidden_columns": True,
}


def test_two_row_header_with_merged_and_hidden_cells(shapes: pathlib.Path) -> None:
    got = sheetstream.read_excel(shapes, "Sales", **EVERY)
    empty = [None] * 5
    expected = frame([NORTH_1, NORTH_2, EAST, empty, TOTAL], QUARTERS)
    assert got.equals(expected), got


def test_drop_empty_rows_and_stop_at_empty_row(shapes: pathlib.Path) -> None:
    got = sheetstream.read_excel(shapes, "Sales", drop_empty_rows=True, **EVERY)
    assert got.equals(frame([NORTH_1, NORTH_2, EAST, TOTAL], QUARTERS)), got
    got = sheetstream.read_excel(shapes, "Sales", stop_at_empty_row=True, **EVERY)
    assert got.equals(frame([NORTH_1, NORTH_2, EAST], QUARTERS)), got


def test_without_fill_or_skips_the_sheet_reads_as_stored(shapes: pathlib.Path) -> None:
    got = sheetstream.read_excel(shapes, "Sales", header_row=[2, 3])
    expected = frame(
        [
            ["North", 1, 2, 3, 4, "x"],
            [None, 5, 6, 7, 8, "y"],
            ["South", 9, 10, 11, 12, "z"],
            ["East", 13, 14, 15, 16, "w"],
            [None] * 6,
            TOTAL + [None],
        ],
        QUARTERS + ["Internal Note"],
    )
    assert got.equals(expected), got


def test_the_report_counts_hidden_rows_and_names_the_header(shapes: pathlib.Path) -> None:
    with sheetstream.open(shapes) as workbook:
        sheet = workbook.sheet("Sales", **EVERY)
        sheet.to_arrow()
        assert sheet.report.hidden_rows_skipped == 1
        assert sheet.report.header_row == 3
        titled = workbook.sheet("Titled", header_row="auto")
        table = titled.to_polars()
        assert titled.report.header_row == 2
    assert table.columns == ["Item", "column_2", "column_3", "Amount"]
    assert table["Item"].to_list() == ["apples", "pears"]
    assert table["Amount"].to_list() == [10.0, 20.5]


def test_auto_header_and_empty_columns_dropped(shapes: pathlib.Path) -> None:
    got = sheetstream.read_excel(shapes, "Titled", header_row="auto", drop_empty_cols=True)
    assert got.equals(frame([["apples", 10.0], ["pears", 20.5]], ["Item", "Amount"])), got
    # The default header is still the first row with a value: the title.
    assert sheetstream.read_excel(shapes, "Titled").columns[0] == "Quarterly figures"


def test_scan_excel_and_iter_batches_take_the_options(shapes: pathlib.Path) -> None:
    lazy = sheetstream.scan_excel(shapes, "Sales", drop_empty_rows=True, **EVERY)
    assert lazy.collect().equals(frame([NORTH_1, NORTH_2, EAST, TOTAL], QUARTERS))
    with sheetstream.open(shapes) as workbook:
        sheet = workbook.sheet("Sales", stop_at_empty_row=True, **EVERY)
        rows = [row for batch in sheet.iter_batches() for row in batch.to_pylist()]
    assert [list(row.values()) for row in rows] == [NORTH_1, NORTH_2, EAST]


def test_bad_option_values_are_refused(shapes: pathlib.Path) -> None:
    with pytest.raises(ValueError, match="consecutive"):
        sheetstream.read_excel(shapes, "Sales", header_row=[2, 4])
    with pytest.raises(TypeError, match="fill_merged must be True or False"):
        sheetstream.read_excel(shapes, "Sales", fill_merged="yes")


