import assert from "node:assert/strict";
import { test } from "node:test";
import { languageOf } from "../../src/languages/index.ts";
import { RUNNERS } from "../../src/runners/index.ts";
import { isMutationTarget, isTestLibraryPath, kindOfPath } from "../../src/scan/rules.ts";
import { scanSource } from "../../src/scan/scan-source.ts";

// The scan watches what each runner's folder says its tests use: a module to import only in tests,
// objects no file may assign to, calls that change the assertions.

test("every runner's libraries and objects are watched by the scan, in each of its languages", () => {
  for (const r of RUNNERS) {
    assert.ok(r.languages.length > 0, r.name);
    // Every source language a runner names that the scan parses (a language it has no rules for, C++,
    // leaves its files unscanned, said as such).
    for (const l of r.languages.filter((x) => languageOf(x).scanFamily !== null)) {
      for (const lib of r.watched.libraries) {
        assert.equal(kindOfPath(l, lib), "test-library", `${r.name}: ${lib} in ${l}`);
        assert.equal(kindOfPath(l, `${lib}.anything`), "test-library", `${r.name}: ${lib}.anything`);
      }
      for (const o of r.watched.objects) {
        assert.ok(isMutationTarget(l, `${o}.x`), `${r.name}: assigning to ${o}.x in ${l}`);
        assert.ok(isTestLibraryPath(o), `${r.name}: ${o}`);
      }
    }
  }
  // And no more: another family's runner objects are not this one's.
  assert.equal(kindOfPath("python", "jest"), null);
  assert.equal(kindOfPath("go", "pytest"), null);
});

test("a runner's assertion extension is a finding in any file, tests included", async () => {
  const calls = RUNNERS.flatMap((r) => r.watched.extensions);
  assert.ok(calls.length > 0);
  for (const call of calls) {
    const [obj] = call.split(".");
    const source = `import ${obj} from "${obj}";\n${call}({});\n`;
    const { findings: found } = await scanSource("typescript", "test/a.test.ts", source);
    assert.ok(
      found.some((f) => f.kind === "test-library" && f.what === call),
      `${call}: ${JSON.stringify(found)}`,
    );
  }
});
