/**
 * Copy figures: what one candidate's work tree costs, as a plain copy of the prepared tree (each copy
 * copies every file, and the first sandboxed run gives every file to the sandbox's uid) against an
 * overlay copy of the frozen prepared tree (nothing is copied until written).
 *
 *   npm run bench:copies [-- --runs 5] [--tree DIR ...] [--files 20000]
 *
 * Default trees: the Python standard library (`/usr/lib/python3.11` or the newest found) and a generated
 * tree of `--files` source files in nested packages. Per tree and mode, medians of `--runs` candidates:
 * making the copy (ms, bytes on its tmpfs), writing a one-line change into it and running `true` in the
 * sandbox there (ms: includes the ownership walk), the reproducer's copy of that candidate tree (ms,
 * bytes), and disposing both.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { openTree } from "../src/core/tree-fs.ts";
import {
  createSandbox,
  freezeTree,
  makeWorkCopy,
  overlayCopiesAvailable,
  type WorkCopy,
} from "../src/sandbox/index.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    tree: { type: "string", multiple: true },
    files: { type: "string", default: "20000" },
  },
});
const runs = Math.max(1, Number(values.runs) || 5);
const fileCount = Math.max(100, Number(values.files) || 20000);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mib = (n: number) =>
  n < 1024 * 1024 ? `${(n / 1024).toFixed(0)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
const used = (copy: WorkCopy): number => {
  const fs = statfsSync(dirname(copy.dir));
  return (fs.blocks - fs.bfree) * fs.bsize;
};
const time = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const t = performance.now();
  const r = await f();
  return [r, performance.now() - t];
};

/** A tree of `n` Python modules (2-6 KiB each) in packages of 50, three levels deep. */
function generate(n: number): string {
  const root = mkdtempSync(join(tmpdir(), "af-copy-bench-gen-"));
  for (let i = 0; i < n; i++) {
    const dir = join(
      root,
      `pkg${Math.floor(i / 2500)}`,
      `sub${Math.floor(i / 250) % 10}`,
      `mod${Math.floor(i / 50) % 5}`,
    );
    if (i % 50 === 0) mkdirSync(dir, { recursive: true });
    const body = `def f${i}(x):\n    return x + ${i}\n\n`.repeat(40 + (i % 100));
    writeFileSync(join(dir, `m${i}.py`), body);
  }
  return root;
}

function defaultStdlib(): string | null {
  const dirs = existsSync("/usr/lib") ? readdirSync("/usr/lib").filter((d) => /^python3\.\d+$/.test(d)) : [];
  const best = dirs.sort((a, b) => Number(b.split(".")[1]) - Number(a.split(".")[1]))[0];
  return best ? join("/usr/lib", best) : null;
}

const sandbox = await createSandbox("bwrap");
const generated: string[] = [];
const trees: { name: string; dir: string }[] = [];
for (const t of values.tree ?? []) trees.push({ name: t, dir: t });
if (trees.length === 0) {
  const std = defaultStdlib();
  if (std) trees.push({ name: std, dir: std });
  const gen = generate(fileCount);
  generated.push(gen);
  trees.push({ name: `generated, ${fileCount} files`, dir: gen });
}

const rows: string[][] = [];
for (const tree of trees) {
  for (const mode of ["plain copy", "overlay"] as const) {
    // The prepared tree, as TreeStates makes it: a copy of the work tree (frozen for overlays).
    let frozen = false;
    const [base, prepMs] = await time(async () => {
      const b = await makeWorkCopy(tree.dir);
      if (mode === "overlay") {
        frozen = await freezeTree(b.dir);
        await sandbox.adoptTree?.(b.dir);
      }
      return b;
    });
    const figures = { copyMs: [] as number[], copyBytes: [] as number[], runMs: [] as number[] };
    const again = { ms: [] as number[], bytes: [] as number[], disposeMs: [] as number[] };
    try {
      for (let i = 0; i < runs; i++) {
        const [copy, copyMs] = await time(() => makeWorkCopy(base.dir));
        figures.copyMs.push(copyMs);
        figures.copyBytes.push(used(copy));
        const first = readdirSync(copy.dir).find((n) => !n.startsWith("."));
        const [, runMs] = await time(async () => {
          // A candidate's program written into its tree, then one sandboxed command there.
          openTree(copy.dir).write(`auto-fix-candidate-${i}.txt`, `candidate ${i} of ${first}\n`, {
            onLink: "replace",
          });
          const r = await sandbox.run({ workdir: copy.dir, command: ["true"], timeoutMs: 120_000 });
          if (r.exitCode !== 0) throw new Error(`sandbox run failed: ${r.stderr}`);
        });
        figures.runMs.push(runMs);
        const [repro, reproMs] = await time(() => makeWorkCopy(copy.dir));
        again.ms.push(reproMs);
        again.bytes.push(used(repro));
        const [, disposeMs] = await time(async () => {
          await repro.dispose();
          await copy.dispose();
        });
        again.disposeMs.push(disposeMs);
      }
    } finally {
      await base.dispose();
    }
    rows.push([
      tree.name,
      mode === "overlay" && !frozen ? "overlay (unavailable: plain)" : mode,
      `${(prepMs / 1000).toFixed(2)} s`,
      `${median(figures.copyMs).toFixed(1)} ms`,
      mib(median(figures.copyBytes)),
      `${median(figures.runMs).toFixed(1)} ms`,
      `${median(again.ms).toFixed(1)} ms`,
      mib(median(again.bytes)),
      `${median(again.disposeMs).toFixed(1)} ms`,
    ]);
  }
}
for (const g of generated) rmSync(g, { recursive: true, force: true });

const header = [
  "tree",
  "candidate trees",
  "prepared tree (once per job)",
  "copy (median)",
  "copy bytes",
  "write + sandbox `true`",
  "reproducer copy of it",
  "its bytes",
  "dispose both",
];
console.log(`| ${header.join(" | ")} |`);
console.log(`|${header.map(() => "---").join("|")}|`);
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
console.log(
  `\n${runs} candidate(s) per cell; overlays ${overlayCopiesAvailable() ? "available" : "unavailable"}; node ${process.version}`,
);
