import { openTree, type TreeFs, TreeFsError } from "../core/tree-fs.ts";

/** What a repository says about itself: its name and version, and the manifest that says so. */
export interface ProjectVersion {
  name: string | null;
  version: string;
  /** The file it was read from (`package.json`, `pyproject.toml`, `mypkg/__init__.py`, ...). */
  source: string;
}

const MAX_MANIFEST_BYTES = 512 * 1024;

/** A name or version as a prompt may carry it: plain characters only, short (repository text is hostile). */
function plain(v: string | undefined | null): string | null {
  const t = (v ?? "").trim();
  return /^[\w.+\-~@/]{1,60}$/.test(t) ? t : null;
}

function reader(tree: TreeFs) {
  return (rel: string): string => {
    try {
      return tree.readIfExists(rel, { maxBytes: MAX_MANIFEST_BYTES })?.toString("utf8") ?? "";
    } catch (err) {
      if (err instanceof TreeFsError) return "";
      throw err;
    }
  };
}

/** `key = "value"` at the start of a line of a TOML or INI-like text, in the section named (if any). */
function keyIn(text: string, key: string, section: RegExp | null): string | null {
  let inSection = section === null;
  const assign = new RegExp(`^\\s*${key}\\s*[=:]\\s*["']?([^"'\\s#]+)["']?`);
  for (const line of text.split("\n")) {
    const head = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (head) {
      inSection = section === null || section.test(head[1]!.trim());
      continue;
    }
    if (!inSection) continue;
    const m = assign.exec(line);
    if (m) return m[1]!;
  }
  return null;
}

const VERSION_ASSIGN = /^__version__\s*=\s*["']([^"']+)["']/m;

/**
 * The project's version from its manifest, for the prompts that need it: `package.json`,
 * `pyproject.toml` (`[project]` or `[tool.poetry]`), `setup.cfg`, `setup.py`'s `version=`, a
 * package's `__version__`, a Maven `pom.xml`. Null when none says (never a guess).
 */
export function projectVersion(root: string): ProjectVersion | null {
  let tree: TreeFs;
  try {
    tree = openTree(root);
  } catch {
    return null;
  }
  const read = reader(tree);
  const pkg = read("package.json");
  if (pkg) {
    try {
      const j = JSON.parse(pkg) as { name?: unknown; version?: unknown };
      const version = plain(typeof j.version === "string" ? j.version : null);
      if (version)
        return { name: plain(typeof j.name === "string" ? j.name : null), version, source: "package.json" };
    } catch {
      // Not JSON: other manifests may still say.
    }
  }
  const py = read("pyproject.toml");
  const pyVersion = plain(keyIn(py, "version", /^(project|tool\.poetry)$/));
  if (pyVersion)
    return {
      name: plain(keyIn(py, "name", /^(project|tool\.poetry)$/)),
      version: pyVersion,
      source: "pyproject.toml",
    };
  const cfg = read("setup.cfg");
  const cfgVersion = plain(keyIn(cfg, "version", /^metadata$/));
  if (cfgVersion)
    return { name: plain(keyIn(cfg, "name", /^metadata$/)), version: cfgVersion, source: "setup.cfg" };
  const setup = read("setup.py");
  const setupVersion = plain(/\bversion\s*=\s*["']([^"']+)["']/.exec(setup)?.[1]);
  if (setupVersion)
    return {
      name: plain(/\bname\s*=\s*["']([^"']+)["']/.exec(setup)?.[1]),
      version: setupVersion,
      source: "setup.py",
    };
  const pyName =
    plain(keyIn(py, "name", /^(project|tool\.poetry)$/)) ?? plain(keyIn(cfg, "name", /^metadata$/));
  for (const dir of [pyName?.replaceAll("-", "_"), ...topDirs(tree)].filter((d): d is string => Boolean(d))) {
    for (const f of ["__init__.py", "version.py", "_version.py", "__version__.py"]) {
      const v = plain(VERSION_ASSIGN.exec(read(`${dir}/${f}`))?.[1]);
      if (v) return { name: pyName ?? dir, version: v, source: `${dir}/${f}` };
    }
  }
  const pom = read("pom.xml").replace(/<parent>[\s\S]*?<\/parent>/, "");
  const pomVersion = plain(/<version>([^<]+)<\/version>/.exec(pom)?.[1]);
  if (pomVersion)
    return {
      name: plain(/<artifactId>([^<]+)<\/artifactId>/.exec(pom)?.[1]),
      version: pomVersion,
      source: "pom.xml",
    };
  return null;
}

/** Top-level folders that may be Python packages (a few, by name). */
function topDirs(tree: TreeFs): string[] {
  try {
    return tree
      .list("", 2000)
      .filter(
        (e) =>
          e.kind === "directory" &&
          /^[A-Za-z_]\w*$/.test(e.name) &&
          !/^(tests?|docs?|examples?)$/.test(e.name),
      )
      .map((e) => e.name)
      .slice(0, 20);
  } catch {
    return [];
  }
}

/** One line for a prompt: `Project: youtube-dl 2021.12.17 (from setup.py).` */
export function projectLine(p: ProjectVersion | null): string {
  if (!p) return "";
  return `Project: ${p.name ? `${p.name} ` : ""}version ${p.version} (from ${p.source}).`;
}
