/**
 * Real test suites under the validate stage: packages from the npm registry that ship their tests (mocha
 * 2, 3 and current, jest, vitest), each run as its own `scripts.test` spells it, and Python packages from
 * Debian (a package that ships its tests; the standard library's own tests) under Debian's pytest 7 and
 * unittest. Each project gets one honest one-line bug planted in its shipped source (see
 * bench/support/runners-real-projects.ts); the candidate patch puts the shipped line back, and the
 * validate stage runs the project's tests before and after it in the real sandbox, as the pipeline does.
 *
 * Printed per project: the command that ran, how many tests each run named (the unpatched tree with the
 * bug, the patched tree), the verdict the evidence gives (fixed: the tests named a test that failed with
 * the bug and passes with the fix; patched: the tests pass but none shows the fix; could not run: why),
 * the tamper checks' state and the wall time.
 *
 *   npm run bench:runners-real [-- --only node-cron] [-- --record <folder for each validation's JSON>]
 *
 * Downloads (npm pack, npm install of the development dependencies, apt-get download) are kept under
 * .cache/runners-real/ in the checkout (git-ignored): a rerun starts from them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadRepoConfig } from "../src/config/index.ts";
import { createSandbox } from "../src/sandbox/index.ts";
import {
  candidateRun,
  showsFix,
  TreeStates,
  toValidationOutcome,
  type ValidationResult,
} from "../src/validate/index.ts";
import { PROJECTS, plantBug, type RealProject } from "./support/runners-real-projects.ts";

const { values } = parseArgs({ options: { only: { type: "string" }, record: { type: "string" } } });
const CACHE = join(import.meta.dirname, "..", ".cache", "runners-real");
mkdirSync(CACHE, { recursive: true });

const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * The verdict the tests give, by the evidence rule's test part: fixed when they ran and were counted on
 * both trees with no regression, a test that failed with the bug passes with the fix, and no test related
 * to the change still fails.
 */
function verdict(v: ValidationResult): string {
  // Counted on both trees with no regression: the only "pass" (as the pipeline's candidates carry it).
  const counted = toValidationOutcome(v).passed;
  const still = v.stillFailing?.length
    ? `; ${v.stillFailing.length} unrelated still failing: ${listed(v.stillFailing)}`
    : "";
  if (counted && showsFix(v) && !v.stillFailingRelated?.length)
    return `fixed (${v.fixed.length}: ${listed(v.fixed)}${still})`;
  if (counted) return `patched: the tests do not show the fix (${v.status}; ${v.summary})`;
  const notRun = v.tests?.notRun ? ` (not run: ${v.tests.notRun})` : "";
  if (v.status === "could-not-run") return `could not run: ${v.summary}${notRun}`;
  return `${v.status}: ${v.summary}${notRun}`;
}

const listed = (ids: readonly string[], n = 3): string =>
  `${ids.slice(0, n).join(", ")}${ids.length > n ? ` and ${ids.length - n} more` : ""}`;

interface Row {
  name: string;
  command: string;
  before: string;
  after: string;
  verdict: string;
  integrity: string;
  seconds: string;
}

async function benchOne(sandbox: Awaited<ReturnType<typeof createSandbox>>, p: RealProject): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), "af-runners-real-"));
  const started = performance.now();
  let states: TreeStates | null = null;
  try {
    p.make(CACHE, dir);
    mkdirSync(join(dir, ".github"), { recursive: true });
    // The development dependencies are installed already (as the setup step would have): no setup runs.
    writeFileSync(
      join(dir, ".github", "auto-fix.yml"),
      `${p.config ?? ""}setup: []\ntimeouts:\n  test: 900\n`,
    );
    const fix = plantBug(dir, p);
    const config = loadRepoConfig(dir);
    states = await TreeStates.prepare({ sandbox, config, source: dir });
    const c = await candidateRun({ sandbox, config, states, cache: new Map() }, fix);
    if (!c) throw new Error("nothing to validate with (no test command)");
    const v = c.result;
    if (values.record) {
      mkdirSync(values.record, { recursive: true });
      const file = join(values.record, `${p.name.replace(/[^\w.@-]+/g, "_")}.json`);
      writeFileSync(
        file,
        JSON.stringify({ validation: v, lastRun: { ...c.run, tests: [...(c.run?.tests ?? [])] } }, null, 1),
      );
    }
    const whole = states.tests.fullResult;
    const named = (n: number | undefined): string => (n === undefined ? "—" : String(n));
    return {
      name: p.name,
      command: c.run?.command ?? v.command ?? "(none)",
      // Tests named by the unpatched whole suite's run (the bug in place) and by the run after the fix.
      before: `${named(whole?.tests?.size)} whole suite, ${named(v.counted?.before)} counted`,
      after: `${named(c.run?.tests?.size)} last run, ${named(v.counted?.after)} counted`,
      verdict: verdict(v),
      integrity: v.integrity ? `${v.integrity.state}: ${v.integrity.detail}` : "—",
      seconds: s(performance.now() - started),
    };
  } catch (err) {
    return {
      name: p.name,
      command: "—",
      before: "—",
      after: "—",
      verdict: `bench error: ${(err as Error).message.split("\n").slice(0, 3).join(" ")}`,
      integrity: "—",
      seconds: s(performance.now() - started),
    };
  } finally {
    await states?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

const sandbox = await createSandbox("bwrap");
const chosen = PROJECTS.filter((p) => !values.only || p.name.includes(values.only));
console.log(`bench:runners-real: ${chosen.length} projects, downloads cached in ${CACHE}\n`);
const rows: Row[] = [];
for (const p of chosen) {
  const row = await benchOne(sandbox, p);
  rows.push(row);
  console.log(`${p.name} — ${p.about}`);
  console.log(`  command:   ${row.command}`);
  console.log(`  tests named: with the bug ${row.before}; with the fix ${row.after}`);
  console.log(`  verdict:   ${row.verdict}`);
  console.log(`  canaries:  ${row.integrity}`);
  console.log(`  time:      ${row.seconds}\n`);
}
const fixed = rows.filter((r) => r.verdict.startsWith("fixed")).length;
console.log(`${fixed} of ${rows.length} honest one-line fixes marked fixed.`);
