"""Code a user would write, type-checked by test_typing.py (never run)."""

from __future__ import annotations

import io
from typing import Optional

import polars

import sheetstream


def summary(path: str) -> list[tuple[str, str, str]]:
    with sheetstream.open(path) as workbook:
        return [(s.name, s.state, s.kind) for s in workbook.sheets]


def names(data: bytes) -> dict[str, Optional[int]]:
    workbook = sheetstream.open(io.BytesIO(data))
    return {name.name: name.sheet for name in workbook.defined_names}


def where(path: str) -> Optional[str]:
    try:
        sheetstream.open(path)
    except sheetstream.XmlError as err:
        row: Optional[int] = err.row
        return f"{err.part} {err.sheet} {row} {err.column} {err.offset}"
    return None


def bad_cells(path: str) -> list[tuple[int, int, str]]:
    sheet = sheetstream.open(path).sheet(
        0, schema_sample_rows=10, issues_per_batch=1000, on_mismatch="null"
    )
    found: list[tuple[int, int, str]] = []
    for batch, report in sheet.iter_batches(with_report=True):
        rows: int = batch.num_rows
        assert rows == report.rows
        found.extend((issue.row, issue.column, issue.kind) for issue in report.issues)
    total: sheetstream.BatchReport = sheet.report
    assert total.coerced_cells + total.error_cells + total.dropped_cells >= len(found)
    return found


def plain_batches(path: str) -> int:
    return sum(batch.num_rows for batch in sheetstream.open(path).sheet(0).iter_batches())


def skipped_files(pattern: str) -> list[tuple[str, Optional[str], str]]:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        sheetstream.read_excel(pattern, sheet=None, union_by_name=True, skip_unreadable=True)
    found: list[tuple[str, Optional[str], str]] = []
    for warning in caught:
        if isinstance(warning.message, sheetstream.SkippedWarning):
            found.extend((s.file, s.sheet, str(s.error)) for s in warning.message.skipped)
    return found


def frames_by_sheet(path: str) -> list[str]:
    try:
        return list(sheetstream.read_excel_sheets(path, sheet=None, to="pandas", threads=2))
    except sheetstream.FileNotFoundError as err:
        missing: Optional[str] = err.file
        return [] if missing is None else [missing]


def every_value(path: str) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", sheetstream.CoercionWarning)
        frame = sheetstream.read_excel(path, on_mismatch="null", on_error_value="strict")
    sheet = sheetstream.open(path).sheet(0, schema_sample_rows=None, on_mismatch="strict")
    also = sheetstream.open(path).sheet(0, infer_schema_length=None, strict=True)
    rows: int = frame.height + sheet.to_arrow().num_rows + also.to_arrow().num_rows
    return rows


def lazy_totals(pattern: str) -> polars.DataFrame:
    cells: list[int] = []
    lazy: polars.LazyFrame = sheetstream.scan_excel(
        pattern,
        sheet=None,
        union_by_name=True,
        file_column="file",
        schema_sample_rows=None,
        on_report=lambda report: cells.append(report.cells),
    )
    return lazy.filter(polars.col("amount") > 0).group_by("file").agg(polars.len()).collect()


def hand_made(path: str) -> tuple[polars.DataFrame, int, Optional[int]]:
    """Issue 26's options, typed."""
    frame = sheetstream.read_excel(
        path,
        "Sales",
        header_row=[2, 3],
        fill_merged=True,
        skip_hidden_rows=True,
        skip_hidden_columns=True,
        drop_empty_rows=True,
        drop_empty_cols=True,
        stop_at_empty_row=False,
    )
    sheet = sheetstream.open(path).sheet("Titled", header_row="auto")
    sheet.to_arrow()
    return frame, sheet.report.hidden_rows_skipped, sheet.report.header_row


def coming_from_polars_and_pandas(path: str) -> tuple[polars.DataFrame, int, list[str]]:
    """polars' names, pandas' entry, folders and the classes by what
    happened (issue 43), typed."""
    frames: dict[str, polars.DataFrame] = sheetstream.read_excel(path, sheet_id=0)
    one: polars.DataFrame = sheetstream.read_excel(
        path,
        sheet_name="Data",
        has_header=True,
        schema_overrides={"amount": polars.Float64},
        include_file_paths="file",
        raise_if_empty=True,
        recursive=False,
    )
    by_name: dict[str, polars.DataFrame] = sheetstream.read_excel(path, sheet_name=["Data"])
    pandas_frame = sheetstream.pandas.read_excel(path, sheet_name="Data", header=0, usecols="A:B")
    skipped: list[str] = []
    try:
        sheetstream.read_excel([path], skip_unreadable=True)
    except sheetstream.NothingReadError as err:
        skipped = [item.file for item in err.skipped]
    except (sheetstream.EncryptedWorkbookError, sheetstream.UnsupportedFormatError) as err:
        skipped = [str(err)]
    del pandas_frame, by_name
    return one, len(frames), skipped + list(sheetstream.WORKBOOK_EXTENSIONS)
