import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { isNonSourceDir, isVendoredPath, isVirtualEnvDir, notVirtualEnv } from "../../src/core/path-rules.ts";
import { checkEditablePath } from "../../src/runners/shared/conventions-test-config.ts";
import { openTree } from "../../src/core/tree-fs.ts";
import { computePatch, createDiskRepo, createMemoryRepo, writePatch } from "../../src/patch/index.ts";

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "af-venv-rules-"));
  made.push(d);
  return d;
}
function put(root: string, rel: string, content: string): void {
  const abs = join(root, rel);
  mkdirSync(join(abs, ".."), { recursive: true });
  writeFileSync(abs, content);
}

test("virtual environments are not known by name: venv/, .venv/, env/ are ordinary folders to the path rules", () => {
  for (const name of ["venv", ".venv", "env", ".env", "virtualenv", ".virtualenv"]) {
    assert.equal(isNonSourceDir(name), false, name);
    assert.equal(isVendoredPath(`${name}/real_code.py`), false, name);
    if (name === ".env") continue;
    assert.equal(checkEditablePath(`${name}/real_code.py`, []).ok, true, name);
  }
  // `.env` at any depth is an environment file that direnv and dotenv loaders read on `cd` or start: a
  // patch may not write it, nor anything under a folder of that name (protected as a workspace file,
  // not as a virtual environment).
  const dotEnv = checkEditablePath(".env/real_code.py", []);
  assert.equal(dotEnv.ok, false);
  assert.match(
    dotEnv.ok ? "" : dotEnv.message,
    /^\.env\/real_code\.py is loaded into the shell on `cd` into its folder \(direnv, mise, dotenv\)/,
  );
  // Installed packages stay out by name, wherever they are: a venv's site-packages among them.
  for (const path of [
    "node_modules/x/index.js",
    ".venv/lib/python3.11/site-packages/requests/api.py",
    "usr/lib/python3/dist-packages/x.py",
    ".tox/py311/lib/x.py",
  ]) {
    assert.equal(isVendoredPath(path), true, path);
    assert.equal(checkEditablePath(path, []).ok, false, path);
  }
  for (const name of [
    "dist",
    "build",
    "vendor",
    "third_party",
    "target",
    "pkg.egg-info",
    ".git",
    "node_modules",
  ]) {
    assert.equal(isNonSourceDir(name), true, name);
  }
});

test("a folder is a virtual environment when it holds a regular pyvenv.cfg or a conda-meta folder, read without following links", () => {
  const root = tempDir();
  const outside = tempDir();
  put(outside, "pyvenv.cfg", "home = /usr/bin\n");
  execFileSync("mkfifo", [join(outside, "fifo")]);
  put(root, "real/pyvenv.cfg", "home = /usr/bin\n");
  put(root, "conda/conda-meta/history", "");
  put(root, "code/venv/real_code.py", "x = 1\n");
  mkdirSync(join(root, "linked"));
  symlinkSync(join(outside, "pyvenv.cfg"), join(root, "linked/pyvenv.cfg"));
  mkdirSync(join(root, "piped"));
  symlinkSync(join(outside, "fifo"), join(root, "piped/pyvenv.cfg"));
  mkdirSync(join(root, "condalink"));
  symlinkSync(outside, join(root, "condalink/conda-meta"));
  mkdirSync(join(root, "dirmarker/pyvenv.cfg"), { recursive: true });
  // A folder reached through a link is not looked into at all.
  symlinkSync(join(root, "real"), join(root, "via-link"));
  const tree = openTree(root);
  const isVenv = (d: string) => isVirtualEnvDir(d, tree.kind);
  assert.equal(isVenv("real"), true);
  assert.equal(isVenv("conda"), true);
  assert.equal(isVenv("code/venv"), false);
  assert.equal(isVenv("linked"), false, "a link named pyvenv.cfg is not a marker");
  assert.equal(isVenv("piped"), false, "a link to a named pipe is neither opened nor a marker");
  assert.equal(isVenv("condalink"), false, "a link named conda-meta is not a marker");
  assert.equal(isVenv("dirmarker"), false, "a folder named pyvenv.cfg is not a marker");
  assert.equal(isVenv("via-link"), false, "a path through a link is never followed");
  assert.equal(isVenv("missing"), false);
  // With the file system's answer, the path rules refuse edits inside a real environment only.
  const facts = { isVirtualEnvDir: isVenv };
  assert.equal(checkEditablePath("real/bin/activate_this.py", [], facts).ok, false);
  assert.equal(checkEditablePath("conda/lib/os.py", [], facts).ok, false);
  assert.equal(checkEditablePath("code/venv/real_code.py", [], facts).ok, true);
  assert.equal(checkEditablePath("linked/mod.py", [], facts).ok, true);
  // A tree walk leaves out the contents of environments, from each folder's own listing.
  const { entries } = tree.walk({ maxDepth: 8, maxEntries: 1000, keep: notVirtualEnv });
  const rels = entries.map((e) => e.rel);
  assert.ok(
    rels.includes("real") && !rels.includes("real/pyvenv.cfg"),
    "the folder is listed, not its contents",
  );
  assert.ok(!rels.some((r) => r.startsWith("conda/")));
  assert.ok(rels.includes("code/venv/real_code.py"));
  assert.ok(rels.includes("linked/pyvenv.cfg"));
});

