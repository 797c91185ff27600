"""Excel tables and ranges from Python: `Workbook.tables()`, `table=` and
`range=` in read_excel, open().sheet and scan_excel, on workbooks written
here with xlsxwriter (tables with totals rows, a title above, two tables
side by side, a note below); and the sheet metadata as typed objects
(merged ranges, hidden rows and columns, hyperlinks, comments, defined
names with their sheet). Values are checked cell by cell."""

from __future__ import annotations

import pathlib

import polars as pl
import pytest
import xlsxwriter

import sheetstream
from conftest import CORPUS


@pytest.fixture()
def report(tmp_path: pathlib.Path) -> pathlib.Path:
    """`Report`: a title in A1, `Sales` at B4:D8 (totals row 8), `Costs`
    at H4:I6 beside it, a note in C12 below Sales; `Other`: `Ids` without
    a header row at A1:B3, after a hidden sheet-level name."""
    path = tmp_path / "report.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Report")
    sheet.write("A1", "Quarterly report")
    sheet.add_table(
        "B4:D8",
        {
            "name": "Sales",
            "total_row": True,
            "data": [["North", 10, 1.5], ["South", 20, 2.5], ["East", 30, 3.25]],
            "columns": [
                {"header": "Region", "total_string": "Total"},
                {"header": "Units", "total_function": "sum"},
                {"header": "Price"},
            ],
        },
    )
    sheet.write("E5", "beside")
    sheet.write("C12", "a note below the table")
    sheet.add_table(
        "H4:I6",
        {"name": "Costs", "data": [["Rent", 100], ["Power", 40]],
         "columns": [{"header": "Item"}, {"header": "Cost"}]},
    )
    other = book.add_worksheet("Other")
    other.add_table("A1:B3", {"name": "Ids", "header_row": False,
                              "data": [[1, "id-0"], [2, "id-1"], [3, "id-2"]]})
    book.close()
    return path


def test_tables_are_listed_with_their_sheet_range_and_columns(report: pathlib.Path) -> None:
    with sheetstream.open(report) as workbook:
        tables = workbook.tables()
        assert [t.name for t in tables] == ["Sales", "Costs", "Ids"]
        sales = tables[0]
        assert isinstance(sales, sheetstream.Table)
        assert (sales.sheet, sales.sheet_position, str(sales.range)) == ("Report", 0, "B4:D8")
        assert sales.range == "B4:D8"
        assert (sales.range.first_row, sales.range.first_column) == (3, 1)
        assert (sales.range.last_row, sales.range.last_column) == (7, 3)
        assert (sales.header_row_count, sales.totals_row_count) == (1, 1)
        assert sales.columns == ["Region", "Units", "Price"]
        assert sales.display_name == "Sales"
        ids = workbook.table("ids")
        assert (ids.sheet, ids.header_row_count, ids.columns) == ("Other", 0, ["Column1", "Column2"])
        with pytest.raises(sheetstream.TableNotFoundError, match=r"the workbook's tables: Sales, Costs, Ids"):
            workbook.table("Salez")


