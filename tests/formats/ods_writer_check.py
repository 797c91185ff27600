#!/usr/bin/env python3
"""The bench's .ods writer checked against LibreOffice reading its output.

    python3 tests/formats/ods_writer_check.py --bin target/release/sheetstream \
        --sample target/ods-sample.ods

`--sample` is written by `cargo run --example write_ods_sample`, with its
expected cells beside it (`NAME.expected.jsonl`). LibreOffice (soffice)
converts the sample to .xlsx and to flat .fods; `sheetstream cells` of the
sample must equal the expectation exactly, and of each conversion to the
15 significant digits LibreOffice writes numbers with (and -0 as 0). The
flat document is LibreOffice's own: this also reads a real .fods.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def dump(binary, path):
    out = subprocess.run([binary, "cells", path], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def same(expected, got, digits15):
    if expected.keys() != got.keys():
        return False
    for key in expected:
        a, b = expected[key], got[key]
        if key == "v" and expected.get("t") == "n" and isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if digits15:
                if abs(a - b) > 1e-14 * max(1.0, abs(a)):
                    return False
            elif float(a) != float(b):
                return False
        elif a != b:
            return False
    return True


def compare(name, expected, got, digits15):
    problems = []
    if len(expected) != len(got):
        problems.append("%d lines expected, %d read" % (len(expected), len(got)))
    for i, (e, g) in enumerate(zip(expected, got)):
        if not same(e, g, digits15):
            problems.append("line %d: expected %s | got %s" % (i + 1, json.dumps(e), json.dumps(g)))
        if len(problems) >= 5:
            break
    status = "ok" if not problems else "FAIL"
    print("%s: %s (%d cells)" % (name, status, len(got)))
    for problem in problems:
        print("  " + problem)
    return not problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--sample", required=True)
    args = parser.parse_args()
    sample = os.path.abspath(args.sample)
    with open(os.path.splitext(sample)[0] + ".expected.jsonl", encoding="utf-8") as f:
        expected = [json.loads(line) for line in f if line.strip()]
    ok = compare("the sample as written", expected, dump(args.bin, sample), False)
    with tempfile.TemporaryDirectory() as out:
        profile = "file://" + os.path.join(out, "profile")
        for kind in ("xlsx", "fods"):
            subprocess.run(
                ["soffice", "-env:UserInstallation=" + profile, "--headless", "--convert-to", kind,
                 "--outdir", out, sample],
                check=True, capture_output=True, timeout=300,
            )
            converted = os.path.join(out, os.path.splitext(os.path.basename(sample))[0] + "." + kind)
            ok &= compare("LibreOffice's reading, saved as ." + kind, expected, dump(args.bin, converted), True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
