"""Arguments in Python's words: negative counts and positions are
ValueErrors saying what is allowed; a header row or column position past
the sheet's end and a chart sheet are errors, not empty frames. Sheets as
a dict of frames (read_excel_sheets); the union error names both ways;
SheetInfo.state spelled as the CLI spells it."""

from __future__ import annotations

import pathlib
from typing import Any, Callable

import pytest

import sheetstream
from conftest import WriteWorkbook, run_cli


def three_sheets(workbook: Any) -> None:
    data = workbook.add_worksheet("Data")
    data.write_row(0, 0, ["Item", "Amount"])
    data.write_row(1, 0, ["apples", 10])
    data.write_row(2, 0, ["pears", 20])
    other = workbook.add_worksheet("Other")
    other.write_row(0, 0, ["Name", "Price"])
    other.write_row(1, 0, ["plum", 1.5])
    chart_sheet = workbook.add_chartsheet("Chart")
    chart = workbook.add_chart({"type": "column"})
    chart.add_series({"values": "=Data!$B$2:$B$3"})
    chart_sheet.set_chart(chart)
    hidden = workbook.add_worksheet("Hidden")
    hidden.write_row(0, 0, ["Name", "Price"])
    hidden.write_row(1, 0, ["sloe", 2.5])
    hidden.very_hidden()


@pytest.fixture
def book(write_workbook: WriteWorkbook) -> pathlib.Path:
    return write_workbook(three_sheets)


NEGATIVE: dict[str, tuple[Callable[[pathlib.Path], Any], str]] = {
    "read_excel sheet": (lambda p: sheetstream.read_excel(p, sheet=-1), "sheet must be a 0-based position (0 or more)"),
    "read_excel sheet list": (lambda p: sheetstream.read_excel(p, sheet=[0, -1]), "sheet must be a 0-based position (0 or more)"),
    "Workbook.sheet": (lambda p: sheetstream.open(p).sheet(-1), "sheet must be a 0-based position (0 or more)"),
    "read_excel_sheets": (lambda p: sheetstream.read_excel_sheets(p, sheet=[-1]), "sheet must be a 0-based position (0 or more)"),
    "header_row": (lambda p: sheetstream.read_excel(p, header_row=-1), 'header_row must be 0 or more, "auto" or None, not -1'),
    "n_rows": (lambda p: sheetstream.read_excel(p, n_rows=-1), "n_rows must be 0 or more, or None, not -1"),
    "skip_rows": (lambda p: sheetstream.open(p).sheet(0, skip_rows=-3), "skip_rows must be 0 or more, not -3"),
    "batch_size": (lambda p: sheetstream.read_excel(p, batch_size=-1), "batch_size must be 0 or more"),
    "issues_per_batch": (lambda p: sheetstream.read_excel(p, issues_per_batch=-1), "issues_per_batch must be 0 or more"),
    "threads": (lambda p: sheetstream.read_excel(p, threads=-1), "threads must be 0 or more (0: one per core), not -1"),
    "read_excel_sheets threads": (lambda p: sheetstream.read_excel_sheets(p, threads=-1), "threads must be 0 or more"),
}


@pytest.mark.parametrize("case", list(NEGATIVE))
def test_negative_arguments_are_value_errors(book: pathlib.Path, case: str) -> None:
    read, message = NEGATIVE[case]
    with pytest.raises(ValueError) as caught:
        read(book)
    assert type(caught.value) is ValueError  # not pyo3's OverflowError
    assert message in str(caught.value)
    assert "can't convert" not in str(caught.value)


def test_wrong_types_are_type_errors(book: pathlib.Path) -> None:
    with pytest.raises(TypeError, match="sheet must be a 0-based position \\(int\\) or a sheet name \\(str\\), not float"):
        sheetstream.read_excel(book, sheet=1.5)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="n_rows must be an int"):
        sheetstream.read_excel(book, n_rows="10")  # type: ignore[typeddict-item]
    # What is allowed still is.
    assert sheetstream.read_excel(book, n_rows=None, header_row="auto").height == 2
    assert sheetstream.read_excel(book, n_rows=0).height == 0
    assert sheetstream.read_excel(book, n_rows=1).rows() == [("apples", 10)]


def test_header_row_past_the_last_row_is_an_error(book: pathlib.Path) -> None:
    for read in (
        lambda: sheetstream.read_excel(book, header_row=3),
        lambda: sheetstream.open(book).sheet("Data", header_row=10),
        lambda: sheetstream.read_excel(book, header_row=3, columns=[0]),
    ):
        with pytest.raises(ValueError, match=r"header_row=\d+ is past the last row of sheet 'Data'"):
            read()
    # The last row as the header: its names, no rows.
    frame = sheetstream.read_excel(book, header_row=2)
    assert (frame.columns, frame.height) == (["pears", "20"], 0)
    assert sheetstream.read_excel(book, header_row=1).rows() == [("pears", 20)]


