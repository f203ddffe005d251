/** The words and paths of a test command, as the runners read them to place check tests. */
import { posix } from "node:path";
import { DEPENDENCY_DIRS } from "../../core/path-rules.ts";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";
import type { CanaryRules } from "../parts/canaries.ts";

export const isOption = (w: string): boolean => w.startsWith("-");

/** The words of `words` after `from` that are not options nor an option's value (`values`: options taking one). */
export function positionals(words: readonly string[], from: number, values: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = from; i < words.length; i++) {
    const w = words[i]!;
    if (isOption(w)) {
      if (values.has(w)) i++;
    } else out.push(w);
  }
  return out;
}

export const clean = (p: string): string => posix.normalize(p.replace(/^\.\//, "")).replace(/\/$/, "");

/** The folder a path argument stands in: itself when a folder, else the folder holding it ("" = root). */
export function folderOf(tree: TreeFs, arg: string): string | null {
  const rel = clean(arg);
  if (rel === "." || rel === "") return "";
  if (rel.startsWith("..") || rel.startsWith("/")) return null;
  try {
    const kind = tree.kind(rel);
    if (kind === "directory") return rel;
    if (kind === "file") {
      const d = posix.dirname(rel);
      return d === "." ? "" : d;
    }
  } catch (err) {
    if (!(err instanceof TreeFsError)) throw err;
  }
  return null;
}

/** `arg` as a file of the tree (a sample for the check tests), when it is one. */
export function sampleAt(tree: TreeFs, arg: string | null | undefined): { sample?: string } {
  if (!arg) return {};
  const rel = clean(arg);
  try {
    return tree.kind(rel) === "file" ? { sample: rel } : {};
  } catch (err) {
    if (err instanceof TreeFsError) return {};
    throw err;
  }
}

/** Folders no test file is looked for in: dependencies and vendored code. */
export const skipDir = (name: string): boolean => DEPENDENCY_DIRS.has(name) || name === "vendor";

/** The check-test file is given to the runner as one more file. */
export const appended = (file: string): string[] => [file];

/**
 * A `deselecting` for `CanaryRules`: the first word matching `options` after the runner's own words
 * start (`start`: the index of the word that starts the runner, or -1 when not found: every word).
 */
export function deselectingAfter(
  options: RegExp,
  start: (words: readonly string[]) => number,
): CanaryRules["deselecting"] {
  return (words) => {
    const at = start(words);
    return words.slice(at < 0 ? 0 : at + 1).find((w) => options.test(w));
  };
}

/** What most runners' check tests share; each runner's rules spread it and set what differs. */
export const CANARY_DEFAULTS = {
  placed: true,
  idToken: (token: string): string => token,
  perTargetProcesses: false,
  ownProcessPerFile: false,
  failExitCode: (): number => 1,
  emptyExitCode: 0,
  onlyOneFailed: (): boolean => true,
  stoppedBeforeTests: (): string | null => null,
  leftovers: (): string[] => [],
  groupOf: (): null => null,
} as const satisfies Partial<CanaryRules>;
