import { SANDBOX_HOME } from "./types.ts";

/**
 * Where setup steps' per-user installs go, inside the work tree (its home is thrown away after each
 * run): `pip install --user` in the setup step lands here, and every later copy of the tree sees it.
 * Under `.cache/`, which searches, walks and test runners leave alone. Its name, like everything else
 * the code under test can see, says nothing of auto-fix: a run in the sandbox looks like any CI job.
 */
export const SANDBOX_DEPS_DIR = ".cache/python-user";

/** Names that look like they hold a credential. */
export const SECRET_NAME =
  /TOKEN|SECRET|PASSW|PRIVATE|CREDENTIAL|API_?KEY|ACCESS_?KEY|_KEY$|^KEY$|AUTH|COOKIE|SESSION/i;

/**
 * The environment a sandboxed command gets: a fixed base (nothing copied from the host) plus the
 * caller's extra variables. An extra variable that carries the value of one of the host's secret-looking
 * variables is refused, so a caller cannot pass the host's credentials in by mistake.
 */
export function buildSandboxEnv(
  extra: Record<string, string> | undefined,
  opts: { path: string; home?: string; workdir: string; hostEnv?: NodeJS.ProcessEnv },
): Record<string, string> {
  const home = opts.home ?? SANDBOX_HOME;
  const base: Record<string, string> = {
    PATH: opts.path,
    HOME: home,
    USER: "sandbox",
    LOGNAME: "sandbox",
    SHELL: "/bin/sh",
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TZ: "UTC",
    TERM: "dumb",
    CI: "true",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONUNBUFFERED: "1",
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
    PYTHONUSERBASE: `${opts.workdir.replace(/\/+$/, "")}/${SANDBOX_DEPS_DIR}`,
    // `pip install --user` goes to PYTHONUSERBASE, inside the work tree: a distribution's "externally
    // managed" Python (Debian's) would refuse it, though the system's packages are read-only here anyway.
    PIP_BREAK_SYSTEM_PACKAGES: "1",
    NODE_DISABLE_COLORS: "1",
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    GOFLAGS: "-mod=mod",
    GOTOOLCHAIN: "local",
  };
  const refused = secretLeaks(extra ?? {}, opts.hostEnv ?? process.env);
  if (refused.length > 0) {
    throw new Error(
      `refusing to pass the host's secret value(s) into the sandbox via: ${refused.join(", ")}`,
    );
  }
  return { ...base, ...(extra ?? {}) };
}

/** The names in `extra` whose value equals the value of a secret-looking host variable. */
export function secretLeaks(extra: Record<string, string>, hostEnv: NodeJS.ProcessEnv): string[] {
  const secrets = new Set<string>();
  for (const [k, v] of Object.entries(hostEnv)) {
    if (v && v.length >= 6 && SECRET_NAME.test(k)) secrets.add(v);
  }
  return Object.entries(extra)
    .filter(([, v]) => secrets.has(v))
    .map(([k]) => k);
}
