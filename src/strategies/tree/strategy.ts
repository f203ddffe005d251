import { fenceIssue } from "../../agents/issue-text.ts";
import { fenceMaintainerInput, hasMaintainerInput, maintainerInputOf } from "../../core/maintainer-input.ts";
import { historyContext } from "../../agents/patch-agent.ts";
import { createWorkspace } from "../../workspace/workspace.ts";
import type { FixContext, PatchCandidate, PatchStrategy } from "../../contract/pipeline.ts";
import { createDiskRepo, type PatchResult } from "../../patch/index.ts";
import type { TreeSearchConfig } from "../../config/tree-search.ts";
import { createModelExpander } from "./model-expander.ts";
import { createModelReward } from "./model-reward.ts";
import { ProgramStore, WorkTreeSync } from "./programs.ts";
import { runTreeSearch, type TreeSearchResult } from "./search.ts";
import { renderTreeOutline, treeToJson } from "./serialize.ts";
import type { CheckResult, Evaluator, RunRecord, TreeNode } from "./types.ts";
import { formatUsd } from "../../model/usage.ts";

/** What the tree search checks each candidate with: the reproducer and the regression tests. */
export interface TreeChecks {
  /** One line for the report: what is run ("reproducer + `make test`"). */
  readonly describe: string;
  /** Runs the checks on the unpatched program in `dir`: the root's failing evidence. */
  baseline(dir: string): Promise<{ failure: string; reproducer?: RunRecord; tests?: RunRecord }>;
  /**
   * Runs the checks on the candidate program in `dir`; `change` is that program (its diff against the
   * original and the files it changes), for runs shared with the later stages.
   */
  run(dir: string, change?: { diff: string; changedFiles: readonly string[] }): Promise<CheckResult>;
  /**
   * A fresh private work tree to run the checks in (set up, when the repository needs it); default a
   * copy. Every check gets its own: nothing a candidate's run leaves behind (an edited test, a planted
   * cache or configuration file) reaches another candidate's.
   */
  workTree?(): Promise<{ dir: string; dispose(): Promise<void> }>;
  /** Frees what the checks hold (prepared trees), once the search is over. */
  dispose?(): Promise<void>;
}

export interface TreeStrategyOptions {
  config: TreeSearchConfig;
  /** Builds the checks for this run; a string says why there are none (no reproducer, no tests, ...). */
  checks: (ctx: FixContext) => Promise<TreeChecks | string>;
  /** Runs when no checks are available: the search cannot tell a fix from a failure without them. */
  fallback: PatchStrategy;
  /** Globs of the repository configuration that no patch may touch (on top of the built-in ones). */
  protectedGlobs?: string[];
}

async function copyOf(dir: string): Promise<{ dir: string; dispose(): Promise<void> }> {
  const ws = await createWorkspace(dir);
  return { dir: ws.root, dispose: ws.dispose };
}

/** A search result as the pipeline's report shows it. */
export interface TreeReport {
  result: TreeSearchResult;
  outline: string;
  checks: string;
}

/** The tree search as a patch strategy of the pipeline (`--strategy tree`, `strategy: tree`). */
export function treeStrategy(
  opts: TreeStrategyOptions,
): PatchStrategy & { lastReport: () => TreeReport | null } {
  let last: TreeReport | null = null;
  return {
    name: "tree",
    lastReport: () => last,
    async run(ctx: FixContext): Promise<PatchCandidate[]> {
      const checks = await opts.checks(ctx);
      if (typeof checks === "string") {
        const note = `tree search not run: ${checks}; without checks it cannot tell a fix from a failure, so the linear writer ran instead`;
        ctx.recorder.write("tree/skipped.md", `${note}\n`);
        ctx.progress.detail("no checks: linear writer");
        ctx.state.notes = [...(ctx.state.notes ?? []), note];
        return opts.fallback.run(ctx);
      }
      const programs = new ProgramStore(
        createDiskRepo(ctx.workdir),
        opts.protectedGlobs ? { protectedGlobs: opts.protectedGlobs } : {},
      );
      const freshTree = () => (checks.workTree ? checks.workTree() : copyOf(ctx.workdir));
      const work = await freshTree();
      try {
        const evidence = await checks.baseline(work.dir);
        if (!evidence.failure.trim()) {
          const note = `tree search not run: ${checks.describe} already pass on the unpatched program, so there is no failure to search against; the linear writer ran instead`;
          ctx.recorder.write("tree/skipped.md", `${note}\n`);
          ctx.state.notes = [...(ctx.state.notes ?? []), note];
          return opts.fallback.run(ctx);
        }
        const issue = fenceIssue(ctx.options.issue);
        const locations =
          ctx.state.locationsText ??
          `No bug location was resolved; these are the search results:\n\n${historyContext(ctx.state.search?.results ?? [])}`;
        const reward = createModelReward(ctx.model, issue);
        const evaluator: Evaluator = {
          async apply(candidate, parent) {
            const r = await programs.apply(candidate.answer, parent.diff);
            return r.ok
              ? { ok: true, diff: r.diff, changedFiles: r.changedFiles }
              : { ok: false, status: r.status, message: r.message };
          },
          async check(applied) {
            const tree = await freshTree();
            try {
              await new WorkTreeSync(tree.dir, programs).show(programs.programFor(applied.diff));
              return await checks.run(tree.dir, { diff: applied.diff, changedFiles: applied.changedFiles });
            } finally {
              await tree.dispose().catch(() => undefined);
            }
          },
          reward,
        };
        const { config } = opts;
        // A run that can be cancelled (Ctrl-C, `/cancel`) carries its signal in the options.
        const signal = ctx.options.signal;
        const result = await runTreeSearch({
          ...(signal ? { signal } : {}),
          config,
          expander: createModelExpander(ctx.model, {
            issue,
            locations,
            formatHelp: ctx.code.engine.formatHelp,
            programs,
            ...(hasMaintainerInput(maintainerInputOf(ctx.options))
              ? { guidance: fenceMaintainerInput(maintainerInputOf(ctx.options)) }
              : {}),
          }),
          evaluator,
          budget: {
            exhausted: () => ctx.meter.exceeded(),
            describe: () => {
              const t = ctx.meter.totals();
              return `${ctx.meter.calls()} calls, ${t.prompt_tokens + t.completion_tokens} tokens, ${formatUsd(t.cost_usd)}`;
            },
          },
          evidence,
          onEvent: (e) => {
            if (e.type === "rollout") {
              ctx.progress.detail(`rollout ${e.rollout}/${config.maxRollout} at node #${e.nodeId}`);
            }
          },
        });
        const outline = renderTreeOutline(result.tree, result.best?.id ?? null);
        ctx.recorder.writeJson("tree/tree.json", treeToJson(result));
        ctx.recorder.write("tree/outline.md", `${outline}\n`);
        last = { result, outline, checks: checks.describe };
        ctx.state.sections = [
          ...(ctx.state.sections ?? []),
          { title: "Tree search", markdown: treeSection(last) },
        ];
        if (!result.best) return [];
        const candidate = await toCandidate(programs, result.best, result, checks.describe);
        ctx.state.candidates.push(candidate);
        return [candidate];
      } finally {
        await work.dispose().catch(() => undefined);
        await checks.dispose?.().catch(() => undefined);
      }
    },
  };
}

