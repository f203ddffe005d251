/**
 * The test files mocha's configuration names, read for the check tests' placement when the command
 * names none: `spec` of `.mocharc.{json,yaml,yml}` or of `package.json`'s `mocha`, or the lines of
 * `test/mocha.opts` (mocha 2 to 7).
 */
import { parse as parseYaml } from "yaml";
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";

const MAX_CONFIG_BYTES = 256 * 1024;

const RC_FILES = [
  ".mocharc.cjs",
  ".mocharc.js",
  ".mocharc.yaml",
  ".mocharc.yml",
  ".mocharc.jsonc",
  ".mocharc.json",
];

/**
 * The test files mocha's configuration names (`spec` of `.mocharc.{json,yaml,yml}` or of `package.json`'s
 * `mocha`, lines of `test/mocha.opts`), `[]` when none names any (mocha then looks in `./test`), or why they cannot be
 * known (a configuration in JavaScript, one that cannot be read).
 */
export function mochaConfigSpec(tree: TreeFs): string[] | { reason: string } {
  const read = (rel: string): string | null => {
    const bytes = tree.readIfExists(rel, { maxBytes: MAX_CONFIG_BYTES });
    return bytes === null ? null : bytes.toString("utf8");
  };
  const specOf = (cfg: unknown): string[] => {
    const spec = (cfg as { spec?: unknown } | null)?.spec;
    if (typeof spec === "string") return [spec];
    return Array.isArray(spec) ? spec.filter((s): s is string => typeof s === "string") : [];
  };
  try {
    for (const rc of RC_FILES) {
      const text = read(rc);
      if (text === null) continue;
      if (rc.endsWith("js")) return { reason: `mocha's configuration (${rc}) is a program` };
      try {
        return specOf(rc.endsWith(".json") ? JSON.parse(text) : parseYaml(text));
      } catch {
        return { reason: `mocha's configuration (${rc}) cannot be read` };
      }
    }
    const pkg = read("package.json");
    let fromPkg: string[] = [];
    try {
      fromPkg = pkg === null ? [] : specOf((JSON.parse(pkg) as { mocha?: unknown } | null)?.mocha);
    } catch {
      return { reason: "package.json cannot be read" };
    }
    if (fromPkg.length > 0) return fromPkg;
    // mocha 2 to 7 read ./test/mocha.opts: a line that is not an option names test files.
    const opts = read("test/mocha.opts");
    if (opts === null) return [];
    return opts
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("-") && !l.startsWith("#"));
  } catch (err) {
    if (err instanceof TreeFsError) return { reason: `mocha's configuration cannot be read: ${err.message}` };
    throw err;
  }
}

/** A file mocha takes from ./test when no file is named (`./test/*.{js,cjs,mjs}`). */
export const MOCHA_DEFAULT_FILE = /^test\/[^/]+\.[cm]?js$/;

/** The folder a spec entry's files are in: the part before its first pattern character. */
export const specFolder = (spec: string): string => {
  const plain = spec.split(/[*?[{]/)[0]!;
  return plain.endsWith("/") || plain === spec ? plain : plain.slice(0, plain.lastIndexOf("/") + 1);
};
