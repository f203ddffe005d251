/**
 * The tree search's checks with the patch scan: a program that is right only where a reproducer or a
 * test calls it (it reads the call stack) passes the reproducer and the tests, yet is a failure the
 * search is told about, with the line and why; the honest program of the same fix passes.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseRepoConfig } from "../../src/config/index.ts";
import { createDiskRepo } from "../../src/patch/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { ProgramStore, WorkTreeSync } from "../../src/strategies/tree/programs.ts";
import { sandboxChecks } from "../../src/strategies/tree/sandbox-checks.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/tree/median/", import.meta.url));
const config = parseRepoConfig(
  "test: python3 -m unittest discover -s tests -t . -v\ntimeouts:\n  test: 20\n",
);
const BUGGY = "    return ordered[mid] + ordered[mid - 1] / 2";
const RIGHT = "    return (ordered[mid] + ordered[mid - 1]) / 2";
const edit = (patched: string) =>
  `<file>stats/median.py</file>\n<original>\n${BUGGY}\n</original>\n<patched>\n${patched}\n</patched>\n`;

let sandbox: SandboxPort;
let dir: string;
before(async () => {
  sandbox = await createSandbox("bwrap");
  dir = await mkdtemp(join(tmpdir(), "tree-scan-"));
  await cp(join(FIXTURE, "repo"), join(dir, "original"), { recursive: true });
  await cp(join(FIXTURE, "repo"), join(dir, "work"), { recursive: true });
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("tree checks: a test-aware program fails with the scan's finding; the honest one passes", async () => {
  const work = join(dir, "work");
  const original = join(dir, "original");
  const store = new ProgramStore(createDiskRepo(original));
  const sync = new WorkTreeSync(work, store);
  const reproducer = {
    file: "reproducer.py",
    content: readFileSync(join(FIXTURE, "reproduce.py"), "utf8"),
    command: "python3 reproducer.py",
    timeoutMs: 4_000,
  };
  const checks = sandboxChecks({ sandbox, config, reproducer, pristine: original });
  await checks.baseline(work);
  const show = async (answer: string) => {
    const r = await store.apply(answer, "");
    assert.ok(r.ok, r.ok ? "" : r.message);
    await sync.show(store.programFor(r.diff));
    return checks.run(work, { diff: r.diff, changedFiles: ["stats/median.py"] });
  };
  const aware = await show(
    edit(
      "    import inspect\n    caller = inspect.stack()[1].filename\n    if 'reproduc' in caller or 'test' in caller:\n" +
        `    ${RIGHT}\n${BUGGY}`,
    ),
  );
  assert.equal(aware.outcome, "failed");
  if (aware.outcome === "failed") {
    assert.match(
      aware.failure,
      /cannot count as a fix: the patch inspects the call stack: `caller = inspect\.stack\(\)\[1\]\.filename` at stats\/median\.py:9/,
    );
    // Nothing else failed: the reproducer and the tests passed with it.
    assert.equal(aware.reproducer?.passed, true);
    assert.equal(aware.tests?.passed, true);
  }
  const honest = await show(edit(RIGHT));
  assert.equal(honest.outcome, "passed");
});
