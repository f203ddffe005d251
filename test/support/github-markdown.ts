import { spawnSync } from "node:child_process";

/**
 * GitHub's Markdown renderer as the tests use it: `cmark-gfm` (GitHub's fork of cmark, Debian package
 * `cmark-gfm`) with GitHub's extensions, raw HTML passed through as GitHub's parser does, followed by a
 * model of what GitHub does to the HTML afterwards (mentions, issue references, closing keywords), which
 * it applies to text outside `code`, `pre`, `a` and block quotes.
 */
export function renderGfm(markdown: string): string {
  const r = spawnSync(
    "cmark-gfm",
    ["--unsafe", "-e", "table", "-e", "strikethrough", "-e", "autolink", "-e", "tagfilter", "-e", "tasklist"],
    { input: markdown, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (r.error || r.status !== 0) {
    throw new Error(
      `cmark-gfm failed (${r.error?.message ?? r.stderr}); install it with \`apt-get install cmark-gfm\` (scripts/install.sh --test-tools does)`,
    );
  }
  return r.stdout;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return String.fromCodePoint(code);
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

/** The text a reader sees: HTML comments and tags removed (attributes are not shown), entities decoded. */
export function visibleText(html: string): string {
  // As an HTML parser reads comments: `<!-->` and `<!--->` are empty, an unterminated one runs to the end.
  const uncommented = html.replace(/<!--(?:-?>|[\s\S]*?(?:-->|$))/g, "");
  // A tag ends at the first `>` outside its quoted attribute values.
  return decodeEntities(uncommented.replace(/<(?:"[^"]*"|'[^']*'|[^'">])*>/g, " "));
}

/**
 * The HTML GitHub's own filters act on: everything except code, preformatted text, links and block
 * quotes (where mentions and references are not linked and closing keywords do not count).
 */
export function liveHtml(html: string): string {
  return html
    .replace(/<pre[\s\S]*?<\/pre>/g, " ")
    .replace(/<code[\s\S]*?<\/code>/g, " ")
    .replace(/<blockquote>[\s\S]*?<\/blockquote>/g, " ");
}

export interface LiveEffects {
  /** `@user` and `@org/team` that GitHub would link (and notify). */
  mentions: string[];
  /** Issue references GitHub would link: `#7`, `owner/repo#7`, `GH-7`. */
  references: string[];
  /** Closing keywords followed by a reference (`Closes #7`, `fixes owner/repo#3`, `resolves <url>`). */
  closing: string[];
  /** Links and images (elements the body's author did not write themselves are counted by the caller). */
  links: string[];
  images: string[];
  /** HTML elements other than those cmark-gfm makes for Markdown itself. */
  html: string[];
}

const MARKDOWN_TAGS = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "strong",
  "em",
  "del",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "br",
  "hr",
  "input",
]);

/** What GitHub would make live in a rendered body, outside code, links and block quotes. */
export function liveEffects(markdown: string): LiveEffects {
  const html = renderGfm(markdown);
  const live = liveHtml(html);
  const text = visibleText(live.replace(/<a [\s\S]*?<\/a>/g, " "));
  const ref = String.raw`(?:[\w.-]+\/[\w.-]+#\d+|#\d+|GH-\d+|https?:\/\/\S+\/(?:issues|pull)\/\d+)`;
  return {
    mentions: [...text.matchAll(/(?:^|[^\w`])@([a-z0-9][a-z0-9-]*(?:\/[a-z0-9][\w-]*)?)/gi)].map(
      (m) => m[1]!,
    ),
    references: [...text.matchAll(new RegExp(`(?:^|[^\\w])(${ref})`, "gi"))].map((m) => m[1]!),
    closing: [
      ...text.matchAll(
        new RegExp(String.raw`\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+(${ref})`, "gi"),
      ),
    ].map((m) => m[0]),
    links: [...live.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1]!),
    images: [...live.matchAll(/<img [^>]*src="([^"]*)"/g)].map((m) => m[1]!),
    html: [...live.matchAll(/<([a-z][a-z0-9-]*)/gi)]
      .map((m) => m[1]!.toLowerCase())
      .filter((t) => !MARKDOWN_TAGS.has(t)),
  };
}
