/**
 * The related tests share the budget so that no file holds the others' verdicts hostage: quick files
 * beside a file that hangs, a file whose tests need the network (networking is off in the sandbox) and a
 * slow file all get a verdict; the hanging file could not be judged (timed out before the patch) and the
 * network-bound one needs the network, neither run after the patch. Real pytest in the real sandbox; the
 * hang sleeps far past every limit, so no assertion depends on the machine's speed.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TestsRanSchema } from "../../src/contract/result.ts";
import { testsRunLines } from "../../src/report/test-names.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import type { TreeStates } from "../../src/validate/index.ts";
import { networkBound } from "../../src/validate/network.ts";
import { FIRST_BATCH_ALLOWANCE } from "../../src/validate/related-runs.ts";
import { fileAllowanceMs } from "../../src/validate/schedule.ts";
import { prepareJob, ranIds, runs, validateEdit, writeRepo } from "./support/targeted-repo.ts";

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

/** Long enough for many sandboxed pytest starts on a loaded 2-core machine; its quarter is 30 s. */
const BUDGET_S = 120;
const quick = (name: string, call: string, want: string) =>
  `from pkg.util import clamp\n\ndef test_${name}():\n    assert ${call} == ${want}\n`;

const REPO = {
  "pytest.ini": "[pytest]\n",
  "pkg/__init__.py": "",
  "pkg/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
  "tests/__init__.py": "",
  // In name order (the rank's tie-break), the hanging file comes first: it must not starve the rest.
  "tests/test_hang.py":
    "import time\nfrom pkg.util import clamp\n\ndef test_waits():\n    time.sleep(900)\n    assert clamp(1, 0, 3) == 1\n",
  "tests/test_net.py":
    'import socket\nimport urllib.request\nfrom pkg.util import clamp\n\ndef test_download():\n    urllib.request.urlopen("http://example.com/feed.json", timeout=5)\n    assert clamp(1, 0, 3) == 1\n\ndef test_resolve():\n    socket.getaddrinfo("pypi.org", 443)\n',
  "tests/test_quick_a.py": quick("high", "clamp(5, 0, 3)", "3"),
  "tests/test_quick_b.py": quick("low", "clamp(-1, 0, 3)", "0"),
  "tests/test_quick_c.py": quick("mid", "clamp(2, 0, 3)", "2"),
  "tests/test_slow.py":
    "import time\nfrom pkg.util import clamp\n\ndef test_slowly():\n    time.sleep(3)\n    assert clamp(9, 0, 3) == 3\n",
  ".github/auto-fix.yml": `validation:\n  related-budget: ${BUDGET_S}\n  budget: 0\n`,
};
const JUDGED = [
  "tests/test_quick_a.py",
  "tests/test_quick_b.py",
  "tests/test_quick_c.py",
  "tests/test_slow.py",
];

