"""The `sheetstream` data source on Spark local[2], against the Rust reader."""

from __future__ import annotations

import os

import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import (
    BooleanType,
    DateType,
    DoubleType,
    LongType,
    StringType,
    StructField,
    StructType,
)

import sheetstream
import workbooks
from sheetstream.spark import BatchConformer, Settings, SheetPartition, SheetstreamReader

EXPECTED_FIELDS = [
    ("id", LongType()),
    ("amount", DoubleType()),
    ("name", StringType()),
    ("flag", BooleanType()),
    ("when", DateType()),
]
GIVEN_SCHEMA = "id LONG, amount DOUBLE, name STRING, flag BOOLEAN, when DATE, _file STRING"


def read(spark, path, **options):
    reader = spark.read.format("sheetstream")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(path)


def per_file(df):
    """The figures the Rust reader's dump gives, per file."""
    rows = (
        df.groupBy("_file")
        .agg(
            F.count(F.lit(1)).alias("rows"),
            (F.coalesce(F.sum("id"), F.lit(0)) + F.coalesce(F.sum("amount"), F.lit(0.0))).alias("number_sum"),
            F.coalesce(F.sum(F.crc32(F.col("name").cast("binary"))), F.lit(0)).alias("text_crc"),
            F.count("name").alias("texts"),
            F.sum(F.col("flag").cast("int")).alias("trues"),
            F.count("when").alias("dates"),
        )
        .collect()
    )
    return {row["_file"]: row.asDict() for row in rows}


def assert_figures_match(figures, rust_figures):
    assert sorted(figures) == sorted(rust_figures)
    for path, rust in rust_figures.items():
        mine = figures[path]
        assert mine["rows"] == rust["rows"], path
        assert mine["number_sum"] == pytest.approx(rust["number_sum"], rel=1e-12), path
        assert mine["text_crc"] == rust["text_crc"], path
        assert mine["texts"] == rust["texts"], path
        assert mine["trues"] == rust["trues"], path
        assert mine["dates"] == rust["dates"], path


def test_every_file_matches_the_rust_reader(spark, data_set, rust_figures):
    df = read(spark, data_set, sheet="all", unionByName="true", includeFileColumn="true")
    assert [(field.name, field.dataType) for field in df.schema.fields] == EXPECTED_FIELDS + [
        ("_file", StringType())
    ]
    assert_figures_match(per_file(df), rust_figures)
    # The dates themselves: their day numbers in Excel's 1900 system.
    serials = df.select(F.sum(F.datediff("when", F.lit("1899-12-30")))).first()[0]
    assert serials > 0


def test_date_serials_match_the_rust_reader(spark, data_set):
    path = os.path.join(data_set, "book_03.xlsx")
    df = read(spark, path, sheet="all", unionByName="true")
    serials = df.select(F.sum(F.datediff("when", F.lit("1899-12-30")))).first()[0]
    rust = _rust_count(path)
    assert serials == rust["date_serial_sum"]


def _rust_count(path):
    import subprocess

    from conftest import cli

    output = subprocess.run([cli(), "count", path], check=True, capture_output=True, text=True).stdout
    total = [line for line in output.splitlines() if line.startswith("(total)")][0]
    serial = float(total.split("serial sum ")[1].rstrip(")"))
    return {"date_serial_sum": serial}


def test_a_given_schema_is_taken_by_name(spark, data_set, rust_figures):
    df = spark.read.format("sheetstream").schema(GIVEN_SCHEMA).option("sheet", "all").option(
        "unionByName", "true"
    ).option("includeFileColumn", "true").load(data_set)
    assert df.schema == StructType(
        [StructField(name, kind, True) for name, kind in EXPECTED_FIELDS] + [StructField("_file", StringType(), True)]
    )
    assert_figures_match(per_file(df), rust_figures)
    # A narrower schema: only the columns named, the rest not read into Spark.
    narrow = (
        spark.read.format("sheetstream")
        .schema("name STRING, id LONG")
        .option("unionByName", "true")
        .load(os.path.join(data_set, "book_0[0-4].xlsx"))
    )
    assert narrow.columns == ["name", "id"]
    assert narrow.count() == sum(_data_rows(data_set, f"book_0{index}.xlsx", "Data") for index in range(5))


