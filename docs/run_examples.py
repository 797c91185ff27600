#!/usr/bin/env python3
"""Runs the shell and Python examples of the guide (docs/src) and of
README.md, and fails on an error or a changed output.

    python3 docs/run_examples.py --bin target/release --python .venv/bin/python
    python3 docs/run_examples.py ... --bless       # rewrite expected outputs
    python3 docs/run_examples.py ... --only faq    # pages whose path has `faq`

Rust blocks are doctests (`cargo test --doc`: src/lib.rs includes every
page). Blocks by their info string:

- `console`: `$ COMMAND` lines (a trailing `\\` continues one), each
  followed by its expected output (stdout and stderr together). A line
  `...` stands for any lines; `[exit N]` last says the command fails
  with status N (any other failure fails the block).
- `python`: the page's Python blocks run in order in one namespace (a
  page reads like a session). `sh`: a bash script (`-euo pipefail`).
  Either may be followed by an `output` block, its expected stdout.
- `setup` after the language: a build or install step that `.ci/run`
  runs itself (not run here). `pending` (or `rust,ignore`): an example of
  a feature another branch brings; the line above it must say
  `TODO(lead)`, and the run lists them.

Each page runs in a fresh folder holding `examples` and `target` (links
into the repository) with `sheetstream` on PATH. `https://example.com/`
is served from that folder by a local HTTP server honouring Range
requests, and `s3://reports/` by moto's S3 server holding
`examples/data` under `2024/` (`"..."` credentials and
`https://s3.example.com` are replaced by the server's). A page whose
Python names `spark` gets a local[2] SparkSession.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(\s*)```(.*)$")


class Block:
    def __init__(self, page, start, end, info, lines):
        self.page, self.start, self.end = page, start, end  # lines of the fences
        words = re.split(r"[ ,]+", info.strip())
        self.lang = words[0] if words else ""
        self.flags = set(words[1:])
        self.lines = lines
        self.output = None  # the `output` block after it

    def where(self):
        return f"{self.page.relative_to(REPO)}:{self.start + 1}"


def blocks(page):
    text = page.read_text().splitlines()
    found, i = [], 0
    while i < len(text):
        m = FENCE.match(text[i])
        if m and m.group(2).strip():
            indent = len(m.group(1))
            j = i + 1
            while j < len(text) and text[j].strip() != "```":
                j += 1
            body = [line[indent:].rstrip() for line in text[i + 1:j]]
            found.append(Block(page, i, j, m.group(2), body))
            i = j + 1
        else:
            i += 1
    runnable = []
    for k, block in enumerate(found):
        if block.lang == "output":
            continue
        nxt = found[k + 1] if k + 1 < len(found) else None
        if nxt is not None and nxt.lang == "output" and _adjacent(text, block, nxt):
            block.output = nxt
        runnable.append(block)
    return text, runnable


def _adjacent(text, block, nxt):
    return all(not line.strip() for line in text[block.end + 1:nxt.start])


def matches(expected, actual):
    """Line lists equal, `...` matching any lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def clean(output):
    lines = [line.rstrip() for line in output.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


class Env:
    def __init__(self, args):
        self.args = args
        self.http = self.s3 = None

    def substitute(self, code):
        if "https://example.com/" in code:
            code = code.replace("https://example.com/", self.http_url())
        if "s3://" in code:
            code = code.replace("https://s3.example.com", self.s3_endpoint())
            code = code.replace('"key": "..."', '"key": "testing"').replace(
                '"secret": "..."', '"secret": "testing"')
        return code

    def http_url(self):
        if self.http is None:
            sys.path.insert(0, str(REPO / "python" / "tests"))
            from servers import RangeServer
            self.http = RangeServer(REPO)
        return f"http://127.0.0.1:{self.http.port}/"

    def s3_endpoint(self):
        if self.s3 is None:
            sys.path.insert(0, str(REPO / "python" / "tests"))
            import logging
            from servers import S3Server
            logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's request log
            self.s3 = S3Server()
            self.s3.create_bucket("reports")
            fs = self.s3.filesystem()
            for path in sorted((REPO / "examples" / "data").glob("*.xls*")):
                fs.put(str(path), f"reports/2024/{path.name}")
        return self.s3.endpoint

    def stop(self):
        for server in (self.http, self.s3):
            if server is not None:
                server.stop()


DRIVER = r'''
import contextlib, io, json, os, sys, traceback
blocks = json.load(open(sys.argv[1]))
namespace = {"__name__": "__main__"}
if any("spark" in code for code in blocks):
    from pyspark.sql import SparkSession
    namespace["spark"] = (SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
        .getOrCreate())
results = []
for code in blocks:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "<block>", "exec"), namespace)
        results.append({"ok": True, "out": out.getvalue()})
    except BaseException:
        results.append({"ok": False, "out": out.getvalue(), "error": traceback.format_exc()})
        break
json.dump(results, open(sys.argv[2], "w"))
'''


def run_page(page, env, args, failures, pending, bless):
    text, page_blocks = blocks(page)
    work = pathlib.Path(tempfile.mkdtemp(prefix="sheetstream-docs-"))
    for name in ("examples", "target"):
        (work / name).symlink_to(REPO / name)
    shell_env = dict(os.environ)
    shell_env["PATH"] = f"{args.bin}{os.pathsep}{pathlib.Path(args.python).parent}{os.pathsep}" + shell_env["PATH"]
    python_blocks = []
    edits = []  # (start, end, new lines) of output to rewrite
    counted = 0
    for block in page_blocks:
        if "pending" in block.flags or (block.lang == "rust" and "ignore" in block.flags):
            above = "\n".join(text[max(0, block.start - 3):block.start])
            if "TODO(lead)" not in above:
                failures.append(f"{block.where()}: a pending block without a TODO(lead) line above it")
            pending.append(block.where())
            continue
        if "setup" in block.flags or block.lang not in ("console", "python", "sh"):
            continue
        if page.name == "README.md" and page.parent == REPO and block.lang == "sh":
            continue  # the set-up steps: .ci/run runs them as written
        counted += 1
        if block.lang == "console":
            run_console(block, work, shell_env, env, failures, edits, bless)
        elif block.lang == "sh":
            code = env.substitute("\n".join(block.lines))
            run = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=work, env=shell_env,
                                 capture_output=True, text=True, errors="replace", timeout=600)
            if run.returncode != 0:
                failures.append(f"{block.where()}: exit {run.returncode}\n{run.stdout}{run.stderr}")
            else:
                compare_output(block, run.stdout, failures, edits, bless)
        else:
            python_blocks.append(block)
    if python_blocks:
        run_python(python_blocks, work, shell_env, env, args, failures, edits, bless)
    shutil.rmtree(work, ignore_errors=True)
    if bless and edits:
        for start, end, new in sorted(edits, reverse=True):
            text[start:end] = new
        page.write_text("\n".join(text) + "\n")
    return counted


