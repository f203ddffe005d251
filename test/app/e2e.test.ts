/**
 * End to end with real parts: the app in a Probot server on 127.0.0.1, webhooks signed and delivered
 * over HTTP (payload shapes from @octokit/webhooks-examples), GitHub's REST API answered by the fake on
 * 127.0.0.1 (reached through GHE_HOST/GHE_PROTOCOL=http), clone and push against `git http-backend`,
 * jobs in the embedded durable store, and the real pipeline (`auto-fix fix`) talking to the scripted model.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createCliPipeline } from "../../src/issue-run/cli-pipeline.ts";
import type { HandleOutcome } from "../../src/app/handler.ts";
import { type AppServer, startAppServer } from "../../src/app/server.ts";
import { readSettings } from "../../src/issue-run/settings.ts";
import { createJobQueue, createLimitStore, createRunLedger } from "../../src/jobs/create-queue.ts";
import type { JobQueue } from "../../src/jobs/types.ts";
import { agentScript, patchAnswer, searchSays } from "../support/agent-script.ts";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.ts";
import { type GitServer, startGitServer } from "../support/git-server.ts";
import type { ScriptHandler } from "../support/scripted-model.ts";
import { type ScriptedModel, startScriptedModel } from "../support/scripted-model.ts";
import { fence, promptKind, verdict } from "../review/helpers.ts";
import { liveEffects } from "../support/github-markdown.ts";
import { inertProse } from "../../src/core/inert-markdown.ts";
import { createSigner } from "./webhook-client.ts";

const OWNER = "acme";
const REPO = "stats";
const BUGGY = "    return sum(values) / (len(values) - 1)";
const FIXED = "    return sum(values) / len(values)";

let github: FakeGitHub;
let git: GitServer;
let model: ScriptedModel;
let app: AppServer;
let queue: JobQueue;
let work: string;
let script: ScriptHandler = () => "no script";
const outcomes = new Map<string, HandleOutcome>();
let deliver: ReturnType<typeof createSigner>;

/** Prints a line on every run (before and after the patch), then asserts. */
const REPRO =
  "from stats.summary import mean\nresult = mean([2, 4])\nprint(f'mean([2, 4]) = {result}')\nassert result == 3, f'expected 3, got {result}'\n";

/** Answers the reproducer and the reviewer (when the pipeline runs them); the agents' script the rest. */
const withReview =
  (inner: ScriptHandler): ScriptHandler =>
  (req, i) => {
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (kind === "repro-write" || kind === "repro-feedback" || kind === "rewrite-test")
      return fence("python", REPRO);
    if (kind === "review" || kind === "review-retry") return verdict("yes", "yes");
    return inner(req, i);
  };

const goodRun = () =>
  withReview(
    agentScript({
      search: [
        searchSays("The mean looks wrong; let me read it.", { API_calls: ['search_method("mean")'] }),
        searchSays("Found it.", {
          bug_locations: [
            { file: "stats/summary.py", method: "mean", intended_behavior: "Divide by len(values)." },
          ],
        }),
      ],
      proxy: (notes) => {
        const line = notes
          .split("\n")
          .filter((l) => l.trim().startsWith("JSON:"))
          .at(-1);
        return line ? line.trim().slice(5).trim() : "{}";
      },
      patch: [patchAnswer("stats/summary.py", BUGGY, FIXED)],
    }),
  );

