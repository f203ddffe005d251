/**
 * The job's clone, against a real `git http-backend` behind token auth on 127.0.0.1: a repository past
 * the operator's cap is refused by name and leaves nothing on disk (a big pack, and a small pack whose
 * files would be big); an ordinary clone (default branch, a named branch, a tag) works; the token is
 * never on any process's command line.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CloneTooLargeError, maxCloneBytes } from "../../src/github/clone.ts";
import { shallowClone } from "../../src/github/git.ts";
import { startGitServer, type GitServer } from "../support/git-server.ts";
import { tempDir } from "../support/temp.ts";

const MB = 1024 * 1024;
let server: GitServer;
const token = `ghs_${randomBytes(18).toString("hex")}`;
let small: string;
let bigPack: string;
let bigFiles: string;

before(async () => {
  server = await startGitServer();
  server.tokens.add(token);
  small = server.createRepo("acme/small", { "src/app.py": "def f():\n    return 1\n", "README.md": "hi\n" });
  server.commitFiles("acme/small", "feature", { "src/app.py": "def f():\n    return 2\n" });
  server.git("acme/small", ["tag", "v1", "main"]);
  // Random bytes do not compress: the pack itself is about 3 MB.
  bigPack = server.createRepo("acme/big-pack", { "data.txt": randomBytes(3 * MB).toString("base64") });
  // One letter repeated compresses to almost nothing: a tiny pack whose checkout would write 8 MB.
  bigFiles = server.createRepo("acme/big-files", { "zeros.txt": "a".repeat(8 * MB) });
});
after(() => server.close());

describe("the clone's size cap", () => {
  it("refuses a repository whose pack passes the cap, naming the size, the cap and the setting", async () => {
    const dir = join(tempDir("clone-"), "repo");
    await assert.rejects(shallowClone({ url: bigPack, dir, token, maxBytes: 1 * MB }), (error: unknown) => {
      assert.ok(error instanceof CloneTooLargeError, String(error));
      assert.equal(error.stage, "pack");
      assert.ok(error.bytes > 1 * MB);
      assert.match(
        error.message,
        /too large to clone: .* \d+\.\d MB, over the cap of 1\.0 MB set by AUTO_FIX_MAX_CLONE_MB/,
      );
      return true;
    });
    assert.equal(existsSync(dir), false, "nothing of the clone is left on disk");
  });

  it("refuses a small pack whose files would pass the cap, before any file is written", async () => {
    const dir = join(tempDir("clone-"), "repo");
    await assert.rejects(shallowClone({ url: bigFiles, dir, token, maxBytes: 2 * MB }), (error: unknown) => {
      assert.ok(error instanceof CloneTooLargeError, String(error));
      assert.equal(error.stage, "files");
      assert.match(
        error.message,
        /its pack and files come to 8\.\d MB, over the cap of 2\.0 MB set by AUTO_FIX_MAX_CLONE_MB/,
      );
      return true;
    });
    assert.equal(existsSync(dir), false);
  });

  it("clones the same repositories under a cap they fit in", async () => {
    const dir = join(tempDir("clone-"), "repo");
    const clone = await shallowClone({ url: bigFiles, dir, token, maxBytes: 64 * MB });
    assert.equal(clone.branch, "main");
    assert.equal((await readFile(join(dir, "zeros.txt"), "utf8")).length, 8 * MB);
  });

  it("reads the cap from the operator's environment, and refuses a bad value by name", () => {
    assert.equal(maxCloneBytes({}), 1024 * MB);
    assert.equal(maxCloneBytes({ AUTO_FIX_MAX_CLONE_MB: "5" }), 5 * MB);
    for (const bad of ["0", "-3", "lots", "Infinity"]) {
      assert.throws(
        () => maxCloneBytes({ AUTO_FIX_MAX_CLONE_MB: bad }),
        /AUTO_FIX_MAX_CLONE_MB must be a positive number of megabytes/,
      );
    }
  });
});

describe("an ordinary clone", () => {
  it("clones the default branch, a named branch and a tag, depth 1", async () => {
    const root = tempDir("clone-");
    const main = await shallowClone({ url: small, dir: join(root, "main"), token });
    assert.equal(main.branch, "main");
    assert.match(main.commit, /^[0-9a-f]{40}$/);
    assert.equal(await readFile(join(root, "main", "src/app.py"), "utf8"), "def f():\n    return 1\n");
    const feature = await shallowClone({ url: small, dir: join(root, "feature"), token, ref: "feature" });
    assert.equal(feature.branch, "feature");
    assert.equal(await readFile(join(root, "feature", "src/app.py"), "utf8"), "def f():\n    return 2\n");
    const tag = await shallowClone({ url: small, dir: join(root, "tag"), token, ref: "v1" });
    assert.equal(tag.commit, main.commit);
    const shallow = readFileSync(join(root, "feature", ".git", "shallow"), "utf8")
      .trim()
      .split("\n");
    assert.deepEqual(shallow, [feature.commit], "depth 1");
    const config = readFileSync(join(root, "main", ".git", "config"), "utf8");
    assert.ok(!config.includes(token), "the token is not stored in the clone");
  });

  it("fails with git's reason, without the token, and leaves nothing behind", async () => {
    const root = tempDir("clone-");
    await assert.rejects(
      shallowClone({ url: small, dir: join(root, "a"), token, ref: "no-such-branch" }),
      (e: Error) => {
        assert.match(e.message, /git clone failed .*no-such-branch/);
        assert.ok(!e.message.includes(token));
        return true;
      },
    );
    assert.equal(existsSync(join(root, "a")), false);
    await assert.rejects(
      shallowClone({ url: small, dir: join(root, "b"), token: "wrong" }),
      /git clone failed/,
    );
    await assert.rejects(
      shallowClone({ url: small, dir: join(root, "c"), token, ref: "--upload-pack=evil" }),
      /not a branch or tag name/,
    );
    await assert.rejects(
      shallowClone({ url: `file://${server.root}/acme/small.git`, dir: join(root, "d"), token }),
      /must be http\(s\)/,
    );
  });

  it("never puts the token on a command line", async () => {
    const seen = new Set<string>();
    let leaked = "";
    let scanning = true;
    const scan = async (): Promise<void> => {
      while (scanning) {
        for (const pid of await readdir("/proc").catch(() => [])) {
          if (!/^\d+$/.test(pid)) continue;
          const cmd = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
          if (cmd.includes(token)) leaked = cmd;
          if (cmd.includes("acme/big-pack")) seen.add(cmd.split("\0").slice(0, 2).join(" "));
        }
        await new Promise((r) => setImmediate(r));
      }
    };
    const scanning$ = scan();
    const dir = join(tempDir("clone-"), "repo");
    await shallowClone({ url: bigPack, dir, token, maxBytes: 64 * MB });
    scanning = false;
    await scanning$;
    assert.equal(leaked, "", "no command line holds the token");
    assert.ok(seen.size > 0, `the scan saw git's processes at work (${[...seen].join(", ")})`);
    assert.ok(readdirSync(dir).includes("data.txt"));
  });
});
