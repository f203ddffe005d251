/**
 * The language runtimes' versions as the sandbox runs them (`python3 --version`, `node --version`,
 * `go version`, `java -version`), read once per run for the prompts that need them: a model told the
 * version writes for it instead of guarding against several.
 */
import type { SandboxPort } from "./types.ts";

export type RuntimeName = "python" | "node" | "go" | "java";

const RUNTIMES: Record<RuntimeName, { label: string; command: string; version: RegExp }> = {
  python: { label: "Python", command: "python3 --version", version: /\bPython (\d+\.\d+(?:\.\d+)?[\w.+-]*)/ },
  node: { label: "Node.js", command: "node --version", version: /^v(\d+\.\d+\.\d+[\w.+-]*)\s*$/m },
  go: { label: "Go", command: "go version", version: /\bgo version go(\d+\.\d+(?:\.\d+)?[\w.+-]*)/ },
  java: {
    label: "Java",
    command: "java -version",
    version: /\b(?:openjdk|java) version "(\d[\w.+-]*)"/,
  },
};

/** The runtimes a repository's prompts need: its language's, and its reproducer's. */
export function runtimesFor(language: string, reproducerRuntime: string): RuntimeName[] {
  const of = (x: string): RuntimeName | null =>
    x === "python"
      ? "python"
      : x === "javascript" || x === "typescript" || x === "node"
        ? "node"
        : x === "go"
          ? "go"
          : x === "java"
            ? "java"
            : null;
  return [...new Set([of(language), of(reproducerRuntime)].filter((x): x is RuntimeName => x !== null))];
}

/** Each runtime's version from the output of `versionScript` (null: not installed or not read). */
export function parseVersions(
  output: string,
  runtimes: readonly RuntimeName[],
): Map<RuntimeName, string | null> {
  const out = new Map<RuntimeName, string | null>();
  const sections = output.split(/^@@runtime (\w+)$/m);
  for (const name of runtimes) {
    const i = sections.indexOf(name);
    const text = i >= 0 ? (sections[i + 1] ?? "") : "";
    const m = RUNTIMES[name].version.exec(text);
    out.set(name, m ? m[1]!.slice(0, 40) : null);
  }
  return out;
}

/** One shell command printing each runtime's version after a marker line. */
export function versionScript(runtimes: readonly RuntimeName[]): string {
  return runtimes.map((n) => `echo '@@runtime ${n}'; ${RUNTIMES[n].command} 2>&1 | head -n 3`).join("; ");
}

/** The line for a prompt: `Runtime in the sandbox: Python 3.12.3.` ("" when none could be read). */
export function runtimeLine(versions: Map<RuntimeName, string | null>): string {
  const known = [...versions]
    .filter((e): e is [RuntimeName, string] => e[1] !== null)
    .map(([n, v]) => `${RUNTIMES[n].label} ${v}`);
  if (known.length === 0) return "";
  return `${known.length === 1 ? "Runtime" : "Runtimes"} in the sandbox: ${known.join(", ")}.`;
}

/**
 * Runs the version commands in the sandbox on `workdir` (a tree the stages run in), network off, within
 * a few seconds; "" when the sandbox could not say (the prompts then say nothing of it, never a guess).
 */
export async function readRuntimeLine(
  sandbox: SandboxPort,
  workdir: string,
  runtimes: readonly RuntimeName[],
  signal?: AbortSignal,
): Promise<string> {
  if (runtimes.length === 0) return "";
  const exec = await sandbox.run({
    workdir,
    command: versionScript(runtimes),
    timeoutMs: 20_000,
    maxOutputBytes: 64 * 1024,
    ...(signal ? { signal } : {}),
  });
  if (exec.limit !== null) return "";
  return runtimeLine(parseVersions(`${exec.stdout}\n${exec.stderr}`, runtimes));
}
