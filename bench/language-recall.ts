/**
 * Definitions the index finds against those an independent reference finds on the same files:
 * `node bench/language-recall.ts <rust|cpp> <dir>`. The reference is Universal Ctags (`ctags`, Debian's
 * universal-ctags): Rust structs, enums, traits, unions, functions, methods and macros; C++ classes,
 * structs, unions, enums, function definitions and member-function declarations (prototypes in class
 * bodies). A tag is found when the index has a unit of that name in that file whose lines from its start
 * to its header's end hold the tag's line; a unit is confirmed when some tag of its name is within them.
 * Prints recall, precision and a few of each kind of miss.
 */
import { spawnSync } from "node:child_process";
import { buildIndex } from "../src/index/index.ts";

const [lang, dir] = process.argv.slice(2);
if ((lang !== "rust" && lang !== "cpp") || !dir) {
  console.error("usage: node bench/language-recall.ts <rust|cpp> <dir>");
  process.exit(2);
}
const KINDS = lang === "rust" ? "siPgfMu" : "csugfp";
const args =
  lang === "rust"
    ? ["--languages=Rust", `--kinds-Rust=${KINDS}`]
    : ["--languages=C++", "--langmap=C++:+.h", `--kinds-C++=${KINDS}`];
const run = spawnSync("ctags", ["-R", "-x", "--_xformat=%N\t%F\t%n\t%K", ...args, "."], {
  cwd: dir,
  encoding: "utf8",
  maxBuffer: 1 << 30,
});
if (run.status !== 0) throw new Error(`ctags failed: ${run.stderr}`);
const tags = run.stdout
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => {
    const [name, file, line] = l.split("\t");
    return {
      name: name!.replace(/^.*::/, "").replace(/\s+/g, ""),
      file: file!.replace(/^\.\//, ""),
      line: Number(line),
    };
  });
const index = await buildIndex(dir, { cacheDir: null, workers: 0 });
const units = new Map<string, { name: string; start: number; headerEnd: number }[]>();
for (const f of index.files) {
  if (f.language !== lang) continue;
  units.set(
    f.path,
    f.symbols.map((s) => ({ name: s.name.replace(/\s+/g, ""), start: s.start, headerEnd: s.headerEnd })),
  );
}
const tagsByFile = new Map<string, typeof tags>();
for (const t of tags) {
  if (!units.has(t.file)) continue;
  const list = tagsByFile.get(t.file) ?? [];
  list.push(t);
  tagsByFile.set(t.file, list);
}
const missed: string[] = [];
const extra: string[] = [];
let found = 0;
let total = 0;
let confirmed = 0;
let ours = 0;
for (const [file, list] of tagsByFile) {
  const mine = units.get(file)!;
  for (const t of list) {
    total++;
    if (mine.some((u) => u.name === t.name && u.start <= t.line && t.line <= u.headerEnd)) found++;
    else if (missed.length < 15) missed.push(`${file}:${t.line} ${t.name}`);
  }
}
for (const [file, mine] of units) {
  const list = tagsByFile.get(file) ?? [];
  for (const u of mine) {
    ours++;
    if (list.some((t) => t.name === u.name && u.start <= t.line && t.line <= u.headerEnd)) confirmed++;
    else if (extra.length < 15) extra.push(`${file}:${u.start} ${u.name}`);
  }
}
const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;
console.log(`files ${units.size}; reference tags ${total}; index units ${ours}`);
console.log(
  `recall ${pct(found, total)} (${found}/${total}); precision ${pct(confirmed, ours)} (${confirmed}/${ours})`,
);
console.log(`missed, e.g.:\n  ${missed.join("\n  ")}`);
console.log(`not in the reference, e.g.:\n  ${extra.join("\n  ")}`);
