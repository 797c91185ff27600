#!/usr/bin/env python3
"""Differential test of `sheetstream cells --formatted` against LibreOffice.

LibreOffice (headless soffice) converts each workbook to CSV "as shown"
(the CSV filter's token 9, "save cell contents as shown", true; token 12 =
-1 writes every sheet, LibreOffice >= 7.2), and each cell's text is
compared with the `"text"` sheetstream gives it. The workbooks: the
project's own (examples/data/*.xlsx and the format samples that
`cargo run --example write_format_samples` writes) and a deterministic
sample of the conformance corpus: the files under MAX_BYTES, sorted by
path, every STEP-th of them (`--step`; 1 takes them all).

Every difference must be listed in the known-differences file (one line a
difference: file, sheet, cell, kind, sheetstream's text, LibreOffice's
text; the reasons per kind, REASONS below, are the file's comment lines). A difference not
listed fails; a listed one that no longer occurs is reported, to be
removed: the list may only shrink. `--write-known` rewrites the list from
this run (for a reviewed change).

Usage: differential.py --bin target/release/sheetstream --corpus DIR
       [--samples FILE] [--step N] [--known FILE] [--write-known]
"""

import argparse
import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

MAX_BYTES = 256 * 1024
# Corpus files with volatile functions in their formulas are left out of
# the sample: LibreOffice recalculates those on every load, so its text
# would change from run to run.
VOLATILE = re.compile(rb"<(?:\w+:)?f\b[^>]*>[^<]*\b(?:RAND|RANDBETWEEN|RANDARRAY|TODAY|NOW)\(")


def is_volatile(path):
    import zipfile
    try:
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                    if VOLATILE.search(archive.read(name)):
                        return True
    except Exception:
        return False
    return False


BATCH = 40
BATCH_SECONDS = 120
FILE_SECONDS = 30
FILTER = "csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,true,false,false,-1"


def column_index(letters):
    index = 0
    for letter in letters:
        index = index * 26 + ord(letter) - ord("A") + 1
    return index - 1


def split_ref(ref):
    match = re.fullmatch(r"([A-Z]+)([0-9]+)", ref)
    return int(match.group(2)) - 1, column_index(match.group(1))


def ref_name(row, column):
    letters = ""
    column += 1
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"{letters}{row + 1}"


