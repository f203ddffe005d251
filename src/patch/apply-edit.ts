/**
 * One edit against one file: locate its <original>, build the replacement, keep the indentation the
 * parser accepts (or create a new file through the explicit form).
 */
import { buildEdit } from "./build-edit.ts";
import { isPlaceholder, stripLineNumbers } from "./cleanup.ts";
import { chooseReading } from "./choose-reading.ts";
import { type Located, locate, locateWithGaps, veryClose } from "./locate.ts";
import type { RawEdit } from "./parse.ts";
import { describeProblem, type SyntaxAnalysis, type SyntaxChecker } from "./syntax.ts";
import { type FileText, splitText } from "./text.ts";
import type { EditReport, PatchStatus } from "./types.ts";

export interface FileState {
  path: string;
  before: FileText | null;
  current: FileText;
  /** The syntax analysis of `current` (computed when first needed). */
  analysis: SyntaxAnalysis | null;
  /** Applied regions: where they were in the original text (null when located after earlier edits) and now. */
  applied: {
    origStart: number | null;
    origEnd: number | null;
    curStart: number;
    curEnd: number;
    edit: number;
  }[];
}

export interface EditOutcome {
  report: EditReport;
  ok: boolean;
}

export const fail = (file: string, status: PatchStatus, message: string): EditOutcome => ({
  report: { file, status, message },
  ok: false,
});

/** "12 (in `def load(path):`), 40 (in `def size(path):`)": each place with the block that holds it. */
function lineList(starts: number[], ft: FileText): string {
  const shown = starts.slice(0, 8).map((s) => {
    const owner = enclosing(ft.lines, s);
    return owner ? `${s + 1} (in \`${owner}\`)` : String(s + 1);
  });
  return shown.join(", ") + (starts.length > shown.length ? `, ... (${starts.length} in all)` : "");
}

