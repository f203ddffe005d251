/**
 * The configuration file's problems in words that help: the allowed values where a value is not one of
 * them (also through a union such as `strategy: linear | tree | {…}`), and for an unknown key the
 * closest known one (`test_command` → `test`).
 */
import type { z } from "zod";

type Issue = z.core.$ZodIssue;
type Def = { type: string; [k: string]: unknown };

const defOf = (schema: unknown): Def | null => (schema as { _zod?: { def?: Def } } | null)?._zod?.def ?? null;

/** The keys an object schema at `path` of `schema` knows (through optional, pipe and union). */
export function knownKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  let current: unknown[] = [schema];
  for (const seg of [...path, null]) {
    const objects: Def[] = [];
    const seen = new Set<unknown>();
    const visit = (s: unknown): void => {
      const def = defOf(s);
      if (!def || seen.has(s)) return;
      seen.add(s);
      if (def.type === "object") objects.push(def);
      else if (def.type === "optional" || def.type === "nullable" || def.type === "default")
        visit(def.innerType);
      else if (def.type === "pipe") {
        visit(def.in);
        visit(def.out);
      } else if (def.type === "union") for (const o of def.options as unknown[]) visit(o);
    };
    for (const s of current) visit(s);
    if (seg === null) return [...new Set(objects.flatMap((o) => Object.keys(o.shape as object)))];
    current = objects
      .map((o) => (o.shape as Record<string, unknown>)[String(seg)])
      .filter((s) => s !== undefined);
  }
  return [];
}

/** Edit distance: insertions, deletions, substitutions and swaps of two neighbours each count 1. */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The known key an unknown one most likely meant: the same key spelled with other separators or case,
 * else the nearest by edit distance (at most a third of its length), else a known key that is one of
 * its words (`test_command` → `test`). Null when none is close.
 */
export function closestKey(unknown: string, known: readonly string[]): string | null {
  if (unknown.length > 100) return null;
  const norm = (s: string) =>
    s
      .replace(/([a-z])([A-Z])/g, "$1-$2")
      .toLowerCase()
      .replace(/[_\s.]+/g, "-");
  const u = norm(unknown);
  const same = known.find((k) => norm(k) === u);
  if (same) return same;
  let best: { key: string; d: number } | null = null;
  for (const k of known) {
    const d = editDistance(u, norm(k));
    if (!best || d < best.d) best = { key: k, d };
  }
  if (best && best.d <= Math.max(1, Math.floor(u.length / 3))) return best.key;
  const words = new Set(u.split("-").filter(Boolean));
  return known.find((k) => words.has(norm(k))) ?? null;
}

const show = (v: unknown): string => {
  const s = typeof v === "string" ? `'${v}'` : JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

const valueAt = (raw: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (v, k) => (v && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    raw,
  );

/** What one failed branch of a union expected of the whole value (null: it failed deeper in). */
function expectedOf(branch: Issue[]): string | null {
  const root = branch.find((x) => x.path.length === 0);
  if (!root) return null;
  if (root.code === "invalid_value") return `one of ${root.values.map((v) => String(v)).join(", ")}`;
  if (root.code === "invalid_type")
    return root.expected === "object" ? "a mapping of settings" : `a ${root.expected}`;
  return root.message;
}

/** Each problem of a failed parse of the configuration file as one line, `where: what`. */
export function describeIssues(issues: readonly Issue[], schema: unknown, raw: unknown): string[] {
  const lines: string[] = [];
  const describe = (i: Issue, prefix: readonly PropertyKey[]): void => {
    const path = [...prefix, ...i.path];
    const where = path.length > 0 ? path.map(String).join(".") : "(top level)";
    if (i.code === "unrecognized_keys") {
      const known = knownKeysAt(schema, path);
      const hints = i.keys
        .map((k) => [k, closestKey(k, known)] as const)
        .filter((h): h is readonly [string, string] => h[1] !== null)
        .map(([k, s]) => (i.keys.length === 1 ? `did you mean '${s}'?` : `'${k}': did you mean '${s}'?`));
      lines.push(
        `${where}: unknown setting(s) ${i.keys.map((k) => `'${k}'`).join(", ")}${hints.length > 0 ? ` (${hints.join("; ")})` : ""}`,
      );
      return;
    }
    if (i.code === "invalid_union") {
      // A branch that took the value's shape and failed inside it says what is wrong there.
      const inner = i.errors.filter((b) => b.length > 0 && b.every((x) => x.path.length > 0));
      if (inner.length === 1) {
        for (const x of inner[0]!) describe(x, path);
        return;
      }
      const expected = [...new Set(i.errors.map(expectedOf).filter((e): e is string => e !== null))];
      if (expected.length > 0) {
        lines.push(
          `${where}: ${show(valueAt(raw, path))} is not allowed: expected ${expected.join(", or ")}`,
        );
        return;
      }
    }
    if (i.code === "invalid_value" && i.message === "Invalid input") {
      lines.push(`${where}: expected one of ${i.values.map((v) => String(v)).join(", ")}`);
      return;
    }
    lines.push(`${where}: ${i.message}`);
  };
  for (const i of issues) describe(i, []);
  return lines;
}
