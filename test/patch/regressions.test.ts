/** Answers that once went wrong in the benchmark, kept as fixed cases. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { after, apply, edit } from "./helpers.ts";

const GO =
  "package p\n\nfunc (s Socket) Dial() error {\n\tif err := s.mk(); err != nil {\n\t\treturn err\n\t}\n\treturn s.check()\n}\n\nfunc (s Socket) check() error {\n\treturn nil\n}\n";

const TS = `function connect(url: string, apiKey: string) {
  if (!apiKey) {
    throw new Error("no key");
  }

  redact(url);
  const socketURL = new URL(url);
  socketURL.searchParams.delete("api-key");
  return socketURL;
}
`;

const MERGE = `export function mergeFuncs(funcs: FunctionCov[]) {
  for (const funcCov of funcs) {
    if (funcCov.ranges.length > 0) {
      let funcCovs: FunctionCov[] | undefined = rangeToFuncs.get(rootRange);

      if (funcCovs === undefined ||
        // prefer block-level coverage.
        (!funcCovs[0].isBlockCoverage && funcCov.isBlockCoverage)) {
        funcCovs = [];
        rangeToFuncs.set(rootRange, funcCovs);
      } else if (funcCovs[0].isBlockCoverage && !funcCov.isBlockCoverage) {
        continue;
      }
      funcCovs.push(funcCov);
    }
  }
}
`;
const MERGE_REGION = MERGE.split("\n").slice(3, 11);
/** A line in four-space levels where the file has two. */
const double = (l: string) => " ".repeat(2 * (l.length - l.trimStart().length)) + l.trimStart();

const cases: {
  name: string;
  files: Record<string, string>;
  answer: string;
  path: string;
  expected: string;
}[] = [
  {
    name: "'N:' prefixes followed by a tab keep the tab as indentation",
    files: { "sock.go": GO },
    answer: edit(
      "sock.go",
      "4:\tif err := s.mk(); err != nil {\n5:\t\treturn err\n6:\t}\n7:\treturn s.check()\n8:}\n9:\n10:func (s Socket) check() error {",
      "\tif err := s.mk(); err != nil {\n\t\treturn err\n\t}\n\treturn s.check()\n}\n\nfunc (s Socket) check() (err error) {",
    ),
    path: "sock.go",
    expected: GO.replace("check() error {", "check() (err error) {"),
  },
  {
    name: "original dedented, patched absolute, one line moved into a new block",
    files: { "ws.ts": TS },
    answer: edit(
      "ws.ts",
      '}\n\nredact(url);\nconst socketURL = new URL(url);\nsocketURL.searchParams.delete("api-key");',
      '  }\n\n  redact(url);\n  const socketURL = new URL(url);\n  if (socketURL.searchParams.has("api-key")) {\n    socketURL.searchParams.delete("api-key");\n  }',
    ),
    path: "ws.ts",
    expected: TS.replace(
      '  socketURL.searchParams.delete("api-key");\n',
      '  if (socketURL.searchParams.has("api-key")) {\n    socketURL.searchParams.delete("api-key");\n  }\n',
    ),
  },
  {
    name: "a line moved into a new block inside a docstring keeps the model's nesting",
    files: { "doc.py": 'def f():\n    """Summary.\n\n    Details here.\n    """\n    return 1\n' },
    answer: edit(
      "doc.py",
      '    """Summary.\n\n    Details here.',
      '    """Summary.\n\n    if True:\n        Details here.',
    ),
    path: "doc.py",
    expected: 'def f():\n    """Summary.\n\n    if True:\n        Details here.\n    """\n    return 1\n',
  },
  {
    name: "a changed line after a blank line the model left out stays after it",
    files: { "t.ts": "class A {\n  x = 1;\n}\n\ninterface Node {\n  id: string;\n}\n" },
    answer: edit("t.ts", "}\ninterface Node {\n  id: string;", "}\ninterface TreeNode {\n  id: string;"),
    path: "t.ts",
    expected: "class A {\n  x = 1;\n}\n\ninterface TreeNode {\n  id: string;\n}\n",
  },
  {
    // Seed 7: in four-space levels a continuation line one level in also sits under the character after
    // `if (`; the file line it replaces is a level in from `if`, not aligned, so it stays a level.
    name: "another width: a changed continuation line a level under `if (` stays a level, not alignment",
    files: { "m.ts": MERGE },
    answer: edit(
      "m.ts",
      MERGE_REGION.map(double).join("\n"),
      MERGE_REGION.map(double).join("\n").replace("funcCovs[0].isBlock", "funcCovs[1].isBlock"),
    ),
    path: "m.ts",
    expected: MERGE.replace("(!funcCovs[0].isBlock", "(!funcCovs[1].isBlock"),
  },
];