def test_columns_by_position_without_union_by_name(spark, data_set):
    # book_00 and book_10 share their column order (10 % 5 == 0, both even).
    same_order = [os.path.join(data_set, "book_00.xlsx"), os.path.join(data_set, "book_10.xlsx")]
    df = read(spark, same_order)
    assert [(field.name, field.dataType) for field in df.schema.fields] == EXPECTED_FIELDS
    # book_01 has its columns reversed: by position, the first sheet's
    # names stay and columns whose types disagree become strings.
    mixed = read(spark, [os.path.join(data_set, "book_00.xlsx"), os.path.join(data_set, "book_01.xlsx")])
    assert mixed.columns == list(workbooks.column_order(0))
    # book_01's order is id, when, flag, name, amount: only "id" meets
    # its own type at its position.
    assert workbooks.column_order(1) == ["id", "when", "flag", "name", "amount"]
    types = dict((field.name, field.dataType) for field in mixed.schema.fields)
    assert types == {
        "id": LongType(),
        "amount": StringType(),
        "name": StringType(),
        "flag": StringType(),
        "when": StringType(),
    }
    assert mixed.count() == _data_rows(data_set, "book_00.xlsx", "Data") + _data_rows(data_set, "book_01.xlsx", "Data")


def _data_rows(data_set, name, sheet):
    """Rows of the sheet less its header, as `sheetstream count` counts them."""
    import subprocess

    from conftest import cli

    path = os.path.join(data_set, name)
    output = subprocess.run([cli(), "count", path], check=True, capture_output=True, text=True).stdout
    [line] = [line for line in output.splitlines() if line.startswith(f"{sheet}\trows=")]
    return int(line.split("rows=")[1].split()[0]) - 1


def test_infer_schema_false_reads_strings(spark, data_set):
    path = os.path.join(data_set, "book_00.xlsx")
    df = read(spark, path, inferSchema="false")
    assert all(field.dataType == StringType() for field in df.schema.fields)
    typed = read(spark, path)
    assert df.count() == typed.count()
    assert sorted(row["name"] for row in df.select("name").collect() if row["name"]) == sorted(
        row["name"] for row in typed.select("name").collect() if row["name"]
    )


def test_file_and_sheet_columns_with_their_names(spark, data_set, rust_figures):
    df = read(
        spark,
        data_set,
        sheet="all",
        unionByName="true",
        includeFileColumn="true",
        fileColumnName="source",
        includeSheetColumn="true",
    )
    assert df.columns[-2:] == ["source", "_sheet"]
    sheets = {
        (row["source"], row["_sheet"]) for row in df.select("source", "_sheet").distinct().collect()
    }
    expected = set()
    for index in range(40):
        path = os.path.join(data_set, f"book_{index:02}.xlsx")
        expected.update((path, "Data" if sheet == 0 else f"S{sheet + 1}") for sheet in range(1 + index % 4))
    assert sheets == expected
    assert df.filter(F.col("_sheet") == "S4").count() > 0


def test_count_of_a_projection_of_one_column(spark, data_set, rust_figures):
    df = read(spark, data_set, sheet="all", unionByName="true")
    assert df.select("name").count() == sum(figure["rows"] for figure in rust_figures.values())
    assert df.select("name").filter(F.col("name").isNotNull()).count() == sum(
        figure["texts"] for figure in rust_figures.values()
    )


def test_sheet_by_name_and_a_missing_sheet(spark, data_set):
    path = os.path.join(data_set, "book_03.xlsx")
    assert read(spark, path, sheet="S4").count() == _data_rows(data_set, "book_03.xlsx", "S4")
    with pytest.raises(Exception, match=r"book_00\.xlsx: no sheet named 'S4'"):
        read(spark, os.path.join(data_set, "book_00.xlsx"), sheet="S4").count()


def test_a_sheet_named_like_a_position(spark, scratch):
    """The sheet option's text, found in each workbook by the library's
    rule: the sheet named "1" where there is one, the second elsewhere."""

    named = os.path.join(scratch, "named.xlsx")
    workbooks.write_workbook(named, {"Data": 2, "Other": 4, "1": 3}, workbooks.COLUMNS, 3)
    plain = os.path.join(scratch, "plain.xlsx")
    workbooks.write_workbook(plain, {"Data": 2, "Other": 5}, workbooks.COLUMNS, 4)
    rows = read(spark, [named, plain], sheet="1", includeSheetColumn="true").groupBy("_sheet").count()
    assert sorted(tuple(row) for row in rows.collect()) == [("1", 3), ("Other", 5)]


MODES_SCHEMA = "id LONG, amount DOUBLE, name STRING, flag BOOLEAN, when DATE, _file STRING, _corrupt_record STRING"


