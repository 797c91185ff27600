"""A PySpark data source (Spark 4's ``pyspark.sql.datasource``) named
``sheetstream``: folders of workbooks read by Spark executors, each task
streaming its sheets through sheetstream's Arrow layer.

    >>> import sheetstream.spark
    >>> sheetstream.spark.register(spark)
    >>> df = spark.read.format("sheetstream").option("sheet", "all").load("reports/*.xlsx")

How a read is planned and run:

- On the driver, the paths (files, directories, glob patterns) are listed
  (:func:`sheetstream.planning.list_files`), each workbook's sheet list is
  read where the ``sheet`` option needs it, and the (file, sheet) pairs are
  bin-packed by compressed size into partitions
  (:func:`sheetstream.planning.pack`), so a few big files and many small
  ones spread evenly over the tasks.
- Without a user schema, the schema is inferred on the driver from
  ``samplingFiles`` files and the first ``samplingRows`` rows of each of
  their sheets (the Arrow layer's inference), the sheets' schemas merged by
  the rules below, and the Arrow types mapped to Spark's.
- Each task opens its workbooks and yields the Arrow layer's record batches
  (``batchSize`` rows) to Spark as they come, aligned to the schema: an
  executor's Python worker holds the workbook's shared strings and a few
  batches at a time (at most five: two waiting in the Arrow layer's
  channel, one being built, the one handed to Spark and the one before
  it, which Spark holds until the next comes), whatever the size of the
  file.

Options (values are strings, as Spark passes them; names are
case-insensitive). Counting: sheet positions and ``headerRow`` count from
0, as Python does; ``columns`` is the column list language of the CLI's
``--columns``, in Excel's terms (letters, and positions from 1 as Excel
numbers columns); ``dataAddress`` is an Excel address (``B3:F100``).

=========================== ============ =====================================
option                      default      meaning
=========================== ============ =====================================
``path`` / ``load(...)``                 a file, a directory or a glob
                                         pattern, or a list of them
``sheet``                   ``0``        a sheet's name, or its position
                                         (0-based) when no sheet has that
                                         name (a name wins, with a
                                         warning), ``all`` (every
                                         worksheet), or a comma-separated
                                         list; found in each workbook
``header``                  ``true``     the first row (after ``skipRows``)
                                         names the columns; ``false``: names
                                         ``column_1``, ``column_2``, ...
``skipRows``                ``0``        rows to skip before the header
``columns``                 all          ``A:C,F``, 1-based positions or
                                         header names (pushed down: others
                                         are not decoded)
``inferSchema``             ``true``     typed columns from the sample;
                                         ``false``: every column a string
``samplingFiles``           ``10``       files sampled for inference (spread
                                         over the listing, first and last
                                         included)
``samplingRows``            ``1000``     rows sampled per sheet; ``all``:
                                         every row (each sampled sheet is
                                         read to its end on the driver, and
                                         each sheet twice on the executors)
``unionByName``             ``false``    columns matched by header name
                                         across sheets and files (missing
                                         ones null); otherwise by position
``includeFileColumn``       ``false``    adds the file's path as a column
``fileColumnName``          ``_file``
``includeSheetColumn``      ``false``    adds the sheet's name as a column
``sheetColumnName``         ``_sheet``
``mode``                    ``FAILFAST`` ``FAILFAST``, ``PERMISSIVE`` or
                                         ``DROPMALFORMED`` (below)
``onErrorValue``            ``null``     error cells (``#DIV/0!``, ``#N/A``):
                                         ``null`` (their code in a string
                                         column), ``strict``: bad cells
                                         (below)
``columnNameOfCorruptRecord`` ``_corrupt_record``
``batchSize``               ``65536``    rows per Arrow batch
``recursiveFileLookup``     ``false``    directories are listed recursively
``maxPartitionBytes``       128 MiB      compressed bytes per partition at
                                         most (a sheet is never split)
``minPartitions``           cores        partitions at least, where there
                                         are enough sheets; more come in
                                         multiples of it (even rounds of
                                         tasks over the cores)
``headerRow``               (first)      hand-made sheets: the header row,
                                         0-based (``3``), consecutive rows
                                         (``2,3``: names joined with a
                                         space, ``2024 Q1``) or ``auto``
                                         (found past title rows)
``fillMerged``              ``false``    every cell of a merged range gets
                                         its top-left cell's value
``skipHiddenRows``          ``false``    rows Excel hides (also by an
                                         autofilter) left out
``skipHiddenColumns``       ``false``    hidden columns left out
``dropEmptyRows``           ``false``    empty rows between data rows left
                                         out (otherwise rows of nulls)
``dropEmptyCols``           ``false``    columns without a name or a sampled
                                         value left out
``stopAtEmptyRow``          ``false``    a sheet's table ends at its first
                                         empty row after the header
``dataAddress``             none         spark-excel's spelling of a range:
                                         ``'Sheet 1'!B3:F100``, ``B3:F100``,
                                         ``A5:``, ``B:F``, ``C5`` (from C5
                                         on); a sheet in it picks the sheet
                                         when ``sheet`` is not given; or a
                                         table: ``Sales[#All]`` (with its
                                         totals row), ``Sales[#Data]``
``range``                   none         the same as ``dataAddress``
``table``                   none         an Excel table by name (its sheet
                                         found in each file when ``sheet``
                                         is not given; columns named by the
                                         table; rows and columns outside it
                                         never read)
``includeTotalsRow``        ``false``    with ``table``: keep its totals row
``password``                none         opens encrypted workbooks (after
                                         Excel's default password, always
                                         tried first); like every option it
                                         shows in the query plan and the
                                         Spark UI: pass it from a secret
                                         store, not from code
=========================== ============ =====================================

An encrypted workbook that no password opens fails the query
(``sheetstream.PasswordRequiredError`` or ``PasswordIncorrectError``, the
message naming the file) in ``FAILFAST``, gives an error row in
``PERMISSIVE`` and is left out in ``DROPMALFORMED``, as any unreadable
workbook. A task reads one sheet of a workbook at a time, so the integrity
check of Agile encryption (an HMAC over the whole file) is not made.

Modes, for a value that does not fit its column's type (a text in a number
column of another file, say), a workbook that cannot be opened, and a sheet
that cannot be read to its end (a damaged part):

- ``FAILFAST``: the query fails with a ``sheetstream.Error`` whose message
  starts with the file's path and names the sheet, row and column.
- ``PERMISSIVE``: the bad cell becomes null and its row carries a
  description (path, sheet, row as Excel numbers it, column, value) in the
  corrupt-record column; a workbook or sheet that cannot be read gives one
  row of nulls with the error in that column. A sheet damaged after some
  rows keeps every row before the damage (the batch being filled is
  handed on, cut short), then gives that one error row; damage within the
  header or the first ``samplingRows`` rows fails the sheet's open, so
  only the error row comes. With inference the column is added to the
  schema; with a user schema it is filled when the schema has a string
  column of that name, as Spark's CSV reader does.
- ``DROPMALFORMED``: rows with a bad cell are left out, and so are
  workbooks that cannot be opened; a damaged sheet keeps the rows before
  the damage and leaves out the rest.

A bad cell is one of: a value that does not fit its column's type, whether
the sheet's own sample gave that type and the value comes later in the
sheet (the Arrow layer finds it and names it in the batch's report) or
the value's sheet type does not cast to the schema's (another file's);
a cell in a column the sheet's sample did not have; a second cell for one
column in one row; with ``onErrorValue=strict``, an error cell.
``FAILFAST`` reads with the Arrow layer's ``on_mismatch="strict"``, so the
first of them fails the query with the error naming sheet, row, column and
value; ``PERMISSIVE`` and ``DROPMALFORMED`` read with
``on_mismatch="null"`` and mark or drop the rows the batch reports name.

Error cells (``#DIV/0!``, ``#N/A``) are values the workbook shows, not
damage: by default they are null in a typed column and keep their code in
a string column, in every mode, and no row is marked or dropped for them
(as ``pandas.read_excel`` reads them). ``onErrorValue=strict`` makes them
bad cells: ``FAILFAST`` fails on the first, ``PERMISSIVE`` marks its row,
``DROPMALFORMED`` drops it.

The schema is inferred on the driver, before any task runs, so a column
cannot widen during the read as ``sheetstream.read_excel`` widens it: a
value after the sampled rows that does not fit its column (a fraction in
a ``bigint`` column, a text in a ``double`` one) is a bad cell, which
fails the query in ``FAILFAST`` (the message names the options that take
it), is null with its row marked in ``PERMISSIVE`` and drops its row in
``DROPMALFORMED``. To type columns from every row instead, give
``samplingRows=all`` (and ``samplingFiles`` as many as there are files),
or a schema of your own.

Types (the Arrow layer's inference, then this mapping):

================================ ========================================
Arrow                            Spark
================================ ========================================
Float64                          DoubleType
Int64                            LongType
Boolean                          BooleanType
Utf8 / LargeUtf8 / Utf8View      StringType
Date32                           DateType
Timestamp (no time zone)         TimestampNTZType (Excel has no time zones)
Duration                         DayTimeIntervalType
Time                             TimeType where Spark has it, else StringType
Null (a column with no values)   StringType
================================ ========================================

Merging the sheets' schemas (by name with ``unionByName``, by position
otherwise): equal types stay; Null gives way to any type; Int64 and
Float64 give Float64; Date32 and Timestamp give Timestamp; any other pair
gives a string column. Without ``unionByName`` the names are those of the
first sampled sheet, and a sheet with more columns adds its extra ones
(under their own names, made unique as ``name_1``).

On the executors: when the partitions give every core a task (Spark runs
one a core), each task reads its sheets on its own thread
(``SheetPartition.threads``, ``Workbook.sheet(threads=1)``: no inflate
thread taking CPU from the other task). The read fixes glibc malloc's mmap
threshold at its start value in the executor's Python worker
(``_fix_mmap_threshold``; glibc raises it to each mapped block freed, and
the freed column buffers of later batches then stay resident in the
reader thread's arena), unless the environment sets it. A worker holds the
shared strings, the sheet's inflater and pipe, and at most five batches:
two in the reader's channel, one being built, the one the source conforms
and hands to Spark, and the one before it, which Spark's loops hold until
the next comes (``python/benches/spark_bench.py --big`` measures it
against that bound: benches/results/spark.md).
"""

