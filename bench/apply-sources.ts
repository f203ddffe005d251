/**
 * Real source files for the apply benchmark: the machine's Python standard library, the project's
 * node_modules (JavaScript, TypeScript), the JDK's src.zip (Java) and the few Go files git ships.
 * Only files the tree-sitter grammar parses without errors are kept, so a mutation's syntax is judged
 * against a clean base.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { type LanguageId, parseSource, syntaxProblems } from "../src/languages/index.ts";

export interface Source {
  lang: LanguageId;
  /** Where it came from (for the report). */
  origin: string;
  /** Base name used inside the synthetic repository. */
  name: string;
  text: string;
}

function walk(dir: string, accept: (p: string) => boolean, out: string[], depth = 0): void {
  if (depth > 6) return;
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const e of entries) {
    if (e === "test" || e === "tests" || e === "__tests__" || e.startsWith(".")) continue;
    const p = join(dir, e);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) walk(p, accept, out, depth + 1);
    else if (st.isFile() && st.size >= 2500 && st.size <= 60000 && accept(p)) out.push(p);
  }
}

function plausible(text: string): boolean {
  const lines = text.split("\n");
  if (lines.length < 60) return false;
  const long = lines.filter((l) => l.length > 160).length;
  return long / lines.length < 0.02 && !text.includes("\0");
}

async function clean(lang: LanguageId, text: string): Promise<boolean> {
  const tree = await parseSource(lang, text);
  try {
    return syntaxProblems(tree, 1).length === 0;
  } finally {
    tree.delete();
  }
}

/** Every `step`-th candidate, up to `max`, keeping only clean ones. Deterministic. */
async function pick(paths: string[], lang: LanguageId, max: number, base: string): Promise<Source[]> {
  const out: Source[] = [];
  const step = Math.max(1, Math.floor(paths.length / (max * 2)));
  for (let i = 0; i < paths.length && out.length < max; i += step) {
    const p = paths[i]!;
    const text = readFileSync(p, "utf8");
    if (!plausible(text) || !(await clean(lang, text))) continue;
    const name = p.split("/").pop()!;
    out.push({ lang, origin: relative(base, p), name, text });
  }
  return out;
}

export async function loadSources(root: string, scratch: string): Promise<Source[]> {
  const sources: Source[] = [];
  const stdlib = execFileSync("python3", ["-c", 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], {
    encoding: "utf8",
  }).trim();
  const py: string[] = [];
  walk(stdlib, (p) => p.endsWith(".py") && !p.includes("site-packages") && !/test/i.test(p), py);
  sources.push(...(await pick(py, "python", 60, stdlib)));

  const nm = join(root, "node_modules");
  const js: string[] = [];
  walk(nm, (p) => /\.(c|m)?js$/.test(p) && !/\.min\.|bundle|dist\/.*\.(umd|iife)/.test(p), js);
  sources.push(...(await pick(js, "javascript", 40, nm)));
  const ts: string[] = [];
  walk(nm, (p) => p.endsWith(".ts") && !p.endsWith(".d.ts"), ts);
  sources.push(...(await pick(ts, "typescript", 30, nm)));

  const srcZip = [
    "/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip",
    "/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip",
  ].find(existsSync);
  if (srcZip) {
    const dir = join(scratch, "jdk");
    execFileSync("unzip", ["-q", "-o", srcZip, "java.base/java/util/*.java", "-d", dir]);
    const java: string[] = [];
    walk(join(dir, "java.base/java/util"), (p) => p.endsWith(".java"), java);
    sources.push(...(await pick(java, "java", 30, dir)));
  }
  const goDir = "/usr/share/doc/git/contrib/persistent-https";
  if (existsSync(goDir)) {
    const go = readdirSync(goDir)
      .filter((f) => f.endsWith(".go"))
      .sort()
      .map((f) => join(goDir, f));
    for (const p of go) {
      const text = readFileSync(p, "utf8");
      if (await clean("go", text)) sources.push({ lang: "go", origin: p, name: p.split("/").pop()!, text });
    }
  }
  return sources;
}
