/**
 * The patch scan for the run's candidates (src/scan): every applicable candidate gets `scan` before
 * selection, so the evidence rule (contract/fix-evidence.ts) keeps a patch with a finding from "fixed"
 * and the result, report.md and the pull request name the lines and why.
 */
import { openTree } from "../core/tree-fs.ts";
import type { FixState, PatchCandidate, PatchScanFacts } from "../contract/pipeline.ts";
import { describeFinding, isScannedPath, scanDiff, sharedLiterals } from "../scan/index.ts";

const MAX_EXPECTATION_BYTES = 1024 * 1024;

/** The scan's facts for one diff against the unpatched tree at `root`. */
export async function scanFacts(
  root: string,
  diff: string,
  expectations: readonly { path: string; text: string }[],
): Promise<PatchScanFacts> {
  try {
    const scan = await scanDiff(root, diff);
    return {
      findings: [
        ...scan.findings.map((f) => describeFinding(f)),
        ...scan.unscanned.map((u) => `the patch's code could not be scanned: ${u}`),
      ],
      shared: await sharedLiterals(scan, expectations),
      unscanned: scan.unscanned,
    };
  } catch (err) {
    const why = `the patch could not be scanned: ${(err as Error).message}`;
    return { findings: [why], shared: [], unscanned: [why] };
  }
}

/**
 * What the failing tests expect: the reproducer the run judged with, and the repository's test files
 * that validation names as failing before the patch (`tests/test_calc.py::test_add` names its file).
 */
function expectationsOf(root: string, state: FixState, c: PatchCandidate): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const script = c.review?.data?.reproducer?.script ?? state.reproduction?.data?.script ?? null;
  const file = state.reproduction?.data?.path;
  if (script && file) out.push({ path: file, text: script });
  const tree = openTree(root);
  const files = new Set<string>();
  for (const id of [...(c.validation?.data?.fixed ?? []), ...(c.validation?.data?.stillFailing ?? [])]) {
    const f = id.split("::")[0]!.trim();
    if (isScannedPath(f)) files.add(f);
  }
  for (const f of [...files].slice(0, 10)) {
    try {
      const text = tree.readIfExists(f, { maxBytes: MAX_EXPECTATION_BYTES })?.toString("utf8");
      if (text) out.push({ path: f, text });
    } catch {
      // A test file that cannot be read expects nothing that can be shown.
    }
  }
  return out;
}

/** Scans every applicable candidate that has no scan yet (the same diff is scanned once). */
export async function scanCandidates(root: string, state: FixState): Promise<void> {
  const byDiff = new Map<string, PatchScanFacts>();
  for (const c of state.candidates) {
    if (!c.applicable || c.scan) continue;
    const known = byDiff.get(c.result.diff);
    c.scan = known ?? (await scanFacts(root, c.result.diff, expectationsOf(root, state, c)));
    byDiff.set(c.result.diff, c.scan);
  }
}
