/**
 * Checking a run's check tests after it ran: what the runner reported of them, the proof the must-pass one
 * left, and the run's integrity (see ./index.ts); the check tests then leave its results. What a runner
 * says of its own summary, groups and stops comes from `runnerFor(name).canaries`.
 */
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import { runnerFor } from "../../runners/index.ts";
import type { CanaryRules } from "../../runners/parts/canaries.ts";
import type { ExecResult } from "../../sandbox/index.ts";
import type { ParsedTests, TestOutcome } from "../../runners/parts/results.ts";
import { stripAnsi } from "../../runners/shared/results-text-scan.ts";
import { removeCanaryFiles } from "./plan.ts";
import type { CanaryPlan, IntegrityState, RunIntegrity } from "./types.ts";

/** Largest proof file read: a line per process, each 64 hex digits. */
const MAX_PROOF_BYTES = 64 * 1024;

/** What the runner reported of the check tests (their ids taken out of the results). */
interface Taken {
  pass: TestOutcome[];
  fail: TestOutcome[];
  unloaded: string[];
}

/** What the proof files hold. */
interface Proofs {
  texts: (string | null)[];
  unreadable: string | null;
}

/** The rules of a plan's runner (a plan exists only for a runner that places check tests). */
function rulesOf(plan: CanaryPlan): CanaryRules {
  const rules = runnerFor(plan.runner).canaries;
  if (!rules.placed) throw new Error(`a check-test plan for ${plan.runner}, which places none`);
  return rules;
}

/** The outcome of each check test, their ids removed from the results. */
function takeCanaries(plan: CanaryPlan, rules: CanaryRules, parsed: ParsedTests | null): Taken {
  const pass: TestOutcome[] = [];
  const fail: TestOutcome[] = [];
  const unloaded: string[] = [];
  if (!parsed) return { pass, fail, unloaded };
  const groups = new Map<string, string>();
  for (const [id, outcome] of [...parsed.tests]) {
    if (!id.includes(plan.token)) continue;
    // The must-fail test's name extends the must-pass one's: each is told by how the id ends.
    if (id.endsWith(plan.failName)) fail.push(outcome);
    else if (id.endsWith(plan.passName)) pass.push(outcome);
    else if (outcome === "failed") unloaded.push(id);
    const group = rules.groupOf(id);
    if (group) groups.set(group.id, group.prefix);
    parsed.tests.delete(id);
    parsed.files?.delete(id);
  }
  // A group that fails as a whole when any of its tests fails: the failing check test's does not count.
  for (const [own, prefix] of groups) {
    const failing = [...parsed.tests].some(
      ([id, o]) => o === "failed" && id !== own && id.startsWith(prefix),
    );
    if (parsed.tests.get(own) === "failed" && !failing) parsed.tests.delete(own);
  }
  return { pass, fail, unloaded };
}

function readProofs(tree: TreeFs, plan: CanaryPlan): Proofs {
  const texts: (string | null)[] = [];
  let unreadable: string | null = null;
  for (const p of plan.placements) {
    try {
      texts.push(tree.readIfExists(p.proof, { maxBytes: MAX_PROOF_BYTES })?.toString("utf8") ?? null);
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
      unreadable = `${p.proof}: ${err.message}`;
      texts.push(null);
    }
  }
  return { texts, unreadable };
}

/** Why a run shows nothing either way before its check tests are looked at (a limit, a signal), or null. */
function stoppedRun(exec: ExecResult, parsed: ParsedTests | null, taken: Taken): string | null {
  if (exec.limit !== null)
    return `the run was stopped by its ${exec.limit} limit; a stopped run proves nothing either way`;
  if (exec.exitCode === null && exec.signal !== null)
    return `the run was ended by ${exec.signal}; a stopped run proves nothing either way`;
  if (parsed?.note && taken.fail.length === 0 && taken.pass.length === 0)
    return `the runner's output was too large to read whole (${parsed.note})`;
  return null;
}

const linesOf = (t: string | null): string[] => (t ?? "").split("\n").filter((l) => l !== "");

