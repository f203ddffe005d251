/**
 * The real projects of bench/runners-real.ts: packages from the npm registry that ship their tests (run
 * as their own `scripts.test` spells it, after `npm install --ignore-scripts` of their development
 * dependencies), a Debian Python package that ships its tests, and the Python standard library's own tests
 * (Debian's libpython3.11-testsuite). Each comes with one honest one-line bug: a line of its source as
 * shipped, changed to a plausible mistake; the fix puts the shipped line back.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface RealProject {
  name: string;
  /** What the project is and which runner version its own files ask for. */
  about: string;
  /** Makes the project's tree in `dir` (downloads cached under `cache`). */
  make: (cache: string, dir: string) => void;
  /** `.github/auto-fix.yml` of the project (absent: auto-fix reads the command from the project's files). */
  config?: string;
  /** The bug: in `file`, the shipped line holding `line` gets `bug` in its place. */
  file: string;
  line: string;
  bug: string;
}

const run = (cmd: string, args: string[], cwd: string, timeout = 600_000): string =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout });

/** The npm package `spec` (`name@version`) unpacked with its development dependencies installed, cached. */
function npmPackage(cache: string, spec: string): string {
  const dir = join(cache, "npm", spec.replace(/[@/]/g, "_"));
  if (existsSync(join(dir, ".installed"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tgz = run("npm", ["pack", "--silent", spec], dir).trim().split("\n").pop()!;
  run("tar", ["xzf", tgz, "--strip-components=1"], dir);
  rmSync(join(dir, tgz));
  run("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock"], dir);
  writeFileSync(join(dir, ".installed"), "");
  return dir;
}

/** The files of the Debian package `pkg` (`apt-get download`, unpacked), cached. */
function debianPackage(cache: string, pkg: string): string {
  const dir = join(cache, "deb", pkg);
  if (existsSync(join(dir, ".unpacked"))) return join(dir, "root");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // apt downloads as its own user into a folder it can write.
  const scratch = run("mktemp", ["-d"], dir).trim();
  run("chmod", ["777", scratch], dir);
  run("apt-get", ["download", "-q", pkg], scratch);
  const deb = readdirSync(scratch).find((f) => f.endsWith(".deb"));
  if (!deb) throw new Error(`apt-get download ${pkg} wrote no .deb`);
  run("dpkg-deb", ["-x", join(scratch, deb), join(dir, "root")], dir);
  writeFileSync(join(dir, "VERSION"), deb);
  rmSync(scratch, { recursive: true, force: true });
  writeFileSync(join(dir, ".unpacked"), "");
  return join(dir, "root");
}

const npm =
  (spec: string) =>
  (cache: string, dir: string): void => {
    cpSync(npmPackage(cache, spec), dir, { recursive: true, verbatimSymlinks: true });
    rmSync(join(dir, ".installed"));
  };

const SIMPLEJSON = "usr/lib/python3/dist-packages/simplejson";
const simplejson = (cache: string, dir: string): void => {
  const root = debianPackage(cache, "python3-simplejson");
  cpSync(join(root, SIMPLEJSON), join(dir, "simplejson"), { recursive: true });
  // The pure-Python package: the C speedups are left out (the tests that need them skip).
  for (const f of readdirSync(join(dir, "simplejson")))
    if (f.endsWith(".so")) rmSync(join(dir, "simplejson", f));
};

const STDLIB = "usr/lib/python3.11";
/**
 * `statistics` of /usr/bin/python3.11 beside its own test module from the test suite (the `test.support`
 * it imports is the interpreter's own, in libpython3.11-stdlib).
 */
const stdlibStatistics = (cache: string, dir: string): void => {
  const root = debianPackage(cache, "libpython3.11-testsuite");
  cpSync(join("/", STDLIB, "statistics.py"), join(dir, "statistics.py"));
  cpSync(join(root, STDLIB, "test", "test_statistics.py"), join(dir, "test_statistics.py"));
};

const NODE_CRON_BUG = {
  file: "src/pattern-validation.js",
  line: "return !isValidExpression(expression, 0, 23);",
  bug: "return !isValidExpression(expression, 0, 25);",
};

export const PROJECTS: RealProject[] = [
  {
    name: "node-cron@1.1.1",
    about: "npm test → `mocha -t 20000`, mocha ^2.4.5",
    make: npm("node-cron@1.1.1"),
    ...NODE_CRON_BUG,
  },
  {
    name: "node-cron@1.2.1",
    about: "npm test → `./node_modules/mocha/bin/mocha --recursive`, mocha ^3.0.2",
    make: npm("node-cron@1.2.1"),
    ...NODE_CRON_BUG,
  },
  {
    name: "sprintf-js@1.0.3",
    about: "npm test → `mocha test/test.js`, mocha * (current)",
    make: npm("sprintf-js@1.0.3"),
    file: "src/sprintf.js",
    line: "arg = match[7] ? parseFloat(arg).toFixed(match[7]) : parseFloat(arg)",
    bug: "arg = match[7] ? parseFloat(arg).toFixed(match[7] - 1) : parseFloat(arg)",
  },
  {
    name: "node-abort-controller@3.1.1",
    about: "npm test → `jest`, jest ^27.2.4 (jsdom environment)",
    make: npm("node-abort-controller@3.1.1"),
    file: "index.js",
    line: 'else this.signal.reason = new Error("AbortError");',
    bug: 'else this.signal.reason = new Error("Abort");',
  },
  {
    name: "npx-import-light@1.0.0",
    about: "npm test → `vitest run --test-timeout=10000`, vitest ^3.2.1",
    make: npm("npx-import-light@1.0.0"),
    file: "index.js",
    line: "if (pkg[0] === '.' || pkg[0] === '/') {",
    bug: "if (pkg[0] === '/') {",
  },
  {
    name: "python3-simplejson (Debian) under pytest 7",
    about:
      "Debian's python3-simplejson 3.18 with its shipped tests, /usr/bin/python3 -m pytest (Debian's 7.2)",
    make: simplejson,
    config: "test: /usr/bin/python3 -m pytest simplejson/tests\n",
    file: "simplejson/errors.py",
    line: "colno = pos + 1",
    bug: "colno = pos",
  },
  {
    name: "python3-simplejson (Debian) under pytest 7, validation: full",
    about: "the same, the whole suite on both trees",
    make: simplejson,
    config: "test: /usr/bin/python3 -m pytest simplejson/tests\nvalidation: full\n",
    file: "simplejson/errors.py",
    line: "colno = pos + 1",
    bug: "colno = pos",
  },
  {
    name: "python3-simplejson (Debian) under unittest",
    about: "the same tests, /usr/bin/python3 -m unittest discover -s simplejson/tests -t .",
    make: simplejson,
    config: "test: /usr/bin/python3 -m unittest discover -s simplejson/tests -t .\n",
    file: "simplejson/errors.py",
    line: "colno = pos + 1",
    bug: "colno = pos",
  },
  {
    name: "stdlib statistics under pytest 7",
    about:
      "Python 3.11's statistics.py and test_statistics.py (libpython3.11-testsuite), Debian's pytest 7.2",
    make: stdlibStatistics,
    config: "test: /usr/bin/python3 -m pytest test_statistics.py\n",
    file: "statistics.py",
    line: "return data[n // 2 - 1]",
    bug: "return data[n // 2]",
  },
  {
    name: "stdlib statistics under unittest",
    about: "the same, /usr/bin/python3 -m unittest test_statistics",
    make: stdlibStatistics,
    config: "test: /usr/bin/python3 -m unittest test_statistics\n",
    file: "statistics.py",
    line: "return data[n // 2 - 1]",
    bug: "return data[n // 2]",
  },
];

/**
 * Plants the project's bug in its tree at `dir` and returns the fix: the unified diff (three lines of
 * context) that puts the shipped line back.
 */
export function plantBug(dir: string, p: RealProject): string {
  const path = join(dir, p.file);
  const lines = readFileSync(path, "utf8").split("\n");
  const hits = lines.flatMap((l, i) => (l.includes(p.line) ? [i] : []));
  if (hits.length !== 1) throw new Error(`${p.file}: ${hits.length} lines hold \`${p.line}\` (want 1)`);
  const at = hits[0]!;
  const shipped = lines[at]!;
  const bugged = shipped.replace(p.line, p.bug);
  lines[at] = bugged;
  writeFileSync(path, lines.join("\n"));
  const start = Math.max(0, at - 3);
  const end = Math.min(lines.length - (lines[lines.length - 1] === "" ? 1 : 0), at + 4);
  const body: string[] = [];
  for (let i = start; i < end; i++) {
    if (i === at) body.push(`-${bugged}`, `+${shipped}`);
    else body.push(` ${lines[i]}`);
  }
  const n = end - start;
  return `--- a/${p.file}\n+++ b/${p.file}\n@@ -${start + 1},${n} +${start + 1},${n} @@\n${body.join("\n")}\n`;
}
