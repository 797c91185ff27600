#!/usr/bin/env python3
"""Turn the built cdylib into a DuckDB extension file.

DuckDB loads an extension only if the file ends in a 512-byte footer:
eight 32-byte NUL-padded ASCII fields, stored last field first, then a
256-byte signature (zeros here: the extension is unsigned, so DuckDB must
run with ``allow_unsigned_extensions``). DuckDB reverses the fields and
reads them as:

    0  magic value, "4"
    1  platform, as ``PRAGMA platform`` prints it (``linux_amd64``)
    2  for the C_STRUCT ABI: the lowest C extension API version the
       extension asks for (``v1.2.0``, the version the entry point passes
       to ``get_api``: duckdb-loadable-macros' default); any DuckDB whose
       C API is that version or newer loads it
    3  the extension's own version
    4  ABI type: ``C_STRUCT`` (the extension calls DuckDB only through the
       function table of the C extension API, so it is not tied to one
       DuckDB release as a C++ extension is)
    5-7  unused

A 22-byte WebAssembly custom-section header precedes the 512 bytes in
DuckDB's own tooling (so that a Wasm build stays valid); native loading
reads only the last 512 bytes, and it is written here too so that the
file has the layout DuckDB's tools produce.

Usage: package.py LIBRARY OUTPUT [--platform P] [--capi-version V]
[--extension-version V]; without --platform, the platform of the duckdb
Python package is used when it is installed.
"""

from __future__ import annotations

import argparse
import shutil
import sys

FIELD = 32
SIGNATURE = 256


def field(text: str) -> bytes:
    raw = text.encode("ascii")
    if len(raw) > FIELD:
        raise SystemExit(f"metadata field longer than {FIELD} bytes: {text!r}")
    return raw + b"\0" * (FIELD - len(raw))


def wasm_section_header() -> bytes:
    # Custom section (id 0) of 531 bytes (LEB128 0x93 0x04): the name's
    # length and name, then 512 bytes (LEB128 0x80 0x04) of payload.
    name = b"duckdb_signature"
    return bytes([0, 0x93, 0x04, len(name)]) + name + bytes([0x80, 0x04])


def footer(platform: str, capi_version: str, extension_version: str) -> bytes:
    fields = [
        "4",
        platform,
        capi_version,
        extension_version,
        "C_STRUCT",
        "",
        "",
        "",
    ]
    body = b"".join(field(text) for text in reversed(fields))
    return wasm_section_header() + body + b"\0" * SIGNATURE


def default_platform() -> str:
    try:
        import duckdb  # type: ignore[import-not-found]
    except ImportError:
        raise SystemExit("--platform is required when the duckdb package is not installed")
    row = duckdb.connect().execute("PRAGMA platform").fetchone()
    assert row is not None
    return str(row[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library", help="the built shared library (libsheetstream_duckdb.so)")
    parser.add_argument("output", help="the extension file to write (sheetstream.duckdb_extension)")
    parser.add_argument("--platform", help="DuckDB's platform name (default: the duckdb package's)")
    parser.add_argument("--capi-version", default="v1.2.0")
    parser.add_argument("--extension-version", default="v0.1.0")
    args = parser.parse_args()
    platform = args.platform or default_platform()
    shutil.copyfile(args.library, args.output)
    with open(args.output, "ab") as out:
        out.write(footer(platform, args.capi_version, args.extension_version))
    print(f"{args.output}: {platform}, C API {args.capi_version}, C_STRUCT", file=sys.stderr)


if __name__ == "__main__":
    main()
