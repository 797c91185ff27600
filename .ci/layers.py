#!/usr/bin/env python3
"""The layer check: every import in src/ points down the layers.

Reads the `crate::`, `super::` and `self::` paths of every file under src/
(the CLI in src/bin/ is a crate of its own, above everything) and under
python/src (the Python package's native module), resolves each
to the file that defines it (names re-exported at the crate root through
lib.rs's `pub use` lines), and fails when a file imports a file of a higher
layer. Files of one layer may import each other. ARCHITECTURE.md lists the
layers; LAYERS below is the same list, bottom first, as path prefixes.

    python3 .ci/layers.py            # check; exit 1 on an upward import
    python3 .ci/layers.py --graph    # also print the circles of files

Comments and `#[cfg(test)] mod tests { ... }` blocks are left out: a test
may reach anywhere.
"""

import os
import re
import sys

# Bottom first. A file belongs to the first layer with a matching prefix
# (a prefix ending in `/` is a folder, otherwise a file). The library.
LAYERS = [
    ("model", [
        "src/limits.rs", "src/source.rs", "src/text.rs", "src/ascii.rs", "src/date.rs",
        "src/cell.rs", "src/number_format.rs", "src/error.rs", "src/range.rs",
        "src/columns.rs", "src/interop.rs", "src/format/", "src/styles.rs",
        "src/shared_strings.rs", "src/metadata.rs", "src/count.rs",
    ]),
    ("plumbing", [
        "src/xml/", "src/archive/", "src/chunk.rs", "src/compound/", "src/opc/", "src/encryption/",
        "src/formula/",
    ]),
    ("contract", ["src/contract/"]),
    ("formats", ["src/xlsx/", "src/xlsb/", "src/xls/", "src/ods/"]),
    ("workbook", [
        "src/workbook/", "src/parallel.rs",
    ]),
    ("layers", [
        "src/sheet.rs", "src/de.rs", "src/arrow/", "src/fuzzing.rs",
        "src/lib.rs",
    ]),
]


# The Python package's native module (python/src), bottom first: what
# Python hands in (a source, an opened workbook), its arguments and
# options, the values, reports and Arrow streams, then the classes and
# the functions the module exports.
PYTHON_LAYERS = [
    ("ground", ["python/src/errors.rs", "python/src/remote.rs", "python/src/opened.rs"]),
    ("arguments", ["python/src/args.rs", "python/src/options.rs"]),
    ("values", ["python/src/values.rs", "python/src/report.rs", "python/src/arrow_ffi.rs"]),
    ("classes", ["python/src/sheet.rs", "python/src/metadata.rs"]),
    ("module", ["python/src/workbook.rs", "python/src/read.rs", "python/src/lib.rs"]),
]


def layer_of(path, layers=None):
    for number, (name, prefixes) in enumerate(layers or LAYERS):
        for prefix in prefixes:
            if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
                return number, name
    return None, None