from __future__ import annotations

import datetime
import json
import os
import warnings
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from .planning import (
    WorkItem,
    _name_path,
    list_files,
    pack,
    parse_sheet_selection,
    plan,
)

import pyarrow as pa

try:
    from pyspark.sql import SparkSession
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
    from pyspark.sql.types import DataType, StructType
except ImportError:  # pragma: no cover - a message for the user
    raise ImportError(
        "sheetstream.spark needs PySpark 4 or newer (pip install 'pyspark>=4')"
    ) from None

__all__ = ["SheetstreamDataSource", "register"]

_MODES = ("FAILFAST", "PERMISSIVE", "DROPMALFORMED")

_STORAGE_PREFIX = "storageoptions."
_PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"


def _storage_options(options: Dict[str, str]) -> Optional[Dict[str, Any]]:
    """fsspec's ``storage_options`` from the Spark options: ``storageOptions``
    as one JSON object, and each ``storageOptions.KEY`` option as one key
    (Spark lower-cases option names, so KEY is lower case; a value that is
    JSON, an object, a list, a number, ``true``/``false``, is decoded)."""
    found: Dict[str, Any] = {}
    for key, value in options.items():
        lowered = str(key).lower()
        if lowered == "storageoptions":
            decoded = json.loads(value)
            if not isinstance(decoded, dict):
                raise ValueError("sheetstream: option storageOptions must be a JSON object")
            found.update(decoded)
    for key, value in options.items():
        lowered = str(key).lower()
        if lowered.startswith(_STORAGE_PREFIX):
            try:
                found[lowered[len(_STORAGE_PREFIX) :]] = json.loads(value)
            except ValueError:
                found[lowered[len(_STORAGE_PREFIX) :]] = value
    return found or None


_COMPARISONS: Dict[str, Callable[[str, str], bool]] = {
    "EqualTo": lambda left, right: left == right,
    "EqualNullSafe": lambda left, right: left == right,
    "GreaterThan": lambda left, right: left > right,
    "GreaterThanOrEqual": lambda left, right: left >= right,
    "LessThan": lambda left, right: left < right,
    "LessThanOrEqual": lambda left, right: left <= right,
    "StringStartsWith": lambda left, right: left.startswith(right),
    "StringEndsWith": lambda left, right: left.endswith(right),
    "StringContains": lambda left, right: right in left,
}


