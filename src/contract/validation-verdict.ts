import type { ValidationReport } from "./result.ts";
import { plural, verb } from "../core/words.ts";
import { plainChecks } from "./runner-checks.ts";

/**
 * What a validation showed, in the same words wherever it is shown (report.md, the status comment, the
 * pull request body): tests that ran and were counted (✅, or ❌ for regressions), tests that could not
 * be run (⚠, never a pass), a run that cannot be trusted (❌), or no tests at all.
 */
export interface ValidationVerdict {
  /** counted: tests ran and were counted with no regression; the rest say why not. */
  kind: "counted" | "still-failing" | "regressions" | "could-not-run" | "tampered" | "no-tests";
  icon: "✅" | "❌" | "⚠️" | "➖";
  /** One line, plain text (may hold test ids and runner output: render it inert). */
  text: string;
}

const strip = (s: string): string => s.replace(/^tests could not be run:\s*/i, "").replace(/\.$/, "");

export function validationVerdict(
  v:
    | (Pick<
        ValidationReport,
        "status" | "summary" | "regressions" | "counted" | "fixed" | "stillFailingRelated"
      > & { tests?: Pick<NonNullable<ValidationReport["tests"]>, "selected"> | undefined })
    | null
    | undefined,
): ValidationVerdict {
  if (!v)
    return { kind: "no-tests", icon: "➖", text: "No test command: the repository's tests were not run" };
  switch (v.status) {
    case "passed":
    case "no-regressions": {
      const c = v.counted;
      const counts = c
        ? `${plural(c.before, "test")} ran before the patch and ${c.after} after`
        : "Tests ran before and after the patch";
      const fixed =
        v.fixed.length > 0
          ? `; ${plural(v.fixed.length, "test")} that failed before ${verb(v.fixed.length, "passes", "pass")} now`
          : "";
      const still = v.stillFailingRelated ?? [];
      if (still.length > 0) {
        const names = `${still.slice(0, 5).join(", ")}${still.length > 5 ? ` and ${still.length - 5} more` : ""}`;
        return {
          kind: "still-failing",
          icon: "⚠️",
          text: `${counts}: no regressions${fixed}, but ${plural(still.length, "related test")} that failed before still ${still.length === 1 ? "fails" : "fail"}: ${names}`,
        };
      }
      return { kind: "counted", icon: "✅", text: `${counts}: no regressions${fixed}` };
    }
    case "regressions":
      return {
        kind: "regressions",
        icon: "❌",
        text: /^\d+ regressions?\b/.test(v.summary)
          ? v.summary.replace(/\.$/, "")
          : `${plural(v.regressions.length, "regression")}: ${v.summary.replace(/\.$/, "")}`,
      };
    case "tampered": {
      // The summary says which run cannot be trusted ("the test run after the patch cannot be trusted: …").
      const said = plainChecks(v.summary.replace(/\.$/, ""));
      return {
        kind: "tampered",
        icon: "❌",
        text: /^the test run\b[^:]*cannot be trusted: /i.test(said)
          ? `${said[0]!.toUpperCase()}${said.slice(1)}`
          : `The test run cannot be trusted: ${said}`,
      };
    }
    case "could-not-run":
    case "error":
      return { kind: "could-not-run", icon: "⚠️", text: `Tests could not be run: ${strip(v.summary)}` };
    case "no-tests": {
      // Related tests were found but none ran: said as that, never as "no test relates".
      const unrun = relatedNotRun(v.tests?.selected ?? []);
      return {
        kind: "no-tests",
        icon: "➖",
        text: `No test judged the patch: ${unrun ?? v.summary.replace(/\.$/, "")}`,
      };
    }
  }
}

/**
 * Whether a validation's summary says more than its verdict: only for tests that were counted without
 * their counts (the verdict of every other kind is made from the summary itself).
 */
export function summaryAddsToVerdict(v: Pick<ValidationReport, "status" | "summary" | "counted">): boolean {
  return v.summary.trim() !== "" && (v.status === "passed" || v.status === "no-regressions") && !v.counted;
}

const NOT_RUN_WORDS: Record<string, (n: number) => string> = {
  "over-budget": () => "not run in the time given to related tests",
  "after-regression": () => "not run after a regression was shown",
  "unpatched-too-slow": (n) => `${verb(n, "its run", "their runs")} before the patch did not finish`,
  "needs-network": (n) => verb(n, "needs the network", "need the network"),
};

/**
 * "none of the 2 related test files ran (1 not run in the time given to related tests, 1 need the
 * network)" when a selection holds related tests and none of them ran; null otherwise.
 */
export function relatedNotRun(
  selected: readonly { run?: string | undefined; reasons: readonly string[] }[],
): string | null {
  if (selected.length === 0 || selected.some((s) => (s.run ?? "ran") === "ran")) return null;
  const counts = new Map<string, number>();
  for (const s of selected) counts.set(s.run!, (counts.get(s.run!) ?? 0) + 1);
  const why = [...counts].map(([run, n]) => `${n} ${NOT_RUN_WORDS[run]?.(n) ?? "not run"}`).join(", ");
  const total = selected.length;
  return `${total === 1 ? "the one related test" : `none of the ${total} related tests`} ${verb(total, "did not run", "ran")} (${why})`;
}
