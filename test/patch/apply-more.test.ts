import assert from "node:assert/strict";
import { test } from "node:test";
import { compareStatus, PATCH_FORMAT_HELP, PATCH_STATUS_ORDER } from "../../src/patch/index.ts";
import { after, apply, edit } from "./helpers.ts";

const PY = `class Store:
    def __init__(self):
        self.items = {}

    def put(self, key, value):
        self.items[key] = value

    def get(self, key):
        return self.items[key]

    def delete(self, key):
        del self.items[key]
`;

test("statuses are ordered worst to best and compare accordingly", () => {
  assert.deepEqual(
    PATCH_STATUS_ORDER.filter((s) =>
      [
        "NO_PATCH",
        "RAW_PATCH_BUT_UNPARSED",
        "RAW_PATCH_BUT_UNMATCHED",
        "MATCHED_BUT_EMPTY_DIFF",
        "MATCHED_BUT_EMPTY_ORIGIN",
        "APPLICABLE_PATCH",
      ].includes(s),
    ),
    [
      "NO_PATCH",
      "RAW_PATCH_BUT_UNPARSED",
      "RAW_PATCH_BUT_UNMATCHED",
      "MATCHED_BUT_EMPTY_DIFF",
      "MATCHED_BUT_EMPTY_ORIGIN",
      "APPLICABLE_PATCH",
    ],
  );
  assert.ok(compareStatus("NO_PATCH", "APPLICABLE_PATCH") < 0);
  assert.ok(compareStatus("RAW_PATCH_BUT_AMBIGUOUS", "RAW_PATCH_BUT_UNMATCHED") > 0);
  assert.equal(compareStatus("MATCHED_BUT_SYNTAX_ERROR", "MATCHED_BUT_SYNTAX_ERROR"), 0);
  assert.match(PATCH_FORMAT_HELP, /<file new="true">/);
});

interface Case {
  name: string;
  answer: string;
  expected: string;
  note?: RegExp;
}

const cases: Case[] = [
  {
    name: "placeholder standing for unchanged lines keeps them",
    answer: edit(
      "store.py",
      "    def put(self, key, value):\n        self.items[key] = value\n\n    def get(self, key):\n        return self.items[key]",
      "    def put(self, key, value):\n        # ... existing code ...\n\n    def get(self, key):\n        return self.items.get(key)",
    ),
    expected: PY.replace("return self.items[key]", "return self.items.get(key)"),
    note: /placeholder lines kept/,
  },
  {
    name: "misremembered context line (a token off) applies and is reported",
    answer: edit(
      "store.py",
      "    def get(self, name):\n        return self.items[key]\n\n    def delete(self, key):",
      "    def get(self, name):\n        return self.items.get(key)\n\n    def delete(self, key):",
    ),
    expected: PY.replace("return self.items[key]", "return self.items.get(key)"),
    note: /approximately.*line 8 reads "def get\(self, key\):"/,
  },
  {
    name: "placeholder in <original> and <patched> keeps the code it stands for",
    answer: edit(
      "store.py",
      "    def __init__(self):\n        self.items = {}\n    # ... existing code ...\n    def delete(self, key):\n        del self.items[key]",
      "    def __init__(self):\n        self.items = dict()\n    # ... existing code ...\n    def delete(self, key):\n        self.items.pop(key, None)",
    ),
    expected: PY.replace("self.items = {}", "self.items = dict()").replace(
      "del self.items[key]",
      "self.items.pop(key, None)",
    ),
    note: /placeholder lines kept/,
  },
  {
    name: "file named with the lines the model looked at",
    answer: edit("store.py:8-9", "        return self.items[key]", "        return self.items.get(key)"),
    expected: PY.replace("return self.items[key]", "return self.items.get(key)"),
  },
  {
    name: "a <file> named in prose and an edit repeated verbatim",
    answer:
      "First I looked at <file>store.py</file> and found the bug.\n" +
      edit("store.py", "        del self.items[key]", "        self.items.pop(key, None)") +
      "\nTo repeat:\n" +
      edit("store.py", "        del self.items[key]", "        self.items.pop(key, None)"),
    expected: PY.replace("del self.items[key]", "self.items.pop(key, None)"),
    note: /repeats edit 1 exactly/,
  },
  {
    name: "line numbers with colons",
    answer: edit(
      "store.py",
      "11:    def delete(self, key):\n12:        del self.items[key]",
      "11:    def delete(self, key):\n12:        self.items.pop(key, None)",
    ),
    expected: PY.replace("del self.items[key]", "self.items.pop(key, None)"),
  },
  {
    name: "line numbers with tabs, new lines unnumbered",
    answer: edit(
      "store.py",
      "  8\t    def get(self, key):\n  9\t        return self.items[key]",
      "    def get(self, key, default=None):\n        return self.items.get(key, default)",
    ),
    expected: PY.replace(
      "def get(self, key):\n        return self.items[key]",
      "def get(self, key, default=None):\n        return self.items.get(key, default)",
    ),
  },
  {
    name: "second edit builds on the first",
    answer:
      edit("store.py", "        self.items = {}", "        self.items = {}\n        self.hits = 0") +
      edit(
        "store.py",
        "        self.items = {}\n        self.hits = 0",
        "        self.items = {}\n        self.hits = 0\n        self.misses = 0",
      ),
    expected: PY.replace(
      "self.items = {}\n",
      "self.items = {}\n        self.hits = 0\n        self.misses = 0\n",
    ),
  },
  {
    name: "two edits in one file, given bottom first",
    answer:
      edit("store.py", "        del self.items[key]", "        self.items.pop(key)") +
      edit("store.py", "        self.items = {}", "        self.items: dict = {}"),
    expected: PY.replace("del self.items[key]", "self.items.pop(key)").replace(
      "self.items = {}",
      "self.items: dict = {}",
    ),
  },
  {
    name: "one <file> followed by two original/patched pairs",
    answer:
      "<file>store.py</file>\n<original>\n        self.items = {}\n</original>\n<patched>\n        self.items = dict()\n</patched>\n" +
      "<original>\n        del self.items[key]\n</original>\n<patched>\n        self.items.pop(key)\n</patched>\n",
    expected: PY.replace("self.items = {}", "self.items = dict()").replace(
      "del self.items[key]",
      "self.items.pop(key)",
    ),
  },
  {
    name: "fence inside the tags",
    answer:
      "<file>store.py</file>\n<original>\n```python\n        del self.items[key]\n```\n</original>\n<patched>\n```python\n        self.items.pop(key)\n```\n</patched>",
    expected: PY.replace("del self.items[key]", "self.items.pop(key)"),
  },
];

