import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { setupCacheKey } from "../../src/sandbox/index.ts";

// The setup cache's key is every file setup runs or reads, by content: a change to any of them is a new
// key (its result never reaches a run of another ref), a change to anything else is not.

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "af-sck-"));
  dirs.push(dir);
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), body);
  }
  return dir;
}

const BASE = {
  "scripts/setup.sh": "pip install --user -r requirements-dev.txt\nnode tools/fetch.js\n",
  "requirements-dev.txt": "-r requirements/base.txt\npytest\n",
  "requirements/base.txt": "requests\n",
  "tools/fetch.js": "console.log(1)\n",
  "package.json": '{"scripts": {"postinstall": "node tools/post.js"}}\n',
  "tools/post.js": "// post\n",
  "patches/left-pad+1.0.0.patch": "--- a\n+++ b\n",
  "packages/web/package.json": "{}\n",
  "src/app.py": "def f():\n    return 1\n",
  "tests/test_app.py": "def test_f():\n    assert True\n",
};
const spec = { dir: "/nonexistent", repo: "example/app" };
const keyOf = (files: Record<string, string>, setup = ["sh scripts/setup.sh"]) => {
  const k = setupCacheKey(tree(files), spec, setup, "bwrap");
  assert.ok(k);
  return k;
};

test("every file setup runs or reads is in the key; the code and tests are not", () => {
  const base = keyOf(BASE);
  assert.deepEqual(base.files, [
    "package.json",
    "packages/web/package.json",
    "patches/left-pad+1.0.0.patch",
    "requirements-dev.txt",
    "requirements/base.txt",
    "scripts/setup.sh",
    "tools/fetch.js",
    "tools/post.js",
  ]);
  for (const rel of base.files) {
    assert.notEqual(
      keyOf({ ...BASE, [rel]: `${BASE[rel as keyof typeof BASE]}# changed\n` }).key,
      base.key,
      rel,
    );
  }
  // The code under test and the tests are not setup's inputs: the same key.
  assert.equal(keyOf({ ...BASE, "tests/test_app.py": "def test_f():\n    pass\n" }).key, base.key);
  assert.equal(keyOf({ ...BASE, "src/app.py": "def f():\n    return 2\n" }).key, base.key);
  // Another setup command, another key.
  assert.notEqual(keyOf(BASE, ["sh scripts/setup.sh", "npm ci"]).key, base.key);
});

test("a folder a command names is an input with every file in it (`pip install .` keys on the tree)", () => {
  const setup = ["python3 -m pip install --user ."];
  const base = keyOf(BASE, setup);
  assert.ok(base.files.includes("src/app.py") && base.files.includes("tests/test_app.py"));
  assert.notEqual(keyOf({ ...BASE, "src/app.py": "def f():\n    return 2\n" }, setup).key, base.key);
});

test("a link among the inputs is keyed by where it points, never followed", () => {
  const a = tree(BASE);
  const b = tree(BASE);
  for (const [d, target] of [
    [a, "/etc/hostname"],
    [b, "/etc/os-release"],
  ] as const) {
    rmSync(join(d, "tools/fetch.js"));
    symlinkSync(target, join(d, "tools/fetch.js"));
  }
  const ka = setupCacheKey(a, spec, ["sh scripts/setup.sh"], "bwrap");
  const kb = setupCacheKey(b, spec, ["sh scripts/setup.sh"], "bwrap");
  assert.ok(ka && kb);
  assert.notEqual(ka.key, kb.key);
});
