import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { BwrapSandbox, type ExecResult, parseAllowList } from "../../src/sandbox/index.ts";
import { hostAddresses } from "../../src/sandbox/network.ts";
import { type RedisServer, startRedis } from "../jobs/support/redis-server.ts";

// Setup steps get network through their own namespace and slirp4netns: each probe below tries to reach
// the host (its loopback with a real Redis, its own address, the slirp gateway that would map to the
// host's loopback, an abstract unix socket) and must fail; an allow-listed address is the control that
// shows the probes and the network itself work.

const isRoot = process.getuid?.() === 0;
let base: string;
let work: string;
let redis: RedisServer;
const servers: Server[] = [];
let hostIp: string;
let anyPort: number;
let hostIpPort: number;
const abstractName = `af-net-test-${process.pid}-${Date.now()}`;
let abstractHits = 0;
let hostHits = 0;

function listen(server: Server, ...args: unknown[]): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => {
    (server.listen as (...a: unknown[]) => void)(...args, () => {
      const addr = server.address();
      resolve(typeof addr === "object" && addr ? addr.port : 0);
    });
  });
}

function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = new Socket();
    s.once("error", reject);
    s.connect(port, "127.0.0.1", () => s.write(command));
    s.once("data", (d) => {
      s.destroy();
      resolve(d.toString());
    });
  });
}

/** A Python probe: one line per target, "OK <reply>" or "FAIL <error>". */
function probe(targets: Array<[string, string | number]>): string[] {
  const code = [
    "import socket, sys",
    "for host, port in [" +
      targets.map(([h, p]) => `(${JSON.stringify(h)}, ${JSON.stringify(p)})`).join(", ") +
      "]:",
    "    try:",
    "        if host == 'abstract':",
    "            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(3); s.connect('\\0' + port)",
    "        else:",
    "            s = socket.create_connection((host, port), timeout=3)",
    "        s.sendall(b'FLUSHALL\\r\\n'); print(host, port, 'OK', s.recv(100))",
    "    except Exception as e:",
    "        print(host, port, 'FAIL', type(e).__name__, e)",
  ].join("\n");
  return ["python3", "-c", code];
}

const line = (r: ExecResult, host: string): string =>
  r.stdout.split("\n").find((l) => l.startsWith(`${host} `)) ?? `${host}: no output\n${r.stdout}${r.stderr}`;

before(async () => {
  base = mkdtempSync(join(tmpdir(), "af-net-"));
  work = join(base, "work");
  mkdirSync(work);
  if (!isRoot) return;
  redis = await startRedis();
  await redisCommand(redis.port, "SET af-canary alive\r\n");
  hostIp = hostAddresses().find((a) => !a.startsWith("127."))!;
  // A service on all addresses (reachable via the host's own address) and one on the host address only.
  anyPort = await listen(
    createServer((s) => {
      hostHits++;
      s.end("host-any\n");
    }),
    0,
    "0.0.0.0",
  );
  hostIpPort = await listen(
    createServer((s) => {
      hostHits++;
      s.end("host-ip\n");
    }),
    0,
    hostIp,
  );
  await listen(
    createServer((s) => {
      abstractHits++;
      s.end("abstract\n");
    }),
    `\0${abstractName}`,
  );
});

after(async () => {
  for (const s of servers) s.close();
  await redis?.stop();
  rmSync(base, { recursive: true, force: true });
});