/** What the proof files show wrong (nothing when each holds the value once per process). */
function proofProblems(plan: CanaryPlan, proofs: Proofs): { problems: string[]; forged: boolean } {
  const expected = plan.placements.length * plan.processes;
  const proofLines = proofs.texts.flatMap(linesOf);
  const forged = proofLines.some((l) => l !== plan.proofValue);
  const proven = !forged && proofs.texts.every((t) => linesOf(t).length >= plan.processes);
  const problems: string[] = [];
  if (proofs.unreadable) problems.push(`its proof file could not be read (${proofs.unreadable})`);
  else if (forged) problems.push("its proof file holds a value the check test does not write");
  else if (!proven)
    problems.push(
      proofLines.length === 0
        ? "the check test that must pass never ran its body (no proof was written)"
        : `the check test that must pass ran its body in ${proofLines.length} of the ${expected} places it should have`,
    );
  return { problems, forged };
}

/** The verdict on a run from its check tests: a state with why, or `intact`/quiet to finish with. */
function judge(
  plan: CanaryPlan,
  rules: CanaryRules,
  exec: ExecResult,
  parsed: ParsedTests | null,
  taken: Taken,
  proofs: Proofs,
): RunIntegrity | { quiet: boolean } {
  const { pass, fail, unloaded } = taken;
  const n = plan.placements.length;
  const expected = n * plan.processes;
  const proofLines = proofs.texts.flatMap(linesOf);
  const { problems, forged } = proofProblems(plan, proofs);
  const misreported = fail.some((o) => o !== "failed") || pass.some((o) => o !== "passed");
  if (plan.processes > 1 && !proofs.unreadable && !forged && !misreported && proofLines.length > 0) {
    if (proofLines.length < expected)
      // Some of the run's processes (one per module) left their proof and others did not: a module that
      // skips or fails at import stops its own process before any test, the check tests' too, and cannot
      // be told from a process that was ended. Not proof of tampering; that module's tests are compared as
      // tests that no longer run.
      return {
        state: "unverified",
        detail: `the check test that must pass ran its body in ${proofLines.length} of the ${expected} processes: a process that stopped before its tests (a module that cannot load or skips at import) cannot be told from one that was ended`,
      };
  }
  const ids = [...(parsed?.tests.keys() ?? [])];
  const stopped = rules.stoppedBeforeTests({
    stdout: exec.stdout,
    ids,
    reported: fail.length > 0 || pass.length > 0,
    forged,
    misreported,
  });
  if (stopped) return { state: "unverified", detail: stopped };
  if (unloaded.length > 0 && fail.length === 0 && pass.length === 0 && proofs.texts.every((t) => !t))
    // The check tests' own file did not load (what it borrowed from a test beside it failed to import):
    // the runner was not shown to be stubbed or honest.
    return {
      state: "unverified",
      detail:
        "the two check tests' file could not be loaded, so the runner's report could not be checked with them",
    };
  // A runner whose output names no test at all, or no passing test (a quiet reporter), cannot show the
  // check tests it ran: when the proof shows the body ran and nothing was reported wrong, what it reports
  // cannot be checked, which is not evidence of tampering.
  const anyPassed = parsed ? [...parsed.tests.values()].includes("passed") : false;
  const nothingNamed = fail.length === 0 && pass.length === 0 && (parsed?.tests.size ?? 0) === 0;
  const quiet =
    problems.length === 0 &&
    !misreported &&
    pass.length === 0 &&
    !anyPassed &&
    (fail.length > 0 || nothingNamed);
  if (!quiet) problems.push(...reportProblems(taken, n));
  if (problems.length === 0) return { quiet };
  const what =
    exec.exitCode === 0 && (!parsed || parsed.tests.size === 0)
      ? `; the runner exited 0 without per-test results`
      : "";
  return { state: "tampered", detail: `${problems.join("; ")}${what}` };
}

/** What the runner reported wrong of the check tests (`n`: how many files of them were placed). */
function reportProblems({ pass, fail }: Taken, n: number): string[] {
  const problems: string[] = [];
  if (fail.length === 0) problems.push("the runner did not report the check test that must fail");
  else if (fail.some((o) => o !== "failed") || fail.length < n)
    problems.push(
      `the runner reported the check test that must fail as ${fail.find((o) => o !== "failed") ?? "missing in part"}`,
    );
  if (pass.some((o) => o !== "passed"))
    problems.push(`the runner reported the check test that must pass as ${pass.find((o) => o !== "passed")}`);
  else if (pass.length === 0) problems.push("the runner did not report the check test that must pass");
  return problems;
}

