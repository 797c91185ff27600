"""Writes examples/data/report.xlsx, the guide's hand-made workbook: a
title above two Excel tables (Sales with a totals row, Costs), and a sheet
with a two-row header, merged labels, a hidden row and a hidden column.

    .venv/bin/python docs/samples.py      # needs xlsxwriter

The file is committed; run this only to change it (the guide's expected
outputs follow its cells)."""

import datetime
import pathlib

import xlsxwriter

OUT = pathlib.Path(__file__).resolve().parent.parent / "examples" / "data" / "report.xlsx"


def main() -> None:
    book = xlsxwriter.Workbook(str(OUT))
    book.set_properties({"created": datetime.datetime(2024, 3, 1)})
    bold = book.add_format({"bold": True})

    report = book.add_worksheet("Report")
    report.write("A1", "Sales report 2024", bold)
    report.write("A2", "Figures in units and euros")
    report.add_table("B4:D8", {
        "name": "Sales",
        "total_row": True,
        "columns": [
            {"header": "Region", "total_string": "Total"},
            {"header": "Units", "total_function": "sum", "total_value": 295},
            {"header": "Price"},
        ],
        "data": [["North", 120, 2.5], ["South", 80, 3.0], ["East", 95, 2.75]],
    })
    report.add_table("H4:I6", {
        "name": "Costs",
        "columns": [{"header": "Item"}, {"header": "Cost"}],
        "data": [["Rent", 1200], ["Power", 310]],
    })

    quarterly = book.add_worksheet("Quarterly")
    quarterly.write("A1", "Units sold by quarter", bold)
    quarterly.write("A3", "Region")
    quarterly.merge_range("B3:C3", 2024)
    quarterly.write("D3", "Note")
    quarterly.write_row("B4", ["Q1", "Q2"])
    quarterly.merge_range("A5:A6", "North")
    quarterly.write_row("B5", [10, 12, "shops"])
    quarterly.write_row("B6", [11, 13, "online"])
    quarterly.write_row("A7", ["South", 7, 9, "draft"])
    quarterly.write_row("A8", ["East", 5, 6, "shops"])
    quarterly.set_row(7, None, None, {"hidden": True})      # row 8: East
    quarterly.set_column("D:D", None, None, {"hidden": True})
    book.close()


if __name__ == "__main__":
    main()
