"""``sheetstream.scan_excel``: sheets as a polars LazyFrame, through polars'
IO plugin API (``polars.io.plugins.register_io_source``).

``scan_excel`` opens the workbooks and reads each chosen sheet's header and
type sample (nothing more) to make the schema; the rows are read only when
the frame is collected. What polars hands the source is pushed into the
reader: the projection (``with_columns``) becomes the column selection, so
the other columns' cells are never read into values; ``n_rows`` stops the
read (no further rows are inflated); the predicate is applied to each
batch as it is read; the batch size is polars' unless ``batch_size`` was
given. Many sheets are read at once (``threads`` of them, as ``read_excel``
reads them on its pool), each at most a few batches ahead, and handed over
in the order ``read_excel`` returns them (files as given, then sheets), so
memory follows a few batches, not the sheets.

The schema is fixed before any row is read, so a value past the sample
that does not fit its column's type cannot widen it (``read_excel`` reads
again with the wider type): the scan raises the ``ConversionError`` naming
the file, sheet, cell and value, and the options that would take it
(``schema_sample_rows=None`` types from every row when ``scan_excel`` is
called; ``dtypes``; ``on_mismatch="null"`` nulls such values, with a
``CoercionWarning``).
"""

from __future__ import annotations

import os
import queue
import re
import threading
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from . import _remote, _sheetstream

if TYPE_CHECKING:
    import polars
    from typing_extensions import Unpack

    from ._sheetstream import BatchReport, _SheetOptions, _Sources

def _promote(a: str, b: str) -> str:
    """Two sheets' types of one column as one: the Arrow layer's rules
    (``infer::promote``), which ``read_excel`` unites sheets by."""
    if a == b:
        return a
    if a == "null":
        return b
    if b == "null":
        return a
    pair = {a, b}
    if pair == {"int64", "float64"}:
        return "float64"
    if pair == {"time", "duration"}:
        return "duration"
    if pair == {"date", "timestamp"}:
        return "timestamp"
    return "utf8"


