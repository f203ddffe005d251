import type { RepoConfig } from "../../config/index.ts";
import { openTree } from "../../core/tree-fs.ts";
import { describeOutcome, formatExecForModel, truncateMiddle } from "../../sandbox/format.ts";
import { makeWorkCopy } from "../../sandbox/index.ts";
import { runScript, type ScriptRun } from "../../sandbox/script-run.ts";
import type { ExecResult, SandboxPort } from "../../sandbox/types.ts";
import type { PristineTests } from "../../validate/baseline.ts";
import { compareRuns, countedClean, showsFix, type ValidationResult } from "../../validate/compare.ts";
import { codeChangeOfDiff } from "../../patch/code-change.ts";
import { describeFinding, scanDiff } from "../../scan/index.ts";
import { runTestSuite, type TestRun } from "../../validate/run-tests.ts";
import { validateCandidate } from "../../validate/targeted.ts";
import { reproducerRunKey, testRunKey, type TreeStates } from "../../validate/tree-states.ts";
import { validatePatched } from "../../validate/validate.ts";
import type { TreeChecks } from "./strategy.ts";
import type { CheckResult, RunRecord } from "./types.ts";

/** The reproducer the search checks against: a script written into the work tree and its command. */
export interface ReproducerScript {
  /** Path relative to the work tree root. */
  file: string;
  content: string;
  /** The command line that runs it (exit 0 = fixed). */
  command: string;
  timeoutMs: number;
}

const MAX_FAILURE_CHARS = 4_000;

function record(command: string, exec: ExecResult, passed: boolean): RunRecord {
  const r: RunRecord = {
    command,
    exitCode: exec.exitCode,
    output: truncateMiddle(`${exec.stdout}${exec.stdout && exec.stderr ? "\n" : ""}${exec.stderr}`, 3_000),
    passed,
  };
  if (exec.limit === "time") r.timedOut = true;
  return r;
}

const clean = (e: ExecResult) => e.exitCode === 0 && e.limit === null;

/**
 * A failing test run as prompts show it. The same shape before and after a patch, so that an unchanged
 * failure compares equal to the parent's.
 */
function testFailure(run: TestRun, regressions: readonly string[]): string {
  const head = `Tests (${run.command}): ${describeOutcome(run.exec)}, ${run.failed} failed`;
  const reg =
    regressions.length > 0
      ? `\nPassed before the patch, fail now: ${regressions.slice(0, 10).join(", ")}`
      : "";
  return `${head}${reg}\n${truncateMiddle(run.exec.stdout + run.exec.stderr, 1_500)}`;
}

/** Exit statuses a shell reports for a child killed by SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGKILL, SIGSEGV. */
const CRASH_EXITS = new Set([132, 134, 135, 136, 137, 139]);

/** A limit or a fatal signal ended the run: the patch made the program hang or crash. */
function brokenRun(e: ExecResult): "timeout" | "crash" | null {
  if (e.limit === "time") return "timeout";
  if (e.limit !== null || (e.exitCode === null && e.signal !== null)) return "crash";
  if (e.exitCode !== null && CRASH_EXITS.has(e.exitCode)) return "crash";
  return null;
}

/**
 * The tree search's checks on the real sandbox: the reproducer (exit 0 = fixed) and the repository's
 * test command (no test that passed before may fail after). Each run is told apart as passed, failing,
 * crashed (killed by a signal or a memory/process/output limit) or timed out.
 */
