/** Words and forms every runner's command part uses. */

/** A dotted name (`tests.test_api`, `com.acme.FooTest`). */
export const DOTTED = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
/** A relative path with no `.`/`..` segment and no line break. */
export const REL_PATH = /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[^\0\n\r]+$/;

/** Whether a target's length is one a runner may be given. */
export const sizedTarget = (t: string): boolean => t.length > 0 && t.length <= 1000;

/** A path argument that can never read as an option: `-x.py` becomes `./-x.py`. */
export const asPathArg = (p: string): string => (p.startsWith("-") ? `./${p}` : p);

/** Whether the command runs a package manager's script (`npm test`, `yarn test`, `pnpm run unit`). */
export const viaScript = (words: readonly string[]): boolean => /^(npm|pnpm|yarn)$/.test(words[0] ?? "");

/** The `--` a package manager's script needs before words meant for the runner (none when it has one). */
export const scriptSeparator = (words: readonly string[]): string[] =>
  viaScript(words) && !words.includes("--") ? ["--"] : [];

/**
 * The words with the runner's own positional arguments (the scope it runs: `tests/`, `./...`) dropped
 * after index `after`: the selected tests replace them. Options and their values stay.
 */
export function withoutPositionals(
  words: readonly string[],
  after: number,
  values: ReadonlySet<string>,
  drop: (w: string) => "word" | "with-value" | null = () => null,
): string[] {
  const out = words.slice(0, after + 1);
  for (let i = after + 1; i < words.length; i++) {
    const w = words[i]!;
    const d = drop(w);
    if (d === "word") continue;
    if (d === "with-value") {
      i++;
      continue;
    }
    if (w.startsWith("-")) {
      out.push(w);
      if (values.has(w) && i + 1 < words.length) out.push(words[++i]!);
    }
  }
  return out;
}

/** The positional words after index `after` (options and their values skipped). */
export function positionals(words: readonly string[], after: number, values: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = after + 1; i < words.length; i++) {
    const w = words[i]!;
    if (w.startsWith("-")) {
      if (values.has(w)) i++;
      continue;
    }
    out.push(w);
  }
  return out;
}

const norm = (p: string): string => p.replace(/^(\.\/)+/, "").replace(/\/+$/, "");

/**
 * Whether a path target (`tests/a.py`, `tests/a.py::test_x`) is within a scope of paths: the same file
 * or folder, or under a folder of it.
 */
export function pathInScope(target: string, scope: readonly string[]): boolean {
  return scope.some((raw) => {
    const s = norm(raw);
    const file = norm(target.split("::")[0]!);
    return norm(target) === s || file === s || file === norm(s.split("::")[0]!) || file.startsWith(`${s}/`);
  });
}

/** Whether a target's path holds one of the scope's filters (jest and vitest filter paths by what they hold). */
export const filterInScope = (target: string, scope: readonly string[]): boolean =>
  scope.some((raw) => target.includes(norm(raw)));

/** The index of the first word, from the start, that `pred` holds for; -1 when none. */
export const firstAt = (words: readonly string[], pred: (w: string, i: number) => boolean): number =>
  words.findIndex(pred);
