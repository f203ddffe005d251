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
import { sameFailure } from "../../src/strategies/tree/evaluate.ts";
import { ProgramStore, WorkTreeSync } from "../../src/strategies/tree/programs.ts";
import { type ReproducerScript, sandboxChecks } from "../../src/strategies/tree/sandbox-checks.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/tree/median/", import.meta.url));
const reproducer: ReproducerScript = {
  file: "reproducer.py",
  content: readFileSync(join(FIXTURE, "reproduce.py"), "utf8"),
  command: "python3 reproducer.py",
  timeoutMs: 4_000,
};
const config = parseRepoConfig(
  "test: python3 -m unittest discover -s tests -t . -v\ntimeouts:\n  test: 20\n",
);

let sandbox: SandboxPort;
let dir: string;
before(async () => {
  sandbox = await createSandbox("bwrap");
  dir = await mkdtemp(join(tmpdir(), "tree-checks-"));
  await cp(join(FIXTURE, "repo"), join(dir, "original"), { recursive: true });
  await cp(join(FIXTURE, "repo"), join(dir, "work"), { recursive: true });
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const edit = (original: string, patched: string) =>
  `<file>stats/median.py</file>\n<original>\n${original}\n</original>\n<patched>\n${patched}\n</patched>\n`;
const BUGGY = "    return ordered[mid] + ordered[mid - 1] / 2";

test("the checks tell failing, passing, regressing, crashing and hanging programs apart", async () => {
  // The store reads the untouched original; the checks run in a second copy kept in step with it.
  const work = join(dir, "work");
  const store = new ProgramStore(createDiskRepo(join(dir, "original")));
  const sync = new WorkTreeSync(work, store);
  const checks = sandboxChecks({ sandbox, config, reproducer });
  assert.match(checks.describe, /reproducer `python3 reproducer.py` \+ tests `python3 -m unittest/);

  const base = await checks.baseline(work);
  assert.match(base.failure, /AssertionError: median\(\[4, 1, 3, 2\]\) returned 4\.0, expected 2\.5/);
  assert.equal(base.reproducer?.passed, false);
  assert.equal(base.tests?.passed, true);

  const show = async (answer: string, parent = "") => {
    const r = await store.apply(answer, parent);
    assert.ok(r.ok, r.ok ? "" : r.message);
    await sync.show(store.programFor(r.diff));
    return { diff: r.diff, result: await checks.run(work) };
  };

  // A change that does not touch the bug fails exactly as before: the search scores it 0 without asking.
  const idle = await show(edit("    mid = n // 2", "    mid = n // 2 + 0"));
  assert.equal(idle.result.outcome, "failed");
  if (idle.result.outcome === "failed") assert.ok(sameFailure(idle.result.failure, base.failure));

  const floor = await show(edit(BUGGY, "    return (ordered[mid] + ordered[mid - 1]) // 2"));
  assert.equal(floor.result.outcome, "failed");
  if (floor.result.outcome === "failed") {
    assert.match(floor.result.failure, /returned 2, expected 2\.5/);
    assert.ok(!sameFailure(floor.result.failure, base.failure));
  }

  const fixed = await show(
    edit(
      "    return (ordered[mid] + ordered[mid - 1]) // 2",
      "    return (ordered[mid] + ordered[mid - 1]) / 2",
    ),
    floor.diff,
  );
  assert.equal(fixed.result.outcome, "passed");

  // Fixes the even case but breaks the odd one: the reproducer fails and a test regresses.
  const regress = await show(
    edit(
      "    if n % 2 == 1:\n        return ordered[mid]\n" + BUGGY,
      "    return (ordered[mid] + ordered[mid - 1]) / 2",
    ),
  );
  assert.equal(regress.result.outcome, "failed");
  if (regress.result.outcome === "failed") {
    assert.match(regress.result.failure, /test_odd_length/);
    assert.equal(regress.result.tests?.passed, false);
  }

  const hang = await show(edit(BUGGY, "    while True:\n        pass"));
  assert.equal(hang.result.outcome, "timeout");

  const crash = await show(edit(BUGGY, "    import os, signal\n    os.kill(os.getpid(), signal.SIGSEGV)"));
  assert.equal(crash.result.outcome, "crash");
});