def _pushable(found: Any, columns: "set[str]") -> bool:
    """Whether a pushed filter reads only the file or sheet column with
    string values this source can evaluate as Spark would."""
    kind = type(found).__name__
    if kind == "Not":
        return _pushable(found.child, columns)
    attribute = getattr(found, "attribute", None)
    if not isinstance(attribute, tuple) or len(attribute) != 1 or attribute[0] not in columns:
        return False
    if kind in ("IsNull", "IsNotNull"):
        return True
    if kind == "In":
        return all(isinstance(value, str) for value in found.value)
    return kind in _COMPARISONS and isinstance(found.value, str)


def _column(found: Any) -> Optional[str]:
    """The column a pushed filter reads."""
    while type(found).__name__ == "Not":
        found = found.child
    return str(found.attribute[0])


def _holds(found: Any, values: Mapping[Optional[str], Optional[str]]) -> Optional[bool]:
    """A pushed filter on an item's column values, in Spark's three-valued
    logic (None: null). Strings compare by code point, as Spark compares
    UTF-8 bytes."""
    kind = type(found).__name__
    if kind == "Not":
        inner = _holds(found.child, values)
        return None if inner is None else not inner
    value = values.get(found.attribute[0])
    if kind == "IsNull":
        return value is None
    if kind == "IsNotNull":
        return value is not None
    if kind == "EqualNullSafe" and value is None:
        return False
    if value is None:
        return None
    if kind == "In":
        return value in found.value
    return bool(_COMPARISONS[kind](value, found.value))


def register(spark: "SparkSession") -> None:
    """Registers the ``sheetstream`` format with ``spark``, so that
    ``spark.read.format("sheetstream")`` reads workbooks. The session's
    default parallelism becomes the default of ``minPartitions``."""
    parallelism = None
    try:
        parallelism = int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect has no SparkContext
        parallelism = None
    try:
        pushdown = str(spark.conf.get(_PUSHDOWN_CONF, "false")).lower() == "true"
    except Exception:
        pushdown = False
    source: type = SheetstreamDataSource
    if parallelism or pushdown:
        # A class made here is pickled by value with its attributes; the
        # module's own class would be pickled by reference, without them.
        source = type(
            "SheetstreamDataSource",
            (SheetstreamDataSource,),
            {
                "default_parallelism": parallelism,
                "filter_pushdown": pushdown,
                "__module__": __name__,
            },
        )
    spark.dataSource.register(source)


def _table_address(address: str) -> Optional[Tuple[str, bool]]:
    """A table as spark-excel's dataAddress names one: ``Sales[#All]``
    (with its totals row) or ``Sales[#Data]``; None for a range."""
    text = address.strip()
    for suffix, totals in (("[#all]", True), ("[#data]", False)):
        if text.lower().endswith(suffix) and "!" not in text:
            return text[: -len(suffix)].strip(), totals
    return None


def _range_sheet(address: str) -> Optional[str]:
    """The sheet a range names (``'My Sheet'!B3:F100``, ``Data!A1:B2``),
    unquoted; None when it names none. The Arrow layer parses the rest."""
    text = address.strip()
    if text.startswith("'"):
        end = 1
        name = []
        while end < len(text):
            if text[end] == "'":
                if text[end + 1 : end + 2] == "'":
                    name.append("'")
                    end += 2
                    continue
                return "".join(name) if text[end + 1 : end + 2] == "!" else None
            name.append(text[end])
            end += 1
        return None
    sheet, bang, _ = text.rpartition("!")
    return sheet if bang and sheet else None


