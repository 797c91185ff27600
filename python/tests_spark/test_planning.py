"""The driver-side planning: listing, sheet selection, bin packing."""

from __future__ import annotations

import os

import pytest

import sheetstream
import workbooks
from sheetstream.planning import WorkItem, list_files, pack, parse_sheet_selection, plan


def test_listing_takes_files_directories_and_patterns(data_set, scratch):
    every = list_files(data_set)
    assert len(every) == 40
    assert every == sorted(every) and all(os.path.isabs(path) for path in every)
    assert list_files(os.path.join(data_set, "book_1*.xlsx")) == every[10:20]
    assert list_files([every[3], os.path.join(data_set, "book_0[0-2].xlsx")]) == sorted(every[:3] + [every[3]])
    # Lock files, hidden files and other extensions are left out of listings.
    for name in ("~$book_00.xlsx", ".hidden.xlsx", "_SUCCESS", "notes.txt"):
        open(os.path.join(scratch, name), "wb").close()
    nested = os.path.join(scratch, "2024")
    os.makedirs(nested)
    workbooks.write_workbook(os.path.join(nested, "inner.xlsx"), {"Data": 2}, workbooks.COLUMNS, 7)
    assert list_files(scratch) == []
    assert list_files(scratch, recursive=True) == [os.path.join(nested, "inner.xlsx")]
    assert list_files(os.path.join(scratch, "**", "*.xlsx")) == [os.path.join(nested, "inner.xlsx")]
    with pytest.raises(FileNotFoundError, match="nothing-here"):
        list_files(os.path.join(scratch, "nothing-here"))
    with pytest.raises(FileNotFoundError, match="matches no workbook"):
        list_files(os.path.join(scratch, "*.xls"))


def test_sheet_selection_by_position_name_and_all(data_set):
    items = list(plan(data_set, sheet="all"))
    # book_NN has 1 + NN % 4 sheets.
    assert len(items) == sum(1 + index % 4 for index in range(40))
    assert [(item.sheet, item.position) for item in items[:4]] == [
        ("Data", 0),
        ("Data", 0),
        ("S2", 1),
        ("Data", 0),
    ]
    book_03 = os.path.join(data_set, "book_03.xlsx")
    assert [item.sheet for item in plan(book_03, sheet=["S3", 0])] == ["S3", "Data"]
    assert [item.position for item in plan(book_03, sheet=parse_sheet_selection("1,S4"))] == [1, 3]
    size = os.path.getsize(book_03)
    assert [item.size for item in plan(book_03, sheet="all")] == [size // 4] * 4
    with pytest.raises(sheetstream.SheetNotFoundError, match=r"book_00\.xlsx: no sheet named 'S2'"):
        list(plan(os.path.join(data_set, "book_00.xlsx"), sheet="S2"))


def test_parse_sheet_selection():
    # The text is kept: each workbook finds it by the library's rule.
    assert parse_sheet_selection("0") == "0"
    assert parse_sheet_selection("ALL") == "all"
    assert parse_sheet_selection("*") == "all"
    assert parse_sheet_selection("Data") == "Data"
    assert parse_sheet_selection("2, Totals") == ["2", "Totals"]


def test_sheet_text_follows_the_library_rule_per_workbook(scratch):
    """A name wins (with a UserWarning when the text is also another
    sheet's position); a whole number no sheet is named is a position;
    each workbook is asked on its own."""
    named = os.path.join(scratch, "named.xlsx")
    workbooks.write_workbook(named, {"Data": 2, "Other": 2, "1": 3}, workbooks.COLUMNS, 3)
    plain = os.path.join(scratch, "plain.xlsx")
    workbooks.write_workbook(plain, {"Data": 2, "Other": 2}, workbooks.COLUMNS, 4)
    with pytest.warns(UserWarning, match="a name wins"):
        chosen = list(plan([named, plain], sheet=parse_sheet_selection("1")))
    assert [(os.path.basename(item.path), item.sheet) for item in chosen] == [
        ("named.xlsx", "1"),
        ("plain.xlsx", "Other"),
    ]
    assert [item.sheet for item in plan(plain, sheet=parse_sheet_selection("0,Other"))] == ["Data", "Other"]
    with pytest.raises(sheetstream.SheetNotFoundError, match="named or numbered '7'"):
        list(plan(plain, sheet=parse_sheet_selection("7")))


def test_an_unopenable_workbook_is_named_by_its_path(damaged_set):
    path = damaged_set["unopenable"]
    with pytest.raises(sheetstream.NotXlsxError) as raised:
        list(plan(path))
    assert str(raised.value).startswith(f"{path}: ")
    assert raised.value.path == path
    kept = list(plan(path, on_error="keep"))
    assert len(kept) == 1 and kept[0].sheet is None and kept[0].error.startswith(path)
    assert list(plan(path, on_error="skip")) == []


def test_packing_balances_sizes():
    sizes = [900, 100, 100, 100, 100, 100, 100, 100, 100, 500, 400]
    items = [WorkItem(f"f{index}", "Data", 0, size) for index, size in enumerate(sizes)]
    bins = pack(items, 3, open_cost=0)
    assert sorted(sum(item.size for item in group) for group in bins) == [800, 900, 900]
    # Every item exactly once, each list in planned order.
    assert sorted(item.path for group in bins for item in group) == sorted(item.path for item in items)
    for group in bins:
        assert [item.path for item in group] == sorted((item.path for item in group), key=lambda p: int(p[1:]))
    assert len(pack(items[:2], 8)) == 2
    assert pack([], 4) == []
    # The open cost spreads many small files.
    small = [WorkItem(f"s{index}", "Data", 0, 1) for index in range(10)]
    assert sorted(len(group) for group in pack(small, 5)) == [2, 2, 2, 2, 2]
