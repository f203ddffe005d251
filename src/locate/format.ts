import type { ContextUnit, ResolvedLocation, UnresolvedLocation } from "./locate.ts";

/** Context classes longer than this are shown by their first and last lines only. */
const MAX_CONTEXT_LINES = 300;

function numberedCode(code: string, start: number): string {
  const lines = code.split("\n");
  const width = String(start + lines.length - 1).length;
  return lines.map((l, i) => `${String(start + i).padStart(width)} | ${l}`).join("\n");
}

function tags(file: string, cls: string | null, method: string | null): string {
  const t = [`<file>${file}</file>`];
  if (cls) t.push(`<class>${cls}</class>`);
  if (method) t.push(`<func>${method}</func>`);
  return t.join(" ");
}

function contextBlock(c: ContextUnit): string {
  const what =
    c.kind === "enclosing-class"
      ? `The whole class \`${c.class}\` this method belongs to`
      : `The nearest ancestor's definition of \`${c.method}\` (in \`${c.class}\`), which this method overrides`;
  let code = numberedCode(c.code, c.start);
  const lines = code.split("\n");
  if (lines.length > MAX_CONTEXT_LINES) {
    const half = MAX_CONTEXT_LINES / 2;
    code = [
      ...lines.slice(0, half),
      `    ... (${lines.length - MAX_CONTEXT_LINES} lines left out) ...`,
      ...lines.slice(-half),
    ].join("\n");
  }
  return `${what}:\n${tags(c.file, c.class, c.method)} (lines ${c.start}-${c.end})\n<code>\n${code}\n</code>`;
}

/**
 * What the patch writer shows the model: each location with file, class, method, line-numbered code and
 * the intended behaviour, then its context units (each shown once across all locations).
 */
export function formatLocationsForModel(
  locs: readonly ResolvedLocation[] & { unresolved?: readonly UnresolvedLocation[] },
): string {
  const shown = new Set(locs.map((l) => `${l.file}:${l.start}:${l.end}`));
  const parts: string[] = [];
  locs.forEach((l, i) => {
    const block = [
      `Location ${i + 1}: ${tags(l.file, l.class, l.method)} (lines ${l.start}-${l.end})`,
      `<code>\n${numberedCode(l.code, l.start)}\n</code>`,
    ];
    if (l.intendedBehavior) block.push(`Intended behavior: ${l.intendedBehavior}`);
    for (const c of l.context) {
      const key = `${c.file}:${c.start}:${c.end}`;
      if (shown.has(key)) continue;
      shown.add(key);
      block.push(contextBlock(c));
    }
    parts.push(block.join("\n"));
  });
  if (locs.unresolved && locs.unresolved.length > 0) {
    parts.push(
      `These locations could not be found:\n${locs.unresolved
        .map(
          (u) =>
            `- ${JSON.stringify({ file: u.request.file, class: u.request.class, method: u.request.method })}: ${u.reason}`,
        )
        .join("\n")}`,
    );
  }
  if (parts.length === 0) return "No bug locations.";
  return parts.join("\n\n");
}
