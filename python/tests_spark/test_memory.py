"""The source's read fixes glibc malloc's mmap threshold in the executor's
Python worker (``sheetstream.spark._fix_mmap_threshold``), so the Arrow
column buffers of freed batches are unmapped rather than kept in a heap
arena; an environment that sets the threshold keeps its own. Each case runs
in a fresh interpreter (the setting is per process), without a JVM: a read
through the source's own planning and ``read()``, or the fix alone."""

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

#: ``read``: reads the workbook through the source; ``fix``: calls the fix
#: alone; ``none``: neither. Then frees a 1 MiB block that malloc mapped and
#: asks for 512 KiB: with the threshold left to glibc, it rose to 1 MiB and
#: the 512 KiB come from the heap; fixed at 128 KiB, they are mapped. (After
#: a read, a free chunk the read left in the heap may serve them either
#: way, so a read's case checks that the fix ran, not the block.) Prints the
#: rows read, whether the fix ran (or found the environment's setting) and the bytes mapped by the last malloc.
SCRIPT = textwrap.dedent(
    """
    import ctypes, sys
    import sheetstream.spark as spark

    rows = 0
    if sys.argv[2] == "read":
        source = spark.SheetstreamDataSource({"path": sys.argv[1], "batchSize": "100"})
        reader = source.reader(source.schema())
        rows = sum(batch.num_rows for p in reader.partitions() for batch in reader.read(p))
    elif sys.argv[2] == "fix":
        spark._fix_mmap_threshold()

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
    print(rows, int(spark._mmap_threshold_fixed), mapped)
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
    rows, ran, mapped = done.stdout.split()
    return int(rows), int(ran), int(mapped)


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


def test_the_read_fixes_the_threshold(workbook):
    assert read_in_fresh_worker(workbook, "none")[:2] == (0, 0)
    rows, ran, _ = read_in_fresh_worker(workbook, "read")
    assert (rows, ran) == (1000, 1)


def test_a_fixed_threshold_maps_big_blocks_whatever_was_freed_before(workbook):
    # glibc's own rule, without the fix: the freed 1 MiB block raised the
    # threshold, and the 512 KiB come from the heap.
    assert read_in_fresh_worker(workbook, "none") == (0, 0, 0)
    _, ran, mapped = read_in_fresh_worker(workbook, "fix")
    assert ran == 1
    assert mapped >= 512 << 10


def test_a_threshold_set_in_the_environment_stands(workbook):
    assert read_in_fresh_worker(workbook, "fix", MALLOC_MMAP_THRESHOLD_=str(4 << 20)) == (0, 1, 0)
