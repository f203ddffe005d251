/**
 * The webhook proxy client against a real event-stream server on loopback that drops the connection,
 * then refuses it for a while, then takes it back: every delivery sent while connected reaches the
 * webhook server, the client retries with backoff, and it logs one line per change of state.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { startWebhookProxy } from "../../src/app/webhook-proxy.ts";

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
const close = (s: Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const delivery = (id: string) =>
  `data: ${JSON.stringify({
    "x-github-event": "issues",
    "x-github-delivery": id,
    "x-hub-signature-256": "sha256=abc",
    host: "smee.example",
    body: { action: "opened", id },
    query: { probe: "1" },
  })}\n\n`;

function recordingLog() {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    log: {
      info: (msg: string) => lines.push({ level: "info", msg }),
      warn: (msg: string) => lines.push({ level: "warn", msg }),
    },
  };
}

test("a channel that drops and refuses for a while is reconnected with backoff, one log line per change", async () => {
  const received: { headers: IncomingMessage["headers"]; body: string; url: string }[] = [];
  const hook = await listen((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body, url: req.url ?? "" });
      res.end("ok");
    });
  });
  let connections = 0;
  const channel = await listen((req, res) => {
    connections++;
    const n = connections;
    if (n === 1) {
      // One delivery (after a ping and a comment), then the connection is cut mid-stream.
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": keep-alive\n\nevent: ping\ndata: {}\n\n");
      res.write(delivery("d-1"));
      setTimeout(() => req.socket.destroy(), 50);
    } else if (n <= 3) {
      res.writeHead(503).end("down for maintenance"); // two refused attempts
    } else if (n === 4) {
      res.writeHead(200, { "content-type": "text/html" }).end("<html>a captive portal</html>");
    } else {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: not json\n\n"); // skipped, the stream goes on
      res.write(delivery("d-2"));
    }
  });
  const { lines, log } = recordingLog();
  const proxy = startWebhookProxy({
    source: `${channel.url}/chan`,
    target: `${hook.url}/api/github/webhooks`,
    log,
    initialBackoffMs: 5,
    maxBackoffMs: 40,
  });
  try {
    await until("both deliveries", () => received.length === 2);
    assert.equal(connections, 5, "dropped once, refused twice, a web page once, then connected");
    assert.equal(proxy.state(), "connected");
    assert.deepEqual(
      received.map((r) => JSON.parse(r.body).id),
      ["d-1", "d-2"],
    );
    const first = received[0]!;
    assert.equal(first.url, "/api/github/webhooks?probe=1");
    assert.equal(first.headers["x-github-event"], "issues");
    assert.equal(first.headers["x-hub-signature-256"], "sha256=abc");
    assert.equal(first.headers["content-type"], "application/json");
    assert.notEqual(first.headers.host, "smee.example", "the channel's host header is not forwarded");
    await until("both answers counted", () => proxy.forwarded() === 2);

    assert.deepEqual(
      lines.map((l) => l.level),
      ["info", "warn", "info"],
      lines.map((l) => l.msg).join("\n"),
    );
    assert.match(
      lines[0]!.msg,
      /^webhooks: proxy connected to http:\/\/127\.0\.0\.1:\d+\/chan, forwarding to /,
    );
    assert.match(
      lines[1]!.msg,
      /^webhooks: proxy http:\/\/127\.0\.0\.1:\d+\/chan dropped \(.+\); retrying with backoff/,
    );
    assert.match(lines[2]!.msg, /^webhooks: proxy reconnected to .* after 4 failed attempts$/);
  } finally {
    await proxy.stop();
    await close(channel.server);
    await close(hook.server);
  }
  assert.equal(proxy.state(), "stopped");
});

test("a channel that cannot be reached at start is said once, retried, and stop ends the retries", async () => {
  // A port nothing listens on: every attempt is refused.
  const dead = await listen(() => {});
  const deadUrl = `${dead.url}/chan`;
  await close(dead.server);
  const { lines, log } = recordingLog();
  let attempts = 0;
  const counting = await listen((_req, res) => {
    attempts++;
    res.writeHead(404).end();
  });
  const proxy = startWebhookProxy({
    source: deadUrl,
    target: "http://127.0.0.1:9/hook",
    log,
    initialBackoffMs: 5,
    maxBackoffMs: 20,
  });
  const refused = startWebhookProxy({
    source: `${counting.url}/gone`,
    target: "http://127.0.0.1:9/hook",
    log: recordingLog().log,
    initialBackoffMs: 5,
    maxBackoffMs: 20,
  });
  try {
    await until("several refused attempts", () => attempts >= 4);
    await until("the unreachable line", () => lines.length > 0);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(lines.length, 1, lines.map((l) => l.msg).join("\n"));
    assert.equal(lines[0]!.level, "warn");
    assert.match(
      lines[0]!.msg,
      /^webhooks: proxy http:\/\/127\.0\.0\.1:\d+\/chan cannot be reached \(ECONNREFUSED\); retrying/,
    );
    assert.equal(proxy.state(), "down");
  } finally {
    await proxy.stop();
    await refused.stop();
  }
  const after = attempts;
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(attempts, after, "no attempt after stop");
  await close(counting.server);
});
