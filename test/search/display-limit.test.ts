import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import { CODE_GROUPS_SHOWN } from "../../src/search/code-hits.ts";
import { COUNTED_FILES_LIMIT, DISPLAY_LIMIT } from "../../src/search/format.ts";
import { API_SPECS, SearchApis } from "../../src/search/search-api.ts";

// A repository where every query has many matches: `files` modules that each define a class `Item` with a
// method `save` calling `marker_call()`, and one module with 50 nested classes `Item` whose `handler`
// calls it too. The text the model sees must hold the display limit (3 matches in full, the rest
// counted) and must not grow with the number of matching files; the JSON results keep every match.
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function makeRepo(files: number): string {
  const dir = mkdtempSync(join(tmpdir(), "af-display-"));
  dirs.push(dir);
  mkdirSync(join(dir, "pkg"));
  for (let i = 0; i < files; i++) {
    writeFileSync(
      join(dir, "pkg", `mod_${i}.py`),
      `class Base${i}:\n    def save(self):\n        return 0\n\n\nclass Item(Base${i}):\n    kind = "x${i}"\n\n    def save(self):\n        marker_call()\n        return ${i}\n`,
    );
  }
  const nested = Array.from(
    { length: 50 },
    (_, i) =>
      `class Holder${i}:\n    class Item:\n        def handler(self):\n            marker_call()\n            return ${i}\n`,
  );
  writeFileSync(join(dir, "many.py"), nested.join("\n\n"));
  return dir;
}

const CALLS: [string, string[], number][] = [
  // [api, args, matches in a repository of N files (as a function of N below)]
  ["search_class", ["Item"], -1],
  ["search_class_in_file", ["Item", "many.py"], 50],
  ["search_method", ["save"], -2],
  ["search_method_in_class", ["save", "Item"], -3],
  ["search_method_in_file", ["handler", "many.py"], 50],
  ["search_code", ["marker_call()"], -1],
  ["search_code_in_file", ["marker_call()", "many.py"], 50],
  ["get_code_around_line", ["many.py", "100", "100000"], 1],
];
const expected = (n: number, files: number): number =>
  n === -1 ? files + 50 : n === -2 ? 2 * files : n === -3 ? files : n;

test("every search API holds the display limit, and its text does not grow with the number of matches", async () => {
  assert.deepEqual(
    CALLS.map((c) => c[0]),
    API_SPECS.map((s) => s.name),
    "one query per API",
  );
  const sizes = [40, 400];
  const texts = new Map<string, number[]>();
  for (const files of sizes) {
    const apis = new SearchApis(await buildIndex(makeRepo(files), { cacheDir: null, workers: 0 }));
    for (const [api, args, n] of CALLS) {
      const r = await apis.call(api, args);
      const label = `${api}(${args.join(", ")}) over ${files} files`;
      assert.equal(r.ok, true, `${label}: ${r.text}`);
      assert.equal(r.results.length, expected(n, files), `${label}: every match is in the results`);
      const blocks = r.text.match(/<code>/g) ?? [];
      // search_code shows up to CODE_GROUPS_SHOWN groups of hits (each hit once), the others three matches.
      const code = api.startsWith("search_code");
      const limit = code ? CODE_GROUPS_SHOWN : DISPLAY_LIMIT;
      assert.ok(blocks.length <= limit, `${label}: ${blocks.length} matches shown in full`);
      const shownHits = code
        ? [...r.text.matchAll(/\((?:lines \d+-\d+; )?(\d+) hits? on line/g)].reduce(
            (s, m) => s + Number(m[1]),
            0,
          )
        : blocks.length;
      if (r.results.length > shownHits) {
        assert.equal(blocks.length, limit, label);
        assert.match(r.text, new RegExp(`The other ${r.results.length - shownHits} matches, by file`), label);
        const counted = r.text.split("\n").filter((l) => /^- <file>.*<\/file> \(\d+ more match/.test(l));
        assert.ok(
          counted.length <= COUNTED_FILES_LIMIT,
          `${label}: ${counted.length} files counted one by one`,
        );
        // Every further match is accounted for, named or summed.
        const named = counted.reduce((s, l) => s + Number(/\((\d+) more/.exec(l)![1]), 0);
        const summed = Number(/… and (\d+) match/.exec(r.text)?.[1] ?? 0);
        assert.equal(named + summed, r.results.length - shownHits, label);
      } else {
        assert.doesNotMatch(r.text, /The other/);
      }
      if (api === "get_code_around_line") {
        assert.match(r.text, /window_size capped at 200/);
        assert.ok(r.text.split("\n").filter((l) => /^\s*\d+ \| /.test(l)).length <= 401, label);
      }
      texts.set(api, [...(texts.get(api) ?? []), r.text.length]);
    }
  }
  for (const [api, [small, large]] of texts) {
    // Ten times the matching files: the text only grows by the digits of larger counts and line numbers.
    assert.ok(large! <= small! + 200, `${api}: ${small} characters for 40 files, ${large} for 400`);
  }
});
