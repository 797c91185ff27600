#!/usr/bin/env python3
"""Differential test of the binary readers (.xls, .xlsb) against LibreOffice.

LibreOffice (headless soffice) converts each workbook to the other format,
and `sheetstream cells` of the two files are compared cell by cell: the
value type and value (`t`, `v`) of each cell, not the formatted text (the
number-format renderer has its own differential, differential.py; here
the readers' decoding of records is under test, and a conversion keeps
the value while it may rewrite the format code). Three directions:

- `xls>xlsx`: a deterministic sample of the binary corpus's .xls files (the
  ones with an expected dump, under MAX_BYTES, sorted by path, every
  STEP-th) converted to .xlsx;
- `xlsx>xls`: the project's own workbooks (examples/data/*.xlsx and the
  `--samples` given) and a sample of the .xlsx corpus converted to .xls;
- `xlsb>xlsx`: a sample of the binary corpus's .xlsb files converted to
  .xlsx (LibreOffice reads .xlsb but does not write it);

and the writer's sample: the workbook the bench's `.xlsb` writer
(benches/support/xlsb_writer.rs) writes through `cargo run --example
write_xlsb_sample`, whose cells as written the example puts in a dump of
their own (`--xlsb-sample FILE.xlsb`, beside it `FILE.expected.jsonl`):
sheetstream's reading of the .xlsb (`xlsb`), and of the .xlsx (`xlsb>xlsx`)
and the .xls (`xlsb>xls`) LibreOffice converts it to, must give those
cells.

Every difference must be listed in the known-differences file (one line a
difference: direction and file, sheet, cell, kind, the original's value,
the conversion's value; the reasons per kind, REASONS below, are the
file's comment lines). A difference not listed fails; a listed one that no
longer occurs is reported, to be removed: the list may only shrink.
`--write-known` rewrites the list from this run (for a reviewed change).
Nothing is copied into the repository: conversions go to a temporary
folder.

Usage: binary_differential.py --bin target/release/sheetstream
       --corpus-binary DIR --corpus DIR [--samples FILE] [--xlsb-sample FILE]
       [--step-xls N] [--step-xlsx N] [--step-xlsb N] [--known FILE]
       [--write-known]
"""

import argparse
import datetime
import json
import math
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from differential import (  # noqa: E402
    FILE_SECONDS, check_known, convert_in_batches, is_volatile, run_soffice,
)

MAX_BYTES = 256 * 1024
# Corpus files left out of the sample, and why.
EXCLUDED = {
    "sheetjs/apachepoi_15228.xls.xlsb": "LibreOffice recalculates its 11,000 "
    "formulas (written by SheetJS from an .xls) to #N/A and 0; sheetstream "
    "reads the cached values the corpus expects",
    "sheetjs/apachepoi_49219.xls.xlsb": "as apachepoi_15228.xls.xlsb: 2,746 "
    "cached #REF! that LibreOffice recalculates to #N/A",
}
BATCH_SECONDS = 150
FILTERS = {"xlsx": "xlsx:Calc MS Excel 2007 XML", "xls": "xls:MS Excel 97"}


def convert(files, target, out_dir, profile):
    """Converts files to `target` ("xlsx" or "xls") through
    differential.py's batches; returns {file: converted}."""
    def one_batch(batch, seconds):
        batch_dir, _ = run_soffice(batch, FILTERS[target], out_dir, profile, seconds)
        converted = {}
        for path in batch:
            out = batch_dir / (Path(path).stem + "." + target)
            if out.exists() and out.stat().st_size > 0:
                converted[path] = str(out)
        return converted
    return convert_in_batches(files, profile, one_batch, BATCH_SECONDS)


def sheetstream_cells(binary, path):
    """{sheet: {ref: (t, v)}} in sheet order, or None when refused."""
    try:
        run = subprocess.run([binary, "cells", "-t", "1", "-q", path],
                             capture_output=True, text=True, timeout=FILE_SECONDS)
    except subprocess.TimeoutExpired:
        return None
    if run.returncode != 0:
        return None
    return parse_dump(run.stdout)


