import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_CALL_CHARS, parseApiCall } from "../../src/agents/api-call.ts";
import { TEST_API_SPECS } from "../support/api-specs.ts";

const ok = (text: string) => {
  const r = parseApiCall(text, TEST_API_SPECS);
  assert.ok(r.ok, r.ok ? "" : r.message);
  return r.call;
};
const fail = (text: string) => {
  const r = parseApiCall(text, TEST_API_SPECS);
  assert.equal(r.ok, false, `expected '${text}' to be rejected`);
  return r.ok ? "" : r.message;
};

test("quotes of either kind, backticks and escaped quotes", () => {
  assert.deepEqual(ok(`search_method_in_class("save", 'Model')`).args, ["save", "Model"]);
  assert.deepEqual(ok('search_code(`x = "y"`)').args, ['x = "y"']);
  assert.deepEqual(ok(`search_code("print(\\"hi\\")")`).args, ['print("hi")']);
  assert.deepEqual(ok(`search_code('it\\'s')`).args, ["it's"]);
  assert.deepEqual(ok(`search_code("""a, b""")`).args, ["a, b"]);
  assert.equal(ok(`search_method_in_class('save','Model')`).text, 'search_method_in_class("save", "Model")');
});

test("keyword arguments, numbers, bare words, list markers and qualified names", () => {
  assert.deepEqual(ok(`search_method_in_class(class_name="Model", method_name="save")`).args, [
    "save",
    "Model",
  ]);
  assert.deepEqual(ok(`search_method_in_file(method="f", file="a/b.py")`).args, ["f", "a/b.py"]);
  assert.deepEqual(ok(`get_code_around_line("a.py", 12, 5)`).args, ["a.py", "12", "5"]);
  assert.deepEqual(ok(`get_code_around_line("a.py", "12")`).args, ["a.py", "12"]);
  assert.deepEqual(ok("search_class(Foo)").args, ["Foo"]);
  assert.deepEqual(ok("search_code(foo(1, 2))").args, ["foo(1, 2)"]);
  assert.equal(ok('1. `search_method("f")`;').name, "search_method");
  assert.equal(ok('api.search_method("f")').name, "search_method");
});

test("unknown APIs and wrong argument counts get precise messages", () => {
  assert.match(
    fail('search_function("f")'),
    /'search_function' is not one of the search APIs\. Use only: search_class,/,
  );
  assert.match(
    fail('search_method_in_class("save")'),
    /search_method_in_class takes 2 argument\(s\) \(search_method_in_class\(method_name, class_name\)\), but .* gives 1; missing: class_name/,
  );
  assert.match(fail('search_class("A", "B")'), /search_class takes 1 argument\(s\).*gives 2/);
  assert.match(fail('search_class(klass="A")'), /search_class has no parameter 'klass'/);
  assert.match(fail('search_class("A)'), /quote is never closed/);
  assert.match(fail("search_class"), /is not an API call/);
  assert.match(fail('search_class("")'), /is empty/);
});

test("crafted calls: over-long text is refused with a short quote; backtick and `;` runs are trimmed", () => {
  const huge = `search_code("${"a".repeat(MAX_CALL_CHARS)}")`;
  const message = fail(huge);
  assert.match(message, /characters long; an API call may have at most \d+/);
  assert.ok(message.length < 600, "the refusal quotes a short form of the call");
  assert.deepEqual(ok(`\`\`\`search_code("x")\`\`\`;  `).args, ["x"]);
  assert.ok(fail(`${"`".repeat(50_000)}x`).length < 600);
  assert.match(fail(`search_code("${"b".repeat(50_000)})`), /quote is never closed/);
  // A 100 kB fragment (search_code's own cap) is still a call.
  assert.equal(ok(`search_code("${"c".repeat(100 * 1024)}")`).args[0]!.length, 100 * 1024);
});
