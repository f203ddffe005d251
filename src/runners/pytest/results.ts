import type { FailureBlock, RunnerResults } from "../parts/results.ts";
import { parsePytest } from "./results-output.ts";
import { withoutRecap } from "./results-recap.ts";

/** Longest output read for progress lines. */
const MAX_PROGRESS_SCAN = 4 * 1024 * 1024;

/**
 * The index of the last target pytest's progress lines name at the start of a line
 * (`tests/test_a.py ..  [ 50%]`, then `tests/test_b.py ` when it was stopped inside it), or -1.
 */
export function progressAt(stdout: string, order: ReadonlyMap<string, number>): number {
  let at = -1;
  const text = stdout.length > MAX_PROGRESS_SCAN ? stdout.slice(-MAX_PROGRESS_SCAN) : stdout;
  let from = 0;
  while (from < text.length) {
    let to = text.indexOf("\n", from);
    if (to < 0) to = text.length;
    const space = text.indexOf(" ", from);
    if (space > from && space < to) {
      const i = order.get(text.slice(from, space));
      if (
        i !== undefined &&
        /^[.FEsxXp]*\s*(\[\s*\d+%\])?\s*$/.test(text.slice(space + 1, Math.min(to, space + 500)))
      )
        at = Math.max(at, i);
    }
    from = to + 1;
  }
  return at;
}

/**
 * A failure's block as pytest prints it: `____ test_fetch ____`, `____ TestApi.test_get ____`,
 * `____ ERROR collecting tests/x.py ____`, or the `-r` summary's `FAILED tests/x.py::test_a - reason`.
 */
export function failureBlock(line: string): FailureBlock | null {
  const py = /^_{3,} (.{1,500}?) _{3,}$/.exec(line);
  if (py) {
    const name = py[1]!;
    if (name.startsWith("ERROR collecting ")) {
      const file = name.slice("ERROR collecting ".length);
      return { owns: (id) => id.startsWith(`${file}::`) || id === file, reason: null };
    }
    const tail = `::${name.replaceAll(".", "::")}`;
    return { owns: (id) => id.endsWith(tail) || id.includes(`${tail}[`), reason: null };
  }
  const sum = /^(?:FAILED|ERROR) (\S{1,500})(?: - (.*))?$/.exec(line);
  if (sum) {
    const id = sum[1]!;
    return { owns: (x) => x === id, reason: sum[2] ?? null };
  }
  return null;
}

const COLLECTION = "::<collection>";

/** pytest's output: `-v` lines and the `-rA` short summary; a stopped run's file from its progress lines. */
export const results: RunnerResults = {
  parseOutput: (output) => {
    const r = parsePytest(output);
    return r.tests.size > 0 ? r : null;
  },
  loadedName: (id) => (id.endsWith(COLLECTION) ? id.slice(0, -COLLECTION.length) : null),
  tellsStoppedFile: true,
  progressAt,
  failureBlock,
  failureReport: { header: /^(?:_{3,}\s.*\s_{3,}$|={3,})/, boundary: /^(?:_{3,}\s.*\s_{3,}|={3,})/ },
  missingRunner: (output) =>
    output.includes("No module named pytest")
      ? "pytest is not installed in the sandbox's Python (`No module named pytest`): no test ran; install it in a setup step"
      : null,
  withoutRecap,
};
