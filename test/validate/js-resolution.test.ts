/**
 * JavaScript and TypeScript imports are resolved by Node's rules (`..`, `../`, a folder's `index.js`,
 * `package.json` `main`/`exports`, extension probing, the package's own name) and followed from the
 * tests through the library's own files, so a test that loads the package relates to a change deep in
 * it. Real trees on disk, listed as validation lists them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { listTree, selectTests, suiteFor } from "../../src/validate/index.ts";
import { resolveSpecifier } from "../../src/validate/targets/js-resolve.ts";
import { writeRepo } from "./support/targeted-repo.ts";

test("specifiers resolve by Node's rules", () => {
  const root = writeRepo({
    "package.json": JSON.stringify({ name: "web", main: "lib/main" }),
    "lib/main.js": "",
    "lib/router/index.js": "",
    "lib/util.ts": "",
    "lib/view.js": "",
    "lib/view/index.js": "",
    "pkg/package.json": JSON.stringify({ exports: { ".": { import: "./esm.mjs", require: "./cjs.js" } } }),
    "pkg/cjs.js": "",
    "pkg/esm.mjs": "",
    "sub/package.json": JSON.stringify({ exports: { ".": "./main.js", "./extra": "./extra.js" } }),
    "sub/main.js": "",
    "sub/extra.js": "",
    "test/a.js": "",
    "test/deep/b.js": "",
    "data.json": "{}",
  });
  const l = listTree(root);
  const r = (from: string, spec: string) => resolveSpecifier(l, from, spec);
  // `..` and `../` from test/: the package's folder, its package.json main (extension probed).
  assert.equal(r("test/a.js", ".."), "lib/main.js");
  assert.equal(r("test/a.js", "../"), "lib/main.js");
  assert.equal(r("test/deep/b.js", "../.."), "lib/main.js");
  // A file before a folder of the same name; a folder's index; a trailing slash means the folder.
  assert.equal(r("test/a.js", "../lib/view"), "lib/view.js");
  assert.equal(r("test/a.js", "../lib/view/"), "lib/view/index.js");
  assert.equal(r("test/a.js", "../lib/router"), "lib/router/index.js");
  // TypeScript: `./util.js` written for `util.ts`.
  assert.equal(r("lib/main.js", "./util.js"), "lib/util.ts");
  assert.equal(r("test/a.js", "../data.json"), "data.json");
  // exports: conditions (require first), a "." string, a subpath.
  assert.equal(r("test/a.js", "../pkg"), "pkg/cjs.js");
  assert.equal(r("test/a.js", "../sub"), "sub/main.js");
  // The package's own name, and a dependency or built-in that is no file of the tree.
  assert.equal(r("test/a.js", "web"), "lib/main.js");
  assert.equal(r("test/a.js", "express"), null);
  assert.equal(r("test/a.js", "node:fs"), null);
  // Nothing outside the tree.
  assert.equal(r("test/a.js", "../../etc/passwd"), null);
  assert.equal(r("a.js", ".."), null);
});

test("self-reference through exports: a subpath the package exports, none it does not", () => {
  const root = writeRepo({
    "package.json": JSON.stringify({
      name: "@acme/ser",
      exports: { ".": "./src/index.js", "./x": "./src/x.js" },
    }),
    "src/index.js": "",
    "src/x.js": "",
    "src/hidden.js": "",
  });
  const l = listTree(root);
  assert.equal(resolveSpecifier(l, "t.js", "@acme/ser"), "src/index.js");
  assert.equal(resolveSpecifier(l, "t.js", "@acme/ser/x"), "src/x.js");
  assert.equal(resolveSpecifier(l, "t.js", "@acme/ser/src/hidden.js"), null);
});

/**
 * A web framework laid out as the real ones are: the tests load the package with `require('..')` or
 * `require('../')`, `index.js` loads `lib/application.js`, which loads `lib/router/index.js`, which
 * loads `lib/router/route.js`. One test loads `lib/utils.js` only; one loads nothing of the library.
 */
const FRAMEWORK = {
  "package.json": JSON.stringify({ name: "web", scripts: { test: "mocha" } }),
  "index.js": "module.exports = require('./lib/application');\n",
  "lib/application.js":
    "const Router = require('./router');\nconst utils = require('./utils');\nexports.app = () => new Router();\n",
  "lib/router/index.js":
    "const Route = require('./route');\nmodule.exports = function Router() { this.r = new Route(); };\n",
  "lib/router/route.js": "module.exports = function Route() {};\n",
  "lib/utils.js": "exports.flat = (a) => a.flat();\n",
  "test/app.js": "const web = require('..');\nit('app', () => web.app());\n",
  "test/app.router.js": "const web = require('../');\nit('router', () => web.app());\n",
  "test/utils.js": "const utils = require('../lib/utils');\nit('flat', () => utils.flat([]));\n",
  "test/support/env.js": "process.env.NODE_ENV = 'test';\n",
  "test/plain.js": "require('./support/env');\nit('plain', () => {});\n",
};

test("tests that load the package relate to a change deep in its library, through each file that loads the next", () => {
  const root = writeRepo(FRAMEWORK);
  const config = {
    test: {
      command: "node node_modules/mocha/bin/_mocha test/",
      framework: "mocha" as const,
      source: "config" as const,
      reports: [],
    },
    validation: {
      mode: "targeted" as const,
      relatedBudgetMs: 45_000,
      budgetMs: 0,
      runner: "mocha" as const,
      command: null,
      source: "detected" as const,
    },
  };
  const sel = selectTests({ root, config, changed: ["lib/router/route.js"] });
  assert.equal(sel.kind, "targeted");
  assert.deepEqual(
    sel.tests.map((t) => [t.target, t.reasons, t.detail, t.depth]),
    [
      ["test/app.js", ["imports-changed"], "lib/router/route.js", 1],
      ["test/app.router.js", ["imports-changed"], "lib/router/route.js", 1],
    ],
  );
  assert.match(sel.why, /^2 of 4 mocha test files relate to the change within what the test command runs/);
  // A change to utils: its own test directly (depth 0), the package's tests through application.js.
  const utils = selectTests({ root, config, changed: ["lib/utils.js"] });
  assert.deepEqual(
    utils.tests.map((t) => [t.target, t.reasons, t.depth]),
    [
      ["test/app.js", ["imports-changed"], 1],
      ["test/app.router.js", ["imports-changed"], 1],
      ["test/utils.js", ["imports-changed", "named-after-changed"], undefined],
    ],
  );
  // The suite map of the tree: four test files (support/ is no test).
  assert.equal(suiteFor(listTree(root), "mocha").targets.size, 4);
});