def parse_dump(text):
    sheets = {}
    for line in text.splitlines():
        if line.strip():
            cell = json.loads(line)
            sheets.setdefault(cell["sheet"], {})[cell["ref"]] = (cell["t"], cell["v"])
    return sheets


def pair_sheets(original, converted):
    """Pairs the sheets by name; the ones left over on both sides (names
    LibreOffice cut to 31 characters or renamed) in order."""
    pairs = [(name, name) for name in original if name in converted]
    left_original = [name for name in original if name not in converted]
    left_converted = [name for name in converted if name not in original]
    pairs += list(zip(left_original, left_converted))
    pairs += [(name, None) for name in left_original[len(left_converted):]]
    pairs += [(None, name) for name in left_converted[len(left_original):]]
    return pairs


def ref_position(ref):
    letters = "".join(ch for ch in ref if ch.isalpha())
    column = 0
    for letter in letters:
        column = column * 26 + ord(letter) - ord("A") + 1
    return int(ref[len(letters):]), column


# Differences accepted by an exact rule instead of cell by cell: each is
# what LibreOffice's conversion does to every such value, so a cell that
# differs otherwise is still a difference. Counted and printed, not listed.
RULES = {
    "15 significant digits": "LibreOffice writes a number in .xlsx with 15 "
    "significant digits: the conversion's number has at most 15 and lies "
    "within one unit of the 15th digit of the original's",
    "empty text dropped": "LibreOffice writes no cell for a constant empty "
    "string (`s` \"\"): the conversion has no cell where the original's is \"\"",
}


def fifteen_digits(original, converted):
    """Whether `converted` has at most 15 significant digits and lies
    within one unit of the 15th digit of `original` (LibreOffice's rounding
    is not always to the nearest: -9.578594039813161 becomes
    -9.57859403981317)."""
    if original == 0 or not math.isfinite(original) or float(f"{converted:.15g}") != converted:
        return False
    unit = 10.0 ** (math.floor(math.log10(abs(original))) - 14)
    return abs(original - converted) <= unit * (1 + 1e-9)


def rule_of(direction, ours, theirs):
    """The rule (a key of RULES) that accepts a difference, or None."""
    if (direction.endswith(">xlsx") and ours is not None and theirs is not None
            and ours[0] == theirs[0] == "n" and is_number(ours[1]) and is_number(theirs[1])
            and fifteen_digits(ours[1], theirs[1])):
        return "15 significant digits"
    if ">" in direction and ours == ("s", "") and theirs is None:
        return "empty text dropped"
    return None


