"""Planning a read of many workbooks: which (file, sheet) pairs to read, and
how to spread them over workers.

This is the driver-side half of the Spark data source
(:mod:`sheetstream.spark`), usable from plain Python too: Dask's
``dask.dataframe.from_map`` and Ray's remote tasks take the work items
:func:`plan` yields, and each worker reads its item with
``sheetstream.open(item.path).sheet(item.sheet)`` (docs/src/spark.md has both
examples).

    >>> from sheetstream.planning import plan, pack
    >>> items = list(plan(["reports/2024-*.xlsx"], sheet="all"))
    >>> bins = pack(items, 8)          # 8 lists of items, balanced by size

Only the ZIP directory and the workbook's sheet list of each file are read
here (``sheetstream.open``); no cell is.
"""

from __future__ import annotations

import glob
import heapq
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Union

import sheetstream
from sheetstream import _remote

__all__ = [
    "SheetSelection",
    "WorkItem",
    "list_files",
    "pack",
    "parse_sheet_selection",
    "plan",
]

#: A sheet selection: a position (0-based), a name, ``"all"`` (every
#: worksheet; chart and dialog sheets have no cells), or a list of these.
SheetSelection = Union[int, str, Sequence[Union[int, str]]]

_GLOB_CHARACTERS = frozenset("*?[")


@dataclass(frozen=True)
class WorkItem:
    """One unit of work: a sheet of a workbook, or a workbook that could not
    be opened (``sheet`` is None and ``error`` says why, with the path).

    ``size`` is the share of the file's compressed size given to the item
    (the file's size divided among its selected sheets): the weight used to
    balance workers.
    """

    path: str
    sheet: Optional[str]
    position: Optional[int]
    size: int
    error: Optional[str] = None


#: The extensions a listing keeps: the library's (``WORKBOOK_EXTENSIONS``),
#: the ones a folder given to ``read_excel`` or the CLI is listed by.
WORKBOOK_SUFFIXES = tuple(f".{extension}" for extension in sheetstream.WORKBOOK_EXTENSIONS)


