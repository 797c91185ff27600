"""OpenDocument spreadsheets through the Python package (issue 44). The
sample, examples/ods/sales.ods, is LibreOffice's conversion of
examples/data/sales.xlsx (`soffice --convert-to ods`): the same cells,
but for the `=TRUE()` and `=FALSE()` of "In stock", which LibreOffice
stores as numbers (office:value-type="float", shown TRUE and FALSE), and
which are read as written."""

from __future__ import annotations

import datetime
import pathlib

import polars as pl
import pytest

import sheetstream

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
ODS = EXAMPLES / "ods" / "sales.ods"
XLSX = EXAMPLES / "data" / "sales.xlsx"
DATES = [datetime.date(2024, 3, 1), datetime.date(2024, 3, 2), datetime.date(2024, 3, 5)]


def test_read_excel_reads_the_sample_with_its_types() -> None:
    frame = sheetstream.read_excel(ODS)
    assert frame.columns == ["Item", "Amount", "Sold on", "In stock", "Doubled"]
    assert frame.schema["Amount"] == pl.Int64
    assert frame.schema["Sold on"] == pl.Date
    assert frame["Item"].to_list() == ["apples", "pears", "plums"]
    assert frame["Amount"].to_list() == [10, 20, 30]
    assert frame["Sold on"].to_list() == DATES
    assert frame["In stock"].to_list() == [1, 0, 1]
    assert frame["Doubled"].to_list() == [20, None, None]


def test_the_ods_reads_as_the_xlsx_it_was_converted_from() -> None:
    ods = sheetstream.read_excel(ODS).drop("In stock")
    xlsx = sheetstream.read_excel(XLSX).drop("In stock")
    assert ods.equals(xlsx), (ods, xlsx)


def test_every_reader_of_the_package_reads_ods() -> None:
    frame = sheetstream.read_excel(ODS)
    assert sheetstream.scan_excel(ODS).collect().equals(frame)
    assert sheetstream.scan_excel(ODS).filter(pl.col("Amount") > 15).select("Item").collect()[
        "Item"
    ].to_list() == ["pears", "plums"]
    table = sheetstream.read_excel(ODS, to="pyarrow")
    assert table.column("Amount").to_pylist() == [10, 20, 30]
    pandas_frame = sheetstream.read_excel(ODS, to="pandas")
    assert list(pandas_frame["Item"]) == ["apples", "pears", "plums"]
    assert str(pandas_frame["Sold on"].dtype).startswith("datetime64")
    from sheetstream import pandas as ss_pandas

    assert list(ss_pandas.read_excel(ODS, usecols="A:B").columns) == ["Item", "Amount"]
    with sheetstream.open(ODS) as workbook:
        assert [(info.name, info.state) for info in workbook.sheets] == [
            ("Data", "visible"),
            ("Notes & ideas", "hidden"),
        ]
        assert workbook.sheet("Data").to_polars().equals(frame)
    frames = sheetstream.read_excel_sheets(ODS)
    assert list(frames) == ["Data", "Notes & ideas"]
    assert frames["Data"].equals(frame)


def test_ods_and_xlsx_unite_in_one_frame(tmp_path: pathlib.Path) -> None:
    both = sheetstream.read_excel([XLSX, ODS], file_column="file")
    assert both.height == 6
    assert sorted(set(both["file"].to_list())) == sorted([str(XLSX), str(ODS)])
    assert both["Amount"].to_list() == [10, 20, 30, 10, 20, 30]


def test_a_damaged_ods_is_an_error_naming_the_file(tmp_path: pathlib.Path) -> None:
    cut = tmp_path / "cut.ods"
    cut.write_bytes(ODS.read_bytes()[:4000])
    with pytest.raises(sheetstream.ReadError) as caught:
        sheetstream.read_excel(cut)
    assert str(cut) in str(caught.value)
