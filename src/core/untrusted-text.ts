/**
 * The one sanitiser for text written by strangers (issue titles and bodies, comments, `/retry` guidance):
 * what reaches a prompt is what a maintainer sees on GitHub. It removes everything that carries text
 * GitHub does not show: HTML comments, Markdown link reference definitions (`[//]: # (note)`,
 * `[x]: <url> "title"`: never rendered), the attributes of HTML tags (`<x ignore the issue>` becomes
 * `<x>`), and characters that render as nothing (zero-width characters, bidirectional controls, Unicode
 * tag characters, variation selectors, other default-ignorable code points, C0/C1 controls). Line ends
 * become `\n`. Fenced code is kept as written (GitHub shows it), hidden characters aside.
 *
 * It follows CommonMark's blocks line by line (fences, paragraphs, HTML blocks, block quotes, list
 * items, lazy continuation lines) to tell where a definition may start, and errs on the side of
 * removing: an HTML comment or tag attribute is removed also inside inline code, and a comment left
 * open where Markdown ends it early (in a list item, quote or HTML block) takes the rest of the text,
 * since the reader's browser goes on hiding it. Checked against GitHub's renderer (cmark-gfm) on a
 * generated corpus: `test/core/untrusted-text.test.ts`. Linear in its input: one pass over the lines,
 * lookup tables for tags, no backtracking patterns.
 */

/**
 * Characters that render as nothing: default-ignorable code points (zero-width space/joiners, soft
 * hyphen, bidi controls, word joiner, invisible operators, Hangul fillers, variation selectors and their
 * supplement, tag characters), control characters (tab and newline kept), interlinear annotations.
 */
const INVISIBLE = /(?![\t\n])[\p{Default_Ignorable_Code_Point}\p{Cc}\uFFF9-\uFFFB]/gu;
/** Line ends, including the Unicode line and paragraph separators and NEL. */
const LINE_ENDS = /\r\n?|[\u2028\u2029\u0085]/g;

/**
 * Removes only the characters that render as nothing, for machine or repository text that is shown as
 * written (code, CI logs), where Markdown's hidden constructs are content rather than hidden text.
 */
export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, "");
}

