import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import type { Ceilings } from "../core/ceilings.ts";
import { commandArgv, sandboxUidFromEnv } from "./bwrap.ts";
import { tmpfsCopiesAvailable } from "./disk.ts";
import { buildSandboxEnv } from "./env.ts";
import { execLimited } from "./exec-limited.ts";
import { type RunLimits, runLimits, sandboxCeilings } from "./limits.ts";
import { refusedNetwork } from "./network.ts";
import { markOwned, ownOverlayCopy } from "./overlay.ts";
import { chownTree, sharedFolderRefusal } from "./ownership.ts";
import {
  DEFAULT_LIMITS,
  DEFAULT_SANDBOX_UID,
  type ExecResult,
  type RunRequest,
  SANDBOX_WORKDIR,
  type SandboxCapabilities,
  type SandboxPort,
  SandboxUnavailableError,
} from "./types.ts";

export interface DockerOptions {
  /** The image the operator chose (`AUTO_FIX_SANDBOX_IMAGE`); required. */
  image?: string | undefined;
  /** The operator's ceilings every run is clamped to (default: from the environment). */
  ceilings?: Ceilings;
  /** The host uid the container's commands run as when auto-fix is root (never 0). */
  runAsUid?: number;
  dockerPath?: string;
  /** Environment for the docker client itself (DOCKER_HOST, ...); never passed into the container. */
  clientEnv?: NodeJS.ProcessEnv;
}

/**
 * `docker run` arguments for one run: pure, so tests can check isolation flags without a daemon. The
 * container never gets a network (a run that asks for one is refused before this), never runs as uid 0,
 * and its writable places are sized: the work tree (a sized copy made by the caller), /tmp and home.
 */
export function dockerRunArgs(
  req: RunRequest,
  env: Record<string, string>,
  ctx: { image: string; name: string; uid: number; limits?: RunLimits },
): string[] {
  if (ctx.uid === 0) throw new Error("the docker sandbox never runs as uid 0");
  const memoryMb = ctx.limits?.memoryMb ?? req.memoryMb ?? DEFAULT_LIMITS.memoryMb;
  const tmpMb = Math.min(memoryMb, DEFAULT_LIMITS.tmpMb);
  const a = ["run", "--name", ctx.name, "--init"];
  a.push("--network", "none");
  a.push("--memory", `${memoryMb}m`, "--memory-swap", `${memoryMb}m`);
  a.push("--pids-limit", String(ctx.limits?.maxProcesses ?? req.maxProcesses ?? DEFAULT_LIMITS.maxProcesses));
  if (ctx.limits) a.push("--cpus", String(ctx.limits.cpus), "--cpu-shares", "128");
  a.push("--cap-drop", "ALL", "--security-opt", "no-new-privileges");
  a.push("--read-only");
  a.push("--tmpfs", `/tmp:rw,exec,size=${tmpMb}m`, "--tmpfs", `/home/sandbox:rw,exec,size=${tmpMb}m`);
  a.push("--user", `${ctx.uid}:${ctx.uid}`);
  a.push("--volume", `${resolve(req.workdir)}:${SANDBOX_WORKDIR}:rw`);
  a.push("--workdir", `${SANDBOX_WORKDIR}/${req.cwd ?? ""}`.replace(/\/$/, ""));
  for (const [k, v] of Object.entries(env)) a.push("--env", `${k}=${v}`);
  a.push(ctx.image, ...commandArgv(req.command));
  return a;
}

