/**
 * Crafted inputs for the host-side parsers. Two kinds:
 *
 * - mutations of real output: for every line of a realistic sample and every cut point in it, the
 *   prefix up to the cut repeated (as one giant line and as many lines), the prefix followed by a long
 *   run of the character at the cut, and the line with a long run of spaces or of the cut character
 *   pushed in at the cut. Backtracking expressions blow up on long runs of the prefix they keep
 *   re-trying; this family finds such prefixes without knowing the expressions.
 * - hand-written attacks aimed at the shapes each parser looks for (unclosed tags, unbalanced braces,
 *   deep nesting, runs of whitespace before a missing anchor).
 */

export type Gen = (size: number) => string;
export interface Case {
  name: string;
  gen: Gen;
}

/** `unit` repeated until the text is `size` characters (cut to size). */
export const fill = (unit: string, size: number): string =>
  unit.length === 0 || size <= 0 ? "" : unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

const show = (s: string, n = 18): string => JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s);

/** The mutation family of a sample text (see the file comment). */
export function mutations(sample: string, maxCut = 64): Case[] {
  const cases: Case[] = [];
  const lines = [...new Set(sample.split("\n").filter((l) => l.trim() !== ""))];
  for (const line of lines) {
    const cuts = Math.min(line.length, maxCut);
    for (let c = 1; c <= cuts; c++) {
      const prefix = line.slice(0, c);
      const at = line[c] ?? " ";
      cases.push(
        { name: `${show(prefix)} repeated on one line`, gen: (n) => fill(prefix, n) },
        { name: `${show(prefix)} repeated as lines`, gen: (n) => fill(`${prefix}\n`, n) },
        { name: `${show(prefix)} + run of ${show(at)}`, gen: (n) => prefix + fill(at, n - prefix.length) },
        {
          name: `${show(prefix)} + spaces + rest of the line`,
          gen: (n) => prefix + fill(" ", n - line.length) + line.slice(c),
        },
        {
          name: `${show(line)} with a run of ${show(at)} at ${c}, as lines`,
          gen: (n) => fill(`${prefix}${at.repeat(200)}${line.slice(c)}\n`, n),
        },
      );
    }
  }
  return cases;
}

// Realistic samples, one per runner (what the parsers are written against).
export const SAMPLES = {
  pytest: `tests/test_a.py::test_x PASSED                                   [ 50%]
tests/test_a.py::test_y[1-2] FAILED                              [100%]
tests/test_a.py::test_z[a b] SKIPPED (unconditional)             [100%]
=========================== short test summary info ============================
PASSED tests/test_b.py::TestK::test_m
FAILED tests/test_b.py::test_bad - assert 1 == 2
ERROR tests/test_c.py - ImportError: cannot import name 'x'
\x1b[32mPASSED\x1b[0m tests/test_d.py::test_color`,
  unittest: `test_a (test_u.T.test_a) ... ok
test_b (test_u.T) ... FAIL
test_c (test_u.T.test_c) ... ERROR
test_d (test_u.T.test_d) ... skipped 'no'`,
  spec: `✔ top ok (0.6ms)
✖ top bad (0.5ms)
▶ suite (3 tests)
  ✔ inner ok (0.18ms)
  ﹣ skipped (0.1ms) # SKIP
✖ suite (0.5ms)
ℹ tests 4

✖ failing tests:

test at test/a.test.js:5:3
✖ top bad (0.5ms)
  AssertionError [ERR_ASSERTION]: 1 == 2`,
  vitest: ` ❯ vt/a.test.js (4 tests | 2 failed) 9ms
   ❯ suite A (3)
     ✓ passes 1ms
     × fails 5ms
 ✓ vt/b.test.js (2 tests | 1 skipped) 2ms
⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯
 FAIL  vt/a.test.js > suite A > fails
AssertionError: expected 1 to be 2`,
  mocha: `  suite A
    ✔ passes
    2) fails

  1 passing (3ms)
  1 failing

  2) suite A
       fails:
      at Context.<anonymous> (test/a.test.js:4:30)
      at process.processImmediate (node:internal/timers:574:21)`,
  jest: `PASS src/a.test.js
  math
    ✓ adds (2 ms)
    ✕ subtracts (1 ms)
    ○ skipped later
  ● math › subtracts
      at Object.equal (src/a.test.js:4:30)
FAIL src/b.test.js
  ✓ b works 12ms
 ✓ src/c.test.ts (3 tests) 5ms
  1) fails in mocha
  - pending test`,
  tap: `TAP version 13
# Subtest: top ok
ok 1 - top ok
# Subtest: suite
    # Subtest: inner bad
    not ok 1 - inner bad
      ---
      location: '/workspace/test/a.test.js:5:3'
      ...
    ok 2 - inner skip # SKIP
ok 2 - suite
1..2`,
  go: `=== RUN   TestA
--- PASS: TestA (0.00s)
--- FAIL: TestB (0.00s)
FAIL\tex.com/m/a\t0.01s
ok  \tex.com/m/z\t0.01s
{"Action":"pass","Package":"ex.com/m/a","Test":"TestA"}`,
  junit: `<?xml version="1.0"?><testsuite name="s">
<testcase classname="com.ex.CalcTest" name="adds" time="0.01"/>
<testcase classname="com.ex.CalcTest" name="subtracts"><failure message="x">trace</failure></testcase>
<testcase classname="com.ex.CalcTest" name="a &lt;b&gt;"><skipped/></testcase>
</testsuite>`,
  json: `I will call these:
\`\`\`json
{"API_calls": ["search_method(\\"f\\")", "search_code(\`a = {1}\`)"], "bug_locations": [{"file": "a.py", "method": "f",}]}
\`\`\`
{"has-reproducible-example": true}`,
  patch: `Reflection: the bug is in f.
<file>src/a.py</file>
<original>
def f(x):
    return x
</original>
<patched>
def f(x):
    return x + 1
</patched>`,
  call: `search_method_in_class("save", class_name="Model")
1. \`search_code('a = "b"; c')\`;
search_code(\`\`\`x = {"k": [1, 2]}\`\`\`)
get_code_around_line("x.py", 12, 5)`,
};

