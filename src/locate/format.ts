import type { CodeSlice, ContextUnit, ResolvedLocation, UnresolvedLocation } from "./locate.ts";

/** Context classes longer than this are shown by their first and last lines only. */
const MAX_CONTEXT_LINES = 300;

/** Slices with right-aligned line numbers (`  12 | text`) and a `... |` line where lines are left out. */
function numberedSlices(slices: readonly CodeSlice[]): string {
  const last = slices[slices.length - 1];
  if (!last) return "";
  const width = String(last.end).length;
  const out: string[] = [];
  slices.forEach((sl, k) => {
    if (k > 0) out.push(`${" ".repeat(width)} | ...`);
    sl.code.split("\n").forEach((l, i) => {
      out.push(`${String(sl.start + i).padStart(width)} | ${l}`);
    });
  });
  return out.join("\n");
}

function tags(file: string, cls: string | null, method: string | null): string {
  const t = [`<file>${file}</file>`];
  if (cls) t.push(`<class>${cls}</class>`);
  if (method) t.push(`<func>${method}</func>`);
  return t.join(" ");
}

function contextBlock(c: ContextUnit): string {
  const what =
    c.kind === "file-head"
      ? `The head of ${c.file} (its imports and module-level names${c.partial ? `, the first ${c.slices.at(-1)?.end ?? 0} of its ${c.end} lines` : ""})`
      : c.kind === "enclosing-class"
        ? c.partial
          ? `The class \`${c.class}\` this method belongs to, in outline (its header, attributes and each member's first lines; \`...\` marks lines left out)`
          : `The whole class \`${c.class}\` this method belongs to`
        : `The nearest ancestor's definition of \`${c.method}\` (in \`${c.class}\`), which this method overrides`;
  let code = numberedSlices(c.slices);
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
 * What the patch writer shows the model: each location with file, class, method, its line-numbered code
 * (the slices it shows, with `...` where lines are left out, and a sentence saying what they are) and
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
      ...(l.shown ? [l.shown] : []),
      `<code>\n${numberedSlices(l.slices)}\n</code>`,
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
