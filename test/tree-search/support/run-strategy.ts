import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseIssueFile } from "../../../src/agents/issue-text.ts";
import { loadRepoConfig, parseRepoConfig, type RepoConfig } from "../../../src/config/index.ts";
import type { Budget, StageUsage } from "../../../src/model/usage.ts";
import { linearStrategy } from "../../../src/strategies/linear.ts";
import { runFix } from "../../../src/pipeline/run-fix.ts";
import type { FixHooks, FixResult, PatchStrategy } from "../../../src/contract/pipeline.ts";
import type { SandboxPort } from "../../../src/sandbox/index.ts";
import { DEFAULT_TREE_SEARCH_CONFIG, type TreeSearchConfig } from "../../../src/config/tree-search.ts";
import { sandboxChecks } from "../../../src/strategies/tree/sandbox-checks.ts";
import { parseTreeJson, type TreeFile } from "../../../src/strategies/tree/serialize.ts";
import { type TreeReport, treeStrategy } from "../../../src/strategies/tree/strategy.ts";
import { TreeStates } from "../../../src/validate/index.ts";
import { agentScript, roleOf, searchSays } from "../../support/agent-script.ts";
import { makeTestModel } from "../../support/model-harness.ts";
import { type ChatRequest, startScriptedModel } from "../../support/scripted-model.ts";
import { tempDir } from "../../support/temp.ts";
import type { FixtureBug } from "./bugs.ts";

export { openCodeFor } from "../../review/open-code.ts";
import { openCodeFor } from "../../review/open-code.ts";

export const isExpansion = (req: ChatRequest) =>
  String(req.messages[0]?.content).includes("explored side by side");
export const isReward = (req: ChatRequest) =>
  String(req.messages[0]?.content).includes("You review attempted bug fixes");
const userText = (req: ChatRequest) => String(req.messages.at(-1)?.content ?? "");

export function repoConfigFor(bug: FixtureBug): RepoConfig {
  return parseRepoConfig(`test: ${bug.testCmd}\ntimeouts:\n  test: 30\n  reproducer: 30\n`);
}

export interface StrategyRun {
  strategy: "linear" | "tree";
  result: FixResult;
  out: string;
  calls: number;
  tokens: number;
  byStage: Record<string, StageUsage>;
  ms: number;
  requests: ChatRequest[];
  tree: TreeReport | null;
  /** The saved `tree/tree.json`, when the tree search ran. */
  treeFile: TreeFile | null;
}

/**
 * One whole run of the pipeline (index → search → patch strategy → selection) on a fixture bug, with the
 * scripted model playing every agent over HTTP; the tree search checks candidates in the real sandbox.
 */
