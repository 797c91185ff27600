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

import glob as _glob
import os as _os
from typing import TYPE_CHECKING, Any

from . import _sheetstream
from ._sheetstream import (
    BatchIterator,
    BatchReport,
    CellError,
    CellIssue,
    CoercionWarning,
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
)

if TYPE_CHECKING:
    from ._sheetstream import read_excel
else:

    def read_excel(source: Any, sheet: Any = 0, **options: Any) -> Any:
        return _sheetstream.read_excel(_expand_sources(source), sheet, **options)

    read_excel.__doc__ = _sheetstream.read_excel.__doc__


def _expand_sources(source: Any) -> Any:
    """``read_excel``'s sources with glob patterns expanded, as polars'
    readers expand them: a ``str`` or path (or each of a list or tuple)
    holding ``*``, ``?`` or ``[`` that is not itself a file becomes the
    files it matches, sorted (``**`` matches any depth of folders); a
    pattern that matches nothing is a ``FileNotFoundError``. Bytes and file
    objects pass as they are."""
    if isinstance(source, (list, tuple)):
        expanded: list[Any] = []
        for item in source:
            matched = _expand_one(item)
            if isinstance(matched, list):
                expanded.extend(matched)
            else:
                expanded.append(matched)
        return expanded
    matched = _expand_one(source)
    return matched


def _expand_one(source: Any) -> Any:
    if not isinstance(source, (str, _os.PathLike)):
        return source
    text = _os.fspath(source)
    if isinstance(text, bytes) or not _glob.has_magic(text) or _os.path.exists(text):
        return source
    matches = sorted(_glob.glob(text, recursive=True))
    files = [match for match in matches if _os.path.isfile(match)]
    if not files:
        raise FileNotFoundError(f"no file matches the pattern {text!r}")
    return files

__all__ = [
    "BatchIterator",
    "BatchReport",
    "CellError",
    "CellIssue",
    "CoercionWarning",
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
