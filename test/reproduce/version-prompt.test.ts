import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { reproduceIssue } from "../../src/reproduce/index.ts";
import {
  createSandbox,
  makeWorkCopy,
  readRuntimeLine,
  type SandboxPort,
  type WorkCopy,
} from "../../src/sandbox/index.ts";
import { chatModelFor, FIXTURES, fence, promptKind } from "../review/helpers.ts";
import { startScriptedModel } from "../support/scripted-model.ts";

// The reproducer is written for the project's own version, read from its manifest; without one the
// prompt names no version at all.

let sandbox: SandboxPort;
const copies: WorkCopy[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(async () => {
  for (const c of copies) await c.dispose();
});

async function writePrompt(tweak: (dir: string) => void, runtime?: string): Promise<string> {
  const copy = await makeWorkCopy(join(FIXTURES, "py-shop"));
  copies.push(copy);
  tweak(copy.dir);
  const model = await startScriptedModel((req) =>
    promptKind(req) === "has-example"
      ? '{"has-reproducible-example": true}'
      : fence("python", "from shop.pricing import apply_discount\nassert apply_discount(100, 10) == 90\n"),
  );
  try {
    await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config: loadRepoConfig(copy.dir) },
      { issue: "apply_discount(100, 10) returns -900", workdir: copy.dir, ...(runtime ? { runtime } : {}) },
    );
    return String(model.requests[1]!.messages.at(-1)!.content);
  } finally {
    await model.close();
  }
}

test("the reproducer prompt names the project's version from its manifest, and none without one", async () => {
  const versioned = await writePrompt((dir) =>
    writeFileSync(
      join(dir, "pyproject.toml"),
      '[project]\nname = "shop"\nversion = "2.3.1"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    ),
  );
  assert.match(
    versioned,
    /Project: shop version 2\.3\.1 \(from pyproject\.toml\)\.\nWrite for this version only\./,
  );
  const bare = await writePrompt(() => {});
  assert.doesNotMatch(bare, /version only|Project: /);
});

test("the runtime's version as the sandbox runs it stands beside the project's", async () => {
  const tree = await makeWorkCopy(join(FIXTURES, "py-shop"));
  copies.push(tree);
  const runtime = await readRuntimeLine(sandbox, tree.dir, ["python"]);
  assert.match(runtime, /^Runtime in the sandbox: Python \d+\.\d+/);
  const both = await writePrompt(
    (dir) => writeFileSync(join(dir, "pyproject.toml"), '[project]\nname = "shop"\nversion = "2.3.1"\n'),
    runtime,
  );
  assert.ok(
    both.includes(
      `Project: shop version 2.3.1 (from pyproject.toml).\n${runtime}\nWrite for these versions only.`,
    ),
    both,
  );
});
