"""The Spark source over URLs (moto's S3 server and a Range-honouring HTTP
server on 127.0.0.1, storage options as Spark options) and its filter
pushdown on the file and sheet columns."""

from __future__ import annotations

import json
import os
import pathlib
import sys

import pytest
from pyspark.sql import functions as F
from pyspark.sql.datasource import EqualTo, GreaterThan, In, IsNotNull, Not, StringEndsWith

from sheetstream.spark import FilteringReader, Settings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))
from servers import RangeServer, S3Server, running  # noqa: E402

pytest.importorskip("fsspec")


def regions(path: pathlib.Path, sheets: dict[str, list[int]]) -> pathlib.Path:
    import xlsxwriter

    workbook = xlsxwriter.Workbook(str(path))
    for name, amounts in sheets.items():
        sheet = workbook.add_worksheet(name)
        sheet.write_row(0, 0, ["region", "amount"])
        for row, amount in enumerate(amounts, start=1):
            sheet.write_row(row, 0, [f"{name}-{row}", amount])
    workbook.close()
    return path


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> pathlib.Path:
    root = tmp_path_factory.mktemp("lake")
    (root / "books").mkdir()
    regions(root / "books" / "one.xlsx", {"North": [1, 2], "South": [3]})
    regions(root / "books" / "two.xlsx", {"North": [10], "South": [20, 30]})
    (root / "books" / "broken.xlsx").write_bytes(b"PK\x03\x04 not a workbook")
    return root


@pytest.fixture(scope="module")
def s3(lake):
    pytest.importorskip("moto")
    pytest.importorskip("s3fs")
    server = S3Server()
    server.create_bucket("lake")
    fs = server.filesystem()
    for name in ("one.xlsx", "two.xlsx"):
        fs.put_file(str(lake / "books" / name), f"lake/books/{name}")
    yield from running(server)


@pytest.fixture(scope="module")
def http(lake):
    yield from running(RangeServer(lake))


def s3_options(server: S3Server) -> dict[str, str]:
    """The storage options as Spark options: one key each, JSON values
    decoded."""
    return {
        "storageOptions.key": "testing",
        "storageOptions.secret": "testing",
        "storageOptions.client_kwargs": json.dumps(server.storage_options["client_kwargs"]),
        "storageOptions.use_listings_cache": "false",
    }


def test_a_bucket_prefix_with_storage_options(spark, s3):
    df = (
        spark.read.format("sheetstream")
        .options(**s3_options(s3))
        .option("sheet", "all")
        .option("includeFileColumn", "true")
        .option("includeSheetColumn", "true")
        .load("s3://lake/books/")
    )
    rows = sorted((row["_file"], row["_sheet"], row["region"], row["amount"]) for row in df.collect())
    assert rows == [
        ("s3://lake/books/one.xlsx", "North", "North-1", 1),
        ("s3://lake/books/one.xlsx", "North", "North-2", 2),
        ("s3://lake/books/one.xlsx", "South", "South-1", 3),
        ("s3://lake/books/two.xlsx", "North", "North-1", 10),
        ("s3://lake/books/two.xlsx", "South", "South-1", 20),
        ("s3://lake/books/two.xlsx", "South", "South-2", 30),
    ]


def test_a_glob_over_a_prefix_and_storage_options_as_json(spark, s3):
    df = (
        spark.read.format("sheetstream")
        .option("storageOptions", json.dumps(s3.storage_options))
        .load("s3://lake/books/t*.xlsx")
    )
    assert sorted(row["amount"] for row in df.collect()) == [10]


def test_urls_over_http(spark, http):
    df = spark.read.format("sheetstream").option("sheet", "South").load(
        [f"{http.url}/books/one.xlsx", f"{http.url}/books/two.xlsx"]
    )
    assert sorted(row["amount"] for row in df.collect()) == [3, 20, 30]


