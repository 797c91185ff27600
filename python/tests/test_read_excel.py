"""sheetstream.read_excel: one call, many files and sheets."""

from __future__ import annotations

import pathlib

import pytest

import sheetstream
from conftest import WriteWorkbook, write_plain_package


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
    # In workbook order, each sheet's rows in order.
    assert frame["sheet"].to_list() == ["North"] * 3 + ["South"] * 3 + ["East"] * 3
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


def sized(rows_per_sheet: dict[str, int], tag: str):  # type: ignore[no-untyped-def]
    """Sheets of the given sizes; column "who" holds tag/sheet/row."""

    def fill(workbook) -> None:  # type: ignore[no-untyped-def]
        for name, rows in rows_per_sheet.items():
            sheet = workbook.add_worksheet(name)
            sheet.write_row(0, 0, ["who", "n"])
            for r in range(1, rows + 1):
                sheet.write_row(r, 0, [f"{tag}/{name}/{r}", r])

    return fill


def test_sheets_and_files_come_in_workbook_order(write_workbook: WriteWorkbook) -> None:
    # The pool reads the biggest sheet first and many at once; small
    # batches make them interleave. The result is in workbook order anyway.
    small = write_workbook(sized({"S1": 3, "S2": 2000, "S3": 50}, "small"), name="small.xlsx")
    big = write_workbook(sized({"B1": 4000, "B2": 7}, "big"), name="big.xlsx")
    frame = sheetstream.read_excel(
        [small, big], sheet=None, batch_size=64, threads=4, file_column="file", sheet_column="sheet"
    )
    expected = [
        f"{tag}/{name}/{r}"
        for tag, sheets in (("small", {"S1": 3, "S2": 2000, "S3": 50}), ("big", {"B1": 4000, "B2": 7}))
        for name, rows in sheets.items()
        for r in range(1, rows + 1)
    ]
    assert frame["who"].to_list() == expected
    # Files in the order given; sheets in the order asked for.
    frame = sheetstream.read_excel([big, small], sheet=[1, 0], batch_size=16, threads=4)
    runs: list[str] = []
    for name in frame["who"].to_list():
        key = "/".join(name.split("/")[:2])
        if not runs or runs[-1] != key:
            runs.append(key)
    assert runs == ["big/B2", "big/B1", "small/S2", "small/S1"]
    assert frame.height == 7 + 4000 + 2000 + 3
    # A file given twice is read twice, told apart in the file column.
    twice = sheetstream.read_excel([small, small], file_column="file")
    assert twice["file"].to_list() == [str(small)] * 3 + [f"{small} #2"] * 3


def test_glob_patterns_paths_and_lists(write_workbook: WriteWorkbook, tmp_path: pathlib.Path) -> None:
    for tag in ("b", "a", "c"):
        write_workbook(sized({"S": 2}, tag), name=f"{tag}.xlsx")
    (tmp_path / "notes.txt").write_text("not a workbook")
    nested = tmp_path / "deeper" / "down"
    nested.mkdir(parents=True)
    import shutil

    shutil.copy(tmp_path / "a.xlsx", nested / "z.xlsx")
    frame = sheetstream.read_excel(str(tmp_path / "*.xlsx"), file_column="file")
    # Sorted, as polars expands a pattern.
    assert frame["who"].to_list() == ["a/S/1", "a/S/2", "b/S/1", "b/S/2", "c/S/1", "c/S/2"]
    assert frame["file"].unique(maintain_order=True).to_list() == [str(tmp_path / f"{t}.xlsx") for t in "abc"]
    # A Path with a pattern, a list mixing patterns, paths and bytes.
    assert sheetstream.read_excel(tmp_path / "[ab].xlsx").height == 4
    mixed = sheetstream.read_excel(
        [tmp_path / "c.xlsx", str(tmp_path / "?.xlsx"), (tmp_path / "b.xlsx").read_bytes()]
    )
    assert mixed["who"].to_list()[::2] == ["c/S/1", "a/S/1", "b/S/1", "c/S/1", "b/S/1"]
    # ** reaches into folders.
    deep = sheetstream.read_excel(str(tmp_path / "**" / "z.xlsx"), file_column="file")
    assert deep["file"].unique().to_list() == [str(nested / "z.xlsx")]
    with pytest.raises(FileNotFoundError, match="no file matches"):
        sheetstream.read_excel(str(tmp_path / "*.xlsm"))


def test_a_wide_sparse_sheet_is_read_into_few_chunks(tmp_path: pathlib.Path) -> None:
    """Cells at A1 and XFD1048576: 16,384 columns, 16,382 of them Null. A
    read into one table takes batches of 65,536 rows per 64 columns (one
    batch here), so polars holds one chunk per column, not 16; a batch_size
    the caller gives is kept."""
    import polars as pl

    path = write_plain_package(
        tmp_path / "corner.xlsx",
        {
            "Corner": [
                '<row r="1"><c r="A1" t="inlineStr"><is><t>top left</t></is></c></row>',
                '<row r="1048576"><c r="XFD1048576"><v>42</v></c></row>',
            ]
        },
    )
    frame = sheetstream.read_excel(path, header_row=None)
    assert frame.shape == (1_048_576, 16_384)
    assert frame.n_chunks("all") == [1] * 16_384
    assert frame.dtypes[0] == pl.String and frame.dtypes[-1] == pl.Int64
    assert frame.dtypes[1:-1] == [pl.Null] * 16_382
    assert frame[0, 0] == "top left" and frame[-1, -1] == 42
    assert frame[:, -1].null_count() == 1_048_575

    sheet = sheetstream.open(path).sheet(0, header_row=None)
    assert sheet.to_polars().n_chunks("all") == [1] * 16_384
    assert sheet.to_arrow().column(16_383).num_chunks == 1
    given = sheetstream.open(path).sheet(0, header_row=None, batch_size=262_144)
    assert given.to_arrow().column(0).num_chunks == 4
    assert sheetstream.read_excel(path, header_row=None, batch_size=524_288).n_chunks() == 2
