import type {
  ApplyResult,
  BudgetGate,
  Candidate,
  CheckResult,
  Evaluator,
  Expander,
  ExpansionRequest,
  Reward,
  RewardRequest,
  TreeNode,
} from "../../src/strategies/tree/types.ts";

/**
 * A small deterministic world for the search core. A node's "program" is the chain of edits from the
 * root, written `a>b>c`; the expander proposes edits per program, the checks fail with a message that
 * names the program unless the world says otherwise, and the reward model scores by program.
 */
export interface WorldSpec {
  /** Edits proposed for each program ("" is the root). Missing → no candidates. */
  proposals: Record<string, string[]>;
  /** Check outcome per program; default: failed with `AssertionError: wrong for <program>`. */
  outcomes?: Record<string, "pass" | "crash" | "timeout" | { failure: string }>;
  /** Reward model score per program; default 10. */
  scores?: Record<string, number>;
  /** Edits that do not apply (named by edit, not program). */
  broken?: Record<string, "not-applicable" | "syntax-error">;
  /** Edits that leave the program as it was (a no-op on top of the parent). */
  noops?: string[];
  /** Throw from the expander at this program. */
  expanderThrowsAt?: string;
}

export interface World {
  expander: Expander;
  evaluator: Evaluator;
  expandRequests: ExpansionRequest[];
  checked: string[];
  rewarded: RewardRequest[];
}

export const program = (node: Pick<TreeNode, "diff">): string => node.diff;

export function makeWorld(spec: WorldSpec): World {
  const expandRequests: ExpansionRequest[] = [];
  const checked: string[] = [];
  const rewarded: RewardRequest[] = [];
  const expander: Expander = {
    async expand(req) {
      expandRequests.push(req);
      if (spec.expanderThrowsAt !== undefined && program(req.node) === spec.expanderThrowsAt) {
        throw new Error("model endpoint answered 500");
      }
      const edits = spec.proposals[program(req.node)] ?? [];
      return edits
        .slice(0, req.count)
        .map((e): Candidate => ({ answer: `fix ${e}`, reflection: `try ${e}` }));
    },
  };
  const evaluator: Evaluator = {
    async apply(candidate, parent): Promise<ApplyResult> {
      const edit = candidate.answer.replace(/^fix /, "");
      const broken = spec.broken?.[edit];
      if (broken) return { ok: false, status: broken, message: `edit ${edit} does not apply` };
      if (spec.noops?.includes(edit)) return { ok: true, diff: parent.diff, changedFiles: ["a.py"] };
      const diff = parent.diff ? `${parent.diff}>${edit}` : edit;
      return { ok: true, diff, changedFiles: ["a.py"] };
    },
    async check(applied): Promise<CheckResult> {
      checked.push(applied.diff);
      const o = spec.outcomes?.[applied.diff];
      if (o === "pass") return { outcome: "passed" };
      if (o === "crash") return { outcome: "crash", message: "Segmentation fault" };
      if (o === "timeout") return { outcome: "timeout", message: "killed after 60 s" };
      if (o) return { outcome: "failed", failure: o.failure };
      return { outcome: "failed", failure: `AssertionError: wrong for ${applied.diff}` };
    },
    async reward(req): Promise<Reward> {
      rewarded.push(req);
      return { score: spec.scores?.[req.diff] ?? 10, reason: `scored ${req.diff}` };
    },
  };
  return { expander, evaluator, expandRequests, checked, rewarded };
}

export function unlimited(): BudgetGate {
  return { exhausted: () => false, describe: () => "no limit" };
}

/** A budget that allows `calls` expander + reward calls in total, counted by the caller. */
export function callBudget(calls: number, world: World): BudgetGate {
  return {
    exhausted: () => world.expandRequests.length + world.rewarded.length >= calls,
    describe: () => `${world.expandRequests.length + world.rewarded.length} of ${calls} model calls`,
  };
}
