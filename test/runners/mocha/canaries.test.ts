/** mocha's check tests: one more file beside the first the command names, with `it` and its assertion. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runnerFor } from "../../../src/runners/index.ts";
import { rulesOf, sourceInput, treeOf } from "../support/canary-tree.ts";

const mocha = rulesOf("mocha");
const valueOptions = runnerFor("mocha").valueOptions;
const SAMPLE =
  'const assert = require("assert");\nconst slug = require("../lib/slug");\n\ndescribe("slug", function () {\n  it("lowers", function () {\n    assert.strictEqual(slug("A B"), "a-b");\n  });\n});\n';

test("beside the first file after mocha's options; else where its configuration or ./test finds files", () => {
  const { tree } = treeOf({ "lib/slug.js": "", "test/slug.js": SAMPLE });
  const words = [
    "node",
    "node_modules/mocha/bin/mocha",
    "--require",
    "test/env",
    "-R",
    "spec",
    "test/slug.js",
  ];
  const spot = mocha.spot({ tree, words, targets: null, valueOptions });
  assert.ok(!("unverified" in spot));
  assert.deepEqual(spot.dirs, ["test"]);
  assert.equal(spot.sample, "test/slug.js");
  assert.deepEqual(spot.args("test/x.js"), ["test/x.js"]);
  // No file named, no configuration: mocha takes ./test, where mocha 2 to 8 find `.js` files only.
  const bare = mocha.spot({ tree, words: ["mocha"], targets: null, valueOptions });
  assert.ok(!("unverified" in bare));
  assert.deepEqual(bare.dirs, ["test"]);
  assert.deepEqual(bare.args("test/x.cjs"), ["test", "test/x.cjs"]);
  assert.deepEqual(bare.args("test/x.js"), []);
  // A configuration that is a program cannot be read: no check tests, and the reason says why.
  const rc = treeOf({ ".mocharc.js": "module.exports = {}", "test/slug.js": SAMPLE }).tree;
  assert.match(
    (mocha.spot({ tree: rc, words: ["mocha"], targets: null, valueOptions }) as { unverified: string })
      .unverified,
    /by its configuration.*\.mocharc\.js\) is a program/,
  );
  // A configuration's spec: beside its files.
  const specd = treeOf({ ".mocharc.json": '{"spec": "spec/**/*.spec.js"}', "spec/a.spec.js": SAMPLE }).tree;
  const bySpec = mocha.spot({ tree: specd, words: ["mocha"], targets: null, valueOptions });
  assert.ok(!("unverified" in bySpec));
  assert.deepEqual(bySpec.dirs, ["spec"]);
  // A package manager's script is read as the words it runs; one that cannot be read is said.
  const viaScript = mocha.spot({
    tree,
    words: ["npm", "test"],
    targets: null,
    valueOptions,
    scriptWords: ["mocha", "--reporter", "spec", "test/slug.js"],
  });
  assert.ok(!("unverified" in viaScript));
  assert.equal(viaScript.sample, "test/slug.js");
  assert.match(
    (
      mocha.spot({
        tree,
        words: ["npm", "test"],
        targets: null,
        valueOptions,
        scriptWords: { reason: "package.json has no script `test`" },
      }) as { unverified: string }
    ).unverified,
    /does not start mocha directly \(package\.json has no script `test`\)/,
  );
  assert.match(
    (
      mocha.spot({
        tree,
        words: ["npm", "test"],
        targets: null,
        valueOptions,
        scriptWords: ["mocha", "-g", "x"],
      }) as {
        unverified: string;
      }
    ).unverified,
    /option `-g`/,
  );
  assert.equal(mocha.deselecting(["mocha", "--grep", "x"]), "--grep");
});

test("the file uses mocha's global `it` and the sample's assert; mocha's exit status counts failures", () => {
  const { tree } = treeOf({ "lib/slug.js": "", "test/slug.js": SAMPLE });
  const src = mocha.source(sourceInput(tree, "test", { preferred: "test/slug.js" }));
  assert.match(src.text, /^it\("slug kavelomi", /m);
  assert.match(src.text, /assert\.strictEqual\(slug\("A B"\), "0123456789abcdef"\);/);
  assert.equal(mocha.failExitCode(2), 2);
});
