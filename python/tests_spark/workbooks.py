"""Writes the Spark tests' workbooks (xlsxwriter): a data set of 40
workbooks of mixed sizes, sheet counts and column orders, and damaged ones
for the modes. Nothing here is committed as a file: the tests write it."""

from __future__ import annotations

import datetime
import io
import os
import random
import zipfile
from typing import Dict, List, Sequence

import xlsxwriter

#: The columns every generated sheet has, in a per-file order.
COLUMNS = ("id", "amount", "name", "flag", "when")
EPOCH = datetime.date(1899, 12, 30)
WORDS = ("apple", "pear", "Ünïcødé", "naïve café", "tab\tand \"quotes\"", "日本語", "x" * 40)


def column_order(index: int) -> List[str]:
    """Rotations and a reversal: files disagree on the order of columns."""
    rotated = list(COLUMNS[index % 5 :] + COLUMNS[: index % 5])
    return rotated[::-1] if index % 2 else rotated


def write_workbook(path: str, sheets: Dict[str, int], order: Sequence[str], seed: int) -> None:
    """A workbook whose sheets (name -> data rows) have a header row and
    the columns of ``order``; values from a seeded generator, some empty."""
    rng = random.Random(seed)
    workbook = xlsxwriter.Workbook(path, {"constant_memory": True})
    date_format = workbook.add_format({"num_format": "yyyy-mm-dd"})
    for sheet_name, rows in sheets.items():
        sheet = workbook.add_worksheet(sheet_name)
        for column, name in enumerate(order):
            sheet.write_string(0, column, name)
        for row in range(1, rows + 1):
            values = {
                "id": seed * 1_000_000 + row,
                "amount": round(rng.uniform(-1000, 1000), rng.choice((0, 2, 6))),
                "name": None if rng.random() < 0.05 else f"{rng.choice(WORDS)} {rng.randint(0, 999)}",
                "flag": rng.random() < 0.5,
                "when": None if rng.random() < 0.1 else EPOCH + datetime.timedelta(days=rng.randint(36000, 47000)),
            }
            for column, name in enumerate(order):
                value = values[name]
                if value is None:
                    continue
                if name == "name":
                    sheet.write_string(row, column, value)
                elif name == "flag":
                    sheet.write_boolean(row, column, value)
                elif name == "when":
                    sheet.write_datetime(row, column, value, date_format)
                else:
                    sheet.write_number(row, column, value)
    workbook.close()


def write_data_set(directory: str) -> List[str]:
    """40 workbooks: 1 to 4 sheets, 1 to ~6,000 data rows a sheet (three
    larger files, the rest small), column orders differing by file."""
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(14)
    paths = []
    for index in range(40):
        sheet_count = 1 + index % 4
        if index in (3, 17, 31):
            sizes = [6000 - 1000 * sheet for sheet in range(sheet_count)]
        else:
            sizes = [rng.randint(1, 400) for _ in range(sheet_count)]
        sheets = {f"S{sheet + 1}" if sheet else "Data": size for sheet, size in enumerate(sizes)}
        path = os.path.join(directory, f"book_{index:02}.xlsx")
        write_workbook(path, sheets, column_order(index), seed=index + 1)
        paths.append(path)
    return paths


def write_unopenable(path: str) -> None:
    """A workbook cut in half: no ZIP directory to open."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>" * 1000)
    data = buffer.getvalue()
    with open(path, "wb") as file:
        file.write(data[: len(data) // 2])


def damage_sheet(path: str, part: str, after_row: int) -> None:
    """Rewrites ``part`` of the workbook at ``path`` with the row after
    ``after_row`` broken (a cell tag that is never closed), so the sheet
    reads to that row and then fails."""
    with zipfile.ZipFile(path) as archive:
        entries = [(info, archive.read(info.filename)) for info in archive.infolist()]
    marker = f'<row r="{after_row + 1}"'.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            if info.filename == part:
                at = data.index(marker)
                data = data[:at] + b'<row r="%d"><c r="A%d"><v>1</c></row>' % (after_row + 1, after_row + 1) + data[at:]
            archive.writestr(info.filename, data)


def write_text_in_number_column(path: str) -> None:
    """One sheet, columns in the usual order, where the amount of data row
    3 is the text "n/a" (a cell that does not fit a double column)."""
    workbook = xlsxwriter.Workbook(path)
    sheet = workbook.add_worksheet("Data")
    for column, name in enumerate(COLUMNS):
        sheet.write_string(0, column, name)
    for row in range(1, 6):
        sheet.write_number(row, 0, row)
        if row == 3:
            sheet.write_string(row, 1, "n/a")
        else:
            sheet.write_number(row, 1, row * 1.5)
        sheet.write_string(row, 2, f"name {row}")
        sheet.write_boolean(row, 3, row % 2 == 0)
        sheet.write_datetime(row, 4, datetime.datetime(2024, 1, row), workbook.add_format({"num_format": "yyyy-mm-dd"}))
    workbook.close()
