import { put, putFile, type TestOutcome } from "./results-outcomes.ts";
import { cleanName, frameLocation, isDigit, symbolLine, vitestFailure } from "./results-symbol-lines.ts";
import { skipSpaces, trimEndLinear } from "./results-text-scan.ts";

/**
 * Where a reporter starts repeating failures (node's, jest's, vitest's, mocha's recaps), and how the
 * recap is read: node's and mocha's name the file each failure comes from (`test at a.test.js:5:3`, a
 * stack frame), vitest's names it in the id (` FAIL  a.test.ts > suite > name`), jest's is not read.
 */
export type Recap = "node" | "mocha" | "vitest" | "jest";

export function recapAt(raw: string): Recap | null {
  const at = skipSpaces(raw);
  const c = raw[at];
  if (c === "✖") return raw.startsWith("✖ failing tests:", at) ? "node" : null;
  if (c === "S") return raw.startsWith("Summary of all failing tests", at) ? "jest" : null;
  if (c === "F") return raw.startsWith("Failed Tests ", at) && isDigit(raw[at + 13]) ? "vitest" : null;
  let d = at;
  while (isDigit(raw[d])) d++;
  return d > at && raw.length === d + 8 && raw.startsWith(" failing", d) ? "mocha" : null;
}

/**
 * Reads a reporter's recap of its failures: the file each failure comes from (node's `test at
 * a.test.js:5:3` before it, mocha's stack frames under its number), or the failure itself (vitest).
 * The tree's failures are noted as they are read (`failed`), to be matched with the recap's.
 */
export class RecapReader {
  kind: Recap | null = null;
  /** Failed ids by their own name, in order, and how many the recap has matched (node's recap names a failure by its name only). */
  private failedByName = new Map<string, { ids: string[]; next: number }>();
  /** mocha numbers each failure in the tree (`2) fails`) and again in its recap (`2) suite A`). */
  private byNumber = new Map<string, string>();
  private nodeLocation: string | null = null;
  private mochaId: string | null = null;

  private readonly tests: Map<string, TestOutcome>;
  private readonly files: Map<string, string[]>;

  constructor(tests: Map<string, TestOutcome>, files: Map<string, string[]>) {
    this.tests = tests;
    this.files = files;
  }

  /** Notes a failed test of the tree: its name and its number (mocha's `2)`) as the recap names it. */
  failed(name: string, id: string, sym: string): void {
    const same = this.failedByName.get(name);
    if (same) same.ids.push(id);
    else this.failedByName.set(name, { ids: [id], next: 0 });
    if (sym.endsWith(")")) this.byNumber.set(sym, id);
  }

  /** Reads one line of the recap; false when the rest of the output is not read (jest's). */
  read(raw: string): boolean | undefined {
    const line = trimEndLinear(raw);
    if (this.kind === "node") return this.nodeLine(line);
    if (this.kind === "mocha") {
      const m = symbolLine(line);
      if (m?.sym.endsWith(")") && m.indent <= 4) {
        this.mochaId = this.byNumber.get(m.sym) ?? null;
        return;
      }
      const loc = this.mochaId === null ? null : frameLocation(line);
      if (loc !== null) putFile(this.files, this.mochaId!, loc);
      return;
    }
    if (this.kind === "vitest") {
      const id = vitestFailure(line);
      if (id !== null) put(this.tests, id, "failed");
      return;
    }
    return false;
  }

  private nodeLine(line: string): undefined {
    const at = skipSpaces(line);
    if (line.startsWith("test at ", at) || line.startsWith("suite at ", at)) {
      this.nodeLocation = line.slice(line.indexOf(" at ", at) + 4);
      return;
    }
    const m = symbolLine(line);
    if (m && m.sym === "✖" && this.nodeLocation !== null) {
      const same = this.failedByName.get(cleanName(m.rest));
      const id = same?.ids[same.next];
      if (id !== undefined) {
        same!.next++;
        putFile(this.files, id, this.nodeLocation);
      }
    }
    this.nodeLocation = null;
    return;
  }
}
