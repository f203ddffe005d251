import type { RunnerConventions } from "../parts/conventions.ts";
import { quote } from "../shared/conventions-files.ts";
import { jsPlan, recogniseByScript } from "../shared/conventions-js.ts";

export const conventions: RunnerConventions = {
  label: "vitest",
  languages: ["javascript", "typescript"],
  recognise: (files) => recogniseByScript(files, /vitest/),
  // vitest reports the file as a whole here: no per-test lines are read.
  regression: {
    plan: (root, changed) =>
      jsPlan(root, changed, {
        runner: "vitest",
        framework: "vitest",
        command: (path) => `npx --no-install vitest run ${quote(path)}`,
        notes: ({ cjs }) =>
          `Use \`${cjs ? 'const { test, expect } = require("vitest")' : 'import { test, expect } from "vitest"'}\`.`,
      }),
  },
  watched: {
    libraries: ["vitest"],
    objects: ["vitest"],
    extensions: [],
    names: [/\bvitest\b/i],
    variables: [/VITEST_/],
  },
};
