"""BatchReport: per batch (`iter_batches(with_report=True)`) and added up
over a read (`Sheet.report`), the cells that did not arrive as values; and
`keep_rows_before_error` for a sheet damaged after some rows."""

from __future__ import annotations

import pathlib

import polars
import pyarrow as pa
import pytest

import sheetstream
from conftest import WriteWorkbook, write_plain_package


def late_misfits(workbook) -> None:  # type: ignore[no-untyped-def]
    """Column n holds whole numbers in rows 2-11; row 12 a text, row 13 a
    #DIV/0! error, row 14 a number again and a cell in column D, which no
    sampled row has."""
    sheet = workbook.add_worksheet("Late")
    sheet.write_row(0, 0, ["n", "t"])
    for i in range(1, 11):
        sheet.write_row(i, 0, [i, f"row {i}"])
    sheet.write_string(11, 0, "late text")
    sheet.write_formula(12, 0, "=1/0", None, "#DIV/0!")
    sheet.write_number(13, 0, 14)
    sheet.write_string(13, 3, "far out")


@pytest.fixture
def misfits(write_workbook: WriteWorkbook) -> pathlib.Path:
    return write_workbook(late_misfits)


def test_batch_reports_name_each_bad_cell(misfits: pathlib.Path) -> None:
    sheet = sheetstream.open(misfits).sheet(0, schema_sample_rows=5, batch_size=5, on_mismatch="null")
    assert sheet.schema.field("n").type == pa.int64()
    with pytest.warns(sheetstream.CoercionWarning, match="1 value that did not fit"):
        pairs = list(sheet.iter_batches(with_report=True))
    assert [batch.num_rows for batch, _ in pairs] == [5, 5, 3]
    assert [report.first_row for _, report in pairs] == [2, 7, 12]
    clean, also_clean, last = (report for _, report in pairs)
    assert clean.is_clean and also_clean.is_clean
    assert (last.sheet, last.file, last.rows) == ("Late", None, 3)
    assert (last.coerced_cells, last.error_cells, last.dropped_cells) == (1, 1, 1)
    assert not last.is_clean
    described = [
        (issue.kind, issue.row, issue.column, issue.column_name, issue.value, issue.column_type)
        for issue in last.issues
    ]
    assert described == [
        ("does_not_fit", 12, 1, "n", "late text", "int64"),
        ("error_value", 13, 1, "n", "#DIV/0!", None),
        ("outside_schema", 14, 4, "", "far out", None),
    ]
    # The bad cells became null; the batch itself is a plain RecordBatch.
    batch = pairs[2][0]
    assert isinstance(batch, pa.RecordBatch)
    assert batch.column(0).to_pylist() == [None, None, 14]


def test_sheet_report_adds_up_the_latest_read(misfits: pathlib.Path) -> None:
    sheet = sheetstream.open(misfits).sheet(0, schema_sample_rows=5, batch_size=4, on_mismatch="null")
    before = sheet.report
    assert (before.sheet, before.rows, before.first_row, before.is_clean) == ("Late", 0, None, True)
    # Through the Arrow C stream (polars), not one of our iterators.
    frame = polars.DataFrame(sheet)
    assert frame.height == 13
    total = sheet.report
    assert (total.rows, total.first_row) == (13, 2)
    assert (total.coerced_cells, total.error_cells, total.dropped_cells) == (1, 1, 1)
    assert [issue.row for issue in total.issues] == [12, 13, 14]
    # A new read starts anew; while it is under way the report holds what
    # was read so far.
    batches = sheet.iter_batches()
    next(batches)
    assert (sheet.report.rows, sheet.report.coerced_cells) == (4, 0)
    with pytest.warns(sheetstream.CoercionWarning):
        rest = list(batches)
    assert sum(batch.num_rows for batch in rest) == 9
    assert sheet.report.rows == 13 and sheet.report.coerced_cells == 1
    # iter_rows and to_arrow count the same.
    with pytest.warns(sheetstream.CoercionWarning):
        assert len(list(sheet.iter_rows())) == 13
    assert sheet.report.error_cells == 1
    with pytest.warns(sheetstream.CoercionWarning, match="cell A12"):
        sheet.to_arrow()
    assert sheet.report.dropped_cells == 1


def test_the_default_widens_a_whole_table_read(misfits: pathlib.Path) -> None:
    # The text widens n to text (the error cell's code kept there), and
    # the cell in column D adds its column: nothing is lost or dropped.
    sheet = sheetstream.open(misfits).sheet(0, schema_sample_rows=5)
    table = sheet.to_arrow()
    assert table.column_names == ["n", "t", "column_3", "column_4"]
    assert table["n"].to_pylist() == [str(n) for n in range(1, 11)] + ["late text", "#DIV/0!", "14"]
    assert table["column_4"].to_pylist() == [None] * 12 + ["far out"]
    report = sheet.report
    assert (report.coerced_cells, report.error_cells, report.dropped_cells) == (0, 1, 0)


def test_issues_per_batch_limits_what_is_described(misfits: pathlib.Path) -> None:
    sheet = sheetstream.open(misfits).sheet(0, schema_sample_rows=5, issues_per_batch=1, on_mismatch="null")
    with pytest.warns(sheetstream.CoercionWarning):
        ((_, report),) = list(sheet.iter_batches(with_report=True))
    assert (report.coerced_cells, report.error_cells, report.dropped_cells) == (1, 1, 1)
    assert [issue.kind for issue in report.issues] == ["does_not_fit"]


def test_strict_still_fails_on_the_first_bad_cell(misfits: pathlib.Path) -> None:
    sheet = sheetstream.open(misfits).sheet(0, schema_sample_rows=5, strict=True)
    with pytest.raises(sheetstream.ConversionError) as caught:
        list(sheet.iter_batches(with_report=True))
    assert (caught.value.row, caught.value.column) == (12, 1)


def damaged(path: pathlib.Path) -> pathlib.Path:
    """Rows 2-8 hold 1..7 in column A; row 9's XML is broken."""
    rows = ['<row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c></row>']
    rows += [f'<row r="{r}"><c r="A{r}"><v>{r - 1}</v></c></row>' for r in range(2, 9)]
    rows.append('<row r="9"><c r="A9"><v>8</v></c></rowx>')
    return write_plain_package(path, {"Broken": rows})


def test_keep_rows_before_error(tmp_path: pathlib.Path) -> None:
    path = damaged(tmp_path / "damaged.xlsx")
    values: list[object] = []
    sheet = sheetstream.open(path).sheet(0, schema_sample_rows=2, batch_size=3)
    with pytest.raises(sheetstream.XmlError):
        for batch in sheet.iter_batches():
            values.extend(batch.column(0).to_pylist())
    # Without the option the batch being filled (7) goes with the error.
    assert values == [1, 2, 3, 4, 5, 6]
    kept: list[object] = []
    sheet = sheetstream.open(path).sheet(
        0, schema_sample_rows=2, batch_size=3, keep_rows_before_error=True
    )
    with pytest.raises(sheetstream.XmlError) as caught:
        for batch in sheet.iter_batches():
            kept.extend(batch.column(0).to_pylist())
    assert kept == [1, 2, 3, 4, 5, 6, 7]
    assert caught.value.sheet == "Broken"
    assert sheet.report.rows == 7
