/**
 * How a run's patch differs from the runs before it on the same issue: a digest of each patch is kept
 * in the status comment's marker, so a retry can say "the patch is unchanged", "the same patch as run
 * N", or show the inter-diff (the change between the previous patch and this one) when it has both.
 */
import { createHash } from "node:crypto";

/** A short digest of a patch (whitespace at line ends ignored, so a reformatted diff is the same patch). */
export function patchDigest(patch: string): string {
  const norm = patch
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .filter((l) => !/^index [0-9a-f]+\.\.[0-9a-f]+/.test(l))
    .map((l) => l.trimEnd())
    .join("\n")
    .trim();
  return createHash("sha256").update(norm).digest("hex").slice(0, 16);
}

export type PatchChange =
  | { kind: "first" }
  | { kind: "unchanged"; run: number }
  | { kind: "same-as"; run: number; previous: number }
  | { kind: "changed"; previous: number };

/** How `sha` compares with the digests of earlier runs (newest last). */
export function comparePatch(history: readonly { run: number; sha: string }[], sha: string): PatchChange {
  const previous = history.at(-1);
  if (!previous) return { kind: "first" };
  if (previous.sha === sha) return { kind: "unchanged", run: previous.run };
  const same = [...history].reverse().find((h) => h.sha === sha);
  if (same) return { kind: "same-as", run: same.run, previous: previous.run };
  return { kind: "changed", previous: previous.run };
}

/** Most lines of either patch an inter-diff is computed for (beyond: the new patch alone is shown). */
const MAX_LINES = 2000;

/**
 * The inter-diff of two patches: their lines compared (longest common subsequence), shown as a unified
 * diff of the patch texts with `context` lines around each change; null when either is too long.
 */
export function interDiff(before: string, after: string, context = 2): string | null {
  const a = before.replace(/\r\n?/g, "\n").trimEnd().split("\n");
  const b = after.replace(/\r\n?/g, "\n").trimEnd().split("\n");
  if (a.length > MAX_LINES || b.length > MAX_LINES) return null;
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..], one row at a time.
  const lcs: Uint16Array[] = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: { op: " " | "-" | "+"; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ op: " ", line: a[i]! });
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      ops.push({ op: "+", line: b[j]! });
      j++;
    } else {
      ops.push({ op: "-", line: a[i]! });
      i++;
    }
  }
  const keep = ops.map(() => false);
  ops.forEach((o, k) => {
    if (o.op === " ") return;
    for (let d = Math.max(0, k - context); d <= Math.min(ops.length - 1, k + context); d++) keep[d] = true;
  });
  if (!keep.some(Boolean)) return "";
  const out: string[] = [];
  let gap = false;
  ops.forEach((o, k) => {
    if (!keep[k]) {
      gap = true;
      return;
    }
    if (gap && out.length > 0) out.push("…");
    gap = false;
    out.push(`${o.op}${o.line}`);
  });
  return out.join("\n");
}
