import assert from "node:assert/strict";
import { test } from "node:test";
import { type PullPlan, readProgress, readPushed } from "../../src/issue-run/pull-plan.ts";

const plan: PullPlan = {
  commit: "a".repeat(40),
  branch: "auto-fix/issue-7",
  base: "main",
  title: "Fix #7: add",
  body: "body",
  existingPull: 0,
  comment: "",
  replies: [],
  stages: { patched: { status: "done" } },
  details: ["verdict"],
};

test("the pushed record is read back through its schema: a record that is not this issue's or not well formed is refused, by field", () => {
  assert.deepEqual(readPushed({}, 7), { kind: "none" });
  assert.deepEqual(readPushed({ pullPlan: plan }, 7), { kind: "plan", plan });
  const refused = (record: unknown, issue = 7) => {
    const r = readPushed({ pullPlan: record }, issue);
    assert.equal(r.kind, "unreadable", JSON.stringify(record).slice(0, 200));
    return r.kind === "unreadable" ? r.problem : "";
  };
  assert.match(refused(plan, 8), /not this issue's/);
  assert.match(refused({ ...plan, branch: "main" }), /^branch: /);
  assert.match(refused({ ...plan, branch: "auto-fix/issue-7\nx" }), /^branch: /);
  assert.match(refused({ ...plan, commit: "HEAD; rm -rf /" }), /^commit: /);
  assert.match(refused({ ...plan, body: "x".repeat(70_000) }), /^body: /);
  assert.match(refused({ ...plan, replies: [{ point: -1, thread: 1, body: "" }] }), /^replies\.0\.point: /);
  assert.match(
    refused({ ...plan, stages: { patched: { status: "exploded" } } }),
    /^stages\.patched\.status: /,
  );
  assert.match(refused("not an object"), /^\(record\): /);
});

test("progress counts only for the push it was recorded for", () => {
  const progress = { commit: plan.commit, pull: 3, existed: true, commented: true, replied: [5] };
  assert.deepEqual(readProgress({ publish: progress }, plan), progress);
  assert.equal(readProgress({ publish: { ...progress, commit: "b".repeat(40) } }, plan), null);
  assert.equal(readProgress({ publish: { ...progress, replied: "all" } }, plan), null);
  assert.equal(readProgress({}, plan), null);
});