class Settings:
    """The options of one read, parsed and checked once."""

    def __init__(self, options: Dict[str, str], default_parallelism: Optional[int]):
        lowered = {str(key).lower(): str(value) for key, value in options.items()}
        self.options = lowered
        # load("a") passes path; load(["a", "b"]) passes paths, a JSON list.
        paths: List[str] = []
        if lowered.get("paths"):
            paths.extend(str(path) for path in json.loads(lowered["paths"]))
        if lowered.get("path"):
            paths.append(lowered["path"])
        if not paths:
            raise ValueError("sheetstream: no path given (load(path) or option('path', ...))")
        self.paths = paths
        # Text, found in each workbook by the library's rule (a name, else
        # a whole number's position: a name wins, with a warning).
        given = lowered.get("sheet")
        self.sheet = 0 if given is None else parse_sheet_selection(given)
        # Tables and ranges: `table`, or a range as `dataAddress` (spark-excel)
        # or `range` spells it, whose sheet picks the sheet when none is given.
        # Option values keep their case (only the names are lowered).
        self.table: Optional[str] = lowered.get("table") or None
        self.include_totals_row = self._flag("includetotalsrow", False)
        address = lowered.get("dataaddress") or lowered.get("range") or None
        if lowered.get("dataaddress") and lowered.get("range"):
            raise ValueError("sheetstream: give dataAddress or range, not both (the same option)")
        self.range: Optional[str] = None
        if address is not None:
            table = _table_address(address)
            if table is not None:
                if self.table is not None:
                    raise ValueError("sheetstream: give table or a table's dataAddress, not both")
                self.table, self.include_totals_row = table
            else:
                self.range = address
                range_sheet = _range_sheet(address)
                if range_sheet is not None and "sheet" not in lowered:
                    self.sheet = range_sheet
        if self.table is not None and self.range is not None:
            raise ValueError("sheetstream: give table or a range (dataAddress), not both")
        self.header = self._flag("header", True)
        self.skip_rows = self._count("skiprows", 0)
        # Hand-made sheets (issue 26): the Python package's keywords.
        self.shape: Dict[str, Any] = {
            keyword: True
            for option, keyword in _SHAPE_FLAGS.items()
            if self._flag(option, False)
        }
        header_row = lowered.get("headerrow", "").strip()
        if header_row and self.header:
            self.shape["header_row"] = _parse_header_row(header_row)
        self.columns = lowered.get("columns") or None
        self.infer_schema = self._flag("inferschema", True)
        self.sampling_files = max(1, self._count("samplingfiles", 10))
        self.sampling_rows: Optional[int] = (
            None
            if lowered.get("samplingrows", "").strip().lower() == "all"
            else max(1, self._count("samplingrows", 1000))
        )
        self.union_by_name = self._flag("unionbyname", False)
        self.file_column = (
            lowered.get("filecolumnname", "_file") if self._flag("includefilecolumn", False) else None
        )
        self.sheet_column = (
            lowered.get("sheetcolumnname", "_sheet")
            if self._flag("includesheetcolumn", False)
            else None
        )
        self.mode = lowered.get("mode", "FAILFAST").upper()
        if self.mode not in _MODES:
            raise ValueError(f"sheetstream: mode must be one of {', '.join(_MODES)}, not {self.mode!r}")
        self.corrupt_column = lowered.get("columnnameofcorruptrecord", "_corrupt_record")
        self.on_error_value = lowered.get("onerrorvalue", "null").strip().lower()
        if self.on_error_value not in ("null", "strict"):
            raise ValueError(
                f"sheetstream: option onErrorValue must be null or strict, not {self.on_error_value!r}"
            )
        self.batch_size = max(1, self._count("batchsize", 65536))
        self.recursive = self._flag("recursivefilelookup", False)
        self.max_partition_bytes = max(1, self._count("maxpartitionbytes", 128 << 20))
        self.open_cost = self._count("opencostinbytes", 4 << 20)
        #: The cores Spark runs tasks on (the session's default
        #: parallelism, or this machine's cores).
        self.parallelism = max(1, default_parallelism or (os.cpu_count() or 1))
        self.min_partitions = max(1, self._count("minpartitions", self.parallelism))
        self.storage_options = _storage_options(options)
        #: The password of encrypted workbooks (after Excel's default one).
        self.password: Optional[str] = lowered.get("password")
        #: Filters on the file and sheet columns that Spark pushed down
        #: (``pushFilters``): work items they reject are never opened.
        self.item_filters: List[Any] = []

    def _flag(self, key: str, default: bool) -> bool:
        value = self.options.get(key)
        if value is None:
            return default
        if value.strip().lower() in ("true", "1", "yes"):
            return True
        if value.strip().lower() in ("false", "0", "no"):
            return False
        raise ValueError(f"sheetstream: option {key} must be true or false, not {value!r}")

    def _count(self, key: str, default: int) -> int:
        value = self.options.get(key)
        if value is None:
            return default
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"sheetstream: option {key} must be a whole number, not {value!r}") from None
        if number < 0:
            raise ValueError(f"sheetstream: option {key} must not be negative")
        return number

    def items(self) -> List[WorkItem]:
        """The planned work items (driver side)."""
        on_error = "raise" if self.mode == "FAILFAST" else "keep"
        items = plan(
            self.paths,
            self.sheet,
            recursive=self.recursive,
            on_error=on_error,
            storage_options=self.storage_options,
            keep_file=self.keeps_file,
            table=self.table,
            password=self.password,
        )
        return [item for item in items if self.keeps(item)]

    def keeps_file(self, path: str) -> bool:
        """Whether the pushed filters on the file column alone hold for a
        file (checked before it is opened to list its sheets)."""
        values = {self.file_column: path}
        return all(
            _holds(found, values) is True
            for found in self.item_filters
            if _column(found) == self.file_column
        )

    def keeps(self, item: WorkItem) -> bool:
        """Whether every pushed filter holds for the item's file and sheet
        columns (Spark's null logic: a comparison with null is not true)."""
        values = {self.file_column: item.path, self.sheet_column: item.sheet}
        return all(_holds(found, values) is True for found in self.item_filters)

    def window(self) -> Dict[str, Any]:
        """The table or range options, as the Python package names them."""
        window: Dict[str, Any] = {}
        if self.table is not None:
            window["table"] = self.table
            window["include_totals_row"] = self.include_totals_row
        if self.range is not None:
            window["range"] = self.range
        return window

    def extra_columns(self) -> List[str]:
        """The columns this source fills itself, in schema order."""
        names = [name for name in (self.file_column, self.sheet_column) if name]
        if self.mode == "PERMISSIVE":
            names.append(self.corrupt_column)
        return names


class SheetstreamDataSource(DataSource):
    """``spark.read.format("sheetstream")``: see the module's docs."""

    #: The default of ``minPartitions`` (set by :func:`register`).
    default_parallelism: Optional[int] = None
    #: Whether the session had ``spark.sql.python.filterPushdown.enabled``
    #: on at :func:`register` (Spark refuses a reader with ``pushFilters``
    #: when it is off).
    filter_pushdown: bool = False

    @classmethod
    def name(cls) -> str:
        return "sheetstream"

    def _settings(self) -> Settings:
        return Settings(dict(self.options), self.default_parallelism)

    def schema(self) -> "StructType":
        from pyspark.sql.types import StringType, StructField, StructType

        settings = self._settings()
        items = settings.items()
        fields = infer_fields(settings, items)
        extra = settings.extra_columns()
        taken = {name for name, _ in fields}
        for name in extra:
            if name in taken:
                raise ValueError(
                    f"sheetstream: the column {name!r} is in the data; choose another name "
                    "with fileColumnName, sheetColumnName or columnNameOfCorruptRecord"
                )
        return StructType(
            [StructField(name, spark_type(arrow_type), True) for name, arrow_type in fields]
            + [StructField(name, StringType(), True) for name in extra]
        )

    def reader(self, schema: "StructType") -> "DataSourceReader":
        settings = self._settings()
        pushdown = settings._flag("pushfilters", self.filter_pushdown)
        return (FilteringReader if pushdown else SheetstreamReader)(settings, schema)


class SheetPartition(InputPartition):
    """The work items of one Spark task, and the threads each sheet is read
    on (``Workbook.sheet``'s ``threads``)."""

    def __init__(self, index: int, items: Sequence[WorkItem], threads: int = 0):
        super().__init__(index)
        self.items = list(items)
        self.threads = threads

    def __repr__(self) -> str:
        return f"SheetPartition({self.value}, {len(self.items)} sheets)"