function enclosing(lines: readonly string[], at: number): string | null {
  const ind = (l: string) => /^[ \t]*/.exec(l)![0].replaceAll("\t", "    ").length;
  const own = ind(lines[at] ?? "");
  for (let i = at - 1; i >= 0 && at - i < 400; i--) {
    const l = lines[i]!;
    if (l.trim() !== "" && ind(l) < own && !/^\s*(\/\/|#|\*|\/\*)/.test(l)) return l.trim().slice(0, 60);
  }
  return null;
}

const squash = (s: string) => s.trim().replace(/\s+/g, " ");

function showRegion(ft: FileText, start: number, end: number, max = 12): string {
  const out: string[] = [];
  for (let i = start; i < Math.min(end, start + max); i++) out.push(`${i + 1} ${ft.lines[i]}`);
  if (end - start > max) out.push("...");
  return out.join("\n");
}

const TIER_NOTE: Record<string, string> = {
  exact: "exactly",
  reindented: "with a different indentation",
  whitespace: "ignoring whitespace",
  "blank-lines": "ignoring blank lines and whitespace",
  near: "approximately",
};

export async function createFile(
  st: FileState,
  edit: RawEdit,
  origEmpty: boolean,
  checker: SyntaxChecker,
): Promise<EditOutcome> {
  if (!origEmpty) {
    return fail(
      st.path,
      "RAW_PATCH_BUT_UNPARSED",
      `${st.path} is marked new="true" but has a non-empty <original>. Leave <original> empty to create a file.`,
    );
  }
  if (st.current.lines.length > 0) {
    return fail(
      st.path,
      "RAW_PATCH_BUT_UNPARSED",
      `${st.path} is created by two edits. Create it once, with its whole content.`,
    );
  }
  const content = stripLineNumbers(edit.patched).lines;
  const ph = content.find(isPlaceholder);
  if (ph !== undefined) {
    return fail(
      st.path,
      "RAW_PATCH_BUT_PLACEHOLDER",
      `the new file contains the placeholder "${ph.trim()}". Write the whole content of the new file.`,
    );
  }
  if (content.every((l) => l.trim() === "")) {
    return fail(
      st.path,
      "MATCHED_BUT_EMPTY_DIFF",
      `the new file ${st.path} would be empty. Give its content in <patched>.`,
    );
  }
  const text = `${content.join("\n")}\n`;
  const problems = await checker.problems(st.path, text);
  if (problems.length > 0) {
    return fail(
      st.path,
      "MATCHED_BUT_SYNTAX_ERROR",
      `the new file does not parse: ${describeProblem(problems[0]!, content)}. Fix the syntax.`,
    );
  }
  st.current = splitText(text);
  st.analysis = null;
  return {
    ok: true,
    report: {
      file: st.path,
      status: "APPLICABLE_PATCH",
      message: `creates ${st.path} (${content.length} lines).`,
    },
  };
}

export async function applyVariant(
  st: FileState,
  edit: RawEdit,
  orig: string[],
  patched: string[],
  checker: SyntaxChecker,
): Promise<EditOutcome> {
  const path = st.path;
  const before0 = st.before ?? st.current;
  // Lines that read like placeholders ("... unchanged ...") but stand in the file as they are, in an
  // <original> copied exactly: comments of the file, not code left out.
  const literal =
    orig.some(isPlaceholder) &&
    (() => {
      const at = locate(before0.lines, orig);
      return at.kind === "found" && at.tier === "exact";
    })();
  const gap = literal ? () => false : isPlaceholder;
  // A line of <patched> that reads like a placeholder but is one token off a line of <original> (a doc
  // comment's "..., it is unchanged." with a word changed) is that line changed, not code left out.
  const patchedGap = (l: string) =>
    isPlaceholder(l) && !orig.some((o) => o.trim() !== l.trim() && !gap(o) && veryClose(o.trim(), l.trim()));
  const origPh = orig.filter(gap);
  const same = orig.length === patched.length && orig.every((l, i) => l === patched[i]);
  // Locate in the file as the model saw it, then (for edits that build on earlier ones) in the edited text.
  // A file created by an earlier edit of the answer is matched against its new text.
  const before = st.before ?? st.current;
  // A placeholder inside <original> stands for code the model did not copy: <patched> must keep it too.
  const phO = origPh.length;
  const phP = patched.filter(patchedGap).length;
  if (phO > 0 && phP < phO) {
    return fail(
      path,
      "RAW_PATCH_BUT_PLACEHOLDER",
      `<original> leaves code out with "${origPh[0]!.trim()}", but <patched> does not keep that placeholder, so it is unclear whether the left-out code stays. Copy the original lines completely.`,
    );
  }
  const gl = locateWithGaps(before.lines, orig, gap);
  if (gl.kind === "placeholder") return fail(path, "RAW_PATCH_BUT_PLACEHOLDER", gl.message);
  let loc: Located = gl;
  let mapped: { start: number; end: number; map: (number | null)[] } | null = null;
  let origRange: { start: number; end: number } | null = null;
  let overlap: string | null = null;
  if (loc.kind === "found") {
    const l = loc;
    let offset = 0;
    for (const a of st.applied) {
      if (a.origStart === null || a.origEnd === null) {
        mapped = null;
        offset = Number.NaN;
        break;
      }
      if (l.start < a.origEnd && a.origStart < l.end) {
        // Overlapping blocks: fine when the shared lines are context the earlier edit left alone, which
        // shows as <original> still being found, once, in the edited text.
        overlap = `<original> overlaps the lines edit ${a.edit} changes (lines ${a.origStart + 1}-${a.origEnd}). Merge the two edits into one.`;
        offset = Number.NaN;
        break;
      }
      if (a.origEnd <= l.start) offset += a.curEnd - a.curStart - (a.origEnd - a.origStart);
    }
    if (!Number.isNaN(offset)) {
      mapped = {
        start: l.start + offset,
        end: l.end + offset,
        map: l.map.map((m) => (m === null ? null : m + offset)),
      };
      origRange = { start: l.start, end: l.end };
    }
  }
  if (loc.kind !== "ambiguous" && (!mapped || loc.kind !== "found") && st.applied.length > 0) {
    const againG = locateWithGaps(st.current.lines, orig, gap);
    const again: Located = againG.kind === "placeholder" ? { kind: "none", closest: null } : againG;
    if (again.kind === "found") {
      // Found only in the text earlier edits produced: this edit builds on them.
      loc = again;
      mapped = { start: again.start, end: again.end, map: again.map };
    } else if (loc.kind !== "found") loc = again;
  }
  if (overlap !== null && !mapped) return fail(path, "RAW_PATCH_BUT_AMBIGUOUS", overlap);
  if (loc.kind === "ambiguous") {
    return fail(
      path,
      "RAW_PATCH_BUT_AMBIGUOUS",
      `<original> matches ${loc.starts.length} places in ${path} (${TIER_NOTE[loc.tier]}), starting at lines ${lineList(loc.starts, st.current)}. Add a few lines before or after it so that it matches only the place you mean.`,
    );
  }
  if (loc.kind === "none" || !mapped) {
    if (origPh.length > 0) {
      return fail(
        path,
        "RAW_PATCH_BUT_PLACEHOLDER",
        `<original> contains the placeholder "${origPh[0]!.trim()}" instead of code, and without it the lines are not in ${path}. Copy the original lines completely.`,
      );
    }
    const done = alreadyApplied(st.current.lines, patched, orig);
    if (done) {
      return fail(
        path,
        "RAW_PATCH_BUT_ALREADY_APPLIED",
        `<original> is not in ${path}, but <patched> is (lines ${done.start + 1}-${done.end}): this edit is already applied. Leave it out; if the code still needs a change, copy <original> from the file as it is now.`,
      );
    }
    const closest = loc.kind === "none" ? loc.closest : null;
    let msg = `<original> was not found in ${path}.`;
    if (closest && closest.matched > 0) {
      const there = new Set(before.lines.slice(closest.start, closest.end).map(squash));
      const missing = orig.filter((l) => l.trim() !== "" && !there.has(squash(l))).slice(0, 4);
      msg += ` The closest region is lines ${closest.start + 1}-${closest.end} (${closest.matched} of ${closest.total} lines match):\n${showRegion(before, closest.start, closest.end)}\n`;
      if (missing.length > 0)
        msg += `Not in the file: ${missing.map((l) => JSON.stringify(l.trim())).join(", ")}.\n`;
      msg += "Copy <original> exactly from the current file.";
    } else {
      msg +=
        " None of its lines appear in the file; check the file name and copy <original> from the current file.";
    }
    return fail(path, "RAW_PATCH_BUT_UNMATCHED", msg);
  }
  // <original> found only approximately while <patched> stands in the file as it is: the answer was
  // applied before, and the near match is a similar block elsewhere (a sibling function).
  if (loc.tier === "near" && !same) {
    const done = alreadyApplied(st.current.lines, patched, orig);
    if (done) {
      return fail(
        path,
        "RAW_PATCH_BUT_ALREADY_APPLIED",
        `<original> is not in ${path} as written, but <patched> is (lines ${done.start + 1}-${done.end}): this edit is already applied. Leave it out; if the code still needs a change, copy <original> from the file as it is now.`,
      );
    }
  }
  const again = !same && mapped ? appliedAround(st.current.lines, patched, mapped) : null;
  if (again) {
    return fail(
      path,
      "RAW_PATCH_BUT_ALREADY_APPLIED",
      `<patched> is already in ${path} (lines ${again.start + 1}-${again.end}), around the lines <original> matches: this edit is already applied, and applying it again would repeat its new lines. Leave it out; if the code still needs a change, copy <original> from the file as it is now.`,
    );
  }
  if (same) {
    return {
      ok: true,
      report: {
        file: path,
        status: "APPLICABLE_PATCH",
        message: `matched lines ${loc.start + 1}-${loc.end}, but <patched> equals <original>: this edit changes nothing and was ignored.`,
      },
    };
  }
  const found = { ...(loc as Extract<Located, { kind: "found" }>), ...mapped };
  const built = buildEdit(st.current, found, orig, patched, patchedGap);
  if (!built.ok) {
    return fail(
      path,
      built.kind === "placeholder" ? "RAW_PATCH_BUT_PLACEHOLDER" : "RAW_PATCH_BUT_UNMATCHED",
      built.message,
    );
  }
  const chosen = await chooseReading(st, found, orig, built, checker);
  if (!chosen.ok) return fail(path, chosen.status, chosen.message);
  const c = chosen.reading;
  const next = chosen.next;
  const delta = c.lines.length - (found.end - found.start);
  for (const a of st.applied) {
    if (a.curStart >= found.end) {
      a.curStart += delta;
      a.curEnd += delta;
    }
  }
  st.applied.push({
    origStart: origRange?.start ?? null,
    origEnd: origRange?.end ?? null,
    curStart: found.start,
    curEnd: found.start + c.lines.length,
    edit: edit.index,
  });
  st.current = next;
  st.analysis = chosen.analysis;
  let msg = `matched lines ${found.start + 1}-${found.end} ${TIER_NOTE[found.tier]}`;
  if (found.tier === "near") {
    msg += ` (kept the file's own text where <original> differs: ${found.near.map((d) => `line ${d.fileIndex + 1} reads "${before.lines[d.fileIndex]!.trim()}"`).join("; ")})`;
  }
  if (built.placeholdersKept > 0) msg += "; placeholder lines kept the original code they stand for";
  if (c.displaced > 0 || c.rank > 0) msg += `; <patched> indented ${c.name}`;
  const unchecked = chosen.analysis.unchecked;
  if (unchecked) msg += `; the file's syntax was not checked (${unchecked})`;
  return {
    ok: true,
    report: {
      file: path,
      status: "APPLICABLE_PATCH",
      message: `${msg}.`,
      ...(unchecked ? { syntaxUnchecked: unchecked } : {}),
    },
  };
}

/**
 * Where <patched> already stands in the file (matched like an <original>, whitespace aside), when it
 * differs from <original> and carries code of its own: the answer was applied before.
 */
function alreadyApplied(
  lines: readonly string[],
  patched: readonly string[],
  orig: readonly string[],
): { start: number; end: number } | null {
  if (patched.every((l) => l.trim() === "") || patched.some(isPlaceholder)) return null;
  const squashed = (ls: readonly string[]) =>
    ls
      .map(squash)
      .filter((l) => l !== "")
      .join("\n");
  if (squashed(patched) === squashed(orig)) return null;
  const at = locate(lines, patched);
  // In one place only: a line that occurs all over the file says nothing about this edit.
  if (at.kind === "found" && at.tier !== "near") return { start: at.start, end: at.end };
  return null;
}

/** Where <patched> stands in the file covering the lines <original> matched (it only adds lines to them). */
function appliedAround(
  lines: readonly string[],
  patched: readonly string[],
  at: { start: number; end: number },
): { start: number; end: number } | null {
  if (patched.some(isPlaceholder) || patched.every((l) => l.trim() === "")) return null;
  const p = locate(lines, patched);
  if (p.kind !== "found" || p.tier === "near") return null;
  return p.start <= at.start && p.end >= at.end && p.end - p.start > at.end - at.start ? p : null;
}
