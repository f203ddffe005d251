/**
 * Whether a reproducer going red → green can back "fixed". The reproducer is the model's own script, so
 * its exit codes alone are evidence the model wrote: it counts only when, as the runtime reported it,
 * its run before the patch ended in a failed assertion (not a parse, compile, import or name failure,
 * and not an assertion raised while handling one) and its runs went through the code the patch changes,
 * traced, not assumed: before the patch, the lines the patch replaces; after it, the lines it writes.
 */
import { z } from "zod";
import { parseUnifiedDiff } from "../core/unified-diff.ts";
import type { LineTrace, ScriptEnding, ScriptRun } from "../sandbox/script-run.ts";

export const ScriptEndingSchema = z.strictObject({
  how: z.enum(["exit", "exception", "does-not-parse", "does-not-compile", "does-not-import", "unknown"]),
  type: z.string().nullable(),
  message: z.string(),
  assertion: z.boolean(),
  chain: z.array(z.string()),
  line: z.number().int().nullable(),
  detail: z.string().optional(),
});

export const ReproducerEvidenceSchema = z.strictObject({
  /** The reproducer going red → green can back "fixed" (the rest of the rule still applies). */
  backs_fix: z.boolean(),
  /** What it shows, or why it cannot back "fixed", in words for people. */
  detail: z.string(),
  /** How its run before the patch and after the chosen one ended, as the runtime reported it. */
  before: ScriptEndingSchema.nullable(),
  after: ScriptEndingSchema.nullable(),
  /** Whether those runs went through the patch's lines (null: not traced), and which lines they are. */
  runs_patch: z
    .strictObject({
      before: z.boolean().nullable(),
      after: z.boolean().nullable(),
      lines: z.array(z.string()),
    })
    .nullable(),
});
export type ReproducerEvidence = z.infer<typeof ReproducerEvidenceSchema>;

/** Failures that mean something is missing (not loaded, not defined), not that a check failed. */
const LOAD_TYPES =
  /^(?:ImportError|ModuleNotFoundError|NameError|UnboundLocalError|AttributeError|ReferenceError|java\.lang\.(?:NoClassDefFoundError|ClassNotFoundException|NoSuchMethodError|NoSuchFieldError))$/;
const MISSING_MESSAGE =
  /is not a function|is not a constructor|is not defined|Cannot read propert(?:y|ies) of undefined/;

/** Whether an exception of this type and message says something is missing. */
export function isLoadFailure(type: string | null, message = ""): boolean {
  if (type === null) return false;
  return LOAD_TYPES.test(type) || (type === "TypeError" && MISSING_MESSAGE.test(message));
}

/** A reproducer that looks at the process it runs in (the tracer, its record, /proc) cannot back "fixed". */
const SELF_INSPECTION =
  /\b(?:settrace|gettrace|setprofile|sys\.monitoring|_getframe|gc\.get_objects|NODE_V8_COVERAGE|node:inspector|takePreciseCoverage|uncaughtExceptionMonitor)\b|\/proc\/|\.af-/;

/** Words for an ending: `AssertionError: expected 5` / `a parse failure (SyntaxError at line 3)`. */
export function describeEnding(e: ScriptEnding): string {
  const text = `${e.type ?? "a failure"}${e.message ? `: ${e.message.split("\n").find((l) => l.trim()) ?? ""}` : ""}`;
  const at = e.line !== null ? ` at line ${e.line}` : "";
  switch (e.how) {
    case "does-not-parse":
      return `the script does not parse (${e.type ?? "SyntaxError"}${at})`;
    case "does-not-compile":
      return `the script does not compile (${text}${at})`;
    case "does-not-import":
      return `the script does not import (${text})`;
    case "exit":
      return "it exited";
    case "unknown":
      return `how it ended cannot be told${e.detail ? ` (${e.detail})` : ""}`;
    default:
      return text;
  }
}

