import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRepoConfig } from "../../src/config/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { TreeStates } from "../../src/validate/index.ts";

// Code under test cannot tell that it runs under auto-fix: no variable, no path, no mount, no argument
// in its view names it. A probe dumps its environment, working folder, arguments (its own and its
// parents'), /proc/self/mountinfo, and every name it can reach, and fails on any mention.

const PROBE = String.raw`
import json, os, re, sys

NEEDLE = re.compile("auto" + "[-_ ]?" + "fix", re.I)

def seen():
    out = []
    out += ["env %s=%s" % kv for kv in os.environ.items()]
    out.append("cwd " + os.getcwd())
    out.append("argv " + " ".join(sys.argv))
    pid = os.getpid()
    while pid > 1:
        try:
            out.append("cmdline %d %s" % (pid, open("/proc/%d/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode("utf8", "replace")))
            status = open("/proc/%d/status" % pid).read()
            pid = int(re.search(r"PPid:\s*(\d+)", status).group(1))
        except OSError:
            break
    out += ["mountinfo " + l for l in open("/proc/self/mountinfo").read().splitlines()]
    out.append("hostname " + open("/proc/sys/kernel/hostname").read().strip())
    tracked = set(os.popen("git ls-files 2>/dev/null").read().splitlines())
    for top in ["/"]:
        for root, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if os.path.join(root, d) not in ("/proc", "/sys", "/usr", "/dev")]
            for name in dirs + files:
                path = os.path.join(root, name)
                rel = os.path.relpath(path, os.getcwd())
                if path.startswith(os.getcwd() + "/") and (rel in tracked or rel.startswith(".git/")):
                    continue
                out.append("path " + path)
    return out

def leaks():
    return [line for line in seen() if NEEDLE.search(line)]

if __name__ == "__main__":
    found = leaks()
    print(json.dumps({"leaks": found, "lines": len(seen())}))
    if "--strict" in sys.argv and found:
        sys.exit(1)
`;

const TEST = `from probe import leaks


def test_nothing_names_the_tool():
    assert leaks() == []
`;

let sandbox: SandboxPort;
const dirs: string[] = [];
let repo: string;

before(async () => {
  sandbox = await createSandbox("bwrap");
  const parent = mkdtempSync(join(tmpdir(), "af-probe-"));
  dirs.push(parent);
  repo = join(parent, "repo");
  mkdirSync(join(repo, "tests"), { recursive: true });
  writeFileSync(join(repo, "probe.py"), PROBE);
  writeFileSync(join(repo, "tests", "test_probe.py"), TEST);
  writeFileSync(
    join(repo, "pyproject.toml"),
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
  );
  const git = (...a: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...a], {
      cwd: repo,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "probe");
});
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("a script in the sandbox finds nothing that names auto-fix: environment, paths, mounts, arguments", async () => {
  const config = {
    ...loadRepoConfig(repo),
    // The setup step (network on, in the plain copy setup runs in) is probed too; it makes the per-user
    // install folder, so later runs see it as in a real job.
    setup: ['mkdir -p "$PYTHONUSERBASE" && python3 probe.py --strict'],
    test: { ...loadRepoConfig(repo).test, command: "python3 -m pytest -q -p no:cacheprovider" },
  };
  const states = await TreeStates.prepare({ sandbox, config, source: repo });
  try {
    assert.equal(
      states.setupOk,
      true,
      JSON.stringify(states.setup.map((s) => s.exec.stdout + s.exec.stderr)),
    );
    // Run directly (as a reproducer is), in a copy of the prepared tree.
    const copy = await states.pristine();
    const direct = await sandbox.run({ workdir: copy.dir, command: ["python3", "probe.py", "--check"] });
    assert.equal(direct.exitCode, 0, direct.stderr);
    const report = JSON.parse(direct.stdout) as { leaks: string[]; lines: number };
    assert.ok(report.lines > 50, `the probe saw ${report.lines} lines`);
    assert.deepEqual(report.leaks, []);
    // Run as validation runs the repository's tests (the runner's own arguments and report options).
    const run = await states.baseline();
    assert.ok(run, "the suite ran");
    assert.equal(run.failed, 0, run.exec.stdout + run.exec.stderr);
    assert.equal(run.passed, 1, run.exec.stdout + run.exec.stderr);
  } finally {
    await states.dispose();
  }
});

test("the probe does see a mention when there is one (it can fail)", async () => {
  const parent = mkdtempSync(join(tmpdir(), "af-probe-ctl-"));
  dirs.push(parent);
  writeFileSync(join(parent, "probe.py"), PROBE);
  const r = await sandbox.run({
    workdir: parent,
    command: ["python3", "probe.py"],
    env: { CI_TOOL: "auto-fix" },
  });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual((JSON.parse(r.stdout) as { leaks: string[] }).leaks, ["env CI_TOOL=auto-fix"]);
});
