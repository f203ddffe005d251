import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after as afterAll, test } from "node:test";
import { main } from "../../src/cli/main.ts";
import { computePatch, createDiskRepo, writePatch } from "../../src/patch/index.ts";
import { edit } from "./helpers.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
  });
}

/** A real git repository holding `files`. */
function makeRepo(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), "patch-"));
  dirs.push(dir);
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(dir, p, ".."), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  git(dir, "init", "-q");
  git(dir, "-c", "core.autocrlf=false", "add", "-A");
  git(dir, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init");
  return dir;
}

const FILES: Record<string, string> = {
  "src/app.py": "def main():\n    print('hi')\n    return 0\n",
  "src/crlf.js": "function a() {\r\n  return 1;\r\n}\r\n",
  "src/nonl.go": "package main\n\nfunc f() int {\n\treturn 1\n}",
  "docs/na me.txt": "hello\nworld\n",
};

const ANSWER =
  edit("src/app.py", "    print('hi')", "    print('hello')") +
  edit("src/crlf.js", "  return 1;", "  return 2;") +
  edit("nonl.go", "func f() int {\n    return 1\n}", "func f() int {\n    return 2\n}") +
  edit("docs/na me.txt", "world", "there") +
  '<file new="true">src/new_mod.py</file>\n<original></original>\n<patched>\nVALUE = 1\n</patched>\n';

test("the diff applies with real git apply and gives the same files as writePatch", async () => {
  const dir = makeRepo(FILES);
  const result = await computePatch(createDiskRepo(dir), ANSWER);
  assert.equal(result.status, "APPLICABLE_PATCH", result.feedback);
  const check = makeRepo(FILES);
  execFileSync("git", ["apply", "--check", "-"], { cwd: check, input: result.diff });
  execFileSync("git", ["apply", "-"], { cwd: check, input: result.diff });
  await writePatch(dir, result);
  for (const p of [...Object.keys(FILES), "src/new_mod.py"]) {
    assert.deepEqual(readFileSync(join(dir, p)), readFileSync(join(check, p)), p);
  }
  assert.equal(readFileSync(join(dir, "src/crlf.js"), "utf8"), "function a() {\r\n  return 2;\r\n}\r\n");
  assert.equal(
    readFileSync(join(dir, "src/nonl.go"), "utf8"),
    "package main\n\nfunc f() int {\n\treturn 2\n}",
  );
  // git's own diff of the written tree equals ours, line for line, apart from index lines.
  git(dir, "add", "-N", "src/new_mod.py");
  const gitDiff = git(dir, "diff", "--no-color");
  assert.match(gitDiff, /\+\treturn 2\n \}\n\\ No newline at end of file/);
  assert.match(result.diff, /\+\treturn 2\n \}\n\\ No newline at end of file/);
});

test("writePatch refuses a file that changed since the patch was computed", async () => {
  const dir = makeRepo(FILES);
  const result = await computePatch(createDiskRepo(dir), edit("src/app.py", "    return 0", "    return 1"));
  writeFileSync(join(dir, "src/app.py"), "changed\n");
  await assert.rejects(writePatch(dir, result), /changed since the patch was computed/);
  assert.equal(readFileSync(join(dir, "src/app.py"), "utf8"), "changed\n");
});