for (const c of cases) {
  test(c.name, async () => {
    const r = await apply({ "store.py": PY }, c.answer);
    assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
    assert.equal(after(r, "store.py"), c.expected);
    if (c.note) assert.match(r.edits.map((e) => e.message).join("\n"), c.note);
  });
}

test("a placeholder in <original> that <patched> drops is refused", async () => {
  const r = await apply(
    { "store.py": PY },
    edit(
      "store.py",
      "    def __init__(self):\n        # ... existing code ...\n    def delete(self, key):",
      "    def __init__(self):\n        self.items = {}\n    def delete(self, key):",
    ),
  );
  assert.equal(r.status, "RAW_PATCH_BUT_PLACEHOLDER");
  assert.match(r.feedback, /does not keep that placeholder/);
});

test("edits whose blocks share unchanged context lines both apply", async () => {
  const r = await apply(
    { "store.py": PY },
    edit(
      "store.py",
      "    def get(self, key):\n        return self.items[key]\n\n    def delete(self, key):",
      "    def get(self, key):\n        return self.items.get(key)\n\n    def delete(self, key):",
    ) +
      edit(
        "store.py",
        "    def delete(self, key):\n        del self.items[key]",
        "    def delete(self, key):\n        self.items.pop(key, None)",
      ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "store.py"),
    PY.replace("return self.items[key]", "return self.items.get(key)").replace(
      "del self.items[key]",
      "self.items.pop(key, None)",
    ),
  );
});

test("overlapping edits are refused", async () => {
  const r = await apply(
    { "store.py": PY },
    edit(
      "store.py",
      "    def get(self, key):\n        return self.items[key]",
      "    def get(self, key):\n        return None",
    ) +
      edit(
        "store.py",
        "        return self.items[key]\n\n    def delete(self, key):",
        "        return 1\n\n    def delete(self, key):",
      ),
  );
  assert.equal(r.status, "RAW_PATCH_BUT_AMBIGUOUS");
  assert.match(r.feedback, /overlaps the lines edit 1 changes/);
});

test("a new file through the explicit form", async () => {
  const r = await apply(
    { "store.py": PY },
    '<file new="true">pkg/cache.py</file>\n<original></original>\n<patched>\ndef cached(f):\n    return f\n</patched>',
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(r.changedFiles[0]!.path, "pkg/cache.py");
  assert.equal(r.changedFiles[0]!.created, true);
  assert.equal(r.changedFiles[0]!.after, "def cached(f):\n    return f\n");
  assert.match(r.diff, /new file mode 100644\n--- \/dev\/null\n\+\+\+ b\/pkg\/cache\.py/);
});

test("a file created by one edit can be changed by the next", async () => {
  const r = await apply(
    { "store.py": PY },
    '<file new="true">pkg/cache.py</file>\n<original></original>\n<patched>\ndef cached(f):\n    return f\n</patched>\n' +
      edit("pkg/cache.py", "    return f", "    return staticmethod(f)"),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, "pkg/cache.py"), "def cached(f):\n    return staticmethod(f)\n");
  assert.match(r.diff, /new file mode 100644[\s\S]*\+ {4}return staticmethod\(f\)/);
});

test("a missing file without the new form is refused with the hint", async () => {
  const r = await apply({ "store.py": PY }, edit("pkg/cache.py", "", "x = 1"));
  assert.equal(r.status, "RAW_PATCH_BUT_UNMATCHED");
  assert.match(r.feedback, /new="true"/);
});

test("encoding, BOM and final newline are kept", async () => {
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("x = 'é'\ny = 2", "utf8")]);
  const latin = Buffer.from("s = 'caf\u00e9'\nt = 1\n", "latin1");
  const r = await apply(
    { "a.py": bom, "b.py": latin },
    edit("a.py", "y = 2", "y = 3") + edit("b.py", "t = 1", "t = 2"),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  const a = r.changedFiles.find((f) => f.path === "a.py")!;
  assert.equal(a.after, "x = 'é'\ny = 3");
  assert.equal(a.encoding, "utf8-bom");
  const b = r.changedFiles.find((f) => f.path === "b.py")!;
  assert.equal(b.after, "s = 'caf\u00e9'\nt = 2\n");
  assert.equal(b.encoding, "latin1");
});

test("a line that merely starts with a number is not taken for a line-number prefix", async () => {
  const src = "CODES = {\n    1: 'one',\n    2: 'two',\n}\n";
  const r = await apply(
    { "codes.py": src },
    edit("codes.py", "    2: 'two',", "    2: 'two',\n    3: 'three',"),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, "codes.py"), "CODES = {\n    1: 'one',\n    2: 'two',\n    3: 'three',\n}\n");
});
