"""Dated results for the Python benches, as benches/support/results.rs
writes them for the Rust ones: what a bench prints is also appended to
benches/results/NAME.md under a heading with the date (UTC), the machine,
the load average before and after, and the commit (benches/README.md).

    if __name__ == "__main__":
        with results.recorded("python"):
            main()

Child processes (run with `--child`) record nothing.
`SHEETSTREAM_BENCH_RESULTS=DIR` writes under DIR instead; `off`, nothing.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import pathlib
import platform
import subprocess
import sys
from typing import Iterator

REPO = pathlib.Path(__file__).resolve().parent.parent.parent


class _Tee(io.TextIOBase):
    def __init__(self, stream: io.TextIOBase) -> None:
        self.stream = stream
        self.kept = io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def _load() -> str:
    try:
        return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def _machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f", {int(line.split()[1]) // (1024 * 1024)} GiB"
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores{memory}"


def _commit() -> str:
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""
    head = git("rev-parse", "--short", "HEAD") or "no commit"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"{head}-dirty" if dirty else head


@contextlib.contextmanager
def recorded(name: str) -> Iterator[None]:
    """Tees stdout while the bench runs and appends it to its results file."""
    target = os.environ.get("SHEETSTREAM_BENCH_RESULTS", "")
    if "--child" in sys.argv or target == "off":
        yield
        return
    folder = pathlib.Path(target) if target else REPO / "benches" / "results"
    before = _load()
    tee = _Tee(sys.stdout)  # type: ignore[arg-type]
    stdout = sys.stdout
    sys.stdout = tee  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout = stdout
    command = " ".join([pathlib.Path(sys.argv[0]).name, *sys.argv[1:]])
    section = (
        f"\n## {datetime.datetime.now(datetime.timezone.utc).date()} ({_commit()})\n\n"
        f"- machine: {_machine()}\n"
        f"- load average (1, 5, 15 min): {before} before, {_load()} after\n"
        f"- command: `{command}`\n\n```text\n{tee.kept.getvalue().rstrip()}\n```\n"
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    new = not path.exists()
    with open(path, "a") as file:
        if new:
            file.write(f"# {name} bench results\n\nAppended by the bench itself; newest last.\n")
        file.write(section)
    print(f"results appended to {path}")
