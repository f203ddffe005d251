import { execFile } from "node:child_process";
import * as fs from "node:fs";
import git from "isomorphic-git";
import http from "isomorphic-git/http/node";
import { ExecError } from "../core/errors.ts";
import { hostGitEnv } from "../core/git-env.ts";
import { checkEditablePath, isTestConfigFile } from "../core/path-rules.ts";
import { isTestPath } from "../core/test-files.ts";
import { gitShallowClone } from "./clone.ts";

/**
 * Git over HTTP(S) with an installation token. The clone runs the system git in a child process
 * (clone.ts); pushes and ref listings use isomorphic-git, which gets the token through `onAuth` only. The
 * token is never part of a URL or a command line, never written to `.git/config` and never logged.
 */

export interface GitAuthor {
  name: string;
  email: string;
}

const auth = (token: string) => () => ({ username: "x-access-token", password: token });

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

/**
 * Commits the validated patch's files (`paths`, as `diffPaths` reads them from the patch) on a new local
 * `branch` (starting at HEAD) and pushes it to `refs/heads/<branch>`, force-pushing when asked (a retry
 * replaces the previous run's commit). Nothing else of the work tree is committed: a file the clone
 * gained or changed some other way stays out of the commit.
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
  const wanted = new Set(options.paths);
  for (const p of wanted) {
    if (p === "" || p.startsWith("/") || p.split("/").some((s) => s === ".." || s === "." || s === "")) {
      throw new Error(`refusing to commit ${p}: not a path inside the repository`);
    }
  }
  await git.branch({ fs, dir, ref: options.branch, checkout: true, force: true });
  const files: string[] = [];
  const matrix = wanted.size > 0 ? await git.statusMatrix({ fs, dir, filepaths: [...wanted] }) : [];
  for (const [filepath, head, workdir, stage] of matrix) {
    if (!wanted.has(filepath)) continue;
    if (head === workdir && workdir === stage) continue;
    files.push(filepath);
    if (workdir === 0) await git.remove({ fs, dir, filepath });
    else await git.add({ fs, dir, filepath });
  }
  if (files.length === 0) throw new Error("nothing to commit: the patch changed no file");
  const timestamp = Math.floor(Date.now() / 1000);
  const who = { ...options.author, timestamp, timezoneOffset: 0 };
  const commit = await git.commit({ fs, dir, message: options.message, author: who, committer: who });
  await pushBranch(dir, options, options.force);
  return { commit, files };
}

/** Pushes the clone's `<branch>` to the remote's `refs/heads/<branch>`; a refused push throws with why. */
async function pushBranch(
  dir: string,
  options: { url: string; token: string; branch: string },
  force: boolean,
): Promise<void> {
  const result = await git.push({
    fs,
    http,
    dir,
    url: options.url,
    ref: options.branch,
    remoteRef: `refs/heads/${options.branch}`,
    force,
    onAuth: auth(options.token),
  });
  if (!result.ok) {
    const refError = Object.values(result.refs ?? {}).find((r) => !r.ok);
    throw new Error(`push rejected: ${result.error ?? refError?.error ?? "unknown reason"}`);
  }
}

/** The message of the commit checked out in a clone. */
export async function headMessage(dir: string): Promise<string> {
  const oid = await git.resolveRef({ fs, dir, ref: "HEAD" });
  return (await git.readCommit({ fs, dir, oid })).commit.message;
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
  const timestamp = Math.floor(Date.now() / 1000);
  const who = { ...options.author, timestamp, timezoneOffset: 0 };
  const head = await git.resolveRef({ fs, dir, ref: "HEAD" });
  const { commit: parent } = await git.readCommit({ fs, dir, oid: head });
  const commit = await git.writeCommit({
    fs,
    dir,
    commit: { message: options.message, tree: parent.tree, parent: [head], author: who, committer: who },
  });
  await git.writeRef({ fs, dir, ref: `refs/heads/${options.branch}`, value: commit, force: true });
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
  const refs = await git.listServerRefs({
    http,
    url: options.url,
    prefix: name,
    protocolVersion: 1,
    onAuth: auth(options.token),
  });
  return refs.find((r) => r.ref === name)?.oid ?? null;
}
