/**
 * `npm run bench:apply-real`: real code changes between two released versions (bench/apply-real-sources.ts)
 * cut into one answer per hunk (bench/apply-real-hunks.ts), written exactly as the file has it and with
 * every line shifted by ±1 and ±2 indentation levels. Every answer is correct, so each must land on the
 * new version's text of its region: any refusal is a false refusal, any other text a wrong application.
 *
 * Options: --max N (hunks per language, default 150, taken evenly), --commits N (commits of this
 * repository's history for TypeScript, default 40), --history PATH (the git repository whose history
 * gives the TypeScript changes, default this one), --cache PATH (default tmp/apply-real), --verbose (every answer not landed, with the
 * engine's message), --write-fixture PATH (a small sample of the hunks, for test/patch/real-hunks.test.ts).
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { computePatch, createMemoryRepo } from "../src/patch/index.ts";
import { treeSitterChecker } from "../src/patch/syntax.ts";
import { applyHunk, diffHunks, type Hunk, type RealFile, uniqueHunk, variants } from "./apply-real-hunks.ts";
import { loadPairs } from "./apply-real-sources.ts";

const { values } = parseArgs({
  options: {
    max: { type: "string", default: "150" },
    commits: { type: "string", default: "40" },
    history: { type: "string" },
    cache: { type: "string" },
    verbose: { type: "boolean", default: false },
    "write-fixture": { type: "string" },
  },
});
const ROOT = resolve(import.meta.dirname, "..");
const CACHE = values.cache ?? join(ROOT, "tmp", "apply-real");
const max = Number(values.max);

interface Tally {
  hunks: number;
  notUnique: number;
  notParsing: number;
  tagged: number;
  exact: { landed: number; refused: number; wrong: number };
  shifted: { answers: number; landed: number; refused: number; wrong: number };
  sources: Set<string>;
}

const t0 = performance.now();
const pairs = loadPairs(values.history ?? ROOT, CACHE, Number(values.commits));
const tallies = new Map<string, Tally>();
const tally = (lang: string): Tally => {
  let t = tallies.get(lang);
  if (!t) {
    t = {
      hunks: 0,
      notUnique: 0,
      notParsing: 0,
      tagged: 0,
      exact: { landed: 0, refused: 0, wrong: 0 },
      shifted: { answers: 0, landed: 0, refused: 0, wrong: 0 },
      sources: new Set(),
    };
    tallies.set(lang, t);
  }
  return t;
};

// Every usable hunk, per language: its old lines occur once in the file (with added context), and the
// file with that hunk alone applied parses as well as the old file (a hunk that needs another hunk of
// the same change to parse is not an answer on its own).
const pool = new Map<string, { file: RealFile; hunk: Hunk }[]>();
for (const pair of pairs) {
  const t = tally(pair.lang);
  t.sources.add(pair.source);
  const lines = pair.old.split("\n");
  const base = (await treeSitterChecker.problems(pair.path, pair.old)).length;
  const file: RealFile = { lang: pair.lang, source: pair.source, path: pair.path, old: pair.old, hunks: [] };
  for (const raw of diffHunks(pair.old, pair.new)) {
    // A hunk whose lines hold the answer format's own tags (the patch engine's messages) cannot be
    // written as an answer.
    if ([...raw.old, ...raw.new].some((l) => /<\/?(file|original|patched)\b/.test(l))) {
      t.tagged++;
      continue;
    }
    const h = uniqueHunk(lines, raw);
    if (!h) {
      t.notUnique++;
      continue;
    }
    if ((await treeSitterChecker.problems(pair.path, applyHunk(pair.old, h))).length > base) {
      t.notParsing++;
      continue;
    }
    file.hunks.push(h);
    pool.set(pair.lang, [...(pool.get(pair.lang) ?? []), { file, hunk: h }]);
  }
}

const failures: string[] = [];
for (const [lang, all] of pool) {
  const t = tally(lang);
  const take = Math.min(max, all.length);
  for (let j = 0; j < take; j++) {
    const { file, hunk } = all[Math.floor((j * all.length) / take)]!;
    t.hunks++;
    const expected = applyHunk(file.old, hunk);
    for (const v of variants(file, hunk)) {
      const r = await computePatch(createMemoryRepo({ [file.path]: file.old }), v.answer, {
        protectedGlobs: [],
      });
      const changed = r.changedFiles.find((c) => c.path === file.path);
      const outcome =
        r.status !== "APPLICABLE_PATCH" || !changed
          ? "refused"
          : changed.after === expected
            ? "landed"
            : "wrong";
      const row = v.shift === 0 ? t.exact : t.shifted;
      if (v.shift !== 0) t.shifted.answers++;
      row[outcome]++;
      if (outcome !== "landed") {
        failures.push(
          `--- ${lang} ${file.path} (${file.source}) line ${hunk.start + 1}, shift ${v.shift}: ${outcome} ${r.status}\n${v.answer}\n${r.feedback ?? ""}`,
        );
      }
    }
  }
}

const pct = (n: number, d: number) => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`);
console.log(`apply benchmark on real changes — ${pairs.length} changed files\n`);
console.log(
  "| language | hunks | landed exact | landed shifted (±1–2 levels) | refused | wrong | false refusals |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|");
const sum = { hunks: 0, answers: 0, le: 0, ls: 0, ref: 0, wrong: 0 };
for (const [lang, t] of [...tallies].sort()) {
  const answers = t.hunks + t.shifted.answers;
  const refused = t.exact.refused + t.shifted.refused;
  const wrong = t.exact.wrong + t.shifted.wrong;
  console.log(
    `| ${lang} | ${t.hunks} | ${t.exact.landed}/${t.hunks} | ${t.shifted.landed}/${t.shifted.answers} | ${refused} | ${wrong} | ${pct(refused, answers)} |`,
  );
  sum.hunks += t.hunks;
  sum.answers += answers;
  sum.le += t.exact.landed;
  sum.ls += t.shifted.landed;
  sum.ref += refused;
  sum.wrong += wrong;
}
console.log(
  `| **all** | ${sum.hunks} | ${sum.le} | ${sum.ls} | ${sum.ref} | **${sum.wrong}** | ${pct(sum.ref, sum.answers)} |`,
);
console.log(
  "\nSources and hunks left out (old lines not unique within 8 more lines of context; the hunk alone does not parse; lines holding <file>/<original>/<patched> tags):",
);
for (const [lang, t] of [...tallies].sort())
  console.log(
    `- ${lang}: ${[...t.sources].slice(0, 3).join("; ")}${t.sources.size > 3 ? `; ... (${t.sources.size} sources)` : ""} — not unique ${t.notUnique}, not parsing alone ${t.notParsing}, holding the answer's tags ${t.tagged}`,
  );
console.log(`\n${sum.answers} answers in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
if (values.verbose) for (const f of failures) console.log(f);

if (values["write-fixture"]) {
  // A small sample for the committed test: per language, hunks of short files, at most 12.
  const sample: RealFile[] = [];
  for (const [, all] of [...pool].sort()) {
    const byFile = new Map<RealFile, Hunk[]>();
    for (const { file, hunk } of all) {
      if (file.old.split("\n").length > 260) continue;
      byFile.set(file, [...(byFile.get(file) ?? []), hunk]);
    }
    let n = 0;
    for (const [file, hunks] of byFile) {
      if (n >= 12) break;
      const take = hunks.slice(0, Math.min(4, 12 - n));
      sample.push({ ...file, hunks: take });
      n += take.length;
    }
  }
  writeFileSync(values["write-fixture"], `${JSON.stringify(sample, null, 1)}\n`);
  console.log(`wrote ${sample.reduce((s, f) => s + f.hunks.length, 0)} hunks to ${values["write-fixture"]}`);
}