# LibreOffice shows the values the file holds, as Excel would, instead of
# recalculating formulas on load (its default for files Excel did not write).
PROFILE_SETTINGS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>1</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>1</value></prop></item>
</oor:items>
"""


def run_soffice(files, convert_to, out_dir, profile, seconds):
    """One soffice call converting `files` with the filter `convert_to`
    into a new folder, killed with its children after `seconds`; returns
    the folder and what soffice printed. (binary_differential.py too.)"""
    batch_dir = Path(tempfile.mkdtemp(dir=out_dir))
    command = [
        "soffice", "--headless", "--norestore", "--nolockcheck",
        f"-env:UserInstallation=file://{profile}",
        "--convert-to", convert_to, "--outdir", str(batch_dir), *files,
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        log, _ = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        log, _ = process.communicate()
    return batch_dir, log or ""


def convert_in_batches(files, profile, one_batch, batch_seconds):
    """Converts files with `one_batch(files, seconds)` (a dict keyed by the
    files it converted) in batches of BATCH whose stems are distinct
    (soffice names its outputs by stem); a batch that runs past its time is
    converted again file by file, each with FILE_SECONDS. Sets up the
    LibreOffice profile first. (binary_differential.py too.)"""
    (profile / "user").mkdir(parents=True, exist_ok=True)
    (profile / "user" / "registrymodifications.xcu").write_text(PROFILE_SETTINGS)
    converted = {}
    pending = list(files)
    while pending:
        batch, stems, rest = [], set(), []
        for path in pending:
            stem = Path(path).stem
            if stem in stems or len(batch) >= BATCH:
                rest.append(path)
            else:
                stems.add(stem)
                batch.append(path)
        pending = rest
        started = time.monotonic()
        done = one_batch(batch, batch_seconds)
        converted.update(done)
        if time.monotonic() - started >= batch_seconds:
            left = [path for path in batch if path not in done]
            print(f"note: a LibreOffice batch ran past {batch_seconds} s; "
                  f"converting its {len(left)} other files one by one", file=sys.stderr)
            for path in left:
                converted.update(one_batch([path], FILE_SECONDS))
    return converted


def check_known(differences, known_path, write_known, header, held):
    """The ratchet: every difference (a tab-separated line, keyed by its
    first three fields and its fifth) must be in the list at `known_path`,
    which may only shrink; `write_known` rewrites the list under `header`.
    Returns the exit status. (binary_differential.py too.)"""
    def key(line):
        fields = line.split("\t")
        return "\t".join(fields[:3] + fields[4:5])

    known = {}
    if known_path.exists():
        for line in known_path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                known[key(line)] = line
    current = {key(line): line for line in differences}
    if write_known:
        known_path.write_text("\n".join(header + sorted(current.values())) + "\n",
                              encoding="utf-8")
        print(f"wrote {len(current)} differences to {known_path}")
        return 0
    listed = len(current.keys() & known.keys())
    print(f"  {listed} differences listed in {known_path.name}")
    new = sorted(current[k] for k in current.keys() - known.keys())
    gone = sorted(known[k] for k in known.keys() - current.keys())
    if gone:
        print(f"note: {len(gone)} listed differences no longer occur; remove them from {known_path}:")
        for line in gone[:20]:
            print("  " + line)
    if new:
        print(f"error: {len(new)} differences not listed in {known_path}:", file=sys.stderr)
        for line in new[:40]:
            print("  " + line, file=sys.stderr)
        return 1
    print(held)
    return 0


def csv_batch(out_dir, profile):
    """A batch converter for convert_in_batches: each workbook's sheets as
    CSV, {file: {sheet name: csv path}} from what soffice says it wrote."""
    def one_batch(files, seconds):
        _, log = run_soffice(files, FILTER, out_dir, profile, seconds)
        sheets = {}
        by_stem = {Path(path).stem: path for path in files}
        for line in log.splitlines():
            match = re.match(r"Writing sheet (.*) -> (.*)$", line.strip())
            if not match:
                continue
            target = Path(match.group(2))
            for stem, path in by_stem.items():
                if target.name.startswith(stem + "-"):
                    sheets.setdefault(path, {})[match.group(1)] = target
        return sheets
    return one_batch


def libreoffice_cells(csv_path):
    cells = {}
    try:
        text = Path(csv_path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return cells
    for row, record in enumerate(csv.reader(io.StringIO(text, newline=""))):
        for column, field in enumerate(record):
            if field != "":
                cells[(row, column)] = field
    return cells


def sheetstream_cells(binary, path):
    try:
        run = subprocess.run([binary, "cells", "--formatted", "-t", "1", "-q", path],
                             capture_output=True, text=True, timeout=FILE_SECONDS)
    except subprocess.TimeoutExpired:
        return None
    if run.returncode != 0:
        return None
    sheets = {}
    for line in run.stdout.splitlines():
        cell = json.loads(line)
        sheets.setdefault(cell["sheet"], {})[split_ref(cell["ref"])] = (
            cell["t"], cell["v"], cell["text"])
    return sheets


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def to_number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


# Each kind of difference and why it is not fixed; the known-differences
# file repeats these as its comment lines.
REASONS = {
    "General digits": "LibreOffice writes General numbers with up to 15 "
    "significant digits whatever the column width; Excel's General (and "
    "sheetstream's) fills the standard column: at most 11 characters",
    "same value, other notation": "both texts are the same number written "
    "differently (General's scientific switch, a trailing point as in "
    "`#.##` where Excel keeps the point)",
    "negative zero": "Excel shows a negative number that rounds to zero as "
    "-0 (`0` of -0.4); LibreOffice drops the sign",
    "date before 1900-03-01": "Excel counts the fictitious 1900-02-29 (serial "
    "60) and shows serial 0 as 1900-01-00; LibreOffice's serials start at "
    "1899-12-30, one day off before March 1900",
    "date Excel cannot show": "a negative or past-9999 serial in a date "
    "format: Excel shows ####, LibreOffice a proleptic date or #FMT; "
    "sheetstream keeps the number (General)",
    "seconds rounding": "Excel rounds the time to the shown unit (whole "
    "seconds, or the shown fraction); LibreOffice truncates",
    "letter case": "A/P shows as written in Excel (A or P); LibreOffice "
    "writes lower case",
    "spaces": "padding from `_x`, `*x` fills and `?` placeholders: Excel "
    "pads to the width of a character (sheetstream: one space each); "
    "LibreOffice pads or fills differently",
    "scientific mantissa": "`00.00E+00`: Excel fills the mantissa's integer "
    "placeholders with digits (12.35E+03); LibreOffice pads with zeros "
    "(01.23E+04)",
    "value LibreOffice recomputed": "LibreOffice recalculates formulas and "
    "rebuilds pivot tables of files Excel did not write, so it shows "
    "other values (or its own error codes, Err:502) than the file caches; "
    "sheetstream shows the cached values, as Excel does on open",
    "other": "a format feature the two render differently, each listed",
}


def kind_of(value_type, value, ours, theirs):
    """The kind of a difference (a key of REASONS)."""
    if value_type is None or theirs is None or value_type in ("b", "e", "s"):
        return "value LibreOffice recomputed"
    if value_type == "d" and value[:7] in ("1900-01", "1900-02", "1899-12"):
        return "date before 1900-03-01"
    if ours.lower() == theirs.lower():
        return "letter case"
    if ours.replace(" ", "") == theirs.replace(" ", ""):
        return "spaces"
    ours_number, theirs_number = to_number(ours), to_number(theirs)
    if value_type == "n" and isinstance(value, (int, float)):
        if (value < 0 or value >= 2958466) and (
                theirs == "#FMT" or (ours_number is not None and theirs_number is None)
                or ours.lstrip("-") == theirs.lstrip("-")):
            return "date Excel cannot show"
    if ours.startswith("-") and ours[1:] == theirs and set(theirs) <= set("0.,%E+ "):
        return "negative zero"
    if ours_number is not None and theirs_number is not None:
        if ours_number == theirs_number:
            return "same value, other notation"
        if abs(ours_number - theirs_number) <= 1e-9 * max(abs(theirs_number), 1e-300) * 1e4:
            return "General digits"
    if "E" in ours and "E" in theirs:
        mantissa = lambda text: to_number(text.replace(",", ""))
        if mantissa(ours) is not None and mantissa(ours) == mantissa(theirs):
            return "scientific mantissa"
    if value_type == "d" and len(ours) == len(theirs):
        return "seconds rounding"
    if ours_number is not None and (theirs_number is not None or re.search(r"[^\W\d_]", theirs)):
        # A number where LibreOffice shows another number or words: a
        # recalculated formula or a rebuilt pivot table.
        return "value LibreOffice recomputed"
    return "other"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--samples", action="append", default=[])
    parser.add_argument("--step", type=int, default=6)
    parser.add_argument("--known", default=str(Path(__file__).with_name("known-differences.tsv")))
    parser.add_argument("--write-known", action="store_true")
    args = parser.parse_args()

    root = Path(__file__).resolve().parents[2]
    corpus = Path(args.corpus).resolve()
    own = sorted(str(p) for p in (root / "examples" / "data").glob("*.xlsx"))
    own += [str(Path(p).resolve()) for p in args.samples]
    corpus_files = sorted(
        str(p) for p in corpus.rglob("*.xlsx")
        if p.stat().st_size <= MAX_BYTES and not is_volatile(p))
    sample = corpus_files[::max(args.step, 1)]
    files = own + sample
    started = time.monotonic()
    ours_by_file = {path: sheetstream_cells(args.bin, path) for path in files}
    readable = [path for path in files if ours_by_file[path] is not None]
    with tempfile.TemporaryDirectory() as work:
        profile = Path(work) / "profile"
        converted = convert_in_batches(readable, profile, csv_batch(work, profile),
                                       BATCH_SECONDS)
        converted_seconds = time.monotonic() - started

        def display(path):
            path = Path(path).resolve()
            for base, label in ((corpus, "corpus"), (root, "")):
                try:
                    relative = path.relative_to(base)
                    return f"{label}/{relative}" if label else str(relative)
                except ValueError:
                    pass
            return path.name

        compared = equal = 0
        differences = []
        skipped = []
        for path in files:
            ours = ours_by_file[path]
            theirs = converted.get(path)
            if ours is None or theirs is None:
                skipped.append(display(path))
                continue
            for sheet, csv_path in sorted(theirs.items()):
                their_cells = libreoffice_cells(csv_path)
                our_cells = ours.get(sheet, {})
                for position in sorted(set(our_cells) | set(their_cells)):
                    value_type, value, our_text = our_cells.get(position, (None, None, None))
                    their_text = their_cells.get(position)
                    if our_text == "" and their_text is None:
                        continue
                    compared += 1
                    if our_text == their_text:
                        equal += 1
                        continue
                    kind = kind_of(value_type, value, our_text, their_text)
                    differences.append("\t".join([
                        display(path), sheet, ref_name(*position), kind,
                        json.dumps(our_text, ensure_ascii=False),
                        json.dumps(their_text, ensure_ascii=False),
                    ]))
    seconds = time.monotonic() - started
    kinds = Counter(line.split("\t")[3] for line in differences)
    print(f"differential against LibreOffice: {len(files) - len(skipped)} workbooks "
          f"({len(own)} own, {len(sample)} of {len(corpus_files)} corpus files sampled), "
          f"{compared} cells compared, {equal} equal, {len(differences)} differ; "
          f"{converted_seconds:.0f} s converting, {seconds:.0f} s in all")
    for kind, count in sorted(kinds.items(), key=lambda item: -item[1]):
        print(f"  {count:6}  {kind}")
    if skipped:
        print(f"  left out (not read by one side): {len(skipped)}: {', '.join(skipped[:10])}")

    # A difference is keyed by file, sheet, cell and sheetstream's text;
    # the kind and LibreOffice's text are kept for the reader.
    header = [
        "# Known differences between `sheetstream cells --formatted` and LibreOffice's",
        "# CSV export as shown (tests/formats/differential.py): file, sheet, cell,",
        "# kind, sheetstream's text, LibreOffice's text. The list may only shrink.",
        "# The kinds and why each is not fixed:",
    ]
    header += [f"#   {kind}: {reason}" for kind, reason in REASONS.items()]
    return check_known(differences, Path(args.known), args.write_known, header,
                       "differential held: every difference is listed")


if __name__ == "__main__":
    sys.exit(main())
