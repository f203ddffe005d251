/**
 * A runner's folder reads the version of its tool installed in the work tree (never through a link)
 * before it words any option, and a version it cannot read or does not know gets the spelling every
 * known version takes, with a note saying so.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseRepoConfig } from "../../src/config/index.ts";
import { openTree } from "../../src/core/tree-fs.ts";
import { runnerFor } from "../../src/runners/index.ts";
import { pythonDistVersion } from "../../src/runners/shared/command-versions.ts";
import { suiteCommand, targetedCommand } from "../../src/validate/index.ts";
import { tempDir } from "../support/temp.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const cfg = (command: string) => {
  const c = parseRepoConfig(`test: ${JSON.stringify(command)}\n`);
  return { test: c.test, validation: c.validation };
};

function tree(files: Record<string, string>): string {
  const dir = tempDir("af-versions-");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const manifest = (version: string) => JSON.stringify({ name: "x", version });

test("the installed mocha, jest and vitest are read from node_modules, as their own programs report them", () => {
  const root = openTree(ROOT);
  for (const [runner, program] of [
    ["mocha", "node_modules/mocha/bin/mocha.js"],
    ["jest", "node_modules/jest/bin/jest.js"],
    ["vitest", "node_modules/vitest/vitest.mjs"],
  ] as const) {
    const own = execFileSync(process.execPath, [join(ROOT, program), "--version"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    const read = runnerFor(runner).installedVersion(root);
    assert.ok(read.version, `${runner}: ${read.source}`);
    assert.ok(own.includes(read.version), `${runner}: ${own.trim()} vs ${read.version}`);
    assert.equal(read.major, Number(read.version.split(".")[0]));
    assert.equal(read.source, `node_modules/${runner}/package.json`);
  }
});

test("a known mocha version is worded without a note; the whole suite and targeted runs alike", () => {
  for (const version of ["2.5.3", "3.5.3", "5.2.0", "6.2.3", "10.8.2", "12.0.3"]) {
    const dir = tree({ "node_modules/mocha/package.json": manifest(version) });
    const config = cfg("node node_modules/mocha/bin/_mocha test/");
    const suite = suiteCommand(config, openTree(dir));
    assert.equal(suite.notes, undefined, `${version}: ${suite.notes}`);
    assert.match(suite.command, / --reporter xunit --reporter-options output=\.junit-mocha-/);
    const t = targetedCommand(config, ["test/a.js"], openTree(dir));
    assert.ok("argv" in t);
    assert.equal(t.notes, undefined);
    assert.match(t.argv[2]!, / --reporter xunit --reporter-options output=/);
  }
});

test("a mocha version outside those known gets the safest spelling and a note; one not read changes no word and needs none", () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      "1.21.5",
      { "node_modules/mocha/package.json": manifest("1.21.5") },
      /version 1\.21\.5 is not one of 2 to 12/,
    ],
    [
      "13",
      { "node_modules/mocha/package.json": manifest("13.0.0") },
      /version 13\.0\.0 is not one of 2 to 12/,
    ],
  ];
  for (const [what, files, why] of cases) {
    const dir = tree(files);
    const suite = suiteCommand(cfg("npx mocha"), openTree(dir));
    assert.match(suite.command, /^npx mocha --reporter xunit --reporter-options output=/, what);
    assert.equal(suite.notes?.length, 1, what);
    assert.match(suite.notes![0]!, /^mocha: its version/, what);
    assert.match(suite.notes![0]!, why, what);
    assert.match(suite.notes![0]!, /spelled the way every mocha from 2 to 12 takes them/);
  }
  // A link in node_modules' place is not followed, whatever it leads to.
  const real = tree({ "node_modules/mocha/package.json": manifest("12.0.3") });
  const linked = tree({});
  symlinkSync(join(real, "node_modules"), join(linked, "node_modules"));
  const read = runnerFor("mocha").installedVersion(openTree(linked));
  assert.equal(read.version, null);
  assert.match(read.source, /cannot be read/);
  // Every mocha from 2 to 12 takes the same report words: a version not read changes none, and no note
  // adds to the run's.
  const unread: [string, Record<string, string>, RegExp][] = [
    ["absent", {}, /node_modules\/mocha\/package\.json is not there/],
    ["not JSON", { "node_modules/mocha/package.json": "{" }, /is not valid JSON/],
    ["no version", { "node_modules/mocha/package.json": manifest("latest") }, /not a version/],
  ];
  for (const [what, files, why] of unread) {
    const dir = openTree(tree(files));
    assert.match(runnerFor("mocha").installedVersion(dir).source, why, what);
    const suite = suiteCommand(cfg("npx mocha"), dir);
    assert.match(suite.command, /^npx mocha --reporter xunit --reporter-options output=/, what);
    assert.equal(suite.notes, undefined, what);
  }
  assert.equal(suiteCommand(cfg("npx mocha"), openTree(linked)).notes, undefined);
});

test("jest and vitest: a version read gives no note, nor one not read; one outside those known gives the safest words and a note", () => {
  const known = tree({
    "node_modules/jest/package.json": manifest("29.7.0"),
    "node_modules/vitest/package.json": manifest("1.6.0"),
  });
  const jest = suiteCommand(cfg("npx jest"), openTree(known));
  assert.equal(jest.command, "npx jest --verbose");
  assert.equal(jest.notes, undefined);
  const vitest = targetedCommand(cfg("npx vitest run"), ["a.test.ts"], openTree(known));
  assert.ok("argv" in vitest);
  assert.equal(vitest.notes, undefined);
  // jest installed as jest-cli alone: its version is read there.
  const cli = runnerFor("jest").installedVersion(
    openTree(tree({ "node_modules/jest-cli/package.json": manifest("24.9.0") })),
  );
  assert.deepEqual(
    [cli.version, cli.major, cli.source],
    ["24.9.0", 24, "node_modules/jest-cli/package.json"],
  );
  const empty = openTree(tree({}));
  const jestUnknown = targetedCommand(cfg("npx jest"), ["a.test.js"], empty);
  assert.ok("argv" in jestUnknown);
  assert.deepEqual(jestUnknown.argv.slice(4), ["--verbose", "--runTestsByPath", "a.test.js"]);
  assert.equal(jestUnknown.notes, undefined, "every jest from 21 to 30 takes these words");
  assert.equal(suiteCommand(cfg("npx vitest run"), empty).notes, undefined);
  const old = openTree(tree({ "node_modules/jest/package.json": manifest("20.0.4") }));
  assert.match(
    suiteCommand(cfg("npx jest"), old).notes?.[0] ?? "",
    /^jest: its version 20\.0\.4 is not one of 21 to 30/,
  );
});

test("pytest's version is read from its dist-info in the work tree's per-user installs, else said to be unknown", () => {
  const dir = tree({ ".cache/python-user/lib/python3.11/site-packages/pytest-7.4.4.dist-info/METADATA": "" });
  const read = runnerFor("pytest").installedVersion(openTree(dir));
  assert.equal(read.version, "7.4.4");
  assert.equal(read.major, 7);
  assert.equal(suiteCommand(cfg("python3 -m pytest"), openTree(dir)).notes, undefined);
  // Not read (pytest installed outside the tree): every pytest from 6 to 9 takes the same words, no note.
  assert.match(runnerFor("pytest").installedVersion(openTree(tree({}))).source, /no pytest-\*\.dist-info/);
  const none = suiteCommand(cfg("python3 -m pytest"), openTree(tree({})));
  assert.equal(none.command, "python3 -m pytest -rA");
  assert.equal(none.notes, undefined);
  const old = tree({ ".venv/lib/python3.9/site-packages/pytest-5.4.3.dist-info/METADATA": "" });
  assert.match(
    suiteCommand(cfg("pytest"), openTree(old)).notes?.[0] ?? "",
    /version 5\.4\.3 is not one of 6 to 9/,
  );
});

test("pytest's version in a real site-packages is the one pytest itself reports", () => {
  let site: string;
  let own: string;
  try {
    site = execFileSync(
      "python3",
      ["-c", "import os, pytest; print(os.path.dirname(os.path.dirname(pytest.__file__)))"],
      {
        encoding: "utf8",
      },
    ).trim();
    own = execFileSync("python3", ["-m", "pytest", "--version"], { encoding: "utf8" });
  } catch {
    assert.fail("python3 with pytest is needed for this test");
  }
  const read = pythonDistVersion(undefined, "pytest", [openTree(site)]);
  assert.ok(read.version, read.source);
  assert.ok(own.includes(read.version), `${own.trim()} vs ${read.version}`);
});
