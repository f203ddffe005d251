import type { RepoConfig } from "../config/index.ts";
import { isProtectedPath } from "../core/path-rules.ts";
import { isTestConfigFile } from "../runners/shared/conventions-test-config.ts";
import { isTestPath } from "../core/test-files.ts";
import { openTree } from "../core/tree-fs.ts";
import { execReport } from "../contract/exec-report.ts";
import { stopsRun } from "../contract/failures.ts";
import type { RegressionOutcome } from "../contract/pipeline.ts";
import type { RegressionTestReport } from "../contract/result.ts";
import { fencedBlocks } from "../model/json.ts";
import type { ChatMessage, ModelPort } from "../model/types.ts";
import { renderReviewPrompt } from "../prompts/review.ts";
import { type ExecResult, formatExecForModel, type SandboxPort } from "../sandbox/index.ts";
import { scanNewFile } from "../scan/index.ts";
import { runnerFor } from "../runners/index.ts";
import { planRegressionTest, type TestPlan } from "./conventions.ts";
import { judgesEachTest, type Miss, missAfter, missBefore, perTestVerdicts } from "./outcome.ts";

/** A tree the stage may run in; disposed when done. */
export interface RegressTree {
  dir: string;
  dispose(): Promise<void>;
}

export interface RegressStageInput {
  model: ModelPort;
  sandbox: SandboxPort | null;
  config: RepoConfig;
  /** A fresh copy of the set-up, unfixed tree, and one with `diff` applied; null when none can be made. */
  trees: { pristine(): Promise<RegressTree>; patched(diff: string): Promise<RegressTree> } | null;
  /** The prepared unfixed tree (read only: where the repository's test conventions are looked up). */
  root: string;
  /** The issue, sanitised and fenced as data. */
  issue: string;
  /** The chosen patch. */
  diff: string;
  /** The reproducer that failed before the fix, as the test's guide; null when none did. */
  script: string | null;
  /** Whether that script passed with this patch: true, false, or null/absent when it was not run with it. */
  scriptPassesWithFix?: boolean | null;
  /**
   * The repository's own tests that failed without this patch and pass with it (validation's per-test
   * results): when there is one, it is the regression test, and the stage writes none.
   */
  covering?: string[];
  /** What the repository's setup could not do (a failed step), shown to the model and in the summary. */
  environment?: string | null;
  signal?: AbortSignal;
  record: (name: string, text: string) => void;
  /**
   * Runs the repository's whole suite on the fixed tree with the test written at `path`, and says
   * whether every other test came out as it did without it (see `checkAddedTest`); absent when the
   * repository has no test suite to run it with.
   */
  suite?: (path: string, text: string) => Promise<{ ok: boolean; summary: string }>;
}

/** Model answers the stage asks for at most (the first test and one correction). */
export const REGRESS_ATTEMPTS = 2;

/** Files a unified diff changes (the `b/` side). */
export function diffFiles(diff: string): string[] {
  return [...diff.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]!.trim());
}

/** A unified diff that creates `path` with `text` (what `git diff` writes for a new file). */
export function newFileDiff(path: string, text: string): string {
  const body = text.replace(/\r\n?/g, "\n").replace(/\n*$/, "\n");
  const lines = body.slice(0, -1).split("\n");
  return [
    `diff --git a/${path} b/${path}`,
    "new file mode 100644",
    "--- /dev/null",
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    "",
  ].join("\n");
}

/** The test file in a model's answer: the longest fenced block in its language, else the longest. */
function extractTest(answer: string, tags: string[]): string | null {
  const blocks = fencedBlocks(answer).filter((b) => b.code.trim() !== "");
  if (blocks.length === 0) return null;
  const tagged = blocks.filter((b) => tags.includes(b.lang));
  const pool = tagged.length > 0 ? tagged : blocks;
  return pool.reduce((a, b) => (b.code.length > a.code.length ? b : a)).code;
}

/** The command that runs the written file's tests, as its runner runs them (Go: only the new file's). */
function commandFor(plan: TestPlan, text: string): string {
  return runnerFor(plan.runner).regression.command?.(plan, text) ?? plan.command;
}

/** The stage's outcome without a test: what was planned, why nothing joins the patch, the runs kept. */
const report = (
  status: RegressionTestReport["status"],
  summary: string,
  plan: TestPlan | null,
  runs: { before?: ExecResult | null; after?: ExecResult | null; command?: string } = {},
): RegressionOutcome => ({
  diff: null,
  data: {
    status,
    summary,
    path: plan?.path ?? null,
    command: runs.command ?? plan?.command ?? null,
    framework: plan?.framework ?? null,
    before: runs.before ? execReport(runs.before) : null,
    after: runs.after ? execReport(runs.after) : null,
  },
});

