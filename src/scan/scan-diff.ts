/**
 * The patch scan: what a patch ADDS that code aimed at the checks uses (scan-source.ts finds it in each
 * version of a file; here the unpatched version's findings are taken away, so code the file already had
 * is never held against the patch, only a new place that does the same). Each finding says the file,
 * the line, the code and why, in plain words. The literals the patch adds are kept too: those it shares
 * with what the reproducer or a failing test expects are shown to the reviewer (possible special-casing).
 */
import { openTree, TreeFsError } from "../core/tree-fs.ts";
import { applyFileDiff, parseUnifiedDiff } from "../core/unified-diff.ts";
import { languageForPath } from "../languages/index.ts";
import { KIND_WORDS, type FindingKind } from "./rules.ts";
import { scanSource, type SourceFinding } from "./scan-source.ts";

/** One thing a patch adds that a fix has no business doing. */
export interface PatchFinding {
  file: string;
  /** 1-based, in the patched file. */
  line: number;
  kind: FindingKind;
  /** The code on that line (trimmed, capped). */
  excerpt: string;
  /** What it matched (`os.environ.get`, `"PYTEST_CURRENT_TEST"`). */
  what: string;
  /** The code changes the object rather than reading it. */
  assigns: boolean;
}

export interface PatchScan {
  findings: PatchFinding[];
  /** Literals the patch adds (strings and numbers), with where. */
  literals: { file: string; line: number; value: string }[];
  /** Files that could not be scanned, and why (the scan says so rather than passing them). */
  unscanned: string[];
}

/** Largest file read. */
const MAX_BYTES = 4 * 1024 * 1024;
const MAX_EXCERPT = 120;

const keyOf = (f: SourceFinding): string => `${f.kind}\0${f.what}\0${f.assigns}`;

function excerptAt(text: string, line: number): string {
  const raw = (text.split("\n")[line - 1] ?? "").trim().replace(/`/g, "'");
  return raw.length > MAX_EXCERPT ? `${raw.slice(0, MAX_EXCERPT - 1)}…` : raw;
}

/**
 * The findings and literals in `after` that `before` does not have as many of (null `before`: a new
 * file). A file in no language the scan reads has none.
 */
export async function scanFileChange(
  file: string,
  before: string | null,
  after: string,
): Promise<Pick<PatchScan, "findings" | "literals">> {
  const lang = languageForPath(file);
  if (!lang) return { findings: [], literals: [] };
  const now = await scanSource(lang, file, after);
  const had = before ? await scanSource(lang, file, before) : { findings: [], literals: [] };
  const counts = new Map<string, number>();
  for (const f of had.findings) counts.set(keyOf(f), (counts.get(keyOf(f)) ?? 0) + 1);
  const findings: PatchFinding[] = [];
  const seen = new Set<string>();
  for (const f of now.findings.sort((a, b) => a.line - b.line)) {
    const k = keyOf(f);
    const left = counts.get(k) ?? 0;
    if (left > 0) {
      counts.set(k, left - 1);
      continue;
    }
    const once = `${f.line}\0${f.kind}`;
    if (seen.has(once)) continue;
    seen.add(once);
    findings.push({
      file,
      line: f.line,
      kind: f.kind,
      excerpt: excerptAt(after, f.line),
      what: f.what,
      assigns: f.assigns,
    });
  }
  const lits = new Map<string, number>();
  for (const l of had.literals) lits.set(l.value, (lits.get(l.value) ?? 0) + 1);
  const literals: PatchScan["literals"] = [];
  for (const l of now.literals) {
    const left = lits.get(l.value) ?? 0;
    if (left > 0) lits.set(l.value, left - 1);
    else literals.push({ file, line: l.line, value: l.value });
  }
  return { findings, literals };
}

/**
 * Scans the patch `diff` against the unpatched tree at `root` (files read through tree-fs: no link
 * followed, size capped). A deleted file adds nothing; a file that cannot be read, or whose diff does not
 * apply, is named in `unscanned`.
 */
export async function scanDiff(root: string, diff: string): Promise<PatchScan> {
  const tree = openTree(root);
  const out: PatchScan = { findings: [], literals: [], unscanned: [] };
  for (const f of parseUnifiedDiff(diff)) {
    const path = f.newPath;
    if (!path || !languageForPath(path)) continue;
    let before: string | null = null;
    try {
      if (f.oldPath !== null)
        before = tree.readIfExists(f.oldPath, { maxBytes: MAX_BYTES })?.toString("utf8") ?? null;
    } catch (err) {
      if (!(err instanceof TreeFsError)) throw err;
      out.unscanned.push(`${path} (${err.message})`);
      continue;
    }
    const after = applyFileDiff(before ?? "", f);
    if (after === null) {
      out.unscanned.push(`${path} (the diff does not apply to it)`);
      continue;
    }
    try {
      const got = await scanFileChange(path, before, after);
      out.findings.push(...got.findings);
      out.literals.push(...got.literals);
    } catch (err) {
      out.unscanned.push(`${path} (${(err as Error).message})`);
    }
  }
  return out;
}

/** The findings in a new file (the regression test), in words with `subject` ("the test"). */
export async function scanNewFile(file: string, text: string, subject: string): Promise<string[]> {
  const got = await scanFileChange(file, null, text);
  return got.findings.map((f) => describeFinding(f, subject));
}

/** One finding in words: "the patch reads the environment: `os.environ.get("X")` at calc.py:3". */
export function describeFinding(f: PatchFinding, subject = "the patch"): string {
  const words = f.assigns && f.kind !== "exit" ? `changes \`${f.what}\`` : KIND_WORDS[f.kind];
  return `${subject} ${words}: \`${f.excerpt}\` at ${f.file}:${f.line}`;
}

/** Literals too common to suggest special-casing. */
function trivial(v: string): boolean {
  const t = v.trim();
  if (t.length < 2) return true;
  if (/^-?\d+(\.0*)?$/.test(t) && Math.abs(Number(t)) <= 2) return true;
  return /^(true|false|none|null|nil|undefined|utf-?8|ascii|\\n|\s+)$/i.test(t);
}

/**
 * The literals the patch adds that also appear in what the reproducer or a failing test expects (their
 * sources scanned for literals), trivial ones left out: a patch that returns the very value the test
 * asserts may be special-casing it. Each as "`42` at calc.py:3".
 */
export async function sharedLiterals(
  scan: PatchScan,
  expectations: readonly { path: string; text: string }[],
): Promise<string[]> {
  const expected = new Set<string>();
  for (const e of expectations) {
    const lang = languageForPath(e.path);
    if (!lang) continue;
    try {
      for (const l of (await scanSource(lang, e.path, e.text)).literals) expected.add(l.value);
    } catch {
      // An expectation that cannot be parsed shares nothing that can be shown.
    }
  }
  const out: string[] = [];
  const seen = new Set<string>();
  for (const l of scan.literals) {
    if (trivial(l.value) || !expected.has(l.value) || seen.has(l.value)) continue;
    seen.add(l.value);
    out.push(
      `\`${JSON.stringify(l.value).slice(1, -1).replace(/`/g, "'").slice(0, 80)}\` at ${l.file}:${l.line}`,
    );
  }
  return out;
}
