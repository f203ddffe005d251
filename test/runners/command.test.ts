import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import {
  parseRepoConfig,
  RepoConfigError,
  runnerOfCommand,
  type RepoConfig,
  type TestRunnerKind,
} from "../../src/config/index.ts";
import { changedFilesOfDiff, suiteCommand, targetedCommand } from "../../src/validate/index.ts";

function cfg(command: string, runner: TestRunnerKind | null, template: string | null = null) {
  const c = parseRepoConfig(`test: ${JSON.stringify(command)}\n`);
  return { test: c.test, validation: { ...c.validation, runner, command: template } } satisfies Pick<
    RepoConfig,
    "test" | "validation"
  >;
}

/** What the shell hands the runner: the argv after `sh -c` expands "$@" (run for real, with echo). */
function argvOf(cmd: ReturnType<typeof targetedCommand>): string[] {
  assert.ok("argv" in cmd, "reason" in cmd ? cmd.reason : "");
  const [sh, flag, script, name, ...args] = cmd.argv;
  assert.equal(sh, "/bin/sh");
  assert.equal(flag, "-c");
  // The same script with printf in front: each word the runner would get, NUL-separated.
  const out = execFileSync("/bin/sh", ["-c", `printf '%s\\0' ${script!}`, name!, ...args], {
    encoding: "utf8",
  });
  return out.split("\0").slice(0, -1);
}

test("runners are detected from plain test commands; scripts and shell syntax are not targetable", () => {
  const cases: [string, string, TestRunnerKind | null][] = [
    ["python3 -m pytest -rA", "unknown", "pytest"],
    ["pytest -q tests/", "unknown", "pytest"],
    ["python -m unittest discover -v", "unknown", "unittest"],
    ["node --test test/", "unknown", "node-test"],
    ["npx jest --ci", "unknown", "jest"],
    ["npx vitest run", "unknown", "vitest"],
    ["npm test", "jest", "jest"],
    ["npm test", "npm", null],
    ["go test -json ./...", "unknown", "go"],
    ["mvn -B -o test", "unknown", "maven"],
    ["./gradlew --offline test", "unknown", "gradle"],
    ["make test", "unknown", null],
    ["./run-tests.sh", "unknown", null],
    ["pytest && echo ok", "unknown", null],
    ["pytest $(cat args)", "unknown", null],
  ];
  for (const [cmd, fw, want] of cases) assert.equal(runnerOfCommand(cmd, fw as never), want, cmd);
});