/**
 * The node as a pipeline candidate: its cumulative change against the original as one patch result, so
 * later stages (review, validation, writing) see exactly the program the search checked.
 */
async function toCandidate(
  programs: ProgramStore,
  node: TreeNode,
  result: TreeSearchResult,
  checks: string,
): Promise<PatchCandidate> {
  const program = programs.programFor(node.diff);
  const changedFiles: PatchResult["changedFiles"] = [];
  for (const [path, f] of program) {
    const orig = await programs.original(path);
    changedFiles.push({
      path,
      before: orig?.text ?? "",
      after: f.text,
      encoding: f.encoding,
      ...(f.created ? { created: true } : {}),
    });
  }
  const e = node.evaluation;
  const how =
    e.status === "passed"
      ? "passes the reproducer and the regression tests"
      : `best attempt found (${e.score !== undefined ? `score ${e.score}` : "unscored"}); the search stopped: ${result.detail}`;
  const patch: PatchResult = {
    status: "APPLICABLE_PATCH",
    diff: node.diff,
    edits: node.changedFiles.map((file) => ({
      file,
      status: "APPLICABLE_PATCH",
      message: `changed by tree node #${node.id} and its ancestors`,
    })),
    changedFiles,
    feedback: `tree node #${node.id} at depth ${node.depth} ${how}`,
  };
  const candidate: PatchCandidate = {
    id: `tree-${node.id}`,
    source: `tree node #${node.id} (depth ${node.depth})`,
    answer: node.answer,
    result: patch,
    applicable: true,
  };
  if (e.status === "passed") {
    // The search ran the checks on exactly this program; a validation stage, when present, runs its own.
    candidate.validation = {
      passed: true,
      // The reproducer failed on the original program and passes on this one.
      showsFix: true,
      regressions: [],
      summary: `checked during the tree search (${checks}): the reproducer passes and no test that passed before fails`,
    };
  }
  return candidate;
}

/** The report's "Tree search" section: how the search ended, its figures and the tree as an outline. */
export function treeSection(report: TreeReport): string {
  const { result } = report;
  const s = result.stats;
  const c = result.config;
  const lines = [
    `**${result.solved ? "Solved" : "Not solved"}** — ${result.detail}.`,
    "",
    `- Checks per candidate: ${report.checks}`,
    `- Rollouts: ${s.rollouts} of ${c.maxRollout}; expansions: ${s.expansions}; candidates from the model: ${s.candidates} (${s.notApplicable} did not apply, ${s.duplicates} repeated an earlier node); checked: ${s.checks}; scored by the reward model: ${s.rewardCalls}`,
    `- Parameters: c ${c.c}, branch ${c.branch}, max_expansion ${c.maxExpansion}, max_rollout ${c.maxRollout}, value_mix ${c.valueMix}`,
    `- Time: ${(result.ms / 1000).toFixed(2)} s; the whole tree is in \`tree/tree.json\``,
    "",
    "Each node: value (mixed with its best child's), visits, status; ★ marks the path to the chosen patch.",
    "",
    report.outline,
  ];
  return lines.join("\n");
}