def test_a_table_reads_by_name_without_totals_or_neighbours(report: pathlib.Path) -> None:
    frame = sheetstream.read_excel(report, table="Sales")
    assert frame.columns == ["Region", "Units", "Price"]
    assert frame.dtypes == [pl.String, pl.Int64, pl.Float64]
    assert frame.rows() == [("North", 10, 1.5), ("South", 20, 2.5), ("East", 30, 3.25)]
    with_totals = sheetstream.read_excel(report, table="sales", include_totals_row=True)
    assert with_totals["Region"].to_list() == ["North", "South", "East", "Total"]
    # The table on the other sheet, found without sheet=.
    ids = sheetstream.read_excel(report, table="Ids")
    assert ids.rows() == [(1, "id-0"), (2, "id-1"), (3, "id-2")]
    # pyarrow and the Workbook.sheet path agree.
    table = sheetstream.read_excel(report, table="Costs", to="pyarrow")
    assert table.to_pylist() == [{"Item": "Rent", "Cost": 100}, {"Item": "Power", "Cost": 40}]
    with sheetstream.open(report) as workbook:
        sheet = workbook.sheet(table="Costs")
        assert sheet.name == "Report"
        assert sheet.to_polars().rows() == [("Rent", 100), ("Power", 40)]
        # Another sheet than the table's is an error naming both.
        with pytest.raises(sheetstream.TableNotFoundError, match="the table is on sheet 'Report'"):
            workbook.sheet("Other", table="Costs")
    # A column selection by the table's names.
    chosen = sheetstream.read_excel(report, table="Sales", columns=["Price", "Region"])
    assert chosen.rows() == [(1.5, "North"), (2.5, "South"), (3.25, "East")]
    lazy = sheetstream.scan_excel(report, table="Sales").filter(pl.col("Units") > 15).collect()
    assert lazy.rows() == [("South", 20, 2.5), ("East", 30, 3.25)]


def test_an_unknown_table_lists_the_tables(report: pathlib.Path) -> None:
    with pytest.raises(sheetstream.TableNotFoundError) as caught:
        sheetstream.read_excel(report, table="Salez")
    assert "no table named 'Salez' (the workbook's tables: Sales, Costs, Ids)" in str(caught.value)
    assert caught.value.file == str(report)


def test_ranges_read_their_rectangle(report: pathlib.Path) -> None:
    frame = sheetstream.read_excel(report, sheet="Report", range="B4:D7")
    assert frame.rows() == [("North", 10, 1.5), ("South", 20, 2.5), ("East", 30, 3.25)]
    # The range's sheet is the sheet read; quotes as Excel writes them.
    frame = sheetstream.read_excel(report, range="'Report'!H4:I6")
    assert frame.rows() == [("Rent", 100), ("Power", 40)]
    # Open below: rows with values only beside the range are no rows.
    frame = sheetstream.read_excel(report, range="Report!H4:I")
    assert frame.rows() == [("Rent", 100), ("Power", 40)]
    # A header row other than the range's first.
    frame = sheetstream.read_excel(report, range="B:C", header_row=3)
    assert frame.columns == ["Region", "Units"]
    assert frame["Units"].to_list()[-1] == "a note below the table"
    with pytest.raises(sheetstream.SheetNotFoundError, match="the sheet read is 'Report'"):
        sheetstream.read_excel(report, sheet="Report", range="Other!A1:B3")
    with pytest.raises(ValueError, match="is not a range"):
        sheetstream.read_excel(report, range="B3:F100x")
    with pytest.raises(TypeError, match="range must be a string"):
        sheetstream.read_excel(report, range=3)


@pytest.fixture()
def annotated(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "annotated.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Data")
    sheet.merge_range("A1:C1", "2024")
    sheet.merge_range("A2:A4", "group")
    for row in range(1, 6):
        sheet.write(row, 1, row)
    sheet.set_row(2, None, None, {"hidden": True})
    sheet.set_column("D:E", None, None, {"hidden": True})
    sheet.write_url("B6", "https://example.com/x", string="link", tip="Go")
    sheet.write_comment("C3", "check this", {"author": "Ann"})
    second = book.add_worksheet("Second")
    second.write("A1", 1)
    book.define_name("Second!Local", "=Second!$A$1")
    book.define_name("Everything", "=Data!$A$1:$C$6")
    book.close()
    return path


