/**
 * computePatch: (repository, model answer) → PatchResult. Pure: reads through the RepoFiles port and
 * writes nothing. All edits apply together or the result says which one failed and why.
 */
import { resolveFileArg } from "../core/file-arg.ts";
import { isTestPath } from "../core/test-files.ts";
import { applyVariant, createFile, type EditOutcome, type FileState, fail } from "./apply-edit.ts";
import { stripLineNumbers } from "./cleanup.ts";
import { unifiedDiff } from "./diff.ts";
import { parseAnswer, type RawEdit } from "./parse.ts";
import { checkEditablePath } from "./safety.ts";
import { type SyntaxChecker, treeSitterChecker } from "./syntax.ts";
import { decodeFile, joinText, splitText } from "./text.ts";
import {
  type ChangedFile,
  type PatchOptions,
  type PatchResult,
  type PatchStatus,
  type RepoFiles,
  worstStatus,
} from "./types.ts";
import { summarise } from "./feedback.ts";

/** More edits than this in one answer are refused as a whole (a patch, not a rewrite of the project). */
export const MAX_EDITS = 200;

/** A repository-relative path as written (quotes, `./`, the root's absolute prefix removed), or null. */
function normalise(arg: string, root?: string): string | null {
  let norm = arg
    .trim()
    .replace(/^["'`]|["'`]$/g, "")
    .replaceAll("\\", "/");
  if (root && norm.startsWith(`${root}/`)) norm = norm.slice(root.length + 1);
  while (norm.startsWith("./")) norm = norm.slice(2);
  if (norm === "" || norm.startsWith("/") || norm.split("/").includes("..") || norm.length > 1024)
    return null;
  return norm;
}

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
  if (parsed.edits.length + parsed.problems.length > MAX_EDITS) {
    const message = `The answer has ${parsed.edits.length + parsed.problems.length} edits; at most ${MAX_EDITS} are applied from one answer. Change only the code the bug needs.`;
    return summarise(
      "RAW_PATCH_BUT_UNPARSED",
      [{ file: "", status: "RAW_PATCH_BUT_UNPARSED", message }],
      [],
      "",
    );
  }
  let listing: string[] | null = null;
  let nonTests: string[] | null = null;
  const files = async () => (listing ??= await repo.listFiles());
  const venvFacts = repo.isVirtualEnvDir ? { isVirtualEnvDir: (d: string) => repo.isVirtualEnvDir!(d) } : {};
  const states = new Map<string, FileState>();
  const outcomes: { index: number; outcome: EditOutcome }[] = [];
  for (const p of parsed.problems) {
    outcomes.push({ index: p.index, outcome: fail(p.fileArg, "RAW_PATCH_BUT_UNPARSED", p.message) });
  }
  const seen = new Map<string, number>();
  for (const edit of parsed.edits) {
    // The same edit written twice (an answer that repeats itself) is applied once.
    const key = JSON.stringify([edit.fileArg.trim(), edit.isNew, edit.original, edit.patched]);
    const first = seen.get(key);
    if (first !== undefined) {
      const message = `repeats edit ${first} exactly; applied once.`;
      outcomes.push({
        index: edit.index,
        outcome: { ok: true, report: { file: edit.fileArg, status: "APPLICABLE_PATCH", message } },
      });
      continue;
    }
    seen.set(key, edit.index);
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
    // A new file, or one an earlier edit of this answer created, is named by its exact path.
    const exact = normalise(arg, repo.root);
    if (exact !== null && (edit.isNew || states.has(exact))) return { ok: true, path: exact };
    if (exact !== null && !all.includes(exact)) {
      // A path the listing leaves out (a vendored tree, a symbolic link) is judged by what reading it says.
      const direct = await repo.readFile(exact);
      if (direct.kind !== "missing") return { ok: true, path: exact };
    }
    // The same rules as the search APIs' file argument: source files first, so that `models.py` means
    // the source file rather than `tests/models.py`.
    nonTests ??= all.filter((f) => !isTestPath(f));
    const nonTest = resolveFileArg(arg, nonTests, repo.root);
    const r = nonTest.ok || nonTest.reason !== "not-found" ? nonTest : resolveFileArg(arg, all, repo.root);
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
        analysis: null,
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
    const st: FileState = { path, before: ft, current: ft, analysis: null, applied: [] };
    states.set(path, st);
    return { ok: true, st };
  }

  async function applyOne(edit: RawEdit): Promise<EditOutcome> {
    const res = await resolvePath(edit);
    if (!res.ok) return res.out;
    const path = res.path;
    const verdict = checkEditablePath(path, opts.protectedGlobs ?? [], venvFacts);
    if (!verdict.ok) return fail(path, "RAW_PATCH_BUT_UNSAFE_PATH", verdict.message);
    const origEmpty = !edit.original || edit.original.every((l) => l.trim() === "");
    const loaded = await loadState(path, edit.isNew);
    if (!loaded.ok) return loaded.out;
    const st = loaded.st;
    if (edit.isNew) return createFile(st, edit, origEmpty, checker);
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
      const out = await applyVariant(st, edit, v.orig, v.patched, checker);
      if (out.ok) return out;
      // The first variant's complaint is the informative one unless the second found the code.
      if (!last || out.report.status !== "RAW_PATCH_BUT_UNMATCHED") last = out;
    }
    return last!;
  }
}
