"""The Spark and planning modules pass `mypy --strict`."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

PACKAGE = os.path.join(os.path.dirname(__file__), "..", "sheetstream")


def test_modules_pass_mypy_strict():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--ignore-missing-imports", "--no-incremental",
         os.path.join(PACKAGE, "spark.py"), os.path.join(PACKAGE, "planning.py")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
