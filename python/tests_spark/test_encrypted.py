"""Encrypted workbooks through the Spark source: the ``password`` option
(Excel's default password tried first, unasked), and what a workbook no
password opens gives in each mode. The workbooks are cases of the
encrypted conformance corpus (../shared/conformance/corpus-encrypted)."""

from __future__ import annotations

import os
import shutil

import pytest

import sheetstream

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "conformance")
ENCRYPTED = os.path.join(CORPUS, "corpus-encrypted", "generated")


def case(tmp_path, name: str) -> tuple[str, str]:
    """A copy of a case in a folder of its own, and its password."""
    source = os.path.join(ENCRYPTED, name)
    if not os.path.isfile(source):
        pytest.skip(f"the encrypted corpus is absent ({ENCRYPTED})")
    folder = tmp_path / name.replace(".", "_")
    folder.mkdir()
    shutil.copy(source, folder / name)
    with open(os.path.splitext(source)[0] + ".password", encoding="utf-8") as file:
        return str(folder / name), file.read()


def read(spark, path, **options):
    reader = spark.read.format("sheetstream")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(path)


@pytest.mark.parametrize(
    "name", ["agile-aes256-sha512.xlsx", "xls-rc4-cryptoapi-128.xls", "agile-aes128-sha1_xlsb.xlsb"]
)
def test_the_password_option_reads_what_read_excel_reads(spark, tmp_path, name):
    path, password = case(tmp_path, name)
    expected = sheetstream.read_excel(path, None, password=password, union_by_name=True)
    frame = read(spark, path, sheet="all", password=password, unionByName="true")
    assert frame.count() == expected.height
    assert sorted(frame.columns) == sorted(expected.columns)


def test_a_workbook_no_password_opens_in_each_mode(spark, tmp_path):
    path, password = case(tmp_path, "agile-aes256-sha512.xlsx")
    with pytest.raises(Exception, match="a password is required"):
        read(spark, path).collect()
    with pytest.raises(Exception, match="the password is incorrect"):
        read(spark, path, password=password + "!").collect()
    rows = read(spark, path, mode="PERMISSIVE").collect()
    assert len(rows) == 1
    assert "a password is required" in rows[0]["_corrupt_record"]
    assert path in rows[0]["_corrupt_record"]
    assert read(spark, path, mode="DROPMALFORMED", password="wrong").count() == 0


def test_excels_default_password_opens_unasked(spark, tmp_path):
    source = os.path.join(ENCRYPTED, "agile-aes256-sha512-velvet.xlsx")
    if not os.path.isfile(source):
        pytest.skip(f"the encrypted corpus is absent ({ENCRYPTED})")
    shutil.copy(source, tmp_path / "velvet.xlsx")
    path = str(tmp_path / "velvet.xlsx")
    assert read(spark, path).count() == sheetstream.read_excel(path).height
