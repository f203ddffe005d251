/**
 * The user's test command is respected: a runner is recognised however the command spells it (a path
 * into node_modules, `npx`, `python -m`), its own scope is replaced by the selected tests, and the
 * related tests are chosen within what it runs, the report saying so (unless
 * `validation.within-command: false`).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import {
  parseRepoConfig,
  type RepoConfig,
  runnerOfCommand,
  type TestRunnerKind,
} from "../../src/config/index.ts";
import { selectTests, targetedCommand } from "../../src/validate/index.ts";
import { runnerOfProgram } from "../../src/runners/shared/command-spelling.ts";
import { commandScope, inScope } from "../../src/validate/targets/runner-command.ts";
import { writeRepo } from "../validate/support/targeted-repo.ts";

function cfg(command: string, extra = ""): Pick<RepoConfig, "test" | "validation"> {
  const c = parseRepoConfig(`test: ${JSON.stringify(command)}\n${extra}`);
  return { test: c.test, validation: c.validation };
}

/** The words the runner gets (the shell's expansion of `"$@"`, run for real with printf). */
function argvOf(cmd: ReturnType<typeof targetedCommand>): string[] {
  assert.ok("argv" in cmd, "reason" in cmd ? cmd.reason : "");
  const [, , script, name, ...args] = cmd.argv;
  const out = execFileSync("/bin/sh", ["-c", `printf '%s\\0' ${script!}`, name!, ...args], {
    encoding: "utf8",
  });
  return out.split("\0").slice(0, -1);
}

test("a runner is recognised however the command spells it; a test file named like one is not a runner", () => {
  const cases: [string, TestRunnerKind | null][] = [
    ["node node_modules/mocha/bin/_mocha --recursive test/", "mocha"],
    ["node ./node_modules/mocha/bin/mocha.js test", "mocha"],
    ["./node_modules/.bin/mocha test/", "mocha"],
    ["_mocha -R spec", "mocha"],
    ["node node_modules/jest/bin/jest.js --ci", "jest"],
    ["node_modules/.bin/jest", "jest"],
    ["npx jest", "jest"],
    ["node node_modules/vitest/vitest.mjs run", "vitest"],
    ["python -m pytest tests", "pytest"],
    ["python3 -m pytest", "pytest"],
    ["node test/jest.js", null],
    ["node lib/mocha.js", null],
  ];
  for (const [cmd, want] of cases) assert.equal(runnerOfCommand(cmd, "unknown"), want, cmd);
  assert.equal(runnerOfProgram("node_modules/jest-cli/bin/jest.js"), "jest");
  assert.equal(runnerOfProgram("vendor/mocha"), null);
});

test("targeted runs for a runner started by its path: its own scope is replaced by the selected tests", () => {
  const mocha = cfg("node node_modules/mocha/bin/_mocha --recursive --timeout 5000 test/");
  assert.equal(mocha.validation.runner, "mocha");
  const argv = argvOf(targetedCommand(mocha, ["test/app.router.js"]));
  assert.deepEqual(argv.slice(0, 5), [
    "node",
    "node_modules/mocha/bin/_mocha",
    "--recursive",
    "--timeout",
    "5000",
  ]);
  assert.ok(!argv.includes("test/"), argv.join(" "));
  assert.equal(argv.at(-1), "test/app.router.js");
  assert.ok(argv.includes("xunit"), "mocha's report options are added");
  const jest = cfg("node_modules/.bin/jest --ci");
  assert.deepEqual(argvOf(targetedCommand(jest, ["test/a.test.js"])), [
    "node_modules/.bin/jest",
    "--ci",
    "--verbose",
    "--runTestsByPath",
    "test/a.test.js",
  ]);
});

