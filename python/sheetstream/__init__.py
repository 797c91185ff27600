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
    WORKBOOK_EXTENSIONS,
    BatchIterator,
    BatchReport,
    CellError,
    CellIssue,
    CoercionWarning,
    ColumnError,
    ConversionError,
    DamagedWorkbookError,
    DefinedName,
    EncryptedWorkbookError,
    EncryptionError,
    Error,
    IntegrityError,
    LimitError,
    NoDataError,
    NotAWorkbookError,
    NothingReadError,
    NotXlsxError,
    PackageError,
    PasswordIncorrectError,
    PasswordRequiredError,
    ReadError,
    UnsupportedFormatError,
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
from ._sheetstream import ConnectionError as ConnectionError
from ._sheetstream import DamagedCellError as DamagedCellError
from ._sheetstream import FileNotFoundError as FileNotFoundError
from ._sheetstream import IsADirectoryError as IsADirectoryError
from ._sheetstream import PermissionError as PermissionError
from ._sheetstream import TimeoutError as TimeoutError

#: read_excel's default sheet (the first), told from a sheet given.
_DEFAULT_SHEET: Any = object()

if TYPE_CHECKING:
    from ._sheetstream import read_excel
else:

    def read_excel(source: Any, sheet: Any = _DEFAULT_SHEET, **options: Any) -> Any:
        recursive = options.pop("recursive", False)
        expanded = _expand_sources(source, options.get("storage_options"), recursive)
        if _polars_many_sheets(options):
            # polars' sheet_id=0, or a list of ids or names: a dict of
            # frames by sheet name, as polars' read_excel returns.
            if sheet is not _DEFAULT_SHEET:
                raise TypeError("give sheet or polars' sheet_name/sheet_id, not both")
            return _sheet_frames(expanded, None, options)
        if sheet is _DEFAULT_SHEET:
            sheet = 0
        elif options.get("sheet_name") is not None or options.get("sheet_id") is not None:
            raise TypeError("give sheet or polars' sheet_name/sheet_id, not both")
        return _sheetstream.read_excel(expanded, sheet, **options)

    read_excel.__doc__ = _sheetstream.read_excel.__doc__

from ._scan import scan_excel
from . import pandas


def _expand_sources(
    source: Any, storage_options: Optional[dict[str, Any]] = None, recursive: bool = False
) -> Any:
    """``read_excel``'s sources with glob patterns and folders expanded, as
    polars' readers expand patterns: a ``str`` or path (or each of a list
    or tuple) holding ``*``, ``?`` or ``[`` that is not itself a file
    becomes the files it matches, sorted (``**`` matches any depth of
    folders); a pattern that matches nothing is a ``FileNotFoundError``.
    A folder becomes its workbooks in name order (``WORKBOOK_EXTENSIONS``;
    hidden files and Excel's ``~$`` lock files left out; its subfolders'
    too with ``recursive``); a folder without one is a
    ``FileNotFoundError``. A URL (``s3://``, ``https://``, any fsspec
    protocol) is opened through fsspec with ``storage_options``, a pattern
    over a bucket prefix through fsspec's ``glob``, a prefix as a folder.
    Bytes and file objects pass as they are."""
    if isinstance(source, (list, tuple)):
        expanded: list[Any] = []
        for item in source:
            matched = _expand_one(item, storage_options, recursive)
            if isinstance(matched, list):
                expanded.extend(matched)
            else:
                expanded.append(matched)
        return expanded
    matched = _expand_one(source, storage_options, recursive)
    return matched


def _expand_one(source: Any, storage_options: Optional[dict[str, Any]], recursive: bool) -> Any:
    if _remote.is_url(source):
        return _remote.resolve(source, storage_options, recursive)
    if not isinstance(source, (str, _os.PathLike)):
        return source
    text = _os.fspath(source)
    if isinstance(text, bytes):
        return source
    # `~` and `~user`, as polars and pandas expand them.
    text = _os.path.expanduser(text)
    if _os.path.isdir(text):
        return _folder(text, recursive)
    if not _glob.has_magic(text) or _os.path.exists(text):
        return text
    matches = sorted(_glob.glob(text, recursive=True))
    files = [match for match in matches if _os.path.isfile(match)]
    if not files:
        err = FileNotFoundError(f"no file matches the pattern {text!r}")
        err.file = text
        raise err
    return files


