"""Typed output that never loses a value silently (issue 22): whole-table
reads widen a column whose values outgrow its sample, streams fail naming
the cell, nulling misfits is asked for and warns, error cells are values
(null, or their code in a text column), and pandas gets datetime64."""

from __future__ import annotations

import datetime
import pathlib
import warnings

import pytest

import sheetstream

from conftest import WriteWorkbook

WHOLE, FRACTION = 1_999, 1_001
EXACT_SUM = 10 * WHOLE + 10.5 * FRACTION  # 30500.5


@pytest.fixture
def int_then_fraction(write_workbook: WriteWorkbook) -> pathlib.Path:
    """`amount`: 1,999 rows of 10 (the 1,000-row sample says Int64), then
    1,001 of 10.5, the first in cell B2001."""

    def fill(workbook: object) -> None:
        sheet = workbook.add_worksheet("Data")  # type: ignore[attr-defined]
        sheet.write_row(0, 0, ["id", "amount"])
        for row in range(1, WHOLE + FRACTION + 1):
            sheet.write_number(row, 0, row)
            sheet.write_number(row, 1, 10 if row <= WHOLE else 10.5)

    return write_workbook(fill)


def test_whole_table_reads_widen_int_to_float(int_then_fraction: pathlib.Path) -> None:
    import pyarrow
    import pyarrow.compute as pc

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = sheetstream.read_excel(int_then_fraction)
        assert str(frame.schema["amount"]) == "Float64"
        assert frame["amount"].sum() == EXACT_SUM and frame["amount"].null_count() == 0
        assert frame.height == WHOLE + FRACTION
        pandas_frame = sheetstream.read_excel(int_then_fraction, to="pandas")
        assert pandas_frame["amount"].sum() == EXACT_SUM
        assert str(pandas_frame["amount"].dtype) == "float64"
        table = sheetstream.read_excel(int_then_fraction, to="pyarrow")
        assert table.schema.field("amount").type == pyarrow.float64()
        assert pc.sum(table["amount"]).as_py() == EXACT_SUM
        sheet = sheetstream.open(int_then_fraction).sheet("Data")
        # The sheet's schema is its sample's; the whole table is wider.
        assert sheet.schema.field("amount").type == pyarrow.int64()
        table = sheet.to_arrow()
        assert table.schema.field("amount").type == pyarrow.float64()
        assert pc.sum(table["amount"]).as_py() == EXACT_SUM
        assert sheet.to_polars()["amount"].sum() == EXACT_SUM
        assert sheet.to_pandas()["amount"].sum() == EXACT_SUM
        # The id column kept its type.
        assert table.schema.field("id").type == pyarrow.int64()


def test_many_files_widen_together(int_then_fraction: pathlib.Path, write_workbook: WriteWorkbook) -> None:
    def fill(workbook: object) -> None:
        sheet = workbook.add_worksheet("Data")  # type: ignore[attr-defined]
        sheet.write_row(0, 0, ["id", "amount"])
        for row in range(1, 1_501):
            sheet.write_number(row, 0, row)
            sheet.write_number(row, 1, 2)

    whole = write_workbook(fill)
    frame = sheetstream.read_excel([whole, int_then_fraction], file_column="file")
    assert str(frame.schema["amount"]) == "Float64"
    assert frame.height == 1_500 + WHOLE + FRACTION
    assert frame["amount"].sum() == 2 * 1_500 + EXACT_SUM


def test_a_stream_fails_naming_the_cell_value_and_options(int_then_fraction: pathlib.Path) -> None:
    import pyarrow

    sheet = sheetstream.open(int_then_fraction).sheet("Data", batch_size=500)
    with pytest.raises(sheetstream.ConversionError) as raised:
        for _ in sheet.iter_batches():
            pass
    message = str(raised.value)
    assert "B2001" in message and "10.5" in message and "amount" in message, message
    assert "on_mismatch" in message and "schema_sample_rows=None" in message, message
    assert raised.value.row == 2001 and raised.value.column == 2
    with pytest.raises(sheetstream.ConversionError, match="B2001"):
        list(sheet.iter_rows())
    # The PyCapsule stream: the consumer's exception, with the message.
    with pytest.raises(Exception, match="B2001"):
        pyarrow.table(sheet)


