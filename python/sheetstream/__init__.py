"""Streaming reader for Excel .xlsx workbooks into polars, pyarrow, pandas
and DuckDB.

sheetstream reads a worksheet's XML straight out of the inflate stream, a
row at a time, into typed Arrow record batches, without holding the sheet
in memory; the GIL is released while it reads.

    >>> import sheetstream
    >>> frame = sheetstream.read_excel("sales.xlsx")            # a polars DataFrame
    >>> sheet = sheetstream.open("sales.xlsx").sheet("Data", columns="A:C")
    >>> table = sheet.to_arrow()                                # or pyarrow.table(sheet)
"""

from ._sheetstream import (
    BatchIterator,
    BatchReport,
    CellError,
    CellIssue,
    ColumnError,
    ConversionError,
    DefinedName,
    Error,
    LimitError,
    NotXlsxError,
    PackageError,
    ReadError,
    RowIterator,
    Sheet,
    SheetInfo,
    SheetNotFoundError,
    Workbook,
    XmlError,
    ZipError,
    __version__,
    open,
    read_excel,
)

__all__ = [
    "BatchIterator",
    "BatchReport",
    "CellError",
    "CellIssue",
    "ColumnError",
    "ConversionError",
    "DefinedName",
    "Error",
    "LimitError",
    "NotXlsxError",
    "PackageError",
    "ReadError",
    "RowIterator",
    "Sheet",
    "SheetInfo",
    "SheetNotFoundError",
    "Workbook",
    "XmlError",
    "ZipError",
    "__version__",
    "open",
    "read_excel",
]
