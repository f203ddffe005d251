/**
 * The local stand-in for a GitHub remote (`auto-fix issue --dry-run`): a bare copy of a real checkout
 * served over git's smart-HTTP protocol on 127.0.0.1. Attacks: a request without the server's token, a
 * request for the repository's files outside the protocol, a configuration file that is a link or too
 * large; and the user's checkout is never written.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MAX_CONFIG_BYTES } from "../../src/config/index.ts";
import { createDryRunGitHub } from "../../src/github/dry-run-github.ts";
import { shallowClone } from "../../src/github/git.ts";
import { prepareLocalRemote, readRemoteFile, serveLocalRemote } from "../../src/github/local-remote.ts";
import { readRepoConfig } from "../../src/issue-run/repo-config.ts";
import { tempDir } from "../support/temp.ts";

const MB = 1024 * 1024;

const git = (cwd: string, args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Dev",
      GIT_AUTHOR_EMAIL: "dev@example.com",
      GIT_COMMITTER_NAME: "Dev",
      GIT_COMMITTER_EMAIL: "dev@example.com",
    },
  });

function makeRepo(files: Record<string, string>, links: Record<string, string> = {}): string {
  const dir = tempDir("auto-fix-local-repo-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  for (const [path, target] of Object.entries(links)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    symlinkSync(target, join(dir, path));
  }
  git(dir, ["init", "-q", "-b", "trunk"]);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", "init"]);
  return dir;
}

test("clone over HTTP needs the server's token; only the smart protocol is served", async () => {
  const repo = makeRepo({ "a.py": "x = 1\n", "secret.txt": "not for the web\n" });
  const out = tempDir("auto-fix-remote-");
  const remote = await prepareLocalRemote(repo, join(out, "remote.git"));
  assert.equal(remote.defaultBranch, "trunk");
  const server = await serveLocalRemote(remote.bareDir);
  try {
    const clone = await shallowClone({ url: server.url, dir: join(out, "clone"), token: server.token });
    assert.equal(clone.branch, "trunk");
    assert.equal(clone.commit, git(repo, ["rev-parse", "HEAD"]).trim());
    await assert.rejects(
      shallowClone({ url: server.url, dir: join(out, "clone2"), token: "guessed" }),
      /401|HTTP Error|auth/i,
    );
    const auth = `Basic ${Buffer.from(`x:${server.token}`).toString("base64")}`;
    for (const path of [
      "/repo.git/config",
      "/repo.git/HEAD",
      "/repo.git/objects/info/packs",
      "/other.git/info/refs",
    ]) {
      const res = await fetch(new URL(path, server.url), { headers: { authorization: auth } });
      assert.equal(res.status, 404, path);
    }
    const unauth = await fetch(`${server.url}/info/refs?service=git-upload-pack`);
    assert.equal(unauth.status, 401);
  } finally {
    await server.close();
  }
  // The checkout was only read.
  assert.equal(git(repo, ["status", "--porcelain"]), "");
  assert.deepEqual(git(repo, ["branch", "--format=%(refname:short)"]).trim().split("\n"), ["trunk"]);
});

test("a clone's pack is streamed through the server, never held: 72 MB of random files pass and the server never holds as much as the pack", async () => {
  const repo = makeRepo({ "README.md": "# big\n" });
  mkdirSync(join(repo, "data"));
  for (let i = 0; i < 3; i++)
    execFileSync("sh", [
      "-c",
      `head -c ${24 * MB} /dev/urandom > "$1"`,
      "sh",
      join(repo, `data/blob-${i}.bin`),
    ]);
  git(repo, ["add", "-A"]);
  git(repo, ["commit", "-q", "-m", "large files"]);
  const out = tempDir("auto-fix-remote-big-");
  const remote = await prepareLocalRemote(repo, join(out, "remote.git"));
  const server = await serveLocalRemote(remote.bareDir);
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
  }, 5);
  try {
    const before = process.memoryUsage().arrayBuffers;
    const clone = await shallowClone({ url: server.url, dir: join(out, "clone"), token: server.token });
    assert.equal(clone.commit, git(repo, ["rev-parse", "HEAD"]).trim());
    // The files arrived whole.
    assert.equal(
      git(join(out, "clone"), ["hash-object", "data/blob-2.bin"]),
      git(repo, ["hash-object", "data/blob-2.bin"]),
    );
    // Held at once by this process (the server's): chunks on their way (and those sent, until the
    // collector frees them), never the 72 MB pack (it was held twice over: 144 MB).
    assert.ok(peak - before < 72 * MB, `the server held ${((peak - before) / MB).toFixed(1)} MB of buffers`);
  } finally {
    clearInterval(timer);
    await server.close();
  }
});

test("the configuration file is read like the command line reads it: a link or an oversized file is refused by name", async () => {
  const linked = makeRepo(
    { "notes.yml": "label: from-the-link\n" },
    { ".github/auto-fix.yml": "../notes.yml" },
  );
  const big = makeRepo({ ".github/auto-fix.yml": `# ${"x".repeat(MAX_CONFIG_BYTES)}\nlabel: big\n` });
  const folder = makeRepo({ ".github/auto-fix.yml/x": "y\n" });
  const good = makeRepo({ ".github/auto-fix.yml": "label: fix-me\nbudgets:\n  runs-per-issue: 2\n" });
  const cases: [string, RegExp | null][] = [
    [linked, /is a link, not a file/],
    [big, /over the limit of 262144 bytes/],
    [folder, /is a folder, not a file/],
    [good, null],
  ];
  for (const [repo, problem] of cases) {
    const out = tempDir("auto-fix-remote-");
    const remote = await prepareLocalRemote(repo, join(out, "remote.git"));
    const github = createDryRunGitHub({
      dir: join(out, "github"),
      owner: "local",
      repo: "r",
      issue: { number: 1, title: "t", body: "b" },
      permission: "write",
      gitToken: "unused",
      readFile: (path, max) => readRemoteFile(remote.bareDir, remote.defaultBranch, path, max),
      diff: async () => "",
    });
    const read = await readRepoConfig(github);
    if (problem === null) {
      assert.deepEqual(read, { ok: true, file: { label: "fix-me", budgets: { "runs-per-issue": 2 } } });
    } else {
      assert.equal(read.ok, false, repo);
      assert.match(read.ok ? "" : read.problems.join("\n"), problem);
      assert.ok(!(read.ok ? "" : read.problems.join("\n")).includes("from-the-link"));
    }
  }
  assert.deepEqual(
    await readRemoteFile(join(tempDir("x"), "none"), "trunk", "a", 10).catch((e: Error) => e.name),
    "ExecError",
  );
  // A ref the repository does not have reads as a missing file, as GitHub's contents API answers it.
  const remote = await prepareLocalRemote(good, join(tempDir("auto-fix-remote-"), "remote.git"));
  assert.deepEqual(await readRemoteFile(remote.bareDir, "no-such-ref", ".github/auto-fix.yml", 1000), {
    kind: "missing",
  });
  assert.equal(
    (await readRemoteFile(remote.bareDir, remote.defaultBranch, ".github/auto-fix.yml", 1000)).kind,
    "file",
  );
});
