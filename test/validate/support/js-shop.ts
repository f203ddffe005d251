import { installRunner } from "./js-runner.ts";
import { writeRepo } from "./targeted-repo.ts";

export type JsRunner = "jest" | "vitest" | "mocha";

/**
 * A small JavaScript repository tested with `runner` (installed in its node_modules): slug's "many
 * words" test fails before any patch (the bug: only the first space is replaced); title's test uses slug
 * through a test helper; sum's test is unrelated to slug. `extra` adds or replaces files (the test
 * command, the runner's configuration).
 */
export function jsShop(runner: JsRunner, extra: Record<string, string>): string {
  const esm = runner === "vitest";
  const imp = (names: string, from: string): string =>
    esm ? `import { ${names} } from "${from}";\n` : `const { ${names} } = require("${from}");\n`;
  const head = esm
    ? 'import { describe, it } from "vitest";\nimport assert from "node:assert";\n'
    : 'const assert = require("node:assert");\n';
  const exp = (name: string, body: string): string =>
    esm ? `export const ${name} = ${body};\n` : `exports.${name} = ${body};\n`;
  const repo = writeRepo({
    "package.json": JSON.stringify({ name: "shop", private: true, ...(esm ? { type: "module" } : {}) }),
    "src/slug.js": exp("slug", '(s) => s.toLowerCase().replace(" ", "-")'),
    "src/sum.js": exp("sum", "(a, b) => a + b"),
    "test/helpers/make.js": `${imp("slug", "../../src/slug.js")}${exp("title", "(s) => slug(s.trim())")}`,
    "test/slug.test.js": `${head}${imp("slug", "../src/slug.js")}describe("slug", () => {\n  it("one space", () => assert.equal(slug("A B"), "a-b"));\n  it("many words", () => assert.equal(slug("A B C"), "a-b-c"));\n});\n`,
    "test/title.test.js": `${head}${imp("title", "./helpers/make.js")}describe("title", () => {\n  it("trims", () => assert.equal(title(" X Y "), "x-y"));\n});\n`,
    "test/sum.test.js": `${head}${imp("sum", "../src/sum.js")}describe("sum", () => {\n  it("adds", () => assert.equal(sum(1, 2), 3));\n  it("zero", () => assert.equal(sum(0, 0), 0));\n});\n`,
    ...extra,
  });
  installRunner(repo, runner);
  return repo;
}
