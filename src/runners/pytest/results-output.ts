import { type ParsedTests, put, type TestOutcome } from "../shared/results-outcomes.ts";
import {
  forEachLine,
  forEachLineWith,
  nextSpace,
  statusAt,
  stripAnsi,
  trimEndLinear,
} from "../shared/results-text-scan.ts";

const PYTEST: Record<string, TestOutcome> = {
  PASSED: "passed",
  XPASS: "passed",
  FAILED: "failed",
  ERROR: "failed",
  XFAIL: "skipped",
  SKIPPED: "skipped",
};

/** Index of the last `::` in `tok` that has a character before it and one after it; -1 when none. */
function lastNodeSep(tok: string): number {
  if (tok.length < 4) return -1;
  const k = tok.lastIndexOf("::", tok.length - 3);
  return k >= 1 ? k : -1;
}

const SUMMARY_WORDS = ["PASSED", "FAILED", "ERROR", "XFAIL", "XPASS"] as const;
const VERBOSE_WORDS = ["PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"] as const;

/** `PASSED path::test[ - reason]` (the `-rA` short summary), or `ERROR path.py[ - reason]`. */
function pytestSummary(line: string): [string, TestOutcome] | null {
  const sp = line.indexOf(" ");
  if (sp < 0) return null;
  const word = line.slice(0, sp);
  if (!(SUMMARY_WORDS as readonly string[]).includes(word)) return null;
  const rest = line.slice(sp + 1);
  const tokEnd = nextSpace(rest);
  const tok = rest.slice(0, tokEnd);
  const sep = lastNodeSep(tok);
  if (sep >= 0) {
    const dash = rest.indexOf(" - ", sep + 3);
    return [dash < 0 ? rest : rest.slice(0, dash), PYTEST[word]!];
  }
  // A collection error names a file, not a test.
  if (word === "ERROR" && tok.length > 3 && tok.endsWith(".py")) {
    if (tokEnd === rest.length || rest.startsWith(" - ", tokEnd)) return [`${tok}::<collection>`, "failed"];
  }
  return null;
}

/** `path::test[params] STATUS …` (`-v` lines); params may hold spaces. */
function pytestVerbose(line: string): [string, TestOutcome] | null {
  const w = nextSpace(line);
  const head = line.slice(0, w);
  if (line[w] === " " && lastNodeSep(head) >= 0) {
    const word = statusAt(line, w + 1, VERBOSE_WORDS);
    if (word) return [head, PYTEST[word]!];
  }
  // `path::test[a b] STATUS`: the part before the last `[` of the first word holds the `::`.
  const bracket = head.lastIndexOf("[");
  if (bracket < 0 || lastNodeSep(head.slice(0, bracket)) < 0) return null;
  for (let p = line.indexOf("] ", w); p !== -1; p = line.indexOf("] ", p + 1)) {
    const word = statusAt(line, p + 2, VERBOSE_WORDS);
    if (word) return [line.slice(0, p + 1), PYTEST[word]!];
  }
  return null;
}

/** A banner line (`==== FAILURES ====`): the title between its rules, or null. */
function banner(line: string): string | null {
  const t = trimEndLinear(line);
  if (!t.startsWith("=") || !t.endsWith("=") || t.length < 7) return null;
  let a = 0;
  while (t[a] === "=") a++;
  let b = t.length;
  while (t[b - 1] === "=") b--;
  if (a === t.length || t[a] !== " " || t[b - 1] !== " ") return null;
  return t.slice(a + 1, b - 1);
}

/** The sections that repeat each test's report and its captured output: what a test printed is there. */
const REPORT_SECTIONS = new Set(["FAILURES", "ERRORS", "PASSES"]);

/**
 * The output without the sections where pytest shows each test's report and captured output (FAILURES,
 * ERRORS, PASSES, up to the next banner): a test that prints `tests/x.py::other PASSED` there names no
 * result. The lines that report results (`-v`, the short summary) are never inside them.
 */
function withoutReports(text: string): string {
  if (!text.includes("=== ")) return text;
  const kept: string[] = [];
  let inReport = false;
  forEachLine(text, (line) => {
    const title = banner(line);
    if (title !== null) inReport = REPORT_SECTIONS.has(title);
    else if (!inReport) kept.push(line);
    return undefined;
  });
  return kept.join("\n");
}

/** pytest: the `-rA` short summary (`PASSED path::test`) and `-v` lines (`path::test PASSED`). */
export function parsePytest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const text = withoutReports(stripAnsi(output));
  // Every line pytest reports a test on names it with `::`, except a collection error (`ERROR x.py`).
  const read = (raw: string): void => {
    const line = trimEndLinear(raw);
    const hit = pytestSummary(line) ?? pytestVerbose(line);
    if (hit) put(tests, hit[0], hit[1]);
  };
  forEachLineWith(text, "::", read);
  forEachLineWith(text, "ERROR ", (raw) => {
    if (raw.startsWith("ERROR ") && !raw.includes("::")) read(raw);
  });
  return { parser: "pytest", tests };
}