def read_damaged(spark, damaged_set, mode, schema=MODES_SCHEMA):
    reader = spark.read.format("sheetstream")
    if schema:
        reader = reader.schema(schema)
    return (
        reader.option("sheet", "all")
        .option("unionByName", "true")
        .option("includeFileColumn", "true")
        .option("mode", mode)
        # Batches of 5 rows and a sample of 5: all 21 data rows before the
        # damaged row reach Spark, the last batch (one row) cut short by
        # the damage.
        .option("batchSize", "5")
        .option("samplingRows", "5")
        .load(damaged_set["dir"])
    )


def test_failfast_names_the_file(spark, damaged_set):
    with pytest.raises(Exception) as raised:
        read_damaged(spark, damaged_set, "FAILFAST").count()
    assert damaged_set["unopenable"] in str(raised.value)
    # Without the unopenable file, the damaged sheet stops the query.
    others = [damaged_set[name] for name in ("good1", "broken_sheet")]
    with pytest.raises(Exception) as raised:
        read(spark, others, sheet="all", unionByName="true").count()
    message = str(raised.value)
    assert damaged_set["broken_sheet"] in message and "'More'" in message
    # And a text in a number column, against a given schema.
    with pytest.raises(Exception) as raised:
        spark.read.format("sheetstream").schema(GIVEN_SCHEMA).option("unionByName", "true").load(
            damaged_set["bad_cell"]
        ).collect()
    message = str(raised.value)
    assert damaged_set["bad_cell"] in message and "'amount'" in message and "'n/a'" in message


def test_permissive_keeps_what_it_can(spark, damaged_set):
    df = read_damaged(spark, damaged_set, "PERMISSIVE")
    rows = df.collect()
    by_file = {}
    for row in rows:
        by_file.setdefault(row["_file"], []).append(row)
    assert len(by_file[damaged_set["good1"]]) == 30
    assert len(by_file[damaged_set["good2"]]) == 40
    # The unopenable workbook: one row of nulls and the error.
    [unopenable] = by_file[damaged_set["unopenable"]]
    assert unopenable["id"] is None and unopenable["_corrupt_record"].startswith(damaged_set["unopenable"])
    # The damaged sheet: its first sheet whole (10), the 21 rows of the
    # second before the damage, then one row with the error.
    broken = by_file[damaged_set["broken_sheet"]]
    assert len(broken) == 10 + 21 + 1
    [error] = [row for row in broken if row["_corrupt_record"]]
    assert "'More'" in error["_corrupt_record"] and error["id"] is None
    # The text in the number column: null, and the row says why.
    bad = sorted(by_file[damaged_set["bad_cell"]], key=lambda row: row["id"])
    assert [row["amount"] for row in bad] == [1.5, 3.0, None, 6.0, 7.5]
    assert [bool(row["_corrupt_record"]) for row in bad] == [False, False, True, False, False]
    assert "row 4" in bad[2]["_corrupt_record"] and "'n/a'" in bad[2]["_corrupt_record"]
    assert bad[2]["name"] == "name 3"
    assert df.filter(F.col("_corrupt_record").isNotNull()).count() == 3
    # Inferred: the corrupt-record column is added to the schema.
    inferred = read_damaged(spark, damaged_set, "PERMISSIVE", schema=None)
    assert inferred.columns[-1] == "_corrupt_record"
    assert inferred.count() == len(rows)


def test_dropmalformed_leaves_out_what_it_cannot_read(spark, damaged_set):
    df = read_damaged(spark, damaged_set, "DROPMALFORMED", schema=GIVEN_SCHEMA)
    counts = {row["_file"]: row["count"] for row in df.groupBy("_file").count().collect()}
    assert counts == {
        damaged_set["good1"]: 30,
        damaged_set["good2"]: 40,
        damaged_set["broken_sheet"]: 31,
        damaged_set["bad_cell"]: 4,
    }
    assert df.filter(F.col("amount").isNull() & F.col("_file").endswith("bad_cell.xlsx")).count() == 0


