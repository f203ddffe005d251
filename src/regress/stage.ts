import type { RepoConfig } from "../config/index.ts";
import { isProtectedPath, isTestConfigFile } from "../core/path-rules.ts";
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
import { planRegressionTest, type TestPlan } from "./conventions.ts";

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

/** Go runs only the new file's tests: `-run '^(TestA|TestB)$'`. */
function commandFor(plan: TestPlan, text: string): string {
  if (plan.framework !== "go test") return plan.command;
  const names = [...text.matchAll(/^func (Test\w*)\(\s*\w+ \*testing\.T\s*\)/gm)].map((m) => m[1]!);
  return names.length > 0 ? `${plan.command} -run '^(${names.join("|")})$'` : plan.command;
}

/** Whether a run's output shows that at least one test ran (a runner finding none may still exit 0). */
function testsRan(plan: TestPlan, e: ExecResult): boolean {
  const out = `${e.stdout}\n${e.stderr}`;
  if (plan.framework === "go test") return !/no tests to run|no test files/.test(out);
  if (plan.framework === "node --test") {
    const tests = /^(?:# |ℹ )tests (\d+)/m.exec(out);
    return tests ? Number(tests[1]) > 0 : true;
  }
  if (plan.framework === "pytest") return !/no tests ran/.test(out);
  if (plan.framework === "unittest") return !/^Ran 0 tests/m.test(out);
  return true;
}

const ended = (e: ExecResult): string =>
  e.limit
    ? `it hit the sandbox's ${e.limit} limit`
    : e.exitCode === null
      ? `it was killed by ${e.signal}`
      : `exit code ${e.exitCode}`;

/**
 * The regression-test stage: plans a new test file by the repository's conventions, has the model write
 * it (from the reproducer and the fix), and checks it in the sandbox: it must fail on the unfixed tree
 * and pass on the fixed one. Only then does its diff join the patch; otherwise the report says why it
 * was left out. Never throws for stage trouble; errors that stop the run go through.
 */
export async function regressStage(input: RegressStageInput): Promise<RegressionOutcome> {
  const { config, sandbox, trees } = input;
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
  if (!config.regressionTest)
    return report(
      "off",
      "No regression test was written: the repository turned it off (regression-test: false).",
      null,
    );
  if (!sandbox || !trees)
    return report(
      "left-out",
      "No regression test was added: nothing from the repository could run here to check one.",
      null,
    );
  const planned = planRegressionTest(input.root, config, diffFiles(input.diff));
  if (!planned.ok) return report("left-out", `No regression test was added: ${planned.reason}.`, null);
  const plan = planned.plan;
  if (isProtectedPath(plan.path, config.protectedPaths))
    return report("left-out", `No regression test was added: ${plan.path} is a protected path.`, plan);
  // Publishing takes a new file past the patch rules only as a test (never as test configuration).
  if (!isTestPath(plan.path) || isTestConfigFile(plan.path))
    return report(
      "left-out",
      `No regression test was added: ${plan.path} would not be read as a test file.`,
      plan,
    );
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: "You write regression tests for bug fixes, in the repository's own test framework and style.",
    },
    {
      role: "user",
      content: renderReviewPrompt("regression-test-write", {
        issue: input.issue,
        patch: input.diff,
        script: input.script ?? "",
        framework: plan.framework,
        language: plan.language,
        file: plan.path,
        command: plan.command,
        notes: plan.notes,
        example: plan.example?.text ?? "",
        // Named only inside the example's section: passed only when there is an example.
        ...(plan.example ? { example_path: plan.example.path } : {}),
      }),
    },
  ];
  let last: { why: string; before: ExecResult | null; after: ExecResult | null; command: string } | null =
    null;
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
      const before = await runIn(
        sandbox,
        await trees.pristine(),
        plan.path,
        text,
        command,
        config,
        input.signal,
      );
      input.record(
        `regress/attempt-${attempt}.md`,
        `# Regression test ${attempt}\n\n${plan.path}\n\n\`\`\`\n${text}\n\`\`\`\n\nWithout the fix:\n\n${formatExecForModel(before)}\n`,
      );
      if (before.limit !== null || before.exitCode === 0 || !testsRan(plan, before)) {
        const why =
          before.exitCode === 0 && testsRan(plan, before)
            ? "it passed on the code without the fix, so it would not catch the bug"
            : !testsRan(plan, before)
              ? "no test in it ran"
              : `it did not run to a verdict on the code without the fix (${ended(before)})`;
        last = { why, before, after: null, command };
        messages.push({
          role: "user",
          content: renderReviewPrompt("regression-test-feedback", {
            reason: why,
            which: "without the fix",
            output: formatExecForModel(before),
          }),
        });
        continue;
      }
      const after = await runIn(
        sandbox,
        await trees.patched(input.diff),
        plan.path,
        text,
        command,
        config,
        input.signal,
      );
      input.record(`regress/attempt-${attempt}-fixed.md`, `With the fix:\n\n${formatExecForModel(after)}\n`);
      if (after.limit === null && after.exitCode === 0 && testsRan(plan, after)) {
        // Alone it passes; in the suite it must leave every other test as it was.
        const suite = input.suite ? await input.suite(plan.path, text) : null;
        if (suite)
          input.record("regress/suite-check.md", `# The suite with ${plan.path}\n\n${suite.summary}\n`);
        if (suite && !suite.ok)
          return report("left-out", `No regression test was added: ${suite.summary}.`, plan, {
            before,
            after,
            command,
          });
        return {
          diff: newFileDiff(plan.path, text),
          data: {
            ...report(
              "added",
              `A regression test was added as ${plan.path} (${plan.framework}): it fails without the fix and passes with it.`,
              plan,
              { before, after, command },
            ).data,
            ...(suite ? { suite: suite.summary } : {}),
          },
        };
      }
      const why = `it did not pass with the fix (${ended(after)})`;
      last = { why, before, after, command };
      messages.push({
        role: "user",
        content: renderReviewPrompt("regression-test-feedback", {
          reason: why,
          which: "with the fix",
          output: formatExecForModel(after),
        }),
      });
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
