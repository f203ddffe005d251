/**
 * Locations the size of the change, on real code: a new method in a long class shows the class's
 * outline and the members around where it goes, a module-level edit in a long file the statements
 * pointed at with their neighbours and the file's outline, a method its own lines with its class in
 * outline. What is shown is verbatim file text at the right line numbers, and an edit outside it still
 * applies.
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { patchMessages } from "../../src/agents/patch-agent.ts";
import { runSearch } from "../../src/agents/search-agent.ts";
import { buildIndex } from "../../src/index/index.ts";
import { formatLocationsForModel } from "../../src/locate/format.ts";
import { type LocationRequest, type ResolvedLocation, resolveBugLocations } from "../../src/locate/locate.ts";
import { computePatch, createDiskRepo, PATCH_FORMAT_HELP } from "../../src/patch/index.ts";
import { createSearchPort } from "../../src/pipeline/search-port.ts";
import { fixturePath, tempDir } from "../index/helpers.ts";

const STDLIB = "/usr/lib/python3.11";
const FILES = ["argparse.py", "tarfile.py", "configparser.py"];
const skip = FILES.every((f) => existsSync(join(STDLIB, f))) ? false : `needs ${STDLIB}`;

let repoDir: string | null = null;
function stdlibRepo(): string {
  if (repoDir) return repoDir;
  const dir = join(tempDir(), "repo");
  mkdirSync(join(dir, "lib"), { recursive: true });
  for (const f of FILES) copyFileSync(join(STDLIB, f), join(dir, "lib", f));
  repoDir = dir;
  return dir;
}
const stdlibIndex = () => buildIndex(stdlibRepo(), { cacheDir: null, workers: 0 });

function fileLines(path: string): string[] {
  return readFileSync(join(stdlibRepo(), path), "utf8").split("\n");
}

/** Line number of the first line that starts with `prefix` (after `from`). */
function lineOf(lines: readonly string[], prefix: string, from = 1): number {
  for (let n = from; n <= lines.length; n++) if (lines[n - 1]!.startsWith(prefix)) return n;
  throw new Error(`no line starts with ${prefix}`);
}

const shownLines = (l: { slices: readonly { start: number; end: number }[] }) =>
  l.slices.reduce((n, s) => n + s.end - s.start + 1, 0);

/** Every slice is the file's own text at its line numbers; slices are ordered and apart. */
function assertVerbatim(loc: ResolvedLocation): void {
  const lines = fileLines(loc.file);
  let prev = 0;
  for (const s of [
    ...loc.slices,
    ...loc.context.filter((c) => c.file === loc.file).flatMap((c) => c.slices),
  ]) {
    assert.equal(s.code, lines.slice(s.start - 1, s.end).join("\n"), `lines ${s.start}-${s.end}`);
  }
  for (const s of loc.slices) {
    assert.ok(s.start > prev && s.end >= s.start && s.start >= loc.start && s.end <= loc.end);
    prev = s.end;
  }
}

test("a new method in a 900-line class: the outline and the members around where it goes", {
  skip,
}, async () => {
  const index = await stdlibIndex();
  const lines = fileLines("lib/argparse.py");
  const classStart = lineOf(lines, "class ArgumentParser(");
  const [loc] = await resolveBugLocations(index, [
    {
      file: "lib/argparse.py",
      class: "ArgumentParser",
      method: "parse_known_intermixed_args_strict",
      intended_behavior: "like parse_known_intermixed_args, but reject unknown options",
    },
  ]);
  assert.ok(loc);
  assert.deepEqual(
    [loc.level, loc.class, loc.method, loc.start],
    ["class+file", "ArgumentParser", null, classStart],
  );
  assert.ok(loc.end - loc.start > 900, "the unit is still the class");
  const shown = shownLines(loc);
  assert.ok(shown < 300, `${shown} lines shown of ${loc.end - loc.start + 1}`);
  assertVerbatim(loc);
  // The header, every member's first line, and the most kindred member in full with the one after it.
  const text = formatLocationsForModel([loc]);
  assert.match(
    text,
    new RegExp(`${classStart} \\| class ArgumentParser\\(_AttributeHolder, _ActionsContainer\\):`),
  );
  for (const m of ["__init__", "parse_args", "_get_values", "format_help", "error"]) {
    assert.match(text, new RegExp(`\\d+ \\|     def ${m}\\(`), m);
  }
  const kin = lineOf(lines, "    def parse_known_intermixed_args(");
  const kinEnd = lineOf(lines, "        return namespace, extras", kin);
  for (let n = kin; n <= kinEnd; n++)
    if (lines[n - 1]!.trim()) assert.ok(text.includes(`${n} | ${lines[n - 1]}`), `line ${n}`);
  assert.match(
    loc.shown ?? "",
    /`parse_known_intermixed_args_strict` is not in this class yet: new code would go next to `parse_known_intermixed_args`/,
  );
  assert.match(text, /\n\s+\| \.\.\.\n/);
  // The sizing before: the whole class.
  const [old] = await resolveBugLocations(
    index,
    [{ file: "lib/argparse.py", class: "ArgumentParser", method: "x_y_z" }],
    {
      sizing: "whole",
    },
  );
  assert.equal(shownLines(old!), old!.end - old!.start + 1);
  assert.ok(formatLocationsForModel([old!]).length > 3 * text.length);
});