for (const c of cases) {
  test(c.name, async () => {
    const r = await apply(c.files, c.answer);
    assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
    assert.equal(after(r, c.path), c.expected);
  });
}

test("a trailing placeholder the diff pairs past a repeated '}' is refused, never applied as a deletion", async () => {
  const file = [
    "export interface Batch {",
    "  results: FileOutcome[];",
    "}",
    "",
    "/** What one index build asks of the pool. */",
    "export interface ParseSession {",
    "  files: string[];",
    "}",
    "",
  ].join("\n");
  const original = file.trimEnd();
  const patched = "  results: FileOutcome[];\n\n}\n// ... rest of the code unchanged ...";
  const r = await apply(
    { "pool.ts": file },
    edit("pool.ts", original.split("\n").slice(1).join("\n"), patched),
  );
  if (r.status === "APPLICABLE_PATCH") {
    // Applied only as the answer means it: a blank line before the brace, everything after it kept.
    assert.equal(
      after(r, "pool.ts"),
      file.replace("  results: FileOutcome[];\n}", "  results: FileOutcome[];\n\n}"),
    );
  } else {
    assert.match(r.feedback, /placeholder/);
  }
});

test("indentation noise in <original> is not read as another width: a new line keeps the file's columns", async () => {
  const file = [
    "function make() {",
    "    const cancel = () => {",
    "        cancellation.catch(() => undefined);",
    "        return cancellation;",
    "    };",
    "    const abort = () => {",
    "        controller.abort();",
    "    };",
    "}",
    "",
  ].join("\n");
  const answer = edit(
    "s.mjs",
    "        return cancellation;\n     };\n     const abort = () => {",
    "        // checked: return cancellation;\n        return cancellation;\n    };\n    const abort = () => {",
  );
  const r = await apply({ "s.mjs": file }, answer);
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "s.mjs"),
    file.replace(
      "        return cancellation;",
      "        // checked: return cancellation;\n        return cancellation;",
    ),
  );
});

test("a trailing placeholder that keeps nothing, in an edit that moves a line past a repeated `}`, is refused", async () => {
  const file =
    "package p\n\nfunc (c *Client) start() error {\n\tcmd := exec.Command(c.Bin)\n\tcmd.Attr = &Attr{Setpgid: true}\n\tout, err := cmd.StdoutPipe()\n\tif err != nil {\n\t\treturn err\n\t}\n\tdefer out.Close()\n\treturn nil\n}\n";
  const r = await apply(
    { "c.go": file },
    edit(
      "c.go",
      "\tcmd := exec.Command(c.Bin)\n\tcmd.Attr = &Attr{Setpgid: true}\n\tout, err := cmd.StdoutPipe()\n\tif err != nil {\n\t\treturn err\n\t}",
      '\tcmd := exec.Command(c.Bin)\n\tif exec == nil {\n\t\tpanic("exec is required")\n\t}\n\tcmd.Attr = &Attr{Setpgid: true}\n\t// ... rest of the code unchanged ...',
    ),
  );
  // Read with the `}` of the new block paired with the file's last `}`, the placeholder would keep
  // nothing and the pipe and its check would be dropped: the engine must not apply that.
  if (r.status === "APPLICABLE_PATCH") {
    assert.equal(
      after(r, "c.go"),
      file.replace("\tcmd.Attr", '\tif exec == nil {\n\t\tpanic("exec is required")\n\t}\n\tcmd.Attr'),
    );
  } else {
    assert.equal(r.status, "RAW_PATCH_BUT_PLACEHOLDER", r.feedback);
    assert.equal(r.changedFiles.length, 0);
  }
});

