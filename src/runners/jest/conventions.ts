import type { RunnerConventions } from "../parts/conventions.ts";
import { quote } from "../shared/conventions-files.ts";
import { jsPlan, recogniseByScript } from "../shared/conventions-js.ts";

/** jest's own settings: its configuration and setup files (Create React App's `setupTests` too), package.json's `jest`. */
const TEST_CONFIG = {
  wholeFiles: [
    /^jest\.(config|conf)\.[cm]?[jt]s(on)?$/,
    /^jest\.config$/,
    /^jest\.setup\.[cm]?[jt]sx?$/,
    /^setupTests\.[cm]?[jt]sx?$/,
  ],
  packageKeys: ["jest"],
} satisfies RunnerConventions["testConfig"];

export const conventions: RunnerConventions = {
  testConfig: TEST_CONFIG,
  label: "jest",
  languages: ["javascript", "typescript"],
  recognise: (files) => recogniseByScript(files, /jest/),
  // jest reports the file as a whole here: no per-test lines are read.
  regression: {
    plan: (root, changed) =>
      jsPlan(root, changed, {
        runner: "jest",
        framework: "jest",
        command: (path) => `npx --no-install jest --runTestsByPath ${quote(path)}`,
        notes: () => "Use jest's `test` and `expect` as the repository's tests do.",
      }),
  },
  watched: {
    libraries: ["jest", "@jest/globals", "@jest/expect", "expect"],
    objects: ["jest", "@jest/globals", "expect"],
    extensions: ["expect.extend", "expect.addSnapshotSerializer"],
    names: [/\bjest\b/i],
    variables: [/JEST_WORKER_ID/],
  },
};
