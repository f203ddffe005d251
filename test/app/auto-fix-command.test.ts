import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Pipeline, PipelineRequest } from "../../src/contract/app-result.ts";
import { fakeResult } from "../support/fix-result.ts";
import { FIX_PATCH, type Harness, OWNER, REPO, STRANGER, startHarness } from "./harness.ts";

/** The requests the pipeline received, in order. */
const requests: PipelineRequest[] = [];

const pipeline: Pipeline = async (req) => {
  requests.push(req);
  return fakeResult({
    status: "fixed",
    patch: FIX_PATCH,
    reproduced: true,
    review: { "patch-correct": "yes", "test-correct": "yes" },
  });
};

let h: Harness;
before(async () => {
  h = await startHarness({ pipeline, env: { AUTO_FIX_ALLOWED_MODELS: "small-model, tiny-model" } });
});
after(async () => {
  await h.close();
});

test("/auto-fix [guidance] from a writer starts a run on an issue without the label; from a stranger, nothing", async () => {
  const issue = h.github.addIssue(OWNER, REPO, { title: "add() subtracts", body: "add(1, 2) is -1" });
  await h.comment(issue.number, "/auto-fix the bug is in add()");
  await h.idle();
  assert.equal(requests.length, 1);
  assert.equal(requests[0]!.maintainer?.text, "the bug is in add()");
  const status = h.github
    .commentsOn(OWNER, REPO, issue.number)
    .find((c) => c.body.includes("auto-fix:status"))!;
  assert.match(status.body, /started by @mona with `\/auto-fix`/);
  assert.ok([...h.repo.pulls.values()].some((p) => p.head === `auto-fix/issue-${issue.number}`));

  const other = h.github.addIssue(OWNER, REPO, { title: "sub() is fine", body: "?" });
  await h.comment(other.number, "/auto-fix", { sender: STRANGER });
  await h.idle();
  assert.equal(requests.length, 1, "no run for someone without write access");
  assert.equal([...h.outcomes.values()].at(-1)?.action, "denied");
});

test("a repository's model is used when the operator allows it, and refused with the list when not", async () => {
  h.repo.files.set(".github/auto-fix.yml", "model: huge-model\n");
  const refused = h.github.addIssue(OWNER, REPO, { title: "bug a", body: "b" });
  await h.labeled(refused.number);
  await h.idle();
  const reply = h.github.commentsOn(OWNER, REPO, refused.number).at(-1)!;
  assert.match(
    reply.body,
    /auto-fix did not start\. `\.github\/auto-fix\.yml` asks for the model `huge-model`/,
  );
  assert.match(reply.body, /Allowed models \(`AUTO_FIX_ALLOWED_MODELS`\): `small-model`, `tiny-model`\./);
  const before = requests.length;

  h.repo.files.set(".github/auto-fix.yml", "model: tiny-model\n");
  const allowed = h.github.addIssue(OWNER, REPO, { title: "bug b", body: "b" });
  await h.labeled(allowed.number);
  await h.idle();
  assert.equal(requests.length, before + 1);
  assert.equal(requests.at(-1)!.model, "tiny-model");
  const pr = [...h.repo.pulls.values()].find((p) => p.head === `auto-fix/issue-${allowed.number}`)!;
  assert.match(pr.body, /`tiny-model`/);
  h.repo.files.set(".github/auto-fix.yml", "label: auto-fix\n");
});
