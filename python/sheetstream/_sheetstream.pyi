"""Type stubs of the native module (re-exported by `sheetstream`)."""

import builtins
import datetime
import os
from collections.abc import Mapping, Sequence
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, Any, Literal, Optional, TypedDict, Union, final, overload

from typing_extensions import Unpack

if TYPE_CHECKING:
    import pandas
    import polars
    import pyarrow

__version__: str
WORKBOOK_EXTENSIONS: tuple[str, ...]
"""The extensions (lower case, no dot) of the files a folder given as a
source is read for: xlsx, xlsm, xltx, xltm, xlsb, xls, xlt, ods, fods."""
__all__ = [
    "WORKBOOK_EXTENSIONS",
    "CellError",
    "ColumnError",
    "ConnectionError",
    "ConversionError",
    "DamagedCellError",
    "DamagedWorkbookError",
    "DefinedName",
    "EncryptedWorkbookError",
    "EncryptionError",
    "Error",
    "FileNotFoundError",
    "IntegrityError",
    "IsADirectoryError",
    "LimitError",
    "NoDataError",
    "NotAWorkbookError",
    "NothingReadError",
    "NotXlsxError",
    "PackageError",
    "PasswordIncorrectError",
    "PasswordRequiredError",
    "PermissionError",
    "ReadError",
    "TimeoutError",
    "UnsupportedFormatError",
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
    "_warn_skipped",
    "_workbooks_in",
    "Sheet",
    "BatchIterator",
    "BatchReport",
    "CellIssue",
    "CoercionWarning",
    "RowIterator",
    "__version__",
    "open",
    "read_excel",
]

_Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]
# A password, passwords tried in order, or a callable given the file's
# path (None for bytes and file objects) that returns either (or None).
_Passwords = Union[str, Sequence[str], None]
_Password = Union[_Passwords, "Callable[[Optional[str]], _Passwords]"]
_SheetRef = Union[int, str]
_ColumnType = Union[
    Literal[
        "bool", "boolean", "int", "int64", "float", "float64", "double", "utf8", "string",
        "str", "text", "date", "date32", "timestamp", "datetime", "time", "duration", "null",
    ],
    type[bool],
    type[int],
    type[float],
    type[str],
    type[datetime.date],
    type[datetime.datetime],
    type[datetime.time],
    type[datetime.timedelta],
]
_Value = Union[
    float, int, str, bool, datetime.date, datetime.datetime, datetime.time, datetime.timedelta, None
]

class _SheetOptions(TypedDict, total=False):
    """The options of `Workbook.sheet` (and of `read_excel`). Rows and
    positions count from 0, as Python does (`header_row=0` is Excel's row
    1); `columns` as a string is the CLI's column language, in Excel's
    terms (letters, positions from 1)."""

    header_row: Union[int, list[int], None, Literal["auto"]]
    """The 0-based row of column names (0 is Excel's row 1), a list of
    consecutive rows (names joined with a space), "auto" (found past title
    rows), or None (no header: column_1, column_2, ...). Default: the
    first row with a value, after skip_rows."""
    has_header: bool
    """polars' name: False is header_row=None."""
    skip_rows: int
    """Leave out the sheet's first rows (Excel's rows 1 to skip_rows)."""
    n_rows: Optional[int]
    """At most this many data rows."""
    columns: Union[str, Sequence[Union[str, int]], None]
    """A string "A:C,F,Amount" (letters, header names, positions from 1 as
    the CLI's --columns counts), or a list of header names and 0-based
    positions."""
    schema_sample_rows: Optional[int]
    infer_schema_length: Optional[int]
    """polars' name for schema_sample_rows."""
    dtypes: Optional[Mapping[str, _ColumnType]]
    schema_overrides: Optional[Mapping[str, Any]]
    """polars' name for dtypes; also takes polars' types (pl.Int64,
    pl.Float64, pl.String, pl.Boolean, pl.Date, pl.Datetime, pl.Time,
    pl.Duration, pl.Null)."""
    on_mismatch: Literal["widen", "strict", "null"]
    strict: bool
    on_error_value: Literal["null", "strict"]
    null_values: Union[str, Sequence[str], None]
    batch_size: int
    issues_per_batch: int
    keep_rows_before_error: bool
    # Hand-made sheets (issue 26).
    fill_merged: bool
    skip_hidden_rows: bool
    skip_hidden_columns: bool
    drop_empty_rows: bool
    drop_empty_cols: bool
    stop_at_empty_row: bool
    # Tables and ranges.
    range: Optional[str]
    """Only these cells: "B3:F100", "A5:", "B:F", "3:10", "C5" (from C5 on),
    "Sheet1!B3:F100" or "'My Sheet'!B3:F100"; its first row is the header
    unless header_row says otherwise; with sheet 0 (the default), a sheet
    in the range is the sheet read."""
    table: Optional[str]
    """The Excel table of this name (case-insensitive), on its own sheet
    (with sheet 0, the default): its columns named by the table, its totals
    row left out."""
    table_name: Optional[str]
    """polars' name for table."""
    include_totals_row: bool
    """With table: keep the table's totals row."""

