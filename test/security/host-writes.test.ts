/**
 * Issue 12, class 1 (host writes follow links planted in a work tree) and the tree parts of class 10
 * (a configuration file linked to a host file; a patch naming a FIFO): each attack attempted with the
 * real bubblewrap sandbox and real files, each blocked, the host file untouched.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { main } from "../../src/cli/main.ts";
import { loadRepoConfig, RepoConfigError } from "../../src/config/index.ts";
import { createDiskRepo } from "../../src/patch/index.ts";
import { reproduceIssue } from "../../src/reproduce/index.ts";
import { createSandbox, type SandboxPort } from "../../src/sandbox/index.ts";
import { ProgramStore, WorkTreeSync } from "../../src/strategies/tree/programs.ts";
import { runTestSuite } from "../../src/validate/index.ts";
import { startScriptedModel } from "../support/scripted-model.ts";
import { chatModelFor, fence, promptKind } from "../review/helpers.ts";

let sandbox: SandboxPort;
const dirs: string[] = [];
before(async () => {
  sandbox = await createSandbox("bwrap");
});
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const SECRET_TEXT = "aws_secret_access_key: AKIAHOSTSECRET\ndb_password: hunter2\n";

/** A repository and, outside it, a host folder holding a file the attacks aim at. */
function world(files: Record<string, string>): { repo: string; host: string; secret: string } {
  const base = mkdtempSync(join(tmpdir(), "af-sec-"));
  dirs.push(base);
  const repo = join(base, "repo");
  const host = join(base, "host");
  mkdirSync(host);
  const secret = join(host, "secret.yml");
  writeFileSync(secret, SECRET_TEXT);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), text);
  }
  return { repo, host, secret };
}

function hostUntouched(host: string, secret: string): void {
  assert.deepEqual(readdirSync(host), ["secret.yml"]);
  assert.equal(readFileSync(secret, "utf8"), SECRET_TEXT);
}

const PY_REPO = {
  "calc.py": "def add(a, b):\n    return a - b\n",
  "requirements.txt": "",
};

test("a committed reproducer.py -> host file: the script replaces the link, the host file is untouched", async () => {
  const { repo, host, secret } = world(PY_REPO);
  symlinkSync(secret, join(repo, "reproducer.py"));
  const script = "from calc import add\nassert add(1, 2) == 3, 'add is wrong'\n";
  const model = await startScriptedModel((req) =>
    promptKind(req) === "has-example" ? '{"has-reproducible-example": true}' : fence("python", script),
  );
  try {
    const config = loadRepoConfig(repo);
    const r = await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config },
      { issue: "add(1, 2) returns -1", workdir: repo },
    );
    assert.equal(r.status, "reproduced", r.summary);
    assert.ok(lstatSync(join(repo, "reproducer.py")).isFile());
    hostUntouched(host, secret);
  } finally {
    await model.close();
  }
});

test("links planted by sandboxed code between attempts are never written through", async () => {
  const { repo, host, secret } = world({
    ...PY_REPO,
    ".github/auto-fix.yml":
      "reproducer:\n  file: checks/repro.py\n  command: python3 checks/repro.py\n  attempts: 3\n",
  });
  // Attempt 1 runs in the sandbox and replaces its own script with a link to the host file; attempt 2
  // is written over that link. Attempt 2 then replaces the whole folder with a link to the host folder;
  // attempt 3 must be refused.
  const plantFile = `import os\nos.remove("checks/repro.py")\nos.symlink(${JSON.stringify(secret)}, "checks/repro.py")\n`;
  const plantDir = `import os, shutil\nshutil.rmtree("checks")\nos.symlink(${JSON.stringify(host)}, "checks")\n`;
  const scripts = [plantFile, plantDir, "assert False, 'never runs'\n"];
  let n = 0;
  const model = await startScriptedModel((req) =>
    promptKind(req) === "has-example" ? '{"has-reproducible-example": true}' : fence("python", scripts[n++]!),
  );
  try {
    const config = loadRepoConfig(repo);
    assert.equal(config.reproducer.file, "checks/repro.py");
    const r = await reproduceIssue(
      { model: chatModelFor(model.baseURL), sandbox, config },
      { issue: "add(1, 2) returns -1", workdir: repo },
    );
    assert.equal(model.requests.length, 4, "the question, then three scripts");
    assert.equal(r.status, "error", r.summary);
    assert.match(r.summary, /checks is a symbolic link that leaves the repository/);
    assert.ok(lstatSync(join(repo, "checks")).isSymbolicLink(), "the sandbox really planted the link");
    hostUntouched(host, secret);
  } finally {
    await model.close();
  }
});

