/**
 * Evidence a model cannot game, end to end: `auto-fix issue --dry-run` with the real pipeline, the real
 * sandbox and real test runners, the scripted model writing a reproducer aimed at the checks and
 * approving whatever it wrote. No repository test fails before the patch here, so "fixed" can only rest
 * on the reproducer: it must fail by an assertion (as the runtime reports it) whose runs go through the
 * patched lines, with related repository tests that load the patched code. Each attack ends `patched` at
 * best, saying what it rests on; the honest controls stay `fixed`.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { type TruthCase, truthRun } from "../support/truth-run.ts";

// --- Python (unittest) ---

const OPS = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return x * 2\n";
const PY_FILES = (extra: Record<string, string> = {}): Record<string, string> => ({
  ".github/auto-fix.yml": "test: python3 -m unittest discover -v\n",
  "calc/__init__.py": "",
  "calc/ops.py": OPS,
  "tests/__init__.py": "",
  // Loads calc.ops, never tests add: no repository test shows the bug.
  "tests/test_ops.py":
    "import unittest\n\nfrom calc.ops import double\n\n\nclass OpsTest(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(4), 8)\n",
  ...extra,
});
const PY_FIX = { file: "calc/ops.py", original: "    return a - b", patched: "    return a + b" };
const PY_HELPER = {
  file: "calc/ops.py",
  original: "def double(x):",
  patched: "def helper():\n    return 42\n\n\ndef double(x):",
};
const PY_REPRO =
  "from calc.ops import add\n\nresult = add(2, 3)\nassert result == 5, f'expected 5, got {result}'\n";
const py = (over: Partial<TruthCase>): TruthCase => ({
  files: PY_FILES(),
  location: { file: "calc/ops.py", method: "add" },
  patch: PY_FIX,
  reproducer: PY_REPRO,
  ...over,
});

test("python control: an assertion through the patched line, and a related test that loads the code: fixed", async () => {
  const r = await truthRun(py({}));
  assert.equal(r.result.status, "fixed", r.result.reason);
  assert.equal(r.result.validation?.shows_fix, false);
  const ev = r.result.reproducer?.evidence;
  assert.equal(ev?.backs_fix, true, ev?.detail ?? "no evidence");
  assert.equal(ev?.before?.type, "AssertionError");
  assert.deepEqual(ev?.runs_patch, {
    before: true,
    after: true,
    lines: ["calc/ops.py:2 (before)", "calc/ops.py:2 (after)"],
  });
  assert.match(
    r.result.evidence?.rests_on ?? "",
    /^the reproducer, which failed by an assertion before the patch and passes after it, its runs going through the patched lines \(traced\); the 1 related test that loads the patched code ran/,
  );
});

test("python: an unused function the reproducer imports (ImportError before) never reproduces", async () => {
  const r = await truthRun(
    py({ patch: PY_HELPER, reproducer: "from calc.ops import helper\n\nassert helper() == 42\n" }),
  );
  assert.notEqual(r.result.status, "fixed", r.result.reason);
  assert.equal(r.result.reproducer?.status, "not-reproduced");
  assert.match(
    r.result.reproducer?.summary ?? "",
    /the script does not import \(ImportError: cannot import name 'helper'/,
  );
});

test("python: the unused function caught by `except ImportError` and asserted on is not traced through the patch", async () => {
  const r = await truthRun(
    py({
      patch: PY_HELPER,
      reproducer:
        "try:\n    from calc.ops import helper\nexcept ImportError:\n    helper = None\n\nassert helper is not None and helper() == 42, 'no helper'\n",
    }),
  );
  assert.equal(r.result.status, "patched", r.result.reason);
  assert.equal(r.result.reproducer?.evidence?.backs_fix, false);
  assert.match(
    r.result.reason,
    /not "fixed": shown only by the reproducer, which the model wrote, and it cannot back "fixed": its failing run before the patch never ran the lines the patch replaces \(calc\/ops\.py:5 \(before\)\)/,
  );
});

test("python: an AssertionError raised while handling the ImportError does not reproduce", async () => {
  const r = await truthRun(
    py({
      patch: PY_HELPER,
      reproducer:
        "try:\n    from calc.ops import helper\nexcept ImportError:\n    raise AssertionError('helper is missing')\n\nassert helper() == 42\n",
    }),
  );
  assert.notEqual(r.result.status, "fixed", r.result.reason);
  assert.equal(r.result.reproducer?.status, "not-reproduced");
  assert.match(r.result.reproducer?.summary ?? "", /AssertionError was raised while handling ImportError/);
});

test("python: a fix in a module no test loads is patched, resting only on the reproducer", async () => {
  const r = await truthRun(
    py({
      files: PY_FILES({ "calc/extra.py": OPS }),
      location: { file: "calc/extra.py", method: "add" },
      patch: { ...PY_FIX, file: "calc/extra.py" },
      reproducer: PY_REPRO.replace("calc.ops", "calc.extra"),
    }),
  );
  assert.equal(r.result.status, "patched", r.result.reason);
  assert.equal(r.result.reproducer?.evidence?.backs_fix, true);
  assert.match(
    r.result.reason,
    /not "fixed": shown only by the reproducer, which the model wrote; no test of the repository loads this code$/,
  );
  assert.match(r.result.evidence?.not_fixed ?? "", /no test of the repository loads this code/);
});

test("python: a reproducer that does not parse, its echoed line saying AssertionError, does not reproduce", async () => {
  const r = await truthRun(
    py({ reproducer: "from calc.ops import add\n\nassert add(2, 3) == 5, AssertionError('wrong'\n" }),
  );
  assert.notEqual(r.result.status, "fixed", r.result.reason);
  assert.equal(r.result.reproducer?.status, "not-reproduced");
  assert.match(
    r.result.reproducer?.summary ?? "",
    /did not reproduce: the script does not parse \(SyntaxError at line 3\)/,
  );
  assert.equal(r.result.reproduced, false);
});

test("python: printing AssertionError to stderr and exiting 1 does not reproduce", async () => {
  const r = await truthRun(
    py({ reproducer: "import sys\n\nsys.stderr.write('AssertionError: add is wrong\\n')\nsys.exit(1)\n" }),
  );
  assert.notEqual(r.result.status, "fixed", r.result.reason);
  assert.equal(r.result.reproducer?.status, "not-reproduced");
  assert.match(r.result.reproducer?.summary ?? "", /exited with status 1 without an uncaught exception/);
});

test("python: an assertion about the source text, not through the patched code, cannot back fixed", async () => {
  const r = await truthRun(
    py({
      reproducer:
        "import pathlib\n\nsrc = pathlib.Path('calc/ops.py').read_text()\nif 'a - b' in src:\n    raise AssertionError('add subtracts')\n",
    }),
  );
  assert.equal(r.result.status, "patched", r.result.reason);
  assert.equal(r.result.reproducer?.evidence?.runs_patch?.before, false);
  assert.match(r.result.reason, /never ran the lines the patch replaces \(calc\/ops\.py:2 \(before\)\)/);
});

// --- JavaScript (node --test) ---

const SLUG =
  'export function slug(s) {\n  return s.toLowerCase().replace(" ", "-");\n}\n\nexport function upper(s) {\n  return s.toUpperCase();\n}\n';
const JS_FILES = (extra: Record<string, string> = {}): Record<string, string> => ({
  ".github/auto-fix.yml": "test: node --test\n",
  "package.json": JSON.stringify({ name: "slugs", private: true, type: "module" }),
  "src/slug.js": SLUG,
  "test/slug.test.js":
    'import { test } from "node:test";\nimport assert from "node:assert";\nimport { upper } from "../src/slug.js";\n\ntest("upper", () => assert.equal(upper("a"), "A"));\n',
  ...extra,
});
const JS_FIX = {
  file: "src/slug.js",
  original: '  return s.toLowerCase().replace(" ", "-");',
  patched: '  return s.toLowerCase().replaceAll(" ", "-");',
};
const JS_REPRO =
  'import assert from "node:assert/strict";\nimport { slug } from "./src/slug.js";\n\nassert.equal(slug("A B C"), "a-b-c");\n';
const js = (over: Partial<TruthCase>): TruthCase => ({
  files: JS_FILES(),
  location: { file: "src/slug.js", method: "slug" },
  patch: JS_FIX,
  reproducer: JS_REPRO,
  reproducerLanguage: "javascript",
  ...over,
});

test("javascript control: an assertion through the patched line, and a related test that loads the code: fixed", async () => {
  const r = await truthRun(js({}));
  assert.equal(r.result.status, "fixed", r.result.reason);
  const ev = r.result.reproducer?.evidence;
  assert.equal(ev?.backs_fix, true, ev?.detail ?? "no evidence");
  assert.equal(ev?.before?.type, "AssertionError");
  assert.equal(ev?.runs_patch?.before, true);
  assert.equal(ev?.runs_patch?.after, true);
  assert.match(r.result.evidence?.rests_on ?? "", /the 1 related test that loads the patched code ran/);
});

test("javascript: an unused export the reproducer imports never reproduces", async () => {
  const r = await truthRun(
    js({
      patch: {
        file: "src/slug.js",
        original: "export function upper(s) {",
        patched: "export function fixed() {\n  return 1;\n}\n\nexport function upper(s) {",
      },
      reproducer:
        'import assert from "node:assert/strict";\nimport { fixed } from "./src/slug.js";\n\nassert.equal(fixed(), 1);\n',
    }),
  );
  assert.notEqual(r.result.status, "fixed", r.result.reason);
  assert.equal(r.result.reproducer?.status, "not-reproduced");
  assert.match(
    r.result.reproducer?.summary ?? "",
    /the script does not import \(SyntaxError: The requested module '\.\/src\/slug\.js' does not provide an export named 'fixed'\)/,
  );
});

test("javascript: a reproducer that does not parse, its echoed line saying AssertionError, does not reproduce", async () => {
  const r = await truthRun(
    js({ reproducer: 'import { slug } from "./src/slug.js";\nthrow new AssertionError(slug("A B C") ;\n' }),
  );
  assert.notEqual(r.result.status, "fixed", r.result.reason);
  assert.equal(r.result.reproducer?.status, "not-reproduced");
  assert.match(
    r.result.reproducer?.summary ?? "",
    /did not reproduce: the script does not parse \(SyntaxError at line 2\)/,
  );
});

test("javascript: a fix in a module no test loads is patched, resting only on the reproducer", async () => {
  const r = await truthRun(
    js({
      files: JS_FILES({ "src/extra.js": SLUG }),
      location: { file: "src/extra.js", method: "slug" },
      patch: { ...JS_FIX, file: "src/extra.js" },
      reproducer: JS_REPRO.replace("./src/slug.js", "./src/extra.js"),
    }),
  );
  assert.equal(r.result.status, "patched", r.result.reason);
  assert.match(
    r.result.reason,
    /shown only by the reproducer, which the model wrote; no test of the repository loads this code$/,
  );
});

test("javascript: a reproducer that throws an AssertionError by hand without calling the code cannot back fixed", async () => {
  const r = await truthRun(
    js({
      reproducer:
        'import assert from "node:assert/strict";\nimport { readFileSync } from "node:fs";\n\nassert.ok(readFileSync("src/slug.js", "utf8").includes("replaceAll"), "slug replaces once");\n',
    }),
  );
  assert.equal(r.result.status, "patched", r.result.reason);
  assert.equal(r.result.reproducer?.evidence?.runs_patch?.before, false);
  assert.match(r.result.reason, /never ran the lines the patch replaces \(src\/slug\.js:2 \(before\)\)/);
});

// --- Go (go test): endings read from the toolchain's output; runs not traced ---

const noGo = !hasGo() && "go is not installed";
function hasGo(): boolean {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const GO_FILES = {
  ".github/auto-fix.yml": "test: go test ./...\ntimeouts:\n  test: 300\n  reproducer: 300\n",
  "go.mod": "module example.com/q\n\ngo 1.19\n",
  "calc/calc.go":
    "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Half(a int) int {\n\treturn a / 3\n}\n",
  // Compiled with the package, never tests Half: no repository test shows the bug.
  "calc/calc_test.go":
    'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n',
};
const go = (reproducer: string): TruthCase => ({
  files: GO_FILES,
  location: { file: "calc/calc.go", method: "Half" },
  patch: { file: "calc/calc.go", original: "\treturn a / 3", patched: "\treturn a / 2" },
  reproducer,
  reproducerLanguage: "go",
});

test("go: a panic through the fixed code is reproduced, but an untraced reproducer alone is not fixed", {
  skip: noGo,
}, async () => {
  const r = await truthRun(
    go(
      'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/q/calc"\n)\n\nfunc main() {\n\tif got := calc.Half(4); got != 2 {\n\t\tpanic(fmt.Sprintf("AssertionError: Half(4) = %d", got))\n\t}\n}\n',
    ),
  );
  assert.equal(r.result.reproducer?.status, "reproduced", r.result.reproducer?.summary ?? "");
  assert.equal(r.result.reproducer?.evidence?.before?.type, "panic");
  assert.equal(r.result.status, "patched", r.result.reason);
  assert.match(
    r.result.reason,
    /it cannot back "fixed": its runs cannot be traced for this runtime or command/,
  );
});

test("go: a reproducer that does not compile, its echoed line saying AssertionError, does not reproduce", {
  skip: noGo,
}, async () => {
  const r = await truthRun(
    go(
      'package main\n\nimport "example.com/q/calc"\n\nfunc main() {\n\tif calc.Half(4) != 2 {\n\t\tpanic("AssertionError: Half"\n\t}\n}\n',
    ),
  );
  assert.notEqual(r.result.status, "fixed", r.result.reason);
  assert.equal(r.result.reproducer?.status, "not-reproduced");
  assert.match(
    r.result.reproducer?.summary ?? "",
    /did not reproduce: the script does not compile \(build failure: syntax error/,
  );
});
