"""OpenDocument spreadsheets through the Spark source (issue 44): the
sample examples/ods/sales.ods (LibreOffice's conversion of
examples/data/sales.xlsx), alone and beside the .xlsx it came from."""

from __future__ import annotations

import datetime
import os
import shutil

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
ODS = os.path.join(EXAMPLES, "ods", "sales.ods")
XLSX = os.path.join(EXAMPLES, "data", "sales.xlsx")


def test_the_source_reads_an_ods_with_its_types(spark, tmp_path):
    frame = spark.read.format("sheetstream").load(ODS)
    assert frame.columns == ["Item", "Amount", "Sold on", "In stock", "Doubled"]
    types = dict(frame.dtypes)
    assert (types["Amount"], types["Sold on"]) == ("bigint", "date")
    rows = sorted((row["Item"], row["Amount"], row["Sold on"]) for row in frame.collect())
    assert rows == [
        ("apples", 10, datetime.date(2024, 3, 1)),
        ("pears", 20, datetime.date(2024, 3, 2)),
        ("plums", 30, datetime.date(2024, 3, 5)),
    ]


def test_a_folder_of_ods_and_xlsx_reads_as_one_table(spark, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(ODS, folder / "sales.ods")
    shutil.copy(XLSX, folder / "sales.xlsx")
    frame = (
        spark.read.format("sheetstream")
        .option("includeFileColumn", "true")
        .option("fileColumnName", "file")
        .load(str(folder))
    )
    counts = {}
    for row in frame.collect():
        name = os.path.basename(row["file"])
        counts[name] = counts.get(name, 0) + row["Amount"]
    assert counts == {"sales.ods": 60, "sales.xlsx": 60}
