import type { TestRunnerKind } from "../../config/index.ts";

/** Why a test was selected for a candidate, for the report. */
export type SelectReason =
  | "failed-before"
  | "imports-changed"
  | "named-after-changed"
  | "same-package"
  | "named-by-reproducer"
  | "named-by-model";

export const REASON_TEXT: Record<SelectReason, string> = {
  "failed-before": "failed before the patch",
  "imports-changed": "imports a changed module",
  "named-after-changed": "named after a changed module",
  "same-package": "in a changed package",
  "named-by-reproducer": "named by the reproducer",
  "named-by-model": "named by the model",
};

/** One selected test (a file, a module, a package or a class, as its runner takes it). */
export interface SelectedTest {
  target: string;
  reasons: SelectReason[];
  /** e.g. which changed module it imports. */
  detail?: string;
  /**
   * How far its import of the change is: 0 a direct import, 1 through the package that imports it, 2 and
   * more through test helpers (absent: direct, or not an import).
   */
  depth?: number;
  /** Named after the changed module itself, or only after the package it is in (absent: module). */
  named?: "module" | "package";
}

/** Why a test relates to a change, as a language's suite tells it. */
export interface RelatedTest {
  reasons: SelectReason[];
  detail: string;
  depth?: number;
  named?: "module" | "package";
}

/** The regular files of a work tree (no link followed) and a bounded reader. */
export interface TreeListing {
  files: readonly string[];
  has(rel: string): boolean;
  /** The file's text (capped), or null when it cannot be read as a regular file. */
  read(rel: string): string | null;
}

/** What a language knows about a tree's tests: the targets, and how a change, an id or a text names them. */
export interface TestSuiteMap {
  runner: TestRunnerKind;
  /** Every test target of the tree, each with the files behind it. */
  targets: ReadonlyMap<string, readonly string[]>;
  /** The tests related to the changed files, with why. */
  related(changed: readonly string[]): Map<string, RelatedTest>;
  /**
   * The target a test id of the runner's output belongs to, when one can be told: from the id itself,
   * or from the files the output named for it (`files`, untrusted: used only when one is a test target).
   */
  targetOfId(id: string, files?: readonly string[]): string | null;
  /**
   * Set when the runner's ids need not name their file: a whole-suite run then
   * stands in for a target's unpatched results only when it attributed every test it ran.
   */
  idsMayLackFiles?: boolean;
  /** Names by which a text (a reproducer, the model's answer) may mention a target. */
  aliases(target: string): string[];
}

/**
 * The test a test id of the runner's output belongs to (from the id, or the files the output named for
 * it); null when it cannot be told. `idsMayLackFiles`: see TestSuiteMap.
 */
export interface OwnerOf {
  (id: string, files?: readonly string[]): string | null;
  idsMayLackFiles?: boolean;
}
