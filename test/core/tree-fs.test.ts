import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openTree, splitTreePath, TreeFsError } from "../../src/core/tree-fs.ts";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A tree and, beside it, a "host" folder with a file that must never change. */
function setup(): { root: string; host: string; secret: string } {
  const base = mkdtempSync(join(tmpdir(), "af-treefs-"));
  dirs.push(base);
  const root = join(base, "tree");
  const host = join(base, "host");
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(host);
  const secret = join(host, "secret.txt");
  writeFileSync(secret, "HOST SECRET\n");
  writeFileSync(join(root, "src/app.py"), "x = 1\n");
  return { root, host, secret };
}

const mkfifo = (p: string) => execFileSync("mkfifo", [p]);

const refused = (fn: () => unknown, code: string, message?: RegExp) =>
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof TreeFsError, String(err));
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });

for (const useProcFd of [true, false]) {
  const mode = useProcFd ? "via /proc/self/fd" : "without /proc (path checks)";

  test(`reads and writes regular files inside the tree (${mode})`, () => {
    const { root } = setup();
    const t = openTree(root, { useProcFd });
    assert.equal(t.read("src/app.py").toString(), "x = 1\n");
    assert.equal(t.read("./src//app.py").toString(), "x = 1\n");
    t.write("src/deep/new/mod.py", "y = 2\n");
    assert.equal(readFileSync(join(root, "src/deep/new/mod.py"), "utf8"), "y = 2\n");
    t.write("src/app.py", "x = 3\n");
    assert.equal(readFileSync(join(root, "src/app.py"), "utf8"), "x = 3\n");
    assert.equal(t.readIfExists("src/none.py"), null);
    assert.equal(t.readIfExists("nowhere/none.py"), null);
    assert.equal(t.kind("src"), "directory");
    assert.equal(t.kind("src/app.py"), "file");
    assert.equal(t.kind("missing/x"), "missing");
    assert.deepEqual(
      t.list("src").map((e) => `${e.name}:${e.kind}`),
      ["app.py:file", "deep:directory"],
    );
    t.remove("src/deep/new/mod.py");
    assert.equal(t.kind("src/deep/new/mod.py"), "missing");
    // No temporary file is left behind by the atomic writes.
    assert.deepEqual(readdirSync(join(root, "src")).sort(), ["app.py", "deep"]);
  });

  test(`a link out of the tree is never followed, for reading or writing (${mode})`, () => {
    const { root, host, secret } = setup();
    symlinkSync(secret, join(root, "reproducer.py"));
    symlinkSync(host, join(root, "out"));
    const t = openTree(root, { useProcFd });
    refused(() => t.read("reproducer.py"), "link", /symbolic link that leaves the repository/);
    refused(() => t.read("out/secret.txt"), "link", /out is a symbolic link/);
    refused(() => t.write("out/secret.txt", "pwned"), "link");
    refused(() => t.write("out/new.txt", "pwned"), "link");
    refused(() => t.write("reproducer.py", "pwned"), "link");
    refused(() => t.list("out"), "link");
    assert.equal(t.kind("reproducer.py"), "link");
    // Replacing the link writes a regular file in the tree; the host file is untouched.
    t.write("reproducer.py", "print('ok')\n", { onLink: "replace" });
    assert.ok(lstatSync(join(root, "reproducer.py")).isFile());
    assert.equal(readFileSync(join(root, "reproducer.py"), "utf8"), "print('ok')\n");
    // Removing a link removes the link, not its target.
    t.remove("out");
    assert.equal(readFileSync(secret, "utf8"), "HOST SECRET\n");
    assert.deepEqual(readdirSync(host), ["secret.txt"]);
  });

  test(`links inside the tree are refused too, and named by their real path (${mode})`, () => {
    const { root } = setup();
    mkdirSync(join(root, ".github"));
    writeFileSync(join(root, ".github/ci.yml"), "on: push\n");
    symlinkSync(".github", join(root, "docs"));
    symlinkSync("app.py", join(root, "src/alias.py"));
    const t = openTree(root, { useProcFd });
    refused(() => t.write("docs/ci.yml", "x"), "link", /docs is a symbolic link to \.github/);
    refused(() => t.read("src/alias.py"), "link", /edit src\/app\.py instead/);
    assert.equal(t.resolveLinks("docs/ci.yml"), ".github/ci.yml");
    assert.equal(t.resolveLinks("src/alias.py"), "src/app.py");
    assert.equal(readFileSync(join(root, ".github/ci.yml"), "utf8"), "on: push\n");
  });

  test(`special files are refused without blocking (${mode})`, async () => {
    const { root } = setup();
    mkfifo(join(root, "src/pipe.py"));
    const sock = join(root, "src/sock.py");
    const server = createServer().listen(sock);
    await new Promise((r) => server.once("listening", r));
    try {
      const t = openTree(root, { useProcFd });
      refused(() => t.read("src/pipe.py"), "special", /named pipe/);
      refused(() => t.read("src/sock.py"), "special", /socket/);
      refused(() => t.read("src"), "directory");
      refused(() => t.write("src/pipe.py", "x"), "special");
      assert.equal(t.kind("src/pipe.py"), "special");
      // Replacing puts a regular file where the FIFO was, without opening the FIFO.
      t.write("src/pipe.py", "z = 1\n", { onLink: "replace" });
      assert.equal(readFileSync(join(root, "src/pipe.py"), "utf8"), "z = 1\n");
    } finally {
      server.close();
    }
  });
}

