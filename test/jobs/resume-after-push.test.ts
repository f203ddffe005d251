/**
 * A server killed with SIGKILL after the run pushed its branch, while the pull request step was under
 * way, and started again: the job resumes with the pull request step from what the run recorded (no
 * second clone, index, model or validation), and what the dead server had already written is not written
 * twice. Real processes (the app server with the embedded store), git over HTTP, the fake GitHub.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FakeGitHub, RecordedCall } from "../support/fake-github.ts";
import { MAINTAINER } from "../app/harness.ts";
import { createSigner } from "../app/webhook-client.ts";
import { type AppProcess, SECRET, startWorld, type World } from "./support/app-e2e.ts";
import { waitFor } from "./support/wait.ts";

const REPO = "octo-org/calc";
const createPull = (c: RecordedCall) => c.method === "POST" && c.path === "/repos/octo-org/calc/pulls";

/** Pull requests' heads, diffs and files at a ref come from the git server, as GitHub's would. */
function gitBacked(w: World): void {
  w.repo.resolveRef = (ref) => {
    try {
      return w.git.git(REPO, ["rev-parse", ref]).trim();
    } catch {
      return null;
    }
  };
  w.repo.diffOf = (base, head) => w.git.git(REPO, ["diff", `${base}...${head}`]);
  w.repo.readAt = (ref, path) => {
    try {
      return w.git.git(REPO, ["show", `${ref}:${path}`]);
    } catch {
      return null;
    }
  };
}

async function jobsDone(server: AppProcess, n: number): Promise<void> {
  await waitFor(
    `${n} jobs to be done`,
    async () => {
      const h = (await (await fetch(`${server.url}/health`)).json()) as { jobs: Record<string, number> };
      assert.equal(h.jobs.failed, 0, JSON.stringify(h.jobs));
      return h.jobs.done === n;
    },
    90_000,
  );
}

async function kill(server: AppProcess): Promise<void> {
  server.proc.kill("SIGKILL");
  await server.exited;
}

const pipelineRuns = (w: World) => w.events().filter((e) => e.event === "pipeline").length;
const statusComment = (w: World, issue: number) =>
  w.github.commentsOn("octo-org", "calc", issue).find((c) => c.body.includes("auto-fix:status"));

test("killed after the push, while opening the pull request: the resumed job opens it from the record, without a second pipeline run", async () => {
  const w = await startWorld();
  try {
    const [issue] = w.addIssues(1) as [number];
    const branch = `auto-fix/issue-${issue}`;
    const release = w.github.holdMatching(createPull);
    const first = await w.start("server");
    assert.equal(await w.label(first.url!, issue, "push-then-kill"), 200);
    const held = await waitFor(
      "the pull request to be asked for",
      () => w.github.calls.find(createPull),
      60_000,
    );
    const pushed = w.git.git(REPO, ["rev-parse", branch]).trim();
    await kill(first);
    // The request reached GitHub after its sender died: the pull request exists, and no record says so.
    release();
    await waitFor("the dead server's request to be answered", () => held.status !== 0);
    assert.equal(w.repo.pulls.size, 1);

    const second = await w.start("server");
    await jobsDone(second, 1);
    assert.equal(pipelineRuns(w), 1, "the pipeline ran once: the resumed job did not run it again");
    assert.equal(w.git.git(REPO, ["rev-parse", branch]).trim(), pushed, "nothing was pushed again");
    assert.equal(w.repo.pulls.size, 1, "one pull request");
    const pull = [...w.repo.pulls.values()][0]!;
    assert.equal(pull.head, branch);
    assert.match(pull.body, /Changed files: `calc\.py`/, "the body the run rendered, from the record");
    assert.equal(
      w.github.calls.filter(createPull).length,
      1,
      "the pull request found open was not opened again",
    );
    const bot = w.github.commentsOn("octo-org", "calc", pull.number).filter((c) => c.user.type === "Bot");
    assert.deepEqual(bot, [], "a pull request the run opened gets no retry comment");
    const status = statusComment(w, issue)!;
    assert.match(status.body, new RegExp(`Opened draft pull request #${pull.number} on \`${branch}\``));
    assert.match(status.body, /✅ Wrote a patch/, "the stages as the run recorded them");
    assert.match(
      status.body,
      new RegExp(
        `resumed after its worker stopped\\. The branch \`${branch}\` already held its commit \\(\`${pushed.slice(0, 7)}\`\\)`,
      ),
    );
    assert.match(status.body, /not marked fixed/, "the run's own verdict, from the record");
    await kill(second);
  } finally {
    await w.close();
  }
});

test("killed after the push, and the branch deleted meanwhile: the resumed job says so and runs again", async () => {
  const w = await startWorld();
  try {
    const [issue] = w.addIssues(1) as [number];
    const branch = `auto-fix/issue-${issue}`;
    const release = w.github.holdMatching(createPull);
    const first = await w.start("server");
    assert.equal(await w.label(first.url!, issue, "push-delete-kill"), 200);
    const held = await waitFor(
      "the pull request to be asked for",
      () => w.github.calls.find(createPull),
      60_000,
    );
    await kill(first);
    // This time the request never reached GitHub, and someone deleted the branch.
    w.github.failMatching(createPull, { status: 502, message: "Bad Gateway" });
    release();
    await waitFor("the dead server's request to be answered", () => held.status !== 0);
    w.git.git(REPO, ["update-ref", "-d", `refs/heads/${branch}`]);

    const second = await w.start("server");
    await jobsDone(second, 1);
    assert.equal(pipelineRuns(w), 2, "the run started again");
    assert.equal(w.repo.pulls.size, 1);
    assert.match(
      w.git.git(REPO, ["show", `${branch}:calc.py`]),
      /return a \+ b/,
      "the branch was pushed again",
    );
    const status = statusComment(w, issue)!;
    assert.match(
      status.body,
      new RegExp(
        `The branch \`${branch}\` it had pushed \\(\`[0-9a-f]{7}\`\\) no longer exists on the repository`,
      ),
    );
    assert.match(status.body, /Opened draft pull request/);
    await kill(second);
  } finally {
    await w.close();
  }
});