/** Hand-written attacks on the test-output parsers (all runners). */
export const TEST_OUTPUT_ATTACKS: Case[] = [
  { name: "one line of `a::` (node ids with no space)", gen: (n) => fill("a::", n) },
  { name: "PASSED + one line of `x::`", gen: (n) => `PASSED ${fill("x::", n - 7)}` },
  { name: "spaces then a letter (trailing-space trim)", gen: (n) => `${fill(" ", n - 1)}x` },
  { name: "lines of spaces then a letter", gen: (n) => fill(`${" ".repeat(4000)}x\n`, n) },
  { name: "✔ name, spaces, no duration", gen: (n) => `✔ a${fill(" ", n - 4)}b` },
  { name: "✔ name with `(` runs", gen: (n) => `✔ a ${fill(" (1", n)}` },
  { name: "▶ suite with `(N test` runs", gen: (n) => `▶ s ${fill(" (1 test", n)}` },
  { name: "ok 1 - then `#` runs", gen: (n) => `ok 1 - ${fill("# ", n)}` },
  { name: "ESC [ then `;` run", gen: (n) => `\x1b[${fill(";", n)}` },
  { name: "ESC [ runs", gen: (n) => fill("\x1b[1;", n) },
  {
    name: "deep nesting: 2,000 suites, then many tests at the bottom",
    gen: (n) => {
      let out = "";
      for (let d = 0; d < 2000; d++) out += `${" ".repeat(d)}# Subtest: ${"s".repeat(50)}\n`;
      for (let d = 0; d < 2000; d++) out += `${" ".repeat(d)}describe${"t".repeat(50)}\n`;
      const leaf = `${" ".repeat(2001)}ok 1 - leaf\n${" ".repeat(2001)}✔ leaf\n`;
      return out + fill(leaf, n - out.length);
    },
  },
  { name: "unittest: `a (` + dotted run", gen: (n) => `a (${fill("a.", n)}` },
  {
    name: "go: `{` lines that are not JSON",
    gen: (n) => fill(`{"Action":"pass","Test":${"[".repeat(100)}\n`, n),
  },
  { name: "go: `--- PASS: ` + no name", gen: (n) => fill("--- PASS: \n", n) },
  { name: "pytest: `x[` + spaces + `] ` runs", gen: (n) => `a::b[${fill("] x ", n)}` },
  { name: "ERROR + `.p` runs", gen: (n) => `ERROR ${fill("a.p", n)}` },
  { name: "tabs and \\r runs", gen: (n) => fill("\t\r", n) },
  {
    name: "node recap: failures of one name, then as many recap entries",
    gen: (n) => {
      const half = Math.floor(n / 2);
      return `${fill("✖ same (1ms)\n", half)}\n✖ failing tests:\n${fill("test at test/a.test.js:1:1\n✖ same (1ms)\n", n - half)}`;
    },
  },
  {
    name: "mocha recap: numbered failures, then frames for each",
    gen: (n) => {
      const half = Math.floor(n / 2);
      return `${fill("  1) same\n", half)}\n  1 failing\n${fill("  1) same:\n      at f (test/a.test.js:1:2)\n", n - half)}`;
    },
  },
  {
    name: "lines like file markers: one per line",
    gen: (n) => fill("### auto-fix test file 0a1b2c: test/a.test.js\n✖ x\n", n),
  },
];

