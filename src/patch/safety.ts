/**
 * Which paths a patch may touch, and which changes: the rules live in core/path-rules.ts (shared with
 * the repository configuration) and core/test-config.ts, with each runner's test configuration joined in
 * by runners/shared/conventions-test-config.ts; this adds the check of what a computed patch does to files that mix
 * test configuration with other settings (pyproject.toml, setup.cfg, package.json, build files).
 */
import { testConfigChange } from "../runners/shared/conventions-test-config.ts";
import { summarise } from "./feedback.ts";
import type { EditReport, PatchResult } from "./types.ts";

export { checkEditablePath } from "../runners/shared/conventions-test-config.ts";
export {
  compileGlob,
  isCiPath,
  isProtectedPath,
  matchGlob,
  type PathVerdict,
} from "../core/path-rules.ts";

/**
 * An applicable patch that changes how tests are found or run becomes RAW_PATCH_BUT_UNSAFE_PATH, with
 * the file and the reason on the edits that touched it; any other result is returned as it is.
 */
export function refuseTestConfigChanges(result: PatchResult): PatchResult {
  if (result.status !== "APPLICABLE_PATCH") return result;
  const refused = new Map<string, string>();
  for (const f of result.changedFiles) {
    const message = testConfigChange(f.path, f.created ? null : f.before, f.after);
    if (message) refused.set(f.path, message);
  }
  if (refused.size === 0) return result;
  const seen = new Set<string>();
  const edits: EditReport[] = result.edits.map((e) => {
    const path = [...refused.keys()].find((p) => e.file === p || e.file.replace(/^\.\//, "") === p);
    if (!path) {
      return {
        ...e,
        message: `${e.message} Not applied, because another edit changes test configuration: all edits apply together or not at all.`,
      };
    }
    seen.add(path);
    return { file: e.file, status: "RAW_PATCH_BUT_UNSAFE_PATH", message: refused.get(path)! };
  });
  // A file the model named differently than its path still gets its own report.
  for (const [path, message] of refused) {
    if (!seen.has(path)) edits.push({ file: path, status: "RAW_PATCH_BUT_UNSAFE_PATH", message });
  }
  return summarise("RAW_PATCH_BUT_UNSAFE_PATH", edits, [], "");
}
