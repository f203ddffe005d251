import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Fixture bugs for comparing the strategies, each with how the scripted model behaves on it. The model
 * is a function of the prompt it receives, as a real one is: the tree search's expansion of a node sees
 * that node's patch and failure and may answer differently from the first prompt.
 */
export interface FixtureBug {
  name: string;
  /** The repository (copied by the pipeline, never modified). */
  repo: string;
  issueText: string;
  /** The reproducer the checks run (written into the work tree as `reproducer.py`). */
  reproducer: string;
  testCmd: string;
  location: { file: string; method: string; intended_behavior: string };
  /** The linear patch writer's answers, in order (the last one repeats). */
  linear: string[];
  /** The tree expander's candidates for one expansion prompt (the server pads to `n` with the last). */
  expand(prompt: string): string[];
  /** The reward model's score for one reward prompt. */
  score(prompt: string): number;
}

const ROOT = fileURLToPath(new URL("../../fixtures/tree/", import.meta.url));
const read = (bug: string, file: string) => readFileSync(join(ROOT, bug, file), "utf8");

export const answer = (file: string, original: string, patched: string, reflection: string) =>
  `Reflection: ${reflection}\n\n<file>${file}</file>\n<original>\n${original}\n</original>\n<patched>\n${patched}\n</patched>\n`;

/** True when the prompt shows an earlier attempt whose diff adds `line`. */
const attemptAdds = (prompt: string, line: string) =>
  prompt.includes("earlier attempt") && prompt.includes(`+${line}`);

const MEDIAN_BUGGY = "    return ordered[mid] + ordered[mid - 1] / 2";
const MEDIAN_FLOOR = "    return (ordered[mid] + ordered[mid - 1]) // 2";
const MEDIAN_FIXED = "    return (ordered[mid] + ordered[mid - 1]) / 2";
const m = (original: string, patched: string, why: string) =>
  answer("stats/median.py", original, patched, why);

/** The fix needs two steps: parenthesise the sum (first idea, still wrong: floor division), then divide exactly. */
export const MEDIAN: FixtureBug = {
  name: "median",
  repo: join(ROOT, "median/repo"),
  issueText: read("median", "issue.md"),
  reproducer: read("median", "reproduce.py"),
  testCmd: "python3 -m unittest discover -s tests -t . -v",
  location: {
    file: "stats/median.py",
    method: "median",
    intended_behavior: "return the mean of the two middle values for an even number of values",
  },
  linear: [m(MEDIAN_BUGGY, MEDIAN_FLOOR, "Operator precedence: the sum must be divided as a whole.")],
  expand(prompt) {
    if (attemptAdds(prompt, MEDIAN_FLOOR)) {
      return [
        m(MEDIAN_FLOOR, MEDIAN_FIXED, "Floor division truncates 2.5 to 2; true division keeps the half."),
        m(MEDIAN_FLOOR, "    return (ordered[mid] + ordered[mid - 1]) / 2.0", "Divide by a float."),
      ];
    }
    if (prompt.includes("earlier attempt")) {
      return [m("    mid = n // 2", "    mid = n // 2 + 0", "Keep the middle index explicit.")];
    }
    return [
      m(MEDIAN_BUGGY, MEDIAN_FLOOR, "Operator precedence: the sum must be divided as a whole."),
      m(MEDIAN_BUGGY, "    return ordered[mid] / 2 + ordered[mid - 1]", "Halve the upper middle value."),
      m(
        "        return ordered[mid]",
        "        return ordered[mid - 1]",
        "The odd case picks the wrong index.",
      ),
      m(MEDIAN_BUGGY, "    return ordered[mid]", "Return the upper middle value."),
    ];
  },
  score(prompt) {
    if (prompt.includes(`+${MEDIAN_FLOOR}`)) return 70;
    if (prompt.includes("/ 2 + ordered[mid - 1]")) return 20;
    return 10;
  },
};

const s = (original: string, patched: string, why: string) => answer("text/slug.py", original, patched, why);

/** A one-step fix that both strategies find with their first answer. */
export const SLUG: FixtureBug = {
  name: "slug",
  repo: join(ROOT, "slug/repo"),
  issueText: read("slug", "issue.md"),
  reproducer: read("slug", "reproduce.py"),
  testCmd: "python3 -m unittest discover -s tests -t . -v",
  location: { file: "text/slug.py", method: "slugify", intended_behavior: "split on runs of whitespace" },
  linear: [
    s(
      '    words = title.lower().split(" ")',
      "    words = title.lower().split()",
      "split() drops empty words.",
    ),
  ],
  expand() {
    return [
      s(
        '    words = title.lower().split(" ")',
        "    words = title.lower().split()",
        "split() drops empty words.",
      ),
      s(
        '    words = title.lower().split(" ")',
        '    words = [w for w in title.lower().split(" ") if w]',
        "Filter empties.",
      ),
    ];
  },
  score: () => 50,
};

const o = (from: number, to: number) =>
  answer("dates/span.py", `OFFSET = ${from}`, `OFFSET = ${to}`, `The offset should be ${to}.`);

/** A bug the scripted model never fixes: every attempt moves the offset further the wrong way. */
export function offsetBug(): FixtureBug {
  let next = 2;
  return {
    name: "offset",
    repo: join(ROOT, "offset/repo"),
    issueText: read("offset", "issue.md"),
    reproducer: read("offset", "reproduce.py"),
    testCmd: "python3 -m unittest discover -s tests -t . -v",
    location: {
      file: "dates/span.py",
      method: "days_between",
      intended_behavior: "count whole days, no offset",
    },
    linear: [o(1, 2)],
    expand(prompt) {
      // A child's prompt shows the code as its parent left it ("1: OFFSET = 5").
      const current = Number(/^\s*\d+: OFFSET = (\d+)$/m.exec(prompt)?.[1] ?? 1);
      return [0, 1, 2, 3].map(() => o(current, next++));
    },
    score(prompt) {
      const to = Number(/\+OFFSET = (\d+)/.exec(prompt)?.[1] ?? 20);
      return Math.max(5, 60 - 3 * to);
    },
  };
}

export const bugs = (): FixtureBug[] => [SLUG, MEDIAN, offsetBug()];