export async function runStrategy(
  bug: FixtureBug,
  strategy: "linear" | "tree",
  opts: {
    sandbox: SandboxPort;
    budget?: Budget;
    config?: Partial<TreeSearchConfig>;
    patchAttempts?: number;
    /** Another repository than the bug's own (e.g. a copy with a configuration file). */
    repo?: string;
    /** Use this strategy instead of the one built from `strategy`. */
    use?: PatchStrategy;
    hooks?: FixHooks;
    testCmd?: string | null;
    /** Answers for the other agents (reproducer writer, reviewer); null passes the request on. */
    others?: (req: ChatRequest) => string | null;
  },
): Promise<StrategyRun> {
  let linearReplies = 0;
  const agents = agentScript({
    search: [searchSays("The bug is in this function.", { bug_locations: [bug.location] })],
    patch: [],
  });
  const server = await startScriptedModel((req, i) => {
    if (isExpansion(req)) {
      const list = bug.expand(userText(req));
      return { content: list[0] ?? "", choices: list.slice(1) };
    }
    if (isReward(req)) {
      return JSON.stringify({ analysis: "scripted judgement", score: bug.score(userText(req)) });
    }
    const other = roleOf(req) === "other" ? opts.others?.(req) : null;
    if (other) return other;
    if (roleOf(req) === "patch") {
      const k = linearReplies++;
      return bug.linear[Math.min(k, bug.linear.length - 1)] ?? "";
    }
    return agents(req, i);
  });
  const out = tempDir(`tree-run-${bug.name}-${strategy}-`);
  const tm = makeTestModel(server.baseURL, { dir: out, ...(opts.budget ? { budget: opts.budget } : {}) });
  const config = repoConfigFor(bug);
  const linear = linearStrategy(opts.patchAttempts !== undefined ? { maxAttempts: opts.patchAttempts } : {});
  const tree = treeStrategy({
    config: { ...DEFAULT_TREE_SEARCH_CONFIG, ...opts.config },
    fallback: linear,
    checks: async () =>
      sandboxChecks({
        sandbox: opts.sandbox,
        config,
        reproducer: {
          file: "reproducer.py",
          content: bug.reproducer,
          command: "python3 reproducer.py",
          timeoutMs: 30_000,
        },
      }),
  });
  const started = performance.now();
  const repo = opts.repo ?? bug.repo;
  const testCmd = opts.testCmd === null ? undefined : (opts.testCmd ?? bug.testCmd);
  try {
    const result = await runFix(
      {
        repo,
        issue: parseIssueFile(bug.issueText),
        out,
        ...(testCmd !== undefined ? { testCmd } : {}),
      },
      {
        // What the command line hands in: the repository's configuration, read once, and the sandbox.
        config: loadRepoConfig(repo, testCmd !== undefined ? { testCommand: testCmd } : {}),
        sandbox: { port: opts.sandbox, problem: null },
        model: tm.model,
        meter: tm.meter,
        recorder: tm.recorder,
        openCode: openCodeFor,
        strategy: opts.use ?? (strategy === "tree" ? tree : linear),
        ...(opts.hooks ? { hooks: opts.hooks } : {}),
      },
    );
    const t = tm.meter.totals();
    return {
      strategy,
      result,
      out,
      calls: tm.meter.calls(),
      tokens: t.prompt_tokens + t.completion_tokens,
      byStage: tm.meter.byStage(),
      ms: performance.now() - started,
      requests: server.requests,
      tree: strategy === "tree" ? tree.lastReport() : null,
      treeFile: readTreeFile(out),
    };
  } finally {
    await server.close();
  }
}

function readTreeFile(out: string): TreeFile | null {
  const path = join(out, "tree/tree.json");
  if (!existsSync(path)) return null;
  const parsed = parseTreeJson(readFileSync(path, "utf8"));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.file;
}

/** Whether a diff, applied to the bug's repository, makes its reproducer and tests pass (real sandbox). */
export async function patchFixes(
  bug: FixtureBug,
  diff: string | null,
  sandbox: SandboxPort,
): Promise<boolean> {
  const config = repoConfigFor(bug);
  const states = await TreeStates.prepare({ sandbox, config, source: bug.repo });
  try {
    const checks = sandboxChecks({
      sandbox,
      config,
      reproducer: {
        file: "reproducer.py",
        content: bug.reproducer,
        command: "python3 reproducer.py",
        timeoutMs: 30_000,
      },
    });
    const base = await states.pristine();
    await checks.baseline(base.dir);
    const copy = await states.patched(diff ?? "");
    return (await checks.run(copy.dir)).outcome === "passed";
  } finally {
    await states.dispose();
  }
}

/**
 * The reproduce and review stages' agents for a fixture bug: the reproducer writer answers with the
 * bug's script; the reviewer approves exactly when the reproducer passes after the patch (judging by
 * the runs it is shown, as the real reviewer is asked to).
 */
export function stageAgents(bug: FixtureBug): (req: ChatRequest) => string | null {
  return (req) => {
    const system = String(req.messages[0]?.content ?? "");
    const last = String(req.messages.at(-1)?.content ?? "");
    if (system.startsWith("You review a candidate fix")) {
      const after = last.split("Its run AFTER the patch:")[1] ?? "";
      const ok = /Result: exit code 0\b/.test(after);
      return JSON.stringify({
        "patch-analysis": ok ? "the reproducer passes after the patch" : "the reproducer still fails",
        "patch-correct": ok ? "yes" : "no",
        "patch-advice": ok ? "" : "the reproducer still fails after the patch; look at its output",
        "test-analysis": "the script checks what the issue describes",
        "test-correct": "yes",
        "test-advice": "",
      });
    }
    if (last.includes('"has-reproducible-example"')) return '{"has-reproducible-example": true}';
    if (last.includes("Write a standalone") || last.includes("did not reproduce the issue")) {
      return `Here is the script.\n\n\`\`\`python\n${bug.reproducer}\`\`\`\n`;
    }
    return null;
  };
}