# Each kind of difference and why it is not fixed; the known-differences
# file repeats these as its comment lines.
REASONS = {
    "past the .xls grid": "a cell past row 65,536 or column IV: the .xls format "
    "has no place for it, LibreOffice drops it when it writes .xls",
    "date before 1900-03-01": "LibreOffice's serials count from 1899-12-30 "
    "without Excel's fictitious 1900-02-29: a date before March 1900 moves "
    "by a day when LibreOffice writes it",
    "number digits": "a number within 1e-14 relative but more than one unit "
    "of the 15th digit away: a formula LibreOffice recalculated (IRR, NPV, "
    "trigonometry) in its own floating point",
    "line ends": "LibreOffice turns CR LF (and lone CR) in text into LF",
    "text LibreOffice changed": "other text: a recalculated TEXT() result, "
    "the labels of a pivot table LibreOffice rebuilt in its own words "
    "(\"Total Result\" for \"Grand Total\", \"(empty)\")",
    "error code": "another error code in the conversion: LibreOffice "
    "recalculated the formula and its functions fail otherwise (INDEX out "
    "of range: #VALUE! for Excel's #REF!, #N/A for #NAME?)",
    "boolean result as number": "a formula's boolean result: LibreOffice has "
    "no boolean cell type and writes the result as the number 1 or 0 (a "
    "date where the cell has a date format)",
    "text result written as 0": "a formula's cached text result that "
    "LibreOffice's .xls export writes as the number 0 (the FORMULA "
    "record's result bytes are all zero, no STRING record follows: seen "
    "in calamine/string-ref.xlsx's conversion)",
    "value LibreOffice recomputed": "a formula LibreOffice recalculated "
    "(volatile functions such as TODAY, external references it cannot "
    "reach, functions it evaluates otherwise: an error where the original "
    "caches a value) or a pivot table it rebuilt, so the conversion "
    "caches another value than the original",
    "format LibreOffice rewrote": "the same number, one side a date and the "
    "other not: LibreOffice rewrote the cell's number format (a code it "
    "cannot keep, a date format from the .xls's locale, a time shown as a "
    "number) so the date rule decides otherwise",
    "empty text": "an empty string (`s` \"\") on one side only, where the "
    "rule for constant empty strings does not apply (a formula's empty "
    "result LibreOffice leaves out or writes)",
    "cell LibreOffice left out": "a cell only the original has: a pivot "
    "table LibreOffice rebuilt smaller or elsewhere, a cell LibreOffice does "
    "not read (readxl/inlineStr2.xlsx: an inline string that has a <v> too)",
    "cell LibreOffice added": "a cell only the conversion has: a pivot "
    "table LibreOffice rebuilt (also one whose cells the original does not "
    "cache)",
    "other": "a difference of no kind above, each listed",
}


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def one_day_apart_early(ours, theirs):
    """Whether two ISO dates before 1900-03-01 are one day apart."""
    early = ("1900-01", "1900-02", "1899-12")
    if ours[:7] not in early and theirs[:7] not in early:
        return False
    try:
        ours_date = datetime.datetime.fromisoformat(ours)
        theirs_date = datetime.datetime.fromisoformat(theirs)
    except ValueError:
        return False
    return abs(ours_date - theirs_date) == datetime.timedelta(days=1)


def kind_of(direction, ref, ours, theirs):
    """The kind of a difference (a key of REASONS); `ours` is the original
    file's (t, v), `theirs` the conversion's, either None when absent."""
    if ours is not None and theirs is None:
        row, column = ref_position(ref)
        if direction.endswith(">xls") and (row > 65536 or column > 256):
            return "past the .xls grid"
        if ours == ("s", ""):
            return "empty text"
        return "cell LibreOffice left out"
    if ours is None:
        if theirs == ("s", ""):
            return "empty text"
        return "cell LibreOffice added"
    (our_type, our_value), (their_type, their_value) = ours, theirs
    if our_type == their_type == "d" and one_day_apart_early(our_value, their_value):
        return "date before 1900-03-01"
    if our_type == their_type == "n" and is_number(our_value) and is_number(their_value):
        if math.isclose(our_value, their_value, rel_tol=1e-14, abs_tol=1e-300):
            return "number digits"
        return "value LibreOffice recomputed"
    if our_type == their_type == "d":
        return "value LibreOffice recomputed"
    if {our_type, their_type} <= {"n", "d"}:
        return "format LibreOffice rewrote"
    if our_type == "b" and theirs in (("n", int(our_value)), ("d", BOOLEAN_DATES[our_value])):
        return "boolean result as number"
    if direction.endswith(">xls") and our_type == "s" and theirs == ("n", 0):
        return "text result written as 0"
    if our_type == their_type == "s":
        if our_value.replace("\r\n", "\n").replace("\r", "\n") == their_value:
            return "line ends"
        return "text LibreOffice changed"
    if our_type == their_type == "e":
        return "error code"
    return "value LibreOffice recomputed"


# 0 and 1 as dates (FORMAT.md's serial rule), for a boolean written as a
# number into a cell with a date format.
BOOLEAN_DATES = {False: "1899-12-31T00:00:00", True: "1900-01-01T00:00:00"}


