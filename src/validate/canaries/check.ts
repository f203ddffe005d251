/**
 * Checking a run's canaries after it ran: what the runner reported of them, the proof the must-pass one
 * left, and the run's integrity (see ./index.ts); the canaries then leave its results.
 */
import type { TestRunnerKind } from "../../config/index.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import type { ExecResult } from "../../sandbox/index.ts";
import type { ParsedTests, TestOutcome } from "../outcomes.ts";
import { stripAnsi } from "../text-scan.ts";
import { removeCanaryFiles } from "./plan.ts";
import type { CanaryPlan, IntegrityState, RunIntegrity } from "./types.ts";

/** Largest proof file read: a line per process, each 64 hex digits. */
const MAX_PROOF_BYTES = 64 * 1024;

/** The outcome of each canary, the canaries' ids removed from the results. */
function takeCanaries(
  plan: CanaryPlan,
  parsed: ParsedTests | null,
): { pass: TestOutcome[]; fail: TestOutcome[]; others: number; unloaded: string[] } {
  const pass: TestOutcome[] = [];
  const fail: TestOutcome[] = [];
  const unloaded: string[] = [];
  if (!parsed) return { pass, fail, others: 0, unloaded };
  const canaryPkgs = new Set<string>();
  for (const [id, outcome] of [...parsed.tests]) {
    if (!id.includes(plan.token)) continue;
    // The must-fail test's name extends the must-pass one's: each is told by how the id ends.
    if (id.endsWith(plan.failName)) fail.push(outcome);
    else if (id.endsWith(plan.passName)) pass.push(outcome);
    else if (outcome === "failed") unloaded.push(id);
    if (plan.runner === "go") canaryPkgs.add(id.slice(0, id.lastIndexOf(".")));
    parsed.tests.delete(id);
    parsed.files?.delete(id);
  }
  if (plan.runner === "go") {
    // A package fails as a whole when any of its tests fails: the failing canary's does not count.
    for (const pkg of canaryPkgs) {
      const own = `${pkg}.<package>`;
      const prefix = `${pkg}.`;
      const failing = [...parsed.tests].some(
        ([id, o]) => o === "failed" && id !== own && id.startsWith(prefix),
      );
      if (parsed.tests.get(own) === "failed" && !failing) parsed.tests.delete(own);
    }
  }
  return { pass, fail, others: parsed.tests.size, unloaded };
}

/**
 * Checks a run's canaries, takes them out of its results (and their files out of the tree), and says
 * whether the run can be trusted. `exec` is the run; `parsed` its per-test results (changed in place).
 * Returns the integrity, and the exit status the run would have had without the failing canary when
 * that can be told (the canary was its only failure).
 */
