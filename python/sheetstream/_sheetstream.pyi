"""Type stubs of the native module (re-exported by `sheetstream`)."""

import os
from typing import IO, Literal, Optional, Union, final

__version__: str
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

_Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]

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
class Workbook:
    """An opened workbook (`sheetstream.open`)."""

    @property
    def sheets(self) -> list[SheetInfo]: ...
    @property
    def sheet_names(self) -> list[str]: ...
    @property
    def defined_names(self) -> list[DefinedName]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Workbook": ...
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None: ...

def open(source: _Source) -> Workbook:
    """Opens a workbook: a path, bytes, or a binary file object (read into memory)."""
