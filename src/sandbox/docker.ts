import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { commandArgv } from "./bwrap.ts";
import { buildSandboxEnv } from "./env.ts";
import { execLimited } from "./exec-limited.ts";
import {
  DEFAULT_LIMITS,
  type ExecResult,
  type RunRequest,
  SANDBOX_WORKDIR,
  type SandboxCapabilities,
  type SandboxPort,
  SandboxUnavailableError,
} from "./types.ts";

export interface DockerOptions {
  /** The image named by the repository configuration; required. */
  image?: string | undefined;
  dockerPath?: string;
  /** Environment for the docker client itself (DOCKER_HOST, ...); never passed into the container. */
  clientEnv?: NodeJS.ProcessEnv;
}

/** `docker run` arguments for one run: pure, so tests can check isolation flags without a daemon. */
export function dockerRunArgs(
  req: RunRequest,
  env: Record<string, string>,
  ctx: { image: string; name: string },
): string[] {
  const memoryMb = req.memoryMb ?? DEFAULT_LIMITS.memoryMb;
  const a = ["run", "--name", ctx.name, "--init"];
  a.push("--network", req.network ? "bridge" : "none");
  a.push("--memory", `${memoryMb}m`, "--memory-swap", `${memoryMb}m`);
  a.push("--pids-limit", String(req.maxProcesses ?? DEFAULT_LIMITS.maxProcesses));
  a.push("--cap-drop", "ALL", "--security-opt", "no-new-privileges");
  a.push("--read-only", "--tmpfs", "/tmp:rw,exec", "--tmpfs", "/home/sandbox:rw,exec");
  a.push("--user", `${process.getuid?.() ?? 1000}:${process.getgid?.() ?? 1000}`);
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

/** Docker backend: used when a daemon is reachable and the repository configuration names an image. */
export class DockerSandbox implements SandboxPort {
  readonly kind = "docker" as const;
  readonly #image: string;
  readonly #docker: string;
  readonly #clientEnv: NodeJS.ProcessEnv;

  private constructor(image: string, dockerPath: string, clientEnv: NodeJS.ProcessEnv) {
    this.#image = image;
    this.#docker = dockerPath;
    this.#clientEnv = clientEnv;
  }

  /** Checks the image is named and the daemon answers before anything runs. */
  static async create(opts: DockerOptions): Promise<DockerSandbox> {
    if (!opts.image) {
      throw new SandboxUnavailableError(
        "docker",
        "the docker sandbox needs an image: set `sandbox.image` in .github/auto-fix.yml",
      );
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
    return new DockerSandbox(opts.image, dockerPath, clientEnv);
  }

  async capabilities(): Promise<SandboxCapabilities> {
    return {
      kind: "docker",
      network: "isolated",
      memory: "docker",
      processes: "docker",
      disk: "none",
      networkAccess: "bridge",
      notes: [
        "a run with network uses Docker's bridge network, from which services listening on the host's bridge address are reachable; the bubblewrap backend gives setup steps no view of the host",
        "disk and file-count limits of the work tree are not enforced by the docker backend",
      ],
    };
  }

  async run(req: RunRequest): Promise<ExecResult> {
    const name = `auto-fix-${randomBytes(6).toString("hex")}`;
    const env = buildSandboxEnv(req.env, { path: "/usr/local/bin:/usr/bin:/bin", workdir: SANDBOX_WORKDIR });
    const killContainer = (): void => {
      docker(this.#docker, ["kill", name], this.#clientEnv, 15_000).catch(() => {});
    };
    const result = await execLimited({
      argv: [this.#docker, ...dockerRunArgs(req, env, { image: this.#image, name })],
      env: Object.fromEntries(Object.entries(this.#clientEnv).filter((e): e is [string, string] => !!e[1])),
      timeoutMs: req.timeoutMs ?? DEFAULT_LIMITS.timeoutMs,
      maxOutputBytes: req.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes,
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
