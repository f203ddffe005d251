/**
 * Every spelling of a test command real projects use starts the runner it names, and that runner's
 * folder words the whole-suite run (its report options) and the targeted run (the selected tests, each
 * one word of the runner's argv, run through a real shell).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { loadRepoConfig, parseRepoConfig, type TestRunnerKind } from "../../src/config/index.ts";
import { runnerFor } from "../../src/runners/index.ts";
import { suiteCommand, targetedCommand } from "../../src/validate/index.ts";
import { writeRepo } from "../validate/support/targeted-repo.ts";

/** The configuration of a repository whose test command is `command` (the runner told from it). */
const cfg = (command: string) => {
  const c = parseRepoConfig(`test: ${JSON.stringify(command)}\n`);
  return { test: c.test, validation: c.validation };
};

/** The words the runner gets: the shell's expansion of the targeted argv (run for real with printf). */
function argvOf(cmd: ReturnType<typeof targetedCommand>): string[] {
  assert.ok("argv" in cmd, "reason" in cmd ? cmd.reason : "");
  const [, , script, name, ...args] = cmd.argv;
  const out = execFileSync("/bin/sh", ["-c", `printf '%s\\0' ${script!}`, name!, ...args], {
    encoding: "utf8",
  });
  return out.split("\0").slice(0, -1);
}

/** `R` stands for the report file drawn for the run. */
const withReport = (words: string, report: string | undefined): string =>
  words.replaceAll("R", report ?? "?");

interface Spelling {
  command: string;
  runner: TestRunnerKind;
  /** The word that names the runner, and the one its own arguments come after (null: none). */
  named: string;
  argsAfter: string | null;
  /** The whole suite's command (R: its report). */
  suite: string;
  /** The targeted run's words for `targets` (R: its report). */
  targets: string[];
  targeted: string;
}

const SPELLINGS: Spelling[] = [
  {
    command: "npx mocha",
    named: "mocha",
    argsAfter: "mocha",
    runner: "mocha",
    suite: "npx mocha --reporter xunit --reporter-options output=R",
    targets: ["test/a.js"],
    targeted: "npx mocha --reporter xunit --reporter-options output=R test/a.js",
  },
  {
    command: "node node_modules/mocha/bin/_mocha --require test/env --reporter spec test/",
    named: "node_modules/mocha/bin/_mocha",
    argsAfter: "node_modules/mocha/bin/_mocha",
    runner: "mocha",
    suite:
      "node node_modules/mocha/bin/_mocha --require test/env --reporter spec test/ --reporter xunit --reporter-options output=R",
    targets: ["test/a.js"],
    // Its own scope (`test/`) is replaced by the selected file; its options stay.
    targeted:
      "node node_modules/mocha/bin/_mocha --require test/env --reporter spec --reporter xunit --reporter-options output=R test/a.js",
  },
  {
    command: "node_modules/.bin/mocha -r should",
    named: "node_modules/.bin/mocha",
    argsAfter: "node_modules/.bin/mocha",
    runner: "mocha",
    suite: "node_modules/.bin/mocha -r should --reporter xunit --reporter-options output=R",
    targets: ["test/a.js", "-b.js"],
    targeted:
      "node_modules/.bin/mocha -r should --reporter xunit --reporter-options output=R test/a.js ./-b.js",
  },
  {
    command: "python -m pytest",
    named: "pytest",
    argsAfter: "pytest",
    runner: "pytest",
    suite: "python -m pytest -rA",
    targets: ["tests/test_a.py"],
    targeted: "python -m pytest -rA tests/test_a.py",
  },
  {
    command: "py.test -q tests/",
    named: "py.test",
    argsAfter: "py.test",
    runner: "pytest",
    suite: "py.test -q tests/ -rA",
    targets: ["tests/test_a.py::test_x"],
    targeted: "py.test -q -rA tests/test_a.py::test_x",
  },
  {
    command: "go test ./...",
    named: "go",
    argsAfter: "test",
    runner: "go",
    suite: "go test -json ./...",
    targets: ["./pkg/a"],
    targeted: "go test -json ./pkg/a",
  },
  {
    command: "mvn -q test",
    named: "mvn",
    argsAfter: null,
    runner: "maven",
    suite: "mvn -q test",
    targets: ["com.acme.ATest"],
    targeted:
      "mvn -q test -Dtest=com.acme.ATest -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false",
  },
  {
    command: "./gradlew test",
    named: "./gradlew",
    argsAfter: null,
    runner: "gradle",
    suite: "./gradlew test",
    targets: ["com.acme.ATest"],
    targeted: "./gradlew test --tests com.acme.ATest",
  },
  {
    command: "npx jest",
    named: "jest",
    argsAfter: "jest",
    runner: "jest",
    suite: "npx jest --verbose",
    targets: ["src/a.test.js"],
    targeted: "npx jest --verbose --runTestsByPath src/a.test.js",
  },
  {
    command: "npx vitest run",
    named: "vitest",
    argsAfter: "vitest",
    runner: "vitest",
    suite: "npx vitest run --reporter=verbose",
    targets: ["src/a.test.ts"],
    targeted: "npx vitest run --reporter=verbose src/a.test.ts",
  },
  {
    command: "node --test",
    named: "node",
    argsAfter: "--test",
    runner: "node-test",
    suite:
      "node --test --test-reporter=junit --test-reporter-destination=R --test-reporter=spec --test-reporter-destination=stdout",
    targets: ["test/a.test.js"],
    targeted:
      "node --test --test-reporter=junit --test-reporter-destination=R --test-reporter=spec --test-reporter-destination=stdout test/a.test.js",
  },
];

