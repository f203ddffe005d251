import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trackTempDir } from "./temp-dirs.ts";

/**
 * The whole environment of every git command the host runs (`git apply`, the local remote's git and
 * `http-backend`): a fixed PATH, no variable of the host's (no token, no key, no `GIT_*` that redirects
 * git's directory, config, hooks or object store), no system or global configuration, HOME and the XDG
 * configuration folder pointed at an empty folder of auto-fix's own, no terminal prompt. `extra` adds
 * what one command needs (the http-backend's CGI variables).
 */
export function hostGitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = gitHome();
  return {
    PATH: SAFE_PATH,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    LANG: "C",
    LC_ALL: "C",
    ...extra,
  };
}

/** Where git may look for programs: the system's folders, never a folder a variable of the host adds. */
const SAFE_PATH = "/usr/local/bin:/usr/bin:/bin";

let home: string | null = null;

/** An empty folder of auto-fix's own, made once per process with a fresh name (mode 0700). */
function gitHome(): string {
  if (home === null) {
    home = mkdtempSync(join(tmpdir(), "auto-fix-git-home-"));
    // Removed when the process exits.
    trackTempDir(home);
  }
  return home;
}
