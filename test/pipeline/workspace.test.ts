import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { tmp, treeDigest } from "../support/fix-harness.ts";

test("the private copy leaves out VCS internals, caches and our output; dependencies only on request", async () => {
  const repo = tmp("auto-fix-src-");
  for (const d of [".git/objects", "node_modules/pkg", "src/__pycache__", ".auto-fix/runs", "out"]) {
    mkdirSync(join(repo, d), { recursive: true });
  }
  writeFileSync(join(repo, ".git/HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(repo, "node_modules/pkg/index.js"), "module.exports = 1;\n");
  writeFileSync(join(repo, "src/a.py"), "x = 1\n");
  writeFileSync(join(repo, "src/__pycache__/a.pyc"), "junk");
  writeFileSync(join(repo, "out/report.md"), "old run");
  symlinkSync("/etc/passwd", join(repo, "src/outside"));
  const before = treeDigest(repo);
  const ws = await createWorkspace(repo, [join(repo, "out")]);
  try {
    assert.equal(readFileSync(join(ws.root, "src/a.py"), "utf8"), "x = 1\n");
    for (const gone of [".git", "node_modules", "src/__pycache__", ".auto-fix", "out"]) {
      assert.ok(!existsSync(join(ws.root, gone)), `${gone} is not copied`);
    }
    assert.equal(readlinkSync(join(ws.root, "src/outside")), "/etc/passwd", "symlinks are copied as links");
    writeFileSync(join(ws.root, "src/a.py"), "x = 2\n");
    assert.equal(treeDigest(repo), before, "writing the copy leaves the user's tree alone");
  } finally {
    await ws.dispose();
  }
  assert.ok(!existsSync(ws.root));
  const withDeps = await createWorkspace(repo, [], { withDependencies: true });
  try {
    assert.ok(existsSync(join(withDeps.root, "node_modules/pkg/index.js")));
    assert.ok(!existsSync(join(withDeps.root, ".git")));
  } finally {
    await withDeps.dispose();
  }
});
