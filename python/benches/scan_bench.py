"""Peak memory of sheetstream.scan_excel in polars' streaming engine against
read_excel (issue 27): a filter, group-by and aggregation collected with
engine="streaming", and the whole sheet sunk to Parquet, each in a child
process of its own, on the 1M x 10 workbook. Not a test: the numbers
depend on the machine and its load.

    cargo run --release --example generate_bench_data   # target/bench-data
    python python/benches/scan_bench.py [--workbook PATH] [--cases a,b] [--batch-size N] [--repeat N]

It also times the issue's two ratios, printed after the table with their
targets: read_excel of every column over two columns selected (at least
2x), and head(1000) as a share of the whole read (under 5%). The cases
take turns, --repeat rounds (3 by default), each run in a fresh child;
the table shows each case's run with the least wall time (the peak is
the largest seen), and the ratios are taken from those best runs. The
selection's ratio is also given round by round (the two runs of a round
close together in time), with its median.

The workbook's first row is data, so it is read with header_row=None
(columns column_1 ... column_10): column_1 is a whole number, column_2 a
fraction, column_6 text with a few distinct values.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import results  # noqa: E402  (python/benches/results.py)

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
    parser.add_argument("--repeat", type=int, default=3, help="rounds of the cases; each case's best run is shown")
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
        f"batch_size {args.batch_size or 'default'}; best of {args.repeat} rounds (the cases take turns); "
        "cpu: the child's CPU time, all its threads (steadier than wall on a busy box); "
        "peak: the child's peak RSS, imports included"
    )
    print(f"{'case':32} {'wall s':>8} {'cpu s':>7} {'peak MB':>8} {'imports MB':>11} {'rows':>9}")
    cases = args.cases.split(",")
    rounds = run_rounds(cases, args.workbook, args.timeout, max(args.repeat, 1))
    best: dict[str, dict[str, Any]] = {}
    for case in cases:
        runs = [each[case] for each in rounds if case in each]
        if not runs:
            continue
        result = dict(min(runs, key=lambda run: run["wall"]))
        result["peak_mb"] = max(run["peak_mb"] for run in runs)
        best[case] = result
        print(
            f"{case:32} {result['wall']:8.3f} {result['cpu']:7.2f} {result['peak_mb']:8.0f} "
            f"{result['imports_mb']:11.0f} {result['rows']:9d}"
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
        paired = [
            each["read_excel every column"]["wall"] / each["scan_excel select 2 columns"]["wall"]
            for each in rounds
            if "read_excel every column" in each and "scan_excel select 2 columns" in each
        ]
        if len(paired) > 1:
            listed = ", ".join(f"{figure:.2f}" for figure in paired)
            print(f"  the same ratio round by round: {listed}; median {statistics.median(paired):.2f}x")
    if full and head:
        share = head["wall"] / full["wall"]
        print(
            f"scan_excel head(1000) / read_excel every column: {share:.1%} of the wall time; "
            f"target under 5%: {'met' if share < 0.05 else 'NOT met'}"
        )


def run_rounds(cases: list[str], workbook: str, timeout: float, repeat: int) -> list[dict[str, Any]]:
    """Runs every case once a round, `repeat` rounds, each run in a child
    of its own; the cases take turns (forwards, then backwards), so that
    the box slowing down or speeding up over the minutes falls on all of
    them alike. Returns each round's results by case; a case that fails or
    times out is said so and left out of the later rounds."""
    rounds: list[dict[str, Any]] = []
    failed: set[str] = set()
    for turn in range(repeat):
        results: dict[str, Any] = {}
        for case in cases if turn % 2 == 0 else cases[::-1]:
            if case in failed:
                continue
            result = run_once(case, workbook, timeout)
            if result is None:
                failed.add(case)
            else:
                results[case] = result
        rounds.append(results)
    return rounds


def run_once(case: str, workbook: str, timeout: float) -> dict[str, Any] | None:
    """One run of a case in a child of its own; None (after saying why)
    when it fails."""
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
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


if __name__ == "__main__":
    with results.recorded("python"):
        main()
