"""Streaming reader for Excel .xlsx workbooks.

sheetstream reads a worksheet's XML straight out of the inflate stream, a
row at a time, without holding the sheet in memory.

    >>> import sheetstream
    >>> workbook = sheetstream.open("sales.xlsx")
    >>> [sheet.name for sheet in workbook.sheets]
    ['Data', 'Notes & ideas']
"""

from ._sheetstream import (
    CellError,
    DefinedName,
    Error,
    LimitError,
    NotXlsxError,
    PackageError,
    ReadError,
    SheetInfo,
    SheetNotFoundError,
    Workbook,
    XmlError,
    ZipError,
    __version__,
    open,
)

__all__ = [
    "CellError",
    "DefinedName",
    "Error",
    "LimitError",
    "NotXlsxError",
    "PackageError",
    "ReadError",
    "SheetInfo",
    "SheetNotFoundError",
    "Workbook",
    "XmlError",
    "ZipError",
    "__version__",
    "open",
]