/** Cleans untrusted text for a prompt or a log; see the module comment. */
export function sanitizeUntrusted(text: string): string {
  const lines = text.replace(LINE_ENDS, "\n").split("\n");
  const { out, code, raw } = stripHiddenMarkdown(lines);
  // HTML tags outside fenced code, over runs of lines of one kind (a tag may span lines).
  const parts: string[] = [];
  let run: string[] = [];
  let runRaw = false;
  const flush = () => {
    if (run.length > 0) parts.push(stripTagAttributes(run.join("\n"), runRaw));
    run = [];
  };
  out.forEach((line, i) => {
    if (code.has(i)) {
      flush();
      parts.push(line);
      return;
    }
    if (raw.has(i) !== runRaw) flush();
    runRaw = raw.has(i);
    run.push(line);
  });
  flush();
  return parts
    .join("\n")
    .replace(INVISIBLE, "")
    .replace(/\n{4,}/g, "\n\n\n");
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const THEMATIC_BREAK = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
/**
 * A line that is one complete open or closing tag (CommonMark kind 7): it starts an HTML block where no
 * paragraph is open. Any other line starting with `<` is paragraph text with inline HTML.
 */
const HTML_LONE_TAG =
  /^ {0,3}(?:<[A-Za-z][A-Za-z0-9-]*(?:[ \t]+[A-Za-z_:][\w.:-]*(?:[ \t]*=[ \t]*(?:[^\s"'=<>`]+|'[^'\n]*'|"[^"\n]*"))?)*[ \t]*\/?>|<\/[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$/;
/** HTML blocks that end at a marker (CommonMark kinds 1–5), not at a blank line. */
const HTML_MARKED_START = /^ {0,3}<(?:(script|pre|style|textarea)(?:[\s>]|$)|(\?)|(!\[CDATA\[)|(![A-Za-z]))/i;

/** The end marker of the HTML block a line starts (kinds 1–5), or null when it starts none of them. */
function htmlBlockEnd(content: string): RegExp | null {
  const m = HTML_MARKED_START.exec(content);
  if (!m) return null;
  if (m[1]) return /<\/(?:script|pre|style|textarea)>/i;
  if (m[2]) return /\?>/;
  if (m[3]) return /\]\]>/;
  return />/;
}
/** HTML blocks that may interrupt a paragraph and end at a blank line (CommonMark kind 6). */
const HTML_BLOCK_TAG =
  /^ {0,3}<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[\s>]|\/>|$)/i;
/** A line whose first block (after any quote and list markers) is an HTML comment. */
const COMMENT_BLOCK = /^(?: {0,3}(?:>|[-+*]|\d{1,9}[.)])[ \t]?)* {0,3}<!--/;
const BLOCKQUOTE = /^ {0,3}>[ \t]?/;
const LIST_ITEM = /^( {0,3}(?:[-+*]|\d{1,9}[.)]))([ \t]+|$)/;

/**
 * What a CommonMark parser is in at a line: nothing (a paragraph, and so a definition, may start), a
 * run of definitions (the paragraph they open goes on), a paragraph, an HTML block that ends at a blank line, or one that ends at a marker.
 */
type Block = "none" | "definition" | "paragraph" | "html" | "html-marked";

/**
 * Removes HTML comments and link reference definitions, line by line, keeping track of what a
 * CommonMark parser would see at each line: fenced code, a paragraph or HTML block in progress, or a
 * place where a new paragraph (and so a definition) may start.
 */
function stripHiddenMarkdown(lines: string[]): { out: string[]; code: Set<number>; raw: Set<number> } {
  const out: string[] = [];
  /** Lines of fenced code in `out`: shown as written, HTML tags included. */
  const code = new Set<number>();
  /** Lines of HTML blocks in `out`: there even `<https://…>` is a tag, not a link. */
  const raw = new Set<number>();
  let inComment = false;
  let fence: { char: string; length: number } | null = null;
  let block: Block = "none";
  let quoted = false;
  // The content column of the list item the lines may belong to (0: none), and whether the last line
  // was blank (a line indented less than the item after a blank line ends the list).
  const listColumns: number[] = [];
  const listColumn = () => listColumns.at(-1) ?? 0;
  let afterBlank = false;
  // A fence opened inside a list item or block quote: it ends with its container.
  let innerFence: { char: string; length: number; column: number; quoted: boolean } | null = null;
  let htmlEnd: RegExp = />/;
  /** The block after a line that may start an HTML block of kinds 1–5 (null: it starts none). */
  const startHtml = (content: string): Block | null => {
    const end = htmlBlockEnd(content);
    if (!end) return null;
    htmlEnd = end;
    return end.test(content.slice(content.indexOf("<") + 2)) ? "none" : "html-marked";
  };
  // Whether the run of definitions being read ends in a table (then GitHub shows them).
  let tableAfterRun = false;
  // A definition's title may go on over the next lines: they are skipped up to this line index.
  let skipUntil = -1;
  for (let i = 0; i < lines.length; i++) {
    if (i <= skipUntil) continue;
    let line = lines[i]!;
    let hadComment = false;
    // HTML comments first: a comment hides fences and definitions inside it.
    if (inComment) {
      const end = line.indexOf("-->");
      if (end < 0) continue;
      line = line.slice(end + 3);
      inComment = false;
      hadComment = true;
    }
    if (fence) {
      if (isClosingFence(line, fence)) fence = null;
      else code.add(out.length);
      out.push(line);
      continue;
    }
    const cleaned = removeComments(line);
    const inItem = listColumn() > 0 && line.length - line.trimStart().length >= listColumn();
    const inHtmlBlock = block === "html" || (!COMMENT_BLOCK.test(line) && HTML_BLOCK_TAG.test(line));
    if (cleaned.open && (BLOCKQUOTE.test(line) || LIST_ITEM.test(line) || inItem || inHtmlBlock)) {
      // A comment left open in a list item, a quote or an HTML block ends with it in Markdown, but the
      // HTML comment it leaves runs on, in the reader's browser, to some later `-->`: remove the rest.
      if (cleaned.text.trim() !== "") out.push(cleaned.text);
      break;
    }
    line = cleaned.text;
    inComment = cleaned.open;
    hadComment ||= cleaned.removed;
    // An HTML block that starts with a comment ends on the line the comment ends: the rest of that line
    // is raw HTML (shown), and a new paragraph may start after it.
    const commentLed = cleaned.removed && !inComment && COMMENT_BLOCK.test(lines[i]!) && line.trim() !== "";
    if (hadComment && line.trim() === "") {
      // A line that held only a comment is an HTML block: it ends the paragraph before it.
      if (block !== "html") block = "none";
      continue;
    }
    if (line.trim() === "") {
      block = "none";
      quoted = false;
      afterBlank = true;
      out.push(line);
      continue;
    }
    const lineIndent = line.length - line.trimStart().length;
    if (innerFence) {
      const inside = innerFence.quoted ? BLOCKQUOTE.test(line) : lineIndent >= innerFence.column;
      if (inside) {
        const body = innerFence.quoted ? line.replace(BLOCKQUOTE, "") : line.slice(innerFence.column);
        if (isClosingFence(body, innerFence)) innerFence = null;
        else code.add(out.length);
        out.push(line);
        continue;
      }
      innerFence = null;
      while (listColumns.length > 0 && lineIndent < listColumn()) listColumns.pop();
      block = "none";
    }
    if (lineIndent < listColumn() && (afterBlank || block !== "paragraph")) {
      // Out of the list item: only a paragraph goes on lazily; anything else ends with the item.
      while (listColumns.length > 0 && lineIndent < listColumn()) listColumns.pop();
      if (block !== "paragraph") block = "none";
    }
    // Inside an HTML block every line is raw HTML (markers, fences and definitions too), until a blank
    // line or its end marker, or until the quote it is in ends.
    if ((block === "html" || block === "html-marked") && !(quoted && !BLOCKQUOTE.test(line))) {
      raw.add(out.length);
      out.push(line);
      if (block === "html-marked" && htmlEnd.test(line)) block = "none";
      continue;
    }
    // A fence at the top level (one in a list item or quote is an inner fence, below).
    const opened = hadComment || (listColumn() > 0 && lineIndent >= listColumn()) ? null : FENCE.exec(line);
    if (opened && !(opened[1]![0] === "`" && opened[2]!.includes("`"))) {
      fence = { char: opened[1]![0]!, length: opened[1]!.length };
      block = "none";
      out.push(line);
      continue;
    }
    afterBlank = false;
    // Container markers: a new block quote or list item starts a new paragraph inside it.
    let start = 0;
    const quote = BLOCKQUOTE.exec(line);
    const wasQuoted = quoted;
    if (quote) {
      start = quote[0].length;
      if (!quoted) block = "none";
      quoted = true;
      if (line.slice(start).trim() === "") {
        block = "none";
        out.push(line);
        continue;
      }
    } else {
      // A line after quoted text continues it only when it continues a paragraph (lazily): then the
      // quote goes on, and its next quoted line continues the same paragraph.
      if ((block !== "paragraph" && block !== "definition") || startsBlock(line)) {
        if (quoted) block = "none";
        quoted = false;
      }
    }
    // List items, also nested (`- 1. text`, `- > text`): each new marker starts a new paragraph.
    let marked = false;
    for (let depth = 0; depth < 32; depth++) {
      const rest = line.slice(start);
      const item = LIST_ITEM.exec(rest);
      if (item && !THEMATIC_BREAK.test(rest)) {
        // Five spaces or more after the marker: the item's content is indented code one space in.
        const at = start + item[1]!.length - item[1]!.trimStart().length;
        while (listColumns.length > 0 && at < listColumn()) listColumns.pop();
        start += item[2]!.length >= 5 ? item[1]!.length + 1 : item[0].length;
        listColumns.push(start);
        marked = true;
        if (block !== "html-marked") block = "none";
        continue;
      }
      const inner = depth > 0 || quote ? BLOCKQUOTE.exec(rest) : null;
      if (inner) {
        start += inner[0].length;
        block = "none";
        continue;
      }
      break;
    }
    if (!marked && !quote && listColumn() > 0 && lineIndent >= listColumn()) {
      // A line inside the list item: its content starts at the item's column.
      start = listColumn();
    }
    const content = line.slice(start);
    out.push(line);
    if (commentLed) {
      raw.add(out.length - 1);
      if (block !== "html") block = "none";
      continue;
    }
    const fenced = start > 0 ? FENCE.exec(content) : null;
    if (fenced && !(fenced[1]![0] === "`" && fenced[2]!.includes("`"))) {
      innerFence = { char: fenced[1]![0]!, length: fenced[1]!.length, column: start, quoted: quote !== null };
      block = "none";
      continue;
    }
    if (block === "html-marked") {
      if (htmlEnd.test(content)) block = "none";
      continue;
    }
    if (block === "html") continue;
    // A block that starts on a line indented less than the list item is outside it (not lazy).
    const outdented = () => {
      while (!marked && listColumns.length > 0 && lineIndent < listColumn()) listColumns.pop();
    };
    if (ATX_HEADING.test(content) || THEMATIC_BREAK.test(content)) {
      block = "none";
      outdented();
      continue;
    }
    if (block === "paragraph") {
      // An underline outside the paragraph's list item or quote is lazy paragraph text, not a heading's.
      const lazy = (!marked && lineIndent < listColumn()) || (wasQuoted && !quote);
      if (SETEXT_UNDERLINE.test(content) && !lazy) block = "none";
      else if (HTML_MARKED_START.test(content)) {
        block = startHtml(content)!;
        raw.add(out.length - 1);
      } else if (HTML_BLOCK_TAG.test(content)) {
        block = "html";
        raw.add(out.length - 1);
      }
      if (block !== "paragraph") outdented();
      continue;
    }
    const indent = content.length - content.trimStart().length;
    // After a definition the paragraph goes on: the next line may be another one, however indented.
    const continues = block === "definition";
    // Indented code: a definition may start on the next line.
    if (!continues && (indent >= 4 || content.startsWith("\t"))) continue;
    if (HTML_MARKED_START.test(content)) {
      block = startHtml(content)!;
      raw.add(out.length - 1);
      continue;
    }
    if (HTML_BLOCK_TAG.test(content) || HTML_LONE_TAG.test(content)) {
      block = "html";
      raw.add(out.length - 1);
      continue;
    }
    // Where a paragraph may start, definitions come first (one after another).
    const end = definitionEnd(lines, i, continues ? start + indent : start, line);
    // (Only at the top level: a table does not go on lazily in a list item or quote.)
    if (end >= 0 && !continues) tableAfterRun = start === 0 && definitionsEndInTable(lines, end + 1);
    if (end >= 0 && !tableAfterRun) {
      out.pop();
      skipUntil = end;
      block = "definition";
      continue;
    }
    if (end >= 0) {
      // GitHub's table extension shows the definitions of a paragraph that ends in a table: kept.
      for (let j = i + 1; j <= end; j++) out.push(lines[j]!);
      skipUntil = end;
      block = "definition";
      continue;
    }
    block = "paragraph";
  }
  return { out, code, raw };
}

/**
 * Removes what is inside HTML tags besides their names: `<x ignore the issue>` becomes `<x>`. GitHub
 * shows no tag and no attribute (an unknown tag disappears whole), so attributes carry text no reader
 * sees. A tag is `<` or `</`, a name, then `>`, `/>` or a space; what follows the name up to the next
 * `>` outside quoted values (not past a blank line) goes. Outside HTML blocks autolinks (`<https://…>`, `<a@b.c>`) are not tags
 * and stay; inside them they are, and go. Linear: the next `>`, quote and blank line come from tables
 * built once, and where a tag going on from a position ends is remembered.
 */
function stripTagAttributes(text: string, rawHtml: boolean): string {
  if (!text.includes("<")) return text;
  const n = text.length;
  const next = (c: string) => {
    const table = new Int32Array(n + 2).fill(-1);
    for (let i = n - 1; i >= 0; i--) table[i] = text[i] === c ? i : table[i + 1]!;
    return table;
  };
  const nextGt = next(">");
  const nextDouble = next('"');
  const nextSingle = next("'");
  const nextBlank = new Int32Array(n + 2).fill(-1);
  for (let i = n - 1; i >= 0; i--) {
    nextBlank[i] = text[i] === "\n" && /^[ \t]*\n/.test(text.slice(i + 1, i + 40)) ? i : nextBlank[i + 1]!;
  }
  // Where the tag that goes on at a position ends (its `>` outside quoted values), -1 when it does not
  // before a blank line: the same from a given position whichever tag reached it, so remembered.
  const endFrom = new Int32Array(n + 2).fill(-2);
  const tagEnd = (start: number): number => {
    const visited: number[] = [];
    let p = start;
    let result = -1;
    for (;;) {
      if (endFrom[p] !== -2) {
        result = endFrom[p]!;
        break;
      }
      visited.push(p);
      const events = [nextGt[p]!, nextDouble[p]!, nextSingle[p]!].filter((e) => e >= 0);
      if (events.length === 0) break;
      const q = Math.min(...events);
      const blank = nextBlank[p]!;
      if (blank >= 0 && blank < q) break;
      if (text[q] === ">") {
        result = q;
        break;
      }
      const close = text[q] === '"' ? nextDouble[q + 1]! : nextSingle[q + 1]!;
      const blankInside = nextBlank[q + 1]!;
      if (close < 0 || (blankInside >= 0 && blankInside < close)) break;
      p = close + 1;
    }
    for (const v of visited) endFrom[v] = result;
    return result;
  };
  let out = "";
  let pos = 0;
  const tagName = /<\/?[A-Za-z][A-Za-z0-9-]*/y;
  for (let i = text.indexOf("<"); i >= 0; i = text.indexOf("<", i + 1)) {
    if (i < pos) continue;
    tagName.lastIndex = i;
    const m = tagName.exec(text);
    if (!m) continue;
    const afterName = i + m[0].length;
    const c = text[afterName];
    if (c === ">") continue;
    // In an HTML block everything up to `>` belongs to the tag (`<https://x>` too).
    if (!rawHtml && c !== "/" && c !== " " && c !== "\t" && c !== "\n") continue;
    const end = tagEnd(afterName);
    if (end < 0) continue;
    out += `${text.slice(pos, afterName)}${text[end - 1] === "/" ? "/" : ""}`;
    pos = end;
    i = end;
  }
  return out + text.slice(pos);
}

function isClosingFence(line: string, fence: { char: string; length: number }): boolean {
  const m = /^ {0,3}(`+|~+)[ \t]*$/.exec(line);
  return m !== null && m[1]![0] === fence.char && m[1]!.length >= fence.length;
}

/** Removes the HTML comments of one line; `open` when a comment starts and does not end on it. */
function removeComments(line: string): { text: string; open: boolean; removed: boolean } {
  let from = line.indexOf("<!--");
  if (from < 0) return { text: line, open: false, removed: false };
  let text = "";
  let pos = 0;
  while (from >= 0) {
    text += line.slice(pos, from);
    const end = line.indexOf("-->", from + 4);
    // `<!-->` and `<!--->` are complete (empty) comments.
    const empty = line.startsWith("<!-->", from) ? from + 5 : line.startsWith("<!--->", from) ? from + 6 : -1;
    if (empty >= 0) pos = empty;
    else if (end < 0) return { text, open: true, removed: true };
    else pos = end + 3;
    from = line.indexOf("<!--", pos);
  }
  return { text: text + line.slice(pos), open: false, removed: true };
}

const MAX_LABEL = 999;

/**
 * When a link reference definition starts at column `col` of line `i`, the index of its last line;
 * otherwise -1. Follows CommonMark: `[label]:`, a destination (`<…>` or a run without spaces), an
 * optional title (`"…"`, `'…'` or `(…)`, which may go on over lines but not over a blank one) on the same
 * line or the next, then nothing but spaces. Each call reads at most the label's 999 characters, the
 * destination and one title.
 */
function definitionEnd(lines: string[], i: number, col: number, first = lines[i]!): number {
  const text = first.slice(col);
  let p = 0;
  while (p < 3 && text[p] === " ") p++;
  if (text[p] !== "[") return -1;
  // The label: may span lines; no unescaped brackets; not blank; at most 999 characters.
  let line = i;
  let s = text;
  p++;
  let label = 0;
  let blank = true;
  for (;;) {
    if (p >= s.length) {
      line++;
      if (line >= lines.length || lines[line]!.trim() === "") return -1;
      s = lines[line]!;
      p = 0;
      label++;
      if (label > MAX_LABEL) return -1;
      continue;
    }
    const c = s[p]!;
    if (c === "]") break;
    if (c === "[") return -1;
    if (c === "\\") p++;
    if (c !== " " && c !== "\t") blank = false;
    p++;
    if (++label > MAX_LABEL) return -1;
  }
  if (blank || s[p + 1] !== ":") return -1;
  p += 2;
  // Optional spaces and at most one line end before the destination.
  p = skipSpaces(s, p);
  if (p >= s.length) {
    line++;
    if (line >= lines.length || lines[line]!.trim() === "") return -1;
    s = lines[line]!;
    p = skipSpaces(s, 0);
  }
  // The destination.
  if (s[p] === "<") {
    p++;
    while (p < s.length && s[p] !== ">" && s[p] !== "<") p += s[p] === "\\" ? 2 : 1;
    if (s[p] !== ">") return -1;
    p++;
  } else {
    const from = p;
    let depth = 0;
    while (p < s.length && s[p] !== " " && s[p] !== "\t") {
      const c = s[p]!;
      if (c === "\\") p++;
      else if (c === "(") depth++;
      else if (c === ")") depth--;
      if (depth < 0 || depth > 32) return -1;
      p++;
    }
    if (p === from || depth !== 0) return -1;
  }
  const afterDestination = skipSpaces(s, p);
  const destinationEndsLine = afterDestination >= s.length;
  // A title on the same line, or on the next one when the destination ended its line.
  let t = afterDestination;
  let tl = line;
  let ts = s;
  if (destinationEndsLine) {
    tl = line + 1;
    if (tl >= lines.length) return line;
    ts = lines[tl]!;
    t = skipSpaces(ts, 0);
  } else if (afterDestination === p) {
    return -1; // something right after the destination, without a space
  }
  const title = titleEnd(lines, tl, ts, t);
  if (title >= 0) return title;
  return destinationEndsLine ? line : -1;
}

/** A line that starts a block of its own (so it does not go on with a paragraph before it). */
function startsBlock(line: string): boolean {
  return (
    line.trim() === "" ||
    BLOCKQUOTE.test(line) ||
    (LIST_ITEM.test(line) && line.trim().length > 1) ||
    ATX_HEADING.test(line) ||
    THEMATIC_BREAK.test(line) ||
    FENCE.test(line) ||
    HTML_BLOCK_TAG.test(line) ||
    HTML_MARKED_START.test(line)
  );
}

const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

/**
 * True when the definitions that go on from line `i` (one after another) are followed by a table's
 * header and delimiter rows. Reads each definition once more than the main pass, so still linear.
 */
function definitionsEndInTable(lines: string[], i: number): boolean {
  let line = i;
  for (;;) {
    if (line >= lines.length) return false;
    const text = lines[line]!;
    const indent = text.length - text.trimStart().length;
    const end = text.trim() === "" ? -1 : definitionEnd(lines, line, Math.min(indent, 3));
    if (end < 0) break;
    line = end + 1;
  }
  const header = lines[line];
  const delimiter = lines[line + 1];
  if (header === undefined || delimiter === undefined || startsBlock(header)) return false;
  return header.includes("|") && TABLE_DELIMITER.test(delimiter);
}

/** The last line of a title starting at `p` of `s` (line `i`, maybe without its prefix) that ends its line, or -1. */
function titleEnd(lines: string[], i: number, first: string, p: number): number {
  let s = first;
  const open = s[p];
  const close = open === "(" ? ")" : open;
  if (open !== '"' && open !== "'" && open !== "(") return -1;
  p++;
  let line = i;
  for (;;) {
    if (p >= s.length) {
      line++;
      if (line >= lines.length || lines[line]!.trim() === "") return -1;
      s = lines[line]!;
      p = 0;
      continue;
    }
    const c = s[p]!;
    if (c === "\\") {
      p += 2;
      continue;
    }
    if (c === close) break;
    if (open === "(" && c === "(") return -1;
    p++;
  }
  return skipSpaces(s, p + 1) >= s.length ? line : -1;
}

function skipSpaces(s: string, p: number): number {
  while (p < s.length && (s[p] === " " || s[p] === "\t")) p++;
  return p;
}