test("reads are capped: a file over the cap is refused, not truncated", () => {
  const { root } = setup();
  writeFileSync(join(root, "big.txt"), Buffer.alloc(4096, 97));
  const t = openTree(root);
  refused(() => t.read("big.txt", { maxBytes: 1000 }), "too-large", /larger than 1000 bytes/);
  assert.equal(t.read("big.txt", { maxBytes: 4096 }).length, 4096);
  // A sparse file that claims gigabytes is refused from its size, without reading it.
  execFileSync("truncate", ["-s", "2G", join(root, "sparse.bin")]);
  refused(() => t.read("sparse.bin"), "too-large");
});

test("a directory with more entries than the cap is refused, not listed in part", () => {
  const { root } = setup();
  for (let i = 0; i < 50; i++) writeFileSync(join(root, `src/f${i}.py`), "");
  const t = openTree(root);
  refused(() => t.list("src", 20), "too-large", /more than 20 entries/);
  assert.equal(t.list("src", 100).length, 51);
});

test("paths that leave the tree are refused before anything is opened", () => {
  for (const bad of ["../x", "a/../../x", "/etc/passwd", "a/\0b", ""]) {
    assert.throws(() => splitTreePath(bad) && openTree(tmpdir()).read(bad), TreeFsError, bad);
  }
  assert.deepEqual(splitTreePath("./a//b/./c"), ["a", "b", "c"]);
});

test("a rewrite keeps the file's mode, and a write never goes through a hard link", () => {
  const { root, secret } = setup();
  writeFileSync(join(root, "run.sh"), "echo 1\n");
  chmodSync(join(root, "run.sh"), 0o755);
  const t = openTree(root);
  t.write("run.sh", "echo 2\n");
  assert.equal(statSync(join(root, "run.sh")).mode & 0o777, 0o755);
  execFileSync("ln", ["-f", secret, join(root, "hard.txt")]);
  t.write("hard.txt", "changed\n");
  assert.equal(readFileSync(secret, "utf8"), "HOST SECRET\n");
  assert.equal(readFileSync(join(root, "hard.txt"), "utf8"), "changed\n");
});

test("a directory swapped for a link while the host works in the tree is not followed", async () => {
  // A process keeps replacing src/ with a link to the host folder and back; every host write must land
  // inside the tree or be refused, and the host folder must stay as it was.
  const { root, host } = setup();
  const swapper = spawn(
    "bash",
    [
      "-c",
      `cd ${JSON.stringify(root)}; while true; do mv src src.real; ln -s ${JSON.stringify(host)} src; rm -f src; mv src.real src; done`,
    ],
    { stdio: "ignore" },
  );
  const t = openTree(root);
  const outcomes = { written: 0, refused: 0 };
  try {
    for (let i = 0; i < 20_000; i++) {
      try {
        t.write(`src/out-${i % 10}.txt`, `${i}\n`, { mkdirs: false });
        outcomes.written++;
      } catch (err) {
        assert.ok(err instanceof TreeFsError, String(err));
        outcomes.refused++;
      }
    }
  } finally {
    swapper.kill("SIGKILL");
    await new Promise((r) => swapper.once("exit", r));
  }
  assert.ok(outcomes.refused > 0, "the swap never raced a write; the test proves nothing");
  assert.deepEqual(readdirSync(host), ["secret.txt"]);
  assert.equal(readFileSync(join(host, "secret.txt"), "utf8"), "HOST SECRET\n");
});

