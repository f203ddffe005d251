/**
 * SIGTERM during a run, with real processes: `npm start` running a job (clone over `git http-backend`,
 * the real pipeline in its child process), a model that never answers or a GitHub write that hangs.
 * The process must be gone within the grace period by its clean path (exit 0: its own backstop exits 1
 * at the end of the grace), the call in flight aborted, and the job back in the queue for another worker.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { tempDir } from "../support/temp.ts";
import { type AppProcess, deliverIssues, startApp, until } from "./support/app-process.ts";
import { jobRow, setUp, startSilentModel } from "./support/shutdown-world.ts";

const GRACE_SECONDS = 6;

/** SIGTERM now; resolves with how the process ended and the log lines about the shutdown. */
async function terminate(app: AppProcess) {
  const ended = await app.stop();
  const said = app.output();
  return { ...ended, said };
}

test("SIGTERM while the model is answering: the pipeline is stopped, the job released, the process gone within the grace", async () => {
  const model = await startSilentModel();
  const s = await setUp(model.baseURL, GRACE_SECONDS);
  const app = await startApp(s.env, { cwd: tempDir("auto-fix-shutdown-cwd-") });
  try {
    const res = await deliverIssues(`${app.url}/api/github/webhooks`, s.secret, "d-slow", s.payload);
    assert.equal(res.status, 200, app.output());
    await until("the run to call the model", () => model.requests() > 0);
    const running = jobRow(s.work);
    assert.equal(running.state, "running");

    const { code, said } = await terminate(app);
    assert.equal(code, 0, `exited by its clean path, before the grace ran out:\n${said}`);
    assert.match(said, /shutdown done in \d+\.\d s/);
    assert.doesNotMatch(said, /did not stop after the shutdown abort/, "the run stopped when aborted");
    await until("the model call to be dropped", () => model.aborted() > 0);
    const released = jobRow(s.work);
    assert.equal(released.state, "queued", "back in the queue for another worker");
    assert.equal(released.lease_owner, null);
    assert.equal(released.attempts, 0, "a shutdown does not count as an attempt");
    // One JSON line per stage, and the run's end, with the delivery, repository, issue and outcome.
    const run = app.logs().find((l) => l.stage === "run");
    assert.ok(run, said);
    assert.deepEqual(
      { deliveryId: run.deliveryId, repository: run.repository, issue: run.issue, outcome: run.outcome },
      { deliveryId: "d-slow", repository: "o/r", issue: 1, outcome: "shutdown" },
    );
    assert.equal(typeof run.durationMs, "number");
    const stages = app.logs().filter((l) => l.deliveryId === "d-slow" && typeof l.stage === "string");
    // The pipeline's own stages: the one the model call was in ended with the shutdown.
    const inPipeline = stages.filter((l) =>
      ["index", "reproduce", "search", "patch"].includes(String(l.stage)),
    );
    assert.ok(inPipeline.length > 0, said);
    assert.equal(inPipeline.at(-1)?.outcome, "shutdown", said);
    for (const stage of ["admission", "acknowledged", "cloned"]) {
      const line = stages.find((l) => l.stage === stage);
      assert.ok(
        line && typeof line.durationMs === "number" && typeof line.outcome === "string",
        `${stage}: ${said}`,
      );
    }
  } finally {
    await app.stop();
    await model.close();
    await s.github.close();
    await s.git.close();
  }
});

test("SIGTERM while a GitHub write hangs: the request is aborted and the job released within the grace", async () => {
  const model = await startSilentModel();
  const s = await setUp(model.baseURL, GRACE_SECONDS);
  // The status comment's creation never gets an answer.
  const release = s.github.holdMatching(
    (c) => c.method === "POST" && /\/issues\/\d+\/comments$/.test(c.path),
  );
  const app = await startApp(s.env, { cwd: tempDir("auto-fix-shutdown-cwd-") });
  try {
    const res = await deliverIssues(`${app.url}/api/github/webhooks`, s.secret, "d-gh", s.payload);
    assert.equal(res.status, 200, app.output());
    const held = () => s.github.calls.find((c) => c.method === "POST" && c.path.endsWith("/comments"));
    await until("the status comment's request", () => held() !== undefined);

    const { code, said } = await terminate(app);
    assert.equal(code, 0, `exited by its clean path, before the grace ran out:\n${said}`);
    assert.doesNotMatch(said, /did not stop after the shutdown abort/, "the GitHub call was aborted");
    assert.equal(held()?.abandoned, true, "the app closed the request it was waiting on");
    const released = jobRow(s.work);
    assert.equal(released.state, "queued");
    assert.equal(released.stage, "admitted", "it resumes after the admission it passed");
  } finally {
    release();
    await app.stop();
    await model.close();
    await s.github.close();
    await s.git.close();
  }
});
