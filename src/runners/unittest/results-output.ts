import { type ParsedTests, put, type TestOutcome } from "../shared/results-outcomes.ts";
import { forEachLine, isWordChar, trimEndLinear } from "../shared/results-text-scan.ts";

const UNITTEST: Record<string, TestOutcome> = {
  ok: "passed",
  "unexpected success": "passed",
  FAIL: "failed",
  ERROR: "failed",
  skipped: "skipped",
  "expected failure": "skipped",
};

const UNITTEST_WORDS = Object.keys(UNITTEST);

/** `name (dotted)` at the start of a line: the test's name, its dotted id and where the header ends. */
function unittestHead(line: string): { name: string; dotted: string; end: number } | null {
  // Python 3.11 names a module it could not import by its dotted name: `tests.test_x (unittest.loader…)`.
  let i = 0;
  while (isWordChar(line[i]) || (i > 0 && line[i] === "." && isWordChar(line[i + 1]))) i++;
  if (i === 0 || !line.startsWith(" (", i)) return null;
  const name = line.slice(0, i);
  const open = i + 2;
  let j = open;
  while (isWordChar(line[j]) || line[j] === ".") j++;
  if (j === open || line[j] !== ")") return null;
  const dottedRaw = line.slice(open, j);
  return { name, dotted: dottedRaw.endsWith(`.${name}`) ? dottedRaw : `${dottedRaw}.${name}`, end: j + 1 };
}

/**
 * unittest `-v`: `test_a (module.Class.test_a) ... ok|FAIL|ERROR|skipped`, or, for a test with a
 * docstring, the header alone on its line and `First docstring line ... ok` on the next.
 */
export function parseUnittest(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const outcome = (rest: string): TestOutcome | null => {
    const word = UNITTEST_WORDS.find((w) => rest.startsWith(w));
    return word ? UNITTEST[word]! : null;
  };
  /** A header waiting for its outcome: on the next line (a docstring), or on a line of its own. */
  let pending: { id: string; interrupted: boolean } | null = null;
  forEachLine(output, (line) => {
    if (pending?.interrupted) {
      // The test printed after its header: its outcome is the word unittest writes alone on a line;
      // a header line that follows starts the next test.
      const alone = trimEndLinear(line);
      const o = UNITTEST_WORDS.includes(alone) || alone.startsWith("skipped '") ? outcome(alone) : null;
      if (o) {
        put(tests, pending.id, o);
        pending = null;
        return;
      }
    }
    const head = unittestHead(line);
    if (head && line.startsWith(" ... ", head.end)) {
      const o = outcome(line.slice(head.end + 5));
      if (o) put(tests, head.dotted, o);
      pending = o ? null : { id: head.dotted, interrupted: true };
      return;
    }
    if (head && trimEndLinear(line).length === head.end) {
      pending = { id: head.dotted, interrupted: false };
      return;
    }
    if (pending !== null && !pending.interrupted) {
      const at = line.lastIndexOf(" ... ");
      const o = at >= 0 ? outcome(line.slice(at + 5)) : null;
      if (o) put(tests, pending.id, o);
      pending = null;
    }
    return;
  });
  return { parser: "unittest", tests };
}
