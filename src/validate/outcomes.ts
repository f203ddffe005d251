import { capId } from "./text-scan.ts";

export type TestOutcome = "passed" | "failed" | "skipped";

/**
 * Per-test outcomes read from a runner's output, keyed by a stable test id. Every parser of test output
 * is linear in its input: test output is written by the repository's code and may be crafted.
 */
export interface ParsedTests {
  parser: string;
  tests: Map<string, TestOutcome>;
  /**
   * The files a test id was reported from, as the runner printed them (a path, maybe absolute, with its
   * line and column removed), for runners whose ids do not name their file (node --test, mocha): one
   * or a few candidates per id, the first that is one of the tree's tests wins. Output is hostile: a
   * path here means nothing until it is looked up among the unpatched tree's tests.
   */
  files?: Map<string, string[]>;
  /** Set when the input was cut to its cap before parsing: what was left out. */
  note?: string;
}

const worse = (a: TestOutcome | undefined, b: TestOutcome): TestOutcome =>
  a === "failed" || b === "failed" ? "failed" : a === "passed" || b === "passed" ? "passed" : b;

/** Records an outcome under an id cut to its cap; a test seen twice keeps the worse outcome. */
export function put(map: Map<string, TestOutcome>, id: string, outcome: TestOutcome): void {
  const key = capId(id);
  map.set(key, worse(map.get(key), outcome));
}

/** Most candidate files kept per test id. */
export const MAX_FILES_PER_ID = 4;
/** Longest file path kept. */
const MAX_FILE_CHARS = 1000;

/**
 * A file a runner names for a test (`file:///x/a.test.js:5:3`, `test/a.test.js:5:3`, `(/x/a.js:1:2)`):
 * the path without its URL scheme, position and brackets; null when nothing path-like is left.
 */
export function filePart(raw: string): string | null {
  let s = raw.trim();
  if (s.startsWith("(") && s.endsWith(")")) s = s.slice(1, -1);
  if (s.startsWith("file://")) {
    s = s.slice(7);
    if (s.includes("%")) {
      try {
        s = decodeURIComponent(s);
      } catch {
        return null;
      }
    }
  }
  // `:line` and `:line:column`, from the end (two at most).
  for (let k = 0; k < 2; k++) {
    const colon = s.lastIndexOf(":");
    if (colon <= 0) break;
    const tail = s.slice(colon + 1);
    if (tail === "" || tail.length > 9 || ![...tail].every((c) => c >= "0" && c <= "9")) break;
    s = s.slice(0, colon);
  }
  if (s === "" || s.length > MAX_FILE_CHARS || /[\0\n\r]/.test(s)) return null;
  return s;
}

/** Records a candidate file for a test id (the first ones kept, duplicates dropped). */
export function putFile(files: Map<string, string[]>, id: string, raw: string): void {
  const file = filePart(raw);
  if (file === null) return;
  const key = capId(id);
  const cur = files.get(key);
  if (!cur) files.set(key, [file]);
  else if (cur.length < MAX_FILES_PER_ID && !cur.includes(file)) cur.push(file);
}
