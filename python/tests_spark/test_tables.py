"""Spark: an Excel table by name (`table`, and spark-excel's
`dataAddress` `Sales[#All]`) and a range (`dataAddress` with a quoted
sheet, `range`), on workbooks written here with xlsxwriter; values checked
row by row, and the table's sheet found in each file."""

from __future__ import annotations

import os

import xlsxwriter


def _write(path: str, table_sheet: int) -> None:
    """Two sheets; the table `Sales` (totals row) on sheet `table_sheet`
    under a title, a note below it and text beside it."""
    book = xlsxwriter.Workbook(path)
    sheets = [book.add_worksheet("First"), book.add_worksheet("My Sheet")]
    sheets[1 - table_sheet].write("A1", "nothing here")
    sheet = sheets[table_sheet]
    sheet.write("A1", "Quarterly report")
    sheet.add_table(
        "B4:C7",
        {
            "name": "Sales",
            "total_row": True,
            "data": [["North", 10], ["South", 20]],
            "columns": [
                {"header": "Region", "total_string": "Total"},
                {"header": "Units", "total_function": "sum"},
            ],
        },
    )
    sheet.write("D5", "beside")
    sheet.write("C10", "a note below")
    book.close()


def read(spark, path, **options):
    reader = spark.read.format("sheetstream")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(path)


def test_a_table_by_name_in_each_file(spark, tmp_path) -> None:
    folder = str(tmp_path)
    _write(os.path.join(folder, "a.xlsx"), 0)
    _write(os.path.join(folder, "b.xlsx"), 1)
    df = read(spark, folder, table="Sales", includeFileColumn="true", includeSheetColumn="true")
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        ("Region", "string"), ("Units", "bigint"), ("_file", "string"), ("_sheet", "string"),
    ]
    rows = sorted((os.path.basename(r._file), r._sheet, r.Region, r.Units) for r in df.collect())
    assert rows == [
        ("a.xlsx", "First", "North", 10), ("a.xlsx", "First", "South", 20),
        ("b.xlsx", "My Sheet", "North", 10), ("b.xlsx", "My Sheet", "South", 20),
    ]
    # spark-excel's table address, totals row included.
    df = read(spark, os.path.join(folder, "a.xlsx"), dataAddress="Sales[#All]")
    assert [(r.Region, r.Units) for r in df.collect()] == [("North", 10), ("South", 20), ("Total", 0)]
    # A projection reads only its column, the same rows.
    assert [r.Units for r in read(spark, folder, table="Sales").select("Units").collect()] == [10, 20, 10, 20]


def test_a_data_address_reads_its_range_on_its_sheet(spark, tmp_path) -> None:
    path = str(tmp_path / "b.xlsx")
    _write(path, 1)
    df = read(spark, path, dataAddress="'My Sheet'!B4:C6")
    assert [(r.Region, r.Units) for r in df.collect()] == [("North", 10), ("South", 20)]
    df = read(spark, path, range="'My Sheet'!C4:C")
    assert [f.name for f in df.schema.fields] == ["Units"]
    # Open below: the totals row, the empty rows 8 and 9 (rows of nulls
    # between values), the note; text in the sample makes it a string.
    assert [r.Units for r in df.collect()] == ["10", "20", "0", None, None, "a note below"]