def compare_output(block, out, failures, edits, bless):
    if block.output is None:
        return
    actual = clean(out)
    if not matches(block.output.lines, actual):
        if bless:
            edits.append((block.output.start + 1, block.output.end, actual))
        else:
            failures.append(f"{block.where()}: output changed\n--- expected\n"
                            + "\n".join(block.output.lines) + "\n--- actual\n" + "\n".join(actual))


def run_console(block, work, shell_env, env, failures, edits, bless):
    commands = []  # (command, expected lines, index of first expected line)
    i = 0
    lines = block.lines
    while i < len(lines):
        if not lines[i].startswith("$ "):
            failures.append(f"{block.where()}: line {i + 1} of the block is no `$ ` command")
            return
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command += "\n" + lines[i]  # bash reads the backslash-newline
        i += 1
        first = i
        while i < len(lines) and not lines[i].startswith("$ "):
            i += 1
        commands.append((command, lines[first:i], first))
    new_lines = []
    changed = False
    for command, expected, first in commands:
        run = subprocess.run(["bash", "-o", "pipefail", "-c", env.substitute(command)], cwd=work,
                             env=shell_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace", timeout=600)
        actual = clean(run.stdout)
        if any(ch < " " and ch != "\t" for line in actual for ch in line):
            failures.append(f"{block.where()}: `{command}` printed control characters (binary output?)")
            return
        if run.returncode != 0:
            actual.append(f"[exit {run.returncode}]")
        new_lines += ["$ " + command] + (expected if matches(expected, actual) else actual)
        if not matches(expected, actual):
            changed = True
            if not bless:
                failures.append(f"{block.where()}: `{command}` printed\n" + "\n".join(actual)
                                + "\n--- expected\n" + "\n".join(expected))
    if bless and changed:
        edits.append((block.start + 1, block.end, new_lines))


def run_python(python_blocks, work, shell_env, env, args, failures, edits, bless):
    codes = [env.substitute("\n".join(block.lines)) for block in python_blocks]
    (work / "blocks.json").write_text(json.dumps(codes))
    (work / "driver.py").write_text(DRIVER)
    run = subprocess.run([args.python, "driver.py", "blocks.json", "results.json"], cwd=work,
                         env=shell_env, capture_output=True, text=True, timeout=900)
    if run.returncode != 0 or not (work / "results.json").exists():
        failures.append(f"{python_blocks[0].page.relative_to(REPO)}: the Python driver failed\n"
                        + run.stdout + run.stderr)
        return
    results = json.loads((work / "results.json").read_text())
    for block, result in zip(python_blocks, results):
        if not result["ok"]:
            failures.append(f"{block.where()}: raised\n{result['error']}")
            return
        compare_output(block, result["out"], failures, edits, bless)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(REPO / "target" / "release"),
                        help="the folder holding the sheetstream binary")
    parser.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"),
                        help="the Python with sheetstream installed")
    parser.add_argument("--only", action="append", default=[], help="pages whose path has this")
    parser.add_argument("--bless", action="store_true", help="rewrite the expected outputs")
    args = parser.parse_args()
    args.bin = str(pathlib.Path(args.bin).resolve())
    args.python = os.path.abspath(args.python)  # not resolved: a venv's python is a link
    if not (pathlib.Path(args.bin) / "sheetstream").exists():
        sys.exit(f"error: no sheetstream in {args.bin} (cargo build --release)")
    pages = [REPO / "README.md"] + sorted((REPO / "docs" / "src").rglob("*.md"))
    if args.only:
        pages = [p for p in pages if any(word in str(p.relative_to(REPO)) for word in args.only)]
    env = Env(args)
    failures, pending = [], []
    ran = 0
    try:
        for page in pages:
            ran += run_page(page, env, args, failures, pending, args.bless)
    finally:
        env.stop()
    for failure in failures:
        print(f"FAIL {failure}\n", file=sys.stderr)
    if pending:
        print(f"pending (TODO(lead)): {len(pending)} blocks: " + ", ".join(pending))
    print(f"{ran - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
