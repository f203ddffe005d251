import type { RunnerConventions } from "../parts/conventions.ts";
import { collectVerdicts, quote } from "../shared/conventions-files.ts";
import { jsPlan, recogniseByScript } from "../shared/conventions-js.ts";

/** TAP's per-test lines: `ok 1 - name`, `not ok 2 - name # SKIP`. */
const TAP_LINE = /^\s*(not ok|ok) \d+ - (.+?)(?: # (SKIP|TODO)\b.*)?$/gm;

export const conventions: RunnerConventions = {
  label: "node --test",
  languages: ["javascript", "typescript"],
  recognise: (files) => recogniseByScript(files, /node\s+(--[\w-]+\s+)*--test/),
  regressionDefault: true,
  regression: {
    plan: (root, changed) =>
      jsPlan(root, changed, {
        runner: "node-test",
        framework: "node --test",
        command: (path) => `node --test --test-reporter=tap ${quote(path)}`,
        notes: ({ cjs, assertLine }) =>
          `Use \`${cjs ? 'const { test } = require("node:test")' : 'import { test } from "node:test"'}\` and \`${assertLine}\`.`,
      }),
    verdicts: (output) =>
      collectVerdicts(output, TAP_LINE, (m) => [
        m[2]!.trim(),
        m[3] ? "skip" : m[1] === "ok" ? "pass" : "fail",
      ]),
    testsRan(output) {
      const tests = /^(?:# |ℹ )tests (\d+)/m.exec(output);
      return tests ? Number(tests[1]) > 0 : true;
    },
  },
  watched: {
    libraries: ["node:test"],
    objects: ["node:test", "assert"],
    extensions: [],
    names: [/node:test/i],
    variables: [/NODE_TEST_CONTEXT/],
  },
};
