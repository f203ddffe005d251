import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { buildSandboxEnv } from "../../src/sandbox/env.ts";
import {
  createSandbox,
  detectDocker,
  dockerRunArgs,
  formatExecForModel,
  makeWorkCopy,
  planBwrap,
  SandboxUnavailableError,
  truncateMiddle,
} from "../../src/sandbox/index.ts";

test("the bwrap plan mounts the work tree and allow-listed system paths, nothing of the home", () => {
  const args = planBwrap({}, { PATH: "/usr/bin" }, { workdir: "/srv/copy", tools: [] });
  const joined = args.join(" ");
  assert.match(joined, /--bind \/srv\/copy \/workspace/);
  assert.match(joined, /--unshare-all/);
  assert.doesNotMatch(joined, /--share-net/);
  assert.match(joined, /--cap-drop ALL/);
  assert.match(joined, /--tmpfs \/root/);
  assert.match(joined, /--tmpfs \/home/);
  assert.match(joined, /--clearenv/);
  assert.doesNotMatch(joined, /--ro-bind \/etc \/etc/);
  assert.doesNotMatch(joined, /shadow|ssh|\/etc\/ssl\/private/);
  const rootRo = args.findIndex((a, i) => a === "--remount-ro" && args[i + 1] === "/");
  assert.ok(rootRo > args.lastIndexOf("--bind"));
  // Network never means the host's namespace: a run with network has its own, fed by slirp4netns.
  const net = planBwrap(
    { network: true },
    {},
    {
      workdir: "/srv/copy",
      tools: [],
      net: { hosts: "/s/hosts", resolv: "/s/resolv", infoFd: 3, blockFd: 4 },
    },
  );
  assert.ok(!net.includes("--share-net"));
  assert.match(net.join(" "), /--info-fd 3 --block-fd 4/);
  assert.match(net.join(" "), /--ro-bind \/s\/hosts \/etc\/hosts --ro-bind \/s\/resolv \/etc\/resolv\.conf/);
  assert.doesNotMatch(net.join(" "), /--ro-bind \/etc\/hosts/);
  // Hardening: no user namespaces inside, a new session, death with the parent, every tmpfs sized.
  assert.match(joined, /--disable-userns/);
  assert.match(joined, /--new-session/);
  assert.match(joined, /--die-with-parent/);
  args.forEach((a, i) => {
    if (a === "--tmpfs") assert.equal(args[i - 2], "--size", `${args[i + 1]} is not sized`);
  });
});

test("the environment is built from an allow-list and refuses the host's secret values", () => {
  const hostEnv = { GITHUB_TOKEN: "ghs_abcdef123456", PATH: "/host/bin", HOME: "/root", SOME_VAR: "x" };
  const env = buildSandboxEnv({ EXTRA: "1" }, { path: "/usr/bin", workdir: "/workspace", hostEnv });
  assert.equal(env.PATH, "/usr/bin");
  assert.equal(env.HOME, "/home/sandbox");
  assert.equal(env.EXTRA, "1");
  assert.equal(env.SOME_VAR, undefined);
  assert.ok(!Object.values(env).includes("ghs_abcdef123456"));
  assert.throws(
    () => buildSandboxEnv({ T: "ghs_abcdef123456" }, { path: "/usr/bin", workdir: "/w", hostEnv }),
    /secret value.*T/,
  );
});

