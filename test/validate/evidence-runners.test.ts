import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { CandidateValidation, TreeStates } from "../../src/validate/index.ts";
import { prepareJob, validateEdit, writeRepo } from "./support/targeted-repo.ts";

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

async function job(files: Record<string, string>, testMs?: number) {
  const j = await prepareJob(sandbox, writeRepo(files), (c) =>
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
  assert.match(
    v.result.summary,
    /^tests could not be run: before the patch, the runner collected no test \(it exited with code 0\)/,
  );
});

test("node --test: a patch that ends the process at import loses the tests that ran before; a real fix is named", async () => {
  const j = await job(SLUG);
  const exit = await validateEdit(sandbox, j, {
    "src/slug.js": ["export const slug", "process.exit(0);\nexport const slug"],
  });
  assert.equal(exit.result.status, "regressions", why(exit));
  // The namesake runs first and shows it; the other file is left out after the regression.
  assert.deepEqual(exit.result.regressions.sort(), [
    "test/slug.test.js > many words (no longer runs)",
    "test/slug.test.js > one space (no longer runs)",
  ]);
  assert.match(exit.result.summary, /after the patch the runner collected no test \(it exited with code 0\)/);
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
  assert.match(
    v.result.summary,
    /^tests could not be run: before the patch, the runner collected no test \(it exited with code 0\)/,
  );
});

test("go test: a patch whose init() exits 0 loses the tests that ran before; a real fix is named", {
  skip: noGo,
}, async () => {
  const j = await job(CALC, 300_000);
  const exit = await validateEdit(sandbox, j, {
    "calc/calc.go": ["package calc\n", 'package calc\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n'],
  });
  assert.equal(exit.result.status, "regressions", why(exit));
  assert.deepEqual(exit.result.regressions.sort(), [
    "example.com/q/calc.TestAdd (no longer runs)",
    "example.com/q/calc.TestHalf (no longer runs)",
  ]);
  assert.match(exit.result.summary, /after the patch the runner collected no test \(it exited with code 0\)/);

  const fix = await validateEdit(sandbox, j, { "calc/calc.go": ["a / 3", "a / 2"] });
  assert.equal(fix.result.status, "passed", why(fix));
  assert.deepEqual(fix.result.fixed, ["example.com/q/calc.TestHalf"]);
  assert.deepEqual(fix.result.regressions, []);
});
