import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { detectProject, loadRepoConfig } from "../../src/config/index.ts";
import { unknownLanguageNote } from "../../src/languages/index.ts";
import { codeChangeOfDiff } from "../../src/patch/code-change.ts";
import { reproduceIssue } from "../../src/reproduce/index.ts";
import { createSandbox, makeWorkCopy, type SandboxPort, type WorkCopy } from "../../src/sandbox/index.ts";
import { fixturePath, tempDir } from "../index/helpers.ts";
import { chatModelFor, fence, promptKind } from "../review/helpers.ts";
import { startScriptedModel } from "../support/scripted-model.ts";

let sandbox: SandboxPort;
const copies: WorkCopy[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const c of copies) await c.dispose();
});

async function copyOf(lang: string): Promise<string> {
  const c = await makeWorkCopy(fixturePath(lang));
  copies.push(c);
  return c.dir;
}

/** A reproducer conversation: the first script passes (no failure), the second fails as asked. */
async function twoAttempts(lang: string, passing: string, failing: string) {
  return startScriptedModel((req) => {
    const kind = promptKind(req);
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (kind === "repro-write") return fence(lang, passing);
    if (kind === "repro-feedback") return fence(lang, failing);
    return { status: 400, body: { error: { message: `unexpected ${kind}` } } };
  });
}

test("detection reads the language folders: a cargo crate is Rust, a CMake project C++, each with its reproducer", async () => {
  const rust = loadRepoConfig(fixturePath("rust"));
  assert.equal(rust.language, "rust");
  assert.deepEqual(
    [rust.reproducer.runtime, rust.reproducer.file, rust.reproducer.command, rust.reproducer.pattern],
    [
      "rust",
      "examples/reproducer.rs",
      "cargo build --offline --quiet --example reproducer 2>&1 && cargo run --offline --quiet --example reproducer",
      "panicked at",
    ],
  );
  const cpp = loadRepoConfig(fixturePath("cpp"));
  assert.equal(cpp.language, "cpp");
  assert.equal(cpp.reproducer.file, "reproducer.cpp");
  assert.match(
    cpp.reproducer.command,
    /-o \/tmp\/af-reproducer reproducer\.cpp \$srcs 2>&1 && \/tmp\/af-reproducer$/,
  );
  assert.equal(detectProject(fixturePath("typescript")).language, "typescript");
  assert.equal(detectProject(fixturePath("python")).runtime, "python");
});

test("c++: the reproducer is compiled with the project's sources and run in the sandbox; a failed assert reproduces", async () => {
  const dir = await copyOf("cpp");
  const config = loadRepoConfig(dir);
  const head = '#include <cassert>\n#include "textkit/buffer.h"\n\nint main() {\n';
  const model = await twoAttempts(
    "cpp",
    `${head}  assert(textkit::words("a  b").size() == 2);\n  return 0;\n}\n`,
    `${head}  assert(textkit::join(textkit::words("a b"), "") == "a b");\n  return 0;\n}\n`,
  );
  try {
    const r = await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config },
      { issue: "join drops the separator", workdir: dir, topLevel: ["include/", "src/", "tests/"] },
    );
    assert.equal(r.status, "reproduced", r.summary);
    assert.equal(r.attempts[0]!.reproduced, false);
    assert.match(r.attempts[0]!.reason, /exited with status 0/);
    assert.match(r.lead ?? "", /Assertion `textkit::join\(textkit::words\("a b"\), ""\) == "a b"' failed/);
    const prompt = model.requests[1]!.messages.at(-1)!.content!;
    assert.match(prompt, /C\+\+17/);
    assert.match(prompt, /reproducer\.cpp/);
  } finally {
    await model.close();
  }
});

test("c++: a reproducer that does not compile never reproduces, whatever it prints", async () => {
  const dir = await copyOf("cpp");
  const config = { ...loadRepoConfig(dir) };
  config.reproducer = { ...config.reproducer, attempts: 1 };
  const broken = 'int main() { undefined_call("Assertion `x\' failed"); }\n';
  const model = await startScriptedModel((req) =>
    promptKind(req) === "has-example" ? '{"has-reproducible-example": true}' : fence("cpp", broken),
  );
  try {
    const r = await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config },
      { issue: "x", workdir: dir },
    );
    assert.equal(r.status, "not-reproduced");
    assert.match(r.attempts[0]!.exec.stdout, /undefined_call/, "the compiler's message is shown");
    assert.notEqual(r.attempts[0]!.exec.exitCode, 0);
  } finally {
    await model.close();
  }
});

const sandboxCargo = existsSync("/usr/bin/cargo");

test("rust: the reproducer is a cargo example run offline in the sandbox; a panic reproduces", {
  skip: !sandboxCargo && "cargo is not in the sandbox's /usr/bin (bash scripts/install.sh --test-tools)",
}, async () => {
  const dir = await copyOf("rust");
  const config = loadRepoConfig(dir);
  const use = "use inventory::{Inventory, Item};\n\nfn main() {\n    let mut inv = Inventory::new();\n";
  const add = '    inv.add(Item { sku: "A".into(), name: "Apple".into(), cents: 5 }, 2);\n';
  const model = await twoAttempts(
    "rust",
    `${use}${add}    assert_eq!(inv.take("A", 1), Ok(1));\n}\n`,
    `${use}${add}    assert_eq!(inv.take("A", 2), Ok(2), "taking all leaves the count");\n}\n`,
  );
  try {
    const r = await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config },
      { issue: "take returns what is left, not what was taken", workdir: dir },
    );
    assert.equal(r.status, "reproduced", r.summary);
    assert.equal(r.attempts[0]!.reproduced, false);
    assert.match(r.lead ?? "", /panicked at/);
    assert.match(r.lead ?? "", /taking all leaves the count/);
  } finally {
    await model.close();
  }
});

test("a repository in no language auto-fix reads: said in the notes, no reproducer guessed, whitespace cannot be told", async () => {
  const dir = tempDir();
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "Main.kt"), 'fun sep(): String = " "\n');
  writeFileSync(join(dir, "README.md"), "# a Kotlin tool\n");
  const config = loadRepoConfig(dir);
  assert.equal(config.language, "unknown");
  assert.equal(config.reproducer.runtime, "none");
  assert.ok(config.notes.includes(unknownLanguageNote()));
  assert.match(unknownLanguageNote(), /none of the languages auto-fix reads \(Python, .*Rust, C\+\+\)/);
  const model = await startScriptedModel(() => ({
    status: 500,
    body: { error: { message: "no call expected" } },
  }));
  try {
    const r = await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config },
      { issue: "sep() should be empty", workdir: dir },
    );
    assert.equal(r.status, "error");
    assert.match(r.summary, /no reproducer: the repository is in no language auto-fix reads/);
    assert.equal(model.requests.length, 0, "no script is asked for");
  } finally {
    await model.close();
  }
  const diff =
    '--- a/src/Main.kt\n+++ b/src/Main.kt\n@@ -1 +1 @@\n-fun sep(): String = " "\n+fun sep(): String = ""\n';
  const change = await codeChangeOfDiff(dir, diff);
  assert.equal(change.changed, null);
  assert.match(change.detail, /could not be told: src\/Main\.kt/);
});
