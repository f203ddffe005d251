import type { RunnerConventions } from "../parts/conventions.ts";
import { quote } from "../shared/conventions-files.ts";
import { jsPlan, recogniseByScript } from "../shared/conventions-js.ts";

/**
 * vitest's own settings: its configuration, workspace and setup files, package.json's `vitest`, and the
 * vite configuration it reads its `test` settings from when it has no file of its own.
 */
const TEST_CONFIG = {
  wholeFiles: [
    /^(vitest|vitest\.workspace)\.(config|conf)\.[cm]?[jt]s(on)?$/,
    /^vitest\.workspace\.[cm]?[jt]s(on)?$/,
    /^vitest\.config$/,
    /^vitest\.setup\.[cm]?[jt]sx?$/,
    /^vite\.config\.[cm]?[jt]s$/,
  ],
  packageKeys: ["vitest"],
} satisfies RunnerConventions["testConfig"];

export const conventions: RunnerConventions = {
  testConfig: TEST_CONFIG,
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
