import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

// auto-fix run by an ordinary user: no writable cgroups, so the process cap comes from RLIMIT_NPROC
// (set above what the user already runs) and the process tree is counted to end the run.
const canDrop = process.getuid?.() === 0 && existsSync("/usr/bin/setpriv");
const NOBODY = "65534";

/** Whether uid 65534 can run node at `file` and see it there (the sandbox mounts node's folder). */
function nobodyCanRun(file: string): boolean {
  const probe = "require('node:fs').realpathSync(process.execPath)";
  try {
    execFileSync("setpriv", ["--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", file, "-e", probe], {
      stdio: "ignore",
      timeout: 30_000,
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * What the other uid needs, copied where it can read it: the sandbox's source (the checkout may sit in a
 * folder only root can enter, such as a fresh `mktemp -d`) and, when its folder is closed too, node.
 */
function copyForNobody(dir: string): { sandboxIndex: string; node: string } {
  const src = new URL("../../src/", import.meta.url).pathname;
  for (const part of ["sandbox", "core"])
    cpSync(join(src, part), join(dir, "src", part), { recursive: true });
  writeFileSync(join(dir, "package.json"), '{"type": "module"}\n');
  let node = process.execPath;
  if (!nobodyCanRun(node)) {
    node = join(dir, "node");
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
  }
  execFileSync("chmod", ["-R", "a+rX", dir]);
  return { sandboxIndex: join(dir, "src", "sandbox", "index.ts"), node };
}

test("as an unprivileged user, a fork bomb is stopped at the process limit", {
  skip: !canDrop && "needs root to drop to another uid",
}, (t) => {
  const home = mkdtempSync(join(tmpdir(), "af-unpriv-"));
  chmodSync(home, 0o755);
  const { sandboxIndex, node } = copyForNobody(join(home, "code"));
  const dir = join(home, "work");
  mkdirSync(dir, { mode: 0o777 });
  chmodSync(dir, 0o777);
  if (!nobodyCanRun(node)) {
    rmSync(home, { recursive: true, force: true });
    t.skip(
      `uid ${NOBODY} cannot enter the temp folder ${tmpdir()} (set TMPDIR to a folder others may traverse)`,
    );
    return;
  }
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
      ["--reuid", NOBODY, "--regid", NOBODY, "--clear-groups", node, "--input-type=module", "-e", script],
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
    rmSync(home, { recursive: true, force: true });
  }
});
