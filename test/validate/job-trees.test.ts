import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseRepoConfig } from "../../src/config/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { reproducerRunKey, TreeStates, testRunKey } from "../../src/validate/index.ts";

// The job's prepared trees are shared by the callers of one job (same work tree, same settings) and
// freed by the last of them; results kept under a program's key are computed once.

let sandbox: SandboxPort;
let src: string;
before(async () => {
  sandbox = await createSandbox("bwrap");
  src = mkdtempSync(join(tmpdir(), "af-job-trees-"));
  writeFileSync(join(src, "a.py"), "A = 1\n");
});
after(() => rmSync(src, { recursive: true, force: true }));

const config = (setup: string) => parseRepoConfig(`setup:\n  - ${setup}\ntest: python3 -c pass\n`);

test("one job's callers share the set-up tree; other settings get their own; the last holder frees it", async () => {
  const [a, b] = await Promise.all([
    TreeStates.forJob({ sandbox, config: config("echo one > marker"), source: src }),
    TreeStates.forJob({ sandbox, config: config("echo one > marker"), source: src }),
  ]);
  assert.equal(a, b);
  const other = await TreeStates.forJob({ sandbox, config: config("echo two > marker"), source: src });
  assert.notEqual(other, a);
  await other.dispose();
  const base = a.pristineDir;
  await a.dispose();
  assert.ok(existsSync(join(base, "marker")), "the first holder's dispose leaves the other's tree");
  await b.dispose();
  assert.equal(existsSync(base), false);
  // A later job prepares afresh.
  const c = await TreeStates.forJob({ sandbox, config: config("echo one > marker"), source: src });
  assert.notEqual(c, a);
  await c.dispose();
});

test("a result is computed once per key; a run that failed to run is tried again", async () => {
  const states = await TreeStates.forJob({ sandbox, config: config("echo ok"), source: src });
  try {
    let calls = 0;
    const run = async () => ++calls;
    assert.equal(await states.once("k", run), 1);
    assert.equal(await states.once("k", run), 1);
    await assert.rejects(
      states.once("bad", async () => {
        throw new Error("no sandbox");
      }),
    );
    assert.equal(await states.once("bad", run), 2);
    // Keys name the program and what runs on it.
    assert.notEqual(testRunKey("diff a"), testRunKey("diff b"));
    const k = reproducerRunKey("diff", "python3 r.py", "r.py", "assert 0");
    assert.equal(k, reproducerRunKey("diff", "python3 r.py", "r.py", "assert 0\n"));
    assert.notEqual(k, reproducerRunKey("diff", "python3 r.py", "r.py", "assert 1"));
    assert.notEqual(k, reproducerRunKey("other diff", "python3 r.py", "r.py", "assert 0"));
    assert.notEqual(k, reproducerRunKey("diff", "python3 -X r.py", "r.py", "assert 0"));
  } finally {
    await states.dispose();
  }
});
