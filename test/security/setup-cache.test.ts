import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRepoConfig, type RepoConfig } from "../../src/config/index.ts";
import {
  createSandbox,
  restoreSetupResult,
  type RunRequest,
  type SandboxPort,
  type SetupCacheSpec,
  setupCacheKey,
  snapshotTree,
  storeSetupResult,
} from "../../src/sandbox/index.ts";
import { TreeStates } from "../../src/validate/index.ts";

// The setup cache carries installed dependencies from one run to the next, and nothing else: a branch
// whose setup writes a Python startup hook, rewrites a tracked test, leaves sparse gigabytes, a pipe or
// a link behind poisons no later run; and an honest second run on the same commit still reuses it.

let sandbox: SandboxPort;
const dirs: string[] = [];
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
let origin: string;
/** A host file a link in a dependency folder points to. */
const SECRET = join(mkdtempSync(join(tmpdir(), "af-sc-secret-")), "secret");
writeFileSync(SECRET, "not-for-the-archive-7f3a\n");
dirs.push(join(SECRET, ".."));

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  }).toString();

const SETUP_SH = "set -e\npython3 -m pip install --user --no-index vendor/pricetools-1.0-py3-none-any.whl\n";
const HOOK = "import builtins\nbuiltins.POISONED = True\n";

/** A repository whose setup script installs one vendored wheel, with branches whose setup does more. */
function makeOrigin(): string {
  const dir = tmp("af-sc-origin-");
  mkdirSync(join(dir, "scripts"));
  mkdirSync(join(dir, "tests"));
  mkdirSync(join(dir, "vendor"));
  writeFileSync(join(dir, "scripts", "setup.sh"), SETUP_SH);
  writeFileSync(
    join(dir, "calc.py"),
    "from pricetools import double\n\ndef quad(x):\n    return double(double(x))\n",
  );
  writeFileSync(
    join(dir, "tests", "test_calc.py"),
    "from calc import quad\n\n\ndef test_quad():\n    assert quad(2) == 8\n",
  );
  writeFileSync(join(dir, ".gitignore"), "__pycache__/\n");
  const build = [
    "import sys, zipfile",
    "with zipfile.ZipFile(sys.argv[1], 'w') as z:",
    "    z.writestr('pricetools/__init__.py', 'def double(x):\\n    return 2 * x\\n')",
    "    z.writestr('pricetools-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: pricetools\\nVersion: 1.0\\n')",
    "    z.writestr('pricetools-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')",
    "    z.writestr('pricetools-1.0.dist-info/RECORD', '')",
  ].join("\n");
  execFileSync("python3", ["-c", build, join(dir, "vendor", "pricetools-1.0-py3-none-any.whl")]);
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "main");
  const branch = (name: string, extra: string) => {
    git(dir, "checkout", "-qb", name, "main");
    writeFileSync(join(dir, "scripts", "setup.sh"), SETUP_SH + extra);
    git(dir, "commit", "-qam", name);
  };
  // A startup hook in the user site: every later Python process would import it.
  branch("hook", `cat > "$(python3 -m site --user-site)/usercustomize.py" <<'EOF'\n${HOOK}EOF\n`);
  // The tracked test made to pass whatever the code does.
  branch("rewrite", "printf 'def test_quad():\\n    pass\\n' > tests/test_calc.py\n");
  // Three sparse gigabytes, then a pipe, in a dependency folder.
  branch(
    "sparse",
    "mkdir -p node_modules/big && for i in 1 2 3; do truncate -s 1G node_modules/big/blob$i; done\n",
  );
  branch("fifo", "mkdir -p node_modules/p && mkfifo node_modules/p/pipe\n");
  // A link to a file outside the tree: archived as a link, its target never read by the host.
  branch(
    "link",
    `mkdir -p node_modules/l && ln -s ${SECRET} node_modules/l/host && ln -s ../../tests/test_calc.py node_modules/l/t\n`,
  );
  git(dir, "checkout", "-q", "main");
  return dir;
}

/** A fresh checkout of `ref`, as a job gets one. */
function checkout(ref: string): string {
  const dir = join(tmp("af-sc-co-"), "repo");
  execFileSync("git", ["clone", "-q", "--no-local", origin, dir], { stdio: "ignore" });
  git(dir, "checkout", "-q", ref);
  return dir;
}

