/**
 * computePatch: (repository, model answer) → PatchResult. Pure: reads through the RepoFiles port and
 * writes nothing. All edits apply together or the result says which one failed and why.
 */
import { resolveFileArg } from "../core/file-arg.ts";
import { buildEdit } from "./build-edit.ts";
import { isPlaceholder, stripLineNumbers } from "./cleanup.ts";
import { unifiedDiff } from "./diff.ts";
import { detectStyle } from "./indent.ts";
import { type Located, locate } from "./locate.ts";
import { parseAnswer, type RawEdit } from "./parse.ts";
import { checkEditablePath } from "./safety.ts";
import { describeProblem, type SyntaxChecker, treeSitterChecker } from "./syntax.ts";
import { decodeFile, type FileText, joinText, replaceLines, splitText } from "./text.ts";
import {
  type ChangedFile,
  type EditReport,
  type PatchOptions,
  type PatchResult,
  type PatchStatus,
  type RepoFiles,
  worstStatus,
} from "./types.ts";
import { summarise } from "./feedback.ts";

interface FileState {
  path: string;
  before: FileText | null;
  current: FileText;
  baseProblems: number;
  /** Applied regions: where they were in the original text (null when located after earlier edits) and now. */
  applied: {
    origStart: number | null;
    origEnd: number | null;
    curStart: number;
    curEnd: number;
    edit: number;
  }[];
}

interface EditOutcome {
  report: EditReport;
  ok: boolean;
}

const fail = (file: string, status: PatchStatus, message: string): EditOutcome => ({
  report: { file, status, message },
  ok: false,
});

function lineList(starts: number[]): string {
  const shown = starts.slice(0, 8).map((s) => String(s + 1));
  return shown.join(", ") + (starts.length > shown.length ? `, ... (${starts.length} in all)` : "");
}

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

