"""Hand-made sheets (issue 26) through the Spark source: the same options
as the Python package's, spelled as Spark options, on the workbook the
Python tests write (each row checked against the table typed by hand)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from shapes_workbook import EAST, NORTH_1, NORTH_2, QUARTERS, TOTAL, write_shapes  # noqa: E402


def test_every_shape_option_through_spark(spark, tmp_path):
    path = write_shapes(tmp_path / "shapes.xlsx")
    reader = spark.read.format("sheetstream").option("sheet", "Sales")
    for key, value in {
        "headerRow": "2,3",
        "fillMerged": "true",
        "skipHiddenRows": "true",
        "skipHiddenColumns": "true",
        "dropEmptyRows": "true",
    }.items():
        reader = reader.option(key, value)
    df = reader.load(str(path))
    assert df.columns == QUARTERS
    rows = [list(row) for row in df.collect()]
    assert rows == [NORTH_1, NORTH_2, EAST, TOTAL]
    stopped = (
        spark.read.format("sheetstream")
        .option("sheet", "Sales")
        .option("headerRow", "2,3")
        .option("fillMerged", "true")
        .option("skipHiddenRows", "true")
        .option("skipHiddenColumns", "true")
        .option("stopAtEmptyRow", "true")
        .load(str(path))
    )
    assert [list(row) for row in stopped.collect()] == [NORTH_1, NORTH_2, EAST]


def test_auto_header_and_empty_columns_through_spark(spark, tmp_path):
    path = write_shapes(tmp_path / "shapes.xlsx")
    df = (
        spark.read.format("sheetstream")
        .option("sheet", "Titled")
        .option("headerRow", "auto")
        .option("dropEmptyCols", "true")
        .load(str(path))
    )
    assert df.columns == ["Item", "Amount"]
    assert [list(row) for row in df.collect()] == [["apples", 10.0], ["pears", 20.5]]