def test_sheet_metadata_is_typed(annotated: pathlib.Path) -> None:
    with sheetstream.open(annotated) as workbook:
        meta = workbook.sheet_metadata("Data")
        assert isinstance(meta, sheetstream.SheetMetadata)
        assert [str(r) for r in meta.merged] == ["A1:C1", "A2:A4"]
        assert (1, 0) in meta.merged[1] and (4, 0) not in meta.merged[1]
        assert meta.hidden_columns == [(3, 4)]
        assert workbook.hidden_rows("Data") == [2]
        assert len(meta.hyperlinks) == 1
        link = meta.hyperlinks[0]
        assert (str(link.range), link.target, link.tooltip) == ("B6", "https://example.com/x", "Go")
        assert [(c.cell, c.row, c.column, c.author, c.text) for c in meta.comments] == [
            ("C3", 2, 2, "Ann", "check this")
        ]
        assert meta.dimension == "A1:C6"
        names = {name.name: (name.sheet, name.sheet_name) for name in workbook.defined_names}
        assert names["Local"] == (1, "Second")
        assert names["Everything"] == (None, None)
        assert workbook.sheet_metadata(1).merged == []


def test_a_table_on_another_sheet_in_each_file(tmp_path: pathlib.Path) -> None:
    paths = []
    for at, sheet_of_table in enumerate([0, 1]):
        path = tmp_path / f"book{at}.xlsx"
        book = xlsxwriter.Workbook(str(path))
        sheets = [book.add_worksheet("A"), book.add_worksheet("B")]
        sheets[1 - sheet_of_table].write("A1", "not this")
        sheets[sheet_of_table].add_table(
            "C3:D4", {"name": "T", "data": [[at, f"row of {at}"]],
                      "columns": [{"header": "n"}, {"header": "text"}]}
        )
        book.close()
        paths.append(path)
    frame = sheetstream.read_excel(paths, table="t", file_column="file", sheet_column="sheet")
    assert frame.rows() == [
        (str(paths[0]), "A", 0, "row of 0"),
        (str(paths[1]), "B", 1, "row of 1"),
    ]
    with pytest.raises(sheetstream.TableNotFoundError, match="the table is on sheet 'B'"):
        sheetstream.read_excel(paths[1], sheet="A", table="T")


def test_table_and_range_together_are_refused(report: pathlib.Path) -> None:
    with pytest.raises(TypeError, match="give table or range, not both"):
        sheetstream.read_excel(report, table="Sales", range="B4:D7")


BINARY_CORPUS = CORPUS.parent / "corpus-binary"


def test_xlsb_tables_and_xls_comments_from_the_binary_corpus() -> None:
    """An .xlsb's tables (its xl/tables/tableN.bin parts) list and read by
    name as an .xlsx's do; an .xls's comments come from its NOTE records."""
    if not BINARY_CORPUS.is_dir():
        pytest.skip(f"the binary corpus is absent ({BINARY_CORPUS})")
    xlsb = BINARY_CORPUS / "polars" / "example_2.xlsb"
    with sheetstream.open(xlsb) as workbook:
        tables = workbook.tables()
        assert [(t.name, t.sheet, str(t.range), t.totals_row_count) for t in tables] == [
            ("Table1", "test3", "B5:D12", 1),
            ("TemporalData", "temporal", "B4:G8", 0),
        ]
        assert tables[1].columns == ["id", "dtm", "dt", "dtm_str", "dt_str", "tm_str"]
    frame = sheetstream.read_excel(xlsb, table="Table1")
    assert frame.columns == ["cardinality", "rows_by_key", "iter groups"]
    assert frame["cardinality"].to_list() == [1, 3, 15, 30, 150, 300]
    with sheetstream.open(BINARY_CORPUS / "poi" / "SimpleWithComments.xls") as workbook:
        comments = workbook.sheet_metadata(0).comments
        assert [(c.cell, c.author, c.text) for c in comments] == [
            ("B1", "Yegor Kozlov", "Yegor Kozlov:\nfirst cell"),
            ("B2", "Yegor Kozlov", "Yegor Kozlov:\nsecond cell"),
            ("B3", "Yegor Kozlov", "Yegor Kozlov:\nthird cell"),
        ]
