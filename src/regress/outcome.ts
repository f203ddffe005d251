import { openTree } from "../core/tree-fs.ts";
import type { ExecResult } from "../sandbox/index.ts";
import { runnerFor } from "../runners/index.ts";
import type { RegressionConventions } from "../runners/parts/conventions.ts";
import type { TestPlan, TestVerdicts } from "./conventions.ts";

/** The regression conventions of the runner that runs the plan's file. */
const conventionsOf = (plan: TestPlan): RegressionConventions => runnerFor(plan.runner).regression;

/** Whether this stage judges each test of the new file on its own (the runner prints per-test lines it reads). */
export const judgesEachTest = (plan: TestPlan): boolean => conventionsOf(plan).verdicts !== undefined;

/**
 * The per-test verdicts a run printed, by the runner's own per-test lines, or null when the runner prints
 * none this stage reads (the file is then judged as a whole).
 */
export function perTestVerdicts(plan: TestPlan, e: ExecResult): TestVerdicts | null {
  return conventionsOf(plan).verdicts?.(`${e.stdout}\n${e.stderr}`, plan) ?? null;
}

/** Whether a run's output shows that at least one test ran (a runner finding none may still exit 0). */
export function testsRan(plan: TestPlan, e: ExecResult): boolean {
  return conventionsOf(plan).testsRan?.(`${e.stdout}\n${e.stderr}`) ?? true;
}

export const ended = (e: ExecResult): string =>
  e.limit
    ? `it hit the sandbox's ${e.limit} limit`
    : e.exitCode === null
      ? `it was killed by ${e.signal}`
      : `exit code ${e.exitCode}`;

/** What in a run's output is the environment's fault, not the test's. */
export interface EnvironmentFailure {
  /** In words, for the model and the report. */
  what: string;
  /** No test file can run here whatever it says (the repository's conftest, its build): stop asking. */
  blocksAll: boolean;
}

const lastLine = (text: string, re: RegExp): string =>
  text
    .split("\n")
    .filter((l) => re.test(l))
    .pop()
    ?.trim()
    .slice(0, 300) ?? "";

/** Whether `name` is a module of the repository itself (a folder or a file at the root or in `src/`). */
function isOwnModule(root: string, name: string): boolean {
  const tree = openTree(root);
  for (const base of ["", "src/", "lib/"]) {
    for (const rel of [`${base}${name}`, `${base}${name}.py`]) {
      try {
        if (tree.kind(rel) !== "missing") return true;
      } catch {
        // a link on the way: not the repository's module
      }
    }
  }
  return false;
}

/**
 * The environment failure a run shows, if any: a conftest the runner could not import, a module or
 * package not installed in the sandbox, Go modules that cannot be loaded. A wrong test (an assertion,
 * a name it misspelled in the project) is not one.
 */
export function environmentFailure(plan: TestPlan, e: ExecResult, root: string): EnvironmentFailure | null {
  const out = `${e.stdout}\n${e.stderr}`;
  if (plan.language === "Python") {
    const conftest = /ImportError while loading conftest '([^']+)'/.exec(out);
    if (conftest) {
      const cause = lastLine(out.slice(conftest.index), /^E\s+\w*Error:|^\w*Error:/).replace(/^E\s+/, "");
      return {
        what: `the repository's own ${conftest[1]!.replace(/^.*?\/(?=[^/]+\/conftest\.py$)/, "")} could not be imported${cause ? ` (${cause})` : ""}, so no test beside it can run here`,
        blocksAll: true,
      };
    }
    for (const m of out.matchAll(/No module named '([\w.]+)'/g)) {
      const top = m[1]!.split(".")[0]!;
      if (!isOwnModule(root, top))
        return {
          what: `the Python module \`${m[1]}\` is not installed in the sandbox (a dependency, not a module of this repository)`,
          blocksAll: false,
        };
    }
    return null;
  }
  if (plan.language === "JavaScript") {
    for (const m of out.matchAll(/Cannot find (?:module|package) '([^']+)'/g)) {
      const spec = m[1]!;
      if (!spec.startsWith(".") && !spec.startsWith("/") && !spec.startsWith("node:"))
        return {
          what: `the package \`${spec}\` is not installed in the sandbox (a dependency, not a file of this repository)`,
          blocksAll: false,
        };
    }
    return null;
  }
  if (plan.language === "Go") {
    const line = lastLine(
      out,
      /missing go\.sum entry|no required module provides package|cannot find module providing package/,
    );
    if (line) return { what: `Go could not load a module the package needs: ${line}`, blocksAll: true };
  }
  return null;
}