def _folder(folder: str, recursive: bool) -> list[str]:
    """The workbooks of a folder (``_sheetstream._workbooks_in``: the
    library's listing, the CLI's too); none is a ``FileNotFoundError``."""
    found = _sheetstream._workbooks_in(folder, recursive)
    if not found:
        extensions = ", .".join(WORKBOOK_EXTENSIONS)
        more = "" if recursive else "; recursive=True looks in its subfolders too"
        err = FileNotFoundError(
            f"the folder {folder!r} holds no workbook (files ending in .{extensions}){more}"
        )
        err.file = folder
        raise err
    return found


def _polars_many_sheets(options: dict[str, Any]) -> bool:
    """Whether polars' ``sheet_id``/``sheet_name`` ask for several sheets
    (``sheet_id=0``, a list of ids or of names): a dict of frames."""
    sheet_id = options.get("sheet_id")
    sheet_name = options.get("sheet_name")
    return (
        (isinstance(sheet_id, int) and not isinstance(sheet_id, bool) and sheet_id == 0)
        or isinstance(sheet_id, (list, tuple))
        or isinstance(sheet_name, (list, tuple))
    )


def _is_empty(frame: Any, leading: int) -> bool:
    """Whether a frame (polars, pyarrow or pandas) holds no data: no row
    and no column but the file and sheet columns."""
    rows, columns = frame.shape
    return bool(rows == 0 and columns <= leading)


def _sheet_frames(
    sources: Any,
    sheet: Union[int, str, Sequence[Union[int, str]], None],
    options: dict[str, Any],
) -> dict[str, Any]:
    """The frames of the chosen sheets by sheet name (``read_excel_sheets``;
    ``read_excel`` with polars' ``sheet_id=0`` or lists). One workbook:
    each sheet read on its own (``threads`` at once, a sheet's readers
    gone once its frame is made). Several (a folder, a pattern, a list):
    each sheet name's frame unites that sheet of every workbook holding
    it, as polars concatenates them."""
    options = dict(options)
    threads = options.pop("threads", 0)
    to = options.pop("to", "polars")
    if to not in ("polars", "pyarrow", "pandas"):
        raise ValueError(f'to must be "polars", "pyarrow" or "pandas", not {to!r}')
    storage_options = options.pop("storage_options", None)
    raise_if_empty = options.pop("raise_if_empty", False)
    sheet_id = options.pop("sheet_id", None)
    sheet_name = options.pop("sheet_name", None)
    if sheet_id is not None and sheet_name is not None:
        raise TypeError("give sheet_name or sheet_id, not both (as polars' read_excel)")
    wanted: Union[None, list[_SheetChoice]]
    if sheet_name is not None:
        names = [sheet_name] if isinstance(sheet_name, str) else list(sheet_name)
        wanted = [_SheetChoice("name", name) for name in names]
    elif sheet_id is not None:
        ids = [sheet_id] if isinstance(sheet_id, int) else list(sheet_id)
        if ids == [0]:
            wanted = None
        else:
            for one in ids:
                if isinstance(one, bool) or not isinstance(one, int) or one < 1:
                    raise ValueError(
                        f"sheet_id counts sheets from 1 (0 alone is every sheet), not {one!r}"
                    )
            wanted = [_SheetChoice("position", one - 1) for one in ids]
    elif sheet is None:
        wanted = None
    else:
        chosen = [sheet] if isinstance(sheet, (int, str)) else list(sheet)
        wanted = [_SheetChoice("ref", one) for one in chosen]
    if "include_file_paths" in options:
        if options.get("file_column") is not None:
            raise TypeError("give file_column or include_file_paths, not both")
        options["file_column"] = options.pop("include_file_paths")
    leading = sum(options.get(name) is not None for name in ("file_column", "sheet_column"))
    many = isinstance(sources, list)
    if not many:
        frames = _one_workbook_frames(
            sources, wanted, to, threads, storage_options, options
        )
    else:
        frames = _many_workbook_frames(sources, wanted, to, threads, storage_options, options)
    if raise_if_empty:
        for name, frame in frames.items():
            if _is_empty(frame, leading):
                raise NoDataError(
                    f"no data: sheet {name!r} holds no cell (raise_if_empty=True; "
                    "raise_if_empty=False gives an empty frame)"
                )
    return frames


