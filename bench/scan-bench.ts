/**
 * `npm run bench:scan`: the patch scan's false positives. Runs the scan (src/scan) over honest changes and
 * prints how many it flags, each flag with its line and why:
 *
 * - single-function fixes: bugs planted in real standard-library functions by
 *   bench/support/stdlib-mutants.py, fixed back (the fix is the mutation reversed);
 * - the standard library's own bug-fix releases: every library file that changed between two patch
 *   releases of one Python (default /usr/bin/python3.11's library and pyenv's 3.11.x);
 * - this repository's history: every commit's changed source files (`--git <repo>`, default the
 *   checkout this runs in);
 * - npm packages' patch releases, fetched with `npm pack` (`--npm name@a..b,...`; skipped offline, and
 *   said so).
 *
 * Options: --mutants N (default 150), --seed S, --mutant-python PATH (an interpreter of --python-new), --python-old DIR, --python-new DIR, --commits N (default
 * all), --npm LIST, --show N (flags printed per set, default 40).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { applyFileDiff, parseUnifiedDiff } from "../src/core/unified-diff.ts";
import { describeFinding, type PatchFinding, scanFileChange } from "../src/scan/index.ts";
import { languageForPath } from "../src/languages/index.ts";

const { values: opt } = parseArgs({
  options: {
    mutants: { type: "string", default: "150" },
    seed: { type: "string", default: "7" },
    "python-old": { type: "string", default: "/usr/lib/python3.11" },
    "python-new": { type: "string", default: "/root/.pyenv/versions/3.11.7/lib/python3.11" },
    "mutant-python": { type: "string", default: "/root/.pyenv/versions/3.11.7/bin/python3.11" },
    git: { type: "string", default: join(import.meta.dirname, "..") },
    commits: { type: "string", default: "0" },
    npm: {
      type: "string",
      default:
        "semver@7.6.2..7.6.3,minimatch@9.0.4..9.0.5,yaml@2.4.1..2.4.2,debug@4.3.5..4.3.6,ms@2.1.2..2.1.3,express@4.19.1..4.19.2,axios@1.7.2..1.7.3,uuid@9.0.0..9.0.1",
    },
    show: { type: "string", default: "40" },
  },
});

/** One honest change: a set of files before and after. */
interface Change {
  name: string;
  files: { path: string; before: string | null; after: string }[];
}

interface SetResult {
  set: string;
  changes: number;
  files: number;
  flagged: { change: string; findings: PatchFinding[] }[];
  ms: number;
  note?: string;
}

async function scanSet(set: string, changes: Iterable<Change>, note?: string): Promise<SetResult> {
  const t0 = performance.now();
  const out: SetResult = { set, changes: 0, files: 0, flagged: [], ms: 0, ...(note ? { note } : {}) };
  for (const c of changes) {
    out.changes++;
    const findings: PatchFinding[] = [];
    for (const f of c.files) {
      if (!languageForPath(f.path)) continue;
      out.files++;
      try {
        findings.push(...(await scanFileChange(f.path, f.before, f.after)).findings);
      } catch (err) {
        console.error(`  ${c.name} ${f.path}: not scanned (${(err as Error).message})`);
      }
    }
    if (findings.length > 0) out.flagged.push({ change: c.name, findings });
  }
  out.ms = performance.now() - t0;
  return out;
}

