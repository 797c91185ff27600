"""read_sheet (the sheetstream DuckDB extension) against DuckDB's own
read_xlsx (its `excel` extension) on the 1M x 10 sheet, ratios from one
run. Not a test: the figures depend on the machine and its load.

    cargo run --release --example generate_bench_data   # target/bench-data
    python duckdb/bench.py [--workbook PATH] [--extension PATH] [--repeat N]

The peer: `INSTALL excel; LOAD excel` where extensions can be downloaded;
otherwise the `excel` extension from the pip wheel
`duckdb-extension-excel` when it is installed and built for this DuckDB
(the wheel follows DuckDB 1.x: run this script in an environment with
`duckdb==1.5.5 duckdb-extension-excel==1.5.5`; read_sheet asks for C API
v1.2.0, so it loads there too); failing both, sheetstream.read_excel to
pyarrow queried by DuckDB, and the script says so.

Cases (the sheet's first row is data: header := false, columns column_1
... column_10; column_1 whole numbers, column_2 fractions):
  count+sum   select count(*), sum(column_1)
  2 columns   select sum(column_1), sum(column_2)
  10 columns  count() of each of the ten columns
  glob of 8   the 125k x 10 sheet as 8 files by glob, 2 threads against 1
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Optional

import duckdb
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python" / "benches"))
import results  # noqa: E402  (python/benches/results.py)

REPO = pathlib.Path(__file__).resolve().parents[1]
DATA = REPO / "target" / "bench-data"


def best(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def load_excel(con: duckdb.DuckDBPyConnection) -> Optional[str]:
    """Loads DuckDB's excel extension; says from where, None when it cannot."""
    try:
        con.execute("INSTALL excel; LOAD excel")
        return "INSTALL excel"
    except duckdb.Error as err:
        print(f"INSTALL excel failed: {str(err).splitlines()[0]}")
    try:
        import duckdb_extension_excel  # type: ignore[import-not-found]
    except ImportError:
        print("the duckdb-extension-excel wheel is not installed")
        return None
    folder = pathlib.Path(duckdb_extension_excel.__file__).parent
    for path in sorted(folder.rglob("excel.duckdb_extension")):
        try:
            con.execute(f"LOAD '{path}'")
            return f"the duckdb-extension-excel wheel ({path.parent.name})"
        except duckdb.Error as err:
            print(f"{path}: {str(err).splitlines()[0]}")
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workbook", type=pathlib.Path, default=DATA / "one_sheet_1m_x10.xlsx")
    parser.add_argument("--small", type=pathlib.Path, default=DATA / "one_sheet_125k_x10.xlsx")
    parser.add_argument(
        "--extension",
        type=pathlib.Path,
        default=pathlib.Path(
            os.environ.get("SHEETSTREAM_DUCKDB_EXTENSION", REPO / "target/release/sheetstream.duckdb_extension")
        ),
    )
    parser.add_argument("--cli", type=pathlib.Path, default=REPO / "target/release/sheetstream")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    path = args.workbook
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{args.extension}'")
    con.execute("SET threads = 2")
    print(f"duckdb {duckdb.__version__}, {os.cpu_count()} cores, threads = 2, {path.name}")
    peer = load_excel(con)
    ours = f"read_sheet('{path}', header := false)"
    # read_xlsx names the columns of a headerless sheet by their first
    # cell (A1 ... J1): renamed to read_sheet's names.
    renamed = ", ".join(f"{chr(ord('A') + i)}1 as column_{i + 1}" for i in range(10))
    theirs = f"(select {renamed} from read_xlsx('{path}', header := false))"

    rows: list[tuple[str, float, float, str]] = []

    def case(name: str, ours_sql: str, peer_run: Callable[[], Any]) -> None:
        t_ours, r_ours = best(lambda: con.execute(ours_sql).fetchall(), args.repeat)
        t_peer, r_peer = best(peer_run, args.repeat)
        print(f"  {name}: read_sheet {r_ours[0]}, peer {r_peer}")
        rows.append((name, t_ours, t_peer, "read_xlsx" if peer else "read_excel→arrow"))

    if peer:
        print(f"peer: DuckDB's read_xlsx, from {peer}")
        def peer_sql(select: str) -> Callable[[], Any]:
            return lambda: con.execute(select.format(source=theirs)).fetchall()[0]
    else:
        print("peer: DuckDB's excel extension could not be loaded; sheetstream.read_excel "
              "(pyarrow, two threads) queried by DuckDB instead")
        import sheetstream

        def peer_sql(select: str) -> Callable[[], Any]:
            def run() -> Any:
                table = sheetstream.read_excel(str(path), to="pyarrow", header_row=None, threads=2)
                return duckdb.connect().execute(select.format(source="table")).fetchall()[0]
            return run

    count_sum = "select count(*), sum(column_1) from {source}"
    two = "select sum(column_1), sum(column_2) from {source}"
    ten = "select " + ", ".join(f"count(column_{i})" for i in range(1, 11)) + " from {source}"
    case("count+sum", count_sum.format(source=ours), peer_sql(count_sum))
    case("2 columns", two.format(source=ours), peer_sql(two))
    case("10 columns", ten.format(source=ours), peer_sql(ten))

    print("\n| query | read_sheet s | peer s | peer / read_sheet |")
    print("|---|---|---|---|")
    for name, t_ours, t_peer, peer_name in rows:
        print(f"| {name} | {t_ours:.2f} | {t_peer:.2f} ({peer_name}) | {t_peer / t_ours:.1f}x |")

    if args.cli.is_file():
        start = time.perf_counter()
        subprocess.run([str(args.cli), "count", str(path)], check=True, capture_output=True)
        t_cli = time.perf_counter() - start
        print(f"\nsheetstream count (CLI): {t_cli:.2f} s; read_sheet count+sum / CLI count: {rows[0][1] / t_cli:.2f}")

    folder = pathlib.Path(tempfile.mkdtemp())
    try:
        for i in range(8):
            shutil.copyfile(args.small, folder / f"part{i}.xlsx")
        glob = f"select count(*), sum(column_1) from read_sheet('{folder}/*.xlsx', header := false)"
        timings = {}
        for threads in (1, 2):
            con.execute(f"SET threads = {threads}")
            timings[threads], result = best(lambda: con.execute(glob).fetchall(), args.repeat)
            print(f"8 files by glob, threads = {threads}: {timings[threads]:.2f} s {result[0]}")
        print(f"8 files: 1 thread / 2 threads = {timings[1] / timings[2]:.2f}x")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    with results.recorded("duckdb"):
        main()