class SheetstreamReader(DataSourceReader):
    """Plans the partitions on the driver and reads them on the executors."""

    def __init__(self, settings: Settings, schema: "StructType"):
        self.settings = settings
        self.schema = schema

    def partitions(self) -> List[InputPartition]:
        settings = self.settings
        items = settings.items()
        if not items:
            return [SheetPartition(0, [])]
        total = sum(item.size + settings.open_cost for item in items)
        # minPartitions keeps every core busy; more partitions where one
        # would hold more than maxPartitionBytes (a sheet is never split),
        # as many as a multiple of minPartitions, so that the tasks come
        # out even over the cores: 20 workbooks in 3 partitions on 2 cores
        # ran 2 tasks, then 1 on one core while the other idled (13 files'
        # time), where 4 partitions take 10.
        needed = max(1, -(-total // settings.max_partition_bytes))
        bins = settings.min_partitions * -(-needed // settings.min_partitions)
        groups = pack(items, bins, open_cost=settings.open_cost)
        # Spark runs a task on each core: when the tasks keep every core
        # busy, each reads its sheets on its own thread (a sheet's second
        # thread would only take CPU from another task: about 4% more CPU
        # a sheet, python/benches/spark_bench.py); with fewer tasks than
        # cores (one big workbook), each sheet is read on two.
        tasks = sum(1 for group in groups if group)
        threads = 1 if tasks >= settings.parallelism else 0
        return [SheetPartition(index, group, threads) for index, group in enumerate(groups)]

    def read(self, partition: InputPartition) -> Iterator["pa.RecordBatch"]:
        items = partition.items if isinstance(partition, SheetPartition) else []
        _fix_mmap_threshold()
        threads = partition.threads if isinstance(partition, SheetPartition) else 0
        conformer = BatchConformer(self.settings, self.schema)
        for item in items:
            yield from conformer.read_item(item, threads=threads)


#: glibc's ``M_MMAP_THRESHOLD`` (``mallopt``'s parameter number) and its
#: value at start.
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 128 * 1024
_mmap_threshold_fixed = False


def _fix_mmap_threshold() -> None:
    """Fixes glibc malloc's mmap threshold at its start value, 128 KiB, in
    the executor's Python worker, once. glibc serves a block at or over the
    threshold with mmap (unmapped when freed) and raises the threshold to
    the size of each such block freed, up to 32 MiB: after the first batch
    is freed, every later batch's column buffers (0.25 to 1 MiB at 65,536
    rows) come from the Arrow reader thread's heap arena, whose freed
    chunks stay resident. Fixed, the column buffers are mapped and
    unmapped with their batch, so the worker's RSS follows the batches it
    holds: reading the 1,048,575 x 25 sheet, the worker's peak was 15 MiB
    (the arena's free chunks) lower, its read time the same
    (``python/benches/spark_bench.py --big``). Only on glibc, and not where
    the environment sets ``MALLOC_MMAP_THRESHOLD_`` (or
    ``MALLOC_TRIM_THRESHOLD_``, which also stops the raising): that choice
    stands."""
    global _mmap_threshold_fixed
    if _mmap_threshold_fixed:
        return
    _mmap_threshold_fixed = True
    if any(name in os.environ for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")):
        return
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        libc = ""  # not glibc (macOS, musl, Windows)
    if not libc.startswith("glibc"):
        return
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)


class FilteringReader(SheetstreamReader):
    """:class:`SheetstreamReader` with filter pushdown (Spark 4.1's
    ``pushFilters``, when ``spark.sql.python.filterPushdown.enabled``)."""

    def pushFilters(self, filters: List[Any]) -> Iterator[Any]:
        """Takes the filters on the file and sheet columns (comparisons,
        ``IN``, string prefix/suffix/contains, null checks, ``NOT`` of
        these): work items they reject are left out before any workbook
        is opened. Every other filter goes back to Spark."""
        columns = {name for name in (self.settings.file_column, self.settings.sheet_column) if name}
        for found in filters:
            if columns and _pushable(found, columns):
                self.settings.item_filters.append(found)
            else:
                yield found


# ---------------------------------------------------------------------------
# Reading one work item through the Arrow layer (this is also what Dask and
# Ray users call: sheetstream.planning.read_item wraps it).


# Hand-made sheets (issue 26): the Spark options (lowered) and the Python
# keywords they turn into.
_SHAPE_FLAGS = {
    "fillmerged": "fill_merged",
    "skiphiddenrows": "skip_hidden_rows",
    "skiphiddencolumns": "skip_hidden_columns",
    "dropemptyrows": "drop_empty_rows",
    "dropemptycols": "drop_empty_cols",
    "stopatemptyrow": "stop_at_empty_row",
}


def _parse_header_row(text: str) -> Any:
    """``headerRow``: ``auto``, a 0-based row or consecutive rows (``2,3``)."""
    if text.lower() == "auto":
        return "auto"
    try:
        rows = [int(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(
            f"sheetstream: option headerRow must be auto, a 0-based row or rows (2,3), not {text!r}"
        ) from None
    return rows[0] if len(rows) == 1 else rows


def open_sheet(item: WorkItem, *, header: bool, skip_rows: int, columns: Optional[str],
               sample_rows: Optional[int], batch_size: int, strict: bool,
               error_values: str = "null", shape: Optional[Dict[str, Any]] = None,
               window: Optional[Dict[str, Any]] = None,
               storage_options: Optional[Dict[str, Any]] = None,
               threads: int = 0, password: Optional[str] = None) -> Any:
    """The Arrow layer's reader of the item's sheet (``workbook.sheet``),
    with the options spelled as the Python package spells them
    (``sample_rows`` None: every row). Returns (workbook, sheet reader);
    the caller closes the workbook. Strict, the first value that does not
    fit fails the read (``on_mismatch="strict"``), and so does an error
    cell when ``error_values`` is ``"strict"``. Not strict, such values
    are null (``on_mismatch="null"``), every bad cell and error cell of a
    batch is described in its report and a damaged sheet hands out the
    rows before the damage. ``window``: the table or range options
    (``table``, ``include_totals_row``, ``range``). ``threads``: as
    ``Workbook.sheet`` takes it. ``password``: an encrypted workbook's."""
    import sheetstream

    workbook = sheetstream.open(item.path, storage_options=storage_options, password=password)
    try:
        selector: Any = item.sheet if item.sheet is not None else item.position
        options: Dict[str, Any] = {
            "skip_rows": skip_rows,
            "schema_sample_rows": sample_rows,
            "batch_size": batch_size,
            "on_mismatch": "strict" if strict else "null",
            "on_error_value": error_values if strict else "null",
        }
        if not header:
            options["header_row"] = None
        options.update(shape or {})
        if not strict:
            options["issues_per_batch"] = _ALL_ISSUES
            options["keep_rows_before_error"] = True
        if columns:
            options["columns"] = columns
        if window:
            options.update(window)
        return workbook, workbook.sheet(selector, threads=threads, **options)
    except BaseException:
        workbook.close()
        raise


def infer_fields(settings: Settings, items: Sequence[WorkItem]) -> List[Tuple[str, "pa.DataType"]]:
    """The merged (name, Arrow type) columns of the sampled sheets."""
    import pyarrow as pa

    import sheetstream

    readable = [item for item in items if item.error is None]
    files = sorted({item.path for item in readable})
    sampled_files = set(_spread(files, settings.sampling_files))
    merged: List[Tuple[str, pa.DataType]] = []
    for item in readable:
        if item.path not in sampled_files:
            continue
        try:
            workbook, sheet = open_sheet(
                item,
                header=settings.header,
                skip_rows=settings.skip_rows,
                columns=settings.columns,
                sample_rows=settings.sampling_rows,
                batch_size=settings.batch_size,
                strict=False,
                shape=settings.shape,
                window=settings.window(),
                storage_options=settings.storage_options,
                password=settings.password,
            )
            try:
                schema = pa.schema(sheet.schema)
            finally:
                workbook.close()
        except sheetstream.Error as error:
            if settings.mode == "FAILFAST":
                _name_path(error, item.path)
                raise
            continue
        columns = [(field.name, field.type) for field in schema]
        if not settings.infer_schema:
            columns = [(name, pa.string()) for name, _ in columns]
        merged = merge_columns(merged, columns, by_name=settings.union_by_name)
    return merged


def _spread(values: Sequence[str], count: int) -> List[str]:
    """``count`` values spread evenly over ``values``, first and last included."""
    if count >= len(values):
        return list(values)
    if count == 1:
        return [values[0]]
    step = (len(values) - 1) / (count - 1)
    return [values[round(index * step)] for index in range(count)]


def merge_columns(
    merged: List[Tuple[str, "pa.DataType"]],
    columns: List[Tuple[str, "pa.DataType"]],
    *,
    by_name: bool,
) -> List[Tuple[str, "pa.DataType"]]:
    """Merges one sheet's columns into those seen so far (see the module's
    docs for the rules)."""
    result = list(merged)
    if by_name:
        where = {name: index for index, (name, _) in enumerate(result)}
        for name, arrow_type in columns:
            if name in where:
                index = where[name]
                result[index] = (name, promote(result[index][1], arrow_type))
            else:
                where[name] = len(result)
                result.append((name, arrow_type))
        return result
    for index, (name, arrow_type) in enumerate(columns):
        if index < len(result):
            result[index] = (result[index][0], promote(result[index][1], arrow_type))
        else:
            taken = {existing for existing, _ in result}
            unique, suffix = name, 0
            while unique in taken:
                suffix += 1
                unique = f"{name}_{suffix}"
            result.append((unique, arrow_type))
    return result


def promote(left: "pa.DataType", right: "pa.DataType") -> "pa.DataType":
    """The type two sheets' columns merge to."""
    import pyarrow as pa
    import pyarrow.types as types

    left, right = _normalise(left), _normalise(right)
    if left.equals(right):
        return left
    if types.is_null(left):
        return right
    if types.is_null(right):
        return left
    if {_kind(left), _kind(right)} == {"int", "float"}:
        return pa.float64()
    if {_kind(left), _kind(right)} == {"date", "timestamp"}:
        return left if types.is_timestamp(left) else right
    return pa.string()


def _normalise(arrow_type: "pa.DataType") -> "pa.DataType":
    import pyarrow as pa
    import pyarrow.types as types

    if types.is_string(arrow_type) or types.is_large_string(arrow_type) or _is_string_view(arrow_type):
        return pa.string()
    return arrow_type


def _is_string_view(arrow_type: "pa.DataType") -> bool:
    import pyarrow.types as types

    check = getattr(types, "is_string_view", None)
    return bool(check and check(arrow_type))


def _kind(arrow_type: "pa.DataType") -> str:
    """The kind of value an Arrow type holds: "int", "float", "bool",
    "date", "timestamp", or the type's own name for the others."""
    import pyarrow.types as types

    for kind, check in (
        ("int", types.is_integer),
        ("float", types.is_floating),
        ("bool", types.is_boolean),
        ("date", types.is_date),
        ("timestamp", types.is_timestamp),
    ):
        if check(arrow_type):
            return kind
    return str(arrow_type)


def spark_type(arrow_type: "pa.DataType") -> "DataType":
    """The Spark type of an Arrow type of the Arrow layer (the module's table)."""
    import pyarrow.types as types
    from pyspark.sql import types as spark

    if types.is_floating(arrow_type):
        return spark.DoubleType()
    if types.is_integer(arrow_type):
        return spark.LongType()
    if types.is_boolean(arrow_type):
        return spark.BooleanType()
    if types.is_date(arrow_type):
        return spark.DateType()
    if types.is_timestamp(arrow_type):
        return spark.TimestampType() if arrow_type.tz else spark.TimestampNTZType()
    if types.is_duration(arrow_type):
        return spark.DayTimeIntervalType()
    if types.is_time(arrow_type) and hasattr(spark, "TimeType"):
        return spark.TimeType()
    return spark.StringType()


class BatchConformer:
    """Reads work items and turns their batches into batches of exactly the
    Arrow schema Spark expects for ``schema`` (names, order, types), with the
    file, sheet and corrupt-record columns filled, applying the mode."""

    def __init__(self, settings: Settings, schema: "StructType"):
        from pyspark.sql.pandas.types import to_arrow_schema

        self.settings = settings
        self.target = to_arrow_schema(schema, timezone="UTC")
        names = schema.fieldNames()
        self.file_index = names.index(settings.file_column) if settings.file_column in names else None
        self.sheet_index = (
            names.index(settings.sheet_column) if settings.sheet_column in names else None
        )
        self.corrupt_index = (
            names.index(settings.corrupt_column)
            if settings.mode == "PERMISSIVE" and settings.corrupt_column in names
            else None
        )
        special = {self.file_index, self.sheet_index, self.corrupt_index} - {None}
        self.data_indices = [index for index in range(len(names)) if index not in special]

    # -- the work items ----------------------------------------------------

    def read_item(self, item: WorkItem, threads: int = 0) -> Iterator["pa.RecordBatch"]:
        import sheetstream

        settings = self.settings
        if item.error is not None:
            yield from self._unreadable(item, item.error)
            return
        try:
            workbook, sheet = open_sheet(
                item,
                header=settings.header,
                skip_rows=settings.skip_rows,
                columns=settings.columns,
                sample_rows=settings.sampling_rows,
                batch_size=settings.batch_size,
                strict=settings.mode == "FAILFAST",
                error_values=settings.on_error_value,
                shape=settings.shape,
                window=settings.window(),
                storage_options=settings.storage_options,
                threads=threads,
                password=settings.password,
            )
        except sheetstream.Error as error:
            message = _name_path(error, item.path)
            if settings.mode == "FAILFAST":
                raise
            yield from self._unreadable(item, message, item.sheet)
            return
        sheet_name = item.sheet if item.sheet is not None else _sheet_name(workbook, item)
        try:
            batches = iter(sheet.iter_batches(with_report=True))
            while True:
                try:
                    with warnings.catch_warnings():
                        # The nulled values are marked or dropped below.
                        warnings.simplefilter("ignore", sheetstream.CoercionWarning)
                        batch, report = next(batches)
                except StopIteration:
                    break
                except sheetstream.Error as error:
                    # The rows before the damage came in the batches
                    # before (keep_rows_before_error); PERMISSIVE adds a
                    # row with the error, DROPMALFORMED leaves the rest out.
                    message = _name_path(error, item.path)
                    if settings.mode == "FAILFAST":
                        _spark_advice(error)
                        raise
                    yield from self._unreadable(item, message, sheet_name)
                    return
                problems = (
                    {}
                    if report.is_clean
                    else _report_problems(
                        report, item.path, sheet_name,
                        error_values=settings.on_error_value == "strict",
                    )
                )
                conformed = self.conform(batch, item.path, sheet_name, report.first_row or 0, problems)
                if conformed.num_rows:
                    yield conformed
        finally:
            workbook.close()

    def _unreadable(
        self, item: WorkItem, message: str, sheet: Optional[str] = None
    ) -> Iterator["pa.RecordBatch"]:
        """What an unreadable workbook or sheet gives in PERMISSIVE mode."""
        import pyarrow as pa

        if self.settings.mode != "PERMISSIVE" or self.corrupt_index is None:
            return
        arrays = [pa.nulls(1, field.type) for field in self.target]
        if self.file_index is not None:
            arrays[self.file_index] = pa.array([item.path], pa.string())
        if self.sheet_index is not None and sheet is not None:
            arrays[self.sheet_index] = pa.array([sheet], pa.string())
        arrays[self.corrupt_index] = pa.array([message], pa.string())
        yield pa.RecordBatch.from_arrays(arrays, schema=self.target)

    # -- one batch ---------------------------------------------------------

    def conform(
        self,
        batch: "pa.RecordBatch",
        path: str,
        sheet: str,
        first_row: int,
        problems: Optional[Dict[int, str]] = None,
    ) -> "pa.RecordBatch":
        """``batch`` (the sheet's own columns and types) as a batch of the
        target schema. ``first_row`` is the sheet row (1-based, as in Excel)
        of the batch's first row, for messages; ``problems`` maps rows of
        the batch (0-based) to what the Arrow layer's report said of them,
        and the rows whose cast fails are added."""
        import pyarrow as pa

        rows = batch.num_rows
        sources = self._source_columns(batch)
        arrays: List[Optional[pa.Array]] = [None] * len(self.target)
        problems = dict(problems) if problems else {}
        for target_index, source_index in zip(self.data_indices, sources):
            field = self.target.field(target_index)
            if source_index is None:
                arrays[target_index] = pa.nulls(rows, field.type)
                continue
            column = batch.column(source_index)
            try:
                arrays[target_index] = _cast(column, field.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                array, bad = _cast_each(column, field.type)
                for row, value in bad:
                    message = (
                        f"{path}: sheet {sheet!r}, row {first_row + row}, "
                        f"column {field.name!r}: {value!r} is not a {_type_words(field.type)}"
                    )
                    if self.settings.mode == "FAILFAST":
                        import sheetstream

                        raise sheetstream.CellError(message) from None
                    problems.setdefault(row, message)
                arrays[target_index] = array
        if self.file_index is not None:
            arrays[self.file_index] = _constant(path, rows)
        if self.sheet_index is not None:
            arrays[self.sheet_index] = _constant(sheet, rows)
        if self.corrupt_index is not None:
            arrays[self.corrupt_index] = pa.array(
                [problems.get(row) for row in range(rows)] if problems else pa.nulls(rows, pa.string()),
                pa.string(),
            )
        result = pa.RecordBatch.from_arrays(arrays, schema=self.target)
        if problems and self.settings.mode == "DROPMALFORMED":
            keep = pa.array([row not in problems for row in range(rows)], pa.bool_())
            result = result.filter(keep)
        return result

    def _source_columns(self, batch: "pa.RecordBatch") -> List[Optional[int]]:
        """For each data field of the target, the batch column it takes."""
        names = batch.schema.names
        if self.settings.union_by_name:
            exact = {name: index for index, name in enumerate(names)}
            folded: Dict[str, int] = {}
            for index, name in enumerate(names):
                folded.setdefault(name.lower(), index)
            result = []
            for target_index in self.data_indices:
                name = self.target.field(target_index).name
                result.append(exact.get(name, folded.get(name.lower())))
            return result
        return [
            position if position < len(names) else None
            for position in range(len(self.data_indices))
        ]


#: ``issues_per_batch`` where every bad cell must be found: a batch's
#: issues are bounded by its cells anyway.
_ALL_ISSUES = 1 << 40


def _report_problems(
    report: Any, path: str, sheet: str, *, error_values: bool = False
) -> Dict[int, str]:
    """The rows (0-based in the batch) the Arrow layer's report names, each
    with a description of its first bad cell; error cells only with
    ``error_values`` (``onErrorValue=strict``), else they are values."""
    problems: Dict[int, str] = {}
    first_row = report.first_row or 0
    for issue in report.issues:
        if issue.kind == "error_value" and not error_values:
            continue
        if issue.kind == "does_not_fit":
            what = f"{issue.value!r} does not fit the sheet's {issue.column_type} column"
        elif issue.kind == "error_value":
            what = f"error value {issue.value}"
        elif issue.kind == "repeated":
            what = f"a second value {issue.value!r} for the column in one row"
        else:
            what = f"{issue.value!r} is in a column the sheet's schema does not have"
        name = f" {issue.column_name!r}" if issue.column_name else ""
        problems.setdefault(
            issue.row - first_row,
            f"{path}: sheet {sheet!r}, row {issue.row}, column {_letters(issue.column)}{name}: {what}",
        )
    return problems


def _spark_advice(error: BaseException) -> None:
    """Adds to a ``ConversionError``'s message the Spark options that would
    take the value (the message names the Python and CLI ones)."""
    import sheetstream

    if not isinstance(error, sheetstream.ConversionError) or not error.args:
        return
    if "on_error_value" in str(error):
        advice = "in Spark: option onErrorValue=null (the default) reads error cells as null"
    else:
        advice = (
            "in Spark: option samplingRows=all types the columns from every row, "
            "a schema of your own can take the value, mode PERMISSIVE nulls it and "
            "marks its row, DROPMALFORMED drops the row"
        )
    error.args = (f"{error.args[0]}; {advice}",) + tuple(error.args[1:])


def _letters(column: int) -> str:
    """A 1-based column number as its letters (1 is A)."""
    letters = ""
    while column > 0:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _sheet_name(workbook: Any, item: WorkItem) -> str:
    try:
        return str(workbook.sheets[item.position or 0].name)
    except Exception:
        return str(item.position)


def _constant(value: str, rows: int) -> "pa.Array":
    """``value`` ``rows`` times, a string array built from its buffers:
    ``pa.repeat`` and ``fill_null`` would import pyarrow.compute (see
    :func:`_cast`)."""
    import pyarrow as pa

    data = value.encode()
    try:
        import numpy
    except ImportError:  # pragma: no cover - PySpark's Arrow path has numpy
        return pa.repeat(pa.scalar(value, pa.string()), rows)
    if len(data) * rows >= 2**31:  # beyond string offsets: Arrow says so
        return pa.repeat(pa.scalar(value, pa.string()), rows)
    offsets = numpy.arange(rows + 1, dtype=numpy.int32) * numpy.int32(len(data))
    return pa.Array.from_buffers(pa.string(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(data * rows)])


def _cast(column: "pa.Array", target: "pa.DataType") -> "pa.Array":
    """A safe cast: fails where a value would change (a fraction into a
    whole number, a text that is no number)."""
    if column.type.equals(target):
        # Before any import of pyarrow.compute (casts import it): a Python
        # worker whose columns need no cast never pays its import, about
        # 0.3 s once per worker.
        return column
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.types as types

    if types.is_string(target):
        # Written as the Arrow layer writes them into a text column (as the
        # CSV writer does): TRUE/FALSE, ISO 8601 date-times.
        if types.is_boolean(column.type):
            return pc.if_else(column, pa.scalar("TRUE"), pa.scalar("FALSE"))
        if types.is_timestamp(column.type):
            seconds = column.cast(pa.timestamp("s", tz=column.type.tz), safe=False)
            return pc.strftime(seconds, format="%Y-%m-%dT%H:%M:%S")
    return column.cast(target, safe=True)


_KIND_WORDS = {
    "float": "number",
    "int": "whole number",
    "bool": "boolean",
    "date": "date",
    "timestamp": "date-time",
}


def _type_words(arrow_type: "pa.DataType") -> str:
    kind = _kind(arrow_type)
    return _KIND_WORDS.get(kind, kind)


def _cast_each(column: "pa.Array", target: "pa.DataType") -> Tuple["pa.Array", List[Tuple[int, Any]]]:
    """The slow path, for a column whose cast failed: value by value, the
    values that do not convert null. Returns the array and the (row, value)
    pairs that did not convert."""
    import pyarrow as pa

    convert = _converter(target)
    values: List[Any] = []
    bad: List[Tuple[int, Any]] = []
    for row, value in enumerate(column.to_pylist()):
        if value is None:
            values.append(None)
            continue
        converted = convert(value)
        if converted is None:
            bad.append((row, value))
        values.append(converted)
    return pa.array(values, target), bad


def _converter(target: "pa.DataType") -> Callable[[Any], Any]:
    def to_float(value: Any) -> Optional[float]:
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                return None
        return None

    def to_int(value: Any) -> Optional[int]:
        number = to_float(value)
        if number is None or not number.is_integer() or abs(number) > 2**63 - 1:
            return None
        return int(number)

    def to_bool(value: Any) -> Optional[bool]:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.upper() in ("TRUE", "FALSE"):
            return value.upper() == "TRUE"
        return None

    def to_date(value: Any) -> Optional[datetime.date]:
        if isinstance(value, datetime.datetime):
            return value.date() if value.time() == datetime.time() else None
        if isinstance(value, datetime.date):
            return value
        if isinstance(value, str):
            try:
                return datetime.date.fromisoformat(value)
            except ValueError:
                return None
        return None

    def to_datetime(value: Any) -> Optional[datetime.datetime]:
        if isinstance(value, datetime.datetime):
            return value
        if isinstance(value, datetime.date):
            return datetime.datetime(value.year, value.month, value.day)
        if isinstance(value, str):
            try:
                return datetime.datetime.fromisoformat(value)
            except ValueError:
                return None
        return None

    converters: Dict[str, Callable[[Any], Any]] = {
        "float": to_float,
        "int": to_int,
        "bool": to_bool,
        "date": to_date,
        "timestamp": to_datetime,
    }
    return converters.get(_kind(target), lambda value: None)
