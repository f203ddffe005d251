/** The shapes check-test planning and checking share (see ./index.ts for what the check tests are). */
import type { RunnerName } from "../../runners/index.ts";

export type { Focus, NoCanaries } from "../../runners/parts/canaries.ts";

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

/** One placement: the files written, and what the host checks afterwards. */
export interface Placement {
  /** Folder (relative to the tree's root, "" = root) holding the check tests' file and its proof. */
  dir: string;
  /** The check tests' file, relative to the root. */
  file: string;
  /** The proof file the must-pass test appends to, relative to the root. */
  proof: string;
}

/** Check tests placed for one run. */
export interface CanaryPlan {
  runner: RunnerName;
  /** The command to run instead of the configured or targeted one. */
  command: string[] | string;
  /** The random token every check test's id holds, as the runner's ids hold it. */
  token: string;
  passName: string;
  failName: string;
  /** The value each proof line must hold. */
  proofValue: string;
  placements: Placement[];
  /** Proof lines expected in each placement's file (runner processes that run its check tests). */
  processes: number;
}
