/** jest's check tests: only without a configuration, with its global `expect(…).toBe`. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { rulesOf, sourceInput, treeOf } from "../support/canary-tree.ts";

const jest = rulesOf("jest");
const SAMPLE =
  'const { add } = require("../src/calc");\n\ntest("adds", () => {\n  expect(add(1, 2)).toBe(3);\n});\n';

test("a configuration that chooses jest's files (a config file, package.json's settings that choose them): no check tests", () => {
  const input = (files: Record<string, string>) => ({
    tree: treeOf(files).tree,
    words: ["jest"],
    targets: null,
    valueOptions: new Set<string>(),
  });
  assert.deepEqual(jest.spot(input({ "jest.config.js": "", "test/a.test.js": SAMPLE })), {
    unverified: "jest's configuration (jest.config.js) decides which test files it takes",
  });
  const pkg = (jestSettings: string) =>
    jest.spot(input({ "package.json": `{"jest": ${jestSettings}}`, "test/a.test.js": SAMPLE }));
  const decides = { unverified: "jest's configuration (package.json) decides which test files it takes" };
  assert.deepEqual(pkg('{"testMatch": ["**/t/*.js"]}'), decides);
  assert.deepEqual(pkg('{"roots": ["src"], "testEnvironment": "node"}'), decides);
  assert.deepEqual(pkg('"jest.config.cjs"'), decides, "settings that are not an object may decide");
  // Settings that do not choose files (the environment, timeouts, coverage) leave the check tests placed.
  const neutral = pkg('{"testEnvironment": "jsdom", "testTimeout": 10000, "collectCoverage": true}');
  assert.ok(!("unverified" in neutral));
  assert.deepEqual(neutral.dirs, ["test"]);
  const spot = jest.spot(input({ "package.json": "{}", "test/a.test.js": SAMPLE }));
  assert.ok(!("unverified" in spot));
  assert.deepEqual(spot.dirs, ["test"]);
});

test("the file uses jest's globals, never an ES module; jest's summary counts one failed file and test", () => {
  const { tree } = treeOf({ "src/calc.js": "", "test/a.test.js": SAMPLE });
  const src = jest.source(sourceInput(tree, "test"));
  assert.match(src.text, /^test\("add kavelomi", \(\) => \{$/m);
  assert.match(src.text, /expect\(add\(1, 2\)\)\.toBe\("0123456789abcdef"\);/);
  assert.doesNotMatch(src.text, /import\(/);
  assert.equal(
    jest.onlyOneFailed(
      "Test Suites: 1 failed, 2 passed, 3 total\nTests:       1 failed, 5 passed, 6 total\n",
    ),
    true,
  );
  assert.equal(
    jest.onlyOneFailed(
      "Test Suites: 2 failed, 1 passed, 3 total\nTests:       1 failed, 5 passed, 6 total\n",
    ),
    false,
  );
});