def _same_but_generated(a: Sequence[str], b: Sequence[str]) -> bool:
    """As the Arrow layer's ``same_but_generated``: equal but for trailing
    columns without a header (``column_N``) one of them has."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return list(long[: len(short)]) == list(short) and all(
        name == f"column_{at + 1}" for at, name in enumerate(long) if at >= len(short)
    )


#: What a scan skipped (with ``skip_unreadable``): file, sheet (None for
#: the file itself), error.
_Skipped = list[tuple[str, Optional[str], BaseException]]


@dataclass
class _Part:
    """One (workbook, sheet) pair the scan reads."""

    workbook: _sheetstream.Workbook
    label: str
    position: int
    name: str
    # The sheet's own columns and the types its sample gave them.
    columns: list[str]
    types: list[str]


def _labels(sources: Sequence[Any]) -> list[str]:
    """The ``file`` column's values, as ``read_excel`` makes them: the path,
    or ``<N bytes>``; " #2", " #3", ... after a label met before."""
    seen: dict[str, int] = {}
    labels = []
    for source in sources:
        if isinstance(source, (bytes, bytearray, memoryview)):
            label = f"<{len(source)} bytes>"
        elif hasattr(source, "read_range"):
            label = source.url
        else:
            label = os.fspath(source)
            if isinstance(label, bytes):
                label = os.fsdecode(label)
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return labels


def _in_memory(source: Any) -> Any:
    """A binary file object read into bytes (once: the scan may be
    collected many times); other sources as they are."""
    if isinstance(source, (str, os.PathLike, bytes, bytearray, memoryview)):
        return source
    if hasattr(source, "read_range"):
        return source  # a URL, read by ranges at each collect
    ranges = _remote.file_ranges(source) if hasattr(source, "fs") else None
    if ranges is not None:
        return ranges  # an fsspec file object: by ranges through its filesystem
    read = getattr(source, "read", None)
    if read is None:
        raise TypeError(
            f"expected a path, bytes or a binary file object, not {type(source).__name__}"
        )
    data = read()
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("the file object must be opened in binary mode")
    return bytes(data)


_AT = re.compile(r"\(at ([^()]*)\)$")


def _naming_file(err: _sheetstream.Error, label: str) -> _sheetstream.Error:
    """The error with its file named, as ``read_excel``'s errors name it
    (``(at file F, sheet 'S', cell B7)``); the same class and location."""
    if err.file is not None:
        return err
    text = str(err)
    found = _AT.search(text)
    if found:
        text = f"{text[: found.start()]}(at file {label}, {found.group(1)})"
    else:
        text = f"{text} (at file {label})"
    return _retyped(err, text, label)


def _retyped(err: _sheetstream.Error, text: str, label: Optional[str]) -> _sheetstream.Error:
    new = type(err)(text)
    for attribute in ("file", "part", "sheet", "row", "column", "offset"):
        setattr(new, attribute, getattr(err, attribute, None))
    if label is not None:
        new.file = label
    return new


_GIVEN = re.compile(r"\(([a-z0-9]+), as dtypes gives it\); give it a type that takes the value: ")


def _as_sampled(err: _sheetstream.Error, sample_rows: Any) -> _sheetstream.Error:
    """A misfit in a column whose type the scan fixed (the union of many
    sheets' samples, not the caller's ``dtypes``): said as such, with the
    options that take the value."""
    rows = "every row" if sample_rows is None else f"the first {sample_rows} rows with values"
    text = _GIVEN.sub(
        lambda found: (
            f"({found.group(1)}, as {rows} of the sheets scanned together made it: "
            "scan_excel's schema is fixed before collect, so the column cannot widen); "
            "read it with the types of every row: schema_sample_rows=None, with its type: "
        ),
        str(err),
        count=1,
    )
    return _retyped(err, text, None)


def _nothing_read(skipped: "_Skipped") -> _sheetstream.NothingReadError:
    """The error of a scan that skipped every file and sheet given, worded
    as ``read_excel``'s (the library's), its ``skipped`` listing them."""
    file, sheet, error = skipped[0]
    place = file if sheet is None else f"{file} sheet '{sheet}'"
    counted = (
        "the one file or sheet given was"
        if len(skipped) == 1
        else f"all {len(skipped)} files and sheets given were"
    )
    err = _sheetstream.NothingReadError(
        f"nothing read: {counted} unreadable and skipped (skip_unreadable), no sheet left "
        f"to read; the first: {place}: {error}"
    )
    err.skipped = [_sheetstream.SkippedSheet(*item) for item in skipped]  # type: ignore[attr-defined]
    return err


# Frames a sheet read ahead hands over before the one taken (many sheets
# read at once).
_AHEAD = 2
_END = object()


@dataclass
class _Failed:
    """A reading thread's error, raised on the caller's."""

    error: BaseException


class _Scan:
    """The sheets of a scan, their united schema, and the batches."""

    def __init__(
        self,
        sources: list[Any],
        sheet: Union[int, str, Sequence[Union[int, str]], None],
        union_by_name: bool,
        file_column: Optional[str],
        sheet_column: Optional[str],
        threads: int,
        on_report: Optional[Callable[["BatchReport"], None]],
        options: dict[str, Any],
        skip_unreadable: bool = False,
        password: Any = None,
        verify_integrity: bool = False,
    ) -> None:
        self.skip_unreadable = skip_unreadable
        self.skipped: _Skipped = []
        self.union_by_name = union_by_name
        self.file_column = file_column
        self.sheet_column = sheet_column
        self.on_report = on_report
        self.user_dtypes: dict[str, Any] = dict(options.pop("dtypes", None) or {})
        self.options = options
        self.sample_rows = options.get(
            "schema_sample_rows", options.get("infer_schema_length", 1000)
        )
        self.user_batch_size: Optional[int] = options.pop("batch_size", None)
        self.user_n_rows: Optional[int] = options.pop("n_rows", None)
        labels = _labels(sources)
        self.threads = threads or os.cpu_count() or 1
        workers = max(1, min(self.threads, len(sources)))

        def sample(job: tuple[Any, str]) -> tuple[list[_Part], _Skipped]:
            # What a file skips is kept with its parts: the warning lists
            # files as given, whichever thread finished first.
            source, label = job
            skipped: _Skipped = []
            try:
                workbook = _sheetstream.open(
                    source, password=password, verify_integrity=verify_integrity
                )
            except _sheetstream.Error as err:
                if self.skip_unreadable:
                    skipped.append((label, None, _naming_file(err, label)))
                    return [], skipped
                raise _naming_file(err, label) from None
            return self._parts(workbook, label, sheet, skipped), skipped

        if workers == 1:
            found = [sample(job) for job in zip(sources, labels)]
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                found = list(pool.map(sample, zip(sources, labels)))
        self.parts = [part for parts, _ in found for part in parts]
        self.skipped = [skip for _, skipped in found for skip in skipped]
        if self.skipped and not self.parts:
            raise _nothing_read(self.skipped)
        if self.skipped:
            # Level 1 is this method, 2 scan_excel, 3 its caller.
            _sheetstream._warn_skipped("scan_excel", self.skipped, 3)
        names, types = self._unite()
        self.names = names
        self.types = types
        leading = [name for name in (file_column, sheet_column) if name is not None]
        for name in leading:
            if name in names:
                raise ValueError(
                    f"file_column or sheet_column {name!r} is also a column of the sheets"
                )
        self.columns = leading + names

    def _parts(
        self,
        workbook: _sheetstream.Workbook,
        label: str,
        sheet: Union[int, str, Sequence[Union[int, str]], None],
        skipped: "_Skipped",
    ) -> list[_Part]:
        """The chosen sheets of one workbook, each's header and sample read
        (the user's options, the columns' own types: `dtypes` apply to the
        united columns); with `skip_unreadable`, the sheets that cannot be
        read are added to `skipped`."""
        if sheet is None:
            wanted: list[Union[int, str]] = [
                info.position for info in workbook.sheets if info.kind == "worksheet"
            ]
        elif isinstance(sheet, (int, str)):
            wanted = [sheet]
        else:
            wanted = list(sheet)
        parts: list[_Part] = []
        seen: set[int] = set()
        for ref in wanted:
            sample_options = dict(self.options)
            if self.user_n_rows is not None:
                sample_options["n_rows"] = self.user_n_rows
            # The header and sample read on this thread, the part inflated
            # only as far as they go: no reader started for it.
            sample_options["_schema_only"] = True
            try:
                one = workbook.sheet(ref, **sample_options)
            except _sheetstream.Error as err:
                if self.skip_unreadable:
                    # A sheet the workbook lacks is said of the file, as
                    # read_excel says it; another, of the sheet.
                    name: Optional[str] = None
                    if not isinstance(err, _sheetstream.SheetNotFoundError):
                        names = workbook.sheet_names
                        name = ref if isinstance(ref, str) else names[ref]
                    skipped.append((label, name, _naming_file(err, label)))
                    continue
                raise _naming_file(err, label) from None
            position = workbook.sheet_names.index(one.name)
            if position in seen:
                continue
            seen.add(position)
            # The types by name, not through `one.schema`: that imports
            # pyarrow, a tenth of a second a scan into polars need not pay.
            parts.append(
                _Part(
                    workbook=workbook,
                    label=label,
                    position=position,
                    name=one.name,
                    columns=one.column_names,
                    types=one._column_types,
                )
            )
            del one
        return parts

    def _unite(self) -> tuple[list[str], list[str]]:
        """One set of columns for every sheet, as the Arrow layer's
        ``unite``: by position and name (the sheets must agree) or by name,
        types promoted; then the ``dtypes`` overrides."""
        names: list[str] = []
        types: list[str] = []
        index: dict[str, int] = {}
        for part in self.parts:
            if (
                not self.union_by_name
                and names
                and names != part.columns
                and not _same_but_generated(names, part.columns)
            ):
                raise _sheetstream.ColumnError(
                    f"bad column selection: the columns of sheet '{part.name}' of {part.label} "
                    f"({', '.join(part.columns)}) differ from the first sheet's "
                    f"({', '.join(names)}); read with union_by_name to match them by name"
                )
            for name, ty in zip(part.columns, part.types):
                at = index.get(name)
                if at is None:
                    index[name] = len(names)
                    names.append(name)
                    types.append(ty)
                else:
                    types[at] = _promote(types[at], ty)
        for name, given in self.user_dtypes.items():
            if name not in index:
                raise _sheetstream.ColumnError(
                    f"bad column selection: a type override names `{name}`, which is not a "
                    f"column; the columns are: {', '.join(names)}"
                )
            types[index[name]] = _dtype_name(given)
        return names, types

    def polars_schema(self) -> "polars.Schema":
        """The schema in polars' types, as polars reads the reader's Arrow
        types (no pyarrow conversion: a first ``polars.from_arrow`` imports
        pandas, most of a second)."""
        import polars

        types: dict[str, Any] = {
            "null": polars.Null,
            "bool": polars.Boolean,
            "int64": polars.Int64,
            "float64": polars.Float64,
            "utf8": polars.String,
            "date": polars.Date,
            "timestamp": polars.Datetime("ms"),
            "time": polars.Time,
            "duration": polars.Duration("ms"),
        }
        leading = [name for name in (self.file_column, self.sheet_column) if name is not None]
        pairs = [(name, polars.String) for name in leading]
        pairs += [(name, types[ty]) for name, ty in zip(self.names, self.types)]
        return polars.Schema(pairs)

    def batches(
        self,
        with_columns: Optional[list[str]],
        predicate: Optional["polars.Expr"],
        n_rows: Optional[int],
        batch_size: Optional[int],
    ) -> Iterator["polars.DataFrame"]:
        """polars' IO source: the frames of every sheet in turn."""
        import polars

        wanted = list(with_columns) if with_columns is not None else list(self.columns)
        needed = list(wanted)
        if predicate is not None:
            for name in predicate.meta.root_names():
                if name not in needed:
                    needed.append(name)
        rows_left = n_rows
        size = self.user_batch_size or batch_size
        limit = self.user_n_rows
        if predicate is None and n_rows is not None:
            limit = n_rows if limit is None else min(limit, n_rows)
        for frame, report in self._all_frames(needed, limit, size, predicate):
            if self.on_report is not None:
                self.on_report(report)
            if frame.width != len(wanted) or frame.columns != wanted:
                frame = frame.select(wanted)
            if rows_left is not None:
                if frame.height >= rows_left:
                    frame = frame.head(rows_left)
                rows_left -= frame.height
            if frame.height:
                yield frame
            if rows_left is not None and rows_left <= 0:
                # Closing the generators drops the readers: their threads
                # stop at their next batch.
                return
        if with_columns is not None and not self.parts:
            yield polars.DataFrame(schema=self.polars_schema_cached).select(wanted)

    def _all_frames(
        self,
        needed: list[str],
        limit: Optional[int],
        size: Optional[int],
        predicate: Optional["polars.Expr"],
    ) -> Generator[tuple["polars.DataFrame", "BatchReport"], None, None]:
        """Every sheet's frames (filtered), in ``read_excel``'s order. Many
        sheets are read at once, ``threads`` of them (each a reader
        thread of its own, the file's part inflated on another), as
        ``read_excel`` reads them on its pool; each hands over at most
        ``_AHEAD`` frames ahead of the one taken, so memory follows
        ``threads`` batches, not the sheets."""
        workers = max(1, min(self.threads, len(self.parts)))
        if limit is not None and predicate is None:
            # head(): the first sheet likely holds the rows; the others
            # are not read ahead for nothing.
            workers = 1
        if workers == 1:
            for part in self.parts:
                for frame, report in self._sheet_frames(part, needed, limit, size):
                    if predicate is not None:
                        frame = frame.filter(predicate)
                    yield frame, report
            return
        stop = threading.Event()

        def produce(part: _Part, out: "queue.Queue[Any]") -> None:
            def hand(item: Any) -> bool:
                """Puts the item unless the scan stopped (the caller
                took what it wanted): then False."""
                while not stop.is_set():
                    try:
                        out.put(item, timeout=0.05)
                        return True
                    except queue.Full:
                        continue
                return False

            frames = self._sheet_frames(part, needed, limit, size)
            try:
                for frame, report in frames:
                    if predicate is not None:
                        frame = frame.filter(predicate)
                    if not hand((frame, report)):
                        return
                hand(_END)
            except BaseException as err:  # raised on the caller's thread
                hand(_Failed(err))
            finally:
                frames.close()

        queues: list["queue.Queue[Any]"] = [queue.Queue(_AHEAD) for _ in self.parts]
        threads = [
            threading.Thread(target=produce, args=(part, out), name="sheetstream-scan", daemon=True)
            for part, out in zip(self.parts, queues)
        ]
        try:
            for at in range(min(workers, len(threads))):
                threads[at].start()
            for at, out in enumerate(queues):
                while True:
                    item = out.get()
                    if item is _END:
                        break
                    if isinstance(item, _Failed):
                        raise item.error
                    yield item
                threads[at].join()
                if at + workers < len(threads):
                    threads[at + workers].start()
        finally:
            stop.set()
            for thread in threads:
                if thread.ident is not None:
                    thread.join()

    def _sheet_frames(
        self, part: _Part, needed: list[str], limit: Optional[int], size: Optional[int]
    ) -> Generator[tuple["polars.DataFrame", "BatchReport"], None, None]:
        """One sheet's batches as frames in the scan's schema (the columns
        in ``needed`` only): its columns in the united types, the ones
        it lacks null, the file and sheet columns."""
        own = [name for name in needed if name in part.columns]
        if not own and part.columns:
            # Only the file or sheet column, or columns this sheet lacks:
            # its first column still tells how many rows it has.
            own = part.columns[:1]
        options = dict(self.options)
        if limit is not None:
            options["n_rows"] = limit
        if size is not None:
            options["batch_size"] = size
        if own != part.columns:
            # The projection: the header and sample are read as for the
            # schema (the same names and types), then only these columns'
            # cells are read into values.
            options["_output_columns"] = own
        fixed = self._fixed(part)
        if fixed:
            options["dtypes"] = fixed
        ours = {name for name in fixed if name not in self.user_dtypes}
        try:
            sheet = part.workbook.sheet(part.position, **options)
            # polars frames straight from the Arrow C stream: no pyarrow.
            for frame, report in sheet._iter_polars_batches():
                yield self._conform(frame, part, needed), report
        except _sheetstream.ConversionError as misfit:
            said: _sheetstream.Error = misfit
            if any(f"column `{name}` (" in str(misfit) for name in ours):
                said = _as_sampled(misfit, self.sample_rows)
            raise _naming_file(said, part.label) from None
        except _sheetstream.Error as err:
            raise _naming_file(err, part.label) from None

    def _fixed(self, part: _Part) -> dict[str, str]:
        """The types the reader is given: the caller's ``dtypes``, and the
        united types where a union widened the sheet's own (the reader
        converts the values itself, as ``read_excel``'s does)."""
        types = dict(zip(self.names, self.types))
        return {
            name: types[name]
            for name, own in zip(part.columns, part.types)
            if name in self.user_dtypes or types[name] != own
        }

    def _conform(
        self, frame: "polars.DataFrame", part: _Part, needed: list[str]
    ) -> "polars.DataFrame":
        """A sheet's frame in the scan's schema: the columns ``needed``,
        in order, in the united types."""
        import polars

        schema = self.polars_schema_cached
        added = []
        for name in needed:
            if name == self.file_column:
                added.append(polars.lit(part.label, polars.String).alias(name))
            elif name == self.sheet_column:
                added.append(polars.lit(part.name, polars.String).alias(name))
            elif name not in frame.columns:
                added.append(polars.lit(None, schema[name]).alias(name))
            elif frame.schema[name] != schema[name]:
                added.append(polars.col(name).cast(schema[name]))
        if added:
            frame = frame.with_columns(added)
        if frame.columns != needed:
            frame = frame.select(needed)
        return frame

    @property
    def polars_schema_cached(self) -> "polars.Schema":
        cached: Optional["polars.Schema"] = getattr(self, "_polars_schema", None)
        if cached is None:
            cached = self.polars_schema()
            self._polars_schema = cached
        return cached