@pytest.mark.parametrize("option", ["schema_sample_rows", "infer_schema_length"])
def test_types_from_every_row(int_then_fraction: pathlib.Path, option: str) -> None:
    import pyarrow
    import pyarrow.compute as pc

    sheet = sheetstream.open(int_then_fraction).sheet("Data", batch_size=500, **{option: None})
    assert sheet.schema.field("amount").type == pyarrow.float64()
    batches = list(sheet.iter_batches())
    assert all(batch.schema.field("amount").type == pyarrow.float64() for batch in batches)
    assert sum(pc.sum(batch["amount"]).as_py() for batch in batches) == EXACT_SUM
    assert pc.sum(pyarrow.table(sheet)["amount"]).as_py() == EXACT_SUM
    frame = sheetstream.read_excel(int_then_fraction, **{option: None})
    assert frame["amount"].sum() == EXACT_SUM
    # A number of rows is taken too, under either name.
    assert sheetstream.open(int_then_fraction).sheet(0, **{option: 10}).schema.field("amount").type == pyarrow.int64()


def test_on_mismatch_null_warns_and_nulls(int_then_fraction: pathlib.Path) -> None:
    with pytest.warns(sheetstream.CoercionWarning) as caught:
        frame = sheetstream.read_excel(int_then_fraction, on_mismatch="null")
    assert frame["amount"].null_count() == FRACTION and frame["amount"].sum() == 10 * WHOLE
    [warning] = caught.list
    text = str(warning.message)
    assert f"{FRACTION} values" in text and "cell B2001 (column `amount`): `10.5` did not fit int64" in text, text
    assert issubclass(sheetstream.CoercionWarning, UserWarning)
    sheet = sheetstream.open(int_then_fraction).sheet(0, on_mismatch="null")
    with pytest.warns(sheetstream.CoercionWarning, match="B2001"):
        table = sheet.to_arrow()
    assert table["amount"].null_count == FRACTION and sheet.report.coerced_cells == FRACTION
    # A stream warns at its end.
    with pytest.warns(sheetstream.CoercionWarning, match=f"{FRACTION} values"):
        rows = list(sheet.iter_rows())
    assert len(rows) == WHOLE + FRACTION
    # Strict fails: by on_mismatch and by strict=True.
    for options in ({"on_mismatch": "strict"}, {"strict": True}):
        with pytest.raises(sheetstream.ConversionError, match="B2001"):
            sheetstream.read_excel(int_then_fraction, **options)


def test_option_values_are_checked(int_then_fraction: pathlib.Path) -> None:
    workbook = sheetstream.open(int_then_fraction)
    with pytest.raises(ValueError, match=r'on_mismatch must be "widen", "strict" or "null", not \'nope\''):
        workbook.sheet(0, on_mismatch="nope")
    with pytest.raises(ValueError, match=r'on_error_value must be "null" or "strict"'):
        workbook.sheet(0, on_error_value="widen")
    with pytest.raises(TypeError, match="not both"):
        workbook.sheet(0, schema_sample_rows=10, infer_schema_length=10)
    with pytest.raises(TypeError, match="not both"):
        workbook.sheet(0, strict=True, on_mismatch="null")
    with pytest.raises(ValueError, match="at least 1"):
        workbook.sheet(0, infer_schema_length=0)


def test_text_after_an_empty_sample(write_workbook: WriteWorkbook) -> None:
    def fill(workbook: object) -> None:
        sheet = workbook.add_worksheet("Notes")  # type: ignore[attr-defined]
        sheet.write_row(0, 0, ["id", "note"])
        for row in range(1, 2_001):
            sheet.write_number(row, 0, row)
            if row > 1_500:
                sheet.write_string(row, 1, f"note {row}")

    path = write_workbook(fill)
    expected = [None] * 1_500 + [f"note {row}" for row in range(1_501, 2_001)]
    frame = sheetstream.read_excel(path)
    assert str(frame.schema["note"]) == "String"
    assert frame["note"].to_list() == expected
    assert sheetstream.open(path).sheet(0).to_arrow()["note"].to_pylist() == expected
    with pytest.raises(sheetstream.ConversionError, match="B1502"):
        list(sheetstream.open(path).sheet(0).iter_batches())