test("the tree search's work tree: links planted at a candidate's paths are replaced or refused", async () => {
  const { repo, host, secret } = world({ "pkg/app.py": "x = 1\n", "pkg/util.py": "y = 1\n" });
  const work = mkdtempSync(join(tmpdir(), "af-sec-work-"));
  dirs.push(work);
  execFileSync("cp", ["-a", `${repo}/.`, work]);
  // Sandboxed code (a test run of an earlier candidate) plants links at the files a candidate changes.
  const planted = await sandbox.run({
    workdir: work,
    command: `rm pkg/app.py && ln -s ${secret} pkg/app.py && mkdir -p gen && rm -r gen && ln -s ${host} gen`,
    timeoutMs: 10_000,
  });
  assert.equal(planted.exitCode, 0, planted.stderr);
  const store = new ProgramStore(createDiskRepo(repo));
  const sync = new WorkTreeSync(work, store);
  const applied = await store.apply(
    "<file>pkg/app.py</file>\n<original>\nx = 1\n</original>\n<patched>\nx = 2\n</patched>",
    "",
  );
  assert.ok(applied.ok, applied.ok ? "" : applied.message);
  await sync.show(store.programFor(applied.diff));
  assert.equal(readFileSync(join(work, "pkg/app.py"), "utf8"), "x = 2\n");
  assert.ok(lstatSync(join(work, "pkg/app.py")).isFile());
  const created = await store.apply(
    '<file new="true">gen/evil.py</file>\n<original>\n</original>\n<patched>\nz = 1\n</patched>',
    "",
  );
  assert.ok(created.ok, created.ok ? "" : created.message);
  await assert.rejects(sync.show(store.programFor(created.diff)), /gen is a symbolic link/);
  hostUntouched(host, secret);
});

function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  return main(args, {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
  }).then((code) => ({ code, out, err }));
}

test("auto-fix apply --write through docs -> .github: refused, and named by its real path", async () => {
  const { repo } = world({ ".github/workflows/ci.yml": "on: push\n", "src/a.py": "v = 1\n" });
  symlinkSync(".github", join(repo, "docs"));
  const answer = join(repo, "..", "answer.txt");
  writeFileSync(
    answer,
    "<file>docs/workflows/ci.yml</file>\n<original>\non: push\n</original>\n<patched>\non: [push, pull_request]\n</patched>",
  );
  const r = await cli(["apply", repo, answer, "--write", "--json"]);
  assert.equal(r.code, 1);
  const json = JSON.parse(r.out) as { status: string; edits: { message: string }[] };
  assert.equal(json.status, "RAW_PATCH_BUT_UNSAFE_PATH");
  assert.match(json.edits[0]!.message, /docs is a symbolic link to \.github/);
  assert.match(json.edits[0]!.message, /real path is \.github\/workflows\/ci\.yml/);
  assert.equal(readFileSync(join(repo, ".github/workflows/ci.yml"), "utf8"), "on: push\n");
});

