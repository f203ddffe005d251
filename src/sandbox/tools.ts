import { execFile, execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname } from "node:path";

/** A language toolchain that lives outside the system directories, mounted read-only at its own path. */
export interface ToolMount {
  name: string;
  /** Host directory (its `bin` goes on the sandbox PATH). */
  prefix: string;
}

const SYSTEM_DIRS = ["/usr/", "/bin/", "/lib/", "/lib64/", "/sbin/"];
const isSystem = (p: string): boolean => SYSTEM_DIRS.some((d) => p.startsWith(d));

let cached: ToolMount[] | undefined;
let pending: Promise<ToolMount[]> | undefined;

function run(cmd: string, args: string[]): string | null {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

/**
 * The toolchains the host would use (python3, node, go) when they are installed outside the system
 * directories (pyenv, nvm, a Node tarball in /opt): their install prefix only, never the rest of the
 * directory they sit in. Computed once per process.
 */
export function discoverToolMounts(): ToolMount[] {
  if (cached) return cached;
  cached = toolMountsOf(
    run("python3", ["-c", "import sys; print(sys.base_prefix)"]),
    run("go", ["env", "GOROOT"]),
  );
  return cached;
}

function runAsync(cmd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(cmd, args, { encoding: "utf8", timeout: 10_000 }, (err, out) =>
      resolve(err ? null : out.toString().trim()),
    );
  });
}

/**
 * `discoverToolMounts`, its probes run side by side without blocking: started early (a command's first
 * steps), the answer is ready when the sandbox is made. A version manager's shim for python3 (pyenv)
 * can take a second or more to answer on a busy machine.
 */
export function prefetchToolMounts(): Promise<ToolMount[]> {
  if (cached) return Promise.resolve(cached);
  pending ??= Promise.all([
    runAsync("python3", ["-c", "import sys; print(sys.base_prefix)"]),
    runAsync("go", ["env", "GOROOT"]),
  ]).then(([python, goroot]) => {
    cached ??= toolMountsOf(python, goroot);
    return cached;
  });
  return pending;
}

function toolMountsOf(pythonPrefix: string | null, goroot: string | null): ToolMount[] {
  const found: ToolMount[] = [];
  const add = (name: string, prefix: string | null): void => {
    if (!prefix || !existsSync(`${prefix}/bin`)) return;
    const real = realpathSync(prefix);
    if (isSystem(`${real}/`) || found.some((t) => t.prefix === real)) return;
    found.push({ name, prefix: real });
  };
  add("python3", pythonPrefix);
  add("node", dirname(dirname(realpathSync(process.execPath))));
  if (goroot) add("go", goroot);
  return found;
}
