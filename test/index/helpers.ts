import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";

const FIXTURES = new URL("../fixtures/repos/", import.meta.url).pathname;

export function fixturePath(lang: string): string {
  return join(FIXTURES, lang);
}

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary directory, removed after the test file. */
export function tempDir(prefix = "auto-fix-test-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** A private copy of a fixture repository (tests may add or edit files in it). */
export function copyFixture(lang: string): string {
  const dir = join(tempDir(), lang);
  cpSync(fixturePath(lang), dir, { recursive: true });
  return dir;
}
