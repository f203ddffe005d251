import type { ParsedTests, TestOutcome } from "../parts/results.ts";
import { put } from "../shared/results-outcomes.ts";
import { forEachLine, stripAnsi, trimEndLinear } from "../shared/results-text-scan.ts";

/**
 * The lines the tools that run JUnit tests print for single tests, read when no JUnit XML report was
 * written: ids are `Class.method`, as the XML reports' `classname.name`. Every pattern is anchored and
 * bounded (linear on a line cut to its cap).
 *
 * - Maven surefire 2 `[ERROR] add(shop.CalcTest)  Time elapsed: 0.01 s  <<< FAILURE!`, surefire 3
 *   `[ERROR] shop.CalcTest.add -- Time elapsed: 0.01 s <<< ERROR!` (it names only failures);
 * - Gradle `shop.CalcTest > add() FAILED` (`PASSED` and `SKIPPED` when its test logging shows them);
 * - JUnitCore `1) add(shop.CalcTest)` (only failures);
 * - the JUnit console launcher's tree `│  ├─ add() ✔` / `✘` / `↷` (or `[OK]` / `[X]` / `[S]`).
 */
const SUREFIRE_2 =
  /^\[(?:ERROR|WARNING|INFO)\] ([\w$]{1,300})\(([\w.$]{1,500})\)\s+Time elapsed:.{0,80}<<< (?:FAILURE|ERROR)!/;
const SUREFIRE_3 =
  /^\[(?:ERROR|WARNING|INFO)\] ([\w.$]{1,500})\.([\w$]{1,300})(?:\([^)]{0,300}\))? -- Time elapsed:.{0,80}<<< (?:FAILURE|ERROR)!/;
const GRADLE = /^([\w.$]{1,500}) > (.{1,1000}) (PASSED|FAILED|SKIPPED)$/;
const JUNIT_CORE = /^\d{1,6}\) ([\w$]{1,300})\(([\w.$]{1,500})\)$/;
const GRADLE_OUTCOME: Record<string, TestOutcome> = {
  PASSED: "passed",
  FAILED: "failed",
  SKIPPED: "skipped",
};

/** A method as the XML reports name it: `add()` → `add`. */
const method = (name: string): string => (name.endsWith("()") ? name.slice(0, -2) : name);

/** The console launcher's tree line: its depth, the name and the outcome its mark gives. */
function launcherLine(line: string): { depth: number; name: string; outcome: TestOutcome } | null {
  const branch = line.search(/[├└]─ |[+'`]-- /);
  if (branch < 0 || branch > 200 || !/^[│|\s]*$/.test(line.slice(0, branch))) return null;
  const rest = line.slice(branch + 3);
  const marks: [string, TestOutcome][] = [
    [" ✔", "passed"],
    [" ✘", "failed"],
    [" ↷", "skipped"],
    [" [OK]", "passed"],
    [" [X]", "failed"],
    [" [S]", "skipped"],
  ];
  for (const [mark, outcome] of marks) {
    const at = rest.indexOf(mark);
    if (at > 0 && (rest.length === at + mark.length || rest[at + mark.length] === " "))
      return { depth: branch, name: rest.slice(0, at), outcome };
  }
  return null;
}

/** Per-test results from a JUnit tool's console output; the parser names the dialect read. */
export function parseJUnitConsole(output: string): ParsedTests {
  const tests = new Map<string, TestOutcome>();
  let parser = "junit-console";
  /** The launcher's enclosing containers, by depth: engine, class, nested classes. */
  const tree: { depth: number; name: string }[] = [];
  forEachLine(stripAnsi(output), (raw) => {
    const line = trimEndLinear(raw);
    const s2 = SUREFIRE_2.exec(line) ?? null;
    const s3 = s2 ? null : SUREFIRE_3.exec(line);
    if (s2 || s3) {
      put(tests, s2 ? `${s2[2]}.${s2[1]}` : `${s3![1]}.${s3![2]}`, "failed");
      parser = "surefire-console";
      return undefined;
    }
    const g = GRADLE.exec(line);
    if (g) {
      const parts = g[2]!.split(" > ");
      put(tests, `${g[1]}.${method(parts.at(-1)!)}`, GRADLE_OUTCOME[g[3]!]!);
      parser = "gradle-console";
      return undefined;
    }
    const j = JUNIT_CORE.exec(line);
    if (j) {
      put(tests, `${j[2]}.${j[1]}`, "failed");
      parser = "junitcore";
      return undefined;
    }
    const l = launcherLine(line);
    if (!l) return undefined;
    while (tree.length > 0 && tree[tree.length - 1]!.depth >= l.depth) tree.pop();
    if (l.name.endsWith(")")) {
      // A test: its classes are the containers below the engine (the outermost).
      const classes = tree.slice(1).map((c) => c.name);
      if (classes.length > 0) put(tests, `${classes.join(".")}.${method(l.name)}`, l.outcome);
      parser = "junit-launcher";
    } else tree.push({ depth: l.depth, name: l.name });
    return undefined;
  });
  return { parser, tests };
}
