/**
 * A repository's configuration cannot raise the limits the operator set, nor choose the sandbox: each
 * attack is a hostile request (65 GB of memory, 100,000 processes, a day per command, every CPU busy, a
 * Docker image of its own) run for real, and each is held to the operator's ceiling; an ordinary run
 * under the same ceilings still works.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parseRepoConfig } from "../../src/config/index.ts";
import { type Ceilings, ceilingsFromEnv, defaultCeilings } from "../../src/core/ceilings.ts";
import { UserError } from "../../src/core/errors.ts";
import { BwrapSandbox, openRunSandbox } from "../../src/sandbox/index.ts";

const HOSTILE = [
  "sandbox:",
  "  memory-mb: 65536",
  "  max-processes: 100000",
  "timeouts:",
  "  setup: 86400",
  "  test: 86400",
  "  reproducer: 86400",
  "validation:",
  "  related-budget: 86400",
  "  budget: 86400",
  "",
].join("\n");

const CEILINGS: Ceilings = {
  memoryMb: 1024,
  maxProcesses: 128,
  cpus: 1,
  commandMs: 1800_000,
  diskMb: 1024,
  outputBytes: 4 * 1024 * 1024,
};

test("a hostile configuration is clamped to the operator's ceilings, and the report names each request", () => {
  const c = parseRepoConfig(HOSTILE, undefined, CEILINGS);
  assert.equal(c.sandbox.memoryMb, 1024);
  assert.equal(c.sandbox.maxProcesses, 128);
  assert.equal(c.timeouts.setupMs, 1800_000);
  assert.equal(c.timeouts.testMs, 1800_000);
  assert.equal(c.timeouts.reproducerMs, 1800_000);
  assert.equal(c.validation.relatedBudgetMs, 1800_000);
  assert.equal(c.validation.budgetMs, 1800_000);
  assert.deepEqual(
    c.clamped.map((x) => x.what),
    [
      "sandbox.memory-mb",
      "sandbox.max-processes",
      "timeouts.setup",
      "timeouts.test",
      "timeouts.reproducer",
      "validation.related-budget",
      "validation.budget",
    ],
  );
  const memoryNote = c.notes.find((n) => n.includes("sandbox.memory-mb"));
  assert.equal(
    memoryNote,
    "The repository asked for sandbox.memory-mb 65536 MB; the operator's ceiling is 1024 MB (AUTO_FIX_MAX_MEMORY_MB), so 1024 MB was used.",
  );
  // Control: requests under the ceilings are kept as asked, and nothing is noted.
  const modest = parseRepoConfig("sandbox:\n  memory-mb: 512\ntimeouts:\n  test: 60\n", undefined, CEILINGS);
  assert.equal(modest.sandbox.memoryMb, 512);
  assert.equal(modest.timeouts.testMs, 60_000);
  assert.deepEqual(modest.clamped, []);
});

test("the default ceilings hold without any setting, and follow the machine", () => {
  const d = defaultCeilings({ memoryBytes: 24 * 1024 ** 3, cpus: 2, pidMax: 32768 });
  assert.equal(d.memoryMb, 8192);
  assert.equal(d.maxProcesses, 1024);
  assert.equal(d.cpus, 1);
  const small = defaultCeilings({ memoryBytes: 2 * 1024 ** 3, cpus: 1, pidMax: 4096 });
  assert.equal(small.memoryMb, 1024);
  assert.equal(small.maxProcesses, 512);
  assert.equal(small.cpus, 1);
  // Without any operator setting, the hostile file still does not reach the cgroup unchanged.
  const c = parseRepoConfig(HOSTILE, undefined, d);
  assert.equal(c.sandbox.memoryMb, 8192);
  assert.equal(c.sandbox.maxProcesses, 1024);
  assert.equal(c.timeouts.testMs, 3600_000);
});

test("the operator's variables set the ceilings; a typo is refused, naming the variable", () => {
  const base = defaultCeilings({ memoryBytes: 8 * 1024 ** 3, cpus: 4, pidMax: 32768 });
  const c = ceilingsFromEnv(
    {
      AUTO_FIX_MAX_MEMORY_MB: "3000",
      AUTO_FIX_MAX_PROCESSES: "200",
      AUTO_FIX_MAX_CPUS: "1.5",
      AUTO_FIX_MAX_COMMAND_SECONDS: "90",
      AUTO_FIX_MAX_DISK_MB: "512",
      AUTO_FIX_MAX_OUTPUT_MB: "2",
    },
    base,
  );
  assert.deepEqual(c, {
    memoryMb: 3000,
    maxProcesses: 200,
    cpus: 1.5,
    commandMs: 90_000,
    diskMb: 512,
    outputBytes: 2 * 1024 * 1024,
  });
  for (const [name, value] of [
    ["AUTO_FIX_MAX_MEMORY_MB", "4GB"],
    ["AUTO_FIX_MAX_PROCESSES", "0"],
    ["AUTO_FIX_MAX_CPUS", "-1"],
    ["AUTO_FIX_MAX_COMMAND_SECONDS", "forever"],
  ] as const) {
    assert.throws(
      () => ceilingsFromEnv({ [name]: value }, base),
      (err: Error) => err instanceof UserError && err.message.startsWith(`${name}=`),
    );
  }
});

describe("the sandbox holds every run to the ceilings, whatever the run asks for", () => {
  let sandbox: BwrapSandbox;
  let dir: string;
  const tight: Ceilings = { ...CEILINGS, memoryMb: 160, maxProcesses: 40, commandMs: 20_000, cpus: 0.5 };
  before(async () => {
    sandbox = new BwrapSandbox({ ceilings: tight });
    await sandbox.selfTest();
    dir = mkdtempSync(join(tmpdir(), "af-ceilings-"));
    chmodSync(dir, 0o777);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("memory: a run that asks for 65,536 MB is stopped at the ceiling", async (t) => {
    const caps = await sandbox.capabilities();
    if (caps.memory !== "cgroup") return t.skip("no writable memory cgroup here");
    const hog = await sandbox.run({
      workdir: dir,
      command: ["python3", "-c", "b = bytearray(600 * 1024 * 1024); print(len(b))"],
      memoryMb: 65536,
      timeoutMs: 60_000,
    });
    assert.equal(hog.limit, "memory", `${hog.exitCode} ${hog.stderr}`);
    const fits = await sandbox.run({
      workdir: dir,
      command: ["python3", "-c", "b = bytearray(20 * 1024 * 1024); print(len(b))"],
      memoryMb: 65536,
      timeoutMs: 60_000,
    });
    assert.equal(fits.exitCode, 0, fits.stderr);
    assert.equal(fits.stdout.trim(), String(20 * 1024 * 1024));
  });

  test("processes: a run that asks for 100,000 processes gets the ceiling", async () => {
    const bomb = await sandbox.run({
      workdir: dir,
      command: "for i in $(seq 1 120); do sleep 20 & done; wait",
      maxProcesses: 100_000,
      timeoutMs: 60_000,
    });
    assert.equal(bomb.limit, "processes", `${bomb.exitCode} ${bomb.stderr.slice(0, 500)}`);
    const few = await sandbox.run({
      workdir: dir,
      command: "for i in 1 2 3 4 5; do sleep 0.1 & done; wait; echo done",
      maxProcesses: 100_000,
      timeoutMs: 60_000,
    });
    assert.equal(few.exitCode, 0, few.stderr);
    assert.equal(few.stdout.trim(), "done");
  });

  test("time: a run that asks for a day is stopped at the ceiling", async () => {
    const slow = await new BwrapSandbox({ ceilings: { ...tight, commandMs: 2000 } }).run({
      workdir: dir,
      command: "sleep 120",
      timeoutMs: 86_400_000,
    });
    assert.equal(slow.limit, "time");
    assert.ok(slow.durationMs < 60_000, `ran ${slow.durationMs} ms`);
  });

  test("CPU: busy loops on every core get at most the ceiling's share, and a lower priority", async (t) => {
    const caps = await sandbox.capabilities();
    // Busy loops in four processes for two seconds of wall time each; the parent sums what they used.
    const script = [
      "import os, time",
      "def spin():",
      "    end = time.monotonic() + 2.0",
      "    while time.monotonic() < end: pass",
      "    os._exit(0)",
      "start = time.monotonic()",
      "pids = []",
      "for _ in range(4):",
      "    pid = os.fork()",
      "    if pid == 0: spin()",
      "    pids.append(pid)",
      "for pid in pids: os.waitpid(pid, 0)",
      "t = os.times()",
      "print(t.children_user + t.children_system, time.monotonic() - start, os.getpriority(os.PRIO_PROCESS, 0))",
    ].join("\n");
    writeFileSync(join(dir, "spin.py"), script);
    // Each loop ends after two seconds of wall time however little CPU it got.
    const check = await sandbox.run({ workdir: dir, command: ["python3", "spin.py"], timeoutMs: 60_000 });
    assert.equal(check.exitCode, 0, check.stderr);
    const [cpu, wall, nice] = check.stdout.trim().split(" ").map(Number) as [number, number, number];
    assert.equal(nice, 10, "sandboxed runs start at a lower priority than the host's processes");
    if (caps.cpu !== "cgroup") return t.skip("no writable cpu cgroup here: only the priority is lowered");
    // 0.5 CPU over the run's wall time, with a margin for the quota's period: never the 4 CPUs asked.
    assert.ok(cpu <= wall * 0.5 + 0.5, `used ${cpu.toFixed(2)} s of CPU in ${wall.toFixed(2)} s`);
  });
});

describe("only the operator chooses the sandbox", () => {
  let bin: string;
  let log: string;
  before(() => {
    bin = mkdtempSync(join(tmpdir(), "af-fake-docker-"));
    log = join(bin, "calls.log");
    // A docker client whose daemon answers: every call is recorded, `run` runs nothing.
    writeFileSync(
      join(bin, "docker"),
      [
        "#!/bin/sh",
        `echo "$*" >> ${log}`,
        'case "$1" in',
        "  version) echo 27.0.0 ;;",
        "  inspect) echo false ;;",
        "  run) echo ran-in-docker ;;",
        "esac",
        "exit 0",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    writeFileSync(log, "");
  });
  after(() => rmSync(bin, { recursive: true, force: true }));
  const calls = (): string[] => readFileSync(log, "utf8").split("\n").filter(Boolean);

  test("a repository naming its own image and backend gets the operator's bubblewrap, and is told", async () => {
    writeFileSync(log, "");
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const saved = process.env.PATH;
    process.env.PATH = env.PATH;
    const work = mkdtempSync(join(tmpdir(), "af-bwrap-work-"));
    try {
      const made = await openRunSandbox({ backend: "docker", image: "evil/root-image:latest" }, env, {});
      assert.ok(made.port, made.problem ?? "");
      assert.equal(made.port.kind, "bwrap");
      assert.deepEqual(calls(), [], "the docker client was never asked");
      assert.match(
        made.notes?.[0] ?? "",
        /asks for the docker backend with the image "evil\/root-image:latest"; only the operator chooses the sandbox/,
      );
      const r = await made.port.run({ workdir: work, command: "echo ordinary" });
      assert.equal(r.stdout, "ordinary\n");
    } finally {
      process.env.PATH = saved;
      rmSync(work, { recursive: true, force: true });
    }
  });

  test("the operator's docker runs as an unprivileged uid, without network, with the ceilings", async () => {
    writeFileSync(log, "");
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${process.env.PATH}`;
    const dir = mkdtempSync(join(tmpdir(), "af-docker-work-"));
    try {
      const made = await openRunSandbox(
        { backend: "auto", image: "evil/root-image:latest" },
        {
          PATH: process.env.PATH,
          AUTO_FIX_SANDBOX: "docker",
          AUTO_FIX_SANDBOX_IMAGE: "operator/python:3.12",
        },
        { ceilings: CEILINGS },
      );
      assert.ok(made.port, made.problem ?? "");
      assert.equal(made.port.kind, "docker");
      const setup = await made.port.run({ workdir: dir, command: "pip install x", network: true });
      assert.equal(setup.exitCode, 126);
      assert.match(setup.stderr, /network refused: the docker backend gives no command a network/);
      assert.ok(!calls().some((c) => c.startsWith("run")), "no container was started for a network run");
      const r = await made.port.run({ workdir: dir, command: "pytest -q", memoryMb: 65536 });
      assert.equal(r.stdout, "ran-in-docker\n");
      const run = calls().find((c) => c.startsWith("run")) ?? "";
      assert.match(run, /--network none/);
      assert.match(run, /--memory 1024m/);
      assert.match(run, / operator\/python:3\.12 /);
      assert.doesNotMatch(run, /evil/);
      const uid = process.getuid?.() === 0 ? "65534" : String(process.getuid?.());
      assert.match(run, new RegExp(`--user ${uid}:${uid}`));
    } finally {
      process.env.PATH = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("a sandbox never takes a shared folder as its work tree (it would give it to the sandbox uid)", async () => {
  const { sharedFolderRefusal } = await import("../../src/sandbox/ownership.ts");
  for (const dir of ["/", "/tmp", tmpdir(), "/var/tmp", "/root", "/home", "/var"]) {
    assert.match(sharedFolderRefusal(dir) ?? "", /shared folder/, dir);
  }
  const own = mkdtempSync(join(tmpdir(), "af-own-"));
  try {
    assert.equal(sharedFolderRefusal(own), null);
    // Only with the refusal proven above is the real run tried: it must refuse before touching anything.
    const sandbox = new BwrapSandbox({ ceilings: CEILINGS });
    await assert.rejects(sandbox.run({ workdir: tmpdir(), command: "true" }), /shared folder/);
    const ok = await sandbox.run({ workdir: own, command: "echo fine" });
    assert.equal(ok.stdout, "fine\n");
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
});

test("end to end: a hostile configuration's run is held to the ceilings, named in its notes, and still fixes the bug", async () => {
  const { truthRun } = await import("../support/truth-run.ts");
  const r = await truthRun({
    files: {
      ".github/auto-fix.yml": [
        "test: python3 -m unittest discover -v",
        "sandbox:",
        "  backend: docker",
        "  image: evil/root-image:latest",
        "  memory-mb: 65536",
        "  max-processes: 100000",
        "timeouts:",
        "  test: 86400",
        "",
      ].join("\n"),
      "calc/__init__.py": "",
      "calc/ops.py": "def add(a, b):\n    return a - b\n",
      "tests/__init__.py": "",
      "tests/test_ops.py":
        "import unittest\n\nfrom calc.ops import add\n\n\nclass OpsTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    },
    location: { file: "calc/ops.py", method: "add" },
    patch: { file: "calc/ops.py", original: "    return a - b", patched: "    return a + b" },
    reproducer: "from calc.ops import add\n\nassert add(2, 3) == 5, add(2, 3)\n",
    env: {
      AUTO_FIX_MAX_MEMORY_MB: "1024",
      AUTO_FIX_MAX_PROCESSES: "512",
      AUTO_FIX_MAX_COMMAND_SECONDS: "600",
    },
  });
  assert.equal(r.result.status, "fixed", r.result.reason);
  // The run's report names each request the ceilings lowered and the sandbox the operator chose.
  const notes = r.report.replace(/\s+/g, " ");
  assert.match(
    notes,
    /asked for sandbox\.memory-mb 65536 MB; the operator's ceiling is 1024 MB \(AUTO_FIX_MAX_MEMORY_MB\)/,
  );
  assert.match(notes, /asked for sandbox\.max-processes 100000; the operator's ceiling is 512/);
  assert.match(notes, /asked for timeouts\.test 86400 s; the operator's ceiling is 600 s/);
  assert.match(
    notes,
    /asks for the docker backend with the image "evil\/root-image:latest"; only the operator chooses the sandbox/,
  );
});

test("disk: a work copy never lets a run add more than the operator's AUTO_FIX_MAX_DISK_MB", async (t) => {
  const { makeWorkCopy } = await import("../../src/sandbox/index.ts");
  const { tmpfsCopiesAvailable } = await import("../../src/sandbox/disk.ts");
  if (!tmpfsCopiesAvailable()) return t.skip("sized work copies need root");
  const src = mkdtempSync(join(tmpdir(), "af-disk-src-"));
  writeFileSync(join(src, "a.txt"), "a\n");
  const saved = process.env.AUTO_FIX_MAX_DISK_MB;
  process.env.AUTO_FIX_MAX_DISK_MB = "32";
  try {
    // The caller asks for 4 GB; the operator's ceiling of 32 MB holds.
    const copy = await makeWorkCopy(src, undefined, { diskMb: 4096 });
    try {
      const sandbox = new BwrapSandbox({ ceilings: CEILINGS });
      const big = await sandbox.run({
        workdir: copy.dir,
        command: "dd if=/dev/zero of=big bs=1M count=200 2>&1; echo done",
        timeoutMs: 60_000,
      });
      assert.ok(big.limit === "disk" || /No space left/.test(big.stdout), `${big.limit} ${big.stdout}`);
    } finally {
      await copy.dispose();
    }
    // Control: a fresh copy under the same ceiling takes an ordinary write.
    const fresh = await makeWorkCopy(src, undefined, { diskMb: 4096 });
    try {
      const small = await new BwrapSandbox({ ceilings: CEILINGS }).run({
        workdir: fresh.dir,
        command: "dd if=/dev/zero of=small bs=1M count=4 2>/dev/null && wc -c < small",
      });
      assert.equal(small.stdout.trim(), String(4 * 1024 * 1024), small.stderr);
    } finally {
      await fresh.dispose();
    }
  } finally {
    if (saved === undefined) delete process.env.AUTO_FIX_MAX_DISK_MB;
    else process.env.AUTO_FIX_MAX_DISK_MB = saved;
    rmSync(src, { recursive: true, force: true });
  }
});
