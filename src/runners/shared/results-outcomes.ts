import type { TestOutcome } from "../parts/results.ts";
import { capId } from "./results-text-scan.ts";

export type { ParsedTests, TestOutcome } from "../parts/results.ts";

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

/** The name of a runner's entry for a test file as a whole (node --test, jest, vitest), after its file. */
export const FILE_ENTRY_NAME = "<file>";
const FILE_ENTRY = ` > ${FILE_ENTRY_NAME}`;

/** The id of a runner's entry for a test file as a whole, the file as the runner names it. */
export const fileEntryId = (file: string): string => `${file}${FILE_ENTRY}`;

/** The file an entry for a test file as a whole stands for (see `fileEntryId`), or null for a test. */
export const fileOfEntry = (id: string): string | null =>
  id.endsWith(FILE_ENTRY) ? id.slice(0, -FILE_ENTRY.length) : null;