def test_a_duration_in_a_date_column_is_text(write_workbook: WriteWorkbook) -> None:
    def fill(workbook: object) -> None:
        sheet = workbook.add_worksheet("When")  # type: ignore[attr-defined]
        dates = workbook.add_format({"num_format": "yyyy-mm-dd"})  # type: ignore[attr-defined]
        elapsed = workbook.add_format({"num_format": "[hh]:mm:ss"})  # type: ignore[attr-defined]
        sheet.write_row(0, 0, ["when"])
        sheet.write_datetime(1, 0, datetime.datetime(2024, 3, 1), dates)
        sheet.write_datetime(2, 0, datetime.datetime(2024, 3, 2), dates)
        sheet.write_number(3, 0, 255 / 24 + 10 / 1440 + 10 / 86400, elapsed)

    path = write_workbook(fill)
    table = sheetstream.read_excel(path, to="pyarrow")
    import pyarrow

    assert table.schema.field("when").type == pyarrow.string()
    values = table["when"].to_pylist()
    assert values[2] == "255:10:10", values
    assert values[:2] == ["2024-03-01", "2024-03-02"], values


def test_a_column_selection_keeps_every_row(write_workbook: WriteWorkbook) -> None:
    def fill(workbook: object) -> None:
        sheet = workbook.add_worksheet("Sel")  # type: ignore[attr-defined]
        sheet.write_row(0, 0, ["a", "b"])
        for row in range(1, 21):
            sheet.write_number(row, 0, row)
            if row <= 15:
                sheet.write_number(row, 1, row * 2)

    path = write_workbook(fill)
    everything = sheetstream.read_excel(path)
    assert everything.height == 20
    for columns in ("b", "B", ["b"], [1]):
        selected = sheetstream.read_excel(path, columns=columns)
        assert selected.height == everything.height, columns
        assert selected["b"].to_list() == everything["b"].to_list()
    rows = list(sheetstream.open(path).sheet(0, columns="B").iter_rows())
    assert len(rows) == 20 and rows[-1] == (None,)


@pytest.fixture
def error_cells(write_workbook: WriteWorkbook) -> pathlib.Path:
    """`n`: numbers and a #DIV/0! (row 3); `label`: text and a #N/A (row 4)."""

    def fill(workbook: object) -> None:
        sheet = workbook.add_worksheet("Errors")  # type: ignore[attr-defined]
        sheet.write_row(0, 0, ["n", "label"])
        for row in range(1, 6):
            if row == 2:
                sheet.write_formula(row, 0, "=1/0", None, "#DIV/0!")
            else:
                sheet.write_number(row, 0, row)
            if row == 3:
                sheet.write_formula(row, 1, "=NA()", None, "#N/A")
            else:
                sheet.write_string(row, 1, f"x{row}")

    return write_workbook(fill)