test("each runner gets its tests in its own form; the command's own scope is replaced", () => {
  const runs = (command: string, runner: TestRunnerKind, targets: string[]) =>
    argvOf(targetedCommand(cfg(command, runner), targets));
  assert.deepEqual(
    runs("python3 -m pytest -rA -p no:cacheprovider tests/ -k fast", "pytest", ["t/test_a.py"]),
    ["python3", "-m", "pytest", "-rA", "-p", "no:cacheprovider", "-k", "fast", "t/test_a.py"],
  );
  // unittest: one process per module, so that a module failing to load fails alone.
  const ut = targetedCommand(cfg("python3 -m unittest discover -s tests -v", "unittest"), [
    "tests.test_a",
    "b",
  ]);
  assert.ok("argv" in ut);
  assert.deepEqual(ut.argv, [
    "/bin/sh",
    "-c",
    'rc=0; for t in "$@"; do python3 -m unittest -v "$t" || rc=1; done; exit $rc',
    "sh",
    "tests.test_a",
    "b",
  ]);
  // node --test: one process, its junit reporter writing a fresh report that names each test's file and
  // its spec reporter the output; the command's own reporters and scope are replaced.
  const node = targetedCommand(
    cfg(
      "node --test --test-reporter tap --test-reporter-destination=out.tap --test-reporter=dot test/",
      "node-test",
    ),
    ["test/a.test.js", "-b.test.js"],
  );
  assert.ok("argv" in node);
  assert.match(node.report?.path ?? "", /^\.junit-node-test-[0-9a-f]{18}\.xml$/);
  assert.equal(node.report?.suites, "nesting");
  const nodeFlags = `--test-reporter=junit --test-reporter-destination=${node.report?.path} --test-reporter=spec --test-reporter-destination=stdout`;
  assert.deepEqual(node.argv, [
    "/bin/sh",
    "-c",
    `node --test ${nodeFlags} "$@"`,
    "sh",
    "test/a.test.js",
    "./-b.test.js",
  ]);
  assert.equal(node.display, `node --test ${nodeFlags} test/a.test.js -b.test.js`);
  const nodeAgain = targetedCommand(cfg("node --test", "node-test"), ["a.test.js"]);
  assert.ok("argv" in nodeAgain);
  assert.notEqual(nodeAgain.report?.path, node.report?.path, "a report name is drawn per command");
  // A command that writes JUnit reports of its own (which name each test's file) keeps its reporters:
  // those reports are read.
  const withReports = cfg(
    "node --test --test-reporter=junit --test-reporter-destination=junit.xml",
    "node-test",
  );
  const one = targetedCommand({ ...withReports, test: { ...withReports.test, reports: ["junit.xml"] } }, [
    "a.test.js",
    "b.test.js",
  ]);
  assert.ok("argv" in one && one.report === undefined);
  assert.equal(one.argv[2], 'node --test --test-reporter=junit --test-reporter-destination=junit.xml "$@"');
  assert.deepEqual(runs("go test -json -count 1 ./...", "go", ["./a", "."]), [
    "go",
    "test",
    "-json",
    "-count",
    "1",
    "./a",
    ".",
  ]);
  assert.deepEqual(runs("npm test", "jest", ["src/a.test.ts"]), [
    "npm",
    "test",
    "--",
    "--verbose",
    "--runTestsByPath",
    "src/a.test.ts",
  ]);
  assert.deepEqual(runs("npx jest --ci", "jest", ["src/[id].test.ts"]), [
    "npx",
    "jest",
    "--ci",
    "--verbose",
    "--runTestsByPath",
    "src/[id].test.ts",
  ]);
  assert.deepEqual(runs("npx vitest run", "vitest", ["a.test.ts"]), [
    "npx",
    "vitest",
    "run",
    "--reporter=verbose",
    "a.test.ts",
  ]);
  // vitest ignores the files after a `--` of its own (it would run the whole suite): none is added.
  assert.deepEqual(runs("npx vitest run", "vitest", ["-x.test.ts"]).slice(3), [
    "--reporter=verbose",
    "./-x.test.ts",
  ]);
  // mocha: one process whose xunit reporter writes a fresh report naming each test's file; only the
  // selected files' tests count (its configuration may add others).
  const mocha = targetedCommand(cfg("npm run test -- --silent", "mocha"), ["test/a.js", "-b.js"]);
  assert.ok("argv" in mocha);
  assert.match(mocha.report?.path ?? "", /^\.junit-mocha-[0-9a-f]{18}\.xml$/);
  assert.equal(mocha.report?.suites, "classname");
  assert.deepEqual(mocha.argv.slice(0, 3), [
    "/bin/sh",
    "-c",
    `npm run test -- --silent --reporter xunit --reporter-options output=${mocha.report?.path} "$@"`,
  ]);
  assert.deepEqual(mocha.argv.slice(4), ["test/a.js", "./-b.js"]);
  assert.deepEqual(mocha.onlyFiles, ["test/a.js", "-b.js"]);
  const viaNpm = targetedCommand(cfg("npm test", "mocha"), ["t.js"]);
  assert.ok("argv" in viaNpm);
  assert.equal(
    viaNpm.argv[2],
    `npm test -- --reporter xunit --reporter-options output=${viaNpm.report?.path} "$@"`,
  );
  const again = targetedCommand(cfg("npm test", "mocha"), ["t.js"]);
  assert.ok("argv" in again);
  assert.notEqual(again.report?.path, viaNpm.report?.path);
  assert.deepEqual(runs("mvn -B -o test -Dtest=Old", "maven", ["a.BTest", "a.CTest"]), [
    "mvn",
    "-B",
    "-o",
    "test",
    "-Dtest=a.BTest,a.CTest",
    "-Dsurefire.failIfNoSpecifiedTests=false",
    "-DfailIfNoTests=false",
  ]);
  assert.deepEqual(runs("./gradlew --offline test", "gradle", ["a.BTest"]), [
    "./gradlew",
    "--offline",
    "test",
    "--tests",
    "a.BTest",
  ]);
});

