/**
 * Issue 12, class 7 (faked success): a patch that changes how tests are selected or run is refused with
 * a message the model can act on, and validation runs the unpatched tree's test configuration, so a
 * deselected failing test still fails. Real pytest in the real bubblewrap sandbox.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { computePatch, createDiskRepo } from "../../src/patch/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { sandboxChecks } from "../../src/strategies/tree/sandbox-checks.ts";
import { TreeStates } from "../../src/validate/tree-states.ts";
import { validatePatched } from "../../src/validate/validate.ts";

let sandbox: SandboxPort;
const dirs: string[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const PYPROJECT = `[project]
name = "calc"
version = "0.1.0"
dependencies = []

[tool.pytest.ini_options]
testpaths = ["tests"]
`;

/** A pytest project whose `add` is wrong: test_add fails, test_sub passes. */
function calcRepo(): string {
  const root = mkdtempSync(join(tmpdir(), "af-testcfg-"));
  dirs.push(root);
  const files: Record<string, string> = {
    "calc.py": "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
    "pyproject.toml": PYPROJECT,
    "tests/test_calc.py":
      "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

const edit = (file: string, original: string, patched: string, isNew = false) =>
  `<file${isNew ? ' new="true"' : ""}>${file}</file>\n<original>\n${original}\n</original>\n<patched>\n${patched}\n</patched>\n`;

test("patches that deselect the failing test are refused, with a message the model can act on", async () => {
  const repo = calcRepo();
  fsWrite(repo, "setup.cfg", "[metadata]\nname = calc\n\n[tool:pytest]\naddopts = -q\n");
  fsWrite(repo, "package.json", JSON.stringify({ name: "calc", scripts: { test: "pytest" } }, null, 2));
  const attacks: [string, string][] = [
    [
      "pyproject addopts",
      edit(
        "pyproject.toml",
        'testpaths = ["tests"]',
        'testpaths = ["tests"]\naddopts = "--deselect tests/test_calc.py::test_add"',
      ),
    ],
    ["a new pytest.ini", edit("pytest.ini", "", "[pytest]\naddopts = -k 'not test_add'", true)],
    ["a new conftest.py", edit("conftest.py", "", "collect_ignore = ['tests']", true)],
    ["setup.cfg [tool:pytest]", edit("setup.cfg", "addopts = -q", "addopts = -q -k 'not add'")],
    ["package.json scripts", edit("package.json", '"test": "pytest"', '"test": "true"')],
    ["a new tox.ini", edit("tox.ini", "", "[pytest]\naddopts = -p no:python", true)],
  ];
  for (const [name, answer] of attacks) {
    // The fix itself comes along, so only the test configuration stands between it and "applies".
    const r = await computePatch(
      createDiskRepo(repo),
      `${edit("calc.py", "def add(a, b):\n    return a - b", "def add(a, b):\n    return a + b")}${answer}`,
    );
    assert.equal(r.status, "RAW_PATCH_BUT_UNSAFE_PATH", `${name}: ${r.feedback}`);
    assert.match(r.feedback, /test/i, name);
    assert.match(r.feedback, /Fix the code under test instead|Change the code under test instead/, name);
    assert.equal(r.diff, "", name);
  }
  // A change to a sectioned file that leaves its test part alone still applies.
  const ok = await computePatch(
    createDiskRepo(repo),
    edit("pyproject.toml", 'version = "0.1.0"', 'version = "0.1.1"'),
  );
  assert.equal(ok.status, "APPLICABLE_PATCH", ok.feedback);
});

test("validation runs the unpatched tree's test configuration: a deselected failing test still fails", {
  timeout: 300_000,
}, async () => {
  const repo = calcRepo();
  const config = loadRepoConfig(repo);
  assert.equal(config.test.framework, "pytest");
  const states = await TreeStates.prepare({ sandbox, config, source: repo });
  try {
    const baseline = await states.baseline();
    assert.ok(baseline);
    assert.equal(baseline.failed, 1);
    // A diff that reached validation without the engine's check: it deselects the failing test.
    const diff = [
      "diff --git a/pytest.ini b/pytest.ini",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/pytest.ini",
      "@@ -0,0 +1,2 @@",
      "+[pytest]",
      "+addopts = --deselect tests/test_calc.py::test_add",
      "",
    ].join("\n");
    // Without the unpatched configuration the attack deselects the failing test: it no longer runs, which
    // is itself a regression now (every test that ran before must run after).
    const naive = await states.patched(diff);
    const faked = await validatePatched(sandbox, naive.dir, config, baseline);
    assert.equal(
      faked.result.status,
      "regressions",
      "the attack must be real for this test to mean anything",
    );
    assert.deepEqual(faked.result.regressions, ["tests/test_calc.py::test_add (no longer runs)"]);
    // With it, test_add still runs and still fails, and the summary says what was put back.
    const copy = await states.patched(diff);
    const v = await validatePatched(sandbox, copy.dir, config, baseline, undefined, states.pristineDir);
    assert.notEqual(v.result.status, "passed", v.result.summary);
    assert.equal(v.run?.failed, 1);
    assert.equal(v.run?.tests?.get("tests/test_calc.py::test_add"), "failed");
    assert.deepEqual(v.run?.restored, ["pytest.ini"]);
    assert.match(v.result.summary, /put back as the unpatched tree has it.*pytest\.ini/);
  } finally {
    await states.dispose();
  }
});

test("the tree search's shared work tree: configuration planted between candidates is put back", {
  timeout: 300_000,
}, async () => {
  const repo = calcRepo();
  const config = loadRepoConfig(repo);
  const work = mkdtempSync(join(tmpdir(), "af-testcfg-work-"));
  dirs.push(work);
  execFileSync("cp", ["-a", `${repo}/.`, work]);
  const plant = async () => {
    // Sandboxed code run in the shared tree (a candidate's run) deselects the failing test, once as a
    // file and once as a link to a file it controls.
    const r = await sandbox.run({
      workdir: work,
      command:
        "printf '[pytest]\\naddopts = --deselect tests/test_calc.py::test_add\\n' > /tmp/p.ini && cp /tmp/p.ini evil.ini && ln -sf evil.ini pytest.ini",
      timeoutMs: 10_000,
    });
    assert.equal(r.exitCode, 0, r.stderr);
  };
  for (const pristine of [undefined, repo]) {
    const checks = sandboxChecks({ sandbox, config, reproducer: null, ...(pristine ? { pristine } : {}) });
    rmSync(join(work, "pytest.ini"), { force: true });
    const evidence = await checks.baseline(work);
    assert.match(evidence.failure, /1 failed/);
    await plant();
    const result = await checks.run(work);
    // With the unpatched configuration the test runs and fails; without it, it no longer runs: a
    // regression either way, never a pass.
    assert.equal(result.outcome, "failed", JSON.stringify(result));
    if (!pristine) assert.match(JSON.stringify(result), /no longer runs/);
  }
});

function fsWrite(root: string, rel: string, text: string): void {
  writeFileSync(join(root, rel), text);
}

test("test configuration spelled as its readers allow, or in a file pytest 9, vitest or npm reads, is refused", async () => {
  const repo = calcRepo();
  fsWrite(repo, "setup.cfg", "[metadata]\nname = calc\n\n[tool:pytest]\nmarkers =\n    slow: slow tests\n");
  const attacks: [string, string][] = [
    // pytest 9 reads pytest.toml before any other file.
    ["a new pytest.toml", edit("pytest.toml", "", '[pytest]\naddopts = ["-k", "not test_add"]', true)],
    ["a new .pytest.toml", edit(".pytest.toml", "", '[pytest]\naddopts = ["-k", "not test_add"]', true)],
    // The same table as `[tool.pytest.ini_options]`, spelled with TOML's escapes and spaces.
    [
      "pyproject table with escapes",
      edit(
        "pyproject.toml",
        "dependencies = []",
        'dependencies = []\n\n[tool . "\\u0070ytest" . ini_options]\n"\\u0061ddopts" = "-k \'not test_add\'"',
      ),
    ],
    [
      "pyproject dotted keys",
      edit(
        "pyproject.toml",
        "dependencies = []",
        'dependencies = []\n\n[tool]\n"py\\u0074est".ini_options = { "norecursedirs" = ["tests"] }',
      ),
    ],
    // A plugin registered by the project itself is loaded into every pytest run.
    [
      "pyproject pytest11 entry point",
      edit(
        "pyproject.toml",
        "dependencies = []",
        'dependencies = []\n\n[project.entry-points."pytest11"]\nfake = "calc"',
      ),
    ],
    // An indented header is part of the value above for pytest, so the option below still belongs to it.
    [
      "setup.cfg indented header",
      edit(
        "setup.cfg",
        "    slow: slow tests",
        "    slow: slow tests\n    [metadata]\nnorecursedirs = tests",
      ),
    ],
    [
      "vite.config.ts test settings",
      edit("vite.config.ts", "", "export default { test: { exclude: ['**'] } };", true),
    ],
    ["an .npmrc script-shell", edit(".npmrc", "", "script-shell=/bin/true", true)],
    ["a sitecustomize.py", edit("sitecustomize.py", "", "import sys", true)],
  ];
  for (const [name, answer] of attacks) {
    const r = await computePatch(
      createDiskRepo(repo),
      `${edit("calc.py", "def add(a, b):\n    return a - b", "def add(a, b):\n    return a + b")}${answer}`,
    );
    assert.equal(r.status, "RAW_PATCH_BUT_UNSAFE_PATH", `${name}: ${r.feedback}`);
    assert.match(r.feedback, /test configuration is part of the tests/, name);
  }
  // pyproject.toml changes outside the test tables, even with TOML's odd spellings, still apply.
  const ok = await computePatch(
    createDiskRepo(repo),
    edit("pyproject.toml", 'version = "0.1.0"', 'version = "0.1.1"\n[tool . "black"]\nline-length = 100'),
  );
  assert.equal(ok.status, "APPLICABLE_PATCH", ok.feedback);
});

test("validation removes a planted pytest.toml and puts back a pyproject.toml whose test table was respelled", {
  timeout: 300_000,
}, async () => {
  const repo = calcRepo();
  const config = loadRepoConfig(repo);
  const states = await TreeStates.prepare({ sandbox, config, source: repo });
  try {
    const baseline = await states.baseline();
    assert.equal(baseline?.failed, 1);
    const newFile = (path: string, lines: string[]) =>
      [
        `diff --git a/${path} b/${path}`,
        "new file mode 100644",
        "--- /dev/null",
        `+++ b/${path}`,
        `@@ -0,0 +1,${lines.length} @@`,
        ...lines.map((l) => `+${l}`),
        "",
      ].join("\n");
    const respelled = PYPROJECT.replace(
      "[tool.pytest.ini_options]",
      '[tool . "\\u0070ytest" . ini_options]\n"\\u0061ddopts" = "--deselect tests/test_calc.py::test_add"',
    );
    const pyDiff = [
      "diff --git a/pyproject.toml b/pyproject.toml",
      "--- a/pyproject.toml",
      "+++ b/pyproject.toml",
      `@@ -1,${PYPROJECT.trimEnd().split("\n").length} +1,${respelled.trimEnd().split("\n").length} @@`,
      ...PYPROJECT.trimEnd()
        .split("\n")
        .map((l) => `-${l}`),
      ...respelled
        .trimEnd()
        .split("\n")
        .map((l) => `+${l}`),
      "",
    ].join("\n");
    const cases: [string, string, string][] = [
      [
        "pytest.toml",
        newFile("pytest.toml", ["[pytest]", 'addopts = ["--deselect", "tests/test_calc.py::test_add"]']),
        "pytest.toml",
      ],
      ["respelled pyproject.toml", pyDiff, "pyproject.toml"],
    ];
    for (const [name, diff, restored] of cases) {
      const naive = await states.patched(diff);
      const faked = await validatePatched(sandbox, naive.dir, config, baseline);
      assert.equal(
        faked.result.status,
        "regressions",
        `${name}: the attack must be real for this test to mean anything`,
      );
      assert.deepEqual(faked.result.regressions, ["tests/test_calc.py::test_add (no longer runs)"], name);
      const copy = await states.patched(diff);
      const v = await validatePatched(sandbox, copy.dir, config, baseline, undefined, states.pristineDir);
      assert.equal(v.run?.tests?.get("tests/test_calc.py::test_add"), "failed", name);
      assert.deepEqual(v.run?.restored, [restored], name);
    }
  } finally {
    await states.dispose();
  }
});

test("the tree search: a reproducer that rewrites the tests cannot hide a regression", {
  timeout: 300_000,
}, async () => {
  const repo = calcRepo();
  const config = loadRepoConfig(repo);
  const work = mkdtempSync(join(tmpdir(), "af-testcfg-work-"));
  dirs.push(work);
  execFileSync("cp", ["-a", `${repo}/.`, work]);
  // The model's reproducer "passes" and, on the way, replaces the tests with ones that always pass.
  const reproducer = {
    file: "reproducer.py",
    content: [
      "import pathlib",
      "pathlib.Path('tests/test_calc.py').write_text('def test_add():\\n    pass\\n\\n\\ndef test_sub():\\n    pass\\n')",
      "",
    ].join("\n"),
    command: "python3 reproducer.py",
    timeoutMs: 30_000,
  };
  const checks = sandboxChecks({ sandbox, config, reproducer, pristine: repo });
  const evidence = await checks.baseline(work);
  assert.match(evidence.failure, /1 failed/, "the baseline still sees the failing test");
  // A candidate that fixes add and breaks sub: test_sub passed before and fails now.
  writeFileSync(
    join(work, "calc.py"),
    "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n",
  );
  const result = await checks.run(work);
  assert.equal(result.outcome, "failed", JSON.stringify(result));
  assert.equal(result.tests?.passed, false);
  assert.match(
    result.outcome === "failed" ? result.failure : "",
    /Passed before the patch, fail now: .*test_sub/,
  );
  assert.match(readFileSync(join(work, "tests/test_calc.py"), "utf8"), /assert add\(2, 3\) == 5/);
  assert.equal(existsSync(join(work, "reproducer.py")), false, "the reproducer ran in a copy of its own");
});
