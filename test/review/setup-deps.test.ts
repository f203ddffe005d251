import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseIssueFile } from "../../src/agents/issue-text.ts";
import { loadRepoConfig } from "../../src/config/index.ts";
import { runFix } from "../../src/pipeline/run-fix.ts";
import { createReproduceReviewHooks } from "../../src/pipeline/stage-hooks.ts";
import { createSandbox, type RunRequest, type SandboxPort } from "../../src/sandbox/index.ts";
import { agentScript, patchAnswer, roleOf, searchSays } from "../support/agent-script.ts";
import { makeTestModel } from "../support/model-harness.ts";
import { type ChatRequest, startScriptedModel } from "../support/scripted-model.ts";
import { FIXTURES, fence, promptKind, verdict } from "./helpers.ts";
import { openCodeFor } from "./open-code.ts";

// Dependency installs belong to the setup step (the only one with network): a reproducer that tries to
// install is not allowed to, its writer is told so, and the setup step's result is kept per repository
// and lock file, so that a second run on the same lock file installs nothing.

let sandbox: SandboxPort;
const dirs: string[] = [];
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
let repo: string;

/** The fixture with its one dependency built as a wheel in vendor/ (installed offline by setup). */
function fixtureRepo(): string {
  const dir = tmp("af-deps-repo-");
  cpSync(join(FIXTURES, "py-deps"), dir, { recursive: true });
  mkdirSync(join(dir, "vendor"));
  const build = [
    "import sys, zipfile",
    "src = open(sys.argv[1]).read()",
    "with zipfile.ZipFile(sys.argv[2], 'w') as z:",
    "    z.writestr('pricetools/__init__.py', src)",
    "    z.writestr('pricetools-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: pricetools\\nVersion: 1.0\\n')",
    "    z.writestr('pricetools-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')",
    "    z.writestr('pricetools-1.0.dist-info/RECORD', 'pricetools/__init__.py,,\\npricetools-1.0.dist-info/METADATA,,\\npricetools-1.0.dist-info/WHEEL,,\\npricetools-1.0.dist-info/RECORD,,\\n')",
  ].join("\n");
  execFileSync("python3", [
    "-c",
    build,
    join(dir, "vendor-src", "pricetools", "__init__.py"),
    join(dir, "vendor", "pricetools-1.0-py3-none-any.whl"),
  ]);
  return dir;
}

before(async () => {
  sandbox = await createSandbox("bwrap");
  repo = fixtureRepo();
});
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The sandbox, with every request it was given kept (what ran, with or without network). */
function recording(inner: SandboxPort): SandboxPort & { requests: RunRequest[] } {
  const requests: RunRequest[] = [];
  return {
    kind: inner.kind,
    requests,
    run: (req) => {
      requests.push(req);
      return inner.run(req);
    },
    capabilities: () => inner.capabilities(),
    ...(inner.adoptTree ? { adoptTree: (dir: string) => inner.adoptTree!(dir) } : {}),
  };
}

const LOCATION = {
  file: "shop/pricing.py",
  method: "apply_discount",
  intended_behavior: "reduce the price by percent/100 of itself",
};
const GOOD = patchAnswer(
  "shop/pricing.py",
  "    return cents(price - price * percent)",
  "    return cents(price - price * percent / 100)",
);
/** A reproducer that first tries to install (two ways), then imports the repository's code. */
const installing = (assertion: string) =>
  [
    "import os, subprocess, sys",
    'subprocess.check_call([sys.executable, "-m", "pip", "install", "--user", "-r", "requirements.txt"])',
    'os.system("pip install requests")',
    "from shop.pricing import apply_discount",
    "result = apply_discount(100, 10)",
    assertion,
    "",
  ].join("\n");

async function run(cacheDir: string) {
  const agents = agentScript({
    search: [searchSays("The bug is in apply_discount.", { bug_locations: [LOCATION] })],
    patch: [GOOD],
  });
  let writes = 0;
  const model = await startScriptedModel((req: ChatRequest, i) => {
    if (roleOf(req) !== "other") return agents(req, i);
    const kind = promptKind(req);
    if (kind === "review") return verdict("yes", "yes");
    if (kind === "has-example") return '{"has-reproducible-example": true}';
    if (String(req.messages[0]?.content ?? "").startsWith("You write regression tests")) return "No test.";
    // First a script that passes on the bug (not reproduced), then one that fails on it.
    return writes++ === 0
      ? fence("python", installing("assert result != 1, 'unreachable'"))
      : fence("python", installing("assert result == 90, f'expected 90, got {result}'"));
  });
  const out = tmp("af-deps-out-");
  const tm = makeTestModel(model.baseURL, { dir: out });
  const hooks = createReproduceReviewHooks();
  const box = recording(sandbox);
  try {
    const result = await runFix(
      { repo, issue: parseIssueFile(readFileSync(join(repo, "ISSUE.md"), "utf8")), out },
      {
        model: tm.model,
        meter: tm.meter,
        recorder: tm.recorder,
        config: loadRepoConfig(repo),
        sandbox: { port: box, problem: null, setupCache: { dir: cacheDir, repo: "example/py-deps" } },
        openCode: openCodeFor,
        hooks,
      },
    );
    return { result, out, requests: model.requests, runs: box.requests };
  } finally {
    await hooks.dispose();
    await model.close();
  }
}