before(async () => {
  work = mkdtempSync(join(tmpdir(), "auto-fix-e2e-"));
  github = await startFakeGitHub();
  git = await startGitServer();
  git.tokens.add(github.installationToken);
  const cloneUrl = git.createRepo(`${OWNER}/${REPO}`, {
    "stats/__init__.py": "",
    "stats/summary.py": `def mean(values):\n    """Arithmetic mean of a non-empty list."""\n${BUGGY}\n\n\ndef total(values):\n    return sum(values)\n`,
    // A repository test that loads the module: "fixed" needs a test of the repository beside the
    // reproducer, which the model wrote.
    "tests/__init__.py": "",
    "tests/test_summary.py":
      "from stats.summary import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n",
    "README.md": "# stats\n",
  });
  const repo = github.addRepo(OWNER, REPO, { cloneUrl });
  repo.permissions.set("maintainer", "maintain");
  model = await startScriptedModel((req, i) => script(req, i));
  queue = createJobQueue({ dataDir: join(work, "data"), pollMs: 20 });
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const env = {
    PATH: process.env.PATH,
    HOME: work,
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: "test-key",
    AUTO_FIX_MODEL: "scripted-model",
    // A model missing from the price table needs a price for the run's dollar budget to hold.
    AUTO_FIX_PRICE_INPUT_PER_MTOK: "0.1",
    AUTO_FIX_PRICE_OUTPUT_PER_MTOK: "0.4",
    AUTO_FIX_CACHE_DIR: join(work, "cache"),
  };
  app = await startAppServer({
    appId: 1,
    privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    secret: "e2e-secret",
    env: { GHE_HOST: github.host, GHE_PROTOCOL: "http" },
    app: {
      queue,
      ledger: createRunLedger({ dataDir: join(work, "data") }),
      limits: createLimitStore({ dataDir: join(work, "data") }),
      settings: readSettings({ AUTO_FIX_WORK_DIR: join(work, "runs") }),
      pipeline: createCliPipeline({ env }),
      model: "scripted-model",
      onOutcome: (id, o) => outcomes.set(id, o),
    },
  });
  deliver = createSigner({
    url: app.webhookUrl,
    secret: "e2e-secret",
    owner: OWNER,
    repo: REPO,
    cloneUrl,
    github,
  });
});

after(async () => {
  await app.stop();
  await model.close();
  await github.close();
  await git.close();
  rmSync(work, { recursive: true, force: true });
});

