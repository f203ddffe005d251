import type { TreeFs } from "../../core/tree-fs.ts";
import { TreeFsError } from "../../core/tree-fs.ts";
import type { ToolVersion } from "../parts/command.ts";

/** Largest manifest read for a version. */
const MAX_MANIFEST_BYTES = 256 * 1024;
const VERSION = /^v?(\d{1,4})\.\d{1,6}(\.\d{1,6})?([-+.][\w.+-]{0,60})?$/;

const unread = (source: string): ToolVersion => ({ version: null, major: null, source });

function parsed(version: unknown, source: string): ToolVersion {
  if (typeof version !== "string") return unread(`${source} names no version`);
  const m = VERSION.exec(version.trim());
  if (!m) return unread(`${source} names version \`${version.slice(0, 40)}\`, which is not a version`);
  return { version: version.trim(), major: Number(m[1]), source };
}

/**
 * The version of the npm package `pkg` installed in the tree's `node_modules`, from its `package.json`.
 * The tree is repository content: it is read through tree-fs (no link followed, a link anywhere on the
 * way reads as not installed), at most 256 KiB, and a manifest that is not JSON reads as no version.
 */
export function nodePackageVersion(tree: TreeFs, pkg: string): ToolVersion {
  const rel = `node_modules/${pkg}/package.json`;
  let text: string | null;
  try {
    text = tree.readIfExists(rel, { maxBytes: MAX_MANIFEST_BYTES })?.toString("utf8") ?? null;
  } catch (err) {
    if (!(err instanceof TreeFsError)) throw err;
    return unread(`${rel} cannot be read: ${err.message}`);
  }
  if (text === null) return unread(`${rel} is not there`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return unread(`${rel} is not valid JSON`);
  }
  return parsed((json as { version?: unknown } | null)?.version, rel);
}

/** Folders of the tree where Python packages are installed (the sandbox's per-user installs, virtual environments). */
const PYTHON_LIBS = [".cache/python-user/lib", ".venv/lib", "venv/lib", ".tox/py/lib"];

function listed(tree: TreeFs, rel: string): string[] {
  try {
    if (rel !== "" && tree.kind(rel) !== "directory") return [];
    return tree.list(rel, 10_000).map((e) => (e.kind === "directory" ? e.name : ""));
  } catch (err) {
    if (err instanceof TreeFsError) return [];
    throw err;
  }
}

/**
 * The version of the Python distribution `dist` installed in the tree (its `<dist>-<version>.dist-info`
 * folder under `lib/python3.*\/site-packages` of the per-user installs or a virtual environment, read
 * through tree-fs), else in one of `sitePackages` (folders of the host's Python the sandbox uses, each
 * opened with `open`). The first one found is the one Python imports first.
 */
export function pythonDistVersion(
  tree: TreeFs | undefined,
  dist: string,
  sitePackages: readonly TreeFs[] = [],
): ToolVersion {
  const folder = new RegExp(`^${dist}-(\\d[\\w.+-]*)\\.dist-info$`, "i");
  const inFolder = (t: TreeFs, rel: string): ToolVersion | null => {
    for (const name of listed(t, rel)) {
      const m = folder.exec(name);
      if (m) return parsed(m[1], `${rel === "" ? t.root : rel}/${name}`);
    }
    return null;
  };
  if (tree) {
    for (const lib of PYTHON_LIBS) {
      for (const py of listed(tree, lib).filter((n) => /^python3(\.\d+)?$/.test(n))) {
        const hit = inFolder(tree, `${lib}/${py}/site-packages`);
        if (hit) return hit;
      }
    }
  }
  for (const site of sitePackages) {
    const hit = inFolder(site, "");
    if (hit) return hit;
  }
  return unread(`no ${dist}-*.dist-info was found in the work tree's Python installs`);
}

/**
 * The spelling a version gets from a table of what each major version takes: the installed major's
 * own, else (a version not read, or a major the table does not know) `safest` with a note saying so.
 * `installed` null: no tree was given to read it in (the spelling is the safest, and nothing is said).
 */
export function spellingFor<T>(
  tool: string,
  installed: ToolVersion | null,
  table: Readonly<Record<number, T>>,
  safest: T,
): { spelling: T; note?: string } {
  const own = installed?.major == null ? undefined : table[installed.major];
  if (own !== undefined) return { spelling: own };
  if (installed === null) return { spelling: safest };
  // A version not read changes nothing when every known version takes the same words.
  const same = Object.values(table).every((v) => JSON.stringify(v) === JSON.stringify(safest));
  if (installed.major === null && same) return { spelling: safest };
  const majors = Object.keys(table).map(Number);
  const range = `${Math.min(...majors)} to ${Math.max(...majors)}`;
  const why =
    installed.major === null
      ? `its version could not be read (${installed.source})`
      : `its version ${installed.version} is not one of ${range} that auto-fix knows`;
  return {
    spelling: safest,
    note: `${tool}: ${why}; its report options are spelled the way every ${tool} from ${range} takes them`,
  };
}
