/**
 * File text as lines with their own line endings, so that an edit keeps the file's CRLF/LF, final newline
 * and encoding.
 */

export type Encoding = "utf8" | "utf8-bom" | "latin1";

export interface FileText {
  lines: string[];
  /** The terminator of each line: "\n", "\r\n" or "" (the last line of a file without final newline). */
  eols: string[];
  /** The file's dominant line ending, used for new lines. */
  eol: "\n" | "\r\n";
  encoding: Encoding;
}

const BINARY_EXT =
  /\.(png|jpe?g|gif|bmp|ico|webp|pdf|zip|gz|tgz|bz2|xz|7z|jar|war|class|so|dylib|dll|exe|bin|o|a|pyc|pyo|woff2?|ttf|otf|eot|mp[34]|wav|ogg|mov|avi|sqlite|db|wasm|node)$/i;

/** Decodes file bytes; null when the file is binary (NUL bytes, a binary extension, UTF-16). */
export function decodeFile(path: string, bytes: Uint8Array): { text: string; encoding: Encoding } | null {
  if (BINARY_EXT.test(path)) return null;
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return null;
  let encoding: Encoding = "utf8";
  let body = bytes;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    encoding = "utf8-bom";
    body = bytes.subarray(3);
  }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(body), encoding };
  } catch {
    if (encoding === "utf8-bom") return null;
    return { text: Buffer.from(body).toString("latin1"), encoding: "latin1" };
  }
}

export function encodeFile(text: string, encoding: Encoding): Buffer {
  if (encoding === "latin1") return Buffer.from(text, "latin1");
  const b = Buffer.from(text, "utf8");
  return encoding === "utf8-bom" ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]) : b;
}

export function splitText(text: string, encoding: Encoding = "utf8"): FileText {
  const lines: string[] = [];
  const eols: string[] = [];
  let crlf = 0;
  let lf = 0;
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) {
      if (start < text.length) {
        lines.push(text.slice(start));
        eols.push("");
      }
      break;
    }
    if (nl > start && text[nl - 1] === "\r") {
      lines.push(text.slice(start, nl - 1));
      eols.push("\r\n");
      crlf++;
    } else {
      lines.push(text.slice(start, nl));
      eols.push("\n");
      lf++;
    }
    start = nl + 1;
  }
  return { lines, eols, eol: crlf > lf ? "\r\n" : "\n", encoding };
}

export function joinText(ft: FileText): string {
  let out = "";
  for (let i = 0; i < ft.lines.length; i++) out += ft.lines[i]! + ft.eols[i]!;
  return out;
}

/**
 * Replaces lines [start, end) with `replacement`; new lines take the file's line ending, and the last
 * line keeps "no final newline" when the replaced range ended the file without one.
 */
export function replaceLines(
  ft: FileText,
  start: number,
  end: number,
  replacement: string[],
  keptEols?: readonly (string | undefined)[],
): FileText {
  const endsFile = end === ft.lines.length;
  const lastEol = endsFile && end > start ? (ft.eols[end - 1] ?? ft.eol) : ft.eol;
  // Kept lines keep their own ending (a mixed-ending file stays as it was around the edit).
  const newEols = replacement.map((_, i) => {
    if (i === replacement.length - 1 && endsFile) return lastEol;
    const kept = keptEols?.[i];
    return kept === undefined || kept === "" ? ft.eol : kept;
  });
  // Concatenation rather than splice(...spread): a long replacement would overflow the call stack.
  const lines = ft.lines.slice(0, start).concat(replacement, ft.lines.slice(end));
  const eols = ft.eols.slice(0, start).concat(newEols, ft.eols.slice(end));
  // Deleting the last lines of a file without final newline: the new last line loses its newline too.
  if (endsFile && replacement.length === 0 && start > 0 && lastEol === "") eols[start - 1] = "";
  // Inserting at the very end of a file without final newline: the old last line now needs one.
  if (endsFile && start === end && start > 0 && replacement.length > 0 && eols[start - 1] === "") {
    eols[start - 1] = ft.eol;
    eols[start + replacement.length - 1] = "";
  }
  return { lines, eols, eol: ft.eol, encoding: ft.encoding };
}

function isWs(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 12 || c === 11;
}

/** `s` without trailing spaces, tabs and CRs (a loop: a regex anchored at the end is quadratic on runs). */
export function trimEndWs(s: string): string {
  let e = s.length;
  while (e > 0 && isWs(s.charCodeAt(e - 1))) e--;
  return e === s.length ? s : s.slice(0, e);
}

/** The leading spaces and tabs of a line. */
export function leadingWs(s: string): string {
  let i = 0;
  while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  return s.slice(0, i);
}
