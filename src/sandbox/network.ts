import { type ChildProcess, execFile, spawn } from "node:child_process";
import { lookup } from "node:dns/promises";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { isIPv4, isIPv6 } from "node:net";
import { networkInterfaces } from "node:os";
import type { BlockedAttempt, NetworkReport } from "./types.ts";

/**
 * Network for setup steps without a view of the host. A run that asks for network gets bubblewrap's own
 * network namespace, and outbound access only through slirp4netns (user-mode TCP/IP: the sandbox's
 * packets become ordinary sockets of a host process) started with `--disable-host-loopback`, so the
 * host's 127.0.0.1/::1 are not reachable through it. A firewall (nftables, in the sandbox's namespace,
 * where the sandboxed code has no capability to change it) lets packets out only to the allow-listed
 * addresses — or, in "public" mode, to any address outside the private, loopback, link-local and
 * shared ranges and the host's own addresses — and records every refused destination for the report.
 * Allow-listed names are resolved on the host and pinned in the sandbox's /etc/hosts; no DNS server is
 * reachable in allow-list mode.
 */

/** Package registries: the default allow-list (override with AUTO_FIX_NETWORK_ALLOW). */
export const DEFAULT_NETWORK_ALLOW: readonly string[] = [
  "pypi.org",
  "files.pythonhosted.org",
  "registry.npmjs.org",
  "registry.yarnpkg.com",
  "repo.maven.apache.org",
  "repo1.maven.org",
  "plugins.gradle.org",
  "plugins-artifacts.gradle.org",
  "services.gradle.org",
  "downloads.gradle.org",
  "proxy.golang.org",
  "sum.golang.org",
  "crates.io",
  "index.crates.io",
  "static.crates.io",
  "rubygems.org",
  "index.rubygems.org",
  "github.com",
  "codeload.github.com",
  "objects.githubusercontent.com",
];

/** Never reachable unless an operator allow-lists an address in them explicitly. */
const DENY_V4 = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "224.0.0.0/3",
];

/** slirp4netns's defaults: the sandbox is 10.0.2.100, its DNS forwarder 10.0.2.3. */
const SLIRP_DNS = "10.0.2.3";
const RESOLVE_TIMEOUT_MS = 3000;

export interface NetworkPlan {
  /** "public" or the allow-listed names and addresses (CIDR ranges allowed). */
  allow: "public" | string[];
  /** Names resolved on the host → pinned addresses. */
  resolved: Record<string, string[]>;
  unusable: string[];
  /** Literal IPv4 addresses and ranges an operator allowed. */
  literals: string[];
  hostsFile: string;
  resolvConf: string;
  ruleset: string;
}

export class NetworkConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NetworkConfigError";
  }
}

const CIDR4 = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/;
const HOSTNAME =
  /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/i;

function v4ToInt(ip: string): number {
  return ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);
}

export function inRange4(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split("/") as [string, string];
  const b = Number(bits);
  if (b === 0) return true;
  const mask = 2 ** 32 - 2 ** (32 - b);
  return (v4ToInt(ip) & mask) >>> 0 === (v4ToInt(base) & mask) >>> 0;
}

/** The host's own IPv4 addresses (a process reaching them would reach the host's services). */
export function hostAddresses(): string[] {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4") out.add(a.address);
  }
  return [...out];
}

const privateOrHost = (ip: string, host: string[]): boolean =>
  DENY_V4.some((r) => inRange4(ip, r)) || host.includes(ip);

/**
 * Parses an allow-list (`*` = any public address; names; IPv4 addresses; IPv4 CIDR ranges). Loopback
 * and the sandbox's own slirp network are refused even when listed.
 */
export function parseAllowList(entries: readonly string[]): "public" | string[] {
  const clean = entries.map((e) => e.trim().toLowerCase()).filter((e) => e !== "");
  if (clean.includes("*")) return "public";
  for (const e of clean) {
    const cidr = CIDR4.exec(e);
    const ip = cidr ? cidr[1]! : e;
    if (isIPv6(e))
      throw new NetworkConfigError(`network allow-list: IPv6 is not routed in the sandbox: ${e}`);
    if (cidr || isIPv4(ip) || /^[\d.]+$/.test(e)) {
      if (!isIPv4(ip) || (cidr && Number(cidr[2]) > 32))
        throw new NetworkConfigError(`network allow-list: not an IPv4 address or range: ${e}`);
      if (inRange4(ip, "127.0.0.0/8") || inRange4(ip, "10.0.2.0/24") || (cidr && Number(cidr[2]) < 8))
        throw new NetworkConfigError(
          `network allow-list: ${e} would reach the host or the sandbox's own network; refused`,
        );
      continue;
    }
    if (!HOSTNAME.test(e)) throw new NetworkConfigError(`network allow-list: not a host name: ${e}`);
  }
  return clean;
}

/** The allow-list from `AUTO_FIX_NETWORK_ALLOW` (comma or space separated), else the registries. */
export function networkAllowFromEnv(env: NodeJS.ProcessEnv): "public" | string[] {
  const v = env.AUTO_FIX_NETWORK_ALLOW;
  if (v === undefined || v.trim() === "") return [...DEFAULT_NETWORK_ALLOW];
  return parseAllowList(v.split(/[\s,]+/));
}

