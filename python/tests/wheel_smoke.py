"""The wheel on its own: run by .ci/run in a fresh virtual environment
outside the repository, where `sheetstream` can only come from the wheel
installed there (with fsspec and aiohttp for the URL, and nothing else:
no pyarrow, polars or pandas).

    python wheel_smoke.py FOLDER    # FOLDER holds sales.xlsx, sample.xlsb, sales.xls

It reads the three formats and the .xlsx behind a URL served from FOLDER
by http.server on 127.0.0.1, and checks the values."""

from __future__ import annotations

import datetime
import functools
import http.server
import pathlib
import sys
import threading

import sheetstream

folder = pathlib.Path(sys.argv[1]).resolve()
here = pathlib.Path(sheetstream.__file__).resolve()
assert "site-packages" in here.parts, f"sheetstream imported from {here}, not from the wheel"
for module in ("pyarrow", "polars", "pandas"):
    assert module not in sys.modules, f"{module} imported"

SALES = [
    ("Item", "Amount", "Sold on", "In stock", "Doubled"),
    ("apples", 10, datetime.date(2024, 3, 1), True, 20),
    ("pears", 20, datetime.date(2024, 3, 2), False, None),
    ("plums", 30, datetime.date(2024, 3, 5), True, None),
]


def rows(source: object) -> list[tuple[object, ...]]:
    """The first sheet: its header, then its rows as Python values."""
    with sheetstream.open(source) as workbook:
        sheet = workbook.sheet(0)
        return [tuple(sheet.column_names), *(tuple(row) for row in sheet.iter_rows())]


xlsx = rows(str(folder / "sales.xlsx"))
assert xlsx == SALES, xlsx
xls = rows(str(folder / "sales.xls"))  # LibreOffice's conversion of sales.xlsx
assert [row[:2] for row in xls] == [row[:2] for row in SALES], xls
xlsb = rows(str(folder / "sample.xlsb"))  # examples/write_xlsb_sample.rs
assert len(xlsb) > 2 and all(isinstance(name, str) for name in xlsb[0]), xlsb

class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


handler = functools.partial(Quiet, directory=str(folder))
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
try:
    url = f"http://127.0.0.1:{server.server_address[1]}/sales.xlsx"
    remote = rows(url)
    assert remote == xlsx, remote
finally:
    server.shutdown()
print(f"the wheel read .xlsx ({len(xlsx)} rows), .xls ({len(xls)}), .xlsb ({len(xlsb)}) and a URL")