test("a new method with no kindred member goes at the end of the class", { skip }, async () => {
  const index = await stdlibIndex();
  const lines = fileLines("lib/configparser.py");
  const [loc] = await resolveBugLocations(index, [{ class: "RawConfigParser", method: "frobnicate" }]);
  assert.ok(loc);
  assertVerbatim(loc);
  assert.match(loc.shown ?? "", /new code would go at the end of the class/);
  const last = loc.slices[loc.slices.length - 1]!;
  assert.equal(last.end, loc.end);
  // The last member is there whole, so that an edit can anchor on its last lines.
  const lastDef = lines.slice(0, loc.end).findLastIndex((l) => l.startsWith("    def ")) + 1;
  assert.ok(last.start <= lastDef, "the last member from its first line");
  assert.ok(shownLines(loc) < 250);
});

test("a class-level attribute: the attribute named, in the class outline", { skip }, async () => {
  const index = await stdlibIndex();
  const lines = fileLines("lib/configparser.py");
  const [loc] = await resolveBugLocations(index, [
    {
      class: "RawConfigParser",
      intended_behavior: "`BOOLEAN_STATES` must also accept 'enabled' and 'disabled'",
    },
  ]);
  assert.ok(loc);
  assertVerbatim(loc);
  const at = lineOf(lines, "    BOOLEAN_STATES = {");
  assert.ok(
    loc.slices.some((s) => s.start <= at && s.end >= at + 1),
    "both lines of the attribute",
  );
  assert.ok(shownLines(loc) < 200, `${shownLines(loc)} lines`);
});

test("a method of a long class: the method, with the class in outline as context", { skip }, async () => {
  const index = await stdlibIndex();
  const lines = fileLines("lib/configparser.py");
  const [loc] = await resolveBugLocations(index, [
    { file: "lib/configparser.py", class: "RawConfigParser", method: "getboolean" },
  ]);
  assert.ok(loc);
  const start = lineOf(lines, "    def getboolean(");
  assert.deepEqual([loc.level, loc.start, loc.slices.length, loc.shown], ["method+class", start, 1, null]);
  assert.equal(loc.end, start + 3);
  const [cls] = loc.context.filter((c) => c.kind !== "file-head");
  assert.ok(cls);
  assert.equal(cls.kind, "enclosing-class");
  assert.ok(cls.partial);
  assertVerbatim(loc);
  const text = formatLocationsForModel([loc]);
  assert.match(text, /The class `RawConfigParser` this method belongs to, in outline/);
  for (const m of ["__init__", "get", "getint", "items", "_read"])
    assert.match(text, new RegExp(`\\|     def ${m}\\(`), m);
  assert.ok(shownLines(cls) < 150, `${shownLines(cls)} lines of the class`);
});