def compare(label, original, converted, differences, ruled):
    """Compares two dumps; appends difference lines, counts the differences
    a rule accepts in `ruled`; returns (compared, equal)."""
    compared = equal = 0
    direction = label.split(" ", 1)[0]
    for our_sheet, their_sheet in pair_sheets(original, converted):
        ours = original.get(our_sheet, {}) if our_sheet is not None else {}
        theirs = converted.get(their_sheet, {}) if their_sheet is not None else {}
        sheet = our_sheet if our_sheet is not None else their_sheet
        refs = sorted(set(ours) | set(theirs), key=ref_position)
        for ref in refs:
            compared += 1
            a, b = ours.get(ref), theirs.get(ref)
            if a == b or (a is not None and b is not None and a[0] == b[0] == "n"
                          and is_number(a[1]) and is_number(b[1]) and a[1] == b[1]):
                equal += 1
                continue
            rule = rule_of(direction, a, b)
            if rule is not None:
                ruled[rule] += 1
                continue
            kind = kind_of(direction, ref, a, b)
            differences.append("\t".join([
                label, sheet, ref, kind,
                json.dumps(list(a) if a else None, ensure_ascii=False),
                json.dumps(list(b) if b else None, ensure_ascii=False),
            ]))
    return compared, equal


def has_expectation(path):
    stem = str(path)[: -len(path.suffix)]
    return any(Path(stem + ext).exists() for ext in (".cells.jsonl", ".cells.jsonl.gz"))