class _SheetChoice:
    """A sheet asked for: by ``sheet``'s rule (``ref``: a position, or a
    name, else a whole number's position), by exact name (polars'
    ``sheet_name``), or by position (polars' ``sheet_id`` less one)."""

    def __init__(self, how: str, value: Union[int, str]) -> None:
        self.how = how
        self.value = value

    def resolve(self, workbook: Workbook) -> Union[int, str]:
        """The sheet as ``Workbook.sheet`` takes it."""
        if self.how == "name":
            names = workbook.sheet_names
            if self.value not in names:
                raise SheetNotFoundError(
                    f"no sheet named {self.value!r} (sheet_name names a sheet, never a "
                    f"position); the sheets: {', '.join(repr(name) for name in names)}"
                )
            return names.index(str(self.value))
        return self.value


def _one_workbook_frames(
    source: Any,
    wanted: Optional[list[_SheetChoice]],
    to: str,
    threads: int,
    storage_options: Optional[dict[str, Any]],
    options: dict[str, Any],
) -> dict[str, Any]:
    for name in ("file_column", "sheet_column", "union_by_name", "skip_unreadable"):
        if options.pop(name, None) not in (None, False):
            raise TypeError(
                f"{name} is read_excel's (one frame of many sheets and files); "
                "read_excel_sheets gives a frame per sheet"
            )
    password = options.pop("password", None)
    verify_integrity = options.pop("verify_integrity", False)
    with open(
        source,
        storage_options=storage_options,
        password=password,
        verify_integrity=verify_integrity,
    ) as workbook:
        if wanted is None:
            chosen: list[Union[int, str]] = [
                info.position for info in workbook.sheets if info.kind == "worksheet"
            ]
        else:
            chosen = [one.resolve(workbook) for one in wanted]
        method = {"polars": "to_polars", "pyarrow": "to_arrow", "pandas": "to_pandas"}[to]
        workers = max(1, min(threads or _os.cpu_count() or 1, len(chosen)))
        # Each sheet read through on one thread when several are read at
        # once (the pool spreads them over the cores), its reader gone once
        # its frame is made: a sheet costs what its cells cost.
        per_sheet = 1 if len(chosen) > 1 else 0

        def one(wanted_sheet: Union[int, str]) -> tuple[str, Any]:
            sheet = workbook.sheet(wanted_sheet, threads=per_sheet, **options)
            return sheet.name, getattr(sheet, method)()

        if workers == 1:
            pairs = [one(wanted_sheet) for wanted_sheet in chosen]
        else:
            with _ThreadPoolExecutor(max_workers=workers) as pool:
                pairs = list(pool.map(one, chosen))
    return dict(pairs)