def test_error_cells_are_null_by_default(error_cells: pathlib.Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = sheetstream.read_excel(error_cells)
        sheet = sheetstream.open(error_cells).sheet(0)
        table = sheet.to_arrow()
        batches = list(sheet.iter_batches())
    assert frame["n"].to_list() == [1, None, 3, 4, 5]
    assert frame["label"].to_list() == ["x1", "x2", "#N/A", "x4", "x5"]
    assert table["n"].to_pylist() == [1, None, 3, 4, 5]
    assert sum(batch.num_rows for batch in batches) == 5
    assert sheet.report.error_cells == 2 and sheet.report.coerced_cells == 0
    kinds = {(issue.kind, issue.row, issue.value) for issue in sheet.report.issues}
    assert ("error_value", 3, "#DIV/0!") in kinds


def test_on_error_value_strict_raises(error_cells: pathlib.Path) -> None:
    with pytest.raises(sheetstream.ConversionError, match="#DIV/0!") as raised:
        sheetstream.read_excel(error_cells, on_error_value="strict")
    assert raised.value.row == 3 and raised.value.column == 1
    with pytest.raises(sheetstream.ConversionError, match="#DIV/0!"):
        sheetstream.open(error_cells).sheet(0, on_error_value="strict").to_arrow()
    with pytest.raises(sheetstream.ConversionError, match="#DIV/0!"):
        list(sheetstream.open(error_cells).sheet(0, on_error_value="strict").iter_rows())


def test_pandas_dates_are_datetime64(write_workbook: WriteWorkbook) -> None:
    import pandas

    def fill(workbook: object) -> None:
        sheet = workbook.add_worksheet("Dates")  # type: ignore[attr-defined]
        day = workbook.add_format({"num_format": "yyyy-mm-dd"})  # type: ignore[attr-defined]
        stamp = workbook.add_format({"num_format": "yyyy-mm-dd hh:mm"})  # type: ignore[attr-defined]
        sheet.write_row(0, 0, ["day", "stamp"])
        for row in range(1, 4):
            sheet.write_datetime(row, 0, datetime.datetime(2024, 3, row), day)
            sheet.write_datetime(row, 1, datetime.datetime(2024, 3, row, 12, 30), stamp)

    path = write_workbook(fill)
    for frame in (
        sheetstream.read_excel(path, to="pandas"),
        sheetstream.open(path).sheet(0).to_pandas(),
    ):
        assert pandas.api.types.is_datetime64_dtype(frame["day"].dtype), frame.dtypes
        assert pandas.api.types.is_datetime64_dtype(frame["stamp"].dtype), frame.dtypes
        assert frame["day"].dt.day.tolist() == [1, 2, 3]
        assert frame["stamp"].iloc[0] == pandas.Timestamp(2024, 3, 1, 12, 30)
    # As pyarrow's own to_pandas, when asked.
    frame = sheetstream.open(path).sheet(0).to_pandas(date_as_object=True)
    assert frame["day"].tolist()[0] == datetime.date(2024, 3, 1)


def test_the_warning_points_at_the_callers_line(int_then_fraction: pathlib.Path) -> None:
    with pytest.warns(sheetstream.CoercionWarning) as caught:
        sheetstream.read_excel(int_then_fraction, on_mismatch="null")
    assert caught.list[0].filename == __file__
    sheet = sheetstream.open(int_then_fraction).sheet(0, on_mismatch="null")
    for read in (sheet.to_arrow, sheet.to_polars, sheet.to_pandas, lambda: list(sheet.iter_batches())):
        with pytest.warns(sheetstream.CoercionWarning) as caught:
            read()
        assert caught.list[0].filename == __file__


def test_widening_across_sheets_and_by_name(write_workbook: WriteWorkbook) -> None:
    # Two sheets read together by name: the second's `amount` outgrows the
    # sample (whole numbers, then text), the first's has fractions.
    def fill(workbook: object) -> None:
        first = workbook.add_worksheet("One")  # type: ignore[attr-defined]
        first.write_row(0, 0, ["amount", "id"])
        for row in range(1, 11):
            first.write_row(row, 0, [row + 0.25, row])
        second = workbook.add_worksheet("Two")  # type: ignore[attr-defined]
        second.write_row(0, 0, ["id", "amount", "extra"])
        for row in range(1, 31):
            second.write_row(row, 0, [row, row])
        second.write_row(31, 0, [31, "thirty-one", "late"])

    path = write_workbook(fill)
    table = sheetstream.read_excel(
        path, sheet=None, union_by_name=True, sheet_column="sheet", schema_sample_rows=5, to="pyarrow"
    )
    assert table.num_rows == 10 + 31
    assert str(table.schema.field("amount").type) == "string"
    amounts = table["amount"].to_pylist()
    assert amounts[0] == "1.25" and amounts[-1] == "thirty-one" and amounts[10] == "1"
    assert table["extra"].to_pylist()[-1] == "late"
    assert table["sheet"].to_pylist()[:1] + table["sheet"].to_pylist()[-1:] == ["One", "Two"]
