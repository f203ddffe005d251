import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildIndex } from "../../src/index/index.ts";
import { SearchApis } from "../../src/search/search-api.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { tempDir } from "./helpers.ts";

function put(root: string, rel: string, content: string): void {
  const abs = join(root, rel);
  mkdirSync(join(abs, ".."), { recursive: true });
  writeFileSync(abs, content);
}

const REAL_CODE = "class Builder:\n    def create(self, path):\n        return path\n";

/** A repository whose `venv/` and `.venv/` folders are packages of its own (no pyvenv.cfg). */
function repoWithVenvNamedPackages(): string {
  const repo = tempDir();
  put(repo, "app/main.py", "from venv.real_code import Builder\n\ndef main():\n    return Builder()\n");
  put(repo, "venv/__init__.py", "");
  put(repo, "venv/real_code.py", REAL_CODE);
  put(repo, ".venv/tooling.py", "def tool():\n    return 1\n");
  put(repo, "env/settings.py", "def load():\n    return {}\n");
  return repo;
}

async function index(repo: string) {
  const notes: string[] = [];
  const idx = await buildIndex(repo, { cacheDir: null, workers: 0, onNote: (n) => notes.push(n) });
  return { idx, notes, paths: idx.files.map((f) => f.path) };
}

test("a folder named venv (or .venv, env) without pyvenv.cfg is code: indexed and searchable", async () => {
  const repo = repoWithVenvNamedPackages();
  const { idx, paths } = await index(repo);
  for (const p of ["venv/real_code.py", ".venv/tooling.py", "env/settings.py", "app/main.py"]) {
    assert.ok(paths.includes(p), `${p} is indexed`);
  }
  const apis = new SearchApis(idx);
  const cls = await apis.call("search_class", ["Builder"]);
  assert.equal(cls.ok, true);
  assert.match(cls.text, /venv\/real_code\.py/);
  const method = await apis.call("search_method_in_class", ["create", "Builder"]);
  assert.match(method.text, /def create\(self, path\):/);
  const tool = await apis.call("search_method", ["tool"]);
  assert.match(tool.text, /\.venv\/tooling\.py/);
});

test("a folder holding pyvenv.cfg (or conda-meta/) is a virtual environment: skipped, whatever its name", async () => {
  const repo = repoWithVenvNamedPackages();
  put(repo, "venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  put(repo, "tools/py311/pyvenv.cfg", "home = /usr/bin\n");
  put(repo, "tools/py311/lib/python3.11/site-packages/dep/core.py", "class Dep:\n    pass\n");
  put(repo, "tools/py311/bin/helper.py", "def helper():\n    pass\n");
  put(repo, "condaenv/conda-meta/history", "==> 2024-01-01 <==\n");
  put(repo, "condaenv/lib/python3.11/os.py", "def getcwd():\n    pass\n");
  const { idx, notes, paths } = await index(repo);
  assert.ok(!paths.some((p) => p.startsWith("venv/")), "venv/ holds pyvenv.cfg: skipped");
  assert.ok(!paths.some((p) => p.startsWith("tools/py311/")), "an environment under any name is skipped");
  assert.ok(!paths.some((p) => p.startsWith("condaenv/")), "a conda environment is skipped");
  assert.ok(paths.includes(".venv/tooling.py") && paths.includes("app/main.py"), "the rest is indexed");
  const joined = notes.join("\n");
  assert.match(joined, /skipped venv\/: a Python virtual environment \(it holds pyvenv\.cfg\)/);
  assert.match(joined, /skipped condaenv\/: a Python virtual environment \(it holds conda-meta\)/);
  const r = await new SearchApis(idx).call("search_class", ["Builder"]);
  assert.equal(r.ok, false, "nothing inside the environment is searchable");
});

test("a pyvenv.cfg that is a link is never followed: what it points to outside changes nothing", async () => {
  const outside = tempDir();
  put(outside, "pyvenv.cfg", "home = /usr/bin\n");
  // A named pipe outside: a host that opened it through the link would block here for good.
  execFileSync("mkfifo", [join(outside, "pipe")]);
  const results: string[][] = [];
  for (const target of [join(outside, "pyvenv.cfg"), join(outside, "pipe"), join(outside, "missing")]) {
    const repo = repoWithVenvNamedPackages();
    symlinkSync(target, join(repo, "venv/pyvenv.cfg"));
    const { paths } = await index(repo);
    results.push(paths);
    assert.ok(
      paths.includes("venv/real_code.py"),
      `a link to ${target} does not mark venv/ as an environment`,
    );
  }
  assert.deepEqual(results[1], results[0], "the outcome does not depend on what is outside");
  assert.deepEqual(results[2], results[0], "the outcome does not depend on what is outside");
  // A directory link named conda-meta is not a marker either.
  const repo = repoWithVenvNamedPackages();
  symlinkSync(outside, join(repo, "venv/conda-meta"));
  assert.ok((await index(repo)).paths.includes("venv/real_code.py"));
});

test("the private work tree the pipeline indexes keeps a venv/ package and leaves out real environments", async () => {
  const repo = repoWithVenvNamedPackages();
  put(repo, "envs/dev/pyvenv.cfg", "home = /usr/bin\n");
  put(repo, "envs/dev/lib/python3.11/site-packages/dep.py", "def dep():\n    pass\n");
  put(repo, "envs/dev/bin/helper.py", "def helper():\n    pass\n");
  const outside = tempDir();
  put(outside, "pyvenv.cfg", "home = /usr/bin\n");
  symlinkSync(join(outside, "pyvenv.cfg"), join(repo, "venv/pyvenv.cfg"));
  const ws = await createWorkspace(repo);
  try {
    const { paths } = await index(ws.root);
    assert.ok(paths.includes("venv/real_code.py"), "venv/ is code: copied and indexed");
    assert.ok(!existsSync(join(ws.root, "envs/dev")), "a real environment is not copied");
    const withDeps = await createWorkspace(repo, [], { withDependencies: true });
    try {
      assert.ok(existsSync(join(withDeps.root, "envs/dev/bin/helper.py")), "copied when the code runs");
    } finally {
      await withDeps.dispose();
    }
  } finally {
    await ws.dispose();
  }
});