def _many_workbook_frames(
    sources: list[Any],
    wanted: Optional[list[_SheetChoice]],
    to: str,
    threads: int,
    storage_options: Optional[dict[str, Any]],
    options: dict[str, Any],
) -> dict[str, Any]:
    # Each workbook's sheet list: which sheets each name's frame unites.
    names: list[str] = []
    holders: dict[str, list[Any]] = {}
    for source in sources:
        with open(source, storage_options=storage_options) as workbook:
            infos = workbook.sheets
            if wanted is None:
                chosen = [info.name for info in infos if info.kind == "worksheet"]
            else:
                chosen = []
                for one in wanted:
                    ref = one.resolve(workbook)
                    if isinstance(ref, str) and ref not in workbook.sheet_names and ref.isdigit():
                        # A whole number no sheet is named: a position.
                        ref = int(ref)
                    if isinstance(ref, int):
                        if not 0 <= ref < len(infos):
                            raise SheetNotFoundError(
                                f"no sheet at position {ref} of {source!r} "
                                f"(the workbook has {len(infos)})"
                            )
                        chosen.append(infos[ref].name)
                    else:
                        chosen.append(ref)
        for name in chosen:
            if name not in holders:
                holders[name] = []
                names.append(name)
            holders[name].append(source)
    # (`to` is a str here: the typed overloads are for callers.)
    read: Any = _sheetstream.read_excel
    return {
        name: read(
            holders[name],
            None,
            sheet_name=name,
            to=to,
            threads=threads,
            storage_options=storage_options,
            **options,
        )
        for name in names
    }


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
    recursive: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Sheets, each into a frame of its own: a dict by sheet name, in
    workbook order (``sheet=None``, every worksheet) or in the order asked
    for, as polars' ``read_excel(sheet_id=0)`` and pandas'
    ``read_excel(sheet_name=None)`` return them. ``read_excel`` unites
    sheets into one frame instead.

    ``source`` is one workbook (a path, bytes, a binary file object, a
    URL), or many (a folder, a glob pattern, a list): then each sheet
    name's frame unites that sheet of every workbook that has it, in file
    order, as polars' ``read_excel`` of many workbooks does. ``sheet``: a
    0-based position or a name (a name wins; a whole number names the
    sheet at that position when no sheet has that name), or a list; or
    polars' ``sheet_id`` (from 1; 0 is every sheet) or ``sheet_name``
    (names only). ``raise_if_empty=True`` raises ``NoDataError`` for a
    sheet without a cell (polars' option; off by default here). The other
    options are those of ``Workbook.sheet``; ``threads`` (0: one per core)
    sheets are read at once, each on one thread, and a sheet's reader is
    gone once its frame is made. ``password`` and ``verify_integrity`` are
    ``open``'s (an encrypted workbook: Excel's default password is tried
    first); reading every worksheet checks an encrypted workbook's
    integrity."""
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"threads must be an int (0 or more), not {type(threads).__name__}")
    if threads < 0:
        raise ValueError(f"threads must be 0 or more; 0 is one per core, not {threads}")
    expanded = _expand_sources(source, storage_options, recursive)
    options.update(to=to, storage_options=storage_options, threads=threads)
    if password is not None:
        options["password"] = password
    if verify_integrity:
        options["verify_integrity"] = verify_integrity
    return _sheet_frames(expanded, sheet, options)

__all__ = [
    "WORKBOOK_EXTENSIONS",
    "BatchIterator",
    "BatchReport",
    "CellError",
    "CellIssue",
    "CoercionWarning",
    "ColumnError",
    "ConversionError",
    "DamagedWorkbookError",
    "DefinedName",
    "EncryptedWorkbookError",
    "EncryptionError",
    "Error",
    "IntegrityError",
    "LimitError",
    "NoDataError",
    "NotAWorkbookError",
    "NothingReadError",
    "NotXlsxError",
    "PackageError",
    "PasswordIncorrectError",
    "PasswordRequiredError",
    "ReadError",
    "UnsupportedFormatError",
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
    "pandas",
    "read_excel",
    "read_excel_sheets",
    "scan_excel",
]
# sheetstream.FileNotFoundError, IsADirectoryError, PermissionError,
# ConnectionError and TimeoutError (each a ReadError and the built-in of
# the same name) are left out of __all__, so that `from sheetstream import
# *` does not shadow the built-ins; DamagedCellError (a CellError and a
# DamagedWorkbookError) is left out with them.