class Error(Exception):
    """Any error from opening or reading a workbook."""

    file: Optional[str]
    """The file (its path, or a label for bytes), where read_excel read many."""
    part: Optional[str]
    """The package part, e.g. "xl/worksheets/sheet1.xml"."""
    sheet: Optional[str]
    """The sheet's name."""
    row: Optional[int]
    """The row, 1-based as in Excel."""
    column: Optional[int]
    """The column, 1-based (A is 1)."""
    offset: Optional[int]
    """The byte offset in the inflated part."""

class ReadError(Error):
    """The workbook could not be read; raised itself when the operating
    system failed to read the file. The subclasses say what else happened."""

class FileNotFoundError(ReadError, builtins.FileNotFoundError):
    """The file, object or URL (HTTP 404) does not exist: also a built-in
    FileNotFoundError."""

class IsADirectoryError(ReadError, builtins.IsADirectoryError):
    """The path is a directory where one workbook was expected: also a
    built-in IsADirectoryError."""

class PermissionError(ReadError, builtins.PermissionError):
    """Reading was denied (HTTP 401 or 403, a bucket's access denied, a
    file's permissions): also a built-in PermissionError."""

class ConnectionError(ReadError, builtins.ConnectionError):
    """The server could not be reached (refused, reset, no such host):
    also a built-in ConnectionError."""

class TimeoutError(ReadError, builtins.TimeoutError):
    """The server did not answer in time: also a built-in TimeoutError."""

class NotAWorkbookError(ReadError):
    """The input is no workbook (empty, text, another document)."""

NotXlsxError = NotAWorkbookError

class UnsupportedFormatError(ReadError):
    """A spreadsheet of a format or version not read (Excel 2.x-4.0,
    Excel 2003 XML), or a feature of one not offered."""

class EncryptedWorkbookError(ReadError):
    """The workbook is encrypted and could not be decrypted: its encryption
    structures are damaged (the subclasses say the other reasons).
    ``EncryptionError`` is another name for this class."""

class DamagedWorkbookError(ReadError):
    """The workbook's container, a part, a record or a cell is damaged."""

class ZipError(DamagedWorkbookError): ...
class PackageError(DamagedWorkbookError): ...
class XmlError(DamagedWorkbookError): ...
class LimitError(ReadError): ...

class NothingReadError(ReadError):
    """skip_unreadable=True skipped every file and sheet: nothing read."""

    skipped: list[SkippedSheet]

class SkippedWarning(UserWarning):
    """read_excel or scan_excel (skip_unreadable=True) skipped files or sheets."""

    skipped: list[SkippedSheet]

@final
class SkippedSheet:
    """A file or sheet read_excel or scan_excel (skip_unreadable=True) skipped."""

    def __new__(cls, file: str, sheet: Optional[str], error: BaseException) -> "SkippedSheet": ...
    @property
    def file(self) -> str: ...
    @property
    def sheet(self) -> Optional[str]:
        """The sheet's name; None when the file itself could not be opened."""
    @property
    def error(self) -> Error: ...

class CellError(Error): ...

class DamagedCellError(CellError, DamagedWorkbookError):
    """A cell's value or reference cannot be read as written."""

