import { lines } from "./tree-listing.ts";

/** Unquotes a path git wrote in C-style quotes (`"a\tb"`); null when it is not valid. */
function unquote(s: string): string | null {
  if (!s.startsWith('"')) return s;
  if (!s.endsWith('"') || s.length < 2) return null;
  const bytes: number[] = [];
  const body = s.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, "\\": 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const n = body[++i];
    if (n === undefined) return null;
    if (/[0-7]/.test(n)) {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct)) return null;
      bytes.push(Number.parseInt(oct, 8));
      i += 2;
    } else if (simple[n] !== undefined) bytes.push(simple[n]!);
    else return null;
  }
  return Buffer.from(bytes).toString("utf8");
}

/** The repository-relative paths a unified diff (git's format) changes, creates or deletes. */
export function changedFilesOfDiff(diff: string): string[] {
  const out = new Set<string>();
  for (const line of lines(diff)) {
    const m = /^(?:\+\+\+|---) (.+)$/.exec(line);
    if (!m) continue;
    const raw = m[1]!.replace(/\t.*$/, "");
    if (raw === "/dev/null") continue;
    const path = unquote(raw);
    if (path && /^[ab]\//.test(path)) out.add(path.slice(2));
  }
  return [...out];
}
