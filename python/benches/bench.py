"""Benchmark: sheetstream against the Python Excel readers.

Each reader runs in a child process of its own, once per workbook; the
table gives the wall time of the read (imports left out) and the child's
peak resident memory (imports included, and shown apart). Not a test:
the numbers depend on the machine and its load.

    cargo run --release --example generate_bench_data   # target/bench-data
    python python/benches/bench.py [--readers a,b] [--workbooks x,y] [--timeout 600]

Readers whose package is not installed are reported as such. Every
reader reads every worksheet of the workbook into its own in-memory form
(a DataFrame, an Arrow table, Python lists); `sheetstream-iter_rows`,
`python-calamine` (`to_python()`) and `openpyxl-readonly`
(`iter_rows(values_only=True)`) build Python values row by row;
`sheetstream-sheets` (`read_excel_sheets`) and `polars-calamine`
(`read_excel(sheet_id=0)`) give a frame per sheet.

`many_sheets_1024.xlsx` (written here: 1,024 empty worksheets) is the
fixed cost of a sheet: `sheetstream-sheets` against `polars-calamine`,
their ratio printed from the same run. A path given in --workbooks is read
as it is (the corpus' `openpyxl/bigfoot.xlsx`, 1,024 sheets, for one).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import time
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import results  # noqa: E402  (python/benches/results.py)

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "target" / "bench-data"

WORKBOOKS = [
    "one_sheet_1m_x10.xlsx",
    "eight_sheets_125k_x10.xlsx",
    "inline_strings_200k_x10.xlsx",
    "eight_sheets_5k_x4.xlsx",
    "corner_cells.xlsx",
    "many_sheets_1024.xlsx",
]


def sheet_names(path: str) -> list[str]:
    import sheetstream

    return [s.name for s in sheetstream.open(path).sheets if s.kind == "worksheet"]


def read_sheetstream(path: str, to: str) -> int:
    import sheetstream

    if to == "iter_rows":
        workbook = sheetstream.open(path)
        count = 0
        for name in sheet_names(path):
            for _row in workbook.sheet(name).iter_rows():
                count += 1
        return count
    frame = sheetstream.read_excel(path, sheet=None, to=to)
    return frame.num_rows if to == "pyarrow" else len(frame)


def read_sheetstream_sheets(path: str) -> int:
    import sheetstream

    frames = sheetstream.read_excel_sheets(path)
    return sum(len(frame) for frame in frames.values())


def read_fastexcel(path: str) -> int:
    import fastexcel

    reader = fastexcel.read_excel(path)
    rows = 0
    for name in reader.sheet_names:
        rows += len(reader.load_sheet_by_name(name).to_polars())
    return rows


def read_python_calamine(path: str) -> int:
    from python_calamine import CalamineWorkbook

    workbook = CalamineWorkbook.from_path(path)
    return sum(len(workbook.get_sheet_by_name(name).to_python()) for name in workbook.sheet_names)


def read_polars(path: str) -> int:
    import polars

    # raise_if_empty=False: an empty sheet (the many-sheet workbook's) is
    # a frame, not polars' NoDataError.
    frames = polars.read_excel(path, sheet_id=0, engine="calamine", raise_if_empty=False)
    return sum(len(frame) for frame in frames.values())


def read_pandas(path: str, engine: str) -> int:
    import pandas

    frames = pandas.read_excel(path, sheet_name=None, engine=engine)
    return sum(len(frame) for frame in frames.values())


def read_openpyxl(path: str) -> int:
    import openpyxl

    workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    rows = 0
    for sheet in workbook.worksheets:
        for _row in sheet.iter_rows(values_only=True):
            rows += 1
    workbook.close()
    return rows


READERS = {
    "sheetstream-polars": (("sheetstream", "polars"), lambda p: read_sheetstream(p, "polars")),
    "sheetstream-pyarrow": (("sheetstream", "pyarrow"), lambda p: read_sheetstream(p, "pyarrow")),
    "sheetstream-pandas": (("sheetstream", "pandas", "pyarrow"), lambda p: read_sheetstream(p, "pandas")),
    "sheetstream-iter_rows": (("sheetstream",), lambda p: read_sheetstream(p, "iter_rows")),
    "sheetstream-sheets": (("sheetstream", "polars"), read_sheetstream_sheets),
    "fastexcel": (("fastexcel", "polars", "pyarrow"), read_fastexcel),
    "python-calamine": (("python_calamine",), read_python_calamine),
    "polars-calamine": (("polars", "fastexcel", "pyarrow"), read_polars),
    "pandas-openpyxl": (("pandas", "openpyxl"), lambda p: read_pandas(p, "openpyxl")),
    "pandas-calamine": (("pandas", "python_calamine"), lambda p: read_pandas(p, "calamine")),
    "openpyxl-readonly": (("openpyxl",), read_openpyxl),
}


def peak_rss_mb() -> float:
    """The process's peak resident memory: VmHWM (ru_maxrss would carry
    the parent's peak across exec)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def child(reader: str, path: str) -> None:
    modules, read = READERS[reader]
    for module in modules:
        __import__(module)
    imports_mb = peak_rss_mb()
    start = time.perf_counter()
    rows = read(path)
    wall = time.perf_counter() - start
    print(json.dumps({"wall": wall, "peak_mb": peak_rss_mb(), "imports_mb": imports_mb, "rows": rows}))


