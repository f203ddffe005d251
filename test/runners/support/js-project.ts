import { execFileSync } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../support/temp.ts";
import { installRunner } from "../../validate/support/js-runner.ts";
import { writeProject } from "./matrix.ts";

const fromRegistry = new Map<string, string>();

/** `node_modules` holding `packages` from the npm registry (npm's cache first), installed once per process. */
export function registryModules(packages: string[]): string {
  const key = packages.join(" ");
  let dir = fromRegistry.get(key);
  if (!dir) {
    dir = tempDir("af-matrix-npm-");
    execFileSync(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...packages],
      { cwd: dir, stdio: "pipe", timeout: 180_000 },
    );
    fromRegistry.set(key, dir);
  }
  return join(dir, "node_modules");
}

export type JsRunnerName = "node-test" | "jest" | "vitest" | "mocha";

/** The one-line bug of every JavaScript project of the matrix, and its fix. */
export const JS_SLUG_BUG = { file: "src/slug.js", from: '.replace(" ", "-")', to: '.replaceAll(" ", "-")' };

/** The test ids every JavaScript runner gives the project's tests (by file, suite and name). */
export const JS_IDS = {
  fixed: "test/slug.test.js > slug > many words",
  others: ["test/slug.test.js > slug > one space", "test/total.test.js > total > adds"],
};

/**
 * A small JavaScript project tested with `runner` (installed in its node_modules as `npm ci` would),
 * whose `package.json` scripts are `scripts` and whose `.github/auto-fix.yml` names `command` (absent:
 * auto-fix reads the command from `package.json`). slug's "many words" test fails before the fix.
 */
export function jsProject(
  runner: JsRunnerName,
  opts: {
    command?: string;
    scripts?: Record<string, string>;
    extra?: Record<string, string>;
    /** Packages from the npm registry in place of the runner auto-fix develops with (`mocha@10`). */
    packages?: string[];
    /** More keys of `package.json` (a `jest` section). */
    pkg?: Record<string, unknown>;
  },
): string {
  const esm = runner === "vitest";
  const imp = (name: string, from: string): string =>
    esm ? `import { ${name} } from "${from}";\n` : `const { ${name} } = require("${from}");\n`;
  const head =
    runner === "vitest"
      ? 'import { describe, it } from "vitest";\nimport assert from "node:assert";\n'
      : runner === "node-test"
        ? 'const { describe, it } = require("node:test");\nconst assert = require("node:assert");\n'
        : 'const assert = require("node:assert");\n';
  const exp = (name: string, body: string): string =>
    esm ? `export const ${name} = ${body};\n` : `exports.${name} = ${body};\n`;
  const pkg = {
    name: "shop",
    version: "1.0.0",
    private: true,
    ...(esm ? { type: "module" } : {}),
    ...(opts.scripts ? { scripts: opts.scripts } : {}),
    ...opts.pkg,
  };
  const repo = writeProject({
    "package.json": `${JSON.stringify(pkg, null, 2)}\n`,
    "src/slug.js": exp("slug", '(s) =>\n  s.toLowerCase().replace(" ", "-")'),
    "src/total.js": exp("total", "(a, b) => a + b"),
    "test/slug.test.js": `${head}${imp("slug", "../src/slug.js")}describe("slug", () => {\n  it("one space", () => assert.equal(slug("A B"), "a-b"));\n  it("many words", () => assert.equal(slug("A B C"), "a-b-c"));\n});\n`,
    "test/total.test.js": `${head}${imp("total", "../src/total.js")}describe("total", () => {\n  it("adds", () => assert.equal(total(1, 2), 3));\n});\n`,
    ...(opts.command ? { ".github/auto-fix.yml": `test: ${opts.command}\n` } : {}),
    ...opts.extra,
  });
  if (opts.packages)
    cpSync(registryModules(opts.packages), join(repo, "node_modules"), {
      recursive: true,
      verbatimSymlinks: true,
    });
  else if (runner !== "node-test") installRunner(repo, runner);
  return repo;
}