test("the scope of a command: the paths, packages or modules it names; none when it names none or cannot be read", () => {
  assert.deepEqual(commandScope(cfg("python3 -m pytest -p no:cacheprovider tests/test_api.py -k fast")), [
    "tests/test_api.py",
  ]);
  assert.deepEqual(commandScope(cfg("python -m unittest discover -s tests/unit -v")), ["tests.unit"]);
  assert.deepEqual(commandScope(cfg("node node_modules/mocha/bin/_mocha --timeout 5000 test/")), ["test/"]);
  assert.deepEqual(commandScope(cfg("go test ./pkg/...")), ["./pkg/..."]);
  assert.equal(commandScope(cfg("go test ./...")), null);
  assert.equal(commandScope(cfg("python3 -m pytest -rA")), null);
  assert.equal(commandScope(cfg("npm test")), null);
  // vitest's subcommands are not path filters: `vitest run` runs every test file.
  assert.equal(commandScope(cfg("npx vitest run")), null);
  assert.deepEqual(commandScope(cfg("npx vitest run test/unit")), ["test/unit"]);
  assert.equal(commandScope(cfg("npx vitest related src/a.js")), null);
  assert.equal(
    commandScope(
      cfg("pytest tests/test_api.py", "validation:\n  runner: pytest\n  command: 'pytest {tests}'\n"),
    ),
    null,
    "a template is run as written",
  );
  assert.ok(inScope("pytest", "tests/test_api.py::test_get", ["tests/test_api.py"]));
  assert.ok(inScope("pytest", "tests/unit/test_a.py", ["./tests/unit/"]));
  assert.ok(!inScope("pytest", "tests/unit_extra/test_a.py", ["tests/unit"]));
  assert.ok(inScope("unittest", "tests.unit.test_a", ["tests.unit"]));
  assert.ok(!inScope("unittest", "tests.unitx", ["tests.unit"]));
  assert.ok(inScope("go", "./pkg/a", ["./pkg/..."]));
  assert.ok(!inScope("go", "./other", ["./pkg/..."]));
  assert.ok(inScope("jest", "src/a/x.test.ts", ["src/a"]));
});

/** A library whose `core` two test files import, one of them named after it. */
const LIB = {
  "pytest.ini": "[pytest]\n",
  "lib/__init__.py": "",
  "lib/core.py": "def one():\n    return 1\n",
  "tests/__init__.py": "",
  "tests/test_core.py": "from lib.core import one\n\ndef test_one():\n    assert one() == 1\n",
  "tests/test_use.py": "from lib.core import one\n\ndef test_use():\n    assert one() + 1 == 2\n",
  "tests/api/__init__.py": "",
  "tests/api/test_api.py": "from lib.core import one\n\ndef test_api():\n    assert one()\n",
};

test("related tests are chosen within what the named test command runs, and the report says so", () => {
  const root = writeRepo(LIB);
  const select = (config: Pick<RepoConfig, "test" | "validation">) =>
    selectTests({ root, config, changed: ["lib/core.py"] });
  // The whole suite: all three relate.
  const all = select(cfg("python3 -m pytest"));
  assert.deepEqual(
    all.tests.map((t) => t.target),
    ["tests/api/test_api.py", "tests/test_core.py", "tests/test_use.py"],
  );
  assert.equal(all.why, "3 of 3 pytest test files relate to the change");
  // The user names one file: the selection stays within it.
  const one = select(cfg("python3 -m pytest tests/test_use.py"));
  assert.deepEqual(
    one.tests.map((t) => t.target),
    ["tests/test_use.py"],
  );
  assert.equal(
    one.why,
    "1 of 3 pytest test files relates to the change within what the test command runs (`tests/test_use.py`; 2 related tests outside it left out, validation.within-command)",
  );
  // A folder.
  const api = select(cfg("python3 -m pytest tests/api/"));
  assert.deepEqual(
    api.tests.map((t) => t.target),
    ["tests/api/test_api.py"],
  );
  // A file no related test is in: nothing is selected, and the report says why.
  const none = select(cfg("python3 -m pytest tests/test_other.py"));
  assert.deepEqual(none.tests, []);
  assert.match(none.why, /^no test of the 3 found relates to the change within what the test command runs/);
  // The configuration asks for the whole repository's related tests.
  const wide = select(cfg("python3 -m pytest tests/test_use.py", "validation:\n  within-command: false\n"));
  assert.equal(wide.tests.length, 3);
  assert.equal(wide.why, "3 of 3 pytest test files relate to the change");
});

test("a bad within-command value is refused with a clear message", () => {
  assert.throws(
    () => parseRepoConfig("test: pytest\nvalidation:\n  within-command: maybe\n"),
    /within-command.*expected true or false/s,
  );
});