describe("network for setup steps", { skip: !isRoot && "network runs need root" }, () => {
  test("the host's loopback (a real Redis), own addresses and abstract sockets are unreachable; attempts are listed", async () => {
    assert.ok(hostIp, "the host needs a non-loopback address for this test");
    const sb = new BwrapSandbox({ networkAllow: ["*"] });
    const r = await sb.run({
      workdir: work,
      network: true,
      timeoutMs: 60_000,
      command: probe([
        ["127.0.0.1", redis.port],
        ["10.0.2.2", redis.port],
        [hostIp, redis.port],
        [hostIp, anyPort],
        ["abstract", abstractName],
      ]),
    });
    assert.equal(r.exitCode, 0, r.stderr);
    for (const host of ["127.0.0.1", "10.0.2.2", hostIp, "abstract"]) assert.match(line(r, host), / FAIL /);
    assert.doesNotMatch(r.stdout, / OK /);
    // Redis was not touched: the key written before is still there.
    assert.equal(await redisCommand(redis.port, "GET af-canary\r\n"), "$5\r\nalive\r\n");
    assert.equal(hostHits, 0);
    assert.equal(abstractHits, 0);
    // The firewall's refusals are in the result: the slirp gateway and the host's own address.
    const blocked = r.network!.blocked.map((b) => `${b.address}:${b.port}/${b.protocol}`);
    assert.ok(blocked.includes(`10.0.2.2:${redis.port}/tcp`), blocked.join(" "));
    assert.ok(blocked.includes(`${hostIp}:${anyPort}/tcp`), blocked.join(" "));
    assert.equal(r.network!.tool, "slirp4netns");
    assert.equal(r.network!.allow, "public");
  });

  test("an allow-listed address is reachable, everything else is refused and listed", async () => {
    const sb = new BwrapSandbox({ networkAllow: [hostIp] });
    const r = await sb.run({
      workdir: work,
      network: true,
      timeoutMs: 60_000,
      command: probe([
        [hostIp, hostIpPort],
        ["1.1.1.1", 443],
        ["10.0.2.2", anyPort],
      ]),
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(line(r, hostIp), /OK b'host-ip\\n'/);
    assert.match(line(r, "1.1.1.1"), /FAIL ConnectionRefusedError/);
    assert.match(line(r, "10.0.2.2"), /FAIL/);
    assert.deepEqual(
      r.network!.blocked.map((b) => `${b.address}:${b.port}`).sort(),
      [`1.1.1.1:443`, `10.0.2.2:${anyPort}`].sort(),
    );
    assert.equal(hostHits, 1);
  });

  test("an allow-listed name that resolves to the host or a private address is not followed", async () => {
    // The machine's own name resolves to one of its addresses (a rebinding attempt looks the same).
    const { hostname } = await import("node:os");
    const sb = new BwrapSandbox({ networkAllow: [hostname(), "no-such-host.invalid"] });
    const r = await sb.run({
      workdir: work,
      network: true,
      timeoutMs: 60_000,
      command: `getent hosts no-such-host.invalid || echo unresolved; cat /etc/hosts`,
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /unresolved/);
    assert.deepEqual(r.network!.resolved, {});
    assert.ok(r.network!.unusable.some((u) => u.startsWith(hostname())));
    assert.ok(r.network!.unusable.includes("no-such-host.invalid (did not resolve)"));
  });

  test("without slirp4netns the run is refused, never given the host's network", async () => {
    const sb = new BwrapSandbox({ networkTools: { slirp4netns: "/nonexistent/slirp4netns" } });
    const marker = join(work, "ran");
    const r = await sb.run({ workdir: work, network: true, command: "touch ran" });
    assert.equal(r.exitCode, 126);
    assert.match(r.stderr, /network refused: .*slirp4netns.*never shared/);
    assert.match(r.network!.refused!, /Debian package 'slirp4netns'/);
    assert.equal(existsSync(marker), false);
    const caps = await sb.capabilities();
    assert.equal(caps.networkAccess, "refused");
  });

  test("no network is the default: no interface but loopback", async () => {
    const sb = new BwrapSandbox();
    const r = await sb.run({
      workdir: work,
      command: ["sh", "-c", "cat /proc/net/dev | tail -n +3 | cut -d: -f1"],
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(
      r.stdout
        .split("\n")
        .map((s) => s.trim())
        .filter(Boolean),
      ["lo"],
    );
    assert.equal(r.network, undefined);
  });

  test("nothing of a network run is left on the host: no staging folder, no slirp4netns", () => {
    assert.deepEqual(
      readdirSync(tmpdir()).filter((n) => n.startsWith(`auto-fix-run-${process.pid}-`)),
      [],
    );
    const slirps = readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          const stat = readFileSync(`/proc/${p}/stat`, "utf8");
          return stat.includes("(slirp4netns)") && Number(stat.split(") ")[1]!.split(" ")[1]) === process.pid;
        } catch {
          return false;
        }
      });
    assert.deepEqual(slirps, []);
  });
});

test("the allow-list refuses the host's loopback and the sandbox's own network, and malformed entries", () => {
  assert.equal(parseAllowList(["pypi.org", "*"]), "public");
  assert.deepEqual(parseAllowList([" PyPI.org ", "203.0.113.7", "198.51.100.0/24"]), [
    "pypi.org",
    "203.0.113.7",
    "198.51.100.0/24",
  ]);
  assert.throws(() => parseAllowList(["127.0.0.1"]), /reach the host/);
  assert.throws(() => parseAllowList(["10.0.2.2"]), /reach the host/);
  assert.throws(() => parseAllowList(["0.0.0.0/0"]), /reach the host/);
  assert.throws(() => parseAllowList(["::1"]), /IPv6/);
  assert.throws(() => parseAllowList(["evil host"]), /not a host name/);
  assert.throws(() => parseAllowList(["300.1.1.1"]), /not a host name|not an IPv4/);
});
