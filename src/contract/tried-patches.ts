import { createHash } from "node:crypto";

/**
 * A key under which identical patches meet: the diff without `index` lines, line-end differences and
 * trailing blanks. Two candidates with the same key are the same patch, whoever wrote them.
 */
export function patchKey(diff: string): string {
  const body = diff
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .filter((l) => !l.startsWith("index "))
    .map((l) => l.replace(/[ \t]+$/, ""))
    .join("\n")
    .trim();
  return createHash("sha256").update(body).digest("hex");
}

/** A patch the job has already had: which candidate it was first, and what happened to it. */
export interface TriedPatch {
  id: string;
  /** What happened to it, in a few words ("the repository's tests reject it: ..."). */
  fate: string;
}

/** Longest fate kept (it may quote a reviewer's analysis or test names). */
const MAX_FATE_CHARS = 400;

/**
 * Every patch a job has run, reviewed or validated, by normalised diff: a candidate that repeats one is
 * recognised before anything runs or judges it again.
 */
export class TriedPatches {
  readonly #byKey = new Map<string, TriedPatch>();

  /** The earlier candidate with this patch, if any. */
  get(diff: string): TriedPatch | undefined {
    return this.#byKey.get(patchKey(diff));
  }

  /** Records a candidate's patch (the first candidate with a patch keeps its name). */
  add(id: string, diff: string, fate = "it was not judged yet"): TriedPatch {
    const key = patchKey(diff);
    let t = this.#byKey.get(key);
    if (!t) {
      t = { id, fate: bounded(fate) };
      this.#byKey.set(key, t);
    }
    return t;
  }

  /** What happened to a patch, once known (its latest fate wins). */
  settle(id: string, diff: string, fate: string): void {
    this.add(id, diff).fate = bounded(fate);
  }

  get size(): number {
    return this.#byKey.size;
  }
}

const bounded = (text: string): string => {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > MAX_FATE_CHARS ? `${one.slice(0, MAX_FATE_CHARS - 3)}...` : one;
};
