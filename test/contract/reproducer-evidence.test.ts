/**
 * When the reproducer, the model's own script, can back "fixed": a failed assertion as the runtime
 * reported it, runs traced through the lines the patch replaces and writes, and (in the rule) related
 * repository tests that load the patched code.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type EvidenceFacts, judgeEvidence, loadingTests } from "../../src/contract/fix-evidence.ts";
import { patchLines, reproducerEvidence } from "../../src/contract/reproducer-evidence.ts";
import type { ScriptEnding } from "../../src/sandbox/script-run.ts";

const DIFF = [
  "--- a/calc/ops.py",
  "+++ b/calc/ops.py",
  "@@ -1,6 +1,6 @@",
  " def add(a, b):",
  "-    return a - b",
  "+    return a + b",
  " ",
  " ",
  " def double(x):",
  "     return x * 2",
  "",
].join("\n");

const INSERT = [
  "--- a/calc/ops.py",
  "+++ b/calc/ops.py",
  "@@ -2,4 +2,8 @@",
  "     return a - b",
  " ",
  " ",
  "+def helper():",
  "+    return 42",
  "+",
  "+",
  " def double(x):",
  "     return x * 2",
  "",
].join("\n");

test("the lines a patch replaces and writes: a replacement, a pure insertion (the next line stands for it)", () => {
  const r = patchLines(DIFF);
  assert.deepEqual([...r.old], [["calc/ops.py", [2]]]);
  assert.deepEqual([...r.new], [["calc/ops.py", [2]]]);
  const i = patchLines(INSERT);
  assert.deepEqual([...i.old], [["calc/ops.py", [5]]]);
  assert.deepEqual([...i.new], [["calc/ops.py", [5, 6, 7, 8]]]);
  // A second hunk's new-side numbers move by what the first added.
  const two = `${INSERT}@@ -20,2 +24,2 @@\n-    x = 1\n+    x = 2\n     return x\n`;
  assert.deepEqual(patchLines(two).new.get("calc/ops.py"), [5, 6, 7, 8, 24]);
  assert.deepEqual(patchLines(two).old.get("calc/ops.py"), [5, 20]);
});

const failed = (over: Partial<ScriptEnding> = {}): ScriptEnding => ({
  how: "exception",
  type: "AssertionError",
  message: "expected 5, got -1",
  assertion: true,
  chain: [],
  line: null,
  ...over,
});
const passed: ScriptEnding = {
  how: "exit",
  type: null,
  message: "",
  assertion: false,
  chain: [],
  line: null,
};
const SCRIPT = "from calc.ops import add\nassert add(2, 3) == 5\n";

test("an assertion through the replaced line before and the written line after backs fixed", () => {
  const ev = reproducerEvidence({
    before: { ending: failed(), trace: { "calc/ops.py": [2] } },
    after: { ending: passed, trace: { "calc/ops.py": [2] } },
    diff: DIFF,
    script: SCRIPT,
  });
  assert.equal(ev.backs_fix, true, ev.detail);
  assert.match(ev.detail, /failed by AssertionError: expected 5, got -1 before the patch/);
  assert.deepEqual(ev.runs_patch, {
    before: true,
    after: true,
    lines: ["calc/ops.py:2 (before)", "calc/ops.py:2 (after)"],
  });
});

test("what cannot back fixed, each saying why", () => {
  const judge = (
    before: ScriptEnding,
    bt: Record<string, number[]> | null,
    at: Record<string, number[]> | null,
    script = SCRIPT,
    diff = DIFF,
  ) =>
    reproducerEvidence({
      before: { ending: before, trace: bt },
      after: { ending: passed, trace: at },
      diff,
      script,
    });
  const ok = { "calc/ops.py": [2] };
  const cases: [ReturnType<typeof judge>, RegExp][] = [
    [
      judge(failed({ type: "NameError", assertion: false, message: "name 'helper' is not defined" }), ok, ok),
      /was NameError: name 'helper' is not defined, not a failed assertion/,
    ],
    [
      judge(failed({ how: "does-not-import", type: "ImportError", assertion: false }), ok, ok),
      /the script does not import \(ImportError/,
    ],
    [
      judge(
        failed({ type: "TypeError", assertion: false, message: "calc.helper is not a function" }),
        ok,
        ok,
      ),
      /not a failed assertion/,
    ],
    [judge(failed({ chain: ["ModuleNotFoundError"] }), ok, ok), /raised while handling ModuleNotFoundError/],
    [judge(failed({ type: "__main__.AssertionError", assertion: false }), ok, ok), /not a failed assertion/],
    [judge(failed(), null, null), /cannot be traced/],
    [
      judge(failed(), { "calc/ops.py": [5] }, ok),
      /never ran the lines the patch replaces \(calc\/ops\.py:2 \(before\)\)/,
    ],
    [
      judge(failed(), ok, { "calc/other.py": [2] }),
      /never ran the lines the patch writes \(calc\/ops\.py:2 \(after\)\)/,
    ],
    [
      judge(failed(), ok, ok, "import sys\nsys.settrace(None)\n"),
      /looks at the process it runs in \(`settrace`\)/,
    ],
    [
      judge(failed(), ok, ok, "open('/proc/self/cmdline').read()\n"),
      /looks at the process it runs in \(`\/proc\/`\)/,
    ],
  ];
  for (const [ev, why] of cases) {
    assert.equal(ev.backs_fix, false, ev.detail);
    assert.match(ev.detail, why);
  }
  // An unused function: the next line after the insertion (a def, which runs only on import) never ran.
  const unused = judge(failed(), { "calc/ops.py": [2] }, { "calc/ops.py": [6] }, SCRIPT, INSERT);
  assert.equal(unused.backs_fix, false);
  assert.match(unused.detail, /never ran the lines the patch replaces \(calc\/ops\.py:5 \(before\)\)/);
});

const facts = (over: Partial<EvidenceFacts>): EvidenceFacts => ({
  codeChanged: true,
  reviewApproved: true,
  reproducerFixed: true,
  validationStatus: "passed",
  testsShowFix: false,
  testsFixed: [],
  stillFailingRelated: [],
  related: 1,
  reproducerBacks: { backs_fix: true, detail: "ok" },
  loading: 1,
  ...over,
});

test("the rule: a repository test that shows the fix, or the traced reproducer with tests that load the code", () => {
  assert.equal(judgeEvidence(facts({})).fixed, true);
  const byTest = judgeEvidence(
    facts({
      testsShowFix: true,
      testsFixed: ["t"],
      reproducerBacks: { backs_fix: false, detail: "x" },
      loading: 0,
    }),
  );
  assert.equal(byTest.fixed, true);
  assert.match(
    byTest.restsOn ?? "",
    /^the repository's tests: t failed before the patch and passes after it; the reproducer, which failed before/,
  );
  const cannot = judgeEvidence(
    facts({ reproducerBacks: { backs_fix: false, detail: "its run was not traced" } }),
  );
  assert.equal(cannot.fixed, false);
  assert.equal(
    cannot.notFixed,
    'shown only by the reproducer, which the model wrote, and it cannot back "fixed": its run was not traced',
  );
  assert.equal(judgeEvidence(facts({ reproducerBacks: undefined })).fixed, false, "not judged: cannot back");
  assert.match(
    judgeEvidence(facts({ loading: undefined })).notFixed ?? "",
    /which of the repository's tests load this code cannot be told \(the tests that ran were not told apart: the test command names no runner auto-fix knows\)$/,
  );
  for (const [over, tail] of [
    [{ loading: 0 }, ""],
    [{ validationStatus: undefined, loading: undefined }, " (the repository has no test command)"],
    [{ validationStatus: "no-tests", loading: 0 }, " (the repository has no test that runs for it)"],
  ] as const) {
    const v = judgeEvidence(facts(over));
    assert.equal(v.fixed, false);
    assert.equal(
      v.notFixed,
      `shown only by the reproducer, which the model wrote; no test of the repository loads this code${tail}`,
    );
  }
});

test("tests that load the patched code: those that import it (and for Go, its package's), that ran", () => {
  const sel = (runner: string | null, ...s: { reasons: string[]; run?: string }[]) => ({
    runner,
    selected: s,
  });
  assert.equal(loadingTests(undefined), undefined);
  assert.equal(loadingTests(sel(null)), undefined, "no runner: cannot be told");
  assert.equal(
    loadingTests(
      sel(
        "pytest",
        { reasons: ["imports a changed module"] },
        { reasons: ["imports a changed module"], run: "over-budget" },
        { reasons: ["named after a changed module"] },
        { reasons: ["named by the reproducer"] },
        { reasons: ["in a changed package"] },
      ),
    ),
    1,
  );
  assert.equal(loadingTests(sel("go", { reasons: ["in a changed package"], run: "ran" })), 1);
});
