import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { applyFileDiff, parseUnifiedDiff } from "../../src/core/unified-diff.ts";
import { codeChangeOfDiff } from "../../src/patch/code-change.ts";
import { sameCode } from "../../src/patch/same-code.ts";
import { tempDir } from "../support/temp.ts";

const PY = `def mean(xs):
    """Average."""
    total = 0
    for x in xs:
        total += x
    return total / len(xs)
`;

test("comments and whitespace are not code; strings, names, operators and blocks are", async () => {
  assert.equal(
    await sameCode(
      "a.py",
      PY,
      PY.replace("    total = 0\n", "    # fixed: the bug was here\n    total = 0\n"),
    ),
    true,
  );
  assert.equal(await sameCode("a.py", PY, PY.replace("total = 0", "total   =   0")), true);
  assert.equal(await sameCode("a.py", PY, `${PY}\n\n# trailing note\n`), true);
  assert.equal(await sameCode("a.py", PY, PY.replace("/ len(xs)", "// len(xs)")), false);
  assert.equal(await sameCode("a.py", PY, PY.replace('"""Average."""', '"""Mean."""')), false);
  // The return moved into the loop: the same tokens, a different block.
  assert.equal(
    await sameCode("a.py", PY, PY.replace("    return total / len(xs)", "        return total / len(xs)")),
    false,
  );
  const js = "function f(a) {\n  return a + 1; // one\n}\n";
  assert.equal(await sameCode("f.js", js, "function f(a){return a+1;}\n/* note */\n"), true);
  assert.equal(await sameCode("f.js", js, js.replace("a + 1", "a + 2")), false);
  const java = "class A {\n  int f() { return 1; }\n}\n";
  assert.equal(
    await sameCode("A.java", java, java.replace("  int f()", "  // why\n  /** doc */\n  int f()")),
    true,
  );
  const go = "package a\n\nfunc F() int { return 1 }\n";
  assert.equal(await sameCode("a.go", go, go.replace("func F", "// F is one.\nfunc F")), true);
  assert.equal(await sameCode("a.go", go, go.replace("return 1", "return 2")), false);
  // A file in no language folder: a change beyond whitespace is one; whitespace alone cannot be told
  // (it may be inside a string).
  assert.equal(await sameCode("notes.txt", "a b\n", "a  b\n\n"), null);
  assert.equal(await sameCode("fmt.kt", 'val s = " "\n', 'val s = ""\n'), null);
  assert.equal(await sameCode("notes.txt", "a b\n", "a c\n"), false);
  // Broken syntax: it cannot be told.
  assert.equal(await sameCode("a.py", PY, PY.replace("for x in xs:", "for x in xs")), null);
});

test("a diff is applied in memory exactly, or not at all", () => {
  const before = "a\nb\nc\nd\n";
  const diff = "--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2,3 @@\n b\n-c\n+C\n+c2\n";
  const [f] = parseUnifiedDiff(diff);
  assert.equal(applyFileDiff(before, f!), "a\nb\nC\nc2\nd\n");
  assert.equal(applyFileDiff("a\nx\nc\nd\n", f!), null, "a hunk whose old lines are not there fails");
});

test("codeChangeOfDiff tells a comment-only patch from a real one, and reads no link", async () => {
  const root = tempDir("code-change-");
  mkdirSync(join(root, "pkg"));
  writeFileSync(join(root, "pkg", "stats.py"), PY);
  const comment =
    '--- a/pkg/stats.py\n+++ b/pkg/stats.py\n@@ -1,3 +1,4 @@\n def mean(xs):\n     """Average."""\n+    # the bug is fixed\n     total = 0\n';
  const same = await codeChangeOfDiff(root, comment);
  assert.equal(same.changed, false);
  assert.match(same.detail, /changes no code/);
  const real =
    "--- a/pkg/stats.py\n+++ b/pkg/stats.py\n@@ -5,2 +5,2 @@\n         total += x\n-    return total / len(xs)\n+    return total / max(1, len(xs))\n";
  assert.deepEqual(await codeChangeOfDiff(root, real), {
    changed: true,
    detail: "the patch changes code in pkg/stats.py",
  });
  const added = "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1 @@\n+X = 1\n";
  assert.equal((await codeChangeOfDiff(root, comment + added)).changed, true);
  // A link where the file was: never followed, so whether code changed cannot be told.
  writeFileSync(join(root, "secret.py"), PY);
  symlinkSync(join(root, "secret.py"), join(root, "pkg", "link.py"));
  const viaLink = comment.replaceAll("pkg/stats.py", "pkg/link.py");
  const r = await codeChangeOfDiff(root, viaLink);
  assert.equal(r.changed, null);
  assert.match(r.detail, /pkg\/link.py/);
});

test("comments are set aside in every language a runner tests: JS module kinds, TypeScript, Go and Java inline comments", async () => {
  const js = "export const slug = (s) => s.toLowerCase();\n";
  const commented = "// fixed\nexport const slug = (s) => /* really */ s.toLowerCase();\n/** doc */\n";
  for (const ext of ["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts"]) {
    assert.equal(await sameCode(`a.${ext}`, js, commented), true, ext);
    assert.equal(await sameCode(`a.${ext}`, js, js.replace("toLowerCase", "toUpperCase")), false, ext);
    // A string that looks like a comment is code.
    assert.equal(await sameCode(`a.${ext}`, js, `${js}const s = "// not a comment";\n`), false, ext);
  }
  const go = "package a\n\nfunc F() int { return 1 }\n";
  assert.equal(await sameCode("a.go", go, go.replace("return 1", "/* one */ return 1 // yes\n")), true);
  const java = "class A {\n  int f() { return 1; }\n}\n";
  assert.equal(await sameCode("A.java", java, java.replace("return 1;", "return /* x */ 1; // y\n")), true);
  assert.equal(
    await sameCode("A.java", java, java.replace("return 1;", 'String s = "// x"; return 1;')),
    false,
  );
});
