/**
 * Writes the units a cold index finds under a tree, one line per file (path, language, then every
 * symbol with all its fields), sorted by path, so two builds can be compared with `cmp`/`diff`:
 *
 *   node bench/support/index-units.ts <dir> <out file> [--workers N]
 *
 * Used to check that a change to the index's speed leaves what it finds unchanged (e.g. on
 * /usr/lib/python3.11: dump before and after, then `cmp`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildIndex } from "../../src/index/index.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { workers: { type: "string" } },
});
const [dir, out] = positionals;
if (!dir || !out) {
  console.error("usage: node bench/support/index-units.ts <dir> <out file> [--workers N]");
  process.exit(2);
}
const cacheDir = mkdtempSync(join(tmpdir(), "auto-fix-units-"));
try {
  const notes: string[] = [];
  const index = await buildIndex(dir, {
    cacheDir,
    onNote: (n) => notes.push(n),
    ...(values.workers !== undefined ? { workers: Number(values.workers) } : {}),
  });
  const files = [...index.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const lines = files.map((f) => JSON.stringify([f.path, f.language, f.isTest, f.symbols]));
  writeFileSync(out, `${[...lines, ...notes.sort().map((n) => JSON.stringify(["note", n]))].join("\n")}\n`);
  const n = files.reduce((a, f) => a + f.symbols.length, 0);
  console.log(`${files.length} files, ${n} units, ${notes.length} notes -> ${out}`);
} finally {
  rmSync(cacheDir, { recursive: true, force: true });
}