def _dtype_name(given: Any) -> str:
    """A ``dtypes`` value (a name or a Python type) by the scan's names."""
    import datetime

    by_type: dict[Any, str] = {
        bool: "bool",
        int: "int64",
        float: "float64",
        str: "utf8",
        datetime.datetime: "timestamp",
        datetime.date: "date",
        datetime.time: "time",
        datetime.timedelta: "duration",
    }
    if isinstance(given, type) and given in by_type:
        return by_type[given]
    if isinstance(given, str):
        aliases = {
            "null": "null", "bool": "bool", "boolean": "bool", "int": "int64",
            "int64": "int64", "float": "float64", "float64": "float64",
            "double": "float64", "utf8": "utf8", "string": "utf8", "str": "utf8",
            "text": "utf8", "date": "date", "date32": "date", "timestamp": "timestamp",
            "datetime": "timestamp", "time": "time", "duration": "duration",
        }
        name = aliases.get(given.lower())
        if name is not None:
            return name
    raise ValueError(f"dtypes: {given!r} is not a column type")


def scan_excel(
    source: "_Sources",
    sheet: Union[int, str, Sequence[Union[int, str]], None] = 0,
    *,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    on_report: Optional[Callable[["BatchReport"], None]] = None,
    storage_options: Optional[dict[str, Any]] = None,
    skip_unreadable: bool = False,
    password: Union[
        str, Sequence[str], None, Callable[[Optional[str]], Union[str, Sequence[str], None]]
    ] = None,
    verify_integrity: bool = False,
    recursive: bool = False,
    **options: "Unpack[_SheetOptions]",
) -> "polars.LazyFrame":
    """Sheets of one or many workbooks as a polars ``LazyFrame``, read only
    when it is collected (``collect()``, ``collect(engine="streaming")``,
    ``sink_parquet``, ...).

    ``source``, ``sheet``, ``union_by_name``, ``file_column``,
    ``sheet_column`` and the options (``header_row``, ``columns``,
    ``dtypes``, ``schema_sample_rows``, ``on_mismatch``, ``n_rows``,
    ``batch_size``, ...) are ``read_excel``'s: paths, glob patterns
    (``"reports/*.xlsx"``), lists, bytes or binary file objects; one sheet,
    a list, or ``None`` for every worksheet. The schema (``collect_schema()``)
    comes from each sheet's header and type sample, read by this call
    (``threads`` workbooks at once; 0, one per core); no other row is read
    before the frame is collected.

    Pushed into the reader: the selected columns (the others' cells are
    never read into values), a row limit (``head``: the read stops there),
    the filter (applied to each batch as it is read); polars' batch size
    unless ``batch_size`` is given. Many sheets are read at once
    (``threads`` of them, each a few batches ahead) and handed over in
    ``read_excel``'s order.

    A folder is read as its workbooks, in name order (``recursive=True``:
    with its subfolders'), as ``read_excel`` reads it.

    ``skip_unreadable=True`` skips the files that cannot be opened and the
    sheets whose header or sample cannot be read when ``scan_excel`` is
    called, with a ``SkippedWarning`` listing them (``.skipped``), as
    ``read_excel`` does; when that leaves nothing to read, it raises
    ``NothingReadError`` (its ``skipped`` lists them). An error met past
    the sample, at collect, is raised (rows of that sheet may have been
    handed over already).

    The schema is fixed before collect: a value past the sample that does
    not fit its column's type raises ``ConversionError`` (naming the file,
    sheet, cell and value) where ``read_excel`` would widen the column;
    ``schema_sample_rows=None`` types from every row (read at this call),
    ``dtypes`` gives a type, ``on_mismatch="null"`` nulls such values with a
    ``CoercionWarning``. ``on_report`` is called with each batch's
    ``BatchReport`` (rows and cells read, error cells, nulled values).

    An encrypted (password-protected) workbook opens with Excel's default
    password unasked, else with ``password``: a str, a list of them tried
    in order, or a callable given each file's path (None for bytes) that
    returns either. ``verify_integrity=True`` checks an encrypted
    workbook's integrity when it is opened (one pass over the file)."""
    from polars.io.plugins import register_io_source

    from . import _expand_sources

    if "to" in options:
        raise TypeError("scan_excel takes no to (read_excel's): a scan gives a polars LazyFrame")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads must be 0 or more (0: one per core), not {threads!r}")
    if "include_file_paths" in options:
        # polars' name for file_column.
        if file_column is not None:
            raise TypeError("give file_column or include_file_paths, not both")
        file_column = options.pop("include_file_paths")  # type: ignore[typeddict-item]
    expanded = _expand_sources(source, storage_options, recursive)
    sources = expanded if isinstance(expanded, list) else [expanded]
    sources = [_in_memory(item) for item in sources]
    if not sources:
        raise ValueError("scan_excel needs at least one file")
    scan = _Scan(
        sources,
        sheet,
        union_by_name,
        file_column,
        sheet_column,
        threads,
        on_report,
        dict(options),
        skip_unreadable,
        password,
        verify_integrity,
    )
    files = sorted({part.label for part in scan.parts})
    detail = f"{len(scan.parts)} sheet(s) of {len(files)} file(s)"
    return register_io_source(
        scan.batches,
        schema=scan.polars_schema(),
        explain_name="sheetstream",
        explain_detail=detail,
    )
