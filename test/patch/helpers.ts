import { computePatch, createMemoryRepo, type PatchResult } from "../../src/patch/index.ts";

export function edit(file: string, original: string, patched: string, attrs = ""): string {
  return `<file${attrs}>${file}</file>\n<original>\n${original}\n</original>\n<patched>\n${patched}\n</patched>\n`;
}

export async function apply(
  files: Record<string, string | Uint8Array>,
  answer: string,
  protectedGlobs: string[] = [],
): Promise<PatchResult> {
  return computePatch(createMemoryRepo(files), answer, { protectedGlobs });
}

/** The text of `path` after the patch (throws when the patch did not change it). */
export function after(result: PatchResult, path: string): string {
  const f = result.changedFiles.find((c) => c.path === path);
  if (!f) throw new Error(`${path} not changed; status ${result.status}: ${result.feedback}`);
  return f.after;
}
