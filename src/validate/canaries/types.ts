/** The shapes canary planning and checking share (see ./index.ts for what the canaries are). */
import type { TestRunnerKind } from "../../config/index.ts";

export type IntegrityState = "intact" | "tampered" | "unverified";

/** Whether a run's results can be trusted to come from tests that ran and were reported honestly. */
export interface RunIntegrity {
  state: IntegrityState;
  detail: string;
}

/** The targeted command a run uses instead of the test command (see TargetedCommand). */
export interface CanaryTargeted {
  argv: string[];
  sequential?: true;
}

/** One canary placement: the files written, the tests' names, and what the host checks afterwards. */
export interface Placement {
  /** Folder (relative to the tree's root, "" = root) holding the canary file and its proof. */
  dir: string;
  /** The canary file, relative to the root. */
  file: string;
  /** The proof file the must-pass canary appends to, relative to the root. */
  proof: string;
}

/** Canaries placed for one run. */
export interface CanaryPlan {
  runner: TestRunnerKind;
  /** The command to run instead of the configured or targeted one. */
  command: string[] | string;
  /** The random token every canary id holds. */
  token: string;
  passName: string;
  failName: string;
  /** The value each proof line must hold. */
  proofValue: string;
  placements: Placement[];
  /** Proof lines expected in each placement's file (runner processes that run its canaries). */
  processes: number;
}

/** A run that gets no canaries, and why (reported as the run's integrity: `unverified`). */
export interface NoCanaries {
  unverified: string;
}