def test_column_position_past_the_last_column_is_an_error(book: pathlib.Path) -> None:
    for columns in ([99], [0, 99], "A,CV"):
        with pytest.raises(sheetstream.ColumnError, match=r"column 99 \(CV\) is past the last column of sheet 'Data'"):
            sheetstream.read_excel(book, columns=columns)
    with pytest.raises(sheetstream.ColumnError, match=r"column 2 \(C\) is past the last column of sheet 'Data'"):
        sheetstream.open(book).sheet("Data", columns=[2])
    # Columns that exist read; a dtypes entry reads a column whose values
    # come later.
    assert sheetstream.read_excel(book, columns=[1]).rows() == [(10,), (20,)]
    frame = sheetstream.read_excel(book, columns=[0, 5], dtypes={"column_2": "utf8"})
    assert frame.rows() == [("apples", None), ("pears", None)]


def test_a_chart_sheet_is_an_error_not_an_empty_frame(book: pathlib.Path) -> None:
    for read in (
        lambda: sheetstream.read_excel(book, sheet=2),
        lambda: sheetstream.read_excel(book, sheet="Chart"),
        lambda: sheetstream.read_excel(book, sheet=[0, 2]),
        lambda: sheetstream.open(book).sheet(2),
        lambda: sheetstream.read_excel_sheets(book, sheet=[2]),
    ):
        with pytest.raises(sheetstream.SheetNotFoundError, match=r"sheet 2 \('Chart'\).* is a chart sheet") as caught:
            read()
        assert caught.value.sheet == "Chart"
    # Every worksheet leaves the chart sheet out.
    frame = sheetstream.read_excel(book, sheet=[1, 3], sheet_column="sheet")
    assert frame.rows() == [("Other", "plum", 1.5), ("Hidden", "sloe", 2.5)]


def test_sheets_as_a_dict_of_frames(book: pathlib.Path) -> None:
    import pandas
    import polars
    import pyarrow

    frames = sheetstream.read_excel_sheets(book)
    assert list(frames) == ["Data", "Other", "Hidden"]  # worksheets, in workbook order
    assert all(isinstance(frame, polars.DataFrame) for frame in frames.values())
    assert frames["Data"].rows() == [("apples", 10), ("pears", 20)]
    assert frames["Other"].rows() == [("plum", 1.5)]
    chosen = sheetstream.read_excel_sheets(book, sheet=["Other", 0], to="pandas", threads=1)
    assert list(chosen) == ["Other", "Data"]
    assert isinstance(chosen["Data"], pandas.DataFrame)
    assert chosen["Data"]["Amount"].tolist() == [10, 20]
    tables = sheetstream.read_excel_sheets(book.read_bytes(), sheet="Data", to="pyarrow", n_rows=1)
    assert isinstance(tables["Data"], pyarrow.Table)
    assert tables["Data"].to_pylist() == [{"Item": "apples", "Amount": 10}]
    # Many workbooks: each sheet name's frame unites the workbooks'.
    twice = sheetstream.read_excel_sheets([book, book], sheet="Data")
    assert twice["Data"]["Amount"].to_list() == [10, 20, 10, 20]
    with pytest.raises(ValueError, match="to must be"):
        sheetstream.read_excel_sheets(book, to="csv")  # type: ignore[arg-type]


def test_the_union_error_names_both_ways_out(book: pathlib.Path) -> None:
    with pytest.raises(sheetstream.ColumnError) as caught:
        sheetstream.read_excel(book, sheet=None)
    message = str(caught.value)
    assert "union_by_name" in message
    assert "read_excel_sheets" in message
    assert caught.value.file == str(book)
    # Both work.
    assert sheetstream.read_excel(book, sheet=None, union_by_name=True).height == 4
    assert len(sheetstream.read_excel_sheets(book)) == 3


def test_state_is_spelled_as_the_cli_spells_it(book: pathlib.Path, cli: pathlib.Path) -> None:
    states = {info.name: info.state for info in sheetstream.open(book).sheets}
    assert states == {"Data": "visible", "Other": "visible", "Chart": "visible", "Hidden": "veryHidden"}
    listed = run_cli(cli, "sheets", book)
    assert listed.returncode == 0, listed.stderr
    for name, state in states.items():
        line = next(line for line in listed.stdout.splitlines() if name in line)
        assert state in line.split(), (line, state)