def list_files(
    paths: Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]],
    *,
    recursive: bool = False,
    extensions: Sequence[str] = WORKBOOK_SUFFIXES,
    storage_options: Optional[Dict[str, Any]] = None,
) -> List[str]:
    """The workbook files named by ``paths``: files, directories (their
    workbooks, subdirectories too when ``recursive``) and glob patterns
    (``**`` matches across directories).

    Files named directly are kept whatever their extension; files found in
    a directory or by a pattern must end with one of ``extensions``, and
    names starting with ``.``, ``_`` or ``~$`` (hidden files, Spark's
    markers, Excel's lock files) are left out, as Spark leaves them out of
    its listings. The result is sorted, without duplicates. A path that
    names nothing is an error (``FileNotFoundError`` naming it).

    A URL (``s3://bucket/prefix/``, ``gs://...``, ``https://...``, any
    fsspec protocol) is listed through fsspec with ``storage_options``: an
    object, a prefix (as a directory) or a pattern over a prefix; the
    result holds full URLs.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    found: set[str] = set()
    for entry in paths:
        path = os.fspath(entry)
        if _remote.is_url(path) and not path.startswith("file://"):
            found.update(_list_url(path, recursive, extensions, storage_options))
            continue
        if path.startswith("file://"):
            path = path[len("file://") :]
        if os.path.isfile(path):
            found.add(os.path.abspath(path))
            continue
        if os.path.isdir(path):
            candidates = _walk(path, recursive)
        elif _GLOB_CHARACTERS.intersection(path):
            candidates = []
            for match in glob.glob(path, recursive=True):
                if os.path.isdir(match):
                    candidates.extend(_walk(match, recursive))
                else:
                    candidates.append(match)
        else:
            raise FileNotFoundError(f"{path}: no such file or directory")
        matched = [
            os.path.abspath(candidate)
            for candidate in candidates
            if _is_workbook_name(os.path.basename(candidate), extensions)
            and os.path.isfile(candidate)
        ]
        if not matched and not os.path.isdir(path):
            raise FileNotFoundError(f"{path}: the pattern matches no workbook")
        found.update(matched)
    return sorted(found)


def _list_url(
    url: str, recursive: bool, extensions: Sequence[str], storage_options: Optional[Dict[str, Any]]
) -> List[str]:
    """:func:`list_files` for one URL, through fsspec."""
    fs, path = _remote.filesystem(url, storage_options)
    try:
        if _remote.has_magic(url):
            infos = fs.glob(path, detail=True)
        elif fs.isfile(path):
            return [url]
        elif fs.isdir(path):
            infos = fs.find(path, maxdepth=None if recursive else 1, detail=True)
        else:
            raise FileNotFoundError(f"{url}: no such object or prefix")
    except FileNotFoundError:
        raise
    except Exception as error:
        raise OSError(f"{url}: {error}") from error
    matched = [
        _remote._protocol_url(fs, name)
        for name, info in infos.items()
        if info.get("type") != "directory"
        and _is_workbook_name(name.rsplit("/", 1)[-1], extensions)
    ]
    if not matched and _remote.has_magic(url):
        raise FileNotFoundError(f"{url}: the pattern matches no workbook")
    return matched


def _size(path: str, storage_options: Optional[Dict[str, Any]]) -> int:
    if _remote.is_url(path) and not path.startswith("file://"):
        fs, inner = _remote.filesystem(path, storage_options)
        return int(fs.size(inner) or 0)
    return os.path.getsize(path)


def _walk(directory: str, recursive: bool) -> List[str]:
    if not recursive:
        return [os.path.join(directory, name) for name in os.listdir(directory)]
    files: List[str] = []
    for root, directories, names in os.walk(directory):
        directories[:] = [name for name in directories if not name.startswith((".", "_"))]
        files.extend(os.path.join(root, name) for name in names)
    return files


def _is_workbook_name(name: str, extensions: Sequence[str]) -> bool:
    if name.startswith((".", "_", "~$")):
        return False
    return name.lower().endswith(tuple(extension.lower() for extension in extensions))


def parse_sheet_selection(text: str) -> SheetSelection:
    """A selection as a string option spells it: ``"all"`` or ``"*"``
    (every worksheet), a sheet (``"Data"``, ``"0"``), or several separated
    by commas (``"0,Totals"``). Each sheet is kept as text and found in
    each workbook by the library's rule for text, the one every interface
    shares: the sheet of that name; or, when no sheet has that name and
    the text is a whole number, the sheet at that 0-based position (a name
    wins, with a ``UserWarning`` when the text could have meant another
    sheet)."""
    text = text.strip()
    if text.lower() in ("all", "*"):
        return "all"
    parts = [part.strip() for part in text.split(",")] if "," in text else [text]
    return parts[0] if len(parts) == 1 else parts


def plan(
    paths: Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]],
    sheet: SheetSelection = 0,
    *,
    recursive: bool = False,
    on_error: str = "raise",
    table: Optional[str] = None,
    storage_options: Optional[Dict[str, Any]] = None,
    keep_file: Optional[Callable[[str], bool]] = None,
    password: Optional[str] = None,
) -> Iterator[WorkItem]:
    """Yields a :class:`WorkItem` for each selected sheet of each workbook
    :func:`list_files` finds, in file order, then sheet order.

    ``sheet``: a position (0-based, among all sheets as the workbook lists
    them), a name (text: the sheet of that name, or when none has it and
    it is a whole number, the sheet at that position, as everywhere), ``"all"``
    (every worksheet), or a list of positions and names. A workbook without a selected sheet is an error, as is one that
    cannot be opened; ``on_error="raise"`` (the default) raises
    :class:`sheetstream.Error` (its message starts with the path), while
    ``on_error="keep"`` yields one item with ``sheet=None`` and the message
    in ``error`` instead, and ``on_error="skip"`` leaves the file out.

    ``table``: an Excel table's name; with ``sheet`` 0 (the default), each
    workbook's item is the sheet holding that table (a workbook without it
    is an error, as above).
    URLs are listed and opened through fsspec with ``storage_options``.
    A file that ``keep_file`` (given its path) rejects is left out before
    it is opened. ``password`` opens encrypted workbooks (after Excel's
    default password).
    """
    if on_error not in ("raise", "keep", "skip"):
        raise ValueError(f"on_error must be 'raise', 'keep' or 'skip', not {on_error!r}")
    for path in list_files(paths, recursive=recursive, storage_options=storage_options):
        if keep_file is not None and not keep_file(path):
            continue
        size = _size(path, storage_options)
        try:
            with sheetstream.open(
                path, storage_options=storage_options, password=password
            ) as workbook:
                infos = workbook.sheets
                if table is not None and sheet == 0:
                    chosen = [infos[workbook.table(table).sheet_position]]
                else:
                    chosen = _select(workbook, sheet)
        except sheetstream.Error as error:
            message = _name_path(error, path)
            if on_error == "raise":
                raise
            if on_error == "keep":
                yield WorkItem(path, None, None, size, message)
            continue
        share = max(1, size // max(1, len(chosen)))
        for info in chosen:
            yield WorkItem(path, info.name, info.position, share)


def _name_path(error: BaseException, path: str) -> str:
    """Puts the path in front of the error's message (keeping its type and
    its location attributes) and sets ``error.path``; returns the message."""
    message = f"{path}: {error}"
    if not str(error).startswith(path):
        error.args = (message,) + tuple(error.args[1:])
    try:
        setattr(error, "path", path)
    except AttributeError:
        pass
    return str(error)


def _select(workbook: "sheetstream.Workbook", sheet: SheetSelection) -> List["sheetstream.SheetInfo"]:
    infos = workbook.sheets
    if isinstance(sheet, str) and sheet.lower() in ("all", "*"):
        return [info for info in infos if info.kind in ("worksheet", "macrosheet")]
    wanted = [sheet] if isinstance(sheet, (int, str)) else list(sheet)
    # The library's rule (Workbook.sheet_position): an int is a position,
    # text a name, or a whole number's position when no sheet has that
    # name; a UserWarning when a name could have meant another sheet.
    return [infos[workbook.sheet_position(selector)] for selector in wanted]


def pack(items: Sequence[WorkItem], bins: int, *, open_cost: int = 4 << 20) -> List[List[WorkItem]]:
    """Spreads ``items`` over at most ``bins`` lists so that their sizes
    (plus ``open_cost`` per item, Spark's ``openCostInBytes``: opening a
    small file is not free) balance: largest first, each into the lightest
    list so far. Lists keep the items in their planned order; empty lists
    are dropped."""
    if bins < 1:
        raise ValueError("bins must be at least 1")
    count = min(bins, max(1, len(items)))
    members: List[List[int]] = [[] for _ in range(count)]
    loads = [(0, group) for group in range(count)]  # a heap of (load, list)
    order = sorted(range(len(items)), key=lambda index: -items[index].size)
    for index in order:
        load, group = heapq.heappop(loads)
        members[group].append(index)
        heapq.heappush(loads, (load + items[index].size + open_cost, group))
    return [[items[index] for index in sorted(group)] for group in members if group]