/** Why a repository test that already goes red → green stands in for a new one. */
function coveredSummary(covering: string[]): string {
  const one = covering.length === 1;
  const named = covering
    .slice(0, 5)
    .map((t) => `\`${t}\``)
    .join(", ");
  const more = covering.length > 5 ? ` and ${covering.length - 5} more` : "";
  return `No regression test was added: the repository's own ${one ? "test" : "tests"} ${named}${more} already ${one ? "fails" : "fail"} without the fix and ${one ? "passes" : "pass"} with it, and guard${one ? "s" : ""} the behaviour.`;
}

/** The plan, or the outcome that ends the stage before any model request (and why). */
function preflight(input: RegressStageInput): { plan: TestPlan } | { done: RegressionOutcome } {
  const { config } = input;
  const stop = (summary: string, plan: TestPlan | null = null, status: "left-out" | "off" = "left-out") => ({
    done: report(status, summary, plan),
  });
  if (!config.regressionTest)
    return stop(
      "No regression test was written: the repository turned it off (regression-test: false).",
      null,
      "off",
    );
  const covering = (input.covering ?? []).filter((t) => t.trim() !== "");
  if (covering.length > 0) {
    const done = report("left-out", coveredSummary(covering), null);
    return { done: { ...done, data: { ...done.data, covered_by: covering } } };
  }
  if (!input.sandbox || !input.trees)
    return stop("No regression test was added: nothing from the repository could run here to check one.");
  const planned = planRegressionTest(input.root, config, diffFiles(input.diff));
  if (!planned.ok) return stop(`No regression test was added: ${planned.reason}.`);
  const plan = planned.plan;
  if (isProtectedPath(plan.path, config.protectedPaths))
    return stop(`No regression test was added: ${plan.path} is a protected path.`, plan);
  // Publishing takes a new file past the patch rules only as a test (never as test configuration).
  if (!isTestPath(plan.path) || isTestConfigFile(plan.path))
    return stop(`No regression test was added: ${plan.path} would not be read as a test file.`, plan);
  return { plan };
}

/**
 * The regression-test stage: plans a new test file by the repository's conventions, has the model write
 * it (from the reproducer and the fix), and checks it in the sandbox: every test in it must fail on the
 * unfixed tree (each is judged on its own where the runner names them) and pass on the fixed one. Only then does its diff join the patch; otherwise the report says why it
 * was left out. Never throws for stage trouble; errors that stop the run go through.
 */
export async function regressStage(input: RegressStageInput): Promise<RegressionOutcome> {
  const { config, sandbox, trees } = input;
  const pre = preflight(input);
  if ("done" in pre) return pre.done;
  const plan = pre.plan;
  if (!sandbox || !trees) throw new Error("unreachable: preflight checks the sandbox and the trees");
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: "You write regression tests for bug fixes, in the repository's own test framework and style.",
    },
    { role: "user", content: writePrompt(input, plan) },
  ];
  let last: { why: string; before: ExecResult | null; after: ExecResult | null; command: string } | null =
    null;
  const setupNote = input.environment ? ` (the repository's setup had failed: ${input.environment})` : "";
  try {
    for (let attempt = 1; attempt <= REGRESS_ATTEMPTS; attempt++) {
      const answer = await input.model.chat(messages, {
        stage: "regress",
        label: `regression-test-${attempt}`,
        ...(input.signal ? { signal: input.signal } : {}),
      });
      messages.push({ role: "assistant", content: answer.content });
      const text = extractTest(answer.content, plan.tags);
      if (text === null) {
        last = { why: "the model gave no test file", before: null, after: null, command: plan.command };
        messages.push({
          role: "user",
          content:
            "Your answer had no fenced code block. Answer with the complete test file in one fenced code block.",
        });
        continue;
      }
      // A test that reads the environment or the runner's state, or ends the process, is never run.
      const found = await scanNewFile(plan.path, text, "the test");
      if (found.length > 0) {
        last = { why: found.slice(0, 3).join("; "), before: null, after: null, command: plan.command };
        messages.push({
          role: "user",
          content: renderReviewPrompt("regression-test-scan", {
            findings: found.map((f) => `- ${f}`).join("\n"),
          }),
        });
        continue;
      }
      const command = commandFor(plan, text);
      const run = async (tree: RegressTree): Promise<ExecResult> =>
        runIn(sandbox, tree, plan.path, text, command, config, input.signal);
      const before = await run(await trees.pristine());
      input.record(
        `regress/attempt-${attempt}.md`,
        `# Regression test ${attempt}\n\n${plan.path}\n\n\`\`\`\n${text}\n\`\`\`\n\nWithout the fix:\n\n${formatExecForModel(before)}\n`,
      );
      const early = missBefore(plan, before, input.root);
      if (early) {
        last = { why: early.why, before, after: null, command };
        if (early.stop)
          return report("left-out", `No regression test was added: ${early.why}${setupNote}.`, plan, {
            before,
            command,
          });
        messages.push({ role: "user", content: feedback(early, "without the fix", before) });
        continue;
      }
      const after = await run(await trees.patched(input.diff));
      input.record(`regress/attempt-${attempt}-fixed.md`, `With the fix:\n\n${formatExecForModel(after)}\n`);
      const late = missAfter(plan, after, input.root, before);
      if (!late) {
        return await accept(input, plan, text, { before, after, command });
      }
      last = { why: late.why, before, after, command };
      if (late.stop)
        return report("left-out", `No regression test was added: ${late.why}${setupNote}.`, plan, {
          before,
          after,
          command,
        });
      messages.push({ role: "user", content: feedback(late, "with the fix", after) });
    }
  } catch (err) {
    if (stopsRun(err)) throw err;
    input.record("regress/error.txt", String((err as Error).stack ?? err));
    return report(
      "left-out",
      `No regression test was added: writing or checking it failed (${(err as Error).message}).`,
      plan,
    );
  }
  return report(
    "left-out",
    `No regression test was added: after ${REGRESS_ATTEMPTS} tries, ${last?.why ?? "no test was written"}.`,
    plan,
    { before: last?.before ?? null, after: last?.after ?? null, command: last?.command ?? plan.command },
  );
}

