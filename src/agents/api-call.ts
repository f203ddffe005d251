/** A search API as the agents need to know it (the search engine's API_SPECS satisfy this). */
export interface ApiSpecLike {
  name: string;
  params: readonly (string | { name: string; optional?: boolean })[];
  description?: string;
}

export interface ParsedCall {
  name: string;
  args: string[];
  /** Canonical text, e.g. `search_method_in_class("save", "Model")`: used to detect repeats. */
  text: string;
}

export type CallParse = { ok: true; call: ParsedCall } | { ok: false; message: string };

interface RawArg {
  key: string | null;
  value: string;
}

const paramName = (p: ApiSpecLike["params"][number]) => (typeof p === "string" ? p : p.name);
const paramOptional = (p: ApiSpecLike["params"][number]) => typeof p !== "string" && Boolean(p.optional);

/**
 * An argument quoted so that `parseApiCall` reads it back unchanged: the first quote character the
 * value does not hold (backslashes stay as written), else double quotes with `\"` inside.
 */
function quoteArg(a: string): string {
  for (const q of ['"', "'", "`"]) if (!a.includes(q) && !a.endsWith("\\")) return `${q}${a}${q}`;
  return `"${a.replaceAll('"', '\\"')}"`;
}

/** `search_method_in_class("a", "b")` — canonical form: what the model wrote, quoted to read back. */
export function formatCall(name: string, args: readonly string[]): string {
  return `${name}(${args.map(quoteArg).join(", ")})`;
}

export function describeApis(specs: readonly ApiSpecLike[]): string {
  return specs
    .map((s) => {
      const sig = `${s.name}(${s.params.map(paramName).join(", ")})`;
      return s.description ? `- ${sig}: ${s.description}` : `- ${sig}`;
    })
    .join("\n");
}

/** Longest API call text parsed (a search_code fragment of 100 kB plus the call around it). */
export const MAX_CALL_CHARS = 110 * 1024;
/** Longest part of a call quoted back to the model in a message. */
const QUOTE_CHARS = 300;

const quoteShort = (s: string): string => {
  const t = s.trim();
  return t.length <= QUOTE_CHARS ? t : `${t.slice(0, QUOTE_CHARS - 1)}…`;
};

/** Removes one trailing `;` and the whitespace after it, without a backtracking expression. */
function dropSemicolon(s: string): string {
  let b = s.length;
  while (b > 0 && /\s/.test(s[b - 1]!)) b--;
  return s[b - 1] === ";" ? s.slice(0, b - 1) : s;
}

/** Removes leading and trailing runs of backticks. */
function trimBackticks(s: string): string {
  let a = 0;
  while (s[a] === "`") a++;
  let b = s.length;
  while (b > a && s[b - 1] === "`") b--;
  return s.slice(a, b);
}

/** `name(args)` with `name` a dotted identifier: the name and the text between the outer parentheses. */
function callShape(s: string): { name: string; args: string } | null {
  const head = /^[A-Za-z_][\w.]*/.exec(s);
  if (!head || !s.endsWith(")")) return null;
  let i = head[0].length;
  while (i < s.length && /\s/.test(s[i]!)) i++;
  if (s[i] !== "(" || i >= s.length - 1) return null;
  return { name: head[0], args: s.slice(i + 1, -1) };
}

/** Splits the text between the parentheses into arguments: quoted (either kind, escapes) or bare. */
function splitArgs(src: string): RawArg[] | string {
  const args: RawArg[] = [];
  let i = 0;
  const n = src.length;
  const skipWs = () => {
    while (i < n && /\s/.test(src[i]!)) i++;
  };
  while (i < n) {
    skipWs();
    if (i >= n) break;
    let key: string | null = null;
    const kw = /^([A-Za-z_]\w*)\s*[=:](?!=)\s*/.exec(src.slice(i));
    if (kw) {
      key = kw[1]!;
      i += kw[0].length;
    }
    let value = "";
    const ch = src[i];
    if (ch === '"' || ch === "'" || ch === "`") {
      const triple = src.startsWith(ch.repeat(3), i);
      const close = triple ? ch.repeat(3) : ch;
      i += close.length;
      let closed = false;
      while (i < n) {
        // Arguments are searched exactly as written: a backslash stays, except before the closing
        // quote (`"print(\\"hi\\")"`), where it only keeps the quote inside the argument.
        if (src[i] === "\\" && src.startsWith(close, i + 1)) {
          value += close;
          i += 1 + close.length;
          continue;
        }
        if (src.startsWith(close, i)) {
          i += close.length;
          closed = true;
          break;
        }
        value += src[i];
        i++;
      }
      if (!closed) return `an argument starts with ${ch} but the quote is never closed`;
      skipWs();
      if (i < n && src[i] !== ",")
        return `unexpected text after a quoted argument: '${src.slice(i, i + 20)}'`;
    } else {
      let depth = 0;
      const start = i;
      while (i < n) {
        const c = src[i]!;
        if ("([{".includes(c)) depth++;
        else if (")]}".includes(c)) depth--;
        else if (c === "," && depth <= 0) break;
        i++;
      }
      value = src.slice(start, i).trim();
      if (value === "" && key === null) return "an argument is empty";
    }
    args.push({ key, value });
    skipWs();
    if (src[i] === ",") i++;
  }
  return args;
}

