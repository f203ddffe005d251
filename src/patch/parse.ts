/**
 * Parses a model answer into edits: `<file>` / `<original>` / `<patched>` blocks, with or without code
 * fences, `# modification N` headers and prose between them; several edits per file and several files.
 *
 * The answer is hostile text: it is read by one left-to-right scan for tags (each `<` looks at most
 * MAX_TAG characters ahead), and every later step is a lookup over the tags found, so the cost is linear
 * in the answer's length whatever it contains. No regular expression runs over the answer as a whole.
 */
import { trimEndWs } from "./text.ts";

export interface RawEdit {
  /** 1-based position in the answer. */
  index: number;
  /** The file as the model wrote it. */
  fileArg: string;
  /** `<file new="true">`: the edit creates the file. */
  isNew: boolean;
  /** Lines of `<original>` (LF, no trailing newline); null when the tag is absent. */
  original: string[] | null;
  patched: string[];
}

export interface ParseProblem {
  index: number;
  fileArg: string;
  message: string;
}

export interface ParsedAnswer {
  edits: RawEdit[];
  problems: ParseProblem[];
  /** True when the answer contains any of the tags at all. */
  sawTags: boolean;
}

type TagName = "file" | "original" | "patched";

interface Tag {
  name: TagName;
  close: boolean;
  /** Offset of `<`. */
  start: number;
  /** Offset just after `>`. */
  end: number;
  attrs: string;
}

/** The longest a tag may be, attributes included; a `<` not closed by `>` within it is text. */
const MAX_TAG = 256;
const NAMES: readonly TagName[] = ["original", "patched", "file"];

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

/** Every `<file>`, `<original>`, `<patched>` (and closing) tag, in order, in one pass. */
export function scanTags(text: string): Tag[] {
  const tags: Tag[] = [];
  let at = text.indexOf("<");
  while (at >= 0) {
    const tag = readTag(text, at);
    if (tag) tags.push(tag);
    at = text.indexOf("<", at + 1);
  }
  return tags;
}

function readTag(text: string, at: number): Tag | null {
  let i = at + 1;
  const close = text.charCodeAt(i) === 47; // "/"
  if (close) i++;
  let name: TagName | null = null;
  for (const n of NAMES) {
    if (text.length - i >= n.length && text.slice(i, i + n.length).toLowerCase() === n) {
      name = n;
      break;
    }
  }
  if (!name) return null;
  i += name.length;
  const limit = Math.min(text.length, at + MAX_TAG);
  if (i >= text.length) return null;
  const next = text.charCodeAt(i);
  if (next === 62) return { name, close, start: at, end: i + 1, attrs: "" }; // ">"
  if (!isSpace(next)) return null;
  for (let j = i; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c === 62) {
      const attrs = text.slice(i, j);
      if (close && attrs.trim() !== "") return null;
      return { name, close, start: at, end: j + 1, attrs };
    }
    if (c === 60) return null; // "<": this was not a tag
  }
  return null;
}

/** Tag content as lines: CR removed, stray fences and blank edge lines dropped, indentation kept. */
export function contentLines(rawIn: string): string[] {
  const raw = rawIn.includes("\r") ? rawIn.replace(/\r\n?/g, "\n") : rawIn;
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = raw.indexOf("\n", start);
    const end = nl < 0 ? raw.length : nl;
    lines.push(raw.slice(start, end));
    if (nl < 0) break;
    start = nl + 1;
  }
  let a = 0;
  let b = lines.length;
  const isBlank = (l: string) => l.trim() === "";
  while (a < b && isBlank(lines[a]!)) a++;
  while (b > a && isBlank(lines[b - 1]!)) b--;
  // A fence inside the tag (<original>\n```python\n...\n```\n</original>) is markup, not code.
  if (b - a >= 2 && isFenceOpen(lines[a]!) && isFenceClose(lines[b - 1]!)) {
    a++;
    b--;
    while (a < b && isBlank(lines[a]!)) a++;
    while (b > a && isBlank(lines[b - 1]!)) b--;
  }
  const out: string[] = [];
  for (let i = a; i < b; i++) out.push(trimEndWs(lines[i]!));
  return out;
}

