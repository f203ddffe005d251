import { z } from "zod";

/** The tree search's parameters. Every one can be set in the repo config or on the command line. */
export interface TreeSearchConfig {
  /** Exploration weight in `V + c·sqrt(2·ln N_parent / n_child)`. */
  c: number;
  /** Candidates asked from the model per expansion. */
  branch: number;
  /** Distinct applicable candidates kept (evaluated) per expansion. */
  maxExpansion: number;
  /** Rollouts (select → expand → evaluate → back-propagate) before the search stops. */
  maxRollout: number;
  /** Weight of the best child's value when a node's value is recomputed: V = (1−w)·reward + w·max child V. */
  valueMix: number;
  /** How often one node may be expanded (a second try only when every earlier child is dead or closed). */
  expandAttempts: number;
}

export const DEFAULT_TREE_SEARCH_CONFIG: Readonly<TreeSearchConfig> = Object.freeze({
  c: 0.5,
  branch: 4,
  maxExpansion: 3,
  maxRollout: 16,
  valueMix: 0.5,
  expandAttempts: 2,
});

const num = (min: number, max: number) => z.coerce.number().finite().min(min).max(max);
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const Schema = z
  .object({
    c: num(0, 100),
    branch: int(1, 16),
    max_expansion: int(1, 16),
    max_rollout: int(1, 500),
    value_mix: num(0, 1),
    expand_attempts: int(1, 5),
  })
  .partial()
  .strict();

/** Accepted spellings: snake_case (repo config), camelCase (code) and kebab-case (command line). */
const ALIASES: Record<string, keyof z.infer<typeof Schema>> = {
  c: "c",
  branch: "branch",
  max_expansion: "max_expansion",
  maxExpansion: "max_expansion",
  "max-expansion": "max_expansion",
  max_rollout: "max_rollout",
  maxRollout: "max_rollout",
  "max-rollout": "max_rollout",
  max_rollouts: "max_rollout",
  value_mix: "value_mix",
  valueMix: "value_mix",
  "value-mix": "value_mix",
  expand_attempts: "expand_attempts",
  expandAttempts: "expand_attempts",
  "expand-attempts": "expand_attempts",
};

export type ConfigParse = { ok: true; config: TreeSearchConfig } | { ok: false; message: string };

/**
 * Reads tree-search parameters from untrusted input (a YAML mapping, parsed flags), filling defaults.
 * Unknown keys and out-of-range values are refused with a message that names them.
 */
export function parseTreeSearchConfig(
  raw: unknown,
  base: TreeSearchConfig = DEFAULT_TREE_SEARCH_CONFIG,
): ConfigParse {
  if (raw === undefined || raw === null) return { ok: true, config: { ...base } };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    return { ok: false, message: "tree search settings must be a mapping (for example `max_rollout: 16`)" };
  }
  const renamed: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const name = ALIASES[key];
    if (name) renamed[name] = value;
    else unknown.push(key);
  }
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `unknown tree search setting${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")} (known: c, branch, max_expansion, max_rollout, value_mix, expand_attempts)`,
    };
  }
  const parsed = Schema.safeParse(renamed);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "settings"}: ${i.message}`);
    return { ok: false, message: `invalid tree search settings: ${problems.join("; ")}` };
  }
  const p = parsed.data;
  const config: TreeSearchConfig = {
    c: p.c ?? base.c,
    branch: p.branch ?? base.branch,
    maxExpansion: p.max_expansion ?? Math.min(base.maxExpansion, p.branch ?? base.branch),
    maxRollout: p.max_rollout ?? base.maxRollout,
    valueMix: p.value_mix ?? base.valueMix,
    expandAttempts: p.expand_attempts ?? base.expandAttempts,
  };
  if (config.maxExpansion > config.branch) {
    return {
      ok: false,
      message: `max_expansion (${config.maxExpansion}) cannot exceed branch (${config.branch}): only branch candidates are asked for`,
    };
  }
  return { ok: true, config };
}
