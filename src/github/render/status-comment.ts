import { inertProse, inlineCode, oneLine } from "../../core/inert-markdown.ts";
import { type CiView, renderCiSection } from "./ci-section.ts";
import { type IssueState, statusMarker } from "./markers.ts";

/** The stages the status comment shows, in order. */
export const STAGES = [
  "cloned",
  "indexed",
  "reproduced",
  "located",
  "patched",
  "reviewed",
  "validated",
  "tested",
  "pull request",
] as const;
export type StageName = (typeof STAGES)[number];

/** Titles a stage line may carry instead of its stage's own: the tests' outcomes that are not a pass. */
export const STAGE_TITLES = ["Tests could not be run", "The test run cannot be trusted"] as const;

/** warning: the stage ran but could not show what it is for (e.g. tests that could not be run). */
export type StageStatus = "pending" | "running" | "done" | "skipped" | "warning" | "failed";

export interface StageLine {
  status: StageStatus;
  /**
   * Plain text, perhaps from the pipeline or the model, shown inert: names (paths, test ids, listed with
   * commas) as code, words as escaped text.
   */
  note?: string;
  /** The pull request or issue the stage produced, shown as a live reference. */
  ref?: number;
  /** Words that replace the stage's title (one of the app's own, rendered as Markdown). */
  title?: (typeof STAGE_TITLES)[number];
}

export interface FinalState {
  ok: boolean;
  /** One sentence in plain words: what happened (Markdown; untrusted parts made inert by the caller). */
  headline: string;
  /** Further facts (what was found, why no patch passed), Markdown with untrusted parts made inert. */
  details: string[];
  /** What the maintainer can do next. */
  next: string[];
}

export interface StatusView {
  state: IssueState;
  run: number;
  maxRuns: number;
  /** How the run started, e.g. "labelled `auto-fix` by @alice". */
  trigger: string;
  guidance?: string;
  phase: "running" | "finished";
  stages: Partial<Record<StageName, StageLine>>;
  final?: FinalState;
  /** Facts about the run itself (e.g. how a resumed run went on), Markdown written by the app. */
  notices?: string[];
  /** The failing checks that started an automatic run: the same lines the CI report adds. */
  ci?: CiView;
}

const ICONS: Record<StageStatus, string> = {
  pending: "⬜",
  running: "⏳",
  done: "✅",
  skipped: "➖",
  warning: "⚠️",
  failed: "❌",
};

const TITLES: Record<StageName, string> = {
  cloned: "Cloned the repository",
  indexed: "Indexed the code",
  reproduced: "Reproduced the issue",
  located: "Located the bug",
  patched: "Wrote a patch",
  reviewed: "Reviewed patch and reproducer",
  validated: "Ran the repository's tests",
  tested: "Added a regression test",
  "pull request": "Pull request",
};

/**
 * A name inside a note: a path, a module or a test id (`stats/summary.py`, `shop.PriceTest.half`,
 * `tests/t.py::test_a`): parts joined by `/`, `.` or `::` (the last of two characters or more), or a
 * word holding `_`; a unit after it (`calc.py › add`) is part of it.
 */
const NAME =
  /(?<![\w./:-])(?:[A-Za-z_][\w-]*(?:(?:\/|\.|::)[\w-]+)*(?:\/|\.|::)[\w-]{2,}|[A-Za-z]\w*_\w+)(?: › [\w.]+)*(?![\w/:-]|\.\w)/g;

/** Escaped text that keeps the spaces around it (`inertProse` trims). */
function proseKeepingSpaces(text: string): string {
  if (text.trim() === "") return text.replace(/\s+/g, " ");
  const lead = /^\s*/.exec(text)![0] ? " " : "";
  const trail = /\s*$/.exec(text)![0] ? " " : "";
  return `${lead}${inertProse(text.trim())}${trail}`;
}

/** A stage's note on one line: the names in it as code spans, the words around them as escaped text. */
export function noteMarkdown(note: string): string {
  const line = oneLine(note, 2000);
  const out: string[] = [];
  let at = 0;
  for (const m of line.matchAll(NAME)) {
    if (m.index > at) out.push(proseKeepingSpaces(line.slice(at, m.index)));
    out.push(inlineCode(m[0]));
    at = m.index + m[0].length;
  }
  if (at < line.length) out.push(proseKeepingSpaces(line.slice(at)));
  return out.join("");
}

/** Renders the one status comment the app keeps per issue (edited in place as the run goes). */
export function renderStatus(view: StatusView): string {
  const lines: string[] = [statusMarker(view.state)];
  const head =
    view.phase === "running"
      ? "👀 **auto-fix** is working on this issue."
      : view.final?.ok
        ? "🚀 **auto-fix** finished."
        : "😕 **auto-fix** stopped without a pull request.";
  lines.push(head, "");
  lines.push(`Run ${view.run} of at most ${view.maxRuns} for this issue, ${view.trigger}.`);
  if (view.guidance?.trim()) lines.push(`Guidance: ${inertProse(oneLine(view.guidance, 500))}`);
  for (const n of view.notices ?? []) lines.push("", `ℹ️ ${n}`);
  lines.push("");
  for (const stage of STAGES) {
    const s = view.stages[stage] ?? { status: "pending" };
    const ref = s.ref ? ` — #${s.ref}` : "";
    const note = s.note?.trim() ? noteMarkdown(s.note) : "";
    lines.push(
      s.title
        ? `- ${ICONS[s.status]} ${s.title}${ref}${note ? `: ${note}` : ""}`
        : `- ${ICONS[s.status]} ${TITLES[stage]}${ref}${note ? ` — ${note}` : ""}`,
    );
  }
  if (view.final) {
    lines.push("", `${view.final.ok ? "🚀" : "😕"} **${view.final.headline}**`);
    for (const d of view.final.details) lines.push("", d);
    if (view.final.next.length > 0) {
      lines.push("", "What you can do:");
      for (const n of view.final.next) lines.push(`- ${n}`);
    }
  }
  if (view.phase !== "finished") {
    lines.push("", "Comment `/cancel` to stop this run.");
  }
  if (view.ci) lines.push("", renderCiSection(view.ci));
  return lines.join("\n");
}
