"""The type stubs: they match the native module (mypy's stubtest), and
typed code using the package passes `mypy --strict`."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import pytest

USAGE = pathlib.Path(__file__).with_name("typed_usage.py")


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, timeout=600,
        cwd=pathlib.Path(__file__).parent,
    )


def test_stubs_match_the_native_module() -> None:
    result = mypy("mypy.stubtest", "--mypy-config-file", "mypy.ini", "sheetstream")
    assert result.returncode == 0, result.stdout + result.stderr


def test_typed_usage_passes_mypy_strict() -> None:
    result = mypy("mypy", "--config-file", "mypy.ini", "--strict", "--no-incremental", str(USAGE))
    assert result.returncode == 0, result.stdout + result.stderr