def test_a_missing_object_names_the_url(spark, s3):
    with pytest.raises(Exception, match="s3://lake/books/none.xlsx"):
        spark.read.format("sheetstream").options(**s3_options(s3)).load("s3://lake/books/none.xlsx").collect()


def reader_for(lake: pathlib.Path, **options: str) -> FilteringReader:
    settings = Settings(
        {
            "path": str(lake / "books"),
            "sheet": "all",
            "includeFileColumn": "true",
            "includeSheetColumn": "true",
            "mode": "PERMISSIVE",
            **options,
        },
        2,
    )
    return FilteringReader(settings, None)  # type: ignore[arg-type]


def planned(reader: FilteringReader) -> list[tuple[str, object]]:
    return sorted(
        (os.path.basename(item.path), item.sheet)
        for partition in reader.partitions()
        for item in partition.items  # type: ignore[attr-defined]
    )


def test_push_filters_prunes_work_items(lake):
    reader = reader_for(lake)
    # Without filters: every sheet, and the broken file as an error item.
    assert planned(reader) == [
        ("broken.xlsx", None),
        ("one.xlsx", "North"),
        ("one.xlsx", "South"),
        ("two.xlsx", "North"),
        ("two.xlsx", "South"),
    ]
    on_sheet = EqualTo(("_sheet",), "South")
    on_file = StringEndsWith(("_file",), "two.xlsx")
    on_data = GreaterThan(("amount",), 5)
    on_number = EqualTo(("_sheet",), 3)  # not a string: Spark's to evaluate
    left = list(reader.pushFilters([on_sheet, on_file, on_data, on_number]))
    assert left == [on_data, on_number]
    assert planned(reader) == [("two.xlsx", "South")]

    reader = reader_for(lake)
    assert list(reader.pushFilters([Not(In(("_sheet",), ("North",))), IsNotNull(("_file",))])) == []
    # The broken file's error item has a null sheet: NOT IN is not true.
    assert planned(reader) == [("one.xlsx", "South"), ("two.xlsx", "South")]


def test_a_file_filter_keeps_a_file_from_being_opened(lake):
    # FAILFAST: opening broken.xlsx to list its sheets would fail the plan.
    reader = reader_for(lake, mode="FAILFAST")
    with pytest.raises(Exception, match="broken.xlsx"):
        reader.partitions()
    reader = reader_for(lake, mode="FAILFAST")
    left = list(reader.pushFilters([Not(EqualTo(("_file",), str(lake / "books" / "broken.xlsx")))]))
    assert left == []
    assert planned(reader) == [
        ("one.xlsx", "North"),
        ("one.xlsx", "South"),
        ("two.xlsx", "North"),
        ("two.xlsx", "South"),
    ]


def test_without_file_and_sheet_columns_nothing_is_pushed(lake):
    settings = Settings({"path": str(lake / "books" / "one.xlsx"), "sheet": "all"}, 2)
    reader = FilteringReader(settings, None)  # type: ignore[arg-type]
    found = EqualTo(("_sheet",), "South")
    assert list(reader.pushFilters([found])) == [found]


def test_filters_through_spark(spark, lake):
    schema = "region string, amount long, _file string, _sheet string"
    df = (
        spark.read.format("sheetstream")
        .schema(schema)
        .option("sheet", "all")
        .option("includeFileColumn", "true")
        .option("includeSheetColumn", "true")
        .load(str(lake / "books"))
    )
    # The broken file is never opened (FAILFAST would fail on it) and the
    # North sheets are never read; amount > 1 is Spark's.
    picked = df.filter(~F.col("_file").endswith("broken.xlsx"))
    picked = picked.filter((F.col("_sheet") == "South") & (F.col("amount") > 3))
    assert sorted(row["amount"] for row in picked.collect()) == [20, 30]
    only = df.filter(F.col("_file") == str(lake / "books" / "two.xlsx")).filter(F.col("_sheet").isin("North"))
    assert [row["amount"] for row in only.collect()] == [10]
