import assert from "node:assert/strict";
import { test } from "node:test";
import { frameworkOfCommand } from "../../src/config/detect.ts";
import { runnerNamedIn } from "../../src/runners/shared/command-spelling.ts";
import { withoutRecaps } from "../../src/runners/shared/results-recap.ts";

test("a configured command's runner is found by the runners' own spellings, shell syntax and all", () => {
  const cases: [string, string | null][] = [
    ["python -m pytest -q", "pytest"],
    ["cd api && py.test tests", "pytest"],
    ["coverage run -m pytest", "pytest"],
    ["python3 -m unittest discover -s tests", "unittest"],
    ["CI=1 npx jest --ci", "jest"],
    ["node node_modules/mocha/bin/_mocha --reporter spec test/app.js", "mocha"],
    ["npx vitest run", "vitest"],
    ["node --test test/", "node-test"],
    ["(cd pkg; go test ./...)", "go"],
    ["./mvnw -q test", "maven"],
    ["./gradlew test --offline", "gradle"],
    ["make test", null],
    ["npm test", null],
    ["tox -e py312", null],
    // A word that only contains a runner's name does not start it.
    ["./run-pytest-suite.sh", null],
  ];
  for (const [cmd, want] of cases) assert.equal(runnerNamedIn(cmd), want, cmd);
  assert.equal(frameworkOfCommand("make test", "go"), "go");
  assert.equal(frameworkOfCommand("python -m pytest", "unittest"), "pytest");
});

test("output shown to a person loses a recap that repeats failures printed in full, and nothing else", () => {
  const out = [
    "=== FAILURES ===",
    "___ test_a ___",
    "E   assert 1 == 2",
    "=== short test summary info ===",
    "FAILED t.py::test_a - assert 1 == 2",
    "1 failed in 0.1s",
  ].join("\n");
  const shown = withoutRecaps(out);
  assert.doesNotMatch(shown, /short test summary|FAILED t\.py/);
  assert.match(shown, /E {3}assert 1 == 2\n1 failed in 0\.1s$/);
  const onlyRecap = out.split("\n").slice(3).join("\n");
  assert.equal(withoutRecaps(onlyRecap), onlyRecap);
  assert.equal(withoutRecaps("ok 1 - a\n"), "ok 1 - a\n");
});