def sample(files, step):
    return files[::max(step, 1)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--corpus-binary", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--samples", action="append", default=[])
    parser.add_argument("--xlsb-sample")
    parser.add_argument("--step-xls", type=int, default=8)
    parser.add_argument("--step-xlsx", type=int, default=25)
    parser.add_argument("--step-xlsb", type=int, default=6)
    parser.add_argument("--known", default=str(
        Path(__file__).with_name("binary-known-differences.tsv")))
    parser.add_argument("--write-known", action="store_true")
    args = parser.parse_args()

    root = Path(__file__).resolve().parents[2]
    binary_corpus = Path(args.corpus_binary).resolve()
    corpus = Path(args.corpus).resolve()

    def corpus_sample(base, extension, step, expected):
        files = sorted(
            p for p in base.rglob("*." + extension)
            if p.stat().st_size <= MAX_BYTES and (not expected or has_expectation(p))
            and (extension != "xlsx" or not is_volatile(p)))
        # Sampled before the exclusions, so that they do not move it.
        chosen = [p for p in sample(files, step) if str(p.relative_to(base)) not in EXCLUDED]
        return [str(p) for p in chosen], len(files)

    xls, xls_total = corpus_sample(binary_corpus, "xls", args.step_xls, True)
    xlsb, xlsb_total = corpus_sample(binary_corpus, "xlsb", args.step_xlsb, True)
    xlsx, xlsx_total = corpus_sample(corpus, "xlsx", args.step_xlsx, False)
    own = sorted(str(p) for p in (root / "examples" / "data").glob("*.xlsx"))
    own += [str(Path(p).resolve()) for p in args.samples]

    def display(path):
        path = Path(path).resolve()
        for base, label in ((binary_corpus, "corpus-binary"), (corpus, "corpus"), (root, "")):
            try:
                relative = path.relative_to(base)
                return f"{label}/{relative}" if label else str(relative)
            except ValueError:
                pass
        return path.name

    started = time.monotonic()
    differences = []
    compared = equal = workbooks = 0
    skipped = []
    counts = Counter()
    ruled = Counter()
    with tempfile.TemporaryDirectory() as work:
        profile = Path(work) / "profile"
        jobs = [("xls>xlsx", xls, "xlsx"), ("xlsb>xlsx", xlsb, "xlsx"),
                ("xlsx>xls", own + xlsx, "xls")]
        for direction, files, target in jobs:
            originals = {path: sheetstream_cells(args.bin, path) for path in files}
            readable = [path for path in files if originals[path] is not None]
            skipped += [f"{direction} {display(p)} (sheetstream refused it)"
                        for p in files if originals[p] is None]
            converted = convert(readable, target, work, profile)
            for path in readable:
                label = f"{direction} {display(path)}"
                if path not in converted:
                    skipped.append(f"{label} (LibreOffice did not convert it)")
                    continue
                theirs = sheetstream_cells(args.bin, converted[path])
                if theirs is None:
                    skipped.append(f"{label} (sheetstream refused the conversion)")
                    continue
                workbooks += 1
                counts[direction] += 1
                c, e = compare(label, originals[path], theirs, differences, ruled)
                compared += c
                equal += e
        if args.xlsb_sample:
            sample_path = str(Path(args.xlsb_sample).resolve())
            expected = parse_dump(
                Path(sample_path).with_suffix(".expected.jsonl").read_text(encoding="utf-8"))
            label = f"writer {display(sample_path)}"
            readings = {"sheetstream": sheetstream_cells(args.bin, sample_path)}
            # LibreOffice's reading, through the .xlsx and the .xls it
            # writes (the .xls also checks the .xls reader on every kind
            # of value).
            for target in ("xlsx", "xls"):
                converted = convert([sample_path], target, work, profile)
                readings[f"LibreOffice as .{target}"] = (
                    sheetstream_cells(args.bin, converted[sample_path])
                    if sample_path in converted else None)
            unread = [who for who, dump in readings.items() if dump is None]
            if unread:
                print(f"error: the .xlsb writer's sample was not read back by: "
                      f"{', '.join(unread)}", file=sys.stderr)
                return 1
            # The written cells against each reading; differences like any
            # other (the direction decides which rules apply: none to
            # sheetstream's own reading of the .xlsb).
            for who, dump in readings.items():
                direction = {"sheetstream": "xlsb", "LibreOffice as .xlsx": "xlsb>xlsx",
                             "LibreOffice as .xls": "xlsb>xls"}[who]
                c, e = compare(f"{direction} {label} read by {who}", expected, dump,
                               differences, ruled)
                compared += c
                equal += e
                workbooks += 1
                counts["xlsb-writer"] += 1
    seconds = time.monotonic() - started

    kinds = Counter(line.split("\t")[3] for line in differences)
    print(f"binary differential against LibreOffice: {workbooks} workbooks compared "
          f"({counts['xls>xlsx']} .xls of {xls_total} sampled to .xlsx, "
          f"{counts['xlsb>xlsx']} .xlsb of {xlsb_total} to .xlsx, "
          f"{counts['xlsx>xls']} .xlsx ({len(own)} own, {len(xlsx)} of {xlsx_total} corpus) "
          f"to .xls, {counts['xlsb-writer']} readings of the .xlsb writer's sample), "
          f"{compared} cells compared, {equal} equal, "
          f"{sum(ruled.values())} differ by a rule, {len(differences)} differ otherwise; "
          f"{seconds:.0f} s")
    for rule, count in sorted(ruled.items(), key=lambda item: -item[1]):
        print(f"  {count:6}  {rule} (by rule)")
    for kind, count in sorted(kinds.items(), key=lambda item: -item[1]):
        print(f"  {count:6}  {kind}")
    if skipped:
        print(f"  left out: {len(skipped)}: {'; '.join(skipped[:10])}")

    # A difference is keyed by direction and file, sheet, cell and the
    # original's value; the kind and the conversion's value are for the
    # reader.
    header = [
        "# Known differences between `sheetstream cells` of a workbook and of",
        "# LibreOffice's conversion of it (tests/formats/binary_differential.py):",
        "# direction and file, sheet, cell, kind, the original's [t, v], the",
        "# conversion's [t, v] (null: no cell). The list may only shrink.",
        "# The kinds and why each is not fixed:",
    ]
    header += [f"#   {kind}: {reason}" for kind, reason in REASONS.items()]
    header += ["# Accepted by an exact rule, counted but not listed:"]
    header += [f"#   {rule}: {reason}" for rule, reason in RULES.items()]
    return check_known(differences, Path(args.known), args.write_known, header,
                       "binary differential held: every difference is listed")


if __name__ == "__main__":
    sys.exit(main())
