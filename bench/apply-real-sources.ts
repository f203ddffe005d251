/**
 * Two released versions of real code, per language, for the real-changes benchmark:
 * - Python: the gyp sources node-gyp ships (npm `node-gyp` 9.4.1 and 10.2.0);
 * - JavaScript: npm `semver` 7.3.8 and 7.6.3;
 * - Java: the Android sources of npm `@capacitor/android` 5.0.0 and 6.0.0;
 * - Go: the golang.org/x packages Go 1.19 vendors (`/usr/lib/go-1.19/src/vendor`, `src/cmd/vendor`)
 *   and the same packages at Debian's versions (`golang-golang-x-{crypto,net,text,sys,mod}-dev`);
 * - TypeScript: this project's own history (each of the commits up to HISTORY_TIP that changed
 *   `src/**.ts`).
 * Downloads go through `npm pack` and `apt-get download` into `cache` (under the repository's ignored
 * `tmp/`), so a second run needs no network.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { isTestConfigFile } from "../src/runners/shared/conventions-test-config.ts";
import { isTestPath } from "../src/core/test-files.ts";

export interface VersionPair {
  lang: string;
  source: string;
  path: string;
  old: string;
  new: string;
}

const NPM: { lang: string; pkg: string; from: string; to: string; under: string; ext: RegExp }[] = [
  { lang: "python", pkg: "node-gyp", from: "9.4.1", to: "10.2.0", under: "gyp", ext: /\.py$/ },
  { lang: "javascript", pkg: "semver", from: "7.3.8", to: "7.6.3", under: "", ext: /\.js$/ },
  {
    lang: "java",
    pkg: "@capacitor/android",
    from: "5.0.0",
    to: "6.0.0",
    under: "capacitor/src",
    ext: /\.java$/,
  },
];

const GO_DEBS = ["crypto", "net", "text", "sys", "mod"].map((m) => `golang-golang-x-${m}-dev`);
const GO_SRC = "/usr/lib/go-1.19/src";

function files(dir: string, ext: RegExp, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    const st = statSync(p);
    if (st.isDirectory()) files(p, ext, out);
    else if (ext.test(e)) out.push(p);
  }
  return out;
}

/** The unpacked `package/` folder of pkg@version, packed into the cache on first use. */
function npmPackage(cache: string, pkg: string, version: string): string {
  const dir = join(cache, "npm", `${pkg.replace("/", "__")}-${version}`);
  if (!existsSync(join(dir, "package"))) {
    mkdirSync(dir, { recursive: true });
    const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir, `${pkg}@${version}`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    })
      .trim()
      .split("\n")
      .pop()!;
    execFileSync("tar", ["xzf", join(dir, name), "-C", dir]);
  }
  return join(dir, "package");
}

/** Debian's golang.org/x sources, downloaded and unpacked into the cache on first use. */
function debianGo(cache: string): string {
  const dir = join(cache, "deb");
  const root = join(dir, "x", "usr/share/gocode/src/golang.org/x");
  if (!existsSync(root)) {
    mkdirSync(dir, { recursive: true });
    execFileSync("apt-get", ["-o", "APT::Sandbox::User=root", "download", ...GO_DEBS], {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"],
    });
    for (const deb of readdirSync(dir).filter((f) => f.endsWith(".deb")))
      execFileSync("dpkg", ["-x", join(dir, deb), join(dir, "x")]);
  }
  return root;
}

const plausible = (t: string) => t.length < 120_000 && !t.includes("\0") && !t.includes("Code generated");

function pairsUnder(
  lang: string,
  source: string,
  oldDir: string,
  newDir: string,
  ext: RegExp,
): VersionPair[] {
  const out: VersionPair[] = [];
  for (const p of files(oldDir, ext)) {
    const rel = relative(oldDir, p);
    const q = join(newDir, rel);
    // Tests are not the engine's to change (it refuses them): the code under test is.
    if (!existsSync(q) || isTestPath(rel) || isTestConfigFile(rel) || /(^|\/)testdata\//.test(rel)) continue;
    const a = readFileSync(p, "utf8");
    const b = readFileSync(q, "utf8");
    if (a !== b && plausible(a) && plausible(b)) out.push({ lang, source, path: rel, old: a, new: b });
  }
  return out;
}

/**
 * The commit the TypeScript history is read back from, so the corpus stays the same as the project moves
 * on (the project's head when the benchmark was written); HEAD where that commit is not in the clone.
 */
export const HISTORY_TIP = "cdefe067dbc1ffda1e08fe56d86cb093e973421b";

/**
 * Each file of `src/**.ts` changed by one of the `commits` commits up to `tip` of the repository at
 * `root`.
 */
function gitPairs(root: string, commits: number, tip: string): VersionPair[] {
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", root, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
  const out: VersionPair[] = [];
  let from = tip;
  try {
    git("cat-file", "-e", `${tip}^{commit}`);
  } catch {
    from = "HEAD";
  }
  const shas = git("log", "--no-merges", "--format=%H", `-n${commits}`, from, "--", "src").trim().split("\n");
  for (const sha of shas.filter(Boolean)) {
    const changed = git("diff", "--name-only", "--diff-filter=M", `${sha}^`, sha, "--", "src");
    for (const path of changed.trim().split("\n")) {
      if (!path.endsWith(".ts")) continue;
      const a = git("show", `${sha}^:${path}`);
      const b = git("show", `${sha}:${path}`);
      if (plausible(a) && plausible(b))
        out.push({
          lang: "typescript",
          source: `this repository, commit ${sha.slice(0, 10)}`,
          path,
          old: a,
          new: b,
        });
    }
  }
  return out;
}

export function loadPairs(root: string, cache: string, commits = 40, tip = HISTORY_TIP): VersionPair[] {
  const pairs: VersionPair[] = [];
  for (const n of NPM) {
    const a = join(npmPackage(cache, n.pkg, n.from), n.under);
    const b = join(npmPackage(cache, n.pkg, n.to), n.under);
    pairs.push(...pairsUnder(n.lang, `npm ${n.pkg} ${n.from} -> ${n.to}`, a, b, n.ext));
  }
  if (existsSync(GO_SRC)) {
    const deb = debianGo(cache);
    for (const m of ["crypto", "net", "text", "sys", "mod"]) {
      for (const vendor of ["vendor", "cmd/vendor"]) {
        const a = join(GO_SRC, vendor, "golang.org/x", m);
        const src = `golang.org/x/${m}: Go 1.19's ${vendor} -> Debian golang-golang-x-${m}-dev`;
        pairs.push(...pairsUnder("go", src, a, join(deb, m), /\.go$/));
      }
    }
  }
  pairs.push(...gitPairs(root, commits, tip));
  return pairs;
}
