#!/usr/bin/env python3
"""Differential test of .xls formula text against the .xlsx it came from.

LibreOffice (headless soffice) converts .xlsx workbooks with formulas to
.xls; the formula text openpyxl reads from each .xlsx (`<f>`, shared
formulas expanded to each cell) and the text sheetstream decompiles from
the .xls (`cargo run --example formula_dump`) must agree cell by cell.

The workbooks: one written here with xlsxwriter holding a battery of
formulas (every operator and precedence case, references of every kind,
3-D references to quoted sheets, defined names, fixed and varying
functions), the project's examples/data/*.xlsx and the .xlsx corpus
files that hold formulas.

Normalised before comparing, as equivalent: spaces outside strings
(sheetstream leaves out PtgAttrSpace), a leading `=`, and what
LibreOffice's export changes by design, each counted by kind: `_xlfn.`
prefixes (BIFF8 has no such names), and whole-column areas
(`A1:A1048576` in .xlsx is `A:A` in .xls, whose sheet ends at row
65,536). Anything else is a difference and fails the run, unless the
.xlsx formula refers past the .xls grid (row 65,536, column IV) or the
.xls sheet was refused with a named reason (both counted and listed).

Usage: formula_differential.py --dump target/release/examples/formula_dump
       [--corpus DIR] [--max-files N]
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from binary_differential import convert  # noqa: E402


def battery(path):
    """A workbook of formulas covering the offered tokens."""
    import xlsxwriter
    book = xlsxwriter.Workbook(str(path))
    data = book.add_worksheet("Data")
    other = book.add_worksheet("My Sheet")
    for row in range(10):
        data.write_number(row, 0, row + 1)
        data.write_number(row, 1, (row + 1) * 2.5)
        data.write_string(row, 2, f"t{row}")
        other.write_number(row, 0, row * 3)
    book.define_name("Rate", "=Data!$B$1")
    formulas = [
        "1+2*3", "(1+2)*3", "-(1+2)^2", "1-(2-3)", "1-2-3", "2^-1", "-2^2",
        "5%", "(A1+5)%", "A1&\"x\"", "\"a\"\"b\"&C1", "A1=B1", "A1<>B1",
        "A1<B1", "A1<=B1", "A1>B1", "A1>=B1", "TRUE", "FALSE", "#N/A",
        "1.5", "0.001", "1E+20", "A1", "$A$1", "A$1", "$A1", "A1:B3",
        "$A$1:$B$10", "SUM(A:A)", "SUM(1:2)", "'My Sheet'!A1",
        "SUM('My Sheet'!A1:A5)", "Rate*2", "SUM(A1:A10)", "SUM(A1,B1,3)",
        "AVERAGE(A1:A10)", "IF(A1>1,\"big\",\"small\")", "IF(A1,1)",
        "ROUND(B1,1)", "INDEX(A1:B10,2,2)", "MATCH(3,A1:A10,0)",
        "VLOOKUP(3,A1:B10,2,FALSE)", "COUNTIF(A1:A10,\">3\")",
        "SUMPRODUCT(A1:A3,B1:B3)", "CONCATENATE(C1,C2)", "AND(A1>0,B1>0)",
        "OR(A1>5,NOT(B1>0))", "IFERROR(1/0,0)", "DATE(2024,1,31)",
        "TEXT(A1,\"0.00\")", "LEFT(C1,1)", "MID(C2,1,1)", "LEN(C3)",
        "NOW()", "PI()*2", "ABS(-3)", "MAX(A1:A10)-MIN(A1:A10)",
        "CHOOSE(2,\"a\",\"b\",\"c\")", "SUMIF(A1:A10,\">2\",B1:B10)",
        "ISBLANK(D1)", "ROWS(A1:A10)", "OFFSET(A1,1,1)", "A1*B1+A2*B2",
        "(A1+B1)/(A2-B2)", "A1/B1/A2", "A1^B1^2", "-A1", "+A1", "--A1",
        "SUM(A1:A3 A2:A4)", "SUM((A1,A3))", "HLOOKUP(1,A1:B2,1)",
        "SUBTOTAL(9,A1:A10)", "MOD(A5,3)", "INT(B2)", "TRIM(\" x \")",
        "UPPER(C1)&LOWER(C2)", "DAY(45000)+MONTH(45000)+YEAR(45000)",
    ]
    sheet = book.add_worksheet("Formulas")
    for row, formula in enumerate(formulas):
        sheet.write_formula(row, 0, "=" + formula)
        # The same down a column: LibreOffice may share them.
        sheet.write_formula(row, 1, "=" + formula.replace("A1", f"A{row + 1}")
                            if "A1" in formula and ":" not in formula else "=" + formula)
    book.close()


def xlsx_formulas(path):
    import openpyxl
    book = openpyxl.load_workbook(path, read_only=False, data_only=False)
    out = {}
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                value = cell.value
                text = getattr(value, "text", None) if not isinstance(value, str) else value
                if isinstance(text, str) and text.startswith("="):
                    out[(sheet.title, cell.coordinate)] = text[1:]
    return out


def xls_formulas(dump, path):
    result = subprocess.run([dump, path], capture_output=True, text=True, timeout=120)
    out, errors = {}, {}
    for line in result.stdout.splitlines():
        entry = json.loads(line)
        if "error" in entry:
            errors[entry["sheet"]] = entry["error"]
        else:
            out[(entry["sheet"], entry["ref"])] = entry["formula"]
    return out, errors


def normalise(formula):
    out, in_string = [], False
    for c in formula:
        if c == '"':
            in_string = not in_string
        elif c in " \n\r" and not in_string:
            continue
        out.append(c)
    text = "".join(out).lstrip("=")
    text = text.replace("_xlfn.", "")
    # Whole columns: rows 1 to the last row of either grid.
    text = re.sub(r"(\$?[A-Z]{1,3})\$?1:(\$?[A-Z]{1,3})\$?(1048576|65536)\b", r"\1:\2", text)
    return text


def past_xls_grid(formula):
    # Whole rows (`1:2`) are columns A to XFD, past IV.
    if re.search(r"(^|[^A-Z$0-9.])\$?[0-9]+:\$?[0-9]+($|[^0-9])", formula):
        return True
    for column, row in re.findall(r"\$?([A-Z]{1,3})\$?([0-9]+)\b", formula):
        if int(row) > 65536 or len(column) > 2 or (len(column) == 2 and column > "IV"):
            return True
    return False


def lost_in_conversion(formula, ours):
    """LibreOffice's export writes what it cannot express in BIFF8 (a
    structured table reference, an unknown name or function, a link to
    another file) as #N/A, #REF! or #NAME?, or as a string of its text:
    the tokens say so, and the decompiled text says what the tokens say."""
    if any(error in ours for error in ("#N/A", "#REF!", "#NAME?")) and ours != formula:
        if not any(error in formula for error in ("#N/A", "#REF!", "#NAME?")) or ours == "#N/A":
            return True
    bare = normalise(ours).replace('"', "").lower()
    return bare == normalise(formula).replace('"', "").lower()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", required=True)
    parser.add_argument("--corpus")
    parser.add_argument("--max-files", type=int, default=40)
    parser.add_argument("-v", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="formula-diff-"))
    files = [work / "battery.xlsx"]
    battery(files[0])
    root = Path(__file__).resolve().parents[2]
    files += sorted((root / "examples" / "data").glob("*.xlsx"))
    if args.corpus:
        import zipfile
        with_formulas = []
        for path in sorted(Path(args.corpus).rglob("*.xlsx")):
            try:
                with zipfile.ZipFile(path) as archive:
                    if any(b"<f" in archive.read(n) for n in archive.namelist()
                           if n.startswith("xl/worksheets/") and n.endswith(".xml")):
                        with_formulas.append(path)
            except Exception:
                continue
        files += with_formulas[: args.max_files]
    converted = convert([str(f) for f in files], "xls", work, work / "profile")
    counts = Counter()
    failures = []
    for source in files:
        xls = converted.get(str(source))
        if not xls:
            counts["not converted"] += 1
            continue
        try:
            expected = xlsx_formulas(source)
        except Exception as err:  # openpyxl cannot read it
            counts["openpyxl failed"] += 1
            continue
        got, errors = xls_formulas(args.dump, xls)
        for sheet, error in errors.items():
            counts["sheets refused: " + error.split(" (at ")[0][:90]] += 1
        for key, formula in expected.items():
            if key[0] in errors:
                continue
            ours = got.get(key)
            if ours is None:
                counts["only in .xlsx"] += 1
                if args.v:
                    print(f"only .xlsx {source.name} {key}: {formula}")
            elif ours == formula:
                counts["agree"] += 1
            elif normalise(ours) == normalise(formula):
                counts["agree normalised"] += 1
            elif past_xls_grid(formula):
                counts["refers past the .xls grid"] += 1
            elif lost_in_conversion(formula, ours):
                counts["LibreOffice wrote an error or a string in its place"] += 1
            else:
                counts["differ"] += 1
                failures.append(f"{source.name} {key[0]}!{key[1]}: .xlsx {formula!r} .xls {ours!r}")
        for key in got.keys() - expected.keys():
            counts["only in .xls"] += 1
    for kind, n in sorted(counts.items()):
        print(f"{n:7}  {kind}")
    for failure in failures:
        print("differs:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
