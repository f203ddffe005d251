/**
 * `npm run bench:apply`: builds a seeded corpus of model answers from real code (Python standard
 * library, node_modules, the JDK's sources, Go files on the machine), each with a known failure mode and
 * a known correct outcome, runs the patch engine on them and prints how often it applied correctly,
 * refused, or applied wrongly, per failure mode, and its speed.
 *
 * Options: --seed N (default 1), --per-mode N (default 22 for applicable modes, 14 for refusals),
 * --exact N (exact answers per language, default 60), --verbose (print every sample that was not
 * handled correctly).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { computePatch, createMemoryRepo, type PatchResult } from "../src/patch/index.ts";
import { rng, type Sample } from "./apply-corpus.ts";
import { APPLY_MODES, type Mode, prepare } from "./apply-modes.ts";
import { expectedOf, type Intent, SLOPPINESS, SLOPPY_REFUSALS, type Sloppiness } from "./apply-sloppiness.ts";
import { exactCases, twoEditCases } from "./apply-exact.ts";
import { largeAnswers } from "./apply-large.ts";
import { REFUSE_MODES } from "./apply-refusals.ts";
import { loadSources, type Source } from "./apply-sources.ts";

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "1" },
    "per-mode": { type: "string" },
    verbose: { type: "boolean", default: false },
    intents: { type: "string" },
    exact: { type: "string" },
  },
});
const seed = Number(values.seed);
const perApply = Number(values["per-mode"] ?? 22);
const perIntent = Number(values.intents ?? 30);
/** Answer shapes taken from the mode list (the single-edit modes are covered by the sloppiness kinds). */
const SHAPES = [
  "two edits in one file",
  "two edits sharing a context line",
  "edits in two files",
  "placeholder eliding part of the original",
];
const perRefuse = Number(values["per-mode"] ?? 14);
/** Exact answers per language, at the places where indentation is hardest to read. */
const perExact = Number(values.exact ?? 60);
const EXACT = "exact answers at hard places";

