import assert from "node:assert/strict";
import { test } from "node:test";
import { LANGUAGES, languageForPath, parseSource, syntaxProblems } from "../../src/languages/index.ts";

test("every grammar loads and reports a syntax error with its position", async () => {
  const bad: Record<string, string> = {
    python: "def f(:\n  pass\n",
    javascript: "function f( {\n}\n",
    typescript: "function f(a: number {\n}\n",
    tsx: "const x = <div>;\n",
    java: "class A { void f( { } }\n",
    go: "package x\nfunc f( {\n}\n",
    rust: "fn f( {\n}\n",
    cpp: "int f( {\n}\n",
  };
  for (const lang of LANGUAGES) {
    const tree = await parseSource(lang, bad[lang]!);
    const problems = syntaxProblems(tree);
    assert.ok(problems.length > 0, `${lang} should report a problem`);
    assert.ok(problems[0]!.line >= 1);
  }
  const ok = await parseSource("python", "def f(x):\n    return x\n");
  assert.deepEqual(syntaxProblems(ok), []);
});

test("languages by extension", () => {
  assert.equal(languageForPath("a/b.py"), "python");
  assert.equal(languageForPath("x.tsx"), "tsx");
  assert.equal(languageForPath("x.d.ts"), "typescript");
  assert.equal(languageForPath("Makefile"), null);
  assert.equal(languageForPath("dir.py/file"), null);
  assert.equal(languageForPath("src/lib.rs"), "rust");
  assert.equal(languageForPath("include/x.h"), "cpp");
  assert.equal(languageForPath("src/x.CC"), "cpp");
  assert.equal(languageForPath("main.kt"), null);
});
