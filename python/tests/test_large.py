"""A large generated sheet: memory while streaming batches (measured in
subprocesses), and the GIL released while reading."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import threading
import time

import pytest

import sheetstream
from conftest import number_rows, write_plain_package

ROWS = 1_000_000
COLUMNS = 4

CHILD = r"""
import json, resource, sys
import pyarrow, pyarrow.compute
import sheetstream

def peak_mb():
    # VmHWM: ru_maxrss would carry the parent's peak across exec.
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

path, mode = sys.argv[1:]
sheet = sheetstream.open(path).sheet(0, batch_size=16_384)
before = peak_mb()
if mode == "iter_batches":
    rows = 0
    total = 0.0
    for batch in sheet.iter_batches():
        rows += batch.num_rows
        total += pyarrow.compute.sum(batch.column(0)).as_py()
else:
    table = sheet.to_arrow()
    rows = table.num_rows
    total = pyarrow.compute.sum(table.column(0)).as_py()
print(json.dumps({"rows": rows, "total": total, "growth_mb": peak_mb() - before}))
"""


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("large") / "big.xlsx"
    return write_plain_package(path, {"Big": number_rows(ROWS, COLUMNS)})


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("small") / "small.xlsx"
    return write_plain_package(path, {"Small": number_rows(2_000, COLUMNS)})


def measure(path: pathlib.Path, mode: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), mode], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_iter_batches_memory_is_bounded(big: pathlib.Path) -> None:
    expected_total = sum(r * 10 + 0.5 for r in range(1, ROWS + 1))
    streamed = measure(big, "iter_batches")
    whole = measure(big, "to_arrow")
    assert streamed["rows"] == whole["rows"] == ROWS
    assert streamed["total"] == whole["total"] == expected_total
    table_mb = ROWS * COLUMNS * 8 / 2**20  # 30.5 MiB of float64
    # The whole table must show in the measurement, or the bound below
    # would prove nothing.
    assert whole["growth_mb"] > table_mb * 0.9, whole
    # Streaming holds a few batches of 16,384 rows (0.5 MiB each), the
    # reader's buffers and its thread: far below the table.
    assert streamed["growth_mb"] < table_mb / 3, streamed


def test_the_gil_is_released_while_reading(big: pathlib.Path) -> None:
    sheet = sheetstream.open(big).sheet(0)
    start = time.perf_counter()
    sheet.to_arrow()
    alone = time.perf_counter() - start

    # Another Python thread keeps running while one reads: the longest
    # pause it sees is far shorter than the read.
    done = threading.Event()

    def read() -> None:
        sheet.to_arrow()
        done.set()

    reader = threading.Thread(target=read)
    longest_pause = 0.0
    last = time.perf_counter()
    reader.start()
    while not done.is_set():
        now = time.perf_counter()
        longest_pause = max(longest_pause, now - last)
        last = now
    reader.join()
    assert longest_pause < alone / 2, (longest_pause, alone)


def test_two_threads_read_two_files_at_once(big: pathlib.Path, small: pathlib.Path) -> None:
    """While one thread reads the large file, a second thread opens and
    reads a small one from start to end: with the GIL held by the first
    read, the second could not even start until it ended."""
    big_sheet = sheetstream.open(big).sheet(0)
    times: dict[str, float] = {}
    started = threading.Event()

    def read_big() -> None:
        times["big_start"] = time.perf_counter()
        started.set()
        big_sheet.to_arrow()
        times["big_end"] = time.perf_counter()

    def read_small() -> None:
        started.wait()
        time.sleep(0.01)
        table = sheetstream.open(small).sheet(0).to_arrow()
        assert table.num_rows == 2_000
        times["small_end"] = time.perf_counter()

    threads = [threading.Thread(target=read_big), threading.Thread(target=read_small)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert times["small_end"] < times["big_end"], times


THREADS_CHILD = r"""
import json, os, sys
import pyarrow
import sheetstream

path, threads = sys.argv[1], int(sys.argv[2])
def running():
    return len(os.listdir("/proc/self/task"))
sheet = sheetstream.open(path).sheet(0, batch_size=16_384, threads=threads)
most, rows, total = running(), 0, 0.0
for batch in sheet.iter_batches():
    most = max(most, running())
    rows += batch.num_rows
    total += sum(batch.column(0).to_pylist())
print(json.dumps({"most": most, "rows": rows, "total": total}))
"""


@pytest.mark.skipif(
    not pathlib.Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
    reason="counts a Linux process's threads, on two cores or more",
)
def test_threads_one_reads_a_sheet_without_an_inflate_thread(big: pathlib.Path) -> None:
    def read(threads: int) -> dict[str, float]:
        done = subprocess.run(
            [sys.executable, "-c", THREADS_CHILD, str(big), str(threads)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    paired, alone = read(0), read(1)
    assert paired["rows"] == alone["rows"] == ROWS
    assert paired["total"] == alone["total"] == sum(r * 10 + 0.5 for r in range(1, ROWS + 1))
    # The same reader less the sheet's inflate thread.
    assert alone["most"] < paired["most"], (alone, paired)
