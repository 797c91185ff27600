""".xlsb workbooks through the Python package: the same data as .xlsx
(xlsxwriter) and as .xlsb (a few BIFF12 records written here) reads the
same with read_excel and open, by path, bytes and file object, and in one
read of both formats together."""

from __future__ import annotations

import datetime
import io
import math
import pathlib
import struct
import zipfile

import pytest

import sheetstream
from conftest import WriteWorkbook

ROWS = [
    ("North", 10.0, datetime.date(2024, 3, 1), True),
    ("Süd 東京", -2.5, datetime.date(2024, 3, 2), False),
    ("east", 123456789.0, datetime.date(2024, 3, 3), True),
]


def record(kind: int, body: bytes = b"") -> bytes:
    """One BIFF12 record: type and size as 7-bit varints, then the body."""
    head = bytes([kind]) if kind < 0x80 else bytes([(kind & 0x7F) | 0x80, kind >> 7])
    size, sized = len(body), b""
    while True:
        byte, size = size & 0x7F, size >> 7
        sized += bytes([byte | (0x80 if size else 0)])
        if not size:
            break
    return head + sized + body


def wide(text: str) -> bytes:
    units = text.encode("utf-16-le")
    return struct.pack("<I", len(units) // 2) + units


def cell(column: int, style: int) -> bytes:
    return struct.pack("<II", column, style)


def write_xlsb(path: pathlib.Path, rows: list[tuple[str, float, datetime.date, bool]] = ROWS) -> pathlib.Path:
    """The rows (ROWS) under a header row, as .xlsb: shared strings, real
    numbers, dates by a cell format of the built-in date format 14,
    booleans."""
    strings = ["region", "amount", "day", "flag"] + [row[0] for row in rows]
    data = record(0x0000, struct.pack("<IIH3sI", 0, 0, 300, b"\0\0\0", 0))
    for column in range(4):
        data += record(0x0007, cell(column, 0) + struct.pack("<I", column))
    for number, (_, amount, day, flag) in enumerate(rows, start=1):
        data += record(0x0000, struct.pack("<IIH3sI", number, 0, 300, b"\0\0\0", 0))
        data += record(0x0007, cell(0, 0) + struct.pack("<I", 3 + number))
        data += record(0x0005, cell(1, 0) + struct.pack("<d", amount))
        serial = (day - datetime.date(1899, 12, 30)).days
        data += record(0x0005, cell(2, 1) + struct.pack("<d", serial))
        data += record(0x0004, cell(3, 0) + bytes([flag]))
    sheet = record(0x0081) + record(0x0094, struct.pack("<IIII", 0, len(rows), 0, 3))
    sheet += record(0x0091) + data + record(0x0092) + record(0x0082)
    book = record(0x0083) + record(0x0099, struct.pack("<II", 0, 0) + wide(""))
    book += record(0x009C, struct.pack("<II", 0, 1) + wide("rId1") + wide("Data")) + record(0x0084)
    xf = lambda fmt: struct.pack("<HH", 0xFFFF, fmt) + bytes(12)  # noqa: E731
    styles = record(0x0116) + record(0x0269, struct.pack("<I", 2)) + record(0x002F, xf(0))
    styles += record(0x002F, xf(14)) + record(0x026A) + record(0x0117)
    sst = record(0x009F, struct.pack("<II", len(strings), len(strings)))
    sst += b"".join(record(0x0013, b"\0" + wide(text)) for text in strings) + record(0x00A0)
    relationship = 'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr(
            "_rels/.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" {relationship}officeDocument" Target="xl/workbook.bin"/>'
            "</Relationships>",
        )
        package.writestr(
            "xl/_rels/workbook.bin.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" {relationship}worksheet" Target="worksheets/sheet1.bin"/>'
            f'<Relationship Id="rId2" {relationship}styles" Target="styles.bin"/>'
            f'<Relationship Id="rId3" {relationship}sharedStrings" Target="sharedStrings.bin"/>'
            "</Relationships>",
        )
        package.writestr("xl/workbook.bin", book)
        package.writestr("xl/styles.bin", styles)
        package.writestr("xl/sharedStrings.bin", sst)
        package.writestr("xl/worksheets/sheet1.bin", sheet)
    return path


def write_xlsx(write_workbook: WriteWorkbook) -> pathlib.Path:
    def fill(workbook) -> None:  # type: ignore[no-untyped-def]
        sheet = workbook.add_worksheet("Data")
        date = workbook.add_format({"num_format": 14})
        sheet.write_row(0, 0, ["region", "amount", "day", "flag"])
        for number, (region, amount, day, flag) in enumerate(ROWS, start=1):
            sheet.write_string(number, 0, region)
            sheet.write_number(number, 1, amount)
            sheet.write_datetime(number, 2, datetime.datetime.combine(day, datetime.time()), date)
            sheet.write_boolean(number, 3, flag)

    return write_workbook(fill, name="same.xlsx")


def test_xlsb_reads_as_the_same_xlsx(write_workbook: WriteWorkbook, tmp_path: pathlib.Path) -> None:
    xlsx = write_xlsx(write_workbook)
    xlsb = write_xlsb(tmp_path / "same.xlsb")
    expected = sheetstream.read_excel(xlsx)
    frame = sheetstream.read_excel(xlsb)
    assert frame.columns == ["region", "amount", "day", "flag"]
    assert frame["region"].to_list() == [row[0] for row in ROWS]
    assert frame["day"].to_list() == [row[2] for row in ROWS]
    assert frame.equals(expected)
    # By bytes and by file object, and through open().
    assert sheetstream.read_excel(xlsb.read_bytes()).equals(expected)
    assert sheetstream.read_excel(io.BytesIO(xlsb.read_bytes())).equals(expected)
    workbook = sheetstream.open(xlsb)
    assert workbook.sheet_names == ["Data"]
    assert workbook.sheet("Data").to_arrow().num_rows == len(ROWS)


def test_one_read_of_xlsx_and_xlsb_together(write_workbook: WriteWorkbook, tmp_path: pathlib.Path) -> None:
    xlsx = write_xlsx(write_workbook)
    xlsb = write_xlsb(tmp_path / "same.xlsb")
    frame = sheetstream.read_excel([xlsx, xlsb], file_column="file", threads=2)
    assert frame.height == 2 * len(ROWS)
    assert frame.filter(frame["file"] == str(xlsb))["amount"].to_list() == [row[1] for row in ROWS]
    glob = sheetstream.read_excel(str(tmp_path / "same.xls*"), file_column="file")
    assert glob.height == 2 * len(ROWS)


@pytest.mark.parametrize("amount", [math.nan, math.inf, -math.inf])
def test_a_nan_or_infinite_number_is_a_damaged_record(tmp_path: pathlib.Path, amount: float) -> None:
    # No cell holds a NaN or an infinity: the BrtCellReal holding one is
    # refused, naming its cell, through every reader (never a float NaN).
    rows = ROWS[:1] + [("bad", amount, datetime.date(2024, 3, 4), True)]
    xlsb = write_xlsb(tmp_path / "nan.xlsb", rows)
    reads = [
        lambda: sheetstream.read_excel(xlsb),
        lambda: sheetstream.open(xlsb).sheet("Data").to_arrow(),
        lambda: list(sheetstream.open(xlsb).sheet("Data").iter_rows()),
    ]
    for read in reads:
        with pytest.raises(sheetstream.CellError, match="which no cell holds") as raised:
            read()
        assert "cell B3" in str(raised.value)
