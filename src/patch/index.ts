/**
 * The patch engine: turns a model answer in <file>/<original>/<patched> form into a checked change.
 * `computePatch` is pure (reads through a RepoFiles port); `writePatch` writes the result to a copy.
 */
import { computePatch as computeEdits } from "./compute.ts";
import { refuseTestConfigChanges } from "./safety.ts";

/**
 * A model answer → a checked change: the edits computed against the repository, then refused as a whole
 * when they change how tests are found or run (test configuration is part of the tests).
 */
export async function computePatch(
  ...args: Parameters<typeof computeEdits>
): ReturnType<typeof computeEdits> {
  return refuseTestConfigChanges(await computeEdits(...args));
}
export { PATCH_FORMAT_HELP } from "./format-help.ts";
export { createDiskRepo, createMemoryRepo } from "./repo.ts";
export {
  type ChangedFile,
  compareStatus,
  type EditReport,
  isPatchStatus,
  PATCH_STATUS_ORDER,
  type PatchOptions,
  type PatchResult,
  type PatchStatus,
  type RepoFiles,
  type RepoRead,
} from "./types.ts";
export { writePatch } from "./write.ts";
