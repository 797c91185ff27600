"""The exception hierarchy: classes, location attributes, and the CLI's
message."""

from __future__ import annotations

import pathlib
import zipfile

import pytest

import sheetstream
from conftest import WriteWorkbook, run_cli


def simple(workbook) -> None:  # type: ignore[no-untyped-def]
    sheet = workbook.add_worksheet("Data")
    sheet.write_row(0, 0, ["name", "value"])
    for row in range(1, 50):
        sheet.write_row(row, 0, [f"item {row}", row * 1.5])


def rewrite_part(source: pathlib.Path, target: pathlib.Path, part: str, change) -> pathlib.Path:  # type: ignore[no-untyped-def]
    """Copies the package with one part's bytes passed through `change`."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            data = old.read(item.filename)
            if item.filename == part:
                data = change(data)
            new.writestr(item.filename, data)
    return target


def assert_same_message_as_cli(cli: pathlib.Path, path: pathlib.Path, err: sheetstream.Error) -> None:
    """The CLI puts the file first; an error opening a file names it in its
    location instead (`err.file` too)."""
    result = run_cli(cli, "sheets", path)
    assert result.returncode == 1, result
    assert err.file == str(path)
    message = str(err).replace(f" (at file {path})", "").replace(f"(at file {path}, ", "(at ")
    assert result.stderr.strip() == f"sheetstream: {path}: {message}"


def test_hierarchy() -> None:
    for cls in (
        sheetstream.ReadError,
        sheetstream.NotXlsxError,
        sheetstream.ZipError,
        sheetstream.PackageError,
        sheetstream.XmlError,
        sheetstream.CellError,
        sheetstream.LimitError,
        sheetstream.SheetNotFoundError,
    ):
        assert issubclass(cls, sheetstream.Error)
    assert issubclass(sheetstream.Error, Exception)
    # An Error raised from Python code has the attributes too.
    err = sheetstream.Error("mine")
    assert (err.part, err.sheet, err.row, err.column, err.offset) == (None,) * 5


def test_not_a_zip(tmp_path: pathlib.Path, cli: pathlib.Path) -> None:
    path = tmp_path / "old.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))
    with pytest.raises(sheetstream.NotXlsxError) as caught:
        sheetstream.open(path)
    assert "OLE2" in str(caught.value)
    assert caught.value.part is None
    assert_same_message_as_cli(cli, path, caught.value)


def test_missing_file(tmp_path: pathlib.Path) -> None:
    with pytest.raises(sheetstream.ReadError, match="No such file"):
        sheetstream.open(tmp_path / "absent.xlsx")


def test_malformed_workbook_part(write_workbook: WriteWorkbook, tmp_path: pathlib.Path, cli: pathlib.Path) -> None:
    good = write_workbook(simple)
    bad = rewrite_part(
        good, tmp_path / "bad.xlsx", "xl/workbook.xml",
        lambda data: data.replace(b"<sheets>", b"<sheets><&bogus;"),
    )
    with pytest.raises(sheetstream.XmlError) as caught:
        sheetstream.open(bad)
    err = caught.value
    assert err.part == "xl/workbook.xml"
    assert isinstance(err.offset, int) and err.offset > 0
    assert err.sheet is None and err.row is None
    assert_same_message_as_cli(cli, bad, err)


def test_missing_part(write_workbook: WriteWorkbook, tmp_path: pathlib.Path) -> None:
    good = write_workbook(simple)
    bad = tmp_path / "no-workbook.xlsx"
    with zipfile.ZipFile(good) as old, zipfile.ZipFile(bad, "w") as new:
        for item in old.infolist():
            if item.filename != "xl/workbook.xml":
                new.writestr(item.filename, old.read(item.filename))
    with pytest.raises(sheetstream.PackageError):
        sheetstream.open(bad)


def test_damaged_zip(write_workbook: WriteWorkbook, tmp_path: pathlib.Path) -> None:
    data = bytearray(write_workbook(simple).read_bytes())
    # Cut into the central directory.
    bad = tmp_path / "cut.xlsx"
    bad.write_bytes(bytes(data[: len(data) - 30]))
    with pytest.raises(sheetstream.Error) as caught:
        sheetstream.open(bad)
    assert type(caught.value) in (sheetstream.ZipError, sheetstream.NotXlsxError)


def bad_row_31(replacement: str):  # type: ignore[no-untyped-def]
    from conftest import number_rows

    for index, row in enumerate(number_rows(100, 3)):
        yield replacement if index == 30 else row


def test_bad_cell_value_names_sheet_row_and_column(tmp_path: pathlib.Path, cli: pathlib.Path) -> None:
    from conftest import write_plain_package

    # B31 is a boolean cell holding 7.
    row = '<row r="31"><c r="A31"><v>1</v></c><c r="B31" t="b"><v>7</v></c></row>'
    path = write_plain_package(tmp_path / "bad-value.xlsx", {"Numbers": bad_row_31(row)})
    sheet = sheetstream.open(path).sheet("Numbers", schema_sample_rows=5)
    with pytest.raises(sheetstream.CellError) as caught:
        sheet.to_arrow()
    err = caught.value
    assert (err.sheet, err.row, err.column) == ("Numbers", 31, 2)
    result = run_cli(cli, "csv", path, "--quiet")
    assert result.stderr.strip() == f"sheetstream: {path}: {err}"
    # Through the PyCapsule stream: the consumer's exception, our message.
    import re

    import pyarrow

    with pytest.raises(pyarrow.ArrowInvalid, match=re.escape(str(err))):
        pyarrow.table(sheetstream.open(path).sheet("Numbers", schema_sample_rows=5))


def test_error_inside_a_sheet_names_sheet_part_and_offset(tmp_path: pathlib.Path, cli: pathlib.Path) -> None:
    from conftest import write_plain_package

    # Row 31: an unclosed cell.
    row = '<row r="31"><c r="A31"><v>1</v><c r="B31"><v>2</v></c></row>'
    rows = bad_row_31(row)

    path = write_plain_package(tmp_path / "bad-row.xlsx", {"Numbers": rows})
    sheet_reader = sheetstream.open(path).sheet("Numbers", batch_size=10, schema_sample_rows=5)
    with pytest.raises(sheetstream.XmlError) as caught:
        for _ in sheet_reader.iter_rows():
            pass
    err = caught.value
    assert err.sheet == "Numbers"
    assert err.part == "xl/worksheets/sheet1.xml"
    assert isinstance(err.offset, int) and err.offset > 3000  # past 30 rows
    result = run_cli(cli, "csv", path, "--quiet")
    assert result.returncode == 1
    assert result.stderr.strip() == f"sheetstream: {path}: {err}"
    # The same error through every way of reading.
    assert err.file is None
    for read in (
        lambda: sheet_reader.to_arrow(),
        lambda: sheet_reader.to_polars(),
        lambda: list(sheet_reader.iter_batches()),
    ):
        with pytest.raises(sheetstream.XmlError) as again:
            read()
        assert str(again.value) == str(err)
    # read_excel (many files) names the file too.
    with pytest.raises(sheetstream.XmlError) as again:
        sheetstream.read_excel(path)
    assert again.value.file == str(path)
    assert str(again.value) == str(err).replace("(at ", f"(at file {path}, ")
