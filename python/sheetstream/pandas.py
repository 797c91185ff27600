"""``sheetstream.pandas.read_excel``: pandas' ``read_excel`` by pandas'
names and with pandas' meanings, on sheetstream's reader, returning a
pandas ``DataFrame`` (or a dict of them, as pandas does).

Why an entry of its own rather than aliases on ``sheetstream.read_excel``:
the same names mean other things there. pandas' ``sheet_name=None`` is
every sheet as a dict (polars' is the first sheet, sheetstream's
``sheet=None`` every sheet united in one frame); pandas' integer sheet
positions leave chart sheets out; its ``header`` counts from the first row
left after ``skiprows``, gives integer column names when None and a
MultiIndex for a list; its ``usecols`` keeps the sheet's column order
whatever order they are listed in. One function with pandas' defaults
keeps those meanings without changing any of ``read_excel``'s.

    >>> import sheetstream.pandas
    >>> frame = sheetstream.pandas.read_excel("sales.xlsx", sheet_name="Data", usecols="A:C")
    >>> frames = sheetstream.pandas.read_excel("sales.xlsx", sheet_name=None)  # a dict

Rows and columns count from 0, as pandas counts them: ``header=0`` is the
sheet's first row (Excel's row 1), ``skiprows=2`` leaves out Excel's rows
1 and 2, ``usecols=[0, 2]`` is columns A and C; ``sheet_name=1`` is the
second sheet that is not a chart sheet.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional, Union

from . import _sheetstream

if TYPE_CHECKING:
    import pandas as _pandas

__all__ = ["read_excel"]

#: pandas' options this entry does not take, and what to do instead.
_NOT_TAKEN: dict[str, str] = {
    "index_col": "set the index after reading (frame.set_index(...))",
    "names": "rename the columns after reading (frame.columns = [...])",
    "converters": "convert the columns after reading",
    "true_values": "booleans are read as booleans",
    "false_values": "booleans are read as booleans",
    "keep_default_na": "only na_values (and empty cells) become missing values",
    "na_filter": "only na_values (and empty cells) become missing values",
    "verbose": "there is nothing more to tell",
    "parse_dates": "dates are read as dates already (by their number format)",
    "date_format": "dates are read as dates already (by their number format)",
    "date_parser": "dates are read as dates already (by their number format)",
    "thousands": "numbers are read as numbers already",
    "decimal": "numbers are read as numbers already",
    "comment": "cells are read as they are",
    "skipfooter": "n_rows or stop_at_empty_row=True end a table",
    "dtype_backend": "columns come from Arrow: to_pandas's types",
    "engine_kwargs": "sheetstream is the engine: give its options directly",
}

#: sheetstream's names of the options pandas names here.
_THEIRS_HERE = {
    "header_row": "header",
    "skip_rows": "skiprows",
    "n_rows": "nrows",
    "columns": "usecols",
    "dtypes": "dtype",
    "null_values": "na_values",
}

_PandasSheet = Union[str, int]


def read_excel(
    io: Any,
    sheet_name: Union[_PandasSheet, Sequence[_PandasSheet], None] = 0,
    *,
    header: Union[int, Sequence[int], None] = 0,
    usecols: Union[str, Sequence[int], Sequence[str], Callable[[Hashable], bool], None] = None,
    dtype: Any = None,
    skiprows: Optional[int] = None,
    nrows: Optional[int] = None,
    na_values: Union[str, Sequence[str], None] = None,
    engine: Optional[str] = None,
    storage_options: Optional[dict[str, Any]] = None,
    **options: Any,
) -> Union["_pandas.DataFrame", dict[_PandasSheet, "_pandas.DataFrame"]]:
    """One workbook's sheets as pandas DataFrames, by pandas'
    ``read_excel`` names, counting from 0 as pandas does.

    ``io``: one workbook (a path, a URL with ``storage_options``, bytes,
    a binary file object). ``sheet_name``: a name (names only), a 0-based
    position among the sheets that are not chart sheets, a list of these
    (a dict keyed by each item as given), or None (a dict of every
    worksheet by name). ``header``: the 0-based row of column names,
    counted from the first row left after ``skiprows`` (0, the default, is
    the sheet's first row, Excel's row 1; an empty row there gives
    generated names); a list of consecutive rows joins their texts with a
    space (pandas makes a MultiIndex); None reads every row as data, the
    columns named 0, 1, 2, ... ``skiprows``: how many of the sheet's first
    rows to leave out (a count; pandas' lists and callables are not
    taken). ``nrows``: at most this many data rows. ``usecols``: Excel
    letters and ranges (``"A:C,F"``), 0-based positions, header names, or a
    callable given each name; the columns keep the sheet's order.
    ``dtype``: one type for every column or a dict by column name: numpy
    and pandas types and names (``"int64"``, ``float``, ``str``,
    ``"datetime64[ns]"``, ``"category"``, ...); int64, float64, str,
    bool and datetime64 are read as such (a value that does not fit fails,
    naming the cell), others are read and then cast with ``astype``.
    ``na_values``: text that becomes a missing value. ``engine``: None or
    ``"sheetstream"`` (the reader is sheetstream's).

    sheetstream's own sheet options (``fill_merged``,
    ``skip_hidden_rows``, ``drop_empty_rows``, ``on_mismatch``, ...) are
    taken too; its names for the options above (``header_row``,
    ``columns``, ...) are not, to keep one meaning per call."""
    for name in options:
        if name in _NOT_TAKEN:
            raise TypeError(f"read_excel takes no {name}: {_NOT_TAKEN[name]}")
        if name in _THEIRS_HERE:
            raise TypeError(
                f"{name} is sheetstream.read_excel's name: give pandas' {_THEIRS_HERE[name]} here"
            )
    if engine not in (None, "sheetstream"):
        raise TypeError(f"engine={engine!r}: sheetstream is the engine; leave engine out")
    if isinstance(io, (list, tuple)) or (
        isinstance(io, (str, os.PathLike)) and os.path.isdir(os.fspath(io))
    ):
        raise TypeError(
            "sheetstream.pandas.read_excel reads one workbook, as pandas' does; "
            "sheetstream.read_excel(..., to='pandas') reads many (folders, patterns, lists)"
        )
    if skiprows is not None and (
        isinstance(skiprows, bool) or not isinstance(skiprows, int) or skiprows < 0
    ):
        raise TypeError(
            "skiprows here is how many of the sheet's first rows to leave out (an int); "
            "pandas' lists and callables of rows are not taken"
        )
    skip = skiprows or 0
    sheet_options: dict[str, Any] = dict(options)
    sheet_options["skip_rows"] = skip
    if header is None:
        sheet_options["header_row"] = None
    elif isinstance(header, bool):
        raise TypeError("header is a 0-based row (an int), a list of them, or None; not a bool")
    elif isinstance(header, int):
        sheet_options["header_row"] = skip + header
    else:
        sheet_options["header_row"] = [skip + row for row in header]
    if nrows is not None:
        sheet_options["n_rows"] = nrows
    if na_values is not None:
        if isinstance(na_values, Mapping):
            raise TypeError("na_values here is text for every column (a str or a list), not a dict")
        sheet_options["null_values"] = na_values
    with _sheetstream.open(io, storage_options=storage_options) as workbook:
        if sheet_name is None:
            wanted: list[_PandasSheet] = [
                info.name for info in workbook.sheets if info.kind == "worksheet"
            ]
            keys: list[_PandasSheet] = list(wanted)
        elif isinstance(sheet_name, (str, int)):
            wanted = [sheet_name]
            keys = wanted
        else:
            wanted = list(sheet_name)
            keys = wanted
        frames = {
            key: _one_sheet(workbook, _position(workbook, one), sheet_options, usecols, dtype, header)
            for key, one in zip(keys, wanted)
        }
    if isinstance(sheet_name, (str, int)):
        return frames[sheet_name]
    return frames


def _position(workbook: _sheetstream.Workbook, sheet: _PandasSheet) -> int:
    """A sheet as pandas names it: a name, or a position among the sheets
    that are not chart sheets."""
    infos = workbook.sheets
    if isinstance(sheet, bool) or not isinstance(sheet, (str, int)):
        raise TypeError(f"sheet_name holds names (str) and positions (int), not {sheet!r}")
    if isinstance(sheet, str):
        for info in infos:
            if info.name == sheet:
                return info.position
        names = ", ".join(repr(info.name) for info in infos)
        raise _sheetstream.SheetNotFoundError(f"no sheet named {sheet!r}; the sheets: {names}")
    counted = [info for info in infos if info.kind != "chartsheet"]
    if not 0 <= sheet < len(counted):
        raise _sheetstream.SheetNotFoundError(
            f"no sheet at position {sheet} (0-based; the workbook has {len(counted)} "
            "that are not chart sheets)"
        )
    return counted[sheet].position


#: numpy and pandas type names read as a column type of sheetstream's.
_READ_AS = {
    "int64": "int64",
    "int": "int64",
    "float64": "float64",
    "float": "float64",
    "str": "utf8",
    "string": "utf8",
    "bool": "bool",
    "datetime64[ns]": "timestamp",
    "datetime64[us]": "timestamp",
    "datetime64[ms]": "timestamp",
    "datetime64[s]": "timestamp",
    "datetime64": "timestamp",
}


def _type_name(dtype: Any) -> str:
    """A numpy or pandas type (a name, a Python type, a numpy type or
    dtype) by its name."""
    if isinstance(dtype, str):
        return dtype
    if isinstance(dtype, type) and dtype.__module__ == "builtins":
        return dtype.__name__
    name = getattr(dtype, "name", None)
    if isinstance(name, str):
        return name
    import numpy

    return str(numpy.dtype(dtype).name)


def _one_sheet(
    workbook: _sheetstream.Workbook,
    position: int,
    options: dict[str, Any],
    usecols: Any,
    dtype: Any,
    header: Any,
) -> "_pandas.DataFrame":
    options = dict(options)
    order: Optional[list[str]] = None
    if usecols is not None or (dtype is not None and not isinstance(dtype, Mapping)):
        # The sheet's columns, from its header and sample: the order
        # usecols keeps, the names a callable is given or one dtype spans.
        schema_only: dict[str, Any] = dict(options, _schema_only=True)
        order = workbook.sheet(position, **schema_only).column_names
    if usecols is not None:
        if callable(usecols):
            assert order is not None
            options["columns"] = [name for name in order if usecols(name)]
        elif isinstance(usecols, str):
            options["columns"] = usecols
        else:
            chosen = list(usecols)
            if all(isinstance(item, int) and not isinstance(item, bool) for item in chosen):
                chosen = sorted(chosen)
            options["columns"] = chosen
    cast: dict[str, Any] = {}
    if dtype is not None:
        given = dict(dtype) if isinstance(dtype, Mapping) else dict.fromkeys(order or [], dtype)
        ours: dict[str, str] = {}
        for name, wanted in given.items():
            type_name = _type_name(wanted)
            if type_name == "object":
                continue  # as stored: the inferred type
            if type_name in _READ_AS:
                ours[str(name)] = _READ_AS[type_name]
            else:
                cast[str(name)] = wanted
        if ours:
            options["dtypes"] = ours
    frame = workbook.sheet(position, **options).to_pandas()
    if order is not None and usecols is not None:
        rank = {name: at for at, name in enumerate(order)}
        frame = frame[sorted(frame.columns, key=lambda name: rank.get(name, len(rank)))]
    if cast:
        frame = frame.astype({name: kind for name, kind in cast.items() if name in frame.columns})
    if header is None:
        frame.columns = list(range(frame.shape[1]))
    return frame
