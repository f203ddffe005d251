import assert from "node:assert/strict";
import { test } from "node:test";
import { type Candidate, selectCandidate } from "../../src/select/index.ts";
import { compareRuns, type ValidationResult } from "../../src/validate/index.ts";

const v = (status: ValidationResult["status"], passed = 3, regressions: string[] = []): ValidationResult => ({
  ...compareRuns(null, null),
  status,
  regressions,
  after: { exitCode: 0, limit: null, passed, failed: 0, skipped: 0, parser: "pytest", durationMs: 1 },
});
const cand = (id: string, over: Partial<Candidate>): Candidate => ({
  id,
  status: "APPLICABLE_PATCH",
  reviewApproved: null,
  validation: v("passed"),
  ...over,
});

test("approved and regression-free beats regression-free beats best status", () => {
  const s = selectCandidate([
    cand("a", { reviewApproved: false, validation: v("passed", 5) }),
    cand("b", { reviewApproved: true, validation: v("regressions", 4, ["t1"]) }),
    cand("c", { reviewApproved: true, validation: v("no-regressions", 2) }),
    cand("d", { status: "RAW_PATCH_BUT_UNMATCHED", validation: null }),
  ]);
  assert.equal(s.winner?.id, "c");
  assert.match(s.reason, /candidate c won: approved by the reviewer and regression-free/);
  assert.deepEqual(
    s.ranking.map((r) => [r.id, r.tier]),
    [
      ["c", 1],
      ["a", 2],
      ["b", 3],
      ["d", 3],
    ],
  );
  const noApproved = selectCandidate([
    cand("x", { reviewApproved: true, validation: v("regressions", 1, ["t"]) }),
    cand("y", {}),
  ]);
  assert.equal(noApproved.winner?.id, "y");
  assert.match(noApproved.reason, /regression-free/);
});

test("without any regression-free candidate the best status wins; nothing applicable → no winner", () => {
  const s = selectCandidate([
    cand("p", { status: "RAW_PATCH_BUT_UNPARSED", validation: null }),
    cand("q", { validation: v("regressions", 1, ["t"]) }),
  ]);
  assert.equal(s.winner?.id, "q");
  assert.match(s.reason, /status APPLICABLE_PATCH \(regressions: t\)/);
  const none = selectCandidate([cand("n", { status: "NO_PATCH", validation: null })]);
  assert.equal(none.winner, null);
  assert.equal(selectCandidate([]).reason, "no candidates");
});

test("ties: the reproducer passing, then more passing tests, then the earliest", () => {
  const s = selectCandidate([
    cand("1", { reviewApproved: true, validation: v("passed", 3) }),
    cand("2", { reviewApproved: true, reproducerPasses: true, validation: v("passed", 3) }),
    cand("3", { reviewApproved: true, validation: v("passed", 9) }),
  ]);
  assert.equal(s.winner?.id, "2");
  const t = selectCandidate([
    cand("1", { validation: v("passed", 3) }),
    cand("2", { validation: v("passed", 3) }),
  ]);
  assert.equal(t.winner?.id, "1");
  const noTests = selectCandidate([cand("z", { reviewApproved: true, validation: v("no-tests") })]);
  assert.match(noTests.reason, /no test suite/);
});

test("a rejected patch whose reproducer still fails never wins over an approved one that passes it, even with a test failing", () => {
  const s = selectCandidate([
    cand("partial", { reviewApproved: false, reproducerPasses: false, validation: v("passed", 5) }),
    cand("fix", {
      reviewApproved: true,
      reproducerPasses: true,
      validation: v("regressions", 4, ["tests/test_dfxp.py::test_parse_none"]),
    }),
  ]);
  assert.equal(s.winner?.id, "fix");
  assert.match(
    s.reason,
    /approved by the reviewer, the reproducer passes; status APPLICABLE_PATCH \(regressions: tests\/test_dfxp\.py::test_parse_none\)/,
  );
  assert.match(s.ranking[1]!.why, /rejected by the reviewer and the reproducer still fails/);
  // Without an approved patch that passes the reproducer, the regression-free one still comes first.
  const alone = selectCandidate([
    cand("partial", { reviewApproved: false, reproducerPasses: false, validation: v("passed", 5) }),
    cand("other", { reviewApproved: true, reproducerPasses: false, validation: v("regressions", 4, ["t"]) }),
  ]);
  assert.equal(alone.winner?.id, "partial");
});
