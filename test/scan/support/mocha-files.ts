import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runnerPackages } from "../../validate/support/js-runner.ts";

/** auto-fix's own checkout: mocha is one of its development dependencies. */
const ROOT = join(import.meta.dirname, "..", "..", "..");

/**
 * mocha and the packages it needs, as files of a repository (path → text), as `npm ci` would have
 * installed them: the run clones the repository, so they must be part of it. All of them are text.
 */
export function mochaFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const rel = `${dir}/${name}`;
      const st = lstatSync(join(ROOT, rel));
      // Nested packages are listed on their own; links are not part of a package's files.
      if (st.isDirectory() && name !== "node_modules") walk(rel);
      else if (st.isFile()) out[rel] = readFileSync(join(ROOT, rel), "utf8");
    }
  };
  for (const p of runnerPackages("mocha")) walk(p);
  return out;
}
