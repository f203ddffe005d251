import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { main } from "../../src/cli/main.ts";
import { agentScript, patchAnswer, roleOf, searchSays } from "../support/agent-script.ts";
import { startScriptedModel } from "../support/scripted-model.ts";
import { FIXTURES, fence, promptKind, verdict } from "./helpers.ts";

test("auto-fix fix --json fills reproduced, review (the reviewer's keys) and validation", async () => {
  const agents = agentScript({
    search: [
      searchSays("The bug is in apply_discount.", {
        bug_locations: [
          { file: "shop/pricing.py", method: "apply_discount", intended_behavior: "percent / 100" },
        ],
      }),
    ],
    patch: [
      patchAnswer(
        "shop/pricing.py",
        "    return price - price * percent",
        "    return price - price * percent / 100",
      ),
    ],
  });
  const server = await startScriptedModel((req, i) => {
    if (roleOf(req) !== "other") return agents(req, i);
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (kind === "review") return verdict("yes", "yes");
    return fence(
      "python",
      "from shop.pricing import apply_discount\nr = apply_discount(100, 10)\nassert r == 90, f'expected 90, got {r}'\n",
    );
  });
  const cwd = mkdtempSync(join(tmpdir(), "af-fixjson-"));
  let out = "";
  let err = "";
  try {
    const code = await main(
      [
        "fix",
        "--repo",
        join(FIXTURES, "py-shop"),
        "--issue",
        join(FIXTURES, "py-shop", "ISSUE.md"),
        "--out",
        "run",
        "--json",
      ],
      {
        stdout: (t) => {
          out += t;
        },
        stderr: (t) => {
          err += t;
        },
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          OPENAI_BASE_URL: server.baseURL,
          AUTO_FIX_MODEL: "gpt-4o-mini",
          AUTO_FIX_CACHE_DIR: join(cwd, "cache"),
        },
        cwd,
        isTTY: false,
      },
    );
    assert.equal(code, 0, err);
    const result = JSON.parse(out) as {
      status: string;
      reproduced: boolean;
      review: Record<string, unknown>;
      validation: { passed: boolean; regressions: string[]; status: string };
      reproducer: { script: string };
    };
    assert.equal(result.status, "fixed");
    assert.equal(result.reproduced, true);
    assert.equal(result.review.approved, true);
    assert.equal(result.review["patch-correct"], "yes");
    assert.equal(result.review["test-correct"], "yes");
    assert.equal(result.validation.passed, true);
    assert.equal(result.validation.status, "passed");
    assert.deepEqual(result.validation.regressions, []);
    assert.match(result.reproducer.script, /assert r == 90/);
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
});
