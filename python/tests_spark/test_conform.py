"""Schema merging, the type mapping and the alignment of batches to Spark's
schema, on Arrow data made here (no workbook, no SparkSession)."""

from __future__ import annotations

import datetime

import pyarrow as pa
import pytest
from pyspark.sql import types as T

import sheetstream
from sheetstream.spark import BatchConformer, Settings, merge_columns, promote, spark_type


def test_promotion_rules():
    assert promote(pa.int64(), pa.int64()) == pa.int64()
    assert promote(pa.null(), pa.date32()) == pa.date32()
    assert promote(pa.bool_(), pa.null()) == pa.bool_()
    assert promote(pa.int64(), pa.float64()) == pa.float64()
    assert promote(pa.date32(), pa.timestamp("ms")) == pa.timestamp("ms")
    assert promote(pa.float64(), pa.string()) == pa.string()
    assert promote(pa.bool_(), pa.float64()) == pa.string()
    assert promote(pa.large_string(), pa.string()) == pa.string()


def test_merging_by_name_and_by_position():
    first = [("a", pa.int64()), ("b", pa.string())]
    second = [("b", pa.string()), ("c", pa.bool_()), ("a", pa.float64())]
    assert merge_columns(merge_columns([], first, by_name=True), second, by_name=True) == [
        ("a", pa.float64()),
        ("b", pa.string()),
        ("c", pa.bool_()),
    ]
    assert merge_columns(merge_columns([], first, by_name=False), second, by_name=False) == [
        ("a", pa.string()),
        ("b", pa.string()),
        ("a_1", pa.float64()),
    ]


def test_spark_types():
    assert spark_type(pa.float64()) == T.DoubleType()
    assert spark_type(pa.int64()) == T.LongType()
    assert spark_type(pa.bool_()) == T.BooleanType()
    assert spark_type(pa.string()) == T.StringType()
    assert spark_type(pa.large_string()) == T.StringType()
    assert spark_type(pa.date32()) == T.DateType()
    assert spark_type(pa.timestamp("ms")) == T.TimestampNTZType()
    assert spark_type(pa.duration("ms")) == T.DayTimeIntervalType()
    assert spark_type(pa.null()) == T.StringType()


SCHEMA = T.StructType(
    [
        T.StructField("id", T.LongType()),
        T.StructField("amount", T.DoubleType()),
        T.StructField("when", T.TimestampNTZType()),
        T.StructField("_file", T.StringType()),
        T.StructField("_sheet", T.StringType()),
        T.StructField("_corrupt_record", T.StringType()),
    ]
)


def conformer(mode, union_by_name=True):
    settings = Settings(
        {
            "path": "unused",
            "mode": mode,
            "unionByName": str(union_by_name).lower(),
            "includeFileColumn": "true",
            "includeSheetColumn": "true",
        },
        None,
    )
    return BatchConformer(settings, SCHEMA)


def sheet_batch():
    # Another file's column order, a date column, and a number column that
    # holds a text (the Arrow layer made it a string column).
    return pa.RecordBatch.from_pydict(
        {
            "when": pa.array([datetime.date(2024, 1, 1), None, datetime.date(2024, 1, 3)], pa.date32()),
            "amount": pa.array(["1.5", "n/a", "3"]),
            "id": pa.array([1, 2, 3], pa.int64()),
        }
    )


def test_permissive_aligns_by_name_and_keeps_bad_rows():
    conform = conformer("PERMISSIVE")
    batch = conform.conform(sheet_batch(), "/data/a.xlsx", "Data", first_row=10)
    assert batch.schema.equals(conform.target)
    assert batch.column(0).to_pylist() == [1, 2, 3]
    assert batch.column(1).to_pylist() == [1.5, None, 3.0]
    assert batch.column(2).to_pylist() == [datetime.datetime(2024, 1, 1), None, datetime.datetime(2024, 1, 3)]
    assert batch.column(3).to_pylist() == ["/data/a.xlsx"] * 3
    assert batch.column(4).to_pylist() == ["Data"] * 3
    corrupt = batch.column(5).to_pylist()
    assert corrupt[0] is None and corrupt[2] is None
    # first_row is the sheet row of the batch's first row: 10, 11, 12.
    assert corrupt[1] == "/data/a.xlsx: sheet 'Data', row 11, column 'amount': 'n/a' is not a number"


def test_dropmalformed_drops_the_row_and_failfast_raises():
    drop = conformer("DROPMALFORMED")
    # The target without a corrupt-record column still has one in SCHEMA:
    # DROPMALFORMED leaves it null.
    batch = drop.conform(sheet_batch(), "/data/a.xlsx", "Data", first_row=2)
    assert batch.column(0).to_pylist() == [1, 3]
    # Rows the Arrow layer's report named are dropped too.
    batch = drop.conform(sheet_batch(), "/data/a.xlsx", "Data", first_row=2, problems={2: "bad"})
    assert batch.column(0).to_pylist() == [1]
    with pytest.raises(sheetstream.CellError, match=r"a\.xlsx: sheet 'Data', row 3, column 'amount'"):
        conformer("FAILFAST").conform(sheet_batch(), "/data/a.xlsx", "Data", first_row=2)


