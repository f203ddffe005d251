import assert from "node:assert/strict";
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  createSandbox,
  makeWorkCopy,
  type SandboxPort,
  WorkCopyRefusedError,
} from "../../src/sandbox/index.ts";

// A sandboxed run tries to fill the host's disk three ways: bytes, files, and a sparse file that costs
// nothing where it is made and its full size in a naive host-side copy. Each is stopped or refused.

const isRoot = process.getuid?.() === 0;
let sandbox: SandboxPort;
let src: string;

before(async () => {
  sandbox = await createSandbox("bwrap");
  src = mkdtempSync(join(tmpdir(), "af-disk-"));
  writeFileSync(join(src, "a.py"), "print('hi')\n");
});
after(() => rmSync(src, { recursive: true, force: true }));

const ourMounts = (): string[] =>
  readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .filter((l) => new RegExp(`^\\S+ \\S*/auto-fix-work-${process.pid}-[^/ ]+(/[^/ ]+)? `).test(l));

describe("disk limits of a work tree", { skip: !isRoot && "sized tmpfs copies need root" }, () => {
  test("gigabytes written into the work tree: stopped at the disk limit, the host's disk untouched", async () => {
    const copy = await makeWorkCopy(src, undefined, { diskMb: 32 });
    const mountpoint = dirname(copy.dir);
    try {
      const r = await sandbox.run({
        workdir: copy.dir,
        command: "head -c 4294967296 /dev/zero > big; echo wrote-it; sleep 30",
        timeoutMs: 60_000,
      });
      assert.equal(r.limit, "disk", `${r.stdout}${r.stderr}`);
      assert.equal(r.exitCode, null);
      // The write failed on the full tree ("No space left on device"); the message may be cut short when
      // the process is stopped at the limit while writing it.
      assert.match(r.stderr, /No space left on device|^head: /);
      const size = lstatSync(join(copy.dir, "big")).size;
      assert.ok(size <= 36 * 1024 * 1024, `big is ${size} bytes`);
      // The tree's filesystem is its own tmpfs of the tree plus 32 MiB, not the host's disk.
      const fs = statfsSync(mountpoint);
      assert.equal(fs.type, 0x01021994);
      assert.ok(fs.blocks * fs.bsize < 40 * 1024 * 1024);
      assert.ok(ourMounts().some((l) => l.includes(` ${mountpoint} `)));
    } finally {
      await copy.dispose();
    }
    assert.equal(existsSync(mountpoint), false);
    assert.deepEqual(
      ourMounts().filter((l) => l.includes(` ${mountpoint} `)),
      [],
    );
  });

  test("hundreds of thousands of files: stopped at the file-count limit", async () => {
    const copy = await makeWorkCopy(src, undefined, { maxFiles: 500 });
    try {
      const r = await sandbox.run({
        workdir: copy.dir,
        command:
          "mkdir d && cd d && i=0; while [ $i -lt 300000 ]; do : > f$i || break; i=$((i+1)); done; sleep 30",
        timeoutMs: 120_000,
      });
      assert.equal(r.limit, "files", `${r.stdout}${r.stderr}`);
      // The limit is what a run may add, plus a few inodes of slack: nowhere near 300,000.
      assert.ok(readdirSync(join(copy.dir, "d")).length <= 520);
    } finally {
      await copy.dispose();
    }
  });

  test("a 2 GB sparse file made in the sandbox: a host-side copy refuses it, or keeps it sparse", async () => {
    const copy = await makeWorkCopy(src);
    try {
      const r = await sandbox.run({
        workdir: copy.dir,
        command: "truncate -s 2G sparse.bin && printf tail >> sparse.bin && ls -ls sparse.bin",
      });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.ok(lstatSync(join(copy.dir, "sparse.bin")).size > 2 * 1024 ** 3);
      // Copying that tree (as the pipeline does for every tree state) is refused at the per-file cap...
      await assert.rejects(makeWorkCopy(copy.dir), (e: unknown) => {
        assert.ok(e instanceof WorkCopyRefusedError);
        assert.match(
          e.message,
          /sparse\.bin is 2\.0 GiB \(sparse: .* on disk\), over the 1\.0 GiB cap for one file/,
        );
        return true;
      });
      // ...and with a higher cap, the copy keeps the holes: it costs kilobytes, not 2 GB.
      const again = await makeWorkCopy(copy.dir, undefined, { maxFileBytes: 4 * 1024 ** 3 });
      try {
        const st = lstatSync(join(again.dir, "sparse.bin"));
        assert.equal(st.size, 2 * 1024 ** 3 + 4);
        assert.ok(st.blocks * 512 < 1024 * 1024, `the copy allocated ${st.blocks * 512} bytes`);
        const fd = openSync(join(again.dir, "sparse.bin"), "r");
        const tail = Buffer.alloc(4);
        readSync(fd, tail, 0, 4, st.size - 4);
        closeSync(fd);
        assert.equal(tail.toString(), "tail");
      } finally {
        await again.dispose();
      }
    } finally {
      await copy.dispose();
    }
  });

  test("hard links to one big file are counted per name: the copy is refused, not multiplied", async () => {
    const copy = await makeWorkCopy(src);
    try {
      const r = await sandbox.run({
        workdir: copy.dir,
        command: "head -c 8388608 /dev/urandom > blob && for i in $(seq 1 40); do ln blob link$i; done",
      });
      assert.equal(r.exitCode, 0, r.stderr);
      await assert.rejects(
        makeWorkCopy(copy.dir, undefined, { maxCopyBytes: 128 * 1024 * 1024 }),
        /more than 128\.0 MiB of data/,
      );
      await assert.rejects(makeWorkCopy(copy.dir, undefined, { maxCopyFiles: 10 }), /more than 10 files/);
    } finally {
      await copy.dispose();
    }
  });

  test("no copy is left mounted or on disk", () => {
    assert.deepEqual(ourMounts(), []);
    assert.deepEqual(
      readdirSync(tmpdir()).filter((n) => n.startsWith(`auto-fix-work-${process.pid}-`)),
      [],
    );
  });
});
