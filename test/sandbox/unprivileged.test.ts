import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

// auto-fix run by an ordinary user: no writable cgroups, so the process cap comes from RLIMIT_NPROC
// (set above what the user already runs) and the process tree is counted to end the run.
const canDrop = process.getuid?.() === 0 && existsSync("/usr/bin/setpriv");

test("as an unprivileged user, a fork bomb is stopped at the process limit", {
  skip: !canDrop && "needs root to drop to another uid",
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "af-unpriv-"));
  chmodSync(dir, 0o777);
  const sandboxIndex = new URL("../../src/sandbox/index.ts", import.meta.url).pathname;
  const script = `
    const { createSandbox } = await import(${JSON.stringify(sandboxIndex)});
    const sb = await createSandbox("bwrap");
    const caps = await sb.capabilities();
    const bomb = await sb.run({ workdir: ${JSON.stringify(dir)}, command: ["bash", "-c", ":(){ :|:& };:; sleep 50"], maxProcesses: 40, timeoutMs: 60000 });
    const ok = await sb.run({ workdir: ${JSON.stringify(dir)}, command: "id -u; echo fine > f; cat f", maxProcesses: 40 });
    console.log(JSON.stringify({ caps, bomb: bomb.limit, okExit: ok.exitCode, okOut: ok.stdout }));
  `;
  try {
    const out = execFileSync(
      "setpriv",
      [
        "--reuid",
        "65534",
        "--regid",
        "65534",
        "--clear-groups",
        process.execPath,
        "--input-type=module",
        "-e",
        script,
      ],
      { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, cwd: dir, timeout: 120_000 },
    );
    const r = JSON.parse(out.trim().split("\n").at(-1)!) as {
      caps: { processes: string; memory: string; notes: string[] };
      bomb: string | null;
      okExit: number;
      okOut: string;
    };
    assert.equal(r.caps.processes, "rlimit");
    assert.equal(r.caps.memory, "none");
    assert.ok(r.caps.notes.some((n) => /memory limit not enforced/.test(n)));
    assert.equal(r.bomb, "processes");
    assert.equal(r.okExit, 0);
    assert.equal(r.okOut, "1000\nfine\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