/** Answers kept for a minute, so a run of setup steps does not resolve the registries again each time. */
export type ResolveCache = Map<string, { addresses: string[]; at: number }>;
const CACHE_MS = 60_000;

async function resolveAll(names: string[], cache?: ResolveCache): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const now = Date.now();
  const todo: string[] = [];
  for (const name of names) {
    const hit = cache?.get(name);
    if (hit && now - hit.at < CACHE_MS) out.set(name, hit.addresses);
    else todo.push(name);
  }
  names = todo;
  const deadline = new Promise<null>((r) => setTimeout(() => r(null), RESOLVE_TIMEOUT_MS).unref());
  await Promise.all(
    names.map(async (name) => {
      const found = await Promise.race([lookup(name, { all: true, family: 4 }).catch(() => null), deadline]);
      const addresses = found ? [...new Set(found.map((a) => a.address))] : [];
      out.set(name, addresses);
      cache?.set(name, { addresses, at: now });
    }),
  );
  return out;
}

/** Resolves the allow-list on the host and builds the firewall, /etc/hosts and resolv.conf of a run. */
export async function planNetwork(allow: "public" | string[], cache?: ResolveCache): Promise<NetworkPlan> {
  const host = hostAddresses();
  const resolved: Record<string, string[]> = {};
  const unusable: string[] = [];
  const literals: string[] = [];
  const pinned: Array<[string, string]> = [];
  if (allow !== "public") {
    const names = allow.filter((e) => !CIDR4.test(e) && !isIPv4(e));
    for (const e of allow) if (CIDR4.test(e) || isIPv4(e)) literals.push(e);
    const answers = await resolveAll(names, cache);
    for (const name of names) {
      const all = answers.get(name) ?? [];
      // A name that resolves into a private range or onto the host is not followed (DNS rebinding).
      const ok = all.filter((ip) => !privateOrHost(ip, host));
      if (ok.length === 0) {
        unusable.push(all.length === 0 ? `${name} (did not resolve)` : `${name} (private address only)`);
        continue;
      }
      resolved[name] = ok;
      for (const ip of ok) pinned.push([ip, name]);
    }
  }
  const allowed = [...new Set([...literals, ...Object.values(resolved).flat()])];
  const deny = [...DENY_V4, ...host.map((a) => `${a}/32`)];
  const rules = [
    "table inet autofix {",
    `  set allow4 { type ipv4_addr; flags interval; auto-merge;${allowed.length ? ` elements = { ${allowed.join(", ")} };` : ""} }`,
    `  set deny4 { type ipv4_addr; flags interval; auto-merge; elements = { ${deny.join(", ")} }; }`,
    "  set blocked4 { type ipv4_addr . inet_proto . inet_service; size 4096; flags dynamic; }",
    "  set blockedip4 { type ipv4_addr; size 1024; flags dynamic; }",
    "  set blocked6 { type ipv6_addr . inet_proto . inet_service; size 1024; flags dynamic; }",
    "  chain out {",
    "    type filter hook output priority 0; policy drop;",
    '    oif "lo" accept',
    ...(allow === "public" ? [`    ip daddr ${SLIRP_DNS} meta l4proto { tcp, udp } th dport 53 accept`] : []),
    "    ip daddr @allow4 accept",
    ...(allow === "public" ? ["    meta nfproto ipv4 ip daddr != @deny4 accept"] : []),
    "    meta nfproto ipv4 meta l4proto { tcp, udp } add @blocked4 { ip daddr . meta l4proto . th dport }",
    "    meta nfproto ipv4 meta l4proto != { tcp, udp } add @blockedip4 { ip daddr }",
    "    meta nfproto ipv6 meta l4proto { tcp, udp } add @blocked6 { ip6 daddr . meta l4proto . th dport }",
    "    meta l4proto tcp reject with tcp reset",
    "    reject with icmpx admin-prohibited",
    "  }",
    "}",
    "",
  ].join("\n");
  const hostsFile = [
    "127.0.0.1 localhost",
    "::1 localhost ip6-localhost ip6-loopback",
    "127.0.1.1 sandbox",
    ...pinned.map(([ip, name]) => `${ip} ${name}`),
    "",
  ].join("\n");
  const resolvConf =
    allow === "public"
      ? `nameserver ${SLIRP_DNS}\noptions attempts:2 timeout:3\n`
      : "# auto-fix: only allow-listed hosts resolve (see /etc/hosts); no DNS server is reachable\nnameserver 127.0.0.1\noptions attempts:1 timeout:1\n";
  return { allow, resolved, unusable, literals, hostsFile, resolvConf, ruleset: rules };
}