/** Hand-written attacks on the JUnit report parser. */
export const JUNIT_ATTACKS: Case[] = [
  { name: "`<testcase>` never closed", gen: (n) => fill("<testcase>", n) },
  { name: "`<testcase ` with no `>`", gen: (n) => fill("<testcase ", n) },
  { name: '`<testcase name="` runs', gen: (n) => `<testcase ${fill('name="', n)}>` },
  { name: "`&amp;` runs in a name", gen: (n) => `<testcase name="${fill("&amp;", n - 20)}"/>` },
  { name: "`&` with no `;`", gen: (n) => `<testcase name="${fill("&", n - 20)}"/>` },
  {
    name: "maximal count of small test cases",
    gen: (n) => fill('<testcase classname="c" name="t"><failure/></testcase>\n', n),
  },
  {
    name: "unique names, closed late",
    gen: (n) => {
      const parts: string[] = [];
      let len = 0;
      for (let i = 0; len < n; i++) {
        const s = `<testcase classname="pkg.C${i % 97}" name="test_${i}"><system-out>x</system-out></testcase>\n`;
        parts.push(s);
        len += s.length;
      }
      return parts.join("").slice(0, n);
    },
  },
  { name: "`<failure` inside a never-closed body", gen: (n) => `<testcase>${fill("<failur", n)}` },
  // node's junit reporter nests suites: the suites a test case is in become part of its id.
  {
    name: "`<testsuite>` opened ever deeper, a test case in each",
    gen: (n) => fill('<testsuite name="s"><testcase name="t" file="/workspace/a.test.js"/>', n),
  },
  { name: "`<testsuite ` with no `>`", gen: (n) => `${fill("<testsuite ", n - 40)}<testcase name="t"/>` },
  {
    name: "`</testsuite>` with no opener, between test cases",
    gen: (n) => fill('</testsuite><testcase name="t"/>', n),
  },
];

/** Hand-written attacks on the patch answer parser (`<file>/<original>/<patched>`). */
export const PATCH_ATTACKS: Case[] = [
  { name: "`<file>` repeated, never closed", gen: (n) => fill("<file>", n) },
  { name: "`<original>` repeated, never closed", gen: (n) => fill("<original>\n", n) },
  { name: "`<patched` with no `>`", gen: (n) => fill("<patched ", n) },
  { name: "`<fi` partial tags", gen: (n) => fill("<fi", n) },
  { name: "`</original>` closes with no opener", gen: (n) => fill("</original>\n", n) },
  { name: "`<file>a</file><original>` repeated", gen: (n) => fill("<file>a.py</file>\n<original>\nx\n", n) },
  { name: "fence opened, never closed", gen: (n) => `\`\`\`python\n${fill("<file>a.py</file>\n", n)}` },
  { name: "`<file new=` attribute runs", gen: (n) => `<file ${fill("new=", n)}>a</file>` },
  { name: "line-number prefixes, 1 MB", gen: (n) => `<original>\n${fill("  12 | x = 1\n", n)}` },
];

