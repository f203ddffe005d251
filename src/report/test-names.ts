import type { ValidationReport } from "../contract/result.ts";
import { inertProse } from "../core/inert-markdown.ts";

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

/** Selected tests named in full before the rest are counted. */
export const NAMED_SELECTED_LIMIT = 20;

/**
 * Markdown lines saying which tests a validation ran and why, and which it did not (an empty list for a
 * result without that record). Test names, the command and the texts that quote the repository's
 * configuration are shown inert (code spans).
 */
export function testsRunLines(validation: unknown, limit = NAMED_SELECTED_LIMIT): string[] {
  if (!validation || typeof validation !== "object" || Array.isArray(validation)) return [];
  const t = (validation as Record<string, unknown>).tests;
  if (!t || typeof t !== "object" || Array.isArray(t)) return [];
  const r = t as Record<string, unknown>;
  const str = (x: unknown): string | null => (typeof x === "string" && x.trim() !== "" ? x : null);
  const kind = str(r.kind);
  const why = str(r.why);
  const lines: string[] = [];
  const head =
    kind === "full"
      ? "Tests run: the whole suite"
      : kind === "targeted+rest"
        ? "Tests run: the tests related to the change first, then the whole suite"
        : "Tests run: the tests related to the change";
  lines.push(`${head}${why ? ` (${inertProse(why, { max: 300 })})` : ""}`);
  const command = str(r.command);
  if (command) lines.push(`How they were run: ${codeSpan(command)}`);
  const selected = Array.isArray(r.selected) ? r.selected : [];
  const items: string[] = [];
  for (const s of selected.slice(0, limit)) {
    if (!s || typeof s !== "object") continue;
    const o = s as Record<string, unknown>;
    const target = str(o.target);
    if (!target) continue;
    const reasons = Array.isArray(o.reasons)
      ? o.reasons.filter((x): x is string => typeof x === "string")
      : [];
    const detail = str(o.detail);
    const reason = str(o.reason);
    const because = reason ? ` (${inertProse(reason, { max: 500 })})` : "";
    const left =
      o.run === "over-budget"
        ? ` — not run: the time given to related tests ran out${because}`
        : o.run === "after-regression"
          ? " — not run: a regression was already shown"
          : o.run === "unpatched-too-slow"
            ? ` — could not be judged here (timed out before the patch), not run after it${because}`
            : o.run === "needs-network"
              ? ` — needs the network (not judged here): its tests failed before the patch with networking off${because}`
              : " — ran before and after the patch";
    items.push(
      `- ${codeSpan(target)}: ${inertProse(reasons.join(", ") || "selected", { max: 300 })}${detail ? ` (${codeSpan(detail)})` : ""}${left}`,
    );
  }
  if (items.length > 0) {
    const more = selected.length - limit;
    const budget = typeof r.relatedBudgetMs === "number" ? r.relatedBudgetMs : null;
    const title =
      budget !== null
        ? `Selected tests and why, in the order they ran (those best able to show a regression first, within ${Math.round(budget / 1000)} s):`
        : "Selected tests and why:";
    lines.push([title, ...items, ...(more > 0 ? [`- … and ${more} more`] : [])].join("\n"));
  }
  const notRun = str(r.notRun);
  // Never "nothing was left out" beside related tests that did not run, or beside related tests the
  // selection left out (outside what the test command runs): said of the command's suite only then.
  const unrun = selected.some(
    (s) => s && typeof s === "object" && ((s as Record<string, unknown>).run ?? "ran") !== "ran",
  );
  if (notRun) lines.push(`Not run: ${plainNotRun(notRun)}`);
  else if (!unrun)
    lines.push(
      /\bleft out\b/.test(why ?? "")
        ? "Of what the test command runs, no test was left out."
        : "Nothing of the suite was left out.",
    );
  return lines;
}

/**
 * The validation's own account of what it did not run, in plain words: its names of settings as code,
 * the rest as inert text ("over the 45 s budget for related tests" said as the time given to them).
 */
export function plainNotRun(text: string): string {
  const plain = text
    .replace(/\balready took the budget for related tests\b/g, "used all the time given to related tests")
    .replace(
      /\bover the (\d+(?:\.\d+)? m?s) budget for related tests\b/g,
      "past the $1 given to related tests",
    )
    .replace(/\bbudget for related tests\b/g, "time given to related tests")
    .replace(/, (validation\.[a-z-]+)\b/g, " (setting $1)");
  return plain
    .split(/\b(validation\.[a-z-]+)\b/)
    .map((part, i) => (i % 2 === 1 ? codeSpan(part) : inertProse(part, { max: 2000 })))
    .join(" ")
    .replace(/\(setting {2}/g, "(setting ")
    .replace(/` \)/g, "`)");
}
