import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadRepoConfig } from "../../../src/config/index.ts";
import type { SandboxPort } from "../../../src/sandbox/index.ts";
import { type CandidateValidation, candidateRun, TreeStates } from "../../../src/validate/index.ts";
import { tempDir } from "../../support/temp.ts";

/**
 * The runner matrix: a small real project per runner, run under one spelling of its command through the
 * validate stage's own entry (`candidateRun`, what `validateStage` reports), before and after a real
 * one-line patch.
 */

/** A one-line change: the line of `file` holding `from` gets `to` in its place. */
export interface LineEdit {
  file: string;
  from: string;
  to: string;
}

/** A repository written from a map of files (a folder under the temp dir). */
export function writeProject(files: Record<string, string>): string {
  const dir = tempDir("af-matrix-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

/** The unified diff (three lines of context) of a one-line edit of the file at `repo`. */
export function lineDiff(repo: string, edit: LineEdit): string {
  const lines = readFileSync(join(repo, edit.file), "utf8").split("\n");
  const at = lines.findIndex((l) => l.includes(edit.from));
  assert.ok(at >= 0, `${edit.file} has no line holding ${edit.from}`);
  assert.equal(lines.filter((l) => l.includes(edit.from)).length, 1, `${edit.from} is on one line`);
  const start = Math.max(0, at - 3);
  const end = Math.min(lines.length, at + 4);
  const body: string[] = [];
  for (let i = start; i < end; i++) {
    if (i === at) body.push(`-${lines[i]}`, `+${lines[i]!.replace(edit.from, edit.to)}`);
    else body.push(` ${lines[i]}`);
  }
  // A file ending in a newline splits into a last empty "line" that is not a line of the file.
  const last = lines[lines.length - 1] === "" && end === lines.length ? 1 : 0;
  const n = end - start - last;
  const shown = last ? body.slice(0, -1) : body;
  return `--- a/${edit.file}\n+++ b/${edit.file}\n@@ -${start + 1},${n} +${start + 1},${n} @@\n${shown.join("\n")}\n`;
}

/** What one spelling of a runner's command gave: the stage's validation, and the unpatched whole suite. */
export interface MatrixRun {
  runner: string | null;
  command: string | null;
  validation: CandidateValidation;
  /** Per-test results on the unpatched tree (the whole suite's run, else the selected tests' runs), by id. */
  before: Record<string, string>;
  /** Per-test results of the last run on the patched tree (by id). */
  after: Record<string, string>;
}

/**
 * Prepares the job's trees for the project at `repo` (its configuration read as auto-fix reads it), then
 * validates the one-line `edit` through the validate stage. The trees are disposed before returning.
 */
export async function runMatrixCase(sandbox: SandboxPort, repo: string, edit: LineEdit): Promise<MatrixRun> {
  const config = loadRepoConfig(repo);
  const states = await TreeStates.prepare({ sandbox, config, source: repo });
  try {
    const diff = lineDiff(repo, edit);
    const validation = await candidateRun({ sandbox, config, states, cache: new Map() }, diff);
    assert.ok(validation, "the stage validated the patch (a test command and trees)");
    const after = testsOf(validation.run?.tests);
    // The whole suite on the unpatched tree (run once the fix's own tests passed, the suite being small),
    // or, when the selected tests were the whole suite, their unpatched runs.
    const suite = validation.suite;
    const targets = (validation.result.tests?.selected ?? []).map((t) => t.target);
    const before = testsOf(
      states.tests.fullResult?.tests ??
        states.tests.view(targets, (id, files) => suite?.targetOfId(id, files) ?? null)?.tests,
    );
    return { runner: config.validation.runner, command: config.test.command, validation, before, after };
  } finally {
    await states.dispose();
  }
}

/**
 * The matrix's one claim per spelling: the tests are named on both trees (the changed code's own test
 * file always, the whole suite when it fits the budget), the failing one goes from red to green and
 * nothing else changes, the verdict is "passed" with that one test fixed, and the run's
 * canaries were placed and proven (not "unverified").
 */
export function assertFixed(
  r: MatrixRun,
  want: { runner: string; fixed: string; others: string[]; canaries?: boolean },
): void {
  const v = r.validation.result;
  const dump = JSON.stringify({ ...v, before: r.before, after: r.after }, null, 1);
  assert.equal(r.runner, want.runner, `the runner recognised in \`${r.command}\``);
  assert.equal(v.status, "passed", dump);
  assert.deepEqual(v.fixed, [want.fixed], dump);
  assert.deepEqual(v.regressions, [], dump);
  // The tests of the changed code's own file always run; the rest of the suite when it fits the budget
  // (the machine's load decides): every test that ran is named on both trees, the failing one went from
  // red to green, every other one is unchanged.
  const all = [want.fixed, ...want.others];
  const ran = Object.keys(r.after).sort();
  assert.ok(ran.includes(want.fixed) && ran.includes(want.others[0]!), dump);
  assert.ok(
    ran.every((id) => all.includes(id)),
    `only the project's tests are named: ${ran.join(", ")}`,
  );
  if (v.tests?.kind !== "targeted") assert.deepEqual(ran, [...all].sort(), `the whole suite ran: ${dump}`);
  const expect = (tree: "failed" | "passed") =>
    Object.fromEntries(ran.map((id) => [id, id === want.fixed ? tree : "passed"]));
  assert.deepEqual(pick(r.before, ran), expect("failed"), dump);
  assert.deepEqual(sorted(r.after), expect("passed"), dump);
  assert.deepEqual(v.counted, { before: ran.length, after: ran.length }, dump);
  if (want.canaries !== false) {
    assert.equal(v.integrity?.state, "intact", `canaries: ${JSON.stringify(v.integrity)}`);
  }
}

/** A run's per-test results by id; a Go package's own result (`<package>`) is not a test. */
const testsOf = (tests: ReadonlyMap<string, string> | null | undefined): Record<string, string> =>
  Object.fromEntries([...(tests ?? [])].filter(([id]) => !id.endsWith(".<package>")));

const pick = (m: Record<string, string>, ids: readonly string[]): Record<string, string> =>
  Object.fromEntries(ids.map((id) => [id, m[id] ?? "(not run)"]));

const sorted = (m: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(m).sort(([a], [b]) => a.localeCompare(b)));