def test_by_position_missing_columns_are_null():
    conform = conformer("PERMISSIVE", union_by_name=False)
    batch = pa.RecordBatch.from_pydict({"x": pa.array([7, 8], pa.int64())})
    result = conform.conform(batch, "/b.xlsx", "S2", first_row=0)
    assert result.column(0).to_pylist() == [7, 8]
    assert result.column(1).to_pylist() == [None, None]
    assert result.column(5).to_pylist() == [None, None]


def test_options_are_checked():
    with pytest.raises(ValueError, match="mode must be one of"):
        Settings({"path": "x", "mode": "LENIENT"}, None)
    with pytest.raises(ValueError, match="skiprows must be a whole number"):
        Settings({"path": "x", "skipRows": "two"}, None)
    with pytest.raises(ValueError, match="no path given"):
        Settings({}, None)
    settings = Settings({"paths": '["a", "b"]', "SHEET": "all", "header": "false"}, 3)
    assert settings.paths == ["a", "b"] and settings.sheet == "all" and not settings.header
    assert settings.min_partitions == 3



def write_kinds(path, rows, *, shared_strings):
    """The benchmark's column kinds: whole numbers, fractions, texts (inline
    strings with constant_memory, shared strings without), dates, booleans."""
    import xlsxwriter

    workbook = xlsxwriter.Workbook(path, {"constant_memory": not shared_strings})
    dates = workbook.add_format({"num_format": "yyyy-mm-dd"})
    sheet = workbook.add_worksheet("Data")
    for column, name in enumerate(["id", "x", "city", "day", "ok"]):
        sheet.write_string(0, column, name)
    for row in range(1, rows + 1):
        sheet.write_number(row, 0, row)
        sheet.write_number(row, 1, row / 8)
        sheet.write_string(row, 2, f"city {row % 500}")
        sheet.write_datetime(row, 3, KINDS_START + datetime.timedelta(days=row % 1500), dates)
        sheet.write_boolean(row, 4, row % 3 == 0)
    workbook.close()


KINDS_START = datetime.date(2020, 1, 1)


@pytest.mark.parametrize("shared_strings", [False, True], ids=["inline", "shared"])
def test_batches_of_the_sheets_types_reach_spark_as_read(tmp_path, shared_strings):
    # The Arrow layer's batches already have Spark's types, so conform hands
    # them on without a cast or a copy (the very buffers), with exactly the
    # target schema and the written values. A cast here (a string_view or
    # large_string column, a timestamp unit) would copy every value of
    # every batch in the Python worker.
    import json

    from sheetstream.spark import SheetstreamDataSource, open_sheet

    path = str(tmp_path / "kinds.xlsx")
    rows = 70_000  # two batches of the default 65536 rows
    write_kinds(path, rows, shared_strings=shared_strings)
    options = {"paths": json.dumps([path])}
    schema = SheetstreamDataSource(options).schema()
    assert [field.dataType for field in schema.fields] == [
        T.LongType(), T.DoubleType(), T.StringType(), T.DateType(), T.BooleanType()
    ]
    settings = Settings(options, 2)
    (item,) = settings.items()
    conform = BatchConformer(settings, schema)
    workbook, reader = open_sheet(
        item, header=True, skip_rows=0, columns=None, sample_rows=settings.sampling_rows,
        batch_size=settings.batch_size, strict=False,
    )
    seen = 0
    try:
        for batch in reader.iter_batches():
            conformed = conform.conform(batch, path, "Data", seen + 2)
            assert conformed.schema.equals(conform.target)
            for index in range(batch.num_columns):
                before = [buffer.address for buffer in batch.column(index).buffers() if buffer is not None]
                after = [buffer.address for buffer in conformed.column(index).buffers() if buffer is not None]
                assert after == before, schema.fields[index].name
            values = conformed.to_pydict()
            expected = range(seen + 1, seen + 1 + batch.num_rows)
            assert values["id"] == list(expected)
            assert values["x"] == [row / 8 for row in expected]
            assert values["city"] == [f"city {row % 500}" for row in expected]
            assert values["day"] == [KINDS_START + datetime.timedelta(days=row % 1500) for row in expected]
            assert values["ok"] == [row % 3 == 0 for row in expected]
            seen += batch.num_rows
    finally:
        workbook.close()
    assert seen == rows
    # The executors' path: the same rows, batch by batch, the target schema.
    batches = list(conform.read_item(item))
    assert [batch.num_rows for batch in batches] == [65536, rows - 65536]
    assert all(batch.schema.equals(conform.target) for batch in batches)
    assert pa.Table.from_batches(batches).column("city").to_pylist()[-1] == f"city {rows % 500}"
