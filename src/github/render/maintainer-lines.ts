import { inlineCode } from "../../core/inert-markdown.ts";
import { MAX_INSTRUCTIONS_BYTES } from "../../core/maintainer-input.ts";
import type { FixResult } from "../../contract/result.ts";

/**
 * What the run was told besides the issue, for the pull request body: the repository's instructions file
 * (which, how big, whether it was cut), the review's comments and the failing checks it read. Rendered
 * from the result's typed `maintainer` field; nothing when there was none.
 */
export function maintainerLines(result: FixResult): string[] {
  const m = result.maintainer;
  if (!m) return [];
  const out: string[] = [];
  const ins = m.instructions;
  if (ins) {
    const cut = ins.truncated ? `, cut to its first ${MAX_INSTRUCTIONS_BYTES / 1024} KiB` : "";
    out.push(
      `Repository instructions: ${inlineCode(ins.source, 200)}, ${ins.bytes} bytes${cut} (given to the model as the maintainer's conventions).`,
    );
  }
  const points = m.review?.points ?? 0;
  if (points > 0) out.push(`Review comments read: ${points} (each is answered in its thread).`);
  if (m.checks.length > 0) {
    out.push(`Failing checks read as evidence: ${m.checks.map((n) => inlineCode(n, 100)).join(", ")}.`);
  }
  return out.flatMap((l) => [l, ""]);
}
