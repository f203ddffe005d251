import type { ValidationReport } from "../contract/result.ts";

/**
 * The tests a patch fixed (failed before it, pass after) and broke (passed before, fail after), named in
 * `report.md` and the pull request body. Test ids come from the repository's test output: they are
 * untrusted text, shown only inside code spans (no mention, link, reference or HTML takes effect there),
 * on one line, capped in length, with long lists cut to "… and N more".
 */

/** Tests named in full before the rest are counted. */
export const NAMED_TESTS_LIMIT = 10;
/** Longest test id shown. */
const MAX_NAME_CHARS = 200;

export interface TestChanges {
  /** Failed before the patch, pass after it. */
  fixed: string[];
  /** Passed before the patch, fail (or no longer run) after it. */
  regressions: string[];
  /** The test output named individual tests (without it nothing can be named). */
  perTest: boolean;
}

const named = (names: readonly string[]): string[] => names.filter((t) => t.trim() !== "");

/** The fixed tests and the regressions of a validation (the result's, or a stage's outcome). */
export function testChanges(
  validation: Pick<ValidationReport, "fixed" | "regressions" | "perTest"> | null | undefined,
): TestChanges | null {
  if (!validation) return null;
  const fixed = named(validation.fixed);
  return {
    fixed,
    regressions: named(validation.regressions),
    perTest: validation.perTest || fixed.length > 0,
  };
}

/** One test id as an inert, single-line code span. */
export function codeSpan(text: string): string {
  let t = text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/\p{Cf}/gu, "")
    .replace(/\s+/g, " ")
    .trim();
  if (t.length > MAX_NAME_CHARS) t = `${t.slice(0, MAX_NAME_CHARS - 1)}…`;
  if (t === "") t = "(unnamed)";
  const longest = Math.max(0, ...[...t.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = t.startsWith("`") || t.endsWith("`") ? " " : "";
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** `a`, `b`, `c` … and N more. */
export function namedList(names: readonly string[], limit = NAMED_TESTS_LIMIT): string {
  const shown = names.slice(0, limit).map(codeSpan).join(", ");
  const more = names.length - limit;
  return more > 0 ? `${shown} … and ${more} more` : shown;
}

/** Markdown lines naming the fixed tests and the regressions (an empty list when nothing is known). */
export function testChangeLines(changes: TestChanges | null, limit = NAMED_TESTS_LIMIT): string[] {
  if (!changes) return [];
  const lines: string[] = [];
  if (changes.fixed.length > 0) {
    lines.push(
      `Tests that failed before the patch and pass after it (${changes.fixed.length}): ${namedList(changes.fixed, limit)}`,
    );
  } else if (changes.perTest) {
    lines.push("No test failed before the patch and passes after it.");
  }
  lines.push(
    changes.regressions.length > 0
      ? `Regressions, tests that passed before the patch and fail after it (${changes.regressions.length}): ${namedList(changes.regressions, limit)}`
      : "No test that passed before the patch fails after it.",
  );
  return lines;
}
