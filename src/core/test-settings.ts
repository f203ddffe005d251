/**
 * The part of a settings file that configures tests, read the way the tools that use it read it, so that
 * two texts can be compared for "same test configuration": a patch may change a settings file's other
 * parts, never this one.
 *
 * - pyproject.toml is parsed as TOML: a table spelled with spaces around its dots, with quoted or
 *   escaped keys, as dotted keys or inside an inline table is the table a tool reads, and a line inside a
 *   multi-line string is not a header.
 * - setup.cfg is scanned as both kinds of its readers scan it (iniconfig: a header starts in column 0,
 *   an indented line continues the value above; setuptools' configparser): a line is counted as test
 *   configuration when either reader would take it as such.
 *
 * Which sections, tables and settings count is given by the caller (core/test-config.ts).
 */
import { parse as parseToml } from "smol-toml";

/** Which sections, tables and settings configure tests (see core/test-config.ts). */
export interface TestSettingRules {
  iniSections: readonly RegExp[];
  tomlTables: readonly RegExp[];
  settingWords: readonly RegExp[];
}

const anyOf = (res: readonly RegExp[], text: string): boolean => res.some((re) => re.test(text));

/** The test part of an INI file (setup.cfg): its test sections and test lines, in order. */
export function iniTestPart(text: string, rules: TestSettingRules): string {
  const out: string[] = [];
  let inTest = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const close = line.startsWith("[") ? line.indexOf("]") : -1;
    if (close > 0) {
      // A header, `[name]` (scanned, not matched: the text may come from a model). In column 0 every
      // reader takes it as a header; indented, iniconfig takes it as part of the value above and
      // configparser may take it as a header: it may enter a test section, never leave one.
      const name = line.slice(0, close).replace(/^\[+/, "").replaceAll('"', "").replaceAll("'", "").trim();
      if (anyOf(rules.iniSections, name)) {
        inTest = true;
        out.push(`[${name}]`);
        continue;
      }
      if (!/^\s/.test(raw)) {
        inTest = false;
        continue;
      }
    }
    if (inTest || anyOf(rules.settingWords, line)) out.push(line);
  }
  return out.join("\n");
}

/**
 * Largest TOML text judged. Parsing is linear but not fast (about 1 µs a character for crafted dotted
 * keys); a pyproject.toml is a few kB. A larger text cannot be judged, so any change to it counts.
 */
export const MAX_TOML_CHARS = 256 * 1024;

type Leaf = [path: string, value: string];

/** Every scalar of a parsed TOML document with its dotted path (array items as `path[i]`). */
function leaves(value: unknown, path: string, out: Leaf[], depth = 0): void {
  if (depth > 64) {
    out.push([path, "(nested too deep)"]);
    return;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) out.push([path, "[]"]);
    for (const [i, v] of value.entries()) leaves(v, `${path}[${i}]`, out, depth + 1);
    return;
  }
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) out.push([path, "{}"]);
    for (const [k, v] of entries) leaves(v, path ? `${path}.${k}` : k, out, depth + 1);
    return;
  }
  out.push([path, JSON.stringify(value)]);
}

/**
 * The test part of a TOML file (pyproject.toml) as TOML readers see it, or null when the text is not
 * valid TOML or is over MAX_TOML_CHARS (and so cannot be judged).
 */
export function tomlTestPart(text: string, rules: TestSettingRules): string | null {
  if (text.length > MAX_TOML_CHARS) return null;
  let doc: unknown;
  try {
    doc = parseToml(text);
  } catch {
    return null;
  }
  const all: Leaf[] = [];
  leaves(doc, "", all);
  const kept = all.filter(
    ([path, value]) => anyOf(rules.tomlTables, path) || anyOf(rules.settingWords, `${path} = ${value}`),
  );
  return JSON.stringify(kept.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}
