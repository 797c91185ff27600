"""The source's read fixes glibc malloc's mmap threshold in the executor's
Python worker (``sheetstream.spark._fix_mmap_threshold``), so the Arrow
column buffers of freed batches are unmapped rather than kept in a heap
arena; an environment that sets the threshold keeps its own. Each case runs
in a fresh interpreter (the setting is per process), reading a workbook
through the source's own planning and ``read()``, without a JVM."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    not (hasattr(os, "confstr") and (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")),
    reason="glibc only",
)

#: Reads the workbook through the source (``read``, or not: ``none``), then frees a 1 MiB block that
#: malloc mapped and asks for 512 KiB: with the threshold left to glibc, it
#: rose to 1 MiB and the 512 KiB come from the heap; fixed at 128 KiB, they
#: are mapped. Prints the rows read and the bytes mapped by the last malloc.
SCRIPT = textwrap.dedent(
    """
    import ctypes, sys
    from sheetstream.spark import SheetstreamDataSource

    rows = 0
    if sys.argv[2] == "read":
        source = SheetstreamDataSource({"path": sys.argv[1], "batchSize": "100"})
        reader = source.reader(source.schema())
        rows = sum(batch.num_rows for p in reader.partitions() for batch in reader.read(p))

    class Info(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd",
            "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = Info
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.free(libc.malloc(1 << 20))
    before = libc.mallinfo2().hblkhd
    block = libc.malloc(512 << 10)
    mapped = libc.mallinfo2().hblkhd - before
    libc.free(block)
    print(rows, mapped)
    """
)


def read_in_fresh_worker(path: str, read: str = "read", **env: str) -> tuple:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    environment.update(env)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, path, read],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    rows, mapped = done.stdout.split()
    return int(rows), int(mapped)


@pytest.fixture(scope="module")
def workbook(tmp_path_factory) -> str:
    import xlsxwriter

    path = str(tmp_path_factory.mktemp("memory") / "numbers.xlsx")
    book = xlsxwriter.Workbook(path)
    sheet = book.add_worksheet("Data")
    sheet.write_row(0, 0, ["id", "x", "name"])
    for row in range(1, 1001):
        sheet.write_row(row, 0, [row, row / 4, f"name {row % 7}"])
    book.close()
    return path


def test_the_read_maps_big_blocks_whatever_was_freed_before(workbook):
    # glibc's own rule, without the read: the freed 1 MiB block raised the
    # threshold, and the 512 KiB come from the heap.
    assert read_in_fresh_worker(workbook, "none") == (0, 0)
    rows, mapped = read_in_fresh_worker(workbook)
    assert rows == 1000
    assert mapped >= 512 << 10


def test_a_threshold_set_in_the_environment_stands(workbook):
    assert read_in_fresh_worker(workbook, MALLOC_MMAP_THRESHOLD_=str(4 << 20)) == (1000, 0)