/** Bugs planted in standard-library functions, each fixed back. */
function* mutantFixes(): Generator<Change> {
  const py = opt["mutant-python"];
  // The interpreter's own library (the mutant script reads its tests).
  const lib = opt["python-new"];
  if (!existsSync(py) || !existsSync(join(lib, "test"))) return;
  const run = spawnSync(
    py,
    [join(import.meta.dirname, "support", "stdlib-mutants.py"), lib, opt.mutants, opt.seed],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  for (const line of run.stdout.split("\n")) {
    if (!line.trim()) continue;
    const m = JSON.parse(line) as { file: string; function: string; diff: string };
    const original = readFileSync(join(lib, m.file), "utf8");
    const fd = parseUnifiedDiff(m.diff)[0];
    const mutated = fd ? applyFileDiff(original, fd) : null;
    if (mutated === null) continue;
    yield { name: `${m.file} ${m.function}()`, files: [{ path: m.file, before: mutated, after: original }] };
  }
}

function* walkPy(root: string, rel = ""): Generator<string> {
  for (const name of readdirSync(join(root, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    const st = statSync(join(root, r), { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      if (["test", "tests", "idle_test", "site-packages", "__pycache__", "lib2to3"].includes(name)) continue;
      yield* walkPy(root, r);
    } else if (name.endsWith(".py")) yield r;
  }
}

/** Every library file (tests left out) that differs between two patch releases. */
function* stdlibRelease(): Generator<Change> {
  const [a, b] = [opt["python-old"], opt["python-new"]];
  if (!existsSync(a) || !existsSync(b)) return;
  for (const rel of walkPy(b)) {
    // A file only one of them has is packaging (a distribution splits idlelib out), not a fix.
    if (!existsSync(join(a, rel))) continue;
    const after = readFileSync(join(b, rel), "utf8");
    const before = readFileSync(join(a, rel), "utf8");
    if (before === after) continue;
    yield { name: rel, files: [{ path: rel, before, after }] };
  }
}

/** Every commit of a git repository, its changed source files before and after. */
function* gitHistory(repo: string): Generator<Change> {
  const git = (args: string[]) =>
    execFileSync("git", ["-C", repo, ...args], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
      stdio: ["ignore", "pipe", "ignore"],
    });
  const n = Number(opt.commits);
  const commits = git(["log", "--no-merges", "--format=%H %s", ...(n > 0 ? [`-n${n}`] : [])])
    .trim()
    .split("\n");
  const show = (spec: string): string | null => {
    try {
      return git(["show", spec]);
    } catch {
      return null;
    }
  };
  for (const line of commits) {
    const [sha, ...subject] = line.split(" ");
    if (!sha) continue;
    const names = git(["diff-tree", "--no-commit-id", "-r", "--diff-filter=AM", "--name-only", "--root", sha])
      .split("\n")
      .filter((p) => p && languageForPath(p));
    const files: Change["files"] = [];
    for (const p of names) {
      const after = show(`${sha}:${p}`);
      if (after === null) continue;
      files.push({ path: p, before: show(`${sha}^:${p}`), after });
    }
    if (files.length > 0) yield { name: `${sha.slice(0, 10)} ${subject.join(" ").slice(0, 70)}`, files };
  }
}

function* walkJs(root: string, rel = ""): Generator<string> {
  for (const name of readdirSync(join(root, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    const st = statSync(join(root, r), { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      if (name !== "node_modules") yield* walkJs(root, r);
    } else if (languageForPath(r)) yield r;
  }
}

/** npm packages' patch releases: each pair's changed source files. */
function npmReleases(): { changes: Change[]; note?: string } {
  const dir = mkdtempSync(join(tmpdir(), "scan-bench-npm-"));
  const changes: Change[] = [];
  const failed: string[] = [];
  try {
    for (const spec of opt.npm.split(",").filter(Boolean)) {
      const m = /^(@?[^@]+)@([^.]+\.[^.]+\.[^.]+)\.\.(.+)$/.exec(spec.trim());
      if (!m) throw new Error(`--npm: "${spec}" is not name@old..new`);
      const [, name, a, b] = m as unknown as [string, string, string, string];
      const trees: string[] = [];
      for (const v of [a, b]) {
        const to = join(dir, `${name.replace("/", "_")}-${v}`);
        const got = spawnSync("npm", ["pack", `${name}@${v}`, "--pack-destination", dir, "--silent"], {
          encoding: "utf8",
          timeout: 120_000,
        });
        const tgz = got.stdout.trim().split("\n").at(-1);
        if (got.status !== 0 || !tgz) break;
        execFileSync("mkdir", ["-p", to]);
        execFileSync("tar", ["-xzf", join(dir, tgz), "-C", to]);
        trees.push(join(to, "package"));
      }
      if (trees.length < 2) {
        failed.push(spec);
        continue;
      }
      const [old, neu] = trees as [string, string];
      const files: Change["files"] = [];
      for (const rel of walkJs(neu)) {
        if (/\.d\.[cm]?ts$|\.min\.js$/.test(rel)) continue;
        const after = readFileSync(join(neu, rel), "utf8");
        const before = existsSync(join(old, rel)) ? readFileSync(join(old, rel), "utf8") : null;
        if (before !== after) files.push({ path: relative(neu, join(neu, rel)), before, after });
      }
      changes.push({ name: `${name} ${a} → ${b}`, files });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return failed.length > 0
    ? { changes, note: `not fetched (npm pack failed): ${failed.join(", ")}` }
    : { changes };
}

const results: SetResult[] = [];
results.push(await scanSet("single-function fixes (stdlib mutants, fixed back)", mutantFixes()));
results.push(
  await scanSet(
    `standard-library bug-fix releases (${opt["python-old"]} → ${opt["python-new"]}, per changed file)`,
    stdlibRelease(),
  ),
);
results.push(await scanSet(`git history of ${opt.git} (per commit)`, gitHistory(opt.git)));
const npm = npmReleases();
results.push(await scanSet("npm packages' patch releases (per release)", npm.changes, npm.note));

const show = Number(opt.show);
for (const r of results) {
  const findings = r.flagged.reduce((n, f) => n + f.findings.length, 0);
  console.log(
    `\n${r.set}\n  ${r.changes} changes, ${r.files} files scanned in ${(r.ms / 1000).toFixed(1)} s: ${r.flagged.length} flagged (${findings} findings)`,
  );
  if (r.note) console.log(`  ${r.note}`);
  const kinds = new Map<string, number>();
  for (const f of r.flagged)
    for (const x of new Set(f.findings.map((y) => y.kind))) kinds.set(x, (kinds.get(x) ?? 0) + 1);
  // This repository is auto-fix itself: its own code names the product and the reproducer honestly.
  const selfRef = (x: PatchFinding) => x.kind === "runner" && /auto[-_]?fix|reproduc/i.test(x.what);
  const other = r.flagged.filter((f) => f.findings.some((x) => !selfRef(x))).length;
  if (other !== r.flagged.length)
    console.log(`  flagged for something other than naming auto-fix or its reproducer: ${other}`);
  if (kinds.size > 0)
    console.log(`  flagged changes by kind: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")}`);
  if (r.changes === 0) console.log("  (nothing to scan here: the set's sources are not on this machine)");
  for (const f of r.flagged.slice(0, show)) {
    console.log(`  - ${f.change}`);
    for (const x of f.findings.slice(0, 4)) console.log(`      ${describeFinding(x, "adds code that")}`);
    if (f.findings.length > 4) console.log(`      and ${f.findings.length - 4} more`);
  }
  if (r.flagged.length > show) console.log(`  and ${r.flagged.length - show} more flagged`);
}
