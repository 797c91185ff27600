"""Fixtures of the Spark tests: one local[2] SparkSession for the whole
run, the generated workbooks, and the Rust reader's figures for them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zlib
from collections import defaultdict
from typing import Dict

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import workbooks  # noqa: E402

if os.environ.get("SHEETSTREAM_REQUIRE_SPARK"):
    import pyspark  # noqa: F401  (.ci/run: a missing pyspark is a failure)
else:
    pytest.importorskip("pyspark", reason="pyspark is not installed (the Spark tests need it)")

# Spark's Python workers run the interpreter that runs the tests.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def cli() -> str:
    path = os.environ.get("SHEETSTREAM_CLI") or os.path.join(REPO, "target", "release", "sheetstream")
    if not os.path.exists(path):
        pytest.fail(f"the sheetstream CLI is needed at {path} (cargo build --release, or set SHEETSTREAM_CLI)")
    return path


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    import sheetstream.spark

    session = (
        SparkSession.builder.master("local[2]")
        .appName("sheetstream-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.python.filterPushdown.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    sheetstream.spark.register(session)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def data_set(tmp_path_factory) -> str:
    directory = str(tmp_path_factory.mktemp("books"))
    workbooks.write_data_set(directory)
    return directory


@pytest.fixture(scope="session")
def rust_figures(data_set) -> Dict[str, dict]:
    """Per file, from the Rust reader's cell dump (`sheetstream cells`),
    data rows only (row 1 is the header): rows, the sum of the numbers, the
    CRC-32 sum of the texts, true booleans, dates and their day numbers."""
    figures: Dict[str, dict] = {}
    for name in sorted(os.listdir(data_set)):
        path = os.path.join(data_set, name)
        dump = subprocess.run([cli(), "cells", path], check=True, capture_output=True, text=True).stdout
        rows = set()
        figure = defaultdict(float)
        for line in dump.splitlines():
            cell = json.loads(line)
            row = int("".join(ch for ch in cell["ref"] if ch.isdigit()))
            if row == 1:
                continue
            rows.add((cell["sheet"], row))
            kind, value = cell["t"], cell["v"]
            if kind == "n":
                figure["number_sum"] += value
            elif kind == "s":
                figure["text_crc"] += zlib.crc32(value.encode())
                figure["texts"] += 1
            elif kind == "b":
                figure["trues"] += bool(value)
            elif kind == "d":
                figure["dates"] += 1
        figure["rows"] = len(rows)
        figures[os.path.abspath(path)] = dict(figure)
    return figures


@pytest.fixture()
def scratch(tmp_path) -> str:
    return str(tmp_path)


@pytest.fixture(scope="session")
def damaged_set(tmp_path_factory) -> Dict[str, str]:
    """Two good workbooks, one that cannot be opened, one whose second
    sheet breaks after data row 21 (its first sheet is whole), and one
    with a text in the number column."""
    directory = str(tmp_path_factory.mktemp("damaged"))
    paths = {
        "good1": os.path.join(directory, "good1.xlsx"),
        "good2": os.path.join(directory, "good2.xlsx"),
        "unopenable": os.path.join(directory, "unopenable.xlsx"),
        "broken_sheet": os.path.join(directory, "broken_sheet.xlsx"),
        "bad_cell": os.path.join(directory, "bad_cell.xlsx"),
    }
    workbooks.write_workbook(paths["good1"], {"Data": 30}, workbooks.COLUMNS, 101)
    workbooks.write_workbook(paths["good2"], {"Data": 40}, workbooks.COLUMNS, 102)
    workbooks.write_unopenable(paths["unopenable"])
    workbooks.write_workbook(paths["broken_sheet"], {"Data": 10, "More": 50}, workbooks.COLUMNS, 103)
    workbooks.damage_sheet(paths["broken_sheet"], "xl/worksheets/sheet2.xml", 22)
    workbooks.write_text_in_number_column(paths["bad_cell"])
    paths["dir"] = directory
    return paths


def copy_to(paths, directory):
    os.makedirs(directory, exist_ok=True)
    for path in paths:
        shutil.copy(path, directory)
    return directory