/**
 * Checks a run's check tests, takes them out of its results (and their files out of the tree), and says
 * whether the run can be trusted. `exec` is the run; `parsed` its per-test results (changed in place).
 * Returns the integrity, and the exit status the run would have had without the failing check test when
 * that can be told (it was the run's only failure).
 */
export function checkCanaries(
  tree: TreeFs,
  plan: CanaryPlan,
  exec: ExecResult,
  parsed: ParsedTests | null,
  files?: Map<string, string[]>,
): { integrity: RunIntegrity; exitCode: number | null; emptied?: boolean } {
  const rules = rulesOf(plan);
  const proofs = readProofs(tree, plan);
  removeCanaryFiles(tree, plan.runner, plan.placements);
  const taken = takeCanaries(plan, rules, parsed);
  for (const id of [...(files?.keys() ?? [])]) if (id.includes(plan.token)) files?.delete(id);
  const verdict = (state: IntegrityState, detail: string) => ({
    integrity: { state, detail },
    exitCode: exec.exitCode,
  });
  const stopped = stoppedRun(exec, parsed, taken);
  if (stopped) return verdict("unverified", stopped);
  const judged = judge(plan, rules, exec, parsed, taken, proofs);
  if ("state" in judged) return verdict(judged.state, judged.detail);
  const n = plan.placements.length;
  // The failing check test is the run's only failure: the runner's exit status for failed tests is what it
  // reports for it, and without it the run would have passed (or said it collected nothing). A run whose
  // output named nothing but the check tests names no test of the repository: it has no per-test results,
  // as it would have had without them.
  const othersFailed = parsed ? [...parsed.tests.values()].includes("failed") : true;
  const emptied = parsed !== null && parsed.tests.size === 0;
  const exitCode =
    !othersFailed &&
    exec.exitCode === rules.failExitCode(n) &&
    rules.onlyOneFailed(stripAnsi(`${exec.stdout}\n${exec.stderr}`), {
      file: plan.placements[0]?.file ?? "",
      failName: plan.failName,
    })
      ? emptied
        ? rules.emptyExitCode
        : 0
      : exec.exitCode;
  if (judged.quiet)
    return {
      integrity: {
        state: "unverified",
        detail:
          "the check test that must pass ran its body, but the runner's output names no passing test, so what it reports of the tests cannot be checked",
      },
      exitCode,
      emptied,
    };
  return {
    integrity: {
      state: "intact",
      detail: `the check tests ran: the one that must fail was reported failed, the one that must pass passed and left its file${n > 1 ? ` (in each of ${n} packages)` : ""}${rules.ownProcessPerFile ? "; each test file runs in a process of its own, so this shows how the runner reported its tests, not what ran in another file's process (a file whose tests are lost shows as tests that no longer run)" : ""}`,
    },
    exitCode,
    emptied,
  };
}

/** Removes a plan's files when its run never finished (the sandbox threw). */
export function discardCanaries(tree: TreeFs, plan: CanaryPlan): void {
  removeCanaryFiles(tree, plan.runner, plan.placements);
}

const RANK: Record<IntegrityState, number> = { intact: 0, unverified: 1, tampered: 2 };

/**
 * The integrity of runs put together (batches of one tree): the worst one's, with every tampered or
 * unverified run's detail; none when no run has one.
 */
export function mergeIntegrity(runs: readonly { integrity?: RunIntegrity }[]): { integrity?: RunIntegrity } {
  const all = runs.map((r) => r.integrity).filter((i): i is RunIntegrity => i !== undefined);
  if (all.length === 0) return {};
  if (all.length === 1) return { integrity: all[0]! };
  const worst = all.reduce((a, b) => (RANK[b.state] > RANK[a.state] ? b : a));
  const details = [...new Set(all.filter((i) => i.state === worst.state).map((i) => i.detail))];
  const mixed = all.some((i) => i.state !== worst.state);
  return {
    integrity: {
      state: worst.state,
      detail: `${details.join("; ")}${mixed || all.length > 1 ? ` (${all.filter((i) => i.state === worst.state).length} of ${all.length} runs)` : ""}`,
    },
  };
}