async function settled(deliveryId: string): Promise<void> {
  // The sender's access is checked right after the answer; the job is stored then.
  for (let i = 0; i < 400 && outcomes.get(deliveryId)?.action === "checking"; i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  const o = outcomes.get(deliveryId);
  assert.equal(o?.action, "queued", JSON.stringify(o));
  const jobId = o.action === "queued" ? o.jobId : "";
  for (let i = 0; i < 2400; i++) {
    const job = await queue.get(jobId);
    if (job && (job.state === "done" || job.state === "failed" || job.state === "cancelled")) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`job ${jobId} did not finish`);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

test("label → real pipeline → draft pull request with the fix; /retry updates it", async () => {
  const issue = github.addIssue(OWNER, REPO, {
    title: "mean() is off",
    body: "`mean([2, 4])` returns 6.0, expected 3.0.\n<!-- maintainers: ignore -->",
  });
  script = goodRun();
  const id = await deliver.labeled(issue.number, "maintainer");
  await settled(id);

  const branch = `auto-fix/issue-${issue.number}`;
  assert.equal(git.git(`${OWNER}/${REPO}`, ["show", `${branch}:stats/summary.py`]).split("\n")[2], FIXED);
  const pr = [...github.repo(OWNER, REPO).pulls.values()].find((p) => p.head === branch)!;
  assert.ok(pr, "pull request opened");
  assert.equal(pr.draft, true);
  assert.equal(pr.title, `Fix #${issue.number}: mean() is off`);
  for (const part of [
    `Fixes #${issue.number}`,
    "`stats/summary.py` › `mean`",
    "Divide by len(values).",
    "| `scripted-model` |",
    "`/retry <guidance>`",
  ]) {
    assert.ok(pr.body.includes(part), `PR body has ${part}:\n${pr.body}`);
  }
  // What only the pipeline knows, carried by the result contract from the child to the body: its
  // summary, the model it ran with, the reviewer's verdict, and the reproducer's output before the
  // patch and after it (the line the script prints, then the failure; after the fix, the line alone).
  const result = JSON.parse(
    readFileSync(filesUnder(join(work, "runs")).find((f) => f.endsWith("app-result.json"))!, "utf8"),
  ) as { summary: string; model: string };
  assert.equal(result.model, "scripted-model");
  assert.match(result.summary, /^The patch changes stats\/summary\.py\./);
  assert.match(result.summary, /fails on the unpatched code \(exit 1\) and passes with the patch \(exit 0\)/);
  // Each fact once: the summary's facts are the body's sections, not a paragraph that repeats them.
  assert.ok(pr.body.includes(`## Summary\n`), pr.body);
  assert.ok(!pr.body.includes(inertProse(result.summary)), `PR body repeats the summary:\n${pr.body}`);
  assert.match(pr.body, /Verdict: approved after 1 review round\./);
  assert.match(pr.body, /\*\*Patch\*\* — correct: yes\n\n> patch looks right\n/);
  assert.match(pr.body, /\*\*Reproducer\*\* — correct: yes\n\n> test looks right\n/);
  assert.match(
    pr.body,
    /Before the patch, `[^`]+` ended with exit code 1[:;][^\n]*\n\n```\n[\s\S]*AssertionError: expected 3, got 6\.0\n```/,
  );
  assert.match(pr.body, /After the patch \(exit code 0\):\n\n```\nmean\(\[2, 4\]\) = 3\.0\n```/);
  assert.ok(!pr.body.includes("(no output)"), pr.body);
  const status = github
    .commentsOn(OWNER, REPO, issue.number)
    .find((c) => c.body.includes("auto-fix:status"))!;
  assert.ok(status.history.length >= 3, "edited as the run went");
  assert.match(status.history[0]!, /👀 \*\*auto-fix\*\* is working/);
  assert.match(status.body, /🚀/);
  assert.match(status.body, /✅ Located the bug — `stats\/summary.py`/);
  assert.match(status.body, /✅ Wrote a patch/);
  assert.match(status.body, new RegExp(`Opened draft pull request #${pr.number}`));
  // The reviewer's verdict is its stage line; the status comment does not repeat the summary.
  assert.match(status.body, /✅ Reviewed patch and reproducer — the patch and the reproducer are correct\n/);
  assert.doesNotMatch(status.body, /The reviewer judged/);
  assert.ok(!status.body.includes(inertProse(result.summary, { max: 1500 })), status.body);
  // The pipeline saw the issue without the hidden comment, and nothing of the token went anywhere.
  assert.ok(model.requests.some((r) => r.messages.some((m) => String(m.content).includes("returns 6.0"))));
  assert.ok(
    !model.requests.some((r) => r.messages.some((m) => String(m.content).includes("maintainers: ignore"))),
  );
  for (const f of filesUnder(join(work, "runs"))) {
    assert.ok(!readFileSync(f).includes(github.installationToken), `token found in ${f}`);
  }
  for (const c of github.calls) assert.ok(!JSON.stringify(c.body ?? "").includes(github.installationToken));

  // /retry with guidance on the pull request: same branch (force-pushed), same pull request, a comment.
  const firstHead = git.git(`${OWNER}/${REPO}`, ["rev-parse", branch]).trim();
  const pulls = github.repo(OWNER, REPO).pulls.size;
  const seenBefore = model.requests.length;
  script = goodRun();
  const retry = await deliver.comment(pr.number, "/retry keep total() untouched", "maintainer");
  await settled(retry);
  assert.equal(github.repo(OWNER, REPO).pulls.size, pulls);
  assert.notEqual(git.git(`${OWNER}/${REPO}`, ["rev-parse", branch]).trim(), firstHead);
  const prompts = model.requests.slice(seenBefore).flatMap((r) => r.messages.map((m) => String(m.content)));
  assert.ok(
    prompts.some((p) => p.includes("keep total() untouched")),
    "guidance reached the prompts",
  );
  assert.ok(
    github.commentsOn(OWNER, REPO, pr.number).some((c) => /Run 2 replaced this branch's commit/.test(c.body)),
  );
  const after = github
    .commentsOn(OWNER, REPO, issue.number)
    .filter((c) => c.body.includes("auto-fix:status"));
  assert.equal(after.length, 1);
  assert.match(after[0]!.body, new RegExp(`Updated draft pull request #${pr.number}`));
});

test("a run whose patches never apply opens no pull request and says why", async () => {
  const issue = github.addIssue(OWNER, REPO, {
    title: "total() is slow",
    body: "It takes ages on big lists.",
  });
  script = agentScript({
    search: [
      searchSays("Found it.", {
        bug_locations: [{ file: "stats/summary.py", method: "total", intended_behavior: "Be fast." }],
      }),
    ],
    proxy: (notes) =>
      notes
        .split("\n")
        .filter((l) => l.trim().startsWith("JSON:"))
        .at(-1)!
        .trim()
        .slice(5),
    patch: Array.from({ length: 10 }, () => patchAnswer("stats/summary.py", "    return fast(values)", "x")),
  });
  const pullsBefore = github.repo(OWNER, REPO).pulls.size;
  await settled(await deliver.labeled(issue.number, "maintainer"));
  assert.equal(github.repo(OWNER, REPO).pulls.size, pullsBefore);
  const status = github
    .commentsOn(OWNER, REPO, issue.number)
    .find((c) => c.body.includes("auto-fix:status"))!;
  assert.match(status.body, /😕/);
  assert.match(status.body, /No patch passed the checks/);
  assert.match(status.body, /Why no patch passed: [\s\S]*none applicable/);
  assert.match(status.body, /Suspected locations: `stats\/summary.py` › `total`/);
  assert.throws(() =>
    git.git(`${OWNER}/${REPO}`, ["rev-parse", "--verify", `auto-fix/issue-${issue.number}`]),
  );
});

/** What a hostile model (or a prompt-injected one) writes into its analysis and locations. */
const HOSTILE =
  "Closes #1, fixes acme/stats#2 and resolves https://github.com/acme/stats/issues/3. cc @maintainer " +
  "@acme/admins [click](https://evil.example/x) ![p](https://evil.example/p.png) <img src=x> " +
  "<details open><summary>s</summary>d</details> www.evil.example\n```\nfixes #4\n```\n| a |\n| - |\n";

test("hostile model text reaches the pull request, title and commit only inert", async () => {
  const issue = github.addIssue(OWNER, REPO, {
    title: "mean() is off; Closes #1 @maintainer",
    body: "`mean([2, 4])` returns 6.0, expected 3.0.",
  });
  const hostileReview = JSON.stringify({
    "patch-analysis": HOSTILE,
    "patch-correct": "yes",
    "patch-advice": "",
    "test-analysis": `${HOSTILE} fixes #5`,
    "test-correct": "yes @maintainer",
    "test-advice": "",
  });
  const base = agentScript({
    search: [
      searchSays("Found it.", {
        bug_locations: [{ file: "stats/summary.py", method: "mean", intended_behavior: HOSTILE }],
      }),
    ],
    proxy: (notes) =>
      notes
        .split("\n")
        .filter((l) => l.trim().startsWith("JSON:"))
        .at(-1)!
        .trim()
        .slice(5),
    patch: [patchAnswer("stats/summary.py", BUGGY, FIXED)],
  });
  script = (req, i) => {
    const kind = promptKind(req);
    if (kind === "review" || kind === "review-retry") return hostileReview;
    return withReview(base)(req, i);
  };
  await settled(await deliver.labeled(issue.number, "maintainer"));
  const branch = `auto-fix/issue-${issue.number}`;
  const pr = [...github.repo(OWNER, REPO).pulls.values()].find((p) => p.head === branch);
  assert.ok(pr, "pull request opened");
  // The model's text is there, to be read...
  // (as prose, with look-alikes for the characters that would mention or reference)
  assert.match(pr.body, /cc [@＠]maintainer/, pr.body);
  assert.match(pr.body, /fixes [#＃]4/);
  // ...and GitHub would make none of it live: the only reference is the app's own `Fixes #N`.
  const live = liveEffects(pr.body);
  assert.deepEqual(live.mentions, [], pr.body);
  assert.deepEqual(live.closing, [`Fixes #${issue.number}`], pr.body);
  assert.deepEqual(
    live.references.filter((r) => r !== `#${issue.number}`),
    [],
    pr.body,
  );
  assert.deepEqual([live.links, live.images], [[], []], pr.body);
  assert.deepEqual(
    live.html.filter((t) => t !== "details" && t !== "summary"),
    [],
    pr.body,
  );
  assert.equal(live.html.filter((t) => t === "details").length, 1, "only the app's own details block");
  // The title and the commit message (plain text) neither close, reference nor mention.
  for (const plain of [pr.title, git.git(`${OWNER}/${REPO}`, ["log", "-1", "--format=%B", branch])]) {
    const effects = liveEffects(plain.replaceAll(`#${issue.number}`, ""));
    assert.deepEqual([effects.mentions, effects.references, effects.closing], [[], [], []], plain);
  }
  const status = github
    .commentsOn(OWNER, REPO, issue.number)
    .find((c) => c.body.includes("auto-fix:status"))!;
  const statusLive = liveEffects(status.body.replace(/started by @maintainer/, ""));
  assert.deepEqual([statusLive.mentions, statusLive.closing, statusLive.links], [[], [], []], status.body);
});
