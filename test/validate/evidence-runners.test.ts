import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { compareRuns } from "../../src/validate/compare.ts";
import { type CandidateValidation, runTestSuite, type TreeStates } from "../../src/validate/index.ts";
import { jsShop } from "./support/js-shop.ts";
import { prepareJob, validateEdit, writeRepo } from "./support/targeted-repo.ts";
import { XML_RUNNER } from "../support/junit-xml-runner.ts";

// What a validation may say, with node --test, go test and JUnit 4 in the real sandbox: a run whose test
// files all fail to load, or that runs no test, could not run (never a pass); a patch that ends the
// runner early loses the tests that ran before ("no longer runs"); a real fix is named by its test.

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

const has = (cmd: string, args: string[]): boolean => {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

async function job(files: Record<string, string> | string, testMs?: number) {
  const repo = typeof files === "string" ? files : writeRepo(files);
  const j = await prepareJob(sandbox, repo, (c) =>
    testMs ? { ...c, timeouts: { ...c.timeouts, testMs } } : c,
  );
  jobs.push(j.states);
  return j;
}

const why = (v: CandidateValidation): string =>
  `${v.result.status}: ${v.result.summary}\n${v.run?.command}\n${v.run?.exec.stdout}\n${v.run?.exec.stderr}`;

// --- node --test ---

const nodeTest = (imports: string, body: string) =>
  `import { test } from "node:test";\nimport assert from "node:assert";\n${imports}\n${body}\n`;

const SLUG = {
  "package.json": JSON.stringify({ type: "module" }),
  ".github/auto-fix.yml": "test: node --test\n",
  "src/slug.js": 'export const slug = (s) => s.toLowerCase().replace(" ", "-");\n',
  "test/slug.test.js": nodeTest(
    'import { slug } from "../src/slug.js";',
    'test("one space", () => assert.equal(slug("A B"), "a-b"));\ntest("many words", () => assert.equal(slug("A B C"), "a-b-c"));',
  ),
  "test/lower.test.js": nodeTest(
    'import { slug } from "../src/slug.js";',
    'test("lower", () => assert.equal(slug("A"), "a"));',
  ),
};

test("node --test: every test file failing to load on both trees could not run; its files are named, not counted as tests", async () => {
  const missing = 'import { slug } from "../src/slug.js";\nimport { pad } from "../src/missing.js";';
  const j = await job({
    ...SLUG,
    "test/slug.test.js": nodeTest(missing, 'test("one space", () => assert.equal(slug(pad("A B")), "a-b"));'),
    "test/lower.test.js": nodeTest(missing, 'test("lower", () => assert.equal(slug(pad("A")), "a"));'),
  });
  const v = await validateEdit(sandbox, j, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.equal(v.result.status, "could-not-run", why(v));
  // Each file ran in a batch of its own (the namesake first): each batch says which file failed to load.
  assert.match(
    v.result.summary,
    /^tests could not be run: before the patch, every test module failed to load \(1: test\/slug\.test\.js\)/,
  );
  assert.match(v.result.summary, /every test module failed to load \(1: test\/lower\.test\.js\)/);
  assert.deepEqual(v.result.fixed, []);
  assert.deepEqual(v.result.regressions, []);
  assert.deepEqual([...(v.run?.tests?.keys() ?? [])].sort(), [
    "test/lower.test.js > <file>",
    "test/slug.test.js > <file>",
  ]);
});

test("node --test: test files that run no test and exit 0 could not run", async () => {
  const j = await job({
    ...SLUG,
    "test/slug.test.js": 'import { slug } from "../src/slug.js";\nslug("A B");\n',
    "test/lower.test.js": 'import { slug } from "../src/slug.js";\nslug("A");\n',
  });
  const v = await validateEdit(sandbox, j, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.equal(v.result.status, "could-not-run", why(v));
  // Only the canary package named tests; with the canaries taken out, nothing of the repository's ran.
  assert.match(
    v.result.summary,
    /^tests could not be run: before the patch, (the runner collected no test|only an exit code: its output named no single test, so single tests cannot be judged) \(it exited with code 0\)/,
  );
});

test("node --test: a patch that ends the process at import ends the planted tests too (tampered); a real fix is named", async () => {
  const j = await job(SLUG);
  const exit = await validateEdit(sandbox, j, {
    "src/slug.js": ["export const slug", "process.exit(0);\nexport const slug"],
  });
  // The planted tests import what the test beside them imports: their process is ended at the same
  // import, their proof is missing, and the run cannot be trusted. Never a pass.
  assert.equal(exit.result.status, "tampered", why(exit));
  assert.match(exit.run?.integrity?.detail ?? "", /never ran its body/);
  assert.deepEqual(exit.result.fixed, []);

  const fix = await validateEdit(sandbox, j, {
    "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
  });
  assert.equal(fix.result.status, "passed", why(fix));
  assert.deepEqual(fix.result.fixed, ["test/slug.test.js > many words"]);
  assert.deepEqual(fix.result.regressions, []);
});

// --- go test ---

const goTest = (pkg: string, body: string) => `package ${pkg}\n\nimport "testing"\n\n${body}\n`;

const CALC = {
  "go.mod": "module example.com/q\n\ngo 1.19\n",
  ".github/auto-fix.yml": "test: go test ./...\n",
  "calc/calc.go":
    "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Half(a int) int { return a / 3 }\n",
  "calc/calc_test.go": goTest(
    "calc",
    'func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n\nfunc TestHalf(t *testing.T) {\n\tif Half(4) != 2 {\n\t\tt.Fatal("half")\n\t}\n}',
  ),
};
const noGo = !has("go", ["version"]) && "go is not installed";

test("go test: a package that does not compile on both trees could not run, named as a package", {
  skip: noGo,
}, async () => {
  const j = await job({ ...CALC, "calc/broken.go": "package calc\n\nvar broken = undefinedName\n" }, 300_000);
  const v = await validateEdit(sandbox, j, { "calc/calc.go": ["a / 3", "a / 2"] });
  assert.equal(v.result.status, "could-not-run", why(v));
  assert.match(
    v.result.summary,
    /^tests could not be run: before the patch, every test module failed to load \(1: example\.com\/q\/calc\)/,
  );
  assert.deepEqual([...(v.run?.tests ?? [])], [["example.com/q/calc.<package>", "failed"]]);
  assert.deepEqual(v.result.fixed, []);
});

test("go test: packages without tests (the command exits 0) could not run", { skip: noGo }, async () => {
  const j = await job({ ...CALC, "calc/calc_test.go": "package calc\n" }, 300_000);
  const v = await validateEdit(sandbox, j, { "calc/calc.go": ["a / 3", "a / 2"] });
  assert.equal(v.result.status, "could-not-run", why(v));
  // Only the canary package named tests; with the canaries taken out, nothing of the repository's ran.
  assert.match(
    v.result.summary,
    /^tests could not be run: before the patch, (the runner collected no test|only an exit code: its output named no single test, so single tests cannot be judged) \(it exited with code 0\)/,
  );
});

test("go test: a patch whose init() exits 0 loses the tests that ran before; a real fix is named", {
  skip: noGo,
}, async () => {
  const j = await job(CALC, 300_000);
  const exit = await validateEdit(sandbox, j, {
    "calc/calc.go": ["package calc\n", 'package calc\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n'],
  });
  // The canary package's tests were lost with the rest: the run was tampered with.
  assert.equal(exit.result.status, "tampered", why(exit));
  assert.equal(exit.result.integrity?.state, "tampered");
  assert.deepEqual(exit.result.fixed, []);
  assert.match(exit.result.summary, /^the test run after the patch cannot be trusted: /);

  const fix = await validateEdit(sandbox, j, { "calc/calc.go": ["a / 3", "a / 2"] });
  assert.equal(fix.result.status, "passed", why(fix));
  assert.deepEqual(fix.result.fixed, ["example.com/q/calc.TestHalf"]);
  assert.deepEqual(fix.result.regressions, []);
});

// --- JUnit 4 ---

const JUNIT_CP = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar";
/** The repository's runner: JUnitCore's run of the classes named, with a JUnit XML report at its end. */
const BUILD = `rm -rf /tmp/af-out && mkdir -p /tmp/af-out && javac -nowarn -d /tmp/af-out -cp ${JUNIT_CP} $(find src tools -name '*.java')`;
const RUN = `java -cp /tmp/af-out:${JUNIT_CP} XmlRunner`;
const junitTest = (cls: string, body: string) =>
  `package shop;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class ${cls} {\n${body}}\n`;
const PRICE = {
  "tools/XmlRunner.java": XML_RUNNER,
  "src/main/java/shop/Price.java":
    "package shop;\n\npublic class Price {\n  public static int half(int p) { return p / 3; }\n}\n",
  "src/test/java/shop/PriceTest.java": junitTest(
    "PriceTest",
    "  @Test public void half() { assertEquals(5, Price.half(10)); }\n  @Test public void zero() { assertEquals(0, Price.half(0)); }\n",
  ),
  ".github/auto-fix.yml": [
    `test: ${BUILD} && ${RUN} shop.PriceTest`,
    'test-reports: ["reports/*.xml"]',
    "validation:",
    "  runner: junit",
    `  command: ${BUILD} && ${RUN} {tests}`,
    "",
  ].join("\n"),
};
const noJava = !has("javac", ["-version"]) && "javac is not installed";

test("JUnit 4: a test class JUnit cannot run, or that does not compile, on both trees could not run", {
  skip: noJava,
}, async () => {
  // JUnit 3-style methods under JUnit 4: "No runnable methods", an initializationError of the class.
  const j = await job(
    {
      ...PRICE,
      "src/test/java/shop/PriceTest.java": junitTest(
        "PriceTest",
        "  public void testHalf() { assertEquals(5, Price.half(10)); }\n",
      ),
    },
    300_000,
  );
  const v = await validateEdit(sandbox, j, { "src/main/java/shop/Price.java": ["p / 3", "p / 2"] });
  assert.equal(v.result.status, "could-not-run", why(v));
  assert.match(
    v.result.summary,
    /^tests could not be run: before the patch, every test module failed to load \(1: shop\.PriceTest\)/,
  );
  assert.deepEqual([...(v.run?.tests ?? [])], [["shop.PriceTest.initializationError", "failed"]]);

  const k = await job(
    {
      ...PRICE,
      "src/test/java/shop/PriceTest.java": junitTest(
        "PriceTest",
        "  @Test public void half() { assertEquals(5, Price.halve(10)); }\n",
      ),
    },
    300_000,
  );
  const w = await validateEdit(sandbox, k, { "src/main/java/shop/Price.java": ["p / 3", "p / 2"] });
  assert.equal(w.result.status, "could-not-run", why(w));
  assert.match(w.result.summary, /^tests could not be run: before the patch, only an exit code/);
});

test("JUnit 4: a patch whose static initializer exits 0 loses the tests that ran before; a real fix is named", {
  skip: noJava,
}, async () => {
  const j = await job(PRICE, 300_000);
  const exit = await validateEdit(sandbox, j, {
    "src/main/java/shop/Price.java": [
      "public class Price {\n",
      "public class Price {\n  static { System.exit(0); }\n",
    ],
  });
  assert.equal(exit.result.status, "regressions", why(exit));
  assert.deepEqual(exit.result.regressions.sort(), [
    "shop.PriceTest.half (no longer runs)",
    "shop.PriceTest.zero (no longer runs)",
  ]);
  assert.equal(exit.run?.exec.exitCode, 0);

  const fix = await validateEdit(sandbox, j, { "src/main/java/shop/Price.java": ["p / 3", "p / 2"] });
  assert.equal(fix.result.status, "passed", why(fix));
  assert.deepEqual(fix.result.fixed, ["shop.PriceTest.half"]);
  assert.deepEqual(fix.result.regressions, []);
});

// --- jest, vitest, mocha ---

for (const [runner, command] of [
  ["jest", "npx jest"],
  ["vitest", "npx vitest run"],
  ["mocha", "npx mocha test/"],
] as const) {
  const esm = runner === "vitest";
  const config = { ".github/auto-fix.yml": `test: ${command}\n` };
  const missing = esm
    ? 'import { pad } from "../src/missing.js";\n'
    : 'const { pad } = require("../src/missing.js");\n';
  const decl = esm ? "export const slug" : "exports.slug";

  test(`${runner}: every test file failing to load, or holding no test, could not run`, async () => {
    for (const broken of [missing, "// no test yet\n"]) {
      const files = Object.fromEntries(
        ["test/slug.test.js", "test/title.test.js", "test/sum.test.js"].map((f) => [f, broken]),
      );
      const j = await job(jsShop(runner, { ...config, ...files }));
      const v = await validateEdit(sandbox, j, {
        "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
      });
      // mocha stops before any test, the canaries' too, when a file cannot load: its runs cannot be
      // told from a runner that was ended, and are reported as not to be trusted. Never a pass either way.
      if (runner === "mocha" && broken === missing) {
        assert.equal(v.result.status, "tampered", why(v));
      } else {
        assert.equal(v.result.status, "could-not-run", why(v));
        assert.match(v.result.summary, /^tests could not be run: before the patch, /);
      }
      assert.deepEqual(v.result.fixed, []);
      assert.ok(
        [...(v.run?.tests?.keys() ?? [])].every((id) => id.endsWith(" > <file>")),
        `${[...(v.run?.tests?.keys() ?? [])]}`,
      );
    }
  });

  test(`${runner}: a patch that ends the process at import loses the tests that ran before; a real fix is named`, async () => {
    const j = await job(jsShop(runner, config));
    const exit = await validateEdit(sandbox, j, { "src/slug.js": [decl, `process.exit(0);\n${decl}`] });
    if (runner === "mocha" || runner === "jest") {
      // mocha: one process, the planted tests lost with the rest; jest: the planted file imports what the
      // test beside it imports and is ended at the same import. The run cannot be trusted.
      assert.equal(exit.result.status, "tampered", why(exit));
    } else {
      assert.equal(exit.result.status, "regressions", why(exit));
      assert.ok(
        exit.result.regressions.includes("test/slug.test.js > slug > one space (no longer runs)"),
        exit.result.regressions.join(", "),
      );
    }
    assert.deepEqual(exit.result.fixed, []);
    const fix = await validateEdit(sandbox, j, {
      "src/slug.js": ['.replace(" ", "-")', '.replaceAll(" ", "-")'],
    });
    assert.equal(fix.result.status, "passed", why(fix));
    assert.deepEqual(fix.result.fixed, ["test/slug.test.js > slug > many words"]);
  });
}

test("JUnit 4: a command that runs no test class and exits 0 could not run: its report names no test", {
  skip: noJava,
}, async () => {
  const repo = writeRepo({
    ...PRICE,
    ".github/auto-fix.yml": `test: ${BUILD} && ${RUN}\ntest-reports: ["reports/*.xml"]\n`,
  });
  const config = loadRepoConfig(repo);
  config.timeouts = { ...config.timeouts, testMs: 300_000 };
  const run = await runTestSuite(sandbox, repo, config);
  assert.ok(run);
  assert.equal(run.exec.exitCode, 0, run.exec.stderr);
  assert.equal(run.parser, "junit-xml");
  const v = compareRuns(run, run);
  assert.equal(v.status, "could-not-run");
  assert.match(
    v.summary,
    /^tests could not be run: before the patch, the runner collected no test \(it exited with code 0\)/,
  );
});