/** Hand-written attacks on the JSON extractors. */
export const JSON_ATTACKS: Case[] = [
  { name: "`{` run (unbalanced)", gen: (n) => fill("{", n) },
  { name: "`{}` run (many candidates)", gen: (n) => fill("{}", n) },
  { name: '`{"` run (strings never closed)', gen: (n) => fill('{"', n) },
  { name: "``` then newlines, no close", gen: (n) => `\`\`\`${fill("\n", n - 3)}` },
  { name: "``` run on one line", gen: (n) => `${fill("`", n - 1)}\n` },
  { name: "``` fences, none closed", gen: (n) => fill("```a\n", n) },
  { name: "trailing commas", gen: (n) => `{"a": [${fill("1,  ", n - 10)}]}` },
  { name: "comma + whitespace runs", gen: (n) => `{${fill(",        ", n)}` },
  {
    name: "braces in prose before a deep object",
    gen: (n) => `{ see {here} ${"{".repeat(20)} ${fill('{"a": [', (n - 40) / 2)}`,
  },
  { name: "nested arrays of objects", gen: (n) => `${fill("[{", n / 2)}${fill("}]", n / 2)}` },
  { name: "escaped quotes in a string", gen: (n) => `{"a": "${fill('\\"', n - 10)}"}` },
];

/** Hand-written attacks on the API-call parser and search_code. */
export const CALL_ATTACKS: Case[] = [
  { name: "backtick run, not at the end", gen: (n) => `${fill("`", n - 1)}x` },
  { name: "`;` + whitespace runs", gen: (n) => `search_code("x")${fill("; ", n)}x` },
  { name: "search_code with a quote never closed", gen: (n) => `search_code("${fill("a", n)})` },
  { name: "search_code with escapes", gen: (n) => `search_code("${fill("\\\\", n)}")` },
  { name: "keyword argument runs", gen: (n) => `search_code(${fill("a=", n)})` },
  { name: "bracket depth runs", gen: (n) => `search_code(${fill("([{", n)})` },
];

/** A realistic Python module: comments, decorators, strings of every kind, brackets over lines. */
export const PYTHON_SAMPLE = `# Licensed under the terms in LICENSE.
# Nothing here is warranted.
import os, re  # two imports

@dataclass(frozen=True)
class Cart(Base, metaclass=Meta):
    """A cart.

    It holds items."""
    items: list[int] = field(default_factory=list)

    # The total, with tax.
    def total(self, rate: float = 0.2) -> float:
        s = sum(i.price for i in self.items)  # plain sum
        msg = f"{s!r:>10} and {rate}" + r'\\d+' + b"bytes".decode()
        data = {'a': [1, 2, (3,
                 4)], "b": lambda x: x ** 2}
        if s > 100 and \\
           rate:
            return s * (1 + rate)
        # else:
        #     return s
        return s
`;

/** Hand-written attacks on tree-sitter's Python reading of repository source (index, patch checks). */
export const PYTHON_ATTACKS: Case[] = [
  {
    name: "comment lines (one run)",
    gen: (n) => `def f():\n${fill("    # a comment line\n", n - 20)}    pass\n`,
  },
  {
    name: "comment lines and a syntax error",
    gen: (n) => `def f(:\n${fill("    # a comment line\n", n - 20)}    pass\n`,
  },
  {
    // In a block, before its last line: the scanner reads the run at each line end.
    name: "comment lines, each less indented",
    gen: (n) => {
      const lines = Math.floor(Math.sqrt(2 * (n - 40)));
      const run = Array.from({ length: lines }, (_v, i) => `${" ".repeat(lines - i)}#`).join("\n");
      return `def f():\n    x = 1\n${run}\n    return x\n`;
    },
  },
  {
    name: "comment lines, each less indented, then a dedent",
    gen: (n) => {
      const lines = Math.floor(Math.sqrt(2 * (n - 40)));
      const run = Array.from({ length: lines }, (_v, i) => `${" ".repeat(lines - i)}#`).join("\n");
      return `def f():\n    x = 1\n${run}\ny = 2\n`;
    },
  },
  {
    name: "comment lines, alternating indentation",
    gen: (n) => `def f():\n    x = 1\n${fill("#\n        #\n", n - 40)}\n    return x\n`,
  },
  {
    name: "blank lines in a comment run",
    gen: (n) => `def f():\n    x = 1\n${fill("# c\n\n", n - 40)}\n    return x\n`,
  },
  { name: "`(` run", gen: (n) => `x = ${fill("(", n - 4)}` },
  { name: "`[` then `,` run", gen: (n) => `x = [${fill("1,", n - 5)}` },
  { name: "triple quote never closed", gen: (n) => `x = """${fill("a\n", n - 7)}` },
  { name: "block depth run", gen: (n) => fill("if x:\n", n) },
  { name: "indentation ramp", gen: (n) => fill("def f():\n if x:\n  y = 1\n   z = 2\n", n) },
  { name: "backslash continuations", gen: (n) => `x = 1 + \\\n${fill("  2 + \\\n", n - 20)}3\n` },
  { name: "f-string nesting", gen: (n) => `x = ${fill('f"{', n / 2)}${fill('}"', n / 2)}` },
];

/** Realistic sources of the other languages the index reads: comments, strings, templates, generics. */
export const SOURCE_SAMPLES = {
  javascript: `// Licensed under the terms in LICENSE.
/* A block comment
 * over lines. */
import { a, b as c } from "./mod.js";
export class Cart extends Base {
  #items = [];
  static of(...xs) { return new Cart(xs); }
  get total() {
    const s = this.#items.reduce((acc, i) => acc + i.price, 0); // sum
    return \`\${s.toFixed(2)} of \${this.#items.length}\` + /a+[b/]c/g.source;
  }
  async *each() { for await (const x of this.#items) yield x?.name ?? "none"; }
}
export default function make(o = { a: [1, 2, { b: 3 }] }) { return o.a.map((x) => x * 2); }
`,
  typescript: `// Licensed under the terms in LICENSE.
export interface Item<T extends object = {}> { readonly price: number; meta?: Record<string, T> }
export abstract class Cart<T> implements Iterable<T> {
  private items: Array<Item<T>> = [];
  constructor(public readonly id: string, protected rate = 0.2) {}
  total(this: Cart<T>, extra?: number): number {
    return this.items.reduce((a, i) => a + i.price, extra ?? 0) * (1 + this.rate);
  }
  abstract [Symbol.iterator](): Iterator<T>;
}
export const make = <T,>(x: T): Cart<T> | null => (x as unknown as Cart<T>) satisfies object;
type Deep<T> = { [K in keyof T]: T[K] extends object ? Deep<T[K]> : T[K] };
enum Kind { A = 1, B = A << 1 }
`,
  java: `// Licensed under the terms in LICENSE.
package shop;

import java.util.*;

/** A cart. */
@SuppressWarnings("unchecked")
public final class Cart<T extends Item> implements Iterable<T> {
    private final List<T> items = new ArrayList<>();
    public double total(double rate) {
        double s = items.stream().mapToDouble(i -> i.price()).sum(); // sum
        String msg = """
            total: %s
            """.formatted(s);
        return s * (1 + rate);
    }
    @Override public Iterator<T> iterator() { return items.iterator(); }
    record Pair<A, B>(A a, B b) {}
    enum Kind { A, B; int code() { return ordinal(); } }
}
`,
  go: `// Licensed under the terms in LICENSE.
package shop

import (
	"fmt"
	"strings"
)

// Cart holds items.
type Cart[T any] struct {
	items []T
	rate  float64 \`json:"rate"\`
}

func (c *Cart[T]) Total(price func(T) float64) (sum float64) {
	for _, i := range c.items {
		sum += price(i) // plain sum
	}
	return sum * (1 + c.rate)
}

func Make[T any](xs ...T) *Cart[T] { return &Cart[T]{items: xs, rate: 0.2} }

var _ = fmt.Sprintf("%v %s", strings.Repeat("a", 3), \`raw\`)
`,
} as const;

/** Hand-written attacks on the brace languages' grammars. */
export const BRACE_ATTACKS: Case[] = [
  { name: "`{` run", gen: (n) => fill("{", n) },
  { name: "`(` run", gen: (n) => `x = ${fill("(", n - 4)}` },
  { name: "`<` run (generics)", gen: (n) => `f${fill("<", n - 1)}` },
  { name: "`/*` never closed", gen: (n) => `/*${fill("a\n", n - 2)}` },
  { name: "`/*` on every line, none closed", gen: (n) => fill("/* a\n", n) },
  { name: "line comments", gen: (n) => fill("// a comment line\n", n) },
  { name: "string never closed", gen: (n) => `x = "${fill("a", n - 5)}` },
  { name: "template nesting", gen: (n) => `${fill("`${", n / 2)}${fill("}`", n / 2)}` },
  { name: "`if (a) {` run", gen: (n) => fill("if (a) {\n", n) },
  { name: "`a ? b :` run", gen: (n) => `x = ${fill("a ? b : ", n - 4)}c` },
];