const scratch = mkdtempSync(join(tmpdir(), "apply-bench-"));
try {
  const t0 = performance.now();
  const sources = await loadSources(resolve(import.meta.dirname, ".."), scratch);
  const byLang = new Map<string, Source[]>();
  for (const s of sources) byLang.set(s.lang, [...(byLang.get(s.lang) ?? []), s]);
  const langs = [...byLang.keys()];
  const r = rng(seed);
  const samples: Sample[] = [];
  // 1. Intents: a known change to a window of a real file; each is rendered in every kind of sloppiness.
  let intents = 0;
  for (const lang of langs) {
    const pool = byLang.get(lang)!;
    let made = 0;
    for (let attempt = 0; made < perIntent && attempt < perIntent * 12; attempt++) {
      const src = pool[Math.floor(r() * pool.length)]!;
      const p = await prepare(r, src, { size: [3, 10] });
      if (!p) continue;
      made++;
      intents++;
      const it: Intent = {
        lang: src.lang,
        path: p.path,
        lines: p.lines,
        change: p.change,
        orig: p.orig,
        patched: p.patched,
      };
      const render = (kinds: Record<string, Sloppiness>, shouldApply: boolean) => {
        for (const [name, kind] of Object.entries(kinds)) {
          const out = kind(r, it);
          if (!out) continue;
          samples.push({
            id: samples.length,
            mode: name,
            lang: src.lang,
            shouldApply,
            files: { "README.md": "# sample project\n", [p.path]: out.file ?? p.lines.join("\n") },
            answer: out.answer,
            expected: shouldApply ? { [p.path]: out.expected ?? expectedOf(it) } : {},
          });
        }
      };
      render(SLOPPINESS, true);
      render(SLOPPY_REFUSALS, false);
    }
  }
  // 2. Answer shapes with several edits or elided code, and answers that must be refused.
  const build = async (name: string, mode: Mode, count: number) => {
    let made = 0;
    for (let attempt = 0; made < count && attempt < count * 12; attempt++) {
      const lang = langs[(made + attempt) % langs.length]!;
      const pool = byLang.get(lang)!;
      const src = pool[Math.floor(r() * pool.length)]!;
      const d = await mode(r, src, pool);
      if (!d) continue;
      samples.push({ ...d, id: samples.length, mode: name, lang: src.lang });
      made++;
    }
  };
  for (const name of SHAPES) await build(name, APPLY_MODES[name]!, perApply);
  for (const [name, mode] of Object.entries(REFUSE_MODES)) await build(name, mode, perRefuse);
  // 3. Exact answers: <original> copied byte for byte, regions drawn at the hard places (own random
  // stream, so the rows above stay as they were).
  const re = rng(seed + 1000);
  for (const lang of langs) {
    const pool = byLang.get(lang)!;
    let made = 0;
    for (let attempt = 0; made < perExact && attempt < perExact * 4; attempt++) {
      const src = pool[Math.floor(re() * pool.length)]!;
      const path = `pkg/${src.lang}/${src.name}`;
      const lines = src.text.split("\n");
      const single = await exactCases(re, src.lang, path, lines, 4);
      for (const c of [...single, ...twoEditCases(lines, single, 1)]) {
        if (made >= perExact) break;
        samples.push({
          id: samples.length,
          mode: EXACT,
          lang: src.lang,
          shouldApply: true,
          files: { "README.md": "# sample project\n", [path]: src.text },
          answer: c.answer,
          expected: { [path]: c.expected },
        });
        made++;
      }
    }
  }
  const tBuild = performance.now() - t0;

  interface Tally {
    n: number;
    correct: number;
    refused: number;
    wrong: number;
  }
  const tally = new Map<string, Tally>();
  const total = {
    apply: { n: 0, correct: 0, refused: 0, wrong: 0 },
    refuse: { n: 0, correct: 0, refused: 0, wrong: 0 },
  };
  const problems: string[] = [];
  const t1 = performance.now();
  for (const s of samples) {
    const result: PatchResult = await computePatch(createMemoryRepo(s.files, "/repo"), s.answer, {
      protectedGlobs: s.protect ?? [],
    });
    const t = tally.get(s.mode) ?? { n: 0, correct: 0, refused: 0, wrong: 0 };
    tally.set(s.mode, t);
    const tot = s.shouldApply ? total.apply : total.refuse;
    t.n++;
    tot.n++;
    const applied = result.status === "APPLICABLE_PATCH";
    if (s.shouldApply) {
      const exp = Object.entries(s.expected);
      const ok =
        applied &&
        result.changedFiles.length === exp.length &&
        exp.every(([p, text]) => result.changedFiles.find((c) => c.path === p)?.after === text);
      if (ok) {
        t.correct++;
        tot.correct++;
      } else if (applied) {
        t.wrong++;
        tot.wrong++;
        problems.push(`WRONG #${s.id} [${s.mode}/${s.lang}]\n${s.answer}\n--- diff ---\n${result.diff}`);
      } else {
        t.refused++;
        tot.refused++;
        problems.push(
          `REFUSED #${s.id} [${s.mode}/${s.lang}] ${result.status}: ${result.feedback}\n${s.answer}`,
        );
      }
    } else if (applied) {
      t.wrong++;
      tot.wrong++;
      problems.push(
        `WRONG (should refuse) #${s.id} [${s.mode}/${s.lang}]\n${s.answer}\n--- diff ---\n${result.diff}`,
      );
    } else if (result.feedback.trim() !== "" && result.edits.every((e) => e.message.trim() !== "")) {
      t.refused++;
      t.correct++;
      tot.refused++;
      tot.correct++;
    } else {
      t.refused++;
      tot.refused++;
      problems.push(`REFUSED WITHOUT REASON #${s.id} [${s.mode}]`);
    }
  }
  const tRun = performance.now() - t1;

  const pct = (a: number, b: number) => (b === 0 ? "-" : `${((100 * a) / b).toFixed(1)}%`);
  const langCount = [...byLang].map(([l, s]) => `${l} ${s.length}`).join(", ");
  const out: string[] = [];
  out.push(
    `apply benchmark — seed ${seed}, ${samples.length} answers from ${sources.length} real files (${langCount})`,
  );
  out.push("");
  out.push(
    `Should apply (intent unambiguous; ${intents} intents, each rendered in every sloppiness kind that fits it, and answer shapes):`,
  );
  out.push("| sloppiness kind | answers | applied correctly | refused | applied wrongly |");
  out.push("|---|---:|---:|---:|---:|");
  for (const name of [...Object.keys(SLOPPINESS), ...SHAPES, EXACT]) {
    const t = tally.get(name);
    if (t) out.push(`| ${name} | ${t.n} | ${pct(t.correct, t.n)} | ${pct(t.refused, t.n)} | ${t.wrong} |`);
  }
  const a = total.apply;
  out.push(`| **all** | ${a.n} | **${pct(a.correct, a.n)}** | ${pct(a.refused, a.n)} | **${a.wrong}** |`);
  out.push("");
  out.push("Should refuse:");
  out.push("| failure mode | answers | refused with a reason | applied wrongly |");
  out.push("|---|---:|---:|---:|");
  for (const name of [...Object.keys(SLOPPY_REFUSALS), ...Object.keys(REFUSE_MODES)]) {
    const t = tally.get(name);
    if (t) out.push(`| ${name} | ${t.n} | ${pct(t.correct, t.n)} | ${t.wrong} |`);
  }
  const f = total.refuse;
  out.push(`| **all** | ${f.n} | **${pct(f.correct, f.n)}** | **${f.wrong}** |`);
  out.push("");
  out.push(
    `applied wrongly, all answers: ${a.wrong + f.wrong}; speed: ${(samples.length / (tRun / 1000)).toFixed(0)} answers/s (${tRun.toFixed(0)} ms for ${samples.length}; corpus built in ${(tBuild / 1000).toFixed(1)} s)`,
  );
  const pySrc = byLang.get("python")?.[0] ?? sources[0]!;
  const large = await largeAnswers(pySrc, `pkg/${pySrc.lang}/${pySrc.name}`);
  out.push("");
  out.push(`Largest answers (against ${pySrc.origin}, ${pySrc.text.split("\n").length} lines):`);
  out.push("| answer | bytes | edits parsed | parse | whole engine | status |");
  out.push("|---|---:|---:|---:|---:|---|");
  for (const l of large) {
    out.push(
      `| ${l.name} | ${l.bytes} | ${l.edits} | ${l.parseMs.toFixed(0)} ms | ${l.computeMs.toFixed(0)} ms | ${l.status} |`,
    );
  }
  const slowest = Math.max(...large.map((l) => l.parseMs));
  out.push(`largest answer parsed in ${slowest.toFixed(0)} ms (target: under 1000 ms)`);
  process.stdout.write(`${out.join("\n")}\n`);
  if (values.verbose && problems.length > 0)
    process.stdout.write(`\n${problems.join("\n\n==========\n\n")}\n`);
  if (a.wrong + f.wrong > 0 || slowest >= 1000) process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