test("symlinks that leave the repository are refused", async () => {
  const outside = mkdtempSync(join(tmpdir(), "outside-"));
  dirs.push(outside);
  writeFileSync(join(outside, "secret.py"), "KEY = 1\n");
  const dir = makeRepo({ "src/app.py": "x = 1\n" });
  symlinkSync(join(outside, "secret.py"), join(dir, "src/link.py"));
  symlinkSync(outside, join(dir, "ext"));
  for (const file of ["src/link.py", "ext/secret.py"]) {
    const r = await computePatch(createDiskRepo(dir), edit(file, "KEY = 1", "KEY = 2"));
    assert.equal(r.status, "RAW_PATCH_BUT_UNSAFE_PATH", `${file}: ${r.feedback}`);
    assert.match(r.feedback, /symbolic link that leaves the repository/);
  }
  symlinkSync("app.py", join(dir, "src/alias.py"));
  const alias = await computePatch(createDiskRepo(dir), edit("src/alias.py", "x = 1", "x = 2"));
  assert.equal(alias.status, "RAW_PATCH_BUT_UNSAFE_PATH");
  assert.match(alias.feedback, /symbolic link to src\/app\.py; edit src\/app\.py instead/);
  const created = await computePatch(
    createDiskRepo(dir),
    '<file new="true">ext/evil.py</file><original></original><patched>\nx = 1\n</patched>',
  );
  assert.equal(created.status, "RAW_PATCH_BUT_UNSAFE_PATH");
  assert.equal(readFileSync(join(outside, "secret.py"), "utf8"), "KEY = 1\n");
});

function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  return main(["apply", ...args], {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
  }).then((code) => ({ code, out, err }));
}

test("auto-fix apply: JSON contract, dry run by default, --write writes", async () => {
  const dir = makeRepo(FILES);
  const resp = join(dir, "..", `${dir.split("/").pop()}-answer.txt`);
  dirs.push(resp);
  writeFileSync(resp, edit("src/app.py", "    return 0", "    return 1"));
  const dry = await cli([dir, resp, "--json"]);
  assert.equal(dry.code, 0, dry.err);
  const json = JSON.parse(dry.out) as {
    status: string;
    diff: string;
    edits: { file: string; status: string; message: string }[];
  };
  assert.deepEqual(Object.keys(json).sort(), ["diff", "edits", "status"]);
  assert.equal(json.status, "APPLICABLE_PATCH");
  assert.deepEqual(Object.keys(json.edits[0]!).sort(), ["file", "message", "status"]);
  assert.match(json.diff, /^diff --git a\/src\/app\.py b\/src\/app\.py/);
  assert.equal(readFileSync(join(dir, "src/app.py"), "utf8"), FILES["src/app.py"]);
  const text = await cli([dir, resp]);
  assert.equal(text.code, 0);
  assert.match(
    text.out,
    /status: APPLICABLE_PATCH[\s\S]*- {4}return 0\n\+ {4}return 1[\s\S]*nothing written/,
  );
  const wrote = await cli([dir, resp, "--write"]);
  assert.equal(wrote.code, 0);
  assert.equal(readFileSync(join(dir, "src/app.py"), "utf8"), "def main():\n    print('hi')\n    return 1\n");

  // The same answer again: the file already has <patched>, and the refusal says so.
  const again = await cli([dir, resp, "--json", "--write"]);
  assert.equal(again.code, 1);
  const againJson = JSON.parse(again.out) as { status: string; edits: { message: string }[] };
  assert.equal(againJson.status, "RAW_PATCH_BUT_ALREADY_APPLIED");
  assert.match(againJson.edits[0]!.message, /<patched> is \(lines 3-3\): this edit is already applied/);
  assert.doesNotMatch(againJson.edits[0]!.message, /closest region|Not in the file/);
  const againText = await cli([dir, resp]);
  assert.match(
    againText.out,
    /RAW_PATCH_BUT_ALREADY_APPLIED\n {2}<original> is not in src\/app\.py, but <patched> is/,
  );
  assert.equal(readFileSync(join(dir, "src/app.py"), "utf8"), "def main():\n    print('hi')\n    return 1\n");

  writeFileSync(resp, edit("src/app.py", "    return 42", "    return 2"));
  const bad = await cli([dir, resp, "--json", "--write"]);
  assert.equal(bad.code, 1);
  assert.equal((JSON.parse(bad.out) as { status: string }).status, "RAW_PATCH_BUT_UNMATCHED");

  const usage = await cli([dir]);
  assert.equal(usage.code, 2);
  assert.match(usage.err, /expected <dir> and <response-file>/);
  const missing = await cli([dir, join(dir, "nope.txt")]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /cannot read/);
});
