/**
 * What a person reads in a posted text (a pull request body, a status comment): each sentence of prose
 * once, code spans only around code, and none of the words the product uses for its own machinery.
 */

/** Words of the product's own machinery that must not reach a maintainer. */
export const INTERNAL_TERMS = [
  "both trees",
  "canary",
  "canaries",
  "budget for related",
  "tamper",
  "tampered",
  "proof",
  "over-budget",
  "over budget",
  "related-test budget",
  "proxy",
  "launcher",
  "planted",
  "counted before",
  "stubbed wholesale",
  "linear attempt",
  "tree attempt",
  "APPLICABLE_PATCH",
];

/** The text outside fenced code blocks, HTML comments and tags. */
function outsideFences(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1]!.startsWith(fence[0]!) && m[1]!.length >= fence.length) fence = null;
      continue;
    }
    if (m) {
      fence = m[1]!;
      continue;
    }
    out.push(line);
  }
  return out.join("\n").replace(/<!--[\s\S]*?-->/g, "");
}

/** The inline code spans of a Markdown text (outside fenced blocks). */
export function codeSpans(markdown: string): string[] {
  return [...outsideFences(markdown).matchAll(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g)].map((m) =>
    m[2]!.trim(),
  );
}

/** A span that holds code: a path, a command with options, a test id, a call, an assignment. */
const CODE_SHAPE = /[/\\_=()<>{}[\]#$|@]|::|\w\.\w|(?:^|\s)--?\w|^\w+$/;

/** Code spans that hold a sentence: four words or more and nothing of a path's, command's or id's shape. */
export function proseInCode(markdown: string): string[] {
  return codeSpans(markdown).filter((s) => s.split(/\s+/).length >= 4 && !CODE_SHAPE.test(s));
}

/** The sentences of prose (code spans, fences and markup left out), normalised for comparison. */
export function sentences(markdown: string): string[] {
  const text = outsideFences(markdown)
    .replace(/(`+)[\s\S]*?\1/g, "CODE")
    .replace(/<[^>]+>/g, " ")
    .replace(/^\s*(?:[-*] (?:\[[ x]\] )?|>\s?|#+\s|\|)/gm, "");
  return text
    .split(/\n\s*\n|(?<=[.!?])\s+|\n/)
    .map((s) => s.replace(/\s+/g, " ").trim().toLowerCase())
    .filter((s) => s.split(" ").length >= 5);
}

/** Sentences said more than once in the text. */
export function repeatedSentences(markdown: string): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const s of sentences(markdown)) (seen.has(s) ? twice : seen).add(s);
  return [...twice];
}

/** Internal terms the text holds (case-insensitive, code included: a code span is still read). */
export function internalTerms(text: string): string[] {
  const lower = text.toLowerCase();
  return INTERNAL_TERMS.filter((t) => lower.includes(t.toLowerCase()));
}

/** Everything wrong with a posted text by these rules, one line each (empty: it reads well). */
export function plainWordProblems(markdown: string): string[] {
  return [
    ...repeatedSentences(markdown).map((s) => `said twice: ${s}`),
    ...proseInCode(markdown).map((s) => `prose in a code span: ${s}`),
    ...internalTerms(markdown).map((t) => `internal term: ${t}`),
  ];
}
