import { type ParsedTests, put, putFile, type TestOutcome } from "./results-outcomes.ts";
import { SuiteStack } from "./results-suite-stack.ts";
import { forEachLine, skipSpaces } from "./results-text-scan.ts";

/** `ok N - name # SKIP` / `not ok N name`: the pass flag, the name and whether a directive skips it. */
function tapLine(line: string): { indent: number; ok: boolean; name: string; skip: boolean } | null {
  const indent = skipSpaces(line);
  const low = line.slice(indent, indent + 7).toLowerCase();
  const ok = !low.startsWith("not ok ");
  if (ok && !low.startsWith("ok ")) return null;
  let i = indent + (ok ? 3 : 7);
  const digits = i;
  while (line[i] !== undefined && line[i]! >= "0" && line[i]! <= "9") i++;
  if (i === digits) return null;
  let rest = line.slice(i);
  // `ok 1 - name`, or mocha's `ok 1 suite name` (TAP makes the dash optional).
  if (rest.startsWith(" - ")) rest = rest.slice(3);
  else if (rest !== "" && !rest.startsWith(" ") && !rest.startsWith("#")) return null;
  const hash = rest.indexOf("#");
  let skip = false;
  if (hash >= 0) {
    const at = skipSpaces(rest, hash + 1);
    const word = rest.slice(at, at + 4).toUpperCase();
    if (word !== "SKIP" && word !== "TODO") return null;
    skip = true;
    rest = rest.slice(0, hash);
  }
  return { indent, ok, name: rest.trim(), skip };
}

/** TAP (node --test --test-reporter=tap and others): `ok N - name` / `not ok N - name`, nested by indentation. */
export function parseTap(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  const files = new Map<string, string[]>();
  const pending = new SuiteStack();
  /** The result whose YAML block follows (node's names the failure's `location`). */
  let last: { id: string; indent: number } | null = null;
  forEachLine(output, (line) => {
    const indent = skipSpaces(line);
    if (line.startsWith("# Subtest: ", indent) && line.length > indent + 11) {
      pending.popTo(indent);
      pending.push(indent, line.slice(indent + 11));
      last = null;
      return;
    }
    const m = tapLine(line);
    if (!m) {
      // node's TAP marks a suite's own result in its YAML block: not a test.
      if (last !== null && indent > last.indent && line.startsWith("type: 'suite'", indent)) {
        tests.delete(last.id);
        files.delete(last.id);
        last = null;
        return;
      }
      if (last !== null && indent > last.indent && line.startsWith("location:", indent)) {
        let loc = line.slice(skipSpaces(line, indent + 9)).trim();
        const q = loc[0];
        if ((q === "'" || q === '"') && loc.endsWith(q) && loc.length > 1) loc = loc.slice(1, -1);
        putFile(files, last.id, loc);
      }
      return;
    }
    pending.popTo(m.indent, true);
    // The subtest this result closes is announced at the same indentation.
    const closes = pending.top()?.indent === m.indent;
    if (closes) pending.pop();
    const id = pending.join(m.name);
    put(tests, id, m.skip ? "skipped" : m.ok ? "passed" : "failed");
    last = { id, indent: m.indent };
  });
  return { parser: "tap", tests, ...(files.size > 0 ? { files } : {}) };
}
