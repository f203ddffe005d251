import type { TestRunnerKind } from "../../config/index.ts";
import { isTestPath } from "../../core/test-files.ts";
import { baseOf, lines, stemOf } from "./tree-listing.ts";
import type { SelectReason, TestSuiteMap, TreeListing } from "./types.ts";

const PACKAGE = /^\s*package\s+([\w.]+)\s*;/;
const IMPORT = /^\s*import\s+(?:static\s+)?([\w.]+(?:\.\*)?)\s*;/;

/** The package a Java file declares, and what it imports. */
export function javaHeader(text: string): { pkg: string; imports: string[] } {
  let pkg = "";
  const imports: string[] = [];
  for (const line of lines(text)) {
    const p = PACKAGE.exec(line);
    if (p) pkg = p[1]!;
    const i = IMPORT.exec(line);
    if (i) imports.push(i[1]!);
    if (/^\s*(public\s+|final\s+|abstract\s+)*(class|interface|enum|record)\b/.test(line)) break;
  }
  return { pkg, imports };
}

/**
 * Java tests are classes (Maven `-Dtest=`, Gradle `--tests`, JUnitCore): test classes in a changed
 * class's package, classes importing it, and classes named after it (`FooTest`, `TestFoo`, `FooIT`).
 */
export function javaSuite(listing: TreeListing, runner: TestRunnerKind): TestSuiteMap {
  const targets = new Map<string, string[]>();
  const header = new Map<string, { pkg: string; imports: string[] }>();
  const headerOf = (rel: string) => {
    let h = header.get(rel);
    if (!h) {
      h = javaHeader(listing.read(rel) ?? "");
      header.set(rel, h);
    }
    return h;
  };
  for (const rel of listing.files) {
    if (!rel.endsWith(".java") || !isTestPath(rel)) continue;
    if (!/(^Test[A-Z]\w*|\w*(Test|Tests|TestCase|IT))\.java$/.test(baseOf(rel))) continue;
    const { pkg } = headerOf(rel);
    targets.set(pkg ? `${pkg}.${stemOf(rel)}` : stemOf(rel), [rel]);
  }
  return {
    runner,
    targets,
    related(changed) {
      const out = new Map<string, { reasons: SelectReason[]; detail: string }>();
      const add = (t: string, reason: SelectReason, detail: string) => {
        const cur = out.get(t);
        if (!cur) out.set(t, { reasons: [reason], detail });
        else if (!cur.reasons.includes(reason)) cur.reasons.push(reason);
      };
      for (const rel of changed) {
        if (!rel.endsWith(".java") || isTestPath(rel)) continue;
        const { pkg } = headerOf(rel);
        const cls = stemOf(rel);
        const fq = pkg ? `${pkg}.${cls}` : cls;
        for (const [t, [file]] of targets) {
          const h = headerOf(file!);
          const simple = t.slice(t.lastIndexOf(".") + 1);
          if ([`${cls}Test`, `${cls}Tests`, `Test${cls}`, `${cls}IT`, `${cls}TestCase`].includes(simple))
            add(t, "named-after-changed", rel);
          if (h.pkg === pkg) add(t, "same-package", rel);
          if (h.imports.some((i) => i === fq || i.startsWith(`${fq}.`) || (pkg && i === `${pkg}.*`)))
            add(t, "imports-changed", rel);
        }
      }
      return out;
    },
    targetOfId(id) {
      const parts = id.split(".");
      for (let i = parts.length; i > 0; i--) {
        const t = parts.slice(0, i).join(".");
        if (targets.has(t)) return t;
      }
      return null;
    },
    aliases: (target) => [target, target.slice(target.lastIndexOf(".") + 1), ...(targets.get(target) ?? [])],
  };
}
