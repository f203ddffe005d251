import assert from "node:assert/strict";
import { test } from "node:test";
import { onlyPinnedFail, pinnedClaims, saidAround } from "../../src/contract/pinned-test.ts";

// A claim that a failing test pins the old behaviour is the model's word: it is taken only about a test
// that failed, quoting words the issue holds; anything else is refused with why.

const ISSUE = "parse_dfxp_time_expr(None) should return None,\n  not 0.0.";
const FAILING = ["test/test_utils.py::TestUtil::test_parse_dfxp_time_expr"];

test("claims are taken only for a failing test and the issue's own words", () => {
  const answer = [
    'PINNED TEST: test/test_utils.py::TestUtil::test_parse_dfxp_time_expr | "should return None, not 0.0"',
    'PINNED TEST: test/test_utils.py::TestUtil::test_other | "should return None"',
    'PINNED TEST: test/test_utils.py::TestUtil::test_parse_dfxp_time_expr | "must raise ValueError"',
  ].join("\n");
  const c = pinnedClaims(answer, ISSUE, FAILING);
  assert.deepEqual(c.taken, [{ test: FAILING[0], words: "should return None, not 0.0" }]);
  assert.equal(c.refused.length, 2);
  assert.match(c.refused[0]!, /test_other: not one of the tests that failed/);
  assert.match(c.refused[1]!, /the quoted words are not the issue's/);
  assert.equal(pinnedClaims("no claim here", ISSUE, FAILING).taken.length, 0);
});

test("only when every failing test is claimed does the claim decide; what the writer said is kept as prose", () => {
  const taken = pinnedClaims(`PINNED TEST: ${FAILING[0]} | "should return None"`, ISSUE, FAILING).taken;
  assert.equal(onlyPinnedFail(taken, FAILING), true);
  assert.equal(onlyPinnedFail(taken, [...FAILING, "test/x.py::test_y"]), false);
  assert.equal(onlyPinnedFail([], FAILING), false);
  const said = saidAround(
    "The test pins 0.0.\n<file>a.py</file>\n<original>x = 1</original>\n<patched>x = 2</patched>\n",
  );
  assert.match(said, /^> The test pins 0\.0\./);
  assert.doesNotMatch(said, /x = [12]/);
});
