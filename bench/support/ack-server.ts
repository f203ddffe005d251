/**
 * What the webhook handler does on a delivery, without the rest of the app: verify the signature, read the
 * fields a job needs, store the job (enqueue), acknowledge. Prints "listening <port>" when ready.
 * Env: ACK_BACKEND_DATA_DIR, REDIS_URL (optional), WEBHOOK_SECRET, ACK_PREFIX.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import { createJobQueue } from "../../src/jobs/create-queue.ts";
import type { JobSpec } from "../../src/jobs/types.ts";

const secret = process.env.WEBHOOK_SECRET ?? "";
const queue = createJobQueue({
  dataDir: process.env.ACK_BACKEND_DATA_DIR ?? ".auto-fix/bench",
  redisUrl: process.env.REDIS_URL,
  ...(process.env.ACK_PREFIX && { prefix: process.env.ACK_PREFIX }),
});

function verify(body: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith("sha256=")) return false;
  const want = Buffer.from(`sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
  const got = Buffer.from(header);
  return got.length === want.length && timingSafeEqual(got, want);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    if (!verify(body, req.headers["x-hub-signature-256"] as string | undefined)) {
      res.writeHead(401).end("bad signature\n");
      return;
    }
    let spec: JobSpec;
    try {
      const p = JSON.parse(body.toString("utf8"));
      spec = {
        deliveryId: String(req.headers["x-github-delivery"] ?? ""),
        kind: "run",
        installationId: p.installation?.id ?? 0,
        owner: p.repository.owner.login,
        repo: p.repository.name,
        issueNumber: p.issue.number,
        sender: p.sender.login,
      };
    } catch {
      res.writeHead(400).end("bad payload\n");
      return;
    }
    queue.enqueue(spec).then(
      (out) => res.writeHead(202, { "content-type": "application/json" }).end(JSON.stringify(out)),
      (err: unknown) => res.writeHead(500).end(`${String(err)}\n`),
    );
  });
});

// Longer than the load generator keeps idle connections, so a reused connection is never closed under it.
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`listening ${port}\n`);
});
process.on("SIGTERM", () => {
  server.close();
  void queue.close?.().then(() => process.exit(0));
});
