import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";

// Each test tries to get out of the sandbox and must fail; a control run shows the probe itself works.

let sandbox: SandboxPort;
let base: string;
let work: string;

before(async () => {
  sandbox = await createSandbox("bwrap");
  base = mkdtempSync(join(tmpdir(), "af-escape-"));
  work = join(base, "work");
  mkdirSync(work);
});
after(() => rmSync(base, { recursive: true, force: true }));

const tag = (): string => randomBytes(6).toString("hex");

describe("bubblewrap sandbox: escapes fail", () => {
  test("cannot connect to a server on the host's 127.0.0.1, with network off or on", async () => {
    let connections = 0;
    const server = createServer((s) => {
      connections++;
      s.end("hello from the host\n");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const probe = `import socket; s = socket.create_connection(("127.0.0.1", ${port}), timeout=3); print(s.recv(100).decode())`;
    try {
      for (const network of [false, true]) {
        const blocked = await sandbox.run({
          workdir: work,
          command: ["python3", "-c", probe],
          network,
          timeoutMs: 20_000,
        });
        assert.notEqual(blocked.exitCode, 0);
        assert.match(blocked.stderr, /Connection refused|Network is unreachable|timed out|network refused/);
        assert.doesNotMatch(blocked.stdout, /hello from the host/);
      }
      assert.equal(connections, 0);
    } finally {
      server.close();
    }
  });

  test("cannot read a file in the host's home", async () => {
    const name = `.auto-fix-escape-${tag()}`;
    const secretFile = join(homedir(), name);
    const content = `home-secret-${tag()}`;
    writeFileSync(secretFile, content);
    try {
      const r = await sandbox.run({
        workdir: work,
        command: `cat ${secretFile}; cat ~/${name}; ls -a ${homedir()} /home; cat /home/*/.auto-fix-escape-* 2>/dev/null; true`,
      });
      assert.equal(r.exitCode, 0);
      assert.doesNotMatch(r.stdout + r.stderr, new RegExp(content));
      assert.doesNotMatch(r.stdout, new RegExp(name));
      assert.match(r.stderr, /No such file/);
    } finally {
      rmSync(secretFile, { force: true });
    }
  });

  test("cannot read a secret from the parent's environment", async () => {
    const secret = `ghs_${tag()}${tag()}`;
    process.env.AUTO_FIX_ESCAPE_TEST_TOKEN = secret;
    process.env.GITHUB_TOKEN_ESCAPE_TEST = secret;
    try {
      const r = await sandbox.run({
        workdir: work,
        command: "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; cat /proc/1/environ; true",
      });
      assert.equal(r.exitCode, 0);
      assert.match(r.stdout, /HOME=\/home\/sandbox/);
      assert.doesNotMatch(r.stdout + r.stderr, new RegExp(secret));
      // Passing the value in explicitly is refused too.
      await assert.rejects(
        sandbox.run({ workdir: work, command: "true", env: { HARMLESS_NAME: secret } }),
        /secret value.*HARMLESS_NAME/,
      );
    } finally {
      delete process.env.AUTO_FIX_ESCAPE_TEST_TOKEN;
      delete process.env.GITHUB_TOKEN_ESCAPE_TEST;
    }
  });

  test("cannot write outside the work tree", async () => {
    const sibling = join(base, "sibling");
    mkdirSync(sibling);
    const t = tag();
    const hostTmp = join(tmpdir(), `af-escape-${t}`);
    const targets = [
      join(sibling, "pwned"),
      `${work}/../sibling/pwned2`,
      hostTmp,
      `/usr/af-${t}`,
      `/etc/af-${t}`,
      `/af-${t}`,
    ];
    const r = await sandbox.run({
      workdir: work,
      command: `${targets.map((p) => `echo x > ${p}`).join("; ")}; echo inside > /workspace/ok-${t}; true`,
    });
    assert.equal(r.exitCode, 0);
    for (const p of targets) assert.equal(existsSync(p), false, `${p} was written`);
    assert.deepEqual(readdirSync(sibling), []);
    assert.equal(readFileSync(join(work, `ok-${t}`), "utf8"), "inside\n");
  });

  test("a fork bomb hits the process limit and is killed", async () => {
    const r = await sandbox.run({
      workdir: work,
      // The parent stays alive, so the bomb keeps growing until the process limit stops it.
      command: ["bash", "-c", ":(){ :|:& };:; sleep 50"],
      maxProcesses: 64,
      timeoutMs: 60_000,
    });
    assert.equal(r.limit, "processes");
    assert.equal(r.exitCode, null);
    assert.equal(r.signal, "SIGKILL");
  });

  test("an infinite loop hits the wall-time limit and is killed", async () => {
    const r = await sandbox.run({ workdir: work, command: "while :; do :; done", timeoutMs: 1000 });
    assert.equal(r.limit, "time");
    assert.equal(r.exitCode, null);
  });

  test("1 GB of output is cut at the output limit and the command killed", async () => {
    const r = await sandbox.run({
      workdir: work,
      command: "head -c 1073741824 /dev/zero | tr '\\0' 'a'; echo finished >&2",
      maxOutputBytes: 1 << 20,
      timeoutMs: 60_000,
    });
    assert.equal(r.limit, "output");
    assert.equal(r.truncated, true);
    assert.ok(r.stdout.length <= 1 << 20);
    assert.ok(r.stdout.length > 0);
    assert.doesNotMatch(r.stderr, /finished/);
  });

  test("memory past the limit is killed and reported as the memory limit", async () => {
    const r = await sandbox.run({
      workdir: work,
      command: ["python3", "-c", "x = bytearray(900 * 1024 * 1024); print('allocated')"],
      memoryMb: 128,
      timeoutMs: 60_000,
    });
    assert.equal(r.limit, "memory");
    assert.doesNotMatch(r.stdout, /allocated/);
  });

  test("a detached child (setsid) does not outlive the command", async () => {
    const marker = `31337.${Date.now() % 100000}${Math.floor(Math.random() * 1000)}`;
    const r = await sandbox.run({
      workdir: work,
      command: `setsid sh -c 'sleep ${marker}' & setsid nohup sleep ${marker} >/dev/null 2>&1 & sleep 0.2; echo started`,
      timeoutMs: 30_000,
    });
    assert.equal(r.exitCode, 0);
    assert.match(r.stdout, /started/);
    const survivors = readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
        } catch {
          return false;
        }
      });
    assert.deepEqual(survivors, []);
  });
});