class ConversionError(CellError): ...
class ColumnError(Error): ...

class NoDataError(Error):
    """raise_if_empty=True and a sheet holds no cell."""

class CoercionWarning(UserWarning):
    """A read nulled values that did not fit their column's type
    (`on_mismatch="null"`): how many, and the first cells."""

class SheetNotFoundError(Error): ...

class TableNotFoundError(Error):
    """No Excel table of that name; the message lists the workbook's tables."""

EncryptionError = EncryptedWorkbookError

class PasswordRequiredError(EncryptedWorkbookError):
    """Encrypted, no password given, and Excel's default password does not
    open it: pass ``password=``."""

class PasswordIncorrectError(EncryptedWorkbookError):
    """Encrypted, and neither the passwords given nor Excel's default one
    open it."""

class UnsupportedEncryptionError(EncryptedWorkbookError):
    """Encrypted with a scheme sheetstream does not decrypt (the message
    names it)."""

class IntegrityError(EncryptedWorkbookError):
    """The password opened it, but its integrity check (Agile encryption's
    HMAC) failed: the file was changed after it was encrypted."""

@final
class SheetInfo:
    """A sheet as the workbook lists it."""

    @property
    def position(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def state(self) -> Literal["visible", "hidden", "veryHidden"]: ...
    @property
    def kind(self) -> Literal["worksheet", "chartsheet", "dialogsheet", "macrosheet"]: ...

@final
class DefinedName:
    """A named range, constant or formula."""

    @property
    def name(self) -> str: ...
    @property
    def refers_to(self) -> str: ...
    @property
    def sheet(self) -> Optional[int]:
        """The position of the sheet the name is local to; None when workbook-wide."""
    @property
    def hidden(self) -> bool: ...
    @property
    def sheet_name(self) -> Optional[str]:
        """The name of the sheet the name is local to; None when workbook-wide."""

@final
class CellRange:
    """A rectangle of cells, 0-based and inclusive; str() gives "B2:D8".
    Equal to another CellRange of the same cells, or to its A1 text."""

    @property
    def first_row(self) -> int: ...
    @property
    def first_column(self) -> int: ...
    @property
    def last_row(self) -> int: ...
    @property
    def last_column(self) -> int: ...
    def __contains__(self, cell: tuple[int, int], /) -> bool:
        """Whether a (row, column) cell, 0-based, is inside."""
    def __hash__(self) -> int: ...

@final
class Table:
    """An Excel table (Insert > Table), as `Workbook.tables()` lists it."""

    @property
    def name(self) -> str: ...
    @property
    def display_name(self) -> str: ...
    @property
    def sheet(self) -> str:
        """The name of the sheet holding it."""
    @property
    def sheet_position(self) -> int: ...
    @property
    def range(self) -> CellRange:
        """The whole table: header, data and totals rows."""
    @property
    def header_row_count(self) -> int: ...
    @property
    def totals_row_count(self) -> int: ...
    @property
    def columns(self) -> list[str]: ...

@final
class Hyperlink:
    """A hyperlink on a cell or range."""

    @property
    def range(self) -> CellRange: ...
    @property
    def target(self) -> Optional[str]:
        """A URL, a file path, or a package part; None with only a location."""
    @property
    def location(self) -> Optional[str]:
        """A place in the workbook (Sheet2!A1), or an external target's fragment."""
    @property
    def display(self) -> Optional[str]: ...
    @property
    def tooltip(self) -> Optional[str]: ...

@final
class Comment:
    """A cell comment (a note)."""

    @property
    def cell(self) -> str:
        """The cell in A1 form ("B3")."""
    @property
    def row(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def author(self) -> Optional[str]: ...
    @property
    def text(self) -> str: ...

@final
class SheetMetadata:
    """What a sheet says besides its cells (`Workbook.sheet_metadata`)."""

    @property
    def dimension(self) -> Optional[CellRange]:
        """The used range as the file states it."""
    @property
    def hidden_columns(self) -> list[tuple[int, int]]:
        """Hidden columns as (first, last) 0-based inclusive pairs."""
    @property
    def rows_hidden_by_default(self) -> bool: ...
    @property
    def merged(self) -> list[CellRange]: ...
    @property
    def hyperlinks(self) -> list[Hyperlink]: ...
    @property
    def comments(self) -> list[Comment]: ...

@final
class CellIssue:
    """One cell that did not arrive as a value (`BatchReport.issues`)."""

    @property
    def row(self) -> int:
        """The sheet row, 1-based as in Excel."""
    @property
    def column(self) -> int:
        """The sheet column, 1-based (A is 1)."""
    @property
    def column_name(self) -> str:
        """The output column's name ("" when the schema has no such column)."""
    @property
    def kind(self) -> Literal["error_value", "does_not_fit", "repeated", "outside_schema"]: ...
    @property
    def value(self) -> str:
        """The error code (`#N/A`) or the value as text."""
    @property
    def column_type(self) -> Optional[str]:
        """The column's type name, for "does_not_fit"."""

@final
class BatchReport:
    """The cells of a batch (or, as `Sheet.report`, of the latest read)
    that did not arrive as values."""

    @property
    def sheet(self) -> str: ...
    @property
    def file(self) -> Optional[str]: ...
    @property
    def first_row(self) -> Optional[int]:
        """The sheet row of the first row, 1-based; None before any row."""
    @property
    def rows(self) -> int: ...
    @property
    def cells(self) -> int:
        """Cells read into the batch: only the selected columns' under a
        column selection (the others are never read into values)."""
    @property
    def error_cells(self) -> int:
        """Error cells (`#N/A`, ...), which became null."""
    @property
    def coerced_cells(self) -> int:
        """Values that did not fit their column's type, which became null."""
    @property
    def dropped_cells(self) -> int:
        """Cells outside the schema, and second cells for one column in one row."""
    @property
    def issues(self) -> list[CellIssue]:
        """The first issues, described (`issues_per_batch` a batch, 100 in a total)."""
    @property
    def integrity(self) -> Optional[str]:
        """`Sheet.report` only: `Workbook.integrity` when it was taken; None
        in a batch's own report."""
    @property
    def is_clean(self) -> bool: ...
    @property
    def hidden_rows_skipped(self) -> int:
        """Hidden rows left out (`skip_hidden_rows`)."""
    @property
    def header_row(self) -> Optional[int]:
        """The 0-based sheet row the header was taken from (the last of a
        header of several rows; with `header_row="auto"`, the row found);
        None without a header row."""

@final
class BatchIterator:
    """`Sheet.iter_batches()`: pyarrow RecordBatches, one at a time."""

    def __iter__(self) -> "BatchIterator": ...
    def __next__(self) -> "pyarrow.RecordBatch": ...

@final
class RowIterator:
    """`Sheet.iter_rows()`: tuples of Python values, one row at a time."""

    def __iter__(self) -> "RowIterator": ...
    def __next__(self) -> tuple[_Value, ...]: ...

@final
class Sheet:
    """One sheet as typed Arrow record batches (`Workbook.sheet`). Every
    consumer reads the sheet anew."""

    @property
    def name(self) -> str: ...
    @property
    def column_names(self) -> list[str]: ...
    @property
    def schema(self) -> "pyarrow.Schema": ...
    def __arrow_c_schema__(self) -> object: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def to_arrow(self) -> "pyarrow.Table": ...
    def to_polars(self) -> "polars.DataFrame": ...
    def to_pandas(self, **kwargs: Any) -> "pandas.DataFrame": ...
    @property
    def report(self) -> BatchReport:
        """The reports of the latest read's batches, added up."""
    @overload
    def iter_batches(self, *, with_report: Literal[False] = False) -> BatchIterator: ...
    @overload
    def iter_batches(
        self, *, with_report: Literal[True]
    ) -> Iterator[tuple["pyarrow.RecordBatch", BatchReport]]: ...
    def iter_rows(self) -> RowIterator: ...
    # scan_excel's: the columns' types by its names, and its batches as
    # polars frames (neither imports pyarrow).
    @property
    def _column_types(self) -> list[str]: ...
    def _iter_polars_batches(self) -> Iterator[tuple["polars.DataFrame", BatchReport]]: ...

@final
class Workbook:
    """An opened workbook (`sheetstream.open`)."""

    @property
    def sheets(self) -> list[SheetInfo]: ...
    @property
    def sheet_names(self) -> list[str]: ...
    @property
    def defined_names(self) -> list[DefinedName]: ...
    @property
    def bytes_fetched(self) -> Optional[int]:
        """Bytes fetched so far from a URL or a seekable file object (None
        for a path or bytes)."""
    @property
    def encryption(self) -> Optional[str]:
        """The scheme an encrypted workbook was decrypted with
        ("Agile AES-256/SHA-512", ...); None when it is not encrypted."""
    @property
    def integrity(self) -> Literal["not encrypted", "not recorded", "not verified", "verified"]:
        """What is known of an encrypted workbook's integrity (Agile
        encryption's HMAC over the whole file): checked once every
        worksheet has been read, by ``verify_integrity()``, or at open with
        ``verify_integrity=True``."""
    def verify_integrity(
        self,
    ) -> Literal["not encrypted", "not recorded", "not verified", "verified"]:
        """Checks the integrity now (one pass over the file) unless it was
        checked; raises IntegrityError when the file was changed after it
        was encrypted."""
    def sheet(
        self, sheet: _SheetRef = 0, *, threads: int = 0, **options: Unpack[_SheetOptions]
    ) -> Sheet:
        """One sheet as typed Arrow record batches. ``threads``: 0 (one
        per core) reads it on two threads where there are two cores, 1 on
        one (for callers that already run one reader per core)."""
    def tables(self) -> list[Table]:
        """The Excel tables, read from their own parts (no cell read)."""
    def table(self, name: str) -> Table:
        """The table of this name (case-insensitive), or TableNotFoundError."""
    def sheet_position(self, sheet: _SheetRef) -> int:
        """The 0-based position of the sheet `sheet` names (text: the sheet
        of that name, or when none has it and it is a whole number, the
        sheet at that position; a name wins, with a UserWarning)."""
    def sheet_metadata(self, sheet: _SheetRef = 0) -> SheetMetadata: ...
    def hidden_rows(self, sheet: _SheetRef = 0) -> list[int]:
        """The hidden rows, 0-based."""
    def close(self) -> None: ...
    def __enter__(self) -> "Workbook": ...
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None: ...

def open(
    source: _Source,
    *,
    storage_options: Optional[dict[str, Any]] = None,
    password: _Password = None,
    verify_integrity: bool = False,
) -> Workbook:
    """Opens a workbook: a path, a URL (s3://, gs://, az://, https://, any
    fsspec protocol; with storage_options), bytes, or a binary file object
    (read by ranges when seekable, else into memory).

    An encrypted workbook opens with Excel's default password unasked,
    else with ``password``: a str, a list of them tried in order, or a
    callable given the file's path (None for bytes) that returns one.
    ``verify_integrity=True`` checks an encrypted workbook's integrity at
    once (one pass over the file); reading every worksheet checks it
    anyway."""

# A glob pattern is a str or a path too (read_excel).
_Sources = Union[_Source, Sequence[_Source]]

def _warn_skipped(
    caller: str, skipped: list[tuple[str, Optional[str], BaseException]], stacklevel: int
) -> None: ...
def _workbooks_in(folder: Union[str, "os.PathLike[str]"], recursive: bool = False) -> list[str]: ...

@overload
def read_excel(  # type: ignore[overload-overlap]
    source: _Sources,
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["polars"] = "polars",
    sheet_id: Union[Literal[0], Sequence[int]],
    sheet_name: None = None,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    skip_unreadable: bool = False,
    storage_options: Optional[dict[str, Any]] = None,
    raise_if_empty: bool = False,
    include_file_paths: Optional[str] = None,
    password: _Password = None,
    verify_integrity: bool = False,
    recursive: bool = False,
    **options: Unpack[_SheetOptions],
) -> dict[str, "polars.DataFrame"]: ...
@overload
def read_excel(
    source: _Sources,
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["polars"] = "polars",
    sheet_name: Union[list[str], tuple[str, ...]],
    sheet_id: None = None,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    skip_unreadable: bool = False,
    storage_options: Optional[dict[str, Any]] = None,
    password: _Password = None,
    verify_integrity: bool = False,
    raise_if_empty: bool = False,
    include_file_paths: Optional[str] = None,
    recursive: bool = False,
    **options: Unpack[_SheetOptions],
) -> dict[str, "polars.DataFrame"]: ...
@overload
def read_excel(
    source: _Sources,
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["polars"] = "polars",
    sheet_name: Optional[str] = None,
    sheet_id: Optional[int] = None,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    skip_unreadable: bool = False,
    storage_options: Optional[dict[str, Any]] = None,
    raise_if_empty: bool = False,
    include_file_paths: Optional[str] = None,
    password: _Password = None,
    verify_integrity: bool = False,
    recursive: bool = False,
    **options: Unpack[_SheetOptions],
) -> "polars.DataFrame": ...
@overload
def read_excel(  # type: ignore[overload-overlap]
    source: _Sources,
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["pyarrow"],
    sheet_id: Union[Literal[0], Sequence[int]],
    sheet_name: None = None,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    skip_unreadable: bool = False,
    storage_options: Optional[dict[str, Any]] = None,
    raise_if_empty: bool = False,
    include_file_paths: Optional[str] = None,
    password: _Password = None,
    verify_integrity: bool = False,
    recursive: bool = False,
    **options: Unpack[_SheetOptions],
) -> dict[str, "pyarrow.Table"]: ...
@overload
def read_excel(
    source: _Sources,
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["pyarrow"],
    sheet_name: Union[list[str], tuple[str, ...]],
    sheet_id: None = None,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    skip_unreadable: bool = False,
    storage_options: Optional[dict[str, Any]] = None,
    password: _Password = None,
    verify_integrity: bool = False,
    raise_if_empty: bool = False,
    include_file_paths: Optional[str] = None,
    recursive: bool = False,
    **options: Unpack[_SheetOptions],
) -> dict[str, "pyarrow.Table"]: ...
@overload
def read_excel(
    source: _Sources,
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["pyarrow"],
    sheet_name: Optional[str] = None,
    sheet_id: Optional[int] = None,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    skip_unreadable: bool = False,
    storage_options: Optional[dict[str, Any]] = None,
    raise_if_empty: bool = False,
    include_file_paths: Optional[str] = None,
    password: _Password = None,
    verify_integrity: bool = False,
    recursive: bool = False,
    **options: Unpack[_SheetOptions],
) -> "pyarrow.Table": ...
@overload
def read_excel(  # type: ignore[overload-overlap]
    source: _Sources,
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["pandas"],
    sheet_id: Union[Literal[0], Sequence[int]],
    sheet_name: None = None,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    skip_unreadable: bool = False,
    storage_options: Optional[dict[str, Any]] = None,
    raise_if_empty: bool = False,
    include_file_paths: Optional[str] = None,
    password: _Password = None,
    verify_integrity: bool = False,
    recursive: bool = False,
    **options: Unpack[_SheetOptions],
) -> dict[str, "pandas.DataFrame"]: ...
@overload
def read_excel(
    source: _Sources,
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["pandas"],
    sheet_name: Union[list[str], tuple[str, ...]],
    sheet_id: None = None,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    skip_unreadable: bool = False,
    storage_options: Optional[dict[str, Any]] = None,
    password: _Password = None,
    verify_integrity: bool = False,
    raise_if_empty: bool = False,
    include_file_paths: Optional[str] = None,
    recursive: bool = False,
    **options: Unpack[_SheetOptions],
) -> dict[str, "pandas.DataFrame"]: ...
@overload
def read_excel(
    source: _Sources,
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["pandas"],
    sheet_name: Optional[str] = None,
    sheet_id: Optional[int] = None,
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    skip_unreadable: bool = False,
    storage_options: Optional[dict[str, Any]] = None,
    raise_if_empty: bool = False,
    include_file_paths: Optional[str] = None,
    password: _Password = None,
    verify_integrity: bool = False,
    recursive: bool = False,
    **options: Unpack[_SheetOptions],
) -> "pandas.DataFrame": ...
