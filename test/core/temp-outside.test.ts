import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { UserError } from "../../src/core/errors.ts";
import { tempParentOutside } from "../../src/core/temp-outside.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { makeWorkCopy } from "../../src/sandbox/work-copy.ts";

test("a tree that contains the temporary folder is refused with a message, not copied into itself", async () => {
  const outer = mkdtempSync(join(tmpdir(), "af-outer-"));
  const inner = join(outer, "tmp");
  try {
    await import("node:fs/promises").then((fs) => fs.mkdir(inner));
    await assert.rejects(tempParentOutside(outer, inner), (err: unknown) => {
      assert.ok(err instanceof UserError);
      assert.match((err as Error).message, /contains the temporary folder .*TMPDIR/);
      return true;
    });
    await assert.rejects(tempParentOutside(outer, outer), UserError);
    const sibling = mkdtempSync(join(tmpdir(), "af-sibling-"));
    assert.equal(await tempParentOutside(sibling, inner), inner);
    rmSync(sibling, { recursive: true });
    await assert.rejects(makeWorkCopy(outer, inner), UserError);
    await assert.rejects(createWorkspace(tmpdir()), UserError);
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
});