test("an answer already applied is refused, not applied to a sibling block it nearly matches", async () => {
  const before =
    "function FromRef(schema, references) {\n    if (IsTransform(schema))\n        return true;\n    return Visit(Deref(schema, references), references);\n}\n// prettier-ignore\nfunction FromThis(schema, references) {\n    if (IsTransform(schema))\n        return true;\n    if (true) {\n        return Visit(Deref(schema, references), references);\n    }\n}\n// prettier-ignore\nexport const x = 1;\n";
  const r = await apply(
    { "has.mjs": before },
    edit(
      "has.mjs",
      "function FromThis(schema, references) {\n    if (IsTransform(schema))\n        return true;\n    return Visit(Deref(schema, references), references);\n}\n// prettier-ignore",
      "function FromThis(schema, references) {\n    if (IsTransform(schema))\n        return true;\n    if (true) {\n        return Visit(Deref(schema, references), references);\n    }\n}\n// prettier-ignore",
    ),
  );
  assert.equal(r.status, "RAW_PATCH_BUT_ALREADY_APPLIED", r.feedback);
  assert.equal(r.changedFiles.length, 0);
});

test("java: a doc comment line that reads like a placeholder, changed by a word, is changed, not kept", async () => {
  // Seed 9: "... it is unchanged." reads like "rest unchanged"; one token off its <original> line, it is
  // that line changed (the edit was taken as keeping the line, and so changed nothing).
  const file = [
    "interface Deque<E> {",
    "    /**",
    "     * Removes the last occurrence of the specified element from this deque.",
    "     * If the deque does not contain the element, it is unchanged.",
    "     * More formally, removes the last element {@code e} such that",
    "     */",
    "    boolean removeLastOccurrence(Object o);",
    "}",
    "",
  ].join("\n");
  const original = file.split("\n").slice(2, 5).join("\n");
  const r = await apply(
    { "Deque.java": file },
    edit("Deque.java", original, original.replace("the element,", "the element2,")),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, "Deque.java"), file.replace("the element,", "the element2,"));
});

test("javascript: another width inside a string whose last lines sit at column 0 keeps them there", async () => {
  // Seed 10: a script in a template string, its text indented six columns and its end at column 0; the
  // answer doubled every indentation (6 to 12, 0 stays 0). Read relative to the lines it repeats, the
  // column-0 lines would go left of column 0: they stay at column 0, and the rest comes back to 6.
  const file = [
    "const content = `--[[",
    "  Release a parent.",
    "    Input:",
    "      KEYS[1] parent key",
    "      KEYS[2] parent dependencies key",
    "      ARGV[1] parent queue key",
    "      ARGV[2] parent id",
    "]]",
    "local rcall = redis.call",
    "`;",
    "export const release = { name: 'release', content, keys: 2 };",
    "",
  ].join("\n");
  const doubled = (l: string) => " ".repeat(2 * (l.length - l.trimStart().length)) + l.trimStart();
  const region = file.split("\n").slice(4, 9).map(doubled).join("\n");
  const r = await apply(
    { "release.js": file },
    edit("release.js", region, region.replace("KEYS[2]", "KEYS[3]")),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(after(r, "release.js"), file.replace("KEYS[2]", "KEYS[3]"));
});
