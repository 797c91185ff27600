"""Shared fixtures: workbooks the tests write themselves (xlsxwriter), the
sheetstream CLI (for messages and the Rust row stream), the corpus."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
from typing import Callable

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
