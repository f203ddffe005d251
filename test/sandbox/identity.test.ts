import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  createSandbox,
  DEFAULT_SANDBOX_UID,
  makeWorkCopy,
  type SandboxPort,
} from "../../src/sandbox/index.ts";
import { sweepStaleStages, sweepStaleToolStages } from "../../src/sandbox/launch.ts";

// Who the sandboxed processes are on the host, and what bubblewrap lets them do besides.

const isRoot = process.getuid?.() === 0;
let sandbox: SandboxPort;
let base: string;

before(async () => {
  sandbox = await createSandbox("bwrap");
  base = mkdtempSync(join(tmpdir(), "af-identity-"));
});
after(() => rmSync(base, { recursive: true, force: true }));

describe("sandbox identity", { skip: !isRoot && "auto-fix runs as root here only" }, () => {
  test("commands run as an unprivileged host uid: a setuid file they make is not a setuid-root file", async () => {
    // The work tree sits in a private (0700) folder of root's: reached through the staging bind.
    const work = join(base, "work");
    mkdirSync(work);
    const r = await sandbox.run({
      workdir: work,
      command: "id -u; cp /bin/sh ./suid-sh && chmod 6755 ./suid-sh && ls -ln suid-sh",
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /^1000$/m);
    // uid 1000 inside is the unprivileged uid outside, never 0: what it made belongs to that uid.
    const st = lstatSync(join(work, "suid-sh"));
    assert.equal(st.uid, DEFAULT_SANDBOX_UID);
    assert.notEqual(st.uid, 0);
    assert.notEqual(st.gid, 0);
    // A host-side copy of that tree (as the pipeline makes) drops the setuid and setgid bits.
    const copy = await makeWorkCopy(work);
    try {
      const c = lstatSync(join(copy.dir, "suid-sh"));
      assert.equal(c.mode & 0o6000, 0, `copy mode ${c.mode.toString(8)}`);
    } finally {
      await copy.dispose();
    }
  });

  test("no new user namespaces inside (no way back to capabilities)", async () => {
    const r = await sandbox.run({
      workdir: base,
      command:
        "unshare -Ur id -u; echo unshare=$?; python3 -c 'import os; os.unshare(os.CLONE_NEWUSER)'; echo py=$?",
    });
    assert.match(r.stdout, /unshare=1/);
    assert.match(r.stdout, /py=1/);
    assert.match(r.stderr, /No space left on device|Operation not permitted/);
    assert.doesNotMatch(r.stdout, /^0$/m);
  });

  test("every tmpfs is sized and /dev is read-only", async () => {
    const r = await sandbox.run({
      workdir: base,
      memoryMb: 512,
      command:
        "df -k /tmp /var/tmp /home /dev/shm /run /root /opt /mnt /srv | tail -n +2; touch /dev/planted; echo dev=$?",
    });
    const sizes = r.stdout
      .split("\n")
      .filter((l) => l.startsWith("tmpfs"))
      .map((l) => Number(l.split(/\s+/)[1]));
    assert.equal(sizes.length, 9, r.stdout);
    for (const kb of sizes) assert.ok(kb > 0 && kb <= 512 * 1024, `a tmpfs of ${kb} kB`);
    assert.match(r.stdout, /dev=1/);
    assert.match(r.stderr, /Read-only file system/);
  });

  test("the command runs in a new session of the sandbox's own (no terminal of the host's)", async () => {
    const r = await sandbox.run({
      workdir: base,
      command: ["python3", "-c", "import os; print(os.getsid(0))"],
    });
    // Led by the sandbox's init (pid 1), not by a session of the host (whose leader is not visible: 0).
    assert.equal(r.stdout.trim(), "1", r.stderr);
  });

  test("when the process that started it dies, the sandbox dies with it", async () => {
    const marker = `4242.${process.pid}${Date.now() % 100000}`;
    const sandboxIndex = new URL("../../src/sandbox/index.ts", import.meta.url).pathname;
    const script = `
      const { createSandbox } = await import(${JSON.stringify(sandboxIndex)});
      const sb = await createSandbox("bwrap");
      sb.run({ workdir: ${JSON.stringify(base)}, command: "sleep ${marker}", timeoutMs: 600000 });
      setTimeout(() => process.kill(process.pid, "SIGKILL"), 1500);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore" });
    await new Promise((r) => child.once("exit", r));
    const running = (): string[] =>
      readdirSync("/proc")
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
          } catch {
            return false;
          }
        });
    // The kernel delivers the parent-death signal as the parent exits; give the reaping a moment.
    for (let i = 0; i < 50 && running().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(running(), []);
    // What the dead process left (its read-only toolchain binds) is swept by the next process.
    const leftover = (): string[] =>
      readFileSync("/proc/self/mounts", "utf8")
        .split("\n")
        .filter((l) => l.includes(`/auto-fix-tools-${child.pid}-`));
    sweepStaleToolStages();
    await sweepStaleStages();
    assert.deepEqual(leftover(), []);
    assert.deepEqual(
      readdirSync(tmpdir()).filter((n) => /^auto-fix-(tools|run)-/.test(n) && n.includes(`-${child.pid}-`)),
      [],
    );
  });
});
