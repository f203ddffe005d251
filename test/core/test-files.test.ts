import assert from "node:assert/strict";
import { test } from "node:test";
import { isTestPath } from "../../src/core/test-files.ts";

test("test files by per-language rules", () => {
  for (const p of [
    "tests/test_models.py",
    "pkg/test_models.py",
    "pkg/models_test.py",
    "src/__tests__/a.ts",
    "src/a.test.ts",
    "lib/a.spec.js",
    "src/test/java/com/x/FooTest.java",
    "src/main/java/com/x/FooTest.java",
    "pkg/server_test.go",
    "test/unit/helpers.js",
    "conftest.py",
  ]) {
    assert.equal(isTestPath(p), true, p);
  }
  for (const p of [
    "src/models.py",
    "pkg/testing_utils_x.pyx",
    "src/a.ts",
    "src/main/java/com/x/Foo.java",
    "pkg/server.go",
    "src/contest.py",
    "src/latest.js",
  ]) {
    assert.equal(isTestPath(p), false, p);
  }
});