test("a hanging file and a network-bound file hold no other file's verdict: each file gets its own verdict, said in plain words", async () => {
  const job = await prepareJob(sandbox, writeRepo(REPO));
  jobs.push(job.states);
  const budgetMs = BUDGET_S * 1000;
  assert.equal(fileAllowanceMs(budgetMs, 10_000), 30_000);

  const ok = await validateEdit(sandbox, job, { "pkg/util.py": ["max(lo", "max( lo"] });
  const verdicts = runs(ok);
  assert.deepEqual(verdicts, {
    "tests/test_quick_a.py": "ran",
    "tests/test_quick_b.py": "ran",
    "tests/test_quick_c.py": "ran",
    "tests/test_slow.py": "ran",
    "tests/test_hang.py": "unpatched-too-slow",
    "tests/test_net.py": "needs-network",
  });
  // Every quick file and the slow one were judged on both trees; the patch keeps them green.
  assert.equal(ok.result.status, "passed", ok.result.summary);
  assert.deepEqual(ok.result.regressions, []);
  assert.deepEqual(ok.result.stillFailing ?? [], [], "a network failure is not a test that still fails");
  for (const t of JUDGED)
    assert.ok(
      ranIds(ok).some((id) => id.startsWith(`${t}::`)),
      `${t}: ${ranIds(ok)}`,
    );
  assert.ok(!ranIds(ok).some((id) => id.startsWith("tests/test_hang.py")), "the hanging file is not judged");
  assert.ok(!ranIds(ok).some((id) => id.startsWith("tests/test_net.py")), "the network file is not judged");
  // The job knows why: the network error seen before the patch, and how long the hang ran at least.
  assert.match(
    job.states.tests.network.get("tests/test_net.py") ?? "",
    /urlopen error|gaierror|name resolution/i,
  );
  assert.ok((job.states.tests.timedOut.get("tests/test_hang.py") ?? 0) >= 10_000);
  // No file is over the budget: the run ended within it (the first batch may take 1.25× it, plus copies).
  const tests = TestsRanSchema.parse(ok.result.tests);
  assert.ok(!tests.selected.some((s) => s.run === "over-budget"));
  assert.ok((tests.durationMs ?? 0) < budgetMs * FIRST_BATCH_ALLOWANCE + 15_000, String(tests.durationMs));

  // The report says, per file, what ran and why, in plain words: never a pass for the two not judged.
  const lines = testsRunLines(ok.result).join("\n");
  assert.match(
    lines,
    /- `tests\/test_quick_a\.py`: imports a changed module.* — ran before and after the patch/,
  );
  assert.match(
    lines,
    /- `tests\/test_hang\.py`: .* — could not be judged here \(timed out before the patch\), not run after it \(its run on the unpatched tree was stopped at its own limit after [\d.]+ s, not finished\)/,
  );
  assert.match(
    lines,
    /- `tests\/test_net\.py`: .* — needs the network \(not judged here\): its tests failed before the patch with networking off \([^`\n]*(urlopen error|gaierror|name resolution)[^`\n]*\)/i,
  );
  const notRun = tests.notRun ?? "";
  assert.match(
    notRun,
    /tests\/test_hang\.py \(1 related test, could not be judged here \(timed out before the patch\)/,
  );
  assert.match(notRun, /tests\/test_net\.py \(1 related test, needs the network \(not judged here\)/);
  assert.doesNotMatch(notRun, /over the .* budget/);

  // A second candidate of the job runs neither again (no unpatched run at all: every time is known),
  // the cheap files before the slow one, and catches a regression in a quick file.
  const runsBefore = job.states.tests.runCount;
  const bad = await validateEdit(sandbox, job, { "pkg/util.py": ["max(lo, min(x, hi))", "min(x, hi)"] });
  assert.equal(
    job.states.tests.runCount,
    runsBefore,
    "no unpatched run: the hang and the network file are not retried",
  );
  assert.equal(bad.result.status, "regressions");
  assert.deepEqual(bad.result.regressions, ["tests/test_quick_b.py::test_low"]);
  const again = runs(bad);
  assert.equal(again["tests/test_hang.py"], "unpatched-too-slow");
  assert.equal(again["tests/test_net.py"], "needs-network");
  const order = Object.keys(again);
  assert.ok(order.indexOf("tests/test_quick_c.py") < order.indexOf("tests/test_slow.py"), order.join(" "));
  assert.doesNotMatch(bad.result.tests?.command ?? "", /test_hang|test_net/);
});

test("network failures are told from the unpatched run's output, per test, and only when nothing of the file passed", () => {
  const run = (stdout: string, tests: Record<string, "passed" | "failed">) => ({
    command: "pytest",
    exec: {
      exitCode: 1,
      signal: null,
      stdout,
      stderr: "",
      truncated: false,
      limit: null,
      durationMs: 10,
      backend: "none" as const,
    },
    tests: new Map(Object.entries(tests)),
    parser: "pytest",
    passed: 0,
    failed: 1,
    skipped: 0,
  });
  const owner = (id: string) => id.split("::")[0] ?? null;
  const out = [
    "____ test_get ____",
    "E   requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded",
    "____ test_math ____",
    "E   assert 2 == 3",
    "____ test_dns ____",
    "E   socket.gaierror: [Errno -3] Temporary failure in name resolution",
    "FAILED tests/test_api.py::test_get - requests.exceptions.ConnectionError: HTTPSConn...",
    "FAILED tests/test_calc.py::test_math - assert 2 == 3",
    "FAILED tests/test_dns.py::test_dns - socket.gaierror: [Errno -3] Temporary fa...",
  ].join("\n");
  const found = networkBound(
    run(out, {
      "tests/test_api.py::test_get": "failed",
      "tests/test_calc.py::test_math": "failed",
      "tests/test_dns.py::test_dns": "failed",
    }),
    ["tests/test_api.py", "tests/test_calc.py", "tests/test_dns.py"],
    owner,
  );
  assert.deepEqual([...found.keys()].sort(), ["tests/test_api.py", "tests/test_dns.py"]);
  assert.match(found.get("tests/test_api.py") ?? "", /ConnectionError/);
  // An ordinary failure is a failure; a file with a test that passed is judged by that test.
  const mixed = networkBound(
    run(out, { "tests/test_api.py::test_get": "failed", "tests/test_api.py::test_ok": "passed" }),
    ["tests/test_api.py"],
    owner,
  );
  assert.equal(mixed.size, 0);
  // Node's words, for a file run alone.
  const node = networkBound(
    {
      ...run("Error: getaddrinfo ENOTFOUND registry.npmjs.org\n", {
        "test/fetch.test.js > fetches": "failed",
      }),
    },
    ["test/fetch.test.js"],
    () => "test/fetch.test.js",
  );
  assert.match(node.get("test/fetch.test.js") ?? "", /ENOTFOUND/);
  // No network error in the output: nothing is set aside.
  assert.equal(networkBound(run("E   assert 1 == 2\n", { "a.py::t": "failed" }), ["a.py"], owner).size, 0);
});

test("the rest of the suite is not run when it holds a related file that did not finish before the patch: it would wait on the same hang", async () => {
  const repo = {
    ...REPO,
    // A test of the suite that no change relates to: the rest of the suite, which fits a large budget.
    "tests/test_other.py": "def test_words():\n    assert 'a b'.split() == ['a', 'b']\n",
    ".github/auto-fix.yml": `validation:\n  related-budget: ${BUDGET_S}\n  budget: 3000\n`,
  };
  const job = await prepareJob(sandbox, writeRepo(repo));
  jobs.push(job.states);
  const ok = await validateEdit(sandbox, job, { "pkg/util.py": ["max(lo", "max( lo"] });
  assert.equal(runs(ok)["tests/test_hang.py"], "unpatched-too-slow");
  assert.equal(ok.result.status, "passed", ok.result.summary);
  const tests = TestsRanSchema.parse(ok.result.tests);
  assert.equal(tests.kind, "targeted", "the whole suite did not run");
  assert.match(
    tests.notRun ?? "",
    /the other 1 test of the suite: not run, it holds tests\/test_hang\.py, which did not finish on the unpatched tree within its own limit/,
  );
  assert.ok(
    !ranIds(ok).some((id) => id.startsWith("tests/test_other.py")),
    "the rest of the suite did not run",
  );
});
