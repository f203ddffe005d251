/**
 * The status comment is calm: edits are coalesced so that no two writes are less than a second apart,
 * each write shows a real change, and the latest state is always what the comment ends with. The clock
 * is injected (its sleeps advance it), so nothing here depends on the machine's speed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RepoGitHub } from "../../src/github/port.ts";
import { renderStatus, type StatusView } from "../../src/github/render/status-comment.ts";
import {
  MIN_EDIT_GAP_MS,
  plainStageNote,
  progress,
  type StatusClock,
  StatusUpdater,
} from "../../src/issue-run/status-updater.ts";

/** A clock that only moves when someone sleeps (or the test advances it). */
function fakeClock(): StatusClock & { t: number } {
  const clock = {
    t: 1_000_000,
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.t += ms;
      await Promise.resolve();
    },
  };
  return clock;
}

/** The comment calls an updater makes, with the clock's time at each. */
function recordingGitHub(clock: StatusClock, opts: { failNext?: () => boolean } = {}) {
  const writes: { at: number; body: string }[] = [];
  const github = {
    async createComment(_issue: number, body: string) {
      writes.push({ at: clock.now(), body });
      return { id: 7, body, authorLogin: "app", authorType: "Bot", url: "" };
    },
    async updateComment(_id: number, body: string) {
      if (opts.failNext?.()) throw new Error("HTTP 502");
      writes.push({ at: clock.now(), body });
    },
  } as unknown as RepoGitHub;
  return { github, writes };
}

const view = (): StatusView => ({
  state: { runs: 1 },
  run: 1,
  maxRuns: 5,
  trigger: "started by @a",
  phase: "running",
  stages: {},
});

test("a burst of stage changes becomes one edit a second after the last write, showing the latest state", async () => {
  const clock = fakeClock();
  const { github, writes } = recordingGitHub(clock);
  const status = new StatusUpdater(github, 1, view(), { clock });
  await status.open(0);
  // Eleven changes in the same instant: the updater waits out the second, then writes once.
  status.stage("cloned", { status: "running" });
  status.stage("cloned", { status: "done", note: "main at abc1234" });
  for (let i = 1; i <= 9; i++) progress(status, "search", `round ${i}/15`);
  await status.flush();
  assert.equal(writes.length, 2, "the comment was posted, then edited once");
  assert.ok(writes[1]!.at - writes[0]!.at >= MIN_EDIT_GAP_MS);
  assert.equal(writes[1]!.body, renderStatus(status.view), "the edit shows the latest state");
  assert.match(writes[1]!.body, /search round 9 of at most 15/);

  // Nothing changed: no edit. A change made while an edit waits joins it.
  await status.flush();
  assert.equal(writes.length, 2);
  status.stage("indexed", { status: "done", note: "3 files" });
  const pending = status.flush();
  status.stage("located", { status: "done", note: "a.py" });
  await pending;
  await status.flush();
  assert.equal(writes.length, 3);
  assert.match(writes[2]!.body, /a\.py/);
  for (let i = 1; i < writes.length; i++) {
    assert.ok(writes[i]!.at - writes[i - 1]!.at >= MIN_EDIT_GAP_MS, "no two writes within a second");
    assert.notEqual(writes[i]!.body, writes[i - 1]!.body, "each write is a real change");
  }
});

test("the last state is never lost: a failed edit is tried again a second later, and by the final flush", async () => {
  const clock = fakeClock();
  let failing = 0;
  const { github, writes } = recordingGitHub(clock, { failNext: () => failing-- > 0 });
  const status = new StatusUpdater(github, 1, view(), { clock });
  await status.open(0);
  failing = 1;
  status.stage("patched", { status: "done" });
  await status.flush(); // failed once, then written a second later
  assert.equal(writes.length, 2);
  assert.match(writes[1]!.body, /✅ Wrote a patch/);
  assert.ok(writes[1]!.at - writes[0]!.at >= 2 * MIN_EDIT_GAP_MS);

  // GitHub down for longer: the updater stops trying, and the final flush writes the final state.
  failing = 3;
  status.stage("validated", { status: "done" });
  await status.flush();
  assert.equal(writes.length, 2);
  status.view.phase = "finished";
  status.view.final = { ok: true, headline: "Opened draft pull request #2.", details: [], next: [] };
  await status.flush();
  assert.equal(writes.length, 3);
  assert.equal(writes[2]!.body, renderStatus(status.view));
  assert.ok(writes[2]!.at - writes[1]!.at >= MIN_EDIT_GAP_MS);

  // A change made just as a writer finishes is still written.
  status.stage("tested", { status: "done", note: "tests/test_x.py" });
  await Promise.all([status.flush(), status.flush()]);
  assert.equal(writes.at(-1)!.body, renderStatus(status.view));
});

test("stage notes are words for people: strategy names and attempt labels stay in the logs", () => {
  assert.equal(plainStageNote("patched", "linear"), undefined);
  assert.equal(plainStageNote("patched", "linear attempt 1"), undefined);
  assert.equal(plainStageNote("located", "round 2/15"), "search round 2 of at most 15");
  assert.equal(plainStageNote("indexed", "12 files"), "12 files");
  assert.equal(plainStageNote("reproduced", "setup"), "running the repository's setup");
  const clock = fakeClock();
  const { github } = recordingGitHub(clock);
  const status = new StatusUpdater(github, 1, view(), { clock });
  progress(status, "patch", "linear");
  progress(status, "patched", "linear attempt 1");
  const text = renderStatus(status.view);
  assert.ok(!/linear/.test(text), text);
});
