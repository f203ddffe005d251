import type { TestRunnerKind } from "../../config/index.ts";
import type { SelectReason, TestSuiteMap, TreeListing } from "./types.ts";

/**
 * A crate's test targets: its integration test files (`tests/x.rs`), each one test binary. Every one
 * links the crate's library, so a change to any of its `.rs` files concerns them all.
 */
export function rustSuite(listing: TreeListing, runner: TestRunnerKind): TestSuiteMap {
  const targets = new Map<string, string[]>();
  for (const rel of listing.files) if (/^tests\/[^/]+\.rs$/.test(rel)) targets.set(rel, [rel]);
  return {
    runner,
    targets,
    related(changed) {
      const out = new Map<string, { reasons: SelectReason[]; detail: string }>();
      const rs = changed.find((f) => f.endsWith(".rs") && !targets.has(f));
      if (rs) for (const t of targets.keys()) out.set(t, { reasons: ["same-package"], detail: rs });
      return out;
    },
    // cargo's ids: `tests/x.rs::name` for an integration test binary.
    targetOfId(id) {
      const at = id.indexOf("::");
      const t = at < 0 ? "" : id.slice(0, at);
      return targets.has(t) ? t : null;
    },
    aliases: (target) => [target, target.replace(/^tests\/|\.rs$/g, "")],
  };
}