type ReviewComments = ReturnType<FakeGitHub["addReview"]>["comments"];

/**
 * The label's run opens the pull request; a review with three line comments starts a second run, whose
 * server is killed with SIGKILL while the call `killAt` picks is in flight. `afterKill` decides what became
 * of that call; then a new server resumes the job. Returns what the checks need.
 */
async function reviewRunKilled(
  w: World,
  killAt: (pull: number, comments: ReviewComments) => (c: RecordedCall) => boolean,
  afterKill: (release: () => void, held: RecordedCall, pull: number, issue: number) => Promise<void>,
): Promise<{ issue: number; pull: number; comments: ReviewComments; restarted: AppProcess }> {
  const [issue] = w.addIssues(1) as [number];
  const first = await w.start("server");
  assert.equal(await w.label(first.url!, issue, "first-run"), 200);
  await jobsDone(first, 1);
  const pull = [...w.repo.pulls.values()][0]!.number;
  const { review, comments } = w.github.addReview("octo-org", "calc", pull, {
    user: MAINTAINER,
    state: "CHANGES_REQUESTED",
    body: "Three things.",
    comments: [
      { path: "calc.py", line: 1, body: "First point." },
      { path: "calc.py", line: 2, body: "Second point." },
      { path: "calc.py", line: 5, body: "Third point." },
    ],
  });
  const matches = killAt(pull, comments);
  const release = w.github.holdMatching(matches);
  const signer = createSigner({
    url: `${first.url}/api/github/webhooks`,
    secret: SECRET,
    owner: "octo-org",
    repo: "calc",
    cloneUrl: w.repo.cloneUrl,
    github: w.github,
  });
  assert.equal((await signer.review(pull, review.id)).status, 200);
  const held = await waitFor("the call to kill at", () => w.github.calls.find(matches), 60_000);
  await kill(first);
  await afterKill(release, held, pull, issue);
  const restarted = await w.start("server");
  await jobsDone(restarted, 2);
  return { issue, pull, comments, restarted };
}

/** Each review comment has exactly one reply from the app, with its answer; the run commented once. */
function answeredOnce(w: World, issue: number, pull: number, comments: ReviewComments): void {
  assert.equal(pipelineRuns(w), 2, "the label's run and the review's: the review's did not run again");
  const replies = [...w.repo.pullsState.reviewComments.values()].filter((c) => c.user.type === "Bot");
  for (const c of comments) {
    const mine = replies.filter((r) => r.inReplyTo === c.id);
    assert.equal(mine.length, 1, `one reply to ${c.body}: ${mine.map((r) => r.body).join(" | ")}`);
    assert.match(mine[0]!.body, new RegExp(`Answer to ${c.id}\\.`));
  }
  const runComments = w.github
    .commentsOn("octo-org", "calc", pull)
    .filter((c) => c.user.type === "Bot" && /Run 2 replaced this branch's commit/.test(c.body));
  assert.equal(runComments.length, 1, "the run's comment on the pull request was posted once");
  assert.match(statusComment(w, issue)!.body, new RegExp(`Updated draft pull request #${pull}`));
}

test("killed between the review replies: the resumed job sends the replies not sent, none twice, and no second comment", async () => {
  const w = await startWorld();
  gitBacked(w);
  try {
    const replyTo = (pull: number, id: number) => (c: RecordedCall) =>
      c.method === "POST" && c.path === `/repos/octo-org/calc/pulls/${pull}/comments/${id}/replies`;
    const { issue, pull, comments, restarted } = await reviewRunKilled(
      w,
      (pull, comments) => replyTo(pull, comments[1]!.id),
      async (release, held) => {
        // The second reply reached GitHub after its sender died (no record of it); the third was never sent.
        release();
        await waitFor("the dead server's reply to be answered", () => held.status !== 0);
      },
    );
    answeredOnce(w, issue, pull, comments);
    await kill(restarted);
  } finally {
    await w.close();
  }
});

test("killed while commenting on the pull request: the resumed job comments once and sends every reply; a forged marker does not stop it", async () => {
  const w = await startWorld();
  gitBacked(w);
  try {
    const commentOn = (pull: number) => (c: RecordedCall) =>
      c.method === "POST" && c.path === `/repos/octo-org/calc/issues/${pull}/comments`;
    const { issue, pull, comments, restarted } = await reviewRunKilled(
      w,
      (pull) => commentOn(pull),
      async (release, held, pull, issue) => {
        // The comment never reached GitHub. Someone who saw the pushed branch writes the marker the
        // app's comment would carry, hoping the resumed job takes it for its own and stays silent.
        w.github.failMatching(commentOn(pull), { status: 502, message: "Bad Gateway" });
        release();
        await waitFor("the dead server's comment to be answered", () => held.status !== 0);
        const commit = w.git.git(REPO, ["rev-parse", `auto-fix/issue-${issue}`]).trim();
        w.github.addComment("octo-org", "calc", pull, `<!-- auto-fix:run-comment ${commit} -->\nlgtm`, {
          login: "drive-by",
          type: "User",
        });
      },
    );
    answeredOnce(w, issue, pull, comments);
    await kill(restarted);
  } finally {
    await w.close();
  }
});
