/** The review loop's types: what it takes (deps, proposals) and what it gives back (rounds, outcome). */
import type { RepoConfig } from "../config/index.ts";
import type { ReproducerEvidence } from "../contract/reproducer-evidence.ts";
import type { TriedPatches } from "../contract/tried-patches.ts";
import type { ModelPort } from "../model/types.ts";
import type { Reproduction } from "../reproduce/reproducer.ts";
import type { ExecResult, SandboxPort } from "../sandbox/index.ts";
import type { ValidationResult } from "../validate/compare.ts";
import type { TreeStates } from "../validate/tree-states.ts";
import type { ReviewVerdict } from "./reviewer.ts";

/** A patch as the review loop sees it (the pipeline's candidate maps onto it). */
export interface PatchProposal {
  id: string;
  diff: string;
  applicable: boolean;
  status: string;
  /** Whatever the caller needs to turn it back into its own candidate. */
  payload?: unknown;
  /** The writer's whole answer (where a pinned-test claim is read from), when known. */
  answer?: string;
}

export type RoundAction =
  | "accepted"
  | "validation-failed"
  | "rewrite-patch"
  | "rewrite-test"
  | "rewrite-both"
  /** The rewrite repeated a patch the job had already tried: not run or reviewed again, a new one asked for. */
  | "duplicate"
  /** The closing round's reviewer or validation rejected the last rewrite; no rounds were left to rewrite it. */
  | "rejected"
  | "stopped";

export interface ReviewRound {
  round: number;
  patchId: string;
  /** Which version of the reproducer was used (1 = the original). */
  scriptVersion: number;
  /** That version of the reproducer, and its run on the unpatched code (what the reviewer saw). */
  script: string;
  before: ExecResult;
  after: ExecResult | null;
  /** Whether this version's runs before and after the patch can back "fixed" (null: no run after). */
  evidence: ReproducerEvidence | null;
  verdict: ReviewVerdict | null;
  validation: ValidationResult | null;
  action: RoundAction;
  note: string;
}

export interface ReviewLoopOutcome {
  /** The reviewer accepted patch and test, and validation (when there is a test suite) found no regression. */
  approved: boolean;
  /** The last patch reviewed (the accepted one when approved). */
  final: PatchProposal;
  verdict: ReviewVerdict | null;
  reproduction: Reproduction;
  rounds: ReviewRound[];
  proposals: PatchProposal[];
  validation: ValidationResult | null;
  /** The reproducer exited 0 after the final patch. */
  reproducerPasses: boolean | null;
  summary: string;
}

export interface ReviewLoopDeps {
  model: ModelPort;
  sandbox: SandboxPort;
  config: RepoConfig;
  states: TreeStates;
  /** The issue, sanitised and fenced as data. */
  issue: string;
  /** The maintainer's input, fenced as data (empty when there is none). */
  maintainer?: string;
  /** Asks the patch writer for a new patch with this guidance; null when it could not write one. */
  rewritePatch: (guidance: string, round: number) => Promise<PatchProposal | null>;
  /** Runs the repository's tests on a patch; absent when the repository has no test command. */
  validate?: (proposal: PatchProposal) => Promise<ValidationResult>;
  /** The job's patches so far (every strategy's and every loop's); a loop of its own keeps its own. */
  tried?: TriedPatches;
  record?: (name: string, text: string) => void;
  /** Called as each round starts (progress display). */
  onRound?: (round: number, max: number) => void;
  /** The patch scan of a diff, for the reviewer (one finding per line; empty: nothing found). */
  scanPatch?: (diff: string, script: string) => Promise<string>;
  signal?: AbortSignal;
}
