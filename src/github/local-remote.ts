/**
 * A local stand-in for a GitHub repository's git remote: a bare copy of a local checkout, served over
 * git's smart-HTTP protocol on 127.0.0.1 (`git http-backend`), so that an issue run clones and pushes
 * through the same code (git.ts: the system git over HTTP, a token) as it does against GitHub. The
 * user's checkout is only read; pushes land in the bare copy.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ExecError, UserError } from "../core/errors.ts";
import { hostGitEnv } from "../core/git-env.ts";
import type { RepoFileRead } from "./port.ts";

/** git without the host's environment, configuration, hooks or prompts (core/git-env). */
const GIT_ENV = (): NodeJS.ProcessEnv => hostGitEnv();

export function git(cwd: string, args: string[], maxBuffer = 64 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolveRun, reject) => {
    execFile("git", args, { cwd, env: GIT_ENV(), encoding: "buffer", maxBuffer }, (error, stdout, stderr) => {
      if (error) {
        const code = typeof error.code === "number" ? error.code : null;
        reject(new ExecError(`git ${args.join(" ")}`, code, stdout.toString(), stderr.toString()));
      } else resolveRun(stdout);
    });
  });
}

const text = async (cwd: string, args: string[]) => (await git(cwd, args)).toString("utf8").trim();

export interface LocalRemote {
  /** The bare repository the run clones from and pushes to. */
  bareDir: string;
  /** The branch checked out in the user's checkout: the run's base. */
  defaultBranch: string;
}

/**
 * Makes (or refreshes) `bareDir` as a bare copy of the checkout at `repoDir`: its branches and tags as
 * they are committed (uncommitted changes are not part of it, as they would not be on GitHub). Branches
 * that earlier runs pushed (auto-fix/…) stay.
 */