/** The lines a patch replaces (old side) and writes (new side), per file. */
export function patchLines(diff: string): { old: Map<string, number[]>; new: Map<string, number[]> } {
  const old = new Map<string, number[]>();
  const neu = new Map<string, number[]>();
  for (const f of parseUnifiedDiff(diff)) {
    const o: number[] = [];
    const n: number[] = [];
    for (const h of f.hunks) {
      let a = h.oldStart;
      // The new side's numbering: the old start moved by what earlier hunks added or removed.
      let b = Math.max(1, h.oldStart) + shiftOf(f.hunks, h);
      // A pure insertion stands, on the old side, for the next line that is not blank; a pure deletion,
      // on the new side, likewise.
      let needOld = false;
      let needNew = false;
      let dels = 0;
      let adds = 0;
      const close = () => {
        if (adds > 0 && dels === 0) needOld = true;
        if (dels > 0 && adds === 0) needNew = true;
        adds = dels = 0;
      };
      for (const l of h.lines) {
        if (l.startsWith("\\")) continue;
        if (l.startsWith("-")) {
          o.push(a++);
          dels++;
        } else if (l.startsWith("+")) {
          n.push(b++);
          adds++;
        } else {
          close();
          if (l.slice(1).trim() !== "") {
            if (needOld) o.push(a);
            if (needNew) n.push(b);
            needOld = needNew = false;
          }
          a++;
          b++;
        }
      }
      close();
    }
    if (f.oldPath && o.length > 0) old.set(f.oldPath, [...new Set(o)]);
    if (f.newPath && n.length > 0) neu.set(f.newPath, [...new Set(n)]);
  }
  return { old, new: neu };
}

/** How far the new side's numbering has moved at the start of hunk `h` (lines added minus removed before it). */
function shiftOf(
  hunks: ReturnType<typeof parseUnifiedDiff>[number]["hunks"],
  h: (typeof hunks)[number],
): number {
  let shift = 0;
  for (const x of hunks) {
    if (x === h) break;
    for (const l of x.lines) {
      if (l.startsWith("+")) shift++;
      else if (l.startsWith("-")) shift--;
    }
  }
  return shift;
}

const ranges = (lines: readonly number[]): string => {
  const s = [...lines].sort((x, y) => x - y);
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++;
    out.push(i === j ? `${s[i]}` : `${s[i]}-${s[j]}`);
    i = j;
  }
  return out.join(",");
};

const hits = (want: Map<string, number[]>, trace: LineTrace | null): boolean | null => {
  if (!trace) return null;
  for (const [file, lines] of want) {
    const ran = new Set(trace[file] ?? []);
    if (lines.some((l) => ran.has(l))) return true;
  }
  return false;
};

type Run = Pick<ScriptRun, "ending" | "trace">;

/**
 * Judges the reproducer's runs on the unpatched tree (`before`) and with the patch `diff` (`after`).
 * `script` is the reproducer's text.
 */
export function reproducerEvidence(input: {
  before: Run | null;
  after: Run | null;
  diff: string;
  script: string;
}): ReproducerEvidence {
  const { before, after } = input;
  const lines = patchLines(input.diff);
  const named = [
    ...[...lines.old].map(([f, l]) => `${f}:${ranges(l)} (before)`),
    ...[...lines.new].map(([f, l]) => `${f}:${ranges(l)} (after)`),
  ];
  const traced = before?.trace && after?.trace;
  const runsPatch = traced
    ? { before: hits(lines.old, before.trace), after: hits(lines.new, after.trace), lines: named }
    : null;
  const out = (backs: boolean, detail: string): ReproducerEvidence => ({
    backs_fix: backs,
    detail,
    before: before?.ending ?? null,
    after: after?.ending ?? null,
    runs_patch: runsPatch,
  });
  if (!before || !after) return out(false, "the reproducer did not run both before and after the patch");
  const b = before.ending;
  if (b.how !== "exception")
    return out(false, `its run before the patch did not fail by an assertion: ${describeEnding(b)}`);
  if (!b.assertion || isLoadFailure(b.type, b.message))
    return out(false, `its failure before the patch was ${describeEnding(b)}, not a failed assertion`);
  const missing = b.chain.find((t) => isLoadFailure(t));
  if (missing)
    return out(
      false,
      `its assertion before the patch was raised while handling ${missing}: it fails because something is missing, not because a check failed`,
    );
  const self = SELF_INSPECTION.exec(input.script);
  if (self) return out(false, `the reproducer looks at the process it runs in (\`${self[0]}\`)`);
  if (!runsPatch)
    return out(
      false,
      "its runs cannot be traced for this runtime or command, so nothing shows that its assertion runs the patched code",
    );
  if (!runsPatch.before)
    return out(
      false,
      `its failing run before the patch never ran the lines the patch replaces (${named.filter((n) => n.endsWith("(before)")).join(", ") || "the patch replaces no line"})`,
    );
  if (!runsPatch.after)
    return out(
      false,
      `its run after the patch never ran the lines the patch writes (${named.filter((n) => n.endsWith("(after)")).join(", ") || "the patch writes no line"})`,
    );
  return out(
    true,
    `it failed by ${describeEnding(b)} before the patch and passes after it, its runs going through the patched lines (traced)`,
  );
}
