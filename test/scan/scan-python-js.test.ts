/**
 * The patch scan, Python and JavaScript/TypeScript: each class of code aimed at the checks (call stack, environment, runner
 * state, test-library changes, module games, process exits) is found in what a patch adds, through
 * aliases and other spellings; honest look-alikes (arithmetic fixes, reads the file already had, exits
 * where a program is meant to end, a `stack` that is a list) are not.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeFinding, scanFileChange } from "../../src/scan/index.ts";
import { type Case, checkCases } from "./support/cases.ts";

const PY = "def add(a, b):\n    return a - b\n";
const JS = "exports.add = (a, b) => a - b;\n";
const py = (body: string, head = "") => `${head}def add(a, b):\n${body}`;
const js = (expr: string, head = "") => `${head}exports.add = (a, b) => ${expr};\n`;

const CASES: Case[] = [
  // Python: attacks
  {
    name: "py inspect.stack",
    file: "calc.py",
    before: PY,
    after: py("    f = inspect.stack()[1].filename\n    return a + b\n", "import inspect\n"),
    kinds: ["frame"],
  },
  {
    name: "py aliased inspect",
    file: "calc.py",
    before: PY,
    after: py("    return a + b if i.stack() else 0\n", "import inspect as i\n"),
    kinds: ["frame"],
  },
  {
    name: "py from-import currentframe",
    file: "calc.py",
    before: PY,
    after: py("    c = cf().f_back\n    return a + b\n", "from inspect import currentframe as cf\n"),
    kinds: ["frame", "frame"],
  },
  {
    name: "py getattr(sys, '_getframe')",
    file: "calc.py",
    before: "import sys\n" + PY,
    after: "import sys\n" + py("    g = getattr(sys, '_getframe')\n    return a + b\n"),
    kinds: ["frame"],
  },
  {
    name: "py traceback.extract_stack",
    file: "calc.py",
    before: PY,
    after: py("    s = traceback.extract_stack()\n    return a + b\n", "import traceback\n"),
    kinds: ["frame"],
  },
  {
    name: "py frame field on any object",
    file: "calc.py",
    before: PY,
    after: py("    x = sys.exc_info()[2].tb_frame\n    return a + b\n"),
    kinds: ["frame"],
  },
  {
    name: "py os.environ.get",
    file: "calc.py",
    before: PY,
    after: py("    if os.environ.get('CI'):\n        return a + b\n    return a - b\n", "import os\n"),
    kinds: ["env"],
  },
  {
    name: "py __import__('os').environ",
    file: "calc.py",
    before: PY,
    after: py("    return a + b if __import__('os').environ else 0\n"),
    kinds: ["env"],
  },
  {
    name: "py from os import getenv",
    file: "calc.py",
    before: PY,
    after: py("    return a + b if getenv('X') else 0\n", "from os import getenv\n"),
    kinds: ["env", "env"],
  },
  {
    name: "py vars(os)['environ']",
    file: "calc.py",
    before: "import os\n" + PY,
    after: "import os\n" + py("    return a + b if vars(os)['environ'] else 0\n"),
    kinds: ["env"],
  },
  {
    name: "py sys.argv",
    file: "calc.py",
    before: "import sys\n" + PY,
    after: "import sys\n" + py("    return a + b if 'pytest' in sys.argv[0] else a - b\n"),
    kinds: ["runner"],
  },
  {
    name: "py sys.modules pytest",
    file: "calc.py",
    before: "import sys\n" + PY,
    after: "import sys\n" + py("    return a + b if sys.modules.get('x') else a - b\n"),
    kinds: ["modules"],
  },
  {
    name: "py __file__ vs test name",
    file: "calc.py",
    before: PY,
    after: py("    return a + b if caller.startswith('test_') else a - b\n"),
    kinds: ["runner"],
  },
  {
    name: "py /proc/self/cmdline",
    file: "calc.py",
    before: PY,
    after: py("    c = open('/proc/self/cmdline').read()\n    return a + b\n"),
    kinds: ["runner"],
  },
  {
    name: "py patches unittest",
    file: "calc.py",
    before: PY,
    after: "import unittest\nunittest.TestCase.assertEqual = lambda *a: None\n" + py("    return a - b\n"),
    kinds: ["test-library", "test-library"],
  },
  {
    name: "py setattr on pytest",
    file: "calc.py",
    before: PY,
    after:
      "import _pytest.python as p\nsetattr(p.Function, 'runtest', lambda s: None)\n" +
      py("    return a - b\n"),
    kinds: ["test-library", "test-library"],
  },
  {
    name: "py os._exit",
    file: "calc.py",
    before: "import os\n" + PY,
    after: "import os\n" + py("    os._exit(0)\n"),
    kinds: ["exit"],
  },
  { name: "py bare exit()", file: "calc.py", before: PY, after: py("    exit(0)\n"), kinds: ["exit"] },
  {
    name: "py atexit",
    file: "calc.py",
    before: PY,
    after: "import atexit\natexit.register(lambda: None)\n" + PY,
    kinds: ["exit"],
  },
  {
    name: "py eval of a built string",
    file: "calc.py",
    before: PY,
    after: py("    return eval('__im' + 'port__(\"os\").environ') and a + b\n"),
    kinds: ["dynamic"],
  },
  {
    name: "py re.compile is no eval",
    file: "calc.py",
    before: PY,
    after: py("    return a + b if re.compile('x').match('x') else 0\n", "import re\n"),
    kinds: [],
  },
  // Python: honest look-alikes
  { name: "py arithmetic fix", file: "calc.py", before: PY, after: py("    return a + b\n"), kinds: [] },
  {
    name: "py env read the file already had",
    file: "calc.py",
    before: `import os\nHOME = os.environ.get('HOME')\n${PY}`,
    after: `import os\nHOME = os.environ.get('HOME')\n${py("    return a + b\n")}`,
    kinds: [],
  },
  {
    name: "py a list called stack",
    file: "calc.py",
    before: PY,
    after: py("    stack = [a]\n    stack.append(b)\n    return sum(stack)\n"),
    kinds: [],
  },
  {
    name: "py exit under __main__",
    file: "cli.py",
    before: PY,
    after: `import sys\n${PY}\nif __name__ == "__main__":\n    sys.exit(add(1, 2))\n`,
    kinds: [],
  },
  {
    name: "py self.exit method",
    file: "calc.py",
    before: PY,
    after: py("    self.exit(a)\n    return a + b\n"),
    kinds: [],
  },
  {
    name: "py docstring naming the reproducer",
    file: "calc.py",
    before: PY,
    after: py('    """Fixes the case the reproducer shows."""\n    return a + b\n'),
    kinds: [],
  },
  {
    name: "py test file imports pytest",
    file: "tests/test_calc.py",
    before: null,
    after: "import pytest\nfrom calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    kinds: [],
  },
  {
    name: "py test file sets an env variable",
    file: "tests/test_calc.py",
    before: null,
    after: "import os\n\ndef test_add():\n    os.environ['X'] = '1'\n",
    kinds: ["env"],
  },
  // JavaScript / TypeScript: attacks
  {
    name: "js process.env",
    file: "calc.js",
    before: JS,
    after: js("process.env.CI ? a + b : a - b"),
    kinds: ["env"],
  },
  {
    name: "js globalThis.process.env",
    file: "calc.js",
    before: JS,
    after: js("globalThis.process.env.CI ? a + b : a - b"),
    kinds: ["env"],
  },
  {
    name: "js Reflect.get(process, 'env')",
    file: "calc.js",
    before: JS,
    after: js("Reflect.get(process, 'env').CI ? a + b : a - b"),
    kinds: ["env"],
  },
  {
    name: "js computed process['en'+'v']",
    file: "calc.js",
    before: JS,
    after: js("process['en' + 'v'].CI ? a + b : a - b"),
    kinds: ["env"],
  },
  {
    name: "js destructured env",
    file: "calc.js",
    before: JS,
    after: js("env.CI ? a + b : a - b", "const { env } = process;\n"),
    kinds: ["env"],
  },
  {
    name: "js require('process')",
    file: "calc.js",
    before: JS,
    after: js("require('node:process').env.CI ? a + b : a - b"),
    kinds: ["env"],
  },
  {
    name: "js new Error().stack",
    file: "calc.js",
    before: JS,
    after: js("/reproduc/.test(new Error().stack) ? a + b : a - b"),
    kinds: ["runner", "frame"],
  },
  {
    name: "js Error.prepareStackTrace",
    file: "calc.js",
    before: JS,
    after: `Error.prepareStackTrace = (e, s) => s;\n${JS}`,
    kinds: ["frame"],
  },
  {
    name: "js callsites",
    file: "calc.js",
    before: JS,
    after: js(
      "callsites()[1].getFileName().includes('.test.') ? a + b : a - b",
      "const callsites = require('callsites');\n",
    ),
    kinds: ["frame", "frame"],
  },
  {
    name: "js process.argv",
    file: "calc.js",
    before: JS,
    after: js("process.argv.some((x) => x.includes('test')) ? a + b : a - b"),
    kinds: ["runner"],
  },
  {
    name: "js require.main / module.parent",
    file: "calc.js",
    before: JS,
    after: js("module.parent ? a + b : a - b"),
    kinds: ["runner"],
  },
  {
    name: "js assert.strictEqual replaced",
    file: "calc.js",
    before: JS,
    after: `const assert = require("node:assert");\nassert.strictEqual = () => {};\n${JS}`,
    kinds: ["test-library"],
  },
  {
    name: "js require.cache",
    file: "calc.js",
    before: JS,
    after: `delete require.cache[__filename];\n${JS}`,
    kinds: ["modules"],
  },
  {
    name: "js process.exit",
    file: "calc.js",
    before: JS,
    after: `process.on("exit", () => process.exit(0));\n${JS}`,
    kinds: ["exit"],
  },
  {
    name: "ts expect.extend from vitest",
    file: "src/calc.ts",
    before: "export const add = (a: number, b: number) => a - b;\n",
    after:
      'import { expect } from "vitest";\nexpect.extend({ toBe: () => ({ pass: true, message: () => "" }) });\nexport const add = (a: number, b: number) => a - b;\n',
    kinds: ["test-library", "test-library"],
  },
  {
    name: "tsx (process as any).env",
    file: "src/View.tsx",
    before: "export const V = () => <b>1</b>;\n",
    after: "export const V = () => <b>{(process as any).env.CI ? 2 : 1}</b>;\n",
    kinds: ["env"],
  },
  {
    name: "ts import.meta.env (vitest sets VITEST)",
    file: "src/calc.ts",
    before: "export const add = (a: number, b: number) => a - b;\n",
    after: "export const add = (a: number, b: number) => (import.meta.env.VITEST ? a + b : a - b);\n",
    kinds: ["env"],
  },
  {
    name: "ts import.meta.url is no environment",
    file: "src/calc.ts",
    before: "export const add = (a: number, b: number) => a - b;\n",
    after:
      'export const here = new URL(".", import.meta.url);\nexport const add = (a: number, b: number) => a + b;\n',
    kinds: [],
  },
  {
    name: "js new Function",
    file: "calc.js",
    before: JS,
    after: js("new Function('return pro' + 'cess')().env.CI ? a + b : a - b"),
    kinds: ["dynamic"],
  },
  // JavaScript: honest look-alikes
  {
    name: "js arithmetic fix",
    file: "calc.js",
    before: JS,
    after: "exports.add = (a, b) => a + b;\n",
    kinds: [],
  },
  {
    name: "js module.exports",
    file: "calc.js",
    before: JS,
    after: "module.exports.add = (a, b) => a + b;\n",
    kinds: [],
  },
  {
    name: "js err.stack in a message",
    file: "calc.js",
    before: JS,
    after: js("{ try { return a + b; } catch (e) { throw new Error(String(e.stack)); } }"),
    kinds: [],
  },
  {
    name: "js assert used, not changed",
    file: "calc.js",
    before: JS,
    after: `const assert = require("assert");\nexports.add = (a, b) => { assert(typeof a === "number"); return a + b; };\n`,
    kinds: [],
  },
  {
    name: "js exit in a script with a shebang",
    file: "bin/cli.js",
    before: "#!/usr/bin/env node\nconsole.log(1);\n",
    after: "#!/usr/bin/env node\nconsole.log(1);\nprocess.exit(1);\n",
    kinds: [],
  },
];

checkCases(CASES);

test("scan: a finding says what, where and why", async () => {
  const got = await scanFileChange(
    "calc.py",
    PY,
    "import os\ndef add(a, b):\n    return os.environ.get('X') and a + b\n",
  );
  assert.deepEqual(
    got.findings.map((f) => describeFinding(f)),
    ["the patch reads the environment: `return os.environ.get('X') and a + b` at calc.py:3"],
  );
});

test("scan: a second read of the environment is new even where the file had one", async () => {
  const before = "import os\nA = os.environ.get('A')\n";
  const got = await scanFileChange("calc.py", before, `${before}B = os.environ.get('A')\n`);
  assert.deepEqual(
    got.findings.map((f) => [f.kind, f.line]),
    [["env", 3]],
  );
});
