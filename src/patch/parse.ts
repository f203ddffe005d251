/**
 * Parses a model answer into edits: `<file>` / `<original>` / `<patched>` blocks, with or without code
 * fences, `# modification N` headers and prose between them; several edits per file and several files.
 */

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

const FILE_RE = /<file(\s[^>]*)?>([\s\S]*?)<\/file\s*>/gi;
const TAG_NAMES = ["original", "patched"] as const;

function findTag(
  text: string,
  name: string,
  from: number,
): { start: number; end: number; content: string; closed: boolean } | null {
  const open = new RegExp(`<${name}(\\s[^>]*)?>`, "i");
  const sub = text.slice(from);
  const m = open.exec(sub);
  if (!m) return null;
  const contentStart = from + m.index + m[0].length;
  const close = new RegExp(`</${name}\\s*>`, "i");
  const rest = text.slice(contentStart);
  const c = close.exec(rest);
  if (!c) return { start: from + m.index, end: text.length, content: rest, closed: false };
  return {
    start: from + m.index,
    end: contentStart + c.index + c[0].length,
    content: rest.slice(0, c.index),
    closed: true,
  };
}

/** Tag content as lines: CR removed, stray fences and blank edge lines dropped, indentation kept. */
export function contentLines(raw: string): string[] {
  let lines = raw.replace(/\r\n?/g, "\n").split("\n");
  const isBlank = (l: string) => l.trim() === "";
  while (lines.length > 0 && isBlank(lines[0]!)) lines.shift();
  while (lines.length > 0 && isBlank(lines[lines.length - 1]!)) lines.pop();
  // A fence inside the tag (<original>\n```python\n...\n```\n</original>) is markup, not code.
  if (
    lines.length >= 2 &&
    /^\s*(```|~~~)[\w+-]*\s*$/.test(lines[0]!) &&
    /^\s*(```|~~~)\s*$/.test(lines.at(-1)!)
  ) {
    lines = lines.slice(1, -1);
    while (lines.length > 0 && isBlank(lines[0]!)) lines.shift();
    while (lines.length > 0 && isBlank(lines[lines.length - 1]!)) lines.pop();
  }
  return lines.map((l) => l.replace(/[ \t]+$/, ""));
}

function isNewAttr(attrs: string | undefined): boolean {
  if (!attrs) return false;
  return /\bnew\s*=\s*["']?(true|yes|1)["']?/i.test(attrs) || /^\s*new\s*$/i.test(attrs);
}

/** Parses every edit of an answer. Malformed blocks become problems, never exceptions. */
export function parseAnswer(answer: string): ParsedAnswer {
  const text = answer.replace(/\r\n?/g, "\n");
  const edits: RawEdit[] = [];
  const problems: ParseProblem[] = [];
  const sawTags = /<\/?(file|original|patched)(\s[^>]*)?>/i.test(text);
  const files: { attrs: string | undefined; name: string; start: number; end: number }[] = [];
  for (const m of text.matchAll(FILE_RE)) {
    files.push({ attrs: m[1], name: m[2] ?? "", start: m.index, end: m.index + m[0].length });
  }
  let index = 0;
  const orphans: string[] = [];
  if (files.length === 0 && sawTags) {
    problems.push({
      index: 1,
      fileArg: "",
      message:
        "The answer has <original>/<patched> tags but no <file>path</file> before them. Start each edit with <file>path/to/file</file>.",
    });
    return { edits, problems, sawTags };
  }
  for (let f = 0; f < files.length; f++) {
    const file = files[f]!;
    const limit = f + 1 < files.length ? files[f + 1]!.start : text.length;
    const segment = text.slice(0, limit);
    const fileArg = file.name.trim().replace(/^`|`$/g, "");
    const isNew = isNewAttr(file.attrs);
    let pos = file.end;
    let pairs = 0;
    for (;;) {
      const orig = findTag(segment, TAG_NAMES[0], pos);
      const patched = findTag(segment, TAG_NAMES[1], pos);
      if (!orig && !patched) break;
      index++;
      if (!fileArg) {
        problems.push({ index, fileArg, message: "<file></file> is empty: name the file the edit changes." });
      }
      if (!patched) {
        problems.push({
          index,
          fileArg,
          message: "The edit has <original> but no <patched>. Give the new code in <patched>...</patched>.",
        });
        break;
      }
      if (!patched.closed || (orig && !orig.closed)) {
        problems.push({
          index,
          fileArg,
          message: `The ${!patched.closed ? "<patched>" : "<original>"} tag is not closed; the answer may have been cut off. Close every tag.`,
        });
        break;
      }
      if (orig && orig.start > patched.start) {
        // <patched> came first: the pair is out of order, or <original> belongs to the next pair.
        if (isNew) {
          edits.push({ index, fileArg, isNew, original: null, patched: contentLines(patched.content) });
          pos = patched.end;
          pairs++;
          continue;
        }
        problems.push({
          index,
          fileArg,
          message: "<patched> comes before <original>. Write <original>...</original> first, then <patched>.",
        });
        break;
      }
      if (!orig && !isNew) {
        problems.push({
          index,
          fileArg,
          message:
            'The edit has <patched> but no <original>. Copy the code to replace into <original>; to create a new file write <file new="true">.',
        });
        pos = patched.end;
        pairs++;
        continue;
      }
      edits.push({
        index,
        fileArg,
        isNew,
        original: orig ? contentLines(orig.content) : null,
        patched: contentLines(patched.content),
      });
      pos = patched.end;
      pairs++;
    }
    if (pairs === 0 && !problems.some((p) => p.index === index)) orphans.push(fileArg);
  }
  // A <file> mentioned in prose without an edit is harmless when the answer has edits elsewhere.
  if (edits.length === 0 && problems.length === 0) {
    for (const fileArg of orphans) {
      index++;
      problems.push({
        index,
        fileArg,
        message: `<file>${fileArg}</file> is not followed by <original>...</original> and <patched>...</patched>.`,
      });
    }
  }
  return { edits, problems, sawTags };
}