function recording(inner: SandboxPort): SandboxPort & { requests: RunRequest[] } {
  const requests: RunRequest[] = [];
  return {
    kind: inner.kind,
    requests,
    run: (req) => {
      requests.push(req);
      return inner.run(req);
    },
    capabilities: () => inner.capabilities(),
    ...(inner.adoptTree ? { adoptTree: (d: string) => inner.adoptTree!(d) } : {}),
  };
}

const configFor = (dir: string): RepoConfig => ({
  ...loadRepoConfig(dir),
  setup: ["sh scripts/setup.sh"],
});

/**
 * One job on a checkout of `ref`: prepares its trees (setup or the cache), then runs the repository's
 * test and a probe for the hook in a copy of the prepared tree, as validation does.
 */
async function job(ref: string, spec: SetupCacheSpec) {
  const source = checkout(ref);
  const box = recording(sandbox);
  const states = await TreeStates.prepare({
    sandbox: box,
    config: configFor(source),
    source,
    setupCache: spec,
  });
  try {
    const setupRuns = box.requests.length;
    const copy = await states.pristine();
    const tests = await sandbox.run({
      workdir: copy.dir,
      command: "python3 -m pytest -q -p no:cacheprovider",
    });
    const probe = await sandbox.run({
      workdir: copy.dir,
      command: ["python3", "-c", "import builtins; print(getattr(builtins, 'POISONED', False))"],
    });
    const testFile = readFileSync(join(copy.dir, "tests", "test_calc.py"), "utf8");
    return { cache: states.setupCache, setupOk: states.setupOk, setupRuns, tests, probe, testFile, source };
  } finally {
    await states.dispose();
  }
}

const cacheBytes = (dir: string): number =>
  readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).blocks * 512, 0);

before(async () => {
  sandbox = await createSandbox("bwrap");
  origin = makeOrigin();
});
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("control: a second run on the same commit reuses the dependencies and validation still works", async () => {
  const spec = { dir: tmp("af-sc-cache-"), repo: "example/calc" };
  const first = await job("main", spec);
  assert.equal(first.setupOk, true);
  assert.equal(first.cache?.stored, true, String(first.cache?.problem));
  assert.equal(first.setupRuns, 1);
  assert.ok(first.cache!.lockFiles.includes("scripts/setup.sh"), first.cache!.lockFiles.join());
  assert.ok(
    first.cache!.lockFiles.includes("vendor/pricetools-1.0-py3-none-any.whl"),
    "a file the setup script names is part of the key",
  );
  assert.equal(first.tests.exitCode, 0, first.tests.stdout + first.tests.stderr);
  const second = await job("main", spec);
  assert.equal(second.cache?.used, true);
  assert.equal(second.setupRuns, 0, "setup did not run again");
  assert.equal(second.tests.exitCode, 0, second.tests.stdout + second.tests.stderr);
  assert.match(second.tests.stdout, /1 passed/);
  // Only the dependency folder is in the archive.
  const manifest = JSON.parse(readFileSync(join(spec.dir, `${second.cache!.key}.json`), "utf8")) as {
    roots: string[];
  };
  assert.deepEqual(manifest.roots, [".cache"]);
});

test("a branch whose setup writes usercustomize.py poisons no later run on main", async () => {
  const spec = { dir: tmp("af-sc-cache-"), repo: "example/calc" };
  const branch = await job("hook", spec);
  assert.equal(branch.setupOk, true);
  assert.equal(branch.probe.stdout.trim(), "True", "the hook works on its own branch");
  assert.equal(branch.cache?.stored, false);
  assert.match(branch.cache!.problem!, /usercustomize\.py is a Python startup hook/);
  const main = await job("main", spec);
  assert.equal(main.cache?.used, false, "main's key is not the branch's");
  assert.equal(main.probe.stdout.trim(), "False");
  // Even under main's key (same setup inputs), the branch's result would not be kept.
  const mainTree = checkout("main");
  const hookTree = checkout("hook");
  const key = (d: string) => setupCacheKey(d, spec, ["sh scripts/setup.sh"], "bwrap")!.key;
  assert.notEqual(key(mainTree), key(hookTree));
});

test("a branch whose setup rewrites a tracked test keeps nothing; main runs its own test", async () => {
  const spec = { dir: tmp("af-sc-cache-"), repo: "example/calc" };
  const branch = await job("rewrite", spec);
  assert.equal(branch.setupOk, true);
  assert.match(branch.testFile, /pass/);
  assert.equal(branch.cache?.stored, false);
  assert.match(
    branch.cache!.problem!,
    /changed files outside the dependency folders it created \(tests\/test_calc\.py\)/,
  );
  assert.deepEqual(
    readdirSync(spec.dir).filter((f) => f.endsWith(".tar")),
    [],
  );
  const main = await job("main", spec);
  assert.match(main.testFile, /assert quad\(2\) == 8/);
});

