import type { EvidenceReport } from "../contract/result.ts";

/**
 * The patch scan's word on the chosen patch (src/scan), as lines for report.md and the pull request:
 * each finding with its file:line and why, then the literals it shares with what a test expects.
 * `inert` makes each piece safe for the place it is shown in (the findings quote the patch's code).
 */
export function scanLines(e: EvidenceReport, inert: (text: string) => string): string[] {
  const out: string[] = [];
  const found = e.patch_findings;
  if (found === undefined) return out;
  if (found.length === 0)
    out.push(
      "Patch scan: nothing found in the code the patch adds that reads the call stack, the environment or the test runner's state, changes a test library, runs code made from text or ends the process.",
    );
  else {
    out.push(
      `Patch scan: ${found.length} finding${found.length === 1 ? "" : "s"} in the code the patch adds (each keeps it from "fixed"):`,
      "",
    );
    for (const f of found.slice(0, 20)) out.push(`- ${inert(f)}`);
    if (found.length > 20) out.push(`- and ${found.length - 20} more`);
  }
  const shared = e.shared_literals ?? [];
  if (shared.length > 0) {
    out.push(
      "",
      "Values the patch adds that the reproducer or a failing test also holds (possible special-casing; shown to the reviewer):",
      "",
    );
    for (const l of shared.slice(0, 10)) out.push(`- ${inert(l)}`);
  }
  out.push("");
  return out;
}
