/**
 * `auto-fix issue <crate> --issue <file> --dry-run <dir>` on a small real crate, end to end: the app's
 * whole run with the scripted model, the reproducer built and run as a cargo example in the sandbox,
 * the patch validated by cargo test (per-test results before and after, check tests proven), and the
 * draft pull request written on disk, with a regression test when the crate's own tests miss the bug.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { main } from "../../../src/cli/main.ts";
import { fence, promptKind, verdict } from "../../review/helpers.ts";
import { agentScript, patchAnswer, searchSays } from "../../support/agent-script.ts";
import { type ScriptedModel, type ScriptHandler, startScriptedModel } from "../../support/scripted-model.ts";
import { tempDir } from "../../support/temp.ts";
import { noCargo, SHOP, SHOP_BUG, writeCrate } from "./crate.ts";

const BUGGY = "    s.to_lowercase().replacen(' ', \"-\", 1)";
const FIXED = "    s.to_lowercase().replace(' ', \"-\")";
const REPRO = 'use shop::slug;\n\nfn main() {\n    assert_eq!(slug("A B C"), "a-b-c");\n}\n';
const REGRESSION =
  'use shop::slug;\n\n#[test]\nfn every_space_becomes_a_dash() {\n    assert_eq!(slug("A B C"), "a-b-c");\n}\n';

let model: ScriptedModel;
let work: string;
let agents: ScriptHandler;

const git = (cwd: string, args: string[]) =>
  execFileSync("git", ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });

/** A git repository of the crate `files`, committed on main. */
function repoOf(files: Record<string, string>): string {
  const root = writeCrate({ ...files, ".gitignore": "target/\n" });
  git(root, ["init", "-q", "-b", "main"]);
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", "Initial commit"]);
  return root;
}

before(async () => {
  if (noCargo) return;
  work = tempDir("auto-fix-cargo-dry-run-");
  assert.ok(SHOP[SHOP_BUG.file]!.includes(BUGGY.trim()));
  writeFileSync(
    join(work, "issue.md"),
    '# slug() replaces only the first space\n\nslug("A B C") is "a-b c", not "a-b-c".\n',
  );
  model = await startScriptedModel((req, i) => {
    if (String(req.messages[0]?.content ?? "").startsWith("You write regression tests"))
      return fence("rust", REGRESSION);
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (kind === "repro-write" || kind === "repro-feedback" || kind === "rewrite-test")
      return fence("rust", REPRO);
    if (kind === "review" || kind === "review-retry") return verdict("yes", "yes");
    return agents(req, i);
  });
});

/** The search and patch agents' replies, counted from the first for each run. */
const scriptedAgents = () =>
  agentScript({
    search: [
      searchSays("slug looks wrong; let me read it.", { API_calls: ['search_method("slug")'] }),
      searchSays("Found it.", {
        bug_locations: [{ file: "src/lib.rs", method: "slug", intended_behavior: "Replace every space." }],
      }),
    ],
    proxy: (notes) => {
      const line = notes
        .split("\n")
        .filter((l) => l.trim().startsWith("JSON:"))
        .at(-1);
      return line ? line.trim().slice(5).trim() : "{}";
    },
    patch: [patchAnswer("src/lib.rs", BUGGY, FIXED)],
  });

after(async () => {
  await model?.close();
});

/** The issue run on `repo`, dry, into `dir`: the pull request's body and diff, and the run's log. */
async function dryRun(repo: string, dir: string): Promise<{ stderr: string; body: string; diff: string }> {
  agents = scriptedAgents();
  let stdout = "";
  let stderr = "";
  const code = await main(
    ["issue", repo, "--issue", join(work, "issue.md"), "--dry-run", join(work, dir), "--json"],
    {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: {
        PATH: process.env.PATH,
        HOME: work,
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: "test-key",
        AUTO_FIX_MODEL: "scripted-model",
        AUTO_FIX_PRICE_INPUT_PER_MTOK: "0.1",
        AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0.4",
        AUTO_FIX_CACHE_DIR: join(work, "cache"),
      },
      cwd: work,
      isTTY: false,
    },
  );
  assert.equal(code, 0, `${stdout}\n${stderr}`);
  const result = JSON.parse(stdout) as { outcome: { status: string }; pullBody: string; pullDiff: string };
  assert.equal(result.outcome.status, "pull-opened", `${stdout}\n${stderr}`);
  return { stderr, body: readFileSync(result.pullBody, "utf8"), diff: readFileSync(result.pullDiff, "utf8") };
}

test("a crate's issue: reproduced by a cargo example, validated by cargo test, a draft pull request opened", {
  skip: noCargo,
}, async () => {
  const { stderr, body, diff } = await dryRun(repoOf(SHOP), "dry");
  assert.match(stderr, /running `cargo test/);
  assert.match(body, /Changed files: `src\/lib\.rs`/);
  assert.ok(diff.includes(`\n+${FIXED}\n`) && diff.includes(`\n-${BUGGY}\n`), diff);
  // The failing test went green, named by its binary; the check tests were reported as they ran.
  assert.match(
    body,
    /Tests that failed before the patch and pass after it \(1\): `tests\/slug\.rs::many_words`/,
    body,
  );
  assert.match(body, /Runner checks: two check tests added to the run .* were reported as they ran/, body);
  // Honest, until the patch scan reads Rust: the change is not marked fixed, and why is said.
  assert.match(body, /Not marked fixed.*the patch scan has no rules for Rust/, body);
});

test("a crate whose tests miss the bug: the regression test the model writes is left out while the patch scan cannot read Rust, and the pull request says why", {
  skip: noCargo,
}, async () => {
  const slug = SHOP["tests/slug.rs"]!;
  const files = { ...SHOP, "tests/slug.rs": slug.slice(0, slug.indexOf("\n#[test]\nfn many_words")) };
  assert.ok(!files["tests/slug.rs"].includes("many_words"));
  const { body, diff } = await dryRun(repoOf(files), "dry-regression");
  assert.ok(diff.includes(`\n+${FIXED}\n`), diff);
  // The integration test file the plan names (tests/lib_regression.rs) is checked by the patch scan
  // before it is added: without Rust rules it cannot be, so it is left out and said so, never added unread.
  assert.ok(!/new file mode/.test(diff), diff);
  assert.match(body, /No regression test was added: .*the patch scan has no rules for Rust/, body);
  assert.match(body, /No test failed before the patch and passes after it\./, body);
});
