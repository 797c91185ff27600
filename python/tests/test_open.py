"""sheetstream.open: sources, the sheet list, defined names, closing."""

from __future__ import annotations

import io
import pathlib

import pytest

import sheetstream
from conftest import WriteWorkbook


def three_sheets(workbook) -> None:  # type: ignore[no-untyped-def]
    data = workbook.add_worksheet("Data")
    data.write_row(0, 0, ["Item", "Amount"])
    data.write_row(1, 0, ["apples", 10])
    hidden = workbook.add_worksheet("Hidden one")
    hidden.hide()
    workbook.add_worksheet("Very")
    chart_sheet = workbook.add_chartsheet("Chart")
    chart = workbook.add_chart({"type": "column"})
    chart.add_series({"values": "=Data!$B$2:$B$2"})
    chart_sheet.set_chart(chart)
    workbook.define_name("Totals", "=Data!$B$2:$B$2")
    workbook.define_name("'Very'!Local", "=Very!$A$1")


@pytest.fixture
def book(write_workbook: WriteWorkbook) -> pathlib.Path:
    return write_workbook(three_sheets)


def test_sheets_name_state_kind(book: pathlib.Path) -> None:
    workbook = sheetstream.open(book)
    got = [(s.position, s.name, s.state, s.kind) for s in workbook.sheets]
    assert got == [
        (0, "Data", "visible", "worksheet"),
        (1, "Hidden one", "hidden", "worksheet"),
        (2, "Very", "visible", "worksheet"),
        (3, "Chart", "visible", "chartsheet"),
    ]
    assert workbook.sheet_names == ["Data", "Hidden one", "Very", "Chart"]
    assert repr(workbook.sheets[0]).startswith("SheetInfo(position=0")


def test_very_hidden_state(tmp_path: pathlib.Path) -> None:
    import openpyxl

    path = tmp_path / "very.xlsx"
    workbook = openpyxl.Workbook()
    workbook.active.title = "Shown"
    workbook.create_sheet("Secret").sheet_state = "veryHidden"
    workbook.save(path)
    states = [(s.name, s.state) for s in sheetstream.open(path).sheets]
    assert states == [("Shown", "visible"), ("Secret", "veryHidden")]


def test_defined_names(book: pathlib.Path) -> None:
    names = {n.name: n for n in sheetstream.open(book).defined_names}
    assert names["Totals"].refers_to == "Data!$B$2:$B$2"
    assert names["Totals"].sheet is None
    assert names["Local"].sheet == 2
    assert names["Local"].refers_to == "Very!$A$1"
    assert not names["Local"].hidden


def test_every_kind_of_source(book: pathlib.Path) -> None:
    data = book.read_bytes()
    expected = sheetstream.open(str(book)).sheet_names
    for source in (
        book,  # os.PathLike
        str(book),
        data,
        bytearray(data),
        memoryview(data),
        io.BytesIO(data),
    ):
        assert sheetstream.open(source).sheet_names == expected, type(source)
    with open(book, "rb") as file:
        assert sheetstream.open(file).sheet_names == expected


def test_bad_sources() -> None:
    with pytest.raises(TypeError, match="binary mode"):
        sheetstream.open(io.StringIO("text"))
    with pytest.raises(TypeError, match="expected a path, bytes or a binary file object"):
        sheetstream.open(42)  # type: ignore[arg-type]


def test_close_and_context_manager(book: pathlib.Path) -> None:
    with sheetstream.open(book) as workbook:
        assert workbook.sheet_names[0] == "Data"
    with pytest.raises(ValueError, match="closed"):
        workbook.sheets
    assert "Workbook" in repr(workbook)
