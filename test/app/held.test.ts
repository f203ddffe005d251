import assert from "node:assert/strict";
import { test } from "node:test";
import { resumeHeldDeliveries } from "../../src/app/held.ts";
import { MemoryJobQueue } from "../../src/jobs/memory-queue.ts";
import { exampleOf } from "./webhook-client.ts";

test("a held delivery this process is still working on is left held; a body the app cannot read is dropped", async () => {
  let now = 0;
  const queue = new MemoryJobQueue({ now: () => now });
  await queue.holdDelivery({
    deliveryId: "slow",
    event: "issue_comment.created",
    payload: { action: "created" },
  });
  await queue.holdDelivery({ deliveryId: "junk", event: "issues.labeled", payload: { nothing: true } });
  await queue.holdDelivery({ deliveryId: "other", event: "push", payload: {} });
  now += 10_000;
  const warnings: string[] = [];
  const handled = await resumeHeldDeliveries(5_000, {
    queue,
    busy: (id) => id === "slow",
    depsFor: async () => {
      throw new Error("no delivery here should get as far as GitHub");
    },
    onOutcome: () => assert.fail("nothing was handled"),
    warn: (m) => warnings.push(m),
  });
  assert.equal(handled, 3);
  assert.equal(warnings.length, 2, warnings.join("\n"));
  assert.match(
    warnings.join("\n"),
    /dropped held delivery junk: its stored body \(issues\.labeled\) is not an event the app handles/,
  );
  assert.match(warnings.join("\n"), /dropped held delivery other/);
  now += 10_000;
  const left = await queue.takeHeldDeliveries(5_000);
  assert.deepEqual(
    left.map((h) => h.deliveryId),
    ["slow"],
    "the busy one stays held, to be resumed if this process dies",
  );
});

test("held review and check deliveries are resumed through their own handlers", async () => {
  let now = 0;
  const queue = new MemoryJobQueue({ now: () => now });
  const review = exampleOf("pull_request_review", "submitted");
  await queue.holdDelivery({
    deliveryId: "review",
    event: "pull_request_review.submitted",
    payload: {
      ...review,
      installation: { id: 1 },
      sender: { login: "ci-bot[bot]", type: "Bot" },
    },
  });
  await queue.holdDelivery({
    deliveryId: "check",
    event: "check_run.completed",
    payload: { ...exampleOf("check_run", "completed"), installation: { id: 1 } },
  });
  now += 10_000;
  const outcomes = new Map<string, unknown>();
  const targets: string[] = [];
  await resumeHeldDeliveries(5_000, {
    queue,
    busy: () => false,
    // Neither delivery needs GitHub to be decided: the bot's review, and a check on a branch not the app's.
    depsFor: async (t) => {
      targets.push(`${t.owner}/${t.repo}#${t.installationId}`);
      return {} as never;
    },
    onOutcome: (id, o) => outcomes.set(id, o),
    warn: (m) => assert.fail(m),
  });
  assert.deepEqual(outcomes.get("review"), { action: "ignored", reason: "sender is a bot" });
  assert.deepEqual(outcomes.get("check"), { action: "ignored", reason: "not the app's branch" });
  assert.deepEqual(targets, ["Codertocat/Hello-World#1", "Codertocat/Hello-World#1"]);
  assert.deepEqual(await queue.takeHeldDeliveries(0), [], "both released");
});