test("a patch is written into a folder named venv that is code, and refused inside a real environment", async () => {
  const root = tempDir();
  put(root, "venv/real_code.py", "def f():\n    return 1\n");
  put(root, "env311/pyvenv.cfg", "home = /usr/bin\n");
  put(root, "env311/bin/tool.py", "def g():\n    return 1\n");
  const repo = createDiskRepo(root);
  const code = await computePatch(
    repo,
    "<file>venv/real_code.py</file>\n<original>\n    return 1\n</original>\n<patched>\n    return 2\n</patched>",
  );
  assert.equal(code.status, "APPLICABLE_PATCH");
  await writePatch(root, code);
  assert.match(readFileSync(join(root, "venv/real_code.py"), "utf8"), /return 2/);
  const inEnv = await computePatch(
    repo,
    "<file>env311/bin/tool.py</file>\n<original>\n    return 1\n</original>\n<patched>\n    return 2\n</patched>",
  );
  assert.equal(inEnv.status, "RAW_PATCH_BUT_UNSAFE_PATH");
  assert.match(inEnv.edits[0]?.message ?? "", /env311\/bin\/tool.py is vendored/);
  // The write is the last gate: a result computed without the facts is refused there too.
  const forged = {
    ...code,
    changedFiles: code.changedFiles.map((f) => ({ ...f, path: "env311/bin/tool.py" })),
  };
  await assert.rejects(writePatch(root, forged), /env311\/bin\/tool.py: env311\/bin\/tool.py is vendored/);
  assert.match(readFileSync(join(root, "env311/bin/tool.py"), "utf8"), /return 1/, "nothing written there");
});

test("an in-memory repository answers the same: its own pyvenv.cfg or conda-meta/ marks an environment", async () => {
  const edit = (path: string) =>
    `<file>${path}</file>\n<original>\n    return 1\n</original>\n<patched>\n    return 2\n</patched>`;
  const body = "def f():\n    return 1\n";
  const repo = createMemoryRepo({
    "venv/real_code.py": body,
    "py/pyvenv.cfg": "home = /usr/bin\n",
    "py/bin/tool.py": body,
    "conda/conda-meta/history": "",
    "conda/lib/mod.py": body,
  });
  assert.equal((await computePatch(repo, edit("venv/real_code.py"))).status, "APPLICABLE_PATCH");
  assert.equal((await computePatch(repo, edit("py/bin/tool.py"))).status, "RAW_PATCH_BUT_UNSAFE_PATH");
  assert.equal((await computePatch(repo, edit("conda/lib/mod.py"))).status, "RAW_PATCH_BUT_UNSAFE_PATH");
});