test("a patch naming a FIFO is refused at once, not read", { timeout: 60_000 }, async () => {
  const { repo } = world({ "src/a.py": "v = 1\n" });
  execFileSync("mkfifo", [join(repo, "src/pipe.py")]);
  const answer = join(repo, "..", "answer.txt");
  writeFileSync(
    answer,
    "<file>src/pipe.py</file>\n<original>\nv = 1\n</original>\n<patched>\nv = 2\n</patched>",
  );
  const r = await cli(["apply", repo, answer, "--write", "--json"]);
  assert.equal(r.code, 1);
  const json = JSON.parse(r.out) as { status: string; edits: { message: string }[] };
  assert.equal(json.status, "RAW_PATCH_BUT_UNSAFE_PATH");
  assert.match(json.edits[0]!.message, /named pipe/);
  assert.ok(lstatSync(join(repo, "src/pipe.py")).isFIFO());
});

test(".github/auto-fix.yml linked to a host file: refused without reading it, no key name shown", () => {
  const { repo, host, secret } = world({ "calc.py": "x = 1\n" });
  mkdirSync(join(repo, ".github"));
  symlinkSync(secret, join(repo, ".github/auto-fix.yml"));
  const err = (() => {
    try {
      loadRepoConfig(repo);
    } catch (e) {
      return e;
    }
    return null;
  })();
  assert.ok(err instanceof RepoConfigError, String(err));
  assert.match(err.message, /symbolic link that leaves the repository/);
  assert.doesNotMatch(err.message, /aws_secret_access_key|db_password|AKIA|hunter2/);
  // A linked .github folder is refused the same way.
  rmSync(join(repo, ".github"), { recursive: true });
  symlinkSync(host, join(repo, ".github"));
  assert.throws(
    () => loadRepoConfig(repo),
    (e: Error) => /\.github is a symbolic link/.test(e.message) && !/aws_secret/.test(e.message),
  );
  hostUntouched(host, secret);
});

test("project files linked to host files are not read by detection, and the reasons say so", () => {
  const { repo, host, secret } = world({ "app.js": "module.exports = 1;\n", "setup.py": "" });
  symlinkSync(secret, join(repo, "package.json"));
  execFileSync("mkfifo", [join(repo, "pyproject.toml")]);
  const config = loadRepoConfig(repo);
  assert.equal(config.test.command, null);
  assert.ok(
    config.notes.some((n) => /package\.json ignored: .*symbolic link/.test(n)),
    config.notes.join("\n"),
  );
  assert.ok(
    config.notes.some((n) => /pyproject\.toml ignored: .*named pipe/.test(n)),
    config.notes.join("\n"),
  );
  assert.doesNotMatch(JSON.stringify(config), /AKIA|hunter2|aws_secret/);
  hostUntouched(host, secret);
});

test("test reports planted as links or FIFOs are not read, and the run ends", {
  timeout: 120_000,
}, async () => {
  const { repo, host, secret } = world({
    ".github/auto-fix.yml": "test: sh run-tests.sh\ntest-reports: 'reports/*.xml'\n",
  });
  writeFileSync(
    join(repo, "run-tests.sh"),
    `mkdir -p reports\nln -sf ${secret} reports/TEST-a.xml\nmkfifo reports/TEST-b.xml\necho ok\n`,
  );
  const config = loadRepoConfig(repo);
  const run = await runTestSuite(sandbox, repo, config);
  assert.ok(run);
  assert.equal(run.exec.exitCode, 0, run.exec.stderr);
  assert.equal(run.parser, "exit-code");
  assert.equal(run.notes?.length, 0, "links and FIFOs are not even listed as reports");
  assert.ok(lstatSync(join(repo, "reports/TEST-a.xml")).isSymbolicLink());
  // The next run removes the stale link and the FIFO (not what the link points to) before it starts.
  writeFileSync(join(repo, "run-tests.sh"), "echo again\n");
  await runTestSuite(sandbox, repo, config);
  assert.deepEqual(readdirSync(join(repo, "reports")), []);
  hostUntouched(host, secret);
});
