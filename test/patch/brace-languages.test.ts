import assert from "node:assert/strict";
import { test } from "node:test";
import { openers } from "../../src/patch/columns.ts";
import { isCommentLine } from "../../src/patch/plan-render.ts";
import { sameCode } from "../../src/patch/same-code.ts";
import { textSyntaxFor } from "../../src/languages/index.ts";
import { after, apply, edit } from "./helpers.ts";

const RUST = `impl Report {
    pub fn render(&self) -> String {
        let head = r#"report "(" draft"#;
        let mut out = String::from(head);
        for line in &self.lines {
            out.push_str(line);
        }
        out
    }
}
`;

const CPP = `#include <string>
#define SEP " "

std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) {
        if (!out.empty()) out += SEP;
        out += p;
    }
    return out;
}

const char* usage(bool verbose) {
    if (verbose) {
        return R"(usage: tool [--opts]
((see the manual)";
    }
    return "usage: tool";
}
`;

test("rust: an answer written at two spaces is rescaled to the file's four, past a raw string with a '('", async () => {
  const r = await apply(
    { "src/report.rs": RUST },
    edit(
      "src/report.rs",
      'let head = r#"report "(" draft"#;\nlet mut out = String::from(head);\nfor line in &self.lines {\n  out.push_str(line);\n}',
      'let head = r#"report "(" draft"#;\nlet mut out = String::from(head);\nfor line in &self.lines {\n  if !line.is_empty() {\n    out.push_str(line);\n  }\n}',
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "src/report.rs"),
    RUST.replace(
      "            out.push_str(line);\n",
      "            if !line.is_empty() {\n                out.push_str(line);\n            }\n",
    ),
  );
});

test("c++: an answer at two spaces is rescaled to four past a multi-line raw string with brackets", async () => {
  const r = await apply(
    { "src/join.cpp": CPP },
    edit(
      "src/join.cpp",
      'if (verbose) {\n  return R"(usage: tool [--opts]\n((see the manual)";\n}\nreturn "usage: tool";',
      'if (verbose) {\n  return R"(usage: tool [--opts]\n((see the manual)";\n}\nif (!isatty(1)) {\n  return "usage";\n}\nreturn "usage: tool";',
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "src/join.cpp"),
    CPP.replace(
      '    return "usage: tool";',
      '    if (!isatty(1)) {\n        return "usage";\n    }\n    return "usage: tool";',
    ),
  );
});

test("c++: a fix in a function after a preprocessor line applies", async () => {
  const r = await apply(
    { "src/join.cpp": CPP },
    edit(
      "src/join.cpp",
      "for (const auto& p : parts) {\n  if (!out.empty()) out += SEP;\n  out += p;\n}",
      "for (const auto& p : parts) {\n  if (p.empty()) continue;\n  if (!out.empty()) out += SEP;\n  out += p;\n}",
    ),
  );
  assert.equal(r.status, "APPLICABLE_PATCH", r.feedback);
  assert.equal(
    after(r, "src/join.cpp"),
    CPP.replace("        if (!out.empty())", "        if (p.empty()) continue;\n        if (!out.empty())"),
  );
});

test("brackets inside raw strings, lifetimes, char literals and preprocessor lines open nothing", () => {
  const rust = textSyntaxFor("a.rs");
  assert.deepEqual(openers(['let s = r#"(("#;', "x"], rust), [null, null]);
  assert.deepEqual(openers(["fn f<'a>(x: &'a str,", "  y: char) {", "let c = '(';", "z"], rust), [
    null,
    { line: 0, after: 9 },
    null,
    null,
  ]);
  const cpp = textSyntaxFor("a.cpp");
  assert.deepEqual(openers(["#define F(x) (x", "int y = 1;"], cpp), [null, null]);
  assert.deepEqual(openers(['auto s = R"x(a(b', ')x";', "f(1,", "2);"], cpp), [
    null,
    null,
    null,
    { line: 2, after: 2 },
  ]);
  // `*ptr = 0;` is code; ` * text` inside a block comment is not.
  assert.equal(isCommentLine("  *ptr = 0;", cpp), false);
  assert.equal(isCommentLine("   * the count", cpp), true);
  assert.equal(isCommentLine("#include <map>", cpp), false);
  assert.equal(isCommentLine("#[derive(Debug)]", rust), false);
});

test("a string literal's spaces are code in Rust and C++; comments are not", async () => {
  const cpp = 'std::string sep() { return " "; }\n';
  assert.equal(await sameCode("a.cpp", cpp, cpp.replace('" "', '""')), false);
  assert.equal(await sameCode("a.cpp", cpp, `// the separator\n${cpp}`), true);
  assert.equal(await sameCode("a.h", "#define N 1\n", "#define N 2\n"), false);
  const raw = 'fn f() -> &\'static str { r#"a b"# }\n';
  assert.equal(await sameCode("a.rs", raw, raw.replace("a b", "ab")), false);
  assert.equal(await sameCode("a.rs", raw, raw.replace("fn f", "/// doc\nfn f")), true);
  assert.equal(await sameCode("a.rs", raw, raw.replace("{ r", "{\n    r")), true);
});
