"""Code a user would write, type-checked by test_typing.py (never run)."""

from __future__ import annotations

import io
from typing import Optional

import sheetstream


def summary(path: str) -> list[tuple[str, str, str]]:
    with sheetstream.open(path) as workbook:
        return [(s.name, s.state, s.kind) for s in workbook.sheets]


def names(data: bytes) -> dict[str, Optional[int]]:
    workbook = sheetstream.open(io.BytesIO(data))
    return {name.name: name.sheet for name in workbook.defined_names}


def where(path: str) -> Optional[str]:
    try:
        sheetstream.open(path)
    except sheetstream.XmlError as err:
        row: Optional[int] = err.row
        return f"{err.part} {err.sheet} {row} {err.column} {err.offset}"
    return None