export function sandboxChecks(deps: {
  sandbox: SandboxPort;
  config: RepoConfig;
  reproducer: ReproducerScript | null;
  /**
   * The unpatched tree (set up, never run in): before each test run its test configuration is put back
   * into the work tree, where a candidate's reproducer or an earlier run may have changed it.
   */
  pristine?: string;
  /** The job's unpatched test run (shared with the validation stage); default: run here. */
  baselineTests?: () => Promise<TestRun | null>;
  /** The reproduce stage's run of the same script on the unpatched tree; default: run here. */
  reproducerBefore?: ExecResult;
  /**
   * The job's shared results (the prepared trees' `once`): a candidate's reproducer and test runs are
   * kept under the program's key, so the review and validation of the same patch do not run them again.
   */
  memo?: Pick<TreeStates, "once">;
  /**
   * The job's unpatched test results per test (shared with the validation stage): with them each
   * candidate runs the tests related to its change first, and no test runs twice on the unpatched tree.
   */
  tests?: PristineTests;
}): TreeChecks {
  const { sandbox, config, reproducer, memo, tests: store } = deps;
  const testOpts = deps.pristine ? { pristine: deps.pristine } : {};
  let baselineTests: TestRun | null = null;
  /**
   * The reproducer runs in a copy of `dir`, made before anything runs there: the script is the model's,
   * and whatever it does (rewrite a test, plant a cache or a configuration file) stays out of the tree
   * the tests then run in.
   */
  const runReproducer = async (dir: string, diff?: string): Promise<ExecResult | null> => {
    if (!reproducer) return null;
    const script = reproducer.content.endsWith("\n") ? reproducer.content : `${reproducer.content}\n`;
    // The same run the review loop makes of this script (how it ended, the lines it ran), shared by key.
    const run = async (): Promise<ScriptRun> => {
      const copy = await makeWorkCopy(dir);
      try {
        // Written through tree-fs: a link committed at the script's path is replaced, never written through.
        openTree(copy.dir).write(reproducer.file, script, { onLink: "replace" });
        return await runScript(sandbox, {
          workdir: copy.dir,
          runtime: config.reproducer.runtime,
          command: reproducer.command,
          file: reproducer.file,
          timeoutMs: reproducer.timeoutMs,
          memoryMb: config.sandbox.memoryMb,
          maxProcesses: config.sandbox.maxProcesses,
        });
      } finally {
        await copy.dispose();
      }
    };
    if (!memo || diff === undefined) return (await run()).exec;
    return (await memo.once(reproducerRunKey(diff, reproducer.command, reproducer.file, script), run)).exec;
  };
  const parts = [
    reproducer ? `reproducer \`${reproducer.command}\`` : null,
    config.test.command ? `tests \`${config.test.command}\`` : null,
  ];
  return {
    describe: parts.filter(Boolean).join(" + ") || "nothing",
    async baseline(dir) {
      const repro = deps.reproducerBefore ?? (await runReproducer(dir));
      // With a reproducer to search against, targeted tests need no whole-suite run before the search.
      const targetedOnly = store && reproducer && config.validation.mode === "targeted";
      baselineTests = targetedOnly
        ? null
        : deps.baselineTests
          ? await deps.baselineTests()
          : store
            ? await store.full()
            : await runTestSuite(sandbox, dir, config, undefined, testOpts);
      const failure: string[] = [];
      const out: { failure: string; reproducer?: RunRecord; tests?: RunRecord } = { failure: "" };
      if (repro && reproducer) {
        out.reproducer = record(reproducer.command, repro, clean(repro));
        if (!clean(repro))
          failure.push(`Reproducer (${reproducer.command}):\n${formatExecForModel(repro, 2_000)}`);
      }
      if (baselineTests) {
        out.tests = record(baselineTests.command, baselineTests.exec, clean(baselineTests.exec));
        if (!clean(baselineTests.exec)) {
          failure.push(testFailure(baselineTests, []));
        }
      }
      out.failure = truncateMiddle(failure.join("\n\n"), MAX_FAILURE_CHARS);
      return out;
    },
    async run(dir, change): Promise<CheckResult> {
      const repro = await runReproducer(dir, change?.diff);
      const reproRecord = repro && reproducer ? record(reproducer.command, repro, clean(repro)) : undefined;
      const runs = (extra: { tests?: RunRecord }) => ({
        ...(reproRecord ? { reproducer: reproRecord } : {}),
        ...extra,
      });
      if (repro && reproducer) {
        const broken = brokenRun(repro);
        if (broken) {
          return { outcome: broken, message: `the reproducer was ${describeOutcome(repro)}`, ...runs({}) };
        }
      }
      let after: TestRun | null;
      let cmp: ValidationResult;
      if (store && deps.pristine && change && config.test.command) {
        // The tests related to the change, as the validation stage runs them, and kept for it.
        const pristineDir = deps.pristine;
        const validate = () =>
          validateCandidate({
            sandbox,
            config,
            pristine: { dir: pristineDir, tests: store },
            workdir: dir,
            changed: change.changedFiles,
            ...(reproducer ? { reproducerText: reproducer.content } : {}),
          });
        const v = memo ? await memo.once(testRunKey(change.diff), validate) : await validate();
        after = v.run;
        cmp = v.result;
      } else if (memo && change && baselineTests) {
        // Run as the validation stage runs it, and kept for it.
        const base = baselineTests;
        const v = await memo.once(testRunKey(change.diff), () =>
          validatePatched(sandbox, dir, config, base, undefined, deps.pristine),
        );
        after = v.run;
        cmp = v.result;
      } else {
        after = await runTestSuite(sandbox, dir, config, undefined, testOpts);
        cmp = compareRuns(baselineTests ?? (store && after ? await store.full() : null), after);
      }
      const testsRecord = after ? record(after.command, after.exec, false) : undefined;
      if (after && (cmp.before?.limit ?? null) === null) {
        const broken = brokenRun(after.exec);
        if (broken) {
          return {
            outcome: broken,
            message: `the test suite was ${describeOutcome(after.exec)}`,
            ...runs(testsRecord ? { tests: testsRecord } : {}),
          };
        }
      }
      // The pipeline's rule for "fixed" (contract/fix-evidence.ts): tests that ran and were counted with
      // no regression (or none to run), no related test still failing, code that changed, and something
      // that ran showing the bug gone: the reproducer, or (without one) a test that failed before.
      const testsOk = countedClean(cmp) || cmp.status === "no-tests";
      if (testsRecord) testsRecord.passed = testsOk;
      const reproOk = !repro || clean(repro);
      const stillRelated = cmp.stillFailingRelated ?? [];
      const code = change && deps.pristine ? await codeChangeOfDiff(deps.pristine, change.diff) : null;
      // Code aimed at the checks (call stack, environment, runner state, ...) is never a fix (src/scan).
      const scan = change && deps.pristine ? await scanDiff(deps.pristine, change.diff) : null;
      const findings = scan ? [...scan.findings.map((f) => describeFinding(f)), ...scan.unscanned] : [];
      const fixed =
        findings.length === 0 &&
        code?.changed !== false &&
        testsOk &&
        stillRelated.length === 0 &&
        (reproducer ? reproOk : showsFix(cmp));
      if (fixed) return { outcome: "passed", ...runs(testsRecord ? { tests: testsRecord } : {}) };
      const failure: string[] = [];
      if (code?.changed === false) failure.push(`The patch changes no code: ${code.detail}.`);
      if (findings.length > 0)
        failure.push(
          `The patch holds code a fix has no reason to hold, so it cannot count as a fix: ${findings.slice(0, 5).join("; ")}.`,
        );
      if (repro && reproducer && !reproOk) {
        failure.push(`Reproducer (${reproducer.command}):\n${formatExecForModel(repro, 2_000)}`);
      }
      if (cmp.status === "tampered" || cmp.status === "could-not-run") failure.push(`Tests: ${cmp.summary}`);
      if (stillRelated.length > 0)
        failure.push(
          `Tests that relate to the change failed before the patch and still fail: ${stillRelated.slice(0, 10).join(", ")}`,
        );
      if (after && (!testsOk || (!reproducer && !showsFix(cmp)))) {
        failure.push(testFailure(after, cmp.regressions));
      }
      return {
        outcome: "failed",
        failure: truncateMiddle(failure.join("\n\n"), MAX_FAILURE_CHARS),
        ...runs(testsRecord ? { tests: testsRecord } : {}),
      };
    },
  };
}
