import { anyRunnerResults } from "../runners/index.ts";
import type { TestRun } from "./run-tests.ts";

/**
 * Tests that need the network, told from how they failed on the unpatched tree, where networking is off:
 * a name that cannot be resolved, a connection refused or a network that cannot be reached, as Python,
 * Node, Go and Java word it. Such a failure says nothing about a patch; the test is named as needing the
 * network and not judged. The output is written by the repository's code: every pattern here is a plain
 * alternation over one line (linear), and lines are cut before they are read.
 */
const NETWORK_ERROR = new RegExp(
  [
    "Temporary failure in name resolution",
    "Name or service not known",
    "nodename nor servname provided",
    "No address associated with hostname",
    "getaddrinfo (?:EAI_AGAIN|ENOTFOUND|failed)",
    "\\bEAI_AGAIN\\b",
    "\\bEAI_NONAME\\b",
    "\\bENOTFOUND\\b",
    "\\bENETUNREACH\\b",
    "\\bEHOSTUNREACH\\b",
    "\\bECONNREFUSED\\b",
    "Network is unreachable",
    "No route to host",
    "Connection refused",
    "urlopen error",
    "socket\\.gaierror",
    "\\bgaierror\\b",
    "requests\\.exceptions\\.ConnectionError",
    "urllib3\\.exceptions\\.(?:NewConnectionError|MaxRetryError|NameResolutionError)",
    "NameResolutionError",
    "Failed to establish a new connection",
    "Failed to resolve '",
    "httpx\\.ConnectError",
    "aiohttp\\.client_exceptions\\.ClientConnectorError",
    "dial tcp: lookup ",
    "java\\.net\\.(?:UnknownHostException|ConnectException|NoRouteToHostException)",
  ].join("|"),
);

/** Longest line read, and most of a run's output scanned. */
const MAX_LINE = 2000;
const MAX_SCAN = 4 * 1024 * 1024;

/** The network error a line shows, trimmed for the report, or null. */
export function networkErrorIn(line: string): string | null {
  const l = line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line;
  if (!NETWORK_ERROR.test(l)) return null;
  const t = l.trim().replace(/^E\s+/, "");
  return t.length > 200 ? `${t.slice(0, 197)}…` : t;
}

/** A block of output that reports one failure, and the network error found in it. */
interface Block {
  /** Matches a failed test id. */
  owns: (id: string) => boolean;
  evidence: string | null;
}

/** The header of a failure's block, as any runner prints it (see `failureBlock`). */
function headerOf(line: string): Block | null {
  const b = anyRunnerResults.failureBlock?.(line) ?? null;
  return b && { owns: b.owns, evidence: b.reason === null ? null : networkErrorIn(b.reason) };
}

/**
 * The targets of an unpatched run whose tests failed only because the network is off: each failed
 * test's report shows a network error (or, when the run ran that target `alone`, its output does), and
 * none of its tests passed. Each is given the first such error line.
 */
export function networkBound(
  run: TestRun,
  targets: readonly string[],
  ownerOf: (id: string, files?: readonly string[]) => string | null,
  alone = targets.length === 1,
): Map<string, string> {
  const out = new Map<string, string>();
  if (!run.tests || run.tests.size === 0) return out;
  const failed = new Map<string, string[]>();
  const passed = new Set<string>();
  for (const [id, o] of run.tests) {
    const t = targets.includes(id) ? id : ownerOf(id, run.files?.get(id));
    if (t === null || !targets.includes(t)) continue;
    if (o === "failed") failed.set(t, [...(failed.get(t) ?? []), id]);
    else if (o === "passed") passed.add(t);
  }
  if (failed.size === 0) return out;
  const text = `${run.exec.stdout}\n${run.exec.stderr}`.slice(0, MAX_SCAN);
  const evidence = new Map<string, string>();
  let block: Block | null = null;
  let anyLine: string | null = null;
  const close = () => {
    if (!block?.evidence) return;
    for (const ids of failed.values())
      for (const id of ids) if (!evidence.has(id) && block.owns(id)) evidence.set(id, block.evidence);
  };
  let from = 0;
  while (from < text.length) {
    let to = text.indexOf("\n", from);
    if (to < 0) to = text.length;
    const line = text.slice(from, Math.min(to, from + MAX_LINE));
    from = to + 1;
    const head = headerOf(line);
    if (head) {
      close();
      block = head;
      continue;
    }
    const e = networkErrorIn(line);
    if (e === null) continue;
    anyLine ??= e;
    if (block && block.evidence === null) block.evidence = e;
  }
  close();
  for (const [t, ids] of failed) {
    if (passed.has(t)) continue;
    if (!ids.every((id) => evidence.has(id) || (alone && anyLine !== null))) continue;
    out.set(t, ids.map((id) => evidence.get(id)).find((x) => x !== undefined) ?? anyLine!);
  }
  return out;
}
