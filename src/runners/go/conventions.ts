import { posix } from "node:path";
import type { RunnerConventions } from "../parts/conventions.ts";
import {
  baseName,
  collectVerdicts,
  exampleOf,
  freshPath,
  join,
  listDir,
  pickSample,
  quote,
} from "../shared/conventions-files.ts";

/** `-v`'s per-test lines: `--- PASS: TestX (0.00s)`. */
const RESULT_LINE = /^\s*--- (PASS|FAIL|SKIP): (\S+)/gm;

export const conventions: RunnerConventions = {
  label: "go test",
  languages: ["go"],
  recognise: (files) => ({
    testCommand: "go test -json ./...",
    ...(files.has("go.sum") ? { setup: ["go mod download"] } : {}),
    reasons: ["tests: go test"],
  }),
  packageTestsCompiledWithCode: true,
  regressionDefault: true,
  regression: {
    plan(root, changed) {
      const file = changed.find((f) => f.endsWith(".go") && !f.endsWith("_test.go"));
      if (!file) return { ok: false, reason: "the patch changes no Go package to put a test beside" };
      const dir = posix.dirname(file);
      const wanted = join(dir, `${baseName(file)}_regression_test.go`);
      const path = freshPath(root, wanted);
      if (!path) return { ok: false, reason: `no free file name beside ${wanted}` };
      const existing = listDir(root, dir)
        .filter((f) => f.endsWith("_test.go"))
        .sort();
      const sample = pickSample(existing, baseName(file));
      return {
        ok: true,
        plan: {
          runner: "go",
          framework: "go test",
          language: "Go",
          tags: ["go", "golang"],
          path,
          command: `go test -count=1 -v ${dir === "." ? "." : `./${quote(dir)}`}`,
          notes:
            "Write it in the package of the file beside it (same `package` clause as the sample), with `func TestXxx(t *testing.T)` functions that call `t.Fatalf` on failure.",
          example: sample ? exampleOf(root, join(dir, sample)) : null,
        },
      };
    },
    /** Only the new file's tests: `-run '^(TestA|TestB)$'`. */
    command(plan, text) {
      const names = [...text.matchAll(/^func (Test\w*)\(\s*\w+ \*testing\.T\s*\)/gm)].map((m) => m[1]!);
      return names.length > 0 ? `${plan.command} -run '^(${names.join("|")})$'` : plan.command;
    },
    verdicts: (output) =>
      collectVerdicts(output, RESULT_LINE, (m) => [
        m[2]!,
        m[1] === "PASS" ? "pass" : m[1] === "SKIP" ? "skip" : "fail",
      ]),
    testsRan: (output) => !/no tests to run|no test files/.test(output),
  },
  watched: {
    libraries: ["testing"],
    objects: ["testing"],
    extensions: [],
    names: [],
    variables: [],
  },
};