function fenceMark(line: string): string | null {
  const t = line.trim();
  if (t.startsWith("```")) return t.slice(3);
  if (t.startsWith("~~~")) return t.slice(3);
  return null;
}

function isFenceOpen(line: string): boolean {
  const rest = fenceMark(line);
  if (rest === null) return false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (!/[\w+-]/.test(c)) return false;
  }
  return true;
}

function isFenceClose(line: string): boolean {
  return fenceMark(line) === "";
}

function isNewAttr(attrs: string): boolean {
  const a = attrs.trim().toLowerCase();
  if (a === "new") return true;
  return /\bnew\s*=\s*["']?(true|yes|1)\b/.test(a);
}

/** Positions of the tags of one kind, for the "next such tag at or after offset" lookups. */
class TagIndex {
  private readonly lists = new Map<string, Tag[]>();
  constructor(tags: readonly Tag[]) {
    for (const t of tags) {
      const key = `${t.close ? "/" : ""}${t.name}`;
      const list = this.lists.get(key);
      if (list) list.push(t);
      else this.lists.set(key, [t]);
    }
  }
  /** The first tag of this kind starting at or after `from` and before `limit`. */
  next(name: TagName, close: boolean, from: number, limit: number): Tag | null {
    const list = this.lists.get(`${close ? "/" : ""}${name}`);
    if (!list) return null;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.start < from) lo = mid + 1;
      else hi = mid;
    }
    const t = list[lo];
    return t && t.start < limit ? t : null;
  }
}

interface Block {
  start: number;
  end: number;
  content: string;
  closed: boolean;
}

/** Parses every edit of an answer. Malformed blocks become problems, never exceptions. */
export function parseAnswer(answer: string): ParsedAnswer {
  const text = answer;
  const tags = scanTags(text);
  const edits: RawEdit[] = [];
  const problems: ParseProblem[] = [];
  const sawTags = tags.length > 0;
  const index = new TagIndex(tags);
  const files: { attrs: string; name: string; start: number; end: number }[] = [];
  // The next line break at or after a position, found once per line rather than once per tag (a line
  // of many unclosed <file> tags would otherwise be scanned to its end for each of them).
  let nl = -1;
  const lineEndFrom = (from: number): number => {
    if (nl !== text.length && nl < from) {
      const found = text.indexOf("\n", from);
      nl = found < 0 ? text.length : found;
    }
    return nl;
  };
  const quoted = fileTagsInContent(tags);
  for (const t of tags) {
    if (t.name !== "file" || t.close || quoted.has(t)) continue;
    if (files.length > 0 && t.start < files.at(-1)!.end) continue;
    const close = index.next("file", true, t.end, text.length);
    const nextOpen = firstOpenAfter(index, t.end, text.length);
    if (close && (!nextOpen || close.start < nextOpen.start)) {
      files.push({ attrs: t.attrs, name: text.slice(t.end, close.start), start: t.start, end: close.end });
    } else {
      // <file>path without </file>: the name is the rest of its line.
      const lineEnd = lineEndFrom(t.end);
      const end = nextOpen && nextOpen.start < lineEnd ? nextOpen.start : lineEnd;
      files.push({ attrs: t.attrs, name: text.slice(t.end, end), start: t.start, end });
    }
  }
  let n = 0;
  const orphans: string[] = [];
  if (files.length === 0 && sawTags) {
    if (tags.some((t) => t.name !== "file")) {
      problems.push({
        index: 1,
        fileArg: "",
        message:
          "The answer has <original>/<patched> tags but no <file>path</file> before them. Start each edit with <file>path/to/file</file>.",
      });
    }
    return { edits, problems, sawTags };
  }
  const block = (name: TagName, from: number, limit: number): Block | null => {
    const open = index.next(name, false, from, limit);
    if (!open) return null;
    const close = index.next(name, true, open.end, limit);
    if (!close) return { start: open.start, end: limit, content: text.slice(open.end, limit), closed: false };
    return { start: open.start, end: close.end, content: text.slice(open.end, close.start), closed: true };
  };
  for (let f = 0; f < files.length; f++) {
    const file = files[f]!;
    const limit = f + 1 < files.length ? files[f + 1]!.start : text.length;
    const fileArg = stripTicks(file.name.trim());
    const isNew = isNewAttr(file.attrs);
    let pos = file.end;
    let pairs = 0;
    for (;;) {
      const nextOrig = index.next("original", false, pos, limit);
      const nextPatched = index.next("patched", false, pos, limit);
      if (!nextOrig && !nextPatched) break;
      n++;
      if (!fileArg) {
        problems.push({
          index: n,
          fileArg,
          message: "<file></file> is empty: name the file the edit changes.",
        });
      }
      const patched = nextPatched ? block("patched", pos, limit) : null;
      // <original> is read only up to the <patched> that follows it: the two never overlap.
      const orig = nextOrig
        ? block("original", pos, patched && nextOrig.start < patched.start ? patched.start : limit)
        : null;
      if (!patched) {
        problems.push({
          index: n,
          fileArg,
          message: "The edit has <original> but no <patched>. Give the new code in <patched>...</patched>.",
        });
        break;
      }
      if (!patched.closed || (orig && !orig.closed)) {
        problems.push({
          index: n,
          fileArg,
          message: `The ${!patched.closed ? "<patched>" : "<original>"} tag is not closed; the answer may have been cut off. Close every tag.`,
        });
        break;
      }
      if (orig && orig.start > patched.start) {
        // <patched> came first: the pair is out of order, or <original> belongs to the next pair.
        if (isNew) {
          edits.push({ index: n, fileArg, isNew, original: null, patched: contentLines(patched.content) });
          pos = patched.end;
          pairs++;
          continue;
        }
        problems.push({
          index: n,
          fileArg,
          message: "<patched> comes before <original>. Write <original>...</original> first, then <patched>.",
        });
        break;
      }
      if (!orig && !isNew) {
        problems.push({
          index: n,
          fileArg,
          message:
            'The edit has <patched> but no <original>. Copy the code to replace into <original>; to create a new file write <file new="true">.',
        });
        pos = patched.end;
        pairs++;
        continue;
      }
      edits.push({
        index: n,
        fileArg,
        isNew,
        original: orig ? contentLines(orig.content) : null,
        patched: contentLines(patched.content),
      });
      pos = patched.end;
      pairs++;
    }
    // Problems are pushed in edit order, so the last one tells whether this edit already has one
    // (a scan of every problem here would make an answer of many bad blocks quadratic).
    if (pairs === 0 && problems.at(-1)?.index !== n) orphans.push(fileArg);
  }
  // A <file> mentioned in prose without an edit is harmless when the answer has edits elsewhere.
  if (edits.length === 0 && problems.length === 0) {
    for (const fileArg of orphans) {
      n++;
      problems.push({
        index: n,
        fileArg,
        message: `<file>${fileArg}</file> is not followed by <original>...</original> and <patched>...</patched>.`,
      });
    }
  }
  return { edits, problems, sawTags };
}