test("hostile targets: option-like paths become ./paths, shell text stays one argument, bad names are refused", () => {
  const pytest = cfg("python3 -m pytest", "pytest");
  assert.deepEqual(argvOf(targetedCommand(pytest, ["-p/test_x.py", "tests/test_$(id);`id`.py"])), [
    "python3",
    "-m",
    "pytest",
    "-rA",
    "./-p/test_x.py",
    "tests/test_$(id);`id`.py",
  ]);
  for (const bad of ["/etc/passwd", "../x/test_a.py", "a/../../test_a.py", "", "x\ny"]) {
    const r = targetedCommand(pytest, [bad]);
    assert.ok("reason" in r, `${JSON.stringify(bad)} must be refused`);
  }
  const unittest = cfg("python3 -m unittest", "unittest");
  for (const bad of ["-k", "a;b", "a b", "a.-b"])
    assert.ok("reason" in targetedCommand(unittest, [bad]), bad);
  const go = cfg("go test ./...", "go");
  for (const bad of ["-exec=sh", "pkg", "./../x", "/abs"])
    assert.ok("reason" in targetedCommand(go, [bad]), bad);
  // A template gets the tests as "$@": its own shell syntax runs, the tests' never does.
  const tpl = cfg("make test", "junit", "echo start && printf '<%s>' {tests}");
  const cmd = targetedCommand(tpl, ["a.BTest", "c.DTest"]);
  assert.ok("argv" in cmd);
  const out = execFileSync(cmd.argv[0]!, cmd.argv.slice(1), { encoding: "utf8" });
  assert.equal(out, "start\n<a.BTest><c.DTest>");
});

test("the configuration: validation mode, budget, runner and a template that must name {tests}", () => {
  const d = parseRepoConfig("test: python3 -m pytest\n");
  assert.deepEqual(d.validation, {
    mode: "targeted",
    relatedBudgetMs: 45_000,
    budgetMs: 120_000,
    runner: "pytest",
    command: null,
    source: "detected",
  });
  assert.equal(parseRepoConfig("test: make test\nvalidation: full\n").validation.mode, "full");
  const t = parseRepoConfig(
    "test: make test\nvalidation:\n  runner: junit\n  command: make test ONLY={tests}\n  budget: 30\n  related-budget: 20\n",
  );
  assert.deepEqual(t.validation, {
    mode: "targeted",
    relatedBudgetMs: 20_000,
    budgetMs: 30_000,
    runner: "junit",
    command: "make test ONLY={tests}",
    source: "config",
  });
  assert.throws(
    () => parseRepoConfig("validation:\n  command: make test\n"),
    (e: unknown) => {
      assert.ok(e instanceof RepoConfigError);
      assert.match(e.message, /validation\.command: must contain \{tests\}/);
      return true;
    },
  );
  assert.throws(
    () => parseRepoConfig("validation:\n  runner: rspec\n"),
    /validation\.runner: expected one of/,
  );
  assert.throws(() => parseRepoConfig("validation: sometimes\n"), RepoConfigError);
  assert.throws(
    () => parseRepoConfig("validation:\n  related-budget: 0\n"),
    /validation\.related-budget: must be at least 1 second/,
  );
  assert.throws(
    () => parseRepoConfig("validation:\n  related-budget: soon\n"),
    /validation\.related-budget: expected a number of seconds/,
  );
});

test("changed files are read from a unified diff, quoted names too", () => {
  const diff = [
    "diff --git a/pkg/a.py b/pkg/a.py",
    "--- a/pkg/a.py",
    "+++ b/pkg/a.py",
    "@@ -1 +1 @@",
    "-x",
    "+y",
    "diff --git a/new.py b/new.py",
    "--- /dev/null",
    "+++ b/new.py",
    'diff --git "a/sp ace\\tx.py" "b/sp ace\\tx.py"',
    '--- "a/sp ace\\tx.py"',
    '+++ "b/sp ace\\tx.py"',
    "--- a/gone.py",
    "+++ /dev/null",
    "",
  ].join("\n");
  assert.deepEqual(changedFilesOfDiff(diff).sort(), ["gone.py", "new.py", "pkg/a.py", "sp ace\tx.py"]);
});