const normKey = (k: string) => k.toLowerCase().replace(/_?(name|path)$/, "");

/**
 * Parses one API call written by a model, e.g. `search_method_in_class('save', class_name="Model")`,
 * `search_code(\`a = "b"\`)`, `get_code_around_line("x.py", 12, 5)`, and checks it against `specs`.
 * The failure message says exactly what is wrong, for the model to fix.
 */
export function parseApiCall(fullText: string, specs: readonly ApiSpecLike[]): CallParse {
  if (fullText.length > MAX_CALL_CHARS) {
    return {
      ok: false,
      message: `'${quoteShort(fullText)}' is ${fullText.length} characters long; an API call may have at most ${MAX_CALL_CHARS}. Search for a shorter fragment.`,
    };
  }
  // Messages quote the call back to the model: a short form of it.
  const text = quoteShort(fullText);
  const cleaned = dropSemicolon(
    trimBackticks(dropSemicolon(fullText.trim().replace(/^(?:[-*•]|\d+[.)])\s+/, ""))),
  ).trim();
  const m = callShape(cleaned);
  if (!m) {
    return { ok: false, message: `'${text}' is not an API call; write it as api_name("argument", ...).` };
  }
  const name = m.name.split(".").at(-1)!;
  const spec = specs.find((s) => s.name === name);
  if (!spec) {
    return {
      ok: false,
      message: `'${name}' is not one of the search APIs. Use only: ${specs.map((s) => s.name).join(", ")}.`,
    };
  }
  const raw = splitArgs(m.args);
  const names = spec.params.map(paramName);
  const signature = `${spec.name}(${names.join(", ")})`;
  if (typeof raw === "string")
    return { ok: false, message: `In '${text}': ${raw}. The API is ${signature}.` };
  const values: (string | undefined)[] = new Array(names.length).fill(undefined);
  let pos = 0;
  for (const a of raw) {
    let idx: number;
    if (a.key !== null) {
      const key = a.key;
      idx = names.findIndex((p) => p === key || normKey(p) === normKey(key));
      if (idx < 0) {
        return {
          ok: false,
          message: `${spec.name} has no parameter '${a.key}'; it is ${signature}.`,
        };
      }
    } else {
      while (pos < names.length && values[pos] !== undefined) pos++;
      idx = pos;
    }
    if (idx >= names.length) {
      return {
        ok: false,
        message: `${spec.name} takes ${names.length} argument(s) (${signature}), but '${text.trim()}' gives ${raw.length}.`,
      };
    }
    values[idx] = a.value;
  }
  const missing = names.filter((_p, i) => values[i] === undefined && !paramOptional(spec.params[i]!));
  if (missing.length > 0) {
    return {
      ok: false,
      message: `${spec.name} takes ${names.length} argument(s) (${signature}), but '${text.trim()}' gives ${raw.length}; missing: ${missing.join(", ")}.`,
    };
  }
  const empty = names.filter((_p, i) => values[i] !== undefined && values[i]!.trim() === "");
  if (empty.length > 0) {
    return { ok: false, message: `In '${text.trim()}' the argument ${empty.join(", ")} is empty.` };
  }
  let args = values.map((v) => v ?? "");
  while (args.length > 0 && values[args.length - 1] === undefined) args = args.slice(0, -1);
  return { ok: true, call: { name: spec.name, args, text: formatCall(spec.name, args) } };
}
