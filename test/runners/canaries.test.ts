/**
 * Every runner says through one interface whether check tests go into its runs; one that places none says
 * why, and the run then reads "could not check" with that why, never a pass.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import type { RepoConfig } from "../../src/config/index.ts";
import { RUNNERS } from "../../src/runners/index.ts";
import { planCanaries } from "../../src/validate/canaries/index.ts";
import { treeOf } from "./support/canary-tree.ts";

const config = (command: string, framework: string, runner: string | null = null) =>
  ({ test: { command, framework }, validation: { runner } }) as unknown as Pick<
    RepoConfig,
    "test" | "validation"
  >;

test("every runner either places check tests or says why not; JUnit's tools and CTest say why", () => {
  const none = RUNNERS.filter((r) => !r.canaries.placed).map((r) => r.name);
  assert.deepEqual(none.sort(), ["ctest", "gradle", "junit", "maven"]);
  for (const r of RUNNERS) {
    const c = r.canaries;
    if (c.placed) assert.equal(typeof c.spot, "function", r.name);
    else assert.match(c.why, new RegExp(`not placed for ${r.name} runs`), r.name);
  }
});

test("a Maven or Gradle run gets no check tests: unverified with the runner's why, and nothing is written", () => {
  for (const [command, framework, name] of [
    ["mvn -q test", "maven", "maven"],
    ["./gradlew test", "gradle", "gradle"],
  ] as const) {
    const { tree, dir } = treeOf({ "src/test/java/AppTest.java": "class AppTest {}\n" });
    const plan = planCanaries(tree, config(command, framework));
    assert.deepEqual(plan, { unverified: `check tests are not placed for ${name} runs` });
    assert.deepEqual(readdirSync(dir, { recursive: true }).sort(), [
      "src",
      "src/test",
      "src/test/java",
      "src/test/java/AppTest.java",
    ]);
  }
});

test("a run of one process per target gets check tests only from a runner that can take them so", () => {
  const { tree } = treeOf({ "tests/test_ops.py": "def test_one():\n    assert 1\n" });
  const targeted = {
    argv: ["/bin/sh", "-c", 'for t; do pytest "$t" || exit 1; done', "sh", "tests/test_ops.py"],
    sequential: true as const,
  };
  const plan = planCanaries(tree, config("pytest", "pytest", "pytest"), targeted);
  assert.deepEqual(plan, {
    unverified: "a run of one process per target is not one check tests are added to",
  });
});

test("a deselecting option of the runner leaves the run unverified, naming the option", () => {
  const { tree } = treeOf({ "test/calc.test.js": "const { test } = require('node:test');\n" });
  const plan = planCanaries(tree, config("node --test --test-name-pattern=add", "node-test"));
  assert.deepEqual(plan, {
    unverified:
      "the command's option `--test-name-pattern=add` could leave the check tests out or stop before them",
  });
});
