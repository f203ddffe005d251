import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  createSandbox,
  freezeTree,
  makeWorkCopy,
  overlayCopiesAvailable,
  type SandboxPort,
  type WorkCopy,
  WorkCopyRefusedError,
} from "../../src/sandbox/index.ts";

// Copies of a frozen tree (the prepared tree every candidate of a run starts from) are overlays: they
// cost what changes in them, and nothing a sandboxed process does in one reaches the frozen tree or
// another copy, whatever it does to the files it sees (write, truncate, chmod, delete, a hard link).

const usable = overlayCopiesAvailable();
let sandbox: SandboxPort;
let frozenCopy: WorkCopy;
let frozen: string;

/** Bytes in use on a copy's own tmpfs (its upper layer, work folder and snapshots). */
const usedBytes = (copy: WorkCopy): number => {
  const fs = statfsSync(dirname(copy.dir));
  return (fs.blocks - fs.bfree) * fs.bsize;
};
const ourMounts = (): string[] =>
  readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .filter((l) => new RegExp(`^\\S+ \\S*/auto-fix-work-${process.pid}-[^/ ]+(/[^/ ]+)? `).test(l));

before(async () => {
  if (!usable) return;
  sandbox = await createSandbox("bwrap");
  const src = mkdtempSync(join(tmpdir(), "af-overlay-src-"));
  try {
    mkdirSync(join(src, "pkg", "sub"), { recursive: true });
    writeFileSync(join(src, "pkg", "mod.py"), "VALUE = 1\n");
    writeFileSync(join(src, "pkg", "sub", "deep.py"), "DEEP = 1\n");
    writeFileSync(join(src, "linked.txt"), "shared by two names\n");
    linkSync(join(src, "linked.txt"), join(src, "other-name.txt"));
    // 8 MiB of data: a copy that copied it would show it on its tmpfs.
    writeFileSync(join(src, "data.bin"), Buffer.alloc(8 * 1024 * 1024, 7));
    writeFileSync(join(src, "sparse.img"), "");
    truncateSync(join(src, "sparse.img"), 512 * 1024 * 1024);
    symlinkSync("/etc/hostname", join(src, "outside-link"));
    chmodSync(join(src, "pkg", "mod.py"), 0o644);
    // The frozen tree is itself a work copy (as TreeStates makes it), then frozen and adopted.
    frozenCopy = await makeWorkCopy(src);
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
  frozen = frozenCopy.dir;
  assert.equal(await freezeTree(frozen), true);
  await sandbox.adoptTree?.(frozen);
});

after(async () => {
  await frozenCopy?.dispose();
});

describe("overlay copies of a frozen tree", {
  skip: !usable && "overlay copies need root and overlayfs",
}, () => {
  test("a copy copies nothing: the 8 MiB file and the 512 MiB sparse file cost nothing until written", async () => {
    const copy = await makeWorkCopy(frozen);
    try {
      assert.ok(usedBytes(copy) < 256 * 1024, `the new copy uses ${usedBytes(copy)} bytes`);
      assert.equal(readFileSync(join(copy.dir, "pkg", "mod.py"), "utf8"), "VALUE = 1\n");
      assert.equal(lstatSync(join(copy.dir, "data.bin")).size, 8 * 1024 * 1024);
      assert.equal(lstatSync(join(copy.dir, "outside-link")).isSymbolicLink(), true);
      const r = await sandbox.run({ workdir: copy.dir, command: "cat pkg/mod.py && ls" });
      assert.equal(r.exitCode, 0, r.stderr);
      // Running in it gives nothing to the sandbox's uid by copying it up: still almost nothing used.
      assert.ok(usedBytes(copy) < 256 * 1024, `after a run the copy uses ${usedBytes(copy)} bytes`);
    } finally {
      await copy.dispose();
    }
  });

  test("writes, truncation, chmod, deletion and a write through a hard link stay in the copy", async () => {
    const copy = await makeWorkCopy(frozen);
    try {
      const r = await sandbox.run({
        workdir: copy.dir,
        command: [
          "echo 'VALUE = 2' > pkg/mod.py",
          "echo changed >> linked.txt",
          ": > data.bin",
          "chmod 777 pkg/sub/deep.py",
          "rm -r pkg/sub",
          "printf tail >> sparse.img",
          "ln other-name.txt third-name.txt && echo more >> third-name.txt",
          "echo new > created.py",
        ].join(" && "),
      });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(readFileSync(join(copy.dir, "pkg", "mod.py"), "utf8"), "VALUE = 2\n");
      assert.equal(existsSync(join(copy.dir, "pkg", "sub")), false);
      // The frozen tree is as it was, both names of the hard-linked file included.
      assert.equal(readFileSync(join(frozen, "pkg", "mod.py"), "utf8"), "VALUE = 1\n");
      assert.equal(readFileSync(join(frozen, "linked.txt"), "utf8"), "shared by two names\n");
      assert.equal(readFileSync(join(frozen, "other-name.txt"), "utf8"), "shared by two names\n");
      assert.equal(lstatSync(join(frozen, "data.bin")).size, 8 * 1024 * 1024);
      assert.equal(lstatSync(join(frozen, "pkg", "sub", "deep.py")).mode & 0o777, 0o644);
      assert.equal(lstatSync(join(frozen, "sparse.img")).size, 512 * 1024 * 1024);
      assert.equal(existsSync(join(frozen, "created.py")), false);
      assert.equal(existsSync(join(frozen, "third-name.txt")), false);
      // The sparse file was copied up with its holes: the copy uses kilobytes, not 512 MiB.
      const st = lstatSync(join(copy.dir, "sparse.img"));
      assert.equal(st.size, 512 * 1024 * 1024 + 4);
      assert.ok(usedBytes(copy) < 4 * 1024 * 1024, `the copy uses ${usedBytes(copy)} bytes`);
      // Another copy of the frozen tree sees none of it.
      const other = await makeWorkCopy(frozen);
      try {
        assert.equal(readFileSync(join(other.dir, "pkg", "mod.py"), "utf8"), "VALUE = 1\n");
        assert.equal(existsSync(join(other.dir, "created.py")), false);
      } finally {
        await other.dispose();
      }
    } finally {
      await copy.dispose();
    }
  });

  test("gigabytes written into an overlay copy: stopped at the disk limit", async () => {
    const copy = await makeWorkCopy(frozen, undefined, { diskMb: 32 });
    try {
      const r = await sandbox.run({
        workdir: copy.dir,
        command: "head -c 4294967296 /dev/zero > big; echo wrote-it; sleep 30",
        timeoutMs: 60_000,
      });
      assert.equal(r.limit, "disk", `${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /No space left on device/);
      // The copy's tmpfs is sized like a plain copy's: the tree (were it all rewritten) plus 32 MiB.
      const fs = statfsSync(dirname(copy.dir));
      assert.equal(fs.type, 0x01021994);
      assert.ok(fs.blocks * fs.bsize < 48 * 1024 * 1024, `${fs.blocks * fs.bsize}`);
      assert.ok(lstatSync(join(copy.dir, "big")).size <= 48 * 1024 * 1024);
    } finally {
      await copy.dispose();
    }
  });

  test("hundreds of thousands of files in an overlay copy: stopped at the file-count limit", async () => {
    const copy = await makeWorkCopy(frozen, undefined, { maxFiles: 500 });
    try {
      const r = await sandbox.run({
        workdir: copy.dir,
        command:
          "mkdir d && cd d && i=0; while [ $i -lt 300000 ]; do : > f$i || break; i=$((i+1)); done; sleep 30",
        timeoutMs: 120_000,
      });
      assert.equal(r.limit, "files", `${r.stdout}${r.stderr}`);
      assert.ok(readdirSync(join(copy.dir, "d")).length <= 540);
    } finally {
      await copy.dispose();
    }
  });

  test("a copy of a copy shows its changes (a renamed folder too) and copies only them", async () => {
    const first = await makeWorkCopy(frozen);
    try {
      const r = await sandbox.run({
        workdir: first.dir,
        command: [
          "echo 'VALUE = 3' > pkg/mod.py && rm data.bin && rm -r pkg/sub && mkdir pkg/sub && echo x > pkg/sub/new.py",
          // A folder of the frozen tree renamed (Python's os.rename: no copy-and-delete fallback).
          "python3 -c \"import os; os.rename('pkg', 'renamed')\"",
        ].join(" && "),
      });
      assert.equal(r.exitCode, 0, r.stderr);
      const second = await makeWorkCopy(first.dir);
      try {
        assert.equal(readFileSync(join(second.dir, "renamed", "mod.py"), "utf8"), "VALUE = 3\n");
        assert.equal(existsSync(join(second.dir, "pkg")), false);
        assert.equal(existsSync(join(second.dir, "data.bin")), false);
        assert.deepEqual(readdirSync(join(second.dir, "renamed", "sub")), ["new.py"]);
        assert.equal(readFileSync(join(frozen, "pkg", "sub", "deep.py"), "utf8"), "DEEP = 1\n");
        assert.ok(usedBytes(second) < 256 * 1024, `the copy of the copy uses ${usedBytes(second)} bytes`);
        // A run in the second copy can write the files the first one changed, and changes neither.
        const r2 = await sandbox.run({
          workdir: second.dir,
          command: "echo 'VALUE = 4' > renamed/mod.py && echo y >> renamed/sub/new.py",
        });
        assert.equal(r2.exitCode, 0, r2.stderr);
        assert.equal(readFileSync(join(first.dir, "renamed", "mod.py"), "utf8"), "VALUE = 3\n");
        assert.equal(readFileSync(join(first.dir, "renamed", "sub", "new.py"), "utf8"), "x\n");
        assert.equal(readFileSync(join(frozen, "pkg", "mod.py"), "utf8"), "VALUE = 1\n");
      } finally {
        await second.dispose();
      }
    } finally {
      await first.dispose();
    }
  });

  test("a frozen tree over the caps is not frozen, and its copies are refused as before", async () => {
    const copy = await makeWorkCopy(frozen);
    try {
      await assert.rejects(
        makeWorkCopy(copy.dir, undefined, { maxFileBytes: 64 * 1024 * 1024 }),
        (e: unknown) => {
          assert.ok(e instanceof WorkCopyRefusedError);
          assert.match(e.message, /sparse\.img is .* over the 64\.0 MiB cap for one file/);
          return true;
        },
      );
      await assert.rejects(makeWorkCopy(frozen, undefined, { maxCopyFiles: 3 }), /more than 3 files/);
      const r = await sandbox.run({ workdir: copy.dir, command: "truncate -s 3G huge.img" });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(await freezeTree(copy.dir), false);
      await assert.rejects(makeWorkCopy(copy.dir), /huge\.img is 3\.0 GiB/);
    } finally {
      await copy.dispose();
    }
  });

  test("overlay copies left by a process that died are swept by the next one", () => {
    const src = new URL("../../src/sandbox/", import.meta.url).pathname;
    // A process makes a frozen tree and an overlay copy of it, then is killed before it can clean up.
    const made = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const w = await import(${JSON.stringify(`${src}work-copy.ts`)});
         const base = await w.makeWorkCopy(${JSON.stringify(frozen)});
         await w.freezeTree(base.dir);
         const copy = await w.makeWorkCopy(base.dir);
         console.log(JSON.stringify({ pid: process.pid, base: base.dir, copy: copy.dir }));
         process.kill(process.pid, "SIGKILL");`,
      ],
      { encoding: "utf8" },
    );
    const left = JSON.parse(made.stdout.trim()) as { pid: number; base: string; copy: string };
    const theirs = () =>
      readFileSync("/proc/self/mounts", "utf8")
        .split("\n")
        .filter((l) => new RegExp(`^\\S+ \\S*/auto-fix-work-${left.pid}-[^/ ]+(/[^/ ]+)? `).test(l));
    assert.equal(theirs().filter((l) => l.includes(" overlay ")).length, 1, made.stderr);
    assert.equal(theirs().length, 3, theirs().join("\n"));
    // The next process sweeps them: the overlay first, then the tmpfs mounts under it.
    const swept = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const d = await import(${JSON.stringify(`${src}disk.ts`)}); await d.sweepStaleMounts();`,
      ],
      { encoding: "utf8" },
    );
    assert.equal(swept.status, 0, swept.stderr);
    assert.deepEqual(theirs(), []);
    assert.equal(existsSync(dirname(left.copy)), false);
    assert.equal(existsSync(dirname(left.base)), false);
  });

  test("a folder replaced by a link in a copy of a copy never hands the link's host files to the sandbox uid", async () => {
    // The host folder a hostile run points its link at: a root-owned file the snapshot layer names too.
    const host = mkdtempSync(join(tmpdir(), "af-overlay-host-"));
    chmodSync(host, 0o755);
    writeFileSync(join(host, "victim.txt"), "host file\n", { mode: 0o644 });
    const first = await makeWorkCopy(frozen);
    let second: WorkCopy | null = null;
    try {
      const wrote = await sandbox.run({ workdir: first.dir, command: "echo new > pkg/victim.txt" });
      assert.equal(wrote.exitCode, 0, wrote.stderr);
      // A copy of that copy: its lower layers are a snapshot of the first copy's changes (pkg/victim.txt)
      // and the frozen tree.
      second = await makeWorkCopy(first.dir);
      const linked = await sandbox.run({
        workdir: second.dir,
        command: `rm -rf pkg && ln -s ${host} pkg && ls -l pkg`,
      });
      assert.equal(linked.exitCode, 0, linked.stderr);
      // The next run gives the copy's entries to the sandbox uid first: pkg/victim.txt of the snapshot
      // layer, seen through the merged tree from the host, is now the host's file behind the link (inside
      // the sandbox the link leads nowhere: its /tmp is its own).
      const next = await sandbox.run({ workdir: second.dir, command: "true" });
      assert.equal(next.exitCode, 0, next.stderr);
      const st = lstatSync(join(host, "victim.txt"));
      assert.equal(st.uid, 0, "the host file behind the link was given to the sandbox uid");
      assert.equal(lstatSync(host).uid, 0);
      // The rest of the copy is still the sandbox's to write.
      const ordinary = await sandbox.run({
        workdir: second.dir,
        command: "echo ok > pkg2.txt && cat pkg2.txt",
      });
      assert.equal(ordinary.exitCode, 0, ordinary.stderr);
    } finally {
      await second?.dispose();
      await first.dispose();
      rmSync(host, { recursive: true, force: true });
    }
  });

  test("no copy is left mounted after dispose", async () => {
    const copy = await makeWorkCopy(frozen);
    const mountpoint = dirname(copy.dir);
    assert.equal(ourMounts().filter((l) => l.includes(` ${copy.dir} overlay `)).length, 1);
    await copy.dispose();
    assert.equal(existsSync(mountpoint), false);
    assert.deepEqual(
      ourMounts().filter((l) => l.includes(mountpoint)),
      [],
    );
  });
});
