import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { main } from "../../src/cli/main.ts";

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  return { code, out, err };
}

test("auto-fix sandbox prints exit code and both streams, exits with the command's status", async () => {
  const dir = mkdtempSync(join(tmpdir(), "af-cli-"));
  writeFileSync(
    join(dir, "x.py"),
    'import sys\nprint("to out")\nprint("to err", file=sys.stderr)\nopen("x.py", "w").write("")\nsys.exit(3)\n',
  );
  try {
    const r = await cli(["sandbox", dir, "--", "python3", "x.py"]);
    assert.equal(r.code, 3);
    assert.match(r.out, /Result: exit code 3/);
    assert.match(r.out, /to out/);
    assert.match(r.out, /to err/);
    // The command ran on a private copy: the user's directory is unchanged.
    assert.match(readFileSync(join(dir, "x.py"), "utf8"), /to out/);
    const ok = await cli(["sandbox", dir, "--json", "--", "sh", "-c", "echo fine"]);
    assert.equal(ok.code, 0);
    const parsed = JSON.parse(ok.out) as { exitCode: number; stdout: string; limit: null; backend: string };
    assert.equal(parsed.exitCode, 0);
    assert.equal(parsed.stdout, "fine\n");
    assert.equal(parsed.backend, "bwrap");
    const slow = await cli(["sandbox", dir, "--timeout", "0.3", "--", "sleep", "20"]);
    assert.equal(slow.code, 124);
    assert.match(slow.out, /wall-time limit/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("auto-fix sandbox rejects bad input with a clear message", async () => {
  const noCmd = await cli(["sandbox", "/tmp"]);
  assert.equal(noCmd.code, 2);
  assert.match(noCmd.err, /command is required after '--'/);
  const badDir = await cli(["sandbox", "/nonexistent/dir", "--", "true"]);
  assert.equal(badDir.code, 2);
  assert.match(badDir.err, /not a directory/);
  const badTimeout = await cli(["sandbox", "/tmp", "--timeout", "soon", "--", "true"]);
  assert.equal(badTimeout.code, 2);
  assert.match(badTimeout.err, /--timeout must be a positive number/);
});

test("auto-fix sandbox follows the repository configuration: setup first, and bad config is reported", async () => {
  const dir = mkdtempSync(join(tmpdir(), "af-cli-cfg-"));
  try {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, ".github", "auto-fix.yml"), "setup: echo installed > dep.txt\n");
    const r = await cli(["sandbox", dir, "--setup", "--", "cat", "dep.txt"]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /installed/);
    assert.match(r.err, /setup \(network on\): echo installed/);
    writeFileSync(join(dir, ".github", "auto-fix.yml"), "timeouts: { test: soon }\n");
    const bad = await cli(["sandbox", dir, "--", "true"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /timeouts\.test: expected a number of seconds/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
