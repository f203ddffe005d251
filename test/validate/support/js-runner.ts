import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/** auto-fix's own checkout: jest, vitest and mocha are its development dependencies. */
const ROOT = join(import.meta.dirname, "..", "..", "..");

type LockEntry = {
  version?: string;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

let lock: Record<string, LockEntry> | undefined;
const packages = (): Record<string, LockEntry> => {
  lock ??= (
    JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, LockEntry>;
    }
  ).packages;
  return lock;
};

/** The lock file entry `name` resolves to from the package at `from`, as Node resolves it. */
function resolveFrom(from: string, name: string): string | null {
  const all = packages();
  let base = from;
  for (;;) {
    const p = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (all[p] && existsSync(join(ROOT, p))) return p;
    if (!base) return null;
    const i = base.lastIndexOf("/node_modules/");
    base = i < 0 ? "" : base.slice(0, i);
  }
}

/** The installed packages `runner` needs (itself and what it depends on, optional platform ones present here). */
export function runnerPackages(runner: "jest" | "vitest" | "mocha"): string[] {
  const seen = new Set<string>();
  const visit = (p: string): void => {
    if (seen.has(p)) return;
    seen.add(p);
    const e = packages()[p] ?? {};
    const deps = { ...e.dependencies, ...e.optionalDependencies, ...e.peerDependencies };
    for (const d of Object.keys(deps)) {
      const r = resolveFrom(p, d);
      if (r) visit(r);
    }
  };
  const top = resolveFrom("", runner);
  if (!top) throw new Error(`${runner} is not installed: run npm ci (it is a development dependency)`);
  visit(top);
  return [...seen].sort();
}

/**
 * Installs `runner` into the repository at `repo` as `npm ci` would have after setup: its packages copied
 * into the repository's own `node_modules` (the sandbox sees only the work tree, so links into auto-fix's
 * checkout would not resolve there) and its command in `node_modules/.bin`.
 */
export function installRunner(repo: string, runner: "jest" | "vitest" | "mocha"): void {
  const paths = runnerPackages(runner);
  // A nested package comes with its parent's folder.
  const roots = paths.filter((p) => !paths.some((q) => q !== p && p.startsWith(`${q}/`)));
  for (const p of roots) cpSync(join(ROOT, p), join(repo, p), { recursive: true, verbatimSymlinks: true });
  const bin = packages()[`node_modules/${runner}`]?.bin;
  const entries = typeof bin === "string" ? { [runner]: bin } : (bin ?? {});
  mkdirSync(join(repo, "node_modules", ".bin"), { recursive: true });
  for (const [name, file] of Object.entries(entries)) {
    symlinkSync(join("..", runner, file), join(repo, "node_modules", ".bin", name));
  }
}

/** The installed version of `runner`, as the tests name it. */
export const runnerVersion = (runner: "jest" | "vitest" | "mocha"): string =>
  (
    JSON.parse(readFileSync(join(ROOT, "node_modules", runner, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
