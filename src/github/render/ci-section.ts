import { inlineCode } from "../../core/inert-markdown.ts";

const START = "<!-- auto-fix:ci -->";
const END = "<!-- /auto-fix:ci -->";

export interface CiView {
  sha: string;
  pull: number;
  failing: string[];
  /** The automatic run this failure starts, when `ci_retries` allows one. */
  automatic: { run: number; of: number } | null;
  /** `ci_retries` is set but used up. */
  usedUp: { of: number } | null;
}

/** The CI lines of the status comment: which checks failed on the pull request's head, and what next. */
export function renderCiSection(v: CiView): string {
  const names = v.failing.slice(0, 10).map((n) => inlineCode(n, 100));
  const more = v.failing.length > 10 ? ` and ${v.failing.length - 10} more` : "";
  const next = v.automatic
    ? `auto-fix starts a run with the failing checks as evidence (\`ci_retries: ${v.automatic.of}\`, automatic run ${v.automatic.run} of ${v.automatic.of}).`
    : v.usedUp
      ? `The automatic runs are used up (\`ci_retries: ${v.usedUp.of}\`). Comment \`/retry\` to run again with the failing checks' names, annotations and logs as evidence.`
      : "Comment `/retry` to run again with the failing checks' names, annotations and logs as evidence.";
  return [
    START,
    "",
    "---",
    `❌ **CI failed** on ${inlineCode(v.sha.slice(0, 7), 20)} of #${v.pull}${names.length > 0 ? `: ${names.join(", ")}${more}` : ""}.`,
    next,
    END,
  ].join("\n");
}

/** The status comment's body with its CI lines replaced (or added at the end). */
export function withCiSection(body: string, section: string): string {
  const i = body.indexOf(START);
  const j = i >= 0 ? body.indexOf(END, i) : -1;
  const base = i >= 0 && j >= 0 ? body.slice(0, i) + body.slice(j + END.length) : body;
  return `${base.trimEnd()}\n\n${section}\n`;
}