test("a module-level edit in a 2600-line file: the statement pointed at, its neighbours, the outline", {
  skip,
}, async () => {
  const index = await stdlibIndex();
  const lines = fileLines("lib/tarfile.py");
  const at = lineOf(lines, "DEFAULT_FORMAT = ");
  const byName = await resolveBugLocations(index, [
    { file: "lib/tarfile.py", intended_behavior: "`DEFAULT_FORMAT` should be GNU_FORMAT" },
  ]);
  const byLine = await resolveBugLocations(index, [{ file: `lib/tarfile.py:${at}` }]);
  for (const loc of [byName[0]!, byLine[0]!]) {
    assert.equal(loc.level, "file");
    assert.deepEqual([loc.start, loc.end], [1, lines.length - (lines.at(-1) === "" ? 1 : 0)]);
    assertVerbatim(loc);
    assert.ok(
      loc.slices.some((s) => s.start <= at - 2 && s.end >= at + 1),
      "the statement and those beside it",
    );
    assert.ok(shownLines(loc) < lines.length / 5, `${shownLines(loc)} of ${lines.length} lines`);
    // The outline: each top-level definition's first line.
    const text = formatLocationsForModel([loc]);
    for (const d of ["class TarInfo(object):", "class TarFile(object):", "def is_tarfile(name):"]) {
      assert.ok(text.includes(`| ${d}`), d);
    }
    assert.match(loc.shown ?? "", new RegExp(`the statements? at lines? [\\d, ]*${at}`));
  }
  // The whole file before.
  const [old] = await resolveBugLocations(index, [{ file: "lib/tarfile.py" }], { sizing: "whole" });
  assert.equal(shownLines(old!), old!.end);
});

test("small units stay whole: the fixtures' classes and files", async () => {
  const py = await buildIndex(fixturePath("python"), { cacheDir: null, workers: 0 });
  const locs = await resolveBugLocations(py, [
    { class: "Cart", method: "remove_all" },
    { file: "shop/models/base.py" },
    { class: "Product", method: "save" },
  ]);
  assert.deepEqual(
    locs.map((l) => [l.level, l.start, l.end, l.slices.length, l.shown]),
    [
      ["class", 21, 44, 1, null],
      ["file", 1, 47, 1, null],
      ["method+class", 26, 30, 1, null],
    ],
  );
  assert.equal(
    locs[2]!.context.find((c) => c.kind === "enclosing-class")!.partial,
    false,
    "a short class comes whole",
  );
  for (const lang of ["java", "typescript", "javascript", "go"]) {
    const index = await buildIndex(fixturePath(lang), { cacheDir: null, workers: 0 });
    for (const f of index.files) {
      const [loc] = await resolveBugLocations(index, [{ file: f.path }]);
      assert.equal(loc?.slices.length, 1, f.path);
    }
  }
});

test("an edit outside the code shown still applies: the engine matches the whole file", {
  skip,
}, async () => {
  const index = await stdlibIndex();
  const [loc] = await resolveBugLocations(index, [{ class: "ArgumentParser", method: "frobnicate" }]);
  assert.ok(loc);
  const lines = fileLines("lib/argparse.py");
  // A line inside a member shown only by its first line.
  const target = lineOf(lines, "    def _get_values(") + 1;
  assert.ok(!loc.slices.some((s) => s.start <= target + 2 && s.end >= target), "not shown");
  const original = lines.slice(target - 1, target + 2).join("\n");
  const answer = `<file>lib/argparse.py</file>\n<original>\n${original}\n</original>\n<patched>\n${original}\n        # checked\n</patched>\n`;
  const result = await computePatch(createDiskRepo(stdlibRepo()), answer);
  assert.equal(result.status, "APPLICABLE_PATCH", result.feedback);
});

test("an <original> copied across a `...` gap is refused with the file's own lines to copy instead", {
  skip,
}, async () => {
  const index = await stdlibIndex();
  const [loc] = await resolveBugLocations(index, [{ class: "RawConfigParser", method: "frobnicate" }]);
  assert.ok(loc && loc.slices.length > 4);
  const before = loc.slices[3]!.code.split("\n").at(-1)!;
  const after = loc.slices[4]!.code.split("\n")[0]!;
  const original = [before, "...", after].join("\n");
  const answer = `<file>lib/configparser.py</file>\n<original>\n${original}\n</original>\n<patched>\n${original}\n        pass\n</patched>\n`;
  const result = await computePatch(createDiskRepo(stdlibRepo()), answer);
  assert.equal(result.status, "RAW_PATCH_BUT_UNMATCHED");
  // The feedback shows the region of the file, a line the location left out among them.
  const lines = fileLines("lib/configparser.py");
  let hidden = loc.slices[3]!.end + 1;
  while (!lines[hidden - 1]!.trim()) hidden++;
  assert.ok(hidden < loc.slices[4]!.start);
  assert.ok(result.feedback.includes(lines[hidden - 1]!.trim()), result.feedback);
});

