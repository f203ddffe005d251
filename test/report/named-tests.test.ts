import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FixResultSchema } from "../../src/contract/result.ts";
import { renderPullBody } from "../../src/github/render/pr-body.ts";
import { main } from "../../src/cli/main.ts";
import { codeSpan, testsRunLines } from "../../src/report/test-names.ts";
import { liveEffects } from "../support/github-markdown.ts";
import { agentScript, patchAnswer, searchSays } from "../support/agent-script.ts";
import { FIX_FIXTURES, tmp } from "../support/fix-harness.ts";
import { startScriptedModel } from "../support/scripted-model.ts";

// A real run (scripted model, real sandbox, the repository's own tests) whose patch fixes 14 tests and
// breaks one that pinned the buggy value: report.md and the pull request body name them.
const FIXED = 14;

function meanTests(): string {
  const cases = Array.from(
    { length: FIXED },
    (_, i) =>
      `    def test_mean_${String(i).padStart(2, "0")}(self):\n        self.assertEqual(mean([${i}, ${i + 2}, ${i + 4}]), ${i + 2})\n`,
  );
  return `import unittest\n\nfrom stats.summary import mean\n\n\nclass MeanTest(unittest.TestCase):\n${cases.join("\n")}\n    def test_pinned_old_value(self):\n        self.assertEqual(mean([2, 4, 6]), 6.0)\n`;
}

test("report.md and the pull request body name the tests fixed and broken, capped, each subject once", async () => {
  const server = await startScriptedModel(
    agentScript({
      search: [
        searchSays("Found it.", {
          bug_locations: [
            { file: "stats/summary.py", method: "mean", intended_behavior: "Divide by len(values)." },
          ],
        }),
      ],
      patch: [
        patchAnswer(
          "stats/summary.py",
          "    return sum(values) / (len(values) - 1)",
          "    return sum(values) / len(values)",
        ),
      ],
    }),
  );
  try {
    const cwd = tmp("auto-fix-cwd-");
    const repo = join(tmp("auto-fix-repo-"), "py-stats");
    cpSync(join(FIX_FIXTURES, "py-stats"), repo, { recursive: true });
    writeFileSync(join(repo, "tests", "test_mean.py"), meanTests());
    const out: string[] = [];
    const err: string[] = [];
    await main(["fix", "--repo", repo, "--issue", join(repo, "issue.md"), "--out", "run", "--json"], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: {
        OPENAI_BASE_URL: server.baseURL,
        AUTO_FIX_MODEL: "gpt-4o-mini",
        AUTO_FIX_CACHE_DIR: join(cwd, "c"),
      },
      cwd,
      isTTY: false,
    });
    const result = JSON.parse(out.join(""));
    assert.equal(result.status, "patched", `${result.reason}\n${err.join("")}`);
    const { fixed, regressions } = result.validation as { fixed: string[]; regressions: string[] };
    assert.equal(fixed.length, FIXED, JSON.stringify(result.validation));
    assert.equal(regressions.length, 1);
    assert.match(regressions[0]!, /test_pinned_old_value/);

    const report = readFileSync(join(cwd, "run", "report.md"), "utf8");
    const body = renderPullBody({
      issueNumber: 7,
      issueTitle: "mean() gives the wrong answer",
      result: FixResultSchema.parse(result),
      run: 1,
      seconds: 3,
      model: "gpt-4o-mini",
      files: ["stats/summary.py"],
      artifactsPath: "/tmp/run",
    }).body;
    for (const [name, text] of [
      ["report.md", report],
      ["pull request body", body],
    ] as const) {
      const line = text
        .split("\n")
        .find((l) => l.startsWith("Tests that failed before the patch and pass after it"));
      assert.ok(line, `${name} names the fixed tests:\n${text}`);
      assert.ok(line.startsWith(`Tests that failed before the patch and pass after it (${FIXED}): `), line);
      // The first ten by name, the rest counted.
      for (const t of fixed.slice(0, 10)) assert.ok(line.includes(`\`${t}\``), `${name}: ${t} in ${line}`);
      for (const t of fixed.slice(10)) assert.ok(!line.includes(t), `${name}: ${t} is counted, not named`);
      assert.ok(line.endsWith(`… and ${FIXED - 10} more`), line);
      assert.match(
        text,
        /Regressions, tests that passed before the patch and fail after it \(1\): `[^`\n]*test_pinned_old_value[^`\n]*`/,
        name,
      );
    }
    // Which tests ran and why: the test file importing the changed module, with its reason.
    for (const [name, text] of [
      ["report.md", report],
      ["pull request body", body],
    ] as const) {
      assert.match(text, /^Tests run: the tests related to the change/m, `${name}:\n${text}`);
      assert.match(
        text,
        /^- `tests\.test_mean`: imports a changed module \(`stats\/summary\.py`\) — ran before and after the patch$/m,
        name,
      );
    }
    // The runner checks say what they held against and that they do not vouch for the patch: never a pass.
    for (const [name, text] of [
      ["report.md", report],
      ["pull request body", body],
    ] as const) {
      assert.doesNotMatch(text, /Tamper checks/, name);
      assert.match(
        text,
        /^Runner checks: two check tests added to the run \(one that must fail, one that must pass and leave a file behind\) were reported as they ran, so the test runner was not stopped early, replaced or made to report tests that did not run\. This does not show that the patch is honest\./m,
        `${name}:\n${text}`,
      );
    }
    // Each subject once: no "Reproduction" beside "Reproducer", no "Reviewer" beside "Review".
    const headings = report.split("\n").filter((l) => l.startsWith("## "));
    assert.equal(new Set(headings).size, headings.length, headings.join("\n"));
    assert.ok(
      !headings.includes("## Reproduction") && !headings.includes("## Reviewer"),
      headings.join("\n"),
    );
  } finally {
    await server.close();
  }
});

test("a hostile test id stays one inert code span", () => {
  const id = "tests/t.py::test_x`@octocat` fixes #1\n<img src=x onerror=alert(1)>\u202E[link](http://evil)";
  const span = codeSpan(id);
  const lines = testsRunLines({
    tests: {
      kind: "targeted",
      why: "1 of 9 pytest tests relate to the change @octocat",
      command: "pytest `x` fixes #1",
      selected: [{ target: id, reasons: ["named by the model"], detail: "<b>@org/team</b>" }],
      notRun: "the other 8 tests: not run, Closes #7",
    },
  }).join("\n");
  // Every piece of repository or model text sits inside a code span: nothing mentions, closes or links.
  const live = liveEffects(lines);
  assert.deepEqual(
    [live.mentions, live.references, live.closing, live.links, live.images, live.html],
    [[], [], [], [], [], []],
    lines,
  );
  assert.match(lines, /^Selected tests and why:\n- ``tests\/t\.py::test_x`@octocat` fixes #1 <img/m);
  assert.ok(!span.includes("\n") && !span.includes("\u202E"));
  assert.ok(span.startsWith("``") && span.endsWith("``"), span);
  // The inner single backticks cannot close the double-backtick span.
  assert.equal(span.slice(2, -2).includes("``"), false);
  assert.ok(codeSpan("x".repeat(1000)).length < 210);
});
