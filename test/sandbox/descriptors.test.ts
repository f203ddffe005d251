import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

// A launcher (a shell, a process manager, a parent that forgot close-on-exec) leaves descriptors open
// to a secret file when it starts auto-fix. The sandboxed command must not be able to read them.

const sandboxIndex = new URL("../../src/sandbox/index.ts", import.meta.url).pathname;

for (const backend of ["bwrap", "none"] as const) {
  test(`${backend}: descriptors the launcher left open (3, 9, 37) do not reach the sandboxed command`, () => {
    const dir = mkdtempSync(join(tmpdir(), "af-fds-"));
    const secret = `fd-secret-${process.pid}-${Date.now()}`;
    const secretFile = join(dir, "secret.txt");
    writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
    const work = join(dir, "work");
    const script = `
      import { readFileSync, readlinkSync, mkdirSync } from "node:fs";
      const { createSandbox } = await import(${JSON.stringify(sandboxIndex)});
      mkdirSync(${JSON.stringify(work)});
      // Control: the leak is real, this process can read the secret through the inherited descriptors.
      const seen = [3, 9, 37].map((fd) => readFileSync("/proc/self/fd/" + fd, "utf8").trim());
      const sb = await createSandbox(${JSON.stringify(backend)}, { allowUnsandboxed: true, warn: () => {} });
      const r = await sb.run({
        workdir: ${JSON.stringify(work)},
        command: "python3 -c 'import os\\nfor fd in range(3, 1024):\\n  try: print(\\"read\\", fd, os.read(fd, 100))\\n  except OSError: pass'; ls /proc/self/fd; cat /proc/self/fd/37; cat <&9",
      });
      console.log(JSON.stringify({ seen, stdout: r.stdout, stderr: r.stderr }));
    `;
    try {
      // bash opens the secret without close-on-exec and execs node: a real inherited descriptor.
      const out = execFileSync(
        "bash",
        [
          "-c",
          'exec 3<"$1" 9<"$1" 37<"$1"; exec "$2" --input-type=module -e "$3"',
          "launcher",
          secretFile,
          process.execPath,
          script,
        ],
        { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeout: 60_000 },
      );
      const r = JSON.parse(out.trim().split("\n").at(-1)!) as {
        seen: string[];
        stdout: string;
        stderr: string;
      };
      assert.deepEqual(r.seen, [secret, secret, secret]);
      assert.doesNotMatch(r.stdout + r.stderr, new RegExp(secret));
      assert.match(r.stderr, /Bad file descriptor|No such file/);
      assert.doesNotMatch(r.stdout, /^read /m);
      // Only stdin, stdout, stderr (and the listing's own directory descriptor) are open in the command.
      const fds = r.stdout.split("\n").filter((l) => /^\d+$/.test(l.trim()));
      assert.ok(fds.length >= 3, r.stdout);
      assert.deepEqual(
        fds.map(Number).filter((n) => n > 3),
        [],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