test("docker: no image, no client and no daemon are refused with a reason", async () => {
  await assert.rejects(createSandbox("docker", {}), (e: unknown) => {
    assert.ok(e instanceof SandboxUnavailableError);
    assert.match(e.message, /needs an image/);
    return true;
  });
  await assert.rejects(detectDocker("/nonexistent/docker"), /not installed/);
  // A client that exists but cannot reach a daemon: a stand-in that fails like `docker version` does.
  const dir = mkdtempSync(join(tmpdir(), "af-docker-"));
  try {
    const fake = join(dir, "docker");
    writeFileSync(
      fake,
      "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n",
      { mode: 0o755 },
    );
    await assert.rejects(detectDocker(fake), /no Docker daemon is reachable: Cannot connect/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("docker run arguments isolate network, user, limits and environment", () => {
  const limits = { timeoutMs: 1000, memoryMb: 512, maxProcesses: 99, maxOutputBytes: 1024, cpus: 1.5 };
  const args = dockerRunArgs(
    { workdir: "/srv/copy", command: "pytest -q", memoryMb: 512, maxProcesses: 99 },
    { PATH: "/usr/bin", HOME: "/home/sandbox" },
    { image: "python:3.12", name: "auto-fix-x", uid: 65534, limits },
  );
  const joined = args.join(" ");
  assert.match(joined, /--network none/);
  assert.match(joined, /--memory 512m/);
  assert.match(joined, /--pids-limit 99/);
  assert.match(joined, /--cpus 1\.5/);
  assert.match(joined, /--cap-drop ALL/);
  assert.match(joined, /--user 65534:65534/);
  assert.match(joined, /--tmpfs \/tmp:rw,exec,size=512m/);
  assert.match(joined, /--volume \/srv\/copy:\/workspace:rw/);
  assert.deepEqual(args.slice(-4), ["python:3.12", "/bin/sh", "-c", "pytest -q"]);
  // A run that asks for network never gets Docker's bridge (the backend refuses it before this).
  const withNet = dockerRunArgs(
    { workdir: "/w", command: ["true"], network: true },
    {},
    { image: "i", name: "n", uid: 1000 },
  ).join(" ");
  assert.match(withNet, /--network none/);
  assert.doesNotMatch(withNet, /bridge/);
  assert.throws(
    () => dockerRunArgs({ workdir: "/w", command: ["true"] }, {}, { image: "i", name: "n", uid: 0 }),
    /never runs as uid 0/,
  );
});

test("no sandbox only with an explicit opt-in, and every run warns", async () => {
  await assert.rejects(createSandbox("none"), /explicit opt-in/);
  const warnings: string[] = [];
  const sb = await createSandbox("none", { allowUnsandboxed: true, warn: (m) => warnings.push(m) });
  const dir = mkdtempSync(join(tmpdir(), "af-none-"));
  try {
    const r = await sb.run({ workdir: dir, command: "echo hi; exit 3" });
    assert.equal(r.exitCode, 3);
    assert.equal(r.stdout, "hi\n");
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /WITHOUT A SANDBOX/);
    const t = await sb.run({ workdir: dir, command: "sleep 30", timeoutMs: 300 });
    assert.equal(t.limit, "time");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("model formatting keeps head and tail and names the limit", () => {
  const long = `${"a".repeat(5000)}MIDDLE${"z".repeat(5000)}`;
  const cut = truncateMiddle(long, 1000);
  assert.ok(cut.startsWith("aaa"));
  assert.ok(cut.endsWith("zzz"));
  assert.doesNotMatch(cut, /MIDDLE/);
  assert.match(cut, /characters omitted/);
  const text = formatExecForModel({
    exitCode: null,
    signal: "SIGKILL",
    stdout: "",
    stderr: "Traceback...\nAssertionError: boom",
    truncated: false,
    limit: "time",
    durationMs: 5,
    backend: "bwrap",
  });
  assert.match(text, /wall-time limit/);
  assert.match(text, /stdout: \(empty\)/);
  assert.match(text, /AssertionError: boom/);
  const paths = formatExecForModel({
    exitCode: 1,
    signal: null,
    stdout: "",
    stderr: 'File "/workspace/shop/pricing.py", line 6',
    truncated: false,
    limit: null,
    durationMs: 1,
    backend: "bwrap",
  });
  assert.match(paths, /File "shop\/pricing\.py", line 6/);
});

test("a work copy is private: changes in it leave the source alone", async () => {
  const src = mkdtempSync(join(tmpdir(), "af-src-"));
  writeFileSync(join(src, "a.txt"), "original");
  const copy = await makeWorkCopy(src);
  try {
    const sb = await createSandbox("bwrap");
    const r = await sb.run({ workdir: copy.dir, command: "cat a.txt; echo changed > a.txt; cat a.txt" });
    assert.equal(r.stdout, "originalchanged\n");
    const { readFileSync } = await import("node:fs");
    assert.equal(readFileSync(join(src, "a.txt"), "utf8"), "original");
  } finally {
    await copy.dispose();
    rmSync(src, { recursive: true, force: true });
  }
});
