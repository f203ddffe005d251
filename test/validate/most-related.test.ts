/**
 * The test file ranked most related is never left out for its own length: measured longer than the
 * budget for related tests, it still runs (first, with its own limit), and the fix it shows is fixed.
 * Real pytest in the real sandbox.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { mostRelatedLimitMs, type TreeStates } from "../../src/validate/index.ts";
import { prepareJob, runs, validateEdit, writeRepo } from "./support/targeted-repo.ts";

let sandbox: SandboxPort;
const jobs: TreeStates[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const s of jobs) await s.dispose();
});

const BUDGET_S = 6;
const SLEEP_S = 7;

test("the most related test file runs although its own time is over the related budget", async () => {
  assert.ok(
    mostRelatedLimitMs(BUDGET_S * 1000) >= SLEEP_S * 1000 + 4000,
    "the limit leaves room for the run",
  );
  const repo = writeRepo({
    "pytest.ini": "[pytest]\n",
    "pkg/__init__.py": "",
    "pkg/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, lo))\n",
    "pkg/other.py": "from pkg.util import clamp\n\ndef half(x):\n    return clamp(x, 0, 10) / 2\n",
    "tests/__init__.py": "",
    // Named after the change: ranked first. It takes longer than the budget.
    "tests/test_util.py": `import time\nfrom pkg.util import clamp\n\ndef test_inside():\n    time.sleep(${SLEEP_S})\n    assert clamp(5, 0, 10) == 5\n\ndef test_low():\n    assert clamp(-1, 0, 10) == 0\n`,
    "tests/test_other.py": "from pkg.other import half\n\ndef test_half():\n    assert half(-4) == 0\n",
    ".github/auto-fix.yml": `validation:\n  related-budget: ${BUDGET_S}\n  budget: 0\n`,
  });
  const job = await prepareJob(sandbox, repo);
  jobs.push(job.states);
  // A first candidate with room for everything: the job measures test_util's time (over the budget).
  const roomy = {
    states: job.states,
    config: { ...job.config, validation: { ...job.config.validation, relatedBudgetMs: 600_000 } },
  };
  const first = await validateEdit(sandbox, roomy, { "pkg/util.py": ["max(lo", "max( lo"] });
  assert.equal(first.result.status, "no-regressions", JSON.stringify(first.result));
  assert.ok((job.states.tests.times.measured("tests/test_util.py") ?? 0) > BUDGET_S * 1000);

  // The honest one-line fix within the small budget: test_util runs and names the fixed test.
  const fix = await validateEdit(sandbox, job, { "pkg/util.py": ["min(x, lo)", "min(x, hi)"] });
  assert.equal(runs(fix)["tests/test_util.py"], "ran", JSON.stringify(fix.result.tests));
  assert.deepEqual(fix.result.fixed, ["tests/test_util.py::test_inside"]);
});