test("the patch prompt carries the excerpt, what it shows and how to copy from it", { skip }, async () => {
  const index = await stdlibIndex();
  const locs = await resolveBugLocations(index, [
    { class: "ArgumentParser", method: "frobnicate", intended_behavior: "add frobnicate" },
    { file: "lib/tarfile.py", intended_behavior: "`DEFAULT_FORMAT` should be GNU_FORMAT" },
    { class: "RawConfigParser", method: "getboolean", intended_behavior: "strip the value" },
  ]);
  const [system, user] = patchMessages(
    { issue: { title: "t", body: "b" }, locations: formatLocationsForModel(locs), history: [] },
    PATCH_FORMAT_HELP,
  );
  assert.ok(system && user);
  assert.match(user.content, /a `\.\.\.` line stands\s+for the lines left out/);
  assert.match(
    user.content,
    /Location 1: <file>lib\/argparse.py<\/file> <class>ArgumentParser<\/class> \(lines \d+-\d+\)\nShown: the class's outline/,
  );
  assert.match(user.content, /Intended behavior: add frobnicate/);
  assert.match(user.content, /\d+ \| DEFAULT_FORMAT = PAX_FORMAT/);
  assert.match(user.content, /\d+ \| {5}def getboolean\(self, section, option, \*, raw=False, vars=None,/);
  assert.ok(user.content.length < 60_000, `${user.content.length} characters`);
});

test("two requests on one long class make one location that shows what each points at", {
  skip,
}, async () => {
  const index = await stdlibIndex();
  const lines = fileLines("lib/configparser.py");
  const locs = await resolveBugLocations(index, [
    { class: "RawConfigParser", method: "frobnicate", intended_behavior: "add frobnicate" },
    { class: "RawConfigParser", intended_behavior: "`BOOLEAN_STATES` must accept 'enabled'" },
  ]);
  assert.equal(locs.length, 1);
  const [loc] = locs;
  assert.ok(loc);
  assertVerbatim(loc);
  const at = lineOf(lines, "    BOOLEAN_STATES = {");
  assert.ok(
    loc.slices.some((s) => s.start <= at && s.end >= at + 1),
    "the attribute of the second request",
  );
  assert.equal(loc.slices.at(-1)?.end, loc.end, "the end of the class for the first");
  assert.equal(loc.intendedBehavior, "add frobnicate\n`BOOLEAN_STATES` must accept 'enabled'");
  assert.match(loc.shown ?? "", /new code would go at the end of the class/);
});

/** A model for the search loop: prose for the search agent, the next scripted JSON for the proxy. */
function scriptedSearchModel(proxy: object[]) {
  let n = 0;
  return {
    chat: async (_m: unknown, opts: { stage: string }) => {
      const content =
        opts.stage === "proxy"
          ? JSON.stringify(proxy[Math.min(n++, proxy.length - 1)])
          : "Notes on the search.";
      return {
        texts: [content],
        content,
        usage: { prompt_tokens: 1, completion_tokens: 1, cost_usd: 0, estimated: false },
        model: "m",
        finishReason: "stop",
        trimmed: 0,
        callId: 1,
      };
    },
  };
}

test("the search loop merges two requests on one class into one location", { skip }, async () => {
  const port = createSearchPort(await stdlibIndex());
  const model = scriptedSearchModel([
    {
      API_calls: [],
      bug_locations: [
        { class: "RawConfigParser", method: "frobnicate", intended_behavior: "add frobnicate" },
        { class: "RawConfigParser", intended_behavior: "`BOOLEAN_STATES` must accept 'enabled'" },
      ],
    },
  ]);
  const out = await runSearch(model, port, { title: "t", body: "b" });
  assert.equal(out.status, "located");
  assert.equal(out.locations.length, 1);
  const text = port.formatLocations(out.locations);
  assert.match(text, /\d+ \| {5}BOOLEAN_STATES = \{/);
  assert.equal(text.match(/Shown:/g)?.length, 1);
  assert.match(text, /Intended behavior: add frobnicate\n`BOOLEAN_STATES` must accept 'enabled'/);
});

test("TypeScript: a file-level location that names a member shows it, with the class outline", async () => {
  const src = new URL("../../node_modules/openai/src/client.ts", import.meta.url).pathname;
  const dir = join(tempDir(), "ts");
  mkdirSync(dir, { recursive: true });
  copyFileSync(src, join(dir, "client.ts"));
  const index = await buildIndex(dir, { cacheDir: null, workers: 0 });
  const lines = readFileSync(join(dir, "client.ts"), "utf8").split("\n");
  const [loc] = await resolveBugLocations(index, [
    { file: "client.ts", intended_behavior: "`shouldRetry` must honour Retry-After on 503" },
  ]);
  assert.ok(loc);
  assert.equal(loc.level, "file");
  for (const s of loc.slices) assert.equal(s.code, lines.slice(s.start - 1, s.end).join("\n"));
  const at = lines.findIndex((l) => /^ {2}private async shouldRetry\(/.test(l)) + 1;
  const end = lines.findIndex((l, i) => i >= at && l === "  }") + 1;
  assert.ok(
    loc.slices.some((s) => s.start <= at && s.end >= end),
    "the member whole",
  );
  const text = formatLocationsForModel([loc]);
  assert.match(text, /\d+ \| export class OpenAI \{/);
  assert.match(text, /\d+ \| {3}constructor\(/, "the class outline: each member's first line");
  assert.ok(shownLines(loc) < lines.length / 4, `${shownLines(loc)} of ${lines.length} lines`);
});

test("a file-level location with nothing to point at shows where the search looked", { skip }, async () => {
  const lines = fileLines("lib/tarfile.py");
  const at = lineOf(lines, "DEFAULT_FORMAT = ");
  const port = createSearchPort(await stdlibIndex());
  const model = scriptedSearchModel([
    { API_calls: ['search_code_in_file("DEFAULT_FORMAT = ", "lib/tarfile.py")'], bug_locations: [] },
    {
      API_calls: [],
      bug_locations: [{ file: "lib/tarfile.py", intended_behavior: "archives default to the GNU format" }],
    },
  ]);
  const out = await runSearch(model, port, { title: "t", body: "b" });
  assert.equal(out.status, "located");
  assert.deepEqual(out.requested, [
    { file: "lib/tarfile.py", intended_behavior: "archives default to the GNU format" },
  ]);
  const [loc] = out.locations;
  assert.ok(loc);
  assert.ok(
    loc.slices.some((s) => s.start <= at - 2 && s.end >= at + 1),
    "the statement the search found",
  );
  assert.match(loc.shown ?? "", new RegExp(`the statement at line ${at}`));
  // Without the search, nothing points there: the module-level code is shown by first lines.
  const [alone] = await resolveBugLocations(await stdlibIndex(), [{ file: "lib/tarfile.py" }]);
  assert.ok(!alone!.shown?.includes(`line ${at}`));
});

test("every kind of location on every class and file shows verbatim lines inside its unit", async () => {
  const repos = [
    ...(skip ? [] : [stdlibRepo()]),
    ...["python", "java", "typescript", "javascript", "go"].map(fixturePath),
  ];
  let checked = 0;
  for (const dir of repos) {
    const index = await buildIndex(dir, { cacheDir: null, workers: 0 });
    for (const f of index.files) {
      const lines = readFileSync(join(dir, f.path), "utf8").split("\n");
      const requests: LocationRequest[] = [
        { file: f.path },
        { file: `${f.path}:${Math.ceil(lines.length / 2)}` },
        { file: f.path, method: "brand_new_helper", intended_behavior: "like `main`, at line 3" },
      ];
      for (const c of f.symbols.filter((s) => s.kind === "class").slice(0, 12)) {
        requests.push(
          { file: f.path, class: c.qualName, method: "zz_new_method" },
          {
            file: f.path,
            class: c.qualName,
            intended_behavior: `\`${c.name}\` at line ${c.end - 1}`,
          },
        );
      }
      for (const m of f.symbols.filter((s) => s.kind === "method").slice(0, 12)) {
        requests.push({ file: f.path, class: m.className ?? "", method: m.name });
      }
      for (const req of requests) {
        const locs = await resolveBugLocations(index, [req]);
        for (const loc of locs) {
          const own = readFileSync(join(dir, loc.file), "utf8").split("\n");
          let prev = 0;
          for (const s of loc.slices) {
            assert.equal(s.code, own.slice(s.start - 1, s.end).join("\n"), `${loc.file}:${s.start}-${s.end}`);
            assert.ok(s.start > prev && s.start >= loc.start && s.end <= loc.end, JSON.stringify(req));
            prev = s.end + 1;
          }
          for (const c of loc.context) {
            const theirs = readFileSync(join(dir, c.file), "utf8").split("\n");
            for (const s of c.slices) {
              assert.equal(s.code, theirs.slice(s.start - 1, s.end).join("\n"));
              assert.ok(s.start >= c.start && s.end <= c.end);
            }
          }
          assert.ok(formatLocationsForModel([loc]).length > 0);
          checked++;
        }
      }
    }
  }
  assert.ok(checked > 100, `${checked} locations`);
});