def test_partitions_come_in_multiples_of_min_partitions(data_set):
    # maxPartitionBytes asks for 3 partitions; on 2 cores that is 2 tasks,
    # then 1 with a core idle: 4 come instead, each within the limit.
    settings = Settings({"path": data_set, "sheet": "all", "minPartitions": "2"}, None)
    items = settings.items()
    total = sum(item.size + settings.open_cost for item in items)
    limit = -(-total // 3)
    settings = Settings(
        {"path": data_set, "sheet": "all", "minPartitions": "2", "maxPartitionBytes": str(limit)}, None
    )
    schema = StructType([StructField(name, kind, True) for name, kind in EXPECTED_FIELDS])
    partitions = SheetstreamReader(settings, schema).partitions()
    assert len(partitions) == 4
    assert sorted(item.path + str(item.position) for p in partitions for item in p.items) == sorted(
        item.path + str(item.position) for item in items
    )
    loads = [sum(item.size + settings.open_cost for item in p.items) for p in partitions]
    assert max(loads) <= limit
    # The default maxPartitionBytes (128 MiB, with 4 MiB to open each of
    # the 100 sheets) asks for 4; on 3 cores, 6 come.
    assert -(-total // (128 << 20)) == 4
    three = Settings({"path": data_set, "sheet": "all", "minPartitions": "3"}, None)
    assert len(SheetstreamReader(three, schema).partitions()) == 6


def test_tasks_that_fill_the_cores_read_each_sheet_on_one_thread(data_set):
    # Spark runs a task per core: with a task for every core, each reads
    # its sheets on its own thread; with fewer tasks than cores (one
    # workbook), a sheet is read on two.
    schema = StructType([StructField(name, kind, True) for name, kind in EXPECTED_FIELDS])
    every = Settings({"path": data_set, "sheet": "all"}, 4)
    partitions = SheetstreamReader(every, schema).partitions()
    assert len(partitions) == 4 and all(partition.items for partition in partitions)
    assert [partition.threads for partition in partitions] == [1, 1, 1, 1]
    one = Settings({"path": os.path.join(data_set, "book_03.xlsx"), "sheet": 0}, 4)
    partitions = SheetstreamReader(one, schema).partitions()
    assert sum(1 for partition in partitions if partition.items) == 1
    assert {partition.threads for partition in partitions} == {0}
    # Fewer partitions asked for than there are cores: two threads a sheet.
    book = os.path.join(data_set, "book_03.xlsx")
    fewer = Settings({"path": book, "sheet": "all", "minPartitions": "2"}, 4)
    partitions = SheetstreamReader(fewer, schema).partitions()
    assert len(partitions) == 2 and all(partition.items for partition in partitions)
    assert {partition.threads for partition in partitions} == {0}
    # Read either way, the rows are the same.
    united = Settings({"path": book, "sheet": "all", "unionByName": "true"}, 4)
    reader = SheetstreamReader(united, schema)
    items = [item for partition in reader.partitions() for item in partition.items]
    alone = list(reader.read(SheetPartition(0, items, threads=1)))
    paired = list(reader.read(SheetPartition(0, items, threads=0)))
    assert sum(batch.num_rows for batch in alone) == 6000 + 5000 + 4000 + 3000
    assert [batch.to_pylist() for batch in alone] == [batch.to_pylist() for batch in paired]


def test_partitions_are_balanced_and_batches_bounded(data_set):
    settings = Settings({"path": data_set, "sheet": "all", "minPartitions": "4"}, None)
    schema = StructType([StructField(name, kind, True) for name, kind in EXPECTED_FIELDS])
    reader = SheetstreamReader(settings, schema)
    partitions = reader.partitions()
    assert len(partitions) == 4
    items = [item for partition in partitions for item in partition.items]
    assert len(items) == sum(1 + index % 4 for index in range(40))
    loads = [sum(item.size + settings.open_cost for item in partition.items) for partition in partitions]
    assert max(loads) - min(loads) <= max(item.size + settings.open_cost for item in items)
    # A partition's batches: at most batchSize rows, the target schema exactly.
    small = Settings({"path": os.path.join(data_set, "book_03.xlsx"), "sheet": "all", "batchSize": "1000", "unionByName": "true"}, None)
    reader = SheetstreamReader(small, schema)
    [partition] = [SheetPartition(0, [item for p in reader.partitions() for item in p.items])]
    batches = list(reader.read(partition))
    assert max(batch.num_rows for batch in batches) == 1000
    assert sum(batch.num_rows for batch in batches) == 6000 + 5000 + 4000 + 3000
    target = BatchConformer(small, schema).target
    assert all(batch.schema.equals(target) for batch in batches)


def test_a_value_after_the_sample_that_does_not_fit(spark, damaged_set):
    # Two sampled rows make "amount" a double column; row 3's "n/a" comes
    # after the sample. FAILFAST: the Arrow layer's strict mode stops the
    # read, and the message names the file, sheet, cell and value.
    path = damaged_set["bad_cell"]
    with pytest.raises(Exception) as raised:
        read(spark, path, samplingRows="2").collect()
    message = str(raised.value)
    assert path in message and "n/a" in message and "ConversionError" in message
    # PERMISSIVE: the value is null and the row says why (the Arrow
    # layer's batch report); DROPMALFORMED: the row is left out.
    rows = read(spark, path, samplingRows="2", mode="PERMISSIVE").orderBy("id").collect()
    assert [row["amount"] for row in rows] == [1.5, 3.0, None, 6.0, 7.5]
    marks = [row["_corrupt_record"] for row in rows]
    assert marks[:2] == [None, None] and marks[3:] == [None, None]
    assert marks[2] == (
        f"{path}: sheet 'Data', row 4, column B 'amount': 'n/a' does not fit the sheet's float64 column"
    )
    rows = read(spark, path, samplingRows="2", mode="DROPMALFORMED").orderBy("id").collect()
    assert [row["id"] for row in rows] == [1, 2, 4, 5]


def late_values(scratch: str) -> str:
    """200 whole numbers sampled as a LONG column, then a text (row 302) and
    a #DIV/0! (row 403) far after the sample, in other batches."""
    import xlsxwriter

    path = os.path.join(scratch, "late.xlsx")
    workbook = xlsxwriter.Workbook(path)
    sheet = workbook.add_worksheet("Late")
    sheet.write_row(0, 0, ["n", "label"])
    for row in range(1, 501):
        sheet.write_string(row, 1, f"label {row}")
        if row == 301:
            sheet.write_string(row, 0, "three hundred")
        elif row == 402:
            sheet.write_formula(row, 0, "=1/0", None, "#DIV/0!")
        else:
            sheet.write_number(row, 0, row)
    workbook.close()
    return path


def test_late_error_cells_and_text_in_a_long_column(spark, scratch):
    # The text is a bad cell in every mode; the #DIV/0! is a value (null)
    # by default, and no row is marked or dropped for it.
    path = late_values(scratch)
    options = {"samplingRows": "200", "batchSize": "64"}
    df = read(spark, path, mode="PERMISSIVE", **options)
    assert dict(df.dtypes)["n"] == "bigint"
    marked = df.filter(F.col("_corrupt_record").isNotNull()).orderBy("label").collect()
    assert [(row["label"], row["n"]) for row in marked] == [("label 301", None)]
    assert "row 302, column A 'n': 'three hundred'" in marked[0]["_corrupt_record"]
    assert df.filter(F.col("label") == "label 402").first()["n"] is None
    assert df.count() == 500 and df.agg(F.sum("n")).first()[0] == sum(range(1, 501)) - 301 - 402
    dropped = read(spark, path, mode="DROPMALFORMED", **options)
    assert dropped.count() == 499
    assert dropped.filter(F.col("n").isNull()).count() == 1
    with pytest.raises(Exception, match=r"three hundred"):
        read(spark, path, **options).collect()


def test_late_error_cells_with_on_error_value_strict(spark, scratch):
    # onErrorValue=strict: error cells are bad cells, in every mode.
    path = late_values(scratch)
    options = {"samplingRows": "200", "batchSize": "64", "onErrorValue": "strict"}
    df = read(spark, path, mode="PERMISSIVE", **options)
    marked = df.filter(F.col("_corrupt_record").isNotNull()).orderBy("label").collect()
    assert [(row["label"], row["n"]) for row in marked] == [("label 301", None), ("label 402", None)]
    assert "row 403, column A 'n': error value #DIV/0!" in marked[1]["_corrupt_record"]
    dropped = read(spark, path, mode="DROPMALFORMED", **options)
    assert dropped.count() == 498
    assert dropped.filter(F.col("n").isNull()).count() == 0
    with pytest.raises(Exception, match=r"three hundred"):
        read(spark, path, **options).collect()


def test_an_error_cell_does_not_fail_a_default_read(spark, scratch):
    # One #DIV/0! in a number column and one #N/A in a text column: a
    # default (FAILFAST) read succeeds, the number null, the code kept.
    import xlsxwriter

    path = os.path.join(scratch, "div0.xlsx")
    workbook = xlsxwriter.Workbook(path)
    sheet = workbook.add_worksheet("Data")
    sheet.write_row(0, 0, ["id", "amount", "label"])
    for row in range(1, 6):
        sheet.write_number(row, 0, row)
        if row == 3:
            sheet.write_formula(row, 1, "=1/0", None, "#DIV/0!")
        else:
            sheet.write_number(row, 1, row * 1.5)
        if row == 4:
            sheet.write_formula(row, 2, "=NA()", None, "#N/A")
        else:
            sheet.write_string(row, 2, f"x{row}")
    workbook.close()
    df = read(spark, path)
    assert dict(df.dtypes)["amount"] == "double" and dict(df.dtypes)["label"] == "string"
    rows = df.orderBy("id").collect()
    assert [row["amount"] for row in rows] == [1.5, 3.0, None, 6.0, 7.5]
    assert [row["label"] for row in rows] == ["x1", "x2", "x3", "#N/A", "x5"]
    for mode in ("PERMISSIVE", "DROPMALFORMED"):
        moded = read(spark, path, mode=mode)
        assert moded.count() == 5
        if mode == "PERMISSIVE":
            assert moded.filter(F.col("_corrupt_record").isNotNull()).count() == 0
    # onErrorValue=strict: FAILFAST fails naming the cell and the code.
    with pytest.raises(Exception, match=r"#DIV/0!") as raised:
        read(spark, path, onErrorValue="strict").collect()
    assert "onErrorValue=null" in str(raised.value)
    with pytest.raises(Exception, match=r"onErrorValue must be null or strict"):
        read(spark, path, onErrorValue="maybe").collect()


def test_sampling_every_row(spark, scratch):
    # A fraction after the sample of whole numbers: FAILFAST fails naming
    # the cell; samplingRows=all types the column double from every row.
    import xlsxwriter

    path = os.path.join(scratch, "fraction.xlsx")
    workbook = xlsxwriter.Workbook(path)
    sheet = workbook.add_worksheet("Data")
    sheet.write_row(0, 0, ["id", "amount"])
    for row in range(1, 301):
        sheet.write_number(row, 0, row)
        sheet.write_number(row, 1, 10 if row <= 200 else 10.5)
    workbook.close()
    with pytest.raises(Exception, match=r"B202") as raised:
        read(spark, path, samplingRows="100").collect()
    assert "samplingRows=all" in str(raised.value)
    df = read(spark, path, samplingRows="all", batchSize="64")
    assert dict(df.dtypes)["amount"] == "double"
    assert df.agg(F.sum("amount")).first()[0] == 10 * 200 + 10.5 * 100


def test_batches_that_need_no_cast_pass_without_pyarrow_compute(scratch):
    # A Python worker reading columns whose types are already Spark's
    # (numbers, text, booleans, dates; the file and sheet columns) passes
    # the batches on without importing pyarrow.compute (about 0.3 s once
    # per worker); the values are the workbook's.
    import subprocess
    import sys
    import textwrap

    import xlsxwriter

    path = os.path.join(scratch, "plain.xlsx")
    workbook = xlsxwriter.Workbook(path)
    date_format = workbook.add_format({"num_format": "yyyy-mm-dd"})
    sheet = workbook.add_worksheet("Data")
    sheet.write_row(0, 0, ["id", "amount", "name", "flag", "day"])
    for row in range(1, 201):
        sheet.write_number(row, 0, row)
        sheet.write_number(row, 1, row / 4)
        sheet.write_string(row, 2, f"name {row % 7}")
        sheet.write_boolean(row, 3, row % 3 == 0)
        sheet.write_number(row, 4, 45000 + row, date_format)
    workbook.close()
    script = textwrap.dedent(
        f"""
        import sys
        from sheetstream.spark import SheetstreamDataSource
        source = SheetstreamDataSource({{"path": {path!r}, "includeFileColumn": "true",
                                         "includeSheetColumn": "true", "batchSize": "64"}})
        reader = source.reader(source.schema())
        batches = [batch for partition in reader.partitions() for batch in reader.read(partition)]
        print("compute" if "pyarrow.compute" in sys.modules else "no compute")
        ids = [value for batch in batches for value in batch.column("id").to_pylist()]
        print(sum(ids), len(ids), len(batches))
        print(sorted({{value for batch in batches for value in batch.column("_sheet").to_pylist()}}))
        print(batches[-1].column("_file")[0].as_py() == {path!r}, batches[0].column("day")[0].as_py())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:4] == [
        "no compute",
        f"{sum(range(1, 201))} 200 4",
        "['Data']",
        "True 2023-03-16",
    ]