test("naming where a link leads never reads the host's links, even with a directory swapped for a link", async () => {
  // src/ holds `ln -> app.py`; the host folder holds `ln -> host-only-name`. A process keeps swapping
  // src/ with a link to the host folder. Where src/ln leads is src/app.py, or unknown (null) while src/
  // is a link that leaves the tree: the host's link must never be read.
  const { root, host } = setup();
  symlinkSync("app.py", join(root, "src/ln"));
  symlinkSync("host-only-name", join(host, "ln"));
  // The swap is atomic (renameat2 RENAME_EXCHANGE): src/ is a directory or a link, never absent.
  symlinkSync(host, join(root, "src.link"));
  const swap = [
    "import ctypes, os",
    "libc = ctypes.CDLL(None, use_errno=True)",
    "while True: libc.renameat2(-100, b'src', -100, b'src.link', 2)",
  ].join("\n");
  const swapper = spawn("python3", ["-c", swap], { cwd: root, stdio: "ignore" });
  const t = openTree(root);
  const seen = new Map<string, number>();
  try {
    for (let i = 0; i < 20_000; i++) {
      let r: string | null;
      try {
        r = t.resolveLinks("src/ln");
      } catch (err) {
        assert.ok(err instanceof TreeFsError, String(err));
        r = `refused: ${err.code}`;
      }
      seen.set(String(r), (seen.get(String(r)) ?? 0) + 1);
    }
  } finally {
    swapper.kill("SIGKILL");
    await new Promise((r) => swapper.once("exit", r));
  }
  const leaked = [...seen.keys()].filter((k) => k.includes("host-only-name"));
  assert.deepEqual(leaked, [], JSON.stringify([...seen]));
  assert.ok(seen.get("src/app.py"), "the link inside the tree is still named");
});

test("a walk enters each directory once from its parent, never through a link, within its caps", () => {
  const { root, host } = setup();
  // A 300-level chain with a file at the bottom, a link to the host folder on the way, a link to a
  // folder inside the tree, and a FIFO.
  let dir = root;
  for (let i = 0; i < 300; i++) {
    dir = join(dir, "d");
    mkdirSync(dir);
  }
  writeFileSync(join(dir, "deep.py"), "x = 1\n");
  symlinkSync(host, join(root, "src/host"));
  symlinkSync("../d", join(root, "src/inside"));
  mkfifo(join(root, "src/pipe"));
  const t = openTree(root);
  const all = t.walk({ maxDepth: 1000, maxEntries: 10_000 });
  assert.equal(all.truncated, false);
  const byRel = new Map(all.entries.map((e) => [e.rel, e.kind]));
  assert.equal(byRel.get(`${"d/".repeat(300)}deep.py`), "file");
  assert.equal(byRel.get("src/host"), "link");
  assert.equal(byRel.get("src/inside"), "link");
  assert.equal(byRel.get("src/pipe"), "special");
  assert.ok(![...byRel.keys()].some((k) => k.startsWith("src/host/") || k.startsWith("src/inside/")));
  // Depth and entry caps hold, and `descend` is asked before entering.
  const shallow = t.walk({ maxDepth: 5, maxEntries: 10_000, descend: (_rel, name) => name !== "src" });
  assert.ok(shallow.entries.every((e) => e.rel.split("/").length <= 6 && !e.rel.startsWith("src/")));
  const capped = t.walk({ maxDepth: 1000, maxEntries: 50 });
  assert.equal(capped.truncated, true);
  assert.equal(capped.entries.length, 50);
  // Naming an entry by its path opens every folder on it: past 128 folders a path is refused, so a
  // walk by paths (a listing per folder) costs at most 128 opens per folder, not the chain's depth.
  assert.equal(t.list("d/".repeat(128)).length, 1);
  assert.throws(
    () => t.list("d/".repeat(200)),
    (err: unknown) =>
      err instanceof TreeFsError && err.code === "invalid-path" && /more than 128 folders/.test(err.message),
  );
});