export async function computePatch(
  repo: RepoFiles,
  answer: string,
  opts: PatchOptions & { checker?: SyntaxChecker } = {},
): Promise<PatchResult> {
  const checker = opts.checker ?? treeSitterChecker;
  const parsed = parseAnswer(answer);
  if (parsed.edits.length === 0 && parsed.problems.length === 0) {
    return summarise("NO_PATCH", [], [], "");
  }
  let listing: string[] | null = null;
  const files = async () => (listing ??= await repo.listFiles());
  const states = new Map<string, FileState>();
  const outcomes: { index: number; outcome: EditOutcome }[] = [];
  for (const p of parsed.problems) {
    outcomes.push({ index: p.index, outcome: fail(p.fileArg, "RAW_PATCH_BUT_UNPARSED", p.message) });
  }
  for (const edit of parsed.edits) {
    const outcome = await applyOne(edit);
    outcomes.push({ index: edit.index, outcome });
  }
  outcomes.sort((a, b) => a.index - b.index);
  const reports = outcomes.map((o) => o.outcome.report);
  const failed = outcomes.filter((o) => !o.outcome.ok);
  if (failed.length > 0) {
    const firstBad = failed.map((f) => f.index);
    for (const o of outcomes) {
      if (o.outcome.ok) {
        o.outcome.report.message += ` Not applied, because edit ${firstBad.join(", ")} failed: all edits apply together or not at all.`;
      }
    }
    return summarise(worstStatus(failed.map((f) => f.outcome.report.status)), reports, [], "");
  }
  const changed: ChangedFile[] = [];
  let diff = "";
  for (const st of states.values()) {
    const d = unifiedDiff(st.path, st.before, st.current);
    if (!d) continue;
    diff += d;
    const after = joinText(st.current);
    const entry: ChangedFile = {
      path: st.path,
      before: st.before ? joinText(st.before) : "",
      after,
      encoding: st.current.encoding,
    };
    if (!st.before) entry.created = true;
    changed.push(entry);
  }
  if (changed.length === 0) {
    for (const r of reports) r.status = "MATCHED_BUT_EMPTY_DIFF";
    return summarise("MATCHED_BUT_EMPTY_DIFF", reports, [], "");
  }
  return summarise("APPLICABLE_PATCH", reports, changed, diff);

  async function resolvePath(
    edit: RawEdit,
  ): Promise<{ ok: true; path: string } | { ok: false; out: EditOutcome }> {
    const arg = edit.fileArg;
    const all = await files();
    let norm = arg
      .trim()
      .replace(/^["'`]|["'`]$/g, "")
      .replaceAll("\\", "/");
    if (norm.startsWith(`${repo.root}/`)) norm = norm.slice(repo.root.length + 1);
    while (norm.startsWith("./")) norm = norm.slice(2);
    if (!norm.startsWith("/") && !norm.split("/").includes("..") && norm !== "") {
      if (all.includes(norm) || edit.isNew) return { ok: true, path: norm };
      const direct = await repo.readFile(norm);
      if (direct.kind !== "missing") return { ok: true, path: norm };
    }
    const r = resolveFileArg(arg, all, repo.root);
    if (r.ok) return { ok: true, path: r.file };
    const status: PatchStatus =
      r.reason === "outside"
        ? "RAW_PATCH_BUT_UNSAFE_PATH"
        : r.reason === "ambiguous"
          ? "RAW_PATCH_BUT_AMBIGUOUS"
          : "RAW_PATCH_BUT_UNMATCHED";
    let message = r.message;
    if (r.reason === "not-found" && (!edit.original || edit.original.every((l) => l.trim() === ""))) {
      message += ' To create a new file, write <file new="true">path</file> with an empty <original>.';
    }
    return { ok: false, out: fail(arg, status, message) };
  }

  async function loadState(
    path: string,
    isNew: boolean,
  ): Promise<{ ok: true; st: FileState } | { ok: false; out: EditOutcome }> {
    const existing = states.get(path);
    if (existing) return { ok: true, st: existing };
    const read = await repo.readFile(path);
    if (read.kind === "unsafe")
      return { ok: false, out: fail(path, "RAW_PATCH_BUT_UNSAFE_PATH", read.reason) };
    if (read.kind === "missing") {
      if (!isNew) return { ok: false, out: fail(path, "RAW_PATCH_BUT_UNMATCHED", `${path} does not exist.`) };
      const st: FileState = {
        path,
        before: null,
        current: { lines: [], eols: [], eol: "\n", encoding: "utf8" },
        baseProblems: 0,
        applied: [],
      };
      states.set(path, st);
      return { ok: true, st };
    }
    if (isNew) {
      return {
        ok: false,
        out: fail(
          path,
          "MATCHED_BUT_EMPTY_ORIGIN",
          `${path} already exists, so it cannot be created. Edit it instead: copy the lines you change into <original>.`,
        ),
      };
    }
    const decoded = decodeFile(path, read.bytes);
    if (!decoded) {
      return {
        ok: false,
        out: fail(
          path,
          "RAW_PATCH_BUT_UNSAFE_PATH",
          `${path} is a binary file; patches change text files only.`,
        ),
      };
    }
    const ft = splitText(decoded.text, decoded.encoding);
    const base = (await checker.problems(path, decoded.text)).length;
    const st: FileState = { path, before: ft, current: ft, baseProblems: base, applied: [] };
    states.set(path, st);
    return { ok: true, st };
  }

  async function applyOne(edit: RawEdit): Promise<EditOutcome> {
    const res = await resolvePath(edit);
    if (!res.ok) return res.out;
    const path = res.path;
    const verdict = checkEditablePath(path, opts.protectedGlobs ?? []);
    if (!verdict.ok) return fail(path, "RAW_PATCH_BUT_UNSAFE_PATH", verdict.message);
    const origEmpty = !edit.original || edit.original.every((l) => l.trim() === "");
    const loaded = await loadState(path, edit.isNew);
    if (!loaded.ok) return loaded.out;
    const st = loaded.st;
    if (edit.isNew) return createFile(st, edit, origEmpty);
    if (origEmpty) {
      return fail(
        path,
        "MATCHED_BUT_EMPTY_ORIGIN",
        `<original> is empty, but ${path} exists. Copy the lines you change (or the lines next to where new code goes) into <original>, and repeat them in <patched> with your change.`,
      );
    }
    const variants: { orig: string[]; patched: string[] }[] = [];
    const so = stripLineNumbers(edit.original!);
    const sp = stripLineNumbers(edit.patched);
    if (so.stripped || sp.stripped)
      variants.push({ orig: so.lines, patched: sp.stripped || so.stripped ? sp.lines : edit.patched });
    variants.push({ orig: edit.original!, patched: edit.patched });
    let last: EditOutcome | null = null;
    for (const v of variants) {
      const out = await applyVariant(st, edit, v.orig, v.patched);
      if (out.ok) return out;
      // The first variant's complaint is the informative one unless the second found the code.
      if (!last || out.report.status !== "RAW_PATCH_BUT_UNMATCHED") last = out;
    }
    return last!;
  }

  async function createFile(st: FileState, edit: RawEdit, origEmpty: boolean): Promise<EditOutcome> {
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
    return {
      ok: true,
      report: {
        file: st.path,
        status: "APPLICABLE_PATCH",
        message: `creates ${st.path} (${content.length} lines).`,
      },
    };
  }

  async function applyVariant(
    st: FileState,
    edit: RawEdit,
    orig: string[],
    patched: string[],
  ): Promise<EditOutcome> {
    const path = st.path;
    const origPh = orig.filter(isPlaceholder);
    const same = orig.length === patched.length && orig.every((l, i) => l === patched[i]);
    // Locate in the file as the model saw it, then (for edits that build on earlier ones) in the edited text.
    const before = st.before!;
    let loc: Located = locate(before.lines, orig);
    let mapped: { start: number; end: number; map: (number | null)[] } | null = null;
    let origRange: { start: number; end: number } | null = null;
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
          return fail(
            path,
            "RAW_PATCH_BUT_AMBIGUOUS",
            `<original> overlaps the lines edit ${a.edit} changes (lines ${a.origStart + 1}-${a.origEnd}). Merge the two edits into one.`,
          );
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
      const again = locate(st.current.lines, orig);
      if (again.kind === "found") {
        // Found only in the text earlier edits produced: this edit builds on them.
        loc = again;
        mapped = { start: again.start, end: again.end, map: again.map };
      } else if (loc.kind !== "found") loc = again;
    }
    if (loc.kind === "ambiguous") {
      return fail(
        path,
        "RAW_PATCH_BUT_AMBIGUOUS",
        `<original> matches ${loc.starts.length} places in ${path} (${TIER_NOTE[loc.tier]}), starting at lines ${lineList(loc.starts)}. Add a few lines before or after it so that it matches only the place you mean.`,
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
      const closest = loc.kind === "none" ? loc.closest : null;
      let msg = `<original> was not found in ${path}.`;
      if (closest && closest.matched > 0) {
        msg += ` The closest region is lines ${closest.start + 1}-${closest.end} (${closest.matched} of ${closest.total} lines match):\n${showRegion(before, closest.start, closest.end)}\nCopy <original> exactly from the current file.`;
      } else {
        msg +=
          " None of its lines appear in the file; check the file name and copy <original> from the current file.";
      }
      return fail(path, "RAW_PATCH_BUT_UNMATCHED", msg);
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
    const style = detectStyle(st.current.lines, [...orig, ...patched]);
    const built = buildEdit(st.current, found, orig, patched, style);
    if (!built.ok) {
      return fail(
        path,
        built.kind === "placeholder" ? "RAW_PATCH_BUT_PLACEHOLDER" : "RAW_PATCH_BUT_UNMATCHED",
        built.message,
      );
    }
    let firstProblem: string | null = null;
    for (const c of built.candidates) {
      const next = replaceLines(st.current, found.start, found.end, c.lines, c.eols);
      const problems = await checker.problems(path, joinText(next));
      if (problems.length <= st.baseProblems) {
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
        let msg = `matched lines ${found.start + 1}-${found.end} ${TIER_NOTE[found.tier]}`;
        if (found.tier === "near") {
          msg += ` (kept the file's own text where <original> differs: ${found.near.map((d) => `line ${d.fileIndex + 1} reads "${before.lines[d.fileIndex]!.trim()}"`).join("; ")})`;
        }
        if (built.placeholdersKept > 0) msg += "; placeholder lines kept the original code they stand for";
        if (c !== built.candidates[0]) msg += `; indentation ${c.guess}`;
        return { ok: true, report: { file: path, status: "APPLICABLE_PATCH", message: `${msg}.` } };
      }
      if (firstProblem === null) {
        const extra =
          problems.find((p) => p.line - 1 >= found.start && p.line - 1 < found.start + c.lines.length) ??
          problems[0]!;
        firstProblem = describeProblem(extra, next.lines);
      }
    }
    return fail(
      path,
      "MATCHED_BUT_SYNTAX_ERROR",
      `matched lines ${found.start + 1}-${found.end}, but with <patched> in place the file does not parse with any indentation tried: ${firstProblem ?? "syntax error"}. Fix the syntax of <patched> (brackets, colons, indentation).`,
    );
  }
}
