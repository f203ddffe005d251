import { execFile } from "node:child_process";
import * as fs from "node:fs";
import { ExecError } from "../core/errors.ts";
import { hostGitEnv } from "../core/git-env.ts";
import { checkEditablePath, isTestConfigFile } from "../runners/shared/conventions-test-config.ts";
import { isTestPath } from "../core/test-files.ts";
import { gitEnv, gitProblem, gitShallowClone, originOf, runGit } from "./clone.ts";

/**
 * Git over HTTP(S) with an installation token. Every git step (the clone, the commit, the push, the ref
 * listing) runs the system git in a child process of its own (clone.ts), which gets the token through a
 * credential helper reading its own environment. The token is never part of a URL or a command line,
 * never written to `.git/config` and never logged.
 */

export interface GitAuthor {
  name: string;
  email: string;
}

/**
 * Shallow clone (depth 1, one branch) of `ref` (a branch or tag; default: the remote's default branch),
 * by the system git in its own process, within the operator's size cap (clone.ts). `branch` is the
 * branch checked out (the ref's name for a tag).
 */
export async function shallowClone(options: {
  url: string;
  dir: string;
  token: string;
  ref?: string | undefined;
  maxBytes?: number;
  signal?: AbortSignal;
}): Promise<{ commit: string; branch: string | null }> {
  return await gitShallowClone(options);
}

/** Paths a unified diff touches (both sides of every file header). */
export function diffPaths(patch: string): string[] {
  const paths = new Set<string>();
  for (const line of patch.split("\n")) {
    const m = /^(?:---|\+\+\+) (?:[ab]\/)?(.+?)\s*$/.exec(line);
    if (m && m[1] !== "/dev/null") paths.add(m[1]!);
  }
  return [...paths];
}

/**
 * Why a patch may not be committed by the app, or null when it may: a path outside the repository, or
 * one the patch engine refuses too (core/path-rules' `checkEditablePath`: CI and repository
 * configuration, VCS and vendored data, tests, test configuration). The repository's own protected
 * globs were applied by the pipeline; this second look needs no configuration.
 */
export function forbiddenPatchPath(patch: string): string | null {
  const added = newTestFiles(patch);
  for (const p of diffPaths(patch)) {
    if (p.startsWith("/") || p.split("/").includes("..")) return `${p} lies outside the repository`;
    const verdict = checkEditablePath(p, []);
    if (!verdict.ok && !added.has(p)) return verdict.message;
  }
  return null;
}

/**
 * The test files a patch creates (the regression test the pipeline wrote and checked): a new file whose
 * one refusal is being a test. An edit of an existing test, a deletion, or a new test configuration file
 * (`conftest.py`, a runner's configuration) is never among them.
 */
export function newTestFiles(patch: string): Set<string> {
  const out = new Set<string>();
  for (const section of patch.split(/^(?=diff --git )/m)) {
    const m =
      /^diff --git a\/(\S+) b\/(\S+)\nnew file mode 100644\n(?:index [0-9a-f]+\.\.[0-9a-f]+\n)?--- \/dev\/null\n\+\+\+ b\/(\S+)\n/.exec(
        section,
      );
    if (!m || m[1] !== m[2] || m[2] !== m[3]) continue;
    const p = m[3]!;
    const verdict = checkEditablePath(p, []);
    if (!verdict.ok && isTestPath(p) && !isTestConfigFile(p) && /is a test file;/.test(verdict.message))
      out.add(p);
  }
  return out;
}

/** Applies a unified diff to the work tree with `git apply` (work tree only; the index is left alone). */
export async function applyPatch(dir: string, patch: string): Promise<void> {
  const forbidden = forbiddenPatchPath(patch);
  if (forbidden) throw new Error(`refusing the patch: ${forbidden}`);
  const text = patch.endsWith("\n") ? patch : `${patch}\n`;
  await new Promise<void>((resolve, reject) => {
    const child = execFile(
      "git",
      ["apply", "--whitespace=nowarn", "-"],
      { cwd: dir, env: hostGitEnv({ GIT_CEILING_DIRECTORIES: dir }), encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new ExecError("git apply", typeof error.code === "number" ? error.code : null, stdout, stderr),
          );
        else resolve();
      },
    );
    child.stdin?.on("error", () => {});
    child.stdin?.end(text);
  });
}

/** Runs git in the clone (its own process, `clone.ts`'s environment); its stdout, or an error naming it. */
async function gitIn(
  dir: string,
  args: string[],
  opts: { url: string; token: string; env?: Record<string, string> },
): Promise<string> {
  const env = { ...gitEnv(originOf(opts.url), opts.token), GIT_LITERAL_PATHSPECS: "1", ...opts.env };
  const run = await runGit(args, { cwd: dir, env });
  if (run.code !== 0) throw gitProblem(`git ${args[0]}`, run, opts.token);
  return run.stdout;
}

/** Author and committer of a commit made now (UTC), as git's environment gives them. */
function identity(author: GitAuthor): Record<string, string> {
  const date = `${Math.floor(Date.now() / 1000)} +0000`;
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
    GIT_COMMITTER_DATE: date,
  };
}

/** A branch name git accepts, that no command reads as an option. */
async function checkBranch(dir: string, branch: string, opts: { url: string; token: string }): Promise<void> {
  if (branch.startsWith("-")) throw new Error(`refusing the branch name ${JSON.stringify(branch)}`);
  await gitIn(dir, ["check-ref-format", `refs/heads/${branch}`], opts).catch(() => {
    throw new Error(
      `refusing the branch name ${JSON.stringify(branch.slice(0, 100))}: not a valid branch name`,
    );
  });
}

