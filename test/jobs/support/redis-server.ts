/** A real redis-server on a free loopback port with its data in a temp dir (append-only file, fsync always). */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  url: string;
  port: number;
  /** Kills the server (SIGKILL: no shutdown save) and starts it again on the same port and data. */
  restart(options?: { downMs?: number }): Promise<void>;
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.once("error", () => resolve(false));
    s.connect(port, "127.0.0.1", () => s.write("PING\r\n"));
    s.once("data", (d) => {
      s.destroy();
      resolve(d.toString().startsWith("+PONG"));
    });
  });
}

export async function startRedis(options: { fsync?: "always" | "everysec" } = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), "af-redis-"));
  const port = await freePort();
  let proc: ChildProcess | null = null;
  let log = "";
  const start = async (): Promise<void> => {
    proc = spawn(
      "/usr/bin/redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        options.fsync ?? "always",
        "--protected-mode",
        "no",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    proc.stdout?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    const deadline = Date.now() + 10_000;
    while (!(await ping(port))) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`redis-server did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const kill = async (): Promise<void> => {
    const p = proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const gone = new Promise((resolve) => p.once("exit", resolve));
    p.kill("SIGKILL");
    await gone;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    kill,
    restart: async (options) => {
      await kill();
      if (options?.downMs) await new Promise((r) => setTimeout(r, options.downMs));
      await start();
    },
    stop: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
