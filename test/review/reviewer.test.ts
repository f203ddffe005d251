import assert from "node:assert/strict";
import { test } from "node:test";
import {
  renderReviewPrompt,
  ReviewUnavailable,
  reviewCandidate,
  type ReviewInput,
} from "../../src/review/index.ts";
import type { ExecResult } from "../../src/sandbox/index.ts";
import { startScriptedModel } from "../support/scripted-model.ts";
import { chatModelFor } from "./helpers.ts";

const run = (exitCode: number, stderr: string): ExecResult => ({
  exitCode,
  signal: null,
  stdout: "",
  stderr,
  truncated: false,
  limit: null,
  durationMs: 3,
  backend: "bwrap",
});
const input: ReviewInput = {
  issue: "<issue>x</issue>",
  file: "reproducer.py",
  script: "assert f() == 1\n",
  before: run(1, "AssertionError: got 2"),
  patch: "--- a/x.py\n+++ b/x.py\n",
  after: run(0, ""),
};

test("a malformed verdict goes back with the exact problem; yes/no is read leniently", async () => {
  const model = await startScriptedModel([
    "I think the patch is fine.",
    '{"patch-correct": "maybe", "test-correct": "yes"}',
    'Sure:\n```json\n{"patch-correct": "Yes", "test-correct": true, "patch-analysis": "fixes it", "patch-advice": null, "test-analysis": "ok", "test-advice": ""}\n```',
  ]);
  try {
    const v = await reviewCandidate(chatModelFor(model.baseURL), input);
    assert.deepEqual(v, {
      "patch-correct": "yes",
      "test-correct": "yes",
      "patch-analysis": "fixes it",
      "patch-advice": "",
      "test-analysis": "ok",
      "test-advice": "",
    });
    assert.match(model.requests[1]!.messages.at(-1)!.content!, /contains no valid JSON object/);
    assert.match(
      model.requests[2]!.messages.at(-1)!.content!,
      /required shape: patch-correct: must be "yes" or "no"/,
    );
    assert.equal(model.requests[0]!.response_format?.type, "json_object");
  } finally {
    await model.close();
  }
});

test("no usable verdict after the retries is a ReviewUnavailable", async () => {
  const model = await startScriptedModel(["no", "still no", "nope"]);
  try {
    await assert.rejects(reviewCandidate(chatModelFor(model.baseURL), input), ReviewUnavailable);
    assert.equal(model.requests.length, 3);
  } finally {
    await model.close();
  }
});

test("every prompt renders with its inputs, and an optional section disappears when empty", () => {
  const write = renderReviewPrompt("reproducer-write", {
    issue: "ISSUE {{layout}}",
    language: "Python 3",
    file: "reproducer.py",
    command: "python3 reproducer.py",
    language_notes: "- note",
    layout: "",
    version: "",
  });
  assert.match(write, /ISSUE \{\{layout\}\}/);
  assert.doesNotMatch(write, /Top of the repository/);
  assert.match(write, /finish in seconds\.\n- note\n\nAnswer with the complete script/);
  const review = renderReviewPrompt("review-user", {
    issue: "I",
    maintainer: "",
    file: "r.py",
    script: "S",
    before: "B",
    patch: "P",
    after: "A",
    scan: "",
    pinned: "",
    tests: "",
  });
  assert.doesNotMatch(review, /syntax scan/);
  assert.doesNotMatch(review, /repository's own tests did/);
  assert.doesNotMatch(review, /claims/);
  assert.match(
    renderReviewPrompt("review-user", {
      issue: "I",
      maintainer: "",
      file: "r.py",
      script: "S",
      before: "B",
      patch: "P",
      after: "A",
      scan: "- the patch reads the environment: `os.environ` at calc.py:3",
      pinned: "",
      tests: "",
    }),
    /A syntax scan of the code the patch adds[^\n]*\n\n- the patch reads the environment: `os\.environ` at calc\.py:3\n/,
  );
  for (const key of [
    "patch-correct",
    "test-correct",
    "patch-analysis",
    "patch-advice",
    "test-analysis",
    "test-advice",
  ]) {
    assert.ok(review.includes(`"${key}"`), key);
  }
  const v = renderReviewPrompt("review-validation-feedback", {
    command: "pytest",
    summary: "S",
    regressions: "",
    failures: "",
  });
  assert.doesNotMatch(v, /passed before the patch and fail/);
  assert.throws(
    () => renderReviewPrompt("review-retry", {} as { problem: string }),
    /placeholder \{\{problem\}\} has no input/,
  );
});
