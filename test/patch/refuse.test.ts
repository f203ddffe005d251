import assert from "node:assert/strict";
import { test } from "node:test";
import type { PatchStatus } from "../../src/patch/index.ts";
import { apply, edit } from "./helpers.ts";

const PY = `def load(path):
    with open(path) as f:
        return f.read()


def save(path, data):
    with open(path, "w") as f:
        f.write(data)


def size(path):
    with open(path) as f:
        return len(f.read())
`;

const GO = "package main\n\nfunc main() {\n\tx := 1\n\tprintln(x)\n}\n";

const FILES: Record<string, string | Uint8Array> = {
  "app/io.py": PY,
  "app/util.py": "def one():\n    return 1\n",
  "lib/util.py": "def two():\n    return 2\n",
  "cmd/main.go": GO,
  "tests/test_io.py": "def test_load():\n    assert True\n",
  "app/io_test.go": "package app\n",
  ".github/workflows/ci.yml": "on: push\n",
  ".gitlab-ci.yml": "test:\n  script: make\n",
  "assets/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]),
  "data/blob.dat": new Uint8Array([1, 2, 0, 3, 4]),
  "config/secrets.py": "TOKEN = None\n",
  "node_modules/left-pad/index.js": "module.exports = 1;\n",
};

interface Case {
  name: string;
  answer: string;
  status: PatchStatus;
  message: RegExp;
  protect?: string[];
}

