/**
 * Search answers carry what they found: every code hit up to a bound, grouped by the definition around
 * it with its line marked and no line twice, files named in the issue first; prototype-style classes
 * by their constructor's name; object-literal methods and definitions by assignment; class signatures
 * without long docstrings; arguments searched exactly as written.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { parseApiCall } from "../../src/agents/api-call.ts";
import { buildIndex } from "../../src/index/index.ts";
import { API_SPECS, SearchApis } from "../../src/search/search-api.ts";

let dir = "";
let apis: SearchApis;

const STREAM = `import sys


class Handler:
    """Writes records.

${Array.from({ length: 40 }, (_, i) => `    Line ${i} of a long description.`).join("\n")}
    """

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.stream.flush()

    def flush(self):
        if self.stream and hasattr(self.stream, "flush"):
            self.stream.flush()

    def emit(self, record):
        msg = self.format(record)
        stream = self.stream
        stream.write(msg)
        self.flush()

    def set_stream(self, stream):
        if stream is self.stream:
            return None
        old, self.stream = self.stream, stream
        return old
`;

const FILES: Record<string, string> = {
  "logkit/handlers.py": STREAM,
  "logkit/other.py": "def other(h):\n    return h.stream\n",
  "thefuck/types.py": `from collections import namedtuple

CorrectedCommand = namedtuple('CorrectedCommand', ('script', 'side_effect', 'priority'))


class Command(object):
    def __init__(self, script, output):
        self.script = script
`,
  "lib/encoder.js": `"use strict";

function Encoder(options) {
  this.options = options || {};
}

var proto = Encoder.prototype;

proto.encode = function (value) {
  return JSON.stringify(value);
};

proto.flush = function () {
  return "";
};

module.exports = Encoder;
`,
  "lib/ast-utils.js": `"use strict";

module.exports = {
  getPrecedence(node) {
    switch (node.type) {
      case "SequenceExpression":
        return 0;
      default:
        return 20;
    }
  },
  isComment: (token) => token.type === "Line" || token.type === "Block",
};
`,
  "web/page.py": "from vendor import Remote\n\n\nclass Page(Remote):\n    title = 'x'\n",
  "web/shim.py": "class RemoteImpl:\n    def render(self):\n        return '<p>' + self.title\n",
  "lib/comments.js": "/* a block comment */\nconst a = 1; /\\* not a comment */\n",
};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "af-found-"));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  apis = new SearchApis(await buildIndex(dir, { cacheDir: null, workers: 0 }));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("search_code_in_file shows every hit once, grouped by the definition around it, its line marked", async () => {
  const r = await apis.call("search_code_in_file", ["self.stream", "logkit/handlers.py"]);
  assert.equal(r.ok, true, r.text);
  assert.equal(r.results.length, 7);
  const marked = r.text.split("\n").filter((l) => /^>\s*\d+ \| /.test(l));
  assert.equal(marked.length, 7, r.text);
  const numbers = r.text
    .split("\n")
    .filter((l) => /^[ >]\s*\d+ \| /.test(l))
    .map((l) => Number(/\d+/.exec(l)![0]));
  assert.equal(new Set(numbers).size, numbers.length, "no line shown twice");
  assert.match(
    r.text,
    /<class>Handler<\/class> <func>__init__<\/func> \(lines \d+-\d+; 2 hits on lines \d+, \d+\)/,
  );
  assert.match(r.text, /<func>set_stream<\/func>[^\n]*2 hits/);
  assert.doesNotMatch(r.text, /The other/);
});

test("search_code puts the files the issue names first", async () => {
  const plain = await apis.call("search_code", ["h.stream"]);
  assert.equal(plain.ok, true);
  const focused = new SearchApis(apis.index);
  focused.noteText('Traceback:\n  File "/home/u/src/logkit/other.py", line 2, in other\nAttributeError');
  assert.deepEqual([...focused.focus], ["logkit/other.py"]);
  const r = await focused.call("search_code", ["stream"]);
  assert.equal(r.results[0]?.file, "logkit/other.py");
  assert.match(r.text, /\(files named in the issue first\)[\s\S]*Search result 1: <file>logkit\/other\.py/);
});

test("a backslash the model wrote is searched as written", async () => {
  const call = parseApiCall('search_code_in_file("/\\*", "lib/comments.js")', API_SPECS);
  assert.ok(call.ok);
  assert.deepEqual(call.call.args, ["/\\*", "lib/comments.js"]);
  const r = await apis.call(call.call.name, call.call.args);
  assert.deepEqual(
    r.results.map((m) => m.start),
    [2],
  );
});

test("a prototype-style class is found by its constructor's name, with its methods", async () => {
  const r = await apis.call("search_class", ["Encoder"]);
  assert.equal(r.ok, true, r.text);
  assert.match(r.text, /function Encoder\(options\)/);
  assert.match(r.text, /proto\.encode = function \(value\)/);
  assert.match(r.text, /proto\.flush = function \(\)/);
  const m = await apis.call("search_method_in_class", ["encode", "Encoder"]);
  assert.equal(m.ok, true, m.text);
  assert.match(m.text, /return JSON\.stringify\(value\);/);
});

test("object-literal methods and definitions by assignment are found", async () => {
  const m = await apis.call("search_method", ["getPrecedence"]);
  assert.equal(m.ok, true, m.text);
  assert.match(m.text, /case "SequenceExpression":/);
  const c = await apis.call("search_class_in_file", ["CorrectedCommand", "thefuck/types.py"]);
  assert.equal(c.ok, true, c.text);
  assert.match(c.text, /CorrectedCommand = namedtuple\('CorrectedCommand'/);
});

test("a class signature keeps a long docstring's first lines only", async () => {
  const r = await apis.call("search_class", ["Handler"]);
  assert.equal(r.ok, true, r.text);
  assert.match(r.text, /"""Writes records\./);
  assert.doesNotMatch(r.text, /Line 5 of a long description/);
  assert.match(r.text, /def emit\(self, record\):/);
});

test("a method the class inherits from a base the index cannot resolve: its definitions elsewhere come with their code", async () => {
  const r = await apis.call("search_method_in_class", ["render", "Page"]);
  assert.equal(r.ok, true, r.text);
  assert.match(
    r.text,
    /Class `Page` does not define `render`, and no ancestor the index resolves does \(its bases: Remote\)/,
  );
  assert.match(r.text, /return '<p>' \+ self\.title/);
});
