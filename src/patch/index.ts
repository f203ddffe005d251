/**
 * The patch engine: turns a model answer in <file>/<original>/<patched> form into a checked change.
 * `computePatch` is pure (reads through a RepoFiles port); `writePatch` writes the result to a copy.
 */
export { computePatch } from "./compute.ts";
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
