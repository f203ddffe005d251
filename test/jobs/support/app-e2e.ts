/** Shared set-up for the end-to-end tests: fake GitHub, git server, signed deliveries, app processes. */
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FIXTURE_FILES, MAINTAINER } from "../../app/harness.ts";
import { type FakeGitHub, type FakeRepo, startFakeGitHub } from "../../support/fake-github.ts";
import { type GitServer, startGitServer } from "../../support/git-server.ts";

const CHILD = fileURLToPath(new URL("./app-child.ts", import.meta.url));
export const SECRET = "e2e-webhook-secret";
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as Array<{
  name: string;
  examples: Array<Record<string, unknown>>;
}>;
const labeledExample = examples
  .find((e) => e.name === "issues")!
  .examples.find((e) => e.action === "labeled")!;

export interface AppProcess {
  proc: ChildProcess;
  url: string | null;
  exited: Promise<void>;
  output: () => string;
}

export interface World {
  github: FakeGitHub;
  git: GitServer;
  repo: FakeRepo;
  dir: string;
  logFile: string;
  env: NodeJS.ProcessEnv;
  events(): Array<{ event: string; issue?: string; pid: number }>;
  addIssues(n: number): number[];
  /** A signed `issues.labeled` delivery; resolves with the HTTP status. */
  label(url: string, issue: number, deliveryId: string): Promise<number>;
  start(role: "server" | "worker", options?: Record<string, unknown>): Promise<AppProcess>;
  close(): Promise<void>;
}

export async function startWorld(extraEnv: NodeJS.ProcessEnv = {}): Promise<World> {
  const github = await startFakeGitHub();
  const git = await startGitServer();
  git.tokens.add(github.installationToken);
  const cloneUrl = git.createRepo("octo-org/calc", FIXTURE_FILES);
  const repo = github.addRepo("octo-org", "calc", { cloneUrl });
  repo.permissions.set(MAINTAINER.login, "write");
  repo.files.set(".github/auto-fix.yml", FIXTURE_FILES[".github/auto-fix.yml"]!);
  const dir = mkdtempSync(join(tmpdir(), "af-e2e-"));
  const logFile = join(dir, "events.jsonl");
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    APP_ID: "1",
    PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    WEBHOOK_SECRET: SECRET,
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
    AUTO_FIX_WORK_DIR: join(dir, "work"),
    AUTO_FIX_DATA_DIR: join(dir, "data"),
    AUTO_FIX_MAX_RUNS_PER_REPO_PER_DAY: "100",
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  const children: AppProcess[] = [];
  const world: World = {
    github,
    git,
    repo,
    dir,
    logFile,
    env,
    events: () =>
      existsSync(logFile)
        ? readFileSync(logFile, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [],
    addIssues: (n) =>
      Array.from(
        { length: n },
        (_, i) =>
          github.addIssue("octo-org", "calc", { title: `add() subtracts (${i})`, body: "add(1, 2) is -1" })
            .number,
      ),
    async label(url, issue, deliveryId) {
      const it = repo.issues.get(issue)!;
      const payload = {
        ...labeledExample,
        label: { ...(labeledExample.label as object), name: "auto-fix" },
        issue: {
          ...(labeledExample.issue as object),
          number: issue,
          title: it.title,
          body: it.body,
          state: "open",
          locked: false,
          user: { login: it.user.login, type: it.user.type },
          labels: [{ name: "auto-fix" }],
        },
        repository: {
          ...(labeledExample.repository as object),
          name: "calc",
          full_name: "octo-org/calc",
          owner: { ...((labeledExample.repository as { owner: object }).owner ?? {}), login: "octo-org" },
          clone_url: cloneUrl,
          default_branch: repo.defaultBranch,
        },
        sender: { ...(labeledExample.sender as object), login: MAINTAINER.login, type: MAINTAINER.type },
        installation: { id: 4242, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==" },
      };
      const body = JSON.stringify(payload);
      const res = await fetch(`${url}/api/github/webhooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "issues",
          "x-github-delivery": deliveryId,
          "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
        },
        body,
      });
      await res.arrayBuffer();
      return res.status;
    },
    async start(role, options = {}) {
      const proc = spawn(process.execPath, [CHILD, JSON.stringify({ role, logFile, ...options })], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      proc.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
      });
      proc.stderr?.on("data", (d: Buffer) => {
        out += d.toString();
      });
      const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
      const child: AppProcess = { proc, url: null, exited, output: () => out };
      children.push(child);
      if (role === "server") {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const m = /listening (http:\/\/\S+)/.exec(out);
          if (m) {
            child.url = m[1]!;
            break;
          }
          if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`app did not start:\n${out}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      }
      return child;
    },
    async close() {
      for (const c of children) {
        if (c.proc.exitCode === null && c.proc.signalCode === null) {
          c.proc.kill("SIGKILL");
          await c.exited;
        }
      }
      await github.close();
      await git.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}

/** Prometheus sample value, or undefined. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
