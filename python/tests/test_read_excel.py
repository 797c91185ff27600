"""sheetstream.read_excel: one call, many files and sheets."""

from __future__ import annotations

import pathlib

import pytest

import sheetstream
from conftest import WriteWorkbook


def regions(names: list[str], extra: bool = False):  # type: ignore[no-untyped-def]
    def fill(workbook) -> None:  # type: ignore[no-untyped-def]
        for n, name in enumerate(names):
            sheet = workbook.add_worksheet(name)
            header = ["region", "amount"] + (["note"] if extra and n == 1 else [])
            sheet.write_row(0, 0, header)
            for r in range(1, 4):
                row: list[object] = [f"{name}-{r}", r * 10 + n]
                if extra and n == 1:
                    row.append(f"note {r}")
                sheet.write_row(r, 0, row)
        chart = workbook.add_chartsheet("Chart")
        series = workbook.add_chart({"type": "line"})
        series.add_series({"values": f"={names[0]}!$B$2:$B$4"})
        chart.set_chart(series)
    return fill


def test_one_sheet_default(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(regions(["North", "South"]))
    frame = sheetstream.read_excel(path)
    assert frame.columns == ["region", "amount"]
    assert frame["region"].to_list() == ["North-1", "North-2", "North-3"]
    by_name = sheetstream.read_excel(str(path), sheet="South", n_rows=2)
    assert by_name["amount"].to_list() == [11, 21]


def test_every_worksheet_with_sheet_column(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(regions(["North", "South", "East"]))
    frame = sheetstream.read_excel(path, sheet=None, sheet_column="sheet")
    assert frame.columns == ["sheet", "region", "amount"]
    # Sheets arrive as the Arrow layer's pool finishes them (biggest
    # first); each sheet's rows in order.
    by_sheet = {name: frame.filter(frame["sheet"] == name)["amount"].to_list() for name in ("North", "South", "East")}
    assert by_sheet == {"North": [10, 20, 30], "South": [11, 21, 31], "East": [12, 22, 32]}
    assert frame.height == 9
    table = sheetstream.read_excel(path, sheet=["East", 0], to="pyarrow")
    assert sorted(table.column("region").to_pylist()) == ["East-1", "East-2", "East-3", "North-1", "North-2", "North-3"]


def test_many_files_with_file_column(write_workbook: WriteWorkbook) -> None:
    first = write_workbook(regions(["A"]), name="first.xlsx")
    second = write_workbook(regions(["B"]), name="second.xlsx")
    frame = sheetstream.read_excel([first, second.read_bytes()], file_column="file", threads=2)
    assert frame.height == 6
    files = set(frame["file"].to_list())
    assert files == {str(first), f"<{second.stat().st_size} bytes>"}
    assert frame.filter(frame["file"] == str(first))["region"].to_list() == ["A-1", "A-2", "A-3"]


def test_union_by_name(write_workbook: WriteWorkbook) -> None:
    path = write_workbook(regions(["North", "South"], extra=True))
    with pytest.raises(sheetstream.ColumnError, match="union_by_name"):
        sheetstream.read_excel(path, sheet=None)
    frame = sheetstream.read_excel(path, sheet=None, union_by_name=True, sheet_column="sheet")
    assert sorted(frame.columns) == ["amount", "note", "region", "sheet"]
    north = frame.filter(frame["sheet"] == "North")
    south = frame.filter(frame["sheet"] == "South")
    assert north["note"].to_list() == [None, None, None]
    assert south["note"].to_list() == ["note 1", "note 2", "note 3"]
    assert south["amount"].to_list() == [11, 21, 31]
    pandas_frame = sheetstream.read_excel(path, sheet=None, union_by_name=True, to="pandas")
    assert pandas_frame["note"].isna().sum() == 3


def test_errors_name_the_sheet(write_workbook: WriteWorkbook, tmp_path: pathlib.Path) -> None:
    path = write_workbook(regions(["North"]))
    with pytest.raises(sheetstream.SheetNotFoundError):
        sheetstream.read_excel(path, sheet="Missing")
    with pytest.raises(sheetstream.NotXlsxError):
        sheetstream.read_excel([path, b"not a zip"])
    with pytest.raises(ValueError, match="to must be"):
        sheetstream.read_excel(path, to="numpy")
