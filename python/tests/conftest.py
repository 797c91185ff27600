"""Shared fixtures: workbooks the tests write themselves (xlsxwriter), the
sheetstream CLI (for messages and the Rust row stream), the corpus."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
from typing import Callable, Iterable, Iterator

import pytest

PYTHON_DIR = pathlib.Path(__file__).resolve().parent.parent
REPO = PYTHON_DIR.parent
CORPUS = REPO.parent / "shared" / "conformance" / "corpus"


def cli_path() -> pathlib.Path | None:
    """The sheetstream CLI: $SHEETSTREAM_CLI (CI sets it, and then it must
    exist), else the release or debug build of this checkout."""
    configured = os.environ.get("SHEETSTREAM_CLI")
    if configured:
        path = pathlib.Path(configured)
        if not path.is_file():
            raise RuntimeError(f"SHEETSTREAM_CLI={configured} does not exist")
        return path
    for profile in ("release", "debug"):
        path = REPO / "target" / profile / "sheetstream"
        if path.is_file():
            return path
    return shutil.which("sheetstream") and pathlib.Path(shutil.which("sheetstream"))  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    path = cli_path()
    if path is None:
        pytest.skip("the sheetstream CLI is not built (cargo build --release)")
    return path


def run_cli(cli: pathlib.Path, *args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(cli), *map(str, args)], capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="session")
def corpus() -> pathlib.Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the conformance corpus is absent ({CORPUS})")
    return CORPUS


WriteWorkbook = Callable[..., pathlib.Path]


@pytest.fixture
def write_workbook(tmp_path: pathlib.Path) -> WriteWorkbook:
    """Calls `fill(workbook)` on a fresh xlsxwriter Workbook and returns the
    path of the file written."""
    import xlsxwriter

    counter = iter(range(1_000_000))

    def write(fill: Callable[..., None], name: str | None = None, **options: object) -> pathlib.Path:
        path = tmp_path / (name or f"book{next(counter)}.xlsx")
        workbook = xlsxwriter.Workbook(str(path), options or None)
        fill(workbook)
        workbook.close()
        return path

    return write


def write_plain_package(path: pathlib.Path, sheets: dict[str, "Iterable[str]"]) -> pathlib.Path:
    """A minimal .xlsx package from sheet XML rows written by the caller:
    `sheets` maps each sheet's name to its `<row>` elements (strings,
    streamed into the ZIP entry), so that tests can write large or
    deliberately malformed sheets quickly. Inline strings only; no styles."""
    import zipfile
    from xml.sax.saxutils import escape

    names = list(sheets)
    content_types = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        + "".join(
            f'<Override PartName="/xl/worksheets/sheet{i + 1}.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            for i in range(len(names))
        )
        + "</Types>"
    )
    root_rels = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
        "</Relationships>"
    )
    workbook = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
        + "".join(
            f'<sheet name="{escape(name, {chr(34): "&quot;"})}" sheetId="{i + 1}" r:id="rId{i + 1}"/>'
            for i, name in enumerate(names)
        )
        + "</sheets></workbook>"
    )
    workbook_rels = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        + "".join(
            f'<Relationship Id="rId{i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{i + 1}.xml"/>'
            for i in range(len(names))
        )
        + "</Relationships>"
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as package:
        package.writestr("[Content_Types].xml", content_types)
        package.writestr("_rels/.rels", root_rels)
        package.writestr("xl/workbook.xml", workbook)
        package.writestr("xl/_rels/workbook.xml.rels", workbook_rels)
        for i, name in enumerate(names):
            with package.open(f"xl/worksheets/sheet{i + 1}.xml", "w", force_zip64=True) as part:
                part.write(
                    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                    b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
                )
                chunk: list[str] = []
                for row in sheets[name]:
                    chunk.append(row)
                    if len(chunk) >= 10_000:
                        part.write("".join(chunk).encode())
                        chunk.clear()
                part.write("".join(chunk).encode())
                part.write(b"</sheetData></worksheet>")
    return path


def number_rows(rows: int, columns: int = 4, start: int = 1) -> "Iterator[str]":
    """`<row>`s of numbers: a header row of inline strings c1..cN, then
    `rows` rows where cell (r, c) holds r * 10 + c + 0.5."""
    letters = [chr(ord("A") + c) for c in range(columns)]
    yield '<row r="1">' + "".join(
        f'<c r="{letters[c]}1" t="inlineStr"><is><t>c{c + 1}</t></is></c>' for c in range(columns)
    ) + "</row>"
    for r in range(start, start + rows):
        number = r + 1
        yield f'<row r="{number}">' + "".join(
            f'<c r="{letters[c]}{number}"><v>{r * 10 + c}.5</v></c>' for c in range(columns)
        ) + "</row>"