export async function prepareLocalRemote(repoDir: string, bareDir: string): Promise<LocalRemote> {
  const repo = resolve(repoDir);
  let defaultBranch: string;
  try {
    await text(repo, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  } catch {
    throw new UserError(`${repoDir} is not a git checkout with a commit (run git init and commit first)`);
  }
  try {
    defaultBranch = await text(repo, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
  } catch {
    throw new UserError(`${repoDir} has no branch checked out (detached HEAD): check out a branch first`);
  }
  const url = pathToFileURL(repo).href;
  if (!existsSync(resolve(bareDir, "HEAD"))) {
    // Through the file:// transport (not a copy of .git): the objects are checked as a fetch checks them.
    await git(repo, ["clone", "--quiet", "--bare", "--no-local", url, resolve(bareDir)]);
    await git(bareDir, ["config", "auto-fix.source", repo]);
  } else {
    // A folder of earlier runs belongs to one checkout: another one's history is never mixed into it.
    const source = await text(bareDir, ["config", "--get", "auto-fix.source"]).catch(() => "");
    if (source !== repo) {
      throw new UserError(
        `${bareDir} holds the runs of ${source || "another repository"}, not of ${repo}: choose another folder`,
      );
    }
    // Nothing is pruned: the branches earlier runs pushed stay.
    await git(bareDir, ["fetch", "--quiet", url, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]);
  }
  await git(bareDir, ["symbolic-ref", "HEAD", `refs/heads/${defaultBranch}`]);
  return { bareDir: resolve(bareDir), defaultBranch };
}

/**
 * A file of `ref` in a bare repository, as the GitHub port reads files: a link, a folder or a
 * submodule is unusable (never followed), and so is a file over `maxBytes` (never read).
 */
export async function readRemoteFile(
  bareDir: string,
  ref: string,
  path: string,
  maxBytes: number,
): Promise<RepoFileRead> {
  // An unknown ref reads as a missing file, as GitHub's contents API answers 404 for it (the clone of
  // that ref is what reports it).
  const known = await git(bareDir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).then(
    () => true,
    (error: unknown) => {
      // Exit 1: a repository without that ref. Anything else (no repository at all) is an error.
      if (error instanceof ExecError && error.exitCode === 1) return false;
      throw error;
    },
  );
  if (!known) return { kind: "missing" };
  const line = await text(bareDir, ["ls-tree", "-l", "--full-tree", ref, "--", path]);
  if (line === "") return { kind: "missing" };
  const m = /^(\d+) (\w+) ([0-9a-f]+) +(-|\d+)\t/.exec(line);
  if (!m) return { kind: "unusable", reason: `${path} could not be read` };
  const [, mode, type, sha, size] = m;
  if (mode === "120000") return { kind: "unusable", reason: `${path} is a link, not a file` };
  if (type !== "blob")
    return { kind: "unusable", reason: `${path} is a ${type === "tree" ? "folder" : type}, not a file` };
  if (Number(size) > maxBytes) {
    return { kind: "unusable", reason: `${path} is ${size} bytes, over the limit of ${maxBytes} bytes` };
  }
  return {
    kind: "file",
    text: (await git(bareDir, ["cat-file", "blob", sha!], maxBytes + 1024)).toString("utf8"),
  };
}

/** What `head` changes since it left `base` (`git diff base...head`), as a pull request shows it. */
export async function remoteDiff(bareDir: string, base: string, head: string): Promise<string> {
  return (
    await git(bareDir, [
      "diff",
      "--no-color",
      "--no-ext-diff",
      `refs/heads/${base}...refs/heads/${head}`,
      "--",
    ])
  ).toString("utf8");
}

export interface LocalGitServer {
  /** The clone URL of the bare repository, e.g. http://127.0.0.1:41234/repo.git */
  url: string;
  /** The one credential the server accepts (HTTP Basic password), made for this server. */
  token: string;
  close(): Promise<void>;
}

const SMART_ENDPOINTS = new Set(["info/refs", "git-upload-pack", "git-receive-pack"]);

/** Largest request body accepted (a push of a patch is far smaller). */
const MAX_BODY_BYTES = 256 * 1024 * 1024;

function sameSecret(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function basicPassword(header: string | undefined): string | null {
  if (!header?.startsWith("Basic ")) return null;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : decoded.slice(colon + 1);
}

/** Splits a CGI response (git http-backend's) into status, headers and body. */
export function parseCgi(output: Buffer): { status: number; headers: Record<string, string>; body: Buffer } {
  let end = output.indexOf("\r\n\r\n");
  let sep = 4;
  if (end < 0) {
    end = output.indexOf("\n\n");
    sep = 2;
  }
  if (end < 0) return { status: 502, headers: {}, body: Buffer.from("bad gateway\n") };
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of output.subarray(0, end).toString("latin1").split(/\r?\n/)) {
    const i = line.indexOf(":");
    if (i < 0) continue;
    const name = line.slice(0, i).trim();
    const value = line.slice(i + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 200;
    else headers[name] = value;
  }
  return { status, headers, body: output.subarray(end + sep) };
}

/** Where a CGI response's head ends in the bytes read so far: [end of head, start of body], or null. */
function headEnd(head: Buffer): [number, number] | null {
  const crlf = head.indexOf("\r\n\r\n");
  const lf = head.indexOf("\n\n");
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return [crlf, crlf + 4];
  return lf >= 0 ? [lf, lf + 2] : null;
}

/** The largest CGI head read before the response is refused as bad (git's is a few lines). */
const MAX_CGI_HEAD = 64 * 1024;

/**
 * Relays git http-backend's CGI output to the HTTP response as it comes: the head parsed once it is
 * whole, the body (a clone's pack: as large as the repository) streamed with backpressure, never held.
 * A failing status gets git's error output after its body.
 */
function relayCgi(child: ChildProcessWithoutNullStreams, res: ServerResponse): void {
  let head: Buffer | null = Buffer.alloc(0);
  let status = 0;
  const err: Buffer[] = [];
  let errBytes = 0;
  child.stderr.on("data", (c: Buffer) => {
    if (errBytes < 4000) err.push(c);
    errBytes += c.length;
  });
  child.on("error", (e) => {
    if (!res.headersSent) res.writeHead(500).end(`git http-backend: ${e.message}\n`);
  });
  child.stdout.on("data", (c: Buffer) => {
    if (res.writableEnded) return;
    if (head === null) {
      if (!res.write(c)) {
        child.stdout.pause();
        res.once("drain", () => child.stdout.resume());
      }
      return;
    }
    head = Buffer.concat([head, c]);
    const end = headEnd(head);
    if (!end) {
      if (head.length > MAX_CGI_HEAD) {
        head = null;
        res.writeHead(502).end("bad gateway\n");
        child.kill("SIGKILL");
      }
      return;
    }
    const parsed = parseCgi(head.subarray(0, end[1]));
    status = parsed.status;
    const rest = head.subarray(end[1]);
    head = null;
    res.writeHead(parsed.status, parsed.headers);
    if (rest.length > 0) res.write(rest);
  });
  child.on("close", () => {
    if (res.writableEnded) return;
    if (head !== null) {
      // No whole head: what came is parsed as it is (a 502 when there is none).
      const parsed = parseCgi(head);
      status = parsed.status;
      res.writeHead(parsed.status, parsed.headers);
      res.write(parsed.body);
    }
    if (status >= 400 && err.length > 0) res.write(Buffer.concat(err).toString("utf8").slice(0, 4000));
    res.end();
  });
  res.on("close", () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
}

/**
 * Serves `bareDir` as `/repo.git` over smart HTTP on 127.0.0.1 (an ephemeral port), for clone and push
 * with the server's own random token; anything else is refused.
 */
export async function serveLocalRemote(bareDir: string): Promise<LocalGitServer> {
  const token = randomBytes(24).toString("hex");
  const root = resolve(bareDir, "..");
  const name = resolve(bareDir).slice(root.length + 1);
  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (!sameSecret(basicPassword(req.headers.authorization), token)) {
      res
        .writeHead(401, { "WWW-Authenticate": 'Basic realm="auto-fix dry run"' })
        .end("authentication required\n");
      return;
    }
    const prefix = "/repo.git/";
    const rest = url.pathname.slice(prefix.length);
    // The smart protocol's three endpoints only (no dumb file access to the repository).
    if (!url.pathname.startsWith(prefix) || !SMART_ENDPOINTS.has(rest)) {
      res.writeHead(404).end("not found\n");
      return;
    }
    const env: NodeJS.ProcessEnv = {
      ...GIT_ENV(),
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      REQUEST_METHOD: req.method ?? "GET",
      PATH_INFO: `/${name}/${rest}`,
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      CONTENT_LENGTH: String(body.length),
      // An authenticated user: git http-backend allows receive-pack (push) for one.
      REMOTE_USER: "auto-fix",
      REMOTE_ADDR: "127.0.0.1",
      GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
      HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
    };
    const child = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "pipe"] });
    relayCgi(child, res);
    child.stdin.on("error", () => {});
    child.stdin.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end("request too large\n");
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/repo.git`,
    token,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
