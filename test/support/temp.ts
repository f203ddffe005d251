import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];
let hooked = false;

/**
 * A fresh folder under the system temp dir, removed when the test file's process exits (each test file
 * runs in its own process), whether its tests passed, failed or threw before their own cleanup.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      for (const d of made) rmSync(d, { recursive: true, force: true, maxRetries: 2 });
    });
  }
  return dir;
}
