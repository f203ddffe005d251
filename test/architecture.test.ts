/**
 * The folders under src/ import each other only along the arrows that docs/architecture.md allows, and
 * those arrows hold no cycle.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SRC = join(ROOT, "src");

type Arrows = Map<string, Set<string>>;

/** The ```arrows block of the architecture page: `room -> other other`. */
function parseArrows(markdown: string): Arrows {
  const block = /```arrows\n([\s\S]*?)```/.exec(markdown);
  if (!block?.[1]) throw new Error("docs/architecture.md has no ```arrows block");
  const arrows: Arrows = new Map();
  for (const raw of block[1].split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^([\w-]+)\s*->\s*(.*)$/.exec(line);
    if (!m?.[1]) throw new Error(`unreadable arrow line: ${line}`);
    if (arrows.has(m[1])) throw new Error(`room listed twice: ${m[1]}`);
    arrows.set(m[1], new Set((m[2] ?? "").split(/\s+/).filter(Boolean)));
  }
  return arrows;
}

/** Module specifiers of static imports, re-exports and literal dynamic imports (comments removed). */
function importSpecifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/gm,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) if (m[1]) out.push(m[1]);
  return out;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files.push(...sourceFiles(p));
    else if (e.isFile() && e.name.endsWith(".ts")) files.push(p);
  }
  return files;
}

const roomOf = (file: string): string => relative(SRC, file).split(sep)[0] ?? "";

/** Every import from one room into another that the arrows do not allow, as "file -> target". */
function violations(files: Map<string, string>, arrows: Arrows): string[] {
  const bad: string[] = [];
  for (const [file, source] of files) {
    const from = roomOf(file);
    for (const spec of importSpecifiers(source)) {
      if (!spec.startsWith(".")) continue;
      const target = normalize(join(dirname(file), spec));
      if (!target.startsWith(SRC + sep)) continue;
      const to = roomOf(target);
      if (to === from) continue;
      if (!arrows.get(from)?.has(to)) bad.push(`${relative(ROOT, file)} -> ${relative(ROOT, target)}`);
    }
  }
  return bad;
}

/** A cycle among the allowed arrows (as a list of rooms), or null. */
function findCycle(arrows: Arrows): string[] | null {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (room: string): string[] | null => {
    if (state.get(room) === "done") return null;
    if (state.get(room) === "open") return [...path.slice(path.indexOf(room)), room];
    state.set(room, "open");
    path.push(room);
    for (const next of arrows.get(room) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(room, "done");
    return null;
  };
  for (const room of arrows.keys()) {
    const cycle = visit(room);
    if (cycle) return cycle;
  }
  return null;
}

const arrows = parseArrows(readFileSync(join(ROOT, "docs", "architecture.md"), "utf8"));
const files = new Map(sourceFiles(SRC).map((f) => [f, readFileSync(f, "utf8")]));

test("every folder under src/ is a room of docs/architecture.md, and every arrow names a room", () => {
  const folders = readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  for (const f of folders) assert.ok(arrows.has(f), `src/${f}/ is not described in docs/architecture.md`);
  for (const [room, targets] of arrows) {
    assert.ok(folders.includes(room), `docs/architecture.md names a room that does not exist: ${room}`);
    for (const t of targets) assert.ok(arrows.has(t), `${room} -> ${t}: no such room`);
  }
});

test("the allowed arrows hold no cycle", () => {
  assert.equal(findCycle(arrows)?.join(" -> ") ?? null, null);
});

test("no import in src/ goes against the allowed arrows", () => {
  assert.deepEqual(violations(files, arrows), []);
});

test("the scan sees static, re-exported and dynamic imports and ignores commented ones", () => {
  const src = [
    'import { a } from "../app/app.ts";',
    'export { b } from "../cli/main.ts";',
    "import type {",
    "  C,",
    '} from "../jobs/types.ts";',
    'const m = await import("../github/port.ts");',
    '// import { x } from "../app/handler.ts";',
    '/* import { y } from "../app/start.ts"; */',
    'const text = "not from \\"../app/x.ts\\"";',
  ].join("\n");
  assert.deepEqual(importSpecifiers(src).sort(), [
    "../app/app.ts",
    "../cli/main.ts",
    "../github/port.ts",
    "../jobs/types.ts",
  ]);
  const fake = new Map([[join(SRC, "index", "x.ts"), src]]);
  const small: Arrows = new Map([
    ["index", new Set(["core"])],
    ["core", new Set<string>()],
  ]);
  assert.deepEqual(violations(fake, small), [
    "src/index/x.ts -> src/app/app.ts",
    "src/index/x.ts -> src/cli/main.ts",
    "src/index/x.ts -> src/jobs/types.ts",
    "src/index/x.ts -> src/github/port.ts",
  ]);
  const cyclic: Arrows = new Map([
    ["a", new Set(["b"])],
    ["b", new Set(["c"])],
    ["c", new Set(["a"])],
  ]);
  assert.deepEqual(findCycle(cyclic), ["a", "b", "c", "a"]);
});