test("quiet commands get the runner's report options, for the whole suite and for selected tests", () => {
  const whole = (command: string) => {
    const c = parseRepoConfig(`test: ${JSON.stringify(command)}\n`);
    return suiteCommand(c);
  };
  const hex = "[0-9a-f]{18}";
  assert.equal(whole("pytest -q").command, "pytest -q -rA");
  assert.equal(whole("python3 -m pytest -qq -r fE tests").command, "python3 -m pytest -qq -r fE tests -rA");
  assert.equal(whole("python3 -m pytest -rA").command, "python3 -m pytest -rA");
  assert.equal(whole("python3 -m unittest").command, "python3 -m unittest -v");
  assert.equal(
    whole("python3 -m unittest discover -s tests -q").command,
    "python3 -m unittest discover -s tests -q -v",
  );
  assert.equal(whole("python -m unittest -v").command, "python -m unittest -v");
  assert.equal(whole("go test ./...").command, "go test -json ./...");
  assert.equal(whole("go test -json ./...").command, "go test -json ./...");
  assert.equal(whole("npx jest").command, "npx jest --verbose");
  assert.equal(whole("npx vitest run").command, "npx vitest run --reporter=verbose");
  const node = whole("node --test --test-reporter=dot test/");
  assert.match(
    node.command,
    new RegExp(
      `^node --test --test-reporter=junit --test-reporter-destination=\\.junit-node-test-${hex}\\.xml --test-reporter=spec --test-reporter-destination=stdout test/$`,
    ),
  );
  assert.equal(node.report?.suites, "nesting");
  assert.equal(node.noReportOptions, undefined);
  const mocha = whole("npx mocha");
  assert.match(
    mocha.command,
    new RegExp(`^npx mocha --reporter xunit --reporter-options output=\\.junit-mocha-${hex}\\.xml$`),
  );
  assert.equal(mocha.report?.suites, "classname");
  // Through `npm test`, after `--`, when the script's runner is known.
  const script = parseRepoConfig("test: npm test\n");
  assert.equal(
    suiteCommand({ ...script, test: { ...script.test, framework: "jest" } }).command,
    "npm test -- --verbose",
  );
  // Maven and Gradle write JUnit reports anyway: they are read, the command is unchanged.
  assert.deepEqual(whole("mvn -B -o test").reports, [
    "target/surefire-reports/TEST-*.xml",
    "**/target/surefire-reports/TEST-*.xml",
  ]);
  assert.equal(whole("mvn -B -o test").command, "mvn -B -o test");
  // Where options cannot be added, the run says why; a command naming its own reports is kept.
  for (const [command, why] of [
    ["cd tests && pytest -q", /shell syntax/],
    ["make test", /does not start a runner whose report options auto-fix knows/],
    ["java -cp x org.junit.runner.JUnitCore a.BTest", /JUnitCore prints only the tests that failed/],
  ] as const) {
    const w = whole(command);
    assert.equal(w.command, command);
    assert.match(w.noReportOptions ?? "", why, command);
  }
  const own = parseRepoConfig("test: pytest -q --junitxml=r/TEST-a.xml\ntest-reports: [r/TEST-*.xml]\n");
  assert.deepEqual(suiteCommand(own), {
    command: "pytest -q --junitxml=r/TEST-a.xml",
    display: "pytest -q --junitxml=r/TEST-a.xml",
  });

  // Selected tests: the same options.
  const runs = (command: string, runner: TestRunnerKind, targets: string[]) =>
    argvOf(targetedCommand(cfg(command, runner), targets));
  assert.deepEqual(runs("pytest -q", "pytest", ["t/test_a.py"]), ["pytest", "-q", "-rA", "t/test_a.py"]);
  // `-r` takes the next word: it is kept with it (a later -rA replaces it), not dropped as a path.
  assert.deepEqual(runs("pytest -r fE tests/", "pytest", ["t/test_a.py"]), [
    "pytest",
    "-r",
    "fE",
    "-rA",
    "t/test_a.py",
  ]);
  assert.deepEqual(runs("go test ./...", "go", ["./a"]), ["go", "test", "-json", "./a"]);
  const ut = targetedCommand(cfg("python3 -m unittest -q", "unittest"), ["t.test_a"]);
  assert.ok("argv" in ut);
  assert.match(ut.argv[2]!, /python3 -m unittest -q -v "\$t"/);
  // A template runs as written: a quiet one cannot name single tests, and says so.
  const tpl = targetedCommand(cfg("make test", "junit", "java -cp x org.junit.runner.JUnitCore {tests}"), [
    "a.BTest",
  ]);
  assert.ok("argv" in tpl);
  assert.match(tpl.noReportOptions ?? "", /JUnitCore prints only the tests that failed/);
  const mvn = targetedCommand(cfg("mvn -B test", "maven"), ["a.BTest"]);
  assert.ok("argv" in mvn);
  assert.equal(mvn.noReportOptions, undefined);
  assert.deepEqual(mvn.reports?.[0], "target/surefire-reports/TEST-*.xml");
});
