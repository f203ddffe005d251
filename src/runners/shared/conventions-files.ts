import { posix } from "node:path";
import { openTree } from "../../core/tree-fs.ts";

/**
 * How a regression test's file is chosen beside the repository's own tests: the folder nearest the
 * change, a free name, a sample to follow. The tree is the repository's: read through tree-fs, so that no
 * link leads out of it.
 */

/** A word of a command as the shell takes it (quoted when it holds anything but a plain path). */
export const quote = (s: string): string => (/^[\w./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

/** The files (not folders) of a folder; none when it cannot be listed. */
export const listDir = (root: string, rel: string): string[] => {
  try {
    return openTree(root)
      .list(rel, 10_000)
      .filter((e) => e.kind === "file")
      .map((e) => e.name);
  } catch {
    return [];
  }
};

const kindOf = (root: string, rel: string): string => {
  try {
    return openTree(root).kind(rel);
  } catch {
    return "special"; // a link on the way: treated as taken, never used
  }
};

export const isDir = (root: string, rel: string): boolean => kindOf(root, rel) === "directory";

/**
 * A sample of a test file for the prompt: its head (imports, fixtures) and, when the first test starts
 * further down, that test's first lines too; bounded either way.
 */
export function exampleOf(root: string, rel: string): { path: string; text: string } | null {
  try {
    const buf = openTree(root).readIfExists(rel, { maxBytes: 200_000 });
    if (!buf) return null;
    const lines = buf.toString("utf8").split("\n");
    const first = lines.findIndex((l) =>
      /^\s*(class \w*Test|def test_|(?:async )?def test|func Test|(?:describe|it|test)\()/.test(l),
    );
    if (first < 0 || first < 50)
      return { path: rel, text: lines.slice(0, Math.max(60, first + 30)).join("\n") };
    return { path: rel, text: [...lines.slice(0, 40), "...", ...lines.slice(first, first + 30)].join("\n") };
  } catch {
    return null;
  }
}

/** Folders from the changed file's own up to the root: `a/b/c.py` → `a/b`, `a`, `.`. */
export function upward(file: string): string[] {
  const out: string[] = [];
  let d = posix.dirname(file);
  for (;;) {
    out.push(d);
    if (d === "." || d === "/" || d === "") break;
    d = posix.dirname(d);
  }
  return out;
}

export const join = (dir: string, name: string): string => (dir === "." ? name : `${dir}/${name}`);

/**
 * The test folder nearest the changed file that holds test files (`is` tells one), searched from the
 * file's folder up: `<dir>/<name>` for each of `names`, and `<dir>` itself; null when none.
 */
export function nearestTests(
  root: string,
  changed: string,
  names: string[],
  is: (f: string) => boolean,
): { dir: string; files: string[] } | null {
  for (const d of upward(changed)) {
    for (const dir of [...names.map((n) => join(d, n)), d]) {
      if (!isDir(root, dir)) continue;
      const files = listDir(root, dir).filter(is).sort();
      if (files.length > 0) return { dir, files };
    }
  }
  return null;
}

/** The sample to follow: the test file named after the changed one, else the first. */
export const pickSample = (files: string[], base: string): string | undefined =>
  files.find((f) => f.replace(/^test_|[._-](test|spec)(?=\.)|\.[^.]+$/g, "").toLowerCase() === base) ??
  files[0];

/** A path beside `wanted` that does not exist yet (`_2`, `_3`, ... before the extension). */
export function freshPath(root: string, wanted: string): string | null {
  const dot = wanted.lastIndexOf(".");
  const stem = dot > wanted.lastIndexOf("/") ? wanted.slice(0, dot) : wanted;
  const ext = dot > wanted.lastIndexOf("/") ? wanted.slice(dot) : "";
  for (let i = 1; i <= 20; i++) {
    const candidate =
      i === 1
        ? wanted
        : stem.endsWith(".test")
          ? `${stem.slice(0, -5)}_${i}.test${ext}`
          : `${stem}_${i}${ext}`;
    if (kindOf(root, candidate) === "missing") return candidate;
  }
  return null;
}

/** A name part from the fixed file: `stats/summary.py` → `summary`. */
export const baseName = (file: string): string =>
  (
    posix
      .basename(file)
      .replace(/\.[^.]+$/, "")
      .replace(/[^A-Za-z0-9_]/g, "_") || "fix"
  ).toLowerCase();

/** Every match of a global pattern in a run's output, with its verdict, the first failure kept. */
export function collectVerdicts(
  output: string,
  re: RegExp,
  verdictOf: (m: RegExpMatchArray) => [name: string, verdict: "pass" | "fail" | "skip"] | null,
): Map<string, "pass" | "fail" | "skip"> {
  const v = new Map<string, "pass" | "fail" | "skip">();
  for (const m of output.matchAll(re)) {
    const got = verdictOf(m);
    if (!got) continue;
    // A test seen failing stays failing (a retry or a teardown error never turns it green).
    if (v.get(got[0]) !== "fail") v.set(got[0], got[1]);
  }
  return v;
}
