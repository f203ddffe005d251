/**
 * Clone memory: what a job's clone of a repository with a ~100 MB pack costs the worker.
 *
 *   npm run bench:clone [-- --mb 100] [--files 10] [--isomorphic] [--push]
 *
 * Generates a repository of incompressible random blobs (`--mb` megabytes in 10 files), serves it over
 * git's smart HTTP on 127.0.0.1 (`git http-backend`, from a separate process, so that the server's
 * buffers are not counted), and clones it the way a job does (`shallowClone`: the system git in its own
 * process, under the operator's cap). Prints the worker's RSS before the clone, its peak during the
 * clone (sampled every 5 ms), the peak of each git process (VmHWM from /proc, sampled every 50 ms), and
 * the time. `--isomorphic` also clones in-process with isomorphic-git, as jobs did before, for
 * comparison. `--push` then commits a one-line change on a new branch of the clone and pushes it
 * (`commitAndPush`, as a job does), measured the same way.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import git from "isomorphic-git";
import http from "isomorphic-git/http/node";
import { descendants } from "../src/core/kill-tree.ts";
import { commitAndPush, shallowClone } from "../src/github/git.ts";
import { serveLocalRemote } from "../src/github/local-remote.ts";

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "100" },
    files: { type: "string", default: "10" },
    push: { type: "boolean", default: false },
    isomorphic: { type: "boolean", default: false },
    serve: { type: "string" },
  },
});

const MB = 1024 * 1024;

if (values.serve) {
  // The server's own process: prints where it listens, then serves until killed.
  const server = await serveLocalRemote(values.serve);
  process.stdout.write(`${JSON.stringify({ url: server.url, token: server.token })}\n`);
} else {
  await main();
}

function makeRepo(root: string, mb: number, files: number): string {
  const work = join(root, "work");
  mkdirSync(work);
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "bench",
    GIT_AUTHOR_EMAIL: "bench@example.com",
    GIT_COMMITTER_NAME: "bench",
    GIT_COMMITTER_EMAIL: "bench@example.com",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  };
  const run = (cwd: string, args: string[]) => execFileSync("git", args, { cwd, env, stdio: "pipe" });
  run(work, ["init", "-q", "-b", "main"]);
  for (let i = 0; i < files; i++)
    writeFileSync(join(work, `blob-${i}.bin`), randomBytes(Math.ceil((mb * MB) / files)));
  writeFileSync(join(work, "README.md"), "generated for bench:clone\n");
  run(work, ["add", "-A"]);
  run(work, ["commit", "-q", "-m", "random blobs"]);
  const bare = join(root, "repo.git");
  run(root, ["clone", "-q", "--bare", "--no-local", work, bare]);
  rmSync(work, { recursive: true, force: true });
  const packs = readdirBytes(join(bare, "objects", "pack"));
  console.log(`repository: ${files} random blobs, pack ${(packs / MB).toFixed(1)} MB`);
  return bare;
}

function readdirBytes(dir: string): number {
  return fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(join(dir, f)).size, 0);
}

function vmHwmKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

async function measure(label: string, serverPid: number, clone: () => Promise<unknown>): Promise<void> {
  global.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const children = new Map<number, { name: string; kb: number }>();
  const rssTimer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const childTimer = setInterval(() => {
    const server = new Set(descendants(serverPid));
    for (const pid of descendants(process.pid)) {
      if (pid === process.pid || server.has(pid)) continue;
      const kb = vmHwmKb(pid);
      let name = "";
      try {
        name = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, 2).join(" ");
      } catch {
        continue;
      }
      const known = children.get(pid);
      if (!known || kb > known.kb) children.set(pid, { name, kb });
    }
  }, 50);
  const start = performance.now();
  await clone();
  const ms = performance.now() - start;
  clearInterval(rssTimer);
  clearInterval(childTimer);
  peak = Math.max(peak, process.memoryUsage().rss);
  console.log(`\n${label}`);
  console.log(`  worker RSS before the clone: ${(baseline / MB).toFixed(1)} MB`);
  console.log(
    `  worker RSS peak during it:   ${(peak / MB).toFixed(1)} MB (+${((peak - baseline) / MB).toFixed(1)} MB)`,
  );
  const byName = [...children.values()].sort((a, b) => b.kb - a.kb);
  for (const c of byName.slice(0, 4))
    console.log(`  child peak (VmHWM) ${c.name}: ${(c.kb / 1024).toFixed(1)} MB`);
  console.log(`  time: ${(ms / 1000).toFixed(2)} s`);
}

async function main(): Promise<void> {
  const mb = Math.max(0.01, Number(values.mb) || 100);
  const files = Math.max(1, Number(values.files) || 10);
  const root = mkdtempSync(join(tmpdir(), "clone-bench-"));
  const server = spawn(
    process.execPath,
    [...process.execArgv, import.meta.filename, "--serve", makeRepo(root, mb, files)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let text = "";
      server.stdout.on("data", (c: Buffer) => {
        text += c.toString();
        if (text.includes("\n")) resolve(text.split("\n")[0]!);
      });
      server.on("exit", (code) => reject(new Error(`the git server exited (${code})`)));
    });
    const { url, token } = JSON.parse(line) as { url: string; token: string };
    await measure("system git in a child process (as a job clones)", server.pid!, () =>
      shallowClone({ url, dir: join(root, "clone-git"), token, maxBytes: Math.max(4 * mb * MB, 64 * MB) }),
    );
    if (values.push) {
      const dir = join(root, "clone-git");
      writeFileSync(join(dir, "README.md"), "generated for bench:clone, changed by the push\n");
      await measure("commit and push of a one-line change (as a job pushes its fix)", server.pid!, () =>
        commitAndPush({
          dir,
          url,
          token,
          branch: "auto-fix/issue-1",
          message: "Fix #1\n",
          author: { name: "auto-fix", email: "auto-fix@example.com" },
          force: true,
          paths: ["README.md"],
        }),
      );
    }
    if (values.isomorphic) {
      await measure("isomorphic-git in the worker (before)", server.pid!, async () =>
        git
          .clone({
            fs,
            http,
            dir: join(root, "clone-iso"),
            url,
            depth: 1,
            singleBranch: true,
            noTags: true,
            onAuth: () => ({ username: "x-access-token", password: token }),
          })
          .catch((error: Error) => console.log(`  (could not run: ${error.message})`)),
      );
    }
  } finally {
    server.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  }
}