function docker(path: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolveP, reject) => {
    execFile(path, args, { env, timeout: timeoutMs, encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${stderr || err.message}`.trim()));
      else resolveP(stdout.trim());
    });
  });
}

/**
 * Is a Docker daemon reachable with this client? Resolves to the server version, or rejects with a
 * reason a user can act on (client missing, daemon not running, permission denied).
 */
export async function detectDocker(
  dockerPath = "docker",
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  try {
    return await docker(dockerPath, ["version", "--format", "{{.Server.Version}}"], env, 10_000);
  } catch (err) {
    const msg = (err as Error).message;
    if (/ENOENT|not found/i.test(msg) && !/daemon/i.test(msg)) {
      throw new SandboxUnavailableError("docker", `the docker client (${dockerPath}) is not installed`);
    }
    throw new SandboxUnavailableError("docker", `no Docker daemon is reachable: ${msg.split("\n")[0]}`);
  }
}

/**
 * Docker backend: chosen by the operator alone (`AUTO_FIX_SANDBOX=docker` with `AUTO_FIX_SANDBOX_IMAGE`),
 * never by a repository. Commands run as an unprivileged uid, without network (a setup step that needs the
 * network is refused: only the bubblewrap backend gives one, through its own firewall), with the operator's
 * memory, process and CPU ceilings.
 */
export class DockerSandbox implements SandboxPort {
  readonly kind = "docker" as const;
  readonly #image: string;
  readonly #docker: string;
  readonly #clientEnv: NodeJS.ProcessEnv;
  readonly #ceilings: Ceilings;
  /** The uid the container runs as: the sandbox uid when auto-fix is root, else auto-fix's own. */
  readonly #uid: number;
  readonly #adopt: boolean;

  private constructor(image: string, dockerPath: string, clientEnv: NodeJS.ProcessEnv, opts: DockerOptions) {
    this.#image = image;
    this.#docker = dockerPath;
    this.#clientEnv = clientEnv;
    this.#ceilings = sandboxCeilings(opts.ceilings);
    const own = process.getuid?.() ?? DEFAULT_SANDBOX_UID;
    this.#adopt = own === 0;
    this.#uid = own === 0 ? (opts.runAsUid ?? sandboxUidFromEnv(process.env)) : own;
  }

  /** Checks the image is named and the daemon answers before anything runs. */
  static async create(opts: DockerOptions): Promise<DockerSandbox> {
    if (!opts.image) {
      throw new SandboxUnavailableError(
        "docker",
        "the docker sandbox needs an image chosen by the operator: set AUTO_FIX_SANDBOX_IMAGE",
      );
    }
    if (opts.runAsUid === 0) {
      throw new SandboxUnavailableError("docker", "the sandbox never runs as host uid 0; choose another uid");
    }
    if (!/^[a-z0-9][\w.\-/:@]*$/i.test(opts.image)) {
      throw new SandboxUnavailableError(
        "docker",
        `not a valid image reference: ${JSON.stringify(opts.image)}`,
      );
    }
    const dockerPath = opts.dockerPath ?? "docker";
    const clientEnv = opts.clientEnv ?? clientEnvFrom(process.env);
    await detectDocker(dockerPath, clientEnv);
    return new DockerSandbox(opts.image, dockerPath, clientEnv, opts);
  }

  async capabilities(): Promise<SandboxCapabilities> {
    const disk = tmpfsCopiesAvailable();
    return {
      kind: "docker",
      network: "isolated",
      memory: "docker",
      processes: "docker",
      cpu: "docker",
      disk: disk ? "tmpfs" : "none",
      networkAccess: "refused",
      notes: [
        DOCKER_NO_NETWORK,
        `runs as host uid ${this.#uid}`,
        ...(disk
          ? []
          : [
              "disk and file-count limits of the work tree are not enforced: work copies need root to be made on a sized tmpfs",
            ]),
      ],
    };
  }

  /** Gives a tree to the container's uid once (auto-fix running as root), like the bubblewrap backend. */
  async adoptTree(dir: string): Promise<void> {
    if (!this.#adopt) return;
    await chownTree(resolve(dir), this.#uid);
    markOwned(resolve(dir), this.#uid);
  }

  async run(req: RunRequest): Promise<ExecResult> {
    if (req.network) {
      return {
        exitCode: 126,
        signal: null,
        stdout: "",
        stderr: `auto-fix: network refused: ${DOCKER_NO_NETWORK}\n`,
        truncated: false,
        limit: null,
        durationMs: 0,
        backend: "docker",
        network: refusedNetwork([], DOCKER_NO_NETWORK),
      };
    }
    const limits = runLimits(req, this.#ceilings);
    const workdir = resolve(req.workdir);
    const shared = sharedFolderRefusal(workdir);
    if (shared) throw new Error(shared);
    if (this.#adopt && !(await ownOverlayCopy(workdir, this.#uid))) await chownTree(workdir, this.#uid);
    const name = `auto-fix-${randomBytes(6).toString("hex")}`;
    const env = buildSandboxEnv(req.env, { path: "/usr/local/bin:/usr/bin:/bin", workdir: SANDBOX_WORKDIR });
    const killContainer = (): void => {
      docker(this.#docker, ["kill", name], this.#clientEnv, 15_000).catch(() => {});
    };
    const result = await execLimited({
      argv: [
        this.#docker,
        ...dockerRunArgs({ ...req, workdir }, env, { image: this.#image, name, uid: this.#uid, limits }),
      ],
      env: Object.fromEntries(Object.entries(this.#clientEnv).filter((e): e is [string, string] => !!e[1])),
      timeoutMs: limits.timeoutMs,
      maxOutputBytes: limits.maxOutputBytes,
      signal: req.signal,
      cgroup: null,
      backend: "docker",
      killExtra: killContainer,
    });
    // The container is kept until its state is read: an OOM kill shows as State.OOMKilled.
    let oomKilled = false;
    try {
      oomKilled =
        (await docker(
          this.#docker,
          ["inspect", "--format", "{{.State.OOMKilled}}", name],
          this.#clientEnv,
          15_000,
        )) === "true";
    } catch {
      // never created, or already removed
    }
    await docker(this.#docker, ["rm", "--force", name], this.#clientEnv, 30_000).catch(() => "");
    if (result.limit === null && oomKilled) return { ...result, limit: "memory" };
    return result;
  }
}

const DOCKER_NO_NETWORK =
  "the docker backend gives no command a network (its bridge would show the host's services); setup steps that need one run with the bubblewrap backend, behind its own firewall";

/** Only what the docker client needs to find its daemon. */
export function clientEnvFrom(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const keep = [
    "PATH",
    "DOCKER_HOST",
    "DOCKER_CONTEXT",
    "DOCKER_CONFIG",
    "DOCKER_CERT_PATH",
    "DOCKER_TLS_VERIFY",
    "HOME",
  ];
  return Object.fromEntries(keep.filter((k) => env[k] !== undefined).map((k) => [k, env[k]]));
}
