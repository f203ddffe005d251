import { execFileSync } from "node:child_process";
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
  const found: ToolMount[] = [];
  const add = (name: string, prefix: string | null): void => {
    if (!prefix || !existsSync(`${prefix}/bin`)) return;
    const real = realpathSync(prefix);
    if (isSystem(`${real}/`) || found.some((t) => t.prefix === real)) return;
    found.push({ name, prefix: real });
  };
  add("python3", run("python3", ["-c", "import sys; print(sys.base_prefix)"]));
  add("node", dirname(dirname(realpathSync(process.execPath))));
  const goroot = run("go", ["env", "GOROOT"]);
  if (goroot) add("go", goroot);
  cached = found;
  return found;
}
