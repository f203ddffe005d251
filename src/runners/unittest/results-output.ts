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
  let i = 0;
  while (isWordChar(line[i])) i++;
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
  let pending: string | null = null;
  forEachLine(output, (line) => {
    const head = unittestHead(line);
    if (head && line.startsWith(" ... ", head.end)) {
      const o = outcome(line.slice(head.end + 5));
      if (o) put(tests, head.dotted, o);
      pending = null;
      return;
    }
    if (head && trimEndLinear(line).length === head.end) {
      pending = head.dotted;
      return;
    }
    if (pending !== null) {
      const at = line.lastIndexOf(" ... ");
      const o = at >= 0 ? outcome(line.slice(at + 5)) : null;
      if (o) put(tests, pending, o);
      pending = null;
    }
    return;
  });
  return { parser: "unittest", tests };
}
