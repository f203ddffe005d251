import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { resolveScriptCommand, scriptOfCommand } from "../../src/config/package-scripts.ts";
import { tempDir } from "../support/temp.ts";

const repoWith = (scripts: unknown, files: Record<string, string> = {}): string => {
  const dir = tempDir("af-scripts-");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "p", scripts }));
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(dir, rel), text);
  return dir;
};

test("the script a package-manager command names, and commands that name none", () => {
  assert.equal(scriptOfCommand("npm test"), "test");
  assert.equal(scriptOfCommand("npm t"), "test");
  assert.equal(scriptOfCommand("yarn test"), "test");
  assert.equal(scriptOfCommand("pnpm test"), "test");
  assert.equal(scriptOfCommand("npm run test:unit"), "test:unit");
  assert.equal(scriptOfCommand("yarn unit"), "unit");
  assert.equal(scriptOfCommand("npm unit"), null);
  assert.equal(scriptOfCommand("npm test -- --grep x"), null);
  assert.equal(scriptOfCommand("node --test"), null);
  assert.equal(scriptOfCommand("yarn --silent"), null);
});

test("npm test, yarn test, pnpm test and npm run chains resolve to the command the script runs", () => {
  const repo = repoWith({ test: "npm run unit", unit: "yarn spec", spec: "node --test test/" });
  for (const cmd of ["npm test", "yarn test", "pnpm test"])
    assert.deepEqual(resolveScriptCommand(repo, cmd), {
      command: "node --test test/",
      chain: ["test", "unit", "spec"],
    });
  // A runner started from node_modules/.bin, as npm starts it.
  const mocha = repoWith({ test: "mocha -r should --reporter spec test/" });
  assert.deepEqual(resolveScriptCommand(mocha, "npm test"), {
    command: "node_modules/.bin/mocha -r should --reporter spec test/",
    chain: ["test"],
  });
  assert.deepEqual(resolveScriptCommand(repoWith({ test: "npx mocha" }), "npm test"), {
    command: "npx mocha",
    chain: ["test"],
  });
  assert.equal(resolveScriptCommand(repo, "node --test"), null);
});

test("scripts auto-fix cannot run itself are refused with the reason", () => {
  const reason = (scripts: unknown, cmd = "npm test") => {
    const r = resolveScriptCommand(repoWith(scripts), cmd);
    assert.ok(r && "reason" in r, JSON.stringify(r));
    return r.reason;
  };
  assert.match(reason({ test: "node --test && eslint ." }), /uses shell syntax/);
  assert.match(reason({ test: "node --test", pretest: "tsc" }), /has a `pretest` script/);
  assert.match(reason({ test: "cross-env CI=1 node --test" }), /starts `cross-env`, which is neither node/);
  assert.match(reason({ test: "npm run a", a: "npm run test" }), /the script `test` runs itself/);
  assert.match(
    reason({
      test: "npm run a",
      a: "npm run b",
      b: "npm run c",
      c: "npm run d",
      d: "npm run e",
      e: "node --test",
    }),
    /more than 4 other scripts/,
  );
  assert.match(reason({ lint: "eslint" }), /no script `test`/);
  assert.match(reason({ toString: "x" }, "yarn constructor"), /no script `constructor`/);
  assert.match(reason(["node --test"]), /has no scripts/);
  const link = tempDir("af-scripts-link-");
  mkdirSync(join(link, "real"));
  writeFileSync(join(link, "real", "package.json"), JSON.stringify({ scripts: { test: "node --test" } }));
  symlinkSync("real/package.json", join(link, "package.json"));
  const r = resolveScriptCommand(link, "npm test");
  assert.ok(r && "reason" in r && /package\.json cannot be read/.test(r.reason), JSON.stringify(r));
});

test("the configuration runs the script's node --test itself, says so, and keeps a configured runner", () => {
  const repo = repoWith({ test: "node --test" }, { "index.js": "exports.a = 1;\n" });
  const config = loadRepoConfig(repo);
  assert.equal(config.test.command, "node --test");
  assert.equal(config.test.framework, "node-test");
  assert.equal(config.validation.runner, "node-test");
  assert.ok(
    config.notes.includes(
      "tests: `npm test` runs the package.json script `test`: `node --test`, which auto-fix runs itself to name each test",
    ),
    config.notes.join("\n"),
  );
  // A script with shell syntax stays as it is (its runner cannot be told).
  const shell = loadRepoConfig(repoWith({ test: "node --test || true" }));
  assert.equal(shell.test.command, "npm test");
  assert.equal(shell.validation.runner, null);
  // validation.command names how to run the tests: the command is left as it is.
  const templ = repoWith({ test: "node --test" });
  mkdirSync(join(templ, ".github"));
  writeFileSync(
    join(templ, ".github", "auto-fix.yml"),
    "test: npm test\nvalidation:\n  runner: node-test\n  command: node --test {tests}\n",
  );
  assert.equal(loadRepoConfig(templ).test.command, "npm test");
});