export function checkCanaries(
  tree: TreeFs,
  plan: CanaryPlan,
  exec: ExecResult,
  parsed: ParsedTests | null,
  files?: Map<string, string[]>,
): { integrity: RunIntegrity; exitCode: number | null; emptied?: boolean } {
  const proofs: (string | null)[] = [];
  let unreadable: string | null = null;
  for (const p of plan.placements) {
    try {
      proofs.push(tree.readIfExists(p.proof, { maxBytes: MAX_PROOF_BYTES })?.toString("utf8") ?? null);
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
      unreadable = `${p.proof}: ${err.message}`;
      proofs.push(null);
    }
  }
  removeCanaryFiles(tree, plan.placements);
  const { pass, fail, unloaded } = takeCanaries(plan, parsed);
  for (const id of [...(files?.keys() ?? [])]) if (id.includes(plan.token)) files?.delete(id);
  const verdict = (state: IntegrityState, detail: string) => ({
    integrity: { state, detail },
    exitCode: exec.exitCode,
  });
  if (exec.limit !== null)
    return verdict(
      "unverified",
      `the run was stopped by its ${exec.limit} limit; a stopped run proves nothing either way`,
    );
  if (exec.exitCode === null && exec.signal !== null)
    return verdict(
      "unverified",
      `the run was ended by ${exec.signal}; a stopped run proves nothing either way`,
    );
  if (parsed?.note && fail.length === 0 && pass.length === 0)
    return verdict("unverified", `the runner's output was too large to read whole (${parsed.note})`);
  const n = plan.placements.length;
  const expected = n * plan.processes;
  const linesOf = (t: string | null): string[] => (t ?? "").split("\n").filter((l) => l !== "");
  const proofLines = proofs.flatMap(linesOf);
  const forged = proofLines.some((l) => l !== plan.proofValue);
  const proven = !forged && proofs.every((t) => linesOf(t).length >= plan.processes);
  const problems: string[] = [];
  if (unreadable) problems.push(`its proof file could not be read (${unreadable})`);
  else if (forged) problems.push("its proof file holds a value the check test does not write");
  else if (!proven)
    problems.push(
      proofLines.length === 0
        ? "the check test that must pass never ran its body (no proof was written)"
        : `the check test that must pass ran its body in ${proofLines.length} of the ${expected} places it should have`,
    );
  const misreported = fail.some((o) => o !== "failed") || pass.some((o) => o !== "passed");
  if (
    plan.processes > 1 &&
    !unreadable &&
    !forged &&
    !misreported &&
    proofLines.length > 0 &&
    proofLines.length < expected
  ) {
    // Some of the run's processes (one per module) left their proof and others did not: a module that
    // skips or fails at import stops its own process before any test, the canaries' too, and cannot be
    // told from a process that was ended. Not proof of tampering; that module's tests are compared as
    // tests that no longer run.
    return verdict(
      "unverified",
      `the check test that must pass ran its body in ${proofLines.length} of the ${expected} processes: a process that stopped before its tests (a module that cannot load or skips at import) cannot be told from one that was ended`,
    );
  }
  if (!forged && !misreported && plan.runner === "go" && /\[(build|setup) failed\]/.test(exec.stdout))
    return verdict(
      "unverified",
      "a package's tests did not build, so its check tests could not run (the package's failure is counted)",
    );
  if (
    fail.length === 0 &&
    pass.length === 0 &&
    plan.runner === "pytest" &&
    [...(parsed?.tests.keys() ?? [])].some((id) => id.endsWith("::<collection>")) &&
    /^!+ Interrupted: \d+ errors? during collection !+$/m.test(exec.stdout)
  )
    return verdict(
      "unverified",
      "pytest stopped at an error collecting the tests, before any test ran (the check tests with them)",
    );
  if (unloaded.length > 0 && fail.length === 0 && pass.length === 0 && proofs.every((t) => !t))
    // The canaries' own file did not load (what it borrowed from a test beside it failed to import): the
    // runner was not shown to be stubbed or honest.
    return verdict(
      "unverified",
      "the two check tests' file could not be loaded, so the runner's report could not be checked with them",
    );
  // A runner whose output names no test at all, or no passing test (a quiet reporter), cannot show the
  // canaries it ran: when the proof shows the body ran and nothing was reported wrong, what it reports
  // cannot be checked, which is not evidence of tampering.
  const anyPassed = parsed ? [...parsed.tests.values()].includes("passed") : false;
  const nothingNamed = fail.length === 0 && pass.length === 0 && (parsed?.tests.size ?? 0) === 0;
  const quiet =
    problems.length === 0 &&
    !misreported &&
    pass.length === 0 &&
    !anyPassed &&
    (fail.length > 0 || nothingNamed);
  if (!quiet) {
    if (fail.length === 0) problems.push("the runner did not report the check test that must fail");
    else if (fail.some((o) => o !== "failed") || fail.length < n)
      problems.push(
        `the runner reported the check test that must fail as ${fail.find((o) => o !== "failed") ?? "missing in part"}`,
      );
    if (pass.some((o) => o !== "passed"))
      problems.push(
        `the runner reported the check test that must pass as ${pass.find((o) => o !== "passed")}`,
      );
    else if (pass.length === 0) problems.push("the runner did not report the check test that must pass");
  }
  if (problems.length > 0) {
    const what =
      exec.exitCode === 0 && (!parsed || parsed.tests.size === 0)
        ? `; the runner exited 0 without per-test results`
        : "";
    return verdict("tampered", `${problems.join("; ")}${what}`);
  }
  // The failing canary is the run's only failure: the runner's exit status for failed tests (1; mocha's
  // count of failures) is what it reports for it, and without it the run would have passed (pytest, with
  // nothing else collected, would have said so: 5). A run whose output named nothing but the canaries
  // names no test of the repository: it has no per-test results, as it would have had without them.
  const othersFailed = parsed ? [...parsed.tests.values()].includes("failed") : true;
  const emptied = parsed !== null && parsed.tests.size === 0;
  const failCode = plan.runner === "mocha" ? n : 1;
  const exitCode =
    !othersFailed && exec.exitCode === failCode && onlyCanaryFailed(plan, exec)
      ? emptied && plan.runner === "pytest"
        ? 5
        : 0
      : exec.exitCode;
  if (quiet)
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
      detail: `the check tests ran: the one that must fail was reported failed, the one that must pass passed and left its file${n > 1 ? ` (in each of ${n} packages)` : ""}${OWN_PROCESS.has(plan.runner) ? "; each test file runs in a process of its own, so this shows how the runner reported its tests, not what ran in another file's process (a file whose tests are lost shows as tests that no longer run)" : ""}`,
    },
    exitCode,
    emptied,
  };
}

