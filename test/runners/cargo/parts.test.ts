import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { detectProject } from "../../../src/config/detect.ts";
import { openTree } from "../../../src/core/tree-fs.ts";
import type { CanaryRules, Spot } from "../../../src/runners/parts/canaries.ts";
import { runnerFor } from "../../../src/runners/index.ts";
import { cargo, noCargo, SHOP, writeCrate } from "./crate.ts";

// cargo test's command, check tests and conventions, on a real small crate with Debian's cargo.

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
const crate = (files: Record<string, string>): string => {
  const root = writeCrate(files);
  roots.push(root);
  return root;
};
const r = runnerFor("cargo");
const rules = r.canaries as CanaryRules;

test("its spellings start it; the suite's words ask for every binary's results", () => {
  for (const c of ["cargo test", "cargo test --offline", "cargo test -p x", "cargo t"])
    assert.equal(r.namedAt(c.split(" ")), 0, c);
  for (const c of ["cargo build", "cargo run --example test", "echo cargo test"])
    assert.equal(r.namedAt(c.split(" ")), -1, c);
  assert.deepEqual(r.listingWords(["cargo", "test", "--offline"]), [
    "cargo",
    "test",
    "--no-fail-fast",
    "--offline",
  ]);
  assert.deepEqual(r.scope(["cargo", "test", "--offline"]), []);
  assert.equal(r.scope(["cargo", "test", "adds", "--", "--exact"]), null, "a name filter's reach is unknown");
  assert.ok(r.validTarget("tests/slug.rs") && !r.validTarget("../x.rs") && !r.validTarget("src/lib.rs"));
});

test("recognised by its Cargo.toml at the root: cargo test --offline", () => {
  const root = crate(SHOP);
  const d = detectProject(root);
  assert.equal(d.language, "rust");
  assert.equal(d.framework, "cargo");
  assert.equal(d.testCommand, "cargo test --offline");
});

test("a missing cargo is said at detection; a crate with a lock file fetches offline as its setup", {
  skip: noCargo,
}, () => {
  const root = crate({ ...SHOP, "Cargo.lock": "" });
  const missing = detectProject(root, { runnerInstalled: () => false });
  assert.equal(missing.framework, "cargo");
  assert.ok(
    missing.reasons.some((x) => /cargo is not installed where the tests run/.test(x)),
    missing.reasons.join("; "),
  );
  const d = detectProject(root, { runnerInstalled: () => true });
  assert.deepEqual(d.setup, ["cargo fetch --offline"]);
  assert.ok(!d.reasons.some((x) => /not installed/.test(x)));
  // A path dependency and no network: the setup step itself succeeds offline.
  rmSync(join(root, "Cargo.lock"));
  const dep = crate({
    "Cargo.toml": '[package]\nname = "util"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub fn one() -> i32 { 1 }\n",
  });
  writeFileSync(join(root, "Cargo.toml"), `${SHOP["Cargo.toml"]}util = { path = ${JSON.stringify(dep)} }\n`);
  const fetched = cargo(root, ["fetch", "--offline"]);
  assert.equal(fetched.status, 0, fetched.stderr);
});

test("check tests: a tests/ file cargo runs as its own binary, one passing with its proof, one failing", {
  skip: noCargo,
}, () => {
  const root = crate(SHOP);
  const tree = openTree(root);
  const spot = rules.spot({
    tree,
    words: ["cargo", "test", "--offline"],
    targets: null,
    valueOptions: r.valueOptions,
  });
  assert.ok("dirs" in spot, JSON.stringify(spot));
  assert.deepEqual((spot as Spot).dirs, ["tests"]);
  const src = rules.source({
    tree,
    dir: "tests",
    token: "kavelo",
    other: "mirto",
    spare: "sunde",
    proofName: ".proof-ab12.tmp",
    proofValue: "v-123",
    impossible: "deadbeef",
  });
  assert.equal(src.name, "kavelo.rs");
  writeFileSync(join(root, "tests", src.name), src.text);
  const run = cargo(root, ["test", "--offline", "--no-fail-fast"]);
  assert.equal(run.status, rules.failExitCode(1), run.stderr);
  assert.match(run.stdout, /test kavelo \.\.\. ok/);
  assert.match(run.stdout, /test kavelo_mirto \.\.\. FAILED/);
  assert.equal(readFileSync(join(root, "tests", ".proof-ab12.tmp"), "utf8"), "v-123\n");
  // Two failures (the crate's bug and the check test): not the check test alone.
  assert.equal(rules.onlyOneFailed(run.stdout), false);
});

test("check tests are not placed where they would not run, and say why", () => {
  const spotOf = (files: Record<string, string>, words: string[]) =>
    rules.spot({ tree: openTree(crate(files)), words, targets: null, valueOptions: r.valueOptions });
  const ws = spotOf({ "Cargo.toml": '[workspace]\nmembers = ["a"]\n' }, ["cargo", "test"]);
  assert.match(JSON.stringify(ws), /workspace/);
  const auto = spotOf(
    {
      ...SHOP,
      "Cargo.toml": `${SHOP["Cargo.toml"]!.replace("[dependencies]", "autotests = false\n\n[dependencies]")}`,
    },
    ["cargo", "test"],
  );
  assert.match(JSON.stringify(auto), /autotests = false/);
  assert.match(JSON.stringify(spotOf(SHOP, ["cargo", "test", "adds"])), /filters tests by name/);
  assert.equal(rules.deselecting(["cargo", "test", "--lib"]), "--lib");
  assert.equal(rules.deselecting(["cargo", "test", "--offline"]), undefined);
});

test("regression test: an integration test file using the crate by its library name, run alone", {
  skip: noCargo,
}, () => {
  const root = crate({
    ...SHOP,
    "Cargo.toml": SHOP["Cargo.toml"]!.replace('name = "shop"', 'name = "my-shop"'),
  });
  const plan = r.regression.plan(root, ["src/lib.rs"]);
  assert.ok(plan.ok, JSON.stringify(plan));
  assert.equal(plan.plan.path, "tests/lib_regression.rs");
  assert.equal(plan.plan.command, "cargo test --offline --test lib_regression");
  assert.match(plan.plan.notes, /use my_shop::/);
  assert.equal(plan.plan.example?.path, "tests/slug.rs");
  writeFileSync(
    join(root, plan.plan.path),
    'use my_shop::slug;\n\n#[test]\nfn spaces() {\n    assert_eq!(slug("A B C"), "a-b-c");\n}\n',
  );
  const run = cargo(root, plan.plan.command.split(" ").slice(1));
  const out = `${run.stdout}\n${run.stderr}`;
  assert.deepEqual([...(r.regression.verdicts?.(out, plan.plan) ?? [])], [["spaces", "fail"]]);
  assert.equal(r.regression.testsRan?.(out), true);
  assert.equal(r.regression.notLoaded?.(out), null);
  writeFileSync(join(root, plan.plan.path), '#[test]\nfn spaces() { let x: u8 = "no"; }\n');
  const broken = cargo(root, plan.plan.command.split(" ").slice(1));
  assert.equal(
    r.regression.notLoaded?.(`${broken.stdout}\n${broken.stderr}`),
    "the test file did not compile",
  );
  assert.ok(readdirSync(join(root, "tests")).includes("lib_regression.rs"));
});

test("no regression test for a crate without a library target, with why", () => {
  const root = crate({ "Cargo.toml": SHOP["Cargo.toml"]!, "src/main.rs": "fn main() {}\n" });
  const plan = r.regression.plan(root, ["src/main.rs"]);
  assert.equal(plan.ok, false);
  assert.match(JSON.stringify(plan), /no library target/);
});