test("a reproducer's dependency installs are not run, its writer is told, and setup's result is reused", async () => {
  const config = loadRepoConfig(repo);
  assert.deepEqual(config.setup, ["python3 -m pip install --user -r requirements.txt"]);
  const cache = tmp("af-deps-cache-");

  const first = await run(cache);
  assert.equal(first.result.status, "fixed", first.result.reason);
  // Setup ran once, with network; nothing else had network.
  const networked = first.runs.filter((r) => r.network);
  assert.deepEqual(
    networked.map((r) => r.command),
    ["python3 -m pip install --user -r requirements.txt"],
  );
  const setup = JSON.parse(readFileSync(join(first.out, "setup.json"), "utf8")) as { ok: boolean }[];
  assert.equal(setup[0]!.ok, true);
  const kept = JSON.parse(readFileSync(join(first.out, "setup-cache.json"), "utf8")) as {
    used: boolean;
    stored: boolean;
    lockFiles: string[];
  };
  assert.equal(kept.used, false);
  assert.equal(kept.stored, true);
  assert.ok(kept.lockFiles.includes("requirements.txt"), kept.lockFiles.join());

  // The reproducer ran (and reproduced: its import of the installed dependency worked), without its installs.
  const reproducer = first.result.reproducer as {
    status: string;
    attempts: number;
    script: string;
    before: { stdout: string; stderr: string };
  };
  assert.equal(reproducer.status, "reproduced");
  assert.equal(reproducer.attempts, 2);
  assert.match(reproducer.before.stderr, /AssertionError: expected 90, got -900/);
  assert.doesNotMatch(reproducer.script, /"pip", "install"|pip install requests/);
  assert.match(reproducer.script, /pass {2}# dependency install removed/);
  assert.doesNotMatch(
    `${reproducer.before.stdout}${reproducer.before.stderr}`,
    /pip|Looking in|Requirement/i,
  );

  // The prompt says plainly that the network is off and the dependencies are installed.
  const write = first.requests.find((r) => promptKind(r) === "repro-write")!;
  const system = String(write.messages[0]?.content);
  assert.match(system, /The network is off/);
  assert.match(system, /dependencies are already installed/);
  assert.match(
    String(write.messages.at(-1)?.content),
    /The network is off and the dependencies are already installed/,
  );
  // The second attempt was told, in one sentence, that the first one's installs did not run.
  const feedback = first.requests.find((r) => promptKind(r) === "repro-feedback")!;
  const told = String(feedback.messages.at(-1)?.content);
  assert.match(
    told,
    /The dependency installs in your script \([^)]*\) were not run: the sandbox has no network, and the dependencies are already installed as far as the repository's setup step allowed\./,
  );

  // A second run with the same lock file installs nothing: setup's kept result is used, and said so.
  const second = await run(cache);
  assert.equal(second.result.status, "fixed", second.result.reason);
  assert.deepEqual(
    second.runs.filter((r) => r.network).map((r) => r.command),
    [],
    "nothing ran with network",
  );
  assert.equal(existsSync(join(second.out, "setup.json")), false, "no setup command ran");
  const used = JSON.parse(readFileSync(join(second.out, "setup-cache.json"), "utf8")) as { used: boolean };
  assert.equal(used.used, true);
  // The run's notes (in its report) say so.
  assert.match(
    readFileSync(join(second.out, "report.md"), "utf8"),
    /The setup step did not run: its result from an earlier run of this repository with the same setup commands, setup scripts, manifests and lock files \([^)]*requirements\.txt[^)]*\) was taken from the cache: only the dependency folders it installed/,
  );
  // The restored dependency is importable: the reproducer reproduced again.
  assert.equal((second.result.reproducer as { status: string }).status, "reproduced");
});

test("a changed lock file is a different setup: it runs again", async () => {
  const cache = tmp("af-deps-cache2-");
  const spec = { dir: cache, repo: "example/py-deps" };
  const { setupCacheKey } = await import("../../src/sandbox/index.ts");
  const a = setupCacheKey(repo, spec, ["python3 -m pip install --user -r requirements.txt"], "bwrap")!;
  const other = tmp("af-deps-other-");
  cpSync(repo, other, { recursive: true });
  execFileSync("sh", ["-c", "echo '# pinned differently' >> requirements.txt"], { cwd: other });
  const b = setupCacheKey(other, spec, ["python3 -m pip install --user -r requirements.txt"], "bwrap")!;
  assert.notEqual(a.key, b.key);
  // Same lock files, another repository: another key too.
  const c = setupCacheKey(
    repo,
    { ...spec, repo: "example/other" },
    ["python3 -m pip install --user -r requirements.txt"],
    "bwrap",
  )!;
  assert.notEqual(a.key, c.key);
  // Same everything: the same key.
  assert.equal(
    setupCacheKey(repo, spec, ["python3 -m pip install --user -r requirements.txt"], "bwrap")!.key,
    a.key,
  );
});
