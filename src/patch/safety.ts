/**
 * Which paths a patch may touch: not outside the repository, not tests, not `.github/` or CI
 * configuration, not the repository's own protected globs.
 */
import { isTestPath } from "../core/test-files.ts";

const CI_PATTERNS: RegExp[] = [
  /^\.github\//,
  /^\.gitlab-ci\.ya?ml$/,
  /^\.gitlab\//,
  /^\.circleci\//,
  /^\.travis\.ya?ml$/,
  /^azure-pipelines\.ya?ml$/,
  /^\.azure-pipelines\//,
  /^appveyor\.ya?ml$/,
  /^\.appveyor\.ya?ml$/,
  /^Jenkinsfile$/,
  /^\.buildkite\//,
  /^\.drone\.ya?ml$/,
  /^bitbucket-pipelines\.ya?ml$/,
  /^\.woodpecker(\.ya?ml|\/)/,
  /^\.ci\//,
  /^\.git\//,
  /^\.gitmodules$/,
];

export function isCiPath(path: string): boolean {
  return CI_PATTERNS.some((re) => re.test(path));
}

/** A glob (`*`, `**`, `?`, `{a,b}`) as a regular expression over `/`-separated paths. */
export function globToRegExp(glob: string): RegExp {
  let g = glob.trim().replace(/^\.\//, "");
  const anchored = g.startsWith("/") || g.includes("/");
  g = g.replace(/^\//, "");
  if (g.endsWith("/")) g += "**";
  let re = "";
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === "*") {
      if (g[i + 1] === "*") {
        const slash = g[i + 2] === "/";
        re += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const close = g.indexOf("}", i);
      if (close > i) {
        re += `(?:${g
          .slice(i + 1, close)
          .split(",")
          .map((s) => s.replace(/[.+^$()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]*"))
          .join("|")})`;
        i = close;
      } else re += "\\{";
    } else re += c.replace(/[.+^$()|[\]\\]/g, "\\$&");
  }
  // A glob without "/" matches a name at any depth, like .gitignore; a directory also covers its contents.
  return new RegExp(`${anchored ? "^" : "(?:^|/)"}${re}(?:/.*)?$`);
}

export type PathVerdict = { ok: true } | { ok: false; message: string };

export function checkEditablePath(path: string, protectedGlobs: readonly string[]): PathVerdict {
  if (isCiPath(path)) {
    return {
      ok: false,
      message: `${path} is CI or repository configuration, which patches may not change. Fix the bug in the source code instead.`,
    };
  }
  if (/(^|\/)(node_modules|\.git|\.venv|venv|__pycache__|\.tox)\//.test(path)) {
    return {
      ok: false,
      message: `${path} is vendored, generated or version-control data, which patches may not change. Change the project's own source instead.`,
    };
  }
  if (isTestPath(path)) {
    return {
      ok: false,
      message: `${path} is a test file; patches change source code only, never tests. Change the code under test instead.`,
    };
  }
  for (const g of protectedGlobs) {
    if (globToRegExp(g).test(path)) {
      return {
        ok: false,
        message: `${path} is protected by the repository's configuration (${g}); patches may not change it. Change another file.`,
      };
    }
  }
  return { ok: true };
}
