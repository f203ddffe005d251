/**
 * Real code changes as answers: a sample of hunks between released versions (test/fixtures/real-hunks.json,
 * written by `npm run bench:apply-real -- --write-fixture`): gyp's Python from npm node-gyp 9.4.1 and
 * 10.2.0, npm semver 7.3.8 and 7.6.3, the Java of npm @capacitor/android 5.0.0 and 6.0.0, golang.org/x
 * as Go 1.19 vendors it and as Debian packages it, and TypeScript from this project's history. Each hunk
 * is an answer copied exactly, and with every line shifted by ±1 and ±2 indentation levels; every one
 * must land on exactly the new version's text of its region.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { applyHunk, type RealFile, variants } from "../../bench/apply-real-hunks.ts";
import { computePatch, createMemoryRepo } from "../../src/patch/index.ts";

const FILES: RealFile[] = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "fixtures", "real-hunks.json"), "utf8"),
);

for (const lang of ["python", "javascript", "typescript", "java", "go"]) {
  test(`${lang}: real hunks land exactly and shifted uniformly`, async () => {
    const files = FILES.filter((f) => f.lang === lang);
    let answers = 0;
    let shifted = 0;
    const failures: string[] = [];
    for (const file of files) {
      for (const hunk of file.hunks) {
        const expected = applyHunk(file.old, hunk);
        for (const v of variants(file, hunk)) {
          answers++;
          if (v.shift !== 0) shifted++;
          const r = await computePatch(createMemoryRepo({ [file.path]: file.old }), v.answer, {
            protectedGlobs: [],
          });
          const got = r.changedFiles.find((c) => c.path === file.path)?.after;
          if (got !== expected)
            failures.push(
              `${file.path} (${file.source}) line ${hunk.start + 1}, shift ${v.shift}: ${r.status} ${r.feedback}`,
            );
        }
      }
    }
    // The sample holds hunks of this language, shifted answers among them.
    assert.ok(files.length > 0 && shifted > 0, `no ${lang} sample`);
    assert.deepEqual(failures, [], `${failures.length} of ${answers} answers did not land`);
  });
}