/**
 * Whether the runner's own summary counts the failing canary as its only failure: a failure no test id
 * carries (a test file that does not load, an error outside any test) keeps the run failed. Runners whose
 * failures all carry an id (mocha's report, go's package results) are judged by their ids alone.
 */
function onlyCanaryFailed(plan: CanaryPlan, exec: ExecResult): boolean {
  const out = stripAnsi(`${exec.stdout}\n${exec.stderr}`);
  const one = (re: RegExp): boolean => {
    const all = [...out.matchAll(re)];
    return all.length > 0 && all.every((m) => m[1] === "1");
  };
  switch (plan.runner) {
    case "pytest": {
      const lines = [...out.matchAll(/^[= ]*(\d+ \w+(?:, \d+ \w+)*) in [\d.]+s/gm)].map((m) => m[1]!);
      const last = lines.at(-1) ?? "";
      const failed = /(?:^|, )(\d+) failed(?:,|$)/.exec(last)?.[1];
      if (failed === undefined || /\berrors?\b/.test(last)) return false;
      // pytest 7 and earlier collect a file named on the command line once more when a folder also named
      // holds it: the failing canary is then reported once per collection, as the only failure each time.
      return failed === "1" || Number(failed) === canaryFailures(plan, out);
    }
    case "unittest": {
      const lines = [...out.matchAll(/^FAILED \(([^)]*)\)$/gm)].map((m) => m[1]!);
      return lines.length > 0 && lines.every((l) => /(^|, )failures=1(,|$)/.test(l) && !/errors=/.test(l));
    }
    case "jest":
      return one(/^Test Suites:\s+(\d+) failed/gm) && one(/^Tests:\s+(\d+) failed/gm);
    case "vitest":
      return one(/^\s*Test Files\s+(\d+) failed/gm) && one(/^\s*Tests\s+(\d+) failed/gm);
    case "node-test":
      return one(/^(?:ℹ|#) fail (\d+)$/gm);
    default:
      return true;
  }
}

/** How many times pytest's short summary (`-rA`) reports the failing canary as failed. */
function canaryFailures(plan: CanaryPlan, out: string): number {
  const file = plan.placements[0]?.file ?? "";
  const fail = plan.failName;
  return [...out.matchAll(/^FAILED (\S+?)::(?:\w+::)?(\w+)(?: |$)/gm)].filter(
    (m) => file !== "" && (m[1] === file || m[1]!.endsWith(`/${file}`)) && m[2] === fail,
  ).length;
}

/** Removes a plan's files when its run never finished (the sandbox threw). */
export function discardCanaries(tree: TreeFs, plan: CanaryPlan): void {
  removeCanaryFiles(tree, plan.placements);
}

/** Runners that run each test file in a process (or context) of its own: the canaries share none with them. */
const OWN_PROCESS: ReadonlySet<TestRunnerKind> = new Set(["node-test", "jest", "vitest"]);

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
