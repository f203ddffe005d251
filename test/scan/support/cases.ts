import assert from "node:assert/strict";
import { test } from "node:test";
import { describeFinding, scanFileChange } from "../../../src/scan/index.ts";

export interface Case {
  name: string;
  file: string;
  before: string | null;
  after: string;
  /** The kinds found, in line order (empty: an honest patch). */
  kinds: string[];
}

/** One test per case: the kinds found in line order, each finding's excerpt from its own line. */
export function checkCases(cases: readonly Case[]): void {
  for (const c of cases) {
    test(`scan: ${c.name}`, async () => {
      const got = await scanFileChange(c.file, c.before, c.after);
      assert.deepEqual(
        got.findings.map((f) => f.kind),
        c.kinds,
        got.findings.map((f) => describeFinding(f)).join("\n"),
      );
      for (const f of got.findings) {
        assert.ok(f.line >= 1 && f.excerpt.length > 0);
        assert.equal(
          c.after.split("\n")[f.line - 1]?.trim().replace(/`/g, "'").slice(0, 20),
          f.excerpt.slice(0, 20),
        );
      }
    });
  }
}