def module_path(root, path):
    parts = os.path.relpath(path, root)[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def strip(text):
    """The text without comments, string and character literals, and test
    modules (`#[cfg(test)] mod x { ... }`)."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i)
            i = n if end < 0 else end + 2
            continue
        raw = re.match(r'b?r(#*)"', text[i:i + 300])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = '"' + raw.group(1)
            end = text.find(close, i + raw.end())
            i = n if end < 0 else end + len(close)
            out.append('""')
            continue
        if text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            out.append('""')
            continue
        if text[i] == "'":
            if text.startswith("'\\", i):
                end = text.find("'", i + 2)
                if end > 0 and end - i < 12:
                    i = end + 1
                    continue
            elif i + 2 < n and text[i + 2] == "'":
                i += 3
                continue
        out.append(text[i])
        i += 1
    text = "".join(out)
    # Test modules, now that braces in literals and comments are gone.
    pattern = re.compile(r"#\[cfg\(test\)\]\s*(pub(\(crate\))?\s+)?mod\s+\w+\s*\{")
    while True:
        m = pattern.search(text)
        if not m:
            return text
        depth = 1
        j = m.end()
        while j < len(text) and depth:
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
            j += 1
        text = text[:m.start()] + text[j:]


def expand(prefix, body):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e] (prefix given)."""
    paths = []
    depth = 0
    item = ""
    for ch in body + ",":
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            item = item.strip()
            if item:
                m = re.match(r"^([\w:]*?)(::)?\{(.*)\}$", item, re.S)
                if m:
                    inner_prefix = prefix + ([p for p in m.group(1).split("::") if p])
                    paths += expand(inner_prefix, m.group(3))
                else:
                    name = item.split(" as ")[0].strip()
                    paths.append(prefix + [p for p in name.split("::") if p])
            item = ""
        else:
            item += ch
    return paths


def paths_in(text):
    """Every path that starts with crate::, super:: or self:: (super and
    self chains kept as written)."""
    found = []
    for m in re.finditer(r"\b((?:crate|super|self)(?:::(?:super|self))*)::\{", text):
        start = m.end()
        depth = 1
        j = start
        while j < len(text) and depth:
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
            j += 1
        head = m.group(1).split("::")
        found += expand(head, text[start:j - 1])
    for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", text):
        found.append(m.group(1).split("::"))
    return found


def main():
    graph_wanted = "--graph" in sys.argv
    failed = False
    for root, layers in (("src", LAYERS), ("python/src", PYTHON_LAYERS)):
        failed |= not check(root, layers, graph_wanted)
    if failed:
        sys.exit(1)


def check(root, layers, graph_wanted):
    """Checks one crate's imports; prints what it found; False on an
    upward import."""
    files = {}
    for folder, _, names in os.walk(root):
        if root == "src" and folder.startswith(os.path.join(root, "bin")):
            continue
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as handle:
                    files[path] = strip(handle.read())
    # Files that are test modules (`#[cfg(test)] mod tests;`) are tests.
    for path in list(files):
        with open(path, encoding="utf-8") as handle:
            raw = handle.read()
        folder = os.path.dirname(path)
        if os.path.basename(path) not in ("mod.rs", "lib.rs"):
            folder = os.path.join(folder, os.path.basename(path)[:-3])
        for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\(crate\))?\s+)?mod\s+(\w+)\s*;", raw):
            for candidate in (os.path.join(folder, m.group(1) + ".rs"),
                              os.path.join(folder, m.group(1), "mod.rs")):
                files.pop(candidate, None)
    modules = {module_path(root, path): path for path in files}
    # Names the crate root re-exports: `pub use a::b::{C, D};`.
    reexports = {}
    lib = files.get(os.path.join(root, "lib.rs"), "")
    for m in re.finditer(r"pub use ([\w:]+)::\{([^}]*)\};|pub use ([\w:]+)::(\w+);", lib):
        if m.group(1):
            names = [n.strip().split(" as ")[-1].strip() for n in m.group(2).split(",") if n.strip()]
            for name in names:
                reexports[name] = tuple(m.group(1).split("::"))
        else:
            reexports[m.group(4)] = tuple(m.group(3).split("::"))

    def resolve(path, parts):
        here = module_path(root, path)
        is_folder_root = os.path.basename(path) in ("mod.rs", "lib.rs")
        base = list(here) if is_folder_root else list(here[:-1])
        if parts[0] == "crate":
            base, parts = [], parts[1:]
        elif parts[0] == "self":
            parts = parts[1:]
            base = list(here)
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
        full = base + parts
        if not base and full and full[0] in reexports:
            full = list(reexports[full[0]]) + full[1:]
        for n in range(len(full), 0, -1):
            target = modules.get(tuple(full[:n]))
            if target:
                return target
        return None

    edges = {path: set() for path in files}
    for path, text in files.items():
        for parts in paths_in(text):
            target = resolve(path, parts)
            if target and target != path:
                edges[path].add(target)

    problems = []
    for path in sorted(files):
        number, name = layer_of(path, layers)
        if number is None:
            problems.append(f"{path}: in no layer (add it to LAYERS in .ci/layers.py and to ARCHITECTURE.md)")
            continue
        for target in sorted(edges[path]):
            target_number, target_name = layer_of(target, layers)
            if target_number is not None and target_number > number:
                problems.append(f"{path} ({name}) imports {target} ({target_name}), a higher layer")

    for wanted in [a.split("=", 1)[1] for a in sys.argv if a.startswith("--why=")]:
        for target in sorted(edges.get(wanted, ())):
            print(f"{wanted} -> {target}")
    if graph_wanted:
        circles = strongly_connected(edges)
        for circle in sorted(circles, key=len, reverse=True):
            names = sorted({layer_of(p, layers)[1] or "?" for p in circle})
            print(f"circle of {len(circle)} files in {', '.join(names)}: {' '.join(sorted(circle))}")
        if not circles:
            print(f"{root}: no circles of files")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        return False
    print(f"{root}: {len(files)} files in {len(layers)} layers; every import points down or within a layer")
    return True


def strongly_connected(edges):
    index, low, stack, on_stack, circles = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(component)

    for v in edges:
        if v not in index:
            visit(v)
    return circles


if __name__ == "__main__":
    main()
