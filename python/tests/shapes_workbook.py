"""The hand-made sheets' workbook (issue 26), written with xlsxwriter:
shared by the Python and the Spark tests."""

from __future__ import annotations

import pathlib

import xlsxwriter

# The table a person types from `Sales` with every option on.
QUARTERS = ["Region", "2024 Q1", "2024 Q2", "2025 Q1", "2025 Q2"]
NORTH_1 = ["North", 1, 2, 3, 4]
NORTH_2 = ["North", 5, 6, 7, 8]
EAST = ["East", 13, 14, 15, 16]
TOTAL = ["Total", 100, 200, 300, 400]


def write_shapes(path: pathlib.Path) -> pathlib.Path:
    """`Sales`: a title in A1; a two-row header in rows 3-4 (Region merged
    down A3:A4, 2024 merged across B3:C3 and 2025 across D3:E3 above
    Q1 Q2 Q1 Q2); North merged down A5:A6; South's row 7 hidden by the
    autofilter; column F (Internal / Note) hidden; row 9 empty; Total in
    row 10. `Titled`: a title in A1 above Item (A3) and Amount (D3), two
    rows, columns B and C empty."""
    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet("Sales")
    sheet.write_string(0, 0, "Sales report 2024")
    sheet.merge_range(2, 0, 3, 0, "Region")
    sheet.merge_range(2, 1, 2, 2, "2024")
    sheet.merge_range(2, 3, 2, 4, "2025")
    sheet.write_string(2, 5, "Internal")
    sheet.write_row(3, 1, ["Q1", "Q2", "Q1", "Q2", "Note"])
    sheet.merge_range(4, 0, 5, 0, "North")
    sheet.write_string(6, 0, "South")
    sheet.write_string(7, 0, "East")
    for row, note in [(4, "x"), (5, "y"), (6, "z"), (7, "w")]:
        sheet.write_row(row, 1, [(row - 4) * 4 + column for column in range(1, 5)] + [note])
    sheet.write_row(9, 0, TOTAL)
    sheet.set_column(5, 5, None, None, {"hidden": True})
    sheet.autofilter(3, 0, 7, 5)
    sheet.filter_column_list(0, ["North", "East", "Blanks"])
    # xlsxwriter leaves hiding the filtered rows to the caller, as Excel
    # marks them: hidden="1" on the row.
    sheet.set_row(6, None, None, {"hidden": True})
    titled = workbook.add_worksheet("Titled")
    titled.write_string(0, 0, "Quarterly figures")
    titled.write_string(2, 0, "Item")
    titled.write_string(2, 3, "Amount")
    titled.write_row(3, 0, ["apples", None, None, 10])
    titled.write_row(4, 0, ["pears", None, None, 20.5])
    workbook.close()
    return path