function run(cmd: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { timeout: 10_000, encoding: "utf8", env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${cmd}: ${(stderr || err.message).trim()}`)) : resolve(stdout),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Which tools a network run needs, each found or the reason it is not. */
export function findNetworkTools(paths: { slirp4netns?: string; nft?: string; nsenter?: string } = {}): {
  slirp4netns: string | null;
  nft: string | null;
  nsenter: string | null;
} {
  const find = (explicit: string | undefined, name: string): string | null => {
    if (explicit) return existsSync(explicit) ? explicit : null;
    for (const dir of ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin", "/usr/local/sbin"]) {
      if (existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
    }
    return null;
  };
  return {
    slirp4netns: find(paths.slirp4netns, "slirp4netns"),
    nft: find(paths.nft, "nft"),
    nsenter: find(paths.nsenter, "nsenter"),
  };
}

/** A live network for one sandbox: its firewall, its slirp4netns, and a handle on its namespace. */
export interface NetworkHandle {
  /** The refused attempts so far (read from the firewall). */
  blocked(): Promise<BlockedAttempt[]>;
  close(): void;
}

/**
 * Gives the network namespace of the bubblewrap child `pid` its firewall and its slirp4netns, and
 * resolves once the interface is up.
 */
export async function attachNetwork(
  pid: number,
  plan: NetworkPlan,
  tools: { slirp4netns: string; nft: string; nsenter: string },
): Promise<NetworkHandle> {
  // bubblewrap brings the namespace's loopback up right after it starts; joining the namespace while it
  // does so makes its netlink request fail. Wait until the loopback address is there.
  await loopbackReady(pid);
  // Held open so the namespace (and its firewall counters) outlive the sandboxed processes.
  const nsFd = openSync(`/proc/${pid}/ns/net`, "r");
  const nsPath = `/proc/${process.pid}/fd/${nsFd}`;
  let slirp: ChildProcess | null = null;
  const close = (): void => {
    if (slirp && slirp.exitCode === null) slirp.kill("SIGKILL");
    try {
      closeSync(nsFd);
    } catch {
      // already closed
    }
  };
  try {
    await run(tools.nsenter, [`--net=${nsPath}`, "--", tools.nft, "-f", "-"], plan.ruleset);
    slirp = spawn(
      tools.slirp4netns,
      [
        "--configure",
        "--mtu=65520",
        "--disable-host-loopback",
        "--enable-sandbox",
        "--enable-seccomp",
        "--ready-fd=3",
        "--netns-type=path",
        nsPath,
        "tap0",
      ],
      { stdio: ["ignore", "ignore", "pipe", "pipe"], env: { PATH: "/usr/bin:/bin" } },
    );
    let errText = "";
    slirp.stderr?.on("data", (c: Buffer) => {
      if (errText.length < 4000) errText += c.toString("utf8");
    });
    const proc = slirp;
    await new Promise<void>((resolve, reject) => {
      const ready = proc.stdio[3] as NodeJS.ReadableStream;
      ready.on("error", () => {});
      const timer = setTimeout(() => reject(new Error("slirp4netns did not come up within 10 s")), 10_000);
      ready.once("data", () => {
        clearTimeout(timer);
        resolve();
      });
      proc.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`slirp4netns exited (${code}): ${errText.trim().split("\n").at(-1) ?? ""}`));
      });
      proc.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  } catch (err) {
    close();
    throw err;
  }
  return {
    blocked: async () => {
      const out: BlockedAttempt[] = [];
      for (const set of ["blocked4", "blockedip4", "blocked6"]) {
        const text = await run(tools.nsenter, [
          `--net=${nsPath}`,
          "--",
          tools.nft,
          "-j",
          "list",
          "set",
          "inet",
          "autofix",
          set,
        ]).catch(() => "");
        out.push(...parseBlocked(text));
      }
      return out;
    },
    close,
  };
}

async function loopbackReady(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    let trie = "";
    try {
      trie = readFileSync(`/proc/${pid}/net/fib_trie`, "utf8");
    } catch {
      throw new Error("the sandbox ended before its network was set up");
    }
    if (trie.includes("127.0.0.1")) return;
    if (Date.now() > deadline) throw new Error("the sandbox's loopback did not come up within 10 s");
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The elements of a dynamic set from `nft -j list set` (address, or address . protocol . port). */
export function parseBlocked(json: string): BlockedAttempt[] {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    return [];
  }
  const out: BlockedAttempt[] = [];
  const items = (doc as { nftables?: Array<{ set?: { elem?: unknown[] } }> }).nftables ?? [];
  for (const item of items) {
    for (const raw of item.set?.elem ?? []) {
      const el = (raw as { elem?: { val?: unknown } }).elem?.val ?? raw;
      const concat = (el as { concat?: unknown[] }).concat;
      if (Array.isArray(concat)) {
        const [address, proto, port] = concat;
        out.push({ address: String(address), protocol: String(proto), port: Number(port) });
      } else if (typeof el === "string") {
        out.push({ address: el, protocol: "ip", port: null });
      }
    }
  }
  return out;
}

/** The report of a run whose network could not be set up (nothing of the host's network is shared). */
export function refusedNetwork(allow: "public" | string[], reason: string): NetworkReport {
  return { tool: null, allow, resolved: {}, unusable: [], blocked: [], refused: reason };
}
