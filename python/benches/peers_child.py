"""One read by one Python reader, for `cargo bench --bench peers`
(benches/peers.rs), which runs this script once per measurement, each
time in a fresh process, and parses the one JSON line it prints.

    python python/benches/peers_child.py READER PATH HEADER

READER is one of the names in READERS; PATH a workbook; HEADER `1` when
the sheets' first row names the columns, `0` when it is data. Every
worksheet of the workbook is read into pyarrow (a Table or a
RecordBatch, whichever the reader returns): open included, imports not
(pyarrow and the reader's package are imported before the clock).
Printed: the wall and CPU seconds of the read, the process's peak RSS
(imports included), the rows read and each sheet's Arrow column types
(so that the driver can show which schemas the readers agree on).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Callable


def peak_rss_mb() -> float:
    """VmHWM: the process's peak resident memory."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def sheetstream_read(threads: int) -> Callable[[str, bool], list[Any]]:
    """sheetstream's Python package: each worksheet through
    `Workbook.sheet(..).to_arrow()` on `threads` (0: its default, a lone
    sheet inflated on one thread and read on another where there are two
    cores). With its default threads a workbook of several sheets is read
    with `read_excel_sheets` (sheets read at once, one per core)."""

    def read(path: str, header: bool) -> list[Any]:
        import sheetstream

        header_row = 0 if header else None
        with sheetstream.open(path) as workbook:
            positions = [info.position for info in workbook.sheets if info.kind == "worksheet"]
            if threads == 0 and len(positions) > 1:
                tables = sheetstream.read_excel_sheets(path, None, to="pyarrow", header_row=header_row)
                return list(tables.values())
            return [
                workbook.sheet(position, threads=threads, header_row=header_row).to_arrow()
                for position in positions
            ]

    return read


def excelreader_read(prefetch: bool | None) -> Callable[[str, bool], list[Any]]:
    """ExcelReader: each sheet through `Sheet.to_arrow(Sheet.infer_schema())`,
    as its documentation reads a sheet into Arrow. `prefetch` None is its
    default options (decompression prefetched on a second thread); False
    reads on one thread."""

    def read(path: str, header: bool) -> list[Any]:
        import excelreader

        header_row = 1 if header else 0
        options = None if prefetch is None else excelreader.OpenOptions(prefetch_decompression=prefetch)
        with excelreader.open_workbook(path, options=options) as workbook:
            batches = []
            for sheet in workbook.sheets:
                schema = sheet.infer_schema(header_row=header_row)
                batches.append(sheet.to_arrow(schema, header_row=header_row))
            return batches

    return read


def fastexcel_read(path: str, header: bool) -> list[Any]:
    """polars' Excel engine (calamine underneath): each sheet through
    `load_sheet(..).to_arrow()`."""
    import fastexcel

    reader = fastexcel.read_excel(path)
    header_row = 0 if header else None
    return [reader.load_sheet(name, header_row=header_row).to_arrow() for name in reader.sheet_names]


READERS: dict[str, tuple[str, Callable[[str, bool], list[Any]]]] = {
    "sheetstream-1t": ("sheetstream", sheetstream_read(1)),
    "sheetstream": ("sheetstream", sheetstream_read(0)),
    "excelreader-1t": ("excelreader", excelreader_read(False)),
    "excelreader": ("excelreader", excelreader_read(None)),
    "fastexcel": ("fastexcel", fastexcel_read),
}


def main() -> None:
    reader, path, header = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    package, read = READERS[reader]
    try:
        __import__(package)
    except ImportError as missing:
        print(json.dumps({"missing": str(missing)}))
        return
    import pyarrow  # noqa: F401

    if package == "excelreader":
        # Its native library is loaded on the first open: loaded here, as
        # importing the others loads theirs.
        from excelreader import _native

        _native.load_library()

    start = time.perf_counter()
    cpu_start = time.process_time()
    tables = read(path, header)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(json.dumps({
        "wall": wall,
        "cpu": cpu,
        "peak_mb": peak_rss_mb(),
        "rows": sum(table.num_rows for table in tables),
        "types": [[str(field.type) for field in table.schema] for table in tables],
    }))


if __name__ == "__main__":
    main()
