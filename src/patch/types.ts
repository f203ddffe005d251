/**
 * Shared types of the patch engine: statuses, results and the repository port it reads through.
 */

/**
 * Every status, worst first. The six of the design (NO_PATCH ... APPLICABLE_PATCH) keep their relative
 * order; the finer ones sit next to the state they refine so that `compareStatus` still ranks attempts.
 */
export const PATCH_STATUS_ORDER = [
  "NO_PATCH",
  "RAW_PATCH_BUT_UNPARSED",
  "RAW_PATCH_BUT_UNSAFE_PATH",
  "RAW_PATCH_BUT_PLACEHOLDER",
  "RAW_PATCH_BUT_UNMATCHED",
  "RAW_PATCH_BUT_ALREADY_APPLIED",
  "RAW_PATCH_BUT_AMBIGUOUS",
  "MATCHED_BUT_SYNTAX_ERROR",
  "MATCHED_BUT_UNCLEAR_INDENT",
  "MATCHED_BUT_EMPTY_DIFF",
  "MATCHED_BUT_EMPTY_ORIGIN",
  "APPLICABLE_PATCH",
] as const;

export type PatchStatus = (typeof PATCH_STATUS_ORDER)[number];

/** Negative when `a` is worse than `b`, 0 when equal, positive when better. */
export function compareStatus(a: PatchStatus, b: PatchStatus): number {
  return PATCH_STATUS_ORDER.indexOf(a) - PATCH_STATUS_ORDER.indexOf(b);
}

export function worstStatus(statuses: readonly PatchStatus[]): PatchStatus {
  let worst: PatchStatus = "APPLICABLE_PATCH";
  for (const s of statuses) if (compareStatus(s, worst) < 0) worst = s;
  return worst;
}

export function isPatchStatus(s: string): s is PatchStatus {
  return (PATCH_STATUS_ORDER as readonly string[]).includes(s);
}

/** What reading one repository file gave. */
export type RepoRead =
  | { kind: "file"; bytes: Uint8Array }
  | { kind: "missing" }
  | { kind: "unsafe"; reason: string };

/** The port the engine reads a repository through. Paths are repo-relative and `/`-separated. */
export interface RepoFiles {
  /** Absolute root, used to resolve absolute paths a model names. */
  readonly root: string;
  /** Every regular file of the repository (vendored and VCS trees left out). */
  listFiles(): Promise<string[]>;
  /** One file's bytes; `unsafe` when the path (or a directory on it) is a symlink that leaves the repo. */
  readFile(path: string): Promise<RepoRead>;
  /**
   * Whether a repo-relative folder is a Python virtual environment (core/path-rules isVirtualEnvDir:
   * known by its marker, no link followed). Patches never change files inside one.
   */
  isVirtualEnvDir?(dir: string): boolean;
}

export interface EditReport {
  file: string;
  status: PatchStatus;
  message: string;
  /**
   * An applied edit whose file's syntax could not be checked after it (the parser reached its time
   * limit), and why: the result's summary says so, so that nobody takes the patch for checked.
   */
  syntaxUnchecked?: string;
}

export interface ChangedFile {
  path: string;
  /** Text before; "" for a created file. */
  before: string;
  after: string;
  /** True when the file did not exist before. */
  created?: boolean;
  /** How to encode `after` when writing. */
  encoding?: "utf8" | "utf8-bom" | "latin1";
}

export interface PatchResult {
  status: PatchStatus;
  /** Unified diff with a/ b/ paths relative to the repository, "" unless the patch applies. */
  diff: string;
  edits: EditReport[];
  /** Files the patch changes (empty unless APPLICABLE_PATCH). */
  changedFiles: ChangedFile[];
  /** One message for the model summarising what to fix (or what was applied). */
  feedback: string;
}

export interface PatchOptions {
  /** Extra globs (repository configuration) naming files the patch may not touch. */
  protectedGlobs?: string[];
}
