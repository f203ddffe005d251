/**
 * The app reads the pipeline child's stdout with the result contract's schema. A child that prints a
 * result of another shape, or one that claims more than it shows (a "fixed" without evidence, a negative
 * cost that would refund the day's budget), gets a clear error on the issue: no pull request, no crash,
 * and the contract's complaint named. A valid result after other output is read and acted on.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createCliPipeline } from "../../src/issue-run/cli-pipeline.ts";
import { fakeResult } from "../support/fix-result.ts";
import { FIX_PATCH, type Harness, OWNER, REPO, startHarness } from "./harness.ts";

const work = mkdtempSync(join(tmpdir(), "auto-fix-child-result-"));
const stdoutFile = join(work, "stdout.txt");
/** Stands in for `bin/auto-fix.js fix … --json`: prints what the test wrote, as a real child process. */
const cli = join(work, "printing-cli.mjs");
writeFileSync(
  cli,
  `import { readFileSync } from "node:fs";
process.stderr.write("auto-fix: index\\n");
process.stdout.write(readFileSync(process.env.AUTO_FIX_TEST_STDOUT, "utf8"));
`,
);

let h: Harness;
before(async () => {
  h = await startHarness({
    pipeline: createCliPipeline({
      env: { PATH: process.env.PATH, AUTO_FIX_TEST_STDOUT: stdoutFile },
      cliPath: cli,
      timeoutMs: 60_000,
    }),
  });
});
after(async () => {
  await h.close();
  rmSync(work, { recursive: true, force: true });
});

async function runWith(stdout: string, title: string): Promise<string> {
  writeFileSync(stdoutFile, stdout);
  const issue = h.github.addIssue(OWNER, REPO, { title, body: "add(1, 2) returns -1" });
  assert.equal(await h.labeled(issue.number), 200);
  await h.idle();
  const status = h.github
    .commentsOn(OWNER, REPO, issue.number)
    .find((c) => c.body.includes("auto-fix:status"));
  assert.ok(status, "the status comment was posted");
  return status.body;
}

const valid = () => JSON.parse(JSON.stringify(fakeResult({ status: "patched", patch: FIX_PATCH })));

const REFUSED: [string, () => unknown, RegExp][] = [
  [
    "a 'fixed' claim without the reviewer's approval",
    () => ({ ...valid(), status: "fixed" }),
    /status: "fixed" needs evidence/,
  ],
  [
    "a negative cost (it would refund the day's budget)",
    () => ({ ...valid(), usage: { prompt_tokens: 1, completion_tokens: 1, cost_usd: -100 } }),
    /usage\.cost_usd/,
  ],
  [
    "the shape of an older build (verdict keys on review, no summary or model)",
    () => {
      const { summary: _s, model: _m, ...old } = valid();
      return { ...old, review: { "patch-correct": "yes", "test-correct": "yes" } };
    },
    /missing [^`]*summary/,
  ],
];

for (const [name, make, complaint] of REFUSED) {
  test(`a child result with ${name} is an error on the issue, not a pull request`, async () => {
    const pulls = h.repo.pulls.size;
    const body = await runWith(`${JSON.stringify(make(), null, 2)}\n`, name.slice(0, 40));
    assert.equal(h.repo.pulls.size, pulls, "no pull request from a refused result");
    assert.match(body, /The pipeline failed, so no pull request was opened\./);
    assert.match(body, /without a usable result: the result does not match the contract: /);
    assert.match(body, complaint, body);
    // Nothing the refused result said is shown as a stage's outcome: the run stopped.
    assert.match(body, /➖ Located the bug — the run stopped/);
    assert.match(body, /➖ Reproduced the issue — no reproducer was run/);
  });
}

test("a child that prints no JSON at all is an error that says so", async () => {
  const body = await runWith("Segmentation fault (core dumped)\n", "no JSON");
  assert.match(body, /The pipeline failed, so no pull request was opened\./);
  assert.match(body, /without a usable result: the result is not JSON/);
});

test("a valid result after other output is read and acted on: the pull request opens", async () => {
  const pulls = h.repo.pulls.size;
  const body = await runWith(`warming up\n${JSON.stringify(valid(), null, 2)}\n`, "valid result");
  assert.equal(h.repo.pulls.size, pulls + 1, body);
  assert.match(body, /Opened draft pull request/);
});