/**
 * Commits the validated patch's files (`paths`, as `diffPaths` reads them from the patch) on a new local
 * `branch` (starting at HEAD) and pushes it to `refs/heads/<branch>`, force-pushing when asked (a retry
 * replaces the previous run's commit). Nothing else of the work tree is committed: a file the clone
 * gained or changed some other way stays out of the commit. Every step is the system git in its own
 * process (as the clone is): the repository's files are never read into the worker's memory.
 */
export async function commitAndPush(options: {
  dir: string;
  url: string;
  token: string;
  branch: string;
  message: string;
  author: GitAuthor;
  force: boolean;
  paths: readonly string[];
}): Promise<{ commit: string; files: string[] }> {
  const { dir } = options;
  const wanted = [...new Set(options.paths)];
  for (const p of wanted) {
    if (p === "" || p.startsWith("/") || p.split("/").some((s) => s === ".." || s === "." || s === "")) {
      throw new Error(`refusing to commit ${p}: not a path inside the repository`);
    }
  }
  await checkBranch(dir, options.branch, options);
  await gitIn(dir, ["checkout", "--quiet", "-B", options.branch, "HEAD"], options);
  // Only paths that exist in the work tree or in the commit: git refuses a path that is in neither.
  const tracked = new Set(
    wanted.length > 0
      ? (await gitIn(dir, ["ls-files", "-z", "--", ...wanted], options)).split("\0").filter(Boolean)
      : [],
  );
  const present = wanted.filter((p) => tracked.has(p) || fs.existsSync(`${dir}/${p}`));
  if (present.length > 0) await gitIn(dir, ["add", "--all", "--force", "--", ...present], options);
  const staged = present.length
    ? (await gitIn(dir, ["diff", "--cached", "--name-only", "--no-renames", "-z", "--", ...present], options))
        .split("\0")
        .filter(Boolean)
    : [];
  const files = staged.filter((f) => present.includes(f));
  if (files.length === 0) throw new Error("nothing to commit: the patch changed no file");
  await gitIn(
    dir,
    ["commit", "--quiet", "--no-verify", "--cleanup=verbatim", "-m", options.message, "--", ...files],
    { ...options, env: identity(options.author) },
  );
  const commit = (await gitIn(dir, ["rev-parse", "--verify", "HEAD^{commit}"], options)).trim();
  await pushBranch(dir, options, options.force);
  return { commit, files };
}

/** Pushes the clone's `<branch>` to the remote's `refs/heads/<branch>`; a refused push throws with why. */
async function pushBranch(
  dir: string,
  options: { url: string; token: string; branch: string },
  force: boolean,
): Promise<void> {
  const ref = `refs/heads/${options.branch}`;
  const env = gitEnv(originOf(options.url), options.token);
  const run = await runGit(
    ["push", "--porcelain", "--no-verify", ...(force ? ["--force"] : []), options.url, `${ref}:${ref}`],
    { cwd: dir, env },
  );
  if (run.code === 0) return;
  // `--porcelain`: one line per ref, `!` and the reason for a refused one.
  const refused = run.stdout
    .split("\n")
    .find((l) => l.startsWith("!\t"))
    ?.split("\t")[2];
  if (refused) throw new Error(`push rejected: ${refused}`);
  throw gitProblem("git push", run, options.token);
}

/** The message of the commit checked out in a clone. */
export async function headMessage(dir: string): Promise<string> {
  const run = await runGit(["cat-file", "commit", "HEAD"], { cwd: dir, env: gitEnv("http://none", "") });
  if (run.code !== 0) throw gitProblem("git cat-file", run, "");
  const at = run.stdout.indexOf("\n\n");
  return at === -1 ? "" : run.stdout.slice(at + 2);
}

/**
 * Commits nothing new on top of the clone's branch (the same tree, one more commit) and pushes it to
 * `refs/heads/<branch>` without force: if the branch moved since the clone, the push is refused.
 */
export async function pushEmptyCommit(options: {
  dir: string;
  url: string;
  token: string;
  branch: string;
  message: string;
  author: GitAuthor;
}): Promise<string> {
  const { dir } = options;
  await checkBranch(dir, options.branch, options);
  const commit = (
    await gitIn(dir, ["commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", options.message], {
      ...options,
      env: identity(options.author),
    })
  ).trim();
  await gitIn(dir, ["update-ref", `refs/heads/${options.branch}`, commit], options);
  await pushBranch(dir, options, false);
  return commit;
}

/**
 * The commit `refs/heads/<branch>` points at on the remote, or null when the remote has no such branch.
 * Reads the remote's advertised refs only (nothing is fetched).
 */
export async function remoteBranchHead(options: {
  url: string;
  token: string;
  branch: string;
}): Promise<string | null> {
  const name = `refs/heads/${options.branch}`;
  const env = gitEnv(originOf(options.url), options.token);
  const run = await runGit(["ls-remote", options.url, name], { cwd: process.cwd(), env });
  if (run.code !== 0) throw gitProblem("git ls-remote", run, options.token);
  for (const line of run.stdout.split("\n")) {
    const [oid, ref] = line.split("\t");
    if (ref === name && oid) return oid;
  }
  return null;
}
