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
from concurrent.futures import ThreadPoolExecutor as _ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional, Sequence, Union

from . import _remote, _sheetstream
from ._sheetstream import (
    BatchIterator,
    BatchReport,
    CellError,
    CellIssue,
    CoercionWarning,
    ColumnError,
    ConversionError,
    DefinedName,
    EncryptionError,
    Error,
    IntegrityError,
    LimitError,
    NotXlsxError,
    PackageError,
    PasswordIncorrectError,
    PasswordRequiredError,
    ReadError,
    RowIterator,
    Sheet,
    SheetInfo,
    SheetNotFoundError,
    TableNotFoundError,
    Table,
    UnsupportedEncryptionError,
    CellRange,
    Hyperlink,
    Comment,
    SheetMetadata,
    SkippedSheet,
    SkippedWarning,
    Workbook,
    XmlError,
    ZipError,
    __version__,
    open,
)
# Exported by name (the `as` form) but left out of __all__: see below.
from ._sheetstream import FileNotFoundError as FileNotFoundError
from ._sheetstream import IsADirectoryError as IsADirectoryError

if TYPE_CHECKING:
    from ._sheetstream import read_excel
else:

    def read_excel(source: Any, sheet: Any = 0, **options: Any) -> Any:
        expanded = _expand_sources(source, options.get("storage_options"))
        return _sheetstream.read_excel(expanded, sheet, **options)

    read_excel.__doc__ = _sheetstream.read_excel.__doc__

from ._scan import scan_excel


def _expand_sources(source: Any, storage_options: Optional[dict[str, Any]] = None) -> Any:
    """``read_excel``'s sources with glob patterns expanded, as polars'
    readers expand them: a ``str`` or path (or each of a list or tuple)
    holding ``*``, ``?`` or ``[`` that is not itself a file becomes the
    files it matches, sorted (``**`` matches any depth of folders); a
    pattern that matches nothing is a ``FileNotFoundError``. A URL
    (``s3://``, ``https://``, any fsspec protocol) is opened through fsspec
    with ``storage_options``, a pattern over a bucket prefix through
    fsspec's ``glob``. Bytes and file objects pass as they are."""
    if isinstance(source, (list, tuple)):
        expanded: list[Any] = []
        for item in source:
            matched = _expand_one(item, storage_options)
            if isinstance(matched, list):
                expanded.extend(matched)
            else:
                expanded.append(matched)
        return expanded
    matched = _expand_one(source, storage_options)
    return matched


def _expand_one(source: Any, storage_options: Optional[dict[str, Any]]) -> Any:
    if _remote.is_url(source):
        return _remote.resolve(source, storage_options)
    if not isinstance(source, (str, _os.PathLike)):
        return source
    text = _os.fspath(source)
    if isinstance(text, bytes):
        return source
    # `~` and `~user`, as polars and pandas expand them.
    text = _os.path.expanduser(text)
    if not _glob.has_magic(text) or _os.path.exists(text):
        return text
    matches = sorted(_glob.glob(text, recursive=True))
    files = [match for match in matches if _os.path.isfile(match)]
    if not files:
        err = FileNotFoundError(f"no file matches the pattern {text!r}")
        err.file = text
        raise err
    return files


def read_excel_sheets(
    source: Any,
    sheet: Union[int, str, Sequence[Union[int, str]], None] = None,
    *,
    to: Literal["polars", "pyarrow", "pandas"] = "polars",
    threads: int = 0,
    storage_options: Optional[dict[str, Any]] = None,
    password: Union[
        str, Sequence[str], None, Callable[[Optional[str]], Union[str, Sequence[str], None]]
    ] = None,
    verify_integrity: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Sheets of one workbook, each into a frame of its own: a dict by sheet
    name, in workbook order (``sheet=None``, every worksheet) or in the order
    asked for, as polars' ``read_excel(sheet_id=0)`` and pandas'
    ``read_excel(sheet_name=None)`` return them. ``read_excel`` unites
    sheets into one frame instead. ``source`` is one workbook (a path,
    bytes or a binary file object); the options are those of
    ``Workbook.sheet``; ``threads`` (0: one per core) sheets are read at
    once. ``password`` and ``verify_integrity`` are ``open``'s (an
    encrypted workbook: Excel's default password is tried first); reading
    every worksheet checks an encrypted workbook's integrity."""
    if to not in ("polars", "pyarrow", "pandas"):
        raise ValueError(f'to must be "polars", "pyarrow" or "pandas", not {to!r}')
    if isinstance(source, (list, tuple)):
        raise TypeError(
            "read_excel_sheets reads one workbook; read_excel reads many "
            "(with file_column and sheet_column to tell them apart)"
        )
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be an int (0 or more), not {type(threads).__name__}")
    if threads < 0:
        raise ValueError(f"threads must be 0 or more; 0 is one per core, not {threads}")
    with open(
        source,
        storage_options=storage_options,
        password=password,
        verify_integrity=verify_integrity,
    ) as workbook:
        if sheet is None:
            chosen: list[Union[int, str]] = [
                info.position for info in workbook.sheets if info.kind == "worksheet"
            ]
        elif isinstance(sheet, (int, str)):
            chosen = [sheet]
        else:
            chosen = list(sheet)
        sheets = [workbook.sheet(wanted, **options) for wanted in chosen]
        method = {"polars": "to_polars", "pyarrow": "to_arrow", "pandas": "to_pandas"}[to]
        workers = threads or _os.cpu_count() or 1
        with _ThreadPoolExecutor(max_workers=max(1, min(workers, len(sheets)))) as pool:
            frames = list(pool.map(lambda one: getattr(one, method)(), sheets))
    return {one.name: frame for one, frame in zip(sheets, frames)}

__all__ = [
    "BatchIterator",
    "BatchReport",
    "CellError",
    "CellIssue",
    "CoercionWarning",
    "ColumnError",
    "ConversionError",
    "DefinedName",
    "EncryptionError",
    "Error",
    "IntegrityError",
    "LimitError",
    "NotXlsxError",
    "PackageError",
    "PasswordIncorrectError",
    "PasswordRequiredError",
    "ReadError",
    "RowIterator",
    "Sheet",
    "SheetInfo",
    "SheetNotFoundError",
    "TableNotFoundError",
    "Table",
    "UnsupportedEncryptionError",
    "CellRange",
    "Hyperlink",
    "Comment",
    "SheetMetadata",
    "SkippedSheet",
    "SkippedWarning",
    "Workbook",
    "XmlError",
    "ZipError",
    "__version__",
    "open",
    "read_excel",
    "read_excel_sheets",
    "scan_excel",
]
# sheetstream.FileNotFoundError and sheetstream.IsADirectoryError (each a
# ReadError and the built-in of the same name) are left out of __all__, so
# that `from sheetstream import *` does not shadow the built-ins.
