/** pytest's `testpaths`, read from the file pytest reads its configuration from. */
import { type TreeFs, TreeFsError } from "../../core/tree-fs.ts";

/** pytest's `testpaths` from the file pytest reads its configuration from; null when unset. */
export function pytestTestpaths(tree: TreeFs): string[] | null {
  const read = (rel: string): string | null => {
    try {
      return tree.readIfExists(rel, { maxBytes: 1024 * 1024 })?.toString("utf8") ?? null;
    } catch (err) {
      if (err instanceof TreeFsError) return null;
      throw err;
    }
  };
  const ini = (text: string, section: string): string[] | null | undefined => {
    const lines = text.split(/\r?\n/);
    const start = lines.findIndex((l) => l.trim() === `[${section}]`);
    if (start < 0) return undefined;
    for (let i = start + 1; i < lines.length && !/^\s*\[/.test(lines[i]!); i++) {
      const m = /^testpaths\s*[=:]\s*(.*)$/.exec(lines[i]!);
      if (!m) continue;
      const vals = [m[1]!];
      for (let j = i + 1; j < lines.length && /^\s+\S/.test(lines[j]!); j++) vals.push(lines[j]!);
      return vals.join(" ").trim().split(/\s+/).filter(Boolean);
    }
    return null;
  };
  for (const [file, section] of [
    ["pytest.ini", "pytest"],
    [".pytest.ini", "pytest"],
  ] as const) {
    const t = read(file);
    if (t !== null) return ini(t, section) ?? null;
  }
  const pyproject = read("pyproject.toml");
  if (pyproject !== null && /^\[tool\.pytest\.ini_options\]/m.test(pyproject)) {
    const section = pyproject.split(/^\[tool\.pytest\.ini_options\]\s*$/m)[1]?.split(/^\[/m)[0] ?? "";
    const m = /^testpaths\s*=\s*(\[[^\]]*\]|"[^"]*"|'[^']*')/m.exec(section);
    if (!m) return null;
    return [...m[1]!.matchAll(/["']([^"']*)["']/g)].map((x) => x[1]!);
  }
  for (const [file, section] of [
    ["tox.ini", "pytest"],
    ["setup.cfg", "tool:pytest"],
  ] as const) {
    const t = read(file);
    const r = t === null ? undefined : ini(t, section);
    if (r !== undefined) return r;
  }
  return null;
}