const cases: Case[] = [
  {
    name: "no edits at all",
    answer: "I think the bug is in load().",
    status: "NO_PATCH",
    message: /no edit/i,
  },
  {
    name: "unclosed <patched> (cut-off answer)",
    answer: "<file>app/io.py</file>\n<original>\ndef load(path):\n</original>\n<patched>\ndef load(p):\n",
    status: "RAW_PATCH_BUT_UNPARSED",
    message: /not closed/,
  },
  {
    name: "tags without <file>",
    answer: "<original>\nx\n</original>\n<patched>\ny\n</patched>",
    status: "RAW_PATCH_BUT_UNPARSED",
    message: /<file>/,
  },
  {
    name: "original that appears three times",
    answer: edit("app/io.py", "    with open(path) as f:", "    with open(path, encoding='utf-8') as f:"),
    status: "RAW_PATCH_BUT_AMBIGUOUS",
    message:
      /2 places in app\/io\.py \(exactly\), starting at lines 2 \(in `def load\(path\):`\), 12 \(in `def size\(path\):`\)/,
  },
  {
    name: "original ambiguous once whitespace is ignored",
    answer: edit("app/io.py", "with open(path) as f:", "with open(path, encoding='utf-8') as f:"),
    status: "RAW_PATCH_BUT_AMBIGUOUS",
    message: /lines 2 \(in `def load\(path\):`\), 12 \(in `def size\(path\):`\)/,
  },
  {
    name: "original not in the file shows the closest region",
    answer: edit(
      "app/io.py",
      "def load(path):\n    with open(path, 'rb') as fh:\n        return fh.read()",
      "def load(path):\n    return b''",
    ),
    status: "RAW_PATCH_BUT_UNMATCHED",
    message: /closest region is lines 1-3[\s\S]*1 def load\(path\):/,
  },
  {
    name: "misremembered token on the line being changed",
    answer: edit(
      "app/io.py",
      'def save(path, data):\n    with open(path, "wb") as f:\n        f.write(data)',
      'def save(path, data):\n    with open(path, "wb", buffering=0) as f:\n        f.write(data)',
    ),
    status: "RAW_PATCH_BUT_UNMATCHED",
    message: /reads "with open\(path, "w"\) as f:"/,
  },
  {
    name: "unknown file",
    answer: edit("app/nothere.py", "x = 1", "x = 2"),
    status: "RAW_PATCH_BUT_UNMATCHED",
    message: /No file app\/nothere\.py/,
  },
  {
    name: "ambiguous basename",
    answer: edit("util.py", "def one():", "def one_():"),
    status: "RAW_PATCH_BUT_AMBIGUOUS",
    message: /app\/util\.py, lib\/util\.py/,
  },
  {
    name: "path leaving the repository",
    answer: edit("../outside.py", "x = 1", "x = 2"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /leaves the repository/,
  },
  {
    name: "absolute path elsewhere",
    answer: edit("/etc/passwd", "root", "toor"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /outside the repository/,
  },
  {
    name: "python test file",
    answer: edit("tests/test_io.py", "    assert True", "    assert False"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /test file/,
  },
  {
    name: "go test file",
    answer: edit("app/io_test.go", "package app", "package app_test"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /test file/,
  },
  {
    name: "GitHub workflow",
    answer: edit(".github/workflows/ci.yml", "on: push", "on: [push, pull_request]"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /CI or repository configuration/,
  },
  {
    name: "GitLab CI file",
    answer: edit(".gitlab-ci.yml", "  script: make", "  script: make test"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /CI/,
  },
  {
    name: "vendored dependency",
    answer: edit("node_modules/left-pad/index.js", "module.exports = 1;", "module.exports = 2;"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /vendored/,
  },
  {
    name: "binary file by content",
    answer: edit("data/blob.dat", "x", "y"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /binary/,
  },
  {
    name: "binary file by extension",
    answer: edit("assets/logo.png", "PNG", "GIF"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /binary/,
  },
  {
    name: "protected glob from the repository configuration",
    answer: edit("config/secrets.py", "TOKEN = None", "TOKEN = 'x'"),
    status: "RAW_PATCH_BUT_UNSAFE_PATH",
    message: /protected.*config\/\*\*/,
    protect: ["config/**"],
  },
  {
    name: "empty original for an existing file",
    answer: "<file>app/io.py</file>\n<original>\n</original>\n<patched>\nimport os\n</patched>",
    status: "MATCHED_BUT_EMPTY_ORIGIN",
    message: /<original> is empty/,
  },
  {
    name: "new-file form for a file that exists",
    answer: '<file new="true">app/io.py</file>\n<original></original>\n<patched>\nx = 1\n</patched>',
    status: "MATCHED_BUT_EMPTY_ORIGIN",
    message: /already exists/,
  },
  {
    name: "patch that changes nothing",
    answer: edit("app/io.py", "def load(path):", "def load(path):"),
    status: "MATCHED_BUT_EMPTY_DIFF",
    message: /changes nothing/,
  },
  {
    name: "patched code that does not parse (python)",
    answer: edit(
      "app/io.py",
      "def load(path):\n    with open(path) as f:\n        return f.read()",
      "def load(path):\n    with open(path) as f\n        return f.read()",
    ),
    status: "MATCHED_BUT_SYNTAX_ERROR",
    message: /does not parse.*line \d+/,
  },
  {
    name: "patched code that does not parse (go)",
    answer: edit("cmd/main.go", "\tx := 1\n\tprintln(x)", "\tx := (1\n\tprintln(x)"),
    status: "MATCHED_BUT_SYNTAX_ERROR",
    message: /does not parse.*expected|does not parse.*could not read/,
  },
  {
    name: "placeholder among changed lines",
    answer: edit(
      "app/io.py",
      "def load(path):\n    with open(path) as f:\n        return f.read()",
      "def load(path):\n    # ... rest of the code ...\n    return data",
    ),
    status: "RAW_PATCH_BUT_PLACEHOLDER",
    message: /placeholder/,
  },
  {
    name: "placeholder inside <original>",
    answer: edit(
      "app/io.py",
      "def load(path):\n    # ... existing code ...\n        return f.read()",
      "def load(path):\n        return f.read().strip()",
    ),
    status: "RAW_PATCH_BUT_PLACEHOLDER",
    message: /Copy the original lines completely/,
  },
  {
    name: "multi-edit answer where the second edit fails applies nothing",
    answer:
      edit("app/util.py", "    return 1", "    return 11") +
      edit("lib/util.py", "    return 3", "    return 33"),
    status: "RAW_PATCH_BUT_UNMATCHED",
    message: /not found/,
  },
];

for (const c of cases) {
  test(`refused: ${c.name}`, async () => {
    const r = await apply(FILES, c.answer, c.protect ?? []);
    assert.equal(r.status, c.status, r.feedback);
    assert.equal(r.changedFiles.length, 0);
    assert.equal(r.diff, "");
    assert.match(r.feedback, c.message);
  });
}

test("a failing edit is named and the good one is reported as held back", async () => {
  const r = await apply(
    FILES,
    edit("app/util.py", "    return 1", "    return 11") +
      edit("lib/util.py", "    return 3", "    return 33"),
  );
  assert.equal(r.edits.length, 2);
  assert.equal(r.edits[0]!.status, "APPLICABLE_PATCH");
  assert.match(r.edits[0]!.message, /Not applied, because edit 2 failed/);
  assert.equal(r.edits[1]!.status, "RAW_PATCH_BUT_UNMATCHED");
  assert.equal(r.edits[1]!.file, "lib/util.py");
  assert.match(r.feedback, /Edit 2 \(lib\/util\.py\)/);
  assert.doesNotMatch(r.feedback, /Edit 1/);
});
