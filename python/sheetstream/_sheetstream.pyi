"""Type stubs of the native module (re-exported by `sheetstream`)."""

import datetime
import os
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, Literal, Optional, Union, final, overload

if TYPE_CHECKING:
    import pandas
    import polars
    import pyarrow

__version__: str
__all__ = [
    "CellError",
    "ColumnError",
    "ConversionError",
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
    "Sheet",
    "BatchIterator",
    "RowIterator",
    "__version__",
    "open",
    "read_excel",
]

_Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]
_SheetRef = Union[int, str]
_ColumnType = Union[
    Literal[
        "bool", "boolean", "int", "int64", "float", "float64", "double", "utf8", "string",
        "str", "text", "date", "date32", "timestamp", "datetime", "time", "duration",
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

class Error(Exception):
    """Any error from opening or reading a workbook."""

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

class ReadError(Error): ...
class NotXlsxError(Error): ...
class ZipError(Error): ...
class PackageError(Error): ...
class XmlError(Error): ...
class CellError(Error): ...
class ConversionError(CellError): ...
class ColumnError(Error): ...
class LimitError(Error): ...
class SheetNotFoundError(Error): ...

@final
class SheetInfo:
    """A sheet as the workbook lists it."""

    @property
    def position(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def state(self) -> Literal["visible", "hidden", "very_hidden"]: ...
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
    def iter_batches(self) -> BatchIterator: ...
    def iter_rows(self) -> RowIterator: ...

@final
class Workbook:
    """An opened workbook (`sheetstream.open`)."""

    @property
    def sheets(self) -> list[SheetInfo]: ...
    @property
    def sheet_names(self) -> list[str]: ...
    @property
    def defined_names(self) -> list[DefinedName]: ...
    def sheet(
        self,
        sheet: _SheetRef = 0,
        *,
        header_row: Union[int, None, Literal["auto"]] = "auto",
        skip_rows: int = 0,
        n_rows: Optional[int] = None,
        columns: Union[str, Sequence[Union[str, int]], None] = None,
        schema_sample_rows: int = 1000,
        dtypes: Optional[Mapping[str, _ColumnType]] = None,
        strict: bool = False,
        null_values: Union[str, Sequence[str], None] = None,
        batch_size: int = 65536,
    ) -> Sheet: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Workbook": ...
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None: ...

def open(source: _Source) -> Workbook:
    """Opens a workbook: a path, bytes, or a binary file object (read into memory)."""

@overload
def read_excel(
    source: Union[_Source, Sequence[_Source]],
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["polars"] = "polars",
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    header_row: Union[int, None, Literal["auto"]] = "auto",
    skip_rows: int = 0,
    n_rows: Optional[int] = None,
    columns: Union[str, Sequence[Union[str, int]], None] = None,
    schema_sample_rows: int = 1000,
    dtypes: Optional[Mapping[str, _ColumnType]] = None,
    strict: bool = False,
    null_values: Union[str, Sequence[str], None] = None,
    batch_size: int = 65536,
) -> "polars.DataFrame": ...
@overload
def read_excel(
    source: Union[_Source, Sequence[_Source]],
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["pyarrow"],
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    header_row: Union[int, None, Literal["auto"]] = "auto",
    skip_rows: int = 0,
    n_rows: Optional[int] = None,
    columns: Union[str, Sequence[Union[str, int]], None] = None,
    schema_sample_rows: int = 1000,
    dtypes: Optional[Mapping[str, _ColumnType]] = None,
    strict: bool = False,
    null_values: Union[str, Sequence[str], None] = None,
    batch_size: int = 65536,
) -> "pyarrow.Table": ...
@overload
def read_excel(
    source: Union[_Source, Sequence[_Source]],
    sheet: Union[_SheetRef, Sequence[_SheetRef], None] = 0,
    *,
    to: Literal["pandas"],
    union_by_name: bool = False,
    file_column: Optional[str] = None,
    sheet_column: Optional[str] = None,
    threads: int = 0,
    header_row: Union[int, None, Literal["auto"]] = "auto",
    skip_rows: int = 0,
    n_rows: Optional[int] = None,
    columns: Union[str, Sequence[Union[str, int]], None] = None,
    schema_sample_rows: int = 1000,
    dtypes: Optional[Mapping[str, _ColumnType]] = None,
    strict: bool = False,
    null_values: Union[str, Sequence[str], None] = None,
    batch_size: int = 65536,
) -> "pandas.DataFrame": ...
