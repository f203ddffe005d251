import { before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { JS_IDS, JS_SLUG_BUG, type JsRunnerName, jsProject } from "./support/js-project.ts";
import { assertFixed, runMatrixCase } from "./support/matrix.ts";

// The runner matrix for JavaScript: node --test, jest, vitest and mocha (the versions auto-fix itself
// develops with), each under at least three spellings of its command: the runner started directly or
// through npx, through the package manager's script (`npm test`, `npm run <script>`), and through node
// with the path of the runner's own script. Each runs in the real sandbox before and after a real
// one-line fix, and must name every test on both trees, turn the failing test green and nothing else,
// and prove its canaries.

let sandbox: SandboxPort;
before(async () => {
  sandbox = await createSandbox("bwrap");
});

interface Spelling {
  /** How the case is named. */
  name: string;
  /** The command in `.github/auto-fix.yml` (absent: read from `package.json`). */
  command?: string;
  scripts?: Record<string, string>;
  extra?: Record<string, string>;
  packages?: string[];
  pkg?: Record<string, unknown>;
}

const SPELLINGS: Record<JsRunnerName, Spelling[]> = {
  "node-test": [
    { name: "node --test", command: "node --test" },
    { name: "npm test → node --test (read from package.json)", scripts: { test: "node --test" } },
    {
      name: "npm run unit → node --test --test-concurrency=1",
      command: "npm run unit",
      scripts: { unit: "node --test --test-concurrency=1" },
    },
    {
      name: "node --test test/slug.test.js test/total.test.js",
      command: "node --test test/slug.test.js test/total.test.js",
    },
  ],
  jest: [
    { name: "npx jest", command: "npx jest" },
    { name: "npm test → jest --ci (read from package.json)", scripts: { test: "jest --ci" } },
    { name: "node node_modules/jest/bin/jest.js", command: "node node_modules/jest/bin/jest.js" },
    { name: "node_modules/.bin/jest --ci", command: "node_modules/.bin/jest --ci" },
    {
      name: "npm test → jest, package.json's jest choosing only the environment",
      scripts: { test: "jest" },
      pkg: { jest: { testEnvironment: "node", verbose: true } },
    },
  ],
  vitest: [
    { name: "npx vitest run", command: "npx vitest run" },
    { name: "npm test → vitest run (read from package.json)", scripts: { test: "vitest run" } },
    { name: "node node_modules/vitest/vitest.mjs run", command: "node node_modules/vitest/vitest.mjs run" },
  ],
  mocha: [
    { name: "npx mocha", command: "npx mocha" },
    {
      name: "npm test → mocha --reporter spec (read from package.json)",
      scripts: { test: "mocha --reporter spec" },
    },
    {
      name: "node node_modules/mocha/bin/mocha.js -r ./test/setup.js, files from .mocharc.json",
      command: "node node_modules/mocha/bin/mocha.js -r ./test/setup.js",
      extra: {
        "test/setup.js": 'process.env.SHOP = "test";\n',
        ".mocharc.json": JSON.stringify({ spec: ["test/**/*.test.js"] }),
      },
    },
    {
      name: "mocha 10: node node_modules/mocha/bin/_mocha -r ./test/setup.js",
      packages: ["mocha@10.8.2"],
      command: "node node_modules/mocha/bin/_mocha -r ./test/setup.js",
      extra: {
        "test/setup.js": 'process.env.SHOP = "test";\n',
      },
    },
    {
      name: "mocha 10: npm test → _mocha --reporter dot test/",
      packages: ["mocha@10.8.2"],
      scripts: { test: "_mocha --reporter dot test/" },
    },
  ],
};

for (const [runner, spellings] of Object.entries(SPELLINGS) as [JsRunnerName, Spelling[]][]) {
  for (const s of spellings) {
    test(`${runner} as \`${s.name}\`: per-test results before and after, the failing test fixed, canaries proven`, async () => {
      const repo = jsProject(runner, s);
      const r = await runMatrixCase(sandbox, repo, JS_SLUG_BUG);
      assertFixed(r, { runner, ...JS_IDS });
    });
  }
}
