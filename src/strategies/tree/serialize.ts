import { z } from "zod";
import type { TreeSearchResult } from "./search.ts";
import type { SearchTree } from "./tree.ts";
import type { TreeNode } from "./types.ts";

export const TREE_FORMAT = "auto-fix/tree-search";
export const TREE_FORMAT_VERSION = 1;

const RunRecordSchema = z.object({
  command: z.string(),
  exitCode: z.number().nullable(),
  output: z.string(),
  passed: z.boolean(),
  timedOut: z.boolean().optional(),
});

const NodeSchema = z.object({
  id: z.number().int().min(0),
  parentId: z.number().int().min(0).nullable(),
  depth: z.number().int().min(0),
  diff: z.string(),
  changedFiles: z.array(z.string()),
  reflection: z.string(),
  answer: z.string(),
  evaluation: z.object({
    status: z.enum(["root", "not-applicable", "syntax-error", "crash", "timeout", "failing", "passed"]),
    reward: z.number(),
    rewardSource: z.enum(["rule", "model", "unscored"]),
    score: z.number().optional(),
    scoreReason: z.string().optional(),
    failure: z.string(),
    sameFailureAsParent: z.boolean().optional(),
    message: z.string().optional(),
    reproducer: RunRecordSchema.optional(),
    tests: RunRecordSchema.optional(),
  }),
  visits: z.number().int().min(0),
  value: z.number(),
  childIds: z.array(z.number().int().min(0)),
  expansions: z.number().int().min(0),
  duplicatesSkipped: z.number().int().min(0),
});

const TreeFileSchema = z.object({
  format: z.literal(TREE_FORMAT),
  version: z.literal(TREE_FORMAT_VERSION),
  stop: z.enum(["solved", "max-rollouts", "budget", "exhausted", "aborted", "error"]),
  detail: z.string(),
  solved: z.boolean(),
  bestId: z.number().int().min(0).nullable(),
  config: z.object({
    c: z.number(),
    branch: z.number(),
    maxExpansion: z.number(),
    maxRollout: z.number(),
    valueMix: z.number(),
    expandAttempts: z.number(),
  }),
  stats: z.object({
    rollouts: z.number(),
    expansions: z.number(),
    candidates: z.number(),
    duplicates: z.number(),
    notApplicable: z.number(),
    checks: z.number(),
    rewardCalls: z.number(),
  }),
  ms: z.number(),
  nodes: z.array(NodeSchema).min(1),
});

export type TreeFile = z.infer<typeof TreeFileSchema>;

/** The search as saved with the run's artifacts (`tree.json`). */
export function treeToJson(result: TreeSearchResult): TreeFile {
  return {
    format: TREE_FORMAT,
    version: TREE_FORMAT_VERSION,
    stop: result.stop,
    detail: result.detail,
    solved: result.solved,
    bestId: result.best?.id ?? null,
    config: { ...result.config },
    stats: { ...result.stats },
    ms: result.ms,
    nodes: result.tree.nodes.map((n) => structuredClone(n) as TreeFile["nodes"][number]),
  };
}

export type TreeFileParse = { ok: true; file: TreeFile; tree: SearchTree } | { ok: false; message: string };

/** Reads a saved tree back (untrusted file: validated, and its links checked). */
export function parseTreeJson(text: string): TreeFileParse {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return {
      ok: false,
      message: `tree file is not JSON: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const parsed = TreeFileSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      ok: false,
      message: `not a tree search file: ${first ? `${first.path.join(".")}: ${first.message}` : "invalid"}`,
    };
  }
  const file = parsed.data;
  const nodes = file.nodes as TreeNode[];
  for (const [i, n] of nodes.entries()) {
    if (n.id !== i) return { ok: false, message: `tree file: node at position ${i} has id ${n.id}` };
    if ((n.parentId === null) !== (i === 0))
      return { ok: false, message: `tree file: node #${i} has a bad parent` };
    if (n.parentId !== null && !nodes[n.parentId]?.childIds.includes(i)) {
      return { ok: false, message: `tree file: node #${i} is not listed under its parent #${n.parentId}` };
    }
    if (n.childIds.some((c) => c <= i || c >= nodes.length)) {
      return { ok: false, message: `tree file: node #${i} lists a child that does not exist` };
    }
  }
  if (file.bestId !== null && file.bestId >= nodes.length) {
    return { ok: false, message: `tree file: best node #${file.bestId} does not exist` };
  }
  return { ok: true, file, tree: { nodes } };
}

/** `+3 −1` for a unified diff. */
export function diffStat(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("+")) added += 1;
    else if (line.startsWith("-")) removed += 1;
  }
  return { added, removed };
}

function oneLine(text: string, max: number): string {
  const flat = text
    .replace(/[`*_[\]<>|\\]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function statusText(n: TreeNode): string {
  const e = n.evaluation;
  switch (e.status) {
    case "root":
      return "unpatched";
    case "passed":
      return "**passed**";
    case "failing":
      if (e.sameFailureAsParent) return "failing (same failure as parent, reward 0)";
      if (e.rewardSource === "unscored")
        return `failing (unscored: ${oneLine(e.scoreReason ?? "no score", 60)})`;
      return `failing (score ${e.score ?? Math.round(e.reward * 100)})`;
    default:
      return `${e.status}${e.message ? `: ${oneLine(e.message, 60)}` : ""}`;
  }
}

/**
 * The tree as an indented Markdown list for `report.md`: value, visits and status per node, what the
 * patch touches, the start of the model's reflection, and the path to the chosen node marked ★.
 */
export function renderTreeOutline(tree: SearchTree, bestId: number | null): string {
  const onPath = new Set<number>();
  for (let id: number | null = bestId; id !== null; id = tree.nodes[id]?.parentId ?? null) onPath.add(id);
  const lines: string[] = [];
  const visit = (n: TreeNode, indent: number): void => {
    const parts = [
      n.parentId === null ? "root" : `#${n.id}`,
      `value ${n.value.toFixed(2)}`,
      `visits ${n.visits}`,
      statusText(n),
    ];
    if (n.changedFiles.length > 0) {
      const s = diffStat(n.diff);
      parts.push(`${n.changedFiles.join(", ")} +${s.added} −${s.removed}`);
    }
    if (n.duplicatesSkipped > 0) parts.push(`${n.duplicatesSkipped} duplicate candidate(s) skipped`);
    let line = `${"  ".repeat(indent)}- ${onPath.has(n.id) ? "★ " : ""}${parts.join(" · ")}`;
    if (n.reflection.trim()) line += ` — “${oneLine(n.reflection, 90)}”`;
    lines.push(line);
    for (const id of n.childIds) {
      const child = tree.nodes[id];
      if (child) visit(child, indent + 1);
    }
  };
  const rootNode = tree.nodes[0];
  if (rootNode) visit(rootNode, 0);
  return lines.join("\n");
}