def write_corner_cells(path: pathlib.Path) -> None:
    """A workbook with cells at A1 and XFD1048576 only."""
    import xlsxwriter

    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet("Corners")
    sheet.write(0, 0, "top left")
    sheet.write(1_048_575, 16_383, "bottom right")
    workbook.close()


def write_many_sheets(path: pathlib.Path, sheets: int = 1024) -> None:
    """A workbook of `sheets` empty worksheets."""
    import xlsxwriter

    workbook = xlsxwriter.Workbook(str(path))
    for index in range(sheets):
        workbook.add_worksheet(f"Sheet{index + 1}")
    workbook.close()


def available(reader: str) -> str | None:
    import importlib.util

    for module in READERS[reader][0]:
        if importlib.util.find_spec(module) is None:
            return f"{module} not installed"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readers", default=",".join(READERS))
    parser.add_argument("--workbooks", default=",".join(WORKBOOKS))
    parser.add_argument("--timeout", type=float, default=600, help="seconds per reader and workbook")
    parser.add_argument("--corner-timeout", type=float, default=30, help="seconds per reader on the corner-cell workbook")
    parser.add_argument("--child", nargs=2, metavar=("READER", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return

    corner = DATA / "corner_cells.xlsx"
    if not corner.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        write_corner_cells(corner)
    many = DATA / "many_sheets_1024.xlsx"
    if not many.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        write_many_sheets(many)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; wall: the read, imports left out; peak: the process's peak RSS")
    print(f"{'workbook':30} {'reader':24} {'wall s':>9} {'peak MB':>9} {'imports MB':>11} {'rows':>9}")
    for name in args.workbooks.split(","):
        path = DATA / name
        if not path.exists():
            print(f"{name:30} missing: cargo run --release --example generate_bench_data")
            continue
        results: dict[str, dict[str, float]] = {}
        timeout = args.corner_timeout if name == "corner_cells.xlsx" else args.timeout
        for reader in args.readers.split(","):
            missing = available(reader)
            if missing:
                print(f"{name:30} {reader:24} {missing}")
                continue
            try:
                done = subprocess.run(
                    [sys.executable, __file__, "--child", reader, str(path)],
                    capture_output=True, text=True, timeout=timeout,
                )
            except subprocess.TimeoutExpired:
                print(f"{name:30} {reader:24} timed out after {timeout:.0f} s")
                continue
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["?"])[-1]
                print(f"{name:30} {reader:24} failed (exit {done.returncode}): {last[:120]}")
                continue
            result = json.loads(done.stdout.strip().splitlines()[-1])
            results[reader] = result
            print(
                f"{name:30} {reader:24} {result['wall']:9.3f} {result['peak_mb']:9.0f} "
                f"{result['imports_mb']:11.0f} {result['rows']:9d}", flush=True,
            )
        ours = results.get("sheetstream-polars")
        theirs = results.get("fastexcel")
        if ours and theirs:
            print(
                f"{name:30} sheetstream-polars vs fastexcel: {theirs['wall'] / ours['wall']:.1f}x faster, "
                f"{ours['peak_mb'] / theirs['peak_mb']:.2f} of its peak RSS"
            )
        sheets = results.get("sheetstream-sheets")
        polars = results.get("polars-calamine")
        if sheets and polars:
            print(
                f"{name:30} sheetstream-sheets vs polars-calamine: {sheets['wall'] / polars['wall']:.2f}x "
                f"the time, {sheets['peak_mb'] / polars['peak_mb']:.2f}x the peak RSS "
                "(target: at most 1x both)"
            )
        rows = results.get("sheetstream-iter_rows")
        for peer in ("openpyxl-readonly", "python-calamine"):
            if rows and peer in results:
                print(f"{name:30} sheetstream-iter_rows vs {peer}: {results[peer]['wall'] / rows['wall']:.1f}x faster")


if __name__ == "__main__":
    with results.recorded("python"):
        main()