/**
 * `<file>` tags that are text inside an <original> or <patched> block (a TypeScript `Promise<File>`): the
 * block is open where the tag stands and closes before any other block opens. One pass each way.
 */
function fileTagsInContent(tags: readonly Tag[]): Set<Tag> {
  const out = new Set<Tag>();
  const isBlock = (t: Tag) => t.name === "original" || t.name === "patched";
  const nextBlock: (Tag | null)[] = new Array(tags.length).fill(null);
  for (let i = tags.length - 2; i >= 0; i--) {
    const after = tags[i + 1]!;
    nextBlock[i] = isBlock(after) ? after : nextBlock[i + 1]!;
  }
  let open: Tag | null = null;
  tags.forEach((t, i) => {
    if (isBlock(t)) {
      if (!t.close && open === null) open = t;
      else if (t.close && open !== null && t.name === open.name) open = null;
      return;
    }
    const next = nextBlock[i];
    if (open !== null && next?.close && next.name === open.name) out.add(t);
  });
  return out;
}

function firstOpenAfter(index: TagIndex, from: number, limit: number): Tag | null {
  let best: Tag | null = null;
  for (const name of NAMES) {
    const t = index.next(name, false, from, limit);
    if (t && (!best || t.start < best.start)) best = t;
  }
  return best;
}

function stripTicks(s: string): string {
  let a = 0;
  let b = s.length;
  if (s.startsWith("`")) a = 1;
  if (b > a && s.endsWith("`")) b--;
  return s.slice(a, b);
}
