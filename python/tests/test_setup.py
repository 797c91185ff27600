"""The READMEs' Python steps as written: the pip line installs what the
tests and CI need, the examples run from where the README says, and the
two crates declare one rust-version."""

from __future__ import annotations

import os
import re
import shlex
import sys

import pytest

from conftest import REPO

READMES = [REPO / "README.md", REPO / "python" / "README.md"]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def pip_packages(line: str) -> set[str]:
    words = shlex.split(line.split("pip install", 1)[1].split("&&")[0])
    return {word for word in words if not word.startswith("-")}


def ci_packages() -> set[str]:
    script = (REPO / ".ci" / "run").read_text()
    # The venv step's install: the line with `pip install --quiet maturin`
    # and its continuation.
    match = re.search(r'pip install --quiet (maturin[^\n]*\\\n[^\n#]*)', script)
    assert match, "the CI venv step's pip line"
    words = shlex.split(match.group(1).replace("\\\n", " "))
    return set(words)


@pytest.mark.parametrize("readme", READMES, ids=lambda path: str(path.relative_to(REPO)))
def test_readme_pip_line_installs_what_ci_installs(readme: "os.PathLike[str]") -> None:
    text = open(readme).read()
    lines = [
        line
        for block in blocks(text, "sh")
        for line in block.splitlines()
        if ".venv/bin/pip install" in line
    ]
    assert len(lines) == 1, lines
    packages = pip_packages(lines[0])
    # sheetstream.spark imports pyspark, and the stub test checks that module.
    assert "pyspark>=4,<5" in packages
    assert ci_packages() <= packages, ci_packages() - packages
    # The steps run from the repository root: the tests by their path.
    steps = next(block for block in blocks(text, "sh") if ".venv/bin/pip install" in block)
    assert ".venv/bin/python -m pytest python/tests" in steps
    assert "(cd python &&" in steps


@pytest.mark.parametrize("readme", READMES, ids=lambda path: str(path.relative_to(REPO)))
def test_readme_examples_run_from_the_repository_root(
    readme: "os.PathLike[str]", monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every example line that names the sample workbook runs as written,
    from the repository root; a whole block runs when every workbook it
    names exists."""
    import polars

    import sheetstream

    monkeypatch.chdir(REPO)
    text = open(readme).read()
    ran_blocks = ran_lines = 0
    frames = []
    for block in blocks(text, "python"):
        paths = re.findall(r'"([^"]*\.xlsx)"', block)
        assert "sales.xlsx" not in paths, "the sample workbook is examples/data/sales.xlsx"
        namespace: dict[str, object] = {"sheetstream": sheetstream}
        if paths and all((REPO / path).is_file() for path in paths):
            exec(compile(block, str(readme), "exec"), namespace)
            ran_blocks += 1
        else:
            # The one-line statements that read the sample.
            for line in block.splitlines():
                statement = line.split("  #")[0].strip()
                if '"examples/data/sales.xlsx"' in statement and statement.count(
                    "("
                ) == statement.count(")"):
                    exec(statement, namespace)
                    ran_lines += 1
                    frames += [v for v in namespace.values() if isinstance(v, polars.DataFrame)]
        frames += [value for value in namespace.values() if isinstance(value, polars.DataFrame)]
    assert ran_blocks + ran_lines >= 1
    # The first sheet of the sample: three rows of items.
    assert any(frame["Item"].to_list() == ["apples", "pears", "plums"] for frame in frames)


def rust_version(manifest: str) -> str:
    import tomllib

    with open(REPO / manifest, "rb") as file:
        return str(tomllib.load(file)["package"]["rust-version"])


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib")
def test_one_rust_version() -> None:
    assert rust_version("python/Cargo.toml") == rust_version("Cargo.toml")
