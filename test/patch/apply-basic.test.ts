import assert from "node:assert/strict";
import { test } from "node:test";
import { after, apply, edit } from "./helpers.ts";

const PY = `import os


class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        if self.name:
            return "hello " + self.name
        return "hello"


def helper(x):
    return x + 1
`;

interface Case {
  name: string;
  files: Record<string, string>;
  answer: string;
  path: string;
  expected: string;
}

const cases: Case[] = [
  {
    name: "python: exact match",
    files: { "pkg/mod.py": PY },
    answer: edit("pkg/mod.py", "def helper(x):\n    return x + 1", "def helper(x):\n    return x + 2"),
    path: "pkg/mod.py",
    expected: PY.replace("return x + 1", "return x + 2"),
  },
  {
    name: "python: original written without indentation, patched relative to it",
    files: { "pkg/mod.py": PY },
    answer: edit(
      "pkg/mod.py",
      'if self.name:\n    return "hello " + self.name',
      'if self.name and self.name.strip():\n    return "hello " + self.name.strip()',
    ),
    path: "pkg/mod.py",
    expected: PY.replace(
      '        if self.name:\n            return "hello " + self.name',
      '        if self.name and self.name.strip():\n            return "hello " + self.name.strip()',
    ),
  },
  {
    name: "python: first line unindented, the rest at absolute indentation",
    files: { "pkg/mod.py": PY },
    answer: edit(
      "pkg/mod.py",
      'def greet(self):\n        if self.name:\n            return "hello " + self.name',
      'def greet(self):\n        if self.name is not None:\n            return "hello " + self.name',
    ),
    path: "pkg/mod.py",
    expected: PY.replace("if self.name:", "if self.name is not None:"),
  },
  {
    name: "python: fences, header, prose and line-number prefixes",
    files: { "pkg/mod.py": PY },
    answer:
      "I looked at the code.\n\n# modification 1\n```python\n" +
      edit(
        "./pkg/mod.py",
        "14 def helper(x):\n15     return x + 1",
        "14 def helper(x):\n15     return x * 2",
      ) +
      "```\nThat should do it.",
    path: "pkg/mod.py",
    expected: PY.replace("return x + 1", "return x * 2"),
  },
  {
    name: "python: unique basename, blank-line difference, trailing whitespace",
    files: { "pkg/mod.py": PY, "other/x.py": "x = 1\n" },
    answer: edit(
      "mod.py",
      "class Greeter:\n    def __init__(self, name):   \n        self.name = name\n    def greet(self):",
      "class Greeter:\n    def __init__(self, name):\n        self.name = name or ''\n\n    def greet(self):",
    ),
    path: "pkg/mod.py",
    expected: PY.replace("self.name = name\n", "self.name = name or ''\n"),
  },
];

for (const c of cases) {
  test(c.name, async () => {
    const r = await apply(c.files, c.answer);
    assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
    assert.equal(after(r, c.path), c.expected);
  });
}
