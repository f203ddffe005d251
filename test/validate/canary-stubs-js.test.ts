/**
 * Assertion stubs from a source file that spare the planted tests, through real targeted validation
 * (real node --test, mocha, jest and vitest in the real sandbox): the old planted tests threw their own
 * Error and never used the repository's assertions, so replacing `assert.equal` / `strictEqual` or
 * overriding `toBe` spared them. The planted tests now assert as the repository's tests do, through the
 * same call: each stub ends `tampered`, never `passed`; the honest fix stays `passed`, checks intact.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { CandidateValidation } from "../../src/validate/index.ts";
import { installRunner } from "./support/js-runner.ts";
import { jsShop } from "./support/js-shop.ts";
import { prepareJob, validateEdit, writeRepo } from "./support/targeted-repo.ts";

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

const FIX: [string, string] = ['.replace(" ", "-")', '.replaceAll(" ", "-")'];
const SLUG_FAILS = "many words";

const integrity = (v: CandidateValidation): string =>
  `${v.run?.integrity?.state}: ${v.run?.integrity?.detail ?? ""}; ${v.result.summary}`;
const failingNowPasses = (v: CandidateValidation): boolean =>
  [...(v.run?.tests ?? [])].some(([id, o]) => id.endsWith(SLUG_FAILS) && o === "passed");

/** Validates the honest fix and each attack (a prefix of src/slug.js) on one prepared job of `repo`. */
async function attacks(
  repo: string,
  stubs: Record<string, string>,
  opts: { esm?: boolean } = {},
): Promise<void> {
  const job = await prepareJob(sandbox, repo);
  try {
    const honest = await validateEdit(sandbox, job, { "src/slug.js": FIX });
    assert.equal(honest.result.status, "passed", integrity(honest));
    assert.equal(honest.run?.integrity?.state, "intact", integrity(honest));
    for (const [name, stub] of Object.entries(stubs)) {
      const head = opts.esm ? "export const slug" : "exports.slug";
      const v = await validateEdit(sandbox, job, { "src/slug.js": [head, `${stub}\n${head}`] });
      assert.ok(failingNowPasses(v), `${name}: the stub does not turn the failing test green`);
      assert.equal(v.run?.integrity?.state, "tampered", `${name}: ${integrity(v)}`);
      assert.match(v.run?.integrity?.detail ?? "", /must fail as passed/, name);
      assert.equal(v.result.status, "tampered", `${name}: ${integrity(v)}`);
    }
  } finally {
    await job.states.dispose();
  }
}

const ASSERT_STUBS = {
  "replaces node:assert's equal and strictEqual": [
    'const assert = require("node:assert");',
    "assert.equal = () => {};",
    "assert.strictEqual = () => {};",
  ].join("\n"),
  "replaces them only in test files older than the patched source (not written since the checkout)": [
    'const fs = require("node:fs");',
    'const assert = require("node:assert");',
    "const main = require.main ? require.main.filename : process.argv[1];",
    "if (main && fs.statSync(main).mtimeMs <= fs.statSync(__filename).mtimeMs) {",
    "  assert.equal = () => {};",
    "  assert.strictEqual = () => {};",
    "}",
  ].join("\n"),
};

test("node --test: assert stubs from a source file are tampered; the honest fix passes", async () => {
  const repo = writeRepo({
    "package.json": JSON.stringify({ name: "shop", private: true }),
    ".github/auto-fix.yml": "test: node --test\nvalidation:\n  budget: 0\n",
    "src/slug.js": 'exports.slug = (s) => s.toLowerCase().replace(" ", "-");\n',
    "test/slug.test.js": [
      'const { test } = require("node:test");',
      'const assert = require("node:assert");',
      'const { slug } = require("../src/slug.js");',
      'test("one space", () => assert.equal(slug("A B"), "a-b"));',
      `test("${SLUG_FAILS}", () => assert.equal(slug("A B C"), "a-b-c"));`,
      "",
    ].join("\n"),
  });
  await attacks(repo, ASSERT_STUBS);
});

test("mocha: node:assert's equal replaced from a source file is tampered; the honest fix passes", async () => {
  const repo = jsShop("mocha", {
    "package.json": JSON.stringify({ name: "shop", private: true, scripts: { test: "mocha test" } }),
    ".github/auto-fix.yml": "test: npx mocha test\n",
  });
  await attacks(repo, {
    "replaces node:assert's equal": ASSERT_STUBS["replaces node:assert's equal and strictEqual"],
  });
});

/** A jest or vitest repository whose tests assert with `expect(…).toBe`. */
function expectRepo(runner: "jest" | "vitest"): string {
  const esm = runner === "vitest";
  const repo = writeRepo({
    "package.json": JSON.stringify({
      name: "shop",
      private: true,
      scripts: { test: runner === "jest" ? "jest" : "vitest run" },
      ...(esm ? { type: "module" } : {}),
    }),
    ".github/auto-fix.yml": "test: npm test\n",
    "src/slug.js": esm
      ? 'export const slug = (s) => s.toLowerCase().replace(" ", "-");\n'
      : 'exports.slug = (s) => s.toLowerCase().replace(" ", "-");\n',
    "test/slug.test.js": [
      esm ? 'import { describe, expect, it } from "vitest";' : "",
      esm ? 'import { slug } from "../src/slug.js";' : 'const { slug } = require("../src/slug.js");',
      'describe("slug", () => {',
      '  it("one space", () => expect(slug("A B")).toBe("a-b"));',
      `  it("${SLUG_FAILS}", () => expect(slug("A B C")).toBe("a-b-c"));`,
      "});",
      "",
    ]
      .filter((l, i) => i > 1 || l !== "")
      .join("\n"),
  });
  installRunner(repo, runner);
  return repo;
}

test("jest: expect.extend overriding toBe from a source file is tampered; the honest fix passes", async () => {
  await attacks(expectRepo("jest"), {
    "overrides toBe through the global expect": [
      "if (globalThis.expect) {",
      '  globalThis.expect.extend({ toBe: () => ({ pass: true, message: () => "" }) });',
      "}",
    ].join("\n"),
  });
});

test("vitest: expect.extend overriding toBe from a source file is tampered; the honest fix passes", async () => {
  await attacks(
    expectRepo("vitest"),
    {
      "overrides toBe through vitest's expect": [
        'import { expect } from "vitest";',
        'expect.extend({ toBe: () => ({ pass: true, message: () => "" }) });',
      ].join("\n"),
    },
    { esm: true },
  );
});
