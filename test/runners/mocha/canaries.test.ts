/** mocha's check tests: one more file beside the first the command names, with `it` and its assertion. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rulesOf, sourceInput, treeOf } from "../support/canary-tree.ts";

const mocha = rulesOf("mocha");
const SAMPLE =
  'const assert = require("assert");\nconst slug = require("../lib/slug");\n\ndescribe("slug", function () {\n  it("lowers", function () {\n    assert.strictEqual(slug("A B"), "a-b");\n  });\n});\n';

test("beside the first file after mocha's options; none when mocha's configuration finds its files", () => {
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
  const spot = mocha.spot({ tree, words, targets: null, valueOptions: new Set() });
  assert.ok(!("unverified" in spot));
  assert.deepEqual(spot.dirs, ["test"]);
  assert.equal(spot.sample, "test/slug.js");
  assert.deepEqual(spot.args("test/x.js"), ["test/x.js"]);
  assert.match(
    (mocha.spot({ tree, words: ["mocha"], targets: null, valueOptions: new Set() }) as { unverified: string })
      .unverified,
    /by its configuration/,
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
