import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, test } from "node:test";
import { runnerFor } from "../../../src/runners/index.ts";
import { parseTestOutput } from "../../../src/validate/output.ts";
import { cargo, noCargo, SHOP, writeCrate } from "./crate.ts";

// cargo test's human output, from real runs of a small crate with Debian's cargo: every test of every
// binary by its outcome, a build that fails read as a failure of the build (never a pass), and lines a
// test writes past libtest's capture unable to forge a result.

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
const crate = (files: Record<string, string>): string => {
  const root = writeCrate(files);
  roots.push(root);
  return root;
};
const cargoRunner = runnerFor("cargo");

test("every test of every binary is named with its binary and outcome (unit, integration, ignored)", {
  skip: noCargo,
}, () => {
  const root = crate({
    ...SHOP,
    "tests/more.rs": '#[test]\n#[ignore = "slow"]\nfn slow() {}\n\n#[test]\nfn quick() {}\n',
  });
  const run = cargo(root, ["test", "--offline", "--no-fail-fast"]);
  assert.equal(run.status, 101, run.stderr);
  const r = parseTestOutput("cargo", run.stdout, run.stderr);
  assert.ok(r);
  assert.deepEqual(Object.fromEntries([...r.tests].sort()), {
    "src/lib.rs::tests::adds": "passed",
    "tests/more.rs::quick": "passed",
    "tests/more.rs::slow": "skipped",
    "tests/slug.rs::many_words": "failed",
    "tests/slug.rs::one_space": "passed",
  });
});

test("a test binary that does not build: the build's failure, no test passed", { skip: noCargo }, () => {
  const root = crate({ ...SHOP, "tests/broken.rs": '#[test]\nfn t() { let x: u8 = "no"; }\n' });
  const run = cargo(root, ["test", "--offline", "--no-fail-fast"]);
  assert.notEqual(run.status, 0);
  const r = parseTestOutput("cargo", run.stdout, run.stderr);
  assert.ok(r, run.stderr);
  assert.equal(r.tests.get("<build>"), "failed");
  assert.ok(![...r.tests.values()].includes("passed"), JSON.stringify([...r.tests]));
  assert.equal(cargoRunner.loadedName("<build>"), "the crate's build");
});

test("lines a test writes past libtest's capture forge no result", { skip: noCargo }, () => {
  // A failing test that prints a whole passing block of its own, and its own name as passing.
  const forged =
    "running 1 test\\ntest forged ... ok\\n\\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\\n\\ntest many_words ... ok\\n";
  const root = crate({
    ...SHOP,
    "tests/slug.rs": `use std::io::Write;\n\n#[test]\nfn many_words() {\n    std::io::stdout().write_all(b"${forged}").unwrap();\n    std::io::stdout().flush().unwrap();\n    assert_eq!(shop::slug("A B C"), "a-b-c");\n}\n`,
  });
  const run = cargo(root, ["test", "--offline", "--no-fail-fast"]);
  assert.match(run.stdout, /test forged \.\.\. ok/, "the forged lines reached the output");
  const r = parseTestOutput("cargo", run.stdout, run.stderr);
  assert.ok(r);
  assert.ok(!r.tests.has("tests/slug.rs::forged"), JSON.stringify([...r.tests]));
  assert.notEqual(r.tests.get("tests/slug.rs::many_words"), "passed", JSON.stringify([...r.tests]));
  assert.ok([...r.tests.values()].includes("failed"), JSON.stringify([...r.tests]));
});

test("a block whose lines disagree with its summary is its binary's failure; stray result lines outside blocks are not read", () => {
  const stdout = [
    "test outside ... ok",
    "running 2 tests",
    "test a ... ok",
    "test b ... ok",
    "test c ... ok",
    "test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
  ].join("\n");
  const r = parseTestOutput("cargo", stdout, "     Running tests/x.rs (target/debug/deps/x-0)\n");
  assert.ok(r);
  assert.deepEqual([...r.tests], [["tests/x.rs::<binary>", "failed"]]);
  assert.equal(cargoRunner.loadedName("tests/x.rs::<binary>"), "tests/x.rs");
});

test("missing cargo and a dependency that needs the network are said as such", () => {
  assert.match(cargoRunner.missingRunner?.("sh: 1: cargo: not found\n") ?? "", /cargo is not installed/);
  const offline =
    "error: no matching package named `serde` found\nlocation searched: registry `crates-io`\nrequired by package `shop v0.1.0`\nAs a reminder, you're using offline mode (--offline) which can sometimes cause surprising resolution failures";
  assert.match(cargoRunner.missingRunner?.(offline) ?? "", /needs `serde` from the network/);
});

test("a crate that needs the network fails at once offline, saying so", { skip: noCargo }, () => {
  const root = crate({ ...SHOP, "Cargo.toml": `${SHOP["Cargo.toml"]}zzz-not-vendored-crate = "1"\n` });
  const started = Date.now();
  const run = cargo(root, ["test", "--offline"]);
  assert.notEqual(run.status, 0);
  assert.ok(Date.now() - started < 60_000);
  assert.match(
    cargoRunner.missingRunner?.(`${run.stdout}\n${run.stderr}`) ?? "",
    /zzz-not-vendored-crate/,
    run.stderr,
  );
});

test("a run stopped inside a binary: the finished binaries' tests are kept, the stopped one is its binary's failure", () => {
  const stdout = [
    "running 1 test",
    "test tests::adds ... ok",
    "",
    "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "",
    "running 2 tests",
    "test one_space ... ok",
  ].join("\n");
  const stderr =
    "     Running unittests src/lib.rs (target/debug/deps/shop-1)\n     Running tests/slug.rs (target/debug/deps/slug-2)\n";
  const r = parseTestOutput("cargo", stdout, stderr);
  assert.ok(r);
  assert.deepEqual(Object.fromEntries(r.tests), {
    "src/lib.rs::tests::adds": "passed",
    "tests/slug.rs::<binary>": "failed",
  });
});

test("more result blocks than binaries cargo names: the run is one failure, no test is read", () => {
  const block = (name: string) =>
    `running 1 test\ntest ${name} ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n`;
  const r = parseTestOutput(
    "cargo",
    block("a") + block("forged"),
    "     Running tests/a.rs (target/debug/deps/a-1)\n",
  );
  assert.ok(r);
  assert.deepEqual([...r.tests], [["<binary>", "failed"]]);
  assert.equal(cargoRunner.loadedName("<binary>"), "the run's test binaries");
});
