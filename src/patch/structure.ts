/**
 * Whether a replacement keeps the lines it did not change in their blocks (for languages that read
 * indentation): each such line must be enclosed, before and after, by the same surviving block headers.
 * Headers the edit added or removed are left out of the comparison, so wrapping lines in a new block or
 * unwrapping them is allowed, while a loop leaving its function, or a `return` joining a loop, is not.
 */
import type { PlanLine } from "./build-edit.ts";

export interface BlockMove {
  /** 0-based line of the file before the edit. */
  oldLine: number;
  /** 0-based line after the edit. */
  newLine: number;
  /** Header lines (after the edit) of the blocks it left, and of the blocks it joined. */
  left: number[];
  joined: number[];
}

/**
 * The first unchanged line whose enclosing blocks differ, or null when they all keep them.
 * `region` is the replaced range of the old text, `plan` its replacement (one plan line per new line);
 * `check` the plan lines that must keep their blocks; `isCode(line)` tells code lines of the old text.
 */
export function firstBlockMove(args: {
  oldBlocks: readonly (readonly number[])[];
  newBlocks: readonly (readonly number[])[];
  start: number;
  end: number;
  plan: readonly PlanLine[];
  check: ReadonlySet<number>;
  isCode: (oldLine: number) => boolean;
}): BlockMove | null {
  const { oldBlocks, newBlocks, start, end, plan } = args;
  const delta = plan.length - (end - start);
  const oldToNew = new Map<number, number>();
  const newToOld = new Map<number, number>();
  plan.forEach((pl, k) => {
    const old = pl.f >= 0 ? pl.f : (pl.replaces ?? -1);
    if (old >= 0) {
      oldToNew.set(old, start + k);
      newToOld.set(start + k, old);
    }
  });
  const toNew = (o: number): number | undefined => (o < start ? o : o >= end ? o + delta : oldToNew.get(o));
  const toOld = (n: number): number | undefined =>
    n < start ? n : n >= start + plan.length ? n - delta : newToOld.get(n);
  // Lines inside the edit may join blocks it adds (wrapping them); lines after it never do.
  const compare = (o: number, n: number, mayJoinNew = true): BlockMove | null => {
    const before: number[] = [];
    for (const h of oldBlocks[o] ?? []) {
      const m = toNew(h);
      if (m !== undefined) before.push(m);
    }
    const after = (newBlocks[n] ?? []).filter((h) => !mayJoinNew || toOld(h) !== undefined);
    if (before.length === after.length && before.every((h, i) => h === after[i])) return null;
    return {
      oldLine: o,
      newLine: n,
      left: before.filter((h) => !after.includes(h)),
      joined: after.filter((h) => !before.includes(h)),
    };
  };
  for (const k of args.check) {
    const pl = plan[k]!;
    if (pl.f < 0) continue;
    const move = compare(pl.f, start + k);
    if (move) return move;
  }
  for (let k = 0; k < plan.length; k++) {
    const pl = plan[k]!;
    if (pl.kind !== "file" || !args.isCode(pl.f)) continue;
    const move = compare(pl.f, start + k);
    if (move) return move;
  }
  for (let o = end; o < oldBlocks.length; o++) {
    if (!args.isCode(o)) continue;
    const move = compare(o, o + delta, false);
    if (move) return move;
  }
  return null;
}
