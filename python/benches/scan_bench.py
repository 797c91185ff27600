"""Peak memory of sheetstream.scan_excel in polars' streaming engine against
read_excel (issue 27): a filter, group-by and aggregation collected with
engine="streaming", and the whole sheet sunk to Parquet, each in a child
process of its own, on the 1M x 10 workbook. Not a test: the numbers
depend on the machine and its load.

    cargo run --release --example generate_bench_data   # target/bench-data
    python python/benches/scan_bench.py [--workbook PATH] [--cases a,b] [--batch-size N] [--repeat N]

It also times the issue's two ratios, printed after the table with their
targets: read_excel of every column over two columns selected (at least
2x), and head(1000) as a share of the whole read (under 5%). Each case
runs --repeat times (3 by default), each time in a fresh child; the table
shows the run with the least wall time (the peak is the largest seen),
and the ratios are taken from those best runs.

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
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case; the best is shown")
    parser.add_argument("--child", nargs=2, metavar=("CASE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.batch_size is not None:
        os.environ["SCAN_BENCH_BATCH_SIZE"] = str(args.batch_size)
    if args.child:
        child(*args.child)
        return
    if not pathlib.Path(args.workbook).exists():
        sys.exit(f"{args.workbook} is missing: cargo run --release --example generate_bench_data")
    load = ", ".join(f"{figure:.2f}" for figure in os.getloadavg())
    print(
        f"{args.workbook}; {os.cpu_count()} cores, load average {load}; "
        f"batch_size {args.batch_size or 'default'}; best of {args.repeat} runs; "
        "cpu: the child's CPU time, all its threads (steadier than wall on a busy box); "
        "peak: the child's peak RSS, imports included"
    )
    print(f"{'case':32} {'wall s':>8} {'cpu s':>7} {'peak MB':>8} {'imports MB':>11} {'rows':>9}")
    best: dict[str, dict[str, Any]] = {}
    for case in args.cases.split(","):
        result = run_case(case, args.workbook, args.timeout, max(args.repeat, 1))
        if result is None:
            continue
        best[case] = result
        print(
            f"{case:32} {result['wall']:8.3f} {result['cpu']:7.2f} {result['peak_mb']:8.0f} "
            f"{result['imports_mb']:11.0f} {result['rows']:9d}",
            flush=True,
        )
    full = best.get("read_excel every column")
    select = best.get("scan_excel select 2 columns")
    head = best.get("scan_excel head(1000)")
    if full and select:
        ratio = full["wall"] / select["wall"]
        cpu_ratio = full["cpu"] / select["cpu"]
        print(
            f"read_excel every column / scan_excel select 2 columns: {ratio:.2f}x wall "
            f"({cpu_ratio:.2f}x cpu); target at least 2x: {'met' if ratio >= 2 else 'NOT met'}"
        )
    if full and head:
        share = head["wall"] / full["wall"]
        print(
            f"scan_excel head(1000) / read_excel every column: {share:.1%} of the wall time; "
            f"target under 5%: {'met' if share < 0.05 else 'NOT met'}"
        )


def run_case(case: str, workbook: str, timeout: float, repeat: int) -> dict[str, Any] | None:
    """Runs a case `repeat` times, each in a child of its own: the run with
    the least wall time, with the largest peak seen; None (after saying
    why) when a run fails."""
    best: dict[str, Any] | None = None
    for _ in range(repeat):
        try:
            done = subprocess.run(
                [sys.executable, __file__, "--child", case, workbook],
                capture_output=True, text=True, timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            print(f"{case:32} timed out after {timeout:.0f} s")
            return None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{case:32} failed (exit {done.returncode}): {last[:160]}")
            return None
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if best is None:
            best = result
        else:
            peak = max(best["peak_mb"], result["peak_mb"])
            if result["wall"] < best["wall"]:
                best = result
            best["peak_mb"] = peak
    return best

if __name__ == "__main__":
    main()
