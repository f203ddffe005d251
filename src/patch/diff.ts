/**
 * Line diff (Myers) and unified-diff rendering that `git apply` accepts, including CRLF lines, files
 * without a final newline and new files.
 */
import type { FileText } from "./text.ts";

export type DiffOp =
  | { kind: "equal"; a: number; b: number }
  | { kind: "delete"; a: number }
  | { kind: "insert"; b: number };

/** Shortest edit script between `a` and `b` (equal/delete/insert in order), with `eq` comparing lines. */
export function diffSeq<T>(
  a: readonly T[],
  b: readonly T[],
  eq: (x: T, y: T) => boolean = Object.is,
): DiffOp[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && eq(a[pre]!, b[pre]!)) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && eq(a[a.length - 1 - suf]!, b[b.length - 1 - suf]!))
    suf++;
  const ops: DiffOp[] = [];
  for (let i = 0; i < pre; i++) ops.push({ kind: "equal", a: i, b: i });
  const n = a.length - pre - suf;
  const m = b.length - pre - suf;
  // A loop, not a spread: a spread of a long script overflows the call stack.
  for (const op of myers(n, m, (x, y) => eq(a[pre + x]!, b[pre + y]!))) ops.push(shift(op, pre));
  for (let i = suf; i > 0; i--) ops.push({ kind: "equal", a: a.length - i, b: b.length - i });
  return ops;
}

function shift(op: DiffOp, by: number): DiffOp {
  if (op.kind === "equal") return { kind: "equal", a: op.a + by, b: op.b + by };
  if (op.kind === "delete") return { kind: "delete", a: op.a + by };
  return { kind: "insert", b: op.b + by };
}

function myers(n: number, m: number, eq: (x: number, y: number) => boolean): DiffOp[] {
  if (n === 0) return Array.from({ length: m }, (_, b) => ({ kind: "insert" as const, b }));
  if (m === 0) return Array.from({ length: n }, (_, a) => ({ kind: "delete" as const, a }));
  const max = n + m;
  const offset = max;
  // The search keeps one frontier per step: beyond a fixed amount of work the middle is reported as
  // replaced wholesale (a correct, if larger, script), so two very different texts cost linear time.
  const maxD = Math.max(64, Math.floor(4_000_000 / (2 * max + 2)));
  let v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    if (d > maxD) {
      return [
        ...Array.from({ length: n }, (_, a) => ({ kind: "delete" as const, a })),
        ...Array.from({ length: m }, (_, b) => ({ kind: "insert" as const, b })),
      ];
    }
    trace.push(v.slice());
    const next = v;
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && next[offset + k - 1]! < next[offset + k + 1]!)) x = next[offset + k + 1]!;
      else x = next[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && eq(x, y)) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    v = next;
  }
  // Backtrack through the saved frontiers.
  const ops: DiffOp[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    let prevK: number;
    if (k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!)) prevK = k + 1;
    else prevK = k - 1;
    const prevX = d === 0 ? 0 : vd[offset + prevK]!;
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: "equal", a: x, b: y });
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: "insert", b: prevY });
      else ops.push({ kind: "delete", a: prevX });
    }
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

function quotePath(p: string): string {
  // git quotes paths with special characters; plain ones are written as they are.
  if (/^[\x21-\x7e]+$/.test(p) && !p.includes('"') && !p.includes("\\")) return p;
  const bytes = Buffer.from(p, "utf8");
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += "\\\\";
    else if (b === 0x09) out += "\\t";
    else if (b === 0x0a) out += "\\n";
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${b.toString(8).padStart(3, "0")}`;
  }
  return `${out}"`;
}

/** One file's unified diff with `context` lines around each change; "" when nothing changed. */
export function unifiedDiff(path: string, before: FileText | null, after: FileText, context = 3): string {
  const bl = before?.lines ?? [];
  const be = before?.eols ?? [];
  const al = after.lines;
  const ae = after.eols;
  // Lines compare with their ending, so an ending change shows as a change.
  const ops = diffSeq(
    bl.map((l, i) => l + be[i]),
    al.map((l, i) => l + ae[i]),
  );
  if (ops.every((o) => o.kind === "equal") && before) return "";
  const a = quotePath(`a/${path}`);
  const b = quotePath(`b/${path}`);
  let out = `diff --git ${a} ${b}\n`;
  // Like git, a name with a space gets a tab after it on the ---/+++ lines.
  const tab = (p: string) => (p.includes(" ") ? `${p}\t` : p);
  if (!before) out += "new file mode 100644\n--- /dev/null\n";
  else out += `--- ${tab(a)}\n`;
  out += `+++ ${tab(b)}\n`;
  const line = (prefix: string, text: string, eol: string) => {
    if (eol === "") return `${prefix}${text}\n\\ No newline at end of file\n`;
    return `${prefix}${text}${eol === "\r\n" ? "\r\n" : "\n"}`;
  };
  // Group changes into hunks.
  const changeIdx: number[] = [];
  ops.forEach((o, i) => {
    if (o.kind !== "equal") changeIdx.push(i);
  });
  let i = 0;
  while (i < changeIdx.length) {
    let first = changeIdx[i]!;
    let last = first;
    let j = i + 1;
    while (j < changeIdx.length && changeIdx[j]! - last <= 2 * context + 1) {
      last = changeIdx[j]!;
      j++;
    }
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    first = from;
    let aStart = -1;
    let bStart = -1;
    let aCount = 0;
    let bCount = 0;
    let body = "";
    let aPos = 0;
    let bPos = 0;
    // Positions before the hunk.
    for (let k = 0; k < from; k++) {
      const o = ops[k]!;
      if (o.kind !== "insert") aPos++;
      if (o.kind !== "delete") bPos++;
    }
    aStart = aPos;
    bStart = bPos;
    for (let k = from; k <= to; k++) {
      const o = ops[k]!;
      if (o.kind === "equal") {
        body += line(" ", bl[o.a]!, be[o.a]!);
        aCount++;
        bCount++;
      } else if (o.kind === "delete") {
        body += line("-", bl[o.a]!, be[o.a]!);
        aCount++;
      } else {
        body += line("+", al[o.b]!, ae[o.b]!);
        bCount++;
      }
    }
    const range = (start: number, count: number) =>
      count === 0 ? `${start},0` : count === 1 ? `${start + 1}` : `${start + 1},${count}`;
    out += `@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@\n${body}`;
    i = j;
  }
  return out;
}
