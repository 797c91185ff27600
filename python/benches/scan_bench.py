"""Peak memory of sheetstream.scan_excel in polars' streaming engine against
read_excel (issue 27): a filter, group-by and aggregation collected with
engine="streaming", and the whole sheet sunk to Parquet, each in a child
process of its own, on the 1M x 10 workbook. Not a test: the numbers
depend on the machine and its load.

    cargo run --release --example generate_bench_data   # target/bench-data
    python python/benches/scan_bench.py [--workbook PATH] [--cases a,b] [--batch-size N]

It also times the issue's two ratios: two columns selected against
read_excel of every column, and head(1000) against the whole read.

The workbook's first row is data, so it is read with header_row=None
(columns column_1 ... column_10): column_1 is a whole number, column_2 a
fraction, column_6 text with a few distinct values.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

REPO = pathlib.Path(__file__).resolve().parents[2]
WORKBOOK = REPO / "target" / "bench-data" / "one_sheet_1m_x10.xlsx"
OPTIONS: dict[str, Any] = {"header_row": None}
if os.environ.get("SCAN_BENCH_BATCH_SIZE"):
    OPTIONS["batch_size"] = int(os.environ["SCAN_BENCH_BATCH_SIZE"])


def peak_rss_mb() -> float:
    """VmHWM: the process's peak resident memory."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def query(frame: Any) -> Any:
    import polars as pl

    return (
        frame.filter(pl.col("column_2") > 0)
        .group_by("column_6")
        .agg(pl.len(), pl.col("column_1").sum(), pl.col("column_2").mean())
    )


def scan_group_by(path: str) -> int:
    import sheetstream

    result = query(sheetstream.scan_excel(path, **OPTIONS)).collect(engine="streaming")
    return int(result["len"].sum())


def read_group_by(path: str) -> int:
    import sheetstream

    result = query(sheetstream.read_excel(path, **OPTIONS))
    return int(result["len"].sum())


def scan_sink(path: str) -> int:
    import polars as pl

    import sheetstream

    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "out.parquet")
        sheetstream.scan_excel(path, **OPTIONS).sink_parquet(out)
        return int(pl.scan_parquet(out).select(pl.len()).collect().item())


def scan_two_columns(path: str) -> int:
    import sheetstream

    return sheetstream.scan_excel(path, **OPTIONS).select("column_1", "column_2").collect().height


def scan_head(path: str) -> int:
    import sheetstream

    return sheetstream.scan_excel(path, **OPTIONS).head(1000).collect().height


def read_all(path: str) -> int:
    import sheetstream

    return sheetstream.read_excel(path, **OPTIONS).height


def read_write(path: str) -> int:
    import polars as pl

    import sheetstream

    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "out.parquet")
        sheetstream.read_excel(path, **OPTIONS).write_parquet(out)
        return int(pl.scan_parquet(out).select(pl.len()).collect().item())


CASES: dict[str, Callable[[str], int]] = {
    "scan_excel group_by streaming": scan_group_by,
    "read_excel then group_by": read_group_by,
    "scan_excel sink_parquet": scan_sink,
    "read_excel write_parquet": read_write,
    "scan_excel select 2 columns": scan_two_columns,
    "scan_excel head(1000)": scan_head,
    "read_excel every column": read_all,
}


def child(case: str, path: str) -> None:
    import polars  # noqa: F401

    import sheetstream  # noqa: F401

    imports_mb = peak_rss_mb()
    start = time.perf_counter()
    cpu_start = time.process_time()
    rows = CASES[case](path)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(json.dumps({
        "wall": wall, "cpu": cpu, "peak_mb": peak_rss_mb(), "imports_mb": imports_mb, "rows": rows,
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workbook", default=str(WORKBOOK))
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument(
        "--batch-size", type=int, default=None,
        help="scan_excel's batch_size (default: polars' hint)",
    )
    parser.add_argument("--child", nargs=2, metavar=("CASE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.batch_size is not None:
        os.environ["SCAN_BENCH_BATCH_SIZE"] = str(args.batch_size)
    if args.child:
        child(*args.child)
        return
    if not pathlib.Path(args.workbook).exists():
        sys.exit(f"{args.workbook} is missing: cargo run --release --example generate_bench_data")
    print(
        f"{args.workbook}; {os.cpu_count()} cores; batch_size {args.batch_size or 'default'}; "
        "cpu: the child's CPU time, all its threads (steadier than wall on a busy box); "
        "peak: the child's peak RSS, imports included"
    )
    print(f"{'case':32} {'wall s':>8} {'cpu s':>7} {'peak MB':>8} {'imports MB':>11} {'rows':>9}")
    for case in args.cases.split(","):
        try:
            done = subprocess.run(
                [sys.executable, __file__, "--child", case, args.workbook],
                capture_output=True, text=True, timeout=args.timeout,
            )
        except subprocess.TimeoutExpired:
            print(f"{case:32} timed out after {args.timeout:.0f} s")
            continue
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{case:32} failed (exit {done.returncode}): {last[:160]}")
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"{case:32} {result['wall']:8.2f} {result['cpu']:7.2f} {result['peak_mb']:8.0f} "
            f"{result['imports_mb']:11.0f} {result['rows']:9d}",
            flush=True,
        )


if __name__ == "__main__":
    main()