test("sparse gigabytes under the disk limit are never archived", async () => {
  const spec = { dir: tmp("af-sc-cache-"), repo: "example/calc" };
  const was = process.env.AUTO_FIX_MAX_DISK_MB;
  process.env.AUTO_FIX_MAX_DISK_MB = "16";
  const branch = await job("sparse", spec).finally(() => {
    if (was === undefined) delete process.env.AUTO_FIX_MAX_DISK_MB;
    else process.env.AUTO_FIX_MAX_DISK_MB = was;
  });
  assert.equal(branch.setupOk, true, "truncate makes sparse files under the disk limit");
  assert.equal(branch.cache?.stored, false);
  assert.match(branch.cache!.problem!, /node_modules\/big\/blob1 is a sparse file \(1073741824 bytes/);
  assert.ok(cacheBytes(spec.dir) < 1024 * 1024, `the cache holds ${cacheBytes(spec.dir)} bytes`);
});

test("a pipe in a dependency folder is refused; a link is kept as a link, never followed", async () => {
  const spec = { dir: tmp("af-sc-cache-"), repo: "example/calc" };
  const fifo = await job("fifo", spec);
  assert.equal(fifo.cache?.stored, false);
  assert.match(fifo.cache!.problem!, /node_modules\/p\/pipe is a special file/);
  const link = await job("link", spec);
  assert.equal(link.cache?.stored, true, String(link.cache?.problem));
  const archive = join(spec.dir, `${link.cache!.key}.tar`);
  const listing = execFileSync("tar", ["-tvf", archive]).toString();
  assert.ok(listing.includes(`node_modules/l/host -> ${SECRET}`), listing);
  assert.ok(!readFileSync(archive).includes("not-for-the-archive-7f3a"), "the link's target was not read");
  // Restored on a second run of the branch: the links come back as links, the tracked test unchanged.
  const again = await job("link", spec);
  assert.equal(again.cache?.used, true);
  assert.match(again.testFile, /assert quad\(2\) == 8/);
});

test("past its cap the cache evicts the least recently used entries first, never a larger one kept", async () => {
  const spec = { dir: tmp("af-sc-cache-"), repo: "example/evict", capBytes: 350 * 1024 };
  const store = async (name: string) => {
    const tree = tmp("af-sc-tree-");
    const before = await snapshotTree(tree);
    mkdirSync(join(tree, "node_modules", name), { recursive: true });
    writeFileSync(join(tree, "node_modules", name, "index.js"), `${name}\n`.repeat(50_000));
    const key = name.repeat(64).slice(0, 64);
    await storeSetupResult(spec, { key, files: [] }, tree, before, ["npm ci"]);
    return key;
  };
  const [a, b, c] = [await store("a"), await store("b"), await store("c")];
  // Their last uses: a, then b, then c; then a is restored (used again).
  for (const [i, k] of [a, b, c].entries()) utimesSync(join(spec.dir, `${k}.json`), 1000 + i, 1000 + i);
  const fresh = join(tmp("af-sc-fresh-"), "repo");
  mkdirSync(fresh);
  assert.equal(typeof (await restoreSetupResult(spec, a, fresh)), "number");
  assert.equal(readFileSync(join(fresh, "node_modules", "a", "index.js"), "utf8").slice(0, 2), "a\n");
  const d = await store("d");
  const left = (k: string) =>
    existsSync(join(spec.dir, `${k}.json`)) && existsSync(join(spec.dir, `${k}.tar`));
  assert.deepEqual(
    [a, b, c, d].map(left),
    [true, false, false, true],
    "b and c (least recently used) went; a (restored) and d (just written) stayed",
  );
  // An entry larger than the cap is never written.
  const big = tmp("af-sc-tree-");
  const before = await snapshotTree(big);
  mkdirSync(join(big, "node_modules"));
  writeFileSync(join(big, "node_modules", "blob"), Buffer.alloc(400 * 1024, 1));
  await assert.rejects(
    storeSetupResult(spec, { key: "e".repeat(64), files: [] }, big, before, ["npm ci"]),
    /hold more than 0\.34 MB/,
  );
  assert.equal(existsSync(join(spec.dir, `${"e".repeat(64)}.tar`)), false);
});