/** A mistake of module syntax in the test (ES `import` in CommonJS, `require` in an ES module). */
export function moduleSyntaxMistake(plan: TestPlan, e: ExecResult): string | null {
  if (plan.language !== "JavaScript") return null;
  const out = `${e.stdout}\n${e.stderr}`;
  // Node 22+ reparses such a file as an ES module (with this warning) where older Node and
  // `"type": "commonjs"` fail: the file must follow the package.
  if (
    /Cannot use import statement outside a module|Reparsing as ES module because module syntax was detected/.test(
      out,
    )
  )
    return "it uses ES `import` statements, but this package loads the file as CommonJS: use `require(...)`";
  if (/require is not defined in ES module scope/.test(out))
    return "it uses `require(...)`, but this package loads the file as an ES module: use `import`";
  return null;
}

/** Whether the run printed anything at all (an empty run shows no verdict, whatever its exit code). */
export const printed = (e: ExecResult): boolean => `${e.stdout}${e.stderr}`.trim() !== "";

/** Why a run does not show what the test must show, for the model: a verdict line and the reason. */
export interface Miss {
  verdict: string;
  why: string;
  /** No test file can pass this (the environment): the stage stops. */
  stop: boolean;
}

const WRONG = "The test did not do what a regression test must";
const ENV = "The test could not run, and not because of what it checks (this is the sandbox's environment)";

/** Trouble that is not about what the test asserts: the environment, module syntax, no output, a limit. */
function runTrouble(plan: TestPlan, e: ExecResult, root: string): Miss | null {
  const env = environmentFailure(plan, e, root);
  if (env)
    return {
      verdict: ENV,
      why: env.blocksAll ? env.what : `${env.what}; write the test with what is installed`,
      stop: env.blocksAll,
    };
  const syntax = moduleSyntaxMistake(plan, e);
  if (syntax) return { verdict: "The test file could not be loaded", why: syntax, stop: false };
  if (e.limit !== null || e.exitCode === null)
    return { verdict: WRONG, why: `it did not run to a verdict (${ended(e)})`, stop: false };
  if (!printed(e))
    return { verdict: WRONG, why: "its run printed nothing, so no verdict can be read from it", stop: false };
  return null;
}

const names = (list: string[]): string => list.map((n) => `\`${n}\``).join(", ");

/** Whether the run on the unfixed tree shows every test of the new file failing; null when it does. */
export function missBefore(plan: TestPlan, e: ExecResult, root: string): Miss | null {
  const trouble = runTrouble(plan, e, root);
  if (trouble) return trouble;
  const v = perTestVerdicts(plan, e);
  if (v && v.size > 0) {
    const passed = [...v].filter(([, r]) => r === "pass").map(([n]) => n);
    if (passed.length > 0)
      return {
        verdict: WRONG,
        why: `${passed.length === 1 ? "this test passes" : "these tests pass"} on the code without the fix, so ${passed.length === 1 ? "it" : "they"} would not catch the bug: ${names(passed)}. Every test in the file must fail without the fix: make ${passed.length === 1 ? "it" : "them"} check what the issue asks for, or remove ${passed.length === 1 ? "it" : "them"}`,
        stop: false,
      };
    if ([...v.values()].every((r) => r === "skip"))
      return { verdict: WRONG, why: "every test in it was skipped", stop: false };
    return e.exitCode === 0
      ? { verdict: WRONG, why: "the runner exited 0 on the code without the fix", stop: false }
      : null;
  }
  if (!testsRan(plan, e) || (v && v.size === 0)) {
    const notLoaded = conventionsOf(plan).notLoaded?.(`${e.stdout}\n${e.stderr}`) ?? null;
    return { verdict: WRONG, why: notLoaded ?? "no test in it ran", stop: false };
  }
  if (e.exitCode === 0)
    return {
      verdict: WRONG,
      why: "it passed on the code without the fix, so it would not catch the bug",
      stop: false,
    };
  return null;
}

/** Whether the run on the fixed tree shows every test that failed before passing now; null when it does. */
export function missAfter(plan: TestPlan, e: ExecResult, root: string, before: ExecResult): Miss | null {
  const trouble = runTrouble(plan, e, root);
  if (trouble) return { ...trouble, why: `with the fix, ${trouble.why}` };
  const v = perTestVerdicts(plan, e);
  if (v) {
    const was = perTestVerdicts(plan, before) ?? new Map();
    const failing = [...v].filter(([, r]) => r === "fail").map(([n]) => n);
    const lost = [...was.keys()].filter((n) => !v.has(n));
    if (failing.length > 0)
      return {
        verdict: WRONG,
        why: `it did not pass with the fix: ${names(failing)} failed (${ended(e)})`,
        stop: false,
      };
    if (lost.length > 0)
      return { verdict: WRONG, why: `with the fix, ${names(lost)} did not run`, stop: false };
    if (v.size === 0 || ![...v.values()].includes("pass"))
      return { verdict: WRONG, why: "with the fix, no test in it passed", stop: false };
  }
  if (e.exitCode !== 0 || !testsRan(plan, e))
    return { verdict: WRONG, why: `it did not pass with the fix (${ended(e)})`, stop: false };
  return null;
}