for (const s of SPELLINGS) {
  test(`\`${s.command}\` starts ${s.runner}: its report words for the suite, and the selected tests as words`, () => {
    const config = cfg(s.command);
    assert.equal(config.validation.runner, s.runner);
    // The word that names it, and the one its own arguments follow (JUnit tools take none after a word).
    const words = s.command.split(" ");
    const part = runnerFor(s.runner);
    assert.equal(words[part.namedAt(words)], s.named, s.command);
    assert.equal(part.argsAfter(words) < 0 ? null : words[part.argsAfter(words)], s.argsAfter, s.command);
    const suite = suiteCommand(config);
    assert.equal(suite.noReportOptions, undefined, String(suite.noReportOptions));
    assert.equal(suite.command, withReport(s.suite, suite.report?.path));
    const targeted = targetedCommand(config, s.targets);
    assert.ok("argv" in targeted, "reason" in targeted ? targeted.reason : "");
    assert.deepEqual(argvOf(targeted), withReport(s.targeted, targeted.report?.path).split(" "));
    if (s.suite.includes("R")) {
      // A fresh report name per run, in the tree.
      assert.match(suite.report?.path ?? "", /^\.junit-[a-z-]+-[0-9a-f]{18}\.xml$/);
      assert.notEqual(targeted.report?.path, suite.report?.path);
    }
  });
}

test("`python3 -m unittest discover -s tests`: the selected modules run one process each, listed verbosely", () => {
  const config = cfg("python3 -m unittest discover -s tests");
  assert.equal(config.validation.runner, "unittest");
  assert.equal(suiteCommand(config).command, "python3 -m unittest discover -s tests -v");
  const t = targetedCommand(config, ["tests.test_a", "tests.test_b"]);
  assert.ok("argv" in t);
  assert.equal(t.sequential, true);
  assert.equal(t.argv[2], 'rc=0; for t in "$@"; do python3 -m unittest -v "$t" || rc=1; done; exit $rc');
  assert.deepEqual(t.argv.slice(4), ["tests.test_a", "tests.test_b"]);
});

test("maven and gradle: their own JUnit reports are read, no option is added", () => {
  assert.deepEqual(suiteCommand(cfg("mvn -q test")).reports, [
    "target/surefire-reports/TEST-*.xml",
    "**/target/surefire-reports/TEST-*.xml",
  ]);
  assert.deepEqual(suiteCommand(cfg("./gradlew test")).reports, [
    "build/test-results/test/*.xml",
    "**/build/test-results/test/*.xml",
  ]);
});

for (const script of ["npm test", "npm run test", "yarn test", "pnpm test"]) {
  test(`\`${script}\` whose script is \`node --test\`: the script's command runs, with node's report options`, () => {
    const repo = writeRepo({
      "package.json": JSON.stringify({ name: "pkg", private: true, scripts: { test: "node --test" } }),
      "test/a.test.js": 'require("node:test")("a", () => {});\n',
      ".github/auto-fix.yml": `test: ${script}\n`,
    });
    const config = loadRepoConfig(repo);
    assert.equal(config.test.command, "node --test");
    assert.equal(config.validation.runner, "node-test");
    const suite = suiteCommand(config);
    assert.equal(suite.noReportOptions, undefined, String(suite.noReportOptions));
    assert.match(
      suite.command,
      /^node --test --test-reporter=junit --test-reporter-destination=\.junit-node-test-/,
    );
    assert.equal(suite.report?.suites, "nesting");
    assert.ok(
      config.notes.some((n) => n.includes("runs the package.json script `test`")),
      config.notes.join("\n"),
    );
  });
}

test("`npm test` whose script starts mocha: the script takes mocha's report options after `--`", () => {
  const repo = writeRepo({
    "package.json": JSON.stringify({
      name: "pkg",
      private: true,
      scripts: { test: "mocha --reporter spec" },
    }),
    "test/a.js": "",
  });
  const config = loadRepoConfig(repo);
  assert.equal(config.test.command, "npm test");
  assert.equal(config.validation.runner, "mocha");
  const suite = suiteCommand(config);
  assert.equal(suite.command, `npm test -- --reporter xunit --reporter-options output=${suite.report?.path}`);
  const t = targetedCommand(config, ["test/a.js"]);
  assert.ok("argv" in t);
  assert.deepEqual(argvOf(t), [
    "npm",
    "test",
    "--",
    "--reporter",
    "xunit",
    "--reporter-options",
    `output=${t.report?.path}`,
    "test/a.js",
  ]);
  // Through a script the file named is not the only one mocha may run: no file is assumed for its tests.
  assert.equal(t.report?.file, undefined);
});

test("a file called like a runner, or a runner's name in a folder outside node_modules, starts nothing", () => {
  for (const command of ["node test/jest.js", "node lib/mocha.js", "vendor/mocha test/"]) {
    assert.equal(cfg(command).validation.runner, null, command);
  }
});
