import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  createSandbox,
  freezeTree,
  makeWorkCopy,
  overlayCopiesAvailable,
  type SandboxPort,
  forgetShared,
  sharedTreesOf,
  shareTrees,
  type WorkCopy,
} from "../../src/sandbox/index.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";

// Installed dependencies (node_modules, a virtual environment) of the tree a job starts from are not
// copied into its work copies: sandboxed runs get the source's folders bound read-only. The tests still
// load modules from them; nothing a sandboxed process does changes them.

const usable = overlayCopiesAvailable();
let sandbox: SandboxPort;
let src: string;
let base: WorkCopy;
const copies: WorkCopy[] = [];
const LIB = "module.exports = (s, n) => String(s).padStart(n, '.');\n";
let venvSite = "";

before(async () => {
  if (!usable) return;
  sandbox = await createSandbox("bwrap");
  src = mkdtempSync(join(tmpdir(), "af-shared-deps-"));
  writeFileSync(join(src, "package.json"), '{"name":"lib","main":"index.js"}\n');
  writeFileSync(
    join(src, "index.js"),
    "const pad = require('left-dots');\nmodule.exports = (s) => pad(s, 5);\n",
  );
  mkdirSync(join(src, "test"));
  writeFileSync(
    join(src, "test", "lib.test.js"),
    "const assert = require('node:assert');\nassert.equal(require('../')('ab'), '...ab');\nconsole.log('lib ok');\n",
  );
  const pkg = join(src, "node_modules", "left-dots");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), '{"name":"left-dots","main":"index.js"}\n');
  writeFileSync(join(pkg, "index.js"), LIB);
  // A real virtual environment with one installed module.
  execFileSync("python3", ["-m", "venv", "--without-pip", join(src, ".venv")]);
  const lib = join(src, ".venv", "lib");
  venvSite = join(lib, readdirSync(lib)[0]!, "site-packages");
  writeFileSync(join(venvSite, "dots.py"), "DOTS = '...'\n");
  // As TreeStates prepares a job's trees: a copy that shares the dependencies, frozen and adopted.
  base = await makeWorkCopy(src, tmpdir(), { shareDependencies: true });
  assert.equal(await freezeTree(base.dir), true);
  await sandbox.adoptTree?.(base.dir);
});

after(async () => {
  for (const c of copies) await c.dispose().catch(() => {});
  await base?.dispose();
  if (src) rmSync(src, { recursive: true, force: true });
});

const candidate = async (): Promise<WorkCopy> => {
  const c = await makeWorkCopy(base.dir);
  copies.push(c);
  return c;
};
const run = (dir: string, command: string) => sandbox.run({ workdir: dir, command, timeoutMs: 60_000 });

describe("shared dependency trees", { skip: usable ? false : "overlay copies need root" }, () => {
  test("the copy holds empty folders in their place, and a test run loads modules from them", async () => {
    assert.deepEqual(readdirSync(join(base.dir, "node_modules")), []);
    assert.deepEqual(readdirSync(join(base.dir, ".venv")), []);
    const c = await candidate();
    assert.deepEqual(readdirSync(join(c.dir, "node_modules")), []);
    const js = await run(c.dir, "node test/lib.test.js");
    assert.equal(js.exitCode, 0, js.stderr);
    assert.match(js.stdout, /lib ok/);
    const py = await run(c.dir, ".venv/bin/python -c 'import dots; print(dots.DOTS + \"py\")'");
    assert.equal(py.exitCode, 0, py.stderr);
    assert.match(py.stdout, /\.\.\.py/);
    // A copy of a copy (the reproducer's copy of a candidate tree) shares them too.
    const again = await makeWorkCopy(c.dir);
    copies.push(again);
    const r = await run(again.dir, "node test/lib.test.js");
    assert.equal(r.exitCode, 0, r.stderr);
  });

  test("sandboxed code cannot change the shared node_modules or virtual environment", async () => {
    const c = await candidate();
    const attacks = [
      "echo 'module.exports = () => \"owned\"' > node_modules/left-dots/index.js",
      "printf x >> node_modules/left-dots/index.js",
      "rm -rf node_modules/left-dots",
      "touch node_modules/planted.js",
      "chmod 777 node_modules/left-dots/index.js",
      "mv node_modules gone",
      "ln node_modules/left-dots/index.js hard.js && echo owned >> hard.js",
      "echo 'DOTS = 1' > .venv/lib/*/site-packages/dots.py",
      "rm -f .venv/pyvenv.cfg",
    ];
    for (const attack of attacks) {
      const r = await run(c.dir, attack);
      assert.notEqual(r.exitCode, 0, `${attack} succeeded: ${r.stdout}${r.stderr}`);
    }
    const pkg = join(src, "node_modules", "left-dots");
    assert.equal(readFileSync(join(pkg, "index.js"), "utf8"), LIB);
    assert.deepEqual(readdirSync(join(src, "node_modules")).sort(), ["left-dots"]);
    assert.equal(statSync(join(pkg, "index.js")).mode & 0o777, 0o644);
    assert.equal(readFileSync(join(venvSite, "dots.py"), "utf8"), "DOTS = '...'\n");
    assert.equal(existsSync(join(src, ".venv", "pyvenv.cfg")), true);
    // An ordinary run in the same copy still works.
    const ok = await run(c.dir, "node test/lib.test.js");
    assert.equal(ok.exitCode, 0, ok.stderr);
  });

  test("a link put in a shared folder's place gets no bind: nothing lands where it points", async () => {
    const c = await candidate();
    const target = mkdtempSync(join(tmpdir(), "af-shared-target-"));
    try {
      rmSync(join(c.dir, "node_modules"), { recursive: true });
      symlinkSync(target, join(c.dir, "node_modules"));
      const r = await run(c.dir, "node test/lib.test.js");
      assert.notEqual(r.exitCode, 0, "the module was found through the link");
      assert.match(r.stderr, /Cannot find module/);
      assert.deepEqual(readdirSync(target), []);
      // The virtual environment's place is still a real folder: it is still bound.
      const py = await run(c.dir, ".venv/bin/python -c 'import dots'");
      assert.equal(py.exitCode, 0, py.stderr);
    } finally {
      rmSync(target, { recursive: true, force: true });
    }
  });

  test("the pipeline's work tree leaves them out; a job shares them, or copies them in when asked", async () => {
    const ws = await createWorkspace(src, [], { withDependencies: "shared" });
    try {
      assert.deepEqual(ws.dependencies.map((d) => d.rel).sort(), [".venv", "node_modules"]);
      assert.deepEqual(readdirSync(join(ws.root, "node_modules")), []);
      shareTrees(ws.root, ws.dependencies);
      // A job whose setup writes dependencies (or a sandbox that binds nothing): copied in, not shared.
      const copied = await makeWorkCopy(ws.root, tmpdir(), { shareDependencies: false });
      copies.push(copied);
      assert.equal(readFileSync(join(copied.dir, "node_modules", "left-dots", "index.js"), "utf8"), LIB);
      assert.deepEqual(sharedTreesOf(copied.dir), []);
      // A job with nothing to install: shared, and its test run loads them.
      const shared = await makeWorkCopy(ws.root, tmpdir(), { shareDependencies: true });
      copies.push(shared);
      assert.deepEqual(readdirSync(join(shared.dir, "node_modules")), []);
      const r = await run(shared.dir, "node test/lib.test.js && .venv/bin/python -c 'import dots'");
      assert.equal(r.exitCode, 0, r.stderr);
    } finally {
      forgetShared(ws.root);
      await ws.dispose();
    }
  });
});
