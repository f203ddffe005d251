"""Plants bugs in real standard-library functions, for `npm run bench:validate`.

usage: python3.11 stdlib-mutants.py <stdlib copy> <count> <seed>

Picks modules of the copy that have a test named after them (test/test_<name>.py or test/test_<name>/),
that the interpreter and unittest do not load before the tests start (those would come from the
installed library, not from the copy), then a random function in each and a random mutable node in it
(a comparison, an arithmetic or boolean operator, an integer constant, an if condition, a return value),
and prints one JSON object per line: the module, the function, the line, what was changed, and the diff.
"""

import ast
import difflib
import json
import os
import random
import subprocess
import sys

SWAP_CMP = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult}


def preloaded():
    """Modules loaded before a unittest run's tests import anything."""
    code = "import sys, unittest, test.support; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return {m.split(".")[0] for m in out.split()}


def candidates(root):
    tests = set(os.listdir(os.path.join(root, "test")))
    skip = preloaded() | {"test", "unittest", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip", "venv"}
    out = []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        mod = name[:-3] if name.endswith(".py") else name
        if mod in skip or mod.startswith("__"):
            continue
        if not (name.endswith(".py") or os.path.isfile(os.path.join(path, "__init__.py"))):
            continue
        stem = mod.lstrip("_")
        if f"test_{stem}.py" not in tests and f"test_{stem}" not in tests:
            continue
        files = [name] if name.endswith(".py") else [
            os.path.join(name, f) for f in sorted(os.listdir(path)) if f.endswith(".py")
        ]
        out.append((mod, files))
    return out


def mutations(tree, lines):
    """(node, replacement source, kind) for single-line nodes inside functions."""
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if getattr(node, "lineno", None) is None or node.lineno != node.end_lineno:
                continue
            new = None
            kind = None
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in SWAP_CMP:
                new = ast.Compare(node.left, [SWAP_CMP[type(node.ops[0])]()], node.comparators)
                kind = "comparison"
            elif isinstance(node, ast.BinOp) and type(node.op) in SWAP_BIN:
                new = ast.BinOp(node.left, SWAP_BIN[type(node.op)](), node.right)
                kind = "arithmetic"
            elif isinstance(node, ast.BoolOp):
                new = ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values)
                kind = "boolean"
            elif isinstance(node, ast.Constant) and type(node.value) is int and not isinstance(node.value, bool):
                new = ast.Constant(node.value + 1)
                kind = "constant"
            elif isinstance(node, ast.If) and node.test.lineno == node.test.end_lineno:
                found.append((node.test, f"not ({ast.get_source_segment(chr(10).join(lines), node.test)})", "condition", fn.name))
                continue
            elif isinstance(node, ast.Return) and node.value is not None:
                found.append((node.value, "None", "return", fn.name))
                continue
            if new is not None:
                found.append((node, ast.unparse(new), kind, fn.name))
    return found


def main():
    root, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    mods = candidates(root)
    rng.shuffle(mods)
    made = 0
    for mod, files in mods:
        if made >= count:
            break
        rel = rng.choice(files)
        src = open(os.path.join(root, rel), encoding="utf-8").read()
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        lines = src.split("\n")
        options = mutations(tree, lines)
        if not options:
            continue
        node, replacement, kind, fn = rng.choice(options)
        line = lines[node.lineno - 1]
        enc = line.encode("utf-8")
        start = len(enc[: node.col_offset].decode("utf-8"))
        end = len(enc[: node.end_col_offset].decode("utf-8"))
        before = line[start:end]
        if before == replacement:
            continue
        mutated_line = line[:start] + replacement + line[end:]
        new_lines = lines[: node.lineno - 1] + [mutated_line] + lines[node.lineno:]
        new_src = "\n".join(new_lines)
        try:
            ast.parse(new_src)
        except SyntaxError:
            continue
        diff = "".join(
            difflib.unified_diff(
                src.splitlines(True), new_src.splitlines(True), f"a/{rel}", f"b/{rel}", n=3
            )
        )
        print(json.dumps({
            "module": mod, "file": rel, "function": fn, "line": node.lineno, "kind": kind,
            "before": before, "after": replacement, "diff": diff,
        }))
        made += 1


if __name__ == "__main__":
    main()
