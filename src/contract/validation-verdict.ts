import type { ValidationReport } from "./result.ts";
import { plural, verb } from "../core/words.ts";

/**
 * What a validation showed, in the same words wherever it is shown (report.md, the status comment, the
 * pull request body): tests that ran and were counted (✅, or ❌ for regressions), tests that could not
 * be run (⚠, never a pass), a run that cannot be trusted (❌ tampered), or no tests at all.
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
    | Pick<
        ValidationReport,
        "status" | "summary" | "regressions" | "counted" | "fixed" | "stillFailingRelated"
      >
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
    case "tampered":
      return {
        kind: "tampered",
        icon: "❌",
        text: `The test run was tampered with: ${v.summary.replace(/\.$/, "")}`,
      };
    case "could-not-run":
    case "error":
      return { kind: "could-not-run", icon: "⚠️", text: `Tests could not be run: ${strip(v.summary)}` };
    case "no-tests":
      return {
        kind: "no-tests",
        icon: "➖",
        text: `No test judged the patch: ${v.summary.replace(/\.$/, "")}`,
      };
  }
}
