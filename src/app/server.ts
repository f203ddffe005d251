import { createServer } from "node:net";
import { pino } from "pino";
import { Probot, Server } from "probot";
import { AutoFixOctokit } from "./octokit.ts";
import { type AppOptions, createAutoFixApp } from "./app.ts";

/** The REST root Probot uses for these settings: GHE_HOST/GHE_PROTOCOL, as Probot itself reads them. */
export function githubBaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  return env.GHE_HOST ? `${env.GHE_PROTOCOL || "https"}://${env.GHE_HOST}/api/v3` : undefined;
}

/** A free TCP port on `host` (Probot's Server treats port 0 as "use 3000"). */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, host, () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface AppServer {
  url: string;
  webhookUrl: string;
  server: Server;
  stop(): Promise<void>;
}

/**
 * Starts the app in a Probot server with explicit credentials (what `probot run` does once the app is
 * registered), for embedding and for tests. `start.ts` uses Probot's `run()` instead.
 */
export async function startAppServer(options: {
  appId: number;
  privateKey: string;
  secret: string;
  env: NodeJS.ProcessEnv;
  app: AppOptions;
  host?: string;
  port?: number;
}): Promise<AppServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? (await freePort(host));
  const log = pino({ level: options.env.LOG_LEVEL ?? "silent" });
  const baseUrl = githubBaseUrl(options.env);
  const server = new Server({
    host,
    port,
    log,
    Probot: Probot.defaults({
      Octokit: AutoFixOctokit,
      appId: options.appId,
      privateKey: options.privateKey,
      secret: options.secret,
      log,
      ...(baseUrl ? { baseUrl } : {}),
    }),
  });
  const stopping = new AbortController();
  await server.load(createAutoFixApp({ ...options.app, signal: stopping.signal }));
  await server.start();
  const url = `http://${host}:${server.port}`;
  return {
    url,
    webhookUrl: `${url}/api/github/webhooks`,
    server,
    async stop() {
      stopping.abort();
      await server.stop();
      await options.app.queue.stop(5_000);
    },
  };
}
