/**
 * A process that indexes trees with the shared cache, as a job would: `node index-child.ts <cacheDir>
 * <out.json> <tree>...`; each tree's files and symbols go to out.json. The cap comes from the
 * environment (AUTO_FIX_INDEX_CACHE_MB).
 */
import { writeFileSync } from "node:fs";
import { buildIndex } from "../../../src/index/index.ts";
import { indexShape } from "./index-shape.ts";

const [cacheDir, out, ...trees] = process.argv.slice(2);
const results: { tree: string; shape: string; notes: string[] }[] = [];
for (const tree of trees) {
  const index = await buildIndex(tree!, { cacheDir: cacheDir!, workers: Number(process.env.WORKERS ?? "0") });
  results.push({ tree, shape: indexShape(index), notes: [...index.notes] });
}
writeFileSync(out!, JSON.stringify(results));