/** A test that passed alone: joins the patch once the suite, run with it, leaves every other test as it was. */
async function accept(
  input: RegressStageInput,
  plan: TestPlan,
  text: string,
  runs: { before: ExecResult; after: ExecResult; command: string },
): Promise<RegressionOutcome> {
  const suite = input.suite ? await input.suite(plan.path, text) : null;
  if (suite) input.record("regress/suite-check.md", `# The suite with ${plan.path}\n\n${suite.summary}\n`);
  if (suite && !suite.ok)
    return report("left-out", `No regression test was added: ${suite.summary}.`, plan, runs);
  const n = perTestVerdicts(plan, runs.before)?.size ?? 0;
  const counted =
    n === 1
      ? " (its one test, checked on its own)"
      : n > 1
        ? ` (each of its ${n} tests, checked on its own)`
        : "";
  const added = report(
    "added",
    `A regression test was added as ${plan.path} (${plan.framework}): it fails without the fix and passes with it${counted}.`,
    plan,
    runs,
  );
  return {
    diff: newFileDiff(plan.path, text),
    data: { ...added.data, ...(suite ? { suite: suite.summary } : {}) },
  };
}

const feedback = (miss: Miss, which: string, run: ExecResult): string =>
  renderReviewPrompt("regression-test-feedback", {
    verdict: miss.verdict,
    reason: miss.why,
    which,
    output: formatExecForModel(run),
  });

/** What the script showed, in words that claim only what ran. */
function scriptStatus(passes: boolean | null | undefined): string {
  if (passes === true) return "This script failed on the code without the fix and passes with this fix.";
  if (passes === false)
    return "This script failed on the code without the fix, and it still fails with this fix: do not take it as the test's expected outcome.";
  return "This script failed on the code without the fix; it was not run with this fix.";
}

function writePrompt(input: RegressStageInput, plan: TestPlan): string {
  return renderReviewPrompt("regression-test-write", {
    issue: input.issue,
    patch: input.diff,
    script: input.script ?? "",
    // Named only inside the script's section: passed only when there is a script.
    ...(input.script ? { script_status: scriptStatus(input.scriptPassesWithFix) } : {}),
    environment: input.environment ?? "",
    checked: judgesEachTest(plan)
      ? "each test is checked on its own"
      : "the runner reports the file as a whole",
    framework: plan.framework,
    language: plan.language,
    file: plan.path,
    command: plan.command,
    notes: plan.notes,
    example: plan.example?.text ?? "",
    // Named only inside the example's section: passed only when there is an example.
    ...(plan.example ? { example_path: plan.example.path } : {}),
  });
}

/** Writes the test into a fresh tree (never over an existing file) and runs it there, network off. */
async function runIn(
  sandbox: SandboxPort,
  tree: RegressTree,
  path: string,
  text: string,
  command: string,
  config: RepoConfig,
  signal: AbortSignal | undefined,
): Promise<ExecResult> {
  try {
    const fs = openTree(tree.dir);
    if (fs.kind(path) !== "missing") throw new Error(`${path} already exists in the tree`);
    fs.write(path, text.endsWith("\n") ? text : `${text}\n`, { onLink: "replace" });
    return await sandbox.run({
      workdir: tree.dir,
      command,
      timeoutMs: config.timeouts.reproducerMs,
      memoryMb: config.sandbox.memoryMb,
      maxProcesses: config.sandbox.maxProcesses,
      ...(signal ? { signal } : {}),
    });
  } finally {
    await tree.dispose();
  }
}
