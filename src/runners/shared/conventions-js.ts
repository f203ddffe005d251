import { openTree } from "../../core/tree-fs.ts";
import type { RunnerName } from "../names.ts";
import type { PlanResult, Recognition, RepositoryFiles } from "../parts/conventions.ts";
import {
  baseName,
  exampleOf,
  freshPath,
  isDir,
  join,
  nearestTests,
  pickSample,
  upward,
} from "./conventions-files.ts";

/** A package's test script that only says no test is specified (npm's default). */
const NPM_DEFAULT_TEST = /no test specified/;

/**
 * The recognition of a JavaScript runner from the package's `scripts.test` (`shows` tells whether the
 * script starts it): `npm test` runs the script.
 */
export function recogniseByScript(files: RepositoryFiles, shows: RegExp): Recognition | null {
  const script = files.testScript;
  if (!script || NPM_DEFAULT_TEST.test(script) || !shows.test(script)) return null;
  return { testCommand: "npm test", reasons: [`tests: npm test (${script})`] };
}

/** Whether a JavaScript file at `rel` loads as CommonJS: by its extension, else the nearest package.json. */
function isCommonJs(root: string, rel: string): boolean {
  if (/\.(cjs|cts)$/.test(rel)) return true;
  if (/\.(mjs|mts|ts|tsx)$/.test(rel)) return false;
  for (const d of upward(rel)) {
    try {
      const buf = openTree(root).readIfExists(join(d, "package.json"), { maxBytes: 1_000_000 });
      if (!buf) continue;
      const pkg = JSON.parse(buf.toString("utf8")) as { type?: unknown };
      return pkg.type !== "module";
    } catch {
      return true; // an unreadable package.json: node reads the file as CommonJS
    }
  }
  return true;
}

const JS_TEST = (f: string): boolean => /\.(test|spec)\.[cm]?[jt]s$/.test(f);

/** The module syntax the new file must use, in the words its notes give the model. */
export interface ModuleSyntax {
  /** The package loads the file as CommonJS. */
  cjs: boolean;
  /** How the file loads `node:assert`. */
  assertLine: string;
}

/** What differs between the JavaScript runners' regression tests: the runner, its command, its style. */
export interface JsRegressionStyle {
  runner: RunnerName;
  framework: string;
  /** Runs the file at `path` alone. */
  command(path: string): string;
  /** Style notes, by the module syntax the file must use. */
  notes(syntax: ModuleSyntax): string;
}

/** The regression test plan in a JavaScript or TypeScript package: beside the nearest tests, in their naming. */
export function jsPlan(root: string, changed: readonly string[], style: JsRegressionStyle): PlanResult {
  const file = changed.find((f) => /\.[cm]?[jt]sx?$/.test(f)) ?? changed[0] ?? "index.js";
  const base = baseName(file);
  const near = nearestTests(root, file, ["test", "tests", "__tests__"], JS_TEST);
  const dir = near?.dir ?? ["test", "tests", "__tests__"].find((d) => isDir(root, d)) ?? "test";
  const files = near?.files ?? [];
  const sample = pickSample(files, base);
  const m = /\.(test|spec)(\.[cm]?[jt]s)$/.exec(sample ?? "");
  const wanted = join(dir, `${base}-regression.${m?.[1] ?? "test"}${m?.[2] ?? ".js"}`);
  const path = freshPath(root, wanted);
  if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
  const cjs = isCommonJs(root, path);
  const assertLine = cjs ? 'const assert = require("node:assert")' : 'import assert from "node:assert"';
  const load = cjs
    ? "This package loads the file as CommonJS: use `require(...)`, never `import` statements."
    : "This package loads the file as an ES module: use `import`, never `require(...)`.";
  return {
    ok: true,
    plan: {
      runner: style.runner,
      framework: style.framework,
      language: "JavaScript",
      tags: ["javascript", "js", "mjs", "cjs", "typescript", "ts"],
      path,
      command: style.command(path),
      notes: `${load} ${style.notes({ cjs, assertLine })} Load the project's modules by relative path from the test file, as the sample does.`,
      example: sample ? exampleOf(root, join(dir, sample)) : null,
    },
  };
}
