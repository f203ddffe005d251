import type { TestRunnerKind } from "../../config/index.ts";
import { dirOf, lines } from "./tree-listing.ts";
import type { SelectReason, TestSuiteMap, TreeListing } from "./types.ts";

const IMPORT_PATH = /"([^"\n]{1,500})"/g;

/** The import paths a Go file imports (single imports and import blocks). */
export function goImports(text: string): Set<string> {
  const out = new Set<string>();
  let inBlock = false;
  for (const raw of lines(text)) {
    const line = raw.trim();
    if (inBlock) {
      if (line.startsWith(")")) inBlock = false;
      else for (const m of line.matchAll(IMPORT_PATH)) out.add(m[1]!);
      continue;
    }
    if (line.startsWith("import (")) inBlock = true;
    else if (line.startsWith("import ")) for (const m of line.matchAll(IMPORT_PATH)) out.add(m[1]!);
    else if (/^(func|type|var|const)\b/.test(line)) break;
  }
  return out;
}

/**
 * Go tests run per package (`./dir`): a change's own package, and the packages whose tests import it
 * (import paths from the `module` line of go.mod).
 */
export function goSuite(listing: TreeListing, runner: TestRunnerKind): TestSuiteMap {
  const pkgOf = (rel: string): string => (dirOf(rel) === "" ? "." : `./${dirOf(rel)}`);
  const targets = new Map<string, string[]>();
  for (const rel of listing.files) {
    if (!rel.endsWith("_test.go")) continue;
    const t = pkgOf(rel);
    targets.set(t, [...(targets.get(t) ?? []), rel]);
  }
  const mod = /^\s*module\s+(\S+)/m.exec(listing.read("go.mod") ?? "")?.[1] ?? null;
  const importPath = (pkg: string): string | null =>
    mod === null ? null : pkg === "." ? mod : `${mod}/${pkg.slice(2)}`;
  return {
    runner,
    targets,
    related(changed) {
      const out = new Map<string, { reasons: SelectReason[]; detail: string }>();
      const add = (t: string, reason: SelectReason, detail: string) => {
        if (!targets.has(t)) return;
        const cur = out.get(t);
        if (!cur) out.set(t, { reasons: [reason], detail });
        else if (!cur.reasons.includes(reason)) cur.reasons.push(reason);
      };
      const paths = new Map<string, string>();
      for (const rel of changed) {
        if (!rel.endsWith(".go")) continue;
        add(pkgOf(rel), "same-package", rel);
        const ip = importPath(pkgOf(rel));
        if (ip) paths.set(ip, rel);
      }
      for (const [t, files] of targets) {
        for (const f of files) {
          const hit = [...goImports(listing.read(f) ?? "")].find((p) => paths.has(p));
          if (hit) add(t, "imports-changed", paths.get(hit)!);
        }
      }
      return out;
    },
    targetOfId(id) {
      // `<import path>.<TestName>`: test names hold no dots.
      const pkg = id.slice(0, id.lastIndexOf("."));
      if (mod === null || pkg === "") return null;
      const t = pkg === mod ? "." : pkg.startsWith(`${mod}/`) ? `./${pkg.slice(mod.length + 1)}` : null;
      return t && targets.has(t) ? t : null;
    },
    aliases: (target) => [
      target,
      target.replace(/^\.\//, ""),
      ...(importPath(target) ? [importPath(target)!] : []),
    ],
  };
}
