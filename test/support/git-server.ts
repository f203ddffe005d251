import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { basicPassword, parseCgi } from "../../src/github/local-remote.ts";

const HTTP_BACKEND = "/usr/lib/git-core/git-http-backend";

/** One request the git server answered. */
export interface GitRequest {
  method: string;
  path: string;
  /** "upload-pack" (fetch/clone), "receive-pack" (push) or "" (discovery of other services). */
  service: string;
  /** The password of the Basic credentials, or null when none were sent. */
  token: string | null;
  status: number;
}

export interface GitServer {
  /** e.g. http://127.0.0.1:1234 — repos live at `${url}/<owner>/<name>.git`. */
  url: string;
  /** Directory holding the bare repositories (`<owner>/<name>.git`). */
  root: string;
  requests: GitRequest[];
  /** Tokens accepted as Basic password (any user name). Mutable: tests add and remove tokens. */
  tokens: Set<string>;
  /** Creates a bare repo `<owner>/<name>.git` whose `branch` holds `files` in one commit. */
  createRepo(fullName: string, files: Record<string, string>, options?: { branch?: string }): string;
  /** `git` run inside a bare repo (e.g. `["show", "auto-fix/issue-1:src/a.py"]`), returning stdout. */
  git(fullName: string, args: string[]): string;
  /** Commits `files` (written over the tree of `from`) on `branch` of a repo, as someone's push would. */
  commitFiles(fullName: string, branch: string, files: Record<string, string>, from?: string): string;
  close(): Promise<void>;
}

const FIXTURE_ENV = {
  GIT_AUTHOR_NAME: "Fixture",
  GIT_AUTHOR_EMAIL: "fixture@example.com",
  GIT_COMMITTER_NAME: "Fixture",
  GIT_COMMITTER_EMAIL: "fixture@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: tmpdir(),
};

function runGit(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...FIXTURE_ENV }, encoding: "utf8" });
}

/**
 * A real git smart-HTTP server on 127.0.0.1: `git http-backend` run as a CGI program for every request,
 * behind token auth (HTTP Basic, the token as password, as GitHub accepts installation tokens).
 * Requests without an accepted token get 401 with a Basic challenge.
 */
export async function startGitServer(): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), "git-server-"));
  const requests: GitRequest[] = [];
  const tokens = new Set<string>();

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const service =
      url.searchParams.get("service")?.replace(/^git-/, "") ??
      (url.pathname.endsWith("/git-upload-pack")
        ? "upload-pack"
        : url.pathname.endsWith("/git-receive-pack")
          ? "receive-pack"
          : "");
    const token = basicPassword(req.headers.authorization);
    const record: GitRequest = { method: req.method ?? "GET", path: url.pathname, service, token, status: 0 };
    requests.push(record);
    if (token === null || !tokens.has(token)) {
      record.status = 401;
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end("authentication required\n");
      return;
    }
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: root,
      REQUEST_METHOD: req.method ?? "GET",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      CONTENT_LENGTH: String(body.length),
      REMOTE_USER: "token-user",
      REMOTE_ADDR: "127.0.0.1",
      GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
      HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
    };
    const child = spawn(HTTP_BACKEND, [], { env, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", (e) => {
      record.status = 500;
      if (!res.headersSent) res.writeHead(500).end(String(e));
    });
    child.on("close", () => {
      const parsed = parseCgi(Buffer.concat(out));
      record.status = parsed.status;
      if (parsed.status >= 400 && err.length > 0) {
        parsed.body = Buffer.concat([parsed.body, Buffer.from(Buffer.concat(err).toString("utf8"))]);
      }
      res.writeHead(parsed.status, parsed.headers).end(parsed.body);
    });
    // git-http-backend may exit before reading a body it does not need.
    child.stdin.on("error", () => {});
    child.stdin.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    root,
    requests,
    tokens,
    createRepo(fullName, files, options = {}) {
      const branch = options.branch ?? "main";
      const work = mkdtempSync(join(tmpdir(), "git-fixture-"));
      runGit(work, ["init", "-q", "-b", branch]);
      for (const [path, content] of Object.entries(files)) {
        const full = join(work, path);
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
      runGit(work, ["add", "-A"]);
      runGit(work, ["commit", "-q", "-m", "Initial commit"]);
      const bare = join(root, `${fullName}.git`);
      mkdirSync(dirname(bare), { recursive: true });
      runGit(root, ["clone", "-q", "--bare", work, bare]);
      runGit(bare, ["config", "http.receivepack", "true"]);
      rmSync(work, { recursive: true, force: true });
      return `http://127.0.0.1:${port}/${fullName}.git`;
    },
    git(fullName, args) {
      return runGit(join(root, `${fullName}.git`), args);
    },
    commitFiles(fullName, branch, files, from = "HEAD") {
      const bare = join(root, `${fullName}.git`);
      const work = mkdtempSync(join(tmpdir(), "git-commit-"));
      try {
        runGit(work, ["clone", "-q", bare, "."]);
        runGit(work, ["checkout", "-q", "-B", branch, from === "HEAD" ? "HEAD" : `origin/${from}`]);
        for (const [path, content] of Object.entries(files)) {
          const full = join(work, path);
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, content);
        }
        runGit(work, ["add", "-A"]);
        runGit(work, ["commit", "-q", "--allow-empty", "-m", `Change ${Object.keys(files).join(", ")}`]);
        runGit(work, ["push", "-q", "-f", "origin", `HEAD:refs/heads/${branch}`]);
        return runGit(work, ["rev-parse", "HEAD"]).trim();
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          rmSync(root, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
