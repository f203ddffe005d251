/**
 * Comment floods: commands are counted per person and per repository before any GitHub call, so a
 * flood past the limits costs no permission check, no configuration read and no reply. Signed webhooks
 * over HTTP to the real app server; the fake GitHub records every REST call.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CommandFlood } from "../../src/app/flood.ts";
import { fakeResult } from "../support/fix-result.ts";
import { FIX_PATCH, MAINTAINER, OWNER, REPO, STRANGER, startHarness } from "./harness.ts";

const pipeline = async () => fakeResult({ status: "patched", patch: FIX_PATCH, summary: "stand-in" });

test("a stranger's flood of /retry costs no GitHub call past their limit; a maintainer's /retry still runs", async () => {
  const h = await startHarness({ pipeline, env: { AUTO_FIX_COMMANDS_PER_USER_PER_HOUR: "2" } });
  try {
    const issue = h.github.addIssue(OWNER, REPO, {
      title: "add() is wrong",
      body: "add(1, 2) is -1.",
    }).number;
    for (let i = 0; i < 2; i++) {
      assert.equal(await h.comment(issue, "/retry", { sender: STRANGER, id: `let-${i}` }), 200);
    }
    await h.idle();
    for (let i = 0; i < 2; i++) assert.deepEqual(h.outcomes.get(`let-${i}`), { action: "denied" });
    // The two let through cost calls (permission, configuration, one polite reply at most).
    const spent = h.github.calls.length;
    assert.ok(spent > 0);
    for (let i = 0; i < 25; i++) {
      assert.equal(await h.comment(issue, `/retry ${i}`, { sender: STRANGER, id: `flood-${i}` }), 200);
    }
    await h.idle();
    for (let i = 0; i < 25; i++) {
      const o = h.outcomes.get(`flood-${i}`);
      assert.equal(o?.action, "limited", JSON.stringify(o));
    }
    assert.deepEqual(
      h.github.calls.slice(spent).map((c) => `${c.method} ${c.path}`),
      [],
      "the flood made no GitHub call",
    );
    const replies = h.github.commentsOn(OWNER, REPO, issue).filter((c) => c.user.type === "Bot");
    assert.equal(replies.length, 1, "one polite reply, no more");

    // The maintainer is someone else: their command goes through and runs.
    assert.equal(await h.comment(issue, "/retry", { sender: MAINTAINER, id: "maintainer" }), 200);
    await h.idle();
    assert.equal(h.outcomes.get("maintainer")?.action, "queued");
    assert.ok([...h.repo.pulls.values()].some((p) => p.head === `auto-fix/issue-${issue}`));
  } finally {
    await h.close();
  }
});

test("a repository's limit holds across senders: many accounts cannot spend the installation's API calls", async () => {
  const h = await startHarness({
    pipeline,
    env: { AUTO_FIX_COMMANDS_PER_USER_PER_HOUR: "50", AUTO_FIX_COMMANDS_PER_REPO_PER_HOUR: "3" },
  });
  try {
    const issue = h.github.addIssue(OWNER, REPO, {
      title: "add() is wrong",
      body: "add(1, 2) is -1.",
    }).number;
    for (let i = 0; i < 3; i++) {
      await h.comment(issue, "/retry", { sender: { login: `sock-${i}`, type: "User" }, id: `sock-${i}` });
    }
    await h.idle();
    const spent = h.github.calls.length;
    for (let i = 3; i < 20; i++) {
      await h.comment(issue, "/retry", { sender: { login: `sock-${i}`, type: "User" }, id: `sock-${i}` });
    }
    await h.idle();
    for (let i = 3; i < 20; i++) assert.equal(h.outcomes.get(`sock-${i}`)?.action, "limited");
    assert.equal(h.github.calls.length, spent, "no call past the repository's limit");
    // Ordinary comments (not commands) are not counted and cost nothing either.
    await h.comment(issue, "thanks!", { sender: STRANGER, id: "chat" });
    await h.idle();
    assert.deepEqual(h.outcomes.get("chat"), { action: "ignored", reason: "not a command" });
  } finally {
    await h.close();
  }
});

test("the gate counts a sliding hour per person and per repository, with an injected clock", () => {
  let now = 0;
  const gate = new CommandFlood({ perUser: 2, perRepo: 3 }, () => now);
  assert.equal(gate.take("o", "r", "a"), null);
  assert.equal(gate.take("o", "r", "A"), null, "logins are case-insensitive");
  assert.match(gate.take("o", "r", "a") ?? "", /a sent more than 2 commands to o\/r within an hour/);
  assert.equal(gate.take("o", "r", "b"), null);
  assert.match(gate.take("o", "r", "c") ?? "", /o\/r received more than 3 commands within an hour/);
  assert.equal(gate.take("o", "other", "a"), null, "another repository has its own counts");
  now += 3_600_001;
  assert.equal(gate.take("o", "r", "a"), null, "an hour later the window has moved");
});
